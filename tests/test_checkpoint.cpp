// SPDX-License-Identifier: Apache-2.0
// Checkpoint and resume (dpadmm/persistence/checkpoint.h): the same bits as an uninterrupted run
// in simulation mode, refusal of a different spec naming the fields, clear errors for corrupt,
// truncated and foreign files, and the file's 0600 permission.
#include "dpadmm/persistence/checkpoint.h"

#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "consensus/consensus_admm.h"
#include "dpadmm/core/error.h"
#include "dpadmm/data/generators.h"
#include "dpadmm/data/preprocessing.h"
#include "dpadmm/graph/graph.h"
#include "dpadmm/run/run.h"
#include "dpadmm/run/spec_json.h"
#include "persistence/checkpoint.h"
#include "run_recorder.h"
#include "test_helpers.h"

namespace dpadmm {
namespace {

using test::ExpectSameBits;
using test::RunRecorder;
using test::SameBits;
using test::TempPath;
using test::ThrowsInputError;

RunSpec Spec(Algorithm algorithm) {
  RunSpec s = RunSpec::Defaults(algorithm);
  s.graph.nodes = 4;
  s.graph.edges = 5;
  s.data.rows = 400;
  s.iterations = 12;
  s.seed = 3;
  s.noise_seed = 11;
  s.engine = runtime::EngineKind::kSerial;
  return s;
}

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void WriteAll(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
}

void ExpectSameSummary(const RunSummary& a, const RunSummary& b) {
  EXPECT_EQ(a.outcome, b.outcome);
  EXPECT_EQ(a.rounds, b.rounds);
  ASSERT_EQ(a.model.size(), b.model.size());
  for (Eigen::Index k = 0; k < a.model.size(); ++k) EXPECT_TRUE(SameBits(a.model[k], b.model[k]));
  ExpectSameBits({a.final}, {b.final});
  EXPECT_EQ(a.node_frozen_round, b.node_frozen_round);
  EXPECT_TRUE(SameBits(a.tight_epsilon, b.tight_epsilon) ||
              (std::isnan(a.tight_epsilon) && std::isnan(b.tight_epsilon)));
}

// Saves every `every` rounds up to round `stop_after` (the run is cut there by its spec), then
// resumes the full spec from that file: the interrupted run's state as SIGKILL would leave it.
// `rounds` is the whole run's trace as an application keeps it: the interrupted run's rows up
// to the checkpoint's round, then the resumed run's (which hands on only the rows after it).
struct Resumed {
  RunSummary summary;
  std::vector<RoundMetrics> rounds;
};
Resumed CheckpointAndResume(RunSpec spec, const std::string& path, int every, int cut,
                            runtime::EngineKind resume_engine = runtime::EngineKind::kSerial) {
  // A run saves at multiples of `every` strictly before its last round: a longer run with the
  // same spec but its observer stopping it right after round `cut`.
  struct StopAfter : RunObserver {
    runtime::StopToken* token;
    std::int64_t cut;
    std::vector<RoundMetrics> rows;
    void OnRound(const RoundMetrics& m) override {
      rows.push_back(m);
      if (m.round >= cut) token->RequestStop();
    }
  };
  runtime::StopToken token;
  StopAfter stopper;
  stopper.token = &token;
  stopper.cut = cut;
  CheckpointOptions save;
  save.save_path = path;
  save.every = every;
  const RunSummary partial = Experiment(spec).RunCheckpointed(save, &stopper, &token);
  EXPECT_NE(partial.outcome, RunOutcome::kCompleted) << "the run was not cut";
  spec.engine = resume_engine;
  CheckpointOptions resume;
  resume.resume_path = path;
  RunRecorder recorder;
  Resumed out;
  out.summary = Experiment(spec).RunCheckpointed(resume, &recorder);
  // The interrupted run's rows up to its checkpoint (the sharing family's checkpoint rounds are
  // engine rounds, two per iteration: count rows, not rounds).
  const CheckpointContents saved = ReadCheckpoint(path);
  EXPECT_GT(saved.trace_rows, 0);
  EXPECT_LT(saved.trace_rows, static_cast<std::int64_t>(stopper.rows.size()) + 1);
  out.rounds.assign(
      stopper.rows.begin(),
      stopper.rows.begin() +
          std::min<std::int64_t>(saved.trace_rows, static_cast<std::int64_t>(stopper.rows.size())));
  EXPECT_TRUE(recorder.rounds.empty() || out.rounds.empty() ||
              recorder.rounds.front().round > out.rounds.back().round)
      << "a resumed run handed on a row of the checkpoint's rounds again";
  out.rounds.insert(out.rounds.end(), recorder.rounds.begin(), recorder.rounds.end());
  return out;
}

// The uninterrupted run of `spec`, and the same run saved every 4 rounds, cut after round 9 and
// resumed on the tbb engine (file `name` in the test folder, removed after): every trace row
// and the summary must have the same bits. Returns both runs for further checks.
struct ResumeComparison {
  RunSummary full;
  std::vector<RoundMetrics> full_rounds;
  RunSummary resumed;
};
ResumeComparison ExpectSameBitsAfterResume(const RunSpec& spec, const std::string& name) {
  RunRecorder full_rounds;
  const RunSummary full = Experiment(spec).Run(&full_rounds);
  const std::string path = TempPath(name);
  const Resumed resumed = CheckpointAndResume(spec, path, 4, 9, runtime::EngineKind::kTbb);
  ExpectSameBits(full_rounds.rounds, resumed.rounds);
  ExpectSameSummary(full, resumed.summary);
  std::remove(path.c_str());
  return {full, std::move(full_rounds.rounds), resumed.summary};
}

class SameBitsAfterResume : public ::testing::TestWithParam<Algorithm> {};

TEST_P(SameBitsAfterResume, FinalTraceAndSummary) {
  (void)ExpectSameBitsAfterResume(Spec(GetParam()),
                                  std::string("resume_") + ChoiceName(GetParam()) + ".ckpt");
}

INSTANTIATE_TEST_SUITE_P(Consensus, SameBitsAfterResume,
                         ::testing::Values(Algorithm::kAdmm, Algorithm::kDvp, Algorithm::kPvp,
                                           Algorithm::kMadmm, Algorithm::kRadmm,
                                           Algorithm::kPrivateMradmm, Algorithm::kPdml,
                                           Algorithm::kLocal, Algorithm::kAverage,
                                           Algorithm::kCentral),
                         [](const auto& p) { return std::string(ChoiceName(p.param)); });

// A run saved inside its gossip tail (algorithm.gossip_rounds: rounds 4-12 average the
// releases) and resumed on another engine gives the uninterrupted bits: the tail's state is the
// node's last release, which the checkpoint holds.
TEST(CheckpointTest, ResumedInsideTheGossipTailGivesTheSameBits) {
  RunSpec spec = Spec(Algorithm::kDvp);
  spec.algorithm.gossip_rounds = 9;
  (void)ExpectSameBitsAfterResume(spec, "resume_gossip.ckpt");
}

// pvp's Gaussian variant starts each solve from its last exact update, which only the node
// holds and its checkpointed state keeps (GaussianPvpNodeStateKeepsItsExactUpdate): a resumed
// run gives the uninterrupted run's bits.
TEST(CheckpointTest, GaussianPvpResumesFromItsExactUpdate) {
  RunSpec spec = Spec(Algorithm::kPvp);
  PvpParams& p = spec.algorithm.As<PvpParams>();
  p.mechanism = "gaussian";
  p.noise_multiplier = 2.0;
  (void)ExpectSameBitsAfterResume(spec, "resume_pvp_gaussian.ckpt");
}

// The state a checkpoint keeps of a Gaussian pvp node holds its last exact update: a fresh node
// that loads it saves the same bytes again (a node that dropped it would start its next solve
// from the release, and save that it has none).
TEST(CheckpointTest, GaussianPvpNodeStateKeepsItsExactUpdate) {
  const dpadmm::Dataset data = dpadmm::GenerateTwonorm(300, 3);
  const dpadmm::Partition part = dpadmm::PartitionEven(data.rows(), 3, 3);
  const dpadmm::Graph graph = dpadmm::MakeComplete(3);
  dpadmm::runtime::Topology topo;
  topo.neighbors = graph.adjacency();
  std::vector<dpadmm::Dataset> slices;
  for (int i = 0; i < 3; ++i) slices.push_back(data.Subset(part[i]));
  dpadmm::ConsensusNodeParams p;
  p.variant = dpadmm::ConsensusVariant::kPvp;
  p.C = 1.0;
  p.rho_node = 0.1;
  p.num_nodes = 3;
  p.eta = 0.5;
  p.noise_multiplier = 1.0;
  p.noise_seed = 5;
  const auto make = [&](int i) {
    return dpadmm::MakeConsensusNode(i, slices[i], graph.degree(i), dpadmm::Loss{},
                                     dpadmm::NewtonOptions{}, p,
                                     Eigen::VectorXd::Zero(data.cols()));
  };
  std::vector<std::unique_ptr<dpadmm::ConsensusNode>> nodes;
  std::vector<dpadmm::runtime::NodeProgram*> programs;
  for (int i = 0; i < 3; ++i) {
    nodes.push_back(make(i));
    programs.push_back(nodes.back().get());
  }
  struct Quiet : dpadmm::runtime::RoundSink {
    bool OnRound(std::int64_t, const dpadmm::runtime::ReportTable&) override { return true; }
  } sink;
  dpadmm::runtime::EngineOptions o;
  o.kind = runtime::EngineKind::kSerial;
  o.last_round = 3;
  (void)dpadmm::runtime::Run(programs, topo, o, sink);
  StateWriter saved;
  nodes[0]->SaveState(saved);
  const auto fresh = make(0);
  StateReader in(saved.bytes(), "node 0");
  fresh->LoadState(in);
  StateWriter again;
  fresh->SaveState(again);
  EXPECT_TRUE(again.bytes() == saved.bytes()) << "the reloaded node saves " << again.bytes().size()
                                              << " bytes, the original " << saved.bytes().size();
}

TEST(CheckpointTest, SegmentedRunGivesTheSameBits) {
  const RunSpec spec = Spec(Algorithm::kDvp);
  RunRecorder a, b;
  const RunSummary full = Experiment(spec).Run(&a);
  CheckpointOptions save;
  save.save_path = TempPath("segmented.ckpt");
  save.every = 3;
  const RunSummary segmented = Experiment(spec).RunCheckpointed(save, &b);
  ExpectSameBits(a.rounds, b.rounds);
  ExpectSameSummary(full, segmented);
  std::remove(save.save_path.c_str());
}

TEST(CheckpointTest, BudgetFreezeContinuesAfterResume) {
  RunSpec spec = Spec(Algorithm::kDvp);
  spec.algorithm.privacy_budget = 1.0;  // alpha 0.15 per round: frozen in round 7
  spec.iterations = 20;
  RunRecorder full_rounds;
  const RunSummary full = Experiment(spec).Run(&full_rounds);
  ASSERT_EQ(full.outcome, RunOutcome::kBudgetExhausted);
  const std::string path = TempPath("budget.ckpt");
  const Resumed resumed = CheckpointAndResume(spec, path, 2, 5);
  ExpectSameBits(full_rounds.rounds, resumed.rounds);
  ExpectSameSummary(full, resumed.summary);
  std::remove(path.c_str());
}

// A checkpoint keeps no trace row: the size of a non-private run's checkpoint does not grow
// with the rounds (it grew by a row per round, so quadratically in total over the saves; a
// private run's release states still keep each round's mechanism, the accountant's input), and
// it carries the application's trace mark and the row count.
TEST(CheckpointTest, SizeDoesNotGrowWithTheRounds) {
  std::uintmax_t sizes[2] = {0, 0};
  const std::int64_t iterations[2] = {10, 60};
  for (int k = 0; k < 2; ++k) {
    RunSpec spec = Spec(Algorithm::kAdmm);
    spec.iterations = iterations[k];
    CheckpointOptions save;
    save.save_path = TempPath("size.ckpt");
    save.every = 5;
    std::int64_t marks = 0;
    save.trace_mark = [&marks] { return "mark " + std::to_string(++marks); };
    (void)Experiment(spec).RunCheckpointed(save);
    const CheckpointContents c = ReadCheckpoint(save.save_path);
    EXPECT_EQ(c.round, iterations[k] - 5);
    EXPECT_EQ(c.trace_rows, iterations[k] - 5 + 1);  // rounds 0..round, eval every round
    EXPECT_EQ(c.trace_mark, "mark " + std::to_string(marks));
    sizes[k] = std::filesystem::file_size(save.save_path);
    std::remove(save.save_path.c_str());
  }
  EXPECT_LE(sizes[1], sizes[0] + 16)
      << sizes[0] << " bytes at round 5, " << sizes[1] << " at round 55";
}

// A resumed run asks the application to continue its trace (on_resume) with the saved mark
// and row count, once the spec is checked; an application that refuses ends the resume.
TEST(CheckpointTest, ResumeHandsTheTraceMarkToTheApplication) {
  const RunSpec spec = Spec(Algorithm::kDvp);
  CheckpointOptions save;
  save.save_path = TempPath("mark.ckpt");
  save.every = 4;
  save.trace_mark = [] { return std::string("the trace so far"); };
  (void)Experiment(spec).RunCheckpointed(save);
  CheckpointOptions resume;
  resume.resume_path = save.save_path;
  std::string seen;
  std::int64_t rows = -1;
  resume.on_resume = [&](const std::string& mark, std::int64_t n) {
    seen = mark;
    rows = n;
  };
  (void)Experiment(spec).RunCheckpointed(resume);
  EXPECT_EQ(seen, "the trace so far");
  EXPECT_EQ(rows, ReadCheckpoint(save.save_path).trace_rows);
  resume.on_resume = [](const std::string&, std::int64_t) { throw InputError("not my trace"); };
  EXPECT_TRUE(
      ThrowsInputError([&] { (void)Experiment(spec).RunCheckpointed(resume); }, {"not my trace"}));
  std::remove(save.save_path.c_str());
}

TEST(CheckpointTest, FileIsMode0600WhateverTheUmask) {
  const mode_t old = ::umask(0);
  CheckpointContents c;
  c.spec_json = "{}";
  const std::string path = TempPath("mode.ckpt");
  WriteCheckpoint(path, c);
  ::umask(old);
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  // Rewriting keeps 0600 even if someone widened the file meanwhile (a new file is renamed on).
  ASSERT_EQ(::chmod(path.c_str(), 0644), 0);
  WriteCheckpoint(path, c);
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  std::remove(path.c_str());
}

TEST(CheckpointTest, ADifferentSpecIsRefusedNamingTheFields) {
  RunSpec spec = Spec(Algorithm::kDvp);
  const std::string path = TempPath("mismatch.ckpt");
  CheckpointOptions save;
  save.save_path = path;
  save.every = 5;
  (void)Experiment(spec).RunCheckpointed(save);
  spec.iterations = 20;
  spec.algorithm.eta = 7.0;
  CheckpointOptions resume;
  resume.resume_path = path;
  const Experiment changed(spec);
  EXPECT_TRUE(ThrowsInputError(
      [&] { (void)changed.RunCheckpointed(resume); },
      {path, "different spec", "iterations: 12 in the checkpoint, 20 now", "algorithm.eta:"}));
  // Engine and thread count are not part of the comparison (every engine gives the same bits).
  spec = Spec(Algorithm::kDvp);
  spec.engine = runtime::EngineKind::kTbb;
  spec.threads = 2;
  EXPECT_NO_THROW((void)Experiment(spec).RunCheckpointed(resume));
  std::remove(path.c_str());
}

TEST(CheckpointTest, SpecDifferencesListsEachField) {
  RunSpec a = Spec(Algorithm::kDvp), b = a;
  b.seed = 4;
  b.graph.nodes = 5;
  const std::vector<std::string> d = SpecDifferences(SpecToJson(a), SpecToJson(b));
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(d[0], "graph.nodes: 4 in the checkpoint, 5 now");
  EXPECT_EQ(d[1], "seed: 3 in the checkpoint, 4 now");
  EXPECT_TRUE(SpecDifferences(SpecToJson(a), SpecToJson(a)).empty());
  EXPECT_TRUE(ThrowsInputError([&] { SpecDifferences("[1, 2", SpecToJson(a), "x.ckpt"); },
                               {"x.ckpt", "not a JSON object"}));
}

class CorruptCheckpoint : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = TempPath("good.ckpt");
    CheckpointOptions save;
    save.save_path = path_;
    save.every = 5;
    (void)Experiment(Spec(Algorithm::kMadmm)).RunCheckpointed(save);
    good_ = ReadAll(path_);
    ASSERT_GT(good_.size(), 100u);
  }
  void TearDown() override { std::remove(path_.c_str()); }
  // Resuming from `bytes` throws InputError naming the file and containing `part`.
  ::testing::AssertionResult Refused(const std::string& bytes, const std::string& part) {
    const std::string bad = TempPath("bad.ckpt");
    WriteAll(bad, bytes);
    CheckpointOptions resume;
    resume.resume_path = bad;
    const Experiment e(Spec(Algorithm::kMadmm));
    ::testing::AssertionResult r =
        ThrowsInputError([&] { (void)e.RunCheckpointed(resume); }, {"checkpoint " + bad, part});
    std::remove(bad.c_str());
    return r;
  }
  std::string path_, good_;
};

