// SPDX-License-Identifier: Apache-2.0
// The private consensus family: DVP, PVP, M-ADMM (PP), R-ADMM, MR-ADMM, private MR-ADMM.
#include <gtest/gtest.h>

#include "spec_helpers.h"

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "consensus/consensus_admm.h"
#include "dpadmm/core/error.h"
#include "dpadmm/data/generators.h"
#include "dpadmm/data/preprocessing.h"
#include "dpadmm/graph/graph.h"
#include "dpadmm/privacy/accounting.h"
#include "dpadmm/run/run.h"
#include "run_recorder.h"

namespace {

using dpadmm::RoundMetrics;
using dpadmm::RunSpec;
using dpadmm::test::ExpectSameBits;
using Recorder = dpadmm::test::RunRecorder;

RunSpec Base(const std::string& algorithm) {
  RunSpec s;
  s.data.source = dpadmm::DataSource::kTwonorm;
  s.data.rows = 1200;
  s.graph.topology = dpadmm::Topology::kRandom;
  s.graph.nodes = 5;
  s.graph.edges = 7;
  s.algorithm.Select(dpadmm::ParseChoice<dpadmm::Algorithm>(algorithm, "algorithm"));
  s.algorithm.C = 50.0;
  s.algorithm.rho = 1.0;
  s.algorithm.eta = 1.0;
  s.iterations = 40;
  s.seed = 11;
  return s;
}

}  // namespace

TEST(PrivateAdmm, MadmmWithoutNoiseAndConstantPenaltyIsAdmmBitForBit) {
  RunSpec admm = Base("admm");
  RunSpec madmm = Base("madmm");  // q1 = 1, alpha = 0, dual step = eta_i(1) = eta
  Recorder a, b;
  (void)dpadmm::RunExperiment(admm, &a);
  (void)dpadmm::RunExperiment(madmm, &b);
  ExpectSameBits(a.rounds, b.rounds);
}

TEST(PrivateAdmm, NonPrivateRecycledVariantsReachTheOptimum) {
  for (const char* name : {"radmm", "mradmm"}) {
    RunSpec s = Base(name);
    s.iterations = 600;
    dpadmm::test::Gamma(s) = 0.5;
    if (std::string(name) == "mradmm") dpadmm::test::Q1(s) = 1.002;
    const auto r = dpadmm::RunExperiment(s);
    EXPECT_EQ(r.outcome, dpadmm::RunOutcome::kCompleted) << name;
    EXPECT_LT(r.final.distance_to_optimum, 1e-4) << name;
    EXPECT_EQ(r.final.privacy_loss, 0.0);
  }
}

// Even rounds of R-ADMM and MR-ADMM recycle the odd round's gradient: they never touch the data.
TEST(PrivateAdmm, EvenRoundsOfRecycledAdmmNeverReadTheData) {
  const dpadmm::Dataset data = dpadmm::GenerateTwonorm(300, 3);
  const dpadmm::Partition part = dpadmm::PartitionEven(data.rows(), 3, 3);
  const dpadmm::Graph graph = dpadmm::MakeComplete(3);
  dpadmm::runtime::Topology topo;
  topo.neighbors = graph.adjacency();
  for (auto variant : {dpadmm::ConsensusVariant::kRadmm, dpadmm::ConsensusVariant::kMradmm,
                       dpadmm::ConsensusVariant::kPrivateMradmm}) {
    std::vector<dpadmm::Dataset> slices;
    std::vector<std::unique_ptr<dpadmm::ConsensusNode>> nodes;
    std::vector<dpadmm::runtime::NodeProgram*> programs;
    for (int i = 0; i < 3; ++i) slices.push_back(data.Subset(part[i]));
    for (int i = 0; i < 3; ++i) {
      dpadmm::ConsensusNodeParams p;
      p.variant = variant;
      p.C = 10;
      p.rho_node = 0.1;
      p.num_nodes = 3;
      p.eta = 1.0;
      p.q1 = 1.01;
      p.alpha = variant == dpadmm::ConsensusVariant::kPrivateMradmm ? 5.0 : 0.0;
      nodes.push_back(dpadmm::MakeConsensusNode(i, slices[i], graph.degree(i), dpadmm::Loss{},
                                                dpadmm::NewtonOptions{}, p,
                                                Eigen::VectorXd::Zero(data.cols())));
      programs.push_back(nodes.back().get());
    }
    struct PassCounter : dpadmm::runtime::RoundSink {
      std::vector<std::unique_ptr<dpadmm::ConsensusNode>>* nodes;
      std::vector<std::vector<std::int64_t>> passes;  // [round][node]
      bool OnRound(std::int64_t, const dpadmm::runtime::ReportTable&) override {
        std::vector<std::int64_t> row;
        for (auto& n : *nodes) row.push_back(n->data_passes());
        passes.push_back(row);
        return true;
      }
    } counter;
    counter.nodes = &nodes;
    dpadmm::runtime::EngineOptions o;
    o.kind = dpadmm::runtime::EngineKind::kSerial;  // the sink reads the nodes between rounds
    o.last_round = 12;
    (void)dpadmm::runtime::Run(programs, topo, o, counter);
    ASSERT_EQ(counter.passes.size(), 13u);
    for (std::size_t r = 1; r < counter.passes.size(); ++r) {
      for (int i = 0; i < 3; ++i) {
        const std::int64_t delta = counter.passes[r][i] - counter.passes[r - 1][i];
        if (r % 2 == 0) {
          EXPECT_EQ(delta, 0) << "even round " << r << " node " << i << " read the data";
        } else {
          EXPECT_GT(delta, 0) << "odd round " << r;
        }
      }
    }
  }
}

