// SPDX-License-Identifier: Apache-2.0
// dpadmm: the command-line front end.
//
//   dpadmm run [options]      one experiment of either family; see `dpadmm run --help`
//   dpadmm sharing [options]  alias: the vertical family (001) with its defaults and old flags
//   dpadmm predict [options]  apply a saved model to a data file; cli/predict_command.h
//   dpadmm audit [options]    empirical privacy audit of one mechanism; cli/audit_command.h
//   dpadmm sweep [options]    accuracy against total epsilon; cli/sweep_command.h
//
// The spec is built in three layers: the defaults of the algorithm's family
// (RunSpec::Defaults), then the --config JSON file, then only the flags given on the command
// line. Per-round metrics go to a trace file (CSV or JSON lines)
// and a progress display on stderr; a summary goes to a JSON file and, in words, to stdout.
// Exit codes: 0 completed / converged / budget exhausted, 1 internal error, 2 bad input
// (also: out of memory, a spec above the size limits), 3 diverged, 4 cancelled, 5 failed,
// 6 an output file could not be written.

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
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <limits>
#include <memory>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <type_traits>
#include <variant>
#include <vector>

#include <CLI/CLI.hpp>

#include "audit_command.h"
#include "check_command_line.h"
#include "core/numeric_parse.h"
#include "dpadmm/core/error.h"
#include "dpadmm/experiment/checkpoint.h"
#include "dpadmm/experiment/mpi_run.h"
#include "dpadmm/experiment/run.h"
#include "dpadmm/experiment/run_spec.h"
#include "dpadmm/experiment/spec_json.h"
#include "dpadmm/runtime/engine.h"
#include "dpadmm/runtime/mpi.h"
#include "dpadmm/solver/loss.h"
#include "output_files.h"
#include "predict_command.h"
#include "run_limits.h"
#include "sweep_command.h"

#ifndef DPADMM_VERSION
#define DPADMM_VERSION "unknown"
#endif

namespace dpadmm::cli {
namespace {

enum ExitCode : int {
  kExitOk = 0,        // completed, converged, privacy budget exhausted
  kExitInternal = 1,  // a bug or an I/O failure after the run started
  kExitBadInput = 2,  // usage, configuration or data errors
  kExitDiverged = 3,
  kExitCancelled = 4,  // Ctrl-C (SIGINT) or SIGTERM
  kExitFailed = 5,     // a node program failed (exception) during the run
  kExitOutput = 6,     // an output file (trace, summary, checkpoint) could not be written
};

constexpr const char* kExitCodeHelp =
    "Exit codes: 0 completed, converged or privacy budget exhausted; 2 bad input (usage, config, "
    "data);\n            3 diverged (NaN/Inf, the summary names node and round); 4 cancelled "
    "(Ctrl-C; trace and\n            summary are still written); 5 failed (a node program threw; "
    "the "
    "summary names node\n            and round); 6 an output file could not be written (the "
    "message names it);\n            1 internal error. Out of memory is 2 (bad input: sizes).";

// ---------------------------------------------------------------------------------------------
// Ctrl-C

runtime::StopToken g_stop;
// Set while `run --engine mpi` runs: MPI is initialised (MPI_Finalize when reset).
std::optional<runtime::MpiSession> g_mpi;
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

// Every numeric flag goes through the one strict parser (core/numeric_parse.h): no empty
// values, hex, spaces, trailing junk, NaN/Inf or out-of-range values; integers are plain decimal
// digits that fit the field. (CLI11 alone would read "" as 0, "010" as octal, wrap "-1" around
// for unsigned fields and saturate out-of-range int64 values.) An integer is rewritten in
// canonical decimal form before CLI11 converts it; a floating-point value is left as typed, so
// that CLI11's own conversion sees the same text as before.
template <class T>
CLI::Validator StrictNumber() {
  return CLI::Validator(
      [](std::string& value) -> std::string {
        T parsed{};
        std::string error = internal::ParseStrictNumber(value, parsed);
        if (!error.empty()) return error;
        if constexpr (std::is_integral_v<T>) value = std::to_string(parsed);
        return "";
      },
      "", "");
}

template <class T>
struct ElementOf {
  using type = T;
};
template <class T>
struct ElementOf<std::vector<T>> {
  using type = T;
};

// Attaches StrictNumber to a flag of field type T (or of its elements for a list).
template <class T>
CLI::Option* WithStrictNumber(CLI::Option* option) {
  using E = typename ElementOf<T>::type;
  if constexpr (std::is_arithmetic_v<E> && !std::is_same_v<E, bool> && !std::is_same_v<E, char>) {
    option->transform(StrictNumber<E>());
  }
  return option;
}

// ---------------------------------------------------------------------------------------------
// Spec flags: each is bound to a field of `flags_` (so --help shows RunSpec's defaults) and
// copied onto the effective spec only when given on the command line. The same flags serve
// `dpadmm run` and its alias `dpadmm sharing`.

// Sets the field `key` of the selected algorithm's parameter struct; false if it has none.
template <class T>
bool SetParam(AlgorithmSpec& algorithm, const std::string& key, const T& value) {
  bool found = false;
  std::visit(
      [&](auto& p) {
        using P = std::decay_t<decltype(p)>;
        P::Visit(p, [&](const char* k, auto& field) {
          if constexpr (std::is_assignable_v<decltype(field)&, const T&>) {
            if (key == k) {
              field = value;
              found = true;
            }
          }
        });
      },
      algorithm.params);
  return found;
}

// The algorithms whose parameter struct has `key` ("dvp, pvp, madmm").
std::string AlgorithmsWith(const std::string& key) {
  std::string out;
  for (const Choice<Algorithm>& c : Choices<Algorithm>()) {
    AlgorithmParams params = DefaultParams(c.value);
    bool has = false;
    std::visit(
        [&](auto& p) {
          std::decay_t<decltype(p)>::Visit(p, [&](const char* k, auto&) { has = has || key == k; });
        },
        params);
    if (has) out += (out.empty() ? "" : ", ") + std::string(c.name);
  }
  return out;
}

class SpecFlags {
 public:
  // `sharing_alias`: the flags of `dpadmm sharing` (the vertical family's defaults and its
  // old names: --algorithm admm means sharing).
  SpecFlags(CLI::App& app, bool sharing_alias)
      : app_(app),
        sharing_alias_(sharing_alias),
        flags_(RunSpec::Defaults(sharing_alias ? Algorithm::kSharing : Algorithm::kAdmm)) {
    Register();
  }
  SpecFlags(const SpecFlags&) = delete;  // the bindings point into this object
  SpecFlags& operator=(const SpecFlags&) = delete;

  // The algorithm the flags name, if --algorithm was given.
  std::optional<Algorithm> GivenAlgorithm() const {
    if (algorithm_option_->count() == 0) return std::nullopt;
    return ParseAlgorithm(*algorithm_name_);
  }
  Algorithm DefaultAlgorithm() const {
    return sharing_alias_ ? Algorithm::kSharing : Algorithm::kAdmm;
  }

  // Copies the flags the user passed onto `spec` (which already holds defaults + config).
  void ApplyGiven(RunSpec& spec) const {
    for (const auto& [option, apply] : bindings_) {
      if (option->count() > 0) apply(spec);
    }
  }

 private:
  Algorithm ParseAlgorithm(const std::string& name) const {
    if (sharing_alias_ && name == "admm") return Algorithm::kSharing;  // the old name
    return ParseChoice<Algorithm>(name, "--algorithm");
  }

