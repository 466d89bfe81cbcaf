// SPDX-License-Identifier: Apache-2.0
#include "dpadmm/privacy/rdp.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <utility>

#include "core/field_error.h"
#include "dpadmm/core/error.h"
#include "dpadmm/core/portable_math.h"
#include "privacy/pld_math.h"

namespace dpadmm {
namespace {

using detail::Require;

void CheckAlpha(double alpha, const char* fn) {
  Require(std::isfinite(alpha) && alpha > 1.0, fn, "alpha must be finite and > 1", alpha);
}

void CheckCurve(const std::vector<double>& orders, const std::vector<double>& rdp, const char* fn) {
  Require(!orders.empty() && orders.size() == rdp.size(), fn,
          "orders and rdp must be non-empty and of equal length", static_cast<double>(rdp.size()));
  for (double a : orders) CheckAlpha(a, fn);
}

}  // namespace

std::vector<double> DefaultRdpOrders() {
  std::vector<double> orders;
  for (int i = 1; i <= 100; ++i) orders.push_back(1.0 + 0.01 * i);  // 1.01 .. 2
  for (int i = 1; i <= 80; ++i) orders.push_back(2.0 + 0.1 * i);    // 2.1 .. 10
  for (int i = 1; i <= 90; ++i) orders.push_back(10.0 + 1.0 * i);   // 11 .. 100
  double a = 100.0;
  while (a < 1e6) {  // 100 .. 1e6, 5% apart
    a *= 1.05;
    orders.push_back(a);
  }
  return orders;
}

double GaussianRdp(double alpha, double sensitivity, double sigma) {
  const char* fn = "GaussianRdp";
  CheckAlpha(alpha, fn);
  Require(std::isfinite(sensitivity) && sensitivity >= 0.0, fn,
          "sensitivity must be finite and >= 0", sensitivity);
  Require(std::isfinite(sigma) && sigma > 0.0, fn, "sigma must be finite and > 0", sigma);
  const double mu = sensitivity / sigma;
  return 0.5 * alpha * mu * mu;  // Mironov 2017, Table II
}

double LaplaceRdp(double alpha, double sensitivity, double scale) {
  const char* fn = "LaplaceRdp";
  CheckAlpha(alpha, fn);
  Require(std::isfinite(sensitivity) && sensitivity >= 0.0, fn,
          "sensitivity must be finite and >= 0", sensitivity);
  Require(std::isfinite(scale) && scale > 0.0, fn, "scale must be finite and > 0", scale);
  const double e0 = sensitivity / scale;
  if (e0 == 0.0) return 0.0;
  // Mironov 2017, Table II, in log space.
  const double two_a = 2.0 * alpha - 1.0;
  const double v = pld_detail::LogAddExp(math::Log(alpha / two_a) + (alpha - 1.0) * e0,
                                         math::Log((alpha - 1.0) / two_a) - alpha * e0);
  return std::min(e0, std::max(0.0, v / (alpha - 1.0)));
}

double PureEpsilonRdp(double alpha, double epsilon) {
  const char* fn = "PureEpsilonRdp";
  CheckAlpha(alpha, fn);
  Require(std::isfinite(epsilon) && epsilon >= 0.0, fn, "epsilon must be finite and >= 0", epsilon);
  if (epsilon == 0.0) return 0.0;
  // log p = -c, log(1 - p) = -eps - c with c = log(1 + e^{-eps}); the two terms of the sum are
  // then e^{-c + (alpha-1) eps} and e^{-c - alpha eps}.
  const double c = math::Log1p(math::Exp(-epsilon));
  const double rr =
      (-c + pld_detail::LogAddExp((alpha - 1.0) * epsilon, -alpha * epsilon)) / (alpha - 1.0);
  return std::max(0.0, std::min({rr, epsilon, 0.5 * alpha * epsilon * epsilon}));
}

double RdpEpsilon(const std::vector<double>& orders, const std::vector<double>& rdp, double delta) {
  const char* fn = "RdpEpsilon";
  CheckCurve(orders, rdp, fn);
  Require(delta > 0.0 && delta < 1.0, fn, "delta must be in (0, 1)", delta);
  const double log_delta = math::Log(delta);
  double best = std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < orders.size(); ++i) {
    const double a = orders[i];
    const double eps = rdp[i] + math::Log1p(-1.0 / a) - (log_delta + math::Log(a)) / (a - 1.0);
    best = std::min(best, eps);
  }
  return std::max(0.0, best);
}

double RdpDelta(const std::vector<double>& orders, const std::vector<double>& rdp, double epsilon) {
  const char* fn = "RdpDelta";
  CheckCurve(orders, rdp, fn);
  Require(std::isfinite(epsilon) && epsilon >= 0.0, fn, "epsilon must be finite and >= 0", epsilon);
  double best_log = 0.0;  // delta <= 1 always
  for (std::size_t i = 0; i < orders.size(); ++i) {
    const double a = orders[i];
    // log delta = (alpha-1)(tau - eps) + alpha log(1 - 1/alpha) - log(alpha - 1).
    const double log_delta =
        (a - 1.0) * (rdp[i] - epsilon) + a * math::Log1p(-1.0 / a) - math::Log(a - 1.0);
    best_log = std::min(best_log, log_delta);
  }
  return math::Exp(best_log);
}

RdpAccountant::RdpAccountant(std::vector<double> orders)
    : orders_(std::move(orders)), rdp_(orders_.size(), 0.0) {
  CheckCurve(orders_, rdp_, "RdpAccountant");
}

template <class F>
void RdpAccountant::AddCurve(F tau, std::int64_t count) {
  Require(count >= 0, "RdpAccountant", "count must be >= 0", static_cast<double>(count));
  for (std::size_t i = 0; i < orders_.size(); ++i) {
    rdp_[i] += static_cast<double>(count) * tau(orders_[i]);
  }
}

void RdpAccountant::AddGaussian(double sensitivity, double sigma, std::int64_t count) {
  AddCurve([&](double a) { return GaussianRdp(a, sensitivity, sigma); }, count);
}

void RdpAccountant::AddLaplace(double sensitivity, double scale, std::int64_t count) {
  AddCurve([&](double a) { return LaplaceRdp(a, sensitivity, scale); }, count);
}

void RdpAccountant::AddPureEpsilon(double epsilon, std::int64_t count) {
  AddCurve([&](double a) { return PureEpsilonRdp(a, epsilon); }, count);
}

}  // namespace dpadmm
