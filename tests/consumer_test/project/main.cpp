// SPDX-License-Identifier: Apache-2.0
// A service embedding dpadmm: build a spec, watch the rounds, read the summary.
#include <cstdio>

#include <dpadmm/run/run.h>
// The former dpadmm/experiment/ paths stay forwarding headers, installed with the others.
#include <dpadmm/experiment/audit.h>
#include <dpadmm/experiment/calibration.h>
#include <dpadmm/experiment/checkpoint.h>
#include <dpadmm/experiment/choices.h>
#include <dpadmm/experiment/model.h>
#include <dpadmm/experiment/mpi_run.h>
#include <dpadmm/experiment/run.h>
#include <dpadmm/experiment/run_spec.h>
#include <dpadmm/experiment/spec_json.h>
#include <dpadmm/experiment/sweep.h>

namespace {
struct Counter : dpadmm::RunObserver {
  int rounds = 0;
  void OnRound(const dpadmm::RoundMetrics&) override { ++rounds; }
};
}  // namespace

int main() {
  dpadmm::RunSpec spec;
  spec.data.rows = 600;
  spec.graph.topology = dpadmm::Topology::kRing;
  spec.graph.nodes = 4;
  spec.iterations = 100;
  spec.algorithm.C = 50;
  spec.algorithm.rho = 1;
  spec.algorithm.eta = 1;
  Counter counter;
  dpadmm::runtime::StopToken stop;
  const dpadmm::RunSummary s = dpadmm::RunExperiment(spec, &counter, &stop);
  std::printf("outcome=%s rounds=%d accuracy=%.4f distance=%.3g\n", dpadmm::ToString(s.outcome),
              counter.rounds, 1.0 - s.final.test_error, s.final.distance_to_optimum);
  const bool ok = s.outcome == dpadmm::RunOutcome::kCompleted && counter.rounds == 101 &&
                  s.final.distance_to_optimum < 1e-4;
  return ok ? 0 : 1;
}