  // A flag with a value, bound to the field that `field(spec)` returns.
  template <class Field>
  CLI::Option* Value(const std::string& name, Field field, const std::string& help) {
    using T = std::remove_reference_t<decltype(field(flags_))>;
    CLI::Option* option = WithStrictNumber<T>(app_.add_option(name, field(flags_), help));
    bindings_.emplace_back(option, [field, this](RunSpec& spec) { field(spec) = field(flags_); });
    return option;
  }
  // --noise-seed S: simulation mode (RunSpec::noise_seed); absent = private mode.
  CLI::Option* NoiseSeed() {
    auto value = std::make_shared<std::uint64_t>(0);
    storage_.push_back(value);
    CLI::Option* option =
        app_.add_option("--noise-seed", *value,
                        "Simulation: every node's noise key derived from S, so the noise is "
                        "reproducible and the run NOT private (default: private, keys from the "
                        "operating system, never stored)")
            ->type_name("S")
            ->default_str("");
    WithStrictNumber<std::uint64_t>(option);
    bindings_.emplace_back(option, [value](RunSpec& spec) { spec.noise_seed = *value; });
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
  // A choice of enum E, by the names of its table.
  template <class E, class Field>
  CLI::Option* ChoiceFlag(const std::string& name, Field field, const std::string& help) {
    auto text = std::make_shared<std::string>(ChoiceName(field(flags_)));
    storage_.push_back(text);
    CLI::Option* option = app_.add_option(name, *text, help + ": " + ChoiceList<E>());
    const std::string flag = name.substr(0, name.find(','));
    bindings_.emplace_back(
        option, [field, text, flag](RunSpec& spec) { field(spec) = ParseChoice<E>(*text, flag); });
    return option;
  }
  // A parameter of the selected algorithm's struct (algorithm.<name>.<key>); an error names
  // the algorithms that have it when the selected one does not.
  template <class T>
  CLI::Option* Param(const std::string& name, const std::string& key, T shown_default,
                     const std::string& help) {
    auto value = std::make_shared<T>(shown_default);
    storage_.push_back(value);
    CLI::Option* option = WithStrictNumber<T>(app_.add_option(name, *value, help));
    BindParam(option, name, key, value);
    return option;
  }
  // Sets algorithm.<name>.<key> from `value` when `option` was given.
  template <class T>
  void BindParam(CLI::Option* option, const std::string& name, const std::string& key,
                 std::shared_ptr<T> value) {
    const std::string flag = name.substr(0, name.find(','));
    bindings_.emplace_back(option, [key, value, flag](RunSpec& spec) {
      if (!SetParam(spec.algorithm, key, *value)) {
        Fail(flag + " is not used by algorithm '" + ChoiceName(spec.algorithm.name()) +
             "' (it sets algorithm.<name>." + key + " of: " + AlgorithmsWith(key) + ")");
      }
    });
  }
  template <class T>
  CLI::Option* ParamList(const std::string& name, const std::string& key, const std::string& help) {
    return Param(name, key, std::vector<T>{}, help)
        ->delimiter(',')
        ->allow_extra_args(false)
        ->type_name("LIST")
        ->default_str("");
  }
  CLI::Option* ParamSwitch(const std::string& name, const std::string& key,
                           const std::string& help) {
    auto value = std::make_shared<bool>(false);
    storage_.push_back(value);
    CLI::Option* option = app_.add_flag(name, *value, help);
    BindParam(option, name, key, value);
    return option;
  }

  void Register() {
    std::string group = "Data";
    const auto in = [&](CLI::Option* o) { o->group(group); };
    in(ChoiceFlag<DataSource>(
           "--data", [](RunSpec & s) -> auto& { return s.data.source; }, "Data source")
           ->type_name("SOURCE"));
    in(Value(
           "--train", [](RunSpec & s) -> auto& { return s.data.train_path; },
           "Training data file (file sources)")
           ->type_name("FILE"));
    in(Value(
           "--test", [](RunSpec & s) -> auto& { return s.data.test_path; },
           "Test data file; without it a seeded --test-fraction split (adult: required)")
           ->type_name("FILE"));
    in(Value(
           "--train-labels", [](RunSpec & s) -> auto& { return s.data.train_labels_path; },
           "asc: training labels file (one +-1 per line)")
           ->type_name("FILE"));
    in(Value(
           "--test-labels", [](RunSpec & s) -> auto& { return s.data.test_labels_path; },
           "asc: test labels file")
           ->type_name("FILE"));
    in(Value(
           "--features", [](RunSpec & s) -> auto& { return s.data.num_features; },
           "libsvm: number of features (0 = the largest index in the file)")
           ->type_name("N"));
    in(Value(
           "--label-column", [](RunSpec & s) -> auto& { return s.data.label_column; },
           "csv: column of the label, 0-based; negative counts from the end (-1 = last)")
           ->type_name("K"));
    {
      // A char is entered as a one-character string ("tab" or "\t" for a tab).
      auto text = std::make_shared<std::string>(1, flags_.data.delimiter);
      CLI::Option* o = app_.add_option("--delimiter", *text,
                                       "csv: field delimiter, one character ('tab' for a tab, "
                                       "' ' for whitespace)")
                           ->type_name("CHAR");
      o->check([](const std::string& v) -> std::string {
        return (v.size() == 1 || v == "tab" || v == "\\t") ? "" : "must be one character or 'tab'";
      });
      bindings_.emplace_back(o, [text](RunSpec& s) {
        s.data.delimiter = (*text == "tab" || *text == "\\t") ? '\t' : (*text)[0];
      });
      storage_.push_back(text);
      in(o);
    }
    in(Switch(
        "--header", [](RunSpec & s) -> auto& { return s.data.has_header; }, true,
        "csv: the first line is a header"));
    in(Value(
           "--rows", [](RunSpec & s) -> auto& { return s.data.rows; },
           "Generated data: rows before the train/test split")
           ->type_name("N"));
    in(Value(
           "--dims", [](RunSpec & s) -> auto& { return s.data.dims; },
           "Generated data: dimension (sparse: number of features)")
           ->type_name("D"));
    in(Value(
           "--informative,--sparse-informative",
           [](RunSpec & s) -> auto& { return s.data.sparse_informative; },
           "sparse: informative columns (the first ones)")
           ->type_name("K"));
    in(Value(
           "--nnz-per-row,--sparse-nnz-per-row",
           [](RunSpec & s) -> auto& { return s.data.sparse_nnz_per_row; },
           "sparse: nonzeros per row")
           ->type_name("K"));
    in(Value(
           "--flip-probability,--sparse-flip-probability",
           [](RunSpec & s) -> auto& { return s.data.sparse_flip_probability; },
           "sparse: label-flip probability")
           ->type_name("P"));
    in(Value(
           "--test-fraction", [](RunSpec & s) -> auto& { return s.data.test_fraction; },
           "Share of rows held out for testing when there is no --test file, in (0, 1)")
           ->type_name("F"));
    in(Switch(
        "--bias", [](RunSpec & s) -> auto& { return s.data.add_bias; }, true,
        "Append a constant feature 1 (an intercept) to every row before normalisation"));
    in(Switch(
        "--no-normalize", [](RunSpec & s) -> auto& { return s.data.normalize; }, false,
        "Keep rows as loaded (the same as --scaling none)"));
    in(ChoiceFlag<Scaling>(
           "--scaling", [](RunSpec & s) -> auto& { return s.data.scaling; },
           "How each node prepares its rows (private mode refuses global-max-norm)")
           ->type_name("MODE"));
    in(Value(
           "--feature-bounds", [](RunSpec & s) -> auto& { return s.data.feature_bounds_path; },
           "Public per-feature bounds: one 'lo hi' line per feature, or 'index lo hi' lines "
           "(0-based; unlisted features take --feature-range)")
           ->type_name("FILE"));
    in(List(
           "--feature-range", [](RunSpec & s) -> auto& { return s.data.feature_range; },
           "Public bounds LO,HI of every feature not in --feature-bounds")
           ->type_name("LO,HI"));
    in(Value(
           "--bounds-epsilon", [](RunSpec & s) -> auto& { return s.data.bounds_epsilon; },
           "--scaling dp-bounds: epsilon each node spends on its DP estimate of the feature "
           "bounds (part of its budget)")
           ->type_name("E"));

    group = "Graph (consensus family)";
    in(ChoiceFlag<Topology>(
           "--topology", [](RunSpec & s) -> auto& { return s.graph.topology; },
           "Communication graph")
           ->type_name("KIND"));
    in(Value(
           "--nodes", [](RunSpec & s) -> auto& { return s.graph.nodes; },
           "Number of nodes (parties)")
           ->type_name("N"));
    {
      auto text = std::make_shared<std::string>("auto");
      CLI::Option* o = app_.add_option("--edges", *text,
                                       "random: edges of the connected random graph; auto = "
                                       "about 1.3 per node (13 for 10 nodes)")
                           ->type_name("M|auto");
      o->check([](const std::string& v) -> std::string {
        if (v == "auto") return "";
        int parsed = 0;
        return internal::ParseStrictInteger(v, parsed).empty() && parsed >= 1
                   ? ""
                   : "must be a positive integer or 'auto', got " + internal::QuoteToken(v);
      });
      bindings_.emplace_back(o, [text](RunSpec& s) {
        s.graph.edges = *text == "auto" ? GraphSpec::kAutoEdges : std::stoi(*text);
      });
      storage_.push_back(text);
      in(o);
    }
    in(Value(
           "--grid-rows", [](RunSpec & s) -> auto& { return s.graph.grid_rows; },
           "grid: rows of the grid (0 = as square as possible)")
           ->type_name("R"));
    in(Value(
           "--graph-file", [](RunSpec & s) -> auto& { return s.graph.file; },
           "file: edge list, one undirected edge 'i j' per line, 0-based")
           ->type_name("FILE"));

    group = "Partition (consensus family)";
    in(ChoiceFlag<PartitionKind>(
           "--partition", [](RunSpec & s) -> auto& { return s.partition.kind; },
           "How training rows are spread over nodes")
           ->type_name("KIND"));
    in(List(
        "--proportions", [](RunSpec & s) -> auto& { return s.partition.proportions; },
        "proportional: one positive weight per node, comma separated"));
    in(Value(
           "--dirichlet-alpha", [](RunSpec & s) -> auto& { return s.partition.dirichlet_alpha; },
           "dirichlet: concentration (small = unbalanced nodes)")
           ->type_name("A"));
    in(Value(
           "--partition-file", [](RunSpec & s) -> auto& { return s.partition.file; },
           "file: line k holds the node of training row k")
           ->type_name("FILE"));

    group = "Loss (consensus family)";
    in(ChoiceFlag<LossKind>(
           "--loss", [](RunSpec & s) -> auto& { return s.loss.kind; }, "Per-sample loss")
           ->type_name("KIND"));
    in(Value(
           "--huber-h", [](RunSpec & s) -> auto& { return s.loss.huber_h; },
           "smooth_hinge: half-width h > 0")
           ->type_name("H"));

    group = "Algorithm";
    {
      algorithm_name_ = std::make_shared<std::string>(ChoiceName(DefaultAlgorithm()));
      std::string help = "The algorithm (it selects the family):";
      for (const Choice<Algorithm>& c : Choices<Algorithm>()) {
        help += std::string("\n") + c.name + ": " + c.help;
      }
      if (sharing_alias_) help += "\n(admm: the old name of sharing)";
      algorithm_option_ = app_.add_option("--algorithm", *algorithm_name_, help)->type_name("NAME");
      bindings_.emplace_back(algorithm_option_, [this](RunSpec& s) {
        s.algorithm.Select(ParseAlgorithm(*algorithm_name_));
      });
      in(algorithm_option_);
    }
    in(Value(
           "--C", [](RunSpec & s) -> auto& { return s.algorithm.C; },
           "Consensus: loss weight C (node i weighs each of its B_i losses by C / B_i)")
           ->type_name("C"));
    {
      // --rho is the regulariser of the consensus family and the ADMM penalty of ADMM sharing
      // (each paper's own symbol).
      auto value = std::make_shared<double>(RunSpec{}.algorithm.rho);
      storage_.push_back(value);
      CLI::Option* o =
          WithStrictNumber<double>(
              app_.add_option("--rho", *value,
                              "Consensus: regulariser weight rho (default 0.22); sharing: "
                              "the ADMM penalty rho of 001 "
                              "(default 5e-4)"))
              ->type_name("RHO");
      bindings_.emplace_back(o, [value](RunSpec& s) {
        if (s.family() == Family::kSharing) {
          if (!SetParam(s.algorithm, "rho", *value)) {
            Fail(std::string("--rho is not used by algorithm '") + ChoiceName(s.algorithm.name()) +
                 "' (use --lambda for the regulariser)");
          }
        } else {
          s.algorithm.rho = *value;
        }
      });
      in(o);
    }
    in(Switch(
        "--rho-per-node", [](RunSpec & s) -> auto& { return s.algorithm.rho_per_node; }, true,
        "Each node carries rho (004's DR-ERM) instead of rho / N (003)"));
    in(Value(
           "--eta", [](RunSpec & s) -> auto& { return s.algorithm.eta; },
           "ADMM penalty eta (M-ADMM theta; MR-ADMM base penalty; PDML beta)")
           ->type_name("ETA"));
    in(Switch(
        "--random-start", [](RunSpec & s) -> auto& { return s.algorithm.random_start; }, true,
        "Start from f_i ~ N(0, 1/d) per coordinate (seeded) instead of 0"));
    in(List(
        "--node-eta", [](RunSpec & s) -> auto& { return s.algorithm.node_eta; },
        "Per-node eta, one per node (replaces --eta)"));
    in(Value(
           "--privacy-budget", [](RunSpec & s) -> auto& { return s.algorithm.privacy_budget; },
           "Each node's privacy budget: a node freezes before its loss would exceed it; the "
           "run stops when every private node has frozen; 0 = no budget")
           ->type_name("B"));
    in(List(
        "--node-privacy-budget",
        [](RunSpec & s) -> auto& { return s.algorithm.node_privacy_budget; },
        "Per-node privacy budget, one per node (replaces --privacy-budget)"));
    in(Param("--alpha", "alpha", 0.0, "Privacy parameter of the first iteration; 0 = no noise")
           ->type_name("A"));
    in(Param("--q1", "q1", 1.0, "Penalty growth factor >= 1 (madmm, mradmm, private_mradmm)")
           ->type_name("Q"));
    in(Param("--q2", "q2", 1.0, "Growth factor of alpha per iteration")->type_name("Q"));
    in(Param("--gamma", "gamma", 0.5, "R-ADMM / MR-ADMM even-step term gamma >= 0")
           ->type_name("G"));
    in(Param("--dual-step", "dual_step", 0.0, "M-ADMM dual step theta (0 = eta_i(1))")
           ->type_name("S"));
    in(ParamList<double>("--node-alpha", "node_alpha",
                         "Per-node alpha, one per node (replaces --alpha)"));
    in(ParamList<double>("--node-q1", "node_q1", "Per-node q1, one per node (replaces --q1)"));
    in(ParamList<double>("--node-q2", "node_q2", "Per-node q2, one per node (replaces --q2)"));

    group = "PDML (--algorithm pdml; paper 000: a = --rho, beta = --eta, the paper's C = 1)";
    in(Param("--label-eps", "label_eps", 0.0,
             "Label privacy eps of every user (randomized response, eps-LDP); 0 = labels "
             "reported truthfully")
           ->type_name("EPS"));
    in(ParamList<double>("--label-eps-groups", "label_eps_groups",
                         "Heterogeneous label privacy: eps of each user group (0 = truthful); "
                         "replaces --label-eps"));
    in(ParamList<double>("--label-eps-shares", "label_eps_shares",
                         "Share of users in each group (> 0, sum 1; each user draws a group, "
                         "seeded)"));
    in(Param("--pdml-R", "R", 0.0,
             "Objective perturbation bound: ||eta_i||_2 <= R, uniform in the ball, once per "
             "server; 0 = none")
           ->type_name("R"));
    in(Param("--pdml-V", "V", 0.0,
             "Primal perturbation: the released w~_i(t) = w_i(t) + N(0, decay^(t-1) V^2 I); "
             "0 = none")
           ->type_name("V"));
    in(Param("--pdml-decay", "decay", 0.8, "Decay rate of the primal noise variance, in (0, 1]")
           ->type_name("RHO"));

    group = "Sharing family (--algorithm sharing | sgd; paper 001)";
    in(Param("--parties", "parties", 2, "Number of parties M")->type_name("M"));
    in(ParamList<std::int64_t>("--party-features", "party_features",
                               "Features per party in column order, comma separated (default: "
                               "even split)"));
    in(Param("--lambda", "lambda", 1e-4, "Regulariser weight lambda")->type_name("L"));
    in(Param("--z-tolerance", "z_tolerance", 1e-13,
             "Relative step tolerance of the per-sample z Newton solve")
           ->type_name("TOL"));
    in(Param("--z-max-iterations", "z_max_iterations", 100,
             "Newton steps of the z update before the run is declared diverged")
           ->type_name("N"));
    in(ParamSwitch("--dp", "dp", "Private ADMM sharing (mechanism: --dp-mechanism)"));
    in(Param("--dp-mechanism", "mechanism", std::string("gaussian"),
             "gaussian: D_m x_m + N(0, sigma^2 I_N), ||x_m|| <= b1 enforced (DP); paper16: 001 "
             "(16), x_m + N(0, sigma^2 (D_m^T D_m)^-1) - NOT DP as stated (the noise covariance "
             "is made of the private data: releases lie in col(D_m)); 001 used --b1 1")
           ->type_name("MECH"));
    in(Param("--total-epsilon", "total_epsilon", 2.0,
             "gaussian: each party's total epsilon over all iterations (tight), sets sigma")
           ->type_name("EPS"));
    in(Param("--epsilon", "epsilon", 1.0, "paper16: per-iteration epsilon in (0, 1]")
           ->type_name("EPS"));
    in(Param("--noise-sigma", "noise_sigma", 0.0,
             "Set sigma directly (0 = from Theorem 3 and --epsilon); epsilon is then reported "
             "for it")
           ->type_name("S"));
    in(Param("--delta", "delta", 1e-5, "gaussian: total delta; paper16: per-iteration delta")
           ->type_name("D"));
    in(Param("--delta-prime", "delta_prime", 1e-5, "paper16: Corollary 1's delta'")
           ->type_name("D"));
    in(Param("--b1", "b1", 100.0,
             "gaussian: enforced bound on ||x_m||; paper16: assumed bound on ||x_m||, ||y|| "
             "(Assumption 2.1; not enforced, the trace shows the observed norms)")
           ->type_name("B"));
    in(Param("--c1", "c1", 1.0, "Bound on |R''| (Assumption 2.2)")->type_name("C"));
    in(Param("--learning-rate", "learning_rate", 0.5, "sgd: step size of epoch 1")
           ->type_name("ETA"));
    in(Param("--lr-decay", "lr_decay", 0.0,
             "sgd: step of epoch e = learning_rate / (1 + lr_decay (e - 1))")
           ->type_name("K"));
    in(Param("--batch-size", "batch_size", 64, "sgd: mini-batch size")->type_name("B"));
    in(Param("--sgd-init-sd,--init-sd", "init_sd", 0.01, "sgd: initial weights ~ N(0, sd^2)")
           ->type_name("SD"));

    group = "Local Newton solver (consensus family)";
    in(Value(
           "--newton-max-iterations", [](RunSpec & s) -> auto& { return s.newton.max_iterations; },
           "Newton steps per local solve")
           ->type_name("N"));
    in(Value(
           "--newton-tolerance", [](RunSpec & s) -> auto& { return s.newton.gradient_tolerance; },
           "Relative gradient-norm tolerance of a local solve")
           ->type_name("TOL"));
    in(Value(
           "--newton-armijo-c", [](RunSpec & s) -> auto& { return s.newton.armijo_c; },
           "Armijo sufficient-decrease constant, in (0, 0.5)")
           ->type_name("C"));
    in(Value(
           "--newton-backtrack", [](RunSpec & s) -> auto& { return s.newton.backtrack; },
           "Line-search step shrink factor, in (0, 1)")
           ->type_name("F"));
    in(Value(
           "--newton-max-backtracks", [](RunSpec & s) -> auto& { return s.newton.max_backtracks; },
           "Line-search steps per Newton step")
           ->type_name("N"));
    in(Value(
           "--newton-dense-max-dim",
           [](RunSpec & s) -> auto& { return s.newton.dense_hessian_max_dim; },
           "Cholesky on the Hessian up to this many features, conjugate gradients above")
           ->type_name("D"));
    in(Value(
           "--newton-max-cg-iterations",
           [](RunSpec & s) -> auto& { return s.newton.max_cg_iterations; },
           "Conjugate-gradient steps per Newton step (CG mode)")
           ->type_name("N"));

    group = "Run";
    in(Value(
           "--iterations,--epochs", [](RunSpec & s) -> auto& { return s.iterations; },
           "ADMM rounds after round 0 (sharing: iterations; sgd: epochs)")
           ->type_name("T"));
    in(Value(
           "--seed", [](RunSpec & s) -> auto& { return s.seed; },
           "Seed of data generation, split, graph, partition and random start (never noise)")
           ->type_name("S"));
    in(NoiseSeed());
    in(ChoiceFlag<runtime::EngineKind>(
           "--engine", [](RunSpec & s) -> auto& { return s.engine; },
           "Engine; all give bitwise-identical results")
           ->type_name("ENGINE"));
    in(Value(
           "--threads", [](RunSpec & s) -> auto& { return s.threads; },
           "Worker threads of the tbb engine (0 = all cores); mpi: TBB threads inside each rank "
           "(0 or 1 = the rank's own thread)")
           ->type_name("N"));
    in(Switch(
        "--no-optimum,--no-baselines", [](RunSpec & s) -> auto& { return s.compute_optimum; },
        false, "Skip the centralized optimum (sharing: the baselines)"));
    in(Value(
           "--tolerance", [](RunSpec & s) -> auto& { return s.tolerance; },
           "Consensus: stop ('converged') once model change and consensus gap are below this; "
           "0 = never")
           ->type_name("TOL"));
    in(ChoiceFlag<MetricsScope>(
           "--metrics", [](RunSpec & s) -> auto& { return s.metrics; },
           "Which figures the run computes and outputs")
           ->type_name("SCOPE"));
    in(Value(
           "--eval-every,--metrics-every", [](RunSpec & s) -> auto& { return s.metrics_every; },
           "Consensus: metrics, trace rows and the --tolerance check every this many rounds "
           "and at the last; 0 = first and last only")
           ->type_name("K"));
    in(Value(
           "--target-epsilon", [](RunSpec & s) -> auto& { return s.target_epsilon; },
           "Calibrate the noise so that the tight total epsilon per node (sharing: per party) "
           "at delta 1e-5 (sharing: --delta) is E: dvp, pvp, madmm, private_mradmm set alpha, "
           "sharing --dp its total epsilon; 0 = the knob as given")
           ->type_name("E"));
  }

  CLI::App& app_;
  bool sharing_alias_;
  RunSpec flags_;  // holds the defaults shown in --help, then the parsed values
  std::shared_ptr<std::string> algorithm_name_;
  CLI::Option* algorithm_option_ = nullptr;
  std::vector<std::pair<CLI::Option*, std::function<void(RunSpec&)>>> bindings_;
  std::vector<std::shared_ptr<void>> storage_;  // values of flags that are not spec fields
};

// ---------------------------------------------------------------------------------------------
// Output: trace file, progress display.

TraceFormat ResolveTraceFormat(const std::string& path, const std::string& forced) {
  if (!forced.empty()) return ParseChoice<TraceFormat>(forced, "--trace-format");
  const auto ends_with = [&](const char* suffix) {
    const std::size_t n = std::strlen(suffix);
    return path.size() >= n && path.compare(path.size() - n, n, suffix) == 0;
  };
  if (ends_with(".csv")) return TraceFormat::kCsv;
  if (ends_with(".jsonl") || ends_with(".ndjson")) return TraceFormat::kJsonLines;
  Fail("--trace " + path +
       ": cannot tell the format from the extension (.csv or .jsonl); "
       "use --trace-format " +
       ChoiceList<TraceFormat>("|"));
}

// The trace: rows are flushed to TRACE.partial as they come (a write error stops the run at
// the first failing row) and the file is renamed onto TRACE when the run ends, however it ends
// (completed, budget, diverged, failed, Ctrl-C, an error): TRACE then holds the header and every
// round up to the last one. A run killed outright (SIGKILL) leaves TRACE.partial, valid up to
// its last complete line. A trace without any round is not kept.
class TraceWriter {
 public:
  // The first lines say where the noise came from: a `# ` comment in CSV, a header object
  // {"noise_mode": ..., "noise": ...} in JSON lines (the rows follow). `evaluation`
  // (RunInfo::evaluation): columns computed on private data in a run whose outputs a guarantee
  // binds; when not empty, they are labelled too (CSV: a second '# ' line; JSON lines: the
  // header object's "evaluation" and "evaluation_on_private_data" fields). Written with the
  // first round, so that a trace is either absent or valid.
  TraceWriter(std::string path, TraceFormat format, Family family, const RunInfo& info,
              const std::vector<std::string>& evaluation = {})
      : file_(std::move(path), "the trace"), format_(format), family_(family) {
    std::string names;
    for (const std::string& e : evaluation) {
      if (e.rfind("info.", 0) == 0) continue;  // summary fields, not trace columns
      names += (names.empty() ? "" : format_ == TraceFormat::kCsv ? " " : "\", \"") + e;
    }
    if (format_ == TraceFormat::kCsv) {
      header_ = "# " + std::string(NoiseLabel(info)) + '\n';
      if (!names.empty())
        header_ += "# " + std::string(kPrivateEvaluationLabel) + ": " + names + '\n';
      header_ += MetricsCsvHeader(family_) + '\n';
    } else {
      header_ = std::string("{\"noise_mode\":\"") + NoiseModeName(info) + "\",\"noise\":\"" +
                NoiseLabel(info) + '"';
      if (!names.empty()) {
        header_ += std::string(",\"evaluation\":\"") + kPrivateEvaluationLabel +
                   "\",\"evaluation_on_private_data\":[\"" + names + "\"]";
      }
      header_ += "}\n";
    }
  }
  void Write(const RoundMetrics& m) {
    std::string text;
    if (rows_ == 0) text = header_;
    text += (format_ == TraceFormat::kCsv ? MetricsToCsvRow(m, family_)
                                          : MetricsToJsonLine(m, family_));
    text += '\n';
    file_.Write(text);
    ++rows_;
  }
  // Renames the trace onto its path (rounds were written) or removes it (none were).
  void Close() {
    if (rows_ > 0) {
      file_.Commit();
    } else {
      file_.Discard();
    }
  }
  const std::string& path() const { return file_.target(); }
  const char* format_name() const { return ChoiceName(format_); }
  std::int64_t rows() const { return rows_; }

