// SPDX-License-Identifier: Apache-2.0
#include "dpadmm/run/spec_json.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "dpadmm/core/error.h"

namespace dpadmm {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// The message of the InputError that `f` throws ("" if none).
template <class F>
std::string ErrorOf(F&& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

// A spec with every field away from its default, including values that need all 17 digits.
RunSpec UnusualSpec() {
  RunSpec s;
  s.data.source = dpadmm::DataSource::kCsv;
  s.data.train_path = "train \"quoted\".csv";
  s.data.test_path = "dir/test.csv";
  s.data.train_labels_path = "a";
  s.data.test_labels_path = "b";
  s.data.num_features = 123;
  s.data.label_column = 4;
  s.data.delimiter = '\t';
  s.data.has_header = true;
  s.data.rows = 9'000'000'000LL;
  s.data.dims = 7;
  s.data.test_fraction = 0.1 + 0.2;  // 0.30000000000000004
  s.data.normalize = false;
  s.graph.topology = dpadmm::Topology::kGrid;
  s.graph.nodes = 12;
  s.graph.edges = 17;
  s.graph.grid_rows = 3;
  s.graph.file = "edges.txt";
  s.partition.kind = dpadmm::PartitionKind::kProportional;
  s.partition.proportions = {1.0 / 3.0, 2.0, 1e-300};
  s.partition.dirichlet_alpha = 0.25;
  s.partition.file = "p.txt";
  s.loss.kind = LossKind::kSmoothHinge;
  s.loss.huber_h = 0.125;
  s.algorithm.Select(dpadmm::Algorithm::kPrivateMradmm);
  s.algorithm.C = 3.141592653589793;
  s.algorithm.rho = 1e-7;
  s.algorithm.rho_per_node = true;
  s.algorithm.eta = 2.5;
  s.algorithm.random_start = true;
  s.algorithm.weighting = dpadmm::Weighting::kRow;
  auto& p = s.algorithm.As<PrivateMradmmParams>();
  p.q1 = 1.04;
  p.alpha = 0.7;
  p.q2 = 1.1;
  p.gamma = 0.0;
  p.node_alpha = {0.1, 0.2};
  s.algorithm.node_eta = {1.0};
  p.node_q1 = {1.5, 1.25, 1.125};
  p.node_q2 = {2.0};
  s.data.sparse_informative = 11;
  s.data.sparse_nnz_per_row = 12;
  s.data.sparse_flip_probability = 0.125;
  s.data.add_bias = true;
  s.algorithm.privacy_budget = 12.5;
  s.newton.max_iterations = 17;
  s.newton.gradient_tolerance = 1e-13;
  s.newton.armijo_c = 1e-3;
  s.newton.backtrack = 0.3;
  s.newton.max_backtracks = 9;
  s.newton.dense_hessian_max_dim = 99;
  s.newton.max_cg_iterations = 77;
  s.iterations = 250;
  s.seed = std::numeric_limits<std::uint64_t>::max();
  s.engine = dpadmm::runtime::EngineKind::kSerial;
  s.threads = 3;
  s.compute_optimum = false;
  s.tolerance = 1e-9;
  s.metrics_every = 5;
  return s;
}

void ExpectSameSpec(const RunSpec& a, const RunSpec& b) {
  // Comparing the JSON texts covers every field; spot-check the typed values as well.
  EXPECT_EQ(SpecToJson(a), SpecToJson(b));
  EXPECT_EQ(a.data.delimiter, b.data.delimiter);
  EXPECT_EQ(a.data.test_fraction, b.data.test_fraction);  // bitwise, not approximately
  EXPECT_EQ(a.partition.proportions, b.partition.proportions);
  EXPECT_EQ(a.algorithm.C, b.algorithm.C);
  EXPECT_EQ(a.algorithm.weighting, b.algorithm.weighting);
  EXPECT_EQ(a.loss.kind, b.loss.kind);
  EXPECT_EQ(a.seed, b.seed);
  EXPECT_EQ(a.data.rows, b.data.rows);
}

TEST(SpecJson, RoundTripOfDefaults) {
  RunSpec back;
  back.iterations = 5;  // overwritten by the round trip
  ApplySpecJson(SpecToJson(RunSpec{}), "x.json", back);
  ExpectSameSpec(back, RunSpec{});
}

TEST(SpecJson, RoundTripOfEveryFieldChanged) {
  const RunSpec s = UnusualSpec();
  RunSpec back;  // defaults: every field must be overwritten
  ApplySpecJson(SpecToJson(s), "x.json", back);
  ExpectSameSpec(back, s);
  EXPECT_NE(SpecToJson(back), SpecToJson(RunSpec{}));
}

TEST(SpecJson, AbsentFieldsKeepTheirValue) {
  RunSpec s;
  s.graph.nodes = 30;
  s.algorithm.eta = 4.0;
  ApplySpecJson(R"({"algorithm": {"eta": 0.75}, "iterations": 7, "seed": 42})", "run.json", s);
  EXPECT_EQ(s.graph.nodes, 30);
  EXPECT_EQ(s.algorithm.eta, 0.75);
  EXPECT_EQ(s.algorithm.name(), Algorithm::kAdmm);
  EXPECT_EQ(s.iterations, 7);
  EXPECT_EQ(s.seed, 42u);
}

TEST(SpecJson, EmptyObjectChangesNothing) {
  RunSpec s = UnusualSpec();
  ApplySpecJson("{}", "run.json", s);
  ExpectSameSpec(s, UnusualSpec());
}

TEST(SpecJson, CommentsAreAllowed) {
  RunSpec s;
  ApplySpecJson("{\n  // a comment\n  \"iterations\": 3 /* and another */\n}", "run.json", s);
  EXPECT_EQ(s.iterations, 3);
}

TEST(SpecJson, UnknownKeyNamesPathAndSource) {
  RunSpec s;
  EXPECT_NE(ErrorOf([&] {
              ApplySpecJson(R"({"algorithm": {"etta": 1}})", "run.json", s);
            }).find("run.json: unknown field 'algorithm.etta'"),
            std::string::npos);
  EXPECT_NE(ErrorOf([&] {
              ApplySpecJson(R"({"iteration": 1})", "run.json", s);
            }).find("unknown field 'iteration'"),
            std::string::npos);
  EXPECT_NE(ErrorOf([&] {
              ApplySpecJson(R"({"solver": {}})", "run.json", s);
            }).find("unknown field 'solver'"),
            std::string::npos);
}

TEST(SpecJson, WrongTypesAreNamed) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"({"algorithm": {"eta": "big"}})", "run.json: algorithm.eta must be a number, got string"},
      {R"({"iterations": 2.5})", "iterations must be an integer, got 2.5"},
      {R"({"iterations": 1e12})", "iterations must be an integer"},
      {R"({"graph": {"nodes": 3000000000}})", "graph.nodes must be an integer in the range of int"},
      {R"({"seed": -1})", "seed must be a non-negative integer (uint64), got -1"},
      {R"({"seed": 1.5})", "seed must be a non-negative integer (uint64), got 1.5"},
      {R"({"seed": "7"})", "seed must be a non-negative integer (uint64), got string"},
      {R"({"data": {"normalize": 1}})", "data.normalize must be true or false, got 1"},
      {R"({"data": {"source": 3}})",
       "data.source must be one of twonorm, ringnorm, sparse, libsvm, adult, csv, asc, got 3"},
      {R"({"data": {"source": "mnist"}})",
       "data.source must be one of twonorm, ringnorm, sparse, libsvm, adult, csv, asc; got "
       "'mnist'"},
      {R"({"graph": {"topology": "torus"}})", "graph.topology must be one of ring, star"},
      {R"({"graph": {"edges": "many"}})", "graph.edges must be an integer or \"auto\", got string"},
      {R"({"algorithm": {"name": "svm"}})", "algorithm.name must be one of admm, dvp"},
      {R"({"engine": "gpu"})", "engine must be one of tbb, serial, mpi; got 'gpu'"},
      {R"({"schema": 3})", "schema must be 2"},
      {R"({"data": {"delimiter": ";;"}})", "data.delimiter must be a one-character string"},
      {R"({"data": "twonorm"})", "data must be an object, got string"},
      {R"({"partition": {"proportions": [1, "a"]}})",
       "partition.proportions[1] must be a number, got string"},
      {R"({"partition": {"proportions": 1}})", "partition.proportions must be an array"},
      {R"({"loss": {"kind": "hinge"}})",
       "loss.kind must be one of logistic, smooth_hinge; got 'hinge'"},
      {R"({"algorithm": {"eta": null}})", "algorithm.eta must be a number, got null"},
      {R"([1, 2])", "the spec must be a JSON object, got array"},
  };
  for (const auto& [text, expected] : cases) {
    RunSpec s;
    const std::string message = ErrorOf([&s, &t = text] { ApplySpecJson(t, "run.json", s); });
    EXPECT_NE(message.find(expected), std::string::npos)
        << text << "\n  got: " << message << "\n  expected to contain: " << expected;
    EXPECT_EQ(message.rfind("run.json: ", 0), 0u) << message;
  }
}

