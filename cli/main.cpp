// dpadmm: the command-line front end.
//
//   dpadmm run [options]      one experiment; see `dpadmm run --help`
//   dpadmm sharing [options]  vertically partitioned features (001); cli/sharing_command.h
//   dpadmm predict [options]  apply a saved model to a data file; cli/predict_command.h
//
// The spec is built in three layers: RunSpec's defaults, then the --config JSON file, then only
// the flags given on the command line. Per-round metrics go to a trace file (CSV or JSON lines)
// and a progress display on stderr; a summary goes to a JSON file and, in words, to stdout.
// Exit codes: 0 completed / converged / budget exhausted, 1 internal error, 2 bad input,
// 3 diverged, 4 cancelled.

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <fstream>
#include <functional>
#include <iostream>
#include <limits>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include <CLI/CLI.hpp>

#include "dpadmm/core/error.h"
#include "dpadmm/solver/loss.h"
#include "dpadmm/experiment/run.h"
#include "dpadmm/experiment/run_spec.h"
#include "dpadmm/experiment/spec_json.h"
#include "dpadmm/runtime/engine.h"
#include "predict_command.h"
#include "sharing_command.h"

#ifndef DPADMM_VERSION
#define DPADMM_VERSION "unknown"
#endif

namespace dpadmm::cli {
namespace {

enum ExitCode : int {
  kExitOk = 0,         // completed, converged, privacy budget exhausted
  kExitInternal = 1,   // a bug or an I/O failure after the run started
  kExitBadInput = 2,   // usage, configuration or data errors
  kExitDiverged = 3,
  kExitCancelled = 4,  // Ctrl-C (SIGINT) or SIGTERM
};

constexpr const char* kExitCodeHelp =
    "Exit codes: 0 completed, converged or privacy budget exhausted; 2 bad input (usage, config, "
    "data);\n            3 diverged (NaN/Inf, the summary names node and round); 4 cancelled "
    "(Ctrl-C; trace and\n            summary are still written); 1 internal error.";

// ---------------------------------------------------------------------------------------------
// Ctrl-C

runtime::StopToken g_stop;
static_assert(std::atomic<bool>::is_always_lock_free,
              "RequestStop() must be a lock-free store to be callable from a signal handler");

extern "C" void OnStopSignal(int signal_number) {
  g_stop.RequestStop();  // one relaxed atomic store: async-signal-safe
  // A second Ctrl-C kills the process the usual way.
  std::signal(signal_number, SIG_DFL);
}

// Routes `signal_number` to OnStopSignal, unless the parent asked for it to be ignored (as
// shells do for SIGINT of background jobs).
void CatchStopSignal(int signal_number) {
  if (std::signal(signal_number, OnStopSignal) == SIG_IGN) std::signal(signal_number, SIG_IGN);
}

// ---------------------------------------------------------------------------------------------
// Small formatting helpers (stdout/stderr text only; the files use spec_json.h).

std::string Fmt(const char* format, double value) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), format, value);
  return buf;
}

std::string Percent(double fraction) {
  return std::isnan(fraction) ? std::string("n/a") : Fmt("%.2f%%", 100.0 * fraction);
}

std::string Seconds(double s) { return s < 10.0 ? Fmt("%.3f s", s) : Fmt("%.1f s", s); }

[[noreturn]] void Fail(const std::string& message) { throw InputError(message); }

std::string ReadFile(const std::string& path, const char* what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) Fail(path + ": cannot open " + what + ": " + std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) Fail(path + ": cannot read " + what);
  return text.str();
}

// Integer flags are plain decimal numbers that fit the field. (CLI11 alone would read "010" as
// octal, wrap "-1" around for unsigned fields and saturate out-of-range int64 values.) The
// value is rewritten in canonical decimal form before CLI11 converts it.
template <class T>
CLI::Validator DecimalInteger() {
  return CLI::Validator(
      [](std::string& value) -> std::string {
        const char* begin = value.data();
        const char* end = begin + value.size();
        if (begin != end && *begin == '+') ++begin;
        T parsed{};
        const auto [stop, ec] = std::from_chars(begin, end, parsed);
        if (begin == end || ec != std::errc() || stop != end) {
          return "must be an integer in [" + std::to_string(std::numeric_limits<T>::min()) + ", " +
                 std::to_string(std::numeric_limits<T>::max()) + "], got '" + value + "'";
        }
        value = std::to_string(parsed);
        return "";
      },
      "", "");
}

