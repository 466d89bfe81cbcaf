// SPDX-License-Identifier: Apache-2.0
// The memory-saving data paths must give the bits of the paths they replace: Unpartition (the
// training rows rebuilt from the nodes' slices), Experiment::train() of a consensus experiment
// (which keeps only the slices), the intercept column written in place; moving a data set must
// not copy its rows.
#include <gtest/gtest.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include <cstdint>
#include <fstream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "allocation_counter.h"
#include "dpadmm/core/error.h"
#include "dpadmm/data/generators.h"
#include "dpadmm/data/preprocessing.h"
#include "dpadmm/run/run.h"
#include "dpadmm/solver/local_solver.h"

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

namespace {

SparseRows TripletReference(const SparseRows& x, double value) {
  std::vector<Eigen::Triplet<double, dpadmm::SparseIndex>> entries;
  for (Eigen::Index r = 0; r < x.outerSize(); ++r) {
    for (SparseRows::InnerIterator it(x, r); it; ++it)
      entries.emplace_back(r, it.col(), it.value());
    entries.emplace_back(r, x.cols(), value);
  }
  SparseRows out(x.rows(), x.cols() + 1);
  out.setFromTriplets(entries.begin(), entries.end());
  return out;
}

dpadmm::SparseHighDimOptions SmallSparseOptions() {
  dpadmm::SparseHighDimOptions o;
  o.rows = 300;
  o.dims = 80;
  o.informative = 10;
  o.nnz_per_row = 7;
  return o;
}

Dataset SmallSparse() { return dpadmm::GenerateSparseHighDim(SmallSparseOptions(), 11); }

// Linux: a line "<key> <n> kB" of /proc/self/status, in bytes (-1 if absent).
std::int64_t StatusBytes(const std::string& key) {
  std::ifstream status("/proc/self/status");
  std::string name;
  std::int64_t kb = 0;
  std::string unit;
  while (status >> name) {
    if (name == key + ":" && status >> kb >> unit) return kb * 1024;
    status.ignore(1 << 20, '\n');
  }
  return -1;
}

// Linux: restarts the peak resident set (VmHWM) from the current one; false where refused.
bool ResetPeakResident() {
  std::ofstream clear("/proc/self/clear_refs");
  clear << "5";
  clear.flush();
  return clear.good() && StatusBytes("VmHWM") > 0;
}

}  // namespace

// Eigen's SparseMatrix has no move operations (std::move of one copies it): moving a Dataset
// must hand its arrays over, not copy them, and leave the source empty.
TEST(DataMemory, MovingADatasetHandsOverItsArrays) {
  Dataset a = SmallSparse();
  const double* values = std::get<SparseRows>(a.x).valuePtr();
  const double* labels = a.y.data();
  Dataset b(std::move(a));
  ASSERT_TRUE(b.is_sparse());
  EXPECT_EQ(std::get<SparseRows>(b.x).valuePtr(), values);
  EXPECT_EQ(b.y.data(), labels);
  EXPECT_EQ(b.rows(), 300);
  EXPECT_EQ(a.rows(), 0);  // NOLINT(bugprone-use-after-move): the moved-from state is specified
  Dataset c = dpadmm::GenerateTwonorm(50, 3, 4);
  c = std::move(b);
  EXPECT_EQ(std::get<SparseRows>(c.x).valuePtr(), values);
  EXPECT_EQ(b.rows(), 0);  // NOLINT(bugprone-use-after-move)
  EXPECT_EQ(b.y.size(), 0);

  Dataset dense = dpadmm::GenerateTwonorm(50, 3, 4);
  const double* dense_values = std::get<DenseRows>(dense.x).data();
  std::vector<Dataset> grown;
  grown.push_back(std::move(c));
  grown.push_back(std::move(dense));
  grown.reserve(grown.capacity() * 4);  // reallocation moves (noexcept), never copies
  EXPECT_EQ(std::get<SparseRows>(grown[0].x).valuePtr(), values);
  EXPECT_EQ(std::get<DenseRows>(grown[1].x).data(), dense_values);
  static_assert(std::is_nothrow_move_constructible_v<Dataset>);
}

