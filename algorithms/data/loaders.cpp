// SPDX-License-Identifier: Apache-2.0
#include "dpadmm/data/loaders.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string_view>
#include <vector>

#include "core/text_parse.h"
#include "data/memory_release.h"
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
  unsigned seen() const { return seen_; }

  Eigen::VectorXd Finish() const {
    const double positive = kMaps[ChosenMap()].positive;
    Eigen::VectorXd y(size());
    for (std::int64_t i = 0; i < size(); ++i) y[i] = raw_[i] == positive ? 1.0 : -1.0;
    return y;
  }
  // The raw labels (-1, 0, 1 or 2), unmapped: a share of a file whose mapping is decided by the
  // labels of every share (MapRawLabels).
  Eigen::VectorXd Raw() const { return Eigen::Map<const Eigen::VectorXd>(raw_.data(), size()); }

  // The mapping's positive raw label for the label set `seen`, or NaN if it fits none.
  static double PositiveOf(unsigned seen, bool plus_minus_one_only) {
    const int k = ChosenMap(seen, plus_minus_one_only);
    return k < 0 ? std::numeric_limits<double>::quiet_NaN() : kMaps[k].positive;
  }

 private:
  struct Map {
    unsigned mask;  // bit k set: raw label k - 1 belongs to the set
    double positive;
  };
  static constexpr std::array<Map, 3> kMaps = {{{0b0101u, 1.0}, {0b0110u, 1.0}, {0b1100u, 2.0}}};

  static int ChosenMap(unsigned seen, bool plus_minus_one_only) {
    const int count = plus_minus_one_only ? 1 : 3;
    for (int k = 0; k < count; ++k) {
      if ((seen & ~kMaps[k].mask) == 0) return k;
    }
    return -1;
  }
  int ChosenMap() const { return ChosenMap(seen_, plus_minus_one_only_); }
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
SparseRows MakeSparse(std::int64_t cols, const std::vector<SparseIndex>& outer,
                      const std::vector<SparseIndex>& inner, const std::vector<double>& values,
                      const std::string& path) {
  CheckSparseSize(static_cast<std::int64_t>(values.size()), cols, path);
  SparseRows m(static_cast<Eigen::Index>(outer.size() - 1), cols);
  m.resizeNonZeros(static_cast<Eigen::Index>(values.size()));
  std::copy(outer.begin(), outer.end(), m.outerIndexPtr());
  std::copy(inner.begin(), inner.end(), m.innerIndexPtr());
  std::copy(values.begin(), values.end(), m.valuePtr());
  return m;
}

// A row whose values are finite but whose norm is not (the sum of their squares overflows a
// double, e.g. one value near 1e308) can be neither scaled nor clipped: it is refused where it
// is read, naming the file and the line, whatever the file's role or the scaling. The limit
// 2^1020 (about 1.1e307) keeps a margin below the double range, so no later sum of the same
// squares in another order (Eigen's) can overflow either.
class RowNorm {
 public:
  void Add(double v) {
    squares_ += v * v;
    largest_ = std::max(largest_, std::fabs(v));
  }
  void Check(const std::string& path, long long line) const {
    if (squares_ <= 0x1.0p1020) return;
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3g", largest_);
    ThrowAt(path, line,
            std::string("the row's norm is not finite in double precision: its values are "
                        "finite but the sum of their squares overflows (largest |value| ") +
                buf + "); rescale the data");
  }

 private:
  double squares_ = 0.0;
  double largest_ = 0.0;
};

// ---- LIBSVM ----------------------------------------------------------------------------------

struct SparseBuilder {
  std::vector<SparseIndex> outer{0};
  std::vector<SparseIndex> inner;
  std::vector<double> values;
  std::int64_t max_index = 0;  // largest 1-based index seen, explicit zeros included
};