// ---------------------------------------------------------------------------------------------
// Spec flags: each is bound to a field of `flags_` (so --help shows RunSpec's defaults) and
// copied onto the effective spec only when given on the command line.

class SpecFlags {
 public:
  explicit SpecFlags(CLI::App& app) : app_(app) { Register(); }
  SpecFlags(const SpecFlags&) = delete;  // the bindings point into this object
  SpecFlags& operator=(const SpecFlags&) = delete;

  // Copies the flags the user passed onto `spec` (which already holds defaults + config).
  void ApplyGiven(RunSpec& spec) const {
    for (const auto& [option, apply] : bindings_) {
      if (option->count() > 0) apply(spec);
    }
  }

 private:
  // A flag with a value, bound to the field that `field(spec)` returns.
  template <class Field>
  CLI::Option* Value(const std::string& name, Field field, const std::string& help) {
    using T = std::remove_reference_t<decltype(field(flags_))>;
    CLI::Option* option = app_.add_option(name, field(flags_), help);
    if constexpr (std::is_integral_v<T>) option->transform(DecimalInteger<T>());
    bindings_.emplace_back(option, [field, this](RunSpec& spec) { field(spec) = field(flags_); });
    return option;
  }
  // A comma-separated list of numbers.
  template <class Field>
  CLI::Option* List(const std::string& name, Field field, const std::string& help) {
    return Value(name, field, help)
        ->delimiter(',')
        ->allow_extra_args(false)
        ->type_name("LIST")
        ->default_str("");
  }
  // A switch that sets a bool field to `when_given` (also accepts --flag=false).
  template <class Field>
  CLI::Option* Switch(const std::string& name, Field field, bool when_given,
                      const std::string& help) {
    auto value = std::make_shared<bool>(false);
    storage_.push_back(value);
    CLI::Option* option = app_.add_flag(name, *value, help);
    bindings_.emplace_back(option, [field, value, when_given](RunSpec& spec) {
      field(spec) = *value ? when_given : !when_given;
    });
    return option;
  }