TEST_F(CorruptCheckpoint, GoodFileResumes) {
  CheckpointOptions resume;
  resume.resume_path = path_;
  EXPECT_EQ(Experiment(Spec(Algorithm::kMadmm)).RunCheckpointed(resume).outcome,
            RunOutcome::kCompleted);
}

TEST_F(CorruptCheckpoint, ForeignEmptyAndMissingFiles) {
  EXPECT_TRUE(Refused("", "not a dpadmm checkpoint"));
  EXPECT_TRUE(Refused("round,seconds\n0,0.1\n", "not a dpadmm checkpoint"));
  EXPECT_TRUE(Refused(SpecToJson(Spec(Algorithm::kMadmm)), "not a dpadmm checkpoint"));
  CheckpointOptions resume;
  resume.resume_path = TempPath("does_not_exist.ckpt");
  const Experiment e(Spec(Algorithm::kMadmm));
  EXPECT_TRUE(ThrowsInputError([&] { (void)e.RunCheckpointed(resume); },
                               {"checkpoint " + resume.resume_path, "cannot read"}));
}

TEST_F(CorruptCheckpoint, EveryTruncationIsAnInputError) {
  for (std::size_t n = 0; n < good_.size(); n += 1 + n / 8) {
    EXPECT_TRUE(Refused(good_.substr(0, n), "")) << "truncated to " << n << " bytes";
  }
}

