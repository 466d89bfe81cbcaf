// SPDX-License-Identifier: Apache-2.0
// Per-party checkpoints and resume of `dpadmm party` (3 processes on 127.0.0.1, mutual TLS):
// a run killed mid-way and resumed by every party gives, per party, the bits of the
// uninterrupted run (trace but the wall time, summary figures, model); a party one checkpoint
// ahead of the others resumes with them from the round all hold; no round in common, or one
// party starting afresh while the others resume, is refused on every party naming the parties.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include "dpadmm/persistence/checkpoint.h"
#include "party_cli.h"

namespace fs = std::filesystem;

namespace {

using dpadmm::partytest::PartyEnd;
using dpadmm::partytest::PartyGroup;
using dpadmm::partytest::PartyRun;
using dpadmm::partytest::ReadAll;
using dpadmm::partytest::TraceWithoutSeconds;

constexpr int kParties = 3;
constexpr int kRows = 24;
constexpr int kDims = 4;
constexpr double kBound = 240;  // seconds for every party of one launch to end (busy machine)

nlohmann::json Spec(const std::string& algorithm, int iterations) {
  nlohmann::json spec = {
      {"data", {{"source", "libsvm"}, {"num_features", kDims}, {"scaling", "clip-only"}}},
      {"graph", {{"topology", "ring"}, {"nodes", kParties}}},
      {"algorithm", {{"name", algorithm}}},
      {"iterations", iterations},
      {"seed", 3},
      {"noise_seed", 11},
      {"engine", "serial"}};
  if (algorithm == "dvp") spec["algorithm"]["dvp"]["alpha"] = 0.5;
  return spec;
}

// A summary without its wall times (the only fields a resumed run may change).
nlohmann::json WithoutTimes(nlohmann::json j) {
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end();) {
      if (it.key().find("seconds") != std::string::npos) {
        it = j.erase(it);
      } else {
        *it = WithoutTimes(*it);
        ++it;
      }
    }
  } else if (j.is_array()) {
    for (auto& e : j) e = WithoutTimes(e);
  }
  return j;
}

std::int64_t RoundOf(const fs::path& checkpoint) {
  return dpadmm::ReadCheckpoint(checkpoint.string()).round;
}

// What one party wrote: its trace (no wall time), summary (no wall times) and model.
struct Outputs {
  std::vector<std::string> trace;
  nlohmann::json summary, model;
};
Outputs Read(const PartyRun& run, int p) {
  Outputs o;
  o.trace = TraceWithoutSeconds(run.Out(p, "trace.csv"));
  o.summary = WithoutTimes(nlohmann::json::parse(ReadAll(run.Out(p, "summary.json"))));
  o.model = nlohmann::json::parse(ReadAll(run.Out(p, "model.json")));
  o.model.erase("spec");  // names the run's own files
  return o;
}

void ExpectSame(const Outputs& got, const Outputs& want) {
  ASSERT_EQ(got.trace.size(), want.trace.size());
  for (std::size_t k = 0; k < got.trace.size(); ++k) {
    EXPECT_EQ(got.trace[k], want.trace[k]) << "trace line " << k;
  }
  EXPECT_EQ(got.summary, want.summary);
  EXPECT_EQ(got.model, want.model);
}

class PartyCheckpoint : public ::testing::TestWithParam<std::string> {
 protected:
  static void SetUpTestSuite() {
    const char* tmp = std::getenv("TMPDIR");
    std::string templ = std::string(tmp != nullptr ? tmp : "/tmp") + "/partyck_XXXXXX";
    ASSERT_NE(mkdtemp(templ.data()), nullptr);
    dir_ = templ;
    const std::string cmd = std::string(DPADMM_MAKE_CERTS) + " " + (dir_ / "certs").string() +
                            " p0 p1 p2 2>/dev/null >/dev/null";
    ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  }
  static void TearDownTestSuite() { fs::remove_all(dir_); }

