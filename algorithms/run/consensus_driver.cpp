// SPDX-License-Identifier: Apache-2.0
// The consensus family's driver (000, 002, 003, 004): graph and partition, the centralized
// optimum, one node program per node on the engine, and the per-round metrics sink.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <map>
#include <mutex>
#include <numeric>
#include <optional>
#include <vector>

#include "consensus/baseline_nodes.h"
#include "consensus/consensus_admm.h"
#include "consensus/pdml_node.h"
#include "data/memory_release.h"
#include "dpadmm/consensus/pdml.h"
#include "dpadmm/core/error.h"
#include "dpadmm/core/random.h"
#include "dpadmm/data/loaders.h"
#include "dpadmm/data/preprocessing.h"
#include "dpadmm/privacy/accounting.h"
#include "dpadmm/privacy/bounds_release.h"
#include "dpadmm/run/spec_json.h"
#include "dpadmm/runtime/mpi.h"
#include "dpadmm/solver/local_solver.h"
#include "dpadmm/tools/epsilon_policy.h"
#include "persistence/checkpoint.h"
#include "placement/placement.h"
#include "run/driver.h"
#include "run/spec_internal.h"
#include "run/tight_trace.h"

#include "core/numbers.h"

namespace dpadmm {
namespace {

Graph BuildGraph(const GraphSpec& g, std::uint64_t seed) {
  switch (g.topology) {
    case Topology::kRing: return MakeRing(g.nodes);
    case Topology::kStar: return MakeStar(g.nodes);
    case Topology::kComplete: return MakeComplete(g.nodes);
    case Topology::kRandom: return MakeRandomConnected(g.nodes, g.EffectiveEdges(), seed);
    case Topology::kFile: return LoadEdgeList(g.file);
    case Topology::kGrid: break;
  }
  int rows = g.grid_rows;
  if (rows == 0) {
    rows = 1;
    for (int r = 1; r * r <= g.nodes; ++r)
      if (g.nodes % r == 0) rows = r;
  }
  return MakeGrid(rows, g.nodes / rows);
}

// A party's partition: its `rows` own rows split among its hosted nodes (increasing id) in
// contiguous blocks whose sizes differ by at most one; the other nodes' entries stay empty.
Partition OwnRowsPartition(std::int64_t rows, const std::vector<int>& hosted, int nodes) {
  const auto k = static_cast<std::int64_t>(hosted.size());
  if (rows < k) {
    throw InputError("party: " + std::to_string(rows) + " training rows for " + std::to_string(k) +
                     " hosted nodes: every node needs at least one row");
  }
  Partition partition(static_cast<std::size_t>(nodes));
  std::int64_t next = 0;
  for (std::int64_t a = 0; a < k; ++a) {
    const std::int64_t size = rows / k + (a < rows % k ? 1 : 0);
    for (std::int64_t r = 0; r < size; ++r) partition[hosted[a]].push_back(next++);
  }
  return partition;
}

Partition BuildPartition(const PartitionSpec& p, std::int64_t rows, int nodes, std::uint64_t seed) {
  if (p.kind == PartitionKind::kEven) return PartitionEven(rows, nodes, seed);
  if (p.kind == PartitionKind::kProportional) {
    if (static_cast<int>(p.proportions.size()) != nodes) {
      throw InputError("partition.proportions must have one value per node (" +
                       std::to_string(nodes) + "), got " + std::to_string(p.proportions.size()));
    }
    return PartitionProportional(rows, p.proportions, seed);
  }
  if (p.kind == PartitionKind::kDirichlet)
    return PartitionDirichlet(rows, nodes, p.dirichlet_alpha, seed);
  return LoadPartition(p.file, rows, nodes);
}

// (1/B) sum_n L(y_n x_n^T f): evaluation only (the node programs report it when they have it).
double MeanLoss(const Dataset& data, const Loss& loss, const Eigen::Ref<const Eigen::VectorXd>& f) {
  const Eigen::VectorXd margins =
      VisitRows(data, [&](const auto& x) -> Eigen::VectorXd { return x * f; });
  double sum = 0.0;
  for (Eigen::Index n = 0; n < margins.size(); ++n) sum += loss.Value(data.y[n] * margins[n]);
  return sum / static_cast<double>(data.rows());
}

std::string ShortNumber(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

double PerNode(const std::vector<double>& values, double scalar, int node) {
  return values.empty() ? scalar : values[static_cast<std::size_t>(node)];
}

std::string PrivacyGuarantee(ConsensusVariant v, bool noisy) {
  if (!noisy) return "none: the algorithm is not private";
  // The papers' theorems assume exactly sampled continuous noise and the exact minimiser; the
  // released values are snapped to the 2^-16 grid and the noise is drawn in double precision,
  // whose floating-point term is a delta in every figure (algorithms/privacy/README.md, "The
  // floating-point term").
  const std::string sampler =
      "; delta: each release adds (1 + e^eps_t) d (2^-27 + 2^-40) for the double-precision "
      "sampler (eps_t its term), composed into the reported delta";
  switch (v) {
    case ConsensusVariant::kDvp:
      return "dynamic alpha_i(t)-DP per node and iteration (004 Theorem 1); the reported total "
             "is the plain composition max_i sum_t alpha_i(t)" +
             sampler;
    case ConsensusVariant::kPvp:
      return "alpha_i(t)-DP per node and release of the exact primal update (primal variable "
             "perturbation); the reported total is the plain composition max_i sum_t "
             "alpha_i(t)" +
             sampler;
    case ConsensusVariant::kMadmm:
      return "total privacy loss over the whole run P(T) = max_i sum_t C (1.4 c1 + alpha_i(t)) / "
             "(eta_i(t) V_i B_i) (002)" +
             sampler;
    case ConsensusVariant::kPrivateMradmm:
      return "beta-DP over the whole run, beta = max_i sum_k (2C/B_i)(1.4 c1 / (rho/N + 2 "
             "eta_i(2k-1) V_i) + alpha_i(k)) (003 Theorem V.1, eq. (32))" +
             sampler;
    default: return "none: the algorithm is not private";
  }
}

// The claim of a private consensus run, stated precisely (algorithms/privacy/README.md).
std::string PrivacyClaim(ConsensusVariant v) {
  const char* paper = v == ConsensusVariant::kDvp     ? "004 Theorem 1"
                      : v == ConsensusVariant::kPvp   ? "primal variable perturbation"
                      : v == ConsensusVariant::kMadmm ? "002"
                                                      : "003 eq. (32)";
  return std::string(
             "neighbouring datasets: node i's training rows with one record replaced (rows "
             "clipped to ||x|| <= 1, the loss's c1 bound); public: B_i, V_i, the graph, the "
             "parameters and the schedule; notion: (epsilon, delta)-DP per node of the whole "
             "sequence of values node i releases (the paper's per-round term is pure epsilon-DP "
             "of that round's release, assuming the exact minimiser of the perturbed local "
             "problem); paper's figure: the plain sum of the per-round terms (") +
         paper +
         ", with delta the sampler's); tight figure: the optimal composition of the same "
         "per-round terms at delta = 1e-5 (Kairouz, Oh and Viswanath 2015, Thm 3.3; unequal "
         "terms through the PLD accountant), plus the sampler's delta; the sampler's delta: "
         "each release's noise is drawn in double precision and its value rounded to the "
         "2^-16 grid (21 significant bits above 32), which differs from the ideal mechanism's with "
         "probability <= tv = d (2^-27 + 2^-40) and makes the release (eps_t, (1 + e^eps_t) "
         "tv)-DP; these deltas add up (algorithms/privacy/README.md)";
}

// PVP with the Gaussian mechanism (PvpParams::gaussian).
bool PvpGaussian(const RunSpec& spec) {
  return spec.algorithm.name() == Algorithm::kPvp && spec.algorithm.As<PvpParams>().gaussian();
}

std::string PvpGaussianGuarantee() {
  return "(epsilon, delta)-DP per node of the whole sequence of its releases: each round's "
         "exact primal update plus the exact discrete Gaussian N(0, sigma_i^2 I), sigma_i = "
         "noise_multiplier x its L2 sensitivity 2 (C/B_i) / (rho_i + 2 eta V_i); composed "
         "exactly (mu^2 summed, analytic Gaussian) at delta = 1e-5";
}

std::string PvpGaussianClaim() {
  return "neighbouring datasets: node i's training rows with one record replaced (rows clipped "
         "to ||x|| <= 1, |L'| <= 1); public: B_i, V_i, the graph, C, rho, eta, the noise "
         "multiplier and the rounds; notion: (epsilon, delta)-DP per node of the whole "
         "sequence of values node i releases, each round a Gaussian mechanism on the exact "
         "minimiser of the local problem (strongly convex with modulus rho_i + 2 eta V_i, its "
         "inputs other than the node's rows being released values) with L2 sensitivity "
         "2 (C/B_i) / (rho_i + 2 eta V_i) plus the lattice's sqrt(d) step "
         "(algorithms/privacy/README.md, PVP with Gaussian noise); paper's figure: none; tight "
         "figure: the Gaussian releases composed exactly (mu^2 summed, analytic Gaussian) at "
         "delta = 1e-5";
}

// The baselines' guarantee and claim (algorithms/privacy/README.md, "The baselines'
// mechanisms").
std::string BaselineGuarantee(Algorithm algorithm, BaselineMechanism mechanism) {
  std::string g =
      mechanism == BaselineMechanism::kObjective
          ? "epsilon-DP per node of its one release, in round 1: objective perturbation "
            "(Chaudhuri, Monteleoni and Sarwate 2011, Algorithm 2, Theorem 9); delta: the "
            "release adds (1 + e^eps) d (2^-27 + 2^-40) for the double-precision sampler"
          : "(epsilon, delta)-DP per node of its one release, in round 1: Gaussian output "
            "perturbation of the exact minimiser (L2 sensitivity 2 (C/B_i) / rho_i plus the "
            "lattice's sqrt(d) step, sigma from the analytic Gaussian)";
  g += algorithm == Algorithm::kAverage
           ? "; rounds 2.. average the released models by gossip (post-processing, no cost)"
           : "; later rounds resend it (post-processing, no cost)";
  if (algorithm == Algorithm::kCentral) {
    g += "; central: one curator holds every party's rows, so the guarantee holds against "
         "everyone but the curator: it needs a curator every party trusts";
  }
  return g;
}

std::string BaselineClaim(BaselineMechanism mechanism) {
  return std::string(
             "neighbouring datasets: node i's training rows with one record replaced (rows "
             "clipped to ||x|| <= 1, |L'| <= 1, the loss's curvature bound c); public: B_i, "
             "the graph and its degrees, C, rho and the mechanism's parameters; notion: (epsilon, "
             "delta)-DP per node of the whole sequence of values node i sends: one release in "
             "round 1, then post-processing of released values (resent, or gossip averages), "
             "assuming the exact minimiser of the node's (perturbed) problem; paper's figure: "
             "the mechanism's epsilon (") +
         (mechanism == BaselineMechanism::kObjective
              ? "pure, Chaudhuri et al. 2011 Theorem 9); tight figure: that one pure-epsilon "
                "release at delta = 1e-5, plus the sampler's delta (the noise is drawn in double "
                "precision and the release rounded to the 2^-16 grid: (eps, (1 + e^eps) tv)-DP, "
                "tv = d (2^-27 + 2^-40); algorithms/privacy/README.md)"
              : "at its delta, analytic Gaussian); tight figure: the analytic Gaussian of that "
                "one release at delta = 1e-5 (exact discrete Gaussian on the lattice, accounted "
                "as the continuous one)");
}

// The largest debiasing weight a record may carry: over the public label eps levels.
double PdmlMaxDebiasWeight(const PdmlParams& p) {
  return dpadmm::PdmlMaxDebiasWeight(p.label_eps, p.label_eps_groups);
}

std::string PdmlPhase2Claim() {
  return "Phase 2 (000 eq. (16), primal noise): neighbouring datasets: node i's training rows "
         "with one record replaced (features, label and its eps level; rows clipped to ||x|| <= "
         "1); public: m_i, the graph, C, rho, beta, V, the decay and the label eps levels; "
         "notion: (epsilon, delta)-DP per node of the whole sequence of values node i releases, "
         "each round a Gaussian mechanism on the exact minimiser of the local problem (15) with "
         "L2 sensitivity 2 (C/m_i)(1 + max 1/(e^eps - 1)) / (rho_i + 2 beta N_i) plus the "
         "grid's sqrt(d) step (algorithms/privacy/README.md, PDML Phase 2); the bounded "
         "objective noise (14) is not counted; paper's figure: none (000 states no composed "
         "guarantee); tight figure: the Gaussian releases composed exactly (mu^2 summed, "
         "analytic Gaussian) at delta = 1e-5; Phase 1's label eps-LDP holds besides";
}

// mu = sensitivity / sigma of node i's Gaussian release in round r (0: none), for the per-round
// tight figure of PDML Phase 2 and PVP's Gaussian mechanism.
using GaussianRoundMu = std::function<double(std::size_t node, std::int64_t round)>;

// Turns the nodes' reports of each round into RoundMetrics (off the nodes' critical path: the
// engine calls it from whichever thread completes a round, one round at a time, in order).
class MetricsSink : public runtime::RoundSink {
 public:
  MetricsSink(const RunSpec& spec, const Dataset& test, const std::vector<Dataset>& slices,
              const Eigen::VectorXd& optimum, int nodes, std::int64_t dim, RunObserver* observer,
              std::vector<char> private_nodes, bool tight, std::vector<int> view, bool budget_stop,
              GaussianRoundMu gaussian_round_mu = {})
      : spec_(spec),
        slices_(slices),
        test_(test),
        optimum_(optimum),
        nodes_(nodes),
        dim_(dim),
        observer_(observer),
        start_(std::chrono::steady_clock::now()),
        mean_(Eigen::VectorXd::Zero(dim)),
        previous_mean_(Eigen::VectorXd::Zero(dim)),
        private_nodes_(std::move(private_nodes)),
        view_(std::move(view)),
        in_view_(static_cast<std::size_t>(nodes), 0),
        budget_stop_(budget_stop),
        evaluate_(EffectiveMetrics(spec) == MetricsScope::kAll) {
    for (int i : view_) in_view_[static_cast<std::size_t>(i)] = 1;
    if (tight && !gaussian_round_mu) {
      tight_.emplace(nodes, kTightDelta);
      // dp-bounds, dp-standardize: the set-up releases precede round 1 (the summary composes
      // them first too).
      for (double e : setup_epsilons_) {
        tight_->AddRound(std::vector<double>(static_cast<std::size_t>(nodes), e));
      }
    }
    if (tight && gaussian_round_mu) {
      gaussian_.emplace(GaussianTrace{std::move(gaussian_round_mu),
                                      std::vector<double>(static_cast<std::size_t>(nodes), 0.0)});
    }
  }

  // The baselines: every node releases once, in round 1, and `epsilon` is the tight figure of
  // that release (max over nodes, composed after the set-up releases if any, whose own figure
  // is `before`): the column is `before` in round 0 and `epsilon` from round 1 (the pure-epsilon
  // column of the other algorithms is not kept).
  void UseReleaseOnceFigure(double before, double epsilon) {
    tight_.reset();
    release_before_ = before;
    release_once_ = epsilon;
  }
  // Every node's regulariser rho_i, for the objective (default: rho, or rho / N).
  void SetNodeRegulariser(double rho_node) { node_rho_ = rho_node; }
  // Each node's loss weight C_i, for the objective (default: C for every node).
  void SetNodeLossWeights(std::vector<double> weights) { node_C_ = std::move(weights); }
  // local: test_error is the mean over the nodes of each node's own model's test error (there
  // is no consensus model to measure).
  void MeasureTestErrorPerNode() { test_error_per_node_ = true; }

  bool OnRound(std::int64_t round, const runtime::ReportTable& t) override {
    // What each node had spent before this round, whether or not that round was measured.
    previous_privacy_.assign(static_cast<std::size_t>(nodes_), 0.0);
    if (tight_ && round >= 1 && !table_.empty()) {
      // Round t's term of node i is what its round t-1 report announced (kNextPrivacyLoss, the
      // same PrivacyLoss(t) its release was opened with), unless the release refused the round.
      std::vector<double> costs(static_cast<std::size_t>(nodes_));
      for (int i = 0; i < nodes_; ++i) {
        const bool frozen = t[i][static_cast<std::size_t>(dim_) + ConsensusReport::kFrozen] != 0.0;
        // Outside the view (another party's node) nothing is known here: no term.
        costs[i] = frozen || !in_view_[i]
                       ? 0.0
                       : table_[i * width_ + dim_ + ConsensusReport::kNextPrivacyLoss];
      }
      tight_->AddRound(costs);
      tight_rounds_.push_back(std::move(costs));  // for a checkpoint: replayed on resume
    }
    if (gaussian_ && round >= 1) gaussian_->AddRound(round);
    if (!table_.empty()) {
      for (int i = 0; i < nodes_; ++i) previous_privacy_[i] = table_[i * width_ + dim_ + 1];
    }
    table_.assign(t[0].data(), t[0].data() + static_cast<std::size_t>(nodes_) * t.width());
    width_ = t.width();
    last_round_ = round;
    const int every = spec_.metrics_every;
    const bool due = round == 0 || round == spec_.iterations || (every > 0 && round % every == 0);
    if (budget_stop_ && round < spec_.iterations && EveryPrivateNodeFrozen()) {
      budget_exhausted_ = true;
      if (measured_round_ != round) Measure(round);
      Emit();
      return false;
    }
    if (!due) {
      // Between evaluations (eval_every K > 1) only the mean is kept, O(N d), so that the
      // tolerance's model change stays the change of one round whatever K is.
      if (spec_.tolerance > 0.0) {
        previous_mean_ = mean_;
        ComputeMean();
      }
      return true;
    }
    previous_mean_ = mean_;
    Measure(round);
    Emit();
    // The stop rule, checked on evaluated rounds only: the mean moved by at most tolerance
    // relative to max(1, ||mean f||) in the last round, and every node is within tolerance of
    // the mean (the gap through the mean; the pairwise spread is then <= 2 tolerance).
    if (spec_.tolerance > 0.0 && round >= 1) {
      const double scale = std::max(1.0, mean_.norm());
      if ((mean_ - previous_mean_).norm() <= spec_.tolerance * scale &&
          last_.consensus_gap <= spec_.tolerance * scale) {
        converged_ = true;
        return false;
      }
    }
    return true;
  }

  // mean_ = (1/N) sum_i f_i, summed in node order (Measure's order: the same bits).
  void ComputeMean() {
    mean_.setZero();
    for (int i : view_) mean_ += Model(i);
    mean_ /= static_cast<double>(view_.size());
  }

  // Makes sure the last reported round has metrics and was seen by the observer.
  void Finish() {
    if (last_round_ >= 0 && emitted_round_ != last_round_) {
      if (measured_round_ != last_round_) Measure(last_round_);
      Emit();
    }
  }

  const RoundMetrics& last() const { return last_; }
  const Eigen::VectorXd& mean() const { return mean_; }
  bool converged() const { return converged_; }
  bool budget_exhausted() const { return budget_exhausted_; }
  double elapsed() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }

  void Measure(std::int64_t round) {
    RoundMetrics m;
    m.round = round;
    m.consensus_gap = 0.0;
    m.distance_to_optimum = 0.0;
    m.privacy_loss = 0.0;
    m.privacy_round = 0.0;
    const double reg =
        0.5 * (node_rho_ ? *node_rho_
                         : (spec_.algorithm.rho_per_node ? spec_.algorithm.rho
                                                         : spec_.algorithm.rho / nodes_));
    mean_.setZero();
    m.node_privacy.assign(static_cast<std::size_t>(nodes_), kNaN);
    m.node_noise.assign(static_cast<std::size_t>(nodes_), kNaN);
    const auto viewed = static_cast<double>(view_.size());
    for (int i : view_) {
      const auto f = Model(i);
      const double* r = table_.data() + static_cast<std::size_t>(i) * width_;
      // A node reports NaN when its round did not touch the data (R-ADMM even rounds, PVP's
      // released point); the evaluation computes that loss here, outside the node.
      // The paper's figure; with dp-bounds or dp-standardize the node's set-up releases are
      // added (basic composition of pure epsilons).
      const double spent = r[dim_ + 1] + setup_epsilon_;
      m.node_privacy[i] = spent;
      m.node_noise[i] = r[dim_ + 3];
      m.privacy_loss = std::max(m.privacy_loss, spent);
      m.privacy_round = std::max(m.privacy_round, r[dim_ + 1] - PreviousPrivacy(i));
      mean_ += f;
      // The loss and objective evaluate the nodes' private data: only in the metrics scope
      // "all" (released-only leaves them NaN, never computed).
      if (!evaluate_) continue;
      const double mean_loss = std::isnan(r[dim_]) ? MeanLoss(slices_[i], spec_.loss, f) : r[dim_];
      m.train_loss += mean_loss;
      const double C = node_C_.empty() ? spec_.algorithm.C : node_C_[static_cast<std::size_t>(i)];
      m.objective += C * mean_loss + reg * f.squaredNorm();
    }
    if (no_paper_figure_) {
      // Gaussian releases have no per-round pure-epsilon term: the tight column is the figure.
      m.privacy_loss = m.privacy_round = kNaN;
      std::fill(m.node_privacy.begin(), m.node_privacy.end(), kNaN);
    }
    m.train_loss /= viewed;
    if (!evaluate_) m.train_loss = m.objective = kNaN;
    mean_ /= viewed;
    if (test_.rows() == 0) {
      m.test_error = kNaN;
    } else if (test_error_per_node_) {
      m.test_error = 0.0;
      for (int i : view_) m.test_error += TestError(test_, Eigen::VectorXd(Model(i)));
      m.test_error /= viewed;
    } else {
      m.test_error = TestError(test_, mean_);
    }
    // The consensus gap through the mean, max_i ||f_i - mean f||: O(N d) where the pairwise
    // max_ij ||f_i - f_j|| is O(N^2 d). The two bracket each other (mean f is a convex
    // combination of the f_j): gap <= max_ij ||f_i - f_j|| <= 2 gap. The mean is summed in node
    // order above (on every engine; under MPI the sink holds the gathered table), so the figure
    // has the same bits everywhere.
    m.node_distance.assign(static_cast<std::size_t>(nodes_), kNaN);
    for (int i : view_) {
      m.node_distance[i] = (Model(i) - mean_).norm();
      m.consensus_gap = std::max(m.consensus_gap, m.node_distance[i]);
    }
    // A view of one node of several (a party hosting one node): its distance to the mean of
    // what it sees is 0 by construction, and the gap to the other nodes' models is not known
    // here: no figure (null in the summary and trace).
    if (view_.size() == 1 && nodes_ > 1) m.consensus_gap = kNaN;
    if (optimum_.size() == dim_) {
      const double scale = std::max(optimum_.norm(), std::numeric_limits<double>::min());
      for (int i : view_) {
        m.distance_to_optimum =
            std::max(m.distance_to_optimum, (Model(i) - optimum_).norm() / scale);
      }
    } else {
      m.distance_to_optimum = kNaN;
    }
    m.seconds = elapsed();
    last_ = m;
    measured_round_ = round;
  }
  double PreviousPrivacy(int i) const { return previous_privacy_[i]; }
  // The largest floating-point delta any node's snapped releases have added (the summary's
  // TightAccounting takes the same values from the releases).
  double MaxSpentDelta() const {
    double m = 0.0;
    for (int i : view_) {
      if (table_.empty()) break;
      m = std::max(
          m, table_[static_cast<std::size_t>(i) * width_ + dim_ + ConsensusReport::kSpentDelta]);
    }
    return m;
  }

  // Each node's release enforces its own budget (the node freezes alone, resending its last
  // release); the run ends once every private node has frozen. The sink only reads the flags.
  bool EveryPrivateNodeFrozen() const {
    bool any_private = false;
    for (int i = 0; i < nodes_; ++i) {
      if (!private_nodes_[i]) continue;
      any_private = true;
      const double* r = table_.data() + static_cast<std::size_t>(i) * width_;
      if (r[dim_ + ConsensusReport::kFrozen] == 0.0) return false;
    }
    return any_private;
  }
  // The per-round column's composition of `node`'s terms, reused for the summary when it
  // composed exactly `positive` (TightTrace::NodeEpsilon); nullopt otherwise.
  std::optional<double> ColumnEpsilon(int node, const std::vector<double>& positive) {
    if (!tight_) return std::nullopt;
    return tight_->NodeEpsilon(node, positive);
  }
  // Per node: the round its release was refused (it froze), or -1; from the last report. -2
  // outside the view (another party's node: not known here).
  std::vector<std::int64_t> frozen_rounds() const {
    std::vector<std::int64_t> rounds(static_cast<std::size_t>(nodes_), -1);
    for (int i = 0; i < nodes_; ++i) {
      if (!in_view_[i]) rounds[i] = -2;
    }
    for (int i : view_) {
      if (table_.empty()) break;
      rounds[i] = static_cast<std::int64_t>(
          table_[static_cast<std::size_t>(i) * width_ + dim_ + ConsensusReport::kFrozenRound]);
    }
    return rounds;
  }
  void Emit() {
    emitted_round_ = last_.round;
    if (tight_) last_.tight_epsilon = tight_->MaxEpsilon();
    if (gaussian_) last_.tight_epsilon = gaussian_->MaxEpsilon(setup_epsilons_);
    if (release_once_) last_.tight_epsilon = last_.round >= 1 ? *release_once_ : release_before_;
    if (tight_ || gaussian_ || release_once_) last_.tight_delta = kTightDelta + MaxSpentDelta();
    if (observer_ != nullptr) observer_->OnRound(last_);
  }

  // Checkpoints: everything OnRound carries from one round to the next (and the wall time so
  // far, so that the seconds column continues).
  void SaveState(StateWriter& out) const {
    out.Vec(table_);
    out.U64(width_);
    out.Vec(previous_privacy_);
    out.Vec(mean_);
    out.Vec(previous_mean_);
    out.I64(last_round_);
    out.I64(measured_round_);
    out.I64(emitted_round_);
    SaveMetrics(out, last_);
    out.Bool(converged_);
    out.Bool(budget_exhausted_);
    out.F64(elapsed());
    // The per-round tight figure's state: the costs it composed (replayed on resume, which
    // gives the same bits as composing them in one go) and PDML's mu^2 sums.
    out.U64(tight_rounds_.size());
    for (const std::vector<double>& costs : tight_rounds_) out.Vec(costs);
    out.Vec(gaussian_ ? gaussian_->mu2 : std::vector<double>{});
  }
  void LoadState(StateReader& in) {
    table_ = in.Vec("metrics table");
    width_ = in.U64("metrics width");
    if (width_ != static_cast<std::size_t>(dim_) + ConsensusReport::kFields ||
        table_.size() != static_cast<std::size_t>(nodes_) * width_) {
      in.Fail("metrics table", "size does not match the run's nodes and features");
    }
    previous_privacy_ = in.Vec("metrics previous privacy", nodes_);
    mean_ = in.EVec("metrics mean", dim_);
    previous_mean_ = in.EVec("metrics previous mean", dim_);
    last_round_ = in.I64("metrics last round");
    measured_round_ = in.I64("metrics measured round");
    emitted_round_ = in.I64("metrics emitted round");
    last_ = LoadMetrics(in);
    converged_ = in.Bool("metrics converged");
    budget_exhausted_ = in.Bool("metrics budget exhausted");
    const double seconds = in.F64("metrics seconds");
    const std::uint64_t tight_rounds = in.U64("metrics tight rounds");
    if (tight_rounds > static_cast<std::uint64_t>(spec_.iterations) || (!tight_ && tight_rounds)) {
      in.Fail("metrics tight rounds", "more than the run's rounds");
    }
    for (std::uint64_t r = 0; r < tight_rounds; ++r) {
      std::vector<double> costs = in.Vec("metrics tight costs", nodes_);
      for (double c : costs) {
        if (!(c >= 0.0) || !std::isfinite(c)) in.Fail("metrics tight costs", "not >= 0 and finite");
      }
      tight_->AddRound(costs);
      tight_rounds_.push_back(std::move(costs));
    }
    std::vector<double> mu2 = in.Vec("metrics gaussian mu2", gaussian_ ? nodes_ : 0);
    if (gaussian_) gaussian_->mu2 = std::move(mu2);
    if (std::isfinite(seconds) && seconds >= 0.0 && seconds < 1e9) {
      start_ -= std::chrono::duration_cast<std::chrono::steady_clock::duration>(
          std::chrono::duration<double>(seconds));
    }
    in.ExpectEnd("metrics state");
  }

 private:
  Eigen::Map<const Eigen::VectorXd> Model(int i) const {
    return Eigen::Map<const Eigen::VectorXd>(table_.data() + static_cast<std::size_t>(i) * width_,
                                             dim_);
  }

  const RunSpec& spec_;
  const std::vector<Dataset>& slices_;
  const Dataset& test_;
  const Eigen::VectorXd& optimum_;
  const int nodes_;
  const std::int64_t dim_;
  RunObserver* observer_;
  std::chrono::steady_clock::time_point start_;
  Eigen::VectorXd mean_, previous_mean_;
  std::vector<double> table_;             // copy of the last reported round
  std::vector<double> previous_privacy_;  // per node, spent up to the previous round
  std::size_t width_ = 0;
  std::int64_t last_round_ = -1, measured_round_ = -1, emitted_round_ = -1;
  RoundMetrics last_;
  bool converged_ = false;
  bool budget_exhausted_ = false;
  std::vector<char> private_nodes_;  // node i's releases cost privacy (its budget may freeze it)
  // The nodes measured (increasing; every node, or a party's own), and membership by node.
  const std::vector<int> view_;
  std::vector<char> in_view_;
  // The run stops once every private node froze (false for a party: it sees only its own).
  const bool budget_stop_;
  const bool evaluate_;  // metrics scope "all": also the figures evaluated on private data
  const bool no_paper_figure_ = PvpGaussian(spec_);  // pvp's Gaussian mechanism has none
  std::optional<TightTrace> tight_;  // private consensus variants: the per-round tight epsilon
  // dp-bounds, dp-standardize: each node's set-up releases (in order) and their sum, in its
  // privacy figure from round 0 on.
  const std::vector<double> setup_epsilons_ = SetupReleaseEpsilons(spec_);
  const double setup_epsilon_ = SetupEpsilonSum(setup_epsilons_);
  // PDML Phase 2 and PVP's Gaussian mechanism: every round a Gaussian release per node (the
  // node's Mechanism), composed as the summary's Accountant does (mu^2 summed in round order; the
  // analytic Gaussian is increasing in mu, so the max over nodes is the figure of the largest sum).
  // The set-up releases (pure epsilon) are composed with that one Gaussian by the PLD accountant.
  struct GaussianTrace {
    GaussianRoundMu round_mu;  // mu of node i's round-r release (0: none)
    std::vector<double> mu2;   // per node
    void AddRound(std::int64_t round) {
      for (std::size_t i = 0; i < mu2.size(); ++i) {
        const double mu = round_mu(i, round);
        mu2[i] += mu * mu;
      }
    }
    double MaxEpsilon(const std::vector<double>& setup_epsilons) const {
      const double m = *std::max_element(mu2.begin(), mu2.end());
      if (!setup_epsilons.empty()) {
        Accountant a;
        for (double e : setup_epsilons) a.AddPureEpsilon(e);
        if (m > 0.0) a.AddGaussian(std::sqrt(m), 1.0);
        return a.Epsilon(kTightDelta);
      }
      return m > 0.0 ? AnalyticGaussianEpsilon(std::sqrt(m), 1.0, kTightDelta) : 0.0;
    }
  };
  std::optional<GaussianTrace> gaussian_;
  std::vector<std::vector<double>> tight_rounds_;  // what tight_ composed, round by round
  std::optional<double> release_once_;             // the baselines' figure from round 1 on
  double release_before_ = 0.0;                    // and in round 0 (the dp-bounds release)
  std::optional<double> node_rho_;                 // rho_i when set (central)
  std::vector<double> node_C_;                     // C_i per node when set
  bool test_error_per_node_ = false;               // local
};

// A consensus node program built on its first use beyond its sizes: a party's nodes under
// dp-bounds, whose rows are mapped by the bounds every party derives in the network engine's
// set-up exchange, after the engine has asked the programs' sizes (for its Hello) and before it
// starts or restores them. The sizes are the consensus layout's (a model of `dim` values,
// ConsensusReport); the built program must have them.
class DeferredNode final : public runtime::NodeProgram, public Checkpointable {
 public:
  DeferredNode(std::size_t dim, std::function<std::unique_ptr<runtime::NodeProgram>()> build)
      : dim_(dim), build_(std::move(build)) {}