TEST_F(CorruptCheckpoint, AFlippedBitFailsTheHash) {
  for (std::size_t at : {std::size_t{40}, good_.size() / 2, good_.size() - 9}) {
    std::string bytes = good_;
    bytes[at] = static_cast<char>(bytes[at] ^ 0x10);
    EXPECT_TRUE(Refused(bytes, "hash mismatch")) << "byte " << at;
  }
}

TEST_F(CorruptCheckpoint, OtherVersionIsNamed) {
  std::string bytes = good_;
  bytes[8] = 7;
  EXPECT_TRUE(Refused(bytes, "format version 7"));
}

// A file with a valid hash but inconsistent content (as a buggy or hostile writer makes):
// still an InputError, naming the node or part.
TEST_F(CorruptCheckpoint, InconsistentContentBehindAValidHash) {
  const CheckpointContents good = ParseCheckpoint(good_, "good");
  CheckpointContents c = good;
  c.node_states[1].resize(c.node_states[1].size() / 2);
  EXPECT_TRUE(Refused(SerializeCheckpoint(c), "node 1"));
  c = good;
  c.node_states.pop_back();
  c.messages.pop_back();
  EXPECT_TRUE(Refused(SerializeCheckpoint(c), "3 node states for a run of 4 nodes"));
  c = good;
  c.sink_state = c.sink_state.substr(0, 40);
  EXPECT_TRUE(Refused(SerializeCheckpoint(c), "metrics"));
  c = good;
  c.node_states[0] += "extra";
  EXPECT_TRUE(Refused(SerializeCheckpoint(c), "trailing bytes"));
  c = good;
  c.messages[2].resize(1000);
  EXPECT_TRUE(Refused(SerializeCheckpoint(c), "message"));
  c = good;
  c.node_states[0] = c.node_states[0].substr(0, 8);
  EXPECT_TRUE(Refused(SerializeCheckpoint(c), "node 0"));
}

