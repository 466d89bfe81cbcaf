// SPDX-License-Identifier: Apache-2.0
// The empirical privacy audit (dpadmm/tools/audit.h; method in algorithms/privacy/README.md,
// "Empirical audit").
#include "dpadmm/tools/audit.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <memory>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <Eigen/Dense>

#include "consensus/consensus_admm.h"
#include "dpadmm/consensus/pdml.h"
#include "dpadmm/core/error.h"
#include "dpadmm/core/random.h"
#include "dpadmm/data/dataset.h"
#include "dpadmm/privacy/accounting.h"
#include "dpadmm/privacy/samplers.h"
#include "dpadmm/privacy/sharing_accounting.h"
#include "dpadmm/run/run_spec.h"
#include "dpadmm/runtime/node_program.h"
#include "dpadmm/runtime/parallel_for.h"
#include "dpadmm/solver/local_solver.h"
#include "privacy/noise_weakening.h"
#include "sharing/programs.h"
#include "tools/audit_testing.h"

namespace dpadmm {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

[[noreturn]] void Fail(const std::string& field, const std::string& what) {
  throw InputError("audit: " + field + " " + what);
}

// --- Clopper-Pearson ------------------------------------------------------------------------

// Regularised incomplete beta I_x(a, b) by its continued fraction (Lentz), a, b > 0.
double BetaContinuedFraction(double a, double b, double x) {
  constexpr double kTiny = 1e-300;
  double c = 1.0, d = 1.0 - (a + b) * x / (a + 1.0);
  if (std::abs(d) < kTiny) d = kTiny;
  d = 1.0 / d;
  double h = d;
  for (int m = 1; m <= 10000; ++m) {
    const double m2 = 2.0 * m;
    double aa = m * (b - m) * x / ((a + m2 - 1.0) * (a + m2));
    d = 1.0 + aa * d;
    if (std::abs(d) < kTiny) d = kTiny;
    c = 1.0 + aa / c;
    if (std::abs(c) < kTiny) c = kTiny;
    d = 1.0 / d;
    h *= d * c;
    aa = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1.0));
    d = 1.0 + aa * d;
    if (std::abs(d) < kTiny) d = kTiny;
    c = 1.0 + aa / c;
    if (std::abs(c) < kTiny) c = kTiny;
    d = 1.0 / d;
    const double del = d * c;
    h *= del;
    if (std::abs(del - 1.0) < 1e-15) break;
  }
  return h;
}

double RegularizedBeta(double x, double a, double b) {
  if (x <= 0.0) return 0.0;
  if (x >= 1.0) return 1.0;
  const double log_front =
      std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) + b * std::log1p(-x);
  const double front = std::exp(log_front);
  if (x < (a + 1.0) / (a + b + 2.0)) return front * BetaContinuedFraction(a, b, x) / a;
  return 1.0 - front * BetaContinuedFraction(b, a, 1.0 - x) / b;
}

// P(Bin(n, p) <= k) = I_{1-p}(n - k, k + 1), k < n.
double BinomialCdf(std::int64_t k, std::int64_t n, double p) {
  return RegularizedBeta(1.0 - p, static_cast<double>(n - k), static_cast<double>(k + 1));
}

// --- Set-ups ----------------------------------------------------------------------------------

bool IsBaselineAudit(AuditMechanism m) {
  return m == AuditMechanism::kLocal || m == AuditMechanism::kAverage ||
         m == AuditMechanism::kCentral;
}
bool IsConsensus(AuditMechanism m) {
  return m == AuditMechanism::kDvp || m == AuditMechanism::kPvp ||
         m == AuditMechanism::kPvpGaussian || m == AuditMechanism::kMadmm ||
         m == AuditMechanism::kPrivateMradmm || IsBaselineAudit(m);
}
bool IsSharing(AuditMechanism m) {
  return m == AuditMechanism::kSharing || m == AuditMechanism::kSharingPaper16;
}

ConsensusVariant VariantOf(AuditMechanism m) {
  switch (m) {
    case AuditMechanism::kDvp: return ConsensusVariant::kDvp;
    case AuditMechanism::kPvp:
    case AuditMechanism::kPvpGaussian: return ConsensusVariant::kPvp;
    case AuditMechanism::kMadmm: return ConsensusVariant::kMadmm;
    case AuditMechanism::kLocal:
    case AuditMechanism::kCentral: return ConsensusVariant::kLocal;
    case AuditMechanism::kAverage: return ConsensusVariant::kAverage;
    default: return ConsensusVariant::kPrivateMradmm;
  }
}

// A row of norm `norm` in a uniformly random direction.
Eigen::VectorXd RandomRow(Stream& s, std::int64_t d, double norm) {
  Eigen::VectorXd v(d);
  for (std::int64_t j = 0; j < d; ++j) v[j] = s.Normal();
  return v * (norm / v.norm());
}

// Ordinary rows of a consensus node: pairs (x, +1), (x, -1) with ||x|| = 1/2, so that in the
// linear part of the smooth hinge their gradients cancel and the models stay near 0 (every
// margin in the linear part, where a label flip moves the gradient by the full bound).
void FillOrdinaryRows(Stream& s, DenseRows& x, Eigen::VectorXd& y, std::int64_t from) {
  const std::int64_t d = x.cols();
  for (std::int64_t n = from; n < x.rows(); n += 2) {
    const Eigen::VectorXd row = RandomRow(s, d, 0.5);
    x.row(n) = row.transpose();
    y[n] = 1.0;
    if (n + 1 < x.rows()) {
      x.row(n + 1) = row.transpose();
      y[n + 1] = -1.0;
    }
  }
}

struct ConsensusData {
  Dataset node0_d, node0_dprime, node1;
};

