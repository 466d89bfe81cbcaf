// SPDX-License-Identifier: Apache-2.0
// Recycled ADMM, 003 Algorithm 1: odd rounds 2k-1 are ADMM's exact primal update (eq. (8)/(12))
// and compute grad O(f_i(2k-1), D_i); even rounds 2k reuse that gradient (eq. (10)) and never
// read the data; the dual is updated after odd rounds only (eqs. (11), (13)).
#pragma once

#include "consensus/admm_node.h"

namespace dpadmm {

class RadmmNode : public AdmmNode {
 public:
  RadmmNode(int id, const Dataset& data, int degree, const Loss& loss, const NewtonOptions& newton,
            const ConsensusNodeParams& params, Eigen::VectorXd f0);

  void SaveState(StateWriter& out) const override;
  void LoadState(StateReader& in) override;

 protected:
  runtime::StepResult Iterate(std::int64_t round) override;
  // 003 eqs. (13)/(15): lambda_i(2k) = lambda_i(2k-2) + (eta_i(2k-1)/2) sum_j (f_i(2k-1) -
  // f_j(2k-1)), applied in round 2k; eqs. (11)/(17): unchanged after even rounds.
  void UpdateDual(std::int64_t round) override;
  // 003 Algorithms 1-2: compute grad O(f_i(2k-1), D_i) now, to recycle it in round 2k.
  void AfterPrimal(std::int64_t round, double eta) override;
  // 003 eq. (10) / (16) / (19): f_i(2k) = f_i(2k-1) - (stored gradient + 2 lambda_i(2k-1)
  //   + eta_i(2k-1) sum_j (f_i(2k-1) - f_j(2k-1))) / (2 eta_i(2k-1) V_i + gamma). No data access.
  void UpdatePrimalRecycled(std::int64_t round);

  Eigen::VectorXd recycled_;  // grad O(f_i(2k-1)) (+ eps for the private version)
};

}  // namespace dpadmm
