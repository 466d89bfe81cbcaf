// SPDX-License-Identifier: Apache-2.0
#include "dpadmm/privacy/samplers.h"

#include <cmath>
#include <limits>
#include <stdexcept>

namespace dpadmm {
namespace {

constexpr Uint128 kMaxExpDen = Uint128{1} << 104;
// Bernoulli(exp(-1)) successes after which a trial is abandoned: reaching it has probability
// exp(-2^24) (never, in any run); it only guards against an infinite loop on a broken source.
constexpr std::uint64_t kMaxUnitTrials = std::uint64_t{1} << 24;

// CKS Algorithm 1: Bernoulli(exp(-gamma)) for gamma = num/den in [0, 1]. K counts the
// successes of Bernoulli(gamma / K); the result is 1 iff the first failure comes at odd K.
bool BernoulliExpUnit(KeyedStream& s, Uint128 num, Uint128 den) {
  std::uint64_t k = 1;
  for (;;) {
    // den * k <= 2^104 * 2^20: K exceeds 2^20 with probability below 1 / (2^20)!.
    if (k > (std::uint64_t{1} << 20)) throw std::logic_error("SampleBernoulliExp: runaway");
    if (!SampleBernoulli(s, num, den * k)) break;
    ++k;
  }
  return (k % 2) == 1;
}

bool BernoulliExpMinusOne(KeyedStream& s) { return BernoulliExpUnit(s, 1, 1); }

std::uint64_t Isqrt(std::uint64_t n) {
  std::uint64_t r = static_cast<std::uint64_t>(std::sqrt(static_cast<double>(n)));
  while (static_cast<Uint128>(r) * r > n) --r;
  while (static_cast<Uint128>(r + 1) * (r + 1) <= n) ++r;
  return r;
}

}  // namespace

bool SampleBernoulli(KeyedStream& s, Uint128 num, Uint128 den) {
  if (den == 0 || num > den)
    throw std::logic_error("SampleBernoulli: need 0 <= num <= den, den > 0");
  if (num == den) return true;
  if (num == 0) return false;
  return s.UniformInt128(den) < num;
}

bool SampleBernoulliExp(KeyedStream& s, Uint128 num, Uint128 den) {
  if (den == 0 || den > kMaxExpDen) {
    throw std::logic_error("SampleBernoulliExp: den must be in (0, 2^104]");
  }
  // exp(-gamma) = exp(-1)^floor(gamma) * exp(-(gamma - floor(gamma))): floor(gamma) independent
  // Bernoulli(exp(-1)) trials must all succeed (stop at the first failure), then the rest.
  const Uint128 whole = num / den;
  for (Uint128 k = 0; k < whole; ++k) {
    if (k >= kMaxUnitTrials) throw std::logic_error("SampleBernoulliExp: runaway");
    if (!BernoulliExpMinusOne(s)) return false;
  }
  return BernoulliExpUnit(s, num % den, den);
}

std::int64_t SampleDiscreteLaplace(KeyedStream& s, std::uint64_t num_s, std::uint64_t t) {
  if (num_s == 0 || t == 0) throw std::logic_error("SampleDiscreteLaplace: s, t must be >= 1");
  for (;;) {
    // CKS Algorithm 2: U uniform in [0, t), accepted with probability exp(-U/t); V geometric
    // with ratio exp(-1); X = U + t V is geometric with ratio exp(-1/t); Y = floor(X / s).
    const std::uint64_t u = s.UniformInt(t);
    if (!SampleBernoulliExp(s, u, t)) continue;
    std::uint64_t v = 0;
    while (BernoulliExpMinusOne(s)) {
      if (++v >= kMaxUnitTrials) throw std::logic_error("SampleDiscreteLaplace: runaway");
    }
    const Uint128 x = static_cast<Uint128>(u) + static_cast<Uint128>(t) * v;
    const Uint128 y = x / num_s;
    if (y > static_cast<Uint128>(std::numeric_limits<std::int64_t>::max())) continue;
    const bool negative = s.Bit();
    if (negative && y == 0) continue;  // 0 once, not twice
    const auto value = static_cast<std::int64_t>(y);
    return negative ? -value : value;
  }
}

std::int64_t SampleDiscreteGaussian(KeyedStream& s, std::uint64_t sigma2) {
  if (sigma2 < 1 || sigma2 > (std::uint64_t{1} << 51)) {
    throw std::logic_error("SampleDiscreteGaussian: sigma2 must be in [1, 2^51]");
  }
  // CKS Algorithm 3: t = floor(sigma) + 1, Y ~ DLap(t), accept with probability
  // exp(-(|Y| - sigma^2/t)^2 / (2 sigma^2)) = exp(-(|Y| t - sigma2)^2 / (2 sigma2 t^2)).
  const std::uint64_t t = Isqrt(sigma2) + 1;
  const Uint128 den = 2 * static_cast<Uint128>(sigma2) * t * t;  // < 2^104
  for (;;) {
    const std::int64_t y = SampleDiscreteLaplace(s, 1, t);
    const Uint128 ay = static_cast<Uint128>(y < 0 ? -static_cast<Uint128>(y) : y);
    const Uint128 yt = ay * t;  // < 2^90
    const Uint128 diff = yt >= sigma2 ? yt - sigma2 : sigma2 - yt;
    if (diff >= (Uint128{1} << 63)) {
      // gamma = diff^2 / den >= 2^126 / 2^104 = 2^22: accepting starts with 2^22 successive
      // Bernoulli(exp(-1)) successes (probability exp(-2^22)). Run those trials (the first
      // steps of the exact algorithm) and give up on the impossible remainder.
      bool all = true;
      for (std::uint64_t k = 0; k < (std::uint64_t{1} << 22) && all; ++k) {
        all = BernoulliExpMinusOne(s);
      }
      if (!all) continue;
      throw std::logic_error("SampleDiscreteGaussian: runaway");
    }
    if (SampleBernoulliExp(s, diff * diff, den)) return y;
  }
}

bool SampleRandomizedResponseFlip(KeyedStream& s, double eps) {
  if (!(eps >= 0.0) || std::isnan(eps)) throw std::logic_error("randomized response: eps < 0");
  if (eps == 0.0) return false;
  // eps_q = floor(eps 2^32) / 2^32 <= eps (ldexp and floor are exact), capped at 2^20.
  const double capped = eps < 0x1.0p20 ? eps : 0x1.0p20;
  const auto num = static_cast<std::uint64_t>(std::floor(std::ldexp(capped, 32)));
  const Uint128 den = Uint128{1} << 32;
  // Bernoulli factory for x / (1 + x), x = exp(-eps_q) = Bernoulli(exp(-num/den)): each try
  // returns 0 with probability 1/2, else 1 if Bernoulli(x) succeeds, else tries again:
  // q = (x + (1 - x) q) / 2, i.e. q = x / (1 + x) = 1 / (1 + e^eps_q).
  for (;;) {
    if (!s.Bit()) return false;
    if (SampleBernoulliExp(s, num, den)) return true;
  }
}

double RoundToGrid(double x, double step) {
  if (std::isnan(x)) return x;
  const double r = std::nearbyint(x / step) * step;  // power-of-two step: the scaling is exact
  if (r > kGridLimit) return kGridLimit;
  if (r < -kGridLimit) return -kGridLimit;
  return r;
}

double RoundToSnapGrid(double x) {
  if (!(std::abs(x) >= kSnapFineLimit)) return RoundToGrid(x);  // also NaN
  int e = 0;
  std::frexp(x, &e);  // |x| = m 2^e, m in [0.5, 1): floor(log2 |x|) = e - 1 >= 5
  // 21 significant bits: the step 2^(e - 1 - 20), a power of two >= 2 kGridStep.
  return RoundToGrid(x, std::ldexp(1.0, e - 21));
}

bool OnGrid(double x, double step) {
  return std::isfinite(x) && std::abs(x) <= kGridLimit && std::nearbyint(x / step) == x / step;
}

double GridSensitivityL2(Eigen::Index d, double step) {
  return std::sqrt(static_cast<double>(d)) * step;
}

double GaussianGridStep(double sigma) {
  if (!(sigma > 0.0) || !std::isfinite(sigma)) {
    throw std::logic_error("GaussianGridStep: sigma must be > 0 and finite");
  }
  if (sigma <= 512.0) return kGridStep;
  int e = 0;
  std::frexp(sigma, &e);  // sigma = m 2^e, m in [0.5, 1): sigma <= 2^e
  return std::ldexp(1.0, e - 25);
}

double DrawDiscreteGaussianGrid(KeyedStream& s, double sigma, Eigen::Ref<Eigen::VectorXd> out) {
  if (!std::isfinite(sigma) || !(sigma >= 0.0)) {
    throw std::logic_error("DrawDiscreteGaussianGrid: sigma must be finite and >= 0");
  }
  if (sigma == 0.0) {
    out.setZero();
    return kGridStep;
  }
  const double step = GaussianGridStep(sigma);
  // (sigma / step)^2 rounded UP to an integer: the double product is within one ulp, so
  // nextafter upward then ceil gives a value >= the exact square.
  const double scaled = sigma / step;  // exact: step is a power of two
  const double sq = std::nextafter(scaled * scaled, std::numeric_limits<double>::infinity());
  const double up = std::ceil(sq);
  const auto sigma2 = static_cast<std::uint64_t>(up < 1.0 ? 1.0 : up);
  for (Eigen::Index k = 0; k < out.size(); ++k) {
    out[k] = static_cast<double>(SampleDiscreteGaussian(s, sigma2)) * step;
  }
  return step;
}

}  // namespace dpadmm
