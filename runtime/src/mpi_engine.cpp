// SPDX-License-Identifier: Apache-2.0
// The MPI engine. Each rank runs its own nodes round by round; node i's round r needs only its
// neighbours' round r-1 messages, so a rank waits only for the ranks hosting neighbours of its
// nodes (no global barrier):
//
//   round r:  wait for every peer's packed round r-1 message
//             step the boundary nodes (those with a remote neighbour), pack and Isend their
//             messages to each peer, re-post the receive buffer just consumed
//             step the interior nodes (overlapping the peers' communication)
//             send the round's reports (and the lowest local failure) to rank 0
//
// A rank is never more than one round ahead of a peer (it needs the peer's previous message),
// so two send and two receive buffers per peer (round parity) suffice. Rank 0 assembles the
// reports of all ranks per round in node order and calls the sink in round order; it alone
// decides how the run ends (completed, sink stop, cancellation, failure at the lowest (round,
// node)) and sends that outcome to every rank. When the outcome is decided every rank has
// completed the decisive round, so the others simply stop. Then a drain phase tells each peer
// how many packed messages were sent, so that every send meets its receive and every extra
// pre-posted receive is cancelled: the communicator is left clean and can be freed. While the
// outcome is pending, rank 0 sends every rank an empty heartbeat each quarter of the peer
// timeout, so a rank with nothing left to do can tell a long run from a dead rank 0.
//
// Intra-rank messages go through SPSC channels exactly as in the other engines; node programs
// see the same inputs in the same order, so reports are bit-identical to the serial engine's.
#include "mpi_engine.h"

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <exception>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "dpadmm/runtime/mpi.h"
#include "dpadmm/runtime/spsc_channel.h"
#include "mpi_parallel.h"
#include "node_calls.h"

namespace dpadmm::runtime {
namespace detail {

MpiLayout::MpiLayout(const Topology& topology, const std::vector<int>& node_ranks, int self,
                     const std::vector<std::size_t>& max_message_size)
    : rank(self), local(LocalNodes(node_ranks, self)), local_index(node_ranks.size(), -1) {
  for (std::size_t a = 0; a < local.size(); ++a) local_index[local[a]] = static_cast<int>(a);
  // Peer ranks in increasing order; for each, the nodes on both sides of the cut.
  std::map<int, PeerLink> links;
  for (int i : local) {
    for (int j : topology.neighbors[i]) {
      const int q = node_ranks[j];
      if (q == self) continue;
      PeerLink& l = links[q];
      l.rank = q;
      if (l.send_nodes.empty() || l.send_nodes.back() != i) l.send_nodes.push_back(i);
      l.recv_nodes.push_back(j);
    }
  }
  for (auto& [q, l] : links) {
    std::sort(l.recv_nodes.begin(), l.recv_nodes.end());
    l.recv_nodes.erase(std::unique(l.recv_nodes.begin(), l.recv_nodes.end()), l.recv_nodes.end());
    l.send_capacity = 1 + l.send_nodes.size();
    for (int i : l.send_nodes) l.send_capacity += max_message_size[i];
    l.recv_capacity = 1 + l.recv_nodes.size();
    for (int j : l.recv_nodes) l.recv_capacity += max_message_size[j];
    peers.push_back(std::move(l));
  }
  std::map<int, int> peer_index;
  for (std::size_t p = 0; p < peers.size(); ++p) peer_index[peers[p].rank] = static_cast<int>(p);
  sources.resize(local.size());
  for (std::size_t a = 0; a < local.size(); ++a) {
    bool remote = false;
    for (int j : topology.neighbors[local[a]]) {
      InboxSource s;
      if (node_ranks[j] != self) {
        s.peer = peer_index[node_ranks[j]];
        const auto& recv = peers[s.peer].recv_nodes;
        s.slot = static_cast<int>(std::lower_bound(recv.begin(), recv.end(), j) - recv.begin());
        remote = true;
      }
      sources[a].push_back(s);
    }
    (remote ? boundary : interior).push_back(static_cast<int>(a));
  }
}

namespace {

constexpr int kDataTag = 101;       // packed node messages between peers
constexpr int kReportTag = 102;     // a rank's reports of one round, to rank 0
constexpr int kOutcomeTag = 103;    // rank 0's decision, to every rank
constexpr int kFinTag = 104;        // drain: number of packed messages sent to a peer
constexpr int kReportFinTag = 105;  // drain: number of reports (and cancel requests) sent to 0
constexpr int kCancelTag = 106;     // a StopToken triggered on a rank other than 0
constexpr int kAbortTag = 107;      // an engine error: every rank throws
constexpr int kHeartbeatTag = 108;  // rank 0 is alive and the run goes on (empty message)

using Clock = std::chrono::steady_clock;

MPI_Comm ToComm(MpiComm c) {
  return c.comm != nullptr ? *static_cast<const MPI_Comm*>(c.comm) : MPI_COMM_WORLD;
}

// Plain Isend/Irecv send exactly the packed length; persistent requests (MPI_Send_init) fix the
// count at set-up, so they always send the full capacity. runtime/README.md compares them.
bool PersistentFromEnv() {
  const char* v = std::getenv("DPADMM_MPI_REQUESTS");
  return v != nullptr && std::string(v) == "persistent";
}

void ValidateTopology(const Topology& topology) {
  const int n = topology.num_nodes();
  if (n == 0) throw std::invalid_argument("topology has no nodes");
  for (int i = 0; i < n; ++i) {
    for (int j : topology.neighbors[i]) {
      if (j < 0 || j >= n || j == i) {
        throw std::invalid_argument("node " + std::to_string(i) + " has invalid neighbour " +
                                    std::to_string(j));
      }
      const auto& back = topology.neighbors[j];
      if (std::find(back.begin(), back.end(), i) == back.end()) {
        throw std::invalid_argument("topology is not symmetric: " + std::to_string(i) + " -> " +
                                    std::to_string(j) + " has no reverse edge");
      }
    }
  }
}

// Byte buffers with int64 header fields.
void PutI64(std::vector<char>& b, std::int64_t v) {
  const std::size_t at = b.size();
  b.resize(at + sizeof v);
  std::memcpy(b.data() + at, &v, sizeof v);
}
std::int64_t GetI64(const std::vector<char>& b, std::size_t& at) {
  std::int64_t v = 0;
  if (at + sizeof v > b.size()) throw std::logic_error("truncated MPI engine message");
  std::memcpy(&v, b.data() + at, sizeof v);
  at += sizeof v;
  return v;
}

class MpiRun {
 public:
  MpiRun(std::span<NodeProgram* const> programs, const Topology& topology,
         const EngineOptions& options, RoundSink& sink, MPI_Comm user_comm)
      : programs_(programs),
        topology_(topology),
        options_(options),
        sink_(sink),
        n_(topology.num_nodes()),
        persistent_(PersistentFromEnv()) {
    int initialized = 0;
    MPI_Initialized(&initialized);
    if (!initialized) throw std::invalid_argument("engine 'mpi': MPI is not initialised");
    MPI_Comm_rank(user_comm, &rank_);
    MPI_Comm_size(user_comm, &size_);
    ValidateTopology(topology);
    node_ranks_ = options.node_ranks.empty() ? ContiguousNodeRanks(n_, size_) : options.node_ranks;
    if (static_cast<int>(node_ranks_.size()) != n_) {
      throw std::invalid_argument("node-to-rank map has " + std::to_string(node_ranks_.size()) +
                                  " entries for " + std::to_string(n_) + " nodes");
    }
    for (int i = 0; i < n_; ++i) {
      if (node_ranks_[i] < 0 || node_ranks_[i] >= size_) {
        throw std::invalid_argument("node-to-rank map: node " + std::to_string(i) + " on rank " +
                                    std::to_string(node_ranks_[i]) + ", but the job has " +
                                    std::to_string(size_) + " ranks");
      }
    }
    if (options.last_round < 0) throw std::invalid_argument("last_round must be >= 0");
    if (options.channel_capacity < 2) throw std::invalid_argument("channel_capacity must be >= 2");
    if (!(options.peer_timeout_seconds > 0)) {
      throw std::invalid_argument("peer_timeout_seconds must be > 0");
    }
    // Our own communicator: our tags cannot meet the caller's messages, and errors come back
    // as codes (MPI_ERRORS_RETURN) instead of aborting, so they can be named.
    if (MPI_Comm_dup(user_comm, &comm_) != MPI_SUCCESS) throw MpiError("MPI_Comm_dup failed");
    MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
    try {
      Gather();
    } catch (const std::invalid_argument&) {
      MPI_Comm_free(&comm_);  // every rank throws here, so the collective free matches
      throw;
    }
    layout_ = std::make_unique<MpiLayout>(topology, node_ranks_, rank_, max_message_size_);
    for (int p = 0; p < size_; ++p) nodes_of_rank_.push_back(LocalNodes(node_ranks_, p));
    pool_ = std::make_unique<LocalPool>(options.threads);
    timeout_ = std::chrono::duration_cast<Clock::duration>(
        std::chrono::duration<double>(options.peer_timeout_seconds));
  }

