// SPDX-License-Identifier: Apache-2.0
// The MPI engine against the serial engine, bit for bit, under mpirun with 1-4 ranks. Every rank
// runs every test in the same order (the engine is collective); each rank also runs the serial
// engine on all nodes in its own process, and compares what it has: rank 0 the reports, every
// rank the outcome.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "mpi_test_support.h"

namespace rt = dpadmm::runtime;
using namespace dpadmm::mpitest;

namespace {

int Rank() { return rt::MpiRank(); }
int Size() { return rt::MpiSize(); }

struct Outcome {
  rt::EngineResult result;
  Recorder recorder;
};

struct Case {
  rt::Topology topology;
  std::vector<int> map;  // empty = contiguous
  std::int64_t rounds = 30;
  std::vector<Fault> faults;
  std::int64_t stop_after = -1;
  int threads = 0;
  std::size_t width = 2;
};

Outcome RunSerial(const Case& c) {
  std::vector<int> all(c.topology.num_nodes());
  for (int i = 0; i < c.topology.num_nodes(); ++i) all[i] = i;
  auto owned = MakePrograms(all, c.faults, c.width);
  auto programs = Pointers(owned);
  rt::EngineOptions o;
  o.kind = rt::EngineKind::kSerial;
  o.last_round = c.rounds;
  Outcome out;
  out.recorder.stop_after = c.stop_after;
  out.result = rt::Run(programs, c.topology, o, out.recorder);
  return out;
}

Outcome RunMpi(const Case& c) {
  const std::vector<int> map =
      c.map.empty() ? rt::ContiguousNodeRanks(c.topology.num_nodes(), Size()) : c.map;
  auto owned = MakePrograms(rt::LocalNodes(map, Rank()), c.faults, c.width);
  auto programs = Pointers(owned);
  rt::EngineOptions o;
  o.kind = rt::EngineKind::kMpi;
  o.last_round = c.rounds;
  o.node_ranks = c.map;
  o.threads = c.threads;
  o.peer_timeout_seconds = 20;
  Outcome out;
  out.recorder.stop_after = c.stop_after;
  out.result = rt::Run(programs, c.topology, o, out.recorder);
  return out;
}

bool SameBits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

// Same outcome on every rank; on rank 0 the same report bits as the serial engine.
void ExpectMatchesSerial(const Case& c) {
  const Outcome ref = RunSerial(c);
  const Outcome got = RunMpi(c);
  EXPECT_EQ(got.result.outcome, ref.result.outcome) << rt::ToString(got.result.outcome);
  EXPECT_EQ(got.result.last_reported_round, ref.result.last_reported_round);
  EXPECT_EQ(got.result.failure.node, ref.result.failure.node);
  EXPECT_EQ(got.result.failure.round, ref.result.failure.round);
  EXPECT_EQ(got.result.failure.message, ref.result.failure.message);
  if (Rank() == 0) {
    EXPECT_TRUE(got.recorder.in_order);
    ASSERT_EQ(got.recorder.rows.size(), ref.recorder.rows.size());
    for (std::size_t r = 0; r < ref.recorder.rows.size(); ++r) {
      EXPECT_TRUE(SameBits(got.recorder.rows[r], ref.recorder.rows[r])) << "round " << r;
    }
  } else {
    EXPECT_TRUE(got.recorder.rows.empty()) << "the sink is called on rank 0 only";
  }
}

rt::Topology Shape(int shape, int n) {
  switch (shape) {
    case 0: return Ring(n);
    case 1: return Star(n);
    case 2: return RandomGraph(n, 2, 7);
    default: return Complete(n);
  }
}
const char* ShapeName(int shape) {
  static const char* names[] = {"ring", "star", "random", "complete"};
  return names[shape];
}

// Maps: 0 contiguous (default), 1 round-robin, 2 seeded random, 3 everything on the last rank
// (other ranks host nothing).
std::vector<int> Map(int kind, int n) {
  std::vector<int> m(n);
  std::uint64_t seed = 99;
  for (int i = 0; i < n; ++i) {
    switch (kind) {
      case 0: return {};
      case 1: m[i] = i % Size(); break;
      case 2: m[i] = static_cast<int>(NextRandom(seed) % static_cast<std::uint64_t>(Size())); break;
      default: m[i] = Size() - 1; break;
    }
  }
  return m;
}

class MpiTopologies : public ::testing::TestWithParam<std::tuple<int, int>> {};

TEST_P(MpiTopologies, MatchesSerialEngineBitForBit) {
  const auto [shape, map] = GetParam();
  for (int n : {1, 5, 13}) {
    if (shape == 1 && n == 1) continue;
    SCOPED_TRACE(std::string(ShapeName(shape)) + " n=" + std::to_string(n));
    Case c;
    c.topology = Shape(shape, n);
    c.map = Map(map, n);
    ExpectMatchesSerial(c);
  }
}

INSTANTIATE_TEST_SUITE_P(ShapesAndMaps, MpiTopologies,
                         ::testing::Combine(::testing::Values(0, 1, 2, 3),
                                            ::testing::Values(0, 1, 2, 3)));

TEST(MpiEngine, LongMessagesAndManyRounds) {
  Case c;
  c.topology = RandomGraph(40, 3, 11);
  c.map = Map(2, 40);
  c.rounds = 200;
  c.width = 104;
  ExpectMatchesSerial(c);
  // Early ends with large (rendezvous-size) packed messages in flight exercise the drain.
  for (const char* mode : {"plain", "persistent"}) {
    ASSERT_EQ(setenv("DPADMM_MPI_REQUESTS", mode, 1), 0);
    c.stop_after = 150;
    ExpectMatchesSerial(c);
    c.stop_after = -1;
    c.faults = {{39, 77, Fault::kFail}};
    ExpectMatchesSerial(c);
    c.faults.clear();
  }
  unsetenv("DPADMM_MPI_REQUESTS");
}

TEST(MpiEngine, TbbInsideEachRankMatches) {
  Case c;
  c.topology = RandomGraph(30, 2, 5);
  c.threads = 2;
  ExpectMatchesSerial(c);
}

TEST(MpiEngine, PersistentRequestsMatch) {
  ASSERT_EQ(setenv("DPADMM_MPI_REQUESTS", "persistent", 1), 0);
  Case c;
  c.topology = RandomGraph(20, 2, 3);
  c.map = Map(1, 20);
  ExpectMatchesSerial(c);
  c.faults = {{19, 6, Fault::kFail}};
  ExpectMatchesSerial(c);
  unsetenv("DPADMM_MPI_REQUESTS");
}

TEST(MpiEngine, RoundZeroOnly) {
  Case c;
  c.topology = Ring(6);
  c.rounds = 0;
  ExpectMatchesSerial(c);
}

// A failure on the node with the highest id, hence on the last rank with the contiguous map.
TEST(MpiEngine, FailureOnRemoteRankNamesNodeRankAndRound) {
  for (int shape : {0, 2}) {
    Case c;
    c.topology = Shape(shape, 12);
    c.faults = {{11, 9, Fault::kFail}};
    ExpectMatchesSerial(c);
    const Outcome got = RunMpi(c);
    EXPECT_EQ(got.result.outcome, rt::EngineOutcome::kFailed);
    EXPECT_EQ(got.result.failure.node, 11);
    EXPECT_EQ(got.result.failure.round, 9);
    EXPECT_EQ(got.result.failure.rank, Size() - 1);
    EXPECT_EQ(got.result.failure.message, "planted failure");
  }
}

TEST(MpiEngine, LowestFailingNodeWinsAcrossRanks) {
  Case c;
  c.topology = Complete(9);
  c.map = Map(1, 9);  // round-robin: the failing nodes live on different ranks
  c.faults = {{8, 4, Fault::kFail}, {4, 4, Fault::kFail}, {2, 5, Fault::kFail}};
  ExpectMatchesSerial(c);
}

TEST(MpiEngine, FailureInRoundZero) {
  Case c;
  c.topology = Ring(7);
  c.faults = {{6, 0, Fault::kFail}};
  ExpectMatchesSerial(c);
}

TEST(MpiEngine, ExceptionInRemoteNodeBecomesFailure) {
  Case c;
  c.topology = Ring(10);
  c.faults = {{9, 3, Fault::kThrow}};
  const Outcome got = RunMpi(c);
  EXPECT_EQ(got.result.outcome, rt::EngineOutcome::kFailed);
  EXPECT_EQ(got.result.failure.node, 9);
  EXPECT_EQ(got.result.failure.round, 3);
  EXPECT_EQ(got.result.failure.rank, Size() - 1);
  EXPECT_EQ(got.result.failure.kind, rt::FailureKind::kException);
  // The same text as the serial and TBB engines give (runtime/src/node_calls.h).
  EXPECT_EQ(got.result.failure.message, "node 9, round 3: Step threw: planted exception");
  EXPECT_EQ(got.result.last_reported_round, 2);
}

TEST(MpiEngine, SinkOnRankZeroStopsEveryRank) {
  Case c;
  c.topology = RandomGraph(15, 1, 2);
  c.stop_after = 7;
  ExpectMatchesSerial(c);
}

TEST(MpiEngine, CancellationOnRankZeroPropagates) {
  Case c;
  c.topology = Ring(8);
  c.rounds = 100000;
  rt::StopToken token;
  auto owned = MakePrograms(rt::LocalNodes(rt::ContiguousNodeRanks(8, Size()), Rank()), {});
  auto programs = Pointers(owned);
  rt::EngineOptions o;
  o.kind = rt::EngineKind::kMpi;
  o.last_round = c.rounds;
  o.stop = &token;
  Recorder rec;
  rec.token = &token;
  rec.cancel_after = 5;
  const rt::EngineResult r = rt::Run(programs, c.topology, o, rec);
  EXPECT_EQ(r.outcome, rt::EngineOutcome::kCancelled);
  EXPECT_GE(r.last_reported_round, 5);
  EXPECT_LT(r.last_reported_round, 100000);
}

TEST(MpiEngine, CancellationOnAnotherRankPropagates) {
  rt::StopToken token;
  if (Rank() == Size() - 1) token.RequestStop();
  auto owned = MakePrograms(rt::LocalNodes(rt::ContiguousNodeRanks(8, Size()), Rank()), {});
  auto programs = Pointers(owned);
  rt::EngineOptions o;
  o.kind = rt::EngineKind::kMpi;
  o.last_round = 1000000;
  o.stop = &token;
  Recorder rec;
  const rt::EngineResult r = rt::Run(programs, Ring(8), o, rec);
  EXPECT_EQ(r.outcome, rt::EngineOutcome::kCancelled);
  EXPECT_LT(r.last_reported_round, 1000000);
}

// Every rank throws the same invalid_argument, and the engine still works afterwards.
TEST(MpiEngine, InconsistentInputThrowsOnEveryRank) {
  const rt::Topology t = Ring(6);
  auto owned = MakePrograms(rt::LocalNodes(rt::ContiguousNodeRanks(6, Size()), Rank()), {});
  auto programs = Pointers(owned);
  rt::EngineOptions o;
  o.kind = rt::EngineKind::kMpi;
  o.last_round = 3;
  Recorder rec;
  // One program too many on the last rank only.
  std::vector<rt::NodeProgram*> extra = programs;
  ToyProgram spare(0, {});
  if (Rank() == Size() - 1) extra.push_back(&spare);
  try {
    (void)rt::Run(extra, t, o, rec);
    ADD_FAILURE() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("rank " + std::to_string(Size() - 1)), std::string::npos)
        << e.what();
  }
  o.node_ranks = {0, 0, 0};
  EXPECT_THROW(rt::Run(programs, t, o, rec), std::invalid_argument);
  o.node_ranks = {0, 0, 0, 0, 0, Size()};
  EXPECT_THROW(rt::Run(programs, t, o, rec), std::invalid_argument);
  o.node_ranks.clear();
  EXPECT_EQ(rt::Run(programs, t, o, rec).outcome, rt::EngineOutcome::kCompleted);
}

