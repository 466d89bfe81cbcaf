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

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "dpadmm/core/error.h"
#include "dpadmm/data/generators.h"
#include "dpadmm/data/loaders.h"
#include "dpadmm/party.h"
#include "dpadmm/run/spec_json.h"
#include "party_cli.h"

namespace fs = std::filesystem;

namespace {

using dpadmm::partytest::FreePorts;
using dpadmm::partytest::Lines;
using dpadmm::partytest::PortTaken;
using dpadmm::partytest::ReadAll;
using dpadmm::partytest::WithoutColumn;
using dpadmm::partytest::WriteLibsvmRows;

constexpr int kRowsPerParty = 24;
constexpr int kDims = 4;
constexpr int kSharingRows = 40;  // samples of a sharing run (every party holds all of them)
constexpr int kBlock = 3;         // columns per feature party

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

  // More flags for party p's command line (e.g. checkpoints); none when empty.
  std::function<std::vector<std::string>(const fs::path& run, int p)> extra_flags_;
  // Changes party p's party file (after the spec's tweak); none when empty.
  std::function<void(int p, nlohmann::json& file)> file_tweak_;
  // The parties' working directory ("": the test's own).
  fs::path cwd_;
  // Column k of the generated rows is multiplied by column_scale_[k] (raw units); none when
  // empty.
  std::vector<double> column_scale_;

