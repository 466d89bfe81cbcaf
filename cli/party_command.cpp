// SPDX-License-Identifier: Apache-2.0
#include "party_command.h"

#include <utility>

#include "command_common.h"
#include "dpadmm/core/error.h"
#include "dpadmm/party.h"
#include "output_files.h"
#include "progress.h"
#include "run_command.h"
#include "trace_writer.h"

namespace dpadmm::cli {

PartyCommand::PartyCommand(CLI::App& app) {
  sub_ = app.add_subcommand(
      "party",
      "Run one party of a run across organisations: this party's nodes on its own data, the "
      "other parties\nreached over gRPC with mutual TLS. Consensus family: a party hosts its "
      "nodes on its own rows.\nSharing (ADMM sharing, with or without dp): each party hosts "
      "one node, node 0 the coordinator\n(its data file: the labels, one per line), node m "
      "feature party m (its data file: its block of\nevery row); by default party k hosts "
      "node k. Every party runs this command with its own party\nfile; all must hold the "
      "same public spec (a mismatch is refused on every side, naming the\nfields). See "
      "README.md, \"Across organisations\".");
  sub_->add_option(
          "--config", config_,
          "The party file (JSON): spec, party, data, test, parties ({id, address} each, and an "
          "optional listen: where this party binds when the others dial another address), "
          "node_parties, tls, "
          "timeouts, trace, trace_format, summary, model_out, checkpoint, "
          "checkpoint_every, resume (the flags below override the file's)")
      ->type_name("FILE")
      ->required();
  sub_->add_flag("--insecure", insecure_,
                 "Plaintext without authentication: only with loopback addresses (tests)");
  sub_->add_flag("--quiet,-q", quiet_, "No progress output on stderr");
  sub_->add_flag("--progress", progress_,
                 "Draw the progress bar even when stderr is not a terminal");
  AddCheckpointOptions(*sub_, checkpoint_);
  sub_->get_option("--checkpoint")
      ->description(
          "Save this party's state to FILE every --checkpoint-every rounds: its own nodes "
          "only (models, duals, spent budgets; never the noise keys), atomically, mode 0600 "
          "(private intermediate state). The checkpoint before is kept as FILE.prev (a party "
          "may be one checkpoint ahead of another)");
  sub_->get_option("--resume")
      ->description(
          "Continue from FILE or FILE.prev: every party must resume (a party resuming while "
          "another starts afresh is refused on both sides), and all continue from the largest "
          "round every party holds (none in common: refused, naming each party's rounds). "
          "Give the same party file; the trace is continued from that round as `run --resume` "
          "does. With noise_seed the result has the uninterrupted run's bits. A private run "
          "(no noise_seed) cannot resume: the rounds released after the checkpoint reached the "
          "others and could not be charged; start a new run");
}

int PartyCommand::Run(std::chrono::steady_clock::time_point started) const {
  PartyFile file = ParsePartyFile(ReadFile(config_, "party file"), config_);
  file.network.insecure = insecure_;
  if (!insecure_ && (file.network.tls.ca_cert.empty() || file.network.tls.cert.empty() ||
                     file.network.tls.key.empty())) {
    throw InputError(config_ +
                     ": tls: mutual TLS needs \"ca\", \"cert\" and \"key\" (plaintext only with "
                     "--insecure, on loopback)");
  }
  OutputOptions o;
  // The checkpoint flags override the party file's settings one by one.
  o.checkpoint = checkpoint_;
  if (o.checkpoint.path.empty()) o.checkpoint.path = file.checkpoint;
  if (o.checkpoint.every == 0) o.checkpoint.every = file.checkpoint_every;
  if (o.checkpoint.resume.empty()) o.checkpoint.resume = file.resume;
  const CheckpointFlags& checkpoint = o.checkpoint;
  o.config = config_;
  o.trace = file.trace;
  o.trace_format = file.trace_format;
  o.summary = file.summary;
  o.model_out = file.model_out;
  o.quiet = quiet_;
  o.progress = progress_;
  ResolveTraceFormat(o.trace, o.trace_format);
  CheckDistinctFiles({{"trace", o.trace}, {"summary", o.summary}, {"model_out", o.model_out}},
                     {{"--config", config_},
                      {"data", file.data},
                      {"test", file.test},
                      {"data_labels", file.data_labels},
                      {"test_labels", file.test_labels},
                      {"tls.key", file.network.tls.key}});
  CheckCheckpointFlags(file.spec, o);
  CheckPartyResume(file.spec, CheckpointOptionsOf(checkpoint, nullptr, nullptr));
  g_inputs = "party file " + config_ + " (data " + file.data + ")";
  // Outputs tried before the data is loaded (as `run` does), then opened for good; a resumed
  // party continues its trace (a killed party's TRACE.partial becomes TRACE first).
  if (!o.checkpoint.resume.empty()) TraceWriter::KeepKilledTrace(o.trace);
  { AtomicFile(o.trace, "the trace"); }
  { AtomicFile(o.summary, "the summary"); }
  // Sharing: the coordinator's labels or this feature party's block (no test data).
  TrainTest data =
      file.spec.family() == Family::kSharing
          ? TrainTest{LoadSharingPartyRows(file.spec, SharingPartyNode(file.spec, file.network),
                                           file.data),
                      Dataset{}}
          : LoadPartyData(file.spec, file.data, file.test, file.data_labels, file.test_labels);
  const Party party(file.spec, std::move(data.train), std::move(data.test),
                    std::move(file.network));
  return ReportRun(
      party.spec(), o, started, party.info(), [&](CliObserver* observer, TraceWriter* trace) {
        if (!checkpoint.active()) return party.Run(observer, &g_stop);
        return party.Run(CheckpointOptionsOf(checkpoint, observer, trace), observer, &g_stop);
      });
}

}  // namespace dpadmm::cli
