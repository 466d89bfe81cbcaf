// SPDX-License-Identifier: Apache-2.0
// `dpadmm predict`: applies a saved model (dpadmm run --model-out, or Model::Save) to a data
// file. Rows are read raw, as the run read its own files; the model applies the training
// transformation (intercept, normalisation) itself. Prints the row count and, when the file
// has labels, the accuracy; --output writes one line per row: prediction (-1/+1), probability
// of +1 (logistic loss; empty for smooth hinge) and the score. Exit codes: 0 done, 2 bad input
// (model, data or flags), 1 internal error.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include "dpadmm/run/run.h"
#include "dpadmm/run/run_spec.h"

namespace dpadmm::cli {

// `dpadmm run --model-out FILE`: saves the run's model (dpadmm::Model::FromRun). A diverged run
// (or one without a finite model) saves nothing and says so on stderr; that is not an error
// (the outcome decides the exit code). Returns false, after printing the
// error, if the file cannot be written.
bool SaveRunModel(const RunSummary& summary, const RunSpec& spec, const std::string& path);

class PredictCommand {
 public:
  // Adds the subcommand to `app`.
  explicit PredictCommand(CLI::App& app);
  PredictCommand(const PredictCommand&) = delete;
  PredictCommand& operator=(const PredictCommand&) = delete;

  bool parsed() const { return sub_->parsed(); }
  // Runs the parsed command; returns the exit code. Throws InputError for bad input.
  int Run() const;

 private:
  CLI::App* sub_;
  std::string model_, data_, format_, output_, delimiter_ = ",";
  int label_column_ = -1;
  bool header_ = false, no_labels_ = false;
};

}  // namespace dpadmm::cli
