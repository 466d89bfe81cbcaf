// SPDX-License-Identifier: Apache-2.0
// Soak runs (plain executable, not Google Benchmark): long runs that must stay flat.
//  (a) the TBB engine: a cheap averaging program on N nodes for R rounds, resident memory
//      (/proc/self/statm) sampled at start, after warm-up and at the end: the engine's buffers
//      are preallocated, so memory must not grow with the number of rounds;
//  (b) one SPSC channel between two threads carrying M messages, each checked in order, with a
//      checksum of all payloads compared against its closed form.
//  (c) --faults: R runs of the TBB engine (N nodes, up to T rounds) in which one node, drawn
//      at random with its round, fails (StepResult::Fail): every run must end failed naming that
//      node and round, and resident memory must stay flat from run to run.
// Usage: bench_soak [nodes=1000] [rounds=10000] [messages=100000000] [threads=0]
//        bench_soak --faults [runs=10] [nodes=1000] [rounds=10000] [seed=1] [threads=0]
// Exit status 1 if a check fails or memory grows by more than 8 MiB after warm-up.
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <random>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "dpadmm/runtime/engine.h"
#include "dpadmm/runtime/spsc_channel.h"

namespace rt = dpadmm::runtime;

namespace {

double ResidentMiB() {
  std::ifstream statm("/proc/self/statm");
  long pages_total = 0, pages_resident = 0;
  statm >> pages_total >> pages_resident;
  return static_cast<double>(pages_resident) * static_cast<double>(sysconf(_SC_PAGESIZE)) /
         (1024.0 * 1024.0);
}

double SecondsSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// x_i <- (x_i + sum_j x_j) / (1 + degree): plain averaging, a few flops per node and round.
// `fail_round` > 0: Step fails in that round (a planted node failure).
class AveragingProgram : public rt::NodeProgram {
 public:
  explicit AveragingProgram(int id, std::int64_t fail_round = 0)
      : x_(static_cast<double>(id)), fail_round_(fail_round) {}
  std::size_t MaxMessageSize() const override { return 1; }
  std::size_t ReportSize() const override { return 1; }
  rt::StepResult Start(rt::Outbox& out) override {
    out.Prepare(1)[0] = x_;
    return rt::StepResult::Ok();
  }
  rt::StepResult Step(std::int64_t round, const rt::Inbox& in, rt::Outbox& out) override {
    if (round == fail_round_) return rt::StepResult::Fail("planted failure");
    double sum = x_;
    for (std::size_t k = 0; k < in.size(); ++k) sum += in[k][0];
    x_ = sum / static_cast<double>(in.size() + 1);
    out.Prepare(1)[0] = x_;
    return rt::StepResult::Ok();
  }
  void Report(std::int64_t, std::span<double> out) const override { out[0] = x_; }

 private:
  double x_;
  std::int64_t fail_round_;
};

// The soak graph: a ring with chords to the second neighbours (degree 4, regular).
rt::Topology SoakTopology(int nodes) {
  rt::Topology topology;
  for (int i = 0; i < nodes; ++i) {
    topology.neighbors.push_back(
        {(i + nodes - 2) % nodes, (i + nodes - 1) % nodes, (i + 1) % nodes, (i + 2) % nodes});
  }
  return topology;
}

// Samples resident memory after warm-up and keeps the last round's mean of x (averaging on a
// regular graph conserves it up to rounding: a check that every round really ran).
class SoakSink : public rt::RoundSink {
 public:
  explicit SoakSink(std::int64_t warmup_round) : warmup_round_(warmup_round) {}
  bool OnRound(std::int64_t round, const rt::ReportTable& reports) override {
    if (round == warmup_round_) warm_mib = ResidentMiB();
    double sum = 0.0;
    for (int i = 0; i < reports.nodes(); ++i) sum += reports[i][0];
    last_mean = sum / reports.nodes();
    rounds_seen = round + 1;
    return true;
  }
  double warm_mib = 0.0;
  double last_mean = 0.0;
  std::int64_t rounds_seen = 0;

