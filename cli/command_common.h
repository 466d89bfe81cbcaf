// SPDX-License-Identifier: Apache-2.0
// What every command of the dpadmm command shares: the exit codes, Ctrl-C (the stop token and
// the signal routing), the small text helpers of stdout/stderr, the MPI session of
// `run --engine mpi`, and the library messages in the user's words.
#pragma once

#include <optional>
#include <string>

#include "dpadmm/run/run.h"
#include "dpadmm/runtime/engine.h"
#include "dpadmm/runtime/mpi.h"

namespace dpadmm::cli {

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

extern runtime::StopToken g_stop;
// Set while `run --engine mpi` runs: MPI is initialised (MPI_Finalize when reset).
extern std::optional<runtime::MpiSession> g_mpi;
// Set once the spec is known: what a run is reading, named by an out-of-memory message.
extern std::string g_inputs;

// Routes `signal_number` to a stop request of g_stop (a second signal kills the process the
// usual way), unless the parent asked for it to be ignored (as shells do for SIGINT of
// background jobs).
void CatchStopSignal(int signal_number);
// SIGINT and SIGTERM back to their defaults (ignored ones stay ignored).
void RestoreStopSignals();

// ---------------------------------------------------------------------------------------------
// Small formatting helpers (stdout/stderr text only; the files use spec_json.h).

std::string Fmt(const char* format, double value);
std::string Percent(double fraction);
std::string Seconds(double s);
[[noreturn]] void Fail(const std::string& message);  // throws InputError
// The whole file at `path`; InputError naming it and `what` ("config file") if unreadable.
std::string ReadFile(const std::string& path, const char* what);

// The exit code of a run's outcome.
int ExitCodeOf(RunOutcome outcome);

// Library messages name the function that rejected an input ("PartitionEven: 7 rows ...");
// the user knows the flags, so those names are replaced by the flag's words.
std::string UserMessage(std::string message);

}  // namespace dpadmm::cli