// Node 0 holds the record (c, +1) with c = e_1 (||c|| = 1, the norm bound) in D and the canary
// (c, -1) in D' (row 0); every other row is the same on both sides.
ConsensusData MakeConsensusData(const AuditSetup& s) {
  ConsensusData out;
  Stream stream(s.seed, 0, 0, Purpose::kGenerateData);
  DenseRows x0(s.rows, s.dim);
  Eigen::VectorXd y0(s.rows);
  x0.row(0).setZero();
  x0(0, 0) = 1.0;
  y0[0] = 1.0;
  FillOrdinaryRows(stream, x0, y0, 1);
  out.node0_d.x = x0;
  out.node0_d.y = y0;
  out.node0_d.name = "audit node 0 (D)";
  out.node0_dprime = out.node0_d;
  out.node0_dprime.y[0] = -1.0;
  out.node0_dprime.name = "audit node 0 (D')";
  Stream other(s.seed, 1, 0, Purpose::kGenerateData);
  DenseRows x1(s.rows, s.dim);
  Eigen::VectorXd y1(s.rows);
  FillOrdinaryRows(other, x1, y1, 0);
  out.node1.x = x1;
  out.node1.y = y1;
  out.node1.name = "audit node 1";
  return out;
}

// The key seed of one run in simulation mode: distinct for every (seed, side, run).
std::uint64_t RunNoiseSeed(std::uint64_t seed, int side, std::int64_t run) {
  std::uint64_t z = seed ^ (0x9e3779b97f4a7c15ULL * (2 * static_cast<std::uint64_t>(run) +
                                                     static_cast<std::uint64_t>(side) + 1));
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

std::string Number(double v) {
  std::ostringstream os;
  os.precision(4);
  os << v;
  return os.str();
}

// One synchronous run of a small graph's node programs (what every engine computes, node by
// node in order): rounds 0..last; returns the audited node's non-empty messages of rounds >= 1,
// concatenated. neighbours[i] lists node i's neighbours in inbox order.
std::vector<double> RunGraph(const std::vector<runtime::NodeProgram*>& nodes,
                             const std::vector<std::vector<int>>& neighbours, std::int64_t last,
                             int audited) {
  const std::size_t n = nodes.size();
  std::vector<runtime::Outbox> out;
  out.reserve(n);
  for (auto* p : nodes) out.emplace_back(p->MaxMessageSize());
  std::vector<std::vector<double>> sent(n);
  auto check = [](const runtime::StepResult& r) {
    if (!r.ok) throw std::runtime_error("audit run failed: " + r.error);
  };
  for (std::size_t i = 0; i < n; ++i) check(nodes[i]->Start(out[i]));
  std::vector<double> released;
  for (std::int64_t round = 1; round <= last; ++round) {
    for (std::size_t i = 0; i < n; ++i) {
      const auto m = out[i].message();
      sent[i].assign(m.begin(), m.end());
    }
    for (std::size_t i = 0; i < n; ++i) {
      runtime::Inbox in(neighbours[i].size());
      for (std::size_t k = 0; k < neighbours[i].size(); ++k) {
        const auto& m = sent[static_cast<std::size_t>(neighbours[i][k])];
        in.Set(k, std::span<const double>(m.data(), m.size()));
      }
      check(nodes[i]->Step(round, in, out[i]));
    }
    const auto m = out[static_cast<std::size_t>(audited)].message();
    released.insert(released.end(), m.begin(), m.end());
  }
  return released;
}

// What one side of the audit needs to produce a run's released values.
class Runner {
 public:
  virtual ~Runner() = default;
  // The released values of one run on side `side` (0 = D, 1 = D') with noise key seed `key`
  // (nullopt: fresh keys from the operating system).
  virtual std::vector<double> Run(int side, const std::optional<std::uint64_t>& key) const = 0;
  // Whether the runner has its own statistic (DP sharing's column-space residual), a candidate
  // beside the fitted ones.
  virtual bool fixed_statistic() const { return false; }
  virtual double Statistic(const std::vector<double>& /*released*/) const { return 0.0; }
};

class ConsensusRunner : public Runner {
 public:
  ConsensusRunner(const AuditSetup& s, AuditResult& r) : setup_(s), data_(MakeConsensusData(s)) {
    loss_.kind = s.logistic ? LossKind::kLogistic : LossKind::kSmoothHinge;
    params_.variant = VariantOf(s.mechanism);
    params_.C = s.C;
    params_.num_nodes = 2;
    // rho_node is the node's regulariser rho_i; private MR-ADMM's eq. (32) takes rho/N with
    // rho = rho_node N, the same value.
    params_.rho_node = s.rho;
    params_.eta = s.eta;
    const bool gaussian = s.mechanism == AuditMechanism::kPvpGaussian;
    if (gaussian) {
      params_.noise_multiplier = s.alpha;
    } else {
      params_.alpha = s.alpha;
    }
    // The baselines: the default mechanism (objective perturbation) at epsilon; central is the
    // audited node alone (every row is its own), local and average node 0 of a 2-node graph.
    baseline_ = IsBaselineAudit(s.mechanism);
    alone_ = s.mechanism == AuditMechanism::kCentral;
    params_.epsilon = s.epsilon;
    params_.delta = s.delta;
    params_.mechanism = s.gaussian ? BaselineMechanism::kGaussian : BaselineMechanism::kObjective;
    if (baseline_ && !alone_) params_.neighbour_degrees = {1};
    // One node program per side to read the per-round terms (they depend on no data and no
    // noise: the schedule and B_i only).
    auto probe = MakeConsensusNode(0, data_.node0_d, alone_ ? 0 : 1, loss_, newton_, params_,
                                   Eigen::VectorXd::Zero(s.dim));
    std::vector<double> costs;
    std::vector<MechanismRelease> mechanisms;
    for (int t = 1; t <= s.rounds; ++t) {
      costs.push_back(probe->PrivacyLoss(t));
      if (const auto m = probe->Mechanism(t)) mechanisms.push_back(*m);
    }
    if (baseline_) {
      // One release (round 1); later rounds are post-processing.
      r.claim = ComposeTightMechanisms(mechanisms, s.delta);
      r.claim_per_round = r.claim;
    } else if (gaussian) {
      // Gaussian releases: the accountant's exact composition of node 0's mechanisms.
      r.claim = ComposeTightMechanisms(mechanisms, s.delta);
      r.claim_per_round = ComposeTightMechanisms({mechanisms.front()}, s.delta);
    } else {
      r.claim = ComposeTight(costs, s.delta);
      r.claim_per_round = ComposeTight({costs.front()}, s.delta);
    }
    r.paper_claim = gaussian ? r.claim : ComposeBasic(costs);
    const char* paper = s.mechanism == AuditMechanism::kDvp     ? "004 Theorem 1"
                        : s.mechanism == AuditMechanism::kPvp   ? "PVP (Zhang and Zhu 2017)"
                        : s.mechanism == AuditMechanism::kMadmm ? "002"
                        : baseline_ ? "objective perturbation, Chaudhuri et al. 2011 Theorem 9"
                                    : "003 eq. (32)";
    r.claim_source = std::string("ComposeTight of node 0's per-round terms (") + paper +
                     ", pure epsilon each) at delta; paper: their plain sum";
    if (gaussian) {
      r.claim_source =
          "ComposeTightMechanisms of node 0's Gaussian releases (mu = (sensitivity + sqrt(d) "
          "step) / sigma each, composed exactly) at delta; no paper's figure";
    } else if (s.gaussian) {
      r.claim_source =
          "the analytic Gaussian of node 0's one release (sensitivity 2 (C/B) / rho_i plus the "
          "lattice term, sigma for (epsilon, delta)) at delta; paper: epsilon";
    }
    std::ostringstream m;
    m << ToString(s.mechanism) << ": node 0 " << (alone_ ? "alone (one node)" : "of a 2-node graph")
      << ", " << s.rows << " rows x " << s.dim << " features per node, " << loss_.Name()
      << " loss, C = " << s.C << ", rho = " << s.rho;
    if (baseline_) {
      m << ", epsilon = " << s.epsilon
        << (s.gaussian ? " (Gaussian output perturbation)" : " (objective perturbation)");
    } else {
      m << ", eta = " << s.eta << (gaussian ? ", noise multiplier = " : ", alpha = ") << s.alpha;
    }
    m << "; released: node 0's messages of rounds 1.." << s.rounds
      << " (the node program's Release output)";
    r.mechanism = m.str();
    const double c1 = loss_.CurvatureBound();
    std::ostringstream p;
    p << "D: node 0 holds (c, +1), ||c|| = 1 (the norm bound); D': the canary (c, -1) in its "
         "place. ";
    if (s.logistic) {
      p << "Logistic loss: at margin 0 a flip moves the gradient by |L'(0)| * 2 = 1, half the "
           "bound 2 that the analyses assume (c1 = "
        << c1 << ")";
    } else {
      p << "Smooth hinge: every margin stays in its linear part (L' = -1, L'' = 0; the other "
           "rows come in cancelling pairs), so the flip moves the data gradient by exactly 2, "
           "the sensitivity bound, and the Jacobian term is 1: the worst case of the analyses";
    }
    r.pair = p.str();
  }

  std::vector<double> Run(int side, const std::optional<std::uint64_t>& key) const override {
    ConsensusNodeParams p = params_;
    p.noise_seed = key;
    const Dataset& own = side == 0 ? data_.node0_d : data_.node0_dprime;
    if (alone_) {
      auto n0 = MakeConsensusNode(0, own, 0, loss_, newton_, p, Eigen::VectorXd::Zero(setup_.dim));
      return RunGraph({n0.get()}, {{}}, setup_.rounds, 0);
    }
    auto n0 = MakeConsensusNode(0, own, 1, loss_, newton_, p, Eigen::VectorXd::Zero(setup_.dim));
    auto n1 =
        MakeConsensusNode(1, data_.node1, 1, loss_, newton_, p, Eigen::VectorXd::Zero(setup_.dim));
    return RunGraph({n0.get(), n1.get()}, {{1}, {0}}, setup_.rounds, 0);
  }

 private:
  AuditSetup setup_;
  ConsensusData data_;
  Loss loss_;
  NewtonOptions newton_;
  ConsensusNodeParams params_;
  bool baseline_ = false;  // local, average, central
  bool alone_ = false;     // central: the audited node is the only one
};

class PdmlRunner : public Runner {
 public:
  PdmlRunner(const AuditSetup& s, AuditResult& r) : setup_(s) {
    Stream stream(s.seed, 0, 0, Purpose::kGenerateData);
    y_.resize(s.rows);
    for (std::int64_t n = 0; n < s.rows; ++n) y_[n] = stream.Uniform() < 0.5 ? -1.0 : 1.0;
    y_[0] = 1.0;
    privacy_.eps = s.alpha;
    r.claim = ComposeTight({s.alpha}, s.delta);
    r.claim_per_round = r.claim;
    r.paper_claim = s.alpha;
    r.claim_source =
        "randomized response is pure eps-LDP per user (000 Proposition 1): ComposeTight({eps}) "
        "at delta";
    r.mechanism =
        "pdml Phase 1: the label the canary user reports after randomized response "
        "(000 eqs. (12)-(13), RandomizeLabels over the node's " +
        std::to_string(s.rows) + " users), eps = " + Number(s.alpha);
    r.pair =
        "D: the canary user's true label +1; D': -1 (the only data the mechanism reads: "
        "any pair of labels is a worst case)";
  }

  std::vector<double> Run(int side, const std::optional<std::uint64_t>& key) const override {
    Eigen::VectorXd y = y_;
    if (side == 1) y[0] = -1.0;
    const ReportedLabels reported = RandomizeLabels(y, privacy_, key, 0);
    return {reported.y[0]};
  }

 private:
  AuditSetup setup_;
  Eigen::VectorXd y_;
  LabelPrivacySpec privacy_;
};

// DP sharing: a star of the coordinator (node 0) and parties 1, 2; party 1 is audited.
class SharingRunner : public Runner {
 public:
  SharingRunner(const AuditSetup& s, AuditResult& r) : setup_(s) {
    const bool paper16 = s.mechanism == AuditMechanism::kSharingPaper16;
    const SharingParams defaults;
    lambda_ = defaults.lambda;
    rho_ = defaults.rho;
    const double b1 = defaults.b1, c1 = defaults.c1, delta = s.delta;
    constexpr int kParties = 2;
    const std::int64_t N = s.rows, d = s.dim;
    Stream stream(s.seed, 0, 0, Purpose::kGenerateData);
    // Entries uniform in [-1/2, 1/2] scaled so every row of a block has norm <= 1.
    auto block = [&](std::int64_t cols) {
      DenseRows x(N, cols);
      for (std::int64_t n = 0; n < N; ++n)
        for (std::int64_t j = 0; j < cols; ++j) x(n, j) = stream.Uniform() - 0.5;
      x /= std::max(1.0, x.rowwise().norm().maxCoeff());
      return x;
    };
    labels_.resize(N);
    for (std::int64_t n = 0; n < N; ++n) labels_[n] = stream.Uniform() < 0.5 ? -1.0 : 1.0;
    DenseRows b = block(d);
    blocks_[0].x = b;
    // D': one feature column of party 1 changed (001's neighbouring relation), rows kept at
    // norm <= 1.
    for (std::int64_t n = 0; n < N; ++n) b(n, 0) = stream.Uniform() - 0.5;
    b /= std::max(1.0, b.rowwise().norm().maxCoeff());
    blocks_[1].x = b;
    blocks_[2].x = block(d);
    for (int k = 0; k < 3; ++k) {
      const Eigen::MatrixXd gram = sharing::Gram(blocks_[k]);
      xupdates_[k] = std::make_unique<sharing::XUpdate>(gram, lambda_, rho_, paper16 ? 0.0 : b1);
      noises_[k] = std::make_unique<sharing::GramNoise>(gram);
    }
    // Projection onto the orthogonal complement of col(D_1) under D.
    const Eigen::MatrixXd D = std::get<DenseRows>(blocks_[0].x);
    const Eigen::HouseholderQR<Eigen::MatrixXd> qr(D);
    const Eigen::MatrixXd Q = qr.householderQ() * Eigen::MatrixXd::Identity(N, d);
    complement_ = Eigen::MatrixXd::Identity(N, N) - Q * Q.transpose();
    const std::int64_t T = s.rounds;
    if (paper16) {
      const double sens = SharingSensitivity(d, rho_, lambda_, c1, kParties, b1);
      sigma_ = SharingGaussianSigma(s.epsilon, delta, sens);
      epsilon_iteration_ = s.epsilon;
      r.claim = SharingTightEpsilon(sens, sigma_, T, delta);
      r.claim_per_round = SharingTightEpsilon(sens, sigma_, 1, delta);
      r.paper_claim = s.epsilon * static_cast<double>(T);
      r.claim_source =
          "the analytic Gaussian (accountant) at 001 Lemma 1's sensitivity C = " + Number(sens) +
          " and Theorem 3's sigma = " + Number(sigma_) + " for eps = " + Number(s.epsilon) +
          " per iteration; paper: T eps (Theorem 3 per iteration)";
      r.mechanism =
          "sharing_paper16 (NOT DP as stated): party 1 releases D_1 x~_1, x~ = x + xi, "
          "xi ~ N(0, sigma^2 (D_1^T D_1)^-1) (001 eq. (16)); N = " +
          std::to_string(N) + " samples, " + std::to_string(d) + " features per party";
    } else {
      double step = kGridStep, sens = 0.0;
      for (int k = 0; k < 8; ++k) {
        sens = SharingMessageSensitivity(N, b1, step);
        sigma_ = SharingSigmaForTotalEpsilon(s.epsilon, delta, sens, T);
        const double next = GaussianGridStep(sigma_);
        if (next == step) break;
        step = next;
      }
      r.claim = SharingTightEpsilon(sens, sigma_, T, delta);
      r.claim_per_round = SharingTightEpsilon(sens, sigma_, 1, delta);
      r.paper_claim = r.claim;
      r.claim_source = "the analytic Gaussian (accountant) at sensitivity 2 b1 sqrt(N) + grid = " +
                       Number(sens) + ", sigma = " + Number(sigma_) + " calibrated for total eps " +
                       Number(s.epsilon) + " over " + std::to_string(T) + " iterations";
      r.mechanism =
          "sharing (default Gaussian mechanism): party 1 releases RoundToGrid(D_1 x_1) "
          "+ N(0, sigma^2 I_N) (exact discrete Gaussian), ||x_1|| <= b1 = " +
          Number(b1) + "; N = " + std::to_string(N) + " samples, " + std::to_string(d) +
          " features per party";
    }
    r.pair =
        "D: party 1's block D_1; D': one feature column of D_1 replaced (001's neighbouring "
        "relation), rows of norm <= 1; the column space col(D_1) moves, which is what "
        "eq. (16)'s data-shaped covariance exposes";
  }

  std::vector<double> Run(int side, const std::optional<std::uint64_t>& key) const override {
    const bool paper16 = setup_.mechanism == AuditMechanism::kSharingPaper16;
    sharing::CoordinatorParams cp;
    cp.parties = 2;
    cp.rho = rho_;
    sharing::SharingCoordinator coordinator(labels_, cp);
    std::vector<std::unique_ptr<sharing::SharingParty>> parties;
    for (int p = 1; p <= 2; ++p) {
      const int k = p == 1 ? side : 2;
      sharing::PartyParams pp;
      pp.party = p;
      pp.mechanism =
          paper16 ? sharing::SharingMechanism::kPaper16 : sharing::SharingMechanism::kGaussian;
      pp.lambda = lambda_;
      pp.rho = rho_;
      pp.sigma = sigma_;
      pp.epsilon = epsilon_iteration_;
      pp.noise_seed = key;
      parties.push_back(
          std::make_unique<sharing::SharingParty>(blocks_[k], *xupdates_[k], noises_[k].get(), pp));
    }
    // Party 1 releases in the odd rounds 1, 3, ..., 2T - 1.
    return RunGraph({&coordinator, parties[0].get(), parties[1].get()}, {{1, 2}, {0}, {0}},
                    2 * static_cast<std::int64_t>(setup_.rounds) - 1, 1);
  }

  bool fixed_statistic() const override { return true; }
  // sum_t ||(I - P_{col(D_1)}) m_t||: 0 (up to the grid) for eq. (16) under D.
  double Statistic(const std::vector<double>& released) const override {
    const std::int64_t N = setup_.rows;
    double s = 0.0;
    for (std::size_t t = 0; t + static_cast<std::size_t>(N) <= released.size(); t += N) {
      const Eigen::Map<const Eigen::VectorXd> m(released.data() + t, N);
      s += (complement_ * m).norm();
    }
    return s;
  }

 private:
  AuditSetup setup_;
  double lambda_ = 0.0, rho_ = 0.0, sigma_ = 0.0, epsilon_iteration_ = 0.0;
  Eigen::VectorXd labels_;
  Dataset blocks_[3];  // party 1 under D, party 1 under D', party 2
  std::unique_ptr<sharing::XUpdate> xupdates_[3];
  std::unique_ptr<sharing::GramNoise> noises_[3];
  Eigen::MatrixXd complement_;
};

struct ThresholdChoice {
  double threshold = 0.0;
  bool d_above = true;
  double objective = -kInf;
};

// Counts of "says D" errors for a threshold test: false positive = a D' run classified D.
void Count(const std::vector<double>& d_scores, const std::vector<double>& dp_scores, double t,
           bool d_above, std::int64_t& fp, std::int64_t& fn) {
  fp = fn = 0;
  for (double s : dp_scores) fp += (d_above ? s > t : s <= t) ? 1 : 0;
  for (double s : d_scores) fn += (d_above ? s > t : s <= t) ? 0 : 1;
}

// The threshold and direction that maximise the bound on the fit half. The bound there is taken
// at the level of a simultaneous statement over all candidates (Bonferroni over 2 rates x 2
// directions x candidates): with the evaluation half's level, the maximum over hundreds of
// candidates picks thresholds in thin tails whose fit counts were lucky (a winner's curse the
// evaluation half then reveals); the stricter level prefers the thresholds whose bound is
// stable, which are also the ones that evaluate best.
ThresholdChoice ChooseThreshold(const std::vector<double>& d_scores,
                                const std::vector<double>& dp_scores, double delta,
                                double confidence) {
  std::vector<double> pooled(d_scores);
  pooled.insert(pooled.end(), dp_scores.begin(), dp_scores.end());
  std::sort(pooled.begin(), pooled.end());
  pooled.erase(std::unique(pooled.begin(), pooled.end()), pooled.end());
  std::vector<double> candidates;
  constexpr std::size_t kCandidates = 400;
  if (pooled.size() <= kCandidates) {
    candidates = pooled;
  } else {
    for (std::size_t k = 0; k < kCandidates; ++k)
      candidates.push_back(pooled[k * (pooled.size() - 1) / (kCandidates - 1)]);
  }
  // Below every value too (a test that always says D or D' is useless, but harmless).
  const double level = 1.0 - (1.0 - confidence) / (4.0 * static_cast<double>(candidates.size()));
  const std::int64_t n_d = static_cast<std::int64_t>(d_scores.size());
  const std::int64_t n_dp = static_cast<std::int64_t>(dp_scores.size());
  ThresholdChoice best;
  for (double t : candidates) {
    for (bool d_above : {true, false}) {
      std::int64_t fp = 0, fn = 0;
      Count(d_scores, dp_scores, t, d_above, fp, fn);
      const double v = EpsilonLowerBound(ClopperPearsonUpper(fp, n_dp, level),
                                         ClopperPearsonUpper(fn, n_d, level), delta);
      if (v > best.objective) best = {t, d_above, v};
    }
  }
  return best;
}

}  // namespace

