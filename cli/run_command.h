// SPDX-License-Identifier: Apache-2.0
// `dpadmm run` and its alias `dpadmm sharing`: the effective spec (family defaults, --config,
// the flags given), the checks before anything is loaded, the run with its trace, progress,
// summary, model and checkpoints, on the serial, tbb or mpi engine.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>

#include <CLI/CLI.hpp>

#include "dpadmm/persistence/checkpoint.h"
#include "dpadmm/run/run.h"
#include "dpadmm/run/run_spec.h"
#include "spec_flags.h"

namespace dpadmm::cli {

class CliObserver;  // progress.h
class TraceWriter;  // trace_writer.h

// --checkpoint FILE --checkpoint-every K, --resume FILE (dpadmm/persistence/checkpoint.h).
struct CheckpointFlags {
  std::string path;
  std::int64_t every = 0;
  std::string resume;
  bool active() const { return !path.empty() || !resume.empty(); }
};

struct OutputOptions {
  CheckpointFlags checkpoint;
  std::string config;
  std::string trace = "dpadmm-trace.csv";
  std::string trace_format;
  std::string summary = "dpadmm-summary.json";
  std::string model_out;
  std::string node_ranks;
  bool quiet = false;
  bool progress = false;
  bool print_config = false;
  std::string max_memory;  // --max-memory; empty = the default limit
};

// What `run` does once the run is prepared (shared by `party`): opens the trace and the summary
// (o.trace, o.summary), shows progress, calls `run` with the observer and the trace, writes the
// summary, prints it, saves o.model_out; returns the exit code. The outputs must have been
// probed before the data was loaded (AtomicFile, as RunAndReport does).
int ReportRun(const RunSpec& spec, const OutputOptions& o,
              std::chrono::steady_clock::time_point started, const RunInfo& info,
              const std::function<RunSummary(CliObserver*, TraceWriter*)>& run);

// --checkpoint, --checkpoint-every and --resume, bound to `c` (`run`, `sharing`, `party`).
void AddCheckpointOptions(CLI::App& command, CheckpointFlags& c);
// Their checks before anything is loaded: --checkpoint-every with --checkpoint, and no
// checkpoint path naming another output or an input.
void CheckCheckpointFlags(const RunSpec& spec, const OutputOptions& o);
// Experiment::Run, or RunCheckpointed when a checkpoint flag is given (the trace continued from
// the checkpoint's mark on --resume).
RunSummary RunWithCheckpointFlags(const Experiment& experiment, const CheckpointFlags& c,
                                  CliObserver* observer, const runtime::StopToken* stop,
                                  TraceWriter* trace);

// The CheckpointOptions of the flags: the trace's mark kept in each checkpoint, and on resume
// the trace continued from it (trace null: no trace).
CheckpointOptions CheckpointOptionsOf(const CheckpointFlags& c, CliObserver* observer,
                                      TraceWriter* trace);

// The input/output and checkpoint flags of `run` and `sharing`, bound to `o`.
void AddOutputOptions(CLI::App& command, OutputOptions& o);

// The effective spec: the defaults of the algorithm's family (the algorithm from --algorithm,
// else the config's algorithm.name), then the config file, then the flags given.
RunSpec BuildSpec(const SpecFlags& flags, const OutputOptions& o);

// The checks that need no data: the spec (BuildSpec validates it), the trace format, outputs
// that are distinct files and not inputs, the thread and memory limits. `dpadmm run` does
// these before anything is loaded or allocated; the command-line fuzzer runs only these.
RunSpec CheckBeforeRun(const SpecFlags& flags, const OutputOptions& o);

// Runs the parsed command; returns its exit code (throws InputError, OutputError, ...).
int Run(const SpecFlags& flags, const OutputOptions& o,
        std::chrono::steady_clock::time_point started);

}  // namespace dpadmm::cli
