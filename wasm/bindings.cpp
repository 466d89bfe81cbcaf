// SPDX-License-Identifier: Apache-2.0
// embind bindings of dpadmm for the browser demo and the node tests.
//
// JavaScript sees (types in web/src/dpadmm_wasm.d.ts):
//
//   const m = await createDpadmmModule();
//   m.putFile('mydata.libsvm', text);        // "" or an error; the file lands in MEMFS
//   const s = new m.Session(specJson);       // either family; never throws: s.ok() / s.error()
//   s.family(); s.infoJson(); s.specJson(); s.graphJson(); s.csvHeader();
//   const summaryJson = s.run((roundJson, csvRow) => true /* false: stop after this round */);
//   // summary.warnings: RunWarnings (the page shows them); info.metrics, info.scaling and, when
//   // a guarantee binds the run, info.evaluation_on_private_data label what leaves the nodes.
//   s.delete();
//   m.defaultSpecJson('sharing');            // the defaults of an algorithm's family
//   m.threaded(); m.maxThreads();            // the threaded build (TBB engine) and its cores
//   const sweepJson = m.runSweep(configJson, (done, total, what) => true /* false: cancel */);
//   // config: {"base": spec, "algorithms": ["dvp", ...], "epsilons": [0.1, 1, 10],
//   //          "seeds": 3, "delta": 1e-5, "reference_lines": true}; the SweepResult as JSON
//   // (tools/sweep.h) plus "csv", the `dpadmm sweep` CSV of the same result.
//
// The spec's algorithm selects the family (consensus or vertical sharing), as in `dpadmm run`:
// the session starts from that algorithm's defaults (serial engine), then applies the JSON.
// Every C++ exception stops here and becomes a message (bad spec, malformed file, a loader's
// "file:line: ..." error): the page shows it, the module never aborts.
//
// The threaded build (DPADMM_WASM_THREADS, pthreads + oneTBB) also runs specs with
// "engine": "tbb", "threads": n. The engine then reports rounds from whichever of its threads
// completes them, while JavaScript values live on the calling thread only: the run goes to a
// thread of its own, and the calling thread relays each round to the callback (RoundRelay).
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <algorithm>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <fstream>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "dpadmm/core/error.h"
#include "dpadmm/run/choices.h"
#include "dpadmm/run/run.h"
#include "dpadmm/run/run_spec.h"
#include "dpadmm/run/spec_json.h"
#include "dpadmm/tools/sweep.h"

