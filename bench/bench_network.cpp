// SPDX-License-Identifier: Apache-2.0
// The network engine against the MPI, TBB and serial engines on the same node programs, one
// process per party on 127.0.0.1 (bench/network_bench.py launches the processes, alternates the
// engines repetition by repetition and prints the medians; see bench/README.md, "bench_network").
//
//   --case adult  UCI Adult, N = 5 nodes, the real consensus-ADMM node programs (the default
//                 algorithm, built by MakeConsensusNode as the consensus driver builds them:
//                 bench_round's set-up, random graph of 7 edges, C = 1750, rho = 0.22, eta = 0.1),
//                 messages of 104 doubles. Every process loads the whole file (a benchmark, not a
//                 deployment) and builds only its own nodes. --algorithm selects the programs:
//                   admm        the default above (non-private);
//                   dvp         004's dynamic variable perturbation as the consensus driver builds
//                               its nodes (NodeParams): the same data, graph, C and rho, with dvp's
//                               defaults alpha = 0.15 (q2 = 1) and eta = 30, in simulation mode
//                               (noise seed 7: reproducible noise, not private);
//                   sharing-dp  001's ADMM sharing with the Gaussian mechanism (programs.h) as
//                               the sharing driver builds it: node 0 the coordinator (the
//                               labels), nodes 1-4 the feature parties (Adult's columns split
//                               evenly), on a star; rho = 1e-5, lambda = 1e-4, total epsilon 2 at
//                               delta 1e-5 per party over the run, b1 = 100, simulation mode
//                               (noise seed 7). One ADMM iteration is two rounds (--rounds must
//                               be even); the coordinator sends 2 x 30 162 doubles (Adult's
//                               training rows), a party 30 162.
//   --case ring   a ring of --nodes nodes (default 20) running the averaging program of the MPI
//                 tests and bench_mpi (tests/mpi/mpi_test_support.h), messages of --width doubles.
//
// One process runs one engine: --engine serial|tbb (all nodes in this process), mpi (under
// mpirun: contiguous blocks of nodes per rank) or network (--party K of --ports P0,P1,..: party K
// listens on 127.0.0.1:PK and is dialled at --dial D0,D1,.. when given, e.g. a relay's ports
// (tests/party/relay.py); contiguous blocks; --certs DIR with DIR/ca.pem, pK.pem, pK.key, or
// --certs insecure). The reporting process (in-process engines, MPI rank 0, network party 0)
// prints
//
//   result engine=E processes=P case=C nodes=N rounds=R us_per_round=X total_s=T same_bits=B
//
// where us_per_round is the steady-state time per round at the sink, (t(R) - t(W)) / (R - W)
// with W = --warmup (default 20, beyond the network engine's 16 rounds of lead), total_s the
// whole engine call (set-up included), and same_bits whether the rows this process saw equal the
// serial engine's (run afterwards in the same process; --check 0 skips it). Every process prints
// `cpu us_per_round=X`: its CPU time (user + system, all threads) over the whole engine call
// (set-up included) per round. Every network party also prints
//
//   wire party=K payload_per_round=A sent_per_round=S received_per_round=Q
//
// A: bytes of released messages this party sends to other parties per round (edges that cross,
// times the message length, times 8; sharing-dp: averaged over the two rounds of an iteration);
// S, Q: TCP payload bytes (gRPC, HTTP/2 and, with TLS, the records' overhead) sent and received
// per round over rounds W..R, from TCP_INFO of the process's sockets (tcpi_bytes_acked,
// tcpi_bytes_received): what crosses the wire beside the TCP/IP headers.
#include <linux/tcp.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "../tests/mpi/mpi_test_support.h"
#include "../tests/party/sharing_programs.h"
#include "adult_round_spec.h"
#include "consensus/consensus_admm.h"
#include "dpadmm/run/run.h"
#include "dpadmm/runtime/engine.h"
#include "dpadmm/runtime/mpi.h"
#include "dpadmm/runtime/network.h"

