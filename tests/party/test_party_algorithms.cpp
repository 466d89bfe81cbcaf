// SPDX-License-Identifier: Apache-2.0
// The project's real algorithms as one `dpadmm party` process per party on 127.0.0.1 (mutual
// TLS, certificates from scripts/make_certs.sh): for every consensus algorithm, 3 and 5
// parties, each with its own data file (a row block of one generated data set) and the public
// test file, in simulation mode. Each party's trace (every column but the wall time) and model
// must have the bits of the serial engine run here on the concatenated rows with the matching
// partition, measured as that party measures (Party::SerialAsParty); every party must exit 0
// within the bound, naming itself a simulation.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "dpadmm/data/generators.h"
#include "dpadmm/data/loaders.h"
#include "dpadmm/party.h"
#include "dpadmm/run/spec_json.h"
#include "party_cli.h"

namespace fs = std::filesystem;

namespace {

using dpadmm::partytest::FreePorts;
using dpadmm::partytest::Lines;
using dpadmm::partytest::ReadAll;
using dpadmm::partytest::WithoutColumn;
using dpadmm::partytest::WriteLibsvmRows;

constexpr int kRowsPerParty = 24;
constexpr int kDims = 4;

struct Ended {
  int exit_code = -1;
  bool killed_by_test = false;
  std::string out, err;
};

class PartyAlgorithms : public ::testing::TestWithParam<std::tuple<std::string, int>> {
 protected:
  static void SetUpTestSuite() {
    const char* tmp = std::getenv("TMPDIR");
    std::string templ = std::string(tmp != nullptr ? tmp : "/tmp") + "/partyalg_XXXXXX";
    ASSERT_NE(mkdtemp(templ.data()), nullptr);
    dir_ = templ;
    const std::string cmd = std::string(DPADMM_MAKE_CERTS) + " " + (dir_ / "certs").string() +
                            " p0 p1 p2 p3 p4 2>/dev/null >/dev/null";
    ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  }
  static void TearDownTestSuite() { fs::remove_all(dir_); }

  // The public spec of the run (the same object every party file holds).
  static nlohmann::json Spec(const std::string& algorithm, int parties) {
    nlohmann::json spec = {
        {"data", {{"source", "libsvm"}, {"num_features", kDims}, {"scaling", "clip-only"}}},
        {"graph", {{"topology", "ring"}, {"nodes", parties}}},
        {"algorithm", {{"name", algorithm}}},
        {"iterations", 5},
        {"seed", 3},
        {"noise_seed", 11},
        {"engine", "serial"}};
    if (algorithm == "dvp" || algorithm == "pvp") spec["algorithm"][algorithm]["alpha"] = 0.5;
    return spec;
  }

