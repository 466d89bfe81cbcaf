// SPDX-License-Identifier: Apache-2.0
// The consensus-ADMM run on UCI Adult that bench_round and bench_network time: N = 5 nodes on a
// random graph of 7 edges, C = 1750, rho = 0.22, eta = 0.1, no centralized optimum, no metrics.
#pragma once

#include <string>

#include "dpadmm/run/run_spec.h"

namespace dpadmm::bench {

inline constexpr int kAdultRoundNodes = 5;

// `data_dir` holds adult/adult.data and adult/adult.test.
inline RunSpec AdultRoundSpec(const std::string& data_dir, int rounds) {
  RunSpec spec;
  spec.data.source = DataSource::kAdult;
  spec.data.train_path = data_dir + "/adult/adult.data";
  spec.data.test_path = data_dir + "/adult/adult.test";
  spec.graph.topology = Topology::kRandom;
  spec.graph.nodes = kAdultRoundNodes;
  spec.graph.edges = 7;
  spec.algorithm.C = 1750;
  spec.algorithm.rho = 0.22;
  spec.algorithm.eta = 0.1;
  spec.compute_optimum = false;
  spec.metrics_every = 0;
  spec.iterations = rounds;
  return spec;
}

}  // namespace dpadmm::bench
