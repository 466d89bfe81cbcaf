// SPDX-License-Identifier: Apache-2.0
// The network engine's option checks: no gRPC, built everywhere (the checks run before anything
// listens or dials).
#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <set>
#include <string>

#include "dpadmm/runtime/network.h"
#include "network_config.h"

namespace dpadmm::runtime {

namespace {

[[noreturn]] void Refuse(const std::string& what) {
  throw NetworkError(NetworkError::Kind::kConfig, "", what);
}

bool ValidId(const std::string& id) {
  if (id.empty() || id.size() > 63) return false;
  for (char c : id) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')) return false;
  }
  return id.front() != '-' && id.back() != '-';
}

void RequireFile(const std::string& path, const char* field) {
  struct stat st {};
  if (path.empty()) Refuse(std::string(field) + " is required (or choose insecure mode)");
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) {
    Refuse(std::string(field) + " '" + path + "' is not a readable file");
  }
}

}  // namespace

namespace detail {

HostPort SplitHostPort(const std::string& address) {
  HostPort hp;
  std::string port;
  if (!address.empty() && address.front() == '[') {
    const auto close = address.find(']');
    if (close == std::string::npos || close + 1 >= address.size() || address[close + 1] != ':') {
      return {};
    }
    hp.host = address.substr(1, close - 1);
    port = address.substr(close + 2);
  } else {
    const auto colon = address.rfind(':');
    if (colon == std::string::npos || address.find(':') != colon) return {};
    hp.host = address.substr(0, colon);
    port = address.substr(colon + 1);
  }
  if (hp.host.empty() || port.empty() || port.size() > 5) return {};
  int value = 0;
  for (char c : port) {
    if (c < '0' || c > '9') return {};
    value = value * 10 + (c - '0');
  }
  if (value < 1 || value > 65535) return {};
  hp.port = value;
  return hp;
}

}  // namespace detail

bool IsLoopbackHost(const std::string& host) {
  if (host == "localhost" || host == "::1" || host == "[::1]") return true;
  // 127.a.b.c with decimal octets.
  int octets = 0;
  std::size_t at = 0;
  while (at <= host.size()) {
    const auto dot = host.find('.', at);
    const std::string part =
        host.substr(at, dot == std::string::npos ? std::string::npos : dot - at);
    if (part.empty() || part.size() > 3) return false;
    int v = 0;
    for (char c : part) {
      if (c < '0' || c > '9') return false;
      v = v * 10 + (c - '0');
    }
    if (v > 255 || (octets == 0 && v != 127)) return false;
    ++octets;
    if (dot == std::string::npos) break;
    at = dot + 1;
  }
  return octets == 4;
}

std::vector<int> PartyNodes(std::span<const int> node_parties, int party) {
  std::vector<int> nodes;
  for (std::size_t i = 0; i < node_parties.size(); ++i) {
    if (node_parties[i] == party) nodes.push_back(static_cast<int>(i));
  }
  return nodes;
}

int SelfIndex(const NetworkOptions& options) {
  for (std::size_t p = 0; p < options.parties.size(); ++p) {
    if (options.parties[p].id == options.self) return static_cast<int>(p);
  }
  return -1;
}

std::string ReadPrivateKeyFile(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) Refuse("private key '" + path + "': cannot be read");
  if (!S_ISREG(st.st_mode)) Refuse("private key '" + path + "': not a regular file");
  if ((st.st_mode & 077) != 0) {
    char mode[8];
    std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
    Refuse("private key '" + path + "' is accessible by group or others (mode " + mode +
           "): run chmod 600 on it");
  }
  if (st.st_size > (1 << 20)) Refuse("private key '" + path + "': larger than 1 MB");
  std::ifstream in(path, std::ios::binary);
  if (!in) Refuse("private key '" + path + "': cannot be opened");
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void ValidateNetworkOptions(const NetworkOptions& o, int nodes) {
  if (o.parties.size() < 2) Refuse("a network run needs at least 2 parties");
  std::set<std::string> ids, addresses;
  int self = -1;
  for (std::size_t p = 0; p < o.parties.size(); ++p) {
    const PartyAddress& a = o.parties[p];
    const std::string who = "party " + std::to_string(p) + " ('" + a.id + "'): ";
    if (!ValidId(a.id)) {
      Refuse(who +
             "a party id is 1-63 characters of a-z, 0-9 and '-', not starting or "
             "ending with '-' (it is the certificate's subject alternative name)");
    }
    if (!ids.insert(a.id).second) Refuse(who + "the id appears twice");
    if (!addresses.insert(a.address).second) Refuse(who + "the address appears twice");
    const detail::HostPort hp = detail::SplitHostPort(a.address);
    if (hp.port == 0) Refuse(who + "address '" + a.address + "' is not host:port");
    if (o.insecure && !IsLoopbackHost(hp.host)) {
      Refuse(who + "insecure (plaintext) mode allows loopback addresses only, got '" + a.address +
             "'");
    }
    if (!a.listen.empty()) {
      const detail::HostPort lp = detail::SplitHostPort(a.listen);
      if (lp.port == 0) Refuse(who + "listen address '" + a.listen + "' is not host:port");
      if (o.insecure && !IsLoopbackHost(lp.host)) {
        Refuse(who + "insecure (plaintext) mode allows loopback addresses only, got listen '" +
               a.listen + "'");
      }
    }
    if (a.id == o.self) self = static_cast<int>(p);
  }
  if (self < 0) Refuse("this party's id '" + o.self + "' is not in the party list");
  if (o.spec_fields.size() > kMaxSpecFields) {
    Refuse("spec fields: " + std::to_string(o.spec_fields.size()) + ", at most " +
           std::to_string(kMaxSpecFields));
  }
  for (const SpecField& f : o.spec_fields) {
    if (f.name.empty() || f.name.size() > 128 || f.digest.size() > 64) {
      Refuse("spec field '" + f.name.substr(0, 128) +
             "': a name of 1-128 bytes and a digest of at most 64 bytes");
    }
  }
  if (static_cast<int>(o.node_parties.size()) != nodes) {
    Refuse("node-to-party map has " + std::to_string(o.node_parties.size()) + " entries for " +
           std::to_string(nodes) + " nodes");
  }
  for (int i = 0; i < nodes; ++i) {
    const int p = o.node_parties[static_cast<std::size_t>(i)];
    if (p < 0 || p >= static_cast<int>(o.parties.size())) {
      Refuse("node-to-party map: node " + std::to_string(i) + " on party " + std::to_string(p) +
             ", but there are " + std::to_string(o.parties.size()) + " parties");
    }
  }
  if (!(o.setup_timeout_seconds > 0) || !(o.peer_timeout_seconds > 0)) {
    Refuse("setup_timeout_seconds and peer_timeout_seconds must be > 0");
  }
  if (!o.insecure) {
    RequireFile(o.tls.ca_cert, "the CA certificate");
    RequireFile(o.tls.cert, "this party's certificate");
    RequireFile(o.tls.key, "this party's private key");
    (void)ReadPrivateKeyFile(o.tls.key);  // the mode check, before anything starts
  }
}

}  // namespace dpadmm::runtime
