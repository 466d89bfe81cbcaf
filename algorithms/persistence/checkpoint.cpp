// SPDX-License-Identifier: Apache-2.0
#include "dpadmm/persistence/checkpoint.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "dpadmm/core/error.h"
#include "dpadmm/run/spec_json.h"
#include "dpadmm/runtime/mpi.h"
#include "persistence/checkpoint.h"
#include "placement/placement.h"
#include "run/driver.h"

namespace dpadmm {
namespace {

constexpr char kMagic[8] = {'D', 'P', 'A', 'D', 'M', 'M', 'C', 'K'};
// A checkpoint larger than this is refused before it is read (a sanity bound, far above any
// run the size guards of the command accept).
constexpr std::uint64_t kMaxFileBytes = std::uint64_t{1} << 36;  // 64 GiB

std::uint64_t Fnv1a(std::string_view bytes) {
  std::uint64_t h = 14695981039346656037ull;
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

void Flatten(const nlohmann::json& j, const std::string& prefix,
             std::vector<std::pair<std::string, const nlohmann::json*>>& out) {
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) {
      Flatten(it.value(), prefix.empty() ? it.key() : prefix + "." + it.key(), out);
    }
    return;
  }
  out.emplace_back(prefix, &j);
}

std::string Shown(const nlohmann::json* j) {
  if (j == nullptr) return "absent";
  std::string s = j->dump();
  if (s.size() > 60) s = s.substr(0, 57) + "...";
  return s;
}

}  // namespace

void SaveMetrics(StateWriter& out, const RoundMetrics& m) {
  out.I64(m.round);
  for (double v : {m.seconds, m.train_loss, m.objective, m.test_error, m.consensus_gap,
                   m.distance_to_optimum, m.privacy_loss, m.privacy_round, m.tight_epsilon,
                   m.tight_delta, m.test_loss, m.primal_residual, m.max_x_norm, m.y_norm,
                   m.epsilon_iteration, m.delta_iteration, m.epsilon_total, m.delta_total}) {
    out.F64(v);
  }
  out.Vec(m.node_privacy);
  out.Vec(m.node_noise);
  out.Vec(m.node_distance);
}

RoundMetrics LoadMetrics(StateReader& in) {
  RoundMetrics m;
  m.round = in.I64("trace row round");
  for (double* v : {&m.seconds, &m.train_loss, &m.objective, &m.test_error, &m.consensus_gap,
                    &m.distance_to_optimum, &m.privacy_loss, &m.privacy_round, &m.tight_epsilon,
                    &m.tight_delta, &m.test_loss, &m.primal_residual, &m.max_x_norm, &m.y_norm,
                    &m.epsilon_iteration, &m.delta_iteration, &m.epsilon_total, &m.delta_total}) {
    *v = in.F64("trace row value");
  }
  m.node_privacy = in.Vec("trace row node_privacy");
  m.node_noise = in.Vec("trace row node_noise");
  m.node_distance = in.Vec("trace row node_distance");
  return m;
}

void SaveRelease(StateWriter& out, const Release& release) {
  const Release::State r = release.SaveState();
  out.F64(r.spent);
  out.F64(r.spent_delta);
  out.Bool(r.snapped);
  out.Bool(r.frozen);
  out.I64(r.frozen_round);
  out.I64(r.round);
  out.F64(r.cost);
  out.Bool(r.objective_noise_drawn);
  out.Bool(r.started);
  out.Bool(r.has_last);
  out.Vec(r.last);
  out.I64(r.draws);
  out.I64(r.releases);
  out.U64(r.mechanisms.size());
  for (const MechanismRelease& m : r.mechanisms) {
    out.I64(static_cast<std::int64_t>(m.kind));
    out.F64(m.sensitivity);
    out.F64(m.scale);
    out.F64(m.epsilon);
  }
}

