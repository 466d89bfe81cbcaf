#include "consensus/consensus_admm.h"

#include <cmath>
#include <limits>
#include <string>

#include "dpadmm/privacy/accounting.h"
#include "dpadmm/core/error.h"
#include "dpadmm/privacy/noise.h"
#include "dpadmm/core/random.h"

namespace dpadmm {
namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
}  // namespace

ConsensusVariant ParseConsensusVariant(const std::string& name) {
  if (name == "admm") return ConsensusVariant::kAdmm;
  if (name == "dvp") return ConsensusVariant::kDvp;
  if (name == "pvp") return ConsensusVariant::kPvp;
  if (name == "madmm") return ConsensusVariant::kMadmm;
  if (name == "radmm") return ConsensusVariant::kRadmm;
  if (name == "mradmm") return ConsensusVariant::kMradmm;
  if (name == "private_mradmm") return ConsensusVariant::kPrivateMradmm;
  throw InputError("algorithm.name: unknown algorithm '" + name + "'");
}

bool IsPrivate(ConsensusVariant v, double alpha) {
  switch (v) {
    case ConsensusVariant::kDvp:
    case ConsensusVariant::kPvp:
    case ConsensusVariant::kPrivateMradmm: return true;
    case ConsensusVariant::kMadmm: return alpha > 0.0;
    default: return false;
  }
}

ConsensusNode::ConsensusNode(int id, const Dataset& data, int degree, const Loss& loss,
                             const NewtonOptions& newton, const ConsensusNodeParams& params,
                             Eigen::VectorXd f0)
    : id_(id),
      degree_(degree),
      dim_(f0.size()),
      rows_(static_cast<double>(data.rows())),
      params_(params),
      solver_(data, params.C / static_cast<double>(data.rows()), loss, newton),
      f_(std::move(f0)),
      f_prev_(dim_),
      lambda_(Eigen::VectorXd::Zero(dim_)),
      neighbours_(dim_),
      g_(dim_),
      noise_(dim_),
      recycled_(Eigen::VectorXd::Zero(dim_)) {}

double ConsensusNode::Penalty(std::int64_t round) const {
  switch (params_.variant) {
    case ConsensusVariant::kMadmm:  // 002: eta_i(t+1) = theta q1^t
      return GeometricSchedule(params_.eta, params_.q1, round);
    case ConsensusVariant::kMradmm:
    case ConsensusVariant::kPrivateMradmm:  // 003: eta_i(2k-1) = eta q1^k, also used in round 2k
      return GeometricSchedule(params_.eta * params_.q1, params_.q1, (round + 1) / 2);
    default:
      return params_.eta;
  }
}

double ConsensusNode::Alpha(std::int64_t round) const {
  if (params_.alpha <= 0.0) return 0.0;
  switch (params_.variant) {
    case ConsensusVariant::kDvp:
    case ConsensusVariant::kPvp:
    case ConsensusVariant::kMadmm:  // 002: alpha_i(t+1) = alpha q2^t
      return GeometricSchedule(params_.alpha, params_.q2, round);
    case ConsensusVariant::kPrivateMradmm:  // 003 Algorithm 3: alpha_i(k) in odd round 2k-1
      return round % 2 == 1 ? GeometricSchedule(params_.alpha, params_.q2, (round + 1) / 2) : 0.0;
    default:
      return 0.0;
  }
}

double ConsensusNode::PrivacyLoss(std::int64_t round) const {
  const double alpha = Alpha(round);
  if (alpha <= 0.0) return 0.0;
  const double c1 = solver_.loss().CurvatureBound();
  switch (params_.variant) {
    case ConsensusVariant::kDvp:
    case ConsensusVariant::kPvp:  // dynamic alpha_i(t)-DP per iteration (004 Theorem 1)
      return alpha;
    case ConsensusVariant::kMadmm:  // 002: C (1.4 c1 + alpha_i(t)) / (eta_i(t) V_i B_i)
      return MadmmIterationLoss(params_.C, c1, alpha, Penalty(round), degree_, rows_);
    case ConsensusVariant::kPrivateMradmm:  // 003 eq. (32), one odd iteration's term
      return MrAdmmIterationLoss(params_.C, rows_, c1, params_.rho_node * params_.num_nodes,
                                 params_.num_nodes, Penalty(round), degree_, alpha);
    default:
      return 0.0;
  }
}

