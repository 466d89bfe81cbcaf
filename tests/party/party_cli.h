// SPDX-License-Identifier: Apache-2.0
// `dpadmm party` processes for the CLI-level tests (checkpoints, faults): the data files of a
// 3-party run (one generated data set split into row blocks), party files with fresh loopback
// ports, and processes launched, signalled and always reaped (a process still alive at the
// bound is killed and the test fails; the destructor kills and reaps whatever is left).
#pragma once

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "dpadmm/data/generators.h"
#include "party_launch.h"

namespace dpadmm::partytest {

// A row as LIBSVM text whose values read back to the same doubles.
inline void WriteLibsvmRows(std::ofstream& out, const Dataset& data, std::int64_t begin,
                            std::int64_t end) {
  const auto& x = std::get<DenseRows>(data.x);
  for (std::int64_t r = begin; r < end; ++r) {
    char buf[64];
    out << (data.y[r] > 0 ? "1" : "-1");
    for (Eigen::Index c = 0; c < x.cols(); ++c) {
      std::snprintf(buf, sizeof buf, " %ld:%.17g", static_cast<long>(c + 1), x(r, c));
      out << buf;
    }
    out << '\n';
  }
}

// A CSV row with field `skip` (the wall time) blanked.
inline std::string WithoutColumn(const std::string& row, std::size_t skip) {
  std::vector<std::string> fields;
  std::stringstream s(row);
  for (std::string f; std::getline(s, f, ',');) fields.push_back(f);
  if (skip < fields.size()) fields[skip] = "-";
  std::string out;
  for (const auto& f : fields) out += f + ",";
  return out;
}

// A trace CSV's rows with the `seconds` column blanked (the header kept as is).
inline std::vector<std::string> TraceWithoutSeconds(const fs::path& path) {
  std::vector<std::string> lines = Lines(ReadAll(path));
  std::size_t seconds = std::string::npos;
  for (auto& line : lines) {
    if (line.rfind("round,", 0) == 0) {
      std::stringstream h(line);
      std::string f;
      for (std::size_t k = 0; std::getline(h, f, ','); ++k) {
        if (f == "seconds") seconds = k;
      }
      continue;
    }
    if (seconds != std::string::npos) line = WithoutColumn(line, seconds);
  }
  return lines;
}

struct PartyEnd {
  int exit_code = -1;  // -1: ended by a signal
  int signal = 0;
  bool killed_by_test = false;  // still alive at the bound
  double seconds = 0;           // from Wait's start to its end
  std::string out, err;
};

// The party processes of one test: started with Start, ended with Wait or Signal; the
// destructor SIGKILLs and reaps any left.
class PartyGroup {
 public:
  PartyGroup() = default;
  PartyGroup(const PartyGroup&) = delete;
  PartyGroup& operator=(const PartyGroup&) = delete;
  ~PartyGroup() { KillAll(); }