  // The public spec of the run (the same object every party file holds).
  static nlohmann::json Spec(const std::string& algorithm, int parties) {
    if (algorithm == "sharing" || algorithm == "dp_sharing") {
      // Node 0 the coordinator, nodes 1..parties-1 one block of kBlock columns each.
      const nlohmann::json sharing = {
          {"parties", parties - 1},
          {"party_features", std::vector<int>(static_cast<std::size_t>(parties - 1), kBlock)},
          {"lambda", 1e-2},
          {"rho", 0.01},
          {"dp", algorithm == "dp_sharing"}};
      return {{"data",
               {{"source", "libsvm"},
                {"num_features", kBlock * (parties - 1)},
                {"scaling", "clip-only"}}},
              {"algorithm", {{"name", "sharing"}, {"sharing", sharing}}},
              {"iterations", 5},
              {"seed", 3},
              {"noise_seed", 11},
              {"engine", "serial"}};
    }
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
      if (extra_flags_) {
        for (std::string& f : extra_flags_(run, p)) args.push_back(std::move(f));
      }
      const std::string out = (run / ("out" + std::to_string(p))).string();
      const std::string err = (run / ("err" + std::to_string(p))).string();
      const pid_t pid = fork();
      if (pid == 0) {
        if (!freopen(out.c_str(), "w", stdout) || !freopen(err.c_str(), "w", stderr)) _exit(126);
        if (!cwd_.empty() && chdir(cwd_.c_str()) != 0) _exit(125);
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

  // Consensus: party p holds rows [p * kRowsPerParty, (p + 1) * kRowsPerParty) of one data
  // set; all.libsvm and partition.txt for the serial run, test.libsvm.
  void WriteRowBlocks(const fs::path& run, int parties) const {
    dpadmm::Dataset all = dpadmm::GenerateTwonorm(kRowsPerParty * parties, 5, kDims);
    dpadmm::Dataset test_rows = dpadmm::GenerateTwonorm(30, 6, kDims);
    for (dpadmm::Dataset* data : {&all, &test_rows}) {
      auto& x = std::get<dpadmm::DenseRows>(data->x);
      for (std::size_t k = 0; k < column_scale_.size(); ++k) x.col(k) *= column_scale_[k];
    }
    std::ofstream whole(run / "all.libsvm"), part(run / "partition.txt"), test(run / "test.libsvm");
    WriteLibsvmRows(whole, all, 0, all.rows());
    WriteLibsvmRows(test, test_rows, 0, test_rows.rows());
    for (int p = 0; p < parties; ++p) {
      std::ofstream mine(run / ("p" + std::to_string(p) + ".libsvm"));
      WriteLibsvmRows(mine, all, p * kRowsPerParty, (p + 1) * kRowsPerParty);
      for (int r = 0; r < kRowsPerParty; ++r) part << p << '\n';
    }
  }

  // Sharing: one data set of kSharingRows rows and kBlock columns per feature party; p0 (the
  // coordinator) holds its labels (one per line), party m its columns [(m - 1) kBlock, m kBlock)
  // of every row (LIBSVM with the label slot 0); all.libsvm for the serial run.
  static void WriteColumnBlocks(const fs::path& run, int parties) {
    const dpadmm::Dataset all =
        dpadmm::GenerateTwonorm(kSharingRows, 7, kBlock * static_cast<std::int64_t>(parties - 1));
    const auto& x = std::get<dpadmm::DenseRows>(all.x);
    std::ofstream whole(run / "all.libsvm"), labels(run / "p0.libsvm");
    WriteLibsvmRows(whole, all, 0, all.rows());
    for (Eigen::Index r = 0; r < all.rows(); ++r) labels << (all.y[r] > 0 ? "1" : "-1") << '\n';
    for (int m = 1; m < parties; ++m) {
      std::ofstream mine(run / ("p" + std::to_string(m) + ".libsvm"));
      for (Eigen::Index r = 0; r < all.rows(); ++r) {
        mine << '0';
        for (int c = 0; c < kBlock; ++c) {
          char buf[64];
          std::snprintf(buf, sizeof buf, " %d:%.17g", c + 1, x(r, (m - 1) * kBlock + c));
          mine << buf;
        }
        mine << '\n';
      }
    }
  }

  // Writes the data (WriteRowBlocks or WriteColumnBlocks) and the party files (tweak(p, spec)
  // may change party p's spec), and runs the parties.
  std::vector<Ended> RunParties(const fs::path& run, const std::string& algorithm, int parties,
                                const std::function<void(int, nlohmann::json&)>& tweak = {},
                                double setup_timeout = 60) {
    fs::create_directories(run);
    const bool sharing = algorithm == "sharing" || algorithm == "dp_sharing";
    if (sharing) {
      WriteColumnBlocks(run, parties);
    } else {
      WriteRowBlocks(run, parties);
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
        nlohmann::json file = {{"spec", spec},
                               {"party", id},
                               {"data", (run / (id + ".libsvm")).string()},
                               {"parties", list},
                               {"tls",
                                {{"ca", (certs / "ca.pem").string()},
                                 {"cert", (certs / (id + ".pem")).string()},
                                 {"key", (certs / (id + ".key")).string()}}},
                               {"setup_timeout_seconds", setup_timeout},
                               {"peer_timeout_seconds", 60},
                               {"trace", (run / (id + "-trace.csv")).string()},
                               {"summary", (run / (id + "-summary.json")).string()}};
        // Sharing: no party holds a whole test row.
        if (!sharing) file["test"] = (run / "test.libsvm").string();
        if (file_tweak_) file_tweak_(p, file);
        std::ofstream(run / ("party" + std::to_string(p) + ".json")) << file.dump(2);
      }
      ended = Launch(run, parties);
      if (!PortTaken(ended)) break;
    }

    return ended;
  }

  // `algorithm` on 3 parties, party p2's spec changed by `change`: every party refuses before
  // round 0 naming `field` (ExpectRefusedNaming; a refusing party keeps answering Hello with its
  // reason until its set-up timeout, 15 s here).
  void ExpectMismatchRefused(const std::string& name, const std::string& algorithm,
                             const std::function<void(nlohmann::json&)>& change,
                             const std::string& field);

  // `algorithm` on 3 parties in private mode (no noise seed; `budget` sets the privacy budget):
  // each party's summary once every party has ended with exit 0 (fewer on a failure, reported).
  std::vector<nlohmann::json> RunPrivate(const std::string& name, const std::string& algorithm,
                                         const std::function<void(nlohmann::json&)>& budget) {
    const fs::path run = dir_ / name;
    const std::vector<Ended> ended = RunParties(run, algorithm, 3, [&](int, nlohmann::json& spec) {
      spec.erase("noise_seed");
      budget(spec);
    });
    std::vector<nlohmann::json> summaries;
    for (std::size_t p = 0; p < ended.size(); ++p) {
      const Ended& e = ended[p];
      if (e.killed_by_test || e.exit_code != 0) {
        ADD_FAILURE() << "party p" << p << " exit " << e.exit_code << "\n" << e.out << e.err;
        return summaries;
      }
      summaries.push_back(
          nlohmann::json::parse(ReadAll(run / ("p" + std::to_string(p) + "-summary.json"))));
    }
    return summaries;
  }

  static fs::path dir_;
};
fs::path PartyAlgorithms::dir_;

// Records every round the serial reference reports.
struct Rows : dpadmm::RunObserver {
  std::vector<dpadmm::RoundMetrics> rows;
  void OnRound(const dpadmm::RoundMetrics& m) override { rows.push_back(m); }
};

// Party p's trace (every column but the wall time) and summary model against the serial
// reference measured as party p (Party::SerialAsParty).
void ExpectSameAsReference(const fs::path& run, int p, const Rows& reference,
                           const dpadmm::RunSummary& s) {
  const std::vector<std::string> trace =
      Lines(ReadAll(run / ("p" + std::to_string(p) + "-trace.csv")));
  // The header, then one row per round.
  std::size_t header = 0;
  while (header < trace.size() && trace[header].rfind("round,", 0) != 0) ++header;
  ASSERT_LT(header, trace.size());
  const dpadmm::Family family = s.info.family;
  ASSERT_EQ(trace[header], dpadmm::MetricsCsvHeader(family));
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
              WithoutColumn(dpadmm::MetricsToCsvRow(reference.rows[r], family), seconds))
        << "round " << r;
  }
  const nlohmann::json summary =
      nlohmann::json::parse(ReadAll(run / ("p" + std::to_string(p) + "-summary.json")));
  ASSERT_EQ(summary["model"].size(), static_cast<std::size_t>(s.model.size()));
  for (Eigen::Index k = 0; k < s.model.size(); ++k) {
    EXPECT_EQ(summary["model"][k].get<double>(), s.model[k]) << "model[" << k << "]";
  }
}

