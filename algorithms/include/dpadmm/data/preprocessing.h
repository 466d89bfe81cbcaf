// SPDX-License-Identifier: Apache-2.0
// Row normalisation, train/test splits and partitions of the training rows over nodes.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "dpadmm/data/dataset.h"

namespace dpadmm {

// Every privacy theorem of the papers assumes ||x||_2 <= 1. Two ways to get there:
//
// * Data-independent maps (private mode): each node prepares its own rows alone, from public
//   information only, so changing one record changes no other prepared record:
//   ScaleByPublicBounds (per-feature, from public bounds) and ClipRows (per record).
// * GlobalMaxNormScale (non-private and simulation runs only): one factor computed from every
//   node's data, which no party of a deployment could compute.

// Scales train and test by the same factor 1 / (largest row norm over both) and returns that
// factor (1 if all rows are zero). If rounding leaves a norm a few ulps above 1, the factor is
// shrunk by ulps until every row norm is <= 1. Reads all the data: not for private runs.
// When the rows are held by several processes (MPI ranks), `max_over_holders` turns a local
// maximum into the maximum over all of them, so that every holder computes the same factor.
double GlobalMaxNormScale(Dataset& train, Dataset& test,
                          const std::function<double(double)>& max_over_holders = {});
// The former name of GlobalMaxNormScale.
inline double NormalizeRows(Dataset& train, Dataset& test) {
  return GlobalMaxNormScale(train, test);
}

// Clips every row on its own to the unit ball: x <- x / max(1, ||x||) (a row a few ulps above
// 1 after the division is shrunk by ulps), so ||x||_2 <= 1 holds exactly. Returns how many rows
// were changed. Throws InputError for NaN or Inf.
std::int64_t ClipRows(Dataset& data);

// The same per column block: the columns are split into consecutive blocks of the given sizes
// (summing to cols()) and each block of each row is clipped on its own, x_m <- x_m / max(1,
// ||x_m||). For vertically partitioned data, where party m holds block m of every record and
// can see nothing else (001 Assumption 2.3 bounds each block's rows). Returns how many blocks
// were changed. Throws InputError if the sizes do not sum to cols().
std::int64_t ClipRowBlocks(Dataset& data, const std::vector<std::int64_t>& block_sizes);

// Public bounds lo[j] < hi[j] of each feature j.
struct FeatureBounds {
  std::vector<double> lo, hi;
};
// The same [lo, hi] for each of `features` features.
FeatureBounds UniformBounds(std::int64_t features, double lo, double hi);
// Reads public bounds for `features` features from `path`: one "lo hi" line per feature in
// column order, or "index lo hi" lines (0-based index, any order, each feature at most once);
// the two forms cannot be mixed. Features not listed take `fallback` ([lo, hi]) when it is
// given, else it is an error. Blank lines and '#' comments are skipped. Errors name file and
// line.
FeatureBounds LoadFeatureBounds(const std::string& path, std::int64_t features,
                                const std::vector<double>& fallback);

// The per-feature map of public bounds (a data-independent function of each record):
// dense rows: x_j <- (2 x_j - lo_j - hi_j) / ((hi_j - lo_j) sqrt(dims)), which maps [lo_j, hi_j]
// to [-1, 1] / sqrt(dims); sparse rows keep their zeros: x_j <- x_j / (max(|lo_j|, |hi_j|)
// sqrt(dims)). A row within its bounds then has ||x|| <= 1 when dims is the final column count;
// values outside the bounds are left to ClipRows. Throws InputError if the bounds do not have
// one entry per column of `data`.
void ScaleByPublicBounds(Dataset& data, const FeatureBounds& bounds, std::int64_t dims);

struct TrainTest {
  Dataset train;
  Dataset test;
};
// Seeded random split: round(test_fraction * rows) rows go to test, the rest to train, each
// keeping the original relative order. 0 < test_fraction < 1.
TrainTest SplitTrainTest(const Dataset& all, double test_fraction, std::uint64_t seed);
// The row ids SplitTrainTest puts in each set (increasing), for a set of `rows` rows.
struct SplitRows {
  std::vector<std::int64_t> train;
  std::vector<std::int64_t> test;
};
SplitRows SplitRowIds(std::int64_t rows, double test_fraction, std::uint64_t seed);

// partition[i] = the training rows node i holds (sorted). Every row belongs to exactly one node
// and every node holds at least one row (else InputError).
using Partition = std::vector<std::vector<std::int64_t>>;

// Contiguous blocks of sizes differing by at most one, after a seeded shuffle.
Partition PartitionEven(std::int64_t rows, int nodes, std::uint64_t seed);
// Shares proportional to `proportions` (positive, any scale; one per node), after a seeded
// shuffle. Sizes are floor(share) with the remainder handed out by largest fraction.
Partition PartitionProportional(std::int64_t rows, const std::vector<double>& proportions,
                                std::uint64_t seed);
// Shares drawn from a symmetric Dirichlet(alpha), then as PartitionProportional; every node
// gets at least one row.
Partition PartitionDirichlet(std::int64_t rows, int nodes, double alpha, std::uint64_t seed);
// One node id (0-based) per line; line k = node of training row k. The file must have exactly
// `rows` lines with ids in [0, nodes) (a blank line is an error, since line k is row k; the last
// line may or may not end in a newline). Errors name the file and line.
Partition LoadPartition(const std::string& path, std::int64_t rows, int nodes);

// The inverse of splitting `data` by `partition` (slices[i] = data.Subset(partition[i])): the
// rows back in their original order, the same values bit for bit (sparse: the same stored
// entries, compressed). Lets a holder of the slices free the whole set and rebuild it only
// on demand. Throws InputError when the slices and the partition do not match or do not
// cover every row exactly once.
Dataset Unpartition(const std::vector<Dataset>& slices, const Partition& partition);

// slices[i] = data.Subset(partition[i]) for every part, the same bits, consuming `data` (left
// empty). When the partition covers every row exactly once:
// - dense rows are reordered in place into the parts' order and handed out block by block from
//   the end, `data`'s storage shrinking behind each block (the first part keeps it), so at most
//   one part is held beside the whole set;
// - sparse rows (compressed) are copied into the parts in one pass in storage order, and on
//   Linux the pages of `data`'s entries are given back to the system behind the pass, so the
//   resident memory stays near one copy of the set (the heap still holds two until the end).
// Otherwise the parts are copied and `data` is freed after them. Throws as Subset does.
std::vector<Dataset> SplitByPartition(Dataset&& data, const Partition& partition);

// Appends a column holding `value` to every row (an intercept feature; sparse rows store it).
void AddBiasFeature(Dataset& data, double value = 1.0);

}  // namespace dpadmm
