// SPDX-License-Identifier: Apache-2.0
#include "dpadmm/data/dataset.h"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include <gtest/gtest.h>

#include "dpadmm/core/error.h"
#include "test_helpers.h"

namespace dpadmm {
namespace {

using test::ThrowsInputError;

// 3 x 3: rows (3, 4, 0), (0, 0, 0), (1, 0, 0); labels +1, -1, +1.
DenseRows SmallDense() {
  DenseRows x(3, 3);
  x << 3, 4, 0,  //
      0, 0, 0,   //
      1, 0, 0;
  return x;
}

Dataset MakeDataset(bool sparse) {
  Dataset d;
  const DenseRows x = SmallDense();
  if (sparse) {
    SparseRows s = x.sparseView();
    s.makeCompressed();
    d.x = s;
  } else {
    d.x = x;
  }
  d.y = Eigen::Vector3d(1, -1, 1);
  d.name = "small";
  return d;
}

DenseRows ToDense(const Dataset& d) {
  return VisitRows(d, [](const auto& m) { return DenseRows(m); });
}

class DatasetTest : public ::testing::TestWithParam<bool> {};

TEST_P(DatasetTest, ShapeNonzerosAndMaxRowNorm) {
  const Dataset d = MakeDataset(GetParam());
  EXPECT_EQ(d.is_sparse(), GetParam());
  EXPECT_EQ(d.rows(), 3);
  EXPECT_EQ(d.cols(), 3);
  EXPECT_EQ(d.nonzeros(), 3);
  EXPECT_DOUBLE_EQ(d.MaxRowNorm(), 5.0);
}

TEST_P(DatasetTest, ScaleMultipliesEveryRow) {
  Dataset d = MakeDataset(GetParam());
  d.Scale(0.5);
  EXPECT_DOUBLE_EQ(d.MaxRowNorm(), 2.5);
  EXPECT_EQ(ToDense(d), DenseRows(SmallDense() * 0.5));
}

TEST_P(DatasetTest, SubsetKeepsOrderStorageAndLabels) {
  const Dataset d = MakeDataset(GetParam());
  const Dataset s = d.Subset({2, 0, 2});
  EXPECT_EQ(s.is_sparse(), GetParam());
  ASSERT_EQ(s.rows(), 3);
  EXPECT_EQ(s.cols(), 3);
  const DenseRows full = SmallDense();
  const DenseRows sub = ToDense(s);
  EXPECT_EQ(sub.row(0), full.row(2));
  EXPECT_EQ(sub.row(1), full.row(0));
  EXPECT_EQ(sub.row(2), full.row(2));
  EXPECT_EQ(s.y, Eigen::Vector3d(1, 1, 1));
  EXPECT_EQ(d.Subset({}).rows(), 0);
  EXPECT_THROW(d.Subset({3}), std::out_of_range);
  EXPECT_THROW(d.Subset({-1}), std::out_of_range);
}

TEST_P(DatasetTest, ResizePadsWithZeroColumns) {
  Dataset d = MakeDataset(GetParam());
  d.Resize(5);
  EXPECT_EQ(d.cols(), 5);
  EXPECT_EQ(d.nonzeros(), 3);
  const DenseRows x = ToDense(d);
  EXPECT_EQ(x.leftCols(3), SmallDense());
  EXPECT_TRUE(x.rightCols(2).isZero());
  d.Resize(5);  // no-op
  EXPECT_EQ(d.cols(), 5);
  EXPECT_TRUE(ThrowsInputError([&] { d.Resize(4); }, {"small", "5 columns"}));
}

TEST_P(DatasetTest, ValidateAcceptsGoodData) {
  EXPECT_NO_THROW(MakeDataset(GetParam()).Validate());
}

TEST_P(DatasetTest, ValidateNamesFirstBadRow) {
  Dataset d = MakeDataset(GetParam());
  d.y[1] = 0.0;
  EXPECT_TRUE(ThrowsInputError([&] { d.Validate(); }, {"small", "row 1", "label"}));

  Dataset nan = MakeDataset(GetParam());
  nan.Scale(std::numeric_limits<double>::quiet_NaN());
  EXPECT_TRUE(ThrowsInputError([&] { nan.Validate(); }, {"row 0", "NaN"}));

  Dataset wrong_count = MakeDataset(GetParam());
  wrong_count.y.resize(2);
  wrong_count.y.setOnes();
  EXPECT_TRUE(ThrowsInputError([&] { wrong_count.Validate(); }, {"2 labels for 3 rows"}));
}

INSTANTIATE_TEST_SUITE_P(Dataset, DatasetTest, ::testing::Values(false, true),
                         [](const auto& p) { return p.param ? "Sparse" : "Dense"; });

TEST(DatasetEmptyTest, EmptyDataHasZeroNorm) {
  Dataset d;
  d.x = DenseRows(0, 4);
  EXPECT_EQ(d.rows(), 0);
  EXPECT_EQ(d.cols(), 4);
  EXPECT_EQ(d.MaxRowNorm(), 0.0);
  d.x = SparseRows(0, 4);
  EXPECT_EQ(d.MaxRowNorm(), 0.0);
  EXPECT_EQ(d.nonzeros(), 0);
}

TEST(DatasetSparseTest, SubsetOfUncompressedMatrix) {
  SparseRows x(3, 2);
  x.reserve(Eigen::VectorXi::Constant(3, 2));
  x.insert(0, 1) = 1.0;
  x.insert(2, 0) = 2.0;
  x.insert(2, 1) = 3.0;
  ASSERT_FALSE(x.isCompressed());
  Dataset d;
  d.x = x;
  d.y = Eigen::Vector3d(1, -1, 1);
  const Dataset s = d.Subset({2, 0});
  EXPECT_EQ(ToDense(s), (DenseRows(2, 2) << 2, 3, 0, 1).finished());
  EXPECT_EQ(s.nonzeros(), 3);
}

}  // namespace
}  // namespace dpadmm