// A seeded run that draws noise is labelled a simulation, as by `dpadmm run`.
void ExpectSimulationLabel(const nlohmann::json& summary, const dpadmm::RunSummary& s,
                           const Ended& e) {
  EXPECT_EQ(summary["noise_mode"], s.info.noisy ? "simulation" : "none");
  if (s.info.noisy) {
    EXPECT_NE(e.out.find("simulation: noise reproducible from the seed"), std::string::npos)
        << e.out;
  }
}

// Party p's stdout summary and its summary's info say what the party can say: the network
// engine and which party it is, its own node's row count (no other party's), no consensus gap
// for its one node, no figure it does not compute (no "nan", no "-1").
void ExpectPartyStdout(const nlohmann::json& summary, const Ended& e, int p, int parties,
                       bool sharing) {
  const std::string id = "p" + std::to_string(p);
  const auto has = [&](const std::string& text) {
    EXPECT_NE(e.out.find(text), std::string::npos) << "missing: " << text << "\n" << e.out;
  };
  has("network engine: party '" + id + "' (" + std::to_string(p + 1) + " of " +
      std::to_string(parties) + "), its node on serial");
  EXPECT_EQ(e.out.find("nan"), std::string::npos) << e.out;
  EXPECT_EQ(e.out.find("rows per node -1"), std::string::npos) << e.out;
  EXPECT_EQ(e.out.find("max over nodes"), std::string::npos) << e.out;
  const nlohmann::json& info = summary["info"];
  EXPECT_EQ(info["engine"], "network");
  EXPECT_EQ(info["party"]["id"], id);
  EXPECT_EQ(info["party"]["index"], p);
  EXPECT_EQ(info["party"]["parties"], parties);
  EXPECT_EQ(info["party"]["nodes"], nlohmann::json::array({p}));
  EXPECT_EQ(info["party"]["engine"], "serial");
  if (!sharing) {
    has("rows per node " + std::to_string(kRowsPerParty) + " (this party's node " +
        std::to_string(p) + "; the others' not known here)");
    has("consensus gap         n/a: one node here");
    // Not known to a one-node party: null, not 0.
    EXPECT_TRUE(summary["final"]["consensus_gap"].is_null()) << summary["final"];
    return;
  }
  has("test accuracy         not known here (no party holds a whole test row)");
  if (p == 0) {
    has("their labels (the coordinator)");
  } else {
    has("its block of " + std::to_string(kBlock) + " of the " +
        std::to_string(kBlock * (parties - 1)) + " features (feature party " + std::to_string(p) +
        ")");
    has("training loss         not known here");
  }
  if (summary["info"]["dp"].get<bool>()) {
    has(p == 0 ? "privacy loss          none here" : "of this party's releases");
  }
}

// Each party of `ended` against the serial reference measured as that party
// (Party::SerialAsParty with `serial` on `train` and `test`): exit 0 within the bound, its trace
// and model (ExpectSameAsReference), its simulation label and its stdout (ExpectPartyStdout);
// `more(p, reference summary, party's summary)` adds the family's own checks.
void ExpectEachPartyAsSerial(
    const fs::path& run, const std::vector<Ended>& ended, const dpadmm::RunSpec& serial,
    const dpadmm::Dataset& train, const dpadmm::Dataset& test,
    const std::function<void(int, const dpadmm::RunSummary&, const nlohmann::json&)>& more) {
  const int parties = static_cast<int>(ended.size());
  for (int p = 0; p < parties; ++p) {
    SCOPED_TRACE("party p" + std::to_string(p));
    const Ended& e = ended[p];
    ASSERT_FALSE(e.killed_by_test) << "did not end within the bound; stderr:\n" << e.err;
    ASSERT_EQ(e.exit_code, 0) << e.err;
    Rows reference;
    const dpadmm::RunSummary s = dpadmm::Party::SerialAsParty(serial, train, test, {p}, &reference);
    ExpectSameAsReference(run, p, reference, s);
    const nlohmann::json summary =
        nlohmann::json::parse(ReadAll(run / ("p" + std::to_string(p) + "-summary.json")));
    more(p, s, summary);
    ExpectSimulationLabel(summary, s, e);
    ExpectPartyStdout(summary, e, p, parties, serial.family() == dpadmm::Family::kSharing);
  }
}

// The parties of a row-partitioned run (`spec`, the parties' run spec JSON) against the serial
// reference: the concatenated rows, the partition file that gives party p's rows to node p, the
// same public test file (ExpectEachPartyAsSerial).
void ExpectRowPartiesAsSerial(
    const fs::path& run, const std::vector<Ended>& ended, const std::string& algorithm,
    const nlohmann::json& spec,
    const std::function<void(int, const dpadmm::RunSummary&, const nlohmann::json&)>& more) {
  dpadmm::RunSpec serial =
      dpadmm::RunSpec::Defaults(dpadmm::ParseChoice<dpadmm::Algorithm>(algorithm, "algorithm"));
  dpadmm::ApplySpecJson(spec.dump(), "spec", serial);
  serial.partition.kind = dpadmm::PartitionKind::kFile;
  serial.partition.file = (run / "partition.txt").string();
  serial.compute_optimum = false;
  const dpadmm::Dataset train = dpadmm::LoadLibsvm((run / "all.libsvm").string(), kDims);
  const dpadmm::Dataset test = dpadmm::LoadLibsvm((run / "test.libsvm").string(), kDims);
  ExpectEachPartyAsSerial(run, ended, serial, train, test, more);
}

