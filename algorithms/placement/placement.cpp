// SPDX-License-Identifier: Apache-2.0
#include "placement/placement.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <numeric>
#include <stdexcept>
#include <string>

#include "dpadmm/core/error.h"
#include "dpadmm/data/loaders.h"
#include "dpadmm/data/preprocessing.h"
#include "dpadmm/data/standardization.h"

namespace dpadmm {

std::vector<int> HostedNodes(Experiment::Driver& d, int n) {
  if (d.network) {
    const int self = runtime::SelfIndex(*d.network);
    if (self >= 0) return runtime::PartyNodes(d.network->node_parties, self);
    throw InputError("party: this party's id '" + d.network->self + "' is not in the party list");
  }
  if (!d.mpi) {
    std::vector<int> all(static_cast<std::size_t>(n));
    std::iota(all.begin(), all.end(), 0);
    return all;
  }
  const int size = d.group->Size();
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
  return runtime::LocalNodes(map, d.group->Rank());
}

bool IsReportingRank(const Experiment::Driver& d) { return !d.mpi || d.group->Rank() == 0; }

std::vector<double> CompletePerNode(const Experiment::Driver& d, std::vector<double> local) {
  if (!d.mpi) return local;
  std::vector<double> pairs;
  for (int i : d.hosted) {
    pairs.push_back(static_cast<double>(i));
    pairs.push_back(local[static_cast<std::size_t>(i)]);
  }
  const std::vector<double> all = d.group->Allgather(pairs);
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
std::vector<double> Gather(const ProcessGroup& comm, std::vector<double> local) {
  return comm.Allgather(local);
}

// The label set of the whole file: the union of every rank's codes (the codes of the test rows,
// which every rank reads, are in every rank's).
unsigned FileLabelCodes(const ProcessGroup& comm, unsigned mine) {
  unsigned all = 0;
  for (double v : Gather(comm, {static_cast<double>(mine)})) all |= static_cast<unsigned>(v);
  return all;
}

// Delimited files: every kept row of every rank (and the test rows every rank reads) has one
// field count (each rank checked its own rows line by line); -1 = no row kept.
void RequireSameFields(const ProcessGroup& comm, const RowShare& train, const RowShare& test,
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
                       std::span<const std::int64_t> file_rows, const ProcessGroup& comm) {
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
  const auto cols =
      static_cast<std::int64_t>(comm.AllreduceMax(static_cast<double>(out.train.cols())));
  if (out.train.rows() == 0) out.train.x = DenseRows(0, cols);
  if (out.test.cols() != cols) {
    throw InputError((split ? data.train_path : data.test_path) + ": test data has " +
                     std::to_string(out.test.cols()) + " columns but training data has " +
                     std::to_string(cols));
  }
  return out;
}

}  // namespace

namespace {

// The nodes' ranks of a sharing run with `parties` parties (node 0 the coordinator, node m party
// m), as HostedNodes resolves them; empty if the map is invalid (HostedNodes says why).
std::vector<int> SharingNodeRanks(const Experiment::Driver& d, int parties) {
  std::vector<int> map = d.mpi->node_ranks;
  const int size = d.group->Size();
  if (map.empty()) map = runtime::ContiguousNodeRanks(parties + 1, size);
  if (static_cast<int>(map.size()) != parties + 1) return {};
  for (int r : map) {
    if (r < 0 || r >= size) return {};
  }
  return map;
}

// The rank holding each column of a sharing run's prepared rows (`cols` columns, the intercept
// column included: the rank of the party whose block holds it), and the coordinator's rank.
// `owner` is empty if the layout or the map is invalid (Prepare or HostedNodes says why).
struct ColumnHolders {
  std::vector<int> owner;
  int coordinator = -1;
};

ColumnHolders ColumnRanks(const Experiment::Driver& d, const RunSpec& spec, std::int64_t cols) {
  ColumnHolders out;
  const std::vector<std::int64_t> sizes = PartyBlocks(spec, cols);
  if (sizes.empty()) return out;
  const std::vector<int> map = SharingNodeRanks(d, static_cast<int>(sizes.size()));
  if (map.empty()) return out;
  for (std::size_t p = 0; p < sizes.size(); ++p) {
    out.owner.insert(out.owner.end(), static_cast<std::size_t>(sizes[p]), map[p + 1]);
  }
  out.coordinator = map[0];
  return out;
}

// Why a sharing run on a data file cannot be loaded column by column under MPI (empty: it can).
std::string ColumnwiseRefusal(const RunSpec& spec) {
  const DataSpec& data = spec.data;
  const std::string tail =
      ": every rank would have to read every party's columns. Run it without --engine mpi";
  if (data.source == DataSource::kAdult) {
    return "data: adult with the sharing family under --engine mpi is refused: the one-hot "
           "encoding's column layout (which encoded columns are whose) depends on every "
           "attribute's categories" +
           tail + ", or convert the data to LIBSVM";
  }
  if (data.source == DataSource::kCsv || data.source == DataSource::kAsc) {
    // A dense row's norm is Eigen's vectorised sum over the whole row: no order of partial sums
    // held by different ranks reproduces its bits.
    if (EffectiveScaling(spec) == Scaling::kGlobalMaxNorm) {
      return "data.scaling: global-max-norm on dense data (csv, asc) with the sharing family "
             "under --engine mpi is refused: the factor needs whole-row norms, whose bits only "
             "the whole row gives" +
             tail + ", use --scaling clip-only or public-bounds, or LIBSVM data (sparse rows)";
    }
    if (EffectiveMetrics(spec) == MetricsScope::kAll) {
      return "metrics: 'all' on dense data (csv, asc) with the sharing family under --engine "
             "mpi is refused: info.max_row_norm_before needs whole-row norms, whose bits only "
             "the whole row gives" +
             tail + ", use --metrics released-only, or LIBSVM data (sparse rows)";
    }
  }
  return "";
}

// The seeded split of LoadDataSource applied to the row indices of a file of `rows` rows.
void SplitRowIndices(std::int64_t rows, const DataSpec& data, std::uint64_t seed,
                     std::vector<std::int64_t>& train_rows, std::vector<std::int64_t>& test_rows) {
  Dataset index;
  DenseRows column(rows, 1);
  for (std::int64_t r = 0; r < rows; ++r) column(r, 0) = static_cast<double>(r);
  index.x = std::move(column);
  index.y = Eigen::VectorXd::Ones(rows);
  const TrainTest split = SplitTrainTest(index, data.test_fraction, seed);
  for (Eigen::Index r = 0; r < split.train.rows(); ++r) {
    train_rows.push_back(static_cast<std::int64_t>(std::get<DenseRows>(split.train.x)(r, 0)));
  }
  for (Eigen::Index r = 0; r < split.test.rows(); ++r) {
    test_rows.push_back(static_cast<std::int64_t>(std::get<DenseRows>(split.test.x)(r, 0)));
  }
}

}  // namespace

bool LoadColumnwise(Experiment::Driver& d, const RunSpec& spec, Dataset& train, Dataset& test) {
  const DataSpec& data = spec.data;
  if (!d.mpi || spec.family() != Family::kSharing || IsGenerated(data.source)) return false;
  if (const std::string why = ColumnwiseRefusal(spec); !why.empty()) throw InputError(why);
  const ProcessGroup& comm = *d.group;
  const bool libsvm = data.source == DataSource::kLibsvm;
  const bool asc = data.source == DataSource::kAsc;
  const bool split = data.test_path.empty();
  // The file's feature columns, from its structure only (field counts, LIBSVM's indices).
  std::int64_t fields = 0, features = 0;
  long long label = -1;  // the label's field (CSV)
  if (libsvm) {
    if (!split) test = LoadLibsvm(data.test_path, data.num_features);  // public: read whole
    features = data.num_features > 0
                   ? data.num_features
                   : std::max(LibsvmMaxIndex(data.train_path), split ? 0 : test.cols());
  } else if (asc) {
    fields = CountFields(data.train_path, ' ');
    features = fields;
  } else {
    fields = CountFields(data.train_path, data.delimiter, data.has_header);
    label = data.label_column < 0 ? fields + data.label_column
                                  : static_cast<long long>(data.label_column);
    if (fields < 2 || label < 0 || label >= fields) return false;  // the whole load says why
    features = fields - 1;
  }
  // A layout or a node map that does not fit is refused before any value is read.
  const std::int64_t total = features + (data.add_bias ? 1 : 0);
  const std::vector<std::int64_t> sizes = PartyBlocks(spec, total);
  if (sizes.empty()) {
    const PartyLayout& layout =
        spec.algorithm.name() == Algorithm::kSharing
            ? static_cast<const PartyLayout&>(spec.algorithm.As<SharingParams>())
            : static_cast<const PartyLayout&>(spec.algorithm.As<SgdParams>());
    const std::string prefix = std::string("algorithm.") + ChoiceName(spec.algorithm.name());
    throw InputError(
        layout.party_features.empty()
            ? prefix + ".parties: " + std::to_string(layout.parties) +
                  " parties need at least as many features, the data has " + std::to_string(total)
            : prefix + ".party_features: the counts must be >= 1 each and add up to the data's " +
                  std::to_string(total) + " features (the intercept column included)");
  }
  (void)HostedNodes(d, static_cast<int>(sizes.size()) + 1);  // throws naming --node-ranks
  const ColumnHolders holders = ColumnRanks(d, spec, total);
  const std::vector<int>& owner = holders.owner;
  const int rank = comm.Rank();
  const bool coordinator = holders.coordinator == rank;
  // The feature columns this rank parses: its parties' (the intercept column, added later, is
  // not in the file); the label only if it hosts the coordinator.
  std::vector<char> mine(static_cast<std::size_t>(features), 0);
  for (std::int64_t c = 0; c < features; ++c) {
    mine[static_cast<std::size_t>(c)] = owner[static_cast<std::size_t>(c)] == rank ? 1 : 0;
  }
  std::vector<char> parse = mine;  // by field (CSV: the label field inserted)
  if (!libsvm && !asc) {
    parse.insert(parse.begin() + label, coordinator ? 1 : 0);
  }
  RowShare all;
  if (libsvm) {
    all = ReadLibsvmColumns(data.train_path, mine, coordinator, data.num_features);
    all.data.Resize(features);
  } else if (asc) {
    all = ReadAscColumns(data.train_path, coordinator ? data.train_labels_path : "", parse);
  } else {
    all =
        ReadCsvColumns(data.train_path, parse, data.label_column, data.delimiter, data.has_header);
  }
  // The test set is public evaluation data that every rank reads whole: a test file, or the
  // seeded hold-out rows of the training file.
  RowShare held_out;
  std::vector<std::int64_t> train_rows, test_rows;
  if (split) {
    SplitRowIndices(all.rows_in_file, data, spec.seed, train_rows, test_rows);
    if (libsvm) {
      held_out = ReadLibsvmRows(data.train_path, test_rows, data.num_features);
      held_out.data.Resize(features);
    } else if (asc) {
      held_out = ReadAscRows(data.train_path, data.train_labels_path, test_rows);
    } else {
      held_out = ReadCsvRows(data.train_path, test_rows, data.label_column, data.delimiter,
                             data.has_header);
    }
  }
  const unsigned codes = FileLabelCodes(comm, all.label_codes | held_out.label_codes);
  const std::string& labels_path = asc ? data.train_labels_path : data.train_path;
  if (coordinator) MapRawLabels(all.data, codes, asc, labels_path);
  if (split) {
    MapRawLabels(held_out.data, codes, asc, labels_path);
    train = all.data.Subset(train_rows);
    test = std::move(held_out.data);
    return true;
  }
  train = std::move(all.data);
  if (libsvm) {
    test.Resize(features);
    return true;
  }
  test = asc ? LoadAsc(data.test_path, data.test_labels_path)
             : LoadCsv(data.test_path, data.label_column, data.delimiter, data.has_header);
  if (test.cols() != train.cols()) {
    throw InputError(data.test_path + ": test data has " + std::to_string(test.cols()) +
                     " columns but training data has " + std::to_string(train.cols()));
  }
  return true;
}

std::function<double(double)> ColumnwiseMaxRowNorm(const Experiment::Driver& d,
                                                   const RunSpec& spec) {
  const std::int64_t total = d.train.cols() + (spec.data.add_bias ? 1 : 0);
  std::vector<int> owner = ColumnRanks(d, spec, total).owner;
  return [&d, owner = std::move(owner)](double /*local*/) {
    const auto* rows = std::get_if<SparseRows>(&d.train.x);
    if (rows == nullptr || static_cast<std::int64_t>(owner.size()) < d.train.cols()) {
      throw std::logic_error("ColumnwiseMaxRowNorm: sparse rows and a valid layout only");
    }
    const ProcessGroup& comm = *d.group;
    const int rank = comm.Rank();
    // Each row's sum of squares in column order, as Dataset::MaxRowNorm's loop makes it: each
    // run of columns held by one rank adds its entries to the running sums, which then go to
    // every rank (sums of squares, never a value) for the next run.
    std::vector<double> sums(static_cast<std::size_t>(rows->rows()), 0.0);
    const auto cols = static_cast<std::int64_t>(d.train.cols());
    for (std::int64_t begin = 0; begin < cols;) {
      const int holder = owner[static_cast<std::size_t>(begin)];
      std::int64_t end = begin;
      while (end < cols && owner[static_cast<std::size_t>(end)] == holder) ++end;
      std::vector<double> part;
      if (holder == rank) {
        for (Eigen::Index r = 0; r < rows->outerSize(); ++r) {
          double sq = sums[static_cast<std::size_t>(r)];
          for (SparseRows::InnerIterator it(*rows, r); it; ++it) {
            if (it.col() >= begin && it.col() < end) sq += it.value() * it.value();
          }
          sums[static_cast<std::size_t>(r)] = sq;
        }
        part = sums;
      }
      sums = comm.Allgather(part);  // the holder's sums only
      begin = end;
    }
    double max_sq = 0.0;
    for (double sq : sums) max_sq = std::max(max_sq, sq);
    const double train_max = d.train.rows() == 0 ? 0.0 : std::sqrt(max_sq);
    return std::max(train_max, d.test.MaxRowNorm());
  };
}

std::vector<Dataset> LoadHostedSlices(Experiment::Driver& d, const Partition& partition) {
  const RowwiseLoad& load = *d.rowwise;
  const ProcessGroup& comm = *d.group;
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
        comm.AllreduceMax(static_cast<double>(std::max(local.cols(), d.test.cols()))));
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
  if (d.spec.data.scaling == Scaling::kAuto && info.scaling == Scaling::kGlobalMaxNorm) {
    // auto with the units of every rank's training rows (the single process's resolution).
    const bool raw = comm.AllreduceMax(HasRawUnits(local) ? 1.0 : 0.0) > 0.0;
    info.scaling = EffectiveScaling(d.spec, raw && RawUnitSource(d.spec, false));
  }
  if (PreparedPerNode(d.spec, info.scaling)) {
    // Each node prepares from its own raw rows (and the others' releases or moments): slice
    // first, then prepare.
    std::vector<Dataset> slices = slice(local);
    PrepareRowsPerNode(d, slices);
    return slices;
  }
  // The same preparation as in one process; only global-max-norm needs the other ranks.
  PrepareRows(d.spec, local, d.test, info,
              [&](double local_max) { return comm.AllreduceMax(local_max); });
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
