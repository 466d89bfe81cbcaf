// SPDX-License-Identifier: Apache-2.0
#include "dpadmm/data/preprocessing.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <numeric>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "dpadmm/core/error.h"
#include "dpadmm/data/generators.h"
#include "test_helpers.h"

namespace dpadmm {
namespace {

using test::Fixture;
using test::ThrowsInputError;
using test::WriteTempFile;

// n rows, one column holding the row index (so a row's origin is visible after a split).
Dataset Indexed(std::int64_t n) {
  Dataset d;
  DenseRows x(n, 1);
  for (std::int64_t i = 0; i < n; ++i) x(i, 0) = static_cast<double>(i);
  d.x = x;
  d.y = Eigen::VectorXd::Ones(n);
  return d;
}

std::vector<std::int64_t> RowIds(const Dataset& d) {
  const DenseRows& x = std::get<DenseRows>(d.x);
  return std::vector<std::int64_t>(x.data(), x.data() + x.rows());
}

std::vector<std::int64_t> Sizes(const Partition& p) {
  std::vector<std::int64_t> sizes;
  for (const auto& rows : p) sizes.push_back(static_cast<std::int64_t>(rows.size()));
  return sizes;
}

// Every row in [0, rows) exactly once, each node's list sorted and non-empty.
void ExpectValidPartition(const Partition& p, std::int64_t rows) {
  std::vector<int> seen(static_cast<std::size_t>(rows), 0);
  for (const auto& node_rows : p) {
    EXPECT_FALSE(node_rows.empty());
    EXPECT_TRUE(std::is_sorted(node_rows.begin(), node_rows.end()));
    for (std::int64_t r : node_rows) {
      ASSERT_GE(r, 0);
      ASSERT_LT(r, rows);
      ++seen[static_cast<std::size_t>(r)];
    }
  }
  EXPECT_TRUE(std::all_of(seen.begin(), seen.end(), [](int c) { return c == 1; }));
}

// ---- Data-independent preparation (private mode) -----------------------------------------------

// Random dense rows with norms up to ~`scale` (some below 1, most above).
Dataset RandomRows(std::int64_t n, std::int64_t d, double scale, std::uint64_t seed) {
  Dataset data = GenerateTwonorm(n, seed, d);
  data.Scale(scale);
  return data;
}

bool SameRow(const Dataset& a, const Dataset& b, Eigen::Index r) {
  const DenseRows& x = std::get<DenseRows>(a.x);
  const DenseRows& y = std::get<DenseRows>(b.x);
  for (Eigen::Index k = 0; k < x.cols(); ++k) {
    if (std::memcmp(&x(r, k), &y(r, k), sizeof(double)) != 0) return false;
  }
  return true;
}

TEST(ClipRowsTest, EveryRowWithinTheUnitBallAndShortRowsUntouched) {
  for (std::uint64_t seed = 0; seed < 30; ++seed) {
    const Dataset raw = RandomRows(60, 7, 0.3 + 0.2 * static_cast<double>(seed), seed);
    Dataset clipped = raw;
    const std::int64_t changed = ClipRows(clipped);
    const DenseRows& before = std::get<DenseRows>(raw.x);
    const DenseRows& after = std::get<DenseRows>(clipped.x);
    std::int64_t long_rows = 0;
    for (Eigen::Index r = 0; r < before.rows(); ++r) {
      ASSERT_LE(after.row(r).norm(), 1.0) << "seed " << seed << " row " << r;
      if (before.row(r).norm() <= 1.0) {
        EXPECT_TRUE(SameRow(raw, clipped, r)) << "a row inside the ball must not move";
      } else {
        ++long_rows;
        EXPECT_NEAR(after.row(r).norm(), 1.0, 1e-12);
        // Same direction: x / ||x||.
        EXPECT_NEAR(after.row(r).dot(before.row(r)), before.row(r).norm(), 1e-9);
      }
    }
    EXPECT_EQ(changed, long_rows);
  }
}

TEST(ClipRowsTest, SparseRowsKeepTheirZerosAndTheBound) {
  SparseHighDimOptions o;
  o.rows = 40;
  o.dims = 30;
  o.informative = 5;
  o.nnz_per_row = 6;
  Dataset data = GenerateSparseHighDim(o, 3);
  data.Scale(5.0);
  const std::int64_t nonzeros = data.nonzeros();
  ClipRows(data);
  EXPECT_LE(data.MaxRowNorm(), 1.0);
  EXPECT_EQ(data.nonzeros(), nonzeros);
  Dataset bad = Indexed(3);
  std::get<DenseRows>(bad.x)(1, 0) = std::nan("");
  EXPECT_TRUE(ThrowsInputError([&] { ClipRows(bad); }, {"NaN"}));
}

TEST(ClipRowsTest, BlocksAreClippedEachOnItsOwn) {
  const Dataset raw = RandomRows(30, 6, 2.0, 4);
  Dataset dense = raw;
  ClipRowBlocks(dense, {2, 4});
  const DenseRows& x = std::get<DenseRows>(dense.x);
  const DenseRows& before = std::get<DenseRows>(raw.x);
  for (Eigen::Index r = 0; r < x.rows(); ++r) {
    EXPECT_LE(x.row(r).head(2).norm(), 1.0);
    EXPECT_LE(x.row(r).tail(4).norm(), 1.0);
    // A block inside the ball is untouched, whatever the other block holds.
    if (before.row(r).head(2).norm() <= 1.0) EXPECT_EQ(x.row(r).head(2), before.row(r).head(2));
  }
  SparseHighDimOptions o;
  o.rows = 40;
  o.dims = 30;
  o.informative = 5;
  o.nnz_per_row = 12;
  Dataset sparse = GenerateSparseHighDim(o, 5);
  sparse.Scale(4.0);
  ClipRowBlocks(sparse, {10, 15, 5});
  const SparseRows& s = std::get<SparseRows>(sparse.x);
  for (std::int64_t r = 0; r < s.outerSize(); ++r) {
    double sq[3] = {0, 0, 0};
    for (SparseRows::InnerIterator it(s, r); it; ++it) {
      sq[it.col() < 10 ? 0 : it.col() < 25 ? 1 : 2] += it.value() * it.value();
    }
    for (double b : sq) EXPECT_LE(b, 1.0);
  }
  EXPECT_TRUE(ThrowsInputError([&] { ClipRowBlocks(sparse, {10, 10}); }, {"20 columns"}));
}

// The point of the private-mode maps: one record's change never reaches another record.
TEST(PrivatePreparationTest, ChangingOneRecordChangesNoOtherPreparedRow) {
  const Dataset raw = RandomRows(50, 4, 3.0, 9);
  Dataset changed = raw;
  std::get<DenseRows>(changed.x).row(17) *= 40.0;  // one user's record, now far the largest
  const FeatureBounds bounds = UniformBounds(4, -5.0, 5.0);
  const auto prepare_public = [&](Dataset d) {
    ScaleByPublicBounds(d, bounds, 4);
    ClipRows(d);
    return d;
  };
  const auto prepare_clip = [](Dataset d) {
    ClipRows(d);
    return d;
  };
  for (const auto& prepare : {std::function<Dataset(Dataset)>(prepare_public),
                              std::function<Dataset(Dataset)>(prepare_clip)}) {
    const Dataset a = prepare(raw), b = prepare(changed);
    for (Eigen::Index r = 0; r < 50; ++r) {
      if (r == 17) continue;
      EXPECT_TRUE(SameRow(a, b, r)) << "row " << r;
    }
    EXPECT_LE(b.MaxRowNorm(), 1.0);
  }
  // The global factor moves every row (the reason private mode refuses it).
  Dataset ga = raw, gb = changed, none_a, none_b;
  none_a.x = DenseRows(0, 4);
  none_b.x = DenseRows(0, 4);
  GlobalMaxNormScale(ga, none_a);
  GlobalMaxNormScale(gb, none_b);
  EXPECT_FALSE(SameRow(ga, gb, 0));
}

TEST(PublicBoundsTest, MapsTheBoundsToPlusMinusOneOverRootD) {
  Dataset d;
  DenseRows x(3, 2);
  x << 0.0, 100.0,  // lo of both
      10.0, 300.0,  // hi of both
      5.0, 200.0;   // midpoints
  d.x = x;
  d.y = Eigen::VectorXd::Ones(3);
  FeatureBounds b;
  b.lo = {0.0, 100.0};
  b.hi = {10.0, 300.0};
  ScaleByPublicBounds(d, b, 2);
  const DenseRows& y = std::get<DenseRows>(d.x);
  const double r = 1.0 / std::sqrt(2.0);
  EXPECT_DOUBLE_EQ(y(0, 0), -r);
  EXPECT_DOUBLE_EQ(y(0, 1), -r);
  EXPECT_DOUBLE_EQ(y(1, 0), r);
  EXPECT_DOUBLE_EQ(y(1, 1), r);
  EXPECT_EQ(y(2, 0), 0.0);
  EXPECT_EQ(y(2, 1), 0.0);
  EXPECT_LE(d.MaxRowNorm(), 1.0 + 1e-15);
  EXPECT_TRUE(ThrowsInputError([&] { ScaleByPublicBounds(d, UniformBounds(3, 0, 1), 3); },
                               {"3 features", "2 columns"}));
}

TEST(PublicBoundsTest, LoadsBothFormsWithFallbackAndNamesFileAndLine) {
  const std::string plain =
      WriteTempFile("bounds_plain.txt", "# lo hi\n0 1\n-2 2 # comment\n\n5 6\n");
  FeatureBounds b = LoadFeatureBounds(plain, 3, {});
  EXPECT_EQ(b.lo, (std::vector<double>{0, -2, 5}));
  EXPECT_EQ(b.hi, (std::vector<double>{1, 2, 6}));
  const std::string indexed = WriteTempFile("bounds_indexed.txt", "2 10 20\n0 -1 1\n");
  b = LoadFeatureBounds(indexed, 4, {0.0, 3.0});
  EXPECT_EQ(b.lo, (std::vector<double>{-1, 0, 10, 0}));
  EXPECT_EQ(b.hi, (std::vector<double>{1, 3, 20, 3}));
  EXPECT_TRUE(ThrowsInputError([&] { LoadFeatureBounds(indexed, 4, {}); },
                               {"bounds_indexed.txt", "feature 1"}));
  const std::string mixed = WriteTempFile("bounds_mixed.txt", "0 1\n1 0 1\n");
  EXPECT_TRUE(
      ThrowsInputError([&] { LoadFeatureBounds(mixed, 2, {}); }, {"bounds_mixed.txt:2", "mixes"}));
  const std::string twice = WriteTempFile("bounds_twice.txt", "0 0 1\n0 0 2\n");
  EXPECT_TRUE(ThrowsInputError(
      [&] {
        LoadFeatureBounds(twice, 2, {0, 1});
      },
      {"bounds_twice.txt:2", "twice"}));
  const std::string reversed = WriteTempFile("bounds_reversed.txt", "1 0\n");
  EXPECT_TRUE(ThrowsInputError([&] { LoadFeatureBounds(reversed, 1, {}); },
                               {"bounds_reversed.txt:1", "lo < hi"}));
  const std::string range = WriteTempFile("bounds_range.txt", "7 0 1\n");
  EXPECT_TRUE(ThrowsInputError([&] { LoadFeatureBounds(range, 2, {}); },
                               {"bounds_range.txt:1", "out of range"}));
  const std::string extra = WriteTempFile("bounds_extra.txt", "0 1\n0 1\n0 1\n");
  EXPECT_TRUE(ThrowsInputError([&] { LoadFeatureBounds(extra, 2, {}); },
                               {"bounds_extra.txt:3", "more lines"}));
}

// ---- NormalizeRows -----------------------------------------------------------------------------

TEST(NormalizeTest, OneFactorForTrainAndTest) {
  Dataset train, test;
  DenseRows a(2, 2), b(1, 2);
  a << 0, 2, 1, 1;
  b << 3, 4;
  train.x = a;
  test.x = b;
  const double factor = NormalizeRows(train, test);
  EXPECT_DOUBLE_EQ(factor, 0.2);
  EXPECT_DOUBLE_EQ(test.MaxRowNorm(), 1.0);
  EXPECT_DOUBLE_EQ(train.MaxRowNorm(), 0.4);
  EXPECT_LE(test.MaxRowNorm(), 1.0);
}

TEST(NormalizeTest, MaxNormNeverExceedsOne) {
  for (std::uint64_t seed = 0; seed < 50; ++seed) {
    Dataset train = GenerateTwonorm(40, seed), test = GenerateRingnorm(40, seed);
    NormalizeRows(train, test);
    const double max_norm = std::max(train.MaxRowNorm(), test.MaxRowNorm());
    ASSERT_LE(max_norm, 1.0) << "seed " << seed;
    ASSERT_GE(max_norm, 1.0 - 1e-12) << "seed " << seed;
  }
}

TEST(NormalizeTest, SparseDataAndAllZeroData) {
  SparseHighDimOptions o;
  o.rows = 50;
  o.dims = 100;
  o.informative = 10;
  o.nnz_per_row = 10;
  Dataset train = GenerateSparseHighDim(o, 1), test = GenerateSparseHighDim(o, 2);
  NormalizeRows(train, test);
  EXPECT_LE(std::max(train.MaxRowNorm(), test.MaxRowNorm()), 1.0);

  Dataset zero_train, zero_test;
  zero_train.x = DenseRows::Zero(3, 2);
  zero_test.x = DenseRows(0, 2);
  EXPECT_EQ(NormalizeRows(zero_train, zero_test), 1.0);
}

// ---- SplitTrainTest ----------------------------------------------------------------------------

TEST(SplitTest, SizesDisjointCoverageOrderAndDeterminism) {
  const Dataset all = Indexed(101);
  const TrainTest s = SplitTrainTest(all, 0.3, 7);
  EXPECT_EQ(s.test.rows(), 30);  // round(30.3)
  EXPECT_EQ(s.train.rows(), 71);
  std::vector<std::int64_t> train = RowIds(s.train), test = RowIds(s.test);
  EXPECT_TRUE(std::is_sorted(train.begin(), train.end()));
  EXPECT_TRUE(std::is_sorted(test.begin(), test.end()));
  std::vector<std::int64_t> both;
  std::merge(train.begin(), train.end(), test.begin(), test.end(), std::back_inserter(both));
  std::vector<std::int64_t> expected(101);
  std::iota(expected.begin(), expected.end(), 0);
  EXPECT_EQ(both, expected);  // disjoint and covering

  EXPECT_EQ(RowIds(SplitTrainTest(all, 0.3, 7).test), test);
  EXPECT_NE(RowIds(SplitTrainTest(all, 0.3, 8).test), test);
}

TEST(SplitTest, KeepsStorageKindAndLabels) {
  SparseHighDimOptions o;
  o.rows = 200;
  o.dims = 50;
  o.informative = 5;
  o.nnz_per_row = 5;
  const Dataset all = GenerateSparseHighDim(o, 4);
  const TrainTest s = SplitTrainTest(all, 0.25, 1);
  EXPECT_TRUE(s.train.is_sparse());
  EXPECT_TRUE(s.test.is_sparse());
  EXPECT_EQ(s.test.rows(), 50);
  EXPECT_EQ(s.train.cols(), 50);
  EXPECT_EQ(s.train.nonzeros() + s.test.nonzeros(), all.nonzeros());
  EXPECT_EQ(s.train.y.sum() + s.test.y.sum(), all.y.sum());
}

TEST(SplitTest, RejectsBadFractions) {
  const Dataset all = Indexed(10);
  for (double f : {0.0, 1.0, -0.5, 1.5, std::nan("")}) {
    EXPECT_THROW(SplitTrainTest(all, f, 1), InputError) << f;
  }
  EXPECT_THROW(SplitTrainTest(all, 0.01, 1), InputError);  // no test rows
  EXPECT_THROW(SplitTrainTest(all, 0.99, 1), InputError);  // no train rows
}

// ---- Partitions --------------------------------------------------------------------------------

TEST(PartitionTest, EvenSizesCoverageAndDeterminism) {
  const Partition p = PartitionEven(103, 10, 5);
  ASSERT_EQ(p.size(), 10u);
  ExpectValidPartition(p, 103);
  EXPECT_EQ(Sizes(p), (std::vector<std::int64_t>{11, 11, 11, 10, 10, 10, 10, 10, 10, 10}));
  EXPECT_EQ(PartitionEven(103, 10, 5), p);
  EXPECT_NE(PartitionEven(103, 10, 6), p);
  ExpectValidPartition(PartitionEven(4, 4, 1), 4);
}

TEST(PartitionTest, ProportionalSizesUseLargestRemainder) {
  const Partition p = PartitionProportional(100, {1, 2, 7}, 3);
  ExpectValidPartition(p, 100);
  EXPECT_EQ(Sizes(p), (std::vector<std::int64_t>{10, 20, 70}));
  // Shares 3.33 each: the remainder goes to the lowest index on ties.
  EXPECT_EQ(Sizes(PartitionProportional(10, {1, 1, 1}, 3)), (std::vector<std::int64_t>{4, 3, 3}));
  // Shares 0.5 * 11 = 5.5, 0.3 * 11 = 3.3, 0.2 * 11 = 2.2: floors 5, 3, 2, one left for node 0.
  EXPECT_EQ(Sizes(PartitionProportional(11, {0.5, 0.3, 0.2}, 3)),
            (std::vector<std::int64_t>{6, 3, 2}));
  EXPECT_EQ(PartitionProportional(100, {1, 2, 7}, 3), p);
}

TEST(PartitionTest, ProportionalRejectsBadShares) {
  EXPECT_TRUE(ThrowsInputError([] { PartitionProportional(10, {1, 0}, 1); }, {"node 1"}));
  EXPECT_TRUE(ThrowsInputError([] { PartitionProportional(10, {1, -2}, 1); }, {"node 1"}));
  EXPECT_TRUE(ThrowsInputError(
      [] {
        PartitionProportional(10, {1, 1000}, 1);
      },
      {"node 0 gets no rows"}));
  EXPECT_THROW(PartitionProportional(10, {}, 1), InputError);
}

TEST(PartitionTest, RejectsFewerRowsThanNodes) {
  EXPECT_THROW(PartitionEven(3, 4, 1), InputError);
  EXPECT_THROW(PartitionEven(3, 0, 1), InputError);
  EXPECT_THROW(PartitionDirichlet(3, 4, 1.0, 1), InputError);
  EXPECT_THROW(PartitionDirichlet(30, 4, 0.0, 1), InputError);
}

TEST(PartitionTest, DirichletIsReproducibleAndNeverLeavesANodeEmpty) {
  const Partition p = PartitionDirichlet(1000, 10, 0.1, 12);
  ExpectValidPartition(p, 1000);
  EXPECT_EQ(PartitionDirichlet(1000, 10, 0.1, 12), p);
  EXPECT_NE(PartitionDirichlet(1000, 10, 0.1, 13), p);
  // A tiny alpha concentrates almost everything on few nodes, yet every node keeps a row.
  for (std::uint64_t seed = 0; seed < 20; ++seed) {
    ExpectValidPartition(PartitionDirichlet(50, 10, 0.01, seed), 50);
  }
  // A large alpha gives nearly even shares: each share is Beta(alpha, 9 alpha) with mean 0.1
  // and sd sqrt(0.1 * 0.9 / (10 alpha + 1)) ~ 0.003 for alpha = 1000, i.e. +-3 rows here.
  for (std::int64_t size : Sizes(PartitionDirichlet(1000, 10, 1000.0, 1))) {
    EXPECT_NEAR(static_cast<double>(size), 100.0, 5.5 * 3.0 + 1.0);
  }
}

TEST(PartitionTest, LoadsPartitionFile) {
  const Partition p = LoadPartition(Fixture("partition.txt"), 4, 3);
  EXPECT_EQ(p, (Partition{{0, 2}, {1}, {3}}));
  const std::string crlf = WriteTempFile("crlf.part", "1\r\n0\r\n");
  EXPECT_EQ(LoadPartition(crlf, 2, 2), (Partition{{1}, {0}}));
}

TEST(PartitionTest, PartitionFileErrorsNameFileAndLine) {
  struct Case {
    std::string content;
    std::int64_t rows;
    int line;
    std::string phrase;
  };
  const std::vector<Case> cases = {
      {"0\n1\nx\n", 3, 3, "bad node id 'x'"},
      {"0\n1.5\n", 2, 2, "bad node id '1.5'"},
      {"0\n3\n1\n", 3, 2, "node id 3 out of range [0, 3)"},
      {"0\n-1\n", 2, 2, "node id -1 out of range"},
      {"0\n1 2\n", 2, 2, "expected one node id, found 2 fields"},
      {"0\n\n1\n", 3, 2, "expected one node id, found 0 fields"},
      {"0\n1\n2\n0\n", 3, 4, "more lines than the 3 training rows"},
      {"0\n1\n", 3, 0, "has 2 lines, expected one per training row (3)"},
      {"0\n0\n2\n", 3, 0, "node 1 holds no rows"},
      {"", 3, 0, "has 0 lines"},
  };
  for (const Case& c : cases) {
    const std::string path = WriteTempFile("bad.part", c.content);
    const std::string where = c.line > 0 ? path + ":" + std::to_string(c.line) + ": " : path + ": ";
    EXPECT_TRUE(ThrowsInputError([&] { LoadPartition(path, c.rows, 3); }, {where, c.phrase}))
        << c.content;
  }
  const std::string missing = test::TempPath("dpadmm_no_such.part");
  EXPECT_TRUE(
      ThrowsInputError([&] { LoadPartition(missing, 3, 3); }, {missing + ": cannot open file"}));
}

}  // namespace
}  // namespace dpadmm
