// SPDX-License-Identifier: Apache-2.0
#include "data/data_source.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <utility>

#include "data/memory_release.h"
#include "dpadmm/core/error.h"
#include "dpadmm/data/generators.h"
#include "dpadmm/data/loaders.h"
#include "dpadmm/run/choices.h"

namespace dpadmm {
namespace {

// True if the first non-blank line of `path` has a field that is not a number (a header).
bool FirstLineLooksLikeHeader(const std::string& path, char delimiter) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    std::size_t start = 0;
    while (start <= line.size()) {
      std::size_t end =
          delimiter == ' ' ? line.find_first_of(" \t", start) : line.find(delimiter, start);
      if (end == std::string::npos) end = line.size();
      std::string field = line.substr(start, end - start);
      field.erase(0, field.find_first_not_of(" \t\r\""));
      field.erase(field.find_last_not_of(" \t\r\"") + 1);
      if (!field.empty()) {
        char* stop = nullptr;
        std::strtod(field.c_str(), &stop);
        if (stop == field.c_str() || *stop != '\0') return true;
      }
      start = end + 1;
    }
    return false;
  }
  return false;
}

Dataset LoadCsvWithHint(const std::string& path, const DataSpec& d) {
  try {
    return LoadCsv(path, d.label_column, d.delimiter, d.has_header);
  } catch (const InputError& e) {
    if (d.has_header || !FirstLineLooksLikeHeader(path, d.delimiter)) throw;
    throw InputError(std::string(e.what()) +
                     " (the first line looks like a header: use --header, or \"has_header\": "
                     "true in the config's data)");
  }
}

}  // namespace

TrainTest LoadDataSource(const DataSpec& d, std::uint64_t seed) {
  if (d.source == DataSource::kAdult) {
    AdultData a = LoadAdult(d.train_path, d.test_path);
    internal::GiveBackFreeHeap();  // the files' text and records, freed in the heap's middle
    return {std::move(a.train), std::move(a.test)};
  }
  if (IsGenerated(d.source)) {
    // The split's two parts are generated directly (row r is the same row either way), so the
    // whole set and its two parts are never held at once.
    const auto generate = [&](const RowIds* ids) {
      switch (d.source) {
        case DataSource::kTwonorm: return GenerateTwonorm(d.rows, seed, d.dims, ids);
        case DataSource::kRingnorm: return GenerateRingnorm(d.rows, seed, d.dims, ids);
        default: {
          SparseHighDimOptions sparse;
          sparse.rows = d.rows;
          sparse.dims = d.dims;
          sparse.informative = std::min<std::int64_t>(d.sparse_informative, d.dims);
          sparse.nnz_per_row = std::min<std::int64_t>(d.sparse_nnz_per_row, d.dims);
          sparse.flip_probability = d.sparse_flip_probability;
          return GenerateSparseHighDim(sparse, seed, ids);
        }
      }
    };
    const RowIds none;
    generate(&none);  // the generator's own checks first (rows, dims, ...), as for the whole set
    const SplitRows split = SplitRowIds(d.rows, d.test_fraction, seed);
    Dataset test = generate(&split.test);
    return {generate(&split.train), std::move(test)};
  }
  Dataset all;
  Dataset test;
  bool has_test = false;
  switch (d.source) {
    case DataSource::kTwonorm:
    case DataSource::kRingnorm:
    case DataSource::kSparse: break;  // handled above
    case DataSource::kLibsvm:
      all = LoadLibsvm(d.train_path, d.num_features);
      if (!d.test_path.empty()) {
        test = LoadLibsvm(d.test_path, d.num_features > 0 ? d.num_features : 0);
        has_test = true;
      }
      break;
    case DataSource::kCsv:
      all = LoadCsvWithHint(d.train_path, d);
      if (!d.test_path.empty()) {
        test = LoadCsvWithHint(d.test_path, d);
        has_test = true;
      }
      break;
    case DataSource::kAsc:
      all = LoadAsc(d.train_path, d.train_labels_path);
      if (!d.test_path.empty()) {
        test = LoadAsc(d.test_path, d.test_labels_path);
        has_test = true;
      }
      break;
    case DataSource::kAdult: break;  // handled above
  }
  if (!has_test) return SplitTrainTest(all, d.test_fraction, seed);
  // A test file may have fewer columns than the training file (LIBSVM); never more.
  if (test.cols() > all.cols()) {
    if (d.source != DataSource::kLibsvm) {
      throw InputError(d.test_path + ": test data has " + std::to_string(test.cols()) +
                       " columns but training data has " + std::to_string(all.cols()));
    }
    all.Resize(test.cols());
  }
  test.Resize(all.cols());
  return {std::move(all), std::move(test)};
}

}  // namespace dpadmm
