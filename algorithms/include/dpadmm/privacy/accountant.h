// SPDX-License-Identifier: Apache-2.0
// A per-node privacy accountant over rounds of heterogeneous mechanisms (tight PLD, pld.h, with
// an RDP second opinion, rdp.h), and the closed forms it is checked against: the analytic
// Gaussian mechanism, the optimal composition of pure-epsilon mechanisms and the advanced
// composition theorem. Neighbouring relation: replace one record (see pld.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "dpadmm/privacy/pld.h"
#include "dpadmm/privacy/rdp.h"

namespace dpadmm {

// --- Closed forms -----------------------------------------------------------------------------

/// Analytic Gaussian mechanism (Balle and Wang 2018, Thm 8): the Gaussian mechanism of l2
/// sensitivity D and noise s is (eps, delta(eps))-DP exactly for
///   delta(eps) = Phi(-eps s/D + D/(2s)) - e^eps Phi(-eps s/D - D/(2s)).
/// k composed such releases are one Gaussian of sensitivity sqrt(k) D; pass
/// sensitivity = sqrt(k) D (or use the k overloads). For heterogeneous noise,
/// (D/s)^2 = sum_i (D_i/s_i)^2.
[[nodiscard]] double AnalyticGaussianDelta(double sensitivity, double sigma, double epsilon);
/// Its inverse: the smallest eps >= 0 with delta(eps) <= delta (bisection to 1e-13 relative).
[[nodiscard]] double AnalyticGaussianEpsilon(double sensitivity, double sigma, double delta);

/// Exact (optimal) composition of k eps0-DP mechanisms (Kairouz, Oh and Viswanath 2015,
/// Thm 3.3, at delta0 = 0, extended between its grid points as in Murtagh and Vadhan 2016):
///   delta(eps) = sum_{i : (k-2i) eps0 > eps} C(k, i) (e^{(k-i) eps0} - e^eps e^{i eps0})
///                / (1 + e^{eps0})^k.
/// At eps = (k - 2i*) eps0 this is Thm 3.3's delta_{i*}. With delta0 > 0 the total is
/// 1 - (1 - delta0)^k (1 - delta(eps)) (Thm 3.3).
[[nodiscard]] double OptimalCompositionDelta(double epsilon0, std::int64_t k, double epsilon,
                                             double delta0 = 0.0);
/// Its inverse by bisection on [0, k eps0] (to 1e-13 relative).
[[nodiscard]] double OptimalCompositionEpsilon(double epsilon0, std::int64_t k, double delta,
                                               double delta0 = 0.0);

/// Advanced composition (Dwork, Rothblum and Vadhan 2010, Thm III.3; Dwork and Roth 2014,
/// Thm 3.20): k (eps0, delta0)-DP releases are (eps', k delta0 + delta')-DP with
///   eps' = sqrt(2 k ln(1/delta')) eps0 + k eps0 (e^{eps0} - 1).
[[nodiscard]] double AdvancedCompositionEpsilon(double epsilon0, std::int64_t k,
                                                double delta_prime);

// --- Per-node accountant ----------------------------------------------------------------------

enum class MechanismKind {
  kGaussian,     // sensitivity (l2) and scale = sigma
  kLaplace,      // sensitivity (l1) and scale = b
  kPureEpsilon,  // epsilon: any eps-DP mechanism, through randomized response (its dominating pair)
  kDiscreteGaussian,  // integer sensitivity (l2) and scale = sigma (RDP: as the Gaussian, CKS 2020)
};

struct MechanismRelease {
  MechanismKind kind = MechanismKind::kGaussian;
  double sensitivity = 1.0;
  double scale = 1.0;
  double epsilon = 0.0;
  friend bool operator==(const MechanismRelease&, const MechanismRelease&) = default;
};

struct AccountantOptions {
  PldOptions pld;
  std::vector<double> rdp_orders = DefaultRdpOrders();
};

/// The privacy spent by one node over its releases. Adding a release is O(1) (parameters are
/// checked at once); the composed PLD is cached and brought up to date at the next query, the
/// RDP curve at the next RDP query (in the order of the Add calls: the same bits).
///  - Gaussian releases are composed analytically: independent Gaussian losses
///    N(mu_i^2/2, mu_i^2) sum to N(mu^2/2, mu^2) with mu^2 = sum mu_i^2 (mu_i = D_i / sigma_i),
///    so all of them together are ONE Gaussian, discretised once (one grid error h instead of
///    one per release). If every release is Gaussian, Epsilon/Delta are the analytic Gaussian
///    mechanism's exact values (the PLD would only add its grid error).
///  - Pure-epsilon releases (randomized response, 4 masses on the grid) are folded into the
///    cached PLD one by one in order, in place, O(grid) each: the composed distribution and its
///    bits depend only on the sequence of Add calls, never on when queries come, and the
///    distribution's size is O(grid) (its width follows the spread of the composed loss; tails
///    of mass <= tail_mass_truncation are cut after each fold, the upper one into delta).
///  - Laplace and discrete-Gaussian releases (dense) wait grouped by identical parameters; at the
///    next query each group is composed by repeated squaring, the groups pairwise as a balanced
///    tree in order of first appearance, and the result folds into the cached PLD once (their
///    bits may depend on when queries come); the Gaussian part is composed in at the query. A
///    query inverts delta(eps) in O(grid) (pld.h).
/// Not thread-safe (one per node, used by the node's own thread).
class Accountant {
 public:
  explicit Accountant(AccountantOptions options = {});

