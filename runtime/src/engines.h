// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <span>

#include "dpadmm/runtime/engine.h"
#include "node_calls.h"

namespace dpadmm::runtime::detail {

EngineResult RunSerial(std::span<NodeProgram* const> programs, const Topology& topology,
                       const EngineOptions& options, const Shapes& shapes, RoundSink& sink);
bool TbbEngineBuilt();
EngineResult RunTbb(std::span<NodeProgram* const> programs, const Topology& topology,
                    const EngineOptions& options, const Shapes& shapes, RoundSink& sink);

}  // namespace dpadmm::runtime::detail
