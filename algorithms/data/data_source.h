// SPDX-License-Identifier: Apache-2.0
// The data sources of a DataSpec, shared by both families (run/experiment.cpp):
// generated sets, or files through the loaders, with a seeded train/test split when no test
// file is given.
#pragma once

#include <cstdint>
#include <string>

#include "dpadmm/data/generators.h"
#include "dpadmm/data/preprocessing.h"
#include "dpadmm/run/run_spec.h"

namespace dpadmm {

// The sparse generator takes rows, dims, sparse_informative, sparse_nnz_per_row and
// sparse_flip_probability from `d` (informative and nnz_per_row capped at dims). Throws
// InputError for unreadable files (naming file and line; a CSV whose first line is a header
// but has_header is false gets a hint to set it) or mismatched train/test columns.
TrainTest LoadDataSource(const DataSpec& d, std::uint64_t seed);

}  // namespace dpadmm
