// SPDX-License-Identifier: Apache-2.0
// Newton's method for the local problem of every consensus variant (DESIGN.md, "Maths that
// keeps the code small"):
//
//   F(f) = sum_n w_n L(m_n) + (a/2)||f||^2 + g^T f,    m = X~ f,   X~ = diag(y) X,
//   gradient  X~^T (w .* L'(m)) + a f + g,
//   Hessian   X~^T diag(w .* L''(m)) X~ + a I.
//
// Where the time goes (Adult node: 6000 rows, 104 columns, 12 nonzeros per row):
//  * a step: margins of the step q = X~ p, per-sample value/L'/L'' at m + q, the gradient
//    X~^T (w .* L'). The trial margins are m + t q, so backtracking needs no product, and the
//    accepted point's margins carry over. For sparse rows the three are one fused pass
//    (FusedPass): X~ p by CSR rows, four rows at a time, then L, L', L'' of that 64-row block
//    while it is in L1 (logistic nodes with equal weights: an exp whose loop vectorises, same
//    bits at any vector width, and one log per 64 samples), then the
//    block's rows scattered into X~^T L' (four accumulators per column, in the order of the
//    column dot product it replaced: Impl::lanes), so a step reads the data once;
//  * forming the Hessian (O(nnz_row^2) per row, from the CSR rows) and factorising it costs
//    about two steps, so the factor is reused while it keeps working (hessian_reuse_ratio);
//  * the state at the returned f is kept: a solve warm-started from the previous solution
//    starts without a data pass.
#include "dpadmm/solver/local_solver.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "core/portable_math_impl.h"
#include "dpadmm/core/error.h"
#include "solver/dense_products.h"
#include "solver/logistic_block.h"
#include "solver/loss_kernels.h"

#include "core/numbers.h"

namespace dpadmm {
namespace {

using Eigen::Index;

constexpr double kEps = std::numeric_limits<double>::epsilon();

// Eigen keeps a product kernel's packing buffers on the stack up to 128 KiB
// (EIGEN_STACK_ALLOCATION_LIMIT) and on the heap above. The dense Hessian's rank updates are cut
// into row chunks whose buffers (chunk rows x columns doubles) stay under this size, and the
// Cholesky factorisation works on tiles, so that Solve() never allocates (for dense rows up to
// 8192 columns; beyond that a single-row chunk already exceeds the limit).
constexpr Index kStackDoubles = 8192;
// At most this many rows per rank update: Eigen splits a product's depth into blocks sized from
// the CPU's L1 cache (at least 248 for an L1 of 16 KiB or more), which would make the summation
// order, and the last bits of the Hessian, depend on the machine. Below that bound every
// machine (and the WebAssembly build) sums in the same order.
constexpr Index kMaxChunkRows = 128;
// Tile size of the Cholesky factorisation: 64 x 64 tiles, 4096 doubles per packed operand.
constexpr Index kTile = 64;
// The margins are updated incrementally (m += t X~ p). After this many such steps the state is
// recomputed from the data at the start of the next call, which bounds the rounding drift.
constexpr int kMaxIncrementalSteps = 256;
// Differences of F below this many ulps of the magnitudes summed in F are rounding noise; the
// Armijo test accepts them (otherwise a nearly converged solve backtracks on noise).
constexpr double kObjectiveNoiseUlps = 64.0;
// log(prod u) is taken every this many samples of the logistic loss sum (u in [1, 2], so the
// running product stays below 2^64).
constexpr std::int64_t kLogBlock = detail::kLogBlock;

std::string Num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

// Cholesky factorisation A = L L^T in place: reads the lower triangle and writes L there (the
// strict upper triangle of diagonal tiles is overwritten; L is only used through
// triangularView<Lower>). Left-looking over 64-wide tile columns so that every Eigen kernel
// works on tiles and keeps its scratch on the stack (Eigen::LLT allocates from ~400 columns).
// Returns false on a pivot that is not positive and finite.
bool CholeskyInPlace(Eigen::MatrixXd& A) {
  const Index n = A.rows();
  for (Index j = 0; j < n; j += kTile) {
    const Index jb = std::min(kTile, n - j);
    // A(j:, j:j+jb) -= L(j:, 0:j) L(j:j+jb, 0:j)^T, tile by tile.
    for (Index k = 0; k < j; k += kTile) {
      const Index kb = std::min(kTile, j - k);
      for (Index i = j; i < n; i += kTile) {
        const Index ib = std::min(kTile, n - i);
        A.block(i, j, ib, jb).noalias() -=
            A.block(i, k, ib, kb) * A.block(j, k, jb, kb).transpose();
      }
    }
    // Unblocked right-looking factorisation of the diagonal tile.
    auto diag = A.block(j, j, jb, jb);
    for (Index c = 0; c < jb; ++c) {
      const double pivot = diag(c, c);
      if (!(pivot > 0.0) || !std::isfinite(pivot)) return false;
      const double l = std::sqrt(pivot);
      diag(c, c) = l;
      diag.col(c).tail(jb - c - 1) /= l;
      for (Index cc = c + 1; cc < jb; ++cc) {
        diag.col(cc).tail(jb - cc) -= diag(cc, c) * diag.col(c).tail(jb - cc);
      }
    }
    // L(i, j) = A(i, j) L(j, j)^{-T} for the tiles below.
    for (Index i = j + jb; i < n; i += kTile) {
      const Index ib = std::min(kTile, n - i);
      diag.transpose().triangularView<Eigen::Upper>().solveInPlace<Eigen::OnTheRight>(
          A.block(i, j, ib, jb));
    }
  }
  return true;
}

// sum_k v[idx[k]] val[k] for k in [begin, end), added one after the other from 0 (the order of
// the column-by-column scatter this replaces, so the bits are the same).
inline double RowDot(const double* val, const std::int32_t* idx, std::int64_t begin,
                     std::int64_t end, const double* v) {
  double acc = 0.0;
  for (std::int64_t k = begin; k < end; ++k) acc += v[idx[k]] * val[k];
  return acc;
}

// out[j] = RowDot of row j (row_ptr[j] .. row_ptr[j + 1]) for j < rows, times sign[j] when
// `sign` is not null (the labels applied on the fly: Impl::csr_values). Four rows at a time,
// each with its own accumulator in its own order: a row's sum is a chain of dependent adds, and
// four chains in one loop keep the adder busy.
template <bool kSigned>
inline void RowDotsOf(const double* val, const std::int32_t* idx, const std::int32_t* row_ptr,
                      std::int64_t rows, const double* v, const double* sign, double* out) {
  std::int64_t j = 0;
  for (; j + 4 <= rows; j += 4) {
    const std::int64_t b0 = row_ptr[j], b1 = row_ptr[j + 1], b2 = row_ptr[j + 2];
    const std::int64_t b3 = row_ptr[j + 3], e3 = row_ptr[j + 4];
    const std::int64_t common = std::min({b1 - b0, b2 - b1, b3 - b2, e3 - b3});
    double a0 = 0.0, a1 = 0.0, a2 = 0.0, a3 = 0.0;
    for (std::int64_t k = 0; k < common; ++k) {
      a0 += v[idx[b0 + k]] * val[b0 + k];
      a1 += v[idx[b1 + k]] * val[b1 + k];
      a2 += v[idx[b2 + k]] * val[b2 + k];
      a3 += v[idx[b3 + k]] * val[b3 + k];
    }
    for (std::int64_t k = b0 + common; k < b1; ++k) a0 += v[idx[k]] * val[k];
    for (std::int64_t k = b1 + common; k < b2; ++k) a1 += v[idx[k]] * val[k];
    for (std::int64_t k = b2 + common; k < b3; ++k) a2 += v[idx[k]] * val[k];
    for (std::int64_t k = b3 + common; k < e3; ++k) a3 += v[idx[k]] * val[k];
    if constexpr (kSigned) {
      a0 *= sign[j];
      a1 *= sign[j + 1];
      a2 *= sign[j + 2];
      a3 *= sign[j + 3];
    }
    out[j] = a0;
    out[j + 1] = a1;
    out[j + 2] = a2;
    out[j + 3] = a3;
  }
  for (; j < rows; ++j) {
    const double a = RowDot(val, idx, row_ptr[j], row_ptr[j + 1], v);
    out[j] = kSigned ? a * sign[j] : a;
  }
}

inline void RowDots(const double* val, const std::int32_t* idx, const std::int32_t* row_ptr,
                    std::int64_t rows, const double* v, const double* sign, double* out) {
  if (sign != nullptr) {
    RowDotsOf<true>(val, idx, row_ptr, rows, v, sign, out);
  } else {
    RowDotsOf<false>(val, idx, row_ptr, rows, v, sign, out);
  }
}

// acc[4 idx[k] + lane_k] += val[k] (s_r sign_r) (sign null: val[k] s_r) for the entries k of
// rows [0, rows) (row_ptr relative to the block), rows in increasing order: X~^T s into four
// accumulators per column (Impl::lanes).
template <bool kSigned>
inline void ScatterRowsOf(const double* val, const std::int32_t* idx, const std::uint8_t* lanes,
                          const std::int32_t* row_ptr, std::int64_t rows, const double* s,
                          const double* sign, double* acc) {
  for (std::int64_t r = 0; r < rows; ++r) {
    const double sr = kSigned ? s[r] * sign[r] : s[r];
    for (std::int64_t k = row_ptr[r], e = row_ptr[r + 1]; k < e; ++k) {
      acc[4 * static_cast<std::int64_t>(idx[k]) + lanes[k]] += val[k] * sr;
    }
  }
}

inline void ScatterRows(const double* val, const std::int32_t* idx, const std::uint8_t* lanes,
                        const std::int32_t* row_ptr, std::int64_t rows, const double* s,
                        const double* sign, double* acc) {
  if (sign != nullptr) {
    ScatterRowsOf<true>(val, idx, lanes, row_ptr, rows, s, sign, acc);
  } else {
    ScatterRowsOf<false>(val, idx, lanes, row_ptr, rows, s, sign, acc);
  }
}

// out_c = (acc_4c + acc_4c+1) + (acc_4c+2 + acc_4c+3).
inline void GatherColumns(const double* acc, std::int64_t d, double* out) {
  for (std::int64_t c = 0; c < d; ++c) {
    const double* a = acc + 4 * c;
    out[c] = (a[0] + a[1]) + (a[2] + a[3]);
  }
}

}  // namespace

void NewtonOptions::Validate() const {
  auto fail = [](const std::string& field, const std::string& rule, const std::string& got) {
    throw InputError("newton." + field + " must be " + rule + ", got " + got);
  };
  if (max_iterations < 1) fail("max_iterations", ">= 1", std::to_string(max_iterations));
  if (!(gradient_tolerance >= 0.0) || !std::isfinite(gradient_tolerance)) {
    fail("gradient_tolerance", "finite and >= 0", Num(gradient_tolerance));
  }
  if (!(armijo_c > 0.0 && armijo_c < 0.5)) fail("armijo_c", "in (0, 0.5)", Num(armijo_c));
  if (!(backtrack > 0.0 && backtrack < 1.0)) fail("backtrack", "in (0, 1)", Num(backtrack));
  if (max_backtracks < 1) fail("max_backtracks", ">= 1", std::to_string(max_backtracks));
  if (dense_hessian_max_dim < 0) {
    fail("dense_hessian_max_dim", ">= 0", std::to_string(dense_hessian_max_dim));
  }
  if (max_cg_iterations < 1) fail("max_cg_iterations", ">= 1", std::to_string(max_cg_iterations));
  if (!(hessian_reuse_ratio >= 0.0 && hessian_reuse_ratio < 1.0)) {
    fail("hessian_reuse_ratio", "in [0, 1)", Num(hessian_reuse_ratio));
  }
  if (secant_pairs < 0 || secant_pairs > 64) {
    fail("secant_pairs", "in [0, 64]", std::to_string(secant_pairs));
  }
}

const char* ToString(SolveStatus s) {
  switch (s) {
    case SolveStatus::kConverged: return "converged";
    case SolveStatus::kMaxIterations: return "max_iterations";
    case SolveStatus::kLineSearchFailed: return "line_search_failed";
    case SolveStatus::kNonFinite: return "non_finite";
  }
  return "unknown";
}

struct LocalSolver::Impl {
  Impl(const Dataset& data, Eigen::VectorXd weights, Loss loss_in, NewtonOptions options);

