// SPDX-License-Identifier: Apache-2.0
// The learned linear classifier of a finished run, for services that embed dpadmm: predict on
// raw rows, save and load it as versioned JSON.
//
//   dpadmm::Experiment exp(spec);
//   const dpadmm::RunSummary s = exp.Run();
//   const dpadmm::Model model = dpadmm::Model::FromRun(s, spec);
//   model.Save("model.json");
//   ...
//   const dpadmm::Model loaded = dpadmm::Model::Load("model.json");
//   Eigen::VectorXd p = loaded.PredictProba(raw_rows);   // logistic loss only
//   Eigen::VectorXd y = loaded.Predict(raw_rows);        // -1 / +1
//
// Rows are given as they were read ("raw"): the model stores the run's whole row preparation
// (RowPreparation: the scaling, the intercept column, clipping) and applies it to every row with
// the library functions training used, in the same order, so on the run's own test rows the
// batch functions reproduce the run's test error bit for bit, for every scaling.
//
// Thread safety: a Model is immutable after construction; every const method may be called
// from several threads at once.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <Eigen/Dense>
#include <Eigen/SparseCore>

#include "dpadmm/data/dataset.h"
#include "dpadmm/data/preprocessing.h"
#include "dpadmm/data/standardization.h"
#include "dpadmm/run/choices.h"
#include "dpadmm/run/run.h"
#include "dpadmm/run/run_spec.h"
#include "dpadmm/solver/loss.h"

namespace dpadmm {

/// The privacy a model cost, as the run reported it.
struct PrivacySpent {
  /// The reported figure: RoundMetrics::privacy_loss of the model's round (0 for non-private
  /// algorithms; NaN if not available).
  double value = 0.0;
  /// What the figure means for the algorithm that trained the model (RunInfo::
  /// privacy_guarantee: one sentence naming the paper and the noise mode).
  std::string meaning;
};

/// What training did to every raw row x before the dot product (experiment's PrepareRows), in
/// this order:
///   1. append the intercept feature 1 (if the model has an intercept and the scaling is not
///      public-bounds or standardize);
///   2. kGlobalMaxNorm: multiply by row_scale (Dataset::Scale). (When GlobalMaxNormScale had to
///      shrink its factor by ulps, training multiplied in several steps and row_scale is their
///      product: scores may then differ from the run's in the last bits);
///      kPublicBounds: ScaleByPublicBounds(bounds, dims), then append the intercept feature
///      1 / sqrt(dims) (if the model has an intercept). That map differs for dense and sparse
///      rows (it keeps sparse rows' zeros), so rows are first stored as training stored them
///      (sparse_rows);
///      kStandardize: StandardizeRows(standardization, dims) (dense rows: sparse rows are made
///      dense first), then append the intercept feature 1 / sqrt(dims) (if the model has an
///      intercept);
///      kClipOnly, kNone: nothing;
///   3. if clip: ClipRows, or ClipRowBlocks(clip_blocks) when clip_blocks is not empty (the
///      sharing family clips each party's column block on its own).
struct RowPreparation {
  Scaling scaling = Scaling::kGlobalMaxNorm;  // never kAuto
  double row_scale = 1.0;                     // kGlobalMaxNorm only
  FeatureBounds bounds;                       // kPublicBounds only: one lo/hi per raw feature
  FeatureStandardization standardization;     // kStandardize only: mean, scale per raw feature
  std::int64_t dims = 0;                      // kPublicBounds, kStandardize: the final column count
  bool sparse_rows = false;                   // kPublicBounds only: training rows were sparse
  bool clip = false;
  std::vector<std::int64_t> clip_blocks;  // empty: whole rows; else sums to the column count
};

/// A linear classifier sign(w^T x') on prepared rows x' = prepare(x) (RowPreparation), where x
/// is a raw row.
class Model {
 public:
  /// The version of the JSON format this build writes. Version 1 files (one row factor) are
  /// still read, as a global-max-norm preparation without clipping.
  static constexpr int kFormatVersion = 2;

