// SPDX-License-Identifier: Apache-2.0
#include "run_command.h"

#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <optional>
#include <system_error>

#include "command_common.h"
#include "dpadmm/core/error.h"
#include "dpadmm/persistence/checkpoint.h"
#include "dpadmm/placement/mpi_run.h"
#include "dpadmm/run/spec_json.h"
#include "dpadmm/runtime/mpi.h"
#include "output_files.h"
#include "predict_command.h"
#include "progress.h"
#include "run_limits.h"
#include "summary_text.h"
#include "trace_writer.h"

namespace dpadmm::cli {

int RunAndReport(const RunSpec& spec, const OutputOptions& o,
                 std::chrono::steady_clock::time_point started, const MpiPlacement* placement);

// The effective spec: the defaults of the algorithm's family (the algorithm from --algorithm,
// else the config's algorithm.name), then the config file, then the flags given.
RunSpec BuildSpec(const SpecFlags& flags, const OutputOptions& o) {
  std::string config_text;
  if (!o.config.empty()) config_text = ReadFile(o.config, "config file");
  Algorithm algorithm = flags.DefaultAlgorithm();
  if (const auto given = flags.GivenAlgorithm()) {
    algorithm = *given;
  } else if (!o.config.empty()) {
    if (const auto named = PeekAlgorithm(config_text, o.config)) algorithm = *named;
  }
  RunSpec spec = RunSpec::Defaults(algorithm);
  if (!o.config.empty()) ApplySpecJson(config_text, o.config, spec);
  flags.ApplyGiven(spec);
  spec.Validate();
  return spec;
}

// What a run reads, in the user's terms, for a message about a failure that is not tied to one
// field (out of memory): "--data libsvm --train big.txt, --nodes 10".
std::string DescribeInputs(const RunSpec& spec, const OutputOptions& o) {
  std::string out = std::string("--data ") + ChoiceName(spec.data.source);
  const auto add = [&](const char* flag, const std::string& value) {
    if (!value.empty()) out += std::string(" ") + flag + " " + value;
  };
  if (IsGenerated(spec.data.source)) {
    add("--rows", std::to_string(spec.data.rows));
    add("--dims", std::to_string(spec.data.dims));
  } else {
    add("--train", spec.data.train_path);
    add("--test", spec.data.test_path);
    add("--train-labels", spec.data.train_labels_path);
    add("--test-labels", spec.data.test_labels_path);
    if (spec.data.num_features > 0) add("--features", std::to_string(spec.data.num_features));
  }
  if (spec.family() == Family::kConsensus) {
    out += ", --nodes " + std::to_string(spec.graph.nodes);
    add("--graph-file", spec.graph.file);
    add("--partition-file", spec.partition.file);
  }
  if (!o.config.empty()) out += ", --config " + o.config;
  return out;
}

// The checks that need no data: the spec (BuildSpec validates it), the trace format, outputs
// that are distinct files and not inputs, the thread and memory limits. `dpadmm run` does
// these before anything is loaded or allocated; the command-line fuzzer runs only these.
RunSpec CheckBeforeRun(const SpecFlags& flags, const OutputOptions& o) {
  RunSpec spec = BuildSpec(flags, o);
  if (o.print_config) return spec;
  ResolveTraceFormat(o.trace, o.trace_format);
  CheckDistinctFiles({{"--trace", o.trace}, {"--summary", o.summary}, {"--model-out", o.model_out}},
                     {{"--config", o.config},
                      {"--train", spec.data.train_path},
                      {"--test", spec.data.test_path},
                      {"--train-labels", spec.data.train_labels_path},
                      {"--test-labels", spec.data.test_labels_path},
                      {"--graph-file", spec.graph.file},
                      {"--partition-file", spec.partition.file}});
  CheckCheckpointFlags(spec, o);
  if (o.max_memory.empty()) {
    CheckLimits(spec, DefaultMemoryLimit(), "75% of the physical memory");
  } else {
    CheckLimits(spec, ParseMemorySize(o.max_memory, "--max-memory"), "set by --max-memory");
  }
  return spec;
}

int Run(const SpecFlags& flags, const OutputOptions& o,
        std::chrono::steady_clock::time_point started) {
  const RunSpec spec = CheckBeforeRun(flags, o);
  if (o.print_config) {
    std::cout << SpecToJson(spec) << std::endl;
    return kExitOk;
  }
  if (!o.node_ranks.empty() && spec.engine != runtime::EngineKind::kMpi) {
    throw InputError("--node-ranks applies to --engine mpi only");
  }
  if (spec.engine != runtime::EngineKind::kMpi) return RunAndReport(spec, o, started, nullptr);
  if (!runtime::MpiBuilt()) {
    throw InputError(
        "engine: 'mpi' is not available: this dpadmm was built without MPI (configure with "
        "-DDPADMM_WITH_MPI=ON and Open MPI installed; or use --engine serial or tbb)");
  }
  // Every rank runs this same command line; rank 0 writes trace, summary and model and prints
  // progress, the other ranks print errors only.
  g_mpi.emplace(nullptr, nullptr);
  MpiPlacement placement;
  if (!o.node_ranks.empty()) placement.node_ranks = runtime::ReadNodeRankFile(o.node_ranks);
  return RunAndReport(spec, o, started, &placement);
}

// The exit code of a run, agreed by every rank under MPI once rank 0's outputs are complete:
// rank 0 calls it after its trace, summary and model are at their paths, the other ranks after
// their part of the run, and every rank returns rank 0's code. So no rank ends before rank 0's
// outputs are complete (MPI_Finalize need not synchronise the ranks, and a launcher may report
// the job as soon as ranks exit), and every rank ends with the same code. An error on rank 0
// before this point aborts the job (CommandLine::Execute), which also ends the waiting ranks.
int OutputsDone(int code) {
  if (!g_mpi || g_mpi->size() == 1) return code;
  return static_cast<int>(runtime::MpiAllreduceMax(g_mpi->rank() == 0 ? code : 0));
}

int RunAndReport(const RunSpec& spec, const OutputOptions& o,
                 std::chrono::steady_clock::time_point started, const MpiPlacement* placement) {
  ResolveTraceFormat(o.trace, o.trace_format);
  g_inputs = DescribeInputs(spec, o);
  // Under MPI only rank 0 writes outputs; the other ranks run their nodes and return.
  const bool writes = !(g_mpi && g_mpi->rank() != 0);

  // Both outputs are tried (created as .partial files and removed) before the data is loaded,
  // so that an unwritable path is found before any work; they are opened for good once the
  // set-up is done, so that a run killed during the set-up leaves nothing behind.
  if (writes) {
    // A resumed run appends to the trace of the run it continues: a killed run's
    // TRACE.partial becomes TRACE first (the probe below would remove it).
    if (!o.checkpoint.resume.empty()) TraceWriter::KeepKilledTrace(o.trace);
    { AtomicFile(o.trace, "the trace"); }
    { AtomicFile(o.summary, "the summary"); }
  }

  // Loads data, builds graph, partition and the optimum (under MPI: this rank's share only).
  Experiment experiment = placement != nullptr ? Experiment(spec, *placement) : Experiment(spec);
  if (!writes) {
    // Checkpoints are collective under MPI: every rank runs the checkpointed run.
    const RunSummary summary =
        RunWithCheckpointFlags(experiment, o.checkpoint, nullptr, &g_stop, nullptr);
    return OutputsDone(ExitCodeOf(summary.outcome));
  }

  // The experiment's spec: the one that runs (with target_epsilon, the epsilon policy's
  // settings and the calibrated knob).
  return OutputsDone(ReportRun(experiment.spec(), o, started, experiment.info(),
                               [&](CliObserver* observer, TraceWriter* trace) {
                                 return RunWithCheckpointFlags(experiment, o.checkpoint, observer,
                                                               &g_stop, trace);
                               }));
}

int ReportRun(const RunSpec& spec, const OutputOptions& o,
              std::chrono::steady_clock::time_point started, const RunInfo& info,
              const std::function<RunSummary(CliObserver*, TraceWriter*)>& run) {
  const TraceFormat format = ResolveTraceFormat(o.trace, o.trace_format);
  TraceWriter trace(o.trace, format, spec.family(), info, info.evaluation);
  AtomicFile summary_file(o.summary, "the summary");

  Progress::Mode mode = Progress::Mode::kOff;
  if (!o.quiet) {
    mode =
        (o.progress || isatty(STDERR_FILENO) != 0) ? Progress::Mode::kBar : Progress::Mode::kLines;
  }
  Progress progress(mode, spec.iterations);
  CliObserver observer(trace, progress);

  std::optional<RunSummary> result;
  try {
    result = run(&observer, &trace);
  } catch (...) {
    // The rounds done so far stay readable at the trace's path.
    progress.Finish();
    if (observer.write_error().empty()) {
      try {
        trace.Close();
      } catch (const OutputError&) {
      }
    } else {
      trace.CloseAfterError();
    }
    throw;
  }
  // SIGINT and SIGTERM stay caught until the process ends: one arriving now (the run is over)
  // must not end the process with its trace and summary half-written.
  progress.Finish();
  const RunSummary& summary = *result;

  // After a trace write error the trace keeps the rows written whole (a resumed run continues
  // them; the summary is still written: it says where the run stopped).
  if (observer.write_error().empty()) {
    trace.Close();
  } else {
    trace.CloseAfterError();
  }
  summary_file.Write(SummaryToJson(summary) + '\n');
  summary_file.Commit();
  if (!observer.write_error().empty()) throw OutputError(observer.write_error());
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  PrintSummary(spec, summary, wall, trace, o.summary);
  // A node that ran out of memory is reported by the engine as a failed node (its exception's
  // text kept); for the user it is the same as running out of memory anywhere else: exit 2.
  if (summary.outcome == RunOutcome::kFailed &&
      summary.message.find("bad_alloc") != std::string::npos) {
    std::cerr << "dpadmm: error: out of memory while running on " << g_inputs << " ("
              << summary.message << ")\n";
    return kExitBadInput;
  }
  if (!o.model_out.empty() && !SaveRunModel(summary, spec, o.model_out)) return kExitInternal;
  return ExitCodeOf(summary.outcome);
}

void AddCheckpointOptions(CLI::App& command, CheckpointFlags& c) {
  const std::string group = "Checkpoint and resume";
  command
      .add_option(
          "--checkpoint", c.path,
          "Save the run's state to FILE every --checkpoint-every rounds (atomically; "
          "mode 0600: it holds private intermediate state, the models and duals of "
          "every node, never the noise keys). Every algorithm and engine (mpi: rank 0 writes it)")
      ->type_name("FILE")
      ->group(group);
  WithStrictNumber<std::int64_t>(
      command.add_option("--checkpoint-every", c.every,
                         "Rounds between checkpoints (>= 1; sharing: iterations, sgd: epochs)"))
      ->type_name("K")
      ->group(group);
  command
      .add_option("--resume", c.resume,
                  "Continue the run saved in FILE; give the same flags and config (a different "
                  "spec is refused). With --noise-seed the result has the same bits as an "
                  "uninterrupted run; a private run draws fresh noise keys. The trace is "
                  "continued: give the interrupted run's --trace (its rows up to the checkpoint "
                  "are checked against the checkpoint's checksum; another or an edited trace is "
                  "refused)")
      ->type_name("FILE")
      ->group(group);
}

// The checkpoint flags' own checks, before anything is loaded.
void CheckCheckpointFlags(const RunSpec& /*spec*/, const OutputOptions& o) {
  const CheckpointFlags& c = o.checkpoint;
  if (!c.active()) {
    if (c.every != 0) throw InputError("--checkpoint-every needs --checkpoint FILE");
    return;
  }
  if (!c.path.empty() && c.every < 1) {
    throw InputError("--checkpoint-every: must be >= 1 with --checkpoint, got " +
                     std::to_string(c.every));
  }
  if (c.path.empty() && c.every != 0) {
    throw InputError("--checkpoint-every needs --checkpoint FILE");
  }
  // --checkpoint may name the --resume file (the checkpoint is read whole before the run and
  // replaced atomically); no other output may.
  std::error_code ec;
  const bool same = !c.path.empty() && !c.resume.empty() &&
                    std::filesystem::weakly_canonical(c.path, ec) ==
                        std::filesystem::weakly_canonical(c.resume, ec);
  CheckDistinctFiles({{"--trace", o.trace},
                      {"--summary", o.summary},
                      {"--model-out", o.model_out},
                      {"--checkpoint", same ? std::string() : c.path}},
                     {{"--resume", c.resume}, {"--config", o.config}});
  if (same) {
    CheckDistinctFiles({{"--trace", o.trace},
                        {"--summary", o.summary},
                        {"--model-out", o.model_out},
                        {"--checkpoint", c.path}},
                       {{"--config", o.config}});
  }
}

// Experiment::Run, or RunCheckpointed when a checkpoint flag is given.
RunSummary RunWithCheckpointFlags(const Experiment& experiment, const CheckpointFlags& c,
                                  CliObserver* observer, const runtime::StopToken* stop,
                                  TraceWriter* trace) {
  if (!c.active()) return experiment.Run(observer, stop);
  return experiment.RunCheckpointed(CheckpointOptionsOf(c, observer, trace), observer, stop);
}

CheckpointOptions CheckpointOptionsOf(const CheckpointFlags& c, CliObserver* observer,
                                      TraceWriter* trace) {
  CheckpointOptions options;
  options.save_path = c.path;
  options.every = c.every;
  options.resume_path = c.resume;
  if (trace != nullptr) {
    // The checkpoint keeps the trace's length and checksum, not its rows; a resumed run
    // appends to the trace after checking it against them.
    options.trace_mark = [observer, trace] {
      // A trace that lost a row cannot be continued: the checkpoint fails (exit 6).
      if (!observer->write_error().empty()) throw OutputError(observer->write_error());
      return trace->Mark();
    };
    options.on_resume = [trace, resume = c.resume](const std::string& mark, std::int64_t rows) {
      trace->ContinueFrom(mark, rows, resume);
    };
  }
  // Test hook: with DPADMM_TEST_STOP_AFTER_CHECKPOINT set, the process stops itself (SIGSTOP)
  // once its first checkpoint is on disk, so that a test can SIGKILL it there however fast the
  // machine runs the remaining rounds.
  if (std::getenv("DPADMM_TEST_STOP_AFTER_CHECKPOINT") != nullptr) {
    options.on_written = [](std::int64_t) { std::raise(SIGSTOP); };
  }
  return options;
}

void AddOutputOptions(CLI::App& command, OutputOptions& o) {
  AddCheckpointOptions(command, o.checkpoint);
  const std::string io = "Input and output";
  command
      .add_option("--config", o.config,
                  "JSON spec file (shape: see --print-config); command-line flags override it")
      ->type_name("FILE")
      ->group(io);
  command
      .add_option("--trace", o.trace,
                  "Per-round metrics; format from the extension (.csv or .jsonl)")
      ->type_name("FILE")
      ->group(io);
  command
      .add_option("--trace-format", o.trace_format,
                  "Overrides the extension: " + ChoiceList<TraceFormat>())
      ->type_name("FORMAT")
      ->group(io);
  command.add_option("--summary", o.summary, "Run summary (outcome, final metrics, model) as JSON")
      ->type_name("FILE")
      ->group(io);
  command
      .add_option("--model-out", o.model_out,
                  "Save the learned model as JSON for `dpadmm predict` (dpadmm::Model)")
      ->type_name("FILE")
      ->group(io);
  command
      .add_option("--node-ranks", o.node_ranks,
                  "--engine mpi: the rank of each node, one per line (line k: node k-1; sharing: "
                  "line 1 the coordinator, line m + 1 party m); default contiguous blocks")
      ->type_name("FILE")
      ->group("Run");
  command.add_flag("--quiet,-q", o.quiet, "No progress output on stderr")->group(io);
  command
      .add_flag("--progress", o.progress,
                "Draw the progress bar even when stderr is not a terminal")
      ->group(io);
  command
      .add_option("--max-memory", o.max_memory,
                  "Refuse a run whose estimated memory is above this many bytes (suffix K, M, G, "
                  "T; 0 = no limit; default: 75% of the physical memory)")
      ->type_name("SIZE")
      ->group(io);
  command
      .add_flag("--print-config", o.print_config,
                "Print the effective spec as JSON and exit (nothing is run)")
      ->group(io);
}

}  // namespace dpadmm::cli
