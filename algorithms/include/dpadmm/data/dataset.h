// SPDX-License-Identifier: Apache-2.0
// A labelled data set: rows x_n (dense or sparse) and labels y_n in {-1, +1}.
// One-hot data such as Adult and a9a stays sparse; generated and Raetsch data are dense.
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include <Eigen/Dense>
#include <Eigen/SparseCore>

namespace dpadmm {

using DenseRows = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
// Sparse rows: CSR with 32-bit column indices and row offsets, 12 bytes per stored entry. So a
// sparse set holds at most kMaxSparseIndex stored entries and columns (CheckSparseSize).
using SparseIndex = std::int32_t;
using SparseRows = Eigen::SparseMatrix<double, Eigen::RowMajor, SparseIndex>;
inline constexpr std::int64_t kMaxSparseIndex = 2147483647;  // INT32_MAX

// Throws InputError "<what>: <n> stored entries (or columns), above the limit of 2147483647 of
// sparse rows" when sparse rows with `entries` stored entries and `cols` columns cannot be held.
void CheckSparseSize(std::int64_t entries, std::int64_t cols, const std::string& what);

struct Dataset {
  std::variant<DenseRows, SparseRows> x;  // rows are samples
  Eigen::VectorXd y;                      // labels, each exactly -1.0 or +1.0
  std::string name;

  // Moving a Dataset moves its rows. Eigen 3.4's SparseMatrix has neither a move constructor nor
  // a move assignment: std::move of one makes a deep copy, so a variant (or a defaulted move of
  // this struct) would copy sparse rows on every move and hold both copies until the source
  // dies. These swap the rows instead.
  Dataset() = default;
  // Dataset{rows, labels, name}, as for the plain struct this was.
  Dataset(std::variant<DenseRows, SparseRows> rows, Eigen::VectorXd labels, std::string name = {});
  Dataset(const Dataset&) = default;
  Dataset& operator=(const Dataset&) = default;
  Dataset(Dataset&& other) noexcept;
  Dataset& operator=(Dataset&& other) noexcept;
  ~Dataset() = default;

  // Makes `rows` this set's rows without copying them (`rows` is left empty).
  void SetRows(SparseRows&& rows) noexcept;
  void SetRows(DenseRows&& rows) noexcept;

  std::int64_t rows() const;
  std::int64_t cols() const;
  bool is_sparse() const { return std::holds_alternative<SparseRows>(x); }
  // Stored entries of sparse data; entries != 0 of dense data.
  std::int64_t nonzeros() const;

  // Largest l2 norm of any row (0 for an empty set).
  double MaxRowNorm() const;
  // Multiplies every row by `factor`.
  void Scale(double factor);
  // The rows listed in `rows` (in that order), same storage kind. Throws std::out_of_range for
  // an index outside [0, rows()).
  Dataset Subset(const std::vector<std::int64_t>& rows) const;
  // Sets the number of columns (pads a test set that has fewer columns than the training set).
  // Throws InputError if the data has more columns than `cols`.
  void Resize(std::int64_t cols);
  // Checks labels are +-1, values finite; throws InputError naming the first offending row.
  void Validate() const;
};

// Whether every row of compressed `x` stores its columns in strictly increasing order (Eigen's
// own invariant, which only writes through its raw pointers can break). False if `x` is not
// compressed.
bool ColumnsIncreasing(const SparseRows& x);

// Calls fn(const DenseRows&) or fn(const SparseRows&).
template <class Fn>
decltype(auto) VisitRows(const Dataset& d, Fn&& fn) {
  return std::visit(std::forward<Fn>(fn), d.x);
}

}  // namespace dpadmm
