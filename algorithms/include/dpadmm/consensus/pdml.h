// SPDX-License-Identifier: Apache-2.0
// PDML (paper 000: privacy-preserving ADMM-based distributed machine learning with heterogeneous
// privacy): the pieces that are plain mathematics, as free functions.
//
//   Phase 1 (users' devices): randomized response on the label, Definition 2 / eq. (12) with
//     p = 1 / (1 + e^eps) (eq. (13)), which is eps-LDP for the label (Proposition 1).
//   The debiased ("modified") loss, eq. (19):
//     l~(y', z, eps) = (e^eps l(y' z) - l(-y' z)) / (e^eps - 1),
//     unbiased for l(y z) over the randomized label (Proposition 2 (i)).
//   Phase 2 noise: the bounded objective-perturbation noise ||eta_i|| <= R of eq. (14).
//
// Encoding of "no label randomization": eps = 0. A user (or group) with eps = 0 reports the true
// label, and the debiased loss with eps = 0 is the plain loss l(y z). (eps = 0 would mean perfect
// privacy in the DP sense, p = 1/2, where (19) is undefined; the project uses 0 for "this
// mechanism is off" everywhere, as alpha = 0 for the consensus variants.) eps must be finite.
//
// The node program that runs Phase 2 is internal (algorithms/consensus/pdml_node.h); `Experiment`
// builds it for algorithm name "pdml".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <Eigen/Dense>

#include "dpadmm/core/random.h"
#include "dpadmm/privacy/noise.h"
#include "dpadmm/solver/loss.h"

namespace dpadmm {

// Label privacy of the users: one eps for everybody, or groups (eps_k, share_k) with each user
// joining group k with probability share_k (a seeded, independent draw per user: "self-
// controlled privacy", 000 Section IV-A). When `group_eps` is non-empty it replaces `eps`.
struct LabelPrivacySpec {
  double eps = 0.0;                  // >= 0, finite; 0 = labels reported truthfully
  std::vector<double> group_eps;     // each >= 0, finite (0 = truthful group)
  std::vector<double> group_shares;  // one per group, each > 0, summing to 1 (within 1e-9)
  // Throws InputError naming `prefix` + field ("algorithm.label_eps_shares[1] must be > 0").
  void Validate(const std::string& prefix) const;
};

// Pr[y' = y] of eqs. (12)-(13): 1 - p = e^eps / (1 + e^eps); 1 for eps = 0 (no randomization).
double KeepProbability(double eps);
// p of eq. (13): 1 / (1 + e^eps); 0 for eps = 0 (no randomization).
double RandomizationProbability(double eps);
// 1 / (e^eps - 1), the weight of the debiasing term; 0 for eps = 0 (plain loss).
double DebiasWeight(double eps);

// Definition 2, eq. (12): +1 with probability p, -1 with probability p, else the true label y,
// i.e. -y with probability p = 1 / (1 + e^eps) and y otherwise. Drawn exactly from the keyed
// noise stream (SampleRandomizedResponseFlip: eps rounded DOWN to a multiple of 2^-32, so the
// flip probability is never below the accounted one).
double RandomizedResponse(double y, double eps, KeyedStream& stream);

// Phase 1 for the users of one server (node): the labels they report and each user's eps.
struct ReportedLabels {
  Eigen::VectorXd y;    // y'_j, each +-1
  Eigen::VectorXd eps;  // eps_j of user j (0 = truthful)
};
// Drawn from the node's noise key (NoiseKey::Make(noise_seed, node): the operating system's
// entropy, or derived from noise_seed in simulation mode): KeyedStream(key, 0, kLabelNoise)
// for the group assignment (one uniform per user, drawn first for all users) and
// KeyedStream(key, 1, kLabelNoise) for the responses.
ReportedLabels RandomizeLabels(const Eigen::VectorXd& y, const LabelPrivacySpec& privacy,
                               const std::optional<std::uint64_t>& noise_seed, std::uint64_t node);

// The debiased loss (19) and its first and second derivatives with respect to the margin
// z = w^T x, for any margin loss, written as l(y'z) + (l(y'z) - l(-y'z)) / (e^eps - 1) (the
// same expression, stable for large eps). For the logistic loss l(z) - l(-z) = -z, so
// l~ = l(y'z) - y'z / (e^eps - 1): convex. For the smooth hinge the curvature
// l''(y'z) + (l''(y'z) - l''(-y'z)) / (e^eps - 1) is negative near y'z = -1, so the debiased
// smooth-hinge objective is not convex and PDML rejects that loss.
double DebiasedLoss(const Loss& loss, double y_reported, double z, double eps);
double DebiasedLossD1(const Loss& loss, double y_reported, double z, double eps);
double DebiasedLossD2(const Loss& loss, double y_reported, double z, double eps);

// DrawUniformBall (the bounded noise of eq. (14)) is in dpadmm/privacy/noise.h.

// Standard deviation of the primal perturbation theta_i(t) ~ N(0, decay^(t-1) V^2 I) of
// eq. (16), t >= 1: V decay^((t-1)/2).
double PrimalNoiseStd(double V, double decay, std::int64_t t);

// Phase 2's L2 sensitivity of w_i(r) to one record replaced (algorithms/privacy/README.md, "PDML
// Phase 2"): 2 (C / m_i)(1 + max_debias_weight) / (rho_i + 2 beta N_i); NaN when that modulus is
// not > 0. One formula for the node's mechanism and the trace's per-round figure (same bits).
// The largest debiasing weight a record may carry: DebiasWeight over the public label eps
// levels (label_eps, or the groups' levels).
double PdmlMaxDebiasWeight(double label_eps, const std::vector<double>& label_eps_groups);

double PdmlPhase2Sensitivity(double C, std::int64_t rows, double max_debias_weight, double rho_node,
                             double beta, int degree);

// mu_r = (sensitivity + sqrt(d) step) / sigma_r of round r's Gaussian release (the ratio the
// Accountant forms from PdmlNode::Mechanism); 0 for a round without primal noise. One place for
// the trace's per-round figure and the calibration's plan (same bits as the summary).
double PdmlRoundMu(double sensitivity, double V, double decay, std::int64_t round,
                   std::int64_t dim);

}  // namespace dpadmm
