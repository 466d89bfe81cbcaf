// SPDX-License-Identifier: Apache-2.0
// The epsilon policy (tools/epsilon_policy.h) and PVP's Gaussian mechanism: settings from public
// quantities only, the calibrated figure, and the per-round column against the summary.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "dpadmm/core/error.h"
#include "dpadmm/privacy/accountant.h"
#include "dpadmm/privacy/accounting.h"
#include "dpadmm/run/run.h"
#include "dpadmm/tools/calibration.h"
#include "dpadmm/tools/epsilon_policy.h"
#include "run_recorder.h"

namespace {

using dpadmm::Algorithm;
using dpadmm::InputError;
using dpadmm::PvpParams;
using dpadmm::RunSpec;

RunSpec Small(Algorithm algorithm, dpadmm::DataSource source = dpadmm::DataSource::kTwonorm) {
  RunSpec s = RunSpec::Defaults(algorithm);
  s.data.source = source;
  s.data.rows = 1200;
  s.graph.nodes = 5;
  s.graph.edges = 7;
  s.iterations = 30;
  s.seed = 3;
  s.noise_seed = 9;
  s.metrics = dpadmm::MetricsScope::kAll;
  s.engine = dpadmm::runtime::EngineKind::kSerial;
  return s;
}

RunSpec PvpGaussian(double multiplier) {
  RunSpec s = Small(Algorithm::kPvp);
  PvpParams& p = s.algorithm.As<PvpParams>();
  p.mechanism = "gaussian";
  p.noise_multiplier = multiplier;
  p.alpha = 0.0;
  return s;
}

// partition.public_rows declares every node's row count: the run checks it against the rows each
// node gets and refuses a count that differs, a list of the wrong length or a count below 1,
// naming the field; declared counts that match change nothing.
TEST(PublicRows, CheckedAgainstThePartitionNamingTheField) {
  RunSpec s = Small(Algorithm::kDvp);
  s.target_epsilon = 1.0;
  const dpadmm::Experiment plain(s);
  std::vector<std::int64_t> rows = plain.info().rows_per_node;
  ASSERT_EQ(rows.size(), 5u);
  s.partition.public_rows = rows;
  const dpadmm::Experiment declared(s);
  EXPECT_EQ(declared.info().rows_per_node, rows);
  EXPECT_EQ(declared.info().epsilon_policy, plain.info().epsilon_policy);
  const auto refusal = [&](std::vector<std::int64_t> counts) {
    RunSpec t = s;
    t.partition.public_rows = std::move(counts);
    try {
      (void)dpadmm::Experiment(t);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  std::vector<std::int64_t> off = rows;
  off[3] += 1;
  EXPECT_NE(refusal(off).find("partition.public_rows[3]: node 3 is declared to hold " +
                              std::to_string(rows[3] + 1) + " rows; the data gives it " +
                              std::to_string(rows[3])),
            std::string::npos)
      << refusal(off);
  EXPECT_NE(
      refusal({rows[0], rows[1]}).find("partition.public_rows must be one row count per node"),
      std::string::npos);
  std::vector<std::int64_t> zero = rows;
  zero[1] = 0;
  EXPECT_NE(refusal(zero).find("partition.public_rows[1] must be >= 1"), std::string::npos);
}

// The same public quantities (rows per node, graph, features, target) on other data give the
// same settings: the policy reads no row. Twonorm and ringnorm of the same size and seed share
// the split sizes, the graph and the partition sizes.
TEST(EpsilonPolicy, SamePublicQuantitiesGiveTheSameSettings) {
  for (Algorithm a :
       {Algorithm::kPvp, Algorithm::kDvp, Algorithm::kMadmm, Algorithm::kPrivateMradmm,
        Algorithm::kPdml, Algorithm::kLocal, Algorithm::kAverage, Algorithm::kCentral}) {
    RunSpec s1 = Small(a, dpadmm::DataSource::kTwonorm);
    RunSpec s2 = Small(a, dpadmm::DataSource::kRingnorm);
    s1.target_epsilon = s2.target_epsilon = 1.0;
    const dpadmm::Experiment e1(s1), e2(s2);
    ASSERT_EQ(e1.info().rows_per_node, e2.info().rows_per_node);
    EXPECT_FALSE(e1.info().epsilon_policy.empty()) << dpadmm::ChoiceName(a);
    EXPECT_EQ(e1.info().epsilon_policy, e2.info().epsilon_policy) << dpadmm::ChoiceName(a);
    EXPECT_EQ(e1.spec().iterations, e2.spec().iterations);
    EXPECT_EQ(e1.spec().algorithm.C, e2.spec().algorithm.C);
    EXPECT_EQ(e1.spec().algorithm.rho, e2.spec().algorithm.rho);
    EXPECT_EQ(e1.spec().algorithm.eta, e2.spec().algorithm.eta);
    EXPECT_EQ(e1.info().calibrated_value, e2.info().calibrated_value);
  }
}

// Through the public function: a row count, a degree or the target changes the settings only
// as the rule says (here: fewer rows give a smaller mu B and no more rounds).
TEST(EpsilonPolicy, FollowsThePublicQuantities) {
  dpadmm::PublicQuantities q;
  q.epsilon = 1.0;
  q.degrees = {2, 3, 1};
  q.rows_per_node = {40, 41, 42};
  q.features = 21;
  const dpadmm::EpsilonSettings small = dpadmm::ChooseEpsilonSettings(Algorithm::kPvp, q);
  q.rows_per_node = {4000, 4100, 4200};
  const dpadmm::EpsilonSettings large = dpadmm::ChooseEpsilonSettings(Algorithm::kPvp, q);
  EXPECT_NEAR(large.privacy_rows / small.privacy_rows, 100.0, 1e-9);
  EXPECT_LE(small.iterations, large.iterations);
  EXPECT_GE(small.rho, large.rho);
  EXPECT_EQ(small.pvp_mechanism, "gaussian");
  EXPECT_EQ(small.C, 1.0);
  q.epsilon = 0.0;
  EXPECT_THROW(dpadmm::ChooseEpsilonSettings(Algorithm::kPvp, q), InputError);
  q.epsilon = 1.0;
  q.rows_per_node = {40, -1, 42};  // another party's count, unknown here
  EXPECT_THROW(dpadmm::ChooseEpsilonSettings(Algorithm::kPvp, q), InputError);
  EXPECT_THROW(dpadmm::ChooseEpsilonSettings(Algorithm::kAdmm, q), InputError);
}

// Without a target epsilon, or with the policy off, the settings stay as given.
TEST(EpsilonPolicy, OffOrWithoutTargetChangesNothing) {
  RunSpec s = Small(Algorithm::kDvp);
  const dpadmm::Experiment plain(s);
  EXPECT_TRUE(plain.info().epsilon_policy.empty());
  EXPECT_EQ(plain.spec().iterations, 30);
  s.target_epsilon = 2.0;
  s.epsilon_policy = false;
  const dpadmm::Experiment off(s);
  EXPECT_TRUE(off.info().epsilon_policy.empty());
  EXPECT_EQ(off.spec().iterations, 30);
  EXPECT_EQ(off.spec().algorithm.C, s.algorithm.C);
  EXPECT_EQ(off.spec().algorithm.eta, s.algorithm.eta);
}

// PVP's Gaussian mechanism: the figure is the exact composition of identical Gaussians, the
// per-round column ends at the summary's figure, and the calibration hits the target.
TEST(PvpGaussian, FigureIsTheExactGaussianComposition) {
  RunSpec s = PvpGaussian(4.0);
  dpadmm::test::RunRecorder trace;
  const dpadmm::RunSummary r = dpadmm::RunExperiment(s, &trace);
  ASSERT_EQ(r.outcome, dpadmm::RunOutcome::kCompleted) << r.message;
  EXPECT_TRUE(r.info.gaussian_releases);
  // Node i's mu from public quantities; the largest over nodes gives the figure.
  const dpadmm::Experiment e(s);
  double mu2 = 0.0;
  for (int i = 0; i < e.graph().num_nodes(); ++i) {
    const double mu = dpadmm::PvpGaussianMu(
        s.algorithm.C, static_cast<double>(e.info().rows_per_node[i]), s.algorithm.rho / 5,
        s.algorithm.eta, e.graph().degree(i), 4.0, e.info().features);
    EXPECT_GT(mu, 0.25);  // 1/4 plus the lattice term
    EXPECT_LT(mu, 0.25 * (1.0 + 1e-3));
    mu2 = std::max(mu2, 30.0 * mu * mu);
  }
  EXPECT_NEAR(r.tight_epsilon, dpadmm::AnalyticGaussianEpsilon(std::sqrt(mu2), 1.0, 1e-5),
              1e-6 * r.tight_epsilon);
  ASSERT_FALSE(trace.rounds.empty());
  EXPECT_NEAR(trace.rounds.back().tight_epsilon, r.tight_epsilon, 1e-9 * r.tight_epsilon);
  EXPECT_TRUE(std::isnan(trace.rounds.back().privacy_loss));  // no paper's figure
  // A larger multiplier is more private.
  RunSpec quieter = PvpGaussian(8.0);
  EXPECT_LT(dpadmm::RunExperiment(quieter).tight_epsilon, r.tight_epsilon);
}

TEST(PvpGaussian, CalibratedToTheTarget) {
  RunSpec s = PvpGaussian(1.0);
  s.target_epsilon = 1.5;
  s.epsilon_policy = false;
  const dpadmm::RunSummary r = dpadmm::RunExperiment(s);
  ASSERT_EQ(r.outcome, dpadmm::RunOutcome::kCompleted) << r.message;
  EXPECT_EQ(r.info.calibrated_knob, "algorithm.pvp.noise_multiplier");
  EXPECT_LE(r.tight_epsilon, 1.5 * (1.0 + 1e-9));
  EXPECT_GE(r.tight_epsilon, 1.5 * (1.0 - 2 * dpadmm::kCalibrationTolerance));
  // With the policy (the default), the same target: the settings change, the figure holds.
  s.epsilon_policy = true;
  const dpadmm::RunSummary p = dpadmm::RunExperiment(s);
  ASSERT_EQ(p.outcome, dpadmm::RunOutcome::kCompleted) << p.message;
  EXPECT_FALSE(p.info.epsilon_policy.empty());
  EXPECT_LE(p.tight_epsilon, 1.5 * (1.0 + 1e-9));
  EXPECT_GE(p.tight_epsilon, 1.5 * (1.0 - 2 * dpadmm::kCalibrationTolerance));
}

// The default laplace pvp under the policy becomes the Gaussian mechanism; every private
// algorithm with a policy is calibrated to its target.
TEST(EpsilonPolicy, EveryPolicyRunSpendsItsTarget) {
  for (Algorithm a : {Algorithm::kPvp, Algorithm::kDvp, Algorithm::kMadmm,
                      Algorithm::kPrivateMradmm, Algorithm::kPdml}) {
    RunSpec s = Small(a);
    s.target_epsilon = 1.0;
    const dpadmm::RunSummary r = dpadmm::RunExperiment(s);
    ASSERT_EQ(r.outcome, dpadmm::RunOutcome::kCompleted) << dpadmm::ChoiceName(a) << r.message;
    EXPECT_LE(r.tight_epsilon, 1.0 * (1.0 + 1e-9)) << dpadmm::ChoiceName(a);
    EXPECT_GE(r.tight_epsilon, 1.0 * (1.0 - 2 * dpadmm::kCalibrationTolerance))
        << dpadmm::ChoiceName(a);
  }
}

// An uneven partition (proportions 1:2:4:8:16): the policy sets row weighting for dvp, pvp,
// madmm, private_mradmm, pdml and average, node weighting for local, and every run's figure
// stays within its target.
TEST(EpsilonPolicy, UnevenPartitionSpendsItsTarget) {
  for (Algorithm a :
       {Algorithm::kPvp, Algorithm::kDvp, Algorithm::kMadmm, Algorithm::kPrivateMradmm,
        Algorithm::kPdml, Algorithm::kAverage, Algorithm::kLocal}) {
    RunSpec s = Small(a);
    s.partition.kind = dpadmm::PartitionKind::kProportional;
    s.partition.proportions = {1.0, 2.0, 4.0, 8.0, 16.0};
    s.target_epsilon = 1.0;
    const dpadmm::Experiment e(s);
    const bool row = a != Algorithm::kLocal;
    EXPECT_EQ(e.spec().algorithm.weighting,
              row ? dpadmm::Weighting::kRow : dpadmm::Weighting::kNode)
        << dpadmm::ChoiceName(a);
    EXPECT_NE(e.info().epsilon_policy.find(row ? "row weighting" : "node weighting"),
              std::string::npos)
        << e.info().epsilon_policy;
    const dpadmm::RunSummary r = e.Run();
    ASSERT_EQ(r.outcome, dpadmm::RunOutcome::kCompleted) << dpadmm::ChoiceName(a) << r.message;
    EXPECT_LE(r.tight_epsilon, 1.0 * (1.0 + 1e-9)) << dpadmm::ChoiceName(a);
    EXPECT_GE(r.tight_epsilon, 1.0 * (1.0 - 2 * dpadmm::kCalibrationTolerance))
        << dpadmm::ChoiceName(a);
  }
}

// Under row weighting the rule reads the mean rows per node B_bar, under node weighting (local,
// central) the smallest: rows {20, 380, 100} give mu 500/3 for pvp and mu 20 for local.
TEST(EpsilonPolicy, ReadsTheMeanRowsUnderRowWeighting) {
  dpadmm::PublicQuantities q;
  q.epsilon = 1.0;
  q.degrees = {2, 2, 2};
  q.rows_per_node = {20, 380, 100};
  q.features = 21;
  const dpadmm::EpsilonSettings local = dpadmm::ChooseEpsilonSettings(Algorithm::kLocal, q);
  const double mu = local.privacy_rows / 20.0;
  EXPECT_EQ(local.weighting, dpadmm::Weighting::kNode);
  for (Algorithm a : {Algorithm::kPvp, Algorithm::kDvp, Algorithm::kMadmm,
                      Algorithm::kPrivateMradmm, Algorithm::kAverage}) {
    const dpadmm::EpsilonSettings s = dpadmm::ChooseEpsilonSettings(a, q);
    EXPECT_EQ(s.weighting, dpadmm::Weighting::kRow) << dpadmm::ChoiceName(a);
    EXPECT_NEAR(s.privacy_rows, mu * 500.0 / 3.0, 1e-12 * s.privacy_rows) << dpadmm::ChoiceName(a);
  }
  // pvp's regulariser 0.3 / kappa is that of B_bar (with B_min it would be 25/3 times larger).
  const dpadmm::EpsilonSettings pvp = dpadmm::ChooseEpsilonSettings(Algorithm::kPvp, q);
  EXPECT_NEAR(pvp.rho, 0.3 / (mu * 500.0 / 3.0), 1e-12 * pvp.rho);
  RunSpec spec = RunSpec::Defaults(Algorithm::kPvp);
  dpadmm::ApplyEpsilonSettings(spec, pvp);
  EXPECT_EQ(spec.algorithm.weighting, dpadmm::Weighting::kRow);
  EXPECT_NE(dpadmm::DescribeEpsilonSettings(spec, pvp).find("from mu B_bar"), std::string::npos);
}

// dvp, madmm and private_mradmm (pure-epsilon releases): one private round, then 49 gossip
// rounds that cost nothing and keep the mean model (its test error is round 1's in every round)
// while the nodes come together; M-ADMM's penalty holds its term that no noise buys to 5% of the
// target.
TEST(EpsilonPolicy, PureEpsilonAlgorithmsReleaseOnceThenGossip) {
  for (Algorithm a : {Algorithm::kDvp, Algorithm::kMadmm, Algorithm::kPrivateMradmm}) {
    RunSpec s = Small(a);
    s.target_epsilon = 1.0;
    const dpadmm::Experiment e(s);
    EXPECT_EQ(e.spec().iterations, 50) << dpadmm::ChoiceName(a);
    EXPECT_EQ(e.spec().algorithm.gossip_rounds, 49) << dpadmm::ChoiceName(a);
    EXPECT_NE(e.info().epsilon_policy.find("rounds 50 (49 of them gossip)"), std::string::npos)
        << e.info().epsilon_policy;
    dpadmm::test::RunRecorder rec;
    const dpadmm::RunSummary r = e.Run(&rec);
    ASSERT_EQ(r.outcome, dpadmm::RunOutcome::kCompleted) << dpadmm::ChoiceName(a) << r.message;
    ASSERT_EQ(rec.rounds.size(), 51u);
    EXPECT_LE(r.tight_epsilon, 1.0 * (1.0 + 1e-9)) << dpadmm::ChoiceName(a);
    EXPECT_GE(r.tight_epsilon, 1.0 * (1.0 - 2 * dpadmm::kCalibrationTolerance));
    for (std::size_t k = 2; k < rec.rounds.size(); ++k) {
      EXPECT_EQ(rec.rounds[k].test_error, rec.rounds[1].test_error) << "round " << k;
      EXPECT_EQ(rec.rounds[k].tight_epsilon, rec.rounds[1].tight_epsilon) << "round " << k;
    }
    EXPECT_LT(rec.rounds.back().consensus_gap, rec.rounds[1].consensus_gap / 20.0)
        << dpadmm::ChoiceName(a);
  }
  dpadmm::PublicQuantities q;
  q.epsilon = 0.5;
  q.degrees = {1, 3, 2};
  q.rows_per_node = {20, 380, 100};
  const dpadmm::EpsilonSettings m = dpadmm::ChooseEpsilonSettings(Algorithm::kMadmm, q);
  // 002's term C_i 1.4 c / (eta V_i B_i), C_i / B_i = 1 / B_bar, at the smallest degree.
  EXPECT_LE(1.4 * q.curvature / (m.eta * 1 * (500.0 / 3.0)), 0.05 * q.epsilon * (1 + 1e-12));
}

// The one-release algorithms' regulariser is 3 / kappa up to 1: on few effective rows (40 rows
// per node at epsilon 1: kappa about 11) it is above the former cap of 0.1, and it is 1 below
// kappa = 3; local and central read the smallest node, the others the mean node.
TEST(EpsilonPolicy, OneReleaseRegulariserIsThreeOverKappaUpToOne) {
  dpadmm::PublicQuantities q;
  q.epsilon = 1.0;
  q.degrees = {2, 3, 1};
  q.rows_per_node = {40, 41, 42};
  for (Algorithm a : {Algorithm::kLocal, Algorithm::kAverage, Algorithm::kCentral, Algorithm::kDvp,
                      Algorithm::kPrivateMradmm}) {
    const dpadmm::EpsilonSettings s = dpadmm::ChooseEpsilonSettings(a, q);
    SCOPED_TRACE(dpadmm::ChoiceName(a));
    ASSERT_GT(s.privacy_rows, 3.0);
    EXPECT_NEAR(s.rho, 3.0 / s.privacy_rows, 1e-15);
    EXPECT_GT(s.rho, 0.1);
  }
  q.rows_per_node = {2, 3, 4};  // kappa below 3
  for (Algorithm a : {Algorithm::kLocal, Algorithm::kAverage, Algorithm::kDvp}) {
    const dpadmm::EpsilonSettings s = dpadmm::ChooseEpsilonSettings(a, q);
    SCOPED_TRACE(dpadmm::ChoiceName(a));
    ASSERT_LT(s.privacy_rows, 3.0);
    EXPECT_EQ(s.rho, 1.0);
  }
}

// PDML: pvp's rule on the effective rows mu B_bar / (1 + DW_max) (its debiased loss bounds a
// record's gradient by 1 + DW_max), decay 1, no uncounted objective noise, and 000's rho = N rho_i.
TEST(EpsilonPolicy, PdmlTakesPvpsRuleOnItsEffectiveRows) {
  dpadmm::PublicQuantities q;
  q.epsilon = 1.0;
  q.degrees = {2, 2, 2, 2};
  q.rows_per_node = {100, 100, 100, 100};
  const dpadmm::EpsilonSettings pvp = dpadmm::ChooseEpsilonSettings(Algorithm::kPvp, q);
  q.gradient_bound = 1.0 + 1.0 / (std::exp(1.0) - 1.0);  // label eps 1
  const dpadmm::EpsilonSettings pdml = dpadmm::ChooseEpsilonSettings(Algorithm::kPdml, q);
  EXPECT_NEAR(pdml.privacy_rows, pvp.privacy_rows / q.gradient_bound, 1e-12 * pvp.privacy_rows);
  EXPECT_EQ(pdml.weighting, dpadmm::Weighting::kRow);
  EXPECT_NEAR(pdml.rho, 0.3 / pdml.privacy_rows, 1e-12 * pdml.rho);
  RunSpec spec = RunSpec::Defaults(Algorithm::kPdml);
  spec.algorithm.As<dpadmm::PdmlParams>().label_eps = 1.0;
  spec.algorithm.As<dpadmm::PdmlParams>().R = 1.0;
  spec.target_epsilon = 1.0;
  q.gradient_bound = 1.0;  // ApplyEpsilonPolicy reads it from the spec's label eps
  EXPECT_NE(dpadmm::ApplyEpsilonPolicy(spec, q).find("no objective noise (R 0)"),
            std::string::npos);
  EXPECT_EQ(spec.iterations, pdml.iterations);
  EXPECT_NEAR(spec.algorithm.rho, 4.0 * pdml.rho, 1e-12 * spec.algorithm.rho);
  EXPECT_FALSE(spec.algorithm.rho_per_node);
  EXPECT_EQ(spec.algorithm.As<dpadmm::PdmlParams>().R, 0.0);
  EXPECT_EQ(spec.algorithm.As<dpadmm::PdmlParams>().decay, 1.0);
  EXPECT_NO_THROW(spec.Validate());
  q.gradient_bound = 0.5;
  EXPECT_THROW(dpadmm::ChooseEpsilonSettings(Algorithm::kPdml, q), InputError);
}

// The gossip tail (algorithm.gossip_rounds) outside the policy: the rounds of the algorithm give
// the same bits and figure as a run without the tail, the tail adds no privacy cost, keeps the
// mean model, brings the nodes together and gives the same bits on every engine; it is refused
// where it is not used and when it leaves the algorithm no round.
TEST(GossipTail, CostsNothingAndKeepsTheMean) {
  RunSpec s = Small(Algorithm::kDvp);
  s.iterations = 4;
  dpadmm::test::RunRecorder plain;
  ASSERT_EQ(dpadmm::RunExperiment(s, &plain).outcome, dpadmm::RunOutcome::kCompleted);
  s.iterations = 4 + 40;
  s.algorithm.gossip_rounds = 40;
  dpadmm::test::RunRecorder tail;
  const dpadmm::RunSummary r = dpadmm::RunExperiment(s, &tail);
  ASSERT_EQ(r.outcome, dpadmm::RunOutcome::kCompleted) << r.message;
  ASSERT_EQ(tail.rounds.size(), 45u);
  dpadmm::test::ExpectSameBits(plain.rounds, std::vector<dpadmm::RoundMetrics>(
                                                 tail.rounds.begin(), tail.rounds.begin() + 5));
  for (std::size_t k = 5; k < tail.rounds.size(); ++k) {
    EXPECT_EQ(tail.rounds[k].tight_epsilon, plain.rounds.back().tight_epsilon) << k;
    EXPECT_EQ(tail.rounds[k].privacy_loss, plain.rounds.back().privacy_loss) << k;
    EXPECT_EQ(tail.rounds[k].test_error, plain.rounds.back().test_error) << k;
  }
  EXPECT_LT(tail.rounds.back().consensus_gap, plain.rounds.back().consensus_gap / 10.0);
  // The same bits on the task-graph engine.
  RunSpec t = s;
  t.engine = dpadmm::runtime::EngineKind::kTbb;
  t.threads = 2;
  dpadmm::test::RunRecorder tbb;
  ASSERT_EQ(dpadmm::RunExperiment(t, &tbb).outcome, dpadmm::RunOutcome::kCompleted);
  dpadmm::test::ExpectSameBits(tail.rounds, tbb.rounds);
  for (int g : {44, -1}) {
    s.algorithm.gossip_rounds = g;
    EXPECT_THROW(s.Validate(), InputError) << g;
  }
  for (Algorithm a : {Algorithm::kLocal, Algorithm::kAverage, Algorithm::kCentral, Algorithm::kPdml,
                      Algorithm::kSharing}) {
    RunSpec b = RunSpec::Defaults(a);
    b.algorithm.gossip_rounds = 5;
    try {
      b.Validate();
      ADD_FAILURE() << dpadmm::ChoiceName(a) << " accepted a gossip tail";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("algorithm.gossip_rounds"), std::string::npos)
          << e.what();
    }
  }
}

// Row weighting on an uneven partition: every row weighs C / B_bar, so on a complete graph
// (every degree alike) every node's PVP release has the same sensitivity and noise; node
// weighting gives the small node the larger noise.
TEST(RowWeighting, EveryNodeReleasesWithTheSameSensitivity) {
  const auto round1_noise = [](dpadmm::Weighting w) {
    RunSpec s = PvpGaussian(2.0);
    s.graph.topology = dpadmm::Topology::kComplete;
    s.partition.kind = dpadmm::PartitionKind::kProportional;
    s.partition.proportions = {1.0, 2.0, 4.0, 8.0, 16.0};
    s.algorithm.weighting = w;
    s.iterations = 2;
    dpadmm::test::RunRecorder trace;
    const dpadmm::Experiment e(s);
    const dpadmm::RunSummary r = e.Run(&trace);
    EXPECT_EQ(r.outcome, dpadmm::RunOutcome::kCompleted) << r.message;
    return std::make_pair(trace.rounds.at(1).node_noise, e.info().rows_per_node);
  };
  const auto [row, rows] = round1_noise(dpadmm::Weighting::kRow);
  ASSERT_EQ(row.size(), 5u);
  double total = 0.0;
  for (std::int64_t b : rows) total += static_cast<double>(b);
  // sigma = multiplier x 2 (C / B_bar) / (rho_i + 2 eta V), V = 4, rho_i = rho / 5.
  const RunSpec d = PvpGaussian(2.0);
  const double sigma = 2.0 * dpadmm::PvpSensitivity(d.algorithm.C / (total / 5.0), 1.0,
                                                    d.algorithm.rho / 5.0, d.algorithm.eta, 4);
  for (double v : row) EXPECT_NEAR(v, sigma, 1e-12 * sigma);
  const std::vector<double> node = round1_noise(dpadmm::Weighting::kNode).first;
  EXPECT_GT(node[0] / node[4], 8.0);  // B_4 / B_0 = 16 up to rounding
}

// Row weighting's consensus problem is the centralized one: two uneven partitions of the same
// rows have the same optimum (node weighting: they do not).
TEST(RowWeighting, ConsensusOptimumIsTheCentralizedOne) {
  const auto optimum = [](dpadmm::Weighting w, std::vector<double> proportions) {
    RunSpec s = Small(Algorithm::kAdmm);
    s.partition.kind = dpadmm::PartitionKind::kProportional;
    s.partition.proportions = std::move(proportions);
    s.algorithm.weighting = w;
    s.iterations = 1;
    return dpadmm::Experiment(s).optimum();
  };
  const Eigen::VectorXd a = optimum(dpadmm::Weighting::kRow, {1, 2, 4, 8, 16});
  const Eigen::VectorXd b = optimum(dpadmm::Weighting::kRow, {16, 1, 1, 1, 1});
  ASSERT_GT(a.norm(), 0.1);
  EXPECT_LE((a - b).norm(), 1e-8 * a.norm());
  const Eigen::VectorXd c = optimum(dpadmm::Weighting::kNode, {1, 2, 4, 8, 16});
  const Eigen::VectorXd e = optimum(dpadmm::Weighting::kNode, {16, 1, 1, 1, 1});
  EXPECT_GT((c - e).norm(), 1e-3 * c.norm());
  // The run's objective sums C_i (mean loss of node i) + rho_i ||f_i||^2 / 2: at consensus it
  // is the centralized objective at f* (to first order in the distance, 1e-6 here).
  RunSpec s = Small(Algorithm::kAdmm);
  s.partition.kind = dpadmm::PartitionKind::kProportional;
  s.partition.proportions = {1, 2, 4, 8, 16};
  s.algorithm.weighting = dpadmm::Weighting::kRow;
  s.iterations = 300;
  const dpadmm::RunSummary r = dpadmm::RunExperiment(s);
  ASSERT_LE(r.final.distance_to_optimum, 1e-6);
  EXPECT_NEAR(r.final.objective, r.info.optimum_objective, 1e-6 * r.info.optimum_objective);
}

// C_i = C B_i / B_bar: the same weight C / B_bar per row, N C in all; node weighting: C.
TEST(RowWeighting, NodeLossWeight) {
  dpadmm::AlgorithmSpec a;
  a.C = 3.0;
  const std::vector<std::int64_t> rows = {20, 380, 100};
  for (std::size_t i = 0; i < rows.size(); ++i) EXPECT_EQ(dpadmm::NodeLossWeight(a, rows, i), 3.0);
  a.weighting = dpadmm::Weighting::kRow;
  double sum = 0.0;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const double c = dpadmm::NodeLossWeight(a, rows, i);
    EXPECT_NEAR(c / static_cast<double>(rows[i]), 3.0 * 3.0 / 500.0, 1e-15);
    sum += c;
  }
  EXPECT_NEAR(sum, 9.0, 1e-12);
  EXPECT_THROW(dpadmm::NodeLossWeight(a, {20, -1, 100}, 0), InputError);
  EXPECT_THROW(dpadmm::NodeLossWeight(a, rows, 3), InputError);
}

// Row weighting is refused where it is not wired, naming the field.
TEST(RowWeighting, RefusedWhereNotUsed) {
  for (Algorithm a : {Algorithm::kLocal, Algorithm::kCentral, Algorithm::kSharing}) {
    RunSpec s = RunSpec::Defaults(a);
    s.algorithm.weighting = dpadmm::Weighting::kRow;
    try {
      s.Validate();
      ADD_FAILURE() << dpadmm::ChoiceName(a) << " accepted row weighting";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("algorithm.weighting"), std::string::npos) << e.what();
    }
  }
  for (Algorithm a : {Algorithm::kAdmm, Algorithm::kPvp, Algorithm::kAverage, Algorithm::kPdml}) {
    RunSpec s = RunSpec::Defaults(a);
    s.algorithm.weighting = dpadmm::Weighting::kRow;
    EXPECT_NO_THROW(s.Validate()) << dpadmm::ChoiceName(a);
  }
}

