// SPDX-License-Identifier: Apache-2.0
// `dpadmm audit`: the empirical privacy audit of one mechanism set-up
// (dpadmm/tools/audit.h; method in algorithms/privacy/README.md, "Empirical audit").
// Prints the mechanism, the neighbouring pair, the runs per side, the statistic, FPR/FNR with
// their Clopper-Pearson bounds, the epsilon lower bound, the accountant's epsilon for the same
// releases, their ratio and PASS (eps_lb <= claim) or FAIL; --json prints one JSON object
// instead. Exit codes: 0 PASS, 7 FAIL, 2 bad input, 1 internal error.
#pragma once

#include <cstdint>
#include <string>

#include <CLI/CLI.hpp>

namespace dpadmm::cli {

// The exit code of an audit whose lower bound exceeds the claim.
constexpr int kExitAuditFail = 7;

class AuditCommand {
 public:
  // Adds the subcommand to `app`.
  explicit AuditCommand(CLI::App& app);
  AuditCommand(const AuditCommand&) = delete;
  AuditCommand& operator=(const AuditCommand&) = delete;

  bool parsed() const { return sub_->parsed(); }
  // Runs the parsed command; returns the exit code. Throws InputError for bad input.
  int Run() const;

 private:
  CLI::App* sub_;
  std::string algorithm_, loss_ = "smooth_hinge", mechanism_ = "objective";
  int rounds_ = 1, threads_ = 0;
  std::int64_t runs_ = 10000, rows_ = 0, dim_ = 0;
  std::uint64_t seed_ = 1, noise_seed_ = 0;
  double delta_ = 1e-5, alpha_ = 0.0, eta_ = 0.0, C_ = 0.0, rho_ = 0.0, epsilon_ = 0.0;
  double confidence_ = 0.95;
  bool json_ = false;
};

}  // namespace dpadmm::cli
