// SPDX-License-Identifier: Apache-2.0
// LocalSolver: the local problem  min_f sum_n w_n L(y_n x_n^T f) + (a/2)||f||^2 + g^T f.
// References are independent of the solver: the objective and gradient are recomputed here
// from the dense rows with Loss::Value / Loss::D1, and the zero-data case has a closed form.
// Allocation counting: tests/allocation_counter.h.
#include "dpadmm/solver/local_solver.h"

#include <cerrno>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <Eigen/Cholesky>

#include "allocation_counter.h"
#include "dpadmm/core/error.h"
#include "dpadmm/core/random.h"
#include "dpadmm/run/run.h"
#include "run_recorder.h"
#include "test_helpers.h"

namespace dpadmm {
namespace {

using test::AllocationsDuring;
using test::ThrowsInputError;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

void* volatile escape = nullptr;

struct Problem {
  Dataset dense;
  Dataset sparse;  // the same rows, sparse storage
  Eigen::VectorXd weights;
  Eigen::VectorXd g;
};

// Random rows with about `density` nonzeros per entry, scaled so that the largest row norm is 1
// (the papers' assumption); labels from a noisy random hyperplane; weights in [0.5, 1.5);
// g ~ 0.1 N(0, I).
Problem MakeProblem(std::uint64_t seed, int rows, int cols, double density) {
  Stream s(seed, 0, 0, Purpose::kGenerateData);
  DenseRows x = DenseRows::Zero(rows, cols);
  for (int r = 0; r < rows; ++r) {
    for (int c = 0; c < cols; ++c) {
      if (s.Uniform() < density) x(r, c) = s.Normal();
    }
  }
  const double max_norm = x.rowwise().norm().maxCoeff();
  if (max_norm > 0.0) x /= max_norm;
  Eigen::VectorXd truth(cols);
  for (int c = 0; c < cols; ++c) truth[c] = 3.0 * s.Normal();
  Eigen::VectorXd y(rows);
  for (int r = 0; r < rows; ++r) y[r] = x.row(r).dot(truth) + 0.3 * s.Normal() >= 0.0 ? 1.0 : -1.0;

  Problem p;
  p.dense.x = x;
  p.dense.y = y;
  p.dense.name = "dense";
  SparseRows sx = x.sparseView();
  sx.makeCompressed();
  p.sparse.x = sx;
  p.sparse.y = y;
  p.sparse.name = "sparse";
  p.weights.resize(rows);
  for (int r = 0; r < rows; ++r) p.weights[r] = 0.5 + s.Uniform();
  p.g.resize(cols);
  for (int c = 0; c < cols; ++c) p.g[c] = 0.1 * s.Normal();
  return p;
}

const DenseRows& Rows(const Problem& p) { return std::get<DenseRows>(p.dense.x); }

// Independent references computed from the dense rows.
double LossSumReference(const Problem& p, const Loss& loss, const Eigen::VectorXd& w,
                        const Eigen::VectorXd& f) {
  double sum = 0.0;
  for (Eigen::Index r = 0; r < Rows(p).rows(); ++r) {
    sum += w[r] * loss.Value(p.dense.y[r] * Rows(p).row(r).dot(f));
  }
  return sum;
}

double ObjectiveReference(const Problem& p, const Loss& loss, const Eigen::VectorXd& w, double a,
                          const Eigen::VectorXd& g, const Eigen::VectorXd& f) {
  return LossSumReference(p, loss, w, f) + 0.5 * a * f.squaredNorm() + g.dot(f);
}

Eigen::VectorXd GradientReference(const Problem& p, const Loss& loss, const Eigen::VectorXd& w,
                                  double a, const Eigen::VectorXd& g, const Eigen::VectorXd& f) {
  Eigen::VectorXd grad = a * f + g;
  for (Eigen::Index r = 0; r < Rows(p).rows(); ++r) {
    const double y = p.dense.y[r];
    grad += (w[r] * y * loss.D1(y * Rows(p).row(r).dot(f))) * Rows(p).row(r).transpose();
  }
  return grad;
}

Loss Logistic() { return Loss{LossKind::kLogistic, 0.5}; }
Loss SmoothHinge() { return Loss{LossKind::kSmoothHinge, 0.5}; }

NewtonOptions Tight() {
  NewtonOptions o;
  o.gradient_tolerance = 1e-12;
  return o;
}

// `o` with the solver's rows stored as the input's are (dense or CSR), for the tests about one
// storage's kernels (the cost model would otherwise store both inputs of a test the same way).
NewtonOptions Keep(const Dataset& data, NewtonOptions o = {}) {
  o.row_storage =
      data.is_sparse() ? NewtonOptions::RowStorage::kCsr : NewtonOptions::RowStorage::kDense;
  return o;
}

// --- Options and inputs ------------------------------------------------------------------

TEST(NewtonOptionsTest, DefaultsValidate) { EXPECT_NO_THROW(NewtonOptions{}.Validate()); }

TEST(NewtonOptionsTest, EachFieldIsCheckedAndNamed) {
  auto expect_error = [](auto mutate, const std::string& message) {
    NewtonOptions o;
    mutate(o);
    EXPECT_TRUE(ThrowsInputError([&] { o.Validate(); }, {message})) << message;
  };
  expect_error([](NewtonOptions& o) { o.max_iterations = 0; },
               "newton.max_iterations must be >= 1, got 0");
  expect_error([](NewtonOptions& o) { o.gradient_tolerance = -1.0; },
               "newton.gradient_tolerance must be finite and >= 0, got -1");
  expect_error([](NewtonOptions& o) { o.gradient_tolerance = kNaN; }, "newton.gradient_tolerance");
  expect_error([](NewtonOptions& o) { o.armijo_c = 0.5; }, "newton.armijo_c must be in (0, 0.5)");
  expect_error([](NewtonOptions& o) { o.armijo_c = 0.0; }, "newton.armijo_c");
  expect_error([](NewtonOptions& o) { o.backtrack = 1.0; }, "newton.backtrack must be in (0, 1)");
  expect_error([](NewtonOptions& o) { o.max_backtracks = 0; },
               "newton.max_backtracks must be >= 1, got 0");
  expect_error([](NewtonOptions& o) { o.dense_hessian_max_dim = -1; },
               "newton.dense_hessian_max_dim must be >= 0, got -1");
  expect_error([](NewtonOptions& o) { o.max_cg_iterations = 0; },
               "newton.max_cg_iterations must be >= 1, got 0");
  expect_error([](NewtonOptions& o) { o.hessian_reuse_ratio = 1.0; },
               "newton.hessian_reuse_ratio must be in [0, 1), got 1");
  expect_error([](NewtonOptions& o) { o.secant_pairs = -1; },
               "newton.secant_pairs must be in [0, 64], got -1");
  expect_error([](NewtonOptions& o) { o.secant_pairs = 65; }, "newton.secant_pairs");
}

TEST(LocalSolverTest, ConstructorValidatesItsInputs) {
  const Problem p = MakeProblem(1, 20, 4, 1.0);
  EXPECT_TRUE(ThrowsInputError([&] { LocalSolver(p.dense, Eigen::VectorXd::Ones(19), Logistic()); },
                               {"19 weights for 20 rows"}));
  Eigen::VectorXd w = p.weights;
  w[3] = -1.0;
  EXPECT_TRUE(ThrowsInputError([&] { LocalSolver(p.dense, w, Logistic()); }, {"row 3"}));
  EXPECT_TRUE(ThrowsInputError(
      [&] {
        LocalSolver(p.dense, 1.0, Loss{LossKind::kSmoothHinge, 0.0});
      },
      {"huber_h"}));
  NewtonOptions bad;
  bad.max_iterations = 0;
  EXPECT_TRUE(ThrowsInputError([&] { LocalSolver(p.dense, 1.0, Logistic(), bad); },
                               {"newton.max_iterations"}));
  Dataset mislabelled = p.dense;
  mislabelled.y.conservativeResize(10);
  EXPECT_TRUE(ThrowsInputError([&] { LocalSolver(mislabelled, 1.0, Logistic()); },
                               {"10 labels for 20 rows"}));
}

TEST(LocalSolverTest, SolveValidatesSizesAndA) {
  const Problem p = MakeProblem(2, 20, 4, 1.0);
  LocalSolver solver(p.dense, 1.0, Logistic());
  EXPECT_EQ(solver.dim(), 4);
  EXPECT_EQ(solver.rows(), 20);
  EXPECT_EQ(solver.loss().kind, LossKind::kLogistic);
  Eigen::VectorXd f = Eigen::VectorXd::Zero(4);
  EXPECT_TRUE(ThrowsInputError([&] { (void)solver.Solve(1.0, Eigen::VectorXd::Zero(3), f); },
                               {"g has 3 entries, expected 4"}));
  Eigen::VectorXd wrong = Eigen::VectorXd::Zero(5);
  EXPECT_TRUE(ThrowsInputError([&] { (void)solver.Solve(1.0, p.g, wrong); }, {"f has 5 entries"}));
  EXPECT_TRUE(ThrowsInputError([&] { (void)solver.Solve(0.0, p.g, f); }, {"a must be > 0"}));
  // An empty f is a cold start from 0.
  Eigen::VectorXd empty;
  EXPECT_EQ(solver.Solve(1.0, p.g, empty).status, SolveStatus::kConverged);
  EXPECT_EQ(empty.size(), 4);
}

TEST(LocalSolverTest, StatusNames) {
  EXPECT_STREQ(ToString(SolveStatus::kConverged), "converged");
  EXPECT_STREQ(ToString(SolveStatus::kMaxIterations), "max_iterations");
  EXPECT_STREQ(ToString(SolveStatus::kLineSearchFailed), "line_search_failed");
  EXPECT_STREQ(ToString(SolveStatus::kNonFinite), "non_finite");
}

// --- Loss sums and gradients -------------------------------------------------------------

struct Case {
  bool sparse;
  LossKind loss;
};

class LocalSolverCaseTest : public ::testing::TestWithParam<Case> {
 protected:
  Loss loss() const { return GetParam().loss == LossKind::kLogistic ? Logistic() : SmoothHinge(); }
  const Dataset& data(const Problem& p) const { return GetParam().sparse ? p.sparse : p.dense; }
};

TEST_P(LocalSolverCaseTest, LossAndGradientMatchReferenceAndFiniteDifferences) {
  const Problem p = MakeProblem(3, 60, 7, 0.6);
  LocalSolver solver(data(p), p.weights, loss(), Keep(data(p)));
  Stream s(33, 0, 0, Purpose::kGenerateData);
  Eigen::VectorXd f(7);
  for (int c = 0; c < 7; ++c) f[c] = 2.0 * s.Normal();
  Eigen::VectorXd grad;
  const double value = solver.LossAndGradient(f, grad);
  const double reference = LossSumReference(p, loss(), p.weights, f);
  EXPECT_NEAR(value, reference, 1e-13 * reference);
  EXPECT_NEAR(solver.LossSum(f), reference, 1e-13 * reference);
  const Eigen::VectorXd zero = Eigen::VectorXd::Zero(7);
  EXPECT_LE((grad - GradientReference(p, loss(), p.weights, 0.0, zero, f)).norm(),
            1e-13 * grad.norm());
  // Central differences of LossSum: truncation O(step^2 sum_n w_n |L'''| ||x_n||^3) and rounding
  // O(eps |sum| / step) are both below 1e-6 here. (The smooth hinge's L'' jumps at the kinks,
  // which adds O(step) only for margins within step of a kink.)
  const double step = 1e-6;
  for (int c = 0; c < 7; ++c) {
    Eigen::VectorXd plus = f;
    Eigen::VectorXd minus = f;
    plus[c] += step;
    minus[c] -= step;
    const double fd = (solver.LossSum(plus) - solver.LossSum(minus)) / (2.0 * step);
    EXPECT_NEAR(grad[c], fd, 1e-6 * std::max(1.0, grad.norm())) << c;
  }
  // The unweighted mean.
  double mean = 0.0;
  for (int r = 0; r < 60; ++r) mean += loss().Value(p.dense.y[r] * Rows(p).row(r).dot(f));
  EXPECT_NEAR(solver.MeanLoss(f), mean / 60.0, 1e-14 * mean);
}

TEST_P(LocalSolverCaseTest, SolutionIsOptimalAndReportIsExact) {
  const Problem p = MakeProblem(4, 80, 6, 0.7);
  const double a = 0.3;
  LocalSolver solver(data(p), p.weights, loss(), Keep(data(p), Tight()));
  Eigen::VectorXd f = Eigen::VectorXd::Zero(6);
  const SolveReport report = solver.Solve(a, p.g, f);
  ASSERT_EQ(report.status, SolveStatus::kConverged) << ToString(report.status);
  EXPECT_GE(report.iterations, 1);
  const Eigen::VectorXd grad = GradientReference(p, loss(), p.weights, a, p.g, f);
  EXPECT_LE(grad.norm(), 1e-10);
  EXPECT_LE(report.gradient_norm, 1e-12 * std::max(1.0, p.g.norm() + a * f.norm()));
  const double objective = ObjectiveReference(p, loss(), p.weights, a, p.g, f);
  EXPECT_NEAR(report.objective, objective, 1e-13 * std::abs(objective));
  const double loss_sum = LossSumReference(p, loss(), p.weights, f);
  EXPECT_NEAR(report.loss_sum, loss_sum, 1e-13 * loss_sum);
  // No nearby point is better.
  Stream s(44, 0, 0, Purpose::kGenerateData);
  for (int k = 0; k < 20; ++k) {
    Eigen::VectorXd probe = f;
    for (int c = 0; c < 6; ++c) probe[c] += 1e-3 * s.Normal();
    EXPECT_GE(ObjectiveReference(p, loss(), p.weights, a, p.g, probe), objective);
  }
}

TEST_P(LocalSolverCaseTest, WarmStartAtTheOptimumTakesAtMostOneStep) {
  const Problem p = MakeProblem(5, 80, 6, 0.7);
  const double a = 0.5;
  LocalSolver solver(data(p), p.weights, loss(), Keep(data(p)));
  Eigen::VectorXd f = Eigen::VectorXd::Zero(6);
  ASSERT_EQ(solver.Solve(a, p.g, f).status, SolveStatus::kConverged);
  // Same solver (its state at f is kept): nothing to do.
  Eigen::VectorXd again = f;
  SolveReport report = solver.Solve(a, p.g, again);
  EXPECT_EQ(report.status, SolveStatus::kConverged);
  EXPECT_EQ(report.iterations, 0);
  EXPECT_EQ(again, f);
  // A fresh solver starting there.
  LocalSolver fresh(data(p), p.weights, loss(), Keep(data(p)));
  report = fresh.Solve(a, p.g, again);
  EXPECT_EQ(report.status, SolveStatus::kConverged);
  EXPECT_LE(report.iterations, 1);
  EXPECT_LE((again - f).norm(), 1e-9);
}

INSTANTIATE_TEST_SUITE_P(
    LocalSolverStorage, LocalSolverCaseTest,
    ::testing::Values(Case{false, LossKind::kLogistic}, Case{true, LossKind::kLogistic},
                      Case{false, LossKind::kSmoothHinge}, Case{true, LossKind::kSmoothHinge}),
    [](const auto& param_info) {
      return std::string(param_info.param.sparse ? "sparse_" : "dense_") +
             (param_info.param.loss == LossKind::kLogistic ? "logistic" : "smooth_hinge");
    });

TEST(LocalSolverTest, EqualWeightsMatchTheReferenceAtAnyScale) {
  // With equal weights the logistic loss sum is taken as logs of block products (one log per 64
  // rows); it must match the per-row sum of Loss::Value from tiny to huge margins.
  const Problem p = MakeProblem(17, 1000, 8, 0.8);
  const double w = 0.29;
  const Eigen::VectorXd weights = Eigen::VectorXd::Constant(1000, w);
  LocalSolver solver(p.sparse, w, Logistic());
  Stream s(77, 0, 0, Purpose::kGenerateData);
  Eigen::VectorXd direction(8);
  for (int c = 0; c < 8; ++c) direction[c] = s.Normal();
  Eigen::VectorXd grad(8);
  for (double scale : {0.0, 1e-3, 0.5, 4.0, 40.0, 1e3, 1e5}) {
    const Eigen::VectorXd f = scale * direction;
    const double reference = LossSumReference(p, Logistic(), weights, f);
    EXPECT_NEAR(solver.LossAndGradient(f, grad), reference, 1e-13 * reference) << scale;
    EXPECT_LE(
        (grad - GradientReference(p, Logistic(), weights, 0.0, Eigen::VectorXd::Zero(8), f)).norm(),
        1e-12 * std::max(1.0, grad.norm()))
        << scale;
  }
  // Margins mostly far on the right side: a small sum keeps its relative accuracy.
  const Eigen::VectorXd separating =
      60.0 * GradientReference(p, Logistic(), weights, 0.0, Eigen::VectorXd::Zero(8),
                               Eigen::VectorXd::Zero(8));
  const double tiny = LossSumReference(p, Logistic(), weights, -separating);
  EXPECT_NEAR(solver.LossSum(-separating), tiny, 1e-13 * tiny);
}

// --- Agreement between storage kinds and linear solvers ----------------------------------

TEST(LocalSolverTest, DenseAndSparseStorageGiveTheSameSolution) {
  const Problem p = MakeProblem(6, 200, 30, 0.2);
  for (const Loss& loss : {Logistic(), SmoothHinge()}) {
    LocalSolver dense(p.dense, p.weights, loss, Keep(p.dense, Tight()));
    LocalSolver sparse(p.sparse, p.weights, loss, Keep(p.sparse, Tight()));
    Eigen::VectorXd fd = Eigen::VectorXd::Zero(30);
    Eigen::VectorXd fs = Eigen::VectorXd::Zero(30);
    const SolveReport rd = dense.Solve(0.2, p.g, fd);
    const SolveReport rs = sparse.Solve(0.2, p.g, fs);
    ASSERT_EQ(rd.status, SolveStatus::kConverged) << loss.Name();
    ASSERT_EQ(rs.status, SolveStatus::kConverged) << loss.Name();
    EXPECT_LE((fd - fs).norm(), 1e-12 * std::max(1.0, fd.norm())) << loss.Name();
    EXPECT_NEAR(rd.loss_sum, rs.loss_sum, 1e-12 * rd.loss_sum) << loss.Name();
  }
}

TEST(LocalSolverTest, CholeskyAndConjugateGradientAgree) {
  // 150 columns: the Cholesky factorisation runs over several 64-wide tiles.
  for (bool sparse : {false, true}) {
    const Problem p = MakeProblem(7, 400, 150, 0.1);
    NewtonOptions cg = Tight();
    cg.dense_hessian_max_dim = 0;  // force the matrix-free path
    const Dataset& data = sparse ? p.sparse : p.dense;
    LocalSolver chol(data, p.weights, Logistic(), Keep(data, Tight()));
    LocalSolver matrix_free(data, p.weights, Logistic(), Keep(data, cg));
    Eigen::VectorXd f1 = Eigen::VectorXd::Zero(150);
    Eigen::VectorXd f2 = Eigen::VectorXd::Zero(150);
    const SolveReport r1 = chol.Solve(0.05, p.g, f1);
    const SolveReport r2 = matrix_free.Solve(0.05, p.g, f2);
    ASSERT_EQ(r1.status, SolveStatus::kConverged);
    ASSERT_EQ(r2.status, SolveStatus::kConverged);
    EXPECT_GE(r1.hessian_factorizations, 1);
    EXPECT_EQ(r2.hessian_factorizations, 0);
    // Both gradients are below 1e-12 * scale, so ||f1 - f2|| <= (|grad1| + |grad2|) / a.
    EXPECT_LE((f1 - f2).norm(), 1e-9 * std::max(1.0, f1.norm())) << sparse;
    EXPECT_LE(GradientReference(p, Logistic(), p.weights, 0.05, p.g, f1).norm(), 1e-9);
  }
}

// The Newton direction's cost model: Cholesky where forming and factorising the Hessian is
// cheap next to CG's Hessian-vector products (few columns, as Adult), CG where the d^3
// factorisation dominates (d = 1000 with 2% nonzeros); the forcing flags override it.
TEST(LocalSolverTest, CostModelChoosesTheNewtonDirection) {
  struct ModelCase {
    int rows, cols;
    double density;
    bool cost_model;
    bool expect_cholesky;
  };
  for (const ModelCase c :
       {ModelCase{600, 100, 0.13, true, true}, ModelCase{300, 1000, 0.02, true, false},
        ModelCase{300, 1000, 0.02, false, true}}) {
    const Problem p = MakeProblem(21, c.rows, c.cols, c.density);
    NewtonOptions o;
    o.newton_cost_model = c.cost_model;
    LocalSolver solver(p.sparse, p.weights, Logistic(), o);
    Eigen::VectorXd f = Eigen::VectorXd::Zero(c.cols);
    const SolveReport r = solver.Solve(0.5, p.g, f);
    ASSERT_EQ(r.status, SolveStatus::kConverged) << c.cols;
    EXPECT_EQ(r.hessian_factorizations > 0, c.expect_cholesky) << c.cols << " " << c.cost_model;
  }
}

// The rows' storage (NewtonOptions::row_storage): the cost model stores sparse-looking rows as
// CSR and dense-looking rows dense whatever the input's own storage, and a forced storage is
// kept. Where the storage is the same, the input's storage does not change a bit.
TEST(LocalSolverTest, RowStorageFollowsTheCostModelNotTheInput) {
  struct StorageCase {
    int cols;
    double density;
    bool expect_csr;
  };
  for (const StorageCase c : {StorageCase{100, 0.13, true}, StorageCase{20, 0.1, true},
                              StorageCase{20, 1.0, false}, StorageCase{100, 0.9, false}}) {
    const Problem p = MakeProblem(31, 300, c.cols, c.density);
    for (const Dataset* data : {&p.dense, &p.sparse}) {
      LocalSolver automatic(*data, p.weights, Logistic());
      EXPECT_EQ(automatic.StoresCsr(), c.expect_csr)
          << c.cols << " columns, density " << c.density << ", input " << data->name;
      NewtonOptions o;
      o.row_storage = NewtonOptions::RowStorage::kDense;
      EXPECT_FALSE(LocalSolver(*data, p.weights, Logistic(), o).StoresCsr());
      o.row_storage = NewtonOptions::RowStorage::kCsr;
      EXPECT_TRUE(LocalSolver(*data, p.weights, Logistic(), o).StoresCsr());
    }
  }
}

TEST(LocalSolverTest, TheInputsStorageChangesNoBitOfAStorage) {
  const Problem p = MakeProblem(32, 250, 40, 0.3);
  for (auto storage : {NewtonOptions::RowStorage::kDense, NewtonOptions::RowStorage::kCsr}) {
    for (const Loss& loss : {Logistic(), SmoothHinge()}) {
      NewtonOptions o;
      o.row_storage = storage;
      LocalSolver from_dense(p.dense, p.weights, loss, o);
      LocalSolver from_sparse(p.sparse, p.weights, loss, o);
      Eigen::VectorXd f1 = Eigen::VectorXd::Zero(40);
      Eigen::VectorXd f2 = Eigen::VectorXd::Zero(40);
      const SolveReport r1 = from_dense.Solve(0.3, p.g, f1);
      const SolveReport r2 = from_sparse.Solve(0.3, p.g, f2);
      ASSERT_EQ(r1.status, SolveStatus::kConverged);
      EXPECT_EQ(r1.iterations, r2.iterations);
      EXPECT_EQ(r1.loss_sum, r2.loss_sum);  // bit for bit
      EXPECT_EQ(f1, f2) << loss.Name()
                        << (storage == NewtonOptions::RowStorage::kCsr ? " csr" : " dense");
    }
  }
}

// X~^T s is scattered row by row into four accumulators per column; the bits must be those of
// the column-by-column product with four accumulators (entries t, t + 4, ... of a column in
// accumulator t, the tail after the last multiple of four in accumulator 0, then
// (acc0 + acc1) + (acc2 + acc3)), which the seeded runs' bits were recorded with. Column
// lengths 0..9 cover every tail length. Smooth hinge with unequal weights: the per-sample
// derivatives are Loss::D1 times the weight, so the reference is exact.
TEST(LocalSolverTest, GradientKeepsTheColumnSummationOrder) {
  const int rows = 40;
  const int cols = 10;
  Stream s(5, 0, 0, Purpose::kGenerateData);
  DenseRows x = DenseRows::Zero(rows, cols);
  for (int c = 0; c < cols; ++c) {
    for (int k = 0; k < c; ++k) x(static_cast<int>(s.Uniform() * rows) % rows, c) = s.Normal();
  }
  for (int r = 0; r < rows; ++r) x(r, r % cols) = 0.3 * s.Normal() + 1.0;
  Eigen::VectorXd y(rows), w(rows), f(cols);
  for (int r = 0; r < rows; ++r) {
    y[r] = s.Uniform() < 0.5 ? -1.0 : 1.0;
    w[r] = 0.5 + s.Uniform();
  }
  for (int c = 0; c < cols; ++c) f[c] = 0.7 * s.Normal();
  Dataset data;
  SparseRows sx = x.sparseView();
  sx.makeCompressed();
  data.x = sx;
  data.y = y;
  const Loss loss = SmoothHinge();
  LocalSolver solver(data, w, loss);
  Eigen::VectorXd grad(cols);
  (void)solver.LossAndGradient(f, grad);

  // Reference: margins summed in column order, derivatives, then each column's dot product.
  Eigen::VectorXd dl(rows);
  for (int r = 0; r < rows; ++r) {
    double m = 0.0;
    for (int c = 0; c < cols; ++c) {
      if (x(r, c) != 0.0) m += f[c] * (y[r] * x(r, c));
    }
    dl[r] = w[r] * loss.D1(m);
  }
  for (int c = 0; c < cols; ++c) {
    std::vector<double> terms;
    for (int r = 0; r < rows; ++r) {
      if (x(r, c) != 0.0) terms.push_back((y[r] * x(r, c)) * dl[r]);
    }
    double acc[4] = {0.0, 0.0, 0.0, 0.0};
    const std::size_t full = terms.size() / 4 * 4;
    for (std::size_t k = 0; k < terms.size(); ++k) acc[k < full ? k % 4 : 0] += terms[k];
    const double expected = (acc[0] + acc[1]) + (acc[2] + acc[3]);
    EXPECT_EQ(grad[c], expected) << "column " << c << " with " << terms.size() << " entries";
  }
}

TEST(LocalSolverTest, TiledCholeskyMatchesEigenFactorisation) {
  // A Newton step from 0 with pure Newton and one iteration is -H(0)^{-1} grad(0); compare it
  // with Eigen's LLT on the Hessian built here. 200 columns = 3 full tiles and a partial one.
  const Problem p = MakeProblem(8, 300, 200, 0.3);
  const double a = 0.7;
  NewtonOptions one;
  one.max_iterations = 1;
  one.hessian_reuse_ratio = 0.0;
  one.armijo_c = 1e-4;
  one.newton_cost_model = false;  // the Cholesky path, whichever the cost model would pick
  LocalSolver solver(p.dense, p.weights, Logistic(), Keep(p.dense, one));
  Eigen::VectorXd f = Eigen::VectorXd::Zero(200);
  const SolveReport report = solver.Solve(a, p.g, f);
  ASSERT_EQ(report.iterations, 1);
  // At f = 0 every margin is 0: L'' = 1/4, L' = -1/2.
  Eigen::MatrixXd h = Eigen::MatrixXd::Identity(200, 200) * a;
  Eigen::VectorXd grad = p.g;
  for (int r = 0; r < 300; ++r) {
    const Eigen::VectorXd x = p.dense.y[r] * Rows(p).row(r).transpose();
    h += 0.25 * p.weights[r] * x * x.transpose();
    grad += -0.5 * p.weights[r] * x;
  }
  const Eigen::VectorXd expected = -h.llt().solve(grad);
  // The full step is accepted for this well-conditioned problem (checked by the comparison).
  EXPECT_LE((f - expected).norm(), 1e-12 * expected.norm());
}

TEST(LocalSolverTest, LaggedHessianAndPureNewtonAgree) {
  const Problem p = MakeProblem(9, 300, 40, 0.3);
  NewtonOptions pure = Tight();
  pure.hessian_reuse_ratio = 0.0;
  LocalSolver lagged(p.sparse, p.weights, Logistic(), Tight());
  LocalSolver newton(p.sparse, p.weights, Logistic(), pure);
  Eigen::VectorXd f1 = Eigen::VectorXd::Zero(40);
  Eigen::VectorXd f2 = Eigen::VectorXd::Zero(40);
  // A sequence of related problems, as in consensus ADMM: g drifts, a stays.
  Stream s(99, 0, 0, Purpose::kGenerateData);
  Eigen::VectorXd g = p.g;
  for (int round = 0; round < 15; ++round) {
    for (int c = 0; c < 40; ++c) g[c] += 0.02 * s.Normal();
    const SolveReport r1 = lagged.Solve(0.4, g, f1);
    const SolveReport r2 = newton.Solve(0.4, g, f2);
    ASSERT_EQ(r1.status, SolveStatus::kConverged) << round;
    ASSERT_EQ(r2.status, SolveStatus::kConverged) << round;
    EXPECT_EQ(r2.hessian_factorizations, r2.iterations) << round;
    EXPECT_LE((f1 - f2).norm(), 1e-10 * std::max(1.0, f2.norm())) << round;
    // The reported loss sum is the one at the returned point, despite the state being carried
    // over between calls.
    EXPECT_NEAR(r1.loss_sum, LossSumReference(p, Logistic(), p.weights, f1), 1e-12 * r1.loss_sum);
  }
}

// Secant pairs (NewtonOptions::secant_pairs) change the path to the minimiser, not the
// minimiser: on a drifting sequence of problems, with equal weights (the fused pass) and
// unequal ones, each solve meets the same certified gradient test and lands within the
// tolerance's reach of the plain factor's solution; and the pairs are used (the path differs).
TEST(LocalSolverTest, SecantPairsReachTheSameMinimiser) {
  const Problem p = MakeProblem(12, 400, 30, 0.2);
  const Eigen::VectorXd equal = Eigen::VectorXd::Constant(p.weights.size(), 0.7);
  for (const Eigen::VectorXd* weights : {&p.weights, &equal}) {
    NewtonOptions with_pairs = Tight();
    with_pairs.secant_pairs = 4;
    LocalSolver plain(p.sparse, *weights, Logistic(), Tight());
    LocalSolver secant(p.sparse, *weights, Logistic(), with_pairs);
    Eigen::VectorXd f1 = Eigen::VectorXd::Zero(30);
    Eigen::VectorXd f2 = Eigen::VectorXd::Zero(30);
    Stream s(7, 0, 0, Purpose::kGenerateData);
    Eigen::VectorXd g = p.g;
    bool paths_differ = false;
    for (int round = 0; round < 20; ++round) {
      for (int c = 0; c < 30; ++c) g[c] += 0.05 * s.Normal();
      const SolveReport r1 = plain.Solve(0.3, g, f1);
      const SolveReport r2 = secant.Solve(0.3, g, f2);
      ASSERT_EQ(r1.status, SolveStatus::kConverged) << round;
      ASSERT_EQ(r2.status, SolveStatus::kConverged) << round;
      // The stopping rule is the gradient at the returned point, recomputed here from the data.
      Eigen::VectorXd grad;
      secant.LossAndGradient(f2, grad);
      grad += 0.3 * f2 + g;
      EXPECT_LE(grad.norm(), Tight().gradient_tolerance * std::max(1.0, g.norm() + 0.3 * f2.norm()))
          << round;
      EXPECT_LE((f1 - f2).norm(), 1e-10 * std::max(1.0, f1.norm())) << round;
      EXPECT_NEAR(r1.loss_sum, r2.loss_sum, 1e-9 * std::max(1.0, r1.loss_sum)) << round;
      paths_differ =
          paths_differ || r1.iterations != r2.iterations || (f1.array() != f2.array()).any();
    }
    EXPECT_TRUE(paths_differ);
  }
}

// Whole seeded runs of every consensus algorithm: with secant pairs every round's training loss
// is within 1e-9 (relative above 1: the solver's tolerance is relative to the problem's scale,
// and noisy runs reach losses near 100) of the plain factor's; each solve still reaches the
// minimiser.
TEST(LocalSolverTest, SecantPairsKeepEveryRoundsTrainingLoss) {
  for (Algorithm algorithm :
       {Algorithm::kAdmm, Algorithm::kDvp, Algorithm::kPvp, Algorithm::kMadmm, Algorithm::kRadmm,
        Algorithm::kMradmm, Algorithm::kPrivateMradmm, Algorithm::kPdml}) {
    for (std::uint64_t seed : {5, 6}) {
      std::vector<RoundMetrics> rounds[2];
      for (int pairs : {0, 8}) {
        RunSpec spec;
        spec.algorithm.Select(algorithm);
        if (algorithm == Algorithm::kDvp) spec.algorithm.As<DvpParams>().alpha = 0.5;
        if (algorithm == Algorithm::kPvp) spec.algorithm.As<PvpParams>().alpha = 0.5;
        if (algorithm == Algorithm::kMadmm) spec.algorithm.As<MadmmParams>().alpha = 0.5;
        if (algorithm == Algorithm::kPrivateMradmm) {
          spec.algorithm.As<PrivateMradmmParams>().alpha = 0.5;
        }
        spec.data.source = DataSource::kSparse;
        spec.data.rows = 3000;
        spec.graph.nodes = 4;
        spec.graph.edges = 5;
        spec.iterations = 12;
        spec.seed = seed;
        spec.noise_seed = 9;
        spec.compute_optimum = false;
        spec.engine = runtime::EngineKind::kSerial;
        spec.newton.secant_pairs = pairs;
        test::RunRecorder recorder;
        (void)RunExperiment(spec, &recorder);
        rounds[pairs == 0 ? 0 : 1] = recorder.rounds;
      }
      ASSERT_EQ(rounds[0].size(), rounds[1].size());
      ASSERT_FALSE(rounds[0].empty());
      for (std::size_t k = 0; k < rounds[0].size(); ++k) {
        const double loss = rounds[0][k].train_loss;
        EXPECT_NEAR(loss, rounds[1][k].train_loss, 1e-9 * std::max(1.0, std::abs(loss)))
            << ChoiceName(algorithm) << " seed " << seed << " round " << rounds[0][k].round;
      }
    }
  }
}

// --- Closed forms and edge cases ----------------------------------------------------------

TEST(LocalSolverTest, ZeroDataWeightGivesMinusGOverA) {
  const Problem p = MakeProblem(10, 50, 8, 0.5);
  for (bool sparse : {false, true}) {
    for (std::int64_t max_dim : {std::int64_t{2048}, std::int64_t{0}}) {
      NewtonOptions o;
      o.dense_hessian_max_dim = max_dim;
      LocalSolver solver(sparse ? p.sparse : p.dense, 0.0, Logistic(),
                         Keep(sparse ? p.sparse : p.dense, o));
      Eigen::VectorXd f = Eigen::VectorXd::Zero(8);
      const double a = 1.7;
      const SolveReport report = solver.Solve(a, p.g, f);
      EXPECT_EQ(report.status, SolveStatus::kConverged);
      EXPECT_EQ(report.iterations, 1);
      // One Newton step with H = a I; only rounding (sqrt(a)^2 != a) separates it from -g/a.
      EXPECT_LE((f + p.g / a).norm(), 4e-16 * p.g.norm() / a) << sparse << " " << max_dim;
      EXPECT_EQ(report.loss_sum, 0.0);
    }
  }
}

TEST(LocalSolverTest, NoRowsGivesMinusGOverA) {
  Dataset empty;
  empty.x = DenseRows(0, 3);
  empty.y.resize(0);
  LocalSolver solver(empty, 1.0, Logistic());
  Eigen::VectorXd f = Eigen::VectorXd::Zero(3);
  const Eigen::VectorXd g = Eigen::Vector3d(1.0, -2.0, 0.5);
  EXPECT_EQ(solver.Solve(2.0, g, f).status, SolveStatus::kConverged);
  EXPECT_LE((f + g / 2.0).norm(), 1e-15);
  EXPECT_EQ(solver.MeanLoss(f), 0.0);
}

TEST(LocalSolverTest, SmoothHingeConvergesFromFarAway) {
  const Problem p = MakeProblem(11, 300, 12, 0.5);
  LocalSolver solver(p.sparse, p.weights, SmoothHinge(), Tight());
  Eigen::VectorXd f = Eigen::VectorXd::Constant(12, 50.0);
  const SolveReport report = solver.Solve(0.1, p.g, f);
  ASSERT_EQ(report.status, SolveStatus::kConverged) << ToString(report.status);
  EXPECT_LE(GradientReference(p, SmoothHinge(), p.weights, 0.1, p.g, f).norm(), 1e-10);
}

TEST(LocalSolverTest, LogisticConvergesFromFarAwayWithSmallA) {
  // Nearly separable data and a weak regulariser: large steps need damping.
  const Problem p = MakeProblem(12, 300, 5, 1.0);
  LocalSolver solver(p.dense, p.weights, Logistic(), Tight());
  Eigen::VectorXd f = Eigen::VectorXd::Constant(5, -100.0);
  const SolveReport report = solver.Solve(1e-3, p.g, f);
  ASSERT_EQ(report.status, SolveStatus::kConverged) << ToString(report.status);
  EXPECT_LE(GradientReference(p, Logistic(), p.weights, 1e-3, p.g, f).norm(), 1e-9);
}

TEST(LocalSolverTest, IterationLimitReturnsAUsablePointWithExactLoss) {
  const Problem p = MakeProblem(13, 100, 6, 1.0);
  NewtonOptions o;
  o.max_iterations = 1;
  LocalSolver solver(p.dense, p.weights, Logistic(), o);
  Eigen::VectorXd f = Eigen::VectorXd::Constant(6, 20.0);
  const SolveReport report = solver.Solve(0.5, p.g, f);
  EXPECT_EQ(report.status, SolveStatus::kMaxIterations);
  EXPECT_EQ(report.iterations, 1);
  EXPECT_TRUE(f.allFinite());
  EXPECT_NEAR(report.loss_sum, LossSumReference(p, Logistic(), p.weights, f),
              1e-12 * report.loss_sum);
  EXPECT_NEAR(report.objective, ObjectiveReference(p, Logistic(), p.weights, 0.5, p.g, f),
              1e-12 * std::abs(report.objective));
  EXPECT_NEAR(report.gradient_norm, GradientReference(p, Logistic(), p.weights, 0.5, p.g, f).norm(),
              1e-10 * report.gradient_norm);
}

TEST(LocalSolverTest, NonFiniteInputsReturnNonFiniteWithoutThrowing) {
  const Problem p = MakeProblem(14, 40, 4, 1.0);
  LocalSolver solver(p.sparse, p.weights, Logistic());
  Eigen::VectorXd g = p.g;
  g[2] = kNaN;
  Eigen::VectorXd f = Eigen::VectorXd::Zero(4);
  SolveReport report = solver.Solve(1.0, g, f);
  EXPECT_EQ(report.status, SolveStatus::kNonFinite);
  EXPECT_TRUE(std::isnan(report.objective));
  EXPECT_EQ(f, Eigen::VectorXd::Zero(4));  // untouched

  g[2] = std::numeric_limits<double>::infinity();
  EXPECT_EQ(solver.Solve(1.0, g, f).status, SolveStatus::kNonFinite);
  EXPECT_EQ(solver.Solve(kNaN, p.g, f).status, SolveStatus::kNonFinite);
  Eigen::VectorXd bad_f = f;
  bad_f[0] = kNaN;
  EXPECT_EQ(solver.Solve(1.0, p.g, bad_f).status, SolveStatus::kNonFinite);
  // Finite but overflowing: g^T f = inf at the start.
  Eigen::VectorXd huge = Eigen::VectorXd::Constant(4, 1e300);
  Eigen::VectorXd start = Eigen::VectorXd::Constant(4, 1e300);
  EXPECT_EQ(solver.Solve(1.0, huge, start).status, SolveStatus::kNonFinite);
  // The solver is still usable afterwards.
  EXPECT_EQ(solver.Solve(1.0, p.g, f).status, SolveStatus::kConverged);
  EXPECT_TRUE(f.allFinite());
}

TEST(LocalSolverTest, StateCarriedBetweenCallsMatchesAFreshSolver) {
  // LossAndGradient/LossSum/MeanLoss and Solve share the state kept at the last point; mixing
  // them must not change any result.
  const Problem p = MakeProblem(15, 120, 10, 0.4);
  LocalSolver kept(p.sparse, p.weights, Logistic());
  Eigen::VectorXd f = Eigen::VectorXd::Zero(10);
  Eigen::VectorXd grad(10);
  Stream s(55, 0, 0, Purpose::kGenerateData);
  Eigen::VectorXd g = p.g;
  for (int round = 0; round < 8; ++round) {
    for (int c = 0; c < 10; ++c) g[c] += 0.05 * s.Normal();
    const double a = round < 4 ? 0.3 : 0.6;  // a change invalidates the kept factor
    (void)kept.Solve(a, g, f);
    const double loss = kept.LossAndGradient(f, grad);
    LocalSolver fresh(p.sparse, p.weights, Logistic());
    Eigen::VectorXd fresh_grad;
    EXPECT_NEAR(loss, fresh.LossAndGradient(f, fresh_grad), 1e-13 * loss);
    EXPECT_LE((grad - fresh_grad).norm(), 1e-12 * std::max(1.0, grad.norm()));
    EXPECT_NEAR(kept.MeanLoss(f), fresh.MeanLoss(f), 1e-14);
    Eigen::VectorXd elsewhere = f.array() + 0.1;
    EXPECT_NEAR(kept.LossSum(elsewhere), fresh.LossSum(elsewhere), 1e-13 * loss);
  }
}

// Solvers reading `data`'s rows in place (NewtonOptions::borrow_rows) and copying them, with
// the rows stored as `storage`, give the same bits on every path: Cholesky and CG, logistic
// and smooth hinge, equal weights (the fused logistic pass of CSR) and per-sample weights.
void ExpectRowsReadInPlaceGiveTheCopysBits(const Problem& p, const Dataset& data,
                                           NewtonOptions::RowStorage storage) {
  const auto d = static_cast<int>(data.cols());
  for (const bool cg : {false, true}) {
    for (const Loss loss : {Logistic(), SmoothHinge()}) {
      for (const bool equal_weights : {true, false}) {
        NewtonOptions a;
        a.row_storage = storage;
        if (cg) a.dense_hessian_max_dim = 0;
        NewtonOptions b = a;
        b.borrow_rows = true;
        const Eigen::VectorXd w =
            equal_weights ? Eigen::VectorXd::Constant(p.weights.size(), 0.7) : p.weights;
        LocalSolver copied(data, w, loss, a);
        LocalSolver borrowed(data, w, loss, b);
        ASSERT_EQ(copied.StoresCsr(), storage == NewtonOptions::RowStorage::kCsr);
        ASSERT_EQ(borrowed.StoresCsr(), copied.StoresCsr());
        EXPECT_FALSE(copied.ReadsRowsInPlace());
        ASSERT_TRUE(borrowed.ReadsRowsInPlace());
        Eigen::VectorXd f1 = Eigen::VectorXd::Zero(d);
        Eigen::VectorXd f2 = f1;
        for (int round = 0; round < 3; ++round) {
          const Eigen::VectorXd g = p.g * (1.0 + round);
          const SolveReport r1 = copied.Solve(0.5, g, f1);
          const SolveReport r2 = borrowed.Solve(0.5, g, f2);
          ASSERT_EQ(r1.iterations, r2.iterations);
          ASSERT_EQ(r1.objective, r2.objective);
          for (int c = 0; c < d; ++c) ASSERT_EQ(f1[c], f2[c]) << "cg " << cg << " column " << c;
        }
        Eigen::VectorXd g1, g2;
        EXPECT_EQ(copied.LossAndGradient(f1, g1), borrowed.LossAndGradient(f2, g2));
        EXPECT_EQ(g1, g2);
        EXPECT_EQ(copied.MeanLoss(f1), borrowed.MeanLoss(f2));
      }
    }
  }
}

// Reading the caller's CSR rows in place (NewtonOptions::borrow_rows) gives the bits of the
// copy, for every path; rows it cannot read in place are copied.
TEST(LocalSolverTest, RowsReadInPlaceGiveTheCopysBits) {
  const Problem p = MakeProblem(21, 300, 40, 0.15);
  ExpectRowsReadInPlaceGiveTheCopysBits(p, p.sparse, NewtonOptions::RowStorage::kCsr);
  NewtonOptions copy;
  copy.row_storage = NewtonOptions::RowStorage::kCsr;
  NewtonOptions in_place = copy;
  in_place.borrow_rows = true;
  // Rows it cannot read in place: not compressed, a stored zero, labels not +-1.
  Dataset uncompressed = p.sparse;
  std::get<SparseRows>(uncompressed.x).uncompress();
  EXPECT_FALSE(LocalSolver(uncompressed, 1.0, Logistic(), in_place).ReadsRowsInPlace());
  Dataset stored_zero = p.sparse;
  std::get<SparseRows>(stored_zero.x).valuePtr()[0] = 0.0;
  EXPECT_FALSE(LocalSolver(stored_zero, 1.0, Logistic(), in_place).ReadsRowsInPlace());
  Dataset scaled_labels = p.sparse;
  scaled_labels.y *= 2.0;
  EXPECT_FALSE(LocalSolver(scaled_labels, 1.0, Logistic(), in_place).ReadsRowsInPlace());
  // Labels other than +-1 are folded into the copied values (y x, as before this option); unit
  // labels are applied on the fly. Both give the same bits: rows 2x with labels y against rows
  // x with labels 2y (the same products y 2x), through every kernel.
  Dataset doubled_rows = p.sparse;
  std::get<SparseRows>(doubled_rows.x) *= 2.0;
  for (const bool cg : {false, true}) {
    NewtonOptions a = copy;
    NewtonOptions b = in_place;
    if (cg) a.dense_hessian_max_dim = b.dense_hessian_max_dim = 0;
    for (const Eigen::VectorXd& w :
         {Eigen::VectorXd(Eigen::VectorXd::Constant(300, 0.7)), p.weights}) {
      Eigen::VectorXd f1 = Eigen::VectorXd::Zero(40);
      Eigen::VectorXd f2 = f1;
      LocalSolver folded(scaled_labels, w, Logistic(), a);
      LocalSolver on_the_fly(doubled_rows, w, Logistic(), b);
      ASSERT_TRUE(on_the_fly.ReadsRowsInPlace());
      const SolveReport r1 = folded.Solve(0.5, p.g, f1);
      const SolveReport r2 = on_the_fly.Solve(0.5, p.g, f2);
      EXPECT_EQ(r1.iterations, r2.iterations);
      EXPECT_EQ(r1.objective, r2.objective);
      for (int c = 0; c < 40; ++c) EXPECT_EQ(f1[c], f2[c]) << "cg " << cg << " column " << c;
    }
  }
}

// Dense rows read in place (NewtonOptions::borrow_rows) give the bits of the copy with the labels
// folded in, on every dense path: X~ v and X~^T s with y applied on the fly, the Hessian formed
// in several chunks of rows (300 rows, 128 per chunk) without labels, and CG's preconditioner.
TEST(LocalSolverTest, DenseRowsReadInPlaceGiveTheCopysBits) {
  const Problem p = MakeProblem(22, 300, 24, 0.8);
  ExpectRowsReadInPlaceGiveTheCopysBits(p, p.dense, NewtonOptions::RowStorage::kDense);
  NewtonOptions in_place;
  in_place.row_storage = NewtonOptions::RowStorage::kDense;
  in_place.borrow_rows = true;
  // Labels other than +-1, and sparse input stored dense, are copied.
  Dataset scaled_labels = p.dense;
  scaled_labels.y *= 2.0;
  EXPECT_FALSE(LocalSolver(scaled_labels, 1.0, Logistic(), in_place).ReadsRowsInPlace());
  EXPECT_FALSE(LocalSolver(p.sparse, 1.0, Logistic(), in_place).ReadsRowsInPlace());
}

// Read in place, the rows are not copied: a solver reading them takes less heap than one
// copying them by about the copy's size (dense: 8 bytes per value; CSR: 8 per value and 4 per
// column index), less the one per-sample array that reading dense rows in place needs.
TEST(LocalSolverTest, RowsReadInPlaceAreNotCopied) {
#if !DPADMM_TEST_COUNT_ALLOCATIONS
  GTEST_SKIP() << "allocations are only counted on glibc without sanitizers";
#endif
  const Problem p = MakeProblem(23, 2000, 200, 0.3);
  for (const auto storage : {NewtonOptions::RowStorage::kDense, NewtonOptions::RowStorage::kCsr}) {
    const bool dense = storage == NewtonOptions::RowStorage::kDense;
    const Dataset& data = dense ? p.dense : p.sparse;
    NewtonOptions copy;
    copy.row_storage = storage;
    NewtonOptions in_place = copy;
    in_place.borrow_rows = true;
    std::int64_t peak[2] = {0, 0};
    for (const bool borrow : {false, true}) {
      peak[borrow ? 1 : 0] = test::PeakBytesDuring([&] {
        const LocalSolver solver(data, p.weights, Logistic(), borrow ? in_place : copy);
        EXPECT_EQ(solver.ReadsRowsInPlace(), borrow);
      });
    }
    const double copied = dense ? 8.0 * 2000 * 200 : 12.0 * static_cast<double>(data.nonzeros());
    EXPECT_GE(static_cast<double>(peak[0] - peak[1]), 0.98 * copied) << (dense ? "dense" : "CSR");
  }
}

// Reading CSR rows in place, a solver holds one byte per stored entry (the entry's accumulator
// lane in X~^T s) besides its per-row arrays and its O(d^2) Hessian: 20 000 rows x 200 columns
// at 30% (1.2 million entries) take about 1 byte per entry + 100 per row + 0.4 MB. Four bytes per
// entry (the lanes' former 32-bit accumulator indices) fail the bound.
TEST(LocalSolverTest, ReadingCsrInPlaceHoldsOneBytePerEntry) {
#if !DPADMM_TEST_COUNT_ALLOCATIONS
  GTEST_SKIP() << "allocations are only counted on glibc without sanitizers";
#endif
  const Problem p = MakeProblem(29, 20000, 200, 0.3);
  NewtonOptions in_place;
  in_place.row_storage = NewtonOptions::RowStorage::kCsr;
  in_place.borrow_rows = true;
  const std::int64_t held = test::PeakBytesDuring([&] {
    const LocalSolver solver(p.sparse, 1.0, Logistic(), in_place);
    EXPECT_TRUE(solver.ReadsRowsInPlace());
  });
  const auto entries = static_cast<double>(p.sparse.nonzeros());
  const double bound = 1.5 * entries + 120.0 * 20000 + 1e6;
  EXPECT_LT(static_cast<double>(held), bound) << "entries " << entries;
  EXPECT_GT(static_cast<double>(held), entries);
}

// A consensus node's solver (one weight, rows and labels read in place, CSR with a Cholesky
// step: a lean solver) holds three per-row arrays of 8 bytes at most: its margins, X~ p and,
// while it is built, the rows' entry counts. L' and L'' are recomputed from the margins where
// read, the trial point is formed block by block, and the row pointers are the rows' own (nine
// arrays before: L' and L'' at the current and trial points, the trial margins, 64-bit row
// pointers; thirteen before that).
TEST(LocalSolverTest, NodeSolverHoldsThreePerRowArrays) {
#if !DPADMM_TEST_COUNT_ALLOCATIONS
  GTEST_SKIP() << "allocations are only counted on glibc without sanitizers";
#endif
  constexpr int kRows = 40000;
  const Problem p = MakeProblem(31, kRows, 100, 0.03);
  NewtonOptions in_place;
  in_place.row_storage = NewtonOptions::RowStorage::kCsr;
  in_place.borrow_rows = true;
  const std::int64_t held = test::PeakBytesDuring([&] {
    LocalSolver solver(p.sparse, 0.7, Logistic(), in_place);
    EXPECT_TRUE(solver.ReadsRowsInPlace());
    Eigen::VectorXd f;
    EXPECT_EQ(solver.Solve(1.0, p.g, f).status, SolveStatus::kConverged);
  });
  const auto entries = static_cast<double>(p.sparse.nonzeros());
  const double per_row = (static_cast<double>(held) - 1.0 * entries) / kRows;
  EXPECT_LT(per_row, 3.0 * 8.0 + 4.0) << "held " << held << " entries " << entries;
  EXPECT_GT(per_row, 2.0 * 8.0);
}

// A CSR solver with a Cholesky step keeps only the margins and recomputes w L' and w L'' from
// them where it reads them; with CG it keeps all three. At the same point both run the same
// fused pass, so what a checkpoint saves agrees bit for bit: equal and per-sample weights, both
// losses, 700 rows (ten blocks of 64 and a partial one).
TEST(LocalSolverTest, MarginsOnlyStateSavesTheDerivativesBitForBit) {
  const Problem p = MakeProblem(37, 700, 12, 0.4);
  const Eigen::VectorXd f = Eigen::VectorXd::LinSpaced(12, -2.0, 2.0);
  NewtonOptions cholesky;
  cholesky.row_storage = NewtonOptions::RowStorage::kCsr;
  cholesky.newton_cost_model = false;
  NewtonOptions cg = cholesky;
  cg.dense_hessian_max_dim = 0;
  for (const Loss& loss : {Logistic(), SmoothHinge()}) {
    for (const bool equal : {true, false}) {
      const Eigen::VectorXd w = equal ? Eigen::VectorXd::Constant(700, 0.3) : p.weights;
      LocalSolver margins_only(p.sparse, w, loss, cholesky);
      LocalSolver all_three(p.sparse, w, loss, cg);
      EXPECT_EQ(margins_only.LossSum(f), all_three.LossSum(f));
      const LocalSolver::WarmState a = margins_only.SaveWarmState();
      const LocalSolver::WarmState b = all_three.SaveWarmState();
      ASSERT_EQ(a.dl.size(), 700);
      EXPECT_TRUE((a.m == b.m).all());
      EXPECT_TRUE((a.dl == b.dl).all()) << "equal weights " << equal;
      EXPECT_TRUE((a.ddl == b.ddl).all()) << "equal weights " << equal;
      EXPECT_TRUE((a.data_grad.array() == b.data_grad.array()).all());
    }
  }
}

// --- Allocation-free solves ---------------------------------------------------------------

TEST(LocalSolverTest, AllocationCounterSeesEigenAllocations) {
#if !DPADMM_TEST_COUNT_ALLOCATIONS
  GTEST_SKIP() << "allocations are only counted on glibc without sanitizers";
#endif
  // The pointers escape through volatile stores, so the allocations cannot be optimised away.
  long allocations = AllocationsDuring([] {
    Eigen::VectorXd v = Eigen::VectorXd::Zero(1000);
    escape = v.data();
  });
  EXPECT_GE(allocations, 1);
  allocations = AllocationsDuring([] {
    void* (*volatile allocate)(std::size_t) = &::operator new;
    void* q = allocate(16);
    escape = q;
    ::operator delete(q);
  });
  EXPECT_GE(allocations, 1);
  EXPECT_NE(escape, nullptr);
}

struct AllocationCase {
  const char* name;
  int rows;
  int cols;
  double density;
  bool sparse;
  std::int64_t dense_hessian_max_dim;
};

class LocalSolverAllocationTest : public ::testing::TestWithParam<AllocationCase> {};

TEST_P(LocalSolverAllocationTest, SolveAndEvaluationsDoNotAllocate) {
#if !DPADMM_TEST_COUNT_ALLOCATIONS
  GTEST_SKIP() << "allocations are only counted on glibc without sanitizers";
#endif
  const AllocationCase c = GetParam();
  const Problem p = MakeProblem(16, c.rows, c.cols, c.density);
  NewtonOptions o;
  o.dense_hessian_max_dim = c.dense_hessian_max_dim;
  o.newton_cost_model = false;  // each case's path, whichever the cost model would pick
  for (const Loss& loss : {Logistic(), SmoothHinge()}) {
    LocalSolver solver(c.sparse ? p.sparse : p.dense, p.weights, loss,
                       Keep(c.sparse ? p.sparse : p.dense, o));
    Eigen::VectorXd f = Eigen::VectorXd::Zero(c.cols);
    ASSERT_NE(solver.Solve(0.3, p.g, f).status, SolveStatus::kNonFinite);  // first call

    Eigen::VectorXd g2 = 2.0 * p.g;
    Eigen::VectorXd other = f.array() + 0.25;
    Eigen::VectorXd probe = f.array() - 0.5;
    Eigen::VectorXd grad(c.cols);
    SolveReport r1;
    SolveReport r2;
    SolveReport r3;
    double sink = 0.0;
    const long allocations = AllocationsDuring([&] {
      r1 = solver.Solve(0.3, g2, f);       // warm start, new g
      r2 = solver.Solve(0.9, p.g, f);      // new a: the Hessian is re-formed
      r3 = solver.Solve(0.9, p.g, other);  // cold state
      sink += solver.LossAndGradient(probe, grad);
      sink += solver.LossSum(f);
      sink += solver.MeanLoss(probe);
    });
    EXPECT_EQ(allocations, 0) << c.name << " " << loss.Name();
    EXPECT_GE(r1.iterations + r2.iterations + r3.iterations, 3) << c.name;
    EXPECT_TRUE(std::isfinite(sink));
  }
}

INSTANTIATE_TEST_SUITE_P(
    LocalSolverShapes, LocalSolverAllocationTest,
    ::testing::Values(AllocationCase{"dense_cholesky", 300, 20, 1.0, false, 2048},
                      AllocationCase{"sparse_cholesky", 300, 50, 0.1, true, 2048},
                      AllocationCase{"dense_cg", 300, 20, 1.0, false, 0},
                      AllocationCase{"sparse_cg", 300, 50, 0.1, true, 0},
                      // Above ~400 columns Eigen::LLT and unsplit products would allocate.
                      AllocationCase{"dense_cholesky_wide", 500, 450, 0.5, false, 2048},
                      AllocationCase{"sparse_cholesky_wide", 500, 450, 0.05, true, 2048}),
    [](const auto& param_info) { return std::string(param_info.param.name); });

}  // namespace
}  // namespace dpadmm
