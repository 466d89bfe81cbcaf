// SPDX-License-Identifier: Apache-2.0
// A hostile party for the network engine's tests: party p1 of a 2-party run on a ring of 4
// nodes (p0 hosts 0 and 1, p1 hosts 2 and 3, messages of 2 doubles, 30 rounds). It holds a
// valid certificate of the run and agrees at set-up like an honest party (same protocol, spec
// and layout), then sends p0 what `--mode` says, which p0 must refuse naming p1:
//   wrong_round  its first round frame claims round 3
//   wrong_node   round 0 with a message on edge 3 -> 1 where 2 -> 1 is expected
//   too_long     round 0 with a message of 3 doubles (the limit is 2)
//   nan          round 0 with a NaN in a message
//   missing      round 0 with one message of the two edges
//   oversize     a frame of 4 MB, beyond the limit p0 sets from the message width
//   ahead        rounds 0..40 at once, never a verdict (more than the lead bound ahead)
//   resend_other round 0, then round 0 again under its number with other contents
//   hello_flood  its stream open, Hello again and again as a reconnecting party, 20 ms apart
//                (the limit: 10 at once, then one per 6 s)
//   new_session  its stream open, Hello again as another process (another session)
// Arguments: --ports P0,P1 --certs DIR --mode M (and the launcher's --party 1 --out F).
#include <arpa/inet.h>
#include <grpcpp/grpcpp.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <string>
#include <thread>

#include "../mpi/mpi_test_support.h"
#include "dpadmm_party.grpc.pb.h"
#include "network_frame.h"
#include "party_frames.h"

namespace pb = dpadmm::party::v1;
namespace rt = dpadmm::runtime;

namespace {

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Answers p0's Hello as an honest p1 would and reads whatever p0 sends.
class Honest final : public pb::Party::Service {
 public:
  explicit Honest(pb::HelloMessage hello) : hello_(std::move(hello)) {}
  grpc::Status Hello(grpc::ServerContext*, const pb::HelloMessage*,
                     pb::HelloMessage* reply) override {
    *reply = hello_;
    return grpc::Status::OK;
  }
  grpc::Status Exchange(grpc::ServerContext*, grpc::ServerReader<pb::Envelope>* reader,
                        pb::ExchangeEnd*) override {
    pb::Envelope e;
    while (reader->Read(&e)) {
    }
    return grpc::Status::OK;
  }

 private:
  pb::HelloMessage hello_;
};

bool P0Listens(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  const bool up = fd >= 0 && connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  if (fd >= 0) close(fd);
  return up;
}

pb::Envelope Round(std::int64_t r, const std::vector<std::pair<int, int>>& edges, int doubles,
                   double value = 0.5) {
  std::vector<double> payload;
  for (int k = 0; k < doubles; ++k) payload.push_back(k == 1 ? value : static_cast<double>(r));
  return dpadmm::partytest::RoundFrame(r, edges, payload);
}

}  // namespace

