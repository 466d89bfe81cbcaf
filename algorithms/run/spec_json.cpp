// SPDX-License-Identifier: Apache-2.0
#include "dpadmm/run/spec_json.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string_view>
#include <type_traits>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/charconv_compat.h"
#include "dpadmm/core/error.h"

namespace dpadmm {
namespace {

using Json = nlohmann::json;                 // what we read (key order irrelevant)
using OrderedJson = nlohmann::ordered_json;  // what we write (fields in declaration order)

// A count where 0 means "auto" (written and read as the string "auto").
template <class Int>
struct AutoCount {
  Int* value;
};

// The one list of spec fields, shared by reading and writing so the two cannot drift apart.
// `group` is the nested object holding the field ("" for top-level fields, "algorithm.dvp" for
// the selected algorithm's parameters). Spec is RunSpec or const RunSpec. `all` visits every
// field; otherwise only those of the spec's family (what the writer emits).
template <class Spec, class Visitor>
void VisitSpecFields(Spec& s, Visitor&& v, bool all) {
  const bool consensus = all || s.family() == Family::kConsensus;
  v("data", "source", s.data.source);
  v("data", "train_path", s.data.train_path);
  v("data", "test_path", s.data.test_path);
  v("data", "train_labels_path", s.data.train_labels_path);
  v("data", "test_labels_path", s.data.test_labels_path);
  v("data", "num_features", s.data.num_features);
  v("data", "label_column", s.data.label_column);
  v("data", "delimiter", s.data.delimiter);
  v("data", "has_header", s.data.has_header);
  v("data", "rows", s.data.rows);
  v("data", "dims", s.data.dims);
  v("data", "sparse_informative", s.data.sparse_informative);
  v("data", "sparse_nnz_per_row", s.data.sparse_nnz_per_row);
  v("data", "sparse_flip_probability", s.data.sparse_flip_probability);
  v("data", "test_fraction", s.data.test_fraction);
  v("data", "normalize", s.data.normalize);
  v("data", "scaling", s.data.scaling);
  v("data", "feature_bounds_path", s.data.feature_bounds_path);
  v("data", "feature_range", s.data.feature_range);
  v("data", "bounds_epsilon", s.data.bounds_epsilon);
  v("data", "standardize_epsilon", s.data.standardize_epsilon);
  v("data", "add_bias", s.data.add_bias);

  if (consensus) {
    v("graph", "topology", s.graph.topology);
    v("graph", "nodes", s.graph.nodes);
    v("graph", "edges",
      AutoCount<std::remove_reference_t<decltype((s.graph.edges))>>{&s.graph.edges});
    v("graph", "grid_rows", s.graph.grid_rows);
    v("graph", "file", s.graph.file);

    v("partition", "kind", s.partition.kind);
    v("partition", "proportions", s.partition.proportions);
    v("partition", "dirichlet_alpha", s.partition.dirichlet_alpha);
    v("partition", "file", s.partition.file);
    v("partition", "public_rows", s.partition.public_rows);

    v("loss", "kind", s.loss.kind);
    v("loss", "huber_h", s.loss.huber_h);
  }

  // algorithm.name is read before the others (it selects the parameter struct): see ApplySpecJson.
  v("algorithm", "name", s.algorithm);
  if (consensus) {
    v("algorithm", "C", s.algorithm.C);
    v("algorithm", "rho", s.algorithm.rho);
    v("algorithm", "rho_per_node", s.algorithm.rho_per_node);
    v("algorithm", "eta", s.algorithm.eta);
    v("algorithm", "random_start", s.algorithm.random_start);
    v("algorithm", "weighting", s.algorithm.weighting);
    v("algorithm", "gossip_rounds", s.algorithm.gossip_rounds);
    v("algorithm", "node_eta", s.algorithm.node_eta);
    v("algorithm", "privacy_budget", s.algorithm.privacy_budget);
    v("algorithm", "node_privacy_budget", s.algorithm.node_privacy_budget);
  }
  std::visit(
      [&](auto& p) {
        using P = std::decay_t<decltype(p)>;
        const std::string group = std::string("algorithm.") + ChoiceName(P::kAlgorithm);
        P::Visit(p, [&](const char* key, auto& value) { v(group.c_str(), key, value); });
      },
      s.algorithm.params);

  if (consensus) {
    v("newton", "max_iterations", s.newton.max_iterations);
    v("newton", "gradient_tolerance", s.newton.gradient_tolerance);
    v("newton", "armijo_c", s.newton.armijo_c);
    v("newton", "backtrack", s.newton.backtrack);
    v("newton", "max_backtracks", s.newton.max_backtracks);
    v("newton", "dense_hessian_max_dim", s.newton.dense_hessian_max_dim);
    v("newton", "max_cg_iterations", s.newton.max_cg_iterations);
  }

  v("", "iterations", s.iterations);
  v("", "seed", s.seed);
  // Absent (or null): private mode. Set: simulation mode (reproducible noise, not private).
  v("", "noise_seed", s.noise_seed);
  v("", "engine", s.engine);
  v("", "threads", s.threads);
  v("", "compute_optimum", s.compute_optimum);
  v("", "metrics", s.metrics);
  v("", "target_epsilon", s.target_epsilon);  // 0 = the knob as given (no calibration)
  v("", "epsilon_policy", s.epsilon_policy);  // with target_epsilon: settings from epsilon
  if (consensus) {
    v("", "tolerance", s.tolerance);
    v("", "eval_every", s.metrics_every);  // older specs: "metrics_every" (SpecReader)
  }
}

// Visits the trace columns of `family` (TraceColumns) with their values in `m`.
template <class Visitor>
void VisitMetrics(const RoundMetrics& m, Family family, Visitor&& v) {
  for (const TraceColumn& c : TraceColumns()) {
    if (!c.In(family)) continue;
    if (c.integer != nullptr) {
      v(c.name, m.*c.integer);
    } else if (c.scalar != nullptr) {
      v(c.name, m.*c.scalar);
    } else {
      v(c.name, m.*c.per_node);
    }
  }
}

// Fields of schema 1 (the configs of the separate consensus and sharing commands) and what
// replaced them, so that an old config fails with a message saying what to write instead.
struct Renamed {
  const char* old_path;
  const char* replacement;
};
constexpr Renamed kSchema1Fields[] = {
    {"algorithm.alpha", "algorithm.<name>.alpha (dvp, pvp, madmm, private_mradmm)"},
    {"algorithm.q1", "algorithm.<name>.q1 (madmm, mradmm, private_mradmm)"},
    {"algorithm.q2", "algorithm.<name>.q2 (dvp, pvp, madmm, private_mradmm)"},
    {"algorithm.gamma", "algorithm.<name>.gamma (radmm, mradmm, private_mradmm)"},
    {"algorithm.dual_step", "algorithm.madmm.dual_step"},
    {"algorithm.node_alpha", "algorithm.<name>.node_alpha (dvp, pvp, madmm, private_mradmm)"},
    {"algorithm.node_q1", "algorithm.<name>.node_q1 (madmm, mradmm, private_mradmm)"},
    {"algorithm.node_q2", "algorithm.<name>.node_q2 (dvp, pvp, madmm, private_mradmm)"},
    {"algorithm.label_eps", "algorithm.pdml.label_eps"},
    {"algorithm.label_eps_groups", "algorithm.pdml.label_eps_groups"},
    {"algorithm.label_eps_shares", "algorithm.pdml.label_eps_shares"},
    {"algorithm.pdml_R", "algorithm.pdml.R"},
    {"algorithm.pdml_V", "algorithm.pdml.V"},
    {"algorithm.pdml_decay", "algorithm.pdml.decay"},
    {"sparse_informative", "data.sparse_informative"},
    {"sparse_nnz_per_row", "data.sparse_nnz_per_row"},
    {"sparse_flip_probability", "data.sparse_flip_probability"},
    {"parties", "algorithm.sharing.parties (or algorithm.sgd.parties)"},
    {"party_features", "algorithm.sharing.party_features (or algorithm.sgd.party_features)"},
    {"lambda", "algorithm.sharing.lambda (or algorithm.sgd.lambda)"},
    {"rho", "algorithm.sharing.rho (the ADMM sharing penalty)"},
    {"epochs", "iterations"},
    {"z_tolerance", "algorithm.sharing.z_tolerance"},
    {"z_max_iterations", "algorithm.sharing.z_max_iterations"},
    {"dp", "algorithm.sharing.dp"},
    {"epsilon", "algorithm.sharing.epsilon"},
    {"noise_sigma", "algorithm.sharing.noise_sigma"},
    {"delta", "algorithm.sharing.delta"},
    {"delta_prime", "algorithm.sharing.delta_prime"},
    {"b1", "algorithm.sharing.b1"},
    {"c1", "algorithm.sharing.c1"},
    {"learning_rate", "algorithm.sgd.learning_rate"},
    {"lr_decay", "algorithm.sgd.lr_decay"},
    {"batch_size", "algorithm.sgd.batch_size"},
    {"sgd_init_sd", "algorithm.sgd.init_sd"},
    {"compute_baselines", "compute_optimum"},
};

std::string FieldPath(std::string_view group, std::string_view key) {
  return group.empty() ? std::string(key) : std::string(group) + "." + std::string(key);
}

// ---------------------------------------------------------------------------------------------
// Reading

// The older name of the root field "eval_every", still read.
constexpr const char* kOldEvalEvery = "metrics_every";

class SpecReader {
  using KnownFields = std::map<std::string, std::set<std::string>>;