// Every party of a spec mismatch refused before round 0 naming `field` (and no other field),
// ended with exit 5 and its summary written, no partial file left.
void ExpectRefusedNaming(const fs::path& run, const std::vector<Ended>& ended,
                         const std::string& field) {
  for (std::size_t p = 0; p < ended.size(); ++p) {
    SCOPED_TRACE("party p" + std::to_string(p));
    const Ended& e = ended[p];
    ASSERT_FALSE(e.killed_by_test) << e.err;
    EXPECT_EQ(e.exit_code, 5) << e.out << e.err;
    const std::string id = "p" + std::to_string(p);
    const nlohmann::json summary = nlohmann::json::parse(ReadAll(run / (id + "-summary.json")));
    EXPECT_EQ(summary["outcome"], "failed");
    const std::string message = summary["message"];
    EXPECT_NE(message.find(field), std::string::npos) << message;
    EXPECT_EQ(message.find("iterations"), std::string::npos) << message;
    EXPECT_FALSE(fs::exists(run / (id + "-trace.csv.partial")));
    EXPECT_FALSE(fs::exists(run / (id + "-summary.json.partial")));
  }
}

TEST_P(PartyAlgorithms, SameBitsAsSerial) {
  const auto& [algorithm, parties] = GetParam();
  const fs::path run = dir_ / (algorithm + "_" + std::to_string(parties));
  const std::vector<Ended> ended = RunParties(run, algorithm, parties);
  ExpectRowPartiesAsSerial(run, ended, algorithm, Spec(algorithm, parties),
                           [](int p, const dpadmm::RunSummary& s, const nlohmann::json& summary) {
                             if (s.node_tight_epsilon.empty()) return;
                             // This party's own tight figure, from its own releases.
                             const auto& tight = summary["tight_privacy"];
                             EXPECT_EQ(tight["node_epsilon"][p].get<double>(),
                                       s.node_tight_epsilon[p]);
                             EXPECT_EQ(tight["epsilon"].get<double>(), s.tight_epsilon);
                           });
}

void PartyAlgorithms::ExpectMismatchRefused(const std::string& name, const std::string& algorithm,
                                            const std::function<void(nlohmann::json&)>& change,
                                            const std::string& field) {
  const fs::path run = dir_ / name;
  const std::vector<Ended> ended = RunParties(
      run, algorithm, 3,
      [&](int p, nlohmann::json& spec) {
        if (p == 2) change(spec);
      },
      /*setup_timeout=*/15);
  ExpectRefusedNaming(run, ended, field);
}

// One party runs another alpha: every party refuses before round 0, each naming the field, and
// ends (exit 5, its summary written, no partial file left) within the bound.
TEST_F(PartyAlgorithms, SpecMismatchIsRefusedNamingTheField) {
  ExpectMismatchRefused(
      "mismatch", "dvp", [](nlohmann::json& spec) { spec["algorithm"]["dvp"]["alpha"] = 0.7; },
      "algorithm.dvp.alpha");
}

// A target epsilon in party mode: with every node's row count declared public
// (partition.public_rows, the same in every party's spec) each party applies the epsilon policy
// (dvp: one private round, then gossip, row weighting) and the calibration to the same public
// quantities, and its trace, model and figure are the serial run's measured as that party.
TEST_F(PartyAlgorithms, TargetEpsilonWithDeclaredRowsGivesTheSerialBits) {
  const fs::path run = dir_ / "target_epsilon";
  const auto target = [](nlohmann::json& spec) {
    spec["target_epsilon"] = 1.0;
    spec["partition"]["public_rows"] = std::vector<int>(3, kRowsPerParty);
    spec["algorithm"].erase("dvp");  // the calibration sets alpha
  };
  const std::vector<Ended> ended =
      RunParties(run, "dvp", 3, [&](int, nlohmann::json& spec) { target(spec); });
  nlohmann::json spec = Spec("dvp", 3);
  target(spec);
  ExpectRowPartiesAsSerial(
      run, ended, "dvp", spec,
      [](int p, const dpadmm::RunSummary& s, const nlohmann::json& summary) {
        EXPECT_NE(summary["info"]["epsilon_policy"].get<std::string>().find("rounds 50"),
                  std::string::npos)
            << summary["info"]["epsilon_policy"];
        ASSERT_EQ(s.node_tight_epsilon.size(), 3u);
        EXPECT_EQ(summary["tight_privacy"]["node_epsilon"][p].get<double>(),
                  s.node_tight_epsilon[p]);
        EXPECT_LE(s.node_tight_epsilon[p], 1.0);
        EXPECT_GT(s.node_tight_epsilon[p], 0.9);
      });
}

