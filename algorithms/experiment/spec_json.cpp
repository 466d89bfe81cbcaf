#include "dpadmm/experiment/spec_json.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <set>
#include <string_view>
#include <type_traits>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/charconv_compat.h"
#include "dpadmm/core/error.h"

namespace dpadmm {
namespace {

using Json = nlohmann::json;          // what we read (key order irrelevant)
using OrderedJson = nlohmann::ordered_json;  // what we write (fields in declaration order)

// The one list of spec fields, shared by reading and writing so the two cannot drift apart.
// `group` is the nested object holding the field ("" for top-level fields). Spec is RunSpec or
// const RunSpec.
template <class Spec, class Visitor>
void VisitSpecFields(Spec& s, Visitor&& v) {
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
  v("data", "test_fraction", s.data.test_fraction);
  v("data", "normalize", s.data.normalize);
  v("data", "add_bias", s.data.add_bias);

  v("graph", "topology", s.graph.topology);
  v("graph", "nodes", s.graph.nodes);
  v("graph", "edges", s.graph.edges);
  v("graph", "grid_rows", s.graph.grid_rows);
  v("graph", "file", s.graph.file);

  v("partition", "kind", s.partition.kind);
  v("partition", "proportions", s.partition.proportions);
  v("partition", "dirichlet_alpha", s.partition.dirichlet_alpha);
  v("partition", "file", s.partition.file);

  v("loss", "kind", s.loss.kind);
  v("loss", "huber_h", s.loss.huber_h);

  v("algorithm", "name", s.algorithm.name);
  v("algorithm", "C", s.algorithm.C);
  v("algorithm", "rho", s.algorithm.rho);
  v("algorithm", "rho_per_node", s.algorithm.rho_per_node);
  v("algorithm", "eta", s.algorithm.eta);
  v("algorithm", "random_start", s.algorithm.random_start);
  v("algorithm", "q1", s.algorithm.q1);
  v("algorithm", "alpha", s.algorithm.alpha);
  v("algorithm", "q2", s.algorithm.q2);
  v("algorithm", "gamma", s.algorithm.gamma);
  v("algorithm", "dual_step", s.algorithm.dual_step);
  v("algorithm", "node_alpha", s.algorithm.node_alpha);
  v("algorithm", "node_eta", s.algorithm.node_eta);
  v("algorithm", "node_q1", s.algorithm.node_q1);
  v("algorithm", "node_q2", s.algorithm.node_q2);
  v("algorithm", "privacy_budget", s.algorithm.privacy_budget);
  v("algorithm", "node_privacy_budget", s.algorithm.node_privacy_budget);
  v("algorithm", "label_eps", s.algorithm.label_eps);
  v("algorithm", "label_eps_groups", s.algorithm.label_eps_groups);
  v("algorithm", "label_eps_shares", s.algorithm.label_eps_shares);
  v("algorithm", "pdml_R", s.algorithm.pdml_R);
  v("algorithm", "pdml_V", s.algorithm.pdml_V);
  v("algorithm", "pdml_decay", s.algorithm.pdml_decay);

  v("newton", "max_iterations", s.newton.max_iterations);
  v("newton", "gradient_tolerance", s.newton.gradient_tolerance);
  v("newton", "armijo_c", s.newton.armijo_c);
  v("newton", "backtrack", s.newton.backtrack);
  v("newton", "max_backtracks", s.newton.max_backtracks);
  v("newton", "dense_hessian_max_dim", s.newton.dense_hessian_max_dim);
  v("newton", "max_cg_iterations", s.newton.max_cg_iterations);

  v("", "iterations", s.iterations);
  v("", "seed", s.seed);
  v("", "engine", s.engine);
  v("", "threads", s.threads);
  v("", "compute_optimum", s.compute_optimum);
  v("", "tolerance", s.tolerance);
  v("", "metrics_every", s.metrics_every);
}

// The trace columns, shared by the CSV and JSON-lines writers.
template <class Visitor>
void VisitMetrics(const RoundMetrics& m, Visitor&& v) {
  v("round", m.round);
  v("seconds", m.seconds);
  v("train_loss", m.train_loss);
  v("objective", m.objective);
  v("test_error", m.test_error);
  v("consensus_gap", m.consensus_gap);
  v("distance_to_optimum", m.distance_to_optimum);
  v("privacy_loss", m.privacy_loss);
  v("privacy_round", m.privacy_round);
  v("node_privacy", m.node_privacy);
  v("node_noise", m.node_noise);
}

std::string FieldPath(std::string_view group, std::string_view key) {
  return group.empty() ? std::string(key) : std::string(group) + "." + std::string(key);
}

// ---------------------------------------------------------------------------------------------
// Reading

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

  // Rejects unknown keys (naming their full path) and non-object groups, before any value is
  // read, so that a misspelt key is reported as such and not as a missing value.
  void CheckKeys() const {
    if (!root_.is_object()) {
      Fail(std::string("the spec must be a JSON object, got ") + root_.type_name());
    }
    KnownFields known;  // group -> keys
    const RunSpec defaults;
    VisitSpecFields(defaults, [&](const char* group, const char* key, const auto&) {
      known[group].insert(key);
    });
    const auto& top = known[""];
    for (const auto& [key, value] : root_.items()) {
      if (top.count(key) > 0) continue;
      const auto group = known.find(key);
      if (group == known.end() || key.empty()) Unknown(key, top, known);
      if (!value.is_object()) WrongType(key, "an object", value);
      for (const auto& [inner, unused] : value.items()) {
        if (group->second.count(inner) == 0) Unknown(key + "." + inner, group->second, known);
      }
    }
  }