  EngineResult Execute() {
    Wire();
    for (std::int64_t r = 0; r <= options_.last_round && !Done() && !local_failed_; ++r) {
      RunRound(r);
      Poll();
      if (options_.stop != nullptr && options_.stop->stop_requested()) RequestCancel();
      if (cancel_sent_) break;
    }
    // Wait for rank 0's decision (rank 0: until it can decide).
    Wait([&] { return Done(); }, [&] { return AwaitingOutcome(); }, /*progress_resets=*/true);
    Drain();
    MPI_Comm_free(&comm_);
    return result_;
  }

 private:
  struct Buffer {
    std::vector<double> data;
    MPI_Request request = MPI_REQUEST_NULL;
    std::int64_t round = -1;  // round the buffer holds or receives
    bool active = false;      // a request is in flight
  };
  struct Peer {
    Buffer send[2];
    Buffer recv[2];
    std::vector<std::span<const double>> views[2];  // per received buffer: slot -> message
    std::int64_t sent = 0;                          // packed messages sent (rounds 0..sent-1)
    std::int64_t next_post = 0;                     // next round whose receive is to be posted
    std::int64_t peer_sent = -1;                    // drain: what the peer says it sent
  };
  struct Assembly {  // rank 0: one round in the making
    std::vector<double> table;
    std::vector<char> from;  // from[p]: rank p's rows are in
    int ranks = 0;
    NodeFailure failure;
    bool failed = false;
  };

  // ---- set-up -------------------------------------------------------------------------------

  // Checks the local programs and learns every node's MaxMessageSize and the report width.
  // Each rank contributes (error code, local count, report size); everyone sees the same table,
  // so every rank throws the same invalid_argument.
  void Gather() {
    const std::vector<int> local = LocalNodes(node_ranks_, rank_);
    std::int64_t code = 0, width = 0;
    if (programs_.size() != local.size()) {
      code = 1;
    } else {
      for (NodeProgram* p : programs_) code = p == nullptr ? 2 : code;
      if (code == 0 && !programs_.empty()) {
        width = static_cast<std::int64_t>(programs_[0]->ReportSize());
        for (NodeProgram* p : programs_) {
          if (static_cast<std::int64_t>(p->ReportSize()) != width) code = 3;
        }
        if (width == 0) code = 4;
      }
    }
    std::int64_t mine[3] = {code, static_cast<std::int64_t>(programs_.size()), width};
    std::vector<std::int64_t> all(3 * static_cast<std::size_t>(size_));
    Check(MPI_Allgather(mine, 3, MPI_INT64_T, all.data(), 3, MPI_INT64_T, comm_), "MPI_Allgather",
          -1);
    std::int64_t agreed = 0;
    for (int p = 0; p < size_; ++p) {
      const std::int64_t c = all[3 * p], got = all[3 * p + 1], w = all[3 * p + 2];
      const std::string who = "rank " + std::to_string(p) + ": ";
      const auto hosted = LocalNodes(node_ranks_, p).size();
      if (c == 1) {
        throw std::invalid_argument(who + "got " + std::to_string(got) + " node programs for " +
                                    std::to_string(hosted) + " local nodes");
      }
      if (c == 2) throw std::invalid_argument(who + "a node program is null");
      if (c == 3) throw std::invalid_argument("node programs disagree on ReportSize");
      if (c == 4) throw std::invalid_argument("ReportSize must be > 0");
      if (w != 0 && agreed != 0 && w != agreed) {
        throw std::invalid_argument("node programs disagree on ReportSize");
      }
      if (w != 0) agreed = w;
    }
    width_ = static_cast<std::size_t>(agreed);

    std::vector<std::uint64_t> sizes;
    for (NodeProgram* p : programs_) sizes.push_back(p->MaxMessageSize());
    std::vector<int> counts(size_), displs(size_);
    for (int p = 0; p < size_; ++p) {
      counts[p] = static_cast<int>(all[3 * p + 1]);
      displs[p] = p == 0 ? 0 : displs[p - 1] + counts[p - 1];
    }
    std::vector<std::uint64_t> gathered(static_cast<std::size_t>(n_));
    Check(MPI_Allgatherv(sizes.data(), static_cast<int>(sizes.size()), MPI_UINT64_T,
                         gathered.data(), counts.data(), displs.data(), MPI_UINT64_T, comm_),
          "MPI_Allgatherv", -1);
    max_message_size_.assign(static_cast<std::size_t>(n_), 0);
    for (int p = 0; p < size_; ++p) {
      const auto nodes = LocalNodes(node_ranks_, p);
      for (std::size_t s = 0; s < nodes.size(); ++s) {
        max_message_size_[nodes[s]] = gathered[displs[p] + s];
      }
    }
  }

