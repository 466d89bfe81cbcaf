// SPDX-License-Identifier: Apache-2.0
// Every call an engine makes into a NodeProgram goes through these functions, so that a node's
// fault (an exception, a Fail, a NaN/Inf it broadcasts or reports) becomes a NodeFailure of that
// node and round instead of escaping into a TBB task (std::terminate) or into a neighbour's
// inbox. Both engines use them, so they report the same failure text for the same fault.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "dpadmm/runtime/engine.h"
#include "wiring.h"

namespace dpadmm::runtime::detail {

// What the engines need to know of each program before round 0.
struct Shapes {
  std::vector<std::size_t> max_message;    // MaxMessageSize() per node
  std::vector<std::size_t> finite_report;  // FiniteReportPrefix() per node
  std::size_t report_width = 0;            // ReportSize(), the same for every node
};

// Asks every program, in node order, for its sizes. An exception thrown there is the failure
// of that node in round -1 (set-up); the first one in node order is returned. Throws
// std::invalid_argument if report sizes are 0, differ between nodes, or a prefix exceeds them.
std::optional<NodeFailure> QueryShapes(std::span<NodeProgram* const> programs, Shapes& shapes);

// The bits of a double (memcpy rather than std::bit_cast, which Emscripten 3.1.6's libc++
// lacks; compilers emit a plain move for both).
inline std::uint64_t Bits(double x) {
  std::uint64_t b;
  std::memcpy(&b, &x, sizeof(b));
  return b;
}

// Index of the first NaN/Inf in `v`, or v.size() if every value is finite. The common case is
// one branch-free pass (an OR over the exponent bits), which the compiler vectorises.
inline std::size_t FirstNonFinite(std::span<const double> v) {
  constexpr std::uint64_t kExponent = 0x7ff0000000000000ull;  // all ones: NaN or Inf
  std::uint64_t bad = 0;
  for (const double x : v) bad |= static_cast<std::uint64_t>((Bits(x) & kExponent) == kExponent);
  if (bad == 0) return v.size();
  std::size_t k = 0;
  while ((Bits(v[k]) & kExponent) != kExponent) ++k;
  return k;
}

// Slow paths, out of line: the failure records (call CaughtException inside a catch block).
NodeFailure CaughtException(int node, std::int64_t round, const char* method);
NodeFailure NonFiniteValue(int node, std::int64_t round, const char* what,
                           std::span<const double> values, std::size_t index);

// Round 0: Start. Round r >= 1: Collect the inbox, Step, Release the inbox. Then checks the
// outbox's message for NaN/Inf. On a fault returns false and fills `failure`; the message must
// then not be broadcast. Inline: this is the engines' per-step hot path.
inline bool ComputeRound(NodeProgram& program, int node, std::int64_t round, Wiring& wiring,
                         NodeFailure& failure) {
  StepResult step;
  if (round == 0) {
    try {
      step = program.Start(wiring.outboxes[node]);
    } catch (...) {
      failure = CaughtException(node, round, "Start");
      return false;
    }
  } else {
    wiring.Collect(node);
    try {
      step = program.Step(round, wiring.inboxes[node], wiring.outboxes[node]);
    } catch (...) {
      wiring.Release(node);
      failure = CaughtException(node, round, "Step");
      return false;
    }
    wiring.Release(node);
  }
  if (!step.ok) [[unlikely]] {
    failure = NodeFailure{node, round, FailureKind::kStepFailed, std::move(step.error)};
    return false;
  }
  const std::span<const double> message = wiring.outboxes[node].message();
  const std::size_t bad = FirstNonFinite(message);
  if (bad != message.size()) [[unlikely]] {
    failure = NonFiniteValue(node, round, "message", message, bad);
    return false;
  }
  return true;
}

// Report(round) into `row`, then checks its first `finite_prefix` values; as ComputeRound.
inline bool ReportRound(const NodeProgram& program, int node, std::int64_t round,
                        std::span<double> row, std::size_t finite_prefix, NodeFailure& failure) {
  try {
    program.Report(round, row);
  } catch (...) {
    failure = CaughtException(node, round, "Report");
    return false;
  }
  const std::span<const double> checked(row.data(), finite_prefix);
  const std::size_t bad = FirstNonFinite(checked);
  if (bad != checked.size()) [[unlikely]] {
    failure = NonFiniteValue(node, round, "report", checked, bad);
    return false;
  }
  return true;
}

}  // namespace dpadmm::runtime::detail
