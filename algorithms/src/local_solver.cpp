// Damped Newton for  F(f) = sum_n w_n L(m_n) + (a/2)||f||^2 + g^T f,  m = X~ f,  X~ = diag(y) X.
//
//   gradient  X~^T (w .* L'(m)) + a f + g
//   Hessian   X~^T diag(w .* L''(m)) X~ + a I
//
// Cost per Newton step: one pass over the rows for the Hessian (dense: rank updates; sparse:
// O(nnz_row^2) per row), one for the margins X~ p of the step, one per-sample pass at the trial
// point (value, L', L'' from a single exp for the logistic loss), one for the gradient. The
// trial margins are m + t X~ p, so the accepted point's margins and derivatives are already
// known; the state at the returned f is kept, and a later Solve or LossAndGradient at that
// same f starts from it without touching the data.
#include "dpadmm/algorithms/local_solver.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "dpadmm/algorithms/error.h"

namespace dpadmm {
namespace {

using Eigen::Index;

constexpr double kEps = std::numeric_limits<double>::epsilon();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Eigen keeps a product kernel's packing buffers on the stack up to 128 KiB
// (EIGEN_STACK_ALLOCATION_LIMIT) and on the heap above. Every product below is cut into pieces
// whose buffers stay under this many doubles, so that Solve() never allocates.
constexpr Index kStackDoubles = 8192;
// Tile size of the Cholesky factorisation (64 x 64 tiles: 4096 doubles per packed operand).
constexpr Index kTile = 64;
// After this many Newton steps whose margins were updated incrementally (m += t X~ p), the
// state is recomputed from the data at the start of the next Solve, bounding rounding drift.
constexpr int kMaxIncrementalSteps = 256;

std::string Num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

// Cholesky factorisation A = L L^T in place: reads the lower triangle, writes L there (the
// strict upper triangle of diagonal tiles is overwritten with garbage; L is always used through
// triangularView<Lower>). Left-looking over 64-wide tile columns, so every Eigen kernel works on
// tiles and keeps its scratch on the stack (Eigen::LLT allocates above ~400 columns).
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

  // --- Data: row n holds y_n x_n. ---
  std::int64_t n = 0;
  std::int64_t d = 0;
  bool sparse = false;
  DenseRows dense;                   // dense storage
  std::vector<std::int64_t> row_ptr;  // sparse storage (CSR, column indices sorted per row)
  std::vector<std::int32_t> col_idx;
  std::vector<double> values;
  Eigen::ArrayXd w;
  Loss loss;
  NewtonOptions opt;
  bool use_cholesky = false;

  // --- State at the point state_f (valid when state_valid). ---
  Eigen::ArrayXd m, dl, ddl;   // margins X~ f, w .* L'(m), w .* L''(m)
  double loss_sum = 0.0;       // sum_n w_n L(m_n)
  Eigen::VectorXd data_grad;   // X~^T dl
  Eigen::VectorXd state_f;
  bool state_valid = false;
  int incremental_steps = 0;

  // --- Workspace (sized once in the constructor). ---
  Eigen::ArrayXd mt, dlt, ddlt;  // trial point
  Eigen::ArrayXd q;              // X~ p for the step p
  Eigen::ArrayXd sample_tmp;     // per-sample scratch
  Eigen::VectorXd ft, grad, step;
  Eigen::MatrixXd factor;        // Hessian (lower triangle), then its Cholesky factor
  bool factor_valid = false;     // factor holds a Cholesky factor of the Hessian at some point
  double factor_a = 0.0;         // ... formed with this a
  DenseRows chunk;               // scaled rows for the dense Hessian
  Eigen::VectorXd precond, cg_r, cg_z, cg_dir, cg_hd;