bool ConsensusNode::IsEvenRecycledRound(std::int64_t round) const {
  const bool recycled = params_.variant == ConsensusVariant::kRadmm ||
                        params_.variant == ConsensusVariant::kMradmm ||
                        params_.variant == ConsensusVariant::kPrivateMradmm;
  return recycled && round % 2 == 0;
}

runtime::StepResult ConsensusNode::Start(runtime::Outbox& out) {
  mean_loss_ = solver_.MeanLoss(f_);
  ++data_passes_;
  auto m = out.Prepare(static_cast<std::size_t>(dim_));
  Eigen::Map<Eigen::VectorXd>(m.data(), dim_) = f_;
  return runtime::StepResult::Ok();
}

runtime::StepResult ConsensusNode::Step(std::int64_t round, const runtime::Inbox& in,
                                        runtime::Outbox& out) {
  SumNeighbours(in);
  UpdateDual(round);
  f_prev_ = f_;
  noise_parameter_ = 0.0;
  if (IsEvenRecycledRound(round)) {
    UpdatePrimalRecycled(round);
    if (!f_.allFinite()) return Check(round, "recycled primal update", SolveStatus::kNonFinite);
  } else {
    runtime::StepResult r = UpdatePrimal(round);
    if (!r.ok) return r;
  }
  privacy_spent_ += PrivacyLoss(round);
  auto m = out.Prepare(static_cast<std::size_t>(dim_));
  Eigen::Map<Eigen::VectorXd>(m.data(), dim_) = f_;
  return runtime::StepResult::Ok();
}

void ConsensusNode::SumNeighbours(const runtime::Inbox& in) {
  neighbours_.setZero();
  for (std::size_t k = 0; k < in.size(); ++k) {
    neighbours_ += Eigen::Map<const Eigen::VectorXd>(in[k].data(), dim_);
  }
}

// The dual update of the previous iteration, applied now that the neighbours' f_j(r-1) have
// arrived: lambda_i += (step / 2) sum_j (f_i(r-1) - f_j(r-1)).
void ConsensusNode::UpdateDual(std::int64_t round) {
  double step = 0.0;
  switch (params_.variant) {
    case ConsensusVariant::kAdmm:
    case ConsensusVariant::kDvp:
    case ConsensusVariant::kPvp:  // 004 eq. (11) / (16)
      step = round >= 2 ? params_.eta : 0.0;
      break;
    case ConsensusVariant::kMadmm:  // 002: lambda_i(t+1) = lambda_i(t) + (theta/2) sum_j (...)
      step = round >= 2 ? (params_.dual_step > 0.0 ? params_.dual_step : Penalty(1)) : 0.0;
      break;
    default:  // 003 eqs. (13)/(15) after odd round 2k-1; eqs. (11)/(17): unchanged after even rounds
      step = round % 2 == 0 ? Penalty(round) : 0.0;
      break;
  }
  if (step == 0.0) return;
  lambda_ += (0.5 * step) * (static_cast<double>(degree_) * f_ - neighbours_);
}

