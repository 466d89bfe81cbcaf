// SPDX-License-Identifier: Apache-2.0
#include "network_frame.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace dpadmm::runtime::detail {

namespace {

// FNV-1a, 64 bits: a consistency check between honest, authenticated parties, not a MAC.
struct Fnv {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  void Add(std::uint64_t v) {
    for (int k = 0; k < 8; ++k) {
      h ^= (v >> (8 * k)) & 0xff;
      h *= 0x100000001b3ULL;
    }
  }
  void Add(const std::string& s) {
    Add(s.size());
    for (unsigned char c : s) {
      h ^= c;
      h *= 0x100000001b3ULL;
    }
  }
};

std::string NodeList(std::span<const int> nodes) {
  std::string s = "{";
  for (std::size_t k = 0; k < nodes.size() && k < 8; ++k) {
    s += (k ? ", " : "") + std::to_string(nodes[k]);
  }
  if (nodes.size() > 8) s += ", ... (" + std::to_string(nodes.size()) + " nodes)";
  return s + "}";
}

}  // namespace

std::uint64_t LayoutHash(const Topology& topology, std::span<const int> node_parties,
                         std::span<const std::string> party_ids, std::int64_t last_round) {
  Fnv f;
  f.Add(kProtocolVersion);
  f.Add(static_cast<std::uint64_t>(kLeadRounds));
  f.Add(static_cast<std::uint64_t>(topology.num_nodes()));
  for (const auto& list : topology.neighbors) {
    f.Add(list.size());
    for (int j : list) f.Add(static_cast<std::uint64_t>(j));
  }
  f.Add(node_parties.size());
  for (int p : node_parties) f.Add(static_cast<std::uint64_t>(p));
  f.Add(party_ids.size());
  for (const auto& id : party_ids) f.Add(id);
  f.Add(static_cast<std::uint64_t>(last_round));
  return f.h;
}

std::string HexPrefix(std::span<const std::uint8_t> bytes) {
  if (bytes.empty()) return "(empty)";
  std::string s;
  char b[3];
  for (std::size_t k = 0; k < bytes.size() && k < 8; ++k) {
    std::snprintf(b, sizeof b, "%02x", bytes[k]);
    s += b;
  }
  return bytes.size() > 8 ? s + "..." : s;
}

std::string SanitizePeerText(const std::string& text) {
  std::string s;
  for (char c : text) {
    if (s.size() >= kMaxReasonChars) {
      s += "...";
      break;
    }
    s += (c >= 0x20 && c < 0x7f) ? c : '?';
  }
  return s;
}

std::vector<std::string> DifferingSpecFields(const pb::HelloMessage& hello,
                                             std::span<const SpecField> own, bool* malformed) {
  *malformed = false;
  std::vector<std::string> out;
  if (static_cast<std::size_t>(hello.spec_fields_size()) > kMaxSpecFields) {
    *malformed = true;
    return out;
  }
  for (const auto& f : hello.spec_fields()) {
    if (f.name().size() > 128 || f.digest().size() > 64) {
      *malformed = true;
      return out;
    }
  }
  const auto digest_of = [](const SpecField& f) {
    return std::string(f.digest.begin(), f.digest.end());
  };
  for (const SpecField& mine : own) {
    const std::string* theirs = nullptr;
    for (const auto& f : hello.spec_fields()) {
      if (f.name() == mine.name) theirs = &f.digest();
    }
    if (theirs == nullptr || *theirs != digest_of(mine)) out.push_back(mine.name);
  }
  for (const auto& f : hello.spec_fields()) {
    bool known = false;
    for (const SpecField& mine : own) known = known || mine.name == f.name();
    if (!known) out.push_back(SanitizePeerText(f.name()));
  }
  return out;
}