  // out = X~ v
  void Multiply(const Eigen::VectorXd& v, Eigen::ArrayXd& out) const;
  // out = X~^T s
  void MultiplyTransposed(const Eigen::ArrayXd& s, Eigen::VectorXd& out) const;
  // sum_n w_n L(z_n); d1 = w .* L'(z), d2 = w .* L''(z).
  double Evaluate(const Eigen::ArrayXd& z, Eigen::ArrayXd& d1, Eigen::ArrayXd& d2) const;
  // factor (lower) = X~^T diag(ddl) X~ + a I.
  void FormHessian(double a);
  // out = (X~^T diag(ddl) X~ + a I) v; sample_tmp is clobbered.
  void HessianTimes(double a, const Eigen::VectorXd& v, Eigen::VectorXd& out);
  // Preconditioned CG for H step = -grad; accumulates q = X~ step on the way.
  void ConjugateGradientStep(double a, double grad_norm);
  // Brings (m, dl, ddl, loss_sum, data_grad) to the point f.
  void EnsureState(const Eigen::VectorXd& f);

  SolveReport Solve(double a, const Eigen::VectorXd& g, Eigen::VectorXd& f);
};

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
    if (!(w[r] >= 0.0) || !std::isfinite(w[r])) {
      throw InputError("LocalSolver: weight of row " + std::to_string(r) + " is " + Num(w[r]) +
                       " (must be finite and >= 0)");
    }
    if (!std::isfinite(data.y[r])) {
      throw InputError("LocalSolver: label of row " + std::to_string(r) + " is not finite");
    }
  }

  if (const auto* s = std::get_if<SparseRows>(&data.x)) {
    sparse = true;
    if (d > std::numeric_limits<std::int32_t>::max()) {
      throw InputError("LocalSolver: too many columns (" + std::to_string(d) + ")");
    }
    row_ptr.assign(static_cast<std::size_t>(n) + 1, 0);
    col_idx.reserve(static_cast<std::size_t>(s->nonZeros()));
    values.reserve(static_cast<std::size_t>(s->nonZeros()));
    std::vector<std::pair<std::int32_t, double>> row;
    for (std::int64_t r = 0; r < n; ++r) {
      row.clear();
      for (SparseRows::InnerIterator it(*s, r); it; ++it) {
        if (it.value() == 0.0) continue;
        row.emplace_back(static_cast<std::int32_t>(it.col()), data.y[r] * it.value());
      }
      // The sparse Hessian writes entry (max, min) of each index pair as (later, earlier).
      std::sort(row.begin(), row.end(),
                [](const auto& u, const auto& v) { return u.first < v.first; });
      for (const auto& [c, v] : row) {
        if (!std::isfinite(v)) {
          throw InputError("LocalSolver: row " + std::to_string(r) + " has a non-finite value");
        }
        col_idx.push_back(c);
        values.push_back(v);
      }
      row_ptr[static_cast<std::size_t>(r) + 1] = static_cast<std::int64_t>(col_idx.size());
    }
  } else {
    dense = std::get<DenseRows>(data.x);
    if (!dense.allFinite()) throw InputError("LocalSolver: data has a non-finite value");
    for (std::int64_t r = 0; r < n; ++r) dense.row(r) *= data.y[r];
  }

  use_cholesky = d <= opt.dense_hessian_max_dim;
  m.setZero(n);
  dl.setZero(n);
  ddl.setZero(n);
  mt.setZero(n);
  dlt.setZero(n);
  ddlt.setZero(n);
  q.setZero(n);
  sample_tmp.setZero(n);
  data_grad.setZero(d);
  state_f.setZero(d);
  ft.setZero(d);
  grad.setZero(d);
  step.setZero(d);
  precond.setZero(d);
  cg_r.setZero(d);
  cg_z.setZero(d);
  cg_dir.setZero(d);
  cg_hd.setZero(d);
  if (use_cholesky) {
    factor.setZero(d, d);
    if (!sparse && d > 0) {
      chunk.setZero(std::max<Index>(1, std::min<Index>(n, kStackDoubles / d)), d);
    }
  }
}

void LocalSolver::Impl::Multiply(const Eigen::VectorXd& v, Eigen::ArrayXd& out) const {
  if (!sparse) {
    out.matrix().noalias() = dense * v;
    return;
  }
  const double* val = values.data();
  const std::int32_t* idx = col_idx.data();
  for (std::int64_t r = 0; r < n; ++r) {
    double acc = 0.0;
    for (std::int64_t p = row_ptr[r], e = row_ptr[r + 1]; p < e; ++p) acc += val[p] * v[idx[p]];
    out[r] = acc;
  }
}