  void Register() {
    std::string group = "Data";
    const auto in = [&](CLI::Option* o) { o->group(group); };
    in(Value("--data", [](RunSpec& s) -> auto& { return s.data.source; },
             "twonorm | ringnorm | sparse (generated); libsvm | adult | csv | asc (files)")
           ->type_name("SOURCE"));
    in(Value("--train", [](RunSpec& s) -> auto& { return s.data.train_path; },
             "Training data file (file sources)")->type_name("FILE"));
    in(Value("--test", [](RunSpec& s) -> auto& { return s.data.test_path; },
             "Test data file; without it a seeded --test-fraction split (adult: required)")
           ->type_name("FILE"));
    in(Value("--train-labels", [](RunSpec& s) -> auto& { return s.data.train_labels_path; },
             "asc: training labels file (one +-1 per line)")->type_name("FILE"));
    in(Value("--test-labels", [](RunSpec& s) -> auto& { return s.data.test_labels_path; },
             "asc: test labels file")->type_name("FILE"));
    in(Value("--features", [](RunSpec& s) -> auto& { return s.data.num_features; },
             "libsvm: number of features (0 = the largest index in the file)")->type_name("N"));
    in(Value("--label-column", [](RunSpec& s) -> auto& { return s.data.label_column; },
             "csv: column of the label, 0-based; negative counts from the end (-1 = last)")
           ->type_name("K"));
    {
      // A char is entered as a one-character string ("tab" or "\t" for a tab).
      auto text = std::make_shared<std::string>(1, flags_.data.delimiter);
      CLI::Option* o = app_.add_option("--delimiter", *text,
                                       "csv: field delimiter, one character ('tab' for a tab, "
                                       "' ' for whitespace)")->type_name("CHAR");
      o->check([](const std::string& v) -> std::string {
        return (v.size() == 1 || v == "tab" || v == "\\t") ? "" : "must be one character or 'tab'";
      });
      bindings_.emplace_back(o, [text](RunSpec& s) {
        s.data.delimiter = (*text == "tab" || *text == "\\t") ? '\t' : (*text)[0];
      });
      storage_.push_back(text);
      in(o);
    }
    in(Switch("--header", [](RunSpec& s) -> auto& { return s.data.has_header; }, true,
              "csv: the first line is a header"));
    in(Value("--rows", [](RunSpec& s) -> auto& { return s.data.rows; },
             "Generated data: rows before the train/test split")->type_name("N"));
    in(Value("--dims", [](RunSpec& s) -> auto& { return s.data.dims; },
             "Generated data: dimension (sparse: number of features)")->type_name("D"));
    in(Value("--test-fraction", [](RunSpec& s) -> auto& { return s.data.test_fraction; },
             "Share of rows held out for testing when there is no --test file, in (0, 1)")
           ->type_name("F"));
    in(Switch("--bias", [](RunSpec& s) -> auto& { return s.data.add_bias; }, true,
              "Append a constant feature 1 (an intercept) to every row before normalisation"));
    in(Switch("--no-normalize", [](RunSpec& s) -> auto& { return s.data.normalize; }, false,
              "Keep rows as loaded (default: scale all rows by one factor so max ||x|| = 1)"));

    group = "Graph";
    in(Value("--topology", [](RunSpec& s) -> auto& { return s.graph.topology; },
             "Communication graph: ring | star | complete | grid | random | file")
           ->type_name("KIND"));
    in(Value("--nodes", [](RunSpec& s) -> auto& { return s.graph.nodes; },
             "Number of nodes (parties)")->type_name("N"));
    in(Value("--edges", [](RunSpec& s) -> auto& { return s.graph.edges; },
             "random: number of edges of the connected random graph")->type_name("M"));
    in(Value("--grid-rows", [](RunSpec& s) -> auto& { return s.graph.grid_rows; },
             "grid: rows of the grid (0 = as square as possible)")->type_name("R"));
    in(Value("--graph-file", [](RunSpec& s) -> auto& { return s.graph.file; },
             "file: edge list, one undirected edge 'i j' per line, 0-based")->type_name("FILE"));

    group = "Partition";
    in(Value("--partition", [](RunSpec& s) -> auto& { return s.partition.kind; },
             "How training rows are spread over nodes: even | proportional | dirichlet | file")
           ->type_name("KIND"));
    in(List("--proportions", [](RunSpec& s) -> auto& { return s.partition.proportions; },
            "proportional: one positive weight per node, comma separated"));
    in(Value("--dirichlet-alpha", [](RunSpec& s) -> auto& { return s.partition.dirichlet_alpha; },
             "dirichlet: concentration (small = unbalanced nodes)")->type_name("A"));
    in(Value("--partition-file", [](RunSpec& s) -> auto& { return s.partition.file; },
             "file: line k holds the node of training row k")->type_name("FILE"));

    group = "Loss";
    {
      auto name = std::make_shared<std::string>(flags_.loss.Name());
      CLI::Option* o = app_.add_option("--loss", *name,
                                       "Per-sample loss: logistic | smooth_hinge")
                           ->type_name("KIND");
      bindings_.emplace_back(o, [name](RunSpec& s) {
        s.loss.kind = ParseLossKind(*name, "--loss");
      });
      storage_.push_back(name);
      in(o);
    }
    in(Value("--huber-h", [](RunSpec& s) -> auto& { return s.loss.huber_h; },
             "smooth_hinge: half-width h > 0")->type_name("H"));

    group = "Algorithm";
    in(Value("--algorithm", [](RunSpec& s) -> auto& { return s.algorithm.name; },
             "admm | dvp | pvp | madmm | radmm | mradmm | private_mradmm | pdml")->type_name("NAME"));
    in(Value("--C", [](RunSpec& s) -> auto& { return s.algorithm.C; },
             "Loss weight C (node i weighs each of its B_i losses by C / B_i)")->type_name("C"));
    in(Value("--rho", [](RunSpec& s) -> auto& { return s.algorithm.rho; },
             "Regulariser weight rho")->type_name("RHO"));
    in(Switch("--rho-per-node", [](RunSpec& s) -> auto& { return s.algorithm.rho_per_node; }, true,
              "Each node carries rho (004's DR-ERM) instead of rho / N (003)"));
    in(Value("--eta", [](RunSpec& s) -> auto& { return s.algorithm.eta; },
             "ADMM penalty eta (M-ADMM theta; MR-ADMM base penalty)")->type_name("ETA"));
    in(Switch("--random-start", [](RunSpec& s) -> auto& { return s.algorithm.random_start; }, true,
              "Start from f_i ~ N(0, 1/d) per coordinate (seeded) instead of 0"));
    in(Value("--q1", [](RunSpec& s) -> auto& { return s.algorithm.q1; },
             "Penalty growth factor >= 1 (M-ADMM, MR-ADMM)")->type_name("Q"));
    in(Value("--alpha", [](RunSpec& s) -> auto& { return s.algorithm.alpha; },
             "Privacy parameter of the first iteration; 0 = no noise")->type_name("A"));
    in(Value("--q2", [](RunSpec& s) -> auto& { return s.algorithm.q2; },
             "Growth factor of alpha per iteration")->type_name("Q"));
    in(Value("--gamma", [](RunSpec& s) -> auto& { return s.algorithm.gamma; },
             "R-ADMM / MR-ADMM even-step term gamma >= 0")->type_name("G"));
    in(Value("--dual-step", [](RunSpec& s) -> auto& { return s.algorithm.dual_step; },
             "M-ADMM dual step theta (0 = eta_i(1))")->type_name("S"));
    in(List("--node-alpha", [](RunSpec& s) -> auto& { return s.algorithm.node_alpha; },
            "Per-node alpha, one per node (replaces --alpha)"));
    in(List("--node-eta", [](RunSpec& s) -> auto& { return s.algorithm.node_eta; },
            "Per-node eta, one per node (replaces --eta)"));
    in(List("--node-q1", [](RunSpec& s) -> auto& { return s.algorithm.node_q1; },
            "Per-node q1, one per node (replaces --q1)"));
    in(List("--node-q2", [](RunSpec& s) -> auto& { return s.algorithm.node_q2; },
            "Per-node q2, one per node (replaces --q2)"));
    in(Value("--privacy-budget", [](RunSpec& s) -> auto& { return s.algorithm.privacy_budget; },
             "Stop before the total privacy loss would exceed this; 0 = no budget")
           ->type_name("B"));

    group = "PDML (--algorithm pdml; paper 000: a = --rho, beta = --eta, the paper's C = 1)";
    in(Value("--label-eps", [](RunSpec& s) -> auto& { return s.algorithm.label_eps; },
             "Label privacy eps of every user (randomized response, eps-LDP); 0 = labels "
             "reported truthfully")->type_name("EPS"));
    in(List("--label-eps-groups", [](RunSpec& s) -> auto& { return s.algorithm.label_eps_groups; },
            "Heterogeneous label privacy: eps of each user group (0 = truthful); replaces "
            "--label-eps"));
    in(List("--label-eps-shares", [](RunSpec& s) -> auto& { return s.algorithm.label_eps_shares; },
            "Share of users in each group (> 0, sum 1; each user draws a group, seeded)"));
    in(Value("--pdml-R", [](RunSpec& s) -> auto& { return s.algorithm.pdml_R; },
             "Objective perturbation bound: ||eta_i||_2 <= R, uniform in the ball, once per "
             "server; 0 = none")->type_name("R"));
    in(Value("--pdml-V", [](RunSpec& s) -> auto& { return s.algorithm.pdml_V; },
             "Primal perturbation: the released w~_i(t) = w_i(t) + N(0, decay^(t-1) V^2 I); "
             "0 = none")->type_name("V"));
    in(Value("--pdml-decay", [](RunSpec& s) -> auto& { return s.algorithm.pdml_decay; },
             "Decay rate of the primal noise variance, in (0, 1]")->type_name("RHO"));

    group = "Local Newton solver";
    in(Value("--newton-max-iterations", [](RunSpec& s) -> auto& { return s.newton.max_iterations; },
             "Newton steps per local solve")->type_name("N"));
    in(Value("--newton-tolerance", [](RunSpec& s) -> auto& { return s.newton.gradient_tolerance; },
             "Relative gradient-norm tolerance of a local solve")->type_name("TOL"));
    in(Value("--newton-armijo-c", [](RunSpec& s) -> auto& { return s.newton.armijo_c; },
             "Armijo sufficient-decrease constant, in (0, 0.5)")->type_name("C"));
    in(Value("--newton-backtrack", [](RunSpec& s) -> auto& { return s.newton.backtrack; },
             "Line-search step shrink factor, in (0, 1)")->type_name("F"));
    in(Value("--newton-max-backtracks", [](RunSpec& s) -> auto& { return s.newton.max_backtracks; },
             "Line-search steps per Newton step")->type_name("N"));
    in(Value("--newton-dense-max-dim",
             [](RunSpec& s) -> auto& { return s.newton.dense_hessian_max_dim; },
             "Cholesky on the Hessian up to this many features, conjugate gradients above")
           ->type_name("D"));
    in(Value("--newton-max-cg-iterations",
             [](RunSpec& s) -> auto& { return s.newton.max_cg_iterations; },
             "Conjugate-gradient steps per Newton step (CG mode)")->type_name("N"));

    group = "Run";
    in(Value("--iterations", [](RunSpec& s) -> auto& { return s.iterations; },
             "ADMM rounds after round 0")->type_name("T"));
    in(Value("--seed", [](RunSpec& s) -> auto& { return s.seed; },
             "Seed of all randomness (data, graph, partition, noise)")->type_name("S"));
    in(Value("--engine", [](RunSpec& s) -> auto& { return s.engine; },
             "tbb (parallel) | serial; both give bitwise-identical results")->type_name("ENGINE"));
    in(Value("--threads", [](RunSpec& s) -> auto& { return s.threads; },
             "Worker threads of the tbb engine (0 = all cores)")->type_name("N"));
    in(Switch("--no-optimum", [](RunSpec& s) -> auto& { return s.compute_optimum; }, false,
              "Skip the centralized optimum (no distance to it is reported)"));
    in(Value("--tolerance", [](RunSpec& s) -> auto& { return s.tolerance; },
             "Stop ('converged') once model change and consensus gap are below this; 0 = never")
           ->type_name("TOL"));
    in(Value("--metrics-every", [](RunSpec& s) -> auto& { return s.metrics_every; },
             "Metrics (and trace rows) every this many rounds; 0 = first and last only")
           ->type_name("K"));
  }

