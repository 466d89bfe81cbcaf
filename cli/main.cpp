// SPDX-License-Identifier: Apache-2.0
// dpadmm: the command-line front end.
//
//   dpadmm run [options]      one experiment of either family; cli/run_command.h
//   dpadmm sharing [options]  alias: the vertical family (001) with its defaults and old flags
//   dpadmm party --config F   one party of a run across organisations; cli/party_command.h
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
//
// This file only parses and dispatches: each command, the flag table (spec_flags.h), the trace
// writer, the progress display and what the commands share have their own files
// (cli/README.md).

#include <chrono>
#include <csignal>
#include <cstring>
#include <exception>
#include <iostream>
#include <memory>
#include <new>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include <CLI/CLI.hpp>

#include "audit_command.h"
#include "check_command_line.h"
#include "command_common.h"
#include "dpadmm/core/error.h"
#include "dpadmm/runtime/mpi.h"
#include "output_files.h"
#include "party_command.h"
#include "predict_command.h"
#include "run_command.h"
#include "spec_flags.h"
#include "sweep_command.h"

#ifndef DPADMM_VERSION
#define DPADMM_VERSION "unknown"
#endif

namespace dpadmm::cli {
namespace {

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
            "shows the result as JSON; it is a\nvalid --config.\n"
            "Private by default: dvp, pvp (alpha 0.15, eta 30), madmm (alpha 20, q1 1.02, eta "
            "200),\nprivate_mradmm (alpha 0.02, q1 1.02, eta 200) and pdml (label eps 1, V 0.5, "
            "decay 1, R 1,\nC 1, rho 0.01, eta 0.1) print a finite epsilon with their defaults; "
            "--non-private turns\nthe noise off (pdml; sharing is private with --dp only); the "
            "non-private counterpart of\ndvp, pvp and madmm is admm, of private_mradmm "
            "mradmm.\n"
            "Baselines at the same epsilon (--epsilon 1 per node, --mechanism objective | "
            "gaussian): local (every\nnode alone, one release; its test error is the mean over "
            "the nodes' own models), average\n(local's releases averaged by gossip) and central "
            "(one curator holding every row: it NEEDS A\nCURATOR EVERY PARTY TRUSTS).\n") +
        kExitCodeHelp;
    run_ = app_.add_subcommand(
        "run",
        "Run one experiment of either family; the algorithm selects it.\n"
        "Consensus (admm, dvp, pvp, madmm, radmm, mradmm, private_mradmm, pdml; baselines "
        "local, average,\ncentral): N nodes learn one classifier by (private) consensus "
        "ADMM.\nSharing (sharing, "
        "sgd): parties hold column blocks, a coordinator the labels (001).\nWithout options: the "
        "main job, non-private ADMM "
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
    party_ = std::make_unique<PartyCommand>(app_);      // `dpadmm party`
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
        std::strcmp(argv[1], "audit") != 0 && std::strcmp(argv[1], "sweep") != 0 &&
        std::strcmp(argv[1], "party") != 0) {
      err_ << "dpadmm: error: unknown command '" << argv[1]
           << "' (available: run, sharing, party, predict, audit, sweep; see dpadmm --help)\n";
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
               : party_->parsed()   ? "party "
                                    : "")
           << "--help)\n";
      return kExitBadInput;
    }
    return std::nullopt;
  }

  // Runs the parsed command.
  int Execute(std::chrono::steady_clock::time_point started) {
    if (run_->parsed() || sharing_->parsed() || party_->parsed()) {
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
      if (party_->parsed()) return party_->Run(started);
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
      if (predict_->parsed() || audit_->parsed() || party_->parsed()) return int{kExitOk};
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
  std::unique_ptr<PartyCommand> party_;
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
