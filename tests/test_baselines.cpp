// SPDX-License-Identifier: Apache-2.0
// The baselines local, average and central (consensus/baseline_nodes.h) and their mechanisms
// (privacy/baseline_mechanisms.h).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <memory>
#include <numeric>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "consensus/baseline_nodes.h"
#include "dpadmm/core/error.h"
#include "dpadmm/data/generators.h"
#include "dpadmm/data/preprocessing.h"
#include "dpadmm/graph/graph.h"
#include "dpadmm/persistence/model.h"
#include "dpadmm/privacy/accountant.h"
#include "dpadmm/privacy/accounting.h"
#include "dpadmm/privacy/baseline_mechanisms.h"
#include "dpadmm/privacy/samplers.h"
#include "dpadmm/run/run.h"
#include "dpadmm/runtime/engine.h"
#include "dpadmm/tools/sweep.h"
#include "run_recorder.h"

namespace {

using dpadmm::Algorithm;
using dpadmm::BaselineMechanism;
using dpadmm::ConsensusNodeParams;
using dpadmm::ConsensusVariant;
using dpadmm::Dataset;
using dpadmm::RunSpec;

// Rows of norm <= 1, as every private run prepares them.
Dataset Rows(std::int64_t rows, std::int64_t dims, std::uint64_t seed) {
  Dataset d = dpadmm::GenerateTwonorm(rows, seed, dims);
  Dataset none;
  dpadmm::NormalizeRows(d, none);
  return d;
}

ConsensusNodeParams Params(ConsensusVariant variant, double epsilon, std::uint64_t noise_seed) {
  ConsensusNodeParams p;
  p.variant = variant;
  p.C = 20.0;
  p.rho_node = 0.5;
  p.num_nodes = 1;
  p.epsilon = epsilon;
  p.delta = 1e-5;
  p.noise_seed = noise_seed;
  return p;
}

// One node stepped by hand: round 0, then rounds 1..last with the given inbox.
std::vector<std::vector<double>> StepNode(dpadmm::ConsensusNode& node, std::int64_t last,
                                          const dpadmm::runtime::Inbox& in) {
  dpadmm::runtime::Outbox out(node.MaxMessageSize());
  std::vector<std::vector<double>> sent;
  EXPECT_TRUE(node.Start(out).ok);
  for (std::int64_t r = 1; r <= last; ++r) {
    const dpadmm::runtime::StepResult s = node.Step(r, in, out);
    EXPECT_TRUE(s.ok) << s.error;
    sent.emplace_back(out.message().begin(), out.message().end());
  }
  return sent;
}

RunSpec Spec(const char* algorithm) {
  RunSpec s = RunSpec::Defaults(dpadmm::ParseChoice<Algorithm>(algorithm, "algorithm"));
  s.data.rows = 600;
  s.data.dims = 5;
  s.graph.nodes = 5;
  s.algorithm.C = 20.0;
  s.algorithm.rho = 1.0;
  s.iterations = 6;
  s.noise_seed = 5;
  s.seed = 3;
  return s;
}

}  // namespace

// --- The mechanisms ---------------------------------------------------------------------------

TEST(BaselineMechanisms, ObjectivePerturbationFirstBranch) {
  // Lambda = rho_i / C = 8, B = 8, c = 1: eps' = eps - 2 log(1 + 1/64) > 0, no extra penalty.
  const auto p = dpadmm::ObjectivePerturbationFor(1.0, 1.0, 8.0, 1.0, 8.0);
  EXPECT_FALSE(p.second_branch);
  EXPECT_EQ(p.extra_penalty, 0.0);
  EXPECT_NEAR(p.epsilon_prime, 1.0 - std::log(1.0 + 2.0 / 64 + 1.0 / (64.0 * 64.0)), 1e-15);
  EXPECT_DOUBLE_EQ(p.noise, p.epsilon_prime / 2.0);
}

