// SPDX-License-Identifier: Apache-2.0
// M-ADMM with penalty perturbation, 002: node-private non-decreasing penalties
// eta_i(t) = theta q1^(t-1), a dual step theta, and the penalty term perturbed by eps_i(t) with
// density proportional to exp(-alpha_i(t) ||eps||), alpha_i(t) = alpha q2^(t-1). Privacy per
// iteration C (1.4 c1 + alpha_i(t)) / (eta_i(t) V_i B_i), total P(T) = max_i sum_t (002).
#pragma once

#include "consensus/admm_node.h"

namespace dpadmm {

class MadmmNode : public AdmmNode {
 public:
  using AdmmNode::AdmmNode;
  // 002: eta_i(t+1) = theta q1^t.
  double Penalty(std::int64_t round) const override;
  // 002: alpha_i(t+1) = alpha q2^t (0 = the non-private M-ADMM).
  double Alpha(std::int64_t round) const override { return GeometricAlpha(round); }
  // 002: C (1.4 c1 + alpha_i(t)) / (eta_i(t) V_i B_i).
  double PrivacyLoss(std::int64_t round) const override;

 protected:
  // 002: lambda_i(t+1) = lambda_i(t) + (theta/2) sum_j (f_i(t+1) - f_j(t+1)), theta = dual_step
  // (0: eta_i(1)).
  void UpdateDual(std::int64_t round) override;
  // 002 PP: eta_i(t+1) sum_j ||eps + f - (f_i + f_j)/2||^2 adds 2 eta V eps^T f.
  void PerturbLocalProblem(std::int64_t round, double eta, double& a) override;
};

}  // namespace dpadmm
