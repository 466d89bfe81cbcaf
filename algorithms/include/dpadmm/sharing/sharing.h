// Learning over vertically partitioned features: ADMM sharing (paper 001, Algorithm 1, parallel
// updates (6)-(8)), its differentially private version (16), and the baselines of 001's
// experiments (the SGD-based method for distributed features, logistic regression on all
// features and on the first party's features only).
//
// Parties m = 1..M hold column blocks D_m (N x d_m) of the same N training rows; a coordinator
// holds the labels. Nobody shares features or weights: per iteration each party sends one value
// per sample (its partial score D_m x_m) and receives sum_k D_k x_k - z and y. The problem is
//
//     min_x  (1/N) sum_n log(1 + exp(-y_n sum_m (D_m x_m)_n))  +  lambda sum_m ||x_m||^2 / 2,
//
// the "training objective" of every trace (mean log loss + lambda sum_m ||x_m||^2 / 2).
//
//   dpadmm::SharingSpec spec;                 // defaults: generated data, 2 parties, no DP
//   dpadmm::SharingExperiment exp(spec);      // loads/generates data, splits the columns
//   dpadmm::SharingSummary s = exp.Run(&observer, &stop_token);
//
// Bad input throws InputError (SharingSpec::Validate, construction). Everything that happens
// during a run is an outcome in the summary: completed, cancelled, diverged (naming the node,
// i.e. the coordinator or party m, and the round).
// Thread safety: a SharingExperiment is immutable after construction; Run() may be called from
// several threads at once.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <Eigen/Dense>

#include "dpadmm/data/dataset.h"
#include "dpadmm/experiment/run.h"
#include "dpadmm/experiment/run_spec.h"
#include "dpadmm/runtime/engine.h"

namespace dpadmm {

struct SharingSpec {
  // Data: the same sources as RunSpec (generated twonorm/ringnorm/sparse, libsvm, adult, csv,
  // asc). Default: the built-in sparse high-dimensional generator, 2,000 rows x 200 features
  // (no files needed). data.normalize (default true) scales all rows by one factor so that the
  // largest row norm is 1; then every row of every D_m has norm <= 1 (001 Assumption 2.3).
  DataSpec data = DefaultData();
  // data.source = "sparse" only: the generator's informative columns (the first ones), nonzeros
  // per row and label-flip probability (generators.h, SparseHighDimOptions; clamped to dims).
  // Default: every column of the default data informative, so that every party's block carries
  // signal and sharing beats the local-only model.
  std::int64_t sparse_informative = 200;
  std::int64_t sparse_nnz_per_row = 100;
  double sparse_flip_probability = 0.05;
  // "admm": ADMM sharing, 001 Algorithm 1 (eqs. (6)-(8)); with dp = true its private version
  //         (16). Runs on the engines: a coordinator (node 0) and M parties on a star.
  // "sgd":  the SGD-based method for distributed features (001's baseline, FDML): a plain
  //         in-process loop (see sharing.cpp), one trace row per epoch.
  std::string algorithm = "admm";
  int parties = 2;                           // M >= 1
  // Feature count of each party, in column order (party 1 first); must sum to the number of
  // features. Empty: an even split (the first d mod M parties get one more column).
  std::vector<std::int64_t> party_features;
  double lambda = 1e-4;                      // regulariser weight, > 0
  // ADMM penalty, > 0. The loss is the AVERAGE over N rows, so its curvature is at most 1/(4N):
  // rho of about 0.3/N .. 1/N works well (a9a, N = 32,561: 1e-5); much larger rho converges
  // slowly, much smaller rho oscillates. The default suits the default data (N = 1,400).
  double rho = 5e-4;
  int epochs = 20;                           // ADMM iterations (one pass over the data each) / SGD epochs, >= 0
  std::uint64_t seed = 1;                    // data split, noise, SGD initialisation and order
  std::string engine = "tbb";                // "tbb" | "serial" (admm only; bitwise identical)
  int threads = 0;                           // tbb worker threads, >= 0 (0 = all cores)
  // The coordinator's per-sample z update (safeguarded Newton): stop when every sample's
  // Newton step is below z_tolerance * max(1, |z_n|); fail (diverged) after z_max_iterations.
  double z_tolerance = 1e-13;                // > 0
  int z_max_iterations = 100;                // >= 1

