// SPDX-License-Identifier: Apache-2.0
// Running an experiment of either family: spec in, per-round metrics to an observer, a
// RunSummary out.
//
//   dpadmm::RunSpec spec;                 // defaults: the main job (consensus ADMM)
//   spec.graph.nodes = 20;
//   dpadmm::Experiment exp(spec);         // loads/generates data, builds graph and partition
//   dpadmm::RunSummary s = exp.Run(&observer, &stop_token);
//
//   auto v = dpadmm::RunSpec::Defaults(dpadmm::Algorithm::kSharing);  // vertical sharing (001)
//   dpadmm::Experiment shared(v, train, test);  // in-memory data: no files needed
//
// Bad input throws InputError (at construction). Everything that happens during the run is an
// outcome in the summary: completed, converged, cancelled, diverged or failed (naming node and
// round), budget exhausted.
// Thread safety: an Experiment is immutable after construction; Run() may be called from
// several threads at once (each call builds its own node programs and engine state).
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include <Eigen/Dense>

#include "dpadmm/data/dataset.h"
#include "dpadmm/data/preprocessing.h"
#include "dpadmm/graph/graph.h"
#include "dpadmm/run/choices.h"
#include "dpadmm/run/run_spec.h"
#include "dpadmm/runtime/engine.h"

namespace dpadmm {

// One round (consensus: one ADMM round; sharing: one iteration or SGD epoch). Fields that do
// not apply to the run's family stay NaN (empty for vectors) and are not written to traces;
// MetricColumns() says which family each belongs to.
struct RoundMetrics {
  static constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  std::int64_t round = 0;
  double seconds = 0.0;  // wall time since the start of the run
  // Consensus: L(t) = (1/N) sum_i (1/B_i) sum_n L(y f_i(t)^T x) (papers).
  // Sharing: mean log loss on the training set.
  double train_loss = 0.0;
  // Consensus: sum_i [(C/B_i) sum_n L(y f_i^T x) + (rho/N) ||f_i||^2 / 2].
  // Sharing: mean log loss + lambda sum_m ||x_m||^2 / 2 (released x~).
  double objective = 0.0;
  double test_error = 0.0;  // misclassification rate of the model on the test set

  // Consensus family.
  double consensus_gap = kNaN;        // max_i ||f_i(t) - mean_j f_j(t)||_2 (docs/formats.md: Trace)
  double distance_to_optimum = kNaN;  // max_i ||f_i(t) - f*|| / ||f*|| (NaN if not computed)
  // Privacy, as the algorithm's paper states it (0 for non-private algorithms):
  // DVP/PVP: max_i sum_{s<=t} alpha_i(s) (plain composition of the dynamic alpha_i(s)-DP);
  // M-ADMM: P(t) of 002; private MR-ADMM: beta of 003 eq. (32) up to round t.
  double privacy_loss = kNaN;
  double privacy_round = kNaN;  // max_i of what round t added
  // Private consensus runs (dvp, pvp, madmm, private_mradmm): the tight epsilon spent up to
  // round t at RunSummary::tight_delta, max over nodes: the optimal composition of each node's
  // per-round terms so far (ComposeTight, exact as the summary's; composed incrementally and
  // evaluated only at reported rounds). At the last round it equals RunSummary::tight_epsilon.
  // NaN otherwise.
  double tight_epsilon = kNaN;
  // The delta of that figure: RunSummary::tight_delta's composition part (kTightDelta) plus the
  // floating-point delta of the snapped releases up to round t, max over nodes
  // (Release::spent_delta; algorithms/privacy/README.md). NaN when tight_epsilon is.
  double tight_delta = kNaN;
  std::vector<double> node_privacy;  // per node: accumulated privacy loss up to round t
  std::vector<double> node_noise;    // per node: noise parameter drawn in round t (0: none)
  // Per node: ||f_i(t) - mean_j f_j(t)||_2, how far node i is from consensus (the browser demo
  // colours nodes by it). Not part of the trace formats.
  std::vector<double> node_distance;