namespace {

using emscripten::val;
using Json = nlohmann::json;

// The spec a browser run starts from: the defaults of the algorithm's family on the serial
// engine (the only engine of the single-threaded wasm build).
dpadmm::RunSpec BrowserDefaults(dpadmm::Algorithm algorithm) {
  dpadmm::RunSpec spec = dpadmm::RunSpec::Defaults(algorithm);
  spec.engine = dpadmm::runtime::EngineKind::kSerial;
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

// A round as the callback sees it: the trace's JSON line (the family's columns), plus
// node_distance for the consensus family (the demo colours nodes by it).
std::string RoundJson(const dpadmm::RoundMetrics& m, dpadmm::Family family) {
  Json row = Json::parse(dpadmm::MetricsToJsonLine(m, family));
  if (family == dpadmm::Family::kConsensus) {
    Json distance = Json::array();
    for (double d : m.node_distance) distance.push_back(d);
    row["node_distance"] = std::move(distance);
  }
  return row.dump();
}

// Forwards each round to a JavaScript callback: (roundJson, csvRow) -> keep going?
class CallbackObserver : public dpadmm::RunObserver {
 public:
  CallbackObserver(val callback, dpadmm::Family family, dpadmm::runtime::StopToken& stop)
      : callback_(std::move(callback)), family_(family), stop_(stop) {}

  void OnRound(const dpadmm::RoundMetrics& m) override {
    const val keep_going = callback_(RoundJson(m, family_), dpadmm::MetricsToCsvRow(m, family_));
    if (!keep_going.as<bool>()) stop_.RequestStop();
  }

 private:
  val callback_;
  dpadmm::Family family_;
  dpadmm::runtime::StopToken& stop_;
};

#ifdef DPADMM_WASM_THREADS
// Hands rounds from the run's threads to the calling thread one at a time: the engine's
// emitter waits in OnRound until the callback has answered, so pausing in the callback
// (the page's Pause, an Atomics.wait in the worker) pauses the run, as on the serial engine.
class RoundRelay : public dpadmm::RunObserver {
 public:
  explicit RoundRelay(dpadmm::Family family) : family_(family) {}

  // Any engine thread (one at a time: the engine emits rounds in order from one thread).
  void OnRound(const dpadmm::RoundMetrics& m) override {
    std::string json = RoundJson(m, family_);
    std::string csv = dpadmm::MetricsToCsvRow(m, family_);
    std::unique_lock lock(mutex_);
    json_ = std::move(json);
    csv_ = std::move(csv);
    full_ = true;
    changed_.notify_all();
    changed_.wait(lock, [&] { return !full_; });
  }

  // The run's thread, after its last round.
  void Finish() {
    std::lock_guard lock(mutex_);
    finished_ = true;
    changed_.notify_all();
  }

  // The calling thread: passes each round to `deliver` until the run finishes.
  template <typename Deliver>
  void Relay(Deliver deliver) {
    std::unique_lock lock(mutex_);
    for (;;) {
      changed_.wait(lock, [&] { return full_ || finished_; });
      if (!full_) return;
      lock.unlock();
      deliver(json_, csv_);  // the emitter waits: json_ and csv_ stay as they are
      lock.lock();
      full_ = false;
      changed_.notify_all();
    }
  }

 private:
  dpadmm::Family family_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::string json_, csv_;
  bool full_ = false;
  bool finished_ = false;
};
#endif

class Session {
 public:
  explicit Session(const std::string& spec_json) {
    try {
      const auto algorithm = dpadmm::PeekAlgorithm(spec_json, "spec");
      dpadmm::RunSpec spec = BrowserDefaults(algorithm.value_or(dpadmm::Algorithm::kAdmm));
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
  // "consensus" | "sharing" ("" if the spec was rejected).
  std::string family() const {
    return experiment_ ? dpadmm::ChoiceName(experiment_->spec().family()) : "";
  }

  std::string specJson() const {
    return experiment_ ? dpadmm::SpecToJson(experiment_->spec()) : ErrorJson(error_);
  }
  std::string infoJson() const {
    return experiment_ ? dpadmm::RunInfoToJson(experiment_->info()) : ErrorJson(error_);
  }
  // The trace's CSV header for this run's family.
  std::string csvHeader() const {
    return experiment_ ? dpadmm::MetricsCsvHeader(experiment_->spec().family()) : "";
  }
  // Consensus: {"family": "consensus", "nodes": N, "edges": [[i, j], ...],
  // "rows_per_node": [...]}. Sharing, the star of ADMM sharing (node 0 the coordinator holding
  // the labels, nodes 1..M the parties): {"family": "sharing", "nodes": M + 1,
  // "edges": [[0, m], ...], "party_features": [d_1, ..., d_M], "rows": N}.
  std::string graphJson() const {
    if (!experiment_) return ErrorJson(error_);
    const dpadmm::RunInfo& info = experiment_->info();
    Json o = Json::object();
    o["family"] = dpadmm::ChoiceName(info.family);
    Json edges = Json::array();
    if (info.family == dpadmm::Family::kConsensus) {
      o["nodes"] = experiment_->graph().num_nodes();
      for (const auto& [i, j] : experiment_->graph().edges()) edges.push_back(Json::array({i, j}));
      o["edges"] = std::move(edges);
      o["rows_per_node"] = info.rows_per_node;
    } else {
      const auto parties = static_cast<std::int64_t>(info.party_features.size());
      o["nodes"] = parties + 1;
      for (std::int64_t m = 1; m <= parties; ++m)
        edges.push_back(Json::array({std::int64_t{0}, m}));
      o["edges"] = std::move(edges);
      o["party_features"] = info.party_features;
      o["rows"] = info.train_rows;
    }
    return o.dump();
  }

  // Runs the experiment to its end (or until the callback returns false: outcome "cancelled")
  // and returns the summary JSON, or {"error": ...}.
  std::string run(val callback) {
    if (!experiment_) return ErrorJson(error_);
    try {
      dpadmm::runtime::StopToken stop;
#ifdef DPADMM_WASM_THREADS
      if (experiment_->spec().engine == dpadmm::runtime::EngineKind::kTbb) {
        RoundRelay relay(experiment_->spec().family());
        std::string summary;
        std::thread run([&] {
          try {
            summary = dpadmm::SummaryToJson(experiment_->Run(&relay, &stop));
          } catch (const std::exception& e) {
            summary = ErrorJson(e.what());
          } catch (...) {
            summary = ErrorJson("unknown error during the run");
          }
          relay.Finish();
        });
        relay.Relay([&](const std::string& json, const std::string& csv) {
          try {
            if (!callback(json, csv).as<bool>()) stop.RequestStop();
          } catch (...) {
            stop.RequestStop();  // the run's thread must still end before this one leaves
          }
        });
        run.join();
        return summary;
      }
#endif
      CallbackObserver observer(std::move(callback), experiment_->spec().family(), stop);
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

// The browser defaults of `algorithm` ("" = admm, the main job) as spec JSON, or {"error": ...}.
std::string DefaultSpecJson(const std::string& algorithm) {
  try {
    return dpadmm::SpecToJson(BrowserDefaults(
        algorithm.empty() ? dpadmm::Algorithm::kAdmm
                          : dpadmm::ParseChoice<dpadmm::Algorithm>(algorithm, "algorithm")));
  } catch (const std::exception& e) {
    return ErrorJson(e.what());
  }
}

// The trace's CSV header of a family ("consensus" | "sharing"), "" for an unknown name.
std::string CsvHeader(const std::string& family) {
  try {
    return dpadmm::MetricsCsvHeader(dpadmm::ParseChoice<dpadmm::Family>(family, "family"));
  } catch (const std::exception&) {
    return "";
  }
}

// A SweepStat as {"mean", "low", "high", "values"}; NaN (a band of one seed) becomes null.
Json StatJson(const dpadmm::SweepStat& s) {
  Json o = Json::object();
  o["mean"] = s.mean;
  o["low"] = s.low;
  o["high"] = s.high;
  o["values"] = s.values;
  return o;
}

// The sweep config: {"base": spec, "algorithms": [...], "epsilons": [...], "seeds": n,
// "delta": d, "reference_lines": b}. The base spec starts from the browser defaults of its
// algorithm (admm without one), as a Session's does; the other fields default to SweepOptions'.
dpadmm::SweepOptions ParseSweepConfig(const std::string& config_json) {
  Json c;
  try {
    c = Json::parse(config_json);
  } catch (const Json::parse_error& e) {
    throw dpadmm::InputError(std::string("sweep config: JSON syntax error: ") + e.what());
  }
  if (!c.is_object()) throw dpadmm::InputError("sweep config: expected a JSON object");
  for (const auto& [key, value] : c.items()) {
    if (key != "base" && key != "algorithms" && key != "epsilons" && key != "seeds" &&
        key != "delta" && key != "reference_lines") {
      throw dpadmm::InputError("sweep config: unknown field '" + key + "'");
    }
  }
  dpadmm::SweepOptions o;
  const std::string base = c.contains("base") ? c["base"].dump() : "{}";
  const auto algorithm = dpadmm::PeekAlgorithm(base, "base");
  o.base = BrowserDefaults(algorithm.value_or(dpadmm::Algorithm::kAdmm));
  dpadmm::ApplySpecJson(base, "base", o.base);
  const auto list = [&](const char* field) -> const Json& {
    const Json& v = c.at(field);
    if (!v.is_array())
      throw dpadmm::InputError(std::string("sweep config: ") + field + " must be an array");
    return v;
  };
  if (c.contains("algorithms")) {
    o.algorithms.clear();
    for (const Json& a : list("algorithms")) {
      if (!a.is_string()) throw dpadmm::InputError("sweep config: algorithms must be names");
      o.algorithms.push_back(
          dpadmm::ParseChoice<dpadmm::Algorithm>(a.get<std::string>(), "algorithms"));
    }
  }
  if (c.contains("epsilons")) {
    o.epsilons.clear();
    for (const Json& e : list("epsilons")) {
      if (!e.is_number()) throw dpadmm::InputError("sweep config: epsilons must be numbers");
      o.epsilons.push_back(e.get<double>());
    }
  }
  if (c.contains("seeds")) {
    if (!c["seeds"].is_number_integer())
      throw dpadmm::InputError("sweep config: seeds must be an integer");
    o.seeds = c["seeds"].get<int>();
  }
  if (c.contains("delta")) {
    if (!c["delta"].is_number()) throw dpadmm::InputError("sweep config: delta must be a number");
    o.delta = c["delta"].get<double>();
  }
  if (c.contains("reference_lines")) {
    if (!c["reference_lines"].is_boolean())
      throw dpadmm::InputError("sweep config: reference_lines must be true or false");
    o.reference_lines = c["reference_lines"].get<bool>();
  }
  o.Validate();
  return o;
}

// Runs a privacy-utility sweep (tools/sweep.h) on this thread. The callback hears every
// finished run, (done, total, what) -> keep going?; false cancels: the result then holds what
// finished ("cancelled": true). Returns the result as JSON, or {"error": ...}.
std::string RunSweepJson(const std::string& config_json, val progress) {
  try {
    const dpadmm::SweepOptions options = ParseSweepConfig(config_json);
    dpadmm::runtime::StopToken stop;
    const dpadmm::SweepResult r = dpadmm::RunSweep(
        options,
        [&](int done, int total, const std::string& what) {
          if (!progress(done, total, what).as<bool>()) stop.RequestStop();
        },
        &stop);
    Json o = Json::object();
    Json cells = Json::array();
    for (const dpadmm::SweepCell& c : r.cells) {
      Json cell = Json::object();
      cell["algorithm"] = dpadmm::ChoiceName(c.algorithm);
      cell["epsilon"] = c.epsilon;
      cell["accuracy"] = StatJson(c.accuracy);
      cell["knob"] = c.knob;
      cell["knob_values"] = c.knob_values;
      cell["achieved_epsilon"] = c.achieved_epsilon;
      cell["outcomes"] = c.outcomes;
      cells.push_back(std::move(cell));
    }
    o["cells"] = std::move(cells);
    if (options.reference_lines) {
      o["admm"] = StatJson(r.admm);
      o["centralized"] = StatJson(r.centralized);
      o["majority"] = StatJson(r.majority);
    }
    o["delta"] = r.delta;
    o["seeds"] = r.seeds;
    o["dataset"] = r.dataset;
    o["band"] = r.band;
    o["noise"] = r.noise;
    o["cancelled"] = r.cancelled;
    o["csv"] = dpadmm::SweepToCsv(r);
    return o.dump();
  } catch (const std::exception& e) {
    return ErrorJson(e.what());
  } catch (...) {
    return ErrorJson("unknown error during the sweep");
  }
}

#ifdef DPADMM_WASM_THREADS
bool Threaded() { return true; }
int MaxThreads() { return static_cast<int>(std::max(1u, std::thread::hardware_concurrency())); }
#else
bool Threaded() { return false; }
int MaxThreads() { return 1; }
#endif

}  // namespace

EMSCRIPTEN_BINDINGS(dpadmm) {
  emscripten::function("threaded", &Threaded);
  emscripten::function("maxThreads", &MaxThreads);
  emscripten::function("runSweep", &RunSweepJson);
  emscripten::function("putFile", &PutFile);
  emscripten::function("defaultSpecJson", &DefaultSpecJson);
  emscripten::function("csvHeader", &CsvHeader);
  emscripten::class_<Session>("Session")
      .constructor<std::string>()
      .function("ok", &Session::ok)
      .function("error", &Session::error)
      .function("family", &Session::family)
      .function("specJson", &Session::specJson)
      .function("infoJson", &Session::infoJson)
      .function("csvHeader", &Session::csvHeader)
      .function("graphJson", &Session::graphJson)
      .function("run", &Session::run);
}
