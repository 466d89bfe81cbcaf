// SPDX-License-Identifier: Apache-2.0
// Peak memory of a consensus run against the data's compact size (bench/README.md, "Memory").
// One scenario per process (the peak resident set is a process-wide high-water mark):
//   bench_memory adult                    Adult (../shared/data or $DPADMM_DATA), 5 nodes
//   bench_memory sparse ROWS DIMS NNZ     generated sparse rows (NNZ nonzeros per row)
//   bench_memory dense ROWS DIMS          generated twonorm rows
//   ... --nodes K                         K nodes instead of 5 (the O(N d) part of the peak is
//                                         what grows with K)
// Prints the compact size of the prepared training and test data (CSR: 12 bytes per stored
// entry + 16 per row for the row pointer and the label; dense: 8 per value + 8 per label), the
// peak resident set of the run minus the process's resident set before the data was loaded,
// and their ratio. The run is the CLI's default consensus run (ADMM, serial engine, the
// centralized optimum, metrics every round) for 3 rounds.
#include <sys/resource.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "dpadmm/data/dataset.h"
#include "dpadmm/run/run.h"

namespace {

double PeakRssBytes() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) * 1024.0;  // Linux: kilobytes
}

double CompactBytes(const dpadmm::Dataset& d) {
  const double rows = static_cast<double>(d.rows());
  if (d.is_sparse()) return 12.0 * static_cast<double>(d.nonzeros()) + 16.0 * rows;
  return 8.0 * rows * static_cast<double>(d.cols()) + 8.0 * rows;
}

std::string DataDir() {
  const char* env = std::getenv("DPADMM_DATA");
  return env != nullptr ? env : DPADMM_SHARED_DATA;
}

int Usage() {
  std::fprintf(stderr,
               "usage: bench_memory adult | sparse ROWS DIMS NNZ | dense ROWS DIMS [--nodes K]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  int nodes = 5;
  if (argc >= 4 && std::string(argv[argc - 2]) == "--nodes") {
    nodes = std::atoi(argv[argc - 1]);
    if (nodes < 1) return Usage();
    argc -= 2;
  }
  if (argc < 2) return Usage();
  const std::string kind = argv[1];
  dpadmm::RunSpec spec;
  spec.graph.nodes = nodes;
  spec.iterations = 3;
  spec.engine = dpadmm::runtime::EngineKind::kSerial;
  spec.threads = 1;
  if (kind == "adult" && argc == 2) {
    spec.data.source = dpadmm::DataSource::kAdult;
    spec.data.train_path = DataDir() + "/adult/adult.data";
    spec.data.test_path = DataDir() + "/adult/adult.test";
  } else if (kind == "sparse" && argc == 5) {
    spec.data.source = dpadmm::DataSource::kSparse;
    spec.data.rows = std::atoll(argv[2]);
    spec.data.dims = std::atoll(argv[3]);
    spec.data.sparse_nnz_per_row = std::atoll(argv[4]);
  } else if (kind == "dense" && argc == 4) {
    spec.data.source = dpadmm::DataSource::kTwonorm;
    spec.data.rows = std::atoll(argv[2]);
    spec.data.dims = std::atoll(argv[3]);
  } else {
    return Usage();
  }
  const double before = PeakRssBytes();
  dpadmm::Experiment e(spec);
  const double prepared = PeakRssBytes() - before;  // loading, preparing, the optimum
  const dpadmm::RunSummary s = e.Run();
  const double used = PeakRssBytes() - before;
  // Only now: a consensus experiment rebuilds train() from its slices on demand.
  const double compact = CompactBytes(e.train()) + CompactBytes(e.test());
  std::printf(
      "%s: train %lld x %lld (%lld stored), test %lld rows; compact %.1f MB; peak RSS above "
      "the start: set-up %.1f MB, whole run %.1f MB = %.2fx compact (%d nodes, %s, %lld "
      "rounds)\n",
      kind.c_str(), static_cast<long long>(e.train().rows()),
      static_cast<long long>(e.train().cols()), static_cast<long long>(e.train().nonzeros()),
      static_cast<long long>(e.test().rows()), compact / 1e6, prepared / 1e6, used / 1e6,
      used / compact, nodes, s.message.c_str(), static_cast<long long>(s.rounds));
  return 0;
}
