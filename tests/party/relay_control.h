// SPDX-License-Identifier: Apache-2.0
// The fault-injecting relay (tests/party/relay.py) from a test: started with one link per
// party (each on a port the system picks, forwarded to the party's listen port), driven over
// its control socket, and always ended (quit, then killed and reaped).
#pragma once

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "party_launch.h"

namespace dpadmm::partytest {

class Relay {
 public:
  // Links k = 0.. forward to 127.0.0.1:targets[k]; `flags` go to relay.py (delay, jitter,
  // rate); the relay exits by itself after `lifetime` seconds.
  Relay(const fs::path& dir, const std::vector<int>& targets, const std::vector<std::string>& flags,
        double lifetime) {
    const fs::path ready = dir / "relay.ready";
    fs::remove(ready);
    std::vector<std::string> args = {DPADMM_PYTHON3, DPADMM_RELAY, "--ready",
                                     ready.string(), "--lifetime", std::to_string(lifetime)};
    for (int t : targets) {
      args.push_back("--link");
      args.push_back("127.0.0.1:0=127.0.0.1:" + std::to_string(t));
    }
    args.insert(args.end(), flags.begin(), flags.end());
    std::fflush(nullptr);
    pid_ = fork();
    if (pid_ == 0) {
      const std::string log = (dir / "relay.log").string();
      if (!freopen(log.c_str(), "w", stdout) || !freopen(log.c_str(), "a", stderr)) _exit(126);
      std::vector<char*> argv;
      for (auto& s : args) argv.push_back(s.data());
      argv.push_back(nullptr);
      execv(argv[0], argv.data());
      _exit(127);
    }
    // Ready within 20 s: "CONTROL_PORT LINK_PORT...".
    for (int k = 0; k < 400 && !fs::exists(ready); ++k) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    std::stringstream in(ReadAll(ready));
    in >> control_;
    for (int port; in >> port;) ports_.push_back(port);
    if (ports_.size() != targets.size()) {
      ADD_FAILURE() << "the relay did not start: " << ReadAll(dir / "relay.log");
    }
  }
  ~Relay() {
    if (control_ > 0) (void)Command("quit");
    if (pid_ > 0) {
      int status = 0;
      for (int k = 0; k < 100 && waitpid(pid_, &status, WNOHANG) == 0; ++k) {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      }
      if (waitpid(pid_, &status, WNOHANG) == 0) {
        kill(pid_, SIGKILL);
        waitpid(pid_, &status, 0);
      }
    }
  }
  Relay(const Relay&) = delete;
  Relay& operator=(const Relay&) = delete;

  bool ok() const { return !ports_.empty(); }
  int port(int k) const { return ports_.at(static_cast<std::size_t>(k)); }

  // One command, its reply line ("ok ..." or "error ..."; "" when the relay cannot be reached).
  std::string Command(const std::string& line) const {
    const int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = htons(static_cast<std::uint16_t>(control_));
    timeval tv{5, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    std::string reply;
    if (fd >= 0 && connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0) {
      const std::string text = line + "\n";
      if (write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size())) {
        char c = 0;
        while (read(fd, &c, 1) == 1 && c != '\n') reply += c;
      }
    }
    if (fd >= 0) close(fd);
    return reply;
  }

 private:
  pid_t pid_ = -1;
  int control_ = 0;
  std::vector<int> ports_;
};

}  // namespace dpadmm::partytest