  PartyRun NewRun(const std::string& name) {
    return PartyRun(dir_ / name, dir_ / "certs", kParties, kRows, kDims);
  }
  static fs::path Checkpoint(const PartyRun& run, int p) { return run.Out(p, "state.ckpt"); }
  static std::vector<std::string> Flags(const PartyRun& run, int p, int every, bool resume) {
    std::vector<std::string> f = {"--checkpoint", Checkpoint(run, p).string(), "--checkpoint-every",
                                  std::to_string(every)};
    if (resume) f.insert(f.end(), {"--resume", Checkpoint(run, p).string()});
    return f;
  }
  // Every party with the checkpoint flags (resume: those of `resuming`); their ends.
  static std::vector<PartyEnd> RunAll(const PartyRun& run, int every,
                                      const std::vector<bool>& resuming) {
    PartyGroup group;
    for (int p = 0; p < kParties; ++p) run.Start(group, p, Flags(run, p, every, resuming[p]));
    return run.WaitAll(group, kBound);
  }
  static void ExpectAllOk(const std::vector<PartyEnd>& ends) {
    for (int p = 0; p < kParties; ++p) {
      ASSERT_FALSE(ends[p].killed_by_test) << "p" << p << ": " << ends[p].err;
      ASSERT_EQ(ends[p].exit_code, 0) << "p" << p << ": " << ends[p].out << ends[p].err;
    }
  }
  // Every party ended failed (exit 5) within the bound; their summaries' messages.
  static std::vector<std::string> ExpectAllFailed(const PartyRun& run,
                                                  const std::vector<PartyEnd>& ends) {
    std::vector<std::string> messages;
    for (int p = 0; p < kParties; ++p) {
      EXPECT_FALSE(ends[p].killed_by_test) << "p" << p << ": " << ends[p].err;
      EXPECT_EQ(ends[p].exit_code, 5) << "p" << p << ": " << ends[p].out << ends[p].err;
      const nlohmann::json s = nlohmann::json::parse(ReadAll(run.Out(p, "summary.json")));
      EXPECT_EQ(s["outcome"], "failed");
      messages.push_back(s["message"].get<std::string>());
    }
    return messages;
  }

  static fs::path dir_;
};
fs::path PartyCheckpoint::dir_;