  // --- Data: the rows y_n x_n, dense or CSR (column indices sorted within a row). Dense rows
  // are `dense_rows()`: a copy with the labels folded in, or (NewtonOptions::borrow_rows, labels
  // +-1) the caller's rows read in place, with y_n applied on the fly as for CSR (see csr_values).
  // ---
  std::int64_t n = 0;
  std::int64_t d = 0;
  bool sparse = false;
  DenseRows dense;                            // the copy (empty when read in place)
  const DenseRows* dense_in_place = nullptr;  // the caller's rows
  const DenseRows& dense_rows() const {
    return dense_in_place != nullptr ? *dense_in_place : dense;
  }
  mutable Eigen::ArrayXd signed_tmp;  // y .* s for X~^T s from rows read in place
  // Row r's entries are [row_ptr[r], row_ptr[r + 1]): the caller's own 32-bit row pointers when
  // the rows are read in place, else row_ptr_copy's (at most kMaxSparseIndex entries either way).
  const std::int32_t* row_ptr = nullptr;
  std::vector<std::int32_t> row_ptr_copy;
  std::vector<std::int32_t> col_idx;  // the CSR column indices when they are copied (else empty)
  const std::int32_t* csr_cols = nullptr;  // col_idx, or the caller's read in place
  std::vector<double> values;              // the CSR values when they are copied (else empty)
  // The CSR values: `values`, or the caller's rows read in place (NewtonOptions::borrow_rows).
  // With unit labels (every y_n = +-1) they are x, not y x: y_n multiplies row n's product and
  // the weights it scatters, which gives the bits of y x exactly (a sign flip is exact, and
  // rounding to nearest is symmetric), and no copy of the data needs the labels folded in.
  // Otherwise they are y x (a copy) and label_sign is empty.
  const double* csr_values = nullptr;
  bool rows_in_place = false;
  // y, when the labels are applied on the fly (else null): the caller's labels under
  // NewtonOptions::borrow_rows (which outlive the solver), else label_copy.
  const double* label_sign = nullptr;
  Eigen::ArrayXd label_copy;
  const double* sign() const { return label_sign; }
  void ApplyLabelsOnTheFly(const Dataset& data) {
    if (!opt.borrow_rows) label_copy = data.y.array();
    label_sign = opt.borrow_rows ? data.y.data() : label_copy.data();
  }
  Eigen::Map<const Eigen::ArrayXd> labels() const { return {label_sign, n}; }
  // X~^T s is scattered row by row from the CSR rows (no copy by column), into four
  // accumulators per column: entry k of the CSR rows, in column c, adds to accumulator 4 c + t,
  // where t is the entry's position among column c's entries, mod 4, for the first multiple
  // of four of them and 0 for the rest (lanes[k], a byte per entry). That is the summation
  // order of a column dot product with four accumulators (acc_t += entries t, t + 4, ...; the
  // tail to acc_0; then (acc_0 + acc_1) + (acc_2 + acc_3)), so the bits are those of the
  // column-by-column product. It also breaks the store-to-load chains of a plain row scatter:
  // consecutive rows that share a column update different accumulators.
  std::vector<std::uint8_t> lanes;
  mutable std::vector<double> acc4;  // 4 d accumulators of the scatter
  Eigen::VectorXd w;  // w_n (moved in, no copy); only w_0 when all are equal (uniform_weight)
  bool uniform_weight = true;  // every w_n equal (the consensus nodes' C / B_i)
  double weight(std::int64_t i) const { return uniform_weight ? w[0] : w[i]; }
  Loss loss;
  NewtonOptions opt;
  bool use_cholesky = false;

