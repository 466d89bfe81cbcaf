// SPDX-License-Identifier: Apache-2.0
// The one solver every consensus variant reduces to (DESIGN.md, "Maths that keeps the code
// small"): for a node's data slice {(x_n, y_n)} with weights w_n,
//
//     min_f  sum_n w_n L(y_n x_n^T f)  +  (a/2) ||f||^2  +  g^T f ,      a > 0.
//
// ADMM's penalty, dual terms, linear noise and extra penalties all fold into a and g.
// Damped Newton with Armijo backtracking, warm-started from the f passed in, stopping on the
// gradient norm. The Hessian is factorised by Cholesky where a cost model says it pays (up to
// `dense_hessian_max_dim` features) and otherwise handled matrix-free by conjugate gradients
// (truncated Newton).
// A LocalSolver keeps state between calls, which only saves work and never changes what a call
// means: (1) the margins, derivatives, loss sum and data gradient at the last point it
// evaluated (a CSR solver with a Cholesky step keeps the margins and recomputes the
// derivatives from them where it reads them: two 8-byte arrays per row), so a Solve warm-started
// from the previous solution (or LossAndGradient there) starts without a pass over the data; (2)
// the last Cholesky factor, tried first by the next step or call with the same `a` (see
// hessian_reuse_ratio). Results are deterministic for a given sequence of calls. Thread safety: a
// LocalSolver is used by one thread at a time. Solve() (given an f of size dim()),
// LossAndGradient() (given a grad of size dim()), LossSum() and MeanLoss() do not allocate: all
// workspace is sized by the constructor (but for the CG fallback of a CSR solver with a Cholesky
// step after a failed factorisation, which sizes its curvature array then).
#pragma once

#include <cstdint>
#include <memory>

#include <Eigen/Dense>

#include "dpadmm/data/dataset.h"
#include "dpadmm/solver/loss.h"

namespace dpadmm {

struct NewtonOptions {
  int max_iterations = 100;  // Newton steps per Solve, >= 1
  // Stop when ||grad F(f)||_2 <= gradient_tolerance * max(1, ||g||_2 + a ||f||_2), >= 0.
  // The scale is the size of the terms that cancel at the optimum (there the data gradient
  // equals -(a f + g)), so the test is relative for large g or f and absolute below 1.
  double gradient_tolerance = 1e-10;
  double armijo_c = 1e-4;   // sufficient decrease constant, in (0, 0.5)
  double backtrack = 0.5;   // step shrink factor, in (0, 1)
  int max_backtracks = 60;  // >= 1
  // Newton direction: up to this dimension a cost model (newton_cost_model) chooses between
  // Cholesky of the Hessian and matrix-free CG; above it, always CG. 0 forces CG.
  std::int64_t dense_hessian_max_dim = 2048;
  // true: Cholesky only where the model's estimate of its cost per Newton step (forming the
  // Hessian, amortised over the steps that reuse its factor, and factorising it) is below that
  // of CG's Hessian-vector products; false: Cholesky up to dense_hessian_max_dim (forcing).
  bool newton_cost_model = true;
  // How the solver stores its copy of the rows: kAuto lets a cost model choose (CSR when the
  // estimated time per Newton step, data passes plus the Newton direction, is lower than with
  // dense rows; it depends on the data's shape and nonzeros only, never on the machine), kDense
  // and kCsr force one (benchmarks and tests). The input's own storage does not decide: dense
  // rows with many zeros can be stored as CSR, sparse rows with few zeros as dense. The stored
  // values are the same; the summation orders, hence the last bits, are those of the storage.
  enum class RowStorage { kAuto, kDense, kCsr };
  RowStorage row_storage = RowStorage::kAuto;
  int max_cg_iterations = 250;  // per Newton step (CG mode)
  // Cholesky mode, in [0, 1): the last factor (from an earlier step or call with the same a) is
  // reused while every full step made with it cuts ||grad|| by at least this factor; otherwise
  // the Hessian is formed and factorised again at the current point. Forming the Hessian costs
  // about as much as two such steps (Adult-like data), so a warm-started solve typically takes
  // one or no factorisation. 0 = a fresh Hessian every step (plain damped Newton).
  double hessian_reuse_ratio = 0.01;
  // Cholesky mode, in [0, 64]: steps made with a reused factor are corrected by up to this many
  // secant pairs of the current call (BFGS updates of the factor's Hessian by the steps taken
  // and the gradient's change over each, applied by the two-loop recursion: O(pairs d) per
  // step, no data pass). The stopping rule is unchanged (the gradient norm at the returned f,
  // evaluated from the data). 0 (default) = the factor alone, the bits of earlier versions.
  // Measured on Adult N = 5 (bench_round, secant:8): 6% fewer data passes per round.
  int secant_pairs = 0;
  // true: the solver reads the caller's rows in place instead of copying them, when they allow
  // it (every label exactly -1 or +1, and: dense rows stored dense; or sparse rows stored CSR,
  // compressed, columns increasing within each row, no stored zeros; their values and column
  // indices are read in place; so are labels +-1). Anything else is copied as with false. The
  // Dataset must then outlive the solver, unchanged. Same results and bits either way.
  bool borrow_rows = false;
  void Validate() const;  // throws InputError naming the field
};

enum class SolveStatus {
  kConverged,         // gradient tolerance met
  kMaxIterations,     // iteration limit reached (result still usable)
  kLineSearchFailed,  // no decrease found; f is the best point seen
  kNonFinite,         // NaN/Inf in objective or gradient
};
const char* ToString(SolveStatus s);

struct [[nodiscard]] SolveReport {
  SolveStatus status = SolveStatus::kConverged;
  int iterations = 0;
  double gradient_norm = 0.0;
  double objective = 0.0;          // full objective at the returned f
  double loss_sum = 0.0;           // sum_n w_n L(y_n x_n^T f) at the returned f
  int hessian_factorizations = 0;  // Hessians formed and factorised in this call (Cholesky mode)
};

class LocalSolver {
 public:
  // The most columns a solver takes: its X~^T s accumulators (4 per column) are indexed by
  // 32-bit integers. More columns is an InputError (naming the data set).
  static constexpr std::int64_t kMaxColumns = 536870911;  // INT32_MAX / 4
  // Copies the rows (the problem's rows are y_n x_n; with labels +-1 the labels are applied on
  // the fly, else folded into the copy), or with NewtonOptions::borrow_rows reads them in place.
  // `weights` has one entry per row (moved in: pass an rvalue to save a copy).
  // Throws InputError for a label or weight count that does not match the rows, a negative or
  // non-finite weight, a non-finite value, huber_h <= 0, or invalid options.
  LocalSolver(const Dataset& data, Eigen::VectorXd weights, Loss loss, NewtonOptions options = {});
  // Same weight for every row.
  LocalSolver(const Dataset& data, double weight, Loss loss, NewtonOptions options = {});
  ~LocalSolver();
  LocalSolver(LocalSolver&&) noexcept;
  LocalSolver& operator=(LocalSolver&&) noexcept;

