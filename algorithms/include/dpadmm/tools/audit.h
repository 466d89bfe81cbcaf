// SPDX-License-Identifier: Apache-2.0
// An empirical privacy audit: a black-box distinguishing attack on one mechanism set-up, turned
// into a lower bound on its epsilon and printed beside the accountant's claim
// (algorithms/privacy/README.md, "Empirical audit").
//
// 1. Two neighbouring datasets D, D' of the audited node (node 0 of a 2-node graph, or party 1
//    of a 2-party sharing run): one record replaced by a canary at the norm bound with its
//    label flipped (AuditPair says which pair each mechanism uses and why it is the worst case).
// 2. `runs_per_side` runs on each side, in one process and in parallel, each with fresh noise
//    keys from the operating system (private mode) or, with a noise seed, keys derived from
//    (seed, side, run) (simulation). Every run calls the shipped node programs, which draw their
//    noise and release through their Release: what is recorded is exactly what the node sends.
// 3. A distinguishing statistic is chosen and fitted on the first half of each side's runs (the
//    best there of: the projection of the released values on the mean difference, a clipped
//    sum of per-value Laplace log-likelihood ratio shapes, the same on the values' innovations,
//    and for DP sharing the residual outside the column space of D_1), its threshold and
//    direction are chosen there too, and its false positive / false negative rates are
//    measured on the other half.
// 4. One-sided Clopper-Pearson upper bounds on FPR and FNR, each at level 1 - (1 - confidence)/2
//    (Bonferroni over the two), give
//      eps_lb = max( ln((1 - delta - FNR_ub) / FPR_ub), ln((1 - delta - FPR_ub) / FNR_ub) ),
//    which holds with probability >= confidence for any (eps, delta)-DP mechanism
//    (Kairouz, Oh and Viswanath 2015, Thm 2.1: FPR + e^eps FNR >= 1 - delta and vice versa).
// 5. The claim is the accountant's tight epsilon at the same delta for the releases the
//    statistic saw (the T releases of the audited node). PASS iff eps_lb <= claim.
//
// Thread safety: RunAudit may be called from any thread; it runs its own pool.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace dpadmm {

// The mechanisms the audit covers.
enum class AuditMechanism {
  kDvp,             // 004 Algorithm 2 (dual variable perturbation)
  kPvp,             // primal variable perturbation
  kPvpGaussian,     // primal variable perturbation with the Gaussian mechanism (alpha = the
                    // noise multiplier sigma / sensitivity)
  kMadmm,           // 002 (penalty perturbation)
  kPrivateMradmm,   // 003 Algorithm 3
  kPdmlLabels,      // 000 Phase 1 (randomized response on the label)
  kSharing,         // DP ADMM sharing, the default Gaussian mechanism on the message
  kSharingPaper16,  // DP ADMM sharing as 001 eq. (16) states it (not DP as stated)
  kLocal,           // the local baseline: one objective-perturbed release (Chaudhuri et al.)
  kAverage,         // local's release, then gossip averages (post-processing)
  kCentral,         // the same release by one node holding every row
};
// "dvp", "pvp", "pvp_gaussian", "madmm", "private_mradmm", "pdml", "sharing",
// "sharing_paper16", "local", "average", "central".
const char* ToString(AuditMechanism m);
// The inverse; throws InputError listing the names.
AuditMechanism ParseAuditMechanism(const std::string& name);
std::vector<AuditMechanism> AllAuditMechanisms();

// The set-up: small on purpose (1e4 runs per side in well under a minute). Zero or negative
// values of the optional fields mean "the mechanism's audit default" (AuditDefaults), chosen
// so that the canary pair is the worst case and the claim per round is about 1.
struct AuditSetup {
  AuditMechanism mechanism = AuditMechanism::kDvp;
  int rounds = 1;         // T: iterations whose releases the statistic sees, >= 1
  std::int64_t rows = 0;  // rows per node (consensus, pdml) or samples N (sharing)
  std::int64_t dim = 0;   // features per node (consensus) / per party (sharing)
  double alpha = 0.0;     // privacy parameter (consensus alpha, pdml label eps)
  double eta = 0.0;       // penalty (consensus)
  double C = 0.0;         // loss weight (consensus)
  double rho = 0.0;       // regulariser rho (consensus; per node)
  bool logistic = false;  // consensus: logistic loss instead of the smooth hinge
  // local, average, central: Gaussian output perturbation at (epsilon, delta) instead of
  // objective perturbation.
  bool gaussian = false;
  double epsilon = 0.0;    // sharing: the target epsilon (paper16: per iteration;
                           //          default: total over `rounds` iterations);
                           // local, average, central: the mechanism's epsilon
  double delta = 1e-5;     // the delta of the claim and of the bound, in (0, 1)
  std::uint64_t seed = 1;  // data of the set-up
  // Throws InputError naming the field.
  void Validate() const;
};

// The set-up with every optional field resolved to the mechanism's audit default.
AuditSetup AuditDefaults(const AuditSetup& setup);

struct AuditOptions {
  std::int64_t runs_per_side = 10000;  // >= 20; half fit, half evaluation
  int threads = 0;                     // 0 = all cores
  double confidence = 0.95;            // of the bound, in (0, 1)
  // Set: simulation (keys derived from the seed; reproducible, not private); unset: fresh keys
  // from the operating system for every run.
  std::optional<std::uint64_t> noise_seed;
  void Validate() const;
};

struct AuditResult {
  AuditSetup setup;       // resolved
  std::string mechanism;  // what is released, with paper and equation
  std::string pair;       // the neighbouring pair and why it is the worst case
  std::string statistic;  // the distinguishing statistic
  std::string noise;      // "private keys (fresh per run)" or the simulation label
  std::int64_t runs_per_side = 0;
  std::int64_t eval_per_side = 0;
  double threshold = 0.0;  // on the statistic, chosen on the fit half
  bool d_above = true;     // the test says "D" when the statistic is above it
  std::int64_t false_positives = 0, false_negatives = 0;  // on the evaluation half
  double fpr = 0.0, fnr = 0.0;                            // observed
  double fpr_upper = 0.0, fnr_upper = 0.0;                // Clopper-Pearson
  double epsilon_lower_bound = 0.0;                       // eps_lb (>= 0)
  double claim = 0.0;            // the accountant's tight epsilon at delta for the T releases
  double claim_per_round = 0.0;  // the same for the first release alone
  double paper_claim = 0.0;      // the paper's figure for the same releases (plain sum, ...)
  std::string claim_source;      // how the claim is computed
  double ratio = 0.0;            // eps_lb / claim
  bool pass = true;              // eps_lb <= claim
  double seconds = 0.0;          // wall time of the runs and the statistic
  int threads = 1;
};

// Runs the audit. Throws InputError for an invalid set-up or options.
AuditResult RunAudit(const AuditSetup& setup, const AuditOptions& options = {});

// One-sided Clopper-Pearson upper bound: the p with P(Bin(n, p) <= k) = 1 - level (1 for
// k = n). 0 <= k <= n, n >= 1, level in (0, 1).
double ClopperPearsonUpper(std::int64_t k, std::int64_t n, double level);
// max(ln((1 - delta - fnr) / fpr), ln((1 - delta - fpr) / fnr), 0) (+inf when a rate is 0 and
// its numerator positive).
double EpsilonLowerBound(double fpr, double fnr, double delta);

}  // namespace dpadmm
