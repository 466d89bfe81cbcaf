// SPDX-License-Identifier: Apache-2.0
// Chosen by CMake when the build has no MPI (WebAssembly, or DPADMM_WITH_MPI=OFF): the MPI
// entry points exist but refuse to run.
#include <stdexcept>

#include "dpadmm/runtime/mpi.h"

namespace dpadmm::runtime {
namespace {

[[noreturn]] void Unavailable() {
  throw std::invalid_argument("engine 'mpi' is not available in this build (use serial or tbb)");
}

}  // namespace

bool MpiBuilt() { return false; }

MpiSession::MpiSession(int*, char***) { Unavailable(); }
MpiSession::~MpiSession() = default;
void MpiSession::Abort(int) { Unavailable(); }
bool MpiInitialized() { return false; }
int MpiRank(MpiComm) { Unavailable(); }
int MpiSize(MpiComm) { Unavailable(); }

double MpiAllreduceMax(double, MpiComm) { Unavailable(); }
std::vector<double> MpiAllgather(std::span<const double>, MpiComm) { Unavailable(); }

EngineResult RunMpi(std::span<NodeProgram* const>, const Topology&, const EngineOptions&,
                    RoundSink&, MpiComm) {
  Unavailable();
}

}  // namespace dpadmm::runtime
