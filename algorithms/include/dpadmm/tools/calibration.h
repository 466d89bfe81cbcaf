// SPDX-License-Identifier: Apache-2.0
// Calibration of a private algorithm's noise knob to a total epsilon, without a training run.
//
//   dpadmm::Experiment prepared(spec);  // graph and partition fix every node's B_i and V_i
//   dpadmm::CalibrationResult c = dpadmm::CalibrateToEpsilon(spec, prepared, 1.0);
//   // spec.algorithm's alpha now gives a tight total epsilon of 1 (max over nodes) at 1e-5
//
// The tight figure is the one every private consensus run reports in its summary
// (RunSummary::tight_epsilon): the optimal composition of the per-round pure-epsilon terms its
// paper gives (privacy/accounting.h, ComposeTight). Those terms depend only on public
// quantities (the schedule, C, rho, eta, the loss's c1, each node's B_i and V_i), so the total a
// run will spend is known before it starts, and the knob is found by bisection on it:
//   dvp, pvp, madmm, private_mradmm  algorithm.<name>.alpha (a larger alpha = less noise);
//   sharing (dp, "gaussian")         algorithm.sharing.total_epsilon (its sigma is derived from
//                                    it by the sharing driver; tight per party at its delta).
//   pdml                             algorithm.pdml.V (decay fixed; Phase 2's Gaussian primal
//                                    noise, composed exactly, a larger V = less epsilon).
//   local, average, central          algorithm.<name>.epsilon, set to the target directly: each
//                                    node releases once, by a mechanism calibrated to it.
// Not calibrated: the sharing variant "paper16" (not DP as stated), the non-private algorithms.
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "dpadmm/run/run.h"
#include "dpadmm/run/run_spec.h"

namespace dpadmm {

struct CalibrationResult {
  std::string knob;     // the field set, "algorithm.dvp.alpha" or "algorithm.sharing.total_epsilon"
  double value = 0.0;   // its calibrated value
  double target = 0.0;  // the target total epsilon
  double epsilon = 0.0;  // the tight total epsilon (max over nodes) that `value` gives, <= target
  // The figure's delta: the `delta` asked for (the composition's) plus, for the l2-Laplace
  // algorithms (dvp, pvp, madmm, private_mradmm, when `features` is given), the floating-point
  // delta every release of the run adds (SnappedReleaseDelta, max over nodes), as the run's
  // summary reports it (RunSummary::tight_delta).
  double delta = 0.0;
  int evaluations = 0;  // accountant evaluations of the bisection
};

// Relative accuracy of the calibration: target (1 - kCalibrationTolerance) <= epsilon <= target.
inline constexpr double kCalibrationTolerance = 1e-4;

// True if CalibrateToEpsilon supports spec's algorithm (dvp, pvp, madmm, private_mradmm, pdml,
// sharing with the "gaussian" mechanism, local, average, central).
bool CanCalibrate(Algorithm algorithm);

// Per node, the paper's per-round privacy term of rounds 1..AlgorithmRounds(spec) (0 for a
// round without noise; the gossip rounds that end a run release nothing and have no entry), exactly
// as the node programs compute it (ConsensusNode::PrivacyLoss), for a private consensus algorithm
// on a graph with node degrees `degrees` and `rows_per_node` training rows per node. A privacy
// budget is not applied (a frozen node would spend less).
std::vector<std::vector<double>> PlannedReleaseCosts(
    const RunSpec& spec, const std::vector<int>& degrees,
    const std::vector<std::int64_t>& rows_per_node);

// max over nodes of ComposeTight(costs of node i, delta): the run's summary tight_epsilon (nodes
// whose terms are dominated round by round by another node's are skipped: their figure cannot
// be larger).
double MaxTightEpsilon(const std::vector<std::vector<double>>& per_node_costs, double delta);

// Sets spec's knob so that the run's tight total epsilon per node (max over nodes) at `delta`
// is within kCalibrationTolerance below `target`. Bisection on log(knob) (the tight epsilon is
// increasing in alpha; every evaluation is checked against that, a violation is a logic_error).
// Throws InputError naming the field when the algorithm cannot be calibrated, when its knob
// has per-node values (node_alpha), when a privacy budget is set, or when the target is out
// of reach (M-ADMM and private MR-ADMM spend a positive epsilon even as alpha -> 0: the message
// gives that floor).
// `features` (the model's dimension d) is needed by pdml (its lattice term sqrt(d) step) and
// gives the l2-Laplace algorithms' figure its sampler's delta (CalibrationResult::delta).
CalibrationResult CalibrateToEpsilon(RunSpec& spec, const std::vector<int>& degrees,
                                     const std::vector<std::int64_t>& rows_per_node, double target,
                                     double delta = kTightDelta, std::int64_t features = 0);
// The same with the degrees and rows of a prepared experiment of the same data, graph and seed
// (its own spec's knob is not read).
CalibrationResult CalibrateToEpsilon(RunSpec& spec, const Experiment& prepared, double target,
                                     double delta = kTightDelta);

}  // namespace dpadmm
