// SPDX-License-Identifier: Apache-2.0
#include "dpadmm/tools/epsilon_policy.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/field_error.h"
#include "dpadmm/core/error.h"
#include "dpadmm/privacy/accountant.h"

namespace dpadmm {
namespace {

using detail::Bad;

// mu of the Gaussian mechanism that is exactly (epsilon, delta)-DP (Balle and Wang 2018): the
// epsilon of N(0, 1) at sensitivity mu increases with mu; bisection on log mu.
double GaussianMu(double epsilon, double delta) {
  double lo = std::log(1e-6), hi = std::log(1e3);
  for (int it = 0; it < 200 && hi - lo > 1e-12; ++it) {
    const double x = 0.5 * (lo + hi);
    if (AnalyticGaussianEpsilon(std::exp(x), 1.0, delta) > epsilon) {
      hi = x;
    } else {
      lo = x;
    }
  }
  return std::exp(lo);
}

void Check(const PublicQuantities& q) {
  if (!(q.epsilon > 0.0) || !std::isfinite(q.epsilon)) Bad("target_epsilon", "> 0", q.epsilon);
  if (!(q.delta > 0.0 && q.delta < 1.0)) Bad("epsilon policy: delta", "in (0, 1)", q.delta);
  if (q.degrees.empty() || q.degrees.size() != q.rows_per_node.size()) {
    Bad("epsilon policy: rows_per_node",
        "one count per node (" + std::to_string(q.degrees.size()) + ")", q.rows_per_node.size());
  }
  for (std::size_t i = 0; i < q.rows_per_node.size(); ++i) {
    if (q.rows_per_node[i] < 1) {
      Bad("epsilon policy: rows_per_node[" + std::to_string(i) + "]", ">= 1 (known to this party)",
          q.rows_per_node[i]);
    }
  }
  if (q.features < 1) Bad("epsilon policy: features", ">= 1", q.features);
  if (!(q.curvature > 0.0)) Bad("epsilon policy: curvature", "> 0", q.curvature);
}

int RoundedClamp(double v, int lo, int hi) {
  return std::clamp(static_cast<int>(std::lround(v)), lo, hi);
}

}  // namespace

bool HasEpsilonPolicy(Algorithm algorithm) {
  switch (algorithm) {
    case Algorithm::kDvp:
    case Algorithm::kPvp:
    case Algorithm::kMadmm:
    case Algorithm::kPrivateMradmm:
    case Algorithm::kLocal:
    case Algorithm::kAverage:
    case Algorithm::kCentral: return true;
    default: return false;
  }
}

EpsilonSettings ChooseEpsilonSettings(Algorithm algorithm, const PublicQuantities& q) {
  if (!HasEpsilonPolicy(algorithm)) {
    throw InputError(std::string("epsilon policy: algorithm '") + ChoiceName(algorithm) +
                     "' has none (dvp, pvp, madmm, private_mradmm, local, average, central)");
  }
  Check(q);
  EpsilonSettings s;
  // dvp, pvp, private_mradmm and average weigh every row alike (row weighting: C_i / B_i =
  // C / B_bar, the same sensitivity at every node): the settings are chosen for the mean node.
  // local and central keep node weighting and the smallest node (central: its one node), and
  // so does madmm, which row weighting made less accurate on uneven splits (the privacy README).
  s.weighting = algorithm == Algorithm::kLocal || algorithm == Algorithm::kCentral ||
                        algorithm == Algorithm::kMadmm
                    ? Weighting::kNode
                    : Weighting::kRow;
  double rows = 0.0;
  if (s.weighting == Weighting::kRow) {
    std::int64_t total = 0;
    for (std::int64_t b : q.rows_per_node) total += b;
    rows = static_cast<double>(total) / static_cast<double>(q.rows_per_node.size());
  } else {
    rows = static_cast<double>(*std::min_element(q.rows_per_node.begin(), q.rows_per_node.end()));
  }
  s.privacy_rows = GaussianMu(q.epsilon, q.delta) * rows;
  const double k = s.privacy_rows;
  // The average loss per node (C = 1: weights 1/B_i, or 1/B_bar for every row), so that the
  // regulariser and the penalty are on the scale of one record's gradient (|L'| <= 1,
  // ||x|| <= 1).
  s.C = 1.0;
  switch (algorithm) {
    case Algorithm::kLocal:
    case Algorithm::kCentral:
    case Algorithm::kAverage:
      // One perturbed minimiser per node: its noise-to-signal ratio does not depend on the
      // regulariser once that dominates the loss's curvature, so a larger one costs little
      // and keeps objective perturbation's Jacobian term small; it shrinks as kappa grows.
      // local and central release in round 1 (later rounds only resend); average's gossip
      // rounds cost nothing and 50 bring the nodes to their mean on the graphs used here.
      s.iterations = algorithm == Algorithm::kAverage ? 50 : 1;
      s.rho = std::clamp(3.0 / k, 1e-4, 0.1);
      s.eta = 0.5;  // not used
      return s;
    case Algorithm::kPvp:
      s.pvp_mechanism = "gaussian";
      s.iterations = RoundedClamp(3.0 * std::sqrt(k), 10, 40);
      break;
    default: s.iterations = RoundedClamp(std::sqrt(k) / 2.0, 1, 20); break;
  }
  // The regulariser shrinks as the noise does; the penalty sets the step 1 / (2 eta V) of the
  // rounds, which must travel further when there are more effective rows (a smaller
  // regularised curvature to cross): eta ~ 1 / kappa.
  s.rho = std::clamp(0.3 / k, 1e-5, 0.1);
  s.eta = std::clamp(8.0 / k, 1e-4, 1.0);
  return s;
}

void ApplyEpsilonSettings(RunSpec& spec, const EpsilonSettings& s) {
  spec.iterations = s.iterations;
  spec.algorithm.C = s.C;
  spec.algorithm.weighting = s.weighting;
  spec.algorithm.rho = s.rho;
  spec.algorithm.rho_per_node = true;
  spec.algorithm.eta = s.eta;
  spec.algorithm.node_eta.clear();
  if (spec.algorithm.name() == Algorithm::kPvp && !s.pvp_mechanism.empty()) {
    PvpParams& p = spec.algorithm.As<PvpParams>();
    p.mechanism = s.pvp_mechanism;
    if (p.gaussian()) {
      p.noise_multiplier = 1.0;  // the calibration's start
      p.alpha = 0.0;
      p.node_alpha.clear();
      p.node_q2.clear();
    }
  }
}

std::string ApplyEpsilonPolicy(RunSpec& spec, const PublicQuantities& q) {
  if (!spec.epsilon_policy || !HasEpsilonPolicy(spec.algorithm.name())) return "";
  const EpsilonSettings s = ChooseEpsilonSettings(spec.algorithm.name(), q);
  ApplyEpsilonSettings(spec, s);
  return DescribeEpsilonSettings(spec, s);
}

std::string DescribeEpsilonSettings(const RunSpec& spec, const EpsilonSettings& s) {
  const bool row = s.weighting == Weighting::kRow;
  char buf[320];
  std::snprintf(buf, sizeof buf,
                "rounds %d, C %.6g, %s weighting, rho %.6g per node, eta %.6g%s; from mu %s = %.6g",
                s.iterations, s.C, ChoiceName(s.weighting), s.rho, s.eta,
                spec.algorithm.name() == Algorithm::kPvp && !s.pvp_mechanism.empty()
                    ? (", " + s.pvp_mechanism + " mechanism").c_str()
                    : "",
                row ? "B_bar" : "B_min", s.privacy_rows);
  return buf;
}

}  // namespace dpadmm