  // Differential privacy, 001 (16): x~_m = x_m + xi_m, xi_m ~ N(0, sigma_m^2 (D_m^T D_m)^{-1})
  // with sigma_m from Theorem 3 and the sensitivity bound of Lemma 1.
  bool dp = false;
  double epsilon = 1.0;       // per iteration and party, in (0, 1] (Theorem 3)
  // > 0: use this sigma for every party instead of Theorem 3's (a "noise level", as in 001's
  // Fig. 1(b)/2(b)); the reported epsilon is then the one Theorem 3 gives for it (max over
  // parties), which may exceed Theorem 3's range eps <= 1 (said in privacy_guarantee).
  double noise_sigma = 0.0;
  double delta = 1e-5;        // per iteration and party, in (0, 1)
  double delta_prime = 1e-5;  // Corollary 1's delta', in (0, 1)
  double b1 = 1.0;            // Assumption 2.1: bound on ||x_m|| and ||y|| (assumed, not enforced)
  double c1 = 1.0;            // Assumption 2.2: bound on |R''| (1 for R = ||.||^2/2), >= 0

  // SGD baseline.
  double learning_rate = 0.5;   // step size of epoch e: learning_rate / (1 + lr_decay (e - 1)), > 0
  double lr_decay = 0.0;        // >= 0
  int batch_size = 64;          // >= 1
  double sgd_init_sd = 0.01;    // initial weights ~ N(0, sgd_init_sd^2) (001: "random numbers"), >= 0

  // Solve the centralized problem (all features) and the first party's local problem with the
  // Newton solver, for reference (reported in SharingInfo).
  bool compute_baselines = true;