std::string CheckHello(const pb::HelloMessage& hello, const PeerExpect& expect,
                       std::span<const std::uint8_t> spec_hash, std::uint64_t layout_hash,
                       std::vector<std::size_t>* max_doubles,
                       std::span<const SpecField> spec_fields) {
  if (hello.protocol_version() != kProtocolVersion) {
    return "protocol version " + std::to_string(hello.protocol_version()) + ", expected " +
           std::to_string(kProtocolVersion);
  }
  if (hello.party_id() != expect.id) {
    return "introduces itself as '" + SanitizePeerText(hello.party_id()) + "', expected '" +
           expect.id + "'";
  }
  const std::string& h = hello.spec_hash();
  const std::span<const std::uint8_t> theirs(reinterpret_cast<const std::uint8_t*>(h.data()),
                                             h.size());
  if (!std::equal(theirs.begin(), theirs.end(), spec_hash.begin(), spec_hash.end())) {
    std::string named;
    bool malformed = false;
    const std::vector<std::string> fields = DifferingSpecFields(hello, spec_fields, &malformed);
    if (malformed) {
      named = "; its spec fields are malformed";
    } else if (!fields.empty()) {
      named = "; fields that differ:";
      for (std::size_t k = 0; k < fields.size(); ++k) {
        if (k == 8) {
          named += " and " + std::to_string(fields.size() - k) + " more";
          break;
        }
        named += (k == 0 ? " " : ", ") + fields[k];
      }
    }
    return "runs a different spec (spec hash " + HexPrefix(theirs) + ", this party's " +
           HexPrefix(spec_hash) + ")" + named;
  }
  if (hello.layout_hash() != layout_hash) {
    return "runs a different layout (topology, node-to-party map, party list or last round)";
  }
  std::vector<int> nodes;
  std::vector<std::size_t> sizes;
  for (const auto& n : hello.nodes()) {
    if (nodes.size() > expect.nodes.size()) break;
    nodes.push_back(static_cast<int>(std::min<std::uint32_t>(n.node(), 0x7fffffff)));
    sizes.push_back(static_cast<std::size_t>(n.max_doubles()));
  }
  if (nodes != expect.nodes) {
    return "hosts nodes " + NodeList(nodes) + ", the map gives it " + NodeList(expect.nodes);
  }
  for (std::size_t k = 0; k < sizes.size(); ++k) {
    if (sizes[k] > expect.max_doubles) {
      return "node " + std::to_string(nodes[k]) + " sends messages of up to " +
             std::to_string(hello.nodes(static_cast<int>(k)).max_doubles()) +
             " doubles, more than this party's limit of " + std::to_string(expect.max_doubles);
    }
  }
  if (hello.resuming() != expect.resuming) {
    return hello.resuming() ? "resumes from a checkpoint while this party starts afresh (resume "
                              "every party, or restart every party without --resume)"
                            : "starts afresh while this party resumes from a checkpoint (resume "
                              "every party, or restart every party without --resume)";
  }
  if (static_cast<std::size_t>(hello.resume_rounds_size()) > kMaxResumeRounds) {
    return "offers " + std::to_string(hello.resume_rounds_size()) +
           " checkpoint rounds to resume from, more than " + std::to_string(kMaxResumeRounds);
  }
  for (const std::int64_t r : hello.resume_rounds()) {
    if (r < 0 || r > expect.last_round) {
      return "offers to resume from round " + std::to_string(r) + ", outside 0.." +
             std::to_string(expect.last_round);
    }
  }
  if (hello.session().size() != kSessionBytes) {
    return "sends a session of " + std::to_string(hello.session().size()) + " bytes, expected " +
           std::to_string(kSessionBytes);
  }
  if (hello.next_round() < 0 || hello.next_round() > expect.last_round + 1) {
    return "says it is at round " + std::to_string(hello.next_round()) + ", outside 0.." +
           std::to_string(expect.last_round + 1);
  }
  if (hello.setup_exchange() != expect.setup_exchange) {
    return hello.setup_exchange()
               ? "holds a set-up exchange before round 0 that this party does not"
               : "holds no set-up exchange before round 0, which this party does";
  }
  if (expect.setup_exchange && hello.setup_values() != expect.setup_values) {
    return "sends " + std::to_string(hello.setup_values()) +
           " values in the set-up exchange, this party " + std::to_string(expect.setup_values);
  }
  if (max_doubles != nullptr) *max_doubles = std::move(sizes);
  return "";
}

PeerStream::PeerStream(PeerExpect expect, std::vector<std::size_t> max_doubles)
    : expect_(std::move(expect)) {
  for (const auto& [from, to] : expect_.edges) {
    std::size_t limit = expect_.max_doubles;
    const auto it = std::lower_bound(expect_.nodes.begin(), expect_.nodes.end(), from);
    const auto k = static_cast<std::size_t>(it - expect_.nodes.begin());
    if (k < max_doubles.size() && it != expect_.nodes.end() && *it == from) {
      limit = std::min(limit, max_doubles[k]);
    }
    edge_max_.push_back(limit);
  }
}

