// SPDX-License-Identifier: Apache-2.0
#include "dpadmm/privacy/release.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>
#include <string>

#include "dpadmm/core/error.h"
#include "dpadmm/privacy/noise.h"

namespace dpadmm {

Release::Release(std::uint64_t seed, std::uint64_t node, double budget)
    : seed_(seed), node_(node), budget_(budget) {
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

bool Release::Open(std::int64_t round, double cost) {
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

Stream& Release::RoundStream(const char* what) {
  RequireOpen(what);
  // One stream per (seed, node, round, purpose): the draws of a round do not depend on the
  // schedule, so every engine and thread count gives the same bits.
  if (!stream_) {
    stream_.emplace(seed_, node_, static_cast<std::uint64_t>(round_), Purpose::kNoise);
  }
  ++draws_;
  return *stream_;
}

void Release::DrawL2Laplace(double a, Eigen::Ref<Eigen::VectorXd> out) {
  dpadmm::DrawL2Laplace(RoundStream("DrawL2Laplace"), a, out);
}

void Release::DrawGaussian(double sigma, Eigen::Ref<Eigen::VectorXd> out) {
  dpadmm::DrawGaussian(RoundStream("DrawGaussian"), sigma, out);
}

void Release::DrawCorrelatedGaussian(const Eigen::MatrixXd& factor, double sigma,
                                     Eigen::Ref<Eigen::VectorXd> out) {
  dpadmm::DrawCorrelatedGaussian(RoundStream("DrawCorrelatedGaussian"), factor, sigma, out);
}

void Release::DrawObjectiveNoise(double R, Eigen::Ref<Eigen::VectorXd> out) {
  if (objective_noise_drawn_ || started_) {
    throw std::logic_error("Release::DrawObjectiveNoise: once per node, before round 1");
  }
  objective_noise_drawn_ = true;
  ++draws_;
  Stream stream(seed_, node_, 0, Purpose::kObjectiveNoise);
  DrawUniformBall(stream, R, out);
}

void Release::Send(const Eigen::Ref<const Eigen::VectorXd>& message, runtime::Outbox& out) {
  RequireOpen("Send");
  open_ = false;
  spent_ += cost_;
  last_ = message;
  has_last_ = true;
  ++releases_;
  Eigen::Map<Eigen::VectorXd>(out.Prepare(static_cast<std::size_t>(last_.size())).data(),
                              last_.size()) = last_;
}

void Release::SendNothing(runtime::Outbox& out) {
  if (open_) {
    open_ = false;
    spent_ += cost_;
  } else if (!frozen_ && started_) {
    throw std::logic_error("Release::SendNothing: no round is open");
  }
  out.Prepare(0);
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

}  // namespace dpadmm
