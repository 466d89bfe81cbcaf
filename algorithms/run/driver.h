// SPDX-License-Identifier: Apache-2.0
// Internal to run/: the one interface behind Experiment. experiment.cpp validates the
// spec, loads and preprocesses the data and fills the family-independent part of RunInfo; a
// family driver (consensus_driver.cpp, sharing_driver.cpp) prepares the rest and runs.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "dpadmm/core/error.h"
#include "dpadmm/persistence/checkpoint.h"
#include "dpadmm/placement/mpi_run.h"
#include "dpadmm/run/run.h"
#include "dpadmm/runtime/network.h"

namespace dpadmm {

class ProcessGroup;  // placement/process_group.h

struct Experiment::Driver {
  RunSpec spec;
  RunInfo info;
  Dataset train, test;
  Graph graph{2, {{0, 1}}};
  Partition partition;
  Eigen::VectorXd optimum;
  // Set when the experiment runs across MPI ranks (placement/placement.h): then node_ranks
  // is resolved in Prepare and this rank builds only the nodes it hosts.
  std::unique_ptr<MpiPlacement> mpi;
  // The processes of that run, as placement/ sees them (no transport named): set with `mpi`.
  std::shared_ptr<const ProcessGroup> group;
  // Set when this process is one party of a network run (dpadmm/party.h): it hosts the nodes
  // network->node_parties gives its party, and `train` holds that party's own rows only.
  std::unique_ptr<runtime::NetworkOptions> network;
  std::vector<int> hosted;  // the nodes this process builds (all of them without MPI)
  // The nodes whose figures the consensus metrics measure (empty: every node); a party's own
  // nodes in a network run (it sees no other node's model).
  std::vector<int> view;
  // Under MPI, consensus on a LIBSVM file: the training rows are loaded per rank in Prepare.
  std::shared_ptr<struct RowwiseLoad> rowwise;

  virtual ~Driver() = default;
  // The prepared training rows (Experiment::train()); a driver that frees `train` once split
  // rebuilds them here.
  virtual const Dataset& Train() const { return train; }
  // Everything after data loading that may reject the spec (InputError).
  virtual void Prepare() = 0;
  // `summary` arrives with info, engine and threads filled in; the driver runs, fills the rest
  // and calls the observer.
  virtual void Run(runtime::EngineKind engine, int threads, RunObserver* observer,
                   const runtime::StopToken* stop, RunSummary& summary) const = 0;
  // Run() with checkpoints every options.every rounds and/or continued from `resume`
  // (persistence/checkpoint.h). Families without checkpoint support refuse.
  virtual void RunCheckpointed(runtime::EngineKind /*engine*/, int /*threads*/,
                               RunObserver* /*observer*/, const runtime::StopToken* /*stop*/,
                               const CheckpointOptions& /*options*/,
                               const CheckpointContents* /*resume*/,
                               RunSummary& /*summary*/) const {
    throw InputError("checkpoints are not supported for this family");
  }
};

// Prepares train and test as spec.data says (scaling, clipping, intercept) and records what it
// did in info. `max_over_holders` (MPI: the maximum over ranks) is needed only by the
// global-max-norm scaling, the one map that reads more than the record it prepares.
void PrepareRows(const RunSpec& spec, Dataset& train, Dataset& test, RunInfo& info,
                 const std::function<double(double)>& max_over_holders = {});

// Whether rows of `scaling` are prepared per node after partitioning (PrepareRowsPerNode)
// rather than before it (PrepareRows): the consensus family's dp-bounds, standardize and
// dp-standardize.
bool PreparedPerNode(const RunSpec& spec, Scaling scaling);

// The per-node scalings of the consensus family (info.scaling). `slices` holds the hosted
// nodes' raw rows:
// - dp-bounds (privacy/bounds_release.h): each node releases its DP histogram, the releases are
//   summed (across ranks under MPI) into the agreed bounds (recorded in info.dp_bounds);
// - standardize (data/standardization.h): each node's moments, combined in node order (across
//   ranks under MPI), give the mean and scale of every feature;
// - dp-standardize (privacy/standardize_release.h): each node releases its noisy clipped sums
//   (clipped to the public bounds, or to dp-bounds' agreed ones first when bounds_epsilon > 0),
//   summed into the mean and scale;
// then every hosted slice, the test set and `train` (when held, for the centralized optimum)
// are mapped and clipped (info.standardization records the mean and scale). info.features must
// hold the raw column count; it is updated to the prepared one. A party of a network run
// (d.network, dp-bounds only) maps nothing yet: it puts its nodes' summed release in
// d.network->setup_values and the rest in d.network->on_setup, which the network engine calls
// with every party's release before round 0.
void PrepareRowsPerNode(Experiment::Driver& d, std::vector<Dataset>& slices);

// Share of the most frequent label in `data` (NaN if empty): a public figure of the test set.
double MajorityRate(const Dataset& data);

// The column block of each party of a sharing run (the blocks ClipRowBlocks clips), over
// `cols` columns incl. an intercept column; empty for the consensus family.
std::vector<std::int64_t> PartyBlocks(const RunSpec& spec, std::int64_t cols);

std::unique_ptr<Experiment::Driver> MakeConsensusDriver();

// What a party of a network run cannot do (dpadmm/party.h): InputError naming the field.
void CheckPartySpec(const RunSpec& spec);

// One party of a network run (dpadmm/party.h): the in-memory Experiment path on this party's
// own rows, with what party mode cannot do refused naming the field.
std::unique_ptr<Experiment::Driver> BuildPartyDriver(RunSpec spec, Dataset train, Dataset test,
                                                     const runtime::NetworkOptions& network);
std::unique_ptr<Experiment::Driver> MakeSharingDriver();

// Seconds since `start`.
inline double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// The summary's outcome for an engine failure: an exception thrown by a node program is
// `failed` (a fault of the program or its environment); a non-finite value, or a step the
// algorithm itself failed (its own divergence checks), is `diverged`.
inline RunOutcome OutcomeOfFailure(const runtime::NodeFailure& failure) {
  return failure.kind == runtime::FailureKind::kException ? RunOutcome::kFailed
                                                          : RunOutcome::kDiverged;
}

}  // namespace dpadmm
