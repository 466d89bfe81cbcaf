// SPDX-License-Identifier: Apache-2.0
// Experiment: the family-independent part of a run (validation, data, RunInfo's common fields,
// engine checks) and the dispatch to the family's driver.
#include <algorithm>
#include <cmath>
#include <iomanip>
#include <limits>
#include <optional>
#include <sstream>
#include <stdexcept>

#include "data/data_source.h"
#include "dpadmm/core/error.h"
#include "dpadmm/data/preprocessing.h"
#include "dpadmm/data/standardization.h"
#include "dpadmm/placement/mpi_run.h"
#include "dpadmm/privacy/bounds_release.h"
#include "dpadmm/privacy/standardize_release.h"
#include "dpadmm/runtime/mpi.h"
#include "dpadmm/solver/local_solver.h"
#include "dpadmm/tools/calibration.h"
#include "placement/placement.h"
#include "run/driver.h"
#include "run/spec_internal.h"

#include "core/numbers.h"

namespace dpadmm {
namespace {

void CheckEngine(runtime::EngineKind engine, int threads) {
  if (!runtime::EngineAvailable(engine)) {
    throw InputError(std::string("engine: '") + ChoiceName(engine) +
                     "' is not available in this build (use serial)");
  }
  if (threads < 0) {
    throw InputError("threads must be >= 0 (0 = all cores), got " + std::to_string(threads));
  }
}

}  // namespace

// The column block of each party of a sharing run (the driver's split: party_features, or an
// even split with the first d mod M parties one column wider); empty for the consensus family
// or a layout that does not fit (the driver's Prepare then rejects it).
std::vector<std::int64_t> PartyBlocks(const RunSpec& spec, std::int64_t cols) {
  if (spec.family() != Family::kSharing) return {};
  const PartyLayout& layout =
      spec.algorithm.name() == Algorithm::kSharing
          ? static_cast<const PartyLayout&>(spec.algorithm.As<SharingParams>())
          : static_cast<const PartyLayout&>(spec.algorithm.As<SgdParams>());
  std::vector<std::int64_t> sizes = layout.party_features;
  if (sizes.empty()) {
    const std::int64_t m = layout.parties;
    for (std::int64_t p = 0; p < m; ++p) sizes.push_back(cols / m + (p < cols % m ? 1 : 0));
  }
  std::int64_t total = 0;
  for (std::int64_t size : sizes) {
    if (size < 1) return {};
    total += size;
  }
  return total == cols ? sizes : std::vector<std::int64_t>{};
}

namespace {

// Clips each record (consensus: every node holds whole rows) or each party's block of each
// record (sharing: a party sees only its own columns, so it can only bound its own block).
void Clip(const RunSpec& spec, Dataset& data) {
  if (spec.family() == Family::kSharing) {
    const std::vector<std::int64_t> blocks = PartyBlocks(spec, data.cols());
    if (!blocks.empty()) ClipRowBlocks(data, blocks);
    return;
  }
  ClipRows(data);
}

}  // namespace

namespace {

// The per-feature map of `bounds` to [-1, 1] / sqrt(d) (d: the final column count, the bias
// column included, so that a row within its bounds has norm <= 1 before clipping), the bias
// column at 1 / sqrt(d), then clipping: a map of each record alone.
void MapByBounds(const RunSpec& spec, const FeatureBounds& bounds, Dataset& data) {
  const std::int64_t dims = data.cols() + (spec.data.add_bias ? 1 : 0);
  if (data.rows() > 0) ScaleByPublicBounds(data, bounds, dims);
  if (spec.data.add_bias) AddBiasFeature(data, 1.0 / std::sqrt(static_cast<double>(dims)));
  Clip(spec, data);
}

// The per-feature standardization to (x - mean) / (scale sqrt(d)) (d: the final column count,
// the bias column included), the bias column at 1 / sqrt(d), then clipping: the same map for
// the training rows, the test rows and a model's rows.
void MapByStandardization(const RunSpec& spec, const FeatureStandardization& s, Dataset& data) {
  const std::int64_t dims = data.cols() + (spec.data.add_bias ? 1 : 0);
  if (data.rows() > 0) StandardizeRows(data, s, dims);
  if (spec.data.add_bias) AddBiasFeature(data, 1.0 / std::sqrt(static_cast<double>(dims)));
  Clip(spec, data);
}

// The public bounds of spec.data (feature_bounds_path, feature_range) for `features` features.
FeatureBounds PublicBounds(const DataSpec& data, std::int64_t features) {
  return data.feature_bounds_path.empty()
             ? UniformBounds(features, data.feature_range[0], data.feature_range[1])
             : LoadFeatureBounds(data.feature_bounds_path, features, data.feature_range);
}

}  // namespace

bool PreparedPerNode(const RunSpec& spec, Scaling scaling) {
  if (spec.family() != Family::kConsensus) return false;
  return scaling == Scaling::kDpBounds || scaling == Scaling::kStandardize ||
         scaling == Scaling::kDpStandardize;
}

// Every row prepared as spec.data says (data/preprocessing.h). Only global-max-norm and
// standardize read more than the record they prepare; test rows take the same maps.
void PrepareRows(const RunSpec& spec, Dataset& train, Dataset& test, RunInfo& info,
                 const std::function<double(double)>& max_over_holders) {
  const auto all_max = [&](double local) {
    return max_over_holders ? max_over_holders(local) : local;
  };
  const DataSpec& data = spec.data;
  const bool per_feature =
      info.scaling == Scaling::kPublicBounds || info.scaling == Scaling::kDpBounds ||
      info.scaling == Scaling::kStandardize || info.scaling == Scaling::kDpStandardize;
  // The intercept column comes before the scaling (per-feature maps: after, at 1/sqrt(d)).
  if (data.add_bias && !per_feature) {
    AddBiasFeature(train);
    AddBiasFeature(test);
  }
  info.max_row_norm_before = kNaN;
  if (info.metrics == MetricsScope::kAll) {  // a private evaluation
    info.max_row_norm_before = all_max(std::max(train.MaxRowNorm(), test.MaxRowNorm()));
  }
  switch (info.scaling) {
    case Scaling::kGlobalMaxNorm:
      info.normalization_factor = GlobalMaxNormScale(train, test, max_over_holders);
      return;
    case Scaling::kPublicBounds: {
      const FeatureBounds bounds = PublicBounds(data, train.cols());
      MapByBounds(spec, bounds, train);
      MapByBounds(spec, bounds, test);
      return;
    }
    case Scaling::kStandardize: {
      // The sharing family (the consensus family prepares per node): the training rows in
      // one part.
      const FeatureStandardization s = StandardizationFromMoments(ComputeFeatureMoments(train));
      info.standardization.mean = s.mean;
      info.standardization.scale = s.scale;
      MapByStandardization(spec, s, train);
      MapByStandardization(spec, s, test);
      return;
    }
    case Scaling::kDpBounds:  // per node, after partitioning (PrepareRowsPerNode)
    case Scaling::kDpStandardize:
      throw std::logic_error(
          "PrepareRows: dp-bounds and dp-standardize rows are prepared per node");
    case Scaling::kClipOnly:
      Clip(spec, train);
      Clip(spec, test);
      return;
    case Scaling::kNone:
    case Scaling::kAuto:  // resolved by EffectiveScaling
      return;
  }
}

namespace {

// `values` summed over the MPI ranks in rank order: each rank's partial sums of integers (exact
// in any order), or each node's entries filled by the rank hosting it and -0.0 elsewhere (-0.0
// adds nothing to any value, its sign included): the one-process vector's bits on every rank.
void SumOverRanks(const Experiment::Driver& d, std::vector<double>& values) {
  if (!d.mpi) return;
  const std::vector<double> all = runtime::MpiAllgather(values, d.mpi->comm);
  std::fill(values.begin(), values.end(), -0.0);
  for (std::size_t k = 0; k < all.size(); ++k) values[k % values.size()] += all[k];
}

// dp-bounds: the hosted nodes' releases from their own raw rows, summed (exact: integer counts).
std::vector<double> HostedDpBoundsReleases(const Experiment::Driver& d,
                                           const std::vector<Dataset>& slices,
                                           const BoundsMechanism& mechanism) {
  std::vector<double> summed(static_cast<std::size_t>(mechanism.features * kBoundsBins), 0.0);
  for (int i : d.hosted) {
    const std::vector<double> release = ReleaseBoundsHistogram(
        slices[i], mechanism, d.spec.noise_seed, static_cast<std::uint64_t>(i));
    for (std::size_t k = 0; k < summed.size(); ++k) summed[k] += release[k];
  }
  return summed;
}

// dp-bounds: the agreed bounds read off every node's summed release (recorded in info.dp_bounds).
FeatureBounds DpBoundsOfReleases(Experiment::Driver& d, const std::vector<double>& summed,
                                 const BoundsMechanism& mechanism, int nodes) {
  const DpBoundsEstimate estimate =
      BoundsFromReleases(summed, mechanism, nodes, d.spec.data.feature_range);
  RunInfo& info = d.info;
  info.dp_bounds.epsilon = mechanism.epsilon;
  info.dp_bounds.threshold = estimate.threshold;
  info.dp_bounds.fallback_features = estimate.fallback_features;
  info.dp_bounds.lo = estimate.bounds.lo;
  info.dp_bounds.hi = estimate.bounds.hi;
  return estimate.bounds;
}

// dp-bounds in one process or across ranks: every node's release summed (across ranks under MPI:
// released values) into the agreed bounds.
FeatureBounds AgreeDpBounds(Experiment::Driver& d, const std::vector<Dataset>& slices,
                            std::int64_t features) {
  const BoundsMechanism mechanism = MakeBoundsMechanism(d.spec.data.bounds_epsilon, features);
  std::vector<double> summed = HostedDpBoundsReleases(d, slices, mechanism);
  SumOverRanks(d, summed);
  return DpBoundsOfReleases(d, summed, mechanism, static_cast<int>(slices.size()));
}

// standardize: every node's exact moments, combined in node order (the same bits in one
// process and across ranks).
FeatureStandardization ExactStandardization(Experiment::Driver& d,
                                            const std::vector<Dataset>& slices,
                                            std::int64_t features) {
  const auto width = static_cast<std::size_t>(1 + 2 * features);
  std::vector<double> packed(slices.size() * width, -0.0);
  for (int i : d.hosted) {
    const FeatureMoments m = ComputeFeatureMoments(slices[i]);
    double* at = packed.data() + static_cast<std::size_t>(i) * width;
    at[0] = static_cast<double>(m.rows);
    std::copy(m.mean.begin(), m.mean.end(), at + 1);
    std::copy(m.m2.begin(), m.m2.end(), at + 1 + features);
  }
  SumOverRanks(d, packed);
  std::vector<FeatureMoments> parts(slices.size());
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const double* at = packed.data() + i * width;
    parts[i].rows = static_cast<std::int64_t>(at[0]);
    parts[i].mean.assign(at + 1, at + 1 + features);
    parts[i].m2.assign(at + 1 + features, at + 1 + 2 * features);
  }
  return StandardizationFromMoments(CombineFeatureMoments(parts));
}

// dp-standardize: each hosted node's noisy clipped sums, summed over nodes (exact: integers),
// and the shared standardization read off the sum (recorded in info.standardization).
FeatureStandardization DpStandardization(Experiment::Driver& d, const std::vector<Dataset>& slices,
                                         std::int64_t features, const FeatureBounds& bounds) {
  const RunSpec& spec = d.spec;
  const StandardizeMechanism mechanism =
      MakeStandardizeMechanism(spec.data.standardize_epsilon, features);
  std::vector<double> summed(static_cast<std::size_t>(2 * features), 0.0);
  for (int i : d.hosted) {
    const std::vector<double> release = ReleaseStandardizeSums(
        slices[i], bounds, mechanism, spec.noise_seed, static_cast<std::uint64_t>(i));
    for (std::size_t k = 0; k < summed.size(); ++k) summed[k] += release[k];
  }
  SumOverRanks(d, summed);  // released values
  std::int64_t rows = 0;    // public: every node's row count
  for (const std::vector<std::int64_t>& part : d.partition) rows += std::ssize(part);
  const DpStandardizeEstimate estimate =
      StandardizationFromReleases(summed, bounds, mechanism, rows, static_cast<int>(slices.size()));
  RunInfo& info = d.info;
  info.standardization.epsilon = mechanism.epsilon;
  info.standardization.variance_floor = estimate.variance_floor;
  info.standardization.floored_features = estimate.floored_features;
  return estimate.standardization;
}

// A party of a network run under dp-bounds maps nothing yet: its nodes' summed release (released
// values only) goes to every other party in the network engine's set-up exchange
// (d.network->setup_values); each party sums all of them, in the same exact integer counts, and
// maps its rows before round 0 (d.network->on_setup). A second run of the same party must find
// the same bounds (its rows are mapped once).
void ExchangeDpBounds(Experiment::Driver& d, std::vector<Dataset>& slices, std::int64_t features) {
  const BoundsMechanism mechanism = MakeBoundsMechanism(d.spec.data.bounds_epsilon, features);
  d.info.dp_bounds.epsilon = mechanism.epsilon;
  d.network->setup_values = HostedDpBoundsReleases(d, slices, mechanism);
  d.network->on_setup = [&d, &slices, mechanism](const std::vector<std::vector<double>>& all) {
    std::vector<double> total(static_cast<std::size_t>(mechanism.features * kBoundsBins), 0.0);
    for (const std::vector<double>& release : all) {
      if (release.size() != total.size()) throw std::logic_error("dp-bounds: release length");
      for (std::size_t k = 0; k < total.size(); ++k) total[k] += release[k];
    }
    const int nodes = static_cast<int>(slices.size());
    if (!d.info.dp_bounds.lo.empty()) {
      const DpBoundsEstimate again =
          BoundsFromReleases(total, mechanism, nodes, d.spec.data.feature_range);
      if (again.bounds.lo != d.info.dp_bounds.lo || again.bounds.hi != d.info.dp_bounds.hi) {
        throw std::runtime_error(
            "dp-bounds: the parties' bounds releases differ from this party's previous run "
            "(its rows are already mapped by those bounds)");
      }
      return;
    }
    const FeatureBounds bounds = DpBoundsOfReleases(d, total, mechanism, nodes);
    for (int i : d.hosted) MapByBounds(d.spec, bounds, slices[i]);
    MapByBounds(d.spec, bounds, d.test);
    if (d.train.rows() > 0) MapByBounds(d.spec, bounds, d.train);  // the optimum's rows
  };
}

}  // namespace

