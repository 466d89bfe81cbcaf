// SPDX-License-Identifier: Apache-2.0
// The network engine (dpadmm/runtime/network.h): the only translation unit that includes gRPC.
//
// Every party runs a gRPC server (service Party, runtime/proto/dpadmm_party.proto) and dials
// every other party: a full mesh of one Exchange stream per ordered pair, each written by its
// own thread (Link) so that the engine's thread never blocks on the network. Handlers of the
// server push what they read into a per-peer queue (Hub); the engine's thread alone decodes it
// (PeerStream, network_frame.h), computes, and decides.
//
//   set-up:  Hello to every peer (with backoff, until setup_timeout) and from every peer;
//            both sides compare protocol version, spec hash and layout; identities come from
//            the certificates' subject alternative names; then the set-up exchange, when the
//            caller holds one (each party's values to every peer, on_setup with all of them)
//   links:   every envelope is numbered per ordered pair and kept by its Link until the peer
//            acknowledges it (Envelope.ack, on the peer's own envelopes). A broken connection
//            is dialled again (Hello again, same session) and the kept envelopes are sent
//            again as first made; the receiver drops copies after checking them byte for byte
//            (InboundSequence). A peer disconnected for the peer timeout has failed.
//   round r: (once every peer hosting a neighbour has sent its round r-1 frame, and r is at
//            most kLeadRounds past the sink) step the local nodes, send every peer its round r
//            frame (status, and the messages on the edges into its nodes)
//   sink d:  once every party's round d frame and every verdict on d-1 are in: hand d to the
//            sink (hosted rows; NaN elsewhere), send every peer the verdict (go on or stop)
//   end:     completed / stopped / failed / cancelled, the same on every party; then every
//            stream is closed in order (WritesDone, Finish) and the server shut down once every
//            peer closed its stream to us.
#include <grpc/grpc_security_constants.h>
#include <grpc/support/log.h>
#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <iterator>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "dpadmm/runtime/network.h"
#include "dpadmm_party.grpc.pb.h"
#include "mpi_parallel.h"
#include "network_config.h"
#include "network_frame.h"
#include "node_calls.h"

namespace dpadmm::runtime {

bool NetworkBuilt() { return true; }

namespace detail {
namespace {

using Clock = std::chrono::steady_clock;
using Kind = NetworkError::Kind;

Clock::duration ToDuration(double seconds) {
  return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
}

std::string Seconds(double s) {
  char b[32];
  std::snprintf(b, sizeof b, "%g s", s);
  return b;
}

// Each distinct line once (digits ignored when comparing, so that the same event from another
// port or at another time is not repeated).
class OnceLog {
 public:
  explicit OnceLog(std::function<void(const std::string&)> sink) : sink_(std::move(sink)) {}
  void operator()(const std::string& line) {
    std::string key;
    for (char c : line) {
      if (c >= '0' && c <= '9') {
        if (key.empty() || key.back() != '#') key += '#';
      } else {
        key += c;
      }
    }
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!seen_.insert(key).second) return;
    }
    sink_(line);
  }

 private:
  std::function<void(const std::string&)> sink_;
  std::mutex mu_;
  std::set<std::string> seen_;
};

// gRPC core reports a failed TLS handshake only in its own log: its errors go to the current
// run's OnceLog (process-wide, as gpr's log function is); everything else is dropped.
std::mutex g_log_mu;
OnceLog* g_log = nullptr;

void GprLog(gpr_log_func_args* args) {
  if (args->severity != GPR_LOG_SEVERITY_ERROR) return;
  std::lock_guard<std::mutex> lock(g_log_mu);
  if (g_log != nullptr) (*g_log)(std::string("grpc: ") + args->message);
}

// A Hello that got no answer, in words: gRPC's text, and the likely cause when the peer took
// the connection and closed it during the TLS handshake. A server that refuses the client's
// certificate (signed by another CA, or expired) ends the handshake, and the client is not told
// why: under TLS 1.3 the client has finished its part before the server checks the
// certificate, and gRPC reports only "Socket closed" (a reset connection reads "Connection
// reset"). A certificate of the run's CA with the wrong name gets a reply instead, naming it
// (PERMISSION_DENIED, refused at once).
std::string UnansweredHello(const grpc::Status& status, bool tls, const std::string& self) {
  const std::string text = SanitizePeerText(status.error_message());
  if (!tls || status.error_code() != grpc::StatusCode::UNAVAILABLE) return text;
  if (text.find("Socket closed") == std::string::npos &&
      text.find("Connection reset") == std::string::npos) {
    return text;
  }
  return "it closed the connection during the TLS handshake, so it most likely refused this "
         "party's certificate (not signed by the run's CA, expired, or its subject alternative "
         "name is not '" +
         self + "'), or it does not use TLS (gRPC: " + text + ")";
}

struct Incoming {
  bool hello = false;  // the peer's Hello was accepted
  std::vector<std::size_t> max_doubles;
  std::string session;                    // from its first Hello
  bool ticket = false;                    // a Hello accepted since its last stream opened
  bool opened = false;                    // it has opened a stream (its session is then fixed)
  grpc::ServerContext* stream = nullptr;  // its current stream (nullptr: none open)
  std::uint64_t generation = 0;           // of its current stream
  bool ended = false;   // its stream has ended as it closed it (the end of its run)
  bool broken = false;  // refused (violation)
  int disconnects = 0;  // its streams that broke (the connection, not the peer, ended them)
  int reconnects = 0;   // its Hellos after its first stream
  double tokens = kReconnectBurst;  // reconnections it may still make now
  Clock::time_point refilled = Clock::now();
  std::string violation;
  InboundSequence sequence;
  std::deque<pb::Envelope> queue;
  Clock::time_point last_heard = Clock::now();
};

// What the server's handlers share with the engine's thread.
struct Hub {
  std::mutex mu;
  std::condition_variable cv;
  std::vector<Incoming> in;  // by party number
  bool has_fatal = false;    // a handler refused a peer's Hello as a mismatch
  int fatal_peer = -1;
  std::string fatal;
  std::string abandoned;  // set-up failed here: why, told to every peer saying Hello
};

// Static facts of the run, shared by the engine and the handlers (read-only once built).
struct RunFacts {
  const NetworkOptions* options = nullptr;
  int self = -1;
  std::vector<std::string> ids;
  std::vector<PeerExpect> expect;  // by party number (self's entry unused)
  std::uint64_t layout_hash = 0;
  pb::HelloMessage hello;                                 // this party's (next_round: 0)
  const std::atomic<std::int64_t>* next_round = nullptr;  // the engine's next round to compute
  OnceLog* log = nullptr;

  int PartyOf(const std::string& id) const {
    for (std::size_t p = 0; p < ids.size(); ++p) {
      if (ids[p] == id) return static_cast<int>(p);
    }
    return -1;
  }
  std::span<const std::uint8_t> spec_hash() const { return options->spec_hash; }
};

// The caller's party number from its certificate (or, insecure, its own claim), or -1 with
// `why` set.
int Identify(const RunFacts& facts, const grpc::ServerContext& ctx, const std::string& claimed,
             std::string* why) {
  std::string name = claimed;
  if (!facts.options->insecure) {
    const auto auth = ctx.auth_context();
    const auto sans = auth ? auth->FindPropertyValues(GRPC_X509_SAN_PROPERTY_NAME)
                           : std::vector<grpc::string_ref>{};
    if (sans.size() != 1) {
      *why = "its certificate has " + std::to_string(sans.size()) +
             " subject alternative names, expected exactly one (its party id)";
      return -1;
    }
    name.assign(sans[0].data(), sans[0].size());
  }
  const int p = facts.PartyOf(name);
  if (p < 0 || p == facts.self) {
    *why = "its certificate names '" + SanitizePeerText(name) + "', not a peer of this run";
    return -1;
  }
  if (claimed != name) {
    *why = "it claims to be '" + SanitizePeerText(claimed) + "' but its certificate names '" +
           name + "'";
    return -1;
  }
  return p;
}

class Service final : public pb::Party::Service {
 public:
  Service(const RunFacts& facts, Hub& hub) : facts_(facts), hub_(hub) {}

