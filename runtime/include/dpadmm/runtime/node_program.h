// SPDX-License-Identifier: Apache-2.0
// The contract between an algorithm and an engine.
//
// A run is a sequence of rounds 0, 1, ..., R. In round 0 every node calls Start() and
// broadcasts its first message. In round r >= 1 a node's Step() receives exactly the messages
// its neighbours broadcast in round r - 1 (one per neighbour, in the order of the node's
// neighbour list) and broadcasts one message, which its neighbours receive in round r + 1.
// After Start()/Step() of round r the engine calls Report(r), which writes a fixed-size record
// (the node's model, its local loss, ...) that the engine hands, for all nodes at once and in
// round order, to the RoundSink.
//
// This is exactly the synchronous algorithm, whatever the schedule: an engine may run node i's
// round r as soon as its inputs have arrived, while other nodes are still in earlier rounds.
// Multi-phase algorithms (R-ADMM's odd/even rounds, ADMM sharing's party and coordinator
// phases) use the round number to choose what to do; a node with nothing to say in a round
// broadcasts an empty message.
//
// Thread safety: the engine never calls two methods of the same NodeProgram concurrently, but
// different nodes' methods run concurrently. A program touches only its own state.
#pragma once

#include <cassert>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace dpadmm::runtime {

// Messages delivered to a node in one round.
class Inbox {
 public:
  explicit Inbox(std::size_t degree) : messages_(degree) {}
  std::size_t size() const { return messages_.size(); }
  // Message from the k-th neighbour (k indexes the node's neighbour list).
  std::span<const double> operator[](std::size_t k) const {
    assert(k < messages_.size() && "inbox index beyond the node's degree");
    return messages_[k];
  }
  void Set(std::size_t k, std::span<const double> m) { messages_[k] = m; }

 private:
  std::vector<std::span<const double>> messages_;
};

// Where a node writes the message it broadcasts this round.
class Outbox {
 public:
  explicit Outbox(std::size_t max_size) : buffer_(max_size), size_(0) {}
  // A buffer of `n` doubles (n <= max_size()) to fill; the broadcast message is its content.
  std::span<double> Prepare(std::size_t n);
  std::span<const double> message() const { return {buffer_.data(), size_}; }
  std::size_t max_size() const { return buffer_.size(); }

 private:
  std::vector<double> buffer_;
  std::size_t size_;
};

// A node's step either succeeds or fails with a message (for example a NaN in its update).
// A failure ends the run; the engine reports the failure of the lowest (round, node). The
// engine also ends the run, as a failure of that node and round, when a method throws or when
// a broadcast message holds NaN/Inf (see engine.h), so a program need not catch its own
// exceptions.
struct [[nodiscard]] StepResult {
  bool ok = true;
  std::string error;
  static StepResult Ok() { return {}; }
  static StepResult Fail(std::string message) { return {false, std::move(message)}; }
};

class NodeProgram {
 public:
  virtual ~NodeProgram() = default;
  // Upper bound on the length of any message this node broadcasts.
  virtual std::size_t MaxMessageSize() const = 0;
  // Exact length of the record Report() writes.
  virtual std::size_t ReportSize() const = 0;
  // How many leading report values (typically the node's model) the engine checks for NaN/Inf
  // after each Report(); a non-finite one ends the run as a failure of this node. The values
  // after them may hold NaN as "not available" (a loss evaluated elsewhere). Default 0: the
  // report is not checked. Must be <= ReportSize().
  virtual std::size_t FiniteReportPrefix() const { return 0; }
  // Round 0.
  virtual StepResult Start(Outbox& out) = 0;
  // Round r >= 1.
  virtual StepResult Step(std::int64_t round, const Inbox& in, Outbox& out) = 0;
  // Called after Start (round 0) or Step(round); writes ReportSize() doubles.
  virtual void Report(std::int64_t round, std::span<double> out) const = 0;
};

}  // namespace dpadmm::runtime
