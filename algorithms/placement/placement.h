// SPDX-License-Identifier: Apache-2.0
// Internal: placement, what the family drivers share to run as several processes, each hosting
// some nodes (dpadmm/placement/mpi_run.h): which nodes this process hosts, per-process row and
// column loading with what the whole file decides agreed from aggregates, per-node values
// completed from every process. It reaches the other processes only through the driver's
// ProcessGroup (process_group.h), never a transport; the MPI engine run and the MPI group are
// mpi_transport.cpp's. Without a placement (driver.mpi unset) every helper is the identity: all
// nodes are hosted and runs go to runtime::Run.
#pragma once

#include <cstddef>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "dpadmm/runtime/engine.h"
#include "placement/process_group.h"
#include "run/driver.h"

namespace dpadmm {

// The nodes this process builds, in increasing id: 0..n-1 without MPI; under MPI the ones this
// rank hosts; in a network run the ones the node-to-party map gives this party (the map's
// length is checked by the engine's options, ValidateNetworkOptions). Resolves d.mpi->node_ranks
// for n nodes (contiguous blocks when empty); throws InputError naming --node-ranks when the map
// has the wrong length or a rank outside the communicator.
std::vector<int> HostedNodes(Experiment::Driver& d, int n);

// True where this process runs the observer (rank 0, or always without MPI).
bool IsReportingRank(const Experiment::Driver& d);

// The transport (mpi_transport.cpp). `programs` are the hosted nodes' programs (d.hosted order).
// Under MPI runs them with RunMpi on d.mpi's communicator and node map (whatever `options.kind`
// says); in a network run with RunNetwork (network_transport.cpp); else runtime::Run.
runtime::EngineResult RunPrograms(const Experiment::Driver& d,
                                  std::span<runtime::NodeProgram* const> programs,
                                  const runtime::Topology& topology, runtime::EngineOptions options,
                                  runtime::RoundSink& sink);

// The network transport (network_transport.cpp): RunNetwork with d.network. An engine error
// (a peer unreachable, disconnected, silent or breaking the protocol) becomes a failed outcome
// naming the peer (the rounds every party completed stay reported); bad options are an
// InputError. `network` replaces *d.network when given (a checkpointed run adds its hooks).
runtime::EngineResult RunOnNetwork(const Experiment::Driver& d,
                                   std::span<runtime::NodeProgram* const> programs,
                                   const runtime::Topology& topology,
                                   const runtime::EngineOptions& options, runtime::RoundSink& sink,
                                   const runtime::NetworkOptions* network = nullptr);

// Values of a per-node quantity that each rank computes for its hosted nodes only
// (`local[i]` for i in d.hosted; the others are ignored), completed from every rank: each
// rank contributes (node, value) pairs (exact: no arithmetic). Without MPI returns `local`.
std::vector<double> CompletePerNode(const Experiment::Driver& d, std::vector<double> local);

// Consensus on a data file (LIBSVM, CSV, .asc, Adult) under MPI: each rank loads only its
// hosted nodes' training rows, in Prepare, once the partition is known.
struct RowwiseLoad {
  std::vector<std::int64_t> file_rows;  // the file's data-row index of training row k
  // Without a test file: the file's rows held out as the test set (the seeded split, public
  // evaluation data that every rank reads); empty with a test file (read whole by every rank).
  std::vector<std::int64_t> test_rows;
};

// Build's part (experiment.cpp): when `spec` is a consensus run on a data file and d.mpi is
// set, counts the file's rows (no value or label is read), splits them as LoadDataSource would
// (the same seeded split, on row indices) and sets d.rowwise; returns false otherwise (the data
// are loaded whole, as without MPI).
bool StartRowwiseLoad(Experiment::Driver& d, const RunSpec& spec);

// The sharing family on a data file under MPI (LIBSVM, CSV, .asc): each rank parses only the
// feature values of the parties it hosts, and the labels only if it hosts the coordinator
// (node 0); the other values are never parsed (dense rows: they read as 0; sparse rows: they
// are not stored) and never used. What the whole file decides is agreed from structure and
// aggregates: the column count from the field count of the first row (CSV, .asc) or from the
// file's feature indices (LIBSVM without num_features: indices only, never a value), the label
// mapping from the union of the ranks' label sets. The test set (a test file, or the seeded
// hold-out rows) is public evaluation data that every rank reads whole. Throws InputError for
// the cases that would need other parties' columns (ColumnwiseRefusal in the .cpp: Adult, dense
// data with global-max-norm or metrics all). Returns false without MPI, for
// generated data and for other families (load as usual).
bool LoadColumnwise(Experiment::Driver& d, const RunSpec& spec, Dataset& train, Dataset& test);

// PrepareRows' `max_over_holders` for a LoadColumnwise load (sparse rows): the largest row norm
// of the whole rows with the bits of Dataset::MaxRowNorm, made without moving a value. Each
// row's sum of squares is built in column order: the rank holding a run of columns adds its
// entries' squares to the running sums, which go to every rank (allgather) before the next run.
// Only per-row sums of squares travel. The argument (a rank's own maximum) is ignored; every
// rank calls it at the same points (a collective).
std::function<double(double)> ColumnwiseMaxRowNorm(const Experiment::Driver& d,
                                                   const RunSpec& spec);

// Prepare's part: this rank's nodes' slices (empty for the other nodes) and the test set. Each
// rank parses only its own nodes' training rows (and the public test rows); what the whole
// file decides in one process is agreed from aggregates: the label mapping (the union of the
// ranks' label sets), the column count (an exact maximum; dense rows: every rank's equal), the
// Adult encoding (the ranks' attribute domains merged). Then the preparation of one process
// (global-max-norm by exact maximum reductions; dp-bounds per node, PrepareRowsPerNode), so
// every value is the single-process one; fills info's data fields.
std::vector<Dataset> LoadHostedSlices(Experiment::Driver& d, const Partition& partition);

// A node program whose report slot `slot` is filled, when the program left it NaN ("evaluated
// elsewhere"), by `fill(report)` on the node's own rank: the private evaluation of a metric
// that needs the node's data, computed where the data are instead of by the evaluator. With an
// empty `fill` the slot is always blanked (NaN): metrics scope released-only, where a figure
// computed on private data must not leave the node's rank.
class FilledReport : public runtime::NodeProgram {
 public:
  FilledReport(runtime::NodeProgram& inner, std::size_t slot,
               std::function<double(std::span<const double>)> fill)
      : inner_(inner), slot_(slot), fill_(std::move(fill)) {}
  std::size_t MaxMessageSize() const override { return inner_.MaxMessageSize(); }
  std::size_t ReportSize() const override { return inner_.ReportSize(); }
  std::size_t FiniteReportPrefix() const override { return inner_.FiniteReportPrefix(); }
  runtime::StepResult Start(runtime::Outbox& out) override { return inner_.Start(out); }
  runtime::StepResult Step(std::int64_t round, const runtime::Inbox& in,
                           runtime::Outbox& out) override {
    return inner_.Step(round, in, out);
  }
  void Report(std::int64_t round, std::span<double> out) const override;

 private:
  runtime::NodeProgram& inner_;
  std::size_t slot_;
  std::function<double(std::span<const double>)> fill_;
};

}  // namespace dpadmm