 private:
  AtomicFile file_;
  TraceFormat format_;
  Family family_;
  std::string header_;  // written with the first row
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
    evaluation_ = !info.evaluation.empty();
    if (mode_ == Mode::kOff) return;
    const std::string where =
        info.family == Family::kConsensus
            ? std::to_string(info.nodes) + " nodes / " + std::to_string(info.edges) + " edges"
            : std::to_string(info.party_features.size()) + " parties";
    std::fprintf(stderr, "dpadmm: %s on %s, %lld training rows x %lld features, %lld rounds\n",
                 ChoiceName(info.algorithm), where.c_str(), static_cast<long long>(info.train_rows),
                 static_cast<long long>(info.features), static_cast<long long>(total_));
    std::fprintf(stderr, "dpadmm: %s\n", NoiseLabel(info));
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
      std::fprintf(stderr, "\r[%s] %3d%%  round %lld/%lld%s  test error %s\033[K", bar.c_str(),
                   static_cast<int>(100.0 * done), static_cast<long long>(m.round),
                   static_cast<long long>(total_), TrainLoss(m).c_str(),
                   Percent(m.test_error).c_str());
      std::fflush(stderr);
    } else if (mode_ == Mode::kLines && (m.round >= next_line_ || m.round == total_)) {
      next_line_ = (m.round / step_ + 1) * step_;
      std::fprintf(stderr, "dpadmm: round %lld/%lld%s  test error %s  %s\n",
                   static_cast<long long>(m.round), static_cast<long long>(total_),
                   TrainLoss(m).c_str(), Percent(m.test_error).c_str(), Seconds(m.seconds).c_str());
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
  bool evaluation_ = false;  // the run lists private-evaluation figures (RunInfo::evaluation)

  // "  train loss X" (labelled when it is an evaluation outside a guarantee), or nothing when
  // the run did not compute it (released-only).
  std::string TrainLoss(const RoundMetrics& m) const {
    if (std::isnan(m.train_loss)) return "";
    return "  train loss " + Fmt("%.6g", m.train_loss) + (evaluation_ ? " (private eval.)" : "");
  }
};

// Subscribes the trace and the progress display to the run.
class CliObserver : public RunObserver {
 public:
  CliObserver(TraceWriter& trace, Progress& progress) : trace_(trace), progress_(progress) {}
  void OnStart(const RunInfo& info) override { progress_.Start(info); }
  void OnRound(const RoundMetrics& m) override {
    if (!write_error_.empty()) return;
    try {
      trace_.Write(m);
    } catch (const OutputError& e) {
      // Not thrown through the engine: the run is stopped as by Ctrl-C and the error reported
      // once it has returned.
      write_error_ = e.what();
      g_stop.RequestStop();
    }
    progress_.Update(m);
  }
  const std::string& write_error() const { return write_error_; }

