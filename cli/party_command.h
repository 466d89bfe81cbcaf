// SPDX-License-Identifier: Apache-2.0
// `dpadmm party --config party.json`: runs one party of a run across organisations
// (dpadmm/party.h): this party's nodes on its own data file, talking to the other parties over
// the network engine (mutual TLS; --insecure plaintext on loopback only). The party file holds
// the public run spec, this party's id, its data (and optional public test) file, every party's
// id and address, the node-to-party map, the TLS files, the timeouts and the output paths. The
// trace, summary, model and the stdout summary are those of `dpadmm run` (simulation runs
// labelled so), with this party's figures only. Exit codes as `run`; a peer that fails (cannot
// be reached, disconnects, goes silent, breaks the protocol) is exit 5 naming it.
// --checkpoint/--resume work per party: each party saves its own nodes' state (FILE, the one
// before kept as FILE.prev), and resuming parties agree on the last round all of them hold.
#pragma once

#include <chrono>
#include <string>

#include <CLI/CLI.hpp>

#include "run_command.h"

namespace dpadmm::cli {

class PartyCommand {
 public:
  // Adds the subcommand to `app`.
  explicit PartyCommand(CLI::App& app);
  PartyCommand(const PartyCommand&) = delete;
  PartyCommand& operator=(const PartyCommand&) = delete;

  bool parsed() const { return sub_->parsed(); }
  // Runs the parsed command; returns the exit code. Throws InputError for bad input.
  int Run(std::chrono::steady_clock::time_point started) const;

 private:
  CLI::App* sub_;
  std::string config_;
  bool insecure_ = false, quiet_ = false, progress_ = false;
  CheckpointFlags checkpoint_;
};

}  // namespace dpadmm::cli