void PrepareRowsPerNode(Experiment::Driver& d, std::vector<Dataset>& slices) {
  const RunSpec& spec = d.spec;
  RunInfo& info = d.info;
  const std::int64_t features = d.info.features;
  double max_norm = d.test.MaxRowNorm();
  for (int i : d.hosted) max_norm = std::max(max_norm, slices[i].MaxRowNorm());
  if (d.network) {
    // A party: the set-up exchange carries only dp-bounds' releases (CheckPartySpec refuses the
    // other per-node scalings); its own rows' largest norm is all it may see.
    if (info.scaling != Scaling::kDpBounds) {
      throw std::logic_error("PrepareRowsPerNode: a party's per-node scaling is dp-bounds");
    }
    info.max_row_norm_before = info.metrics == MetricsScope::kAll ? max_norm : kNaN;
    info.features = features + (spec.data.add_bias ? 1 : 0);
    ExchangeDpBounds(d, slices, features);
    return;
  }
  if (d.mpi) max_norm = runtime::MpiAllreduceMax(max_norm, d.mpi->comm);
  info.max_row_norm_before = info.metrics == MetricsScope::kAll ? max_norm : kNaN;
  const auto map_all = [&](const auto& map) {
    for (int i : d.hosted) map(slices[i]);
    map(d.test);
    if (d.train.rows() > 0) map(d.train);  // the optimum's rows
  };
  switch (info.scaling) {
    case Scaling::kDpBounds: {
      const FeatureBounds bounds = AgreeDpBounds(d, slices, features);
      map_all([&](Dataset& data) { MapByBounds(spec, bounds, data); });
      break;
    }
    case Scaling::kStandardize:
    case Scaling::kDpStandardize: {
      FeatureStandardization s;
      if (info.scaling == Scaling::kStandardize) {
        s = ExactStandardization(d, slices, features);
      } else {
        const FeatureBounds bounds = spec.data.bounds_epsilon > 0.0
                                         ? AgreeDpBounds(d, slices, features)
                                         : PublicBounds(spec.data, features);
        s = DpStandardization(d, slices, features, bounds);
      }
      info.standardization.mean = s.mean;
      info.standardization.scale = s.scale;
      map_all([&](Dataset& data) { MapByStandardization(spec, s, data); });
      break;
    }
    default: throw std::logic_error("PrepareRowsPerNode: not a per-node scaling");
  }
  info.features = features + (spec.data.add_bias ? 1 : 0);
}

