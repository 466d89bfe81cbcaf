// SPDX-License-Identifier: Apache-2.0
// RunSpec: everything that defines a run of either family, with named defaults. The algorithm
// selects the family (consensus or vertical sharing) and its own parameter struct;
// Validate() checks every field and throws InputError naming it
// ("algorithm.dvp.alpha must be > 0 for algorithm 'dvp' (it sets the noise), got 0").
//
// RunSpec{} is the main job: non-private consensus ADMM, 10 nodes on a random connected graph
// with 13 edges ("auto"), logistic regression on generated twonorm data.
// RunSpec::Defaults(Algorithm::kSharing) is the sharing family's default: 2 parties on
// generated sparse data (2,000 rows x 200 features, every column informative).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

#include "dpadmm/run/choices.h"
#include "dpadmm/runtime/engine.h"
#include "dpadmm/solver/local_solver.h"
#include "dpadmm/solver/loss.h"

namespace dpadmm {

struct DataSpec {
  DataSource source = DataSource::kTwonorm;
  std::string train_path;  // file sources
  std::string test_path;   // optional for libsvm/csv/asc (else a seeded split); required for adult
  std::string train_labels_path;  // asc only
  std::string test_labels_path;   // asc only
  std::int64_t num_features = 0;  // libsvm: 0 = infer
  int label_column = -1;          // csv
  char delimiter = ',';           // csv
  bool has_header = false;        // csv
  std::int64_t rows = 7400;       // generated sources: rows before the split
  std::int64_t dims = 20;         // twonorm/ringnorm; sparse: features
  // sparse only: informative columns (the first ones), nonzeros per row, label-flip
  // probability (generators.h, SparseHighDimOptions; informative and nnz clamped to dims).
  std::int64_t sparse_informative = 50;
  std::int64_t sparse_nnz_per_row = 100;
  double sparse_flip_probability = 0.05;
  double test_fraction = 0.3;  // when no test file: share of rows held out, in (0, 1)
  // false: rows unchanged whatever `scaling` says (the same as scaling "none").
  bool normalize = true;
  // How every node prepares its rows (and the public test rows) before training
  // (data/preprocessing.h). kAuto resolves by EffectiveScaling(). In private mode (a private
  // algorithm without noise_seed) global-max-norm is refused: its factor depends on every
  // party's data.
  Scaling scaling = Scaling::kAuto;
  // Public per-feature bounds (public-bounds scaling): a file of one "lo hi" line per feature
  // in column order, or "index lo hi" lines (0-based feature index; features not listed take
  // feature_range); '#' starts a comment.
  std::string feature_bounds_path;
  // Public bounds [lo, hi] of every feature not given by feature_bounds_path; empty = none.
  // With dp-bounds: the bounds of a feature whose estimate found no occupied bin.
  std::vector<double> feature_range;
  // dp-bounds scaling: the epsilon each node spends on its bounds release (pure epsilon-DP,
  // composed with the run's releases; privacy/bounds_release.h). Required (> 0) for dp-bounds.
  double bounds_epsilon = 0.0;
  // dp-standardize scaling: the epsilon each node spends on its noisy per-feature sums (pure
  // epsilon-DP, composed with the run's releases; privacy/standardize_release.h). Required
  // (> 0) for dp-standardize. Its clipping bounds are public (feature_bounds_path /
  // feature_range) or, with bounds_epsilon > 0, estimated as dp-bounds estimates them first.
  double standardize_epsilon = 0.0;
  // Append a constant feature 1 to every row (train and test) before normalisation: an
  // intercept term (regularised like the other weights).
  bool add_bias = false;
};

// Consensus family only.
struct GraphSpec {
  Topology topology = Topology::kRandom;
  int nodes = 10;
  // random only; kAutoEdges = derived from the node count (AutoEdges: 13 for 10 nodes).
  static constexpr int kAutoEdges = 0;
  int edges = kAutoEdges;
  int grid_rows = 0;  // grid: rows x (nodes / rows); 0 = as square as possible
  std::string file;   // file only

