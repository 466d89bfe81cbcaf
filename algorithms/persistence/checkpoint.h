// SPDX-License-Identifier: Apache-2.0
// Internal pieces of checkpoint and resume (public API: dpadmm/persistence/checkpoint.h).
//
// StateWriter / StateReader: the byte format of every saved state (fixed-width little-endian
// values, length-prefixed vectors and strings). A reader checks every length against the bytes
// left before it allocates, and every failure is an InputError naming the file and the field.
//
// SegmentProgram / SegmentSink: a run with checkpoints is a sequence of engine runs
// ("segments") of `every` rounds each. The engine always starts at its round 0; a segment that
// continues at real round r0 maps engine round k to real round r0 + k: its round 0 broadcasts
// the message each node sent in round r0 (saved, or kept from the previous segment) and
// reports round r0 again (the sink saw it already and skips it); rounds k >= 1 call the node
// program's Step(r0 + k). The node programs are exactly the synchronous algorithm
// (node_program.h), so segments give the same bits as one engine run.
#pragma once

#include <cstdint>
#include <cstring>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <Eigen/Dense>

#include "dpadmm/core/error.h"
#include "dpadmm/persistence/checkpoint.h"
#include "dpadmm/privacy/release.h"
#include "dpadmm/run/run.h"
#include "dpadmm/runtime/engine.h"
#include "dpadmm/runtime/node_program.h"

namespace dpadmm {

class StateWriter {
 public:
  void U64(std::uint64_t v) { Raw(&v, sizeof v); }
  void I64(std::int64_t v) { Raw(&v, sizeof v); }
  void F64(double v) { Raw(&v, sizeof v); }
  void Bool(bool v) { U64(v ? 1 : 0); }
  void Str(std::string_view s) {
    U64(s.size());
    buf_.append(s.data(), s.size());
  }
  void Doubles(const double* data, std::size_t n) {
    U64(n);
    Raw(data, n * sizeof(double));
  }
  void Vec(const std::vector<double>& v) { Doubles(v.data(), v.size()); }
  void Vec(const Eigen::VectorXd& v) { Doubles(v.data(), static_cast<std::size_t>(v.size())); }
  void Arr(const Eigen::ArrayXd& v) { Doubles(v.data(), static_cast<std::size_t>(v.size())); }
  void Mat(const Eigen::MatrixXd& m) {
    I64(m.rows());
    I64(m.cols());
    Raw(m.data(), static_cast<std::size_t>(m.size()) * sizeof(double));
  }
  const std::string& bytes() const { return buf_; }
  std::string Take() { return std::move(buf_); }

 private:
  void Raw(const void* p, std::size_t n) { buf_.append(static_cast<const char*>(p), n); }
  std::string buf_;
};

class StateReader {
 public:
  // `where` names the source in errors ("checkpoint run.ckpt, node 3").
  StateReader(std::string_view bytes, std::string where)
      : bytes_(bytes), where_(std::move(where)) {}

