// SPDX-License-Identifier: Apache-2.0
// `dpadmm party` over faulty links: 3 processes on 127.0.0.1 (mutual TLS), every link between
// them through the fault-injecting relay (tests/party/relay.py; each party listens on its
// `listen` port and is dialled at the relay's). Transient faults survive:
// - simulation (noise_seed): a connection reset at a random round and a 5 s partition of one
//   party later, the run ends with the bits of the same run without relay (trace but the wall
//   time, summary figures, model), which party_algorithms_test checks against the serial
//   engine;
// - private mode: a party whose acknowledgements are held back (its incoming links stalled)
//   has its outgoing connection reset; it resends what was not acknowledged, the receiver
//   checks every copy byte for byte against the first (a copy with other noise ends the run:
//   the hostile party's "resend_other" in party_processes_test) and reports the round frames
//   it received twice; the run completes.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>
#include <random>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "dpadmm/core/error.h"
#include "dpadmm/party.h"
#include "dpadmm/persistence/checkpoint.h"
#include "party_cli.h"
#include "relay_control.h"

namespace fs = std::filesystem;

namespace {

using dpadmm::partytest::HeldPorts;
using dpadmm::partytest::PartyEnd;
using dpadmm::partytest::PartyGroup;
using dpadmm::partytest::PartyRun;
using dpadmm::partytest::ReadAll;
using dpadmm::partytest::Relay;
using dpadmm::partytest::SaysPortTaken;
using dpadmm::partytest::TraceWithoutSeconds;

constexpr int kParties = 3;
constexpr int kRows = 24;
constexpr int kDims = 4;
constexpr double kPeerTimeout = 20;  // well above the 5 s partition (heartbeats every 5 s)
constexpr double kBound = 240;       // seconds for every party of one launch to end

nlohmann::json Spec(bool simulation, int iterations) {
  nlohmann::json spec = {
      {"data", {{"source", "libsvm"}, {"num_features", kDims}, {"scaling", "clip-only"}}},
      {"graph", {{"topology", "ring"}, {"nodes", kParties}}},
      {"algorithm", {{"name", "dvp"}, {"dvp", {{"alpha", 0.5}}}}},
      {"iterations", iterations},
      {"seed", 3},
      {"engine", "serial"}};
  if (simulation) spec["noise_seed"] = 11;
  return spec;
}

nlohmann::json WithoutTimes(nlohmann::json j) {
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end();) {
      if (it.key().find("seconds") != std::string::npos) {
        it = j.erase(it);
      } else {
        *it = WithoutTimes(*it);
        ++it;
      }
    }
  } else if (j.is_array()) {
    for (auto& e : j) e = WithoutTimes(e);
  }
  return j;
}

struct Outputs {
  std::vector<std::string> trace;
  nlohmann::json summary, model;
};
Outputs Read(const PartyRun& run, int p) {
  Outputs o;
  o.trace = TraceWithoutSeconds(run.Out(p, "trace.csv"));
  o.summary = WithoutTimes(nlohmann::json::parse(ReadAll(run.Out(p, "summary.json"))));
  o.model = nlohmann::json::parse(ReadAll(run.Out(p, "model.json")));
  o.model.erase("spec");  // names the run's own files
  return o;
}

class PartyLinks : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    const char* tmp = std::getenv("TMPDIR");
    std::string templ = std::string(tmp != nullptr ? tmp : "/tmp") + "/partylinks_XXXXXX";
    ASSERT_NE(mkdtemp(templ.data()), nullptr);
    dir_ = templ;
    const std::string cmd = std::string(DPADMM_MAKE_CERTS) + " " + (dir_ / "certs").string() +
                            " p0 p1 p2 2>/dev/null >/dev/null";
    ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  }
  static void TearDownTestSuite() { fs::remove_all(dir_); }

  static PartyRun NewRun(const std::string& name) {
    return PartyRun(dir_ / name, dir_ / "certs", kParties, kRows, kDims);
  }
  // Party files whose links go through `relay`: party p listens on listen[p] and is dialled at
  // the relay's link p.
  static void WriteLinked(PartyRun& run, const nlohmann::json& spec, const Relay& relay,
                          const std::vector<int>& listen) {
    run.WriteFiles(spec, 60, kPeerTimeout, [&](int, nlohmann::json& file) {
      for (int q = 0; q < kParties; ++q) {
        file["parties"][q]["address"] = "127.0.0.1:" + std::to_string(relay.port(q));
        file["parties"][q]["listen"] = "127.0.0.1:" + std::to_string(listen[q]);
      }
    });
  }
  // The relay for `run` and its party files: the parties' listen ports stay held until the
  // relay has bound its own, so that it cannot be given one of them.
  static std::unique_ptr<Relay> StartLinked(PartyRun& run, const nlohmann::json& spec) {
    HeldPorts listen(kParties);
    auto relay = std::make_unique<Relay>(
        run.dir(), listen.ports(), std::vector<std::string>{"--delay-ms", "2", "--jitter-ms", "1"},
        200);
    if (relay->ok()) WriteLinked(run, spec, *relay, listen.ports());
    return relay;
  }
  static std::vector<PartyEnd> RunAll(const PartyRun& run,
                                      const std::vector<std::string>& flags = {}) {
    PartyGroup group;
    for (int p = 0; p < kParties; ++p) run.Start(group, p, flags);
    return run.WaitAll(group, kBound);
  }
  static void ExpectAllOk(const std::vector<PartyEnd>& ends) {
    for (int p = 0; p < kParties; ++p) {
      ASSERT_FALSE(ends[p].killed_by_test) << "p" << p << ": " << ends[p].err;
      ASSERT_EQ(ends[p].exit_code, 0) << "p" << p << ": " << ends[p].out << ends[p].err;
    }
  }
  // Waits (bounded) until party 0's checkpoint is at round >= r; false if a party ended first.
  static bool WaitRound(const PartyRun& run, PartyGroup& group, std::int64_t r) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
    while (std::chrono::steady_clock::now() < deadline) {
      try {
        const fs::path ck = run.Out(0, "state.ckpt");
        if (fs::exists(ck) && dpadmm::ReadCheckpoint(ck.string()).round >= r) return true;
      } catch (const std::exception&) {
        // being replaced: read it again
      }
      PartyEnd end;
      for (int p = 0; p < kParties; ++p) {
        if (group.Ended(p, &end)) return false;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return false;
  }
  // True when a party of `run` reported its listen port taken (another test bound it between
  // its release and the party's bind); the group's other parties are then ended.
  static bool PortWasTaken(const PartyRun& run, PartyGroup& group) {
    for (int p = 0; p < kParties; ++p) {
      if (SaysPortTaken(ReadAll(run.Out(p, "err.txt")))) {
        group.KillAll();
        return true;
      }
    }
    return false;
  }

  static fs::path dir_;
};
fs::path PartyLinks::dir_;

