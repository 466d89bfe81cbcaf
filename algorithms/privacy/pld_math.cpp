// SPDX-License-Identifier: Apache-2.0
#include "privacy/pld_math.h"

#include <cmath>
#include <utility>

#include "dpadmm/core/portable_math.h"

namespace dpadmm::pld_detail {
namespace {

constexpr double kTwoOverSqrtPi = 1.1283791670955125739;   // 2 / sqrt(pi)
constexpr double kOneOverSqrtPi = 0.56418958354775628695;  // 1 / sqrt(pi)
constexpr double kSqrtHalf = 0.70710678118654752440;       // 1 / sqrt(2)

// erf(x) = 2/sqrt(pi) sum_n (-1)^n x^{2n+1} / (n! (2n+1)) (A&S 7.1.5), for |x| < 1.5: the
// terms are below 1.8, and erfc = 1 - erf >= 0.034 keeps a relative error below 1e-14.
double ErfSeries(double x) {
  const double x2 = x * x;
  double power = x;  // (-1)^n x^{2n+1} / n!
  double sum = x;
  for (int n = 1; n < 80; ++n) {
    power *= -x2 / n;
    const double term = power / (2 * n + 1);
    sum += term;
    if (std::fabs(term) < 1e-17 * std::fabs(sum)) break;
  }
  return kTwoOverSqrtPi * sum;
}

// erfc(x) = e^{-x^2}/sqrt(pi) * 1/(x + (1/2)/(x + 1/(x + (3/2)/(x + 2/(x + ...)))))
// (A&S 7.1.14), x >= 1.5. The depth is fixed per range of x (no data-dependent stopping), chosen
// so that the truncation error is below 1e-15 relative at the lower end of each range.
double ErfcContinuedFraction(double x) {
  int depth = 20;
  if (x < 4.0) depth = 30;
  if (x < 3.0) depth = 40;
  if (x < 2.5) depth = 55;
  if (x < 2.0) depth = 90;
  double tail = x;
  for (int n = depth; n >= 1; --n) tail = x + (0.5 * n) / tail;
  return kOneOverSqrtPi * math::Exp(-x * x) / tail;
}

}  // namespace

double Erfc(double x) {
  if (std::isnan(x)) return x;
  if (x >= 27.3) return 0.0;  // below the smallest subnormal
  if (x <= -6.0) return 2.0;
  if (std::fabs(x) < 1.5) return 1.0 - ErfSeries(x);
  if (x > 0.0) return ErfcContinuedFraction(x);
  return 2.0 - ErfcContinuedFraction(-x);
}

double NormalCdf(double x) { return 0.5 * Erfc(-x * kSqrtHalf); }

double LogNormalCdf(double x) {
  if (x >= -30.0) return math::Log(NormalCdf(x));
  const double u = 1.0 / (x * x);
  const double series = 1.0 - u * (1.0 - u * (3.0 - u * (15.0 - u * (105.0 - u * 945.0))));
  // log phi(x) - log|x| + log(series), phi(x) = e^{-x^2/2} / sqrt(2 pi).
  constexpr double kHalfLogTwoPi = 0.91893853320467274178;
  return -0.5 * x * x - kHalfLogTwoPi - math::Log(-x) + math::Log(series);
}

double LogBinomial(std::int64_t n, std::int64_t k) {
  if (k > n - k) k = n - k;
  double s = 0.0;
  for (std::int64_t i = 0; i < k; ++i) {
    s += math::Log(static_cast<double>(n - i) / static_cast<double>(i + 1));
  }
  return s;
}

double LogAddExp(double a, double b) {
  if (a < b) std::swap(a, b);
  if (b == -INFINITY) return a;
  return a + math::Log1p(math::Exp(b - a));
}

}  // namespace dpadmm::pld_detail