// The selected algorithm's parameters are the object algorithm.<name>; the family's defaults
// and fields apply.
TEST(SpecJson, AlgorithmParametersAndSharingRoundTrip) {
  RunSpec s;
  ApplySpecJson(R"({"algorithm": {"name": "dvp", "dvp": {"alpha": 0.5, "node_q2": [1, 2]}}})",
                "run.json", s);
  ASSERT_EQ(s.algorithm.name(), Algorithm::kDvp);
  EXPECT_EQ(s.algorithm.As<DvpParams>().alpha, 0.5);
  EXPECT_EQ(s.algorithm.As<DvpParams>().node_q2, (std::vector<double>{1, 2}));

  RunSpec v = RunSpec::Defaults(Algorithm::kSharing);
  auto& p = v.algorithm.As<SharingParams>();
  p.parties = 3;
  p.party_features = {100, 60, 40};
  p.dp = true;
  p.epsilon = 0.25;
  p.noise_sigma = 1.0 / 3.0;
  v.iterations = 7;
  const std::string json = SpecToJson(v);
  EXPECT_NE(json.find("\"schema\": 2"), std::string::npos) << json;
  EXPECT_EQ(json.find("\"graph\""), std::string::npos) << "consensus-only groups are not written";
  RunSpec back;  // the consensus defaults: the JSON carries everything the sharing run needs
  back = RunSpec::Defaults(Algorithm::kSharing);
  back.algorithm.Select(Algorithm::kSgd);
  ApplySpecJson(json, "v.json", back);
  EXPECT_EQ(SpecToJson(back), json);
  EXPECT_EQ(back.algorithm.As<SharingParams>().party_features, p.party_features);
  EXPECT_EQ(PeekAlgorithm(json, "v.json"), Algorithm::kSharing);
}