void LocalSolver::Impl::MultiplyTransposed(const Eigen::ArrayXd& s, Eigen::VectorXd& out) const {
  if (!sparse) {
    out.noalias() = dense.transpose() * s.matrix();
    return;
  }
  out.setZero();
  const double* val = values.data();
  const std::int32_t* idx = col_idx.data();
  double* o = out.data();
  for (std::int64_t r = 0; r < n; ++r) {
    const double sr = s[r];
    if (sr == 0.0) continue;
    for (std::int64_t p = row_ptr[r], e = row_ptr[r + 1]; p < e; ++p) o[idx[p]] += sr * val[p];
  }
}

double LocalSolver::Impl::Evaluate(const Eigen::ArrayXd& z, Eigen::ArrayXd& d1,
                                   Eigen::ArrayXd& d2) const {
  double sum = 0.0;
  if (loss.kind == LossKind::kLogistic) {
    // With e = exp(-|z|):  L = max(-z, 0) + log1p(e),  L' = -(z > 0 ? e : 1) / (1 + e),
    // L'' = e / (1 + e)^2 -- the formulas of Loss, sharing one exp.
    for (std::int64_t i = 0; i < n; ++i) {
      const double zi = z[i];
      const double e = std::exp(-std::abs(zi));
      const double inv = 1.0 / (1.0 + e);
      sum += w[i] * ((zi > 0.0 ? 0.0 : -zi) + std::log1p(e));
      d1[i] = -w[i] * (zi > 0.0 ? e : 1.0) * inv;
      d2[i] = w[i] * e * inv * inv;
    }
  } else {
    for (std::int64_t i = 0; i < n; ++i) {
      sum += w[i] * loss.Value(z[i]);
      d1[i] = w[i] * loss.D1(z[i]);
      d2[i] = w[i] * loss.D2(z[i]);
    }
  }
  return sum;
}

void LocalSolver::Impl::FormHessian(double a) {
  factor.setZero();
  if (sparse) {
    // Lower triangle, column-major: entry (k, j) with k >= j at factor.data()[j * d + k]. Column
    // indices are sorted within a row, so idx[q] >= idx[p] for q >= p.
    double* h = factor.data();
    const double* val = values.data();
    const std::int32_t* idx = col_idx.data();
    for (std::int64_t r = 0; r < n; ++r) {
      const double s = ddl[r];
      if (s == 0.0) continue;
      const std::int64_t e = row_ptr[r + 1];
      for (std::int64_t p = row_ptr[r]; p < e; ++p) {
        const double c = s * val[p];
        double* col = h + static_cast<std::int64_t>(idx[p]) * d;
        for (std::int64_t k = p; k < e; ++k) col[idx[k]] += c * val[k];
      }
    }
  } else if (d > 0) {
    // Rank updates with chunks of rows scaled by sqrt(w L''), sized to keep Eigen on the stack.
    sample_tmp = ddl.sqrt();
    const Index rows = chunk.rows();
    for (Index r0 = 0; r0 < n; r0 += rows) {
      const Index rb = std::min<Index>(rows, n - r0);
      chunk.topRows(rb).noalias() =
          sample_tmp.segment(r0, rb).matrix().asDiagonal() * dense.middleRows(r0, rb);
      factor.selfadjointView<Eigen::Lower>().rankUpdate(chunk.topRows(rb).transpose());
    }
  }
  factor.diagonal().array() += a;
}

void LocalSolver::Impl::HessianTimes(double a, const Eigen::VectorXd& v, Eigen::VectorXd& out) {
  Multiply(v, sample_tmp);
  sample_tmp *= ddl;
  MultiplyTransposed(sample_tmp, out);
  out += a * v;
}

