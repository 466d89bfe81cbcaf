// SPDX-License-Identifier: Apache-2.0
// Consensus metrics: the consensus gap through the mean (O(N d)) and eval_every K (metrics,
// trace rows and the tolerance check every K rounds; the privacy accounting every round).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "dpadmm/core/error.h"
#include "dpadmm/run/run.h"
#include "dpadmm/run/spec_json.h"
#include "run_recorder.h"
#include "spec_helpers.h"

namespace {

using dpadmm::RoundMetrics;
using dpadmm::RunSpec;
using Recorder = dpadmm::test::RunRecorder;

RunSpec Small(const std::string& algorithm) {
  RunSpec s;
  s.data.source = dpadmm::DataSource::kTwonorm;
  s.data.rows = 1200;
  s.graph.topology = dpadmm::Topology::kRandom;
  s.graph.nodes = 6;
  s.graph.edges = 8;
  s.algorithm.Select(dpadmm::ParseChoice<dpadmm::Algorithm>(algorithm, "algorithm"));
  s.algorithm.C = 50.0;
  s.algorithm.rho = 1.0;
  s.algorithm.eta = 0.3;
  s.iterations = 300;
  s.seed = 7;
  s.engine = dpadmm::runtime::EngineKind::kSerial;
  return s;
}

}  // namespace

TEST(EvalEvery, ConsensusGapIsTheLargestDistanceToTheMean) {
  // max_i ||f_i - mean f|| (O(N d)); the pairwise max_ij ||f_i - f_j|| it replaced is larger
  // whenever the nodes are spread out (between the gap and twice the gap).
  RunSpec s = Small("admm");
  s.algorithm.random_start = true;
  s.iterations = 5;
  Recorder r;
  (void)dpadmm::RunExperiment(s, &r);
  ASSERT_EQ(r.rounds.size(), 6u);
  for (const RoundMetrics& m : r.rounds) {
    ASSERT_EQ(m.node_distance.size(), 6u);
    EXPECT_EQ(m.consensus_gap, *std::max_element(m.node_distance.begin(), m.node_distance.end()))
        << "round " << m.round;
    EXPECT_GT(m.consensus_gap, 0.0);
  }
}

TEST(EvalEvery, TraceRowsEveryKRoundsAndAtTheLast) {
  RunSpec s = Small("admm");
  s.iterations = 23;
  s.metrics_every = 5;
  Recorder sparse;
  const auto summary = dpadmm::RunExperiment(s, &sparse);
  std::vector<std::int64_t> rounds;
  for (const RoundMetrics& m : sparse.rounds) rounds.push_back(m.round);
  EXPECT_EQ(rounds, (std::vector<std::int64_t>{0, 5, 10, 15, 20, 23}));
  // The evaluated rounds carry the same bits as with K = 1 (the nodes do not depend on K).
  s.metrics_every = 1;
  Recorder every;
  const auto all = dpadmm::RunExperiment(s, &every);
  ASSERT_EQ(every.rounds.size(), 24u);
  for (const RoundMetrics& m : sparse.rounds) {
    const RoundMetrics& e = every.rounds[static_cast<std::size_t>(m.round)];
    EXPECT_EQ(m.consensus_gap, e.consensus_gap) << "round " << m.round;
    EXPECT_EQ(m.objective, e.objective) << "round " << m.round;
    EXPECT_EQ(m.test_error, e.test_error) << "round " << m.round;
  }
  EXPECT_EQ(summary.model, all.model);
}

TEST(EvalEvery, ToleranceIsCheckedOnEvaluatedRoundsOnly) {
  RunSpec s = Small("admm");
  s.tolerance = 1e-5;
  Recorder every;
  const auto one = dpadmm::RunExperiment(s, &every);
  ASSERT_EQ(one.outcome, dpadmm::RunOutcome::kConverged);
  ASSERT_GT(one.rounds, 7);
  // Stopped at the first round where both the last round's change of the mean and the gap
  // through the mean are within tolerance.
  const double scale = std::max(1.0, one.model.norm());
  EXPECT_LE(every.rounds.back().consensus_gap, s.tolerance * scale);
  for (int k : {7, 10}) {
    s.metrics_every = k;
    Recorder r;
    const auto sparse = dpadmm::RunExperiment(s, &r);
    EXPECT_EQ(sparse.outcome, dpadmm::RunOutcome::kConverged) << "K = " << k;
    EXPECT_EQ(sparse.rounds % k, 0) << "K = " << k << ": stopped in round " << sparse.rounds;
    EXPECT_GE(sparse.rounds, one.rounds) << "K = " << k;
    EXPECT_LT(sparse.rounds, one.rounds + k) << "K = " << k;
    for (const RoundMetrics& m : r.rounds) EXPECT_EQ(m.round % k, 0) << "K = " << k;
    EXPECT_EQ(r.rounds.back().round, sparse.rounds);
  }
}

TEST(EvalEvery, PrivacyAccountingDoesNotDependOnK) {
  RunSpec s = Small("dvp");
  dpadmm::test::Noise(s).alpha = 0.5;
  s.algorithm.eta = 10.0;
  s.noise_seed = 7;
  s.iterations = 30;
  const auto one = dpadmm::RunExperiment(s);
  s.metrics_every = 7;
  const auto seven = dpadmm::RunExperiment(s);
  EXPECT_EQ(one.rounds, seven.rounds);
  EXPECT_EQ(one.final.privacy_loss, seven.final.privacy_loss);
  EXPECT_EQ(one.final.privacy_round, seven.final.privacy_round);
  EXPECT_EQ(one.final.tight_epsilon, seven.final.tight_epsilon);
  EXPECT_EQ(one.model, seven.model);
}

TEST(EvalEvery, JsonFieldAndItsOlderName) {
  RunSpec s = Small("admm");
  s.metrics_every = 4;
  const std::string json = dpadmm::SpecToJson(s);
  EXPECT_NE(json.find("\"eval_every\""), std::string::npos) << json;
  EXPECT_EQ(json.find("metrics_every"), std::string::npos) << json;
  RunSpec back;
  dpadmm::ApplySpecJson(json, "spec", back);
  EXPECT_EQ(back.metrics_every, 4);
  RunSpec old;
  dpadmm::ApplySpecJson(R"({"metrics_every": 6})", "spec", old);
  EXPECT_EQ(old.metrics_every, 6);
  RunSpec both;
  EXPECT_THROW(dpadmm::ApplySpecJson(R"({"eval_every": 2, "metrics_every": 2})", "spec", both),
               dpadmm::InputError);
  RunSpec bad;
  EXPECT_THROW(dpadmm::ApplySpecJson(R"({"eval_every": 2.5})", "spec", bad), dpadmm::InputError);
  bad.metrics_every = -1;
  EXPECT_THROW(bad.Validate(), dpadmm::InputError);
}
