// SPDX-License-Identifier: Apache-2.0
// The three baselines every private consensus algorithm is compared with, at the same epsilon
// (algorithms/privacy/README.md, "The baselines' mechanisms"):
//
//  - local (LocalNode): node i trains on its own rows only and releases, in round 1, the
//    minimiser of  J_i(f) = (C/B_i) sum_n L(y_n f^T x_n) + (rho_i/2) ||f||^2  perturbed by its
//    mechanism (objective perturbation, Chaudhuri et al. 2011 Algorithm 2, or Gaussian output
//    perturbation). It never reads a neighbour's message; rounds 2..T resend the round-1
//    release, post-processing at no cost.
//  - central (LocalNode on a one-node graph holding every training row): the same release by a
//    curator that every party trusts with its rows; the ceiling of what privacy at that epsilon
//    allows.
//  - average (AverageNode): round 1 is local's release; rounds 2..T average the released models
//    by gossip with Metropolis-Hastings weights,
//        x_i <- x_i + sum_j w_ij (x_j - x_i),   w_ij = 1 / (1 + max(V_i, V_j)),
//    which keeps the mean of the round-1 releases and converges to it on a connected graph
//    (the weights are symmetric, doubly stochastic and positive on the diagonal). Under row
//    weighting (ConsensusNodeParams::gossip_scale) round 2 starts from z_i = (B_i / B_bar) x_i
//    instead, whose mean is the rows-weighted mean sum_i B_i x_i / sum_i B_i of the releases.
//    Every gossip value is a function of released values and public row counts:
//    post-processing, no cost.
//
// The release of round 1 goes through the node's Release like every other value: objective
// perturbation draws its noise b there (DrawL2Laplace, snapped release, one PureEpsilon(eps)
// mechanism plus the sampler's floating-point delta); the Gaussian mechanism draws the exact
// discrete Gaussian on its lattice (DrawGaussian) and releases RoundToGrid(f, step) + noise, one
// Gaussian mechanism of sensitivity 2 (C/B_i)/rho_i + sqrt(d) step.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "consensus/consensus_admm.h"
#include "dpadmm/privacy/accountant.h"

namespace dpadmm {

// The mechanism node i releases in round 1, from public values only (B_i rows, d features,
// the loss's curvature bound, C, rho_i and the mechanism's parameters): what the node's Release
// records, and what the driver's per-round figure and the calibration compose.
MechanismRelease BaselineRelease(const ConsensusNodeParams& params, double rows, std::int64_t dim,
                                 const Loss& loss);

class LocalNode : public ConsensusNode {
 public:
  // Throws InputError for parameters the mechanism's proof does not cover (epsilon <= 0,
  // rho_i <= 0, a Gaussian delta outside (0, 1)).
  LocalNode(int id, const Dataset& data, int degree, const Loss& loss, const NewtonOptions& newton,
            const ConsensusNodeParams& params, Eigen::VectorXd f0);

  // No ADMM penalty: the node solves its own problem once.
  double Penalty(std::int64_t /*round*/) const override { return 0.0; }
  // epsilon in round 1 (the mechanism's (epsilon, delta) for the Gaussian one), 0 later.
  double PrivacyLoss(std::int64_t round) const override;
  // Round 1: BaselineRelease; none later.
  std::optional<MechanismRelease> Mechanism(std::int64_t round) const override;

  // Objective perturbation's parameters (eps', the extra regulariser C Delta, the noise's a).
  const ObjectivePerturbation& objective() const { return objective_; }
  // Gaussian output perturbation's parameters (step, sensitivity with the lattice term, sigma).
  const GaussianOutputPerturbation& gaussian() const { return gaussian_; }
  // The noise drawn in round 1: b of the objective, or the lattice noise of the output.
  const Eigen::VectorXd& noise() const { return noise_; }
  // The node's exact (unperturbed by output noise) minimiser of round 1: the objective's
  // perturbed problem, or J_i for the Gaussian mechanism. Never sent as such.
  const Eigen::VectorXd& minimiser() const { return f_; }

 protected:
  runtime::StepResult Iterate(std::int64_t round) override;
  // local never listens: its rounds read no inbox at all.
  void ReceiveNeighbours(std::int64_t /*round*/, const runtime::Inbox& /*in*/) override {}
  // Rounds 2..T resend the round-1 release (post-processing).
  bool PostProcessed(std::int64_t round) const override { return round >= 2; }
  const Eigen::VectorXd& Released() const override { return released_; }
  // The model of the report: what the node released (round 0: f_i(0)).
  const Eigen::VectorXd& ReportedModel() const override { return release_.last(); }

  ConsensusNodeParams params_;
  MechanismRelease mechanism_;  // BaselineRelease of the node's parameters
  ObjectivePerturbation objective_;
  GaussianOutputPerturbation gaussian_;
  // The round's message before the release point: round 1's minimiser (objective) or lattice
  // value (Gaussian); later rounds' post-processed value.
  Eigen::VectorXd released_;
};

class AverageNode : public LocalNode {
 public:
  // Throws InputError when params.neighbour_degrees does not hold one degree >= 1 per neighbour.
  AverageNode(int id, const Dataset& data, int degree, const Loss& loss,
              const NewtonOptions& newton, const ConsensusNodeParams& params, Eigen::VectorXd f0);

  // w_ij of each neighbour, in inbox order.
  const std::vector<double>& weights() const { return weights_; }

 protected:
  // Rounds >= 2: the gossip step from the neighbours' round r-1 releases (round 1's inbox, the
  // neighbours' initial values, is not read).
  void ReceiveNeighbours(std::int64_t round, const runtime::Inbox& in) override;
  runtime::StepResult Iterate(std::int64_t round) override;

 private:
  std::vector<double> weights_;
  Eigen::VectorXd gossip_;  // x_i(r) for r >= 2
};

}  // namespace dpadmm
