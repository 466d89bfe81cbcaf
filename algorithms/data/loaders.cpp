// SPDX-License-Identifier: Apache-2.0
#include "dpadmm/data/loaders.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <limits>
#include <optional>
#include <set>
#include <string_view>
#include <vector>

#include "core/text_parse.h"
#include "dpadmm/core/error.h"

namespace dpadmm {
namespace {

using internal::LineReader;
using internal::ParseFiniteDouble;
using internal::ParseInt;
using internal::Quote;
using internal::SplitFields;

std::string FileName(const std::string& path) {
  return std::filesystem::path(path).filename().string();
}

// Collects raw labels and maps them to -1/+1. A file uses one label set: -1/+1, 0/1 or 1/2
// (preferred in that order when the labels present fit several, e.g. a file of only 1s).
class LabelMapper {
 public:
  explicit LabelMapper(bool plus_minus_one_only) : plus_minus_one_only_(plus_minus_one_only) {}

  // keep = false: the label takes part in choosing the file's mapping but is not stored (a row
  // another process loads).
  void Add(std::string_view token, const std::string& path, long long line, bool keep = true) {
    const double raw = ParseFiniteDouble(token, path, line, "label");
    const int code = raw == -1.0 ? 0 : raw == 0.0 ? 1 : raw == 1.0 ? 2 : raw == 2.0 ? 3 : -1;
    if (code < 0 || (plus_minus_one_only_ && code != 0 && code != 2)) {
      ThrowAt(path, line, "unknown label " + Quote(token) + " (expected " + Expected() + ")");
    }
    seen_ |= 1u << code;
    if (ChosenMap() < 0) {
      ThrowAt(path, line,
              "label " + Quote(token) +
                  " cannot be mixed with the labels of earlier lines (expected " + Expected() +
                  ")");
    }
    if (keep) raw_.push_back(raw);
  }

  std::int64_t size() const { return static_cast<std::int64_t>(raw_.size()); }

  Eigen::VectorXd Finish() const {
    const double positive = kMaps[ChosenMap()].positive;
    Eigen::VectorXd y(size());
    for (std::int64_t i = 0; i < size(); ++i) y[i] = raw_[i] == positive ? 1.0 : -1.0;
    return y;
  }

 private:
  struct Map {
    unsigned mask;  // bit k set: raw label k - 1 belongs to the set
    double positive;
  };
  static constexpr std::array<Map, 3> kMaps = {{{0b0101u, 1.0}, {0b0110u, 1.0}, {0b1100u, 2.0}}};

  int ChosenMap() const {
    const int count = plus_minus_one_only_ ? 1 : 3;
    for (int k = 0; k < count; ++k) {
      if ((seen_ & ~kMaps[k].mask) == 0) return k;
    }
    return -1;
  }
  std::string Expected() const { return plus_minus_one_only_ ? "-1 or +1" : "-1/+1, 0/1 or 1/2"; }