// The party file's `listen`: where a party binds, apart from the address the others dial
// (default: the address); a bad one is refused naming the field, before anything is opened.
TEST(PartyFileListen, ParsedAndCheckedNamingTheField) {
  const auto parse = [](const std::string& entry_b) {
    const std::string text =
        R"({"spec": {"data": {"source": "libsvm", "num_features": 4, "scaling": "clip-only"},
                     "graph": {"topology": "ring", "nodes": 3}, "algorithm": {"name": "admm"}},
            "party": "b", "data": "b.libsvm",
            "parties": [{"id": "a", "address": "127.0.0.1:7001"}, )" +
        entry_b + R"(, {"id": "c", "address": "127.0.0.1:7003"}]})";
    return dpadmm::ParsePartyFile(text, "p.json");
  };
  const auto refusal = [&](const std::string& entry_b) {
    try {
      (void)parse(entry_b);
    } catch (const dpadmm::InputError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  const dpadmm::PartyFile f =
      parse(R"({"id": "b", "address": "127.0.0.1:7102", "listen": "127.0.0.1:7002"})");
  EXPECT_EQ(f.network.parties[1].address, "127.0.0.1:7102");
  EXPECT_EQ(f.network.parties[1].listen, "127.0.0.1:7002");
  EXPECT_EQ(f.network.parties[0].listen, "");  // default: where it is dialled
  EXPECT_NE(refusal(R"({"id": "b", "address": "127.0.0.1:7102", "listen": "127.0.0.1"})")
                .find("p.json: parties[1].listen: '127.0.0.1' is not host:port"),
            std::string::npos);
  EXPECT_NE(refusal(R"({"id": "b", "address": "127.0.0.1:7102", "listen": 7002})")
                .find("parties[1].listen"),
            std::string::npos);
  EXPECT_NE(refusal(R"({"id": "b", "address": "127.0.0.1:7102", "port": "7002"})")
                .find("optionally \"listen\""),
            std::string::npos);
}

// A reset of one party's connections at a random round, then a 5 s partition of one party
// (its links forward and accept nothing), in simulation mode: the uninterrupted bits.
TEST_F(PartyLinks, ResetAndPartitionGiveTheUninterruptedBits) {
  const nlohmann::json spec = Spec(true, 300);
  // Checkpoints tell the test which round the run is at (the same flags in both runs).
  const auto flags = [](const PartyRun& run, int p) {
    return std::vector<std::string>{"--checkpoint", run.Out(p, "state.ckpt").string(),
                                    "--checkpoint-every", "10"};
  };
  PartyRun whole = NewRun("whole");
  whole.WriteFiles(spec, 60, kPeerTimeout);
  {
    PartyGroup group;
    for (int p = 0; p < kParties; ++p) whole.Start(group, p, flags(whole, p));
    ExpectAllOk(whole.WaitAll(group, kBound));
  }
  std::vector<Outputs> want;
  for (int p = 0; p < kParties; ++p) want.push_back(Read(whole, p));

  // The faults' rounds and parties, drawn from a fixed seed.
  std::mt19937 rng(20261128);
  const int reset_round = 20 + static_cast<int>(rng() % 60);
  const int reset_party = static_cast<int>(rng() % kParties);
  const int stall_party = static_cast<int>(rng() % kParties);
  std::vector<PartyEnd> ends;
  // A party whose listen port another test took between its release and the party's bind
  // ends with "cannot listen": the linked run starts again on fresh ports (at most 3 runs).
  for (int attempt = 0;; ++attempt) {
    PartyRun linked = NewRun("linked" + std::to_string(attempt));
    const std::unique_ptr<Relay> relay = StartLinked(linked, spec);
    ASSERT_TRUE(relay->ok());
    PartyGroup group;
    for (int p = 0; p < kParties; ++p) linked.Start(group, p, flags(linked, p));
    if (!WaitRound(linked, group, reset_round)) {
      if (attempt < 2 && PortWasTaken(linked, group)) continue;
      const std::vector<PartyEnd> early = linked.WaitAll(group, kBound);
      for (int p = 0; p < kParties; ++p) std::cout << "[ links ] p" << p << ": " << early[p].err;
      FAIL() << "the run ended before round " << reset_round;
    }
    const std::string reset = relay->Command("reset " + std::to_string(reset_party));
    EXPECT_EQ(reset, "ok reset 2") << "p" << reset_party << "'s two incoming connections";
    ASSERT_TRUE(WaitRound(linked, group, reset_round + 30)) << "no progress after the reset";
    EXPECT_EQ(relay->Command("stall " + std::to_string(stall_party) + " 5"), "ok stall 5");
    const auto stalled = std::chrono::steady_clock::now();
    ends = linked.WaitAll(group, kBound);
    const double after =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - stalled).count();
    std::cout << "[ links ] reset p" << reset_party << " at round >= " << reset_round
              << ", partition of p" << stall_party << " for 5 s; the run ended " << after
              << " s after the partition began; relay: " << relay->Command("stats") << std::endl;
    for (int p = 0; p < kParties; ++p) std::cout << "[ links ] p" << p << ": " << ends[p].err;
    ExpectAllOk(ends);
    EXPECT_GE(after, 5.0) << "the run ended during the partition";
    for (int p = 0; p < kParties; ++p) {
      SCOPED_TRACE("party p" + std::to_string(p));
      const Outputs got = Read(linked, p);
      ASSERT_EQ(got.trace.size(), want[p].trace.size());
      for (std::size_t k = 0; k < got.trace.size(); ++k) {
        EXPECT_EQ(got.trace[k], want[p].trace[k]) << "trace line " << k;
      }
      EXPECT_EQ(got.summary, want[p].summary);
      EXPECT_EQ(got.model, want[p].model);
    }
    break;
  }
  // The reset party's dialers reconnected to it.
  EXPECT_NE(ends[reset_party].err.find("reconnected"), std::string::npos) << ends[reset_party].err;
}

