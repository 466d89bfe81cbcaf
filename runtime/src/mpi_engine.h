// SPDX-License-Identifier: Apache-2.0
// Private pieces of the MPI engine that do not need mpi.h: who talks to whom.
#pragma once

#include <cstddef>
#include <vector>

#include "dpadmm/runtime/engine.h"

namespace dpadmm::runtime::detail {

// What this rank exchanges with one other rank, derived identically on both sides: the packed
// message from rank a to rank b lists a's nodes that have a neighbour on b, in increasing id.
struct PeerLink {
  int rank = -1;
  std::vector<int> send_nodes;  // this rank's nodes with a neighbour on `rank`
  std::vector<int> recv_nodes;  // `rank`'s nodes with a neighbour here
  // Packed message, in doubles: [round][length of each node's message][payloads].
  std::size_t send_capacity = 0;
  std::size_t recv_capacity = 0;
};

// Where node a's k-th inbox message comes from: a local channel (peer < 0) or slot `slot` of the
// packed message from peers[peer].
struct InboxSource {
  int peer = -1;
  int slot = -1;
};

struct MpiLayout {
  int rank = 0;
  std::vector<int> local;                         // this rank's nodes, increasing id
  std::vector<int> local_index;                   // node id -> index in `local`, or -1
  std::vector<PeerLink> peers;                    // increasing rank
  std::vector<std::vector<InboxSource>> sources;  // [local index][neighbour k]
  std::vector<int> boundary;                      // local indices with a neighbour on another rank
  std::vector<int> interior;                      // local indices with all neighbours here

  // max_message_size[i]: node i's MaxMessageSize (all nodes, gathered from their ranks).
  MpiLayout(const Topology& topology, const std::vector<int>& node_ranks, int rank,
            const std::vector<std::size_t>& max_message_size);
};

}  // namespace dpadmm::runtime::detail
