// SPDX-License-Identifier: Apache-2.0
// The Newton direction's cost model (NewtonOptions::newton_cost_model) against both choices
// forced, side by side in one run: Cholesky of the Hessian vs matrix-free CG, for a sparse
// logistic node of 2000 rows with d in {10, 100, 1000, 5000} features (about 13% dense up to
// d = 100, as Adult; 100 nonzeros per row above).
//
//   NewtonDirection/d/mode   mode 0: Cholesky forced (cost model off, dense_hessian_max_dim
//                            above d), 1: CG forced (dense_hessian_max_dim = 0), 2: the model's
//                            pick (the defaults with dense_hessian_max_dim above d). Time: a
//                            warm-started sequence of 10 local problems (a fixed, g moving as in
//                            an ADMM run), fresh solver per iteration, CPU time per sequence.
//                            Counters: the choice made (cholesky = 1 or 0), Newton steps.
//
//   RowStorage/d/density/mode  the solver's row storage (NewtonOptions::row_storage) on a dense
//                            node of 2000 rows whose entries are nonzero with probability
//                            density / 100 (the input is dense; the solver stores it): mode 0:
//                            dense forced, 1: CSR forced, 2: the cost model's pick. Same
//                            sequence of 10 warm-started solves; counter csr = the storage used.
//
// Run: bench_newton_cg --benchmark_repetitions=3 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <utility>

#include "dpadmm/core/random.h"
#include "dpadmm/data/dataset.h"
#include "dpadmm/data/generators.h"
#include "dpadmm/solver/local_solver.h"

namespace {

using dpadmm::Dataset;

constexpr std::int64_t kRows = 2000;
constexpr int kSolves = 10;
constexpr double kWeight = 1750.0 / 6000.0;    // Adult's C / B_i at N = 5
constexpr double kA = 0.22 + 2.0 * 0.1 * 3.0;  // rho + 2 eta V (Adult bench settings)

const Dataset& Data(std::int64_t d) {
  static std::map<std::int64_t, std::unique_ptr<Dataset>> cache;
  auto& slot = cache[d];
  if (!slot) {
    dpadmm::SparseHighDimOptions o;
    o.rows = kRows;
    o.dims = d;
    o.informative = std::min<std::int64_t>(50, d);
    o.nnz_per_row = std::clamp<std::int64_t>((d * 13 + 99) / 100, 2, 100);
    slot = std::make_unique<Dataset>(dpadmm::GenerateSparseHighDim(o, 11));
    slot->Scale(1.0 / slot->MaxRowNorm());
  }
  return *slot;
}

void NewtonDirection(benchmark::State& state) {
  const std::int64_t d = state.range(0);
  const int mode = static_cast<int>(state.range(1));
  const Dataset& data = Data(d);
  dpadmm::NewtonOptions o;
  o.dense_hessian_max_dim = mode == 1 ? 0 : d + 1;
  o.newton_cost_model = mode == 2;
  Eigen::VectorXd g0 = Eigen::VectorXd::LinSpaced(d, -1.0, 1.0);
  std::int64_t steps = 0, solves = 0;
  bool cholesky = false;
  for (auto _ : state) {
    state.PauseTiming();
    dpadmm::LocalSolver solver(data, kWeight, dpadmm::Loss{}, o);
    Eigen::VectorXd f = Eigen::VectorXd::Zero(d);
    solver.MeanLoss(f);
    state.ResumeTiming();
    for (int t = 0; t < kSolves; ++t) {
      const Eigen::VectorXd g = (1.0 + 0.05 * t) * g0;
      const dpadmm::SolveReport r = solver.Solve(kA, g, f);
      steps += r.iterations;
      cholesky = cholesky || r.hessian_factorizations > 0;
      ++solves;
    }
    benchmark::DoNotOptimize(f.data());
  }
  state.counters["cholesky"] = cholesky ? 1.0 : 0.0;
  state.counters["steps_per_solve"] =
      static_cast<double>(steps) / static_cast<double>(std::max<std::int64_t>(solves, 1));
}

// Dense rows, entry (r, c) nonzero with probability density / 100, values and labels from the
// project's data stream (seeded by d and the density), rows scaled to norm <= 1.
const Dataset& DenseData(std::int64_t d, int density) {
  static std::map<std::pair<std::int64_t, int>, std::unique_ptr<Dataset>> cache;
  auto& slot = cache[{d, density}];
  if (!slot) {
    dpadmm::Stream s(static_cast<std::uint64_t>(d), static_cast<std::uint64_t>(density), 0,
                     dpadmm::Purpose::kGenerateData);
    const auto uniform = [&s] { return s.Uniform(); };
    dpadmm::DenseRows x = dpadmm::DenseRows::Zero(kRows, d);
    Eigen::VectorXd y(kRows);
    for (std::int64_t r = 0; r < kRows; ++r) {
      double margin = 0.0;
      for (std::int64_t c = 0; c < d; ++c) {
        if (uniform() * 100.0 < density) {
          x(r, c) = 2.0 * uniform() - 1.0;
          margin += (c % 2 == 0 ? 1.0 : -1.0) * x(r, c);
        }
      }
      y[r] = (margin + 0.3 * (2.0 * uniform() - 1.0)) >= 0.0 ? 1.0 : -1.0;
    }
    slot = std::make_unique<Dataset>();
    slot->x = std::move(x);
    slot->y = std::move(y);
    slot->Scale(1.0 / slot->MaxRowNorm());
  }
  return *slot;
}

void RowStorage(benchmark::State& state) {
  const std::int64_t d = state.range(0);
  const int density = static_cast<int>(state.range(1));
  const int mode = static_cast<int>(state.range(2));
  const Dataset& data = DenseData(d, density);
  dpadmm::NewtonOptions o;
  using S = dpadmm::NewtonOptions::RowStorage;
  o.row_storage = mode == 0 ? S::kDense : mode == 1 ? S::kCsr : S::kAuto;
  Eigen::VectorXd g0 = Eigen::VectorXd::LinSpaced(d, -1.0, 1.0);
  bool csr = false;
  for (auto _ : state) {
    state.PauseTiming();
    dpadmm::LocalSolver solver(data, kWeight, dpadmm::Loss{}, o);
    csr = solver.StoresCsr();
    Eigen::VectorXd f = Eigen::VectorXd::Zero(d);
    solver.MeanLoss(f);
    state.ResumeTiming();
    for (int t = 0; t < kSolves; ++t) {
      const Eigen::VectorXd g = (1.0 + 0.05 * t) * g0;
      (void)solver.Solve(kA, g, f);
    }
    benchmark::DoNotOptimize(f.data());
  }
  state.counters["csr"] = csr ? 1.0 : 0.0;
}

BENCHMARK(RowStorage)
    ->ArgNames({"d", "density", "mode"})
    ->ArgsProduct({{20, 100, 500}, {5, 15, 30, 50, 75, 100}, {0, 1, 2}})
    ->Unit(benchmark::kMillisecond);

BENCHMARK(NewtonDirection)
    ->ArgNames({"d", "mode"})
    ->ArgsProduct({{10, 100, 1000}, {0, 1, 2}})
    ->Unit(benchmark::kMillisecond);
BENCHMARK(NewtonDirection)
    ->ArgNames({"d", "mode"})
    ->ArgsProduct({{5000}, {0, 1, 2}})
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
