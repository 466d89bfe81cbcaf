// SPDX-License-Identifier: Apache-2.0
#include "consensus/admm_node.h"

#include <utility>

#include "dpadmm/privacy/accounting.h"

namespace dpadmm {

AdmmNode::AdmmNode(int id, const Dataset& data, int degree, const Loss& loss,
                   const NewtonOptions& newton, const ConsensusNodeParams& params,
                   Eigen::VectorXd f0)
    : ConsensusNode(id, data, params.C, degree, loss, newton, std::move(f0), params.noise_seed,
                    params.privacy_budget),
      params_(params),
      f_prev_(dim_),
      lambda_(Eigen::VectorXd::Zero(dim_)) {}

runtime::StepResult AdmmNode::Iterate(std::int64_t round) {
  UpdateDual(round);
  f_prev_ = f_;
  return UpdatePrimal(round);
}

void AdmmNode::UpdateDual(std::int64_t round) { ApplyDualStep(round >= 2 ? params_.eta : 0.0); }

void AdmmNode::ApplyDualStep(double step) {
  if (step == 0.0) return;
  AddDisagreement(lambda_, 0.5 * step, f_);
}

runtime::StepResult AdmmNode::UpdatePrimal(std::int64_t round) {
  const double eta = Penalty(round);
  const double V = static_cast<double>(degree_);
  double a = params_.rho_node + 2.0 * eta * V;
  PenaltyLinearTerm(2.0 * lambda_, eta, f_);
  PerturbLocalProblem(round, eta, a);
  runtime::StepResult r = SolveLocal(round, a, f_);
  if (!r.ok) return r;
  mean_loss_ = loss_sum_ / params_.C;  // weights are C / B_i
  AfterPrimal(round, eta);
  if (!f_.allFinite()) return Diverged(round, "primal update", SolveStatus::kNonFinite);
  return runtime::StepResult::Ok();
}

double AdmmNode::GeometricAlpha(std::int64_t round) const {
  if (params_.alpha <= 0.0) return 0.0;
  return GeometricSchedule(params_.alpha, params_.q2, round);
}

void AdmmNode::SaveState(StateWriter& out) const {
  ConsensusNode::SaveState(out);
  out.Vec(f_prev_);
  out.Vec(lambda_);
}

void AdmmNode::LoadState(StateReader& in) {
  ConsensusNode::LoadState(in);
  f_prev_ = in.EVec("previous model", dim_);
  lambda_ = in.EVec("dual", dim_);
}

}  // namespace dpadmm