TEST(BaselineMechanisms, ObjectivePerturbationSecondBranchSpendsHalfOnTheJacobian) {
  // The default data's node: C 1750, B 518, rho_i 0.022, logistic c = 1/4: 2 log(1 + cC/(B rho))
  // is about 7.3 > eps, so Delta > 0 and eps' = eps / 2.
  const double eps = 1.0, C = 1750.0, B = 518.0, c = 0.25, rho = 0.022;
  const auto p = dpadmm::ObjectivePerturbationFor(eps, C, B, c, rho);
  EXPECT_TRUE(p.second_branch);
  EXPECT_DOUBLE_EQ(p.epsilon_prime, eps / 2.0);
  EXPECT_DOUBLE_EQ(p.noise, eps / 4.0);
  // C Delta = c C / (B (e^{eps/4} - 1)) - rho, and with it the Jacobian term is exactly eps/2.
  EXPECT_NEAR(p.extra_penalty, c * C / (B * std::expm1(eps / 4.0)) - rho, 1e-12);
  const double lambda_total = (rho + p.extra_penalty) / C;
  EXPECT_NEAR(2.0 * std::log1p(c / (B * lambda_total)), eps / 2.0, 1e-12);
  EXPECT_THROW((void)dpadmm::ObjectivePerturbationFor(0.0, C, B, c, rho), dpadmm::InputError);
  EXPECT_THROW((void)dpadmm::ObjectivePerturbationFor(eps, C, B, c, 0.0), dpadmm::InputError);
}

// Between the paper's two branches: the first would leave 0 < eps' < eps / 2 (here 0.034 at
// eps = 2: one row, rho_i 0.15, a Dirichlet split's smallest node under the epsilon policy),
// whose noise scale is 29 times the second branch's. The second branch is taken: eps' = eps / 2
// and the Jacobian term takes the other half.
TEST(BaselineMechanisms, ObjectivePerturbationNeverLeavesTheNoiseLessThanHalf) {
  const double eps = 2.0, C = 1.0, B = 1.0, c = 0.25, rho = 0.15;
  const double first = eps - 2.0 * std::log1p(c * C / (B * rho));
  ASSERT_GT(first, 0.0);
  ASSERT_LT(first, 0.1 * eps);
  const auto p = dpadmm::ObjectivePerturbationFor(eps, C, B, c, rho);
  EXPECT_TRUE(p.second_branch);
  EXPECT_DOUBLE_EQ(p.epsilon_prime, eps / 2.0);
  EXPECT_GT(p.extra_penalty, 0.0);
  EXPECT_NEAR(2.0 * std::log1p(c / (B * (rho + p.extra_penalty) / C)), eps / 2.0, 1e-12);
  // Over a grid: the noise's share is at least eps / 2, and the two terms add up to eps.
  for (double e : {0.1, 0.5, 1.0, 2.0, 5.0, 10.0}) {
    for (double b : {1.0, 3.0, 40.0, 3000.0}) {
      for (double r : {1e-4, 1e-2, 0.15, 1.0}) {
        SCOPED_TRACE(::testing::Message() << "eps " << e << " B " << b << " rho " << r);
        const auto q = dpadmm::ObjectivePerturbationFor(e, C, b, c, r);
        EXPECT_GE(q.epsilon_prime, e / 2.0);
        EXPECT_GE(q.extra_penalty, 0.0);
        const double jacobian = 2.0 * std::log1p(c * C / (b * (r + q.extra_penalty)));
        EXPECT_NEAR(q.epsilon_prime + jacobian, e, 1e-12 * e);
        EXPECT_EQ(q.second_branch, e - 2.0 * std::log1p(c * C / (b * r)) < e / 2.0);
      }
    }
  }
}

TEST(BaselineMechanisms, AnalyticGaussianSigmaIsTheSmallestThatMeetsDelta) {
  for (double eps : {0.1, 1.0, 5.0}) {
    for (double delta : {1e-5, 1e-9}) {
      const double sigma = dpadmm::AnalyticGaussianSigma(0.3, eps, delta);
      EXPECT_LE(dpadmm::AnalyticGaussianDelta(0.3, sigma, eps), delta);
      // 1e-9 smaller already misses delta (the bisection keeps 1e-13 relative).
      EXPECT_GT(dpadmm::AnalyticGaussianDelta(0.3, sigma * (1.0 - 1e-9), eps), delta);
      EXPECT_NEAR(dpadmm::AnalyticGaussianEpsilon(0.3, sigma, delta), eps, 1e-7 * eps);
    }
  }
}

