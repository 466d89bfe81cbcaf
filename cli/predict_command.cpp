// SPDX-License-Identifier: Apache-2.0
#include "predict_command.h"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "core/numeric_parse.h"
#include "dpadmm/core/error.h"
#include "dpadmm/data/dataset.h"
#include "dpadmm/data/loaders.h"
#include "dpadmm/persistence/model.h"

#include "command_common.h"

namespace dpadmm::cli {
namespace {

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Delimited rows without a label column: every field is a feature. (The library's CSV loader
// always takes a label column.) Errors name the file and line.
DenseRows LoadUnlabelled(const std::string& path, char delimiter, bool header) {
  std::ifstream in(path, std::ios::binary);
  if (!in) Fail(path + ": cannot open file: " + std::strerror(errno));
  std::vector<double> values;
  std::int64_t cols = -1, rows = 0, line_no = 0;
  std::string line;
  bool skipped_header = !header;
  while (std::getline(in, line)) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
    if (!skipped_header) {
      skipped_header = true;
      continue;
    }
    std::int64_t fields = 0;
    const char* p = line.data();
    const char* end = p + line.size();
    while (p <= end) {
      if (delimiter == ' ') {
        while (p < end && (*p == ' ' || *p == '\t')) ++p;
        if (p == end) break;
      }
      const char* stop = p;
      while (stop < end &&
             (delimiter == ' ' ? (*stop != ' ' && *stop != '\t') : *stop != delimiter))
        ++stop;
      const char* a = p;
      const char* b = stop;
      while (a < b && (*a == ' ' || *a == '\t')) ++a;
      while (b > a && (b[-1] == ' ' || b[-1] == '\t')) --b;
      double v = 0.0;
      const auto r = std::from_chars(a, b, v);
      if (a == b || r.ec != std::errc() || r.ptr != b || !std::isfinite(v)) {
        ThrowAt(path, line_no,
                "field " + std::to_string(fields + 1) + ": '" + std::string(a, b) +
                    "' is not a finite number");
      }
      values.push_back(v);
      ++fields;
      p = stop + 1;
      if (stop == end) break;
    }
    if (cols < 0) cols = fields;
    if (fields != cols) {
      ThrowAt(path, line_no,
              std::to_string(fields) + " fields, expected " + std::to_string(cols) +
                  " (as in the first row)");
    }
    ++rows;
  }
  if (rows == 0) Fail(path + ": no data rows");
  DenseRows x(rows, cols);
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t c = 0; c < cols; ++c)
      x(r, c) = values[static_cast<std::size_t>(r * cols + c)];
  return x;
}

std::string Shortest(double v) {
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof(buf), v);
  return std::string(buf, r.ptr);
}

}  // namespace

bool SaveRunModel(const RunSummary& summary, const RunSpec& spec, const std::string& path) {
  if (spec.algorithm.name() == Algorithm::kLocal) {
    std::cerr << "dpadmm: model not saved to " << path
              << ": algorithm 'local' learns one model per node and no single model\n";
    return true;
  }
  // A diverged run's last reported model is finite but not a trained model: not saved either.
  if (summary.outcome == RunOutcome::kDiverged || summary.model.size() == 0 ||
      !summary.model.allFinite()) {
    std::cerr << "dpadmm: model not saved to " << path << ": the run has no usable model ("
              << ToString(summary.outcome) << ")\n";
    return true;
  }
  try {
    Model::FromRun(summary, spec).Save(path);
  } catch (const InputError& e) {
    std::cerr << "dpadmm: error: " << e.what() << '\n';
    return false;
  }
  return true;
}

