// SPDX-License-Identifier: Apache-2.0
// Only releases leave a node: the metrics scopes, the preparation modes of private runs, and
// the warnings of a run summary.
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "dpadmm/core/error.h"
#include "dpadmm/data/generators.h"
#include "dpadmm/persistence/model.h"
#include "dpadmm/run/run.h"
#include "dpadmm/run/spec_json.h"
#include "run_recorder.h"
#include "test_helpers.h"

namespace dpadmm {
namespace {

using test::RunRecorder;
using test::ThrowsInputError;

RunSpec Dvp() {
  RunSpec s;
  s.algorithm.Select(Algorithm::kDvp);
  s.algorithm.As<DvpParams>().alpha = 0.5;
  s.algorithm.C = 50.0;
  s.algorithm.rho = 1.0;
  s.algorithm.eta = 2.0;
  s.graph.nodes = 4;
  s.graph.edges = 5;
  s.iterations = 12;
  s.seed = 3;
  s.engine = runtime::EngineKind::kSerial;
  return s;
}

TEST(MetricsScopeTest, AutoIsReleasedOnlyExactlyForAPrivateRun) {
  RunSpec s = Dvp();
  EXPECT_TRUE(PrivateRun(s));
  EXPECT_EQ(EffectiveMetrics(s), MetricsScope::kReleasedOnly);
  EXPECT_EQ(EffectiveScaling(s), Scaling::kClipOnly);
  s.data.feature_range = {-3.0, 3.0};
  EXPECT_EQ(EffectiveScaling(s), Scaling::kPublicBounds);
  s.noise_seed = 7;  // simulation: no guarantee, the old defaults
  EXPECT_FALSE(PrivateRun(s));
  EXPECT_EQ(EffectiveMetrics(s), MetricsScope::kAll);
  EXPECT_EQ(EffectiveScaling(s), Scaling::kGlobalMaxNorm);
  RunSpec admm;  // a non-private algorithm: nothing to protect, the old defaults
  EXPECT_FALSE(UsesPrivacyMechanism(admm));
  EXPECT_EQ(EffectiveMetrics(admm), MetricsScope::kAll);
  EXPECT_EQ(EffectiveScaling(admm), Scaling::kGlobalMaxNorm);
  RunSpec pdml = RunSpec::Defaults(Algorithm::kPdml);
  EXPECT_FALSE(UsesPrivacyMechanism(pdml));  // label_eps = R = V = 0
  pdml.algorithm.As<PdmlParams>().label_eps = 1.0;
  EXPECT_TRUE(UsesPrivacyMechanism(pdml));
  RunSpec sharing = RunSpec::Defaults(Algorithm::kSharing);
  EXPECT_FALSE(UsesPrivacyMechanism(sharing));
  sharing.algorithm.As<SharingParams>().dp = true;
  EXPECT_TRUE(UsesPrivacyMechanism(sharing));
  s.metrics = MetricsScope::kReleasedOnly;
  EXPECT_EQ(EffectiveMetrics(s), MetricsScope::kReleasedOnly);
}

TEST(MetricsScopeTest, PrivateModeRefusesTheGlobalFactor) {
  RunSpec s = Dvp();
  s.data.scaling = Scaling::kGlobalMaxNorm;
  EXPECT_TRUE(ThrowsInputError([&] { s.Validate(); }, {"global-max-norm", "private mode"}));
  s.noise_seed = 1;
  EXPECT_NO_THROW(s.Validate());
  s.noise_seed.reset();
  s.data.scaling = Scaling::kPublicBounds;
  EXPECT_TRUE(ThrowsInputError([&] { s.Validate(); }, {"public-bounds", "--feature-range"}));
  s.data.feature_range = {1.0, 1.0};
  EXPECT_TRUE(ThrowsInputError([&] { s.Validate(); }, {"data.feature_range", "lo < hi"}));
}

TEST(MetricsScopeTest, ReleasedOnlyComputesNoPrivateEvaluation) {
  RunSpec s = Dvp();  // private mode: auto = released-only
  RunRecorder rec;
  const RunSummary r = Experiment(s).Run(&rec);
  EXPECT_EQ(r.info.metrics, MetricsScope::kReleasedOnly);
  EXPECT_EQ(r.info.scaling, Scaling::kClipOnly);
  EXPECT_TRUE(r.info.evaluation.empty());
  ASSERT_FALSE(rec.rounds.empty());
  for (const RoundMetrics& m : rec.rounds) {
    EXPECT_TRUE(std::isnan(m.train_loss));
    EXPECT_TRUE(std::isnan(m.objective));
    EXPECT_TRUE(std::isnan(m.distance_to_optimum));
    EXPECT_FALSE(std::isnan(m.test_error));  // released model on public test data
    EXPECT_FALSE(std::isnan(m.consensus_gap));
    if (m.round > 0) EXPECT_GT(m.privacy_loss, 0.0);
  }
  EXPECT_TRUE(std::isnan(r.info.optimum_objective));
  EXPECT_TRUE(std::isnan(r.info.optimum_test_error));
  EXPECT_TRUE(std::isnan(r.info.max_row_norm_before));
  const std::string json = SummaryToJson(r);
  EXPECT_NE(json.find("\"train_loss\": null"), std::string::npos);
  EXPECT_NE(json.find("\"metrics\": \"released-only\""), std::string::npos);
  EXPECT_EQ(json.find(kPrivateEvaluationLabel), std::string::npos);

  // Asking for everything in private mode labels every private figure.
  s.metrics = MetricsScope::kAll;
  const RunSummary all = Experiment(s).Run();
  EXPECT_FALSE(std::isnan(all.final.train_loss));
  EXPECT_FALSE(std::isnan(all.info.optimum_objective));
  ASSERT_FALSE(all.info.evaluation.empty());
  const std::string labelled = SummaryToJson(all);
  EXPECT_NE(labelled.find(kPrivateEvaluationLabel), std::string::npos);
  EXPECT_NE(labelled.find("\"train_loss\""), std::string::npos);
}

TEST(MetricsScopeTest, SharingReleasedOnlyKeepsTestFiguresAndPrivacy) {
  RunSpec s = RunSpec::Defaults(Algorithm::kSharing);
  s.data.rows = 400;
  s.data.dims = 20;
  s.data.sparse_informative = 20;
  s.data.sparse_nnz_per_row = 10;
  s.iterations = 3;
  s.algorithm.As<SharingParams>().dp = true;
  s.engine = runtime::EngineKind::kSerial;
  const RunSummary r = Experiment(s).Run();
  EXPECT_EQ(r.info.metrics, MetricsScope::kReleasedOnly);
  EXPECT_TRUE(std::isnan(r.final.train_loss));
  EXPECT_TRUE(std::isnan(r.final.objective));
  EXPECT_TRUE(std::isnan(r.final.max_x_norm));
  EXPECT_TRUE(std::isnan(r.final.y_norm));
  EXPECT_TRUE(std::isnan(r.final.primal_residual));
  EXPECT_FALSE(std::isnan(r.final.test_loss));
  EXPECT_GT(r.final.epsilon_total, 0.0);
  EXPECT_FALSE(r.info.central.computed);
  EXPECT_TRUE(r.info.party_gram_rank.empty());
  for (double v : r.info.party_max_row_norm) EXPECT_TRUE(std::isnan(v));
}

TEST(MetricsScopeTest, SharingPartiesClipTheirOwnBlocks) {
  RunSpec s = RunSpec::Defaults(Algorithm::kSharing);
  s.data.source = DataSource::kTwonorm;  // dense rows with norms near 4
  s.data.rows = 400;
  s.data.dims = 20;
  s.iterations = 2;
  s.algorithm.As<SharingParams>().dp = true;
  s.algorithm.As<SharingParams>().parties = 3;
  s.metrics = MetricsScope::kAll;  // to see the blocks' norms
  s.engine = runtime::EngineKind::kSerial;
  const Experiment e(s);
  EXPECT_EQ(e.info().scaling, Scaling::kClipOnly);
  ASSERT_EQ(e.info().party_max_row_norm.size(), 3u);
  for (double n : e.info().party_max_row_norm) {
    EXPECT_LE(n, 1.0);
    EXPECT_GT(n, 0.99);  // each block was clipped, not the whole row
  }
}

TEST(MetricsScopeTest, SpecJsonCarriesScopeScalingAndBounds) {
  RunSpec s = Dvp();
  ApplySpecJson(R"({"metrics": "all", "data": {"scaling": "public-bounds",
                    "feature_bounds_path": "b.txt", "feature_range": [-2, 3]}})",
                "spec.json", s);
  EXPECT_EQ(s.metrics, MetricsScope::kAll);
  EXPECT_EQ(s.data.scaling, Scaling::kPublicBounds);
  EXPECT_EQ(s.data.feature_bounds_path, "b.txt");
  EXPECT_EQ(s.data.feature_range, (std::vector<double>{-2.0, 3.0}));
  RunSpec back = RunSpec::Defaults(Algorithm::kDvp);
  ApplySpecJson(SpecToJson(s), "round trip", back);
  EXPECT_EQ(SpecToJson(back), SpecToJson(s));
  EXPECT_TRUE(ThrowsInputError([&] { ApplySpecJson(R"({"metrics": "some"})", "spec.json", s); },
                               {"metrics", "released-only"}));
  EXPECT_TRUE(
      ThrowsInputError([&] { ApplySpecJson(R"({"data": {"scaling": "max"}})", "spec.json", s); },
                       {"data.scaling", "clip-only"}));
}

