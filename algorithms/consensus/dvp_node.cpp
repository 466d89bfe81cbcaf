// SPDX-License-Identifier: Apache-2.0
#include "consensus/dvp_node.h"

#include "dpadmm/privacy/accounting.h"

namespace dpadmm {

void DvpNode::PerturbLocalProblem(std::int64_t round, double eta, double& a) {
  const double alpha = Alpha(round);
  if (alpha <= 0.0) return;
  // 004 Algorithm 2: alpha_hat / Phi rule; eq. (14) mu = lambda + (C / 2B) eps, so the term
  // 2 mu^T f adds (C / B) eps to g; eq. (13) adds (Phi / 2) ||f||^2.
  const DvpParameters p = DvpNoise(alpha, params_.C, rows_, solver_.loss().CurvatureBound(),
                                   params_.rho_node, eta, degree_);
  release_.DrawL2Laplace(p.zeta, noise_);
  g_ += (params_.C / rows_) * noise_;
  a += p.phi;
  noise_parameter_ = p.zeta;
}

}  // namespace dpadmm
