// SPDX-License-Identifier: Apache-2.0
#include "command_common.h"

#include <atomic>
#include <cerrno>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <utility>

#include "dpadmm/core/error.h"

namespace dpadmm::cli {

runtime::StopToken g_stop;
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

void RestoreStopSignals() {
  for (int signal_number : {SIGINT, SIGTERM}) {
    if (std::signal(signal_number, SIG_DFL) == SIG_IGN) std::signal(signal_number, SIG_IGN);
  }
}

std::string g_inputs;

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

}  // namespace dpadmm::cli