  // Channels for local edges, buffers and pre-posted receives for remote ones.
  void Wire() {
    const MpiLayout& L = *layout_;
    const std::size_t m = L.local.size();
    in_.resize(m);
    out_.resize(m);
    for (std::size_t a = 0; a < m; ++a) {
      const int i = L.local[a];
      inboxes_.emplace_back(topology_.neighbors[i].size());
      outboxes_.emplace_back(programs_[a]->MaxMessageSize());
      for (std::size_t k = 0; k < topology_.neighbors[i].size(); ++k) {
        const int j = topology_.neighbors[i][k];
        in_[a].push_back(
            L.sources[a][k].peer < 0
                ? std::make_unique<SpscChannel>(options_.channel_capacity, max_message_size_[j])
                : nullptr);
      }
    }
    for (std::size_t a = 0; a < m; ++a) {
      const int i = L.local[a];
      for (std::size_t k = 0; k < topology_.neighbors[i].size(); ++k) {
        if (in_[a][k]) out_[L.local_index[topology_.neighbors[i][k]]].push_back(in_[a][k].get());
      }
    }
    peers_.resize(L.peers.size());
    for (std::size_t p = 0; p < L.peers.size(); ++p) {
      const PeerLink& link = L.peers[p];
      for (int b = 0; b < 2; ++b) {
        Buffer& s = peers_[p].send[b];
        Buffer& r = peers_[p].recv[b];
        s.data.resize(link.send_capacity);
        r.data.resize(link.recv_capacity);
        peers_[p].views[b].resize(link.recv_nodes.size());
        if (persistent_) {
          Check(MPI_Send_init(s.data.data(), static_cast<int>(s.data.size()), MPI_DOUBLE, link.rank,
                              kDataTag, comm_, &s.request),
                "MPI_Send_init", -1);
          Check(MPI_Recv_init(r.data.data(), static_cast<int>(r.data.size()), MPI_DOUBLE, link.rank,
                              kDataTag, comm_, &r.request),
                "MPI_Recv_init", -1);
        }
      }
      // Messages of round k are needed in round k + 1, so they exist for k < last_round only.
      PostReceive(p);
      PostReceive(p);
    }
    rows_.resize(m * width_);
    report_counts_.resize(static_cast<std::size_t>(size_), 0);
    cancels_received_.resize(static_cast<std::size_t>(size_), 0);
  }

  // ---- one round ----------------------------------------------------------------------------

  void RunRound(std::int64_t r) {
    const MpiLayout& L = *layout_;
    if (r >= 1) {
      Wait([&] { return Done() || DataArrived(r - 1); }, [&] { return MissingData(r - 1); },
           /*progress_resets=*/false);
      if (Done()) return;
    }
    std::vector<NodeFailure> steps(L.local.size());  // node >= 0: node a failed in round r
    auto run = [&](int a) { steps[a] = StepNode(a, r); };
    pool_->For(static_cast<int>(L.boundary.size()), [&](int k) { run(L.boundary[k]); });
    bool ok = true;
    for (int a : L.boundary) ok = ok && steps[a].node < 0;
    if (r >= 1) {
      // Every boundary node has read its remote round r-1 messages: re-post those buffers.
      for (std::size_t p = 0; p < peers_.size(); ++p) PostReceive(p);
    }
    if (ok && r < options_.last_round) {
      for (std::size_t p = 0; p < peers_.size(); ++p) SendPacked(p, r);
    }
    pool_->For(static_cast<int>(L.interior.size()), [&](int k) { run(L.interior[k]); });

    // Reports, and the lowest failing local node (local ids increase with node ids).
    NodeFailure failure;
    for (std::size_t a = 0; a < L.local.size(); ++a) {
      if (steps[a].node >= 0) {
        failure = std::move(steps[a]);
        failure.rank = rank_;
        break;
      }
    }
    local_failed_ = failure.node >= 0;
    SendReports(r, failure);
  }

  // Runs node a's round r. A fault (the program's Fail, an exception it throws, NaN/Inf in the
  // message it broadcasts) is returned as that node's failure, with the kind and text the other
  // engines give (node_calls.h); node = -1 when the step succeeded.
  NodeFailure StepNode(int a, std::int64_t r) {
    const int node = layout_->local[a];
    const char* method = r == 0 ? "Start" : "Step";
    try {
      StepResult step;
      if (r == 0) {
        step = programs_[a]->Start(outboxes_[a]);
      } else {
        Collect(a, r);
        step = programs_[a]->Step(r, inboxes_[a], outboxes_[a]);
        for (auto& c : in_[a])
          if (c) c->Pop();
      }
      if (!step.ok) return {node, r, FailureKind::kStepFailed, std::move(step.error)};
      const std::span<const double> message = outboxes_[a].message();
      const std::size_t bad = detail::FirstNonFinite(message);
      if (bad < message.size()) return detail::NonFiniteValue(node, r, "message", message, bad);
      for (SpscChannel* c : out_[a]) {
        if (!c->TryPush(message)) {
          return {node, r, FailureKind::kException, "channel full: schedule invariant broken"};
        }
      }
      method = "Report";
      programs_[a]->Report(r, Row(a));
    } catch (...) {
      return detail::CaughtException(node, r, method);
    }
    return {};
  }

