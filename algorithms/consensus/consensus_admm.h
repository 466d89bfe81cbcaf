// SPDX-License-Identifier: Apache-2.0
// The consensus family of 004, 002 and 003: one node program per algorithm, picked by
// MakeConsensusNode (the only place that maps a variant to its program). PDML (000) has its own
// program, pdml_node.h. The programs and the equations they implement are listed in README.md.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <Eigen/Dense>

#include "consensus/consensus_node.h"
#include "dpadmm/data/dataset.h"
#include "dpadmm/privacy/baseline_mechanisms.h"
#include "dpadmm/solver/local_solver.h"

namespace dpadmm {

// kLocal serves both `local` and `central` (one node holding every row); kAverage is `average`
// (baseline_nodes.h).
enum class ConsensusVariant {
  kAdmm,
  kDvp,
  kPvp,
  kMadmm,
  kRadmm,
  kMradmm,
  kPrivateMradmm,
  kLocal,
  kAverage
};
bool IsPrivate(ConsensusVariant v, double alpha);

// Parameters of one node (already resolved from the spec's scalars and per-node vectors).
struct ConsensusNodeParams {
  ConsensusVariant variant = ConsensusVariant::kAdmm;
  double C = 1750.0;
  double rho_node = 0.022;  // the node's regulariser weight rho_i
  int num_nodes = 1;        // N
  double eta = 0.5;         // base penalty (theta for M-ADMM)
  double q1 = 1.0;          // penalty growth
  double alpha = 0.0;       // privacy parameter of the first noisy round; 0 = no noise
  double q2 = 1.0;          // its geometric factor
  double gamma = 0.5;       // R-ADMM even-step term
  double dual_step = 0.0;   // M-ADMM theta for the dual update; 0 = eta_i(1)
  // PVP's Gaussian mechanism (PvpParams): sigma_i = noise_multiplier x the update's
  // sensitivity; 0 = the l2-Laplace mechanism of alpha.
  double noise_multiplier = 0.0;
  // Set: simulation mode, the node's noise key is derived from it (reproducible, not private);
  // unset: private mode, the key comes from the operating system (privacy/noise_key.h).
  std::optional<std::uint64_t> noise_seed;
  // The node's own privacy budget, enforced by its release (0 = none): a round whose loss
  // would take the node's spent loss above it is refused and the node freezes.
  double privacy_budget = 0.0;
  // The baselines (local, average, central; baseline_nodes.h): the release's mechanism, its
  // epsilon (> 0) and, for the Gaussian mechanism, its delta; average: the degree of each
  // neighbour in inbox order (public: the graph is), for the Metropolis-Hastings weights.
  BaselineMechanism mechanism = BaselineMechanism::kObjective;
  double epsilon = 0.0;
  double delta = 0.0;
  std::vector<int> neighbour_degrees;
  // average under row weighting: the gossip starts from gossip_scale x_i, gossip_scale =
  // B_i / B_bar, and reads neighbour j's round-1 release as neighbour_gossip_scales[k] x_j
  // (inbox order); empty: every scale 1 (the plain mean).
  double gossip_scale = 1.0;
  std::vector<double> neighbour_gossip_scales;
  // The gossip tail (RunSpec algorithm.gossip_rounds): rounds >= gossip_from average the
  // releases with the neighbours (neighbour_degrees: their degrees, for the weights); 0 = none.
  std::int64_t gossip_from = 0;
};

// The node program of `params.variant` for node `id` with training rows `data` (which must
// outlive the program), `degree` neighbours and initial model f0.
std::unique_ptr<ConsensusNode> MakeConsensusNode(int id, const Dataset& data, int degree,
                                                 const Loss& loss, const NewtonOptions& newton,
                                                 const ConsensusNodeParams& params,
                                                 Eigen::VectorXd f0);

}  // namespace dpadmm
