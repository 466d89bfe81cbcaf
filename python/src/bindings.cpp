// SPDX-License-Identifier: Apache-2.0
// dpadmm._core: the pybind11 face of the public C++ API (no second implementation). The pure
// Python package `dpadmm` (python/dpadmm/) builds the estimators and functions on these.
//
// Runs release the GIL and compute on the calling thread. On the main thread Ctrl-C (SIGINT)
// triggers the run's StopToken: the run ends with outcome "cancelled" and the KeyboardInterrupt
// (or whatever exception Python's SIGINT handler raises) is handed back to the Python layer,
// which raises it once the rounds done are recorded (RunReleased). The progress callback is
// called once per reported round with the GIL held (on the thread that reports the round); an
// exception it raises also stops the run and is raised afterwards.
#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <signal.h>

#include <pybind11/eigen.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "convert.h"
#include "dpadmm/core/error.h"
#include "dpadmm/persistence/model.h"
#include "dpadmm/privacy/accountant.h"
#include "dpadmm/privacy/accounting.h"
#include "dpadmm/run/choices.h"
#include "dpadmm/run/run.h"
#include "dpadmm/run/run_spec.h"
#include "dpadmm/run/spec_json.h"
#include "dpadmm/tools/audit.h"
#include "dpadmm/tools/calibration.h"
#include "dpadmm/tools/sweep.h"
#include "dpadmm/version.h"

namespace dpadmm::python {
namespace {

// The exception a Python callback or signal handler raised, kept (with its traceback) until
// the run has ended. Touched only with the GIL held.
struct PendingError {
  py::object value;
  void Capture() {
    py::error_already_set e;
    value = e.value();
    if (e.trace()) PyException_SetTraceback(value.ptr(), e.trace().ptr());
  }
  explicit operator bool() const { return static_cast<bool>(value); }
};

// Ctrl-C during a run on the main thread: a C signal handler (installed for the run's
// duration in place of Python's) requests the run's stop; afterwards Python's handler is put
// back and the interrupt handed to it (PyErr_SetInterrupt), so KeyboardInterrupt - or whatever
// a custom handler does - happens once the run has ended cleanly.
std::atomic<runtime::StopToken*> g_main_stop{nullptr};
std::atomic<bool> g_interrupted{false};
unsigned long g_main_thread = 0;  // PyThread_get_thread_ident() of the main thread

extern "C" void StopOnSigint(int /*signal*/) {
  g_interrupted.store(true);
  if (runtime::StopToken* stop = g_main_stop.load()) stop->RequestStop();
}

// Runs `work` on the calling thread with the GIL released. On the main thread, SIGINT stops
// the run (see above) and the exception Python's handler raises is kept in `interrupt`.
// Exceptions of `work` are rethrown here (with the GIL).
template <class R>
R RunReleased(const std::function<R()>& work, runtime::StopToken& stop, PendingError& interrupt) {
  struct sigaction previous {};
  bool installed = false;
  if (PyThread_get_thread_ident() == g_main_thread && sigaction(SIGINT, nullptr, &previous) == 0 &&
      previous.sa_handler != SIG_IGN) {
    struct sigaction ours {};
    ours.sa_handler = StopOnSigint;
    sigemptyset(&ours.sa_mask);
    g_interrupted.store(false);
    g_main_stop.store(&stop);
    installed = sigaction(SIGINT, &ours, nullptr) == 0;
  }
  std::optional<R> result;
  std::exception_ptr error;
  {
    py::gil_scoped_release release;
    try {
      result.emplace(work());
    } catch (...) {
      error = std::current_exception();
    }
  }
  if (installed) {
    sigaction(SIGINT, &previous, nullptr);
    g_main_stop.store(nullptr);
    if (g_interrupted.exchange(false)) {
      PyErr_SetInterrupt();
      if (PyErr_CheckSignals() != 0) interrupt.Capture();
    }
  }
  if (error) std::rethrow_exception(error);
  return std::move(*result);
}

// The spec of a JSON text (parsed once), validated.
RunSpec ValidSpec(const std::string& text, const std::string& where) {
  RunSpec spec = SpecFromJson(text, where);
  spec.Validate();
  return spec;
}

// The validated specs of the last few spec texts `run` was given, most recent first: fits that
// repeat a spec (the same estimator parameters, a benchmark loop, GridSearchCV's folds of one
// candidate) parse and validate it once, as a C++ caller keeps its RunSpec. The parse of a
// valid text depends on the text alone (`where` only names it in messages), so the exact text
// is the key; a text that fails is never kept (its error is raised at every call). Entries are
// immutable (shared_ptr<const RunSpec>): a run copies the spec into its Experiment and nothing
// of an entry reaches Python. The mutex makes lookups safe from any thread, GIL held or not.
class SpecCache {
 public:
  static constexpr std::size_t kEntries = 8;