// Declared row counts are part of the spec every party compares: a party declaring other
// counts is refused by every party, naming the field.
TEST_F(PartyAlgorithms, DeclaredRowsThatDifferAreRefusedNamingTheField) {
  ExpectMismatchRefused(
      "public_rows_mismatch", "dvp",
      [](nlohmann::json& spec) {
        spec["partition"]["public_rows"] = {kRowsPerParty + 1, kRowsPerParty, kRowsPerParty};
      },
      "partition.public_rows");
}

// Row weighting needs every node's row count, which a party does not know of the other parties'
// nodes: every party refuses it at set-up, naming the field, with the exit code of bad input.
TEST_F(PartyAlgorithms, RowWeightingIsRefusedNamingTheField) {
  const fs::path run = dir_ / "row_weighting";
  const std::vector<Ended> ended = RunParties(
      run, "dvp", 3, [](int, nlohmann::json& spec) { spec["algorithm"]["weighting"] = "row"; },
      /*setup_timeout=*/15);
  ASSERT_EQ(ended.size(), 3u);
  for (std::size_t p = 0; p < ended.size(); ++p) {
    SCOPED_TRACE("party p" + std::to_string(p));
    EXPECT_FALSE(ended[p].killed_by_test) << ended[p].err;
    EXPECT_EQ(ended[p].exit_code, 2) << ended[p].out << ended[p].err;
    EXPECT_NE(ended[p].err.find("algorithm.weighting: 'row' needs every node's row count"),
              std::string::npos)
        << ended[p].err;
  }
}

