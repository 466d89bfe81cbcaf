// SPDX-License-Identifier: Apache-2.0
#include "dpadmm/data/generators.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "dpadmm/core/error.h"
#include "dpadmm/core/random.h"

namespace dpadmm {
namespace {

// Row r of a generated set draws from Stream(seed, r, kind, kGenerateData): rows are
// independent of each other and of the row count, and each generator has its own streams.
enum Kind : std::uint64_t { kTwonorm = 1, kRingnorm = 2, kSparseRows = 3, kSparseHyperplane = 4 };

void RequirePositive(const char* generator, const char* field, std::int64_t value) {
  if (value <= 0) {
    throw InputError(std::string(generator) + ": " + field + " must be positive, got " +
                     std::to_string(value));
  }
}

double RandomSign(Stream& s) { return (s.NextU64() >> 63) != 0 ? 1.0 : -1.0; }

// The number of rows to make, and the id of the k-th: all `rows`, or the listed ones.
std::int64_t CountRows(const char* generator, std::int64_t rows, const RowIds* ids) {
  if (ids == nullptr) return rows;
  for (std::int64_t id : *ids) {
    if (id < 0 || id >= rows) {
      throw InputError(std::string(generator) + ": row " + std::to_string(id) +
                       " requested of a set of " + std::to_string(rows));
    }
  }
  return static_cast<std::int64_t>(ids->size());
}

std::int64_t RowId(const RowIds* ids, std::int64_t k) {
  return ids == nullptr ? k : (*ids)[static_cast<std::size_t>(k)];
}

// Fills a dense data set whose row r is produced by row_fn(stream, label, row).
template <class RowFn>
Dataset GenerateDense(const char* name, std::int64_t rows, std::int64_t dims, std::uint64_t seed,
                      Kind kind, const RowIds* ids, RowFn row_fn) {
  RequirePositive(name, "rows", rows);
  RequirePositive(name, "dims", dims);
  const std::int64_t count = CountRows(name, rows, ids);
  Dataset d;
  DenseRows x(count, dims);
  d.y.resize(count);
  for (std::int64_t k = 0; k < count; ++k) {
    Stream s(seed, static_cast<std::uint64_t>(RowId(ids, k)), kind, Purpose::kGenerateData);
    d.y[k] = RandomSign(s);
    row_fn(s, d.y[k], x.row(k));
  }
  d.SetRows(std::move(x));
  d.name = name;
  return d;
}

void ValidateOptions(const SparseHighDimOptions& o) {
  const char* name = "GenerateSparseHighDim";
  RequirePositive(name, "rows", o.rows);
  RequirePositive(name, "dims", o.dims);
  RequirePositive(name, "informative", o.informative);
  RequirePositive(name, "nnz_per_row", o.nnz_per_row);
  if (o.informative > o.dims || o.nnz_per_row > o.dims) {
    throw InputError(std::string(name) + ": informative and nnz_per_row must be <= dims");
  }
  // rows x nnz_per_row stored entries, and dims columns, within the limits of sparse rows.
  if (o.nnz_per_row > kMaxSparseIndex / o.rows) {
    throw InputError(std::string(name) + ": rows x nnz_per_row (" + std::to_string(o.rows) + " x " +
                     std::to_string(o.nnz_per_row) + ") entries are too many (the limit of " +
                     "sparse rows is " + std::to_string(kMaxSparseIndex) + ")");
  }
  CheckSparseSize(0, o.dims, name);
  if (!(o.flip_probability >= 0.0 && o.flip_probability <= 0.5)) {
    throw InputError(std::string(name) + ": flip_probability must be in [0, 0.5], got " +
                     std::to_string(o.flip_probability));
  }
}

// k distinct columns of [0, n), sorted (Floyd's algorithm: k draws, integer arithmetic only).
// `marks` has size n, is all false on entry and is left all false.
void SampleColumns(Stream& s, std::int64_t n, std::int64_t k, std::vector<char>& marks,
                   std::vector<std::int64_t>& out) {
  out.clear();
  for (std::int64_t j = n - k; j < n; ++j) {
    const auto t = static_cast<std::int64_t>(s.UniformInt(static_cast<std::uint64_t>(j + 1)));
    const std::int64_t pick = marks[t] ? j : t;
    marks[pick] = 1;
    out.push_back(pick);
  }
  for (std::int64_t c : out) marks[c] = 0;
  std::sort(out.begin(), out.end());
}

}  // namespace

Dataset GenerateTwonorm(std::int64_t rows, std::uint64_t seed, std::int64_t dims,
                        const RowIds* ids) {
  return GenerateDense("twonorm", rows, dims, seed, kTwonorm, ids,
                       [dims](Stream& s, double label, auto row) {
                         const double a = 2.0 / std::sqrt(static_cast<double>(dims));
                         for (auto& v : row) v = label * a + s.Normal();
                       });
}

Dataset GenerateRingnorm(std::int64_t rows, std::uint64_t seed, std::int64_t dims,
                         const RowIds* ids) {
  return GenerateDense("ringnorm", rows, dims, seed, kRingnorm, ids,
                       [dims](Stream& s, double label, auto row) {
                         const double a = 1.0 / std::sqrt(static_cast<double>(dims));
                         for (auto& v : row) v = label > 0 ? 2.0 * s.Normal() : a + s.Normal();
                       });
}

Dataset GenerateSparseHighDim(const SparseHighDimOptions& o, std::uint64_t seed,
                              const RowIds* ids) {
  ValidateOptions(o);
  const std::int64_t count = CountRows("GenerateSparseHighDim", o.rows, ids);
  Eigen::VectorXd w(o.informative);
  Stream hyperplane(seed, 0, kSparseHyperplane, Purpose::kGenerateData);
  for (auto& v : w) v = hyperplane.Normal();

  // Every row has exactly nnz_per_row entries: the CSR arrays are sized once and written in
  // place.
  SparseRows x(count, o.dims);
  x.resizeNonZeros(static_cast<Eigen::Index>(count * o.nnz_per_row));
  SparseIndex* outer = x.outerIndexPtr();
  SparseIndex* inner = x.innerIndexPtr();
  double* values = x.valuePtr();
  std::vector<std::int64_t> columns;
  std::vector<char> marks(static_cast<std::size_t>(count > 0 ? o.dims : 0), 0);
  Eigen::VectorXd y(count);
  SparseIndex at = 0;
  outer[0] = 0;
  for (std::int64_t r = 0; r < count; ++r) {
    Stream s(seed, static_cast<std::uint64_t>(RowId(ids, r)), kSparseRows, Purpose::kGenerateData);
    SampleColumns(s, o.dims, o.nnz_per_row, marks, columns);
    double margin = 0.0;
    for (std::int64_t c : columns) {
      const double v = s.Normal();
      if (c < o.informative) margin += w[c] * v;
      inner[at] = static_cast<SparseIndex>(c);
      values[at++] = v;
    }
    outer[r + 1] = at;
    // A row without informative features gets a random label.
    double label = margin > 0.0 ? 1.0 : margin < 0.0 ? -1.0 : RandomSign(s);
    if (s.Uniform() < o.flip_probability) label = -label;
    y[r] = label;
  }
  Dataset d;
  d.SetRows(std::move(x));
  d.y = std::move(y);
  d.name = "sparse-high-dim";
  return d;
}

}  // namespace dpadmm
