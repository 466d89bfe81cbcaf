// embind bindings of dpadmm for the browser demo and the node tests.
//
// JavaScript sees (types in web/src/dpadmm_wasm.d.ts):
//
//   const m = await createDpadmmModule();
//   m.putFile('mydata.libsvm', text);        // "" or an error; the file lands in MEMFS
//   const s = new m.Session(specJson);       // never throws: check s.ok() / s.error()
//   s.infoJson(); s.specJson(); s.graphJson();
//   const summaryJson = s.run((roundJson, csvRow) => true /* false: stop after this round */);
//   s.delete();
//
//   const v = new m.SharingSession(sharingSpecJson);   // vertical partition: ADMM sharing / SGD
//   v.ok(); v.error(); v.specJson(); v.infoJson(); v.graphJson();
//   const summaryJson = v.run((epochJson, csvRow) => true /* false: stop after this epoch */);
//   v.delete();
//
// Every C++ exception stops here and becomes a message (bad spec, malformed file, a loader's
// "file:line: ..." error): the page shows it, the module never aborts.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <cmath>
#include <cstdint>
#include <exception>
#include <fstream>
#include <memory>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "dpadmm/core/error.h"
#include "dpadmm/experiment/run.h"
#include "dpadmm/experiment/run_spec.h"
#include "dpadmm/sharing/sharing.h"
#include "dpadmm/experiment/spec_json.h"

namespace {

using emscripten::val;
using Json = nlohmann::json;

// The spec a browser run starts from: the library's defaults on the serial engine (the only
// engine of the single-threaded wasm build).
dpadmm::RunSpec BrowserDefaults() {
  dpadmm::RunSpec spec;
  spec.engine = "serial";
  spec.threads = 1;
  return spec;
}

std::string ErrorJson(const std::string& message) {
  Json o = Json::object();
  o["error"] = message;
  return o.dump();
}

// Writes an uploaded file into the in-memory file system so that the C++ loaders read it by
// path, exactly as the CLI does. Only plain names (no directories) are accepted, so messages
// read "name:line: ...".
std::string PutFile(const std::string& name, const std::string& contents) {
  if (name.empty() || name.find('/') != std::string::npos || name == "." || name == "..") {
    return "file name must be a plain name without '/', got '" + name + "'";
  }
  std::ofstream out("/" + name, std::ios::binary | std::ios::trunc);
  out.write(contents.data(), static_cast<std::streamsize>(contents.size()));
  out.close();
  if (!out) return name + ": could not be stored in the in-memory file system";
  return "";
}

// Forwards each round to a JavaScript callback: (roundJson, csvRow) -> keep going?
class CallbackObserver : public dpadmm::RunObserver {
 public:
  CallbackObserver(val callback, dpadmm::runtime::StopToken& stop)
      : callback_(std::move(callback)), stop_(stop) {}

  void OnRound(const dpadmm::RoundMetrics& m) override {
    Json row = Json::parse(dpadmm::MetricsToJsonLine(m));
    Json distance = Json::array();
    for (double d : m.node_distance) distance.push_back(d);
    row["node_distance"] = std::move(distance);
    const val keep_going = callback_(row.dump(), dpadmm::MetricsToCsvRow(m));
    if (!keep_going.as<bool>()) stop_.RequestStop();
  }

 private:
  val callback_;
  dpadmm::runtime::StopToken& stop_;
};

class Session {
 public:
  explicit Session(const std::string& spec_json) {
    try {
      dpadmm::RunSpec spec = BrowserDefaults();
      dpadmm::ApplySpecJson(spec_json, "spec", spec);
      experiment_.emplace(std::move(spec));
    } catch (const std::exception& e) {
      error_ = e.what();
    } catch (...) {
      error_ = "unknown error while preparing the run";
    }
  }

  bool ok() const { return experiment_.has_value(); }
  std::string error() const { return error_; }

  std::string specJson() const {
    return experiment_ ? dpadmm::SpecToJson(experiment_->spec()) : ErrorJson(error_);
  }
  std::string infoJson() const {
    return experiment_ ? dpadmm::RunInfoToJson(experiment_->info()) : ErrorJson(error_);
  }
  // {"nodes": N, "edges": [[i, j], ...], "rows_per_node": [...]}
  std::string graphJson() const {
    if (!experiment_) return ErrorJson(error_);
    Json o = Json::object();
    o["nodes"] = experiment_->graph().num_nodes();
    Json edges = Json::array();
    for (const auto& [i, j] : experiment_->graph().edges()) edges.push_back(Json::array({i, j}));
    o["edges"] = std::move(edges);
    o["rows_per_node"] = experiment_->info().rows_per_node;
    return o.dump();
  }

