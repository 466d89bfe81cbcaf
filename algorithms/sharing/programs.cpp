// SPDX-License-Identifier: Apache-2.0
// ADMM sharing over distributed features (001): node programs, the SGD baseline, the
// centralized / local baselines and the experiment that ties them together.
#include "sharing/programs.h"

#include "data/data_source.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <numeric>
#include <sstream>
#include <stdexcept>

#include <Eigen/Eigenvalues>

#include "dpadmm/core/error.h"
#include "dpadmm/data/generators.h"
#include "dpadmm/data/loaders.h"
#include "dpadmm/data/preprocessing.h"
#include "dpadmm/privacy/noise.h"
#include "dpadmm/privacy/samplers.h"
#include "dpadmm/privacy/sharing_accounting.h"
#include "dpadmm/sharing/sharing.h"
#include "dpadmm/solver/local_solver.h"
#include "dpadmm/solver/loss.h"

#include "core/numbers.h"

namespace dpadmm {
namespace sharing {
namespace {

// log(1 + e^{-m}) and its first two derivatives with respect to m (the logistic loss of loss.h).
const Loss kLogistic{};

}  // namespace

// ---------------------------------------------------------------------------------------------
// Linear algebra on column blocks

Dataset ColumnBlock(const Dataset& data, std::int64_t begin, std::int64_t count) {
  if (begin < 0 || count < 0 || begin + count > data.cols()) {
    throw std::out_of_range("ColumnBlock: columns [" + std::to_string(begin) + ", " +
                            std::to_string(begin + count) + ") outside [0, " +
                            std::to_string(data.cols()) + ")");
  }
  Dataset out;
  out.name = data.name;
  out.y = data.y;
  if (const auto* s = std::get_if<SparseRows>(&data.x)) {
    std::vector<Eigen::Triplet<double, SparseIndex>> entries;
    for (Eigen::Index r = 0; r < s->outerSize(); ++r) {
      for (SparseRows::InnerIterator it(*s, r); it; ++it) {
        if (it.col() >= begin && it.col() < begin + count) {
          entries.emplace_back(static_cast<SparseIndex>(r),
                               static_cast<SparseIndex>(it.col() - begin), it.value());
        }
      }
    }
    SparseRows b(s->rows(), count);
    b.setFromTriplets(entries.begin(), entries.end());
    b.makeCompressed();
    out.SetRows(std::move(b));
  } else {
    out.x = DenseRows(std::get<DenseRows>(data.x).middleCols(begin, count));
  }
  return out;
}

Eigen::MatrixXd Gram(const Dataset& block) {
  const std::int64_t d = block.cols();
  Eigen::MatrixXd g = Eigen::MatrixXd::Zero(d, d);
  if (const auto* s = std::get_if<SparseRows>(&block.x)) {
    // Sum of the outer products of the sparse rows (lower triangle, then mirrored).
    for (Eigen::Index r = 0; r < s->outerSize(); ++r) {
      for (SparseRows::InnerIterator a(*s, r); a; ++a) {
        for (SparseRows::InnerIterator b(*s, r); b && b.col() <= a.col(); ++b) {
          g(a.col(), b.col()) += a.value() * b.value();
        }
      }
    }
  } else {
    // At most 128 rows per rank update: Eigen splits a product's depth into blocks sized from
    // the CPU's L1 cache, so one update over all rows summed in a machine-dependent order (and
    // differed from the WebAssembly build). Below 128 every machine sums in the same order
    // (as local_solver.cpp's Hessian).
    constexpr std::int64_t kMaxChunkRows = 128;
    const DenseRows& x = std::get<DenseRows>(block.x);
    for (std::int64_t r = 0; r < x.rows(); r += kMaxChunkRows) {
      const std::int64_t rows = std::min<std::int64_t>(kMaxChunkRows, x.rows() - r);
      g.selfadjointView<Eigen::Lower>().rankUpdate(x.middleRows(r, rows).transpose());
    }
  }
  g.triangularView<Eigen::StrictlyUpper>() = g.transpose();
  return g;
}

Eigen::VectorXd Times(const Dataset& block, const Eigen::VectorXd& x) {
  return VisitRows(block, [&](const auto& m) -> Eigen::VectorXd { return m * x; });
}

Eigen::VectorXd TransposeTimes(const Dataset& block, const Eigen::VectorXd& v) {
  return VisitRows(block, [&](const auto& m) -> Eigen::VectorXd { return m.transpose() * v; });
}

double MeanLogLossOfScores(const Eigen::VectorXd& scores, const Eigen::VectorXd& labels) {
  if (scores.size() == 0) return kNaN;
  double sum = 0.0;
  for (Eigen::Index n = 0; n < scores.size(); ++n) sum += kLogistic.Value(labels[n] * scores[n]);
  return sum / static_cast<double>(scores.size());
}

// ---------------------------------------------------------------------------------------------
// x update (6), noise (16), z update (7)

XUpdate::XUpdate(const Eigen::MatrixXd& gram, double lambda, double rho, double bound)
    : lambda_(lambda), bound_(bound) {
  Eigen::MatrixXd a = rho * gram;
  a.diagonal().array() += lambda;
  llt_.compute(a);
  if (llt_.info() != Eigen::Success) {
    throw std::runtime_error("XUpdate: lambda I + rho D^T D is not positive definite");
  }
  if (bound_ > 0.0) {
    Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(a);
    if (eig.info() != Eigen::Success)
      throw std::runtime_error("XUpdate: eigendecomposition failed");
    basis_ = eig.eigenvectors();
    // A = lambda I + rho G has every eigenvalue >= lambda > 0 (rounding may put one a hair
    // below; the bound keeps the secular equation's denominators positive).
    eigen_a_ = eig.eigenvalues().cwiseMax(lambda);
  }
}

void XUpdate::Solve(const Eigen::VectorXd& rhs, Eigen::VectorXd& x) const {
  x = llt_.solve(rhs);
  if (bound_ <= 0.0 || !(x.norm() > bound_)) return;
  // Trust-region subproblem: ||x(nu)||^2 = sum_i c_i^2 / (a_i + nu)^2, c = V^T rhs, decreasing
  // in nu; at nu = ||rhs|| / bound it is <= bound^2. Bisection to 1e-13 relative.
  const Eigen::VectorXd c = basis_.transpose() * rhs;
  const auto norm_at = [&](double nu) {
    return (c.array() / (eigen_a_.array() + nu)).matrix().norm();
  };
  double lo = 0.0, hi = rhs.norm() / bound_;
  for (int it = 0; it < 200 && hi - lo > 1e-13 * hi; ++it) {
    const double mid = 0.5 * (lo + hi);
    (norm_at(mid) > bound_ ? lo : hi) = mid;
  }
  x = basis_ * (c.array() / (eigen_a_.array() + hi)).matrix();
  const double n = x.norm();
  if (n > bound_) x *= bound_ / n;  // rounding only: keeps ||x|| <= b1 exactly
}

GramNoise::GramNoise(const Eigen::MatrixXd& gram) {
  const std::int64_t d = gram.rows();
  const double scale = d > 0 ? gram.diagonal().maxCoeff() : 0.0;
  Eigen::LLT<Eigen::MatrixXd> llt(gram);
  bool regular = d > 0 && scale > 0.0 && llt.info() == Eigen::Success;
  if (regular) {
    const Eigen::MatrixXd l = llt.matrixL();
    regular = (l.diagonal().array().square() > 1e-12 * scale).all();
    if (regular) {
      // xi = sigma L^{-T} u: store L^{-T} (upper triangular) explicitly; d <= a few thousand.
      // One column at a time (triangular solves with a vector): a solve with the whole identity
      // as right-hand side goes through Eigen's blocked kernel, whose block depth comes from the
      // CPU's cache sizes, so its sums (hence the noise bits) differed between machines and
      // between native and WebAssembly builds. The vector solve's blocking is fixed.
      const auto upper = l.transpose().triangularView<Eigen::Upper>();
      factor_ = Eigen::MatrixXd::Zero(d, d);
      Eigen::VectorXd column(d);
      for (std::int64_t j = 0; j < d; ++j) {
        column.setZero();
        column[j] = 1.0;
        upper.solveInPlace(column);
        factor_.col(j) = column;
      }
      rank_ = d;
      return;
    }
  }
  pseudo_ = true;
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(gram);
  if (eig.info() != Eigen::Success)
    throw std::runtime_error("GramNoise: eigendecomposition failed");
  const Eigen::VectorXd g = eig.eigenvalues();
  const double tol = 1e-10 * std::max(g.size() > 0 ? g.maxCoeff() : 0.0, 0.0);
  factor_ = Eigen::MatrixXd::Zero(d, d);
  for (Eigen::Index i = 0; i < g.size(); ++i) {
    if (g[i] > tol && g[i] > 0.0) {
      factor_.col(i) = eig.eigenvectors().col(i) / std::sqrt(g[i]);
      ++rank_;
    }
  }
}

void GramNoise::Draw(Stream& stream, double sigma, Eigen::Ref<Eigen::VectorXd> out) const {
  DrawCorrelatedGaussian(stream, factor_, sigma, out);
}

ZUpdateReport UpdateZ(const Eigen::VectorXd& s, const Eigen::VectorXd& y,
                      const Eigen::VectorXd& labels, double rho, double tolerance,
                      int max_iterations, Eigen::VectorXd& z) {
  const Eigen::Index n_rows = s.size();
  const double inv_n = 1.0 / static_cast<double>(n_rows);
  const double half_width = inv_n / rho;
  z.resize(n_rows);
  // Per sample: the bracket [lo, hi] (phi'(lo) <= 0 <= phi'(hi)) and the last two step sizes.
  Eigen::VectorXd lo(n_rows), hi(n_rows), dx(n_rows), dx_old(n_rows);
  for (Eigen::Index n = 0; n < n_rows; ++n) {
    const double c = s[n] + y[n] / rho;  // the minimiser without the loss term
    z[n] = c;
    lo[n] = c - half_width;
    hi[n] = c + half_width;
    dx[n] = dx_old[n] = 2.0 * half_width;
  }
  ZUpdateReport report;
  std::vector<char> done(static_cast<std::size_t>(n_rows), 0);
  Eigen::Index remaining = n_rows;
  for (int it = 1; it <= max_iterations && remaining > 0; ++it) {
    report.iterations = it;
    for (Eigen::Index n = 0; n < n_rows; ++n) {
      if (done[n]) continue;
      const double a = labels[n];
      const double m = a * z[n];
      // phi'(z) = (a/N) L'(a z) - y + rho (z - s),  phi''(z) = (1/N) L''(a z) + rho.
      const double d1 = a * inv_n * kLogistic.D1(m) - y[n] + rho * (z[n] - s[n]);
      const double d2 = inv_n * kLogistic.D2(m) + rho;
      if (d1 == 0.0) {
        done[n] = 1;
        --remaining;
        continue;
      }
      (d1 > 0.0 ? hi[n] : lo[n]) = z[n];
      // Newton step, unless it leaves the bracket or does not shrink fast enough (|step| would
      // exceed half the step before last): then bisect (Numerical Recipes' rtsafe rule). The
      // bracket at least halves every two iterations, and Newton converges quadratically
      // near the solution.
      const double newton = d1 / d2;
      const double next = z[n] - newton;
      if (!(next > lo[n] && next < hi[n]) || std::abs(2.0 * newton) > std::abs(dx_old[n])) {
        dx_old[n] = dx[n];
        dx[n] = 0.5 * (hi[n] - lo[n]);
        z[n] = lo[n] + dx[n];
      } else {
        dx_old[n] = dx[n];
        dx[n] = newton;
        z[n] = next;
      }
      if (std::abs(dx[n]) <= tolerance * std::max(1.0, std::abs(z[n]))) {
        done[n] = 1;
        --remaining;
      }
    }
  }
  if (remaining > 0) {
    report.converged = false;
    for (Eigen::Index n = 0; n < n_rows; ++n) {
      if (!done[n]) {
        report.worst_sample = n;
        break;
      }
    }
  }
  return report;
}

// ---------------------------------------------------------------------------------------------
// Node programs

namespace {
std::string RoundText(std::int64_t round) {
  return "round " + std::to_string(round) + " (iteration " + std::to_string((round + 1) / 2) + ")";
}
}  // namespace

SharingParty::SharingParty(const Dataset& block, const XUpdate& xupdate, const GramNoise* noise,
                           const PartyParams& params)
    : block_(block),
      xupdate_(xupdate),
      noise_(noise),
      params_(params),
      rows_(block.rows()),
      release_(NoiseKey::Make(params.noise_seed, static_cast<std::uint64_t>(params.party)),
               static_cast<std::uint64_t>(params.party), params.privacy_budget),
      x_(Eigen::VectorXd::Zero(block.cols())),
      share_(Eigen::VectorXd::Zero(block.rows())),
      xi_(Eigen::VectorXd::Zero(block.cols())),
      message_noise_(Eigen::VectorXd::Zero(block.rows())),
      clean_share_(Eigen::VectorXd::Zero(block.rows())) {
  if (params_.sigma > 0.0 && params_.mechanism == SharingMechanism::kPaper16 && noise_ == nullptr) {
    throw std::invalid_argument("SharingParty: sigma > 0 needs a noise sampler");
  }
  // The privacy boundary of 001's setting: the coordinator holds the labels, a party only its
  // features.
  if (block.y.size() != 0) {
    throw std::invalid_argument("SharingParty: a party's block must not carry labels");
  }
}

runtime::StepResult SharingParty::Start(runtime::Outbox& out) {
  release_.SendNothing(out);  // x^0 = 0: nothing to say before the coordinator's first message
  return runtime::StepResult::Ok();
}

runtime::StepResult SharingParty::Step(std::int64_t round, const runtime::Inbox& in,
                                       runtime::Outbox& out) {
  const bool party_phase = round % 2 == 1;
  // An iteration's release costs the party's epsilon; the coordinator phase releases nothing.
  if (!release_.Open(round, party_phase ? params_.epsilon : 0.0)) {
    // Frozen: the last share again in the party phase, nothing in the coordinator phase.
    if (party_phase) {
      release_.Resend(out);
    } else {
      release_.SendNothing(out);
    }
    return runtime::StepResult::Ok();
  }
  if (!party_phase) {
    release_.SendNothing(out);
    return runtime::StepResult::Ok();
  }
  runtime::StepResult r = UpdatePrimal(round, in[0]);
  if (!r.ok) return r;
  release_.Send(share_, out);
  return runtime::StepResult::Ok();
}

runtime::StepResult SharingParty::UpdatePrimal(std::int64_t round,
                                               std::span<const double> message) {
  const std::string who = "party " + std::to_string(params_.party) + " (node " +
                          std::to_string(params_.party) + "), " + RoundText(round);
  if (message.size() != 2 * static_cast<std::size_t>(rows_)) {
    return runtime::StepResult::Fail(who + ": expected the coordinator's 2N values, got " +
                                     std::to_string(message.size()));
  }
  // Algorithm 1: the message holds s^t - z^t and y^t; subtracting the cached share gives
  // c = sum_{k != m} D_k x~_k^t - z^t.
  const bool gaussian_noise =
      params_.sigma > 0.0 && params_.mechanism == SharingMechanism::kGaussian;
  const Eigen::Map<const Eigen::VectorXd> residual(message.data(), rows_);
  const Eigen::Map<const Eigen::VectorXd> y(message.data() + rows_, rows_);
  // kGaussian: the party removes its OWN noise from its view (it knows it): it subtracts its
  // noiseless share D_m x_m, so c = sum_{k != m} D_k x~_k + e_m - z. Without this, e_m returns
  // through z (which follows s) and the x step fits D_m x to -e_m, a least-squares fit of pure
  // noise far larger than b1. This is computation on the party's private state; its releases
  // are unaffected (the sensitivity bound holds for any x_m in the b1-ball).
  const Eigen::VectorXd& own = gaussian_noise ? clean_share_ : share_;
  const Eigen::VectorXd v = -(y + params_.rho * (residual - own));
  // (6): (lambda I + rho D^T D) x = -D^T (y + rho c).
  xupdate_.Solve(TransposeTimes(block_, v), x_);
  if (!x_.allFinite()) return runtime::StepResult::Fail(who + ": x update is not finite");
  if (params_.sigma > 0.0 && params_.mechanism == SharingMechanism::kPaper16) {
    // (16): x~ = x + xi, xi ~ N(0, sigma^2 (D^T D)^{-1}), drawn by the release from the
    // party's stream of this round. Not DP as stated: D xi lies in col(D).
    release_.DrawCorrelatedGaussian(noise_->factor(), params_.sigma, xi_);
    x_ += xi_;
  }
  share_ = Times(block_, x_);
  if (!share_.allFinite()) return runtime::StepResult::Fail(who + ": D_m x_m is not finite");
  if (gaussian_noise) {
    clean_share_ = share_;
    // The Gaussian mechanism on the message (README): D_m x_m rounded to the lattice plus the
    // exact discrete Gaussian on it, data-independent covariance sigma^2 I_N. x_m itself
    // stays with the party (||x_m|| <= b1 by the x step).
    const double step = release_.DrawGaussian(params_.sigma, message_noise_);
    share_ = share_.unaryExpr([step](double value) { return RoundToGrid(value, step); }) +
             message_noise_;
  }
  return runtime::StepResult::Ok();
}

void SharingParty::Report(std::int64_t /*round*/, std::span<double> out) const {
  std::fill(out.begin(), out.end(), 0.0);
  std::copy(x_.data(), x_.data() + x_.size(), out.begin());
}

void SharingParty::SaveState(StateWriter& out) const {
  out.Vec(x_);
  out.Vec(share_);
  out.Vec(xi_);
  out.Vec(message_noise_);
  out.Vec(clean_share_);
  SaveRelease(out, release_);
}

void SharingParty::LoadState(StateReader& in) {
  x_ = in.EVec("party weights", x_.size());
  share_ = in.EVec("party share", rows_);
  xi_ = in.EVec("party noise", xi_.size());
  message_noise_ = in.EVec("party message noise", rows_);
  clean_share_ = in.EVec("party clean share", rows_);
  LoadRelease(in, release_, MaxMessageSize());
}

SharingCoordinator::SharingCoordinator(const Eigen::VectorXd& labels,
                                       const CoordinatorParams& params)
    : labels_(labels),
      params_(params),
      // The coordinator draws no noise: a fixed key that no stream ever reads.
      release_(NoiseKey::FromSeed(0, 0), /*node=*/0),
      s_(Eigen::VectorXd::Zero(labels.size())),
      z_(Eigen::VectorXd::Zero(labels.size())),
      y_(Eigen::VectorXd::Zero(labels.size())) {
  mean_loss_ = MeanLogLossOfScores(s_, labels_);
}

void SharingCoordinator::ComposeMessage() {
  const Eigen::Index n = labels_.size();
  message_.resize(2 * n);
  message_.head(n) = s_ - z_;
  message_.tail(n) = y_;
}

runtime::StepResult SharingCoordinator::Start(runtime::Outbox& out) {
  ComposeMessage();  // x^0 = z^0 = y^0 = 0 (001's initialisation)
  release_.SendInitial(message_, out);
  return runtime::StepResult::Ok();
}

runtime::StepResult SharingCoordinator::Step(std::int64_t round, const runtime::Inbox& in,
                                             runtime::Outbox& out) {
  release_.Open(round, 0.0);  // no budget: never refused
  if (round % 2 == 1) {       // party phase
    release_.SendNothing(out);
    return runtime::StepResult::Ok();
  }
  const Eigen::Index n = labels_.size();
  s_.setZero();
  for (std::size_t k = 0; k < in.size(); ++k) {  // party order: bitwise reproducible sum
    if (in[k].size() != static_cast<std::size_t>(n)) {
      return runtime::StepResult::Fail(
          "coordinator (node 0), " + RoundText(round) + ": party " + std::to_string(k + 1) +
          " sent " + std::to_string(in[k].size()) + " values, expected " + std::to_string(n));
    }
    const Eigen::Map<const Eigen::VectorXd> share(in[k].data(), n);
    if (!share.allFinite()) {
      return runtime::StepResult::Fail("coordinator (node 0), " + RoundText(round) +
                                       ": non-finite partial scores from party " +
                                       std::to_string(k + 1));
    }
    s_ += share;
  }
  runtime::StepResult r = UpdateAuxiliary(round);
  if (!r.ok) return r;
  UpdateDual();
  mean_loss_ = MeanLogLossOfScores(s_, labels_);
  if (!y_.allFinite() || !std::isfinite(mean_loss_)) {
    return runtime::StepResult::Fail("coordinator (node 0), " + RoundText(round) +
                                     ": dual variable or loss is not finite");
  }
  ComposeMessage();
  release_.Send(message_, out);
  return runtime::StepResult::Ok();
}

runtime::StepResult SharingCoordinator::UpdateAuxiliary(std::int64_t round) {
  // (7): z^{t+1} = argmin l(z) - <y^t, z> + (rho/2) ||s^{t+1} - z||^2, one scalar per sample.
  const ZUpdateReport r =
      UpdateZ(s_, y_, labels_, params_.rho, params_.z_tolerance, params_.z_max_iterations, z_);
  z_iterations_ = r.iterations;
  if (!r.converged || !z_.allFinite()) {
    return runtime::StepResult::Fail(
        "coordinator (node 0), " + RoundText(round) + ": z update did not converge in " +
        std::to_string(params_.z_max_iterations) + " Newton steps (sample " +
        std::to_string(r.worst_sample) + ")");
  }
  return runtime::StepResult::Ok();
}

void SharingCoordinator::UpdateDual() {
  // (8): y^{t+1} = y^t + rho (s^{t+1} - z^{t+1}).
  y_ += params_.rho * (s_ - z_);
}

void SharingCoordinator::SaveState(StateWriter& out) const {
  out.Vec(s_);
  out.Vec(z_);
  out.Vec(y_);
  out.Vec(message_);
  out.F64(mean_loss_);
  out.I64(z_iterations_);
  SaveRelease(out, release_);
}

void SharingCoordinator::LoadState(StateReader& in) {
  const std::int64_t n = labels_.size();
  s_ = in.EVec("coordinator scores", n);
  z_ = in.EVec("coordinator z", n);
  y_ = in.EVec("coordinator y", n);
  message_ = in.EVec("coordinator message", 2 * n);
  mean_loss_ = in.F64("coordinator loss");
  const std::int64_t iterations = in.I64("coordinator z iterations");
  if (iterations < 0 || iterations > params_.z_max_iterations) {
    in.Fail("coordinator z iterations", "out of range");
  }
  z_iterations_ = static_cast<int>(iterations);
  LoadRelease(in, release_, MaxMessageSize());
}

void SharingCoordinator::Report(std::int64_t /*round*/, std::span<double> out) const {
  std::fill(out.begin(), out.end(), 0.0);
  out[0] = mean_loss_;
  out[1] = (s_ - z_).norm();
  out[2] = y_.norm();
  out[3] = z_.norm();
  out[4] = z_iterations_;
}

}  // namespace sharing
}  // namespace dpadmm
