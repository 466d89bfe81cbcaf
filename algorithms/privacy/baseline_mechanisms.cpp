// SPDX-License-Identifier: Apache-2.0
#include "dpadmm/privacy/baseline_mechanisms.h"

#include <cmath>
#include <sstream>
#include <stdexcept>
#include <string>

#include "dpadmm/core/error.h"
#include "dpadmm/core/portable_math.h"
#include "dpadmm/privacy/accountant.h"
#include "dpadmm/privacy/samplers.h"

namespace dpadmm {
namespace {

void RequirePositiveFinite(const char* fn, const char* arg, double v) {
  if (!(v > 0.0) || !std::isfinite(v)) {
    std::ostringstream os;
    os << fn << ": " << arg << " must be > 0 and finite, got " << v;
    throw InputError(os.str());
  }
}

}  // namespace

ObjectivePerturbation ObjectivePerturbationFor(double epsilon, double C, double B, double c,
                                               double rho_node) {
  constexpr const char* kFn = "ObjectivePerturbationFor";
  RequirePositiveFinite(kFn, "epsilon", epsilon);
  RequirePositiveFinite(kFn, "C", C);
  RequirePositiveFinite(kFn, "B", B);
  RequirePositiveFinite(kFn, "c", c);
  RequirePositiveFinite(kFn, "rho_node", rho_node);
  // Chaudhuri et al.'s Lambda for J / C = (1/B) sum L + (rho_i / (2C)) ||f||^2.
  const double lambda = rho_node / C;
  // log(1 + 2c/(B Lambda) + c^2/(B Lambda)^2) = 2 log(1 + c/(B Lambda)).
  const double ratio = c / (B * lambda);
  ObjectivePerturbation p;
  p.epsilon_prime = epsilon - 2.0 * math::Log1p(ratio);
  if (!(p.epsilon_prime >= epsilon / 2.0)) {
    // Delta = c / (B (e^{eps/4} - 1)) - Lambda makes the Jacobian term 2 log(1 + c/(B (Lambda +
    // Delta))) exactly eps / 2, leaving eps' = eps / 2 for the noise. In our scaling the extra
    // regulariser C Delta joins rho_i. The paper adds Delta only when eps' <= 0; adding it
    // whenever eps' < eps / 2 (Delta > 0 there too) keeps the proof (any Delta >= 0 with eps'
    // computed at Lambda + Delta) and removes the paper's cliff: just above eps' = 0 the noise
    // density exp(-(eps'/2) ||b||) has an unbounded scale (algorithms/privacy/README.md).
    p.second_branch = true;
    const double delta = c / (B * math::Expm1(epsilon / 4.0)) - lambda;
    p.extra_penalty = std::max(0.0, C * delta);
    p.epsilon_prime = epsilon / 2.0;
  }
  p.noise = p.epsilon_prime / 2.0;
  return p;
}

double OutputPerturbationSensitivity(double C, double B, double rho_node) {
  constexpr const char* kFn = "OutputPerturbationSensitivity";
  RequirePositiveFinite(kFn, "C", C);
  RequirePositiveFinite(kFn, "B", B);
  RequirePositiveFinite(kFn, "rho_node", rho_node);
  // One record replaced moves the data term's gradient by at most 2 C / B (|L'| <= 1,
  // ||x|| <= 1); J is rho_i-strongly convex, so its minimiser moves by at most that / rho_i.
  return 2.0 * C / (B * rho_node);
}

double AnalyticGaussianSigma(double sensitivity, double epsilon, double delta) {
  constexpr const char* kFn = "AnalyticGaussianSigma";
  RequirePositiveFinite(kFn, "sensitivity", sensitivity);
  RequirePositiveFinite(kFn, "epsilon", epsilon);
  if (!(delta > 0.0 && delta < 1.0)) {
    std::ostringstream os;
    os << kFn << ": delta must be in (0, 1), got " << delta;
    throw InputError(os.str());
  }
  // delta(eps) of the analytic Gaussian decreases in sigma: bracket, then bisect keeping the
  // upper end (a sigma that meets delta).
  const auto ok = [&](double sigma) {
    return AnalyticGaussianDelta(sensitivity, sigma, epsilon) <= delta;
  };
  double hi = sensitivity;
  while (!ok(hi)) hi *= 2.0;
  double lo = hi;
  while (ok(lo) && lo > sensitivity * 1e-12) lo *= 0.5;
  for (int it = 0; it < 200 && hi - lo > 1e-13 * hi; ++it) {
    const double mid = 0.5 * (lo + hi);
    (ok(mid) ? hi : lo) = mid;
  }
  return hi;
}

GaussianOutputPerturbation GaussianOutputPerturbationFor(double epsilon, double delta, double C,
                                                         double B, double rho_node,
                                                         std::int64_t d) {
  if (d < 1) {
    throw InputError("GaussianOutputPerturbationFor: d must be >= 1, got " + std::to_string(d));
  }
  const double exact = OutputPerturbationSensitivity(C, B, rho_node);
  GaussianOutputPerturbation g;
  g.step = kGridStep;
  // The lattice step grows with sigma (GaussianGridStep), and the lattice term with the step:
  // iterate to the fixed point (a step only grows, by powers of two; a few passes at most).
  for (int pass = 0; pass < 64; ++pass) {
    g.sensitivity = exact + GridSensitivityL2(d, g.step);
    g.sigma = AnalyticGaussianSigma(g.sensitivity, epsilon, delta);
    const double step = GaussianGridStep(g.sigma);
    if (step == g.step) return g;
    g.step = step;
  }
  throw std::logic_error("GaussianOutputPerturbationFor: the lattice step did not settle");
}

}  // namespace dpadmm
