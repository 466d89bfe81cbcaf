// SPDX-License-Identifier: Apache-2.0
// The vertical family's driver (001): the column split, the baselines, ADMM sharing on the
// engines (a coordinator and M parties on a star) and the SGD baseline loop.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <numeric>
#include <optional>
#include <sstream>
#include <stdexcept>

#include "dpadmm/core/error.h"
#include "dpadmm/core/random.h"
#include "dpadmm/privacy/samplers.h"
#include "dpadmm/privacy/sharing_accounting.h"
#include "dpadmm/run/spec_json.h"
#include "dpadmm/runtime/mpi.h"
#include "dpadmm/solver/local_solver.h"
#include "dpadmm/solver/loss.h"
#include "persistence/checkpoint.h"
#include "placement/placement.h"
#include "run/driver.h"
#include "sharing/programs.h"

#include "core/numbers.h"

namespace dpadmm {
namespace {

constexpr const char* kPaper16Label =
    "paper16 (001 eq. (16)): NOT DP as stated (the noise covariance is made of the private "
    "data: releases lie in col(D_m))";

Baseline SolveBaseline(const Dataset& train, const Dataset& test, double lambda,
                       Eigen::VectorXd& f) {
  // min (1/N) sum_n L(y_n x_n^T f) + (lambda/2) ||f||^2: LocalSolver with w_n = 1/N, a = lambda.
  NewtonOptions newton;
  newton.max_iterations = 200;
  newton.gradient_tolerance = 1e-12;
  newton.borrow_rows = true;  // `train` outlives `solver`
  LocalSolver solver(train, 1.0 / static_cast<double>(train.rows()), Loss{}, newton);
  f = Eigen::VectorXd::Zero(train.cols());
  const SolveReport r = solver.Solve(lambda, Eigen::VectorXd::Zero(train.cols()), f);
  if (r.status != SolveStatus::kConverged || !f.allFinite()) {
    throw std::runtime_error(std::string("sharing baseline: Newton solver ended with ") +
                             ToString(r.status));
  }
  Baseline b;
  b.computed = true;
  b.objective = r.objective;
  b.train_loss = r.loss_sum;
  b.test_loss = MeanLogLoss(test, f);
  b.test_error = TestError(test, f);
  return b;
}

// The party layout of either sharing algorithm.
const PartyLayout& LayoutOf(const RunSpec& s) {
  if (s.algorithm.name() == Algorithm::kSharing) return s.algorithm.As<SharingParams>();
  return s.algorithm.As<SgdParams>();
}

// Metrics of the concatenated model [x_1; ...; x_M]. `train_loss` is the coordinator's when it
// has it (ADMM), else computed here. `dp`: the privacy columns (else 0). An empty part is one
// the measuring party does not see (party mode, Experiment::Driver::view): the figures that
// need it are NaN, and the privacy columns are those of the parts it sees (NaN for none).
RoundMetrics Measure(const SharingParams* dp, const RunInfo* info, double lambda, double epsilon,
                     const Dataset& test, double train_loss,
                     const std::vector<Eigen::VectorXd>& parts, const Eigen::VectorXd& model,
                     std::int64_t round) {
  RoundMetrics m;
  m.round = round;
  m.train_loss = train_loss;
  m.max_x_norm = 0.0;
  double reg = 0.0;
  bool all_seen = true, any_seen = false;
  for (const auto& x : parts) {
    if (x.size() == 0) {
      all_seen = false;
      continue;
    }
    any_seen = true;
    reg += x.squaredNorm();
    m.max_x_norm = std::max(m.max_x_norm, x.norm());
  }
  if (!any_seen) m.max_x_norm = kNaN;
  m.objective = all_seen ? train_loss + 0.5 * lambda * reg : kNaN;
  m.test_loss = MeanLogLoss(test, model);
  m.test_error = TestError(test, model);
  m.epsilon_iteration = m.delta_iteration = m.epsilon_total = m.delta_total = 0.0;
  if (dp != nullptr && dp->mechanism == "paper16") {
    m.epsilon_iteration = epsilon;
    m.delta_iteration = dp->delta;
    m.epsilon_total = SharingTotalEpsilon(epsilon, round, dp->delta_prime);
    m.delta_total = SharingTotalDelta(dp->delta, round, dp->delta_prime);
  } else if (dp != nullptr) {
    // Tight: each party's releases so far are one Gaussian with mu^2 = t (C_m / sigma_m)^2;
    // the worst party. Per iteration: the same at t = 1.
    for (std::size_t p = 0; p < info->party_sigma.size(); ++p) {
      if (parts[p].size() == 0) continue;  // another party's releases
      const double c = info->party_sensitivity[p], sigma = info->party_sigma[p];
      m.epsilon_iteration =
          std::max(m.epsilon_iteration, SharingTightEpsilon(c, sigma, 1, dp->delta));
      m.epsilon_total = std::max(m.epsilon_total, SharingTightEpsilon(c, sigma, round, dp->delta));
    }
    m.delta_iteration = dp->delta;
    m.delta_total = round > 0 ? dp->delta : 0.0;
  }
  if (dp != nullptr && !any_seen) {  // the coordinator's view: it releases nothing noisy
    m.epsilon_iteration = m.delta_iteration = m.epsilon_total = m.delta_total = kNaN;
  }
  return m;
}

// Released-only runs: the figures evaluated on private data (the coordinator's training loss
// and objective, its residual and dual norm, the norms of the parties' private iterates) are
// left NaN.
void HidePrivateEvaluation(RoundMetrics& m) {
  m.train_loss = m.objective = m.primal_residual = m.max_x_norm = m.y_norm = kNaN;
}

class SharingSink : public runtime::RoundSink {
 public:
  // `view`: the nodes whose reports this sink reads (empty: all); a party of a network run
  // sees its own node only, and the figures of the others are NaN (Measure).
  SharingSink(const SharingParams& params, const Dataset& test, const RunInfo& info,
              RunObserver* observer, const std::vector<int>& view)
      : params_(params),
        test_(test),
        info_(info),
        observer_(observer),
        start_(std::chrono::steady_clock::now()),
        model_(Eigen::VectorXd::Zero(info.features)),
        seen_(info.party_features.size() + 1, view.empty() ? 1 : 0) {
    for (int node : view) seen_[static_cast<std::size_t>(node)] = 1;
    // A run that ends before round 0 (a party refused at set-up) has measured nothing.
    last_.train_loss = last_.objective = last_.test_error = kNaN;
  }

