// SPDX-License-Identifier: Apache-2.0
// What a run shows while it runs: the progress display on stderr, and the observer that feeds
// it and the trace (a trace write error stops the run as Ctrl-C does).
#pragma once

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>

#include "command_common.h"
#include "dpadmm/run/run.h"
#include "dpadmm/run/spec_json.h"
#include "output_files.h"
#include "trace_writer.h"

namespace dpadmm::cli {

// A one-line progress bar redrawn in place when stderr is a terminal; otherwise one plain line
// per ~10% of the rounds, so that logs stay readable.
class Progress {
 public:
  enum class Mode { kOff, kBar, kLines };
  Progress(Mode mode, std::int64_t total) : mode_(mode), total_(std::max<std::int64_t>(total, 0)) {
    step_ = std::max<std::int64_t>(1, (total_ + 9) / 10);
    next_line_ = step_;
  }

  void Start(const RunInfo& info) {
    evaluation_ = !info.evaluation.empty();
    if (mode_ == Mode::kOff) return;
    const std::string where =
        info.family == Family::kConsensus
            ? std::to_string(info.nodes) + " nodes / " + std::to_string(info.edges) + " edges"
            : std::to_string(info.party_features.size()) + " parties";
    std::fprintf(stderr, "dpadmm: %s on %s, %lld training rows x %lld features, %lld rounds\n",
                 ChoiceName(info.algorithm), where.c_str(), static_cast<long long>(info.train_rows),
                 static_cast<long long>(info.features), static_cast<long long>(total_));
    std::fprintf(stderr, "dpadmm: %s\n", NoiseLabel(info));
  }

  void Update(const RoundMetrics& m) {
    if (mode_ == Mode::kBar) {
      // Redraw at most ~20 times a second, and always for the last round.
      const auto now = std::chrono::steady_clock::now();
      if (m.round < total_ && drawn_ && now - last_draw_ < std::chrono::milliseconds(50)) return;
      last_draw_ = now;
      drawn_ = true;
      constexpr int kWidth = 28;
      const double done =
          total_ > 0 ? static_cast<double>(m.round) / static_cast<double>(total_) : 1.0;
      const int filled = static_cast<int>(done * kWidth);
      std::string bar(static_cast<std::size_t>(filled), '#');
      bar.resize(kWidth, '.');
      std::fprintf(stderr, "\r[%s] %3d%%  round %lld/%lld%s  test error %s\033[K", bar.c_str(),
                   static_cast<int>(100.0 * done), static_cast<long long>(m.round),
                   static_cast<long long>(total_), TrainLoss(m).c_str(),
                   Percent(m.test_error).c_str());
      std::fflush(stderr);
    } else if (mode_ == Mode::kLines && (m.round >= next_line_ || m.round == total_)) {
      next_line_ = (m.round / step_ + 1) * step_;
      std::fprintf(stderr, "dpadmm: round %lld/%lld%s  test error %s  %s\n",
                   static_cast<long long>(m.round), static_cast<long long>(total_),
                   TrainLoss(m).c_str(), Percent(m.test_error).c_str(), Seconds(m.seconds).c_str());
    }
  }

  // Clears the bar so that the summary starts on a clean line.
  void Finish() {
    if (mode_ == Mode::kBar && drawn_) {
      std::fprintf(stderr, "\r\033[K");
      std::fflush(stderr);
    }
  }

 private:
  Mode mode_;
  std::int64_t total_;
  std::int64_t step_ = 1, next_line_ = 1;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point last_draw_;
  bool evaluation_ = false;  // the run lists private-evaluation figures (RunInfo::evaluation)

  // "  train loss X" (labelled when it is an evaluation outside a guarantee), or nothing when
  // the run did not compute it (released-only).
  std::string TrainLoss(const RoundMetrics& m) const {
    if (std::isnan(m.train_loss)) return "";
    return "  train loss " + Fmt("%.6g", m.train_loss) + (evaluation_ ? " (private eval.)" : "");
  }
};

// Subscribes the trace and the progress display to the run.
class CliObserver : public RunObserver {
 public:
  CliObserver(TraceWriter& trace, Progress& progress) : trace_(trace), progress_(progress) {}
  void OnStart(const RunInfo& info) override { progress_.Start(info); }
  void OnRound(const RoundMetrics& m) override {
    if (!write_error_.empty()) return;
    try {
      trace_.Write(m);
    } catch (const OutputError& e) {
      // Not thrown through the engine: the run is stopped as by Ctrl-C and the error reported
      // once it has returned.
      write_error_ = e.what();
      g_stop.RequestStop();
    }
    progress_.Update(m);
  }
  const std::string& write_error() const { return write_error_; }

 private:
  TraceWriter& trace_;
  std::string write_error_;
  Progress& progress_;
};

}  // namespace dpadmm::cli
