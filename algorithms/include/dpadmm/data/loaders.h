// SPDX-License-Identifier: Apache-2.0
// Loaders for the formats of ../shared/data and users' own files. Each throws InputError with
// "path:line: what is wrong" for anything malformed: a bad token, an index out of range, NaN or
// Inf, a wrong column count, an empty file, an unknown label. None of them changes values:
// scaling happens later, in NormalizeRows, and is reported in the run summary.
// A missing or unreadable file gives "path: cannot open file". Lines may end in "\n" or "\r\n";
// blank (whitespace-only) lines are skipped anywhere in a file; a file without data rows is an
// error.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "dpadmm/data/dataset.h"

namespace dpadmm {

// LIBSVM text: "label index:value ..." with 1-based increasing indices. Labels -1/+1, 0/1 and
// 1/2 are mapped to -1/+1 (the mapping is decided per file from the labels present; any other
// label set is an error). num_features > 0 fixes the column count (an index above it is an
// error); 0 means "the largest index seen". Result is sparse.
Dataset LoadLibsvm(const std::string& path, std::int64_t num_features = 0);

// ---- One holder's share of a file's rows ----------------------------------------------------
// Each rank of an MPI run (each holder of a deployment) parses only its own nodes' rows: the
// readers below take `keep`, the data-row indices (0-based; blank lines, a header and, for
// Adult, incomplete records not counted) to load, increasing, and skip every other row without
// parsing its features or its label (they are only counted). An index beyond the file is an
// error. What the whole file decides in the loaders above is agreed between holders from
// aggregates instead: the label mapping from the union of every holder's `label_codes`
// (MapRawLabels), the column count by a maximum (LIBSVM without num_features) or an equality
// check (delimited formats), and Adult's encoding by merging every holder's schema.

// A share: the kept rows in `keep` order, with y holding the RAW labels (-1, 0, 1 or 2) until
// MapRawLabels maps them with the whole file's label set.
struct RowShare {
  Dataset data;
  std::int64_t rows_in_file = 0;  // the file's data rows
  unsigned label_codes = 0;       // bit k set: raw label k - 1 occurs among the kept rows
  std::int64_t fields = -1;       // delimited formats: fields per kept row (-1: none kept)
};

RowShare ReadLibsvmRows(const std::string& path, std::span<const std::int64_t> keep,
                        std::int64_t num_features = 0);
RowShare ReadCsvRows(const std::string& path, std::span<const std::int64_t> keep,
                     int label_column = -1, char delimiter = ',', bool has_header = false);
// Row k of the data file goes with the k-th non-blank line of the labels file (labels +-1).
RowShare ReadAscRows(const std::string& data_path, const std::string& labels_path,
                     std::span<const std::int64_t> keep);

// Vertical partition (sharing): every row, but only the fields marked in `parse_fields` (by
// field index, the label column included) are parsed; the others are skipped unparsed and read
// as 0 (every row's field count is still checked). y holds the raw labels if the label field is
// marked, else zeros (label_codes 0).
RowShare ReadCsvColumns(const std::string& path, const std::vector<char>& parse_fields,
                        int label_column = -1, char delimiter = ',', bool has_header = false);
// LIBSVM's vertical partition: every row, but only the values of the columns marked in
// `keep_columns` (0-based; columns beyond its end are not kept) are parsed and stored; the
// others are skipped unparsed (only their index is read: it says whose value it is, and the
// increasing-index and range checks still apply). Labels are parsed only if `read_labels`
// (raw, as in RowShare; else y is zeros and label_codes 0). Columns: num_features, or the
// largest index of the file.
RowShare ReadLibsvmColumns(const std::string& path, const std::vector<char>& keep_columns,
                           bool read_labels, std::int64_t num_features = 0);
// The largest feature index of a LIBSVM file (the column count LoadLibsvm gives without
// num_features), from the indices alone: no value and no label is parsed.
std::int64_t LibsvmMaxIndex(const std::string& path);
// .asc's vertical partition: every row of the data file, only the fields marked in
// `parse_fields` parsed (the others read as 0); the labels file is read (raw labels, as
// ReadAscRows) only if `labels_path` is not empty, else y is zeros.
RowShare ReadAscColumns(const std::string& data_path, const std::string& labels_path,
                        const std::vector<char>& parse_fields);
// The field count of the first data row (structure only: no field is parsed).
std::int64_t CountFields(const std::string& path, char delimiter = ',', bool has_header = false);

// Maps raw labels to -1/+1 by the mapping the loaders choose for a file whose labels are
// `file_label_codes` (the union of every share's label_codes); InputError naming `path` if the
// set fits none (for .asc, plus_minus_one_only).
void MapRawLabels(Dataset& data, unsigned file_label_codes, bool plus_minus_one_only,
                  const std::string& path);

// ReadLibsvmRows with the labels mapped by the union of the kept rows' labels and
// `file_label_codes` (the other shares' codes; 0: decide from the kept rows alone). Without
// num_features the column count is the largest index among the kept rows (agree on one across
// processes, e.g. by a maximum reduction). rows_in_file, if given, receives the file's data-row
// count.
Dataset LoadLibsvmRows(const std::string& path, std::span<const std::int64_t> keep,
                       std::int64_t num_features = 0, std::int64_t* rows_in_file = nullptr,
                       unsigned file_label_codes = 0);

// The data rows of a LIBSVM, CSV or .asc data file (non-blank lines, less the header line if
// has_header), counted without parsing any; an empty file is an error.
std::int64_t CountDataRows(const std::string& path, bool has_header = false);

// Raw UCI Adult (adult.data and adult.test) with the papers' preprocessing: rows with a missing
// value ('?') dropped; the 8 categorical attributes one-hot encoded with categories taken from
// train and test together (sorted, so columns are stable); the 6 numeric attributes scaled to
// [0, 1] by min and max over train and test; label +1 for income >50K. fnlwgt is kept as a
// numeric attribute, as in the papers. Result: 104 sparse columns (the papers say 105, counting
// a category that no complete row has). Lines starting with '|' (adult.test's first line) and
// blank lines are skipped; fields are comma separated, surrounding spaces ignored; test labels
// may carry a trailing '.'. A numeric attribute with max == min would be scaled to 0.
// Column order: the 6 numeric attributes in file order (0 age, 1 fnlwgt, 2 education-num,
// 3 capital-gain, 4 capital-loss, 5 hours-per-week), then one block per categorical attribute
// in file order (workclass, education, marital-status, occupation, relationship, race, sex,
// native-country), each block's categories sorted by byte value. Datasets are named after the
// file names.
struct AdultData {
  Dataset train;
  Dataset test;
};
AdultData LoadAdult(const std::string& train_path, const std::string& test_path);

// The complete records of an Adult file (lines without a '?' field), counted without parsing.
std::int64_t CountAdultRecords(const std::string& path);

// LoadAdult for one holder's share of the training file: `keep` indexes its complete records;
// the test file (the public hold-out) is read whole. The encoding (category lists and numeric
// ranges, the attributes' domains) is merged from every holder's: `gather` receives this
// holder's schema block and returns the concatenation of every holder's blocks (MPI: an
// allgather; empty: this holder is the only one). The result has LoadAdult's bits for the
// kept rows when the holders' shares cover the file.
AdultData LoadAdultRows(const std::string& train_path, const std::string& test_path,
                        std::span<const std::int64_t> keep,
                        const std::function<std::vector<double>(std::vector<double>)>& gather);

// Delimited text with one row per line and a label column (comma, or whitespace when
// delimiter is ' '). label_column < 0 counts from the end (-1 = last). Labels as for LIBSVM.
// A first line that does not parse as numbers is taken as a header only if has_header.
// (With has_header, the first non-blank line is always skipped as the header.) Every row must
// have as many fields as the first data row; there must be at least one feature column.
// Result is dense.
Dataset LoadCsv(const std::string& path, int label_column = -1, char delimiter = ',',
                bool has_header = false);

// Raetsch benchmark files: a whitespace-separated data file and a label file with one +-1 per
// line (<name>_train_data_k.asc and <name>_train_labels_k.asc). Row counts must agree.
Dataset LoadAsc(const std::string& data_path, const std::string& labels_path);

}  // namespace dpadmm