  grpc::Status Hello(grpc::ServerContext* ctx, const pb::HelloMessage* request,
                     pb::HelloMessage* reply) override {
    std::string why;
    const int p = Identify(facts_, *ctx, request->party_id(), &why);
    if (p < 0) return Refuse(*ctx, why);
    {
      std::lock_guard<std::mutex> lock(hub_.mu);
      if (!hub_.abandoned.empty()) {
        return {grpc::StatusCode::FAILED_PRECONDITION, "abandoned the run: " + hub_.abandoned};
      }
    }
    std::vector<std::size_t> sizes;
    const std::string err = CheckHello(*request, facts_.expect[p], facts_.spec_hash(),
                                       facts_.layout_hash, &sizes, facts_.options->spec_fields);
    if (!err.empty()) {
      const std::string what = "party '" + facts_.ids[p] + "' " + err;
      (*facts_.log)("refused party '" + facts_.ids[p] + "': " + err);
      std::lock_guard<std::mutex> lock(hub_.mu);
      if (!hub_.has_fatal) {
        hub_.has_fatal = true;
        hub_.fatal_peer = p;
        hub_.fatal = what;
      }
      hub_.cv.notify_all();
      return {grpc::StatusCode::FAILED_PRECONDITION,
              "party '" + facts_.ids[facts_.self] + "' refuses: " + what};
    }
    {
      std::lock_guard<std::mutex> lock(hub_.mu);
      Incoming& in = hub_.in[p];
      const auto now = Clock::now();
      if (in.opened) {
        // A reconnection: the same process (session), within its rate.
        if (request->session() != in.session) {
          return RunRefuses(p, grpc::StatusCode::FAILED_PRECONDITION,
                            "party '" + facts_.ids[p] +
                                "' said Hello again as another process (a restarted party): "
                                "a run under way cannot take it back; restart every party");
        }
        in.tokens = std::min(kReconnectBurst,
                             in.tokens + std::chrono::duration<double>(now - in.refilled).count() /
                                             kReconnectRefillSeconds);
        in.refilled = now;
        if (in.tokens < 1) {
          return RunRefuses(p, grpc::StatusCode::RESOURCE_EXHAUSTED,
                            "party '" + facts_.ids[p] + "' reconnected more than " +
                                std::to_string(static_cast<int>(kReconnectBurst)) +
                                " times at once (at most one per " +
                                Seconds(kReconnectRefillSeconds) + " after that)");
        }
        in.tokens -= 1;
        ++in.reconnects;
        (*facts_.log)("party '" + facts_.ids[p] + "' reconnected (its next round " +
                      std::to_string(request->next_round()) + ")");
      }
      in.hello = true;
      in.ticket = true;
      in.session = request->session();
      in.max_doubles = std::move(sizes);
      in.last_heard = now;
      hub_.cv.notify_all();
    }
    *reply = facts_.hello;
    reply->set_next_round(facts_.next_round->load());
    return grpc::Status::OK;
  }

  grpc::Status Exchange(grpc::ServerContext* ctx, grpc::ServerReader<pb::Envelope>* reader,
                        pb::ExchangeEnd*) override {
    std::string claimed;
    const auto& md = ctx->client_metadata();
    if (const auto it = md.find("dpadmm-party"); it != md.end()) {
      claimed.assign(it->second.data(), std::min<std::size_t>(it->second.size(), 64));
    }
    std::string why;
    const int p = Identify(facts_, *ctx, claimed, &why);
    if (p < 0) return Refuse(*ctx, why);
    std::uint64_t generation = 0;
    {
      std::lock_guard<std::mutex> lock(hub_.mu);
      Incoming& in = hub_.in[p];
      if (!in.ticket) return {grpc::StatusCode::FAILED_PRECONDITION, "Hello first"};
      if (in.broken) return {grpc::StatusCode::FAILED_PRECONDITION, in.violation};
      in.ticket = false;
      in.opened = true;
      // A new stream replaces the one before (whose connection broke, maybe unseen here yet).
      if (in.stream != nullptr) in.stream->TryCancel();
      in.stream = ctx;
      in.ended = false;
      generation = ++in.generation;
      in.last_heard = Clock::now();
    }
    pb::Envelope envelope;
    while (reader->Read(&envelope)) {
      std::lock_guard<std::mutex> lock(hub_.mu);
      Incoming& in = hub_.in[p];
      if (in.generation != generation) return {grpc::StatusCode::CANCELLED, "replaced"};
      in.last_heard = Clock::now();
      std::string violation;
      const InboundSequence::Result got = in.sequence.Accept(envelope, &violation);
      if (got == InboundSequence::Result::kNew && in.queue.size() >= kMaxQueuedEnvelopes) {
        violation =
            "sent more than " + std::to_string(kMaxQueuedEnvelopes) + " frames ahead of this party";
      }
      if (!violation.empty()) {
        in.violation = violation;
        in.broken = true;
        in.stream = nullptr;
        hub_.cv.notify_all();
        return {grpc::StatusCode::RESOURCE_EXHAUSTED, in.violation};
      }
      if (got == InboundSequence::Result::kNew) {
        in.queue.push_back(std::move(envelope));
        hub_.cv.notify_all();
      }
      envelope.Clear();
    }
    std::lock_guard<std::mutex> lock(hub_.mu);
    Incoming& in = hub_.in[p];
    if (in.generation == generation) {
      in.stream = nullptr;
      // Cancelled: the connection broke (or the peer's process ended); the peer may dial
      // again within the peer timeout. Otherwise it closed the stream: its run has ended.
      if (ctx->IsCancelled()) {
        ++in.disconnects;
      } else {
        in.ended = true;
      }
      hub_.cv.notify_all();
    }
    return grpc::Status::OK;
  }

 private:
  grpc::Status Refuse(const grpc::ServerContext& ctx, const std::string& why) {
    (*facts_.log)("refused a connection from " + ctx.peer() + ": " + why);
    return {grpc::StatusCode::PERMISSION_DENIED, why};
  }
  // A reconnection refused during the run: the engine ends the run naming the peer (hub_.mu
  // held).
  grpc::Status RunRefuses(int p, grpc::StatusCode code, const std::string& what) {
    (*facts_.log)("refused: " + what);
    if (!hub_.has_fatal) {
      hub_.has_fatal = true;
      hub_.fatal_peer = p;
      hub_.fatal = what;
    }
    hub_.cv.notify_all();
    return {code, "party '" + facts_.ids[facts_.self] + "' refuses: " + what};
  }

  const RunFacts& facts_;
  Hub& hub_;
};

// A Hello to one peer: accepted, not answered (try again), or refused (the run cannot go on).
enum class HelloResult { kAgreed, kRetry, kRefused };

// The outgoing half of one ordered pair: the envelopes for one peer, written to its Exchange
// stream by this link's own thread (Push never blocks), and kept until the peer acknowledges
// them. When the stream breaks (a reset connection, a failed write) the thread dials again
// with bounded backoff: a Hello (`hello`: the set-up agreement again), a new stream, then
// every envelope not yet acknowledged, as first made, then the rest. It gives up (failure())
// once the peer stays unreachable for `give_up`, or refuses.
class Link {
 public:
  using Hello = std::function<HelloResult(std::string* why)>;
  Link(std::shared_ptr<grpc::Channel> channel, pb::Party::Stub& stub, std::string self,
       std::string peer, Clock::duration give_up, Hello hello)
      : channel_(std::move(channel)),
        stub_(stub),
        self_(std::move(self)),
        peer_(std::move(peer)),
        give_up_(give_up),
        hello_(std::move(hello)) {
    thread_ = std::thread([this] { Loop(); });
  }
  ~Link() {
    Cancel();
    thread_.join();
  }
  Link(const Link&) = delete;
  Link& operator=(const Link&) = delete;

