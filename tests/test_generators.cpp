// SPDX-License-Identifier: Apache-2.0
#include "dpadmm/data/generators.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

#include "dpadmm/core/error.h"

namespace dpadmm {
namespace {

// Statistical checks: fixed seeds, and thresholds of 5.5 standard errors, so that a correct
// generator fails one check for a fresh seed with probability about 4e-8 (two-sided normal tail).

constexpr double kSigmas = 5.5;

const DenseRows& Dense(const Dataset& d) { return std::get<DenseRows>(d.x); }
const SparseRows& Sparse(const Dataset& d) { return std::get<SparseRows>(d.x); }

// Bitwise equality of two compressed sparse matrices.
bool SameSparse(const Dataset& a, const Dataset& b) {
  const SparseRows& x = Sparse(a);
  const SparseRows& y = Sparse(b);
  return x.rows() == y.rows() && x.cols() == y.cols() && x.nonZeros() == y.nonZeros() &&
         std::equal(x.outerIndexPtr(), x.outerIndexPtr() + x.rows() + 1, y.outerIndexPtr()) &&
         std::equal(x.innerIndexPtr(), x.innerIndexPtr() + x.nonZeros(), y.innerIndexPtr()) &&
         std::equal(x.valuePtr(), x.valuePtr() + x.nonZeros(), y.valuePtr());
}

// Fraction of +1 labels is Binomial(n, 1/2) / n: sd = 0.5 / sqrt(n).
void ExpectBalanced(const Dataset& d) {
  const double n = static_cast<double>(d.rows());
  const double positive = static_cast<double>((d.y.array() > 0).count()) / n;
  EXPECT_NEAR(positive, 0.5, kSigmas * 0.5 / std::sqrt(n));
}

TEST(GeneratorTest, TwonormAndRingnormShapes) {
  for (const Dataset& d : {GenerateTwonorm(300, 1), GenerateRingnorm(300, 1)}) {
    ASSERT_FALSE(d.is_sparse());
    EXPECT_EQ(d.rows(), 300);
    EXPECT_EQ(d.cols(), 20);
    EXPECT_NO_THROW(d.Validate());
  }
  EXPECT_EQ(GenerateTwonorm(10, 1, 7).cols(), 7);
  EXPECT_EQ(GenerateRingnorm(10, 1, 3).cols(), 3);
}

TEST(GeneratorTest, SameSeedSameDataDifferentSeedDifferentData) {
  EXPECT_EQ(Dense(GenerateTwonorm(200, 5)), Dense(GenerateTwonorm(200, 5)));
  EXPECT_EQ(GenerateTwonorm(200, 5).y, GenerateTwonorm(200, 5).y);
  EXPECT_NE(Dense(GenerateTwonorm(200, 5)), Dense(GenerateTwonorm(200, 6)));
  EXPECT_EQ(Dense(GenerateRingnorm(200, 5)), Dense(GenerateRingnorm(200, 5)));
  EXPECT_NE(Dense(GenerateRingnorm(200, 5)), Dense(GenerateRingnorm(200, 6)));
  // Twonorm and ringnorm use separate streams even for the same seed.
  EXPECT_NE(GenerateTwonorm(200, 5).y, GenerateRingnorm(200, 5).y);
}

TEST(GeneratorTest, RowsDependOnlyOnSeedAndRowIndex) {
  const Dataset small = GenerateTwonorm(50, 9);
  const Dataset large = GenerateTwonorm(120, 9);
  EXPECT_EQ(Dense(small), Dense(large).topRows(50));
  EXPECT_EQ(small.y, large.y.head(50));
}

TEST(GeneratorTest, RejectsNonPositiveSizes) {
  EXPECT_THROW(GenerateTwonorm(0, 1), InputError);
  EXPECT_THROW(GenerateTwonorm(10, 1, 0), InputError);
  EXPECT_THROW(GenerateRingnorm(-1, 1), InputError);
}

TEST(TwonormTest, ClassesAreBalancedWithMeansPlusMinusA) {
  const Dataset d = GenerateTwonorm(20000, 17);
  ExpectBalanced(d);
  const double a = 2.0 / std::sqrt(20.0);
  for (double label : {1.0, -1.0}) {
    Eigen::RowVectorXd sum = Eigen::RowVectorXd::Zero(20);
    int count = 0;
    for (Eigen::Index r = 0; r < d.rows(); ++r) {
      if (d.y[r] == label) {
        sum += Dense(d).row(r);
        ++count;
      }
    }
    // Each coordinate's class mean has sd 1 / sqrt(count) (unit variance).
    const Eigen::RowVectorXd mean = sum / count;
    for (Eigen::Index j = 0; j < 20; ++j) {
      EXPECT_NEAR(mean[j], label * a, kSigmas / std::sqrt(count)) << "class " << label;
    }
  }
}

TEST(RingnormTest, ClassesHaveTheirMeansAndVariances) {
  const Dataset d = GenerateRingnorm(20000, 18);
  ExpectBalanced(d);
  const double a = 1.0 / std::sqrt(20.0);
  // Pool all 20 coordinates: class +1 values ~ N(0, 4), class -1 values ~ N(a, 1).
  for (double label : {1.0, -1.0}) {
    double sum = 0.0, sum_sq = 0.0;
    double n = 0.0;
    for (Eigen::Index r = 0; r < d.rows(); ++r) {
      if (d.y[r] != label) continue;
      sum += Dense(d).row(r).sum();
      sum_sq += Dense(d).row(r).squaredNorm();
      n += 20;
    }
    const double mean = sum / n;
    const double variance = sum_sq / n - mean * mean;
    const double sigma2 = label > 0 ? 4.0 : 1.0;
    // se(mean) = sigma / sqrt(n); se(variance) = sigma^2 sqrt(2 / n) for normal data.
    EXPECT_NEAR(mean, label > 0 ? 0.0 : a, kSigmas * std::sqrt(sigma2 / n));
    EXPECT_NEAR(variance, sigma2, kSigmas * sigma2 * std::sqrt(2.0 / n));
  }
}

SparseHighDimOptions SmallOptions() {
  SparseHighDimOptions o;
  o.rows = 2000;
  o.dims = 400;
  o.informative = 40;
  o.nnz_per_row = 25;
  o.flip_probability = 0.0;
  return o;
}

TEST(SparseHighDimTest, ShapeAndExactlyNnzDistinctColumnsPerRow) {
  const SparseHighDimOptions o = SmallOptions();
  const Dataset d = GenerateSparseHighDim(o, 3);
  ASSERT_TRUE(d.is_sparse());
  EXPECT_EQ(d.rows(), o.rows);
  EXPECT_EQ(d.cols(), o.dims);
  EXPECT_EQ(d.nonzeros(), o.rows * o.nnz_per_row);
  EXPECT_TRUE(Sparse(d).isCompressed());
  for (Eigen::Index r = 0; r < d.rows(); ++r) {
    std::int64_t previous = -1, count = 0;
    for (SparseRows::InnerIterator it(Sparse(d), r); it; ++it, ++count) {
      ASSERT_GT(it.index(), previous);
      previous = it.index();
    }
    ASSERT_EQ(count, o.nnz_per_row);
  }
  EXPECT_NO_THROW(d.Validate());
  ExpectBalanced(d);
}

TEST(SparseHighDimTest, DeterministicForSeed) {
  const SparseHighDimOptions o = SmallOptions();
  const Dataset a = GenerateSparseHighDim(o, 3);
  const Dataset b = GenerateSparseHighDim(o, 3);
  const Dataset c = GenerateSparseHighDim(o, 4);
  EXPECT_TRUE(SameSparse(a, b));
  EXPECT_EQ(a.y, b.y);
  EXPECT_FALSE(SameSparse(a, c));
}

TEST(SparseHighDimTest, FlipProbabilityFlipsThatShareOfLabels) {
  SparseHighDimOptions o = SmallOptions();
  o.rows = 10000;
  const Dataset clean = GenerateSparseHighDim(o, 8);
  o.flip_probability = 0.2;
  const Dataset noisy = GenerateSparseHighDim(o, 8);
  // The features do not depend on the flip probability; each label flips with p = 0.2.
  EXPECT_TRUE(SameSparse(clean, noisy));
  const double flipped = static_cast<double>((clean.y.array() != noisy.y.array()).count());
  const double n = static_cast<double>(o.rows);
  EXPECT_NEAR(flipped / n, 0.2, kSigmas * std::sqrt(0.2 * 0.8 / n));
}

TEST(SparseHighDimTest, LabelsAreALinearFunctionOfInformativeFeatures) {
  // Rows with the same informative part have the same (noise-free) label: check it on rows
  // whose only informative feature is the same column, where the label is sign(w_j x_j).
  SparseHighDimOptions o = SmallOptions();
  o.rows = 4000;
  const Dataset d = GenerateSparseHighDim(o, 21);
  int checked = 0;
  std::vector<double> sign_of_column(static_cast<std::size_t>(o.informative), 0.0);
  for (Eigen::Index r = 0; r < d.rows(); ++r) {
    int informative = 0;
    Eigen::Index column = -1;
    double value = 0.0;
    for (SparseRows::InnerIterator it(Sparse(d), r); it; ++it) {
      if (it.index() < o.informative) {
        ++informative;
        column = it.index();
        value = it.value();
      }
    }
    if (informative != 1) continue;
    // label = sign(w_j * value), so label * sign(value) = sign(w_j) is the same for column j.
    const double w_sign = d.y[r] * (value > 0 ? 1.0 : -1.0);
    double& known = sign_of_column[static_cast<std::size_t>(column)];
    if (known == 0.0) {
      known = w_sign;
    } else {
      ASSERT_EQ(known, w_sign) << "row " << r;
      ++checked;
    }
  }
  EXPECT_GT(checked, 100);
}

TEST(SparseHighDimTest, RejectsBadOptions) {
  auto with = [](auto change) {
    SparseHighDimOptions o = SmallOptions();
    change(o);
    return o;
  };
  EXPECT_THROW(GenerateSparseHighDim(with([](auto& o) { o.rows = 0; }), 1), InputError);
  EXPECT_THROW(GenerateSparseHighDim(with([](auto& o) { o.dims = 0; }), 1), InputError);
  EXPECT_THROW(GenerateSparseHighDim(with([](auto& o) { o.informative = 0; }), 1), InputError);
  EXPECT_THROW(GenerateSparseHighDim(with([](auto& o) { o.informative = 401; }), 1), InputError);
  EXPECT_THROW(GenerateSparseHighDim(with([](auto& o) { o.nnz_per_row = 401; }), 1), InputError);
  EXPECT_THROW(GenerateSparseHighDim(with([](auto& o) { o.flip_probability = -0.1; }), 1),
               InputError);
  EXPECT_THROW(GenerateSparseHighDim(with([](auto& o) { o.flip_probability = 0.6; }), 1),
               InputError);
  EXPECT_NO_THROW(GenerateSparseHighDim(with([](auto& o) {
                                          o.rows = 5;
                                          o.nnz_per_row = o.dims;
                                        }),
                                        1));
}

}  // namespace
}  // namespace dpadmm