void PeerStream::DropBefore(std::int64_t r) {
  while (!held_.empty() && first_ < r) {
    held_.pop_front();
    ++first_;
  }
}

std::string PeerStream::Accept(const pb::Envelope& envelope, std::int64_t next_deliver) {
  if (aborted_) return "sent a frame after aborting";
  switch (envelope.body_case()) {
    case pb::Envelope::kRound: return AcceptRound(envelope.round(), next_deliver);
    case pb::Envelope::kVerdict: return AcceptVerdict(envelope.verdict());
    case pb::Envelope::kHeartbeat: return "";
    case pb::Envelope::kCancel: cancelled_ = true; return "";
    case pb::Envelope::kAbort:
      aborted_ = true;
      abort_reason_ = SanitizePeerText(envelope.abort().reason());
      return "";
    case pb::Envelope::kSetup: return AcceptSetup(envelope.setup());
    case pb::Envelope::BODY_NOT_SET: break;
  }
  return "sent an empty or unknown frame";
}

std::string PeerStream::AcceptRound(const pb::RoundFrame& frame, std::int64_t next_deliver) {
  const std::int64_t r = frame.round();
  const std::string where = "round frame " + std::to_string(r) + ": ";
  if (failed_) return where + "a round after its failed round";
  if (expect_.setup_exchange && !setup_received_) return where + "before its set-up values";
  if (r != next_round_) {
    return where + "out of order (expected round " + std::to_string(next_round_) + ")";
  }
  if (r > expect_.last_round) {
    return where + "beyond the last round " + std::to_string(expect_.last_round);
  }
  if (r > next_deliver + kLeadRounds + 1) {
    return where + "more than " + std::to_string(kLeadRounds) + " rounds ahead of this party";
  }
  PeerRound got;
  got.round = r;
  if (frame.failed()) {
    const int node = static_cast<int>(std::min<std::uint32_t>(frame.failed_node(), 0x7fffffff));
    if (!std::binary_search(expect_.nodes.begin(), expect_.nodes.end(), node)) {
      return where + "reports a failure of node " + std::to_string(frame.failed_node()) +
             ", which it does not host";
    }
    if (frame.failure_kind() > 2) {
      return where + "unknown failure kind " + std::to_string(frame.failure_kind());
    }
    if (frame.messages_size() != 0) return where + "a failed round carries messages";
    got.failed = true;
    got.failed_node = node;
    got.kind = static_cast<FailureKind>(frame.failure_kind());
    failed_ = true;
  } else {
    if (frame.failed_node() != 0 || frame.failure_kind() != 0) {
      return where + "failure fields set in a round that did not fail";
    }
    const auto& messages = frame.messages();
    if (static_cast<std::size_t>(messages.size()) != expect_.edges.size()) {
      return where + std::to_string(messages.size()) + " messages, expected " +
             std::to_string(expect_.edges.size());
    }
    std::size_t total = 0;
    for (int e = 0; e < messages.size(); ++e) {
      const pb::NodeMessage& m = messages[e];
      const auto& [from, to] = expect_.edges[static_cast<std::size_t>(e)];
      if (m.from_node() != static_cast<std::uint32_t>(from) ||
          m.to_node() != static_cast<std::uint32_t>(to)) {
        return where + "message " + std::to_string(e) + " is for edge " +
               std::to_string(m.from_node()) + " -> " + std::to_string(m.to_node()) +
               ", expected " + std::to_string(from) + " -> " + std::to_string(to);
      }
      const auto size = static_cast<std::size_t>(m.payload_size());
      if (size > edge_max_[static_cast<std::size_t>(e)]) {
        return where + "node " + std::to_string(from) + "'s message has " + std::to_string(size) +
               " doubles, more than its " + std::to_string(edge_max_[static_cast<std::size_t>(e)]);
      }
      total += size;
    }
    got.payload.reserve(total);
    got.offsets.reserve(expect_.edges.size() + 1);
    for (int e = 0; e < messages.size(); ++e) {
      got.offsets.push_back(got.payload.size());
      const auto& payload = messages[e].payload();
      for (int k = 0; k < payload.size(); ++k) {
        if (!std::isfinite(payload[k])) {
          char value[32];
          std::snprintf(value, sizeof value, "%g", payload[k]);
          return where + "node " + std::to_string(messages[e].from_node()) + "'s message[" +
                 std::to_string(k) + "] = " + value + " (not finite)";
        }
      }
      got.payload.insert(got.payload.end(), payload.begin(), payload.end());
    }
    got.offsets.push_back(got.payload.size());
  }
  if (held_.empty()) first_ = r;
  held_.push_back(std::move(got));
  ++next_round_;
  return "";
}