  // About 1.3 edges per node (the main job's 13 edges on 10 nodes), within [n - 1, n(n-1)/2].
  static int AutoEdges(int nodes);
  // `edges`, or AutoEdges(nodes) when it is kAutoEdges.
  int EffectiveEdges() const { return edges == kAutoEdges ? AutoEdges(nodes) : edges; }
};

// Consensus family only.
struct PartitionSpec {
  PartitionKind kind = PartitionKind::kEven;
  std::vector<double> proportions;  // proportional: one per node
  double dirichlet_alpha = 1.0;     // dirichlet
  std::string file;                 // file
  // The row count of every node, declared public (empty: none). Checked against the rows each
  // node gets; a party (which sees only its own rows) reads the other parties' counts here, so
  // that the epsilon policy, the calibration and row weighting run in party mode too.
  std::vector<std::int64_t> public_rows;
};

// --- Per-algorithm parameters -------------------------------------------------------------
// Each struct lists its fields once (Visit: used by the JSON reader/writer and the CLI) and
// validates them naming the field under `prefix` ("algorithm.dvp."). Per-node vectors, when not
// empty, hold one value per node and replace the scalar for that node.

// admm, radmm share nothing beyond AlgorithmSpec's consensus fields (radmm adds gamma).
struct AdmmParams {
  static constexpr Algorithm kAlgorithm = Algorithm::kAdmm;
  template <class S, class V>
  static void Visit(S&, V&&) {}
  void Validate(const std::string&, int) const {}
};

// The noise schedule of the perturbation variants: alpha_i(t) = alpha q2^(t-1) (002, 004).
// alpha = 0 turns the noise off (the non-private algorithm).
struct NoiseSchedule {
  double alpha = 0.0;
  double q2 = 1.0;
  std::vector<double> node_alpha, node_q2;
};

struct DvpParams : NoiseSchedule {  // 004 Algorithm 2
  static constexpr Algorithm kAlgorithm = Algorithm::kDvp;
  template <class S, class V>
  static void Visit(S& s, V&& v) {
    v("alpha", s.alpha);
    v("q2", s.q2);
    v("node_alpha", s.node_alpha);
    v("node_q2", s.node_q2);
  }
  void Validate(const std::string& prefix, int nodes) const;
};

// Primal variable perturbation: the exact ADMM update released with output noise.
//   mechanism "laplace" (the paper's): l2-Laplace noise, alpha_i(t)-DP per release (alpha, q2).
//   mechanism "gaussian": N(0, sigma_i^2 I) as the exact discrete Gaussian on a lattice, with
//     sigma_i = noise_multiplier * Delta_i and Delta_i = 2 (C/B_i) / (rho_i + 2 eta_i V_i) the
//     update's L2 sensitivity; every release is a Gaussian mechanism, composed exactly by the
//     accountant (mu^2 adds up over rounds). alpha, q2 and the per-round budget are not used.
struct PvpParams : NoiseSchedule {
  static constexpr Algorithm kAlgorithm = Algorithm::kPvp;
  std::string mechanism = "laplace";  // "laplace" | "gaussian"
  double noise_multiplier = 0.0;      // gaussian: sigma_i / Delta_i, > 0
  template <class S, class V>
  static void Visit(S& s, V&& v) {
    DvpParams::Visit(s, v);
    v("mechanism", s.mechanism);
    v("noise_multiplier", s.noise_multiplier);
  }
  bool gaussian() const { return mechanism == "gaussian"; }
  void Validate(const std::string& prefix, int nodes) const;
};

struct MadmmParams : NoiseSchedule {  // 002
  static constexpr Algorithm kAlgorithm = Algorithm::kMadmm;
  // Penalty growth eta_i(t) = eta q1^(t-1) (002: eta_i(t+1) = theta q1^t); >= 1.
  double q1 = 1.0;
  double dual_step = 0.0;  // dual step theta (0 = eta_i(1))
  std::vector<double> node_q1;
  template <class S, class V>
  static void Visit(S& s, V&& v) {
    DvpParams::Visit(s, v);
    v("q1", s.q1);
    v("dual_step", s.dual_step);
    v("node_q1", s.node_q1);
  }
  void Validate(const std::string& prefix, int nodes) const;
};

struct RadmmParams {  // 003 Algorithm 1
  static constexpr Algorithm kAlgorithm = Algorithm::kRadmm;
  double gamma = 0.5;  // even-step term gamma >= 0 (003 eq. (10))
  template <class S, class V>
  static void Visit(S& s, V&& v) {
    v("gamma", s.gamma);
  }
  void Validate(const std::string& prefix, int nodes) const;
};

struct MradmmParams {  // 003 Algorithm 2
  static constexpr Algorithm kAlgorithm = Algorithm::kMradmm;
  double gamma = 0.5;
  double q1 = 1.0;  // eta_i(2k-1) = eta q1^k (003 Fig. 5: 1.04^k); >= 1
  std::vector<double> node_q1;
  template <class S, class V>
  static void Visit(S& s, V&& v) {
    v("gamma", s.gamma);
    v("q1", s.q1);
    v("node_q1", s.node_q1);
  }
  void Validate(const std::string& prefix, int nodes) const;
};

struct PrivateMradmmParams : NoiseSchedule {  // 003 Algorithm 3, alpha_i(k) = alpha q2^(k-1)
  static constexpr Algorithm kAlgorithm = Algorithm::kPrivateMradmm;
  double gamma = 0.5;
  double q1 = 1.0;
  std::vector<double> node_q1;
  template <class S, class V>
  static void Visit(S& s, V&& v) {
    v("gamma", s.gamma);
    v("q1", s.q1);
    v("node_q1", s.node_q1);
    DvpParams::Visit(s, v);
  }
  void Validate(const std::string& prefix, int nodes) const;
};

// PDML (000). Uses C (the paper's (1) has C = 1), rho (= the paper's a, carried as a/N per
// node) and eta (= the paper's beta) of AlgorithmSpec.
struct PdmlParams {
  static constexpr Algorithm kAlgorithm = Algorithm::kPdml;
  // Label privacy of every user: eps-LDP by randomized response (000 (12)-(13)); 0 = labels
  // reported truthfully (no Phase 1 randomization, plain loss). Finite, >= 0.
  double label_eps = 0.0;
  // Heterogeneous label privacy: group k has eps label_eps_groups[k] (0 = truthful) and each
  // user joins it with probability label_eps_shares[k] (seeded draw; shares > 0, sum 1).
  std::vector<double> label_eps_groups, label_eps_shares;
  double R = 0.0;      // bound R of the objective noise ||eta_i||_2 <= R (14); 0 = none
  double V = 0.0;      // primal noise theta_i(t) ~ N(0, decay^(t-1) V^2 I) (16); 0 = none
  double decay = 0.8;  // decay rate of that variance, in (0, 1] (000 Fig. 3-4: 0.8)
  template <class S, class V>
  static void Visit(S& s, V&& v) {
    v("label_eps", s.label_eps);
    v("label_eps_groups", s.label_eps_groups);
    v("label_eps_shares", s.label_eps_shares);
    v("R", s.R);
    v("V", s.V);
    v("decay", s.decay);
  }
  void Validate(const std::string& prefix, int nodes) const;
};

// How the feature columns are split over the parties (both sharing algorithms).
struct PartyLayout {
  int parties = 2;  // M >= 1
  // Feature count of each party, in column order (party 1 first); must sum to the number of
  // features. Empty: an even split (the first d mod M parties get one more column).
  std::vector<std::int64_t> party_features;
  double lambda = 1e-4;  // regulariser weight of (1/N) sum log-loss + lambda sum ||x_m||^2 / 2
};

// ADMM sharing, 001 Algorithm 1 (eqs. (6)-(8)); with dp its private version (16).
struct SharingParams : PartyLayout {
  static constexpr Algorithm kAlgorithm = Algorithm::kSharing;
  // ADMM penalty, > 0. The loss is the AVERAGE over N rows, so its curvature is at most 1/(4N):
  // rho of about 0.3/N .. 1/N works well (a9a, N = 32,561: 1e-5). The default suits the
  // default data (N = 1,400).
  double rho = 5e-4;
  // The coordinator's per-sample z update (safeguarded Newton): stop when every sample's
  // Newton step is below z_tolerance * max(1, |z_n|); fail (diverged) after z_max_iterations.
  double z_tolerance = 1e-13;
  int z_max_iterations = 100;
  // Differential privacy (algorithms/sharing/README.md). mechanism "gaussian" (default): each
  // party releases D_m x_m + N(0, sigma^2 I_N) (exact discrete Gaussian on the lattice) with
  // ||x_m|| <= b1 enforced; sigma calibrated so that the T iterations together are
  // (total_epsilon, delta)-DP per party (tight: analytic Gaussian, mu^2 summed over iterations).
  // mechanism "paper16": 001 (16), x~_m = x_m + N(0, sigma_m^2 (D_m^T D_m)^{-1}) with Theorem
  // 3's sigma - NOT DP as stated (the noise covariance is made of the private data: releases
  // lie in col(D_m)); kept to reproduce 001.
  bool dp = false;
  std::string mechanism = "gaussian";  // "gaussian" | "paper16"
  double total_epsilon = 2.0;          // gaussian: per party over all iterations, > 0
  double epsilon = 1.0;                // paper16: per iteration and party, in (0, 1] (Theorem 3)
  // > 0: use this sigma for every party instead of the calibrated one; the reported epsilon
  // is then the value for it (gaussian: tight; paper16: Theorem 3's, maybe beyond eps <= 1).
  double noise_sigma = 0.0;
  // gaussian: the total delta per party; paper16: per iteration and party. In (0, 1).
  double delta = 1e-5;
  double delta_prime = 1e-5;  // paper16: Corollary 1's delta', in (0, 1)
  // gaussian: enforced bound on ||x_m|| (the x step's constraint); paper16: Assumption 2.1's
  // assumed bound on ||x_m|| and ||y|| (not enforced).
  double b1 = 100.0;
  double c1 = 1.0;  // Assumption 2.2: bound on |R''| (1 for R = ||.||^2/2), >= 0
  template <class S, class V>
  static void Visit(S& s, V&& v) {
    v("parties", s.parties);
    v("party_features", s.party_features);
    v("lambda", s.lambda);
    v("rho", s.rho);
    v("z_tolerance", s.z_tolerance);
    v("z_max_iterations", s.z_max_iterations);
    v("dp", s.dp);
    v("mechanism", s.mechanism);
    v("total_epsilon", s.total_epsilon);
    v("epsilon", s.epsilon);
    v("noise_sigma", s.noise_sigma);
    v("delta", s.delta);
    v("delta_prime", s.delta_prime);
    v("b1", s.b1);
    v("c1", s.c1);
  }
  void Validate(const std::string& prefix, int nodes) const;
};

// The SGD-based method for distributed features (001's baseline, FDML).
struct SgdParams : PartyLayout {
  static constexpr Algorithm kAlgorithm = Algorithm::kSgd;
  double learning_rate = 0.5;  // step of epoch e: learning_rate / (1 + lr_decay (e - 1)), > 0
  double lr_decay = 0.0;       // >= 0
  int batch_size = 64;         // >= 1
  double init_sd = 0.01;       // initial weights ~ N(0, init_sd^2) (001: "random numbers"), >= 0
  template <class S, class V>
  static void Visit(S& s, V&& v) {
    v("parties", s.parties);
    v("party_features", s.party_features);
    v("lambda", s.lambda);
    v("learning_rate", s.learning_rate);
    v("lr_decay", s.lr_decay);
    v("batch_size", s.batch_size);
    v("init_sd", s.init_sd);
  }
  void Validate(const std::string& prefix, int nodes) const;
};

// The baselines (local, average, central; consensus/baseline_nodes.h): each node's one release
// of the minimiser of (C/B_i) sum L + (rho_i/2)||f||^2 (C, rho, rho_per_node of AlgorithmSpec;
// central: one node holding every row, with the rho_i of the parties' nodes) through
// `mechanism` (privacy/baseline_mechanisms.h):
//   "objective"  objective perturbation (Chaudhuri, Monteleoni and Sarwate 2011, Algorithm 2):
//                pure epsilon-DP per node;
//   "gaussian"   Gaussian output perturbation of the exact minimiser: (epsilon, delta)-DP per
//                node, sigma from the analytic Gaussian.
// The run's iterations: local and central resend their release (no cost); average gossips.
struct BaselineParams {
  std::string mechanism = "objective";  // "objective" | "gaussian"
  double epsilon = 1.0;                 // > 0 and finite
  double delta = 1e-5;                  // gaussian: in (0, 1) (objective: not used)
  template <class S, class V>
  static void Visit(S& s, V&& v) {
    v("mechanism", s.mechanism);
    v("epsilon", s.epsilon);
    v("delta", s.delta);
  }
  void Validate(const std::string& prefix, int nodes) const;
};
struct LocalParams : BaselineParams {
  static constexpr Algorithm kAlgorithm = Algorithm::kLocal;
};
struct AverageParams : BaselineParams {
  static constexpr Algorithm kAlgorithm = Algorithm::kAverage;
};
struct CentralParams : BaselineParams {
  static constexpr Algorithm kAlgorithm = Algorithm::kCentral;
};
bool IsBaseline(Algorithm algorithm);

// One alternative per Algorithm, in the order of the enum.
using AlgorithmParams = std::variant<AdmmParams, DvpParams, PvpParams, MadmmParams, RadmmParams,
                                     MradmmParams, PrivateMradmmParams, PdmlParams, SharingParams,
                                     SgdParams, LocalParams, AverageParams, CentralParams>;

// Default parameters of `algorithm`.
AlgorithmParams DefaultParams(Algorithm algorithm);

struct AlgorithmSpec {
  AlgorithmParams params;  // the algorithm is the alternative held (name())
  Algorithm name() const;

