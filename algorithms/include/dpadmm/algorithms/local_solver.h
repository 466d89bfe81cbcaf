// The one solver every consensus variant reduces to (DESIGN.md, "Maths that keeps the code
// small"): for a node's data slice {(x_n, y_n)} with weights w_n,
//
//     min_f  sum_n w_n L(y_n x_n^T f)  +  (a/2) ||f||^2  +  g^T f ,      a > 0.
//
// ADMM's penalty, dual terms, linear noise and extra penalties all fold into a and g.
// Damped Newton with Armijo backtracking, warm-started from the f passed in, stopping on the
// gradient norm. The Hessian is factorised by Cholesky up to `dense_hessian_max_dim` features
// and otherwise handled matrix-free by conjugate gradients (truncated Newton).
// Thread safety: a LocalSolver is used by one thread at a time. Solve() does not allocate.
#pragma once

#include <cstdint>
#include <memory>

#include <Eigen/Dense>

#include "dpadmm/algorithms/dataset.h"
#include "dpadmm/algorithms/loss.h"

namespace dpadmm {

struct NewtonOptions {
  int max_iterations = 100;              // Newton steps per Solve, >= 1
  double gradient_tolerance = 1e-10;     // stop when ||grad||_2 <= tol * max(1, ||g||_2 + a ||f||_2 scale)
  double armijo_c = 1e-4;                // sufficient decrease constant, in (0, 0.5)
  double backtrack = 0.5;                // step shrink factor, in (0, 1)
  int max_backtracks = 60;               // >= 1
  std::int64_t dense_hessian_max_dim = 2048;  // Cholesky up to this dimension, CG above
  int max_cg_iterations = 250;           // per Newton step (CG mode)
  double hessian_reuse_ratio = 0.1;      // Cholesky mode: reuse the last factor, in [0, 1)
  void Validate() const;                 // throws InputError naming the field
};

enum class SolveStatus {
  kConverged,          // gradient tolerance met
  kMaxIterations,      // iteration limit reached (result still usable)
  kLineSearchFailed,   // no decrease found; f is the best point seen
  kNonFinite,          // NaN/Inf in objective or gradient
};
const char* ToString(SolveStatus s);

struct SolveReport {
  SolveStatus status = SolveStatus::kConverged;
  int iterations = 0;
  double gradient_norm = 0.0;
  double objective = 0.0;  // full objective at the returned f
  double loss_sum = 0.0;   // sum_n w_n L(y_n x_n^T f) at the returned f
  int hessian_factorizations = 0;  // Hessians formed and factorised (Cholesky mode)
};

class LocalSolver {
 public:
  // Copies the rows (labels folded in: row n becomes y_n x_n). `weights` has one entry per row.
  LocalSolver(const Dataset& data, const Eigen::VectorXd& weights, Loss loss,
              NewtonOptions options = {});
  // Same weight for every row.
  LocalSolver(const Dataset& data, double weight, Loss loss, NewtonOptions options = {});
  ~LocalSolver();
  LocalSolver(LocalSolver&&) noexcept;
  LocalSolver& operator=(LocalSolver&&) noexcept;

  std::int64_t dim() const;
  std::int64_t rows() const;
  const Loss& loss() const;

  // Minimises the objective above; `f` is the warm start on entry and the solution on exit.
  SolveReport Solve(double a, const Eigen::VectorXd& g, Eigen::VectorXd& f);

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