  // --- State at the point state_f (when state_valid). ---
  // margins X~ f, w .* L'(m), w .* L''(m); a lean solver keeps m only (dl, ddl empty).
  Eigen::ArrayXd m, dl, ddl;
  double loss_sum = 0.0;      // sum_n w_n L(m_n)
  Eigen::VectorXd data_grad;  // X~^T dl
  Eigen::VectorXd state_f;
  bool state_valid = false;
  int incremental_steps = 0;

  // --- Cholesky factor of the Hessian at some earlier point, formed with factor_a. ---
  Eigen::MatrixXd factor;
  bool factor_valid = false;
  double factor_a = 0.0;

  // --- Secant pairs of this solve (NewtonOptions::secant_pairs): column i of pair_s is an
  // accepted step s_i, of pair_y the gradient's change y_i over it, pair_rho[i] = 1 / y_i^T s_i;
  // the oldest is dropped when full. Cleared where the factor is formed and at every call. ---
  Eigen::MatrixXd pair_s, pair_y;
  Eigen::VectorXd pair_rho, pair_alpha;
  Eigen::VectorXd secant_y;  // the gradient's change over the step being recorded
  int pairs = 0;

  // --- Workspace, sized in the constructor. ---
  Eigen::ArrayXd mt, dlt, ddlt;     // trial point (a lean solver: mt only, see lean)
  Eigen::VectorXd trial_grad;       // X~^T dlt at the full step
  Eigen::ArrayXd q;                 // X~ p for the step p (empty in a lean solver)
  bool mt_is_step_product = false;  // a lean solver's mt holds X~ p, not the trial margins
  Eigen::ArrayXd sample_tmp;        // sized where used (dense Hessian, CG), else empty
  Eigen::VectorXd ft, grad, step;
  DenseRows chunk;  // scaled rows for the dense Hessian
  Eigen::VectorXd precond, cg_r, cg_z, cg_dir, cg_hd;

  // out = X~ v
  void Multiply(const Eigen::VectorXd& v, Eigen::ArrayXd& out) const;
  // out = X~^T s
  void MultiplyTransposed(const Eigen::ArrayXd& s, Eigen::VectorXd& out) const;
  // Returns sum_n w_n L(z_n); d1 = w .* L'(z), d2 = w .* L''(z).
  double Evaluate(const Eigen::ArrayXd& z, Eigen::ArrayXd& d1, Eigen::ArrayXd& d2) const;
  // The running sums of the loss over blocks of rows taken in order: the logistic loss with
  // equal weights in block-product form (detail::LogisticSums), every other case a plain sum.
  struct BlockSums {
    detail::LogisticSums logistic;
    double plain = 0.0;
  };
  // Rows [b, b + len) of Evaluate (b a multiple of kLogBlock, len <= kLogBlock), at margins
  // z[0..len): d1, d2 for those rows, their loss added to `sums`. Evaluate is these blocks in
  // order, so any pass made of them gives its bits.
  void EvaluateBlock(const double* z, std::int64_t b, std::int64_t len, double* d1, double* d2,
                     BlockSums& sums) const;
  double Total(BlockSums& sums) const {
    return loss.kind == LossKind::kLogistic && uniform_weight
               ? sums.logistic.Total(n > 0 ? w[0] : 0.0)
               : sums.plain;
  }
  // The fused pass of sparse rows: block by block of kLogBlock rows, the rows' margins
  // z = base + X~ v (base null: z = X~ v; X~ v also goes to `product` when it is not null), then
  // (d1, d2) and the loss sum at z, then the block's rows scattered into gradient = X~^T d1, all
  // while the block is in L1: one pass over the data. Same values, bits and summation order as
  // Multiply, Evaluate, MultiplyTransposed. A null z, d1 or d2 is kept for the block only (a lean
  // solver's).
  double FusedPass(const Eigen::VectorXd& v, const Eigen::ArrayXd* base, Eigen::ArrayXd* product,
                   Eigen::ArrayXd* z, Eigen::ArrayXd* d1, Eigen::ArrayXd* d2,
                   Eigen::VectorXd& gradient) const;
  // A lean solver (sparse rows with a Cholesky step: the consensus nodes', the centralized
  // optimum's) keeps two per-row arrays, m and mt, where the others keep seven. w .* L' and
  // w .* L'' are recomputed from m block by block where they are read: forming the Hessian
  // (about one step in ten with a reused factor), a backtracked step's gradient, a checkpoint.
  // The full step's margins m + X~ p go to mt, which becomes m on acceptance (a swap). A
  // backtrack (rare) forms q = X~ p into mt again (one more product; the same bits as the
  // fused pass's, row by row), then the margins m + t q block by block, and m += t q on
  // acceptance. Same values, so the same bits: L' and L'' are functions of the margins alone,
  // and m + t q is the same sum either way.
  bool lean = false;
  // Calls fn(b, len, d1, d2) for the blocks of kLogBlock rows in order, with d1, d2 = w .* L',
  // w .* L'' of rows [b, b + len) at the margins m.
  template <class Fn>
  void ForEachBlockAtMargins(Fn&& fn) const;
  // The full step: q = X~ step, mt = m + q, (dlt, ddlt) there, trial_grad = X~^T dlt.
  // Returns the loss sum at mt.
  double FullStepTrial();
  // Backtracked step: mt = m + t q, (dlt, ddlt) there. Returns the loss sum at mt.
  double ScaledStepTrial(double t);
  // factor (lower triangle) = X~^T diag(ddl) X~ + a I.
  void FormHessian(double a);
  // out = (X~^T diag(ddl) X~ + a I) v; clobbers sample_tmp.
  void HessianTimes(double a, const Eigen::VectorXd& v, Eigen::VectorXd& out);
  // step = -B^{-1} grad: B is the factor's Hessian updated by the secant pairs (BFGS, the
  // two-loop recursion with the factor's solves in the middle; no pairs: the factor's solve).
  void FactorStep();
  // Records the accepted step s (= ft - f) and the gradient's change y over it.
  void AddSecantPair(const Eigen::VectorXd& s, const Eigen::VectorXd& y);
  // Truncated Newton: preconditioned CG on H step = -grad.
  void ConjugateGradientStep(double a, double grad_norm);
  // Brings (m, dl, ddl, loss_sum, data_grad) to the point f.
  void EnsureState(const Eigen::VectorXd& f);
  // data_grad = X~^T dl at the margins m (after a backtracked step, whose gradient the trial did
  // not form): a lean solver forms dl block by block as it scatters.
  void GradientAtMargins();

