// SPDX-License-Identifier: Apache-2.0
// The standardize and dp-standardize scalings (data/standardization.h,
// privacy/standardize_release.h): the statistics on a fixture, constant columns, parts combined,
// test rows prepared with the training statistics, auto's raw-unit rule, validation, the DP
// release (its sensitivity, its noise against the formula, its accounting and budget) and the
// same bits on every engine.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "dpadmm/core/error.h"
#include "dpadmm/core/random.h"
#include "dpadmm/data/generators.h"
#include "dpadmm/data/preprocessing.h"
#include "dpadmm/data/standardization.h"
#include "dpadmm/persistence/model.h"
#include "dpadmm/privacy/accounting.h"
#include "dpadmm/privacy/bounds_release.h"
#include "dpadmm/privacy/standardize_release.h"
#include "dpadmm/run/run.h"
#include "test_helpers.h"

namespace dpadmm {
namespace {

Dataset Dense(const std::vector<std::vector<double>>& rows) {
  DenseRows x(static_cast<Eigen::Index>(rows.size()), static_cast<Eigen::Index>(rows[0].size()));
  for (std::size_t r = 0; r < rows.size(); ++r) {
    for (std::size_t j = 0; j < rows[r].size(); ++j) {
      x(static_cast<Eigen::Index>(r), static_cast<Eigen::Index>(j)) = rows[r][j];
    }
  }
  Eigen::VectorXd y = Eigen::VectorXd::Ones(x.rows());
  return Dataset(std::move(x), std::move(y), "fixture");
}

// Twonorm with features in mixed units (about 1000s down to 0.01s) and an offset each.
constexpr int kMixedDims = 6;
constexpr double kMixedUnit[kMixedDims] = {1000.0, 300.0, 10.0, 1.0, 0.05, 0.01};

Dataset MixedUnits(std::int64_t rows, std::uint64_t seed, double shift = 0.0) {
  Dataset d = GenerateTwonorm(rows, seed, kMixedDims);
  auto& x = std::get<DenseRows>(d.x);
  for (int j = 0; j < kMixedDims; ++j) {
    x.col(j) = (x.col(j).array() * kMixedUnit[j] + (5.0 + shift) * kMixedUnit[j]).matrix();
  }
  return d;
}

// A public bounds file of [0, 10 unit] per feature of MixedUnits, written as `name`.
std::string MixedUnitsBoundsFile(const std::string& name) {
  std::string bounds;
  for (double u : kMixedUnit) bounds += "0 " + std::to_string(10.0 * u) + "\n";
  return test::WriteTempFile(name, bounds);
}

// ---- Statistics -------------------------------------------------------------------------------

TEST(StandardizationTest, MomentsAndScalesOfAFixture) {
  // Column 2 is constant: centred to 0 and left unscaled.
  const Dataset d = Dense({{1.0, 10.0, 5.0}, {2.0, 20.0, 5.0}, {3.0, 60.0, 5.0}});
  const FeatureMoments m = ComputeFeatureMoments(d);
  EXPECT_EQ(m.rows, 3);
  EXPECT_DOUBLE_EQ(m.mean[0], 2.0);
  EXPECT_DOUBLE_EQ(m.mean[1], 30.0);
  EXPECT_DOUBLE_EQ(m.mean[2], 5.0);
  EXPECT_DOUBLE_EQ(m.m2[0], 2.0);     // 1 + 0 + 1
  EXPECT_DOUBLE_EQ(m.m2[1], 1400.0);  // 400 + 100 + 900
  EXPECT_EQ(m.m2[2], 0.0);
  const FeatureStandardization s = StandardizationFromMoments(m);
  // The population deviation, as scikit-learn's StandardScaler.
  EXPECT_DOUBLE_EQ(s.scale[0], std::sqrt(2.0 / 3.0));
  EXPECT_DOUBLE_EQ(s.scale[1], std::sqrt(1400.0 / 3.0));
  EXPECT_EQ(s.scale[2], 1.0);
}

TEST(StandardizationTest, RowsAreCentredScaledAndDividedBySqrtD) {
  // The last column is an intercept column appended before: only divided by sqrt(dims).
  Dataset d = Dense({{1.0, 10.0, 5.0, 1.0}, {2.0, 20.0, 5.0, 1.0}, {3.0, 60.0, 5.0, 1.0}});
  const Dataset raw = d;
  Dataset features = Dense({{1.0, 10.0, 5.0}, {2.0, 20.0, 5.0}, {3.0, 60.0, 5.0}});
  const FeatureStandardization s = StandardizationFromMoments(ComputeFeatureMoments(features));
  StandardizeRows(d, s, 4);
  const auto& x = std::get<DenseRows>(d.x);
  const auto& r = std::get<DenseRows>(raw.x);
  for (Eigen::Index i = 0; i < 3; ++i) {
    for (Eigen::Index j = 0; j < 3; ++j) {
      EXPECT_EQ(x(i, j), (r(i, j) - s.mean[j]) / (s.scale[j] * 2.0)) << i << "," << j;
    }
    EXPECT_EQ(x(i, 2), 0.0);  // the constant column
    EXPECT_EQ(x(i, 3), 0.5);  // the intercept: 1 / sqrt(4)
  }
  // Each standardized column: mean 0, mean square 1 / dims (unit variance before / sqrt(d)).
  for (Eigen::Index j = 0; j < 2; ++j) {
    EXPECT_NEAR(x.col(j).mean(), 0.0, 1e-15);
    EXPECT_NEAR(x.col(j).squaredNorm() / 3.0, 0.25, 1e-15);
  }
  EXPECT_THROW(StandardizeRows(d, s, 3), InputError);  // dims below the columns
  FeatureStandardization wrong = s;
  wrong.scale.pop_back();
  EXPECT_THROW(StandardizeRows(d, wrong, 4), InputError);
}

TEST(StandardizationTest, PartsCombineToTheWholeAndInTheSameBitsEveryTime) {
  const Dataset all = MixedUnits(101, 3);
  const FeatureMoments whole = ComputeFeatureMoments(all);
  std::vector<std::int64_t> a, b, c;
  for (std::int64_t r = 0; r < 101; ++r) (r < 17 ? a : r < 60 ? b : c).push_back(r);
  const std::vector<FeatureMoments> parts = {
      ComputeFeatureMoments(all.Subset(a)), FeatureMoments{},  // a node with no row: skipped
      ComputeFeatureMoments(all.Subset(b)), ComputeFeatureMoments(all.Subset(c))};
  const FeatureMoments combined = CombineFeatureMoments(parts);
  EXPECT_EQ(combined.rows, 101);
  for (std::size_t j = 0; j < whole.mean.size(); ++j) {
    // Rounding of sums of 101 terms of both algorithms: far below 1e-12 relative.
    EXPECT_NEAR(combined.mean[j], whole.mean[j], 1e-12 * std::abs(whole.mean[j]));
    EXPECT_NEAR(combined.m2[j], whole.m2[j], 1e-10 * whole.m2[j]);
  }
  const FeatureMoments again = CombineFeatureMoments(parts);
  EXPECT_EQ(again.mean, combined.mean);
  EXPECT_EQ(again.m2, combined.m2);
}

TEST(StandardizationTest, SparseRowsAreRefusedAndRawUnitsDetected) {
  Dataset sparse = Dense({{0.0, 2.0}, {3.0, 0.0}});
  sparse.SetRows(SparseRows(std::get<DenseRows>(sparse.x).sparseView()));
  EXPECT_TRUE(test::ThrowsInputError([&] { (void)ComputeFeatureMoments(sparse); },
                                     {"fixture", "dense", "sparse"}));
  EXPECT_FALSE(HasRawUnits(sparse));  // sparse data never count as raw units
  EXPECT_FALSE(HasRawUnits(Dense({{-1.0, 1.0}, {0.5, 0.0}})));
  EXPECT_TRUE(HasRawUnits(Dense({{-1.0, 1.0}, {0.5, 1.5}})));
  EXPECT_TRUE(HasRawUnits(Dense({{-1.0, 1.0}, {0.5, std::nan("")}})));
}

// ---- Runs -------------------------------------------------------------------------------------

RunSpec Admm() {
  RunSpec s;
  s.algorithm.Select(Algorithm::kAdmm);
  s.algorithm.C = 50.0;
  s.algorithm.rho = 1.0;
  s.graph.nodes = 4;
  s.graph.edges = 5;
  s.iterations = 8;
  s.seed = 3;
  s.engine = runtime::EngineKind::kSerial;
  s.data.add_bias = true;
  return s;
}

RunSpec Dvp() {
  RunSpec s = Admm();
  s.algorithm.Select(Algorithm::kDvp);
  s.algorithm.As<DvpParams>().alpha = 0.5;
  s.algorithm.eta = 2.0;
  s.data.add_bias = false;
  return s;
}

TEST(StandardizeRunTest, TestRowsArePreparedWithTheTrainingStatistics) {
  const Dataset train = MixedUnits(400, 1);
  const Dataset test = MixedUnits(50, 2, 3.0);  // shifted: its own statistics differ
  RunSpec s = Admm();
  s.data.scaling = Scaling::kStandardize;
  const Experiment e(s, train, test);
  const RunInfo& info = e.info();
  ASSERT_EQ(info.scaling, Scaling::kStandardize);
  // The nodes' moments combined give the training rows' statistics.
  const FeatureStandardization whole = StandardizationFromMoments(ComputeFeatureMoments(train));
  ASSERT_EQ(info.standardization.mean.size(), 6u);
  for (std::size_t j = 0; j < 6; ++j) {
    EXPECT_NEAR(info.standardization.mean[j], whole.mean[j], 1e-12 * std::abs(whole.mean[j]));
    EXPECT_NEAR(info.standardization.scale[j], whole.scale[j], 1e-10 * whole.scale[j]);
  }
  // Every prepared test row is the training map of its raw row (bits), then clipped.
  Dataset expected = test;
  StandardizeRows(expected,
                  FeatureStandardization{info.standardization.mean, info.standardization.scale}, 7);
  AddBiasFeature(expected, 1.0 / std::sqrt(7.0));
  ClipRows(expected);
  const auto& got = std::get<DenseRows>(e.test().x);
  EXPECT_EQ(got, std::get<DenseRows>(expected.x));
  EXPECT_LE(e.test().MaxRowNorm(), 1.0);
  EXPECT_LE(e.train().MaxRowNorm(), 1.0);
  // The shift shows in the test rows (about 3 deviations per feature, / sqrt(7), then clipped
  // from a norm of about 2.8 to 1: about 0.4): they were not centred by their own mean (0).
  EXPECT_GT(got.col(0).mean(), 0.2);
  // A model of the run prepares raw rows the same way.
  const RunSummary summary = e.Run();
  const Model model = Model::FromRun(summary, s);
  EXPECT_EQ(model.preparation().scaling, Scaling::kStandardize);
  Dataset again = test;
  model.PrepareRows(again);
  EXPECT_EQ(std::get<DenseRows>(again.x), got);
  const Model reread = Model::FromJson(model.ToJson(), "model");
  Dataset third = test;
  reread.PrepareRows(third);
  EXPECT_EQ(std::get<DenseRows>(third.x), got);
}

TEST(StandardizeRunTest, SameBitsOnEveryEngine) {
  const Dataset train = MixedUnits(300, 4), test = MixedUnits(60, 5);
  RunSpec s = Admm();
  s.data.scaling = Scaling::kStandardize;
  const Experiment e(s, train, test);
  const RunSummary serial = e.RunOn(runtime::EngineKind::kSerial, 1);
  const RunSummary tbb = e.RunOn(runtime::EngineKind::kTbb, 2);
  EXPECT_EQ(serial.model, tbb.model);
  RunSpec d = Dvp();
  d.noise_seed = 9;
  d.data.scaling = Scaling::kDpStandardize;
  d.data.standardize_epsilon = 0.5;
  d.data.feature_range = {-10000.0, 20000.0};
  const Experiment a(d, train, test), b(d, train, test);
  EXPECT_EQ(a.info().standardization.mean, b.info().standardization.mean);
  EXPECT_EQ(a.info().standardization.scale, b.info().standardization.scale);
  EXPECT_EQ(a.RunOn(runtime::EngineKind::kSerial, 1).model,
            b.RunOn(runtime::EngineKind::kTbb, 2).model);
}

std::string WriteCsv(const std::string& name, const Dataset& d) {
  std::string text;
  const auto& x = std::get<DenseRows>(d.x);
  for (Eigen::Index r = 0; r < x.rows(); ++r) {
    for (Eigen::Index j = 0; j < x.cols(); ++j) text += std::to_string(x(r, j)) + ",";
    text += d.y[r] > 0 ? "1\n" : "-1\n";
  }
  return test::WriteTempFile(name, text);
}

TEST(StandardizeRunTest, AutoStandardizesCsvDataInRawUnitsOnly) {
  RunSpec s = Admm();
  s.data.source = DataSource::kCsv;
  s.data.train_path = WriteCsv("raw_units.csv", MixedUnits(200, 6));
  EXPECT_EQ(Experiment(s).info().scaling, Scaling::kStandardize);
  // Already in [-1, 1]: global-max-norm.
  Dataset small = GenerateTwonorm(200, 6, 4);
  std::get<DenseRows>(small.x) /= 100.0;
  s.data.train_path = WriteCsv("scaled_units.csv", small);
  EXPECT_EQ(Experiment(s).info().scaling, Scaling::kGlobalMaxNorm);
  // Generated data (twonorm has values beyond 1) keep global-max-norm: the golden runs.
  EXPECT_EQ(Experiment(Admm()).info().scaling, Scaling::kGlobalMaxNorm);
  // Rows given in memory follow the same rule.
  EXPECT_EQ(Experiment(Admm(), MixedUnits(200, 6), Dataset{}).info().scaling,
            Scaling::kStandardize);
  EXPECT_EQ(Experiment(Admm(), small, Dataset{}).info().scaling, Scaling::kGlobalMaxNorm);
  // Private mode keeps its rule (clip-only here); simulation mode is as non-private.
  RunSpec p = Dvp();
  p.data.source = DataSource::kCsv;
  p.data.train_path = WriteCsv("raw_units_dvp.csv", MixedUnits(200, 6));
  EXPECT_EQ(Experiment(p).info().scaling, Scaling::kClipOnly);
  p.noise_seed = 1;
  EXPECT_EQ(Experiment(p).info().scaling, Scaling::kStandardize);
  EXPECT_EQ(EffectiveScaling(p, true), Scaling::kStandardize);
  EXPECT_EQ(EffectiveScaling(p, false), Scaling::kGlobalMaxNorm);
}

TEST(StandardizeRunTest, ValidationNamesTheField) {
  const Dataset train = MixedUnits(200, 1);
  RunSpec s = Dvp();  // private mode: no noise seed
  s.data.scaling = Scaling::kStandardize;
  EXPECT_TRUE(test::ThrowsInputError([&] { (void)Experiment(s, train, Dataset{}); },
                                     {"standardize", "private mode", "dp-standardize"}));
  s.data.scaling = Scaling::kDpStandardize;
  EXPECT_TRUE(test::ThrowsInputError([&] { (void)Experiment(s, train, Dataset{}); },
                                     {"standardize_epsilon"}));
  s.data.standardize_epsilon = 0.5;
  EXPECT_TRUE(test::ThrowsInputError([&] { (void)Experiment(s, train, Dataset{}); },
                                     {"bounds", "--feature-range", "--bounds-epsilon"}));
  s.data.standardize_epsilon = -1.0;
  s.data.feature_range = {0.0, 20000.0};
  EXPECT_TRUE(test::ThrowsInputError([&] { (void)Experiment(s, train, Dataset{}); },
                                     {"standardize_epsilon"}));
  s.data.standardize_epsilon = 0.6;
  s.data.bounds_epsilon = 0.5;
  s.algorithm.privacy_budget = 1.0;  // 0.5 + 0.6 before any round
  EXPECT_TRUE(test::ThrowsInputError([&] { (void)Experiment(s, train, Dataset{}); },
                                     {"standardize_epsilon", "budget"}));
  RunSpec t = Dvp();
  t.data.scaling = Scaling::kClipOnly;
  t.data.standardize_epsilon = 0.5;
  EXPECT_TRUE(test::ThrowsInputError([&] { (void)Experiment(t, train, Dataset{}); },
                                     {"standardize_epsilon", "dp-standardize"}));
  RunSpec sharing = RunSpec::Defaults(Algorithm::kSharing);
  sharing.data.scaling = Scaling::kDpStandardize;
  sharing.data.standardize_epsilon = 1.0;
  sharing.data.feature_range = {-1.0, 1.0};
  EXPECT_TRUE(test::ThrowsInputError([&] { (void)Experiment(sharing); }, {"consensus"}));
  // Sparse rows: refused, naming the data.
  RunSpec sparse = Admm();
  sparse.data.source = DataSource::kSparse;
  sparse.data.rows = 200;
  sparse.data.dims = 30;
  sparse.data.scaling = Scaling::kStandardize;
  EXPECT_TRUE(test::ThrowsInputError([&] { (void)Experiment(sparse); }, {"dense", "sparse"}));
}

// ---- The DP release -----------------------------------------------------------------------------

TEST(DpStandardizeMechanismTest, EpsilonIsRoundedDownAndRangeChecked) {
  const StandardizeMechanism m = MakeStandardizeMechanism(0.3, 3);
  EXPECT_LE(m.epsilon, 0.3);
  EXPECT_GT(m.epsilon, 0.3 - std::ldexp(1.0, -20));
  // s / t = eps' / (2 d 2^(K+1)): eps'-DP for the L1 sensitivity 2 d 2^(K+1).
  EXPECT_DOUBLE_EQ(static_cast<double>(m.num_s) / static_cast<double>(m.t),
                   m.epsilon / (6.0 * std::ldexp(1.0, kStandardizeGridBits + 1)));
  EXPECT_THROW((void)MakeStandardizeMechanism(0.0, 3), InputError);
  EXPECT_THROW((void)MakeStandardizeMechanism(std::nan(""), 3), InputError);
  EXPECT_THROW((void)MakeStandardizeMechanism(1.0, 0), InputError);
}

TEST(DpStandardizeMechanismTest, OneReplacedRecordMovesEachSumByAtMostTheSensitivity) {
  const FeatureBounds bounds{{0.0, -5.0}, {10.0, 5.0}};
  const double unit = std::ldexp(1.0, kStandardizeGridBits);
  const auto sums = [&](double a, double b) {
    return StandardizeSums(Dense({{3.0, 1.0}, {a, b}}), bounds);
  };
  // lo against hi: the sum of q moves by 2^(K+1), the sum of r not at all (v^2 = 1 both).
  const auto lo = sums(0.0, -5.0), hi = sums(10.0, 5.0), mid = sums(5.0, 0.0);
  EXPECT_EQ(hi[0] - lo[0], 2.0 * unit);
  EXPECT_EQ(hi[2] - lo[2], 0.0);
  // lo against the middle: q by 2^K, r by 2^(K+1).
  EXPECT_EQ(mid[0] - lo[0], unit);
  EXPECT_EQ(lo[2] - mid[2], 2.0 * unit);
  // Values beyond the bounds count as the bound.
  EXPECT_EQ(sums(-100.0, 99.0), sums(0.0, 5.0));
  // Any replacement: every sum moves by at most 2^(K+1) (L1 over 2d sums: 2d 2^(K+1)).
  Stream rng(5, 0, 0, Purpose::kGenerateData);
  for (int k = 0; k < 200; ++k) {
    const auto a = sums(20.0 * rng.Uniform() - 5.0, 14.0 * rng.Uniform() - 7.0);
    const auto b = sums(20.0 * rng.Uniform() - 5.0, 14.0 * rng.Uniform() - 7.0);
    for (std::size_t i = 0; i < a.size(); ++i) EXPECT_LE(std::llabs(a[i] - b[i]), 2 * unit);
  }
}

// The released sums minus the exact ones: discrete Laplace with p = exp(-s/t), variance
// 2p / (1 - p)^2 (about 2 (t/s)^2). The mean of n squared draws estimates it with relative
// standard deviation sqrt(Var(z^2)) / E(z^2) / sqrt(n) = sqrt(5 / n) (Laplace: E z^4 = 24 b^4,
// E z^2 = 2 b^2); n = 60 000 gives 0.0091 and the bound 0.06 is 6.6 of them (normal
// approximation: false-positive rate below 1e-10). A scale off by the factor 2 of the
// sensitivity's d or 2^(K+1) (variance x4) or by sqrt(2) (x2) fails it.
TEST(DpStandardizeMechanismTest, NoiseVarianceMatchesTheFormula) {
  const Dataset rows = MixedUnits(5, 1).Subset({0, 1, 2, 3, 4});
  const FeatureBounds bounds = UniformBounds(6, 0.0, 20000.0);
  const StandardizeMechanism m = MakeStandardizeMechanism(1.0, 6);
  const std::vector<std::int64_t> exact = StandardizeSums(rows, bounds);
  const double a = static_cast<double>(m.num_s) / static_cast<double>(m.t);
  const double p = std::exp(-a);
  const double variance = 2.0 * p / ((1.0 - p) * (1.0 - p));
  EXPECT_NEAR(variance, 2.0 * StandardizeNoiseScale(m) * StandardizeNoiseScale(m), 1e-6 * variance);
  double squares = 0.0, sum = 0.0;
  std::int64_t n = 0;
  for (std::uint64_t node = 0; n < 60'000; ++node) {
    const std::vector<double> r = ReleaseStandardizeSums(rows, bounds, m, 31, node);
    for (std::size_t k = 0; k < r.size(); ++k) {
      ASSERT_EQ(r[k], std::floor(r[k]));
      const double z = r[k] - static_cast<double>(exact[k]);
      squares += z * z;
      sum += z;
      ++n;
    }
  }
  const double nn = static_cast<double>(n);
  EXPECT_NEAR(squares / nn / variance, 1.0, 0.06);
  // The mean: within 6.6 standard deviations of 0.
  EXPECT_LE(std::abs(sum / nn), 6.6 * std::sqrt(variance / nn));
}

TEST(DpStandardizeMechanismTest, ALargeEpsilonRecoversTheStatistics) {
  const Dataset rows = MixedUnits(500, 2);
  const FeatureBounds bounds = UniformBounds(6, 0.0, 20000.0);
  const StandardizeMechanism m = MakeStandardizeMechanism(1e6, 6);
  const std::vector<double> released = ReleaseStandardizeSums(rows, bounds, m, 3, 0);
  const DpStandardizeEstimate e = StandardizationFromReleases(released, bounds, m, 500, 1);
  const FeatureStandardization exact = StandardizationFromMoments(ComputeFeatureMoments(rows));
  // Each value is on the grid 2^-16 of the half range w = 10000: a mean within 2^-17 w (plus
  // noise of about 3 grid units over 500 rows). The variance E[v^2] - mean_v^2 is off by at
  // most 2^-18 + 2 |mean_v| 2^-17 <= 1.9e-5 in units of w^2: 0.2 % of feature 0's (0.1^2) and
  // 2 % of feature 1's (0.03^2), so 1 % and 2 % on the deviations; the smaller features'
  // deviations are below that grid and noise (they get the floor).
  const double w = 10000.0;
  for (std::size_t j = 0; j < 6; ++j) {
    EXPECT_NEAR(e.standardization.mean[j], exact.mean[j], 2.0 * std::ldexp(w, -17)) << j;
  }
  EXPECT_NEAR(e.standardization.scale[0], exact.scale[0], 0.01 * exact.scale[0]);
  EXPECT_NEAR(e.standardization.scale[1], exact.scale[1], 0.02 * exact.scale[1]);
  EXPECT_GE(e.standardization.scale[5], w * std::sqrt(e.variance_floor) * (1.0 - 1e-12));
}

TEST(DpStandardizeRunTest, AccountingAddsTheReleasesEverywhere) {
  RunSpec s = Dvp();
  s.noise_seed = 4;
  s.data.rows = 400;
  s.data.dims = 6;
  s.iterations = 6;
  const RunSummary plain = RunExperiment(s);
  s.data.scaling = Scaling::kDpStandardize;
  s.data.standardize_epsilon = 0.6;
  s.data.feature_range = {-6.0, 6.0};
  const RunSummary dp = RunExperiment(s);
  ASSERT_EQ(dp.info.scaling, Scaling::kDpStandardize);
  EXPECT_EQ(dp.info.standardization.epsilon, MakeStandardizeMechanism(0.6, 1).epsilon);
  const double e = dp.info.standardization.epsilon;
  s.data.bounds_epsilon = 0.25;  // the bounds estimated first: two set-up releases
  const RunSummary both = RunExperiment(s);
  EXPECT_EQ(both.info.dp_bounds.epsilon, 0.25);
  ASSERT_EQ(dp.final.node_privacy.size(), plain.final.node_privacy.size());
  for (std::size_t i = 0; i < plain.final.node_privacy.size(); ++i) {
    EXPECT_DOUBLE_EQ(dp.final.node_privacy[i], plain.final.node_privacy[i] + e);
    EXPECT_DOUBLE_EQ(both.final.node_privacy[i], plain.final.node_privacy[i] + (0.25 + e));
  }
  std::vector<double> costs(static_cast<std::size_t>(std::llround(plain.final.privacy_loss / 0.5)),
                            0.5);
  std::vector<double> with = costs;
  with.insert(with.begin(), e);
  std::vector<double> with_both = with;
  with_both.insert(with_both.begin(), 0.25);
  ASSERT_FALSE(dp.node_tight_epsilon.empty());
  for (double t : dp.node_tight_epsilon) EXPECT_NEAR(t, ComposeTight(with, kTightDelta), 1e-9);
  for (double t : both.node_tight_epsilon) {
    EXPECT_NEAR(t, ComposeTight(with_both, kTightDelta), 1e-9);
  }
  EXPECT_GT(ComposeTight(with, kTightDelta), ComposeTight(costs, kTightDelta));
  EXPECT_NE(dp.info.privacy_guarantee.find("dp-standardize"), std::string::npos);
}

TEST(DpStandardizeRunTest, BudgetPaysTheReleaseFirst) {
  RunSpec s = Dvp();
  s.noise_seed = 4;
  s.data.rows = 400;
  s.iterations = 20;
  s.algorithm.privacy_budget = 3.2;  // 6 rounds of 0.5: 3.0
  s.data.scaling = Scaling::kDpStandardize;
  s.data.standardize_epsilon = 1.0;  // leaves 2.2: 4 rounds
  s.data.feature_range = {-6.0, 6.0};
  const RunSummary dp = RunExperiment(s);
  EXPECT_EQ(dp.outcome, RunOutcome::kBudgetExhausted);
  EXPECT_DOUBLE_EQ(dp.final.privacy_loss, 3.0);  // 1.0 + 4 x 0.5
}

// dp-standardize with a target epsilon: the rounds are calibrated to what the set-up release
// leaves of the target, and the whole run's tight figure stays within it. (Private mode: the
// noise is secret, so only what does not depend on it is checked; the accuracy of the same
// set-up is checked in simulation, against clip-only's.)
TEST(DpStandardizeRunTest, TargetEpsilonPlansTheRoundsForWhatTheSetUpLeaves) {
  const Dataset train = MixedUnits(2000, 1), test = MixedUnits(1000, 2);
  RunSpec s = Dvp();
  s.data.add_bias = true;
  s.target_epsilon = 1.0;
  s.data.scaling = Scaling::kDpStandardize;
  s.data.standardize_epsilon = 0.1;
  s.data.feature_bounds_path = MixedUnitsBoundsFile("target_bounds.txt");
  const RunSummary dp = Experiment(s, train, test).Run();
  EXPECT_EQ(dp.info.standardization.epsilon, MakeStandardizeMechanism(0.1, 1).epsilon);
  ASSERT_FALSE(dp.node_tight_epsilon.empty());
  for (double t : dp.node_tight_epsilon) {
    EXPECT_LE(t, 1.0);
    EXPECT_GT(t, 0.8);  // the target is spent, not wasted
  }
  EXPECT_LE(dp.info.calibrated_epsilon, 1.0 + 1e-12);
  RunSpec sim = s;
  sim.noise_seed = 1;
  const RunSummary simulated = Experiment(sim, train, test).Run();
  RunSpec clipped = sim;
  clipped.data.scaling = Scaling::kClipOnly;
  clipped.data.standardize_epsilon = 0.0;
  clipped.data.feature_bounds_path.clear();
  const RunSummary clip = Experiment(clipped, train, test).Run();
  std::printf(
      "mixed units, dvp at target epsilon 1, test error: dp-standardize (0.1 of it) "
      "%.4f, clip-only %.4f\n",
      simulated.final.test_error, clip.final.test_error);
  EXPECT_LT(simulated.final.test_error + 0.1, clip.final.test_error);
  // Set-up releases that use up the target are refused by the calibration, naming them.
  RunSpec greedy = s;
  greedy.data.bounds_epsilon = 0.5;
  greedy.data.standardize_epsilon = 0.6;
  EXPECT_TRUE(test::ThrowsInputError([&] { (void)Experiment(greedy, train, test); },
                                     {"target_epsilon", "set-up releases", "dp-standardize"}));
}

// Accuracy on mixed units (2,000 training rows, 4 nodes, DVP alpha 5, noise seed 1), printed
// for the README: dp-standardize with public bounds [0, 10 unit] per feature, and with bounds
// from dp-bounds, against standardize and clip-only.
TEST(DpStandardizeRunTest, MixedUnitsAccuracyIsCloseToStandardize) {
  const Dataset train = MixedUnits(2000, 1), test = MixedUnits(1000, 2);
  RunSpec s = Dvp();
  s.iterations = 30;
  s.algorithm.As<DvpParams>().alpha = 5.0;
  s.noise_seed = 1;
  s.data.add_bias = true;
  s.data.scaling = Scaling::kClipOnly;
  const RunSummary clipped = Experiment(s, train, test).Run();
  s.data.scaling = Scaling::kStandardize;
  const RunSummary exact = Experiment(s, train, test).Run();
  std::printf("mixed units, test error: standardize %.4f, clip-only %.4f\n", exact.final.test_error,
              clipped.final.test_error);
  EXPECT_LT(exact.final.test_error + 0.05, clipped.final.test_error);
  s.data.scaling = Scaling::kDpStandardize;
  s.data.feature_bounds_path = MixedUnitsBoundsFile("standardize_bounds.txt");
  for (double eps : {0.5, 1.0, 4.0}) {
    s.data.standardize_epsilon = eps;
    const RunSummary dp = Experiment(s, train, test).Run();
    std::printf("  dp-standardize eps %.1f, public bounds: test error %.4f (%lld floored)\n", eps,
                dp.final.test_error,
                static_cast<long long>(dp.info.standardization.floored_features));
    if (eps >= 1.0) {
      EXPECT_LT(dp.final.test_error, exact.final.test_error + 0.03) << eps;
    }
  }
  s.data.feature_bounds_path.clear();
  s.data.bounds_epsilon = 0.5;
  s.data.standardize_epsilon = 1.0;
  const RunSummary both = Experiment(s, train, test).Run();
  std::printf("  dp-bounds eps 0.5 then dp-standardize eps 1: test error %.4f (%lld floored)\n",
              both.final.test_error,
              static_cast<long long>(both.info.standardization.floored_features));
}

}  // namespace
}  // namespace dpadmm