  CLI::App& app_;
  RunSpec flags_;  // holds the defaults shown in --help, then the parsed values
  std::vector<std::pair<CLI::Option*, std::function<void(RunSpec&)>>> bindings_;
  std::vector<std::shared_ptr<void>> storage_;  // values of flags that are not spec fields
};

// ---------------------------------------------------------------------------------------------
// Output: trace file, progress display.

enum class TraceFormat { kCsv, kJsonLines };

TraceFormat ResolveTraceFormat(const std::string& path, const std::string& forced) {
  if (forced == "csv") return TraceFormat::kCsv;
  if (forced == "jsonl") return TraceFormat::kJsonLines;
  if (!forced.empty()) Fail("--trace-format must be csv or jsonl, got '" + forced + "'");
  const auto ends_with = [&](const char* suffix) {
    const std::size_t n = std::strlen(suffix);
    return path.size() >= n && path.compare(path.size() - n, n, suffix) == 0;
  };
  if (ends_with(".csv")) return TraceFormat::kCsv;
  if (ends_with(".jsonl") || ends_with(".ndjson")) return TraceFormat::kJsonLines;
  Fail("--trace " + path + ": cannot tell the format from the extension (.csv or .jsonl); "
       "use --trace-format csv|jsonl");
}

std::ofstream OpenForWriting(const std::string& path, const char* what) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) Fail(path + ": cannot write " + what + ": " + std::strerror(errno));
  return out;
}

