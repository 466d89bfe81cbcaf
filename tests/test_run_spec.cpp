// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>

#include "dpadmm/core/error.h"
#include "dpadmm/run/choices.h"
#include "dpadmm/run/run_spec.h"

using dpadmm::Algorithm;
using dpadmm::RunSpec;

TEST(RunSpec, DefaultsValidate) {
  EXPECT_NO_THROW(RunSpec().Validate());
  for (const auto& c : dpadmm::Choices<Algorithm>()) {
    RunSpec s = RunSpec::Defaults(c.value);
    // The algorithms defined by their noise need it set.
    if (c.value == Algorithm::kDvp) s.algorithm.As<dpadmm::DvpParams>().alpha = 1;
    if (c.value == Algorithm::kPvp) s.algorithm.As<dpadmm::PvpParams>().alpha = 1;
    if (c.value == Algorithm::kPrivateMradmm)
      s.algorithm.As<dpadmm::PrivateMradmmParams>().alpha = 1;
    EXPECT_NO_THROW(s.Validate()) << c.name;
    EXPECT_EQ(s.algorithm.name(), c.value);
  }
}

TEST(RunSpec, DefaultsAreTheMainJob) {
  const RunSpec s;
  EXPECT_EQ(s.data.source, dpadmm::DataSource::kTwonorm);
  EXPECT_EQ(s.graph.topology, dpadmm::Topology::kRandom);
  EXPECT_EQ(s.graph.nodes, 10);
  EXPECT_EQ(s.graph.EffectiveEdges(), 13);
  EXPECT_EQ(s.algorithm.name(), Algorithm::kAdmm);
  EXPECT_EQ(s.family(), dpadmm::Family::kConsensus);
  EXPECT_EQ(s.loss.kind, dpadmm::LossKind::kLogistic);
}

TEST(RunSpec, SharingDefaultsAreTheVerticalJob) {
  const RunSpec s = RunSpec::Defaults(Algorithm::kSharing);
  EXPECT_EQ(s.family(), dpadmm::Family::kSharing);
  EXPECT_EQ(s.data.source, dpadmm::DataSource::kSparse);
  EXPECT_EQ(s.data.rows, 2000);
  EXPECT_EQ(s.data.dims, 200);
  EXPECT_EQ(s.data.sparse_informative, 200);
  EXPECT_EQ(s.iterations, 20);
  EXPECT_EQ(s.algorithm.As<dpadmm::SharingParams>().parties, 2);
}

// The edge count of the random graph follows the node count unless set.
TEST(RunSpec, AutoEdgesFollowTheNodeCount) {
  EXPECT_EQ(dpadmm::GraphSpec::AutoEdges(10), 13);  // the main job's bits depend on it
  for (int n = 2; n <= 60; ++n) {
    const int m = dpadmm::GraphSpec::AutoEdges(n);
    EXPECT_GE(m, n - 1) << n;
    EXPECT_LE(m, n * (n - 1) / 2) << n;
  }
  RunSpec s;
  s.graph.nodes = 5;  // was an error with a fixed default of 13 edges
  EXPECT_NO_THROW(s.Validate());
  EXPECT_EQ(s.graph.EffectiveEdges(), 7);
}