TEST(BaselineMechanisms, GaussianOutputPerturbationAddsTheLatticeTerm) {
  // A small sigma (fine lattice) and a large one (sigma > 2^9: a coarser lattice step).
  for (const auto& [C, B, rho] : {std::tuple{20.0, 100.0, 0.5}, std::tuple{1e4, 1.0, 1e-3}}) {
    const std::int64_t d = 7;
    const auto g = dpadmm::GaussianOutputPerturbationFor(1.0, 1e-5, C, B, rho, d);
    EXPECT_EQ(g.step, dpadmm::GaussianGridStep(g.sigma));
    EXPECT_DOUBLE_EQ(g.sensitivity, 2.0 * C / (B * rho) + dpadmm::GridSensitivityL2(d, g.step));
    EXPECT_LE(dpadmm::AnalyticGaussianDelta(g.sensitivity, g.sigma, 1.0), 1e-5);
  }
  EXPECT_GT(dpadmm::GaussianOutputPerturbationFor(1.0, 1e-5, 1e4, 1.0, 1e-3, 7).step,
            dpadmm::kGridStep);
}

// The noise's scale against the formula. Objective: ||b|| ~ Gamma(d, 1/a), a = eps'/2: mean
// d/a, sd sqrt(d)/a. Over n = 400 nodes (fixed seeds) the mean's sd is sqrt(d)/(a sqrt(n)); a
// 5 sd band fails with probability about 6e-7 for a correct sampler, and a noise drawn at a
// = eps' (the factor 2 forgotten) is off by 10 sd. Gaussian: the lattice noise's per-coordinate
// second moment is sigma_used^2 = ceil((sigma/s)^2) s^2 >= sigma^2; over n d values its mean has
// sd sigma^2 sqrt(2 / (n d)), same band.
TEST(BaselineMechanisms, NoiseScaleMatchesTheFormula) {
  const Dataset data = Rows(60, 5, 2);
  const std::int64_t d = data.cols();
  constexpr int kRuns = 400;
  const dpadmm::runtime::Inbox none(0);
  {
    // Params: C 20, rho_i 0.5, B 60, logistic c = 1/4: the first branch, a = eps'/2 with
    // eps' = 1 - 2 log(1 + c C / (B rho_i)).
    const double a = (1.0 - 2.0 * std::log1p(0.25 * 20.0 / (60.0 * 0.5))) / 2.0;
    double sum = 0.0;
    for (int k = 0; k < kRuns; ++k) {
      const auto p = Params(ConsensusVariant::kLocal, 1.0, 1000 + k);
      dpadmm::LocalNode node(0, data, 0, dpadmm::Loss{}, {}, p, Eigen::VectorXd::Zero(d));
      (void)StepNode(node, 1, none);
      EXPECT_NEAR(node.objective().noise, a, 1e-15);
      sum += node.noise().norm();
    }
    const double mean = sum / kRuns, expected = static_cast<double>(d) / a;
    EXPECT_NEAR(mean, expected, 5.0 * std::sqrt(static_cast<double>(d)) / a / std::sqrt(kRuns));
  }
  {
    double sum = 0.0, sigma = 0.0, step = 0.0;
    for (int k = 0; k < kRuns; ++k) {
      auto p = Params(ConsensusVariant::kLocal, 1.0, 5000 + k);
      p.mechanism = BaselineMechanism::kGaussian;
      dpadmm::LocalNode node(0, data, 0, dpadmm::Loss{}, {}, p, Eigen::VectorXd::Zero(d));
      (void)StepNode(node, 1, none);
      sigma = node.gaussian().sigma;
      step = node.gaussian().step;
      sum += node.noise().squaredNorm();
    }
    const double n = static_cast<double>(kRuns) * static_cast<double>(d);
    const double used = std::ceil((sigma / step) * (sigma / step)) * step * step;
    EXPECT_NEAR(sum / n, used, 5.0 * used * std::sqrt(2.0 / n));
  }
}

// --- The node programs ------------------------------------------------------------------------

