// SPDX-License-Identifier: Apache-2.0
// ADMM sharing over distributed features (001): numerics against independent references,
// the noise of (16) (statistical), the privacy bounds against hand-computed values, engine
// determinism, outcomes and bad input. Generated data only.
#include <cmath>
#include <cstdint>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <Eigen/Dense>
#include <Eigen/QR>

#include "dpadmm/core/error.h"
#include "dpadmm/core/random.h"
#include "dpadmm/data/generators.h"
#include "dpadmm/data/loaders.h"
#include "dpadmm/data/preprocessing.h"
#include "dpadmm/privacy/accountant.h"
#include "dpadmm/privacy/samplers.h"
#include "dpadmm/privacy/sharing_accounting.h"
#include "dpadmm/run/run.h"
#include "dpadmm/run/spec_json.h"
#include "dpadmm/solver/loss.h"
#include "run_recorder.h"
#include "sharing/programs.h"
#include "test_helpers.h"

namespace dpadmm {
namespace {

using test::ThrowsInputError;

// The parameters of the selected sharing algorithm (the spec must have it selected).
SharingParams& Sh(RunSpec& s) { return s.algorithm.As<SharingParams>(); }
SgdParams& Sgd(RunSpec& s) {
  if (s.algorithm.name() == Algorithm::kSharing) {
    // Keep the party layout chosen so far when switching to the SGD baseline.
    const PartyLayout layout = Sh(s);
    s.algorithm.Select(Algorithm::kSgd);
    static_cast<PartyLayout&>(s.algorithm.As<SgdParams>()) = layout;
  }
  return s.algorithm.As<SgdParams>();
}

// Small generated problems: dense twonorm (20 features) and sparse high-dimensional data.
RunSpec SmallSpec(int parties) {
  RunSpec s = RunSpec::Defaults(Algorithm::kSharing);
  s.data.source = dpadmm::DataSource::kTwonorm;
  s.data.rows = 500;
  s.data.dims = 20;
  Sh(s).parties = parties;
  Sh(s).lambda = 1e-2;
  Sh(s).rho = 0.01;  // ~ 1/N for N = 350 training rows (see SharingSpec::rho)
  s.engine = dpadmm::runtime::EngineKind::kSerial;
  return s;
}

class Recorder : public RunObserver {
 public:
  void OnRound(const RoundMetrics& m) override { rows.push_back(m); }
  std::vector<RoundMetrics> rows;
};

// --- Convergence to the centralized optimum ---------------------------------------------------

class SharingOptimum : public ::testing::TestWithParam<int> {};

TEST_P(SharingOptimum, NoiseFreeAdmmReachesTheCentralizedOptimum) {
  // The centralized optimum F* of the same objective, mean log loss + lambda ||f||^2 / 2, comes
  // from the Newton solver on all features (info.central). ADMM sharing must reach it to 1e-6
  // relative in the objective; the model must agree to 1e-4 relative (the objective is
  // quadratic near the optimum, so 1e-6 in F corresponds to about 1e-3 in f at worst; we ask
  // more and get it).
  RunSpec s = SmallSpec(GetParam());
  s.iterations = 300;
  const Experiment e(s);
  const RunSummary r = e.Run();
  ASSERT_EQ(r.outcome, RunOutcome::kCompleted) << r.message;
  const double fstar = e.info().central.objective;
  EXPECT_LE(std::abs(r.final.objective - fstar), 1e-6 * fstar)
      << "objective " << r.final.objective << " vs optimum " << fstar;
  EXPECT_LE((r.model - e.optimum()).norm(), 1e-4 * e.optimum().norm());
  EXPECT_LT(r.final.primal_residual, 1e-6);
}

INSTANTIATE_TEST_SUITE_P(SharingParties, SharingOptimum, ::testing::Values(2, 3, 5));

TEST(SharingOptimumSparse, UnevenBlocksOfSparseData) {
  RunSpec s = RunSpec::Defaults(Algorithm::kSharing);
  s.data.source = dpadmm::DataSource::kSparse;
  s.data.rows = 600;
  s.data.dims = 60;
  Sh(s).parties = 3;
  Sh(s).party_features = {30, 20, 10};
  Sh(s).lambda = 1e-2;
  Sh(s).rho = 0.01;
  s.iterations = 400;
  s.engine = dpadmm::runtime::EngineKind::kSerial;
  const Experiment e(s);
  const RunSummary r = e.Run();
  ASSERT_EQ(r.outcome, RunOutcome::kCompleted) << r.message;
  const double fstar = e.info().central.objective;
  EXPECT_LE(std::abs(r.final.objective - fstar), 1e-6 * fstar);
}

// --- x update (6): closed form against a generic least-squares solve ---------------------------

void CheckXUpdate(const Dataset& block) {
  const double lambda = 0.3, rho = 1.7;
  const std::int64_t n = block.rows(), d = block.cols();
  Stream rng(11, 0, 0, Purpose::kInitialState);
  Eigen::VectorXd y(n), c(n);
  for (std::int64_t k = 0; k < n; ++k) {
    y[k] = rng.Normal();
    c[k] = rng.Normal();
  }
  // Closed form: (lambda I + rho D^T D) x = -D^T (y + rho c).
  const sharing::XUpdate xu(sharing::Gram(block), lambda, rho);
  Eigen::VectorXd x;
  xu.Solve(sharing::TransposeTimes(block, -(y + rho * c)), x);
  // Generic: lambda ||x||^2/2 + <y, Dx> + rho/2 ||Dx + c||^2 = rho/2 ||Dx + c + y/rho||^2 +
  // lambda/2 ||x||^2 + const, i.e. the stacked least-squares problem
  //   min || [sqrt(rho) D; sqrt(lambda) I] x - [-sqrt(rho) (c + y/rho); 0] ||,
  // solved by column-pivoted QR on the dense matrix.
  Eigen::MatrixXd dense =
      VisitRows(block, [](const auto& m) -> Eigen::MatrixXd { return Eigen::MatrixXd(m); });
  Eigen::MatrixXd a(n + d, d);
  a << std::sqrt(rho) * dense, std::sqrt(lambda) * Eigen::MatrixXd::Identity(d, d);
  Eigen::VectorXd b = Eigen::VectorXd::Zero(n + d);
  b.head(n) = -std::sqrt(rho) * (c + y / rho);
  const Eigen::VectorXd ref = a.colPivHouseholderQr().solve(b);
  EXPECT_LE((x - ref).norm(), 1e-10 * std::max(1.0, ref.norm()));
}

TEST(SharingXUpdate, ClosedFormMatchesGenericSolveDense) {
  const Dataset data = GenerateTwonorm(80, 3, 12);
  CheckXUpdate(sharing::ColumnBlock(data, 4, 6));
}

TEST(SharingXUpdate, ClosedFormMatchesGenericSolveSparse) {
  SparseHighDimOptions o;
  o.rows = 150;
  o.dims = 40;
  o.informative = 10;
  o.nnz_per_row = 8;
  const Dataset data = GenerateSparseHighDim(o, 5);
  CheckXUpdate(sharing::ColumnBlock(data, 10, 25));
}

TEST(SharingXUpdate, ColumnBlockAndGramAgreeWithDenseAlgebra) {
  SparseHighDimOptions o;
  o.rows = 50;
  o.dims = 30;
  o.informative = 5;
  o.nnz_per_row = 6;
  const Dataset data = GenerateSparseHighDim(o, 9);
  const Eigen::MatrixXd full = Eigen::MatrixXd(std::get<SparseRows>(data.x));
  const Dataset block = sharing::ColumnBlock(data, 7, 11);
  const Eigen::MatrixXd b = Eigen::MatrixXd(std::get<SparseRows>(block.x));
  EXPECT_EQ(b, full.middleCols(7, 11));
  EXPECT_LE((sharing::Gram(block) - b.transpose() * b).norm(), 1e-12 * (b.transpose() * b).norm());
}

// --- z update (7), per sample ------------------------------------------------------------------

TEST(SharingZUpdate, EverySampleSolvesItsScalarProblem) {
  // phi_n(z) = (1/N) log(1 + exp(-a_n z)) - y_n z + (rho/2) (s_n - z)^2. Reference: plain
  // bisection on phi_n' over a wide bracket, 200 halvings, written independently here.
  const int n = 9;
  const double rho = 0.05;
  Eigen::VectorXd s(n), y(n), labels(n);
  s << 0.0, 1.0, -2.0, 30.0, -30.0, 0.5, 1e-3, 4.0, -0.7;
  y << 0.0, 0.01, -0.02, 0.1, 0.0, -0.3, 0.05, 0.0, 0.2;
  labels << 1, -1, 1, -1, 1, 1, -1, -1, 1;
  Eigen::VectorXd z;
  const sharing::ZUpdateReport r = sharing::UpdateZ(s, y, labels, rho, 1e-14, 60, z);
  ASSERT_TRUE(r.converged);
  const Loss logistic;
  for (int k = 0; k < n; ++k) {
    const auto dphi = [&](double v) {
      return labels[k] * logistic.D1(labels[k] * v) / n - y[k] + rho * (v - s[k]);
    };
    double lo = -1e3, hi = 1e3;
    for (int it = 0; it < 200; ++it) {
      const double mid = 0.5 * (lo + hi);
      (dphi(mid) > 0.0 ? hi : lo) = mid;
    }
    EXPECT_NEAR(z[k], 0.5 * (lo + hi), 1e-11 * std::max(1.0, std::abs(z[k]))) << "sample " << k;
    EXPECT_LE(std::abs(dphi(z[k])), 1e-12);
  }
  EXPECT_LE(r.iterations, 10);  // Newton from the bracket's centre: a handful of steps
}

TEST(SharingZUpdate, ReportsNonConvergence) {
  Eigen::VectorXd s = Eigen::VectorXd::Constant(3, 0.3), y = Eigen::VectorXd::Zero(3);
  Eigen::VectorXd labels = Eigen::VectorXd::Ones(3);
  Eigen::VectorXd z;
  // One Newton step cannot reach a 1e-300 step tolerance.
  const sharing::ZUpdateReport r = sharing::UpdateZ(s, y, labels, 1e-3, 1e-300, 1, z);
  EXPECT_FALSE(r.converged);
  EXPECT_GE(r.worst_sample, 0);
}

// --- Noise of (16): covariance sigma^2 (D^T D)^{-1} ----------------------------------------

TEST(SharingNoise, CovarianceIsSigmaSquaredTimesInverseGram) {
  // G = D^T D for a fixed 40 x 3 dense block; xi ~ N(0, sigma^2 G^{-1}). With G = L L^T
  // (computed here independently by Eigen's LLT), w = L^T xi / sigma must be N(0, I_3).
  // n = 40,000 draws (fixed seeds): each sample-covariance entry of w has standard deviation
  // sqrt(2/n) = 0.0071 (diagonal) or sqrt(1/n) = 0.0050 (off-diagonal), each mean 0.0050.
  // Threshold 5.5 standard deviations per statistic: two-sided false-positive rate 3.8e-8 each,
  // under 1e-6 for the 9 statistics together.
  const Dataset data = GenerateTwonorm(40, 21, 3);
  const Eigen::MatrixXd gram = sharing::Gram(data);
  const sharing::GramNoise noise(gram);
  ASSERT_FALSE(noise.uses_pseudo_inverse());
  ASSERT_EQ(noise.rank(), 3);
  const double sigma = 2.5;
  const Eigen::MatrixXd lt = Eigen::LLT<Eigen::MatrixXd>(gram).matrixU();
  const int n = 40000;
  Eigen::Vector3d mean = Eigen::Vector3d::Zero();
  Eigen::Matrix3d cov = Eigen::Matrix3d::Zero();
  Eigen::VectorXd xi(3);
  for (int k = 0; k < n; ++k) {
    Stream stream(77, 1, static_cast<std::uint64_t>(k), Purpose::kNoise);
    noise.Draw(stream, sigma, xi);
    const Eigen::Vector3d w = lt * xi / sigma;
    mean += w;
    cov += w * w.transpose();
  }
  mean /= n;
  cov /= n;
  for (int i = 0; i < 3; ++i) {
    EXPECT_LE(std::abs(mean[i]), 5.5 * std::sqrt(1.0 / n)) << i;
    for (int j = 0; j < 3; ++j) {
      const double target = i == j ? 1.0 : 0.0, sd = std::sqrt((i == j ? 2.0 : 1.0) / n);
      EXPECT_LE(std::abs(cov(i, j) - target), 5.5 * sd) << i << "," << j;
    }
  }
}

TEST(SharingNoise, SingularGramUsesThePseudoInverse) {
  // Column 2 = column 0 + column 1 (as one-hot blocks do): G is singular. The noise must lie in
  // the row space of D (no component along the null vector (1, 1, -1)), and the shared value
  // D xi must have variance sigma^2 along any unit direction u of the column space of D
  // (covariance sigma^2 P). n = 40,000 draws of u^T D xi / sigma: sample variance has sd
  // sqrt(2/n) = 0.0071 around 1; threshold 5.5 sd (false-positive rate 3.8e-8).
  Eigen::MatrixXd d(30, 3);
  Stream rng(5, 0, 0, Purpose::kGenerateData);
  for (int r = 0; r < 30; ++r) {
    d(r, 0) = rng.Normal();
    d(r, 1) = rng.Normal();
    d(r, 2) = d(r, 0) + d(r, 1);
  }
  const sharing::GramNoise noise(d.transpose() * d);
  ASSERT_TRUE(noise.uses_pseudo_inverse());
  EXPECT_EQ(noise.rank(), 2);
  const Eigen::VectorXd u = (d.col(0) - 0.3 * d.col(1)).normalized();
  const Eigen::Vector3d null_vector = Eigen::Vector3d(1, 1, -1).normalized();
  const double sigma = 0.7;
  const int n = 40000;
  double var = 0.0;
  Eigen::VectorXd xi(3);
  for (int k = 0; k < n; ++k) {
    Stream stream(78, 2, static_cast<std::uint64_t>(k), Purpose::kNoise);
    noise.Draw(stream, sigma, xi);
    ASSERT_LE(std::abs(null_vector.dot(xi)), 1e-9 * xi.norm());
    const double v = u.dot(d * xi) / sigma;
    var += v * v;
  }
  var /= n;
  EXPECT_LE(std::abs(var - 1.0), 5.5 * std::sqrt(2.0 / n));
}

// --- Privacy bounds (001 Lemma 1, Theorem 3, Corollary 1) against hand-computed values -------

TEST(SharingAccounting, Lemma1Sensitivity) {
  // d_m = 66, rho = 1, lambda = 1e-4, c1 = 1, M = 2, b1 = 1:
  //   3 / (66 * 1) * (1e-4 * 1 + (1 + 2 * 1) * 1) = 9.0003 / 66 = 30001 / 220000 = 0.13636818...
  EXPECT_NEAR(SharingSensitivity(66, 1.0, 1e-4, 1.0, 2, 1.0), 30001.0 / 220000.0, 1e-15);
  // d_m = 2000, rho = 0.5, lambda = 0.01, c1 = 1, M = 3, b1 = 2:
  //   3 / 1000 * (0.01 + 2.5 * 2) = 0.003 * 5.01 = 0.01503
  EXPECT_NEAR(SharingSensitivity(2000, 0.5, 0.01, 1.0, 3, 2.0), 0.01503, 1e-16);
}

TEST(SharingAccounting, Theorem3Sigma) {
  // ln(1.25 / 1e-5) = ln(125000) = 11.736069016284439; sqrt(2 * that) = 4.844805262605389;
  // sigma = 4.844805262605389 * 0.13636818181818 / 0.5 = 1.3213545698493114.
  EXPECT_NEAR(SharingGaussianSigma(0.5, 1e-5, 30001.0 / 220000.0), 1.3213545698493114, 1e-13);
  EXPECT_DOUBLE_EQ(SharingGaussianSigma(1.0, 0.5, 0.0), 0.0);
  EXPECT_TRUE(ThrowsInputError([] { SharingGaussianSigma(1.5, 1e-5, 1.0); }, {"eps", "(0, 1]"}));
  EXPECT_TRUE(ThrowsInputError([] { SharingGaussianSigma(0.5, 0.0, 1.0); }, {"delta"}));
}

TEST(SharingAccounting, Corollary1AdvancedComposition) {
  // eps = 0.1, T = 50, delta' = 1e-5: sqrt(2 * 50 * ln(1e5)) = sqrt(1151.2925464970229)
  //   = 33.93070212207556; * 0.1 = 3.393070212207556; T eps (e^eps - 1) = 5 * 0.10517091807564763
  //   = 0.5258545903782381; total 3.918924802585794. delta: 50 * 1e-5 + 1e-5 = 5.1e-4.
  EXPECT_NEAR(SharingTotalEpsilon(0.1, 50, 1e-5), 3.918924802585794, 1e-13);
  EXPECT_NEAR(SharingTotalDelta(1e-5, 50, 1e-5), 5.1e-4, 1e-18);
  EXPECT_EQ(SharingTotalEpsilon(0.1, 0, 1e-5), 0.0);
  // Theorem 3 inverted: sigma = 1.3213545698493114 buys eps = 0.5 back.
  EXPECT_NEAR(SharingEpsilonForSigma(1.3213545698493114, 1e-5, 30001.0 / 220000.0), 0.5, 1e-14);
  EXPECT_TRUE(ThrowsInputError([] { SharingTotalEpsilon(0.1, -1, 1e-5); }, {"T"}));
  EXPECT_TRUE(ThrowsInputError([] { SharingSensitivity(0, 1.0, 1.0, 1.0, 2, 1.0); }, {"d_m"}));
  EXPECT_TRUE(ThrowsInputError([] { SharingSensitivity(5, 0.0, 1.0, 1.0, 2, 1.0); }, {"rho"}));
}

TEST(SharingAccounting, RunReportsPerIterationAndTotalPrivacy) {
  RunSpec s = SmallSpec(2);
  Sh(s).dp = true;
  Sh(s).mechanism = "paper16";  // 001's figures (not DP as stated)
  Sh(s).b1 = 1.0;
  Sh(s).epsilon = 0.5;
  s.iterations = 3;
  const Experiment e(s);
  Recorder rec;
  const RunSummary r = e.Run(&rec);
  ASSERT_EQ(r.outcome, RunOutcome::kCompleted) << r.message;
  ASSERT_EQ(rec.rows.size(), 4u);
  // d_m = 10 for both parties, rho = 0.01, lambda = 0.01, c1 = 1, M = 2, b1 = 1:
  //   C = 3 / (10 * 0.01) * (0.01 + (1 + 2 * 0.01) * 1) = 30 * 1.03 = 30.9,
  //   sigma = sqrt(2 ln(1.25/1e-5)) * 30.9 / 0.5 = 4.844805262605389 * 61.8.
  const double sens = 30.9;
  ASSERT_EQ(e.info().party_sigma.size(), 2u);
  EXPECT_NEAR(e.info().party_sensitivity[0], sens, 1e-13);
  EXPECT_NEAR(e.info().party_sigma[1], 4.844805262605389 * 61.8, 1e-11);
  EXPECT_EQ(rec.rows[0].epsilon_total, 0.0);
  EXPECT_EQ(rec.rows[3].epsilon_iteration, 0.5);
  EXPECT_DOUBLE_EQ(rec.rows[3].epsilon_total, SharingTotalEpsilon(0.5, 3, 1e-5));
  EXPECT_DOUBLE_EQ(rec.rows[3].delta_total, 3 * 1e-5 + 1e-5);
  ASSERT_EQ(e.info().party_epsilon_total.size(), 2u);
  EXPECT_DOUBLE_EQ(e.info().party_epsilon_total[0], SharingTotalEpsilon(0.5, 3, 1e-5));
  // The variant is labelled everywhere: guarantee sentence and a run warning.
  EXPECT_NE(e.info().privacy_guarantee.find("NOT DP as stated"), std::string::npos);
  bool warned = false;
  for (const auto& w : r.warnings) warned |= w.find("NOT DP as stated") != std::string::npos;
  EXPECT_TRUE(warned);
}

// --- The default mechanism: Gaussian noise on the message, ||x_m|| <= b1 enforced -----------

// The l2 norm of the part of v outside the column space of d.
double ResidualOutsideColumnSpace(const Eigen::MatrixXd& d, const Eigen::VectorXd& v) {
  const Eigen::HouseholderQR<Eigen::MatrixXd> qr(d);
  const Eigen::MatrixXd q = qr.householderQ() * Eigen::MatrixXd::Identity(d.rows(), d.cols());
  return (v - q * (q.transpose() * v)).norm();
}

// One party's first message (iteration 1, x = y = z = 0: the release is pure noise).
Eigen::VectorXd FirstMessage(const Dataset& block, sharing::SharingMechanism mechanism,
                             double sigma, std::uint64_t seed) {
  const Eigen::MatrixXd gram = sharing::Gram(block);
  const sharing::XUpdate xupdate(gram, 1e-2, 0.01, 1.0);
  const sharing::GramNoise noise(gram);
  sharing::PartyParams pp;
  pp.mechanism = mechanism;
  pp.rho = 0.01;
  pp.lambda = 1e-2;
  pp.sigma = sigma;
  pp.epsilon = 0.1;
  pp.noise_seed = seed;
  sharing::SharingParty party(block, xupdate, &noise, pp);
  const std::size_t n = static_cast<std::size_t>(block.rows());
  runtime::Outbox out(n);
  EXPECT_TRUE(party.Start(out).ok);
  const std::vector<double> zero(2 * n, 0.0);
  runtime::Inbox in(1);
  in.Set(0, zero);
  EXPECT_TRUE(party.Step(1, in, out).ok);
  const auto m = out.message();
  EXPECT_EQ(m.size(), n);
  return Eigen::Map<const Eigen::VectorXd>(m.data(), static_cast<Eigen::Index>(m.size()));
}

TEST(SharingGaussianMechanism, FirstMessageIsNotConfinedToTheColumnSpace) {
  // 40 rows, 3 features (row norms <= 1). At iteration 1 the message is pure noise. Eq. (16)'s
  // noise D xi lies in col(D): its residual outside col(D) is only the grid rounding
  // (<= sqrt(N) step / 2), which lets an observer tell D from a neighbour D' (whose col(D')
  // differs). The default mechanism's N(0, sigma^2 I_N) has a residual of the noise's size,
  // about sigma sqrt(N - d) = 6.1 for sigma = 1.
  Dataset data = GenerateTwonorm(40, 11, 3);
  ClipRows(data);
  Dataset block = sharing::ColumnBlock(data, 0, 3);
  block.y.resize(0);
  const Eigen::MatrixXd d = std::get<DenseRows>(block.x);
  const double grid_bound = std::sqrt(40.0) * kGridStep / 2.0 + 1e-12;
  for (std::uint64_t seed : {1u, 2u, 3u}) {
    const Eigen::VectorXd eq16 =
        FirstMessage(block, sharing::SharingMechanism::kPaper16, 1.0, seed);
    const Eigen::VectorXd gauss =
        FirstMessage(block, sharing::SharingMechanism::kGaussian, 1.0, seed);
    EXPECT_GT(eq16.norm(), 0.1);  // there is noise
    EXPECT_LE(ResidualOutsideColumnSpace(d, eq16), grid_bound) << seed;
    EXPECT_GT(ResidualOutsideColumnSpace(d, gauss), 0.5 * std::sqrt(37.0)) << seed;
    EXPECT_LT(ResidualOutsideColumnSpace(d, gauss), 2.0 * std::sqrt(37.0)) << seed;
    for (Eigen::Index k = 0; k < gauss.size(); ++k) EXPECT_TRUE(OnGrid(gauss[k]));
  }
}

TEST(SharingGaussianMechanism, XStepKeepsTheNormBoundInEveryRound) {
  RunSpec s = SmallSpec(2);
  Sh(s).dp = true;
  Sh(s).b1 = 0.5;
  Sh(s).total_epsilon = 5.0;
  s.noise_seed = 4;
  s.iterations = 12;
  s.compute_optimum = false;
  Recorder rec;
  const RunSummary r = Experiment(s).Run(&rec);
  ASSERT_EQ(r.outcome, RunOutcome::kCompleted) << r.message;
  ASSERT_EQ(rec.rows.size(), 13u);
  double largest = 0.0;
  for (const auto& m : rec.rows) {
    EXPECT_LE(m.max_x_norm, 0.5 * (1.0 + 1e-12)) << m.round;
    largest = std::max(largest, m.max_x_norm);
  }
  EXPECT_GT(largest, 0.45);  // the bound binds (else this test could not fail)
  // Without the bound (the non-private run) x_m leaves the ball.
  RunSpec unbounded = s;
  Sh(unbounded).dp = false;
  Recorder free_rec;
  ASSERT_EQ(Experiment(unbounded).Run(&free_rec).outcome, RunOutcome::kCompleted);
  double free_largest = 0.0;
  for (const auto& m : free_rec.rows) free_largest = std::max(free_largest, m.max_x_norm);
  EXPECT_GT(free_largest, 0.6);
}

TEST(SharingGaussianMechanism, ConstrainedXStepIsTheMinimiserOverTheBall) {
  Dataset data = GenerateTwonorm(60, 5, 4);
  ClipRows(data);
  const Eigen::MatrixXd gram = sharing::Gram(data);
  const double lambda = 1e-3, rho = 0.5, b = 0.3;
  const sharing::XUpdate bounded(gram, lambda, rho, b);
  const sharing::XUpdate plain(gram, lambda, rho);
  Eigen::MatrixXd a = rho * gram;
  a.diagonal().array() += lambda;
  const Eigen::VectorXd rhs = Eigen::VectorXd::LinSpaced(4, 1.0, 4.0);
  Eigen::VectorXd x, x_free;
  bounded.Solve(rhs, x);
  plain.Solve(rhs, x_free);
  ASSERT_GT(x_free.norm(), b);  // the constraint is active
  EXPECT_LE(x.norm(), b);
  EXPECT_NEAR(x.norm(), b, 1e-9);
  const auto f = [&](const Eigen::VectorXd& v) { return 0.5 * v.dot(a * v) - rhs.dot(v); };
  // KKT: A x - rhs = -nu x with nu >= 0.
  const Eigen::VectorXd g = a * x - rhs;
  const double nu = -g.dot(x) / x.squaredNorm();
  EXPECT_GT(nu, 0.0);
  EXPECT_LT((g + nu * x).norm(), 1e-8 * rhs.norm());
  // No better point on a grid of directions in the ball (the projection of x_free included).
  EXPECT_LE(f(x), f(x_free * (b / x_free.norm())) + 1e-12);
  Stream stream(3, 0, 0, Purpose::kInitialState);
  for (int k = 0; k < 200; ++k) {
    Eigen::VectorXd u(4);
    for (Eigen::Index j = 0; j < 4; ++j) u[j] = stream.Normal();
    EXPECT_LE(f(x), f(u * (b / u.norm())) + 1e-12);
  }
  // Inside the ball the bounded step is the plain one.
  Eigen::VectorXd small, small_free;
  bounded.Solve(1e-4 * rhs, small);
  plain.Solve(1e-4 * rhs, small_free);
  EXPECT_EQ(small, small_free);
}

TEST(SharingGaussianMechanism, ReportsTheTightEpsilonOfTheRun) {
  RunSpec s = SmallSpec(2);
  Sh(s).dp = true;
  Sh(s).total_epsilon = 3.0;
  Sh(s).delta = 1e-6;
  Sh(s).b1 = 2.0;
  s.noise_seed = 2;
  s.iterations = 6;
  const Experiment e(s);
  Recorder rec;
  const RunSummary r = e.Run(&rec);
  ASSERT_EQ(r.outcome, RunOutcome::kCompleted) << r.message;
  const RunInfo& info = e.info();
  const double n = static_cast<double>(info.train_rows);
  ASSERT_EQ(info.party_sigma.size(), 2u);
  for (std::size_t p = 0; p < 2; ++p) {
    const double sigma = info.party_sigma[p];
    const double sens = info.party_sensitivity[p];
    EXPECT_DOUBLE_EQ(sens, 2.0 * 2.0 * std::sqrt(n) + std::sqrt(n) * GaussianGridStep(sigma));
    const double tight = AnalyticGaussianEpsilon(std::sqrt(6.0) * sens, sigma, 1e-6);
    EXPECT_EQ(info.party_epsilon_total[p], tight);
    EXPECT_LE(tight, 3.0);
    EXPECT_GT(tight, 3.0 - 1e-6);  // calibrated to the target, not far below
    EXPECT_EQ(info.party_epsilon[p], AnalyticGaussianEpsilon(sens, sigma, 1e-6));
  }
  ASSERT_EQ(rec.rows.size(), 7u);
  EXPECT_EQ(rec.rows[0].epsilon_total, 0.0);
  EXPECT_EQ(rec.rows[6].epsilon_total, info.party_epsilon_total[0]);
  EXPECT_EQ(rec.rows[6].delta_total, 1e-6);
  EXPECT_EQ(rec.rows[2].epsilon_total,
            AnalyticGaussianEpsilon(std::sqrt(2.0) * info.party_sensitivity[0], info.party_sigma[0],
                                    1e-6));
  EXPECT_EQ(info.privacy_guarantee.find("NOT DP"), std::string::npos);
  // A sigma given directly is reported with its tight epsilon.
  RunSpec direct = s;
  Sh(direct).noise_sigma = 2.0 * info.party_sigma[0];
  const Experiment d(direct);
  EXPECT_EQ(d.info().party_epsilon_total[0],
            AnalyticGaussianEpsilon(std::sqrt(6.0) * d.info().party_sensitivity[0],
                                    2.0 * info.party_sigma[0], 1e-6));
  EXPECT_LT(d.info().party_epsilon_total[0], 3.0);
}

TEST(SharingGaussianMechanism, EpsilonsBeyondTheAccountingRangeAreRefused) {
  // mu = sqrt(T) C / sigma > 32 (eps above about 650): infinity, and a run refuses such sigma.
  EXPECT_EQ(SharingTightEpsilon(33.0, 1.0, 1, 1e-5), std::numeric_limits<double>::infinity());
  EXPECT_LT(SharingTightEpsilon(31.0, 1.0, 1, 1e-5), 700.0);
  EXPECT_TRUE(ThrowsInputError([] { SharingSigmaForTotalEpsilon(1000.0, 1e-5, 1.0, 10); },
                               {"total_epsilon"}));
  RunSpec s = SmallSpec(2);
  Sh(s).dp = true;
  Sh(s).noise_sigma = 1e-3;
  EXPECT_TRUE(ThrowsInputError([&] { Experiment e(s); }, {"algorithm.sharing.noise_sigma"}));
}

TEST(SharingGaussianMechanism, DefaultCalibrationIsBelowTenAndLearns) {
  // The defaults on the default data (sparse, 1,400 training rows, 2 parties, 20 iterations).
  RunSpec s = RunSpec::Defaults(Algorithm::kSharing);
  Sh(s).dp = true;
  s.noise_seed = 1;
  s.engine = runtime::EngineKind::kSerial;
  const Experiment e(s);
  const RunSummary r = e.Run();
  ASSERT_EQ(r.outcome, RunOutcome::kCompleted) << r.message;
  EXPECT_EQ(Sh(s).mechanism, "gaussian");
  for (double eps : e.info().party_epsilon_total) EXPECT_LE(eps, 10.0);
  EXPECT_LE(r.final.epsilon_total, 10.0);
  EXPECT_LE(r.final.delta_total, 1e-5);
  // Learns: well above the majority rate (51%), near the non-private run (87.7%).
  EXPECT_GT(1.0 - r.final.test_error, 0.80);
}

// --- Engines --------------------------------------------------------------------------------

TEST(SharingEngines, SerialAndTbbGiveIdenticalBits) {
  RunSpec s = SmallSpec(3);
  Sh(s).dp = true;  // noise included: the streams are keyed by (noise key, round)
  Sh(s).epsilon = 0.8;
  s.noise_seed = 8;  // simulation mode: reproducible noise
  s.iterations = 8;
  s.compute_optimum = false;
  s.noise_seed = 1;  // simulation mode: reproducible noise, objective evaluated
  const Experiment e(s);
  Recorder a, b, c;
  const RunSummary ra = e.RunOn(dpadmm::runtime::EngineKind::kSerial, 0, &a);
  const RunSummary rb = e.RunOn(dpadmm::runtime::EngineKind::kTbb, 2, &b);
  const RunSummary rc = e.RunOn(dpadmm::runtime::EngineKind::kTbb, 4, &c);
  ASSERT_EQ(a.rows.size(), 9u);
  ASSERT_EQ(b.rows.size(), a.rows.size());
  ASSERT_EQ(c.rows.size(), a.rows.size());
  for (std::size_t k = 0; k < a.rows.size(); ++k) {
    for (const auto* other : {&b, &c}) {
      EXPECT_EQ(a.rows[k].objective, other->rows[k].objective) << k;
      EXPECT_EQ(a.rows[k].test_loss, other->rows[k].test_loss) << k;
      EXPECT_EQ(a.rows[k].primal_residual, other->rows[k].primal_residual) << k;
    }
  }
  ASSERT_EQ(ra.model.size(), rb.model.size());
  for (Eigen::Index k = 0; k < ra.model.size(); ++k) {
    EXPECT_EQ(ra.model[k], rb.model[k]);
    EXPECT_EQ(ra.model[k], rc.model[k]);
  }
  // The noise does change the result (else this test could not fail on a noise mix-up).
  RunSpec quiet = s;
  Sh(quiet).dp = false;
  EXPECT_NE(Experiment(quiet).Run().model, ra.model);
}

// --- Outcomes ---------------------------------------------------------------------------------

TEST(SharingOutcome, CancelledBeforeTheFirstRound) {
  RunSpec s = SmallSpec(2);
  s.compute_optimum = false;
  runtime::StopToken stop;
  stop.RequestStop();
  const RunSummary r = RunExperiment(s, nullptr, &stop);
  EXPECT_EQ(r.outcome, RunOutcome::kCancelled);
  Sgd(s);  // the SGD baseline on the same parties
  EXPECT_EQ(RunExperiment(s, nullptr, &stop).outcome, RunOutcome::kCancelled);
}

TEST(SharingOutcome, NonFiniteShareFailsTheCoordinatorNamingPartyAndRound) {
  sharing::CoordinatorParams p;
  p.parties = 2;
  Eigen::VectorXd labels(3);
  labels << 1, -1, 1;
  sharing::SharingCoordinator c(labels, p);
  runtime::Outbox out(6);
  ASSERT_TRUE(c.Start(out).ok);
  const std::vector<double> good = {0.1, 0.2, 0.3};
  const std::vector<double> bad = {0.1, std::numeric_limits<double>::quiet_NaN(), 0.3};
  runtime::Inbox in(2);
  in.Set(0, good);
  in.Set(1, bad);
  const runtime::StepResult r = c.Step(4, in, out);
  ASSERT_FALSE(r.ok);
  EXPECT_NE(r.error.find("party 2"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("round 4"), std::string::npos) << r.error;
}

TEST(SharingOutcome, AdmmFailureIsDivergedNamingNodeAndRound) {
  // One Newton step cannot meet a 1e-300 tolerance: the coordinator's z update fails in the
  // first coordinator round (round 2), on both engines, as an outcome.
  RunSpec s = SmallSpec(2);
  Sh(s).z_tolerance = 1e-300;
  Sh(s).z_max_iterations = 1;
  s.compute_optimum = false;
  const Experiment e(s);
  for (const char* engine : {"serial", "tbb"}) {
    const RunSummary r = e.RunOn(ParseChoice<runtime::EngineKind>(engine, "engine"), 2);
    EXPECT_EQ(r.outcome, RunOutcome::kDiverged) << engine;
    EXPECT_NE(r.message.find("coordinator (node 0), round 2"), std::string::npos) << r.message;
    EXPECT_EQ(r.rounds, 0);
  }
}

TEST(SharingOutcome, PartiesAreRefusedLabels) {
  const Dataset data = GenerateTwonorm(20, 1, 4);
  const sharing::XUpdate xu(sharing::Gram(data), 1.0, 1.0);
  EXPECT_THROW(sharing::SharingParty(data, xu, nullptr, sharing::PartyParams{}),
               std::invalid_argument);
  Dataset features = data;
  features.y.resize(0);
  EXPECT_NO_THROW(sharing::SharingParty(features, xu, nullptr, sharing::PartyParams{}));
}

TEST(SharingOutcome, DivergenceIsAnOutcomeWithNodeAndRound) {
  // A learning rate far too large for SGD overflows the weights: outcome, not exception.
  RunSpec s = SmallSpec(2);
  Sgd(s);  // the SGD baseline on the same parties
  Sgd(s).learning_rate = 1e306;
  s.iterations = 5;
  s.compute_optimum = false;
  const RunSummary r = RunExperiment(s);
  EXPECT_EQ(r.outcome, RunOutcome::kDiverged);
  EXPECT_NE(r.message.find("party"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("epoch"), std::string::npos) << r.message;
}

// --- SGD baseline -----------------------------------------------------------------------------

TEST(SharingSgd, ApproachesTheOptimumAndIsReproducible) {
  RunSpec s = SmallSpec(2);
  Sgd(s);  // the SGD baseline on the same parties
  s.iterations = 40;
  Sgd(s).learning_rate = 1.0;
  Sgd(s).batch_size = 16;
  Sgd(s).lr_decay = 0.2;
  const Experiment e(s);
  const RunSummary r = e.Run();
  ASSERT_EQ(r.outcome, RunOutcome::kCompleted) << r.message;
  const double fstar = e.info().central.objective;
  EXPECT_GE(r.final.objective, fstar - 1e-12);
  EXPECT_LE(r.final.objective - fstar, 2e-3 * fstar);
  EXPECT_EQ(e.Run().model, r.model);
}

// --- Bad input ----------------------------------------------------------------------------------

TEST(SharingSpecValidate, DefaultsValidateAndRun) {
  RunSpec s = RunSpec::Defaults(Algorithm::kSharing);
  EXPECT_NO_THROW(s.Validate());
  s.iterations = 2;
  s.engine = dpadmm::runtime::EngineKind::kSerial;
  EXPECT_EQ(RunExperiment(s).outcome, RunOutcome::kCompleted);
}

TEST(SharingSpecValidate, EachFieldHasItsError) {
  const auto bad = [](auto edit, const std::string& field) {
    RunSpec s = RunSpec::Defaults(Algorithm::kSharing);
    edit(s);
    return ThrowsInputError([&] { s.Validate(); }, {field});
  };
  EXPECT_TRUE(bad([](RunSpec& s) { Sh(s).parties = 0; }, "algorithm.sharing.parties"));
  EXPECT_TRUE(
      bad([](RunSpec& s) { Sh(s).party_features = {3}; }, "algorithm.sharing.party_features"));
  EXPECT_TRUE(bad(
      [](RunSpec& s) {
        Sh(s).party_features = {3, 0};
      },
      "algorithm.sharing.party_features[1]"));
  EXPECT_TRUE(bad([](RunSpec& s) { Sh(s).lambda = 0.0; }, "algorithm.sharing.lambda"));
  EXPECT_TRUE(bad([](RunSpec& s) { Sh(s).rho = -1.0; }, "algorithm.sharing.rho"));
  EXPECT_TRUE(bad([](RunSpec& s) { s.iterations = -1; }, "iterations"));
  EXPECT_TRUE(bad([](RunSpec& s) { s.threads = -2; }, "threads"));
  EXPECT_TRUE(bad([](RunSpec& s) { Sh(s).z_tolerance = 0.0; }, "algorithm.sharing.z_tolerance"));
  EXPECT_TRUE(
      bad([](RunSpec& s) { Sh(s).z_max_iterations = 0; }, "algorithm.sharing.z_max_iterations"));
  EXPECT_TRUE(bad([](RunSpec& s) { Sh(s).epsilon = 2.0; }, "algorithm.sharing.epsilon"));
  EXPECT_TRUE(bad([](RunSpec& s) { Sh(s).delta = 1.0; }, "algorithm.sharing.delta"));
  EXPECT_TRUE(bad([](RunSpec& s) { Sh(s).noise_sigma = -1.0; }, "algorithm.sharing.noise_sigma"));
  EXPECT_TRUE(bad([](RunSpec& s) { Sh(s).delta_prime = 0.0; }, "algorithm.sharing.delta_prime"));
  EXPECT_TRUE(bad([](RunSpec& s) { Sh(s).b1 = 0.0; }, "algorithm.sharing.b1"));
  EXPECT_TRUE(bad([](RunSpec& s) { Sh(s).c1 = -1.0; }, "algorithm.sharing.c1"));
  EXPECT_TRUE(bad([](RunSpec& s) { Sgd(s).learning_rate = 0.0; }, "algorithm.sgd.learning_rate"));
  EXPECT_TRUE(bad([](RunSpec& s) { Sgd(s).lr_decay = -1.0; }, "algorithm.sgd.lr_decay"));
  EXPECT_TRUE(bad([](RunSpec& s) { Sgd(s).batch_size = 0; }, "algorithm.sgd.batch_size"));
  EXPECT_TRUE(bad([](RunSpec& s) { Sgd(s).init_sd = -1.0; }, "algorithm.sgd.init_sd"));
  EXPECT_TRUE(bad([](RunSpec& s) { s.data.sparse_informative = 0; }, "data.sparse_informative"));
  EXPECT_TRUE(bad([](RunSpec& s) { s.data.sparse_nnz_per_row = 0; }, "data.sparse_nnz_per_row"));
  EXPECT_TRUE(bad([](RunSpec& s) { s.data.sparse_flip_probability = 0.6; },
                  "data.sparse_flip_probability"));
  EXPECT_TRUE(
      bad([](RunSpec& s) { s.data.source = dpadmm::DataSource::kLibsvm; }, "data.train_path"));
  // Unknown names (an algorithm, an engine, a data source) fail where they are parsed.
  EXPECT_TRUE(ThrowsInputError([] { ParseChoice<Algorithm>("lbfgs", "algorithm.name"); },
                               {"algorithm.name"}));
  EXPECT_TRUE(
      ThrowsInputError([] { ParseChoice<runtime::EngineKind>("gpu", "engine"); }, {"engine"}));
  EXPECT_TRUE(
      ThrowsInputError([] { ParseChoice<DataSource>("gisette", "data.source"); }, {"data.source"}));
  // DP is a parameter of ADMM sharing only: the SGD baseline's struct has no such field.
  RunSpec s = RunSpec::Defaults(Algorithm::kSgd);
  EXPECT_TRUE(ThrowsInputError(
      [&] { ApplySpecJson(R"({"algorithm": {"sgd": {"dp": true}}})", "x.json", s); },
      {"unknown field 'algorithm.sgd.dp'"}));
}

TEST(SharingSpecValidate, FeatureCountsMustMatchTheData) {
  RunSpec s = SmallSpec(2);
  Sh(s).party_features = {12, 9};
  EXPECT_TRUE(ThrowsInputError([&] { Experiment e(s); }, {"party_features", "21", "20"}));
  Sh(s).party_features.clear();
  Sh(s).parties = 25;
  EXPECT_TRUE(ThrowsInputError([&] { Experiment e(s); }, {"parties", "25"}));
  s = SmallSpec(2);
  s.data.source = dpadmm::DataSource::kLibsvm;
  s.data.train_path = "/nonexistent/a9a";
  EXPECT_TRUE(ThrowsInputError([&] { Experiment e(s); }, {"/nonexistent/a9a"}));
}

TEST(SharingSpecJson, AppliesFieldsAndRejectsUnknownOnes) {
  RunSpec s = RunSpec::Defaults(Algorithm::kSharing);
  ApplySpecJson(R"({"algorithm": {"name": "sharing", "sharing": {"parties": 3,
                   "party_features": [1, 2, 3], "dp": true, "epsilon": 0.25}},
                   "data": {"source": "twonorm", "rows": 99}})",
                "x.json", s);
  EXPECT_EQ(Sh(s).parties, 3);
  EXPECT_EQ(Sh(s).party_features, (std::vector<std::int64_t>{1, 2, 3}));
  EXPECT_TRUE(Sh(s).dp);
  EXPECT_EQ(Sh(s).epsilon, 0.25);
  EXPECT_EQ(s.data.source, DataSource::kTwonorm);
  EXPECT_EQ(s.data.rows, 99);
  // Round trip.
  RunSpec t = RunSpec::Defaults(Algorithm::kSharing);
  ApplySpecJson(SpecToJson(s), "round-trip", t);
  EXPECT_EQ(SpecToJson(t), SpecToJson(s));
  const RunSpec before = s;
  EXPECT_TRUE(ThrowsInputError(
      [&] { ApplySpecJson(R"({"algorithm": {"sharing": {"rhoo": 1}}})", "x.json", s); },
      {"x.json", "unknown field 'algorithm.sharing.rhoo'"}));
  EXPECT_TRUE(ThrowsInputError(
      [&] { ApplySpecJson(R"({"algorithm": {"sharing": {"rho": "big"}}})", "x.json", s); },
      {"x.json", "algorithm.sharing.rho must be a number"}));
  EXPECT_TRUE(ThrowsInputError([&] { ApplySpecJson(R"({"data": {"rowz": 3}})", "x.json", s); },
                               {"x.json", "rowz"}));
  EXPECT_TRUE(
      ThrowsInputError([&] { ApplySpecJson("{\"rho\": ", "x.json", s); }, {"x.json", "syntax"}));
  EXPECT_EQ(SpecToJson(s), SpecToJson(before));  // unchanged on error
}

