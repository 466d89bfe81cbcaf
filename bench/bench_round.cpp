// SPDX-License-Identifier: Apache-2.0
// One consensus-ADMM round on UCI Adult, N = 5, serial engine, next to the in-cache bound of the
// data passes that round makes, measured in the same run so that their ratio is meaningful on a
// shared, noisy machine.
//
//   AdultRoundSerial    the real run (Experiment, serial engine, metrics off): a 41-round run
//                       minus a 1-round run, divided by 40, so set-up (loading, node programs,
//                       the solvers' copies of the data) is not counted. Time is the thread's CPU
//                       time (the serial engine runs in the calling thread); wall time is the
//                       `wall_per_round` counter.
//   AdultRoundPasses    a replay of the same ADMM updates (same data, graph, partition, a, g) on
//                       LocalSolver directly, counting the data passes a round makes:
//                       1 per Newton step (one fused pass by rows: X~ p, L', L'', X~^T L') and
//                       1 per Hessian formed (a pass over the rows); a step accepted below
//                       t = 1 makes one more (rare, not counted). The counters are per round,
//                       summed over the nodes.
//   AdultInCacheBound   that many passes (each node: its share, passes / N over its own data)
//                       of the cheapest loop that reads the same bytes: the
//                       nodes' nonzeros (8-byte value + 4-byte index, as the solver stores
//                       them) and one per-sample vector, summed with four independent
//                       accumulators. Every node's data (about 1 MB) fits in L2, so this is the
//                       in-cache floor of a round that keeps its pass count.
//
// Each runs at two Newton tolerances (argument tol_exp: gradient_tolerance = 10^-tol_exp): 10,
// the library's default, and 4, a looser inner solve; and at the default tolerance with
// NewtonOptions::secant_pairs = 8 (argument secant: the reused factor corrected by BFGS pairs).
// AdultRoundSerial's counters objective and objective_change are the 41-round run's final consensus
// objective F and (F - F_10) / F_10 against the same run at the default tolerance.
// bench/liblinear_side_by_side.py checks, on the same data, C and rho (eta 0.05, its own
// partition), that both tolerances reach the optimum to 1e-6 in the same rounds.
//
// Run: bench_round --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
// Needs ../shared/data/adult (or DPADMM_DATA=<dir>); skipped with a message otherwise.
#include <benchmark/benchmark.h>

#include <time.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "adult_round_spec.h"
#include "dpadmm/data/dataset.h"
#include "dpadmm/run/run.h"
#include "dpadmm/solver/local_solver.h"

