// SPDX-License-Identifier: Apache-2.0
#include "dpadmm/graph/graph.h"

#include <algorithm>
#include <deque>
#include <limits>
#include <map>
#include <set>
#include <unordered_set>

#include "core/text_parse.h"
#include "dpadmm/core/error.h"
#include "dpadmm/core/random.h"

namespace dpadmm {
namespace {

std::string EdgeText(std::pair<int, int> e) {
  std::string text(1, '(');
  text.append(std::to_string(e.first)).append(", ").append(std::to_string(e.second));
  return text.append(")");
}

std::pair<int, int> Ordered(std::pair<int, int> e) {
  return {std::min(e.first, e.second), std::max(e.first, e.second)};
}

// What is wrong with edge e given the edges accepted so far (empty if nothing); on success e
// is added to `seen`.
std::string CheckEdge(long long num_nodes, std::pair<long long, long long> e,
                      std::set<std::pair<int, int>>& seen) {
  for (long long id : {e.first, e.second}) {
    if (id < 0 || id >= num_nodes) {
      return "node id " + std::to_string(id) + " out of range [0, " + std::to_string(num_nodes) +
             ")";
    }
  }
  const std::pair<int, int> edge(static_cast<int>(e.first), static_cast<int>(e.second));
  if (edge.first == edge.second) return "edge " + EdgeText(edge) + " is a self-loop";
  if (!seen.insert(Ordered(edge)).second) {
    return "duplicate edge " + EdgeText(edge) + " (edges are undirected)";
  }
  return {};
}

// Distances (in edges) from `source`; -1 for unreachable nodes.
std::vector<int> BfsDistances(const std::vector<std::vector<int>>& adjacency, int source) {
  std::vector<int> dist(adjacency.size(), -1);
  std::deque<int> queue{source};
  dist[static_cast<std::size_t>(source)] = 0;
  while (!queue.empty()) {
    const int u = queue.front();
    queue.pop_front();
    for (int v : adjacency[static_cast<std::size_t>(u)]) {
      if (dist[static_cast<std::size_t>(v)] < 0) {
        dist[static_cast<std::size_t>(v)] = dist[static_cast<std::size_t>(u)] + 1;
        queue.push_back(v);
      }
    }
  }
  return dist;
}

// The smallest node id unreachable from node 0, for a graph known to be disconnected, in
// O(edges log edges) memory and time whatever the node count: only edge endpoints can be
// reachable, so the answer is among the first (reachable count + 1) ids.
int SmallestUnreachable(const std::vector<std::pair<int, int>>& edges) {
  std::map<int, std::vector<int>> adjacency;
  for (const auto& [i, j] : edges) {
    adjacency[i].push_back(j);
    adjacency[j].push_back(i);
  }
  std::set<int> reached{0};
  std::vector<int> stack{0};
  while (!stack.empty()) {
    const int u = stack.back();
    stack.pop_back();
    const auto it = adjacency.find(u);
    if (it == adjacency.end()) continue;
    for (int v : it->second) {
      if (reached.insert(v).second) stack.push_back(v);
    }
  }
  int k = 1;
  while (reached.count(k) != 0) ++k;
  return k;
}

void RequireNodes(const char* builder, int nodes, int minimum) {
  if (nodes < minimum) {
    throw InputError(std::string(builder) + ": needs at least " + std::to_string(minimum) +
                     " nodes, got " + std::to_string(nodes));
  }
}

}  // namespace

Graph::Graph(int num_nodes, std::vector<std::pair<int, int>> edges, const std::string& where)
    : edges_(std::move(edges)) {
  if (num_nodes < 1) {
    throw InputError(where + ": number of nodes must be positive, got " +
                     std::to_string(num_nodes));
  }
  std::set<std::pair<int, int>> seen;
  for (std::size_t k = 0; k < edges_.size(); ++k) {
    const std::string problem = CheckEdge(num_nodes, edges_[k], seen);
    if (!problem.empty()) throw InputError(where + ": edge " + std::to_string(k) + ": " + problem);
  }
  // A connected graph needs num_nodes - 1 edges. Checked before allocating the adjacency, which
  // a one-line edge list such as "0 2147483646" would otherwise size at two billion nodes.
  if (static_cast<long long>(edges_.size()) < static_cast<long long>(num_nodes) - 1) {
    throw InputError(where + ": graph is disconnected: node " +
                     std::to_string(SmallestUnreachable(edges_)) + " unreachable from node 0");
  }
  neighbors_.resize(static_cast<std::size_t>(num_nodes));
  for (const auto& [i, j] : edges_) {
    neighbors_[static_cast<std::size_t>(i)].push_back(j);
    neighbors_[static_cast<std::size_t>(j)].push_back(i);
  }
  for (auto& list : neighbors_) std::sort(list.begin(), list.end());
  const std::vector<int> dist = BfsDistances(neighbors_, 0);
  const auto unreachable = std::find(dist.begin(), dist.end(), -1);
  if (unreachable != dist.end()) {
    throw InputError(where + ": graph is disconnected: node " +
                     std::to_string(unreachable - dist.begin()) + " unreachable from node 0");
  }
}

int Graph::Diameter() const {
  int diameter = 0;
  for (int i = 0; i < num_nodes(); ++i) {
    const std::vector<int> dist = BfsDistances(neighbors_, i);
    diameter = std::max(diameter, *std::max_element(dist.begin(), dist.end()));
  }
  return diameter;
}

Graph MakeRing(int nodes) {
  RequireNodes("ring", nodes, 2);
  if (nodes == 2) return Graph(2, {{0, 1}}, "ring");
  std::vector<std::pair<int, int>> edges;
  for (int i = 0; i < nodes; ++i) edges.emplace_back(i, (i + 1) % nodes);
  return Graph(nodes, std::move(edges), "ring");
}

Graph MakeStar(int nodes) {
  RequireNodes("star", nodes, 2);
  std::vector<std::pair<int, int>> edges;
  for (int i = 1; i < nodes; ++i) edges.emplace_back(0, i);
  return Graph(nodes, std::move(edges), "star");
}

Graph MakeComplete(int nodes) {
  RequireNodes("complete graph", nodes, 2);
  std::vector<std::pair<int, int>> edges;
  for (int i = 0; i < nodes; ++i) {
    for (int j = i + 1; j < nodes; ++j) edges.emplace_back(i, j);
  }
  return Graph(nodes, std::move(edges), "complete graph");
}

Graph MakeGrid(int rows, int cols) {
  if (rows < 1 || cols < 1 || static_cast<long long>(rows) * cols < 2 ||
      static_cast<long long>(rows) * cols > std::numeric_limits<int>::max()) {
    throw InputError("grid: " + std::to_string(rows) + " x " + std::to_string(cols) +
                     " is not a valid grid (need rows, cols >= 1 and at least 2 nodes)");
  }
  std::vector<std::pair<int, int>> edges;
  for (int r = 0; r < rows; ++r) {
    for (int c = 0; c < cols; ++c) {
      const int id = r * cols + c;
      if (c + 1 < cols) edges.emplace_back(id, id + 1);
      if (r + 1 < rows) edges.emplace_back(id, id + cols);
    }
  }
  return Graph(rows * cols, std::move(edges), "grid");
}

Graph MakeRandomConnected(int nodes, int edges, std::uint64_t seed) {
  RequireNodes("random graph", nodes, 2);
  const long long max_edges = static_cast<long long>(nodes) * (nodes - 1) / 2;
  if (edges < nodes - 1 || edges > max_edges) {
    throw InputError("random graph: " + std::to_string(edges) + " edges for " +
                     std::to_string(nodes) + " nodes; need between " + std::to_string(nodes - 1) +
                     " and " + std::to_string(max_edges));
  }
  Stream s(seed, 0, 0, Purpose::kGraph);
  auto uniform = [&s](int n) {
    return static_cast<int>(s.UniformInt(static_cast<std::uint64_t>(n)));
  };
  // Spanning tree: shuffle the nodes, attach each to a random earlier one.
  std::vector<int> order(static_cast<std::size_t>(nodes));
  for (int i = 0; i < nodes; ++i) order[static_cast<std::size_t>(i)] = i;
  for (int i = nodes - 1; i > 0; --i) std::swap(order[i], order[uniform(i + 1)]);
  std::vector<std::pair<int, int>> list;
  std::unordered_set<long long> present;
  auto add = [&](int a, int b) {
    const auto e = Ordered({a, b});
    if (a == b || !present.insert(static_cast<long long>(e.first) * nodes + e.second).second) {
      return;
    }
    list.push_back(e);
  };
  for (int k = 1; k < nodes; ++k) add(order[k], order[uniform(k)]);
  // Extra edges: uniformly random pairs, rejecting self-loops and edges already present.
  while (static_cast<int>(list.size()) < edges) add(uniform(nodes), uniform(nodes));
  return Graph(nodes, std::move(list), "random graph");
}

Graph LoadEdgeList(const std::string& path, int num_nodes) {
  if (num_nodes < 0) ThrowAt(path, 0, "num_nodes must be >= 0");
  const std::string text = internal::ReadWholeFile(path);
  internal::LineReader lines(text);
  std::string_view line;
  std::vector<std::string_view> fields;
  std::vector<std::pair<long long, long long>> parsed;
  std::vector<long long> line_of;
  long long largest = -1;
  while (lines.Next(line)) {
    const std::string_view content = internal::Trim(line);
    if (content.empty() || content.front() == '#') continue;
    internal::SplitFields(content, ' ', fields);
    if (fields.size() != 2) {
      ThrowAt(path, lines.number(),
              "expected an edge \"i j\", found " + std::to_string(fields.size()) + " fields");
    }
    const long long i = internal::ParseInt(fields[0], path, lines.number(), "node id");
    const long long j = internal::ParseInt(fields[1], path, lines.number(), "node id");
    for (long long id : {i, j}) {
      if (id < 0 || id >= std::numeric_limits<int>::max()) {
        ThrowAt(path, lines.number(), "node id " + std::to_string(id) + " out of range");
      }
    }
    parsed.emplace_back(i, j);
    line_of.push_back(lines.number());
    largest = std::max({largest, i, j});
  }
  if (parsed.empty()) ThrowAt(path, 0, "no edges");
  const long long n = num_nodes > 0 ? num_nodes : largest + 1;
  std::set<std::pair<int, int>> seen;
  std::vector<std::pair<int, int>> edges;
  for (std::size_t k = 0; k < parsed.size(); ++k) {
    const std::string problem = CheckEdge(n, parsed[k], seen);
    if (!problem.empty()) ThrowAt(path, line_of[k], problem);
    edges.emplace_back(static_cast<int>(parsed[k].first), static_cast<int>(parsed[k].second));
  }
  return Graph(static_cast<int>(n), std::move(edges), path);
}

}  // namespace dpadmm