  std::size_t MaxMessageSize() const override { return dim_; }
  std::size_t ReportSize() const override { return dim_ + ConsensusReport::kFields; }
  std::size_t FiniteReportPrefix() const override { return dim_; }
  runtime::StepResult Start(runtime::Outbox& out) override { return Built().Start(out); }
  runtime::StepResult Step(std::int64_t round, const runtime::Inbox& in,
                           runtime::Outbox& out) override {
    return Built().Step(round, in, out);
  }
  void Report(std::int64_t round, std::span<double> out) const override {
    Inner().Report(round, out);
  }
  void SaveState(StateWriter& out) const override {
    const auto* state = dynamic_cast<const Checkpointable*>(&Inner());
    if (state == nullptr) throw std::logic_error("checkpoint: a node program without state hooks");
    state->SaveState(out);
  }
  void LoadState(StateReader& in) override {
    auto* state = dynamic_cast<Checkpointable*>(&Built());
    if (state == nullptr) throw std::logic_error("checkpoint: a node program without state hooks");
    state->LoadState(in);
  }

  // The program once built (nullptr before).
  const runtime::NodeProgram* inner() const { return inner_.get(); }

 private:
  runtime::NodeProgram& Built() {
    if (!inner_) {
      inner_ = build_();
      if (inner_->MaxMessageSize() != MaxMessageSize() || inner_->ReportSize() != ReportSize() ||
          inner_->FiniteReportPrefix() != FiniteReportPrefix()) {
        throw std::logic_error("DeferredNode: the built program's sizes differ from the declared");
      }
    }
    return *inner_;
  }
  const runtime::NodeProgram& Inner() const {
    if (!inner_) throw std::logic_error("DeferredNode: used before it was started or restored");
    return *inner_;
  }
  std::size_t dim_;
  std::function<std::unique_ptr<runtime::NodeProgram>()> build_;
  std::unique_ptr<runtime::NodeProgram> inner_;
};

// The consensus node behind `program` (unwrapping a DeferredNode), or nullptr.
const ConsensusNode* AsConsensusNode(const runtime::NodeProgram* program) {
  if (const auto* deferred = dynamic_cast<const DeferredNode*>(program)) {
    program = deferred->inner();
  }
  return dynamic_cast<const ConsensusNode*>(program);
}

class ConsensusDriver : public Experiment::Driver {
 public:
  void Prepare() override;
  // The prepared training rows in their order, rebuilt from the slices on the first call (the
  // experiment keeps the slices only); empty under MPI.
  const Dataset& Train() const override {
    if (!train_released_) return train;
    std::call_once(rebuilt_once_, [this] {
      rebuilt_train_ = Unpartition(slices_, partition);
      rebuilt_train_.name = train_name_;
    });
    return rebuilt_train_;
  }
  void Run(runtime::EngineKind engine, int threads, RunObserver* observer,
           const runtime::StopToken* stop, RunSummary& summary) const override {
    RunImpl(engine, threads, observer, stop, nullptr, nullptr, summary);
  }
  void RunCheckpointed(runtime::EngineKind engine, int threads, RunObserver* observer,
                       const runtime::StopToken* stop, const CheckpointOptions& options,
                       const CheckpointContents* resume, RunSummary& summary) const override {
    RunImpl(engine, threads, observer, stop, &options, resume, summary);
  }