TEST(MetricsScopeTest, APrivateRunsModelCarriesItsRowPreparation) {
  RunSpec s = Dvp();
  s.data.feature_range = {-5.0, 5.0};
  const RunSummary r = RunExperiment(s);
  ASSERT_EQ(r.info.scaling, Scaling::kPublicBounds);
  EXPECT_EQ(Model::FromRun(r, s).preparation().scaling, Scaling::kPublicBounds);
  s.data.feature_range.clear();
  EXPECT_EQ(Model::FromRun(RunExperiment(s), s).preparation().scaling, Scaling::kClipOnly);
}

// ---- Only releases leave a node ---------------------------------------------------------------

// Every output of a run as text, wall times zeroed: the summary and each trace row.
std::string Outputs(RunSummary summary, std::vector<RoundMetrics> rounds) {
  summary.seconds = summary.seconds_per_round = summary.final.seconds = 0.0;
  std::string out = SummaryToJson(summary) + "\n";
  for (RoundMetrics& m : rounds) {
    m.seconds = 0.0;
    out += MetricsToCsvRow(m) + "\n";
  }
  return out;
}

// Two data sets that differ in one training record whose raw row clips to the same prepared
// row (2^k times the same vector: the division by its norm is exact). A released-only run
// must give the same bits for both; the scope "all" outputs evaluation of the raw data and
// differs, so the test can tell the two apart.
TEST(ReleasedOnlyTest, NeighbouringDataWithIdenticalReleasesGiveIdenticalOutputs) {
  const Dataset train = GenerateTwonorm(400, 5, 6), test = GenerateTwonorm(200, 6, 6);
  Dataset a = train, b = train;
  auto& xa = std::get<DenseRows>(a.x);
  auto& xb = std::get<DenseRows>(b.x);
  xa.row(0) *= 64.0;
  xb.row(0) *= 128.0;  // the largest row in both, by far
  RunSpec pdml = Dvp();
  pdml.algorithm.Select(Algorithm::kPdml);
  pdml.algorithm.C = 1.0;
  pdml.algorithm.rho = 0.01;
  pdml.algorithm.eta = 0.1;
  pdml.algorithm.As<PdmlParams>().label_eps = 0.1;
  pdml.algorithm.As<PdmlParams>().R = 1.0;
  pdml.algorithm.As<PdmlParams>().V = 0.5;
  for (RunSpec s : {Dvp(), pdml}) {
    SCOPED_TRACE(ChoiceName(s.algorithm.name()));
    s.noise_seed = 11;  // the same noise for both runs (the comparison needs it)
    s.data.scaling = Scaling::kClipOnly;
    const auto run = [&](const RunSpec& spec, const Dataset& data) {
      RunRecorder rec;
      const RunSummary r = Experiment(spec, data, test).Run(&rec);
      return Outputs(r, rec.rounds);
    };
    s.metrics = MetricsScope::kReleasedOnly;
    EXPECT_EQ(run(s, a), run(s, b));
    s.metrics = MetricsScope::kAll;
    EXPECT_NE(run(s, a), run(s, b));  // max_row_norm_before differs
    // The old preparation (one factor from every node's data) changes every output.
    s.data.scaling = Scaling::kGlobalMaxNorm;
    s.metrics = MetricsScope::kReleasedOnly;
    EXPECT_NE(run(s, a), run(s, b));
  }
}