  void Collect(int a, std::int64_t r) {
    const auto& sources = layout_->sources[a];
    for (std::size_t k = 0; k < sources.size(); ++k) {
      if (sources[k].peer < 0) {
        bool ok = false;
        const auto m = in_[a][k]->Front(&ok);
        if (!ok) throw std::logic_error("message missing: schedule invariant broken");
        inboxes_[a].Set(k, m);
      } else {
        inboxes_[a].Set(k, peers_[sources[k].peer].views[(r - 1) % 2][sources[k].slot]);
      }
    }
  }

  std::span<double> Row(int a) {
    return {rows_.data() + static_cast<std::size_t>(a) * width_, width_};
  }

  // ---- packed node messages -----------------------------------------------------------------

  void PostReceive(std::size_t p) {
    Peer& peer = peers_[p];
    const std::int64_t k = peer.next_post;
    if (k >= options_.last_round && peer.peer_sent < 0) return;
    if (peer.peer_sent >= 0 && k >= peer.peer_sent) return;
    Buffer& b = peer.recv[k % 2];
    if (b.active) return;
    b.round = k;
    b.active = true;
    if (persistent_) {
      Check(MPI_Start(&b.request), "MPI_Start (receive)", k);
    } else {
      Check(MPI_Irecv(b.data.data(), static_cast<int>(b.data.size()), MPI_DOUBLE,
                      layout_->peers[p].rank, kDataTag, comm_, &b.request),
            "MPI_Irecv", k);
    }
    ++peer.next_post;
  }

  void SendPacked(std::size_t p, std::int64_t r) {
    Peer& peer = peers_[p];
    Buffer& b = peer.send[r % 2];
    Wait([&] { return !TestBuffer(b, "send"); },
         [&] {
           return "completion of the round " + std::to_string(b.round) + " send to rank " +
                  std::to_string(layout_->peers[p].rank);
         },
         false);
    const auto& nodes = layout_->peers[p].send_nodes;
    std::size_t at = 1 + nodes.size();
    b.data[0] = static_cast<double>(r);
    for (std::size_t s = 0; s < nodes.size(); ++s) {
      const auto m = outboxes_[layout_->local_index[nodes[s]]].message();
      b.data[1 + s] = static_cast<double>(m.size());
      std::copy(m.begin(), m.end(), b.data.begin() + static_cast<std::ptrdiff_t>(at));
      at += m.size();
    }
    b.round = r;
    b.active = true;
    if (persistent_) {
      Check(MPI_Start(&b.request), "MPI_Start (send)", r);
    } else {
      Check(MPI_Isend(b.data.data(), static_cast<int>(at), MPI_DOUBLE, layout_->peers[p].rank,
                      kDataTag, comm_, &b.request),
            "MPI_Isend", r);
    }
    peer.sent = r + 1;
  }

  // Tests an in-flight buffer; returns whether it is still active.
  bool TestBuffer(Buffer& b, const char* what) {
    if (!b.active) return false;
    int done = 0;
    Check(MPI_Test(&b.request, &done, MPI_STATUS_IGNORE), what, b.round);
    if (done) b.active = false;
    return !done;
  }

  // A completed receive: check the header and index the slots.
  void Unpack(std::size_t p, int parity) {
    Buffer& b = peers_[p].recv[parity];
    const PeerLink& link = layout_->peers[p];
    const std::size_t m = link.recv_nodes.size();
    if (b.data[0] != static_cast<double>(b.round)) {
      Fail("packed message from rank " + std::to_string(link.rank) + " is for round " +
           std::to_string(b.data[0]) + ", expected " + std::to_string(b.round));
    }
    std::size_t at = 1 + m;
    for (std::size_t s = 0; s < m; ++s) {
      const auto len = static_cast<std::size_t>(b.data[1 + s]);
      if (len > max_message_size_[link.recv_nodes[s]] || at + len > b.data.size()) {
        Fail("malformed packed message from rank " + std::to_string(link.rank));
      }
      peers_[p].views[parity][s] = {b.data.data() + at, len};
      at += len;
    }
  }

  bool DataArrived(std::int64_t k) {
    for (const Peer& peer : peers_) {
      const Buffer& b = peer.recv[k % 2];
      if (b.round != k || b.active) return false;
    }
    return true;
  }

  std::string MissingData(std::int64_t k) {
    std::string who;
    for (std::size_t p = 0; p < peers_.size(); ++p) {
      const Buffer& b = peers_[p].recv[k % 2];
      if (b.round != k || b.active) {
        who += (who.empty() ? "" : ", ") + std::to_string(layout_->peers[p].rank);
      }
    }
    return "the round " + std::to_string(k) + " messages of rank(s) " + who;
  }

  // ---- reports and the outcome --------------------------------------------------------------

  void SendReports(std::int64_t r, const NodeFailure& failure) {
    const std::size_t m = layout_->local.size();
    if (rank_ == 0) {
      Assembly& a = Assemble(r);
      for (std::size_t s = 0; s < m; ++s) {
        std::copy_n(rows_.data() + s * width_, width_,
                    a.table.data() + static_cast<std::size_t>(layout_->local[s]) * width_);
      }
      AddFailure(a, failure);
      a.from[0] = 1;
      ++a.ranks;
      TryDecide();
      return;
    }
    // Bound the reports in flight; each completes as soon as rank 0 drains it.
    while (reports_out_.size() >= 256) {
      Wait([&] { return !TestReportFront(); },
           [&] { return std::string("report delivery to rank 0"); }, false);
    }
    auto& out = reports_out_.emplace_back();
    std::vector<char>& b = out.first;
    PutI64(b, r);
    PutI64(b, failure.node);
    PutI64(b, static_cast<std::int64_t>(failure.kind));
    PutI64(b, static_cast<std::int64_t>(failure.message.size()));
    const std::size_t at = b.size();
    b.resize(at + m * width_ * sizeof(double) + failure.message.size());
    if (m > 0) std::memcpy(b.data() + at, rows_.data(), m * width_ * sizeof(double));
    std::memcpy(b.data() + at + m * width_ * sizeof(double), failure.message.data(),
                failure.message.size());
    Check(MPI_Isend(b.data(), static_cast<int>(b.size()), MPI_BYTE, 0, kReportTag, comm_,
                    &out.second),
          "MPI_Isend (reports)", r);
    ++reports_sent_;
  }