  /// Builds a model. Throws InputError if a weight is not finite, the weights are empty (or
  /// hold only the intercept), or row_scale is not finite and > 0.
  /// @param weights   w, one per feature, plus the intercept weight last if `intercept`
  /// @param loss      the training loss (decides what PredictProba means)
  /// @param row_scale the normalisation factor training applied to every row (1 = none)
  /// @param intercept whether a constant feature 1 was appended to every row before scaling
  /// @param spec_json the spec the model was trained with (opaque text, kept verbatim)
  /// @param privacy   the privacy the training run spent
  Model(Eigen::VectorXd weights, Loss loss, double row_scale, bool intercept, std::string spec_json,
        PrivacySpent privacy);
  /// The same with any row preparation. Throws InputError also if the preparation does not fit
  /// the features (bounds per feature with lo < hi, dims >= the final column count, clip blocks
  /// >= 1 summing to the final column count) or its scaling is kAuto.
  Model(Eigen::VectorXd weights, Loss loss, RowPreparation preparation, bool intercept,
        std::string spec_json, PrivacySpent privacy);

  /// The model of a finished run: summary.model (the mean of the nodes' models at the last
  /// reported round), spec.loss, the run's row preparation (summary.info.scaling with
  /// normalization_factor, or the public bounds of spec.data, read again from
  /// feature_bounds_path if set; the party blocks of a sharing run), spec.data.add_bias,
  /// SpecToJson(spec), and the last round's privacy loss with its meaning. Throws InputError if
  /// the run has no finite model (it diverged, or failed before round 0).
  [[nodiscard]] static Model FromRun(const RunSummary& summary, const RunSpec& spec);

  /// All weights, the intercept weight last when intercept() is true.
  [[nodiscard]] const Eigen::VectorXd& weights() const { return weights_; }
  [[nodiscard]] const Loss& loss() const { return loss_; }
  /// The whole row preparation.
  [[nodiscard]] const RowPreparation& preparation() const { return prep_; }
  /// The factor every (intercept-extended) row is multiplied by (global-max-norm; else 1).
  [[nodiscard]] double row_scale() const { return prep_.row_scale; }
  /// Applies the row preparation to raw rows (features() columns; InputError otherwise, or for
  /// NaN / Inf when clipping): the rows the weights apply to. Public bounds: the rows are
  /// stored as training stored them first (dense or sparse).
  void PrepareRows(Dataset& rows) const;
  [[nodiscard]] bool intercept() const { return intercept_; }
  /// The number of raw features a row must have.
  [[nodiscard]] std::int64_t features() const { return weights_.size() - (intercept_ ? 1 : 0); }
  [[nodiscard]] const std::string& spec_json() const { return spec_json_; }
  [[nodiscard]] const PrivacySpent& privacy() const { return privacy_; }
  /// True for the logistic loss: PredictProba is P(y = +1 | x) = sigmoid(decision).
  [[nodiscard]] bool has_probability() const { return loss_.kind == LossKind::kLogistic; }

  /// The score w^T x' of one raw row (features() values). Throws InputError on a wrong length.
  /// The row is prepared as the batch functions prepare rows; the score is equal to theirs up
  /// to rounding (the product of one row may take another evaluation order).
  [[nodiscard]] double DecisionFunction(std::span<const double> x) const;
  [[nodiscard]] double DecisionFunction(const Eigen::VectorXd& x) const;
  /// Scores of many raw rows (one per row). Throws InputError if the column count is not
  /// features().
  [[nodiscard]] Eigen::VectorXd DecisionFunction(const DenseRows& x) const;
  [[nodiscard]] Eigen::VectorXd DecisionFunction(const Eigen::MatrixXd& x) const;
  [[nodiscard]] Eigen::VectorXd DecisionFunction(const SparseRows& x) const;
  [[nodiscard]] Eigen::VectorXd DecisionFunction(
      const Eigen::SparseMatrix<double, Eigen::RowMajor, std::int64_t>& x) const;

  /// +1 if the score is >= 0, else -1 (the convention of the run's test error).
  [[nodiscard]] double Predict(std::span<const double> x) const;
  [[nodiscard]] double Predict(const Eigen::VectorXd& x) const;
  [[nodiscard]] Eigen::VectorXd Predict(const DenseRows& x) const;
  [[nodiscard]] Eigen::VectorXd Predict(const Eigen::MatrixXd& x) const;
  [[nodiscard]] Eigen::VectorXd Predict(const SparseRows& x) const;
  [[nodiscard]] Eigen::VectorXd Predict(
      const Eigen::SparseMatrix<double, Eigen::RowMajor, std::int64_t>& x) const;

