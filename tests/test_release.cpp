// SPDX-License-Identifier: Apache-2.0
// The release point (dpadmm/privacy/release.h): budget enforcement, freezing, noise drawn only
// through it, and the node programs that send through it.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include <Eigen/Dense>

#include "consensus/consensus_admm.h"
#include "dpadmm/core/error.h"
#include "dpadmm/core/random.h"
#include "dpadmm/data/generators.h"
#include "dpadmm/privacy/noise.h"
#include "dpadmm/privacy/release.h"
#include "dpadmm/privacy/samplers.h"
#include "dpadmm/run/run.h"
#include "run_recorder.h"
#include "sharing/programs.h"
#include "spec_helpers.h"

namespace dpadmm {
namespace {

std::vector<double> Message(const runtime::Outbox& out) {
  return {out.message().begin(), out.message().end()};
}

// A release with the simulation-mode key of (noise_seed, node).
Release MakeRelease(std::uint64_t noise_seed, std::uint64_t node, double budget = 0.0) {
  return Release(NoiseKey::FromSeed(noise_seed, node), node, budget);
}

bool SameBits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() &&
         (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0);
}

// --- The release object ---------------------------------------------------------------------

TEST(Release, RefusesTheReleaseThatWouldExceedTheBudgetAndFreezes) {
  Release release = MakeRelease(7, 3, 1.0);
  runtime::Outbox out(2);
  release.SendInitial(Eigen::Vector2d(0.0, 0.0), out);
  // 0.3 per round: 0.3, 0.6, 0.9 are within 1.0; a fourth would reach 1.2.
  for (std::int64_t round = 1; round <= 3; ++round) {
    ASSERT_TRUE(release.Open(round, 0.3)) << round;
    release.Send(Eigen::Vector2d(round, -round), out);
  }
  EXPECT_FALSE(release.frozen());
  EXPECT_EQ(release.frozen_round(), -1);
  const double spent = release.spent();
  EXPECT_NEAR(spent, 0.9, 1e-15);
  EXPECT_FALSE(release.Open(4, 0.3));
  EXPECT_TRUE(release.frozen());
  EXPECT_EQ(release.frozen_round(), 4);
  EXPECT_LE(release.spent(), release.budget());
  // Frozen for good, even for a free round; resends round 3's message, spends nothing.
  for (std::int64_t round = 4; round <= 8; ++round) {
    if (round > 4) {
      EXPECT_FALSE(release.Open(round, 0.0));
    }
    runtime::Outbox again(2);
    release.Resend(again);
    EXPECT_TRUE(SameBits(Message(again), {3.0, -3.0}));
    EXPECT_EQ(release.spent(), spent);
  }
  EXPECT_EQ(release.frozen_round(), 4);
  // No noise and no new message from a frozen node.
  Eigen::VectorXd v(2);
  EXPECT_THROW(release.DrawL2Laplace(1.0, v), std::logic_error);
  EXPECT_THROW(release.Send(v, out), std::logic_error);
}

TEST(Release, AReleaseExactlyAtTheBudgetIsAllowed) {
  Release release = MakeRelease(1, 0, 1.0);
  runtime::Outbox out(1);
  ASSERT_TRUE(release.Open(1, 0.5));
  release.Send(Eigen::VectorXd::Ones(1), out);
  ASSERT_TRUE(release.Open(2, 0.5));  // 0.5 + 0.5 = 1.0 is not above 1.0
  release.Send(Eigen::VectorXd::Ones(1), out);
  EXPECT_EQ(release.spent(), 1.0);
  EXPECT_FALSE(release.Open(3, 1e-12));
}

TEST(Release, BudgetZeroIsNoBudgetAndTheIdentityReleaseCostsNothing) {
  Release unlimited = MakeRelease(1, 0, 0.0);
  Release identity = MakeRelease(1, 1, 5.0);
  runtime::Outbox out(3);
  for (std::int64_t round = 1; round <= 100; ++round) {
    ASSERT_TRUE(unlimited.Open(round, 1e6));
    unlimited.SendNothing(out);
    ASSERT_TRUE(identity.Open(round, 0.0));
    const Eigen::Vector3d m(round, 0.5, -1e300);
    identity.Send(m, out);
    EXPECT_TRUE(SameBits(Message(out), {m[0], m[1], m[2]}));  // sent as is
  }
  EXPECT_FALSE(unlimited.frozen());
  EXPECT_EQ(unlimited.spent(), 1e8);
  EXPECT_EQ(identity.spent(), 0.0);
  EXPECT_FALSE(identity.frozen());
  EXPECT_EQ(identity.draws(), 0);
  EXPECT_EQ(identity.releases(), 100);
}

TEST(Release, NoiseIsTheNodesStreamOfTheRound) {
  Release release = MakeRelease(11, 4);
  runtime::Outbox out(5);
  ASSERT_TRUE(release.Open(3, 0.0));
  Eigen::VectorXd a(5), b(5), expected_a(5), expected_b(5);
  release.DrawL2Laplace(2.0, a);
  EXPECT_EQ(release.DrawGaussian(0.5, b), kGridStep);  // continues the round's stream
  const NoiseKey key = NoiseKey::FromSeed(11, 4);
  KeyedStream stream(key, 3, Purpose::kNoise);
  DrawL2Laplace(stream, 2.0, expected_a);
  DrawDiscreteGaussianGrid(stream, 0.5, expected_b);
  EXPECT_EQ(a, expected_a);
  EXPECT_EQ(b, expected_b);
  for (Eigen::Index k = 0; k < b.size(); ++k) EXPECT_TRUE(OnGrid(b[k])) << b[k];
  EXPECT_EQ(release.draws(), 2);
  release.Send(a, out);
  // A node that drew noise releases on the grid (the continuous noise is snapped).
  for (Eigen::Index k = 0; k < a.size(); ++k) {
    EXPECT_FALSE(OnGrid(a[k])) << a[k];  // a continuous draw is (almost surely) off the grid
    EXPECT_EQ(Message(out)[static_cast<std::size_t>(k)], RoundToGrid(a[k]));
    EXPECT_TRUE(OnGrid(Message(out)[static_cast<std::size_t>(k)]));
  }
  // The next round starts its own stream.
  ASSERT_TRUE(release.Open(4, 0.0));
  release.DrawL2Laplace(2.0, a);
  KeyedStream next(key, 4, Purpose::kNoise);
  DrawL2Laplace(next, 2.0, expected_a);
  EXPECT_EQ(a, expected_a);
}

TEST(Release, ObjectiveNoiseOnceBeforeTheFirstRound) {
  Release release = MakeRelease(5, 2);
  Eigen::VectorXd eta(4), expected(4);
  release.DrawObjectiveNoise(0.3, eta);
  KeyedStream stream(NoiseKey::FromSeed(5, 2), 0, Purpose::kObjectiveNoise);
  DrawUniformBall(stream, 0.3, expected);
  EXPECT_EQ(eta, expected);
  EXPECT_THROW(release.DrawObjectiveNoise(0.3, eta), std::logic_error);
  Release late = MakeRelease(5, 2);
  ASSERT_TRUE(late.Open(1, 0.0));
  EXPECT_THROW(late.DrawObjectiveNoise(0.3, eta), std::logic_error);
}

TEST(Release, MisuseIsAProgrammingError) {
  Release release = MakeRelease(1, 0, 1.0);
  runtime::Outbox out(1);
  Eigen::VectorXd v(1);
  EXPECT_THROW(release.DrawGaussian(1.0, v), std::logic_error);  // no round open
  EXPECT_THROW(release.Send(v, out), std::logic_error);
  EXPECT_THROW(release.Resend(out), std::logic_error);   // not frozen
  EXPECT_THROW(release.Open(0, 0.0), std::logic_error);  // round 0 is SendInitial
  EXPECT_THROW(release.Open(1, -1.0), std::logic_error);
  ASSERT_TRUE(release.Open(1, 0.0));
  EXPECT_THROW(release.Open(2, 0.0), std::logic_error);  // round 1 still open
  EXPECT_THROW(MakeRelease(1, 0, -1.0), InputError);
}

// --- Consensus node programs send only through their release ----------------------------------

struct NodeRun {
  std::vector<std::vector<double>> messages;  // per round
  std::vector<double> spent;                  // per round
  std::vector<std::int64_t> draws, passes;    // per round
};

// Runs one node with a single neighbour whose message is a fixed vector, rounds 0..rounds.
NodeRun RunOneNode(ConsensusNode& node, std::int64_t dim, std::int64_t rounds) {
  NodeRun run;
  const Eigen::VectorXd neighbour = Eigen::VectorXd::LinSpaced(dim, -0.5, 0.5);
  runtime::Inbox in(1);
  in.Set(0, std::span<const double>(neighbour.data(), static_cast<std::size_t>(dim)));
  for (std::int64_t round = 0; round <= rounds; ++round) {
    runtime::Outbox out(node.MaxMessageSize());
    const runtime::StepResult r = round == 0 ? node.Start(out) : node.Step(round, in, out);
    EXPECT_TRUE(r.ok) << r.error;
    run.messages.push_back(Message(out));
    run.spent.push_back(node.release().spent());
    run.draws.push_back(node.release().draws());
    run.passes.push_back(node.data_passes());
  }
  return run;
}

ConsensusNodeParams PrivateParams(ConsensusVariant variant) {
  ConsensusNodeParams p;
  p.variant = variant;
  p.C = 10.0;
  p.rho_node = 0.1;
  p.num_nodes = 2;
  p.eta = 5.0;
  p.q1 = 1.01;
  p.alpha = 0.5;
  p.noise_seed = 9;
  return p;
}

TEST(ReleaseNodes, AFrozenNodeResendsItsLastMessageBitForBitAndSpendsNothing) {
  const Dataset data = GenerateTwonorm(80, 5, 3);
  for (auto variant : {ConsensusVariant::kDvp, ConsensusVariant::kPvp, ConsensusVariant::kMadmm,
                       ConsensusVariant::kPrivateMradmm}) {
    ConsensusNodeParams p = PrivateParams(variant);
    auto probe = MakeConsensusNode(0, data, 1, Loss{}, NewtonOptions{}, p,
                                   Eigen::VectorXd::Zero(data.cols()));
    // A budget that admits exactly the first three rounds' losses.
    p.privacy_budget = probe->PrivacyLoss(1) + probe->PrivacyLoss(2) + probe->PrivacyLoss(3);
    ASSERT_GT(p.privacy_budget, 0.0);
    auto node = MakeConsensusNode(0, data, 1, Loss{}, NewtonOptions{}, p,
                                  Eigen::VectorXd::Zero(data.cols()));
    const NodeRun run = RunOneNode(*node, data.cols(), 9);
    // The first round whose loss does not fit is refused.
    std::int64_t expected_frozen = 4;
    while (probe->PrivacyLoss(expected_frozen) == 0.0) ++expected_frozen;
    EXPECT_EQ(node->release().frozen_round(), expected_frozen) << static_cast<int>(variant);
    for (std::int64_t round = expected_frozen; round <= 9; ++round) {
      EXPECT_TRUE(SameBits(run.messages[round], run.messages[expected_frozen - 1]))
          << "variant " << static_cast<int>(variant) << " round " << round;
      EXPECT_EQ(run.spent[round], run.spent[expected_frozen - 1]);
      EXPECT_EQ(run.draws[round], run.draws[expected_frozen - 1]);    // no noise drawn
      EXPECT_EQ(run.passes[round], run.passes[expected_frozen - 1]);  // no private computation
    }
    for (double s : run.spent) EXPECT_LE(s, p.privacy_budget);
    std::vector<double> report(node->ReportSize());
    node->Report(9, report);
    EXPECT_EQ(report[data.cols() + ConsensusReport::kFrozen], 1.0);
    EXPECT_EQ(report[data.cols() + ConsensusReport::kFrozenRound],
              static_cast<double>(expected_frozen));
    EXPECT_EQ(report[data.cols() + ConsensusReport::kPrivacySpent], run.spent[9]);
    EXPECT_EQ(report[data.cols() + ConsensusReport::kNextPrivacyLoss], 0.0);
    EXPECT_EQ(report[data.cols() + ConsensusReport::kNoise], 0.0);
  }
}

TEST(ReleaseNodes, NoiseAndSpendingMoveOnlyThroughTheRelease) {
  const Dataset data = GenerateTwonorm(80, 5, 3);
  for (auto variant : {ConsensusVariant::kAdmm, ConsensusVariant::kDvp, ConsensusVariant::kPvp,
                       ConsensusVariant::kMadmm, ConsensusVariant::kRadmm,
                       ConsensusVariant::kMradmm, ConsensusVariant::kPrivateMradmm}) {
    ConsensusNodeParams p = PrivateParams(variant);
    auto node = MakeConsensusNode(0, data, 1, Loss{}, NewtonOptions{}, p,
                                  Eigen::VectorXd::Zero(data.cols()));
    const NodeRun run = RunOneNode(*node, data.cols(), 8);
    double expected_spent = 0.0;
    std::int64_t expected_draws = 0;
    for (std::int64_t round = 1; round <= 8; ++round) {
      expected_spent += node->PrivacyLoss(round);
      if (node->Alpha(round) > 0.0) ++expected_draws;  // one draw per noisy round
      EXPECT_EQ(run.spent[round], expected_spent) << static_cast<int>(variant) << " " << round;
      EXPECT_EQ(run.draws[round], expected_draws) << static_cast<int>(variant) << " " << round;
    }
    if (!IsPrivate(variant, p.alpha)) {
      EXPECT_EQ(run.spent.back(), 0.0) << "identity release of a non-private variant";
      EXPECT_EQ(run.draws.back(), 0);
    } else {
      EXPECT_GT(run.draws.back(), 0);
    }
    EXPECT_FALSE(node->release().frozen());
  }
}

TEST(ReleaseNodes, TheNoiseIsTheOneTheReleaseDrew) {
  // Same seed: same messages; another seed changes only what the release draws, so a
  // non-private node is unaffected and a private one changes.
  const Dataset data = GenerateTwonorm(80, 5, 3);
  for (auto variant : {ConsensusVariant::kAdmm, ConsensusVariant::kDvp}) {
    ConsensusNodeParams p = PrivateParams(variant);
    const Eigen::VectorXd f0 = Eigen::VectorXd::Zero(data.cols());
    auto a = MakeConsensusNode(0, data, 1, Loss{}, NewtonOptions{}, p, f0);
    auto b = MakeConsensusNode(0, data, 1, Loss{}, NewtonOptions{}, p, f0);
    p.noise_seed = 10;
    auto c = MakeConsensusNode(0, data, 1, Loss{}, NewtonOptions{}, p, f0);
    const std::int64_t d = data.cols();
    const NodeRun ra = RunOneNode(*a, d, 4), rb = RunOneNode(*b, d, 4), rc = RunOneNode(*c, d, 4);
    EXPECT_TRUE(SameBits(ra.messages.back(), rb.messages.back()));
    EXPECT_EQ(SameBits(ra.messages.back(), rc.messages.back()), variant == ConsensusVariant::kAdmm);
  }
}

// --- Runs with budgets -------------------------------------------------------------------------

RunSpec BudgetSpec() {
  RunSpec s;
  s.data.rows = 600;
  s.data.dims = 6;
  s.graph.topology = dpadmm::Topology::kRing;
  s.graph.nodes = 5;
  s.algorithm.Select(dpadmm::Algorithm::kDvp);
  s.algorithm.eta = 10.0;
  test::Noise(s).alpha = 0.5;
  s.algorithm.node_privacy_budget = {1.0, 2.5, 0.75, 4.0, 1.5};
  s.iterations = 12;
  s.compute_optimum = false;
  s.seed = 4;
  s.noise_seed = 4;  // simulation mode: reproducible noise
  return s;
}

TEST(ReleaseRuns, SerialAndTbbEnginesAgreeBitForBitWithBudgets) {
  const Experiment e(BudgetSpec());
  test::RunRecorder serial, tbb;
  const RunSummary a = e.RunOn(dpadmm::runtime::EngineKind::kSerial, 1, &serial);
  const RunSummary b = e.RunOn(dpadmm::runtime::EngineKind::kTbb, 2, &tbb);
  test::ExpectSameBits(serial.rounds, tbb.rounds);
  EXPECT_EQ(a.node_frozen_round, b.node_frozen_round);
  EXPECT_EQ(a.node_frozen_round, (std::vector<std::int64_t>{3, 6, 2, 9, 4}));
  EXPECT_EQ(a.outcome, RunOutcome::kBudgetExhausted);
  EXPECT_EQ(b.outcome, RunOutcome::kBudgetExhausted);
  EXPECT_EQ(a.rounds, 9);  // the last node froze in round 9
  EXPECT_EQ(a.model, b.model);
}

TEST(ReleaseRuns, ANodeWithoutBudgetKeepsTheRunGoing) {
  RunSpec s = BudgetSpec();
  s.algorithm.node_privacy_budget[3] = 0.0;  // no budget for node 3
  const RunSummary r = RunExperiment(s);
  EXPECT_EQ(r.outcome, RunOutcome::kCompleted);
  EXPECT_EQ(r.rounds, 12);
  EXPECT_EQ(r.node_frozen_round, (std::vector<std::int64_t>{3, 6, 2, -1, 4}));
  EXPECT_EQ(r.final.node_privacy, (std::vector<double>{1.0, 2.5, 0.5, 6.0, 1.5}));
}

TEST(ReleaseRuns, WithoutBudgetNoNodeFreezes) {
  RunSpec s = BudgetSpec();
  s.algorithm.node_privacy_budget.clear();
  const RunSummary r = RunExperiment(s);
  EXPECT_EQ(r.outcome, RunOutcome::kCompleted);
  EXPECT_EQ(r.node_frozen_round, std::vector<std::int64_t>(5, -1));
}

TEST(ReleaseRuns, PerNodeBudgetsAreValidated) {
  RunSpec s = BudgetSpec();
  s.algorithm.node_privacy_budget = {1.0, 2.0};
  EXPECT_THROW(s.Validate(), InputError);
  s.algorithm.node_privacy_budget = {1.0, 2.0, -1.0, 1.0, 1.0};
  try {
    s.Validate();
    ADD_FAILURE() << "a negative budget was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("algorithm.node_privacy_budget[2]"), std::string::npos)
        << e.what();
  }
}

// --- Sharing parties release through the same object -------------------------------------------

TEST(ReleaseSharing, PartiesDebitTheirEpsilonAndFreezeAtTheirBudget) {
  Dataset block = GenerateTwonorm(30, 4, 2);
  block.y.resize(0);
  const Eigen::MatrixXd gram = sharing::Gram(block);
  const sharing::XUpdate xu(gram, 0.1, 1.0);
  const sharing::GramNoise noise(gram);
  sharing::PartyParams pp;
  pp.party = 1;
  pp.sigma = 0.2;
  pp.epsilon = 0.4;
  pp.privacy_budget = 1.0;  // two iterations (0.8); a third would reach 1.2
  pp.noise_seed = 3;
  sharing::SharingParty party(block, xu, &noise, pp);
  sharing::PartyParams plain = pp;
  plain.sigma = 0.0;
  plain.epsilon = 0.0;
  sharing::SharingParty identity(block, xu, nullptr, plain);
  const Eigen::VectorXd coordinator = Eigen::VectorXd::LinSpaced(60, -1.0, 1.0);
  runtime::Inbox in(1);
  in.Set(0, std::span<const double>(coordinator.data(), 60));
  std::vector<std::vector<double>> shares;
  for (std::int64_t round = 0; round <= 9; ++round) {
    runtime::Outbox out(30), out2(30);
    ASSERT_TRUE((round == 0 ? party.Start(out) : party.Step(round, in, out)).ok);
    ASSERT_TRUE((round == 0 ? identity.Start(out2) : identity.Step(round, in, out2)).ok);
    if (round % 2 == 1)
      shares.push_back(Message(out));
    else
      EXPECT_TRUE(out.message().empty());
  }
  EXPECT_NEAR(party.release().spent(), 0.8, 1e-15);
  EXPECT_TRUE(party.release().frozen());
  EXPECT_EQ(party.release().frozen_round(), 5);  // iteration 3
  EXPECT_EQ(party.release().draws(), 2);
  ASSERT_EQ(shares.size(), 5u);
  for (std::size_t k = 2; k < shares.size(); ++k) EXPECT_TRUE(SameBits(shares[k], shares[1]));
  EXPECT_EQ(identity.release().spent(), 0.0);
  EXPECT_EQ(identity.release().draws(), 0);
  EXPECT_FALSE(identity.release().frozen());
}

}  // namespace
}  // namespace dpadmm
