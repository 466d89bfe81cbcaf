// SPDX-License-Identifier: Apache-2.0
#include "dpadmm/privacy/accountant.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include "core/field_error.h"
#include "dpadmm/core/error.h"
#include "dpadmm/core/portable_math.h"
#include "privacy/pld_math.h"

namespace dpadmm {
namespace {

using detail::Require;

// Smallest x in [0, hi] with decreasing(x) <= target, by bisection to 1e-13 relative (and 1e-300
// absolute); decreasing must be nonincreasing with decreasing(hi) <= target.
template <class F>
double BisectDecreasing(F decreasing, double hi, double target) {
  if (decreasing(0.0) <= target) return 0.0;
  double lo = 0.0;
  for (int it = 0; it < 400 && hi - lo > 1e-13 * hi + 1e-300; ++it) {
    const double mid = 0.5 * (lo + hi);
    (decreasing(mid) <= target ? hi : lo) = mid;
  }
  return hi;
}

}  // namespace

double AnalyticGaussianDelta(double sensitivity, double sigma, double epsilon) {
  const char* fn = "AnalyticGaussianDelta";
  Require(std::isfinite(sensitivity) && sensitivity >= 0.0, fn,
          "sensitivity must be finite and >= 0", sensitivity);
  Require(std::isfinite(sigma) && sigma > 0.0, fn, "sigma must be finite and > 0", sigma);
  Require(std::isfinite(epsilon) && epsilon >= 0.0, fn, "epsilon must be finite and >= 0", epsilon);
  if (sensitivity == 0.0) return 0.0;
  const double a = epsilon * sigma / sensitivity;
  const double b = sensitivity / (2.0 * sigma);
  // Balle and Wang 2018, Thm 8. The second term as e^{eps + log Phi}: e^eps alone overflows
  // beyond eps = 709.78, where a strong mechanism (mu = D / sigma above about 35) still has
  // its epsilon, and inf * 0 would make delta look 0 there (an epsilon capped at 709.78).
  // Below eps = 700 the product form is exact enough and kept (same bits as before).
  const double second = epsilon < 700.0 ? math::Exp(epsilon) * pld_detail::NormalCdf(-a - b)
                                        : math::Exp(epsilon + pld_detail::LogNormalCdf(-a - b));
  const double d = pld_detail::NormalCdf(-a + b) - second;
  return std::max(0.0, d);
}

double AnalyticGaussianEpsilon(double sensitivity, double sigma, double delta) {
  const char* fn = "AnalyticGaussianEpsilon";
  Require(delta > 0.0 && delta < 1.0, fn, "delta must be in (0, 1)", delta);
  const auto f = [&](double e) { return AnalyticGaussianDelta(sensitivity, sigma, e); };
  double hi = 1.0;
  while (f(hi) > delta) hi *= 2.0;
  return BisectDecreasing(f, hi, delta);
}

double OptimalCompositionDelta(double epsilon0, std::int64_t k, double epsilon, double delta0) {
  const char* fn = "OptimalCompositionDelta";
  Require(std::isfinite(epsilon0) && epsilon0 >= 0.0, fn, "epsilon0 must be finite and >= 0",
          epsilon0);
  Require(k >= 0, fn, "k must be >= 0", static_cast<double>(k));
  Require(std::isfinite(epsilon) && epsilon >= 0.0, fn, "epsilon must be finite and >= 0", epsilon);
  Require(delta0 >= 0.0 && delta0 <= 1.0, fn, "delta0 must be in [0, 1]", delta0);
  double pure = 0.0;
  if (epsilon0 > 0.0) {
    // log (1 + e^{eps0})^k
    const double log_norm = static_cast<double>(k) * (epsilon0 + math::Log1p(math::Exp(-epsilon0)));
    // log C(k, i), summed term by term as pld_detail::LogBinomial sums it (the same bits: the
    // loop ends before i reaches k / 2, so LogBinomial never takes its k - i branch); an O(k)
    // sum per call instead of O(k^2), which made a per-round figure cubic in the rounds.
    double log_binomial = 0.0;
    for (std::int64_t i = 0; i <= k; ++i) {
      const double top = static_cast<double>(k - i) * epsilon0;
      const double low = static_cast<double>(i) * epsilon0;
      if (top - low <= epsilon) break;  // (k - 2i) eps0 > eps fails from here on
      // C(k,i) e^{(k-i) eps0} (1 - e^{eps + i eps0 - (k-i) eps0}) / (1 + e^{eps0})^k
      const double log_term = log_binomial + top - log_norm;
      pure += math::Exp(log_term) * -math::Expm1(epsilon + low - top);
      log_binomial += math::Log(static_cast<double>(k - i) / static_cast<double>(i + 1));
    }
  }
  pure = std::min(1.0, pure);
  if (delta0 == 0.0) return pure;
  // 1 - (1 - delta0)^k (1 - pure)
  const double log_keep = static_cast<double>(k) * math::Log1p(-delta0) + math::Log1p(-pure);
  return -math::Expm1(log_keep);
}

double OptimalCompositionEpsilon(double epsilon0, std::int64_t k, double delta, double delta0) {
  const char* fn = "OptimalCompositionEpsilon";
  Require(delta > 0.0 && delta < 1.0, fn, "delta must be in (0, 1)", delta);
  const auto f = [&](double e) { return OptimalCompositionDelta(epsilon0, k, e, delta0); };
  const double hi = static_cast<double>(k) * epsilon0;
  if (f(hi) > delta) return std::numeric_limits<double>::infinity();  // delta0 part too large
  return BisectDecreasing(f, hi, delta);
}

double AdvancedCompositionEpsilon(double epsilon0, std::int64_t k, double delta_prime) {
  const char* fn = "AdvancedCompositionEpsilon";
  Require(std::isfinite(epsilon0) && epsilon0 >= 0.0, fn, "epsilon0 must be finite and >= 0",
          epsilon0);
  Require(k >= 0, fn, "k must be >= 0", static_cast<double>(k));
  Require(delta_prime > 0.0 && delta_prime < 1.0, fn, "delta_prime must be in (0, 1)", delta_prime);
  const double kd = static_cast<double>(k);
  return std::sqrt(2.0 * kd * math::Log(1.0 / delta_prime)) * epsilon0 +
         kd * epsilon0 * math::Expm1(epsilon0);
}

Accountant::Accountant(AccountantOptions options)
    : options_(std::move(options)),
      rdp_(options_.rdp_orders),
      non_gaussian_(options_.pld),
      total_(options_.pld) {}

void Accountant::Add(const MechanismRelease& release, std::int64_t count) {
  Require(count >= 0, "Accountant::Add", "count must be >= 0", static_cast<double>(count));
  // The parameters are checked first (by the RDP curve at one order, which throws the same
  // errors as the whole curve), so a bad release throws before anything is recorded. The curve
  // itself (some 460 orders) is added at the next RDP query, in the order of the Add calls
  // (the same bits as adding it here).
  switch (release.kind) {
    case MechanismKind::kGaussian:
      static_cast<void>(GaussianRdp(2.0, release.sensitivity, release.scale));
      break;
    case MechanismKind::kLaplace:
      static_cast<void>(LaplaceRdp(2.0, release.sensitivity, release.scale));
      break;
    case MechanismKind::kPureEpsilon:
      static_cast<void>(PureEpsilonRdp(2.0, release.epsilon));
      break;
    case MechanismKind::kDiscreteGaussian:
      // Canonne, Kamath and Steinke 2020: D^2 / (2 sigma^2)-zCDP, the Gaussian's RDP curve.
      Require(release.sensitivity == std::floor(release.sensitivity), "Accountant::Add",
              "a discrete Gaussian's sensitivity must be an integer", release.sensitivity);
      static_cast<void>(GaussianRdp(2.0, release.sensitivity, release.scale));
      break;
  }
  if (count > 0) {
    rdp_pending_.emplace_back(release, count);
    if (rdp_pending_.size() >= kRdpPendingLimit) FlushRdp();
  }
  if (count == 0) return;
  release_count_ += count;
  total_valid_ = false;
  if (release.kind == MechanismKind::kGaussian) {
    const double mu = release.sensitivity / release.scale;
    gaussian_mu2_ += static_cast<double>(count) * (mu * mu);
    return;
  }
  non_gaussian_count_ += count;
  // Pure-epsilon releases are folded one by one in order (each costs O(grid)), so the composed
  // distribution, and its bits, depend only on the sequence of Add calls, not on when queries
  // come. Dense ones (Laplace, discrete Gaussian) wait as groups of equal parameters.
  if (release.kind != MechanismKind::kPureEpsilon) {
    for (auto& [r, c] : pending_) {
      if (r == release) {
        c += count;
        return;
      }
    }
  }
  pending_.emplace_back(release, count);
}

void Accountant::AddGaussian(double sensitivity, double sigma, std::int64_t count) {
  Add({MechanismKind::kGaussian, sensitivity, sigma, 0.0}, count);
}

void Accountant::AddLaplace(double sensitivity, double scale, std::int64_t count) {
  Add({MechanismKind::kLaplace, sensitivity, scale, 0.0}, count);
}

void Accountant::AddPureEpsilon(double epsilon, std::int64_t count) {
  Add({MechanismKind::kPureEpsilon, 0.0, 1.0, epsilon}, count);
}

void Accountant::AddDiscreteGaussian(std::int64_t sensitivity, double sigma, std::int64_t count) {
  Add({MechanismKind::kDiscreteGaussian, static_cast<double>(sensitivity), sigma, 0.0}, count);
}

const PrivacyLossDistribution& Accountant::Single(const MechanismRelease& r) const {
  for (const auto& [release, pld] : singles_) {
    if (release == r) return pld;
  }
  const PldOptions& o = options_.pld;
  PrivacyLossDistribution one(o);
  switch (r.kind) {
    case MechanismKind::kGaussian:  // composed analytically, never pending
      break;
    case MechanismKind::kLaplace:
      one = PrivacyLossDistribution::Laplace(r.sensitivity, r.scale, o);
      break;
    case MechanismKind::kPureEpsilon:
      one = PrivacyLossDistribution::PureEpsilon(r.epsilon, o);
      break;
    case MechanismKind::kDiscreteGaussian:
      one = PrivacyLossDistribution::DiscreteGaussian(static_cast<std::int64_t>(r.sensitivity),
                                                      r.scale, o);
      break;
  }
  // A few recent dense distributions are kept (a release repeated every k rounds is built once);
  // randomized response is 4 masses and built each time.
  constexpr std::size_t kKept = 8;
  if (r.kind == MechanismKind::kPureEpsilon) {
    single_scratch_ = std::move(one);
    return single_scratch_;
  }
  if (singles_.size() == kKept) singles_.erase(singles_.begin());
  singles_.emplace_back(r, std::move(one));
  return singles_.back().second;
}

const PrivacyLossDistribution& Accountant::Pld() const {
  // Pure-epsilon releases fold into the cached distribution one by one (O(grid) each). The
  // dense groups are first composed among themselves, pairwise as a balanced tree (log T levels
  // of FFTs on distributions that grow towards the grid, instead of one FFT of the whole grid
  // per group), and the result folds in once.
  std::vector<PrivacyLossDistribution> dense;
  for (const auto& [r, count] : pending_) {
    const PrivacyLossDistribution& one = Single(r);
    if (r.kind != MechanismKind::kPureEpsilon) {
      dense.push_back(count == 1 ? one : one.SelfCompose(count));
    } else if (count == 1) {
      non_gaussian_.ComposeInPlace(one);
    } else {
      non_gaussian_.ComposeInPlace(one.SelfCompose(count));
    }
  }
  pending_.clear();
  while (dense.size() > 1) {
    std::vector<PrivacyLossDistribution> next;
    for (std::size_t i = 0; i + 1 < dense.size(); i += 2) {
      dense[i].ComposeInPlace(dense[i + 1]);
      next.push_back(std::move(dense[i]));
    }
    if (dense.size() % 2 == 1) next.push_back(std::move(dense.back()));
    dense = std::move(next);
  }
  if (!dense.empty()) non_gaussian_.ComposeInPlace(dense.front());
  if (gaussian_mu2_ == 0.0) return non_gaussian_;
  if (!total_valid_) {
    total_ = non_gaussian_;
    total_.ComposeInPlace(
        PrivacyLossDistribution::Gaussian(std::sqrt(gaussian_mu2_), 1.0, options_.pld));
    total_valid_ = true;
  }
  return total_;
}

double Accountant::Epsilon(double delta) const {
  Require(delta > 0.0 && delta < 1.0, "Accountant::Epsilon", "delta must be in (0, 1)", delta);
  if (release_count_ == 0) return 0.0;
  if (non_gaussian_count_ == 0)
    return AnalyticGaussianEpsilon(std::sqrt(gaussian_mu2_), 1.0, delta);
  return Pld().EpsilonForDelta(delta);
}

double Accountant::Delta(double epsilon) const {
  Require(!std::isnan(epsilon) && epsilon >= 0.0, "Accountant::Delta", "epsilon must be >= 0",
          epsilon);
  if (release_count_ == 0) return 0.0;
  if (non_gaussian_count_ == 0)
    return AnalyticGaussianDelta(std::sqrt(gaussian_mu2_), 1.0, epsilon);
  return Pld().DeltaForEpsilon(epsilon);
}

void Accountant::FlushRdp() const {
  for (const auto& [r, count] : rdp_pending_) {
    switch (r.kind) {
      case MechanismKind::kGaussian:
      case MechanismKind::kDiscreteGaussian: rdp_.AddGaussian(r.sensitivity, r.scale, count); break;
      case MechanismKind::kLaplace: rdp_.AddLaplace(r.sensitivity, r.scale, count); break;
      case MechanismKind::kPureEpsilon: rdp_.AddPureEpsilon(r.epsilon, count); break;
    }
  }
  rdp_pending_.clear();
}

double Accountant::RdpEpsilon(double delta) const {
  if (release_count_ == 0) return 0.0;
  FlushRdp();
  return rdp_.Epsilon(delta);
}

double Accountant::RdpDelta(double epsilon) const {
  if (release_count_ == 0) return 0.0;
  FlushRdp();
  return rdp_.Delta(epsilon);
}

}  // namespace dpadmm