  bool TestReportFront() {
    if (reports_out_.empty()) return false;
    int done = 0;
    Check(MPI_Test(&reports_out_.front().second, &done, MPI_STATUS_IGNORE), "MPI_Test (reports)",
          -1);
    if (done) reports_out_.pop_front();
    return !done;
  }

  Assembly& Assemble(std::int64_t r) {
    Assembly& a = assembly_[r];
    if (a.table.empty()) {
      a.table.resize(static_cast<std::size_t>(n_) * width_);
      a.from.resize(static_cast<std::size_t>(size_), 0);
    }
    return a;
  }

  static void AddFailure(Assembly& a, const NodeFailure& f) {
    if (f.node < 0) return;
    if (!a.failed || f.node < a.failure.node) {
      a.failure = f;
      a.failed = true;
    }
  }

  // Rank 0: receives one rank's reports of one round.
  void ReceiveReport(const MPI_Status& probed) {
    int bytes = 0;
    MPI_Get_count(&probed, MPI_BYTE, &bytes);
    std::vector<char> b(static_cast<std::size_t>(bytes));
    const int src = probed.MPI_SOURCE;
    Check(MPI_Recv(b.data(), bytes, MPI_BYTE, src, kReportTag, comm_, MPI_STATUS_IGNORE),
          "MPI_Recv (reports)", -1);
    ++report_counts_[src];
    if (decided_) return;  // late reports of a finished run
    std::size_t at = 0;
    const std::int64_t r = GetI64(b, at);
    const std::int64_t node = GetI64(b, at);
    const auto kind = static_cast<FailureKind>(GetI64(b, at));
    const std::int64_t len = GetI64(b, at);
    if (r <= last_emitted_) return;
    const auto& nodes = nodes_of_rank_[src];
    if (at + nodes.size() * width_ * sizeof(double) + static_cast<std::size_t>(len) != b.size()) {
      Fail("malformed report message from rank " + std::to_string(src));
    }
    Assembly& a = Assemble(r);
    for (std::size_t s = 0; s < nodes.size(); ++s) {
      std::memcpy(a.table.data() + static_cast<std::size_t>(nodes[s]) * width_,
                  b.data() + at + s * width_ * sizeof(double), width_ * sizeof(double));
    }
    at += nodes.size() * width_ * sizeof(double);
    if (node >= 0) {
      AddFailure(a, {static_cast<int>(node), r, kind,
                     std::string(b.data() + at, static_cast<std::size_t>(len)), src});
    }
    a.from[src] = 1;
    ++a.ranks;
  }

  // Rank 0: hands complete rounds to the sink in order and decides the outcome.
  void TryDecide() {
    while (!decided_) {
      const std::int64_t e = last_emitted_ + 1;
      auto it = assembly_.find(e);
      if (it == assembly_.end() || it->second.ranks < size_) break;
      progress_ = true;
      if (it->second.failed) {
        result_.outcome = EngineOutcome::kFailed;
        result_.failure = it->second.failure;
        Decide();
        break;
      }
      bool go_on = true;
      try {
        go_on = sink_.OnRound(e, ReportTable(it->second.table.data(), n_, width_));
      } catch (const std::exception& ex) {
        Fail("the round sink threw in round " + std::to_string(e) + ": " + ex.what());
      }
      last_emitted_ = e;
      result_.last_reported_round = e;
      assembly_.erase(it);
      if (!go_on) {
        result_.outcome = EngineOutcome::kStopped;
        Decide();
      } else if (e == options_.last_round) {
        result_.outcome = EngineOutcome::kCompleted;
        Decide();
      }
    }
    if (!decided_ && cancel_requested_) {
      result_.outcome = EngineOutcome::kCancelled;
      Decide();
    }
  }

  // Rank 0: every rank has completed round last_emitted_ + 1 (or more); tell them to stop.
  void Decide() {
    decided_ = true;
    assembly_.clear();
    std::vector<char> b;
    PutI64(b, static_cast<std::int64_t>(result_.outcome));
    PutI64(b, result_.last_reported_round);
    PutI64(b, result_.failure.node);
    PutI64(b, result_.failure.round);
    PutI64(b, result_.failure.rank);
    PutI64(b, static_cast<std::int64_t>(result_.failure.kind));
    PutI64(b, heartbeats_sent_);
    b.insert(b.end(), result_.failure.message.begin(), result_.failure.message.end());
    outcome_msg_ = std::move(b);
    outcome_requests_.assign(static_cast<std::size_t>(size_), MPI_REQUEST_NULL);
    for (int p = 1; p < size_; ++p) {
      Check(MPI_Isend(outcome_msg_.data(), static_cast<int>(outcome_msg_.size()), MPI_BYTE, p,
                      kOutcomeTag, comm_, &outcome_requests_[p]),
            "MPI_Isend (outcome)", -1);
    }
  }

  void ReceiveOutcome() {
    MPI_Status st;
    Check(MPI_Probe(0, kOutcomeTag, comm_, &st), "MPI_Probe (outcome)", -1);
    int bytes = 0;
    MPI_Get_count(&st, MPI_BYTE, &bytes);
    std::vector<char> b(static_cast<std::size_t>(bytes));
    Check(MPI_Recv(b.data(), bytes, MPI_BYTE, 0, kOutcomeTag, comm_, MPI_STATUS_IGNORE),
          "MPI_Recv (outcome)", -1);
    std::size_t at = 0;
    result_.outcome = static_cast<EngineOutcome>(GetI64(b, at));
    result_.last_reported_round = GetI64(b, at);
    result_.failure.node = static_cast<int>(GetI64(b, at));
    result_.failure.round = GetI64(b, at);
    result_.failure.rank = static_cast<int>(GetI64(b, at));
    result_.failure.kind = static_cast<FailureKind>(GetI64(b, at));
    heartbeats_announced_ = GetI64(b, at);
    result_.failure.message.assign(b.data() + at, b.size() - at);
    decided_ = true;
  }