 public:
  SpecReader(const Json& root, const std::string& where) : root_(root), where_(where) {}

  [[noreturn]] void Fail(const std::string& message) const {
    throw InputError(where_.empty() ? message : where_ + ": " + message);
  }
  [[noreturn]] void WrongType(const std::string& path, const char* expected,
                              const Json& got) const {
    std::string shown = got.type_name();
    // For numbers the value says more than the type ("got 2.5", "got -1").
    if (got.is_number()) shown = got.dump();
    Fail(path + " must be " + expected + ", got " + shown);
  }

  // Rejects unknown keys (naming their full path), schema-1 fields (naming what replaced
  // them) and non-object groups, before any value is read, so that a misspelt key is reported
  // as such and not as a missing value.
  void CheckKeys() const {
    if (!root_.is_object()) {
      Fail(std::string("the spec must be a JSON object, got ") + root_.type_name());
    }
    if (const auto it = root_.find("schema"); it != root_.end()) {
      if (!it->is_number_integer() || it->get<std::int64_t>() != kSpecSchema) {
        Fail("schema must be " + std::to_string(kSpecSchema) +
             " (this version's spec format), "
             "got " +
             it->dump());
      }
    }
    if (const auto it = root_.find("algorithm"); it != root_.end() && it->is_string()) {
      Fail(
          "algorithm: a string is the schema-1 shape of 'dpadmm sharing'; schema 2 writes "
          "{\"algorithm\": {\"name\": \"sharing\"}} (old 'admm' is now 'sharing', 'sgd' stays)");
    }
    Walk(root_, "", Known());
  }

