// SPDX-License-Identifier: Apache-2.0
// PDML (000): randomized response, the debiased loss (19), the bounded objective noise (14), the
// node program (15)-(17) and its integration in Experiment / spec JSON.
//
// Statistical tests use fixed seeds (so they are deterministic) and thresholds derived from a
// stated false-positive rate: each binomial count is checked against its mean with
// |count - n q| <= 5 sqrt(n q (1 - q)); by the normal approximation (n q (1 - q) >= 10^3 in every
// check here) the two-sided false-positive rate of one check is 5.7e-7, and about 1.2e-5 for
// the 21 such checks of this file together (Bonferroni). A fresh seed would fail that rarely.
#include <gtest/gtest.h>

#include "spec_helpers.h"

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "consensus/pdml_node.h"
#include "dpadmm/consensus/pdml.h"
#include "dpadmm/core/error.h"
#include "dpadmm/core/random.h"
#include "dpadmm/data/generators.h"
#include "dpadmm/privacy/accountant.h"
#include "dpadmm/privacy/samplers.h"
#include "dpadmm/run/run.h"
#include "dpadmm/run/spec_json.h"
#include "run_recorder.h"
#include "test_helpers.h"

namespace {

using dpadmm::Loss;
using dpadmm::LossKind;
using dpadmm::RoundMetrics;
using dpadmm::RunSpec;
using Recorder = dpadmm::test::RunRecorder;
using dpadmm::test::ThrowsInputError;

constexpr double kSigmas = 5.0;  // see the file comment: 5.7e-7 two-sided per check

void ExpectBinomial(std::int64_t count, std::int64_t n, double q, const std::string& what) {
  const double mean = static_cast<double>(n) * q;
  const double sd = std::sqrt(static_cast<double>(n) * q * (1.0 - q));
  ASSERT_GE(sd * sd, 1000.0) << what << ": the normal approximation needs n q (1-q) >= 1e3";
  EXPECT_LE(std::abs(static_cast<double>(count) - mean), kSigmas * sd)
      << what << ": count " << count << " of " << n << ", expected " << mean << " +- " << sd;
}

RunSpec Base(const std::string& algorithm) {
  RunSpec s;
  s.data.source = dpadmm::DataSource::kTwonorm;
  s.data.rows = 1200;
  s.graph.topology = dpadmm::Topology::kRandom;
  s.graph.nodes = 6;
  s.graph.edges = 8;
  s.algorithm.Select(dpadmm::ParseChoice<dpadmm::Algorithm>(algorithm, "algorithm"));
  s.algorithm.C = 1.0;
  s.algorithm.rho = 0.05;
  s.algorithm.eta = 0.05;
  s.iterations = 30;
  s.seed = 5;
  s.engine = dpadmm::runtime::EngineKind::kSerial;
  return s;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Phase 1: randomized response

TEST(PdmlRandomizedResponse, ProbabilitiesAreThoseOfEquation13AndGiveEpsLdp) {
  for (double eps : {0.1, 0.4, 1.0, 3.0, 30.0}) {
    const double keep = dpadmm::KeepProbability(eps);
    const double p = dpadmm::RandomizationProbability(eps);
    EXPECT_NEAR(p, 1.0 / (1.0 + std::exp(eps)), 1e-15);
    EXPECT_NEAR(keep, 1.0 - p, 1e-15);  // Definition 2: y kept w.p. 1 - 2p + p
    // Proposition 1: Pr[y' | y] / Pr[y' | -y] = (1 - p) / p = e^eps, the LDP ratio bound.
    EXPECT_NEAR(std::log(keep / p), eps, 1e-12 * std::max(1.0, eps));
    EXPECT_NEAR(dpadmm::DebiasWeight(eps), 1.0 / (std::exp(eps) - 1.0),
                1e-13 / std::expm1(eps) + 1e-300);
  }
  // The encoding of "no randomization".
  EXPECT_EQ(dpadmm::KeepProbability(0.0), 1.0);
  EXPECT_EQ(dpadmm::RandomizationProbability(0.0), 0.0);
  EXPECT_EQ(dpadmm::DebiasWeight(0.0), 0.0);
}

TEST(PdmlRandomizedResponse, ReportedLabelFrequenciesMatchDefinition2) {
  const std::int64_t n = 200000;
  for (double eps : {0.4, 1.0, 3.0}) {
    for (double y : {-1.0, 1.0}) {
      const dpadmm::NoiseKey key =
          dpadmm::NoiseKey::FromSeed(17, static_cast<std::uint64_t>(eps * 10));
      dpadmm::KeyedStream stream(key, y > 0 ? 1 : 2, dpadmm::Purpose::kLabelNoise);
      std::int64_t plus = 0;
      for (std::int64_t k = 0; k < n; ++k) {
        const double r = dpadmm::RandomizedResponse(y, eps, stream);
        ASSERT_TRUE(r == 1.0 || r == -1.0);
        plus += r == 1.0;
      }
      // Pr[y' = +1 | y] = p + (1 - 2p) [y = +1].
      const double p = 1.0 / (1.0 + std::exp(eps));
      const double q = p + (y > 0 ? 1.0 - 2.0 * p : 0.0);
      ExpectBinomial(plus, n, q, "eps " + std::to_string(eps) + ", y " + std::to_string(y));
    }
  }
  // eps = 0: truthful, exactly.
  dpadmm::KeyedStream stream(dpadmm::NoiseKey::FromSeed(1, 0), 0, dpadmm::Purpose::kLabelNoise);
  for (int k = 0; k < 1000; ++k) EXPECT_EQ(dpadmm::RandomizedResponse(-1.0, 0.0, stream), -1.0);
}

TEST(PdmlRandomizedResponse, GroupsAreDrawnWithTheirSharesAndEachUserUsesTheirOwnEps) {
  const std::int64_t n = 100000;
  Eigen::VectorXd y = Eigen::VectorXd::Ones(n);
  dpadmm::LabelPrivacySpec spec;
  spec.group_eps = {0.4, 0.0, 2.0};
  spec.group_shares = {0.3, 0.2, 0.5};
  const dpadmm::ReportedLabels r = dpadmm::RandomizeLabels(y, spec, 3, 4);
  std::int64_t count[3] = {0, 0, 0}, kept[3] = {0, 0, 0};
  for (std::int64_t j = 0; j < n; ++j) {
    const int g = r.eps[j] == 0.4 ? 0 : r.eps[j] == 0.0 ? 1 : 2;
    ASSERT_TRUE(r.eps[j] == spec.group_eps[g]);
    ++count[g];
    kept[g] += r.y[j] == 1.0;
  }
  for (int g = 0; g < 3; ++g) ExpectBinomial(count[g], n, spec.group_shares[g], "group share");
  ExpectBinomial(kept[0], count[0], dpadmm::KeepProbability(0.4), "group eps 0.4");
  EXPECT_EQ(kept[1], count[1]);  // eps = 0: truthful
  ExpectBinomial(kept[2], count[2], dpadmm::KeepProbability(2.0), "group eps 2");
  // Seeded: the same call gives the same labels; another node gets other draws.
  const dpadmm::ReportedLabels again = dpadmm::RandomizeLabels(y, spec, 3, 4);
  EXPECT_EQ(again.y, r.y);
  EXPECT_EQ(again.eps, r.eps);
  EXPECT_NE(dpadmm::RandomizeLabels(y, spec, 3, 5).y, r.y);
}

// ---------------------------------------------------------------------------------------------
// The debiased loss (19)

TEST(PdmlDebiasedLoss, IsUnbiasedExactlyOverTheTwoLabelOutcomes) {
  // Proposition 2 (i): E_{y'}[l~(y', z, eps)] = l(y z), with y' = y w.p. e^eps / (1 + e^eps).
  // Exact expectation over the two outcomes; it holds for any margin loss.
  for (LossKind kind : {LossKind::kLogistic, LossKind::kSmoothHinge}) {
    Loss loss;
    loss.kind = kind;
    for (double eps : {0.05, 0.4, 1.0, 5.0, 40.0}) {
      const double keep = dpadmm::KeepProbability(eps);
      for (double y : {-1.0, 1.0}) {
        for (double z : {-7.0, -1.3, -0.2, 0.0, 0.4, 1.0, 1.4, 6.0}) {
          const double expected = keep * dpadmm::DebiasedLoss(loss, y, z, eps) +
                                  (1.0 - keep) * dpadmm::DebiasedLoss(loss, -y, z, eps);
          const double scale = 1.0 + dpadmm::DebiasWeight(eps) * (1.0 + std::abs(z));
          EXPECT_NEAR(expected, loss.Value(y * z), 1e-13 * scale)
              << loss.Name() << " eps " << eps << " y " << y << " z " << z;
        }
      }
    }
  }
}

TEST(PdmlDebiasedLoss, MatchesEquation19AndTheLogisticIdentity) {
  Loss logistic;
  for (double eps : {0.4, 1.0, 3.0}) {
    for (double y : {-1.0, 1.0}) {
      for (double z : {-3.0, -0.5, 0.0, 0.7, 2.5}) {
        // (19) as printed.
        const double e = std::exp(eps);
        const double printed = (e * logistic.Value(y * z) - logistic.Value(-y * z)) / (e - 1.0);
        EXPECT_NEAR(dpadmm::DebiasedLoss(logistic, y, z, eps), printed,
                    1e-13 * (1.0 + std::abs(printed)));
        // l(z) - l(-z) = -z for the logistic loss: l~ = l(y z) - y z / (e^eps - 1), the form the
        // node program uses (linear term folded into the local problem).
        EXPECT_NEAR(dpadmm::DebiasedLoss(logistic, y, z, eps),
                    logistic.Value(y * z) - y * z / std::expm1(eps),
                    1e-13 * (1.0 + std::abs(printed)));
      }
    }
  }
  // eps = 0 encodes "no randomization": the plain loss.
  EXPECT_EQ(dpadmm::DebiasedLoss(logistic, -1.0, 0.3, 0.0), logistic.Value(-0.3));
}

TEST(PdmlDebiasedLoss, GradientAndCurvatureMatchFiniteDifferences) {
  for (LossKind kind : {LossKind::kLogistic, LossKind::kSmoothHinge}) {
    Loss loss;
    loss.kind = kind;
    for (double eps : {0.4, 1.0, 4.0}) {
      for (double y : {-1.0, 1.0}) {
        // Points away from the smooth hinge's kinks in the second derivative (|u -+ 1| = h).
        for (double z : {-2.2, -0.8, 0.1, 0.9, 2.4}) {
          const double h = 1e-5;
          const double d1 = (dpadmm::DebiasedLoss(loss, y, z + h, eps) -
                             dpadmm::DebiasedLoss(loss, y, z - h, eps)) /
                            (2.0 * h);
          const double d2 = (dpadmm::DebiasedLossD1(loss, y, z + h, eps) -
                             dpadmm::DebiasedLossD1(loss, y, z - h, eps)) /
                            (2.0 * h);
          EXPECT_NEAR(dpadmm::DebiasedLossD1(loss, y, z, eps), d1, 1e-7)
              << loss.Name() << " z " << z;
          EXPECT_NEAR(dpadmm::DebiasedLossD2(loss, y, z, eps), d2, 1e-6)
              << loss.Name() << " z " << z;
        }
      }
    }
  }
  // Curvature: the logistic debiased loss is convex (curvature = l''), the smooth hinge's is not
  // (why pdml rejects it): at y'z = -1 only l''(-y'z) is non-zero.
  Loss logistic, hinge;
  hinge.kind = LossKind::kSmoothHinge;
  for (double z = -6.0; z <= 6.0; z += 0.25) {
    EXPECT_NEAR(dpadmm::DebiasedLossD2(logistic, 1.0, z, 0.4), logistic.D2(z), 1e-14);
  }
  EXPECT_LT(dpadmm::DebiasedLossD2(hinge, 1.0, -1.0, 0.4), 0.0);
}

// ---------------------------------------------------------------------------------------------
// Phase 2 noise

TEST(PdmlNoise, BoundedObjectiveNoiseStaysInItsBallAndIsUniformThere) {
  const int d = 5;
  const double R = 2.5;
  const std::int64_t n = 40000;
  Eigen::VectorXd v(d);
  Eigen::VectorXd mean = Eigen::VectorXd::Zero(d);
  std::int64_t inner = 0;  // inside the ball of half the volume: radius R 2^(-1/d)
  const double half_volume_radius = R * std::pow(0.5, 1.0 / d);
  for (std::int64_t k = 0; k < n; ++k) {
    dpadmm::Stream stream(9, static_cast<std::uint64_t>(k), 0, dpadmm::Purpose::kObjectiveNoise);
    dpadmm::DrawUniformBall(stream, R, v);
    ASSERT_LE(v.norm(), R) << "draw " << k;
    inner += v.norm() <= half_volume_radius;
    mean += v;
  }
  ExpectBinomial(inner, n, 0.5, "half-volume ball");
  // Each coordinate has variance R^2 / (d + 2) for the uniform ball; the mean of n draws is
  // within 5 standard errors of 0.
  const double se = R / std::sqrt((d + 2.0) * static_cast<double>(n));
  for (int k = 0; k < d; ++k) EXPECT_LE(std::abs(mean[k] / n), kSigmas * se);
  dpadmm::Stream stream(1, 0, 0, dpadmm::Purpose::kObjectiveNoise);
  dpadmm::DrawUniformBall(stream, 0.0, v);
  EXPECT_EQ(v.norm(), 0.0);
  EXPECT_THROW(dpadmm::DrawUniformBall(stream, -1.0, v), dpadmm::InputError);
}

TEST(PdmlNoise, PrimalNoiseVarianceDecaysAsEquation16) {
  EXPECT_EQ(dpadmm::PrimalNoiseStd(0.3, 0.8, 0), 0.0);
  EXPECT_DOUBLE_EQ(dpadmm::PrimalNoiseStd(0.3, 0.8, 1), 0.3);
  for (int t = 1; t <= 20; ++t) {
    const double s = dpadmm::PrimalNoiseStd(0.3, 0.8, t);
    EXPECT_NEAR(s * s, std::pow(0.8, t - 1) * 0.09, 1e-15);
  }
}

// ---------------------------------------------------------------------------------------------
// The node program

TEST(PdmlNode, FirstPrimalUpdateSolvesTheDebiasedPerturbedLocalProblem) {
  // One node with 2 neighbours, all starting at 0: round 1 solves (15) with gamma = 0 and
  // w~(0) = 0, i.e. min (C/m) sum l~ + (rho_i/2)||w||^2 + (C/m) eta^T w + beta N ||w||^2.
  // Check its gradient with the generic (19) derivative, independent of the node's algebra.
  dpadmm::Dataset data = dpadmm::GenerateTwonorm(300, 3, 4);
  data.Scale(1.0 / data.MaxRowNorm());
  dpadmm::LabelPrivacySpec labels;
  labels.group_eps = {0.4, 1.0, 0.0};
  labels.group_shares = {0.5, 0.3, 0.2};
  const dpadmm::ReportedLabels rep = dpadmm::RandomizeLabels(data.y, labels, 7, 0);
  dpadmm::Dataset reported = data;
  reported.y = rep.y;
  dpadmm::PdmlNodeParams p;
  p.C = 2.0;
  p.rho_node = 0.01;
  p.beta = 0.05;
  p.R = 3.0;
  p.V = 0.2;
  p.noise_seed = 7;
  const Loss loss;
  dpadmm::PdmlNode node(0, reported, rep.eps, 2, loss, {}, p, Eigen::VectorXd::Zero(4));
  EXPECT_LE(node.objective_noise().norm(), p.R);
  EXPECT_GT(node.objective_noise().norm(), 0.0);
  dpadmm::runtime::Outbox out(4);
  ASSERT_TRUE(node.Start(out).ok);
  std::vector<double> zero(4, 0.0);
  dpadmm::runtime::Inbox in(2);
  in.Set(0, zero);
  in.Set(1, zero);
  ASSERT_TRUE(node.Step(1, in, out).ok);
  std::vector<double> report(node.ReportSize());
  node.Report(1, report);
  const Eigen::Map<const Eigen::VectorXd> w(report.data(), 4);

  const double m = static_cast<double>(data.rows());
  Eigen::VectorXd grad = (p.rho_node + 2.0 * p.beta * 2.0) * w + (p.C / m) * node.objective_noise();
  const auto& x = std::get<dpadmm::DenseRows>(data.x);
  for (Eigen::Index j = 0; j < x.rows(); ++j) {
    const double z = x.row(j).dot(w);
    grad +=
        (p.C / m) * dpadmm::DebiasedLossD1(loss, rep.y[j], z, rep.eps[j]) * x.row(j).transpose();
  }
  EXPECT_LT(grad.norm(), 1e-9);
  // The report: own (unperturbed) w, NaN loss (evaluated on true labels outside), the largest
  // label eps of the node's randomized users, the std of theta(1) = V.
  EXPECT_TRUE(std::isnan(report[4]));
  EXPECT_EQ(report[5], 1.0);
  EXPECT_EQ(report[6], 0.0);
  EXPECT_EQ(report[7], p.V);
  EXPECT_EQ(report[8], 0.0);  // not frozen: PDML rounds cost nothing
  EXPECT_EQ(report[9], -1.0);
  // Both noises came from the node's release: eta_i of (14) once, theta_i(1) in round 1.
  EXPECT_EQ(node.release().draws(), 2);
  EXPECT_EQ(node.release().spent(), 0.0);
  // (16): the broadcast value is w + theta, theta != 0.
  const Eigen::Map<const Eigen::VectorXd> sent(out.message().data(), 4);
  EXPECT_GT((sent - w).norm(), 0.0);
  EXPECT_EQ(Eigen::VectorXd(sent), node.released());
}

TEST(PdmlNode, ReleasedNoiseHasTheVarianceOfEquation16) {
  // theta_i(t) = w~_i(t) - w_i(t) ~ N(0, decay^(t-1) V^2 I): standardised by the round's std,
  // the 40 rounds x 50 coordinates give 2000 N(0, 1) values. Their mean square has standard
  // deviation sqrt(2 / 2000) = 0.0316; the 5-sigma band [0.842, 1.158] has false-positive rate
  // 5.7e-7 (normal approximation of the chi-square with 2000 degrees of freedom); the mean has
  // standard deviation 1/sqrt(2000) = 0.0224, band +-0.112.
  const int d = 50;
  dpadmm::Dataset data = dpadmm::GenerateTwonorm(200, 8, d);
  data.Scale(1.0 / data.MaxRowNorm());
  dpadmm::PdmlNodeParams p;
  p.rho_node = 0.1;
  p.beta = 0.1;
  p.V = 0.7;
  p.decay = 0.9;
  p.noise_seed = 21;
  dpadmm::PdmlNode node(3, data, Eigen::VectorXd::Zero(200), 1, Loss{}, {}, p,
                        Eigen::VectorXd::Zero(d));
  dpadmm::runtime::Outbox out(d);
  ASSERT_TRUE(node.Start(out).ok);
  double sum = 0.0, squares = 0.0;
  int count = 0;
  std::vector<double> report(node.ReportSize());
  for (int t = 1; t <= 40; ++t) {
    // One neighbour that echoes this node's own broadcast (a consistent fixed input).
    const std::vector<double> echo(out.message().begin(), out.message().end());
    dpadmm::runtime::Inbox in(1);
    in.Set(0, echo);
    ASSERT_TRUE(node.Step(t, in, out).ok);
    node.Report(t, report);
    const double sd = dpadmm::PrimalNoiseStd(p.V, p.decay, t);
    ASSERT_EQ(report[d + 3], sd);
    for (int k = 0; k < d; ++k) {
      const double z = (out.message()[k] - report[k]) / sd;
      sum += z;
      squares += z * z;
      ++count;
    }
  }
  EXPECT_LE(std::abs(sum / count), kSigmas / std::sqrt(static_cast<double>(count)));
  EXPECT_LE(std::abs(squares / count - 1.0), kSigmas * std::sqrt(2.0 / count));
}

TEST(PdmlNode, RejectsTheSmoothHingeAndBadEps) {
  dpadmm::Dataset data = dpadmm::GenerateTwonorm(50, 3, 4);
  Loss hinge;
  hinge.kind = LossKind::kSmoothHinge;
  const Eigen::VectorXd eps = Eigen::VectorXd::Constant(50, 1.0);
  EXPECT_TRUE(ThrowsInputError(
      [&] { dpadmm::PdmlNode(0, data, eps, 1, hinge, {}, {}, Eigen::VectorXd::Zero(4)); },
      {"loss.kind", "logistic"}));
  EXPECT_TRUE(ThrowsInputError(
      [&] { dpadmm::PdmlNode(0, data, eps.head(3), 1, Loss{}, {}, {}, Eigen::VectorXd::Zero(4)); },
      {"3 eps values for 50 rows"}));
  Eigen::VectorXd bad = eps;
  bad[7] = -1.0;
  EXPECT_TRUE(ThrowsInputError(
      [&] { dpadmm::PdmlNode(0, data, bad, 1, Loss{}, {}, {}, Eigen::VectorXd::Zero(4)); },
      {"row 7"}));
}

// ---------------------------------------------------------------------------------------------
// Runs

TEST(PdmlRun, WithoutLabelNoiseObjectiveNoiseAndPrimalNoiseItIsConsensusAdmm) {
  // label_eps = 0 (no randomization), R = 0, V = 0: (15)-(17) are the consensus ADMM of 004
  // (9)-(11) with beta = eta and gamma = 2 lambda.
  Recorder admm, pdml;
  (void)dpadmm::RunExperiment(Base("admm"), &admm);
  (void)dpadmm::RunExperiment(Base("pdml"), &pdml);
  ASSERT_EQ(admm.rounds.size(), pdml.rounds.size());
  for (std::size_t k = 0; k < admm.rounds.size(); ++k) {
    EXPECT_NEAR(pdml.rounds[k].objective, admm.rounds[k].objective,
                1e-12 * admm.rounds[k].objective);
    EXPECT_NEAR(pdml.rounds[k].consensus_gap, admm.rounds[k].consensus_gap, 1e-12);
    EXPECT_EQ(pdml.rounds[k].test_error, admm.rounds[k].test_error);
  }
  // eps -> infinity: at eps = 40 a flip has probability 4e-18 and the debiasing weight is
  // 4e-18, so the run agrees with the non-private one to rounding.
  RunSpec large = Base("pdml");
  dpadmm::test::Pdml(large).label_eps = 40.0;
  large.noise_seed = 1;  // simulation mode: the same preparation and figures as the admm run
  Recorder big;
  (void)dpadmm::RunExperiment(large, &big);
  for (std::size_t k = 0; k < admm.rounds.size(); ++k) {
    EXPECT_NEAR(big.rounds[k].objective, admm.rounds[k].objective,
                1e-10 * admm.rounds[k].objective);
  }
  // And the noiseless run converges to the centralized optimum (beta = 0.01 converges fast here:
  // relative distance about 1e-9 after 100 iterations; 1e-6 leaves room for platform rounding).
  RunSpec conv = Base("pdml");
  conv.algorithm.eta = 0.01;
  conv.iterations = 100;
  conv.metrics_every = 0;
  EXPECT_LT(dpadmm::RunExperiment(conv).final.distance_to_optimum, 1e-6);
}

TEST(PdmlRun, BitwiseReproducibleAcrossEnginesAndThreadCounts) {
  RunSpec s = Base("pdml");
  dpadmm::test::Pdml(s).label_eps_groups = {0.4, 1.0};
  dpadmm::test::Pdml(s).label_eps_shares = {0.5, 0.5};
  dpadmm::test::Pdml(s).R = 1.0;
  dpadmm::test::Pdml(s).V = 0.1;
  s.iterations = 15;
  s.noise_seed = 15;  // simulation mode: the noise keys are derived, the run reproducible
  dpadmm::Experiment exp(s);
  Recorder serial;
  const dpadmm::RunSummary ref = exp.RunOn(dpadmm::runtime::EngineKind::kSerial, 1, &serial);
  for (int threads : {1, 2, 4}) {
    Recorder tbb;
    const dpadmm::RunSummary r = exp.RunOn(dpadmm::runtime::EngineKind::kTbb, threads, &tbb);
    SCOPED_TRACE(std::to_string(threads) + " threads");
    dpadmm::test::ExpectSameBits(tbb.rounds, serial.rounds);
    EXPECT_EQ(r.model, ref.model) << threads << " threads";
  }
  // A second Experiment with the same spec draws the same Phase 1 labels and noise.
  EXPECT_EQ(dpadmm::Experiment(s).RunOn(dpadmm::runtime::EngineKind::kSerial, 1).model, ref.model);
}

TEST(PdmlRun, PerturbationsChangeTheRunAndTheTraceCarriesPrivacyAndNoise) {
  RunSpec s = Base("pdml");
  dpadmm::test::Pdml(s).label_eps_groups = {0.4, 1.0};
  dpadmm::test::Pdml(s).label_eps_shares = {0.25, 0.75};
  dpadmm::test::Pdml(s).R = 1.0;
  dpadmm::test::Pdml(s).V = 0.2;
  dpadmm::test::Pdml(s).decay = 0.8;
  Recorder noisy, clean;
  (void)dpadmm::RunExperiment(s, &noisy);
  (void)dpadmm::RunExperiment(Base("pdml"), &clean);
  EXPECT_NE(noisy.rounds.back().objective, clean.rounds.back().objective);
  // Summary: label eps-LDP with the drawn eps range, Phase 2 parameters, no composed guarantee.
  const std::string& g = noisy.info.privacy_guarantee;
  for (const char* part : {"eps-LDP", "min 0.4", "max 1", "R = 1", "0.8^(t-1) * 0.2^2",
                           "Gaussian composition of the primal noise"}) {
    EXPECT_NE(g.find(part), std::string::npos) << part << " not in: " << g;
  }
  EXPECT_NE(clean.info.privacy_guarantee.find("not randomized"), std::string::npos);
  // Trace: per-node label eps (largest of the node's users: 1 with 200 users per node) and the
  // std of theta_i(t) per round.
  for (const RoundMetrics& m : noisy.rounds) {
    EXPECT_EQ(m.privacy_loss, 1.0);
    for (double v : m.node_noise) EXPECT_DOUBLE_EQ(v, dpadmm::PrimalNoiseStd(0.2, 0.8, m.round));
  }
  // Empirical risk is on the TRUE labels: with no perturbation the round-0 risk is log 2.
  EXPECT_NEAR(clean.rounds[0].train_loss, std::log(2.0), 1e-15);
}

// ---------------------------------------------------------------------------------------------
// Phase 2's privacy: the sensitivity of w_i(r) and the composed Gaussian figure

namespace {

// One round of a noiseless node on `reported` (labels as given), all neighbours at 0.
Eigen::VectorXd FirstPrimal(const dpadmm::Dataset& reported, const Eigen::VectorXd& eps,
                            const dpadmm::PdmlNodeParams& p, double* sensitivity) {
  const Eigen::Index d = reported.cols();
  dpadmm::PdmlNode node(0, reported, eps, 2, Loss{}, {}, p, Eigen::VectorXd::Zero(d));
  *sensitivity = node.sensitivity();
  dpadmm::runtime::Outbox out(static_cast<std::size_t>(d));
  EXPECT_TRUE(node.Start(out).ok);
  std::vector<double> zero(static_cast<std::size_t>(d), 0.0);
  dpadmm::runtime::Inbox in(2);
  in.Set(0, zero);
  in.Set(1, zero);
  EXPECT_TRUE(node.Step(1, in, out).ok);
  std::vector<double> report(node.ReportSize());
  node.Report(1, report);
  return Eigen::Map<const Eigen::VectorXd>(report.data(), d);
}

}  // namespace

TEST(PdmlPhase2, SensitivityBoundsTheMinimisersShiftAndIsNearlyReachedByALabelFlip) {
  // Replacing one record (a row at norm 1 whose reported label flips, carrying the smallest
  // public label eps, so the largest debiasing weight) moves w_i(1) by at most
  // 2 (C/m)(1 + DW_max) / a; with a much larger than the data's curvature the flip reaches
  // (1 + 2 DW) / (2 + 2 DW) of it (0.95 at eps 0.1), so a bound too small by 20% fails here.
  dpadmm::Dataset data = dpadmm::GenerateTwonorm(50, 3, 6);
  data.Scale(1.0 / data.MaxRowNorm());
  auto& x = std::get<dpadmm::DenseRows>(data.x);
  x.row(0) /= x.row(0).norm();  // the canary's row at the norm bound
  Eigen::VectorXd eps = Eigen::VectorXd::Constant(data.rows(), 0.1);
  dpadmm::PdmlNodeParams p;
  p.C = 1.0;
  p.rho_node = 0.1;
  p.beta = 5.0;
  p.max_debias_weight = dpadmm::DebiasWeight(0.1);
  dpadmm::Dataset neighbour = data;
  data.y[0] = 1.0;
  neighbour.y[0] = -1.0;
  double bound = 0.0, bound2 = 0.0;
  const Eigen::VectorXd w = FirstPrimal(data, eps, p, &bound);
  const Eigen::VectorXd w2 = FirstPrimal(neighbour, eps, p, &bound2);
  const double a = p.rho_node + 2.0 * p.beta * 2.0;
  EXPECT_DOUBLE_EQ(bound, 2.0 * (p.C / 50.0) * (1.0 + dpadmm::DebiasWeight(0.1)) / a);
  EXPECT_EQ(bound, bound2);
  const double shift = (w - w2).norm();
  EXPECT_LE(shift, bound);
  EXPECT_GE(shift, 0.8 * bound) << "shift " << shift << " bound " << bound;
}

TEST(PdmlPhase2, TightEpsilonIsTheComposedGaussianOfEveryNode) {
  // Ring of 6 equal nodes (degree 2, equal rows), decay 1: every node releases T Gaussian
  // mechanisms with mu_r = (Delta + sqrt(d) s) / V, so its figure is the analytic Gaussian at
  // sqrt(T) mu_r. Decay 0.8 spends more (sigma shrinks), and V = 0 claims nothing.
  RunSpec s = Base("pdml");
  s.graph.topology = dpadmm::Topology::kRing;
  s.noise_seed = 3;
  dpadmm::test::Pdml(s).label_eps = 1.0;
  dpadmm::test::Pdml(s).V = 0.05;
  dpadmm::test::Pdml(s).decay = 1.0;
  Recorder run;
  const dpadmm::RunSummary summary = dpadmm::RunExperiment(s, &run);
  ASSERT_EQ(run.info.rows_per_node.size(), 6u);
  const double m = static_cast<double>(run.info.rows_per_node[0]);
  for (std::int64_t rows : run.info.rows_per_node) ASSERT_EQ(rows, run.info.rows_per_node[0]);
  const double a = s.algorithm.rho / 6.0 + 2.0 * s.algorithm.eta * 2.0;
  const double delta_w = 2.0 * (1.0 / m) * (1.0 + dpadmm::DebiasWeight(1.0)) / a;
  const double step = dpadmm::GaussianGridStep(0.05);
  const double mu = (delta_w + std::sqrt(20.0) * step) / 0.05;
  const double expected = dpadmm::AnalyticGaussianEpsilon(
      std::sqrt(static_cast<double>(s.iterations)) * mu, 1.0, summary.tight_delta);
  ASSERT_EQ(summary.node_tight_epsilon.size(), 6u);
  for (double e : summary.node_tight_epsilon) EXPECT_NEAR(e, expected, 1e-9 * expected);
  EXPECT_NEAR(summary.tight_epsilon, expected, 1e-9 * expected);
  // The trace's per-round figure: increasing, and its last value is the summary's, bit for bit.
  ASSERT_FALSE(run.rounds.empty());
  EXPECT_EQ(run.rounds.back().tight_epsilon, summary.tight_epsilon);
  for (std::size_t k = 2; k < run.rounds.size(); ++k) {
    EXPECT_GT(run.rounds[k].tight_epsilon, run.rounds[k - 1].tight_epsilon);
  }

  dpadmm::test::Pdml(s).decay = 0.8;
  EXPECT_GT(dpadmm::RunExperiment(s).tight_epsilon, 2.0 * expected);
  dpadmm::test::Pdml(s).V = 0.0;
  EXPECT_TRUE(std::isnan(dpadmm::RunExperiment(s).tight_epsilon));
}

TEST(PdmlPhase2, PreconditionsOfTheFigureAreEnforced) {
  RunSpec s = Base("pdml");
  dpadmm::test::Pdml(s).V = 0.05;
  s.noise_seed = 3;
  // A loose local solve: refused with V > 0 (the figure assumes the exact minimiser), fine
  // without primal noise (no Phase 2 figure).
  s.newton.gradient_tolerance = 1e-6;
  EXPECT_TRUE(ThrowsInputError([&] { (void)dpadmm::RunExperiment(s); }, {"gradient_tolerance"}));
  dpadmm::test::Pdml(s).V = 0.0;
  EXPECT_NO_THROW((void)dpadmm::RunExperiment(s));
  // Rows above the norm bound: refused with V > 0.
  s.newton.gradient_tolerance = 1e-10;
  dpadmm::test::Pdml(s).V = 0.05;
  s.data.scaling = dpadmm::Scaling::kNone;
  EXPECT_TRUE(ThrowsInputError([&] { (void)dpadmm::RunExperiment(s); }, {"norm"}));
}

// ---------------------------------------------------------------------------------------------
// Spec: defaults, bad parameters, JSON

TEST(PdmlSpec, DefaultsValidateAndBadParametersNameTheField) {
  RunSpec ok = Base("pdml");
  EXPECT_NO_THROW(ok.Validate());
  const auto bad = [&](auto edit, std::initializer_list<std::string> parts) {
    RunSpec s = Base("pdml");
    edit(s);
    return ThrowsInputError([&] { s.Validate(); }, parts);
  };
  EXPECT_TRUE(bad([](RunSpec& s) { dpadmm::test::Pdml(s).label_eps = -0.1; },
                  {"algorithm.pdml.label_eps", ">= 0"}));
  EXPECT_TRUE(bad(
      [](RunSpec& s) { dpadmm::test::Pdml(s).label_eps = std::numeric_limits<double>::infinity(); },
      {"algorithm.pdml.label_eps", "finite"}));
  EXPECT_TRUE(bad([](RunSpec& s) { dpadmm::test::Pdml(s).label_eps = std::nan(""); },
                  {"algorithm.pdml.label_eps"}));
  EXPECT_TRUE(bad(
      [](RunSpec& s) {
        dpadmm::test::Pdml(s).label_eps_groups = {0.4, 1.0};
        dpadmm::test::Pdml(s).label_eps_shares = {1.0};
      },
      {"algorithm.pdml.label_eps_shares", "one share per group"}));
  EXPECT_TRUE(bad(
      [](RunSpec& s) {
        dpadmm::test::Pdml(s).label_eps_groups = {0.4, -1.0};
        dpadmm::test::Pdml(s).label_eps_shares = {0.5, 0.5};
      },
      {"algorithm.pdml.label_eps_groups[1]"}));
  EXPECT_TRUE(bad(
      [](RunSpec& s) {
        dpadmm::test::Pdml(s).label_eps_groups = {0.4, 1.0};
        dpadmm::test::Pdml(s).label_eps_shares = {0.5, 0.0};
      },
      {"algorithm.pdml.label_eps_shares[1]", "> 0"}));
  EXPECT_TRUE(bad(
      [](RunSpec& s) {
        dpadmm::test::Pdml(s).label_eps_groups = {0.4, 1.0};
        dpadmm::test::Pdml(s).label_eps_shares = {0.5, 0.6};
      },
      {"algorithm.pdml.label_eps_shares", "summing to 1"}));
  EXPECT_TRUE(bad([](RunSpec& s) { dpadmm::test::Pdml(s).R = -1.0; }, {"algorithm.pdml.R"}));
  EXPECT_TRUE(bad([](RunSpec& s) { dpadmm::test::Pdml(s).V = -0.5; }, {"algorithm.pdml.V"}));
  EXPECT_TRUE(bad([](RunSpec& s) { dpadmm::test::Pdml(s).decay = 0.0; },
                  {"algorithm.pdml.decay", "(0, 1]"}));
  EXPECT_TRUE(bad([](RunSpec& s) { dpadmm::test::Pdml(s).decay = 1.5; }, {"algorithm.pdml.decay"}));
  EXPECT_TRUE(
      bad([](RunSpec& s) { s.loss.kind = LossKind::kSmoothHinge; }, {"loss.kind", "logistic"}));
  EXPECT_TRUE(
      bad([](RunSpec& s) { s.algorithm.privacy_budget = 1.0; }, {"algorithm.privacy_budget"}));
  EXPECT_TRUE(bad([](RunSpec& s) { s.algorithm.rho_per_node = true; }, {"algorithm.rho_per_node"}));
  EXPECT_TRUE(bad([](RunSpec& s) { s.algorithm.node_eta = {1, 1, 1, 1, 1, 1}; },
                  {"algorithm.node_eta", "not used by 'pdml'"}));
  // The other variants' parameters have no place in PDML's struct: a config naming them fails.
  for (const char* field : {"alpha", "q1", "dual_step"}) {
    RunSpec s = Base("pdml");
    const std::string json =
        std::string(R"({"algorithm": {"name": "pdml", "pdml": {")") + field + R"(": 1}}})";
    EXPECT_TRUE(ThrowsInputError([&] { dpadmm::ApplySpecJson(json, "run.json", s); },
                                 {"unknown field 'algorithm.pdml." + std::string(field) + "'"}));
  }
  EXPECT_TRUE(bad([](RunSpec& s) { s.algorithm.eta = 0.0; }, {"algorithm.eta"}));
}

TEST(PdmlSpec, JsonRoundTripsThePdmlFields) {
  RunSpec s = Base("pdml");
  s.data.add_bias = true;
  dpadmm::test::Pdml(s).label_eps = 0.7;
  dpadmm::test::Pdml(s).label_eps_groups = {0.4, 0.0};
  dpadmm::test::Pdml(s).label_eps_shares = {0.9, 0.1};
  dpadmm::test::Pdml(s).R = 9.0;
  dpadmm::test::Pdml(s).V = 0.35;
  dpadmm::test::Pdml(s).decay = 0.6;
  RunSpec back;
  dpadmm::ApplySpecJson(dpadmm::SpecToJson(s), "test", back);
  EXPECT_EQ(dpadmm::SpecToJson(back), dpadmm::SpecToJson(s));
  EXPECT_TRUE(back.data.add_bias);
  EXPECT_EQ(dpadmm::test::Pdml(back).label_eps_groups, dpadmm::test::Pdml(s).label_eps_groups);
  EXPECT_EQ(dpadmm::test::Pdml(back).decay, 0.6);
  EXPECT_TRUE(ThrowsInputError(
      [&] { dpadmm::ApplySpecJson(R"({"algorithm": {"pdml": {"R": "big"}}})", "run.json", back); },
      {"run.json", "algorithm.pdml.R must be a number"}));
}

TEST(PdmlRun, BiasFeatureAddsOneConstantColumn) {
  RunSpec s = Base("pdml");
  s.data.add_bias = true;
  dpadmm::Experiment exp(s);
  EXPECT_EQ(exp.train().cols(), 21);
  const auto& x = std::get<dpadmm::DenseRows>(exp.train().x);
  const double c = x(0, 20);
  EXPECT_GT(c, 0.0);
  for (Eigen::Index r = 0; r < x.rows(); ++r) EXPECT_EQ(x(r, 20), c);
  EXPECT_LE(exp.train().MaxRowNorm(), 1.0);
}
