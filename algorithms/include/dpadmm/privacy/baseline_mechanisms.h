// SPDX-License-Identifier: Apache-2.0
// The two mechanisms of the baselines (local, average, central: algorithms/consensus/
// baseline_nodes.h), as free functions of public quantities. Each node releases the minimiser of
//     J(f) = (C/B) sum_n L(y_n f^T x_n) + (rho_i/2) ||f||^2
// once, perturbed by one of them (algorithms/privacy/README.md, "The baselines' mechanisms"):
//
//  - objective: objective perturbation, Chaudhuri, Monteleoni and Sarwate 2011 (JMLR 12),
//    Algorithm 2 and Theorem 9, pure epsilon-DP. Their J is (1/n) sum L + (Lambda/2)||f||^2;
//    ours is C times it with n = B and Lambda = rho_i / C. With c the loss's curvature bound,
//      eps' = eps - log(1 + 2c/(B Lambda) + c^2/(B Lambda)^2);
//      eps' > 0:  Delta = 0;  else  Delta = c / (B (e^{eps/4} - 1)) - Lambda,  eps' = eps / 2;
//    b is drawn with density proportional to exp(-(eps'/2) ||b||) and the node releases
//      argmin (C/B) sum L + ((rho_i + C Delta)/2) ||f||^2 + (C/B) b^T f.
//  - gaussian: Gaussian output perturbation of the exact minimiser of J (L2 sensitivity
//    2 (C/B) / rho_i for |L'| <= 1 and ||x|| <= 1), released on the lattice of the exact discrete
//    Gaussian (samplers.h) with the lattice's sqrt(d) step added to the sensitivity, sigma the
//    smallest for which the analytic Gaussian mechanism is (eps, delta)-DP.
//
// Invalid arguments throw InputError naming the argument.
#pragma once

#include <cstdint>

namespace dpadmm {

enum class BaselineMechanism {
  kObjective,  // objective perturbation, pure epsilon-DP (the default)
  kGaussian,   // Gaussian output perturbation, (epsilon, delta)-DP
};

// Objective perturbation's parameters for one node (Chaudhuri et al. 2011, Algorithm 2, with its
// second branch whenever the first would leave eps' < eps / 2, not only eps' <= 0).
struct ObjectivePerturbation {
  double epsilon_prime = 0.0;  // eps' (eps / 2 in the second branch; never below eps / 2)
  double noise = 0.0;          // a of the noise density exp(-a ||b||): eps' / 2
  double extra_penalty = 0.0;  // C Delta, added to rho_i (0 in the first branch)
  bool second_branch = false;  // eps' < eps / 2 at first: Delta > 0 (Delta may be 0 at the border)
};
// eps > 0 the mechanism's epsilon, C > 0 the loss weight, B >= 1 the node's rows, c > 0 the
// loss's curvature bound (Loss::CurvatureBound), rho_node > 0 the node's regulariser rho_i.
ObjectivePerturbation ObjectivePerturbationFor(double epsilon, double C, double B, double c,
                                               double rho_node);

// L2 sensitivity of the exact minimiser of J to one record replaced: 2 (C/B) / rho_i
// (Chaudhuri et al. 2011, Corollary 8, in our scaling).
double OutputPerturbationSensitivity(double C, double B, double rho_node);

// The smallest sigma for which the Gaussian mechanism of L2 sensitivity `sensitivity` is
// (epsilon, delta)-DP by the analytic Gaussian (Balle and Wang 2018; AnalyticGaussianDelta):
// AnalyticGaussianDelta(sensitivity, sigma, epsilon) <= delta, within 1e-12 relative above the
// exact value (bisection, the result on the private side).
double AnalyticGaussianSigma(double sensitivity, double epsilon, double delta);

// Gaussian output perturbation for one node with d features: the lattice step of the noise,
// the sensitivity with the lattice term (OutputPerturbationSensitivity + GridSensitivityL2(d,
// step)) and sigma = AnalyticGaussianSigma of that; step = GaussianGridStep(sigma).
struct GaussianOutputPerturbation {
  double step = 0.0;
  double sensitivity = 0.0;
  double sigma = 0.0;
};
GaussianOutputPerturbation GaussianOutputPerturbationFor(double epsilon, double delta, double C,
                                                         double B, double rho_node, std::int64_t d);

}  // namespace dpadmm