// Parses the "index:value" tokens of one LIBSVM line into `b` (exact zeros are not stored).
// With `keep_columns` (vertical partition), only the values of the marked columns (0-based)
// are parsed and stored: another holder's value is never parsed, only its index is (the index
// says whose value it is).
void ParseLibsvmEntries(const std::vector<std::string_view>& fields, std::int64_t num_features,
                        const std::string& path, long long line, SparseBuilder& b,
                        const std::vector<char>* keep_columns = nullptr) {
  std::int64_t previous = 0;
  RowNorm norm;
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
    if (index > kMaxSparseIndex) {
      ThrowAt(path, line,
              "feature index " + std::to_string(index) + " exceeds the limit of " +
                  std::to_string(kMaxSparseIndex) + " columns of sparse rows");
    }
    previous = index;
    b.max_index = std::max(b.max_index, index);
    if (keep_columns != nullptr &&
        (index > static_cast<std::int64_t>(keep_columns->size()) || !(*keep_columns)[index - 1])) {
      continue;  // another holder's column
    }
    const double value = ParseFiniteDouble(token.substr(colon + 1), path, line, "value");
    if (value != 0.0) {
      if (static_cast<std::int64_t>(b.inner.size()) == kMaxSparseIndex) {
        ThrowAt(path, line,
                "more than " + std::to_string(kMaxSparseIndex) +
                    " stored entries, the limit of sparse rows");
      }
      b.inner.push_back(static_cast<SparseIndex>(index - 1));
      b.values.push_back(value);
      norm.Add(value);
    }
  }
  norm.Check(path, line);
  b.outer.push_back(static_cast<SparseIndex>(b.inner.size()));
}

// ---- Delimited tables (CSV, .asc) --------------------------------------------------------------

struct Table {
  std::vector<double> values;  // row-major features
  std::int64_t rows = 0;
  std::int64_t cols = 0;  // feature columns
};