// local never reads a neighbour's message: two different inboxes (one of NaNs) give the same
// bits; it releases once (round 1), resends it bit for bit, and spends epsilon once.
TEST(BaselineNodes, LocalNeverListensReleasesOnceAndCostsEpsilonOnce) {
  const Dataset data = Rows(80, 4, 7);
  const std::int64_t d = data.cols();
  for (BaselineMechanism mechanism :
       {BaselineMechanism::kObjective, BaselineMechanism::kGaussian}) {
    auto p = Params(ConsensusVariant::kLocal, 0.8, 21);
    p.mechanism = mechanism;
    const std::vector<double> nan(static_cast<std::size_t>(d),
                                  std::numeric_limits<double>::quiet_NaN());
    const std::vector<double> ones(static_cast<std::size_t>(d), 1.0);
    dpadmm::runtime::Inbox a(2), b(2);
    a.Set(0, nan);
    a.Set(1, nan);
    b.Set(0, ones);
    b.Set(1, ones);
    dpadmm::LocalNode x(0, data, 2, dpadmm::Loss{}, {}, p, Eigen::VectorXd::Zero(d));
    dpadmm::LocalNode y(0, data, 2, dpadmm::Loss{}, {}, p, Eigen::VectorXd::Zero(d));
    const auto sent_x = StepNode(x, 5, a);
    const auto sent_y = StepNode(y, 5, b);
    EXPECT_EQ(sent_x, sent_y);
    for (const auto& m : sent_x) {
      for (double v : m) EXPECT_TRUE(std::isfinite(v));
      EXPECT_EQ(m, sent_x.front());  // rounds 2.. resend round 1's release
    }
    EXPECT_EQ(x.release().draws(), 1);
    EXPECT_EQ(x.release().releases(), 2);  // f(0) and round 1
    EXPECT_EQ(x.release().spent(), 0.8);
    ASSERT_EQ(x.released_mechanisms().size(), 1u);
    EXPECT_EQ(x.released_mechanisms()[0],
              dpadmm::BaselineRelease(p, static_cast<double>(data.rows()), d, dpadmm::Loss{}));
    if (mechanism == BaselineMechanism::kObjective) {
      // One snapped release: its floating-point delta, once.
      EXPECT_EQ(x.release().spent_delta(), dpadmm::SnappedReleaseDelta(0.8, d));
    } else {
      EXPECT_EQ(x.release().spent_delta(), 0.0);
    }
  }
}

TEST(BaselineNodes, PostProcessedSendRefusesACostlyRound) {
  dpadmm::Release release(dpadmm::NoiseKey::Make(std::uint64_t{1}, 0), 0);  // simulation key
  dpadmm::runtime::Outbox out(2);
  release.SendInitial(Eigen::VectorXd::Zero(2), out);
  ASSERT_TRUE(release.Open(1, 0.5));
  EXPECT_THROW(release.SendPostProcessed(Eigen::VectorXd::Ones(2), out), std::logic_error);
}

