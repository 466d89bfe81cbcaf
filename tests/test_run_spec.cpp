#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "dpadmm/core/error.h"
#include "dpadmm/experiment/run_spec.h"

using dpadmm::RunSpec;

TEST(RunSpec, DefaultsValidate) { EXPECT_NO_THROW(RunSpec().Validate()); }

TEST(RunSpec, DefaultsAreTheMainJob) {
  const RunSpec s;
  EXPECT_EQ(s.data.source, "twonorm");
  EXPECT_EQ(s.graph.topology, "random");
  EXPECT_EQ(s.graph.nodes, 10);
  EXPECT_EQ(s.graph.edges, 13);
  EXPECT_EQ(s.algorithm.name, "admm");
  EXPECT_EQ(s.loss.kind, dpadmm::LossKind::kLogistic);
}

// Each case breaks one field; the message must name that field.
TEST(RunSpec, EachBadFieldIsNamed) {
  const std::vector<std::pair<std::string, std::function<void(RunSpec&)>>> cases = {
      {"data.source", [](RunSpec& s) { s.data.source = "mnist"; }},
      {"data.rows", [](RunSpec& s) { s.data.rows = 3; }},
      {"data.dims", [](RunSpec& s) { s.data.dims = 0; }},
      {"data.train_path", [](RunSpec& s) { s.data.source = "libsvm"; }},
      {"data.test_path", [](RunSpec& s) { s.data.source = "adult"; s.data.train_path = "a"; }},
      {"data.train_labels_path", [](RunSpec& s) { s.data.source = "asc"; s.data.train_path = "a"; }},
      {"data.test_fraction", [](RunSpec& s) { s.data.test_fraction = 1.0; }},
      {"data.num_features", [](RunSpec& s) { s.data.num_features = -1; }},
      {"graph.topology", [](RunSpec& s) { s.graph.topology = "torus"; }},
      {"graph.nodes", [](RunSpec& s) { s.graph.nodes = 1; }},
      {"graph.edges", [](RunSpec& s) { s.graph.edges = 8; }},
      {"graph.edges", [](RunSpec& s) { s.graph.edges = 46; }},
      {"graph.file", [](RunSpec& s) { s.graph.topology = "file"; }},
      {"graph.grid_rows", [](RunSpec& s) { s.graph.topology = "grid"; s.graph.grid_rows = 3; }},
      {"partition.kind", [](RunSpec& s) { s.partition.kind = "random"; }},
      {"partition.proportions", [](RunSpec& s) { s.partition.kind = "proportional"; }},
      {"partition.proportions[1]", [](RunSpec& s) {
         s.partition.kind = "proportional";
         s.partition.proportions = {1, -1, 1, 1, 1, 1, 1, 1, 1, 1};
       }},
      {"partition.dirichlet_alpha", [](RunSpec& s) { s.partition.kind = "dirichlet"; s.partition.dirichlet_alpha = 0; }},
      {"partition.file", [](RunSpec& s) { s.partition.kind = "file"; }},
      {"loss.huber_h", [](RunSpec& s) { s.loss.kind = dpadmm::LossKind::kSmoothHinge; s.loss.huber_h = 0; }},
      {"algorithm.name", [](RunSpec& s) { s.algorithm.name = "sgd"; }},
      {"algorithm.C", [](RunSpec& s) { s.algorithm.C = 0; }},
      {"algorithm.rho", [](RunSpec& s) { s.algorithm.rho = -1; }},
      {"algorithm.eta", [](RunSpec& s) { s.algorithm.eta = std::nan(""); }},
      {"newton.max_iterations", [](RunSpec& s) { s.newton.max_iterations = 0; }},
      {"iterations", [](RunSpec& s) { s.iterations = -1; }},
      {"engine", [](RunSpec& s) { s.engine = "gpu"; }},
      {"threads", [](RunSpec& s) { s.threads = -2; }},
      {"tolerance", [](RunSpec& s) { s.tolerance = -1; }},
      {"metrics_every", [](RunSpec& s) { s.metrics_every = -1; }},
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