  std::shared_ptr<const RunSpec> Get(const std::string& text, const std::string& where) {
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      const auto found = std::find_if(entries_.begin(), entries_.end(),
                                      [&](const Entry& e) { return e.first == text; });
      if (found != entries_.end()) {
        std::rotate(entries_.begin(), found, found + 1);  // most recent first
        ++hits_;
        return entries_.front().second;
      }
    }
    auto spec = std::make_shared<const RunSpec>(ValidSpec(text, where));  // throws: not kept
    const std::lock_guard<std::mutex> lock(mutex_);
    ++misses_;
    entries_.insert(entries_.begin(), Entry(text, spec));
    if (entries_.size() > kEntries) entries_.pop_back();
    return spec;
  }
  // (hits, misses, entries) since the last Clear, for the tests.
  py::tuple Stats() {
    const std::lock_guard<std::mutex> lock(mutex_);
    return py::make_tuple(hits_, misses_, entries_.size());
  }
  void Clear() {
    const std::lock_guard<std::mutex> lock(mutex_);
    entries_.clear();
    hits_ = misses_ = 0;
  }

 private:
  using Entry = std::pair<std::string, std::shared_ptr<const RunSpec>>;
  std::mutex mutex_;
  std::vector<Entry> entries_;
  std::int64_t hits_ = 0, misses_ = 0;
};

SpecCache& RunSpecs() {
  static SpecCache* cache = new SpecCache();  // never destroyed: no teardown order at exit
  return *cache;
}

// The rounds a run reports at most (round 0, every metrics_every-th, the last), capped: a
// storage hint for the history, not a limit.
std::int64_t ExpectedRounds(const RunSpec& spec) {
  constexpr std::int64_t kCap = 1024;
  const std::int64_t every = std::max(spec.metrics_every, 1);
  return std::min<std::int64_t>(spec.iterations / every + 2, kCap);
}

// Records every round and calls the Python progress callback (GIL taken per round).
class PyObserver : public RunObserver {
 public:
  PyObserver(py::object progress, const RunSpec& spec, runtime::StopToken& stop, bool keep)
      : progress_(std::move(progress)),
        family_(spec.family()),
        stop_(stop),
        keep_(keep),
        history_(family_, keep ? ExpectedRounds(spec) : 0) {}
  void OnRound(const RoundMetrics& m) override {
    if (keep_) history_.Add(m);
    if (progress_.is_none() || callback_error_) return;
    py::gil_scoped_acquire gil;
    try {
      const py::object answer = progress_(RoundToDict(m, family_));
      if (answer.ptr() == Py_False) stop_.RequestStop();
    } catch (py::error_already_set& e) {
      e.restore();
      callback_error_.Capture();
      stop_.RequestStop();
    }
  }
  HistoryRecorder& history() { return history_; }
  PendingError& callback_error() { return callback_error_; }