  // Runs the experiment to its end (or until the callback returns false: outcome "cancelled")
  // and returns the summary JSON, or {"error": ...}.
  std::string run(val callback) {
    if (!experiment_) return ErrorJson(error_);
    try {
      dpadmm::runtime::StopToken stop;
      CallbackObserver observer(std::move(callback), stop);
      return dpadmm::SummaryToJson(experiment_->Run(&observer, &stop));
    } catch (const std::exception& e) {
      return ErrorJson(e.what());
    } catch (...) {
      return ErrorJson("unknown error during the run");
    }
  }

 private:
  std::optional<dpadmm::Experiment> experiment_;
  std::string error_;
};

// --- ADMM sharing over vertically partitioned features (sharing.h) -----------------------------

// The library's sharing defaults on the serial engine (bitwise identical to tbb).
dpadmm::SharingSpec SharingBrowserDefaults() {
  dpadmm::SharingSpec spec;
  spec.engine = "serial";
  spec.threads = 1;
  return spec;
}

Json FiniteOrNull(double v) { return std::isfinite(v) ? Json(v) : Json(nullptr); }

// One epoch as JSON: the columns of the CSV trace (non-finite values become null).
std::string SharingMetricsJson(const dpadmm::SharingMetrics& m) {
  Json o = Json::object();
  o["epoch"] = m.epoch;
  o["seconds"] = FiniteOrNull(m.seconds);
  o["objective"] = FiniteOrNull(m.objective);
  o["train_loss"] = FiniteOrNull(m.train_loss);
  o["test_loss"] = FiniteOrNull(m.test_loss);
  o["test_error"] = FiniteOrNull(m.test_error);
  o["primal_residual"] = FiniteOrNull(m.primal_residual);
  o["max_x_norm"] = FiniteOrNull(m.max_x_norm);
  o["y_norm"] = FiniteOrNull(m.y_norm);
  o["epsilon_iteration"] = FiniteOrNull(m.epsilon_iteration);
  o["delta_iteration"] = FiniteOrNull(m.delta_iteration);
  o["epsilon_total"] = FiniteOrNull(m.epsilon_total);
  o["delta_total"] = FiniteOrNull(m.delta_total);
  return o.dump();
}

// Forwards each epoch to a JavaScript callback: (epochJson, csvRow) -> keep going?
class SharingCallbackObserver : public dpadmm::SharingObserver {
 public:
  SharingCallbackObserver(val callback, dpadmm::runtime::StopToken& stop)
      : callback_(std::move(callback)), stop_(stop) {}

  void OnEpoch(const dpadmm::SharingMetrics& m) override {
    const val keep_going = callback_(SharingMetricsJson(m), dpadmm::SharingMetricsToCsvRow(m));
    if (!keep_going.as<bool>()) stop_.RequestStop();
  }

 private:
  val callback_;
  dpadmm::runtime::StopToken& stop_;
};

class SharingSession {
 public:
  explicit SharingSession(const std::string& spec_json) {
    try {
      dpadmm::SharingSpec spec = SharingBrowserDefaults();
      dpadmm::ApplySharingSpecJson(spec_json, "sharing spec", spec);
      spec.Validate();
      experiment_.emplace(std::move(spec));
    } catch (const std::exception& e) {
      error_ = e.what();
    } catch (...) {
      error_ = "unknown error while preparing the run";
    }
  }

  bool ok() const { return experiment_.has_value(); }
  std::string error() const { return error_; }

  std::string specJson() const {
    return experiment_ ? dpadmm::SharingSpecToJson(experiment_->spec()) : ErrorJson(error_);
  }

