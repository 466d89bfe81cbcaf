// SPDX-License-Identifier: Apache-2.0
// Consensus ADMM end to end: it reaches the centralized optimum (computed independently by the
// Newton solver on the pooled data) on every topology, and the serial and TBB engines agree bit
// for bit whatever the thread count.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <string>
#include <vector>

#include "dpadmm/core/error.h"
#include "dpadmm/run/run.h"
#include "run_recorder.h"
#include "test_helpers.h"

namespace {

using dpadmm::RoundMetrics;
using dpadmm::RunSpec;
using dpadmm::test::ExpectSameBits;
using Recorder = dpadmm::test::RunRecorder;

RunSpec SmallTwonorm(const std::string& topology) {
  RunSpec s;
  s.data.source = dpadmm::DataSource::kTwonorm;
  s.data.rows = 1200;
  s.graph.topology = dpadmm::ParseChoice<dpadmm::Topology>(topology, "graph.topology");
  s.graph.nodes = 6;
  s.graph.edges = 8;
  s.algorithm.C = 50.0;
  s.algorithm.rho = 1.0;
  // eta = 0.3 reaches the Newton tolerance floor (~1e-10) within 300 rounds on every topology
  // here; with eta = 1 the complete graph (degree 5) is still at 4e-5.
  s.algorithm.eta = 0.3;
  s.iterations = 300;
  s.seed = 7;
  return s;
}

}  // namespace

class AdmmTopology : public ::testing::TestWithParam<const char*> {};

TEST_P(AdmmTopology, ReachesCentralizedOptimumWithIdenticalBitsOnBothEngines) {
  RunSpec spec = SmallTwonorm(GetParam());
  spec.engine = dpadmm::runtime::EngineKind::kSerial;
  const dpadmm::Experiment experiment(spec);
  Recorder serial;
  const auto s = experiment.Run(&serial);
  EXPECT_EQ(s.outcome, dpadmm::RunOutcome::kCompleted) << s.message;
  // Relative distance max_i ||f_i - f*|| / ||f*||: the acceptance bound.
  EXPECT_LT(s.final.distance_to_optimum, 1e-6) << GetParam();
  EXPECT_NEAR(s.final.objective, s.info.optimum_objective, 1e-8 * s.info.optimum_objective);
  EXPECT_LT(s.final.consensus_gap, 1e-6);

  for (int threads : {1, 2, 3}) {
    RunSpec tbb_spec = spec;
    tbb_spec.engine = dpadmm::runtime::EngineKind::kTbb;
    tbb_spec.threads = threads;
    Recorder tbb;
    const auto t = dpadmm::Experiment(tbb_spec).Run(&tbb);
    EXPECT_EQ(t.outcome, dpadmm::RunOutcome::kCompleted);
    ExpectSameBits(serial.rounds, tbb.rounds);
    EXPECT_EQ(s.model, t.model);
  }
}
INSTANTIATE_TEST_SUITE_P(Graphs, AdmmTopology,
                         ::testing::Values("ring", "star", "complete", "random", "grid"));

TEST(Admm, LossDecreasesAndMetricsAreConsistent) {
  RunSpec spec = SmallTwonorm("random");
  spec.iterations = 30;
  Recorder rec;
  const auto s = dpadmm::RunExperiment(spec, &rec);
  ASSERT_EQ(rec.rounds.size(), 31u);
  EXPECT_EQ(rec.rounds.front().round, 0);
  // f(0) = 0: every node's loss is log 2 and the averaged classifier scores 0 (predicts +1).
  EXPECT_NEAR(rec.rounds.front().train_loss, std::log(2.0), 1e-15);
  EXPECT_EQ(rec.rounds.front().consensus_gap, 0.0);
  EXPECT_LT(rec.rounds.back().objective, rec.rounds.front().objective);
  // twonorm is nearly linearly separable by the Bayes rule: error around 2-3 %.
  EXPECT_LT(s.final.test_error, 0.06);
  EXPECT_EQ(s.rounds, 30);
  EXPECT_EQ(s.info.nodes, 6);
  EXPECT_EQ(s.info.edges, 8);
  EXPECT_EQ(s.info.train_rows + s.info.test_rows, 1200);
  std::int64_t total = 0;
  for (auto r : s.info.rows_per_node) total += r;
  EXPECT_EQ(total, s.info.train_rows);
}

