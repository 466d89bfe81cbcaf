// The experiment of the vertical family (001): data split into column blocks, baselines, the
// ADMM sharing run on the engines, and the SGD baseline loop.
#include "sharing/programs.h"

#include "data/data_source.h"
#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <numeric>
#include <sstream>
#include <stdexcept>

#include <Eigen/Eigenvalues>

#include "dpadmm/core/error.h"
#include "dpadmm/data/generators.h"
#include "dpadmm/data/loaders.h"
#include "dpadmm/solver/local_solver.h"
#include "dpadmm/solver/loss.h"
#include "dpadmm/data/preprocessing.h"
#include "dpadmm/sharing/sharing.h"
#include "dpadmm/privacy/sharing_accounting.h"

namespace dpadmm {

// =============================================================================================
// SharingSpec

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

template <class T>
[[noreturn]] void Bad(const std::string& field, const std::string& rule, const T& got) {
  std::ostringstream os;
  os << "sharing." << field << " must be " << rule << ", got " << got;
  throw InputError(os.str());
}

bool IsGenerated(const std::string& source) {
  return source == "twonorm" || source == "ringnorm" || source == "sparse";
}

}  // namespace

void SharingSpec::Validate() const {
  // The data fields are RunSpec's: validate them through RunSpec (its other fields are defaults).
  {
    RunSpec r;
    r.data = data;
    try {
      r.Validate();
    } catch (const InputError& e) {
      throw InputError(std::string("sharing.") + e.what());
    }
  }
  if (sparse_informative < 1) Bad("sparse_informative", ">= 1", sparse_informative);
  if (sparse_nnz_per_row < 1) Bad("sparse_nnz_per_row", ">= 1", sparse_nnz_per_row);
  if (!(sparse_flip_probability >= 0.0 && sparse_flip_probability <= 0.5)) {
    Bad("sparse_flip_probability", "in [0, 0.5]", sparse_flip_probability);
  }
  if (algorithm != "admm" && algorithm != "sgd") Bad("algorithm", "admm or sgd", "'" + algorithm + "'");
  if (parties < 1) Bad("parties", ">= 1", parties);
  if (!party_features.empty()) {
    if (static_cast<int>(party_features.size()) != parties) {
      Bad("party_features", "one count per party (" + std::to_string(parties) + ")",
          std::to_string(party_features.size()) + " values");
    }
    for (std::size_t m = 0; m < party_features.size(); ++m) {
      if (party_features[m] < 1) {
        Bad("party_features[" + std::to_string(m) + "]", ">= 1", party_features[m]);
      }
    }
  }
  if (!(lambda > 0.0) || !std::isfinite(lambda)) Bad("lambda", "> 0 and finite", lambda);
  if (!(rho > 0.0) || !std::isfinite(rho)) Bad("rho", "> 0 and finite", rho);
  if (epochs < 0) Bad("epochs", ">= 0", epochs);
  if (engine != "tbb" && engine != "serial") Bad("engine", "tbb or serial", "'" + engine + "'");
  if (threads < 0) Bad("threads", ">= 0 (0 = all cores)", threads);
  if (!(z_tolerance > 0.0) || !std::isfinite(z_tolerance)) Bad("z_tolerance", "> 0 and finite", z_tolerance);
  if (z_max_iterations < 1) Bad("z_max_iterations", ">= 1", z_max_iterations);
  if (!(epsilon > 0.0 && epsilon <= 1.0)) Bad("epsilon", "in (0, 1] (001 Theorem 3)", epsilon);
  if (!(noise_sigma >= 0.0) || !std::isfinite(noise_sigma)) Bad("noise_sigma", ">= 0 and finite", noise_sigma);
  if (!(delta > 0.0 && delta < 1.0)) Bad("delta", "in (0, 1)", delta);
  if (!(delta_prime > 0.0 && delta_prime < 1.0)) Bad("delta_prime", "in (0, 1)", delta_prime);
  if (!(b1 > 0.0) || !std::isfinite(b1)) Bad("b1", "> 0 and finite", b1);
  if (!(c1 >= 0.0) || !std::isfinite(c1)) Bad("c1", ">= 0 and finite", c1);
  if (dp && algorithm != "admm") Bad("dp", "false for algorithm 'sgd' (DP is defined for ADMM sharing)", "true");
  if (!(learning_rate > 0.0) || !std::isfinite(learning_rate)) Bad("learning_rate", "> 0 and finite", learning_rate);
  if (!(lr_decay >= 0.0) || !std::isfinite(lr_decay)) Bad("lr_decay", ">= 0 and finite", lr_decay);
  if (batch_size < 1) Bad("batch_size", ">= 1", batch_size);
  if (!(sgd_init_sd >= 0.0) || !std::isfinite(sgd_init_sd)) Bad("sgd_init_sd", ">= 0 and finite", sgd_init_sd);
}