TEST(DataMemory, BracedConstructionTakesTheRows) {
  const Dataset all = SmallSparse();
  SparseRows rows = std::get<SparseRows>(all.x);
  const Dataset d{std::move(rows), all.y, "memory"};
  EXPECT_EQ(d.name, "memory");
  ExpectSameSparse(std::get<SparseRows>(d.x), std::get<SparseRows>(all.x));
  const Dataset dense{DenseRows::Ones(3, 2), Eigen::VectorXd::Ones(3)};
  EXPECT_FALSE(dense.is_sparse());
  EXPECT_EQ(dense.cols(), 2);
}

// The intercept column is written straight into the widened rows; the result is the one the
// triplet path gives, also for rows whose columns are out of order.
TEST(DataMemory, InterceptColumnEqualsTheTripletPath) {
  Dataset d = SmallSparse();
  const SparseRows expected = TripletReference(std::get<SparseRows>(d.x), 0.25);
  dpadmm::AddBiasFeature(d, 0.25);
  ExpectSameSparse(std::get<SparseRows>(d.x), expected);

  Dataset shuffled = SmallSparse();
  auto& x = std::get<SparseRows>(shuffled.x);
  std::swap(x.innerIndexPtr()[0], x.innerIndexPtr()[1]);  // row 0's first two columns swapped
  std::swap(x.valuePtr()[0], x.valuePtr()[1]);
  const SparseRows expected_sorted = TripletReference(x, 1.0);
  dpadmm::AddBiasFeature(shuffled);
  ExpectSameSparse(std::get<SparseRows>(shuffled.x), expected_sorted);
  const auto& w = std::get<SparseRows>(shuffled.x);
  EXPECT_LT(w.innerIndexPtr()[0], w.innerIndexPtr()[1]);
}

// A data set wider than a solver takes is refused once loaded, naming the data, before any
// per-column array is allocated.
TEST(DataMemory, TooManyColumnsAreRefusedNamingTheData) {
  SparseRows x(4, dpadmm::LocalSolver::kMaxColumns + 1);
  x.insert(0, 0) = 1.0;
  x.insert(1, 0) = 2.0;
  x.insert(2, 0) = 1.0;
  x.insert(3, 0) = 3.0;
  x.makeCompressed();
  Eigen::VectorXd y(4);
  y << 1, -1, 1, -1;
  const Dataset train{x, y, "wide.libsvm"};
  dpadmm::RunSpec spec;
  spec.graph.nodes = 2;
  spec.iterations = 1;
  try {
    dpadmm::Experiment e(spec, train, train);
    FAIL() << "no error";
  } catch (const dpadmm::InputError& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.rfind("wide.libsvm: 53687091", 0), 0u) << what;
    EXPECT_NE(what.find(" columns"), std::string::npos) << what;
    EXPECT_NE(what.find("above the limit of 536870911"), std::string::npos) << what;
  }
}