 private:
  TraceWriter& trace_;
  std::string write_error_;
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
  // A figure computed on private data: absent from a released-only run, labelled when a
  // guarantee binds the run's other outputs.
  const bool computed = info.metrics == MetricsScope::kAll;
  const bool labelled = !info.evaluation.empty();
  const auto eval_row = [&](const char* label, const std::string& text) {
    if (!computed) {
      row(label, "not computed (metrics released-only: it would evaluate private data)");
    } else {
      row(label, text + (labelled ? std::string("  [") + kPrivateEvaluationLabel + "]" : ""));
    }
  };
  out << "dpadmm: " << ToString(s.outcome) << " -- " << s.message << '\n';
  row("data", info.dataset + ": " + std::to_string(info.train_rows) + " training rows, " +
                  std::to_string(info.test_rows) + " test rows, " + std::to_string(info.features) +
                  " features, " + (info.sparse ? "sparse" : "dense"));
  switch (info.scaling) {
    case Scaling::kNone:
      eval_row(
          "normalisation",
          "rows not scaled (--scaling none); max ||x|| = " + Fmt("%.6g", info.max_row_norm_before) +
              (info.max_row_norm_before > 1.0 ? " > 1: the privacy analyses assume ||x|| <= 1"
                                              : ""));
      break;
    case Scaling::kPublicBounds:
      row("normalisation",
          "each feature mapped from its public bounds to [-1, 1] / sqrt(d), then every row "
          "clipped to ||x|| <= 1 (public-bounds)");
      break;
    case Scaling::kDpBounds:
      row("normalisation",
          "each feature mapped from DP-estimated bounds to [-1, 1] / sqrt(d), then every row "
          "clipped to ||x|| <= 1 (dp-bounds: each node spent epsilon " +
              Fmt("%.6g", info.dp_bounds.epsilon) +
              " on its bounds release, included in its privacy figures; " +
              std::to_string(info.dp_bounds.fallback_features) +
              " features without an occupied bin took the fallback range)");
      break;
    case Scaling::kClipOnly:
      row("normalisation",
          "every row clipped to ||x|| <= 1 (clip-only); features not scaled: give public bounds "
          "(--feature-bounds / --feature-range) to scale them");
      break;
    case Scaling::kGlobalMaxNorm:
    case Scaling::kAuto:
      if (info.normalization_factor == 1.0) {
        eval_row("normalisation", "rows not scaled (max ||x|| was already " +
                                      Fmt("%.6g", info.max_row_norm_before) + ")");
      } else {
        eval_row("normalisation", "rows scaled by " + Fmt("%.6g", info.normalization_factor) +
                                      " so that max ||x|| = 1 (it was " +
                                      Fmt("%.6g", info.max_row_norm_before) +
                                      "; global-max-norm: one factor from every node's data)");
      }
      break;
  }
  const int threads =
      info.threads > 0 ? info.threads : static_cast<int>(std::thread::hardware_concurrency());
  const std::string engine = !info.on_engine
                                 ? std::string("in-process loop")
                                 : std::string(ChoiceName(info.engine)) + " engine" +
                                       (info.engine == runtime::EngineKind::kTbb
                                            ? ", " + std::to_string(threads) + " threads"
                                        : info.engine == runtime::EngineKind::kMpi && g_mpi
                                            ? ", " + std::to_string(g_mpi->size()) +
                                                  (g_mpi->size() == 1 ? " rank" : " ranks")
                                            : "");
  row("privacy", info.privacy_guarantee);
  row("noise", NoiseLabel(info));
  row("rounds", std::to_string(s.rounds) + " of " + std::to_string(spec.iterations));
  eval_row("training loss", Fmt("%.8g", m.train_loss));
  if (info.family == Family::kSharing) {
    std::string parties;
    for (std::size_t p = 0; p < info.party_features.size(); ++p) {
      parties += (p ? " / " : "") + std::to_string(info.party_features[p]);
    }
    row("parties", parties + " features");
    row("algorithm",
        std::string(ChoiceName(info.algorithm)) + (info.dp ? " (private)" : "") + ", " + engine);
    eval_row("objective", Fmt("%.8g", m.objective) +
                              (info.central.computed ? "  (centralized optimum " +
                                                           Fmt("%.8g", info.central.objective) + ")"
                                                     : ""));
    row("test log loss", Fmt("%.6g", m.test_loss));
    if (info.central.computed) {
      eval_row("baselines", "test log loss all features " + Fmt("%.6g", info.central.test_loss) +
                                ", party 1 only " + Fmt("%.6g", info.local.test_loss));
    }
    row("test accuracy", Percent(1.0 - m.test_error));
    if (info.dp) {
      const bool paper16 = info.sharing_mechanism == "paper16";
      std::string totals;
      for (double v : info.party_epsilon_total)
        totals += (totals.empty() ? "" : " ") + Fmt("%.6g", v);
      if (paper16) {
        row("mechanism",
            "paper16 (001 eq. (16)): NOT DP as stated (the noise covariance is made "
            "of the private data: releases lie in col(D_m))");
        row("paper's figure",
            "per iteration (" + Fmt("%.6g", info.epsilon) + ", " + Fmt("%.6g", info.delta) +
                "); total (" + Fmt("%.6g", m.epsilon_total) + ", " + Fmt("%.6g", m.delta_total) +
                ") over " + std::to_string(s.rounds) + " iterations (001 Theorem 3, Corollary 1)");
        row("assumptions", "b1 = " + Fmt("%.6g", info.b1) + ", c1 = " + Fmt("%.6g", info.c1));
        eval_row("observed norms", "max ||x_m|| " + Fmt("%.6g", m.max_x_norm) + ", ||y|| " +
                                       Fmt("%.6g", m.y_norm) + " (compare with b1)");
      } else {
        row("mechanism", "gaussian: D_m x_m + N(0, sigma^2 I_N), ||x_m|| <= b1 = " +
                             Fmt("%.6g", info.b1) + " enforced");
        row("privacy loss", "tight total (" + Fmt("%.6g", m.epsilon_total) + ", " +
                                Fmt("%.6g", m.delta_total) + ") per party over " +
                                std::to_string(s.rounds) +
                                " iterations (analytic Gaussian, mu^2 summed)");
      }
      row(paper16 ? "eps' per party" : "total eps per party", totals);
      std::string sigmas;
      for (double v : info.party_sigma) sigmas += (sigmas.empty() ? "" : " ") + Fmt("%.6g", v);
      row("sigma per party", sigmas);
      if (!info.calibrated_knob.empty()) {
        row("calibrated", info.calibrated_knob + " = " + Fmt("%.6g", info.calibrated_value) +
                              " (--target-epsilon; sigma derived from it)");
      }
    }
  } else {
    std::string per_node = "rows per node ";
    if (!info.rows_per_node.empty()) {
      const auto [lo, hi] =
          std::minmax_element(info.rows_per_node.begin(), info.rows_per_node.end());
      per_node +=
          *lo == *hi ? std::to_string(*lo) : std::to_string(*lo) + ".." + std::to_string(*hi);
    }
    row("graph", std::to_string(info.nodes) + " nodes, " + std::to_string(info.edges) + " edges (" +
                     ChoiceName(spec.graph.topology) + "); " + per_node);
    row("algorithm",
        std::string(ChoiceName(info.algorithm)) + ", " + info.loss + " loss, " + engine);
    if (info.algorithm == Algorithm::kPdml) {
      // PDML's only quantified guarantee is Phase 1's; say so rather than print a bare number.
      const PdmlParams& p = spec.algorithm.As<PdmlParams>();
      double eps = p.label_eps;
      for (double g : p.label_eps_groups) eps = std::max(eps, g);
      row("privacy loss",
          (eps > 0.0 ? "Phase 1: label eps " + Fmt("%.6g", eps) +
                           " (randomized response, pure eps-LDP per user)"
                     : std::string("Phase 1: labels not randomized")) +
              "; Phase 2: " +
              (p.V > 0.0 && std::isfinite(s.tight_epsilon)
                   ? "tight (" + Fmt("%.6g", s.tight_epsilon) + ", " + Fmt("%.0e", s.tight_delta) +
                         ")-DP per node (primal noise (16), Gaussian "
                         "composition, max over nodes)"
                   : std::string("no primal noise (V = 0): no epsilon for "
                                 "the released models")));
    } else if (m.privacy_loss > 0.0) {
      // Both figures: the paper's (its composition) and the tight one (optimal composition).
      const char* paper = info.algorithm == Algorithm::kDvp     ? "004 Thm 1, plain sum"
                          : info.algorithm == Algorithm::kPvp   ? "PVP, plain sum"
                          : info.algorithm == Algorithm::kMadmm ? "002 P(T)"
                                                                : "003 eq. (32) beta";
      row("privacy loss", Fmt("%.6g", m.privacy_loss) + " (paper: " + paper + ", max over nodes)");
      if (std::isfinite(s.tight_epsilon)) {
        row("tight privacy", "(" + Fmt("%.6g", s.tight_epsilon) + ", " +
                                 Fmt("%.0e", s.tight_delta) +
                                 ")-DP per node (optimal composition, max over nodes)");
      }
    }
    if (!info.calibrated_knob.empty()) {
      row("calibrated", info.calibrated_knob + " = " + Fmt("%.6g", info.calibrated_value) +
                            " for a tight total epsilon of " +
                            Fmt("%.6g", info.calibrated_epsilon) + " at delta " +
                            Fmt("%.0e", info.calibrated_delta) + " (target " +
                            Fmt("%.6g", spec.target_epsilon) + ")");
    }
    if (!info.privacy_claim.empty()) row("privacy claim", info.privacy_claim);
    const bool has_optimum = !std::isnan(info.optimum_objective);
    eval_row("objective",
             Fmt("%.8g", m.objective) + (has_optimum ? "  (centralized optimum " +
                                                           Fmt("%.8g", info.optimum_objective) + ")"
                                                     : ""));
    row("test accuracy", Percent(1.0 - m.test_error));
    if (has_optimum) {
      eval_row("optimum accuracy",
               Percent(1.0 - info.optimum_test_error) + " (centralized optimum on the test set)");
    }
    if (!computed) {
      eval_row("distance to optimum", "");
    } else {
      eval_row(
          "distance to optimum",
          std::isnan(m.distance_to_optimum)
              ? std::string(spec.compute_optimum ? "not computed" : "not computed (--no-optimum)")
              : Fmt("%.3e", m.distance_to_optimum) + "  (max_i ||f_i - f*|| / ||f*||)");
    }
    if (!info.optimum_note.empty()) row("optimum note", info.optimum_note);
    row("consensus gap", Fmt("%.3e", m.consensus_gap) + "  (max_i ||f_i - mean f||)");
  }
  row("wall time", Seconds(wall_seconds) + " (rounds " + Seconds(s.seconds) + ", " +
                       Fmt("%.3g", s.seconds_per_round) + " s per round)");
  row("trace",
      trace.path() + " (" + trace.format_name() + ", " + std::to_string(trace.rows()) + " rows)");
  row("summary", summary_path);
  std::cout << out.str() << std::flush;
  // Warnings go to stderr as well, so that a redirected stdout cannot hide them.
  for (const std::string& w : s.warnings) std::cerr << "dpadmm: warning: " << w << '\n';
}

int ExitCodeOf(RunOutcome outcome) {
  switch (outcome) {
    case RunOutcome::kCompleted:
    case RunOutcome::kConverged:
    case RunOutcome::kBudgetExhausted: return kExitOk;
    case RunOutcome::kDiverged: return kExitDiverged;
    case RunOutcome::kCancelled: return kExitCancelled;
    case RunOutcome::kFailed: return kExitFailed;
  }
  return kExitInternal;
}

// ---------------------------------------------------------------------------------------------
// `dpadmm run`

// --checkpoint FILE --checkpoint-every K, --resume FILE (dpadmm/experiment/checkpoint.h).
struct CheckpointFlags {
  std::string path;
  std::int64_t every = 0;
  std::string resume;
  bool active() const { return !path.empty() || !resume.empty(); }
};

struct OutputOptions {
  CheckpointFlags checkpoint;
  std::string config;
  std::string trace = "dpadmm-trace.csv";
  std::string trace_format;
  std::string summary = "dpadmm-summary.json";
  std::string model_out;
  std::string node_ranks;
  bool quiet = false;
  bool progress = false;
  bool print_config = false;
  std::string max_memory;  // --max-memory; empty = the default limit
};

// The effective spec: the defaults of the algorithm's family (the algorithm from --algorithm,
// else the config's algorithm.name), then the config file, then the flags given.
RunSpec BuildSpec(const SpecFlags& flags, const OutputOptions& o) {
  std::string config_text;
  if (!o.config.empty()) config_text = ReadFile(o.config, "config file");
  Algorithm algorithm = flags.DefaultAlgorithm();
  if (const auto given = flags.GivenAlgorithm()) {
    algorithm = *given;
  } else if (!o.config.empty()) {
    if (const auto named = PeekAlgorithm(config_text, o.config)) algorithm = *named;
  }
  RunSpec spec = RunSpec::Defaults(algorithm);
  if (!o.config.empty()) ApplySpecJson(config_text, o.config, spec);
  flags.ApplyGiven(spec);
  spec.Validate();
  return spec;
}

int RunAndReport(const RunSpec& spec, const OutputOptions& o,
                 std::chrono::steady_clock::time_point started, const MpiPlacement* placement);

// What a run reads, in the user's terms, for a message about a failure that is not tied to one
// field (out of memory): "--data libsvm --train big.txt, --nodes 10".
std::string DescribeInputs(const RunSpec& spec, const OutputOptions& o) {
  std::string out = std::string("--data ") + ChoiceName(spec.data.source);
  const auto add = [&](const char* flag, const std::string& value) {
    if (!value.empty()) out += std::string(" ") + flag + " " + value;
  };
  if (IsGenerated(spec.data.source)) {
    add("--rows", std::to_string(spec.data.rows));
    add("--dims", std::to_string(spec.data.dims));
  } else {
    add("--train", spec.data.train_path);
    add("--test", spec.data.test_path);
    add("--train-labels", spec.data.train_labels_path);
    add("--test-labels", spec.data.test_labels_path);
    if (spec.data.num_features > 0) add("--features", std::to_string(spec.data.num_features));
  }
  if (spec.family() == Family::kConsensus) {
    out += ", --nodes " + std::to_string(spec.graph.nodes);
    add("--graph-file", spec.graph.file);
    add("--partition-file", spec.partition.file);
  }
  if (!o.config.empty()) out += ", --config " + o.config;
  return out;
}

// Set once the spec is known: what a run is reading, named by an out-of-memory message.
std::string g_inputs;

void CheckCheckpointFlags(const RunSpec& spec, const OutputOptions& o);
RunSummary RunWithCheckpointFlags(const Experiment& experiment, const CheckpointFlags& c,
                                  RunObserver* observer, const runtime::StopToken* stop);

// The checks that need no data: the spec (BuildSpec validates it), the trace format, outputs
// that are distinct files and not inputs, the thread and memory limits. `dpadmm run` does
// these before anything is loaded or allocated; the command-line fuzzer runs only these.
RunSpec CheckBeforeRun(const SpecFlags& flags, const OutputOptions& o) {
  RunSpec spec = BuildSpec(flags, o);
  if (o.print_config) return spec;
  ResolveTraceFormat(o.trace, o.trace_format);
  CheckDistinctFiles({{"--trace", o.trace}, {"--summary", o.summary}, {"--model-out", o.model_out}},
                     {{"--config", o.config},
                      {"--train", spec.data.train_path},
                      {"--test", spec.data.test_path},
                      {"--train-labels", spec.data.train_labels_path},
                      {"--test-labels", spec.data.test_labels_path},
                      {"--graph-file", spec.graph.file},
                      {"--partition-file", spec.partition.file}});
  CheckCheckpointFlags(spec, o);
  if (o.max_memory.empty()) {
    CheckLimits(spec, DefaultMemoryLimit(), "75% of the physical memory");
  } else {
    CheckLimits(spec, ParseMemorySize(o.max_memory, "--max-memory"), "set by --max-memory");
  }
  return spec;
}

void RestoreStopSignals() {
  for (int signal_number : {SIGINT, SIGTERM}) {
    if (std::signal(signal_number, SIG_DFL) == SIG_IGN) std::signal(signal_number, SIG_IGN);
  }
}

int Run(const SpecFlags& flags, const OutputOptions& o,
        std::chrono::steady_clock::time_point started) {
  const RunSpec spec = CheckBeforeRun(flags, o);
  if (o.print_config) {
    std::cout << SpecToJson(spec) << std::endl;
    return kExitOk;
  }
  if (!o.node_ranks.empty() && spec.engine != runtime::EngineKind::kMpi) {
    throw InputError("--node-ranks applies to --engine mpi only");
  }
  if (spec.engine != runtime::EngineKind::kMpi) return RunAndReport(spec, o, started, nullptr);
  if (!runtime::MpiBuilt()) {
    throw InputError(
        "engine: 'mpi' is not available: this dpadmm was built without MPI (configure with "
        "-DDPADMM_WITH_MPI=ON and Open MPI installed; or use --engine serial or tbb)");
  }
  // Every rank runs this same command line; rank 0 writes trace, summary and model and prints
  // progress, the other ranks print errors only.
  g_mpi.emplace(nullptr, nullptr);
  MpiPlacement placement;
  if (!o.node_ranks.empty()) placement.node_ranks = runtime::ReadNodeRankFile(o.node_ranks);
  return RunAndReport(spec, o, started, &placement);
}

// The exit code of a run, agreed by every rank under MPI once rank 0's outputs are complete:
// rank 0 calls it after its trace, summary and model are at their paths, the other ranks after
// their part of the run, and every rank returns rank 0's code. So no rank ends before rank 0's
// outputs are complete (MPI_Finalize need not synchronise the ranks, and a launcher may report
// the job as soon as ranks exit), and every rank ends with the same code. An error on rank 0
// before this point aborts the job (CommandLine::Execute), which also ends the waiting ranks.
int OutputsDone(int code) {
  if (!g_mpi || g_mpi->size() == 1) return code;
  return static_cast<int>(runtime::MpiAllreduceMax(g_mpi->rank() == 0 ? code : 0));
}

int RunAndReport(const RunSpec& spec, const OutputOptions& o,
                 std::chrono::steady_clock::time_point started, const MpiPlacement* placement) {
  const TraceFormat format = ResolveTraceFormat(o.trace, o.trace_format);
  g_inputs = DescribeInputs(spec, o);
  // Under MPI only rank 0 writes outputs; the other ranks run their nodes and return.
  const bool writes = !(g_mpi && g_mpi->rank() != 0);

  // Both outputs are tried (created as .partial files and removed) before the data is loaded,
  // so that an unwritable path is found before any work; they are opened for good once the
  // set-up is done, so that a run killed during the set-up leaves nothing behind.
  if (writes) {
    { AtomicFile(o.trace, "the trace"); }
    { AtomicFile(o.summary, "the summary"); }
  }

  // Loads data, builds graph, partition and the optimum (under MPI: this rank's share only).
  Experiment experiment = placement != nullptr ? Experiment(spec, *placement) : Experiment(spec);
  if (!writes) {
    // Checkpoints are collective under MPI: every rank runs the checkpointed run.
    const RunSummary summary = RunWithCheckpointFlags(experiment, o.checkpoint, nullptr, &g_stop);
    RestoreStopSignals();
    return OutputsDone(ExitCodeOf(summary.outcome));
  }

  TraceWriter trace(o.trace, format, spec.family(), experiment.info(),
                    experiment.info().evaluation);
  AtomicFile summary_file(o.summary, "the summary");

  Progress::Mode mode = Progress::Mode::kOff;
  if (!o.quiet) {
    mode =
        (o.progress || isatty(STDERR_FILENO) != 0) ? Progress::Mode::kBar : Progress::Mode::kLines;
  }
  Progress progress(mode, spec.iterations);
  CliObserver observer(trace, progress);

  std::optional<RunSummary> result;
  try {
    result = RunWithCheckpointFlags(experiment, o.checkpoint, &observer, &g_stop);
  } catch (...) {
    // The rounds done so far stay readable at the trace's path.
    RestoreStopSignals();
    progress.Finish();
    if (observer.write_error().empty()) {
      try {
        trace.Close();
      } catch (const OutputError&) {
      }
    }
    throw;
  }
  RestoreStopSignals();
  progress.Finish();
  const RunSummary& summary = *result;

  // After a trace write error the trace is incomplete: its partial file is removed (the summary
  // is still written: it says where the run stopped).
  if (observer.write_error().empty()) trace.Close();
  summary_file.Write(SummaryToJson(summary) + '\n');
  summary_file.Commit();
  if (!observer.write_error().empty()) throw OutputError(observer.write_error());
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  PrintSummary(spec, summary, wall, trace, o.summary);
  // A node that ran out of memory is reported by the engine as a failed node (its exception's
  // text kept); for the user it is the same as running out of memory anywhere else: exit 2.
  if (summary.outcome == RunOutcome::kFailed &&
      summary.message.find("bad_alloc") != std::string::npos) {
    std::cerr << "dpadmm: error: out of memory while running on " << g_inputs << " ("
              << summary.message << ")\n";
    return OutputsDone(kExitBadInput);
  }
  if (!o.model_out.empty() && !SaveRunModel(summary, spec, o.model_out)) {
    return OutputsDone(kExitInternal);
  }
  return OutputsDone(ExitCodeOf(summary.outcome));
}

void AddCheckpointOptions(CLI::App& command, CheckpointFlags& c) {
  const std::string group = "Checkpoint and resume";
  command
      .add_option(
          "--checkpoint", c.path,
          "Save the run's state to FILE every --checkpoint-every rounds (atomically; "
          "mode 0600: it holds private intermediate state, the models and duals of "
          "every node, never the noise keys). Every algorithm and engine (mpi: rank 0 writes it)")
      ->type_name("FILE")
      ->group(group);
  WithStrictNumber<std::int64_t>(
      command.add_option("--checkpoint-every", c.every,
                         "Rounds between checkpoints (>= 1; sharing: iterations, sgd: epochs)"))
      ->type_name("K")
      ->group(group);
  command
      .add_option("--resume", c.resume,
                  "Continue the run saved in FILE; give the same flags and config (a different "
                  "spec is refused). With --noise-seed the result has the same bits as an "
                  "uninterrupted run; a private run draws fresh noise keys. The trace is "
                  "written whole (the checkpoint keeps the rows so far)")
      ->type_name("FILE")
      ->group(group);
}

// The checkpoint flags' own checks, before anything is loaded.
void CheckCheckpointFlags(const RunSpec& /*spec*/, const OutputOptions& o) {
  const CheckpointFlags& c = o.checkpoint;
  if (!c.active()) {
    if (c.every != 0) throw InputError("--checkpoint-every needs --checkpoint FILE");
    return;
  }
  if (!c.path.empty() && c.every < 1) {
    throw InputError("--checkpoint-every: must be >= 1 with --checkpoint, got " +
                     std::to_string(c.every));
  }
  if (c.path.empty() && c.every != 0) {
    throw InputError("--checkpoint-every needs --checkpoint FILE");
  }
  // --checkpoint may name the --resume file (the checkpoint is read whole before the run and
  // replaced atomically); no other output may.
  std::error_code ec;
  const bool same = !c.path.empty() && !c.resume.empty() &&
                    std::filesystem::weakly_canonical(c.path, ec) ==
                        std::filesystem::weakly_canonical(c.resume, ec);
  CheckDistinctFiles({{"--trace", o.trace},
                      {"--summary", o.summary},
                      {"--model-out", o.model_out},
                      {"--checkpoint", same ? std::string() : c.path}},
                     {{"--resume", c.resume}, {"--config", o.config}});
  if (same) {
    CheckDistinctFiles({{"--trace", o.trace},
                        {"--summary", o.summary},
                        {"--model-out", o.model_out},
                        {"--checkpoint", c.path}},
                       {{"--config", o.config}});
  }
}

// Experiment::Run, or RunCheckpointed when a checkpoint flag is given.
RunSummary RunWithCheckpointFlags(const Experiment& experiment, const CheckpointFlags& c,
                                  RunObserver* observer, const runtime::StopToken* stop) {
  if (!c.active()) return experiment.Run(observer, stop);
  CheckpointOptions options;
  options.save_path = c.path;
  options.every = c.every;
  options.resume_path = c.resume;
  return experiment.RunCheckpointed(options, observer, stop);
}

void AddOutputOptions(CLI::App& command, OutputOptions& o) {
  AddCheckpointOptions(command, o.checkpoint);
  const std::string io = "Input and output";
  command
      .add_option("--config", o.config,
                  "JSON spec file (shape: see --print-config); command-line flags override it")
      ->type_name("FILE")
      ->group(io);
  command
      .add_option("--trace", o.trace,
                  "Per-round metrics; format from the extension (.csv or .jsonl)")
      ->type_name("FILE")
      ->group(io);
  command
      .add_option("--trace-format", o.trace_format,
                  "Overrides the extension: " + ChoiceList<TraceFormat>())
      ->type_name("FORMAT")
      ->group(io);
  command.add_option("--summary", o.summary, "Run summary (outcome, final metrics, model) as JSON")
      ->type_name("FILE")
      ->group(io);
  command
      .add_option("--model-out", o.model_out,
                  "Save the learned model as JSON for `dpadmm predict` (dpadmm::Model)")
      ->type_name("FILE")
      ->group(io);
  command
      .add_option("--node-ranks", o.node_ranks,
                  "--engine mpi: the rank of each node, one per line (line k: node k-1; sharing: "
                  "line 1 the coordinator, line m + 1 party m); default contiguous blocks")
      ->type_name("FILE")
      ->group("Run");
  command.add_flag("--quiet,-q", o.quiet, "No progress output on stderr")->group(io);
  command
      .add_flag("--progress", o.progress,
                "Draw the progress bar even when stderr is not a terminal")
      ->group(io);
  command
      .add_option("--max-memory", o.max_memory,
                  "Refuse a run whose estimated memory is above this many bytes (suffix K, M, G, "
                  "T; 0 = no limit; default: 75% of the physical memory)")
      ->type_name("SIZE")
      ->group(io);
  command
      .add_flag("--print-config", o.print_config,
                "Print the effective spec as JSON and exit (nothing is run)")
      ->group(io);
}

// Library messages name the function that rejected an input ("PartitionEven: 7 rows ...");
// the user knows the flags, so those names are replaced by the flag's words.
std::string UserMessage(std::string message) {
  static const std::pair<const char*, const char*> kNames[] = {
      {"PartitionEven: ", "--partition even: "},
      {"PartitionProportional: ", "--partition proportional: "},
      {"PartitionDirichlet: ", "--partition dirichlet: "},
      {"SplitTrainTest: ", "the train/test split (--test-fraction): "},
      {"NormalizeRows: ", "normalisation: "},
      {"LocalSolver: ", "the local solver: "},
      {"MakeConsensusNode: ", "--algorithm: "},
  };
  for (const auto& [internal_name, user_words] : kNames) {
    const std::size_t at = message.find(internal_name);
    if (at != std::string::npos) message.replace(at, std::strlen(internal_name), user_words);
  }
  return message;
}

// The command line: the parser of every command and the step that runs the parsed one. Parse
// and CheckOnly are also what the command-line fuzzer (tests/fuzz/fuzz_cli.cpp) drives.
class CommandLine {
 public:
  // `command` is argv[1]: the spec flags (a few hundred options, most of the parser's set-up
  // time) are registered only on the subcommand that will parse them; with no command or an
  // option first (`dpadmm --help`), on every subcommand.
  CommandLine(std::ostream& err, std::string_view command) : err_(err) {
    const auto wanted = [command](std::string_view name) {
      return command.empty() || command.front() == '-' || command == name;
    };
    app_.set_version_flag("--version", DPADMM_VERSION);
    app_.require_subcommand(1);
    app_.footer(kExitCodeHelp);

    const std::string footer =
        std::string(
            "The spec is built from the defaults of the algorithm's family, then --config "
            "FILE, then the\nflags given here (flags override the file). --print-config "
            "shows the result as JSON; it is a\nvalid --config.\n") +
        kExitCodeHelp;
    run_ = app_.add_subcommand(
        "run",
        "Run one experiment of either family; the algorithm selects it.\n"
        "Consensus (admm, dvp, pvp, madmm, radmm, mradmm, private_mradmm, pdml): N nodes learn "
        "one "
        "classifier\nby (private) consensus ADMM. Sharing (sharing, sgd): parties hold column "
        "blocks, a coordinator the labels (001).\nWithout options: the main job, non-private ADMM "
        "on generated twonorm data, 10 nodes on a random\ngraph with 13 edges.");
    run_->option_defaults()->always_capture_default();
    run_->footer(footer);
    if (wanted("run")) {
      flags_ = std::make_unique<SpecFlags>(*run_, /*sharing_alias=*/false);
      AddOutputOptions(*run_, output_);
    }

    sharing_ = app_.add_subcommand(
        "sharing",
        "Alias of `dpadmm run --algorithm sharing` with the vertical family's defaults (001): "
        "non-private ADMM sharing,\n2 parties, on generated sparse data (2,000 rows x 200 "
        "features). --algorithm admm | sgd as before.");
    sharing_->option_defaults()->always_capture_default();
    sharing_->footer(footer);
    sharing_output_.trace = "dpadmm-sharing-trace.csv";
    sharing_output_.summary = "dpadmm-sharing-summary.json";
    if (wanted("sharing")) {
      sharing_flags_ = std::make_unique<SpecFlags>(*sharing_, /*sharing_alias=*/true);
      AddOutputOptions(*sharing_, sharing_output_);
    }

    predict_ = std::make_unique<PredictCommand>(app_);  // `dpadmm predict`
    audit_ = std::make_unique<AuditCommand>(app_);      // `dpadmm audit`
    sweep_ = std::make_unique<SweepCommand>(app_);      // `dpadmm sweep`, with the run's spec flags
    if (wanted("sweep")) {
      sweep_flags_ = std::make_unique<SpecFlags>(sweep_->app(), /*sharing_alias=*/false);
    }
  }
  CommandLine(const CommandLine&) = delete;
  CommandLine& operator=(const CommandLine&) = delete;

