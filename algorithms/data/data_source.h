// The data sources of a DataSpec, shared by the consensus runs (run.cpp) and ADMM sharing
// (sharing.cpp): generated sets, or files through the loaders, with a seeded train/test split
// when no test file is given.
#pragma once

#include <cstdint>
#include <string>

#include "dpadmm/data/generators.h"
#include "dpadmm/data/preprocessing.h"
#include "dpadmm/experiment/run_spec.h"

namespace dpadmm {

// `sparse` gives the sparse generator's settings other than rows and dims (taken from `d`, with
// informative and nnz_per_row capped at dims). `field` names the spec's source field in errors
// ("data.source"). Throws InputError for an unknown source or mismatched train/test columns.
TrainTest LoadDataSource(const DataSpec& d, std::uint64_t seed, SparseHighDimOptions sparse,
                         const std::string& field);

}  // namespace dpadmm