  // Shared by the consensus family (the sharing family must leave them at their defaults).
  double C = 1750.0;          // loss weight C (per row of node i: C_i / B_i, NodeLossWeight)
  double rho = 0.22;          // regulariser weight
  bool rho_per_node = false;  // false: each node carries rho / N (003's O(f, D_i));
                              // true: each node carries rho (004's DR-ERM (3))
  double eta = 0.5;           // ADMM penalty; M-ADMM theta; MR-ADMM base penalty; PDML beta
  bool random_start = false;  // f_i(0) ~ N(0, 1/d) per coordinate (seeded) instead of 0
  // node: C_i = C, every node's loss is its average (a row of node i weighs C / B_i); row:
  // C_i = C B_i / B_bar, every row weighs C / B_bar and the nodes' problems sum to N times the
  // centralized one (B_bar = the training rows / N; the rows per node are public). average:
  // the releases are local's and row makes the gossip converge to the B_i-weighted mean.
  // Not for local, central (no consensus problem), pdml, nor a party (the other parties' B_i
  // are not known to it).
  Weighting weighting = Weighting::kNode;
  // The last gossip_rounds of the run's iterations average the nodes' releases over the graph
  // (x_i <- x_i + sum_j w_ij (x_j - x_i), Metropolis-Hastings weights): post-processing of
  // released values at no privacy cost, after which every node holds (close to) the mean of the
  // last private round's releases. 0 = none; < iterations. admm, dvp, pvp, madmm, radmm,
  // mradmm and private_mradmm (average gossips by itself; local, central, pdml: not used).
  int gossip_rounds = 0;
  std::vector<double> node_eta;
  // Every node's privacy budget (as the paper of the algorithm states the loss), enforced by
  // the node's release: a round that would take the node's spent loss above it is refused and
  // the node freezes (resends its last release). The run ends with outcome "budget exhausted"
  // once every private node has frozen. 0 = no budget.
  double privacy_budget = 0.0;
  // Per-node budgets (one per node, each >= 0, 0 = none); replace privacy_budget when not empty.
  std::vector<double> node_privacy_budget;

