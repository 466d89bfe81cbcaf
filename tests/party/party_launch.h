// SPDX-License-Identifier: Apache-2.0
// What the tests that launch party processes share: reading their outputs and picking free
// loopback ports.
#pragma once

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace dpadmm::partytest {

namespace fs = std::filesystem;

inline std::string ReadAll(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

inline std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::stringstream s(text);
  for (std::string l; std::getline(s, l);) lines.push_back(l);
  return lines;
}

// Loopback ports held bound (not listening) until Release() or the end of the object: while
// held, nothing else that binds port 0 (a relay started meanwhile, another test) can be given
// one of them. The sockets are close-on-exec, so a child started meanwhile does not keep them.
class HeldPorts {
 public:
  explicit HeldPorts(int k) {
    for (int i = 0; i < k; ++i) {
      const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
      sockaddr_in addr{};
      addr.sin_family = AF_INET;
      addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
      socklen_t len = sizeof addr;
      if (fd >= 0) fds_.push_back(fd);
      if (fd < 0 || bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
          getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
        ADD_FAILURE() << "cannot bind a loopback port";
        Release();
        ports_.clear();
        return;
      }
      ports_.push_back(ntohs(addr.sin_port));
    }
  }
  HeldPorts(const HeldPorts&) = delete;
  HeldPorts& operator=(const HeldPorts&) = delete;
  ~HeldPorts() { Release(); }

  const std::vector<int>& ports() const { return ports_; }
  // Frees the ports for the processes that are to listen on them.
  void Release() {
    for (int fd : fds_) close(fd);
    fds_.clear();
  }

 private:
  std::vector<int> fds_, ports_;
};

// Ports free on 127.0.0.1 right now (bound together, then released).
inline std::vector<int> FreePorts(int k) { return HeldPorts(k).ports(); }

// True when a party's error output says its listen port was taken (by another test between
// the choice of the port and the party's bind): the launch is run again on fresh ports.
inline bool SaysPortTaken(const std::string& err) {
  return err.find("cannot listen") != std::string::npos;
}

// True when a party of `ends` (each with its error output in `err`) ended so.
template <class Ends>
bool PortTaken(const Ends& ends) {
  for (const auto& e : ends) {
    if (SaysPortTaken(e.err)) return true;
  }
  return false;
}

}  // namespace dpadmm::partytest