// average nodes on `graph` (one per part of `part`, gossip scales `scale` when not empty) run
// serially for `rounds` rounds; every round's models as (node, coordinate).
struct AverageRun {
  std::vector<Dataset> slices;
  std::vector<std::unique_ptr<dpadmm::ConsensusNode>> nodes;
  std::vector<Eigen::MatrixXd> rounds;  // [round](node, coordinate)
};
AverageRun RunAverage(const dpadmm::Graph& graph, const Dataset& data,
                      const dpadmm::Partition& part, const std::vector<double>& scale,
                      std::int64_t rounds) {
  AverageRun run;
  const int n = graph.num_nodes();
  std::vector<dpadmm::runtime::NodeProgram*> programs;
  for (int i = 0; i < n; ++i) run.slices.push_back(data.Subset(part[i]));
  for (int i = 0; i < n; ++i) {
    auto p = Params(ConsensusVariant::kAverage, 1.0, 33);
    p.num_nodes = n;
    if (!scale.empty()) p.gossip_scale = scale[i];
    for (int j : graph.neighbors(i)) {
      p.neighbour_degrees.push_back(graph.degree(j));
      if (!scale.empty()) p.neighbour_gossip_scales.push_back(scale[j]);
    }
    run.nodes.push_back(dpadmm::MakeConsensusNode(i, run.slices[i], graph.degree(i), dpadmm::Loss{},
                                                  {}, p, Eigen::VectorXd::Zero(data.cols())));
    programs.push_back(run.nodes.back().get());
  }
  struct Models : dpadmm::runtime::RoundSink {
    std::int64_t d = 0;
    std::vector<Eigen::MatrixXd>* rounds = nullptr;
    bool OnRound(std::int64_t, const dpadmm::runtime::ReportTable& t) override {
      Eigen::MatrixXd m(t.nodes(), d);
      for (int i = 0; i < t.nodes(); ++i)
        for (std::int64_t k = 0; k < d; ++k) m(i, k) = t[i][static_cast<std::size_t>(k)];
      rounds->push_back(m);
      return true;
    }
  } sink;
  sink.d = data.cols();
  sink.rounds = &run.rounds;
  dpadmm::runtime::Topology topology;
  topology.neighbors = graph.adjacency();
  dpadmm::runtime::EngineOptions o;
  o.kind = dpadmm::runtime::EngineKind::kSerial;
  o.last_round = rounds;
  EXPECT_EQ(dpadmm::runtime::Run(programs, topology, o, sink).outcome,
            dpadmm::runtime::EngineOutcome::kCompleted);
  return run;
}

// average: round 1 is local's release; rounds 2.. cost nothing and converge to the exact mean
// of the round-1 releases.
TEST(BaselineNodes, AverageConvergesToTheMeanOfTheReleasesAtNoCost) {
  const dpadmm::Graph graph(6, {{0, 1}, {1, 2}, {2, 3}, {3, 4}, {4, 5}, {5, 0}, {0, 3}});
  const Dataset data = Rows(360, 4, 9);
  const dpadmm::Partition part = dpadmm::PartitionEven(data.rows(), 6, 9);
  constexpr std::int64_t kRounds = 200;
  const AverageRun run = RunAverage(graph, data, part, {}, kRounds);
  const auto& nodes = run.nodes;
  ASSERT_EQ(run.rounds.size(), static_cast<std::size_t>(kRounds + 1));
  const Eigen::RowVectorXd mean = run.rounds[1].colwise().mean();  // the round-1 releases
  const double scale = run.rounds[1].cwiseAbs().maxCoeff();
  // Each gossip step adds at most (V + 2) rounding errors of 2^-53 scale per coordinate and
  // node; over the rounds and nodes that bounds the drift of the mean.
  const double drift = kRounds * 6 * (3 + 2) * std::ldexp(1.0, -52) * scale;
  // The MH matrix's second eigenvalue on this graph is below 0.9: after 200 rounds the
  // disagreement is below 0.9^199 (< 1e-9) of the initial spread, far below 1e-9 scale.
  for (int i = 0; i < 6; ++i) {
    EXPECT_LE((run.rounds.back().row(i) - mean).cwiseAbs().maxCoeff(), drift + 1e-9 * scale)
        << "node " << i;
    EXPECT_EQ(nodes[i]->release().spent(), 1.0);  // round 1's epsilon only
    EXPECT_EQ(nodes[i]->released_mechanisms().size(), 1u);
  }
  EXPECT_LE((run.rounds.back().colwise().mean() - mean).cwiseAbs().maxCoeff(), drift);
  // Round 2 already moved (the gossip ran), and the average's releases are not round 1's.
  EXPECT_GT((run.rounds[2] - run.rounds[1]).cwiseAbs().maxCoeff(), 0.0);
}

