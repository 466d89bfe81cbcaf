// SPDX-License-Identifier: Apache-2.0
// Renyi differential privacy (Mironov 2017): a second, looser opinion next to the tight PLD
// accountant (pld.h). A mechanism is (alpha, tau)-RDP if D_alpha(P || Q) <= tau for every
// neighbouring pair; RDP composes by adding tau at each order alpha, and converts to
// (epsilon, delta)-DP with the improved conversion below. Orders alpha > 1.
//
// Neighbouring relation: replace one record (see pld.h); every curve here is that of a symmetric
// pair, so both directions have the same value.
#pragma once

#include <cstdint>
#include <vector>

namespace dpadmm {

/// The default grid of orders: 1.01 .. 2 in steps of 0.01 near 1, then denser-than-geometric
/// steps up to 1e6 (small mu and small epsilon need large orders, large compositions need
/// orders close to 1).
[[nodiscard]] std::vector<double> DefaultRdpOrders();

/// Gaussian mechanism, l2 sensitivity D, noise sigma: tau(alpha) = alpha D^2 / (2 sigma^2)
/// (Mironov 2017, Table II).
[[nodiscard]] double GaussianRdp(double alpha, double sensitivity, double sigma);

/// Laplace mechanism, l1 sensitivity D, scale b, e0 = D / b (Mironov 2017, Table II):
///   tau(alpha) = 1/(alpha-1) log( alpha/(2 alpha-1) e^{(alpha-1) e0}
///                                + (alpha-1)/(2 alpha-1) e^{-alpha e0} ).
[[nodiscard]] double LaplaceRdp(double alpha, double sensitivity, double scale);

/// Any epsilon-DP mechanism: the RDP of its dominating pair, randomized response (Mironov 2017,
/// Table II, with p = e^eps / (1 + e^eps)):
///   tau(alpha) = 1/(alpha-1) log( p^alpha (1-p)^{1-alpha} + (1-p)^alpha p^{1-alpha} ),
/// never above min(eps, alpha eps^2 / 2) (the latter: Bun and Steinke 2016, Prop. 3.3, eps-DP
/// implies eps^2/2-zCDP); the minimum of the three is returned.
[[nodiscard]] double PureEpsilonRdp(double alpha, double epsilon);

/// Improved conversion (Balle, Barthe, Gaboardi, Hsu and Sato 2020, Thm 21; Canonne, Kamath and
/// Steinke 2020, Prop. 12): (alpha, tau)-RDP implies (eps, delta)-DP with
///   eps = tau + log((alpha-1)/alpha) - (log delta + log alpha) / (alpha-1),
///   equivalently delta = e^{(alpha-1)(tau-eps)} (1-1/alpha)^alpha / (alpha-1).
/// Minimised over the orders; eps is clamped at 0 and delta at 1.
[[nodiscard]] double RdpEpsilon(const std::vector<double>& orders, const std::vector<double>& rdp,
                                double delta);
[[nodiscard]] double RdpDelta(const std::vector<double>& orders, const std::vector<double>& rdp,
                              double epsilon);

/// Composition over rounds: the RDP curve of all releases so far, on a fixed grid of orders.
class RdpAccountant {
 public:
  explicit RdpAccountant(std::vector<double> orders = DefaultRdpOrders());
  void AddGaussian(double sensitivity, double sigma, std::int64_t count = 1);
  void AddLaplace(double sensitivity, double scale, std::int64_t count = 1);
  void AddPureEpsilon(double epsilon, std::int64_t count = 1);
  [[nodiscard]] double Epsilon(double delta) const { return RdpEpsilon(orders_, rdp_, delta); }
  [[nodiscard]] double Delta(double epsilon) const { return RdpDelta(orders_, rdp_, epsilon); }
  [[nodiscard]] const std::vector<double>& orders() const { return orders_; }
  [[nodiscard]] const std::vector<double>& rdp() const { return rdp_; }

 private:
  template <class F>
  void AddCurve(F tau, std::int64_t count);

  std::vector<double> orders_;
  std::vector<double> rdp_;
};

}  // namespace dpadmm
