// SPDX-License-Identifier: Apache-2.0
// Simplified decentralized ADMM, 004 eqs. (9)-(11) (Forero et al. 2010), and the base of its
// modifications (DVP, PVP, M-ADMM, R-ADMM, MR-ADMM, private MR-ADMM), which change the penalty
// schedule, the dual step, the perturbation of the local problem or what happens after it.
#pragma once

#include "consensus/consensus_admm.h"

namespace dpadmm {

class AdmmNode : public ConsensusNode {
 public:
  AdmmNode(int id, const Dataset& data, int degree, const Loss& loss, const NewtonOptions& newton,
           const ConsensusNodeParams& params, Eigen::VectorXd f0);

  // 004: a constant penalty eta.
  double Penalty(std::int64_t /*round*/) const override { return params_.eta; }

  void SaveState(StateWriter& out) const override;
  void LoadState(StateReader& in) override;

 protected:
  runtime::StepResult Iterate(std::int64_t round) override;
  // 004 eq. (11), for the previous iteration now that the neighbours' f_j(r-1) have arrived:
  //   lambda_i(r-1) = lambda_i(r-2) + (eta/2) sum_j (f_i(r-1) - f_j(r-1)), from round 2.
  virtual void UpdateDual(std::int64_t round);
  // 004 eqs. (9)-(10): f_i(r) = argmin O(f, D_i) + 2 lambda_i^T f
  //   + eta sum_j ||f - (f_i(r-1) + f_j(r-1))/2||^2, through LocalSolver.
  runtime::StepResult UpdatePrimal(std::int64_t round);
  // What a variant adds to the local problem before it is solved (noise terms in g_, extra
  // penalty in a); none for ADMM.
  virtual void PerturbLocalProblem(std::int64_t /*round*/, double /*eta*/, double& /*a*/) {}
  // What a variant does after the exact primal update; nothing for ADMM.
  virtual void AfterPrimal(std::int64_t /*round*/, double /*eta*/) {}
  // lambda_i += (step / 2) sum_j (f_i(r-1) - f_j(r-1)); nothing for step 0.
  void ApplyDualStep(double step);
  // alpha_i(t) = alpha q2^(t-1) (002), 0 without noise (alpha = 0).
  double GeometricAlpha(std::int64_t round) const;

  ConsensusNodeParams params_;
  Eigen::VectorXd f_prev_;  // f_i(r-1)
  Eigen::VectorXd lambda_;  // lambda_i
};

}  // namespace dpadmm