TEST(PrivateAdmm, PenaltySchedulesFollowThePapers) {
  const dpadmm::Dataset data = dpadmm::GenerateTwonorm(50, 1);
  dpadmm::ConsensusNodeParams p;
  p.eta = 0.5;
  p.q1 = 1.04;
  p.variant = dpadmm::ConsensusVariant::kMadmm;  // eta_i(t) = theta q1^(t-1)
  const auto madmm = dpadmm::MakeConsensusNode(0, data, 2, {}, {}, p, Eigen::VectorXd::Zero(20));
  EXPECT_DOUBLE_EQ(madmm->Penalty(1), 0.5);
  EXPECT_DOUBLE_EQ(madmm->Penalty(3), 0.5 * 1.04 * 1.04);
  p.variant = dpadmm::ConsensusVariant::kMradmm;  // eta_i(2k-1) = eta q1^k, kept in round 2k
  const auto mr = dpadmm::MakeConsensusNode(0, data, 2, {}, {}, p, Eigen::VectorXd::Zero(20));
  EXPECT_DOUBLE_EQ(mr->Penalty(1), 0.5 * 1.04);
  EXPECT_DOUBLE_EQ(mr->Penalty(2), 0.5 * 1.04);
  EXPECT_DOUBLE_EQ(mr->Penalty(3), 0.5 * 1.04 * 1.04);
  EXPECT_DOUBLE_EQ(mr->Penalty(4), 0.5 * 1.04 * 1.04);
  for (std::int64_t r = 1; r < 50; ++r) EXPECT_LE(mr->Penalty(r), mr->Penalty(r + 1));
}

TEST(PrivateAdmm, PrivacyTotalsMatchThePapersFormulas) {
  // DVP / PVP: plain composition of alpha_i(t) = alpha q2^(t-1).
  for (const char* name : {"dvp", "pvp"}) {
    RunSpec s = Base(name);
    dpadmm::test::Noise(s).alpha = 0.5;
    dpadmm::test::Noise(s).q2 = 1.1;
    s.iterations = 10;
    s.compute_optimum = false;
    const auto r = dpadmm::RunExperiment(s);
    double expected = 0.0;
    for (int t = 1; t <= 10; ++t) expected += 0.5 * std::pow(1.1, t - 1);
    EXPECT_NEAR(r.final.privacy_loss, expected, 1e-12) << name;
  }
  // M-ADMM: P(T) = max_i sum_t C (1.4 c1 + alpha_i(t)) / (eta_i(t) V_i B_i)  (002).
  {
    RunSpec s = Base("madmm");
    dpadmm::test::Noise(s).alpha = 3.0;
    dpadmm::test::Q1(s) = 1.05;
    s.iterations = 12;
    s.compute_optimum = false;
    const dpadmm::Experiment e(s);
    const auto r = e.Run();
    double best = 0.0;
    for (int i = 0; i < e.graph().num_nodes(); ++i) {
      double sum = 0.0;
      const double B = static_cast<double>(e.partition()[i].size());
      for (int t = 1; t <= 12; ++t) {
        sum += 50.0 * (1.4 * 0.25 + 3.0) / (1.0 * std::pow(1.05, t - 1) * e.graph().degree(i) * B);
      }
      best = std::max(best, sum);
    }
    EXPECT_NEAR(r.final.privacy_loss, best, 1e-12 * best);
  }
  // Private MR-ADMM: beta = max_i sum_k (2C/B_i)(1.4 c1/(rho/N + 2 eta_i(2k-1) V_i) + alpha_i(k)).
  {
    RunSpec s = Base("private_mradmm");
    dpadmm::test::Noise(s).alpha = 2.0;
    dpadmm::test::Q1(s) = 1.04;
    s.algorithm.eta = 2.0;
    s.iterations = 9;  // odd rounds 1, 3, 5, 7, 9: k = 1..5
    s.compute_optimum = false;
    const dpadmm::Experiment e(s);
    const auto r = e.Run();
    double best = 0.0;
    for (int i = 0; i < 5; ++i) {
      const double B = static_cast<double>(e.partition()[i].size());
      const double V = e.graph().degree(i);
      double sum = 0.0;
      for (int k = 1; k <= 5; ++k) {
        sum += (2 * 50.0 / B) * (1.4 * 0.25 / (1.0 / 5 + 2 * 2.0 * std::pow(1.04, k) * V) + 2.0);
      }
      best = std::max(best, sum);
    }
    EXPECT_NEAR(r.final.privacy_loss, best, 1e-12 * best);
  }
}