  // Numbers the envelope, stamps the acknowledgement `ack` and queues it; false when
  // kMaxUnacked envelopes wait for the peer's acknowledgement.
  bool Push(pb::Envelope envelope, std::uint64_t ack) {
    std::lock_guard<std::mutex> lock(mu_);
    if (!buffer_.Push(std::move(envelope), ack)) return false;
    cv_.notify_all();
    return true;
  }
  // The peer has received `count` envelopes ("" or the violation).
  std::string Acknowledge(std::uint64_t count) {
    std::lock_guard<std::mutex> lock(mu_);
    return buffer_.Acknowledge(count);
  }
  // Writes what is queued, then closes the stream (WritesDone, Finish).
  void Close() {
    std::lock_guard<std::mutex> lock(mu_);
    closing_ = true;
    cv_.notify_all();
  }
  // Ends the stream now (also a Write or Finish blocked on a peer that stopped reading).
  void Cancel() {
    std::lock_guard<std::mutex> lock(mu_);
    cancelled_ = true;
    if (ctx_ != nullptr) ctx_->TryCancel();
    cv_.notify_all();
  }
  bool done() {
    std::lock_guard<std::mutex> lock(mu_);
    return done_;
  }
  // Why this link gave up ("" while it has not).
  std::string failure() {
    std::lock_guard<std::mutex> lock(mu_);
    return failure_;
  }
  int reconnects() {
    std::lock_guard<std::mutex> lock(mu_);
    return reconnects_;
  }
  std::size_t unacknowledged() {
    std::lock_guard<std::mutex> lock(mu_);
    return buffer_.size();
  }

 private:
  enum class End { kClosed, kCancelled, kBroken, kRefused };

  void Loop() {
    for (;;) {
      std::string why;
      const End end = Stream(&why);
      if (end == End::kClosed || end == End::kCancelled) break;
      if (end == End::kRefused) {
        Fail("party '" + peer_ + "' refused this party's stream: " + why);
        break;
      }
      if (!Redial(why)) break;
    }
    std::lock_guard<std::mutex> lock(mu_);
    done_ = true;
  }

  // Hello again until the peer agrees (true), refuses, or stays unreachable for give_up_.
  bool Redial(const std::string& broke) {
    const auto deadline = Clock::now() + give_up_;
    auto pause = std::chrono::milliseconds(100);
    std::string why = broke;
    for (;;) {
      {
        std::unique_lock<std::mutex> lock(mu_);
        cv_.wait_for(lock, pause, [&] { return cancelled_; });
        if (cancelled_) return false;
      }
      pause = std::min(pause * 2, std::chrono::milliseconds(2000));
      const HelloResult r = hello_(&why);
      if (r == HelloResult::kAgreed) {
        std::lock_guard<std::mutex> lock(mu_);
        ++reconnects_;
        return true;
      }
      if (r == HelloResult::kRefused) {
        Fail(why);
        return false;
      }
      if (Clock::now() > deadline) {
        Fail("the connection to party '" + peer_ + "' broke (" + broke +
             ") and it could not be reached again within " +
             Seconds(std::chrono::duration<double>(give_up_).count()) + ": " + why);
        return false;
      }
    }
  }

  // One stream: every kept envelope from the oldest unacknowledged on, then what comes.
  End Stream(std::string* why) {
    grpc::ClientContext ctx;
    ctx.AddMetadata("dpadmm-party", self_);
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (cancelled_) return End::kCancelled;
      ctx_ = &ctx;
    }
    pb::ExchangeEnd reply;
    std::unique_ptr<grpc::ClientWriter<pb::Envelope>> stream = stub_.Exchange(&ctx, &reply);
    std::uint64_t cursor = 0;
    bool closing = false;
    bool written = true;
    {
      std::lock_guard<std::mutex> lock(mu_);
      cursor = buffer_.first();
    }
    for (;;) {
      pb::Envelope e;
      {
        std::unique_lock<std::mutex> lock(mu_);
        // Idle, the stream learns of a broken connection from the channel only: it leaves
        // READY when its transport closes (a reset), and a write would fail.
        while (!cv_.wait_for(lock, std::chrono::milliseconds(50),
                             [&] { return cursor < buffer_.next() || closing_ || cancelled_; })) {
          if (channel_->GetState(false) != GRPC_CHANNEL_READY) break;
        }
        if (cancelled_) break;
        if (cursor == buffer_.next() && !closing_) {
          ctx.TryCancel();  // so that Finish does not wait on a call that may linger
          written = false;
          break;
        }
        cursor = std::max(cursor, buffer_.first());
        if (cursor == buffer_.next()) {
          closing = true;
          break;
        }
        e = buffer_.At(cursor);
      }
      if (!stream->Write(e)) {
        written = false;
        break;
      }
      ++cursor;
    }
    if (closing && written) stream->WritesDone();
    const grpc::Status status = stream->Finish();
    std::lock_guard<std::mutex> lock(mu_);
    ctx_ = nullptr;
    if (cancelled_) return End::kCancelled;
    // A closed stream that the peer's server finished without error: it read every envelope.
    if (closing && written && status.ok()) return End::kClosed;
    *why = SanitizePeerText(status.error_message());
    switch (status.error_code()) {
      case grpc::StatusCode::PERMISSION_DENIED:
      case grpc::StatusCode::FAILED_PRECONDITION:
      case grpc::StatusCode::RESOURCE_EXHAUSTED:
      case grpc::StatusCode::ALREADY_EXISTS:
      case grpc::StatusCode::INVALID_ARGUMENT: return End::kRefused;
      default:
        if (why->empty()) *why = "stream ended";
        return End::kBroken;
    }
  }

  void Fail(const std::string& why) {
    std::lock_guard<std::mutex> lock(mu_);
    if (failure_.empty()) failure_ = why;
  }

  std::shared_ptr<grpc::Channel> channel_;
  pb::Party::Stub& stub_;
  const std::string self_, peer_;
  const Clock::duration give_up_;
  Hello hello_;
  std::mutex mu_;
  std::condition_variable cv_;
  OutboundBuffer buffer_;
  grpc::ClientContext* ctx_ = nullptr;  // the current stream's (to cancel it)
  bool closing_ = false;
  bool cancelled_ = false;
  bool done_ = false;
  int reconnects_ = 0;
  std::string failure_;
  std::thread thread_;
};

struct Source {    // where node a's k-th inbox message comes from
  int peer = -1;   // -1: a local neighbour
  int local = -1;  // its local index
  int edge = -1;   // else: the edge index in that peer's frames
};

class NetworkRun {
 public:
  NetworkRun(std::span<NodeProgram* const> programs, const Topology& topology,
             const EngineOptions& engine, const NetworkOptions& options, RoundSink& sink)
      : programs_(programs),
        topology_(topology),
        engine_(engine),
        options_(options),
        sink_(sink),
        n_(topology.num_nodes()),
        timeout_(ToDuration(options.peer_timeout_seconds)),
        say_(options.log ? options.log : [self = options.self](const std::string& line) {
          std::fprintf(stderr, "dpadmm party '%s': %s\n", self.c_str(), line.c_str());
        }),
        log_(say_) {}

  ~NetworkRun() { Teardown(); }

  EngineResult Execute() {
    if (auto failure = Prepare()) {
      EngineResult r;
      r.outcome = EngineOutcome::kFailed;
      r.failure = std::move(*failure);
      return r;
    }
    try {
      StartServer();
      Setup();
      ExchangeSetup();
      if (!decided_) AgreeResume();
      Loop();
    } catch (const NetworkError& e) {
      AbortPeers(e.what());
      throw;
    } catch (const std::exception& e) {
      AbortPeers(std::string("party '") + facts_.ids[facts_.self] + "': " + e.what());
      throw;
    }
    CloseAll();
    LogReconnections();
    return result_;
  }

 private:
  // ---- set-up ------------------------------------------------------------------------------

