// SPDX-License-Identifier: Apache-2.0
// One party of a network-engine test run (launched by test_party_processes.cpp, one process per
// party, on 127.0.0.1): runs the deterministic test program of tests/mpi on the nodes its party
// hosts and writes what it saw to --out:
//
//   outcome <name> <last reported round> <failure node> <failure round> <failure kind> <rank>
//   message <failure message>
//   round <r> <hex bits of every report value, all nodes in node order>      (one per round)
//
// or, when the engine throws NetworkError, `error <kind> <peer>` and `message <what()>` (exit 3).
// Arguments (all --name value):
//   --party K  --ports P0,P1,..  --nodes N  --topology ring|star|random  --rounds R
//   --map contiguous|roundrobin  --width W  --certs DIR (or "insecure")  --cert NAME (the
//   certificate/key pair to present, default pK)  --spec TEXT (spec hash bytes, default "spec")
//   --fault node:round:fail|throw|kill|hang  --stop-after R  --peer-timeout S  --setup-timeout S
//   --start-delay S (sleeps before it starts)  --out FILE
//   --program toy|sharing|sharing-dp (default toy): sharing runs the sharing family's programs
//   of tests/party/sharing_programs.h on a star of --nodes nodes (coordinator + --nodes - 1
//   parties) for --iterations iterations (2 engine rounds each; --rounds and --topology are
//   ignored); sharing-dp its DP version (simulation mode).
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "../mpi/mpi_test_support.h"
#include "dpadmm/runtime/network.h"
#include "sharing_programs.h"

namespace rt = dpadmm::runtime;
using namespace dpadmm::mpitest;

namespace {

std::vector<std::string> Split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::size_t at = 0;
  for (;;) {
    const auto k = s.find(sep, at);
    out.push_back(s.substr(at, k == std::string::npos ? std::string::npos : k - at));
    if (k == std::string::npos) return out;
    at = k + 1;
  }
}

const char* KindName(rt::NetworkError::Kind k) {
  switch (k) {
    case rt::NetworkError::Kind::kConfig: return "config";
    case rt::NetworkError::Kind::kSetup: return "setup";
    case rt::NetworkError::Kind::kPeerFailed: return "peer_failed";
    case rt::NetworkError::Kind::kProtocol: return "protocol";
  }
  return "?";
}

}  // namespace

int main(int argc, char** argv) {
  std::map<std::string, std::string> a = {
      {"--party", "0"},         {"--nodes", "6"},          {"--topology", "random"},
      {"--rounds", "30"},       {"--map", "contiguous"},   {"--width", "2"},
      {"--certs", "insecure"},  {"--spec", "spec"},        {"--stop-after", "-1"},
      {"--peer-timeout", "20"}, {"--setup-timeout", "20"}, {"--out", "/dev/null"},
      {"--start-delay", "0"},   {"--program", "toy"},      {"--iterations", "12"}};
  std::vector<Fault> faults;
  for (int k = 1; k + 1 < argc; k += 2) {
    if (std::strcmp(argv[k], "--fault") == 0) {
      const auto f = Split(argv[k + 1], ':');
      const std::map<std::string, Fault::Kind> kinds = {{"fail", Fault::kFail},
                                                        {"throw", Fault::kThrow},
                                                        {"kill", Fault::kKill},
                                                        {"hang", Fault::kHang}};
      faults.push_back({std::stoi(f.at(0)), std::stoll(f.at(1)), kinds.at(f.at(2))});
    } else {
      a[argv[k]] = argv[k + 1];
    }
  }
  const int party = std::stoi(a["--party"]);
  const int n = std::stoi(a["--nodes"]);
  const auto ports = Split(a.at("--ports"), ',');
  const int parties = static_cast<int>(ports.size());

  const bool sharing = a["--program"] != "toy";
  std::unique_ptr<dpadmm::partytest::SharingCase> sharing_case;
  if (sharing) {
    sharing_case = std::make_unique<dpadmm::partytest::SharingCase>(
        n, a["--program"] == "sharing-dp", std::stoi(a["--iterations"]));
  }
  rt::Topology topology = sharing                     ? sharing_case->Topology()
                          : a["--topology"] == "ring" ? Ring(n)
                          : a["--topology"] == "star" ? Star(n)
                                                      : RandomGraph(n, 2, 7);
  rt::NetworkOptions o;
  o.self = "p" + std::to_string(party);
  for (int p = 0; p < parties; ++p) {
    o.parties.push_back({"p" + std::to_string(p), "127.0.0.1:" + ports[p]});
  }
  o.node_parties =
      a["--map"] == "roundrobin" ? std::vector<int>(n) : rt::ContiguousNodeRanks(n, parties);
  if (a["--map"] == "roundrobin") {
    for (int i = 0; i < n; ++i) o.node_parties[i] = i % parties;
  }
  o.spec_hash.assign(a["--spec"].begin(), a["--spec"].end());
  o.setup_timeout_seconds = std::stod(a["--setup-timeout"]);
  o.peer_timeout_seconds = std::stod(a["--peer-timeout"]);
  if (a["--certs"] == "insecure") {
    o.insecure = true;
  } else {
    const std::string dir = a["--certs"] + "/";
    const std::string name = a.count("--cert") ? a["--cert"] : o.self;
    o.tls = {dir + (a.count("--ca") ? a["--ca"] : std::string("ca")) + ".pem", dir + name + ".pem",
             dir + name + ".key"};
  }

  if (sharing) o.max_message_doubles = sharing_case->max_message_doubles();
  const std::vector<int> hosted = rt::PartyNodes(o.node_parties, party);
  std::vector<std::unique_ptr<rt::NodeProgram>> owned;
  if (sharing) {
    owned = sharing_case->Programs(hosted);
  } else {
    for (auto& p : MakePrograms(hosted, faults, std::stoul(a["--width"]))) {
      owned.push_back(std::move(p));
    }
  }
  auto programs = Pointers(owned);
  rt::EngineOptions e;
  e.last_round = sharing ? sharing_case->last_round() : std::stoll(a["--rounds"]);
  Recorder recorder;
  recorder.stop_after = std::stoll(a["--stop-after"]);

  std::this_thread::sleep_for(std::chrono::duration<double>(std::stod(a["--start-delay"])));
  std::ofstream out(a["--out"]);
  try {
    const rt::EngineResult r = rt::RunNetwork(programs, topology, e, o, recorder);
    out << "outcome " << rt::ToString(r.outcome) << ' ' << r.last_reported_round << ' '
        << r.failure.node << ' ' << r.failure.round << ' ' << rt::ToString(r.failure.kind) << ' '
        << r.failure.rank << '\n'
        << "message " << r.failure.message << '\n';
    for (std::size_t round = 0; round < recorder.rows.size(); ++round) {
      out << "round " << round;
      for (double v : recorder.rows[round]) {
        std::uint64_t bits;
        std::memcpy(&bits, &v, sizeof bits);
        char hex[24];
        std::snprintf(hex, sizeof hex, " %016" PRIx64, bits);
        out << hex;
      }
      out << '\n';
    }
    return 0;
  } catch (const rt::NetworkError& err) {
    out << "error " << KindName(err.kind()) << ' ' << (err.peer().empty() ? "-" : err.peer())
        << '\n'
        << "message " << err.what() << '\n';
    std::fprintf(stderr, "party p%d: %s\n", party, err.what());
    return 3;
  }
}