TEST(PrivateAdmm, EveryVariantIsBitwiseReproducibleAcrossEnginesAndThreads) {
  for (const char* name : {"dvp", "pvp", "madmm", "radmm", "mradmm", "private_mradmm"}) {
    RunSpec s = Base(name);
    // alpha = 1 for the noisy variants, q1 = 1.02 for those with a growing penalty.
    const std::string n = name;
    if (n != "radmm" && n != "mradmm") dpadmm::test::Noise(s).alpha = 1.0;
    if (n == "madmm" || n == "mradmm" || n == "private_mradmm") dpadmm::test::Q1(s) = 1.02;
    s.algorithm.eta = 2.0;
    s.iterations = 15;
    s.compute_optimum = false;
    s.engine = dpadmm::runtime::EngineKind::kSerial;
    s.noise_seed = 3;  // simulation mode: reproducible noise
    const dpadmm::Experiment e(s);
    Recorder serial;
    e.Run(&serial);
    for (int threads : {1, 2, 4}) {
      Recorder tbb;
      e.RunOn(dpadmm::runtime::EngineKind::kTbb, threads, &tbb);
      ExpectSameBits(serial.rounds, tbb.rounds);
    }
  }
}

TEST(PrivateAdmm, NoiseChangesWithTheSeedAndMoreNoiseMeansWorseObjective) {
  RunSpec s = Base("dvp");
  s.iterations = 30;
  s.noise_seed = 1;  // simulation mode: seeded noise, objective and optimum evaluated
  dpadmm::test::Noise(s).alpha = 1.0;
  const auto a = dpadmm::RunExperiment(s);
  s.seed = 12;
  const auto b = dpadmm::RunExperiment(s);
  EXPECT_NE(a.final.objective, b.final.objective);
  s.seed = 11;
  dpadmm::test::Noise(s).alpha = 1000.0;  // almost no noise
  const auto quiet = dpadmm::RunExperiment(s);
  EXPECT_LT(quiet.final.objective - quiet.info.optimum_objective,
            a.final.objective - a.info.optimum_objective);
}

TEST(PrivateAdmm, BudgetFreezesEveryNodeAndEndsTheRun) {
  RunSpec s = Base("dvp");
  dpadmm::test::Noise(s).alpha = 0.5;
  s.algorithm.privacy_budget = 3.2;  // 6 rounds spend 3.0; a 7th would reach 3.5: refused
  s.noise_seed = 1;                  // simulation mode: the objective is evaluated
  s.iterations = 100;
  s.compute_optimum = false;
  Recorder rec;
  const auto r = dpadmm::RunExperiment(s, &rec);
  EXPECT_EQ(r.outcome, dpadmm::RunOutcome::kBudgetExhausted);
  // Every node froze in round 7 (its release refused it), which ended the run.
  EXPECT_EQ(r.rounds, 7);
  EXPECT_EQ(r.node_frozen_round, std::vector<std::int64_t>(5, 7));
  EXPECT_NEAR(r.final.privacy_loss, 3.0, 1e-12);
  EXPECT_EQ(r.final.privacy_round, 0.0);
  EXPECT_NE(r.message.find("budget"), std::string::npos);
  // Frozen nodes resend their round-6 release: round 7's models are round 6's.
  ASSERT_EQ(rec.rounds.size(), 8u);
  EXPECT_EQ(rec.rounds[7].consensus_gap, rec.rounds[6].consensus_gap);
  EXPECT_EQ(rec.rounds[7].objective, rec.rounds[6].objective);
}