// A generated set's rows made one subset at a time are the whole set's rows, bit for bit, and
// the built-in data's split (made as its two parts) is SplitTrainTest of the whole set.
TEST(DataMemory, GeneratedSubsetsAreTheWholeSetsRows) {
  const dpadmm::RowIds ids = {0, 3, 4, 17, 298, 299};
  const dpadmm::SparseHighDimOptions o = SmallSparseOptions();
  const Dataset sparse = dpadmm::GenerateSparseHighDim(o, 11);
  const Dataset sparse_part = dpadmm::GenerateSparseHighDim(o, 11, &ids);
  const Dataset expected = sparse.Subset(ids);
  ExpectSameSparse(std::get<SparseRows>(sparse_part.x), std::get<SparseRows>(expected.x));
  EXPECT_EQ(sparse_part.y, expected.y);
  EXPECT_EQ(sparse_part.name, expected.name);
  for (const auto& make : {&dpadmm::GenerateTwonorm, &dpadmm::GenerateRingnorm}) {
    const Dataset all = make(300, 5, 6, nullptr);
    const Dataset part = make(300, 5, 6, &ids);
    const Dataset want = all.Subset(ids);
    EXPECT_EQ(std::get<DenseRows>(part.x), std::get<DenseRows>(want.x));
    EXPECT_EQ(part.y, want.y);
    EXPECT_EQ(part.name, want.name);
  }
  const dpadmm::RowIds outside = {300};
  EXPECT_THROW(dpadmm::GenerateTwonorm(300, 5, 6, &outside), dpadmm::InputError);

  for (const auto source :
       {dpadmm::DataSource::kTwonorm, dpadmm::DataSource::kRingnorm, dpadmm::DataSource::kSparse}) {
    dpadmm::RunSpec spec;
    spec.data.source = source;
    spec.data.rows = 500;
    spec.data.dims = 30;
    spec.data.sparse_nnz_per_row = 5;
    spec.data.sparse_informative = 8;
    spec.compute_optimum = false;
    spec.iterations = 1;
    spec.graph.nodes = 2;
    dpadmm::Experiment e(spec);
    Dataset whole;
    if (source == dpadmm::DataSource::kSparse) {
      dpadmm::SparseHighDimOptions so;
      so.rows = 500;
      so.dims = 30;
      so.informative = 8;
      so.nnz_per_row = 5;
      so.flip_probability = spec.data.sparse_flip_probability;
      whole = dpadmm::GenerateSparseHighDim(so, spec.seed);
    } else if (source == dpadmm::DataSource::kTwonorm) {
      whole = dpadmm::GenerateTwonorm(500, spec.seed, 30);
    } else {
      whole = dpadmm::GenerateRingnorm(500, spec.seed, 30);
    }
    const dpadmm::TrainTest split =
        dpadmm::SplitTrainTest(whole, spec.data.test_fraction, spec.seed);
    // The split is the same (the rows themselves are prepared by the run: the golden traces
    // check their bits).
    EXPECT_EQ(e.test().rows(), split.test.rows());
    EXPECT_EQ(e.train().rows(), split.train.rows());
    EXPECT_EQ(e.test().y, split.test.y);
    EXPECT_EQ(e.train().y, split.train.y);
  }
}

// SplitByPartition gives the slices Subset gives, bit for bit, and leaves its input empty: dense
// rows split in place (a partition covering every row once, uneven parts, the identity, one
// part), and the copying path (sparse rows; a partition that leaves rows out or repeats one).
TEST(DataMemory, SplitByPartitionGivesTheSubsets) {
  const Dataset dense = dpadmm::GenerateTwonorm(131, 6, 7);
  const Dataset sparse = dpadmm::GenerateSparseHighDim(SmallSparseOptions(), 5);
  std::vector<std::pair<const Dataset*, dpadmm::Partition>> cases;
  for (const Dataset* d : {&dense, &sparse}) {
    cases.emplace_back(d, dpadmm::PartitionDirichlet(d->rows(), 5, 0.5, 9));
    cases.emplace_back(d, dpadmm::PartitionEven(d->rows(), 3, 4));
    cases.emplace_back(d, dpadmm::PartitionEven(d->rows(), 1, 4));
    dpadmm::Partition identity(2);
    for (std::int64_t r = 0; r < d->rows(); ++r) identity[r < 50 ? 0 : 1].push_back(r);
    cases.emplace_back(d, identity);
    dpadmm::Partition partial = {{4, 2, 9}, {0, 1, 2}};  // rows left out, row 2 twice
    cases.emplace_back(d, partial);
  }
  for (const auto& [d, partition] : cases) {
    Dataset consumed = *d;
    consumed.name = "set";
    const std::vector<Dataset> slices = dpadmm::SplitByPartition(std::move(consumed), partition);
    // NOLINTNEXTLINE(bugprone-use-after-move): the split leaves it empty
    EXPECT_EQ(consumed.rows(), 0);
    EXPECT_EQ(consumed.y.size(), 0);
    ASSERT_EQ(slices.size(), partition.size());
    for (std::size_t i = 0; i < partition.size(); ++i) {
      const Dataset want = d->Subset(partition[i]);
      EXPECT_EQ(slices[i].name, "set");
      ASSERT_EQ(slices[i].y, want.y) << "part " << i;
      ASSERT_EQ(slices[i].is_sparse(), want.is_sparse());
      if (want.is_sparse()) {
        ExpectSameSparse(std::get<SparseRows>(slices[i].x), std::get<SparseRows>(want.x));
      } else {
        ASSERT_EQ(std::get<DenseRows>(slices[i].x), std::get<DenseRows>(want.x)) << "part " << i;
      }
    }
  }
  Dataset out_of_range = dense;
  EXPECT_THROW((void)dpadmm::SplitByPartition(std::move(out_of_range), {{0, 131}}),
               std::out_of_range);
}