TEST(CheckpointTest, RefusalsBeforeTheRun) {
  CheckpointOptions save;
  save.save_path = TempPath("never.ckpt");
  save.every = 0;
  const Experiment dvp(Spec(Algorithm::kDvp));
  EXPECT_TRUE(ThrowsInputError([&] { (void)dvp.RunCheckpointed(save); }, {"--checkpoint-every"}));
}

// The sharing family: plain and private ADMM sharing (both mechanisms) and the SGD baseline.
RunSpec SharingSpec(Algorithm algorithm, const std::string& mechanism = "") {
  RunSpec s = RunSpec::Defaults(algorithm);
  s.data.rows = 300;
  s.iterations = 12;
  s.seed = 3;
  s.noise_seed = 11;
  s.engine = runtime::EngineKind::kSerial;
  if (!mechanism.empty()) {
    SharingParams& p = s.algorithm.As<SharingParams>();
    p.dp = true;
    p.mechanism = mechanism;
  }
  return s;
}

class SharingSameBitsAfterResume
    : public ::testing::TestWithParam<std::pair<Algorithm, std::string>> {};

TEST_P(SharingSameBitsAfterResume, FinalTraceAndSummary) {
  const auto& [algorithm, mechanism] = GetParam();
  const RunSpec spec = SharingSpec(algorithm, mechanism);
  const ResumeComparison r = ExpectSameBitsAfterResume(spec, "resume_sharing.ckpt");
  EXPECT_EQ(r.full.message, r.resumed.message);
  // Checkpoints alone (no resume) change nothing either.
  RunRecorder segmented_rounds;
  CheckpointOptions save;
  save.save_path = TempPath("resume_sharing.ckpt");
  save.every = 5;
  const RunSummary segmented = Experiment(spec).RunCheckpointed(save, &segmented_rounds);
  ExpectSameBits(r.full_rounds, segmented_rounds.rounds);
  ExpectSameSummary(r.full, segmented);
  std::remove(save.save_path.c_str());
}

