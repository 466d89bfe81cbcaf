// SPDX-License-Identifier: Apache-2.0
// The network engine's pieces that need no network: option checks (ids, addresses, the key
// file's mode), and the decoder of what a peer sends (runtime/src/network_frame.h), one
// refusal per rule.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "dpadmm/runtime/network.h"
#include "network_frame.h"
#include "party_frames.h"

namespace rt = dpadmm::runtime;
namespace rtd = dpadmm::runtime::detail;
namespace fs = std::filesystem;

namespace {

std::string ConfigError(const rt::NetworkOptions& o, int nodes) {
  try {
    rt::ValidateNetworkOptions(o, nodes);
  } catch (const rt::NetworkError& e) {
    EXPECT_EQ(e.kind(), rt::NetworkError::Kind::kConfig);
    return e.what();
  }
  return "";
}

rt::NetworkOptions Insecure() {
  rt::NetworkOptions o;
  o.self = "a";
  o.parties = {{"a", "127.0.0.1:5001"}, {"b", "[::1]:5002"}, {"c", "localhost:5003"}};
  o.node_parties = {0, 1, 2, 2};
  o.insecure = true;
  return o;
}

class TempFolder : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* tmp = std::getenv("TMPDIR");
    std::string templ = std::string(tmp != nullptr ? tmp : "/tmp") + "/netunit_XXXXXX";
    ASSERT_NE(mkdtemp(templ.data()), nullptr);
    dir_ = templ;
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string File(const std::string& name, mode_t mode) {
    const std::string path = (dir_ / name).string();
    std::ofstream(path) << "-----BEGIN PRIVATE KEY-----\n";
    EXPECT_EQ(chmod(path.c_str(), mode), 0);
    return path;
  }
  fs::path dir_;
};

using KeyFile = TempFolder;