namespace {

constexpr int kNodes = dpadmm::bench::kAdultRoundNodes;
constexpr int kShortRounds = 1;
constexpr int kLongRounds = 41;

std::string DataDir() {
  const char* env = std::getenv("DPADMM_DATA");
  return env != nullptr ? env : DPADMM_SHARED_DATA;
}

dpadmm::RunSpec AdultSpec(int rounds, double tolerance, int secant_pairs = 0) {
  dpadmm::RunSpec spec = dpadmm::bench::AdultRoundSpec(DataDir(), rounds);
  spec.engine = dpadmm::runtime::EngineKind::kSerial;
  spec.threads = 1;
  spec.newton.gradient_tolerance = tolerance;
  spec.newton.secant_pairs = secant_pairs;
  return spec;
}

struct Adult {
  double tolerance = 0.0;  // Newton's gradient tolerance
  int secant_pairs = 0;    // NewtonOptions::secant_pairs
  std::unique_ptr<dpadmm::Experiment> short_run, long_run;
  std::vector<dpadmm::Dataset> slices;  // every node's training rows
  // Per round of the replay (rounds 1..40): passes, Newton steps, Hessians.
  double passes = 0.0, steps = 0.0, hessians = 0.0;
};

// The problem at Newton tolerance 10^-state.range(0) with state.range(1) secant pairs, set up
// once per pair of arguments.
const Adult* GetAdult(benchmark::State& state) {
  static std::map<std::pair<std::int64_t, std::int64_t>, std::unique_ptr<Adult>> cache;
  static std::string failure;
  std::unique_ptr<Adult>& adult = cache[{state.range(0), state.range(1)}];
  if (!adult && failure.empty()) {
    try {
      auto a = std::make_unique<Adult>();
      a->tolerance = std::pow(10.0, -static_cast<double>(state.range(0)));
      a->secant_pairs = static_cast<int>(state.range(1));
      a->short_run = std::make_unique<dpadmm::Experiment>(
          AdultSpec(kShortRounds, a->tolerance, a->secant_pairs));
      a->long_run = std::make_unique<dpadmm::Experiment>(
          AdultSpec(kLongRounds, a->tolerance, a->secant_pairs));
      const dpadmm::Experiment& e = *a->long_run;
      for (int i = 0; i < kNodes; ++i) {
        a->slices.push_back(e.train().Subset(e.partition()[static_cast<std::size_t>(i)]));
      }
      adult = std::move(a);
    } catch (const std::exception& e) {
      failure = std::string("Adult data not available (") + e.what() +
                "); set DPADMM_DATA=<dir holding adult/>";
    }
  }
  if (!adult) state.SkipWithError(failure.c_str());
  return adult.get();
}

double ThreadSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

void AdultRoundSerial(benchmark::State& state) {
  const Adult* adult = GetAdult(state);
  if (adult == nullptr) return;
  const auto engine = dpadmm::runtime::EngineKind::kSerial;
  double wall = 0.0;
  for (auto _ : state) {
    double cpu[2];
    double seconds[2];
    int k = 0;
    for (const dpadmm::Experiment* e : {adult->short_run.get(), adult->long_run.get()}) {
      const auto w0 = std::chrono::steady_clock::now();
      const double c0 = ThreadSeconds();
      const dpadmm::RunSummary s = e->RunOn(engine, 1);
      cpu[k] = ThreadSeconds() - c0;
      seconds[k] = std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count();
      benchmark::DoNotOptimize(s.model.data());
      ++k;
    }
    const double rounds = kLongRounds - kShortRounds;
    state.SetIterationTime((cpu[1] - cpu[0]) / rounds);
    wall += (seconds[1] - seconds[0]) / rounds;
  }
  state.counters["wall_per_round"] = benchmark::Counter(
      wall / static_cast<double>(state.iterations()) * 1e3, benchmark::Counter::kDefaults);
  state.SetLabel("wall_per_round in ms");
  // The long run's final consensus objective (metrics at the last round) against the default
  // settings': the same run at 10^-10 without secant pairs.
  static double reference = 0.0;
  const double objective = adult->long_run->RunOn(engine, 1).final.objective;
  if (reference == 0.0) {
    reference = dpadmm::Experiment(AdultSpec(kLongRounds, 1e-10)).RunOn(engine, 1).final.objective;
  }
  state.counters["objective"] = objective;
  state.counters["objective_change"] = (objective - reference) / reference;
}

// Consensus ADMM (consensus_node.h): a = rho/N + 2 eta V, g = 2 lambda - eta (V f_i + sum_j f_j),
// lambda += (eta/2)(V f_i - sum_j f_j) from round 2.
void ReplayRounds(const Adult& adult, const dpadmm::Graph& graph, Adult* counts) {
  const dpadmm::RunSpec spec = adult.long_run->spec();
  const double C = spec.algorithm.C;
  const double rho = spec.algorithm.rho / kNodes;
  const double eta = spec.algorithm.eta;
  const std::int64_t d = adult.slices[0].cols();
  std::vector<dpadmm::LocalSolver> solvers;
  dpadmm::NewtonOptions newton;
  newton.gradient_tolerance = adult.tolerance;
  newton.secant_pairs = adult.secant_pairs;
  for (const dpadmm::Dataset& s : adult.slices) {
    solvers.emplace_back(s, C / static_cast<double>(s.rows()), dpadmm::Loss{}, newton);
  }
  std::vector<Eigen::VectorXd> f(kNodes, Eigen::VectorXd::Zero(d));
  std::vector<Eigen::VectorXd> lambda(kNodes, Eigen::VectorXd::Zero(d));
  std::vector<Eigen::VectorXd> next = f;
  Eigen::VectorXd sum(d), g(d);
  for (int i = 0; i < kNodes; ++i) solvers[i].MeanLoss(f[i]);
  std::int64_t steps = 0, hessians = 0;
  const int rounds = kLongRounds - kShortRounds;
  for (int round = 1; round <= rounds; ++round) {
    for (int i = 0; i < kNodes; ++i) {
      sum.setZero();
      for (int j : graph.neighbors(i)) sum += f[static_cast<std::size_t>(j)];
      const double V = graph.degree(i);
      if (round >= 2) lambda[i] += (0.5 * eta) * (V * f[i] - sum);
      g = 2.0 * lambda[i] - eta * (V * f[i] + sum);
      next[i] = f[i];
      const dpadmm::SolveReport r = solvers[i].Solve(rho + 2.0 * eta * V, g, next[i]);
      steps += r.iterations;
      hessians += r.hessian_factorizations;
    }
    std::swap(f, next);
  }
  if (counts != nullptr) {
    counts->steps = static_cast<double>(steps) / rounds;
    counts->hessians = static_cast<double>(hessians) / rounds;
    counts->passes = static_cast<double>(steps + hessians) / rounds;
  }
}

Adult* Counted(benchmark::State& state) {
  Adult* adult = const_cast<Adult*>(GetAdult(state));
  if (adult != nullptr && adult->passes == 0.0)
    ReplayRounds(*adult, adult->long_run->graph(), adult);
  return adult;
}

void AdultRoundPasses(benchmark::State& state) {
  Adult* adult = Counted(state);
  if (adult == nullptr) return;
  for (auto _ : state) {
    const double c0 = ThreadSeconds();
    ReplayRounds(*adult, adult->long_run->graph(), nullptr);
    state.SetIterationTime((ThreadSeconds() - c0) / (kLongRounds - kShortRounds));
  }
  state.counters["passes"] = adult->passes;
  state.counters["newton_steps"] = adult->steps;
  state.counters["hessians"] = adult->hessians;
}

struct NodeStream {
  std::vector<double> values;
  std::vector<std::int32_t> index;
  std::vector<double> samples;
};

void AdultInCacheBound(benchmark::State& state) {
  Adult* adult = Counted(state);
  if (adult == nullptr) return;
  std::vector<NodeStream> nodes;
  for (const dpadmm::Dataset& s : adult->slices) {
    NodeStream n;
    const auto& x = std::get<dpadmm::SparseRows>(s.x);
    using ByColumn = Eigen::SparseMatrix<double, Eigen::ColMajor, std::int64_t>;
    const ByColumn by_column = x;
    for (std::int64_t c = 0; c < by_column.outerSize(); ++c) {
      for (ByColumn::InnerIterator it(by_column, c); it; ++it) {
        n.values.push_back(it.value());
        n.index.push_back(static_cast<std::int32_t>(it.index()));
      }
    }
    n.samples.assign(static_cast<std::size_t>(s.rows()), 0.5);
    nodes.push_back(std::move(n));
  }
  // adult->passes counts every node's passes in a round: each node streams its own data
  // passes / N times (the nodes hold equal shares of the rows, within one row).
  const double per_node = adult->passes / kNodes;
  const int whole = static_cast<int>(per_node);
  const double fraction = per_node - whole;
  double sink = 0.0;
  for (auto _ : state) {
    const double c0 = ThreadSeconds();
    for (const NodeStream& n : nodes) {
      const std::size_t nnz = n.values.size();
      for (int p = 0; p <= whole; ++p) {
        // The last, partial pass streams the fractional share of the data.
        const std::size_t end =
            p < whole ? nnz : static_cast<std::size_t>(fraction * static_cast<double>(nnz));
        const std::size_t rows =
            p < whole ? n.samples.size()
                      : static_cast<std::size_t>(fraction * static_cast<double>(n.samples.size()));
        double a0 = 0.0, a1 = 0.0, a2 = 0.0, a3 = 0.0;
        std::int64_t i0 = 0, i1 = 0;
        std::size_t k = 0;
        for (; k + 4 <= end; k += 4) {
          a0 += n.values[k];
          a1 += n.values[k + 1];
          a2 += n.values[k + 2];
          a3 += n.values[k + 3];
          i0 += n.index[k] + n.index[k + 1];
          i1 += n.index[k + 2] + n.index[k + 3];
        }
        for (std::size_t r = 0; r < rows; ++r) a0 += n.samples[r];
        sink += (a0 + a1) + (a2 + a3) + static_cast<double>(i0 + i1);
      }
    }
    benchmark::DoNotOptimize(sink);
    state.SetIterationTime(ThreadSeconds() - c0);
  }
  state.counters["passes"] = adult->passes;
}

// Newton tolerance 10^-10 (the default) and 10^-4, and 10^-10 with 8 secant pairs; CPU time
// per round (manual), in ms.
benchmark::internal::Benchmark* AtBothTolerances(benchmark::internal::Benchmark* b) {
  return b->ArgNames({"tol_exp", "secant"})
      ->Args({10, 0})
      ->Args({4, 0})
      ->Args({10, 8})
      ->UseManualTime()
      ->Unit(benchmark::kMillisecond);
}

}  // namespace

BENCHMARK(AdultRoundSerial)->Apply([](auto* b) { AtBothTolerances(b)->Iterations(4); });
BENCHMARK(AdultRoundPasses)->Apply([](auto* b) { AtBothTolerances(b)->Iterations(4); });
BENCHMARK(AdultInCacheBound)->Apply([](auto* b) { AtBothTolerances(b)->Iterations(200); });

BENCHMARK_MAIN();