 private:
  py::object progress_;
  Family family_;
  runtime::StopToken& stop_;
  bool keep_;
  HistoryRecorder history_;
  PendingError callback_error_;
};

// What _core.run returns: the run's results as the C++ API returns them (the RunSummary, the
// spec as run, the recorded history), converted to Python objects only when asked for, as a
// RunSummary's reader pays for what it reads. outcome, rounds, noise_mode and warnings are read
// by every fit; summary_json() and spec_json() serialize on each call (the caller keeps what
// it decoded); history() hands the recorded columns to numpy once and then returns that dict.
struct RunOutput {
  RunSummary summary;
  RunSpec spec;  // as run (a calibrated knob set)
  py::object model;
  std::string model_error;
  HistoryRecorder history;
  py::object history_dict;
  py::object interrupt;
  py::object callback_error;
};

std::unique_ptr<RunOutput> Run(const std::string& spec_text, const std::string& where,
                               const py::object& x_train, const py::object& y_train,
                               const py::object& x_test, const py::object& y_test,
                               const py::object& progress, bool history) {
  const std::shared_ptr<const RunSpec> cached = RunSpecs().Get(spec_text, where);
  const RunSpec& spec = *cached;
  const bool in_memory = !x_train.is_none();
  Dataset train, test;
  if (in_memory) {
    train = ToDataset(x_train, y_train, "X");
    if (!x_test.is_none()) test = ToDataset(x_test, y_test, "X_test");
  } else if (!x_test.is_none()) {
    throw InputError("X_test needs X: give the training rows too, or neither");
  }
  runtime::StopToken stop;
  PendingError interrupt;
  PyObserver observer(progress, spec, stop, history);
  struct Computed {
    RunSummary summary;
    RunSpec spec;
    std::optional<Model> model;
    std::string model_error;
  };
  const std::function<Computed()> work = [&] {
    const Experiment experiment =
        in_memory ? Experiment(spec, std::move(train), std::move(test)) : Experiment(spec);
    Computed r{experiment.Run(&observer, &stop), experiment.spec(), std::nullopt, {}};
    try {
      r.model.emplace(Model::FromRun(r.summary, spec));
    } catch (const InputError& e) {
      r.model_error = e.what();
    }
    return r;
  };
  Computed r = RunReleased(work, stop, interrupt);
  auto out = std::make_unique<RunOutput>(RunOutput{
      std::move(r.summary), std::move(r.spec),
      r.model ? py::cast(std::move(*r.model)) : py::object(py::none()), std::move(r.model_error),
      std::move(observer.history()), py::none(),
      interrupt.value ? interrupt.value : py::object(py::none()),
      observer.callback_error() ? observer.callback_error().value : py::object(py::none())});
  return out;
}

void BindRunOutput(py::module_& m) {
  py::class_<RunOutput>(m, "RunOutput", R"doc(
The result of ``_core.run``: the run's summary, spec and history kept as the library returns
them and converted when read (the estimators decode each at most once).
)doc")
      .def_property_readonly("outcome",
                             [](const RunOutput& r) { return ToString(r.summary.outcome); })
      .def_property_readonly("message", [](const RunOutput& r) { return r.summary.message; })
      .def_property_readonly("rounds", [](const RunOutput& r) { return r.summary.rounds; })
      .def_property_readonly("noise_mode",
                             [](const RunOutput& r) { return NoiseModeName(r.summary.info); })
      .def_property_readonly("warnings", [](const RunOutput& r) { return r.summary.warnings; })
      .def_readonly("model", &RunOutput::model)
      .def_readonly("model_error", &RunOutput::model_error)
      .def_readonly("interrupt", &RunOutput::interrupt)
      .def_readonly("callback_error", &RunOutput::callback_error)
      .def(
          "status",
          [](const RunOutput& r) {
            return py::make_tuple(ToString(r.summary.outcome), r.summary.rounds, r.model,
                                  r.summary.warnings, r.callback_error, r.interrupt);
          },
          "(outcome, rounds, model, warnings, callback_error, interrupt): what every fit "
          "reads, in one call.")
      .def("summary_json", [](const RunOutput& r) { return SummaryToJson(r.summary); })
      .def("spec_json", [](const RunOutput& r) { return SpecToJson(r.spec); })
      .def("history", [](RunOutput& r) {
        if (r.history_dict.is_none()) r.history_dict = r.history.ToDict();
        return r.history_dict;
      });
}

std::string NormalizeSpec(const std::string& spec_text, const std::string& where) {
  return SpecToJson(ValidSpec(spec_text, where));
}

std::string DefaultSpec(const std::string& algorithm) {
  return SpecToJson(RunSpec::Defaults(ParseChoice<Algorithm>(algorithm, "algorithm")));
}

// --- Model --------------------------------------------------------------------------------

template <class Fn>
Eigen::VectorXd ApplyRows(const py::handle& x, Fn&& fn) {
  const std::variant<DenseRows, SparseRows> rows = ToRows(x, "X");
  py::gil_scoped_release release;
  return std::visit([&](const auto& r) -> Eigen::VectorXd { return fn(r); }, rows);
}

py::dict PreparationToDict(const RowPreparation& p) {
  py::dict out;
  out["scaling"] = ChoiceName(p.scaling);
  out["row_scale"] = p.row_scale;
  out["clip"] = p.clip;
  out["lo"] = p.bounds.lo;
  out["hi"] = p.bounds.hi;
  out["dims"] = p.dims;
  out["mean"] = p.standardization.mean;
  out["scale"] = p.standardization.scale;
  out["sparse_rows"] = p.sparse_rows;
  out["clip_blocks"] = p.clip_blocks;
  return out;
}

void BindModel(py::module_& m) {
  py::class_<Model>(m, "Model", R"doc(
A trained linear classifier, as the ``dpadmm`` command saves it (``--model-out``).

Rows are given raw: the model applies the training run's row preparation (intercept column,
scaling, clipping) before the dot product, so predictions equal ``dpadmm predict``'s.
)doc")
      .def_static("load", &Model::Load, py::arg("path"),
                  "Reads a model file written by ``dpadmm run --model-out`` or :meth:`save`.")
      .def_static("from_json", &Model::FromJson, py::arg("text"), py::arg("where") = "model",
                  "Parses the JSON text of a model.")
      .def("to_json", &Model::ToJson, "The model as JSON text (the file format).")
      .def("save", &Model::Save, py::arg("path"), "Writes the model file.")
      .def_property_readonly(
          "weights", [](const Model& self) { return Eigen::VectorXd(self.weights()); },
          "Weights on prepared rows, the intercept weight last when ``intercept``.")
      .def_property_readonly("intercept", &Model::intercept)
      .def_property_readonly("features", &Model::features, "Raw features a row must have.")
      .def_property_readonly("loss", [](const Model& self) { return ChoiceName(self.loss().kind); })
      .def_property_readonly("has_probability", &Model::has_probability)
      .def_property_readonly("spec_json", &Model::spec_json)
      .def_property_readonly("privacy_value",
                             [](const Model& self) { return self.privacy().value; })
      .def_property_readonly("privacy_meaning",
                             [](const Model& self) { return self.privacy().meaning; })
      .def_property_readonly(
          "preparation", [](const Model& self) { return PreparationToDict(self.preparation()); })
      .def(
          "decision_function",
          [](const Model& self, const py::handle& x) {
            return ApplyRows(x, [&](const auto& r) { return self.DecisionFunction(r); });
          },
          py::arg("X"), "Scores w^T prepare(x), one per row of X (array or CSR matrix).")
      .def(
          "predict",
          [](const Model& self, const py::handle& x) {
            return ApplyRows(x, [&](const auto& r) { return self.Predict(r); });
          },
          py::arg("X"), "-1 or +1 per row (+1 when the score is >= 0).")
      .def(
          "predict_proba",
          [](const Model& self, const py::handle& x) {
            if (!self.has_probability()) {
              throw py::value_error("predict_proba: the " +
                                    std::string(ChoiceName(self.loss().kind)) +
                                    " loss has no probability (use the logistic loss)");
            }
            return ApplyRows(x, [&](const auto& r) { return self.PredictProba(r); });
          },
          py::arg("X"), "P(y = +1 | x) per row (logistic loss only).")
      .def(py::pickle([](const Model& self) { return self.ToJson(); },
                      [](const std::string& text) { return Model::FromJson(text, "pickle"); }));
}