  // Sharing family.
  double test_loss = kNaN;        // mean log loss on the test set
  double primal_residual = kNaN;  // ADMM: ||sum_m D_m x_m - z||_2 / sqrt(N); SGD: NaN
  double max_x_norm = kNaN;       // max_m ||x_m||_2 (compare with b1)
  double y_norm = kNaN;           // ADMM: ||y||_2 (compare with b1); SGD: NaN
  // Privacy (0 when dp is off): per iteration and party (001 Theorem 3), and Corollary 1's
  // total over the iterations so far.
  double epsilon_iteration = kNaN, delta_iteration = kNaN;
  double epsilon_total = kNaN, delta_total = kNaN;
};

// A reference logistic regression of the sharing family (001's experiments).
struct Baseline {
  bool computed = false;
  double objective = 0.0;  // mean log loss + lambda ||f||^2 / 2 at the optimum
  double train_loss = 0.0;
  double test_loss = 0.0;  // mean log loss on the test set
  double test_error = 0.0;
};

// What the run is about, known before round 0.
struct RunInfo {
  Family family = Family::kConsensus;
  Algorithm algorithm = Algorithm::kAdmm;
  std::string dataset;
  std::int64_t train_rows = 0, test_rows = 0, features = 0;
  bool sparse = false;
  // How the rows were prepared (data/preprocessing.h; RunSpec's scaling resolved).
  Scaling scaling = Scaling::kGlobalMaxNorm;
  // global-max-norm: rows were multiplied by this (1 = unchanged, and for the other scalings,
  // which have no global factor). A private evaluation (it depends on every node's data).
  double normalization_factor = 1.0;
  // Largest row norm before scaling (train and test; with the intercept column unless the
  // scaling is public-bounds, dp-bounds, standardize or dp-standardize): a private evaluation, NaN
  // when the metrics scope is released-only.
  double max_row_norm_before = 0.0;
  // dp-bounds scaling: what every node spent on its bounds release (epsilon, pure DP, already
  // in each node's privacy figures) and the agreed bounds read off the summed releases (released
  // values); empty otherwise.
  struct DpBounds {
    double epsilon = 0.0;
    double threshold = 0.0;
    std::int64_t fallback_features = 0;  // features with no occupied bin (feature_range/[-1, 1])
    std::vector<double> lo, hi;
  } dp_bounds;
  // standardize and dp-standardize scalings: each raw feature's mean and scale (the rows were
  // mapped by (x - mean) / (scale sqrt(d)), then clipped). standardize: the training rows'
  // (a private evaluation: they depend on every node's rows); dp-standardize: post-processing
  // of the nodes' released sums, with what every node spent on its release (pure epsilon,
  // already in each node's privacy figures), the variance floor and how many features it
  // raised. Empty otherwise.
  struct Standardization {
    double epsilon = 0.0;
    double variance_floor = 0.0;
    std::int64_t floored_features = 0;
    std::vector<double> mean, scale;
  } standardization;
  // Which figures the run computes (RunSpec's metrics resolved: kReleasedOnly or kAll).
  MetricsScope metrics = MetricsScope::kAll;
  // The output figures computed on private data ("evaluation on private data, outside the
  // guarantee"), by their output names ("train_loss", "info.optimum_objective", ...); empty for
  // a released-only run, whose private-evaluation figures are not computed and written as null
  // (NaN). Only a run whose outputs are bound by a guarantee lists them (PrivateRun: a privacy
  // mechanism in private mode); otherwise there is no guarantee to be outside of.
  std::vector<std::string> evaluation;
  // Share of the majority class in the (public) test set; NaN without test data.
  double test_majority_rate = 0.0;
  std::string loss;
  runtime::EngineKind engine = runtime::EngineKind::kTbb;
  // Sharing's SGD baseline does not run on an engine (an in-process loop).
  bool on_engine = true;
  int threads = 0;
  // One party of a network run (dpadmm/party.h): its id, its index in the party list, the
  // number of parties and the nodes it hosts (engine and threads: how it runs them); id empty
  // otherwise.
  struct PartyView {
    std::string id;
    int index = -1, parties = 0;
    std::vector<int> nodes;
  } party;
  // What the reported privacy loss means for this algorithm (one sentence, names the paper).
  std::string privacy_guarantee;
  // Private consensus runs: the claim stated precisely (neighbouring relation, what is public,
  // the privacy notion, the compositions behind the paper's figure and the tight one); empty
  // otherwise.
  std::string privacy_claim;
  // The private releases are Gaussian mechanisms (PDML Phase 2, pvp with mechanism
  // "gaussian"): the tight figure is their exact composition and no paper's pure-epsilon figure
  // exists (RoundMetrics::privacy_loss is NaN for pvp, PDML's column is its labels' eps).
  bool gaussian_releases = false;
  // With target_epsilon and epsilon_policy: the settings the epsilon policy chose, in words
  // (tools/epsilon_policy.h); empty when it did not apply.
  std::string epsilon_policy;
  // Where the noise comes from (RunSpec::noise_mode()); NoiseLabel says it in words.
  NoiseMode noise_mode = NoiseMode::kPrivate;
  // The run releases through a privacy mechanism (UsesPrivacyMechanism): it draws noise.
  bool noisy = false;
  // RunSpec::target_epsilon > 0: the knob the calibration set ("algorithm.dvp.alpha"), its value,
  // and the tight total epsilon it gives at calibrated_delta (tools/calibration.h); empty
  // knob / NaN otherwise.
  std::string calibrated_knob;
  double calibrated_value = std::numeric_limits<double>::quiet_NaN();
  double calibrated_epsilon = std::numeric_limits<double>::quiet_NaN();
  double calibrated_delta = std::numeric_limits<double>::quiet_NaN();