const char* ToString(AuditMechanism m) {
  switch (m) {
    case AuditMechanism::kDvp: return "dvp";
    case AuditMechanism::kPvp: return "pvp";
    case AuditMechanism::kPvpGaussian: return "pvp_gaussian";
    case AuditMechanism::kMadmm: return "madmm";
    case AuditMechanism::kPrivateMradmm: return "private_mradmm";
    case AuditMechanism::kPdmlLabels: return "pdml";
    case AuditMechanism::kSharing: return "sharing";
    case AuditMechanism::kSharingPaper16: return "sharing_paper16";
    case AuditMechanism::kLocal: return "local";
    case AuditMechanism::kAverage: return "average";
    case AuditMechanism::kCentral: return "central";
  }
  return "?";
}

std::vector<AuditMechanism> AllAuditMechanisms() {
  return {AuditMechanism::kDvp,           AuditMechanism::kPvp,
          AuditMechanism::kPvpGaussian,   AuditMechanism::kMadmm,
          AuditMechanism::kPrivateMradmm, AuditMechanism::kPdmlLabels,
          AuditMechanism::kSharing,       AuditMechanism::kSharingPaper16,
          AuditMechanism::kLocal,         AuditMechanism::kAverage,
          AuditMechanism::kCentral};
}

AuditMechanism ParseAuditMechanism(const std::string& name) {
  std::string names;
  for (AuditMechanism m : AllAuditMechanisms()) {
    if (name == ToString(m)) return m;
    names += names.empty() ? "" : ", ";
    names += ToString(m);
  }
  throw InputError("audit: --algorithm must be one of " + names + ", got '" + name + "'");
}