  // Visitor for VisitSpecFields: reads the field if present.
  template <class T>
  void operator()(const char* group, const char* key, T& value) const {
    const Json* object = &root_;
    if (group[0] != '\0') {
      const auto it = root_.find(group);
      if (it == root_.end()) return;
      object = &*it;
    }
    const auto it = object->find(key);
    if (it == object->end()) return;
    Read(*it, FieldPath(group, key), value);
  }

 private:
  [[noreturn]] void Unknown(const std::string& path, const std::set<std::string>& siblings,
                            const KnownFields& known) const {
    std::string list;
    for (const auto& k : siblings) list += (list.empty() ? "" : ", ") + k;
    if (path.find('.') == std::string::npos) {
      for (const auto& [g, unused] : known)
        if (!g.empty()) list += ", " + g;
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
  void Read(const Json& j, const std::string& path, LossKind& out) const {
    if (!j.is_string()) WrongType(path, "a string", j);
    try {
      out = ParseLossKind(j.get<std::string>(), path);
    } catch (const InputError& e) {
      Fail(e.what());
    }
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
OrderedJson ToJsonValue(LossKind v) { return Loss{v, 0.5}.Name(); }
template <class T>
OrderedJson ToJsonValue(const std::vector<T>& v) {
  OrderedJson a = OrderedJson::array();
  for (const T& x : v) a.push_back(ToJsonValue(x));
  return a;
}

OrderedJson MetricsObject(const RoundMetrics& m) {
  OrderedJson o = OrderedJson::object();
  VisitMetrics(m, [&](const char* name, const auto& value) { o[name] = ToJsonValue(value); });
  return o;
}

OrderedJson InfoObject(const RunInfo& info) {
  OrderedJson o = OrderedJson::object();
  o["dataset"] = info.dataset;
  o["train_rows"] = info.train_rows;
  o["test_rows"] = info.test_rows;
  o["features"] = info.features;
  o["sparse"] = info.sparse;
  o["normalization_factor"] = info.normalization_factor;
  o["max_row_norm_before"] = info.max_row_norm_before;
  o["nodes"] = info.nodes;
  o["edges"] = info.edges;
  o["rows_per_node"] = ToJsonValue(info.rows_per_node);
  o["algorithm"] = info.algorithm;
  o["loss"] = info.loss;
  o["engine"] = info.engine;
  o["threads"] = info.threads;
  o["optimum_objective"] = info.optimum_objective;
  o["optimum_test_error"] = info.optimum_test_error;
  o["optimum_note"] = info.optimum_note;
  o["privacy_guarantee"] = info.privacy_guarantee;
  return o;
}

void AppendNumber(std::string& out, double v) { detail::AppendShortest(out, v); }
void AppendNumber(std::string& out, std::int64_t v) { out += std::to_string(v); }

}  // namespace

void ApplySpecJson(const std::string& json_text, const std::string& where, RunSpec& spec) {
  Json root;
  try {
    root = Json::parse(json_text, /*cb=*/nullptr, /*allow_exceptions=*/true,
                       /*ignore_comments=*/true);
  } catch (const Json::parse_error& e) {
    ThrowSyntaxError(json_text, where, e);
  }
  const SpecReader reader(root, where);
  reader.CheckKeys();
  RunSpec updated = spec;  // all or nothing: `spec` is untouched if a field is bad
  VisitSpecFields(updated, reader);
  spec = std::move(updated);
}

std::string SpecToJson(const RunSpec& spec) {
  OrderedJson out = OrderedJson::object();
  VisitSpecFields(spec, [&](const char* group, const char* key, const auto& value) {
    OrderedJson& target = group[0] == '\0' ? out : out[group];
    target[key] = ToJsonValue(value);
  });
  return out.dump(2);
}

std::string RunInfoToJson(const RunInfo& info) { return InfoObject(info).dump(2); }

std::string SummaryToJson(const RunSummary& summary) {
  OrderedJson o = OrderedJson::object();
  o["outcome"] = ToString(summary.outcome);
  o["message"] = summary.message;
  o["rounds"] = summary.rounds;
  o["seconds"] = summary.seconds;
  o["final"] = MetricsObject(summary.final);
  o["info"] = InfoObject(summary.info);
  OrderedJson model = OrderedJson::array();
  for (Eigen::Index k = 0; k < summary.model.size(); ++k) model.push_back(summary.model[k]);
  o["model"] = std::move(model);
  o["node_frozen_round"] = ToJsonValue(summary.node_frozen_round);
  return o.dump(2);
}

std::string MetricsToJsonLine(const RoundMetrics& metrics) { return MetricsObject(metrics).dump(); }

std::string MetricsCsvHeader() {
  std::string out;
  VisitMetrics(RoundMetrics{}, [&](const char* name, const auto&) {
    if (!out.empty()) out += ',';
    out += name;
  });
  return out;
}

std::string MetricsToCsvRow(const RoundMetrics& metrics) {
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
  VisitMetrics(metrics, cell);
  return out;
}

}  // namespace dpadmm