// --- Privacy ------------------------------------------------------------------------------

MechanismRelease ToMechanism(const py::handle& item) {
  if (!py::isinstance<py::dict>(item)) {
    MechanismRelease r;
    r.kind = MechanismKind::kPureEpsilon;
    r.epsilon = item.cast<double>();
    return r;
  }
  const auto d = item.cast<py::dict>();
  MechanismRelease r;
  const auto kind = d.contains("kind") ? d["kind"].cast<std::string>() : std::string();
  if (kind == "gaussian") {
    r.kind = MechanismKind::kGaussian;
  } else if (kind == "laplace") {
    r.kind = MechanismKind::kLaplace;
  } else if (kind == "pure") {
    r.kind = MechanismKind::kPureEpsilon;
  } else if (kind == "discrete_gaussian") {
    r.kind = MechanismKind::kDiscreteGaussian;
  } else {
    throw InputError(
        "mechanisms: 'kind' must be one of gaussian, laplace, pure, "
        "discrete_gaussian; got '" +
        kind + "'");
  }
  if (d.contains("sensitivity")) r.sensitivity = d["sensitivity"].cast<double>();
  if (d.contains("scale")) r.scale = d["scale"].cast<double>();
  if (d.contains("epsilon")) r.epsilon = d["epsilon"].cast<double>();
  return r;
}

