// SPDX-License-Identifier: Apache-2.0
#include "experiment/mpi_support.h"

#include <cmath>
#include <numeric>
#include <string>

#include "dpadmm/core/error.h"
#include "dpadmm/runtime/mpi.h"

namespace dpadmm {

std::vector<int> HostedNodes(Experiment::Driver& d, int n) {
  if (!d.mpi) {
    std::vector<int> all(static_cast<std::size_t>(n));
    std::iota(all.begin(), all.end(), 0);
    return all;
  }
  const int size = runtime::MpiSize(d.mpi->comm);
  std::vector<int>& map = d.mpi->node_ranks;
  if (map.empty()) {
    map = runtime::ContiguousNodeRanks(n, size);
  } else if (static_cast<int>(map.size()) != n) {
    throw InputError("--node-ranks: the map has " + std::to_string(map.size()) +
                     " lines but the run has " + std::to_string(n) + " nodes" +
                     (d.spec.family() == Family::kSharing
                          ? " (sharing: line 1 is the coordinator, line m + 1 party m)"
                          : ""));
  }
  for (std::size_t i = 0; i < map.size(); ++i) {
    if (map[i] < 0 || map[i] >= size) {
      throw InputError("--node-ranks: line " + std::to_string(i + 1) + ": rank " +
                       std::to_string(map[i]) + " outside 0.." + std::to_string(size - 1) +
                       " (the job has " + std::to_string(size) + " ranks)");
    }
  }
  return runtime::LocalNodes(map, runtime::MpiRank(d.mpi->comm));
}

bool IsReportingRank(const Experiment::Driver& d) {
  return !d.mpi || runtime::MpiRank(d.mpi->comm) == 0;
}

runtime::EngineResult RunPrograms(const Experiment::Driver& d,
                                  std::span<runtime::NodeProgram* const> programs,
                                  const runtime::Topology& topology,
                                  runtime::EngineOptions options, runtime::RoundSink& sink) {
  if (!d.mpi) return runtime::Run(programs, topology, options, sink);
  options.kind = runtime::EngineKind::kMpi;
  options.node_ranks = d.mpi->node_ranks;
  options.peer_timeout_seconds = d.mpi->peer_timeout_seconds;
  runtime::EngineResult result = runtime::RunMpi(programs, topology, options, sink, d.mpi->comm);
  if (result.outcome == runtime::EngineOutcome::kFailed) {
    // The same on every rank: which rank hosted the failing node.
    result.failure.message =
        "rank " + std::to_string(result.failure.rank) + ", " + result.failure.message;
  }
  return result;
}

std::vector<double> CompletePerNode(const Experiment::Driver& d, std::vector<double> local) {
  if (!d.mpi) return local;
  std::vector<double> pairs;
  for (int i : d.hosted) {
    pairs.push_back(static_cast<double>(i));
    pairs.push_back(local[static_cast<std::size_t>(i)]);
  }
  const std::vector<double> all = runtime::MpiAllgather(pairs, d.mpi->comm);
  for (std::size_t k = 0; k + 1 < all.size(); k += 2) {
    local[static_cast<std::size_t>(all[k])] = all[k + 1];
  }
  return local;
}

void FilledReport::Report(std::int64_t round, std::span<double> out) const {
  inner_.Report(round, out);
  if (std::isnan(out[slot_])) out[slot_] = fill_(out);
}

}  // namespace dpadmm