// Reads a table of numbers. If label_column is set, that column (negative: from the end) goes
// to `labels` and the others are features. Blank lines are skipped.
// With `keep` (increasing data-row indices), only those rows are split and parsed; the others
// are counted and skipped (`rows_in_file` receives the count). Without it every row is read.
Table ReadTable(const std::string& path, char delimiter, bool has_header,
                std::optional<int> label_column, LabelMapper* labels,
                const std::span<const std::int64_t>* keep = nullptr,
                std::int64_t* rows_in_file = nullptr,
                const std::vector<char>* parse_fields = nullptr) {
  const std::string text = internal::ReadWholeFile(path);
  LineReader lines(text);
  std::string_view line;
  std::vector<std::string_view> fields;
  Table t;
  std::size_t width = 0;
  std::size_t label_index = static_cast<std::size_t>(-1);
  bool header_pending = has_header;
  std::int64_t row = 0;  // data-row index in the file
  std::size_t next = 0;  // (*keep)[next] is the next row to read
  while (lines.Next(line)) {
    if (internal::IsBlank(line)) continue;
    if (header_pending) {
      header_pending = false;
      continue;
    }
    if (keep != nullptr) {
      const bool wanted = next < keep->size() && (*keep)[next] == row;
      ++row;
      if (!wanted) continue;  // another holder's row: counted, never split or parsed
      ++next;
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
    RowNorm norm;
    for (std::size_t j = 0; j < fields.size(); ++j) {
      // Another holder's field (vertical partition): never parsed; a feature reads as 0.
      const bool parse =
          parse_fields == nullptr || (j < parse_fields->size() && (*parse_fields)[j]);
      if (j == label_index) {
        if (parse) labels->Add(fields[j], path, lines.number());
      } else if (!parse) {
        t.values.push_back(0.0);
      } else {
        t.values.push_back(ParseFiniteDouble(fields[j], path, lines.number(), "value"));
        norm.Add(t.values.back());
      }
    }
    norm.Check(path, lines.number());
    ++t.rows;
  }
  if (keep != nullptr) {
    RequireRows(path, row);
    if (next < keep->size()) {
      ThrowAt(path, 0,
              "row " + std::to_string((*keep)[next]) + " requested but the file has " +
                  std::to_string(row) + " data rows");
    }
    if (rows_in_file != nullptr) *rows_in_file = row;
    return t;
  }
  RequireRows(path, t.rows);
  return t;
}

void RequireIncreasing(const std::string& path, std::span<const std::int64_t> keep) {
  for (std::size_t k = 1; k < keep.size(); ++k) {
    if (keep[k] <= keep[k - 1]) ThrowAt(path, 0, "the rows to keep must be increasing");
  }
}

DenseRows MakeDense(const Table& t) {
  return Eigen::Map<const DenseRows>(t.values.data(), t.rows, t.cols);
}

// ---- UCI Adult ---------------------------------------------------------------------------------

constexpr std::size_t kAdultFields = 15;
constexpr std::array<int, 6> kAdultNumeric = {0, 2, 4, 10, 11, 12};
constexpr std::array<int, 8> kAdultCategorical = {1, 3, 5, 6, 7, 8, 9, 13};
constexpr int kAdultLabel = 14;

// One complete record. Its categories are stored as indices into the file's own list of the
// names seen (AdultFile::names), so the file's text can go once it is parsed.
struct AdultRecord {
  std::array<double, kAdultNumeric.size()> numeric;
  std::array<std::int32_t, kAdultCategorical.size()> category;
  double label;
};

struct AdultFile {
  std::string path;
  // Per categorical attribute, its categories in the order first seen in this file's records.
  std::array<std::vector<std::string>, kAdultCategorical.size()> names;
  std::vector<AdultRecord> records;
};

double AdultLabel(std::string_view token, const std::string& path, long long line) {
  if (!token.empty() && token.back() == '.') token.remove_suffix(1);
  if (token == ">50K") return 1.0;
  if (token == "<=50K") return -1.0;
  ThrowAt(path, line, "unknown label " + Quote(token) + " (expected <=50K or >50K)");
}

// Reads complete records; skips blank lines, lines starting with '|' and rows with a '?'.
// With `keep` (increasing indices of complete records), only those records are parsed: the
// others are only looked at for a '?' field (which decides whether a line is a record at all)
// and counted (`records_in_file`).
void ReadAdultFile(AdultFile& f, const std::span<const std::int64_t>* keep = nullptr,
                   std::int64_t* records_in_file = nullptr) {
  const std::string text = internal::ReadWholeFile(f.path);
  // Every record is a line: the line count bounds the records (no growth slack).
  f.records.reserve(keep != nullptr
                        ? keep->size()
                        : static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n') + 1));
  std::array<std::map<std::string, std::int32_t, std::less<>>, kAdultCategorical.size()> ids;
  LineReader lines(text);
  std::string_view line;
  std::vector<std::string_view> fields;
  bool any = false;
  std::int64_t record = 0;
  std::size_t next = 0;
  while (lines.Next(line)) {
    if (internal::IsBlank(line) || internal::Trim(line).front() == '|') continue;
    any = true;
    SplitFields(line, ',', fields);
    if (keep != nullptr) {
      if (std::find(fields.begin(), fields.end(), "?") != fields.end()) continue;
      const bool wanted = next < keep->size() && (*keep)[next] == record;
      ++record;
      if (!wanted) continue;  // another holder's record: never parsed
      ++next;
    }
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
    r.label = AdultLabel(fields[kAdultLabel], f.path, lines.number());
    for (std::size_t k = 0; k < kAdultCategorical.size(); ++k) {
      const std::string_view name = fields[kAdultCategorical[k]];
      auto it = ids[k].find(name);
      if (it == ids[k].end()) {
        it = ids[k].emplace(std::string(name), static_cast<std::int32_t>(f.names[k].size())).first;
        f.names[k].emplace_back(name);
      }
      r.category[k] = it->second;
    }
    f.records.push_back(r);
  }
  // No shrink_to_fit: it would copy the records beside the file's text (the load's peak). The
  // slack (lines that are not records) is never written, so its pages are not resident, and
  // the records are freed once encoded.
  if (!any) RequireRows(f.path, 0);
  if (keep != nullptr) {
    if (record == 0) ThrowAt(f.path, 0, "no complete rows (every row has a '?')");
    if (next < keep->size()) {
      ThrowAt(f.path, 0,
              "record " + std::to_string((*keep)[next]) + " requested but the file has " +
                  std::to_string(record) + " complete records");
    }
    if (records_in_file != nullptr) *records_in_file = record;
    return;
  }
  if (f.records.empty()) ThrowAt(f.path, 0, "no complete rows (every row has a '?')");
}

struct AdultEncoding {
  std::array<double, kAdultNumeric.size()> min, max;
  // Sorted categories of each categorical attribute and the column of its first category.
  std::array<std::vector<std::string_view>, kAdultCategorical.size()> categories;
  std::array<std::int64_t, kAdultCategorical.size()> offset;
  std::int64_t cols = 0;
};

// Each categorical attribute's categories in the records of both files, sorted by byte value.
std::array<std::set<std::string_view>, kAdultCategorical.size()> CategoriesOf(
    const AdultFile& train, const AdultFile& test) {
  std::array<std::set<std::string_view>, kAdultCategorical.size()> seen;
  for (const AdultFile* f : {&train, &test}) {
    for (std::size_t k = 0; k < seen.size(); ++k)
      seen[k].insert(f->names[k].begin(), f->names[k].end());
  }
  return seen;
}

// The encoding's inputs from one holder's records (numeric ranges and category sets), as
// doubles for an exchange between holders: 6 minima, 6 maxima, then per categorical attribute
// its category count and each category as (length, bytes...).
std::vector<double> AdultSchemaOf(const AdultFile& train, const AdultFile& test) {
  std::array<double, kAdultNumeric.size()> lo, hi;
  lo.fill(std::numeric_limits<double>::infinity());
  hi.fill(-std::numeric_limits<double>::infinity());
  const auto seen = CategoriesOf(train, test);
  for (const AdultFile* f : {&train, &test}) {
    for (const AdultRecord& r : f->records) {
      for (std::size_t k = 0; k < r.numeric.size(); ++k) {
        lo[k] = std::min(lo[k], r.numeric[k]);
        hi[k] = std::max(hi[k], r.numeric[k]);
      }
    }
  }
  std::vector<double> out(lo.begin(), lo.end());
  out.insert(out.end(), hi.begin(), hi.end());
  for (const auto& set : seen) {
    out.push_back(static_cast<double>(set.size()));
    for (std::string_view c : set) {
      out.push_back(static_cast<double>(c.size()));
      for (char ch : c) out.push_back(static_cast<double>(static_cast<unsigned char>(ch)));
    }
  }
  return out;
}

// The merged schema of several holders' AdultSchemaOf blocks (each prefixed by its length).
struct AdultSchema {
  std::array<double, kAdultNumeric.size()> min, max;
  std::array<std::set<std::string>, kAdultCategorical.size()> categories;
};

AdultSchema MergeAdultSchemas(const std::vector<double>& blocks, const std::string& path) {
  AdultSchema m;
  m.min.fill(std::numeric_limits<double>::infinity());
  m.max.fill(-std::numeric_limits<double>::infinity());
  std::size_t at = 0;
  const auto take = [&]() -> double {
    if (at >= blocks.size()) ThrowAt(path, 0, "malformed Adult schema exchange");
    return blocks[at++];
  };
  while (at < blocks.size()) {
    const auto length = static_cast<std::size_t>(take());
    const std::size_t end = at + length;
    for (std::size_t k = 0; k < m.min.size(); ++k) m.min[k] = std::min(m.min[k], take());
    for (std::size_t k = 0; k < m.max.size(); ++k) m.max[k] = std::max(m.max[k], take());
    for (auto& set : m.categories) {
      const auto count = static_cast<std::size_t>(take());
      for (std::size_t c = 0; c < count; ++c) {
        std::string name(static_cast<std::size_t>(take()), '\0');
        for (char& ch : name) ch = static_cast<char>(static_cast<unsigned char>(take()));
        set.insert(std::move(name));
      }
    }
    if (at != end) ThrowAt(path, 0, "malformed Adult schema exchange");
  }
  return m;
}

AdultEncoding MakeAdultEncoding(const AdultFile& train, const AdultFile& test) {
  AdultEncoding e;
  e.min.fill(std::numeric_limits<double>::infinity());
  e.max.fill(-std::numeric_limits<double>::infinity());
  const auto seen = CategoriesOf(train, test);
  for (const AdultFile* f : {&train, &test}) {
    for (const AdultRecord& r : f->records) {
      for (std::size_t k = 0; k < r.numeric.size(); ++k) {
        e.min[k] = std::min(e.min[k], r.numeric[k]);
        e.max[k] = std::max(e.max[k], r.numeric[k]);
      }
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

// The encoding of a merged schema (its category views point into `m`, which must outlive it).
AdultEncoding EncodingOf(const AdultSchema& m) {
  AdultEncoding e;
  e.min = m.min;
  e.max = m.max;
  e.cols = static_cast<std::int64_t>(kAdultNumeric.size());
  for (std::size_t k = 0; k < e.categories.size(); ++k) {
    e.categories[k].assign(m.categories[k].begin(), m.categories[k].end());
    e.offset[k] = e.cols;
    e.cols += static_cast<std::int64_t>(m.categories[k].size());
  }
  return e;
}

// Numeric attribute k of a record, min-max scaled to [0, 1] over both files.
double ScaledNumeric(const AdultEncoding& e, std::size_t k, double v) {
  const double range = e.max[k] - e.min[k];
  if (std::isinf(range)) {
    // max - min beyond the double range (e.g. -1e308 and 1e308) would give inf / inf = NaN:
    // scale with halved operands instead (the same ratio, up to rounding).
    return (v / 2 - e.min[k] / 2) / (e.max[k] / 2 - e.min[k] / 2);
  }
  return range > 0.0 ? (v - e.min[k]) / range : 0.0;
}

// The records as CSR rows (numeric columns, then one column per category), written straight
// into the result; the records' pages are given back behind the pass (every 64 KiB: they are
// never read again), so the records and the rows are not both resident, and they are freed
// once encoded.
Dataset EncodeAdult(AdultFile& f, const AdultEncoding& e) {
  // Column of each of this file's category indices.
  std::array<std::vector<std::int64_t>, kAdultCategorical.size()> column;
  for (std::size_t k = 0; k < column.size(); ++k) {
    const auto& c = e.categories[k];
    for (const std::string& name : f.names[k]) {
      const auto it = std::lower_bound(c.begin(), c.end(), std::string_view(name));
      column[k].push_back(e.offset[k] + (it - c.begin()));
    }
  }
  const auto rows = static_cast<Eigen::Index>(f.records.size());
  SparseRows x(rows, e.cols);
  SparseIndex* outer = x.outerIndexPtr();
  outer[0] = 0;
  for (Eigen::Index i = 0; i < rows; ++i) {
    const AdultRecord& r = f.records[static_cast<std::size_t>(i)];
    std::int64_t count = static_cast<std::int64_t>(r.category.size());
    for (std::size_t k = 0; k < r.numeric.size(); ++k) {
      count += ScaledNumeric(e, k, r.numeric[k]) != 0.0 ? 1 : 0;
    }
    CheckSparseSize(outer[i] + count, e.cols, f.path);
    outer[i + 1] = static_cast<SparseIndex>(outer[i] + count);
  }
  x.resizeNonZeros(static_cast<Eigen::Index>(outer[rows]));
  SparseIndex* inner = x.innerIndexPtr();
  double* values = x.valuePtr();
  Eigen::VectorXd y(rows);
  std::int64_t at = 0;
  constexpr Eigen::Index kStep = (1 << 16) / sizeof(AdultRecord);
  const char* released = reinterpret_cast<const char*>(f.records.data());
  for (Eigen::Index i = 0; i < rows; ++i) {
    if (i % kStep == 0) {
      released =
          internal::ReleasePages(released, reinterpret_cast<const char*>(f.records.data() + i));
    }
    const AdultRecord& r = f.records[static_cast<std::size_t>(i)];
    for (std::size_t k = 0; k < r.numeric.size(); ++k) {
      const double scaled = ScaledNumeric(e, k, r.numeric[k]);
      if (scaled != 0.0) {
        inner[at] = static_cast<SparseIndex>(k);
        values[at++] = scaled;
      }
    }
    for (std::size_t k = 0; k < r.category.size(); ++k) {
      inner[at] = static_cast<SparseIndex>(column[k][static_cast<std::size_t>(r.category[k])]);
      values[at++] = 1.0;
    }
    y[i] = r.label;
  }
  std::vector<AdultRecord>().swap(f.records);
  Dataset d;
  d.SetRows(std::move(x));
  d.y = std::move(y);
  d.name = FileName(f.path);
  return d;
}

// The labels file of a Raetsch `.asc` pair: one label per non-blank line, as many as the data
// file's `data_rows`. With `keep` (increasing line indices), only those lines' labels are
// parsed: another holder's label is never read.
void ReadAscLabels(const std::string& labels_path, const std::string& data_path,
                   std::int64_t data_rows, const std::span<const std::int64_t>* keep,
                   LabelMapper& labels) {
  const std::string text = internal::ReadWholeFile(labels_path);
  LineReader lines(text);
  std::string_view line;
  std::vector<std::string_view> fields;
  std::int64_t row = 0;
  std::size_t next = 0;
  while (lines.Next(line)) {
    if (internal::IsBlank(line)) continue;
    const bool wanted = keep == nullptr || (next < keep->size() && (*keep)[next] == row);
    ++row;
    if (!wanted) continue;  // another holder's label: never read
    ++next;
    SplitFields(line, ' ', fields);
    if (fields.size() != 1) {
      ThrowAt(labels_path, lines.number(),
              "expected one label, found " + std::to_string(fields.size()) + " fields");
    }
    labels.Add(fields[0], labels_path, lines.number());
  }
  RequireRows(labels_path, row);
  if (row != data_rows) {
    ThrowAt(labels_path, 0,
            "has " + std::to_string(row) + " labels but " + data_path + " has " +
                std::to_string(data_rows) + " rows");
  }
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
  d.SetRows(
      MakeSparse(num_features > 0 ? num_features : b.max_index, b.outer, b.inner, b.values, path));
  d.y = labels.Finish();
  d.name = FileName(path);
  return d;
}

RowShare ReadLibsvmRows(const std::string& path, std::span<const std::int64_t> keep,
                        std::int64_t num_features) {
  if (num_features < 0) ThrowAt(path, 0, "num_features must be >= 0");
  RequireIncreasing(path, keep);
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
    // Another holder's row is counted only: neither its label nor its features are read.
    if (next < keep.size() && keep[next] == row) {
      SplitFields(line, ' ', fields);
      labels.Add(fields[0], path, lines.number());
      ParseLibsvmEntries(fields, num_features, path, lines.number(), b);
      ++next;
    }
    ++row;
  }
  RequireRows(path, row);
  if (next < keep.size()) {
    ThrowAt(path, 0,
            "row " + std::to_string(keep[next]) + " requested but the file has " +
                std::to_string(row) + " data rows");
  }
  RowShare share;
  share.rows_in_file = row;
  share.label_codes = labels.seen();
  share.data.x =
      MakeSparse(num_features > 0 ? num_features : b.max_index, b.outer, b.inner, b.values, path);
  share.data.y = labels.Raw();
  share.data.name = FileName(path);
  return share;
}

Dataset LoadLibsvmRows(const std::string& path, std::span<const std::int64_t> keep,
                       std::int64_t num_features, std::int64_t* rows_in_file,
                       unsigned file_label_codes) {
  RowShare share = ReadLibsvmRows(path, keep, num_features);
  if (rows_in_file != nullptr) *rows_in_file = share.rows_in_file;
  MapRawLabels(share.data, share.label_codes | file_label_codes, false, path);
  return std::move(share.data);
}

RowShare ReadCsvRows(const std::string& path, std::span<const std::int64_t> keep, int label_column,
                     char delimiter, bool has_header) {
  RequireIncreasing(path, keep);
  LabelMapper labels(/*plus_minus_one_only=*/false);
  RowShare share;
  const Table t =
      ReadTable(path, delimiter, has_header, label_column, &labels, &keep, &share.rows_in_file);
  if (t.rows > 0 && t.cols == 0) ThrowAt(path, 0, "no feature columns besides the label");
  share.fields = t.rows > 0 ? t.cols + 1 : -1;
  share.label_codes = labels.seen();
  share.data.x = MakeDense(t);
  share.data.y = labels.Raw();
  share.data.name = FileName(path);
  return share;
}

RowShare ReadAscRows(const std::string& data_path, const std::string& labels_path,
                     std::span<const std::int64_t> keep) {
  RequireIncreasing(data_path, keep);
  RowShare share;
  const Table t =
      ReadTable(data_path, ' ', false, std::nullopt, nullptr, &keep, &share.rows_in_file);
  LabelMapper labels(/*plus_minus_one_only=*/true);
  ReadAscLabels(labels_path, data_path, share.rows_in_file, &keep, labels);
  share.fields = t.rows > 0 ? t.cols : -1;
  share.label_codes = labels.seen();
  share.data.x = MakeDense(t);
  share.data.y = labels.Raw();
  share.data.name = FileName(data_path);
  return share;
}

RowShare ReadLibsvmColumns(const std::string& path, const std::vector<char>& keep_columns,
                           bool read_labels, std::int64_t num_features) {
  if (num_features < 0) ThrowAt(path, 0, "num_features must be >= 0");
  const std::string text = internal::ReadWholeFile(path);
  LineReader lines(text);
  std::string_view line;
  std::vector<std::string_view> fields;
  SparseBuilder b;
  LabelMapper labels(/*plus_minus_one_only=*/false);
  std::int64_t rows = 0;
  while (lines.Next(line)) {
    SplitFields(line, ' ', fields);
    if (fields.empty()) continue;  // blank, as in LoadLibsvm
    if (read_labels) labels.Add(fields[0], path, lines.number());
    ParseLibsvmEntries(fields, num_features, path, lines.number(), b, &keep_columns);
    ++rows;
  }
  RequireRows(path, rows);
  RowShare share;
  share.rows_in_file = rows;
  share.label_codes = labels.seen();
  share.data.x =
      MakeSparse(num_features > 0 ? num_features : b.max_index, b.outer, b.inner, b.values, path);
  share.data.y = read_labels ? labels.Raw() : Eigen::VectorXd::Zero(rows);
  share.data.name = FileName(path);
  return share;
}

std::int64_t LibsvmMaxIndex(const std::string& path) {
  const std::vector<char> none;
  return ReadLibsvmColumns(path, none, false, 0).data.cols();
}

RowShare ReadAscColumns(const std::string& data_path, const std::string& labels_path,
                        const std::vector<char>& parse_fields) {
  RowShare share;
  const Table t =
      ReadTable(data_path, ' ', false, std::nullopt, nullptr, nullptr, nullptr, &parse_fields);
  share.rows_in_file = t.rows;
  share.fields = t.cols;
  share.data.x = MakeDense(t);
  share.data.y = Eigen::VectorXd::Zero(t.rows);
  share.data.name = FileName(data_path);
  if (labels_path.empty()) return share;
  // The labels as ReadAscRows reads them (the data file's features are not read again).
  LabelMapper labels(/*plus_minus_one_only=*/true);
  ReadAscLabels(labels_path, data_path, t.rows, nullptr, labels);
  share.label_codes = labels.seen();
  share.data.y = labels.Raw();
  return share;
}

RowShare ReadCsvColumns(const std::string& path, const std::vector<char>& parse_fields,
                        int label_column, char delimiter, bool has_header) {
  LabelMapper labels(/*plus_minus_one_only=*/false);
  RowShare share;
  const Table t = ReadTable(path, delimiter, has_header, label_column, &labels, nullptr, nullptr,
                            &parse_fields);
  if (t.cols == 0) ThrowAt(path, 0, "no feature columns besides the label");
  share.rows_in_file = t.rows;
  share.fields = t.cols + 1;
  share.label_codes = labels.seen();
  share.data.x = MakeDense(t);
  share.data.y = labels.size() == t.rows ? labels.Raw() : Eigen::VectorXd::Zero(t.rows);
  share.data.name = FileName(path);
  return share;
}

std::int64_t CountFields(const std::string& path, char delimiter, bool has_header) {
  const std::string text = internal::ReadWholeFile(path);
  LineReader lines(text);
  std::string_view line;
  std::vector<std::string_view> fields;
  bool header_pending = has_header;
  while (lines.Next(line)) {
    if (internal::IsBlank(line)) continue;
    if (header_pending) {
      header_pending = false;
      continue;
    }
    SplitFields(line, delimiter, fields);
    return static_cast<std::int64_t>(fields.size());
  }
  RequireRows(path, 0);
  return 0;
}

void MapRawLabels(Dataset& data, unsigned file_label_codes, bool plus_minus_one_only,
                  const std::string& path) {
  const double positive = LabelMapper::PositiveOf(file_label_codes, plus_minus_one_only);
  if (std::isnan(positive)) {
    ThrowAt(path, 0,
            std::string("the file's labels mix label sets (expected ") +
                (plus_minus_one_only ? "-1 or +1" : "-1/+1, 0/1 or 1/2") + ")");
  }
  for (Eigen::Index i = 0; i < data.y.size(); ++i) data.y[i] = data.y[i] == positive ? 1.0 : -1.0;
}

std::int64_t CountDataRows(const std::string& path, bool has_header) {
  const std::string text = internal::ReadWholeFile(path);
  LineReader lines(text);
  std::string_view line;
  std::int64_t rows = 0;
  while (lines.Next(line)) rows += internal::IsBlank(line) ? 0 : 1;
  if (has_header && rows > 0) --rows;
  RequireRows(path, rows);
  return rows;
}

std::int64_t CountAdultRecords(const std::string& path) {
  AdultFile f{path, {}, {}};
  std::int64_t records = 0;
  const std::span<const std::int64_t> none;
  ReadAdultFile(f, &none, &records);
  return records;
}

AdultData LoadAdultRows(const std::string& train_path, const std::string& test_path,
                        std::span<const std::int64_t> keep,
                        const std::function<std::vector<double>(std::vector<double>)>& gather) {
  RequireIncreasing(train_path, keep);
  AdultFile train{train_path, {}, {}};
  AdultFile test{test_path, {}, {}};
  ReadAdultFile(train, &keep);
  ReadAdultFile(test);
  std::vector<double> mine = AdultSchemaOf(train, test);
  mine.insert(mine.begin(), static_cast<double>(mine.size()));
  const AdultSchema schema = MergeAdultSchemas(gather ? gather(std::move(mine)) : mine, train_path);
  const AdultEncoding encoding = EncodingOf(schema);
  Dataset train_rows = EncodeAdult(train, encoding);
  return AdultData{std::move(train_rows), EncodeAdult(test, encoding)};
}

AdultData LoadAdult(const std::string& train_path, const std::string& test_path) {
  AdultFile train{train_path, {}, {}};
  AdultFile test{test_path, {}, {}};
  ReadAdultFile(train);
  ReadAdultFile(test);
  const AdultEncoding encoding = MakeAdultEncoding(train, test);
  Dataset train_rows = EncodeAdult(train, encoding);
  return AdultData{std::move(train_rows), EncodeAdult(test, encoding)};
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
