// SPDX-License-Identifier: Apache-2.0
// The tight accountant (issue 29): composing T heterogeneous per-round releases, once at the end
// and with a query after every round (the trace's per-round tight column). Only the public API
// of algorithms/privacy is used (Accountant, ComposeTight, ComposeTightMechanisms), so the same
// file built against an older library measures the old accountant (bench/README.md).
//   bench_accountant --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "dpadmm/privacy/accountant.h"
#include "dpadmm/privacy/accounting.h"

namespace {

using dpadmm::Accountant;
using dpadmm::AccountantOptions;
using dpadmm::MechanismKind;
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

// Every kind the project composes: the dp-bounds release (pure epsilon, first), pure-epsilon
// rounds, Gaussian (PDML, DP sharing), Laplace and discrete Gaussian releases, parameters drawn
// from a fixed generator (the unit tests' sequence of tests/test_pld_compose.cpp, seed 3).
std::vector<MechanismRelease> MixedReleases(int rounds) {
  std::uint64_t x = 3 * 0x9E3779B97F4A7C15ULL + 1;
  const auto uniform = [&x] {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<double>(x >> 11) * 0x1p-53;
  };
  std::vector<MechanismRelease> out = {{MechanismKind::kPureEpsilon, 1.0, 1.0, 0.5}};
  for (int r = 0; r < rounds; ++r) {
    const double u = uniform();
    const double v = uniform();
    if (u < 0.55) {
      out.push_back({MechanismKind::kPureEpsilon, 1.0, 1.0, 0.01 + 0.29 * v});
    } else if (u < 0.7) {
      out.push_back({MechanismKind::kGaussian, 1.0, 2.0 + 8.0 * v, 0.0});
    } else if (u < 0.85) {
      out.push_back({MechanismKind::kLaplace, 1.0, 5.0 + 35.0 * v, 0.0});
    } else {
      out.push_back({MechanismKind::kDiscreteGaussian, v < 0.5 ? 1.0 : 2.0, 2.0 + 4.0 * v, 0.0});
    }
  }
  return out;
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
BENCHMARK(BM_PerRoundColumn)
    ->Args({25, 10})
    ->Args({100, 10})
    ->Args({1000, 10})
    ->Args({25, 1})
    ->Args({100, 1})
    ->Unit(benchmark::kMillisecond);

// Every kind of release, composed once at the end; range(1): grid h = range(1) * 1e-4.
void BM_ComposeMixed(benchmark::State& state) {
  const std::vector<MechanismRelease> releases = MixedReleases(static_cast<int>(state.range(0)));
  AccountantOptions options;
  options.pld.value_discretization = 1e-4 * static_cast<double>(state.range(1));
  for (auto _ : state) {
    Accountant acc(options);
    for (const MechanismRelease& m : releases) acc.Add(m);
    benchmark::DoNotOptimize(acc.Epsilon(kDelta));
  }
}
BENCHMARK(BM_ComposeMixed)
    ->Args({25, 10})
    ->Args({100, 10})
    ->Args({1000, 10})
    ->Args({25, 1})
    ->Args({100, 1})
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
