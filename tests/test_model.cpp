// SPDX-License-Identifier: Apache-2.0
// dpadmm::Model: predictions on raw rows reproduce the run's test error bit for bit, the JSON
// format round-trips every double, and every malformed model file is refused with a message
// that names the file and the field.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/charconv_compat.h"
#include "dpadmm/core/error.h"
#include "dpadmm/data/generators.h"
#include "dpadmm/data/loaders.h"
#include "dpadmm/persistence/model.h"
#include "dpadmm/run/choices.h"
#include "dpadmm/run/run.h"
#include "dpadmm/run/spec_json.h"
#include "test_helpers.h"

namespace dpadmm {
namespace {

using test::ThrowsInputError;
using test::WriteTempFile;

std::string Num(double v) {
  std::string s;
  detail::AppendShortest(s, v);
  return s;
}

// Generated twonorm rows (raw, not normalised) as LIBSVM or CSV text.
std::string AsLibsvm(const Dataset& d) {
  const auto& x = std::get<DenseRows>(d.x);
  std::ostringstream out;
  for (Eigen::Index r = 0; r < x.rows(); ++r) {
    out << (d.y[r] > 0 ? "+1" : "-1");
    for (Eigen::Index c = 0; c < x.cols(); ++c) {
      if (x(r, c) != 0.0) out << ' ' << c + 1 << ':' << Num(x(r, c));
    }
    out << '\n';
  }
  return out.str();
}
std::string AsCsv(const Dataset& d) {
  const auto& x = std::get<DenseRows>(d.x);
  std::ostringstream out;
  for (Eigen::Index r = 0; r < x.rows(); ++r) {
    for (Eigen::Index c = 0; c < x.cols(); ++c) out << Num(x(r, c)) << ',';
    out << (d.y[r] > 0 ? "1" : "-1") << '\n';
  }
  return out.str();
}

struct TrainedRun {
  RunSpec spec;
  RunSummary summary;
  Dataset raw_test;            // the test file as a user would load it
  Eigen::VectorXd run_scores;  // the run's own scores on its (normalised) test rows
};

// How a run prepares its rows, beyond the defaults (global-max-norm, consensus ADMM).
struct Preparation {
  Scaling scaling = Scaling::kAuto;
  std::vector<double> feature_range;  // public-bounds: the same bounds for every feature
  std::string bounds_file;            // public-bounds: per-feature bounds (file text)
  bool sharing = false;               // the sharing family: each party's block clipped alone
};
Preparation Prep(Scaling scaling, std::vector<double> range = {}, std::string bounds_file = "",
                 bool sharing = false) {
  Preparation p;
  p.scaling = scaling;
  p.feature_range = std::move(range);
  p.bounds_file = std::move(bounds_file);
  p.sharing = sharing;
  return p;
}

// Trains on generated data written to files, so that the raw test rows are at hand.
TrainedRun Train(const std::string& format, bool add_bias, LossKind loss,
                 const Preparation& prep = {}) {
  const Dataset train = GenerateTwonorm(400, 11, 8);
  const Dataset test = GenerateTwonorm(300, 12, 8);
  TrainedRun t;
  if (prep.sharing) {
    t.spec = RunSpec::Defaults(Algorithm::kSharing);
    t.spec.algorithm.As<SharingParams>().parties = 3;
  }
  t.spec.data.scaling = prep.scaling;
  t.spec.data.feature_range = prep.feature_range;
  if (!prep.bounds_file.empty()) {
    t.spec.data.feature_bounds_path = WriteTempFile("bounds.txt", prep.bounds_file);
  }
  t.spec.data.source = ParseChoice<DataSource>(format, "data.source");
  t.spec.data.add_bias = add_bias;
  t.spec.loss.kind = loss;
  const std::string ext = format == "csv" ? ".csv" : ".libsvm";
  t.spec.data.train_path =
      WriteTempFile("train" + ext, format == "csv" ? AsCsv(train) : AsLibsvm(train));
  t.spec.data.test_path =
      WriteTempFile("test" + ext, format == "csv" ? AsCsv(test) : AsLibsvm(test));
  t.spec.graph.topology = Topology::kRing;
  t.spec.graph.nodes = 4;
  t.spec.iterations = 25;
  t.spec.engine = runtime::EngineKind::kSerial;
  t.spec.compute_optimum = false;
  if (!prep.sharing) {
    t.spec.algorithm.C = 50;
    t.spec.algorithm.rho = 1;
    t.spec.algorithm.eta = 1;
  }
  const Experiment experiment(t.spec);
  t.summary = experiment.Run();
  t.raw_test = format == "csv" ? LoadCsv(t.spec.data.test_path)
                               : LoadLibsvm(t.spec.data.test_path,
                                            experiment.info().features - (add_bias ? 1 : 0));
  t.run_scores = VisitRows(experiment.test(),
                           [&](const auto& x) -> Eigen::VectorXd { return x * t.summary.model; });
  return t;
}

bool SameBits(const Eigen::VectorXd& a, const Eigen::VectorXd& b) {
  return a.size() == b.size() &&
         std::memcmp(a.data(), b.data(), sizeof(double) * static_cast<std::size_t>(a.size())) == 0;
}

TEST(Model, PredictOnRawRowsMatchesTheRunsTestErrorBitForBit) {
  struct Case {
    const char* format;
    bool bias;
    LossKind loss;
  };
  for (const Case& c :
       {Case{"libsvm", false, LossKind::kLogistic}, Case{"csv", true, LossKind::kLogistic},
        Case{"libsvm", true, LossKind::kSmoothHinge}}) {
    SCOPED_TRACE(std::string(c.format) + (c.bias ? " with intercept" : ""));
    // global-max-norm (auto would standardize the CSV's raw-unit rows).
    const TrainedRun t = Train(c.format, c.bias, c.loss, Prep(Scaling::kGlobalMaxNorm));
    ASSERT_EQ(t.summary.outcome, RunOutcome::kCompleted);
    ASSERT_NE(t.summary.info.normalization_factor, 1.0);  // rows were really scaled
    const Model model = Model::FromRun(t.summary, t.spec);
    EXPECT_EQ(model.features(), 8);
    EXPECT_EQ(model.intercept(), c.bias);
    EXPECT_EQ(model.weights().size(), c.bias ? 9 : 8);
    EXPECT_EQ(model.row_scale(), t.summary.info.normalization_factor);
    EXPECT_EQ(model.spec_json(), SpecToJson(t.spec));
    EXPECT_EQ(model.loss().kind, c.loss);
    EXPECT_EQ(model.privacy().meaning, t.summary.info.privacy_guarantee);
    EXPECT_EQ(model.privacy().value, 0.0);  // non-private ADMM

    const Eigen::VectorXd scores = VisitRows(
        t.raw_test, [&](const auto& x) -> Eigen::VectorXd { return model.DecisionFunction(x); });
    EXPECT_TRUE(SameBits(scores, t.run_scores));
    EXPECT_EQ(model.TestError(t.raw_test), t.summary.final.test_error);
    EXPECT_LT(t.summary.final.test_error, 0.1);  // a model worth predicting with

    // One row at a time: the same answers (a plain dot product, equal up to rounding).
    const Eigen::VectorXd predicted =
        VisitRows(t.raw_test, [&](const auto& x) -> Eigen::VectorXd { return model.Predict(x); });
    const DenseRows dense =
        VisitRows(t.raw_test, [](const auto& x) -> DenseRows { return DenseRows(x); });
    for (Eigen::Index r = 0; r < dense.rows(); ++r) {
      const Eigen::VectorXd row = dense.row(r).transpose();
      EXPECT_NEAR(model.DecisionFunction(row), scores[r], 1e-12 * (1.0 + std::abs(scores[r])));
      if (std::abs(scores[r]) > 1e-9) {
        EXPECT_EQ(model.Predict(row), predicted[r]);
        EXPECT_EQ(model.Predict(std::span<const double>(row.data(), 8)), predicted[r]);
      }
    }
    // Column-major and 64-bit-indexed sparse inputs give the same bits as the library's types
    // (dense and sparse products sum in different orders, so each is compared with its kind).
    const Eigen::VectorXd dense_scores = model.DecisionFunction(dense);
    EXPECT_TRUE(SameBits(model.DecisionFunction(Eigen::MatrixXd(dense)), dense_scores));
    EXPECT_TRUE(SameBits(model.DecisionFunction(dense.topRows(dense.rows())), dense_scores));
    const SparseRows sparse = dense.sparseView();
    const Eigen::VectorXd sparse_scores = model.DecisionFunction(sparse);
    const Eigen::SparseMatrix<double, Eigen::RowMajor, std::int64_t> sparse_int =
        dense.sparseView();
    EXPECT_TRUE(SameBits(model.DecisionFunction(sparse_int), sparse_scores));
    EXPECT_TRUE(SameBits(t.raw_test.is_sparse() ? sparse_scores : dense_scores, scores));
    EXPECT_TRUE(SameBits(model.Predict(Eigen::MatrixXd(dense)), model.Predict(dense)));
    EXPECT_TRUE(SameBits(model.Predict(sparse_int), model.Predict(sparse)));
    EXPECT_EQ(model.DecisionFunction(dense.row(3)),
              model.DecisionFunction(Eigen::VectorXd(dense.row(3).transpose())));
  }
}

// Every scaling the run can apply, each reproduced bit for bit on the raw test rows: the scores
// (hence the probabilities) and the test error. Twonorm rows have norms near 3 and features
// outside [-1, 1], so clipping changes most rows and the public bounds leave values to clip.
TEST(Model, EveryRowPreparationIsReplayedBitForBit) {
  std::string bounds_file;
  for (int j = 0; j < 8; ++j) bounds_file += std::to_string(-1 - j % 3) + " " + Num(1.5 + j) + "\n";
  struct Case {
    const char* name;
    const char* format;
    bool bias;
    Preparation prep;
    Scaling want;
  };
  const Case cases[] = {
      {"clip-only", "libsvm", true, Prep(Scaling::kClipOnly), Scaling::kClipOnly},
      {"clip-only csv", "csv", false, Prep(Scaling::kClipOnly), Scaling::kClipOnly},
      {"none", "csv", true, Prep(Scaling::kNone), Scaling::kNone},
      {"public-bounds range", "csv", true, Prep(Scaling::kPublicBounds, {-2.0, 3.0}),
       Scaling::kPublicBounds},
      {"public-bounds range, sparse", "libsvm", false, Prep(Scaling::kPublicBounds, {-1.0, 1.0}),
       Scaling::kPublicBounds},
      {"public-bounds file", "csv", false, Prep(Scaling::kPublicBounds, {}, bounds_file),
       Scaling::kPublicBounds},
      {"sharing clip-only", "csv", true, Prep(Scaling::kClipOnly, {}, "", true),
       Scaling::kClipOnly},
      {"sharing public-bounds", "libsvm", true, Prep(Scaling::kPublicBounds, {-0.5, 0.5}, "", true),
       Scaling::kPublicBounds},
      {"sharing global-max-norm", "csv", false, Prep(Scaling::kGlobalMaxNorm, {}, "", true),
       Scaling::kGlobalMaxNorm},
      {"standardize", "csv", true, Prep(Scaling::kStandardize), Scaling::kStandardize},
      {"auto on raw units", "csv", false, Prep(Scaling::kAuto), Scaling::kStandardize},
      {"sharing standardize", "csv", true, Prep(Scaling::kStandardize, {}, "", true),
       Scaling::kStandardize},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const TrainedRun t = Train(c.format, c.bias, LossKind::kLogistic, c.prep);
    ASSERT_EQ(t.summary.outcome, RunOutcome::kCompleted);
    ASSERT_EQ(t.summary.info.scaling, c.want);
    const Model model = Model::FromRun(t.summary, t.spec);
    EXPECT_EQ(model.preparation().scaling, c.want);
    EXPECT_EQ(model.preparation().clip, c.want == Scaling::kClipOnly ||
                                            c.want == Scaling::kPublicBounds ||
                                            c.want == Scaling::kStandardize);
    EXPECT_EQ(model.preparation().clip_blocks.empty(),
              !c.prep.sharing || !model.preparation().clip);
    const Eigen::VectorXd scores = VisitRows(
        t.raw_test, [&](const auto& x) -> Eigen::VectorXd { return model.DecisionFunction(x); });
    EXPECT_TRUE(SameBits(scores, t.run_scores));
    EXPECT_EQ(model.TestError(t.raw_test), t.summary.final.test_error);
    EXPECT_LT(t.summary.final.test_error, 0.2);
    const Eigen::VectorXd p = VisitRows(
        t.raw_test, [&](const auto& x) -> Eigen::VectorXd { return model.PredictProba(x); });
    EXPECT_EQ(p[5], model.ScoreToProbability(t.run_scores[5]));

    // The same bits after a save and a load.
    const Model back = Model::FromJson(model.ToJson(), "model.json");
    EXPECT_EQ(back.ToJson(), model.ToJson());
    EXPECT_TRUE(SameBits(
        VisitRows(t.raw_test,
                  [&](const auto& x) -> Eigen::VectorXd { return back.DecisionFunction(x); }),
        t.run_scores));

    // One row at a time: the same answers up to rounding.
    const DenseRows dense =
        VisitRows(t.raw_test, [](const auto& x) -> DenseRows { return DenseRows(x); });
    for (Eigen::Index r = 0; r < 20; ++r) {
      EXPECT_NEAR(model.DecisionFunction(Eigen::VectorXd(dense.row(r).transpose())), scores[r],
                  1e-12 * (1.0 + std::abs(scores[r])));
    }
  }
}

// A version 1 file (one row factor at the top level) still reads, as global-max-norm.
TEST(ModelJson, ReadsVersionOneFiles) {
  const std::string v1 = R"({"format": "dpadmm.model", "version": 1, "loss": "logistic",
    "huber_h": 0.5, "features": 2, "intercept": true, "row_scale": 0.25,
    "weights": [1.0, 2.0, 3.0], "privacy": {"value": 0.0, "meaning": "none"}, "spec": "{}"})";
  const Model m = Model::FromJson(v1, "old.json");
  EXPECT_EQ(m.preparation().scaling, Scaling::kGlobalMaxNorm);
  EXPECT_EQ(m.row_scale(), 0.25);
  EXPECT_FALSE(m.preparation().clip);
  EXPECT_DOUBLE_EQ(m.DecisionFunction(Eigen::VectorXd::Ones(2)), 1.5);  // 0.25 * (1 + 2 + 3)
  EXPECT_EQ(nlohmann::json::parse(m.ToJson())["version"], 2);
  EXPECT_TRUE(ThrowsInputError(
      [&] {
        std::string bad = v1;
        bad.replace(bad.find("row_scale"), 9, "preparation");
        (void)Model::FromJson(bad, "old.json");
      },
      {"old.json: ", "unknown field 'preparation'"}));
}