namespace rt = dpadmm::runtime;
using namespace dpadmm::mpitest;

namespace {

using Clock = std::chrono::steady_clock;

// TCP payload bytes this process has sent (acknowledged) and received over all its TCP sockets.
struct WireBytes {
  std::uint64_t sent = 0, received = 0;
};
WireBytes ReadWireBytes() {
  WireBytes w;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/proc/self/fd", ec)) {
    int fd = -1;
    try {
      fd = std::stoi(entry.path().filename().string());
    } catch (const std::exception&) {
      continue;
    }
    tcp_info info{};
    socklen_t len = sizeof info;
    if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &info, &len) != 0) continue;  // not TCP
    w.sent += info.tcpi_bytes_acked;
    w.received += info.tcpi_bytes_received;
  }
  return w;
}

// CPU seconds (user + system, all threads) of this process so far.
double CpuSeconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  const auto s = [](const timeval& t) { return static_cast<double>(t.tv_sec) + 1e-6 * t.tv_usec; };
  return s(u.ru_utime) + s(u.ru_stime);
}

// Times the rounds at the sink, snapshots the wire counters at the warm-up round and the last
// one, and hashes the rows of the nodes this process hosts (FNV-1a over their bits, every round).
struct TimingSink : rt::RoundSink {
  std::vector<int> hosted;
  std::int64_t warmup = 0, last = 0;
  bool wire = false;
  Clock::time_point t_warmup, t_last;
  WireBytes w_warmup, w_last;
  std::uint64_t hash = 1469598103934665603ULL;
  bool OnRound(std::int64_t round, const rt::ReportTable& t) override {
    for (int i : hosted) {
      for (double v : t[i]) {
        std::uint64_t bits;
        std::memcpy(&bits, &v, sizeof bits);
        hash = (hash ^ bits) * 1099511628211ULL;
      }
    }
    if (round == warmup || round == last) {
      (round == warmup ? t_warmup : t_last) = Clock::now();
      if (wire) (round == warmup ? w_warmup : w_last) = ReadWireBytes();
    }
    return true;
  }
};

struct Args {
  std::map<std::string, std::string> v = {
      {"--case", "ring"},  {"--nodes", "20"},       {"--width", "2"},   {"--rounds", "2000"},
      {"--engine", "tbb"}, {"--threads", "2"},      {"--warmup", "20"}, {"--party", "0"},
      {"--ports", ""},     {"--certs", "insecure"}, {"--check", "1"},   {"--data", ""},
      {"--dial", ""},      {"--algorithm", "admm"}};
  std::string operator[](const std::string& k) const { return v.at(k); }
  int Int(const std::string& k) const { return std::stoi(v.at(k)); }
};

std::vector<std::string> SplitComma(const std::string& s) {
  std::vector<std::string> out;
  std::size_t at = 0;
  while (at <= s.size()) {
    const auto k = s.find(',', at);
    out.push_back(s.substr(at, k == std::string::npos ? std::string::npos : k - at));
    if (k == std::string::npos) break;
    at = k + 1;
  }
  return out;
}

// The noise seed of the private algorithms' simulation mode.
constexpr std::uint64_t kNoiseSeed = 7;