PredictCommand::PredictCommand(CLI::App& app) {
  sub_ = app.add_subcommand(
      "predict",
      "Apply a saved model (dpadmm run --model-out FILE) to a data file: accuracy when the file "
      "has labels,\nand with --output one prediction, probability and score per row.");
  sub_->option_defaults()->always_capture_default();
  sub_->footer(
      "Rows are read as the training run read its files (no scaling): the model applies the "
      "training\nrow preparation itself (intercept, scaling, clipping).\nExit codes: 0 done; 2 bad "
      "input (model, "
      "data or flags); 1 internal error.");
  sub_->add_option("--model", model_, "Model file (JSON, format dpadmm.model)")
      ->type_name("FILE")
      ->required();
  sub_->add_option("--data", data_, "Rows to predict")->type_name("FILE")->required();
  sub_->add_option("--format", format_, "libsvm | csv (default: csv for a .csv file, else libsvm)")
      ->type_name("FORMAT")
      ->check(CLI::IsMember({"libsvm", "csv"}));
  sub_->add_option("--label-column", label_column_,
                   "csv: the label column, < 0 counts from the end")
      ->type_name("K")
      ->check([](const std::string& value) {  // the strict parser of every numeric flag
        int parsed = 0;
        return internal::ParseStrictInteger(value, parsed);
      });
  sub_->add_option("--delimiter", delimiter_, "csv: field separator (one character; ' ' = blanks)")
      ->type_name("C");
  sub_->add_flag("--header", header_, "csv: the first line is a header");
  sub_->add_flag("--no-labels", no_labels_, "csv: no label column, every field is a feature");
  sub_->add_option("--output", output_,
                   "Per-row predictions as CSV: prediction,probability,score ('-' = stdout)")
      ->type_name("FILE");
}

int PredictCommand::Run() const {
  const Model model = Model::Load(model_);
  const std::string format = !format_.empty()          ? format_
                             : EndsWith(data_, ".csv") ? "csv"
                                                       : "libsvm";
  if (delimiter_.size() != 1) Fail("--delimiter must be one character, got '" + delimiter_ + "'");
  if (no_labels_ && format != "csv") Fail("--no-labels applies to csv data only");

  Dataset data;
  bool labelled = true;
  if (format == "libsvm") {
    // Fixing the column count makes an index above the model's features an error naming the
    // line; fewer columns are padded with zeros, as the run padded its test file.
    data = LoadLibsvm(data_, model.features());
  } else if (no_labels_) {
    data.x = LoadUnlabelled(data_, delimiter_[0], header_);
    labelled = false;
  } else {
    data = LoadCsv(data_, label_column_, delimiter_[0], header_);
  }
  if (data.cols() != model.features()) {
    Fail(data_ + ": rows have " + std::to_string(data.cols()) + " features, the model " + model_ +
         " expects " + std::to_string(model.features()));
  }

  const Eigen::VectorXd scores =
      VisitRows(data, [&](const auto& x) -> Eigen::VectorXd { return model.DecisionFunction(x); });
  if (!output_.empty()) {
    std::ofstream file;
    if (output_ != "-") {
      file.open(output_, std::ios::binary | std::ios::trunc);
      if (!file) Fail(output_ + ": cannot write predictions: " + std::strerror(errno));
    }
    std::ostream& out = output_ == "-" ? std::cout : file;
    std::string text = "prediction,probability,score\n";
    for (Eigen::Index n = 0; n < scores.size(); ++n) {
      const double s = scores[n];
      text += s >= 0.0 ? "1," : "-1,";
      if (model.has_probability()) text += Shortest(model.ScoreToProbability(s));
      text += "," + Shortest(s) + "\n";
    }
    out << text << std::flush;
    if (!out) {
      std::cerr << "dpadmm: error: could not write " << output_ << '\n';
      return 1;
    }
  }
  std::ostream& report = output_ == "-" ? std::cerr : std::cout;
  report << "dpadmm predict: " << scores.size() << " rows of " << data_ << " (" << format
         << "), model " << model_ << " (" << model.features() << " features, "
         << model.loss().Name() << " loss, " << ChoiceName(model.preparation().scaling)
         << (model.preparation().clip ? " scaling, clipped rows)\n" : " scaling)\n");
  if (labelled) {
    std::int64_t right = 0;
    for (Eigen::Index n = 0; n < scores.size(); ++n)
      right += (scores[n] >= 0.0 ? 1.0 : -1.0) == data.y[n];
    char line[96];
    std::snprintf(line, sizeof(line), "  accuracy %.2f%% (%lld of %lld rows right)\n",
                  100.0 * static_cast<double>(right) / static_cast<double>(scores.size()),
                  static_cast<long long>(right), static_cast<long long>(scores.size()));
    report << line;
  }
  return 0;
}

}  // namespace dpadmm::cli
