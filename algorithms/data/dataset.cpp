// SPDX-License-Identifier: Apache-2.0
#include "dpadmm/data/dataset.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>

#include "dpadmm/core/error.h"

namespace dpadmm {
namespace {

void CheckRowIndex(std::int64_t row, std::int64_t rows) {
  if (row < 0 || row >= rows) {
    throw std::out_of_range("Dataset::Subset: row " + std::to_string(row) + " out of range [0, " +
                            std::to_string(rows) + ")");
  }
}

DenseRows DenseSubset(const DenseRows& x, const std::vector<std::int64_t>& rows) {
  DenseRows out(static_cast<Eigen::Index>(rows.size()), x.cols());
  for (std::size_t k = 0; k < rows.size(); ++k) {
    CheckRowIndex(rows[k], x.rows());
    out.row(static_cast<Eigen::Index>(k)) = x.row(rows[k]);
  }
  return out;
}

SparseRows SparseSubset(const SparseRows& x, const std::vector<std::int64_t>& rows,
                        const std::string& where) {
  if (!x.isCompressed()) {
    SparseRows compressed = x;
    compressed.makeCompressed();
    return SparseSubset(compressed, rows, where);
  }
  // Repeated rows can make more entries than the source holds.
  std::int64_t total = 0;
  for (const std::int64_t r : rows) {
    CheckRowIndex(r, x.rows());
    total += x.outerIndexPtr()[r + 1] - x.outerIndexPtr()[r];
  }
  CheckSparseSize(total, x.cols(),
                  where + ", a subset of " + std::to_string(rows.size()) + " rows");
  SparseRows out(static_cast<Eigen::Index>(rows.size()), x.cols());
  SparseIndex* outer = out.outerIndexPtr();
  outer[0] = 0;
  for (std::size_t k = 0; k < rows.size(); ++k) {
    outer[k + 1] = outer[k] + x.outerIndexPtr()[rows[k] + 1] - x.outerIndexPtr()[rows[k]];
  }
  out.resizeNonZeros(static_cast<Eigen::Index>(outer[rows.size()]));
  for (std::size_t k = 0; k < rows.size(); ++k) {
    const SparseIndex begin = x.outerIndexPtr()[rows[k]];
    const SparseIndex count = outer[k + 1] - outer[k];
    std::copy_n(x.innerIndexPtr() + begin, count, out.innerIndexPtr() + outer[k]);
    std::copy_n(x.valuePtr() + begin, count, out.valuePtr() + outer[k]);
  }
  return out;
}

// Moves `rows` (either kind) into d.x without copying them.
void TakeRows(Dataset& d, std::variant<DenseRows, SparseRows>& rows) noexcept {
  if (auto* s = std::get_if<SparseRows>(&rows)) {
    d.SetRows(std::move(*s));
  } else {
    d.SetRows(std::move(std::get<DenseRows>(rows)));
  }
}

std::string Where(const Dataset& d) { return d.name.empty() ? "dataset" : d.name; }

}  // namespace

Dataset::Dataset(std::variant<DenseRows, SparseRows> rows, Eigen::VectorXd labels,
                 std::string set_name)
    : y(std::move(labels)), name(std::move(set_name)) {
  TakeRows(*this, rows);
}

Dataset::Dataset(Dataset&& other) noexcept : y(std::move(other.y)), name(std::move(other.name)) {
  TakeRows(*this, other.x);
}

Dataset& Dataset::operator=(Dataset&& other) noexcept {
  if (this == &other) return *this;
  y = std::move(other.y);
  other.y.resize(0);
  name = std::move(other.name);
  TakeRows(*this, other.x);
  return *this;
}

void Dataset::SetRows(SparseRows&& rows) noexcept {
  // emplace frees the rows held so far; the swap then takes `rows`' arrays and leaves it the
  // fresh empty matrix.
  x.emplace<SparseRows>().swap(rows);
}

void Dataset::SetRows(DenseRows&& rows) noexcept { x.emplace<DenseRows>(std::move(rows)); }

void CheckSparseSize(std::int64_t entries, std::int64_t cols, const std::string& what) {
  const auto fail = [&what](std::int64_t n, const char* unit) {
    throw InputError(what + ": " + std::to_string(n) + unit + ", above the limit of " +
                     std::to_string(kMaxSparseIndex) + " of sparse rows");
  };
  if (entries > kMaxSparseIndex) fail(entries, " stored entries");
  if (cols > kMaxSparseIndex) fail(cols, " columns");
}

bool ColumnsIncreasing(const SparseRows& x) {
  if (!x.isCompressed()) return false;
  const SparseIndex* outer = x.outerIndexPtr();
  const SparseIndex* inner = x.innerIndexPtr();
  for (Eigen::Index r = 0; r < x.rows(); ++r) {
    for (SparseIndex k = outer[r] + 1; k < outer[r + 1]; ++k) {
      if (inner[k] <= inner[k - 1]) return false;
    }
  }
  return true;
}

std::int64_t Dataset::rows() const {
  return VisitRows(*this, [](const auto& m) { return static_cast<std::int64_t>(m.rows()); });
}

std::int64_t Dataset::cols() const {
  return VisitRows(*this, [](const auto& m) { return static_cast<std::int64_t>(m.cols()); });
}

std::int64_t Dataset::nonzeros() const {
  if (const auto* s = std::get_if<SparseRows>(&x)) return s->nonZeros();
  return (std::get<DenseRows>(x).array() != 0.0).count();
}

double Dataset::MaxRowNorm() const {
  if (rows() == 0) return 0.0;
  if (const auto* s = std::get_if<SparseRows>(&x)) {
    double max_sq = 0.0;
    for (Eigen::Index r = 0; r < s->outerSize(); ++r) {
      double sq = 0.0;
      for (SparseRows::InnerIterator it(*s, r); it; ++it) sq += it.value() * it.value();
      max_sq = std::max(max_sq, sq);
    }
    return std::sqrt(max_sq);
  }
  const DenseRows& d = std::get<DenseRows>(x);
  if (d.cols() == 0) return 0.0;
  return std::sqrt(d.rowwise().squaredNorm().maxCoeff());
}

void Dataset::Scale(double factor) {
  std::visit([factor](auto& m) { m *= factor; }, x);
}

Dataset Dataset::Subset(const std::vector<std::int64_t>& rows) const {
  Dataset out;
  out.name = name;
  out.y.resize(static_cast<Eigen::Index>(rows.size()));
  for (std::size_t k = 0; k < rows.size(); ++k) {
    CheckRowIndex(rows[k], y.size());
    out.y[static_cast<Eigen::Index>(k)] = y[rows[k]];
  }
  if (const auto* s = std::get_if<SparseRows>(&x)) {
    out.SetRows(SparseSubset(*s, rows, Where(*this)));
  } else {
    out.SetRows(DenseSubset(std::get<DenseRows>(x), rows));
  }
  return out;
}

void Dataset::Resize(std::int64_t new_cols) {
  const std::int64_t old_cols = cols();
  if (new_cols < old_cols) {
    throw InputError(Where(*this) + ": has " + std::to_string(old_cols) +
                     " columns, more than the " + std::to_string(new_cols) + " requested");
  }
  if (new_cols == old_cols) return;
  if (auto* s = std::get_if<SparseRows>(&x)) {
    s->conservativeResize(s->rows(), new_cols);
    s->makeCompressed();
  } else {
    DenseRows& d = std::get<DenseRows>(x);
    d.conservativeResize(Eigen::NoChange, new_cols);
    d.rightCols(new_cols - old_cols).setZero();
  }
}

void Dataset::Validate() const {
  const std::int64_t n = rows();
  if (y.size() != n) {
    throw InputError(Where(*this) + ": " + std::to_string(y.size()) + " labels for " +
                     std::to_string(n) + " rows");
  }
  auto fail = [this](std::int64_t row, const std::string& what) {
    throw InputError(Where(*this) + ": row " + std::to_string(row) + " (0-based): " + what);
  };
  for (std::int64_t r = 0; r < n; ++r) {
    if (y[r] != 1.0 && y[r] != -1.0) fail(r, "label " + std::to_string(y[r]) + " is not -1 or +1");
  }
  if (const auto* s = std::get_if<SparseRows>(&x)) {
    for (Eigen::Index r = 0; r < s->outerSize(); ++r) {
      for (SparseRows::InnerIterator it(*s, r); it; ++it) {
        if (!std::isfinite(it.value())) fail(r, "value is NaN or Inf");
      }
    }
  } else {
    const DenseRows& d = std::get<DenseRows>(x);
    for (Eigen::Index r = 0; r < d.rows(); ++r) {
      if (!d.row(r).allFinite()) fail(r, "value is NaN or Inf");
    }
  }
}

}  // namespace dpadmm
