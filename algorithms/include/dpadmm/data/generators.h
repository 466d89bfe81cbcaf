// SPDX-License-Identifier: Apache-2.0
// Built-in data, generated from a seed (no files needed). Bitwise reproducible across platforms.
#pragma once

#include <cstdint>
#include <vector>

#include "dpadmm/data/dataset.h"

namespace dpadmm {

// Every generator can make a subset of its rows: with `ids` (each in [0, rows), InputError
// otherwise), only those rows, in that order, each bit for bit the row the whole set has there
// (row r draws from its own random stream). A split set is made as its two parts, without the
// whole. Null: all rows.
using RowIds = std::vector<std::int64_t>;

// Breiman's twonorm: 20 dims, class +1 ~ N(a 1, I), class -1 ~ N(-a 1, I), a = 2 / sqrt(20)
// (a = 2 / sqrt(dims) for other dims, which keeps the distance between the means at 4).
// Labels alternate-free: each row's class is drawn with probability 1/2. Dense.
Dataset GenerateTwonorm(std::int64_t rows, std::uint64_t seed, std::int64_t dims = 20,
                        const RowIds* ids = nullptr);

// Breiman's ringnorm: 20 dims, class +1 ~ N(0, 4 I), class -1 ~ N(a 1, I), a = 1 / sqrt(20)
// (1 / sqrt(dims) for other dims). Dense.
// Both: row r depends only on (seed, r), so a longer set extends a shorter one with the same
// seed. rows and dims must be positive (else InputError).
Dataset GenerateRingnorm(std::int64_t rows, std::uint64_t seed, std::int64_t dims = 20,
                         const RowIds* ids = nullptr);

// High-dimensional sparse data: `dims` features of which the first `informative` carry signal.
// Each row has about `nnz_per_row` nonzeros at random columns, values N(0, 1); labels come from
// a fixed random hyperplane on the informative features plus label noise `flip_probability`.
// Sparse. Each row has exactly nnz_per_row distinct columns drawn uniformly; a row with no
// informative column gets a random label (before the flip). InputError unless rows, dims,
// informative and nnz_per_row are positive, informative and nnz_per_row <= dims, and
// 0 <= flip_probability <= 0.5.
struct SparseHighDimOptions {
  std::int64_t rows = 6000;
  std::int64_t dims = 5000;
  std::int64_t informative = 50;
  std::int64_t nnz_per_row = 100;
  double flip_probability = 0.05;
};
Dataset GenerateSparseHighDim(const SparseHighDimOptions& options, std::uint64_t seed,
                              const RowIds* ids = nullptr);

}  // namespace dpadmm