class TraceWriter {
 public:
  TraceWriter(std::string path, TraceFormat format)
      : path_(std::move(path)), format_(format), out_(OpenForWriting(path_, "the trace")) {
    if (format_ == TraceFormat::kCsv) out_ << MetricsCsvHeader() << '\n';
  }
  void Write(const RoundMetrics& m) {
    out_ << (format_ == TraceFormat::kCsv ? MetricsToCsvRow(m) : MetricsToJsonLine(m)) << '\n';
    ++rows_;
  }
  // False if anything could not be written.
  bool Close() {
    out_.close();
    return !out_.fail();
  }
  const std::string& path() const { return path_; }
  const char* format_name() const { return format_ == TraceFormat::kCsv ? "csv" : "jsonl"; }
  std::int64_t rows() const { return rows_; }

 private:
  std::string path_;
  TraceFormat format_;
  std::ofstream out_;
  std::int64_t rows_ = 0;
};

// A one-line progress bar redrawn in place when stderr is a terminal; otherwise one plain line
// per ~10% of the rounds, so that logs stay readable.
class Progress {
 public:
  enum class Mode { kOff, kBar, kLines };
  Progress(Mode mode, std::int64_t total) : mode_(mode), total_(std::max<std::int64_t>(total, 0)) {
    step_ = std::max<std::int64_t>(1, (total_ + 9) / 10);
    next_line_ = step_;
  }

  void Start(const RunInfo& info) {
    if (mode_ == Mode::kOff) return;
    std::fprintf(stderr, "dpadmm: %s on %d nodes / %d edges, %lld training rows x %lld features, "
                 "%lld rounds\n", info.algorithm.c_str(), info.nodes, info.edges,
                 static_cast<long long>(info.train_rows), static_cast<long long>(info.features),
                 static_cast<long long>(total_));
  }