double TightEpsilon(const py::iterable& mechanisms, double delta) {
  std::vector<MechanismRelease> releases;
  bool all_pure = true;
  std::vector<double> eps;
  for (const py::handle item : mechanisms) {
    releases.push_back(ToMechanism(item));
    all_pure = all_pure && releases.back().kind == MechanismKind::kPureEpsilon;
    eps.push_back(releases.back().epsilon);
  }
  py::gil_scoped_release release;
  return all_pure ? ComposeTight(eps, delta) : ComposeTightMechanisms(releases, delta);
}

py::dict Calibrate(const std::string& spec_text, const std::string& where, double target,
                   double delta, const py::object& x, const py::object& y) {
  RunSpec spec = ValidSpec(spec_text, where);
  std::optional<Dataset> train;
  if (!x.is_none()) train.emplace(ToDataset(x, y, "X"));
  CalibrationResult c;
  {
    py::gil_scoped_release release;
    if (spec.family() == Family::kSharing) {
      c = CalibrateToEpsilon(spec, {}, {}, target, delta);
    } else {
      RunSpec prepared_spec = spec;
      prepared_spec.target_epsilon = 0.0;
      prepared_spec.compute_optimum = false;
      const Experiment prepared = train ? Experiment(prepared_spec, std::move(*train), Dataset{})
                                        : Experiment(prepared_spec);
      c = CalibrateToEpsilon(spec, prepared, target, delta);
    }
  }
  py::dict out;
  out["knob"] = c.knob;
  out["value"] = c.value;
  out["target"] = c.target;
  out["epsilon"] = c.epsilon;
  out["delta"] = c.delta;
  out["evaluations"] = c.evaluations;
  out["spec_json"] = SpecToJson(spec);
  return out;
}

// --- Sweep and audit ----------------------------------------------------------------------

py::dict StatToDict(const SweepStat& s) {
  py::dict out;
  out["values"] = py::array_t<double>(static_cast<py::ssize_t>(s.values.size()), s.values.data());
  out["mean"] = s.mean;
  out["low"] = s.low;
  out["high"] = s.high;
  return out;
}

py::array_t<double> Matrix(const std::vector<std::vector<double>>& rows, py::ssize_t cols) {
  py::array_t<double> a({static_cast<py::ssize_t>(rows.size()), cols});
  for (py::ssize_t i = 0; i < static_cast<py::ssize_t>(rows.size()); ++i) {
    for (py::ssize_t j = 0; j < cols; ++j) {
      a.mutable_at(i, j) =
          j < static_cast<py::ssize_t>(rows[i].size()) ? rows[i][j] : RoundMetrics::kNaN;
    }
  }
  return a;
}

