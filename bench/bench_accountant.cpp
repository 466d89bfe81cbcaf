// SPDX-License-Identifier: Apache-2.0
// The tight accountant: composing T heterogeneous per-round releases, once at the end
// and with a query after every round (the trace's per-round tight column). Only the public API
// of algorithms/privacy is used (Accountant, ComposeTight, ComposeTightMechanisms), so the same
// file built against an older library measures the old accountant (bench/README.md).
//   bench_accountant --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

#include "../tests/release_sequences.h"
#include "dpadmm/privacy/accountant.h"
#include "dpadmm/privacy/accounting.h"

namespace {

using dpadmm::Accountant;
using dpadmm::AccountantOptions;
using dpadmm::MechanismRelease;

constexpr double kDelta = 1e-5;

// The consensus family's per-round terms: a geometric schedule (M-ADMM's alpha q2^t / eta q1^t,
// DVP's alpha q2^t) whose terms all differ, about 0.04 per round as in a default madmm run.
std::vector<double> ScheduleTerms(int rounds) {
  std::vector<double> terms;
  for (int t = 0; t < rounds; ++t) {
    terms.push_back(0.04 * std::pow(0.999, t) * (1.0 + 0.3 * ((t * 7) % 5) / 5.0));
  }
  return terms;
}

// The run's end-of-run figure for one node: ComposeTight of its T unequal terms.
void BM_ComposeTightSchedule(benchmark::State& state) {
  const std::vector<double> terms = ScheduleTerms(static_cast<int>(state.range(0)));
  for (auto _ : state) benchmark::DoNotOptimize(dpadmm::ComposeTight(terms, kDelta));
}
BENCHMARK(BM_ComposeTightSchedule)->Arg(25)->Arg(100)->Arg(1000)->Unit(benchmark::kMillisecond);

// The trace's per-round column for one node: add the round's term, query (capped by the plain
// sum, as TightTrace does), every round. Accountant on the grid h = range(1) * 1e-4.
void BM_PerRoundColumn(benchmark::State& state) {
  const std::vector<double> terms = ScheduleTerms(static_cast<int>(state.range(0)));
  AccountantOptions options;
  options.pld.value_discretization = 1e-4 * static_cast<double>(state.range(1));
  for (auto _ : state) {
    Accountant acc(options);
    double sum = 0.0, eps = 0.0;
    for (double v : terms) {
      acc.AddPureEpsilon(v);
      sum += v;
      eps = std::min(acc.Epsilon(kDelta), sum);
    }
    benchmark::DoNotOptimize(eps);
  }
}
// (rounds, grid in units of 1e-4): 25, 100 and 1000 rounds at h = 1e-3, 25 and 100 at 1e-4.
void RoundsAndGrids(benchmark::internal::Benchmark* b) {
  for (const auto& [rounds, grid] : {std::pair{25, 10}, {100, 10}, {1000, 10}, {25, 1}, {100, 1}}) {
    b->Args({rounds, grid});
  }
  b->Unit(benchmark::kMillisecond);
}
BENCHMARK(BM_PerRoundColumn)->Apply(RoundsAndGrids);

// Every kind the project composes (the dp-bounds release, pure epsilon, Gaussian, Laplace,
// discrete Gaussian; tests/release_sequences.h, seed 3), composed once at the end; range(1): grid h
// = range(1) * 1e-4.
void BM_ComposeMixed(benchmark::State& state) {
  const std::vector<MechanismRelease> releases =
      dpadmm::test::RandomReleaseSequence(3, static_cast<int>(state.range(0)));
  AccountantOptions options;
  options.pld.value_discretization = 1e-4 * static_cast<double>(state.range(1));
  double eps = 0.0;
  for (auto _ : state) {
    Accountant acc(options);
    for (const MechanismRelease& m : releases) acc.Add(m);
    eps = acc.Epsilon(kDelta);
    benchmark::DoNotOptimize(eps);
  }
  state.counters["epsilon"] = eps;  // the figure, to compare the grids
}
BENCHMARK(BM_ComposeMixed)->Apply(RoundsAndGrids);
// A coarser grid: h = 2e-3 and 5e-3 at 1000 rounds.
BENCHMARK(BM_ComposeMixed)->Args({1000, 20})->Args({1000, 50})->Unit(benchmark::kMillisecond);

// The product's path for a node with releases of every kind: ComposeTightMechanisms, on the grid
// that follows the figure (accounting.h; h = 5e-3 at 1000 rounds, finer for small figures).
void BM_ComposeTightMechanisms(benchmark::State& state) {
  const std::vector<MechanismRelease> releases =
      dpadmm::test::RandomReleaseSequence(3, static_cast<int>(state.range(0)));
  double eps = 0.0;
  for (auto _ : state) {
    eps = dpadmm::ComposeTightMechanisms(releases, kDelta);
    benchmark::DoNotOptimize(eps);
  }
  state.counters["epsilon"] = eps;
}
BENCHMARK(BM_ComposeTightMechanisms)->Arg(10)->Arg(100)->Arg(1000)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
