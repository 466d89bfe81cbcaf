// SPDX-License-Identifier: Apache-2.0
// ParsePartyFile (dpadmm/party.h, the file `dpadmm party --config` reads) on arbitrary bytes.
// InputError naming the file is the only rejection. Properties on accepted input: this party is
// one of at least two parties with distinct ids, every address ends in a port in 1-65535, the
// node map names parties of the list, the timeouts are in (0, 86400] seconds, this party's data
// file is named, and the public spec holds no data path (a party's files are its own fields).
// Nothing is read from the files the input names and no socket is opened.
#include <cstdint>
#include <string>

#include "dpadmm/party.h"
#include "fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace dpadmm;
  const std::string text(reinterpret_cast<const char*>(data), size);
  PartyFile f;
  try {
    f = ParsePartyFile(text, "party.json");
  } catch (const InputError& e) {
    if (std::string(e.what()).rfind("party.json", 0) != 0) {
      fuzz::Fail("a rejection does not name the party file first");
    }
    return 0;
  }
  const runtime::NetworkOptions& n = f.network;
  if (n.parties.size() < 2) fuzz::Fail("fewer than two parties accepted");
  bool self_listed = false;
  for (std::size_t p = 0; p < n.parties.size(); ++p) {
    const std::string& address = n.parties[p].address;
    const std::size_t colon = address.rfind(':');
    if (colon == std::string::npos || colon == 0) fuzz::Fail("an address without host:port");
    const std::string port = address.substr(colon + 1);
    if (port.empty() || port.size() > 5) fuzz::Fail("a port of the wrong length");
    for (char c : port) {
      if (c < '0' || c > '9') fuzz::Fail("a port that is not a number");
    }
    const int value = std::stoi(port);
    if (value < 1 || value > 65535) fuzz::Fail("a port outside 1-65535");
    for (std::size_t q = 0; q < p; ++q) {
      if (n.parties[q].id == n.parties[p].id) fuzz::Fail("a party id accepted twice");
    }
    self_listed = self_listed || n.parties[p].id == n.self;
  }
  if (!self_listed) fuzz::Fail("this party is not one of the parties");
  for (int party : n.node_parties) {
    if (party < 0 || party >= static_cast<int>(n.parties.size())) {
      fuzz::Fail("the node map names a party outside the list");
    }
  }
  for (double t : {n.setup_timeout_seconds, n.peer_timeout_seconds}) {
    if (!(t > 0.0 && t <= 86400.0)) fuzz::Fail("a timeout outside (0, 86400] seconds");
  }
  if (f.data.empty()) fuzz::Fail("no data file accepted");
  if (f.spec.data.train_path != f.data || f.spec.data.test_path != f.test) {
    fuzz::Fail("the spec's data paths are not this party's own fields");
  }
  return 0;
}