// Private mode (no noise seed) with a budget: each party's summary holds its own node's figures
// only (its budget spent, its tight epsilon, frozen round), null for the other parties' nodes,
// and no figure evaluated on private data (metrics released-only).
TEST_F(PartyAlgorithms, PrivateModeReportsOnlyTheOwnNodes) {
  const std::vector<nlohmann::json> summaries = RunPrivate(
      "private", "dvp", [](nlohmann::json& spec) { spec["algorithm"]["privacy_budget"] = 1.6; });
  ASSERT_EQ(summaries.size(), 3u);
  for (int p = 0; p < 3; ++p) {
    SCOPED_TRACE("party p" + std::to_string(p));
    const nlohmann::json& s = summaries[p];
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

// dp-bounds across 3 parties holding rows in raw units (columns scaled by 1, 1e2, 1e4, 1e6): the
// parties exchange their nodes' histogram releases before round 0, and every party derives the
// bounds of the serial engine's dp-bounds run with the same noise seed; each party's trace and
// model have that run's bits, and its privacy figures (the paper's and the tight one) include
// the bounds release as in one process.
TEST_F(PartyAlgorithms, DpBoundsAcrossPartiesGiveTheSerialBoundsAndBits) {
  column_scale_ = {1.0, 1e2, 1e4, 1e6};
  const auto dp_bounds = [](int, nlohmann::json& spec) {
    spec["data"]["scaling"] = "dp-bounds";
    // A large epsilon keeps the threshold low enough for 72 rows (a simulation: bits, not
    // privacy, are what this test checks).
    spec["data"]["bounds_epsilon"] = 20.0;
  };
  const fs::path run = dir_ / "dp_bounds";
  const std::vector<Ended> ended = RunParties(run, "dvp", 3, dp_bounds);
  nlohmann::json spec = Spec("dvp", 3);
  dp_bounds(0, spec);
  ExpectRowPartiesAsSerial(
      run, ended, "dvp", spec,
      [](int p, const dpadmm::RunSummary& s, const nlohmann::json& summary) {
        const dpadmm::RunInfo::DpBounds& want = s.info.dp_bounds;
        // The bounds come from the raw rows: the fourth column's reach far beyond 1.
        ASSERT_EQ(want.hi.size(), static_cast<std::size_t>(kDims));
        EXPECT_EQ(want.fallback_features, 0);
        EXPECT_GT(std::max(std::abs(want.lo[3]), std::abs(want.hi[3])), 1e5);
        const nlohmann::json& got = summary["info"]["dp_bounds"];
        EXPECT_EQ(got["epsilon_per_node"].get<double>(), want.epsilon);
        EXPECT_EQ(got["threshold"].get<double>(), want.threshold);
        EXPECT_EQ(got["fallback_features"].get<std::int64_t>(), want.fallback_features);
        EXPECT_EQ(got["lo"].get<std::vector<double>>(), want.lo);
        EXPECT_EQ(got["hi"].get<std::vector<double>>(), want.hi);
        // The bounds release is in the node's figures: the paper's (alpha 0.5 per round over 5
        // rounds, plus 20) and the tight one, both the serial run's.
        EXPECT_EQ(summary["final"]["node_privacy"][p].get<double>(), 20.0 + 5 * 0.5);
        EXPECT_EQ(summary["tight_privacy"]["node_epsilon"][p].get<double>(),
                  s.node_tight_epsilon[p]);
        EXPECT_EQ(summary["tight_privacy"]["epsilon"].get<double>(), s.tight_epsilon);
      });
}

// Three parties sharing one folder, their party files giving no output names and the
// checkpoint settings: each writes its own dpadmm-<id>-trace.csv and dpadmm-<id>-summary.json
// (the defaults carry the party id) and its own checkpoint every 2 iterations (after 2 and 4 of
// 5: the first kept as FILE.prev); all exit 0.
TEST_F(PartyAlgorithms, PartiesSharingAFolderWriteTheirOwnOutputs) {
  const fs::path run = dir_ / "shared_folder";
  cwd_ = run;
  file_tweak_ = [](int p, nlohmann::json& file) {
    file.erase("trace");
    file.erase("summary");
    file["checkpoint"] = "p" + std::to_string(p) + ".ckpt";
    file["checkpoint_every"] = 2;
  };
  const std::vector<Ended> ended = RunParties(run, "admm", 3);
  ASSERT_EQ(ended.size(), 3u);
  for (int p = 0; p < 3; ++p) {
    SCOPED_TRACE("party p" + std::to_string(p));
    const std::string id = "p" + std::to_string(p);
    ASSERT_EQ(ended[p].exit_code, 0) << ended[p].out << ended[p].err;
    const nlohmann::json summary =
        nlohmann::json::parse(ReadAll(run / ("dpadmm-" + id + "-summary.json")));
    EXPECT_EQ(summary["info"]["party"]["id"], id);
    EXPECT_EQ(summary["outcome"], "completed");
    const std::vector<std::string> trace = Lines(ReadAll(run / ("dpadmm-" + id + "-trace.csv")));
    ASSERT_FALSE(trace.empty());
    EXPECT_EQ(trace.back().rfind("5,", 0), 0u) << trace.back();
    EXPECT_TRUE(fs::exists(run / (id + ".ckpt")));
    EXPECT_TRUE(fs::exists(run / (id + ".ckpt.prev")));
  }
  EXPECT_FALSE(fs::exists(run / "dpadmm-trace.csv"));
  EXPECT_FALSE(fs::exists(run / "dpadmm-summary.json"));
}

// The party file's output and checkpoint fields: defaults named after the party, and each
// refusal naming its field.
TEST(PartyFile, OutputAndCheckpointFields) {
  const auto parse = [](const std::string& extra) {
    const std::string text =
        R"({"spec": {"data": {"source": "libsvm", "num_features": 4, "scaling": "clip-only"}},
            "party": "a", "data": "a.libsvm", )" +
        extra +
        R"("parties": [{"id": "a", "address": "127.0.0.1:7001"},
                       {"id": "b", "address": "127.0.0.1:7002"}]})";
    return dpadmm::ParsePartyFile(text, "p.json");
  };
  const auto refusal = [&](const std::string& extra) {
    try {
      (void)parse(extra);
    } catch (const dpadmm::InputError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  const dpadmm::PartyFile defaults = parse("");
  EXPECT_EQ(defaults.trace, "dpadmm-a-trace.csv");
  EXPECT_EQ(defaults.summary, "dpadmm-a-summary.json");
  EXPECT_EQ(defaults.checkpoint, "");
  EXPECT_EQ(defaults.checkpoint_every, 0);
  const dpadmm::PartyFile given = parse(
      R"("trace": "t.jsonl", "trace_format": "jsonl", "summary": "s.json", "checkpoint": "c",
         "checkpoint_every": 3, "resume": "c", )");
  EXPECT_EQ(given.trace, "t.jsonl");
  EXPECT_EQ(given.trace_format, "jsonl");
  EXPECT_EQ(given.summary, "s.json");
  EXPECT_EQ(given.checkpoint, "c");
  EXPECT_EQ(given.checkpoint_every, 3);
  EXPECT_EQ(given.resume, "c");
  EXPECT_NE(refusal(R"("trace_format": "xml", )").find("p.json: trace_format must be one of"),
            std::string::npos)
      << refusal(R"("trace_format": "xml", )");
  for (const char* every : {"0", "2.5", "\"2\""}) {
    EXPECT_NE(refusal(R"("checkpoint": "c", "checkpoint_every": )" + std::string(every) + ", ")
                  .find("p.json: checkpoint_every: must be an integer >= 1"),
              std::string::npos)
        << every;
  }
  EXPECT_NE(refusal(R"("checkpoint_every": 2, )").find("p.json: checkpoint_every: needs"),
            std::string::npos);
  EXPECT_NE(refusal(R"("trace": "", )").find("p.json: trace: must name a file"), std::string::npos);
  EXPECT_NE(refusal(R"("checkpoint": 1, )").find("p.json: checkpoint: must be a string"),
            std::string::npos);
}

// The sharing family: p0 the coordinator (the labels), p1.. the feature parties (a column
// block each); ADMM sharing and its DP version with 3 and 5 processes.
class PartySharing : public PartyAlgorithms {};

TEST_P(PartySharing, SameBitsAsSerial) {
  const auto& [algorithm, parties] = GetParam();
  const fs::path run = dir_ / (algorithm + "_" + std::to_string(parties));
  const std::vector<Ended> ended = RunParties(run, algorithm, parties);
  // The serial reference: every party's columns side by side with the labels, the same spec.
  dpadmm::RunSpec serial = dpadmm::RunSpec::Defaults(dpadmm::Algorithm::kSharing);
  dpadmm::ApplySpecJson(Spec(algorithm, parties).dump(), "spec", serial);
  serial.compute_optimum = false;
  const dpadmm::Dataset train =
      dpadmm::LoadLibsvm((run / "all.libsvm").string(), kBlock * (parties - 1));
  const bool dp = algorithm == "dp_sharing";
  ExpectEachPartyAsSerial(run, ended, serial, train, dpadmm::Dataset{},
                          [dp](int p, const dpadmm::RunSummary& s, const nlohmann::json& summary) {
                            // The coordinator has no model of its own; party m its block.
                            EXPECT_EQ(s.model.size(), p == 0 ? 0 : kBlock);
                            // What the party sees: the coordinator the loss on its labels, a
                            // feature party its x_m; with dp a feature party's privacy columns are
                            // its own releases' (the coordinator: none).
                            EXPECT_EQ(summary["final"]["train_loss"].is_null(), p != 0);
                            EXPECT_EQ(summary["final"]["max_x_norm"].is_null(), p == 0);
                            if (dp) {
                              EXPECT_EQ(summary["final"]["epsilon_total"].is_null(), p == 0);
                            }
                          });
}

// Checkpoints per party in the sharing family: every party saves its own state every 2
// iterations (after iterations 2 and 4 of 5); each then resumes from its FILE.prev (iteration
// 2, as after a failure before iteration 4 was checkpointed everywhere) and every party's trace
// and model are the uninterrupted serial run's bits.
TEST_F(PartySharing, ResumedFromAnEarlierCheckpointGivesTheUninterruptedBits) {
  const int parties = 3;
  const fs::path run = dir_ / "dp_sharing_resumed";
  bool resume = false;
  extra_flags_ = [&resume](const fs::path& dir, int p) {
    const std::string file = (dir / ("p" + std::to_string(p) + ".ckpt")).string();
    std::vector<std::string> f = {"--checkpoint", file, "--checkpoint-every", "2"};
    if (resume) f.insert(f.end(), {"--resume", file});
    return f;
  };
  for (const Ended& e : RunParties(run, "dp_sharing", parties)) {
    ASSERT_EQ(e.exit_code, 0) << e.err;
  }
  std::vector<std::vector<std::string>> first;
  for (int p = 0; p < parties; ++p) {
    const fs::path file = run / ("p" + std::to_string(p) + ".ckpt");
    ASSERT_TRUE(fs::exists(file.string() + ".prev"));
    fs::rename(file.string() + ".prev", file);
    first.push_back(Lines(ReadAll(run / ("p" + std::to_string(p) + "-trace.csv"))));
  }
  resume = true;
  const std::vector<Ended> ended = RunParties(run, "dp_sharing", parties);
  // Resumed, not run again: the rows up to iteration 2 are the first run's, wall times included
  // (a run from round 0 would have written new ones).
  for (int p = 0; p < parties; ++p) {
    const std::vector<std::string> now =
        Lines(ReadAll(run / ("p" + std::to_string(p) + "-trace.csv")));
    std::size_t header = 0;
    while (header < first[p].size() && first[p][header].rfind("round,", 0) != 0) ++header;
    ASSERT_GT(now.size(), header + 3);
    ASSERT_GT(first[p].size(), header + 3);
    for (std::size_t k = 0; k <= header + 3; ++k) EXPECT_EQ(now[k], first[p][k]) << "p" << p;
  }
  dpadmm::RunSpec serial = dpadmm::RunSpec::Defaults(dpadmm::Algorithm::kSharing);
  dpadmm::ApplySpecJson(Spec("dp_sharing", parties).dump(), "spec", serial);
  serial.compute_optimum = false;
  const dpadmm::Dataset train =
      dpadmm::LoadLibsvm((run / "all.libsvm").string(), kBlock * (parties - 1));
  ExpectEachPartyAsSerial(run, ended, serial, train, dpadmm::Dataset{},
                          [](int, const dpadmm::RunSummary&, const nlohmann::json&) {});
}

// One feature party runs another rho: every party refuses before round 0 naming the field.
TEST_F(PartySharing, SpecMismatchIsRefusedNamingTheField) {
  ExpectMismatchRefused(
      "sharing_mismatch", "sharing",
      [](nlohmann::json& spec) { spec["algorithm"]["sharing"]["rho"] = 0.02; },
      "algorithm.sharing.rho");
}

// Private mode (no noise seed): no figure evaluated on private data; each feature party's
// privacy figure is the tight total of its own releases, the coordinator's none.
TEST_F(PartySharing, PrivateModeReportsOnlyTheOwnReleases) {
  const std::vector<nlohmann::json> summaries =
      RunPrivate("sharing_private", "dp_sharing",
                 [](nlohmann::json& spec) { spec["algorithm"]["sharing"]["total_epsilon"] = 1.0; });
  ASSERT_EQ(summaries.size(), 3u);
  for (int p = 0; p < 3; ++p) {
    SCOPED_TRACE("party p" + std::to_string(p));
    const nlohmann::json& s = summaries[p];
    EXPECT_EQ(s["noise_mode"], "private");
    for (const char* hidden : {"train_loss", "objective", "primal_residual", "max_x_norm"}) {
      EXPECT_TRUE(s["final"][hidden].is_null()) << hidden;
    }
    if (p == 0) {
      EXPECT_TRUE(s["final"]["epsilon_total"].is_null());
      EXPECT_EQ(s["model"].size(), 0u);
    } else {
      // The calibrated sigma spends total_epsilon over the run: its own tight total.
      const double own = s["info"]["privacy"]["party_epsilon_total"][p - 1].get<double>();
      EXPECT_EQ(s["final"]["epsilon_total"].get<double>(), own);
      EXPECT_LE(own, 1.0 + 1e-9);
      EXPECT_GT(own, 0.9);
      EXPECT_EQ(s["model"].size(), static_cast<std::size_t>(kBlock));
    }
  }
}

// A sharing party file's refusals, before any file or network is touched: each names the field.
TEST(PartySharingFile, RefusalsNameTheField) {
  const auto refusal = [](const std::string& algorithm, const std::string& extra) {
    const std::string text =
        R"({"spec": {"data": {"source": "libsvm", "num_features": 4, "scaling": "clip-only"},
                     "algorithm": )" +
        algorithm + R"(}, "party": "a", "data": "a.libsvm", )" + extra +
        R"("parties": [{"id": "a", "address": "127.0.0.1:7001"},
                       {"id": "b", "address": "127.0.0.1:7002"},
                       {"id": "c", "address": "127.0.0.1:7003"}]})";
    try {
      (void)dpadmm::ParsePartyFile(text, "p.json");
    } catch (const dpadmm::InputError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  const std::string ok =
      R"({"name": "sharing", "sharing": {"parties": 2, "party_features": [2, 2]}})";
  EXPECT_EQ(refusal(ok, ""), "accepted");
  EXPECT_NE(refusal(R"({"name": "sgd"})", "").find("p.json: spec: algorithm.name: 'sgd'"),
            std::string::npos);
  EXPECT_NE(refusal(R"({"name": "sharing", "sharing": {"parties": 2}})", "")
                .find("algorithm.sharing.party_features: required in party mode"),
            std::string::npos);
  EXPECT_NE(refusal(ok, R"("test": "t.libsvm", )").find("p.json: test: not used"),
            std::string::npos);
  EXPECT_NE(refusal(ok, R"("model_out": "m.json", )").find("p.json: model_out:"),
            std::string::npos);
}

