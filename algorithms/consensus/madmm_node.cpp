// SPDX-License-Identifier: Apache-2.0
#include "consensus/madmm_node.h"

#include "dpadmm/privacy/accounting.h"

namespace dpadmm {

double MadmmNode::Penalty(std::int64_t round) const {
  return GeometricSchedule(params_.eta, params_.q1, round);
}

double MadmmNode::PrivacyLoss(std::int64_t round) const {
  const double alpha = Alpha(round);
  if (alpha <= 0.0) return 0.0;
  return MadmmIterationLoss(params_.C, solver_.loss().CurvatureBound(), alpha, Penalty(round),
                            degree_, rows_);
}

void MadmmNode::UpdateDual(std::int64_t round) {
  ApplyDualStep(round >= 2 ? (params_.dual_step > 0.0 ? params_.dual_step : Penalty(1)) : 0.0);
}

void MadmmNode::PerturbLocalProblem(std::int64_t round, double eta, double& /*a*/) {
  const double alpha = Alpha(round);
  if (alpha <= 0.0) return;
  release_.DrawL2Laplace(alpha, noise_);
  g_ += (2.0 * eta * static_cast<double>(degree_)) * noise_;
  noise_parameter_ = alpha;
}

}  // namespace dpadmm