// ---- Public bounds on mixed units --------------------------------------------------------------

// Two classes whose features have very different units (like the breast-cancer set: areas near
// 1,000 next to smoothness near 0.1): feature j is offset_j + unit_j * z_j, with z twonorm.
Dataset MixedUnits(std::int64_t rows, std::uint64_t seed, std::vector<double>& lo,
                   std::vector<double>& hi) {
  constexpr int kDims = 8;
  Dataset d = GenerateTwonorm(rows, seed, kDims);
  auto& x = std::get<DenseRows>(d.x);
  const double unit[kDims] = {1000.0, 300.0, 50.0, 10.0, 1.0, 0.2, 0.05, 0.01};
  lo.assign(kDims, 0.0);
  hi.assign(kDims, 0.0);
  for (int j = 0; j < kDims; ++j) {
    const double offset = 5.0 * unit[j];  // every value positive, as measurements are
    x.col(j) = (x.col(j).array() * unit[j] + offset).matrix();
    // Public bounds from the generator's definition (|z| <= 5 but for ~1e-6 of the draws),
    // not from the data.
    lo[j] = offset - 5.0 * unit[j];
    hi[j] = offset + 5.0 * unit[j];
  }
  return d;
}

TEST(PublicBoundsRunTest, ScalingFromPublicBoundsBeatsClippingOnlyOnMixedUnits) {
  std::vector<double> lo, hi;
  const Dataset train = MixedUnits(2000, 1, lo, hi), test = MixedUnits(1000, 2, lo, hi);
  std::string bounds;
  for (std::size_t j = 0; j < lo.size(); ++j) {
    bounds += std::to_string(lo[j]) + " " + std::to_string(hi[j]) + "\n";
  }
  RunSpec s = Dvp();
  s.iterations = 30;
  s.algorithm.As<DvpParams>().alpha = 5.0;  // light noise: the preparation is what differs
  s.noise_seed = 1;                         // reproducible (the scaling is set explicitly)
  s.data.add_bias = true;
  s.data.scaling = Scaling::kClipOnly;
  const RunSummary clipped = Experiment(s, train, test).Run();
  s.data.scaling = Scaling::kPublicBounds;
  s.data.feature_bounds_path = test::WriteTempFile("mixed_units_bounds.txt", bounds);
  const RunSummary scaled = Experiment(s, train, test).Run();
  EXPECT_EQ(scaled.info.scaling, Scaling::kPublicBounds);
  std::printf("mixed units, test error: public-bounds %.4f, clip-only %.4f\n",
              scaled.final.test_error, clipped.final.test_error);
  EXPECT_LT(scaled.final.test_error + 0.05, clipped.final.test_error)
      << "public bounds " << scaled.final.test_error << ", clip-only " << clipped.final.test_error;
}

