// SPDX-License-Identifier: Apache-2.0
// Experiments across MPI ranks: the same run as on the serial or tbb engine, bit for bit, with
// each rank holding only its own nodes (consensus) or parties and coordinator (sharing).
//
//   dpadmm::runtime::MpiSession mpi(&argc, &argv);   // or MPI already initialised by the service
//   dpadmm::MpiPlacement where;                      // MPI_COMM_WORLD, contiguous blocks
//   where.comm = dpadmm::runtime::MpiComm{&my_comm}; // or a communicator of the caller's
//   dpadmm::Experiment exp(spec, where);             // collective: every rank of the communicator
//   dpadmm::RunSummary s = exp.Run(&observer);       // collective; observer called on rank 0 only
//
// What a rank holds: the data of its own nodes only. Generated sources are public and seeded:
// every rank generates them and keeps its nodes' rows. A consensus run on a data file (LIBSVM,
// CSV, .asc, Adult) parses only the rank's rows (data/loaders.h, "one holder's share"); the
// sharing family on a LIBSVM, CSV or .asc file parses only the values of the rank's parties'
// columns, and the labels only on the coordinator's rank (data/README.md, "vertical
// partition"); what would need other parties' columns is refused (Adult with the sharing
// family; global-max-norm or metrics all on dense rows). Node programs, and the private keys and
// noise of their releases, are constructed on their own rank only. Only released messages travel
// between ranks (the engine's node messages) plus, for metrics that need private data (the
// consensus training loss and objective of rounds in which a node did not report its loss), each
// node's own scalar loss, evaluated on its rank and placed in its report ("private evaluation"; off
// with metrics = released-only). Rank 0 sums the reports in node order, so every value matches the
// serial engine bit for bit. Not computed under MPI: the consensus centralized optimum f* and the
// sharing baselines (they need every node's rows in one process); the summary says so in
// info.optimum_note. The sharing SGD baseline is not an engine run: each rank steps its own
// parties' weights and only partial scores, the label holder's loss derivatives and the weights
// cross ranks.
//
// Summaries: rank 0's RunSummary is complete; the other ranks' carry the outcome and message
// (failures name node, rank and round on every rank) but no metrics. Engine faults (a killed
// rank, a peer silent beyond peer_timeout_seconds, an MPI error) throw runtime::MpiError; end
// the job with runtime::MpiSession::Abort.
#pragma once

#include <vector>

#include "dpadmm/runtime/mpi.h"

namespace dpadmm {

struct MpiPlacement {
  // node_ranks[i] is the rank of node i (sharing: node 0 is the coordinator, node m party m);
  // empty = contiguous blocks (runtime::ContiguousNodeRanks).
  std::vector<int> node_ranks;
  runtime::MpiComm comm;  // MPI_COMM_WORLD by default
  double peer_timeout_seconds = 60.0;
};

}  // namespace dpadmm