Release::State ReadRelease(StateReader& in, std::size_t max_message, bool exact) {
  Release::State r;
  r.spent = in.F64("release spent");
  r.spent_delta = in.F64("release spent delta");
  r.snapped = in.Bool("release snapped");
  r.frozen = in.Bool("release frozen");
  r.frozen_round = in.I64("release frozen round");
  r.round = in.I64("release round");
  r.cost = in.F64("release cost");
  r.objective_noise_drawn = in.Bool("release objective noise");
  r.started = in.Bool("release started");
  r.has_last = in.Bool("release has_last");
  r.last = exact ? in.EVec("release last message",
                           r.has_last ? static_cast<std::int64_t>(max_message) : 0)
                 : in.EVec("release last message");
  if (static_cast<std::size_t>(r.last.size()) > max_message) {
    in.Fail("release last message", "longer than the node's messages");
  }
  r.draws = in.I64("release draws");
  r.releases = in.I64("release count");
  const std::size_t mechanisms = in.Length("release mechanisms", 32);
  for (std::size_t k = 0; k < mechanisms; ++k) {
    MechanismRelease m;
    const std::int64_t kind = in.I64("mechanism kind");
    if (kind < 0 || kind > static_cast<std::int64_t>(MechanismKind::kDiscreteGaussian)) {
      in.Fail("mechanism kind", "unknown kind " + std::to_string(kind));
    }
    m.kind = static_cast<MechanismKind>(kind);
    m.sensitivity = in.F64("mechanism sensitivity");
    m.scale = in.F64("mechanism scale");
    m.epsilon = in.F64("mechanism epsilon");
    r.mechanisms.push_back(m);
  }
  return r;
}

void LoadRelease(StateReader& in, Release& release, std::size_t max_message) {
  release.RestoreState(ReadRelease(in, max_message, false));
}

std::string SerializeCheckpoint(const CheckpointContents& c) {
  StateWriter payload;
  payload.Str(c.spec_json);
  payload.Str(c.algorithm);
  payload.I64(c.round);
  payload.U64(c.messages.size());
  for (const auto& m : c.messages) payload.Vec(m);
  payload.U64(c.node_states.size());
  for (const auto& s : c.node_states) payload.Str(s);
  payload.Str(c.sink_state);
  payload.I64(c.trace_rows);
  payload.Str(c.trace_mark);

  const std::string body = payload.Take();
  std::string out(kMagic, sizeof kMagic);
  StateWriter header;
  header.U64(kCheckpointVersion);
  header.U64(body.size());
  out += header.bytes();
  out += body;
  StateWriter hash;
  hash.U64(Fnv1a(body));
  out += hash.bytes();
  return out;
}

CheckpointContents ParseCheckpoint(std::string_view bytes, const std::string& name,
                                   bool verify_hash) {
  const std::string where = "checkpoint " + name;
  if (bytes.size() < sizeof kMagic || std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0) {
    throw InputError(where + ": not a dpadmm checkpoint (no DPADMMCK header)");
  }
  StateReader header(bytes.substr(sizeof kMagic), where);
  const std::uint64_t version = header.U64("version");
  if (version != kCheckpointVersion) {
    throw InputError(where + ": format version " + std::to_string(version) +
                     ", this dpadmm reads version " + std::to_string(kCheckpointVersion));
  }
  const std::size_t length = header.Length("payload length", 1);
  const std::string_view body = bytes.substr(sizeof kMagic + 16, length);
  StateReader tail(bytes.substr(sizeof kMagic + 16 + length), where);
  const std::uint64_t hash = tail.U64("hash");
  tail.ExpectEnd("end of file");
  if (verify_hash && hash != Fnv1a(body)) {
    throw InputError(where + ": hash mismatch: the file is corrupt (changed after it was written)");
  }

  StateReader in(body, where);
  CheckpointContents c;
  c.spec_json = in.Str("spec");
  c.algorithm = in.Str("algorithm");
  c.round = in.I64("round");
  if (c.round < 0) in.Fail("round", "negative");
  // Each message or state takes at least its 8-byte length: the counts are bounded by the
  // bytes left, so no count allocates beyond the file's size.
  const std::size_t messages = in.Length("node count", 8);
  c.messages.resize(messages);
  for (auto& m : c.messages) m = in.Vec("node message");
  const std::size_t states = in.Length("node state count", 8);
  if (states != messages) in.Fail("node state count", "differs from the message count");
  c.node_states.resize(states);
  for (auto& s : c.node_states) s = in.Str("node state");
  c.sink_state = in.Str("metrics state");
  c.trace_rows = in.I64("trace row count");
  if (c.trace_rows < 0) in.Fail("trace row count", "negative");
  c.trace_mark = in.Str("trace mark");
  in.ExpectEnd("payload");
  return c;
}