  // Launches one `dpadmm party` per party; every process must end within `bound` seconds.
  std::vector<Ended> Launch(const fs::path& run, int parties, double bound = 120) {
    std::vector<pid_t> pids;
    for (int p = 0; p < parties; ++p) {
      std::vector<std::string> args = {DPADMM_CLI, "party", "--config",
                                       (run / ("party" + std::to_string(p) + ".json")).string(),
                                       "--quiet"};
      const std::string out = (run / ("out" + std::to_string(p))).string();
      const std::string err = (run / ("err" + std::to_string(p))).string();
      const pid_t pid = fork();
      if (pid == 0) {
        if (!freopen(out.c_str(), "w", stdout) || !freopen(err.c_str(), "w", stderr)) _exit(126);
        std::vector<char*> argv;
        for (auto& s : args) argv.push_back(s.data());
        argv.push_back(nullptr);
        execv(argv[0], argv.data());
        _exit(127);
      }
      pids.push_back(pid);
    }
    std::vector<Ended> ended(static_cast<std::size_t>(parties));
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(bound);
    for (int p = 0; p < parties; ++p) {
      int status = 0;
      while (waitpid(pids[p], &status, WNOHANG) != pids[p]) {
        if (std::chrono::steady_clock::now() > deadline) {
          ended[p].killed_by_test = true;
          kill(pids[p], SIGKILL);
          waitpid(pids[p], &status, 0);
          break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      }
      ended[p].exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
      ended[p].out = ReadAll(run / ("out" + std::to_string(p)));
      ended[p].err = ReadAll(run / ("err" + std::to_string(p)));
    }
    return ended;
  }

  // Writes the data (party p: rows [p * kRowsPerParty, (p + 1) * kRowsPerParty) of one data
  // set, all.libsvm and partition.txt for the serial run, test.libsvm) and the party files
  // (tweak(p, spec) may change party p's spec), and runs the parties.
  std::vector<Ended> RunParties(const fs::path& run, const std::string& algorithm, int parties,
                                const std::function<void(int, nlohmann::json&)>& tweak = {},
                                double setup_timeout = 60) {
    fs::create_directories(run);
    // One data set: party p holds rows [p * kRowsPerParty, (p + 1) * kRowsPerParty).
    const dpadmm::Dataset all = dpadmm::GenerateTwonorm(kRowsPerParty * parties, 5, kDims);
    const dpadmm::Dataset test_rows = dpadmm::GenerateTwonorm(30, 6, kDims);
    {
      std::ofstream whole(run / "all.libsvm"), part(run / "partition.txt"),
          test(run / "test.libsvm");
      WriteLibsvmRows(whole, all, 0, all.rows());
      WriteLibsvmRows(test, test_rows, 0, test_rows.rows());
      for (int p = 0; p < parties; ++p) {
        std::ofstream mine(run / ("p" + std::to_string(p) + ".libsvm"));
        WriteLibsvmRows(mine, all, p * kRowsPerParty, (p + 1) * kRowsPerParty);
        for (int r = 0; r < kRowsPerParty; ++r) part << p << '\n';
      }
    }
    std::vector<Ended> ended;
    // A port taken between FreePorts and the party's listen (another test): a fresh set.
    for (int attempt = 0; attempt < 3; ++attempt) {
      const std::vector<int> ports = FreePorts(parties);
      if (static_cast<int>(ports.size()) != parties) {
        ADD_FAILURE() << "no free loopback ports";
        return ended;
      }
      nlohmann::json list = nlohmann::json::array();
      for (int p = 0; p < parties; ++p) {
        list.push_back({{"id", "p" + std::to_string(p)},
                        {"address", "127.0.0.1:" + std::to_string(ports[p])}});
      }
      const fs::path certs = dir_ / "certs";
      for (int p = 0; p < parties; ++p) {
        const std::string id = "p" + std::to_string(p);
        nlohmann::json spec = Spec(algorithm, parties);
        if (tweak) tweak(p, spec);
        const nlohmann::json file = {{"spec", spec},
                                     {"party", id},
                                     {"data", (run / (id + ".libsvm")).string()},
                                     {"test", (run / "test.libsvm").string()},
                                     {"parties", list},
                                     {"tls",
                                      {{"ca", (certs / "ca.pem").string()},
                                       {"cert", (certs / (id + ".pem")).string()},
                                       {"key", (certs / (id + ".key")).string()}}},
                                     {"setup_timeout_seconds", setup_timeout},
                                     {"peer_timeout_seconds", 60},
                                     {"trace", (run / (id + "-trace.csv")).string()},
                                     {"summary", (run / (id + "-summary.json")).string()}};
        std::ofstream(run / ("party" + std::to_string(p) + ".json")) << file.dump(2);
      }
      ended = Launch(run, parties);
      bool port_taken = false;
      for (const Ended& e : ended) {
        port_taken = port_taken || e.err.find("cannot listen") != std::string::npos;
      }
      if (!port_taken) break;
    }

    return ended;
  }

  static fs::path dir_;
};
fs::path PartyAlgorithms::dir_;

// Records every round the serial reference reports.
struct Rows : dpadmm::RunObserver {
  std::vector<dpadmm::RoundMetrics> rows;
  void OnRound(const dpadmm::RoundMetrics& m) override { rows.push_back(m); }
};

TEST_P(PartyAlgorithms, SameBitsAsSerial) {
  const auto& [algorithm, parties] = GetParam();
  const fs::path run = dir_ / (algorithm + "_" + std::to_string(parties));
  const std::vector<Ended> ended = RunParties(run, algorithm, parties);
  const nlohmann::json spec = Spec(algorithm, parties);

  // The serial reference: the concatenated rows, the partition file that gives party p's rows
  // to node p, the same public test file.
  dpadmm::RunSpec serial =
      dpadmm::RunSpec::Defaults(dpadmm::ParseChoice<dpadmm::Algorithm>(algorithm, "algorithm"));
  dpadmm::ApplySpecJson(spec.dump(), "spec", serial);
  serial.partition.kind = dpadmm::PartitionKind::kFile;
  serial.partition.file = (run / "partition.txt").string();
  serial.compute_optimum = false;
  const dpadmm::Dataset train = dpadmm::LoadLibsvm((run / "all.libsvm").string(), kDims);
  const dpadmm::Dataset test = dpadmm::LoadLibsvm((run / "test.libsvm").string(), kDims);
  for (int p = 0; p < parties; ++p) {
    SCOPED_TRACE("party p" + std::to_string(p));
    const Ended& e = ended[p];
    ASSERT_FALSE(e.killed_by_test) << "did not end within the bound; stderr:\n" << e.err;
    ASSERT_EQ(e.exit_code, 0) << e.err;
    Rows reference;
    const dpadmm::RunSummary s = dpadmm::Party::SerialAsParty(serial, train, test, {p}, &reference);
    const std::vector<std::string> trace =
        Lines(ReadAll(run / ("p" + std::to_string(p) + "-trace.csv")));
    // The header, then one row per round.
    std::size_t header = 0;
    while (header < trace.size() && trace[header].rfind("round,", 0) != 0) ++header;
    ASSERT_LT(header, trace.size());
    ASSERT_EQ(trace[header], dpadmm::MetricsCsvHeader());
    std::size_t seconds = 0;
    {
      std::stringstream h(trace[header]);
      std::string f;
      for (std::size_t k = 0; std::getline(h, f, ','); ++k)
        if (f == "seconds") seconds = k;
    }
    ASSERT_EQ(trace.size() - header - 1, reference.rows.size());
    for (std::size_t r = 0; r < reference.rows.size(); ++r) {
      EXPECT_EQ(WithoutColumn(trace[header + 1 + r], seconds),
                WithoutColumn(dpadmm::MetricsToCsvRow(reference.rows[r]), seconds))
          << "round " << r;
    }
    const nlohmann::json summary =
        nlohmann::json::parse(ReadAll(run / ("p" + std::to_string(p) + "-summary.json")));
    ASSERT_EQ(summary["model"].size(), static_cast<std::size_t>(s.model.size()));
    for (Eigen::Index k = 0; k < s.model.size(); ++k) {
      EXPECT_EQ(summary["model"][k].get<double>(), s.model[k]) << "model[" << k << "]";
    }
    if (!s.node_tight_epsilon.empty()) {
      // This party's own tight figure, from its own releases.
      const auto& tight = summary["tight_privacy"];
      EXPECT_EQ(tight["node_epsilon"][p].get<double>(), s.node_tight_epsilon[p]);
      EXPECT_EQ(tight["epsilon"].get<double>(), s.tight_epsilon);
    }
    // A seeded run that draws noise is labelled a simulation, as by `dpadmm run`.
    EXPECT_EQ(summary["noise_mode"], s.info.noisy ? "simulation" : "none");
    if (s.info.noisy) {
      EXPECT_NE(e.out.find("simulation: noise reproducible from the seed"), std::string::npos)
          << e.out;
    }
  }
}

// One party runs another alpha: every party refuses before round 0, each naming the field, and
// ends (exit 5, its summary written, no partial file left) within the bound (a refusing party
// keeps answering Hello with its reason until its set-up timeout, 15 s here).
TEST_F(PartyAlgorithms, SpecMismatchIsRefusedNamingTheField) {
  const fs::path run = dir_ / "mismatch";
  const std::vector<Ended> ended = RunParties(
      run, "dvp", 3,
      [](int p, nlohmann::json& spec) {
        if (p == 2) spec["algorithm"]["dvp"]["alpha"] = 0.7;
      },
      /*setup_timeout=*/15);
  for (int p = 0; p < 3; ++p) {
    SCOPED_TRACE("party p" + std::to_string(p));
    const Ended& e = ended[p];
    ASSERT_FALSE(e.killed_by_test) << e.err;
    EXPECT_EQ(e.exit_code, 5) << e.out << e.err;
    const std::string id = "p" + std::to_string(p);
    const nlohmann::json summary = nlohmann::json::parse(ReadAll(run / (id + "-summary.json")));
    EXPECT_EQ(summary["outcome"], "failed");
    const std::string message = summary["message"];
    EXPECT_NE(message.find("algorithm.dvp.alpha"), std::string::npos) << message;
    EXPECT_EQ(message.find("iterations"), std::string::npos) << message;
    EXPECT_FALSE(fs::exists(run / (id + "-trace.csv.partial")));
    EXPECT_FALSE(fs::exists(run / (id + "-summary.json.partial")));
  }
}

// Private mode (no noise seed) with a budget: each party's summary holds its own node's figures
// only (its budget spent, its tight epsilon, frozen round), null for the other parties' nodes,
// and no figure evaluated on private data (metrics released-only).
TEST_F(PartyAlgorithms, PrivateModeReportsOnlyTheOwnNodes) {
  const fs::path run = dir_ / "private";
  const std::vector<Ended> ended = RunParties(run, "dvp", 3, [](int, nlohmann::json& spec) {
    spec.erase("noise_seed");
    spec["algorithm"]["privacy_budget"] = 1.6;
  });
  for (int p = 0; p < 3; ++p) {
    SCOPED_TRACE("party p" + std::to_string(p));
    const Ended& e = ended[p];
    ASSERT_FALSE(e.killed_by_test) << e.err;
    ASSERT_EQ(e.exit_code, 0) << e.out << e.err;
    const std::string id = "p" + std::to_string(p);
    const nlohmann::json s = nlohmann::json::parse(ReadAll(run / (id + "-summary.json")));
    EXPECT_EQ(s["noise_mode"], "private");
    EXPECT_TRUE(s["final"]["train_loss"].is_null());
    const auto& tight = s["tight_privacy"];
    for (int q = 0; q < 3; ++q) {
      if (q == p) {
        // alpha 0.5 per round: the budget 1.6 refuses round 4, the node froze then.
        EXPECT_EQ(s["final"]["node_privacy"][q].get<double>(), 1.5);
        EXPECT_EQ(s["node_frozen_round"][q].get<int>(), 4);
        EXPECT_GT(tight["node_epsilon"][q].get<double>(), 0.0);
        EXPECT_LE(tight["node_epsilon"][q].get<double>(), 1.5);
        EXPECT_EQ(tight["epsilon"].get<double>(), tight["node_epsilon"][q].get<double>());
      } else {
        EXPECT_TRUE(s["final"]["node_privacy"][q].is_null());
        EXPECT_TRUE(tight["node_epsilon"][q].is_null());
        EXPECT_EQ(s["node_frozen_round"][q].get<int>(), -2);
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Consensus, PartyAlgorithms,
                         ::testing::Combine(::testing::Values("admm", "dvp", "pvp", "madmm",
                                                              "radmm", "mradmm", "private_mradmm",
                                                              "pdml"),
                                            ::testing::Values(3, 5)),
                         [](const auto& param_info) {
                           return std::get<0>(param_info.param) + "_" +
                                  std::to_string(std::get<1>(param_info.param));
                         });

}  // namespace
