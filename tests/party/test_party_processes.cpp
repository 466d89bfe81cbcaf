// SPDX-License-Identifier: Apache-2.0
// The network engine across processes on 127.0.0.1: each test launches one party_node process
// per party (fork/exec), waits for all of them within a bound (a process still alive then is
// killed, and the test fails), and checks what each party wrote against the serial engine run
// here: the same outcome on every party, and the same report bits for the nodes it hosts (NaN
// for the others, whose reports never leave their party). Faults and refusals: each party must
// end as runtime/README.md states, naming the peer at fault.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "../mpi/mpi_test_support.h"
#include "party_launch.h"
#include "sharing_programs.h"

namespace rt = dpadmm::runtime;
namespace fs = std::filesystem;
using namespace dpadmm::mpitest;

namespace {

using dpadmm::partytest::FreePorts;
using dpadmm::partytest::Lines;
using dpadmm::partytest::ReadAll;
using dpadmm::partytest::SaysPortTaken;

struct Ended {
  int exit_code = -1;  // -1: killed by a signal
  int signal = 0;
  bool killed_by_test = false;   // still alive at the bound
  std::vector<std::string> out;  // lines of --out
  std::string err;               // stderr
  std::string Line(const std::string& head) const {
    for (const auto& l : out) {
      if (l.rfind(head + " ", 0) == 0) return l.substr(head.size() + 1);
    }
    return "";
  }
};

class PartyProcesses : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    const char* tmp = std::getenv("TMPDIR");
    std::string templ = std::string(tmp != nullptr ? tmp : "/tmp") + "/party_XXXXXX";
    ASSERT_NE(mkdtemp(templ.data()), nullptr);
    dir_ = templ;
    const std::string cmd = std::string(DPADMM_MAKE_CERTS) + " --test " + dir_.string() +
                            "/certs p1 p0 p2 p3 p4 2>/dev/null";
    ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  }
  static void TearDownTestSuite() { fs::remove_all(dir_); }

  // Runs one process per party; extra[p] are party p's own arguments. `stuck`: parties expected
  // to hang, killed once all others have ended. Every other process must end within `bound`.
  std::vector<Ended> Launch(int parties, const std::vector<std::string>& common,
                            std::map<int, std::vector<std::string>> extra = {},
                            std::set<int> stuck = {}, double bound = 60) {
    for (int attempt = 0;; ++attempt) {
      auto ended = LaunchOnce(parties, common, extra, stuck, bound);
      bool port_taken = false;
      for (const auto& e : ended) {
        port_taken = port_taken || SaysPortTaken(e.Line("message"));
      }
      if (!port_taken || attempt == 2) return ended;
    }
  }

  std::vector<Ended> LaunchOnce(int parties, const std::vector<std::string>& common,
                                const std::map<int, std::vector<std::string>>& extra,
                                const std::set<int>& stuck, double bound) {
    const auto ports = FreePorts(parties);
    std::string list;
    for (int p : ports) list += (list.empty() ? "" : ",") + std::to_string(p);
    std::vector<pid_t> pids(static_cast<std::size_t>(parties), -1);
    const fs::path run = dir_ / ("run" + std::to_string(++runs_));
    fs::create_directories(run);
    for (int p = 0; p < parties; ++p) {
      // Party arguments starting with "@hostile" run party_hostile instead, with only them.
      const auto it = extra.find(p);
      const bool hostile = it != extra.end() && !it->second.empty() && it->second[0] == "@hostile";
      std::vector<std::string> args = {hostile ? DPADMM_PARTY_HOSTILE : DPADMM_PARTY_NODE,
                                       "--party",
                                       std::to_string(p),
                                       "--ports",
                                       list,
                                       "--out",
                                       (run / ("out" + std::to_string(p))).string()};
      if (!hostile) args.insert(args.end(), common.begin(), common.end());
      if (it != extra.end())
        args.insert(args.end(), it->second.begin() + hostile, it->second.end());
      const std::string err = (run / ("err" + std::to_string(p))).string();
      const pid_t pid = fork();
      if (pid == 0) {
        if (!freopen(err.c_str(), "w", stderr)) _exit(126);
        std::vector<char*> argv;
        for (auto& s : args) argv.push_back(s.data());
        argv.push_back(nullptr);
        execv(argv[0], argv.data());
        _exit(127);
      }
      pids[p] = pid;
    }
    std::vector<Ended> ended(static_cast<std::size_t>(parties));
    std::set<int> alive;
    for (int p = 0; p < parties; ++p) alive.insert(p);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(bound);
    while (!alive.empty()) {
      for (auto it = alive.begin(); it != alive.end();) {
        int status = 0;
        if (waitpid(pids[*it], &status, WNOHANG) == pids[*it]) {
          ended[*it].exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
          ended[*it].signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
          it = alive.erase(it);
        } else {
          ++it;
        }
      }
      bool only_stuck = true;
      for (int p : alive) only_stuck = only_stuck && stuck.count(p) > 0;
      const bool late = std::chrono::steady_clock::now() > deadline;
      if (!alive.empty() && (only_stuck || late)) {
        for (int p : alive) {
          if (!stuck.count(p)) ended[p].killed_by_test = true;
          kill(pids[p], SIGKILL);
          int status = 0;
          waitpid(pids[p], &status, 0);
          ended[p].signal = SIGKILL;
        }
        alive.clear();
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    for (int p = 0; p < parties; ++p) {
      ended[p].out = Lines(ReadAll(run / ("out" + std::to_string(p))));
      ended[p].err = ReadAll(run / ("err" + std::to_string(p)));
      EXPECT_FALSE(ended[p].killed_by_test)
          << "party p" << p << " did not end within " << bound << " s; stderr:\n"
          << ended[p].err;
    }
    return ended;
  }

  std::vector<std::string> Tls() const { return {"--certs", (dir_ / "certs").string()}; }

  static fs::path dir_;
  static int runs_;
};
fs::path PartyProcesses::dir_;
int PartyProcesses::runs_ = 0;

// The serial engine on all nodes, written as a party of `parties` under `map` would write it.
struct Reference {
  rt::EngineResult result;
  std::vector<std::vector<double>> rows;
};

std::vector<int> AllNodes(int n) {
  std::vector<int> all(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) all[i] = i;
  return all;
}

template <class Program>
Reference SerialRun(const std::vector<std::unique_ptr<Program>>& owned, const rt::Topology& t,
                    std::int64_t rounds, std::int64_t stop_after) {
  auto programs = Pointers(owned);
  rt::EngineOptions o;
  o.kind = rt::EngineKind::kSerial;
  o.last_round = rounds;
  Recorder rec;
  rec.stop_after = stop_after;
  Reference ref;
  ref.result = rt::Run(programs, t, o, rec);
  ref.rows = rec.rows;
  return ref;
}

Reference Serial(const rt::Topology& t, std::int64_t rounds, std::size_t width,
                 std::vector<Fault> faults, std::int64_t stop_after) {
  return SerialRun(MakePrograms(AllNodes(t.num_nodes()), faults, width), t, rounds, stop_after);
}

std::string RoundLine(std::size_t round, const std::vector<double>& row,
                      const std::vector<int>& map, int party, std::size_t width) {
  std::string line = std::to_string(round);
  for (std::size_t k = 0; k < row.size(); ++k) {
    const int node = static_cast<int>(k / width);
    std::uint64_t bits = 0x7ff8000000000000ULL;  // the quiet NaN of rows hosted elsewhere
    if (map[node] == party) std::memcpy(&bits, &row[k], sizeof bits);
    char hex[24];
    std::snprintf(hex, sizeof hex, " %016" PRIx64, bits);
    line += hex;
  }
  return line;
}

// Every party's outcome and its hosted rows against the serial engine.
void ExpectSameAsSerial(const std::vector<Ended>& ended, const Reference& ref,
                        const std::vector<int>& map, std::size_t width) {
  for (std::size_t p = 0; p < ended.size(); ++p) {
    SCOPED_TRACE("party p" + std::to_string(p));
    const Ended& e = ended[p];
    ASSERT_EQ(e.exit_code, 0) << e.err;
    std::istringstream outcome(e.Line("outcome"));
    std::string name, kind;
    std::int64_t last = 0, round = 0;
    int node = 0, rank = 0;
    outcome >> name >> last >> node >> round >> kind >> rank;
    EXPECT_EQ(name, rt::ToString(ref.result.outcome));
    EXPECT_EQ(last, ref.result.last_reported_round);
    EXPECT_EQ(node, ref.result.failure.node);
    EXPECT_EQ(round, ref.result.failure.round);
    if (ref.result.outcome == rt::EngineOutcome::kFailed) {
      EXPECT_EQ(kind, rt::ToString(ref.result.failure.kind));
      EXPECT_EQ(rank, map[node]);
      if (map[node] == static_cast<int>(p)) {
        EXPECT_EQ(e.Line("message"), ref.result.failure.message);
      } else {
        EXPECT_NE(e.Line("message").find("details stay on party 'p" + std::to_string(map[node])),
                  std::string::npos)
            << e.Line("message");
      }
    }
    std::vector<std::string> rounds;
    for (const auto& l : e.out) {
      if (l.rfind("round ", 0) == 0) rounds.push_back(l.substr(6));
    }
    ASSERT_EQ(rounds.size(), ref.rows.size());
    for (std::size_t r = 0; r < rounds.size(); ++r) {
      EXPECT_EQ(rounds[r], RoundLine(r, ref.rows[r], map, static_cast<int>(p), width))
          << "round " << r;
    }
  }
}

std::vector<int> Contiguous(int n, int parties) { return rt::ContiguousNodeRanks(n, parties); }
std::vector<int> RoundRobin(int n, int parties) {
  std::vector<int> m(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) m[i] = i % parties;
  return m;
}

// Each distinct line of a party's log at most once ("refused and logged once").
void ExpectNoRepeatedLine(const Ended& e) {
  std::set<std::string> seen;
  for (const auto& l : Lines(e.err)) EXPECT_TRUE(seen.insert(l).second) << "repeated: " << l;
}

TEST_F(PartyProcesses, ThreePartiesGiveTheSerialEnginesBits) {
  const auto ref = Serial(RandomGraph(13, 2, 7), 30, 2, {}, -1);
  auto args = Tls();
  args.insert(args.end(), {"--nodes", "13", "--topology", "random", "--rounds", "30"});
  ExpectSameAsSerial(Launch(3, args), ref, Contiguous(13, 3), 2);
}

TEST_F(PartyProcesses, FivePartiesRoundRobinGiveTheSerialEnginesBits) {
  const auto ref = Serial(RandomGraph(13, 2, 7), 40, 2, {}, -1);
  auto args = Tls();
  args.insert(args.end(),
              {"--nodes", "13", "--topology", "random", "--rounds", "40", "--map", "roundrobin"});
  ExpectSameAsSerial(Launch(5, args), ref, RoundRobin(13, 5), 2);
}

// The parties start in any order (p0 last): the others dial with backoff until it is up.
TEST_F(PartyProcesses, PartiesMayStartInAnyOrder) {
  const auto ref = Serial(RandomGraph(9, 2, 7), 20, 2, {}, -1);
  auto args = Tls();
  args.insert(args.end(), {"--nodes", "9", "--rounds", "20"});
  ExpectSameAsSerial(Launch(3, args, {{0, {"--start-delay", "2"}}, {2, {"--start-delay", "1"}}}),
                     ref, Contiguous(9, 3), 2);
}

// Plaintext on loopback; party p1's sink stops after round 10: every party ends there.
TEST_F(PartyProcesses, InsecureLoopbackAndOnePartysStopEndsEveryParty) {
  const auto ref = Serial(Ring(7), 30, 2, {}, 10);
  ExpectSameAsSerial(Launch(3, {"--certs", "insecure", "--nodes", "7", "--topology", "ring"},
                            {{1, {"--stop-after", "10"}}}),
                     ref, Contiguous(7, 3), 2);
}

// A node fault on the last party: every party ends failed, naming node, party and round; the
// fault's text stays on its party.
TEST_F(PartyProcesses, NodeFaultEndsEveryPartyFailed) {
  const std::vector<Fault> faults = {{12, 9, Fault::kFail}};
  const auto ref = Serial(RandomGraph(13, 2, 7), 30, 2, faults, -1);
  auto args = Tls();
  args.insert(args.end(), {"--nodes", "13", "--fault", "12:9:fail"});
  ExpectSameAsSerial(Launch(3, args), ref, Contiguous(13, 3), 2);
}

void ExpectError(const Ended& e, const std::string& kind, const std::string& mentions) {
  EXPECT_EQ(e.exit_code, 3) << e.err;
  EXPECT_EQ(e.Line("error").substr(0, kind.size()), kind) << e.Line("error");
  EXPECT_NE(e.Line("message").find(mentions), std::string::npos) << e.Line("message");
}

// The sharing family (ADMM sharing and its DP version, simulation mode) over the network: the
// coordinator and each feature party in its own process, its programs built as the sharing
// driver builds them (sharing_programs.h); every process's rows equal the serial engine's.
class SharingProcesses : public PartyProcesses {
 protected:
  void ExpectSameAsSerialSharing(int processes, bool dp);
};

void SharingProcesses::ExpectSameAsSerialSharing(int processes, bool dp) {
  const int iterations = 12;
  dpadmm::partytest::SharingCase c(processes, dp, iterations);
  const auto ref = SerialRun(c.Programs(AllNodes(c.nodes())), c.Topology(), c.last_round(), -1);
  ASSERT_EQ(ref.result.outcome, rt::EngineOutcome::kCompleted) << ref.result.failure.message;
  ASSERT_EQ(ref.rows.size(), static_cast<std::size_t>(c.last_round() + 1));
  auto args = Tls();
  args.insert(args.end(),
              {"--nodes", std::to_string(processes), "--program", dp ? "sharing-dp" : "sharing",
               "--iterations", std::to_string(iterations)});
  ExpectSameAsSerial(Launch(processes, args), ref, Contiguous(processes, processes), c.width());
}

TEST_F(SharingProcesses, SharingThreeProcessesGiveTheSerialEnginesBits) {
  ExpectSameAsSerialSharing(3, false);
}
TEST_F(SharingProcesses, SharingFiveProcessesGiveTheSerialEnginesBits) {
  ExpectSameAsSerialSharing(5, false);
}
TEST_F(SharingProcesses, DpSharingThreeProcessesGiveTheSerialEnginesBits) {
  ExpectSameAsSerialSharing(3, true);
}
TEST_F(SharingProcesses, DpSharingFiveProcessesGiveTheSerialEnginesBits) {
  ExpectSameAsSerialSharing(5, true);
}

TEST_F(PartyProcesses, KilledPartyEndsTheOthersNamingIt) {
  auto args = Tls();
  // A dead party is told from a broken connection by its silence: the peer timeout.
  args.insert(args.end(),
              {"--nodes", "9", "--rounds", "1000", "--fault", "8:5:kill", "--peer-timeout", "4"});
  const auto ended = Launch(3, args);
  EXPECT_EQ(ended[2].signal, SIGKILL);
  for (int p : {0, 1}) ExpectError(ended[p], "peer_failed", "'p2'");
}

TEST_F(PartyProcesses, HungPartyEndsTheOthersByThePeerTimeout) {
  auto args = Tls();
  args.insert(args.end(),
              {"--nodes", "9", "--rounds", "1000", "--fault", "8:5:hang", "--peer-timeout", "3"});
  const auto ended = Launch(3, args, {}, {2});
  for (int p : {0, 1}) ExpectError(ended[p], "peer_failed", "'p2'");
}

// Set-up refusals of p1 (its certificate or its transport): p0 and p2 end at their set-up
// timeout naming p1, each distinct log line once; p1 ends with a set-up error too.
class Refusals : public PartyProcesses {
 protected:
  std::vector<Ended> RefuseP1(std::vector<std::string> p1_args) {
    auto args = Tls();
    args.insert(args.end(), {"--setup-timeout", "4"});
    auto ended = Launch(3, args, {{1, std::move(p1_args)}});
    for (int p : {0, 2}) {
      ExpectError(ended[p], "setup", "'p1'");
      ExpectNoRepeatedLine(ended[p]);
    }
    ExpectError(ended[1], "setup", "");
    return ended;
  }
};

TEST_F(Refusals, CertificateFromAnotherCa) {
  RefuseP1({"--cert", "foreign", "--ca", "foreign-ca"});
}

// p1 trusts the run's CA but presents a certificate from another CA (its own id): the others'
// servers end the TLS handshake, and p1 is told the likely cause, naming its certificate.
TEST_F(Refusals, CertificateFromAnotherCaIsNamedToItsParty) {
  const auto ended = RefuseP1({"--cert", "foreign"});
  EXPECT_NE(ended[1].Line("message").find("it most likely refused this party's certificate (not "
                                          "signed by the run's CA, expired, or its subject "
                                          "alternative name is not 'p1')"),
            std::string::npos)
      << ended[1].Line("message");
}

TEST_F(Refusals, ExpiredCertificate) {
  const auto ended = RefuseP1({"--cert", "expired"});
  EXPECT_NE(ended[1].Line("message").find("it most likely refused this party's certificate"),
            std::string::npos)
      << ended[1].Line("message");
}

TEST_F(Refusals, PlaintextClient) { RefuseP1({"--certs", "insecure"}); }

// A certificate of the run's CA whose SAN is not a party ("mallory"), presented by p1.
TEST_F(Refusals, UnknownIdIsLoggedOnce) {
  const auto ended = RefuseP1({"--cert", "mallory"});
  // p1 stops at the first party that refuses it (p0 or p2, whichever is up first); the other
  // refuses p1's certificate when it dials p1 (the SAN is not 'p1').
  const std::string refusal = "names 'mallory', not a peer of this run";
  EXPECT_TRUE(ended[0].err.find(refusal) != std::string::npos ||
              ended[2].err.find(refusal) != std::string::npos)
      << ended[0].err << ended[2].err;
  EXPECT_NE(ended[1].Line("message").find("refused this party"), std::string::npos)
      << ended[1].Line("message");
}

TEST_F(PartyProcesses, SpecMismatchIsRefusedOnBothSides) {
  auto args = Tls();
  args.insert(args.end(), {"--setup-timeout", "6"});
  const auto ended = Launch(3, args, {{1, {"--spec", "another spec"}}});
  for (int p : {0, 1, 2}) ExpectError(ended[p], "setup", "different spec");
}

// p1 breaks the protocol (tests/party/party_hostile.cpp); p0 ends the run naming it.
class HostilePeer : public PartyProcesses, public ::testing::WithParamInterface<const char*> {};

TEST_P(HostilePeer, IsRefusedNamingIt) {
  const std::string mode = GetParam();
  const std::map<std::string, std::string> expect = {
      {"wrong_round", "out of order (expected round 0)"},
      {"wrong_node", "is for edge 3 -> 1, expected 2 -> 1"},
      {"too_long", "message has 3 doubles, more than its 2"},
      {"nan", "= nan (not finite)"},
      {"missing", "1 messages, expected 2"},
      // gRPC ends a stream whose frame is over the limit: seen as a broken connection or as
      // a stream the peer closed, both failures of that peer.
      {"oversize", "party 'p1'"},
      {"ahead", "more than 16 rounds ahead"},
      // Round 0 sent again under its number with other noise: a release made twice.
      {"resend_other", "sent again with other contents than its first copy"},
      // Reconnections are rate-limited: a flood of Hellos cannot make p0 take streams (and
      // their buffers) without bound; a Hello of another process cannot rejoin a run.
      {"hello_flood", "reconnected more than 10 times at once"},
      {"new_session", "said Hello again as another process"}};
  auto args = Tls();
  // (A stream cut by gRPC, as an oversize frame's, waits the peer timeout for a reconnection.)
  args.insert(args.end(),
              {"--nodes", "4", "--topology", "ring", "--rounds", "30", "--peer-timeout", "5"});
  const auto ended = Launch(2, args, {{1, {"@hostile", "--certs", args[1], "--mode", mode}}});
  if (mode == "oversize") {
    // The hostile peer sends its frame as soon as its own set-up is done; when gRPC cuts that
    // stream before p0 has finished set-up (seen under load), p0 ends in set-up: either way the
    // run fails naming p1.
    const std::string kind = ended[0].Line("error");
    EXPECT_TRUE(kind.rfind("peer_failed p1", 0) == 0 || kind.rfind("setup p1", 0) == 0) << kind;
    EXPECT_EQ(ended[0].exit_code, 3) << ended[0].err;
    EXPECT_NE(ended[0].Line("message").find(expect.at(mode)), std::string::npos)
        << ended[0].Line("message");
  } else if (mode == "hello_flood" || mode == "new_session") {
    // Refused at its Hello: p0 ends the run with p1 as the failed peer.
    ExpectError(ended[0], "peer_failed p1", expect.at(mode));
  } else {
    ExpectError(ended[0], "protocol p1", expect.at(mode));
  }
  EXPECT_EQ(ended[1].exit_code, 0) << ended[1].err;
}

INSTANTIATE_TEST_SUITE_P(Modes, HostilePeer,
                         ::testing::Values("wrong_round", "wrong_node", "too_long", "nan",
                                           "missing", "oversize", "ahead", "resend_other",
                                           "hello_flood", "new_session"));

}  // namespace
