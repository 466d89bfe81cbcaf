// SPDX-License-Identifier: Apache-2.0
// The reference engine: one thread, every round in full before the next, nodes in id order.
// Within a round, the first fault in node order is the one with the lowest (round, node).
#include <utility>
#include <vector>

#include "engines.h"
#include "node_calls.h"
#include "wiring.h"

namespace dpadmm::runtime::detail {

EngineResult RunSerial(std::span<NodeProgram* const> programs, const Topology& topology,
                       const EngineOptions& options, const Shapes& shapes, RoundSink& sink) {
  const int n = topology.num_nodes();
  Wiring w(shapes.max_message, shapes.report_width, topology, options.channel_capacity);
  std::vector<double> table(static_cast<std::size_t>(n) * w.report_width);
  const auto row = [&](int i) {
    return std::span<double>(table.data() + static_cast<std::size_t>(i) * w.report_width,
                             w.report_width);
  };
  EngineResult result;
  NodeFailure failure;
  const auto fail = [&] {
    result.outcome = EngineOutcome::kFailed;
    result.failure = std::move(failure);
    return result;
  };

  for (std::int64_t r = 0; r <= options.last_round; ++r) {
    if (options.stop != nullptr && options.stop->stop_requested()) {
      result.outcome = EngineOutcome::kCancelled;
      return result;
    }
    for (int i = 0; i < n; ++i) {
      if (!ComputeRound(*programs[i], i, r, w, failure)) return fail();
      w.Broadcast(i);
      if (!ReportRound(*programs[i], i, r, row(i), shapes.finite_report[i], failure)) return fail();
    }
    result.last_reported_round = r;
    // An exception from the sink is the caller's: it propagates unchanged.
    if (!sink.OnRound(r, ReportTable(table.data(), n, w.report_width))) {
      result.outcome = EngineOutcome::kStopped;
      return result;
    }
  }
  return result;
}

}  // namespace dpadmm::runtime::detail
