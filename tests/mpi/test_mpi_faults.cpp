// SPDX-License-Identifier: Apache-2.0
// Engine errors under mpirun: every rank must end with MpiError naming a rank, within a bounded
// time. A separate executable: after an MpiError the engine leaves its communicator and buffers
// behind on purpose (requests may still be in flight), so these runs come last in their process.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include "mpi_test_support.h"

namespace rt = dpadmm::runtime;
using namespace dpadmm::mpitest;

namespace {

int Rank() { return rt::MpiRank(); }
int Size() { return rt::MpiSize(); }

// A rank stalled beyond the peer timeout: its neighbours stop waiting and every rank throws
// MpiError naming a rank, instead of hanging.
TEST(MpiFaults, StalledRankEndsEveryRankWithMpiError) {
  if (Size() == 1) GTEST_SKIP() << "needs a peer";
  const rt::Topology t = Ring(8);
  const std::vector<int> map = rt::ContiguousNodeRanks(8, Size());
  auto owned = MakePrograms(rt::LocalNodes(map, Rank()), {{7, 5, Fault::kStall}});
  auto programs = Pointers(owned);
  rt::EngineOptions o;
  o.kind = rt::EngineKind::kMpi;
  o.last_round = 50;
  o.peer_timeout_seconds = 1;
  Recorder rec;
  const auto start = std::chrono::steady_clock::now();
  try {
    (void)rt::Run(programs, t, o, rec);
    ADD_FAILURE() << "no MpiError";
  } catch (const rt::MpiError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("rank"), std::string::npos) << what;
    if (Rank() != Size() - 1) {
      EXPECT_NE(what.find("a rank died or stalled"), std::string::npos) << what;
    }
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(20));
}

// The sink throwing on rank 0 is an engine error too: every rank throws.
TEST(MpiFaults, ThrowingSinkEndsEveryRankWithMpiError) {
  struct Throwing : rt::RoundSink {
    bool OnRound(std::int64_t round, const rt::ReportTable&) override {
      if (round == 3) throw std::runtime_error("sink broke");
      return true;
    }
  } sink;
  const rt::Topology t = Ring(6);
  auto owned = MakePrograms(rt::LocalNodes(rt::ContiguousNodeRanks(6, Size()), Rank()), {});
  auto programs = Pointers(owned);
  rt::EngineOptions o;
  o.kind = rt::EngineKind::kMpi;
  o.last_round = 100000;
  o.peer_timeout_seconds = 10;
  try {
    (void)rt::Run(programs, t, o, sink);
    ADD_FAILURE() << "no MpiError";
  } catch (const rt::MpiError& e) {
    EXPECT_NE(std::string(e.what()).find("sink broke"), std::string::npos) << e.what();
  }
}

}  // namespace