  // Parses argv; an exit code if the program ends here (--help, --version, a usage error).
  std::optional<int> Parse(int argc, char** argv) {
    // CLI11 would only say "A subcommand is required" for a misspelt command; name it instead.
    if (argc > 1 && argv[1][0] != '-' && std::strcmp(argv[1], "run") != 0 &&
        std::strcmp(argv[1], "sharing") != 0 && std::strcmp(argv[1], "predict") != 0 &&
        std::strcmp(argv[1], "audit") != 0 && std::strcmp(argv[1], "sweep") != 0) {
      err_ << "dpadmm: error: unknown command '" << argv[1]
           << "' (available: run, sharing, predict, audit, sweep; see dpadmm --help)\n";
      return kExitBadInput;
    }
    try {
      app_.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
      if (e.get_exit_code() == 0) return app_.exit(e);  // --help, --version
      err_ << "dpadmm: error: " << e.what() << " (see dpadmm "
           << (run_->parsed()       ? "run "
               : sharing_->parsed() ? "sharing "
               : predict_->parsed() ? "predict "
               : audit_->parsed()   ? "audit "
               : sweep_->parsed()   ? "sweep "
                                    : "")
           << "--help)\n";
      return kExitBadInput;
    }
    return std::nullopt;
  }

  // Runs the parsed command.
  int Execute(std::chrono::steady_clock::time_point started) {
    if (run_->parsed() || sharing_->parsed()) {
      // Ctrl-C and SIGTERM stop a run (exit 4, outputs complete) from here on, on every rank
      // under MPI: a signal during the checks or the set-up cancels the run at its first round;
      // mpirun sends SIGTERM to every rank, and a rank that died of it would take the job down
      // with rank 0's outputs half-written. A second signal kills the usual way.
      CatchStopSignal(SIGINT);
      CatchStopSignal(SIGTERM);
    }
    const int code = Guarded([&] {
      if (predict_->parsed()) return predict_->Run();
      if (audit_->parsed()) return audit_->Run();
      if (sweep_->parsed()) return RunSweepCommand();
      if (sharing_->parsed()) return Run(*sharing_flags_, sharing_output_, started);
      return Run(*flags_, output_, started);
    });
    // Under MPI an error seen by one rank must end all of them (the others may be waiting for
    // it in a collective or a round): MPI_Abort with the exit code, after naming the rank.
    // Outcomes (completed, diverged, failed, ...) are known to every rank: a normal return.
    if (g_mpi && failed_) {
      err_.flush();
      runtime::MpiSession::Abort(code);
    }
    g_mpi.reset();  // MPI_Finalize
    return code;
  }