// The Adult case: the data, graph and partition of bench_round's spec; node programs built as
// the consensus driver builds consensus-ADMM nodes (admm: non-private; dvp: simulation mode;
// zero start).
class AdultCase {
 public:
  AdultCase(const std::string& data_dir, std::int64_t rounds, bool dvp) {
    dpadmm::RunSpec spec = dpadmm::bench::AdultRoundSpec(data_dir, static_cast<int>(rounds));
    if (dvp) {
      const dpadmm::RunSpec defaults = dpadmm::RunSpec::Defaults(dpadmm::Algorithm::kDvp);
      spec.algorithm.params = defaults.algorithm.params;  // alpha = 0.15, q2 = 1
      spec.algorithm.eta = defaults.algorithm.eta;        // 30
      spec.noise_seed = kNoiseSeed;
    }
    experiment_ = std::make_unique<dpadmm::Experiment>(std::move(spec));
    const auto& partition = experiment_->partition();
    for (const auto& rows : partition) slices_.push_back(experiment_->train().Subset(rows));
    topology_.neighbors = experiment_->graph().adjacency();
  }
  const rt::Topology& topology() const { return topology_; }
  std::int64_t features() const { return experiment_->info().features; }
  std::vector<std::unique_ptr<rt::NodeProgram>> Programs(const std::vector<int>& nodes) const {
    const dpadmm::RunSpec& s = experiment_->spec();
    const int n = experiment_->graph().num_nodes();
    std::vector<std::unique_ptr<rt::NodeProgram>> out;
    for (int i : nodes) {
      dpadmm::ConsensusNodeParams p;
      p.variant = dpadmm::ConsensusVariant::kAdmm;
      p.C = s.algorithm.C;
      p.rho_node = s.algorithm.rho / n;
      p.num_nodes = n;
      p.eta = s.algorithm.eta;
      if (s.algorithm.name() == dpadmm::Algorithm::kDvp) {
        const auto& dvp = s.algorithm.As<dpadmm::DvpParams>();
        p.variant = dpadmm::ConsensusVariant::kDvp;
        p.alpha = dvp.alpha;
        p.q2 = dvp.q2;
        p.noise_seed = s.noise_seed;
      }
      dpadmm::NewtonOptions newton = s.newton;
      newton.borrow_rows = true;  // the slices outlive the programs
      out.push_back(dpadmm::MakeConsensusNode(i, slices_[i], experiment_->graph().degree(i), s.loss,
                                              newton, p,
                                              Eigen::VectorXd::Zero(experiment_->info().features)));
    }
    return out;
  }

 private:
  std::unique_ptr<dpadmm::Experiment> experiment_;
  std::vector<dpadmm::Dataset> slices_;
  rt::Topology topology_;
};

// DP ADMM sharing on Adult: the sharing driver's programs (tests/party/sharing_programs.h) on
// the spec below, with rounds / 2 iterations.
std::unique_ptr<dpadmm::partytest::SharingCase> AdultSharing(const std::string& data_dir,
                                                             std::int64_t rounds) {
  if (rounds % 2 != 0) throw std::invalid_argument("--rounds must be even for sharing-dp");
  dpadmm::RunSpec spec = dpadmm::RunSpec::Defaults(dpadmm::Algorithm::kSharing);
  spec.data = dpadmm::bench::AdultRoundSpec(data_dir, 1).data;
  auto& sp = spec.algorithm.As<dpadmm::SharingParams>();
  sp.parties = dpadmm::bench::kAdultRoundNodes - 1;
  sp.rho = 1e-5;  // about 0.3 / N for Adult's N = 30 162 training rows (run_spec.h)
  sp.dp = true;   // mechanism "gaussian", total_epsilon 2, delta 1e-5, b1 = 100 (defaults)
  spec.iterations = static_cast<int>(rounds / 2);
  spec.noise_seed = kNoiseSeed;
  spec.compute_optimum = false;
  return std::make_unique<dpadmm::partytest::SharingCase>(std::move(spec));
}

// Runs `nodes` of the case on one engine call; returns the engine's seconds.
struct Bench {
  const Args& args;
  std::unique_ptr<AdultCase> adult;
  std::unique_ptr<dpadmm::partytest::SharingCase> sharing;
  rt::Topology ring;
  std::size_t width = 0;

