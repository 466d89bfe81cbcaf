// SPDX-License-Identifier: Apache-2.0
// The epsilon policy: a private algorithm's settings chosen from public quantities only.
//
//   dpadmm::PublicQuantities q{1.0, 1e-5, degrees, rows_per_node, features, 0.25};
//   dpadmm::EpsilonSettings s = dpadmm::ChooseEpsilonSettings(dpadmm::Algorithm::kPvp, q);
//   dpadmm::ApplyEpsilonSettings(spec, s);  // then CalibrateToEpsilon sets the noise knob
//
// When a run gives a target epsilon (RunSpec::target_epsilon, with epsilon_policy on), the
// settings a paper tuned for its non-private runs (C 1750, 100 rounds, its penalties) would
// leave the calibration only the noise knob, and the noise would swamp the model. The policy
// picks the rounds, the loss weight, the regulariser, the penalty and the mechanism from the
// target (epsilon, delta), the graph's degrees, the rows per node (public in the spec) and the
// number of features; the calibration then sets the noise. Nothing here reads a row, so two
// data sets with the same public quantities get the same settings. The rule and its
// derivation: algorithms/privacy/README.md, "The epsilon policy".
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "dpadmm/run/choices.h"
#include "dpadmm/run/run_spec.h"

namespace dpadmm {

// What the policy may read: public by the spec (the graph and the partition sizes are public in
// every privacy claim of the consensus family).
struct PublicQuantities {
  double epsilon = 1.0;                     // the target total epsilon per node
  double delta = 1e-5;                      // its delta
  std::vector<int> degrees;                 // V_i per node
  std::vector<std::int64_t> rows_per_node;  // B_i per node
  std::int64_t features = 1;                // d (the model's dimension)
  double curvature = 0.25;                  // the loss's bound c on L'' (Loss::CurvatureBound)
  // The bound on one record's loss gradient |L'| that the release's sensitivity reads: 1, or
  // PDML's 1 + DW_max (the largest debiasing weight over the public label eps levels).
  double gradient_bound = 1.0;
};

// The settings the policy sets (the noise knob is left to the calibration).
struct EpsilonSettings {
  int iterations = 0;     // rounds after round 0
  int gossip_rounds = 0;  // the last of them that only average the releases (0 = none)
  double C = 1.0;         // loss weight: weights C / B_i (node), C / B_bar (row)
  // row for dvp, pvp, madmm, private_mradmm and average (every row weighs C / B_bar, so every
  // node's release has the same sensitivity); node for local and central.
  Weighting weighting = Weighting::kNode;
  double rho = 0.0;              // the regulariser per node (rho_per_node true)
  double eta = 0.0;              // the ADMM penalty (with node_eta: their largest)
  std::vector<double> node_eta;  // madmm: one penalty per node; empty: eta at every node
  std::string pvp_mechanism;     // pvp: "gaussian"; empty for the others
  int nodes = 0;                 // N (pdml carries rho as N rho_i)
  // The quantity the rule is a function of: mu B, with mu the Gaussian mechanism's mu for the
  // target (epsilon, delta) and B the mean rows per node B_bar under row weighting, the
  // smallest B_min under node weighting (reported, for the README's table).
  double privacy_rows = 0.0;
};

// True for the algorithms the policy covers: dvp, pvp, madmm, private_mradmm, pdml and the
// baselines local, average, central.
bool HasEpsilonPolicy(Algorithm algorithm);

// The policy's settings for `algorithm` (InputError if it has none, or a quantity is invalid).
EpsilonSettings ChooseEpsilonSettings(Algorithm algorithm, const PublicQuantities& q);

// Writes `s` into `spec` (iterations, gossip rounds, C, weighting, rho with rho_per_node, eta;
// pvp's mechanism with a starting noise multiplier of 1; pdml's rho as N rho_i, decay 1, R 0).
// Per-node penalties (node_eta) are replaced by the settings' (empty but for madmm).
void ApplyEpsilonSettings(RunSpec& spec, const EpsilonSettings& s);

// The policy applied to `spec` for a target of q.epsilon when spec.epsilon_policy is set and
// the algorithm has one (ChooseEpsilonSettings, then ApplyEpsilonSettings); returns
// DescribeEpsilonSettings' line, or "" when nothing was applied.
std::string ApplyEpsilonPolicy(RunSpec& spec, const PublicQuantities& q);

// The applied settings in one line ("rounds 10, C 1, row weighting, rho 0.01 per node, eta 0.5,
// gaussian mechanism; from mu B_bar = 12.3"), for summaries.
std::string DescribeEpsilonSettings(const RunSpec& spec, const EpsilonSettings& s);

}  // namespace dpadmm