double MajorityRate(const Dataset& data) {
  if (data.rows() == 0) return kNaN;
  const auto positive = static_cast<double>((data.y.array() > 0.0).count());
  const auto rows = static_cast<double>(data.rows());
  return std::max(positive, rows - positive) / rows;
}

void CheckPartySpec(const RunSpec& spec) {
  const std::string party =
      ": not available in party mode (one process per party, each with "
      "its own rows only)";
  if (spec.algorithm.name() == Algorithm::kSgd) {
    throw InputError(
        "algorithm.name: 'sgd'" + party +
        ": the SGD baseline is a loop in one process (or collectives under MPI), not an engine "
        "run; the sharing family runs across parties as 'sharing' (with or without dp)");
  }
  if (spec.family() == Family::kSharing) {
    const SharingParams& sp = spec.algorithm.As<SharingParams>();
    if (sp.party_features.empty()) {
      throw InputError(
          "algorithm.sharing.party_features: required in party mode: each party's column "
          "count is part of the public spec (every party needs the layout; no party sees "
          "another's file); give one count per feature party, in order");
    }
    switch (EffectiveScaling(spec)) {
      case Scaling::kClipOnly:
      case Scaling::kNone: break;
      default:
        throw InputError(std::string("data.scaling: '") + ChoiceName(EffectiveScaling(spec)) + "'" +
                         party +
                         " for the sharing family: each party prepares its own block of every "
                         "row; use clip-only (each block clipped to norm 1) or none");
    }
  }
  switch (EffectiveScaling(spec)) {
    case Scaling::kGlobalMaxNorm:
      throw InputError(
          "data.scaling: global-max-norm" + party +
          ": its factor is the largest row norm over every party's rows, which no party may "
          "see; use clip-only, public-bounds (feature_range or feature_bounds_path) or none");
    case Scaling::kStandardize:
      throw InputError(
          "data.scaling: standardize" + party +
          ": its means and deviations come from every party's rows, which no party may see; "
          "use dp-bounds, clip-only, public-bounds or none (dp-standardize runs in one process "
          "or across MPI ranks)");
    case Scaling::kDpStandardize:
      throw InputError(
          "data.scaling: dp-standardize" + party +
          ": the parties' set-up exchange carries dp-bounds' releases only; use dp-bounds, "
          "clip-only, public-bounds or none");
    default: break;
  }
  if (spec.target_epsilon > 0.0 && spec.partition.public_rows.empty()) {
    throw InputError("target_epsilon" + party +
                     ": the epsilon policy and the calibration need every node's row count; "
                     "declare them in partition.public_rows (the same in every party's spec), "
                     "or set the algorithm's noise parameter instead");
  }
  if (spec.tolerance > 0.0) {
    throw InputError("tolerance" + party +
                     ": the stop rule needs every node's model; run a fixed number of iterations");
  }
  if (spec.partition.kind != PartitionKind::kEven) {
    throw InputError(std::string("partition.kind: '") + ChoiceName(spec.partition.kind) + "'" +
                     party +
                     ": each party's rows are its own data, split among the nodes it "
                     "hosts in contiguous blocks; leave partition.kind 'even'");
  }
}

