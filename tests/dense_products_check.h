// SPDX-License-Identifier: Apache-2.0
// The dense products' kernels (algorithms/solver/dense_products.h) against Eigen's products, bit
// for bit, over shapes that reach every tail: odd and even widths, row counts around Eigen's
// groups of 8, 4 and 2 rows and its column blocks (fewer than 128 samples: one block; else 16;
// rows of 4000 doubles or more: 4), entries of mixed signs and exponents (so that another
// summation order changes bits), and a row of negative zeros.
// Shared by the native unit test (tests/test_dense_products.cpp) and the WebAssembly one
// (wasm/tests/dense_products_test.cpp), which also compares the SIMD128 kernels.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "solver/dense_products.h"

namespace dpadmm::dense_products_check {

inline bool SameBits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// Entries m 2^e with m uniform in [-1, 1) and e in [-20, 20]: sums of these round differently
// in different orders.
inline double Entry(std::mt19937_64& rng) {
  std::uniform_real_distribution<double> m(-1.0, 1.0);
  std::uniform_int_distribution<int> e(-20, 20);
  return std::ldexp(m(rng), e(rng));
}

struct Shape {
  std::int64_t n;
  std::int64_t d;
};

inline std::vector<Shape> Shapes() {
  std::vector<Shape> shapes;
  for (std::int64_t n : {1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 127, 128, 129, 145, 300}) {
    for (std::int64_t d : {1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 20, 21, 34})
      shapes.push_back({n, d});
  }
  shapes.push_back({130, 4001});  // Eigen's column block of 4
  shapes.push_back({5, 4001});
  return shapes;
}

// Compares out with want; the first difference as text (empty when every bit agrees).
inline std::string Compare(const char* what, const Shape& shape, const double* out,
                           const Eigen::VectorXd& want) {
  for (Eigen::Index i = 0; i < want.size(); ++i) {
    if (!SameBits(out[i], want[i])) {
      return std::string(what) + " n=" + std::to_string(shape.n) + " d=" + std::to_string(shape.d) +
             " entry " + std::to_string(i) + ": " + std::to_string(out[i]) + " != Eigen's " +
             std::to_string(want[i]);
    }
  }
  return "";
}

// Every kernel of this build against Eigen on every shape. order_matters is set when a plain
// left-to-right sum differs from Eigen somewhere (so the data can tell the orders apart).
inline std::string CheckAll(bool& order_matters) {
  std::mt19937_64 rng(29);
  order_matters = false;
  for (const Shape& shape : Shapes()) {
    DenseRows x(shape.n, shape.d);
    for (Eigen::Index r = 0; r < x.rows(); ++r) {
      for (Eigen::Index c = 0; c < x.cols(); ++c) x(r, c) = Entry(rng);
    }
    if (shape.n > 2) x.row(1).setConstant(-0.0);
    Eigen::VectorXd v(shape.d);
    for (Eigen::Index c = 0; c < v.size(); ++c) v[c] = Entry(rng);
    Eigen::ArrayXd s(shape.n);
    for (Eigen::Index r = 0; r < s.size(); ++r) s[r] = Entry(rng);
    const auto n = static_cast<std::size_t>(shape.n);
    const auto d = static_cast<std::size_t>(shape.d);

    const Eigen::VectorXd xv = x * v;
    const Eigen::VectorXd xts = x.transpose() * s.matrix();
    for (Eigen::Index r = 0; r < x.rows() && !order_matters; ++r) {
      double plain = 0.0;
      for (Eigen::Index c = 0; c < x.cols(); ++c) plain += x(r, c) * v[c];
      order_matters = !SameBits(plain, xv[r]);
    }

    std::vector<double> out(std::max(n, d));
    std::string diff;
    Eigen::ArrayXd rows_out(shape.n);
    Eigen::VectorXd cols_out(shape.d);
    detail::RowsTimes(x, v, rows_out);
    detail::RowsTransposedTimes(x, s, cols_out);
    diff += Compare("RowsTimes", shape, rows_out.data(), xv);
    diff += Compare("RowsTransposedTimes", shape, cols_out.data(), xts);
    // The kernels on the shapes Eigen computes as a matrix-vector product (not a dot product).
    if (shape.n >= 2) {
      detail::RowDotsPortable(x.data(), n, d, v.data(), out.data());
      diff += Compare("RowDotsPortable", shape, out.data(), xv);
#if DPADMM_DENSE_SIMD128
      detail::RowDotsSimd128(x.data(), n, d, v.data(), out.data());
      diff += Compare("RowDotsSimd128", shape, out.data(), xv);
#endif
    }
    if (shape.d >= 2) {
      detail::ColumnSumsPortable(x.data(), n, d, s.data(), out.data());
      diff += Compare("ColumnSumsPortable", shape, out.data(), xts);
#if DPADMM_DENSE_SIMD128
      detail::ColumnSumsSimd128(x.data(), n, d, s.data(), out.data());
      diff += Compare("ColumnSumsSimd128", shape, out.data(), xts);
#endif
    }
    if (!diff.empty()) return diff;
  }
  return "";
}

// The dense Hessian's rank update (detail::RankUpdate, RankUpdatePortable and, in wasm,
// RankUpdateSimd128) against Eigen's `selfadjointView<Lower>().rankUpdate`, bit for bit, the
// whole matrix (the upper triangle stays as it was), after one update from zero and after a
// second on top of it, on chunks of k <= 128 rows (the solver's bound) around Eigen's peeling
// by 8 and d around its panels of 4 rows and columns (messages say n for k). order_matters is set
// when summing every entry in plain order (without Eigen's even/odd split of the one-packet rows)
// differs from Eigen somewhere.
inline std::string CheckRankUpdate(bool& order_matters) {
  std::mt19937_64 rng(2929);
  order_matters = false;
  std::vector<Shape> shapes;  // {k, d}
  for (std::int64_t k : {1, 2, 7, 8, 9, 15, 16, 17, 31, 64, 127, 128}) {
    for (std::int64_t d :
         {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 14, 15, 18, 19, 20, 21, 22, 23, 34})
      shapes.push_back({k, d});
  }
  shapes.push_back({63, 130});
  shapes.push_back({27, 302});
  for (const Shape& shape : shapes) {
    const auto k = static_cast<std::size_t>(shape.n);
    const auto d = static_cast<std::size_t>(shape.d);
    Eigen::MatrixXd want = Eigen::MatrixXd::Zero(shape.d, shape.d);
    want(0, shape.d - 1) = 3.0;  // an upper entry, which no update may touch
    Eigen::MatrixXd got = want;
    Eigen::MatrixXd portable = want;
    for (int update = 0; update < 2; ++update) {
      DenseRows c(shape.n + 3, shape.d);  // 3 rows more: only the top k count
      for (Eigen::Index r = 0; r < c.rows(); ++r) {
        for (Eigen::Index col = 0; col < c.cols(); ++col) c(r, col) = Entry(rng);
      }
      if (shape.n > 2) c.row(1).setConstant(-0.0);
      want.selfadjointView<Eigen::Lower>().rankUpdate(c.topRows(shape.n).transpose());
      detail::RankUpdate(c, shape.n, got);
      detail::RankUpdatePortable(c.data(), k, d, portable.data());
      for (std::size_t j = 0; j < d && !order_matters && update == 0; ++j) {
        for (std::size_t i = j; i < d; ++i) {
          double plain = 0.0;
          for (std::size_t t = 0; t < k; ++t) plain = plain + c(t, i) * c(t, j);
          if (!SameBits(plain, want(i, j))) order_matters = true;
        }
      }
      const std::string what = "update " + std::to_string(update + 1) + ": ";
      std::string diff = Compare((what + "RankUpdate").c_str(), shape, got.data(), want.reshaped());
      diff +=
          Compare((what + "RankUpdatePortable").c_str(), shape, portable.data(), want.reshaped());
      if (!diff.empty()) return diff;
    }
#if DPADMM_DENSE_SIMD128
    // The SIMD128 kernel called directly (RankUpdate above already took it): from zero.
    Eigen::MatrixXd simd = Eigen::MatrixXd::Zero(shape.d, shape.d);
    Eigen::MatrixXd eigen = simd;
    DenseRows c(shape.n, shape.d);
    for (Eigen::Index r = 0; r < c.rows(); ++r) {
      for (Eigen::Index col = 0; col < c.cols(); ++col) c(r, col) = Entry(rng);
    }
    eigen.selfadjointView<Eigen::Lower>().rankUpdate(c.transpose());
    detail::RankUpdateSimd128(c.data(), k, d, simd.data());
    const std::string diff = Compare("RankUpdateSimd128", shape, simd.data(), eigen.reshaped());
    if (!diff.empty()) return diff;
#endif
  }
  return "";
}

}  // namespace dpadmm::dense_products_check