CheckpointContents ReadCheckpoint(const std::string& path) {
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  if (ec) throw InputError("checkpoint " + path + ": cannot read (" + ec.message() + ")");
  if (size > kMaxFileBytes) {
    throw InputError("checkpoint " + path + ": " + std::to_string(size) +
                     " bytes, larger than any checkpoint this dpadmm writes");
  }
  std::ifstream file(path, std::ios::binary);
  if (!file) throw InputError("checkpoint " + path + ": cannot open");
  std::string bytes(static_cast<std::size_t>(size), '\0');
  file.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (static_cast<std::uint64_t>(file.gcount()) != size) {
    throw InputError("checkpoint " + path + ": read error");
  }
  return ParseCheckpoint(bytes, path);
}

void WriteCheckpoint(const std::string& path, const CheckpointContents& contents) {
  const std::string bytes = SerializeCheckpoint(contents);
  const std::string temp = path + ".partial";
  const auto fail = [&](const char* action) {
    const int error_number = errno;
    throw OutputError("checkpoint " + path + ": cannot " + action + " " + temp + " (" +
                      std::strerror(error_number) + ")");
  };
  // 0600 from the start (O_CREAT's mode; an existing partial file is replaced, not reused, so
  // its permissions cannot leak in).
  ::unlink(temp.c_str());
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) fail("create");
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      ::close(fd);
      ::unlink(temp.c_str());
      fail("write");
    }
    done += static_cast<std::size_t>(n);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    ::unlink(temp.c_str());
    fail("flush");
  }
  if (std::rename(temp.c_str(), path.c_str()) != 0) {
    ::unlink(temp.c_str());
    fail("rename");
  }
}

std::vector<std::string> SpecDifferences(const std::string& saved_json,
                                         const std::string& current_json, const std::string& name) {
  const nlohmann::json saved = nlohmann::json::parse(saved_json, nullptr, false);
  if (!saved.is_object()) {
    throw InputError("checkpoint " + name + ": its spec is not a JSON object (corrupt file)");
  }
  const nlohmann::json current = nlohmann::json::parse(current_json);
  std::vector<std::pair<std::string, const nlohmann::json*>> a, b;
  Flatten(saved, "", a);
  Flatten(current, "", b);
  std::map<std::string, std::pair<const nlohmann::json*, const nlohmann::json*>> all;
  for (const auto& [k, v] : a) all[k].first = v;
  for (const auto& [k, v] : b) all[k].second = v;
  std::vector<std::string> out;
  for (const auto& [key, values] : all) {
    if (key == "engine" || key == "threads") continue;  // every engine gives the same bits
    const auto [x, y] = values;
    if (x != nullptr && y != nullptr && *x == *y) continue;
    // A field newer than the checkpoint, at the value that runs as the checkpoint's code did.
    if (x == nullptr && y != nullptr && key == "algorithm.weighting" && *y == "node") continue;
    if (x == nullptr && y != nullptr && key == "algorithm.gossip_rounds" && *y == 0) continue;
    out.push_back(key + ": " + Shown(x) + " in the checkpoint, " + Shown(y) + " now");
  }
  return out;
}

void StartResumedTrace(const CheckpointOptions& options, const CheckpointContents& resume,
                       bool reporting, RecordingObserver& recorder) {
  recorder.rows = resume.trace_rows;
  if (reporting && options.on_resume) options.on_resume(resume.trace_mark, resume.trace_rows);
}

namespace {

// A checkpoint read from `path` that this run can continue: the same spec, and a round of it.
void CheckResumable(const Experiment::Driver& d, const std::string& path,
                    const CheckpointContents& resumed) {
  const std::vector<std::string> diff =
      SpecDifferences(resumed.spec_json, SpecToJson(d.spec), path);
  if (!diff.empty()) {
    std::string text;
    for (const std::string& line : diff) text += (text.empty() ? " " : "; ") + line;
    throw InputError("--resume " + path +
                     ": the checkpoint was written for a different spec; refused (give the "
                     "same flags and config as the interrupted run); differences:" +
                     text);
  }
  if (d.spec.algorithm.name() == Algorithm::kPdml && !d.spec.noise_seed) {
    throw InputError(
        "--resume: pdml in private mode cannot resume: Phase 1 randomizes the users' labels "
        "once under a key that is never written, and a resumed run would randomize them "
        "again (a second release of every label); resume with --noise-seed, or restart");
  }
  // ADMM sharing counts two engine rounds per iteration.
  const std::int64_t rounds_per_iteration = d.spec.algorithm.name() == Algorithm::kSharing ? 2 : 1;
  if (resumed.round > rounds_per_iteration * d.spec.iterations ||
      resumed.round % rounds_per_iteration != 0) {
    throw InputError("--resume " + path + ": the checkpoint is at round " +
                     std::to_string(resumed.round) + ", beyond the run's " +
                     std::to_string(d.spec.iterations) + " iterations");
  }
}

}  // namespace