// Ranks that host no node finish their rounds at once and wait for the outcome for the whole
// run, longer than the peer timeout: rank 0's heartbeats keep them from giving up.
TEST(MpiEngine, IdleRanksOutwaitThePeerTimeout) {
  const rt::Topology t = Ring(2);
  const std::vector<int> map = {0, 0};
  auto owned = MakePrograms(rt::LocalNodes(map, Rank()), {{0, 1, Fault::kSlow}});
  auto programs = Pointers(owned);
  rt::EngineOptions o;
  o.kind = rt::EngineKind::kMpi;
  o.last_round = 35;  // about 3.5 s
  o.node_ranks = map;
  o.peer_timeout_seconds = 1.5;
  Recorder rec;
  EXPECT_EQ(rt::Run(programs, t, o, rec).outcome, rt::EngineOutcome::kCompleted);
}

TEST(MpiEngine, AvailableAndNamed) {
  EXPECT_TRUE(rt::EngineAvailable(rt::EngineKind::kMpi));
  EXPECT_EQ(rt::ParseEngineKind("mpi"), rt::EngineKind::kMpi);
  EXPECT_STREQ(rt::ToString(rt::EngineKind::kMpi), "mpi");
}

TEST(NodeRankMap, ContiguousBlocksDifferByAtMostOne) {
  EXPECT_EQ(rt::ContiguousNodeRanks(7, 3), (std::vector<int>{0, 0, 1, 1, 2, 2, 2}));
  EXPECT_EQ(rt::ContiguousNodeRanks(2, 4), (std::vector<int>{1, 3}));
  EXPECT_EQ(rt::LocalNodes(rt::ContiguousNodeRanks(7, 3), 1), (std::vector<int>{2, 3}));
}

