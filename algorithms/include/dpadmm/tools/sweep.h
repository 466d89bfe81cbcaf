// SPDX-License-Identifier: Apache-2.0
// Privacy-utility sweep: test accuracy against the total epsilon for several private algorithms
// on one data set, with the non-private ADMM line, the centralized line and the majority rate.
//
//   dpadmm::SweepOptions o;
//   o.base.data.source = dpadmm::DataSource::kAdult;   // data, graph, iterations, seed
//   o.algorithms = {dpadmm::Algorithm::kDvp, dpadmm::Algorithm::kPvp};
//   o.epsilons = {0.1, 1, 10};
//   o.seeds = 5;
//   dpadmm::SweepResult r = dpadmm::RunSweep(o, progress, &stop);
//
// Every cell (algorithm, epsilon) runs `seeds` repetitions. Repetition r uses data/split/graph
// seed base.seed + r AND noise seed base.noise_seed (or base.seed) + r: simulation mode
// (reproducible noise; the runs are not private, the result is labelled so). In each repetition
// the algorithm's noise knob is calibrated (tools/calibration.h) so that its tight total
// epsilon per node at `delta` is the cell's epsilon, on that repetition's graph and partition.
// Algorithm parameters other than the knob are the algorithm's defaults
// (RunSpec::Defaults(algorithm).algorithm), the rest (data, graph, partition, loss, newton,
// iterations, engine) comes from `base`. The data preparation is the same in every run: a base
// scaling of "auto" is resolved as a private run would resolve it (public-bounds when bounds
// are given, else clip-only), so the private and the reference lines see the same rows.
//
// Reference lines per repetition: non-private consensus ADMM (RunSpec::Defaults(kAdmm)'s
// parameters) on the same data, graph and partition; the centralized optimum's test accuracy
// (RunInfo::optimum_test_error of that run); the majority-class rate of the test set.
//
// Band: the 95% t-interval of the mean over the seeds, mean +- t_{0.975, n-1} s / sqrt(n)
// (s the sample standard deviation), clipped to [0, 1]; NaN for a single seed.
//
// Thread safety: RunSweep may run on any thread; the progress callback is called on that thread.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "dpadmm/run/choices.h"
#include "dpadmm/run/run_spec.h"
#include "dpadmm/runtime/engine.h"

namespace dpadmm {

struct SweepOptions {
  RunSpec base;                       // data, graph, partition, iterations, seed, engine, threads
  std::vector<Algorithm> algorithms;  // each must be CanCalibrate (calibration.h)
  std::vector<double> epsilons;       // total epsilon per node (sharing: per party), each > 0
  double delta = kTightDelta;         // in (0, 1)
  int seeds = 3;                      // repetitions, >= 1
  bool reference_lines = true;        // also run non-private ADMM (centralized, majority lines)
  // Throws InputError naming the field.
  void Validate() const;
};

// Mean and 95% band of one quantity over the seeds.
struct SweepStat {
  std::vector<double> values;  // one per seed (in order of the repetitions)
  double mean = 0.0;
  double low = 0.0, high = 0.0;  // t-interval clipped to [0, 1]; NaN for fewer than 2 values
};
SweepStat Summarize(std::vector<double> values);

struct SweepCell {
  Algorithm algorithm = Algorithm::kDvp;
  double epsilon = 0.0;                  // target total epsilon
  SweepStat accuracy;                    // test accuracy in [0, 1]
  std::string knob;                      // calibrated field, "algorithm.dvp.alpha"
  std::vector<double> knob_values;       // per seed
  std::vector<double> achieved_epsilon;  // per seed: the calibrated tight total (<= epsilon)
  std::vector<std::string> outcomes;     // per seed: ToString(RunOutcome)
};

struct SweepResult {
  std::vector<SweepCell> cells;  // algorithm-major, in the options' order
  SweepStat admm;                // non-private consensus ADMM test accuracy
  SweepStat centralized;         // the centralized optimum's test accuracy
  SweepStat majority;            // majority-class rate of the test set
  double delta = 0.0;
  int seeds = 0;
  std::string dataset;  // RunInfo::dataset of the first run
  std::string band = "95% t-interval of the mean over seeds, clipped to [0, 100] %";
  std::string noise = "simulation: noise seeded per repetition (reproducible, not private)";
  bool cancelled = false;  // stop requested: the cells hold what finished
};

// done / total runs; `what` names the run that just finished ("dvp eps=1 seed 2").
using SweepProgress = std::function<void(int done, int total, const std::string& what)>;

SweepResult RunSweep(const SweepOptions& options, const SweepProgress& progress = {},
                     const runtime::StopToken* stop = nullptr);

// One CSV: header, then one row per (algorithm, epsilon) and one per reference line
// (algorithm "admm (non-private)", "centralized", "majority", epsilon empty):
// algorithm,epsilon,delta,seeds,accuracy_mean,accuracy_low,accuracy_high,accuracy_per_seed,
// knob,knob_per_seed,achieved_epsilon_max. Per-seed values separated by ';'. Accuracies in %.
std::string SweepToCsv(const SweepResult& result);

}  // namespace dpadmm