TEST(SpecJson, EdgesAutoRoundTrips) {
  RunSpec s;
  EXPECT_NE(SpecToJson(s).find("\"edges\": \"auto\""), std::string::npos);
  ApplySpecJson(R"({"graph": {"edges": 9}})", "r", s);
  EXPECT_EQ(s.graph.edges, 9);
  ApplySpecJson(R"({"graph": {"edges": "auto"}})", "r", s);
  EXPECT_EQ(s.graph.EffectiveEdges(), 13);
}

// Configs of the previous (schema 1) consensus and sharing formats fail naming the field and
// what replaced it.
TEST(SpecJson, OldShapeConfigIsRejectedWithTheReplacement) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"({"algorithm": {"name": "dvp", "alpha": 0.5}})",
       "old.json: 'algorithm.alpha' is a schema-1 field; schema 2 replaced it by "
       "'algorithm.<name>.alpha"},
      {R"({"algorithm": {"name": "pdml", "pdml_R": 0.1}})", "replaced it by 'algorithm.pdml.R'"},
      {R"({"epochs": 10, "parties": 2})",
       "'epochs' is a schema-1 field; schema 2 replaced it by 'iterations'"},
      {R"({"dp": true})", "replaced it by 'algorithm.sharing.dp'"},
      {R"({"sgd_init_sd": 0.1})", "replaced it by 'algorithm.sgd.init_sd'"},
      {R"({"algorithm": "admm", "parties": 2})", "algorithm: a string is the schema-1 shape"},
      {R"({"algorithm": {"name": "dvp", "madmm": {"q1": 2}}})",
       "algorithm.madmm holds the parameters of 'madmm' but algorithm.name is 'dvp'"},
  };
  for (const auto& [text, expected] : cases) {
    RunSpec s;
    const std::string message = ErrorOf([&s, &t = text] { ApplySpecJson(t, "old.json", s); });
    EXPECT_NE(message.find(expected), std::string::npos)
        << text << "\n  got: " << message << "\n  expected to contain: " << expected;
  }
}

TEST(SpecJson, ErrorLeavesSpecUnchanged) {
  RunSpec s;
  EXPECT_THROW(ApplySpecJson(R"({"iterations": 9, "algorithm": {"eta": "x"}})", "r", s),
               InputError);
  EXPECT_EQ(s.iterations, RunSpec{}.iterations);
}