  explicit Bench(const Args& a) : args(a) {
    if (a["--case"] == "adult") {
      std::string dir = a["--data"];
      if (dir.empty()) dir = std::getenv("DPADMM_DATA") ? std::getenv("DPADMM_DATA") : "";
      if (dir.empty()) dir = DPADMM_SHARED_DATA;
      const std::string algorithm = a["--algorithm"];
      if (algorithm == "sharing-dp") {
        sharing = AdultSharing(dir, a.Int("--rounds"));
        ring = sharing->Topology();
      } else if (algorithm == "admm" || algorithm == "dvp") {
        adult = std::make_unique<AdultCase>(dir, a.Int("--rounds"), algorithm == "dvp");
      } else {
        throw std::invalid_argument("--algorithm must be admm, dvp or sharing-dp, not " +
                                    algorithm);
      }
    } else if (a["--case"] == "ring") {
      ring = Ring(a.Int("--nodes"));
      width = static_cast<std::size_t>(a.Int("--width"));
    } else {
      throw std::invalid_argument("--case must be adult or ring, not " + a["--case"]);
    }
  }
  // The sharing case's star is kept in `ring`.
  const rt::Topology& topology() const { return adult ? adult->topology() : ring; }
  std::vector<std::unique_ptr<rt::NodeProgram>> Programs(const std::vector<int>& nodes) const {
    if (adult) return adult->Programs(nodes);
    if (sharing) return sharing->Programs(nodes);
    auto toy = MakePrograms(nodes, {}, width);
    std::vector<std::unique_ptr<rt::NodeProgram>> out;
    for (auto& p : toy) out.push_back(std::move(p));
    return out;
  }
  // The doubles node `from` sends a neighbour per round, on average: consensus, one model per
  // round; sharing, every other round (the coordinator [s - z; y], 2N; a party its share, N).
  double MessageDoubles(int from) const {
    if (sharing) {
      const auto longest = static_cast<double>(sharing->max_message_doubles());
      return from == 0 ? longest / 2 : longest / 4;
    }
    return static_cast<double>(adult ? adult->features() : static_cast<std::int64_t>(width));
  }
  // The longest message any node sends (0: the engine's default).
  std::size_t MaxMessageDoubles() const { return sharing ? sharing->max_message_doubles() : 0; }
};

std::vector<int> AllNodes(int n) {
  std::vector<int> out;
  for (int i = 0; i < n; ++i) out.push_back(i);
  return out;
}

// The serial engine's hash of the same rows (the reference for same_bits).
std::uint64_t SerialHash(const Bench& b, const std::vector<int>& hosted, std::int64_t rounds) {
  auto owned = b.Programs(AllNodes(b.topology().num_nodes()));
  const auto programs = Pointers(owned);
  rt::EngineOptions o;
  o.kind = rt::EngineKind::kSerial;
  o.last_round = rounds;
  TimingSink sink;
  sink.hosted = hosted;
  if (rt::Run(programs, b.topology(), o, sink).outcome != rt::EngineOutcome::kCompleted) {
    throw std::runtime_error("the serial reference run did not complete");
  }
  return sink.hash;
}