  SolveReport Solve(double a, const Eigen::VectorXd& g, Eigen::VectorXd& f);
};

namespace {

// Estimated time per Newton step, in units of one scalar multiply-add of a sparse kernel, for
// rows stored one way (`csr`), with `row_nnz` the nonzeros of each row:
//   data passes: one per step (the fused margins-and-gradient pass) plus about one more for the
//                line search's trial point and the Hessian-vector work the steps share;
//   Cholesky:    (form the Hessian + factorise) / (steps per factor) + two triangular solves;
//   CG:          iterations x (one Hessian-vector product = two passes, + vector updates).
// A pass costs nnz (CSR) or n d / 2 (dense: Eigen's vectorised products run about twice as fast
// per entry). Forming the Hessian costs nnz_r (nnz_r + 1) / 2 per row (CSR) or, for dense rows,
// d (d + 1) / 2 per row at the speed of Eigen's blocked rank update; the factorisation d^3 / 3
// at blocked speed. A factor serves about four steps with hessian_reuse_ratio > 0 (Adult: 1.9
// factorisations per 18.9 steps; four is the cautious figure), one without. CG takes, on the
// consensus problems measured (bench_newton_cg), 10-30 iterations per step. The constants come
// from bench_newton_cg (NewtonDirection, and RowStorage for the storage) on an x86-64 core; the
// choices are fixed for a given solver (data shape and options), so results do not depend on
// the machine.
struct StepCost {
  double passes = 0.0;    // the data passes every step makes
  double cholesky = 0.0;  // the Newton direction by Cholesky
  double cg = 0.0;        // the Newton direction by CG
};

StepCost EstimateStepCost(bool csr, std::int64_t n, std::int64_t d,
                          const std::vector<std::int64_t>& row_nnz, const NewtonOptions& opt) {
  constexpr double kBlockedSpeedup = 4.0;  // blocked dense kernels vs scalar sparse loops
  constexpr double kCgIterations = 20.0;
  constexpr double kPassesPerStep = 2.0;
  const double dd = static_cast<double>(d);
  double form = 0.0;
  double pass = 0.0;
  if (csr) {
    for (std::int64_t k : row_nnz) {
      const double kk = static_cast<double>(k);
      form += 0.5 * kk * (kk + 1.0);
      pass += kk;
    }
  } else {
    form = static_cast<double>(n) * 0.5 * dd * (dd + 1.0) / kBlockedSpeedup;
    pass = static_cast<double>(n) * dd / 2.0;
  }
  const double factorise = dd * dd * dd / 3.0 / kBlockedSpeedup;
  const double steps_per_factor = opt.hessian_reuse_ratio > 0.0 ? 4.0 : 1.0;
  StepCost c;
  c.passes = kPassesPerStep * pass;
  c.cholesky = (form + factorise) / steps_per_factor + 2.0 * dd * dd;
  c.cg =
      std::min(kCgIterations, static_cast<double>(opt.max_cg_iterations)) * (2.0 * pass + 6.0 * dd);
  return c;
}

// Whether `x` can be read in place as the solver's CSR: compressed with columns increasing, and
// no stored zeros (`stored` counts the nonzeros).
bool CsrInPlace(const SparseRows& x, std::int64_t stored) {
  return x.nonZeros() == stored && ColumnsIncreasing(x);
}

// Whether the Newton direction is Cholesky (else CG) for rows stored this way.
bool UsesCholesky(const StepCost& c, std::int64_t d, const NewtonOptions& opt) {
  return d <= opt.dense_hessian_max_dim && (!opt.newton_cost_model || c.cholesky <= c.cg);
}

}  // namespace

LocalSolver::Impl::Impl(const Dataset& data, Eigen::VectorXd weights, Loss loss_in,
                        NewtonOptions options)
    : w(std::move(weights)), loss(loss_in), opt(options) {
  opt.Validate();
  if (loss.kind == LossKind::kSmoothHinge && !(loss.huber_h > 0.0 && std::isfinite(loss.huber_h))) {
    throw InputError("loss.huber_h must be finite and > 0, got " + Num(loss.huber_h));
  }
  VisitRows(data, [&](const auto& x) {
    n = static_cast<std::int64_t>(x.rows());
    d = static_cast<std::int64_t>(x.cols());
  });
  if (data.y.size() != n) {
    throw InputError("LocalSolver: " + std::to_string(data.y.size()) + " labels for " +
                     std::to_string(n) + " rows");
  }
  if (w.size() != n) {
    throw InputError("LocalSolver: " + std::to_string(w.size()) + " weights for " +
                     std::to_string(n) + " rows");
  }
  for (std::int64_t r = 0; r < n; ++r) {
    if (w[r] != w[0]) uniform_weight = false;
    if (!(w[r] >= 0.0) || !std::isfinite(w[r])) {
      throw InputError("LocalSolver: weight of row " + std::to_string(r) + " is " + Num(w[r]) +
                       " (must be finite and >= 0)");
    }
    if (!std::isfinite(data.y[r])) {
      throw InputError("LocalSolver: label of row " + std::to_string(r) + " is not finite");
    }
  }
  if (uniform_weight && n > 1) {  // kept once; freed whole, so the next per-row array reuses it
    const double w0 = w[0];
    w.resize(1);
    w[0] = w0;
  }

  // The input's values must be finite (explicit zeros of sparse input are dropped, so they are
  // not checked), and its nonzeros per row feed the storage cost model.
  const auto* sparse_in = std::get_if<SparseRows>(&data.x);
  const auto* dense_in = std::get_if<DenseRows>(&data.x);
  std::vector<std::int64_t> row_nnz(static_cast<std::size_t>(n), 0);
  if (sparse_in != nullptr) {
    for (std::int64_t r = 0; r < n; ++r) {
      for (SparseRows::InnerIterator it(*sparse_in, r); it; ++it) {
        if (it.value() == 0.0) continue;
        if (!std::isfinite(it.value())) {
          throw InputError("LocalSolver: row " + std::to_string(r) + " has a non-finite value");
        }
        ++row_nnz[static_cast<std::size_t>(r)];
      }
    }
  } else {
    if (!dense_in->allFinite()) throw InputError("LocalSolver: data has a non-finite value");
    for (std::int64_t r = 0; r < n; ++r) {
      row_nnz[static_cast<std::size_t>(r)] = (dense_in->row(r).array() != 0.0).count();
    }
  }
  std::int64_t total = 0;  // the nonzeros
  for (std::int64_t k : row_nnz) total += k;
  switch (opt.row_storage) {
    case NewtonOptions::RowStorage::kDense: sparse = false; break;
    case NewtonOptions::RowStorage::kCsr: sparse = true; break;
    case NewtonOptions::RowStorage::kAuto: {
      const auto per_step = [&](bool csr) {
        const StepCost c = EstimateStepCost(csr, n, d, row_nnz, opt);
        return c.passes + (UsesCholesky(c, d, opt) ? c.cholesky : c.cg);
      };
      sparse = total <= kMaxSparseIndex && per_step(true) < per_step(false);
      break;
    }
  }
  use_cholesky = UsesCholesky(EstimateStepCost(sparse, n, d, row_nnz, opt), d, opt);
  std::vector<std::int64_t>().swap(row_nnz);  // freed before the arrays the solver keeps

  if (d > kMaxColumns) {
    throw InputError((data.name.empty() ? std::string("LocalSolver") : data.name) + ": " +
                     std::to_string(d) + " columns, above the limit of " +
                     std::to_string(kMaxColumns));
  }
  const bool unit_labels = (data.y.array().abs() == 1.0).all();
  if (sparse) {
    if (n > std::numeric_limits<std::int32_t>::max()) {
      throw InputError("LocalSolver: too many rows (" + std::to_string(n) + ")");
    }
    const bool borrow =
        opt.borrow_rows && unit_labels && sparse_in != nullptr && CsrInPlace(*sparse_in, total);
    if (unit_labels) ApplyLabelsOnTheFly(data);
    if (total > kMaxSparseIndex) {
      throw InputError("LocalSolver: " + std::to_string(total) + " nonzeros, above the limit of " +
                       std::to_string(kMaxSparseIndex) + " for rows stored as CSR");
    }
    if (!borrow) {
      row_ptr_copy.assign(static_cast<std::size_t>(n) + 1, 0);
      col_idx.reserve(static_cast<std::size_t>(total));
      values.reserve(static_cast<std::size_t>(total));
    }
    std::vector<std::pair<std::int32_t, double>> row;
    for (std::int64_t r = 0; r < n && !borrow; ++r) {
      row.clear();
      const double fold = unit_labels ? 1.0 : data.y[r];
      if (sparse_in != nullptr) {
        for (SparseRows::InnerIterator it(*sparse_in, r); it; ++it) {
          if (it.value() == 0.0) continue;
          row.emplace_back(static_cast<std::int32_t>(it.col()), fold * it.value());
        }
        std::sort(row.begin(), row.end(),
                  [](const auto& u, const auto& v) { return u.first < v.first; });
      } else {
        for (std::int64_t c = 0; c < d; ++c) {
          const double v = (*dense_in)(r, c);
          if (v != 0.0) row.emplace_back(static_cast<std::int32_t>(c), fold * v);
        }
      }
      for (const auto& [c, v] : row) {
        col_idx.push_back(c);
        values.push_back(v);
      }
      row_ptr_copy[static_cast<std::size_t>(r) + 1] = static_cast<std::int32_t>(col_idx.size());
    }
    row_ptr = borrow ? sparse_in->outerIndexPtr() : row_ptr_copy.data();
    csr_cols = borrow ? sparse_in->innerIndexPtr() : col_idx.data();
    csr_values = borrow ? sparse_in->valuePtr() : values.data();
    rows_in_place = borrow;
    std::vector<std::int64_t> count(static_cast<std::size_t>(d), 0);
    const auto entries = static_cast<std::size_t>(total);
    for (std::size_t k = 0; k < entries; ++k) ++count[static_cast<std::size_t>(csr_cols[k])];
    std::vector<std::int64_t> seen(static_cast<std::size_t>(d), 0);
    lanes.resize(entries);
    for (std::size_t k = 0; k < entries; ++k) {
      const auto c = static_cast<std::size_t>(csr_cols[k]);
      const std::int64_t pos = seen[c]++;
      lanes[k] = static_cast<std::uint8_t>(pos < (count[c] / 4) * 4 ? pos % 4 : 0);
    }
    acc4.assign(static_cast<std::size_t>(4 * d), 0.0);
  } else if (opt.borrow_rows && dense_in != nullptr && unit_labels) {
    // y_n applied on the fly, which gives the bits of y x exactly (as for CSR above): in X~ v
    // and X~^T s it multiplies a row's product and the weight a row scatters; the Hessian and the
    // preconditioner need no labels, because y_n^2 = 1 (both use products of two entries of one
    // row, or squares).
    dense_in_place = dense_in;
    rows_in_place = true;
    ApplyLabelsOnTheFly(data);
    signed_tmp.setZero(n);
  } else {
    if (dense_in != nullptr) {
      dense = *dense_in;
    } else {
      dense = DenseRows(*sparse_in);
    }
    for (std::int64_t r = 0; r < n; ++r) dense.row(r) *= data.y[r];
  }

  lean = sparse && use_cholesky;
  for (Eigen::ArrayXd* v : {&m, &mt}) v->setZero(n);
  if (!lean) {
    for (Eigen::ArrayXd* v : {&dl, &ddl, &q, &dlt, &ddlt}) v->setZero(n);
  }
  for (Eigen::VectorXd* v : {&data_grad, &state_f, &trial_grad, &ft, &grad, &step, &precond, &cg_r,
                             &cg_z, &cg_dir, &cg_hd}) {
    v->setZero(d);
  }
  if (use_cholesky) {
    factor.setZero(d, d);
    pair_s.setZero(d, opt.secant_pairs);
    pair_y.setZero(d, opt.secant_pairs);
    pair_rho.setZero(opt.secant_pairs);
    pair_alpha.setZero(opt.secant_pairs);
    if (opt.secant_pairs > 0) secant_y.setZero(d);
    if (!sparse && d > 0) {
      chunk.setZero(std::max<Index>(1, std::min<Index>({n, kStackDoubles / d, kMaxChunkRows})), d);
    }
  }
}

void LocalSolver::Impl::Multiply(const Eigen::VectorXd& v, Eigen::ArrayXd& out) const {
  if (!sparse) {
    detail::RowsTimes(dense_rows(), v, out);
    if (dense_in_place != nullptr) out *= labels();
    return;
  }
  // By row (CSR, columns ascending): out_r = sum_k v_{c_k} X~(r, c_k), added in column order
  // from 0. The rows are independent, so several are in flight at once; v (d doubles) stays in
  // L1 while the rows stream.
  RowDots(csr_values, csr_cols, row_ptr, n, v.data(), sign(), out.data());
}

void LocalSolver::Impl::MultiplyTransposed(const Eigen::ArrayXd& s, Eigen::VectorXd& out) const {
  if (!sparse) {
    if (dense_in_place != nullptr) {
      signed_tmp = s * labels();
      detail::RowsTransposedTimes(dense_rows(), signed_tmp, out);
    } else {
      detail::RowsTransposedTimes(dense, s, out);
    }
    return;
  }
  std::fill(acc4.begin(), acc4.end(), 0.0);
  ScatterRows(csr_values, csr_cols, lanes.data(), row_ptr, n, s.data(), sign(), acc4.data());
  GatherColumns(acc4.data(), d, out.data());
}

void LocalSolver::Impl::EvaluateBlock(const double* z, std::int64_t b, std::int64_t len, double* d1,
                                      double* d2, BlockSums& sums) const {
  if (loss.kind != LossKind::kLogistic) {
    for (std::int64_t j = 0; j < len; ++j) {
      const double wi = weight(b + j);
      sums.plain += wi * detail::LossValue(loss, z[j]);
      d1[j] = wi * detail::LossD1(loss, z[j]);
      d2[j] = wi * detail::LossD2(loss, z[j]);
    }
    return;
  }
  // The formulas of Loss sharing one exp per sample, e = exp(-|z|), u = 1 + e:
  //   L = max(-z, 0) + log1p(e),  L' = -(z > 0 ? e : 1) / u,  L'' = e / u^2.
  // With equal weights the log1p terms are summed as logs of block products,
  //   sum_n log1p(e_n) = sum_blocks log(prod u_n) - sum_n ((u_n - 1) - e_n) / u_n,
  // where the second sum corrects the rounding of u_n = fl(1 + e_n) exactly to first order
  // ((u - 1) - e is exact). This replaces a log1p per sample, the dearest part of a step, by
  // one log per kLogBlock samples; the product's rounding (<= kLogBlock ulps) is below that of
  // summing the per-sample values.
  if (uniform_weight) {
    detail::LogisticBlock(z, len, w[0], d1, d2, sums.logistic);
    return;
  }
  for (std::int64_t j = 0; j < len; ++j) {
    const double wi = w[b + j];
    const double zi = z[j];
    const double e = math::impl::Exp(-std::abs(zi));
    const double inv = 1.0 / (1.0 + e);
    sums.plain += wi * (std::max(-zi, 0.0) + math::impl::Log1p(e));
    const double positive = static_cast<double>(zi > 0.0);
    d1[j] = -wi * (positive * e + (1.0 - positive)) * inv;
    d2[j] = wi * e * inv * inv;
  }
}

double LocalSolver::Impl::Evaluate(const Eigen::ArrayXd& z, Eigen::ArrayXd& d1,
                                   Eigen::ArrayXd& d2) const {
  BlockSums sums;
  for (std::int64_t b = 0; b < n; b += kLogBlock) {
    const std::int64_t len = std::min(kLogBlock, n - b);
    EvaluateBlock(z.data() + b, b, len, d1.data() + b, d2.data() + b, sums);
  }
  return Total(sums);
}

double LocalSolver::Impl::FusedPass(const Eigen::VectorXd& v, const Eigen::ArrayXd* base,
                                    Eigen::ArrayXd* product, Eigen::ArrayXd* z, Eigen::ArrayXd* d1,
                                    Eigen::ArrayXd* d2, Eigen::VectorXd& gradient) const {
  const double* val = csr_values;
  const std::int32_t* idx = csr_cols;
  const double* vp = v.data();
  const std::int32_t* rp = row_ptr;
  const double* sg = sign();
  double z_block[kLogBlock], d1_block[kLogBlock], d2_block[kLogBlock];
  BlockSums sums;
  std::fill(acc4.begin(), acc4.end(), 0.0);
  for (std::int64_t b = 0; b < n; b += kLogBlock) {
    const std::int64_t len = std::min(kLogBlock, n - b);
    const double* block_sign = sg != nullptr ? sg + b : nullptr;
    double* xv = z != nullptr ? z->data() + b : z_block;
    double* d1p = d1 != nullptr ? d1->data() + b : d1_block;
    double* d2p = d2 != nullptr ? d2->data() + b : d2_block;
    RowDots(val, idx, rp + b, len, vp, block_sign, xv);
    if (product != nullptr) std::copy(xv, xv + len, product->data() + b);
    if (base != nullptr) {
      const double* bp = base->data() + b;
      for (std::int64_t j = 0; j < len; ++j) xv[j] = bp[j] + xv[j];
    }
    EvaluateBlock(xv, b, len, d1p, d2p, sums);
    ScatterRows(val, idx, lanes.data(), rp + b, len, d1p, block_sign, acc4.data());
  }
  GatherColumns(acc4.data(), d, gradient.data());
  return Total(sums);
}

template <class Fn>
void LocalSolver::Impl::ForEachBlockAtMargins(Fn&& fn) const {
  double d1[kLogBlock], d2[kLogBlock];
  BlockSums sums;
  for (std::int64_t b = 0; b < n; b += kLogBlock) {
    const std::int64_t len = std::min(kLogBlock, n - b);
    EvaluateBlock(m.data() + b, b, len, d1, d2, sums);
    fn(b, len, d1, d2);
  }
}

double LocalSolver::Impl::FullStepTrial() {
  if (lean) {
    mt_is_step_product = false;
    return FusedPass(step, &m, nullptr, &mt, nullptr, nullptr, trial_grad);
  }
  if (sparse) return FusedPass(step, &m, &q, &mt, &dlt, &ddlt, trial_grad);
  Multiply(step, q);
  mt = m + q;
  const double sum = Evaluate(mt, dlt, ddlt);
  MultiplyTransposed(dlt, trial_grad);
  return sum;
}

double LocalSolver::Impl::ScaledStepTrial(double t) {
  if (lean) {  // q = X~ p into mt, then the blocks of m + t q, each evaluated and dropped
    if (!mt_is_step_product) {
      Multiply(step, mt);
      mt_is_step_product = true;
    }
    double z[kLogBlock], d1[kLogBlock], d2[kLogBlock];
    BlockSums sums;
    for (std::int64_t b = 0; b < n; b += kLogBlock) {
      const std::int64_t len = std::min(kLogBlock, n - b);
      for (std::int64_t j = 0; j < len; ++j) z[j] = m[b + j] + t * mt[b + j];
      EvaluateBlock(z, b, len, d1, d2, sums);
    }
    return Total(sums);
  }
  mt = m + t * q;
  return Evaluate(mt, dlt, ddlt);
}

void LocalSolver::Impl::FormHessian(double a) {
  factor.setZero();
  if (sparse) {
    // Lower triangle, column-major: entry (k, j), k >= j, is h[j * d + k]. Column indices are
    // sorted within a row, so idx[k] >= idx[p] for k >= p. Four columns p..p+3 are updated
    // together so that each (idx[k], val[k]) is loaded once per four updates.
    // Raw or label-folded values give the same products: y_n^2 = 1.
    double* h = factor.data();
    const double* val = csr_values;
    const std::int32_t* idx = csr_cols;
    // Row r's terms, scaled by s = ddl[r].
    const auto add_row = [&](std::int64_t r, double s) {
      if (s == 0.0) return;
      const std::int64_t end = row_ptr[r + 1];
      std::int64_t p = row_ptr[r];
      for (; p + 4 <= end; p += 4) {
        const std::int64_t j0 = idx[p], j1 = idx[p + 1], j2 = idx[p + 2], j3 = idx[p + 3];
        const double v0 = val[p], v1 = val[p + 1], v2 = val[p + 2], v3 = val[p + 3];
        const double c0 = s * v0, c1 = s * v1, c2 = s * v2, c3 = s * v3;
        double* col0 = h + j0 * d;
        double* col1 = h + j1 * d;
        double* col2 = h + j2 * d;
        double* col3 = h + j3 * d;
        col0[j0] += c0 * v0;
        col0[j1] += c0 * v1;
        col0[j2] += c0 * v2;
        col0[j3] += c0 * v3;
        col1[j1] += c1 * v1;
        col1[j2] += c1 * v2;
        col1[j3] += c1 * v3;
        col2[j2] += c2 * v2;
        col2[j3] += c2 * v3;
        col3[j3] += c3 * v3;
        for (std::int64_t k = p + 4; k < end; ++k) {
          const std::int64_t j = idx[k];
          const double v = val[k];
          col0[j] += c0 * v;
          col1[j] += c1 * v;
          col2[j] += c2 * v;
          col3[j] += c3 * v;
        }
      }
      for (; p < end; ++p) {
        const double c = s * val[p];
        double* col = h + static_cast<std::int64_t>(idx[p]) * d;
        for (std::int64_t k = p; k < end; ++k) col[idx[k]] += c * val[k];
      }
    };
    if (lean) {
      ForEachBlockAtMargins([&](std::int64_t b, std::int64_t len, const double*, const double* d2) {
        for (std::int64_t j = 0; j < len; ++j) add_row(b + j, d2[j]);
      });
    } else {
      for (std::int64_t r = 0; r < n; ++r) add_row(r, ddl[r]);
    }
  } else if (d > 0) {
    // Rank updates with chunks of rows scaled by sqrt(w L'').
    sample_tmp = ddl.sqrt();
    const Index rows = chunk.rows();
    for (Index r0 = 0; r0 < n; r0 += rows) {
      const Index rb = std::min<Index>(rows, n - r0);
      // One product per entry: the same bits in any loop form.
      const double* x = dense_rows().data() + r0 * d;
      double* y = chunk.data();
      for (Index r = 0; r < rb; ++r) {
        const double sr = sample_tmp[r0 + r];
        for (Index j = 0; j < d; ++j) y[r * d + j] = sr * x[r * d + j];
      }
      detail::RankUpdate(chunk, rb, factor);
    }
  }
  factor.diagonal().array() += a;
}

void LocalSolver::Impl::HessianTimes(double a, const Eigen::VectorXd& v, Eigen::VectorXd& out) {
  sample_tmp.resize(n);
  Multiply(v, sample_tmp);
  sample_tmp *= ddl;
  MultiplyTransposed(sample_tmp, out);
  out += a * v;
}

void LocalSolver::Impl::FactorStep() {
  step = -grad;
  for (int i = pairs - 1; i >= 0; --i) {
    pair_alpha[i] = pair_rho[i] * pair_s.col(i).dot(step);
    step -= pair_alpha[i] * pair_y.col(i);
  }
  factor.triangularView<Eigen::Lower>().solveInPlace(step);
  factor.triangularView<Eigen::Lower>().transpose().solveInPlace(step);
  for (int i = 0; i < pairs; ++i) {
    const double beta = pair_rho[i] * pair_y.col(i).dot(step);
    step += (pair_alpha[i] - beta) * pair_s.col(i);
  }
}

void LocalSolver::Impl::AddSecantPair(const Eigen::VectorXd& s, const Eigen::VectorXd& y) {
  const int capacity = static_cast<int>(pair_rho.size());
  const double ys = y.dot(s);
  // The objective is strongly convex (a > 0), so y^T s >= a ||s||^2 but for rounding: a pair
  // that does not show it is noise and is not kept (BFGS needs y^T s > 0).
  if (capacity == 0 || !(ys > 0.5 * factor_a * s.squaredNorm()) || !std::isfinite(ys)) return;
  if (pairs == capacity) {
    for (int i = 1; i < capacity; ++i) {
      pair_s.col(i - 1) = pair_s.col(i);
      pair_y.col(i - 1) = pair_y.col(i);
      pair_rho[i - 1] = pair_rho[i];
    }
    --pairs;
  }
  pair_s.col(pairs) = s;
  pair_y.col(pairs) = y;
  pair_rho[pairs] = 1.0 / ys;
  ++pairs;
}

void LocalSolver::Impl::ConjugateGradientStep(double a, double grad_norm) {
  if (lean) {  // a failed factorisation's fallback: ddl is formed for CG (and kept)
    ddl.resize(n);
    ForEachBlockAtMargins([&](std::int64_t b, std::int64_t len, const double*, const double* d2) {
      std::copy(d2, d2 + len, ddl.data() + b);
    });
  }
  // Jacobi preconditioner: diag(H)_j = a + sum_n ddl_n x_nj^2.
  precond.setConstant(a);
  if (sparse) {
    for (std::int64_t r = 0; r < n; ++r) {
      const double s = ddl[r];
      if (s == 0.0) continue;
      for (std::int64_t p = row_ptr[r], e = row_ptr[r + 1]; p < e; ++p) {
        precond[csr_cols[p]] += s * csr_values[p] * csr_values[p];
      }
    }
  } else {
    for (std::int64_t r = 0; r < n; ++r) {
      precond.array() += ddl[r] * dense_rows().row(r).transpose().array().square();
    }
  }
  // Forcing term: stop at ||H step + grad|| <= min(0.5, sqrt(||grad||)) ||grad||, which keeps
  // the local convergence superlinear.
  const double target = std::min(0.5, std::sqrt(grad_norm)) * grad_norm;
  step.setZero();
  cg_r = -grad;
  cg_z = cg_r.cwiseQuotient(precond);
  cg_dir = cg_z;
  double rz = cg_r.dot(cg_z);
  for (int k = 0; k < opt.max_cg_iterations; ++k) {
    HessianTimes(a, cg_dir, cg_hd);
    const double curvature = cg_dir.dot(cg_hd);
    if (!(curvature > 0.0) || !std::isfinite(curvature)) break;
    const double alpha = rz / curvature;
    step += alpha * cg_dir;
    cg_r -= alpha * cg_hd;
    if (cg_r.norm() <= target) break;
    cg_z = cg_r.cwiseQuotient(precond);
    const double rz_next = cg_r.dot(cg_z);
    cg_dir = cg_z + (rz_next / rz) * cg_dir;
    rz = rz_next;
  }
}

void LocalSolver::Impl::GradientAtMargins() {
  if (!lean) {
    MultiplyTransposed(dl, data_grad);
    return;
  }
  std::fill(acc4.begin(), acc4.end(), 0.0);
  ForEachBlockAtMargins([&](std::int64_t b, std::int64_t len, const double* d1, const double*) {
    ScatterRows(csr_values, csr_cols, lanes.data(), row_ptr + b, len, d1,
                sign() != nullptr ? sign() + b : nullptr, acc4.data());
  });
  GatherColumns(acc4.data(), d, data_grad.data());
}

void LocalSolver::Impl::EnsureState(const Eigen::VectorXd& f) {
  if (state_valid && incremental_steps <= kMaxIncrementalSteps &&
      (f.array() == state_f.array()).all()) {
    return;
  }
  if (lean) {
    loss_sum = FusedPass(f, nullptr, nullptr, &m, nullptr, nullptr, data_grad);
  } else if (sparse) {
    loss_sum = FusedPass(f, nullptr, nullptr, &m, &dl, &ddl, data_grad);
  } else {
    Multiply(f, m);
    loss_sum = Evaluate(m, dl, ddl);
    MultiplyTransposed(dl, data_grad);
  }
  state_f = f;
  state_valid = true;
  incremental_steps = 0;
}

SolveReport LocalSolver::Impl::Solve(double a, const Eigen::VectorXd& g, Eigen::VectorXd& f) {
  if (g.size() != d) {
    throw InputError("LocalSolver::Solve: g has " + std::to_string(g.size()) +
                     " entries, expected " + std::to_string(d));
  }
  if (f.size() == 0 && d > 0) f.setZero(d);
  if (f.size() != d) {
    throw InputError("LocalSolver::Solve: f has " + std::to_string(f.size()) +
                     " entries, expected " + std::to_string(d) + " (or 0 for a cold start)");
  }
  SolveReport report;
  if (!std::isfinite(a) || !g.allFinite() || !f.allFinite()) {
    report.status = SolveStatus::kNonFinite;
    report.gradient_norm = report.objective = report.loss_sum = kNaN;
    return report;
  }
  if (!(a > 0.0)) throw InputError("LocalSolver::Solve: a must be > 0, got " + Num(a));

  EnsureState(f);
  const double g_norm = g.norm();
  const bool reuse = opt.hessian_reuse_ratio > 0.0;
  // The factor left by an earlier step or call is tried first (if formed with this a). A step
  // made with such a lagged factor must cut the gradient norm by hessian_reuse_ratio at full
  // length; otherwise the Hessian is re-formed at the current point.
  bool stale = !reuse;
  bool last_lagged = false;
  bool last_full = true;
  double last_grad_norm = 0.0;
  pairs = 0;
  for (;;) {
    grad = data_grad + a * f + g;
    const double grad_norm = grad.norm();
    const double f_sq = f.squaredNorm();
    const double g_dot_f = g.dot(f);
    const double objective = loss_sum + 0.5 * a * f_sq + g_dot_f;
    report.gradient_norm = grad_norm;
    report.objective = objective;
    report.loss_sum = loss_sum;
    if (!std::isfinite(objective) || !std::isfinite(grad_norm)) {
      report.status = SolveStatus::kNonFinite;
      break;
    }
    if (grad_norm <= opt.gradient_tolerance * std::max(1.0, g_norm + a * std::sqrt(f_sq))) {
      report.status = SolveStatus::kConverged;
      break;
    }
    if (report.iterations >= opt.max_iterations) {
      report.status = SolveStatus::kMaxIterations;
      break;
    }
    if (last_lagged && (!last_full || grad_norm > opt.hessian_reuse_ratio * last_grad_norm)) {
      stale = true;
    }

    // Newton direction: Cholesky (possibly of a lagged Hessian), else CG.
    bool exact = false;  // the direction uses the Hessian at f
    bool have_step = false;
    if (use_cholesky) {
      if (!factor_valid || factor_a != a || stale) {
        FormHessian(a);
        factor_valid = CholeskyInPlace(factor);
        factor_a = a;
        ++report.hessian_factorizations;
        exact = true;
        stale = !reuse;
        pairs = 0;
      }
      if (factor_valid) {
        FactorStep();
        have_step = true;
      }
    }
    if (!have_step) {
      ConjugateGradientStep(a, grad_norm);
      exact = true;
    }

    // Armijo backtracking on F, allowing for F's rounding noise.
    const double slope = grad.dot(step);
    const double slack =
        kObjectiveNoiseUlps * kEps * (std::abs(loss_sum) + 0.5 * a * f_sq + std::abs(g_dot_f));
    const double step_norm = step.norm();
    const double f_norm = std::sqrt(f_sq);
    bool accepted = false;
    double t = 1.0;
    double trial_loss = 0.0;
    if (slope < 0.0 && std::isfinite(slope)) {
      for (int b = 0; b < opt.max_backtracks; ++b) {
        ft = f + t * step;
        trial_loss = b == 0 ? FullStepTrial() : ScaledStepTrial(t);
        const double trial = trial_loss + 0.5 * a * ft.squaredNorm() + g.dot(ft);
        if (trial <= objective + opt.armijo_c * t * slope + slack) {
          accepted = true;
          break;
        }
        if (!exact) break;  // a lagged Hessian gets one try
        t *= opt.backtrack;
        if (t * step_norm <= kEps * f_norm) break;  // the step no longer changes f
      }
    }
    if (!accepted) {
      if (!exact) {  // re-form the Hessian at f and try again
        stale = true;
        last_lagged = false;
        continue;
      }
      report.status = SolveStatus::kLineSearchFailed;
      break;
    }
    if (use_cholesky && opt.secant_pairs > 0) {
      // The step actually taken and the gradient's change over it (the a f term changes by
      // a s; g does not change within a call).
      step = ft - f;
      if (t == 1.0) {
        secant_y = trial_grad - data_grad + a * step;
      } else {
        secant_y = data_grad;  // the old data gradient; the new one is formed below
      }
    }
    f = ft;
    if (lean && t != 1.0) {
      m = m + t * mt;  // mt holds X~ p (ScaledStepTrial)
    } else {
      m.swap(mt);  // the trial point's margins (a lean solver's: the full step's)
      if (!lean) {
        dl.swap(dlt);
        ddl.swap(ddlt);
      }
    }
    loss_sum = trial_loss;
    if (t == 1.0) {
      data_grad.swap(trial_grad);
    } else {
      GradientAtMargins();
      if (use_cholesky && opt.secant_pairs > 0) secant_y = data_grad - secant_y + a * step;
    }
    if (use_cholesky && opt.secant_pairs > 0) AddSecantPair(step, secant_y);
    ++incremental_steps;
    ++report.iterations;
    last_lagged = !exact;
    last_full = t == 1.0;
    last_grad_norm = grad_norm;
  }
  if (report.status == SolveStatus::kNonFinite) {
    state_valid = false;
  } else {
    state_f = f;
  }
  return report;
}

LocalSolver::LocalSolver(const Dataset& data, Eigen::VectorXd weights, Loss loss,
                         NewtonOptions options)
    : impl_(std::make_unique<Impl>(data, std::move(weights), loss, options)) {}

LocalSolver::LocalSolver(const Dataset& data, double weight, Loss loss, NewtonOptions options)
    : impl_(std::make_unique<Impl>(
          data,
          Eigen::VectorXd::Constant(VisitRows(data, [](const auto& x) { return x.rows(); }),
                                    weight),
          loss, options)) {}

LocalSolver::~LocalSolver() = default;
LocalSolver::LocalSolver(LocalSolver&&) noexcept = default;
LocalSolver& LocalSolver::operator=(LocalSolver&&) noexcept = default;

std::int64_t LocalSolver::dim() const { return impl_->d; }
std::int64_t LocalSolver::rows() const { return impl_->n; }
bool LocalSolver::StoresCsr() const { return impl_->sparse; }
bool LocalSolver::ReadsRowsInPlace() const { return impl_->rows_in_place; }
const Loss& LocalSolver::loss() const { return impl_->loss; }

SolveReport LocalSolver::Solve(double a, const Eigen::VectorXd& g, Eigen::VectorXd& f) {
  return impl_->Solve(a, g, f);
}

namespace {
void CheckPoint(const char* where, const Eigen::VectorXd& f, std::int64_t d) {
  if (f.size() != d) {
    throw InputError(std::string("LocalSolver::") + where + ": f has " + std::to_string(f.size()) +
                     " entries, expected " + std::to_string(d));
  }
}
}  // namespace

double LocalSolver::LossAndGradient(const Eigen::VectorXd& f, Eigen::VectorXd& grad) {
  CheckPoint("LossAndGradient", f, impl_->d);
  impl_->EnsureState(f);
  grad = impl_->data_grad;
  return impl_->loss_sum;
}

double LocalSolver::LossSum(const Eigen::VectorXd& f) {
  CheckPoint("LossSum", f, impl_->d);
  impl_->EnsureState(f);
  return impl_->loss_sum;
}

double LocalSolver::MeanLoss(const Eigen::VectorXd& f) {
  CheckPoint("MeanLoss", f, impl_->d);
  Impl& s = *impl_;
  if (s.n == 0) return 0.0;
  s.EnsureState(f);
  double sum = 0.0;
  for (std::int64_t i = 0; i < s.n; ++i) sum += detail::LossValue(s.loss, s.m[i]);
  return sum / static_cast<double>(s.n);
}

LocalSolver::WarmState LocalSolver::SaveWarmState() const {
  const Impl& i = *impl_;
  WarmState w;
  w.m = i.m;
  w.dl = i.dl;
  w.ddl = i.ddl;
  if (i.lean) {  // L' and L'' at m, as the other solvers keep them (zeros before any evaluation)
    w.dl.setZero(i.n);
    w.ddl.setZero(i.n);
    if (i.state_valid) {
      i.ForEachBlockAtMargins(
          [&](std::int64_t b, std::int64_t len, const double* d1, const double* d2) {
            std::copy(d1, d1 + len, w.dl.data() + b);
            std::copy(d2, d2 + len, w.ddl.data() + b);
          });
    }
  }
  w.loss_sum = i.loss_sum;
  w.data_grad = i.data_grad;
  w.state_f = i.state_f;
  w.state_valid = i.state_valid;
  w.incremental_steps = i.incremental_steps;
  w.factor = i.factor;
  w.factor_valid = i.factor_valid;
  w.factor_a = i.factor_a;
  return w;
}

void LocalSolver::RestoreWarmState(WarmState w) {
  Impl& i = *impl_;
  const bool sizes_ok = w.m.size() == i.n && w.dl.size() == i.n && w.ddl.size() == i.n &&
                        w.data_grad.size() == i.data_grad.size() &&
                        w.state_f.size() == i.state_f.size() &&
                        w.factor.rows() == i.factor.rows() && w.factor.cols() == i.factor.cols();
  if (!sizes_ok || w.incremental_steps < 0) {
    throw InputError("LocalSolver: saved warm state does not fit this solver's data");
  }
  i.m = std::move(w.m);
  if (!i.lean) {  // a lean solver recomputes them from m
    i.dl = std::move(w.dl);
    i.ddl = std::move(w.ddl);
  }
  i.loss_sum = w.loss_sum;
  i.data_grad = std::move(w.data_grad);
  i.state_f = std::move(w.state_f);
  i.state_valid = w.state_valid;
  i.incremental_steps = w.incremental_steps;
  i.factor = std::move(w.factor);
  i.factor_valid = w.factor_valid;
  i.factor_a = w.factor_a;
}

}  // namespace dpadmm