// Every party killed mid-run (one stopped first, so that the others halt wherever the
// synchronous rounds leave them, up to a checkpoint apart), then every party resumed: each
// party's outputs have the uninterrupted run's bits.
TEST_P(PartyCheckpoint, KilledRunResumedGivesTheUninterruptedBits) {
  const std::string algorithm = GetParam();
  const nlohmann::json spec = Spec(algorithm, 300);
  PartyRun whole = NewRun(algorithm + "_whole");
  whole.WriteFiles(spec, 60, 60);
  ExpectAllOk(RunAll(whole, 3, {false, false, false}));
  std::vector<Outputs> want;
  for (int p = 0; p < kParties; ++p) want.push_back(Read(whole, p));

  PartyRun cut = NewRun(algorithm + "_cut");
  bool interrupted = false;
  for (int attempt = 0; attempt < 3 && !interrupted; ++attempt) {
    for (int p = 0; p < kParties; ++p) {
      fs::remove(Checkpoint(cut, p));
      fs::remove(Checkpoint(cut, p).string() + ".prev");
    }
    cut.WriteFiles(spec, 60, 60);
    PartyGroup group;
    for (int p = 0; p < kParties; ++p) cut.Start(group, p, Flags(cut, p, 3, false));
    // Until p0 has checkpointed round 6 (bounded), then p1 stopped, and all killed.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
    bool ended = false;
    while (std::chrono::steady_clock::now() < deadline && !ended) {
      try {
        if (fs::exists(Checkpoint(cut, 0)) && RoundOf(Checkpoint(cut, 0)) >= 6) break;
      } catch (const std::exception&) {
      }
      PartyEnd e;
      for (int p = 0; p < kParties; ++p) ended = ended || group.Ended(p, &e);
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    group.Signal(1, SIGSTOP);
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    for (int p = 0; p < kParties; ++p) group.Signal(p, SIGKILL);
    const std::vector<PartyEnd> ends = cut.WaitAll(group, 30);
    interrupted = true;
    for (const PartyEnd& e : ends) interrupted = interrupted && e.signal == SIGKILL;
  }
  ASSERT_TRUE(interrupted) << "the run ended before it could be killed, 3 times";
  std::vector<std::int64_t> latest;
  for (int p = 0; p < kParties; ++p) {
    ASSERT_TRUE(fs::exists(Checkpoint(cut, p))) << "p" << p;
    latest.push_back(RoundOf(Checkpoint(cut, p)));
    // Private intermediate state: the owner's only.
    struct stat st {};
    ASSERT_EQ(stat(Checkpoint(cut, p).c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0600u);
  }
  std::cout << "[ checkpoints ] " << algorithm << ": killed with the parties' latest at rounds "
            << latest[0] << ", " << latest[1] << ", " << latest[2] << std::endl;

  cut.WriteFiles(spec, 60, 60);  // fresh ports
  ExpectAllOk(RunAll(cut, 3, {true, true, true}));
  for (int p = 0; p < kParties; ++p) {
    SCOPED_TRACE("party p" + std::to_string(p));
    ExpectSame(Read(cut, p), want[p]);
    for (const auto& f : fs::directory_iterator(cut.dir())) {
      EXPECT_NE(f.path().extension(), ".partial") << f.path();
    }
  }
}

// p0 holds checkpoints of rounds 6 and 8, p1 and p2 of round 6 only (p2 at FILE.prev): all
// resume from 6 and give the uninterrupted run's bits; afterwards every party holds rounds 6
// (FILE.prev) and 8 (FILE) again.
TEST_P(PartyCheckpoint, OnePartyACheckpointAheadResumesWithTheOthers) {
  const std::string algorithm = GetParam();
  PartyRun run = NewRun(algorithm + "_ahead");
  run.WriteFiles(Spec(algorithm, 9), 60, 60);
  ExpectAllOk(RunAll(run, 2, {false, false, false}));
  std::vector<Outputs> want;
  for (int p = 0; p < kParties; ++p) {
    want.push_back(Read(run, p));
    ASSERT_EQ(RoundOf(Checkpoint(run, p)), 8);
    ASSERT_EQ(RoundOf(Checkpoint(run, p).string() + ".prev"), 6);
  }
  // p1 holds round 6 at FILE, p2 at FILE.prev only (killed between its checkpoints' writes).
  fs::rename(Checkpoint(run, 1).string() + ".prev", Checkpoint(run, 1));
  fs::remove(Checkpoint(run, 2));
  run.WriteFiles(Spec(algorithm, 9), 60, 60);
  ExpectAllOk(RunAll(run, 2, {true, true, true}));
  for (int p = 0; p < kParties; ++p) {
    SCOPED_TRACE("party p" + std::to_string(p));
    ExpectSame(Read(run, p), want[p]);
    EXPECT_EQ(RoundOf(Checkpoint(run, p)), 8);
    EXPECT_EQ(RoundOf(Checkpoint(run, p).string() + ".prev"), 6);
  }
}

INSTANTIATE_TEST_SUITE_P(Algorithms, PartyCheckpoint, ::testing::Values("dvp", "madmm"));

// Private mode (no noise seed): a resume is refused on every party before anything is read or
// written (exit 2, naming why): the rounds released after the checkpoint reached the others
// under keys never written, and a resumed run could not charge them. The checkpoints, trace and
// summary of the first run stay as they were.
TEST_F(PartyCheckpoint, PrivateModeResumeIsRefused) {
  PartyRun run = NewRun("private");
  nlohmann::json spec = Spec("dvp", 9);
  spec.erase("noise_seed");
  run.WriteFiles(spec, 60, 60);
  ExpectAllOk(RunAll(run, 3, {false, false, false}));
  std::vector<std::string> before;
  for (int p = 0; p < kParties; ++p) {
    for (const char* f : {"summary.json", "trace.csv", "state.ckpt", "state.ckpt.prev"}) {
      before.push_back(ReadAll(run.Out(p, f)));
    }
  }
  const std::vector<PartyEnd> ends = RunAll(run, 3, {true, true, true});
  std::vector<std::string> after;
  for (int p = 0; p < kParties; ++p) {
    SCOPED_TRACE("party p" + std::to_string(p));
    EXPECT_FALSE(ends[p].killed_by_test) << ends[p].err;
    EXPECT_EQ(ends[p].exit_code, 2) << ends[p].out << ends[p].err;
    EXPECT_NE(ends[p].err.find("a private run across parties cannot resume"), std::string::npos)
        << ends[p].err;
    for (const char* f : {"summary.json", "trace.csv", "state.ckpt", "state.ckpt.prev"}) {
      after.push_back(ReadAll(run.Out(p, f)));
    }
  }
  EXPECT_EQ(before, after);
}

// p0 holds round 8 only, p1 and p2 round 6 only: every party refuses, naming each one's rounds.
TEST_F(PartyCheckpoint, NoRoundInCommonIsRefusedOnEveryParty) {
  PartyRun run = NewRun("no_common");
  run.WriteFiles(Spec("admm", 9), 60, 60);
  ExpectAllOk(RunAll(run, 2, {false, false, false}));
  fs::remove(Checkpoint(run, 0).string() + ".prev");
  for (int p = 1; p < kParties; ++p) {
    fs::rename(Checkpoint(run, p).string() + ".prev", Checkpoint(run, p));
  }
  run.WriteFiles(Spec("admm", 9), 60, 60);
  const std::vector<std::string> messages =
      ExpectAllFailed(run, RunAll(run, 2, {true, true, true}));
  for (int p = 0; p < kParties; ++p) {
    SCOPED_TRACE("party p" + std::to_string(p));
    EXPECT_NE(messages[p].find("no checkpoint round is held by every party"), std::string::npos)
        << messages[p];
    EXPECT_NE(messages[p].find("party 'p0' holds round 8"), std::string::npos) << messages[p];
    EXPECT_NE(messages[p].find("party 'p1' holds round 6"), std::string::npos) << messages[p];
  }
}

// p2 starts afresh while p0 and p1 resume: refused on every party, naming the other side.
TEST_F(PartyCheckpoint, ResumingAndFreshPartiesAreRefused) {
  PartyRun run = NewRun("fresh");
  run.WriteFiles(Spec("admm", 9), 60, 60);
  ExpectAllOk(RunAll(run, 2, {false, false, false}));
  run.WriteFiles(Spec("admm", 9), 10, 60);  // a refusing party answers until set-up ends
  const std::vector<std::string> messages =
      ExpectAllFailed(run, RunAll(run, 2, {true, true, false}));
  // Each side refuses the other (or learns the other's refusal first): either way the
  // message says which party starts afresh and which resumes.
  for (int p = 0; p < kParties; ++p) {
    SCOPED_TRACE("party p" + std::to_string(p));
    EXPECT_NE(messages[p].find("afresh"), std::string::npos) << messages[p];
    const bool names_other = p == 2 ? (messages[p].find("'p0'") != std::string::npos ||
                                       messages[p].find("'p1'") != std::string::npos)
                                    : messages[p].find("'p2'") != std::string::npos;
    EXPECT_TRUE(names_other) << messages[p];
  }
}

}  // namespace

// ---- Faults: a killed, hung or restarted party ------------------------------------------------

namespace {

constexpr double kPeerTimeout = 10;   // the parties' stated peer timeout (s)
constexpr double kSetupTimeout = 15;  // and set-up timeout (s)
constexpr double kSlack = 60;         // for a busy machine

class PartyFaults : public PartyCheckpoint {
 protected:
  // Starts a long run (checkpoints every 5 rounds) and waits until every party has written a
  // checkpoint (so that the run is under way); false if one ended before (bounded).
  static bool StartUnderWay(PartyRun& run, PartyGroup& group) {
    run.WriteFiles(Spec("admm", 1000000), kSetupTimeout, kPeerTimeout);
    for (int p = 0; p < kParties; ++p) run.Start(group, p, Flags(run, p, 5, false));
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
    while (std::chrono::steady_clock::now() < deadline) {
      bool all = true;
      for (int p = 0; p < kParties; ++p) all = all && fs::exists(Checkpoint(run, p));
      if (all) return true;
      PartyEnd e;
      for (int p = 0; p < kParties; ++p) {
        if (group.Ended(p, &e)) return false;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return false;
  }

  // A surviving party: exit 5 within its stated timeout (the bound of the wait), its outcome
  // naming `culprit`; its trace, summary and model complete; no partial file of its own.
  static void ExpectEndedNaming(const PartyRun& run, int p, const PartyEnd& e,
                                const std::string& culprit) {
    SCOPED_TRACE("party p" + std::to_string(p));
    ASSERT_FALSE(e.killed_by_test) << e.err;
    EXPECT_EQ(e.exit_code, 5) << e.out << e.err;
    std::cout << "[ fault ] p" << p << " ended in " << e.seconds << " s" << std::endl;
    const nlohmann::json s = nlohmann::json::parse(ReadAll(run.Out(p, "summary.json")));
    EXPECT_EQ(s["outcome"], "failed");
    EXPECT_NE(s["message"].get<std::string>().find("'" + culprit + "'"), std::string::npos)
        << s["message"];
    const std::string trace = ReadAll(run.Out(p, "trace.csv"));
    ASSERT_FALSE(trace.empty());
    EXPECT_EQ(trace.back(), '\n');
    EXPECT_TRUE(nlohmann::json::accept(ReadAll(run.Out(p, "model.json"))));
    for (const char* what : {"trace.csv", "summary.json", "model.json", "state.ckpt"}) {
      EXPECT_FALSE(fs::exists(run.Out(p, what).string() + ".partial")) << what;
    }
  }

  // Every checkpoint at its path is whole (written atomically, whoever was killed).
  static void ExpectCheckpointsWhole(const PartyRun& run) {
    for (int p = 0; p < kParties; ++p) {
      for (const std::string& path :
           {Checkpoint(run, p).string(), Checkpoint(run, p).string() + ".prev"}) {
        if (fs::exists(path)) {
          EXPECT_NO_THROW((void)dpadmm::ReadCheckpoint(path)) << path;
        }
      }
    }
  }
};

TEST_F(PartyFaults, KilledPartyEndsTheOthersNamingIt) {
  PartyRun run = NewRun("killed");
  PartyGroup group;
  ASSERT_TRUE(StartUnderWay(run, group));
  group.Signal(1, SIGKILL);
  const std::vector<PartyEnd> ends = run.WaitAll(group, kPeerTimeout + kSlack);
  EXPECT_EQ(ends[1].signal, SIGKILL);
  ExpectEndedNaming(run, 0, ends[0], "p1");
  ExpectEndedNaming(run, 2, ends[2], "p1");
  ExpectCheckpointsWhole(run);
}

TEST_F(PartyFaults, HungPartyEndsTheOthersWithinThePeerTimeout) {
  PartyRun run = NewRun("hung");
  PartyGroup group;
  ASSERT_TRUE(StartUnderWay(run, group));
  group.Signal(1, SIGSTOP);
  std::vector<PartyEnd> ends(kParties);
  for (int p : {0, 2}) {
    ends[p] = group.Wait(p, kPeerTimeout + kSlack);
    ends[p].err = ReadAll(run.Out(p, "err.txt"));
  }
  group.KillAll();  // the stopped party
  ExpectEndedNaming(run, 0, ends[0], "p1");
  ExpectEndedNaming(run, 2, ends[2], "p1");
  ExpectCheckpointsWhole(run);
}

// p1 killed and started again (same party file, no --resume) while the others run: the others
// end naming p1, and the new p1 ends failed within its set-up timeout.
TEST_F(PartyFaults, RestartedPartyEndsEveryParty) {
  PartyRun run = NewRun("restarted");
  PartyGroup group;
  ASSERT_TRUE(StartUnderWay(run, group));
  group.Signal(1, SIGKILL);
  const PartyEnd killed = group.Wait(1, 30);
  EXPECT_EQ(killed.signal, SIGKILL);
  run.Start(group, 1, Flags(run, 1, 5, false));
  const std::vector<PartyEnd> ends = run.WaitAll(group, kSetupTimeout + kPeerTimeout + kSlack);
  ExpectEndedNaming(run, 0, ends[0], "p1");
  ExpectEndedNaming(run, 2, ends[2], "p1");
  SCOPED_TRACE("the restarted p1");
  ASSERT_FALSE(ends[1].killed_by_test) << ends[1].err;
  EXPECT_EQ(ends[1].exit_code, 5) << ends[1].out << ends[1].err;
  const nlohmann::json s = nlohmann::json::parse(ReadAll(run.Out(1, "summary.json")));
  EXPECT_EQ(s["outcome"], "failed");
  ExpectCheckpointsWhole(run);
}

}  // namespace
