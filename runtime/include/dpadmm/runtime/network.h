// SPDX-License-Identifier: Apache-2.0
// The network engine: parties that do not trust each other, one process per party (or a few
// nodes each), over mutually authenticated gRPC (TLS 1.2+ with a certificate on both sides).
//
// Each process hosts the nodes NetworkOptions::node_parties assigns to its party and constructs
// only their programs. Within the process nodes talk through the usual channels; between
// processes travel only the messages nodes broadcast (what their outboxes send), one frame per
// (sending party, receiving party, round). Reports never leave a process: each party's
// RoundSink receives, per round, a table of all nodes whose rows of the nodes it hosts are
// filled and whose other rows are NaN. Every party's sink sees the same rounds: a round is
// handed to the sinks only once every party has completed it without a fault, and a party's
// sink returning false ends the run after that round on every party (the verdicts of each
// round are exchanged before the next one is handed on). The hosted rows are bit-identical to
// the serial engine's.
//
// Security: mutual TLS by default. A peer is identified by the subject alternative name (SAN)
// of its certificate, which must be exactly its party id, signed by the run's CA; both sides
// check it (the server reads the client's SAN from the connection, the client checks the
// server's SAN against the party id it dials). Plaintext only with `insecure`, which refuses
// any address that is not loopback. The private key file must not be readable by group or
// others. Before round 0 every party checks every other party's protocol version, spec hash
// (bytes given by the caller, with its fields' digests to name what differs) and layout
// (topology, map, rounds); a mismatch is refused on both sides. See runtime/README.md ("The network
// engine").
//
// Links: a connection that breaks during the run (reset, closed) is dialled again with bounded
// backoff; the peers authenticate again (the same Hello, from the same process) and every
// message not yet acknowledged is sent again as first made, the receiver dropping copies after
// checking them byte for byte, so a transient fault ends with the uninterrupted run's bits and
// no release is ever drawn twice. Each party listens on its own entry's PartyAddress::listen
// (default its address) and is dialled at its address.
//
// Faults: a node fault (Fail, an exception, NaN/Inf) is an outcome (kFailed) on every party,
// naming the node, its party and the round; the text of the fault stays on its party. An
// engine error throws NetworkError on every party that sees it, naming the peer: a peer that
// cannot be reached or refuses within setup_timeout_seconds, that aborts, that is disconnected
// or sends nothing (not even a heartbeat) for peer_timeout_seconds, that comes back as another
// process (restarted), or that sends anything the protocol does not allow (a frame for the
// wrong round, node or edge, too long, non-finite; a resent message that differs from its
// first copy; too many reconnections; no acknowledgement).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "dpadmm/runtime/engine.h"

namespace dpadmm::runtime {

// An engine-level failure of the network engine (not an algorithm outcome).
class NetworkError : public std::runtime_error {
 public:
  enum class Kind {
    kConfig,      // bad options (a file, an address, a key's mode): nothing was started
    kSetup,       // a peer unreachable, refused, or disagreeing before round 0
    kPeerFailed,  // a peer disconnected, aborted or went silent during the run
    kProtocol,    // a peer sent something the protocol does not allow
  };
  NetworkError(Kind kind, std::string peer, const std::string& what)
      : std::runtime_error(what), kind_(kind), peer_(std::move(peer)) {}
  Kind kind() const { return kind_; }
  // The party id of the peer at fault ("" for kConfig errors of this party).
  const std::string& peer() const { return peer_; }