void AuditSetup::Validate() const {
  if (rounds < 1) Fail("rounds", "must be >= 1, got " + std::to_string(rounds));
  if (rounds > 1000) Fail("rounds", "must be <= 1000, got " + std::to_string(rounds));
  if (rows < 0 || rows == 1 || rows > 100000)
    Fail("rows", "must be in [2, 100000] (0 = default), got " + std::to_string(rows));
  if (dim < 0 || dim > 1000)
    Fail("dim", "must be in [1, 1000] (0 = default), got " + std::to_string(dim));
  const std::pair<const char*, double> fields[] = {
      {"alpha", alpha}, {"eta", eta}, {"C", C}, {"rho", rho}, {"epsilon", epsilon}};
  for (const auto& [field, v] : fields) {
    if (!std::isfinite(v) || v < 0.0)
      Fail(field, "must be finite and >= 0 (0 = default), got " + Number(v));
  }
  if (!(delta > 0.0 && delta < 1.0)) Fail("delta", "must be in (0, 1), got " + Number(delta));
  if (logistic && !IsConsensus(mechanism))
    Fail("loss", "logistic applies to the consensus mechanisms only");
  if (gaussian && !IsBaselineAudit(mechanism))
    Fail("mechanism", "gaussian applies to local, average and central only");
}