// Row weighting: the gossip starts from (B_i / B_bar) x_i, so its mean is the rows-weighted mean
// of the round-1 releases from round 2 on and every node converges to it.
TEST(BaselineNodes, RowWeightedAverageConvergesToTheRowsWeightedMean) {
  const dpadmm::Graph graph(6, {{0, 1}, {1, 2}, {2, 3}, {3, 4}, {4, 5}, {5, 0}, {0, 3}});
  const Dataset data = Rows(360, 4, 9);
  const dpadmm::Partition part =
      dpadmm::PartitionProportional(data.rows(), {1.0, 2.0, 3.0, 5.0, 8.0, 21.0}, 9);
  std::vector<double> scale(6);
  for (int i = 0; i < 6; ++i) {
    scale[i] = static_cast<double>(part[i].size()) * 6.0 / static_cast<double>(data.rows());
  }
  ASSERT_GT(scale[5] / scale[0], 10.0);  // uneven: a plain mean would be far off
  constexpr std::int64_t kRounds = 200;
  const AverageRun run = RunAverage(graph, data, part, scale, kRounds);
  const auto& nodes = run.nodes;
  const auto& slices = run.slices;
  ASSERT_EQ(run.rounds.size(), static_cast<std::size_t>(kRounds + 1));
  // sum_i B_i x_i / sum_i B_i of the round-1 releases.
  Eigen::RowVectorXd weighted = Eigen::RowVectorXd::Zero(data.cols());
  for (int i = 0; i < 6; ++i) weighted += (scale[i] / 6.0) * run.rounds[1].row(i);
  const double spread = (run.rounds[1].rowwise() - weighted).cwiseAbs().maxCoeff();
  const double top = run.rounds[1].cwiseAbs().maxCoeff() * scale[5];
  // As above: (V + 2) rounding errors per gossip step, coordinate and node (z_i <= 6 max |x|).
  const double drift = kRounds * 6 * (3 + 2) * std::ldexp(1.0, -52) * top;
  // The plain mean of these releases is not the weighted one (else the test shows nothing).
  ASSERT_GT((run.rounds[1].colwise().mean() - weighted).cwiseAbs().maxCoeff(), 1e-3 * spread);
  EXPECT_LE((run.rounds[2].colwise().mean() - weighted).cwiseAbs().maxCoeff(), drift);
  EXPECT_LE((run.rounds.back().colwise().mean() - weighted).cwiseAbs().maxCoeff(), drift);
  for (int i = 0; i < 6; ++i) {
    EXPECT_LE((run.rounds.back().row(i) - weighted).cwiseAbs().maxCoeff(), drift + 1e-9 * top)
        << "node " << i;
    EXPECT_EQ(nodes[i]->release().spent(), 1.0);  // round 1's epsilon only: post-processing
  }
  // A scale list that does not match the neighbours is refused.
  auto bad = Params(ConsensusVariant::kAverage, 1.0, 33);
  bad.neighbour_degrees = {2, 3};
  bad.neighbour_gossip_scales = {1.0};
  EXPECT_THROW(dpadmm::MakeConsensusNode(0, slices[0], 2, dpadmm::Loss{}, {}, bad,
                                         Eigen::VectorXd::Zero(data.cols())),
               dpadmm::InputError);
}

// --- Runs -------------------------------------------------------------------------------------

// central = local on a one-node graph holding every training row (in order), with the parties'
// rho_i: the same bits.
TEST(BaselineRuns, CentralIsLocalOnOneNodeWithEveryRow) {
  for (const char* mechanism : {"objective", "gaussian"}) {
    RunSpec s = Spec("central");
    *s.algorithm.Field<std::string>("mechanism") = mechanism;
    s.engine = dpadmm::runtime::EngineKind::kSerial;
    const dpadmm::Experiment e(s);
    const dpadmm::RunSummary r = e.Run();
    ASSERT_EQ(r.outcome, dpadmm::RunOutcome::kCompleted) << r.message;
    EXPECT_EQ(r.info.nodes, 1);
    EXPECT_TRUE(r.info.trusted_curator);
    EXPECT_NE(r.info.baseline.find("trust"), std::string::npos);
    ASSERT_EQ(r.info.rows_per_node.size(), 1u);
    EXPECT_EQ(r.info.rows_per_node[0], e.train().rows());

    auto p = Params(ConsensusVariant::kLocal, 1.0, 5);
    p.C = s.algorithm.C;
    p.rho_node = s.algorithm.rho / s.graph.nodes;  // the parties' rho_i
    p.mechanism = std::string(mechanism) == "gaussian" ? BaselineMechanism::kGaussian
                                                       : BaselineMechanism::kObjective;
    dpadmm::NewtonOptions newton = s.newton;
    newton.borrow_rows = false;
    dpadmm::LocalNode alone(0, e.train(), 0, s.loss, newton, p,
                            Eigen::VectorXd::Zero(e.train().cols()));
    const auto sent = StepNode(alone, s.iterations, dpadmm::runtime::Inbox(0));
    ASSERT_EQ(r.model.size(), e.train().cols());
    for (Eigen::Index k = 0; k < r.model.size(); ++k) {
      EXPECT_EQ(r.model[k], sent.back()[static_cast<std::size_t>(k)]) << mechanism << " " << k;
    }
  }
}

