// SPDX-License-Identifier: Apache-2.0
// Privacy loss distributions (PLD): tight (epsilon, delta) accounting of composed mechanisms.
//
// For a dominating pair (P, Q) of a mechanism (Zhu, Dong and Wang 2022; P = the output distribution
// on one data set, Q on its neighbour) the privacy loss is L(o) = ln(P(o) / Q(o))
// with o ~ P, and the mechanism is (eps, delta(eps))-DP for the hockey-stick divergence
//   delta(eps) = E_P[(1 - e^{eps - L})_+] + P(L = +inf)
// (Sommer, Meiser and Mohammadi 2019; Koskela, Jalko and Honkela 2020).
// The loss of the composition of independent mechanisms is the sum of their losses, so its
// distribution is the convolution of theirs (same references; Google's dp_accounting design
// document describes the same discretised representation).
//
// Representation: probability masses on the uniform grid of loss values i * h, i = lo..hi, with
// h = value_discretization (default 1e-4), plus a mass at +inf that counts fully in delta.
//
// Pessimism (every number this class returns is an upper bound on the exact one, up to the
// rounding of the sums of nonnegative terms, ~1e-16 relative):
//  - the mass of a continuous part (Gaussian, Laplace) in each grid cell (a, b] is split between
//    a and b keeping its P-mass and its Q-mass (the Laplace's exactly; the Gaussian's Q-mass
//    no larger, from the exponential density that bounds it in likelihood ratio on the cell):
//    "connect the dots" (Doroshenko et al., below) applied cell by cell. Among distributions
//    on [a, b] with given P- and Q-masses the two-point one at the ends is the largest in the
//    convex order of x = e^{-l}, and each hockey-stick term (1 - e^{eps} x)_+ is convex in x, so
//    the split pair dominates the mechanism's: delta(eps) is never smaller, and the composed
//    deltas (composition keeps dominance) neither. It is itself dominated by rounding every
//    loss UP to the grid (the discretisation before it), which couples each loss with a larger
//    one; per release that moves the loss up by less than h, so k releases overestimate
//    epsilon by at most k h. In practice the error is second order in h where rounding up's
//    is first order (about h / 2 per release): see accounting.h, ComposeTightMechanisms;
//  - an atom (randomized response, the discrete Gaussian) between grid points a < l <= b is
//    split into a and b keeping both its P-mass p and its Q-mass p e^{-l} ("connect the dots",
//    Doroshenko, Ghazi, Kamath, Kumar and Manurangsi, PETS 2022). Its hockey-stick curve is then
//    the original one for eps <= a, the chord (in e^eps, where the original is convex) above it
//    on (a, b), 0 from b: the split pair dominates the atom's pair, so composed deltas can only
//    grow, and it is dominated by rounding the atom up to b, so the k h bound above holds too
//    (in practice the error is far smaller: second order in h);
//  - truncation: the lower tail below the grid is moved up onto the lowest grid point; the upper
//    tail beyond the grid (mass <= tail_mass_truncation per construction and per composition)
//    goes to +inf, i.e. straight into delta;
//  - convolution by FFT: the a-priori bound on its rounding error (Higham 2002, Accuracy and
//  Stability of Numerical Algorithms, Thm 24.2: error
//    of a radix-2 FFT <= log2(N) eta / (1 - log2(N) eta) times the transform's norm) is added to
//    the +inf mass, and the few negative values rounding produces are set to 0. The bound is worst
//    case: it adds 2e-11 .. 4e-10 to delta for 10 .. 100 composed Gaussians at h = 1e-4. Direct
//    convolution (used when cheaper: over the nonzero entries of the sparser side) sums
//    nonnegative terms and needs no correction.
//
// Neighbouring relation. The papers' relation is "replace one record", which is symmetric, so
// a mechanism is (eps, delta)-DP iff both delta_{P||Q}(eps) and delta_{Q||P}(eps) are below
// delta. Every mechanism here has a symmetric dominating pair under replacement: the Gaussian
// N(0, s^2) vs N(D, s^2), the Laplace Lap(0, b) vs Lap(D, b) and the discrete Gaussian are
// mirrored by x -> D - x, the randomized-response pair by swapping its two outputs, so the two
// directions have the SAME loss distribution and one distribution is kept (delta of the replace
// relation = the max of two equal values). D is the sensitivity under replacement of one
// record. A mechanism without such a symmetry would need both directions composed separately.
#pragma once

#include <cstdint>
#include <vector>

namespace dpadmm {

struct PldOptions {
  /// Grid interval h of the loss values. Composing k releases overestimates epsilon by at most
  /// k h (in practice by far less: every part connects the dots; "Pessimism" above).
  double value_discretization = 1e-4;
  /// Mass of each tail cut when a distribution is built or composed (upper tail -> +inf).
  double tail_mass_truncation = 1e-15;
};

class PrivacyLossDistribution {
 public:
  /// The identity (no release): loss 0 with probability 1.
  explicit PrivacyLossDistribution(const PldOptions& options = {});