TEST(SpecJson, SyntaxErrorNamesLineAndColumn) {
  RunSpec s;
  const std::string message =
      ErrorOf([&] { ApplySpecJson("{\n  \"iterations\": 3,\n  \"seed\" 4\n}", "run.json", s); });
  EXPECT_EQ(message.rfind("run.json:3: JSON syntax error at column 10", 0), 0u) << message;
  EXPECT_EQ(message.find("json.exception"), std::string::npos) << message;

  const std::string empty = ErrorOf([&] { ApplySpecJson("", "empty.json", s); });
  EXPECT_EQ(empty.rfind("empty.json:1: JSON syntax error", 0), 0u) << empty;
  EXPECT_NE(ErrorOf([&] { ApplySpecJson(R"({"a": 1,})", "t.json", s); }).find("t.json:1:"),
            std::string::npos);
}

TEST(SpecJson, MetricsJsonWritesNaNAsNull) {
  RoundMetrics m;
  m.round = 3;
  m.train_loss = 0.1 + 0.2;
  m.test_error = kNaN;
  m.distance_to_optimum = std::numeric_limits<double>::infinity();
  m.node_privacy = {0.5, kNaN};
  const std::string line = MetricsToJsonLine(m);
  EXPECT_EQ(line.find('\n'), std::string::npos);
  EXPECT_NE(line.find("\"round\":3"), std::string::npos) << line;
  EXPECT_NE(line.find("\"train_loss\":0.30000000000000004"), std::string::npos) << line;
  EXPECT_NE(line.find("\"test_error\":null"), std::string::npos) << line;
  EXPECT_NE(line.find("\"distance_to_optimum\":null"), std::string::npos) << line;
  EXPECT_NE(line.find("\"node_privacy\":[0.5,null]"), std::string::npos) << line;
  EXPECT_EQ(line.find("nan"), std::string::npos) << line;
}

std::size_t Columns(const std::string& csv_line) {
  return static_cast<std::size_t>(std::count(csv_line.begin(), csv_line.end(), ',')) + 1;
}

TEST(SpecJson, CsvRowMatchesHeader) {
  const std::string header = MetricsCsvHeader();
  EXPECT_EQ(header.rfind("round,seconds,train_loss,objective,test_error", 0), 0u) << header;
  RoundMetrics m;
  EXPECT_EQ(Columns(MetricsToCsvRow(m)), Columns(header));
  m.round = 12;
  m.objective = 1.0 / 3.0;
  m.test_error = kNaN;
  m.distance_to_optimum = -kNaN;
  m.node_privacy = {1, 2, 3};
  m.node_noise = {0.25, kNaN, 0};
  const std::string row = MetricsToCsvRow(m);
  EXPECT_EQ(Columns(row), Columns(header)) << row;
  EXPECT_EQ(row.find('\n'), std::string::npos);
  EXPECT_EQ(row.rfind("12,", 0), 0u) << row;
  EXPECT_NE(row.find(",0.3333333333333333,nan,"), std::string::npos) << row;
  EXPECT_NE(row.find(",1;2;3,0.25;nan;0"), std::string::npos) << row;
  EXPECT_EQ(row.find("-nan"), std::string::npos) << row;
}

TEST(SpecJson, SummaryHasOutcomeInfoAndModel) {
  RunSummary s;
  s.outcome = RunOutcome::kDiverged;
  s.message = "node 3 diverged in round 7";
  s.rounds = 7;
  s.info.normalization_factor = 0.125;
  s.info.max_row_norm_before = 8.0;
  s.info.rows_per_node = {5, 6};
  s.info.optimum_objective = kNaN;
  s.model = Eigen::VectorXd::Constant(2, 0.5);
  const std::string json = SummaryToJson(s);
  EXPECT_NE(json.find("\"outcome\": \"diverged\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"message\": \"node 3 diverged in round 7\""), std::string::npos);
  EXPECT_NE(json.find("\"normalization_factor\": 0.125"), std::string::npos);
  EXPECT_NE(json.find("\"max_row_norm_before\": 8.0"), std::string::npos);
  EXPECT_NE(json.find("\"optimum_objective\": null"), std::string::npos);
  EXPECT_NE(json.find("\"rows_per_node\""), std::string::npos);
  EXPECT_NE(json.find("\"model\""), std::string::npos);
  EXPECT_NE(json.find("\"final\""), std::string::npos);
  EXPECT_NE(RunInfoToJson(s.info).find("\"privacy_guarantee\""), std::string::npos);
}

}  // namespace
}  // namespace dpadmm
