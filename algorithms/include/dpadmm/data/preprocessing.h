// SPDX-License-Identifier: Apache-2.0
// Row normalisation, train/test splits and partitions of the training rows over nodes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "dpadmm/data/dataset.h"

namespace dpadmm {

// Every privacy theorem of the papers assumes ||x||_2 <= 1. Scales train and test by the same
// factor 1 / (largest row norm over both) and returns that factor (1 if all rows are zero).
// If rounding leaves a norm a few ulps above 1, the factor is shrunk by ulps until every row
// norm is <= 1.
double NormalizeRows(Dataset& train, Dataset& test);

struct TrainTest {
  Dataset train;
  Dataset test;
};
// Seeded random split: round(test_fraction * rows) rows go to test, the rest to train, each
// keeping the original relative order. 0 < test_fraction < 1.
TrainTest SplitTrainTest(const Dataset& all, double test_fraction, std::uint64_t seed);

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

// Appends a column holding `value` to every row (an intercept feature; sparse rows store it).
void AddBiasFeature(Dataset& data, double value = 1.0);

}  // namespace dpadmm
