// SPDX-License-Identifier: Apache-2.0
// Builds without gRPC (WebAssembly, or DPADMM_WITH_PARTY=OFF): the network engine is absent.
#include <stdexcept>

#include "dpadmm/runtime/network.h"

namespace dpadmm::runtime {

bool NetworkBuilt() { return false; }

EngineResult RunNetwork(std::span<NodeProgram* const>, const Topology&, const EngineOptions&,
                        const NetworkOptions&, RoundSink&) {
  throw std::invalid_argument(
      "the network engine is not available in this build (needs gRPC: DPADMM_WITH_PARTY)");
}

}  // namespace dpadmm::runtime