  std::int64_t dim() const;
  std::int64_t rows() const;
  const Loss& loss() const;
  // How the solver stores its rows (NewtonOptions::row_storage): true = CSR, false = dense.
  bool StoresCsr() const;
  // Whether it reads the caller's rows in place (NewtonOptions::borrow_rows, when they allow it).
  bool ReadsRowsInPlace() const;

  // Minimises the objective above; `f` is the warm start on entry and the solution on exit
  // (an empty f means a cold start from 0). Outcomes are reported, never thrown: non-finite a,
  // g or f, or a non-finite objective or gradient on the way, give kNonFinite with f left at
  // the last finite iterate. Throws InputError only for misuse: g or f of the wrong size,
  // a <= 0.
  SolveReport Solve(double a, const Eigen::VectorXd& g, Eigen::VectorXd& f);

  // What a solve carries over to the next call (the evaluation at the last point, the Hessian
  // factor reused while it keeps working): checkpoints save it so that a restored solver takes
  // the same steps, bit for bit, as the one that kept running.
  struct WarmState {
    Eigen::ArrayXd m, dl, ddl;
    double loss_sum = 0.0;
    Eigen::VectorXd data_grad, state_f;
    bool state_valid = false;
    int incremental_steps = 0;
    Eigen::MatrixXd factor;
    bool factor_valid = false;
    double factor_a = 0.0;
  };
  WarmState SaveWarmState() const;
  // Throws InputError when the sizes do not match this solver's rows and dimension.
  void RestoreWarmState(WarmState state);

  // sum_n w_n L(y_n x_n^T f), and its gradient with respect to f into `grad` (resized if needed).
  double LossAndGradient(const Eigen::VectorXd& f, Eigen::VectorXd& grad);
  // sum_n w_n L(y_n x_n^T f).
  double LossSum(const Eigen::VectorXd& f);
  // (1/B) sum_n L(y_n x_n^T f): the unweighted mean loss (the papers' L(t) uses this).
  double MeanLoss(const Eigen::VectorXd& f);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace dpadmm