  void RequestCancel() {
    if (rank_ == 0) {
      cancel_requested_ = true;
      TryDecide();
      return;
    }
    if (cancel_sent_) return;
    cancel_sent_ = true;
    Check(MPI_Isend(nullptr, 0, MPI_BYTE, 0, kCancelTag, comm_, &cancel_request_),
          "MPI_Isend (cancel)", -1);
  }

  bool Done() const { return decided_; }

  std::string AwaitingOutcome() const {
    if (rank_ != 0) return "the outcome from rank 0";
    const auto it = assembly_.find(last_emitted_ + 1);
    std::string who;
    for (int p = 0; p < size_; ++p) {
      if (it == assembly_.end() || !it->second.from[p]) {
        who += (who.empty() ? "" : ", ") + std::to_string(p);
      }
    }
    return "the round " + std::to_string(last_emitted_ + 1) + " reports of rank(s) " + who;
  }

  // ---- progress, waiting, errors ------------------------------------------------------------

  // One non-blocking pass over everything that can arrive.
  void Poll() {
    for (std::size_t p = 0; p < peers_.size(); ++p) {
      for (int parity = 0; parity < 2; ++parity) {
        Buffer& b = peers_[p].recv[parity];
        if (b.active && !TestBuffer(b, "receive")) {
          Unpack(p, parity);
          progress_ = true;
        }
        TestBuffer(peers_[p].send[parity], "send");
      }
    }
    int flag = 0;
    MPI_Status st;
    Check(MPI_Iprobe(MPI_ANY_SOURCE, kAbortTag, comm_, &flag, &st), "MPI_Iprobe", -1);
    if (flag) {
      int bytes = 0;
      MPI_Get_count(&st, MPI_BYTE, &bytes);
      std::string text(static_cast<std::size_t>(bytes), '\0');
      MPI_Recv(text.data(), bytes, MPI_BYTE, st.MPI_SOURCE, kAbortTag, comm_, MPI_STATUS_IGNORE);
      Abandon();
      throw MpiError("MPI engine on rank " + std::to_string(rank_) + ": stopped because " + text);
    }
    if (rank_ == 0) {
      for (;;) {
        Check(MPI_Iprobe(MPI_ANY_SOURCE, kReportTag, comm_, &flag, &st), "MPI_Iprobe", -1);
        if (!flag) break;
        ReceiveReport(st);
      }
      for (;;) {
        Check(MPI_Iprobe(MPI_ANY_SOURCE, kCancelTag, comm_, &flag, &st), "MPI_Iprobe", -1);
        if (!flag) break;
        MPI_Recv(nullptr, 0, MPI_BYTE, st.MPI_SOURCE, kCancelTag, comm_, MPI_STATUS_IGNORE);
        ++cancels_received_[st.MPI_SOURCE];
        cancel_requested_ = true;
      }
      if (options_.stop != nullptr && options_.stop->stop_requested()) cancel_requested_ = true;
      TryDecide();
      Heartbeat();
    } else {
      for (;;) {
        Check(MPI_Iprobe(0, kHeartbeatTag, comm_, &flag, MPI_STATUS_IGNORE), "MPI_Iprobe", -1);
        if (!flag) break;
        MPI_Recv(nullptr, 0, MPI_BYTE, 0, kHeartbeatTag, comm_, MPI_STATUS_IGNORE);
        ++heartbeats_received_;
        progress_ = true;
      }
      while (!reports_out_.empty() && !TestReportFront()) {
      }
      if (!decided_) {
        Check(MPI_Iprobe(0, kOutcomeTag, comm_, &flag, &st), "MPI_Iprobe", -1);
        if (flag) ReceiveOutcome();
      }
    }
  }

  // Rank 0, until the outcome is decided: an empty message to every rank each quarter of the
  // peer timeout, so that a rank waiting for the outcome (its rounds done, or hosting no node)
  // can tell a long run from a dead rank 0.
  void Heartbeat() {
    if (decided_ || size_ == 1) return;
    const auto now = Clock::now();
    if (now - last_heartbeat_ < timeout_ / 4) return;
    last_heartbeat_ = now;
    int done = 0;
    std::vector<MPI_Request> still;
    for (MPI_Request& r : heartbeat_requests_) {
      MPI_Test(&r, &done, MPI_STATUS_IGNORE);
      if (!done) still.push_back(r);
    }
    heartbeat_requests_.swap(still);
    for (int p = 1; p < size_; ++p) {
      heartbeat_requests_.emplace_back();
      Check(MPI_Isend(nullptr, 0, MPI_BYTE, p, kHeartbeatTag, comm_, &heartbeat_requests_.back()),
            "MPI_Isend (heartbeat)", -1);
    }
    ++heartbeats_sent_;
  }

  // Polls until ready(); past the peer timeout (restarted by progress when progress_resets)
  // it fails naming what(). Spins briefly, then yields the core to co-located ranks.
  template <class Ready, class What>
  void Wait(Ready ready, What what, bool progress_resets) {
    auto deadline = Clock::now() + timeout_;
    for (int spins = 0;; ++spins) {
      progress_ = false;
      Poll();
      if (ready()) return;
      if (progress_ && progress_resets) deadline = Clock::now() + timeout_;
      if (Clock::now() > deadline) {
        char seconds[32];
        std::snprintf(seconds, sizeof seconds, "%g", options_.peer_timeout_seconds);
        Fail("no progress for " + std::string(seconds) + " s while waiting for " + what() +
             " (a rank died or stalled)");
      }
      if (spins > 64) std::this_thread::yield();
      if (spins > 4096) std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
  }

  void Check(int rc, const char* what, std::int64_t round) {
    if (rc == MPI_SUCCESS) return;
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, text, &len);
    Fail(std::string(what) + (round >= 0 ? " in round " + std::to_string(round) : "") +
         " failed: " + std::string(text, static_cast<std::size_t>(len)));
  }

