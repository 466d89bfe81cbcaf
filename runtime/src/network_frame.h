// SPDX-License-Identifier: Apache-2.0
// The network engine's decoder: what a party accepts from one peer, as plain functions and a
// plain per-peer state machine over the generated protobuf messages (no gRPC here, so that
// tests/fuzz/fuzz_party_frame.cpp can drive it directly). Everything a peer sends passes
// through CheckHello or PeerStream::Accept before the engine looks at it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "dpadmm/runtime/engine.h"
#include "dpadmm/runtime/network.h"
#include "dpadmm_party.pb.h"

namespace dpadmm::runtime::detail {

namespace pb = ::dpadmm::party::v1;

inline constexpr std::uint32_t kProtocolVersion = 5;
// A party computes round r only while r <= (its next round for the sink) + kLeadRounds, so
// the frames a peer may send ahead of this party are bounded (see PeerStream::Accept).
inline constexpr std::int64_t kLeadRounds = 16;
// The most envelopes a peer may have queued, unread by the engine, before it is refused.
inline constexpr std::size_t kMaxQueuedEnvelopes = 4 * kLeadRounds + 64;
// Abort reasons from a peer are cut to this many printable characters.
inline constexpr std::size_t kMaxReasonChars = 300;
// The most envelopes a party keeps for one peer until acknowledged (its resend buffer). The
// rounds are synchronous and a party computes at most kLeadRounds ahead, so an honest peer
// acknowledges long before: a peer that does not has failed (kPeerFailed).
inline constexpr std::size_t kMaxUnacked = kMaxQueuedEnvelopes;
// The bytes of a Hello's session (HelloMessage.session).
inline constexpr std::size_t kSessionBytes = 16;
// Reconnections a peer may make: a burst of kReconnectBurst, then one per
// kReconnectRefillSeconds (each is a TLS handshake and a new stream on this party's server).
inline constexpr double kReconnectBurst = 10;
inline constexpr double kReconnectRefillSeconds = 6;

// Hash of everything the parties' runtimes must agree on besides the caller's spec hash: the
// topology, the node-to-party map, the party ids, the last round and the protocol constants.
std::uint64_t LayoutHash(const Topology& topology, std::span<const int> node_parties,
                         std::span<const std::string> party_ids, std::int64_t last_round);

// What this party expects from one peer.
struct PeerExpect {
  std::string id;
  std::vector<int> nodes;  // the peer's nodes, increasing
  // Edges from the peer's nodes to this party's nodes, ordered by (from, to): the order of
  // the messages in the peer's round frames.
  std::vector<std::pair<int, int>> edges;
  std::int64_t last_round = 0;
  std::size_t max_doubles = 0;  // limit on any of the peer's nodes' messages
  bool resuming = false;        // this party resumes from a checkpoint: so must the peer
  // The set-up exchange (NetworkOptions::on_setup): whether the parties hold one, and how many
  // values each party sends there (the peer's Hello must say the same).
  bool setup_exchange = false;
  std::size_t setup_values = 0;
};

// A peer's Hello against what this party expects: "" when accepted, else why not (naming
// what differs: on a spec mismatch, the fields of `spec_fields` whose digests differ from the
// peer's). On success max_doubles[k] is the peer's node nodes[k]'s message limit.
std::string CheckHello(const pb::HelloMessage& hello, const PeerExpect& expect,
                       std::span<const std::uint8_t> spec_hash, std::uint64_t layout_hash,
                       std::vector<std::size_t>* max_doubles,
                       std::span<const SpecField> spec_fields = {});

// The spec fields a peer's Hello carries that differ from `own` (by digest; a field only one
// side has counts as different), in `own`'s order then the peer's; a Hello with malformed
// fields (too many, a name or digest too long) gives "" and `malformed` set.
std::vector<std::string> DifferingSpecFields(const pb::HelloMessage& hello,
                                             std::span<const SpecField> own, bool* malformed);

// A hex prefix of a hash for messages ("1a2b3c4d5e6f7788..." or "(empty)").
std::string HexPrefix(std::span<const std::uint8_t> bytes);
// Printable ASCII only, at most kMaxReasonChars (a peer's text is never printed raw).
std::string SanitizePeerText(const std::string& text);

// One round of one peer, as received.
struct PeerRound {
  std::int64_t round = -1;
  bool failed = false;
  int failed_node = -1;
  FailureKind kind = FailureKind::kStepFailed;
  std::vector<double> payload;       // the messages' payloads back to back
  std::vector<std::size_t> offsets;  // edge e's message is [offsets[e], offsets[e + 1])
  std::span<const double> Message(std::size_t edge) const {
    return {payload.data() + offsets[edge], offsets[edge + 1] - offsets[edge]};
  }
};

// The frames of one peer, in order. Accept checks every envelope against the protocol; the
// engine reads the rounds and verdicts it needs and drops rounds it no longer needs.
class PeerStream {
 public:
  explicit PeerStream(PeerExpect expect, std::vector<std::size_t> max_doubles = {});

