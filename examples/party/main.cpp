// SPDX-License-Identifier: Apache-2.0
// A C++ service embedding one party of a run across organisations (dpadmm/party.h). Each
// organisation's service constructs a `dpadmm::Party` from the public run spec, its own rows in
// memory and its transport options, and calls Run(); only the released messages reach the
// other parties. To be runnable anywhere, this example starts the three parties as three
// threads on 127.0.0.1 in plaintext (`insecure`, loopback only); a deployment runs one per
// organisation with mutual TLS (the tls files of NetworkOptions; README.md, "Across
// organisations").
//
//   ./party [first-port]        (default 27401: ports 27401-27403 on 127.0.0.1)
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <thread>
#include <vector>

#include <dpadmm/data/generators.h>
#include <dpadmm/party.h>
#include <dpadmm/run/choices.h>

int main(int argc, char** argv) {
  const int port = argc > 1 ? std::atoi(argv[1]) : 27401;
  constexpr int kParties = 3;

  // The public spec every party holds: 3 nodes on a ring (node k at party k), DVP with
  // per-record clipping (the scalings that need no other party's rows), a noise seed so that
  // the run is reproducible (a simulation: leave noise_seed unset for private keys).
  dpadmm::RunSpec spec;
  spec.graph.topology = dpadmm::Topology::kRing;
  spec.graph.nodes = kParties;
  spec.algorithm.Select(dpadmm::Algorithm::kDvp);
  spec.algorithm.As<dpadmm::DvpParams>().alpha = 1.0;
  spec.algorithm.eta = 10.0;
  spec.data.scaling = dpadmm::Scaling::kClipOnly;
  spec.iterations = 20;
  spec.noise_seed = 42;

  std::vector<dpadmm::runtime::PartyAddress> parties;
  for (int p = 0; p < kParties; ++p) {
    parties.push_back({"org-" + std::to_string(p), "127.0.0.1:" + std::to_string(port + p)});
  }
  const dpadmm::Dataset test = dpadmm::GenerateTwonorm(600, /*seed=*/99, /*dims=*/10);
  std::vector<dpadmm::RunSummary> summaries(kParties);
  std::vector<std::string> errors(kParties);
  std::vector<std::thread> threads;
  for (int p = 0; p < kParties; ++p) {
    threads.emplace_back([&, p] {
      try {
        // This organisation's own rows (here generated; in a service, its database).
        dpadmm::Dataset mine =
            dpadmm::GenerateTwonorm(400, /*seed=*/static_cast<std::uint64_t>(p + 1), 10);
        dpadmm::runtime::NetworkOptions net;
        net.self = parties[p].id;
        net.parties = parties;
        net.insecure = true;  // loopback only; a deployment sets net.tls instead
        net.setup_timeout_seconds = 30;
        const dpadmm::Party party(spec, std::move(mine), test, net);
        summaries[p] = party.Run();
      } catch (const std::exception& e) {
        errors[p] = e.what();
      }
    });
  }
  for (auto& t : threads) t.join();
  bool ok = true;
  for (int p = 0; p < kParties; ++p) {
    if (!errors[p].empty()) {
      std::printf("%s: error: %s\n", parties[p].id.c_str(), errors[p].c_str());
      ok = false;
      continue;
    }
    const dpadmm::RunSummary& s = summaries[p];
    std::printf(
        "%s: %s, test accuracy of its model %.2f%%, its tight epsilon %.3g (delta %.2g), "
        "%s\n",
        parties[p].id.c_str(), dpadmm::ToString(s.outcome), 100.0 * (1.0 - s.final.test_error),
        s.tight_epsilon, s.tight_delta, dpadmm::NoiseLabel(s.info));
    ok = ok && s.outcome == dpadmm::RunOutcome::kCompleted && s.final.test_error < 0.2;
  }
  std::printf(ok ? "ok\n" : "FAILED\n");
  return ok ? 0 : 1;
}