double MeanLogLoss(const Dataset& data, const Eigen::VectorXd& f) {
  if (data.rows() == 0) return kNaN;
  return sharing::MeanLogLossOfScores(sharing::Times(data, f), data.y);
}

// =============================================================================================
// Experiment

namespace {

SharingBaseline SolveBaseline(const Dataset& train, const Dataset& test, double lambda,
                              Eigen::VectorXd& f) {
  // min (1/N) sum_n L(y_n x_n^T f) + (lambda/2) ||f||^2: LocalSolver with w_n = 1/N, a = lambda.
  NewtonOptions newton;
  newton.max_iterations = 200;
  newton.gradient_tolerance = 1e-12;
  LocalSolver solver(train, 1.0 / static_cast<double>(train.rows()), Loss{}, newton);
  f = Eigen::VectorXd::Zero(train.cols());
  const SolveReport r = solver.Solve(lambda, Eigen::VectorXd::Zero(train.cols()), f);
  if (r.status != SolveStatus::kConverged || !f.allFinite()) {
    throw std::runtime_error(std::string("sharing baseline: Newton solver ended with ") +
                             ToString(r.status));
  }
  SharingBaseline b;
  b.computed = true;
  b.objective = r.objective;
  b.train_loss = r.loss_sum;
  b.test_loss = MeanLogLoss(test, f);
  b.test_error = TestError(test, f);
  return b;
}

}  // namespace

struct SharingExperiment::Impl {
  SharingSpec spec;
  SharingInfo info;
  Dataset train, test;
  std::vector<Dataset> blocks;                       // D_m, without labels
  std::vector<std::unique_ptr<sharing::XUpdate>> xupdates;
  std::vector<std::unique_ptr<sharing::GramNoise>> noises;
  Eigen::VectorXd central, local;
  runtime::Topology topology;
};