 private:
  Kind kind_;
  std::string peer_;
};

struct TlsFiles {
  std::string ca_cert;  // PEM: the CA that signed every party's certificate
  std::string cert;     // PEM: this party's certificate (SAN = its party id)
  std::string key;      // PEM: its private key (mode 0600 or stricter)
};

struct PartyAddress {
  std::string id;       // [a-z0-9][a-z0-9-]*, at most 63 characters (a DNS label)
  std::string address;  // host:port the other parties dial to reach this party
  // host:port this party's server binds when this entry is its own; "" = `address`. Apart from
  // `address` when the party is reached through something in between (a NAT, a load balancer,
  // the test relay: tests/party/relay.py); other parties' `listen` is not used.
  std::string listen = {};
};

// One named field of the caller's spec and a digest of its value: a peer whose spec hash
// differs is refused naming the fields whose digests differ (on both sides). At most
// kMaxSpecFields, names of at most 128 bytes, digests of at most 64 bytes.
struct SpecField {
  std::string name;
  std::vector<std::uint8_t> digest;
};
inline constexpr std::size_t kMaxSpecFields = 1024;
// The most checkpoint rounds a party may offer to resume from (NetworkOptions::resume_rounds).
inline constexpr std::size_t kMaxResumeRounds = 16;

struct NetworkOptions {
  std::string self;                     // this party's id
  std::vector<PartyAddress> parties;    // every party, self included; index = party number
  std::vector<int> node_parties;        // node_parties[i]: the party number hosting node i
  std::vector<std::uint8_t> spec_hash;  // compared byte for byte with every peer's
  std::vector<SpecField> spec_fields;   // what spec_hash covers, field by field (optional)
  TlsFiles tls;                         // required unless insecure
  bool insecure = false;  // plaintext, no authentication; only loopback addresses allowed
  double setup_timeout_seconds = 30;  // to reach every peer and agree, from the start
  double peer_timeout_seconds = 60;   // a peer silent this long during the run has failed
  // Limit on the length (doubles) of any message a peer's node may send, which also sets the
  // largest frame this party receives; 0 = the largest MaxMessageSize of this party's nodes.
  std::size_t max_message_doubles = 0;
  // Checkpoints and resume (protocol version 3). The files are the caller's; the engine agrees
  // on the round every party continues from and stops at checkpoint rounds:
  // - resuming: this party continues a run from a checkpoint; resume_rounds are the rounds it
  //   holds one of (at most kMaxResumeRounds). A party resuming and another starting fresh are
  //   refused at set-up on both sides. Once set-up is done every resuming party picks the
  //   largest round every party holds (none in common: NetworkError kSetup on every party,
  //   naming each party's rounds) and calls on_resume(round), which restores the programs to
  //   that round; the engine then runs rounds 0 .. last_round - round (its round 0 is the
  //   caller's `round`, re-sent; rounds are the engine's in everything else it reports).
  // - checkpoint_every > 0: after the sink has seen engine round d >= 1 with resume round + d a
  //   multiple of checkpoint_every below the resume round + last_round, and before any
  //   local node steps round d + 1, on_checkpoint(resume round + d) is called on the engine's
  //   thread (an exception from it ends the run on every party, as any error does).
  bool resuming = false;
  std::vector<std::int64_t> resume_rounds;
  std::function<void(std::int64_t)> on_resume;
  std::int64_t checkpoint_every = 0;
  std::function<void(std::int64_t)> on_checkpoint;
  // A set-up exchange (protocol version 4): what the parties must learn from each other's
  // released values before round 0 (the dp-bounds histograms of dpadmm/party.h). With on_setup
  // set, once every Hello is agreed and before resuming and round 0, this party sends
  // setup_values to every peer and, when every peer's have arrived, calls on_setup on the
  // engine's thread with every party's values by party number (its own included). Every party
  // must hold the exchange with the same number of values (the Hello says both; a difference is
  // refused at set-up on both sides); the values must be finite. Only released values belong
  // here: every peer receives them. A wait for a peer's values is bounded by the peer timeout;
  // an exception from on_setup ends the run on every party, as any error does.
  std::vector<double> setup_values;
  std::function<void(const std::vector<std::vector<double>>&)> on_setup;
  // Security events (a refused connection, a failed handshake), each distinct one once; the
  // default writes to stderr. Called from gRPC threads.
  std::function<void(const std::string&)> log;
};

// False when this build has no gRPC (WebAssembly, or DPADMM_WITH_PARTY=OFF).
bool NetworkBuilt();

// Checks the options without touching the network or the files' contents beyond what is named:
// ids (unique, DNS labels), addresses (host:port; loopback only when insecure), the map, the
// TLS files' presence and the key's mode. Throws NetworkError(kConfig) naming the field.
void ValidateNetworkOptions(const NetworkOptions& options, int nodes);

// Reads a private key file: refused (NetworkError kConfig) unless it is a regular file not
// readable, writable or executable by group or others, of at most 1 MB.
std::string ReadPrivateKeyFile(const std::string& path);

// True for a literal loopback host (127.0.0.0/8, ::1, [::1]) or "localhost".
bool IsLoopbackHost(const std::string& host);

// The nodes party `party` hosts, in increasing id: the order of RunNetwork's local_programs.
std::vector<int> PartyNodes(std::span<const int> node_parties, int party);

// This party's index in options.parties (the one whose id is options.self); -1 if none is.
int SelfIndex(const NetworkOptions& options);

// Runs this party's nodes. local_programs[k] runs node PartyNodes(options.node_parties,
// self)[k]. Every party calls it with the same topology, options.last_round and map.
// engine.threads <= 1 runs the local nodes of a round on the calling thread; larger values use
// a oneTBB arena when built. engine.kind and engine.node_ranks are ignored. Throws
// std::invalid_argument on inconsistent local input and NetworkError on a network failure
// (see above); node faults are outcomes.
EngineResult RunNetwork(std::span<NodeProgram* const> local_programs, const Topology& topology,
                        const EngineOptions& engine, const NetworkOptions& options,
                        RoundSink& sink);

}  // namespace dpadmm::runtime