INSTANTIATE_TEST_SUITE_P(Sharing, SharingSameBitsAfterResume,
                         ::testing::Values(std::pair{Algorithm::kSharing, std::string()},
                                           std::pair{Algorithm::kSharing, std::string("gaussian")},
                                           std::pair{Algorithm::kSharing, std::string("paper16")},
                                           std::pair{Algorithm::kSgd, std::string()}),
                         [](const auto& p) {
                           return std::string(ChoiceName(p.param.first)) +
                                  (p.param.second.empty() ? "" : "_" + p.param.second);
                         });

TEST(CheckpointTest, SharingPrivateModeResumesWithFreshKeysAndContinuesTheAccounting) {
  RunSpec spec = SharingSpec(Algorithm::kSharing, "gaussian");
  spec.noise_seed.reset();  // private mode: OS keys, never written
  const RunSummary full = Experiment(spec).Run();
  const std::string path = TempPath("sharing_private.ckpt");
  const Resumed resumed = CheckpointAndResume(spec, path, 4, 5);
  EXPECT_EQ(resumed.summary.outcome, RunOutcome::kCompleted);
  EXPECT_EQ(resumed.summary.rounds, spec.iterations);
  ASSERT_EQ(resumed.rounds.size(), static_cast<std::size_t>(spec.iterations + 1));
  // The accounting depends on the schedule only: the resumed run's totals are the full run's.
  EXPECT_EQ(resumed.summary.final.epsilon_total, full.final.epsilon_total);
  EXPECT_EQ(resumed.summary.final.delta_total, full.final.delta_total);
  std::remove(path.c_str());
}