py::dict Sweep(const std::string& spec_text, const std::string& where,
               const std::vector<std::string>& algorithms, const std::vector<double>& epsilons,
               double delta, int seeds, bool reference_lines, const py::object& progress) {
  SweepOptions o;
  o.base = ValidSpec(spec_text, where);
  for (const std::string& a : algorithms)
    o.algorithms.push_back(ParseChoice<Algorithm>(a, "algorithms"));
  o.epsilons = epsilons;
  o.delta = delta;
  o.seeds = seeds;
  o.reference_lines = reference_lines;
  o.Validate();
  runtime::StopToken stop;
  PendingError interrupt, callback_error;
  SweepProgress report;
  if (!progress.is_none()) {
    report = [&](int done, int total, const std::string& what) {
      py::gil_scoped_acquire gil;
      if (callback_error) return;
      try {
        progress(done, total, what);
      } catch (py::error_already_set& e) {
        e.restore();
        callback_error.Capture();
        stop.RequestStop();
      }
    };
  }
  const std::function<SweepResult()> work = [&] { return RunSweep(o, report, &stop); };
  const SweepResult r = RunReleased(work, stop, interrupt);
  std::vector<std::string> names, knobs;
  std::vector<double> eps, mean, low, high;
  std::vector<std::vector<double>> accuracy, knob_values, achieved;
  std::vector<std::vector<std::string>> outcomes;
  for (const SweepCell& c : r.cells) {
    names.emplace_back(ChoiceName(c.algorithm));
    eps.push_back(c.epsilon);
    mean.push_back(c.accuracy.mean);
    low.push_back(c.accuracy.low);
    high.push_back(c.accuracy.high);
    accuracy.push_back(c.accuracy.values);
    knobs.push_back(c.knob);
    knob_values.push_back(c.knob_values);
    achieved.push_back(c.achieved_epsilon);
    outcomes.push_back(c.outcomes);
  }
  const auto vec = [](const std::vector<double>& v) {
    return py::array_t<double>(static_cast<py::ssize_t>(v.size()), v.data());
  };
  py::dict out;
  out["algorithm"] = names;
  out["epsilon"] = vec(eps);
  out["accuracy_mean"] = vec(mean);
  out["accuracy_low"] = vec(low);
  out["accuracy_high"] = vec(high);
  out["accuracy"] = Matrix(accuracy, r.seeds);
  out["knob"] = knobs;
  out["knob_values"] = Matrix(knob_values, r.seeds);
  out["achieved_epsilon"] = Matrix(achieved, r.seeds);
  out["outcomes"] = outcomes;
  out["admm"] = StatToDict(r.admm);
  out["centralized"] = StatToDict(r.centralized);
  out["majority"] = StatToDict(r.majority);
  out["delta"] = r.delta;
  out["seeds"] = r.seeds;
  out["dataset"] = r.dataset;
  out["band"] = r.band;
  out["noise"] = r.noise;
  out["cancelled"] = r.cancelled;
  out["csv"] = SweepToCsv(r);
  out["interrupt"] = interrupt.value ? interrupt.value : py::object(py::none());
  out["callback_error"] = callback_error.value ? callback_error.value : py::object(py::none());
  return out;
}

py::dict Audit(const std::string& mechanism, int rounds, std::int64_t rows, std::int64_t dim,
               double alpha, double eta, double c, double rho, bool logistic, double epsilon,
               double delta, std::uint64_t seed, std::int64_t runs_per_side, int threads,
               double confidence, std::optional<std::uint64_t> noise_seed) {
  AuditSetup s;
  s.mechanism = ParseAuditMechanism(mechanism);
  s.rounds = rounds;
  s.rows = rows;
  s.dim = dim;
  s.alpha = alpha;
  s.eta = eta;
  s.C = c;
  s.rho = rho;
  s.logistic = logistic;
  s.epsilon = epsilon;
  s.delta = delta;
  s.seed = seed;
  AuditOptions o;
  o.runs_per_side = runs_per_side;
  o.threads = threads;
  o.confidence = confidence;
  o.noise_seed = noise_seed;
  AuditResult r;
  {
    py::gil_scoped_release release;
    r = RunAudit(s, o);
  }
  py::dict out;
  out["mechanism"] = ToString(r.setup.mechanism);
  out["rounds"] = r.setup.rounds;
  out["rows"] = r.setup.rows;
  out["dim"] = r.setup.dim;
  out["alpha"] = r.setup.alpha;
  out["epsilon"] = r.setup.epsilon;
  out["delta"] = r.setup.delta;
  out["description"] = r.mechanism;
  out["pair"] = r.pair;
  out["statistic"] = r.statistic;
  out["noise"] = r.noise;
  out["runs_per_side"] = r.runs_per_side;
  out["eval_per_side"] = r.eval_per_side;
  out["threshold"] = r.threshold;
  out["false_positives"] = r.false_positives;
  out["false_negatives"] = r.false_negatives;
  out["fpr"] = r.fpr;
  out["fnr"] = r.fnr;
  out["fpr_upper"] = r.fpr_upper;
  out["fnr_upper"] = r.fnr_upper;
  out["epsilon_lower_bound"] = r.epsilon_lower_bound;
  out["claim"] = r.claim;
  out["claim_per_round"] = r.claim_per_round;
  out["paper_claim"] = r.paper_claim;
  out["claim_source"] = r.claim_source;
  out["ratio"] = r.ratio;
  out["passed"] = r.pass;
  out["seconds"] = r.seconds;
  out["threads"] = r.threads;
  return out;
}

}  // namespace
}  // namespace dpadmm::python

