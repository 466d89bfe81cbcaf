// SPDX-License-Identifier: Apache-2.0
// The memory-saving data paths must give the bits of the paths they replace: Unpartition (the
// training rows rebuilt from the nodes' slices), AddBiasFeature's direct CSR copy, and
// Experiment::train() of a consensus experiment (which keeps only the slices).
#include <gtest/gtest.h>

#include <vector>

#include "dpadmm/core/error.h"
#include "dpadmm/data/generators.h"
#include "dpadmm/data/preprocessing.h"
#include "dpadmm/experiment/run.h"

namespace {

using dpadmm::Dataset;
using dpadmm::DenseRows;
using dpadmm::SparseRows;

void ExpectSameSparse(const SparseRows& a, const SparseRows& b) {
  ASSERT_TRUE(a.isCompressed());
  ASSERT_TRUE(b.isCompressed());
  ASSERT_EQ(a.rows(), b.rows());
  ASSERT_EQ(a.cols(), b.cols());
  ASSERT_EQ(a.nonZeros(), b.nonZeros());
  for (Eigen::Index r = 0; r <= a.rows(); ++r) {
    ASSERT_EQ(a.outerIndexPtr()[r], b.outerIndexPtr()[r]) << "row " << r;
  }
  for (Eigen::Index k = 0; k < a.nonZeros(); ++k) {
    ASSERT_EQ(a.innerIndexPtr()[k], b.innerIndexPtr()[k]) << "entry " << k;
    ASSERT_EQ(a.valuePtr()[k], b.valuePtr()[k]) << "entry " << k;
  }
}

Dataset SmallSparse(bool sorted) {
  // Row 1 is empty, row 2 stores an explicit zero; row 3 is out of order unless `sorted`.
  std::vector<Eigen::Triplet<double, std::int64_t>> t = {
      {0, 1, 0.5}, {0, 4, -1.25}, {2, 0, 0.0}, {2, 3, 2.0}, {3, 2, 1.0}, {3, 4, 3.0}};
  SparseRows x(4, 5);
  x.setFromTriplets(t.begin(), t.end());
  x.makeCompressed();
  if (!sorted) {  // swap row 3's two entries in place
    const auto k = x.outerIndexPtr()[3];
    std::swap(x.innerIndexPtr()[k], x.innerIndexPtr()[k + 1]);
    std::swap(x.valuePtr()[k], x.valuePtr()[k + 1]);
  }
  Dataset d;
  d.x = std::move(x);
  d.y = Eigen::VectorXd::Ones(4);
  return d;
}

// The triplet construction AddBiasFeature used for every sparse set (the reference).
SparseRows WidenedByTriplets(const SparseRows& s, double value) {
  std::vector<Eigen::Triplet<double, std::int64_t>> entries;
  for (std::int64_t r = 0; r < s.outerSize(); ++r) {
    for (SparseRows::InnerIterator it(s, r); it; ++it) entries.emplace_back(r, it.col(), it.value());
    entries.emplace_back(r, s.cols(), value);
  }
  SparseRows w(s.rows(), s.cols() + 1);
  w.setFromTriplets(entries.begin(), entries.end());
  return w;
}

}  // namespace

TEST(DataMemory, AddBiasFeatureGivesTheTripletPathsBits) {
  for (bool sorted : {true, false}) {
    Dataset d = SmallSparse(sorted);
    const SparseRows reference = WidenedByTriplets(std::get<SparseRows>(d.x), 0.75);
    dpadmm::AddBiasFeature(d, 0.75);
    ExpectSameSparse(std::get<SparseRows>(d.x), reference);
  }
  dpadmm::SparseHighDimOptions o;
  o.rows = 300;
  o.dims = 50;
  o.informative = 10;
  o.nnz_per_row = 7;
  Dataset g = dpadmm::GenerateSparseHighDim(o, 3);
  const SparseRows reference = WidenedByTriplets(std::get<SparseRows>(g.x), 1.0);
  dpadmm::AddBiasFeature(g);
  ExpectSameSparse(std::get<SparseRows>(g.x), reference);
}

TEST(DataMemory, UnpartitionRebuildsTheRowsBitForBit) {
  dpadmm::SparseHighDimOptions o;
  o.rows = 257;
  o.dims = 40;
  o.informative = 10;
  o.nnz_per_row = 5;
  const Dataset sparse = dpadmm::GenerateSparseHighDim(o, 5);
  const Dataset dense = dpadmm::GenerateTwonorm(131, 5, 7);
  for (const Dataset* d : {&sparse, &dense}) {
    const dpadmm::Partition p = dpadmm::PartitionDirichlet(d->rows(), 4, 0.5, 9);
    std::vector<Dataset> slices;
    for (const auto& rows : p) slices.push_back(d->Subset(rows));
    const Dataset back = dpadmm::Unpartition(slices, p);
    ASSERT_EQ(back.y, d->y);
    ASSERT_EQ(back.is_sparse(), d->is_sparse());
    if (d->is_sparse()) {
      ExpectSameSparse(std::get<SparseRows>(back.x), std::get<SparseRows>(d->x));
    } else {
      ASSERT_EQ(std::get<DenseRows>(back.x), std::get<DenseRows>(d->x));
    }
    dpadmm::Partition wrong = p;
    wrong[0].push_back(wrong[1].front());
    EXPECT_THROW((void)dpadmm::Unpartition(slices, wrong), dpadmm::InputError);
  }
}

TEST(DataMemory, ConsensusTrainIsRebuiltFromTheSlices) {
  // The experiment frees its training rows once they are split over the nodes; train() gives
  // them back as the in-memory constructor received them (after preparation: none here).
  const Dataset all = dpadmm::GenerateTwonorm(400, 3, 6);
  const dpadmm::TrainTest split = dpadmm::SplitTrainTest(all, 0.25, 3);
  dpadmm::RunSpec s;
  s.graph.nodes = 4;
  s.graph.topology = dpadmm::Topology::kRing;
  s.data.normalize = false;
  s.iterations = 2;
  const dpadmm::Experiment e(s, split.train, split.test);
  const Dataset& train = e.train();
  EXPECT_EQ(train.y, split.train.y);
  EXPECT_EQ(std::get<DenseRows>(train.x), std::get<DenseRows>(split.train.x));
  EXPECT_EQ(&e.train(), &train);  // rebuilt once
}
