// SPDX-License-Identifier: Apache-2.0
// LocalSolver: the local problem of every consensus variant, on the problems a node actually
// sees. A 5-node consensus ADMM run (graph: ring plus two chords, C = 1750, rho = 0.22,
// eta = 0.1, as in bench_admm) is recorded once; the benchmarks replay node 0's local problems
// (a, g) in order, warm-starting each solve from the previous solution exactly as the node does.
//
//   AdultWarmSequence/rounds:R    node 0's first R solves (fresh solver per sequence);
//                                 counters: time, Newton steps and Hessians per solve
//   AdultWarmSequencePureNewton   baseline: the same with a fresh Hessian every step
//   AdultAdmmRound                all five local solves and the ADMM updates, per round
//                                 (rounds 1-20 from f = 0, as bench_admm)
//   AdultColdSolve                the round-20 problem from f = 0 with a fresh solver
//   AdultDataPass                 baseline: one LossAndGradient at a new point (one pass)
//   Twonorm* / SparseHighDim*     the same for a dense 20-column node and a sparse
//                                 2000 x 5000 node (CG mode: 5000 > dense_hessian_max_dim)
//
// Adult is read from ../shared/data/adult (or DPADMM_DATA=<dir>); if that fails, an Adult-like
// synthetic set is generated (6000 rows per node, 104 columns, 6 numeric + 8 one-hot) and the
// benchmark names say "synthetic" in their label.
// Run: bench_local_solver --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "dpadmm/core/random.h"
#include "dpadmm/data/dataset.h"
#include "dpadmm/data/generators.h"
#include "dpadmm/data/loaders.h"
#include "dpadmm/data/preprocessing.h"
#include "dpadmm/solver/local_solver.h"