PYBIND11_MODULE(_core, m) {
  namespace py = pybind11;
  using namespace dpadmm;
  using namespace dpadmm::python;
  m.doc() = "dpadmm's C++ core (pybind11 bindings; use the dpadmm package, not this module).";
  m.attr("__version__") = DPADMM_VERSION_STRING;
  g_main_thread =
      py::module_::import("threading").attr("main_thread")().attr("ident").cast<unsigned long>();

  // InputError -> dpadmm.InputError (a ValueError); a privacy target the mechanism cannot reach
  // -> dpadmm.PrivacyBudgetError (an InputError).
  static py::exception<InputError> input_error(m, "InputError", PyExc_ValueError);
  static py::exception<InputError> budget_error(m, "PrivacyBudgetError", input_error.ptr());
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const UnreachablePrivacyTarget& e) {
      budget_error(e.what());
    } catch (const InputError& e) {
      input_error(e.what());
    }
  });

  m.def("run", &Run, py::arg("spec_json"), py::arg("where"), py::arg("X"), py::arg("y"),
        py::arg("X_test"), py::arg("y_test"), py::arg("progress"), py::arg("history") = true);
  m.def("spec_cache_stats", [] { return RunSpecs().Stats(); });
  m.def("clear_spec_cache", [] { RunSpecs().Clear(); });
  m.attr("SPEC_CACHE_ENTRIES") = SpecCache::kEntries;
  m.def("encode_two_labels", &EncodeTwoLabels, py::arg("y"));
  m.def("plain_two_labels", &PlainTwoLabels, py::arg("X"), py::arg("y"));
  m.def("normalize_spec", &NormalizeSpec, py::arg("spec_json"), py::arg("where") = "spec");
  m.def("default_spec", &DefaultSpec, py::arg("algorithm"));
  m.def("algorithms", [] {
    std::vector<std::string> out;
    for (const auto& c : Choices<Algorithm>()) out.emplace_back(c.name);
    return out;
  });
  m.def("family", [](const std::string& algorithm) {
    return ChoiceName(FamilyOf(ParseChoice<Algorithm>(algorithm, "algorithm")));
  });
  m.def("uses_privacy_mechanism", [](const std::string& spec_text) {
    return UsesPrivacyMechanism(ValidSpec(spec_text, "spec"));
  });
  BindModel(m);
  BindRunOutput(m);

  m.def("tight_epsilon", &TightEpsilon, py::arg("mechanisms"), py::arg("delta"));
  m.def("compose_basic", &ComposeBasic, py::arg("epsilons"));
  m.def("analytic_gaussian_epsilon", &AnalyticGaussianEpsilon, py::arg("sensitivity"),
        py::arg("sigma"), py::arg("delta"));
  m.def("analytic_gaussian_delta", &AnalyticGaussianDelta, py::arg("sensitivity"), py::arg("sigma"),
        py::arg("epsilon"));
  m.def("calibrate", &Calibrate, py::arg("spec_json"), py::arg("where"), py::arg("target"),
        py::arg("delta"), py::arg("X"), py::arg("y"));
  m.def("can_calibrate", [](const std::string& algorithm) {
    return CanCalibrate(ParseChoice<Algorithm>(algorithm, "algorithm"));
  });
  m.attr("TIGHT_DELTA") = kTightDelta;

  m.def("sweep", &Sweep, py::arg("spec_json"), py::arg("where"), py::arg("algorithms"),
        py::arg("epsilons"), py::arg("delta"), py::arg("seeds"), py::arg("reference_lines"),
        py::arg("progress"));
  m.def("audit", &Audit, py::arg("mechanism"), py::arg("rounds"), py::arg("rows"), py::arg("dim"),
        py::arg("alpha"), py::arg("eta"), py::arg("C"), py::arg("rho"), py::arg("logistic"),
        py::arg("epsilon"), py::arg("delta"), py::arg("seed"), py::arg("runs_per_side"),
        py::arg("threads"), py::arg("confidence"), py::arg("noise_seed"));
  m.def("audit_mechanisms", [] {
    std::vector<std::string> out;
    for (AuditMechanism a : AllAuditMechanisms()) out.emplace_back(ToString(a));
    return out;
  });
}