  // Consensus family.
  int nodes = 0, edges = 0;
  std::vector<std::int64_t> rows_per_node;
  double optimum_objective = 0.0;   // NaN if not computed
  double optimum_test_error = 0.0;  // NaN if not computed
  // Empty when f* was solved to tolerance; otherwise why the distances are approximate or absent.
  std::string optimum_note;
  // What RoundMetrics::test_error measures: "mean model" (the test error of the mean of the
  // nodes' models) or, for local, "mean over nodes of each node's own model" (local learns no
  // consensus model: every node keeps its own, and RunSummary::model is empty).
  std::string test_error_of = "mean model";
  // The baselines (local, average, central): what the run stands for, one sentence; empty
  // otherwise.
  std::string baseline;
  // central: its guarantee holds against everyone but the curator, who holds every party's
  // rows; the run needs a curator that every party trusts with them.
  bool trusted_curator = false;

  // Sharing family.
  std::vector<std::int64_t> party_features;  // d_m
  std::vector<std::int64_t> party_offsets;   // first column of party m
  std::vector<double> party_max_row_norm;    // max row norm of D_m (Assumption 2.3 wants <= 1)
  // Privacy (dp only; zeros otherwise): the bounds' parameters as used, Lemma 1's sensitivity and
  // Theorem 3's sigma per party, the rank of D_m^T D_m.
  bool dp = false;
  double epsilon = 0.0, delta = 0.0, delta_prime = 0.0, b1 = 0.0, c1 = 0.0;
  std::vector<double> party_sensitivity, party_sigma;
  std::vector<double> party_epsilon;  // per-iteration epsilon of each party
  // Each party's total epsilon over the run's iterations: "gaussian" the tight figure
  // (analytic Gaussian, at delta), "paper16" 001 Corollary 1's (at T delta + delta').
  std::vector<double> party_epsilon_total;
  std::string sharing_mechanism;  // "gaussian" | "paper16" (dp only)
  std::vector<std::int64_t> party_gram_rank;
  Baseline central;  // all features
  Baseline local;    // party 1's features only
};

// The label every output of a run carries: "simulation: noise reproducible from the seed",
// "private: noise keys from the operating system, not stored", or, for a run that draws no
// noise, "no noise: the algorithm is not private".
const char* NoiseLabel(const RunInfo& info);
// The summary's "noise_mode": "private", "simulation", or "none" for a run without noise.
const char* NoiseModeName(const RunInfo& info);

struct RunSummary {
  RunOutcome outcome = RunOutcome::kCompleted;
  std::string message;  // human-readable termination reason (names node and round on failure)
  RunInfo info;
  std::int64_t rounds = 0;  // last reported round (sharing: last completed iteration)
  RoundMetrics final;       // metrics of the last reported round
  // Consensus: mean_i f_i (local: empty, it learns no single model; info.test_error_of). Sharing:
  // [x_1; ...; x_M] (released values).
  Eigen::VectorXd model;
  // Consensus: per node, the round in which its release refused to exceed its privacy budget
  // and the node froze (resending its last release from then on), or -1; a party of a network
  // run (dpadmm/party.h) writes -2 for the other parties' nodes (not known to it). Sharing:
  // empty.
  std::vector<std::int64_t> node_frozen_round;
  double seconds = 0.0;
  double seconds_per_round = 0.0;  // seconds / rounds (0 for 0 rounds)
  // Private consensus runs (dvp, pvp, madmm, private_mradmm): per node, the tight epsilon of
  // the node's released sequence at delta = tight_delta (kTightDelta): the optimal composition
  // of the paper's per-round pure-epsilon terms (privacy/accounting.h, ComposeTight), next to
  // the paper's figure (final.node_privacy); tight_epsilon is the max over nodes. Empty / NaN
  // otherwise (PDML: Phase 1's label eps is pure eps per user, Phase 2 has no epsilon).
  std::vector<double> node_tight_epsilon;
  double tight_epsilon = std::numeric_limits<double>::quiet_NaN();
  // The delta of the tight figure: kTightDelta (the composition's) + sampler_delta.
  double tight_delta = std::numeric_limits<double>::quiet_NaN();
  // The floating-point delta of the snapped releases (l2-Laplace noise drawn in double
  // precision: dvp, pvp, madmm, private_mradmm), max over nodes of each node's sum of
  // SnappedReleaseDelta over its releases; it is also the delta of the paper's figure, which
  // becomes (final.privacy_loss, sampler_delta). 0 for exact samplers (PDML's discrete
  // Gaussian); NaN without a tight figure.
  double sampler_delta = std::numeric_limits<double>::quiet_NaN();
  // RunWarnings(spec, summary), filled in by Experiment::Run.
  std::vector<std::string> warnings;
};

// The warnings a user must not miss, one sentence each (the CLI prints them to stderr, the
// summary lists them, the browser shows them): a node's total epsilon above 10; a delta above
// 1 / (the node's number of records); test accuracy not 2 points above the test set's
// majority-class rate (the model learned nothing); simulation mode with a privacy mechanism (the
// noise can be regenerated from the seed: not private); rows not clipped to ||x|| <= 1 with a
// privacy mechanism.
std::vector<std::string> RunWarnings(const RunSpec& spec, const RunSummary& summary);

// The names of the figures (trace columns, and summary fields prefixed "info.") of a run of
// `family` that are computed on private data rather than from released values and public test
// data.
std::vector<std::string> PrivateEvaluationFigures(Family family);

class RunObserver {
 public:
  virtual ~RunObserver() = default;
  virtual void OnStart(const RunInfo& /*info*/) {}
  // Called once per reported round, in order, from one thread at a time.
  virtual void OnRound(const RoundMetrics& /*metrics*/) {}
};

struct MpiPlacement;       // dpadmm/placement/mpi_run.h
struct CheckpointOptions;  // dpadmm/persistence/checkpoint.h

class Experiment {
 public:
  // Validates `spec`, loads or generates its data and prepares the run.
  explicit Experiment(RunSpec spec);
  // The same from in-memory data (spec.data's source and paths are ignored; its add_bias and
  // normalize apply as for loaded data). With the data a file source would load, the run is
  // bitwise identical to the file-based one. `test` may be empty (no test metrics).
  Experiment(RunSpec spec, Dataset train, Dataset test);
  // Across MPI ranks (dpadmm/placement/mpi_run.h): collective over placement.comm; this rank
  // keeps only its own nodes' data and runs only their programs. Run()/RunOn() then accept the
  // mpi engine only. Experiment(spec) with spec.engine == mpi is this with MpiPlacement{}.
  Experiment(RunSpec spec, const MpiPlacement& placement);
  ~Experiment();
  Experiment(Experiment&&) noexcept;
  Experiment& operator=(Experiment&&) noexcept;