// Sparse rows have 32-bit indices: more stored entries or columns than 2^31 - 1 are refused
// before anything is allocated, naming what was asked for.
TEST(DataMemory, SparseRowsAboveTheIndexLimitAreRefused) {
  EXPECT_NO_THROW(dpadmm::CheckSparseSize(dpadmm::kMaxSparseIndex, dpadmm::kMaxSparseIndex, "x"));
  try {
    dpadmm::CheckSparseSize(dpadmm::kMaxSparseIndex + 1, 10, "big.libsvm");
    ADD_FAILURE() << "no error";
  } catch (const dpadmm::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("big.libsvm: 2147483648 stored entries, above the limit"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(dpadmm::CheckSparseSize(1, dpadmm::kMaxSparseIndex + 1, "x"), dpadmm::InputError);
  dpadmm::SparseHighDimOptions o = SmallSparseOptions();
  o.rows = 1000000;
  o.dims = 3000;
  o.nnz_per_row = 3000;  // 3e9 entries
  EXPECT_THROW((void)dpadmm::GenerateSparseHighDim(o, 1), dpadmm::InputError);
  o = SmallSparseOptions();
  o.dims = dpadmm::kMaxSparseIndex + 1;
  EXPECT_THROW((void)dpadmm::GenerateSparseHighDim(o, 1), dpadmm::InputError);
}

// SplitByPartition's dense path holds at most one slice beside the whole set: the heap it takes
// while splitting 3.2 MB into four parts stays below a third of the set (one part is a quarter,
// plus the order of the rows), where the copying path takes the whole set again.
TEST(DataMemory, SplitByPartitionHoldsOneSliceBesideTheSet) {
#if !DPADMM_TEST_COUNT_ALLOCATIONS
  GTEST_SKIP() << "allocations are only counted on glibc without sanitizers";
#endif
  const Dataset dense = dpadmm::GenerateTwonorm(4000, 3, 100);
  const auto bytes = static_cast<double>(dense.rows() * dense.cols()) * sizeof(double);
  const dpadmm::Partition even = dpadmm::PartitionEven(dense.rows(), 4, 5);
  Dataset consumed = dense;
  std::vector<Dataset> slices;
  const std::int64_t in_place = dpadmm::test::PeakBytesDuring(
      [&] { slices = dpadmm::SplitByPartition(std::move(consumed), even); });
  EXPECT_GT(in_place, 0.25 * bytes);
  EXPECT_LT(in_place, 0.33 * bytes);
  EXPECT_EQ(std::get<DenseRows>(slices[3].x), std::get<DenseRows>(dense.Subset(even[3]).x));
  // A row held twice takes the copying path.
  dpadmm::Partition twice = even;
  twice[0].push_back(twice[1].front());
  Dataset copied = dense;
  const std::int64_t copying = dpadmm::test::PeakBytesDuring(
      [&] { slices = dpadmm::SplitByPartition(std::move(copied), twice); });
  EXPECT_GT(copying, 0.99 * bytes);
}

// SplitByPartition's sparse path keeps about one copy of the set resident: it gives the pages of
// the consumed rows back behind its pass, while the slices' pages become resident as they are
// written. Splitting 29 MB of CSR rows into four parts raises the peak resident set by less
// than a quarter of the set (measured: 0.13x; the window of 1 MiB, 12 bytes per row of
// bookkeeping, the slices' row offsets and labels), where the copying path raises it by the whole
// set (1.36x).
TEST(DataMemory, SparseSplitKeepsAboutOneCopyResident) {
#if !DPADMM_TEST_COUNT_ALLOCATIONS || !defined(__linux__)
  GTEST_SKIP() << "resident memory is only measured on Linux with glibc, without sanitizers";
#endif
  dpadmm::SparseHighDimOptions o = SmallSparseOptions();
  o.rows = 60000;
  o.dims = 5000;
  o.nnz_per_row = 40;
  const Dataset sparse = dpadmm::GenerateSparseHighDim(o, 3);
  const auto bytes = 12.0 * static_cast<double>(sparse.nonzeros());
  const dpadmm::Partition even = dpadmm::PartitionEven(sparse.rows(), 4, 5);
  const auto growth = [&](const dpadmm::Partition& partition) {
    std::vector<Dataset> slices;
    Dataset consumed = sparse;
#if defined(__GLIBC__)
    // Free pages the allocator still holds resident (e.g. the previous call's slices, freed into
    // the heap once glibc's mmap threshold has grown) go back to the system first: otherwise the
    // copying path can reuse them without raising the resident set, and its growth reads low.
    malloc_trim(0);
#endif
    const std::int64_t before = StatusBytes("VmRSS");
    if (!ResetPeakResident()) return -1.0;
    slices = dpadmm::SplitByPartition(std::move(consumed), partition);
    const auto peak = static_cast<double>(StatusBytes("VmHWM") - before);
    ExpectSameSparse(std::get<SparseRows>(slices[2].x),
                     std::get<SparseRows>(sparse.Subset(partition[2]).x));
    return peak;
  };
  const double streamed = growth(even);
  if (streamed < 0.0) GTEST_SKIP() << "/proc/self/clear_refs refused";
  EXPECT_LT(streamed, 0.25 * bytes);
  // A row held twice takes the copying path.
  dpadmm::Partition twice = even;
  twice[0].push_back(twice[1].front());
  EXPECT_GT(growth(twice), 0.9 * bytes);
}

// SplitByPartition's sparse path gives the heap's free pages back to the system (glibc keeps
// freed blocks below its mmap threshold resident): 4 MiB freed in the middle of the heap before
// a small split are no longer resident after it. Fails without the trim (the pages stay).
TEST(DataMemory, SparseSplitGivesFreedHeapPagesBack) {
#if !DPADMM_TEST_COUNT_ALLOCATIONS || !defined(__linux__) || !defined(__GLIBC__)
  GTEST_SKIP() << "resident memory is only measured on Linux with glibc, without sanitizers";
#endif
  dpadmm::SparseHighDimOptions o = SmallSparseOptions();
  o.rows = 2000;
  Dataset small = dpadmm::GenerateSparseHighDim(o, 4);
  const dpadmm::Partition even = dpadmm::PartitionEven(small.rows(), 4, 5);
  constexpr std::size_t kBlock = 32 << 10;  // below glibc's smallest mmap threshold (128 KiB)
  constexpr int kBlocks = 128;              // 4 MiB
  // Each block is followed by a small fence that stays: the freed blocks are holes in the
  // middle of the heap (not its top, which free() trims itself), resident until trimmed.
  std::vector<std::vector<char>> blocks;
  std::vector<std::vector<char>> fences;
  for (int k = 0; k < kBlocks; ++k) {
    blocks.emplace_back(kBlock, static_cast<char>(k + 1));
    fences.emplace_back(1024, static_cast<char>(k + 1));
  }
  const std::int64_t held = StatusBytes("VmRSS");
  blocks = {};
  const std::int64_t freed = StatusBytes("VmRSS");
  const std::vector<Dataset> slices = dpadmm::SplitByPartition(std::move(small), even);
  const std::int64_t after = StatusBytes("VmRSS");
  ASSERT_EQ(slices.size(), 4U);
  EXPECT_EQ(fences.back()[0], static_cast<char>(kBlocks));
  constexpr double kFreed = static_cast<double>(kBlock) * kBlocks;
  EXPECT_GT(static_cast<double>(freed - after), 0.75 * kFreed)
      << "held " << held << " freed " << freed << " after the split " << after;
}