SharingExperiment::SharingExperiment(SharingSpec spec) : impl_(std::make_unique<Impl>()) {
  spec.Validate();
  if (spec.algorithm == "admm" && !runtime::EngineAvailable(runtime::ParseEngineKind(spec.engine))) {
    throw InputError("sharing.engine: '" + spec.engine + "' is not available in this build (use serial)");
  }
  Impl& m = *impl_;
  m.spec = std::move(spec);
  const SharingSpec& s = m.spec;
  SparseHighDimOptions sparse;
  sparse.informative = s.sparse_informative;
  sparse.nnz_per_row = s.sparse_nnz_per_row;
  sparse.flip_probability = s.sparse_flip_probability;
  TrainTest data = LoadDataSource(s.data, s.seed, sparse, "sharing.data.source");
  m.train = std::move(data.train);
  m.test = std::move(data.test);
  SharingInfo& info = m.info;
  if (s.data.normalize) info.normalization_factor = NormalizeRows(m.train, m.test);

  const std::int64_t d = m.train.cols();
  const int M = s.parties;
  std::vector<std::int64_t> sizes = s.party_features;
  if (sizes.empty()) {
    if (d < M) {
      throw InputError("sharing.parties: " + std::to_string(M) + " parties need at least as many "
                       "features, the data has " + std::to_string(d));
    }
    for (int p = 0; p < M; ++p) sizes.push_back(d / M + (p < d % M ? 1 : 0));
  }
  const std::int64_t total = std::accumulate(sizes.begin(), sizes.end(), std::int64_t{0});
  if (total != d) {
    throw InputError("sharing.party_features: the counts sum to " + std::to_string(total) +
                     " but the data has " + std::to_string(d) + " features");
  }

  info.dataset = IsGenerated(s.data.source) ? s.data.source + " (generated)"
                                            : s.data.source + ": " + s.data.train_path;
  info.train_rows = m.train.rows();
  info.test_rows = m.test.rows();
  info.features = d;
  info.sparse = m.train.is_sparse();
  info.party_features = sizes;
  info.algorithm = s.algorithm + (s.dp ? " (private, 001 eq. (16))" : "");
  info.engine = s.engine;
  info.threads = s.threads;
  info.dp = s.dp;
  std::int64_t offset = 0;
  for (int p = 0; p < M; ++p) {
    info.party_offsets.push_back(offset);
    m.blocks.push_back(sharing::ColumnBlock(m.train, offset, sizes[p]));
    m.blocks.back().y.resize(0);  // parties hold features only; the labels stay with the coordinator
    info.party_max_row_norm.push_back(m.blocks.back().MaxRowNorm());
    offset += sizes[p];
  }

  if (s.algorithm == "admm") {
    for (int p = 0; p < M; ++p) {
      const Eigen::MatrixXd gram = sharing::Gram(m.blocks[p]);
      m.xupdates.push_back(std::make_unique<sharing::XUpdate>(gram, s.lambda, s.rho));
      if (s.dp) {
        m.noises.push_back(std::make_unique<sharing::GramNoise>(gram));
        const double sens = SharingSensitivity(sizes[p], s.rho, s.lambda, s.c1, M, s.b1);
        const double sigma = s.noise_sigma > 0.0 ? s.noise_sigma
                                                 : SharingGaussianSigma(s.epsilon, s.delta, sens);
        info.party_epsilon.push_back(s.noise_sigma > 0.0
                                         ? SharingEpsilonForSigma(sigma, s.delta, sens)
                                         : s.epsilon);
        if (!std::isfinite(sigma)) {
          throw InputError("sharing.b1: the noise scale sigma of party " + std::to_string(p + 1) +
                           " overflows (b1 = " + std::to_string(s.b1) + ")");
        }
        info.party_sensitivity.push_back(sens);
        info.party_sigma.push_back(sigma);
        info.party_gram_rank.push_back(m.noises.back()->rank());
      }
    }
    m.topology.neighbors.assign(static_cast<std::size_t>(M + 1), {});
    for (int p = 1; p <= M; ++p) {
      m.topology.neighbors[0].push_back(p);
      m.topology.neighbors[static_cast<std::size_t>(p)].push_back(0);
    }
  }
  if (s.dp) {
    info.epsilon = *std::max_element(info.party_epsilon.begin(), info.party_epsilon.end());
    info.delta = s.delta;
    info.delta_prime = s.delta_prime;
    info.b1 = s.b1;
    info.c1 = s.c1;
    info.privacy_guarantee =
        "(epsilon, delta)-DP per iteration for each party's released D_m x~_m (001 Theorem 3, "
        "sensitivity of Lemma 1), neighbouring data sets differing in one feature column; over T "
        "iterations (epsilon', T delta + delta')-DP by advanced composition (001 Corollary 1). "
        "Assumes ||x_m||, ||y|| <= b1 (not enforced: compare max_x_norm, y_norm in the trace), "
        "|R''| <= c1 and rows of D_m with norm <= 1" +
        std::string(s.noise_sigma > 0.0
                        ? "; sigma was set directly (noise_sigma) and epsilon is Theorem 3's value "
                          "for it" + std::string(info.epsilon > 1.0 ? ", which exceeds Theorem 3's "
                                                                      "range eps <= 1: no guarantee"
                                                                    : "")
                        : "");
  } else {
    info.privacy_guarantee = "none: the algorithm is not private";
  }

  if (s.compute_baselines) {
    info.central = SolveBaseline(m.train, m.test, s.lambda, m.central);
    const Dataset test_block = sharing::ColumnBlock(m.test, 0, sizes[0]);
    info.local = SolveBaseline(sharing::ColumnBlock(m.train, 0, sizes[0]), test_block, s.lambda, m.local);
  }
}

