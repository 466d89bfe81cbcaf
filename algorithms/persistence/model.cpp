// SPDX-License-Identifier: Apache-2.0
#include "dpadmm/persistence/model.h"

#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <utility>
#include <vector>

#include "dpadmm/run/choices.h"

#include <nlohmann/json.hpp>

#include "core/charconv_compat.h"
#include "dpadmm/core/error.h"
#include "dpadmm/core/portable_math.h"
#include "dpadmm/run/spec_json.h"
#include "run/driver.h"

#include "core/numbers.h"

namespace dpadmm {
namespace {

using OrderedJson = nlohmann::ordered_json;
constexpr const char* kFormatName = "dpadmm.model";

// The fields of format version 2, in the order ToJson writes them; version 1 had "row_scale"
// where version 2 has "preparation".
constexpr const char* kFields[] = {"format",    "version",     "loss",    "huber_h", "features",
                                   "intercept", "preparation", "weights", "privacy", "spec"};
constexpr const char* kFieldsV1[] = {"format",    "version",   "loss",    "huber_h", "features",
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

namespace {

RowPreparation GlobalFactor(double row_scale) {
  RowPreparation p;
  p.scaling = Scaling::kGlobalMaxNorm;
  p.row_scale = row_scale;
  return p;
}

}  // namespace

Model::Model(Eigen::VectorXd weights, Loss loss, double row_scale, bool intercept,
             std::string spec_json, PrivacySpent privacy)
    : Model(std::move(weights), loss, GlobalFactor(row_scale), intercept, std::move(spec_json),
            std::move(privacy)) {}

Model::Model(Eigen::VectorXd weights, Loss loss, RowPreparation preparation, bool intercept,
             std::string spec_json, PrivacySpent privacy)
    : weights_(std::move(weights)),
      loss_(loss),
      prep_(std::move(preparation)),
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
  if (!std::isfinite(prep_.row_scale) || !(prep_.row_scale > 0.0)) {
    throw InputError("model: row_scale must be finite and > 0");
  }
  if (prep_.scaling == Scaling::kAuto) {
    throw InputError("model: the scaling must be the one the run applied, not 'auto'");
  }
  const auto cols = weights_.size();
  if (prep_.scaling == Scaling::kPublicBounds) {
    const auto n = static_cast<std::size_t>(features());
    if (prep_.bounds.lo.size() != n || prep_.bounds.hi.size() != n) {
      throw InputError("model: public bounds must have one lo and one hi per feature (" +
                       std::to_string(n) + "), got " + std::to_string(prep_.bounds.lo.size()) +
                       " and " + std::to_string(prep_.bounds.hi.size()));
    }
    for (std::size_t j = 0; j < n; ++j) {
      const double lo = prep_.bounds.lo[j], hi = prep_.bounds.hi[j];
      if (!std::isfinite(lo) || !std::isfinite(hi) || !(lo < hi)) {
        throw InputError("model: public bounds of feature " + std::to_string(j) +
                         " must be finite with lo < hi");
      }
    }
    if (prep_.dims < cols) {
      throw InputError("model: dims (" + std::to_string(prep_.dims) +
                       ") must be at least the column count " + std::to_string(cols));
    }
  }
  if (prep_.scaling == Scaling::kStandardize) {
    const auto n = static_cast<std::size_t>(features());
    const FeatureStandardization& st = prep_.standardization;
    if (st.mean.size() != n || st.scale.size() != n) {
      throw InputError("model: a standardization must have one mean and one scale per feature (" +
                       std::to_string(n) + "), got " + std::to_string(st.mean.size()) + " and " +
                       std::to_string(st.scale.size()));
    }
    for (std::size_t j = 0; j < n; ++j) {
      if (!std::isfinite(st.mean[j]) || !std::isfinite(st.scale[j]) || !(st.scale[j] > 0.0)) {
        throw InputError("model: the standardization of feature " + std::to_string(j) +
                         " must have a finite mean and a finite scale > 0");
      }
    }
    if (prep_.dims < cols) {
      throw InputError("model: dims (" + std::to_string(prep_.dims) +
                       ") must be at least the column count " + std::to_string(cols));
    }
  }
  if (!prep_.clip_blocks.empty()) {
    std::int64_t total = 0;
    for (std::int64_t b : prep_.clip_blocks) {
      if (b < 1) throw InputError("model: clip_blocks must all be >= 1");
      total += b;
    }
    if (total != cols) {
      throw InputError("model: clip_blocks cover " + std::to_string(total) +
                       " columns, the prepared rows have " + std::to_string(cols));
    }
    if (!prep_.clip) throw InputError("model: clip_blocks are given but clip is false");
  }
  if (loss_.kind == LossKind::kSmoothHinge &&
      !(loss_.huber_h > 0.0 && std::isfinite(loss_.huber_h))) {
    throw InputError("model: huber_h must be finite and > 0");
  }
}

Model Model::FromRun(const RunSummary& summary, const RunSpec& spec) {
  if (spec.algorithm.name() == Algorithm::kLocal) {
    throw InputError(
        "model: algorithm 'local' learns one model per node and no single model: there is no "
        "model to save (average and central learn one)");
  }
  if (summary.model.size() == 0) {
    throw InputError("model: the run reported no round, so it has no model (" +
                     std::string(ToString(summary.outcome)) + ": " + summary.message + ")");
  }
  if (!summary.model.allFinite()) {
    throw InputError("model: the run's model is not finite (" +
                     std::string(ToString(summary.outcome)) + ": " + summary.message + ")");
  }
  // What PrepareRows (experiment.cpp) did, recorded from the same inputs it read.
  const DataSpec& data = spec.data;
  const auto cols = summary.model.size();
  const std::int64_t features = cols - (data.add_bias ? 1 : 0);
  RowPreparation prep;
  prep.scaling = summary.info.scaling;
  switch (prep.scaling) {
    case Scaling::kGlobalMaxNorm: prep.row_scale = summary.info.normalization_factor; break;
    case Scaling::kPublicBounds:
      prep.bounds = data.feature_bounds_path.empty()
                        ? UniformBounds(features, data.feature_range[0], data.feature_range[1])
                        : LoadFeatureBounds(data.feature_bounds_path, features, data.feature_range);
      prep.dims = cols;
      prep.sparse_rows = summary.info.sparse;
      prep.clip = true;
      break;
    case Scaling::kDpBounds:  // the agreed bounds were released: a model applies them as public
      prep.scaling = Scaling::kPublicBounds;
      prep.bounds.lo = summary.info.dp_bounds.lo;
      prep.bounds.hi = summary.info.dp_bounds.hi;
      prep.dims = cols;
      prep.sparse_rows = summary.info.sparse;
      prep.clip = true;
      break;
    case Scaling::kStandardize:
    case Scaling::kDpStandardize:  // released (dp) or the run's statistics: applied as given
      prep.scaling = Scaling::kStandardize;
      prep.standardization.mean = summary.info.standardization.mean;
      prep.standardization.scale = summary.info.standardization.scale;
      prep.dims = cols;
      prep.clip = true;
      break;
    case Scaling::kClipOnly: prep.clip = true; break;
    case Scaling::kNone: break;
    case Scaling::kAuto:  // RunInfo holds the resolved scaling
      throw InputError("model: the run's summary does not say which scaling it applied");
  }
  if (prep.clip) prep.clip_blocks = PartyBlocks(spec, cols);
  return Model(summary.model, spec.loss, std::move(prep), data.add_bias, SpecToJson(spec),
               PrivacySpent{summary.final.privacy_loss, summary.info.privacy_guarantee});
}

// ---------------------------------------------------------------------------------------------
// Scores. The raw rows become a Dataset, prepared by the very preprocessing functions training
// called in the same order (PrepareRows below), and the scores are the product the run's
// TestError takes (row-major rows times w), so they have the run's bits.

void Model::PrepareRows(Dataset& rows) const {
  CheckColumns(rows.cols(), features());
  const bool public_bounds = prep_.scaling == Scaling::kPublicBounds;
  const bool standardize = prep_.scaling == Scaling::kStandardize;
  if (public_bounds && rows.is_sparse() != prep_.sparse_rows) {
    if (prep_.sparse_rows) {
      rows.SetRows(SparseRows(std::get<DenseRows>(rows.x).sparseView()));
    } else {
      rows.SetRows(DenseRows(std::get<SparseRows>(rows.x)));
    }
  }
  if (standardize && rows.is_sparse()) rows.SetRows(DenseRows(std::get<SparseRows>(rows.x)));
  if (intercept_ && !public_bounds && !standardize) AddBiasFeature(rows);
  switch (prep_.scaling) {
    case Scaling::kGlobalMaxNorm: rows.Scale(prep_.row_scale); break;
    case Scaling::kPublicBounds:
      ScaleByPublicBounds(rows, prep_.bounds, prep_.dims);
      if (intercept_) AddBiasFeature(rows, 1.0 / std::sqrt(static_cast<double>(prep_.dims)));
      break;
    case Scaling::kStandardize:
      StandardizeRows(rows, prep_.standardization, prep_.dims);
      if (intercept_) AddBiasFeature(rows, 1.0 / std::sqrt(static_cast<double>(prep_.dims)));
      break;
    case Scaling::kClipOnly:
    case Scaling::kNone:
    case Scaling::kDpBounds:       // stored as public-bounds (FromRun)
    case Scaling::kDpStandardize:  // stored as standardize (FromRun)
    case Scaling::kAuto:           // refused by the constructor
      break;
  }
  if (!prep_.clip) return;
  if (prep_.clip_blocks.empty()) {
    ClipRows(rows);
  } else {
    ClipRowBlocks(rows, prep_.clip_blocks);
  }
}

namespace {

// The run's product: prepared rows (row-major, dense or sparse) times w.
Eigen::VectorXd Scores(const Dataset& prepared, const Eigen::VectorXd& w) {
  return VisitRows(prepared, [&](const auto& x) -> Eigen::VectorXd { return x * w; });
}

Dataset Unlabelled(auto rows) {
  Dataset d;
  d.y = Eigen::VectorXd::Zero(rows.rows());
  d.SetRows(std::move(rows));
  return d;
}

}  // namespace

double Model::DecisionFunction(std::span<const double> x) const {
  CheckColumns(static_cast<std::int64_t>(x.size()), features());
  DenseRows row(1, static_cast<Eigen::Index>(x.size()));
  for (std::size_t k = 0; k < x.size(); ++k) row(0, static_cast<Eigen::Index>(k)) = x[k];
  Dataset d = Unlabelled(std::move(row));
  PrepareRows(d);
  return Scores(d, weights_)[0];
}

double Model::DecisionFunction(const Eigen::VectorXd& x) const {
  return DecisionFunction(std::span<const double>(x.data(), static_cast<std::size_t>(x.size())));
}

Eigen::VectorXd Model::DecisionFunction(const DenseRows& x) const {
  CheckColumns(x.cols(), features());
  Dataset d = Unlabelled(DenseRows(x));
  PrepareRows(d);
  return Scores(d, weights_);
}

Eigen::VectorXd Model::DecisionFunction(const Eigen::MatrixXd& x) const {
  return DecisionFunction(DenseRows(x));
}

Eigen::VectorXd Model::DecisionFunction(const SparseRows& x) const {
  CheckColumns(x.cols(), features());
  Dataset d = Unlabelled(SparseRows(x));
  PrepareRows(d);
  return Scores(d, weights_);
}

Eigen::VectorXd Model::DecisionFunction(
    const Eigen::SparseMatrix<double, Eigen::RowMajor, std::int64_t>& x) const {
  // Rows with 64-bit indices, as SparseRows had before; copied into SparseRows (32-bit).
  CheckColumns(x.cols(), features());
  CheckSparseSize(x.nonZeros(), x.cols(), "DecisionFunction");
  SparseRows rows(x.rows(), x.cols());
  std::vector<Eigen::Triplet<double, SparseIndex>> entries;
  entries.reserve(static_cast<std::size_t>(x.nonZeros()));
  for (Eigen::Index r = 0; r < x.outerSize(); ++r) {
    for (Eigen::SparseMatrix<double, Eigen::RowMajor, std::int64_t>::InnerIterator it(x, r); it;
         ++it) {
      entries.emplace_back(static_cast<SparseIndex>(r), static_cast<SparseIndex>(it.col()),
                           it.value());
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
Eigen::VectorXd Model::Predict(
    const Eigen::SparseMatrix<double, Eigen::RowMajor, std::int64_t>& x) const {
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
Eigen::VectorXd Model::PredictProba(
    const Eigen::SparseMatrix<double, Eigen::RowMajor, std::int64_t>& x) const {
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
  out += "  \"preparation\": {\n    \"scaling\": " + text(ChoiceName(prep_.scaling));
  if (prep_.scaling == Scaling::kGlobalMaxNorm) {
    out += ",\n    \"row_scale\": ";
    number(out, prep_.row_scale);
  }
  const auto numbers = [&](const char* name, const std::vector<double>& v) {
    out += ",\n    \"" + std::string(name) + "\": [";
    for (std::size_t k = 0; k < v.size(); ++k) {
      if (k > 0) out += ", ";
      number(out, v[k]);
    }
    out += "]";
  };
  if (prep_.scaling == Scaling::kPublicBounds) {
    out += ",\n    \"dims\": " + std::to_string(prep_.dims);
    out += std::string(",\n    \"sparse_rows\": ") + (prep_.sparse_rows ? "true" : "false");
    numbers("lo", prep_.bounds.lo);
    numbers("hi", prep_.bounds.hi);
  }
  if (prep_.scaling == Scaling::kStandardize) {
    out += ",\n    \"dims\": " + std::to_string(prep_.dims);
    numbers("mean", prep_.standardization.mean);
    numbers("scale", prep_.standardization.scale);
  }
  out += std::string(",\n    \"clip\": ") + (prep_.clip ? "true" : "false");
  if (!prep_.clip_blocks.empty()) {
    out += ",\n    \"clip_blocks\": [";
    for (std::size_t k = 0; k < prep_.clip_blocks.size(); ++k) {
      if (k > 0) out += ", ";
      out += std::to_string(prep_.clip_blocks[k]);
    }
    out += "]";
  }
  out += "\n  },\n  \"weights\": [";
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

namespace {

// Version 2's "preparation" object; each message names `where` and "preparation.<field>".
RowPreparation ReadPreparation(const OrderedJson& p, const std::string& where,
                               std::int64_t features, bool intercept) {
  const auto wrong = [&](const std::string& name, const char* want, const OrderedJson& v) {
    Bad(where, "preparation." + name + " must be " + want + ", got " + TypeName(v));
  };
  if (!p.is_object()) Bad(where, "preparation must be an object, got " + TypeName(p));
  const auto scaling_it = p.find("scaling");
  if (scaling_it == p.end()) Bad(where, "missing field 'preparation.scaling'");
  if (!scaling_it->is_string()) wrong("scaling", "a string", *scaling_it);
  RowPreparation prep;
  prep.scaling =
      ParseChoice<Scaling>(scaling_it->get<std::string>(), where + ": preparation.scaling");
  if (prep.scaling == Scaling::kAuto) {
    Bad(where, "preparation.scaling must be the scaling the run applied, not 'auto'");
  }
  const bool global = prep.scaling == Scaling::kGlobalMaxNorm;
  const bool bounds = prep.scaling == Scaling::kPublicBounds;
  const bool standardize = prep.scaling == Scaling::kStandardize;
  if (prep.scaling == Scaling::kDpBounds || prep.scaling == Scaling::kDpStandardize) {
    Bad(where, "preparation.scaling '" + scaling_it->get<std::string>() +
                   "' is stored as the map it agreed on ('public-bounds', 'standardize')");
  }
  for (const auto& item : p.items()) {
    const std::string& k = item.key();
    const bool known = k == "scaling" || k == "clip" || k == "clip_blocks" ||
                       (global && k == "row_scale") ||
                       (bounds && (k == "dims" || k == "sparse_rows" || k == "lo" || k == "hi")) ||
                       (standardize && (k == "dims" || k == "mean" || k == "scale"));
    if (!known) {
      Bad(where, "unknown field 'preparation." + k + "' for scaling '" +
                     scaling_it->get<std::string>() + "'");
    }
  }
  const auto need = [&](const char* name) -> const OrderedJson& {
    const auto it = p.find(name);
    if (it == p.end()) Bad(where, std::string("missing field 'preparation.") + name + "'");
    return *it;
  };
  const auto number = [&](const std::string& name, const OrderedJson& v) {
    if (!v.is_number()) wrong(name, "a number", v);
    const double d = v.get<double>();
    if (!std::isfinite(d)) Bad(where, "preparation." + name + " must be finite");
    return d;
  };
  if (global) {
    prep.row_scale = number("row_scale", need("row_scale"));
    if (!(prep.row_scale > 0.0)) Bad(where, "preparation.row_scale must be > 0");
  }
  const auto numbers = [&](const char* name, std::vector<double>& out) {
    const OrderedJson& v = need(name);
    if (!v.is_array()) wrong(name, "an array of numbers", v);
    if (static_cast<std::int64_t>(v.size()) != features) {
      Bad(where, std::string("preparation.") + name + " has " + std::to_string(v.size()) +
                     " values, but features is " + std::to_string(features));
    }
    for (std::size_t k = 0; k < v.size(); ++k) {
      out.push_back(number(std::string(name) + "[" + std::to_string(k) + "]", v[k]));
    }
  };
  if (bounds || standardize) {
    const OrderedJson& dims = need("dims");
    const std::int64_t want = features + (intercept ? 1 : 0);
    if (!dims.is_number_integer() || dims.get<std::int64_t>() < want) {
      Bad(where, "preparation.dims must be an integer >= features + intercept (" +
                     std::to_string(want) + "), got " + dims.dump());
    }
    prep.dims = dims.get<std::int64_t>();
  }
  if (standardize) {
    numbers("mean", prep.standardization.mean);
    numbers("scale", prep.standardization.scale);
    for (std::int64_t k = 0; k < features; ++k) {
      if (!(prep.standardization.scale[static_cast<std::size_t>(k)] > 0.0)) {
        Bad(where, "preparation.scale[" + std::to_string(k) + "] must be > 0");
      }
    }
  }
  if (bounds) {
    const OrderedJson& sparse = need("sparse_rows");
    if (!sparse.is_boolean()) wrong("sparse_rows", "true or false", sparse);
    prep.sparse_rows = sparse.get<bool>();
    for (const char* name : {"lo", "hi"}) {
      const OrderedJson& v = need(name);
      if (!v.is_array()) wrong(name, "an array of numbers", v);
      if (static_cast<std::int64_t>(v.size()) != features) {
        Bad(where, std::string("preparation.") + name + " has " + std::to_string(v.size()) +
                       " values, but features is " + std::to_string(features));
      }
      std::vector<double>& out = name[0] == 'l' ? prep.bounds.lo : prep.bounds.hi;
      for (std::size_t k = 0; k < v.size(); ++k) {
        out.push_back(number(std::string(name) + "[" + std::to_string(k) + "]", v[k]));
      }
    }
    for (std::int64_t k = 0; k < features; ++k) {
      const auto i = static_cast<std::size_t>(k);
      if (!(prep.bounds.lo[i] < prep.bounds.hi[i])) {
        Bad(where, "preparation.lo[" + std::to_string(k) + "] must be < preparation.hi[" +
                       std::to_string(k) + "]");
      }
    }
  }
  const OrderedJson& clip = need("clip");
  if (!clip.is_boolean()) wrong("clip", "true or false", clip);
  prep.clip = clip.get<bool>();
  const auto blocks = p.find("clip_blocks");
  if (blocks != p.end()) {
    if (!prep.clip) Bad(where, "preparation.clip_blocks is given but preparation.clip is false");
    if (!blocks->is_array()) wrong("clip_blocks", "an array of integers", *blocks);
    std::int64_t total = 0;
    for (std::size_t k = 0; k < blocks->size(); ++k) {
      const OrderedJson& b = (*blocks)[k];
      if (!b.is_number_integer() || b.get<std::int64_t>() < 1) {
        Bad(where, "preparation.clip_blocks[" + std::to_string(k) +
                       "] must be an integer >= 1, got " + b.dump());
      }
      prep.clip_blocks.push_back(b.get<std::int64_t>());
      total += prep.clip_blocks.back();
    }
    const std::int64_t cols = features + (intercept ? 1 : 0);
    if (total != cols) {
      Bad(where, "preparation.clip_blocks cover " + std::to_string(total) +
                     " columns, but features + intercept makes " + std::to_string(cols));
    }
  }
  return prep;
}

}  // namespace

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
  // The version first: it decides which fields are known.
  const auto version_it = j.find("version");
  const bool v1 = version_it != j.end() && version_it->is_number_integer() &&
                  version_it->get<std::int64_t>() == 1;
  for (const auto& item : j.items()) {
    bool known = false;
    for (const char* f : v1 ? kFieldsV1 : kFields) known = known || item.key() == f;
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
  if (version.get<std::int64_t>() != kFormatVersion && !v1) {
    Bad(where, "version " + version.dump() + " is not supported (this build reads versions 1 " +
                   "to " + std::to_string(kFormatVersion) + ")");
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
  RowPreparation prep;
  if (v1) {  // one factor: global-max-norm (or 1 = none), never clipped
    prep.row_scale = number("row_scale", field("row_scale"));
    if (!(prep.row_scale > 0.0)) Bad(where, "row_scale must be > 0");
  } else {
    prep = ReadPreparation(field("preparation"), where, features.get<std::int64_t>(),
                           intercept.get<bool>());
  }

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

  try {
    return Model(std::move(w), loss, std::move(prep), intercept.get<bool>(),
                 spec.get<std::string>(), std::move(spent));
  } catch (const InputError& e) {  // a preparation that does not fit the features
    std::string message = e.what();
    if (message.rfind("model: ", 0) == 0) message.erase(0, 7);
    Bad(where, "preparation: " + message);
  }
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
