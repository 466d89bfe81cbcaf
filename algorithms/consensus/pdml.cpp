#include "consensus/pdml_node.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <string>

#include "dpadmm/core/error.h"
#include "dpadmm/core/portable_math.h"
#include "dpadmm/privacy/noise.h"
#include "dpadmm/consensus/pdml.h"
#include "dpadmm/core/random.h"

namespace dpadmm {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

template <class T>
[[noreturn]] void Bad(const std::string& field, const std::string& rule, const T& got) {
  std::ostringstream os;
  os << field << " must be " << rule << ", got " << got;
  throw InputError(os.str());
}

void CheckEps(const std::string& field, double eps) {
  if (!(eps >= 0.0) || !std::isfinite(eps)) Bad(field, ">= 0 and finite (0 = no randomization)", eps);
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Phase 1 and the debiased loss (public, pdml.h)

void LabelPrivacySpec::Validate(const std::string& prefix) const {
  CheckEps(prefix + "label_eps", eps);
  if (group_eps.size() != group_shares.size()) {
    Bad(prefix + "label_eps_shares", "one share per group (" + std::to_string(group_eps.size()) +
                                         " groups in " + prefix + "label_eps_groups)",
        std::to_string(group_shares.size()) + " values");
  }
  double total = 0.0;
  for (std::size_t k = 0; k < group_eps.size(); ++k) {
    CheckEps(prefix + "label_eps_groups[" + std::to_string(k) + "]", group_eps[k]);
    const double s = group_shares[k];
    if (!(s > 0.0) || !std::isfinite(s)) {
      Bad(prefix + "label_eps_shares[" + std::to_string(k) + "]", "> 0 and finite", s);
    }
    total += s;
  }
  if (!group_eps.empty() && std::abs(total - 1.0) > 1e-9) {
    Bad(prefix + "label_eps_shares", "shares summing to 1", total);
  }
}

double KeepProbability(double eps) {
  if (eps == 0.0) return 1.0;
  // e^eps / (1 + e^eps) = 1 / (1 + e^-eps), no overflow for large eps.
  return 1.0 / (1.0 + math::Exp(-eps));
}

double RandomizationProbability(double eps) {
  if (eps == 0.0) return 0.0;
  return 1.0 / (1.0 + math::Exp(eps));  // eq. (13)
}

double DebiasWeight(double eps) {
  if (eps == 0.0) return 0.0;
  return 1.0 / math::Expm1(eps);  // 1 / (e^eps - 1), exact near 0 and 0 beyond overflow
}

double RandomizedResponse(double y, double eps, Stream& stream) {
  const double u = stream.Uniform();  // drawn even for eps = 0, so streams stay aligned
  const double p = RandomizationProbability(eps);
  // eq. (12): +1 with probability p, -1 with probability p, y with probability 1 - 2p.
  if (u < p) return 1.0;
  if (u < 2.0 * p) return -1.0;
  return y;
}

ReportedLabels RandomizeLabels(const Eigen::VectorXd& y, const LabelPrivacySpec& privacy,
                               std::uint64_t seed, std::uint64_t node) {
  privacy.Validate("algorithm.");
  const Eigen::Index m = y.size();
  ReportedLabels out;
  out.y.resize(m);
  out.eps.resize(m);
  if (privacy.group_eps.empty()) {
    out.eps.setConstant(privacy.eps);
  } else {
    // Each user joins group k with probability share_k: one uniform per user, compared with
    // the cumulative shares (the last group takes any rounding remainder).
    Stream assign(seed, node, 0, Purpose::kLabelNoise);
    for (Eigen::Index j = 0; j < m; ++j) {
      const double u = assign.Uniform();
      double cumulative = 0.0;
      std::size_t k = 0;
      for (; k + 1 < privacy.group_eps.size(); ++k) {
        cumulative += privacy.group_shares[k];
        if (u < cumulative) break;
      }
      out.eps[j] = privacy.group_eps[k];
    }
  }
  Stream respond(seed, node, 1, Purpose::kLabelNoise);
  for (Eigen::Index j = 0; j < m; ++j) out.y[j] = RandomizedResponse(y[j], out.eps[j], respond);
  return out;
}

double DebiasedLoss(const Loss& loss, double y_reported, double z, double eps) {
  // (19) rewritten: (e^e l(u) - l(-u)) / (e^e - 1) = l(u) + (l(u) - l(-u)) / (e^e - 1), u = y'z.
  const double u = y_reported * z;
  return loss.Value(u) + DebiasWeight(eps) * (loss.Value(u) - loss.Value(-u));
}

double DebiasedLossD1(const Loss& loss, double y_reported, double z, double eps) {
  const double u = y_reported * z;
  // d/dz l(y'z) = y' l'(u), d/dz l(-y'z) = -y' l'(-u).
  return y_reported * (loss.D1(u) + DebiasWeight(eps) * (loss.D1(u) + loss.D1(-u)));
}

double DebiasedLossD2(const Loss& loss, double y_reported, double z, double eps) {
  const double u = y_reported * z;  // y'^2 = 1
  return loss.D2(u) + DebiasWeight(eps) * (loss.D2(u) - loss.D2(-u));
}

void DrawUniformBall(Stream& stream, double R, Eigen::Ref<Eigen::VectorXd> out) {
  if (!(R >= 0.0) || !std::isfinite(R)) Bad("DrawUniformBall: R", ">= 0 and finite", R);
  // Draw order: the radius, then the direction. P(||x|| <= r) = (r / R)^d for the uniform
  // distribution on the ball, so ||x|| = R U^(1/d).
  const double radius = R * math::Pow(stream.UniformOpen(), 1.0 / static_cast<double>(out.size()));
  DrawUnitDirection(stream, out);
  out *= radius;
}

double PrimalNoiseStd(double V, double decay, std::int64_t t) {
  if (t < 1 || V == 0.0) return 0.0;
  return V * math::Pow(decay, 0.5 * static_cast<double>(t - 1));
}

// ---------------------------------------------------------------------------------------------
// PdmlNode

PdmlNode::PdmlNode(int id, const Dataset& reported, const Eigen::VectorXd& eps, int degree,
                   const Loss& loss, const NewtonOptions& newton, const PdmlNodeParams& params,
                   Eigen::VectorXd w0)
    : id_(id),
      degree_(degree),
      dim_(w0.size()),
      params_(params),
      solver_(reported, params.C / static_cast<double>(reported.rows()), loss, newton),
      w_(std::move(w0)),
      released_(w_),
      gamma_(Eigen::VectorXd::Zero(dim_)),
      eta_(Eigen::VectorXd::Zero(dim_)),
      linear_(Eigen::VectorXd::Zero(dim_)),
      neighbours_(dim_),
      g_(dim_),
      theta_(Eigen::VectorXd::Zero(dim_)) {
  if (loss.kind != LossKind::kLogistic) {
    throw InputError("loss.kind: pdml needs the logistic loss (the debiased smooth hinge, eq. (19), "
                     "is not convex), got " + loss.Name());
  }
  if (eps.size() != reported.rows()) {
    throw InputError("pdml node " + std::to_string(id) + ": " + std::to_string(eps.size()) +
                     " eps values for " + std::to_string(reported.rows()) + " rows");
  }
  if (!(params.R >= 0.0) || !std::isfinite(params.R)) Bad("algorithm.pdml_R", ">= 0", params.R);
  if (!(params.V >= 0.0) || !std::isfinite(params.V)) Bad("algorithm.pdml_V", ">= 0", params.V);
  if (!(params.decay > 0.0 && params.decay <= 1.0)) Bad("algorithm.pdml_decay", "in (0, 1]", params.decay);
  if (!(params.beta > 0.0) || !std::isfinite(params.beta)) Bad("algorithm.eta (beta)", "> 0", params.beta);
  const double weight = params.C / static_cast<double>(reported.rows());
  // Debiasing term of (19) for the logistic loss: -(C/m_i) sum_j y'_j x_j / (e^eps_j - 1).
  Eigen::VectorXd coef(reported.rows());
  for (Eigen::Index j = 0; j < coef.size(); ++j) {
    if (!(eps[j] >= 0.0) || !std::isfinite(eps[j])) {
      throw InputError("pdml node " + std::to_string(id) + ": eps of row " + std::to_string(j) +
                       " must be >= 0 and finite");
    }
    coef[j] = DebiasWeight(eps[j]) * reported.y[j];
    if (eps[j] > 0.0) max_label_eps_ = std::max(max_label_eps_, eps[j]);
  }
  linear_ = VisitRows(reported, [&](const auto& x) -> Eigen::VectorXd {
    return -weight * (x.transpose() * coef);
  });
  // (14): bounded noise eta_i, ||eta_i||_2 <= R, drawn once per server; enters as (1/m_i) eta^T w.
  if (params.R > 0.0) {
    Stream stream(params.seed, static_cast<std::uint64_t>(id), 0, Purpose::kObjectiveNoise);
    DrawUniformBall(stream, params.R, eta_);
    linear_ += weight * eta_;
  }
}

runtime::StepResult PdmlNode::Start(runtime::Outbox& out) {
  // w~_i(0) = w_i(0): theta_i(t) is indexed from t = 1.
  released_ = w_;
  auto m = out.Prepare(static_cast<std::size_t>(dim_));
  Eigen::Map<Eigen::VectorXd>(m.data(), dim_) = released_;
  return runtime::StepResult::Ok();
}

runtime::StepResult PdmlNode::Step(std::int64_t round, const runtime::Inbox& in,
                                   runtime::Outbox& out) {
  SumNeighbours(in);
  UpdateDual(round);
  runtime::StepResult r = UpdatePrimal(round);
  if (!r.ok) return r;
  PerturbPrimal(round);
  auto m = out.Prepare(static_cast<std::size_t>(dim_));
  Eigen::Map<Eigen::VectorXd>(m.data(), dim_) = released_;
  return runtime::StepResult::Ok();
}

void PdmlNode::SumNeighbours(const runtime::Inbox& in) {
  neighbours_.setZero();
  for (std::size_t k = 0; k < in.size(); ++k) {
    neighbours_ += Eigen::Map<const Eigen::VectorXd>(in[k].data(), dim_);
  }
}

// (17), for the previous iteration, now that the neighbours' w~_l(r-1) have arrived:
//   gamma_i(r-1) = gamma_i(r-2) + beta sum_l (w~_i(r-1) - w~_l(r-1)).
// With gamma_i(0) = 0 the first update happens in round 2 (after iteration t = 1), as for
// ConsensusNode, so that PDML without noise is exactly the consensus "admm" algorithm.
void PdmlNode::UpdateDual(std::int64_t round) {
  if (round < 2) return;
  gamma_ += params_.beta * (static_cast<double>(degree_) * released_ - neighbours_);
}

// (15): w_i(r) = argmin J~_i(w) + gamma_i^T w + beta sum_l ||w - (w~_i(r-1) + w~_l(r-1))/2||^2.
runtime::StepResult PdmlNode::UpdatePrimal(std::int64_t round) {
  const double N = static_cast<double>(degree_);
  const double a = params_.rho_node + 2.0 * params_.beta * N;
  g_ = gamma_ + linear_ - params_.beta * (N * released_ + neighbours_);
  const SolveReport report = solver_.Solve(a, g_, w_);
  if (report.status == SolveStatus::kNonFinite || !w_.allFinite()) {
    return runtime::StepResult::Fail("node " + std::to_string(id_) + " diverged in round " +
                                     std::to_string(round) + ": non-finite primal update (local "
                                     "solver: " + ToString(report.status) + ")");
  }
  return runtime::StepResult::Ok();
}

// (16): w~_i(r) = w_i(r) + theta_i(r), theta_i(r) ~ N(0, decay^(r-1) V^2 I).
void PdmlNode::PerturbPrimal(std::int64_t round) {
  noise_std_ = PrimalNoiseStd(params_.V, params_.decay, round);
  released_ = w_;
  if (noise_std_ > 0.0) {
    Stream stream(params_.seed, static_cast<std::uint64_t>(id_), static_cast<std::uint64_t>(round),
                  Purpose::kNoise);
    DrawGaussian(stream, noise_std_, theta_);
    released_ += theta_;
  }
}

void PdmlNode::Report(std::int64_t /*round*/, std::span<double> out) const {
  Eigen::Map<Eigen::VectorXd>(out.data(), dim_) = w_;
  out[dim_] = kNaN;  // empirical risk on the true labels is evaluated outside the node
  out[dim_ + 1] = max_label_eps_;
  out[dim_ + 2] = 0.0;
  out[dim_ + 3] = noise_std_;
}

std::string PdmlPrivacyGuarantee(const std::vector<ReportedLabels>& reported, double R, double V,
                                 double decay) {
  std::vector<double> all;
  for (const auto& r : reported) all.insert(all.end(), r.eps.data(), r.eps.data() + r.eps.size());
  std::vector<double> randomized;
  for (double e : all)
    if (e > 0.0) randomized.push_back(e);
  std::ostringstream os;
  os.precision(6);
  os << "labels (Phase 1): ";
  if (randomized.empty()) {
    os << "not randomized (label_eps = 0): no label privacy";
  } else {
    std::sort(randomized.begin(), randomized.end());
    const std::size_t n = randomized.size();
    const double median = n % 2 == 1 ? randomized[n / 2]
                                     : 0.5 * (randomized[n / 2 - 1] + randomized[n / 2]);
    os << "eps-LDP per user by randomized response (000 Proposition 1), eps over the "
       << n << " randomized users: min " << randomized.front() << ", median " << median
       << ", max " << randomized.back();
    if (n < all.size()) {
      os << "; " << (all.size() - n) << " of " << all.size()
         << " users report truthfully (eps = 0 encoding): no label privacy for them";
    }
  }
  os << ". Phase 2: objective perturbation ||eta_i||_2 <= R = " << R
     << " (uniform in the ball, drawn once per server), primal perturbation theta_i(t) ~ N(0, "
     << decay << "^(t-1) * " << V << "^2 I); 000 states no formal composed guarantee for Phase 2 "
     << "(Remark 1 asserts an unquantified (eps_p, delta_p)-DP for the bounded objective noise), "
     << "so none is reported";
  return os.str();
}

}  // namespace dpadmm