TEST(NodeRankMap, ParsesOneRankPerLine) {
  std::istringstream in("0\n 2 \r\n1\n");
  EXPECT_EQ(rt::ParseNodeRanks(in, "map.txt"), (std::vector<int>{0, 2, 1}));
}

TEST(NodeRankMap, ErrorsNameFileAndLine) {
  const auto error = [](const std::string& text) {
    std::istringstream in(text);
    try {
      rt::ParseNodeRanks(in, "map.txt");
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(error("0\n1\nx\n"), "map.txt:3: rank of node 2 must be an integer >= 0, got 'x'");
  EXPECT_EQ(error("0\n-1\n"), "map.txt:2: rank of node 1 must be an integer >= 0, got '-1'");
  EXPECT_EQ(error("0\n\n1\n"), "map.txt:2: empty line (line k must hold the rank of node 1)");
  EXPECT_EQ(error(""), "map.txt: no nodes (expected one rank per line)");
  EXPECT_THROW(rt::ReadNodeRankFile("/nonexistent/map.txt"), std::invalid_argument);
}

// A map read from a file drives a run (each rank reads its own copy).
TEST(NodeRankMap, FileMapDrivesARun) {
  const std::string path =
      ::testing::TempDir() + "/dpadmm_node_ranks_" + std::to_string(Rank()) + ".txt";
  {
    std::ofstream out(path);
    for (int i = 0; i < 9; ++i) out << (8 - i) % Size() << "\n";
  }
  Case c;
  c.topology = RandomGraph(9, 2, 4);
  c.map = rt::ReadNodeRankFile(path);
  std::remove(path.c_str());
  ExpectMatchesSerial(c);
}

}  // namespace
