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
// Every C++ exception stops here and becomes a message (bad spec, malformed file, a loader's
// "file:line: ..." error): the page shows it, the module never aborts.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <cstdint>
#include <exception>
#include <fstream>
#include <memory>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "dpadmm/algorithms/error.h"
#include "dpadmm/algorithms/run.h"
#include "dpadmm/algorithms/run_spec.h"
#include "dpadmm/algorithms/spec_json.h"

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

std::string DefaultSpecJson() { return dpadmm::SpecToJson(BrowserDefaults()); }
std::string CsvHeader() { return dpadmm::MetricsCsvHeader(); }

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
}
