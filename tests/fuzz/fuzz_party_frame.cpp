// SPDX-License-Identifier: Apache-2.0
// The network engine's decoder (runtime/src/network_frame.h) on arbitrary bytes: everything a
// peer can send. The first byte chooses what the rest is:
//   even: a Hello (CheckHello against a fixed expectation);
//   odd:  a sequence of envelopes, each [2-byte little-endian length][bytes], applied in order
//         to one PeerStream (PeerStream::Accept) until the first refusal, as the engine does;
//         bits 1-5 of the first byte are this party's next round for the sink, bit 7 also
//         drops held rounds after each envelope and passes each envelope first through the
//         reconnection layer as the server's handler applies it (InboundSequence: numbered
//         envelopes, copies checked and dropped) and the acknowledgement into a resend buffer of 20
//         envelopes (OutboundBuffer::Acknowledge), as the engine applies it.
// Rejections are the returned reasons; a crash, a sanitizer report, an allocation beyond
// libFuzzer's limit or a violated property is a finding. Properties of accepted input: a
// Hello lists the expected nodes with sizes within the limit; a stream's rounds arrive in
// order, each with one message per expected edge, within the limit and finite, or a failure of
// one of the peer's nodes; verdicts never run ahead of the rounds; the sequence takes each number
// once and in order (a copy is never passed on), the resend buffer never forgets what was not
// acknowledged nor accepts an acknowledgement of more than it sent.
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "fuzz_common.h"
#include "network_frame.h"

namespace rtd = dpadmm::runtime::detail;

namespace {

// The peer hosts nodes 2, 3 and 5; this party hosts 0 and 1; edges into this party from the
// peer, ordered by (from, to).
rtd::PeerExpect Expect() {
  rtd::PeerExpect e;
  e.id = "p1";
  e.nodes = {2, 3, 5};
  e.edges = {{2, 1}, {3, 0}, {5, 0}};
  e.last_round = 50;
  e.max_doubles = 4;
  return e;
}

void CheckHeld(const rtd::PeerStream& s) {
  const auto& expect = s.expect();
  for (std::int64_t r = s.first_held(); r < s.rounds_received(); ++r) {
    const rtd::PeerRound& pr = s.Round(r);
    if (pr.round != r) dpadmm::fuzz::Fail("a held round under another number");
    if (pr.failed) {
      if (pr.failed_node != 2 && pr.failed_node != 3 && pr.failed_node != 5) {
        dpadmm::fuzz::Fail("a failure of a node the peer does not host");
      }
      continue;
    }
    if (pr.offsets.size() != expect.edges.size() + 1)
      dpadmm::fuzz::Fail("not one message per edge");
    for (std::size_t e = 0; e < expect.edges.size(); ++e) {
      const auto m = pr.Message(e);
      if (m.size() > expect.max_doubles) dpadmm::fuzz::Fail("a message beyond the limit");
      for (double v : m) {
        if (!std::isfinite(v)) dpadmm::fuzz::Fail("a non-finite value accepted");
      }
    }
  }
  if (s.verdicts_received() > s.rounds_received()) dpadmm::fuzz::Fail("a verdict ahead");
  if (s.rounds_received() > expect.last_round + 1) dpadmm::fuzz::Fail("a round beyond the last");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::uint8_t mode = data[0];
  ++data;
  --size;
  const std::vector<std::uint8_t> spec = {'s', 'p', 'e', 'c'};
  if ((mode & 1) == 0) {
    rtd::pb::HelloMessage hello;
    if (!hello.ParseFromArray(data, static_cast<int>(size))) return 0;
    std::vector<std::size_t> sizes;
    const std::string err = rtd::CheckHello(hello, Expect(), spec, 42, &sizes);
    if (err.empty()) {
      if (sizes.size() != 3) dpadmm::fuzz::Fail("a Hello accepted with other nodes");
      for (std::size_t s : sizes) {
        if (s > 4) dpadmm::fuzz::Fail("a Hello accepted beyond the limit");
      }
    }
    return 0;
  }
  const std::int64_t next_deliver = (mode >> 1) & 0x1f;
  // Bit 6: the parties hold a set-up exchange of 3 values before round 0.
  rtd::PeerExpect expect = Expect();
  expect.setup_exchange = (mode & 0x40) != 0;
  expect.setup_values = 3;
  rtd::PeerStream stream(expect, {4, 2, 3});
  const bool sequenced = (mode & 0x80) != 0;
  rtd::InboundSequence sequence;
  rtd::OutboundBuffer sent;
  rtd::pb::Envelope heartbeat;
  heartbeat.mutable_heartbeat();
  for (int k = 0; k < 20; ++k) (void)sent.Push(heartbeat, 0);
  std::uint64_t taken = 0;
  std::size_t at = 0;
  while (at + 2 <= size) {
    const std::size_t len = data[at] | (static_cast<std::size_t>(data[at + 1]) << 8);
    at += 2;
    if (at + len > size) break;
    rtd::pb::Envelope envelope;
    if (!envelope.ParseFromArray(data + at, static_cast<int>(len))) break;
    at += len;
    if (sequenced) {
      std::string why;
      const auto got = sequence.Accept(envelope, &why);
      if (got == rtd::InboundSequence::Result::kViolation) {
        if (why.empty()) dpadmm::fuzz::Fail("a refusal without a reason");
        break;
      }
      if (got == rtd::InboundSequence::Result::kDuplicate) {
        if (envelope.seq() >= taken) dpadmm::fuzz::Fail("a new number taken as a copy");
        continue;
      }
      if (envelope.seq() != taken++) dpadmm::fuzz::Fail("a number taken out of order");
      if (sequence.received() != taken) dpadmm::fuzz::Fail("the count of numbers taken");
      const std::uint64_t first = sent.first();
      const std::string err = sent.Acknowledge(envelope.ack());
      if (err.empty() != (envelope.ack() <= 20))
        dpadmm::fuzz::Fail("an acknowledgement judged wrong");
      if (sent.first() < first || sent.next() != 20 || sent.first() > sent.next()) {
        dpadmm::fuzz::Fail("the resend buffer lost or invented an envelope");
      }
      if (!err.empty()) break;
    }
    const std::int64_t before = stream.rounds_received();
    if (!stream.Accept(envelope, next_deliver).empty()) break;
    if (stream.rounds_received() > before + 1) dpadmm::fuzz::Fail("two rounds from one frame");
    if (stream.setup_received()) {
      if (!expect.setup_exchange) dpadmm::fuzz::Fail("set-up values accepted without an exchange");
      if (stream.setup_values().size() != 3) dpadmm::fuzz::Fail("set-up values of another count");
      for (double v : stream.setup_values()) {
        if (!std::isfinite(v)) dpadmm::fuzz::Fail("a non-finite set-up value accepted");
      }
    } else if (expect.setup_exchange && stream.rounds_received() > 0) {
      dpadmm::fuzz::Fail("a round accepted before the set-up values");
    }
    CheckHeld(stream);
    if (mode & 0x80) stream.DropBefore(stream.rounds_received() - 1);
    if (stream.aborted()) {
      if (stream.abort_reason().size() > rtd::kMaxReasonChars + 3) {
        dpadmm::fuzz::Fail("an abort reason beyond its limit");
      }
      for (char c : stream.abort_reason()) {
        if (c < 0x20 || c >= 0x7f) dpadmm::fuzz::Fail("an unprintable abort reason");
      }
    }
  }
  return 0;
}
