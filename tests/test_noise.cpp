// SPDX-License-Identifier: Apache-2.0
#include "dpadmm/privacy/noise.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <numbers>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <Eigen/Dense>

#include "dpadmm/core/error.h"
#include "dpadmm/core/random.h"
#include "test_helpers.h"

namespace dpadmm {
namespace {

// How the statistical checks are calibrated.
//
// Each check compares a statistic of n draws with its exact expectation under the target
// distribution, and is designed to fail for a correct sampler with probability about 4e-8:
//  - z-checks: |estimate - expected| < 5.5 standard errors, the standard error derived in the
//    comment beside each check from the exact moments. Two-sided normal tail at 5.5 sigma:
//    3.8e-8. With n >= 5e4 the central limit approximation is good; for the skewed statistics
//    (squares of Gamma or normal variables) the true tail may be a small factor above nominal.
//  - Kolmogorov-Smirnov checks: D_n = sup_x |F_n(x) - F(x)| < x_n with
//    x_n = sqrt(ln(2 / p) / (2 n)), p = 4e-8. By the Dvoretzky-Kiefer-Wolfowitz inequality with
//    Massart's constant, P(D_n > x) <= 2 exp(-2 n x^2) = p for every n: a rigorous bound.
// The fixed-seed tests are deterministic; the rate says how unlikely a correct sampler is to
// fail for an arbitrary seed. The FreshSeed* tests draw a new seed on every run (printed on
// failure; set DPADMM_FRESH_SEED to replay one): they make 29 checks in all, so a correct
// implementation fails a run of them with probability about 29 * 4e-8 ~ 1.2e-6.
constexpr double kSigmas = 5.5;
constexpr double kKsFalsePositive = 4e-8;
constexpr int kDraws = 100000;

double KsThreshold(int n) { return std::sqrt(std::log(2.0 / kKsFalsePositive) / (2.0 * n)); }

// sup_x |F_n(x) - F(x)| of the sample against a continuous CDF.
double KsStatistic(std::vector<double> sample, const std::function<double(double)>& cdf) {
  std::sort(sample.begin(), sample.end());
  const double n = static_cast<double>(sample.size());
  double d = 0.0;
  for (std::size_t i = 0; i < sample.size(); ++i) {
    const double f = cdf(sample[i]);
    d = std::max({d, (static_cast<double>(i) + 1.0) / n - f, f - static_cast<double>(i) / n});
  }
  return d;
}

// Regularized lower incomplete gamma P(d, x) for integer shape d >= 1: the CDF of Gamma(d, 1),
// P(d, x) = 1 - e^{-x} sum_{k=0}^{d-1} x^k / k!  (Erlang distribution).
double GammaCdfIntegerShape(int d, double x) {
  if (x <= 0.0) return 0.0;
  double term = 1.0, sum = 1.0;
  for (int k = 1; k < d; ++k) {
    term *= x / k;
    sum += term;
  }
  return 1.0 - std::exp(-x) * sum;
}

double NormalCdf(double x) { return 0.5 * std::erfc(-x / std::numbers::sqrt2); }

std::uint64_t FreshSeed() {
  if (const char* replay = std::getenv("DPADMM_FRESH_SEED")) {
    return std::strtoull(replay, nullptr, 10);
  }
  std::random_device device;
  const auto now =
      static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
  return ((std::uint64_t{device()} << 32) | device()) ^ now;
}

std::string SeedMessage(std::uint64_t seed) {
  return "fresh seed " + std::to_string(seed) +
         " (replay with DPADMM_FRESH_SEED=" + std::to_string(seed) + ")";
}

// n draws of dimension d, one per row, all from one stream.
using Sampler = std::function<void(Stream&, Eigen::Ref<Eigen::VectorXd>)>;
Eigen::MatrixXd DrawMany(std::uint64_t seed, int d, int n, const Sampler& sample) {
  Stream stream(seed, 0, 0, Purpose::kNoise);
  Eigen::MatrixXd draws(d, n);  // column k = draw k (contiguous, as Ref<VectorXd> wants)
  for (int k = 0; k < n; ++k) sample(stream, draws.col(k));
  return draws;
}

Sampler L2Laplace(double a) {
  return [a](Stream& s, Eigen::Ref<Eigen::VectorXd> out) { DrawL2Laplace(s, a, out); };
}
Sampler Gaussian(double sigma) {
  return [sigma](Stream& s, Eigen::Ref<Eigen::VectorXd> out) { DrawGaussian(s, sigma, out); };
}
Sampler UnitDirection() {
  return [](Stream& s, Eigen::Ref<Eigen::VectorXd> out) { DrawUnitDirection(s, out); };
}

// --- Checks shared by the fixed-seed and fresh-seed tests -------------------------------------

// The norm r = ||e|| of l2-Laplace noise is Gamma(shape d, scale 1/a):
//   E r = d / a, Var r = d / a^2, and the fourth central moment is (3 d^2 + 6 d) / a^4 (excess
//   kurtosis 6 / d), so the sample variance has standard error sqrt((2 d^2 + 6 d) / n) / a^2.
// 3 checks: mean, variance, KS of a r against the Gamma(d, 1) CDF.
void CheckL2LaplaceNorm(std::uint64_t seed, int d, double a, int n = kDraws) {
  SCOPED_TRACE("d = " + std::to_string(d) + ", a = " + std::to_string(a));
  const Eigen::MatrixXd e = DrawMany(seed, d, n, L2Laplace(a));
  const Eigen::VectorXd r = e.colwise().norm().transpose();
  const double mean = r.mean();
  const double variance = (r.array() - mean).square().sum() / (n - 1);
  EXPECT_NEAR(mean, d / a, kSigmas * std::sqrt(d / static_cast<double>(n)) / a);
  EXPECT_NEAR(variance, d / (a * a), kSigmas * std::sqrt((2.0 * d * d + 6.0 * d) / n) / (a * a));
  std::vector<double> scaled(r.data(), r.data() + n);
  for (double& x : scaled) x *= a;  // a r ~ Gamma(d, 1)
  EXPECT_LT(KsStatistic(scaled, [d](double x) { return GammaCdfIntegerShape(d, x); }),
            KsThreshold(n));
}

// Coordinates of e = r u (u uniform on the sphere, independent of r), with
//   E r^2 = d (d+1) / a^2, E r^4 = d (d+1) (d+2) (d+3) / a^4,
//   E u_j^2 = 1/d, E u_j^4 = 3 / (d (d+2)), E u_i^2 u_j^2 = 1 / (d (d+2)) (i != j):
//   E e_j = 0,        Var e_j = E r^2 / d = (d+1) / a^2;
//   E e_j^2 = (d+1) / a^2, Var e_j^2 = 3 (d+1)(d+3) / a^4 - (d+1)^2 / a^4 = 2 (d+1)(d+4) / a^4;
//   E e_0 e_1 = 0,    Var e_0 e_1 = E r^4 / (d (d+2)) = (d+1)(d+3) / a^4.
// 2 d + 1 checks (d >= 2).
void CheckL2LaplaceCoordinates(std::uint64_t seed, int d, double a, int n = kDraws) {
  SCOPED_TRACE("d = " + std::to_string(d) + ", a = " + std::to_string(a));
  const Eigen::MatrixXd e = DrawMany(seed, d, n, L2Laplace(a));
  const double a2 = a * a;
  for (int j = 0; j < d; ++j) {
    const Eigen::ArrayXd x = e.row(j).transpose().array();
    EXPECT_NEAR(x.mean(), 0.0, kSigmas * std::sqrt((d + 1.0) / n) / a) << "coordinate " << j;
    EXPECT_NEAR(x.square().mean(), (d + 1.0) / a2,
                kSigmas * std::sqrt(2.0 * (d + 1.0) * (d + 4.0) / n) / a2)
        << "coordinate " << j;
  }
  const double cross = (e.row(0).array() * e.row(1).array()).mean();
  EXPECT_NEAR(cross, 0.0, kSigmas * std::sqrt((d + 1.0) * (d + 3.0) / n) / a2);
}

// Unit vectors u (columns) uniform on the sphere in R^d, d >= 2:
//   E u_j = 0, Var u_j = E u_j^2 = 1/d           -> se(mean u_j) = sqrt(1 / (d n));
//   Var u_0^2 = 3 / (d (d+2)) - 1/d^2 = 2 (d-1) / (d^2 (d+2)).
// d = 2: the angle atan2(u_1, u_0) is uniform on (-pi, pi];
// d = 3: u_0 is uniform on [-1, 1] (Archimedes' hat-box theorem).
// d + 1 checks, plus one KS check for d = 2 or 3.
void CheckUniformDirections(const Eigen::MatrixXd& u) {
  const int d = static_cast<int>(u.rows());
  const int n = static_cast<int>(u.cols());
  SCOPED_TRACE("d = " + std::to_string(d));
  for (int j = 0; j < d; ++j) {
    EXPECT_NEAR(u.row(j).mean(), 0.0, kSigmas * std::sqrt(1.0 / (d * static_cast<double>(n))))
        << "coordinate " << j;
  }
  EXPECT_NEAR(u.row(0).array().square().mean(), 1.0 / d,
              kSigmas * std::sqrt(2.0 * (d - 1.0) / (d * d * (d + 2.0)) / n));
  if (d == 2) {
    std::vector<double> angle(static_cast<std::size_t>(n));
    for (int k = 0; k < n; ++k) angle[static_cast<std::size_t>(k)] = std::atan2(u(1, k), u(0, k));
    const auto uniform_angle = [](double t) {
      return (t + std::numbers::pi) / (2.0 * std::numbers::pi);
    };
    EXPECT_LT(KsStatistic(angle, uniform_angle), KsThreshold(n));
  } else if (d == 3) {
    std::vector<double> first;
    first.reserve(static_cast<std::size_t>(n));
    for (int k = 0; k < n; ++k) first.push_back(u(0, k));
    EXPECT_LT(KsStatistic(first, [](double x) { return std::clamp((x + 1.0) / 2.0, 0.0, 1.0); }),
              KsThreshold(n));
  }
}

// The direction e / ||e|| of l2-Laplace noise is uniform (CheckUniformDirections) and
// independent of the norm: E[r u_0^2] = E r E u_0^2 = 1/a, with
//   Var(r u_0^2) = E r^2 E u_0^4 - 1/a^2 = (3 (d+1) / (d+2) - 1) / a^2 = (2d+1) / ((d+2) a^2).
// d + 3 checks for d = 3.
void CheckL2LaplaceDirection(std::uint64_t seed, int d, double a, int n = kDraws) {
  SCOPED_TRACE("a = " + std::to_string(a));
  const Eigen::MatrixXd e = DrawMany(seed, d, n, L2Laplace(a));
  const Eigen::RowVectorXd r = e.colwise().norm();
  const Eigen::MatrixXd u = e.array().rowwise() / r.array();
  CheckUniformDirections(u);
  const double r_u0_sq = (r.array() * u.row(0).array().square()).mean();
  EXPECT_NEAR(r_u0_sq, 1.0 / a, kSigmas * std::sqrt((2.0 * d + 1.0) / ((d + 2.0) * n)) / a);
}

// N(0, sigma^2 I): E x_j = 0 (se sigma / sqrt(n)); E x_j^2 = sigma^2 with Var x_j^2 =
// 2 sigma^4 (se sigma^2 sqrt(2/n)); E x_0 x_1 = 0 with Var = sigma^4 (se sigma^2 / sqrt(n));
// KS of x_0 / sigma against the standard normal CDF. 2 d + 2 checks.
void CheckGaussian(std::uint64_t seed, int d, double sigma, int n = kDraws) {
  SCOPED_TRACE("sigma = " + std::to_string(sigma));
  const Eigen::MatrixXd x = DrawMany(seed, d, n, Gaussian(sigma));
  const double s2 = sigma * sigma;
  for (int j = 0; j < d; ++j) {
    EXPECT_NEAR(x.row(j).mean(), 0.0, kSigmas * sigma / std::sqrt(n)) << "coordinate " << j;
    EXPECT_NEAR(x.row(j).array().square().mean(), s2, kSigmas * s2 * std::sqrt(2.0 / n))
        << "coordinate " << j;
  }
  EXPECT_NEAR((x.row(0).array() * x.row(1).array()).mean(), 0.0, kSigmas * s2 / std::sqrt(n));
  std::vector<double> first;
  first.reserve(static_cast<std::size_t>(n));
  for (int k = 0; k < n; ++k) first.push_back(x(0, k) / sigma);
  EXPECT_LT(KsStatistic(first, NormalCdf), KsThreshold(n));
}

// d = 1: u = +1 or -1 with probability 1/2 each; the count of +1 is Binomial(n, 1/2) with
// sd sqrt(n) / 2. 1 check.
void CheckUnitDirectionOneDimensional(std::uint64_t seed, int n = kDraws) {
  const Eigen::MatrixXd u = DrawMany(seed, 1, n, UnitDirection());
  int plus = 0;
  for (int k = 0; k < n; ++k) {
    ASSERT_TRUE(u(0, k) == 1.0 || u(0, k) == -1.0) << u(0, k);
    plus += u(0, k) > 0.0 ? 1 : 0;
  }
  EXPECT_NEAR(plus, n / 2.0, kSigmas * std::sqrt(static_cast<double>(n)) / 2.0);
}

// --- DrawL2Laplace -----------------------------------------------------------------------------

TEST(L2LaplaceTest, NormIsGammaShapeDScaleOneOverA) {
  CheckL2LaplaceNorm(101, 1, 0.5);  // d = 1: |e| ~ Exp(rate a), e is Laplace(0, 1/a)
  CheckL2LaplaceNorm(102, 3, 2.0);
  CheckL2LaplaceNorm(103, 10, 0.3, 50000);
}

TEST(L2LaplaceTest, NormOfFirstDrawsOfDistinctStreamsIsGamma) {
  // The algorithms draw once from a fresh stream per (node, round): check those first draws.
  constexpr int kStreams = 50000;
  constexpr int d = 4;
  constexpr double a = 1.7;
  std::vector<double> scaled;
  Eigen::VectorXd e(d);
  for (int k = 0; k < kStreams; ++k) {
    Stream stream(104, static_cast<std::uint64_t>(k % 7), static_cast<std::uint64_t>(k / 7),
                  Purpose::kNoise);
    DrawL2Laplace(stream, a, e);
    scaled.push_back(a * e.norm());
  }
  EXPECT_LT(KsStatistic(scaled, [](double x) { return GammaCdfIntegerShape(d, x); }),
            KsThreshold(kStreams));
}

TEST(L2LaplaceTest, CoordinateMoments) {
  CheckL2LaplaceCoordinates(105, 3, 1.5);
  CheckL2LaplaceCoordinates(106, 8, 0.25);
}

TEST(L2LaplaceTest, DirectionIsUniformAndIndependentOfNorm) {
  CheckL2LaplaceDirection(107, 3, 0.8);
  CheckL2LaplaceDirection(108, 2, 3.0);
}

TEST(L2LaplaceTest, OneDimensionalIsSymmetric) {
  // d = 1: e = +-r; P(e > 0) = 1/2 (Binomial count, sd sqrt(n) / 2).
  const Eigen::MatrixXd e = DrawMany(109, 1, kDraws, L2Laplace(2.0));
  const double positive = (e.array() > 0.0).count();
  EXPECT_NEAR(positive, kDraws / 2.0, kSigmas * std::sqrt(static_cast<double>(kDraws)) / 2.0);
}

TEST(L2LaplaceTest, ScaleIsExactlyOneOverA) {
  // The same stream with a and 2a draws the same Gamma variate and direction: e(2a) = e(a) / 2
  // up to rounding of the division.
  Eigen::VectorXd e1(5), e2(5);
  Stream s1(110, 3, 9, Purpose::kNoise), s2(110, 3, 9, Purpose::kNoise);
  DrawL2Laplace(s1, 0.75, e1);
  DrawL2Laplace(s2, 1.5, e2);
  EXPECT_LT((e1 - 2.0 * e2).norm(), 1e-14 * e1.norm());
}

// --- DrawGaussian --------------------------------------------------------------------------

TEST(GaussianTest, MomentsAndNormalCdf) {
  CheckGaussian(201, 3, 2.5);
  CheckGaussian(202, 2, 0.01);
}

TEST(GaussianTest, ZeroSigmaGivesZeros) {
  Stream s(203, 0, 0, Purpose::kNoise);
  Eigen::VectorXd x = Eigen::VectorXd::Constant(6, 7.0);
  DrawGaussian(s, 0.0, x);
  EXPECT_TRUE(x.isZero(0.0));
}

TEST(GaussianTest, EmptyVectorIsFine) {
  Stream s(204, 0, 0, Purpose::kNoise);
  Eigen::VectorXd x(0);
  DrawGaussian(s, 1.0, x);
  EXPECT_EQ(x.size(), 0);
}

// --- DrawUnitDirection ----------------------------------------------------------------------

TEST(CorrelatedGaussianTest, IdentityFactorIsTheIsotropicGaussianBitForBit) {
  // sigma * (I u) = sigma * u exactly, with u drawn in coordinate order as DrawGaussian does.
  Eigen::VectorXd a(6), b(6);
  Stream s1(3, 1, 2, Purpose::kNoise), s2(3, 1, 2, Purpose::kNoise);
  DrawCorrelatedGaussian(s1, Eigen::MatrixXd::Identity(6, 6), 0.7, a);
  DrawGaussian(s2, 0.7, b);
  EXPECT_EQ(a, b);
}

TEST(CorrelatedGaussianTest, CovarianceIsSigmaSquaredFactorFactorTransposed) {
  // Sample covariance of n draws against sigma^2 L L^T: each entry's standard error is at most
  // sigma^2 sqrt(2 max_i (LL^T)_ii^2 / n); 6 standard errors make a false alarm about 1e-8 per
  // entry (fixed seed, so the test is deterministic anyway).
  Eigen::MatrixXd factor(3, 3);
  factor << 1.0, 0.0, 0.0, 0.5, 2.0, 0.0, -1.0, 0.3, 0.7;
  const double sigma = 0.5;
  const int n = 40000;
  Eigen::MatrixXd cov = Eigen::MatrixXd::Zero(3, 3);
  Eigen::VectorXd x(3);
  for (int k = 0; k < n; ++k) {
    Stream stream(11, 0, static_cast<std::uint64_t>(k), Purpose::kNoise);
    DrawCorrelatedGaussian(stream, factor, sigma, x);
    cov += x * x.transpose();
  }
  cov /= n;
  const Eigen::MatrixXd expected = sigma * sigma * factor * factor.transpose();
  const double se = expected.diagonal().maxCoeff() * std::sqrt(2.0 / n);
  EXPECT_LT((cov - expected).cwiseAbs().maxCoeff(), 6.0 * se) << cov;
  Stream stream(1, 0, 0, Purpose::kNoise);
  Eigen::VectorXd wrong(2);
  EXPECT_THROW(DrawCorrelatedGaussian(stream, factor, sigma, wrong), InputError);
  EXPECT_THROW(DrawCorrelatedGaussian(stream, factor, -1.0, x), InputError);
}

TEST(NoiseUnitDirectionTest, NormIsOne) {
  for (int d : {1, 2, 3, 7, 100}) {
    Stream s(301, static_cast<std::uint64_t>(d), 0, Purpose::kNoise);
    Eigen::VectorXd u(d);
    for (int k = 0; k < 2000; ++k) {
      DrawUnitDirection(s, u);
      ASSERT_NEAR(u.norm(), 1.0, 1e-12) << "d = " << d << ", draw " << k;
    }
  }
}

TEST(NoiseUnitDirectionTest, IsUniform) {
  CheckUniformDirections(DrawMany(302, 2, kDraws, UnitDirection()));
  CheckUniformDirections(DrawMany(303, 3, kDraws, UnitDirection()));
  CheckUniformDirections(DrawMany(304, 12, kDraws, UnitDirection()));
  CheckUnitDirectionOneDimensional(305);
}

// --- Reproducibility -----------------------------------------------------------------------

TEST(NoiseReproducibilityTest, SameKeyGivesIdenticalVectors) {
  for (const Sampler& sample : {L2Laplace(0.9), Gaussian(1.3), UnitDirection()}) {
    Stream s1(401, 4, 17, Purpose::kNoise), s2(401, 4, 17, Purpose::kNoise);
    Eigen::VectorXd x1(6), x2(6);
    for (int k = 0; k < 3; ++k) {  // successive draws stay in step
      sample(s1, x1);
      sample(s2, x2);
      EXPECT_TRUE((x1.array() == x2.array()).all()) << x1.transpose() << "\n" << x2.transpose();
    }
  }
}

TEST(NoiseReproducibilityTest, DifferentKeysAndSuccessiveDrawsDiffer) {
  for (const Sampler& sample : {L2Laplace(0.9), Gaussian(1.3), UnitDirection()}) {
    auto first = [&](std::uint64_t node, std::uint64_t round) {
      Stream s(402, node, round, Purpose::kNoise);
      Eigen::VectorXd x(6);
      sample(s, x);
      return x;
    };
    const Eigen::VectorXd base = first(4, 17);
    EXPECT_FALSE((base.array() == first(5, 17).array()).any()) << "other node";
    EXPECT_FALSE((base.array() == first(4, 18).array()).any()) << "other round";
    EXPECT_FALSE((base.array() == first(17, 4).array()).any()) << "node and round swapped";
    Stream s(402, 4, 17, Purpose::kNoise);
    Eigen::VectorXd x1(6), x2(6);
    sample(s, x1);
    sample(s, x2);
    EXPECT_TRUE((x1.array() == base.array()).all());
    EXPECT_FALSE((x1.array() == x2.array()).any()) << "second draw repeats the first";
  }
}

TEST(NoiseReproducibilityTest, DrawsIntoAMatrixColumnAsIntoAVector) {
  Stream s1(403, 1, 2, Purpose::kNoise), s2(403, 1, 2, Purpose::kNoise);
  Eigen::MatrixXd m = Eigen::MatrixXd::Zero(5, 3);
  Eigen::VectorXd v(5);
  DrawL2Laplace(s1, 1.0, m.col(1));
  DrawL2Laplace(s2, 1.0, v);
  EXPECT_TRUE((m.col(1).array() == v.array()).all());
  EXPECT_TRUE(m.col(0).isZero(0.0) && m.col(2).isZero(0.0));
}

// --- Invalid arguments ---------------------------------------------------------------------

TEST(NoiseInputTest, InvalidArgumentsThrowInputError) {
  using test::ThrowsInputError;
  Stream s(501, 0, 0, Purpose::kNoise);
  Eigen::VectorXd x(3), empty(0);
  EXPECT_TRUE(ThrowsInputError([&] { DrawL2Laplace(s, 0.0, x); },
                               {"DrawL2Laplace: a must be finite and > 0, got 0"}));
  EXPECT_TRUE(ThrowsInputError([&] { DrawL2Laplace(s, -2.0, x); }, {"got -2"}));
  EXPECT_TRUE(ThrowsInputError([&] { DrawL2Laplace(s, std::nan(""), x); }, {"a must be"}));
  EXPECT_TRUE(ThrowsInputError([&] { DrawL2Laplace(s, 1.0, empty); },
                               {"DrawL2Laplace: out must have size d >= 1, got 0"}));
  EXPECT_TRUE(ThrowsInputError([&] { DrawGaussian(s, -1.0, x); },
                               {"DrawGaussian: sigma must be finite and >= 0, got -1"}));
  EXPECT_TRUE(ThrowsInputError([&] { DrawUnitDirection(s, empty); },
                               {"DrawUnitDirection: out must have size d >= 1, got 0"}));
}

// --- Fresh seeds (a separate ctest label; see the calibration note at the top) --------------
// 3 + 7 + 6 + 8 + 5 = 29 checks.

TEST(FreshSeedNoiseTest, L2LaplaceNorm) {
  const std::uint64_t seed = FreshSeed();
  SCOPED_TRACE(SeedMessage(seed));
  CheckL2LaplaceNorm(seed, 3, 1.5);  // 3 checks
}

TEST(FreshSeedNoiseTest, L2LaplaceCoordinates) {
  const std::uint64_t seed = FreshSeed();
  SCOPED_TRACE(SeedMessage(seed));
  CheckL2LaplaceCoordinates(seed, 3, 0.7);  // 7 checks
}

TEST(FreshSeedNoiseTest, L2LaplaceDirection) {
  const std::uint64_t seed = FreshSeed();
  SCOPED_TRACE(SeedMessage(seed));
  CheckL2LaplaceDirection(seed, 3, 2.0);  // 3 + 1 + 1 + 1 = 6 checks
}

TEST(FreshSeedNoiseTest, Gaussian) {
  const std::uint64_t seed = FreshSeed();
  SCOPED_TRACE(SeedMessage(seed));
  CheckGaussian(seed, 3, 1.7);  // 8 checks
}

TEST(FreshSeedNoiseTest, UnitDirection) {
  const std::uint64_t seed = FreshSeed();
  SCOPED_TRACE(SeedMessage(seed));
  CheckUniformDirections(DrawMany(seed, 2, kDraws, UnitDirection()));  // 2 + 1 + 1 = 4 checks
  CheckUnitDirectionOneDimensional(seed ^ 0x9e3779b97f4a7c15ULL);      // 1 check
}

}  // namespace
}  // namespace dpadmm