TEST(CheckpointTest, SharingStatesOfTheWrongShapeAreRefusedNamingTheNode) {
  const RunSpec spec = SharingSpec(Algorithm::kSharing, "gaussian");
  const std::string path = TempPath("sharing_shape.ckpt");
  CheckpointOptions save;
  save.save_path = path;
  save.every = 4;
  (void)Experiment(spec).RunCheckpointed(save);
  const CheckpointContents good = ReadCheckpoint(path);
  ASSERT_EQ(good.node_states.size(), 3u);  // the coordinator and two parties
  CheckpointOptions resume;
  resume.resume_path = path;
  const Experiment e(spec);
  for (std::size_t node : {0u, 2u}) {
    CheckpointContents c = good;
    c.node_states[node] = c.node_states[node].substr(0, c.node_states[node].size() / 2);
    WriteAll(path, SerializeCheckpoint(c));
    EXPECT_TRUE(ThrowsInputError([&] { (void)e.RunCheckpointed(resume); },
                                 {"node " + std::to_string(node)}));
  }
  CheckpointContents c = good;
  c.node_states.pop_back();
  c.messages.pop_back();
  WriteAll(path, SerializeCheckpoint(c));
  EXPECT_TRUE(ThrowsInputError([&] { (void)e.RunCheckpointed(resume); }, {"2 node states"}));
  std::remove(path.c_str());
}

