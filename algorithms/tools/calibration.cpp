// SPDX-License-Identifier: Apache-2.0
#include "dpadmm/tools/calibration.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <stdexcept>
#include <utility>

#include "dpadmm/consensus/pdml.h"
#include "dpadmm/core/error.h"
#include "dpadmm/privacy/accounting.h"

namespace dpadmm {
namespace {

double PerNode(const std::vector<double>& values, double scalar, std::size_t node) {
  return values.empty() ? scalar : values[node];
}

std::string Short(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

// The schedule fields of the four private consensus variants.
struct Schedule {
  const NoiseSchedule* noise = nullptr;
  double q1 = 1.0;
  const std::vector<double>* node_q1 = nullptr;
};

Schedule ScheduleOf(const RunSpec& spec) {
  static const std::vector<double> kNone;
  Schedule s;
  switch (spec.algorithm.name()) {
    case Algorithm::kDvp: s.noise = &spec.algorithm.As<DvpParams>(); break;
    case Algorithm::kPvp: s.noise = &spec.algorithm.As<PvpParams>(); break;
    case Algorithm::kMadmm: {
      const MadmmParams& p = spec.algorithm.As<MadmmParams>();
      s.noise = &p;
      s.q1 = p.q1;
      s.node_q1 = &p.node_q1;
      break;
    }
    case Algorithm::kPrivateMradmm: {
      const PrivateMradmmParams& p = spec.algorithm.As<PrivateMradmmParams>();
      s.noise = &p;
      s.q1 = p.q1;
      s.node_q1 = &p.node_q1;
      break;
    }
    default:
      throw InputError(std::string("algorithm '") + ChoiceName(spec.algorithm.name()) +
                       "' has no per-round privacy terms to plan (private consensus variants: "
                       "dvp, pvp, madmm, private_mradmm)");
  }
  if (s.node_q1 == nullptr) s.node_q1 = &kNone;
  return s;
}

NoiseSchedule& MutableNoise(RunSpec& spec) {
  switch (spec.algorithm.name()) {
    case Algorithm::kDvp: return spec.algorithm.As<DvpParams>();
    case Algorithm::kPvp: return spec.algorithm.As<PvpParams>();
    case Algorithm::kMadmm: return spec.algorithm.As<MadmmParams>();
    default: return spec.algorithm.As<PrivateMradmmParams>();
  }
}

// a dominated by b: a_t <= b_t in every round (so a's tight composition is at most b's: each
// pure-epsilon term is a post-processing of the larger one's randomized response).
bool Dominated(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t t = 0; t < a.size(); ++t) {
    if (a[t] > b[t]) return false;
  }
  return true;
}

}  // namespace

bool CanCalibrate(Algorithm algorithm) {
  switch (algorithm) {
    case Algorithm::kPdml:
    case Algorithm::kDvp:
    case Algorithm::kPvp:
    case Algorithm::kMadmm:
    case Algorithm::kPrivateMradmm:
    case Algorithm::kSharing:
    case Algorithm::kLocal:
    case Algorithm::kAverage:
    case Algorithm::kCentral: return true;
    default: return false;
  }
}

std::vector<std::vector<double>> PlannedReleaseCosts(
    const RunSpec& spec, const std::vector<int>& degrees,
    const std::vector<std::int64_t>& rows_per_node) {
  const Schedule s = ScheduleOf(spec);
  const AlgorithmSpec& a = spec.algorithm;
  const std::size_t n = degrees.size();
  if (rows_per_node.size() != n) {
    throw InputError("PlannedReleaseCosts: " + std::to_string(n) + " degrees but " +
                     std::to_string(rows_per_node.size()) + " row counts");
  }
  const double c1 = spec.loss.CurvatureBound();
  const int N = static_cast<int>(n);
  // The node's regulariser weight rho_i (consensus_driver.cpp), and 003's rho = rho_i N.
  const double rho_node = a.rho_per_node ? a.rho : a.rho / N;
  std::vector<std::vector<double>> costs(n);
  for (std::size_t i = 0; i < n; ++i) {
    const double alpha = PerNode(s.noise->node_alpha, s.noise->alpha, i);
    const double q2 = PerNode(s.noise->node_q2, s.noise->q2, i);
    const double eta = PerNode(a.node_eta, a.eta, i);
    const double q1 = PerNode(*s.node_q1, s.q1, i);
    const double B = static_cast<double>(rows_per_node[i]);
    const double C = NodeLossWeight(a, rows_per_node, i);  // C_i (algorithm.weighting)
    const int V = degrees[i];
    std::vector<double>& c = costs[i];
    // The rounds of the algorithm; the gossip rounds that end the run (algorithm.gossip_rounds)
    // release nothing new.
    c.assign(static_cast<std::size_t>(std::max<std::int64_t>(AlgorithmRounds(spec), 0)), 0.0);
    if (alpha <= 0.0) continue;
    for (std::int64_t t = 1; t <= AlgorithmRounds(spec); ++t) {
      double cost = 0.0;
      switch (a.name()) {
        case Algorithm::kDvp:
        case Algorithm::kPvp:  // DvpNode / PvpNode::PrivacyLoss: alpha_i(t)
          cost = GeometricSchedule(alpha, q2, t);
          break;
        case Algorithm::kMadmm:  // MadmmNode::PrivacyLoss, eta_i(t) = eta q1^(t-1)
          cost = MadmmIterationLoss(C, c1, GeometricSchedule(alpha, q2, t),
                                    GeometricSchedule(eta, q1, t), V, B);
          break;
        default: {  // PrivateMradmmNode: odd rounds only, k = (t + 1) / 2
          if (t % 2 == 0) break;
          const std::int64_t k = (t + 1) / 2;
          cost = MrAdmmIterationLoss(C, B, c1, rho_node * N, N, GeometricSchedule(eta * q1, q1, k),
                                     V, GeometricSchedule(alpha, q2, k));
          break;
        }
      }
      c[static_cast<std::size_t>(t - 1)] = cost;
    }
  }
  return costs;
}

double MaxTightEpsilon(const std::vector<std::vector<double>>& per_node_costs, double delta) {
  // Distinct sequences, then the ones no other sequence dominates.
  std::vector<const std::vector<double>*> distinct;
  for (const auto& c : per_node_costs) {
    bool seen = false;
    for (const auto* d : distinct) seen = seen || *d == c;
    if (!seen) distinct.push_back(&c);
  }
  double best = 0.0;
  for (std::size_t k = 0; k < distinct.size(); ++k) {
    bool dominated = false;
    for (std::size_t j = 0; j < distinct.size() && !dominated; ++j) {
      dominated = j != k && Dominated(*distinct[k], *distinct[j]);
    }
    if (!dominated) best = std::max(best, ComposeTight(*distinct[k], delta));
  }
  return best;
}

// PDML Phase 2's tight figure as the run's summary computes it (PdmlNode::Mechanism composed by
// the Accountant: mu^2 summed in round order, the analytic Gaussian of the largest sum).
double PdmlPlannedEpsilon(const RunSpec& spec, const std::vector<int>& degrees,
                          const std::vector<std::int64_t>& rows_per_node, std::int64_t features,
                          double delta) {
  const PdmlParams& p = spec.algorithm.As<PdmlParams>();
  const double weight = PdmlMaxDebiasWeight(p.label_eps, p.label_eps_groups);
  const double n = static_cast<double>(degrees.size());
  double max_mu2 = 0.0;
  for (std::size_t i = 0; i < degrees.size(); ++i) {
    const double sens =
        PdmlPhase2Sensitivity(NodeLossWeight(spec.algorithm, rows_per_node, i), rows_per_node[i],
                              weight, spec.algorithm.rho / n, spec.algorithm.eta, degrees[i]);
    if (!std::isfinite(sens)) {
      throw InputError("target_epsilon: pdml node " + std::to_string(i) +
                       " has no neighbours and rho = 0: Phase 2 has no sensitivity bound");
    }
    double mu2 = 0.0;
    for (std::int64_t t = 1; t <= spec.iterations; ++t) {
      if (!(PrimalNoiseStd(p.V, p.decay, t) > 0.0)) continue;
      const double mu = PdmlRoundMu(sens, p.V, p.decay, t, features);
      mu2 += mu * mu;
    }
    max_mu2 = std::max(max_mu2, mu2);
  }
  return max_mu2 > 0.0 ? AnalyticGaussianEpsilon(std::sqrt(max_mu2), 1.0, delta) : 0.0;
}

// Bisection on log(knob) for a knob whose tight epsilon decreases as it grows (a noise scale),
// keeping the smallest value whose epsilon is within kCalibrationTolerance below the target.
CalibrationResult CalibrateNoiseScale(double& knob, const std::function<double()>& planned,
                                      const std::string& what, double target,
                                      CalibrationResult result) {
  const auto eps_at = [&](double x) {
    knob = std::exp(x);
    ++result.evaluations;
    return planned();
  };
  // Bracket [lo, hi] in x = log knob with f(lo) > target >= f(hi).
  constexpr double kStep = 1.3862943611198906;  // log 4
  constexpr double kMinLog = -46.0, kMaxLog = 46.0;
  double hi = std::log(knob > 0.0 ? knob : 1.0), f_hi = eps_at(hi);
  double lo = hi, f_lo = f_hi;
  while (f_hi > target) {
    if (hi >= kMaxLog) {
      throw UnreachablePrivacyTarget("target_epsilon " + Short(target) + " is out of reach for " +
                                     what + ": a noise scale of 1e20 still spends " + Short(f_hi));
    }
    lo = hi;
    f_lo = f_hi;
    hi = std::min(kMaxLog, hi + kStep);
    f_hi = eps_at(hi);
  }
  while (f_lo <= target && lo > kMinLog) {
    hi = lo;
    f_hi = f_lo;
    lo = std::max(kMinLog, lo - kStep);
    f_lo = eps_at(lo);
  }
  for (int it = 0; it < 200 && f_hi < target * (1.0 - kCalibrationTolerance) && hi - lo > 1e-13;
       ++it) {
    const double x = 0.5 * (lo + hi);
    const double f = eps_at(x);
    if (f <= target) {
      hi = x;
      f_hi = f;
    } else {
      lo = x;
      f_lo = f;
    }
  }
  knob = std::exp(hi);
  result.value = knob;
  result.epsilon = planned();
  return result;
}

// PVP with Gaussian noise: each node's releases are all Gaussian with the same mu
// (PvpGaussianMu), composed exactly as the run's Accountant does (mu^2 summed over rounds; the
// analytic Gaussian of the largest sum).
double PvpGaussianPlannedEpsilon(const RunSpec& spec, const std::vector<int>& degrees,
                                 const std::vector<std::int64_t>& rows_per_node,
                                 std::int64_t features, double delta) {
  const AlgorithmSpec& a = spec.algorithm;
  const int n = static_cast<int>(degrees.size());
  const double rho_node = a.rho_per_node ? a.rho : a.rho / n;
  double max_mu2 = 0.0;
  for (std::size_t i = 0; i < degrees.size(); ++i) {
    const double mu = PvpGaussianMu(
        NodeLossWeight(a, rows_per_node, i), static_cast<double>(rows_per_node[i]), rho_node,
        PerNode(a.node_eta, a.eta, i), degrees[i], a.As<PvpParams>().noise_multiplier, features);
    max_mu2 = std::max(max_mu2, static_cast<double>(AlgorithmRounds(spec)) * mu * mu);
  }
  return max_mu2 > 0.0 ? AnalyticGaussianEpsilon(std::sqrt(max_mu2), 1.0, delta) : 0.0;
}

namespace {

CalibrationResult CalibrateRounds(RunSpec& spec, const std::vector<int>& degrees,
                                  const std::vector<std::int64_t>& rows_per_node, double target,
                                  double delta, std::int64_t features) {
  const Algorithm algorithm = spec.algorithm.name();
  const std::string prefix = std::string("algorithm.") + ChoiceName(algorithm) + ".";
  if (!(target > 0.0) || !std::isfinite(target)) {
    throw InputError("target_epsilon must be finite and > 0, got " + Short(target));
  }
  if (!(delta > 0.0 && delta < 1.0)) {
    throw InputError("the delta of the target epsilon must be in (0, 1), got " + Short(delta));
  }
  if (!CanCalibrate(algorithm)) {
    throw InputError("target_epsilon: algorithm '" + std::string(ChoiceName(algorithm)) + "' " +
                     "is not private" +
                     "; calibrated algorithms: dvp, pvp, madmm, private_mradmm, pdml, sharing, "
                     "local, average, central");
  }
  CalibrationResult result;
  result.target = target;
  result.delta = delta;
  const bool planned_gaussian =
      algorithm == Algorithm::kPdml ||
      (algorithm == Algorithm::kPvp && spec.algorithm.As<PvpParams>().gaussian());
  if (planned_gaussian) {
    if (features < 1 || degrees.empty() || rows_per_node.size() != degrees.size()) {
      throw std::logic_error(
          "CalibrateToEpsilon: Gaussian releases need the degrees, rows and "
          "features");
    }
    if (spec.iterations < 1) {
      throw InputError(
          "target_epsilon: iterations must be >= 1 (a run of 0 rounds releases "
          "nothing that costs privacy)");
    }
  }
  if (algorithm == Algorithm::kPdml) {
    // Phase 2's Gaussian primal noise: a larger V = less epsilon (decay fixed).
    result.knob = "algorithm.pdml.V";
    return CalibrateNoiseScale(
        spec.algorithm.As<PdmlParams>().V,
        [&] { return PdmlPlannedEpsilon(spec, degrees, rows_per_node, features, delta); }, "pdml",
        target, result);
  }
  if (planned_gaussian) {
    if (spec.algorithm.privacy_budget > 0.0 || !spec.algorithm.node_privacy_budget.empty()) {
      throw InputError("algorithm.privacy_budget must be 0 with target_epsilon");
    }
    result.knob = "algorithm.pvp.noise_multiplier";
    return CalibrateNoiseScale(
        spec.algorithm.As<PvpParams>().noise_multiplier,
        [&] { return PvpGaussianPlannedEpsilon(spec, degrees, rows_per_node, features, delta); },
        "pvp", target, result);
  }
  if (IsBaseline(algorithm)) {
    // One release per node whose mechanism is calibrated by its own epsilon: the knob is the
    // target itself. The run's figure is that release's at `delta` (objective: the pure
    // epsilon's, a hair below it; gaussian: the analytic Gaussian's at its delta, which
    // ValidateSpec requires to be kTightDelta).
    double* epsilon = spec.algorithm.Field<double>("epsilon");
    const std::string& mechanism = *spec.algorithm.Field<std::string>("mechanism");
    const double* mechanism_delta = spec.algorithm.Field<double>("delta");
    if (mechanism == "gaussian" && *mechanism_delta != delta) {
      throw InputError(prefix + "delta must be " + Short(delta) +
                       " (the target's delta) with target_epsilon, got " + Short(*mechanism_delta));
    }
    *epsilon = target;
    result.knob = prefix + "epsilon";
    result.value = target;
    if (mechanism == "gaussian") {
      result.epsilon = target;
    } else {
      result.epsilon = ComposeTight({target}, delta);
      // The objective's noise is drawn in double precision: the release adds its
      // floating-point delta (SnappedReleaseDelta), as the run's figure composes it.
      if (features >= 1) result.delta = delta + SnappedReleaseDelta(target, features);
    }
    return result;
  }
  if (algorithm == Algorithm::kSharing) {
    SharingParams& p = spec.algorithm.As<SharingParams>();
    if (p.mechanism != "gaussian") {
      throw InputError(prefix + "mechanism must be \"gaussian\" for target_epsilon (\"" +
                       p.mechanism + "\" is 001's eq. (16), not DP as stated), got \"" +
                       p.mechanism + "\"");
    }
    if (p.noise_sigma > 0.0) {
      throw InputError(prefix + "noise_sigma must be 0 (calibrated) with target_epsilon, got " +
                       Short(p.noise_sigma));
    }
    // The sharing driver derives sigma from (total_epsilon, delta) per party, tight
    // (SharingSigmaForTotalEpsilon): the knob is the total itself.
    p.dp = true;
    p.total_epsilon = target;
    p.delta = delta;
    result.knob = prefix + "total_epsilon";
    result.value = target;
    result.epsilon = target;
    return result;
  }
  NoiseSchedule& noise = MutableNoise(spec);
  if (!noise.node_alpha.empty()) {
    throw InputError(prefix +
                     "node_alpha must be empty with target_epsilon (the calibration sets "
                     "one alpha for every node)");
  }
  if (spec.algorithm.privacy_budget > 0.0 || !spec.algorithm.node_privacy_budget.empty()) {
    throw InputError(
        "algorithm.privacy_budget must be 0 with target_epsilon (the calibrated run spends the "
        "target; a budget would freeze nodes earlier)");
  }
  result.knob = prefix + "alpha";
  std::vector<std::pair<double, double>> seen;  // (log alpha, epsilon), for the monotonicity check
  const auto eps_at = [&](double x) {
    noise.alpha = std::exp(x);
    const double e = MaxTightEpsilon(PlannedReleaseCosts(spec, degrees, rows_per_node), delta);
    ++result.evaluations;
    for (const auto& [x0, e0] : seen) {
      // The tight epsilon is increasing in alpha (every term is); the PLD's grid may add a
      // relative wobble far below this slack.
      constexpr double kSlack = 1e-6;
      if ((x0 < x && e0 > e * (1 + kSlack)) || (x0 > x && e0 * (1 + kSlack) < e)) {
        throw std::logic_error("calibration: the tight epsilon is not increasing in alpha (" +
                               Short(e0) + " at alpha " + Short(std::exp(x0)) + ", " + Short(e) +
                               " at alpha " + Short(std::exp(x)) + ")");
      }
    }
    seen.emplace_back(x, e);
    return e;
  };
  const bool has_noise_round = spec.iterations >= 1;
  if (!has_noise_round) {
    throw InputError(
        "target_epsilon: iterations must be >= 1 (a run of 0 rounds releases nothing "
        "that costs privacy)");
  }
  // Bracket [lo, hi] in x = log(alpha): f(lo) <= target < f(hi).
  constexpr double kMinLogAlpha = -46.0;  // alpha 1e-20
  constexpr double kMaxLogAlpha = 46.0;
  const double start = std::log(noise.alpha > 0.0 ? noise.alpha : 1.0);
  double lo = start, hi = start;
  double f_lo = eps_at(start), f_hi = f_lo;
  constexpr double kStep = 1.3862943611198906;  // log 4
  if (f_lo > target) {
    // Down: straight to the smallest alpha (the floor of M-ADMM and private MR-ADMM shows at
    // once), then the bisection works on [that, start].
    hi = lo;
    f_hi = f_lo;
    lo = kMinLogAlpha;
    f_lo = eps_at(lo);
    if (f_lo > target) {
      throw UnreachablePrivacyTarget(
          "target_epsilon " + Short(target) + " is out of reach for algorithm '" +
          ChoiceName(algorithm) + "': even alpha -> 0 spends a tight epsilon of " + Short(f_lo) +
          " at delta " + Short(delta) + " over " + std::to_string(AlgorithmRounds(spec)) +
          " rounds of the algorithm (the paper's per-round term has a part independent of alpha); "
          "raise the target or eta, or run fewer rounds");
    }
  }
  while (f_hi <= target) {
    lo = hi;
    f_lo = f_hi;
    if (hi >= kMaxLogAlpha) break;  // alpha 1e20 still below the target: take it
    hi = std::min(kMaxLogAlpha, hi + kStep);
    f_hi = eps_at(hi);
  }
  // Illinois false position on f(x) - target, falling back to bisection when it stalls.
  int side = 0;
  double g_lo = f_lo - target, g_hi = f_hi - target;
  for (int it = 0; it < 200 && f_lo < target * (1.0 - kCalibrationTolerance) && f_hi > target;
       ++it) {
    double x = (g_hi - g_lo) > 0.0 ? lo - g_lo * (hi - lo) / (g_hi - g_lo) : 0.5 * (lo + hi);
    if (!(x > lo && x < hi) || it % 4 == 3) x = 0.5 * (lo + hi);
    if (hi - lo < 1e-13) break;
    const double f = eps_at(x);
    if (f <= target) {
      lo = x;
      f_lo = f;
      g_lo = f - target;
      if (side == -1) g_hi *= 0.5;
      side = -1;
    } else {
      hi = x;
      f_hi = f;
      g_hi = f - target;
      if (side == 1) g_lo *= 0.5;
      side = 1;
    }
  }
  noise.alpha = std::exp(lo);
  result.value = noise.alpha;
  result.epsilon = f_lo;
  // The l2-Laplace noise is drawn in double precision: every release of the algorithm's rounds
  // adds its floating-point delta (SnappedReleaseDelta; private MR-ADMM's even rounds too: they
  // resend snapped values), which the run's figure composes in, so the calibrated figure is
  // (epsilon at `delta`, delta + that sum), max over nodes. The gossip rounds send
  // post-processed values: no term (PlannedReleaseCosts has none for them).
  if (features >= 1) {
    double sampler = 0.0;
    for (const std::vector<double>& costs : PlannedReleaseCosts(spec, degrees, rows_per_node)) {
      double sum = 0.0;
      for (double c : costs) sum += SnappedReleaseDelta(c, features);
      sampler = std::max(sampler, sum);
    }
    result.delta = delta + sampler;
  }
  return result;
}

}  // namespace

CalibrationResult CalibrateToEpsilon(RunSpec& spec, const std::vector<int>& degrees,
                                     const std::vector<std::int64_t>& rows_per_node, double target,
                                     double delta, std::int64_t features) {
  // dp-bounds, dp-standardize: each node's set-up releases (pure epsilon) come first. A pure
  // eps_s-DP release followed by an (eps_r, delta)-DP run is (eps_s + eps_r, delta)-DP (basic
  // composition), so the rounds are calibrated to what the set-up leaves of the target; the run's
  // tight figure, which composes both exactly, is at most the target.
  const double setup = SetupEpsilonSum(SetupReleaseEpsilons(spec));
  if (!(setup > 0.0) || !(target > 0.0) || !std::isfinite(target)) {
    return CalibrateRounds(spec, degrees, rows_per_node, target, delta, features);
  }
  if (!(target > setup)) {
    throw InputError("target_epsilon " + Short(target) + ": the set-up releases of data.scaling '" +
                     ChoiceName(EffectiveScaling(spec)) + "' spend " + Short(setup) +
                     " of it before round 1 (data.bounds_epsilon, data.standardize_epsilon); "
                     "lower them or raise the target");
  }
  CalibrationResult result =
      CalibrateRounds(spec, degrees, rows_per_node, target - setup, delta, features);
  result.target = target;
  result.epsilon += setup;  // an upper bound: the run's tight figure composes the two exactly
  return result;
}

CalibrationResult CalibrateToEpsilon(RunSpec& spec, const Experiment& prepared, double target,
                                     double delta) {
  std::vector<int> degrees;
  const RunInfo& info = prepared.info();
  if (spec.family() == Family::kConsensus) {
    for (int i = 0; i < prepared.graph().num_nodes(); ++i)
      degrees.push_back(prepared.graph().degree(i));
  }
  std::vector<std::int64_t> rows = info.rows_per_node;
  if (spec.family() != Family::kConsensus) rows.clear();
  return CalibrateToEpsilon(spec, degrees, rows, target, delta, info.features);
}

}  // namespace dpadmm