  // Starts `args` (argv[0] the program) with stdout/stderr to out_file/err_file.
  void Start(int p, std::vector<std::string> args, const fs::path& out_file,
             const fs::path& err_file) {
    if (static_cast<int>(pids_.size()) <= p) pids_.resize(static_cast<std::size_t>(p) + 1, -1);
    std::fflush(nullptr);  // nothing buffered is written twice (by the child's freopen)
    const pid_t pid = fork();
    if (pid == 0) {
      if (!freopen(out_file.c_str(), "w", stdout) || !freopen(err_file.c_str(), "w", stderr)) {
        _exit(126);
      }
      std::vector<char*> argv;
      for (auto& s : args) argv.push_back(s.data());
      argv.push_back(nullptr);
      execv(argv[0], argv.data());
      _exit(127);
    }
    pids_[p] = pid;
  }
  bool Running(int p) const { return p < static_cast<int>(pids_.size()) && pids_[p] > 0; }
  void Signal(int p, int sig) const {
    if (Running(p)) kill(pids_[p], sig);
  }
  // Waits for party p up to `bound` seconds; then kills it (killed_by_test).
  PartyEnd Wait(int p, double bound) {
    PartyEnd e;
    if (!Running(p)) return e;
    const auto start = std::chrono::steady_clock::now();
    const auto deadline = start + std::chrono::duration<double>(bound);
    int status = 0;
    while (waitpid(pids_[p], &status, WNOHANG) != pids_[p]) {
      if (std::chrono::steady_clock::now() > deadline) {
        e.killed_by_test = true;
        kill(pids_[p], SIGKILL);
        waitpid(pids_[p], &status, 0);
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    pids_[p] = -1;
    e.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    e.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    e.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    return e;
  }
  // Whether party p has ended (reaped then; its end in `e`).
  bool Ended(int p, PartyEnd* e) {
    int status = 0;
    if (!Running(p) || waitpid(pids_[p], &status, WNOHANG) != pids_[p]) return false;
    pids_[p] = -1;
    e->exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    e->signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    return true;
  }
  void KillAll() {
    for (pid_t& pid : pids_) {
      if (pid <= 0) continue;
      kill(pid, SIGCONT);
      kill(pid, SIGKILL);
      waitpid(pid, nullptr, 0);
      pid = -1;
    }
  }

 private:
  std::vector<pid_t> pids_;
};

// Party files of a run of `parties` `dpadmm party` processes under `run`: data p<k>.libsvm,
// test.libsvm, outputs p<k>-trace.csv, p<k>-summary.json, p<k>-model.json.
class PartyRun {
 public:
  PartyRun(fs::path run, fs::path certs, int parties, int rows_per_party, int dims)
      : run_(std::move(run)), certs_(std::move(certs)), parties_(parties), dims_(dims) {
    fs::create_directories(run_);
    const Dataset all = GenerateTwonorm(rows_per_party * parties, 5, dims);
    const Dataset test_rows = GenerateTwonorm(30, 6, dims);
    std::ofstream test(run_ / "test.libsvm");
    WriteLibsvmRows(test, test_rows, 0, test_rows.rows());
    for (int p = 0; p < parties; ++p) {
      std::ofstream mine(run_ / (Id(p) + ".libsvm"));
      WriteLibsvmRows(mine, all, p * rows_per_party, (p + 1) * rows_per_party);
    }
  }
  static std::string Id(int p) { return "p" + std::to_string(p); }
  const fs::path& dir() const { return run_; }
  fs::path Out(int p, const std::string& what) const { return run_ / (Id(p) + "-" + what); }
  fs::path Config(int p) const { return run_ / ("party" + std::to_string(p) + ".json"); }

  // Writes the party files with fresh ports (tweak(p, file) may change party p's file).
  void WriteFiles(const nlohmann::json& spec, double setup_timeout, double peer_timeout,
                  const std::function<void(int, nlohmann::json&)>& tweak = {}) {
    const std::vector<int> ports = FreePorts(parties_);
    ASSERT_EQ(static_cast<int>(ports.size()), parties_);
    nlohmann::json list = nlohmann::json::array();
    for (int p = 0; p < parties_; ++p) {
      list.push_back({{"id", Id(p)}, {"address", "127.0.0.1:" + std::to_string(ports[p])}});
    }
    for (int p = 0; p < parties_; ++p) {
      const std::string id = Id(p);
      nlohmann::json file = {{"spec", spec},
                             {"party", id},
                             {"data", (run_ / (id + ".libsvm")).string()},
                             {"test", (run_ / "test.libsvm").string()},
                             {"parties", list},
                             {"tls",
                              {{"ca", (certs_ / "ca.pem").string()},
                               {"cert", (certs_ / (id + ".pem")).string()},
                               {"key", (certs_ / (id + ".key")).string()}}},
                             {"setup_timeout_seconds", setup_timeout},
                             {"peer_timeout_seconds", peer_timeout},
                             {"trace", Out(p, "trace.csv").string()},
                             {"summary", Out(p, "summary.json").string()},
                             {"model_out", Out(p, "model.json").string()}};
      if (tweak) tweak(p, file);
      std::ofstream(Config(p)) << file.dump(2);
    }
  }

  // Starts party p's `dpadmm party` (the party file, --quiet, then `extra`).
  void Start(PartyGroup& group, int p, const std::vector<std::string>& extra) const {
    std::vector<std::string> args = {DPADMM_CLI, "party", "--config", Config(p).string(),
                                     "--quiet"};
    args.insert(args.end(), extra.begin(), extra.end());
    group.Start(p, std::move(args), Out(p, "out.txt"), Out(p, "err.txt"));
  }
  // Waits for every party (each within `bound` seconds of the call), with its outputs.
  std::vector<PartyEnd> WaitAll(PartyGroup& group, double bound) const {
    std::vector<PartyEnd> ends;
    const auto start = std::chrono::steady_clock::now();
    for (int p = 0; p < parties_; ++p) {
      const double left =
          bound - std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      ends.push_back(group.Wait(p, std::max(left, 0.1)));
      ends.back().out = ReadAll(Out(p, "out.txt"));
      ends.back().err = ReadAll(Out(p, "err.txt"));
    }
    return ends;
  }
  int parties() const { return parties_; }

 private:
  fs::path run_, certs_;
  int parties_, dims_;
};

}  // namespace dpadmm::partytest
