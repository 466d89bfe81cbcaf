// SPDX-License-Identifier: Apache-2.0
#include "consensus/consensus_node.h"

#include <algorithm>
#include <string>
#include <utility>

#include "dpadmm/core/error.h"

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
  if (Gossiping(round)) {
    // Post-processing of released values: no cost, no mechanism (a frozen node resends).
    if (!release_.Open(round, 0.0, std::nullopt)) {
      release_.Resend(out);
      return runtime::StepResult::Ok();
    }
    Gossip(in);
    noise_parameter_ = 0.0;
    mean_loss_ = kNaN;  // the value is not a solve's: its loss is evaluated outside the node
    release_.SendPostProcessed(gossip_, out);
    return runtime::StepResult::Ok();
  }
  // The release decides first: a refused round does no private computation at all (the node
  // does not even read its inbox), and the node resends its last release.
  // A round with a cost is a pure cost-DP release (the papers' per-round terms).
  const double cost = PrivacyLoss(round);
  if (!release_.Open(round, cost, Mechanism(round))) {
    noise_parameter_ = 0.0;
    release_.Resend(out);
    return runtime::StepResult::Ok();
  }
  ReceiveNeighbours(round, in);
  noise_parameter_ = 0.0;
  runtime::StepResult r = Iterate(round);
  if (!r.ok) return r;
  if (PostProcessed(round)) {
    release_.SendPostProcessed(Released(), out);
  } else {
    release_.Send(Released(), out);
  }
  return runtime::StepResult::Ok();
}

void ConsensusNode::SetGossipTail(std::int64_t first_round,
                                  const std::vector<int>& neighbour_degrees) {
  const std::string who = "node " + std::to_string(id_) + ": gossip tail: ";
  if (first_round < 2) {
    throw InputError(who +
                     "the first gossip round must be >= 2 (round 1 runs the algorithm), got " +
                     std::to_string(first_round));
  }
  if (static_cast<int>(neighbour_degrees.size()) != degree_) {
    throw InputError(who + std::to_string(degree_) + " neighbours but " +
                     std::to_string(neighbour_degrees.size()) + " neighbour degrees");
  }
  gossip_weights_.clear();
  for (int v : neighbour_degrees) {
    if (v < 1) throw InputError(who + "a neighbour's degree must be >= 1");
    // Metropolis-Hastings: w_ij = 1 / (1 + max(V_i, V_j)).
    gossip_weights_.push_back(1.0 / (1.0 + static_cast<double>(std::max(degree_, v))));
  }
  gossip_from_ = first_round;
  gossip_.resize(dim_);
}

void ConsensusNode::Gossip(const runtime::Inbox& in) {
  // The node's own last release and its neighbours' (round r-1's messages).
  const Eigen::VectorXd& own = release_.last();
  gossip_ = own;
  for (std::size_t k = 0; k < in.size(); ++k) {
    gossip_ += gossip_weights_[k] * (Eigen::Map<const Eigen::VectorXd>(in[k].data(), dim_) - own);
  }
}

void ConsensusNode::ReceiveNeighbours(std::int64_t /*round*/, const runtime::Inbox& in) {
  SumNeighbours(in);
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
  // A gossip round reports what the node sent (round 0 and the algorithm's rounds: the variant's
  // model).
  Eigen::Map<Eigen::VectorXd>(out.data(), dim_) =
      Gossiping(round) ? release_.last() : ReportedModel();
  const bool frozen = release_.frozen();
  out[dim_ + ConsensusReport::kLoss] = mean_loss_;
  out[dim_ + ConsensusReport::kPrivacySpent] = ReportedPrivacy();
  out[dim_ + ConsensusReport::kNextPrivacyLoss] =
      frozen || Gossiping(round + 1) ? 0.0 : PrivacyLoss(round + 1);
  out[dim_ + ConsensusReport::kNoise] = noise_parameter_;
  out[dim_ + ConsensusReport::kFrozen] = frozen ? 1.0 : 0.0;
  out[dim_ + ConsensusReport::kFrozenRound] = static_cast<double>(release_.frozen_round());
  out[dim_ + ConsensusReport::kSpentDelta] = release_.spent_delta();
}

void ConsensusNode::SaveState(StateWriter& out) const {
  out.Vec(f_);
  out.Vec(neighbours_);
  out.Vec(g_);
  out.Vec(noise_);
  out.F64(mean_loss_);
  out.F64(noise_parameter_);
  out.F64(loss_sum_);
  out.I64(data_passes_);
  SaveRelease(out, release_);
  const LocalSolver::WarmState w = solver_.SaveWarmState();
  for (const Eigen::ArrayXd* a : {&w.m, &w.dl, &w.ddl}) out.Arr(*a);  // margins, L', L''
  out.F64(w.loss_sum);
  out.Vec(w.data_grad);
  out.Vec(w.state_f);
  out.Bool(w.state_valid);
  out.I64(w.incremental_steps);
  out.Mat(w.factor);
  out.Bool(w.factor_valid);
  out.F64(w.factor_a);
}

void ConsensusNode::LoadState(StateReader& in) {
  f_ = in.EVec("model", dim_);
  neighbours_ = in.EVec("neighbour sum", dim_);
  g_ = in.EVec("linear term", dim_);
  noise_ = in.EVec("noise", dim_);
  mean_loss_ = in.F64("mean loss");
  noise_parameter_ = in.F64("noise parameter");
  loss_sum_ = in.F64("loss sum");
  data_passes_ = in.I64("data passes");
  Release::State r = ReadRelease(in, static_cast<std::size_t>(dim_), true);
  LocalSolver::WarmState w;
  w.m = in.EArr("solver margins", solver_.rows());
  w.dl = in.EArr("solver first derivatives", solver_.rows());
  w.ddl = in.EArr("solver second derivatives", solver_.rows());
  w.loss_sum = in.F64("solver loss sum");
  w.data_grad = in.EVec("solver gradient", dim_);
  w.state_f = in.EVec("solver point", dim_);
  w.state_valid = in.Bool("solver state valid");
  const std::int64_t steps = in.I64("solver incremental steps");
  if (steps < 0 || steps > 1000000) in.Fail("solver incremental steps", "out of range");
  w.incremental_steps = static_cast<int>(steps);
  w.factor = in.Mat("solver factor");
  w.factor_valid = in.Bool("solver factor valid");
  w.factor_a = in.F64("solver factor a");
  try {
    release_.RestoreState(std::move(r));
    solver_.RestoreWarmState(std::move(w));
  } catch (const InputError& e) {
    in.Fail("node state", e.what());
  }
}

}  // namespace dpadmm