  // The data and the partition before any iteration: dataset, rows, features, the parties'
  // column blocks, privacy parameters (Theorem 3's sigma per party) and the baselines.
  std::string infoJson() const {
    if (!experiment_) return ErrorJson(error_);
    const dpadmm::SharingInfo& i = experiment_->info();
    Json o = Json::object();
    o["dataset"] = i.dataset;
    o["train_rows"] = i.train_rows;
    o["test_rows"] = i.test_rows;
    o["features"] = i.features;
    o["sparse"] = i.sparse;
    o["parties"] = i.party_features.size();
    o["party_features"] = i.party_features;
    o["party_offsets"] = i.party_offsets;
    o["party_max_row_norm"] = i.party_max_row_norm;
    o["algorithm"] = i.algorithm;
    o["engine"] = i.engine;
    o["dp"] = i.dp;
    o["epsilon"] = i.epsilon;
    o["delta"] = i.delta;
    o["party_sigma"] = i.party_sigma;
    o["party_epsilon"] = i.party_epsilon;
    o["privacy_guarantee"] = i.privacy_guarantee;
    const auto baseline = [](const dpadmm::SharingBaseline& b) {
      if (!b.computed) return Json(nullptr);
      Json j = Json::object();
      j["objective"] = FiniteOrNull(b.objective);
      j["test_loss"] = FiniteOrNull(b.test_loss);
      j["test_error"] = FiniteOrNull(b.test_error);
      return j;
    };
    o["central_baseline"] = baseline(i.central);
    o["local_baseline"] = baseline(i.local);
    return o.dump();
  }

  // The star of ADMM sharing: node 0 is the coordinator (holds the labels), nodes 1..M the
  // parties (each holds a column block). {"nodes": M + 1, "edges": [[0, m], ...],
  // "party_features": [d_1, ..., d_M], "rows": N}
  std::string graphJson() const {
    if (!experiment_) return ErrorJson(error_);
    const dpadmm::SharingInfo& i = experiment_->info();
    const auto parties = static_cast<std::int64_t>(i.party_features.size());
    Json o = Json::object();
    o["nodes"] = parties + 1;
    Json edges = Json::array();
    for (std::int64_t m = 1; m <= parties; ++m) edges.push_back(Json::array({std::int64_t{0}, m}));
    o["edges"] = std::move(edges);
    o["party_features"] = i.party_features;
    o["rows"] = i.train_rows;
    return o.dump();
  }

  // Runs every epoch (or until the callback returns false: outcome "cancelled") and returns
  // SharingSummaryToJson, or {"error": ...}.
  std::string run(val callback) {
    if (!experiment_) return ErrorJson(error_);
    try {
      dpadmm::runtime::StopToken stop;
      SharingCallbackObserver observer(std::move(callback), stop);
      return dpadmm::SharingSummaryToJson(experiment_->Run(&observer, &stop));
    } catch (const std::exception& e) {
      return ErrorJson(e.what());
    } catch (...) {
      return ErrorJson("unknown error during the run");
    }
  }

 private:
  std::optional<dpadmm::SharingExperiment> experiment_;
  std::string error_;
};

std::string DefaultSpecJson() { return dpadmm::SpecToJson(BrowserDefaults()); }
std::string CsvHeader() { return dpadmm::MetricsCsvHeader(); }
std::string DefaultSharingSpecJson() { return dpadmm::SharingSpecToJson(SharingBrowserDefaults()); }
std::string SharingCsvHeader() { return dpadmm::SharingCsvHeader(); }

}  // namespace

EMSCRIPTEN_BINDINGS(dpadmm) {
  emscripten::function("putFile", &PutFile);
  emscripten::function("defaultSpecJson", &DefaultSpecJson);
  emscripten::function("csvHeader", &CsvHeader);
  emscripten::class_<Session>("Session")
      .constructor<std::string>()
      .function("ok", &Session::ok)
      .function("error", &Session::error)
      .function("specJson", &Session::specJson)
      .function("infoJson", &Session::infoJson)
      .function("graphJson", &Session::graphJson)
      .function("run", &Session::run);
  emscripten::function("defaultSharingSpecJson", &DefaultSharingSpecJson);
  emscripten::function("sharingCsvHeader", &SharingCsvHeader);
  emscripten::class_<SharingSession>("SharingSession")
      .constructor<std::string>()
      .function("ok", &SharingSession::ok)
      .function("error", &SharingSession::error)
      .function("specJson", &SharingSession::specJson)
      .function("infoJson", &SharingSession::infoJson)
      .function("graphJson", &SharingSession::graphJson)
      .function("run", &SharingSession::run);
}
