// SPDX-License-Identifier: Apache-2.0
// One party of a run across organisations: this process hosts the nodes the node-to-party map
// gives its party, holds only its own rows, and talks to the other parties over the network
// engine (dpadmm/runtime/network.h: gRPC with mutual TLS). Both families: a consensus party
// hosts one or more nodes on its own rows; a sharing party (ADMM sharing, with or without dp) is
// the coordinator or one feature party (below).
//
//   dpadmm::RunSpec spec = ...;                       // the public run spec, the same everywhere
//   dpadmm::runtime::NetworkOptions net;              // self, parties, TLS files, timeouts
//   net.self = "hospital-a";
//   net.parties = {{"hospital-a", "10.0.0.1:7001"}, {"hospital-b", "10.0.0.2:7001"}, ...};
//   dpadmm::Party party(spec, my_rows, public_test_rows, net);  // node k = party k by default
//   dpadmm::RunSummary s = party.Run(&observer, &stop);         // this party's summary
//
// What stays with the party: its rows, its nodes' programs, their noise keys and accountants.
// What crosses to the others: the released messages its nodes broadcast (the engine's frames),
// and before round 0 the public spec (a hash, and a digest of each public field so that a
// mismatch is refused on every side naming the fields that differ: PublicSpecOf).
//
// Party mode differs from a run in one process in what one party can know:
// - data: `train` is this party's rows only; with several hosted nodes they are split among
//   them in contiguous blocks (sizes differ by at most one; node order). spec.partition must be
//   'even' (it is not used) and spec.data's source and paths are ignored (LoadPartyData reads a
//   party's files in the spec's format).
// - scaling: per-record maps (clip-only, public-bounds, none) or dp-bounds: each party's nodes
//   release their DP histograms (privacy/bounds_release.h) from its own raw rows, the parties
//   exchange these releases before round 0 (the network engine's set-up exchange: released
//   values only), and every party derives the same bounds from their sum and maps its rows and
//   its test data with them; the release's epsilon is in each node's privacy figures as in one
//   process. global-max-norm (it needs the largest row norm over every party's rows) is refused
//   naming data.scaling.
// - refused as well: target_epsilon (the calibration needs every node's row count), tolerance
//   (the stop rule needs every node's model), the sgd baseline (a loop, not an engine run).
// - metrics: computed by the party from its own nodes' reports (their models, their losses on
//   its own rows), the public test data it is given and the spec only. Per-node figures of other
//   parties' nodes are NaN (node_frozen_round -2); the model is the mean of its own nodes' final
//   models; consensus_gap is over its own nodes; the centralized optimum is not computed
//   (info.optimum_note). A privacy budget freezes each node on its own but does not end the run
//   (no party sees whether every other node froze).
// - privacy: the summary's figures (paper's and tight) are those of this party's nodes, from
//   their own releases; nothing is said of the others'.
// With the same spec and noise_seed (simulation mode) every party's hosted nodes compute the
// serial engine's bits on the concatenation of the parties' rows with the matching partition
// (tests/party/test_party_algorithms.cpp).
//
// The sharing family (algorithm "sharing", 001; vertically partitioned: every party holds every
// sample, each a block of its columns). Each party hosts ONE node: node 0 is the coordinator,
// node m feature party m (block m of algorithm.sharing.party_features, which the public spec must
// give); by default party k of `parties` hosts node k, or node_parties names each node's party.
// - data: the coordinator's `train` holds the labels only (no column; LoadSharingPartyRows: a
//   file of one label per line), feature party m's its block of every row (d_m columns, the
//   labels unused; the last block's intercept column, with data.add_bias, is added by its party).
//   No test data (no party holds a whole test row). Rows are in the same sample order everywhere;
//   the row count N is public ("data.samples" in PublicSpecOf).
// - scaling: clip-only (each row of a block clipped to norm 1, as in one process) or none.
// - messages: a feature party sends D_m x_m (N doubles; with dp its noisy release), the
//   coordinator [s - z; y] (2N doubles: max_message_doubles is set to 2N, nothing longer passes).
// - metrics: the coordinator from the labels and the aggregate it receives (train_loss,
//   primal_residual, y_norm; the rest NaN); feature party m from its own block (max_x_norm of
//   x_m and, with dp, the privacy columns of its own releases; the rest NaN). The summary's
//   model is feature party m's block x_m (the coordinator's is empty); no baselines.
// In simulation mode each party's trace and model have the bits of the serial engine's run on
// the parties' columns side by side, measured as that party (SerialAsParty with view {m}).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "dpadmm/data/dataset.h"
#include "dpadmm/data/preprocessing.h"
#include "dpadmm/persistence/checkpoint.h"
#include "dpadmm/run/run.h"
#include "dpadmm/run/run_spec.h"
#include "dpadmm/runtime/network.h"

