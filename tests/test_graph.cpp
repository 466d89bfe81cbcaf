// SPDX-License-Identifier: Apache-2.0
#include "dpadmm/graph/graph.h"

#include <set>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "dpadmm/core/error.h"
#include "test_helpers.h"

namespace dpadmm {
namespace {

using test::Fixture;
using test::ThrowsInputError;
using test::WriteTempFile;

using Edges = std::vector<std::pair<int, int>>;

int DegreeSum(const Graph& g) {
  int sum = 0;
  for (int i = 0; i < g.num_nodes(); ++i) sum += g.degree(i);
  return sum;
}

TEST(GraphTest, RingStarCompleteEdgeCountsAndDiameters) {
  const Graph ring = MakeRing(10);
  EXPECT_EQ(ring.num_nodes(), 10);
  EXPECT_EQ(ring.num_edges(), 10);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(ring.degree(i), 2);
  EXPECT_EQ(ring.Diameter(), 5);
  EXPECT_EQ(MakeRing(9).Diameter(), 4);
  EXPECT_EQ(MakeRing(3).num_edges(), 3);
  EXPECT_EQ(MakeRing(2).num_edges(), 1);

  const Graph star = MakeStar(7);
  EXPECT_EQ(star.num_edges(), 6);
  EXPECT_EQ(star.degree(0), 6);
  EXPECT_EQ(star.degree(3), 1);
  EXPECT_EQ(star.Diameter(), 2);
  EXPECT_EQ(MakeStar(2).Diameter(), 1);

  const Graph complete = MakeComplete(8);
  EXPECT_EQ(complete.num_edges(), 8 * 7 / 2);
  EXPECT_EQ(complete.degree(5), 7);
  EXPECT_EQ(complete.Diameter(), 1);
}

TEST(GraphTest, GridEdgeCountsAndDiameter) {
  const Graph grid = MakeGrid(3, 4);
  EXPECT_EQ(grid.num_nodes(), 12);
  EXPECT_EQ(grid.num_edges(), 3 * 3 + 4 * 2);
  EXPECT_EQ(grid.Diameter(), 2 + 3);
  EXPECT_EQ(grid.degree(0), 2);  // corner
  EXPECT_EQ(grid.degree(5), 4);  // interior (row 1, col 1)
  EXPECT_EQ(grid.neighbors(5), (std::vector<int>{1, 4, 6, 9}));
  const Graph line = MakeGrid(1, 5);
  EXPECT_EQ(line.num_edges(), 4);
  EXPECT_EQ(line.Diameter(), 4);
}

TEST(GraphTest, NeighborsAreSortedAndSymmetric) {
  const Graph g(5, {{4, 0}, {0, 2}, {3, 1}, {1, 0}, {2, 3}});
  EXPECT_EQ(g.neighbors(0), (std::vector<int>{1, 2, 4}));
  EXPECT_EQ(g.neighbors(3), (std::vector<int>{1, 2}));
  EXPECT_EQ(DegreeSum(g), 2 * g.num_edges());
  EXPECT_EQ(g.edges().size(), 5u);
  EXPECT_EQ(g.adjacency().size(), 5u);
  EXPECT_EQ(g.Diameter(), 3);  // 4 - 0 - 1 - 3
  EXPECT_EQ(Graph(1, {}).Diameter(), 0);
}

TEST(GraphTest, ConstructorRejectsBadEdgesNamingWhereAndEdge) {
  EXPECT_TRUE(ThrowsInputError(
      [] {
        Graph(4, {{0, 1}, {2, 3}}, "net");
      },
      {"net: graph is disconnected: node 2 unreachable from node 0"}));
  EXPECT_TRUE(ThrowsInputError(
      [] {
        Graph(3, {{0, 1}, {1, 1}, {1, 2}}, "net");
      },
      {"net: ", "edge (1, 1) is a self-loop"}));
  EXPECT_TRUE(ThrowsInputError(
      [] {
        Graph(3, {{0, 1}, {1, 2}, {0, 1}}, "net");
      },
      {"net: ", "duplicate edge (0, 1)"}));
  EXPECT_TRUE(ThrowsInputError(
      [] {
        Graph(3, {{0, 1}, {1, 2}, {1, 0}}, "net");
      },
      {"net: ", "duplicate edge (1, 0)"}));
  EXPECT_TRUE(ThrowsInputError(
      [] {
        Graph(3, {{0, 1}, {1, 3}}, "net");
      },
      {"net: ", "node id 3 out of range [0, 3)"}));
  EXPECT_TRUE(ThrowsInputError(
      [] {
        Graph(3, {{0, 1}, {-1, 2}});
      },
      {"graph: ", "node id -1 out of range"}));
  EXPECT_TRUE(ThrowsInputError([] { Graph(0, {}); }, {"graph: ", "number of nodes"}));
  EXPECT_TRUE(ThrowsInputError([] { Graph(2, {}); }, {"node 1 unreachable from node 0"}));
}

TEST(GraphTest, BuildersRejectBadSizes) {
  EXPECT_THROW(MakeRing(1), InputError);
  EXPECT_THROW(MakeStar(1), InputError);
  EXPECT_THROW(MakeComplete(0), InputError);
  EXPECT_THROW(MakeGrid(1, 1), InputError);
  EXPECT_THROW(MakeGrid(0, 5), InputError);
  EXPECT_THROW(MakeRandomConnected(10, 8, 1), InputError);   // fewer than N - 1
  EXPECT_THROW(MakeRandomConnected(10, 46, 1), InputError);  // more than N (N - 1) / 2
  EXPECT_THROW(MakeRandomConnected(1, 0, 1), InputError);
}

std::set<std::pair<int, int>> EdgeSet(const Graph& g) {
  std::set<std::pair<int, int>> s;
  for (auto [i, j] : g.edges()) s.emplace(std::min(i, j), std::max(i, j));
  return s;
}

TEST(GraphTest, RandomConnectedHasEdgeCountAndIsReproducible) {
  // The papers' setting: N = 10 nodes, E = 13 edges.
  const Graph g = MakeRandomConnected(10, 13, 2024);
  EXPECT_EQ(g.num_nodes(), 10);
  EXPECT_EQ(g.num_edges(), 13);
  EXPECT_EQ(g.edges(), MakeRandomConnected(10, 13, 2024).edges());
  EXPECT_NE(EdgeSet(g), EdgeSet(MakeRandomConnected(10, 13, 2025)));
  // Connected and simple by construction (the constructor checks); many seeds and extremes.
  for (std::uint64_t seed = 0; seed < 100; ++seed) {
    const Graph r = MakeRandomConnected(12, 20, seed);
    ASSERT_EQ(r.num_edges(), 20);
    ASSERT_EQ(EdgeSet(r).size(), 20u);
  }
  EXPECT_EQ(MakeRandomConnected(10, 9, 1).num_edges(), 9);  // a spanning tree
  EXPECT_EQ(EdgeSet(MakeRandomConnected(10, 45, 1)), EdgeSet(MakeComplete(10)));
  EXPECT_EQ(MakeRandomConnected(2, 1, 1).num_edges(), 1);
}

TEST(GraphTest, RandomSpanningTreesVary) {
  // Over seeds, trees (E = N - 1) take different shapes: not always a path or a star.
  std::set<int> diameters;
  for (std::uint64_t seed = 0; seed < 50; ++seed) {
    diameters.insert(MakeRandomConnected(8, 7, seed).Diameter());
  }
  EXPECT_GE(diameters.size(), 3u);
}

TEST(GraphTest, LoadsEdgeListSkippingCommentsAndBlankLines) {
  const Graph g = LoadEdgeList(Fixture("edges.txt"));
  EXPECT_EQ(g.num_nodes(), 4);
  EXPECT_EQ(g.num_edges(), 4);
  EXPECT_EQ(g.edges(), (Edges{{0, 1}, {1, 2}, {2, 3}, {3, 1}}));
  EXPECT_EQ(g.Diameter(), 2);
  const std::string crlf = WriteTempFile("crlf.edges", "  # header\r\n0 1\r\n1\t2 \r\n");
  EXPECT_EQ(LoadEdgeList(crlf).num_edges(), 2);
  const std::string path = Fixture("edges.txt");
  EXPECT_TRUE(ThrowsInputError([&] { LoadEdgeList(path, 5); },
                               {path + ": graph is disconnected: node 4 unreachable from node 0"}));
}

TEST(GraphTest, EdgeListErrorsNameFileAndLine) {
  struct Case {
    std::string content;
    int num_nodes;
    int line;
    std::string phrase;
  };
  const std::vector<Case> cases = {
      {"0 1\n1 x\n", 0, 2, "bad node id 'x'"},
      {"0 1\n# c\n\n1\n", 0, 4, "expected an edge \"i j\", found 1 fields"},
      {"0 1 2\n", 0, 1, "found 3 fields"},
      {"0 1\n1 2\n2 2\n", 0, 3, "edge (2, 2) is a self-loop"},
      {"0 1\n1 2\n0 1\n", 0, 3, "duplicate edge (0, 1)"},
      {"0 1\n1 2\n2 1\n", 0, 3, "duplicate edge (2, 1)"},
      {"0 1\n1 5\n", 3, 2, "node id 5 out of range [0, 3)"},
      {"0 1\n-1 2\n", 0, 2, "node id -1 out of range"},
      {"0 1\n1 2.0\n", 0, 2, "bad node id '2.0'"},
      {"# nothing\n\n", 0, 0, "no edges"},
      {"0 1\n2 3\n", 0, 0, "graph is disconnected: node 2 unreachable from node 0"},
  };
  for (const Case& c : cases) {
    const std::string path = WriteTempFile("bad.edges", c.content);
    const std::string where = c.line > 0 ? path + ":" + std::to_string(c.line) + ": " : path + ": ";
    EXPECT_TRUE(ThrowsInputError([&] { LoadEdgeList(path, c.num_nodes); }, {where, c.phrase}))
        << c.content;
  }
  const std::string missing = test::TempPath("dpadmm_no_such.edges");
  EXPECT_TRUE(ThrowsInputError([&] { LoadEdgeList(missing); }, {missing + ": cannot open file"}));
}

}  // namespace
}  // namespace dpadmm