SharingExperiment::~SharingExperiment() = default;
SharingExperiment::SharingExperiment(SharingExperiment&&) noexcept = default;
SharingExperiment& SharingExperiment::operator=(SharingExperiment&&) noexcept = default;

const SharingSpec& SharingExperiment::spec() const { return impl_->spec; }
const SharingInfo& SharingExperiment::info() const { return impl_->info; }
const Dataset& SharingExperiment::train() const { return impl_->train; }
const Dataset& SharingExperiment::test() const { return impl_->test; }
const Eigen::VectorXd& SharingExperiment::central_model() const { return impl_->central; }

namespace {

// Metrics of the concatenated model [x_1; ...; x_M]. `train_loss` is the coordinator's when it
// has it (ADMM), else computed here.
SharingMetrics Measure(const SharingSpec& s, double epsilon, const Dataset& test,
                       double train_loss, const std::vector<Eigen::VectorXd>& parts,
                       const Eigen::VectorXd& model, std::int64_t epoch) {
  SharingMetrics m;
  m.epoch = epoch;
  m.train_loss = train_loss;
  double reg = 0.0;
  for (const auto& x : parts) {
    reg += x.squaredNorm();
    m.max_x_norm = std::max(m.max_x_norm, x.norm());
  }
  m.objective = train_loss + 0.5 * s.lambda * reg;
  m.test_loss = MeanLogLoss(test, model);
  m.test_error = TestError(test, model);
  if (s.dp) {
    m.epsilon_iteration = epsilon;
    m.delta_iteration = s.delta;
    m.epsilon_total = SharingTotalEpsilon(epsilon, epoch, s.delta_prime);
    m.delta_total = SharingTotalDelta(s.delta, epoch, s.delta_prime);
  }
  return m;
}

class SharingSink : public runtime::RoundSink {
 public:
  SharingSink(const SharingSpec& spec, const Dataset& test, const SharingInfo& info,
              SharingObserver* observer)
      : spec_(spec), test_(test), info_(info), observer_(observer),
        start_(std::chrono::steady_clock::now()),
        model_(Eigen::VectorXd::Zero(info.features)) {}

  bool OnRound(std::int64_t round, const runtime::ReportTable& t) override {
    if (round % 2 == 1) return true;  // the party phase: iteration incomplete
    const int M = static_cast<int>(info_.party_features.size());
    std::vector<Eigen::VectorXd> parts;
    for (int p = 0; p < M; ++p) {
      const auto r = t[p + 1];
      parts.emplace_back(Eigen::Map<const Eigen::VectorXd>(r.data(), info_.party_features[p]));
      model_.segment(info_.party_offsets[p], info_.party_features[p]) = parts.back();
    }
    const auto c = t[0];
    last_ = Measure(spec_, info_.epsilon, test_, c[0], parts, model_, round / 2);
    const double n = static_cast<double>(info_.train_rows);
    last_.primal_residual = c[1] / std::sqrt(n);
    last_.y_norm = c[2];
    last_.seconds = elapsed();
    epoch_ = round / 2;
    if (observer_ != nullptr) observer_->OnEpoch(last_);
    return true;
  }

  double elapsed() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }
  const SharingMetrics& last() const { return last_; }
  const Eigen::VectorXd& model() const { return model_; }
  std::int64_t epoch() const { return epoch_; }

 private:
  const SharingSpec& spec_;
  const Dataset& test_;
  const SharingInfo& info_;
  SharingObserver* observer_;
  std::chrono::steady_clock::time_point start_;
  Eigen::VectorXd model_;
  SharingMetrics last_;
  std::int64_t epoch_ = -1;
};

// The SGD-based method for distributed features (001's baseline, FDML of Hu et al. 2019), run
// as a plain in-process loop (it is a baseline; its per-batch protocol is simulated, not sent
// through the engine). Per mini-batch B: every party computes its partial scores D_m[B] w_m;
// the scores are summed and go through the loss; party m steps its own weights by
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

}  // namespace

