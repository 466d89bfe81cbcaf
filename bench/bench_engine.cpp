// SPDX-License-Identifier: Apache-2.0
// The runtime's own cost per node-round: nodes whose step does almost nothing (average one
// number over the neighbours), so the time is scheduling, counters and channels; and the
// N x node-size grid of the serial engine against the TBB engine (EngineGrid).
// Reported time is per node-round (manual time = run time / (nodes * rounds)).
#include <benchmark/benchmark.h>

#include <time.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <memory>
#include <string>
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

// A node whose round costs a chosen amount of arithmetic: it averages its neighbours' numbers
// with its own, then runs a dependent chain of `spins` multiply-adds on the result (the same
// chain in Start). The chain's result is the node's message, so every engine must give the
// same bits.
class Busy : public rt::NodeProgram {
 public:
  explicit Busy(std::int64_t spins = 0) : spins_(spins) {}
  std::size_t MaxMessageSize() const override { return 1; }
  std::size_t ReportSize() const override { return 1; }
  rt::StepResult Start(rt::Outbox& out) override {
    x_ = Spin(x_);
    out.Prepare(1)[0] = x_;
    return {};
  }
  rt::StepResult Step(std::int64_t, const rt::Inbox& in, rt::Outbox& out) override {
    double s = 0.0;
    for (std::size_t k = 0; k < in.size(); ++k) s += in[k][0];
    x_ = Spin(0.5 * x_ + 0.5 * s / static_cast<double>(in.size()));
    out.Prepare(1)[0] = x_;
    return {};
  }
  void Report(std::int64_t, std::span<double> out) const override { out[0] = x_; }
  double value() const { return x_; }

  // The chain x <- 0.999999 x + 1e-7: each multiply-add waits for the previous one, so its time
  // is the latency of `spins` multiplies and adds, whatever the compiler does with it.
  double Spin(double x) const {
    for (std::int64_t k = 0; k < spins_; ++k) x = x * 0.999999 + 1e-7;
    return x;
  }

 private:
  std::int64_t spins_;
  double x_ = 1.0;
};

// Chain steps per nanosecond on this machine: the fastest of 50 timed chains of 1e5 steps
// (short and many, so that some run unpreempted on a loaded machine, which only ever makes a
// chain slower).
double SpinsPerNanosecond() {
  static const double rate = [] {
    const Busy probe(100'000);
    double best = 1e300;
    double sink = 0.0;
    for (int k = 0; k < 50; ++k) {
      const auto t0 = std::chrono::steady_clock::now();
      sink += probe.Spin(static_cast<double>(k));
      best = std::min(
          best,
          std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count());
    }
    benchmark::DoNotOptimize(sink);
    return 1e5 / best;
  }();
  return rate;
}

// "The TBB engine is never slower than the serial one" over the N x node-size grid: N nodes on
// the chorded ring, each round of a node costing about `work_ns` of arithmetic (0: the tiny
// programs' own cost, about 40 ns). Each iteration runs the serial engine, the TBB engine on 1
// thread and on 2 threads one after the other (the order rotating between iterations, so that a
// change in the machine's load hits all three alike), checks that the TBB runs end with the
// serial run's bits (every node's value), and reports each engine's wall time per node-round
// (serial_ns, tbb1_ns, tbb2_ns) and the ratios tbb1 / serial and tbb2 / serial of that
// iteration. With --benchmark_repetitions=K the medians are over K such triples. Rounds: about
// 0.1 s of serial work per run (on an idle machine), at least 6 rounds (so that runs that turn
// to tasks do so).
void EngineGrid(benchmark::State& state) {
  const int nodes = static_cast<int>(state.range(0));
  const double work_ns = static_cast<double>(state.range(1));
  const auto spins = static_cast<std::int64_t>(std::llround(work_ns * SpinsPerNanosecond()));
  const double node_round_ns = std::max(work_ns, 40.0);
  const std::int64_t rounds =
      std::max<std::int64_t>(6, std::llround(0.1e9 / node_round_ns / nodes));
  const rt::Topology topology = ChordedRing(nodes);
  const double node_rounds = static_cast<double>(nodes) * static_cast<double>(rounds + 1);
  struct Case {
    rt::EngineKind kind;
    int threads;
  };
  const Case cases[3] = {
      {rt::EngineKind::kSerial, 1}, {rt::EngineKind::kTbb, 1}, {rt::EngineKind::kTbb, 2}};
  double sum_ns[3] = {0, 0, 0};
  double sum_ratio[2] = {0, 0};
  std::int64_t first_task_round[3] = {-1, -1, -1};
  int iteration = 0;
  for (auto _ : state) {
    double ns[3] = {0, 0, 0};
    std::vector<double> values[3];
    for (int k = 0; k < 3; ++k) {
      const int c = (k + iteration) % 3;
      std::vector<Busy> programs(nodes, Busy(spins));
      std::vector<rt::NodeProgram*> ptrs;
      for (auto& p : programs) ptrs.push_back(&p);
      rt::EngineOptions o;
      o.kind = cases[c].kind;
      o.threads = cases[c].threads;
      o.last_round = rounds;
      NullSink sink;
      const auto t0 = std::chrono::steady_clock::now();
      const rt::EngineResult result = rt::Run(ptrs, topology, o, sink);
      ns[c] =
          std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count() /
          node_rounds;
      first_task_round[c] = result.first_task_round;
      for (const auto& p : programs) values[c].push_back(p.value());
    }
    if (std::memcmp(values[0].data(), values[1].data(), sizeof(double) * nodes) != 0 ||
        std::memcmp(values[0].data(), values[2].data(), sizeof(double) * nodes) != 0) {
      state.SkipWithError("the TBB engine's bits differ from the serial engine's");
      return;
    }
    for (int c = 0; c < 3; ++c) sum_ns[c] += ns[c];
    sum_ratio[0] += ns[1] / ns[0];
    sum_ratio[1] += ns[2] / ns[0];
    state.SetIterationTime(ns[0] * 1e-9);
    ++iteration;
  }
  const double its = static_cast<double>(state.iterations());
  state.counters["serial_ns"] = sum_ns[0] / its;
  state.counters["tbb1_ns"] = sum_ns[1] / its;
  state.counters["tbb2_ns"] = sum_ns[2] / its;
  state.counters["tbb1/serial"] = sum_ratio[0] / its;
  state.counters["tbb2/serial"] = sum_ratio[1] / its;
  state.SetLabel("rounds=" + std::to_string(rounds) + " tasks from round: tbb1 " +
                 std::to_string(first_task_round[1]) + ", tbb2 " +
                 std::to_string(first_task_round[2]));
}

// The grid's cells: N x node size (ns of work per node-round), those whose serial run of 7
// rounds stays within about 1.5 s on an idle machine (1 ms nodes up to N = 100, 10 us up to
// N = 10 000).
void GridArgs(benchmark::internal::Benchmark* b) {
  for (const int work : {0, 100, 10'000, 1'000'000}) {
    for (const int n : {5, 20, 100, 1000, 10'000, 100'000}) {
      if (static_cast<double>(n) * work * 7 > 1.5e9) continue;
      b->Args({n, work});
    }
  }
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

BENCHMARK(EngineGrid)
    ->ArgNames({"nodes", "work_ns"})
    ->Apply(GridArgs)
    ->UseManualTime()
    ->Iterations(1)
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