TEST_F(KeyFile, OnlyTheOwnerMayReadIt) {
  EXPECT_NO_THROW(rt::ReadPrivateKeyFile(File("ok.key", 0600)));
  EXPECT_NO_THROW(rt::ReadPrivateKeyFile(File("ro.key", 0400)));
  for (mode_t mode : {0644, 0640, 0604, 0660, 0602}) {
    const std::string path = File("k" + std::to_string(mode) + ".key", mode);
    try {
      (void)rt::ReadPrivateKeyFile(path);
      ADD_FAILURE() << "mode " << mode << " accepted";
    } catch (const rt::NetworkError& e) {
      EXPECT_NE(std::string(e.what()).find("chmod 600"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
    }
  }
  EXPECT_THROW(rt::ReadPrivateKeyFile((dir_ / "missing.key").string()), rt::NetworkError);
  EXPECT_THROW(rt::ReadPrivateKeyFile(dir_.string()), rt::NetworkError);
}

TEST_F(KeyFile, TlsOptionsNeedTheirFilesAndAPrivateKey) {
  rt::NetworkOptions o = Insecure();
  o.insecure = false;
  EXPECT_NE(ConfigError(o, 4).find("the CA certificate is required"), std::string::npos);
  o.tls = {File("ca.pem", 0644), File("a.pem", 0644), File("a.key", 0644)};
  EXPECT_NE(ConfigError(o, 4).find("accessible by group or others (mode 0644)"), std::string::npos);
  ASSERT_EQ(chmod(o.tls.key.c_str(), 0600), 0);
  EXPECT_EQ(ConfigError(o, 4), "");
}

TEST(NetworkOptions, LoopbackHosts) {
  for (const char* h : {"127.0.0.1", "127.1.2.3", "::1", "[::1]", "localhost"}) {
    EXPECT_TRUE(rt::IsLoopbackHost(h)) << h;
  }
  for (const char* h : {"10.0.0.1", "0.0.0.0", "127.0.0", "127.0.0.1.5", "1270.0.0.1",
                        "127.0.0.256", "example.com", "", "::", "128.0.0.1"}) {
    EXPECT_FALSE(rt::IsLoopbackHost(h)) << h;
  }
}

TEST(NetworkOptions, EveryFieldIsChecked) {
  EXPECT_EQ(ConfigError(Insecure(), 4), "");
  auto bad = [](auto change) {
    rt::NetworkOptions o = Insecure();
    change(o);
    return ConfigError(o, 4);
  };
  EXPECT_NE(bad([](auto& o) {
              o.parties[1].address = "10.1.2.3:5002";
            }).find("insecure (plaintext) mode allows loopback addresses only"),
            std::string::npos);
  EXPECT_NE(bad([](auto& o) { o.parties[1].address = "0.0.0.0:5002"; }).find("loopback"),
            std::string::npos);
  for (const char* id : {"B", "b_1", "-b", "b-", "", "b.c"}) {
    EXPECT_NE(bad([&](auto& o) { o.parties[1].id = id; }).find("a party id is 1-63"),
              std::string::npos)
        << id;
  }
  EXPECT_NE(bad([](auto& o) { o.parties[1].id = std::string(64, 'b'); }).find("1-63"),
            std::string::npos);
  EXPECT_NE(bad([](auto& o) { o.parties[2].id = "b"; }).find("appears twice"), std::string::npos);
  EXPECT_NE(bad([](auto& o) { o.parties[2].address = "[::1]:5002"; }).find("appears twice"),
            std::string::npos);
  for (const char* address : {"127.0.0.1", "127.0.0.1:0", "127.0.0.1:65536", ":5002",
                              "127.0.0.1:50a", "[::1]5002", "::1:5002"}) {
    EXPECT_NE(bad([&](auto& o) { o.parties[1].address = address; }).find("is not host:port"),
              std::string::npos)
        << address;
  }
  // listen: host:port apart from the address (default: the address), loopback when insecure.
  EXPECT_EQ(bad([](auto& o) { o.parties[1].listen = "127.0.0.1:6002"; }), "");
  EXPECT_NE(bad([](auto& o) {
              o.parties[1].listen = "127.0.0.1";
            }).find("listen address '127.0.0.1' is not host:port"),
            std::string::npos);
  EXPECT_NE(bad([](auto& o) { o.parties[1].listen = "0.0.0.0:6002"; }).find("got listen"),
            std::string::npos);
  EXPECT_NE(bad([](auto& o) { o.self = "z"; }).find("'z' is not in the party list"),
            std::string::npos);
  EXPECT_NE(bad([](auto& o) { o.node_parties.pop_back(); }).find("3 entries for 4 nodes"),
            std::string::npos);
  EXPECT_NE(bad([](auto& o) { o.node_parties[3] = 3; }).find("node 3 on party 3"),
            std::string::npos);
  EXPECT_NE(bad([](auto& o) { o.parties.resize(1); }).find("at least 2 parties"),
            std::string::npos);
  EXPECT_NE(bad([](auto& o) { o.peer_timeout_seconds = 0; }).find("must be > 0"),
            std::string::npos);
}

// ---- the decoder --------------------------------------------------------------------------

rtd::PeerExpect Expect() {
  rtd::PeerExpect e;
  e.id = "b";
  e.nodes = {2, 3};
  e.edges = {{2, 1}, {3, 0}};
  e.last_round = 40;
  e.max_doubles = 3;
  return e;
}

rtd::pb::HelloMessage Hello() {
  rtd::pb::HelloMessage h;
  h.set_protocol_version(rtd::kProtocolVersion);
  h.set_party_id("b");
  h.set_spec_hash("spec");
  h.set_layout_hash(7);
  for (int node : {2, 3}) {
    auto* n = h.add_nodes();
    n->set_node(static_cast<std::uint32_t>(node));
    n->set_max_doubles(3);
  }
  h.set_session(std::string(rtd::kSessionBytes, 's'));
  return h;
}

std::string Check(const rtd::pb::HelloMessage& h) {
  const std::vector<std::uint8_t> spec = {'s', 'p', 'e', 'c'};
  std::vector<std::size_t> sizes;
  return rtd::CheckHello(h, Expect(), spec, 7, &sizes);
}

TEST(NetworkDecoder, HelloNamesWhatDiffers) {
  EXPECT_EQ(Check(Hello()), "");
  auto h = Hello();
  h.set_protocol_version(1);
  EXPECT_EQ(Check(h), "protocol version 1, expected 5");
  h = Hello();
  h.set_party_id("c\n");
  EXPECT_EQ(Check(h), "introduces itself as 'c?', expected 'b'");
  h = Hello();
  h.set_spec_hash("spex");
  EXPECT_EQ(Check(h), "runs a different spec (spec hash 73706578, this party's 73706563)");
  h = Hello();
  h.set_layout_hash(8);
  EXPECT_NE(Check(h).find("runs a different layout"), std::string::npos);
  h = Hello();
  h.mutable_nodes(1)->set_node(4);
  EXPECT_EQ(Check(h), "hosts nodes {2, 4}, the map gives it {2, 3}");
  h = Hello();
  h.mutable_nodes(1)->set_max_doubles(4);
  EXPECT_EQ(Check(h),
            "node 3 sends messages of up to 4 doubles, more than this party's limit of 3");
  // Version 4: a session of exactly 16 bytes, and a round within the run.
  h = Hello();
  h.set_session("short");
  EXPECT_EQ(Check(h), "sends a session of 5 bytes, expected 16");
  h = Hello();
  h.set_next_round(41);
  EXPECT_EQ(Check(h), "");
  h.set_next_round(42);
  EXPECT_EQ(Check(h), "says it is at round 42, outside 0..41");
  h.set_next_round(-1);
  EXPECT_EQ(Check(h), "says it is at round -1, outside 0..41");
}

// Version 3: a party resuming from a checkpoint and one starting afresh refuse each other; the
// rounds a peer offers to resume from are bounded in count and range.
TEST(NetworkDecoder, HelloResumeFields) {
  auto h = Hello();
  h.set_resuming(true);
  EXPECT_EQ(Check(h),
            "resumes from a checkpoint while this party starts afresh (resume every party, or "
            "restart every party without --resume)");
  const std::vector<std::uint8_t> spec = {'s', 'p', 'e', 'c'};
  std::vector<std::size_t> sizes;
  rtd::PeerExpect resuming = Expect();
  resuming.resuming = true;
  h.add_resume_rounds(20);
  h.add_resume_rounds(40);
  EXPECT_EQ(rtd::CheckHello(h, resuming, spec, 7, &sizes), "");
  EXPECT_EQ(rtd::CheckHello(Hello(), resuming, spec, 7, &sizes),
            "starts afresh while this party resumes from a checkpoint (resume every party, or "
            "restart every party without --resume)");
  h.add_resume_rounds(41);
  EXPECT_EQ(rtd::CheckHello(h, resuming, spec, 7, &sizes),
            "offers to resume from round 41, outside 0..40");
  h.clear_resume_rounds();
  for (int k = 0; k < 17; ++k) h.add_resume_rounds(k);
  EXPECT_EQ(rtd::CheckHello(h, resuming, spec, 7, &sizes),
            "offers 17 checkpoint rounds to resume from, more than 16");
}

// Version 2: a spec mismatch names the fields whose digests differ (and those only one side
// has); malformed fields are refused without being named.
TEST(NetworkDecoder, SpecMismatchNamesTheFields) {
  const std::vector<rt::SpecField> mine = {
      {"algorithm.dvp.alpha", {1}}, {"iterations", {2}}, {"seed", {3}}};
  const std::vector<std::uint8_t> spec = {'s', 'p', 'e', 'c'};
  std::vector<std::size_t> sizes;
  auto h = Hello();
  h.set_spec_hash("spex");
  for (const auto& [name, digest] : std::vector<std::pair<std::string, char>>{
           {"algorithm.dvp.alpha", 9}, {"iterations", 2}, {"loss.kind", 4}}) {
    auto* f = h.add_spec_fields();
    f->set_name(name);
    f->set_digest(std::string(1, digest));
  }
  EXPECT_EQ(rtd::CheckHello(h, Expect(), spec, 7, &sizes, mine),
            "runs a different spec (spec hash 73706578, this party's 73706563); fields that "
            "differ: algorithm.dvp.alpha, seed, loss.kind");
  h.mutable_spec_fields(0)->set_name(std::string(200, 'x'));
  EXPECT_EQ(rtd::CheckHello(h, Expect(), spec, 7, &sizes, mine),
            "runs a different spec (spec hash 73706578, this party's 73706563); its spec fields "
            "are malformed");
  // The same hash: the fields are not looked at.
  h.set_spec_hash("spec");
  EXPECT_EQ(rtd::CheckHello(h, Expect(), spec, 7, &sizes, mine), "");
}

rtd::pb::Envelope RoundFrame(std::int64_t r,
                             std::vector<std::pair<int, int>> edges = {{2, 1}, {3, 0}},
                             std::vector<double> payload = {1, 2}) {
  return dpadmm::partytest::RoundFrame(r, edges, payload);
}

rtd::pb::Envelope Verdict(std::int64_t r, bool go_on) {
  rtd::pb::Envelope e;
  e.mutable_verdict()->set_round(r);
  e.mutable_verdict()->set_go_on(go_on);
  return e;
}

// The first refusal of a stream fed `frames` (with next_deliver 0).
std::string Feed(const std::vector<rtd::pb::Envelope>& frames, rtd::PeerStream* s = nullptr) {
  rtd::PeerStream local(Expect(), {3, 2});
  rtd::PeerStream& stream = s != nullptr ? *s : local;
  for (const auto& f : frames) {
    const std::string err = stream.Accept(f, 0);
    if (!err.empty()) return err;
  }
  return "";
}

TEST(NetworkDecoder, AcceptsAnHonestStream) {
  rtd::PeerStream s(Expect(), {3, 2});
  EXPECT_EQ(Feed({RoundFrame(0), RoundFrame(1, {{2, 1}, {3, 0}}, {}), Verdict(0, true),
                  RoundFrame(2), Verdict(1, false)},
                 &s),
            "");
  EXPECT_EQ(s.rounds_received(), 3);
  EXPECT_EQ(s.verdicts_received(), 2);
  EXPECT_EQ(s.stop_round(), 1);
  EXPECT_EQ(s.Round(0).Message(1).size(), 2u);
  EXPECT_EQ(s.Round(0).Message(1)[1], 2.0);
  EXPECT_TRUE(s.Round(1).Message(0).empty());
  s.DropBefore(2);
  EXPECT_EQ(s.first_held(), 2);
  EXPECT_EQ(s.Round(2).round, 2);
}

TEST(NetworkDecoder, RefusesEveryBrokenRule) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(Feed({RoundFrame(1)}), "round frame 1: out of order (expected round 0)");
  EXPECT_EQ(Feed({RoundFrame(0), RoundFrame(0)}), "round frame 0: out of order (expected round 1)");
  EXPECT_EQ(Feed({RoundFrame(0, {{2, 1}})}), "round frame 0: 1 messages, expected 2");
  EXPECT_EQ(Feed({RoundFrame(0, {{3, 0}, {2, 1}})}),
            "round frame 0: message 0 is for edge 3 -> 0, expected 2 -> 1");
  // Node 3's limit is 2 (its Hello), below the party-wide 3.
  EXPECT_EQ(Feed({RoundFrame(0, {{2, 1}, {3, 0}}, {1, 2, 3})}),
            "round frame 0: node 3's message has 3 doubles, more than its 2");
  EXPECT_EQ(Feed({RoundFrame(0, {{2, 1}, {3, 0}}, {1, nan})}),
            "round frame 0: node 2's message[1] = nan (not finite)");
  EXPECT_EQ(Feed({RoundFrame(0, {{2, 1}, {3, 0}}, {-inf})}),
            "round frame 0: node 2's message[0] = -inf (not finite)");
  std::vector<rtd::pb::Envelope> many;
  for (int r = 0; r <= rtd::kLeadRounds + 2; ++r) many.push_back(RoundFrame(r));
  EXPECT_EQ(Feed(many), "round frame 18: more than 16 rounds ahead of this party");
  rtd::PeerExpect short_run = Expect();
  short_run.last_round = 0;
  rtd::PeerStream s(short_run);
  EXPECT_EQ(s.Accept(RoundFrame(0), 0), "");
  EXPECT_EQ(s.Accept(RoundFrame(1), 0), "round frame 1: beyond the last round 0");

  auto failed = RoundFrame(0, {});
  failed.mutable_round()->set_failed(true);
  failed.mutable_round()->set_failed_node(1);
  EXPECT_EQ(Feed({failed}), "round frame 0: reports a failure of node 1, which it does not host");
  failed.mutable_round()->set_failed_node(3);
  failed.mutable_round()->set_failure_kind(3);
  EXPECT_EQ(Feed({failed}), "round frame 0: unknown failure kind 3");
  failed.mutable_round()->set_failure_kind(1);
  EXPECT_EQ(Feed({failed, RoundFrame(1)}), "round frame 1: a round after its failed round");
  auto failed_with_messages = RoundFrame(0);
  failed_with_messages.mutable_round()->set_failed(true);
  failed_with_messages.mutable_round()->set_failed_node(2);
  EXPECT_EQ(Feed({failed_with_messages}), "round frame 0: a failed round carries messages");
  auto half_failed = RoundFrame(0);
  half_failed.mutable_round()->set_failure_kind(2);
  EXPECT_EQ(Feed({half_failed}), "round frame 0: failure fields set in a round that did not fail");

  EXPECT_EQ(Feed({Verdict(0, true)}), "verdict on round 0: before its own frame of that round");
  EXPECT_EQ(Feed({RoundFrame(0), RoundFrame(1), Verdict(1, true)}),
            "verdict on round 1: out of order (expected round 0)");
  EXPECT_EQ(Feed({RoundFrame(0), RoundFrame(1), Verdict(0, false), Verdict(1, true)}),
            "verdict on round 1: after its verdict to stop");
  EXPECT_EQ(Feed({rtd::pb::Envelope()}), "sent an empty or unknown frame");
  rtd::pb::Envelope abort;
  abort.mutable_abort()->set_reason(std::string("bye\x1b[31m") + std::string(400, 'x'));
  rtd::PeerStream t(Expect());
  EXPECT_EQ(t.Accept(abort, 0), "");
  EXPECT_TRUE(t.aborted());
  EXPECT_EQ(t.abort_reason().substr(0, 9), "bye?[31mx");
  EXPECT_EQ(t.abort_reason().size(), rtd::kMaxReasonChars + 3);
  EXPECT_EQ(t.Accept(RoundFrame(0), 0), "sent a frame after aborting");
}

// Version 4: the set-up exchange. Both Hellos must hold it with the same value count; a peer's
// values come once, before its round 0 frame, with that count, all finite.
TEST(NetworkDecoder, SetupExchangeRules) {
  const std::vector<std::uint8_t> spec = {'s', 'p', 'e', 'c'};
  std::vector<std::size_t> sizes;
  rtd::PeerExpect exchanging = Expect();
  exchanging.setup_exchange = true;
  exchanging.setup_values = 2;
  auto h = Hello();
  h.set_setup_exchange(true);
  h.set_setup_values(2);
  EXPECT_EQ(rtd::CheckHello(h, exchanging, spec, 7, &sizes), "");
  EXPECT_EQ(Check(h), "holds a set-up exchange before round 0 that this party does not");
  EXPECT_EQ(rtd::CheckHello(Hello(), exchanging, spec, 7, &sizes),
            "holds no set-up exchange before round 0, which this party does");
  h.set_setup_values(3);
  EXPECT_EQ(rtd::CheckHello(h, exchanging, spec, 7, &sizes),
            "sends 3 values in the set-up exchange, this party 2");

  const auto setup = [](std::vector<double> values) {
    rtd::pb::Envelope e;
    e.mutable_setup()->mutable_values()->Add(values.begin(), values.end());
    return e;
  };
  const auto feed = [&](const std::vector<rtd::pb::Envelope>& frames, rtd::PeerStream& s) {
    for (const auto& f : frames) {
      const std::string err = s.Accept(f, 0);
      if (!err.empty()) return err;
    }
    return std::string();
  };
  {
    rtd::PeerStream s(exchanging, {3, 2});
    EXPECT_FALSE(s.setup_received());
    EXPECT_EQ(feed({setup({5, 6}), RoundFrame(0)}, s), "");
    EXPECT_TRUE(s.setup_received());
    EXPECT_EQ(s.setup_values(), (std::vector<double>{5, 6}));
  }
  const auto first_refusal = [&](const std::vector<rtd::pb::Envelope>& frames) {
    rtd::PeerStream s(exchanging, {3, 2});
    return feed(frames, s);
  };
  EXPECT_EQ(first_refusal({RoundFrame(0)}), "round frame 0: before its set-up values");
  EXPECT_EQ(first_refusal({setup({5, 6}), setup({5, 6})}), "set-up values: sent twice");
  EXPECT_EQ(first_refusal({setup({5})}), "set-up values: 1 values, expected 2");
  EXPECT_EQ(first_refusal({setup({5, std::numeric_limits<double>::infinity()})}),
            "set-up values: value[1] = inf (not finite)");
  EXPECT_EQ(Feed({setup({5, 6})}), "set-up values: no set-up exchange was agreed");
}

TEST(NetworkDecoder, AFailedRoundHasNoVerdictButEarlierRoundsDo) {
  auto failed = RoundFrame(1, {});
  failed.mutable_round()->set_failed(true);
  failed.mutable_round()->set_failed_node(2);
  EXPECT_EQ(Feed({RoundFrame(0), failed, Verdict(0, true)}), "");
  EXPECT_EQ(Feed({RoundFrame(0), failed, Verdict(0, true), Verdict(1, true)}),
            "verdict on round 1: before its own frame of that round");
}

// Envelopes numbered by the sender: the next number is new, a number already taken is a copy
// (dropped when byte for byte the first, refused otherwise), a gap is refused.
TEST(NetworkSequence, CopiesAreDroppedOnlyWhenIdentical) {
  rtd::InboundSequence in;
  std::string why;
  auto numbered = [](rtd::pb::Envelope e, std::uint64_t seq, std::uint64_t ack = 0) {
    e.set_seq(seq);
    e.set_ack(ack);
    return e;
  };
  using R = rtd::InboundSequence::Result;
  EXPECT_EQ(in.Accept(numbered(RoundFrame(0), 0), &why), R::kNew);
  EXPECT_EQ(in.Accept(numbered(Verdict(0, true), 1, 1), &why), R::kNew);
  EXPECT_EQ(in.received(), 2u);
  EXPECT_EQ(in.Accept(numbered(RoundFrame(0), 0), &why), R::kDuplicate);
  EXPECT_EQ(in.Accept(numbered(Verdict(0, true), 1, 1), &why), R::kDuplicate);
  EXPECT_EQ(in.resent(), 2u);
  EXPECT_EQ(in.resent_rounds(), 1u);
  // The same round with other noise, or another acknowledgement: not the first copy.
  EXPECT_EQ(in.Accept(numbered(RoundFrame(0, {{2, 1}, {3, 0}}, {1, 2.0000000001}), 0), &why),
            R::kViolation);
  EXPECT_EQ(why,
            "envelope 0 (round 0) sent again with other contents than its first copy (a release "
            "is never made twice)");
  EXPECT_EQ(in.Accept(numbered(Verdict(0, true), 1, 0), &why), R::kViolation);
  EXPECT_EQ(in.Accept(numbered(RoundFrame(1), 3), &why), R::kViolation);
  EXPECT_EQ(why, "envelope 3 before envelope 2 (a gap in its stream)");
  EXPECT_EQ(in.received(), 2u);
  // Copies older than a sender may hold unacknowledged are refused (the memory is bounded).
  rtd::InboundSequence many;
  rtd::pb::Envelope heartbeat;
  heartbeat.mutable_heartbeat();
  for (std::uint64_t k = 0; k < rtd::kMaxUnacked + 5; ++k) {
    ASSERT_EQ(many.Accept(numbered(heartbeat, k), &why), R::kNew);
  }
  EXPECT_EQ(many.Accept(numbered(heartbeat, 5), &why), R::kDuplicate);
  EXPECT_EQ(many.Accept(numbered(heartbeat, 4), &why), R::kViolation);
  EXPECT_NE(why.find("sent again after 133 were received"), std::string::npos) << why;
}

// What a party keeps for a peer: numbered in order, forgotten once acknowledged, at most
// kMaxUnacked; an acknowledgement of more than was sent is refused.
TEST(NetworkSequence, TheResendBufferIsBounded) {
  rtd::OutboundBuffer out;
  rtd::pb::Envelope heartbeat;
  heartbeat.mutable_heartbeat();
  for (std::size_t k = 0; k < rtd::kMaxUnacked; ++k) ASSERT_TRUE(out.Push(heartbeat, 7));
  EXPECT_FALSE(out.Push(heartbeat, 7));
  EXPECT_EQ(out.At(5).seq(), 5u);
  EXPECT_EQ(out.At(5).ack(), 7u);
  EXPECT_EQ(out.Acknowledge(10), "");
  EXPECT_EQ(out.first(), 10u);
  EXPECT_EQ(out.Acknowledge(3), "");  // a copy's stale acknowledgement
  EXPECT_EQ(out.first(), 10u);
  EXPECT_TRUE(out.Push(heartbeat, 8));
  EXPECT_EQ(out.next(), rtd::kMaxUnacked + 1);
  EXPECT_EQ(out.Acknowledge(rtd::kMaxUnacked + 2), "acknowledges 130 envelopes, of 129 sent");
  EXPECT_EQ(out.size(), rtd::kMaxUnacked - 9);
}

TEST(NetworkDecoder, LayoutHashSeesEveryPart) {
  rt::Topology t;
  t.neighbors = {{1}, {0, 2}, {1}};
  const std::vector<int> map = {0, 1, 1};
  const std::vector<std::string> ids = {"a", "b"};
  const auto h = rtd::LayoutHash(t, map, ids, 10);
  EXPECT_EQ(h, rtd::LayoutHash(t, map, ids, 10));
  EXPECT_NE(h, rtd::LayoutHash(t, map, ids, 11));
  EXPECT_NE(h, rtd::LayoutHash(t, std::vector<int>{0, 0, 1}, ids, 10));
  EXPECT_NE(h, rtd::LayoutHash(t, map, std::vector<std::string>{"a", "c"}, 10));
  rt::Topology u;
  u.neighbors = {{1, 2}, {0, 2}, {0, 1}};
  EXPECT_NE(h, rtd::LayoutHash(u, map, ids, 10));
}

}  // namespace
