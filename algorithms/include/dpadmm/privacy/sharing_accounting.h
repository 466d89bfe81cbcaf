// SPDX-License-Identifier: Apache-2.0
// Privacy accounting of differentially private ADMM sharing (paper 001, section 4; the formulas
// are restored in ../shared/papers/NOTES.md), as free functions. Invalid arguments throw
// InputError naming the argument.
//
// Assumptions of the bounds (001 Assumption 2), which the caller states as parameters:
//   b1: bound on the norms of the primal variables x_m and of the dual variable y (2.1);
//   c1: bound on |R_m''| of the regulariser (2.2; c1 = 1 for R = ||.||^2 / 2);
//   every row of D_m has l2 norm at most 1 (2.3).
// Neighbouring data sets differ in one feature column of one party.
#pragma once

#include <cstdint>

namespace dpadmm {

// 001 Lemma 1: l2 sensitivity of the shared value D_m x_m^{t+1} of party m,
//   C = 3 / (d_m rho) * [ lambda c1 + (1 + M rho) b1 ],
// d_m = the party's feature count, M = number of parties.
double SharingSensitivity(std::int64_t d_m, double rho, double lambda, double c1, int M, double b1);

// 001 Theorem 3: sigma = sqrt(2 ln(1.25 / delta)) * C / eps makes each iteration
// (eps, delta)-DP, for eps in (0, 1], delta in (0, 1).
double SharingGaussianSigma(double eps, double delta, double sensitivity);

// Theorem 3 solved for eps: the per-iteration epsilon that a given sigma buys,
//   eps = sqrt(2 ln(1.25 / delta)) * C / sigma   (sigma > 0). Theorem 3 covers eps <= 1 only;
// a larger value is reported as computed, with that caveat.
double SharingEpsilonForSigma(double sigma, double delta, double sensitivity);

// 001 Corollary 1 (advanced composition of Dwork et al.): T iterations that are each
// (eps, delta)-DP are together (eps', T delta + delta')-DP with
//   eps' = sqrt(2 T ln(1 / delta')) eps + T eps (e^eps - 1).
// T >= 0; both return 0 for T = 0 (nothing was released).
double SharingTotalEpsilon(double eps, std::int64_t T, double delta_prime);
double SharingTotalDelta(double delta, std::int64_t T, double delta_prime);

// --- The default mechanism (algorithms/sharing/README.md, "DP sharing: the Gaussian mechanism
// on the message") -------------------------------------------------------------------------------
// Party m releases RoundToGrid(D_m x_m, step) + step Z^N (exact discrete Gaussian of standard
// deviation >= sigma) with ||x_m|| <= b1 enforced by projection and rows of D_m of norm <= 1.
// For ANY change of party m's block (one feature column, one row, or all of it) and any x_m,
// x'_m in the b1-ball, every coordinate obeys |d_n^T x_m| <= ||d_n|| ||x_m|| <= b1, so
//   ||D_m x_m - D'_m x'_m||_2 <= 2 b1 sqrt(N),
// and the rounding to the lattice adds sqrt(N) step (GridSensitivityL2).
double SharingMessageSensitivity(std::int64_t N, double b1, double step);

// Tight (eps, delta) of T such releases of one party (each with sensitivity `sensitivity` and
// noise sigma): one Gaussian with mu^2 = T (sensitivity / sigma)^2, analytic Gaussian
// mechanism (AnalyticGaussianEpsilon(sqrt(T) sensitivity, sigma, delta)). T = 0 gives 0.
// mu > kSharingMaxMu gives +infinity: there eps exceeds about 650, where e^eps overflows in the
// analytic Gaussian's delta (and the guarantee is void anyway).
constexpr double kSharingMaxMu = 32.0;
double SharingTightEpsilon(double sensitivity, double sigma, std::int64_t T, double delta);

// The smallest sigma whose T releases give SharingTightEpsilon <= total_epsilon at `delta`
// (bisection on mu = sqrt(T) sensitivity / sigma, relative 1e-12; the result is rounded up).
double SharingSigmaForTotalEpsilon(double total_epsilon, double delta, double sensitivity,
                                   std::int64_t T);

}  // namespace dpadmm
