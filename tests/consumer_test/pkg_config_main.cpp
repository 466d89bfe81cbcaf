// SPDX-License-Identifier: Apache-2.0
// Built with nothing but `pkg-config --static --cflags --libs dpadmm`: a model round trip and
// a run on the serial engine, so both installed libraries (and Eigen's headers) are used.
#include <cstdio>

#include <dpadmm/persistence/model.h>
#include <dpadmm/run/run.h>

int main() {
  dpadmm::RunSpec spec;
  spec.data.rows = 400;
  spec.graph.topology = dpadmm::Topology::kRing;
  spec.graph.nodes = 3;
  spec.iterations = 10;
  spec.engine = dpadmm::runtime::EngineKind::kSerial;
  spec.compute_optimum = false;
  const dpadmm::RunSummary s = dpadmm::RunExperiment(spec);
  const dpadmm::Model m = dpadmm::Model::FromJson(dpadmm::Model::FromRun(s, spec).ToJson(), "text");
  std::printf("pkg-config consumer: %s, %lld features\n", dpadmm::ToString(s.outcome),
              static_cast<long long>(m.features()));
  return s.outcome == dpadmm::RunOutcome::kCompleted && m.features() == 20 ? 0 : 1;
}