TEST(BaselineRuns, SameBitsOnEveryEngineAndThreadCount) {
  for (const char* name : {"local", "average", "central"}) {
    for (const char* mechanism : {"objective", "gaussian"}) {
      RunSpec s = Spec(name);
      *s.algorithm.Field<std::string>("mechanism") = mechanism;
      const dpadmm::Experiment e(s);
      dpadmm::test::RunRecorder serial, one, two;
      const auto a = e.RunOn(dpadmm::runtime::EngineKind::kSerial, 1, &serial);
      const auto b = e.RunOn(dpadmm::runtime::EngineKind::kTbb, 1, &one);
      const auto c = e.RunOn(dpadmm::runtime::EngineKind::kTbb, 2, &two);
      ASSERT_EQ(a.outcome, dpadmm::RunOutcome::kCompleted) << name << ": " << a.message;
      dpadmm::test::ExpectSameBits(serial.rounds, one.rounds);
      dpadmm::test::ExpectSameBits(serial.rounds, two.rounds);
      EXPECT_EQ(a.model, b.model);
      EXPECT_EQ(a.model, c.model);
      EXPECT_TRUE(dpadmm::test::SameBits(a.tight_epsilon, c.tight_epsilon));
    }
  }
}

// The tight figure is the mechanism's: pure epsilon (a hair below it at delta 1e-5), or the
// analytic Gaussian of the one release; the trace's last row carries the summary's bits.
TEST(BaselineRuns, TightFigureIsTheMechanismsEpsilon) {
  {
    RunSpec s = Spec("local");
    *s.algorithm.Field<double>("epsilon") = 0.7;
    dpadmm::test::RunRecorder rec;
    const auto r = dpadmm::RunExperiment(s, &rec);
    EXPECT_EQ(r.tight_epsilon, dpadmm::ComposeTight({0.7}, dpadmm::kTightDelta));
    EXPECT_LE(r.tight_epsilon, 0.7);
    EXPECT_GE(r.tight_epsilon, 0.7 - 1e-4);
    EXPECT_EQ(r.final.privacy_loss, 0.7);
    EXPECT_EQ(rec.rounds.front().tight_epsilon, 0.0);  // round 0 released nothing private
    EXPECT_TRUE(dpadmm::test::SameBits(rec.rounds.back().tight_epsilon, r.tight_epsilon));
    // The sampler's delta of the one snapped release.
    EXPECT_EQ(r.sampler_delta, dpadmm::SnappedReleaseDelta(0.7, r.info.features));
  }
  {
    RunSpec s = Spec("average");
    *s.algorithm.Field<std::string>("mechanism") = "gaussian";
    *s.algorithm.Field<double>("epsilon") = 0.7;
    dpadmm::test::RunRecorder rec;
    const auto r = dpadmm::RunExperiment(s, &rec);
    double expected = 0.0;
    for (std::int64_t rows : r.info.rows_per_node) {
      const auto g =
          dpadmm::GaussianOutputPerturbationFor(0.7, 1e-5, s.algorithm.C, static_cast<double>(rows),
                                                s.algorithm.rho / s.graph.nodes, r.info.features);
      expected = std::max(expected, dpadmm::AnalyticGaussianEpsilon(g.sensitivity, g.sigma, 1e-5));
    }
    EXPECT_EQ(r.tight_epsilon, expected);
    EXPECT_NEAR(r.tight_epsilon, 0.7, 1e-6);
    EXPECT_EQ(r.sampler_delta, 0.0);
    EXPECT_TRUE(dpadmm::test::SameBits(rec.rounds.back().tight_epsilon, r.tight_epsilon));
  }
}