  bool OnRound(std::int64_t round, const runtime::ReportTable& t) override {
    if (round % 2 == 1) return true;  // the party phase: iteration incomplete
    const int M = static_cast<int>(info_.party_features.size());
    std::vector<Eigen::VectorXd> parts(static_cast<std::size_t>(M));
    for (int p = 0; p < M; ++p) {
      auto block = model_.segment(info_.party_offsets[p], info_.party_features[p]);
      if (!seen_[p + 1]) {
        block.setConstant(kNaN);
        continue;
      }
      const auto r = t[p + 1];
      parts[p] = Eigen::Map<const Eigen::VectorXd>(r.data(), info_.party_features[p]);
      block = parts[p];
    }
    const bool coordinator = seen_[0] != 0;
    const auto c = t[0];
    last_ = Measure(params_.dp ? &params_ : nullptr, &info_, params_.lambda, info_.epsilon, test_,
                    coordinator ? c[0] : kNaN, parts, model_, round / 2);
    const double n = static_cast<double>(info_.train_rows);
    last_.primal_residual = coordinator ? c[1] / std::sqrt(n) : kNaN;
    last_.y_norm = coordinator ? c[2] : kNaN;
    if (!evaluate_) HidePrivateEvaluation(last_);
    last_.seconds = elapsed();
    epoch_ = round / 2;
    if (observer_ != nullptr) observer_->OnRound(last_);
    return true;
  }

  double elapsed() const { return SecondsSince(start_); }
  // Checkpoints: the model, the last row, the epoch and the wall time so far (so that the
  // seconds column continues).
  void SaveState(StateWriter& out) const {
    out.Vec(model_);
    SaveMetrics(out, last_);
    out.I64(epoch_);
    out.F64(elapsed());
  }
  void LoadState(StateReader& in) {
    model_ = in.EVec("metrics model", info_.features);
    last_ = LoadMetrics(in);
    epoch_ = in.I64("metrics epoch");
    if (epoch_ < -1) in.Fail("metrics epoch", "negative");
    ContinueClock(in.F64("metrics seconds"));
    in.ExpectEnd("metrics state");
  }
  void ContinueClock(double seconds) {
    if (std::isfinite(seconds) && seconds >= 0.0 && seconds < 1e9) {
      start_ -= std::chrono::duration_cast<std::chrono::steady_clock::duration>(
          std::chrono::duration<double>(seconds));
    }
  }
  const RoundMetrics& last() const { return last_; }
  const Eigen::VectorXd& model() const { return model_; }
  std::int64_t epoch() const { return epoch_; }

 private:
  const SharingParams& params_;
  const Dataset& test_;
  const RunInfo& info_;
  RunObserver* observer_;
  std::chrono::steady_clock::time_point start_;
  Eigen::VectorXd model_;
  RoundMetrics last_;
  std::int64_t epoch_ = -1;
  std::vector<char> seen_;  // per node: its report is read
  const bool evaluate_ = info_.metrics == MetricsScope::kAll;
};

// The SGD-based method for distributed features (001's baseline, FDML of Hu et al. 2019), run
// as a plain loop, not through the engine (it is a baseline): in one process every party's step
// is simulated; under MPI each rank steps its own parties and the per-batch exchange (partial
// scores to the label holder, loss derivatives back) crosses ranks by collectives. Per mini-batch
// B: every party computes its partial scores D_m[B] w_m; the scores are summed and go through the
// loss; party m steps its own weights by
//   w_m <- w_m - eta_e ( (1/|B|) sum_{n in B} L'(y_n s_n) y_n D_m[n]^T + lambda w_m ),
// the mini-batch gradient of the training objective with respect to w_m. Rows are visited in
// a fresh seeded random order each epoch (Stream(seed, 0, epoch, kSampling)); initial weights
// are N(0, sgd_init_sd^2) (Stream(seed, m, 0, kInitialState)).
void SgdStep(const DenseRows& x, const std::vector<std::int64_t>& rows, std::size_t begin,
             std::size_t end, const Eigen::VectorXd& coeff, double step, Eigen::VectorXd& w) {
  for (std::size_t k = begin; k < end; ++k) {
    w -= (step * coeff[static_cast<Eigen::Index>(k - begin)]) * x.row(rows[k]).transpose();
  }
}

void SgdStep(const SparseRows& x, const std::vector<std::int64_t>& rows, std::size_t begin,
             std::size_t end, const Eigen::VectorXd& coeff, double step, Eigen::VectorXd& w) {
  for (std::size_t k = begin; k < end; ++k) {
    const double c = step * coeff[static_cast<Eigen::Index>(k - begin)];
    for (SparseRows::InnerIterator it(x, rows[k]); it; ++it) w[it.col()] -= c * it.value();
  }
}

template <class Matrix>
double RowDot(const Matrix& x, std::int64_t row, const Eigen::VectorXd& w) {
  return x.row(row).dot(w);
}

class SharingDriver : public Experiment::Driver {
 public:
  void Prepare() override;
  void Run(runtime::EngineKind engine, int threads, RunObserver* observer,
           const runtime::StopToken* stop, RunSummary& summary) const override;
  void RunCheckpointed(runtime::EngineKind engine, int threads, RunObserver* observer,
                       const runtime::StopToken* stop, const CheckpointOptions& options,
                       const CheckpointContents* resume, RunSummary& summary) const override;

