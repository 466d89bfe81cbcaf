// SPDX-License-Identifier: Apache-2.0
// The dp-bounds scaling (privacy/bounds_release.h): the grid, the noise law (goodness of fit on
// >= 1e6 draws at a false-positive rate <= 1e-6, as tests/test_samplers.cpp), one changed
// record changing only its node's release, the accounting (bounds release + the run's releases,
// in the paper's figure, the tight one and the budget), and the accuracy on mixed units.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "dpadmm/core/error.h"
#include "dpadmm/data/generators.h"
#include "dpadmm/data/preprocessing.h"
#include "dpadmm/privacy/accounting.h"
#include "dpadmm/privacy/bounds_release.h"
#include "dpadmm/run/run.h"
#include "test_helpers.h"

namespace dpadmm {
namespace {

// Upper 1e-6 quantile of chi-square with df degrees of freedom (Wilson-Hilferty; z = 4.753).
double ChiSquareCritical(int df) {
  const double z = 4.753424, v = 2.0 / (9.0 * df);
  return df * std::pow(1.0 - v + z * std::sqrt(v), 3.0);
}

TEST(BoundsGridTest, BinsAreOrderedAndEdgesContainTheirValues) {
  const double values[] = {0.0, 1e-9, -1e-9, 0.3, -0.3, 1.0, -1.0, 1.5, 1000.0, -7e5, 3e15, -3e15};
  for (double x : values) {
    const int b = BoundsBin(x);
    ASSERT_GE(b, 0);
    ASSERT_LT(b, kBoundsBins);
    if (std::abs(x) >= std::ldexp(1.0, kBoundsMaxExponent)) continue;  // the outermost bins
    // Positive bins (and the zero bin) are [lower, upper), negative ones (lower, upper].
    if (b >= kBoundsMagnitudes) {
      EXPECT_LE(BoundsBinLower(b), x) << x;
      EXPECT_LT(x, BoundsBinUpper(b)) << x;
    } else {
      EXPECT_LT(BoundsBinLower(b), x) << x;
      EXPECT_LE(x, BoundsBinUpper(b)) << x;
    }
  }
  EXPECT_EQ(BoundsBin(0.0), kBoundsMagnitudes);
  EXPECT_EQ(BoundsBin(1.0), kBoundsMagnitudes + (1 - kBoundsMinExponent + 1));  // [1, 2)
  EXPECT_EQ(BoundsBinLower(BoundsBin(1.0)), 1.0);
  EXPECT_EQ(BoundsBinUpper(BoundsBin(1.0)), 2.0);
  EXPECT_EQ(BoundsBinLower(BoundsBin(-1.0)), -2.0);  // (-2, -1]
  EXPECT_EQ(BoundsBinUpper(BoundsBin(-1.0)), -1.0);
  for (int b = 1; b < kBoundsBins; ++b) EXPECT_EQ(BoundsBinUpper(b - 1), BoundsBinLower(b)) << b;
}

TEST(BoundsMechanismTest, EpsilonIsRoundedDownAndRangeChecked) {
  const BoundsMechanism m = MakeBoundsMechanism(0.3, 8);
  EXPECT_LE(m.epsilon, 0.3);
  EXPECT_GT(m.epsilon, 0.3 - std::ldexp(1.0, -20));
  // s / t = eps' / (2 d): the release is eps'-DP for the L1 sensitivity 2 d.
  EXPECT_DOUBLE_EQ(static_cast<double>(m.num_s) / static_cast<double>(m.t), m.epsilon / 16.0);
  EXPECT_THROW((void)MakeBoundsMechanism(0.0, 8), InputError);
  EXPECT_THROW((void)MakeBoundsMechanism(std::nan(""), 8), InputError);
}

// The released counts minus the exact ones follow the discrete Laplace law
// P(z) = (1 - p)/(1 + p) p^|z|, p = exp(-eps'/(2d)): chi-square over |z| cells and a sign test.
TEST(BoundsMechanismTest, NoiseFollowsTheDiscreteLaplaceLaw) {
  const Dataset rows = GenerateTwonorm(20, 1, 2);  // d = 2: 246 bins per release
  const BoundsMechanism m = MakeBoundsMechanism(1.0, 2);
  const std::vector<std::int64_t> exact = BoundsHistogram(rows);
  const double p = std::exp(-m.epsilon / 4.0);
  constexpr int kCells = 40;  // |z| = 0 .. 38, and >= 39
  std::vector<std::int64_t> observed(kCells, 0);
  std::int64_t positive = 0, nonzero = 0, n = 0;
  for (std::uint64_t release = 0; n < 1'000'000; ++release) {
    const std::vector<double> r = ReleaseBoundsHistogram(rows, m, 77, release);
    for (std::size_t k = 0; k < r.size(); ++k) {
      const auto z = static_cast<std::int64_t>(r[k]) - exact[k];
      ASSERT_EQ(r[k], std::floor(r[k]));
      ++observed[std::min<std::int64_t>(std::llabs(z), kCells - 1)];
      positive += z > 0;
      nonzero += z != 0;
      ++n;
    }
  }
  double chi2 = 0.0;
  double tail = 1.0;
  for (int c = 0; c < kCells; ++c) {
    const double prob =
        c < kCells - 1 ? (c == 0 ? 1.0 : 2.0) * (1.0 - p) / (1.0 + p) * std::pow(p, c) : tail;
    tail -= prob;
    const double e = prob * static_cast<double>(n);
    chi2 += (static_cast<double>(observed[c]) - e) * (static_cast<double>(observed[c]) - e) / e;
  }
  EXPECT_LE(chi2, ChiSquareCritical(kCells - 1)) << "n = " << n;
  // Symmetry: a positive draw has probability 1/2 among nonzero ones (|z| <= 5 sd).
  const double sd = std::sqrt(static_cast<double>(nonzero) * 0.25);
  EXPECT_LE(std::abs(static_cast<double>(positive) - 0.5 * static_cast<double>(nonzero)), 5.0 * sd);
}

TEST(BoundsMechanismTest, OneChangedRecordChangesOnlyItsNodesRelease) {
  Dataset a = GenerateTwonorm(300, 4, 5);
  Dataset b = a;
  std::get<DenseRows>(b.x).row(123) *= 1000.0;  // one record, far out
  const Partition partition = PartitionEven(300, 4, 9);
  int owner = -1;
  const BoundsMechanism m = MakeBoundsMechanism(0.5, 5);
  for (int i = 0; i < 4; ++i) {
    const auto& rows = partition[static_cast<std::size_t>(i)];
    const bool holds = std::find(rows.begin(), rows.end(), 123) != rows.end();
    if (holds) owner = i;
    const std::vector<double> ra = ReleaseBoundsHistogram(a.Subset(rows), m, 5, i);
    const std::vector<double> rb = ReleaseBoundsHistogram(b.Subset(rows), m, 5, i);
    int moved = 0;
    for (std::size_t k = 0; k < ra.size(); ++k) {
      EXPECT_LE(std::abs(ra[k] - rb[k]), 1.0);
      moved += ra[k] != rb[k];
    }
    if (holds) {
      EXPECT_GT(moved, 0);
      EXPECT_LE(moved, 2 * 5) << "the L1 sensitivity is 2 d";
    } else {
      EXPECT_EQ(moved, 0) << "node " << i;
    }
  }
  EXPECT_GE(owner, 0);
}

TEST(BoundsMechanismTest, ThresholdBoundsTheFalsePositiveRate) {
  // The Chernoff threshold grows with the noise and the number of summed releases.
  const BoundsMechanism m = MakeBoundsMechanism(1.0, 8);
  const double one = BoundsThreshold(m, 1), ten = BoundsThreshold(m, 10);
  EXPECT_GT(ten, one);
  // Laplace tail at N = 1: P(Z > tau) = p^(tau+1) / (1 + p) <= 2^-30.
  const double p = std::exp(-m.epsilon / 16.0);
  EXPECT_LE(std::pow(p, one + 1.0) / (1.0 + p), std::ldexp(1.0, -30));
  std::printf("dp-bounds threshold, eps 1, d 8: %g (1 node), %g (10 nodes)\n", one, ten);
}

// ---- Runs -------------------------------------------------------------------------------------

RunSpec Dvp() {
  RunSpec s;
  s.algorithm.Select(Algorithm::kDvp);
  s.algorithm.As<DvpParams>().alpha = 0.5;
  s.algorithm.C = 50.0;
  s.algorithm.rho = 1.0;
  s.algorithm.eta = 2.0;
  s.graph.nodes = 4;
  s.graph.edges = 5;
  s.iterations = 12;
  s.seed = 3;
  s.engine = runtime::EngineKind::kSerial;
  return s;
}

TEST(DpBoundsRunTest, AccountingAddsTheBoundsReleaseEverywhere) {
  RunSpec s = Dvp();
  s.noise_seed = 4;
  s.data.rows = 400;
  s.data.dims = 6;
  s.iterations = 6;
  const RunSummary plain = RunExperiment(s);
  s.data.scaling = Scaling::kDpBounds;
  s.data.bounds_epsilon = 0.75;
  const RunSummary dp = RunExperiment(s);
  EXPECT_EQ(dp.info.scaling, Scaling::kDpBounds);
  EXPECT_EQ(dp.info.dp_bounds.epsilon, 0.75);
  ASSERT_EQ(dp.info.dp_bounds.lo.size(), 6u);
  // Paper's figure: the plain sum, the bounds release included.
  ASSERT_EQ(dp.final.node_privacy.size(), plain.final.node_privacy.size());
  for (std::size_t i = 0; i < plain.final.node_privacy.size(); ++i) {
    EXPECT_DOUBLE_EQ(dp.final.node_privacy[i], plain.final.node_privacy[i] + 0.75);
  }
  EXPECT_DOUBLE_EQ(dp.final.privacy_loss, plain.final.privacy_loss + 0.75);
  // Tight figure: the optimal composition of [0.75, the rounds' costs].
  // (one cost of 0.5 per release: as many as the plain run's paper figure says)
  std::vector<double> costs(static_cast<std::size_t>(std::llround(plain.final.privacy_loss / 0.5)),
                            0.5);
  const double without = ComposeTight(costs, dp.tight_delta);
  costs.insert(costs.begin(), 0.75);
  const double with = ComposeTight(costs, dp.tight_delta);
  ASSERT_FALSE(dp.node_tight_epsilon.empty());
  for (double e : dp.node_tight_epsilon) EXPECT_NEAR(e, with, 1e-9);
  EXPECT_GT(with, without);
  EXPECT_NE(dp.info.privacy_guarantee.find("dp-bounds"), std::string::npos);
}

TEST(DpBoundsRunTest, BudgetPaysTheBoundsReleaseFirst) {
  RunSpec s = Dvp();
  s.noise_seed = 4;
  s.data.rows = 400;
  s.iterations = 20;
  s.algorithm.privacy_budget = 3.2;  // 6 rounds of 0.5: 3.0
  const RunSummary plain = RunExperiment(s);
  s.data.scaling = Scaling::kDpBounds;
  s.data.bounds_epsilon = 1.0;  // leaves 2.2: 4 rounds
  const RunSummary dp = RunExperiment(s);
  EXPECT_EQ(plain.outcome, RunOutcome::kBudgetExhausted);
  EXPECT_EQ(dp.outcome, RunOutcome::kBudgetExhausted);
  EXPECT_DOUBLE_EQ(plain.final.privacy_loss, 3.0);
  EXPECT_DOUBLE_EQ(dp.final.privacy_loss, 3.0);  // 1.0 + 4 x 0.5
  EXPECT_LT(dp.rounds, plain.rounds);
  // A budget the bounds release alone uses up: refused before any round.
  s.data.bounds_epsilon = 4.0;
  EXPECT_TRUE(test::ThrowsInputError([&] { (void)Experiment(s); }, {"bounds_epsilon", "budget"}));
  s.data.bounds_epsilon = 0.5;
  s.algorithm.node_privacy_budget = {3.0, 0.4, 3.0, 3.0};
  EXPECT_TRUE(test::ThrowsInputError([&] { (void)Experiment(s); }, {"node 1"}));
}

TEST(DpBoundsRunTest, RefusedWithoutAnEpsilonAndForSharing) {
  RunSpec s = Dvp();
  s.data.scaling = Scaling::kDpBounds;
  EXPECT_TRUE(test::ThrowsInputError([&] { (void)Experiment(s); }, {"bounds_epsilon"}));
  RunSpec sharing = RunSpec::Defaults(Algorithm::kSharing);
  sharing.data.scaling = Scaling::kDpBounds;
  sharing.data.bounds_epsilon = 1.0;
  EXPECT_TRUE(test::ThrowsInputError([&] { (void)Experiment(sharing); }, {"consensus"}));
}

// The mixed-units data of tests/test_outputs.cpp (features from ~1000s down to ~0.01s).
Dataset MixedUnits(std::int64_t rows, std::uint64_t seed, std::vector<double>& lo,
                   std::vector<double>& hi) {
  constexpr int kDims = 8;
  Dataset d = GenerateTwonorm(rows, seed, kDims);
  auto& x = std::get<DenseRows>(d.x);
  const double unit[kDims] = {1000.0, 300.0, 50.0, 10.0, 1.0, 0.2, 0.05, 0.01};
  lo.assign(kDims, 0.0);
  hi.assign(kDims, 0.0);
  for (int j = 0; j < kDims; ++j) {
    const double offset = 5.0 * unit[j];
    x.col(j) = (x.col(j).array() * unit[j] + offset).matrix();
    lo[j] = offset - 5.0 * unit[j];
    hi[j] = offset + 5.0 * unit[j];
  }
  return d;
}

TEST(DpBoundsRunTest, MixedUnitsAccuracyIsCloseToPublicBounds) {
  std::vector<double> lo, hi;
  const Dataset train = MixedUnits(2000, 1, lo, hi), test = MixedUnits(1000, 2, lo, hi);
  std::string bounds;
  for (std::size_t j = 0; j < lo.size(); ++j) {
    bounds += std::to_string(lo[j]) + " " + std::to_string(hi[j]) + "\n";
  }
  RunSpec s = Dvp();
  s.iterations = 30;
  s.algorithm.As<DvpParams>().alpha = 5.0;  // light noise: the preparation is what differs
  s.noise_seed = 1;
  s.data.add_bias = true;
  s.data.scaling = Scaling::kClipOnly;
  const RunSummary clipped = Experiment(s, train, test).Run();
  s.data.scaling = Scaling::kPublicBounds;
  s.data.feature_bounds_path = test::WriteTempFile("dp_bounds_mixed.txt", bounds);
  const RunSummary scaled = Experiment(s, train, test).Run();
  s.data.scaling = Scaling::kDpBounds;
  s.data.feature_bounds_path.clear();
  std::printf("mixed units, test error: public-bounds %.4f, clip-only %.4f\n",
              scaled.final.test_error, clipped.final.test_error);
  for (double eps : {0.1, 0.5, 1.0}) {
    s.data.bounds_epsilon = eps;
    const RunSummary dp = Experiment(s, train, test).Run();
    std::printf("  dp-bounds eps %.2f: test error %.4f, %lld features without bounds\n", eps,
                dp.final.test_error, static_cast<long long>(dp.info.dp_bounds.fallback_features));
    bool warned = false;
    for (const std::string& w : dp.warnings) warned = warned || w.find("dp-bounds:") == 0;
    EXPECT_EQ(warned, dp.info.dp_bounds.fallback_features > 0);
    if (eps >= 0.5) {
      EXPECT_EQ(dp.info.dp_bounds.fallback_features, 0);
      EXPECT_LT(dp.final.test_error, scaled.final.test_error + 0.02) << "eps " << eps;
      EXPECT_LT(dp.final.test_error + 0.05, clipped.final.test_error) << "eps " << eps;
    }
  }
}

}  // namespace
}  // namespace dpadmm
