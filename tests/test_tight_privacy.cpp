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
#include "dpadmm/run/run.h"
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
  EXPECT_EQ(r.tight_delta, 1e-5);
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
    EXPECT_LE(r.tight_delta, 1e-5);
    EXPECT_LE(r.tight_epsilon, 10.0) << dpadmm::ChoiceName(a);
    EXPECT_GT(r.tight_epsilon, 0.0) << dpadmm::ChoiceName(a);
    EXPECT_LT(r.final.test_error - r.info.optimum_test_error, 0.10) << dpadmm::ChoiceName(a);
  }
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