  // Only the checks before a run (spec, outputs, limits): 0 if the run would start.
  int CheckOnly() {
    return Guarded([&] {
      if (predict_->parsed() || audit_->parsed()) return int{kExitOk};
      if (sweep_->parsed()) SweepBase();
      if (sharing_->parsed()) CheckBeforeRun(*sharing_flags_, sharing_output_);
      if (run_->parsed()) CheckBeforeRun(*flags_, output_);
      return int{kExitOk};
    });
  }

 private:
  // Maps the exceptions of a command to messages and exit codes (naming the rank under MPI).
  template <class F>
  int Guarded(F&& f) {
    const std::string where =
        g_mpi && g_mpi->size() > 1 ? "rank " + std::to_string(g_mpi->rank()) + ": " : std::string();
    failed_ = true;
    try {
      const int code = f();
      failed_ = false;
      return code;
    } catch (const runtime::MpiError& e) {
      err_ << "dpadmm: error: " << e.what() << '\n';
      return kExitFailed;
    } catch (const InputError& e) {
      err_ << "dpadmm: error: " << where << UserMessage(e.what()) << '\n';
      return kExitBadInput;
    } catch (const std::invalid_argument& e) {
      err_ << "dpadmm: error: " << where << UserMessage(e.what()) << '\n';
      return kExitBadInput;
    } catch (const OutputError& e) {
      err_ << "dpadmm: error: " << where << e.what() << '\n';
      return kExitOutput;
    } catch (const std::bad_alloc&) {
      err_ << "dpadmm: error: " << where << "out of memory"
           << (g_inputs.empty() ? std::string() : " while running on " + g_inputs)
           << "; reduce the sizes (the estimate before the run cannot see every size a data "
              "file implies)\n";
      return kExitBadInput;
    } catch (const std::length_error& e) {
      err_ << "dpadmm: error: " << where << "a size is too large"
           << (g_inputs.empty() ? std::string() : " for " + g_inputs) << " (" << e.what() << ")\n";
      return kExitBadInput;
    } catch (const std::exception& e) {
      err_ << "dpadmm: internal error: " << where << e.what() << '\n';
      return kExitInternal;
    }
  }