  // The parameters of algorithm P (precondition: P is the selected algorithm's struct;
  // std::bad_variant_access otherwise).
  template <class P>
  P& As() {
    return std::get<P>(params);
  }
  template <class P>
  const P& As() const {
    return std::get<P>(params);
  }
  // Switches to `algorithm` with its default parameters (no-op if it is already selected).
  void Select(Algorithm algorithm);

  // The field named `key` (as in the JSON, e.g. "alpha") of the selected algorithm's struct if
  // it has one of type T, else nullptr: access by name, for front ends and sweeps.
  template <class T>
  T* Field(std::string_view key) {
    T* out = nullptr;
    std::visit(
        [&](auto& p) {
          std::decay_t<decltype(p)>::Visit(p, [&](const char* k, auto& field) {
            if constexpr (std::is_same_v<std::decay_t<decltype(field)>, T>) {
              if (key == k) out = &field;
            }
          });
        },
        params);
    return out;
  }
  template <class T>
  const T* Field(std::string_view key) const {
    return const_cast<AlgorithmSpec*>(this)->Field<T>(key);
  }
};

// Node i's loss weight C_i under `a.weighting` (the node's rows each weigh C_i / B_i): C, or
// C B_i / B_bar with B_bar the mean of rows_per_node. InputError if `node` is out of range or
// a count is < 1 under row weighting.
double NodeLossWeight(const AlgorithmSpec& a, const std::vector<std::int64_t>& rows_per_node,
                      std::size_t node);

struct RunSpec {
  DataSpec data;
  GraphSpec graph;
  PartitionSpec partition;
  Loss loss;
  AlgorithmSpec algorithm;
  NewtonOptions newton;
  int iterations = 100;    // ADMM rounds after round 0 (sharing: iterations / SGD epochs)
  std::uint64_t seed = 1;  // data, graph, partition, random start, SGD order (never noise)
  // Set: simulation mode, every node's noise key is derived from this seed (reproducible bit
  // for bit, NOT private). Unset: private mode, keys from the operating system's entropy.
  std::optional<std::uint64_t> noise_seed;
  // Which figures the run computes and outputs (MetricsScope).
  MetricsScope metrics = MetricsScope::kAuto;
  runtime::EngineKind engine = runtime::EngineKind::kTbb;
  int threads = 0;  // 0 = all cores
  // Consensus: solve the centralized problem and report the distance to it. Sharing: solve the
  // centralized and the first party's local logistic regressions (baselines in RunInfo).
  bool compute_optimum = true;
  // Consensus only. Stop ("converged") on an evaluated round (metrics_every) once the mean model
  // moved by <= this * max(1, ||mean f||) in the last round and max_i ||f_i - mean f|| is <= that
  // too (every pair of nodes within twice it); 0 = never.
  double tolerance = 0.0;
  // Consensus only (JSON "eval_every", older "metrics_every"). Metrics, observer and tolerance
  // check every this many rounds and at the last (0 = round 0, last); privacy: every round.
  int metrics_every = 1;
  // > 0: before the run, the algorithm's noise knob is set so that the run's tight total epsilon
  // per node (max over nodes; sharing: per party) at kTightDelta (sharing: its delta) equals
  // this (tools/calibration.h: dvp, pvp, madmm, private_mradmm: alpha; sharing with dp:
  // total_epsilon; local, average, central: their epsilon, set directly). The knob's value in
  // the spec is only the bisection's start. 0 = off.
  double target_epsilon = 0.0;
  // With target_epsilon > 0: true (the default) lets the epsilon policy choose the algorithm's
  // rounds, loss weight, regulariser, penalty and mechanism from public quantities only
  // (tools/epsilon_policy.h) before the noise knob is calibrated; false keeps every setting as
  // given and calibrates only the knob (the papers' settings, e.g. their reproductions).
  bool epsilon_policy = true;