std::string PeerStream::AcceptSetup(const pb::SetupValues& setup) {
  const std::string where = "set-up values: ";
  if (!expect_.setup_exchange) return where + "no set-up exchange was agreed";
  if (setup_received_) return where + "sent twice";
  const auto& values = setup.values();
  if (static_cast<std::size_t>(values.size()) != expect_.setup_values) {
    return where + std::to_string(values.size()) + " values, expected " +
           std::to_string(expect_.setup_values);
  }
  for (int k = 0; k < values.size(); ++k) {
    if (!std::isfinite(values[k])) {
      char value[32];
      std::snprintf(value, sizeof value, "%g", values[k]);
      return where + "value[" + std::to_string(k) + "] = " + value + " (not finite)";
    }
  }
  setup_.assign(values.begin(), values.end());
  setup_received_ = true;
  return "";
}

std::string PeerStream::AcceptVerdict(const pb::Verdict& verdict) {
  const std::int64_t r = verdict.round();
  const std::string where = "verdict on round " + std::to_string(r) + ": ";
  if (stop_round_ >= 0) return where + "after its verdict to stop";
  if (r != next_verdict_) {
    return where + "out of order (expected round " + std::to_string(next_verdict_) + ")";
  }
  // A failed round has no verdict: the run ends there.
  if (r >= next_round_ - (failed_ ? 1 : 0)) return where + "before its own frame of that round";
  ++next_verdict_;
  if (!verdict.go_on()) stop_round_ = r;
  return "";
}

InboundSequence::Result InboundSequence::Accept(const pb::Envelope& envelope,
                                                std::string* violation) {
  const std::uint64_t seq = envelope.seq();
  if (seq > next_) {
    *violation = "envelope " + std::to_string(seq) + " before envelope " + std::to_string(next_) +
                 " (a gap in its stream)";
    return Result::kViolation;
  }
  std::string bytes;
  if (!envelope.SerializeToString(&bytes)) {
    *violation = "an envelope that cannot be serialized";
    return Result::kViolation;
  }
  if (seq < next_) {
    const std::uint64_t oldest = next_ - recent_.size();
    if (seq < oldest) {
      *violation = "envelope " + std::to_string(seq) + " sent again after " +
                   std::to_string(next_) + " were received (more than " +
                   std::to_string(kMaxUnacked) + " back)";
      return Result::kViolation;
    }
    if (recent_[static_cast<std::size_t>(seq - oldest)] != bytes) {
      *violation =
          "envelope " + std::to_string(seq) +
          (envelope.has_round() ? " (round " + std::to_string(envelope.round().round()) + ")"
                                : std::string()) +
          " sent again with other contents than its first copy (a release is never "
          "made twice)";
      return Result::kViolation;
    }
    ++resent_;
    if (envelope.has_round()) ++resent_rounds_;
    return Result::kDuplicate;
  }
  recent_.push_back(std::move(bytes));
  if (recent_.size() > kMaxUnacked) recent_.pop_front();
  ++next_;
  return Result::kNew;
}

bool OutboundBuffer::Push(pb::Envelope envelope, std::uint64_t ack) {
  if (kept_.size() >= kMaxUnacked) return false;
  envelope.set_seq(next());
  envelope.set_ack(ack);
  kept_.push_back(std::move(envelope));
  return true;
}

std::string OutboundBuffer::Acknowledge(std::uint64_t count) {
  if (count > next()) {
    return "acknowledges " + std::to_string(count) + " envelopes, of " + std::to_string(next()) +
           " sent";
  }
  while (first_ < count) {
    kept_.pop_front();
    ++first_;
  }
  return "";
}

}  // namespace dpadmm::runtime::detail