  void Update(const RoundMetrics& m) {
    if (mode_ == Mode::kBar) {
      // Redraw at most ~20 times a second, and always for the last round.
      const auto now = std::chrono::steady_clock::now();
      if (m.round < total_ && drawn_ && now - last_draw_ < std::chrono::milliseconds(50)) return;
      last_draw_ = now;
      drawn_ = true;
      constexpr int kWidth = 28;
      const double done =
          total_ > 0 ? static_cast<double>(m.round) / static_cast<double>(total_) : 1.0;
      const int filled = static_cast<int>(done * kWidth);
      std::string bar(static_cast<std::size_t>(filled), '#');
      bar.resize(kWidth, '.');
      std::fprintf(stderr, "\r[%s] %3d%%  round %lld/%lld  train loss %s  test error %s\033[K",
                   bar.c_str(), static_cast<int>(100.0 * done), static_cast<long long>(m.round),
                   static_cast<long long>(total_), Fmt("%.6g", m.train_loss).c_str(),
                   Percent(m.test_error).c_str());
      std::fflush(stderr);
    } else if (mode_ == Mode::kLines && (m.round >= next_line_ || m.round == total_)) {
      next_line_ = (m.round / step_ + 1) * step_;
      std::fprintf(stderr, "dpadmm: round %lld/%lld  train loss %s  test error %s  %s\n",
                   static_cast<long long>(m.round), static_cast<long long>(total_),
                   Fmt("%.6g", m.train_loss).c_str(), Percent(m.test_error).c_str(),
                   Seconds(m.seconds).c_str());
    }
  }

  // Clears the bar so that the summary starts on a clean line.
  void Finish() {
    if (mode_ == Mode::kBar && drawn_) {
      std::fprintf(stderr, "\r\033[K");
      std::fflush(stderr);
    }
  }

 private:
  Mode mode_;
  std::int64_t total_;
  std::int64_t step_ = 1, next_line_ = 1;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point last_draw_;
};

// Subscribes the trace and the progress display to the run.
class CliObserver : public RunObserver {
 public:
  CliObserver(TraceWriter& trace, Progress& progress) : trace_(trace), progress_(progress) {}
  void OnStart(const RunInfo& info) override { progress_.Start(info); }
  void OnRound(const RoundMetrics& m) override {
    trace_.Write(m);
    progress_.Update(m);
  }

 private:
  TraceWriter& trace_;
  Progress& progress_;
};

// ---------------------------------------------------------------------------------------------
// The human summary on stdout.

