// SPDX-License-Identifier: Apache-2.0
// Chosen by CMake when the build has no oneTBB (WebAssembly): the serial engine is the only one.
#include <stdexcept>

#include "engines.h"

namespace dpadmm::runtime::detail {

bool TbbEngineBuilt() { return false; }

EngineResult RunTbb(std::span<NodeProgram* const>, const Topology&, const EngineOptions&,
                    const Shapes&, RoundSink&) {
  throw std::invalid_argument("engine 'tbb' is not available in this build (use serial)");
}

}  // namespace dpadmm::runtime::detail
