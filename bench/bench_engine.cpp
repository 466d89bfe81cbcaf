// SPDX-License-Identifier: Apache-2.0
// The runtime's own cost per node-round: 1000 nodes whose step does almost nothing (average
// one number over the neighbours), so the time is scheduling, counters and channels.
// Reported time is per node-round (manual time = run time / (nodes * rounds)).
#include <benchmark/benchmark.h>

#include <time.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <vector>

#include "dpadmm/runtime/engine.h"

namespace rt = dpadmm::runtime;

namespace {

class Tiny : public rt::NodeProgram {
 public:
  std::size_t MaxMessageSize() const override { return 1; }
  std::size_t ReportSize() const override { return 1; }
  rt::StepResult Start(rt::Outbox& out) override {
    out.Prepare(1)[0] = x_;
    return {};
  }
  rt::StepResult Step(std::int64_t, const rt::Inbox& in, rt::Outbox& out) override {
    double s = 0.0;
    for (std::size_t k = 0; k < in.size(); ++k) s += in[k][0];
    x_ = 0.5 * x_ + 0.5 * s / static_cast<double>(in.size());
    out.Prepare(1)[0] = x_;
    return {};
  }
  void Report(std::int64_t, std::span<double> out) const override { out[0] = x_; }

 private:
  double x_ = 1.0;
};

struct NullSink : rt::RoundSink {
  bool OnRound(std::int64_t, const rt::ReportTable&) override { return true; }
};

// Ring plus chords to node i + 7 (mod N): degree 4 for N = 5 and N >= 15, diameter about N / 14.
rt::Topology ChordedRing(int n) {
  rt::Topology t;
  t.neighbors.resize(n);
  for (int i = 0; i < n; ++i) {
    t.neighbors[i] = {(i + 1) % n, (i + n - 1) % n, (i + 7) % n, ((i - 7) % n + n) % n};
  }
  return t;
}

void EngineOverhead(benchmark::State& state) {
  const int nodes = static_cast<int>(state.range(0));
  const auto kind = state.range(1) == 0 ? rt::EngineKind::kSerial : rt::EngineKind::kTbb;
  const int threads = static_cast<int>(state.range(2));
  constexpr std::int64_t kRounds = 100;
  const rt::Topology topology = ChordedRing(nodes);
  for (auto _ : state) {
    std::vector<Tiny> programs(nodes);
    std::vector<rt::NodeProgram*> ptrs;
    for (auto& p : programs) ptrs.push_back(&p);
    rt::EngineOptions o;
    o.kind = kind;
    o.threads = threads;
    o.last_round = kRounds;
    NullSink sink;
    const auto t0 = std::chrono::steady_clock::now();
    (void)rt::Run(ptrs, topology, o, sink);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    state.SetIterationTime(s / static_cast<double>(nodes * (kRounds + 1)));
  }
  state.SetLabel(std::string(rt::ToString(kind)) + " threads=" + std::to_string(threads));
}

// Set-up plus round 0 of a ring (diameter N / 2) with the same tiny programs: the engine's
// preparation (channels, counters, report window) must be linear in the graph.
void EngineSetupRing(benchmark::State& state) {
  const int nodes = static_cast<int>(state.range(0));
  const auto kind = state.range(1) == 0 ? rt::EngineKind::kSerial : rt::EngineKind::kTbb;
  rt::Topology topology;
  topology.neighbors.resize(nodes);
  for (int i = 0; i < nodes; ++i)
    topology.neighbors[i] = {(i + 1) % nodes, (i + nodes - 1) % nodes};
  for (auto _ : state) {
    std::vector<Tiny> programs(nodes);
    std::vector<rt::NodeProgram*> ptrs;
    for (auto& p : programs) ptrs.push_back(&p);
    rt::EngineOptions o;
    o.kind = kind;
    o.threads = 2;
    o.last_round = 0;
    NullSink sink;
    const auto t0 = std::chrono::steady_clock::now();
    (void)rt::Run(ptrs, topology, o, sink);
    state.SetIterationTime(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  state.SetLabel(rt::ToString(kind));
}

double ProcessCpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

// The scan behind "the TBB engine is never slower than the serial one": the same tiny programs
// on the chorded ring for N = 5 ... 100 000, serial vs TBB with 1 and 2 threads. Rounds shrink
// with N so that every case runs about 2e6 node-rounds (at least 20 rounds). Wall time per
// node-round is the manual time; `cpu_ns` is the process's CPU time (all threads) per
// node-round, the figure that stays meaningful on a loaded machine.
void EngineScaling(benchmark::State& state) {
  const int nodes = static_cast<int>(state.range(0));
  const auto kind = state.range(1) == 0 ? rt::EngineKind::kSerial : rt::EngineKind::kTbb;
  const int threads = static_cast<int>(state.range(2));
  const bool tasks_forced = state.range(3) == 0;  // TBB: inline_round_seconds = 0
  const std::int64_t rounds = std::max<std::int64_t>(20, 2'000'000 / nodes);
  const rt::Topology topology = ChordedRing(nodes);
  double cpu = 0.0;
  for (auto _ : state) {
    std::vector<Tiny> programs(nodes);
    std::vector<rt::NodeProgram*> ptrs;
    for (auto& p : programs) ptrs.push_back(&p);
    rt::EngineOptions o;
    o.kind = kind;
    o.threads = threads;
    o.last_round = rounds;
    if (tasks_forced) o.inline_round_seconds = 0.0;
    NullSink sink;
    const double c0 = ProcessCpuSeconds();
    const auto t0 = std::chrono::steady_clock::now();
    (void)rt::Run(ptrs, topology, o, sink);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    cpu += ProcessCpuSeconds() - c0;
    const double node_rounds = static_cast<double>(nodes) * static_cast<double>(rounds + 1);
    state.SetIterationTime(s / node_rounds);
  }
  const double node_rounds = static_cast<double>(nodes) * static_cast<double>(rounds + 1);
  state.counters["cpu_ns"] = 1e9 * cpu / node_rounds / static_cast<double>(state.iterations());
  state.SetLabel(std::string(rt::ToString(kind)) + " threads=" + std::to_string(threads) +
                 (kind == rt::EngineKind::kTbb && tasks_forced ? " tasks forced" : ""));
}

}  // namespace

// auto:0 forces the TBB engine's tasks from round 1 (EngineOptions::inline_round_seconds = 0:
// the engine before cheap rounds ran on the calling thread); auto:1 is the default.
BENCHMARK(EngineScaling)
    ->ArgNames({"nodes", "tbb", "threads", "auto"})
    ->ArgsProduct({{5, 20, 100, 200, 300, 1000, 10000, 100000}, {0}, {1}, {1}})
    ->ArgsProduct({{5, 20, 100, 200, 300, 1000, 10000, 100000}, {1}, {1, 2}, {0, 1}})
    ->UseManualTime()
    ->Iterations(3)
    ->Unit(benchmark::kNanosecond);

BENCHMARK(EngineSetupRing)
    ->ArgNames({"nodes", "tbb"})
    ->ArgsProduct({{10000, 100000}, {0, 1}})
    ->UseManualTime()
    ->Iterations(3)
    ->Unit(benchmark::kMillisecond);

BENCHMARK(EngineOverhead)
    ->ArgNames({"nodes", "tbb", "threads"})
    ->Args({1000, 0, 1})
    ->Args({1000, 1, 1})
    ->Args({1000, 1, 2})
    ->UseManualTime()
    ->Iterations(10)  // each iteration is nodes * 101 node-rounds; manual time is per node-round
    ->Unit(benchmark::kNanosecond);

BENCHMARK_MAIN();
