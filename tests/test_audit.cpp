// SPDX-License-Identifier: Apache-2.0
// The empirical privacy audit (dpadmm/tools/audit.h): its bounds, that it catches a
// weakened mechanism and eq. (16), that every shipped mechanism stays at or below its claim, and
// that it is strong enough to matter (each consensus mechanism's worst-case pair reaches 0.8 of
// the per-round claim).
//
// The runs use simulation keys (fixed noise seeds), so every test is deterministic. Thresholds:
// the bound eps_lb holds with probability >= 95% for a correct claim (two one-sided
// Clopper-Pearson bounds at 97.5%); with fixed seeds the outcomes below were checked once and
// hold with a margin (the observed ratios are quoted at each test). The private-mode test runs
// with fresh keys and only checks what holds with overwhelming probability.
#include <cmath>
#include <cstdint>
#include <string>

#include <gtest/gtest.h>

#include "dpadmm/core/error.h"
#include "dpadmm/tools/audit.h"
#include "tools/audit_testing.h"

namespace dpadmm {
namespace {

AuditResult Audit(AuditMechanism m, std::int64_t runs, std::uint64_t noise_seed, int rounds = 1,
                  double noise_scale = 1.0, bool gaussian = false) {
  AuditSetup s;
  s.mechanism = m;
  s.rounds = rounds;
  s.gaussian = gaussian;
  AuditOptions o;
  o.runs_per_side = runs;
  o.noise_seed = noise_seed;
  AuditTestHooks hooks;
  hooks.noise_scale = noise_scale;
  return RunAuditWithTestHooks(s, o, hooks);
}

std::string Describe(const AuditResult& r) {
  return std::string(ToString(r.setup.mechanism)) + " T=" + std::to_string(r.setup.rounds) +
         ": eps_lb " + std::to_string(r.epsilon_lower_bound) + ", claim " +
         std::to_string(r.claim) + ", FPR " + std::to_string(r.fpr) + ", FNR " +
         std::to_string(r.fnr);
}

TEST(AuditBounds, ClopperPearsonMatchesReferenceValues) {
  // Two-sided 95% Clopper-Pearson interval of 3/10 is [0.0667, 0.6525] (its upper end is the
  // one-sided 97.5% bound); of 0/n the upper end is 1 - 0.025^(1/n).
  EXPECT_NEAR(ClopperPearsonUpper(3, 10, 0.975), 0.6525, 5e-5);
  EXPECT_NEAR(ClopperPearsonUpper(0, 100, 0.975), 1.0 - std::pow(0.025, 0.01), 1e-12);
  EXPECT_DOUBLE_EQ(ClopperPearsonUpper(10, 10, 0.975), 1.0);
  // Large n: close to the normal approximation p + 1.96 sqrt(p (1 - p) / n).
  const double p = 0.2, n = 5000.0;
  EXPECT_NEAR(ClopperPearsonUpper(1000, 5000, 0.975), p + 1.96 * std::sqrt(p * (1 - p) / n), 1e-3);
  // Monotone in k.
  for (int k = 0; k < 20; ++k)
    EXPECT_LT(ClopperPearsonUpper(k, 20, 0.975), ClopperPearsonUpper(k + 1, 20, 0.975));
  EXPECT_THROW(ClopperPearsonUpper(5, 4, 0.975), InputError);
}

TEST(AuditBounds, EpsilonLowerBoundTakesTheBetterDirection) {
  // Randomized response with eps = 1: both error rates 1 / (1 + e); the bound is 1 at delta 0.
  const double p = 1.0 / (1.0 + std::exp(1.0));
  EXPECT_NEAR(EpsilonLowerBound(p, p, 0.0), 1.0, 1e-12);
  EXPECT_NEAR(EpsilonLowerBound(0.1, 0.5, 0.0), std::log(0.5 / 0.1), 1e-12);
  EXPECT_NEAR(EpsilonLowerBound(0.5, 0.1, 0.0), std::log(0.5 / 0.1), 1e-12);
  EXPECT_EQ(EpsilonLowerBound(0.5, 0.5, 0.0), 0.0);
  EXPECT_TRUE(std::isinf(EpsilonLowerBound(0.0, 0.5, 1e-5)));
}

TEST(AuditSetup, RejectsBadFieldsAndNamesThem) {
  AuditSetup s;
  s.rounds = 0;
  try {
    RunAudit(s);
    FAIL() << "rounds = 0 accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("rounds"), std::string::npos);
  }
  AuditSetup bad_delta;
  bad_delta.delta = 1.0;
  EXPECT_THROW(RunAudit(bad_delta), InputError);
  AuditOptions o;
  o.runs_per_side = 10;
  EXPECT_THROW(RunAudit(AuditSetup{}, o), InputError);
  AuditSetup sharing;
  sharing.mechanism = AuditMechanism::kSharing;
  sharing.rows = 2;
  sharing.dim = 2;  // col(D_1) would be all of R^N
  EXPECT_THROW(RunAudit(sharing), InputError);
  EXPECT_THROW(ParseAuditMechanism("admm"), InputError);
  for (AuditMechanism m : AllAuditMechanisms()) EXPECT_EQ(ParseAuditMechanism(ToString(m)), m);
}

// (a) Noise divided by 10 (the test-only switch) multiplies the privacy loss of the worst-case
// pair by 10: the audit proves far more than the claim. (Observed eps_lb 4.9-5.2 with 2,000 runs
// per side, 6.8-7.2 with 1e4, against claims of about 1; the bound is capped by the run count.)
TEST(Audit, CatchesAWeakenedMechanism) {
  for (AuditMechanism m :
       {AuditMechanism::kDvp, AuditMechanism::kPvp, AuditMechanism::kPvpGaussian,
        AuditMechanism::kMadmm, AuditMechanism::kPrivateMradmm, AuditMechanism::kLocal,
        AuditMechanism::kAverage, AuditMechanism::kCentral}) {
    const AuditResult r = Audit(m, 2000, 11, 1, 0.1);
    EXPECT_FALSE(r.pass) << Describe(r);
    EXPECT_GT(r.epsilon_lower_bound, 2.0 * r.claim) << Describe(r);
  }
}

TEST(Audit, WeakeningIsScopedToTheAuditedRuns) {
  // The same seeds without the switch, after a weakened audit on this thread: the shipped noise.
  (void)Audit(AuditMechanism::kPvp, 200, 3, 1, 0.1);
  const AuditResult r = Audit(AuditMechanism::kPvp, 2000, 11);
  EXPECT_TRUE(r.pass) << Describe(r);
}

// The baselines' Gaussian output perturbation: the shipped mechanism stays below its claim
// (observed eps_lb 0.19-0.31 of 1 with 1e4 runs: the Gaussian's privacy loss reaches its
// bound only in the tails, which a threshold test on 5,000 evaluation runs barely resolves), and
// the noise divided by 10 is caught.
TEST(Audit, BaselinesGaussianMechanismStaysBelowItsClaim) {
  for (AuditMechanism m : {AuditMechanism::kLocal, AuditMechanism::kCentral}) {
    const AuditResult r = Audit(m, 4000, 21, 1, 1.0, true);
    EXPECT_TRUE(r.pass) << Describe(r);
    const AuditResult weak = Audit(m, 2000, 11, 1, 0.1, true);
    EXPECT_FALSE(weak.pass) << Describe(weak);
  }
  AuditSetup s;
  s.mechanism = AuditMechanism::kDvp;
  s.gaussian = true;
  EXPECT_THROW(s.Validate(), InputError);
}

// (b) Every shipped mechanism stays at or below its claim, per round and composed over rounds.
TEST(Audit, ShippedMechanismsStayBelowTheirClaims) {
  for (AuditMechanism m : AllAuditMechanisms()) {
    if (m == AuditMechanism::kSharingPaper16) continue;  // not DP as stated: next test
    for (int rounds : {1, 3}) {
      if (m == AuditMechanism::kPdmlLabels && rounds > 1) continue;  // Phase 1 happens once
      const AuditResult r = Audit(m, 4000, 21, rounds);
      EXPECT_TRUE(r.pass) << Describe(r);
      EXPECT_LE(r.epsilon_lower_bound, r.claim) << Describe(r);
      EXPECT_EQ(r.setup.rounds, rounds);
    }
  }
}

// (c) Power: for each consensus mechanism the worst-case pair (label flip of a canary at the
// norm bound under the smooth hinge's linear part) reaches at least 0.8 of the per-round claim
// with 1e4 runs per side. (Observed 0.85-0.92 over noise seeds 1-3: the population value is
// alpha_hat / alpha = 0.99 for DVP, 1 for PVP, alpha / (1.4 c1 + alpha) = 0.966 for M-ADMM and
// alpha / (alpha + 1.4 c1 / (rho/N + 2 eta V)) = 0.966 for private MR-ADMM, eps' / eps =
// 0.969 for the baselines' objective perturbation at their audit defaults; the rest is the
// price of the Clopper-Pearson bounds on 5,000 evaluation runs.)
TEST(Audit, PowerReachesMostOfThePerRoundClaim) {
  for (AuditMechanism m :
       {AuditMechanism::kDvp, AuditMechanism::kPvp, AuditMechanism::kMadmm,
        AuditMechanism::kPrivateMradmm, AuditMechanism::kLocal, AuditMechanism::kCentral}) {
    const AuditResult r = Audit(m, 10000, 1);
    EXPECT_GE(r.epsilon_lower_bound, 0.8 * r.claim_per_round) << Describe(r);
    EXPECT_TRUE(r.pass) << Describe(r);
  }
  // PDML's randomized response: the reported label itself is the optimal statistic.
  const AuditResult pdml = Audit(AuditMechanism::kPdmlLabels, 10000, 1);
  EXPECT_GE(pdml.epsilon_lower_bound, 0.8 * pdml.claim) << Describe(pdml);
}

// Composed claims are audited through all T releases: over 5 rounds the statistic proves more
// than any single round can (observed 1.8-2.2 against per-round claims of 1 and composed claims
// of 5, or 3 for private MR-ADMM, whose even rounds release no fresh noise).
TEST(Audit, ComposedAuditSeesSeveralRounds) {
  for (AuditMechanism m : {AuditMechanism::kPvp, AuditMechanism::kPrivateMradmm}) {
    const AuditResult r = Audit(m, 10000, 1, 5);
    EXPECT_TRUE(r.pass) << Describe(r);
    EXPECT_GT(r.epsilon_lower_bound, 1.5 * r.claim_per_round) << Describe(r);
  }
}

TEST(Audit, LogisticLabelFlipReachesAboutHalf) {
  // Under the logistic loss a flip at margin 0 moves the gradient by 1, half the bound 2: the
  // same audit proves about half the claim (PVP: the release moves by half its sensitivity).
  AuditSetup s;
  s.mechanism = AuditMechanism::kPvp;
  s.logistic = true;
  AuditOptions o;
  o.runs_per_side = 10000;
  o.noise_seed = 1;
  const AuditResult r = RunAudit(s, o);
  EXPECT_TRUE(r.pass) << Describe(r);
  EXPECT_LT(r.epsilon_lower_bound, 0.6 * r.claim) << Describe(r);
  EXPECT_GT(r.epsilon_lower_bound, 0.25 * r.claim) << Describe(r);
}

// (d) DP sharing: 001's eq. (16) releases lie in col(D_m), so the column-space statistic tells
// D from D' without a single false positive and the bound (about 7.2 with 5,000 evaluation runs)
// exceeds its claim; the default Gaussian mechanism's first release is pure data-independent
// noise and passes.
TEST(Audit, SharingEq16IsCaughtAndTheDefaultPasses) {
  const AuditResult paper16 = Audit(AuditMechanism::kSharingPaper16, 2000, 5);
  EXPECT_FALSE(paper16.pass) << Describe(paper16);
  EXPECT_EQ(paper16.false_positives, 0) << Describe(paper16);
  EXPECT_GT(paper16.epsilon_lower_bound, 5.0) << Describe(paper16);
  const AuditResult gaussian = Audit(AuditMechanism::kSharing, 2000, 5);
  EXPECT_TRUE(gaussian.pass) << Describe(gaussian);
}

TEST(Audit, PrivateModeUsesFreshKeys) {
  AuditSetup s;
  s.mechanism = AuditMechanism::kDvp;
  AuditOptions o;
  o.runs_per_side = 2000;
  const AuditResult r = RunAudit(s, o);
  EXPECT_EQ(r.noise, "private keys (fresh per run)");
  // A false FAIL needs the 95% bound to fail by a wide margin: eps_lb > claim happens with
  // probability < 5% for a correct claim, and the population value here is 0.99 of it.
  EXPECT_LE(r.epsilon_lower_bound, r.claim + 0.5) << Describe(r);
  EXPECT_GT(r.epsilon_lower_bound, 0.3) << Describe(r);
}

TEST(Audit, SimulationIsReproducible) {
  const AuditResult a = Audit(AuditMechanism::kMadmm, 500, 9, 2);
  const AuditResult b = Audit(AuditMechanism::kMadmm, 500, 9, 2);
  EXPECT_EQ(a.false_positives, b.false_positives);
  EXPECT_EQ(a.false_negatives, b.false_negatives);
  EXPECT_EQ(a.threshold, b.threshold);
  EXPECT_NE(a.noise.find("simulation"), std::string::npos);
}

}  // namespace
}  // namespace dpadmm