TEST(BaselineRuns, LocalMeasuresEachNodesOwnModelAndHasNoSingleModel) {
  const RunSpec s = Spec("local");
  const auto r = dpadmm::RunExperiment(s);
  EXPECT_EQ(r.info.test_error_of, "mean over nodes of each node's own model");
  EXPECT_EQ(r.model.size(), 0);
  EXPECT_THROW((void)dpadmm::Model::FromRun(r, s), dpadmm::InputError);
  const auto avg = dpadmm::RunExperiment(Spec("average"));
  EXPECT_EQ(avg.info.test_error_of, "mean model");
  EXPECT_GT(avg.model.size(), 0);
}

TEST(BaselineRuns, TargetEpsilonSetsTheMechanismsEpsilon) {
  RunSpec s = Spec("average");
  s.target_epsilon = 0.4;
  const dpadmm::Experiment e(s);
  EXPECT_EQ(*e.spec().algorithm.Field<double>("epsilon"), 0.4);
  EXPECT_EQ(e.info().calibrated_knob, "algorithm.average.epsilon");
  EXPECT_LE(e.info().calibrated_epsilon, 0.4);
  EXPECT_EQ(e.Run().tight_epsilon, e.info().calibrated_epsilon);
}

// The sweep treats them as algorithms: their knob is their epsilon, set to each target.
TEST(BaselineRuns, SweepCalibratesTheirEpsilon) {
  dpadmm::SweepOptions o;
  o.base = Spec("admm");
  o.base.noise_seed.reset();
  o.algorithms = {Algorithm::kLocal, Algorithm::kCentral};
  o.epsilons = {0.5, 2.0};
  o.seeds = 1;
  o.reference_lines = false;
  const dpadmm::SweepResult r = dpadmm::RunSweep(o);
  ASSERT_EQ(r.cells.size(), 4u);
  for (const dpadmm::SweepCell& c : r.cells) {
    EXPECT_EQ(c.knob, std::string("algorithm.") + dpadmm::ChoiceName(c.algorithm) + ".epsilon");
    ASSERT_EQ(c.knob_values.size(), 1u);
    EXPECT_EQ(c.knob_values[0], c.epsilon);
    EXPECT_LE(c.achieved_epsilon[0], c.epsilon);
    EXPECT_TRUE(std::isfinite(c.accuracy.mean));
  }
}

// --- Validation -------------------------------------------------------------------------------

TEST(BaselineSpec, DefaultsValidateAndEachFieldHasItsError) {
  for (const char* name : {"local", "average", "central"}) {
    const RunSpec d = RunSpec::Defaults(dpadmm::ParseChoice<Algorithm>(name, "algorithm"));
    EXPECT_NO_THROW(d.Validate());
    EXPECT_TRUE(dpadmm::UsesPrivacyMechanism(d));
    const std::string prefix = std::string("algorithm.") + name + ".";
    const auto fails = [&](auto change, const std::string& field) {
      RunSpec s = d;
      change(s);
      try {
        s.Validate();
        ADD_FAILURE() << field << " was accepted";
      } catch (const dpadmm::InputError& e) {
        EXPECT_NE(std::string(e.what()).find(field), std::string::npos) << e.what();
      }
    };
    fails([](RunSpec& s) { *s.algorithm.Field<std::string>("mechanism") = "laplace"; },
          prefix + "mechanism");
    fails([](RunSpec& s) { *s.algorithm.Field<double>("epsilon") = 0.0; }, prefix + "epsilon");
    fails([](RunSpec& s) { *s.algorithm.Field<double>("delta") = 1.0; }, prefix + "delta");
    fails([](RunSpec& s) { s.algorithm.privacy_budget = 5.0; }, "algorithm.privacy_budget");
    fails([](RunSpec& s) { s.algorithm.rho = 0.0; }, "algorithm.rho");
    fails(
        [](RunSpec& s) {
          *s.algorithm.Field<std::string>("mechanism") = "gaussian";
          *s.algorithm.Field<double>("delta") = 1e-6;
          s.target_epsilon = 1.0;
        },
        prefix + "delta");
    RunSpec np = d;
    EXPECT_THROW(dpadmm::MakeNonPrivate(np), dpadmm::InputError);
  }
}
