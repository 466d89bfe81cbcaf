// SPDX-License-Identifier: Apache-2.0
// The MPI transport of a placed run: the engine run on runtime::RunMpi and the process group of
// an MPI communicator. Everything else about which process holds what is placement.cpp's and
// knows no transport.
#include <string>

#include "dpadmm/runtime/mpi.h"
#include "placement/placement.h"
#include "placement/process_group.h"

namespace dpadmm {

runtime::EngineResult RunPrograms(const Experiment::Driver& d,
                                  std::span<runtime::NodeProgram* const> programs,
                                  const runtime::Topology& topology, runtime::EngineOptions options,
                                  runtime::RoundSink& sink) {
  if (d.network) return RunOnNetwork(d, programs, topology, options, sink);
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

namespace {

class MpiGroup : public ProcessGroup {
 public:
  explicit MpiGroup(runtime::MpiComm comm) : comm_(comm) {}
  int Rank() const override { return runtime::MpiRank(comm_); }
  int Size() const override { return runtime::MpiSize(comm_); }
  std::vector<double> Allgather(std::span<const double> values) const override {
    return runtime::MpiAllgather(values, comm_);
  }
  double AllreduceMax(double value) const override {
    return runtime::MpiAllreduceMax(value, comm_);
  }

 private:
  runtime::MpiComm comm_;
};

}  // namespace

std::unique_ptr<ProcessGroup> MpiProcessGroup(runtime::MpiComm comm) {
  return std::make_unique<MpiGroup>(comm);
}

}  // namespace dpadmm
