// The reference engine: one thread, every round in full before the next, nodes in id order.
#include <vector>

#include "engines.h"
#include "wiring.h"

namespace dpadmm::runtime::detail {

EngineResult RunSerial(std::span<NodeProgram* const> programs, const Topology& topology,
                       const EngineOptions& options, RoundSink& sink) {
  const int n = topology.num_nodes();
  Wiring w(programs, topology, options.channel_capacity);
  std::vector<double> table(static_cast<std::size_t>(n) * w.report_width);
  const auto row = [&](int i) {
    return std::span<double>(table.data() + static_cast<std::size_t>(i) * w.report_width,
                             w.report_width);
  };
  EngineResult result;

  for (std::int64_t r = 0; r <= options.last_round; ++r) {
    if (options.stop != nullptr && options.stop->stop_requested()) {
      result.outcome = EngineOutcome::kCancelled;
      return result;
    }
    for (int i = 0; i < n; ++i) {
      StepResult step;
      if (r == 0) {
        step = programs[i]->Start(w.outboxes[i]);
      } else {
        w.Collect(i);
        step = programs[i]->Step(r, w.inboxes[i], w.outboxes[i]);
        w.Release(i);
      }
      if (!step.ok) {
        result.outcome = EngineOutcome::kFailed;
        result.failure = {i, r, std::move(step.error)};
        return result;
      }
      w.Broadcast(i);
      programs[i]->Report(r, row(i));
    }
    result.last_reported_round = r;
    if (!sink.OnRound(r, ReportTable(table.data(), n, w.report_width))) {
      result.outcome = EngineOutcome::kStopped;
      return result;
    }
  }
  return result;
}

}  // namespace dpadmm::runtime::detail
