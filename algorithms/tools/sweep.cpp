// SPDX-License-Identifier: Apache-2.0
#include "dpadmm/tools/sweep.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>
#include <utility>

#include "data/data_source.h"
#include "dpadmm/core/error.h"
#include "dpadmm/run/run.h"
#include "dpadmm/tools/calibration.h"
#include "dpadmm/tools/epsilon_policy.h"

#include "core/numbers.h"

namespace dpadmm {
namespace {

// t_{0.975, df}: Student's t quantile for a two-sided 95% interval (df 1..30 tabulated, beyond
// that the Cornish-Fisher expansion around z = 1.959964, error < 1e-4 for df > 30).
double TQuantile975(int df) {
  static constexpr double kTable[] = {
      12.7062, 4.3027, 3.1824, 2.7764, 2.5706, 2.4469, 2.3646, 2.3060, 2.2622, 2.2281,
      2.2010,  2.1788, 2.1604, 2.1448, 2.1314, 2.1199, 2.1098, 2.1009, 2.0930, 2.0860,
      2.0796,  2.0739, 2.0687, 2.0639, 2.0595, 2.0555, 2.0518, 2.0484, 2.0452, 2.0423};
  if (df >= 1 && df <= 30) return kTable[df - 1];
  const double z = 1.959964, n = df;
  return z + (z * z * z + z) / (4.0 * n) +
         (5.0 * std::pow(z, 5) + 16.0 * z * z * z + 3.0 * z) / (96.0 * n * n);
}

std::string Num(double v) {
  if (std::isnan(v)) return "";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

std::string Joined(const std::vector<double>& v, double scale = 1.0) {
  std::string out;
  for (std::size_t k = 0; k < v.size(); ++k) {
    if (k > 0) out += ';';
    out += Num(scale * v[k]);
  }
  return out;
}

// The scaling a private run of `spec` would use (EffectiveScaling in private mode), so that
// every run of the sweep, private or not, in simulation mode or not, prepares the same rows.
Scaling PrivateScaling(const RunSpec& spec) {
  if (!spec.data.normalize) return Scaling::kNone;
  if (spec.data.scaling != Scaling::kAuto) return spec.data.scaling;
  const bool bounds = !spec.data.feature_bounds_path.empty() || !spec.data.feature_range.empty();
  return bounds ? Scaling::kPublicBounds : Scaling::kClipOnly;
}

// base with `algorithm`'s default parameters, seeds of repetition r, and the sweep's settings.
RunSpec CellSpec(const SweepOptions& o, Algorithm algorithm, int r) {
  RunSpec spec = o.base;
  spec.algorithm = RunSpec::Defaults(algorithm).algorithm;
  spec.seed = o.base.seed + static_cast<std::uint64_t>(r);
  spec.noise_seed = o.base.noise_seed.value_or(o.base.seed) + static_cast<std::uint64_t>(r);
  spec.data.scaling = PrivateScaling(o.base);
  spec.target_epsilon = 0.0;
  spec.compute_optimum = false;
  spec.metrics = MetricsScope::kReleasedOnly;  // test accuracy only (public test data)
  spec.metrics_every = 0;                      // evaluate round 0 and the last round only
  spec.tolerance = 0.0;
  if (spec.family() == Family::kSharing) {
    // The sharing family has no per-round metric schedule and is logistic only.
    spec.metrics_every = 1;
    spec.loss = RunSpec{}.loss;
  }
  return spec;
}

double Accuracy(const RunSummary& s) {
  const double a = 1.0 - s.final.test_error;
  return std::isfinite(a) ? a : kNaN;
}

}  // namespace

void SweepOptions::Validate() const {
  if (algorithms.empty()) throw InputError("sweep: algorithms must not be empty");
  for (Algorithm a : algorithms) {
    if (!CanCalibrate(a)) {
      throw InputError(std::string("sweep: algorithm '") + ChoiceName(a) + "' " +
                       (a == Algorithm::kPdml
                            ? "has no total epsilon to calibrate (PDML's Phase 2 Gaussian is "
                              "not accounted)"
                            : "is not private") +
                       "; sweepable: dvp, pvp, madmm, private_mradmm, sharing, local, average, "
                       "central");
    }
  }
  if (epsilons.empty()) throw InputError("sweep: epsilons must not be empty");
  for (double e : epsilons) {
    if (!(e > 0.0) || !std::isfinite(e)) {
      throw InputError("sweep: every epsilon must be finite and > 0, got " + Num(e));
    }
  }
  if (!(delta > 0.0 && delta < 1.0))
    throw InputError("sweep: delta must be in (0, 1), got " + Num(delta));
  if (seeds < 1) throw InputError("sweep: seeds must be >= 1, got " + std::to_string(seeds));
  if (base.family() != Family::kConsensus) {
    throw InputError(
        "sweep: the base spec must be of the consensus family (its data, graph and "
        "partition); sharing is swept through `algorithms`");
  }
}

SweepStat Summarize(std::vector<double> values) {
  SweepStat s;
  s.values = values;
  std::vector<double> ok;
  for (double v : values) {
    if (std::isfinite(v)) ok.push_back(v);
  }
  const std::size_t n = ok.size();
  s.mean = s.low = s.high = kNaN;
  if (n == 0) return s;
  double sum = 0.0;
  for (double v : ok) sum += v;
  s.mean = sum / static_cast<double>(n);
  if (n < 2) return s;
  double ss = 0.0;
  for (double v : ok) ss += (v - s.mean) * (v - s.mean);
  const double sd = std::sqrt(ss / static_cast<double>(n - 1));
  const double half =
      TQuantile975(static_cast<int>(n - 1)) * sd / std::sqrt(static_cast<double>(n));
  // Accuracies live in [0, 1]: the interval is clipped to it (a t-interval of few seeds may
  // reach beyond).
  s.low = std::max(0.0, s.mean - half);
  s.high = std::min(1.0, s.mean + half);
  return s;
}

SweepResult RunSweep(const SweepOptions& o, const SweepProgress& progress,
                     const runtime::StopToken* stop) {
  o.Validate();
  SweepResult result;
  result.delta = o.delta;
  result.seeds = o.seeds;
  const int per_seed =
      static_cast<int>(o.algorithms.size() * o.epsilons.size()) + (o.reference_lines ? 1 : 0);
  const int total = per_seed * o.seeds;
  int done = 0;
  const auto step = [&](const std::string& what) {
    ++done;
    if (progress) progress(done, total, what);
  };
  for (Algorithm a : o.algorithms) {
    for (double e : o.epsilons) {
      SweepCell c;
      c.algorithm = a;
      c.epsilon = e;
      result.cells.push_back(std::move(c));
    }
  }
  std::vector<std::vector<double>> accuracy(result.cells.size());
  std::vector<double> admm, centralized, majority;
  const auto stopped = [&] { return stop != nullptr && stop->stop_requested(); };

  for (int r = 0; r < o.seeds && !result.cancelled; ++r) {
    // The raw data of this repetition, loaded once; every run prepares its own copy from it
    // (bitwise the same as loading it again: run.h).
    const RunSpec admm_spec = CellSpec(o, Algorithm::kAdmm, r);
    const TrainTest raw = LoadDataSource(admm_spec.data, admm_spec.seed);
    // Degrees and rows per node: the same graph and partition for every consensus algorithm of
    // this repetition (they depend on the data, the graph spec and the seed only).
    std::vector<int> degrees;
    std::vector<std::int64_t> rows_per_node;
    std::int64_t features = 0;
    {
      RunSpec ref = admm_spec;
      ref.noise_seed.reset();
      ref.compute_optimum = o.reference_lines;
      ref.metrics = MetricsScope::kAll;
      const Experiment exp(ref, raw.train, raw.test);
      for (int i = 0; i < exp.graph().num_nodes(); ++i) degrees.push_back(exp.graph().degree(i));
      rows_per_node = exp.info().rows_per_node;
      features = exp.info().features;
      if (result.dataset.empty()) {
        // The experiment was built from in-memory data; name the source as a file run would.
        const DataSpec& d = o.base.data;
        result.dataset = ChoiceName(d.source) +
                         (d.train_path.empty() ? std::string(" (generated)") : ": " + d.train_path);
      }
      if (o.reference_lines) {
        if (stopped()) {
          result.cancelled = true;
          break;
        }
        const RunSummary s = exp.Run(nullptr, stop);
        if (s.outcome == RunOutcome::kCancelled) {
          result.cancelled = true;
          break;
        }
        admm.push_back(Accuracy(s));
        centralized.push_back(1.0 - s.info.optimum_test_error);
        majority.push_back(s.info.test_majority_rate);
        step("admm (non-private) seed " + std::to_string(r + 1));
      }
    }
    for (std::size_t k = 0; k < result.cells.size() && !result.cancelled; ++k) {
      SweepCell& c = result.cells[k];
      if (stopped()) {
        result.cancelled = true;
        break;
      }
      RunSpec spec = CellSpec(o, c.algorithm, r);
      if (spec.family() == Family::kConsensus) {
        // The algorithm's epsilon defaults (tools/epsilon_policy.h), unless the base turns
        // the policy off: the settings follow this cell's epsilon, then the knob is calibrated.
        // What the set-up releases (dp-bounds, dp-standardize) leave of it goes to the rounds.
        const double rounds_epsilon =
            std::max(c.epsilon - SetupEpsilonSum(SetupReleaseEpsilons(spec)), 0.01 * c.epsilon);
        ApplyEpsilonPolicy(spec, PublicQuantities{rounds_epsilon, o.delta, degrees, rows_per_node,
                                                  features, spec.loss.CurvatureBound()});
      }
      const CalibrationResult cal =
          spec.family() == Family::kConsensus
              ? CalibrateToEpsilon(spec, degrees, rows_per_node, c.epsilon, o.delta, features)
              : CalibrateToEpsilon(spec, {}, {}, c.epsilon, o.delta);
      c.knob = cal.knob;
      c.knob_values.push_back(cal.value);
      c.achieved_epsilon.push_back(cal.epsilon);
      c.achieved_delta.push_back(cal.delta);
      const Experiment exp(spec, raw.train, raw.test);
      const RunSummary s = exp.Run(nullptr, stop);
      if (s.outcome == RunOutcome::kCancelled) {
        result.cancelled = true;
        c.knob_values.pop_back();
        c.achieved_epsilon.pop_back();
        c.achieved_delta.pop_back();
        break;
      }
      c.outcomes.push_back(ToString(s.outcome));
      accuracy[k].push_back(Accuracy(s));
      step(std::string(ChoiceName(c.algorithm)) + " eps=" + Num(c.epsilon) + " seed " +
           std::to_string(r + 1));
    }
  }
  for (std::size_t k = 0; k < result.cells.size(); ++k) {
    result.cells[k].accuracy = Summarize(accuracy[k]);
  }
  result.admm = Summarize(admm);
  result.centralized = Summarize(centralized);
  result.majority = Summarize(majority);
  return result;
}

std::string SweepToCsv(const SweepResult& r) {
  std::ostringstream os;
  os << "# " << r.noise << "; band: " << r.band << "; accuracy in %\n";
  os << "algorithm,epsilon,delta,seeds,accuracy_mean,accuracy_low,accuracy_high,"
        "accuracy_per_seed,knob,knob_per_seed,achieved_epsilon_max\n";
  for (const SweepCell& c : r.cells) {
    double achieved = 0.0;
    for (double e : c.achieved_epsilon) achieved = std::max(achieved, e);
    double delta = r.delta;
    for (double d : c.achieved_delta) delta = std::max(delta, d);
    os << ChoiceName(c.algorithm) << ',' << Num(c.epsilon) << ',' << Num(delta) << ','
       << c.accuracy.values.size() << ',' << Num(100 * c.accuracy.mean) << ','
       << Num(100 * c.accuracy.low) << ',' << Num(100 * c.accuracy.high) << ','
       << Joined(c.accuracy.values, 100.0) << ',' << c.knob << ',' << Joined(c.knob_values) << ','
       << (c.achieved_epsilon.empty() ? "" : Num(achieved)) << '\n';
  }
  const auto line = [&](const char* name, const SweepStat& s) {
    if (s.values.empty()) return;
    os << name << ",," << Num(r.delta) << ',' << s.values.size() << ',' << Num(100 * s.mean) << ','
       << Num(100 * s.low) << ',' << Num(100 * s.high) << ',' << Joined(s.values, 100.0) << ",,,\n";
  };
  line("admm (non-private)", r.admm);
  line("centralized", r.centralized);
  line("majority", r.majority);
  return os.str();
}

}  // namespace dpadmm