// ---- Warnings
// ------------------------------------------------------------------------------------

bool HasWarning(const RunSummary& r, const std::string& part) {
  for (const std::string& w : r.warnings) {
    if (w.find(part) != std::string::npos) return true;
  }
  return false;
}

TEST(WarningsTest, SimulationModeLargeEpsilonAndAModelThatLearnedNothing) {
  RunSpec s = Dvp();
  const RunSummary quiet = RunExperiment(s);
  EXPECT_FALSE(HasWarning(quiet, "simulation mode")) << "private mode";
  EXPECT_TRUE(HasWarning(quiet, "features are not scaled"));
  s.noise_seed = 1;
  RunSummary r = RunExperiment(s);
  EXPECT_TRUE(HasWarning(r, "simulation mode: the noise can be regenerated from the seed"));
  EXPECT_FALSE(HasWarning(r, "> 10"));  // 12 rounds of alpha 0.5: 6
  s.iterations = 25;                    // 12.5
  r = RunExperiment(s);
  EXPECT_TRUE(HasWarning(r, "> 10"));
  s.iterations = 0;  // f = 0 predicts +1 everywhere: the majority rate at best
  s.noise_seed.reset();
  r = RunExperiment(s);
  EXPECT_TRUE(HasWarning(r, "learned nothing")) << r.final.test_error;
  RunSpec admm;  // non-private, trained: no warning at all
  admm.iterations = 20;
  admm.graph.nodes = 4;
  admm.graph.edges = 5;
  EXPECT_TRUE(RunExperiment(admm).warnings.empty());
}

TEST(WarningsTest, DeltaAboveOneOverTheRecords) {
  RunSpec s = RunSpec::Defaults(Algorithm::kSharing);
  s.data.rows = 400;
  s.data.dims = 20;
  s.data.sparse_informative = 20;
  s.data.sparse_nnz_per_row = 10;
  s.iterations = 3;
  s.engine = runtime::EngineKind::kSerial;
  auto& sp = s.algorithm.As<SharingParams>();
  sp.dp = true;
  sp.delta = 5e-3;  // 3 iterations: 1.5e-2 + 1e-5 > 1 / 280 training rows
  EXPECT_TRUE(HasWarning(RunExperiment(s), "delta"));
  sp.delta = 1e-6;
  EXPECT_FALSE(HasWarning(RunExperiment(s), "delta"));
}

}  // namespace
}  // namespace dpadmm
