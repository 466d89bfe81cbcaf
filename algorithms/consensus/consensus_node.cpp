// SPDX-License-Identifier: Apache-2.0
#include "consensus/consensus_node.h"

#include <string>
#include <utility>

namespace dpadmm {

ConsensusNode::ConsensusNode(int id, const Dataset& data, double C, int degree, const Loss& loss,
                             const NewtonOptions& newton, Eigen::VectorXd f0,
                             const std::optional<std::uint64_t>& noise_seed, double privacy_budget)
    : id_(id),
      degree_(degree),
      dim_(f0.size()),
      rows_(static_cast<double>(data.rows())),
      solver_(data, C / static_cast<double>(data.rows()), loss, newton),
      release_(NoiseKey::Make(noise_seed, static_cast<std::uint64_t>(id)),
               static_cast<std::uint64_t>(id), privacy_budget),
      f_(std::move(f0)),
      neighbours_(dim_),
      g_(dim_),
      noise_(dim_) {}

void ConsensusNode::Initialize() {
  mean_loss_ = solver_.MeanLoss(f_);
  ++data_passes_;
}

runtime::StepResult ConsensusNode::Start(runtime::Outbox& out) {
  Initialize();
  release_.SendInitial(Released(), out);
  return runtime::StepResult::Ok();
}

runtime::StepResult ConsensusNode::Step(std::int64_t round, const runtime::Inbox& in,
                                        runtime::Outbox& out) {
  // The release decides first: a refused round does no private computation at all (the node
  // does not even read its inbox), and the node resends its last release.
  // A round with a cost is a pure cost-DP release (the papers' per-round terms).
  const double cost = PrivacyLoss(round);
  if (!release_.Open(round, cost, Mechanism(round))) {
    noise_parameter_ = 0.0;
    release_.Resend(out);
    return runtime::StepResult::Ok();
  }
  SumNeighbours(in);
  noise_parameter_ = 0.0;
  runtime::StepResult r = Iterate(round);
  if (!r.ok) return r;
  release_.Send(Released(), out);
  return runtime::StepResult::Ok();
}

std::optional<MechanismRelease> ConsensusNode::Mechanism(std::int64_t round) const {
  const double cost = PrivacyLoss(round);
  if (!(cost > 0.0)) return std::nullopt;
  return MechanismRelease{MechanismKind::kPureEpsilon, 1.0, 1.0, cost};
}

void ConsensusNode::SumNeighbours(const runtime::Inbox& in) {
  neighbours_.setZero();
  for (std::size_t k = 0; k < in.size(); ++k) {
    neighbours_ += Eigen::Map<const Eigen::VectorXd>(in[k].data(), dim_);
  }
}

runtime::StepResult ConsensusNode::SolveLocal(std::int64_t round, double a, Eigen::VectorXd& f) {
  const SolveReport report = solver_.Solve(a, g_, f);
  ++data_passes_;
  if (report.status == SolveStatus::kNonFinite || !f.allFinite()) {
    return Diverged(round, "primal update", report.status);
  }
  // A private round's guarantee holds for the exact minimiser only: the solve must reach the
  // pinned tolerance (the spec refuses a looser Newton tolerance for private variants), or the
  // run fails here, before anything is released.
  if ((Alpha(round) > 0.0 || Mechanism(round).has_value()) &&
      report.status != SolveStatus::kConverged) {
    return runtime::StepResult::Fail(
        "node " + std::to_string(id_) + " in round " + std::to_string(round) +
        ": the private local solve did not converge (local solver: " + ToString(report.status) +
        " after " + std::to_string(report.iterations) + " Newton steps, gradient norm " +
        std::to_string(report.gradient_norm) +
        "); the privacy proof assumes the exact minimiser, so nothing is released");
  }
  loss_sum_ = report.loss_sum;
  return runtime::StepResult::Ok();
}

runtime::StepResult ConsensusNode::Diverged(std::int64_t round, const char* what,
                                            SolveStatus status) const {
  return runtime::StepResult::Fail("node " + std::to_string(id_) + " diverged in round " +
                                   std::to_string(round) + ": non-finite " + what +
                                   " (local solver: " + ToString(status) + ")");
}

void ConsensusNode::Report(std::int64_t round, std::span<double> out) const {
  Eigen::Map<Eigen::VectorXd>(out.data(), dim_) = ReportedModel();
  const bool frozen = release_.frozen();
  out[dim_ + ConsensusReport::kLoss] = mean_loss_;
  out[dim_ + ConsensusReport::kPrivacySpent] = ReportedPrivacy();
  out[dim_ + ConsensusReport::kNextPrivacyLoss] = frozen ? 0.0 : PrivacyLoss(round + 1);
  out[dim_ + ConsensusReport::kNoise] = noise_parameter_;
  out[dim_ + ConsensusReport::kFrozen] = frozen ? 1.0 : 0.0;
  out[dim_ + ConsensusReport::kFrozenRound] = static_cast<double>(release_.frozen_round());
}

}  // namespace dpadmm