void LocalSolver::Impl::ConjugateGradientStep(double a, double grad_norm) {
  // Jacobi preconditioner: diag(H)_j = a + sum_n ddl_n x_nj^2.
  precond.setConstant(a);
  if (sparse) {
    for (std::int64_t r = 0; r < n; ++r) {
      const double s = ddl[r];
      if (s == 0.0) continue;
      for (std::int64_t p = row_ptr[r], e = row_ptr[r + 1]; p < e; ++p) {
        precond[col_idx[p]] += s * values[p] * values[p];
      }
    }
  } else {
    for (std::int64_t r = 0; r < n; ++r) {
      precond.array() += ddl[r] * dense.row(r).transpose().array().square();
    }
  }
  // Truncated Newton: stop at ||r|| <= min(0.5, sqrt(||grad||)) ||grad|| (Eisenstat-Walker
  // style forcing term, superlinear local convergence).
  const double target = std::min(0.5, std::sqrt(grad_norm)) * grad_norm;
  step.setZero();
  q.setZero();
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
  Multiply(step, q);
}

void LocalSolver::Impl::EnsureState(const Eigen::VectorXd& f) {
  if (state_valid && incremental_steps <= kMaxIncrementalSteps &&
      (f.array() == state_f.array()).all()) {
    return;
  }
  Multiply(f, m);
  loss_sum = Evaluate(m, dl, ddl);
  MultiplyTransposed(dl, data_grad);
  state_f = f;
  state_valid = true;
  incremental_steps = 0;
}