TEST(CheckpointTest, SharingCheckpointRefusedByAnotherSpec) {
  const std::string path = TempPath("sharing_spec.ckpt");
  CheckpointOptions save;
  save.save_path = path;
  save.every = 4;
  (void)Experiment(SharingSpec(Algorithm::kSharing, "gaussian")).RunCheckpointed(save);
  CheckpointOptions resume;
  resume.resume_path = path;
  const Experiment plain(SharingSpec(Algorithm::kSharing));
  EXPECT_TRUE(ThrowsInputError([&] { (void)plain.RunCheckpointed(resume); },
                               {"different spec", "algorithm.sharing.dp"}));
  const Experiment dvp(Spec(Algorithm::kDvp));
  EXPECT_TRUE(ThrowsInputError([&] { (void)dvp.RunCheckpointed(resume); }, {"different spec"}));
  std::remove(path.c_str());
}

TEST(CheckpointTest, PrivateModeResumesWithFreshKeysAndContinuesTheAccounting) {
  RunSpec spec = Spec(Algorithm::kDvp);
  spec.noise_seed.reset();  // private mode: OS keys, never written
  const RunSummary full = Experiment(spec).Run();
  const std::string path = TempPath("private.ckpt");
  const Resumed resumed = CheckpointAndResume(spec, path, 4, 5);
  EXPECT_EQ(resumed.summary.outcome, RunOutcome::kCompleted);
  EXPECT_EQ(resumed.summary.rounds, spec.iterations);
  // The accounting depends on the schedule only: the resumed run's totals are the full run's.
  EXPECT_EQ(resumed.summary.final.privacy_loss, full.final.privacy_loss);
  EXPECT_EQ(resumed.summary.final.node_privacy, full.final.node_privacy);
  EXPECT_EQ(resumed.summary.tight_epsilon, full.tight_epsilon);
  std::remove(path.c_str());
}

TEST(CheckpointTest, PrivatePdmlIsRefused) {
  RunSpec spec = Spec(Algorithm::kPdml);
  spec.noise_seed.reset();
  const std::string path = TempPath("pdml.ckpt");
  CheckpointOptions save;
  save.save_path = path;
  save.every = 4;
  (void)Experiment(spec).RunCheckpointed(save);
  CheckpointOptions resume;
  resume.resume_path = path;
  const Experiment e(spec);
  EXPECT_TRUE(ThrowsInputError([&] { (void)e.RunCheckpointed(resume); },
                               {"pdml in private mode cannot resume"}));
  std::remove(path.c_str());
}

}  // namespace
}  // namespace dpadmm
