// SPDX-License-Identifier: Apache-2.0
// The local solver's two dense matrix-vector products (internal header): X v and X^T s for
// rows X stored row-major (n rows of d doubles), in exactly the summation order of Eigen 3.4's
// matrix-vector product on SSE2 (Eigen/src/Core/products/GeneralMatrixVector.h, packets of two
// doubles, no fused multiply-add), so that each gives the bits `dst.noalias() = X * v` and
// `dst.noalias() = X.transpose() * s` give natively:
//
//   (X v)_r   = (E_r + O_r) [+ x_{r,d-1} v_{d-1} when d is odd], where E_r sums
//               x_{r,j} v_j over even j < 2 floor(d/2) and O_r over odd j, each from +0 in
//               increasing j (the two lanes of one packet accumulator; the row grouping by 8,
//               4, 2, 1 does not change a row's order);
//   (X^T s)_c = (((0 + B_1) + B_2) + ...), B_k summing x_{j,c} s_j from +0 in increasing j over
//               the k-th block of `GemvColumnBlock` samples (the feature chunking by 16, 8, 6,
//               4, 2, 1 does not change a feature's order).
//
// Natively the products stay Eigen's own. In a WebAssembly build with SIMD128 the kernels below
// run instead (Eigen's SSE2 path there goes through Emscripten's SSE2-to-SIMD128 emulation and
// 64-bit indices): the same operations in the same order, hence the same bits. The portable
// kernels (two scalar lanes) define the order on every platform; tests compare them with Eigen
// natively (tests/test_dense_products.cpp) and with the SIMD128 kernels and Eigen in wasm
// (wasm/tests/dense_products_test.cpp), odd sizes and tails included. The shapes Eigen sends
// elsewhere (a single row or a single column: a dot product, another order) stay Eigen's.
//
// The dense Hessian's rank update H += C^T C (C: k rows of d doubles, row-major; H column-major
// d x d, lower triangle) in the order of Eigen 3.4's `H.selfadjointView<Lower>().rankUpdate(
// C.transpose())` (GeneralMatrixMatrixTriangular.h over GeneralBlockPanelKernel.h, SSE2, no FMA,
// 16 registers, so mr = nr = 4, and one depth block: k <= 128 rows): every entry i >= j gets
// H_ij + A_ij, where A_ij sums c_{t,i} c_{t,j} from +0 in increasing t, except in Eigen's
// one-packet path, which sums the even t and the odd t below 8 floor(k / 8) apart and adds the
// two sums before the rest: the rows d4 and d4 + 1 (d4 = 4 floor(d / 4)) when d mod 4 >= 2,
// against the columns j < d4. (The rows d4.. form Eigen's last partial row panel; columns
// j >= d4 its last partial column panel, which goes through the one-column paths.) Eigen adds
// its diagonal 4 x 4 blocks through a zeroed buffer, H_ij + (0 + A_ij): the same bits unless
// H_ij is -0, which an H summed from +0 (the solver's) never is.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include <Eigen/Core>

#include "dpadmm/data/dataset.h"

#if defined(__wasm_simd128__)
#include <wasm_simd128.h>
#define DPADMM_DENSE_SIMD128 1
#else
#define DPADMM_DENSE_SIMD128 0
#endif

