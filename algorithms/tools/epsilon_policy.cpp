// SPDX-License-Identifier: Apache-2.0
#include "dpadmm/tools/epsilon_policy.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/field_error.h"
#include "dpadmm/consensus/pdml.h"
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
  if (!(q.gradient_bound >= 1.0) || !std::isfinite(q.gradient_bound)) {
    Bad("epsilon policy: gradient_bound", ">= 1 and finite", q.gradient_bound);
  }
}

// The gossip rounds after a one-round policy (average's 49 after its release).
constexpr int kPolicyGossipRounds = 49;

int RoundedClamp(double v, int lo, int hi) {
  return std::clamp(static_cast<int>(std::lround(v)), lo, hi);
}

// The regulariser of one perturbed minimiser per node (local, average, central, and the first
// round of dvp, madmm and private_mradmm): 3 / kappa, up to 1 (algorithms/privacy/README.md,
// "The epsilon policy").
double OneReleaseRho(double kappa) { return std::clamp(3.0 / kappa, 1e-4, 1.0); }

}  // namespace

bool HasEpsilonPolicy(Algorithm algorithm) {
  switch (algorithm) {
    case Algorithm::kDvp:
    case Algorithm::kPvp:
    case Algorithm::kMadmm:
    case Algorithm::kPrivateMradmm:
    case Algorithm::kPdml:
    case Algorithm::kLocal:
    case Algorithm::kAverage:
    case Algorithm::kCentral: return true;
    default: return false;
  }
}

EpsilonSettings ChooseEpsilonSettings(Algorithm algorithm, const PublicQuantities& q) {
  if (!HasEpsilonPolicy(algorithm)) {
    throw InputError(std::string("epsilon policy: algorithm '") + ChoiceName(algorithm) +
                     "' has none (dvp, pvp, madmm, private_mradmm, pdml, local, average, central)");
  }
  Check(q);
  EpsilonSettings s;
  // The consensus algorithms and average weigh every row alike (row weighting: C_i / B_i =
  // C / B_bar, the same sensitivity at every node): the settings are chosen for the mean node.
  // local and central keep node weighting and the smallest node (central: its one node).
  s.weighting = algorithm == Algorithm::kLocal || algorithm == Algorithm::kCentral
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
  // A record moves a release by 2 gradient_bound C_i / (B_i a_i): the effective rows shrink by
  // that bound (PDML's debiased loss).
  s.privacy_rows = GaussianMu(q.epsilon, q.delta) * rows / q.gradient_bound;
  s.nodes = static_cast<int>(q.degrees.size());
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
      s.rho = OneReleaseRho(k);
      s.eta = 0.5;  // not used
      return s;
    case Algorithm::kPvp:
      s.pvp_mechanism = "gaussian";
      s.iterations = RoundedClamp(3.0 * std::sqrt(k), 10, 40);
      break;
    case Algorithm::kPdml:
      // Phase 2 is a Gaussian release of each round's exact minimiser, as pvp's: pvp's rule on
      // the effective rows (gradient_bound above). ApplyEpsilonSettings also sets decay 1 (mu^2
      // linear in the rounds) and no objective noise (R 0: 000's eq. (14) noise is not counted
      // by the figure, so under a target it would only cost accuracy).
      s.iterations = RoundedClamp(3.0 * std::sqrt(k), 10, 40);
      break;
    default: {
      // dvp, madmm, private_mradmm: pure-epsilon releases, whose T-fold composition costs about
      // T times one release's epsilon at the rounds ADMM needs (the sqrt(T) regime of the tight
      // accountant starts near T = 2 log(1/delta)), so the noise of each round grows like T
      // while averaging rounds removes at most sqrt(T): one private round, the exact minimiser
      // of the node's objective with the mechanism's noise, then gossip rounds that bring every
      // node to the mean of those releases (post-processing, no cost). Its regulariser is
      // local's; the penalty only adds 2 eta V_i to it (the duals and f(0) are 0), so it is
      // kept at a quarter of rho at the largest degree.
      s.iterations = 1 + kPolicyGossipRounds;
      s.gossip_rounds = kPolicyGossipRounds;
      s.rho = OneReleaseRho(k);
      const int v_max = *std::max_element(q.degrees.begin(), q.degrees.end());
      s.eta = std::clamp(s.rho / (4.0 * v_max), 1e-6, 1.0);
      if (algorithm == Algorithm::kMadmm) {
        // M-ADMM's per-round term C_i (1.4 c + alpha) / (eta_i V_i B_i) has a part that no
        // noise buys; eta_i = 28 c / (epsilon V_i B_bar) holds it to 5% of the target at
        // every node (C_i / B_i = 1 / B_bar), and adds the same 2 eta_i V_i to every node's
        // curvature, which then replaces that much of the regulariser (down to a tenth).
        const double curvature = 2.0 * 1.4 / 0.05 * q.curvature / (q.epsilon * rows);
        const double regulariser = s.rho;
        s.rho = std::max(regulariser - curvature, 0.1 * regulariser);
        for (int v : q.degrees) {
          s.node_eta.push_back(std::max(s.eta, curvature / (2.0 * static_cast<double>(v))));
        }
        s.eta = *std::max_element(s.node_eta.begin(), s.node_eta.end());
      }
      return s;
    }
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
  spec.algorithm.gossip_rounds = s.gossip_rounds;
  spec.algorithm.rho = s.rho;
  spec.algorithm.rho_per_node = true;
  if (spec.algorithm.name() == Algorithm::kPdml) {
    // 000's servers carry a / N: the same rho_i.
    spec.algorithm.rho = s.rho * s.nodes;
    spec.algorithm.rho_per_node = false;
    PdmlParams& p = spec.algorithm.As<PdmlParams>();
    p.R = 0.0;
    p.decay = 1.0;
    if (!(p.V > 0.0)) p.V = 1.0;  // the calibration's start
  }
  spec.algorithm.eta = s.eta;
  spec.algorithm.node_eta = s.node_eta;
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
  PublicQuantities with = q;
  if (spec.algorithm.name() == Algorithm::kPdml) {
    const PdmlParams& p = spec.algorithm.As<PdmlParams>();
    with.gradient_bound = 1.0 + PdmlMaxDebiasWeight(p.label_eps, p.label_eps_groups);
  }
  const EpsilonSettings s = ChooseEpsilonSettings(spec.algorithm.name(), with);
  ApplyEpsilonSettings(spec, s);
  return DescribeEpsilonSettings(spec, s);
}

std::string DescribeEpsilonSettings(const RunSpec& spec, const EpsilonSettings& s) {
  const bool row = s.weighting == Weighting::kRow;
  char buf[360];
  std::snprintf(
      buf, sizeof buf,
      "rounds %d%s, C %.6g, %s weighting, rho %.6g per node, eta %s%.6g%s; from mu %s "
      "= %.6g",
      s.iterations,
      s.gossip_rounds > 0 ? (" (" + std::to_string(s.gossip_rounds) + " of them gossip)").c_str()
                          : "",
      s.C, ChoiceName(s.weighting), s.rho, s.node_eta.empty() ? "" : "per node up to ", s.eta,
      spec.algorithm.name() == Algorithm::kPvp && !s.pvp_mechanism.empty()
          ? (", " + s.pvp_mechanism + " mechanism").c_str()
      : spec.algorithm.name() == Algorithm::kPdml ? ", decay 1, no objective noise (R 0)"
                                                  : "",
      row ? "B_bar" : "B_min", s.privacy_rows);
  return buf;
}

}  // namespace dpadmm
