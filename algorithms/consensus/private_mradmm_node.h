// SPDX-License-Identifier: Apache-2.0
// Private MR-ADMM, 003 Algorithm 3, eqs. (18)-(19): MR-ADMM whose odd-round objective is
// perturbed, L^priv adds eps^T f with eps ~ exp(-alpha_i(k) ||eps||) (18); the even round
// recycles eps + grad O(f_i(2k-1)) from the KKT condition without the data (19). beta-DP over
// the run with beta = max_i sum_k of the terms of eq. (32).
#pragma once

#include "consensus/mradmm_node.h"

namespace dpadmm {

class PrivateMradmmNode : public MradmmNode {
 public:
  using MradmmNode::MradmmNode;
  // 003 Algorithm 3: alpha_i(k) = alpha q2^(k-1) in odd round 2k-1, none in even rounds.
  double Alpha(std::int64_t round) const override;
  // 003 eq. (32), the odd iteration's term (2C/B_i)(1.4 c1 / (rho/N + 2 eta_i(2k-1) V_i) +
  // alpha_i(k)); even rounds add nothing.
  double PrivacyLoss(std::int64_t round) const override;

 protected:
  // 003 eq. (18): eps^T f added to the odd round's objective, eps drawn through the release.
  void PerturbLocalProblem(std::int64_t round, double eta, double& a) override;
  // 003, after eq. (18): eps + grad O(f_i(2k-1)) from the KKT condition, no data needed:
  //   -2 lambda_i(2k-2) - eta sum_j (2 f_i(2k-1) - f_i(2k-2) - f_j(2k-2)).
  void AfterPrimal(std::int64_t round, double eta) override;
};

}  // namespace dpadmm
