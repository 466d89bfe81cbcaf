// SPDX-License-Identifier: Apache-2.0
// Engines run NodePrograms over an undirected topology, round by round.
//
// - RunSerial: one thread, nodes in id order within each round. The reference.
// - RunTbb (when built with oneTBB): each node's round is a task that becomes ready as soon as
//   its neighbours' previous-round messages have arrived (no global barrier). Messages move
//   through preallocated lock-free SPSC channels, one per directed edge. The run owns its own
//   task arena with `threads` workers, so several runs can share a process.
//
// - kMpi (when built with MPI): ranks host subsets of the nodes; see dpadmm/runtime/mpi.h.
//
// All give bitwise-identical results: node programs see the same inputs in the same order, and
// the RoundSink is called once per round, in round order, from one thread at a time, with the
// reports of all nodes in node order.
#pragma once

#include <atomic>
#include <cassert>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "dpadmm/runtime/node_program.h"

namespace dpadmm::runtime {

// Neighbour lists of an undirected graph: j in neighbors[i] iff i in neighbors[j].
struct Topology {
  std::vector<std::vector<int>> neighbors;
  int num_nodes() const { return static_cast<int>(neighbors.size()); }
};

// Reports of all nodes for one round: row i is node i's record.
class ReportTable {
 public:
  ReportTable(const double* data, int nodes, std::size_t width)
      : data_(data), nodes_(nodes), width_(width) {}
  int nodes() const { return nodes_; }
  std::size_t width() const { return width_; }
  std::span<const double> operator[](int node) const {
    assert(node >= 0 && node < nodes_ && "report row beyond the node count");
    return {data_ + static_cast<std::size_t>(node) * width_, width_};
  }

 private:
  const double* data_;
  int nodes_;
  std::size_t width_;
};

// Receives each completed round. Returning false stops the run after that round: no later
// round is reported (an engine may already have started later rounds of some nodes; their
// work is discarded).
class RoundSink {
 public:
  virtual ~RoundSink() = default;
  virtual bool OnRound(std::int64_t round, const ReportTable& reports) = 0;
};

// Thread-safe stop request: RequestStop() from any thread; the engine stops starting new node
// steps and returns with outcome kCancelled.
class StopToken {
 public:
  void RequestStop() { stop_.store(true, std::memory_order_relaxed); }
  bool stop_requested() const { return stop_.load(std::memory_order_relaxed); }

 private:
  std::atomic<bool> stop_{false};
};

enum class EngineKind { kSerial, kTbb, kMpi };
// "serial" | "tbb" | "mpi"; throws std::invalid_argument otherwise.
EngineKind ParseEngineKind(const std::string& name);
const char* ToString(EngineKind kind);
// False if this build has no such engine (no TBB in WebAssembly, no MPI without Open MPI).
bool EngineAvailable(EngineKind kind);

struct EngineOptions {
  EngineKind kind = EngineKind::kTbb;
  int threads = 0;              // TBB: worker count of the run's arena; 0 = all cores
  std::int64_t last_round = 0;  // run rounds 0..last_round
  int report_window = 0;        // TBB: rounds that may be in flight at once; 0 = automatic
  // TBB: consecutive nodes run as one task per round (a batch); 0 = automatic (from round 0's
  // cost: about 20 us of work per task, and at least 8 tasks per thread when the round allows).
  int batch_nodes = 0;
  // TBB: while rounds take less than this (seconds per round, measured on the calling thread),
  // they run on the calling thread in node order, the serial engine's schedule (same bits):
  // tasks, counters and wake-ups would cost more than two threads save on so little work.
  // Rounds are timed on the wall clock (rounds 0 and 1 one by one, later rounds in groups of
  // about this much work, at most 64 rounds); a group at or above the limit is checked by timing
  // the next two rounds, one by one, on the thread's CPU clock, which a loaded machine's
  // preemption does not inflate, and the run turns to tasks for good only when both are at or
  // above the limit too. A round that waits (sleeps, blocks) therefore counts as cheap. On one
  // thread the limit is 4 times this, and nodes of 1 us or more per round stay on the calling
  // thread for the whole run (tasks there only win through a batch's cache locality, on many cheap
  // nodes). 0 = tasks from round 1 on (round 0 always runs on the calling thread).
  double inline_round_seconds = 10e-6;
  std::size_t channel_capacity = 4;  // messages per directed edge (>= 2)
  const StopToken* stop = nullptr;
  // MPI: node_ranks[i] is the rank hosting node i; empty = contiguous blocks (mpi.h).
  std::vector<int> node_ranks;
  // MPI: an engine error is raised when a peer rank sends nothing awaited for this long.
  double peer_timeout_seconds = 60.0;
};

enum class EngineOutcome {
  kCompleted,  // every round up to last_round was reported
  kStopped,    // the sink returned false
  kCancelled,  // the StopToken was triggered
  kFailed,     // a node failed (returned Fail, threw, or produced NaN/Inf); see failure
};
const char* ToString(EngineOutcome outcome);

// How a node failed, so that a caller can tell a divergence (kNonFinite, or kStepFailed from an
// algorithm's own check) from a crash (kException).
enum class FailureKind {
  kStepFailed,  // Start or Step returned StepResult::Fail; message is the program's text
  kNonFinite,   // the engine found NaN/Inf in a broadcast message or a checked report value
  kException,   // a NodeProgram method threw; message keeps what()
};
// "step_failed" | "non_finite" | "exception".
const char* ToString(FailureKind kind);

struct NodeFailure {
  int node = -1;
  // The round of the failing call; -1 for the set-up calls made before round 0
  // (MaxMessageSize, ReportSize, FiniteReportPrefix).
  std::int64_t round = -1;
  FailureKind kind = FailureKind::kStepFailed;
  // kStepFailed: the program's own text, unchanged. kNonFinite: names node, round, where and
  // the value ("node 3, round 7: non-finite message[12] = nan"). kException: names node, round,
  // the method and keeps what() ("node 3, round 7: Step threw: <what()>").
  std::string message;
  int rank = 0;  // MPI: the rank hosting the node (0 for the other engines)
};

struct [[nodiscard]] EngineResult {
  EngineOutcome outcome = EngineOutcome::kCompleted;
  std::int64_t last_reported_round = -1;
  NodeFailure failure;  // valid when outcome == kFailed
  // TBB: the first round that ran as tasks; -1 when every round ran on the calling thread
  // (always -1 on the serial and MPI engines). The schedule only: it never changes a bit.
  std::int64_t first_task_round = -1;
};

// programs[i] runs node i (kMpi: this rank's nodes only, see RunMpi in mpi.h). Throws
// std::invalid_argument on inconsistent input (size mismatch, asymmetric topology, unavailable
// engine, report sizes that differ between nodes).
// Node faults are outcomes, never exceptions: if a NodeProgram method throws, a step returns
// Fail, or a broadcast message (or the first FiniteReportPrefix() report values) holds NaN/Inf,
// the run ends with kFailed and `failure` names the fault with the lowest (round, node), the same
// on every engine and thread count. Rounds before it have been delivered to the sink; none at
// or after it. An exception thrown by the RoundSink is the caller's own: the engine stops
// starting steps, lets running ones finish, and rethrows it unchanged from Run() (rounds before
// the throwing call have been delivered).
EngineResult Run(std::span<NodeProgram* const> programs, const Topology& topology,
                 const EngineOptions& options, RoundSink& sink);

}  // namespace dpadmm::runtime