TEST(Model, ProbabilitiesForTheLogisticLossOnly) {
  const Eigen::VectorXd w = (Eigen::VectorXd(2) << 2.0, -1.0).finished();
  const Model logistic(w, Loss{}, 0.5, false, "{}", {});
  const Eigen::VectorXd x = (Eigen::VectorXd(2) << 3.0, 1.0).finished();  // score 0.5 * 5 = 2.5
  EXPECT_DOUBLE_EQ(logistic.DecisionFunction(x), 2.5);
  EXPECT_NEAR(logistic.PredictProba(x), 1.0 / (1.0 + std::exp(-2.5)), 1e-15);
  EXPECT_EQ(logistic.Predict(x), 1.0);
  DenseRows rows(3, 2);
  rows << 3, 1, -3, -1, 0, 0;
  const Eigen::VectorXd p = logistic.PredictProba(rows);
  EXPECT_NEAR(p[0] + p[1], 1.0, 1e-15);  // sigmoid(-z) = 1 - sigmoid(z)
  EXPECT_EQ(p[2], 0.5);
  EXPECT_EQ(logistic.Predict(rows), (Eigen::VectorXd(3) << 1, -1, 1).finished());  // sign(0) = +1
  // Extreme scores neither overflow nor produce NaN.
  const Eigen::VectorXd far = (Eigen::VectorXd(2) << 1e6, 0.0).finished();
  EXPECT_EQ(logistic.PredictProba(far), 1.0);
  EXPECT_EQ(logistic.PredictProba(Eigen::VectorXd(-far)), 0.0);

  Loss hinge;
  hinge.kind = LossKind::kSmoothHinge;
  const Model smooth(w, hinge, 1.0, false, "{}", {});
  EXPECT_FALSE(smooth.has_probability());
  EXPECT_THROW((void)smooth.PredictProba(x), std::logic_error);
  EXPECT_THROW((void)smooth.PredictProba(rows), std::logic_error);
  EXPECT_EQ(smooth.Predict(x), 1.0);
}