// Each case breaks one field; the message must name that field.
TEST(RunSpec, EachBadFieldIsNamed) {
  using dpadmm::DataSource;
  using dpadmm::PartitionKind;
  using dpadmm::Topology;
  const std::vector<std::pair<std::string, std::function<void(RunSpec&)>>> cases = {
      {"data.rows", [](RunSpec& s) { s.data.rows = 3; }},
      {"data.dims", [](RunSpec& s) { s.data.dims = 0; }},
      {"data.train_path", [](RunSpec& s) { s.data.source = DataSource::kLibsvm; }},
      {"data.test_path",
       [](RunSpec& s) {
         s.data.source = DataSource::kAdult;
         s.data.train_path = "a";
       }},
      {"data.train_labels_path",
       [](RunSpec& s) {
         s.data.source = DataSource::kAsc;
         s.data.train_path = "a";
       }},
      {"data.test_fraction", [](RunSpec& s) { s.data.test_fraction = 1.0; }},
      {"data.num_features", [](RunSpec& s) { s.data.num_features = -1; }},
      {"data.sparse_informative", [](RunSpec& s) { s.data.sparse_informative = 0; }},
      {"data.sparse_flip_probability", [](RunSpec& s) { s.data.sparse_flip_probability = 0.7; }},
      {"graph.nodes", [](RunSpec& s) { s.graph.nodes = 1; }},
      {"graph.edges", [](RunSpec& s) { s.graph.edges = 8; }},
      {"graph.edges", [](RunSpec& s) { s.graph.edges = 46; }},
      {"graph.file", [](RunSpec& s) { s.graph.topology = Topology::kFile; }},
      {"graph.grid_rows",
       [](RunSpec& s) {
         s.graph.topology = Topology::kGrid;
         s.graph.grid_rows = 3;
       }},
      {"partition.proportions",
       [](RunSpec& s) { s.partition.kind = PartitionKind::kProportional; }},
      {"partition.proportions[1]",
       [](RunSpec& s) {
         s.partition.kind = PartitionKind::kProportional;
         s.partition.proportions = {1, -1, 1, 1, 1, 1, 1, 1, 1, 1};
       }},
      {"partition.dirichlet_alpha",
       [](RunSpec& s) {
         s.partition.kind = PartitionKind::kDirichlet;
         s.partition.dirichlet_alpha = 0;
       }},
      {"partition.file", [](RunSpec& s) { s.partition.kind = PartitionKind::kFile; }},
      {"loss.huber_h",
       [](RunSpec& s) {
         s.loss.kind = dpadmm::LossKind::kSmoothHinge;
         s.loss.huber_h = 0;
       }},
      {"algorithm.C", [](RunSpec& s) { s.algorithm.C = 0; }},
      {"algorithm.rho", [](RunSpec& s) { s.algorithm.rho = -1; }},
      {"algorithm.eta", [](RunSpec& s) { s.algorithm.eta = std::nan(""); }},
      {"algorithm.node_eta",
       [](RunSpec& s) {
         s.algorithm.node_eta = {1, 2};
       }},
      {"algorithm.privacy_budget", [](RunSpec& s) { s.algorithm.privacy_budget = -1; }},
      {"newton.max_iterations", [](RunSpec& s) { s.newton.max_iterations = 0; }},
      {"iterations", [](RunSpec& s) { s.iterations = -1; }},
      {"threads", [](RunSpec& s) { s.threads = -2; }},
      {"tolerance", [](RunSpec& s) { s.tolerance = -1; }},
      {"eval_every", [](RunSpec& s) { s.metrics_every = -1; }},
  };
  for (const auto& [field, breakit] : cases) {
    RunSpec s;
    breakit(s);
    try {
      s.Validate();
      ADD_FAILURE() << "no error for " << field;
    } catch (const dpadmm::InputError& e) {
      EXPECT_NE(std::string(e.what()).find(field), std::string::npos)
          << "message '" << e.what() << "' does not name " << field;
    }
  }
}

