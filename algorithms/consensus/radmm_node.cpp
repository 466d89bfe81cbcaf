// SPDX-License-Identifier: Apache-2.0
#include "consensus/radmm_node.h"

#include <utility>

namespace dpadmm {

RadmmNode::RadmmNode(int id, const Dataset& data, int degree, const Loss& loss,
                     const NewtonOptions& newton, const ConsensusNodeParams& params,
                     Eigen::VectorXd f0)
    : AdmmNode(id, data, degree, loss, newton, params, std::move(f0)),
      recycled_(Eigen::VectorXd::Zero(dim_)) {}

runtime::StepResult RadmmNode::Iterate(std::int64_t round) {
  UpdateDual(round);
  f_prev_ = f_;
  if (round % 2 == 1) return UpdatePrimal(round);
  UpdatePrimalRecycled(round);
  if (!f_.allFinite()) return Diverged(round, "recycled primal update", SolveStatus::kNonFinite);
  return runtime::StepResult::Ok();
}

void RadmmNode::UpdateDual(std::int64_t round) {
  ApplyDualStep(round % 2 == 0 ? Penalty(round) : 0.0);
}

void RadmmNode::AfterPrimal(std::int64_t /*round*/, double /*eta*/) {
  solver_.LossAndGradient(f_, recycled_);
  ++data_passes_;
  recycled_ += params_.rho_node * f_;
}

void RadmmNode::UpdatePrimalRecycled(std::int64_t round) {
  const double eta = Penalty(round);
  const double V = static_cast<double>(degree_);
  const double step = 1.0 / (2.0 * eta * V + params_.gamma);
  f_ -= step * (recycled_ + 2.0 * lambda_ + eta * (V * f_prev_ - neighbours_));
  mean_loss_ = kNaN;
}

void RadmmNode::SaveState(StateWriter& out) const {
  AdmmNode::SaveState(out);
  out.Vec(recycled_);
}

void RadmmNode::LoadState(StateReader& in) {
  AdmmNode::LoadState(in);
  recycled_ = in.EVec("recycled gradient", dim_);
}

}  // namespace dpadmm
