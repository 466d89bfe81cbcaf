// SPDX-License-Identifier: Apache-2.0
// Conversions between Python objects and the library's types, for bindings.cpp.
//
// Rows: a C-contiguous float64 numpy array is read in place (pybind11's array_t without
// forcecast passes it through) and copied once into the Dataset's own row storage (a Dataset
// owns its rows: the run scales them in place); any other array is converted once by numpy
// first. A scipy.sparse CSR matrix (float64 data; int32 or int64 indices and offsets) is copied
// once into the library's CSR rows (32-bit indices; larger ones are refused naming the limit).
// Every function here needs the GIL.
#pragma once
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <cstdint>
#include <string>
#include <variant>
#include <vector>
#include "dpadmm/data/dataset.h"
#include "dpadmm/run/run.h"
#include "dpadmm/run/spec_json.h"

namespace dpadmm::python {

namespace py = pybind11;

// True if `x` looks like a scipy.sparse CSR matrix (has data, indices, indptr and shape).
bool IsCsr(const py::handle& x);

// The rows of `x` (a 2-D array or a CSR matrix); `what` names the argument in messages.
std::variant<DenseRows, SparseRows> ToRows(const py::handle& x, const std::string& what);

// A Dataset from rows `x` and labels `y` (each -1.0 or +1.0, one per row).
Dataset ToDataset(const py::handle& x, const py::handle& y, const std::string& what);

// The per-round metrics of a run, recorded column by column as the rounds come (the trace
// columns of the run's family, TraceColumns) and handed to numpy without another copy: a dict
// of arrays, one per column, scalars as float64 (round as int64), node_privacy and node_noise
// as (rounds, nodes) arrays (a round with fewer nodes than the first is padded with NaN).
class HistoryRecorder {
 public:
  // expected_rounds: the rounds the run will report at most (storage is reserved for them:
  // growing ~20 columns round by round cost more than the recording itself).
  HistoryRecorder(Family family, std::int64_t expected_rounds);
  void Add(const RoundMetrics& m);  // no GIL needed
  py::dict ToDict();                // needs the GIL; leaves the recorder empty

 private:
  struct Column {
    const TraceColumn* trace;
    std::vector<double> values;          // scalar and per-node columns (row-major)
    std::vector<std::int64_t> integers;  // round
    py::ssize_t width = -1;              // per-node columns: nodes of the first round
  };
  std::vector<Column> columns_;
  py::ssize_t rounds_ = 0;
  std::size_t expected_rounds_;
};

// Labels of exactly two values, encoded in one pass: (classes, labels) with classes the two
// values in y's dtype, smaller first, and labels[i] = +1.0 where y[i] is the larger value,
// else -1.0 (what np.unique and np.where give), for a 1-D C-contiguous numpy array of a native
// boolean or integer type; None for anything else (another type or layout, one value, three or
// more: the caller's general path decides).
py::object EncodeTwoLabels(const py::handle& y);

// A fit's plain input checked and its labels encoded in one call: EncodeTwoLabels(y) when x is
// a numpy.ndarray (the class itself) of native float64, C-ordered, with at least one row and
// one column, and y a numpy.ndarray of one label per row; None otherwise (the estimators'
// general checks then decide, with scikit-learn's messages). The rows' values are checked by
// the library as it copies them (Dataset::Validate).
py::object PlainTwoLabels(const py::handle& x, const py::handle& y);

// One round's scalar metrics of `family` as a dict (the progress callback's argument).
py::dict RoundToDict(const RoundMetrics& m, Family family);

}  // namespace dpadmm::python
