// SPDX-License-Identifier: Apache-2.0
#include "dpadmm/privacy/accounting.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include "dpadmm/core/error.h"
#include "dpadmm/core/portable_math.h"
#include "dpadmm/privacy/accountant.h"
#include "dpadmm/privacy/samplers.h"

namespace dpadmm {
namespace {

// "Fn: arg must be <requirement>, got <value>".
template <typename T>
[[noreturn]] void Fail(const char* fn, const std::string& arg, const char* requirement, T got) {
  std::ostringstream os;
  os << fn << ": " << arg << " must be " << requirement << ", got " << got;
  throw InputError(os.str());
}

void RequireFinite(const char* fn, const char* arg, double v) {
  if (!std::isfinite(v)) Fail(fn, arg, "finite", v);
}

void RequirePositive(const char* fn, const char* arg, double v) {
  RequireFinite(fn, arg, v);
  if (!(v > 0.0)) Fail(fn, arg, "> 0", v);
}

void RequireNonNegative(const char* fn, const char* arg, double v) {
  RequireFinite(fn, arg, v);
  if (!(v >= 0.0)) Fail(fn, arg, ">= 0", v);
}

void RequireAtLeast(const char* fn, const char* arg, long long v, long long least) {
  if (v < least) {
    const std::string requirement = ">= " + std::to_string(least);
    Fail(fn, arg, requirement.c_str(), v);
  }
}

// The strong-convexity modulus of a node's primal objective, rho + 2 eta V (004 eq. (13),
// Phi = 0); with eta > 0 it is 0 only for an isolated node without regulariser.
void RequirePositiveModulus(const char* fn, double rho, double eta, int V) {
  const double modulus = rho + 2.0 * eta * V;
  if (!(modulus > 0.0)) {
    std::ostringstream os;
    os << fn << ": rho + 2 eta V must be > 0, got " << modulus << " (rho = " << rho
       << ", eta = " << eta << ", V = " << V << ")";
    throw InputError(os.str());
  }
}

}  // namespace

DvpParameters DvpNoise(double alpha, double C, double B, double c1, double rho, double eta, int V) {
  constexpr const char* kFn = "DvpNoise";
  RequirePositive(kFn, "alpha", alpha);
  RequirePositive(kFn, "C", C);
  RequirePositive(kFn, "B", B);
  RequireNonNegative(kFn, "c1", c1);
  RequireNonNegative(kFn, "rho", rho);
  RequirePositive(kFn, "eta", eta);
  RequireAtLeast(kFn, "V", V, 0);
  RequirePositiveModulus(kFn, rho, eta, V);

  const double modulus = rho + 2.0 * eta * V;
  // 004 Algorithm 2 and proof of Theorem 1 (eq. (21)):
  //   alpha_hat = alpha - ln(1 + c1 / ((B / C)(rho + 2 eta N_p)))^2.
  const double alpha_hat = alpha - 2.0 * math::Log1p(c1 * C / (B * modulus));
  DvpParameters p;
  if (alpha_hat > 0.0) {
    // Phi = 0; eq. (22) with ||eps' - eps|| <= 2: zeta = alpha_hat / 2.
    p.phi = 0.0;
    p.extra_penalty = false;
    p.zeta = alpha_hat / 2.0;
  } else {
    // Phi = c1 / ((B / C)(e^{alpha/4} - 1)) - rho - 2 eta N_p and alpha_hat = alpha / 2, which
    // makes the Jacobian term of eq. (21) exactly e^{alpha/2}; zeta = alpha_hat / 2 = alpha / 4.
    p.phi = c1 * C / (B * math::Expm1(alpha / 4.0)) - modulus;
    p.extra_penalty = true;
    p.zeta = alpha / 4.0;
  }
  return p;
}

double PvpGaussianMu(double C, double B, double rho, double eta, int V, double multiplier,
                     std::int64_t d) {
  RequirePositive("PvpGaussianMu", "multiplier", multiplier);
  const double sensitivity = PvpSensitivity(C, B, rho, eta, V);
  const double sigma = multiplier * sensitivity;
  return (sensitivity + GridSensitivityL2(d, GaussianGridStep(sigma))) / sigma;
}

double PvpSensitivity(double C, double B, double rho, double eta, int V) {
  constexpr const char* kFn = "PvpSensitivity";
  RequirePositive(kFn, "C", C);
  RequirePositive(kFn, "B", B);
  RequireNonNegative(kFn, "rho", rho);
  RequirePositive(kFn, "eta", eta);
  RequireAtLeast(kFn, "V", V, 0);
  RequirePositiveModulus(kFn, rho, eta, V);
  // Zhang and Zhu, TIFS 2017 (papers/NOTES.md): the minimizer of a (rho + 2 eta V)-strongly
  // convex objective with loss weight C / B and |L'| <= 1, ||x|| <= 1 moves by at most
  //   2 C / (B (rho + 2 eta V)).
  return 2.0 * C / (B * (rho + 2.0 * eta * V));
}

double PvpNoiseParameter(double alpha, double C, double B, double rho, double eta, int V) {
  constexpr const char* kFn = "PvpNoiseParameter";
  RequirePositive(kFn, "alpha", alpha);
  RequirePositive(kFn, "C", C);
  RequirePositive(kFn, "B", B);
  RequireNonNegative(kFn, "rho", rho);
  RequirePositive(kFn, "eta", eta);
  RequireAtLeast(kFn, "V", V, 0);
  RequirePositiveModulus(kFn, rho, eta, V);
  // Density exp(-zeta ||eps||) with zeta = alpha / sensitivity makes one release alpha-DP.
  return alpha / PvpSensitivity(C, B, rho, eta, V);
}

double GeometricSchedule(double first, double ratio, std::int64_t t) {
  constexpr const char* kFn = "GeometricSchedule";
  RequirePositive(kFn, "first", first);
  RequirePositive(kFn, "ratio", ratio);
  RequireAtLeast(kFn, "t", t, 1);
  // 002: eta_i(t+1) = theta q1^t, alpha_i(t+1) = alpha q2^t, i.e. value(t) = first ratio^(t-1).
  return first * math::PowInt(ratio, t - 1);
}

double MadmmIterationLoss(double C, double c1, double alpha, double eta, int V, double B) {
  constexpr const char* kFn = "MadmmIterationLoss";
  RequirePositive(kFn, "C", C);
  RequireNonNegative(kFn, "c1", c1);
  RequirePositive(kFn, "alpha", alpha);
  RequirePositive(kFn, "eta", eta);
  RequireAtLeast(kFn, "V", V, 1);
  RequirePositive(kFn, "B", B);
  // 002, privacy P(t): C (1.4 c1 + alpha_i(r)) / (eta_i(r) V_i B_i).
  return C * (1.4 * c1 + alpha) / (eta * V * B);
}

double MaxOverNodesOfSums(const std::vector<std::vector<double>>& terms) {
  constexpr const char* kFn = "MaxOverNodesOfSums";
  if (terms.empty()) throw InputError(std::string(kFn) + ": terms must hold at least one node");
  // 002 P(T) = max_i sum_{t=1}^T (...), 003 eq. (32) beta = max_i sum_k (...): the same T for
  // every node.
  double best = 0.0;
  for (std::size_t i = 0; i < terms.size(); ++i) {
    if (terms[i].size() != terms[0].size()) {
      std::ostringstream os;
      os << kFn << ": node " << i << " has " << terms[i].size() << " terms, node 0 has "
         << terms[0].size() << " (every node runs the same iterations)";
      throw InputError(os.str());
    }
    double sum = 0.0;
    for (std::size_t t = 0; t < terms[i].size(); ++t) {
      const std::string arg = "terms[" + std::to_string(i) + "][" + std::to_string(t) + "]";
      const double v = terms[i][t];
      if (!std::isfinite(v)) Fail(kFn, arg, "finite", v);
      if (!(v >= 0.0)) Fail(kFn, arg, ">= 0", v);
      sum += v;
    }
    if (i == 0 || sum > best) best = sum;
  }
  return best;
}

double MrAdmmIterationLoss(double C, double B, double c1, double rho, int N, double eta, int V,
                           double alpha) {
  constexpr const char* kFn = "MrAdmmIterationLoss";
  RequirePositive(kFn, "C", C);
  RequirePositive(kFn, "B", B);
  RequireNonNegative(kFn, "c1", c1);
  RequireNonNegative(kFn, "rho", rho);
  RequireAtLeast(kFn, "N", N, 1);
  RequirePositive(kFn, "eta", eta);
  RequireAtLeast(kFn, "V", V, 0);
  RequirePositive(kFn, "alpha", alpha);
  const double modulus = rho / N + 2.0 * eta * V;
  if (!(modulus > 0.0)) {
    std::ostringstream os;
    os << kFn << ": rho/N + 2 eta V must be > 0, got " << modulus << " (rho = " << rho
       << ", V = " << V << ")";
    throw InputError(os.str());
  }
  // 003 eq. (32), the k-th term: (2 C / B_i) (1.4 c1 / (rho/N + 2 eta_i(2k-1) V_i) + alpha_i(k)).
  return (2.0 * C / B) * (1.4 * c1 / modulus + alpha);
}

bool MrAdmmFirstPenaltyOk(double C, double B, double c1, double rho, int N, double eta1, int V) {
  constexpr const char* kFn = "MrAdmmFirstPenaltyOk";
  RequirePositive(kFn, "C", C);
  RequirePositive(kFn, "B", B);
  RequireNonNegative(kFn, "c1", c1);
  RequireNonNegative(kFn, "rho", rho);
  RequireAtLeast(kFn, "N", N, 1);
  RequirePositive(kFn, "eta1", eta1);
  RequireAtLeast(kFn, "V", V, 0);
  // 003 Algorithm 3: 2 c1 < (B_i / C)(rho/N + 2 eta_i(1) V_i) (strict).
  return 2.0 * c1 < (B / C) * (rho / N + 2.0 * eta1 * V);
}

double ComposeBasic(const std::vector<double>& per_iteration) {
  constexpr const char* kFn = "ComposeBasic";
  // Basic sequential composition of pure-DP releases (Dwork and Roth 2014, sec. 3.5):
  // eps_1 + ... + eps_T.
  double total = 0.0;
  for (std::size_t t = 0; t < per_iteration.size(); ++t) {
    const std::string arg = "per_iteration[" + std::to_string(t) + "]";
    const double v = per_iteration[t];
    if (!std::isfinite(v)) Fail(kFn, arg, "finite", v);
    if (!(v >= 0.0)) Fail(kFn, arg, ">= 0", v);
    total += v;
  }
  return total;
}

double SnappedReleaseTv(std::int64_t d) {
  if (d < 1) Fail("SnappedReleaseTv", "d", ">= 1", static_cast<double>(d));
  // 2 c 2^-53 M / Lambda = 2 * 16 * 2^-53 * 32 * 2^16 = 2^-27 per coordinate, plus 2^-40 for a
  // uniform below 2^-40 (where the logarithm's quantisation dominates).
  constexpr double kPerCoordinate = 0x1.0p-27 + 0x1.0p-40;
  static_assert(kSnapFineLimit == 32.0 && kGridStep == 0x1.0p-16,
                "the per-coordinate term is derived for M = 32 and the 2^-16 grid");
  return static_cast<double>(d) * kPerCoordinate;
}

double SnappedReleaseDelta(double eps, std::int64_t d) {
  if (!std::isfinite(eps) || !(eps >= 0.0)) {
    Fail("SnappedReleaseDelta", "eps", ">= 0 and finite", eps);
  }
  return (1.0 + math::Exp(eps)) * SnappedReleaseTv(d);
}

AccountantOptions ComposeTightOptions() {
  AccountantOptions o;
  o.pld.value_discretization = kComposeTightGrid;
  return o;
}

double ComposeTight(const std::vector<double>& per_release, double delta) {
  constexpr const char* kFn = "ComposeTight";
  if (!(delta > 0.0 && delta < 1.0)) Fail(kFn, "delta", "in (0, 1)", delta);
  std::vector<double> terms;
  terms.reserve(per_release.size());
  for (double v : per_release) {
    if (v > 0.0) terms.push_back(v);
  }
  const double sum = ComposeBasic(per_release);  // checks every term
  if (terms.empty()) return 0.0;
  bool identical = true;
  for (double v : terms) identical = identical && v == terms.front();
  double tight = 0.0;
  if (identical) {
    tight =
        OptimalCompositionEpsilon(terms.front(), static_cast<std::int64_t>(terms.size()), delta);
  } else {
    Accountant accountant(ComposeTightOptions());
    for (double v : terms) accountant.AddPureEpsilon(v);
    tight = accountant.Epsilon(delta);
  }
  return std::min(tight, sum);
}

double ComposeTightMechanisms(const std::vector<MechanismRelease>& releases, double delta) {
  constexpr const char* kFn = "ComposeTightMechanisms";
  if (!(delta > 0.0 && delta < 1.0)) Fail(kFn, "delta", "in (0, 1)", delta);
  const bool all_pure = std::all_of(releases.begin(), releases.end(), [](const auto& m) {
    return m.kind == MechanismKind::kPureEpsilon;
  });
  if (all_pure) {
    std::vector<double> costs;
    costs.reserve(releases.size());
    for (const MechanismRelease& m : releases) costs.push_back(m.epsilon);
    return ComposeTight(costs, delta);
  }
  // The grid follows the figure (kMixedGridCoarse, then finer only for a small figure), so a
  // run of many rounds composes on a coarse grid and a small figure keeps its relative accuracy.
  const auto epsilon_on = [&](double h) {
    AccountantOptions options;
    options.pld.value_discretization = h;
    Accountant accountant(options);
    for (const MechanismRelease& m : releases) accountant.Add(m);
    return accountant.Epsilon(delta);
  };
  const double coarse = epsilon_on(kMixedGridCoarse);
  const double h = MixedGridFor(coarse);
  return h == kMixedGridCoarse ? coarse : epsilon_on(h);
}

double MixedGridFor(double coarse_epsilon) {
  if (!(coarse_epsilon * kMixedGridPerEpsilon >= kMixedGridFine)) return kMixedGridFine;
  return std::min(kMixedGridCoarse, coarse_epsilon * kMixedGridPerEpsilon);
}

}  // namespace dpadmm