TEST(Model, RefusesRowsOfTheWrongWidthAndBadModels) {
  const Model m((Eigen::VectorXd(3) << 1, 2, 3).finished(), Loss{}, 1.0, true, "{}", {});
  EXPECT_EQ(m.features(), 2);
  EXPECT_TRUE(ThrowsInputError([&] { (void)m.DecisionFunction(Eigen::VectorXd::Ones(3)); },
                               {"3 features", "expects 2"}));
  EXPECT_TRUE(ThrowsInputError([&] { (void)m.Predict(DenseRows::Ones(4, 1)); },
                               {"1 features", "expects 2"}));
  EXPECT_DOUBLE_EQ(m.DecisionFunction(Eigen::VectorXd::Ones(2)), 6.0);  // 1 + 2 + intercept 3

  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_TRUE(ThrowsInputError(
      [&] { Model((Eigen::VectorXd(2) << 1, nan).finished(), Loss{}, 1.0, false, "", {}); },
      {"weights[1]", "not finite"}));
  EXPECT_TRUE(ThrowsInputError([&] { Model(Eigen::VectorXd::Ones(2), Loss{}, 0.0, false, "", {}); },
                               {"row_scale"}));
  EXPECT_TRUE(ThrowsInputError([&] { Model(Eigen::VectorXd::Ones(1), Loss{}, 1.0, true, "", {}); },
                               {"intercept"}));

  RunSummary diverged;
  diverged.outcome = RunOutcome::kDiverged;
  diverged.message = "node 3 diverged in round 7";
  diverged.model = (Eigen::VectorXd(2) << 1, nan).finished();
  EXPECT_TRUE(ThrowsInputError([&] { (void)Model::FromRun(diverged, RunSpec{}); },
                               {"not finite", "node 3 diverged in round 7"}));
  diverged.model.resize(0);
  EXPECT_TRUE(ThrowsInputError([&] { (void)Model::FromRun(diverged, RunSpec{}); }, {"no model"}));
}

