// SPDX-License-Identifier: Apache-2.0
// Calibration to a total epsilon (tools/calibration.h), the per-round tight epsilon of the
// trace (RoundMetrics::tight_epsilon) and the privacy-utility sweep (tools/sweep.h).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "dpadmm/core/error.h"
#include "dpadmm/privacy/accountant.h"
#include "dpadmm/privacy/accounting.h"
#include "dpadmm/run/run.h"
#include "dpadmm/run/spec_json.h"
#include "dpadmm/tools/calibration.h"
#include "dpadmm/tools/sweep.h"
#include "run/tight_trace.h"
#include "spec_helpers.h"

namespace {

using dpadmm::Algorithm;
using dpadmm::InputError;
using dpadmm::RunSpec;
using dpadmm::RunSummary;
using dpadmm::test::Noise;

RunSpec Small(Algorithm algorithm) {
  RunSpec s = RunSpec::Defaults(algorithm);
  s.data.source = dpadmm::DataSource::kTwonorm;
  s.data.rows = 1200;
  if (dpadmm::FamilyOf(algorithm) == dpadmm::Family::kConsensus) {
    s.graph.nodes = 5;
    s.graph.edges = 7;
    s.engine = dpadmm::runtime::EngineKind::kSerial;
  }
  s.iterations = 30;
  s.seed = 3;
  s.noise_seed = 9;
  return s;
}

// Records every reported round.
class Recorder : public dpadmm::RunObserver {
 public:
  void OnRound(const dpadmm::RoundMetrics& m) override { rounds.push_back(m); }
  std::vector<dpadmm::RoundMetrics> rounds;
};

bool Has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// --- Calibration ------------------------------------------------------------------------------

// The calibrated run's own tight figure (computed from the costs its nodes released, not from
// the plan) hits the target to 1e-3 relative, from below, for every calibrated algorithm.
TEST(Calibration, RunHitsTargetForEveryPrivateConsensusAlgorithm) {
  for (Algorithm a :
       {Algorithm::kDvp, Algorithm::kPvp, Algorithm::kMadmm, Algorithm::kPrivateMradmm}) {
    for (double target : {0.5, 4.0}) {
      RunSpec s = Small(a);
      s.target_epsilon = target;
      // The settings as given, alpha calibrated (the epsilon policy's runs:
      // test_epsilon_policy.cpp).
      s.epsilon_policy = false;
      dpadmm::Experiment exp(s);
      const RunSummary r = exp.Run();
      ASSERT_EQ(r.outcome, dpadmm::RunOutcome::kCompleted) << r.message;
      const std::string what =
          std::string(dpadmm::ChoiceName(a)) + " target " + std::to_string(target);
      EXPECT_NEAR(r.tight_epsilon, target, 1e-3 * target) << what;
      EXPECT_LE(r.tight_epsilon, target * (1 + 1e-12)) << what;
      EXPECT_EQ(r.info.calibrated_knob,
                std::string("algorithm.") + dpadmm::ChoiceName(a) + ".alpha");
      // The plan and the run agree bit for bit: the same terms, the same composition.
      EXPECT_EQ(r.info.calibrated_epsilon, r.tight_epsilon) << what;
      EXPECT_EQ(*exp.spec().algorithm.Field<double>("alpha"), r.info.calibrated_value);
      // The plan's delta is the run's: 1e-5 plus every release's floating-point term.
      EXPECT_EQ(r.info.calibrated_delta, r.tight_delta) << what;
      EXPECT_GT(r.info.calibrated_delta, dpadmm::kTightDelta) << what;
    }
  }
}

// PDML's knob is V (Phase 2's Gaussian primal noise): the run's own figure (its nodes'
// Gaussian releases composed by the Accountant) equals the plan bit for bit and hits the target.
TEST(Calibration, PdmlCalibratesItsPrimalNoise) {
  for (double decay : {1.0, 0.95}) {
    for (double target : {0.5, 4.0}) {
      RunSpec s = Small(Algorithm::kPdml);
      s.algorithm.As<dpadmm::PdmlParams>().V = 0.1;
      s.algorithm.As<dpadmm::PdmlParams>().decay = decay;
      s.algorithm.As<dpadmm::PdmlParams>().label_eps = 1.0;
      s.target_epsilon = target;
      dpadmm::Experiment exp(s);
      const RunSummary r = exp.Run();
      ASSERT_EQ(r.outcome, dpadmm::RunOutcome::kCompleted) << r.message;
      const std::string what =
          "decay " + std::to_string(decay) + " target " + std::to_string(target);
      EXPECT_NEAR(r.tight_epsilon, target, 1e-3 * target) << what;
      EXPECT_LE(r.tight_epsilon, target) << what;
      EXPECT_EQ(r.info.calibrated_knob, "algorithm.pdml.V");
      EXPECT_EQ(r.info.calibrated_epsilon, r.tight_epsilon) << what;
      EXPECT_EQ(exp.spec().algorithm.As<dpadmm::PdmlParams>().V, r.info.calibrated_value);
    }
  }
}

TEST(Calibration, SharingSetsItsTotalEpsilon) {
  RunSpec s = Small(Algorithm::kSharing);
  s.iterations = 5;
  s.algorithm.As<dpadmm::SharingParams>().dp = true;
  s.target_epsilon = 0.7;
  const RunSummary r = dpadmm::RunExperiment(s);
  ASSERT_EQ(r.outcome, dpadmm::RunOutcome::kCompleted) << r.message;
  ASSERT_FALSE(r.info.party_epsilon_total.empty());
  for (double e : r.info.party_epsilon_total) EXPECT_NEAR(e, 0.7, 1e-3 * 0.7);
  EXPECT_EQ(r.info.calibrated_knob, "algorithm.sharing.total_epsilon");
}

TEST(Calibration, LargerTargetGivesLessNoise) {
  double previous = 0.0;
  for (double target : {0.5, 2.0, 10.0}) {
    RunSpec s = Small(Algorithm::kMadmm);
    const dpadmm::CalibrationResult c =
        dpadmm::CalibrateToEpsilon(s, {2, 3, 3, 4, 2}, {168, 168, 168, 168, 168}, target);
    EXPECT_GT(c.value, previous);
    EXPECT_LE(c.epsilon, target);
    EXPECT_GE(c.epsilon, target * (1 - dpadmm::kCalibrationTolerance));
    previous = c.value;
  }
}

TEST(Calibration, PlannedCostsAreThePapersTerms) {
  RunSpec s = Small(Algorithm::kPrivateMradmm);
  Noise(s).alpha = 0.1;
  Noise(s).q2 = 1.1;
  s.iterations = 4;
  const auto costs = dpadmm::PlannedReleaseCosts(s, {2, 3}, {100, 200});
  ASSERT_EQ(costs.size(), 2u);
  ASSERT_EQ(costs[0].size(), 4u);
  // Odd rounds only (003 Algorithm 3), k = 1, 2, eta_i(2k-1) = eta q1^k.
  const double c1 = 0.25, rho = s.algorithm.rho, eta = s.algorithm.eta;
  const double q1 = dpadmm::test::Q1(s);
  EXPECT_EQ(costs[1][0],
            dpadmm::MrAdmmIterationLoss(s.algorithm.C, 200, c1, rho, 2, eta * q1, 3, 0.1));
  EXPECT_EQ(costs[1][1], 0.0);
  EXPECT_EQ(costs[1][2], dpadmm::MrAdmmIterationLoss(s.algorithm.C, 200, c1, rho, 2, eta * q1 * q1,
                                                     3, 0.1 * 1.1));
  EXPECT_EQ(costs[0][3], 0.0);
}

TEST(Calibration, MaxTightEpsilonSkipsOnlyDominatedNodes) {
  const std::vector<std::vector<double>> costs = {{0.1, 0.2}, {0.3, 0.1}, {0.05, 0.1}};
  const double expected =
      std::max(dpadmm::ComposeTight(costs[0], 1e-5), dpadmm::ComposeTight(costs[1], 1e-5));
  EXPECT_EQ(dpadmm::MaxTightEpsilon(costs, 1e-5), expected);
}

TEST(Calibration, UnreachableAndUncalibratableTargetsAreRefused) {
  // M-ADMM's term C (1.4 c1 + alpha) / (eta V B) stays positive as alpha -> 0.
  RunSpec m = Small(Algorithm::kMadmm);
  m.algorithm.eta = 1.0;
  m.iterations = 10;
  try {
    (void)dpadmm::CalibrateToEpsilon(m, {2, 2}, {100, 100}, 0.01);
    ADD_FAILURE() << "an unreachable target was calibrated";
  } catch (const InputError& e) {
    EXPECT_TRUE(Has(e.what(), "out of reach")) << e.what();
    EXPECT_TRUE(Has(e.what(), "madmm")) << e.what();
  }
  // PDML's knob is V: a run without primal noise has nothing to calibrate from.
  RunSpec p = Small(Algorithm::kPdml);
  p.algorithm.As<dpadmm::PdmlParams>().V = 0.0;
  p.target_epsilon = 1.0;
  try {
    p.Validate();
    ADD_FAILURE() << "pdml with target_epsilon and V = 0 validated";
  } catch (const InputError& e) {
    EXPECT_TRUE(Has(e.what(), "algorithm.pdml.V")) << e.what();
  }
  RunSpec admm = Small(Algorithm::kAdmm);
  admm.target_epsilon = 1.0;
  EXPECT_THROW(admm.Validate(), InputError);
  RunSpec per_node = Small(Algorithm::kDvp);
  per_node.target_epsilon = 1.0;
  Noise(per_node).node_alpha.assign(5, 0.1);
  try {
    per_node.Validate();
    ADD_FAILURE() << "node_alpha with target_epsilon validated";
  } catch (const InputError& e) {
    EXPECT_TRUE(Has(e.what(), "algorithm.dvp.node_alpha")) << e.what();
  }
  RunSpec budget = Small(Algorithm::kDvp);
  budget.target_epsilon = 1.0;
  budget.algorithm.privacy_budget = 3.0;
  EXPECT_THROW(budget.Validate(), InputError);
  RunSpec sharing = Small(Algorithm::kSharing);
  sharing.target_epsilon = 1.0;  // dp off
  EXPECT_THROW(sharing.Validate(), InputError);
  RunSpec negative = Small(Algorithm::kDvp);
  negative.target_epsilon = -1.0;
  EXPECT_THROW(negative.Validate(), InputError);
}

TEST(Calibration, JsonFieldRoundTrips) {
  RunSpec s = Small(Algorithm::kPvp);
  dpadmm::ApplySpecJson(R"({"target_epsilon": 2.5})", "test", s);
  EXPECT_EQ(s.target_epsilon, 2.5);
  RunSpec back = RunSpec::Defaults(Algorithm::kPvp);
  dpadmm::ApplySpecJson(dpadmm::SpecToJson(s), "round trip", back);
  EXPECT_EQ(back.target_epsilon, 2.5);
}

// --- The trace's tight epsilon ----------------------------------------------------------------

// Every reported round's figure is ComposeTight of the terms so far (checked against the closed
// form for equal terms), and the last one is the summary's, bit for bit.
TEST(TightTrace, DvpRoundsAreTheOptimalCompositionOfThePrefix) {
  RunSpec s = Small(Algorithm::kDvp);
  Noise(s).alpha = 0.2;
  Recorder rec;
  const RunSummary r = dpadmm::Experiment(s).Run(&rec);
  ASSERT_EQ(r.outcome, dpadmm::RunOutcome::kCompleted) << r.message;
  ASSERT_EQ(rec.rounds.size(), 31u);
  EXPECT_EQ(rec.rounds[0].tight_epsilon, 0.0);
  for (std::int64_t t : {1, 7, 30}) {
    EXPECT_EQ(rec.rounds[t].tight_epsilon,
              std::min(dpadmm::OptimalCompositionEpsilon(0.2, t, 1e-5), 0.2 * t))
        << "round " << t;
  }
  EXPECT_EQ(rec.rounds.back().tight_epsilon, r.tight_epsilon);
  EXPECT_EQ(r.final.tight_epsilon, r.tight_epsilon);
}

TEST(TightTrace, LastRoundEqualsSummaryForUnequalTerms) {
  // M-ADMM with q1 != 1 (unequal terms: the PLD path), private MR-ADMM (zeros in even rounds),
  // and with metrics every 4 rounds (terms of unreported rounds still count).
  for (Algorithm a : {Algorithm::kMadmm, Algorithm::kPrivateMradmm}) {
    for (int every : {1, 4}) {
      RunSpec s = Small(a);
      s.iterations = 14;
      s.metrics_every = every;
      Recorder rec;
      const RunSummary r = dpadmm::Experiment(s).Run(&rec);
      ASSERT_EQ(r.outcome, dpadmm::RunOutcome::kCompleted) << r.message;
      ASSERT_FALSE(rec.rounds.empty());
      EXPECT_EQ(rec.rounds.back().tight_epsilon, r.tight_epsilon)
          << dpadmm::ChoiceName(a) << " every " << every;
      for (std::size_t k = 1; k < rec.rounds.size(); ++k) {
        EXPECT_GE(rec.rounds[k].tight_epsilon, rec.rounds[k - 1].tight_epsilon);
      }
    }
  }
}

TEST(TightTrace, NodeEpsilonIsComposeTightOfTheNodesTermsOrNothing) {
  // Three nodes: 0 and 1 equal for two rounds, then apart; 2 with zeros (released nothing) and
  // equal terms (the closed form). The summary reuses NodeEpsilon, so it must have
  // ComposeTight's bits for the node's costly terms, and nothing for any other list.
  dpadmm::TightTrace trace(3, dpadmm::kTightDelta);
  const std::vector<std::vector<double>> rounds = {
      {0.3, 0.3, 0.0}, {0.2, 0.2, 0.25}, {0.1, 0.4, 0.0}, {0.05, 0.3, 0.25}, {0.2, 0.0, 0.25}};
  std::vector<std::vector<double>> positive(3);
  for (const std::vector<double>& costs : rounds) {
    trace.AddRound(costs);
    for (std::size_t i = 0; i < 3; ++i) {
      if (costs[i] > 0.0) positive[i].push_back(costs[i]);
    }
  }
  (void)trace.MaxEpsilon();  // a query first (cached figures) must not change the answers
  for (std::size_t i = 0; i < 3; ++i) {
    std::vector<double> terms;
    for (const std::vector<double>& costs : rounds) terms.push_back(costs[i]);
    const std::optional<double> e = trace.NodeEpsilon(static_cast<int>(i), positive[i]);
    ASSERT_TRUE(e.has_value()) << "node " << i;
    EXPECT_EQ(*e, dpadmm::ComposeTight(terms, dpadmm::kTightDelta)) << "node " << i;
  }
  EXPECT_GT(*trace.NodeEpsilon(1, positive[1]), *trace.NodeEpsilon(0, positive[0]));
  std::vector<double> other = positive[0];
  other.back() = 0.21;
  EXPECT_FALSE(trace.NodeEpsilon(0, other).has_value());
  EXPECT_FALSE(trace.NodeEpsilon(0, positive[1]).has_value());
  other = positive[2];
  other.pop_back();  // a prefix is not the node's terms
  EXPECT_FALSE(trace.NodeEpsilon(2, other).has_value());
  EXPECT_FALSE(trace.NodeEpsilon(3, positive[0]).has_value());
  EXPECT_FALSE(trace.NodeEpsilon(-1, positive[0]).has_value());
}

TEST(TightTrace, SummaryIsComposeTightOfThePlannedTerms) {
  // The summary's figure (reused from the per-round column) against ComposeTight of the terms
  // planned from public values alone (calibration.h), node by node, to the bit: M-ADMM with
  // unequal terms (the PLD path) and private MR-ADMM (zeros in even rounds).
  for (Algorithm a : {Algorithm::kMadmm, Algorithm::kPrivateMradmm}) {
    RunSpec s = Small(a);
    s.iterations = 12;
    const dpadmm::Experiment experiment(s);
    const RunSummary r = experiment.Run();
    ASSERT_EQ(r.outcome, dpadmm::RunOutcome::kCompleted) << r.message;
    std::vector<int> degrees;
    for (int i = 0; i < experiment.graph().num_nodes(); ++i)
      degrees.push_back(experiment.graph().degree(i));
    const auto costs = dpadmm::PlannedReleaseCosts(s, degrees, r.info.rows_per_node);
    ASSERT_EQ(costs.size(), r.node_tight_epsilon.size());
    double max = 0.0;
    for (std::size_t i = 0; i < costs.size(); ++i) {
      const double expected = dpadmm::ComposeTight(costs[i], dpadmm::kTightDelta);
      EXPECT_EQ(r.node_tight_epsilon[i], expected) << dpadmm::ChoiceName(a) << " node " << i;
      max = std::max(max, expected);
    }
    EXPECT_EQ(r.tight_epsilon, max) << dpadmm::ChoiceName(a);
  }
}

TEST(TightTrace, FrozenNodesStopSpending) {
  // A budget freezes the nodes: the trace's last figure is still the summary's.
  RunSpec s = Small(Algorithm::kDvp);
  Noise(s).alpha = 0.5;
  Noise(s).q2 = 1.05;
  s.algorithm.privacy_budget = 4.0;
  Recorder rec;
  const RunSummary r = dpadmm::Experiment(s).Run(&rec);
  ASSERT_EQ(r.outcome, dpadmm::RunOutcome::kBudgetExhausted) << r.message;
  EXPECT_EQ(rec.rounds.back().tight_epsilon, r.tight_epsilon);
}

TEST(TightTrace, ColumnInTraceFormatsAndNanWithoutPrivacy) {
  EXPECT_TRUE(Has(dpadmm::MetricsCsvHeader(dpadmm::Family::kConsensus), "tight_epsilon"));
  EXPECT_FALSE(Has(dpadmm::MetricsCsvHeader(dpadmm::Family::kSharing), "tight_epsilon"));
  RunSpec s = Small(Algorithm::kAdmm);
  s.iterations = 3;
  const RunSummary r = dpadmm::RunExperiment(s);
  EXPECT_TRUE(std::isnan(r.final.tight_epsilon));
  EXPECT_TRUE(Has(dpadmm::MetricsToJsonLine(r.final), "\"tight_epsilon\":null"));
}

// --- Sweep ------------------------------------------------------------------------------------

dpadmm::SweepOptions TinySweep() {
  dpadmm::SweepOptions o;
  o.base = RunSpec{};
  o.base.data.rows = 400;
  o.base.graph.nodes = 4;
  o.base.graph.edges = 5;
  o.base.iterations = 15;
  o.base.seed = 11;
  o.base.engine = dpadmm::runtime::EngineKind::kSerial;
  o.algorithms = {Algorithm::kDvp, Algorithm::kMadmm};
  o.epsilons = {0.3, 3.0};
  o.seeds = 2;
  return o;
}

TEST(Sweep, CsvHasOneRowPerCellAndReferenceLine) {
  const dpadmm::SweepOptions o = TinySweep();
  int calls = 0, last_total = 0;
  const dpadmm::SweepResult r = dpadmm::RunSweep(o, [&](int done, int total, const std::string&) {
    ++calls;
    EXPECT_EQ(done, calls);
    last_total = total;
  });
  EXPECT_EQ(calls, 2 * (2 * 2 + 1));
  EXPECT_EQ(last_total, calls);
  ASSERT_EQ(r.cells.size(), 4u);
  for (const dpadmm::SweepCell& c : r.cells) {
    EXPECT_EQ(c.accuracy.values.size(), 2u);
    EXPECT_EQ(c.knob_values.size(), 2u);
    for (double e : c.achieved_epsilon) {
      EXPECT_LE(e, c.epsilon);
      EXPECT_GE(e, c.epsilon * (1 - 1e-3));
    }
    EXPECT_LE(c.accuracy.low, c.accuracy.mean);
    EXPECT_GE(c.accuracy.high, c.accuracy.mean);
  }
  EXPECT_EQ(r.admm.values.size(), 2u);
  EXPECT_EQ(r.centralized.values.size(), 2u);
  EXPECT_GT(r.centralized.mean, r.majority.mean);
  EXPECT_FALSE(r.cancelled);

  const std::string csv = dpadmm::SweepToCsv(r);
  std::istringstream in(csv);
  std::string line;
  std::vector<std::string> rows;
  while (std::getline(in, line)) {
    if (!line.empty() && line[0] != '#') rows.push_back(line);
  }
  ASSERT_EQ(rows.size(), 1u + 4u + 3u);
  EXPECT_EQ(rows[0].rfind("algorithm,epsilon,delta,seeds,accuracy_mean", 0), 0u);
  // The delta column: 1e-5 plus the l2-Laplace sampler's floating-point term.
  EXPECT_EQ(rows[1].rfind("dvp,0.3,", 0), 0u) << rows[1];
  const double delta = std::stod(rows[1].substr(std::string("dvp,0.3,").size()));
  EXPECT_GT(delta, 1e-5) << rows[1];
  EXPECT_LT(delta, 1e-4) << rows[1];
  EXPECT_EQ(rows[4].rfind("madmm,3,", 0), 0u) << rows[4];
  EXPECT_EQ(rows[5].rfind("admm (non-private),,", 0), 0u) << rows[5];
  EXPECT_EQ(rows[7].rfind("majority,,", 0), 0u) << rows[7];
  for (const std::string& row : rows) {
    EXPECT_EQ(std::count(row.begin(), row.end(), ','), 10) << row;
  }
  EXPECT_TRUE(Has(csv, "simulation"));
}

TEST(Sweep, IsReproducibleAndCancellable) {
  dpadmm::SweepOptions o = TinySweep();
  o.algorithms = {Algorithm::kPvp};
  o.epsilons = {1.0};
  const dpadmm::SweepResult a = dpadmm::RunSweep(o);
  const dpadmm::SweepResult b = dpadmm::RunSweep(o);
  EXPECT_EQ(a.cells[0].accuracy.values, b.cells[0].accuracy.values);
  dpadmm::runtime::StopToken stop;
  stop.RequestStop();
  const dpadmm::SweepResult c = dpadmm::RunSweep(o, {}, &stop);
  EXPECT_TRUE(c.cancelled);
  EXPECT_TRUE(c.cells[0].accuracy.values.empty());
}

TEST(Sweep, MoreEpsilonLearnsMoreOnEasyData) {
  // Twonorm with DVP: at epsilon 10 the noise is 100x smaller than at 0.1; over 3 seeds the
  // mean accuracy must not drop (it rises by tens of points in practice).
  dpadmm::SweepOptions o = TinySweep();
  o.base.data.rows = 1500;
  o.base.iterations = 30;
  o.algorithms = {Algorithm::kDvp};
  o.epsilons = {0.1, 10.0};
  o.seeds = 3;
  o.reference_lines = false;
  const dpadmm::SweepResult r = dpadmm::RunSweep(o);
  ASSERT_EQ(r.cells.size(), 2u);
  EXPECT_GE(r.cells[1].accuracy.mean, r.cells[0].accuracy.mean);
  EXPECT_GT(r.cells[1].accuracy.mean, 0.8);
}

TEST(Sweep, InvalidOptionsAreRefused) {
  dpadmm::SweepOptions o = TinySweep();
  o.algorithms = {Algorithm::kAdmm};
  EXPECT_THROW(o.Validate(), InputError);
  o = TinySweep();
  o.epsilons = {0.0};
  EXPECT_THROW(o.Validate(), InputError);
  o = TinySweep();
  o.seeds = 0;
  EXPECT_THROW(o.Validate(), InputError);
  o = TinySweep();
  o.delta = 1.0;
  EXPECT_THROW(o.Validate(), InputError);
}

TEST(Sweep, SummarizeGivesTheTInterval) {
  const dpadmm::SweepStat s = dpadmm::Summarize({0.5, 0.6, 0.7});
  EXPECT_NEAR(s.mean, 0.6, 1e-12);
  // sd 0.1, t_{0.975, 2} = 4.3027: half width 4.3027 * 0.1 / sqrt(3).
  EXPECT_NEAR(s.high - s.mean, 4.3027 * 0.1 / std::sqrt(3.0), 1e-9);
  EXPECT_NEAR(s.mean - s.low, 4.3027 * 0.1 / std::sqrt(3.0), 1e-9);
  const dpadmm::SweepStat one = dpadmm::Summarize({0.9});
  EXPECT_EQ(one.mean, 0.9);
  EXPECT_TRUE(std::isnan(one.low));
  const dpadmm::SweepStat clipped = dpadmm::Summarize({0.99, 1.0, 0.9});
  EXPECT_LE(clipped.high, 1.0);
}

}  // namespace