void PrintSummary(const RunSpec& spec, const RunSummary& s, double wall_seconds,
                  const TraceWriter& trace, const std::string& summary_path) {
  const RunInfo& info = s.info;
  const RoundMetrics& m = s.final;
  std::ostringstream out;
  const auto row = [&](const char* label, const std::string& text) {
    out << "  " << label << std::string(std::max<std::size_t>(1, 22 - std::strlen(label)), ' ')
        << text << '\n';
  };
  out << "dpadmm: " << ToString(s.outcome) << " -- " << s.message << '\n';
  row("data", info.dataset + ": " + std::to_string(info.train_rows) + " training rows, " +
                  std::to_string(info.test_rows) + " test rows, " +
                  std::to_string(info.features) + " features, " +
                  (info.sparse ? "sparse" : "dense"));
  if (!spec.data.normalize) {
    row("normalisation", "rows not scaled (--no-normalize); max ||x|| = " +
                             Fmt("%.6g", info.max_row_norm_before) +
                             (info.max_row_norm_before > 1.0
                                  ? " > 1: the privacy analyses assume ||x|| <= 1"
                                  : ""));
  } else if (info.normalization_factor == 1.0) {
    row("normalisation", "rows not scaled (max ||x|| was already " +
                             Fmt("%.6g", info.max_row_norm_before) + ")");
  } else {
    row("normalisation", "rows scaled by " + Fmt("%.6g", info.normalization_factor) +
                             " so that max ||x|| = 1 (it was " +
                             Fmt("%.6g", info.max_row_norm_before) + ")");
  }
  std::string per_node = "rows per node ";
  if (!info.rows_per_node.empty()) {
    const auto [lo, hi] = std::minmax_element(info.rows_per_node.begin(), info.rows_per_node.end());
    per_node += *lo == *hi ? std::to_string(*lo) : std::to_string(*lo) + ".." + std::to_string(*hi);
  }
  row("graph", std::to_string(info.nodes) + " nodes, " + std::to_string(info.edges) + " edges (" +
                   spec.graph.topology + "); " + per_node);
  const int threads = info.threads > 0 ? info.threads
                                       : static_cast<int>(std::thread::hardware_concurrency());
  row("algorithm", info.algorithm + ", " + info.loss + " loss, " + info.engine + " engine" +
                       (info.engine == "tbb" ? ", " + std::to_string(threads) + " threads" : ""));
  row("privacy", info.privacy_guarantee);
  if (m.privacy_loss > 0.0) row("privacy loss", Fmt("%.6g", m.privacy_loss));
  row("rounds", std::to_string(s.rounds) + " of " + std::to_string(spec.iterations));
  row("training loss", Fmt("%.8g", m.train_loss));
  const bool has_optimum = !std::isnan(info.optimum_objective);
  row("objective", Fmt("%.8g", m.objective) +
                       (has_optimum ? "  (centralized optimum " +
                                          Fmt("%.8g", info.optimum_objective) + ")"
                                    : ""));
  row("test accuracy", Percent(1.0 - m.test_error) +
                           (has_optimum ? "  (centralized optimum " +
                                              Percent(1.0 - info.optimum_test_error) + ")"
                                        : ""));
  row("distance to optimum", std::isnan(m.distance_to_optimum)
                                 ? std::string(spec.compute_optimum ? "not computed"
                                                                    : "not computed (--no-optimum)")
                                 : Fmt("%.3e", m.distance_to_optimum) +
                                       "  (max_i ||f_i - f*|| / ||f*||)");
  if (!info.optimum_note.empty()) row("optimum note", info.optimum_note);
  row("consensus gap", Fmt("%.3e", m.consensus_gap) + "  (max_ij ||f_i - f_j||)");
  row("wall time", Seconds(wall_seconds) + " (ADMM rounds " + Seconds(s.seconds) + ")");
  row("trace", trace.path() + " (" + trace.format_name() + ", " + std::to_string(trace.rows()) +
                   " rows)");
  row("summary", summary_path);
  std::cout << out.str() << std::flush;
}

int ExitCodeOf(RunOutcome outcome) {
  switch (outcome) {
    case RunOutcome::kCompleted:
    case RunOutcome::kConverged:
    case RunOutcome::kBudgetExhausted: return kExitOk;
    case RunOutcome::kDiverged: return kExitDiverged;
    case RunOutcome::kCancelled: return kExitCancelled;
  }
  return kExitInternal;
}

// ---------------------------------------------------------------------------------------------
// `dpadmm run`

struct OutputOptions {
  std::string config;
  std::string trace = "dpadmm-trace.csv";
  std::string trace_format;
  std::string summary = "dpadmm-summary.json";
  std::string model_out;
  bool quiet = false;
  bool progress = false;
  bool print_config = false;
};

int Run(const SpecFlags& flags, const OutputOptions& o,
        std::chrono::steady_clock::time_point started) {
  RunSpec spec;
  if (!o.config.empty()) ApplySpecJson(ReadFile(o.config, "config file"), o.config, spec);
  flags.ApplyGiven(spec);
  spec.Validate();
  if (o.print_config) {
    std::cout << SpecToJson(spec) << std::endl;
    return kExitOk;
  }
  const TraceFormat format = ResolveTraceFormat(o.trace, o.trace_format);

  Experiment experiment(spec);  // loads data, builds graph, partition and the optimum

  TraceWriter trace(o.trace, format);
  std::ofstream summary_file = OpenForWriting(o.summary, "the summary");
  Progress::Mode mode = Progress::Mode::kOff;
  if (!o.quiet) {
    mode = (o.progress || isatty(STDERR_FILENO) != 0) ? Progress::Mode::kBar
                                                      : Progress::Mode::kLines;
  }
  Progress progress(mode, spec.iterations);
  CliObserver observer(trace, progress);

  CatchStopSignal(SIGINT);
  CatchStopSignal(SIGTERM);
  const RunSummary summary = experiment.Run(&observer, &g_stop);
  for (int signal_number : {SIGINT, SIGTERM}) {
    if (std::signal(signal_number, SIG_DFL) == SIG_IGN) std::signal(signal_number, SIG_IGN);
  }
  progress.Finish();

  summary_file << SummaryToJson(summary) << '\n';
  summary_file.close();
  const bool trace_ok = trace.Close();
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  PrintSummary(spec, summary, wall, trace, o.summary);
  if (!trace_ok || summary_file.fail()) {
    std::cerr << "dpadmm: error: could not write " << (trace_ok ? o.summary : o.trace) << '\n';
    return kExitInternal;
  }
  if (!o.model_out.empty() && !SaveRunModel(summary, spec, o.model_out)) return kExitInternal;
  return ExitCodeOf(summary.outcome);
}