 private:
  std::int64_t warmup_round_;
};

bool EngineSoak(int nodes, std::int64_t rounds, int threads) {
  const double start_mib = ResidentMiB();
  const rt::Topology topology = SoakTopology(nodes);
  std::vector<std::unique_ptr<AveragingProgram>> owned;
  std::vector<rt::NodeProgram*> programs;
  for (int i = 0; i < nodes; ++i) {
    owned.push_back(std::make_unique<AveragingProgram>(i));
    programs.push_back(owned.back().get());
  }
  const double expected_mean = (nodes - 1) / 2.0;
  SoakSink sink(rounds / 10);
  rt::EngineOptions options;
  options.kind = rt::EngineKind::kTbb;
  options.threads = threads;
  options.last_round = rounds - 1;
  const auto t0 = std::chrono::steady_clock::now();
  const rt::EngineResult result = rt::Run(programs, topology, options, sink);
  const double seconds = SecondsSince(t0);
  const double end_mib = ResidentMiB();
  const double growth = end_mib - sink.warm_mib;
  const bool mean_ok = std::abs(sink.last_mean - expected_mean) < 1e-6 * (1.0 + expected_mean);
  const bool ok = result.outcome == rt::EngineOutcome::kCompleted && sink.rounds_seen == rounds &&
                  mean_ok && growth <= 8.0;
  std::printf(
      "engine soak: %d nodes x %lld rounds (tbb, threads=%d): %.2f s, %.0f node-steps/s\n"
      "  resident MiB: start %.1f, after %lld rounds %.1f, end %.1f (growth after warm-up "
      "%+.2f MiB)\n  outcome %s, rounds reported %lld, mean %.12g (expected %.12g): %s\n",
      nodes, static_cast<long long>(rounds), threads, seconds,
      static_cast<double>(nodes) * static_cast<double>(rounds) / seconds, start_mib,
      static_cast<long long>(rounds / 10), sink.warm_mib, end_mib, growth,
      rt::ToString(result.outcome), static_cast<long long>(sink.rounds_seen), sink.last_mean,
      expected_mean, ok ? "OK" : "FAILED");
  return ok;
}

// Runs of the TBB engine, each with one node failing at a random round: each must end failed
// naming that node and round; resident memory after each run must not grow past the first's.
bool FaultSoak(int runs, int nodes, std::int64_t rounds, std::uint64_t seed, int threads) {
  std::mt19937_64 rng(seed);
  const rt::Topology topology = SoakTopology(nodes);
  double first_mib = 0.0, last_mib = 0.0;
  int named = 0;
  const auto t0 = std::chrono::steady_clock::now();
  for (int run = 0; run < runs; ++run) {
    const int failing = static_cast<int>(rng() % static_cast<std::uint64_t>(nodes));
    const std::int64_t round =
        1 + static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(rounds - 1));
    std::vector<std::unique_ptr<AveragingProgram>> owned;
    std::vector<rt::NodeProgram*> programs;
    for (int i = 0; i < nodes; ++i) {
      owned.push_back(std::make_unique<AveragingProgram>(i, i == failing ? round : 0));
      programs.push_back(owned.back().get());
    }
    SoakSink sink(rounds / 10);
    rt::EngineOptions options;
    options.kind = rt::EngineKind::kTbb;
    options.threads = threads;
    options.last_round = rounds - 1;
    const rt::EngineResult result = rt::Run(programs, topology, options, sink);
    const bool ok = result.outcome == rt::EngineOutcome::kFailed &&
                    result.failure.node == failing && result.failure.round == round &&
                    result.failure.message.find("planted failure") != std::string::npos;
    named += ok ? 1 : 0;
    last_mib = ResidentMiB();
    if (run == 0) first_mib = last_mib;
    if (!ok) {
      std::printf(
          "  run %d: node %d planted to fail in round %lld; the engine said %s, node %d, "
          "round %lld: %s\n",
          run, failing, static_cast<long long>(round), rt::ToString(result.outcome),
          result.failure.node, static_cast<long long>(result.failure.round),
          result.failure.message.c_str());
    }
  }
  const double growth = last_mib - first_mib;
  const bool ok = named == runs && growth <= 8.0;
  std::printf(
      "fault soak: %d runs of %d nodes x up to %lld rounds (tbb, threads=%d, seed %llu) in "
      "%.2f s: %d of %d ended failed naming the planted node and round; resident MiB after the "
      "first run %.1f, after the last %.1f (%+.2f): %s\n",
      runs, nodes, static_cast<long long>(rounds), threads, static_cast<unsigned long long>(seed),
      SecondsSince(t0), named, runs, first_mib, last_mib, growth, ok ? "OK" : "FAILED");
  return ok;
}

