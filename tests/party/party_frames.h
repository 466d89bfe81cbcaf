// SPDX-License-Identifier: Apache-2.0
// Envelopes as a peer sends them, for the decoder's tests and the hostile party.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "network_frame.h"

namespace dpadmm::partytest {

namespace pb = ::dpadmm::party::v1;

// A round frame carrying `payload` on every edge (from, to), in the order given.
inline pb::Envelope RoundFrame(std::int64_t round, const std::vector<std::pair<int, int>>& edges,
                               const std::vector<double>& payload) {
  pb::Envelope e;
  auto* f = e.mutable_round();
  f->set_round(round);
  for (const auto& [from, to] : edges) {
    auto* m = f->add_messages();
    m->set_from_node(static_cast<std::uint32_t>(from));
    m->set_to_node(static_cast<std::uint32_t>(to));
    for (double v : payload) m->add_payload(v);
  }
  return e;
}

}  // namespace dpadmm::partytest