// 004 eqs. (9)-(10) (DVP: (13)-(15)), 002's PP update, 003 eqs. (12)/(14)/(18).
runtime::StepResult ConsensusNode::UpdatePrimal(std::int64_t round) {
  const double eta = Penalty(round);
  const double V = static_cast<double>(degree_);
  double a = params_.rho_node + 2.0 * eta * V;
  g_ = 2.0 * lambda_ - eta * (V * f_ + neighbours_);
  const double alpha = Alpha(round);
  if (alpha > 0.0) {
    switch (params_.variant) {
      case ConsensusVariant::kDvp: {
        // 004 Algorithm 2: alpha_hat / Phi rule; eq. (14) mu = lambda + (C / 2B) eps, so the
        // term 2 mu^T f adds (C / B) eps to g; eq. (13) adds (Phi / 2) ||f||^2.
        const DvpParameters p = DvpNoise(alpha, params_.C, rows_, solver_.loss().CurvatureBound(),
                                         params_.rho_node, eta, degree_);
        DrawNoise(round, p.zeta);
        g_ += (params_.C / rows_) * noise_;
        a += p.phi;
        noise_parameter_ = p.zeta;
        break;
      }
      case ConsensusVariant::kMadmm:
        // 002 PP: eta_i(t+1) sum_j ||eps + f - (f_i + f_j)/2||^2 adds 2 eta V eps^T f.
        DrawNoise(round, alpha);
        g_ += (2.0 * eta * V) * noise_;
        noise_parameter_ = alpha;
        break;
      case ConsensusVariant::kPrivateMradmm:
        // 003 eq. (18): L^priv adds eps^T f, eps ~ exp(-alpha_i(k) ||eps||).
        DrawNoise(round, alpha);
        g_ += noise_;
        noise_parameter_ = alpha;
        break;
      default:
        break;
    }
  }
  const SolveReport report = solver_.Solve(a, g_, f_);
  ++data_passes_;
  if (report.status == SolveStatus::kNonFinite || !f_.allFinite()) {
    return Check(round, "primal update", report.status);
  }
  mean_loss_ = report.loss_sum / params_.C;  // weights are C / B_i

  switch (params_.variant) {
    case ConsensusVariant::kPvp: {
      // Release f + eps with density exp(-zeta ||eps||), zeta = alpha / sensitivity of the
      // exact update; the node continues from the released value.
      const double zeta = PvpNoiseParameter(alpha, params_.C, rows_, params_.rho_node, eta, degree_);
      DrawNoise(round, zeta);
      f_ += noise_;
      noise_parameter_ = zeta;
      mean_loss_ = kNaN;  // the loss at the released point is evaluated outside the node
      break;
    }
    case ConsensusVariant::kRadmm:
    case ConsensusVariant::kMradmm:
      // Algorithms 1-2: compute grad O(f_i(2k-1), D_i) now, to recycle it in round 2k.
      solver_.LossAndGradient(f_, recycled_);
      ++data_passes_;
      recycled_ += params_.rho_node * f_;
      break;
    case ConsensusVariant::kPrivateMradmm:
      // 003, after eq. (18): eps + grad O(f_i(2k-1)) from the KKT condition, no data needed:
      //   -2 lambda_i(2k-2) - eta sum_j (2 f_i(2k-1) - f_i(2k-2) - f_j(2k-2)).
      recycled_ = -2.0 * lambda_ - eta * (2.0 * V * f_ - V * f_prev_ - neighbours_);
      break;
    default:
      break;
  }
  if (!f_.allFinite()) return Check(round, "primal update", SolveStatus::kNonFinite);
  return runtime::StepResult::Ok();
}

// 003 eq. (10) / (16) / (19): f_i(2k) = f_i(2k-1) - (stored gradient + 2 lambda_i(2k-1)
//   + eta_i(2k-1) sum_j (f_i(2k-1) - f_j(2k-1))) / (2 eta_i(2k-1) V_i + gamma). No data access.
void ConsensusNode::UpdatePrimalRecycled(std::int64_t round) {
  const double eta = Penalty(round);
  const double V = static_cast<double>(degree_);
  const double step = 1.0 / (2.0 * eta * V + params_.gamma);
  f_ -= step * (recycled_ + 2.0 * lambda_ + eta * (V * f_prev_ - neighbours_));
  mean_loss_ = kNaN;
}

void ConsensusNode::DrawNoise(std::int64_t round, double zeta) {
  Stream stream(params_.seed, static_cast<std::uint64_t>(id_), static_cast<std::uint64_t>(round),
                Purpose::kNoise);
  DrawL2Laplace(stream, zeta, noise_);
}

runtime::StepResult ConsensusNode::Check(std::int64_t round, const char* what,
                                         SolveStatus status) const {
  return runtime::StepResult::Fail("node " + std::to_string(id_) + " diverged in round " +
                                   std::to_string(round) + ": non-finite " + what +
                                   " (local solver: " + ToString(status) + ")");
}

void ConsensusNode::Report(std::int64_t round, std::span<double> out) const {
  Eigen::Map<Eigen::VectorXd>(out.data(), dim_) = f_;
  out[dim_] = mean_loss_;
  out[dim_ + 1] = privacy_spent_;
  out[dim_ + 2] = PrivacyLoss(round + 1);
  out[dim_ + 3] = noise_parameter_;
}

}  // namespace dpadmm