// An Experiment built from in-memory data runs bit for bit like the one that loads the same
// rows from a file (both families).
TEST(SharingInMemory, EqualsTheFileBasedRunBitForBit) {
  const Dataset all = GenerateTwonorm(400, 9, 10);
  const std::string path = test::TempPath("dpadmm_in_memory.csv");
  {
    std::ofstream out(path);
    out.precision(17);
    const auto& x = std::get<DenseRows>(all.x);
    for (Eigen::Index r = 0; r < x.rows(); ++r) {
      for (Eigen::Index c = 0; c < x.cols(); ++c) out << x(r, c) << ',';
      out << all.y[r] << '\n';
    }
  }
  for (Algorithm algorithm :
       {Algorithm::kAdmm, Algorithm::kDvp, Algorithm::kSharing, Algorithm::kSgd}) {
    RunSpec s = RunSpec::Defaults(algorithm);
    s.data.source = DataSource::kCsv;
    s.data.train_path = path;
    s.iterations = 6;
    s.graph.nodes = 4;
    s.engine = runtime::EngineKind::kSerial;
    s.noise_seed = 6;  // simulation mode: both runs draw the same noise
    if (algorithm == Algorithm::kDvp) s.algorithm.As<DvpParams>().alpha = 0.5;
    if (algorithm == Algorithm::kSharing) Sh(s).rho = 0.01;
    const Experiment from_file(s);
    // The same split as the file-based run: the CSV holds every row, the split is seeded.
    const TrainTest split = SplitTrainTest(LoadCsv(path), s.data.test_fraction, s.seed);
    const Experiment in_memory(s, split.train, split.test);
    test::RunRecorder a, b;
    const RunSummary ra = from_file.Run(&a);
    const RunSummary rb = in_memory.Run(&b);
    SCOPED_TRACE(ChoiceName(algorithm));
    EXPECT_EQ(ra.outcome, rb.outcome);
    test::ExpectSameBits(a.rounds, b.rounds);
    EXPECT_EQ(ra.model, rb.model);
    EXPECT_EQ(rb.info.dataset, "in-memory data");
  }
}

}  // namespace
}  // namespace dpadmm