// Private mode: p0's incoming links stalled (the acknowledgements of what it sends are held
// back), then p1's connections reset: p0 dials p1 again and resends what p1 had not
// acknowledged, of which p1 had received some; p1 checks each copy byte for byte against
// the first (a different copy ends the run) and reports the round frames among them.
TEST_F(PartyLinks, PrivateResentFramesAreByteIdentical) {
  bool seen = false;
  for (int attempt = 0; attempt < 3 && !seen; ++attempt) {
    PartyRun run = NewRun("private" + std::to_string(attempt));
    const std::unique_ptr<Relay> relay_owner = StartLinked(run, Spec(false, 400));
    Relay& relay = *relay_owner;
    ASSERT_TRUE(relay.ok());
    PartyGroup group;
    for (int p = 0; p < kParties; ++p) run.Start(group, p, {});
    // Under way: every party has both of its peers' connections (bounded).
    bool taken = false;
    for (int k = 0; k < 600 && !taken; ++k) {
      taken = PortWasTaken(run, group);
      const std::string stats = relay.Command("stats");
      if (std::regex_search(stats, std::regex("0:accepted=\\d+,open=2.*1:accepted=\\d+,open=2.*"
                                              "2:accepted=\\d+,open=2"))) {
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    if (taken) {
      std::cout << "[ links ] attempt " << attempt << ": a listen port was taken" << std::endl;
      continue;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    EXPECT_EQ(relay.Command("stall 0 2"), "ok stall 2");
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    EXPECT_EQ(relay.Command("reset 1"), "ok reset 2");
    const std::vector<PartyEnd> ends = run.WaitAll(group, kBound);
    ExpectAllOk(ends);
    const nlohmann::json s = nlohmann::json::parse(ReadAll(run.Out(1, "summary.json")));
    EXPECT_EQ(s["outcome"], "completed") << s.dump();
    std::smatch m;
    const std::regex line(
        "link with party 'p0': [^\\n]* it sent (\\d+) envelope\\(s\\) again \\((\\d+) "
        "round frame\\(s\\)\\), each byte for byte its first copy");
    if (std::regex_search(ends[1].err, m, line)) {
      std::cout << "[ links ] attempt " << attempt << ": " << m.str(0) << std::endl;
      seen = std::stoi(m[2].str()) >= 1;
    } else {
      std::cout << "[ links ] attempt " << attempt << ": p1 received no copy: " << ends[1].err
                << std::endl;
    }
  }
  EXPECT_TRUE(seen) << "no round frame was resent in 3 attempts";
}

}  // namespace
