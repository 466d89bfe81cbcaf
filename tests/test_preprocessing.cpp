// SPDX-License-Identifier: Apache-2.0
#include "dpadmm/data/preprocessing.h"

#include <algorithm>
#include <cmath>
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
