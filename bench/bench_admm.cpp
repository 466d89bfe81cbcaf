// SPDX-License-Identifier: Apache-2.0
// One consensus-ADMM iteration (every node's local solve and messages) on UCI Adult with the
// papers' preprocessing, for N = 5, 20, 100 nodes, serial vs TBB with 1 and 2 threads.
// Reported time is per ADMM round: a run of kRounds rounds from f = 0 (warm starts as in a real
// run), metrics off, divided by kRounds. Needs ../shared/data/adult (or DPADMM_DATA=<dir>).
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>

#include "dpadmm/run/run.h"

namespace {

constexpr int kRounds = 20;

std::string DataDir() {
  const char* env = std::getenv("DPADMM_DATA");
  return env != nullptr ? env : DPADMM_SHARED_DATA;
}

const dpadmm::Experiment& AdultExperiment(int nodes) {
  static std::map<int, std::unique_ptr<dpadmm::Experiment>> cache;
  auto& slot = cache[nodes];
  if (!slot) {
    dpadmm::RunSpec spec;
    spec.data.source = dpadmm::DataSource::kAdult;
    spec.data.train_path = DataDir() + "/adult/adult.data";
    spec.data.test_path = DataDir() + "/adult/adult.test";
    spec.graph.topology = dpadmm::Topology::kRandom;
    spec.graph.nodes = nodes;
    spec.graph.edges = nodes == 5 ? 7 : nodes * 13 / 10;
    spec.algorithm.C = 1750;
    spec.algorithm.rho = 0.22;
    spec.algorithm.eta = 0.1;
    spec.compute_optimum = false;
    spec.metrics_every = 0;
    spec.iterations = kRounds;
    slot = std::make_unique<dpadmm::Experiment>(spec);
  }
  return *slot;
}

void AdmmIterationAdult(benchmark::State& state) {
  const int nodes = static_cast<int>(state.range(0));
  const bool tbb = state.range(1) != 0;
  const int threads = static_cast<int>(state.range(2));
  const dpadmm::Experiment* base = nullptr;
  try {
    base = &AdultExperiment(nodes);
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
    return;
  }
  dpadmm::RunSpec spec = base->spec();
  spec.engine = tbb ? dpadmm::runtime::EngineKind::kTbb : dpadmm::runtime::EngineKind::kSerial;
  spec.threads = threads;
  // Same data, graph and partition: only the engine options differ.
  for (auto _ : state) {
    const auto t0 = std::chrono::steady_clock::now();
    const dpadmm::RunSummary s = base->RunOn(spec.engine, spec.threads);
    const double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    state.SetIterationTime(sec / kRounds);
    benchmark::DoNotOptimize(s.final.train_loss);
  }
  state.SetLabel(std::string(dpadmm::ChoiceName(spec.engine)) +
                 " threads=" + std::to_string(threads));
}

}  // namespace

BENCHMARK(AdmmIterationAdult)
    ->ArgNames({"nodes", "tbb", "threads"})
    ->ArgsProduct({{5, 20, 100}, {0}, {1}})
    ->ArgsProduct({{5, 20, 100}, {1}, {1, 2}})
    ->UseManualTime()
    ->Iterations(3)  // each iteration is a kRounds-round run; manual time is per round
    ->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
