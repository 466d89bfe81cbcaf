// SPDX-License-Identifier: Apache-2.0
// Checkpoint and resume of a run of either family on any engine (Experiment::RunCheckpointed).
//
// A checkpointed run saves, every `every` rounds, everything it needs to continue: each node
// program's state (model, duals, penalties' state, the local solver's warm state, the release
// point's spent budget, frozen flag and round, its closed mechanisms: the accountant's input),
// the message each node broadcast last (what its neighbours receive next), the metrics sink's
// state, the number of trace rows emitted so far with the application's trace mark (never the
// rows: see CheckpointOptions), the round, and the spec as JSON (its fingerprint).
// A resumed run restores all of it and continues; in simulation mode (noise_seed) it gives the
// same bits as the uninterrupted run: noise is keyed by (node key, round, purpose), so no
// generator position needs saving. Noise keys are never written: a resumed private run draws
// fresh keys from the operating system (privacy/README.md: why the composition still holds).
// The sharing family saves its parties' and coordinator's states the same way (sgd: each
// party's weights; rounds are engine rounds, two per ADMM sharing iteration, epochs for sgd).
// Under MPI rank 0 writes the one file from every rank's gathered node states, keyed by node
// id, and a resumed run restores on each rank only the nodes it hosts (any rank count).
//
// File (binary, little-endian): "DPADMMCK", u32 version, u64 payload length, the payload, u64
// FNV-1a hash of the payload. A truncated, corrupt or foreign file is an InputError naming the
// file; the file is written atomically (a temporary file in the same folder, then rename) with
// permission 0600: it holds private intermediate state (models, duals, the nodes' warm state).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "dpadmm/run/run.h"

namespace dpadmm {

struct CheckpointOptions {
  std::string save_path;    // write checkpoints here; empty = none
  std::int64_t every = 0;   // rounds between checkpoints (> 0 when save_path is set)
  std::string resume_path;  // continue from this checkpoint; empty = a fresh run
  // The trace is the application's: a checkpoint keeps no trace row, only how many rows the
  // observer had seen and what trace_mark() returns, called on the reporting rank at each
  // checkpoint once the observer has seen every row up to the checkpoint's round (the CLI
  // returns its trace file's length and checksum there). A resumed run hands the observer only
  // the rows after the checkpoint's round; before it continues (the spec checked), it calls
  // on_resume(trace_mark, trace_rows) on the reporting rank, which appends to the trace it
  // wrote or throws (InputError) if that trace is not the one the checkpoint describes.
  std::function<std::string()> trace_mark;
  std::function<void(const std::string& trace_mark, std::int64_t trace_rows)> on_resume;
  // Called by the process that wrote it once the checkpoint of ROUND is whole on disk (FILE
  // renamed into place); empty = nothing. The CLI's kill tests stop the process here.
  std::function<void(std::int64_t round)> on_written;
};

// 2: the trace rows gave way to their count and the application's trace mark (1 kept every
// row, so that each checkpoint rewrote the whole trace so far), and each release's state carries
// the delta its snapped releases spent (the sampler's floating-point term). 3: a pvp node's
// state carries its last exact update (the Gaussian variant's next solve starts there).
inline constexpr std::uint32_t kCheckpointVersion = 3;

// The parsed content of a checkpoint file. Node states and the sink state are opaque byte
// strings (their owners read them back and validate their sizes).
struct CheckpointContents {
  std::string spec_json;                      // SpecToJson of the run's spec
  std::string algorithm;                      // ChoiceName of the algorithm (for messages)
  std::int64_t round = 0;                     // the last completed round
  std::vector<std::vector<double>> messages;  // per node: its last broadcast message
  std::vector<std::string> node_states;       // per node
  std::string sink_state;
  std::int64_t trace_rows = 0;  // rows the observer had seen up to `round`
  std::string trace_mark;       // CheckpointOptions::trace_mark's bytes
};

// Serialises to the file format above.
std::string SerializeCheckpoint(const CheckpointContents& contents);
// Parses `bytes`; throws InputError naming `name` for anything malformed. `verify_hash` false
// skips the hash check (the fuzz harness uses it to reach the structure behind it).
CheckpointContents ParseCheckpoint(std::string_view bytes, const std::string& name,
                                   bool verify_hash = true);
// Reads and parses the file at `path` (InputError naming it if unreadable or malformed).
CheckpointContents ReadCheckpoint(const std::string& path);
// Writes atomically (temporary file in the same folder, fsync, rename) with mode 0600; throws
// OutputError naming the path if it cannot.
void WriteCheckpoint(const std::string& path, const CheckpointContents& contents);

// The spec fields (dotted JSON paths, "algorithm.dvp.alpha") whose values differ between two
// specs as SpecToJson writes them, with both values ("iterations: 100 in the checkpoint, 200
// now"). "engine" and "threads" are not compared: every engine gives the same bits. Throws
// InputError naming `name` if `saved_json` is not a JSON object.
std::vector<std::string> SpecDifferences(const std::string& saved_json,
                                         const std::string& current_json,
                                         const std::string& name = "checkpoint");

}  // namespace dpadmm