// A feature party's block must have its party_features width; the coordinator's file holds
// labels only.
TEST(PartySharingFile, DataOfTheWrongShapeIsRefused) {
  const char* tmp = std::getenv("TMPDIR");
  std::string templ = std::string(tmp != nullptr ? tmp : "/tmp") + "/partyshape_XXXXXX";
  ASSERT_NE(mkdtemp(templ.data()), nullptr);
  const fs::path dir = templ;
  std::ofstream(dir / "labels") << "1\n-1\n";
  std::ofstream(dir / "wide.libsvm") << "1 1:0.5 3:0.25\n-1 2:0.5\n";
  dpadmm::RunSpec spec = dpadmm::RunSpec::Defaults(dpadmm::Algorithm::kSharing);
  spec.data.source = dpadmm::DataSource::kLibsvm;
  spec.data.scaling = dpadmm::Scaling::kClipOnly;
  dpadmm::SharingParams& sp = spec.algorithm.As<dpadmm::SharingParams>();
  sp.party_features = {2, 1};
  dpadmm::runtime::NetworkOptions net;
  net.self = "b";
  net.insecure = true;
  net.parties = {{"a", "127.0.0.1:7001"}, {"b", "127.0.0.1:7002"}, {"c", "127.0.0.1:7003"}};
  EXPECT_EQ(dpadmm::SharingPartyNode(spec, net), 1);
  // Party 2's block is 1 column wide: an index beyond it is refused naming the file.
  try {
    (void)dpadmm::LoadSharingPartyRows(spec, 2, (dir / "wide.libsvm").string());
    ADD_FAILURE() << "a column beyond the block was accepted";
  } catch (const dpadmm::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("wide.libsvm"), std::string::npos) << e.what();
  }
  // In memory: party b (feature party 1, 2 columns) given 3 columns is refused naming data.
  const dpadmm::Dataset three = dpadmm::GenerateTwonorm(2, 1, 3);
  try {
    const dpadmm::Party party(spec, three, dpadmm::Dataset{}, net);
    ADD_FAILURE() << "a block of the wrong width was accepted";
  } catch (const dpadmm::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("data: party 'b' (feature party 1) has 3 columns"),
              std::string::npos)
        << e.what();
  }
  // The coordinator: labels only.
  EXPECT_EQ(dpadmm::LoadSharingPartyRows(spec, 0, (dir / "labels").string()).rows(), 2);
  EXPECT_THROW(dpadmm::LoadSharingPartyRows(spec, 0, (dir / "wide.libsvm").string()),
               dpadmm::InputError);
  fs::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(Sharing, PartySharing,
                         ::testing::Combine(::testing::Values("sharing", "dp_sharing"),
                                            ::testing::Values(3, 5)),
                         [](const auto& param_info) {
                           return std::get<0>(param_info.param) + "_" +
                                  std::to_string(std::get<1>(param_info.param));
                         });

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