  static DataSpec DefaultData() {
    DataSpec d;
    d.source = "sparse";
    d.rows = 2000;
    d.dims = 200;
    return d;
  }
  // Throws InputError naming the first invalid field ("sharing.rho must be > 0, got 0").
  void Validate() const;
};

// The centralized and local-only logistic regressions of 001's experiments.
struct SharingBaseline {
  bool computed = false;
  double objective = 0.0;   // mean log loss + lambda ||f||^2 / 2 at the optimum
  double train_loss = 0.0;
  double test_loss = 0.0;   // mean log loss on the test set
  double test_error = 0.0;
};

struct SharingInfo {
  std::string dataset;
  std::int64_t train_rows = 0, test_rows = 0, features = 0;
  bool sparse = false;
  double normalization_factor = 1.0;
  std::vector<std::int64_t> party_features;  // d_m
  std::vector<std::int64_t> party_offsets;   // first column of party m
  std::vector<double> party_max_row_norm;    // max row norm of D_m (Assumption 2.3 wants <= 1)
  std::string algorithm, engine;
  int threads = 0;
  // Privacy (dp only; zeros otherwise): the bounds' parameters as used, Lemma 1's sensitivity and
  // Theorem 3's sigma per party, the rank of D_m^T D_m (noise uses its pseudo-inverse when
  // singular; see sharing.cpp).
  bool dp = false;
  double epsilon = 0.0, delta = 0.0, delta_prime = 0.0, b1 = 0.0, c1 = 0.0;
  std::vector<double> party_sensitivity, party_sigma;
  std::vector<double> party_epsilon;  // per-iteration epsilon of each party (= epsilon unless noise_sigma)
  std::vector<std::int64_t> party_gram_rank;
  std::string privacy_guarantee;
  SharingBaseline central;  // all features
  SharingBaseline local;    // party 1's features only
};

// One ADMM iteration (= one epoch: every sample is touched once) or one SGD epoch.
struct SharingMetrics {
  std::int64_t epoch = 0;
  double seconds = 0.0;             // wall time since the start of the run
  double objective = 0.0;           // mean log loss + lambda sum_m ||x_m||^2 / 2 (released x~)
  double train_loss = 0.0;          // mean log loss on the training set
  double test_loss = 0.0;           // mean log loss on the test set (NaN without test rows)
  double test_error = 0.0;          // misclassification rate on the test set
  double primal_residual = 0.0;     // ADMM: ||sum_m D_m x_m - z||_2 / sqrt(N); SGD: NaN
  double max_x_norm = 0.0;          // max_m ||x_m||_2 (compare with b1)
  double y_norm = 0.0;              // ADMM: ||y||_2 (compare with b1); SGD: NaN
  // Privacy (0 when dp is off): per iteration and party (Theorem 3), and Corollary 1's total
  // over the `epoch` iterations so far.
  double epsilon_iteration = 0.0, delta_iteration = 0.0;
  double epsilon_total = 0.0, delta_total = 0.0;
};

struct SharingSummary {
  RunOutcome outcome = RunOutcome::kCompleted;  // completed, cancelled or diverged
  std::string message;
  SharingInfo info;
  std::int64_t epochs = 0;        // last completed epoch
  SharingMetrics final;
  Eigen::VectorXd model;          // [x_1; ...; x_M] (released values) at the last epoch
  double seconds = 0.0;           // wall time of the iterations
  double seconds_per_epoch = 0.0;
};

class SharingObserver {
 public:
  virtual ~SharingObserver() = default;
  virtual void OnStart(const SharingInfo& /*info*/) {}
  // Epoch 0 (the initial point) and every epoch after it, in order, from one thread at a time.
  virtual void OnEpoch(const SharingMetrics& /*metrics*/) {}
};

class SharingExperiment {
 public:
  explicit SharingExperiment(SharingSpec spec);
  ~SharingExperiment();
  SharingExperiment(SharingExperiment&&) noexcept;
  SharingExperiment& operator=(SharingExperiment&&) noexcept;

  const SharingSpec& spec() const;
  const SharingInfo& info() const;
  const Dataset& train() const;
  const Dataset& test() const;
  // The centralized optimum on all features (empty unless compute_baselines).
  const Eigen::VectorXd& central_model() const;

  SharingSummary Run(SharingObserver* observer = nullptr,
                     const runtime::StopToken* stop = nullptr) const;
  // The same run on another engine / thread count (admm): bitwise identical results.
  SharingSummary RunOn(const std::string& engine, int threads, SharingObserver* observer = nullptr,
                       const runtime::StopToken* stop = nullptr) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Convenience: SharingExperiment(spec).Run(observer, stop).
SharingSummary RunSharing(const SharingSpec& spec, SharingObserver* observer = nullptr,
                          const runtime::StopToken* stop = nullptr);

// Mean log loss (1/N) sum_n log(1 + exp(-y_n x_n^T f)) of model f on data (NaN if empty).
double MeanLogLoss(const Dataset& data, const Eigen::VectorXd& f);

// --- Text formats (JSON spec/summary, CSV trace) ------------------------------------------------
// Applies a JSON object onto `spec` (absent fields keep their value); throws InputError naming
// `where` and the field for syntax errors, unknown fields and wrong types. Shape: see
// SharingSpecToJson, e.g. {"data": {"source": "libsvm", "train_path": "a9a"}, "parties": 2,
// "party_features": [66, 57], "dp": true, "epsilon": 0.5}.
void ApplySharingSpecJson(const std::string& json_text, const std::string& where,
                          SharingSpec& spec);
std::string SharingSpecToJson(const SharingSpec& spec);
std::string SharingSummaryToJson(const SharingSummary& summary);
std::string SharingCsvHeader();
std::string SharingMetricsToCsvRow(const SharingMetrics& metrics);

}  // namespace dpadmm