// One failing case per algorithm parameter struct: the message names algorithm.<name>.<field>.
TEST(RunSpec, EachParamStructNamesItsBadField) {
  struct Case {
    Algorithm algorithm;
    std::string message;
    std::function<void(RunSpec&)> breakit;
  };
  const std::vector<Case> cases = {
      {Algorithm::kDvp, "algorithm.dvp.alpha must be >= 0 and finite (0 = no noise), got -1",
       [](RunSpec& s) { s.algorithm.As<dpadmm::DvpParams>().alpha = -1; }},
      {Algorithm::kDvp, "algorithm.dvp.alpha must be > 0 for algorithm 'dvp'",
       [](RunSpec& s) { s.algorithm.As<dpadmm::DvpParams>().alpha = 0; }},
      {Algorithm::kPvp, "algorithm.pvp.q2",
       [](RunSpec& s) {
         auto& p = s.algorithm.As<dpadmm::PvpParams>();
         p.alpha = 1;
         p.q2 = 0;
       }},
      {Algorithm::kMadmm, "algorithm.madmm.q1 must be >= 1",
       [](RunSpec& s) { s.algorithm.As<dpadmm::MadmmParams>().q1 = 0.5; }},
      {Algorithm::kMadmm, "algorithm.madmm.node_q1",
       [](RunSpec& s) { s.algorithm.As<dpadmm::MadmmParams>().node_q1 = {1.0}; }},
      {Algorithm::kRadmm, "algorithm.radmm.gamma",
       [](RunSpec& s) { s.algorithm.As<dpadmm::RadmmParams>().gamma = -1; }},
      {Algorithm::kMradmm, "algorithm.mradmm.q1",
       [](RunSpec& s) { s.algorithm.As<dpadmm::MradmmParams>().q1 = 0.9; }},
      {Algorithm::kPrivateMradmm, "algorithm.private_mradmm.alpha must be > 0",
       [](RunSpec& s) { s.algorithm.As<dpadmm::PrivateMradmmParams>().alpha = 0; }},
      {Algorithm::kPdml, "algorithm.pdml.decay",
       [](RunSpec& s) { s.algorithm.As<dpadmm::PdmlParams>().decay = 0; }},
      {Algorithm::kPdml, "algorithm.pdml.label_eps",
       [](RunSpec& s) { s.algorithm.As<dpadmm::PdmlParams>().label_eps = -1; }},
      {Algorithm::kSharing, "algorithm.sharing.rho must be > 0",
       [](RunSpec& s) { s.algorithm.As<dpadmm::SharingParams>().rho = 0; }},
      {Algorithm::kSharing, "algorithm.sharing.epsilon must be in (0, 1]",
       [](RunSpec& s) { s.algorithm.As<dpadmm::SharingParams>().epsilon = 3; }},
      {Algorithm::kSharing, "algorithm.sharing.party_features",
       [](RunSpec& s) { s.algorithm.As<dpadmm::SharingParams>().party_features = {1}; }},
      {Algorithm::kSgd, "algorithm.sgd.batch_size must be >= 1",
       [](RunSpec& s) { s.algorithm.As<dpadmm::SgdParams>().batch_size = 0; }},
      // The consensus fields are not silently ignored by the sharing family.
      {Algorithm::kSharing, "algorithm.C is not used by algorithm 'sharing'",
       [](RunSpec& s) { s.algorithm.C = 5; }},
  };
  for (const Case& c : cases) {
    RunSpec s = RunSpec::Defaults(c.algorithm);
    c.breakit(s);
    try {
      s.Validate();
      ADD_FAILURE() << "no error for " << c.message;
    } catch (const dpadmm::InputError& e) {
      EXPECT_NE(std::string(e.what()).find(c.message), std::string::npos)
          << "message '" << e.what() << "' does not contain '" << c.message << "'";
    }
  }
}

// Every choice is parsed by its table; an unknown name is an error naming the field and listing
// the table.
TEST(RunSpec, ChoicesComeFromOneTable) {
  EXPECT_EQ(dpadmm::ParseChoice<Algorithm>("private_mradmm", "algorithm.name"),
            Algorithm::kPrivateMradmm);
  EXPECT_STREQ(dpadmm::ChoiceName(dpadmm::RunOutcome::kBudgetExhausted), "budget exhausted");
  EXPECT_STREQ(dpadmm::ToString(dpadmm::RunOutcome::kFailed), "failed");
  EXPECT_EQ(dpadmm::ChoiceList<dpadmm::Topology>(),
            "ring | star | complete | grid | random | file");
  const auto names = [](auto parse, const char* field, const char* listed) {
    try {
      parse();
      ADD_FAILURE() << "no error for " << field;
    } catch (const dpadmm::InputError& e) {
      const std::string m = e.what();
      EXPECT_NE(m.find(field), std::string::npos) << m;
      EXPECT_NE(m.find(listed), std::string::npos) << m;
    }
  };
  names([] { dpadmm::ParseChoice<dpadmm::DataSource>("mnist", "data.source"); }, "data.source",
        "got 'mnist'");
  names([] { dpadmm::ParseChoice<dpadmm::Topology>("torus", "graph.topology"); }, "graph.topology",
        "ring, star");
  names([] { dpadmm::ParseChoice<dpadmm::PartitionKind>("random", "partition.kind"); },
        "partition.kind", "dirichlet");
  names([] { dpadmm::ParseChoice<Algorithm>("svm", "algorithm.name"); }, "algorithm.name",
        "sharing, sgd");
  names([] { dpadmm::ParseChoice<dpadmm::runtime::EngineKind>("gpu", "engine"); }, "engine",
        "tbb, serial");
  names([] { dpadmm::ParseChoice<dpadmm::LossKind>("hinge", "loss.kind"); }, "loss.kind",
        "smooth_hinge");
}