TEST(PrivateAdmm, NodesFreezeAloneWithPerNodeBudgets) {
  RunSpec s = Base("dvp");
  dpadmm::test::Noise(s).alpha = 0.5;
  s.algorithm.node_privacy_budget = {1.0, 2.0, 0.0, 3.0, 1.5};  // node 2: no budget
  s.iterations = 12;
  s.compute_optimum = false;
  Recorder rec;
  const auto r = dpadmm::RunExperiment(s, &rec);
  // Node 2 never freezes, so the run reaches its round limit.
  EXPECT_EQ(r.outcome, dpadmm::RunOutcome::kCompleted);
  EXPECT_EQ(r.node_frozen_round, (std::vector<std::int64_t>{3, 5, -1, 7, 4}));
  const auto& last = rec.rounds.back();
  EXPECT_EQ(last.node_privacy, (std::vector<double>{1.0, 2.0, 6.0, 3.0, 1.5}));
  for (std::size_t t = 0; t < rec.rounds.size(); ++t) {
    const std::vector<double> budget = {1.0, 2.0, 1e9, 3.0, 1.5};
    for (int i = 0; i < 5; ++i) EXPECT_LE(rec.rounds[t].node_privacy[i], budget[i]);
  }
}

TEST(PrivateAdmm, HeterogeneousBudgetsPerNode) {
  RunSpec s = Base("dvp");
  dpadmm::test::Noise(s).node_alpha = {0.1, 0.2, 0.3, 0.4, 0.5};
  s.iterations = 4;
  s.compute_optimum = false;
  Recorder rec;
  (void)dpadmm::RunExperiment(s, &rec);
  const auto& last = rec.rounds.back();
  ASSERT_EQ(last.node_privacy.size(), 5u);
  for (int i = 0; i < 5; ++i) EXPECT_NEAR(last.node_privacy[i], 4 * 0.1 * (i + 1), 1e-12);
  EXPECT_NEAR(last.privacy_loss, 2.0, 1e-12);
}

TEST(PrivateAdmm, PrivateMradmmRejectsATooSmallFirstPenalty) {
  RunSpec s = Base("private_mradmm");
  dpadmm::test::Noise(s).alpha = 1.0;
  s.algorithm.C = 1750;
  s.algorithm.eta = 1e-4;  // 2 c1 = 0.5 > (B/C)(rho/N + 2 eta V) for B ~ 170
  try {
    dpadmm::Experiment e(s);
    FAIL() << "accepted";
  } catch (const dpadmm::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("Algorithm 3"), std::string::npos) << e.what();
  }
}

TEST(PrivateAdmm, PrivateAlgorithmsNeedAlpha) {
  RunSpec s = Base("dvp");
  EXPECT_THROW(s.Validate(), dpadmm::InputError);
  dpadmm::test::Noise(s).alpha = 1;
  EXPECT_NO_THROW(s.Validate());
  s = Base("madmm");
  dpadmm::test::Q1(s) = 0.9;
  EXPECT_THROW(s.Validate(), dpadmm::InputError);
}

TEST(PrivateAdmm, PrivacyRoundIsPerRoundWhateverMetricsEvery) {
  // DVP with a constant alpha adds the same privacy loss every round; measuring only every
  // tenth round must not change what "privacy_round" means (the loss round t added).
  RunSpec s = Base("dvp");
  dpadmm::test::Noise(s).alpha = 0.5;
  s.metrics_every = 10;
  Recorder sparse_metrics;
  (void)dpadmm::RunExperiment(s, &sparse_metrics);
  s.metrics_every = 1;
  Recorder every;
  (void)dpadmm::RunExperiment(s, &every);
  ASSERT_EQ(sparse_metrics.rounds.size(), 5u);  // rounds 0, 10, 20, 30, 40
  for (const RoundMetrics& m : sparse_metrics.rounds) {
    if (m.round == 0) continue;
    EXPECT_EQ(m.privacy_round, every.rounds[static_cast<std::size_t>(m.round)].privacy_round)
        << "round " << m.round;
    EXPECT_GT(m.privacy_round, 0.0);
    EXPECT_LT(m.privacy_round, m.privacy_loss / 5.0) << "round " << m.round;
  }
}