SolveReport LocalSolver::Impl::Solve(double a, const Eigen::VectorXd& g, Eigen::VectorXd& f) {
  if (g.size() != d) {
    throw InputError("LocalSolver::Solve: g has " + std::to_string(g.size()) + " entries, expected " +
                     std::to_string(d));
  }
  if (f.size() == 0 && d > 0) f.setZero(d);
  if (f.size() != d) {
    throw InputError("LocalSolver::Solve: f has " + std::to_string(f.size()) + " entries, expected " +
                     std::to_string(d) + " (or 0 for a cold start)");
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
  // Lagged Hessian: the factor is kept across steps and across calls (it is valid for the `a`
  // it was formed with) while steps made with it keep cutting the gradient norm by at least
  // hessian_reuse_ratio; otherwise it is re-formed at the current point.
  bool stale = opt.hessian_reuse_ratio <= 0.0;
  bool last_reused = false;
  double last_t = 1.0;
  double last_grad_norm = 0.0;
  for (;;) {
    grad = data_grad + a * f + g;
    const double grad_norm = grad.norm();
    const double objective = loss_sum + 0.5 * a * f.squaredNorm() + g.dot(f);
    report.gradient_norm = grad_norm;
    report.objective = objective;
    report.loss_sum = loss_sum;
    if (!std::isfinite(objective) || !std::isfinite(grad_norm)) {
      report.status = SolveStatus::kNonFinite;
      break;
    }
    if (grad_norm <= opt.gradient_tolerance * std::max(1.0, g_norm + a * f.norm())) {
      report.status = SolveStatus::kConverged;
      break;
    }
    if (report.iterations >= opt.max_iterations) {
      report.status = SolveStatus::kMaxIterations;
      break;
    }
    if (last_reused && (last_t < 1.0 || grad_norm > opt.hessian_reuse_ratio * last_grad_norm)) {
      stale = true;
    }

    // Newton direction: Cholesky of the (possibly lagged) Hessian, or CG.
    bool exact = false;  // direction from the Hessian at f
    bool have_step = false;
    if (use_cholesky) {
      if (!factor_valid || factor_a != a || stale || opt.hessian_reuse_ratio <= 0.0) {
        FormHessian(a);
        factor_valid = CholeskyInPlace(factor);
        factor_a = a;
        ++report.hessian_factorizations;
        exact = true;
        stale = opt.hessian_reuse_ratio <= 0.0;
      }
      if (factor_valid) {
        step = -grad;
        factor.triangularView<Eigen::Lower>().solveInPlace(step);
        factor.triangularView<Eigen::Lower>().transpose().solveInPlace(step);
        Multiply(step, q);
        have_step = true;
      }
    }
    if (!have_step) {
      ConjugateGradientStep(a, grad_norm);
      exact = true;
    }
    const double slope = grad.dot(step);
    bool accepted = false;
    double t = 1.0;
    double trial_loss = 0.0;
    if (slope < 0.0 && step.allFinite()) {
      // Armijo backtracking on F. Differences of F below its rounding error (a few ulps of the
      // magnitudes summed) cannot be resolved, so steps within that slack count as decrease.
      const double slack =
          64.0 * kEps * (std::abs(loss_sum) + 0.5 * a * f.squaredNorm() + std::abs(g.dot(f)));
      const double step_norm = step.norm();
      const double f_norm = f.norm();
      for (int b = 0; b < opt.max_backtracks; ++b) {
        ft = f + t * step;
        mt = m + t * q;
        trial_loss = Evaluate(mt, dlt, ddlt);
        const double trial = trial_loss + 0.5 * a * ft.squaredNorm() + g.dot(ft);
        if (trial <= objective + opt.armijo_c * t * slope + slack) {
          accepted = true;
          break;
        }
        // A lagged Hessian gets one try; a failure re-forms it at f.
        if (!exact) break;
        t *= opt.backtrack;
        if (t * step_norm <= kEps * f_norm) break;  // the step no longer changes f
      }
    }
    if (!accepted) {
      if (!exact) {
        stale = true;
        last_reused = false;
        continue;
      }
      report.status = SolveStatus::kLineSearchFailed;
      break;
    }
    f = ft;
    m.swap(mt);
    dl.swap(dlt);
    ddl.swap(ddlt);
    loss_sum = trial_loss;
    MultiplyTransposed(dl, data_grad);
    ++incremental_steps;
    ++report.iterations;
    last_reused = !exact;
    last_t = t;
    last_grad_norm = grad_norm;
  }
  if (report.status == SolveStatus::kNonFinite) {
    state_valid = false;
  } else {
    state_f = f;
  }
  return report;
}

LocalSolver::LocalSolver(const Dataset& data, const Eigen::VectorXd& weights, Loss loss,
                         NewtonOptions options)
    : impl_(std::make_unique<Impl>(data, weights, loss, options)) {}

LocalSolver::LocalSolver(const Dataset& data, double weight, Loss loss, NewtonOptions options)
    : impl_(std::make_unique<Impl>(
          data,
          Eigen::VectorXd::Constant(VisitRows(data, [](const auto& x) { return x.rows(); }), weight),
          loss, options)) {}

LocalSolver::~LocalSolver() = default;
LocalSolver::LocalSolver(LocalSolver&&) noexcept = default;
LocalSolver& LocalSolver::operator=(LocalSolver&&) noexcept = default;

std::int64_t LocalSolver::dim() const { return impl_->d; }
std::int64_t LocalSolver::rows() const { return impl_->n; }
const Loss& LocalSolver::loss() const { return impl_->loss; }

SolveReport LocalSolver::Solve(double a, const Eigen::VectorXd& g, Eigen::VectorXd& f) {
  return impl_->Solve(a, g, f);
}

double LocalSolver::LossAndGradient(const Eigen::VectorXd& f, Eigen::VectorXd& grad) {
  if (f.size() != impl_->d) {
    throw InputError("LocalSolver::LossAndGradient: f has " + std::to_string(f.size()) +
                     " entries, expected " + std::to_string(impl_->d));
  }
  impl_->EnsureState(f);
  grad = impl_->data_grad;
  return impl_->loss_sum;
}

double LocalSolver::LossSum(const Eigen::VectorXd& f) {
  if (f.size() != impl_->d) {
    throw InputError("LocalSolver::LossSum: f has " + std::to_string(f.size()) +
                     " entries, expected " + std::to_string(impl_->d));
  }
  impl_->EnsureState(f);
  return impl_->loss_sum;
}

double LocalSolver::MeanLoss(const Eigen::VectorXd& f) {
  Impl& s = *impl_;
  if (f.size() != s.d) {
    throw InputError("LocalSolver::MeanLoss: f has " + std::to_string(f.size()) +
                     " entries, expected " + std::to_string(s.d));
  }
  if (s.n == 0) return 0.0;
  s.EnsureState(f);
  double sum = 0.0;
  for (std::int64_t i = 0; i < s.n; ++i) sum += s.loss.Value(s.m[i]);
  return sum / static_cast<double>(s.n);
}

}  // namespace dpadmm