  // Group path -> keys of every algorithm's spec: the same for every parse, so built once (it
  // was two thirds of a spec parse's instructions when built per call).
  static const KnownFields& Known() {
    static const KnownFields known = [] {
      KnownFields out;
      for (const Choice<Algorithm>& c : Choices<Algorithm>()) {
        RunSpec defaults = RunSpec::Defaults(c.value);
        VisitSpecFields(
            defaults, [&](const char* group, const char* key, auto&&) { out[group].insert(key); },
            true);
      }
      return out;
    }();
    return known;
  }

  // Visitor for VisitSpecFields: reads the field if present.
  template <class T>
  void operator()(const char* group, const char* key, T&& value) const {
    const Json* object = Find(group);
    if (object == nullptr) return;
    const auto it = object->find(key);
    if (it == object->end()) {
      // "eval_every" was called "metrics_every" before; both are read, one at a time.
      if (*group == '\0' && std::string_view(key) == "eval_every") {
        const auto old = object->find(kOldEvalEvery);
        if (old != object->end()) Read(*old, kOldEvalEvery, value);
      }
      return;
    }
    if (*group == '\0' && std::string_view(key) == "eval_every" &&
        object->find(kOldEvalEvery) != object->end()) {
      Fail(
          "eval_every and metrics_every are one field (metrics_every is its older name): give "
          "one of them");
    }
    Read(*it, FieldPath(group, key), value);
  }

  // The object at dotted `group` ("" = the root), or nullptr.
  const Json* Find(const std::string& group) const {
    const Json* object = &root_;
    std::size_t start = 0;
    while (start < group.size()) {
      const std::size_t dot = std::min(group.find('.', start), group.size());
      const auto it = object->find(group.substr(start, dot - start));
      if (it == object->end() || !it->is_object()) return nullptr;
      object = &*it;
      start = dot + 1;
    }
    return object;
  }

 private:
  void Walk(const Json& object, const std::string& group, const KnownFields& known) const {
    const auto& keys = known.at(group);
    for (const auto& item : object.items()) {
      const std::string& key = item.key();
      const std::string path = FieldPath(group, key);
      if (keys.count(key) > 0) continue;
      if (group.empty() && key == kOldEvalEvery && keys.count("eval_every") > 0) continue;
      for (const Renamed& r : kSchema1Fields) {
        if (path == r.old_path) {
          Fail("'" + path + "' is a schema-1 field; schema " + std::to_string(kSpecSchema) +
               " replaced it by '" + r.replacement + "'");
        }
      }
      if (group.empty() && key == "schema") continue;
      const auto sub = known.find(path);
      if (sub == known.end() || key.empty()) Unknown(path, group, known);
      if (!item.value().is_object()) WrongType(path, "an object", item.value());
      Walk(item.value(), path, known);
    }
  }

