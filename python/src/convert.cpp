// SPDX-License-Identifier: Apache-2.0
#include "convert.h"

#include <cstdint>
#include <cstring>
#include <sstream>
#include <stdexcept>

#include "dpadmm/core/error.h"
#include "dpadmm/run/spec_json.h"

namespace dpadmm::python {
namespace {

using DenseArray = py::array_t<double, py::array::c_style | py::array::forcecast>;

// The scalar metrics by their trace names (VisitMetrics' table, spec_json.cpp).
struct ScalarColumn {
  const char* name;
  double RoundMetrics::*field;
};
constexpr ScalarColumn kScalarColumns[] = {
    {"seconds", &RoundMetrics::seconds},
    {"train_loss", &RoundMetrics::train_loss},
    {"objective", &RoundMetrics::objective},
    {"test_error", &RoundMetrics::test_error},
    {"consensus_gap", &RoundMetrics::consensus_gap},
    {"distance_to_optimum", &RoundMetrics::distance_to_optimum},
    {"privacy_loss", &RoundMetrics::privacy_loss},
    {"privacy_round", &RoundMetrics::privacy_round},
    {"tight_epsilon", &RoundMetrics::tight_epsilon},
    {"tight_delta", &RoundMetrics::tight_delta},
    {"test_loss", &RoundMetrics::test_loss},
    {"primal_residual", &RoundMetrics::primal_residual},
    {"max_x_norm", &RoundMetrics::max_x_norm},
    {"y_norm", &RoundMetrics::y_norm},
    {"epsilon_iteration", &RoundMetrics::epsilon_iteration},
    {"delta_iteration", &RoundMetrics::delta_iteration},
    {"epsilon_total", &RoundMetrics::epsilon_total},
    {"delta_total", &RoundMetrics::delta_total},
};

std::vector<std::string> Columns(Family family) {
  std::vector<std::string> out;
  std::stringstream header(MetricsCsvHeader(family));
  std::string name;
  while (std::getline(header, name, ',')) out.push_back(name);
  return out;
}

// Every trace column that is not `round` or a per-node vector is a scalar of this table: a
// column the trace gains without a row here is an internal error, not a silent omission.
const ScalarColumn& FindScalar(const std::string& name) {
  for (const ScalarColumn& c : kScalarColumns) {
    if (name == c.name) return c;
  }
  throw std::logic_error("trace column '" + name + "' has no entry in python/src/convert.cpp");
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

}  // namespace

bool IsCsr(const py::handle& x) {
  return py::hasattr(x, "indptr") && py::hasattr(x, "indices") && py::hasattr(x, "data") &&
         py::hasattr(x, "shape");
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

py::dict HistoryToDict(const std::vector<RoundMetrics>& rounds, Family family) {
  py::dict out;
  const auto n = static_cast<py::ssize_t>(rounds.size());
  for (const std::string& name : Columns(family)) {
    if (name == "round") {
      py::array_t<std::int64_t> a(n);
      for (py::ssize_t i = 0; i < n; ++i) a.mutable_at(i) = rounds[i].round;
      out[name.c_str()] = a;
    } else if (name == "node_privacy" || name == "node_noise") {
      const auto field =
          name == "node_privacy" ? &RoundMetrics::node_privacy : &RoundMetrics::node_noise;
      const py::ssize_t nodes = n == 0 ? 0 : static_cast<py::ssize_t>((rounds[0].*field).size());
      py::array_t<double> a({n, nodes});
      for (py::ssize_t i = 0; i < n; ++i) {
        const std::vector<double>& v = rounds[i].*field;
        for (py::ssize_t j = 0; j < nodes; ++j) {
          a.mutable_at(i, j) = j < static_cast<py::ssize_t>(v.size()) ? v[j] : RoundMetrics::kNaN;
        }
      }
      out[name.c_str()] = a;
    } else {
      const ScalarColumn& c = FindScalar(name);
      py::array_t<double> a(n);
      for (py::ssize_t i = 0; i < n; ++i) a.mutable_at(i) = rounds[i].*(c.field);
      out[name.c_str()] = a;
    }
  }
  return out;
}

py::dict RoundToDict(const RoundMetrics& m, Family family) {
  py::dict out;
  for (const std::string& name : Columns(family)) {
    if (name == "round") {
      out["round"] = m.round;
    } else if (name != "node_privacy" && name != "node_noise") {
      out[name.c_str()] = m.*(FindScalar(name).field);
    }
  }
  return out;
}

}  // namespace dpadmm::python