std::string PreviousCheckpoint(const std::string& path) { return path + ".prev"; }

RunSummary Experiment::RunCheckpointed(const CheckpointOptions& options, RunObserver* observer,
                                       const runtime::StopToken* stop) const {
  const Driver& d = *driver_;
  if (!options.save_path.empty() && options.every < 1) {
    throw InputError("--checkpoint-every: must be >= 1 with --checkpoint, got " +
                     std::to_string(options.every));
  }
  CheckpointContents resumed;
  // A party reads its checkpoints once the parties agree on the round (RunWithCheckpoints).
  const bool resume = !options.resume_path.empty() && !d.network;
  if (resume) {
    resumed = ReadCheckpoint(options.resume_path);
    CheckResumable(d, options.resume_path, resumed);
  }
  RunSummary summary;
  summary.info = d.info;
  summary.info.engine = d.spec.engine;
  summary.info.threads = d.spec.threads;
  if (observer != nullptr) observer->OnStart(summary.info);
  d.RunCheckpointed(d.spec.engine, d.spec.threads, observer, stop, options,
                    resume ? &resumed : nullptr, summary);
  summary.seconds_per_round =
      summary.rounds > 0 ? summary.seconds / static_cast<double>(summary.rounds) : 0.0;
  summary.warnings = RunWarnings(d.spec, summary);
  return summary;
}

namespace {

// The engine names rounds of a segment from 0; its messages and failure round are moved to the
// run's rounds.
void ShiftFailure(runtime::NodeFailure& failure, std::int64_t offset) {
  if (failure.round < 0 || offset == 0) return;
  if (failure.kind != runtime::FailureKind::kStepFailed) {
    const std::string from = ", round " + std::to_string(failure.round);
    const std::size_t at = failure.message.find(from);
    if (at != std::string::npos) {
      failure.message.replace(at, from.size(), ", round " + std::to_string(failure.round + offset));
    }
  }
  failure.round += offset;
}

}  // namespace

runtime::EngineResult RunInSegments(
    std::span<runtime::NodeProgram* const> programs, const runtime::Topology& topology,
    runtime::EngineOptions options, runtime::RoundSink& sink, std::int64_t start_round,
    std::vector<std::vector<double>>& messages, std::int64_t every,
    const std::function<void(std::int64_t)>& save,
    const std::function<runtime::EngineResult(std::span<runtime::NodeProgram* const>,
                                              runtime::EngineOptions, runtime::RoundSink&)>& run) {
  const std::int64_t last = options.last_round;
  std::vector<std::unique_ptr<SegmentProgram>> wrappers;
  std::vector<runtime::NodeProgram*> wrapped;
  messages.resize(programs.size());
  for (std::size_t k = 0; k < programs.size(); ++k) {
    wrappers.push_back(std::make_unique<SegmentProgram>(*programs[k], messages[k]));
    wrapped.push_back(wrappers.back().get());
  }
  SegmentSink segment_sink(sink);
  std::int64_t offset = start_round;
  for (;;) {
    const std::int64_t end = every > 0 ? std::min(last, (offset / every + 1) * every) : last;
    for (auto& w : wrappers) w->set_offset(offset);
    segment_sink.set_offset(offset);
    options.last_round = end - offset;
    runtime::EngineResult r = run ? run(wrapped, options, segment_sink)
                                  : runtime::Run(wrapped, topology, options, segment_sink);
    // A segment cancelled before its round 0 reported: the last round is the one before it
    // (reported by the previous segment, or before the checkpoint).
    if (r.last_reported_round >= 0) {
      r.last_reported_round += offset;
    } else if (offset > 0) {
      r.last_reported_round = offset;
    }
    if (r.outcome == runtime::EngineOutcome::kFailed) ShiftFailure(r.failure, offset);
    if (r.outcome != runtime::EngineOutcome::kCompleted || end >= last) return r;
    if (save) save(end);
    offset = end;
  }
}

