// SPDX-License-Identifier: Apache-2.0
#include "dpadmm/privacy/release.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>

#include "dpadmm/core/error.h"
#include "dpadmm/privacy/accounting.h"
#include "dpadmm/privacy/noise.h"
#include "dpadmm/privacy/samplers.h"
#include "privacy/noise_weakening.h"

namespace dpadmm {

namespace detail {
double& ThreadNoiseScale() {
  thread_local double scale = 1.0;
  return scale;
}
}  // namespace detail

Release::Release(NoiseKey key, std::uint64_t node, double budget)
    : key_(std::move(key)), node_(node), budget_(budget), noise_scale_(detail::ThreadNoiseScale()) {
  if (!(budget >= 0.0) || !std::isfinite(budget)) {
    std::ostringstream os;
    os << "node " << node << ": privacy budget must be >= 0 and finite (0 = none), got " << budget;
    throw InputError(os.str());
  }
}

void Release::SendInitial(const Eigen::Ref<const Eigen::VectorXd>& message, runtime::Outbox& out) {
  if (open_ || started_ || has_last_) {
    throw std::logic_error("Release::SendInitial: only in round 0, before any other release");
  }
  last_ = message;
  has_last_ = true;
  ++releases_;
  Eigen::Map<Eigen::VectorXd>(out.Prepare(static_cast<std::size_t>(last_.size())).data(),
                              last_.size()) = last_;
}

bool Release::Open(std::int64_t round, double cost,
                   const std::optional<MechanismRelease>& mechanism) {
  if (open_) throw std::logic_error("Release::Open: the previous round was not closed");
  if (round < 1)
    throw std::logic_error("Release::Open: rounds start at 1 (round 0 is SendInitial)");
  if (!(cost >= 0.0) || !std::isfinite(cost)) {
    throw std::logic_error("Release::Open: cost must be >= 0 and finite");
  }
  started_ = true;
  if (frozen_) return false;
  // The refusal comes before any private computation of the round: the cost of a round is known
  // from the schedule alone (the papers' per-iteration terms depend on no data).
  if (budget_ > 0.0 && spent_ + cost > budget_) {
    frozen_ = true;
    frozen_round_ = round;
    return false;
  }
  open_ = true;
  round_ = round;
  cost_ = cost;
  mechanism_ = mechanism;
  stream_.reset();
  return true;
}

void Release::RequireOpen(const char* what) const {
  if (!open_) {
    throw std::logic_error(std::string("Release::") + what +
                           ": no round is open (frozen node, "
                           "or Open was not called)");
  }
}

KeyedStream& Release::RoundStream(const char* what) {
  RequireOpen(what);
  // One stream per (key, round, purpose): the draws of a round do not depend on the schedule,
  // so in simulation mode every engine and thread count gives the same bits.
  if (!stream_) stream_.emplace(key_, static_cast<std::uint64_t>(round_), Purpose::kNoise);
  ++draws_;
  return *stream_;
}

void Release::DrawL2Laplace(double a, Eigen::Ref<Eigen::VectorXd> out) {
  // Density exp(-a ||e||): scale 1 / a.
  snapped_ = true;
  dpadmm::DrawL2Laplace(RoundStream("DrawL2Laplace"), noise_scale_ == 1.0 ? a : a / noise_scale_,
                        out);
}

double Release::DrawGaussian(double sigma, Eigen::Ref<Eigen::VectorXd> out) {
  return DrawDiscreteGaussianGrid(RoundStream("DrawGaussian"),
                                  noise_scale_ == 1.0 ? sigma : sigma * noise_scale_, out);
}

void Release::DrawCorrelatedGaussian(const Eigen::MatrixXd& factor, double sigma,
                                     Eigen::Ref<Eigen::VectorXd> out) {
  dpadmm::DrawCorrelatedGaussian(RoundStream("DrawCorrelatedGaussian"), factor,
                                 noise_scale_ == 1.0 ? sigma : sigma * noise_scale_, out);
}

void Release::DrawObjectiveNoise(double R, Eigen::Ref<Eigen::VectorXd> out) {
  if (objective_noise_drawn_ || started_) {
    throw std::logic_error("Release::DrawObjectiveNoise: once per node, before round 1");
  }
  objective_noise_drawn_ = true;
  ++draws_;
  KeyedStream stream(key_, 0, Purpose::kObjectiveNoise);
  DrawUniformBall(stream, R, out);
}

void Release::Send(const Eigen::Ref<const Eigen::VectorXd>& message, runtime::Outbox& out) {
  RequireOpen("Send");
  open_ = false;
  spent_ += cost_;
  if (mechanism_) mechanisms_.push_back(*mechanism_);
  last_ = message;
  // A node that has drawn noise releases on the grid: the snapped continuous mechanisms round
  // their output there (post-processing), the discrete Gaussian's values are on it already
  // (rounding is then the identity). Non-private nodes keep their bits. Double-precision
  // l2-Laplace noise: the snap grid (21 significant bits above 32), and the release's
  // floating-point term is debited (accounting.h, SnappedReleaseDelta).
  if (snapped_) {
    last_ = last_.unaryExpr([](double v) { return RoundToSnapGrid(v); });
    spent_delta_ += SnappedReleaseDelta(cost_, last_.size());
  } else if (draws_ > 0) {
    last_ = last_.unaryExpr([](double v) { return RoundToGrid(v); });
  }
  has_last_ = true;
  ++releases_;
  Write(out);
}

void Release::Write(runtime::Outbox& out) const {
  Eigen::Map<Eigen::VectorXd>(out.Prepare(static_cast<std::size_t>(last_.size())).data(),
                              last_.size()) = last_;
}

void Release::SendNothing(runtime::Outbox& out) {
  if (open_) {
    open_ = false;
    spent_ += cost_;
    if (mechanism_) mechanisms_.push_back(*mechanism_);
  } else if (!frozen_ && started_) {
    throw std::logic_error("Release::SendNothing: no round is open");
  }
  out.Prepare(0);
}

void Release::SendPostProcessed(const Eigen::Ref<const Eigen::VectorXd>& message,
                                runtime::Outbox& out) {
  RequireOpen("SendPostProcessed");
  if (cost_ != 0.0 || mechanism_) {
    throw std::logic_error(
        "Release::SendPostProcessed: a post-processed message costs nothing; the round was "
        "opened with a cost or a mechanism");
  }
  open_ = false;
  if (message.data() != last_.data()) last_ = message;
  has_last_ = true;
  Write(out);
}

void Release::Resend(runtime::Outbox& out) const {
  if (open_ || !frozen_) throw std::logic_error("Release::Resend: only a frozen node resends");
  if (!has_last_) {
    out.Prepare(0);
    return;
  }
  Eigen::Map<Eigen::VectorXd>(out.Prepare(static_cast<std::size_t>(last_.size())).data(),
                              last_.size()) = last_;
}

Release::State Release::SaveState() const {
  if (open_) throw std::logic_error("Release::SaveState: a round is open");
  State s;
  s.spent = spent_;
  s.spent_delta = spent_delta_;
  s.snapped = snapped_;
  s.frozen = frozen_;
  s.frozen_round = frozen_round_;
  s.round = round_;
  s.cost = cost_;
  s.objective_noise_drawn = objective_noise_drawn_;
  s.started = started_;
  s.last = last_;
  s.has_last = has_last_;
  s.draws = draws_;
  s.releases = releases_;
  s.mechanisms = mechanisms_;
  return s;
}

void Release::RestoreState(State s) {
  const auto bad = [&](const char* what) {
    std::ostringstream os;
    os << "node " << node_ << ": saved release state: " << what;
    throw InputError(os.str());
  };
  if (!(s.spent >= 0.0) || !std::isfinite(s.spent)) bad("spent privacy loss not >= 0 and finite");
  if (budget_ > 0.0 && s.spent > budget_) bad("spent privacy loss above the budget");
  if (!(s.spent_delta >= 0.0) || !(s.spent_delta <= 1.0)) bad("spent delta not in [0, 1]");
  if (!s.snapped && s.spent_delta != 0.0) bad("a spent delta without snapped releases");
  if (s.draws < 0 || s.releases < 0 || s.round < 0 || s.frozen_round < -1) bad("negative count");
  if (!(s.cost >= 0.0) || !std::isfinite(s.cost)) bad("cost not >= 0 and finite");
  if (s.frozen != (s.frozen_round >= 0)) bad("frozen flag and frozen round disagree");
  if (!s.has_last && s.last.size() != 0) bad("a last message without has_last");
  open_ = false;
  stream_.reset();
  mechanism_.reset();
  spent_ = s.spent;
  spent_delta_ = s.spent_delta;
  snapped_ = s.snapped;
  frozen_ = s.frozen;
  frozen_round_ = s.frozen_round;
  round_ = s.round;
  cost_ = s.cost;
  objective_noise_drawn_ = s.objective_noise_drawn;
  started_ = s.started;
  last_ = std::move(s.last);
  has_last_ = s.has_last;
  draws_ = s.draws;
  releases_ = s.releases;
  mechanisms_ = std::move(s.mechanisms);
}

}  // namespace dpadmm
