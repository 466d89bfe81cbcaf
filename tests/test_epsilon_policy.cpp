// SPDX-License-Identifier: Apache-2.0
// The epsilon policy (tools/epsilon_policy.h) and PVP's Gaussian mechanism: settings from public
// quantities only, the calibrated figure, and the per-round column against the summary.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
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

// The same public quantities (rows per node, graph, features, target) on other data give the
// same settings: the policy reads no row. Twonorm and ringnorm of the same size and seed share
// the split sizes, the graph and the partition sizes.
TEST(EpsilonPolicy, SamePublicQuantitiesGiveTheSameSettings) {
  for (Algorithm a :
       {Algorithm::kPvp, Algorithm::kDvp, Algorithm::kMadmm, Algorithm::kPrivateMradmm,
        Algorithm::kLocal, Algorithm::kAverage, Algorithm::kCentral}) {
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
  for (Algorithm a :
       {Algorithm::kPvp, Algorithm::kDvp, Algorithm::kMadmm, Algorithm::kPrivateMradmm}) {
    RunSpec s = Small(a);
    s.target_epsilon = 1.0;
    const dpadmm::RunSummary r = dpadmm::RunExperiment(s);
    ASSERT_EQ(r.outcome, dpadmm::RunOutcome::kCompleted) << dpadmm::ChoiceName(a) << r.message;
    EXPECT_LE(r.tight_epsilon, 1.0 * (1.0 + 1e-9)) << dpadmm::ChoiceName(a);
    EXPECT_GE(r.tight_epsilon, 1.0 * (1.0 - 2 * dpadmm::kCalibrationTolerance))
        << dpadmm::ChoiceName(a);
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
