// SPDX-License-Identifier: Apache-2.0
#include "dpadmm/consensus/pdml.h"

#include "consensus/pdml_node.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <string>

#include "core/field_error.h"
#include "dpadmm/consensus/pdml.h"
#include "dpadmm/core/error.h"
#include "dpadmm/core/portable_math.h"
#include "dpadmm/core/random.h"
#include "dpadmm/privacy/noise.h"
#include "dpadmm/privacy/samplers.h"

namespace dpadmm {
namespace {

using detail::Bad;

void CheckEps(const std::string& field, double eps) {
  if (!(eps >= 0.0) || !std::isfinite(eps))
    Bad(field, ">= 0 and finite (0 = no randomization)", eps);
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Phase 1 and the debiased loss (public, pdml.h)

void LabelPrivacySpec::Validate(const std::string& prefix) const {
  CheckEps(prefix + "label_eps", eps);
  if (group_eps.size() != group_shares.size()) {
    Bad(prefix + "label_eps_shares",
        "one share per group (" + std::to_string(group_eps.size()) + " groups in " + prefix +
            "label_eps_groups)",
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

double RandomizedResponse(double y, double eps, KeyedStream& stream) {
  // eq. (12): +1 and -1 with probability p each, y with 1 - 2p: y is flipped with probability p.
  return SampleRandomizedResponseFlip(stream, eps) ? -y : y;
}

ReportedLabels RandomizeLabels(const Eigen::VectorXd& y, const LabelPrivacySpec& privacy,
                               const std::optional<std::uint64_t>& noise_seed, std::uint64_t node) {
  privacy.Validate("algorithm.");
  // The users' randomization key: from the operating system (private mode) or derived from the
  // noise seed (simulation mode); destroyed (wiped) when the labels are drawn.
  const NoiseKey key = NoiseKey::Make(noise_seed, node);
  const Eigen::Index m = y.size();
  ReportedLabels out;
  out.y.resize(m);
  out.eps.resize(m);
  if (privacy.group_eps.empty()) {
    out.eps.setConstant(privacy.eps);
  } else {
    // Each user joins group k with probability share_k: one uniform per user, compared with
    // the cumulative shares (the last group takes any rounding remainder).
    KeyedStream assign(key, 0, Purpose::kLabelNoise);
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
  KeyedStream respond(key, 1, Purpose::kLabelNoise);
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

double PrimalNoiseStd(double V, double decay, std::int64_t t) {
  if (t < 1 || V == 0.0) return 0.0;
  return V * math::Pow(decay, 0.5 * static_cast<double>(t - 1));
}

double PdmlMaxDebiasWeight(double label_eps, const std::vector<double>& label_eps_groups) {
  double w = DebiasWeight(label_eps);
  for (double e : label_eps_groups) w = std::max(w, DebiasWeight(e));
  return w;
}

double PdmlPhase2Sensitivity(double C, std::int64_t rows, double max_debias_weight, double rho_node,
                             double beta, int degree) {
  const double a = rho_node + 2.0 * beta * static_cast<double>(degree);
  if (!(a > 0.0)) return std::numeric_limits<double>::quiet_NaN();
  const double weight = C / static_cast<double>(rows);
  return 2.0 * weight * (1.0 + max_debias_weight) / a;
}

double PdmlRoundMu(double sensitivity, double V, double decay, std::int64_t round,
                   std::int64_t dim) {
  const double sigma = PrimalNoiseStd(V, decay, round);
  if (!(sigma > 0.0)) return 0.0;
  return (sensitivity + GridSensitivityL2(dim, GaussianGridStep(sigma))) / sigma;
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
    const double median =
        n % 2 == 1 ? randomized[n / 2] : 0.5 * (randomized[n / 2 - 1] + randomized[n / 2]);
    os << "eps-LDP per user by randomized response (000 Proposition 1), eps over the " << n
       << " randomized users: min " << randomized.front() << ", median " << median << ", max "
       << randomized.back();
    if (n < all.size()) {
      os << "; " << (all.size() - n) << " of " << all.size()
         << " users report truthfully (eps = 0 encoding): no label privacy for them";
    }
  }
  os << ". Phase 2: objective perturbation ||eta_i||_2 <= R = " << R
     << " (uniform in the ball, drawn once per server), primal perturbation theta_i(t) ~ N(0, "
     << decay << "^(t-1) * " << V << "^2 I); "
     << (V > 0.0
             ? "Phase 2's (eps, delta) per node is the Gaussian composition of the primal noise "
               "(tight_privacy; sensitivity in algorithms/privacy/README.md), the bounded "
               "objective noise not counted (000 Remark 1 quantifies none)"
             : "no primal noise, so no epsilon for Phase 2 (000 Remark 1 quantifies none for "
               "the bounded objective noise)");
  return os.str();
}

}  // namespace dpadmm