  // Checks the input, learns the local programs' shapes and derives who sends what to whom.
  // A program that throws while asked for its sizes is a failure of this party at round -1.
  std::optional<NodeFailure> Prepare() {
    ValidateNetworkOptions(options_, n_);
    const int parties = static_cast<int>(options_.parties.size());
    facts_.options = &options_;
    facts_.log = &log_;
    for (const auto& a : options_.parties) facts_.ids.push_back(a.id);
    facts_.self = facts_.PartyOf(options_.self);
    self_ = facts_.self;
    local_ = PartyNodes(options_.node_parties, self_);
    if (local_.empty()) {
      throw std::invalid_argument("party '" + options_.self + "' hosts no node");
    }
    if (programs_.size() != local_.size()) {
      throw std::invalid_argument("got " + std::to_string(programs_.size()) +
                                  " node programs for the " + std::to_string(local_.size()) +
                                  " nodes party '" + options_.self + "' hosts");
    }
    for (NodeProgram* p : programs_) {
      if (p == nullptr) throw std::invalid_argument("a node program is null");
    }
    if (engine_.last_round < 0) throw std::invalid_argument("last_round must be >= 0");
    last_ = engine_.last_round;
    if (options_.resume_rounds.size() > kMaxResumeRounds ||
        (!options_.resuming && !options_.resume_rounds.empty())) {
      throw std::invalid_argument("resume_rounds: at most " + std::to_string(kMaxResumeRounds) +
                                  " rounds, and only when resuming");
    }
    for (const std::int64_t r : options_.resume_rounds) {
      if (r < 0 || r > last_) throw std::invalid_argument("resume_rounds: a round beyond the run");
    }
    for (int i = 0; i < n_; ++i) {
      for (int j : topology_.neighbors[i]) {
        if (j < 0 || j >= n_ || j == i ||
            std::find(topology_.neighbors[j].begin(), topology_.neighbors[j].end(), i) ==
                topology_.neighbors[j].end()) {
          throw std::invalid_argument("topology: invalid or one-way edge " + std::to_string(i) +
                                      " -> " + std::to_string(j));
        }
      }
    }
    if (auto failure = QueryShapes(programs_, shapes_)) {
      failure->node = local_[static_cast<std::size_t>(failure->node)];
      failure->rank = self_;
      return failure;
    }
    local_index_.assign(static_cast<std::size_t>(n_), -1);
    for (std::size_t a = 0; a < local_.size(); ++a) local_index_[local_[a]] = static_cast<int>(a);
    std::size_t cap = options_.max_message_doubles;
    if (cap == 0) {
      for (std::size_t s : shapes_.max_message) cap = std::max(cap, s);
    }
    for (std::size_t a = 0; a < local_.size(); ++a) {
      if (shapes_.max_message[a] > cap) {
        throw std::invalid_argument("node " + std::to_string(local_[a]) + "'s MaxMessageSize " +
                                    std::to_string(shapes_.max_message[a]) +
                                    " exceeds max_message_doubles " + std::to_string(cap));
      }
    }
    facts_.layout_hash =
        LayoutHash(topology_, options_.node_parties, facts_.ids, engine_.last_round);
    facts_.expect.resize(static_cast<std::size_t>(parties));
    out_edges_.resize(static_cast<std::size_t>(parties));
    neighbour_party_.assign(static_cast<std::size_t>(parties), false);
    for (int q = 0; q < parties; ++q) {
      if (q == self_) continue;
      PeerExpect& e = facts_.expect[q];
      e.id = facts_.ids[q];
      e.nodes = PartyNodes(options_.node_parties, q);
      e.last_round = engine_.last_round;
      e.max_doubles = cap;
      e.resuming = options_.resuming;
      e.setup_exchange = static_cast<bool>(options_.on_setup);
      e.setup_values = options_.setup_values.size();
    }
    for (int i : local_) {
      for (int j : topology_.neighbors[i]) {
        const int q = options_.node_parties[j];
        if (q == self_) continue;
        facts_.expect[q].edges.emplace_back(j, i);
        out_edges_[q].emplace_back(i, j);
        neighbour_party_[q] = true;
      }
    }
    for (int q = 0; q < parties; ++q) {
      std::sort(facts_.expect[q].edges.begin(), facts_.expect[q].edges.end());
      std::sort(out_edges_[q].begin(), out_edges_[q].end());
    }
    sources_.resize(local_.size());
    for (std::size_t a = 0; a < local_.size(); ++a) {
      for (int j : topology_.neighbors[local_[a]]) {
        Source s;
        const int q = options_.node_parties[j];
        if (q == self_) {
          s.local = local_index_[j];
        } else {
          const auto& edges = facts_.expect[q].edges;
          s.peer = q;
          s.edge = static_cast<int>(
              std::lower_bound(edges.begin(), edges.end(), std::make_pair(j, local_[a])) -
              edges.begin());
        }
        sources_[a].push_back(s);
      }
    }
    // This party's Hello.
    pb::HelloMessage& h = facts_.hello;
    h.set_protocol_version(kProtocolVersion);
    h.set_party_id(options_.self);
    h.set_spec_hash(std::string(options_.spec_hash.begin(), options_.spec_hash.end()));
    h.set_layout_hash(facts_.layout_hash);
    h.set_resuming(options_.resuming);
    {
      std::random_device entropy;  // tells this process from a restarted one; not a secret
      std::string session(kSessionBytes, '\0');
      for (char& c : session) c = static_cast<char>(entropy() & 0xff);
      h.set_session(session);
    }
    facts_.next_round = &next_round_;
    h.set_setup_exchange(static_cast<bool>(options_.on_setup));
    h.set_setup_values(options_.setup_values.size());
    for (const std::int64_t r : options_.resume_rounds) h.add_resume_rounds(r);
    std::size_t fields_bytes = 0;
    for (const SpecField& f : options_.spec_fields) {
      auto* field = h.add_spec_fields();
      field->set_name(f.name);
      field->set_digest(std::string(f.digest.begin(), f.digest.end()));
    }
    // A peer's fields within the limits of SpecField (a different spec may have other fields).
    fields_bytes = kMaxSpecFields * (128 + 64 + 8);
    for (std::size_t a = 0; a < local_.size(); ++a) {
      auto* node = h.add_nodes();
      node->set_node(static_cast<std::uint32_t>(local_[a]));
      node->set_max_doubles(shapes_.max_message[a]);
    }
    // The largest envelope a peer may send (its round frame, a Hello, its set-up values, or an
    // abort).
    std::size_t largest = 4096 + options_.spec_hash.size() + fields_bytes;
    if (options_.on_setup) {
      for (const double v : options_.setup_values) {
        if (!std::isfinite(v)) throw std::invalid_argument("setup_values: a value is not finite");
      }
      largest = std::max(largest, 256 + options_.setup_values.size() * 8);
    }
    for (int q = 0; q < parties; ++q) {
      if (q == self_) continue;
      largest = std::max(largest, 256 + options_.spec_hash.size() + fields_bytes +
                                      32 * facts_.expect[q].nodes.size());
      largest = std::max(largest, 256 + facts_.expect[q].edges.size() * (cap * 8 + 48));
    }
    if (largest > (std::size_t{1} << 30)) {
      throw std::invalid_argument("a round frame could reach " + std::to_string(largest) +
                                  " bytes, more than the 1 GB gRPC allows");
    }
    max_receive_ = static_cast<int>(largest);
    // Buffers.
    for (std::size_t a = 0; a < local_.size(); ++a) {
      inboxes_.emplace_back(topology_.neighbors[local_[a]].size());
      outboxes_.emplace_back(shapes_.max_message[a]);
    }
    for (auto& m : messages_) m.resize(local_.size());
    peers_.reserve(static_cast<std::size_t>(parties));
    for (int q = 0; q < parties; ++q) peers_.emplace_back(facts_.expect[q]);
    table_.assign(static_cast<std::size_t>(n_) * shapes_.report_width,
                  std::numeric_limits<double>::quiet_NaN());
    pool_ = std::make_unique<LocalPool>(engine_.threads);
    hub_.in.resize(static_cast<std::size_t>(parties));
    last_sent_.assign(static_cast<std::size_t>(parties), Clock::now());
    peer_ended_.assign(static_cast<std::size_t>(parties), 0);
    peer_rounds_.resize(static_cast<std::size_t>(parties));
    peer_rounds_[self_] = options_.resume_rounds;
    return std::nullopt;
  }

