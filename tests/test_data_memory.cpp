// SPDX-License-Identifier: Apache-2.0
// The memory-saving data paths must give the bits of the paths they replace: Unpartition (the
// training rows rebuilt from the nodes' slices) and Experiment::train() of a consensus
// experiment (which keeps only the slices).
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

}  // namespace

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