namespace {

using dpadmm::Dataset;
using dpadmm::LocalSolver;
using dpadmm::Loss;
using dpadmm::NewtonOptions;
using dpadmm::SolveReport;

constexpr int kNodes = 5;
constexpr double kC = 1750.0;
constexpr double kRho = 0.22;
constexpr double kEta = 0.1;
constexpr int kRecordedRounds = 100;

std::string DataDir() {
  const char* env = std::getenv("DPADMM_DATA");
  return env != nullptr ? env : DPADMM_SHARED_DATA;
}

// Ring 0-1-2-3-4-0 plus chords 0-2 and 1-3: 7 edges, degrees 3, 3, 3, 3, 2.
const std::vector<std::vector<int>>& Neighbours() {
  static const std::vector<std::vector<int>> graph = {
      {1, 4, 2}, {0, 2, 3}, {1, 3, 0}, {2, 4, 1}, {3, 0}};
  return graph;
}

// Adult-like synthetic rows: 6 numeric columns uniform in [0, 1], then 8 one-hot blocks
// (98 columns), labels from a noisy random hyperplane; scaled so the largest row norm is 1.
Dataset SyntheticAdult(std::int64_t rows, std::uint64_t seed) {
  const std::vector<int> blocks = {9, 16, 7, 15, 6, 5, 2, 38};
  const int cols = 104;
  dpadmm::Stream s(seed, 0, 0, dpadmm::Purpose::kGenerateData);
  std::vector<Eigen::Triplet<double, dpadmm::SparseIndex>> entries;
  Eigen::VectorXd truth(cols);
  for (int c = 0; c < cols; ++c) truth[c] = s.Normal();
  Eigen::VectorXd y(rows);
  for (std::int64_t r = 0; r < rows; ++r) {
    double score = 0.0;
    for (int c = 0; c < 6; ++c) {
      const double v = s.Uniform();
      entries.emplace_back(r, c, v);
      score += v * truth[c];
    }
    int offset = 6;
    for (int b : blocks) {
      const int c = offset + static_cast<int>(s.UniformInt(static_cast<std::uint64_t>(b)));
      entries.emplace_back(r, c, 1.0);
      score += truth[c];
      offset += b;
    }
    y[r] = score + s.Normal() >= 0.0 ? 1.0 : -1.0;
  }
  dpadmm::SparseRows x(rows, cols);
  x.setFromTriplets(entries.begin(), entries.end());
  x.makeCompressed();
  Dataset d;
  d.x = std::move(x);
  d.y = y;
  d.name = "adult-synthetic";
  d.Scale(1.0 / d.MaxRowNorm());
  return d;
}

// A node's recorded sequence of local problems.
struct Recording {
  std::string label;
  std::vector<Dataset> slices;     // every node's rows
  Dataset node;                    // node 0's rows
  double weight = 0.0;             // C / B_0
  double a = 0.0;                  // rho / N + 2 eta V_0 (constant over rounds)
  std::vector<Eigen::VectorXd> g;  // g of rounds 1, 2, ...
};

// Runs consensus ADMM (DESIGN.md / consensus_admm.cpp: a = rho/N + 2 eta V,
// g = 2 lambda - eta (V f_i + sum_j f_j), lambda += (eta/2)(V f_i - sum_j f_j) from round 2)
// for `rounds` rounds from f = 0 and records node 0's problems.
std::unique_ptr<Recording> Record(const Dataset& all, std::string label,
                                  int rounds = kRecordedRounds) {
  const dpadmm::Partition partition = dpadmm::PartitionEven(all.rows(), kNodes, 7);
  const std::int64_t d = all.cols();
  std::vector<Dataset> slices;
  std::vector<LocalSolver> solvers;
  for (int i = 0; i < kNodes; ++i) {
    slices.push_back(all.Subset(partition[static_cast<std::size_t>(i)]));
    solvers.emplace_back(slices.back(), kC / static_cast<double>(slices.back().rows()), Loss{});
  }
  auto rec = std::make_unique<Recording>();
  rec->label = std::move(label);
  rec->slices = slices;
  rec->node = slices[0];
  rec->weight = kC / static_cast<double>(slices[0].rows());
  std::vector<Eigen::VectorXd> f(kNodes, Eigen::VectorXd::Zero(d));
  std::vector<Eigen::VectorXd> lambda(kNodes, Eigen::VectorXd::Zero(d));
  std::vector<Eigen::VectorXd> next = f;
  for (int round = 1; round <= rounds; ++round) {
    for (int i = 0; i < kNodes; ++i) {
      Eigen::VectorXd sum = Eigen::VectorXd::Zero(d);
      for (int j : Neighbours()[static_cast<std::size_t>(i)]) {
        sum += f[static_cast<std::size_t>(j)];
      }
      const double V = static_cast<double>(Neighbours()[static_cast<std::size_t>(i)].size());
      if (round >= 2) lambda[i] += (0.5 * kEta) * (V * f[i] - sum);
      const double a = kRho / kNodes + 2.0 * kEta * V;
      const Eigen::VectorXd g = 2.0 * lambda[i] - kEta * (V * f[i] + sum);
      if (i == 0) {
        rec->a = a;
        rec->g.push_back(g);
      }
      next[i] = f[i];
      (void)solvers[i].Solve(a, g, next[i]);
    }
    f = next;
  }
  return rec;
}

const Recording* AdultRecording(std::string* error) {
  static std::unique_ptr<Recording> rec;
  static std::string failure;
  if (!rec && failure.empty()) {
    try {
      dpadmm::AdultData adult =
          dpadmm::LoadAdult(DataDir() + "/adult/adult.data", DataDir() + "/adult/adult.test");
      dpadmm::NormalizeRows(adult.train, adult.test);
      rec = Record(adult.train, "adult");
    } catch (const std::exception& e) {
      try {
        rec = Record(SyntheticAdult(6000 * kNodes, 1),
                     std::string("adult-synthetic (") + e.what() + ")");
      } catch (const std::exception& e2) {
        failure = e2.what();
      }
    }
  }
  if (!rec && error != nullptr) *error = failure;
  return rec.get();
}

const Recording* TwonormRecording(std::string* error) {
  static std::unique_ptr<Recording> rec;
  static std::string failure;
  if (!rec && failure.empty()) {
    try {
      Dataset all = dpadmm::GenerateTwonorm(7400, 3);
      all.Scale(1.0 / all.MaxRowNorm());
      rec = Record(all, "twonorm 1480x20 dense");
    } catch (const std::exception& e) {
      failure = e.what();
    }
  }
  if (!rec && error != nullptr) *error = failure;
  return rec.get();
}

const Recording* SparseHighDimRecording(std::string* error) {
  static std::unique_ptr<Recording> rec;
  static std::string failure;
  if (!rec && failure.empty()) {
    try {
      dpadmm::SparseHighDimOptions o;
      o.rows = 2000 * kNodes;
      o.dims = 5000;
      o.nnz_per_row = 50;
      Dataset all = dpadmm::GenerateSparseHighDim(o, 5);
      all.Scale(1.0 / all.MaxRowNorm());
      rec = Record(all, "sparse 2000x5000, 50 nnz/row, CG", 20);
    } catch (const std::exception& e) {
      failure = e.what();
    }
  }
  if (!rec && error != nullptr) *error = failure;
  return rec.get();
}

using RecordingFn = const Recording* (*)(std::string*);

const Recording* Get(benchmark::State& state, RecordingFn fn) {
  std::string error;
  const Recording* rec = fn(&error);
  if (rec == nullptr) state.SkipWithError(error.c_str());
  return rec;
}

// Node 0's first `rounds` local problems, warm-started in order, with a fresh solver.
void WarmSequence(benchmark::State& state, RecordingFn fn, double reuse_ratio) {
  const Recording* rec = Get(state, fn);
  if (rec == nullptr) return;
  const int rounds = static_cast<int>(state.range(0));
  NewtonOptions options;
  options.hessian_reuse_ratio = reuse_ratio;
  std::int64_t steps = 0;
  std::int64_t hessians = 0;
  std::int64_t solves = 0;
  for (auto _ : state) {
    state.PauseTiming();
    LocalSolver solver(rec->node, rec->weight, Loss{}, options);
    Eigen::VectorXd f = Eigen::VectorXd::Zero(rec->node.cols());
    solver.MeanLoss(f);  // the node's Start() evaluates the loss at f(0)
    state.ResumeTiming();
    for (int t = 0; t < rounds; ++t) {
      const SolveReport r = solver.Solve(rec->a, rec->g[static_cast<std::size_t>(t)], f);
      steps += r.iterations;
      hessians += r.hessian_factorizations;
      ++solves;
    }
    benchmark::DoNotOptimize(f.data());
  }
  state.SetLabel(rec->label);
  // Seconds per solve (printed with an SI prefix, e.g. "1.2ms").
  state.counters["time_per_solve"] = benchmark::Counter(
      static_cast<double>(rounds),
      benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
  state.counters["steps_per_solve"] =
      static_cast<double>(steps) / static_cast<double>(std::max<std::int64_t>(solves, 1));
  state.counters["hessians_per_solve"] =
      static_cast<double>(hessians) / static_cast<double>(std::max<std::int64_t>(solves, 1));
}

// The round-20 problem from f = 0 with a fresh solver.
void ColdSolve(benchmark::State& state, RecordingFn fn) {
  const Recording* rec = Get(state, fn);
  if (rec == nullptr) return;
  std::int64_t steps = 0;
  std::int64_t runs = 0;
  for (auto _ : state) {
    state.PauseTiming();
    LocalSolver solver(rec->node, rec->weight, Loss{});
    Eigen::VectorXd f = Eigen::VectorXd::Zero(rec->node.cols());
    state.ResumeTiming();
    const SolveReport r = solver.Solve(rec->a, rec->g[19], f);
    steps += r.iterations;
    ++runs;
    benchmark::DoNotOptimize(f.data());
  }
  state.SetLabel(rec->label);
  state.counters["steps"] =
      static_cast<double>(steps) / static_cast<double>(std::max<std::int64_t>(runs, 1));
}

// Baseline: one evaluation of the loss sum and its gradient at a new point.
void DataPass(benchmark::State& state, RecordingFn fn) {
  const Recording* rec = Get(state, fn);
  if (rec == nullptr) return;
  LocalSolver solver(rec->node, rec->weight, Loss{});
  const Eigen::VectorXd f1 = Eigen::VectorXd::Constant(rec->node.cols(), 0.1);
  const Eigen::VectorXd f2 = Eigen::VectorXd::Constant(rec->node.cols(), -0.1);
  Eigen::VectorXd grad(rec->node.cols());
  bool flip = false;
  for (auto _ : state) {
    flip = !flip;
    benchmark::DoNotOptimize(solver.LossAndGradient(flip ? f1 : f2, grad));
  }
  state.SetLabel(rec->label);
}

// All five nodes' local solves and the ADMM updates for rounds 1..20 from f = 0; time per round.
void AdultAdmmRound(benchmark::State& state) {
  const Recording* rec = Get(state, AdultRecording);
  if (rec == nullptr) return;
  const std::vector<Dataset>& slices = rec->slices;
  const int rounds = 20;
  const std::int64_t d = slices[0].cols();
  for (auto _ : state) {
    state.PauseTiming();
    std::vector<LocalSolver> solvers;
    for (const Dataset& s : slices) {
      solvers.emplace_back(s, kC / static_cast<double>(s.rows()), Loss{});
    }
    std::vector<Eigen::VectorXd> f(kNodes, Eigen::VectorXd::Zero(d));
    std::vector<Eigen::VectorXd> lambda(kNodes, Eigen::VectorXd::Zero(d));
    std::vector<Eigen::VectorXd> next = f;
    Eigen::VectorXd sum(d);
    Eigen::VectorXd g(d);
    for (int i = 0; i < kNodes; ++i) solvers[i].MeanLoss(f[i]);
    state.ResumeTiming();
    for (int round = 1; round <= rounds; ++round) {
      for (int i = 0; i < kNodes; ++i) {
        sum.setZero();
        for (int j : Neighbours()[static_cast<std::size_t>(i)]) {
          sum += f[static_cast<std::size_t>(j)];
        }
        const double V = static_cast<double>(Neighbours()[static_cast<std::size_t>(i)].size());
        if (round >= 2) lambda[i] += (0.5 * kEta) * (V * f[i] - sum);
        g = 2.0 * lambda[i] - kEta * (V * f[i] + sum);
        next[i] = f[i];
        (void)solvers[i].Solve(kRho / kNodes + 2.0 * kEta * V, g, next[i]);
      }
      std::swap(f, next);
    }
    benchmark::DoNotOptimize(f[0].data());
  }
  state.SetLabel(rec->label);
  state.counters["time_per_round"] = benchmark::Counter(
      rounds, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

const double kDefaultReuse = NewtonOptions{}.hessian_reuse_ratio;

void AdultWarmSequence(benchmark::State& s) { WarmSequence(s, AdultRecording, kDefaultReuse); }
void AdultWarmSequencePureNewton(benchmark::State& s) { WarmSequence(s, AdultRecording, 0.0); }
void AdultColdSolve(benchmark::State& s) { ColdSolve(s, AdultRecording); }
void AdultDataPass(benchmark::State& s) { DataPass(s, AdultRecording); }
void TwonormWarmSequence(benchmark::State& s) { WarmSequence(s, TwonormRecording, kDefaultReuse); }
void TwonormWarmSequencePureNewton(benchmark::State& s) { WarmSequence(s, TwonormRecording, 0.0); }
void TwonormColdSolve(benchmark::State& s) { ColdSolve(s, TwonormRecording); }
void TwonormDataPass(benchmark::State& s) { DataPass(s, TwonormRecording); }
void SparseHighDimWarmSequence(benchmark::State& s) {
  WarmSequence(s, SparseHighDimRecording, kDefaultReuse);
}
void SparseHighDimColdSolve(benchmark::State& s) { ColdSolve(s, SparseHighDimRecording); }
void SparseHighDimDataPass(benchmark::State& s) { DataPass(s, SparseHighDimRecording); }

BENCHMARK(AdultWarmSequence)->ArgName("rounds")->Arg(20)->Arg(100)->Unit(benchmark::kMillisecond);
BENCHMARK(AdultWarmSequencePureNewton)
    ->ArgName("rounds")
    ->Arg(20)
    ->Arg(100)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(AdultAdmmRound)->Unit(benchmark::kMillisecond);
BENCHMARK(AdultColdSolve)->Unit(benchmark::kMillisecond);
BENCHMARK(AdultDataPass)->Unit(benchmark::kMicrosecond);
BENCHMARK(TwonormWarmSequence)->ArgName("rounds")->Arg(20)->Arg(100)->Unit(benchmark::kMillisecond);
BENCHMARK(TwonormWarmSequencePureNewton)->ArgName("rounds")->Arg(20)->Unit(benchmark::kMillisecond);
BENCHMARK(TwonormColdSolve)->Unit(benchmark::kMillisecond);
BENCHMARK(TwonormDataPass)->Unit(benchmark::kMicrosecond);
BENCHMARK(SparseHighDimWarmSequence)->ArgName("rounds")->Arg(20)->Unit(benchmark::kMillisecond);
BENCHMARK(SparseHighDimColdSolve)->Unit(benchmark::kMillisecond);
BENCHMARK(SparseHighDimDataPass)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
