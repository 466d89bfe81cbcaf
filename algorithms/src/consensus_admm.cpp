#include "consensus_admm.h"

#include <string>

namespace dpadmm {

ConsensusAdmmNode::ConsensusAdmmNode(int id, const Dataset& data, int degree, const Loss& loss,
                                     const NewtonOptions& newton, const ConsensusParams& params,
                                     Eigen::VectorXd f0)
    : id_(id),
      degree_(degree),
      params_(params),
      solver_(data, params.C / static_cast<double>(data.rows()), loss, newton),
      f_(std::move(f0)),
      lambda_(Eigen::VectorXd::Zero(f_.size())),
      g_(f_.size()) {}

runtime::StepResult ConsensusAdmmNode::Start(runtime::Outbox& out) {
  mean_loss_ = solver_.MeanLoss(f_);
  Broadcast(out);
  return runtime::StepResult::Ok();
}

runtime::StepResult ConsensusAdmmNode::Step(std::int64_t round, const runtime::Inbox& in,
                                            runtime::Outbox& out) {
  if (round >= 2) UpdateDual(in);
  runtime::StepResult result = UpdatePrimal(round, in);
  if (!result.ok) return result;
  Broadcast(out);
  return result;
}

// 004 eq. (11): lambda_i(t+1) = lambda_i(t) + (eta/2) sum_j (f_i(t+1) - f_j(t+1)), applied with
// t + 1 = r - 1 using the neighbours' f_j(r-1) delivered this round.
void ConsensusAdmmNode::UpdateDual(const runtime::Inbox& in) {
  const double half_eta = 0.5 * params_.eta;
  lambda_ += half_eta * static_cast<double>(degree_) * f_;
  for (std::size_t k = 0; k < in.size(); ++k) {
    lambda_ -= half_eta * Eigen::Map<const Eigen::VectorXd>(in[k].data(), f_.size());
  }
}

// 004 eqs. (9)-(10): the quadratic terms fold into a and g of the local problem.
runtime::StepResult ConsensusAdmmNode::UpdatePrimal(std::int64_t round, const runtime::Inbox& in) {
  const double a = params_.rho / params_.num_nodes + 2.0 * params_.eta * degree_;
  g_ = 2.0 * lambda_ - params_.eta * static_cast<double>(degree_) * f_;
  for (std::size_t k = 0; k < in.size(); ++k) {
    g_ -= params_.eta * Eigen::Map<const Eigen::VectorXd>(in[k].data(), f_.size());
  }
  const SolveReport report = solver_.Solve(a, g_, f_);
  if (report.status == SolveStatus::kNonFinite || !f_.allFinite()) {
    return runtime::StepResult::Fail("node " + std::to_string(id_) + " diverged in round " +
                                     std::to_string(round) +
                                     ": non-finite primal update (local solver: " +
                                     ToString(report.status) + ")");
  }
  mean_loss_ = report.loss_sum / params_.C;  // weights are C / B_i
  return runtime::StepResult::Ok();
}

void ConsensusAdmmNode::Broadcast(runtime::Outbox& out) const {
  auto m = out.Prepare(static_cast<std::size_t>(f_.size()));
  Eigen::Map<Eigen::VectorXd>(m.data(), f_.size()) = f_;
}

void ConsensusAdmmNode::Report(std::int64_t, std::span<double> out) const {
  Eigen::Map<Eigen::VectorXd>(out.data(), f_.size()) = f_;
  out[f_.size()] = mean_loss_;
}

}  // namespace dpadmm
