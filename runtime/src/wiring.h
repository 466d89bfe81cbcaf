// SPDX-License-Identifier: Apache-2.0
// Shared by the engines: validation of the inputs and the channel layout (one SPSC channel per
// directed edge, preallocated), so both engines move messages the same way.
#pragma once

#include <memory>
#include <span>
#include <vector>

#include "dpadmm/runtime/engine.h"
#include "dpadmm/runtime/spsc_channel.h"

namespace dpadmm::runtime::detail {

// Throws std::invalid_argument on size mismatch, asymmetric or self-looped topology,
// null programs, or options out of range. Calls no program method (see QueryShapes).
void ValidateRun(std::span<NodeProgram* const> programs, const Topology& topology,
                 const EngineOptions& options);

struct Wiring {
  // in[i][k]: channel from neighbour k (topology.neighbors[i][k]) to node i.
  std::vector<std::vector<std::unique_ptr<SpscChannel>>> in;
  // out[j]: the channels node j writes to (one per neighbour).
  std::vector<std::vector<SpscChannel*>> out;
  // Per-node buffers for the engine: an Inbox and an Outbox.
  std::vector<Inbox> inboxes;
  std::vector<Outbox> outboxes;
  std::size_t report_width = 0;

  // max_message[i]: node i's MaxMessageSize() (asked once, before the run).
  Wiring(const std::vector<std::size_t>& max_message, std::size_t width, const Topology& topology,
         std::size_t channel_capacity);

  // Broadcast node j's outbox to its out-channels. Capacity is guaranteed by the schedule
  // (a node is never more than one round ahead of a neighbour's consumption).
  void Broadcast(int j);
  // Fill node i's inbox from the fronts of its in-channels; Release pops them afterwards.
  void Collect(int i);
  void Release(int i);
};

}  // namespace dpadmm::runtime::detail
