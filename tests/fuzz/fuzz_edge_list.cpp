// SPDX-License-Identifier: Apache-2.0
// LoadEdgeList on arbitrary bytes, with the node count inferred and fixed. A graph that loads
// must be simple and connected with ids in range.
#include <set>

#include "dpadmm/graph/graph.h"
#include "fuzz_common.h"

namespace {
void CheckGraph(const dpadmm::Graph& g) {
  using dpadmm::fuzz::Fail;
  const int n = g.num_nodes();
  if (n < 1) Fail("graph without nodes");
  std::set<std::pair<int, int>> seen;
  for (auto [i, j] : g.edges()) {
    if (i < 0 || j < 0 || i >= n || j >= n || i == j) Fail("bad edge");
    if (!seen.insert({std::min(i, j), std::max(i, j)}).second) Fail("duplicate edge");
  }
  long long degrees = 0;
  for (int i = 0; i < n; ++i) degrees += g.degree(i);
  if (degrees != 2LL * g.num_edges()) Fail("degrees do not match the edges");
  if (n > 1 && g.Diameter() < 1) Fail("connected graph with diameter < 1");
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace dpadmm;
  const std::string path = fuzz::TempDir::Get().Write(
      "edges.txt", std::string_view(reinterpret_cast<const char*>(data), size));
  for (const int num_nodes : {0, 6}) {
    fuzz::ExpectOnlyInputError([&] {
      const Graph g = LoadEdgeList(path, num_nodes);
      CheckGraph(g);
      if (num_nodes > 0 && g.num_nodes() != num_nodes) fuzz::Fail("node count not fixed");
    });
  }
  return 0;
}
