// SPDX-License-Identifier: Apache-2.0
#include "dpadmm/run/run_spec.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "core/field_error.h"
#include "dpadmm/consensus/pdml.h"
#include "dpadmm/core/error.h"
#include "dpadmm/privacy/bounds_release.h"
#include "dpadmm/privacy/standardize_release.h"
#include "run/spec_internal.h"

namespace dpadmm {
namespace {

using detail::Bad;

void Positive(const std::string& field, double v) {
  if (!(v > 0.0) || !std::isfinite(v)) Bad(field, "> 0 and finite", v);
}
void NonNegative(const std::string& field, double v, const std::string& note = "") {
  if (!(v >= 0.0) || !std::isfinite(v)) Bad(field, ">= 0 and finite" + note, v);
}
void AtLeastOne(const std::string& field, double v, const std::string& note = "") {
  if (!(v >= 1.0) || !std::isfinite(v)) Bad(field, ">= 1" + note, v);
}

// One value per node, each above `min` (strictly when `strict`). nodes < 0: unknown (graph file).
void PerNode(const std::string& field, const std::vector<double>& v, int nodes, double min,
             bool strict) {
  if (v.empty()) return;
  if (nodes >= 0 && static_cast<int>(v.size()) != nodes) {
    Bad(field, "one value per node (" + std::to_string(nodes) + ")",
        std::to_string(v.size()) + " values");
  }
  for (std::size_t k = 0; k < v.size(); ++k) {
    const bool ok = std::isfinite(v[k]) && (strict ? v[k] > min : v[k] >= min);
    if (!ok) {
      std::ostringstream rule;
      rule << (strict ? "> " : ">= ") << min;
      Bad(field + "[" + std::to_string(k) + "]", rule.str(), v[k]);
    }
  }
}

// The noise schedule; `needs_alpha`: the algorithm is defined by its noise (DVP, PVP, private
// MR-ADMM), so alpha = 0 is a mistake rather than "no noise".
void ValidateNoise(const NoiseSchedule& s, const std::string& prefix, int nodes, bool needs_alpha,
                   const char* algorithm) {
  NonNegative(prefix + "alpha", s.alpha, " (0 = no noise)");
  Positive(prefix + "q2", s.q2);
  if (needs_alpha && s.alpha == 0.0 && s.node_alpha.empty()) {
    throw InputError(prefix + "alpha must be > 0 for algorithm '" + algorithm +
                     "' (it sets the noise), got 0");
  }
  PerNode(prefix + "node_alpha", s.node_alpha, nodes, 0.0, needs_alpha);
  // A node with alpha 0 among noisy ones would release its exact update (an unbounded privacy
  // loss) in a run reported as private: refused.
  const bool any_noisy = s.alpha > 0.0 || std::any_of(s.node_alpha.begin(), s.node_alpha.end(),
                                                      [](double a) { return a > 0.0; });
  for (std::size_t i = 0; any_noisy && i < s.node_alpha.size(); ++i) {
    if (!(s.node_alpha[i] > 0.0)) {
      throw InputError(prefix + "node_alpha[" + std::to_string(i) +
                       "] must be > 0 when other nodes draw noise: a node with alpha 0 would "
                       "release its exact update (unbounded privacy loss), got " +
                       std::to_string(s.node_alpha[i]));
    }
  }
  PerNode(prefix + "node_q2", s.node_q2, nodes, 0.0, true);
}

void ValidatePartyLayout(const PartyLayout& p, const std::string& prefix) {
  if (p.parties < 1) Bad(prefix + "parties", ">= 1", p.parties);
  if (!p.party_features.empty()) {
    if (static_cast<int>(p.party_features.size()) != p.parties) {
      Bad(prefix + "party_features", "one count per party (" + std::to_string(p.parties) + ")",
          std::to_string(p.party_features.size()) + " values");
    }
    for (std::size_t m = 0; m < p.party_features.size(); ++m) {
      if (p.party_features[m] < 1) {
        Bad(prefix + "party_features[" + std::to_string(m) + "]", ">= 1", p.party_features[m]);
      }
    }
  }
  Positive(prefix + "lambda", p.lambda);
}

void ValidateData(const DataSpec& data, bool check_source) {
  if (IsGenerated(data.source)) {
    if (data.rows < 10) Bad("data.rows", ">= 10", data.rows);
    if (data.dims < 1) Bad("data.dims", ">= 1", data.dims);
  } else if (check_source) {
    const std::string name = ChoiceName(data.source);
    if (data.train_path.empty()) {
      throw InputError("data.train_path is required for data.source '" + name + "'");
    }
    if (data.source == DataSource::kAdult && data.test_path.empty()) {
      throw InputError("data.test_path is required for data.source 'adult' (adult.test)");
    }
    if (data.source == DataSource::kAsc && data.train_labels_path.empty()) {
      throw InputError("data.train_labels_path is required for data.source 'asc'");
    }
    if (data.source == DataSource::kAsc && !data.test_path.empty() &&
        data.test_labels_path.empty()) {
      throw InputError("data.test_labels_path is required when data.test_path is given for 'asc'");
    }
  }
  if (data.test_path.empty() && !(data.test_fraction > 0.0 && data.test_fraction < 1.0)) {
    Bad("data.test_fraction", "in (0, 1)", data.test_fraction);
  }
  if (data.num_features < 0) Bad("data.num_features", ">= 0", data.num_features);
  if (data.sparse_informative < 1) Bad("data.sparse_informative", ">= 1", data.sparse_informative);
  if (data.sparse_nnz_per_row < 1) Bad("data.sparse_nnz_per_row", ">= 1", data.sparse_nnz_per_row);
  if (!(data.sparse_flip_probability >= 0.0 && data.sparse_flip_probability <= 0.5)) {
    Bad("data.sparse_flip_probability", "in [0, 0.5]", data.sparse_flip_probability);
  }
}

void ValidatePreprocessing(const RunSpec& spec) {
  const DataSpec& data = spec.data;
  if (!data.feature_range.empty()) {
    if (data.feature_range.size() != 2) {
      Bad("data.feature_range", "two numbers [lo, hi]",
          std::to_string(data.feature_range.size()) + " values");
    }
    const double lo = data.feature_range[0], hi = data.feature_range[1];
    if (!std::isfinite(lo) || !std::isfinite(hi) || !(lo < hi)) {
      throw InputError("data.feature_range must be finite with lo < hi, got [" +
                       std::to_string(lo) + ", " + std::to_string(hi) + "]");
    }
  }
  const Scaling scaling = EffectiveScaling(spec);
  if (scaling == Scaling::kPublicBounds && data.feature_bounds_path.empty() &&
      data.feature_range.empty()) {
    throw InputError(
        "data.scaling 'public-bounds' needs public bounds: data.feature_bounds_path "
        "(--feature-bounds FILE) and/or data.feature_range (--feature-range LO,HI)");
  }
  const bool dp_standardize = scaling == Scaling::kDpStandardize;
  if (scaling == Scaling::kDpBounds || dp_standardize) {
    const std::string name = ChoiceName(scaling);
    if (spec.family() != Family::kConsensus) {
      throw InputError("data.scaling '" + name +
                       "' is available for the consensus family only (a sharing party's set-up "
                       "release is not composed with its accounting yet): use public-bounds or "
                       "clip-only");
    }
    if (scaling == Scaling::kDpBounds && !(data.bounds_epsilon > 0.0)) {
      throw InputError(
          "data.scaling 'dp-bounds' needs data.bounds_epsilon > 0 (--bounds-epsilon E): the "
          "part of each node's budget spent on its bounds estimate");
    }
    if (dp_standardize && !(data.standardize_epsilon > 0.0)) {
      throw InputError(
          "data.scaling 'dp-standardize' needs data.standardize_epsilon > 0 "
          "(--standardize-epsilon E): the part of each node's budget spent on its noisy "
          "per-feature sums");
    }
    if (dp_standardize && !(data.bounds_epsilon > 0.0) && data.feature_bounds_path.empty() &&
        data.feature_range.empty()) {
      throw InputError(
          "data.scaling 'dp-standardize' needs clipping bounds for its sums: public ones "
          "(--feature-bounds FILE and/or --feature-range LO,HI) or a DP estimate of them "
          "(--bounds-epsilon E, spent as dp-bounds spends it)");
    }
    if (dp_standardize && data.bounds_epsilon < 0.0) {
      Bad("data.bounds_epsilon", ">= 0", data.bounds_epsilon);
    }
    // The range checks, then the total: a node whose budget the set-up releases alone use up
    // could release nothing else.
    double quantised = 0.0;
    for (double e : SetupReleaseEpsilons(spec)) quantised += e;
    const auto& budgets = spec.algorithm.node_privacy_budget;
    const std::string what = dp_standardize ? "the set-up releases' epsilon (data.bounds_epsilon + "
                                              "data.standardize_epsilon) "
                                            : "data.bounds_epsilon ";
    const auto refuse = [&](double budget, const std::string& who) {
      if (budget > 0.0 && quantised >= budget) {
        throw InputError(what + std::to_string(quantised) + " uses up the privacy budget " +
                         std::to_string(budget) + " of " + who +
                         " before any round: refused (lower it or raise --privacy-budget)");
      }
    };
    refuse(spec.algorithm.privacy_budget, "every node");
    for (std::size_t i = 0; i < budgets.size(); ++i)
      refuse(budgets[i], "node " + std::to_string(i));
  } else if (data.bounds_epsilon != 0.0) {
    throw InputError(
        "data.bounds_epsilon is set but the scaling is not 'dp-bounds' or 'dp-standardize'");
  }
  if (!dp_standardize && data.standardize_epsilon != 0.0) {
    throw InputError("data.standardize_epsilon is set but the scaling is not 'dp-standardize'");
  }
  if (scaling == Scaling::kStandardize && PrivateRun(spec)) {
    throw InputError(
        "data.scaling 'standardize' is refused in private mode: its means and deviations come "
        "from every node's rows, so one record changes every other prepared record. Use "
        "'dp-standardize' (--standardize-epsilon E), 'public-bounds' or 'clip-only', or a "
        "noise seed (simulation mode, not private)");
  }
  if (scaling == Scaling::kGlobalMaxNorm && PrivateRun(spec)) {
    throw InputError(
        "data.scaling 'global-max-norm' is refused in private mode: its factor is the largest "
        "row norm over every node's data, so one record changes every other prepared record and "
        "no party could compute it. Use 'clip-only' or 'public-bounds' (with "
        "--feature-bounds/--feature-range), or a noise seed (simulation mode, not private)");
  }
}

void ValidateGraph(const GraphSpec& graph, const PartitionSpec& partition) {
  if (graph.topology == Topology::kFile) {
    if (graph.file.empty()) throw InputError("graph.file is required for graph.topology 'file'");
  } else {
    if (graph.nodes < 2) Bad("graph.nodes", ">= 2", graph.nodes);
    if (graph.topology == Topology::kRing && graph.nodes < 3) {
      Bad("graph.nodes", ">= 3 for a ring", graph.nodes);
    }
  }
  if (graph.topology == Topology::kRandom && graph.edges != GraphSpec::kAutoEdges) {
    const long long max_edges = static_cast<long long>(graph.nodes) * (graph.nodes - 1) / 2;
    if (graph.edges < graph.nodes - 1 || graph.edges > max_edges) {
      Bad("graph.edges",
          "in [nodes - 1, nodes (nodes - 1) / 2] = [" + std::to_string(graph.nodes - 1) + ", " +
              std::to_string(max_edges) + "] for " + std::to_string(graph.nodes) +
              " nodes (or \"auto\")",
          graph.edges);
    }
  }
  if (graph.topology == Topology::kGrid && graph.grid_rows != 0 &&
      (graph.grid_rows < 1 || graph.nodes % graph.grid_rows != 0)) {
    Bad("graph.grid_rows", "a divisor of graph.nodes (or 0 for automatic)", graph.grid_rows);
  }
  const int nodes = graph.topology == Topology::kFile ? -1 : graph.nodes;
  if (partition.kind == PartitionKind::kProportional) {
    if (nodes >= 0 && static_cast<int>(partition.proportions.size()) != nodes) {
      Bad("partition.proportions", "one value per node (" + std::to_string(nodes) + ")",
          std::to_string(partition.proportions.size()) + " values");
    }
    for (std::size_t k = 0; k < partition.proportions.size(); ++k) {
      Positive("partition.proportions[" + std::to_string(k) + "]", partition.proportions[k]);
    }
  }
  if (partition.kind == PartitionKind::kDirichlet) {
    Positive("partition.dirichlet_alpha", partition.dirichlet_alpha);
  }
  if (!partition.public_rows.empty()) {
    if (nodes >= 0 && static_cast<int>(partition.public_rows.size()) != nodes) {
      Bad("partition.public_rows", "one row count per node (" + std::to_string(nodes) + ")",
          std::to_string(partition.public_rows.size()) + " values");
    }
    for (std::size_t k = 0; k < partition.public_rows.size(); ++k) {
      if (partition.public_rows[k] < 1) {
        Bad("partition.public_rows[" + std::to_string(k) + "]", ">= 1", partition.public_rows[k]);
      }
    }
  }
  if (partition.kind == PartitionKind::kFile && partition.file.empty()) {
    throw InputError("partition.file is required for partition.kind 'file'");
  }
}

// The consensus fields of AlgorithmSpec.
void ValidateConsensusShared(const RunSpec& spec, int nodes) {
  const AlgorithmSpec& a = spec.algorithm;
  Positive("algorithm.C", a.C);
  Positive("algorithm.rho", a.rho);
  Positive("algorithm.eta", a.eta);
  NonNegative("algorithm.privacy_budget", a.privacy_budget, " (0 = none)");
  PerNode("algorithm.node_eta", a.node_eta, nodes, 0.0, true);
  PerNode("algorithm.node_privacy_budget", a.node_privacy_budget, nodes, 0.0, false);
  if (a.gossip_rounds != 0) {
    if (IsBaseline(a.name()) || a.name() == Algorithm::kPdml) {
      throw InputError(
          std::string("algorithm.gossip_rounds: not used by '") + ChoiceName(a.name()) + "' (" +
          (a.name() == Algorithm::kAverage ? "its rounds after the first gossip already"
                                           : "it has no gossip tail") +
          "): use 0");
    }
    if (a.gossip_rounds < 0 || a.gossip_rounds >= spec.iterations) {
      throw InputError("algorithm.gossip_rounds must be >= 0 and below iterations (" +
                       std::to_string(spec.iterations) +
                       ": at least one round runs the algorithm), got " +
                       std::to_string(a.gossip_rounds));
    }
  }
  if (a.weighting == Weighting::kRow &&
      (a.name() == Algorithm::kLocal || a.name() == Algorithm::kCentral)) {
    throw InputError(std::string("algorithm.weighting: 'row' is not used by '") +
                     ChoiceName(a.name()) +
                     "' (it solves no consensus problem: each node, or the curator, solves "
                     "its own): use 'node'");
  }
  if (IsBaseline(a.name())) {
    // One release per node at the mechanism's epsilon: a budget could only refuse it whole.
    if (a.privacy_budget != 0.0 || !a.node_privacy_budget.empty()) {
      Bad("algorithm.privacy_budget",
          "0 for the baselines (each node releases once, at the mechanism's epsilon)",
          a.privacy_budget);
    }
  }
  if (a.name() == Algorithm::kPdml) {
    if (spec.loss.kind != LossKind::kLogistic) {
      throw InputError(
          "loss.kind: algorithm 'pdml' needs the logistic loss (the debiased smooth "
          "hinge of 000 eq. (19) is not convex), got " +
          std::string(ChoiceName(spec.loss.kind)));
    }
    if (a.privacy_budget != 0.0) {
      Bad("algorithm.privacy_budget",
          "0 for 'pdml' (label privacy is fixed in Phase 1; 000 gives "
          "no per-round accounting for Phase 2)",
          a.privacy_budget);
    }
    if (a.rho_per_node) {
      throw InputError("algorithm.rho_per_node is not used by 'pdml' (each server carries a/N)");
    }
    if (!a.node_eta.empty()) throw InputError("algorithm.node_eta is not used by 'pdml'");
    if (!a.node_privacy_budget.empty()) {
      throw InputError("algorithm.node_privacy_budget is not used by 'pdml'");
    }
  }
}

// The sharing family leaves the consensus-only fields at their defaults: a value there would be
// silently ignored otherwise.
void ValidateSharingShared(const RunSpec& spec) {
  const RunSpec d;
  const auto unused = [&](const char* field, bool set, const char* instead) {
    if (set) {
      throw InputError(std::string(field) + " is not used by algorithm '" +
                       ChoiceName(spec.algorithm.name()) + "' (sharing family)" + instead);
    }
  };
  const char* rho_hint =
      "; the sharing penalty is algorithm.sharing.rho, the regulariser "
      "algorithm.<name>.lambda";
  unused("algorithm.C", spec.algorithm.C != d.algorithm.C, "");
  unused("algorithm.rho", spec.algorithm.rho != d.algorithm.rho, rho_hint);
  unused("algorithm.eta", spec.algorithm.eta != d.algorithm.eta, rho_hint);
  unused("algorithm.rho_per_node", spec.algorithm.rho_per_node, "");
  unused("algorithm.random_start", spec.algorithm.random_start, "");
  unused("algorithm.weighting", spec.algorithm.weighting != d.algorithm.weighting, "");
  unused("algorithm.gossip_rounds", spec.algorithm.gossip_rounds != 0, "");
  unused("algorithm.node_eta", !spec.algorithm.node_eta.empty(), "");
  unused("algorithm.privacy_budget", spec.algorithm.privacy_budget != 0.0, "");
  unused("algorithm.node_privacy_budget", !spec.algorithm.node_privacy_budget.empty(), "");
  unused("partition.public_rows", !spec.partition.public_rows.empty(), "");
  unused("tolerance", spec.tolerance != 0.0, "");
  unused("eval_every", spec.metrics_every != 1, "");
  unused("loss.kind", spec.loss.kind != LossKind::kLogistic, " (the sharing family is logistic)");
}

}  // namespace

int GraphSpec::AutoEdges(int nodes) {
  // 1.3 edges per node in integer arithmetic (13 for 10 nodes), then the connected range.
  const long long n = nodes;
  const long long wanted = (13 * n + 5) / 10;
  const long long max_edges = n * (n - 1) / 2;
  return static_cast<int>(std::clamp(wanted, std::max(n - 1, 0LL), std::max(max_edges, 0LL)));
}

void DvpParams::Validate(const std::string& prefix, int nodes) const {
  ValidateNoise(*this, prefix, nodes, true, "dvp");
}
void PvpParams::Validate(const std::string& prefix, int nodes) const {
  if (mechanism == "laplace") {
    ValidateNoise(*this, prefix, nodes, true, "pvp");
    if (noise_multiplier != 0.0) {
      Bad(prefix + "noise_multiplier", "0 with mechanism \"laplace\" (alpha sets its noise)",
          noise_multiplier);
    }
    return;
  }
  if (mechanism != "gaussian") {
    Bad(prefix + "mechanism", "\"laplace\" or \"gaussian\"", "\"" + mechanism + "\"");
  }
  if (!(noise_multiplier > 0.0) || !std::isfinite(noise_multiplier)) {
    Bad(prefix + "noise_multiplier",
        "> 0 and finite with mechanism \"gaussian\" (sigma_i = noise_multiplier x the update's "
        "sensitivity)",
        noise_multiplier);
  }
  if (!node_alpha.empty() || !node_q2.empty()) {
    Bad(prefix + "node_alpha", "empty with mechanism \"gaussian\" (alpha is not used)",
        "per-node values");
  }
}
void MadmmParams::Validate(const std::string& prefix, int nodes) const {
  ValidateNoise(*this, prefix, nodes, false, "madmm");
  AtLeastOne(prefix + "q1", q1, " (penalties must not decrease)");
  NonNegative(prefix + "dual_step", dual_step, " (0 = eta_i(1))");
  PerNode(prefix + "node_q1", node_q1, nodes, 1.0, false);
}
void RadmmParams::Validate(const std::string& prefix, int) const {
  NonNegative(prefix + "gamma", gamma);
}
void MradmmParams::Validate(const std::string& prefix, int nodes) const {
  NonNegative(prefix + "gamma", gamma);
  AtLeastOne(prefix + "q1", q1, " (penalties must not decrease)");
  PerNode(prefix + "node_q1", node_q1, nodes, 1.0, false);
}
void PrivateMradmmParams::Validate(const std::string& prefix, int nodes) const {
  ValidateNoise(*this, prefix, nodes, true, "private_mradmm");
  NonNegative(prefix + "gamma", gamma);
  AtLeastOne(prefix + "q1", q1, " (penalties must not decrease)");
  PerNode(prefix + "node_q1", node_q1, nodes, 1.0, false);
}
void PdmlParams::Validate(const std::string& prefix, int) const {
  LabelPrivacySpec{label_eps, label_eps_groups, label_eps_shares}.Validate(prefix);
  NonNegative(prefix + "R", R, " (0 = no objective perturbation)");
  NonNegative(prefix + "V", V, " (0 = no primal perturbation)");
  if (!(decay > 0.0 && decay <= 1.0)) Bad(prefix + "decay", "in (0, 1]", decay);
}
void SharingParams::Validate(const std::string& prefix, int) const {
  ValidatePartyLayout(*this, prefix);
  Positive(prefix + "rho", rho);
  Positive(prefix + "z_tolerance", z_tolerance);
  if (z_max_iterations < 1) Bad(prefix + "z_max_iterations", ">= 1", z_max_iterations);
  if (mechanism != "gaussian" && mechanism != "paper16") {
    throw InputError(prefix +
                     "mechanism: expected \"gaussian\" or \"paper16\" (001 eq. (16), "
                     "not DP as stated), got \"" +
                     mechanism + "\"");
  }
  Positive(prefix + "total_epsilon", total_epsilon);
  if (!(epsilon > 0.0 && epsilon <= 1.0))
    Bad(prefix + "epsilon", "in (0, 1] (001 Theorem 3)", epsilon);
  NonNegative(prefix + "noise_sigma", noise_sigma, " (0 = from Theorem 3)");
  if (!(delta > 0.0 && delta < 1.0)) Bad(prefix + "delta", "in (0, 1)", delta);
  if (!(delta_prime > 0.0 && delta_prime < 1.0))
    Bad(prefix + "delta_prime", "in (0, 1)", delta_prime);
  Positive(prefix + "b1", b1);
  NonNegative(prefix + "c1", c1);
}
double NodeLossWeight(const AlgorithmSpec& a, const std::vector<std::int64_t>& rows_per_node,
                      std::size_t node) {
  if (node >= rows_per_node.size()) {
    throw InputError("NodeLossWeight: node " + std::to_string(node) + " of " +
                     std::to_string(rows_per_node.size()));
  }
  if (a.weighting == Weighting::kNode) return a.C;
  // C_i / B_i = C N / sum_j B_j = C / B_bar for every node.
  std::int64_t total = 0;
  for (std::size_t j = 0; j < rows_per_node.size(); ++j) {
    if (rows_per_node[j] < 1) {
      throw InputError("algorithm.weighting 'row': node " + std::to_string(j) +
                       " has no known row count (" + std::to_string(rows_per_node[j]) + ")");
    }
    total += rows_per_node[j];
  }
  const double n = static_cast<double>(rows_per_node.size());
  return a.C * (static_cast<double>(rows_per_node[node]) * n / static_cast<double>(total));
}

std::int64_t AlgorithmRounds(const RunSpec& spec) {
  return spec.iterations - spec.algorithm.gossip_rounds;
}

bool IsBaseline(Algorithm algorithm) {
  return algorithm == Algorithm::kLocal || algorithm == Algorithm::kAverage ||
         algorithm == Algorithm::kCentral;
}

void BaselineParams::Validate(const std::string& prefix, int) const {
  if (mechanism != "objective" && mechanism != "gaussian") {
    throw InputError(prefix +
                     "mechanism: expected \"objective\" (objective perturbation, pure epsilon) "
                     "or \"gaussian\" (Gaussian output perturbation), got \"" +
                     mechanism + "\"");
  }
  Positive(prefix + "epsilon", epsilon);
  if (!(delta > 0.0 && delta < 1.0)) Bad(prefix + "delta", "in (0, 1)", delta);
}

void SgdParams::Validate(const std::string& prefix, int) const {
  ValidatePartyLayout(*this, prefix);
  Positive(prefix + "learning_rate", learning_rate);
  NonNegative(prefix + "lr_decay", lr_decay);
  if (batch_size < 1) Bad(prefix + "batch_size", ">= 1", batch_size);
  NonNegative(prefix + "init_sd", init_sd);
}

AlgorithmParams DefaultParams(Algorithm algorithm) {
  switch (algorithm) {
    case Algorithm::kAdmm: return AdmmParams{};
    case Algorithm::kDvp: return DvpParams{};
    case Algorithm::kPvp: return PvpParams{};
    case Algorithm::kMadmm: return MadmmParams{};
    case Algorithm::kRadmm: return RadmmParams{};
    case Algorithm::kMradmm: return MradmmParams{};
    case Algorithm::kPrivateMradmm: return PrivateMradmmParams{};
    case Algorithm::kPdml: return PdmlParams{};
    case Algorithm::kSharing: return SharingParams{};
    case Algorithm::kSgd: return SgdParams{};
    case Algorithm::kLocal: return LocalParams{};
    case Algorithm::kAverage: return AverageParams{};
    case Algorithm::kCentral: return CentralParams{};
  }
  return AdmmParams{};
}

Algorithm AlgorithmSpec::name() const {
  return std::visit([](const auto& p) { return std::decay_t<decltype(p)>::kAlgorithm; }, params);
}

void AlgorithmSpec::Select(Algorithm algorithm) {
  if (name() != algorithm) params = DefaultParams(algorithm);
}

RunSpec RunSpec::Defaults(Algorithm algorithm) {
  RunSpec spec;
  spec.algorithm.Select(algorithm);
  if (FamilyOf(algorithm) == Family::kSharing) {
    spec.data.source = DataSource::kSparse;
    spec.data.rows = 2000;
    spec.data.dims = 200;
    // Every column informative, so that every party's block carries signal and sharing beats
    // the local-only model.
    spec.data.sparse_informative = 200;
    spec.iterations = 20;
  }
  // The private consensus variants' defaults give a tight total epsilon <= 10 at delta = 1e-5
  // per node on the default data and still learn (docs/privacy/figures.md: measured with
  // `dpadmm run --algorithm A --noise-seed S --metrics all`, seeds 1-3). A large penalty eta
  // shrinks the sensitivity of the local update (004, 002, 003) without adding noise to it.
  switch (algorithm) {
    case Algorithm::kDvp:
      spec.algorithm.As<DvpParams>().alpha = 0.15;  // tight eps 6.88, 004 Thm 1 sum 15
      spec.algorithm.eta = 30.0;
      break;
    case Algorithm::kPvp:
      spec.algorithm.As<PvpParams>().alpha = 0.15;  // tight eps 6.88, plain sum 15
      spec.algorithm.eta = 30.0;
      break;
    case Algorithm::kMadmm: {
      MadmmParams& p = spec.algorithm.As<MadmmParams>();
      p.alpha = 20.0;  // tight eps 7.97, 002's P(T) 15.1
      p.q1 = 1.02;
      spec.algorithm.eta = 200.0;
      break;
    }
    case Algorithm::kPrivateMradmm: {
      PrivateMradmmParams& p = spec.algorithm.As<PrivateMradmmParams>();
      p.alpha = 0.02;  // tight eps 4.13, 003 eq. (32) beta 6.94
      p.q1 = 1.02;
      spec.algorithm.eta = 200.0;
      break;
    }
    case Algorithm::kPdml: {
      // The browser's defaults: labels at eps 1 (Phase 1), Phase 2's Gaussian primal noise
      // without decay (tight eps 2.49 at delta 1e-5) and 000's bounded objective noise R = 1;
      // the paper's C = 1, a = rho = 0.01, beta = eta = 0.1.
      PdmlParams& p = spec.algorithm.As<PdmlParams>();
      p.label_eps = 1.0;
      p.R = 1.0;
      p.V = 0.5;
      p.decay = 1.0;
      spec.algorithm.C = 1.0;
      spec.algorithm.rho = 0.01;
      spec.algorithm.eta = 0.1;
      break;
    }
    default: break;
  }
  return spec;
}

void MakeNonPrivate(RunSpec& spec) {
  const Algorithm a = spec.algorithm.name();
  switch (a) {
    case Algorithm::kDvp:
    case Algorithm::kPvp:
    case Algorithm::kMadmm:
    case Algorithm::kPrivateMradmm:
      // Their noise is what they are (alpha > 0 is required): the non-private algorithm is
      // another one.
      throw InputError(std::string("non-private: algorithm '") + ChoiceName(a) +
                       "' is private by construction (alpha > 0); its non-private "
                       "counterpart is --algorithm " +
                       (a == Algorithm::kPrivateMradmm ? "mradmm" : "admm"));
    case Algorithm::kPdml: {
      PdmlParams& p = spec.algorithm.As<PdmlParams>();
      p.label_eps = 0.0;
      p.label_eps_groups.clear();
      p.label_eps_shares.clear();
      p.R = 0.0;
      p.V = 0.0;
      break;
    }
    case Algorithm::kSharing: spec.algorithm.As<SharingParams>().dp = false; break;
    case Algorithm::kLocal:
    case Algorithm::kAverage:
    case Algorithm::kCentral:
      throw InputError(std::string("non-private: algorithm '") + ChoiceName(a) +
                       "' is a private baseline by construction (epsilon > 0); the "
                       "non-private reference is --algorithm admm (and its centralized "
                       "optimum, info.optimum_test_error)");
    default: break;
  }
}

bool UsesPrivacyMechanism(const RunSpec& spec) {
  const auto noisy = [](const NoiseSchedule& n) {
    return n.alpha > 0.0 ||
           std::any_of(n.node_alpha.begin(), n.node_alpha.end(), [](double a) { return a > 0.0; });
  };
  switch (spec.algorithm.name()) {
    case Algorithm::kDvp: return noisy(spec.algorithm.As<DvpParams>());
    case Algorithm::kPvp: {
      const PvpParams& p = spec.algorithm.As<PvpParams>();
      return p.gaussian() ? p.noise_multiplier > 0.0 : noisy(p);
    }
    case Algorithm::kMadmm: return noisy(spec.algorithm.As<MadmmParams>());
    case Algorithm::kPrivateMradmm: return noisy(spec.algorithm.As<PrivateMradmmParams>());
    case Algorithm::kPdml: {
      const PdmlParams& p = spec.algorithm.As<PdmlParams>();
      return p.label_eps > 0.0 || !p.label_eps_groups.empty() || p.R > 0.0 || p.V > 0.0;
    }
    case Algorithm::kSharing: return spec.algorithm.As<SharingParams>().dp;
    case Algorithm::kLocal:
    case Algorithm::kAverage:
    case Algorithm::kCentral: return true;
    case Algorithm::kAdmm:
    case Algorithm::kRadmm:
    case Algorithm::kMradmm:
    case Algorithm::kSgd: return false;
  }
  return false;
}

MetricsScope EffectiveMetrics(const RunSpec& spec) {
  if (spec.metrics != MetricsScope::kAuto) return spec.metrics;
  return PrivateRun(spec) ? MetricsScope::kReleasedOnly : MetricsScope::kAll;
}

Scaling EffectiveScaling(const RunSpec& spec, bool raw_units) {
  if (!spec.data.normalize) return Scaling::kNone;
  if (spec.data.scaling != Scaling::kAuto) return spec.data.scaling;
  if (!PrivateRun(spec)) {
    return raw_units ? Scaling::kStandardize : Scaling::kGlobalMaxNorm;
  }
  const bool bounds = !spec.data.feature_bounds_path.empty() || !spec.data.feature_range.empty();
  return bounds ? Scaling::kPublicBounds : Scaling::kClipOnly;
}

std::vector<double> SetupReleaseEpsilons(const RunSpec& spec) {
  const Scaling scaling = EffectiveScaling(spec);
  std::vector<double> out;
  if (scaling == Scaling::kDpBounds ||
      (scaling == Scaling::kDpStandardize && spec.data.bounds_epsilon > 0.0)) {
    out.push_back(MakeBoundsMechanism(spec.data.bounds_epsilon, 1).epsilon);
  }
  if (scaling == Scaling::kDpStandardize) {
    out.push_back(MakeStandardizeMechanism(spec.data.standardize_epsilon, 1).epsilon);
  }
  return out;
}

// target_epsilon > 0 (tools/calibration.h): an algorithm with a knob to calibrate, set up
// as a private run (its data preparation depends on it) and with nothing else that decides the
// spending (per-node alphas, budgets).
static void ValidateTargetEpsilon(const RunSpec& spec) {
  const Algorithm algorithm = spec.algorithm.name();
  const std::string name = ChoiceName(algorithm);
  const std::string prefix = "algorithm." + name + ".";
  switch (algorithm) {
    case Algorithm::kPvp:
      if (spec.algorithm.As<PvpParams>().gaussian()) {
        if (spec.algorithm.privacy_budget > 0.0 || !spec.algorithm.node_privacy_budget.empty()) {
          Bad("algorithm.privacy_budget", "0 with target_epsilon", spec.algorithm.privacy_budget);
        }
        return;  // noise_multiplier > 0 is the calibration's start (PvpParams::Validate)
      }
      [[fallthrough]];
    case Algorithm::kDvp:
    case Algorithm::kMadmm:
    case Algorithm::kPrivateMradmm: {
      const double alpha = *spec.algorithm.Field<double>("alpha");
      if (!(alpha > 0.0)) {
        Bad(prefix + "alpha",
            "> 0 with target_epsilon (the calibration's starting point; the run is private)",
            alpha);
      }
      if (!spec.algorithm.Field<std::vector<double>>("node_alpha")->empty()) {
        Bad(prefix + "node_alpha", "empty with target_epsilon (one alpha is calibrated)",
            "per-node values");
      }
      if (spec.algorithm.privacy_budget > 0.0 || !spec.algorithm.node_privacy_budget.empty()) {
        Bad("algorithm.privacy_budget",
            "0 with target_epsilon (the calibrated run spends the target; a budget would freeze "
            "nodes earlier)",
            spec.algorithm.privacy_budget);
      }
      return;
    }
    case Algorithm::kPdml: {
      const PdmlParams& p = spec.algorithm.As<PdmlParams>();
      if (!(p.V > 0.0)) {
        Bad(prefix + "V",
            "> 0 with target_epsilon (the calibration's starting point: Phase 2's primal noise "
            "is the calibrated knob)",
            p.V);
      }
      return;
    }
    case Algorithm::kLocal:
    case Algorithm::kAverage:
    case Algorithm::kCentral: {
      // The calibration sets epsilon itself; the run's tight figure is at kTightDelta, which the
      // Gaussian mechanism's delta must then be.
      const auto* delta = spec.algorithm.Field<double>("delta");
      const auto* mechanism = spec.algorithm.Field<std::string>("mechanism");
      if (*mechanism == "gaussian" && *delta != kTightDelta) {
        Bad(prefix + "delta",
            "1e-5 with target_epsilon and the gaussian mechanism (the run's tight figure is "
            "at delta 1e-5)",
            *delta);
      }
      return;
    }
    case Algorithm::kSharing: {
      const SharingParams& p = spec.algorithm.As<SharingParams>();
      if (!p.dp) Bad(prefix + "dp", "true with target_epsilon", "false");
      if (p.mechanism != "gaussian") {
        Bad(prefix + "mechanism",
            "\"gaussian\" with target_epsilon (\"paper16\" is not DP as stated)", p.mechanism);
      }
      if (p.noise_sigma > 0.0) {
        Bad(prefix + "noise_sigma", "0 with target_epsilon (sigma is calibrated)", p.noise_sigma);
      }
      return;
    }
    default:
      Bad("target_epsilon",
          "0 for algorithm '" + name + "' (not private; calibrated: dvp, pvp, madmm, " +
              "private_mradmm, pdml, sharing, local, average, central)",
          spec.target_epsilon);
  }
}

void ValidateSpec(const RunSpec& spec, bool check_data_source) {
  ValidateData(spec.data, check_data_source);
  ValidatePreprocessing(spec);
  const Algorithm algorithm = spec.algorithm.name();
  const std::string prefix = std::string("algorithm.") + ChoiceName(algorithm) + ".";
  int nodes = -1;
  if (spec.family() == Family::kConsensus) {
    ValidateGraph(spec.graph, spec.partition);
    if (spec.loss.kind == LossKind::kSmoothHinge) Positive("loss.huber_h", spec.loss.huber_h);
    nodes = spec.graph.topology == Topology::kFile ? -1 : spec.graph.nodes;
    ValidateConsensusShared(spec, nodes);
    spec.newton.Validate();
    // The private variants' proofs assume the exact minimiser of the perturbed local problem:
    // their local solves are held to a pinned tolerance (a round that misses it fails the run).
    // PDML: its Phase 2 figure (primal noise V > 0) rests on the exact minimiser too.
    const bool exact_minimiser = algorithm == Algorithm::kPdml
                                     ? spec.algorithm.As<PdmlParams>().V > 0.0
                                     : UsesPrivacyMechanism(spec);
    if (exact_minimiser && spec.newton.gradient_tolerance > kPrivateNewtonTolerance) {
      Bad("newton.gradient_tolerance",
          "<= " + std::string("1e-8") +
              " for a private algorithm (its privacy proof assumes the exact minimiser)",
          spec.newton.gradient_tolerance);
    }
    // The budget is counted in the papers' per-round pure-epsilon terms; Gaussian releases have
    // none (their figure is the accountant's composition, set by noise_multiplier).
    if (algorithm == Algorithm::kPvp && spec.algorithm.As<PvpParams>().gaussian() &&
        (spec.algorithm.privacy_budget > 0.0 || !spec.algorithm.node_privacy_budget.empty())) {
      Bad("algorithm.privacy_budget",
          "0 for pvp with mechanism \"gaussian\" (the budget counts per-round pure-epsilon "
          "terms; set the total with target_epsilon or noise_multiplier)",
          spec.algorithm.privacy_budget);
    }
    if (spec.metrics_every < 0) Bad("eval_every", ">= 0", spec.metrics_every);
    NonNegative("tolerance", spec.tolerance);
  } else {
    ValidateSharingShared(spec);
  }
  std::visit([&](const auto& p) { p.Validate(prefix, nodes); }, spec.algorithm.params);
  if (spec.iterations < 0) Bad("iterations", ">= 0", spec.iterations);
  NonNegative("target_epsilon", spec.target_epsilon, " (0 = no calibration)");
  if (spec.target_epsilon > 0.0) ValidateTargetEpsilon(spec);
  if (spec.threads < 0) Bad("threads", ">= 0 (0 = all cores)", spec.threads);
}

void RunSpec::Validate() const { ValidateSpec(*this, true); }

}  // namespace dpadmm