  bool plus_minus_one_only_;
  unsigned seen_ = 0;
  std::vector<double> raw_;
};

void RequireRows(const std::string& path, std::int64_t rows) {
  if (rows == 0) ThrowAt(path, 0, "empty file: no data rows");
}

// Compressed row-major storage from CSR arrays (inner indices sorted within each row). The
// arrays are copied in directly: assigning an Eigen::Map instead reserves
// min(rows * cols, 2 max(rows, cols)) entries, so one LIBSVM index near 1e13 asked for
// terabytes.
SparseRows MakeSparse(std::int64_t cols, const std::vector<std::int64_t>& outer,
                      const std::vector<std::int64_t>& inner, const std::vector<double>& values) {
  SparseRows m(static_cast<Eigen::Index>(outer.size() - 1), cols);
  m.resizeNonZeros(static_cast<Eigen::Index>(values.size()));
  std::copy(outer.begin(), outer.end(), m.outerIndexPtr());
  std::copy(inner.begin(), inner.end(), m.innerIndexPtr());
  std::copy(values.begin(), values.end(), m.valuePtr());
  return m;
}

// ---- LIBSVM ----------------------------------------------------------------------------------

struct SparseBuilder {
  std::vector<std::int64_t> outer{0};
  std::vector<std::int64_t> inner;
  std::vector<double> values;
  std::int64_t max_index = 0;  // largest 1-based index seen, explicit zeros included
};

// Parses the "index:value" tokens of one LIBSVM line into `b` (exact zeros are not stored).
void ParseLibsvmEntries(const std::vector<std::string_view>& fields, std::int64_t num_features,
                        const std::string& path, long long line, SparseBuilder& b) {
  std::int64_t previous = 0;
  for (std::size_t k = 1; k < fields.size(); ++k) {
    const std::string_view token = fields[k];
    const std::size_t colon = token.find(':');
    if (colon == std::string_view::npos) {
      ThrowAt(path, line, "bad token " + Quote(token) + " (expected index:value)");
    }
    const std::int64_t index = ParseInt(token.substr(0, colon), path, line, "feature index");
    if (index < 1) {
      ThrowAt(path, line, "feature index " + std::to_string(index) + " out of range (1-based)");
    }
    if (num_features > 0 && index > num_features) {
      ThrowAt(path, line,
              "feature index " + std::to_string(index) + " exceeds the " +
                  std::to_string(num_features) + " features");
    }
    if (index <= previous) {
      ThrowAt(path, line,
              "feature index " + std::to_string(index) +
                  " is not greater than the previous index " + std::to_string(previous));
    }
    previous = index;
    const double value = ParseFiniteDouble(token.substr(colon + 1), path, line, "value");
    b.max_index = std::max(b.max_index, index);
    if (value != 0.0) {
      b.inner.push_back(index - 1);
      b.values.push_back(value);
    }
  }
  b.outer.push_back(static_cast<std::int64_t>(b.inner.size()));
}

// ---- Delimited tables (CSV, .asc) --------------------------------------------------------------

struct Table {
  std::vector<double> values;  // row-major features
  std::int64_t rows = 0;
  std::int64_t cols = 0;  // feature columns
};

// Reads a table of numbers. If label_column is set, that column (negative: from the end) goes
// to `labels` and the others are features. Blank lines are skipped.
Table ReadTable(const std::string& path, char delimiter, bool has_header,
                std::optional<int> label_column, LabelMapper* labels) {
  const std::string text = internal::ReadWholeFile(path);
  LineReader lines(text);
  std::string_view line;
  std::vector<std::string_view> fields;
  Table t;
  std::size_t width = 0;
  std::size_t label_index = static_cast<std::size_t>(-1);
  bool header_pending = has_header;
  while (lines.Next(line)) {
    if (internal::IsBlank(line)) continue;
    if (header_pending) {
      header_pending = false;
      continue;
    }
    SplitFields(line, delimiter, fields);
    if (width == 0) {
      width = fields.size();
      if (label_column) {
        const long long c =
            *label_column < 0 ? static_cast<long long>(width) + *label_column : *label_column;
        if (c < 0 || c >= static_cast<long long>(width)) {
          ThrowAt(path, lines.number(),
                  "label column " + std::to_string(*label_column) + " out of range for " +
                      std::to_string(width) + " columns");
        }
        label_index = static_cast<std::size_t>(c);
      }
      t.cols = static_cast<std::int64_t>(width) - (label_column ? 1 : 0);
    } else if (fields.size() != width) {
      ThrowAt(
          path, lines.number(),
          "expected " + std::to_string(width) + " columns, found " + std::to_string(fields.size()));
    }
    for (std::size_t j = 0; j < fields.size(); ++j) {
      if (j == label_index) {
        labels->Add(fields[j], path, lines.number());
      } else {
        t.values.push_back(ParseFiniteDouble(fields[j], path, lines.number(), "value"));
      }
    }
    ++t.rows;
  }
  RequireRows(path, t.rows);
  return t;
}

DenseRows MakeDense(const Table& t) {
  return Eigen::Map<const DenseRows>(t.values.data(), t.rows, t.cols);
}

// ---- UCI Adult ---------------------------------------------------------------------------------

constexpr std::size_t kAdultFields = 15;
constexpr std::array<int, 6> kAdultNumeric = {0, 2, 4, 10, 11, 12};
constexpr std::array<int, 8> kAdultCategorical = {1, 3, 5, 6, 7, 8, 9, 13};
constexpr int kAdultLabel = 14;

struct AdultRecord {
  std::array<double, kAdultNumeric.size()> numeric;
  std::array<std::string_view, kAdultCategorical.size()> categories;
  double label;
};

struct AdultFile {
  std::string path;
  std::string text;  // the records' string_views point into it
  std::vector<AdultRecord> records;
};

double AdultLabel(std::string_view token, const std::string& path, long long line) {
  if (!token.empty() && token.back() == '.') token.remove_suffix(1);
  if (token == ">50K") return 1.0;
  if (token == "<=50K") return -1.0;
  ThrowAt(path, line, "unknown label " + Quote(token) + " (expected <=50K or >50K)");
}

// Reads complete records; skips blank lines, lines starting with '|' and rows with a '?'.
void ReadAdultFile(AdultFile& f) {
  f.text = internal::ReadWholeFile(f.path);
  LineReader lines(f.text);
  std::string_view line;
  std::vector<std::string_view> fields;
  bool any = false;
  while (lines.Next(line)) {
    if (internal::IsBlank(line) || internal::Trim(line).front() == '|') continue;
    any = true;
    SplitFields(line, ',', fields);
    if (fields.size() != kAdultFields) {
      ThrowAt(f.path, lines.number(),
              "expected " + std::to_string(kAdultFields) + " fields, found " +
                  std::to_string(fields.size()));
    }
    if (std::find(fields.begin(), fields.end(), "?") != fields.end()) continue;
    AdultRecord r;
    for (std::size_t k = 0; k < kAdultNumeric.size(); ++k) {
      r.numeric[k] = ParseFiniteDouble(fields[kAdultNumeric[k]], f.path, lines.number(), "value");
    }
    for (std::size_t k = 0; k < kAdultCategorical.size(); ++k) {
      r.categories[k] = fields[kAdultCategorical[k]];
    }
    r.label = AdultLabel(fields[kAdultLabel], f.path, lines.number());
    f.records.push_back(r);
  }
  if (!any) RequireRows(f.path, 0);
  if (f.records.empty()) ThrowAt(f.path, 0, "no complete rows (every row has a '?')");
}

struct AdultEncoding {
  std::array<double, kAdultNumeric.size()> min, max;
  // Sorted categories of each categorical attribute and the column of its first category.
  std::array<std::vector<std::string_view>, kAdultCategorical.size()> categories;
  std::array<std::int64_t, kAdultCategorical.size()> offset;
  std::int64_t cols = 0;
};

AdultEncoding MakeAdultEncoding(const AdultFile& train, const AdultFile& test) {
  AdultEncoding e;
  e.min.fill(std::numeric_limits<double>::infinity());
  e.max.fill(-std::numeric_limits<double>::infinity());
  std::array<std::set<std::string_view>, kAdultCategorical.size()> seen;
  for (const AdultFile* f : {&train, &test}) {
    for (const AdultRecord& r : f->records) {
      for (std::size_t k = 0; k < r.numeric.size(); ++k) {
        e.min[k] = std::min(e.min[k], r.numeric[k]);
        e.max[k] = std::max(e.max[k], r.numeric[k]);
      }
      for (std::size_t k = 0; k < r.categories.size(); ++k) seen[k].insert(r.categories[k]);
    }
  }
  e.cols = static_cast<std::int64_t>(kAdultNumeric.size());
  for (std::size_t k = 0; k < e.categories.size(); ++k) {
    e.categories[k].assign(seen[k].begin(), seen[k].end());  // sorted by byte value
    e.offset[k] = e.cols;
    e.cols += static_cast<std::int64_t>(seen[k].size());
  }
  return e;
}

Dataset EncodeAdult(const AdultFile& f, const AdultEncoding& e) {
  std::vector<std::int64_t> outer{0}, inner;
  std::vector<double> values;
  Eigen::VectorXd y(static_cast<Eigen::Index>(f.records.size()));
  for (std::size_t i = 0; i < f.records.size(); ++i) {
    const AdultRecord& r = f.records[i];
    for (std::size_t k = 0; k < r.numeric.size(); ++k) {
      const double range = e.max[k] - e.min[k];
      double scaled = range > 0.0 ? (r.numeric[k] - e.min[k]) / range : 0.0;
      if (std::isinf(range)) {
        // max - min beyond the double range (e.g. -1e308 and 1e308) would give inf / inf = NaN:
        // scale with halved operands instead (the same ratio, up to rounding).
        scaled = (r.numeric[k] / 2 - e.min[k] / 2) / (e.max[k] / 2 - e.min[k] / 2);
      }
      if (scaled != 0.0) {
        inner.push_back(static_cast<std::int64_t>(k));
        values.push_back(scaled);
      }
    }
    for (std::size_t k = 0; k < r.categories.size(); ++k) {
      const auto& c = e.categories[k];
      const auto it = std::lower_bound(c.begin(), c.end(), r.categories[k]);
      inner.push_back(e.offset[k] + (it - c.begin()));
      values.push_back(1.0);
    }
    outer.push_back(static_cast<std::int64_t>(inner.size()));
    y[static_cast<Eigen::Index>(i)] = r.label;
  }
  Dataset d;
  d.x = MakeSparse(e.cols, outer, inner, values);
  d.y = std::move(y);
  d.name = FileName(f.path);
  return d;
}

}  // namespace

Dataset LoadLibsvm(const std::string& path, std::int64_t num_features) {
  if (num_features < 0) ThrowAt(path, 0, "num_features must be >= 0");
  const std::string text = internal::ReadWholeFile(path);
  LineReader lines(text);
  std::string_view line;
  std::vector<std::string_view> fields;
  SparseBuilder b;
  const auto entries = static_cast<std::size_t>(std::count(text.begin(), text.end(), ':'));
  b.inner.reserve(entries);
  b.values.reserve(entries);
  LabelMapper labels(/*plus_minus_one_only=*/false);
  while (lines.Next(line)) {
    SplitFields(line, ' ', fields);
    if (fields.empty()) continue;
    labels.Add(fields[0], path, lines.number());
    ParseLibsvmEntries(fields, num_features, path, lines.number(), b);
  }
  RequireRows(path, labels.size());
  Dataset d;
  d.x = MakeSparse(num_features > 0 ? num_features : b.max_index, b.outer, b.inner, b.values);
  d.y = labels.Finish();
  d.name = FileName(path);
  return d;
}

Dataset LoadLibsvmRows(const std::string& path, std::span<const std::int64_t> keep,
                       std::int64_t num_features, std::int64_t* rows_in_file) {
  if (num_features < 0) ThrowAt(path, 0, "num_features must be >= 0");
  for (std::size_t k = 1; k < keep.size(); ++k) {
    if (keep[k] <= keep[k - 1]) ThrowAt(path, 0, "the rows to keep must be increasing");
  }
  const std::string text = internal::ReadWholeFile(path);
  LineReader lines(text);
  std::string_view line;
  std::vector<std::string_view> fields;
  SparseBuilder b;
  LabelMapper labels(/*plus_minus_one_only=*/false);
  std::int64_t row = 0;
  std::size_t next = 0;  // keep[next] is the next row to load
  while (lines.Next(line)) {
    std::size_t first = 0;
    while (first < line.size() && internal::IsSpace(line[first])) ++first;
    if (first == line.size()) continue;  // blank, as in LoadLibsvm
    const bool wanted = next < keep.size() && keep[next] == row;
    if (wanted) {
      SplitFields(line, ' ', fields);
      labels.Add(fields[0], path, lines.number());
      ParseLibsvmEntries(fields, num_features, path, lines.number(), b);
      ++next;
    } else {
      // Only the label: the file's label mapping depends on every label present.
      std::size_t end = first;
      while (end < line.size() && !internal::IsSpace(line[end])) ++end;
      labels.Add(line.substr(first, end - first), path, lines.number(), /*keep=*/false);
    }
    ++row;
  }
  RequireRows(path, row);
  if (next < keep.size()) {
    ThrowAt(path, 0,
            "row " + std::to_string(keep[next]) + " requested but the file has " +
                std::to_string(row) + " data rows");
  }
  if (rows_in_file != nullptr) *rows_in_file = row;
  Dataset d;
  d.x = MakeSparse(num_features > 0 ? num_features : b.max_index, b.outer, b.inner, b.values);
  d.y = labels.Finish();
  d.name = FileName(path);
  return d;
}

AdultData LoadAdult(const std::string& train_path, const std::string& test_path) {
  AdultFile train{train_path, {}, {}};
  AdultFile test{test_path, {}, {}};
  ReadAdultFile(train);
  ReadAdultFile(test);
  const AdultEncoding encoding = MakeAdultEncoding(train, test);
  return AdultData{EncodeAdult(train, encoding), EncodeAdult(test, encoding)};
}

Dataset LoadCsv(const std::string& path, int label_column, char delimiter, bool has_header) {
  LabelMapper labels(/*plus_minus_one_only=*/false);
  const Table t = ReadTable(path, delimiter, has_header, label_column, &labels);
  if (t.cols == 0) ThrowAt(path, 0, "no feature columns besides the label");
  Dataset d;
  d.x = MakeDense(t);
  d.y = labels.Finish();
  d.name = FileName(path);
  return d;
}

Dataset LoadAsc(const std::string& data_path, const std::string& labels_path) {
  const Table t = ReadTable(data_path, ' ', false, std::nullopt, nullptr);
  LabelMapper labels(/*plus_minus_one_only=*/true);
  const std::string text = internal::ReadWholeFile(labels_path);
  LineReader lines(text);
  std::string_view line;
  std::vector<std::string_view> fields;
  while (lines.Next(line)) {
    SplitFields(line, ' ', fields);
    if (fields.empty()) continue;
    if (fields.size() != 1) {
      ThrowAt(labels_path, lines.number(),
              "expected one label, found " + std::to_string(fields.size()) + " fields");
    }
    labels.Add(fields[0], labels_path, lines.number());
  }
  RequireRows(labels_path, labels.size());
  if (labels.size() != t.rows) {
    ThrowAt(labels_path, 0,
            "has " + std::to_string(labels.size()) + " labels but " + data_path + " has " +
                std::to_string(t.rows) + " rows");
  }
  Dataset d;
  d.x = MakeDense(t);
  d.y = labels.Finish();
  d.name = FileName(data_path);
  return d;
}

}  // namespace dpadmm