int main(int argc, char** argv) {
  std::map<std::string, std::string> a;
  for (int k = 1; k + 1 < argc; k += 2) a[argv[k]] = argv[k + 1];
  const std::string ports = a.at("--ports");
  const std::string p0 = "127.0.0.1:" + ports.substr(0, ports.find(','));
  const std::string p1 = "127.0.0.1:" + ports.substr(ports.find(',') + 1);
  const std::string dir = a.at("--certs") + "/";
  const std::string mode = a.at("--mode");

  const rt::Topology ring = dpadmm::mpitest::Ring(4);
  const std::vector<int> map = {0, 0, 1, 1};
  const std::vector<std::string> ids = {"p0", "p1"};
  pb::HelloMessage hello;
  hello.set_protocol_version(dpadmm::runtime::detail::kProtocolVersion);
  hello.set_party_id("p1");
  hello.set_spec_hash("spec");
  hello.set_layout_hash(dpadmm::runtime::detail::LayoutHash(ring, map, ids, 30));
  for (int node : {2, 3}) {
    auto* n = hello.add_nodes();
    n->set_node(static_cast<std::uint32_t>(node));
    n->set_max_doubles(2);
  }
  hello.set_session(std::string(dpadmm::runtime::detail::kSessionBytes, 'h'));

  const std::string ca = ReadFile(dir + "ca.pem"), cert = ReadFile(dir + "p1.pem"),
                    key = ReadFile(dir + "p1.key");
  grpc::SslServerCredentialsOptions server_ssl(
      GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY);
  server_ssl.pem_root_certs = ca;
  server_ssl.pem_key_cert_pairs.push_back({key, cert});
  Honest service(hello);
  grpc::ServerBuilder builder;
  builder.AddListeningPort(p1, grpc::SslServerCredentials(server_ssl));
  builder.RegisterService(&service);
  auto server = builder.BuildAndStart();
  if (!server) return 2;

  grpc::SslCredentialsOptions ssl;
  ssl.pem_root_certs = ca;
  ssl.pem_private_key = key;
  ssl.pem_cert_chain = cert;
  grpc::ChannelArguments args;
  args.SetSslTargetNameOverride("p0");
  auto stub = pb::Party::NewStub(grpc::CreateCustomChannel(p0, grpc::SslCredentials(ssl), args));
  // Hello until p0 answers (it may start after us), within 20 s.
  bool agreed = false;
  for (int attempt = 0; attempt < 200 && !agreed; ++attempt) {
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(1));
    pb::HelloMessage reply;
    agreed = stub->Hello(&ctx, hello, &reply).ok();
    if (!agreed) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  if (!agreed) return 2;

  grpc::ClientContext ctx;
  ctx.AddMetadata("dpadmm-party", "p1");
  pb::ExchangeEnd end;
  auto stream = stub->Exchange(&ctx, &end);
  const std::vector<std::pair<int, int>> edges = {{2, 1}, {3, 0}};
  std::vector<pb::Envelope> frames;
  if (mode == "wrong_round") frames.push_back(Round(3, edges, 2));
  if (mode == "wrong_node") frames.push_back(Round(0, {{3, 1}, {3, 0}}, 2));
  if (mode == "too_long") frames.push_back(Round(0, edges, 3));
  if (mode == "nan") frames.push_back(Round(0, edges, 2, std::numeric_limits<double>::quiet_NaN()));
  if (mode == "missing") frames.push_back(Round(0, {{2, 1}}, 2));
  if (mode == "oversize") frames.push_back(Round(0, edges, 1 << 18));
  if (mode == "ahead") {
    for (int r = 0; r <= 40; ++r) frames.push_back(Round(r, edges, 2));
  }
  if (mode == "resend_other") {  // round 0, then "round 0 again" with other noise
    frames.push_back(Round(0, edges, 2));
    frames.push_back(Round(0, edges, 2, 0.75));
  }
  const bool hellos = mode == "hello_flood" || mode == "new_session";
  if (frames.empty() && !hellos) return 2;
  // Numbered as an honest party numbers them (Envelope.seq); the copy keeps its number.
  std::uint64_t seq = 0;
  for (auto& f : frames) {
    f.set_seq(mode == "resend_other" && seq == 1 ? 0 : seq);
    ++seq;
    if (!stream->Write(f)) break;
  }
  if (mode == "resend_other") seq = 1;
  if (hellos) {
    // p0 has opened the stream (its handler runs) well within 2 s; then the Hellos of a
    // reconnection, until p0 refuses one (at most 100, 20 ms apart).
    pb::Envelope heartbeat;
    heartbeat.mutable_heartbeat();
    heartbeat.set_seq(seq++);
    stream->Write(heartbeat);
    std::this_thread::sleep_for(std::chrono::seconds(2));
    pb::HelloMessage again = hello;
    if (mode == "new_session") {
      again.set_session(std::string(dpadmm::runtime::detail::kSessionBytes, 'x'));
    }
    for (int k = 0; k < 100; ++k) {
      grpc::ClientContext hello_ctx;
      hello_ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(1));
      pb::HelloMessage reply;
      if (!stub->Hello(&hello_ctx, again, &reply).ok()) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }
  // Stay connected until p0 has given up on us (it closes its side), at most 20 s.
  for (int k = 0; k < 200; ++k) {
    pb::Envelope heartbeat;
    heartbeat.mutable_heartbeat();
    heartbeat.set_seq(seq++);
    if (!stream->Write(heartbeat)) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ctx.TryCancel();
  // Our server stays up until p0 has ended (its port refuses), at most 20 s: p0 refuses a
  // stream it reads in its handler (a copy with other contents) before its set-up is done.
  for (int k = 0; k < 200 && P0Listens(std::stoi(ports.substr(0, ports.find(',')))); ++k) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  server->Shutdown(std::chrono::system_clock::now() + std::chrono::milliseconds(100));
  std::ofstream(a.at("--out")) << "hostile " << mode << " done\n";
  return 0;
}