  // An engine error: tell every other rank (best effort, bounded), then throw.
  [[noreturn]] void Fail(const std::string& what) {
    // Leaked on purpose: a send may outlive this frame, and the job is ending anyway.
    const std::string& text = *new std::string("rank " + std::to_string(rank_) + ": " + what);
    std::vector<MPI_Request> reqs;
    for (int p = 0; p < size_; ++p) {
      if (p == rank_) continue;
      reqs.emplace_back();
      if (MPI_Isend(text.data(), static_cast<int>(text.size()), MPI_BYTE, p, kAbortTag, comm_,
                    &reqs.back()) != MPI_SUCCESS) {
        reqs.pop_back();
      }
    }
    const auto until = Clock::now() + std::chrono::seconds(1);
    for (int done = 0; !done && Clock::now() < until;) {
      MPI_Testall(static_cast<int>(reqs.size()), reqs.data(), &done, MPI_STATUSES_IGNORE);
    }
    Abandon();
    throw MpiError("MPI engine on " + text);
  }

  // Before an MpiError: requests may still be in flight, and MPI would write into (receives) or
  // read from (sends) their buffers after this run is gone. Cancel the receives, and hand every
  // buffer a request may touch to a heap object that is never freed (moving a vector keeps its
  // storage). The job is expected to end (MpiSession::Abort).
  void Abandon() {
    for (Peer& peer : peers_) {
      for (Buffer& b : peer.recv) {
        if (b.active) MPI_Cancel(&b.request);
      }
    }
    struct Leaked {
      std::vector<Peer> peers;
      std::deque<std::pair<std::vector<char>, MPI_Request>> reports;
      std::vector<char> outcome;
      std::vector<std::int64_t> fin;
      std::vector<MPI_Request> outcome_requests;
    };
    new Leaked{std::move(peers_), std::move(reports_out_), std::move(outcome_msg_),
               std::move(fin_out_), std::move(outcome_requests_)};
    peers_.clear();
  }

  // ---- drain --------------------------------------------------------------------------------

  // Matches every packed message and report sent with a receive, cancels the receives nobody
  // will satisfy, and completes every send, so the communicator can be freed.
  void Drain() {
    // Counts live in a member: on an engine error their sends may still be in flight.
    std::vector<std::int64_t>& fin_out = fin_out_;
    fin_out.assign(peers_.size() + 2, 0);
    std::vector<MPI_Request> fin_req(peers_.size(), MPI_REQUEST_NULL);
    for (std::size_t p = 0; p < peers_.size(); ++p) {
      fin_out[p] = peers_[p].sent;
      Check(MPI_Isend(&fin_out[p], 1, MPI_INT64_T, layout_->peers[p].rank, kFinTag, comm_,
                      &fin_req[p]),
            "MPI_Isend (fin)", -1);
    }
    std::int64_t* report_fin = &fin_out[peers_.size()];
    report_fin[0] = reports_sent_;
    report_fin[1] = cancel_sent_ ? 1 : 0;
    MPI_Request report_fin_req = MPI_REQUEST_NULL;
    if (rank_ != 0) {
      Check(MPI_Isend(report_fin, 2, MPI_INT64_T, 0, kReportFinTag, comm_, &report_fin_req),
            "MPI_Isend (report fin)", -1);
    }
    // Peers' counts.
    for (std::size_t p = 0; p < peers_.size(); ++p) {
      Wait(
          [&] {
            int flag = 0;
            Check(MPI_Iprobe(layout_->peers[p].rank, kFinTag, comm_, &flag, MPI_STATUS_IGNORE),
                  "MPI_Iprobe (fin)", -1);
            return flag != 0;
          },
          [&] { return "the final count of rank " + std::to_string(layout_->peers[p].rank); },
          true);
      Check(MPI_Recv(&peers_[p].peer_sent, 1, MPI_INT64_T, layout_->peers[p].rank, kFinTag, comm_,
                     MPI_STATUS_IGNORE),
            "MPI_Recv (fin)", -1);
      // Receives beyond what the peer sent will never match: cancel them.
      for (Buffer& b : peers_[p].recv) {
        if (b.active && b.round >= peers_[p].peer_sent) {
          MPI_Cancel(&b.request);
          MPI_Wait(&b.request, MPI_STATUS_IGNORE);
          b.active = false;
        }
      }
    }
    // Receive everything still in flight (a receive can be posted once its buffer is free).
    for (std::size_t p = 0; p < peers_.size(); ++p) {
      Peer& peer = peers_[p];
      Wait(
          [&] {
            for (Buffer& b : peer.recv) TestBuffer(b, "receive");
            PostReceive(p);
            return peer.next_post >= peer.peer_sent && !peer.recv[0].active && !peer.recv[1].active;
          },
          [&] { return "the last messages of rank " + std::to_string(layout_->peers[p].rank); },
          true);
    }
    if (rank_ == 0) {
      for (int p = 1; p < size_; ++p) {
        std::int64_t fin[2] = {0, 0};
        Wait(
            [&] {
              int flag = 0;
              Check(MPI_Iprobe(p, kReportFinTag, comm_, &flag, MPI_STATUS_IGNORE), "MPI_Iprobe",
                    -1);
              return flag != 0;
            },
            [&] { return "the report count of rank " + std::to_string(p); }, true);
        Check(MPI_Recv(fin, 2, MPI_INT64_T, p, kReportFinTag, comm_, MPI_STATUS_IGNORE),
              "MPI_Recv (report fin)", -1);
        Wait([&] { return report_counts_[p] >= fin[0] && cancels_received_[p] >= fin[1]; },
             [&] { return "the last reports of rank " + std::to_string(p); }, true);
      }
    }
    // Our own sends.
    Wait(
        [&] {
          int done = 0;
          MPI_Testall(static_cast<int>(fin_req.size()), fin_req.data(), &done, MPI_STATUSES_IGNORE);
          bool all = done != 0;
          for (Peer& peer : peers_) {
            for (Buffer& b : peer.send) all = !TestBuffer(b, "send") && all;
          }
          int d = 0;
          MPI_Test(&report_fin_req, &d, MPI_STATUS_IGNORE);
          all = all && d;
          MPI_Test(&cancel_request_, &d, MPI_STATUS_IGNORE);
          all = all && d;
          if (!outcome_requests_.empty()) {
            MPI_Testall(static_cast<int>(outcome_requests_.size()), outcome_requests_.data(), &d,
                        MPI_STATUSES_IGNORE);
            all = all && d;
          }
          if (!heartbeat_requests_.empty()) {
            MPI_Testall(static_cast<int>(heartbeat_requests_.size()), heartbeat_requests_.data(),
                        &d, MPI_STATUSES_IGNORE);
            all = all && d;
          }
          return all && reports_out_.empty() && heartbeats_received_ >= heartbeats_announced_;
        },
        [&] { return std::string("the completion of this rank's last sends"); }, true);
    if (persistent_) {
      for (Peer& peer : peers_) {
        for (Buffer* b : {&peer.send[0], &peer.send[1], &peer.recv[0], &peer.recv[1]}) {
          if (b->request != MPI_REQUEST_NULL) MPI_Request_free(&b->request);
        }
      }
    }
  }