int RunMain(int argc, char** argv) {
  Args a;
  for (int k = 1; k + 1 < argc; k += 2) {
    if (a.v.count(argv[k]) == 0)
      throw std::invalid_argument(std::string("unknown flag ") + argv[k]);
    a.v[argv[k]] = argv[k + 1];
  }
  const std::string engine = a["--engine"];
  std::unique_ptr<rt::MpiSession> mpi;
  if (engine == "mpi") mpi = std::make_unique<rt::MpiSession>(&argc, &argv);
  const Bench b(a);
  const int n = b.topology().num_nodes();
  const std::int64_t rounds = a.Int("--rounds");

  TimingSink sink;
  sink.warmup = a.Int("--warmup");
  sink.last = rounds;
  if (sink.warmup >= rounds) throw std::invalid_argument("--warmup must be below --rounds");
  rt::EngineOptions o;
  o.last_round = rounds;
  o.threads = a.Int("--threads");
  int processes = 1;
  bool reporting = true;
  std::vector<int> hosted;
  std::vector<int> map;
  rt::NetworkOptions net;
  if (engine == "serial" || engine == "tbb" || engine == "mpi") {
    o.kind = engine == "serial" ? rt::EngineKind::kSerial
             : engine == "tbb"  ? rt::EngineKind::kTbb
                                : rt::EngineKind::kMpi;
    if (mpi) {
      processes = mpi->size();
      reporting = mpi->rank() == 0;
      hosted = rt::LocalNodes(rt::ContiguousNodeRanks(n, processes), mpi->rank());
    } else {
      hosted = AllNodes(n);
    }
    sink.hosted = reporting ? AllNodes(n) : std::vector<int>{};
  } else if (engine == "network") {
    const auto ports = SplitComma(a["--ports"]);
    processes = static_cast<int>(ports.size());
    const int party = a.Int("--party");
    reporting = party == 0;
    net.self = "p" + std::to_string(party);
    // --dial: the ports the others dial (a relay's, forwarding to --ports); default --ports.
    const auto dial = a["--dial"].empty() ? ports : SplitComma(a["--dial"]);
    if (dial.size() != ports.size()) throw std::invalid_argument("--dial: one port per party");
    for (int p = 0; p < processes; ++p) {
      net.parties.push_back(
          {"p" + std::to_string(p), "127.0.0.1:" + dial[p], "127.0.0.1:" + ports[p]});
    }
    net.node_parties = rt::ContiguousNodeRanks(n, processes);
    map = net.node_parties;
    net.spec_hash = {'b', 'e', 'n', 'c', 'h'};
    net.max_message_doubles = b.MaxMessageDoubles();
    if (a["--certs"] == "insecure") {
      net.insecure = true;
    } else {
      const std::string dir = a["--certs"] + "/";
      net.tls = {dir + "ca.pem", dir + net.self + ".pem", dir + net.self + ".key"};
    }
    hosted = rt::PartyNodes(net.node_parties, party);
    sink.hosted = hosted;
    sink.wire = true;
  } else {
    throw std::invalid_argument("--engine must be serial, tbb, mpi or network, not " + engine);
  }

  auto owned = b.Programs(hosted);
  const auto programs = Pointers(owned);
  const double cpu_start = CpuSeconds();
  const auto start = Clock::now();
  const rt::EngineResult r = engine == "network"
                                 ? rt::RunNetwork(programs, b.topology(), o, net, sink)
                                 : rt::Run(programs, b.topology(), o, sink);
  const double total = std::chrono::duration<double>(Clock::now() - start).count();
  const double cpu = CpuSeconds() - cpu_start;
  if (r.outcome != rt::EngineOutcome::kCompleted) {
    std::fprintf(stderr, "run ended %s: %s\n", rt::ToString(r.outcome), r.failure.message.c_str());
    return 1;
  }
  const double span = static_cast<double>(rounds - sink.warmup);
  std::printf("cpu us_per_round=%.2f\n", 1e6 * cpu / static_cast<double>(rounds + 1));
  if (engine == "network") {
    // The released bytes this party sends per round: one message per edge leaving it.
    const int party = a.Int("--party");
    double crossing = 0;  // doubles per round
    for (int i : hosted)
      for (int j : b.topology().neighbors[i]) crossing += map[j] != party ? b.MessageDoubles(i) : 0;
    std::printf(
        "wire party=%d payload_per_round=%llu sent_per_round=%.1f received_per_round=%.1f\n", party,
        static_cast<unsigned long long>(crossing * sizeof(double)),
        static_cast<double>(sink.w_last.sent - sink.w_warmup.sent) / span,
        static_cast<double>(sink.w_last.received - sink.w_warmup.received) / span);
  }
  if (!reporting) return 0;
  const char* same = "unchecked";
  if (a.Int("--check") != 0) same = SerialHash(b, sink.hosted, rounds) == sink.hash ? "1" : "0";
  std::printf(
      "result engine=%s processes=%d case=%s nodes=%d rounds=%lld us_per_round=%.2f "
      "total_s=%.4f same_bits=%s\n",
      engine.c_str(), processes, a["--case"].c_str(), n, static_cast<long long>(rounds),
      1e6 * std::chrono::duration<double>(sink.t_last - sink.t_warmup).count() / span, total, same);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return RunMain(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_network: %s\n", e.what());
    return 2;
  }
}