  // Applies one envelope. `next_deliver` is the next round this party will hand to its sink
  // (the bound on how far ahead the peer may be). Returns "" or the violation, naming it.
  std::string Accept(const pb::Envelope& envelope, std::int64_t next_deliver);

  const PeerExpect& expect() const { return expect_; }
  // Round frames received: rounds 0 .. rounds_received() - 1.
  std::int64_t rounds_received() const { return next_round_; }
  // The received round `r` (must be held: first_held() <= r < rounds_received()).
  const PeerRound& Round(std::int64_t r) const {
    return held_[static_cast<std::size_t>(r - first_)];
  }
  std::int64_t first_held() const { return first_; }
  // Drops held rounds before `r`.
  void DropBefore(std::int64_t r);
  // Verdicts received: rounds 0 .. verdicts_received() - 1; the first stop among them, or -1.
  std::int64_t verdicts_received() const { return next_verdict_; }
  std::int64_t stop_round() const { return stop_round_; }
  bool failed() const { return failed_; }
  bool cancelled() const { return cancelled_; }
  // Set once the peer aborted: its reason, sanitized.
  bool aborted() const { return aborted_; }
  const std::string& abort_reason() const { return abort_reason_; }
  // The peer's set-up values (expect().setup_exchange), once received: exactly
  // expect().setup_values finite values, sent before its round 0 frame.
  bool setup_received() const { return setup_received_; }
  const std::vector<double>& setup_values() const { return setup_; }

 private:
  std::string AcceptRound(const pb::RoundFrame& frame, std::int64_t next_deliver);
  std::string AcceptVerdict(const pb::Verdict& verdict);
  std::string AcceptSetup(const pb::SetupValues& setup);

  PeerExpect expect_;
  std::vector<std::size_t> edge_max_;  // per edge: the limit of its sending node
  std::deque<PeerRound> held_;
  std::int64_t first_ = 0;
  std::int64_t next_round_ = 0;
  std::int64_t next_verdict_ = 0;
  std::int64_t stop_round_ = -1;
  bool failed_ = false;
  bool cancelled_ = false;
  bool aborted_ = false;
  std::string abort_reason_;
  bool setup_received_ = false;
  std::vector<double> setup_;
};

// What one peer's envelopes have delivered, across its reconnections. A peer numbers its
// envelopes to this party 0, 1, 2, ... (Envelope.seq); after a reconnection it sends again
// every one it has not seen acknowledged. Accept takes the next number (new), drops a number
// already taken after checking that it is byte for byte the first copy (a resent release
// with other noise is refused), and refuses a gap or a copy older than what a peer may hold
// unacknowledged (kMaxUnacked). Memory: the serialized bytes of the last kMaxUnacked envelopes.
class InboundSequence {
 public:
  enum class Result { kNew, kDuplicate, kViolation };
  Result Accept(const pb::Envelope& envelope, std::string* violation);
  // Envelopes taken: the peer's acknowledgement is this count.
  std::uint64_t received() const { return next_; }
  // Copies dropped as resent (each identical to its first copy), and of them round frames.
  std::uint64_t resent() const { return resent_; }
  std::uint64_t resent_rounds() const { return resent_rounds_; }

 private:
  std::uint64_t next_ = 0;
  std::deque<std::string> recent_;  // the bytes of envelopes next_ - size .. next_ - 1
  std::uint64_t resent_ = 0;
  std::uint64_t resent_rounds_ = 0;
};

// What this party sent one peer and the peer has not acknowledged: numbered envelopes kept
// as made (never made again), to be sent again after a reconnection.
class OutboundBuffer {
 public:
  // Numbers `envelope` (seq), stamps `ack` and keeps it. False when kMaxUnacked are kept.
  bool Push(pb::Envelope envelope, std::uint64_t ack);
  // The peer has received `count` envelopes: forgets them. Returns "" or the violation (an
  // acknowledgement of envelopes never sent). A smaller count than before is a resent
  // envelope's stale acknowledgement: ignored.
  std::string Acknowledge(std::uint64_t count);
  std::uint64_t first() const { return first_; }                // the oldest kept (unacknowledged)
  std::uint64_t next() const { return first_ + kept_.size(); }  // the next number
  std::size_t size() const { return kept_.size(); }
  const pb::Envelope& At(std::uint64_t seq) const { return kept_[seq - first_]; }

 private:
  std::deque<pb::Envelope> kept_;
  std::uint64_t first_ = 0;
};

}  // namespace dpadmm::runtime::detail