  [[noreturn]] void Unknown(const std::string& path, const std::string& group,
                            const KnownFields& known) const {
    std::string list;
    for (const auto& k : known.at(group)) list += (list.empty() ? "" : ", ") + k;
    const std::string prefix = group.empty() ? "" : group + ".";
    for (const auto& [g, unused] : known) {
      if (g.size() > prefix.size() && g.compare(0, prefix.size(), prefix) == 0 &&
          g.find('.', prefix.size()) == std::string::npos) {
        list += ", " + g.substr(prefix.size());
      }
    }
    Fail("unknown field '" + path + "' (known here: " + list + ")");
  }

  void Read(const Json& j, const std::string& path, std::string& out) const {
    if (!j.is_string()) WrongType(path, "a string", j);
    out = j.get<std::string>();
  }
  void Read(const Json& j, const std::string& path, bool& out) const {
    if (!j.is_boolean()) WrongType(path, "true or false", j);
    out = j.get<bool>();
  }
  void Read(const Json& j, const std::string& path, double& out) const {
    if (!j.is_number()) WrongType(path, "a number", j);
    out = j.get<double>();
  }
  void Read(const Json& j, const std::string& path, int& out) const {
    std::int64_t v = 0;
    Read(j, path, v);
    if (v < std::numeric_limits<int>::min() || v > std::numeric_limits<int>::max()) {
      WrongType(path, "an integer in the range of int", j);
    }
    out = static_cast<int>(v);
  }
  void Read(const Json& j, const std::string& path, std::int64_t& out) const {
    if (!j.is_number_integer()) WrongType(path, "an integer", j);
    constexpr auto kMax = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
    if (j.is_number_unsigned() && j.get<std::uint64_t>() > kMax) {
      WrongType(path, "an integer in the range of int64", j);
    }
    out = j.get<std::int64_t>();
  }
  void Read(const Json& j, const std::string& path, std::uint64_t& out) const {
    // nlohmann stores non-negative integer literals as unsigned; negative ones as signed.
    if (!j.is_number_unsigned()) WrongType(path, "a non-negative integer (uint64)", j);
    out = j.get<std::uint64_t>();
  }
  void Read(const Json& j, const std::string& path, std::optional<std::uint64_t>& out) const {
    if (j.is_null()) {
      out.reset();
      return;
    }
    std::uint64_t v = 0;
    Read(j, path, v);
    out = v;
  }
  void Read(const Json& j, const std::string& path, char& out) const {
    if (!j.is_string()) WrongType(path, "a one-character string", j);
    const std::string s = j.get<std::string>();
    if (s.size() != 1) Fail(path + " must be a one-character string, got '" + s + "'");
    out = s[0];
  }
  void Read(const Json& j, const std::string& path, std::vector<double>& out) const {
    if (!j.is_array()) WrongType(path, "an array of numbers", j);
    std::vector<double> values;
    values.reserve(j.size());
    for (std::size_t k = 0; k < j.size(); ++k) {
      double v = 0.0;
      Read(j[k], path + "[" + std::to_string(k) + "]", v);
      values.push_back(v);
    }
    out = std::move(values);
  }
  void Read(const Json& j, const std::string& path, std::vector<std::int64_t>& out) const {
    if (!j.is_array()) WrongType(path, "an array of integers", j);
    std::vector<std::int64_t> values;
    for (std::size_t k = 0; k < j.size(); ++k) {
      std::int64_t v = 0;
      Read(j[k], path + "[" + std::to_string(k) + "]", v);
      values.push_back(v);
    }
    out = std::move(values);
  }
  // A choice: one of the names of its table.
  template <class E>
  requires std::is_enum_v<E>
  void Read(const Json& j, const std::string& path, E& out) const {
    if (!j.is_string()) WrongType(path, ("one of " + ChoiceList<E>(", ")).c_str(), j);
    try {
      out = ParseChoice<E>(j.get<std::string>(), path);
    } catch (const InputError& e) {
      Fail(e.what());
    }
  }
  void Read(const Json& j, const std::string& path, AlgorithmSpec& out) const {
    Algorithm a = out.name();
    Read(j, path, a);
    out.Select(a);
  }
  void Read(const Json& j, const std::string& path, AutoCount<int> out) const {
    if (j.is_string() && j.get<std::string>() == "auto") {
      *out.value = 0;
      return;
    }
    if (!j.is_number_integer()) WrongType(path, "an integer or \"auto\"", j);
    Read(j, path, *out.value);
    if (*out.value == 0) Fail(path + " must be >= 1 or \"auto\", got 0");
  }

