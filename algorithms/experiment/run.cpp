#include "dpadmm/experiment/run.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "consensus/consensus_admm.h"
#include "data/data_source.h"
#include "consensus/pdml_node.h"
#include "dpadmm/privacy/accounting.h"
#include "dpadmm/core/error.h"
#include "dpadmm/data/generators.h"
#include "dpadmm/data/loaders.h"
#include "dpadmm/solver/local_solver.h"
#include "dpadmm/consensus/pdml.h"
#include "dpadmm/core/random.h"

namespace dpadmm {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

Graph BuildGraph(const GraphSpec& g, std::uint64_t seed) {
  if (g.topology == "ring") return MakeRing(g.nodes);
  if (g.topology == "star") return MakeStar(g.nodes);
  if (g.topology == "complete") return MakeComplete(g.nodes);
  if (g.topology == "random") return MakeRandomConnected(g.nodes, g.edges, seed);
  if (g.topology == "file") return LoadEdgeList(g.file);
  int rows = g.grid_rows;
  if (rows == 0) {
    rows = 1;
    for (int r = 1; r * r <= g.nodes; ++r)
      if (g.nodes % r == 0) rows = r;
  }
  return MakeGrid(rows, g.nodes / rows);
}

Partition BuildPartition(const PartitionSpec& p, std::int64_t rows, int nodes, std::uint64_t seed) {
  if (p.kind == "even") return PartitionEven(rows, nodes, seed);
  if (p.kind == "proportional") {
    if (static_cast<int>(p.proportions.size()) != nodes) {
      throw InputError("partition.proportions must have one value per node (" +
                       std::to_string(nodes) + "), got " + std::to_string(p.proportions.size()));
    }
    return PartitionProportional(rows, p.proportions, seed);
  }
  if (p.kind == "dirichlet") return PartitionDirichlet(rows, nodes, p.dirichlet_alpha, seed);
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
  switch (v) {
    case ConsensusVariant::kDvp:
      return "dynamic alpha_i(t)-DP per node and iteration (004 Theorem 1); the reported total "
             "is the plain composition max_i sum_t alpha_i(t)";
    case ConsensusVariant::kPvp:
      return "alpha_i(t)-DP per node and release of the exact primal update (primal variable "
             "perturbation); the reported total is the plain composition max_i sum_t alpha_i(t)";
    case ConsensusVariant::kMadmm:
      return "total privacy loss over the whole run P(T) = max_i sum_t C (1.4 c1 + alpha_i(t)) / "
             "(eta_i(t) V_i B_i) (002)";
    case ConsensusVariant::kPrivateMradmm:
      return "beta-DP over the whole run, beta = max_i sum_k (2C/B_i)(1.4 c1 / (rho/N + 2 "
             "eta_i(2k-1) V_i) + alpha_i(k)) (003 Theorem V.1, eq. (32))";
    default:
      return "none: the algorithm is not private";
  }
}

// Turns the nodes' reports of each round into RoundMetrics (off the nodes' critical path: the
// engine calls it from whichever thread completes a round, one round at a time, in order).
class MetricsSink : public runtime::RoundSink {
 public:
  // private_nodes[i]: node i's releases cost privacy, so its budget (if any) may freeze it.
  MetricsSink(const RunSpec& spec, const Dataset& test, const std::vector<Dataset>& slices,
              const Eigen::VectorXd& optimum, int nodes, std::int64_t dim, RunObserver* observer,
              std::vector<char> private_nodes)
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
        private_nodes_(std::move(private_nodes)) {}