  Family family() const { return FamilyOf(algorithm.name()); }
  NoiseMode noise_mode() const { return noise_seed ? NoiseMode::kSimulation : NoiseMode::kPrivate; }

  // The defaults of `algorithm`'s family with that algorithm selected (the sharing family's
  // data default differs: generated sparse 2,000 x 200, every column informative). Every
  // private algorithm starts private and learns on the default data: dvp, pvp, madmm and
  // private_mradmm with noise (alpha > 0), pdml with the browser's label eps 1, V 0.5, decay 1,
  // R 1 (C 1, rho 0.01, eta 0.1); MakeNonPrivate turns the noise off. (sharing is ADMM sharing,
  // non-private, unless dp is set.)
  static RunSpec Defaults(Algorithm algorithm);

  void Validate() const;
};

// The rounds of `spec` that run its algorithm (and may release with noise): iterations minus the
// gossip rounds that end the run.
std::int64_t AlgorithmRounds(const RunSpec& spec);

// True if the run's algorithm releases through a privacy mechanism: dvp, pvp, madmm and
// private_mradmm with noise (alpha or node_alpha > 0), pdml with label_eps (or groups), R or V,
// sharing with dp. Non-private algorithms (admm, radmm, mradmm, sgd) and noise-free settings
// are not.
// The loosest Newton gradient tolerance a private consensus variant (dvp, pvp, madmm,
// private_mradmm with noise) accepts: their proofs (004 Theorem 1, PVP, 002, 003 Theorem V.1)
// assume the exact minimiser of the perturbed local problem, and a private round whose solve
// does not converge fails the run naming node and round.
inline constexpr double kPrivateNewtonTolerance = 1e-8;
// The delta at which every private consensus run reports its tight (epsilon, delta) per node.
inline constexpr double kTightDelta = 1e-5;
bool UsesPrivacyMechanism(const RunSpec& spec);
// Turns the selected algorithm's noise off (`dpadmm run --non-private`): labels truthful,
// R = V = 0 (pdml); dp false (sharing). Every private algorithm's defaults (RunSpec::Defaults)
// are private; this is the one explicit step to its non-private setting. dvp, pvp, madmm and
// private_mradmm need alpha > 0: InputError naming their non-private counterpart (admm,
// mradmm). Non-private algorithms are left as they are.
void MakeNonPrivate(RunSpec& spec);
// The run's outputs are bound by the guarantee: a privacy mechanism in private mode.
inline bool PrivateRun(const RunSpec& spec) {
  return UsesPrivacyMechanism(spec) && spec.noise_mode() == NoiseMode::kPrivate;
}
// spec.metrics with kAuto resolved: released-only for a PrivateRun, else all.
MetricsScope EffectiveMetrics(const RunSpec& spec);
// spec.data.scaling with kAuto resolved (normalize = false gives kNone): unless PrivateRun,
// standardize when `raw_units`, else global-max-norm; in a PrivateRun public-bounds when
// feature_bounds_path or feature_range is given, else clip-only (dp-standardize spends budget:
// only when asked for). `raw_units`: the training rows are raw-unit data (RawUnitSource and
// HasRawUnits of data/standardization.h), known once they are loaded; the one-argument form is
// the resolution before that (raw_units = false).
Scaling EffectiveScaling(const RunSpec& spec, bool raw_units);
// Whether rows of this origin can be raw-unit data: a CSV file (data.source csv), or rows given
// in memory unless data.source names another file format (so that in-memory rows run as the
// file they could have been loaded from). Generated sets, Adult (scaled to [0, 1] by its
// loader), LIBSVM (sparse) and the Raetsch .asc sets (published standardized) never are.
inline bool RawUnitSource(const RunSpec& spec, bool in_memory) {
  const DataSource source = spec.data.source;
  return source == DataSource::kCsv || (in_memory && IsGenerated(source));
}
inline Scaling EffectiveScaling(const RunSpec& spec) { return EffectiveScaling(spec, false); }
// The pure epsilons each node spends at set-up, before round 1, in order: the dp-bounds release
// (dp-bounds, or dp-standardize with bounds_epsilon > 0), then the dp-standardize release; each
// the requested epsilon rounded down to 2^-20 as the mechanism accounts it. Empty for the other
// scalings.
std::vector<double> SetupReleaseEpsilons(const RunSpec& spec);
// Their sum, in order (the paper's figure's basic composition).
inline double SetupEpsilonSum(const std::vector<double>& epsilons) {
  double sum = 0.0;
  for (double e : epsilons) sum += e;
  return sum;
}

}  // namespace dpadmm