  std::uint64_t U64(const char* field) {
    std::uint64_t v;
    Raw(&v, sizeof v, field);
    return v;
  }
  std::int64_t I64(const char* field) {
    std::int64_t v;
    Raw(&v, sizeof v, field);
    return v;
  }
  double F64(const char* field) {
    double v;
    Raw(&v, sizeof v, field);
    return v;
  }
  bool Bool(const char* field) {
    const std::uint64_t v = U64(field);
    if (v > 1) Fail(field, "not a boolean");
    return v == 1;
  }
  std::string Str(const char* field) {
    const std::size_t n = Length(field, 1);
    std::string s(bytes_.substr(pos_, n));
    pos_ += n;
    return s;
  }
  // A vector; `expected` >= 0 requires that length.
  std::vector<double> Vec(const char* field, std::int64_t expected = -1) {
    const std::size_t n = Length(field, sizeof(double));
    if (expected >= 0 && n != static_cast<std::size_t>(expected)) WrongSize(field, n, expected);
    std::vector<double> v(n);
    Raw(v.data(), n * sizeof(double), field);
    return v;
  }
  Eigen::VectorXd EVec(const char* field, std::int64_t expected = -1) {
    const std::vector<double> v = Vec(field, expected);
    return Eigen::Map<const Eigen::VectorXd>(v.data(), static_cast<Eigen::Index>(v.size()));
  }
  Eigen::ArrayXd EArr(const char* field, std::int64_t expected = -1) {
    return EVec(field, expected).array();
  }
  Eigen::MatrixXd Mat(const char* field, std::int64_t rows, std::int64_t cols) {
    const std::int64_t r = I64(field), c = I64(field);
    if (r != rows || c != cols) {
      Fail(field, "size " + std::to_string(r) + " x " + std::to_string(c) + ", expected " +
                      std::to_string(rows) + " x " + std::to_string(cols));
    }
    Eigen::MatrixXd m(r, c);
    Raw(m.data(), static_cast<std::size_t>(m.size()) * sizeof(double), field);
    return m;
  }
  // A matrix of any size that fits in the bytes left (its owner checks the size).
  Eigen::MatrixXd Mat(const char* field) {
    const std::int64_t r = I64(field), c = I64(field);
    const std::size_t left = (bytes_.size() - pos_) / sizeof(double);
    if (r < 0 || c < 0 ||
        (c > 0 && static_cast<std::uint64_t>(r) > left / static_cast<std::uint64_t>(c))) {
      Fail(field, "matrix size beyond the end of the file");
    }
    Eigen::MatrixXd m(r, c);
    Raw(m.data(), static_cast<std::size_t>(m.size()) * sizeof(double), field);
    return m;
  }
  // The number of elements of `element` bytes that follow, checked against the bytes left.
  std::size_t Length(const char* field, std::size_t element) {
    const std::uint64_t n = U64(field);
    if (n > (bytes_.size() - pos_) / element) Fail(field, "length beyond the end of the file");
    return static_cast<std::size_t>(n);
  }
  bool AtEnd() const { return pos_ == bytes_.size(); }
  void ExpectEnd(const char* what) {
    if (!AtEnd()) Fail(what, std::to_string(bytes_.size() - pos_) + " unexpected trailing bytes");
  }
  [[noreturn]] void Fail(const char* field, const std::string& why) const {
    throw InputError(where_ + ": " + field + ": " + why +
                     " (the file is corrupt, truncated or not a dpadmm checkpoint)");
  }
  const std::string& where() const { return where_; }

 private:
  void Raw(void* out, std::size_t n, const char* field) {
    if (n > bytes_.size() - pos_) Fail(field, "truncated");
    if (n > 0) std::memcpy(out, bytes_.data() + pos_, n);
    pos_ += n;
  }
  [[noreturn]] void WrongSize(const char* field, std::size_t n, std::int64_t expected) const {
    Fail(field, std::to_string(n) + " values, expected " + std::to_string(expected));
  }
  std::string_view bytes_;
  std::size_t pos_ = 0;
  std::string where_;
};

// A node program whose state can be saved at a round boundary and restored into a program
// built from the same spec. Load validates every size against the program's own.
class Checkpointable {
 public:
  virtual ~Checkpointable() = default;
  virtual void SaveState(StateWriter& out) const = 0;
  virtual void LoadState(StateReader& in) = 0;
};

// A Release's state (spent budget, frozen flag and round, closed mechanisms: the accountant's
// input; its draw count and last message) to and from a state stream. LoadRelease refuses a
// last message longer than `max_message` values; Release::RestoreState checks the rest.
void SaveRelease(StateWriter& out, const Release& release);
void LoadRelease(StateReader& in, Release& release, std::size_t max_message);
// LoadRelease's reading part: the state SaveRelease wrote, not yet restored. `exact`: the last
// message (when there is one) has exactly `max_message` entries.
Release::State ReadRelease(StateReader& in, std::size_t max_message, bool exact);

// See the file comment. `message` holds the node's last broadcast (updated every round).
class SegmentProgram : public runtime::NodeProgram {
 public:
  SegmentProgram(runtime::NodeProgram& inner, std::vector<double>& message)
      : inner_(inner), message_(message) {}
  void set_offset(std::int64_t offset) { offset_ = offset; }

  std::size_t MaxMessageSize() const override { return inner_.MaxMessageSize(); }
  std::size_t ReportSize() const override { return inner_.ReportSize(); }
  std::size_t FiniteReportPrefix() const override { return inner_.FiniteReportPrefix(); }
  runtime::StepResult Start(runtime::Outbox& out) override {
    if (offset_ == 0) {
      runtime::StepResult r = inner_.Start(out);
      Keep(out);
      return r;
    }
    if (message_.size() > out.max_size()) {
      return runtime::StepResult::Fail("checkpoint: a saved message is longer than the node's");
    }
    auto buffer = out.Prepare(message_.size());
    std::copy(message_.begin(), message_.end(), buffer.begin());
    return runtime::StepResult::Ok();
  }
  runtime::StepResult Step(std::int64_t round, const runtime::Inbox& in,
                           runtime::Outbox& out) override {
    runtime::StepResult r = inner_.Step(offset_ + round, in, out);
    Keep(out);
    return r;
  }
  void Report(std::int64_t round, std::span<double> out) const override {
    inner_.Report(offset_ + round, out);
  }

