// SPDX-License-Identifier: Apache-2.0
// A job in which one rank dies: node `kill_node` (on rank 1 with the contiguous map) raises
// SIGKILL in round 40 of a long ring run. The job must end non-zero within a bounded time:
// mpirun aborts it, or (when mpirun keeps it alive, --enable-recovery) the surviving ranks stop
// waiting after the peer timeout, report which rank they waited for, and exit non-zero.
#include <cstdio>
#include <cstdlib>
#include <exception>

#include "mpi_test_support.h"

namespace rt = dpadmm::runtime;
using namespace dpadmm::mpitest;

int main(int argc, char** argv) {
  rt::MpiSession mpi(&argc, &argv);
  const int n = 12;
  const rt::Topology topology = Ring(n);
  const std::vector<int> map = rt::ContiguousNodeRanks(n, mpi.size());
  const std::vector<int> on_rank1 = rt::LocalNodes(map, mpi.size() > 1 ? 1 : 0);
  const std::vector<Fault> faults = {{on_rank1.front(), 40, Fault::kKill}};
  auto owned = MakePrograms(rt::LocalNodes(map, mpi.rank()), faults);
  auto programs = Pointers(owned);
  rt::EngineOptions options;
  options.kind = rt::EngineKind::kMpi;
  options.last_round = 1000000;
  options.peer_timeout_seconds = 5;
  Recorder sink;
  try {
    const rt::EngineResult r = rt::Run(programs, topology, options, sink);
    std::fprintf(stderr, "rank %d: run ended %s, which a killed rank must not allow\n", mpi.rank(),
                 rt::ToString(r.outcome));
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    // Not MPI_Abort: under --enable-recovery mpirun then exits 0. The rank's own exit status
    // reaches mpirun either way.
    std::_Exit(3);
  }
}
