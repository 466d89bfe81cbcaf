// SPDX-License-Identifier: Apache-2.0
// SPSC channel: throughput (one producer thread, one consumer thread) and round-trip latency
// (ping-pong over two channels), each beside a mutex + std::deque queue as the baseline.
#include <benchmark/benchmark.h>

#include <atomic>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

#include "dpadmm/runtime/spsc_channel.h"

using dpadmm::runtime::SpscChannel;

namespace {

// The baseline: the obvious locked queue, with the same copy-in/copy-out interface.
class MutexQueue {
 public:
  MutexQueue(std::size_t capacity, std::size_t) : capacity_(capacity) {}
  bool TryPush(std::span<const double> m) {
    std::lock_guard<std::mutex> lock(mu_);
    if (q_.size() >= capacity_) return false;
    q_.emplace_back(m.begin(), m.end());
    return true;
  }
  bool TryPop(std::vector<double>& out) {
    std::lock_guard<std::mutex> lock(mu_);
    if (q_.empty()) return false;
    out = std::move(q_.front());
    q_.pop_front();
    return true;
  }

 private:
  std::size_t capacity_;
  std::mutex mu_;
  std::deque<std::vector<double>> q_;
};

template <class Queue>
void Throughput(benchmark::State& state) {
  const auto len = static_cast<std::size_t>(state.range(0));
  constexpr std::int64_t kMessages = 200'000;
  std::vector<double> msg(len, 1.0), out;
  for (auto _ : state) {
    Queue q(64, len);
    std::thread producer([&] {
      for (std::int64_t k = 0; k < kMessages; ++k)
        while (!q.TryPush(msg)) std::this_thread::yield();
    });
    std::int64_t got = 0;
    while (got < kMessages) {
      if (q.TryPop(out)) ++got;
    }
    producer.join();
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(state.iterations() * kMessages);
  state.SetBytesProcessed(state.iterations() * kMessages *
                          static_cast<std::int64_t>(len * sizeof(double)));
}

template <class Queue>
void RoundTrip(benchmark::State& state) {
  const auto len = static_cast<std::size_t>(state.range(0));
  Queue ping(2, len), pong(2, len);
  std::atomic<bool> done{false};
  std::thread echo([&] {
    std::vector<double> m;
    while (!done.load(std::memory_order_relaxed)) {
      if (ping.TryPop(m)) {
        while (!pong.TryPush(m)) {
        }
      }
    }
  });
  std::vector<double> msg(len, 2.0), back;
  for (auto _ : state) {
    while (!ping.TryPush(msg)) {
    }
    while (!pong.TryPop(back)) {
    }
  }
  done = true;
  echo.join();
}

}  // namespace

BENCHMARK(Throughput<SpscChannel>)
    ->Name("Throughput/spsc")
    ->Arg(8)
    ->Arg(104)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(Throughput<MutexQueue>)
    ->Name("Throughput/mutex_deque")
    ->Arg(8)
    ->Arg(104)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(RoundTrip<SpscChannel>)->Name("RoundTrip/spsc")->Arg(8)->Arg(104)->UseRealTime();
BENCHMARK(RoundTrip<MutexQueue>)->Name("RoundTrip/mutex_deque")->Arg(8)->Arg(104)->UseRealTime();

BENCHMARK_MAIN();