 private:
  // `checkpoint` null: a plain run. Otherwise checkpoints every checkpoint->every iterations
  // (ADMM) or epochs (SGD), continued from `resume` when given.
  void RunAdmm(runtime::EngineKind engine, int threads, RunObserver* observer,
               const runtime::StopToken* stop, RunSummary& summary,
               const CheckpointOptions* checkpoint = nullptr,
               const CheckpointContents* resume = nullptr) const;
  void RunSgd(RunObserver* observer, const runtime::StopToken* stop, RunSummary& summary,
              const CheckpointOptions* checkpoint = nullptr,
              const CheckpointContents* resume = nullptr) const;

  // Party mode (network set): this party hosts one node, and its rows have that node's width.
  void CheckPartyData(const std::vector<std::int64_t>& sizes) const;

  std::vector<Dataset> blocks_;  // D_m, without labels (under MPI: the hosted parties' only)
  Eigen::VectorXd labels_;       // the coordinator's (node 0's) labels, where it is hosted
  std::vector<std::unique_ptr<sharing::XUpdate>> xupdates_;
  std::vector<std::unique_ptr<sharing::GramNoise>> noises_;
  Eigen::VectorXd local_;
  runtime::Topology topology_;
};

void SharingDriver::CheckPartyData(const std::vector<std::int64_t>& sizes) const {
  const std::string self = "party '" + network->self + "'";
  if (hosted.size() != 1) {
    throw InputError("node_parties: " + self + " hosts " + std::to_string(hosted.size()) +
                     " nodes; in the sharing family each party hosts one: the coordinator "
                     "(node 0, the labels) or one feature party (node m, block m)");
  }
  const int node = hosted[0];
  if (node == 0) {
    if (train.cols() != 0) {
      throw InputError("data: " + self +
                       " is the coordinator (node 0): it holds the labels only, not " +
                       std::to_string(train.cols()) + " feature columns");
    }
    return;
  }
  const std::int64_t want = sizes[static_cast<std::size_t>(node - 1)];
  if (train.cols() != want) {
    const bool bias = spec.data.add_bias && node == static_cast<int>(sizes.size());
    throw InputError("data: " + self + " (feature party " + std::to_string(node) + ") has " +
                     std::to_string(train.cols() - (bias ? 1 : 0)) + " columns but " +
                     "algorithm.sharing.party_features[" + std::to_string(node - 1) +
                     "] gives it " + std::to_string(want) +
                     (bias ? " (the intercept column, added to the last block, included)" : ""));
  }
}

void SharingDriver::Prepare() {
  const RunSpec& s = spec;
  const PartyLayout& layout = LayoutOf(s);
  const std::string prefix = std::string("algorithm.") + ChoiceName(s.algorithm.name()) + ".";
  const int M = layout.parties;
  std::vector<std::int64_t> sizes = layout.party_features;
  // A party of a network run holds one block (or the labels): the whole width is the public
  // layout's (party_features, required there).
  const std::int64_t d =
      network ? std::accumulate(sizes.begin(), sizes.end(), std::int64_t{0}) : train.cols();
  if (sizes.empty()) {
    if (d < M) {
      throw InputError(prefix + "parties: " + std::to_string(M) +
                       " parties need at least as "
                       "many features, the data has " +
                       std::to_string(d));
    }
    for (int p = 0; p < M; ++p) sizes.push_back(d / M + (p < d % M ? 1 : 0));
  }
  const std::int64_t total = std::accumulate(sizes.begin(), sizes.end(), std::int64_t{0});
  if (total != d) {
    throw InputError(prefix + "party_features: the counts sum to " + std::to_string(total) +
                     " but the data has " + std::to_string(d) + " features");
  }
  info.party_features = sizes;
  // Node 0 is the coordinator (the labels), node m party m. The SGD baseline is not an engine
  // run, but under MPI its parties and label holder are placed the same way and exchange only
  // partial scores, loss derivatives and (for the metrics) the weights (RunSgd).
  if (network) {
    try {
      runtime::ValidateNetworkOptions(*network, M + 1);
    } catch (const runtime::NetworkError& e) {
      throw InputError(std::string("party: ") + e.what());
    }
  }
  hosted = HostedNodes(*this, M + 1);
  const auto hosts = [&](int node) {
    return std::find(hosted.begin(), hosted.end(), node) != hosted.end();
  };
  if (network) {
    CheckPartyData(sizes);
    view = hosted;  // its metrics: what this party sees
  }
  std::int64_t offset = 0;
  std::vector<double> max_row_norm(static_cast<std::size_t>(M + 1), 0.0);
  blocks_.resize(static_cast<std::size_t>(M));
  for (int p = 0; p < M; ++p) {
    info.party_offsets.push_back(offset);
    if (hosts(p + 1)) {
      // A party of a network run: its file is its block.
      blocks_[p] = sharing::ColumnBlock(train, network ? 0 : offset, sizes[p]);
      blocks_[p].y.resize(0);  // parties hold features only; the labels stay with the coordinator
      // A private evaluation: metrics scope "all" only.
      max_row_norm[p + 1] = info.metrics == MetricsScope::kAll ? blocks_[p].MaxRowNorm() : kNaN;
    }
    offset += sizes[p];
  }
  max_row_norm = CompletePerNode(*this, std::move(max_row_norm));
  if (network) {  // the other parties' blocks are not seen here
    for (int p = 0; p < M; ++p) {
      if (!hosts(p + 1)) max_row_norm[p + 1] = kNaN;
    }
  }
  info.party_max_row_norm.assign(max_row_norm.begin() + 1, max_row_norm.end());
  if (hosts(0)) labels_ = train.y;

  if (s.algorithm.name() == Algorithm::kSharing) {
    const SharingParams& sp = s.algorithm.As<SharingParams>();
    const bool paper16 = sp.dp && sp.mechanism == "paper16";
    const bool gaussian = sp.dp && !paper16;
    info.dp = sp.dp;
    info.sharing_mechanism = sp.dp ? sp.mechanism : "";
    xupdates_.resize(static_cast<std::size_t>(M));
    noises_.resize(static_cast<std::size_t>(M));
    std::vector<double> gram_rank(static_cast<std::size_t>(M + 1), 0.0);
    for (int p = 0; p < M; ++p) {
      // A party's Gram matrix and noise are built on its own rank only.
      if (hosts(p + 1)) {
        const Eigen::MatrixXd gram = sharing::Gram(blocks_[p]);
        // The default mechanism enforces ||x_m|| <= b1 in the x step (README).
        xupdates_[p] =
            std::make_unique<sharing::XUpdate>(gram, sp.lambda, sp.rho, gaussian ? sp.b1 : 0.0);
        if (paper16) {
          noises_[p] = std::make_unique<sharing::GramNoise>(gram);
          gram_rank[p + 1] = static_cast<double>(noises_[p]->rank());
        }
      }
    }
    if (paper16) gram_rank = CompletePerNode(*this, std::move(gram_rank));
    const std::int64_t n_rows = info.train_rows;
    for (int p = 0; p < M && sp.dp; ++p) {
      double sens = 0.0, sigma = 0.0;
      if (paper16) {
        sens = SharingSensitivity(sizes[p], sp.rho, sp.lambda, sp.c1, M, sp.b1);
        sigma = sp.noise_sigma > 0.0 ? sp.noise_sigma
                                     : SharingGaussianSigma(sp.epsilon, sp.delta, sens);
        info.party_epsilon.push_back(
            sp.noise_sigma > 0.0 ? SharingEpsilonForSigma(sigma, sp.delta, sens) : sp.epsilon);
        info.party_epsilon_total.push_back(
            SharingTotalEpsilon(info.party_epsilon.back(), s.iterations, sp.delta_prime));
      } else {
        // The message's sensitivity includes the lattice rounding, whose step depends on sigma
        // (GaussianGridStep): iterate until the step is stable (it only grows, by powers of 2).
        double step = kGridStep;
        for (int k = 0; k < 8; ++k) {
          sens = SharingMessageSensitivity(n_rows, sp.b1, step);
          sigma = sp.noise_sigma > 0.0
                      ? sp.noise_sigma
                      : SharingSigmaForTotalEpsilon(sp.total_epsilon, sp.delta, sens,
                                                    std::max(1, s.iterations));
          const double next = GaussianGridStep(sigma);
          if (next == step) break;
          step = next;
        }
        info.party_epsilon.push_back(SharingTightEpsilon(sens, sigma, 1, sp.delta));
        info.party_epsilon_total.push_back(
            SharingTightEpsilon(sens, sigma, s.iterations, sp.delta));
        if (!std::isfinite(info.party_epsilon_total.back())) {
          throw InputError(prefix + "noise_sigma: sigma = " + std::to_string(sigma) +
                           " is too small for party " + std::to_string(p + 1) +
                           ": the run's total epsilon would exceed about 650 (sensitivity " +
                           std::to_string(sens) + " = 2 b1 sqrt(N) + grid); no guarantee");
        }
      }
      if (!std::isfinite(sigma)) {
        throw InputError(prefix + "b1: the noise scale sigma of party " + std::to_string(p + 1) +
                         " overflows (b1 = " + std::to_string(sp.b1) + ")");
      }
      info.party_sensitivity.push_back(sens);
      info.party_sigma.push_back(sigma);
      if (paper16 && info.metrics == MetricsScope::kAll) {  // a figure of the private data
        info.party_gram_rank.push_back(static_cast<std::int64_t>(gram_rank[p + 1]));
      }
    }
    topology_.neighbors.assign(static_cast<std::size_t>(M + 1), {});
    for (int p = 1; p <= M; ++p) {
      topology_.neighbors[0].push_back(p);
      topology_.neighbors[static_cast<std::size_t>(p)].push_back(0);
    }
    if (sp.dp) {
      info.epsilon = *std::max_element(info.party_epsilon.begin(), info.party_epsilon.end());
      info.delta = sp.delta;
      info.delta_prime = paper16 ? sp.delta_prime : 0.0;
      info.b1 = sp.b1;
      info.c1 = paper16 ? sp.c1 : 0.0;
    }
    if (paper16) {
      info.privacy_guarantee =
          std::string(kPaper16Label) +
          ". 001's claim: (epsilon, delta)-DP per iteration for each party's released D_m x~_m "
          "(Theorem 3, sensitivity of Lemma 1), neighbouring data sets differing in one feature "
          "column; over T iterations (epsilon', T delta + delta')-DP by advanced composition "
          "(Corollary 1). Assumes ||x_m||, ||y|| <= b1 (not enforced: compare max_x_norm, y_norm "
          "in the trace), |R''| <= c1 and rows of D_m with norm <= 1" +
          std::string(sp.noise_sigma > 0.0
                          ? "; sigma was set directly (noise_sigma) and epsilon is Theorem 3's "
                            "value for it" +
                                std::string(info.epsilon > 1.0 ? ", which exceeds Theorem 3's "
                                                                 "range eps <= 1: no guarantee"
                                                               : "")
                          : "");
    } else if (gaussian) {
      std::ostringstream os;
      os << "(epsilon, delta)-DP per party over the run, epsilon = max over parties of the tight "
            "total (analytic Gaussian, mu^2 summed over iterations), delta = "
         << sp.delta
         << ": each party releases D_m x_m + N(0, sigma^2 I_N) (exact discrete Gaussian on the "
            "lattice) with ||x_m|| <= b1 enforced, sensitivity 2 b1 sqrt(N) + lattice rounding "
            "for any change of the party's feature block (one column or one row), rows of norm "
            "<= 1; the parties' weights x_m stay with them and are not covered";
      if (sp.noise_sigma > 0.0) os << "; sigma was set directly (noise_sigma)";
      info.privacy_guarantee = os.str();
    }
  }
  if (!info.dp) info.privacy_guarantee = "none: the algorithm is not private";

  // The baselines are trained on the private data: metrics scope "all" only.
  const bool baselines_wanted = s.compute_optimum && info.metrics == MetricsScope::kAll;
  if (baselines_wanted && (mpi || network)) {
    info.optimum_note = std::string("baselines not computed ") +
                        (mpi ? "on the mpi engine" : "in party mode") +
                        ": they need every party's columns and the labels in one process";
  } else if (baselines_wanted) {
    info.central = SolveBaseline(train, test, layout.lambda, optimum);
    const Dataset test_block = sharing::ColumnBlock(test, 0, sizes[0]);
    info.local =
        SolveBaseline(sharing::ColumnBlock(train, 0, sizes[0]), test_block, layout.lambda, local_);
  }
  // This rank (party) keeps its parties' blocks (and labels) only.
  if (mpi || network) train = Dataset{};
  if (network) info.features = d;  // the whole model's width (the public layout)
}

void SharingDriver::Run(runtime::EngineKind engine, int threads, RunObserver* observer,
                        const runtime::StopToken* stop, RunSummary& summary) const {
  if (spec.algorithm.name() == Algorithm::kSharing) {
    RunAdmm(engine, threads, observer, stop, summary);
  } else {
    RunSgd(IsReportingRank(*this) ? observer : nullptr, stop, summary);
  }
}

void SharingDriver::RunCheckpointed(runtime::EngineKind engine, int threads, RunObserver* observer,
                                    const runtime::StopToken* stop,
                                    const CheckpointOptions& options,
                                    const CheckpointContents* resume, RunSummary& summary) const {
  if (spec.algorithm.name() == Algorithm::kSharing) {
    RunAdmm(engine, threads, observer, stop, summary, &options, resume);
  } else {
    // Every rank steps its own parties (the save gathers them; rank 0 writes).
    RunSgd(IsReportingRank(*this) ? observer : nullptr, stop, summary, &options, resume);
  }
}

void SharingDriver::RunAdmm(runtime::EngineKind engine, int threads, RunObserver* observer,
                            const runtime::StopToken* stop, RunSummary& summary,
                            const CheckpointOptions* checkpoint,
                            const CheckpointContents* resume) const {
  const RunSpec& s = spec;
  const SharingParams& sp = s.algorithm.As<SharingParams>();
  const int M = sp.parties;
  const std::size_t width = std::max<std::size_t>(
      sharing::kCoordinatorFields, static_cast<std::size_t>(*std::max_element(
                                       info.party_features.begin(), info.party_features.end())));
  sharing::CoordinatorParams cp;
  cp.parties = M;
  cp.rho = sp.rho;
  cp.z_tolerance = sp.z_tolerance;
  cp.z_max_iterations = sp.z_max_iterations;
  cp.report_width = width;
  std::unique_ptr<sharing::SharingCoordinator> coordinator;
  std::vector<std::unique_ptr<sharing::SharingParty>> parties;
  std::vector<runtime::NodeProgram*> programs;
  for (int node : hosted) {
    if (node == 0) {
      coordinator = std::make_unique<sharing::SharingCoordinator>(labels_, cp);
      programs.push_back(coordinator.get());
      continue;
    }
    const int p = node - 1;
    sharing::PartyParams pp;
    pp.party = p + 1;
    pp.lambda = sp.lambda;
    pp.rho = sp.rho;
    pp.sigma = sp.dp ? info.party_sigma[p] : 0.0;
    pp.epsilon = sp.dp ? info.party_epsilon[p] : 0.0;
    pp.mechanism = sp.mechanism == "paper16" ? sharing::SharingMechanism::kPaper16
                                             : sharing::SharingMechanism::kGaussian;
    pp.noise_seed = s.noise_seed;
    pp.report_width = width;
    parties.push_back(std::make_unique<sharing::SharingParty>(
        blocks_[p], *xupdates_[p], sp.dp ? noises_[p].get() : nullptr, pp));
    programs.push_back(parties.back().get());
  }
  // With checkpoints, every row the observer sees is also kept for the next checkpoint; a
  // resumed run first hands the saved rows on, so its trace is the whole run's.
  RecordingObserver recorder(observer);
  if (checkpoint != nullptr) observer = &recorder;
  if (resume != nullptr) StartResumedTrace(*checkpoint, *resume, IsReportingRank(*this), recorder);
  SharingSink sink(sp, test, info, observer, view);
  runtime::EngineOptions options;
  options.kind = engine;
  options.threads = threads;
  options.last_round = 2 * static_cast<std::int64_t>(s.iterations);
  options.stop = stop;
  runtime::EngineResult result;
  if (checkpoint == nullptr) {
    result = RunPrograms(*this, programs, topology_, options, sink);
  } else {
    // One iteration is two engine rounds; checkpoints fall after the coordinator's round.
    CheckpointedEngineRun run{*this, programs, {}, M + 1, {}, {}, 2 * checkpoint->every};
    for (runtime::NodeProgram* program : programs) {
      run.states.push_back(dynamic_cast<Checkpointable*>(program));
    }
    run.save_sink = [&sink](StateWriter& out) { sink.SaveState(out); };
    run.load_sink = [&sink](StateReader& in) { sink.LoadState(in); };
    result = RunWithCheckpoints(run, topology_, options, sink, *checkpoint, resume, recorder);
  }
  summary.rounds = std::max<std::int64_t>(sink.epoch(), 0);
  summary.final = sink.last();
  summary.model = sink.model();
  if (!view.empty()) {
    // A party's model is its own block of the weights (the coordinator's: none).
    Eigen::VectorXd own(0);
    for (int node : view) {
      if (node == 0) continue;
      const auto block =
          sink.model().segment(info.party_offsets[node - 1], info.party_features[node - 1]);
      own.conservativeResize(own.size() + block.size());
      own.tail(block.size()) = block;
    }
    summary.model = own;
  }
  summary.seconds = sink.elapsed();
  switch (result.outcome) {
    case runtime::EngineOutcome::kCompleted:
    case runtime::EngineOutcome::kStopped:
      summary.outcome = RunOutcome::kCompleted;
      summary.message = "completed " + std::to_string(s.iterations) + " iterations";
      break;
    case runtime::EngineOutcome::kCancelled:
      summary.outcome = RunOutcome::kCancelled;
      summary.message = "cancelled after iteration " + std::to_string(summary.rounds);
      break;
    case runtime::EngineOutcome::kFailed:
      summary.outcome = OutcomeOfFailure(result.failure);
      summary.message = result.failure.message;
      break;
  }
}

namespace {

// Under MPI (`comm` set): the values each rank holds for its own parties (`mine[p]` for the
// hosted p, else empty), on every rank, exact (no arithmetic on them). Without MPI the identity.
std::vector<Eigen::VectorXd> ShareParties(const std::optional<runtime::MpiComm>& comm,
                                          std::vector<Eigen::VectorXd> mine,
                                          const std::vector<char>& hosted_party) {
  if (!comm) return mine;
  std::vector<double> flat;
  for (std::size_t p = 0; p < mine.size(); ++p) {
    if (!hosted_party[p]) continue;
    flat.push_back(static_cast<double>(p));
    flat.push_back(static_cast<double>(mine[p].size()));
    flat.insert(flat.end(), mine[p].data(), mine[p].data() + mine[p].size());
  }
  const std::vector<double> all = runtime::MpiAllgather(flat, *comm);
  for (std::size_t at = 0; at < all.size();) {
    const auto p = static_cast<std::size_t>(all[at]);
    const auto size = static_cast<Eigen::Index>(all[at + 1]);
    mine[p] = Eigen::Map<const Eigen::VectorXd>(all.data() + at + 2, size);
    at += 2 + static_cast<std::size_t>(size);
  }
  return mine;
}

// Under MPI: the label holder's `values` on every rank (the others pass theirs empty).
Eigen::VectorXd FromLabelHolder(const std::optional<runtime::MpiComm>& comm, Eigen::VectorXd values,
                                bool holder) {
  if (!comm) return values;
  std::vector<double> flat;
  if (holder) flat.assign(values.data(), values.data() + values.size());
  const std::vector<double> all = runtime::MpiAllgather(flat, *comm);
  return Eigen::Map<const Eigen::VectorXd>(all.data(), static_cast<Eigen::Index>(all.size()));
}

}  // namespace

void SharingDriver::RunSgd(RunObserver* observer, const runtime::StopToken* stop,
                           RunSummary& summary, const CheckpointOptions* checkpoint,
                           const CheckpointContents* resume) const {
  const RunSpec& s = spec;
  const SgdParams& sg = s.algorithm.As<SgdParams>();
  const int M = sg.parties;
  const auto start = std::chrono::steady_clock::now();
  double offset_seconds = 0.0;  // a resumed run's wall time before the checkpoint
  const auto elapsed = [&] {
    return offset_seconds +
           std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  // Under MPI each rank steps its own parties' weights; the label holder (node 0's rank) turns
  // the summed partial scores into the loss's derivatives. Only partial scores, derivatives and
  // (for the metrics) the weights cross ranks, never a row. Every sum is made in the serial
  // loop's order, so the bits are the serial run's.
  std::optional<runtime::MpiComm> comm;
  if (mpi) comm = mpi->comm;
  std::vector<char> mine(static_cast<std::size_t>(M), 0);
  bool label_holder = false;
  for (int node : hosted) {
    if (node == 0) label_holder = true;
    if (node > 0) mine[static_cast<std::size_t>(node - 1)] = 1;
  }
  const std::int64_t n = info.train_rows;
  std::vector<Eigen::VectorXd> w(static_cast<std::size_t>(M));
  Eigen::VectorXd model(info.features);
  for (int p = 0; p < M; ++p) {
    Stream init(s.seed, static_cast<std::uint64_t>(p + 1), 0, Purpose::kInitialState);
    w[p].resize(info.party_features[p]);
    for (Eigen::Index k = 0; k < w[p].size(); ++k) w[p][k] = sg.init_sd * init.Normal();
  }
  const bool evaluate = info.metrics == MetricsScope::kAll;
  const auto measure = [&](std::int64_t epoch) {
    const std::vector<Eigen::VectorXd> all_w = ShareParties(comm, w, mine);
    double train_loss = kNaN;
    if (evaluate) {
      std::vector<Eigen::VectorXd> partial(static_cast<std::size_t>(M));
      for (int p = 0; p < M; ++p) {
        if (mine[p]) partial[p] = sharing::Times(blocks_[p], w[p]);
      }
      partial = ShareParties(comm, std::move(partial), mine);
      Eigen::VectorXd loss(1);
      if (label_holder) {
        Eigen::VectorXd scores = Eigen::VectorXd::Zero(n);
        for (int p = 0; p < M; ++p) scores += partial[p];
        loss[0] = sharing::MeanLogLossOfScores(scores, labels_);
      }
      train_loss = FromLabelHolder(comm, loss, label_holder)[0];
    }
    for (int p = 0; p < M; ++p) {
      model.segment(info.party_offsets[p], info.party_features[p]) = all_w[p];
    }
    RoundMetrics x =
        Measure(nullptr, nullptr, sg.lambda, 0.0, test, train_loss, all_w, model, epoch);
    x.primal_residual = kNaN;
    x.y_norm = kNaN;
    if (!evaluate) HidePrivateEvaluation(x);
    x.seconds = elapsed();
    return x;
  };
  // Checkpoints (persistence/checkpoint.h): node m's state is w_m (node 0, the label holder,
  // keeps nothing between epochs), the sink state the last row and the wall time so far. The
  // shuffle of epoch e is keyed by (seed, e): no generator position to save.
  RecordingObserver recorder(observer);
  if (checkpoint != nullptr) observer = &recorder;
  int first_epoch = 1;
  if (resume != nullptr) {
    const std::string where = "checkpoint " + checkpoint->resume_path;
    if (resume->node_states.size() != static_cast<std::size_t>(M + 1)) {
      throw InputError(where + ": " + std::to_string(resume->node_states.size()) +
                       " node states for a run of " + std::to_string(M + 1) + " nodes");
    }
    for (int p = 0; p < M; ++p) {
      StateReader in(resume->node_states[p + 1], where + ", node " + std::to_string(p + 1));
      w[p] = in.EVec("party weights", info.party_features[p]);
      in.ExpectEnd("node state");
    }
    StateReader in(resume->sink_state, where + ", metrics");
    summary.final = LoadMetrics(in);
    const double seconds = in.F64("metrics seconds");
    in.ExpectEnd("metrics state");
    if (std::isfinite(seconds) && seconds >= 0.0 && seconds < 1e9) offset_seconds = seconds;
    StartResumedTrace(*checkpoint, *resume, !comm || runtime::MpiRank(*comm) == 0, recorder);
    first_epoch = static_cast<int>(resume->round) + 1;
    summary.rounds = resume->round;
    for (int p = 0; p < M; ++p) {
      model.segment(info.party_offsets[p], info.party_features[p]) = w[p];
    }
  } else {
    summary.final = measure(0);
    if (observer != nullptr) observer->OnRound(summary.final);
  }
  const auto save = [&](int epoch) {
    // Under MPI each rank holds its own parties' weights: gathered (every rank, a collective),
    // written by rank 0.
    const std::vector<Eigen::VectorXd> all_w = ShareParties(comm, w, mine);
    if (comm && runtime::MpiRank(*comm) != 0) return;
    CheckpointContents c;
    c.spec_json = SpecToJson(s);
    c.algorithm = ChoiceName(s.algorithm.name());
    c.round = epoch;
    c.messages.resize(static_cast<std::size_t>(M + 1));
    c.node_states.resize(static_cast<std::size_t>(M + 1));
    for (int p = 0; p < M; ++p) {
      StateWriter out;
      out.Vec(all_w[p]);
      c.node_states[p + 1] = out.Take();
    }
    StateWriter out;
    SaveMetrics(out, summary.final);
    out.F64(elapsed());
    c.sink_state = out.Take();
    c.trace_rows = recorder.rows;
    if (checkpoint->trace_mark) c.trace_mark = checkpoint->trace_mark();
    WriteCheckpoint(checkpoint->save_path, c);
    if (checkpoint->on_written) checkpoint->on_written(epoch);
  };
  std::vector<std::int64_t> order(static_cast<std::size_t>(n));
  Eigen::VectorXd coeff(sg.batch_size);
  std::vector<Eigen::VectorXd> partial(static_cast<std::size_t>(M));
  summary.outcome = RunOutcome::kCompleted;
  summary.message = "completed " + std::to_string(s.iterations) + " epochs";
  for (int e = first_epoch; e <= s.iterations; ++e) {
    // Every rank stops at the same epoch: rank 0's stop request decides.
    bool stopping = stop != nullptr && stop->stop_requested();
    if (comm) {
      Eigen::VectorXd flag(1);
      flag[0] = stopping ? 1.0 : 0.0;
      stopping = FromLabelHolder(comm, flag, runtime::MpiRank(*comm) == 0)[0] != 0.0;
    }
    if (stopping) {
      summary.outcome = RunOutcome::kCancelled;
      summary.message = "cancelled after epoch " + std::to_string(e - 1);
      break;
    }
    std::iota(order.begin(), order.end(), std::int64_t{0});
    Stream shuffle(s.seed, 0, static_cast<std::uint64_t>(e), Purpose::kSampling);
    for (std::int64_t k = n - 1; k > 0; --k) {
      std::swap(order[k], order[shuffle.UniformInt(static_cast<std::uint64_t>(k + 1))]);
    }
    const double step = sg.learning_rate / (1.0 + sg.lr_decay * (e - 1));
    for (std::int64_t b = 0; b < n; b += sg.batch_size) {
      const std::int64_t end = std::min<std::int64_t>(n, b + sg.batch_size);
      const std::size_t size = static_cast<std::size_t>(end - b);
      // Each party's partial scores (what the parties send to the label holder).
      for (int p = 0; p < M; ++p) {
        if (!mine[p]) continue;
        partial[p].resize(static_cast<Eigen::Index>(size));
        VisitRows(blocks_[p], [&](const auto& x) {
          for (std::size_t k = 0; k < size; ++k) {
            partial[p][static_cast<Eigen::Index>(k)] = RowDot(x, order[b + k], w[p]);
          }
        });
      }
      const std::vector<Eigen::VectorXd> scores = ShareParties(comm, partial, mine);
      // The loss's derivative per sample, summed scores in party order (what the label holder
      // sends back).
      if (label_holder) {
        for (std::size_t k = 0; k < size; ++k) {
          double score = 0.0;
          for (int p = 0; p < M; ++p) score += scores[p][static_cast<Eigen::Index>(k)];
          const double y = labels_[order[b + k]];
          coeff[static_cast<Eigen::Index>(k)] =
              Loss{}.D1(y * score) * y / static_cast<double>(size);
        }
      }
      const Eigen::VectorXd c =
          FromLabelHolder(comm, coeff.head(static_cast<Eigen::Index>(size)), label_holder);
      for (int p = 0; p < M; ++p) {
        if (!mine[p]) continue;
        w[p] *= (1.0 - step * sg.lambda);
        VisitRows(blocks_[p], [&](const auto& x) {
          SgdStep(x, order, static_cast<std::size_t>(b), static_cast<std::size_t>(end), c, step,
                  w[p]);
        });
      }
    }
    std::vector<Eigen::VectorXd> finite(static_cast<std::size_t>(M));
    for (int p = 0; p < M; ++p) {
      if (mine[p]) finite[p] = Eigen::VectorXd::Constant(1, w[p].allFinite() ? 1.0 : 0.0);
    }
    finite = ShareParties(comm, std::move(finite), mine);
    int bad = -1;
    for (int p = 0; p < M && bad < 0; ++p) {
      if (finite[p][0] == 0.0) bad = p;
    }
    if (bad >= 0) {
      summary.outcome = RunOutcome::kDiverged;
      summary.message = "party " + std::to_string(bad + 1) + ", epoch " + std::to_string(e) +
                        ": SGD weights are not finite (learning_rate too large?)";
      break;
    }
    summary.final = measure(e);
    summary.rounds = e;
    if (observer != nullptr) observer->OnRound(summary.final);
    if (checkpoint != nullptr && !checkpoint->save_path.empty() && e < s.iterations &&
        e % checkpoint->every == 0) {
      save(e);
    }
  }
  const std::vector<Eigen::VectorXd> all_w = ShareParties(comm, w, mine);
  for (int p = 0; p < M; ++p) {
    model.segment(info.party_offsets[p], info.party_features[p]) = all_w[p];
  }
  summary.model = model;
  summary.seconds = elapsed();
}

}  // namespace

double MeanLogLoss(const Dataset& data, const Eigen::VectorXd& f) {
  if (data.rows() == 0) return kNaN;
  return sharing::MeanLogLossOfScores(sharing::Times(data, f), data.y);
}

std::unique_ptr<Experiment::Driver> MakeSharingDriver() {
  return std::make_unique<SharingDriver>();
}

}  // namespace dpadmm