  void Add(const MechanismRelease& release, std::int64_t count = 1);
  void AddGaussian(double sensitivity, double sigma, std::int64_t count = 1);
  void AddLaplace(double sensitivity, double scale, std::int64_t count = 1);
  void AddPureEpsilon(double epsilon, std::int64_t count = 1);
  void AddDiscreteGaussian(std::int64_t sensitivity, double sigma, std::int64_t count = 1);

  /// Tight (PLD) epsilon for a target delta in (0, 1), and delta for epsilon >= 0. 0 releases:
  /// epsilon 0 and delta 0.
  [[nodiscard]] double Epsilon(double delta) const;
  [[nodiscard]] double Delta(double epsilon) const;
  /// RDP second opinion (an upper bound, >= the PLD value up to the PLD's grid error).
  [[nodiscard]] double RdpEpsilon(double delta) const;
  [[nodiscard]] double RdpDelta(double epsilon) const;

  [[nodiscard]] std::int64_t release_count() const { return release_count_; }
  /// The composed PLD of every release so far.
  [[nodiscard]] const PrivacyLossDistribution& Pld() const;

 private:
  AccountantOptions options_;
  std::int64_t release_count_ = 0;
  std::int64_t non_gaussian_count_ = 0;
  double gaussian_mu2_ = 0.0;  // sum of (D_i / sigma_i)^2 over Gaussian releases
  // The RDP curve; releases wait (in order, at most kRdpPendingLimit) until an RDP query.
  static constexpr std::size_t kRdpPendingLimit = 4096;
  void FlushRdp() const;
  mutable RdpAccountant rdp_;
  mutable std::vector<std::pair<MechanismRelease, std::int64_t>> rdp_pending_;
  // The PLD of one release: the last few dense ones are kept.
  const PrivacyLossDistribution& Single(const MechanismRelease& r) const;

  mutable PrivacyLossDistribution non_gaussian_;  // composed non-Gaussian releases
  mutable std::vector<std::pair<MechanismRelease, std::int64_t>> pending_;
  mutable PrivacyLossDistribution total_;  // non_gaussian_ composed with the Gaussian part
  mutable bool total_valid_ = true;
  mutable std::vector<std::pair<MechanismRelease, PrivacyLossDistribution>> singles_;
  mutable PrivacyLossDistribution single_scratch_;
};

}  // namespace dpadmm