// ---------------------------------------------------------------------------------------------
// JSON

Model Awkward() {
  Eigen::VectorXd w(7);
  w << 0.1, 1.0 / 3.0, -0.0, 5e-324, 1.7976931348623157e308, -2.2250738585072014e-308,
      123456789.123456789;
  Loss hinge;
  hinge.kind = LossKind::kSmoothHinge;
  hinge.huber_h = 0.3;
  return Model(w, hinge, 0.012345678901234567, true, SpecToJson(RunSpec{}),
               PrivacySpent{2.0 / 3.0, "DVP: plain composition (004), simulation noise"});
}

TEST(ModelJson, SaveLoadRoundTripsBitForBit) {
  const Model m = Awkward();
  const std::string path = WriteTempFile("model.json", "");
  m.Save(path);
  const Model back = Model::Load(path);
  EXPECT_TRUE(SameBits(back.weights(), m.weights()));
  EXPECT_TRUE(std::signbit(back.weights()[2]));
  const double a = back.row_scale(), b = m.row_scale();
  EXPECT_EQ(std::memcmp(&a, &b, sizeof(double)), 0);
  EXPECT_EQ(back.loss().kind, LossKind::kSmoothHinge);
  EXPECT_EQ(back.loss().huber_h, 0.3);
  EXPECT_TRUE(back.intercept());
  EXPECT_EQ(back.spec_json(), m.spec_json());
  EXPECT_EQ(back.privacy().value, 2.0 / 3.0);
  EXPECT_EQ(back.privacy().meaning, m.privacy().meaning);
  EXPECT_EQ(back.ToJson(), m.ToJson());

  // The spec inside is a usable spec.
  RunSpec spec;
  spec.iterations = 7;
  ApplySpecJson(back.spec_json(), "model spec", spec);
  EXPECT_EQ(spec.iterations, RunSpec{}.iterations);

  const nlohmann::json j = nlohmann::json::parse(m.ToJson());
  EXPECT_EQ(j["format"], "dpadmm.model");
  EXPECT_EQ(j["version"], 2);
  EXPECT_EQ(j["preparation"]["scaling"], "global-max-norm");
  EXPECT_EQ(j["features"], 6);

  // A privacy figure that is not a number is written as null and read back as NaN.
  const Model no_privacy(Eigen::VectorXd::Ones(2), Loss{}, 1.0, false, "{}",
                         PrivacySpent{std::numeric_limits<double>::quiet_NaN(), "n/a"});
  EXPECT_TRUE(std::isnan(Model::FromJson(no_privacy.ToJson(), "x").privacy().value));
}