  std::span<NodeProgram* const> programs_;
  const Topology& topology_;
  const EngineOptions& options_;
  RoundSink& sink_;
  const int n_;
  const bool persistent_;
  int rank_ = 0;
  int size_ = 1;
  MPI_Comm comm_ = MPI_COMM_NULL;
  std::vector<int> node_ranks_;
  std::vector<std::size_t> max_message_size_;
  std::size_t width_ = 0;
  std::unique_ptr<MpiLayout> layout_;
  std::vector<std::vector<int>> nodes_of_rank_;
  std::unique_ptr<LocalPool> pool_;
  Clock::duration timeout_{};

  // Local nodes: channels for local edges (in_[a][k] null for a remote neighbour), boxes, rows.
  std::vector<std::vector<std::unique_ptr<SpscChannel>>> in_;
  std::vector<std::vector<SpscChannel*>> out_;
  std::vector<Inbox> inboxes_;
  std::vector<Outbox> outboxes_;
  std::vector<double> rows_;
  std::vector<Peer> peers_;
  bool local_failed_ = false;

  // Reports and the outcome.
  std::deque<std::pair<std::vector<char>, MPI_Request>> reports_out_;
  std::int64_t reports_sent_ = 0;
  std::map<std::int64_t, Assembly> assembly_;  // rank 0
  std::vector<std::int64_t> report_counts_;    // rank 0: reports received per rank
  std::vector<std::int64_t> cancels_received_;
  std::int64_t last_emitted_ = -1;
  bool decided_ = false;
  bool cancel_requested_ = false;
  bool cancel_sent_ = false;
  MPI_Request cancel_request_ = MPI_REQUEST_NULL;
  std::vector<char> outcome_msg_;
  std::vector<MPI_Request> outcome_requests_;
  std::vector<std::int64_t> fin_out_;  // drain: counts being sent to the peers
  bool progress_ = false;
  Clock::time_point last_heartbeat_ = Clock::now();
  std::vector<MPI_Request> heartbeat_requests_;  // rank 0
  std::int64_t heartbeats_sent_ = 0;             // rank 0, to each other rank
  std::int64_t heartbeats_received_ = 0;         // other ranks
  std::int64_t heartbeats_announced_ = 0;        // other ranks: from the outcome message
  EngineResult result_;
};

}  // namespace
}  // namespace detail

bool MpiBuilt() { return true; }

MpiSession::MpiSession(int* argc, char*** argv) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) {
    int provided = 0;
    if (MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
      throw MpiError("MPI_Init_thread failed");
    }
    owns_ = true;
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
}

MpiSession::~MpiSession() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (owns_ && !finalized) MPI_Finalize();
}

void MpiSession::Abort(int code) {
  MPI_Abort(MPI_COMM_WORLD, code);
  std::abort();  // MPI_Abort does not return; keeps [[noreturn]] honest if it ever does
}

bool MpiInitialized() {
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  return initialized != 0 && finalized == 0;
}

int MpiRank(MpiComm comm) {
  int r = 0;
  MPI_Comm_rank(detail::ToComm(comm), &r);
  return r;
}

int MpiSize(MpiComm comm) {
  int s = 0;
  MPI_Comm_size(detail::ToComm(comm), &s);
  return s;
}

double MpiAllreduceMax(double value, MpiComm comm) {
  double result = value;
  if (MPI_Allreduce(&value, &result, 1, MPI_DOUBLE, MPI_MAX, detail::ToComm(comm)) != MPI_SUCCESS) {
    throw MpiError("rank " + std::to_string(MpiRank(comm)) + ": MPI_Allreduce failed");
  }
  return result;
}

std::vector<double> MpiAllgather(std::span<const double> values, MpiComm comm) {
  const MPI_Comm c = detail::ToComm(comm);
  const int size = MpiSize(comm);
  const int mine = static_cast<int>(values.size());
  std::vector<int> counts(static_cast<std::size_t>(size)), offsets(counts.size(), 0);
  if (MPI_Allgather(&mine, 1, MPI_INT, counts.data(), 1, MPI_INT, c) != MPI_SUCCESS) {
    throw MpiError("rank " + std::to_string(MpiRank(comm)) + ": MPI_Allgather failed");
  }
  for (std::size_t p = 1; p < counts.size(); ++p) offsets[p] = offsets[p - 1] + counts[p - 1];
  std::vector<double> all(static_cast<std::size_t>(offsets.back() + counts.back()));
  if (MPI_Allgatherv(values.data(), mine, MPI_DOUBLE, all.data(), counts.data(), offsets.data(),
                     MPI_DOUBLE, c) != MPI_SUCCESS) {
    throw MpiError("rank " + std::to_string(MpiRank(comm)) + ": MPI_Allgatherv failed");
  }
  return all;
}

EngineResult RunMpi(std::span<NodeProgram* const> local_programs, const Topology& topology,
                    const EngineOptions& options, RoundSink& sink, MpiComm comm) {
  detail::MpiRun run(local_programs, topology, options, sink, detail::ToComm(comm));
  return run.Execute();
}

}  // namespace dpadmm::runtime
