// SPDX-License-Identifier: Apache-2.0
// Running an engine across MPI ranks.
//
// Each rank hosts a subset of the nodes (EngineOptions::node_ranks, contiguous blocks by default)
// and constructs only their programs. Messages between nodes of the same rank go through the
// usual channels; messages between ranks travel as one packed non-blocking point-to-point MPI
// message per (sending rank, receiving rank, round). The reports of all nodes are gathered on
// rank 0, which calls the RoundSink in round order; the sink of every other rank is never
// called. Every rank returns the same EngineResult (outcome, last reported round, failure).
//
// MPI_Init/MPI_Finalize belong to the caller (MpiSession below does both). mpi.h never appears
// in this header: a communicator is passed as the address of an MPI_Comm (`MpiComm{&comm}`), or
// not at all for MPI_COMM_WORLD. The engine duplicates the communicator for its own traffic, so
// the caller's messages and error handler are untouched.
//
// Faults: a failed step or an exception thrown by a node program on any rank ends every rank
// with outcome kFailed naming the node, its rank and the round (the lowest (round, node), as in
// the serial engine). An engine error (an MPI error, a peer silent for longer than
// EngineOptions::peer_timeout_seconds, e.g. a killed rank) throws MpiError on the rank that sees
// it, after telling the other ranks, which throw MpiError too. After an MpiError requests may
// still be in flight (the engine keeps their buffers alive on purpose): end the job with
// MpiSession::Abort. A rank waiting only for the outcome hears heartbeats from rank 0, so only
// a peer's round has to fit in the timeout.
#pragma once

#include <cstdint>
#include <istream>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "dpadmm/runtime/engine.h"

namespace dpadmm::runtime {

// Opaque communicator handle: the address of an MPI_Comm, or nullptr for MPI_COMM_WORLD.
struct MpiComm {
  const void* comm = nullptr;
};

// An engine-level MPI failure (not an algorithm outcome): names the rank that saw it.
class MpiError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// False when this build has no MPI (equivalent to EngineAvailable(EngineKind::kMpi)).
bool MpiBuilt();

// RAII: initialises MPI (MPI_THREAD_FUNNELED) unless it is already initialised, and finalises it
// on destruction only if it initialised it. One per process, on the main thread.
class MpiSession {
 public:
  MpiSession(int* argc, char*** argv);
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;
  int rank() const { return rank_; }
  int size() const { return size_; }
  // MPI_Abort on MPI_COMM_WORLD: ends every rank of the job with `code`.
  [[noreturn]] static void Abort(int code);

 private:
  bool owns_ = false;
  int rank_ = 0;
  int size_ = 1;
};

// True once MPI_Init has run and MPI_Finalize has not (false without MPI in the build).
bool MpiInitialized();
int MpiRank(MpiComm comm = {});
int MpiSize(MpiComm comm = {});

// Node-to-rank maps. ContiguousNodeRanks: rank p hosts nodes [p n / P, (p + 1) n / P), so block
// sizes differ by at most one (ranks beyond n host nothing).
std::vector<int> ContiguousNodeRanks(int nodes, int ranks);
// One rank per line, line k is the rank of node k (integers >= 0, surrounding blanks allowed).
// Throws std::invalid_argument "name:line: ..." on a malformed line. ReadNodeRankFile also
// fails naming the file when it cannot be opened.
std::vector<int> ParseNodeRanks(std::istream& in, const std::string& name);
std::vector<int> ReadNodeRankFile(const std::string& path);
// The nodes rank `rank` hosts, in increasing id: the order of RunMpi's `local_programs`.
std::vector<int> LocalNodes(std::span<const int> node_ranks, int rank);

// Collectives for the callers of RunMpi (set-up and evaluation, not node traffic): every rank
// of `comm` calls them in the same order. Both are exact (no rounding): the maximum of doubles,
// and a concatenation.
// The maximum of `value` over the ranks, on every rank (MPI_Allreduce with MPI_MAX).
double MpiAllreduceMax(double value, MpiComm comm = {});
// Every rank's `values` concatenated in rank order, on every rank (MPI_Allgatherv).
std::vector<double> MpiAllgather(std::span<const double> values, MpiComm comm = {});

// Runs this rank's share of the nodes. local_programs[k] runs node LocalNodes(map, rank)[k]
// where map is options.node_ranks or, when empty, ContiguousNodeRanks(n, size). Collective: every
// rank of `comm` calls it with the same topology and options. options.threads: <= 1 runs the
// local nodes of a round in a loop on the calling thread (one rank per core), > 1 in a oneTBB
// arena of that many threads when TBB is built. Throws std::invalid_argument on inconsistent
// input (the same on every rank, before any message is sent) and MpiError on engine failure.
// Run() with EngineKind::kMpi calls this with MPI_COMM_WORLD.
EngineResult RunMpi(std::span<NodeProgram* const> local_programs, const Topology& topology,
                    const EngineOptions& options, RoundSink& sink, MpiComm comm = {});

}  // namespace dpadmm::runtime