  void StartServer() {
    {
      std::lock_guard<std::mutex> lock(g_log_mu);
      g_log = &log_;
      gpr_set_log_function(GprLog);
    }
    std::shared_ptr<grpc::ServerCredentials> creds;
    if (options_.insecure) {
      creds = grpc::InsecureServerCredentials();
    } else {
      grpc::SslServerCredentialsOptions ssl(
          GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY);
      ssl.pem_root_certs = ca_ = ReadText(options_.tls.ca_cert, "the CA certificate");
      cert_ = ReadText(options_.tls.cert, "this party's certificate");
      key_ = ReadPrivateKeyFile(options_.tls.key);
      ssl.pem_key_cert_pairs.push_back({key_, cert_});
      creds = grpc::SslServerCredentials(ssl);
    }
    service_ = std::make_unique<Service>(facts_, hub_);
    grpc::ServerBuilder builder;
    const PartyAddress& own = options_.parties[self_];
    const std::string& address = own.listen.empty() ? own.address : own.listen;
    int port = 0;
    builder.AddListeningPort(address, creds, &port);
    builder.SetMaxReceiveMessageSize(max_receive_);
    builder.SetMaxSendMessageSize(1 << 20);
    builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);  // no second listener on our port
    builder.RegisterService(service_.get());
    server_ = builder.BuildAndStart();
    if (!server_ || port == 0) {
      throw NetworkError(Kind::kConfig, "",
                         "party '" + options_.self + "' cannot listen on " + address +
                             " (address in use, or not an address of this machine)");
    }
    for (int q = 0; q < static_cast<int>(options_.parties.size()); ++q) {
      stubs_.emplace_back();
      channels_.emplace_back();
      if (q == self_) continue;
      std::shared_ptr<grpc::ChannelCredentials> channel_creds;
      grpc::ChannelArguments args;
      args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 100);
      args.SetInt(GRPC_ARG_MIN_RECONNECT_BACKOFF_MS, 100);
      args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 1000);
      args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
      args.SetMaxReceiveMessageSize(max_receive_);
      if (options_.insecure) {
        channel_creds = grpc::InsecureChannelCredentials();
      } else {
        grpc::SslCredentialsOptions ssl;
        ssl.pem_root_certs = ca_;
        ssl.pem_private_key = key_;
        ssl.pem_cert_chain = cert_;
        channel_creds = grpc::SslCredentials(ssl);
        // The server's certificate must name the party we dial (its SAN), whatever the host.
        args.SetSslTargetNameOverride(facts_.ids[q]);
      }
      channels_.back() =
          grpc::CreateCustomChannel(options_.parties[q].address, channel_creds, args);
      stubs_.back() = pb::Party::NewStub(channels_.back());
    }
  }

  static std::string ReadText(const std::string& path, const char* what) {
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (f == nullptr) {
      throw NetworkError(Kind::kConfig, "", std::string(what) + " '" + path + "' cannot be read");
    }
    std::string text;
    char buf[4096];
    for (std::size_t got; (got = std::fread(buf, 1, sizeof buf, f)) > 0;) {
      text.append(buf, got);
      if (text.size() > (1u << 20)) break;
    }
    std::fclose(f);
    if (text.size() > (1u << 20)) {
      throw NetworkError(Kind::kConfig, "", std::string(what) + " '" + path + "' exceeds 1 MB");
    }
    return text;
  }

  // A set-up failure. A refusal or a mismatch (linger) is also told, until the set-up
  // deadline, to every peer that says Hello, so that a party that starts late learns why.
  [[noreturn]] void SetupFails(int q, const std::string& what, bool linger = true) {
    const std::string text = "party '" + options_.self + "': " + what;
    if (linger) {
      {
        std::lock_guard<std::mutex> lock(hub_.mu);
        hub_.abandoned = text;
      }
      while (Clock::now() < setup_deadline_) {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      }
    }
    throw NetworkError(Kind::kSetup, facts_.ids[q], text);
  }

  // Hello to every peer until each has answered, and every peer has said Hello to us.
  void Setup() {
    const int parties = static_cast<int>(options_.parties.size());
    const auto deadline = setup_deadline_ =
        Clock::now() + ToDuration(options_.setup_timeout_seconds);
    std::vector<bool> reached(static_cast<std::size_t>(parties), false);
    std::vector<std::string> last_error(static_cast<std::size_t>(parties), "no answer yet");
    reached[self_] = true;
    auto pause = std::chrono::milliseconds(50);
    links_.resize(static_cast<std::size_t>(parties));
    peer_sessions_.resize(static_cast<std::size_t>(parties));
    for (;;) {
      CheckHubFatal();
      for (int q = 0; q < parties; ++q) {
        if (!reached[q]) reached[q] = TryHello(q, deadline, &last_error[q]);
      }
      CheckHubFatal();
      std::string missing;
      int first = -1;
      {
        std::lock_guard<std::mutex> lock(hub_.mu);
        for (int q = 0; q < parties; ++q) {
          const std::string who =
              "party '" + facts_.ids[q] + "' (" + options_.parties[q].address + ")";
          if (!reached[q]) missing += "; " + who + " not reached: " + last_error[q];
          if (q != self_ && !hub_.in[q].hello) missing += "; " + who + " has not said hello";
          if (first < 0 && !missing.empty()) first = q;
        }
      }
      if (missing.empty()) break;
      if (Clock::now() > deadline) {
        SetupFails(
            first,
            "set-up did not complete within " + Seconds(options_.setup_timeout_seconds) + missing,
            /*linger=*/false);
      }
      std::this_thread::sleep_for(pause);
      pause = std::min(pause * 2, std::chrono::milliseconds(1000));
    }
    std::lock_guard<std::mutex> lock(hub_.mu);
    const auto now = Clock::now();
    for (auto& in : hub_.in) in.last_heard = now;
    last_sent_.assign(last_sent_.size(), now);
  }

  void CheckHubFatal() {
    int peer = -1;
    std::string what;
    {
      std::lock_guard<std::mutex> lock(hub_.mu);
      if (!hub_.has_fatal) return;
      peer = hub_.fatal_peer;
      what = hub_.fatal;
    }
    SetupFails(peer, what);
  }

  bool TryHello(int q, Clock::time_point deadline, std::string* last_error) {
    pb::HelloMessage reply;
    std::string why;
    const HelloResult r = HelloOnce(q, deadline, &reply, &why);
    if (r == HelloResult::kRefused) SetupFails(q, why);
    if (r == HelloResult::kRetry) {
      *last_error = why;
      return false;
    }
    std::vector<std::size_t> sizes;
    (void)CheckHello(reply, facts_.expect[q], facts_.spec_hash(), facts_.layout_hash, &sizes,
                     options_.spec_fields);
    peers_[q] = PeerStream(facts_.expect[q], std::move(sizes));
    peer_rounds_[q].assign(reply.resume_rounds().begin(), reply.resume_rounds().end());
    peer_sessions_[q] = reply.session();
    links_[q] =
        std::make_unique<Link>(channels_[q], *stubs_[q], options_.self, facts_.ids[q], timeout_,
                               [this, q](std::string* w) { return Redial(q, w); });
    return true;
  }

  // A Hello to peer q and the checks of its answer (the certificate's name, the agreement);
  // on kRefused `why` names what differs, on kRetry what failed. Thread-safe (a link's thread
  // redials with it).
  HelloResult HelloOnce(int q, Clock::time_point deadline, pb::HelloMessage* reply,
                        std::string* why) {
    grpc::ClientContext ctx;
    const auto wait = std::min<Clock::duration>(deadline - Clock::now(), std::chrono::seconds(2));
    ctx.set_deadline(std::chrono::system_clock::now() +
                     std::max<Clock::duration>(wait, std::chrono::milliseconds(100)));
    pb::HelloMessage hello = facts_.hello;
    hello.set_next_round(next_round_.load());
    const grpc::Status s = stubs_[q]->Hello(&ctx, hello, reply);
    const std::string who = "party '" + facts_.ids[q] + "'";
    if (s.error_code() == grpc::StatusCode::PERMISSION_DENIED ||
        s.error_code() == grpc::StatusCode::FAILED_PRECONDITION ||
        s.error_code() == grpc::StatusCode::RESOURCE_EXHAUSTED) {
      *why = who + " refused this party: " + SanitizePeerText(s.error_message());
      return HelloResult::kRefused;
    }
    if (!s.ok()) {
      *why = UnansweredHello(s, !options_.insecure, options_.self);
      return HelloResult::kRetry;
    }
    if (!options_.insecure) {
      const auto auth = ctx.auth_context();
      const auto sans = auth ? auth->FindPropertyValues(GRPC_X509_SAN_PROPERTY_NAME)
                             : std::vector<grpc::string_ref>{};
      if (sans.size() != 1 || std::string(sans[0].data(), sans[0].size()) != facts_.ids[q]) {
        *why = who + " at " + options_.parties[q].address +
               " presented a certificate that does not name exactly '" + facts_.ids[q] + "'";
        return HelloResult::kRefused;
      }
    }
    const std::string err = CheckHello(*reply, facts_.expect[q], facts_.spec_hash(),
                                       facts_.layout_hash, nullptr, options_.spec_fields);
    if (!err.empty()) {
      log_("refused party '" + facts_.ids[q] + "': " + err);
      *why = who + " " + err;
      return HelloResult::kRefused;
    }
    return HelloResult::kAgreed;
  }

  // A link's reconnection to peer q: the Hello again, and the peer must be the process of
  // the first Hello (its session; another one is a restarted party).
  HelloResult Redial(int q, std::string* why) {
    pb::HelloMessage reply;
    const auto until = Clock::now() + std::chrono::seconds(2);
    const HelloResult r = HelloOnce(q, until, &reply, why);
    if (r != HelloResult::kAgreed) return r;
    if (reply.session() != peer_sessions_[q]) {
      *why = "party '" + facts_.ids[q] +
             "' answered as another process (a restarted party): a run under way cannot take "
             "it back; restart every party";
      return HelloResult::kRefused;
    }
    log_("reconnected to party '" + facts_.ids[q] + "' (its next round " +
         std::to_string(reply.next_round()) + ")");
    return HelloResult::kAgreed;
  }

  // The set-up exchange (NetworkOptions::on_setup): this party's values to every peer, then
  // on_setup with every party's once all have arrived. Waits as the run does (Pump, Idle: a
  // peer silent for the peer timeout, aborting or breaking the protocol ends it; a cancel
  // from any party ends the run cancelled before round 0).
  void ExchangeSetup() {
    if (!options_.on_setup) return;
    pb::Envelope e;
    e.mutable_setup()->mutable_values()->Add(options_.setup_values.begin(),
                                             options_.setup_values.end());
    SendAll(e);
    for (;;) {
      Pump();
      if (decided_) return;
      if (engine_.stop != nullptr && engine_.stop->stop_requested()) {
        pb::Envelope cancel;
        cancel.mutable_cancel();
        SendAll(cancel);
        Decide(EngineOutcome::kCancelled);
        return;
      }
      blocked_on_.clear();
      for (std::size_t q = 0; q < peers_.size(); ++q) {
        if (static_cast<int>(q) != self_ && !peers_[q].setup_received()) {
          blocked_on_.insert(static_cast<int>(q));
        }
      }
      if (blocked_on_.empty()) break;
      Heartbeats();
      Idle();
    }
    std::vector<std::vector<double>> values(peers_.size());
    for (std::size_t q = 0; q < peers_.size(); ++q) {
      values[q] = static_cast<int>(q) == self_ ? options_.setup_values : peers_[q].setup_values();
    }
    options_.on_setup(values);
  }

  // Resuming: the largest round every party holds a checkpoint of (each party computes the
  // same from the same Hellos); the caller restores its programs to it.
  void AgreeResume() {
    if (!options_.resuming) return;
    std::set<std::int64_t> common(peer_rounds_[self_].begin(), peer_rounds_[self_].end());
    std::string held;
    for (std::size_t q = 0; q < peer_rounds_.size(); ++q) {
      const std::set<std::int64_t> theirs(peer_rounds_[q].begin(), peer_rounds_[q].end());
      std::set<std::int64_t> both;
      std::set_intersection(common.begin(), common.end(), theirs.begin(), theirs.end(),
                            std::inserter(both, both.end()));
      common.swap(both);
      std::string rounds;
      for (const std::int64_t r : theirs)
        rounds += (rounds.empty() ? "" : ", ") + std::to_string(r);
      held += (held.empty() ? "" : "; ") +
              ("party '" + facts_.ids[q] + "' holds round" + (theirs.size() == 1 ? " " : "s ") +
               (rounds.empty() ? "none" : rounds));
    }
    if (common.empty()) {
      throw NetworkError(Kind::kSetup, "",
                         "no checkpoint round is held by every party, so the run cannot resume "
                         "(" +
                             held + "); restart every party without --resume");
    }
    start_round_ = *common.rbegin();
    if (options_.on_resume) options_.on_resume(start_round_);
    last_ = engine_.last_round - start_round_;
  }

  // A checkpoint falls after engine round d (see NetworkOptions::checkpoint_every); not after
  // round 0, which a resumed run re-sends from the checkpoint it resumed from.
  bool CheckpointAfter(std::int64_t d) const {
    const std::int64_t real = start_round_ + d;
    return options_.checkpoint_every > 0 && d > 0 && d < last_ &&
           real % options_.checkpoint_every == 0;
  }

  // ---- the run -----------------------------------------------------------------------------

  void Loop() {
    const std::int64_t last = last_;
    while (!decided_) {
      Pump();
      if (decided_) break;
      if (engine_.stop != nullptr && engine_.stop->stop_requested()) {
        pb::Envelope e;
        e.mutable_cancel();
        SendAll(e);
        Decide(EngineOutcome::kCancelled);
        break;
      }
      bool progress = false;
      blocked_on_.clear();
      // No local node steps past a checkpoint round before the checkpoint is written.
      const bool held =
          next_compute_ > 0 && CheckpointAfter(next_compute_ - 1) && next_deliver_ < next_compute_;
      if (!local_failed_ && !held && next_compute_ <= last &&
          next_compute_ <= next_deliver_ + kLeadRounds && InputsArrived(next_compute_)) {
        ComputeRound(next_compute_++);
        next_round_.store(next_compute_);
        progress = true;
      }
      while (!decided_ && TryDeliver()) progress = true;
      Heartbeats();
      if (progress) ended_wait_start_.reset();
      if (!progress && !decided_) Idle();
    }
  }

  // Every peer hosting a neighbour of a local node has sent its round r-1 frame, without fault.
  bool InputsArrived(std::int64_t r) {
    if (r == 0) return true;
    bool ok = true;
    for (std::size_t q = 0; q < peers_.size(); ++q) {
      if (!neighbour_party_[q]) continue;
      const PeerStream& p = peers_[q];
      if (p.rounds_received() < r || p.Round(r - 1).failed) {
        blocked_on_.insert(static_cast<int>(q));
        ok = false;
      }
    }
    return ok;
  }

  void ComputeRound(std::int64_t r) {
    const std::size_t m = local_.size();
    std::vector<NodeFailure> failures(m);
    rows_.emplace_back(m * shapes_.report_width);
    std::vector<double>& rows = rows_.back();
    pool_->For(static_cast<int>(m), [&](int a) { failures[a] = StepNode(a, r, rows); });
    NodeFailure failure;
    for (std::size_t a = 0; a < m && failure.node < 0; ++a) {
      if (failures[a].node >= 0) failure = std::move(failures[a]);
    }
    pb::Envelope e;
    pb::RoundFrame* f = e.mutable_round();
    f->set_round(r);
    if (failure.node >= 0) {
      failure.rank = self_;
      local_failure_ = std::move(failure);
      local_failed_ = true;
      f->set_failed(true);
      f->set_failed_node(static_cast<std::uint32_t>(local_failure_.node));
      f->set_failure_kind(static_cast<std::uint32_t>(local_failure_.kind));
      SendAll(e);
      return;
    }
    for (std::size_t q = 0; q < peers_.size(); ++q) {
      if (static_cast<int>(q) == self_) continue;
      f->clear_messages();
      for (const auto& [i, j] : out_edges_[q]) {
        pb::NodeMessage* msg = f->add_messages();
        msg->set_from_node(static_cast<std::uint32_t>(i));
        msg->set_to_node(static_cast<std::uint32_t>(j));
        const auto& payload = messages_[r % 2][local_index_[i]];
        msg->mutable_payload()->Add(payload.begin(), payload.end());
      }
      Send(static_cast<int>(q), e);
    }
  }

  // Node a's round r: the node_calls.h checks, its message kept for the next round.
  NodeFailure StepNode(int a, std::int64_t r, std::vector<double>& rows) {
    const int node = local_[a];
    NodeFailure failure;
    StepResult step;
    const char* method = r == 0 ? "Start" : "Step";
    try {
      if (r == 0) {
        step = programs_[a]->Start(outboxes_[a]);
      } else {
        const auto& prev = messages_[(r - 1) % 2];
        for (std::size_t k = 0; k < sources_[a].size(); ++k) {
          const Source& s = sources_[a][k];
          inboxes_[a].Set(k, s.peer < 0 ? std::span<const double>(prev[s.local])
                                        : peers_[s.peer].Round(r - 1).Message(s.edge));
        }
        step = programs_[a]->Step(r, inboxes_[a], outboxes_[a]);
      }
    } catch (...) {
      return CaughtException(node, r, method);
    }
    if (!step.ok) return {node, r, FailureKind::kStepFailed, std::move(step.error)};
    const std::span<const double> message = outboxes_[a].message();
    const std::size_t bad = FirstNonFinite(message);
    if (bad != message.size()) return NonFiniteValue(node, r, "message", message, bad);
    messages_[r % 2][a].assign(message.begin(), message.end());
    const std::size_t w = shapes_.report_width;
    ReportRound(*programs_[a], node, r, {rows.data() + static_cast<std::size_t>(a) * w, w},
                shapes_.finite_report[a], failure);
    return failure;
  }

  // Hands round next_deliver_ to the sink when every party has completed it and every verdict
  // on the round before is in; decides the outcome when it can. Returns whether it advanced.
  bool TryDeliver() {
    const std::int64_t d = next_deliver_;
    const std::int64_t last = last_;
    // Verdicts on round d - 1 (on the last round once it has been delivered).
    if (d >= 1) {
      bool all = true;
      for (std::size_t q = 0; q < peers_.size(); ++q) {
        if (static_cast<int>(q) == self_) continue;
        if (peers_[q].stop_round() == d - 1) {
          Decide(EngineOutcome::kStopped);
          return false;
        }
        if (peers_[q].verdicts_received() < d) {
          blocked_on_.insert(static_cast<int>(q));
          all = false;
        }
      }
      if (!all) return false;
      if (d > last) {
        Decide(EngineOutcome::kCompleted);
        return false;
      }
    }
    // Every party's round d.
    if (next_compute_ <= d) return false;
    bool all = true;
    for (std::size_t q = 0; q < peers_.size(); ++q) {
      if (static_cast<int>(q) != self_ && peers_[q].rounds_received() <= d) {
        blocked_on_.insert(static_cast<int>(q));
        all = false;
      }
    }
    if (!all) return false;
    NodeFailure failure;
    if (local_failed_ && local_failure_.round == d) failure = local_failure_;
    for (std::size_t q = 0; q < peers_.size(); ++q) {
      if (static_cast<int>(q) == self_) continue;
      const PeerRound& pr = peers_[q].Round(d);
      if (pr.failed && (failure.node < 0 || pr.failed_node < failure.node)) {
        failure = {pr.failed_node, d, pr.kind,
                   "node " + std::to_string(pr.failed_node) + " (party '" + facts_.ids[q] +
                       "') failed in round " + std::to_string(d) + " (" + ToString(pr.kind) +
                       "); the details stay on party '" + facts_.ids[q] + "'",
                   static_cast<int>(q)};
      }
    }
    if (failure.node >= 0) {
      result_.failure = std::move(failure);
      Decide(EngineOutcome::kFailed);
      return false;
    }
    const std::size_t w = shapes_.report_width;
    const std::vector<double>& rows = rows_.front();
    for (std::size_t a = 0; a < local_.size(); ++a) {
      std::copy_n(rows.data() + a * w, w, table_.data() + static_cast<std::size_t>(local_[a]) * w);
    }
    const bool go_on = sink_.OnRound(d, ReportTable(table_.data(), n_, w));
    result_.last_reported_round = d;
    rows_.pop_front();
    ++next_deliver_;
    for (auto& p : peers_) p.DropBefore(std::min(next_deliver_, next_compute_ - 1));
    if (go_on && CheckpointAfter(d) && options_.on_checkpoint) {
      options_.on_checkpoint(start_round_ + d);
    }
    pb::Envelope e;
    e.mutable_verdict()->set_round(d);
    e.mutable_verdict()->set_go_on(go_on);
    SendAll(e);
    if (!go_on) {
      Decide(EngineOutcome::kStopped);
      return false;
    }
    return true;
  }

  void Decide(EngineOutcome outcome) {
    result_.outcome = outcome;
    decided_ = true;
  }

  // Decodes what the peers sent; throws on a violation, an abort, or a broken connection.
  void Pump() {
    std::vector<std::deque<pb::Envelope>> got(peers_.size());
    std::vector<Incoming> flags(peers_.size());
    {
      std::lock_guard<std::mutex> lock(hub_.mu);
      for (std::size_t q = 0; q < peers_.size(); ++q) {
        got[q].swap(hub_.in[q].queue);
        flags[q].ended = hub_.in[q].ended;
        flags[q].broken = hub_.in[q].broken;
        flags[q].violation = hub_.in[q].violation;
      }
    }
    CheckRunFatal();
    for (std::size_t q = 0; q < peers_.size(); ++q) {
      const std::string who = "party '" + facts_.ids[q] + "'";
      for (const pb::Envelope& e : got[q]) {
        if (decided_) break;
        std::string err = links_[q] ? links_[q]->Acknowledge(e.ack()) : "";
        if (err.empty()) err = peers_[q].Accept(e, next_deliver_);
        if (!err.empty()) {
          log_("refused a frame from " + who + ": " + err);
          throw NetworkError(
              Kind::kProtocol, facts_.ids[q],
              "party '" + options_.self + "' refused a frame from " + who + ": " + err);
        }
        if (peers_[q].aborted()) {
          throw NetworkError(Kind::kPeerFailed, facts_.ids[q],
                             who + " ended the run: " + peers_[q].abort_reason());
        }
        if (peers_[q].cancelled()) Decide(EngineOutcome::kCancelled);
      }
      if (decided_) continue;
      if (!flags[q].violation.empty()) {
        log_("refused " + who + ": " + flags[q].violation);
        throw NetworkError(
            Kind::kProtocol, facts_.ids[q],
            "party '" + options_.self + "' refused " + who + ": " + flags[q].violation);
      }
      if (links_[q]) {
        const std::string failure = links_[q]->failure();
        if (!failure.empty()) throw NetworkError(Kind::kPeerFailed, facts_.ids[q], failure);
      }
      peer_ended_[q] = flags[q].ended;
    }
  }

  // A handler refused a peer's Hello during the run (a restarted party, too many
  // reconnections): the run ends naming it.
  void CheckRunFatal() {
    std::lock_guard<std::mutex> lock(hub_.mu);
    if (hub_.has_fatal)
      throw NetworkError(Kind::kPeerFailed, facts_.ids[hub_.fatal_peer], hub_.fatal);
  }

  // Nothing to do: wait for a frame (bounded). Fails a peer silent for the peer timeout, and a
  // peer we wait for that has closed its stream if nothing moves for the peer timeout after
  // (an honest party closes only once the end is decided, and what decided it is on its way
  // from the party that sent it: a stop, a cancel or a failure).
  void Idle() {
    int ended = -1;
    for (int q : blocked_on_) {
      if (peer_ended_[q]) ended = q;
    }
    if (ended < 0) {
      ended_wait_start_.reset();
    } else if (!ended_wait_start_) {
      ended_wait_start_ = Clock::now();
    } else if (Clock::now() - *ended_wait_start_ > timeout_) {
      throw NetworkError(Kind::kPeerFailed, facts_.ids[ended],
                         "party '" + facts_.ids[ended] + "' closed its stream before sending " +
                             "what this party waits for (round " + std::to_string(next_deliver_) +
                             ")");
    }
    std::unique_lock<std::mutex> lock(hub_.mu);
    hub_.cv.wait_for(lock, std::chrono::milliseconds(20), [&] {
      for (const auto& in : hub_.in) {
        if (!in.queue.empty() || in.broken || !in.violation.empty()) return true;
      }
      return false;
    });
    const auto now = Clock::now();
    for (std::size_t q = 0; q < peers_.size(); ++q) {
      const Incoming& in = hub_.in[q];
      if (static_cast<int>(q) == self_ || in.ended) continue;
      if (now - in.last_heard > timeout_) {
        const std::string id = facts_.ids[q];
        const std::string what =
            in.stream == nullptr && in.disconnects > 0
                ? "party '" + id + "' disconnected and did not reconnect within " +
                      Seconds(options_.peer_timeout_seconds) +
                      " (killed, or its network is down) while this party waited for round " +
                      std::to_string(next_deliver_)
                : "party '" + id + "' sent nothing for " + Seconds(options_.peer_timeout_seconds) +
                      " (hung, or its network is down) while this party waited for round " +
                      std::to_string(next_deliver_);
        lock.unlock();
        throw NetworkError(Kind::kPeerFailed, id, what);
      }
    }
  }

  // Queues `e` for peer q with the acknowledgement of what q has sent this party.
  void Send(int q, const pb::Envelope& e) {
    std::uint64_t ack = 0;
    {
      std::lock_guard<std::mutex> lock(hub_.mu);
      ack = hub_.in[q].sequence.received();
    }
    if (!links_[q]->Push(e, ack)) {
      throw NetworkError(Kind::kPeerFailed, facts_.ids[q],
                         "party '" + facts_.ids[q] + "' acknowledged none of the last " +
                             std::to_string(kMaxUnacked) + " envelopes this party sent it");
    }
    last_sent_[q] = Clock::now();
  }
  void SendAll(const pb::Envelope& e) {
    for (std::size_t q = 0; q < peers_.size(); ++q) {
      if (static_cast<int>(q) != self_ && links_[q]) Send(static_cast<int>(q), e);
    }
  }
  void Heartbeats() {
    const auto now = Clock::now();
    for (std::size_t q = 0; q < peers_.size(); ++q) {
      if (static_cast<int>(q) == self_ || !links_[q]) continue;
      if (now - last_sent_[q] > timeout_ / 4) {
        pb::Envelope e;
        e.mutable_heartbeat();
        Send(static_cast<int>(q), e);
      }
    }
  }

  // ---- the end -----------------------------------------------------------------------------

  // Closes every outgoing stream in order and waits (while any peer still talks, at most the
  // peer timeout of silence) until every peer has closed its stream to this party, so that
  // no peer's last frames meet a closed server.
  void CloseAll() {
    for (auto& w : links_) {
      if (w) w->Close();
    }
    // A link still closing its stream (Finish waits one round trip) is cancelled only after
    // this grace once every peer is done: sooner, the peer would see a broken stream.
    const Clock::duration grace = std::min<Clock::duration>(timeout_, std::chrono::seconds(2));
    std::optional<Clock::time_point> all_since;
    const auto closing_since = Clock::now();
    for (;;) {
      std::unique_lock<std::mutex> lock(hub_.mu);
      bool all = true;
      const auto now = Clock::now();
      for (std::size_t q = 0; q < peers_.size(); ++q) {
        if (static_cast<int>(q) == self_ || hub_.in[q].ended) continue;
        hub_.in[q].queue.clear();
        // Its stream broke and it has not come back: once this party's stream to it is done,
        // or after the grace, nothing is owed either way (the end was decided before; a peer
        // that exited after closing what it could does not come back).
        if (hub_.in[q].stream == nullptr && hub_.in[q].disconnects > 0 &&
            ((links_[q] && links_[q]->done()) || now - closing_since > grace)) {
          continue;
        }
        if (now - hub_.in[q].last_heard > timeout_) {
          log_("party '" + facts_.ids[q] + "' did not close its stream within " +
               Seconds(options_.peer_timeout_seconds) + " after the end of the run");
          continue;
        }
        all = false;
      }
      bool written = true;
      for (auto& w : links_) written = written && (!w || w->done());
      if (all && written) break;
      if (all && !all_since) all_since = now;
      if (all && !written && now - *all_since > grace) {
        // Our peers are gone or closed: a writer still blocked can only be cancelled.
        lock.unlock();
        for (auto& w : links_) {
          if (w && !w->done()) w->Cancel();
        }
        continue;
      }
      hub_.cv.wait_for(lock, std::chrono::milliseconds(20));
    }
  }

  // What the links went through, per peer, when anything broke: reconnections both ways and
  // the copies received again (each was checked byte for byte against its first copy).
  void LogReconnections() {
    for (std::size_t q = 0; q < peers_.size(); ++q) {
      if (static_cast<int>(q) == self_ || !links_[q]) continue;
      std::uint64_t resent = 0, rounds = 0;
      int theirs = 0;
      {
        std::lock_guard<std::mutex> lock(hub_.mu);
        resent = hub_.in[q].sequence.resent();
        rounds = hub_.in[q].sequence.resent_rounds();
        theirs = hub_.in[q].reconnects;
      }
      const int ours = links_[q]->reconnects();
      if (ours == 0 && theirs == 0 && resent == 0) continue;
      say_("link with party '" + facts_.ids[q] + "': this party reconnected " +
           std::to_string(ours) + " time(s), it " + std::to_string(theirs) + "; it sent " +
           std::to_string(resent) + " envelope(s) again (" + std::to_string(rounds) +
           " round frame(s)), each byte for byte its first copy");
    }
  }

  // Tells every peer why this party ends the run (best effort, at most a second).
  void AbortPeers(const std::string& reason) {
    pb::Envelope e;
    e.mutable_abort()->set_reason(reason);
    for (std::size_t q = 0; q < links_.size(); ++q) {
      if (links_[q]) {
        std::uint64_t ack = 0;
        {
          std::lock_guard<std::mutex> lock(hub_.mu);
          ack = hub_.in[q].sequence.received();
        }
        (void)links_[q]->Push(e, ack);  // a full buffer: the peer learns by its timeout
        links_[q]->Close();
      }
    }
    const auto until = Clock::now() + std::chrono::seconds(1);
    for (auto& w : links_) {
      while (w && !w->done() && Clock::now() < until) {
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      }
    }
  }

  void Teardown() {
    links_.clear();  // cancels what is still open, joins the threads
    if (server_) {
      server_->Shutdown(std::chrono::system_clock::now() + std::chrono::milliseconds(200));
      server_.reset();
    }
    std::lock_guard<std::mutex> lock(g_log_mu);
    if (g_log == &log_) g_log = nullptr;
  }

  std::span<NodeProgram* const> programs_;
  const Topology& topology_;
  const EngineOptions& engine_;
  const NetworkOptions& options_;
  RoundSink& sink_;
  const int n_;
  const Clock::duration timeout_;
  const std::function<void(const std::string&)> say_;  // every line
  OnceLog log_;                                        // each distinct line once

  RunFacts facts_;
  int self_ = -1;
  std::vector<int> local_;
  std::vector<int> local_index_;
  Shapes shapes_;
  std::vector<std::vector<std::pair<int, int>>> out_edges_;  // by party: (local, remote)
  std::vector<bool> neighbour_party_;
  std::vector<std::vector<Source>> sources_;
  int max_receive_ = 0;
  Clock::time_point setup_deadline_;
  std::string ca_, cert_, key_;

  std::vector<Inbox> inboxes_;
  std::vector<Outbox> outboxes_;
  std::vector<std::vector<double>> messages_[2];  // [round parity][local index]
  std::deque<std::vector<double>> rows_;          // rounds next_deliver_ .. next_compute_ - 1
  std::vector<double> table_;                     // n x width, NaN but for hosted rows
  std::vector<PeerStream> peers_;                 // by party number
  std::unique_ptr<LocalPool> pool_;

  Hub hub_;
  std::unique_ptr<Service> service_;
  std::unique_ptr<grpc::Server> server_;
  std::vector<std::shared_ptr<grpc::Channel>> channels_;  // by party number
  std::vector<std::unique_ptr<pb::Party::Stub>> stubs_;
  std::vector<std::unique_ptr<Link>> links_;  // by party number
  std::vector<std::string> peer_sessions_;    // by party number: the session of its first Hello
  std::atomic<std::int64_t> next_round_{0};   // next_compute_, for Hellos from other threads
  std::vector<Clock::time_point> last_sent_;  // by party number
  std::vector<char> peer_ended_;              // by party number: its stream to us has ended
  std::set<int> blocked_on_;
  std::optional<Clock::time_point> ended_wait_start_;  // since when Idle waits on a closed peer

  std::int64_t last_ = 0;         // the last engine round (after a resume: less its round)
  std::int64_t start_round_ = 0;  // the agreed resume round (0: a fresh run)
  std::vector<std::vector<std::int64_t>> peer_rounds_;  // by party: checkpoint rounds held
  std::int64_t next_compute_ = 0;
  std::int64_t next_deliver_ = 0;
  bool local_failed_ = false;
  NodeFailure local_failure_;
  bool decided_ = false;
  EngineResult result_;
};

}  // namespace
}  // namespace detail

EngineResult RunNetwork(std::span<NodeProgram* const> local_programs, const Topology& topology,
                        const EngineOptions& engine, const NetworkOptions& options,
                        RoundSink& sink) {
  detail::NetworkRun run(local_programs, topology, engine, options, sink);
  return run.Execute();
}

}  // namespace dpadmm::runtime