  /// Logistic loss: P(y = +1 | x) = 1 / (1 + exp(-score)), the model logistic regression fits.
  /// The smooth hinge loss is not a likelihood, so it has no probability: throws
  /// std::logic_error (check has_probability() first).
  [[nodiscard]] double PredictProba(std::span<const double> x) const;
  [[nodiscard]] double PredictProba(const Eigen::VectorXd& x) const;
  [[nodiscard]] Eigen::VectorXd PredictProba(const DenseRows& x) const;
  [[nodiscard]] Eigen::VectorXd PredictProba(const Eigen::MatrixXd& x) const;
  [[nodiscard]] Eigen::VectorXd PredictProba(const SparseRows& x) const;
  [[nodiscard]] Eigen::VectorXd PredictProba(
      const Eigen::SparseMatrix<double, Eigen::RowMajor, std::int64_t>& x) const;

  /// The probability PredictProba gives for a row with this score (logistic loss only; throws
  /// std::logic_error otherwise).
  [[nodiscard]] double ScoreToProbability(double score) const;

  /// Any other dense Eigen expression: a compile-time row or column vector is one row (a
  /// double is returned), anything else a matrix of rows (a vector is returned), evaluated
  /// into the types above first.
  template <class Derived>
  [[nodiscard]] auto DecisionFunction(const Eigen::MatrixBase<Derived>& x) const {
    return Dispatch(x, [this](const auto& v) { return DecisionFunction(v); });
  }
  template <class Derived>
  [[nodiscard]] auto Predict(const Eigen::MatrixBase<Derived>& x) const {
    return Dispatch(x, [this](const auto& v) { return Predict(v); });
  }
  template <class Derived>
  [[nodiscard]] auto PredictProba(const Eigen::MatrixBase<Derived>& x) const {
    return Dispatch(x, [this](const auto& v) { return PredictProba(v); });
  }

  /// Fraction of rows of `data` (raw rows) misclassified; NaN for no rows.
  [[nodiscard]] double TestError(const Dataset& data) const;

  /// The model as an indented JSON object (no trailing newline):
  ///   {"format": "dpadmm.model", "version": 2, "loss": "logistic", "huber_h": 0.5,
  ///    "features": d, "intercept": false,
  ///    "preparation": {"scaling": "global-max-norm", "row_scale": s, "clip": false},
  ///    "weights": [...], "privacy": {"value": v, "meaning": "..."}, "spec": "<spec JSON text>"}
  /// "preparation" holds "scaling" and "clip" always, "row_scale" for global-max-norm only,
  /// "dims", "sparse_rows", "lo" and "hi" (one per feature) for public-bounds only, and
  /// "clip_blocks" only
  /// when blocks are clipped separately. Version 1 had "row_scale" at the top level instead.
  /// Doubles are written in the shortest form that reads back to the same bits; a privacy
  /// value that is not finite is written as null.
  [[nodiscard]] std::string ToJson() const;
  /// Parses ToJson's format. `where` names the source in messages (usually the file name).
  /// Throws InputError naming `where` and the field for a syntax error, a missing or unknown
  /// field, a wrong type, another format or version, a weight count that does not match
  /// features + intercept, a weight, scale or bound that is not finite, or a preparation that
  /// does not fit the features.
  [[nodiscard]] static Model FromJson(const std::string& json_text, const std::string& where);

  /// Writes ToJson() and a newline to `path`. Throws InputError if the file cannot be written.
  void Save(const std::string& path) const;
  /// Reads a file written by Save. Throws InputError ("path: ...") as FromJson does, or if the
  /// file cannot be read.
  [[nodiscard]] static Model Load(const std::string& path);

 private:
  template <class Derived, class Fn>
  static auto Dispatch(const Eigen::MatrixBase<Derived>& x, Fn&& fn) {
    if constexpr (Derived::ColsAtCompileTime == 1) {
      return fn(Eigen::VectorXd(x));
    } else if constexpr (Derived::RowsAtCompileTime == 1) {
      return fn(Eigen::VectorXd(x.transpose()));
    } else {
      return fn(DenseRows(x));
    }
  }

  Eigen::VectorXd weights_;
  Loss loss_;
  RowPreparation prep_;
  bool intercept_ = false;
  std::string spec_json_;
  PrivacySpent privacy_;
};

}  // namespace dpadmm