// Every way a model file can be wrong, each with the file and the field in the message.
TEST(ModelJson, BadFilesAreRefusedNamingFileAndField) {
  const std::string good = Awkward().ToJson();
  const auto edited = [&](const std::function<void(nlohmann::ordered_json&)>& edit) {
    nlohmann::ordered_json j = nlohmann::ordered_json::parse(good);
    edit(j);
    return j.dump(1);
  };
  const auto refused = [&](const std::string& text, std::initializer_list<std::string> parts) {
    const std::string path = WriteTempFile("bad_model.json", text);
    std::vector<std::string> all(parts);
    return ThrowsInputError([&] { (void)Model::Load(path); },
                            {path + ": ", all.at(0), all.size() > 1 ? all[1] : ""});
  };
  using J = nlohmann::ordered_json;

  EXPECT_TRUE(refused("{\"format\": ", {"JSON syntax error"}));
  EXPECT_TRUE(refused("[1, 2]", {"must be a JSON object", "array"}));
  for (const char* field : {"format", "version", "loss", "huber_h", "features", "intercept",
                            "preparation", "weights", "privacy", "spec"}) {
    SCOPED_TRACE(field);
    EXPECT_TRUE(refused(edited([&](J& j) { j.erase(field); }),
                        {std::string("missing field '") + field + "'"}));
  }
  EXPECT_TRUE(refused(edited([](J& j) { j["weigths"] = 1; }), {"unknown field 'weigths'"}));
  EXPECT_TRUE(refused(edited([](J& j) { j["format"] = "sklearn"; }),
                      {"format must be \"dpadmm.model\"", "sklearn"}));
  EXPECT_TRUE(refused(edited([](J& j) { j["version"] = 3; }),
                      {"version 3 is not supported", "reads versions 1 to 2"}));
  EXPECT_TRUE(
      refused(edited([](J& j) { j["version"] = "1"; }), {"version must be an integer", "string"}));
  EXPECT_TRUE(refused(edited([](J& j) { j["loss"] = "hinge"; }),
                      {"loss", "logistic, smooth_hinge", "'hinge'"}));
  EXPECT_TRUE(refused(edited([](J& j) { j["huber_h"] = -1; }), {"huber_h must be > 0"}));
  EXPECT_TRUE(refused(edited([](J& j) { j["features"] = 5; }),
                      {"weights has 7 values", "features (5) + intercept (1) makes 6"}));
  EXPECT_TRUE(refused(edited([](J& j) { j["features"] = 0; }), {"features must be an integer"}));
  EXPECT_TRUE(
      refused(edited([](J& j) { j["weights"].erase(0); }), {"weights has 6 values", "makes 7"}));
  EXPECT_TRUE(refused(edited([](J& j) { j["weights"][3] = nullptr; }),
                      {"weights[3] must be a number", "null"}));  // how JSON writes NaN
  EXPECT_TRUE(refused(edited([](J& j) { j["weights"][1] = "0.5"; }),
                      {"weights[1] must be a number", "string"}));
  EXPECT_TRUE(refused(edited([](J& j) { j["weights"] = 1.0; }), {"weights must be an array"}));
  EXPECT_TRUE(
      refused(edited([](J& j) { j["intercept"] = 1; }), {"intercept must be true or false"}));
  EXPECT_TRUE(refused(edited([](J& j) { j["preparation"]["row_scale"] = 0; }),
                      {"preparation.row_scale must be > 0"}));
  EXPECT_TRUE(refused(edited([](J& j) { j["preparation"]["row_scale"] = nullptr; }),
                      {"preparation.row_scale must be a number"}));
  EXPECT_TRUE(refused(edited([](J& j) { j["preparation"].erase("row_scale"); }),
                      {"missing field 'preparation.row_scale'"}));
  EXPECT_TRUE(
      refused(edited([](J& j) { j["preparation"] = 1; }), {"preparation must be an object"}));
  EXPECT_TRUE(refused(edited([](J& j) { j["preparation"]["scaling"] = "max"; }),
                      {"preparation.scaling", "clip-only"}));
  EXPECT_TRUE(refused(edited([](J& j) { j["preparation"]["scaling"] = "auto"; }),
                      {"preparation.scaling", "not 'auto'"}));
  EXPECT_TRUE(refused(edited([](J& j) { j["preparation"].erase("clip"); }),
                      {"missing field 'preparation.clip'"}));
  EXPECT_TRUE(refused(edited([](J& j) { j["preparation"]["clip"] = 0; }),
                      {"preparation.clip must be true or false"}));
  EXPECT_TRUE(refused(edited([](J& j) { j["preparation"]["dims"] = 7; }),
                      {"unknown field 'preparation.dims'", "global-max-norm"}));
  EXPECT_TRUE(refused(edited([](J& j) {
                        j["preparation"]["clip"] = true;
                        j["preparation"]["clip_blocks"] = {3, 3};
                      }),
                      {"preparation.clip_blocks cover 6", "makes 7"}));
  EXPECT_TRUE(refused(edited([](J& j) {
                        j["preparation"]["clip_blocks"] = {3, 4};
                      }),
                      {"preparation.clip_blocks is given", "clip is false"}));
  EXPECT_TRUE(refused(edited([](J& j) {
                        j["preparation"]["clip"] = true;
                        j["preparation"]["clip_blocks"] = {7, 0};
                      }),
                      {"preparation.clip_blocks[1] must be an integer >= 1"}));
  const auto bounds = [](J& j) {
    j["preparation"] = J::object();
    j["preparation"]["scaling"] = "public-bounds";
    j["preparation"]["dims"] = 7;
    j["preparation"]["sparse_rows"] = false;
    j["preparation"]["lo"] = std::vector<double>(6, -1.0);
    j["preparation"]["hi"] = std::vector<double>(6, 2.0);
    j["preparation"]["clip"] = true;
  };
  EXPECT_NO_THROW((void)Model::FromJson(edited(bounds), "b.json"));
  EXPECT_TRUE(refused(edited([&](J& j) {
                        bounds(j);
                        j["preparation"]["lo"][2] = 2.0;
                      }),
                      {"preparation.lo[2] must be < preparation.hi[2]"}));
  EXPECT_TRUE(refused(edited([&](J& j) {
                        bounds(j);
                        j["preparation"]["hi"].erase(0);
                      }),
                      {"preparation.hi has 5 values", "features is 6"}));
  EXPECT_TRUE(refused(edited([&](J& j) {
                        bounds(j);
                        j["preparation"]["hi"][1] = "x";
                      }),
                      {"preparation.hi[1] must be a number"}));
  EXPECT_TRUE(refused(edited([&](J& j) {
                        bounds(j);
                        j["preparation"]["dims"] = 6;
                      }),
                      {"preparation.dims must be an integer >= features + intercept (7)"}));
  EXPECT_TRUE(refused(edited([&](J& j) {
                        bounds(j);
                        j["preparation"].erase("lo");
                      }),
                      {"missing field 'preparation.lo'"}));
  EXPECT_TRUE(refused(edited([&](J& j) {
                        bounds(j);
                        j["preparation"]["sparse_rows"] = "no";
                      }),
                      {"preparation.sparse_rows must be true or false"}));
  EXPECT_TRUE(refused(edited([&](J& j) {
                        bounds(j);
                        j["preparation"]["row_scale"] = 1.0;
                      }),
                      {"unknown field 'preparation.row_scale'", "public-bounds"}));
  EXPECT_TRUE(refused(edited([](J& j) { j["privacy"].erase("meaning"); }),
                      {"missing field 'privacy.meaning'"}));
  EXPECT_TRUE(refused(edited([](J& j) { j["privacy"]["value"] = "lots"; }),
                      {"privacy.value must be a number or null"}));
  EXPECT_TRUE(
      refused(edited([](J& j) { j["privacy"]["delta"] = 0; }), {"unknown field 'privacy.delta'"}));
  EXPECT_TRUE(refused(edited([](J& j) { j["spec"] = J::object(); }), {"spec must be a string"}));
  // A number that overflows a double is refused (it could only be read as Inf).
  std::string huge = good;
  huge.replace(huge.find("0.1"), 3, "1e999");
  EXPECT_TRUE(refused(huge, {"number overflow", "1e999"}));

  const std::string missing = test::TempPath("dpadmm_no_such_model.json");
  EXPECT_TRUE(ThrowsInputError([&] { (void)Model::Load(missing); },
                               {missing + ": cannot open the model file"}));
  EXPECT_TRUE(ThrowsInputError([&] { Awkward().Save(test::TempPath("no/such/dir/m.json")); },
                               {"no/such/dir/m.json: cannot write the model"}));
}

}  // namespace
}  // namespace dpadmm
