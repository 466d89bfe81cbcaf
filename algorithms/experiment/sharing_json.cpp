// JSON spec / summary and CSV trace text of ADMM sharing runs (sharing.h).
#include <charconv>
#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/charconv_compat.h"
#include "dpadmm/core/error.h"
#include "dpadmm/sharing/sharing.h"
#include "dpadmm/experiment/spec_json.h"

namespace dpadmm {
namespace {

using Json = nlohmann::json;
using OrderedJson = nlohmann::ordered_json;

// The spec's own fields ("data" is RunSpec's DataSpec and is read through ApplySpecJson).
template <class Spec, class Visitor>
void VisitSharingFields(Spec& s, Visitor&& v) {
  v("sparse_informative", s.sparse_informative);
  v("sparse_nnz_per_row", s.sparse_nnz_per_row);
  v("sparse_flip_probability", s.sparse_flip_probability);
  v("algorithm", s.algorithm);
  v("parties", s.parties);
  v("party_features", s.party_features);
  v("lambda", s.lambda);
  v("rho", s.rho);
  v("epochs", s.epochs);
  v("seed", s.seed);
  v("engine", s.engine);
  v("threads", s.threads);
  v("z_tolerance", s.z_tolerance);
  v("z_max_iterations", s.z_max_iterations);
  v("dp", s.dp);
  v("epsilon", s.epsilon);
  v("noise_sigma", s.noise_sigma);
  v("delta", s.delta);
  v("delta_prime", s.delta_prime);
  v("b1", s.b1);
  v("c1", s.c1);
  v("learning_rate", s.learning_rate);
  v("lr_decay", s.lr_decay);
  v("batch_size", s.batch_size);
  v("sgd_init_sd", s.sgd_init_sd);
  v("compute_baselines", s.compute_baselines);
}

template <class Visitor>
void VisitSharingMetrics(const SharingMetrics& m, Visitor&& v) {
  v("epoch", static_cast<double>(m.epoch));
  v("seconds", m.seconds);
  v("objective", m.objective);
  v("train_loss", m.train_loss);
  v("test_loss", m.test_loss);
  v("test_error", m.test_error);
  v("primal_residual", m.primal_residual);
  v("max_x_norm", m.max_x_norm);
  v("y_norm", m.y_norm);
  v("epsilon_iteration", m.epsilon_iteration);
  v("delta_iteration", m.delta_iteration);
  v("epsilon_total", m.epsilon_total);
  v("delta_total", m.delta_total);
}

[[noreturn]] void Fail(const std::string& where, const std::string& message) {
  throw InputError(where + ": " + message);
}

std::string TypeName(const Json& j) { return j.type_name(); }

template <class T>
void Read(const Json& j, const std::string& where, const std::string& field, T& out) {
  const auto wrong = [&](const char* want) {
    Fail(where, field + " must be " + want + ", got " + TypeName(j));
  };
  if constexpr (std::is_same_v<T, bool>) {
    if (!j.is_boolean()) wrong("a boolean");
    out = j.get<bool>();
  } else if constexpr (std::is_same_v<T, std::string>) {
    if (!j.is_string()) wrong("a string");
    out = j.get<std::string>();
  } else if constexpr (std::is_integral_v<T>) {
    if (!j.is_number_integer()) wrong("an integer");
    if constexpr (std::is_unsigned_v<T>) {
      if (j.is_number_unsigned()) {
        out = j.get<T>();
      } else {
        if (j.get<std::int64_t>() < 0) Fail(where, field + " must be >= 0");
        out = static_cast<T>(j.get<std::int64_t>());
      }
    } else {
      const auto v = j.get<std::int64_t>();
      if (v < static_cast<std::int64_t>(std::numeric_limits<T>::min()) ||
          v > static_cast<std::int64_t>(std::numeric_limits<T>::max())) {
        Fail(where, field + " is out of range");
      }
      out = static_cast<T>(v);
    }
  } else if constexpr (std::is_floating_point_v<T>) {
    if (!j.is_number()) wrong("a number");
    out = j.get<double>();
  } else {  // std::vector<std::int64_t>
    if (!j.is_array()) wrong("an array of integers");
    T values;
    for (std::size_t k = 0; k < j.size(); ++k) {
      typename T::value_type v{};
      Read(j[k], where, field + "[" + std::to_string(k) + "]", v);
      values.push_back(v);
    }
    out = std::move(values);
  }
}

std::string Number(double v) {
  std::string out;
  detail::AppendShortest(out, v);
  return out;
}

OrderedJson Num(double v) { return std::isfinite(v) ? OrderedJson(v) : OrderedJson(nullptr); }

OrderedJson BaselineJson(const SharingBaseline& b) {
  if (!b.computed) return nullptr;
  OrderedJson j;
  j["objective"] = Num(b.objective);
  j["train_loss"] = Num(b.train_loss);
  j["test_loss"] = Num(b.test_loss);
  j["test_error"] = Num(b.test_error);
  return j;
}

OrderedJson MetricsJson(const SharingMetrics& m) {
  OrderedJson j;
  VisitSharingMetrics(m, [&](const char* key, double v) {
    j[key] = std::string(key) == "epoch" ? OrderedJson(m.epoch) : Num(v);
  });
  return j;
}

}  // namespace

void ApplySharingSpecJson(const std::string& json_text, const std::string& where,
                          SharingSpec& spec) {
  Json root;
  try {
    root = Json::parse(json_text);
  } catch (const Json::parse_error& e) {
    Fail(where, std::string("JSON syntax error: ") + e.what());
  } catch (const Json::out_of_range& e) {
    // A number literal beyond the double range (e.g. 1e999) is bad input, not a crash.
    Fail(where, std::string("JSON number out of range: ") + e.what());
  }
  if (!root.is_object()) Fail(where, "the spec must be a JSON object, got " + TypeName(root));
  SharingSpec out = spec;
  for (const auto& item : root.items()) {
    // Named references, not structured bindings: clang 14 (Emscripten) cannot capture those.
    const std::string& key = item.key();
    const Json& value = item.value();
    if (key == "data") {
      // DataSpec is RunSpec's: read it with RunSpec's reader (same field names and checks).
      RunSpec r;
      r.data = out.data;
      Json wrapped;
      wrapped["data"] = value;
      ApplySpecJson(wrapped.dump(), where, r);
      out.data = r.data;
      continue;
    }
    bool known = false;
    VisitSharingFields(out, [&](const char* name, auto& field) {
      if (key == name) {
        Read(value, where, name, field);
        known = true;
      }
    });
    if (!known) Fail(where, "unknown field '" + key + "'");
  }
  spec = std::move(out);
}

std::string SharingSpecToJson(const SharingSpec& spec) {
  RunSpec r;
  r.data = spec.data;
  OrderedJson run = OrderedJson::parse(SpecToJson(r));
  OrderedJson j;
  j["data"] = run["data"];
  VisitSharingFields(spec, [&](const char* name, const auto& field) { j[name] = field; });
  return j.dump(2);
}

std::string SharingSummaryToJson(const SharingSummary& s) {
  OrderedJson j;
  j["outcome"] = ToString(s.outcome);
  j["message"] = s.message;
  j["epochs"] = s.epochs;
  j["seconds"] = Num(s.seconds);
  j["seconds_per_epoch"] = Num(s.seconds_per_epoch);
  j["final"] = MetricsJson(s.final);
  const SharingInfo& i = s.info;
  OrderedJson info;
  info["dataset"] = i.dataset;
  info["train_rows"] = i.train_rows;
  info["test_rows"] = i.test_rows;
  info["features"] = i.features;
  info["sparse"] = i.sparse;
  info["normalization_factor"] = Num(i.normalization_factor);
  info["party_features"] = i.party_features;
  info["party_offsets"] = i.party_offsets;
  info["party_max_row_norm"] = i.party_max_row_norm;
  info["algorithm"] = i.algorithm;
  info["engine"] = i.engine;
  info["threads"] = i.threads;
  info["dp"] = i.dp;
  if (i.dp) {
    OrderedJson p;
    p["epsilon_per_iteration"] = i.epsilon;
    p["delta_per_iteration"] = i.delta;
    p["delta_prime"] = i.delta_prime;
    p["epsilon_total"] = Num(s.final.epsilon_total);
    p["delta_total"] = Num(s.final.delta_total);
    p["assumption_b1"] = i.b1;
    p["assumption_c1"] = i.c1;
    p["observed_max_x_norm"] = Num(s.final.max_x_norm);
    p["observed_y_norm"] = Num(s.final.y_norm);
    p["party_sensitivity"] = i.party_sensitivity;
    p["party_sigma"] = i.party_sigma;
    p["party_epsilon"] = i.party_epsilon;
    p["party_gram_rank"] = i.party_gram_rank;
    info["privacy"] = p;
  }
  info["privacy_guarantee"] = i.privacy_guarantee;
  info["central_baseline"] = BaselineJson(i.central);
  info["local_baseline"] = BaselineJson(i.local);
  j["info"] = info;
  std::vector<double> model(s.model.data(), s.model.data() + s.model.size());
  j["model"] = model;
  return j.dump(2);
}

std::string SharingCsvHeader() {
  std::string h;
  VisitSharingMetrics(SharingMetrics{}, [&](const char* key, double) {
    h += (h.empty() ? "" : ",") + std::string(key);
  });
  return h;
}

std::string SharingMetricsToCsvRow(const SharingMetrics& m) {
  std::string row;
  bool first = true;
  VisitSharingMetrics(m, [&](const char* key, double v) {
    if (!first) row += ',';
    first = false;
    row += std::string(key) == "epoch" ? std::to_string(m.epoch) : Number(v);
  });
  return row;
}

}  // namespace dpadmm
