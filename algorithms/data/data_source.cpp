#include "data/data_source.h"

#include <algorithm>
#include <utility>

#include "dpadmm/core/error.h"
#include "dpadmm/data/loaders.h"

namespace dpadmm {

TrainTest LoadDataSource(const DataSpec& d, std::uint64_t seed, SparseHighDimOptions sparse,
                         const std::string& field) {
  if (d.source == "adult") {
    AdultData a = LoadAdult(d.train_path, d.test_path);
    return {std::move(a.train), std::move(a.test)};
  }
  Dataset all;
  Dataset test;
  bool has_test = false;
  if (d.source == "twonorm") {
    all = GenerateTwonorm(d.rows, seed, d.dims);
  } else if (d.source == "ringnorm") {
    all = GenerateRingnorm(d.rows, seed, d.dims);
  } else if (d.source == "sparse") {
    sparse.rows = d.rows;
    sparse.dims = d.dims;
    sparse.informative = std::min<std::int64_t>(sparse.informative, d.dims);
    sparse.nnz_per_row = std::min<std::int64_t>(sparse.nnz_per_row, d.dims);
    all = GenerateSparseHighDim(sparse, seed);
  } else if (d.source == "libsvm") {
    all = LoadLibsvm(d.train_path, d.num_features);
    if (!d.test_path.empty()) {
      test = LoadLibsvm(d.test_path, d.num_features > 0 ? d.num_features : 0);
      has_test = true;
    }
  } else if (d.source == "csv") {
    all = LoadCsv(d.train_path, d.label_column, d.delimiter, d.has_header);
    if (!d.test_path.empty()) {
      test = LoadCsv(d.test_path, d.label_column, d.delimiter, d.has_header);
      has_test = true;
    }
  } else if (d.source == "asc") {
    all = LoadAsc(d.train_path, d.train_labels_path);
    if (!d.test_path.empty()) {
      test = LoadAsc(d.test_path, d.test_labels_path);
      has_test = true;
    }
  } else {
    throw InputError(field + ": unknown source '" + d.source + "'");
  }
  if (!has_test) return SplitTrainTest(all, d.test_fraction, seed);
  // A test file may have fewer columns than the training file (LIBSVM); never more.
  if (test.cols() > all.cols()) {
    if (d.source != "libsvm") {
      throw InputError(d.test_path + ": test data has " + std::to_string(test.cols()) +
                       " columns but training data has " + std::to_string(all.cols()));
    }
    all.Resize(test.cols());
  }
  test.Resize(all.cols());
  return {std::move(all), std::move(test)};
}

}  // namespace dpadmm