namespace dpadmm::detail {

// Eigen's column block of the column-major product (X^T is column-major with n columns):
// every column when there are fewer than 128, else 16 (4 for rows of 4000 doubles or more).
inline std::size_t GemvColumnBlock(std::size_t n, std::size_t d) {
  if (n < 128) return n;
  return d * sizeof(double) < 32000 ? 16 : 4;
}

// out[r] = (X v)_r, the order above, two scalar lanes.
inline void RowDotsPortable(const double* x, std::size_t n, std::size_t d, const double* v,
                            double* out) {
  const std::size_t pairs = d / 2 * 2;
  for (std::size_t r = 0; r < n; ++r) {
    const double* row = x + r * d;
    double even = 0.0;
    double odd = 0.0;
    for (std::size_t j = 0; j < pairs; j += 2) {
      even = even + row[j] * v[j];
      odd = odd + row[j + 1] * v[j + 1];
    }
    double sum = even + odd;
    if (pairs < d) sum = sum + row[pairs] * v[pairs];
    out[r] = sum;
  }
}

// out[c] = (X^T s)_c, the order above.
inline void ColumnSumsPortable(const double* x, std::size_t n, std::size_t d, const double* s,
                               double* out) {
  const std::size_t block = GemvColumnBlock(n, d);
  std::fill(out, out + d, 0.0);
  for (std::size_t j0 = 0; j0 < n; j0 += block) {
    const std::size_t j1 = std::min(n, j0 + block);
    for (std::size_t c = 0; c < d; ++c) {
      double b = 0.0;
      for (std::size_t j = j0; j < j1; ++j) b = b + x[j * d + c] * s[j];
      out[c] = out[c] + b;
    }
  }
}

// A_ij of the rank update above (the entry sum before it is added to H_ij).
inline double RankUpdateEntry(const double* c, std::size_t k, std::size_t d, std::size_t i,
                              std::size_t j) {
  const std::size_t d4 = d / 4 * 4;
  std::size_t t = 0;
  double sum = 0.0;
  if (d % 4 >= 2 && (i == d4 || i == d4 + 1) && j < d4) {
    double odd = 0.0;
    for (; t < k / 8 * 8; t += 2) {  // the first k - k mod 8 samples, even and odd apart
      sum = sum + c[t * d + i] * c[t * d + j];
      odd = odd + c[(t + 1) * d + i] * c[(t + 1) * d + j];
    }
    sum = sum + odd;
  }
  for (; t < k; ++t) sum = sum + c[t * d + i] * c[t * d + j];
  return sum;
}

// H += C^T C, lower triangle, the order above, one entry at a time.
inline void RankUpdatePortable(const double* c, std::size_t k, std::size_t d, double* h) {
  for (std::size_t j = 0; j < d; ++j) {
    for (std::size_t i = j; i < d; ++i)
      h[j * d + i] = h[j * d + i] + RankUpdateEntry(c, k, d, i, j);
  }
}

#if DPADMM_DENSE_SIMD128
// R rows of RowDotsPortable at once: lane 0 of a row's accumulator is E_r, lane 1 is O_r. The R
// independent sums keep the adds' latency hidden; the rows share the loads of v.
template <int R>
inline void RowDotsGroupSimd128(const double* x, std::size_t d, const double* v, double* out) {
  const std::size_t pairs = d / 2 * 2;
  v128_t acc[R];
  for (int r = 0; r < R; ++r) acc[r] = wasm_f64x2_splat(0.0);
  for (std::size_t j = 0; j < pairs; j += 2) {
    const v128_t vj = wasm_v128_load(v + j);
    for (int r = 0; r < R; ++r) {
      acc[r] = wasm_f64x2_add(acc[r], wasm_f64x2_mul(wasm_v128_load(x + r * d + j), vj));
    }
  }
  for (int r = 0; r < R; ++r) {
    double sum = wasm_f64x2_extract_lane(acc[r], 0) + wasm_f64x2_extract_lane(acc[r], 1);
    if (pairs < d) sum = sum + x[r * d + pairs] * v[pairs];
    out[r] = sum;
  }
}

inline void RowDotsSimd128(const double* x, std::size_t n, std::size_t d, const double* v,
                           double* out) {
  std::size_t r = 0;
  for (; r + 8 <= n; r += 8) RowDotsGroupSimd128<8>(x + r * d, d, v, out + r);
  for (; r + 4 <= n; r += 4) RowDotsGroupSimd128<4>(x + r * d, d, v, out + r);
  for (; r < n; ++r) RowDotsGroupSimd128<1>(x + r * d, d, v, out + r);
}

// ColumnSumsPortable's sums B_k of one block of `len` samples from sample j0, for the features
// from c on, 2 P at a time (P packets: P independent sums, and each sample's s_j splat once per
// chunk), added to out; returns the first feature not done. Chunks of 20 features cover a
// row of the common small widths in one pass.
template <int P>
inline std::size_t ColumnChunksSimd128(const double* x, std::size_t d, const double* s,
                                       std::size_t j0, std::size_t len, std::size_t c,
                                       double* out) {
  const std::size_t pairs = d / 2 * 2;
  for (; c + 2 * P <= pairs; c += 2 * P) {
    v128_t acc[P];
    for (int p = 0; p < P; ++p) acc[p] = wasm_f64x2_splat(0.0);
    for (std::size_t j = j0; j < j0 + len; ++j) {
      const double* xj = x + j * d + c;
      const v128_t sj = wasm_f64x2_splat(s[j]);
      for (int p = 0; p < P; ++p) {
        acc[p] = wasm_f64x2_add(acc[p], wasm_f64x2_mul(wasm_v128_load(xj + 2 * p), sj));
      }
    }
    for (int p = 0; p < P; ++p) {
      double* o = out + c + 2 * p;
      wasm_v128_store(o, wasm_f64x2_add(wasm_v128_load(o), acc[p]));
    }
  }
  return c;
}

// The same as ColumnSumsPortable, block after block: the features by 20, then 8, then 2, then
// the last one alone when d is odd.
inline void ColumnSumsSimd128(const double* x, std::size_t n, std::size_t d, const double* s,
                              double* out) {
  const std::size_t block = GemvColumnBlock(n, d);
  const std::size_t pairs = d / 2 * 2;
  std::fill(out, out + d, 0.0);
  for (std::size_t j0 = 0; j0 < n; j0 += block) {
    const std::size_t len = std::min(block, n - j0);
    std::size_t c = ColumnChunksSimd128<10>(x, d, s, j0, len, 0, out);
    c = ColumnChunksSimd128<4>(x, d, s, j0, len, c, out);
    ColumnChunksSimd128<1>(x, d, s, j0, len, c, out);
    if (pairs < d) {
      double b = 0.0;
      for (std::size_t j = j0; j < j0 + len; ++j) b = b + x[j * d + pairs] * s[j];
      out[pairs] = out[pairs] + b;
    }
  }
}

// One 4 x 4 tile of RankUpdatePortable below d4, rows i0.., columns j0..: two packets of rows
// times four splat columns, each entry a plain sum in t from +0, eight samples per loop test.
// A diagonal tile (i0 == j0) skips the two packets wholly above the diagonal.
template <bool kDiagonal>
inline void RankUpdateTileSimd128(const double* c, std::size_t k, std::size_t d, std::size_t i0,
                                  std::size_t j0, double* h) {
  v128_t c00 = wasm_f64x2_splat(0.0), c01 = c00, c10 = c00, c11 = c00;
  v128_t c20 = c00, c21 = c00, c30 = c00, c31 = c00;
  const auto step = [&](const double* ct) {
    const v128_t a0 = wasm_v128_load(ct + i0);
    const v128_t a1 = wasm_v128_load(ct + i0 + 2);
    const v128_t b0 = wasm_v128_load64_splat(ct + j0);
    const v128_t b1 = wasm_v128_load64_splat(ct + j0 + 1);
    const v128_t b2 = wasm_v128_load64_splat(ct + j0 + 2);
    const v128_t b3 = wasm_v128_load64_splat(ct + j0 + 3);
    c00 = wasm_f64x2_add(c00, wasm_f64x2_mul(a0, b0));
    c01 = wasm_f64x2_add(c01, wasm_f64x2_mul(a1, b0));
    c10 = wasm_f64x2_add(c10, wasm_f64x2_mul(a0, b1));
    c11 = wasm_f64x2_add(c11, wasm_f64x2_mul(a1, b1));
    if constexpr (!kDiagonal) c20 = wasm_f64x2_add(c20, wasm_f64x2_mul(a0, b2));
    c21 = wasm_f64x2_add(c21, wasm_f64x2_mul(a1, b2));
    if constexpr (!kDiagonal) c30 = wasm_f64x2_add(c30, wasm_f64x2_mul(a0, b3));
    c31 = wasm_f64x2_add(c31, wasm_f64x2_mul(a1, b3));
  };
  const double* ct = c;
  std::size_t t = 0;
  for (; t + 8 <= k; t += 8, ct += 8 * d) {  // in t order
    for (int u = 0; u < 8; ++u) step(ct + u * d);
  }
  for (; t < k; ++t, ct += d) step(ct);
  const v128_t acc[4][2] = {{c00, c01}, {c10, c11}, {c20, c21}, {c30, c31}};
  for (int q = 0; q < 4; ++q) {
    double* col = h + (j0 + q) * d + i0;
    if constexpr (!kDiagonal) {
      wasm_v128_store(col, wasm_f64x2_add(wasm_v128_load(col), acc[q][0]));
      wasm_v128_store(col + 2, wasm_f64x2_add(wasm_v128_load(col + 2), acc[q][1]));
    } else {  // the entries i >= j only
      double a[4];
      wasm_v128_store(a, acc[q][0]);
      wasm_v128_store(a + 2, acc[q][1]);
      for (int p = q; p < 4; ++p) col[p] = col[p] + a[p];
    }
  }
}

// RankUpdatePortable by the tiles above below d4, the rows from d4 on entry by entry.
inline void RankUpdateSimd128(const double* c, std::size_t k, std::size_t d, double* h) {
  const std::size_t d4 = d / 4 * 4;
  for (std::size_t j0 = 0; j0 < d4; j0 += 4) {
    RankUpdateTileSimd128<true>(c, k, d, j0, j0, h);
    for (std::size_t i0 = j0 + 4; i0 < d4; i0 += 4)
      RankUpdateTileSimd128<false>(c, k, d, i0, j0, h);
  }
  for (std::size_t i = d4; i < d; ++i) {
    for (std::size_t j = 0; j <= i; ++j)
      h[j * d + i] = h[j * d + i] + RankUpdateEntry(c, k, d, i, j);
  }
}
#endif

// h.selfadjointView<Eigen::Lower>().rankUpdate(c.topRows(k).transpose()), the same bits for
// k <= 128 (one depth block) and h summed from +0.
inline void RankUpdate(const DenseRows& c, Eigen::Index k, Eigen::MatrixXd& h) {
#if DPADMM_DENSE_SIMD128
  if (k >= 1 && k <= 128 && c.cols() >= 1) {
    RankUpdateSimd128(c.data(), static_cast<std::size_t>(k), static_cast<std::size_t>(c.cols()),
                      h.data());
    return;
  }
#endif
  h.selfadjointView<Eigen::Lower>().rankUpdate(c.topRows(k).transpose());
}

// out = X v, the bits of Eigen's `out.noalias() = X * v`.
inline void RowsTimes(const DenseRows& x, const Eigen::VectorXd& v, Eigen::ArrayXd& out) {
#if DPADMM_DENSE_SIMD128
  if (x.rows() >= 2 && x.cols() >= 1) {
    out.resize(x.rows());
    RowDotsSimd128(x.data(), static_cast<std::size_t>(x.rows()), static_cast<std::size_t>(x.cols()),
                   v.data(), out.data());
    return;
  }
#endif
  out.matrix().noalias() = x * v;
}

// out = X^T s, the bits of Eigen's `out.noalias() = X.transpose() * s`.
inline void RowsTransposedTimes(const DenseRows& x, const Eigen::ArrayXd& s, Eigen::VectorXd& out) {
#if DPADMM_DENSE_SIMD128
  if (x.cols() >= 2 && x.rows() >= 1) {
    out.resize(x.cols());
    ColumnSumsSimd128(x.data(), static_cast<std::size_t>(x.rows()),
                      static_cast<std::size_t>(x.cols()), s.data(), out.data());
    return;
  }
#endif
  out.noalias() = x.transpose() * s.matrix();
}

}  // namespace dpadmm::detail