TEST(PvpGaussian, SameBitsOnEveryEngine) {
  RunSpec s = PvpGaussian(3.0);
  s.iterations = 8;
  const dpadmm::RunSummary serial = dpadmm::RunExperiment(s);
  s.engine = dpadmm::runtime::EngineKind::kTbb;
  for (int threads : {1, 2}) {
    s.threads = threads;
    const dpadmm::RunSummary tbb = dpadmm::RunExperiment(s);
    ASSERT_EQ(tbb.model.size(), serial.model.size());
    for (Eigen::Index k = 0; k < tbb.model.size(); ++k) EXPECT_EQ(tbb.model[k], serial.model[k]);
    EXPECT_EQ(tbb.tight_epsilon, serial.tight_epsilon);
  }
}

TEST(PvpGaussian, ValidationNamesTheField) {
  const auto message = [](RunSpec s) {
    try {
      s.Validate();
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  RunSpec s = PvpGaussian(0.0);
  EXPECT_NE(message(s).find("algorithm.pvp.noise_multiplier"), std::string::npos) << message(s);
  s = PvpGaussian(2.0);
  s.algorithm.As<PvpParams>().mechanism = "cauchy";
  EXPECT_NE(message(s).find("algorithm.pvp.mechanism"), std::string::npos) << message(s);
  s = PvpGaussian(2.0);
  s.algorithm.privacy_budget = 3.0;
  EXPECT_NE(message(s).find("algorithm.privacy_budget"), std::string::npos) << message(s);
  s = Small(Algorithm::kPvp);
  s.algorithm.As<PvpParams>().noise_multiplier = 2.0;  // laplace: alpha sets the noise
  EXPECT_NE(message(s).find("algorithm.pvp.noise_multiplier"), std::string::npos) << message(s);
  EXPECT_EQ(message(PvpGaussian(2.0)), "");
}

}  // namespace
