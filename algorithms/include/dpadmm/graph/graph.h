// SPDX-License-Identifier: Apache-2.0
// Undirected communication graphs. Every builder returns a connected simple graph or throws
// InputError (disconnected, self-loop, duplicate edge, bad size).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace dpadmm {

class Graph {
 public:
  // Validates: 0 <= i, j < num_nodes, no self-loops, no duplicate edges (in either direction),
  // connected. `where` prefixes error messages (e.g. a file name).
  Graph(int num_nodes, std::vector<std::pair<int, int>> edges, const std::string& where = "graph");

  int num_nodes() const { return static_cast<int>(neighbors_.size()); }
  int num_edges() const { return static_cast<int>(edges_.size()); }
  const std::vector<std::pair<int, int>>& edges() const { return edges_; }
  // Sorted neighbour ids of node i.
  const std::vector<int>& neighbors(int i) const { return neighbors_[i]; }
  const std::vector<std::vector<int>>& adjacency() const { return neighbors_; }
  int degree(int i) const { return static_cast<int>(neighbors_[i].size()); }
  // Longest shortest path (in edges).
  int Diameter() const;

 private:
  std::vector<std::pair<int, int>> edges_;
  std::vector<std::vector<int>> neighbors_;
};

Graph MakeRing(int nodes);      // nodes >= 3 (2 gives a single edge)
Graph MakeStar(int nodes);      // node 0 is the centre; nodes >= 2
Graph MakeComplete(int nodes);  // nodes >= 2
Graph MakeGrid(int rows, int cols);
// Uniformly random spanning tree (random Pruefer-free construction: random attachment over a
// shuffled order) plus distinct random extra edges, up to `edges` in total.
// nodes - 1 <= edges <= nodes (nodes - 1) / 2.
Graph MakeRandomConnected(int nodes, int edges, std::uint64_t seed);
// One undirected edge "i j" per line, 0-based; blank lines and lines starting with '#' are
// skipped. num_nodes = 0 means 1 + the largest id.
Graph LoadEdgeList(const std::string& path, int num_nodes = 0);

}  // namespace dpadmm
