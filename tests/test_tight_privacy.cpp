// SPDX-License-Identifier: Apache-2.0
// The consensus family's tight figures and enforced preconditions: the tight (eps, delta) of a
// run against the closed form, refused specs (a private node without noise, rows above the
// norm bound, a loose Newton tolerance), a private local solve that cannot converge, and the
// defaults' tight epsilon.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "dpadmm/core/error.h"
#include "dpadmm/privacy/accountant.h"
#include "dpadmm/privacy/accounting.h"
#include "dpadmm/privacy/release.h"
#include "dpadmm/privacy/samplers.h"
#include "dpadmm/run/run.h"
#include "run_recorder.h"
#include "spec_helpers.h"

namespace {

using dpadmm::Algorithm;
using dpadmm::InputError;
using dpadmm::RunSpec;
using dpadmm::test::Noise;

RunSpec Small(Algorithm algorithm) {
  RunSpec s = RunSpec::Defaults(algorithm);
  s.data.source = dpadmm::DataSource::kTwonorm;
  s.data.rows = 1200;
  s.graph.topology = dpadmm::Topology::kRandom;
  s.graph.nodes = 5;
  s.graph.edges = 7;
  s.iterations = 30;
  s.seed = 3;
  s.noise_seed = 9;
  s.metrics = dpadmm::MetricsScope::kAll;
  s.engine = dpadmm::runtime::EngineKind::kSerial;
  return s;
}

bool MessageHas(const std::string& message, const std::vector<std::string>& parts) {
  for (const auto& p : parts) {
    if (message.find(p) == std::string::npos) return false;
  }
  return true;
}

TEST(ComposeTight, IdenticalTermsAreTheOptimalComposition) {
  const std::vector<double> terms(40, 0.25);
  EXPECT_EQ(dpadmm::ComposeTight(terms, 1e-5), dpadmm::OptimalCompositionEpsilon(0.25, 40, 1e-5));
  EXPECT_LT(dpadmm::ComposeTight(terms, 1e-5), 0.75 * dpadmm::ComposeBasic(terms));
  // Zero terms release nothing; never above the plain sum.
  EXPECT_EQ(dpadmm::ComposeTight({0.0, 0.0}, 1e-5), 0.0);
  // One 0.5-DP release is (0.5 - a little, 1e-5)-DP: the delta buys a sliver.
  EXPECT_EQ(dpadmm::ComposeTight({0.5, 0.0}, 1e-5),
            dpadmm::OptimalCompositionEpsilon(0.5, 1, 1e-5));
  EXPECT_LE(dpadmm::ComposeTight({0.5, 0.0}, 1e-5), 0.5);
  EXPECT_GT(dpadmm::ComposeTight({0.5, 0.0}, 1e-5), 0.49);
  std::vector<double> geometric;
  for (int t = 0; t < 30; ++t) geometric.push_back(0.3 * std::pow(0.95, t));
  const double tight = dpadmm::ComposeTight(geometric, 1e-5);
  EXPECT_LT(tight, dpadmm::ComposeBasic(geometric));
  EXPECT_GT(tight, dpadmm::OptimalCompositionEpsilon(geometric.back(), 30, 1e-5));
  EXPECT_LT(tight, dpadmm::OptimalCompositionEpsilon(geometric.front(), 30, 1e-5) + 1e-3);
  EXPECT_THROW((void)dpadmm::ComposeTight(terms, 0.0), InputError);
}

TEST(TightPrivacy, DvpRunEqualsOptimalCompositionOfItsSchedule) {
  RunSpec s = Small(Algorithm::kDvp);
  Noise(s).alpha = 0.2;
  const dpadmm::RunSummary r = dpadmm::RunExperiment(s);
  ASSERT_EQ(r.outcome, dpadmm::RunOutcome::kCompleted) << r.message;
  const double expected = dpadmm::OptimalCompositionEpsilon(0.2, s.iterations, 1e-5);
  ASSERT_EQ(r.node_tight_epsilon.size(), 5u);
  for (double e : r.node_tight_epsilon) EXPECT_EQ(e, expected);
  EXPECT_EQ(r.tight_epsilon, expected);
  // The delta: 1e-5 for the composition plus every release's floating-point delta.
  double sampler = 0.0;
  for (int t = 1; t <= s.iterations; ++t) sampler += dpadmm::SnappedReleaseDelta(0.2, 20);
  EXPECT_EQ(r.sampler_delta, sampler);
  EXPECT_EQ(r.tight_delta, 1e-5 + sampler);
  EXPECT_NEAR(r.final.privacy_loss, 0.2 * s.iterations, 1e-9);  // the paper's plain sum
  EXPECT_LT(r.tight_epsilon, r.final.privacy_loss);
  EXPECT_NE(r.info.privacy_claim.find("replaced"), std::string::npos);
}

TEST(TightPrivacy, MadmmTightFigureComposesThePapersTerms) {
  RunSpec s = Small(Algorithm::kMadmm);
  const dpadmm::RunSummary r = dpadmm::RunExperiment(s);
  ASSERT_EQ(r.outcome, dpadmm::RunOutcome::kCompleted) << r.message;
  ASSERT_EQ(r.node_tight_epsilon.size(), 5u);
  for (std::size_t i = 0; i < 5; ++i) {
    EXPECT_GT(r.node_tight_epsilon[i], 0.0);
    EXPECT_LE(r.node_tight_epsilon[i], r.final.node_privacy[i] + 1e-12);
  }
}

TEST(TightPrivacy, NonPrivateRunHasNoTightFigure) {
  RunSpec s = Small(Algorithm::kAdmm);
  const dpadmm::RunSummary r = dpadmm::RunExperiment(s);
  EXPECT_TRUE(r.node_tight_epsilon.empty());
  EXPECT_TRUE(std::isnan(r.tight_epsilon));
  EXPECT_TRUE(r.info.privacy_claim.empty());
}

TEST(Preconditions, PrivateNodeWithAlphaZeroIsRefused) {
  RunSpec s = Small(Algorithm::kMadmm);
  Noise(s).alpha = 0.0;
  Noise(s).node_alpha = {0.0, 1.0, 1.0, 1.0, 1.0};
  try {
    s.Validate();
    FAIL() << "a private node with alpha 0 was accepted";
  } catch (const InputError& e) {
    EXPECT_TRUE(MessageHas(e.what(), {"node_alpha[0]", "> 0"})) << e.what();
  }
  Noise(s).node_alpha = {1.0, 1.0, 1.0, 1.0, 1.0};
  EXPECT_NO_THROW(s.Validate());
  Noise(s).node_alpha = {0.0, 0.0, 0.0, 0.0, 0.0};  // no noise anywhere: non-private M-ADMM
  EXPECT_NO_THROW(s.Validate());
}

TEST(Preconditions, LooseNewtonToleranceIsRefusedForPrivateVariants) {
  RunSpec s = Small(Algorithm::kPvp);
  s.newton.gradient_tolerance = 0.5;
  try {
    s.Validate();
    FAIL() << "a loose Newton tolerance was accepted for pvp";
  } catch (const InputError& e) {
    EXPECT_TRUE(MessageHas(e.what(), {"newton.gradient_tolerance", "exact minimiser"})) << e.what();
  }
  RunSpec plain = Small(Algorithm::kAdmm);
  plain.newton.gradient_tolerance = 0.5;
  EXPECT_NO_THROW(plain.Validate());
}

TEST(Preconditions, PvpLocalSolveThatCannotConvergeFailsNamingNodeAndRound) {
  RunSpec s = Small(Algorithm::kPvp);
  s.newton.max_iterations = 1;
  const dpadmm::RunSummary r = dpadmm::RunExperiment(s);
  EXPECT_NE(r.outcome, dpadmm::RunOutcome::kCompleted);
  EXPECT_TRUE(MessageHas(r.message, {"node ", "in round 1", "did not converge"})) << r.message;
}

TEST(Preconditions, RowsAboveTheNormBoundAreRefused) {
  RunSpec s = Small(Algorithm::kDvp);
  s.data.normalize = false;  // twonorm rows have norms up to about 8
  try {
    dpadmm::Experiment e(s);
    FAIL() << "rows above ||x|| <= 1 were accepted for a private run";
  } catch (const InputError& e) {
    EXPECT_TRUE(MessageHas(e.what(), {"norm", "> 1", "refused"})) << e.what();
  }
  RunSpec plain = Small(Algorithm::kAdmm);
  plain.data.normalize = false;
  EXPECT_NO_THROW(dpadmm::Experiment{plain});
}

// Every private consensus algorithm's defaults: tight total epsilon <= 10 at delta <= 1e-5 per
// node, and the model still learns (within 10 points of the centralized optimum's accuracy).
TEST(Defaults, PrivateConsensusDefaultsHaveTightEpsilonAtMostTen) {
  for (Algorithm a :
       {Algorithm::kDvp, Algorithm::kPvp, Algorithm::kMadmm, Algorithm::kPrivateMradmm}) {
    RunSpec s = RunSpec::Defaults(a);
    ASSERT_TRUE(dpadmm::UsesPrivacyMechanism(s)) << dpadmm::ChoiceName(a);
    s.noise_seed = 1;
    s.metrics = dpadmm::MetricsScope::kAll;
    const dpadmm::RunSummary r = dpadmm::RunExperiment(s);
    ASSERT_EQ(r.outcome, dpadmm::RunOutcome::kCompleted) << dpadmm::ChoiceName(a) << r.message;
    // 1e-5 plus the sampler's floating-point delta: at most (1 + e^eps_t) tv(20) per round,
    // eps_t <= 0.5 for every default (100 rounds): <= 1e-5 + 100 * 2.65 * 1.49e-7 = 5e-5.
    EXPECT_EQ(r.tight_delta, 1e-5 + r.sampler_delta);
    EXPECT_GE(r.sampler_delta, s.iterations * 2.0 * dpadmm::SnappedReleaseTv(20));
    EXPECT_LE(r.tight_delta, 5e-5);
    EXPECT_LE(r.tight_epsilon, 10.0) << dpadmm::ChoiceName(a);
    EXPECT_GT(r.tight_epsilon, 0.0) << dpadmm::ChoiceName(a);
    EXPECT_LT(r.final.test_error - r.info.optimum_test_error, 0.10) << dpadmm::ChoiceName(a);
  }
}

// The floating-point term (algorithms/privacy/README.md): tv(d) = d (2^-27 + 2^-40) per snapped
// release, delta_t = (1 + e^eps_t) tv(d).
TEST(SamplerDelta, ClosedForm) {
  EXPECT_EQ(dpadmm::SnappedReleaseTv(1), 0x1.0p-27 + 0x1.0p-40);
  EXPECT_EQ(dpadmm::SnappedReleaseTv(100), 100 * (0x1.0p-27 + 0x1.0p-40));
  EXPECT_NEAR(dpadmm::SnappedReleaseDelta(0.0, 20), 2 * dpadmm::SnappedReleaseTv(20), 1e-22);
  const double tv20 = 20 * (0x1.0p-27 + 0x1.0p-40);
  EXPECT_NEAR(dpadmm::SnappedReleaseDelta(1.0, 20), (1 + std::exp(1.0)) * tv20, 1e-12 * tv20);
  EXPECT_THROW((void)dpadmm::SnappedReleaseTv(0), InputError);
  EXPECT_THROW((void)dpadmm::SnappedReleaseDelta(-1.0, 3), InputError);
  EXPECT_THROW((void)dpadmm::SnappedReleaseDelta(std::nan(""), 3), InputError);
}

// Every l2-Laplace release debits its delta at the release point and leaves on the snap grid;
// a frozen node's resends and a node without that noise add nothing.
TEST(SamplerDelta, ReleasePointDebitsEverySnappedRelease) {
  dpadmm::Release release(dpadmm::NoiseKey::Make(std::uint64_t{4}, 0), 0, 1.0);
  dpadmm::runtime::Outbox out(3);
  release.SendInitial(Eigen::VectorXd::Zero(3), out);
  EXPECT_EQ(release.spent_delta(), 0.0);
  Eigen::VectorXd noise(3);
  ASSERT_TRUE(release.Open(1, 0.4));
  release.DrawL2Laplace(1.0, noise);
  // The snap grid: 2^-16 below 32, 21 significant bits above (1e6 + 0.3 -> step 2^-1).
  release.Send(Eigen::Vector3d(1e6 + 0.3, -40.0 - 0x1.0p-17, 0.1), out);
  EXPECT_EQ(out.message()[0], 1e6 + 0.5);
  EXPECT_EQ(out.message()[1], -40.0);  // step 2^-15 at 40
  EXPECT_EQ(out.message()[2], dpadmm::RoundToGrid(0.1));
  for (double v : out.message()) EXPECT_TRUE(dpadmm::OnGrid(v));
  double expected = dpadmm::SnappedReleaseDelta(0.4, 3);
  EXPECT_EQ(release.spent_delta(), expected);
  // A round without fresh noise still releases a snapped value: (1 + e^0) tv.
  ASSERT_TRUE(release.Open(2, 0.0));
  release.Send(Eigen::Vector3d(0.5, 0.5, 0.5), out);
  expected += dpadmm::SnappedReleaseDelta(0.0, 3);
  EXPECT_EQ(release.spent_delta(), expected);
  ASSERT_TRUE(release.Open(3, 0.4));
  release.DrawL2Laplace(1.0, noise);
  release.Send(Eigen::Vector3d(0.5, 0.5, 0.5), out);
  expected += dpadmm::SnappedReleaseDelta(0.4, 3);
  EXPECT_EQ(release.spent_delta(), expected);
  EXPECT_FALSE(release.Open(4, 0.4));  // 1.2 > 1: refused, the node resends
  release.Resend(out);
  EXPECT_EQ(release.spent_delta(), expected);
  // Saved and restored with the state; a delta without snapped releases is refused.
  dpadmm::Release copy(dpadmm::NoiseKey::Make(std::uint64_t{4}, 0), 0, 1.0);
  copy.RestoreState(release.SaveState());
  EXPECT_EQ(copy.spent_delta(), expected);
  dpadmm::Release::State bad = release.SaveState();
  bad.snapped = false;
  EXPECT_THROW(copy.RestoreState(bad), InputError);
  // The exact discrete Gaussian carries no floating-point term (its lattice is 2^-16 at every
  // magnitude).
  dpadmm::Release exact(dpadmm::NoiseKey::Make(std::uint64_t{4}, 1), 1, 0.0);
  exact.SendInitial(Eigen::VectorXd::Zero(3), out);
  ASSERT_TRUE(exact.Open(1, 0.0));
  const double step = exact.DrawGaussian(0.01, noise);
  exact.Send(Eigen::Vector3d(100.0, 0.0, 0.0) + noise, out);
  EXPECT_EQ(exact.spent_delta(), 0.0);
  EXPECT_GT(out.message()[0], 99.0);
  EXPECT_GT(step, 0.0);
}

// The reported delta is at least the sum of the per-release floating-point terms of every
// node (here with unequal terms, even rounds without noise, and a budget that freezes nodes),
// the trace's per-round figure ends on the summary's, and the calibrated figure states it.
TEST(SamplerDelta, ReportedDeltaCoversEveryRelease) {
  for (Algorithm a : {Algorithm::kPvp, Algorithm::kMadmm, Algorithm::kPrivateMradmm}) {
    RunSpec s = Small(a);
    const dpadmm::RunSummary r = dpadmm::RunExperiment(s);
    ASSERT_EQ(r.outcome, dpadmm::RunOutcome::kCompleted) << r.message;
    // Each of the T releases adds at least 2 tv(d), d = 20 features.
    EXPECT_GE(r.sampler_delta, s.iterations * 2.0 * dpadmm::SnappedReleaseTv(20));
    EXPECT_EQ(r.tight_delta, 1e-5 + r.sampler_delta);
  }
  RunSpec s = Small(Algorithm::kDvp);
  Noise(s).alpha = 0.2;
  s.algorithm.privacy_budget = 2.0;  // 10 rounds of 0.2: every node freezes in round 11
  dpadmm::test::RunRecorder trace;
  const dpadmm::RunSummary r = dpadmm::RunExperiment(s, &trace);
  ASSERT_EQ(r.outcome, dpadmm::RunOutcome::kBudgetExhausted) << r.message;
  double ten = 0.0;
  for (int t = 1; t <= 10; ++t) ten += dpadmm::SnappedReleaseDelta(0.2, 20);
  EXPECT_NEAR(r.sampler_delta, ten, 1e-18);
  ASSERT_FALSE(trace.rounds.empty());
  EXPECT_EQ(trace.rounds.back().tight_delta, r.tight_delta);
  EXPECT_EQ(trace.rounds.front().tight_delta, 1e-5);  // round 0 released nothing private
  // --target-epsilon: the calibrated figure's delta is the run's.
  RunSpec c = Small(Algorithm::kDvp);
  c.target_epsilon = 3.0;
  const dpadmm::RunSummary cr = dpadmm::RunExperiment(c);
  ASSERT_EQ(cr.outcome, dpadmm::RunOutcome::kCompleted) << cr.message;
  EXPECT_EQ(cr.info.calibrated_delta, cr.tight_delta);
  EXPECT_GT(cr.info.calibrated_delta, 1e-5);
}

TEST(ReleaseMechanisms, SendAndSendNothingRecordTheRoundsMechanism) {
  dpadmm::Release release(dpadmm::NoiseKey::Make(std::uint64_t{1}, 0), 0, 1.0);
  dpadmm::runtime::Outbox out(2);
  const dpadmm::MechanismRelease pure{dpadmm::MechanismKind::kPureEpsilon, 1.0, 1.0, 0.4};
  ASSERT_TRUE(release.Open(1, 0.4, pure));
  release.Send(Eigen::VectorXd::Zero(2), out);
  ASSERT_TRUE(release.Open(2, 0.0));  // no mechanism: nothing recorded
  release.SendNothing(out);
  ASSERT_TRUE(release.Open(3, 0.4, pure));
  release.SendNothing(out);
  EXPECT_FALSE(release.Open(4, 0.4, pure));  // 1.2 > 1: refused, not recorded
  EXPECT_EQ(release.mechanisms(), (std::vector<dpadmm::MechanismRelease>{pure, pure}));
}

}  // namespace