  const RunSpec& spec() const;
  const RunInfo& info() const;
  const Dataset& train() const;
  const Dataset& test() const;
  // Consensus only (a 2-node placeholder graph and an empty partition for sharing).
  const Graph& graph() const;
  const Partition& partition() const;
  // Consensus: the centralized optimum f*; sharing: the centralized model on all features.
  // Empty if spec.compute_optimum is false.
  const Eigen::VectorXd& optimum() const;

  RunSummary Run(RunObserver* observer = nullptr, const runtime::StopToken* stop = nullptr) const;
  // The same run on another engine or thread count (same data, graph, partition and seed), e.g.
  // to compare engines; the results are bitwise identical to Run()'s. Throws InputError for an
  // unavailable engine or threads < 0.
  RunSummary RunOn(runtime::EngineKind engine, int threads, RunObserver* observer = nullptr,
                   const runtime::StopToken* stop = nullptr) const;

  // Run() with checkpoints and/or resumed from one (dpadmm/persistence/checkpoint.h; every
  // algorithm and engine; under MPI every rank calls it). Throws InputError for a checkpoint that
  // cannot be read or was written for a different spec.
  RunSummary RunCheckpointed(const CheckpointOptions& options, RunObserver* observer = nullptr,
                             const runtime::StopToken* stop = nullptr) const;

  struct Driver;  // the family's driver (run/driver.h)

 private:
  friend class Party;  // dpadmm/party.h: one party of a network run
  explicit Experiment(std::unique_ptr<Driver> driver);
  std::unique_ptr<Driver> driver_;
};

// Convenience: Experiment(spec).Run(observer, stop).
RunSummary RunExperiment(const RunSpec& spec, RunObserver* observer = nullptr,
                         const runtime::StopToken* stop = nullptr);

// Test error (fraction misclassified, sign(0) counts as +1) of model f on data (NaN if empty).
double TestError(const Dataset& data, const Eigen::VectorXd& f);
// Mean log loss (1/N) sum_n log(1 + exp(-y_n x_n^T f)) of model f on data (NaN if empty).
double MeanLogLoss(const Dataset& data, const Eigen::VectorXd& f);

}  // namespace dpadmm