  const Json& root_;
  const std::string& where_;
};

// "where:LINE: JSON syntax error at column C (byte B): reason" from nlohmann's parse_error.
[[noreturn]] void ThrowSyntaxError(const std::string& text, const std::string& where,
                                   const Json::parse_error& e) {
  const std::size_t byte = std::min<std::size_t>(e.byte, text.size() + 1);
  long long line = 1;
  std::size_t line_start = 0;  // 0-based index of the first character of the error's line
  for (std::size_t k = 0; k + 1 < byte && k < text.size(); ++k) {
    if (text[k] == '\n') {
      ++line;
      line_start = k + 1;
    }
  }
  const std::size_t column = byte > line_start ? byte - line_start : 1;
  // nlohmann's message is "[json.exception.parse_error.101] parse error at line L, column C:
  // <reason>"; keep the reason only (we say where ourselves).
  std::string reason = e.what();
  const std::size_t pe = reason.find("parse error");
  if (pe != std::string::npos) {
    const std::size_t colon = reason.find(": ", pe);
    if (colon != std::string::npos) reason = reason.substr(colon + 2);
  }
  ThrowAt(where.empty() ? std::string("JSON") : where, line,
          "JSON syntax error at column " + std::to_string(column) + " (byte " +
              std::to_string(e.byte) + "): " + reason);
}

// ---------------------------------------------------------------------------------------------
// Writing

OrderedJson ToJsonValue(const std::string& v) { return v; }
OrderedJson ToJsonValue(bool v) { return v; }
OrderedJson ToJsonValue(double v) { return v; }  // NaN/Inf are dumped as null
OrderedJson ToJsonValue(int v) { return v; }
OrderedJson ToJsonValue(std::int64_t v) { return v; }
OrderedJson ToJsonValue(std::uint64_t v) { return v; }
OrderedJson ToJsonValue(char v) { return std::string(1, v); }
OrderedJson ToJsonValue(const std::optional<std::uint64_t>& v) {
  return v ? OrderedJson(*v) : OrderedJson(nullptr);
}
template <class E>
requires std::is_enum_v<E> OrderedJson ToJsonValue(E v) { return ChoiceName(v); }
OrderedJson ToJsonValue(const AlgorithmSpec& a) { return ChoiceName(a.name()); }
OrderedJson ToJsonValue(AutoCount<const int> v) {
  return *v.value == 0 ? OrderedJson("auto") : OrderedJson(*v.value);
}
template <class T>
OrderedJson ToJsonValue(const std::vector<T>& v) {
  OrderedJson a = OrderedJson::array();
  for (const T& x : v) a.push_back(ToJsonValue(x));
  return a;
}

OrderedJson MetricsObject(const RoundMetrics& m, Family family) {
  OrderedJson o = OrderedJson::object();
  VisitMetrics(m, family,
               [&](const char* name, const auto& value) { o[name] = ToJsonValue(value); });
  return o;
}

OrderedJson BaselineObject(const Baseline& b) {
  if (!b.computed) return nullptr;
  OrderedJson j = OrderedJson::object();
  j["objective"] = b.objective;
  j["train_loss"] = b.train_loss;
  j["test_loss"] = b.test_loss;
  j["test_error"] = b.test_error;
  return j;
}

OrderedJson InfoObject(const RunInfo& info) {
  OrderedJson o = OrderedJson::object();
  o["family"] = ChoiceName(info.family);
  o["algorithm"] = ChoiceName(info.algorithm);
  o["dataset"] = info.dataset;
  o["train_rows"] = info.train_rows;
  o["test_rows"] = info.test_rows;
  o["features"] = info.features;
  o["sparse"] = info.sparse;
  o["scaling"] = ChoiceName(info.scaling);
  o["normalization_factor"] = info.normalization_factor;
  o["max_row_norm_before"] = info.max_row_norm_before;
  if (info.scaling == Scaling::kDpBounds || info.dp_bounds.epsilon > 0.0) {
    // Released values (post-processing of the nodes' DP histograms): public.
    OrderedJson b = OrderedJson::object();
    b["epsilon_per_node"] = info.dp_bounds.epsilon;
    b["threshold"] = info.dp_bounds.threshold;
    b["fallback_features"] = info.dp_bounds.fallback_features;
    b["lo"] = ToJsonValue(info.dp_bounds.lo);
    b["hi"] = ToJsonValue(info.dp_bounds.hi);
    o["dp_bounds"] = std::move(b);
  }
  if (info.scaling == Scaling::kStandardize || info.scaling == Scaling::kDpStandardize) {
    // standardize: the training rows' statistics (a private evaluation, in non-private and
    // simulation runs only); dp-standardize: post-processing of the nodes' releases (public).
    OrderedJson b = OrderedJson::object();
    if (info.scaling == Scaling::kDpStandardize) {
      b["epsilon_per_node"] = info.standardization.epsilon;
      b["variance_floor"] = info.standardization.variance_floor;
      b["floored_features"] = info.standardization.floored_features;
    }
    b["mean"] = ToJsonValue(info.standardization.mean);
    b["scale"] = ToJsonValue(info.standardization.scale);
    o["standardization"] = std::move(b);
  }
  o["metrics"] = ChoiceName(info.metrics);
  if (!info.evaluation.empty()) {
    OrderedJson e = OrderedJson::object();
    e["note"] = kPrivateEvaluationLabel;
    e["figures"] = ToJsonValue(info.evaluation);
    o["evaluation_on_private_data"] = std::move(e);
  }
  o["test_majority_rate"] = info.test_majority_rate;
  // A party of a network run: the network engine, and which party this summary is (its nodes
  // on info.party.engine).
  const bool party = !info.party.id.empty();
  o["engine"] = !info.on_engine ? "none (in-process loop)"
                : party         ? "network"
                                : ChoiceName(info.engine);
  o["threads"] = info.threads;
  if (party) {
    OrderedJson p = OrderedJson::object();
    p["id"] = info.party.id;
    p["index"] = info.party.index;
    p["parties"] = info.party.parties;
    p["nodes"] = info.party.nodes;
    p["engine"] = ChoiceName(info.engine);
    o["party"] = std::move(p);
  }
  o["privacy_guarantee"] = info.privacy_guarantee;
  if (!info.privacy_claim.empty()) o["privacy_claim"] = info.privacy_claim;
  if (!info.epsilon_policy.empty()) o["epsilon_policy"] = info.epsilon_policy;
  if (!info.calibrated_knob.empty()) {
    // target_epsilon: the knob the calibration set (tools/calibration.h).
    OrderedJson c = OrderedJson::object();
    c["knob"] = info.calibrated_knob;
    c["value"] = info.calibrated_value;
    c["tight_epsilon"] = info.calibrated_epsilon;
    c["delta"] = info.calibrated_delta;
    o["calibration"] = std::move(c);
  }
  if (info.family == Family::kConsensus) {
    o["loss"] = info.loss;
    o["nodes"] = info.nodes;
    o["edges"] = info.edges;
    o["rows_per_node"] = ToJsonValue(info.rows_per_node);
    o["optimum_objective"] = info.optimum_objective;
    o["optimum_test_error"] = info.optimum_test_error;
    o["optimum_note"] = info.optimum_note;
    o["test_error_of"] = info.test_error_of;
    if (!info.baseline.empty()) {
      o["baseline"] = info.baseline;
      o["trusted_curator"] = info.trusted_curator;
    }
  } else {
    o["party_features"] = ToJsonValue(info.party_features);
    o["party_offsets"] = ToJsonValue(info.party_offsets);
    o["party_max_row_norm"] = ToJsonValue(info.party_max_row_norm);
    o["dp"] = info.dp;
    if (info.dp) {
      OrderedJson p = OrderedJson::object();
      p["mechanism"] = info.sharing_mechanism;
      p["accounting"] = info.sharing_mechanism == "paper16"
                            ? "001 Theorem 3 / Corollary 1 (paper's figure; not DP as stated: "
                              "releases lie in col(D_m))"
                            : "tight: analytic Gaussian, mu^2 summed over iterations";
      p["epsilon_per_iteration"] = info.epsilon;
      p["delta_per_iteration"] = info.delta;
      p["delta_prime"] = info.delta_prime;
      p["assumption_b1"] = info.b1;
      p["assumption_c1"] = info.c1;
      p["party_sensitivity"] = ToJsonValue(info.party_sensitivity);
      p["party_sigma"] = ToJsonValue(info.party_sigma);
      p["party_epsilon"] = ToJsonValue(info.party_epsilon);
      p["party_epsilon_total"] = ToJsonValue(info.party_epsilon_total);
      p["party_gram_rank"] = ToJsonValue(info.party_gram_rank);
      o["privacy"] = std::move(p);
    }
    o["central_baseline"] = BaselineObject(info.central);
    o["local_baseline"] = BaselineObject(info.local);
  }
  return o;
}

void AppendNumber(std::string& out, double v) { detail::AppendShortest(out, v); }
void AppendNumber(std::string& out, std::int64_t v) { out += std::to_string(v); }

// Parses a JSON document (comments allowed). Syntax errors and numbers beyond the double range
// ({"eta": 1e999}) are InputErrors naming `where`.
Json ParseJsonText(const std::string& json_text, const std::string& where) {
  try {
    return Json::parse(json_text, /*cb=*/nullptr, /*allow_exceptions=*/true,
                       /*ignore_comments=*/true);
  } catch (const Json::parse_error& e) {
    ThrowSyntaxError(json_text, where, e);
  } catch (const Json::out_of_range& e) {
    throw InputError((where.empty() ? std::string("JSON") : where) +
                     ": a number is outside the range of a double (" + e.what() + ")");
  }
}

void ApplySpecRoot(const Json& root, const std::string& where, RunSpec& spec) {
  const SpecReader reader(root, where);
  reader.CheckKeys();
  RunSpec updated = spec;  // all or nothing: `spec` is untouched if a field is bad
  VisitSpecFields(updated, reader, true);
  // Parameters of an algorithm other than the selected one would be silently ignored.
  if (const Json* algorithm = reader.Find("algorithm"); algorithm != nullptr) {
    for (const Choice<Algorithm>& c : Choices<Algorithm>()) {
      if (c.value != updated.algorithm.name() && algorithm->contains(c.name)) {
        reader.Fail(std::string("algorithm.") + c.name + " holds the parameters of '" + c.name +
                    "' but algorithm.name is '" + ChoiceName(updated.algorithm.name()) + "'");
      }
    }
  }
  spec = std::move(updated);
}

std::optional<Algorithm> PeekAlgorithmRoot(const Json& root, const std::string& where) {
  const auto algorithm = root.is_object() ? root.find("algorithm") : root.end();
  if (!root.is_object() || algorithm == root.end() || !algorithm->is_object()) return std::nullopt;
  const auto name = algorithm->find("name");
  if (name == algorithm->end() || !name->is_string()) return std::nullopt;
  try {
    return ParseChoice<Algorithm>(name->get<std::string>(), "algorithm.name");
  } catch (const InputError& e) {
    throw InputError((where.empty() ? "" : where + ": ") + e.what());
  }
}

}  // namespace

void ApplySpecJson(const std::string& json_text, const std::string& where, RunSpec& spec) {
  ApplySpecRoot(ParseJsonText(json_text, where), where, spec);
}

std::optional<Algorithm> PeekAlgorithm(const std::string& json_text, const std::string& where) {
  return PeekAlgorithmRoot(ParseJsonText(json_text, where), where);
}

RunSpec SpecFromJson(const std::string& json_text, const std::string& where) {
  const Json root = ParseJsonText(json_text, where);
  RunSpec spec = RunSpec::Defaults(PeekAlgorithmRoot(root, where).value_or(Algorithm::kAdmm));
  ApplySpecRoot(root, where, spec);
  return spec;
}

std::string SpecToJson(const RunSpec& spec) {
  OrderedJson out = OrderedJson::object();
  out["schema"] = kSpecSchema;
  VisitSpecFields(
      spec,
      [&](const char* group, const char* key, const auto& value) {
        using T = std::decay_t<decltype(value)>;
        if constexpr (std::is_same_v<T, std::optional<std::uint64_t>>) {
          if (!value) return;  // an unset optional field is written as absent
        }
        OrderedJson* target = &out;
        std::string g = group;
        std::size_t start = 0;
        while (start < g.size()) {
          const std::size_t dot = std::min(g.find('.', start), g.size());
          target = &(*target)[g.substr(start, dot - start)];
          start = dot + 1;
        }
        (*target)[key] = ToJsonValue(value);
      },
      false);
  return out.dump(2);
}

const char* NoiseLabel(const RunInfo& info) {
  if (!info.noisy) return "no noise: the algorithm is not private";
  return info.noise_mode == NoiseMode::kSimulation
             ? "simulation: noise reproducible from the seed"
             : "private: noise keys from the operating system, not stored";
}

const char* NoiseModeName(const RunInfo& info) {
  return info.noisy ? ChoiceName(info.noise_mode) : "none";
}

std::string RunInfoToJson(const RunInfo& info) { return InfoObject(info).dump(2); }

std::string SummaryToJson(const RunSummary& summary) {
  OrderedJson o = OrderedJson::object();
  o["schema"] = kSpecSchema;
  o["outcome"] = ToString(summary.outcome);
  o["message"] = summary.message;
  o["noise_mode"] = NoiseModeName(summary.info);
  o["noise"] = NoiseLabel(summary.info);
  o["rounds"] = summary.rounds;
  o["seconds"] = summary.seconds;
  o["seconds_per_round"] = summary.seconds_per_round;
  o["final"] = MetricsObject(summary.final, summary.info.family);
  o["info"] = InfoObject(summary.info);
  if (summary.info.family == Family::kSharing && summary.info.dp) {
    // The run's totals next to the assumptions they rest on.
    OrderedJson& p = o["info"]["privacy"];
    p["epsilon_total"] = summary.final.epsilon_total;
    p["delta_total"] = summary.final.delta_total;
    p["observed_max_x_norm"] = summary.final.max_x_norm;
    p["observed_y_norm"] = summary.final.y_norm;
  }
  OrderedJson model = OrderedJson::array();
  for (Eigen::Index k = 0; k < summary.model.size(); ++k) model.push_back(summary.model[k]);
  o["model"] = std::move(model);
  if (!summary.node_frozen_round.empty()) {
    o["node_frozen_round"] = ToJsonValue(summary.node_frozen_round);
  }
  if (!summary.node_tight_epsilon.empty()) {
    // The paper's figure per node is final.node_privacy; the tight one sits beside it.
    OrderedJson t = OrderedJson::object();
    t["epsilon"] = summary.tight_epsilon;
    t["delta"] = summary.tight_delta;
    // The part of delta the double-precision l2-Laplace sampler adds (per release
    // (1 + e^eps_t) d (2^-27 + 2^-40), algorithms/privacy/README.md), included in delta; the
    // paper's figure is (paper_epsilon, paper_delta).
    t["sampler_delta"] = summary.sampler_delta;
    // PDML: the figure is Phase 2's (000 gives none; the trace's privacy column is the
    // labels' eps of Phase 1, another guarantee).
    const bool pdml = summary.info.algorithm == Algorithm::kPdml;
    const bool gaussian = pdml || summary.info.gaussian_releases;
    t["composition"] = pdml       ? "Phase 2: the Gaussian primal noise (16) composed exactly"
                       : gaussian ? "the Gaussian releases composed exactly (mu^2 summed)"
                                  : "optimal composition of the per-round pure-epsilon terms";
    t["node_epsilon"] = ToJsonValue(summary.node_tight_epsilon);
    t["paper_epsilon"] = gaussian ? OrderedJson() : OrderedJson(summary.final.privacy_loss);
    t["paper_delta"] = gaussian ? OrderedJson() : OrderedJson(summary.sampler_delta);
    o["tight_privacy"] = std::move(t);
  }
  o["warnings"] = ToJsonValue(summary.warnings);
  return o.dump(2);
}

std::span<const TraceColumn> TraceColumns() {
  using M = RoundMetrics;
  const auto scalar = [](const char* name, bool consensus, bool sharing, double M::*field) {
    return TraceColumn{name, consensus, sharing, nullptr, field, nullptr};
  };
  const auto per_node = [](const char* name, std::vector<double> M::*field) {
    return TraceColumn{name, true, false, nullptr, nullptr, field};
  };
  // Columns of both families, then consensus-only, then sharing-only ones.
  static const TraceColumn kColumns[] = {
      TraceColumn{"round", true, true, &M::round, nullptr, nullptr},
      scalar("seconds", true, true, &M::seconds),
      scalar("train_loss", true, true, &M::train_loss),
      scalar("objective", true, true, &M::objective),
      scalar("test_error", true, true, &M::test_error),
      scalar("consensus_gap", true, false, &M::consensus_gap),
      scalar("distance_to_optimum", true, false, &M::distance_to_optimum),
      scalar("privacy_loss", true, false, &M::privacy_loss),
      scalar("privacy_round", true, false, &M::privacy_round),
      scalar("tight_epsilon", true, false, &M::tight_epsilon),
      scalar("tight_delta", true, false, &M::tight_delta),
      per_node("node_privacy", &M::node_privacy),
      per_node("node_noise", &M::node_noise),
      scalar("test_loss", false, true, &M::test_loss),
      scalar("primal_residual", false, true, &M::primal_residual),
      scalar("max_x_norm", false, true, &M::max_x_norm),
      scalar("y_norm", false, true, &M::y_norm),
      scalar("epsilon_iteration", false, true, &M::epsilon_iteration),
      scalar("delta_iteration", false, true, &M::delta_iteration),
      scalar("epsilon_total", false, true, &M::epsilon_total),
      scalar("delta_total", false, true, &M::delta_total),
  };
  return kColumns;
}

std::string MetricsToJsonLine(const RoundMetrics& metrics, Family family) {
  return MetricsObject(metrics, family).dump();
}

std::string MetricsCsvHeader(Family family) {
  std::string out;
  VisitMetrics(RoundMetrics{}, family, [&](const char* name, const auto&) {
    if (!out.empty()) out += ',';
    out += name;
  });
  return out;
}

std::string MetricsToCsvRow(const RoundMetrics& metrics, Family family) {
  std::string out;
  bool first = true;
  const auto cell = [&](const char*, const auto& value) {
    if (!first) out += ',';
    first = false;
    using T = std::decay_t<decltype(value)>;
    if constexpr (std::is_same_v<T, std::vector<double>>) {
      for (std::size_t k = 0; k < value.size(); ++k) {
        if (k > 0) out += ';';
        AppendNumber(out, value[k]);
      }
    } else {
      AppendNumber(out, value);
    }
  };
  VisitMetrics(metrics, family, cell);
  return out;
}

}  // namespace dpadmm