namespace {

// A party of a sharing run (dpadmm/party.h) prepares its own rows: a feature party its block
// of every row as the serial run prepares that block (the last party's block ends with the
// intercept column when data.add_bias; clip-only clips each row of the block, which is what
// ClipRowBlocks does to it in one process); the coordinator holds labels only.
void PrepareSharingPartyRows(const RunSpec& spec, const runtime::NetworkOptions& network,
                             Dataset& train, RunInfo& info) {
  info.max_row_norm_before = kNaN;  // over every party's columns: no party sees it
  const int M = spec.algorithm.As<SharingParams>().parties;
  const std::vector<int> nodes =
      runtime::PartyNodes(network.node_parties, runtime::SelfIndex(network));
  if (nodes.size() != 1 || nodes[0] == 0) return;  // the coordinator (or refused in Prepare)
  if (spec.data.add_bias && nodes[0] == M) AddBiasFeature(train);
  if (info.scaling == Scaling::kClipOnly) ClipRows(train);
}

std::unique_ptr<Experiment::Driver> Build(RunSpec spec, bool in_memory, Dataset train, Dataset test,
                                          const MpiPlacement* placement,
                                          const runtime::NetworkOptions* network = nullptr) {
  if (placement == nullptr && spec.engine == runtime::EngineKind::kMpi) {
    static const MpiPlacement kWorld;
    placement = &kWorld;
  }
  ValidateSpec(spec, !in_memory);
  // The SGD baseline is an in-process loop: the engine does not matter.
  if (spec.algorithm.name() != Algorithm::kSgd) CheckEngine(spec.engine, spec.threads);
  std::unique_ptr<Experiment::Driver> d =
      spec.family() == Family::kConsensus ? MakeConsensusDriver() : MakeSharingDriver();
  if (network != nullptr) {
    CheckPartySpec(spec);
    d->network = std::make_unique<runtime::NetworkOptions>(*network);
  }
  if (placement != nullptr) {
    CheckEngine(runtime::EngineKind::kMpi, spec.threads);
    if (!runtime::MpiInitialized()) {
      throw InputError(
          "engine: 'mpi' needs MPI initialised first (runtime::MpiSession, or the "
          "caller's MPI_Init) and every rank of the communicator constructing the "
          "experiment");
    }
    d->mpi = std::make_unique<MpiPlacement>(*placement);
    d->group = MpiProcessGroup(placement->comm);
    spec.engine = runtime::EngineKind::kMpi;
  }
  const bool rowwise = !in_memory && StartRowwiseLoad(*d, spec);  // MPI: rows per rank later
  bool columnwise = false;  // MPI sharing: this rank's parties' columns only
  if (rowwise) {
    // Each rank loads its own nodes' training rows in Prepare (LoadHostedSlices), which also
    // fills the data fields of info below.
  } else if (!in_memory && (columnwise = LoadColumnwise(*d, spec, train, test))) {
    // Sharing under MPI: this rank's parties' columns only (and the labels on the coordinator's).
  } else if (!in_memory) {
    TrainTest data = LoadDataSource(spec.data, spec.seed);
    train = std::move(data.train);
    test = std::move(data.test);
  } else if (test.rows() > 0 && test.cols() != train.cols()) {
    throw InputError("test data has " + std::to_string(test.cols()) +
                     " columns but training data has " + std::to_string(train.cols()));
  }
  RunInfo& info = d->info;
  info.metrics = EffectiveMetrics(spec);
  // auto resolves with the training rows' units once they are loaded (under MPI rowwise
  // loading, in LoadHostedSlices; a rank holding some columns only cannot tell: never).
  info.scaling = EffectiveScaling(
      spec, !rowwise && !columnwise && RawUnitSource(spec, in_memory) && HasRawUnits(train));
  if (!rowwise) {
    if (train.rows() == 0) throw InputError("training data has no rows");
    d->train = std::move(train);
    d->test = std::move(test);
    // A size only the data reveals (a huge feature index): refused before any array of one
    // entry per column is allocated.
    const std::int64_t columns = d->train.cols() + (spec.data.add_bias ? 1 : 0);
    if (columns > LocalSolver::kMaxColumns) {
      throw InputError((d->train.name.empty() ? std::string("training data") : d->train.name) +
                       ": " + std::to_string(columns) + " columns" +
                       (spec.data.add_bias ? " with the intercept" : "") + ", above the limit of " +
                       std::to_string(LocalSolver::kMaxColumns));
    }
    // dp-bounds: each node prepares its own rows once the partition is known (the driver's
    // Prepare, PrepareRowsPerNode); the other maps are per record or global-max-norm.
    if (network != nullptr && spec.family() == Family::kSharing) {
      PrepareSharingPartyRows(spec, *network, d->train, info);
    } else if (!PreparedPerNode(spec, info.scaling)) {
      PrepareRows(spec, d->train, d->test, info,
                  columnwise ? ColumnwiseMaxRowNorm(*d, spec) : std::function<double(double)>{});
    }
  }
  // The test set is public and every rank holds it whole (also under MPI, where the per-rank
  // load fills it in Prepare).
  info.test_majority_rate = MajorityRate(d->test);
  if (PrivateRun(spec) && info.metrics == MetricsScope::kAll) {
    info.evaluation = PrivateEvaluationFigures(spec.family());
  }

  info.family = spec.family();
  info.algorithm = spec.algorithm.name();
  if (network != nullptr) {
    info.dataset = "party '" + network->self + "': its own rows";
    info.party.id = network->self;
    info.party.parties = static_cast<int>(network->parties.size());
    info.party.index = runtime::SelfIndex(*network);
    info.party.nodes = runtime::PartyNodes(network->node_parties, info.party.index);
  } else if (in_memory) {
    info.dataset = "in-memory data";
  } else {
    const std::string source = ChoiceName(spec.data.source);
    info.dataset = IsGenerated(spec.data.source) ? source + " (generated)"
                                                 : source + ": " + spec.data.train_path;
  }
  if (rowwise) {
    info.train_rows = static_cast<std::int64_t>(d->rowwise->file_rows.size());
  } else {
    info.train_rows = d->train.rows();
    info.test_rows = d->test.rows();
    info.features = d->train.cols();
    info.sparse = d->train.is_sparse();
  }
  info.loss = ChoiceName(spec.loss.kind);
  info.engine = spec.engine;
  info.on_engine = spec.algorithm.name() != Algorithm::kSgd;
  info.threads = spec.threads;
  info.noise_mode = spec.noise_mode();
  info.noisy = UsesPrivacyMechanism(spec);
  info.optimum_objective = kNaN;
  info.optimum_test_error = kNaN;
  // target_epsilon: sharing's knob (total_epsilon) is read by Prepare, which derives sigma from
  // it; the consensus knob (alpha) needs the graph and the partition, so comes after Prepare.
  std::optional<CalibrationResult> calibration;
  if (spec.target_epsilon > 0.0 && spec.family() == Family::kSharing) {
    calibration = CalibrateToEpsilon(spec, {}, {}, spec.target_epsilon,
                                     spec.algorithm.As<SharingParams>().delta);
  }
  d->spec = std::move(spec);
  d->Prepare();
  if (d->spec.target_epsilon > 0.0 && d->spec.family() == Family::kConsensus) {
    std::vector<int> degrees;
    for (int i = 0; i < d->graph.num_nodes(); ++i) degrees.push_back(d->graph.degree(i));
    calibration = CalibrateToEpsilon(d->spec, degrees, d->info.rows_per_node,
                                     d->spec.target_epsilon, kTightDelta, d->info.features);
  }
  if (calibration) {
    info.calibrated_knob = calibration->knob;
    info.calibrated_value = calibration->value;
    info.calibrated_epsilon = calibration->epsilon;
    info.calibrated_delta = calibration->delta;
  }
  return d;
}

}  // namespace