namespace {

// Bytes to doubles and back, bit for bit (the MPI collectives move doubles; no arithmetic).
std::vector<double> PackBytes(const std::string& bytes) {
  std::vector<double> out((bytes.size() + 7) / 8 + 1, 0.0);
  const std::uint64_t n = bytes.size();
  std::memcpy(out.data(), &n, sizeof n);
  if (n > 0) std::memcpy(out.data() + 1, bytes.data(), bytes.size());
  return out;
}

}  // namespace

namespace {

// The hosted nodes' states, their last messages and the sink's state from `resume`.
void RestoreHosted(const CheckpointedEngineRun& run, const CheckpointContents& resume,
                   const std::string& path, std::vector<std::vector<double>>& messages) {
  const std::vector<int>& hosted = run.driver.hosted;
  const std::string where = "checkpoint " + path;
  if (resume.node_states.size() != static_cast<std::size_t>(run.nodes)) {
    throw InputError(where + ": " + std::to_string(resume.node_states.size()) +
                     " node states for a run of " + std::to_string(run.nodes) + " nodes");
  }
  for (std::size_t k = 0; k < run.programs.size(); ++k) {
    const std::size_t node = static_cast<std::size_t>(hosted[k]);
    StateReader in(resume.node_states[node], where + ", node " + std::to_string(node));
    run.states[k]->LoadState(in);
    in.ExpectEnd("node state");
    if (resume.messages[node].size() > run.programs[k]->MaxMessageSize()) {
      in.Fail("message", "longer than the node's messages");
    }
    messages[k] = resume.messages[node];
  }
  StateReader in(resume.sink_state, where + ", metrics");
  run.load_sink(in);
}

// A checkpoint of the run at `round` with this process's nodes (the others' entries empty).
CheckpointContents LocalCheckpoint(const CheckpointedEngineRun& run, std::int64_t round,
                                   const std::vector<std::vector<double>>& messages) {
  const Experiment::Driver& d = run.driver;
  CheckpointContents c;
  c.spec_json = SpecToJson(d.spec);
  c.algorithm = ChoiceName(d.spec.algorithm.name());
  c.round = round;
  c.messages.resize(static_cast<std::size_t>(run.nodes));
  c.node_states.resize(static_cast<std::size_t>(run.nodes));
  for (std::size_t k = 0; k < run.programs.size(); ++k) {
    StateWriter out;
    run.states[k]->SaveState(out);
    c.node_states[static_cast<std::size_t>(d.hosted[k])] = out.Take();
    c.messages[static_cast<std::size_t>(d.hosted[k])] = messages[k];
  }
  return c;
}

// The sink's state and the trace's position, once the observer has seen `round`.
void FinishCheckpoint(const CheckpointedEngineRun& run, const CheckpointOptions& checkpoint,
                      const RecordingObserver& recorder, CheckpointContents& c) {
  StateWriter out;
  run.save_sink(out);
  c.sink_state = out.Take();
  c.trace_rows = recorder.rows;
  if (checkpoint.trace_mark) c.trace_mark = checkpoint.trace_mark();
}

// One party of a network run (d.network; dpadmm/party.h): one engine run, which stops at the
// checkpoint rounds (NetworkOptions::on_checkpoint) and, resuming, agrees at set-up on the round
// every party continues from (on_resume). A party holds two checkpoints, FILE and FILE.prev
// (a party may be one checkpoint ahead of another); resuming, it offers the rounds of those
// of FILE and FILE.prev that exist.
runtime::EngineResult RunPartyWithCheckpoints(const CheckpointedEngineRun& run,
                                              const runtime::Topology& topology,
                                              const runtime::EngineOptions& options,
                                              runtime::RoundSink& sink,
                                              const CheckpointOptions& checkpoint,
                                              RecordingObserver& recorder) {
  const Experiment::Driver& d = run.driver;
  std::vector<CheckpointContents> held;
  std::vector<std::string> held_paths;
  if (!checkpoint.resume_path.empty()) {
    for (const std::string& path :
         {checkpoint.resume_path, PreviousCheckpoint(checkpoint.resume_path)}) {
      std::error_code ec;
      if (!std::filesystem::exists(path, ec)) continue;
      held.push_back(ReadCheckpoint(path));
      CheckResumable(d, path, held.back());
      held_paths.push_back(path);
    }
    if (held.empty()) {
      throw InputError("--resume " + checkpoint.resume_path +
                       ": no checkpoint at this path nor at " +
                       PreviousCheckpoint(checkpoint.resume_path));
    }
  }
  std::vector<std::vector<double>> messages(run.programs.size());
  std::vector<std::unique_ptr<SegmentProgram>> wrappers;
  std::vector<runtime::NodeProgram*> wrapped;
  for (std::size_t k = 0; k < run.programs.size(); ++k) {
    wrappers.push_back(std::make_unique<SegmentProgram>(*run.programs[k], messages[k]));
    wrapped.push_back(wrappers.back().get());
  }
  SegmentSink segment_sink(sink);
  std::int64_t offset = 0;
  runtime::NetworkOptions net = *d.network;
  net.resuming = !held.empty();
  for (const CheckpointContents& c : held) net.resume_rounds.push_back(c.round);
  net.on_resume = [&](std::int64_t round) {
    std::size_t k = 0;
    while (held[k].round != round) ++k;  // the engine picks one of the rounds offered
    CheckpointOptions from = checkpoint;
    from.resume_path = held_paths[k];
    RestoreHosted(run, held[k], held_paths[k], messages);
    StartResumedTrace(from, held[k], true, recorder);
    offset = round;
    for (auto& w : wrappers) w->set_offset(round);
    segment_sink.set_offset(round);
  };
  if (!checkpoint.save_path.empty()) {
    // The rounds of this run's checkpoints at FILE and FILE.prev (-1: none, or another run's:
    // known only when the party resumes from the path it saves to). Writing round r: FILE
    // (< r) becomes FILE.prev; a FILE of round r or later (a party one checkpoint ahead,
    // resumed with the others) is replaced and FILE.prev kept; with no FILE of this run,
    // FILE.prev stays only if it is this run's and earlier.
    std::int64_t at_file = -1, at_prev = -1;
    std::error_code ec;
    // A party killed while writing left its temporary files (this path's own): removed.
    std::filesystem::remove(checkpoint.save_path + ".partial", ec);
    std::filesystem::remove(PreviousCheckpoint(checkpoint.save_path) + ".partial", ec);
    if (std::filesystem::weakly_canonical(checkpoint.save_path, ec) ==
        std::filesystem::weakly_canonical(checkpoint.resume_path, ec)) {
      for (std::size_t k = 0; k < held.size(); ++k) {
        (held_paths[k] == checkpoint.resume_path ? at_file : at_prev) = held[k].round;
      }
    }
    net.checkpoint_every = run.every_rounds;
    net.on_checkpoint = [&, at_file, at_prev](std::int64_t round) mutable {
      CheckpointContents c = LocalCheckpoint(run, round, messages);
      FinishCheckpoint(run, checkpoint, recorder, c);
      const std::string prev = PreviousCheckpoint(checkpoint.save_path);
      std::error_code error;
      if (at_file >= 0 && at_file < round) {
        // FILE stays in place (a second link, renamed onto FILE.prev): at every moment both
        // paths hold a whole checkpoint or nothing.
        const std::string link = prev + ".partial";
        std::filesystem::remove(link, error);
        std::filesystem::create_hard_link(checkpoint.save_path, link, error);
        if (!error) std::filesystem::rename(link, prev, error);
        // rename() does nothing when both are links to one file (FILE.prev already FILE: a
        // party killed between these steps and its write): the second link goes here.
        std::error_code ignored;
        std::filesystem::remove(link, ignored);
        at_prev = at_file;
      } else if (at_file < 0 && !(at_prev >= 0 && at_prev < round)) {
        std::filesystem::remove(prev, error);
        at_prev = -1;
      }
      if (error) {
        throw OutputError("checkpoint " + checkpoint.save_path + ": cannot keep it as " + prev +
                          " (" + error.message() + ")");
      }
      WriteCheckpoint(checkpoint.save_path, c);
      at_file = round;
      if (checkpoint.on_written) checkpoint.on_written(round);
    };
  }
  runtime::EngineResult r = RunOnNetwork(d, wrapped, topology, options, segment_sink, &net);
  if (r.last_reported_round >= 0) {
    r.last_reported_round += offset;
  } else if (offset > 0) {
    r.last_reported_round = offset;
  }
  if (r.outcome == runtime::EngineOutcome::kFailed) ShiftFailure(r.failure, offset);
  return r;
}

}  // namespace

