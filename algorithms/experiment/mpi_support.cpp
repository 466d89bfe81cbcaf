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
  if (!d.mpi || spec.family() != Family::kConsensus || spec.data.source != DataSource::kLibsvm) {
    return false;
  }
  const DataSpec& data = spec.data;
  auto load = std::make_shared<RowwiseLoad>();
  load->path = data.train_path;
  load->num_features = data.num_features;
  std::int64_t rows = 0;
  (void)LoadLibsvmRows(data.train_path, {}, data.num_features, &rows);  // labels only
  if (!data.test_path.empty()) {
    d.test = LoadLibsvm(data.test_path, data.num_features > 0 ? data.num_features : 0);
    load->file_rows.resize(static_cast<std::size_t>(rows));
    std::iota(load->file_rows.begin(), load->file_rows.end(), std::int64_t{0});
  } else {
    // LoadDataSource's seeded split, applied to the row indices: a one-column data set whose
    // value is the row's index goes through the same SplitTrainTest.
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
    std::vector<std::int64_t> test_rows;
    for (Eigen::Index r = 0; r < test_index.rows(); ++r) {
      test_rows.push_back(static_cast<std::int64_t>(test_index(r, 0)));
    }
    // The test rows are evaluation data (no node's): every rank loads them.
    d.test = LoadLibsvmRows(data.train_path, test_rows, data.num_features);
  }
  d.rowwise = std::move(load);
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
  Dataset local = LoadLibsvmRows(load.path, file_rows, load.num_features);
  // Columns as LoadDataSource: the largest index of the whole file (or num_features), widened
  // to a test file's.
  const auto cols = static_cast<std::int64_t>(
      runtime::MpiAllreduceMax(static_cast<double>(std::max(local.cols(), d.test.cols())), comm));
  local.Resize(cols);
  d.test.Resize(cols);
  // The same preparation as in one process; only global-max-norm needs the other ranks.
  RunInfo& info = d.info;
  PrepareRows(d.spec, local, d.test, info,
              [&](double local_max) { return runtime::MpiAllreduceMax(local_max, comm); });
  info.features = local.cols();
  info.sparse = local.is_sparse();
  info.test_rows = d.test.rows();
  // Node i's slice: its rows in partition order, located in `local` (sorted `mine`).
  std::vector<Dataset> slices(partition.size());
  for (int i : d.hosted) {
    std::vector<std::int64_t> at;
    for (std::int64_t r : partition[i]) {
      at.push_back(std::lower_bound(mine.begin(), mine.end(), r) - mine.begin());
    }
    slices[i] = local.Subset(at);
  }
  return slices;
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