namespace dpadmm {

// The public part of a spec, as every party must agree on it: the canonical JSON (keys sorted)
// of SpecToJson less what is each party's own (data paths, generated data's sizes and split,
// engine, threads, compute_optimum), plus "data.features" (the prepared column count); its
// 64-bit FNV-1a hash and one digest per leaf field ("algorithm.dvp.alpha"). An agreement check,
// not a security measure: the peers are authenticated by their certificates.
struct PublicSpec {
  std::string json;
  std::vector<std::uint8_t> hash;
  std::vector<runtime::SpecField> fields;
};
// `samples` >= 0 adds "data.samples" (the sharing family: every party holds every sample).
PublicSpec PublicSpecOf(const RunSpec& spec, std::int64_t features, std::int64_t samples = -1);

// The sharing family: the node `network.self` hosts (default map: party k hosts node k, and
// then there must be algorithm.sharing.parties + 1 parties); InputError naming the field.
int SharingPartyNode(const RunSpec& spec, const runtime::NetworkOptions& network);

// The sharing family: node `node`'s rows from its file. The coordinator (node 0): one label per
// line (-1/+1, 0/1 or 1/2, mapped as LIBSVM's: a LIBSVM file without features). Feature party
// m: its block in the spec's format, libsvm (indices 1..d_m; each line's first field, the label
// slot, is not read: write 0) or asc (whitespace-separated values, no labels), d_m columns (the
// last block one less with data.add_bias).
Dataset LoadSharingPartyRows(const RunSpec& spec, int node, const std::string& path);

// A party's own rows from its files, read whole in the format spec.data names (libsvm with
// data.num_features > 0, csv, asc with its labels files); no split: `test_path` (may be empty)
// is the party's public test data. Generated sources and adult are refused naming data.source.
TrainTest LoadPartyData(const RunSpec& spec, const std::string& train_path,
                        const std::string& test_path, const std::string& train_labels_path = "",
                        const std::string& test_labels_path = "");

// A party file (`dpadmm party --config FILE`), JSON:
//   {"spec": {...the public run spec, the object `dpadmm run --config` reads...},
//    "party": "hospital-a",                         // this party's id
//    "data": "a.libsvm", "test": "test.libsvm",     // its own rows; optional public test data
//    "data_labels": "", "test_labels": "",          // asc data only: the labels files
//    "parties": [{"id": "hospital-a", "address": "10.0.0.1:7001"}, ...],  // every party
//                 // optional "listen": "0.0.0.0:7001": where a party's server binds when its
//                 // address is that of something in between (NAT, relay); default: address
//    "node_parties": ["hospital-a", ...],           // optional: node k's party (default k;
//                                                   //  sharing: node 0 = the coordinator)
//    "tls": {"ca": "ca.pem", "cert": "a.pem", "key": "a.key"},
//    "setup_timeout_seconds": 30, "peer_timeout_seconds": 60,               // optional
//    "trace": "a-trace.csv", "trace_format": "csv",                         // optional
//    "summary": "a-summary.json", "model_out": "",                          // optional
//    "checkpoint": "a.ckpt", "checkpoint_every": 10, "resume": ""}          // optional
// Unknown keys and wrong types are refused naming the field ("party.json: parties[2].address:
// ..."). Paths are used as written (relative to the working directory). The outputs default to
// names that carry the party id (dpadmm-<id>-trace.csv, dpadmm-<id>-summary.json), so that
// parties sharing a folder never write the same file. trace_format overrides the trace's
// extension (csv or jsonl); checkpoint, checkpoint_every and resume are what `dpadmm run`'s
// --checkpoint, --checkpoint-every and --resume are (checkpoint_every >= 1 needs checkpoint).
// The sharing family: "data" is the coordinator's labels file or a feature party's block
// (LoadSharingPartyRows); test, data_labels, test_labels and model_out are refused.
struct PartyFile {
  RunSpec spec;
  std::string data, test, data_labels, test_labels;
  runtime::NetworkOptions network;  // self, parties, node_parties, tls, timeouts
  std::string trace, trace_format, summary, model_out;  // trace, summary: the defaults above
  std::string checkpoint, resume;
  std::int64_t checkpoint_every = 0;
};
PartyFile ParsePartyFile(const std::string& text, const std::string& where);

// Throws InputError when `spec` may not resume across parties: a private run (a privacy
// mechanism, no noise_seed). The rounds a party released after its checkpoint reached the other
// parties under noise keys that are never written; a resumed run would release those rounds
// again with fresh keys, and its figure could not charge the first releases (they are nowhere on
// record). Simulation mode resumes (the same bits); a private run after a failure starts afresh.
void CheckPartyResume(const RunSpec& spec, const CheckpointOptions& checkpoint);

class Party {
 public:
  // Validates `spec` (and what party mode refuses), prepares this party's rows and builds
  // nothing else yet. network.node_parties empty = node k on party k (then the run must have
  // as many nodes as parties); network.spec_hash and spec_fields are set here from the spec.
  // Throws InputError naming the field.
  Party(RunSpec spec, Dataset train, Dataset test, runtime::NetworkOptions network);
  ~Party();
  Party(Party&&) noexcept;
  Party& operator=(Party&&) noexcept;

