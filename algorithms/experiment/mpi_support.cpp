// SPDX-License-Identifier: Apache-2.0
#include "experiment/mpi_support.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <numeric>
#include <string>

#include "dpadmm/core/error.h"
#include "dpadmm/data/loaders.h"
#include "dpadmm/data/preprocessing.h"
#include "dpadmm/runtime/mpi.h"

namespace dpadmm {

std::vector<int> HostedNodes(Experiment::Driver& d, int n) {
  if (!d.mpi) {
    std::vector<int> all(static_cast<std::size_t>(n));
    std::iota(all.begin(), all.end(), 0);
    return all;
  }
  const int size = runtime::MpiSize(d.mpi->comm);
  std::vector<int>& map = d.mpi->node_ranks;
  if (map.empty()) {
    map = runtime::ContiguousNodeRanks(n, size);
  } else if (static_cast<int>(map.size()) != n) {
    throw InputError("--node-ranks: the map has " + std::to_string(map.size()) +
                     " lines but the run has " + std::to_string(n) + " nodes" +
                     (d.spec.family() == Family::kSharing
                          ? " (sharing: line 1 is the coordinator, line m + 1 party m)"
                          : ""));
  }
  for (std::size_t i = 0; i < map.size(); ++i) {
    if (map[i] < 0 || map[i] >= size) {
      throw InputError("--node-ranks: line " + std::to_string(i + 1) + ": rank " +
                       std::to_string(map[i]) + " outside 0.." + std::to_string(size - 1) +
                       " (the job has " + std::to_string(size) + " ranks)");
    }
  }
  return runtime::LocalNodes(map, runtime::MpiRank(d.mpi->comm));
}

bool IsReportingRank(const Experiment::Driver& d) {
  return !d.mpi || runtime::MpiRank(d.mpi->comm) == 0;
}

runtime::EngineResult RunPrograms(const Experiment::Driver& d,
                                  std::span<runtime::NodeProgram* const> programs,
                                  const runtime::Topology& topology, runtime::EngineOptions options,
                                  runtime::RoundSink& sink) {
  if (!d.mpi) return runtime::Run(programs, topology, options, sink);
  options.kind = runtime::EngineKind::kMpi;
  options.node_ranks = d.mpi->node_ranks;
  options.peer_timeout_seconds = d.mpi->peer_timeout_seconds;
  runtime::EngineResult result = runtime::RunMpi(programs, topology, options, sink, d.mpi->comm);
  if (result.outcome == runtime::EngineOutcome::kFailed) {
    // The same on every rank: which rank hosted the failing node.
    result.failure.message =
        "rank " + std::to_string(result.failure.rank) + ", " + result.failure.message;
  }
  return result;
}

std::vector<double> CompletePerNode(const Experiment::Driver& d, std::vector<double> local) {
  if (!d.mpi) return local;
  std::vector<double> pairs;
  for (int i : d.hosted) {
    pairs.push_back(static_cast<double>(i));
    pairs.push_back(local[static_cast<std::size_t>(i)]);
  }
  const std::vector<double> all = runtime::MpiAllgather(pairs, d.mpi->comm);
  for (std::size_t k = 0; k + 1 < all.size(); k += 2) {
    local[static_cast<std::size_t>(all[k])] = all[k + 1];
  }
  return local;
}

bool StartRowwiseLoad(Experiment::Driver& d, const RunSpec& spec) {
  if (!d.mpi || spec.family() != Family::kConsensus || IsGenerated(spec.data.source)) {
    return false;
  }
  const DataSpec& data = spec.data;
  auto load = std::make_shared<RowwiseLoad>();
  // Counting rows reads no value (and no label).
  std::int64_t rows = 0;
  switch (data.source) {
    case DataSource::kAdult: rows = CountAdultRecords(data.train_path); break;
    case DataSource::kCsv: rows = CountDataRows(data.train_path, data.has_header); break;
    default: rows = CountDataRows(data.train_path); break;
  }
  if (!data.test_path.empty() || data.source == DataSource::kAdult) {
    load->file_rows.resize(static_cast<std::size_t>(rows));
    std::iota(load->file_rows.begin(), load->file_rows.end(), std::int64_t{0});
  } else {
    // LoadDataSource's seeded split, applied to the row indices: a one-column data set whose
    // value is the row's index goes through the same SplitTrainTest. The split depends on the
    // row count and the seed only.
    Dataset index;
    DenseRows column(rows, 1);
    for (std::int64_t r = 0; r < rows; ++r) column(r, 0) = static_cast<double>(r);
    index.x = std::move(column);
    index.y = Eigen::VectorXd::Ones(rows);
    const TrainTest split = SplitTrainTest(index, data.test_fraction, spec.seed);
    const auto& train_index = std::get<DenseRows>(split.train.x);
    const auto& test_index = std::get<DenseRows>(split.test.x);
    for (Eigen::Index r = 0; r < train_index.rows(); ++r) {
      load->file_rows.push_back(static_cast<std::int64_t>(train_index(r, 0)));
    }
    for (Eigen::Index r = 0; r < test_index.rows(); ++r) {
      load->test_rows.push_back(static_cast<std::int64_t>(test_index(r, 0)));
    }
  }
  d.rowwise = std::move(load);
  return true;
}

namespace {

// Every rank's values of `local`, concatenated in rank order.
std::vector<double> Gather(const runtime::MpiComm& comm, std::vector<double> local) {
  return runtime::MpiAllgather(local, comm);
}

// The label set of the whole file: the union of every rank's codes (the codes of the test rows,
// which every rank reads, are in every rank's).
unsigned FileLabelCodes(const runtime::MpiComm& comm, unsigned mine) {
  unsigned all = 0;
  for (double v : Gather(comm, {static_cast<double>(mine)})) all |= static_cast<unsigned>(v);
  return all;
}

// Delimited files: every kept row of every rank (and the test rows every rank reads) has one
// field count (each rank checked its own rows line by line); -1 = no row kept.
void RequireSameFields(const runtime::MpiComm& comm, const RowShare& train, const RowShare& test,
                       const std::string& path) {
  std::int64_t first = -1;
  for (double v :
       Gather(comm, {static_cast<double>(train.fields), static_cast<double>(test.fields)})) {
    const auto fields = static_cast<std::int64_t>(v);
    if (fields < 0) continue;
    if (first < 0) first = fields;
    if (fields != first) {
      throw InputError(path + ": rows have " + std::to_string(first) + " and " +
                       std::to_string(fields) +
                       " fields (rows read by different ranks): every row must have as many "
                       "fields as the first");
    }
  }
}

// This rank's training rows (`file_rows`, increasing) and the test set, each rank reading only
// its own rows of the training file; the test set is public evaluation data (a test file, or
// the seeded hold-out rows of the training file) that every rank reads.
TrainTest LoadRankRows(const DataSpec& data, const RowwiseLoad& load,
                       std::span<const std::int64_t> file_rows, const runtime::MpiComm& comm) {
  TrainTest out;
  const bool split = data.test_path.empty();
  switch (data.source) {
    case DataSource::kLibsvm: {
      RowShare mine = ReadLibsvmRows(data.train_path, file_rows, data.num_features);
      RowShare test;
      if (split) test = ReadLibsvmRows(data.train_path, load.test_rows, data.num_features);
      const unsigned codes = FileLabelCodes(comm, mine.label_codes | test.label_codes);
      MapRawLabels(mine.data, codes, false, data.train_path);
      out.train = std::move(mine.data);
      if (split) {
        MapRawLabels(test.data, codes, false, data.train_path);
        out.test = std::move(test.data);
      } else {
        out.test = LoadLibsvm(data.test_path, data.num_features);
      }
      return out;
    }
    case DataSource::kCsv: {
      RowShare mine = ReadCsvRows(data.train_path, file_rows, data.label_column, data.delimiter,
                                  data.has_header);
      RowShare test;
      if (split) {
        test = ReadCsvRows(data.train_path, load.test_rows, data.label_column, data.delimiter,
                           data.has_header);
      }
      RequireSameFields(comm, mine, test, data.train_path);
      const unsigned codes = FileLabelCodes(comm, mine.label_codes | test.label_codes);
      MapRawLabels(mine.data, codes, false, data.train_path);
      out.train = std::move(mine.data);
      if (split) {
        MapRawLabels(test.data, codes, false, data.train_path);
        out.test = std::move(test.data);
      } else {
        out.test = LoadCsv(data.test_path, data.label_column, data.delimiter, data.has_header);
      }
      break;
    }
    case DataSource::kAsc: {
      RowShare mine = ReadAscRows(data.train_path, data.train_labels_path, file_rows);
      RowShare test;
      if (split) test = ReadAscRows(data.train_path, data.train_labels_path, load.test_rows);
      RequireSameFields(comm, mine, test, data.train_path);
      const unsigned codes = FileLabelCodes(comm, mine.label_codes | test.label_codes);
      MapRawLabels(mine.data, codes, true, data.train_labels_path);
      out.train = std::move(mine.data);
      if (split) {
        MapRawLabels(test.data, codes, true, data.train_labels_path);
        out.test = std::move(test.data);
      } else {
        out.test = LoadAsc(data.test_path, data.test_labels_path);
      }
      break;
    }
    case DataSource::kAdult: {
      AdultData a = LoadAdultRows(data.train_path, data.test_path, file_rows,
                                  [&](std::vector<double> v) { return Gather(comm, v); });
      out.train = std::move(a.train);
      out.test = std::move(a.test);
      return out;
    }
    default: throw InputError("data: no per-rank loader for this source");
  }
  // Dense formats: the columns are the same on every rank; a test file must match them.
  const auto cols = static_cast<std::int64_t>(
      runtime::MpiAllreduceMax(static_cast<double>(out.train.cols()), comm));
  if (out.train.rows() == 0) out.train.x = DenseRows(0, cols);
  if (out.test.cols() != cols) {
    throw InputError((split ? data.train_path : data.test_path) + ": test data has " +
                     std::to_string(out.test.cols()) + " columns but training data has " +
                     std::to_string(cols));
  }
  return out;
}

}  // namespace

bool LoadColumnwise(Experiment::Driver& d, const RunSpec& spec, Dataset& train, Dataset& test) {
  const DataSpec& data = spec.data;
  if (!d.mpi || spec.algorithm.name() != Algorithm::kSharing || data.source != DataSource::kCsv ||
      EffectiveMetrics(spec) != MetricsScope::kReleasedOnly ||
      EffectiveScaling(spec) == Scaling::kGlobalMaxNorm) {
    return false;
  }
  const runtime::MpiComm comm = d.mpi->comm;
  const std::int64_t fields = CountFields(data.train_path, data.delimiter, data.has_header);
  const long long label = data.label_column < 0 ? fields + data.label_column
                                                : static_cast<long long>(data.label_column);
  if (fields < 2 || label < 0 || label >= fields) return false;  // the whole load says why
  const std::int64_t features = fields - 1;
  const std::vector<std::int64_t> sizes = PartyBlocks(spec, features + (data.add_bias ? 1 : 0));
  const auto parties = static_cast<int>(sizes.size());
  if (parties == 0) return false;
  std::vector<int> map = d.mpi->node_ranks;
  const int size = runtime::MpiSize(comm);
  if (map.empty()) map = runtime::ContiguousNodeRanks(parties + 1, size);
  if (static_cast<int>(map.size()) != parties + 1) return false;  // HostedNodes says why
  for (int r : map) {
    if (r < 0 || r >= size) return false;
  }
  const int rank = runtime::MpiRank(comm);
  // The fields this rank parses: its parties' columns (the intercept column, added later, is
  // not in the file), and the label if it hosts the coordinator.
  std::vector<char> parse(static_cast<std::size_t>(fields), 0);
  if (map[0] == rank) parse[static_cast<std::size_t>(label)] = 1;
  std::int64_t offset = 0;
  for (int p = 0; p < parties; ++p) {
    if (map[static_cast<std::size_t>(p + 1)] == rank) {
      for (std::int64_t c = offset; c < std::min(offset + sizes[p], features); ++c) {
        parse[static_cast<std::size_t>(c < label ? c : c + 1)] = 1;
      }
    }
    offset += sizes[p];
  }
  RowShare all =
      ReadCsvColumns(data.train_path, parse, data.label_column, data.delimiter, data.has_header);
  RowShare held_out;
  std::vector<std::int64_t> train_rows;
  if (data.test_path.empty()) {
    Dataset index;  // the seeded split of LoadDataSource, on row indices
    DenseRows column(all.rows_in_file, 1);
    for (std::int64_t r = 0; r < all.rows_in_file; ++r) column(r, 0) = static_cast<double>(r);
    index.x = std::move(column);
    index.y = Eigen::VectorXd::Ones(all.rows_in_file);
    const TrainTest split = SplitTrainTest(index, data.test_fraction, spec.seed);
    std::vector<std::int64_t> test_rows;
    for (Eigen::Index r = 0; r < split.train.rows(); ++r) {
      train_rows.push_back(static_cast<std::int64_t>(std::get<DenseRows>(split.train.x)(r, 0)));
    }
    for (Eigen::Index r = 0; r < split.test.rows(); ++r) {
      test_rows.push_back(static_cast<std::int64_t>(std::get<DenseRows>(split.test.x)(r, 0)));
    }
    held_out =
        ReadCsvRows(data.train_path, test_rows, data.label_column, data.delimiter, data.has_header);
  }
  const unsigned codes = FileLabelCodes(comm, all.label_codes | held_out.label_codes);
  if (map[0] == rank) MapRawLabels(all.data, codes, false, data.train_path);
  if (data.test_path.empty()) {
    MapRawLabels(held_out.data, codes, false, data.train_path);
    train = all.data.Subset(train_rows);
    test = std::move(held_out.data);
  } else {
    train = std::move(all.data);
    test = LoadCsv(data.test_path, data.label_column, data.delimiter, data.has_header);
    if (test.cols() != train.cols()) {
      throw InputError(data.test_path + ": test data has " + std::to_string(test.cols()) +
                       " columns but training data has " + std::to_string(train.cols()));
    }
  }
  return true;
}

std::vector<Dataset> LoadHostedSlices(Experiment::Driver& d, const Partition& partition) {
  const RowwiseLoad& load = *d.rowwise;
  const runtime::MpiComm comm = d.mpi->comm;
  // The training rows of this rank's nodes, loaded at once in file order.
  std::vector<std::int64_t> mine;
  for (int i : d.hosted) mine.insert(mine.end(), partition[i].begin(), partition[i].end());
  std::sort(mine.begin(), mine.end());
  std::vector<std::int64_t> file_rows;
  for (std::int64_t r : mine) file_rows.push_back(load.file_rows[static_cast<std::size_t>(r)]);
  TrainTest rows = LoadRankRows(d.spec.data, load, file_rows, comm);
  Dataset& local = rows.train;
  d.test = std::move(rows.test);
  if (d.spec.data.source == DataSource::kLibsvm) {
    // Columns as LoadDataSource: the largest index of the whole file (or num_features),
    // widened to a test file's.
    const auto cols = static_cast<std::int64_t>(
        runtime::MpiAllreduceMax(static_cast<double>(std::max(local.cols(), d.test.cols())), comm));
    local.Resize(cols);
    d.test.Resize(cols);
  }
  RunInfo& info = d.info;
  info.test_majority_rate = MajorityRate(d.test);
  info.features = local.cols();
  info.sparse = local.is_sparse();
  info.test_rows = d.test.rows();
  // Node i's slice: its rows in partition order, located in `local` (sorted `mine`).
  const auto slice = [&](const Dataset& from) {
    std::vector<Dataset> slices(partition.size());
    for (int i : d.hosted) {
      std::vector<std::int64_t> at;
      for (std::int64_t r : partition[i]) {
        at.push_back(std::lower_bound(mine.begin(), mine.end(), r) - mine.begin());
      }
      slices[i] = from.Subset(at);
    }
    return slices;
  };
  if (info.scaling == Scaling::kDpBounds) {
    // Each node estimates bounds from its own raw rows: slice first, then prepare.
    std::vector<Dataset> slices = slice(local);
    PrepareRowsPerNode(d, slices);
    return slices;
  }
  // The same preparation as in one process; only global-max-norm needs the other ranks.
  PrepareRows(d.spec, local, d.test, info,
              [&](double local_max) { return runtime::MpiAllreduceMax(local_max, comm); });
  info.features = local.cols();
  return slice(local);
}

void FilledReport::Report(std::int64_t round, std::span<double> out) const {
  inner_.Report(round, out);
  if (!fill_) {
    out[slot_] = std::numeric_limits<double>::quiet_NaN();
  } else if (std::isnan(out[slot_])) {
    out[slot_] = fill_(out);
  }
}

}  // namespace dpadmm
