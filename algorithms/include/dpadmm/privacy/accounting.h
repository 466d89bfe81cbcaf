// SPDX-License-Identifier: Apache-2.0
// Privacy accounting formulas of the consensus family, as free functions. Each cites the paper
// and equation it implements. All arguments are per node unless stated; c1 is the bound on L''
// (1/4 for the logistic loss), C the loss weight, B the node's sample count, V its degree.
// Invalid arguments (non-positive where the formula needs positive) throw InputError naming
// the argument.
#pragma once

#include <cstdint>
#include <vector>

#include "dpadmm/privacy/accountant.h"

namespace dpadmm {

// --- Dual variable perturbation, 004 Algorithm 2 --------------------------------------------
// For target alpha(t) at a node: alpha_hat = alpha - 2 ln(1 + c1 C / (B (rho + 2 eta V))).
// If alpha_hat > 0 then Phi = 0; otherwise Phi = c1 C / (B (e^{alpha/4} - 1)) - rho - 2 eta V
// and alpha_hat = alpha / 2. The noise parameter is zeta = alpha_hat / 2: the proof of
// Theorem 1 bounds ||eps' - eps|| <= 2 and states "by selecting zeta_p(t) = alpha_hat_p / 2"
// (as Chaudhuri et al.'s beta = eps' / 2); the algorithm box's "zeta_p(t) = alpha_hat_p" would
// only give (alpha + alpha_hat)-DP. eps is the vector of eq. (14), mu = lambda + (C / 2B) eps.
// (The extraction prints the logarithm's argument as "1 + (B/C) c1 / (rho + 2 eta N_p)"; the
// form used here is the one consistent with the Phi branch and with Chaudhuri et al.'s
// objective perturbation, from which the rule is derived.)
// Note 004 uses the regulariser weight rho per node (not rho / N).
struct DvpParameters {
  double zeta = 0.0;  // noise density proportional to exp(-zeta ||eps||)
  double phi = 0.0;   // extra penalty (Phi / 2) ||f||^2
  bool extra_penalty = false;
};
DvpParameters DvpNoise(double alpha, double C, double B, double c1, double rho, double eta, int V);

// --- Primal variable perturbation (Zhang and Zhu, IEEE TIFS 2017; papers/NOTES.md) ----------
// l2 sensitivity of the exact primal update when one sample changes:
//   2 C / (B (rho + 2 eta V)),
// and the noise parameter for alpha-DP of one release: zeta = alpha / sensitivity.
double PvpSensitivity(double C, double B, double rho, double eta, int V);
double PvpNoiseParameter(double alpha, double C, double B, double rho, double eta, int V);
// PVP with Gaussian noise: mu = (Delta + sqrt(d) step) / sigma of one release, sigma =
// multiplier x Delta, Delta = PvpSensitivity(C, B, rho, eta, V), step = GaussianGridStep(sigma)
// (the lattice the model is rounded to): the ratio the accountant forms from PvpNode::Mechanism.
double PvpGaussianMu(double C, double B, double rho, double eta, int V, double multiplier,
                     std::int64_t d);

// --- M-ADMM / penalty perturbation, 002 ------------------------------------------------------
// eta_i(t) = theta q1^(t-1) and alpha_i(t) = alpha q2^(t-1), t = 1, 2, ... (002: eta_i(t+1) =
// theta q1^t, alpha_i(t+1) = alpha q2^t).
double GeometricSchedule(double first, double ratio, std::int64_t t);
// One iteration's term of 002's bound: C (1.4 c1 + alpha_i(t)) / (eta_i(t) V_i B_i).
double MadmmIterationLoss(double C, double c1, double alpha, double eta, int V, double B);
// P(T) = max_i sum_{t=1}^T C (1.4 c1 + alpha_i(t)) / (eta_i(t) V_i B_i)          (002)
// terms[i][t-1] = node i's iteration-t term (from MadmmIterationLoss).
double MaxOverNodesOfSums(const std::vector<std::vector<double>>& terms);

// --- Private MR-ADMM, 003 --------------------------------------------------------------------
// One odd iteration's term of 003 eq. (32):
//   (2 C / B_i) (1.4 c1 / (rho/N + 2 eta_i(2k-1) V_i) + alpha_i(k)).
double MrAdmmIterationLoss(double C, double B, double c1, double rho, int N, double eta, int V,
                           double alpha);
// beta = max_i sum_k (the term above)                                            (003 eq. 32)
// (use MaxOverNodesOfSums on the per-node terms).
// Algorithm 3's condition on the first penalty: 2 c1 < (B_i / C) (rho/N + 2 eta_i(1) V_i) for
// every node; returns true if node i satisfies it.
bool MrAdmmFirstPenaltyOk(double C, double B, double c1, double rho, int N, double eta1, int V);

// --- Plain composition -----------------------------------------------------------------------
// Sum of per-iteration epsilons (basic sequential composition of pure DP releases).
double ComposeBasic(const std::vector<double>& per_iteration);

// --- The floating-point term of snapped releases (algorithms/privacy/README.md) --------------
// The l2-Laplace-type noise of DVP, PVP, M-ADMM and private MR-ADMM is drawn in double
// precision and the node's released value is rounded to the snap grid (RoundToSnapGrid:
// multiples of Lambda = 2^-16 below M = 32, 21 significant bits above; post-processing), whose
// cells near x are at least Lambda wide below 32 and 2^-21 |x| wide above. Under the coupling
// with an ideal draw (the same uniforms: the computed value is within c 2^-53 |x| of the
// ideal one) the two released values differ with probability at most
//   tv(d) = d (2 c 2^-53 M / Lambda + 2^-40),  c = 16 ulps, M = 32:  d (2^-27 + 2^-40),
// the total-variation distance between the computed and the ideal release (the README derives
// it and states the error model it rests on).
double SnappedReleaseTv(std::int64_t d);
// A snapped release whose ideal mechanism is eps-DP (given the node's earlier releases) is
// (eps, (1 + e^eps) tv(d))-DP: P[M~(D) in S] <= P[M(D) in S] + tv
// <= e^eps P[M(D') in S] + tv <= e^eps (P[M~(D') in S] + tv) + tv. A release that draws no
// fresh noise (private MR-ADMM's even rounds, eps = 0) adds 2 tv. The release point debits
// this per release (Release::spent_delta); composed with the eps terms it adds to the delta
// (Kairouz, Oh and Viswanath 2015: (eps_t, delta_t) releases compose to
// (eps(delta'), 1 - (1 - delta') prod_t (1 - delta_t)) <= (eps(delta'), delta' + sum delta_t)).
// eps >= 0 and finite, d >= 1.
double SnappedReleaseDelta(double eps, std::int64_t d);

// --- Tight composition of a node's releases --------------------------------------------------
// The smallest epsilon such that a node whose releases are eps_1, ..., eps_T pure-DP mechanisms
// (the per-round terms of 004 Theorem 1, PVP, 002 or 003 eq. (32)) is (epsilon, delta)-DP.
// Identical terms: the optimal composition of Kairouz, Oh and Viswanath 2015, Thm 3.3
// (OptimalCompositionEpsilon, closed form, exact). Different terms: the per-node Accountant
// (each term through its randomized-response dominating pair, composed as one PLD; tight up
// to the PLD's grid error). Never above the plain sum (which is (sum, 0)-DP). Zero terms (a
// round without noise, e.g. private MR-ADMM's even rounds) release nothing and are skipped.
// delta in (0, 1).
double ComposeTight(const std::vector<double>& per_release, double delta);

// The grid of ComposeTight's PLD: h = 1e-3. Each pure-epsilon release enters as randomized
// response with its two atoms connecting the dots (pld.h), which keeps the hockey-stick curve
// exact at every grid point: for equal terms the PLD agrees with the closed form to 1e-9
// relative at this h, and on unequal terms it is within 5e-4 relative of h = 1e-4 (the bound
// that always holds is that of rounding up, k h for k releases; the figure is an upper bound of
// the exact one either way). One release costs O(grid), the grid being 10 times coarser than the
// Accountant's default.
inline constexpr double kComposeTightGrid = 1e-3;
[[nodiscard]] AccountantOptions ComposeTightOptions();

// The same for a sequence of mechanisms of any kind (a node's Release::mechanisms()): all
// pure-epsilon: ComposeTight of their epsilons (same value, same bits); otherwise the per-node
// Accountant over all of them (Gaussian releases compose analytically; accountant.h), on a grid
// chosen from the figure: first h = kMixedGridCoarse; if that figure e is below
// kMixedGridCoarse / kMixedGridPerEpsilon (20), again on h = MixedGridFor(e) = max(1e-4,
// e / 4000). Every figure is an upper bound of the exact one (pld.h, "Pessimism": each
// distribution connects the dots, so it dominates the mechanism's pair on any grid); the
// grid only sets how close it is. Measured (bench/README, "The accountant on a grid that follows
// the figure"): where losses have atoms or a spread below h the error in epsilon stays first
// order, 0.9 h for 100 Laplace releases and 1.4 h for a small randomized response with a narrow
// Gaussian; on the mixed sequences far less (4.4e-5 relative at 1000 rounds on h = 5e-3); so
// within 5e-4 relative of the figure on h = 1e-4 once h <= e / 4000 (PldCompose tests).
// Empty: 0. delta in (0, 1).
double ComposeTightMechanisms(const std::vector<MechanismRelease>& releases, double delta);
inline constexpr double kMixedGridCoarse = 5e-3;
inline constexpr double kMixedGridFine = 1e-4;
inline constexpr double kMixedGridPerEpsilon = 1.0 / 4000.0;
// The grid ComposeTightMechanisms uses for a figure of coarse_epsilon on kMixedGridCoarse:
// coarse_epsilon / 4000 within [kMixedGridFine, kMixedGridCoarse] (kMixedGridFine for NaN).
[[nodiscard]] double MixedGridFor(double coarse_epsilon);

}  // namespace dpadmm
