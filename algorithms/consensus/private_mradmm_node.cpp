// SPDX-License-Identifier: Apache-2.0
#include "consensus/private_mradmm_node.h"

#include "dpadmm/privacy/accounting.h"

namespace dpadmm {

double PrivateMradmmNode::Alpha(std::int64_t round) const {
  if (params_.alpha <= 0.0 || round % 2 == 0) return 0.0;
  return GeometricSchedule(params_.alpha, params_.q2, (round + 1) / 2);
}

double PrivateMradmmNode::PrivacyLoss(std::int64_t round) const {
  const double alpha = Alpha(round);
  if (alpha <= 0.0) return 0.0;
  return MrAdmmIterationLoss(params_.C, rows_, solver_.loss().CurvatureBound(),
                             params_.rho_node * params_.num_nodes, params_.num_nodes,
                             Penalty(round), degree_, alpha);
}

void PrivateMradmmNode::PerturbLocalProblem(std::int64_t round, double /*eta*/, double& /*a*/) {
  const double alpha = Alpha(round);
  if (alpha <= 0.0) return;
  release_.DrawL2Laplace(alpha, noise_);
  g_ += noise_;
  noise_parameter_ = alpha;
}

void PrivateMradmmNode::AfterPrimal(std::int64_t /*round*/, double eta) {
  const double V = static_cast<double>(degree_);
  recycled_ = -2.0 * lambda_ - eta * (2.0 * V * f_ - V * f_prev_ - neighbours_);
}

}  // namespace dpadmm
