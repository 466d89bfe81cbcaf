// Running an experiment: spec in, per-round metrics to an observer, a RunSummary out.
//
//   dpadmm::RunSpec spec;                 // defaults: the main job
//   spec.graph.nodes = 20;
//   dpadmm::Experiment exp(spec);         // loads/generates data, builds graph and partition
//   dpadmm::RunSummary s = exp.Run(&observer, &stop_token);
//
// Bad input throws InputError (at construction). Everything that happens during the run is an
// outcome in the summary: completed, converged, cancelled, diverged (with node and round).
// Thread safety: an Experiment is immutable after construction; Run() may be called from
// several threads at once (each call builds its own node programs and engine state).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <Eigen/Dense>

#include "dpadmm/data/dataset.h"
#include "dpadmm/graph/graph.h"
#include "dpadmm/data/preprocessing.h"
#include "dpadmm/experiment/run_spec.h"
#include "dpadmm/runtime/engine.h"

namespace dpadmm {

struct RoundMetrics {
  std::int64_t round = 0;
  double seconds = 0.0;          // wall time since the start of the run
  double train_loss = 0.0;       // L(t) = (1/N) sum_i (1/B_i) sum_n L(y f_i(t)^T x)   (papers)
  double objective = 0.0;        // sum_i [(C/B_i) sum_n L(y f_i^T x) + (rho/N) ||f_i||^2 / 2]
  double test_error = 0.0;       // misclassification rate of mean_i f_i(t) on the test set
  double consensus_gap = 0.0;    // max_{i,j} ||f_i(t) - f_j(t)||_2
  double distance_to_optimum = 0.0;  // max_i ||f_i(t) - f*|| / ||f*|| (NaN if not computed)
  // Privacy, as the algorithm's paper states it (0 for non-private algorithms):
  // DVP/PVP: max_i sum_{s<=t} alpha_i(s) (plain composition of the dynamic alpha_i(s)-DP);
  // M-ADMM: P(t) of 002; private MR-ADMM: beta of 003 eq. (32) up to round t.
  double privacy_loss = 0.0;
  double privacy_round = 0.0;           // max_i of what round t added
  std::vector<double> node_privacy;     // per node: accumulated privacy loss up to round t
  std::vector<double> node_noise;       // per node: noise parameter drawn in round t (0: none)
  // Per node: ||f_i(t) - mean_j f_j(t)||_2, how far node i is from consensus (the browser demo
  // colours nodes by it). Not part of the CSV/JSON trace formats.
  std::vector<double> node_distance;
};

// What the run is about, known before round 0.
struct RunInfo {
  std::string dataset;
  std::int64_t train_rows = 0, test_rows = 0, features = 0;
  bool sparse = false;
  double normalization_factor = 1.0;  // rows were multiplied by this (1 = unchanged)
  double max_row_norm_before = 0.0;
  int nodes = 0, edges = 0;
  std::vector<std::int64_t> rows_per_node;
  std::string algorithm, loss, engine;
  int threads = 0;
  double optimum_objective = 0.0;  // NaN if not computed
  double optimum_test_error = 0.0; // NaN if not computed
  // Empty when f* was solved to tolerance; otherwise why the distances are approximate or absent.
  std::string optimum_note;
  // What the reported privacy loss means for this algorithm (one sentence, names the paper).
  std::string privacy_guarantee;
};

enum class RunOutcome { kCompleted, kConverged, kCancelled, kDiverged, kBudgetExhausted };
const char* ToString(RunOutcome outcome);

struct RunSummary {
  RunOutcome outcome = RunOutcome::kCompleted;
  std::string message;  // human-readable termination reason (names node and round on divergence)
  RunInfo info;
  std::int64_t rounds = 0;       // last reported round
  RoundMetrics final;            // metrics of the last reported round
  Eigen::VectorXd model;         // mean_i f_i at the last reported round
  // Per node: the round in which its release refused to exceed its privacy budget and the node
  // froze (resending its last release from then on), or -1.
  std::vector<std::int64_t> node_frozen_round;
  double seconds = 0.0;
};

class RunObserver {
 public:
  virtual ~RunObserver() = default;
  virtual void OnStart(const RunInfo& /*info*/) {}
  // Called once per round, in order, from one thread at a time.
  virtual void OnRound(const RoundMetrics& /*metrics*/) {}
};

class Experiment {
 public:
  explicit Experiment(RunSpec spec);
  ~Experiment();
  Experiment(Experiment&&) noexcept;
  Experiment& operator=(Experiment&&) noexcept;

  const RunSpec& spec() const;
  const RunInfo& info() const;
  const Dataset& train() const;
  const Dataset& test() const;
  const Graph& graph() const;
  const Partition& partition() const;
  // The centralized optimum f* (empty if spec.compute_optimum is false).
  const Eigen::VectorXd& optimum() const;

  RunSummary Run(RunObserver* observer = nullptr,
                 const runtime::StopToken* stop = nullptr) const;
  // The same run on another engine or thread count (same data, graph, partition and seed), e.g.
  // to compare engines; the results are bitwise identical to Run()'s. Throws InputError for an
  // unknown or unavailable engine or threads < 0.
  RunSummary RunOn(const std::string& engine, int threads, RunObserver* observer = nullptr,
                   const runtime::StopToken* stop = nullptr) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Convenience: Experiment(spec).Run(observer, stop).
RunSummary RunExperiment(const RunSpec& spec, RunObserver* observer = nullptr,
                         const runtime::StopToken* stop = nullptr);

// Test error (fraction misclassified, sign(0) counts as +1) of model f on data.
double TestError(const Dataset& data, const Eigen::VectorXd& f);

}  // namespace dpadmm