runtime::EngineResult RunWithCheckpoints(const CheckpointedEngineRun& run,
                                         const runtime::Topology& topology,
                                         const runtime::EngineOptions& options,
                                         runtime::RoundSink& sink,
                                         const CheckpointOptions& checkpoint,
                                         const CheckpointContents* resume,
                                         RecordingObserver& recorder) {
  const Experiment::Driver& d = run.driver;
  const std::vector<int>& hosted = d.hosted;
  if (hosted.size() != run.programs.size() || run.states.size() != run.programs.size()) {
    throw std::logic_error("checkpoint: hosted nodes, programs and states differ in count");
  }
  if (d.network) return RunPartyWithCheckpoints(run, topology, options, sink, checkpoint, recorder);
  std::vector<std::vector<double>> messages(run.programs.size());
  std::int64_t start_round = 0;
  if (resume != nullptr) {
    RestoreHosted(run, *resume, checkpoint.resume_path, messages);
    start_round = resume->round;
  }
  const auto save = [&](std::int64_t round) {
    if (checkpoint.save_path.empty()) return;
    CheckpointContents c;
    if (!d.mpi) {
      c = LocalCheckpoint(run, round, messages);
    } else {
      c.spec_json = SpecToJson(d.spec);
      c.algorithm = ChoiceName(d.spec.algorithm.name());
      c.round = round;
      c.messages.resize(static_cast<std::size_t>(run.nodes));
      c.node_states.resize(static_cast<std::size_t>(run.nodes));
      // This rank's nodes as (id, message, state), gathered from every rank.
      StateWriter mine;
      mine.U64(run.programs.size());
      for (std::size_t k = 0; k < run.programs.size(); ++k) {
        StateWriter out;
        run.states[k]->SaveState(out);
        mine.I64(hosted[k]);
        mine.Vec(messages[k]);
        mine.Str(out.bytes());
      }
      const std::vector<double> all = runtime::MpiAllgather(PackBytes(mine.bytes()), d.mpi->comm);
      if (!IsReportingRank(d)) return;
      std::size_t at = 0;
      std::vector<char> seen(static_cast<std::size_t>(run.nodes), 0);
      while (at < all.size()) {
        std::uint64_t n;
        std::memcpy(&n, all.data() + at, sizeof n);
        const std::size_t words = (n + 7) / 8;
        if (at + 1 + words > all.size()) throw std::logic_error("checkpoint: gathered states");
        const std::string bytes(reinterpret_cast<const char*>(all.data() + at + 1), n);
        at += 1 + words;
        StateReader in(bytes, "checkpoint: gathered node states");
        const std::size_t count = in.Length("node count", 8);
        for (std::size_t k = 0; k < count; ++k) {
          const std::int64_t node = in.I64("node id");
          if (node < 0 || node >= run.nodes || seen[static_cast<std::size_t>(node)]) {
            throw std::logic_error("checkpoint: gathered a node twice or out of range");
          }
          seen[static_cast<std::size_t>(node)] = 1;
          c.messages[static_cast<std::size_t>(node)] = in.Vec("message");
          c.node_states[static_cast<std::size_t>(node)] = in.Str("state");
        }
      }
      for (char s : seen) {
        if (!s) throw std::logic_error("checkpoint: a node's state was not gathered");
      }
    }
    FinishCheckpoint(run, checkpoint, recorder, c);
    WriteCheckpoint(checkpoint.save_path, c);
    if (checkpoint.on_written) checkpoint.on_written(round);
  };
  const auto engine_run = [&](std::span<runtime::NodeProgram* const> programs,
                              runtime::EngineOptions o, runtime::RoundSink& s) {
    return RunPrograms(d, programs, topology, o, s);
  };
  return RunInSegments(run.programs, topology, options, sink, start_round, messages,
                       checkpoint.save_path.empty() ? 0 : run.every_rounds, save, engine_run);
}

}  // namespace dpadmm
