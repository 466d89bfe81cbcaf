#pragma once

#include <span>

#include "dpadmm/runtime/engine.h"

namespace dpadmm::runtime::detail {

EngineResult RunSerial(std::span<NodeProgram* const> programs, const Topology& topology,
                       const EngineOptions& options, RoundSink& sink);
bool TbbEngineBuilt();
EngineResult RunTbb(std::span<NodeProgram* const> programs, const Topology& topology,
                    const EngineOptions& options, RoundSink& sink);

}  // namespace dpadmm::runtime::detail
