// SPDX-License-Identifier: Apache-2.0
// Dual variable perturbation, 004 Algorithm 2, eqs. (13)-(16): ADMM whose dual variable is
// perturbed in each primal update, mu_i = lambda_i + (C / 2B_i) eps_i (14), eps_i with density
// proportional to exp(-zeta ||eps||), plus the extra penalty (Phi/2)||f||^2 of (13) when the
// Phi rule needs it. Dynamic alpha_i(t)-DP per iteration (004 Theorem 1); the dual update (16)
// is (11).
#pragma once

#include "consensus/admm_node.h"

namespace dpadmm {

class DvpNode : public AdmmNode {
 public:
  using AdmmNode::AdmmNode;
  // alpha_i(t) = alpha q2^(t-1).
  double Alpha(std::int64_t round) const override { return GeometricAlpha(round); }
  // 004 Theorem 1: alpha_i(t) per iteration.
  double PrivacyLoss(std::int64_t round) const override { return Alpha(round); }

 protected:
  // 004 eqs. (13)-(14): draws eps_i through the release, adds (C/B) eps to g and Phi to a.
  void PerturbLocalProblem(std::int64_t round, double eta, double& a) override;
};

}  // namespace dpadmm
