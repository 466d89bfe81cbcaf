// SPDX-License-Identifier: Apache-2.0
#include "consensus/baseline_nodes.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "dpadmm/core/error.h"
#include "dpadmm/privacy/samplers.h"

namespace dpadmm {
namespace {

// The loss bounds both mechanisms rest on: |L'| <= 1 (the sensitivity of the gradient, with
// ||x|| <= 1) and 0 <= L'' <= c (objective perturbation's Jacobian term), for the losses whose
// bounds are known (loss.h).
double CurvatureBoundOf(const Loss& loss) {
  switch (loss.kind) {
    case LossKind::kLogistic: return loss.CurvatureBound();  // |L'| < 1, L'' <= 1/4
    case LossKind::kSmoothHinge:                             // |L'| <= 1, L'' <= 1/(2h)
      if (!(loss.huber_h > 0.0)) {
        throw InputError("loss.huber_h must be > 0 for the baselines' mechanisms, got " +
                         std::to_string(loss.huber_h));
      }
      return loss.CurvatureBound();
  }
  throw InputError(
      "loss.kind: the baselines' mechanisms need a loss with |L'| <= 1 and a "
      "curvature bound (logistic, smooth_hinge), got " +
      loss.Name());
}

}  // namespace

MechanismRelease BaselineRelease(const ConsensusNodeParams& params, double rows, std::int64_t dim,
                                 const Loss& loss) {
  if (params.mechanism == BaselineMechanism::kObjective) {
    // Chaudhuri et al. 2011, Theorem 9: pure epsilon-DP.
    (void)ObjectivePerturbationFor(params.epsilon, params.C, rows, CurvatureBoundOf(loss),
                                   params.rho_node);
    return MechanismRelease{MechanismKind::kPureEpsilon, 1.0, 1.0, params.epsilon};
  }
  (void)CurvatureBoundOf(loss);
  const GaussianOutputPerturbation g = GaussianOutputPerturbationFor(
      params.epsilon, params.delta, params.C, rows, params.rho_node, dim);
  return MechanismRelease{MechanismKind::kGaussian, g.sensitivity, g.sigma, 0.0};
}

LocalNode::LocalNode(int id, const Dataset& data, int degree, const Loss& loss,
                     const NewtonOptions& newton, const ConsensusNodeParams& params,
                     Eigen::VectorXd f0)
    : ConsensusNode(id, data, params.C, degree, loss, newton, std::move(f0), params.noise_seed,
                    params.privacy_budget),
      params_(params),
      released_(dim_) {
  const double c = CurvatureBoundOf(loss);
  if (params.mechanism == BaselineMechanism::kObjective) {
    objective_ = ObjectivePerturbationFor(params.epsilon, params.C, rows_, c, params.rho_node);
  } else {
    gaussian_ = GaussianOutputPerturbationFor(params.epsilon, params.delta, params.C, rows_,
                                              params.rho_node, dim_);
  }
  mechanism_ = BaselineRelease(params_, rows_, dim_, loss);
  released_ = f_;
}

double LocalNode::PrivacyLoss(std::int64_t round) const {
  return round == 1 ? params_.epsilon : 0.0;
}

std::optional<MechanismRelease> LocalNode::Mechanism(std::int64_t round) const {
  if (round != 1) return std::nullopt;
  return mechanism_;
}

runtime::StepResult LocalNode::Iterate(std::int64_t round) {
  if (round >= 2) {
    // The round-1 release, bit for bit (what the release point sent, snapped or on the lattice).
    released_ = release_.last();
    return runtime::StepResult::Ok();
  }
  if (params_.mechanism == BaselineMechanism::kObjective) {
    // Chaudhuri et al. 2011, Algorithm 2: b with density exp(-(eps'/2) ||b||), then the exact
    // minimiser of (C/B) sum L + ((rho_i + C Delta)/2) ||f||^2 + (C/B) b^T f.
    release_.DrawL2Laplace(objective_.noise, noise_);
    g_ = (params_.C / rows_) * noise_;
    runtime::StepResult r = SolveLocal(round, params_.rho_node + objective_.extra_penalty, f_);
    if (!r.ok) return r;
    released_ = f_;  // the release snaps it (privacy/release.h)
    noise_parameter_ = objective_.noise;
  } else {
    // The exact minimiser of J_i, rounded to the lattice, plus the exact discrete Gaussian on it.
    g_.setZero();
    runtime::StepResult r = SolveLocal(round, params_.rho_node, f_);
    if (!r.ok) return r;
    const double step = release_.DrawGaussian(gaussian_.sigma, noise_);
    released_ = f_.unaryExpr([step](double v) { return RoundToGrid(v, step); }) + noise_;
    noise_parameter_ = gaussian_.sigma;
  }
  // The released value is not the solved point: its loss is evaluated outside the node.
  mean_loss_ = kNaN;
  return runtime::StepResult::Ok();
}

AverageNode::AverageNode(int id, const Dataset& data, int degree, const Loss& loss,
                         const NewtonOptions& newton, const ConsensusNodeParams& params,
                         Eigen::VectorXd f0)
    : LocalNode(id, data, degree, loss, newton, params, std::move(f0)), gossip_(dim_) {
  if (static_cast<int>(params.neighbour_degrees.size()) != degree) {
    throw InputError("average node " + std::to_string(id) + ": " + std::to_string(degree) +
                     " neighbours but " + std::to_string(params.neighbour_degrees.size()) +
                     " neighbour degrees");
  }
  for (int v : params.neighbour_degrees) {
    if (v < 1) {
      throw InputError("average node " + std::to_string(id) +
                       ": a neighbour's degree must be >= 1");
    }
    // Metropolis-Hastings: w_ij = 1 / (1 + max(V_i, V_j)).
    weights_.push_back(1.0 / (1.0 + static_cast<double>(std::max(degree, v))));
  }
  const auto& scales = params.neighbour_gossip_scales;
  if (!scales.empty()) {
    if (static_cast<int>(scales.size()) != degree) {
      throw InputError("average node " + std::to_string(id) + ": " + std::to_string(degree) +
                       " neighbours but " + std::to_string(scales.size()) + " gossip scales");
    }
    for (double v : scales) {
      if (!(v > 0.0) || !std::isfinite(v)) {
        throw InputError("average node " + std::to_string(id) +
                         ": a neighbour's gossip scale must be finite and > 0");
      }
    }
  }
  if (!(params.gossip_scale > 0.0) || !std::isfinite(params.gossip_scale)) {
    throw InputError("average node " + std::to_string(id) +
                     ": the gossip scale must be finite and > 0");
  }
}

void AverageNode::ReceiveNeighbours(std::int64_t round, const runtime::Inbox& in) {
  if (round < 2) return;
  // x_i(r) = x_i(r-1) + sum_j w_ij (x_j(r-1) - x_i(r-1)), x_i(r-1) the node's own last release.
  const Eigen::VectorXd& own = release_.last();
  neighbours_.setZero();
  const std::vector<double>& scales = params_.neighbour_gossip_scales;
  if (round == 2 && !scales.empty()) {
    // Row weighting: the gossip starts from z_j = (B_j / B_bar) x_j, whose mean over the nodes
    // is sum_j B_j x_j / sum_j B_j and which the symmetric steps keep; later rounds' messages
    // are z already.
    const Eigen::VectorXd z = params_.gossip_scale * own;
    for (std::size_t k = 0; k < in.size(); ++k) {
      neighbours_ +=
          weights_[k] * (scales[k] * Eigen::Map<const Eigen::VectorXd>(in[k].data(), dim_) - z);
    }
    gossip_ = z + neighbours_;
    return;
  }
  for (std::size_t k = 0; k < in.size(); ++k) {
    neighbours_ += weights_[k] * (Eigen::Map<const Eigen::VectorXd>(in[k].data(), dim_) - own);
  }
  gossip_ = own + neighbours_;
}

runtime::StepResult AverageNode::Iterate(std::int64_t round) {
  if (round < 2) return LocalNode::Iterate(round);
  released_ = gossip_;
  return runtime::StepResult::Ok();
}

}  // namespace dpadmm
