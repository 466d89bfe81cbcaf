// SPDX-License-Identifier: Apache-2.0
#include "dpadmm/privacy/sharing_accounting.h"

#include <cmath>
#include <limits>
#include <sstream>

#include "core/field_error.h"
#include "dpadmm/core/error.h"
#include "dpadmm/core/portable_math.h"
#include "dpadmm/privacy/accountant.h"
#include "dpadmm/privacy/samplers.h"

namespace dpadmm {
namespace {

using detail::Require;

}  // namespace

double SharingSensitivity(std::int64_t d_m, double rho, double lambda, double c1, int M,
                          double b1) {
  const char* fn = "SharingSensitivity";
  Require(d_m >= 1, fn, "d_m must be >= 1", static_cast<double>(d_m));
  Require(std::isfinite(rho) && rho > 0.0, fn, "rho must be finite and > 0", rho);
  Require(std::isfinite(lambda) && lambda >= 0.0, fn, "lambda must be finite and >= 0", lambda);
  Require(std::isfinite(c1) && c1 >= 0.0, fn, "c1 must be finite and >= 0", c1);
  Require(M >= 1, fn, "M must be >= 1", M);
  Require(std::isfinite(b1) && b1 > 0.0, fn, "b1 must be finite and > 0", b1);
  // 001 Lemma 1.
  return 3.0 / (static_cast<double>(d_m) * rho) * (lambda * c1 + (1.0 + M * rho) * b1);
}

double SharingGaussianSigma(double eps, double delta, double sensitivity) {
  const char* fn = "SharingGaussianSigma";
  Require(eps > 0.0 && eps <= 1.0, fn, "eps must be in (0, 1] (001 Theorem 3)", eps);
  Require(delta > 0.0 && delta < 1.0, fn, "delta must be in (0, 1)", delta);
  Require(std::isfinite(sensitivity) && sensitivity >= 0.0, fn,
          "sensitivity must be finite and >= 0", sensitivity);
  // 001 Theorem 3.
  return std::sqrt(2.0 * math::Log(1.25 / delta)) * sensitivity / eps;
}

double SharingEpsilonForSigma(double sigma, double delta, double sensitivity) {
  const char* fn = "SharingEpsilonForSigma";
  Require(std::isfinite(sigma) && sigma > 0.0, fn, "sigma must be finite and > 0", sigma);
  Require(delta > 0.0 && delta < 1.0, fn, "delta must be in (0, 1)", delta);
  Require(std::isfinite(sensitivity) && sensitivity >= 0.0, fn,
          "sensitivity must be finite and >= 0", sensitivity);
  return std::sqrt(2.0 * math::Log(1.25 / delta)) * sensitivity / sigma;  // Theorem 3 inverted
}

double SharingTotalEpsilon(double eps, std::int64_t T, double delta_prime) {
  const char* fn = "SharingTotalEpsilon";
  Require(std::isfinite(eps) && eps >= 0.0, fn, "eps must be finite and >= 0", eps);
  Require(T >= 0, fn, "T must be >= 0", static_cast<double>(T));
  Require(delta_prime > 0.0 && delta_prime < 1.0, fn, "delta_prime must be in (0, 1)", delta_prime);
  if (T == 0) return 0.0;
  const double t = static_cast<double>(T);
  // 001 Corollary 1, eq. (17).
  return std::sqrt(2.0 * t * math::Log(1.0 / delta_prime)) * eps + t * eps * math::Expm1(eps);
}

double SharingTotalDelta(double delta, std::int64_t T, double delta_prime) {
  const char* fn = "SharingTotalDelta";
  Require(delta >= 0.0 && delta < 1.0, fn, "delta must be in [0, 1)", delta);
  Require(T >= 0, fn, "T must be >= 0", static_cast<double>(T));
  Require(delta_prime > 0.0 && delta_prime < 1.0, fn, "delta_prime must be in (0, 1)", delta_prime);
  if (T == 0) return 0.0;
  // 001 Corollary 1.
  return static_cast<double>(T) * delta + delta_prime;
}

double SharingMessageSensitivity(std::int64_t N, double b1, double step) {
  const char* fn = "SharingMessageSensitivity";
  Require(N >= 1, fn, "N must be >= 1", static_cast<double>(N));
  Require(std::isfinite(b1) && b1 > 0.0, fn, "b1 must be finite and > 0", b1);
  Require(std::isfinite(step) && step > 0.0, fn, "step must be finite and > 0", step);
  // ||D x - D' x'|| <= ||D x|| + ||D' x'|| <= 2 b1 sqrt(N) (rows of norm <= 1, ||x|| <= b1),
  // plus the lattice rounding of the message (samplers.h).
  return 2.0 * b1 * std::sqrt(static_cast<double>(N)) + GridSensitivityL2(N, step);
}

double SharingTightEpsilon(double sensitivity, double sigma, std::int64_t T, double delta) {
  const char* fn = "SharingTightEpsilon";
  Require(std::isfinite(sensitivity) && sensitivity > 0.0, fn, "sensitivity must be finite and > 0",
          sensitivity);
  Require(std::isfinite(sigma) && sigma > 0.0, fn, "sigma must be finite and > 0", sigma);
  Require(T >= 0, fn, "T must be >= 0", static_cast<double>(T));
  Require(delta > 0.0 && delta < 1.0, fn, "delta must be in (0, 1)", delta);
  if (T == 0) return 0.0;
  const double total = std::sqrt(static_cast<double>(T)) * sensitivity;
  if (total > kSharingMaxMu * sigma) return std::numeric_limits<double>::infinity();
  return AnalyticGaussianEpsilon(total, sigma, delta);
}

double SharingSigmaForTotalEpsilon(double total_epsilon, double delta, double sensitivity,
                                   std::int64_t T) {
  const char* fn = "SharingSigmaForTotalEpsilon";
  Require(std::isfinite(total_epsilon) && total_epsilon > 0.0, fn,
          "total_epsilon must be finite and > 0", total_epsilon);
  Require(delta > 0.0 && delta < 1.0, fn, "delta must be in (0, 1)", delta);
  Require(std::isfinite(sensitivity) && sensitivity > 0.0, fn, "sensitivity must be finite and > 0",
          sensitivity);
  Require(T >= 1, fn, "T must be >= 1", static_cast<double>(T));
  // eps(mu) = AnalyticGaussianEpsilon(mu, 1, delta) increases with mu: the largest mu with
  // eps(mu) <= total_epsilon, then sigma = sqrt(T) sensitivity / mu.
  constexpr double kMaxMu = kSharingMaxMu;
  double lo = 0.0, hi = 1.0;
  while (hi < kMaxMu && AnalyticGaussianEpsilon(hi, 1.0, delta) <= total_epsilon) hi *= 2.0;
  Require(AnalyticGaussianEpsilon(hi, 1.0, delta) > total_epsilon, fn,
          "total_epsilon must be below the epsilon of mu = 32 (about 650; the noise would be "
          "negligible)",
          total_epsilon);
  while (hi - lo > 1e-12 * hi) {
    const double mid = 0.5 * (lo + hi);
    (AnalyticGaussianEpsilon(mid, 1.0, delta) <= total_epsilon ? lo : hi) = mid;
  }
  const double sigma = std::sqrt(static_cast<double>(T)) * sensitivity / lo;
  return std::nextafter(sigma, std::numeric_limits<double>::infinity());
}

}  // namespace dpadmm
