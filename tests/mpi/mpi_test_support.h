// SPDX-License-Identifier: Apache-2.0
// Shared by the MPI tests and the MPI benchmark: a deterministic node program, topologies that
// every rank builds identically, and a recording sink.
#pragma once

#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <thread>
#include <vector>

#include "dpadmm/runtime/engine.h"
#include "dpadmm/runtime/mpi.h"

namespace dpadmm::mpitest {

namespace rt = dpadmm::runtime;

// The averaging process of tests/test_engine.cpp with a nonlinear twist, so that any mix-up of
// rounds or neighbours changes the bits: x_i(r) = 0.5 x_i(r-1) + 0.5 mean_j x_j(r-1)
// + sin(r + i) / (1 + r). Messages carry (round, x, padding...) so the program can check it got
// the right round; `width` pads messages to a chosen length. Faults are planted per node.
struct Fault {
  int node = -1;
  std::int64_t round = -1;
  // kStall: sleeps 3 s in `round`, then goes on; kSlow: sleeps 100 ms in every round >= `round`;
  // kHang: stops its whole process (SIGSTOP) in `round` (the network engine's hung party).
  enum Kind { kFail, kThrow, kKill, kStall, kSlow, kHang } kind = kFail;
};

class ToyProgram : public rt::NodeProgram {
 public:
  ToyProgram(int id, std::vector<Fault> faults, std::size_t width = 2)
      : id_(id), faults_(std::move(faults)), width_(width), x_(id) {}
  std::size_t MaxMessageSize() const override { return width_; }
  std::size_t ReportSize() const override { return 2; }
  rt::StepResult Start(rt::Outbox& out) override {
    if (auto f = Planted(0)) return *f;
    Send(0, out);
    return rt::StepResult::Ok();
  }
  rt::StepResult Step(std::int64_t round, const rt::Inbox& in, rt::Outbox& out) override {
    double sum = 0.0;
    for (std::size_t k = 0; k < in.size(); ++k) {
      if (in[k].size() != width_ || in[k][0] != static_cast<double>(round - 1)) {
        return rt::StepResult::Fail("wrong message");
      }
      sum += in[k][1];
    }
    const double mean = in.size() > 0 ? sum / static_cast<double>(in.size()) : x_;
    x_ = 0.5 * x_ + 0.5 * mean +
         std::sin(static_cast<double>(round + id_)) / (1.0 + static_cast<double>(round));
    if (auto f = Planted(round)) return *f;
    Send(round, out);
    return rt::StepResult::Ok();
  }
  void Report(std::int64_t round, std::span<double> out) const override {
    out[0] = static_cast<double>(round);
    out[1] = x_;
  }

 private:
  std::optional<rt::StepResult> Planted(std::int64_t round) const {
    for (const Fault& f : faults_) {
      if (f.kind == Fault::kSlow && f.node == id_ && round >= f.round) {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        continue;
      }
      if (f.node != id_ || f.round != round) continue;
      if (f.kind == Fault::kThrow) throw std::runtime_error("planted exception");
      if (f.kind == Fault::kKill) std::raise(SIGKILL);
      if (f.kind == Fault::kHang) std::raise(SIGSTOP);
      if (f.kind == Fault::kStall) {
        std::this_thread::sleep_for(std::chrono::seconds(3));
        continue;
      }
      return rt::StepResult::Fail("planted failure");
    }
    return std::nullopt;
  }
  void Send(std::int64_t round, rt::Outbox& out) {
    auto m = out.Prepare(width_);
    m[0] = static_cast<double>(round);
    m[1] = x_;
    for (std::size_t k = 2; k < width_; ++k) m[k] = x_ * static_cast<double>(k);
  }
  int id_;
  std::vector<Fault> faults_;
  std::size_t width_;
  double x_;
};

// Keeps every report row; can stop the run or trigger a StopToken after a given round.
struct Recorder : rt::RoundSink {
  std::vector<std::vector<double>> rows;  // one per round: the full report table
  std::int64_t stop_after = -1;
  std::int64_t cancel_after = -1;
  rt::StopToken* token = nullptr;
  bool in_order = true;
  bool OnRound(std::int64_t round, const rt::ReportTable& t) override {
    if (round != static_cast<std::int64_t>(rows.size())) in_order = false;
    std::vector<double> row;
    for (int i = 0; i < t.nodes(); ++i) row.insert(row.end(), t[i].begin(), t[i].end());
    rows.push_back(std::move(row));
    if (round == cancel_after && token != nullptr) token->RequestStop();
    return round != stop_after;
  }
};

// Deterministic on every rank (no library RNG whose sequence could differ).
inline std::uint64_t NextRandom(std::uint64_t& s) {
  s = s * 6364136223846793005ULL + 1442695040888963407ULL;
  return s >> 33;
}

inline rt::Topology Ring(int n) {
  rt::Topology t;
  t.neighbors.resize(n);
  if (n == 2) {
    t.neighbors = {{1}, {0}};
  } else if (n > 2) {
    for (int i = 0; i < n; ++i) t.neighbors[i] = {(i + n - 1) % n, (i + 1) % n};
  }
  return t;
}
inline rt::Topology Star(int n) {
  rt::Topology t;
  t.neighbors.resize(n);
  for (int i = 1; i < n; ++i) {
    t.neighbors[0].push_back(i);
    t.neighbors[i].push_back(0);
  }
  return t;
}
inline rt::Topology Complete(int n) {
  rt::Topology t;
  t.neighbors.resize(n);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      if (i != j) t.neighbors[i].push_back(j);
  return t;
}
// A ring (so it is connected) plus `extra` random chords per node, neighbour lists shuffled so
// that inbox order is not sorted.
inline rt::Topology RandomGraph(int n, int extra, std::uint64_t seed) {
  std::vector<std::vector<char>> adj(n, std::vector<char>(n, 0));
  for (int i = 0; i < n && n > 1; ++i) adj[i][(i + 1) % n] = adj[(i + 1) % n][i] = 1;
  for (int i = 0; i < n; ++i) {
    for (int e = 0; e < extra; ++e) {
      const int j = static_cast<int>(NextRandom(seed) % static_cast<std::uint64_t>(n));
      if (j != i) adj[i][j] = adj[j][i] = 1;
    }
  }
  rt::Topology t;
  t.neighbors.resize(n);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j)
      if (adj[i][j]) t.neighbors[i].push_back(j);
    for (std::size_t k = t.neighbors[i].size(); k > 1; --k) {
      std::swap(t.neighbors[i][k - 1], t.neighbors[i][NextRandom(seed) % k]);
    }
  }
  return t;
}

// Programs for the given nodes (all nodes when `nodes` lists 0..n-1).
inline std::vector<std::unique_ptr<ToyProgram>> MakePrograms(const std::vector<int>& nodes,
                                                             const std::vector<Fault>& faults,
                                                             std::size_t width = 2) {
  std::vector<std::unique_ptr<ToyProgram>> owned;
  for (int i : nodes) owned.push_back(std::make_unique<ToyProgram>(i, faults, width));
  return owned;
}
template <class Program>
std::vector<rt::NodeProgram*> Pointers(const std::vector<std::unique_ptr<Program>>& o) {
  std::vector<rt::NodeProgram*> p;
  for (const auto& x : o) p.push_back(x.get());
  return p;
}

}  // namespace dpadmm::mpitest
