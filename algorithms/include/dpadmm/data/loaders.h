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
#include <span>
#include <string>

#include "dpadmm/data/dataset.h"

namespace dpadmm {

// LIBSVM text: "label index:value ..." with 1-based increasing indices. Labels -1/+1, 0/1 and
// 1/2 are mapped to -1/+1 (the mapping is decided per file from the labels present; any other
// label set is an error). num_features > 0 fixes the column count (an index above it is an
// error); 0 means "the largest index seen". Result is sparse.
Dataset LoadLibsvm(const std::string& path, std::int64_t num_features = 0);

// The same for one process's share of the rows (each rank of an MPI run loads only its own
// nodes' rows): `keep` lists data-row indices (0-based, blank lines not counted), increasing;
// the result holds those rows in that order. Other rows are skipped without parsing their
// features; only their label token is read, because the file's label mapping (above) is chosen
// from every label present. Without num_features the column count is the largest index among
// the kept rows (agree on one across processes, e.g. by a maximum reduction). rows_in_file, if
// given, receives the file's data-row count. An index beyond the file is an error.
Dataset LoadLibsvmRows(const std::string& path, std::span<const std::int64_t> keep,
                       std::int64_t num_features = 0, std::int64_t* rows_in_file = nullptr);

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