void AuditOptions::Validate() const {
  if (runs_per_side < 20)
    Fail("runs", "per side must be >= 20, got " + std::to_string(runs_per_side));
  if (threads < 0) Fail("threads", "must be >= 0 (0 = all cores), got " + std::to_string(threads));
  if (!(confidence > 0.0 && confidence < 1.0))
    Fail("confidence", "must be in (0, 1), got " + Number(confidence));
}

AuditSetup AuditDefaults(const AuditSetup& in) {
  AuditSetup s = in;
  auto set = [](auto& field, auto value) {
    if (field <= 0) field = value;
  };
  switch (s.mechanism) {
    // Parameters chosen so that the per-round claim is about 1 (where a threshold test on a
    // few thousand runs is sharpest) and the canary pair reaches the analyses' worst case:
    // a large penalty keeps every margin in the smooth hinge's linear part and makes the
    // Jacobian allowances (DVP's alpha - alpha_hat, 002's 1.4 c1, 003's 1.4 c1 / (rho/N +
    // 2 eta V)) small next to the noise term.
    case AuditMechanism::kDvp:
    case AuditMechanism::kPvp:
      set(s.alpha, 1.0);
      set(s.eta, 10.0);
      set(s.C, 1.0);
      break;
    case AuditMechanism::kPvpGaussian:
      // noise multiplier 3.73: mu = 1 / 3.73 plus the lattice term, a claim of about 1 per
      // round at delta 1e-5.
      set(s.alpha, 3.73);
      set(s.eta, 10.0);
      set(s.C, 1.0);
      break;
    case AuditMechanism::kMadmm:
      // 002: C (1.4 c1 + alpha) / (eta V B) = 1.93 * 41.4 / 80 = 0.999; the noise term's share
      // alpha / (1.4 c1 + alpha) = 0.966.
      set(s.alpha, 40.0);
      set(s.eta, 10.0);
      set(s.C, 1.93);
      break;
    case AuditMechanism::kPrivateMradmm:
      // 003 (32): (2C/B)(1.4 c1 / (rho/N + 2 eta V) + alpha) = 0.4825 * 2.07 = 0.999.
      set(s.alpha, 2.0);
      set(s.eta, 10.0);
      set(s.C, 1.93);
      break;
    case AuditMechanism::kPdmlLabels: set(s.alpha, 1.0); break;
    case AuditMechanism::kLocal:
    case AuditMechanism::kAverage:
    case AuditMechanism::kCentral:
      // Objective perturbation with Lambda = rho / C = 8 on B = 8 rows (smooth hinge, c = 1):
      // eps' = 1 - 2 log(1 + 1/64) = 0.969 of the claim 1 is the noise's, and the released
      // f = (y - b) / 64 keeps every margin in the hinge's linear part for most draws (L'' = 0:
      // no Jacobian term), where the canary's flip moves the gradient by exactly 2.
      set(s.epsilon, 1.0);
      set(s.C, 1.0);
      set(s.rho, 8.0);
      set(s.eta, 1.0);
      break;
    case AuditMechanism::kSharing:
    case AuditMechanism::kSharingPaper16: set(s.epsilon, 1.0); break;
  }
  set(s.rho, 0.01);
  if (IsSharing(s.mechanism)) {
    set(s.rows, std::int64_t{16});
    set(s.dim, std::int64_t{2});
  } else {
    set(s.rows, std::int64_t{8});
    set(s.dim, std::int64_t{1});
  }
  if (s.mechanism == AuditMechanism::kPdmlLabels) s.rounds = 1;  // Phase 1 happens once
  return s;
}

