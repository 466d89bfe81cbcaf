// SPDX-License-Identifier: Apache-2.0
// The MPI engine against the TBB engine on the same node program (the averaging program of the
// MPI tests, messages padded to `width` doubles), under mpirun with 1-4 ranks:
//
//   throughput: N nodes, R rounds, ring (degree 2) and random (ring + 3 chords per node) graphs,
//               contiguous blocks; rounds per second, median over repetitions;
//   latency:    2 nodes on 2 ranks (one edge across the ranks), R rounds; time per round is one
//               message each way plus a step: the per-message latency of the engine.
//
// Plain executable (not Google Benchmark: every rank must run the same number of iterations).
// With one rank it also times the TBB and serial engines in-process, the baseline.
//   mpirun --allow-run-as-root --oversubscribe -np K build/bench/bench_mpi
//     [--nodes 1000] [--rounds 200] [--width 104] [--reps 5] [--latency-rounds 20000]
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "dpadmm/runtime/engine.h"
#include "dpadmm/runtime/mpi.h"
#include "mpi_test_support.h"

namespace rt = dpadmm::runtime;
using namespace dpadmm::mpitest;

namespace {

struct NullSink : rt::RoundSink {
  bool OnRound(std::int64_t, const rt::ReportTable&) override { return true; }
};

struct Config {
  int nodes = 1000;
  std::int64_t rounds = 200;
  std::size_t width = 104;
  int reps = 5;
  std::int64_t latency_rounds = 20000;
};

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Seconds for one run, measured on rank 0 between two barriers (the slowest rank counts).
double TimeRun(rt::EngineKind kind, int threads, const rt::Topology& t, std::int64_t rounds,
               std::size_t width) {
  const bool mpi = kind == rt::EngineKind::kMpi;
  const int rank = mpi ? rt::MpiRank() : 0;
  std::vector<int> nodes;
  if (mpi) {
    nodes = rt::LocalNodes(rt::ContiguousNodeRanks(t.num_nodes(), rt::MpiSize()), rank);
  } else {
    for (int i = 0; i < t.num_nodes(); ++i) nodes.push_back(i);
  }
  auto owned = MakePrograms(nodes, {}, width);
  auto programs = Pointers(owned);
  rt::EngineOptions o;
  o.kind = kind;
  o.threads = threads;
  o.last_round = rounds;
  NullSink sink;
  if (mpi) MPI_Barrier(MPI_COMM_WORLD);
  const auto start = std::chrono::steady_clock::now();
  const rt::EngineResult r = rt::Run(programs, t, o, sink);
  if (mpi) MPI_Barrier(MPI_COMM_WORLD);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (r.outcome != rt::EngineOutcome::kCompleted) {
    std::fprintf(stderr, "run ended %s\n", rt::ToString(r.outcome));
    std::exit(1);
  }
  return s;
}

std::int64_t CrossEdges(const rt::Topology& t, int ranks) {
  const auto map = rt::ContiguousNodeRanks(t.num_nodes(), ranks);
  std::int64_t e = 0;
  for (int i = 0; i < t.num_nodes(); ++i)
    for (int j : t.neighbors[i]) e += map[i] != map[j];
  return e;  // directed
}

}  // namespace

