// Every call an engine makes into a NodeProgram goes through these functions, so that a node's
// fault (an exception, a Fail, a NaN/Inf it broadcasts or reports) becomes a NodeFailure of that
// node and round instead of escaping into a TBB task (std::terminate) or into a neighbour's
// inbox. Both engines use them, so they report the same failure text for the same fault.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
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

// Index of the first NaN/Inf in `v`, or v.size() if every value is finite. The common case is
// one branch-free pass (an OR over the exponent bits), which the compiler vectorises.
inline std::size_t FirstNonFinite(std::span<const double> v) {
  constexpr std::uint64_t kExponent = 0x7ff0000000000000ull;  // all ones: NaN or Inf
  std::uint64_t bad = 0;
  for (const double x : v) {
    bad |= static_cast<std::uint64_t>((std::bit_cast<std::uint64_t>(x) & kExponent) == kExponent);
  }
  if (bad == 0) return v.size();
  std::size_t k = 0;
  while ((std::bit_cast<std::uint64_t>(v[k]) & kExponent) != kExponent) ++k;
  return k;
}

// Round 0: Start. Round r >= 1: Collect the inbox, Step, Release the inbox. Then checks the
// outbox's message for NaN/Inf. Returns the failure, if any; the message is not broadcast.
std::optional<NodeFailure> ComputeRound(NodeProgram& program, int node, std::int64_t round,
                                        Wiring& wiring);

// Report(round) into `row`, then checks its first `finite_prefix` values.
std::optional<NodeFailure> ReportRound(const NodeProgram& program, int node, std::int64_t round,
                                       std::span<double> row, std::size_t finite_prefix);

}  // namespace dpadmm::runtime::detail
