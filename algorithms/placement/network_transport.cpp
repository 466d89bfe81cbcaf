// SPDX-License-Identifier: Apache-2.0
// The network transport of a placed run: this party's nodes on runtime::RunNetwork. Which nodes
// a party hosts is placement.cpp's (HostedNodes); the party's own rows are its `train`.
#include <string>

#include "dpadmm/core/error.h"
#include "dpadmm/runtime/network.h"
#include "placement/placement.h"

namespace dpadmm {
namespace {

// Counts the rounds handed to the sink, so that a run ended by an engine error still says how
// far every party got.
class CountingSink : public runtime::RoundSink {
 public:
  explicit CountingSink(runtime::RoundSink& inner) : inner_(inner) {}
  bool OnRound(std::int64_t round, const runtime::ReportTable& table) override {
    last_ = round;
    return inner_.OnRound(round, table);
  }
  std::int64_t last() const { return last_; }

 private:
  runtime::RoundSink& inner_;
  std::int64_t last_ = -1;
};

}  // namespace

runtime::EngineResult RunOnNetwork(const Experiment::Driver& d,
                                   std::span<runtime::NodeProgram* const> programs,
                                   const runtime::Topology& topology,
                                   const runtime::EngineOptions& options, runtime::RoundSink& sink,
                                   const runtime::NetworkOptions* network) {
  CountingSink counted(sink);
  try {
    return runtime::RunNetwork(programs, topology, options,
                               network != nullptr ? *network : *d.network, counted);
  } catch (const runtime::NetworkError& e) {
    if (e.kind() == runtime::NetworkError::Kind::kConfig) throw InputError(e.what());
    runtime::EngineResult result;
    result.outcome = runtime::EngineOutcome::kFailed;
    result.last_reported_round = counted.last();
    result.failure.kind = runtime::FailureKind::kException;
    result.failure.message = e.what();  // names the peer at fault
    return result;
  }
}

}  // namespace dpadmm