  bool OnRound(std::int64_t round, const runtime::ReportTable& t) override {
    // What each node had spent before this round, whether or not that round was measured.
    previous_privacy_.assign(static_cast<std::size_t>(nodes_), 0.0);
    if (!table_.empty()) {
      for (int i = 0; i < nodes_; ++i) previous_privacy_[i] = table_[i * width_ + dim_ + 1];
    }
    table_.assign(t[0].data(), t[0].data() + static_cast<std::size_t>(nodes_) * t.width());
    width_ = t.width();
    last_round_ = round;
    const int every = spec_.metrics_every;
    const bool due = round == 0 || round == spec_.iterations || (every > 0 && round % every == 0);
    if (round < spec_.iterations &&
        std::find(private_nodes_.begin(), private_nodes_.end(), 1) != private_nodes_.end()) {
      // Each node's release enforces its own budget (the node freezes alone); the run ends
      // once every private node has frozen. The sink only reads the flags.
      budget_exhausted_ = true;
      for (int i = 0; i < nodes_; ++i) {
        const double* r = table_.data() + static_cast<std::size_t>(i) * width_;
        if (private_nodes_[i] && r[dim_ + ConsensusReport::kFrozen] == 0.0) {
          budget_exhausted_ = false;
        }
      }
      if (budget_exhausted_) {
        if (measured_round_ != round) Measure(round);
        Emit();
        return false;
      }
    }
    if (!due && spec_.tolerance <= 0.0) return true;
    previous_mean_ = mean_;
    Measure(round);
    if (due) Emit();
    if (spec_.tolerance > 0.0 && round >= 1) {
      const double scale = std::max(1.0, mean_.norm());
      if ((mean_ - previous_mean_).norm() <= spec_.tolerance * scale &&
          last_.consensus_gap <= spec_.tolerance * scale) {
        converged_ = true;
        if (!due) Emit();
        return false;
      }
    }
    return true;
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
  // Per node: the round its release was refused (it froze), or -1; from the last report.
  std::vector<std::int64_t> frozen_rounds() const {
    std::vector<std::int64_t> rounds(static_cast<std::size_t>(nodes_), -1);
    for (int i = 0; i < nodes_ && !table_.empty(); ++i) {
      rounds[i] = static_cast<std::int64_t>(
          table_[i * width_ + dim_ + ConsensusReport::kFrozenRound]);
    }
    return rounds;
  }
  double elapsed() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }

  void Measure(std::int64_t round) {
    RoundMetrics m;
    m.round = round;
    const double reg = 0.5 * (spec_.algorithm.rho_per_node ? spec_.algorithm.rho : spec_.algorithm.rho / nodes_);
    mean_.setZero();
    m.node_privacy.resize(nodes_);
    m.node_noise.resize(nodes_);
    for (int i = 0; i < nodes_; ++i) {
      const auto f = Model(i);
      const double* r = table_.data() + static_cast<std::size_t>(i) * width_;
      // A node reports NaN when its round did not touch the data (R-ADMM even rounds, PVP's
      // released point); the evaluation computes that loss here, outside the node.
      const double mean_loss = std::isnan(r[dim_]) ? MeanLoss(slices_[i], spec_.loss, f) : r[dim_];
      m.node_privacy[i] = r[dim_ + 1];
      m.node_noise[i] = r[dim_ + 3];
      m.privacy_loss = std::max(m.privacy_loss, r[dim_ + 1]);
      m.privacy_round = std::max(m.privacy_round, r[dim_ + 1] - PreviousPrivacy(i));
      m.train_loss += mean_loss;
      m.objective += spec_.algorithm.C * mean_loss + reg * f.squaredNorm();
      mean_ += f;
    }
    m.train_loss /= nodes_;
    mean_ /= nodes_;
    m.test_error = test_.rows() > 0 ? TestError(test_, mean_) : kNaN;
    m.node_distance.resize(nodes_);
    for (int i = 0; i < nodes_; ++i) m.node_distance[i] = (Model(i) - mean_).norm();
    for (int i = 0; i < nodes_; ++i) {
      for (int j = i + 1; j < nodes_; ++j) {
        m.consensus_gap = std::max(m.consensus_gap, (Model(i) - Model(j)).norm());
      }
    }
    if (optimum_.size() == dim_) {
      const double scale = std::max(optimum_.norm(), std::numeric_limits<double>::min());
      for (int i = 0; i < nodes_; ++i) {
        m.distance_to_optimum = std::max(m.distance_to_optimum, (Model(i) - optimum_).norm() / scale);
      }
    } else {
      m.distance_to_optimum = kNaN;
    }
    m.seconds = elapsed();
    last_ = m;
    measured_round_ = round;
  }
  double PreviousPrivacy(int i) const { return previous_privacy_[i]; }
  void Emit() {
    emitted_round_ = last_.round;
    if (observer_ != nullptr) observer_->OnRound(last_);
  }