  const RunSpec& spec() const;
  const RunInfo& info() const;
  const PublicSpec& public_spec() const { return public_; }
  // The nodes this party hosts, increasing.
  const std::vector<int>& nodes() const;

  // Runs this party's nodes with every other party (each calls Run). Everything during the run
  // is an outcome: a peer that cannot be reached, disconnects, goes silent or breaks the
  // protocol ends the run "failed" naming it (the rounds every party completed are reported).
  RunSummary Run(RunObserver* observer = nullptr, const runtime::StopToken* stop = nullptr) const;

  // Run with checkpoints and/or resumed (dpadmm/persistence/checkpoint.h), per party: this
  // party saves only its own nodes' state (models, duals, spent budgets; never its noise keys)
  // to checkpoint.save_path every checkpoint.every rounds, keeping the one before as
  // save_path + ".prev" (a party can be one checkpoint ahead of another). With resume_path,
  // it offers the rounds of resume_path and resume_path + ".prev" at set-up; every party must
  // resume (one resuming while another starts afresh is refused on both sides) and all
  // continue from the largest round every party holds (none in common: the run fails on every
  // party naming each party's rounds). In simulation mode a resumed run gives the bits of the
  // uninterrupted one. A private run (a privacy mechanism, no noise_seed) cannot resume:
  // CheckPartyResume throws.
  RunSummary Run(const CheckpointOptions& checkpoint, RunObserver* observer = nullptr,
                 const runtime::StopToken* stop = nullptr) const;

  // The reference a party's run must reproduce: the serial engine in one process on every
  // node's rows (`train`, spec.partition as given, e.g. a partition file), with the metrics
  // measured as a party hosting `view` measures them (its nodes' figures, the mean of its
  // nodes' models). In simulation mode the party's trace (but the seconds) and model have
  // these bits. Set spec.compute_optimum = false to compare the distance column.
  static RunSummary SerialAsParty(RunSpec spec, Dataset train, Dataset test, std::vector<int> view,
                                  RunObserver* observer = nullptr);

 private:
  std::unique_ptr<Experiment> experiment_;
  PublicSpec public_;
};

}  // namespace dpadmm
