// SPDX-License-Identifier: Apache-2.0
#include "summary_text.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <iostream>
#include <sstream>
#include <thread>

#include "command_common.h"
#include "dpadmm/run/spec_json.h"

namespace dpadmm::cli {
namespace {

// A sharing coordinator's privacy figure in party mode.
constexpr const char* kCoordinatorReleases =
    "none here: the coordinator makes no noised release (its broadcast of the labels is not "
    "protected by 001)";

}  // namespace

void PrintSummary(const RunSpec& spec, const RunSummary& s, double wall_seconds,
                  const TraceWriter& trace, const std::string& summary_path) {
  const RunInfo& info = s.info;
  const RoundMetrics& m = s.final;
  std::ostringstream out;
  const auto row = [&](const char* label, const std::string& text) {
    out << "  " << label << std::string(std::max<std::size_t>(1, 22 - std::strlen(label)), ' ')
        << text << '\n';
  };
  // A figure computed on private data: absent from a released-only run, labelled when a
  // guarantee binds the run's other outputs.
  const bool computed = info.metrics == MetricsScope::kAll;
  const bool labelled = !info.evaluation.empty();
  const auto eval_row = [&](const char* label, const std::string& text) {
    if (!computed) {
      row(label, "not computed (metrics released-only: it would evaluate private data)");
    } else {
      row(label, text + (labelled ? std::string("  [") + kPrivateEvaluationLabel + "]" : ""));
    }
  };
  // A party of a network run (dpadmm party) knows its own nodes' figures only: each row says so.
  const bool party = !info.party.id.empty();
  const bool sharing = info.family == Family::kSharing;
  // Sharing: the node this party hosts (0 the coordinator, m feature party m).
  const int own = party && !info.party.nodes.empty() ? info.party.nodes.front() : -1;
  out << "dpadmm: " << ToString(s.outcome) << " -- " << s.message << '\n';
  if (party && sharing) {
    const std::string samples = std::to_string(info.train_rows) + " samples, ";
    const std::string block =
        own > 0 && own <= static_cast<int>(info.party_features.size())
            ? "its block of " + std::to_string(info.party_features[own - 1]) + " of the " +
                  std::to_string(info.features) + " features (feature party " +
                  std::to_string(own) + ")"
            : "their labels (the coordinator), no feature of the " + std::to_string(info.features);
    row("data", info.dataset + ": " + samples + block + "; no test data");
  } else {
    row("data", info.dataset + ": " + std::to_string(info.train_rows) + " training rows, " +
                    std::to_string(info.test_rows) + " test rows, " +
                    std::to_string(info.features) + " features, " +
                    (info.sparse ? "sparse" : "dense"));
  }
  switch (party && sharing && own == 0 ? Scaling::kNone : info.scaling) {
    case Scaling::kNone:
      if (party && sharing && own == 0) {
        row("normalisation", "none here: the coordinator holds labels only");
        break;
      }
      eval_row(
          "normalisation",
          "rows not scaled (--scaling none); max ||x|| = " + Fmt("%.6g", info.max_row_norm_before) +
              (info.max_row_norm_before > 1.0 ? " > 1: the privacy analyses assume ||x|| <= 1"
                                              : ""));
      break;
    case Scaling::kPublicBounds:
      row("normalisation",
          "each feature mapped from its public bounds to [-1, 1] / sqrt(d), then every row "
          "clipped to ||x|| <= 1 (public-bounds)");
      break;
    case Scaling::kDpBounds:
      row("normalisation",
          "each feature mapped from DP-estimated bounds to [-1, 1] / sqrt(d), then every row "
          "clipped to ||x|| <= 1 (dp-bounds: each node spent epsilon " +
              Fmt("%.6g", info.dp_bounds.epsilon) +
              " on its bounds release, included in its privacy figures; " +
              std::to_string(info.dp_bounds.fallback_features) +
              " features without an occupied bin took the fallback range)");
      break;
    case Scaling::kStandardize:
      row("normalisation",
          "each feature centred and scaled by the training rows' mean and standard deviation, "
          "rows divided by sqrt(d), then clipped to ||x|| <= 1 (standardize)");
      break;
    case Scaling::kDpStandardize:
      row("normalisation",
          "each feature centred and scaled by a DP estimate of its mean and standard deviation, "
          "rows divided by sqrt(d), then clipped to ||x|| <= 1 (dp-standardize: each node spent "
          "epsilon " +
              Fmt("%.6g", info.standardization.epsilon) + " on its sums release" +
              (info.dp_bounds.epsilon > 0.0
                   ? " and " + Fmt("%.6g", info.dp_bounds.epsilon) + " on its bounds release"
                   : std::string()) +
              ", included in its privacy figures)");
      break;
    case Scaling::kClipOnly:
      row("normalisation",
          "every row clipped to ||x|| <= 1 (clip-only); features not scaled: give public bounds "
          "(--feature-bounds / --feature-range) to scale them");
      break;
    case Scaling::kGlobalMaxNorm:
    case Scaling::kAuto:
      if (info.normalization_factor == 1.0) {
        eval_row("normalisation", "rows not scaled (max ||x|| was already " +
                                      Fmt("%.6g", info.max_row_norm_before) + ")");
      } else {
        eval_row("normalisation", "rows scaled by " + Fmt("%.6g", info.normalization_factor) +
                                      " so that max ||x|| = 1 (it was " +
                                      Fmt("%.6g", info.max_row_norm_before) +
                                      "; global-max-norm: one factor from every node's data)");
      }
      break;
  }
  const int threads =
      info.threads > 0 ? info.threads : static_cast<int>(std::thread::hardware_concurrency());
  const std::string local =
      info.engine == runtime::EngineKind::kTbb ? ", " + std::to_string(threads) + " threads"
      : info.engine == runtime::EngineKind::kMpi && g_mpi
          ? ", " + std::to_string(g_mpi->size()) + (g_mpi->size() == 1 ? " rank" : " ranks")
          : "";
  // "node 0" / "nodes 0, 2": the nodes this party hosts.
  std::string own_nodes = info.party.nodes.size() == 1 ? "node " : "nodes ";
  for (std::size_t k = 0; k < info.party.nodes.size(); ++k) {
    own_nodes += (k ? ", " : "") + std::to_string(info.party.nodes[k]);
  }
  std::string engine = std::string(ChoiceName(info.engine)) + " engine" + local;
  if (!info.on_engine) {
    engine = "in-process loop";
  } else if (party) {
    engine = "network engine: party '" + info.party.id + "' (" +
             std::to_string(info.party.index + 1) + " of " + std::to_string(info.party.parties) +
             "), its " + (info.party.nodes.size() == 1 ? "node" : "nodes") + " on " +
             ChoiceName(info.engine) + local;
  }
  const char* over_nodes = party ? "max over this party's nodes" : "max over nodes";
  // Sharing in party mode: a figure this party does not compute (NaN) is not known here.
  const auto known = [&](double v, const std::string& text, const char* why) {
    return party && std::isnan(v) ? std::string("not known here (") + why + ")" : text;
  };
  row("privacy", info.privacy_guarantee);
  row("noise", NoiseLabel(info));
  row("rounds", std::to_string(s.rounds) + " of " + std::to_string(spec.iterations));
  if (party && sharing) {
    eval_row("training loss", known(m.train_loss, Fmt("%.8g", m.train_loss),
                                    "the coordinator's figure: it holds the labels"));
  } else {
    eval_row("training loss", Fmt("%.8g", m.train_loss) + (party ? "  (this party's nodes)" : ""));
  }
  if (sharing) {
    std::string parties;
    for (std::size_t p = 0; p < info.party_features.size(); ++p) {
      parties += (p ? " / " : "") + std::to_string(info.party_features[p]);
    }
    row("parties", parties + " features");
    row("algorithm",
        std::string(ChoiceName(info.algorithm)) + (info.dp ? " (private)" : "") + ", " + engine);
    eval_row("objective",
             known(m.objective,
                   Fmt("%.8g", m.objective) +
                       (info.central.computed
                            ? "  (centralized optimum " + Fmt("%.8g", info.central.objective) + ")"
                            : ""),
                   "it needs every party's weights"));
    const char* no_test = "no party holds a whole test row";
    row("test log loss", known(m.test_loss, Fmt("%.6g", m.test_loss), no_test));
    if (info.central.computed) {
      eval_row("baselines", "test log loss all features " + Fmt("%.6g", info.central.test_loss) +
                                ", party 1 only " + Fmt("%.6g", info.local.test_loss));
    }
    row("test accuracy", known(m.test_error, Percent(1.0 - m.test_error), no_test));
    if (info.dp) {
      const bool paper16 = info.sharing_mechanism == "paper16";
      std::string totals;
      for (double v : info.party_epsilon_total)
        totals += (totals.empty() ? "" : " ") + Fmt("%.6g", v);
      if (paper16) {
        row("mechanism",
            "paper16 (001 eq. (16)): NOT DP as stated (the noise covariance is made "
            "of the private data: releases lie in col(D_m))");
        row("paper's figure",
            party && own == 0
                ? std::string(kCoordinatorReleases)
                : "per iteration (" + Fmt("%.6g", info.epsilon) + ", " + Fmt("%.6g", info.delta) +
                      "); total (" + Fmt("%.6g", m.epsilon_total) + ", " +
                      Fmt("%.6g", m.delta_total) + ") " +
                      (party ? "of this party's releases " : "") + "over " +
                      std::to_string(s.rounds) + " iterations (001 Theorem 3, Corollary 1)");
        row("assumptions", "b1 = " + Fmt("%.6g", info.b1) + ", c1 = " + Fmt("%.6g", info.c1));
        // A party sees its own x_m (a feature party) or y (the coordinator) only.
        eval_row("observed norms",
                 !party ? "max ||x_m|| " + Fmt("%.6g", m.max_x_norm) + ", ||y|| " +
                              Fmt("%.6g", m.y_norm) + " (compare with b1)"
                 : own == 0
                     ? "||y|| " + Fmt("%.6g", m.y_norm) + " (compare with b1)"
                     : "||x_m|| " + Fmt("%.6g", m.max_x_norm) + " (this party's; compare with b1)");
      } else {
        row("mechanism", "gaussian: D_m x_m + N(0, sigma^2 I_N), ||x_m|| <= b1 = " +
                             Fmt("%.6g", info.b1) + " enforced");
        if (party && own == 0) {
          row("privacy loss", kCoordinatorReleases);
        } else {
          row("privacy loss",
              "tight total (" + Fmt("%.6g", m.epsilon_total) + ", " + Fmt("%.6g", m.delta_total) +
                  ") " + (party ? "of this party's releases" : "per party") + " over " +
                  std::to_string(s.rounds) + " iterations (analytic Gaussian, mu^2 summed)");
        }
      }
      row(paper16 ? "eps' per party" : "total eps per party", totals);
      std::string sigmas;
      for (double v : info.party_sigma) sigmas += (sigmas.empty() ? "" : " ") + Fmt("%.6g", v);
      row("sigma per party", sigmas);
      if (!info.calibrated_knob.empty()) {
        row("calibrated", info.calibrated_knob + " = " + Fmt("%.6g", info.calibrated_value) +
                              " (--target-epsilon; sigma derived from it)");
      }
    }
  } else {
    std::string per_node = "rows per node ";
    // A party knows its own nodes' row counts only (the others' are -1).
    std::vector<std::int64_t> rows;
    for (std::size_t i = 0; i < info.rows_per_node.size(); ++i) {
      if (!party || std::find(info.party.nodes.begin(), info.party.nodes.end(),
                              static_cast<int>(i)) != info.party.nodes.end()) {
        rows.push_back(info.rows_per_node[i]);
      }
    }
    if (!rows.empty()) {
      const auto [lo, hi] = std::minmax_element(rows.begin(), rows.end());
      per_node +=
          *lo == *hi ? std::to_string(*lo) : std::to_string(*lo) + ".." + std::to_string(*hi);
    }
    if (party) per_node += " (this party's " + own_nodes + "; the others' not known here)";
    if (info.trusted_curator) {
      row("graph",
          "1 node, the trusted curator, holding every party's rows (the parties' graph is not "
          "used); " +
              per_node);
    } else {
      row("graph", std::to_string(info.nodes) + " nodes, " + std::to_string(info.edges) +
                       " edges (" + ChoiceName(spec.graph.topology) + "); " + per_node);
    }
    row("algorithm",
        std::string(ChoiceName(info.algorithm)) + ", " + info.loss + " loss, " + engine);
    if (!info.baseline.empty()) row("baseline", info.baseline);
    if (info.algorithm == Algorithm::kPdml) {
      // PDML's only quantified guarantee is Phase 1's; say so rather than print a bare number.
      const PdmlParams& p = spec.algorithm.As<PdmlParams>();
      double eps = p.label_eps;
      for (double g : p.label_eps_groups) eps = std::max(eps, g);
      row("privacy loss",
          (eps > 0.0 ? "Phase 1: label eps " + Fmt("%.6g", eps) +
                           " (randomized response, pure eps-LDP per user)"
                     : std::string("Phase 1: labels not randomized")) +
              "; Phase 2: " +
              (p.V > 0.0 && std::isfinite(s.tight_epsilon)
                   ? "tight (" + Fmt("%.6g", s.tight_epsilon) + ", " + Fmt("%.0e", s.tight_delta) +
                         ")-DP per node (primal noise (16), Gaussian "
                         "composition, " +
                         over_nodes + ")"
                   : std::string("no primal noise (V = 0): no epsilon for "
                                 "the released models")));
    } else if (info.gaussian_releases && std::isfinite(s.tight_epsilon)) {
      // Gaussian releases: no paper's figure; the tight one is their exact composition.
      row("tight privacy", "(" + Fmt("%.6g", s.tight_epsilon) + ", " + Fmt("%.0e", s.tight_delta) +
                               ")-DP per node (Gaussian releases composed exactly, " + over_nodes +
                               ")");
    } else if (m.privacy_loss > 0.0) {
      // Both figures: the paper's (its composition) and the tight one (optimal composition).
      const bool gaussian_baseline = IsBaseline(info.algorithm) &&
                                     *spec.algorithm.Field<std::string>("mechanism") == "gaussian";
      const std::string baseline_paper =
          gaussian_baseline
              ? "the mechanism's epsilon at delta " +
                    Fmt("%.0e", *spec.algorithm.Field<double>("delta")) + ", one release"
              : "the mechanism's epsilon, one release";
      const char* paper = info.algorithm == Algorithm::kDvp     ? "004 Thm 1, plain sum"
                          : info.algorithm == Algorithm::kPvp   ? "PVP, plain sum"
                          : info.algorithm == Algorithm::kMadmm ? "002 P(T)"
                          : IsBaseline(info.algorithm)          ? baseline_paper.c_str()
                                                                : "003 eq. (32) beta";
      // Both deltas include the double-precision sampler's (s.sampler_delta).
      const bool fp = std::isfinite(s.sampler_delta) && s.sampler_delta > 0.0;
      row("privacy loss",
          (fp ? "(" + Fmt("%.6g", m.privacy_loss) + ", " + Fmt("%.2g", s.sampler_delta) + ")"
              : Fmt("%.6g", m.privacy_loss)) +
              " (paper: " + paper + ", " + over_nodes + ")");
      if (std::isfinite(s.tight_epsilon)) {
        row("tight privacy",
            "(" + Fmt("%.6g", s.tight_epsilon) + ", " + Fmt("%.2g", s.tight_delta) +
                ")-DP per node (" +
                (IsBaseline(info.algorithm) ? "accountant" : "optimal composition") + ", " +
                over_nodes +
                (fp ? "; delta = " + Fmt("%.0e", s.tight_delta - s.sampler_delta) +
                          " + the sampler's " + Fmt("%.2g", s.sampler_delta) + ")"
                    : std::string(")")));
      }
    }
    if (!info.calibrated_knob.empty()) {
      row("calibrated", info.calibrated_knob + " = " + Fmt("%.6g", info.calibrated_value) +
                            " for a tight total epsilon of " +
                            Fmt("%.6g", info.calibrated_epsilon) + " at delta " +
                            Fmt("%.0e", info.calibrated_delta) + " (target " +
                            Fmt("%.6g", spec.target_epsilon) + ")");
    }
    if (!info.epsilon_policy.empty()) row("epsilon policy", info.epsilon_policy);
    if (!info.privacy_claim.empty()) row("privacy claim", info.privacy_claim);
    const bool has_optimum = !std::isnan(info.optimum_objective);
    eval_row("objective", Fmt("%.8g", m.objective) +
                              (has_optimum ? "  (centralized optimum " +
                                                 Fmt("%.8g", info.optimum_objective) + ")"
                                           : "") +
                              (party ? "  (this party's nodes' terms)" : ""));
    const bool per_node_models = info.test_error_of != "mean model";
    row("test accuracy", Percent(1.0 - m.test_error) +
                             (per_node_models ? "  (" + info.test_error_of + "; no consensus model)"
                              : party         ? "  (the mean of this party's models)"
                                              : ""));
    if (has_optimum) {
      eval_row("optimum accuracy",
               Percent(1.0 - info.optimum_test_error) + " (centralized optimum on the test set)");
    }
    if (!computed) {
      eval_row("distance to optimum", "");
    } else {
      eval_row(
          "distance to optimum",
          std::isnan(m.distance_to_optimum)
              ? std::string(spec.compute_optimum ? "not computed" : "not computed (--no-optimum)")
              : Fmt("%.3e", m.distance_to_optimum) + "  (max_i ||f_i - f*|| / ||f*||)");
    }
    if (!info.optimum_note.empty()) row("optimum note", info.optimum_note);
    row("consensus gap",
        !party ? Fmt("%.3e", m.consensus_gap) + "  (max_i ||f_i - mean f||)"
        : info.party.nodes.size() == 1
            ? std::string("n/a: one node here (the gap to the other parties' models is not "
                          "known here)")
            : Fmt("%.3e", m.consensus_gap) +
                  "  (max over this party's nodes of ||f_i - their mean||)");
  }
  row("wall time", Seconds(wall_seconds) + " (rounds " + Seconds(s.seconds) + ", " +
                       Fmt("%.3g", s.seconds_per_round) + " s per round)");
  row("trace",
      trace.path() + " (" + trace.format_name() + ", " + std::to_string(trace.rows()) + " rows)");
  row("summary", summary_path);
  std::cout << out.str() << std::flush;
  // Warnings go to stderr as well, so that a redirected stdout cannot hide them.
  for (const std::string& w : s.warnings) std::cerr << "dpadmm: warning: " << w << '\n';
}

}  // namespace dpadmm::cli