std::vector<std::string> PrivateEvaluationFigures(Family family) {
  if (family == Family::kConsensus) {
    return {"train_loss",
            "objective",
            "distance_to_optimum",
            "info.normalization_factor",
            "info.max_row_norm_before",
            "info.optimum_objective",
            "info.optimum_test_error"};
  }
  return {"train_loss",
          "objective",
          "primal_residual",
          "max_x_norm",
          "y_norm",
          "info.normalization_factor",
          "info.max_row_norm_before",
          "info.party_max_row_norm",
          "info.privacy.party_gram_rank",
          "info.privacy.observed_max_x_norm",
          "info.privacy.observed_y_norm",
          "info.central_baseline",
          "info.local_baseline"};
}

std::vector<std::string> RunWarnings(const RunSpec& spec, const RunSummary& summary) {
  std::vector<std::string> out;
  const RunInfo& info = summary.info;
  const RoundMetrics& m = summary.final;
  const auto num = [](double v) {
    std::ostringstream s;
    s << std::setprecision(4) << v;
    return s.str();
  };
  if (UsesPrivacyMechanism(spec) && spec.noise_mode() == NoiseMode::kSimulation) {
    out.push_back(
        "simulation mode: the noise can be regenerated from the seed; this run is not private");
  }
  // A node's total epsilon above 10: the guarantee says little.
  constexpr double kLargeEpsilon = 10.0;
  if (info.family == Family::kConsensus) {
    // The tight figure when the run has one (it is the guarantee that holds), else the paper's.
    // (Under MPI the other ranks have no final metrics: the paper's figures stay empty there.)
    const bool tight = !summary.node_tight_epsilon.empty() &&
                       summary.node_tight_epsilon.size() == m.node_privacy.size();
    const std::vector<double>& total = tight ? summary.node_tight_epsilon : m.node_privacy;
    for (std::size_t i = 0; i < total.size(); ++i) {
      if (total[i] > kLargeEpsilon) {
        out.push_back("node " + std::to_string(i) + ": total privacy loss " + num(total[i]) +
                      (!tight ? std::string()
                       : spec.algorithm.name() == Algorithm::kPdml
                           ? " at delta " + num(summary.tight_delta) +
                                 " (tight, Phase 2's Gaussian primal noise; 000 gives no figure)"
                           : " at delta " + num(summary.tight_delta) +
                                 " (tight, optimal composition; the paper's figure is " +
                                 num(m.node_privacy[i]) + ")") +
                      " > 10 (" + info.privacy_guarantee + "): the guarantee is weak");
        break;  // one line names the first; the trace has every node's value
      }
    }
    if (spec.algorithm.name() == Algorithm::kPdml) {
      const PdmlParams& p = spec.algorithm.As<PdmlParams>();
      double eps = p.label_eps;
      for (double g : p.label_eps_groups) eps = std::max(eps, g);
      if (eps > kLargeEpsilon) {
        out.push_back("label epsilon " + num(eps) +
                      " > 10: randomized response barely hides the labels");
      }
    }
  } else if (info.dp) {
    if (info.sharing_mechanism == "paper16") {
      out.push_back(
          "dp mechanism paper16 (001 eq. (16)) is NOT DP as stated: the noise covariance is made "
          "of the private data, so the releases lie in col(D_m); its epsilon is the paper's "
          "figure, not a guarantee");
    }
    if (m.epsilon_total > kLargeEpsilon) {
      out.push_back("each party's total epsilon " + num(m.epsilon_total) +
                    " > 10: the guarantee is weak");
    }
    const double records = static_cast<double>(info.train_rows);
    if (m.delta_total > 1.0 / records) {
      out.push_back("each party's total delta " + num(m.delta_total) + " > 1 / " +
                    std::to_string(info.train_rows) +
                    " records: the guarantee allows revealing a whole record");
    }
  }
  if (std::isfinite(m.test_error) && std::isfinite(info.test_majority_rate) &&
      1.0 - m.test_error < info.test_majority_rate + 0.02) {
    out.push_back("test accuracy " + num(100.0 * (1.0 - m.test_error)) +
                  "% is not 2 points above the majority-class rate " +
                  num(100.0 * info.test_majority_rate) +
                  "% of the test set: the model learned nothing (always predicting the majority "
                  "class does as well)");
  }
  if (UsesPrivacyMechanism(spec) && info.scaling == Scaling::kNone) {
    out.push_back(
        "rows were not clipped to ||x|| <= 1 (scaling none): the privacy analyses assume it");
  }
  if (info.dp_bounds.epsilon > 0.0 && info.dp_bounds.fallback_features > 0) {
    out.push_back("dp-bounds: " + std::to_string(info.dp_bounds.fallback_features) + " of " +
                  std::to_string(info.dp_bounds.lo.size()) +
                  " features had no bin above the noise threshold " +
                  num(info.dp_bounds.threshold) + " (too few rows for bounds epsilon " +
                  num(info.dp_bounds.epsilon) +
                  ") and took the fallback range (--feature-range, else [-1, 1]): raise "
                  "--bounds-epsilon or give public bounds");
  }
  if (info.scaling == Scaling::kDpStandardize && info.standardization.floored_features > 0) {
    out.push_back("dp-standardize: " + std::to_string(info.standardization.floored_features) +
                  " of " + std::to_string(info.standardization.mean.size()) +
                  " features had a noisy variance below the noise level and were scaled by "
                  "it (floor " +
                  num(info.standardization.variance_floor) +
                  " of the squared half range; standardize epsilon " +
                  num(info.standardization.epsilon) +
                  "): raise --standardize-epsilon or give tighter bounds");
  }
  if (PrivateRun(spec) && info.scaling == Scaling::kClipOnly) {
    out.push_back(
        "features are not scaled (clip-only): give public bounds (--feature-bounds FILE or "
        "--feature-range LO,HI) for per-feature scaling; mixed units lose accuracy");
  }
  return out;
}