 private:
  void Keep(const runtime::Outbox& out) {
    const auto m = out.message();
    message_.assign(m.begin(), m.end());
  }
  runtime::NodeProgram& inner_;
  std::vector<double>& message_;
  std::int64_t offset_ = 0;
};

class SegmentSink : public runtime::RoundSink {
 public:
  explicit SegmentSink(runtime::RoundSink& inner) : inner_(inner) {}
  void set_offset(std::int64_t offset) { offset_ = offset; }
  bool OnRound(std::int64_t round, const runtime::ReportTable& reports) override {
    if (offset_ > 0 && round == 0) return true;  // round offset_: seen before the boundary
    return inner_.OnRound(offset_ + round, reports);
  }

 private:
  runtime::RoundSink& inner_;
  std::int64_t offset_ = 0;
};

// Counts the rounds the observer sees (a checkpoint's trace_rows) and forwards them.
class RecordingObserver : public RunObserver {
 public:
  explicit RecordingObserver(RunObserver* inner) : inner_(inner) {}
  void OnStart(const RunInfo& info) override {
    if (inner_ != nullptr) inner_->OnStart(info);
  }
  void OnRound(const RoundMetrics& m) override {
    ++rows;
    if (inner_ != nullptr) inner_->OnRound(m);
  }
  std::int64_t rows = 0;

 private:
  RunObserver* inner_;
};

// A resumed run's trace: the recorder counts on from the checkpoint's rows, and the reporting
// rank calls CheckpointOptions::on_resume (the application's check of the trace it appends to).
void StartResumedTrace(const CheckpointOptions& options, const CheckpointContents& resume,
                       bool reporting, RecordingObserver& recorder);

// Runs `programs` from round start_round + 1 (0: a fresh run from round 0) to
// options.last_round in segments that end at the multiples of `every` (0: one segment), calling
// save(round) after each segment but the last. messages[k] holds program k's last broadcast
// (given for a resumed run). The result's rounds are the run's (not the segment's).
runtime::EngineResult RunInSegments(
    std::span<runtime::NodeProgram* const> programs, const runtime::Topology& topology,
    runtime::EngineOptions options, runtime::RoundSink& sink, std::int64_t start_round,
    std::vector<std::vector<double>>& messages, std::int64_t every,
    const std::function<void(std::int64_t)>& save,
    const std::function<runtime::EngineResult(std::span<runtime::NodeProgram* const>,
                                              runtime::EngineOptions, runtime::RoundSink&)>& run =
        {});

// The engine part of a checkpointed run, for both families and every engine. `programs` are
// the hosted nodes' programs (driver.hosted order; all nodes without MPI), `states` their state
// hooks (same order), `nodes` the run's node count. `every_rounds`: engine rounds between
// checkpoints. Restores the hosted nodes and the sink from `resume` (node states are keyed by
// node id: a run under MPI restores only its own nodes, whatever rank count wrote the file),
// then runs in segments (RunInSegments, through RunPrograms: under MPI on the driver's
// communicator). After each segment every node's state reaches the checkpoint: under MPI each
// rank serializes its own nodes, the bytes are gathered (a collective at checkpoint rounds only)
// and rank 0 writes the one file.
struct CheckpointedEngineRun {
  const Experiment::Driver& driver;
  std::span<runtime::NodeProgram* const> programs;
  std::vector<Checkpointable*> states;
  int nodes = 0;
  std::function<void(StateWriter&)> save_sink;
  std::function<void(StateReader&)> load_sink;
  std::int64_t every_rounds = 0;
};
runtime::EngineResult RunWithCheckpoints(const CheckpointedEngineRun& run,
                                         const runtime::Topology& topology,
                                         const runtime::EngineOptions& options,
                                         runtime::RoundSink& sink,
                                         const CheckpointOptions& checkpoint,
                                         const CheckpointContents* resume,
                                         RecordingObserver& recorder);

// Where a party keeps its checkpoint before the last (FILE.prev): RunWithCheckpoints in a
// network run; a party resumes from FILE or FILE.prev, whichever round every party holds.
std::string PreviousCheckpoint(const std::string& path);

// RoundMetrics to and from a state stream.
void SaveMetrics(StateWriter& out, const RoundMetrics& m);
RoundMetrics LoadMetrics(StateReader& in);

}  // namespace dpadmm