TEST(Admm, SmoothHingeAlsoReachesTheOptimum) {
  RunSpec spec = SmallTwonorm("ring");
  spec.loss.kind = dpadmm::LossKind::kSmoothHinge;
  const auto s = dpadmm::RunExperiment(spec);
  EXPECT_LT(s.final.distance_to_optimum, 1e-6);
}

TEST(Admm, RandomStartIsSeededAndStillConverges) {
  RunSpec spec = SmallTwonorm("complete");
  spec.algorithm.random_start = true;
  Recorder a, b;
  (void)dpadmm::RunExperiment(spec, &a);
  const auto s = dpadmm::RunExperiment(spec, &b);
  ExpectSameBits(a.rounds, b.rounds);
  EXPECT_GT(a.rounds.front().consensus_gap, 0.0);
  EXPECT_LT(s.final.distance_to_optimum, 1e-6);
}

TEST(Admm, ToleranceStopsTheRunAsConverged) {
  RunSpec spec = SmallTwonorm("complete");
  spec.tolerance = 1e-6;
  spec.iterations = 1000;
  const auto s = dpadmm::RunExperiment(spec);
  EXPECT_EQ(s.outcome, dpadmm::RunOutcome::kConverged);
  EXPECT_LT(s.rounds, 1000);
}

TEST(Admm, DivergenceIsReportedWithNodeAndRound) {
  // Values near the largest double, not normalised: margins overflow in the first update.
  const std::string path = dpadmm::test::TempPath("dpadmm_overflow.csv");
  {
    std::ofstream out(path);
    for (int k = 0; k < 40; ++k)
      out << (k % 2 ? "1e300,-1e300," : "-1e300,1e300,") << (k % 2 ? 1 : -1) << "\n";
  }
  RunSpec spec;
  spec.data.source = dpadmm::DataSource::kCsv;
  spec.data.train_path = path;
  spec.data.normalize = false;
  spec.graph.topology = dpadmm::Topology::kRing;
  spec.graph.nodes = 4;
  spec.compute_optimum = false;
  spec.iterations = 5;
  for (const char* engine : {"serial", "tbb"}) {
    spec.engine = dpadmm::ParseChoice<dpadmm::runtime::EngineKind>(engine, "engine");
    const auto s = dpadmm::RunExperiment(spec);
    EXPECT_EQ(s.outcome, dpadmm::RunOutcome::kDiverged) << engine;
    EXPECT_NE(s.message.find("node 0"), std::string::npos) << s.message;
    EXPECT_NE(s.message.find("round 1"), std::string::npos) << s.message;
    EXPECT_EQ(s.rounds, 0);
  }
}

TEST(Admm, CancellationEndsTheRunAsCancelled) {
  struct Canceller : dpadmm::RunObserver {
    dpadmm::runtime::StopToken* token;
    void OnRound(const RoundMetrics& m) override {
      if (m.round == 2) token->RequestStop();
    }
  };
  RunSpec spec = SmallTwonorm("ring");
  spec.iterations = 100000;
  spec.compute_optimum = false;
  dpadmm::runtime::StopToken token;
  Canceller c;
  c.token = &token;
  const auto s = dpadmm::RunExperiment(spec, &c, &token);
  EXPECT_EQ(s.outcome, dpadmm::RunOutcome::kCancelled);
  EXPECT_GE(s.rounds, 2);
  EXPECT_LT(s.rounds, 100000);
}