double ClopperPearsonUpper(std::int64_t k, std::int64_t n, double level) {
  if (n < 1 || k < 0 || k > n || !(level > 0.0 && level < 1.0)) {
    throw InputError("ClopperPearsonUpper: need 0 <= k <= n, n >= 1, level in (0, 1)");
  }
  if (k == n) return 1.0;
  const double alpha = 1.0 - level;
  // k = 0: (1 - p)^n = alpha in closed form.
  if (k == 0) return -std::expm1(std::log(alpha) / static_cast<double>(n));
  // P(Bin(n, p) <= k) decreases in p: bisection on [k/n, 1].
  double lo = static_cast<double>(k) / static_cast<double>(n), hi = 1.0;
  for (int it = 0; it < 100 && hi - lo > 1e-14; ++it) {
    const double mid = 0.5 * (lo + hi);
    if (BinomialCdf(k, n, mid) > alpha) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return hi;  // rounded up: the bound stays conservative
}

double EpsilonLowerBound(double fpr, double fnr, double delta) {
  auto one = [delta](double a, double b) {
    const double num = 1.0 - delta - a;
    if (!(num > 0.0)) return 0.0;
    if (b <= 0.0) return kInf;
    return std::log(num / b);
  };
  return std::max({0.0, one(fnr, fpr), one(fpr, fnr)});
}

AuditResult RunAuditWithTestHooks(const AuditSetup& setup_in, const AuditOptions& options,
                                  const AuditTestHooks& hooks) {
  setup_in.Validate();
  options.Validate();
  const AuditSetup s = AuditDefaults(setup_in);
  if (IsSharing(s.mechanism)) {
    // The statistic projects on the complement of col(D_1), an N x N matrix.
    if (s.rows <= s.dim || s.rows > 2000) {
      Fail("rows", "of a sharing audit must be above the party's features (" +
                       std::to_string(s.dim) + ") and at most 2000, got " + std::to_string(s.rows));
    }
  }
  const auto start = std::chrono::steady_clock::now();
  AuditResult r;
  r.setup = s;
  std::unique_ptr<Runner> runner;
  if (IsConsensus(s.mechanism)) {
    runner = std::make_unique<ConsensusRunner>(s, r);
  } else if (s.mechanism == AuditMechanism::kPdmlLabels) {
    runner = std::make_unique<PdmlRunner>(s, r);
  } else {
    runner = std::make_unique<SharingRunner>(s, r);
  }
  r.noise = options.noise_seed ? "simulation: noise reproducible from the seed " +
                                     std::to_string(*options.noise_seed) + " (not private)"
                               : "private keys (fresh per run)";
  const std::int64_t n = options.runs_per_side;
  r.runs_per_side = n;
  // Run k: side k % 2, index k / 2 (the sides interleave so that both see the same load).
  std::vector<std::vector<double>> released(static_cast<std::size_t>(2 * n));
  runtime::ParallelFor(2 * n, options.threads, [&](std::int64_t k) {
    const int side = static_cast<int>(k % 2);
    std::optional<std::uint64_t> key;
    if (options.noise_seed) key = RunNoiseSeed(*options.noise_seed, side, k / 2);
    std::optional<ScopedNoiseWeakeningForTests> weakened;
    if (hooks.noise_scale != 1.0) weakened.emplace(hooks.noise_scale);
    released[static_cast<std::size_t>(k)] = runner->Run(side, key);
  });
  r.threads = options.threads > 0
                  ? options.threads
                  : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  if (!runtime::ParallelForIsParallel()) r.threads = 1;

  // The statistic: fixed (sharing), or fitted on the first half of each side's runs: either the
  // projection on the mean difference, or the sum over released coordinates of the Laplace
  // log-likelihood ratio shape, clip((v_j - c_j) / h_j, -1, 1) sign_j with c_j the midpoint of
  // the two sides' means and h_j half their distance (the exact likelihood ratio of independent
  // Laplace coordinates, up to a factor: it weighs every round equally and ignores how far a
  // value lies beyond the other side's mean, where the loss of l2-Laplace-type noise in one
  // dimension no longer grows). The one whose bound on the fit half is larger is used.
  const std::int64_t fit = n / 2;
  r.eval_per_side = n - fit;
  const std::size_t len = released[0].size();
  const auto at = [](std::size_t j) { return static_cast<Eigen::Index>(j); };
  Eigen::VectorXd mean_d = Eigen::VectorXd::Zero(at(len)), mean_dp = mean_d;
  {
    for (std::int64_t i = 0; i < fit; ++i) {
      const auto& a = released[static_cast<std::size_t>(2 * i)];
      const auto& b = released[static_cast<std::size_t>(2 * i + 1)];
      for (std::size_t j = 0; j < len; ++j) {
        mean_d[at(j)] += a[j];
        mean_dp[at(j)] += b[j];
      }
    }
    mean_d /= static_cast<double>(fit);
    mean_dp /= static_cast<double>(fit);
  }
  const Eigen::VectorXd w = mean_d - mean_dp;
  const Eigen::VectorXd mid = 0.5 * (mean_d + mean_dp);
  // Innovations: later releases carry the earlier rounds' noise forward (the nodes average), so
  // the fresh information of value j is what the earlier values do not predict. Fitted on the
  // fit half by least squares of v_j on (1, side, v_0 .. v_{j-1}); innovation e_j = v_j minus
  // the part predicted by v_0 .. v_{j-1}. Then the clipped sum on the innovations.
  Eigen::MatrixXd predict = Eigen::MatrixXd::Zero(at(len), at(len));  // row j: coefficients
  Eigen::VectorXd inn_mid = Eigen::VectorXd::Zero(at(len)), inn_w = inn_mid;
  auto innovations = [&](const std::vector<double>& v) {
    const Eigen::Map<const Eigen::VectorXd> x(v.data(), at(len));
    return Eigen::VectorXd(x - predict * x);
  };
  if (len > 1 && len <= 64) {
    const Eigen::Index rows = 2 * fit;
    Eigen::MatrixXd X(rows, at(len) + 2);
    for (std::int64_t i = 0; i < rows; ++i) {
      const auto& v = released[static_cast<std::size_t>(i)];
      X(i, 0) = 1.0;
      X(i, 1) = static_cast<double>(i % 2);
      for (std::size_t j = 0; j < len; ++j) X(i, at(j) + 2) = v[j];
    }
    for (Eigen::Index j = 1; j < at(len); ++j) {
      const Eigen::MatrixXd A = X.leftCols(j + 2);
      const Eigen::VectorXd coef = A.colPivHouseholderQr().solve(X.col(j + 2));
      predict.row(j).head(j) = coef.tail(j).transpose();
    }
    Eigen::VectorXd m_d = Eigen::VectorXd::Zero(at(len)), m_dp = m_d;
    for (std::int64_t i = 0; i < fit; ++i) {
      m_d += innovations(released[static_cast<std::size_t>(2 * i)]);
      m_dp += innovations(released[static_cast<std::size_t>(2 * i + 1)]);
    }
    inn_w = (m_d - m_dp) / static_cast<double>(fit);
    inn_mid = 0.5 * (m_d + m_dp) / static_cast<double>(fit);
  }
  enum class Kind { kFixed, kProjection, kClipped, kInnovations };
  auto clipped = [](const Eigen::VectorXd& v, const Eigen::VectorXd& c, const Eigen::VectorXd& d) {
    double sum = 0.0;
    for (Eigen::Index j = 0; j < v.size(); ++j) {
      if (d[j] == 0.0) continue;
      sum +=
          std::clamp((v[j] - c[j]) / (0.5 * std::abs(d[j])), -1.0, 1.0) * (d[j] > 0.0 ? 1.0 : -1.0);
    }
    return sum;
  };
  auto score = [&](Kind kind, const std::vector<double>& v) {
    if (kind == Kind::kFixed) return runner->Statistic(v);
    const Eigen::Map<const Eigen::VectorXd> x(v.data(), at(len));
    if (kind == Kind::kProjection) return w.dot(x);
    if (kind == Kind::kClipped) return clipped(x, mid, w);
    return clipped(innovations(v), inn_mid, inn_w);
  };
  struct Scores {
    std::vector<double> fit_d, fit_dp, eval_d, eval_dp;
  };
  auto scores_of = [&](Kind kind) {
    Scores sc;
    for (std::int64_t i = 0; i < n; ++i) {
      const double sd = score(kind, released[static_cast<std::size_t>(2 * i)]);
      const double sdp = score(kind, released[static_cast<std::size_t>(2 * i + 1)]);
      (i < fit ? sc.fit_d : sc.eval_d).push_back(sd);
      (i < fit ? sc.fit_dp : sc.eval_dp).push_back(sdp);
    }
    return sc;
  };
  Scores sc;
  ThresholdChoice choice;
  std::vector<Kind> kinds;
  if (runner->fixed_statistic()) kinds.push_back(Kind::kFixed);
  kinds.push_back(Kind::kProjection);
  kinds.push_back(Kind::kClipped);
  if (len > 1 && len <= 64) kinds.push_back(Kind::kInnovations);
  const std::string what = IsSharing(s.mechanism) ? "party 1's " : "node 0's ";
  for (Kind kind : kinds) {
    Scores k_sc = scores_of(kind);
    const ThresholdChoice c = ChooseThreshold(k_sc.fit_d, k_sc.fit_dp, s.delta, options.confidence);
    if (c.objective <= choice.objective) continue;
    choice = c;
    sc = std::move(k_sc);
    switch (kind) {
      case Kind::kFixed:
        r.statistic =
            "residual of the released message outside col(D_1) (D's column space), "
            "summed over the releases";
        break;
      case Kind::kProjection:
        r.statistic = "projection of " + what + std::to_string(len) +
                      " released values on the mean difference (mean_D - mean_D') of the fit half";
        break;
      case Kind::kClipped:
        r.statistic = "sum over " + what + std::to_string(len) +
                      " released values of clip((v - mid) / half-distance, -1, 1), the Laplace "
                      "likelihood-ratio shape fitted on the fit half";
        break;
      case Kind::kInnovations:
        r.statistic = "the clipped sum on the innovations of " + what + std::to_string(len) +
                      " released values (each minus its linear prediction from the earlier "
                      "ones, fitted on the fit half)";
        break;
    }
  }
  r.statistic += std::string(" (the best on the fit half of: ") +
                 (runner->fixed_statistic() ? "the column-space residual, " : "") +
                 "a projection, a clipped sum" +
                 (len > 1 && len <= 64 ? ", clipped innovations" : "") +
                 "); threshold and direction chosen on the fit half";
  // Bonferroni over the two upper bounds (FPR and FNR), one-sided each.
  const double level = 1.0 - (1.0 - options.confidence) / 2.0;
  const std::vector<double>& eval_d = sc.eval_d;
  const std::vector<double>& eval_dp = sc.eval_dp;
  r.threshold = choice.threshold;
  r.d_above = choice.d_above;
  Count(eval_d, eval_dp, choice.threshold, choice.d_above, r.false_positives, r.false_negatives);
  const auto ne = static_cast<double>(r.eval_per_side);
  r.fpr = static_cast<double>(r.false_positives) / ne;
  r.fnr = static_cast<double>(r.false_negatives) / ne;
  r.fpr_upper = ClopperPearsonUpper(r.false_positives, r.eval_per_side, level);
  r.fnr_upper = ClopperPearsonUpper(r.false_negatives, r.eval_per_side, level);
  r.epsilon_lower_bound = EpsilonLowerBound(r.fpr_upper, r.fnr_upper, s.delta);
  r.ratio = r.claim > 0.0 ? r.epsilon_lower_bound / r.claim : kInf;
  r.pass = r.epsilon_lower_bound <= r.claim;
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

AuditResult RunAudit(const AuditSetup& setup, const AuditOptions& options) {
  return RunAuditWithTestHooks(setup, options, AuditTestHooks{});
}

}  // namespace dpadmm