  /// Gaussian mechanism N(f(D), sigma^2 I) with l2 sensitivity `sensitivity`: with
  /// mu = sensitivity / sigma, L ~ N(mu^2 / 2, mu^2) (Balle and Wang 2018, Sec. 3; Dong, Roth
  /// and Su 2022: mu-GDP). sensitivity >= 0, sigma > 0.
  static PrivacyLossDistribution Gaussian(double sensitivity, double sigma,
                                          const PldOptions& options = {});
  /// Laplace mechanism Lap(f(D), b) with l1 sensitivity `sensitivity`: with e0 = sensitivity/b,
  /// L = e0 w.p. 1/2, -e0 w.p. e^{-e0}/2, and P(L <= l) = e^{-(e0 - l)/2}/2 on [-e0, e0)
  /// (from P(x <= 0), P(x >= D) and the linear loss in between, under Lap(0, b)). Both atoms
  /// and each cell's piece of the density (P-density proportional to e^{l/2}, Q-density to
  /// e^{-l/2}: the piece's P- and Q-mass are those of an atom at its midpoint) connect the dots,
  /// so delta(eps) is exact at every grid point below e0's cell.
  static PrivacyLossDistribution Laplace(double sensitivity, double scale,
                                         const PldOptions& options = {});
  /// Randomized response with parameter eps: L = eps w.p. e^eps / (1 + e^eps), -eps otherwise.
  /// It dominates every eps-DP mechanism (Kairouz, Oh and Viswanath 2015; Murtagh and Vadhan
  /// 2016), so PureEpsilon(eps) is the tight PLD of ANY eps-DP mechanism. Each of the two atoms
  /// is split between its two grid neighbours keeping its P- and Q-mass ("connect the dots",
  /// Doroshenko et al. 2022; see Pessimism above): 4 masses.
  static PrivacyLossDistribution RandomizedResponse(double epsilon, const PldOptions& options = {});
  static PrivacyLossDistribution PureEpsilon(double epsilon, const PldOptions& options = {}) {
    return RandomizedResponse(epsilon, options);
  }

  /// Discrete Gaussian mechanism (Canonne, Kamath and Steinke 2020): f(D) + N_Z(0, sigma^2) with
  /// P(x) proportional to e^{-x^2 / (2 sigma^2)} on the integers, integer sensitivity D >= 0.
  /// L(x) = (D^2 - 2 D x) / (2 sigma^2) at each integer x (an atom per x, rounded up to the
  /// grid); x beyond the central mass 1 - tail_mass_truncation: the lower x (largest losses) go
  /// to +inf, the upper ones onto the lowest point.
  static PrivacyLossDistribution DiscreteGaussian(std::int64_t sensitivity, double sigma,
                                                  const PldOptions& options = {});

  /// The PLD of the composition of this release and `other` (same grid interval required;
  /// InputError otherwise).
  [[nodiscard]] PrivacyLossDistribution Compose(const PrivacyLossDistribution& other) const;
  /// The same in place (*this = Compose(other), the same bits): the result is built in a
  /// per-thread buffer that swaps with this one's, so a sequence of compositions allocates
  /// nothing once the buffers are large enough. O(size) for a sparse `other` (randomized
  /// response: 4 nonzero masses), O(size log size) by FFT otherwise.
  void ComposeInPlace(const PrivacyLossDistribution& other);
  /// k-fold self-composition by repeated squaring; k >= 0 (k = 0 is the identity).
  [[nodiscard]] PrivacyLossDistribution SelfCompose(std::int64_t k) const;

  /// delta(eps) = sum_{l_i > eps} p_i (1 - e^{eps - l_i}) + p_inf (hockey-stick divergence).
  [[nodiscard]] double DeltaForEpsilon(double epsilon) const;
  /// The smallest eps >= 0 with delta(eps) <= delta (exact on the piecewise form of delta(eps)
  /// between grid points); +inf if the +inf mass alone exceeds delta. delta in (0, 1).
  [[nodiscard]] double EpsilonForDelta(double delta) const;

  [[nodiscard]] double value_discretization() const { return options_.value_discretization; }
  [[nodiscard]] const PldOptions& options() const { return options_; }
  /// Grid index of probabilities()[0]: its loss value is lowest_index() * h.
  [[nodiscard]] std::int64_t lowest_index() const { return lowest_index_; }
  [[nodiscard]] const std::vector<double>& probabilities() const { return probs_; }
  [[nodiscard]] double infinity_mass() const { return infinity_mass_; }

 private:
  PrivacyLossDistribution(const PldOptions& options, std::int64_t lowest_index,
                          std::vector<double> probs, double infinity_mass);
  // Cuts both tails (<= tail_mass_truncation each; pessimistically) and trims zeros.
  void Truncate();

  PldOptions options_;
  std::int64_t lowest_index_ = 0;
  std::vector<double> probs_;
  double infinity_mass_ = 0.0;
};

}  // namespace dpadmm