int Main(int argc, char** argv) {
  const auto started = std::chrono::steady_clock::now();
  CLI::App app{"dpadmm: differentially private distributed learning with ADMM", "dpadmm"};
  app.set_version_flag("--version", DPADMM_VERSION);
  app.require_subcommand(1);
  app.footer(kExitCodeHelp);

  CLI::App* run = app.add_subcommand(
      "run",
      "Run one experiment: N nodes learn one classifier by (private) consensus ADMM.\n"
      "Without options: the main job, non-private ADMM on generated twonorm data, 10 nodes on a "
      "random graph with 13 edges.");
  run->option_defaults()->always_capture_default();
  run->footer(std::string("The spec is built from RunSpec's defaults, then --config FILE, then "
                          "the flags given here\n(flags override the file). --print-config shows "
                          "the result as JSON; it is a valid --config.\n") +
              kExitCodeHelp);
  SpecFlags flags(*run);

  OutputOptions o;
  const std::string io = "Input and output";
  run->add_option("--config", o.config,
                  "JSON spec file (shape: see --print-config); command-line flags override it")
      ->type_name("FILE")->group(io);
  run->add_option("--trace", o.trace,
                  "Per-round metrics; format from the extension (.csv or .jsonl)")
      ->type_name("FILE")->group(io);
  run->add_option("--trace-format", o.trace_format, "csv | jsonl (overrides the extension)")
      ->type_name("FORMAT")->group(io);
  run->add_option("--summary", o.summary, "Run summary (outcome, final metrics, model) as JSON")
      ->type_name("FILE")->group(io);
  run->add_option("--model-out", o.model_out,
                  "Save the learned model as JSON for `dpadmm predict` (dpadmm::Model)")
      ->type_name("FILE")->group(io);
  run->add_flag("--quiet,-q", o.quiet, "No progress output on stderr")->group(io);
  run->add_flag("--progress", o.progress,
                "Draw the progress bar even when stderr is not a terminal")->group(io);
  run->add_flag("--print-config", o.print_config,
                "Print the effective spec as JSON and exit (nothing is run)")->group(io);

  SharingCommand sharing(app);  // `dpadmm sharing` (cli/sharing_command.h)
  PredictCommand predict(app);  // `dpadmm predict` (cli/predict_command.h)

  // CLI11 would only say "A subcommand is required" for a misspelt command; name it instead.
  if (argc > 1 && argv[1][0] != '-' && std::strcmp(argv[1], "run") != 0 &&
      std::strcmp(argv[1], "sharing") != 0 && std::strcmp(argv[1], "predict") != 0) {
    std::cerr << "dpadmm: error: unknown command '" << argv[1]
              << "' (available: run, sharing, predict; see dpadmm --help)\n";
    return kExitBadInput;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    std::cerr << "dpadmm: error: " << e.what() << " (see dpadmm "
              << (run->parsed()       ? "run "
                  : sharing.parsed()  ? "sharing "
                  : predict.parsed()  ? "predict "
                                      : "")
              << "--help)\n";
    return kExitBadInput;
  }

  try {
    if (sharing.parsed()) {
      CatchStopSignal(SIGINT);
      CatchStopSignal(SIGTERM);
      return sharing.Run(&g_stop, started);
    }
    if (predict.parsed()) return predict.Run();
    return Run(flags, o, started);
  } catch (const InputError& e) {
    std::cerr << "dpadmm: error: " << e.what() << '\n';
    return kExitBadInput;
  } catch (const std::invalid_argument& e) {
    std::cerr << "dpadmm: error: " << e.what() << '\n';
    return kExitBadInput;
  } catch (const std::exception& e) {
    std::cerr << "dpadmm: internal error: " << e.what() << '\n';
    return kExitInternal;
  }
}

}  // namespace
}  // namespace dpadmm::cli

int main(int argc, char** argv) { return dpadmm::cli::Main(argc, argv); }