 private:
  // `checkpoint` null: one engine run (the plain Run). Otherwise segments with checkpoints
  // (persistence/checkpoint.h), continued from `resume` when given.
  void RunImpl(runtime::EngineKind engine, int threads, RunObserver* observer,
               const runtime::StopToken* stop, const CheckpointOptions* checkpoint,
               const CheckpointContents* resume, RunSummary& summary) const;
  // Fills summary.node_tight_epsilon / tight_epsilon from the hosted nodes' released costs
  // (under MPI gathered from every rank). Nodes with the same cost sequence share one query.
  // `sink` (may be null): its per-round column, whose compositions are reused where they
  // composed the same terms (same bits).
  void TightAccounting(const std::vector<std::unique_ptr<runtime::NodeProgram>>& nodes,
                       MetricsSink* sink, RunSummary& summary) const;
  // Private algorithms only: refuses rows above the norm bound the proofs assume.
  void CheckRowBound() const;
  // The centralized optimum and its figures (optimum, info.optimum_*), from `train`.
  void SolveOptimum();
  // The nodes the metrics measure: `view`, or every node.
  std::vector<int> ViewNodes() const {
    if (!view.empty()) return view;
    std::vector<int> all(static_cast<std::size_t>(graph.num_nodes()));
    std::iota(all.begin(), all.end(), 0);
    return all;
  }
  std::vector<Dataset> slices_;
  bool train_released_ = false;  // `train` freed once split into slices_ (not under MPI)
  std::string train_name_;
  mutable std::once_flag rebuilt_once_;
  mutable Dataset rebuilt_train_;
  runtime::Topology topology_;
  std::vector<ReportedLabels> reported_;  // pdml: Phase 1 labels per node (true ones in slices_)
  // central: the number of parties whose rows the curator holds (the spec's graph's nodes);
  // 0 otherwise.
  int parties_ = 0;
  // Node i's regulariser rho_i: rho (rho_per_node) or rho / N, N the nodes (central: the
  // parties, so that the curator's problem is the consensus family's centralized one).
  double RhoNode(int /*node*/) const {
    const int n = parties_ > 0 ? parties_ : graph.num_nodes();
    return spec.algorithm.rho_per_node ? spec.algorithm.rho : spec.algorithm.rho / n;
  }
  // Whether this process knows node j's row count from its partition: always in one process or
  // across MPI ranks (the partition is built for every node); a party for its own nodes only.
  bool KnowsRowCount(int node) const {
    return !network || std::binary_search(hosted.begin(), hosted.end(), node);
  }
  // Node j's row count: its partition's, or for another party's node the spec's
  // partition.public_rows (-1 when not declared: a party does not know it).
  std::int64_t NodeRows(int node) const;
  // Node i's loss weight C_i (NodeLossWeight of the nodes' row counts, NodeRows).
  double NodeC(int node) const;
  // The parameters of consensus node i's program (every algorithm but pdml).
  ConsensusNodeParams NodeParams(int i) const;
};

ConsensusVariant VariantOf(Algorithm algorithm) {
  switch (algorithm) {
    case Algorithm::kDvp: return ConsensusVariant::kDvp;
    case Algorithm::kPvp: return ConsensusVariant::kPvp;
    case Algorithm::kMadmm: return ConsensusVariant::kMadmm;
    case Algorithm::kRadmm: return ConsensusVariant::kRadmm;
    case Algorithm::kMradmm: return ConsensusVariant::kMradmm;
    case Algorithm::kPrivateMradmm: return ConsensusVariant::kPrivateMradmm;
    case Algorithm::kLocal:
    case Algorithm::kCentral: return ConsensusVariant::kLocal;  // central: one node, every row
    case Algorithm::kAverage: return ConsensusVariant::kAverage;
    default: return ConsensusVariant::kAdmm;  // admm; pdml has its own node program
  }
}

// The node parameters of the selected variant's struct; fields a variant does not have keep
// ConsensusNodeParams' defaults (which are the variants' "off" values).
struct VariantFields {
  double alpha = 0.0, q2 = 1.0, q1 = 1.0, gamma = 0.5, dual_step = 0.0;
  const std::vector<double>* node_alpha = nullptr;
  const std::vector<double>* node_q2 = nullptr;
  const std::vector<double>* node_q1 = nullptr;
  const BaselineParams* baseline = nullptr;  // local, average, central
};

VariantFields FieldsOf(const AlgorithmParams& params) {
  VariantFields f;
  std::visit(
      [&](const auto& p) {
        using P = std::decay_t<decltype(p)>;
        if constexpr (std::is_base_of_v<NoiseSchedule, P>) {
          f.alpha = p.alpha;
          f.q2 = p.q2;
          f.node_alpha = &p.node_alpha;
          f.node_q2 = &p.node_q2;
        }
        if constexpr (requires { p.q1; }) f.q1 = p.q1;
        if constexpr (requires { p.node_q1; }) f.node_q1 = &p.node_q1;
        if constexpr (requires { p.gamma; }) f.gamma = p.gamma;
        if constexpr (requires { p.dual_step; }) f.dual_step = p.dual_step;
        if constexpr (std::is_base_of_v<BaselineParams, P>) f.baseline = &p;
      },
      params);
  return f;
}

double PerNode(const std::vector<double>* values, double scalar, int node) {
  return values == nullptr ? scalar : PerNode(*values, scalar, node);
}

BaselineMechanism MechanismOf(const BaselineParams& p) {
  return p.mechanism == "gaussian" ? BaselineMechanism::kGaussian : BaselineMechanism::kObjective;
}

ConsensusNodeParams ConsensusDriver::NodeParams(int i) const {
  const RunSpec& s = spec;
  const VariantFields vf = FieldsOf(s.algorithm.params);
  ConsensusNodeParams p;
  p.variant = VariantOf(s.algorithm.name());
  // average: the releases are local's (its own problem at C); row weighting scales its gossip.
  p.C = s.algorithm.name() == Algorithm::kAverage ? s.algorithm.C : NodeC(i);
  p.rho_node = RhoNode(i);
  p.num_nodes = graph.num_nodes();
  p.eta = PerNode(s.algorithm.node_eta, s.algorithm.eta, i);
  p.q1 = PerNode(vf.node_q1, vf.q1, i);
  p.alpha = PerNode(vf.node_alpha, vf.alpha, i);
  p.q2 = PerNode(vf.node_q2, vf.q2, i);
  p.gamma = vf.gamma;
  p.dual_step = vf.dual_step;
  if (PvpGaussian(s)) p.noise_multiplier = s.algorithm.As<PvpParams>().noise_multiplier;
  p.noise_seed = s.noise_seed;
  p.privacy_budget = PerNode(s.algorithm.node_privacy_budget, s.algorithm.privacy_budget, i);
  // dp-bounds, dp-standardize: the set-up releases were paid first (ValidateSpec refused a
  // budget they use up).
  if (p.privacy_budget > 0.0) p.privacy_budget -= SetupEpsilonSum(SetupReleaseEpsilons(s));
  if (s.algorithm.gossip_rounds > 0) {
    p.gossip_from = AlgorithmRounds(s) + 1;
    for (int j : graph.neighbors(i)) p.neighbour_degrees.push_back(graph.degree(j));
  }
  if (vf.baseline != nullptr) {
    p.mechanism = MechanismOf(*vf.baseline);
    p.epsilon = vf.baseline->epsilon;
    p.delta = vf.baseline->delta;
    for (int j : graph.neighbors(i)) p.neighbour_degrees.push_back(graph.degree(j));
    if (s.algorithm.name() == Algorithm::kAverage && s.algorithm.weighting == Weighting::kRow) {
      // The gossip runs on (B_i / B_bar) x_i, whose mean is the rows-weighted mean of the
      // releases (public row counts: NodeC(i) / C = B_i / B_bar).
      p.gossip_scale = NodeC(i) / s.algorithm.C;
      for (int j : graph.neighbors(i))
        p.neighbour_gossip_scales.push_back(NodeC(j) / s.algorithm.C);
    }
  }
  return p;
}

std::int64_t ConsensusDriver::NodeRows(int node) const {
  if (KnowsRowCount(node)) {
    return static_cast<std::int64_t>(partition[static_cast<std::size_t>(node)].size());
  }
  const std::vector<std::int64_t>& declared = spec.partition.public_rows;
  return declared.empty() ? -1 : declared[static_cast<std::size_t>(node)];
}

double ConsensusDriver::NodeC(int node) const {
  std::vector<std::int64_t> rows(partition.size());
  for (std::size_t j = 0; j < partition.size(); ++j) rows[j] = NodeRows(static_cast<int>(j));
  return NodeLossWeight(spec.algorithm, rows, static_cast<std::size_t>(node));
}

void ConsensusDriver::SolveOptimum() {
  // The centralized optimum is solved on every node's private data: metrics scope "all" only.
  const RunSpec& s = spec;
  const bool optimum_wanted = s.compute_optimum && info.metrics == MetricsScope::kAll;
  if (optimum_wanted && (mpi || network)) {
    info.optimum_note = std::string("not computed ") +
                        (mpi ? "on the mpi engine" : "in party mode") +
                        ": the centralized optimum needs every node's rows in one process (no "
                        "distance to the optimum)";
  } else if (optimum_wanted) {
    // The centralized problem sum_i [(C_i/B_i) sum_{n in D_i} L + (rho/N) ||f||^2/2], solved by
    // the same Newton solver with per-sample weights C_i/B_{node(n)} and a = rho (row
    // weighting: every weight C / B_bar).
    Eigen::VectorXd weights(train.rows());
    for (std::size_t i = 0; i < partition.size(); ++i) {
      const double C = NodeC(static_cast<int>(i));
      for (std::int64_t r : partition[i]) {
        weights[r] = C / static_cast<double>(partition[i].size());
      }
    }
    NewtonOptions newton = s.newton;
    newton.max_iterations = std::max(newton.max_iterations, 200);
    newton.borrow_rows = true;  // `train` outlives `central`
    LocalSolver central(train, std::move(weights), s.loss, newton);
    optimum = Eigen::VectorXd::Zero(train.cols());
    // central: the curator's own problem (every row at weight C/B, its regulariser rho_i).
    const double rho_total = parties_ > 0               ? RhoNode(0)
                             : s.algorithm.rho_per_node ? s.algorithm.rho * graph.num_nodes()
                                                        : s.algorithm.rho;
    const SolveReport r = central.Solve(rho_total, Eigen::VectorXd::Zero(train.cols()), optimum);
    // An unsolved reference is an outcome to report, not a reason to refuse the run: a finite
    // best point still gives approximate distances; a non-finite one gives none.
    if (!optimum.allFinite() || !std::isfinite(r.objective)) {
      optimum.resize(0);
      info.optimum_note = std::string("the centralized Newton solve ended with ") +
                          ToString(r.status) + " (non-finite): no distance to the optimum";
    } else {
      if (r.status != SolveStatus::kConverged) {
        info.optimum_note = std::string("the centralized Newton solve ended with ") +
                            ToString(r.status) + " after " + std::to_string(r.iterations) +
                            " steps (gradient norm " + ShortNumber(r.gradient_norm) +
                            "): f* and the distances to it are approximate";
      }
      info.optimum_objective = r.objective;
      info.optimum_test_error = TestError(test, optimum);
    }
  }
}

void ConsensusDriver::Prepare() {
  const RunSpec& s = spec;
  const Algorithm algorithm = s.algorithm.name();
  graph = BuildGraph(s.graph, s.seed);
  if (network) {
    // A party: its nodes split its own rows in contiguous blocks; nothing is known here of the
    // other parties' rows (their B_i).
    try {
      runtime::ValidateNetworkOptions(*network, graph.num_nodes());
    } catch (const runtime::NetworkError& e) {
      throw InputError(std::string("party: ") + e.what());
    }
    if (s.algorithm.weighting == Weighting::kRow && s.partition.public_rows.empty()) {
      throw InputError(
          "algorithm.weighting: 'row' needs every node's row count, which a party does not know "
          "of the other parties' nodes: declare them in partition.public_rows, or use 'node'");
    }
    hosted = HostedNodes(*this, graph.num_nodes());
    partition = OwnRowsPartition(info.train_rows, hosted, graph.num_nodes());
    view = hosted;
  } else {
    partition = BuildPartition(s.partition, info.train_rows, graph.num_nodes(), s.seed);
    hosted = HostedNodes(*this, graph.num_nodes());
  }
  if (!s.partition.public_rows.empty()) {
    // Declared public: every count this process can see must be the one its node gets (a party
    // sees its own nodes'; one process or MPI ranks see every node's).
    const std::vector<std::int64_t>& declared = s.partition.public_rows;
    if (declared.size() != partition.size()) {
      throw InputError("partition.public_rows: " + std::to_string(declared.size()) +
                       " row counts for " + std::to_string(partition.size()) + " nodes");
    }
    for (int i = 0; i < graph.num_nodes(); ++i) {
      if (!KnowsRowCount(i)) continue;
      const auto rows = static_cast<std::int64_t>(partition[static_cast<std::size_t>(i)].size());
      if (rows != declared[static_cast<std::size_t>(i)]) {
        throw InputError("partition.public_rows[" + std::to_string(i) + "]: node " +
                         std::to_string(i) + " is declared to hold " +
                         std::to_string(declared[static_cast<std::size_t>(i)]) +
                         " rows; the data gives it " + std::to_string(rows));
      }
    }
  }
  if (algorithm == Algorithm::kCentral) {
    // The trusted curator: one node holding every training row in order; the parties' graph and
    // partition (built above, so that their files are checked) give only the parties' count N,
    // which sets the curator's regulariser rho_i as the parties' nodes carry it.
    if (mpi || network) {
      throw InputError(
          "algorithm 'central' holds every party's rows at one curator node: it runs in one "
          "process (not on the mpi engine, not as a party)");
    }
    parties_ = graph.num_nodes();
    graph = Graph(1, {}, "central");
    partition.assign(1, std::vector<std::int64_t>(static_cast<std::size_t>(info.train_rows)));
    std::iota(partition[0].begin(), partition[0].end(), std::int64_t{0});
    hosted = HostedNodes(*this, 1);
  }
  // Under MPI a rank keeps the rows of the nodes it hosts only (the others' slices stay empty);
  // from a LIBSVM file it reads only those rows.
  // In one process the slices are split off `train` after the centralized optimum is solved
  // (below), so that the optimum's solver and the slices are never held at once;
  // dp-bounds (which maps `train` by the bounds the slices release) and PDML (whose labels are
  // randomized from the slices) need them first.
  const bool slices_late = !rowwise && !mpi && !network && !PreparedPerNode(s, info.scaling) &&
                           algorithm != Algorithm::kPdml;
  if (rowwise) {
    slices_ = LoadHostedSlices(*this, partition);
  } else if (!slices_late) {
    slices_.resize(partition.size());
    for (int i : hosted) slices_[i] = train.Subset(partition[i]);
    if (PreparedPerNode(s, info.scaling)) PrepareRowsPerNode(*this, slices_);
  }
  topology_.neighbors = graph.adjacency();
  if (s.target_epsilon > 0.0 && (!network || !s.partition.public_rows.empty())) {
    // The settings follow the target from public quantities only (tools/epsilon_policy.h);
    // the calibration then sets the noise knob (Experiment, after Prepare).
    PublicQuantities q;
    // What the set-up releases (dp-bounds, dp-standardize) leave of the target for the rounds
    // (the calibration refuses a target they use up).
    q.epsilon = std::max(s.target_epsilon - SetupEpsilonSum(SetupReleaseEpsilons(s)),
                         0.01 * s.target_epsilon);
    q.delta = kTightDelta;
    for (int i = 0; i < graph.num_nodes(); ++i) {
      q.degrees.push_back(graph.degree(i));
      q.rows_per_node.push_back(NodeRows(i));
    }
    q.features = info.features;
    q.curvature = s.loss.CurvatureBound();
    info.epsilon_policy = ApplyEpsilonPolicy(spec, q);
    // The policy changes algorithm settings only: the data source was checked when the run was
    // built (an Experiment on in-memory rows has no files to name).
    if (!info.epsilon_policy.empty()) ValidateSpec(spec, /*check_data_source=*/false);
  }
  const VariantFields vf = FieldsOf(s.algorithm.params);
  if (algorithm == Algorithm::kPrivateMradmm) {
    // 003 Algorithm 3: 2 c1 < (B_i / C)(rho/N + 2 eta_i(1) V_i) for every node, eta_i(1) = eta q1.
    const int n = graph.num_nodes();
    const double rho_total = s.algorithm.rho_per_node ? s.algorithm.rho * n : s.algorithm.rho;
    for (int i : ViewNodes()) {
      const double eta1 =
          PerNode(s.algorithm.node_eta, s.algorithm.eta, i) * PerNode(vf.node_q1, vf.q1, i);
      if (!MrAdmmFirstPenaltyOk(NodeC(i), static_cast<double>(partition[i].size()),
                                s.loss.CurvatureBound(), rho_total, n, eta1, graph.degree(i))) {
        throw InputError("algorithm.eta: node " + std::to_string(i) +
                         " violates 003 Algorithm 3's "
                         "condition 2 c1 < (B_i/C)(rho/N + 2 eta_i(1) V_i) with eta_i(1) = " +
                         std::to_string(eta1) + ", B_i = " + std::to_string(partition[i].size()) +
                         ", V_i = " + std::to_string(graph.degree(i)) + ": increase eta");
      }
    }
  }

  info.nodes = graph.num_nodes();
  info.edges = graph.num_edges();
  // PDML's Phase 1 (labels) needs no row bound; its Phase 2 figure (primal noise V > 0) does.
  const bool pdml_phase2 = algorithm == Algorithm::kPdml && s.algorithm.As<PdmlParams>().V > 0.0;
  // A party under dp-bounds holds its raw rows until the run's set-up exchange; their map
  // clips every row to norm 1 (PrepareRowsPerNode).
  const bool rows_mapped_later = network && info.scaling == Scaling::kDpBounds;
  if (((algorithm != Algorithm::kPdml && UsesPrivacyMechanism(s)) || pdml_phase2) &&
      !rows_mapped_later) {
    CheckRowBound();
  }
  for (int i = 0; i < graph.num_nodes(); ++i) {
    // -1: another party's node whose row count is not declared (partition.public_rows).
    info.rows_per_node.push_back(NodeRows(i));
  }
  if (algorithm == Algorithm::kPdml) {
    // 000 Phase 1, once per run: each user randomizes their own label (keyed per node).
    const PdmlParams& p = s.algorithm.As<PdmlParams>();
    const LabelPrivacySpec labels{p.label_eps, p.label_eps_groups, p.label_eps_shares};
    reported_.resize(partition.size());
    for (int i : hosted) {
      reported_[i] =
          RandomizeLabels(slices_[i].y, labels, s.noise_seed, static_cast<std::uint64_t>(i));
    }
    if (!mpi) {
      info.privacy_guarantee = PdmlPrivacyGuarantee(reported_, p.R, p.V, p.decay);
    } else {
      // The guarantee summarises the users' eps (not their labels): gathered from every rank.
      std::vector<double> eps;
      for (int i : hosted) eps.insert(eps.end(), reported_[i].eps.begin(), reported_[i].eps.end());
      std::vector<ReportedLabels> all(1);
      const std::vector<double> gathered = runtime::MpiAllgather(eps, mpi->comm);
      all[0].eps = Eigen::Map<const Eigen::VectorXd>(gathered.data(),
                                                     static_cast<Eigen::Index>(gathered.size()));
      info.privacy_guarantee = PdmlPrivacyGuarantee(all, p.R, p.V, p.decay);
    }
    if (pdml_phase2) info.privacy_claim = PdmlPhase2Claim();
    info.gaussian_releases = pdml_phase2;
  } else if (vf.baseline != nullptr) {
    const BaselineMechanism mechanism = MechanismOf(*vf.baseline);
    info.privacy_guarantee = BaselineGuarantee(algorithm, mechanism);
    info.privacy_claim = BaselineClaim(mechanism);
    switch (algorithm) {
      case Algorithm::kLocal:
        info.baseline =
            "local: every node trains alone on its own rows and releases once; no consensus "
            "model (the test error is the mean over nodes of each node's own model's)";
        info.test_error_of = "mean over nodes of each node's own model";
        break;
      case Algorithm::kAverage:
        info.baseline =
            "average: every node's local release, averaged over the graph by gossip "
            "(Metropolis-Hastings weights)";
        break;
      default:
        info.baseline = "central: one trusted curator holds the rows of all " +
                        std::to_string(parties_) +
                        " parties and releases once (the ceiling); it needs a curator every "
                        "party trusts with its rows";
        info.trusted_curator = true;
        break;
    }
  } else {
    const ConsensusVariant variant = VariantOf(algorithm);
    const bool noisy =
        IsPrivate(variant, vf.alpha) || (vf.node_alpha != nullptr && !vf.node_alpha->empty());
    if (PvpGaussian(s)) {
      info.privacy_guarantee = PvpGaussianGuarantee();
      info.privacy_claim = PvpGaussianClaim();
      info.gaussian_releases = true;
    } else {
      info.privacy_guarantee = PrivacyGuarantee(variant, noisy);
      if (noisy) info.privacy_claim = PrivacyClaim(variant);
    }
  }
  std::string setup;  // the set-up releases, in order
  if (info.dp_bounds.epsilon > 0.0) {
    setup = "each node's dp-bounds release (a noisy histogram of its own rows, pure " +
            ShortNumber(info.dp_bounds.epsilon) + "-DP, privacy/bounds_release.h)";
  }
  if (info.standardization.epsilon > 0.0) {
    setup += std::string(setup.empty() ? "each node's" : " and its") +
             " dp-standardize release (noisy clipped per-feature sums of its own rows, pure " +
             ShortNumber(info.standardization.epsilon) + "-DP, privacy/standardize_release.h)";
  }
  if (!setup.empty()) {
    const bool both = info.dp_bounds.epsilon > 0.0 && info.standardization.epsilon > 0.0;
    setup += std::string(both ? " are" : " is") +
             " composed first: added to the paper's figure and to the tight composition, and paid "
             "from the node's budget";
    info.privacy_guarantee += "; plus " + setup;
    if (!info.privacy_claim.empty()) info.privacy_claim += "; " + setup;
  }

  // After the slices under dp-bounds (which maps `train` by the bounds the slices released).
  SolveOptimum();
  // Memory: the experiment keeps the slices only; `train` is rebuilt from them if asked for
  // (Train()). Under MPI a rank keeps its own nodes' slices only, and no `train`.
  train_name_ = train.name;
  if (slices_late) {
    // Every node is hosted here (one process): `train` is consumed as it is split (dense rows
    // without a second copy of the whole set).
    slices_ = SplitByPartition(std::move(train), partition);
  }
  train = Dataset{};
  train_released_ = !mpi && !network;
}

void ConsensusDriver::RunImpl(runtime::EngineKind engine, int threads, RunObserver* observer,
                              const runtime::StopToken* stop, const CheckpointOptions* checkpoint,
                              const CheckpointContents* resume, RunSummary& summary) const {
  const RunSpec& s = spec;
  const int n = graph.num_nodes();
  const std::int64_t d = info.features;  // (under MPI `train` is empty)
  const Algorithm algorithm = s.algorithm.name();
  const VariantFields vf = FieldsOf(s.algorithm.params);

  std::vector<std::unique_ptr<runtime::NodeProgram>> nodes;
  std::vector<runtime::NodeProgram*> programs;
  std::vector<char> private_nodes(static_cast<std::size_t>(n), 0);
  for (int i = 0; i < n && algorithm != Algorithm::kPdml; ++i) {
    private_nodes[i] = IsPrivate(VariantOf(algorithm), PerNode(vf.node_alpha, vf.alpha, i));
  }
  // One hosted node's program on its prepared slice.
  const auto build = [&](int i) -> std::unique_ptr<runtime::NodeProgram> {
    Eigen::VectorXd f0 = Eigen::VectorXd::Zero(d);
    if (s.algorithm.random_start) {
      Stream rng(s.seed, static_cast<std::uint64_t>(i), 0, Purpose::kInitialState);
      const double sd = 1.0 / std::sqrt(static_cast<double>(d));
      for (std::int64_t k = 0; k < d; ++k) f0[k] = sd * rng.Normal();
    }
    if (algorithm == Algorithm::kPdml) {
      // 000 Phase 2: the server sees only the reported labels (Phase 1, built in Prepare); its
      // own slice with the true labels stays with the evaluator.
      const PdmlParams& pp = s.algorithm.As<PdmlParams>();
      Dataset reported = slices_[i];
      reported.y = reported_[i].y;
      PdmlNodeParams q;
      q.C = NodeC(i);  // 000's C / m_i per row; row weighting: C / B_bar
      q.rho_node = s.algorithm.rho / n;
      q.beta = s.algorithm.eta;
      q.R = pp.R;
      q.V = pp.V;
      q.decay = pp.decay;
      q.max_debias_weight = PdmlMaxDebiasWeight(pp);
      q.noise_seed = s.noise_seed;
      NewtonOptions newton = s.newton;
      newton.borrow_rows = false;  // `reported` is a temporary
      return std::make_unique<PdmlNode>(i, reported, reported_[i].eps, graph.degree(i), s.loss,
                                        newton, q, std::move(f0));
    }
    const ConsensusNodeParams p = NodeParams(i);
    // The node's solver reads its slice in place: the slices outlive the run's nodes.
    NewtonOptions newton = s.newton;
    newton.borrow_rows = true;
    return MakeConsensusNode(i, slices_[i], graph.degree(i), s.loss, newton, p, std::move(f0));
  };
  // A party under dp-bounds maps its rows once every party's bounds release is in (the
  // engine's set-up exchange, PrepareRowsPerNode): its nodes are built then.
  const bool deferred = network && info.scaling == Scaling::kDpBounds;
  for (int i : hosted) {
    if (deferred) {
      nodes.push_back(std::make_unique<DeferredNode>(static_cast<std::size_t>(d),
                                                     [&build, i] { return build(i); }));
    } else {
      nodes.push_back(build(i));
    }
    programs.push_back(nodes.back().get());
  }
  // The solvers' set-up temporaries (a weight per row, nonzeros per row), freed between the
  // arrays they keep, would stay resident through the rounds (0.1-0.2 MB on Adult).
  internal::GiveBackFreeHeap();
  std::vector<std::unique_ptr<runtime::NodeProgram>> evaluated;
  if (mpi) {
    // Private evaluation under MPI: a loss the node leaves to the evaluator (NaN) is computed on
    // the node's own rank, exactly as MetricsSink::Measure would, and travels in its report.
    // Released-only: the node's loss slot is blanked, so no figure computed on its data leaves
    // its rank.
    const bool evaluate = info.metrics == MetricsScope::kAll;
    for (std::size_t k = 0; k < programs.size(); ++k) {
      const Dataset& slice = slices_[hosted[k]];
      std::function<double(std::span<const double>)> fill;
      if (evaluate) {
        fill = [&slice, &s, d](std::span<const double> r) {
          return MeanLoss(slice, s.loss, Eigen::Map<const Eigen::VectorXd>(r.data(), d));
        };
      }
      evaluated.push_back(
          std::make_unique<FilledReport>(*programs[k], static_cast<std::size_t>(d), fill));
      programs[k] = evaluated.back().get();
    }
  }

  // The per-round figure of Gaussian releases (PDML Phase 2, PVP's Gaussian mechanism): each
  // node's mu from public values (rows, degree, the parameters), as its Mechanism computes it.
  GaussianRoundMu gaussian_round_mu;
  if (algorithm == Algorithm::kPdml && !info.privacy_claim.empty()) {
    const PdmlParams& pp = s.algorithm.As<PdmlParams>();
    std::vector<double> sensitivity(static_cast<std::size_t>(n), 0.0);  // 0: outside the view
    for (int i : ViewNodes()) {
      sensitivity[i] = PdmlPhase2Sensitivity(
          NodeC(i), static_cast<std::int64_t>(partition[i].size()), PdmlMaxDebiasWeight(pp),
          s.algorithm.rho / n, s.algorithm.eta, graph.degree(i));
    }
    gaussian_round_mu = [sensitivity, V = pp.V, decay = pp.decay, d](std::size_t i,
                                                                     std::int64_t round) {
      return PdmlRoundMu(sensitivity[i], V, decay, round, d);
    };
  } else if (PvpGaussian(s)) {
    std::vector<double> mu(static_cast<std::size_t>(n), 0.0);  // 0: outside the view
    const double multiplier = s.algorithm.As<PvpParams>().noise_multiplier;
    for (int i : ViewNodes()) {
      mu[i] = PvpGaussianMu(NodeC(i), static_cast<double>(partition[i].size()),
                            s.algorithm.rho_per_node ? s.algorithm.rho : s.algorithm.rho / n,
                            PerNode(s.algorithm.node_eta, s.algorithm.eta, i), graph.degree(i),
                            multiplier, d);
    }
    // The gossip rounds that end the run release nothing new.
    gaussian_round_mu = [mu, last = AlgorithmRounds(s)](std::size_t i, std::int64_t round) {
      return round <= last ? mu[i] : 0.0;
    };
  }
  // With checkpoints, the rows the observer sees are counted for the next checkpoint; a
  // resumed run hands on only the rows after the checkpoint's round (the application appends
  // them to the trace it wrote: CheckpointOptions::on_resume).
  RecordingObserver recorder(observer);
  if (checkpoint != nullptr) observer = &recorder;
  if (resume != nullptr) StartResumedTrace(*checkpoint, *resume, IsReportingRank(*this), recorder);
  MetricsSink sink(s, test, slices_, optimum, n, d, observer, std::move(private_nodes),
                   !info.privacy_claim.empty(), ViewNodes(), !network,
                   std::move(gaussian_round_mu));
  if (s.algorithm.weighting == Weighting::kRow) {
    std::vector<double> node_c(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) node_c[static_cast<std::size_t>(i)] = NodeC(i);
    sink.SetNodeLossWeights(std::move(node_c));
  }
  if (IsBaseline(algorithm)) {
    // Every node releases once, in round 1: the per-round figure is 0 in round 0 and, from
    // round 1, the composition of that one mechanism (max over the nodes measured), as the
    // summary composes the node's recorded mechanisms (same function, same bits).
    std::vector<MechanismRelease> releases;
    double before = 0.0, once = 0.0;
    for (double e : SetupReleaseEpsilons(s)) {
      releases.push_back(MechanismRelease{MechanismKind::kPureEpsilon, 1.0, 1.0, e});
    }
    if (!releases.empty()) before = ComposeTightMechanisms(releases, kTightDelta);
    releases.emplace_back();
    for (int i : ViewNodes()) {
      releases.back() =
          BaselineRelease(NodeParams(i), static_cast<double>(partition[i].size()), d, s.loss);
      once = std::max(once, ComposeTightMechanisms(releases, kTightDelta));
    }
    sink.UseReleaseOnceFigure(before, once);
    sink.SetNodeRegulariser(RhoNode(0));
    if (algorithm == Algorithm::kLocal) sink.MeasureTestErrorPerNode();
  }
  runtime::EngineOptions options;
  options.kind = engine;
  options.threads = threads;
  options.last_round = s.iterations;
  options.stop = stop;
  runtime::EngineResult result;
  if (checkpoint == nullptr) {
    result = RunPrograms(*this, programs, topology_, options, sink);
  } else {
    CheckpointedEngineRun run{*this, programs, {}, n, {}, {}, checkpoint->every};
    for (const auto& node : nodes) {
      auto* state = dynamic_cast<Checkpointable*>(node.get());
      if (state == nullptr)
        throw std::logic_error("checkpoint: a node program without state hooks");
      run.states.push_back(state);
    }
    run.save_sink = [&sink](StateWriter& out) { sink.SaveState(out); };
    run.load_sink = [&sink](StateReader& in) { sink.LoadState(in); };
    result = RunWithCheckpoints(run, topology_, options, sink, *checkpoint, resume, recorder);
  }
  if (IsReportingRank(*this)) sink.Finish();
  if (!info.privacy_claim.empty()) TightAccounting(nodes, &sink, summary);
  // A party learns its dp-bounds in the run's set-up exchange (PrepareRowsPerNode).
  if (network) summary.info.dp_bounds = info.dp_bounds;

  summary.rounds = result.last_reported_round;
  summary.final = sink.last();
  // local learns no consensus model (info.test_error_of): the summary holds none.
  if (algorithm != Algorithm::kLocal) summary.model = sink.mean();
  summary.seconds = sink.elapsed();
  summary.node_frozen_round = sink.frozen_rounds();
  switch (result.outcome) {
    case runtime::EngineOutcome::kCompleted:
      summary.outcome = RunOutcome::kCompleted;
      summary.message = "completed " + std::to_string(s.iterations) + " iterations";
      break;
    case runtime::EngineOutcome::kStopped:
      if (sink.budget_exhausted()) {
        summary.outcome = RunOutcome::kBudgetExhausted;
        summary.message =
            "privacy budget exhausted: every private node froze (its release "
            "refused a round that would exceed its budget); stopped after round " +
            std::to_string(result.last_reported_round);
      } else {
        summary.outcome = RunOutcome::kConverged;
        summary.message = "converged in round " + std::to_string(result.last_reported_round) +
                          " (tolerance " + std::to_string(s.tolerance) + ")";
      }
      break;
    case runtime::EngineOutcome::kCancelled:
      summary.outcome = RunOutcome::kCancelled;
      summary.message = "cancelled after round " + std::to_string(result.last_reported_round);
      break;
    case runtime::EngineOutcome::kFailed:
      summary.outcome = OutcomeOfFailure(result.failure);
      summary.message = result.failure.message;
      break;
  }
}

void ConsensusDriver::CheckRowBound() const {
  // Every private consensus variant's sensitivity (004 Theorem 1, PVP, 002, 003) assumes
  // ||x|| <= 1. Private mode's preparation clips to it; scaling "none" (--no-normalize) leaves
  // the rows as they are, and a run whose rows exceed the bound is refused rather than given an
  // epsilon that does not hold.
  double max_norm = 0.0;
  if (slices_.empty()) {
    max_norm = train.MaxRowNorm();  // slices not yet copied out: every row is some node's
  } else {
    for (int i : hosted) max_norm = std::max(max_norm, slices_[i].MaxRowNorm());
  }
  if (mpi) {
    for (double v : runtime::MpiAllgather(std::vector<double>{max_norm}, mpi->comm))
      max_norm = std::max(max_norm, v);
  }
  constexpr double kSlack = 1e-12;  // rounding of a row scaled to norm 1
  if (max_norm > 1.0 + kSlack) {
    throw InputError("data: a training row has norm " + ShortNumber(max_norm) +
                     " > 1, above the bound ||x|| <= 1 that the privacy analysis of algorithm '" +
                     ChoiceName(spec.algorithm.name()) + "' assumes (scaling " +
                     ChoiceName(info.scaling) +
                     "): refused; use a scaling that clips (data.normalize, the default) or "
                     "rows of norm <= 1");
  }
}

// ComposeTightMechanisms(releases, kTightDelta) from the sink's per-round column when every
// release is pure epsilon (finite, >= 0: otherwise ComposeTight's error is kept) and the column
// composed exactly the costly ones for `node`; nullopt otherwise.
std::optional<double> ReusedColumnEpsilon(MetricsSink* sink, int node,
                                          const std::vector<MechanismRelease>& releases) {
  if (sink == nullptr) return std::nullopt;
  std::vector<double> positive;
  positive.reserve(releases.size());
  for (const MechanismRelease& m : releases) {
    if (m.kind != MechanismKind::kPureEpsilon || !std::isfinite(m.epsilon) || !(m.epsilon >= 0.0))
      return std::nullopt;
    if (m.epsilon > 0.0) positive.push_back(m.epsilon);
  }
  return sink->ColumnEpsilon(node, positive);
}

void ConsensusDriver::TightAccounting(
    const std::vector<std::unique_ptr<runtime::NodeProgram>>& nodes, MetricsSink* sink,
    RunSummary& summary) const {
  const int n = graph.num_nodes();
  std::vector<double> triples;  // (node, tight epsilon, floating-point delta) of hosted nodes
  std::map<std::vector<double>, double> cache;
  for (std::size_t k = 0; k < nodes.size(); ++k) {
    const ConsensusNode* node = AsConsensusNode(nodes[k].get());
    if (node == nullptr) continue;
    // Nodes with the same sequence of releases share one query (the key lists every field).
    // dp-bounds, dp-standardize: the node's set-up releases (pure epsilon) came first.
    std::vector<MechanismRelease> releases;
    for (double e : SetupReleaseEpsilons(spec)) {
      releases.push_back(MechanismRelease{MechanismKind::kPureEpsilon, 1.0, 1.0, e});
    }
    const std::vector<MechanismRelease>& released = node->released_mechanisms();
    releases.insert(releases.end(), released.begin(), released.end());
    // The per-round column composed the same pure-epsilon terms already (the usual case): its
    // figure has ComposeTight's bits (TightTrace::NodeEpsilon), with no fold repeated.
    std::optional<double> epsilon = ReusedColumnEpsilon(sink, hosted[k], releases);
    if (!epsilon) {
      std::vector<double> key;
      key.reserve(4 * releases.size());
      for (const MechanismRelease& m : releases) {
        key.insert(key.end(), {static_cast<double>(m.kind), m.sensitivity, m.scale, m.epsilon});
      }
      auto it = cache.find(key);
      if (it == cache.end()) {
        it = cache.emplace(key, ComposeTightMechanisms(releases, kTightDelta)).first;
      }
      epsilon = it->second;
    }
    triples.insert(triples.end(),
                   {static_cast<double>(hosted[k]), *epsilon, node->release().spent_delta()});
  }
  if (mpi) triples = runtime::MpiAllgather(triples, mpi->comm);
  summary.node_tight_epsilon.assign(static_cast<std::size_t>(n), kNaN);
  summary.tight_epsilon = 0.0;
  // The figure is (epsilon at kTightDelta for the ideal mechanisms, kTightDelta plus the
  // snapped releases' floating-point delta): (eps_t, delta_t) releases compose to
  // (eps(delta'), delta' + sum_t delta_t) (accounting.h, SnappedReleaseDelta).
  summary.sampler_delta = 0.0;
  const std::vector<int> viewed = ViewNodes();
  for (std::size_t k = 0; k + 2 < triples.size(); k += 3) {
    const int node = static_cast<int>(triples[k]);
    summary.node_tight_epsilon[static_cast<std::size_t>(node)] = triples[k + 1];
    if (!std::binary_search(viewed.begin(), viewed.end(), node)) continue;
    summary.tight_epsilon = std::max(summary.tight_epsilon, triples[k + 1]);
    summary.sampler_delta = std::max(summary.sampler_delta, triples[k + 2]);
  }
  summary.tight_delta = kTightDelta + summary.sampler_delta;
}

}  // namespace

std::unique_ptr<Experiment::Driver> MakeConsensusDriver() {
  return std::make_unique<ConsensusDriver>();
}

}  // namespace dpadmm