double TestError(const Dataset& data, const Eigen::VectorXd& f) {
  if (data.rows() == 0) return kNaN;
  const Eigen::VectorXd scores =
      VisitRows(data, [&](const auto& x) -> Eigen::VectorXd { return x * f; });
  std::int64_t wrong = 0;
  for (Eigen::Index n = 0; n < scores.size(); ++n) {
    const double predicted = scores[n] >= 0.0 ? 1.0 : -1.0;
    wrong += predicted != data.y[n];
  }
  return static_cast<double>(wrong) / static_cast<double>(data.rows());
}

std::unique_ptr<Experiment::Driver> BuildPartyDriver(RunSpec spec, Dataset train, Dataset test,
                                                     const runtime::NetworkOptions& network) {
  return Build(std::move(spec), true, std::move(train), std::move(test), nullptr, &network);
}

Experiment::Experiment(std::unique_ptr<Driver> driver) : driver_(std::move(driver)) {}

Experiment::Experiment(RunSpec spec)
    : driver_(Build(std::move(spec), false, Dataset{}, Dataset{}, nullptr)) {}

Experiment::Experiment(RunSpec spec, Dataset train, Dataset test)
    : driver_(Build(std::move(spec), true, std::move(train), std::move(test), nullptr)) {}

Experiment::Experiment(RunSpec spec, const MpiPlacement& placement)
    : driver_(Build(std::move(spec), false, Dataset{}, Dataset{}, &placement)) {}