SharingSummary SharingExperiment::RunOn(const std::string& engine, int threads,
                                        SharingObserver* observer,
                                        const runtime::StopToken* stop) const {
  const Impl& m = *impl_;
  const SharingSpec& s = m.spec;
  runtime::EngineKind kind;
  try {
    kind = runtime::ParseEngineKind(engine);
  } catch (const std::invalid_argument& e) {
    throw InputError(std::string("sharing.engine: ") + e.what());
  }
  if (!runtime::EngineAvailable(kind)) {
    throw InputError("sharing.engine: '" + engine + "' is not available in this build (use serial)");
  }
  if (threads < 0) throw InputError("sharing.threads must be >= 0 (0 = all cores), got " + std::to_string(threads));
  const int M = s.parties;
  SharingSummary summary;
  summary.info = m.info;
  summary.info.engine = s.algorithm == "admm" ? engine : "in-process loop";
  summary.info.threads = threads;
  if (observer != nullptr) observer->OnStart(summary.info);

  if (s.algorithm == "admm") {
    const std::size_t width = std::max<std::size_t>(
        sharing::kCoordinatorFields,
        static_cast<std::size_t>(*std::max_element(m.info.party_features.begin(),
                                                   m.info.party_features.end())));
    sharing::CoordinatorParams cp;
    cp.parties = M;
    cp.rho = s.rho;
    cp.z_tolerance = s.z_tolerance;
    cp.z_max_iterations = s.z_max_iterations;
    cp.report_width = width;
    sharing::SharingCoordinator coordinator(m.train.y, cp);
    std::vector<std::unique_ptr<sharing::SharingParty>> parties;
    std::vector<runtime::NodeProgram*> programs = {&coordinator};
    for (int p = 0; p < M; ++p) {
      sharing::PartyParams pp;
      pp.party = p + 1;
      pp.lambda = s.lambda;
      pp.rho = s.rho;
      pp.sigma = s.dp ? m.info.party_sigma[p] : 0.0;
      pp.epsilon = s.dp ? m.info.party_epsilon[p] : 0.0;
      pp.seed = s.seed;
      pp.report_width = width;
      parties.push_back(std::make_unique<sharing::SharingParty>(
          m.blocks[p], *m.xupdates[p], s.dp ? m.noises[p].get() : nullptr, pp));
      programs.push_back(parties.back().get());
    }
    SharingSink sink(s, m.test, m.info, observer);
    runtime::EngineOptions options;
    options.kind = kind;
    options.threads = threads;
    options.last_round = 2 * static_cast<std::int64_t>(s.epochs);
    options.stop = stop;
    const runtime::EngineResult result = runtime::Run(programs, m.topology, options, sink);
    summary.epochs = std::max<std::int64_t>(sink.epoch(), 0);
    summary.final = sink.last();
    summary.model = sink.model();
    summary.seconds = sink.elapsed();
    switch (result.outcome) {
      case runtime::EngineOutcome::kCompleted:
      case runtime::EngineOutcome::kStopped:
        summary.outcome = RunOutcome::kCompleted;
        summary.message = "completed " + std::to_string(s.epochs) + " iterations";
        break;
      case runtime::EngineOutcome::kCancelled:
        summary.outcome = RunOutcome::kCancelled;
        summary.message = "cancelled after iteration " + std::to_string(summary.epochs);
        break;
      case runtime::EngineOutcome::kFailed:
        summary.outcome = RunOutcome::kDiverged;
        summary.message = result.failure.message;
        break;
    }
  } else {
    // SGD baseline.
    const auto start = std::chrono::steady_clock::now();
    const auto elapsed = [&] {
      return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    };
    const std::int64_t n = m.train.rows();
    std::vector<Eigen::VectorXd> w(static_cast<std::size_t>(M));
    Eigen::VectorXd model(m.info.features);
    for (int p = 0; p < M; ++p) {
      Stream init(s.seed, static_cast<std::uint64_t>(p + 1), 0, Purpose::kInitialState);
      w[p].resize(m.info.party_features[p]);
      for (Eigen::Index k = 0; k < w[p].size(); ++k) w[p][k] = s.sgd_init_sd * init.Normal();
    }
    const auto measure = [&](std::int64_t epoch) {
      Eigen::VectorXd scores = Eigen::VectorXd::Zero(n);
      for (int p = 0; p < M; ++p) {
        scores += sharing::Times(m.blocks[p], w[p]);
        model.segment(m.info.party_offsets[p], m.info.party_features[p]) = w[p];
      }
      SharingMetrics x = Measure(s, 0.0, m.test, sharing::MeanLogLossOfScores(scores, m.train.y), w,
                                 model, epoch);
      x.primal_residual = kNaN;
      x.y_norm = kNaN;
      x.seconds = elapsed();
      return x;
    };
    summary.final = measure(0);
    if (observer != nullptr) observer->OnEpoch(summary.final);
    std::vector<std::int64_t> order(static_cast<std::size_t>(n));
    Eigen::VectorXd coeff(s.batch_size);
    std::vector<double> batch_scores(static_cast<std::size_t>(s.batch_size));
    summary.outcome = RunOutcome::kCompleted;
    summary.message = "completed " + std::to_string(s.epochs) + " epochs";
    for (int e = 1; e <= s.epochs; ++e) {
      if (stop != nullptr && stop->stop_requested()) {
        summary.outcome = RunOutcome::kCancelled;
        summary.message = "cancelled after epoch " + std::to_string(e - 1);
        break;
      }
      std::iota(order.begin(), order.end(), std::int64_t{0});
      Stream shuffle(s.seed, 0, static_cast<std::uint64_t>(e), Purpose::kSampling);
      for (std::int64_t k = n - 1; k > 0; --k) {
        std::swap(order[k], order[shuffle.UniformInt(static_cast<std::uint64_t>(k + 1))]);
      }
      const double step = s.learning_rate / (1.0 + s.lr_decay * (e - 1));
      for (std::int64_t b = 0; b < n; b += s.batch_size) {
        const std::int64_t end = std::min<std::int64_t>(n, b + s.batch_size);
        const std::size_t size = static_cast<std::size_t>(end - b);
        // Partial scores of every party, summed (what the parties send).
        std::fill(batch_scores.begin(), batch_scores.end(), 0.0);
        for (int p = 0; p < M; ++p) {
          VisitRows(m.blocks[p], [&](const auto& x) {
            for (std::size_t k = 0; k < size; ++k) batch_scores[k] += RowDot(x, order[b + k], w[p]);
          });
        }
        // The loss's derivative per sample (what the label holder sends back).
        for (std::size_t k = 0; k < size; ++k) {
          const double y = m.train.y[order[b + k]];
          coeff[static_cast<Eigen::Index>(k)] =
              Loss{}.D1(y * batch_scores[k]) * y / static_cast<double>(size);
        }
        for (int p = 0; p < M; ++p) {
          w[p] *= (1.0 - step * s.lambda);
          VisitRows(m.blocks[p], [&](const auto& x) {
            SgdStep(x, order, static_cast<std::size_t>(b), static_cast<std::size_t>(end), coeff,
                    step, w[p]);
          });
        }
      }
      int bad = -1;
      for (int p = 0; p < M && bad < 0; ++p) {
        if (!w[p].allFinite()) bad = p;
      }
      if (bad >= 0) {
        summary.outcome = RunOutcome::kDiverged;
        summary.message = "party " + std::to_string(bad + 1) + ", epoch " + std::to_string(e) +
                          ": SGD weights are not finite (learning_rate too large?)";
        break;
      }
      summary.final = measure(e);
      summary.epochs = e;
      if (observer != nullptr) observer->OnEpoch(summary.final);
    }
    summary.model = model;
    summary.seconds = elapsed();
  }
  summary.seconds_per_epoch =
      summary.epochs > 0 ? summary.seconds / static_cast<double>(summary.epochs) : 0.0;
  return summary;
}

SharingSummary SharingExperiment::Run(SharingObserver* observer,
                                      const runtime::StopToken* stop) const {
  return RunOn(impl_->spec.engine, impl_->spec.threads, observer, stop);
}

SharingSummary RunSharing(const SharingSpec& spec, SharingObserver* observer,
                          const runtime::StopToken* stop) {
  return SharingExperiment(spec).Run(observer, stop);
}

}  // namespace dpadmm