 private:
  Eigen::Map<const Eigen::VectorXd> Model(int i) const {
    return Eigen::Map<const Eigen::VectorXd>(table_.data() + static_cast<std::size_t>(i) * width_, dim_);
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
  std::vector<double> table_;  // copy of the last reported round
  std::vector<double> previous_privacy_;  // per node, spent up to the previous round
  std::size_t width_ = 0;
  std::int64_t last_round_ = -1, measured_round_ = -1, emitted_round_ = -1;
  RoundMetrics last_;
  std::vector<char> private_nodes_;
  bool converged_ = false;
  bool budget_exhausted_ = false;
};

}  // namespace

const char* ToString(RunOutcome outcome) {
  switch (outcome) {
    case RunOutcome::kCompleted: return "completed";
    case RunOutcome::kConverged: return "converged";
    case RunOutcome::kCancelled: return "cancelled";
    case RunOutcome::kDiverged: return "diverged";
    case RunOutcome::kBudgetExhausted: return "budget exhausted";
  }
  return "unknown";
}

double TestError(const Dataset& data, const Eigen::VectorXd& f) {
  if (data.rows() == 0) return kNaN;
  const Eigen::VectorXd scores = VisitRows(data, [&](const auto& x) -> Eigen::VectorXd { return x * f; });
  std::int64_t wrong = 0;
  for (Eigen::Index n = 0; n < scores.size(); ++n) {
    const double predicted = scores[n] >= 0.0 ? 1.0 : -1.0;
    wrong += predicted != data.y[n];
  }
  return static_cast<double>(wrong) / static_cast<double>(data.rows());
}

struct Experiment::Impl {
  RunSpec spec;
  RunInfo info;
  Dataset train, test;
  Graph graph{2, {{0, 1}}};
  Partition partition;
  std::vector<Dataset> slices;
  runtime::Topology topology;
  Eigen::VectorXd optimum;
  std::vector<ReportedLabels> reported;  // pdml: Phase 1 labels per node (true ones stay in slices)
};

Experiment::Experiment(RunSpec spec) : impl_(std::make_unique<Impl>()) {
  spec.Validate();
  if (!runtime::EngineAvailable(runtime::ParseEngineKind(spec.engine))) {
    throw InputError("engine: '" + spec.engine + "' is not available in this build (use serial)");
  }
  Impl& m = *impl_;
  m.spec = std::move(spec);
  const RunSpec& s = m.spec;

  TrainTest data = LoadDataSource(s.data, s.seed, SparseHighDimOptions{}, "data.source");
  m.train = std::move(data.train);
  m.test = std::move(data.test);
  if (s.data.add_bias) {
    AddBiasFeature(m.train);
    AddBiasFeature(m.test);
  }
  m.info.max_row_norm_before = std::max(m.train.MaxRowNorm(), m.test.MaxRowNorm());
  if (s.data.normalize) m.info.normalization_factor = NormalizeRows(m.train, m.test);

  m.graph = BuildGraph(s.graph, s.seed);
  m.partition = BuildPartition(s.partition, m.train.rows(), m.graph.num_nodes(), s.seed);
  for (const auto& rows : m.partition) m.slices.push_back(m.train.Subset(rows));
  m.topology.neighbors = m.graph.adjacency();
  if (s.algorithm.name == "private_mradmm") {
    // 003 Algorithm 3: 2 c1 < (B_i / C)(rho/N + 2 eta_i(1) V_i) for every node, eta_i(1) = eta q1.
    const int n = m.graph.num_nodes();
    const double rho_total = s.algorithm.rho_per_node ? s.algorithm.rho * n : s.algorithm.rho;
    for (int i = 0; i < n; ++i) {
      const double eta1 = PerNode(s.algorithm.node_eta, s.algorithm.eta, i) *
                          PerNode(s.algorithm.node_q1, s.algorithm.q1, i);
      if (!MrAdmmFirstPenaltyOk(s.algorithm.C, static_cast<double>(m.slices[i].rows()),
                                s.loss.CurvatureBound(), rho_total, n, eta1, m.graph.degree(i))) {
        throw InputError("algorithm.eta: node " + std::to_string(i) + " violates 003 Algorithm 3's "
                         "condition 2 c1 < (B_i/C)(rho/N + 2 eta_i(1) V_i) with eta_i(1) = " +
                         std::to_string(eta1) + ", B_i = " + std::to_string(m.slices[i].rows()) +
                         ", V_i = " + std::to_string(m.graph.degree(i)) + ": increase eta");
      }
    }
  }

  RunInfo& info = m.info;
  info.dataset = s.data.source == "twonorm" || s.data.source == "ringnorm" || s.data.source == "sparse"
                     ? s.data.source + " (generated)"
                     : s.data.source + ": " + s.data.train_path;
  info.train_rows = m.train.rows();
  info.test_rows = m.test.rows();
  info.features = m.train.cols();
  info.sparse = m.train.is_sparse();
  info.nodes = m.graph.num_nodes();
  info.edges = m.graph.num_edges();
  for (const auto& slice : m.slices) info.rows_per_node.push_back(slice.rows());
  info.algorithm = s.algorithm.name;
  if (s.algorithm.name == "pdml") {
    // 000 Phase 1, once per run: each user randomizes their own label (seeded per node).
    const LabelPrivacySpec labels{s.algorithm.label_eps, s.algorithm.label_eps_groups,
                                  s.algorithm.label_eps_shares};
    for (int i = 0; i < m.graph.num_nodes(); ++i) {
      m.reported.push_back(RandomizeLabels(m.slices[i].y, labels, s.seed, static_cast<std::uint64_t>(i)));
    }
    info.privacy_guarantee = PdmlPrivacyGuarantee(m.reported, s.algorithm.pdml_R,
                                                  s.algorithm.pdml_V, s.algorithm.pdml_decay);
  } else {
    info.privacy_guarantee = PrivacyGuarantee(ParseConsensusVariant(s.algorithm.name),
                                              IsPrivate(ParseConsensusVariant(s.algorithm.name),
                                                        s.algorithm.alpha) ||
                                                  !s.algorithm.node_alpha.empty());
  }
  info.loss = s.loss.Name();
  info.engine = s.engine;
  info.threads = s.threads;
  info.optimum_objective = kNaN;
  info.optimum_test_error = kNaN;

  if (s.compute_optimum) {
    // The centralized problem sum_i [(C/B_i) sum_{n in D_i} L + (rho/N) ||f||^2/2], solved by
    // the same Newton solver with per-sample weights C/B_{node(n)} and a = rho.
    Eigen::VectorXd weights(m.train.rows());
    for (const auto& rows : m.partition) {
      for (std::int64_t r : rows) weights[r] = s.algorithm.C / static_cast<double>(rows.size());
    }
    NewtonOptions newton = s.newton;
    newton.max_iterations = std::max(newton.max_iterations, 200);
    LocalSolver central(m.train, weights, s.loss, newton);
    m.optimum = Eigen::VectorXd::Zero(m.train.cols());
    const double rho_total = s.algorithm.rho_per_node ? s.algorithm.rho * m.graph.num_nodes() : s.algorithm.rho;
    const SolveReport r = central.Solve(rho_total, Eigen::VectorXd::Zero(m.train.cols()), m.optimum);
    // An unsolved reference is an outcome to report, not a reason to refuse the run: a finite
    // best point still gives approximate distances; a non-finite one gives none.
    if (!m.optimum.allFinite() || !std::isfinite(r.objective)) {
      m.optimum.resize(0);
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
      info.optimum_test_error = TestError(m.test, m.optimum);
    }
  }
}

Experiment::~Experiment() = default;
Experiment::Experiment(Experiment&&) noexcept = default;
Experiment& Experiment::operator=(Experiment&&) noexcept = default;

const RunSpec& Experiment::spec() const { return impl_->spec; }
const RunInfo& Experiment::info() const { return impl_->info; }
const Dataset& Experiment::train() const { return impl_->train; }
const Dataset& Experiment::test() const { return impl_->test; }
const Graph& Experiment::graph() const { return impl_->graph; }
const Partition& Experiment::partition() const { return impl_->partition; }
const Eigen::VectorXd& Experiment::optimum() const { return impl_->optimum; }

RunSummary Experiment::Run(RunObserver* observer, const runtime::StopToken* stop) const {
  return RunOn(impl_->spec.engine, impl_->spec.threads, observer, stop);
}

RunSummary Experiment::RunOn(const std::string& engine, int threads, RunObserver* observer,
                             const runtime::StopToken* stop) const {
  runtime::EngineKind kind;
  try {
    kind = runtime::ParseEngineKind(engine);
  } catch (const std::invalid_argument& e) {
    throw InputError(std::string("engine: ") + e.what());
  }
  if (!runtime::EngineAvailable(kind)) {
    throw InputError("engine: '" + engine + "' is not available in this build (use serial)");
  }
  if (threads < 0) throw InputError("threads must be >= 0 (0 = all cores), got " + std::to_string(threads));
  const Impl& m = *impl_;
  const RunSpec& s = m.spec;
  const int n = m.graph.num_nodes();
  const std::int64_t d = m.train.cols();

  const bool pdml = s.algorithm.name == "pdml";
  const ConsensusVariant variant = pdml ? ConsensusVariant::kAdmm : ParseConsensusVariant(s.algorithm.name);
  std::vector<std::unique_ptr<runtime::NodeProgram>> nodes;
  std::vector<runtime::NodeProgram*> programs;
  std::vector<char> private_nodes(static_cast<std::size_t>(n), 0);
  for (int i = 0; i < n; ++i) {
    ConsensusNodeParams p;
    p.variant = variant;
    p.C = s.algorithm.C;
    p.rho_node = s.algorithm.rho_per_node ? s.algorithm.rho : s.algorithm.rho / n;
    p.num_nodes = n;
    p.eta = PerNode(s.algorithm.node_eta, s.algorithm.eta, i);
    p.q1 = PerNode(s.algorithm.node_q1, s.algorithm.q1, i);
    p.alpha = PerNode(s.algorithm.node_alpha, s.algorithm.alpha, i);
    p.q2 = PerNode(s.algorithm.node_q2, s.algorithm.q2, i);
    p.gamma = s.algorithm.gamma;
    p.dual_step = s.algorithm.dual_step;
    p.seed = s.seed;
    p.privacy_budget = PerNode(s.algorithm.node_privacy_budget, s.algorithm.privacy_budget, i);
    private_nodes[i] = !pdml && IsPrivate(variant, p.alpha);
    Eigen::VectorXd f0 = Eigen::VectorXd::Zero(d);
    if (s.algorithm.random_start) {
      Stream rng(s.seed, static_cast<std::uint64_t>(i), 0, Purpose::kInitialState);
      const double sd = 1.0 / std::sqrt(static_cast<double>(d));
      for (std::int64_t k = 0; k < d; ++k) f0[k] = sd * rng.Normal();
    }
    if (pdml) {
      // 000 Phase 2: the server sees only the reported labels (Phase 1, built in the
      // constructor); its own slice with the true labels stays with the evaluator.
      Dataset reported = m.slices[i];
      reported.y = m.reported[i].y;
      PdmlNodeParams q;
      q.C = s.algorithm.C;
      q.rho_node = s.algorithm.rho / n;
      q.beta = s.algorithm.eta;
      q.R = s.algorithm.pdml_R;
      q.V = s.algorithm.pdml_V;
      q.decay = s.algorithm.pdml_decay;
      q.seed = s.seed;
      nodes.push_back(std::make_unique<PdmlNode>(i, reported, m.reported[i].eps, m.graph.degree(i),
                                                 s.loss, s.newton, q, std::move(f0)));
    } else {
      nodes.push_back(MakeConsensusNode(i, m.slices[i], m.graph.degree(i), s.loss, s.newton, p,
                                        std::move(f0)));
    }
    programs.push_back(nodes.back().get());
  }

  RunSummary summary;
  summary.info = m.info;
  summary.info.engine = engine;
  summary.info.threads = threads;
  if (observer != nullptr) observer->OnStart(summary.info);
  MetricsSink sink(s, m.test, m.slices, m.optimum, n, d, observer, std::move(private_nodes));
  runtime::EngineOptions options;
  options.kind = kind;
  options.threads = threads;
  options.last_round = s.iterations;
  options.stop = stop;
  const runtime::EngineResult result = runtime::Run(programs, m.topology, options, sink);
  sink.Finish();

  summary.rounds = result.last_reported_round;
  summary.final = sink.last();
  summary.model = sink.mean();
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
        summary.message = "privacy budget exhausted: every private node froze (its release "
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
      summary.outcome = RunOutcome::kDiverged;
      summary.message = result.failure.message;
      break;
  }
  return summary;
}

RunSummary RunExperiment(const RunSpec& spec, RunObserver* observer, const runtime::StopToken* stop) {
  return Experiment(spec).Run(observer, stop);
}

}  // namespace dpadmm
