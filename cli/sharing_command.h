// `dpadmm sharing`: learning over vertically partitioned features by ADMM sharing (001), its
// private version, or the SGD baseline. Spec = SharingSpec defaults, then --config JSON, then
// the flags given. Writes a CSV trace (one row per epoch) and a JSON summary; prints a short
// summary on stdout. Exit codes as `dpadmm run`: 0 completed, 2 bad input, 3 diverged,
// 4 cancelled, 1 internal error.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>

#include "dpadmm/sharing/sharing.h"
#include "dpadmm/runtime/engine.h"

namespace dpadmm::cli {

class SharingCommand {
 public:
  // Adds the subcommand to `app`.
  explicit SharingCommand(CLI::App& app);
  SharingCommand(const SharingCommand&) = delete;
  SharingCommand& operator=(const SharingCommand&) = delete;

  bool parsed() const { return sub_->parsed(); }
  // Runs the parsed command; returns the exit code. Throws InputError for bad input.
  int Run(const runtime::StopToken* stop, std::chrono::steady_clock::time_point started) const;

 private:
  template <class Field>
  CLI::Option* Value(const std::string& name, Field field, const std::string& help);
  template <class Field>
  CLI::Option* Switch(const std::string& name, Field field, bool when_given, const std::string& help);

  CLI::App* sub_;
  SharingSpec flags_;
  std::vector<std::pair<CLI::Option*, std::function<void(SharingSpec&)>>> bindings_;
  std::vector<std::shared_ptr<bool>> switches_;
  std::string config_, trace_ = "dpadmm-sharing-trace.csv", summary_ = "dpadmm-sharing-summary.json";
  bool quiet_ = false, print_config_ = false;
};

}  // namespace dpadmm::cli
