// SPDX-License-Identifier: Apache-2.0
#include <cmath>
#include <stdexcept>
#include <string>

#include "dpadmm/runtime/engine.h"
#include "dpadmm/runtime/mpi.h"
#include "engines.h"
#include "node_calls.h"
#include "wiring.h"

namespace dpadmm::runtime {

EngineKind ParseEngineKind(const std::string& name) {
  if (name == "serial") return EngineKind::kSerial;
  if (name == "tbb") return EngineKind::kTbb;
  if (name == "mpi") return EngineKind::kMpi;
  throw std::invalid_argument("unknown engine '" + name + "' (expected serial, tbb or mpi)");
}

const char* ToString(EngineKind kind) {
  switch (kind) {
    case EngineKind::kSerial: return "serial";
    case EngineKind::kTbb: return "tbb";
    case EngineKind::kMpi: return "mpi";
  }
  return "unknown";
}

bool EngineAvailable(EngineKind kind) {
  switch (kind) {
    case EngineKind::kSerial: return true;
    case EngineKind::kTbb: return detail::TbbEngineBuilt();
    case EngineKind::kMpi: return MpiBuilt();
  }
  return false;
}

const char* ToString(FailureKind kind) {
  switch (kind) {
    case FailureKind::kStepFailed: return "step_failed";
    case FailureKind::kNonFinite: return "non_finite";
    case FailureKind::kException: return "exception";
  }
  return "unknown";
}

const char* ToString(EngineOutcome outcome) {
  switch (outcome) {
    case EngineOutcome::kCompleted: return "completed";
    case EngineOutcome::kStopped: return "stopped";
    case EngineOutcome::kCancelled: return "cancelled";
    case EngineOutcome::kFailed: return "failed";
  }
  return "unknown";
}

EngineResult Run(std::span<NodeProgram* const> programs, const Topology& topology,
                 const EngineOptions& options, RoundSink& sink) {
  // The MPI engine gets only this rank's programs and validates across ranks itself.
  if (options.kind == EngineKind::kMpi) return RunMpi(programs, topology, options, sink);
  detail::ValidateRun(programs, topology, options);
  if (options.kind == EngineKind::kTbb && !detail::TbbEngineBuilt()) {
    throw std::invalid_argument("engine 'tbb' is not available in this build (use serial)");
  }
  detail::Shapes shapes;
  if (auto failure = detail::QueryShapes(programs, shapes)) {
    EngineResult result;
    result.outcome = EngineOutcome::kFailed;
    result.failure = std::move(*failure);
    return result;
  }
  if (options.kind == EngineKind::kSerial) {
    return detail::RunSerial(programs, topology, options, shapes, sink);
  }
  return detail::RunTbb(programs, topology, options, shapes, sink);
}

namespace detail {

void ValidateRun(std::span<NodeProgram* const> programs, const Topology& topology,
                 const EngineOptions& options) {
  const int n = topology.num_nodes();
  if (n == 0) throw std::invalid_argument("topology has no nodes");
  if (static_cast<int>(programs.size()) != n) {
    throw std::invalid_argument("got " + std::to_string(programs.size()) + " node programs for " +
                                std::to_string(n) + " nodes");
  }
  for (int i = 0; i < n; ++i) {
    if (programs[i] == nullptr)
      throw std::invalid_argument("node program " + std::to_string(i) + " is null");
    for (int j : topology.neighbors[i]) {
      if (j < 0 || j >= n || j == i) {
        throw std::invalid_argument("node " + std::to_string(i) + " has invalid neighbour " +
                                    std::to_string(j));
      }
      bool back = false;
      for (int k : topology.neighbors[j]) back = back || k == i;
      if (!back) {
        throw std::invalid_argument("topology is not symmetric: " + std::to_string(i) + " -> " +
                                    std::to_string(j) + " has no reverse edge");
      }
    }
  }
  if (options.last_round < 0) throw std::invalid_argument("last_round must be >= 0");
  if (options.threads < 0) throw std::invalid_argument("threads must be >= 0");
  if (options.channel_capacity < 2) throw std::invalid_argument("channel_capacity must be >= 2");
  if (options.report_window < 0) throw std::invalid_argument("report_window must be >= 0");
  if (!(options.inline_round_seconds >= 0.0) || !std::isfinite(options.inline_round_seconds)) {
    throw std::invalid_argument("inline_round_seconds must be finite and >= 0, got " +
                                std::to_string(options.inline_round_seconds));
  }
}

Wiring::Wiring(const std::vector<std::size_t>& max_message, std::size_t width,
               const Topology& topology, std::size_t channel_capacity)
    : in(topology.num_nodes()), out(topology.num_nodes()), report_width(width) {
  const int n = topology.num_nodes();
  inboxes.reserve(n);
  outboxes.reserve(n);
  for (int i = 0; i < n; ++i) {
    inboxes.emplace_back(topology.neighbors[i].size());
    outboxes.emplace_back(max_message[i]);
    for (int j : topology.neighbors[i]) {
      in[i].push_back(std::make_unique<SpscChannel>(channel_capacity, max_message[j]));
    }
  }
  // Node j writes to the channel at position k of in[i] where neighbors[i][k] == j.
  for (int i = 0; i < n; ++i) {
    for (std::size_t k = 0; k < topology.neighbors[i].size(); ++k) {
      out[topology.neighbors[i][k]].push_back(in[i][k].get());
    }
  }
}

void Wiring::Broadcast(int j) {
  const std::span<const double> m = outboxes[j].message();
  for (SpscChannel* c : out[j]) {
    if (!c->TryPush(m)) throw std::logic_error("channel full: schedule invariant broken");
  }
}

void Wiring::Collect(int i) {
  for (std::size_t k = 0; k < in[i].size(); ++k) {
    bool ok = false;
    const std::span<const double> m = in[i][k]->Front(&ok);
    if (!ok) throw std::logic_error("message missing: schedule invariant broken");
    inboxes[i].Set(k, m);
  }
}

void Wiring::Release(int i) {
  for (auto& c : in[i]) c->Pop();
}

}  // namespace detail
}  // namespace dpadmm::runtime