bool ChannelSoak(std::uint64_t messages) {
  rt::SpscChannel channel(1024, 1);
  const auto t0 = std::chrono::steady_clock::now();
  std::thread producer([&] {
    double m[1];
    for (std::uint64_t k = 0; k < messages; ++k) {
      m[0] = static_cast<double>(k);  // exact: k < 2^53
      while (!channel.TryPush(m)) std::this_thread::yield();
    }
  });
  std::uint64_t checksum = 0, out_of_order = 0;
  for (std::uint64_t k = 0; k < messages;) {
    bool ok = false;
    const std::span<const double> m = channel.Front(&ok);
    if (!ok) {
      std::this_thread::yield();  // let the producer run when the cores are oversubscribed
      continue;
    }
    const auto v = static_cast<std::uint64_t>(m[0]);
    out_of_order += (v != k || m.size() != 1);
    checksum += v;
    channel.Pop();
    ++k;
  }
  producer.join();
  const double seconds = SecondsSince(t0);
  // sum_{k<M} k = M (M - 1) / 2, computed without overflow for M < 2^32 * 2.
  const std::uint64_t expected =
      messages % 2 == 0 ? (messages / 2) * (messages - 1) : messages * ((messages - 1) / 2);
  const bool ok = checksum == expected && out_of_order == 0;
  std::printf(
      "channel soak: %llu messages in %.2f s (%.1f M msg/s), checksum %llu (expected "
      "%llu), out of order %llu: %s\n",
      static_cast<unsigned long long>(messages), seconds,
      static_cast<double>(messages) / seconds / 1e6, static_cast<unsigned long long>(checksum),
      static_cast<unsigned long long>(expected), static_cast<unsigned long long>(out_of_order),
      ok ? "OK" : "FAILED");
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::string(argv[1]) == "--faults") {
    const int runs = argc > 2 ? std::atoi(argv[2]) : 10;
    const int nodes = argc > 3 ? std::atoi(argv[3]) : 1000;
    const std::int64_t rounds = argc > 4 ? std::atoll(argv[4]) : 10000;
    const std::uint64_t seed = argc > 5 ? std::strtoull(argv[5], nullptr, 10) : 1;
    const int threads = argc > 6 ? std::atoi(argv[6]) : 0;
    if (runs < 1 || nodes < 5 || rounds < 10) {
      std::fprintf(stderr,
                   "usage: bench_soak --faults [runs>=1] [nodes>=5] [rounds>=10] [seed] "
                   "[threads]\n");
      return 2;
    }
    return FaultSoak(runs, nodes, rounds, seed, threads) ? 0 : 1;
  }
  const int nodes = argc > 1 ? std::atoi(argv[1]) : 1000;
  const std::int64_t rounds = argc > 2 ? std::atoll(argv[2]) : 10000;
  const std::uint64_t messages = argc > 3 ? std::strtoull(argv[3], nullptr, 10) : 100'000'000;
  const int threads = argc > 4 ? std::atoi(argv[4]) : 0;
  if (nodes < 5 || rounds < 10 || messages < 1) {
    std::fprintf(stderr, "usage: bench_soak [nodes>=5] [rounds>=10] [messages>=1] [threads]\n");
    return 2;
  }
  bool ok = EngineSoak(nodes, rounds, threads);
  ok = ChannelSoak(messages) && ok;
  return ok ? 0 : 1;
}
