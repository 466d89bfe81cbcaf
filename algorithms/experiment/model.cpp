// SPDX-License-Identifier: Apache-2.0
#include "dpadmm/experiment/model.h"

#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <utility>
#include <vector>

#include "dpadmm/experiment/choices.h"

#include <nlohmann/json.hpp>

#include "core/charconv_compat.h"
#include "dpadmm/core/error.h"
#include "dpadmm/core/portable_math.h"
#include "dpadmm/experiment/spec_json.h"

namespace dpadmm {
namespace {

using OrderedJson = nlohmann::ordered_json;
constexpr const char* kFormatName = "dpadmm.model";
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// The fields of format version 1, in the order ToJson writes them.
constexpr const char* kFields[] = {"format",    "version",   "loss",    "huber_h", "features",
                                   "intercept", "row_scale", "weights", "privacy", "spec"};

[[noreturn]] void Bad(const std::string& where, const std::string& message) {
  throw InputError(where + ": " + message);
}

std::string TypeName(const OrderedJson& j) { return j.is_null() ? "null" : j.type_name(); }

void CheckColumns(std::int64_t got, std::int64_t want) {
  if (got != want) {
    throw InputError("rows have " + std::to_string(got) + " features, the model expects " +
                     std::to_string(want));
  }
}

// P(y = +1 | score) = 1 / (1 + e^-score), without overflow for either sign; portable math so
// that the probabilities have the same bits on every platform.
double Sigmoid(double score) {
  if (score >= 0.0) return 1.0 / (1.0 + math::Exp(-score));
  const double e = math::Exp(score);
  return e / (1.0 + e);
}

}  // namespace

Model::Model(Eigen::VectorXd weights, Loss loss, double row_scale, bool intercept,
             std::string spec_json, PrivacySpent privacy)
    : weights_(std::move(weights)),
      loss_(loss),
      row_scale_(row_scale),
      intercept_(intercept),
      spec_json_(std::move(spec_json)),
      privacy_(std::move(privacy)) {
  if (weights_.size() <= (intercept_ ? 1 : 0)) {
    throw InputError("model: weights must hold at least one feature weight" +
                     std::string(intercept_ ? " besides the intercept" : ""));
  }
  for (Eigen::Index k = 0; k < weights_.size(); ++k) {
    if (!std::isfinite(weights_[k])) {
      throw InputError("model: weights[" + std::to_string(k) + "] is not finite");
    }
  }
  if (!std::isfinite(row_scale_) || !(row_scale_ > 0.0)) {
    throw InputError("model: row_scale must be finite and > 0");
  }
  if (loss_.kind == LossKind::kSmoothHinge &&
      !(loss_.huber_h > 0.0 && std::isfinite(loss_.huber_h))) {
    throw InputError("model: huber_h must be finite and > 0");
  }
}

Model Model::FromRun(const RunSummary& summary, const RunSpec& spec) {
  if (summary.model.size() == 0) {
    throw InputError("model: the run reported no round, so it has no model (" +
                     std::string(ToString(summary.outcome)) + ": " + summary.message + ")");
  }
  if (!summary.model.allFinite()) {
    throw InputError("model: the run's model is not finite (" +
                     std::string(ToString(summary.outcome)) + ": " + summary.message + ")");
  }
  // A model stores one row factor; the per-feature map of public bounds is not stored yet, so
  // its predictions on raw rows would be wrong. (clip-only divides each row by a positive
  // number: the predicted signs are those of the raw rows.)
  if (summary.info.scaling == Scaling::kPublicBounds) {
    throw InputError(
        "model: a run with scaling 'public-bounds' cannot be saved as a model yet (the model "
        "format stores one row factor, not the per-feature map)");
  }
  return Model(summary.model, spec.loss, summary.info.normalization_factor, spec.data.add_bias,
               SpecToJson(spec),
               PrivacySpent{summary.final.privacy_loss, summary.info.privacy_guarantee});
}

// ---------------------------------------------------------------------------------------------
// Scores. Training appended the intercept column, then multiplied every stored value by the
// factor (AddBiasFeature, then Dataset::Scale); the batch paths rebuild exactly those rows and
// take the product the run's TestError takes (row-major rows times w), so the scores have the
// run's bits.

double Model::DecisionFunction(std::span<const double> x) const {
  CheckColumns(static_cast<std::int64_t>(x.size()), features());
  double score = 0.0;
  for (std::size_t k = 0; k < x.size(); ++k) {
    score += (x[k] * row_scale_) * weights_[static_cast<Eigen::Index>(k)];
  }
  if (intercept_) score += row_scale_ * weights_[weights_.size() - 1];
  return score;
}

double Model::DecisionFunction(const Eigen::VectorXd& x) const {
  return DecisionFunction(std::span<const double>(x.data(), static_cast<std::size_t>(x.size())));
}

Eigen::VectorXd Model::DecisionFunction(const DenseRows& x) const {
  CheckColumns(x.cols(), features());
  DenseRows rows(x.rows(), weights_.size());
  rows.leftCols(x.cols()) = x;
  if (intercept_) rows.col(x.cols()).setConstant(1.0);
  rows *= row_scale_;
  return rows * weights_;
}

Eigen::VectorXd Model::DecisionFunction(const Eigen::MatrixXd& x) const {
  return DecisionFunction(DenseRows(x));
}

Eigen::VectorXd Model::DecisionFunction(const SparseRows& x) const {
  CheckColumns(x.cols(), features());
  std::vector<Eigen::Triplet<double, std::int64_t>> entries;
  entries.reserve(static_cast<std::size_t>(x.nonZeros() + (intercept_ ? x.rows() : 0)));
  for (std::int64_t r = 0; r < x.outerSize(); ++r) {
    for (SparseRows::InnerIterator it(x, r); it; ++it)
      entries.emplace_back(r, it.col(), it.value());
    if (intercept_) entries.emplace_back(r, x.cols(), 1.0);
  }
  SparseRows rows(x.rows(), weights_.size());
  rows.setFromTriplets(entries.begin(), entries.end());
  rows *= row_scale_;
  return rows * weights_;
}

Eigen::VectorXd Model::DecisionFunction(
    const Eigen::SparseMatrix<double, Eigen::RowMajor>& x) const {
  SparseRows rows(x.rows(), x.cols());
  std::vector<Eigen::Triplet<double, std::int64_t>> entries;
  entries.reserve(static_cast<std::size_t>(x.nonZeros()));
  for (int r = 0; r < x.outerSize(); ++r) {
    for (Eigen::SparseMatrix<double, Eigen::RowMajor>::InnerIterator it(x, r); it; ++it) {
      entries.emplace_back(r, it.col(), it.value());
    }
  }
  rows.setFromTriplets(entries.begin(), entries.end());
  return DecisionFunction(rows);
}

namespace {

Eigen::VectorXd Signs(const Eigen::VectorXd& scores) {
  return scores.unaryExpr([](double s) { return s >= 0.0 ? 1.0 : -1.0; });
}

}  // namespace

double Model::Predict(std::span<const double> x) const {
  return DecisionFunction(x) >= 0.0 ? 1.0 : -1.0;
}
double Model::Predict(const Eigen::VectorXd& x) const {
  return DecisionFunction(x) >= 0.0 ? 1.0 : -1.0;
}
Eigen::VectorXd Model::Predict(const DenseRows& x) const { return Signs(DecisionFunction(x)); }
Eigen::VectorXd Model::Predict(const Eigen::MatrixXd& x) const {
  return Signs(DecisionFunction(x));
}
Eigen::VectorXd Model::Predict(const SparseRows& x) const { return Signs(DecisionFunction(x)); }
Eigen::VectorXd Model::Predict(const Eigen::SparseMatrix<double, Eigen::RowMajor>& x) const {
  return Signs(DecisionFunction(x));
}

namespace {

void RequireProbability(const Model& m) {
  if (!m.has_probability()) {
    throw std::logic_error("PredictProba: the " + m.loss().Name() +
                           " loss is not a likelihood, so the model has no probabilities "
                           "(use DecisionFunction or Predict)");
  }
}

Eigen::VectorXd Sigmoids(const Eigen::VectorXd& scores) { return scores.unaryExpr(&Sigmoid); }

}  // namespace

double Model::ScoreToProbability(double score) const {
  RequireProbability(*this);
  return Sigmoid(score);
}

double Model::PredictProba(std::span<const double> x) const {
  RequireProbability(*this);
  return Sigmoid(DecisionFunction(x));
}
double Model::PredictProba(const Eigen::VectorXd& x) const {
  RequireProbability(*this);
  return Sigmoid(DecisionFunction(x));
}
Eigen::VectorXd Model::PredictProba(const DenseRows& x) const {
  RequireProbability(*this);
  return Sigmoids(DecisionFunction(x));
}
Eigen::VectorXd Model::PredictProba(const Eigen::MatrixXd& x) const {
  RequireProbability(*this);
  return Sigmoids(DecisionFunction(x));
}
Eigen::VectorXd Model::PredictProba(const SparseRows& x) const {
  RequireProbability(*this);
  return Sigmoids(DecisionFunction(x));
}
Eigen::VectorXd Model::PredictProba(const Eigen::SparseMatrix<double, Eigen::RowMajor>& x) const {
  RequireProbability(*this);
  return Sigmoids(DecisionFunction(x));
}

double Model::TestError(const Dataset& data) const {
  if (data.rows() == 0) return kNaN;
  const Eigen::VectorXd predicted =
      VisitRows(data, [&](const auto& x) -> Eigen::VectorXd { return Predict(x); });
  std::int64_t wrong = 0;
  for (Eigen::Index n = 0; n < predicted.size(); ++n) wrong += predicted[n] != data.y[n];
  return static_cast<double>(wrong) / static_cast<double>(data.rows());
}

// ---------------------------------------------------------------------------------------------
// JSON

std::string Model::ToJson() const {
  // Written by hand so that every double takes the project's one number format: the shortest
  // text that reads back to the same bits (detail::AppendShortest, as in the CSV traces).
  const auto number = [](std::string& out, double v) {
    if (v == 0.0 && std::signbit(v)) {
      out += "-0.0";  // "-0" would read back as the integer 0, losing the sign
    } else if (std::isfinite(v)) {
      detail::AppendShortest(out, v);
    } else {
      out += "null";
    }
  };
  const auto text = [](const std::string& v) { return OrderedJson(v).dump(); };
  std::string out = "{\n";
  out += "  \"format\": " + text(kFormatName) + ",\n";
  out += "  \"version\": " + std::to_string(kFormatVersion) + ",\n";
  out += "  \"loss\": " + text(loss_.Name()) + ",\n";
  out += "  \"huber_h\": ";
  number(out, loss_.huber_h);
  out += ",\n  \"features\": " + std::to_string(features()) + ",\n";
  out += std::string("  \"intercept\": ") + (intercept_ ? "true" : "false") + ",\n";
  out += "  \"row_scale\": ";
  number(out, row_scale_);
  out += ",\n  \"weights\": [";
  for (Eigen::Index k = 0; k < weights_.size(); ++k) {
    out += k == 0 ? "\n    " : ",\n    ";
    number(out, weights_[k]);
  }
  out += "\n  ],\n  \"privacy\": {\n    \"value\": ";
  number(out, privacy_.value);
  out += ",\n    \"meaning\": " + text(privacy_.meaning) + "\n  },\n";
  out += "  \"spec\": " + text(spec_json_) + "\n}";
  return out;
}

Model Model::FromJson(const std::string& json_text, const std::string& where) {
  OrderedJson j;
  try {
    j = OrderedJson::parse(json_text);
  } catch (const nlohmann::json::parse_error& e) {
    Bad(where, std::string("JSON syntax error: ") + e.what());
  } catch (const nlohmann::json::exception& e) {  // e.g. a number that overflows a double
    Bad(where, std::string("invalid JSON: ") + e.what());
  }
  if (!j.is_object()) Bad(where, "a model must be a JSON object, got " + TypeName(j));
  for (const auto& item : j.items()) {
    bool known = false;
    for (const char* f : kFields) known = known || item.key() == f;
    if (!known) Bad(where, "unknown field '" + item.key() + "'");
  }
  const auto field = [&](const char* name) -> const OrderedJson& {
    const auto it = j.find(name);
    if (it == j.end()) Bad(where, std::string("missing field '") + name + "'");
    return *it;
  };
  const auto wrong = [&](const std::string& name, const char* want, const OrderedJson& v) {
    Bad(where, name + " must be " + want + ", got " + TypeName(v));
  };
  const auto number = [&](const std::string& name, const OrderedJson& v) {
    if (!v.is_number()) wrong(name, "a number", v);
    const double d = v.get<double>();
    if (!std::isfinite(d)) Bad(where, name + " must be finite");
    return d;
  };

  const OrderedJson& format = field("format");
  if (!format.is_string()) wrong("format", "a string", format);
  if (format.get<std::string>() != kFormatName) {
    Bad(where, "format must be \"" + std::string(kFormatName) + "\", got \"" +
                   format.get<std::string>() + "\" (not a dpadmm model file)");
  }
  const OrderedJson& version = field("version");
  if (!version.is_number_integer()) wrong("version", "an integer", version);
  if (version.get<std::int64_t>() != kFormatVersion) {
    Bad(where, "version " + version.dump() + " is not supported (this build reads version " +
                   std::to_string(kFormatVersion) + ")");
  }

  Loss loss;
  const OrderedJson& loss_name = field("loss");
  if (!loss_name.is_string()) wrong("loss", "a string", loss_name);
  loss.kind = ParseChoice<LossKind>(loss_name.get<std::string>(), where + ": loss");
  loss.huber_h = number("huber_h", field("huber_h"));
  if (!(loss.huber_h > 0.0)) Bad(where, "huber_h must be > 0");

  const OrderedJson& features = field("features");
  if (!features.is_number_integer() || features.get<std::int64_t>() < 1) {
    Bad(where, "features must be an integer >= 1, got " + features.dump());
  }
  const OrderedJson& intercept = field("intercept");
  if (!intercept.is_boolean()) wrong("intercept", "true or false", intercept);
  const double row_scale = number("row_scale", field("row_scale"));
  if (!(row_scale > 0.0)) Bad(where, "row_scale must be > 0");

  const OrderedJson& weights = field("weights");
  if (!weights.is_array()) wrong("weights", "an array of numbers", weights);
  const std::int64_t want = features.get<std::int64_t>() + (intercept.get<bool>() ? 1 : 0);
  if (static_cast<std::int64_t>(weights.size()) != want) {
    Bad(where, "weights has " + std::to_string(weights.size()) + " values, but features (" +
                   std::to_string(features.get<std::int64_t>()) + ")" +
                   (intercept.get<bool>() ? " + intercept (1)" : "") + " makes " +
                   std::to_string(want));
  }
  Eigen::VectorXd w(static_cast<Eigen::Index>(want));
  for (std::size_t k = 0; k < weights.size(); ++k) {
    w[static_cast<Eigen::Index>(k)] = number("weights[" + std::to_string(k) + "]", weights[k]);
  }

  const OrderedJson& privacy = field("privacy");
  if (!privacy.is_object()) wrong("privacy", "an object", privacy);
  PrivacySpent spent;
  for (const auto& item : privacy.items()) {
    if (item.key() != "value" && item.key() != "meaning") {
      Bad(where, "unknown field 'privacy." + item.key() + "'");
    }
  }
  const auto value = privacy.find("value");
  if (value == privacy.end()) Bad(where, "missing field 'privacy.value'");
  if (value->is_null()) {
    spent.value = kNaN;
  } else if (value->is_number()) {
    spent.value = value->get<double>();
  } else {
    wrong("privacy.value", "a number or null", *value);
  }
  const auto meaning = privacy.find("meaning");
  if (meaning == privacy.end()) Bad(where, "missing field 'privacy.meaning'");
  if (!meaning->is_string()) wrong("privacy.meaning", "a string", *meaning);
  spent.meaning = meaning->get<std::string>();

  const OrderedJson& spec = field("spec");
  if (!spec.is_string()) wrong("spec", "a string (the spec JSON text)", spec);

  return Model(std::move(w), loss, row_scale, intercept.get<bool>(), spec.get<std::string>(),
               std::move(spent));
}

void Model::Save(const std::string& path) const {
  const std::string text = ToJson() + "\n";
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw InputError(path + ": cannot write the model: " + std::strerror(errno));
  out << text;
  out.close();
  if (out.fail()) throw InputError(path + ": cannot write the model");
}

Model Model::Load(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path + ": cannot open the model file: " + std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw InputError(path + ": cannot read the model file");
  return FromJson(text.str(), path);
}

}  // namespace dpadmm