  // `dpadmm sweep`: the base spec from its --config and the run's flags.
  RunSpec SweepBase() const {
    sweep_->TakeDelta();
    OutputOptions o;
    o.config = sweep_->config();
    return BuildSpec(*sweep_flags_, o);
  }
  int RunSweepCommand() {
    CatchStopSignal(SIGINT);
    CatchStopSignal(SIGTERM);
    const int code = sweep_->Run(SweepBase(), &g_stop);
    RestoreStopSignals();
    return code;
  }

  bool failed_ = false;  // the last Guarded call ended in an exception
  std::ostream& err_;
  CLI::App app_{"dpadmm: differentially private distributed learning with ADMM", "dpadmm"};
  CLI::App* run_ = nullptr;
  CLI::App* sharing_ = nullptr;
  std::unique_ptr<SpecFlags> flags_, sharing_flags_;
  OutputOptions output_, sharing_output_;
  std::unique_ptr<PredictCommand> predict_;
  std::unique_ptr<AuditCommand> audit_;
  std::unique_ptr<SweepCommand> sweep_;
  std::unique_ptr<SpecFlags> sweep_flags_;
};

int Main(int argc, char** argv) {
  const auto started = std::chrono::steady_clock::now();
  CommandLine command_line(std::cerr, argc > 1 ? argv[1] : "");
  if (const std::optional<int> code = command_line.Parse(argc, argv)) return *code;
  return command_line.Execute(started);
}

}  // namespace

int CheckCommandLine(int argc, char** argv, std::ostream& err) {
  g_inputs.clear();
  CommandLine command_line(err, argc > 1 ? argv[1] : "");
  if (const std::optional<int> code = command_line.Parse(argc, argv)) return *code;
  return command_line.CheckOnly();
}

}  // namespace dpadmm::cli

#ifndef DPADMM_CLI_NO_MAIN
int main(int argc, char** argv) { return dpadmm::cli::Main(argc, argv); }
#endif
