// SPDX-License-Identifier: Apache-2.0
// The trace file of a run (--trace, CSV or JSON lines), written row by row so that it loses
// nothing, and its format from the path's extension or --trace-format.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "dpadmm/run/choices.h"
#include "dpadmm/run/run.h"
#include "dpadmm/run/spec_json.h"
#include "output_files.h"

namespace dpadmm::cli {

// The format --trace-format names, else the one of the path's extension (.csv, .jsonl,
// .ndjson); InputError naming --trace otherwise.
TraceFormat ResolveTraceFormat(const std::string& path, const std::string& forced);

// The trace: rows are flushed to TRACE.partial as they come (a write error stops the run at
// the first failing row) and the file is renamed onto TRACE when the run ends, however it ends
// (completed, budget, diverged, failed, Ctrl-C, an error): TRACE then holds the header and every
// round up to the last one. A run killed outright (SIGKILL) leaves TRACE.partial, valid up to
// its last complete line. A trace without any round is not kept.
class TraceWriter {
 public:
  // The first lines say where the noise came from: a `# ` comment in CSV, a header object
  // {"noise_mode": ..., "noise": ...} in JSON lines (the rows follow). `evaluation`
  // (RunInfo::evaluation): columns computed on private data in a run whose outputs a guarantee
  // binds; when not empty, they are labelled too (CSV: a second '# ' line; JSON lines: the
  // header object's "evaluation" and "evaluation_on_private_data" fields). Written with the
  // first round, so that a trace is either absent or valid.
  TraceWriter(std::string path, TraceFormat format, Family family, const RunInfo& info,
              const std::vector<std::string>& evaluation = {})
      : file_(std::move(path), "the trace"), format_(format), family_(family) {
    std::string names;
    for (const std::string& e : evaluation) {
      if (e.rfind("info.", 0) == 0) continue;  // summary fields, not trace columns
      names += (names.empty() ? "" : format_ == TraceFormat::kCsv ? " " : "\", \"") + e;
    }
    if (format_ == TraceFormat::kCsv) {
      header_ = "# " + std::string(NoiseLabel(info)) + '\n';
      if (!names.empty())
        header_ += "# " + std::string(kPrivateEvaluationLabel) + ": " + names + '\n';
      header_ += MetricsCsvHeader(family_) + '\n';
    } else {
      header_ = std::string("{\"noise_mode\":\"") + NoiseModeName(info) + "\",\"noise\":\"" +
                NoiseLabel(info) + '"';
      if (!names.empty()) {
        header_ += std::string(",\"evaluation\":\"") + kPrivateEvaluationLabel +
                   "\",\"evaluation_on_private_data\":[\"" + names + "\"]";
      }
      header_ += "}\n";
    }
  }
  void Write(const RoundMetrics& m) {
    std::string text;
    if (rows_ == 0) text = header_;
    text += (format_ == TraceFormat::kCsv ? MetricsToCsvRow(m, family_)
                                          : MetricsToJsonLine(m, family_));
    text += '\n';
    file_.Write(text);
    Count(text);
    ++rows_;
  }

  // Checkpoints (CheckpointOptions::trace_mark): the trace so far as "<bytes> <rows> <hash>",
  // its length, row count and FNV-1a checksum.
  std::string Mark() const;
  // A resumed run (CheckpointOptions::on_resume): continues the trace the checkpointed run
  // wrote, which must be at this trace's path and begin with the rows `mark` describes (length
  // and checksum): those bytes are copied to this trace's new file and the run's rows follow.
  // InputError naming the trace and `checkpoint` if it is missing, shorter, edited or another
  // run's.
  void ContinueFrom(const std::string& mark, std::int64_t rows, const std::string& checkpoint);
  // Before a resumed run opens its trace: a killed run's TRACE.partial (valid up to its last
  // complete line) is cut there and renamed onto TRACE, the file ContinueFrom reads.
  static void KeepKilledTrace(const std::string& path);
  // After a write error: the rows written whole stay readable at the trace's path (a resumed
  // run continues them), the row that failed is cut off.
  void CloseAfterError() {
    if (rows_ > 0) {
      file_.CommitPrefix(bytes_);
    } else {
      file_.Discard();
    }
  }
  // Renames the trace onto its path (rounds were written) or removes it (none were).
  void Close() {
    if (rows_ > 0) {
      file_.Commit();
    } else {
      file_.Discard();
    }
  }
  const std::string& path() const { return file_.target(); }
  const char* format_name() const { return ChoiceName(format_); }
  std::int64_t rows() const { return rows_; }

 private:
  AtomicFile file_;
  TraceFormat format_;
  Family family_;
  std::string header_;  // written with the first row
  std::int64_t rows_ = 0;
  std::uint64_t bytes_ = 0;                     // written so far
  std::uint64_t hash_ = 0xcbf29ce484222325ULL;  // FNV-1a 64 of those bytes

  void Count(const std::string& text);
};

}  // namespace dpadmm::cli