Experiment::~Experiment() = default;
Experiment::Experiment(Experiment&&) noexcept = default;
Experiment& Experiment::operator=(Experiment&&) noexcept = default;

const RunSpec& Experiment::spec() const { return driver_->spec; }
const RunInfo& Experiment::info() const { return driver_->info; }
const Dataset& Experiment::train() const { return driver_->Train(); }
const Dataset& Experiment::test() const { return driver_->test; }
const Graph& Experiment::graph() const { return driver_->graph; }
const Partition& Experiment::partition() const { return driver_->partition; }
const Eigen::VectorXd& Experiment::optimum() const { return driver_->optimum; }

RunSummary Experiment::Run(RunObserver* observer, const runtime::StopToken* stop) const {
  return RunOn(driver_->spec.engine, driver_->spec.threads, observer, stop);
}

RunSummary Experiment::RunOn(runtime::EngineKind engine, int threads, RunObserver* observer,
                             const runtime::StopToken* stop) const {
  if (driver_->info.on_engine) CheckEngine(engine, threads);
  // Which nodes this process holds is fixed at construction: an MPI experiment runs on MPI only.
  if (driver_->info.on_engine &&
      (engine == runtime::EngineKind::kMpi) != (driver_->mpi != nullptr)) {
    throw InputError(driver_->mpi ? std::string("engine: this experiment was built across MPI "
                                                "ranks; it runs on the mpi engine only")
                                  : std::string("engine: 'mpi' needs an experiment built across "
                                                "MPI ranks (spec.engine = mpi, or MpiPlacement)"));
  }
  RunSummary summary;
  summary.info = driver_->info;
  summary.info.engine = engine;
  summary.info.threads = threads;
  if (observer != nullptr) observer->OnStart(summary.info);
  driver_->Run(engine, threads, observer, stop, summary);
  summary.seconds_per_round =
      summary.rounds > 0 ? summary.seconds / static_cast<double>(summary.rounds) : 0.0;
  summary.warnings = RunWarnings(driver_->spec, summary);
  return summary;
}

RunSummary RunExperiment(const RunSpec& spec, RunObserver* observer,
                         const runtime::StopToken* stop) {
  return Experiment(spec).Run(observer, stop);
}

}  // namespace dpadmm
