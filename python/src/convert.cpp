// SPDX-License-Identifier: Apache-2.0
#include "convert.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "dpadmm/core/error.h"
#include "dpadmm/run/spec_json.h"

namespace dpadmm::python {
namespace {

using DenseArray = py::array_t<double, py::array::c_style | py::array::forcecast>;

// A numpy array over `values` (moved to the heap, freed with the array): no copy.
template <class T>
py::array_t<T> Own(std::vector<T>&& values, std::vector<py::ssize_t> shape) {
  auto* owned = new std::vector<T>(std::move(values));
  const py::capsule release(owned, [](void* p) { delete static_cast<std::vector<T>*>(p); });
  return py::array_t<T>(std::move(shape), owned->data(), release);
}

// Index arrays of a CSR matrix as int64 values, whatever their integer type.
std::vector<std::int64_t> Indices(const py::handle& array, const std::string& what) {
  const auto a =
      py::array_t<std::int64_t, py::array::c_style | py::array::forcecast>::ensure(array);
  if (!a || a.ndim() != 1) throw InputError(what + " must be a 1-D integer array");
  return {a.data(), a.data() + a.size()};
}

SparseRows CsrRows(const py::handle& x, const std::string& what) {
  const auto shape = x.attr("shape").cast<std::pair<std::int64_t, std::int64_t>>();
  const auto data = DenseArray::ensure(x.attr("data"));
  if (!data || data.ndim() != 1) throw InputError(what + ".data must be a 1-D float array");
  const std::vector<std::int64_t> indptr = Indices(x.attr("indptr"), what + ".indptr");
  const std::vector<std::int64_t> indices = Indices(x.attr("indices"), what + ".indices");
  const std::int64_t rows = shape.first, cols = shape.second;
  const std::int64_t nnz = static_cast<std::int64_t>(indices.size());
  CheckSparseSize(nnz, cols, what);
  if (static_cast<std::int64_t>(indptr.size()) != rows + 1 || indptr.front() != 0 ||
      indptr.back() != nnz || data.size() != nnz) {
    throw InputError(what + ": inconsistent CSR arrays (indptr, indices and data do not match)");
  }
  SparseRows out(rows, cols);
  out.resizeNonZeros(nnz);
  for (std::int64_t r = 0; r <= rows; ++r) {
    if (r > 0 && indptr[r] < indptr[r - 1]) throw InputError(what + ": indptr is not increasing");
    out.outerIndexPtr()[r] = static_cast<SparseIndex>(indptr[r]);
  }
  for (std::int64_t k = 0; k < nnz; ++k) {
    if (indices[k] < 0 || indices[k] >= cols) {
      throw InputError(what + ": column index " + std::to_string(indices[k]) + " outside [0, " +
                       std::to_string(cols) + ")");
    }
    out.innerIndexPtr()[k] = static_cast<SparseIndex>(indices[k]);
  }
  if (nnz > 0) std::memcpy(out.valuePtr(), data.data(), sizeof(double) * nnz);
  if (!ColumnsIncreasing(out)) {
    throw InputError(what +
                     ": the column indices of a row must be sorted and unique "
                     "(call sort_indices() and sum_duplicates())");
  }
  return out;
}

template <class T>
py::object EncodeTwo(const py::array_t<T, py::array::c_style>& y) {
  const T* v = y.data();
  const py::ssize_t n = y.size();
  if (n == 0) return py::none();
  T lo = v[0], hi = v[0];
  for (py::ssize_t i = 1; i < n; ++i) {
    if (v[i] == lo || v[i] == hi) continue;
    if (lo != hi) return py::none();  // a third value
    (v[i] < lo ? lo : hi) = v[i];
  }
  if (lo == hi) return py::none();
  py::array classes(y.dtype(), std::vector<py::ssize_t>{2});  // np.unique's: y's own dtype
  static_cast<T*>(classes.mutable_data())[0] = lo;
  static_cast<T*>(classes.mutable_data())[1] = hi;
  py::array_t<double> labels(n);
  double* out = labels.mutable_data();
  for (py::ssize_t i = 0; i < n; ++i) out[i] = v[i] == hi ? 1.0 : -1.0;
  return py::make_tuple(classes, labels);
}

template <class T, class... More>
py::object EncodeTwoOf(const py::handle& y, char kind, py::ssize_t size) {
  using Array = py::array_t<T, py::array::c_style>;
  const bool kind_matches = std::is_same_v<T, bool> ? kind == 'b'
                            : std::is_signed_v<T>   ? kind == 'i'
                                                    : kind == 'u';
  if (kind_matches && size == static_cast<py::ssize_t>(sizeof(T)) && Array::check_(y)) {
    const py::array& a = py::reinterpret_borrow<py::array>(y);
    return a.ndim() == 1 ? EncodeTwo<T>(py::reinterpret_borrow<Array>(y)) : py::none();
  }
  if constexpr (sizeof...(More) > 0) {
    return EncodeTwoOf<More...>(y, kind, size);
  } else {
    return py::none();
  }
}

}  // namespace

py::object EncodeTwoLabels(const py::handle& y) {
  if (!py::isinstance<py::array>(y)) return py::none();
  const py::dtype type = py::reinterpret_borrow<py::array>(y).dtype();
  // Only the one type of y's kind and size is asked whether it is y's (native, C-ordered).
  return EncodeTwoOf<bool, std::int8_t, std::uint8_t, std::int16_t, std::uint16_t, std::int32_t,
                     std::uint32_t, std::int64_t, std::uint64_t>(y, type.kind(), type.itemsize());
}

py::object PlainTwoLabels(const py::handle& x, const py::handle& y) {
  // numpy.ndarray itself (pybind11's handle on numpy's C API; a subclass is not plain).
  const PyTypeObject* const ndarray = py::detail::npy_api::get().PyArray_Type_;
  using Rows = py::array_t<double, py::array::c_style>;
  if (Py_TYPE(x.ptr()) != ndarray || Py_TYPE(y.ptr()) != ndarray || !Rows::check_(x)) {
    return py::none();
  }
  const auto& rows = py::reinterpret_borrow<py::array>(x);
  const auto& labels = py::reinterpret_borrow<py::array>(y);
  if (rows.ndim() != 2 || rows.shape(0) < 1 || rows.shape(1) < 1 || labels.ndim() != 1 ||
      labels.shape(0) != rows.shape(0)) {
    return py::none();
  }
  return EncodeTwoLabels(y);
}

bool IsCsr(const py::handle& x) {
  return !py::isinstance<py::array>(x) && py::hasattr(x, "indptr") && py::hasattr(x, "indices") &&
         py::hasattr(x, "data") && py::hasattr(x, "shape");
}

std::variant<DenseRows, SparseRows> ToRows(const py::handle& x, const std::string& what) {
  if (IsCsr(x)) return CsrRows(x, what);
  const auto a = DenseArray::ensure(x);
  if (!a || a.ndim() != 2) throw InputError(what + " must be a 2-D array of numbers");
  DenseRows rows(a.shape(0), a.shape(1));
  if (a.size() > 0) std::memcpy(rows.data(), a.data(), sizeof(double) * a.size());
  return rows;
}

Dataset ToDataset(const py::handle& x, const py::handle& y, const std::string& what) {
  const auto labels = DenseArray::ensure(y);
  if (!labels || labels.ndim() != 1) throw InputError("y must be a 1-D array");
  Dataset d;
  d.x = ToRows(x, what);
  if (labels.size() != d.rows()) {
    throw InputError("y has " + std::to_string(labels.size()) + " labels for " +
                     std::to_string(d.rows()) + " rows of " + what);
  }
  d.y = Eigen::Map<const Eigen::VectorXd>(labels.data(), labels.size());
  d.name = what;
  d.Validate();
  return d;
}

HistoryRecorder::HistoryRecorder(Family family, std::int64_t expected_rounds)
    : expected_rounds_(static_cast<std::size_t>(std::max<std::int64_t>(expected_rounds, 0))) {
  for (const TraceColumn& c : TraceColumns()) {
    if (!c.In(family)) continue;
    Column& column = columns_.emplace_back(Column{&c, {}, {}, -1});
    if (c.integer != nullptr) column.integers.reserve(expected_rounds_);
    if (c.scalar != nullptr) column.values.reserve(expected_rounds_);
  }
}

void HistoryRecorder::Add(const RoundMetrics& m) {
  ++rounds_;
  for (Column& c : columns_) {
    if (c.trace->integer != nullptr) {
      c.integers.push_back(m.*(c.trace->integer));
    } else if (c.trace->scalar != nullptr) {
      c.values.push_back(m.*(c.trace->scalar));
    } else {
      const std::vector<double>& v = m.*(c.trace->per_node);
      if (c.width < 0) {
        c.width = static_cast<py::ssize_t>(v.size());
        c.values.reserve(v.size() * expected_rounds_);
      }
      for (py::ssize_t j = 0; j < c.width; ++j) {
        c.values.push_back(j < static_cast<py::ssize_t>(v.size()) ? v[j] : RoundMetrics::kNaN);
      }
    }
  }
}

py::dict HistoryRecorder::ToDict() {
  py::dict out;
  for (Column& c : columns_) {
    if (c.trace->integer != nullptr) {
      out[c.trace->name] = Own(std::move(c.integers), {rounds_});
    } else if (c.trace->scalar != nullptr) {
      out[c.trace->name] = Own(std::move(c.values), {rounds_});
    } else {
      out[c.trace->name] = Own(std::move(c.values), {rounds_, std::max<py::ssize_t>(c.width, 0)});
    }
  }
  columns_.clear();
  rounds_ = 0;
  return out;
}

py::dict RoundToDict(const RoundMetrics& m, Family family) {
  py::dict out;
  for (const TraceColumn& c : TraceColumns()) {
    if (!c.In(family)) continue;
    if (c.integer != nullptr) {
      out[c.name] = m.*c.integer;
    } else if (c.scalar != nullptr) {
      out[c.name] = m.*c.scalar;
    }
  }
  return out;
}

}  // namespace dpadmm::python