int main(int argc, char** argv) {
  rt::MpiSession mpi(&argc, &argv);
  Config c;
  for (int a = 1; a + 1 < argc; a += 2) {
    const std::string k = argv[a];
    const long long v = std::atoll(argv[a + 1]);
    if (k == "--nodes")
      c.nodes = static_cast<int>(v);
    else if (k == "--rounds")
      c.rounds = v;
    else if (k == "--width")
      c.width = static_cast<std::size_t>(v);
    else if (k == "--reps")
      c.reps = static_cast<int>(v);
    else if (k == "--latency-rounds")
      c.latency_rounds = v;
  }
  const bool root = mpi.rank() == 0;
  if (root) {
    std::printf("# nodes=%d rounds=%lld width=%zu reps=%d ranks=%d\n", c.nodes,
                static_cast<long long>(c.rounds), c.width, c.reps, mpi.size());
    std::printf("%-10s %-6s %-8s %-11s %12s %14s %14s\n", "engine", "ranks", "graph", "requests",
                "rounds/s", "us/round", "cut edges");
  }
  const struct {
    const char* name;
    rt::Topology topology;
  } graphs[] = {{"ring", Ring(c.nodes)}, {"random", RandomGraph(c.nodes, 3, 17)}};

  // The two request modes alternate within each repetition, so that drifting load on a shared
  // machine hits both alike.
  const std::vector<const char*> modes =
      mpi.size() == 1 ? std::vector<const char*>{"plain"}  // no inter-rank message
                      : std::vector<const char*>{"plain", "persistent"};
  for (const auto& g : graphs) {
    std::vector<std::vector<double>> secs(modes.size());
    TimeRun(rt::EngineKind::kMpi, 0, g.topology, 5, c.width);  // warm-up
    for (int r = 0; r < c.reps; ++r) {
      for (std::size_t m = 0; m < modes.size(); ++m) {
        setenv("DPADMM_MPI_REQUESTS", modes[m], 1);
        secs[m].push_back(TimeRun(rt::EngineKind::kMpi, 0, g.topology, c.rounds, c.width));
      }
    }
    for (std::size_t m = 0; m < modes.size() && root; ++m) {
      const double med = Median(secs[m]);
      std::printf("%-10s %-6d %-8s %-11s %12.1f %14.1f %14lld\n", "mpi", mpi.size(), g.name,
                  modes[m], static_cast<double>(c.rounds) / med,
                  1e6 * med / static_cast<double>(c.rounds),
                  static_cast<long long>(CrossEdges(g.topology, mpi.size())));
    }
    if (mpi.size() == 1) {
      for (int threads : {1, 2}) {
        std::vector<double> tbb_secs;
        for (int r = 0; r < c.reps; ++r) {
          tbb_secs.push_back(TimeRun(rt::EngineKind::kTbb, threads, g.topology, c.rounds, c.width));
        }
        const double m = Median(tbb_secs);
        std::printf("%-10s %-6s %-8s %-11s %12.1f %14.1f %14s\n",
                    threads == 1 ? "tbb-1thr" : "tbb-2thr", "-", g.name, "-",
                    static_cast<double>(c.rounds) / m, 1e6 * m / static_cast<double>(c.rounds),
                    "-");
      }
    }
  }

  // Latency: one edge across two ranks (or, with one rank, the TBB engine's channel).
  if (mpi.size() <= 2) {
    const rt::Topology pair = Ring(2);
    for (std::size_t width : {std::size_t{2}, c.width}) {
      std::vector<std::vector<double>> secs(modes.size());
      for (int r = 0; r < c.reps; ++r) {
        for (std::size_t m = 0; m < modes.size(); ++m) {
          setenv("DPADMM_MPI_REQUESTS", modes[m], 1);
          secs[m].push_back(TimeRun(rt::EngineKind::kMpi, 0, pair, c.latency_rounds, width));
        }
      }
      for (std::size_t m = 0; m < modes.size() && root; ++m) {
        std::printf("latency mpi ranks=%d width=%zu %-10s: %.2f us per round (median)\n",
                    mpi.size(), width, modes[m],
                    1e6 * Median(secs[m]) / static_cast<double>(c.latency_rounds));
      }
      if (mpi.size() == 1) {
        std::vector<double> tbb_secs;
        for (int r = 0; r < c.reps; ++r) {
          tbb_secs.push_back(TimeRun(rt::EngineKind::kTbb, 2, pair, c.latency_rounds, width));
        }
        std::printf("latency tbb-2thr width=%zu: %.2f us per round (median)\n", width,
                    1e6 * Median(tbb_secs) / static_cast<double>(c.latency_rounds));
      }
    }
  }
  unsetenv("DPADMM_MPI_REQUESTS");
  return 0;
}
