// SPDX-License-Identifier: Apache-2.0
// `dpadmm sweep`: test accuracy against the total epsilon (dpadmm/tools/sweep.h) for
// chosen private algorithms on one data set. Writes DIR/sweep.csv and DIR/sweep.svg (log x axis
// epsilon, y test accuracy in %, 95% bands, lines for non-private ADMM, the centralized optimum
// and the majority class) and prints the table. The data, graph and run flags are those of
// `dpadmm run` (registered on the same subcommand by main.cpp); each algorithm runs with its
// defaults except the calibrated noise knob. Exit codes: 0 done, 2 bad input, 4 cancelled,
// 6 an output file could not be written.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "dpadmm/run/run_spec.h"
#include "dpadmm/runtime/engine.h"
#include "dpadmm/tools/sweep.h"

namespace dpadmm::cli {

// The plot of a sweep as a standalone SVG document.
std::string SweepToSvg(const SweepResult& result);

class SweepCommand {
 public:
  // Adds the subcommand to `app`.
  explicit SweepCommand(CLI::App& app);
  SweepCommand(const SweepCommand&) = delete;
  SweepCommand& operator=(const SweepCommand&) = delete;

  CLI::App& app() { return *sub_; }
  const std::string& config() const { return config_; }
  bool parsed() const { return sub_->parsed(); }
  // Once the run's flags are registered on app(): --delta's help says what it means here.
  void AdoptRunFlags();
  // After parsing, before the run's flags are applied to the base spec: takes --delta (the
  // delta of every total epsilon; the flag itself is registered by the run's flags).
  void TakeDelta();
  // Runs the parsed command from the base spec (data and run flags, --config); returns the exit
  // code. Throws InputError for bad input, OutputError for an unwritable output.
  int Run(const RunSpec& base, const runtime::StopToken* stop) const;

 private:
  CLI::App* sub_;
  std::string config_, out_ = "dpadmm-sweep";
  std::vector<std::string> algorithms_{"dvp", "pvp", "madmm", "private_mradmm"};
  std::vector<double> epsilons_{0.1, 0.3, 1.0, 3.0, 10.0};
  int seeds_ = 3;
  double delta_ = kTightDelta;
  bool quiet_ = false, no_reference_ = false;
};

}  // namespace dpadmm::cli
