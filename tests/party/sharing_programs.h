// SPDX-License-Identifier: Apache-2.0
// The sharing family's node programs (ADMM sharing and its DP version, 001) built as the sharing
// driver builds them (algorithms/run/sharing_driver.cpp: Prepare and RunAdmm), for the network
// engine's tests: a seeded Experiment on tiny generated data supplies the prepared rows, the
// party layout and the calibrated noise (simulation mode, noise_seed), and each process builds
// only the nodes it hosts: node 0 the coordinator (the labels), node m party m (its column block,
// labels removed). Every process generates the whole data set (a test, not a deployment).
#pragma once

#include <algorithm>
#include <memory>
#include <utility>
#include <vector>

#include "dpadmm/run/run.h"
#include "dpadmm/runtime/engine.h"
#include "sharing/programs.h"

namespace dpadmm::partytest {

class SharingCase {
 public:
  // `nodes` = parties + 1; `dp`: the DP version (mechanism "gaussian", calibrated sigma);
  // `iterations` ADMM iterations = 2 * iterations engine rounds.
  SharingCase(int nodes, bool dp, int iterations) : experiment_(Spec(nodes, dp, iterations)) {}
  // The case of a given sharing spec (its data, parties, iterations and noise seed; a benchmark's
  // real data set, bench/bench_network.cpp).
  explicit SharingCase(RunSpec spec) : experiment_(std::move(spec)) {}

  int nodes() const { return params().parties + 1; }
  std::int64_t last_round() const {
    return 2 * static_cast<std::int64_t>(experiment_.spec().iterations);
  }
  // The report width every node uses (RunAdmm's).
  std::size_t width() const {
    const auto& f = experiment_.info().party_features;
    return std::max<std::size_t>(sharing::kCoordinatorFields,
                                 static_cast<std::size_t>(*std::max_element(f.begin(), f.end())));
  }
  // The longest message of any node: the coordinator's [s - z; y] (2N doubles; a party sends N).
  // A process hosting only parties must accept it: NetworkOptions::max_message_doubles (its
  // default, the longest message of the process's own nodes, would refuse the coordinator).
  std::size_t max_message_doubles() const {
    return 2 * static_cast<std::size_t>(experiment_.info().train_rows);
  }
  // The star of the sharing driver: node 0 linked to parties 1..M in order.
  runtime::Topology Topology() const {
    runtime::Topology t;
    t.neighbors.assign(static_cast<std::size_t>(nodes()), {});
    for (int p = 1; p < nodes(); ++p) {
      t.neighbors[0].push_back(p);
      t.neighbors[static_cast<std::size_t>(p)].push_back(0);
    }
    return t;
  }

  // The programs of `hosted` (increasing node ids); the case must outlive them.
  std::vector<std::unique_ptr<runtime::NodeProgram>> Programs(const std::vector<int>& hosted) {
    const SharingParams& sp = params();
    const RunInfo& info = experiment_.info();
    const Dataset& train = experiment_.train();
    std::vector<std::unique_ptr<runtime::NodeProgram>> out;
    for (int node : hosted) {
      if (node == 0) {
        sharing::CoordinatorParams cp;
        cp.parties = sp.parties;
        cp.rho = sp.rho;
        cp.z_tolerance = sp.z_tolerance;
        cp.z_max_iterations = sp.z_max_iterations;
        cp.report_width = width();
        out.push_back(std::make_unique<sharing::SharingCoordinator>(train.y, cp));
        continue;
      }
      const std::size_t p = static_cast<std::size_t>(node - 1);
      auto block = std::make_unique<Dataset>(
          sharing::ColumnBlock(train, info.party_offsets[p], info.party_features[p]));
      block->y.resize(0);  // parties hold features only
      auto xupdate = std::make_unique<sharing::XUpdate>(sharing::Gram(*block), sp.lambda, sp.rho,
                                                        sp.dp ? sp.b1 : 0.0);
      sharing::PartyParams pp;
      pp.party = node;
      pp.lambda = sp.lambda;
      pp.rho = sp.rho;
      pp.sigma = sp.dp ? info.party_sigma[p] : 0.0;
      pp.epsilon = sp.dp ? info.party_epsilon[p] : 0.0;
      pp.mechanism = sharing::SharingMechanism::kGaussian;
      pp.noise_seed = experiment_.spec().noise_seed;
      pp.report_width = width();
      out.push_back(std::make_unique<sharing::SharingParty>(*block, *xupdate, nullptr, pp));
      blocks_.push_back(std::move(block));
      xupdates_.push_back(std::move(xupdate));
    }
    return out;
  }

 private:
  static RunSpec Spec(int nodes, bool dp, int iterations) {
    RunSpec s = RunSpec::Defaults(Algorithm::kSharing);
    s.data.source = DataSource::kSparse;
    s.data.rows = 160;
    s.data.dims = 4 * (nodes - 1);
    s.data.sparse_informative = s.data.dims;
    s.data.sparse_nnz_per_row = 3;
    SharingParams& sp = s.algorithm.As<SharingParams>();
    sp.parties = nodes - 1;
    sp.lambda = 1e-2;
    sp.rho = 0.01;
    sp.dp = dp;
    s.iterations = iterations;
    s.noise_seed = 11;  // simulation mode: reproducible noise, not private
    s.seed = 5;
    s.compute_optimum = false;
    return s;
  }
  const SharingParams& params() const { return experiment_.spec().algorithm.As<SharingParams>(); }

  Experiment experiment_;
  std::vector<std::unique_ptr<Dataset>> blocks_;
  std::vector<std::unique_ptr<sharing::XUpdate>> xupdates_;
};

}  // namespace dpadmm::partytest