TEST(Admm, NormalisationIsReportedNotSilent) {
  RunSpec spec = SmallTwonorm("ring");
  spec.iterations = 1;
  const dpadmm::Experiment e(spec);
  EXPECT_GT(e.info().max_row_norm_before, 1.0);
  EXPECT_DOUBLE_EQ(e.info().normalization_factor, 1.0 / e.info().max_row_norm_before);
  EXPECT_NEAR(std::max(e.train().MaxRowNorm(), e.test().MaxRowNorm()), 1.0, 1e-12);
  spec.data.normalize = false;
  const dpadmm::Experiment raw(spec);
  EXPECT_EQ(raw.info().normalization_factor, 1.0);
}

TEST(Admm, AnUnsolvedCentralizedOptimumIsANoteNotAnError) {
  // One Newton step cannot solve the centralized problem: the run still goes ahead, and the
  // summary says that f* and the distances to it are approximate.
  RunSpec spec = SmallTwonorm("ring");
  spec.iterations = 3;
  spec.newton.max_iterations = 1;  // the centralized solve takes max(this, 200) steps...
  spec.algorithm.C = 1e12;         // ...which an extremely ill-conditioned problem exhausts
  spec.algorithm.rho = 1e-12;
  const dpadmm::Experiment e(spec);
  EXPECT_NE(e.info().optimum_note.find("approximate"), std::string::npos) << e.info().optimum_note;
  EXPECT_TRUE(std::isfinite(e.info().optimum_objective));
  const auto s = e.Run();
  EXPECT_TRUE(std::isfinite(s.final.distance_to_optimum));
  // A solved optimum has no note.
  EXPECT_TRUE(dpadmm::Experiment(SmallTwonorm("ring")).info().optimum_note.empty());
}

// node_distance[i] = ||f_i - mean f||: the consensus gap is their maximum (max_i ||f_i - mean f||;
// the pairwise max_ij ||f_i - f_j|| lies between it and twice it); it shrinks as the nodes agree.
TEST(Admm, NodeDistanceToConsensusMatchesTheGap) {
  RunSpec spec = SmallTwonorm("ring");
  spec.algorithm.random_start = true;
  spec.iterations = 60;
  Recorder rec;
  (void)dpadmm::RunExperiment(spec, &rec);
  ASSERT_EQ(rec.rounds.size(), 61u);
  for (const RoundMetrics& m : rec.rounds) {
    ASSERT_EQ(m.node_distance.size(), 6u);
    double largest = 0.0;
    for (double d : m.node_distance) {
      EXPECT_GE(d, 0.0);
      EXPECT_LE(d, m.consensus_gap * (1 + 1e-12));
      largest = std::max(largest, d);
    }
    EXPECT_GE(largest * 2 * (1 + 1e-12), m.consensus_gap);
  }
  const auto& first = rec.rounds.front().node_distance;
  const auto& last = rec.rounds.back().node_distance;
  EXPECT_GT(*std::max_element(first.begin(), first.end()), 0.1);
  EXPECT_LT(*std::max_element(last.begin(), last.end()),
            1e-3 * *std::max_element(first.begin(), first.end()));
}

// A CSV whose first line is a header fails naming file and line, and says to use --header.
TEST(Admm, CsvHeaderWithoutTheFlagSuggestsIt) {
  const std::string path = dpadmm::test::TempPath("dpadmm_with_header.csv");
  {
    std::ofstream out(path);
    out << "x1,x2,label\n";
    for (int k = 0; k < 40; ++k) out << k % 7 << ',' << k % 5 << ',' << (k % 2 ? 1 : -1) << '\n';
  }
  RunSpec spec;
  spec.data.source = dpadmm::DataSource::kCsv;
  spec.data.train_path = path;
  spec.graph.nodes = 4;
  try {
    dpadmm::Experiment e(spec);
    ADD_FAILURE() << "accepted a header as data";
  } catch (const dpadmm::InputError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find(path + ":1"), std::string::npos) << m;
    EXPECT_NE(m.find("--header"), std::string::npos) << m;
  }
  spec.data.has_header = true;
  EXPECT_NO_THROW(dpadmm::Experiment e(spec));
}
