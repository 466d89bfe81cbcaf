// Engines against an independent synchronous reference, and against each other bit for bit.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <memory>
#include <thread>
#include <vector>

#include "dpadmm/runtime/engine.h"

namespace rt = dpadmm::runtime;

namespace {

// A toy averaging process with a nonlinear twist, so that any mix-up of rounds or neighbours
// changes the bits: x_i(r) = 0.5 x_i(r-1) + 0.5 mean_j x_j(r-1) + sin(r + i) / (1 + r).
// Node `fail_node` fails at `fail_round`. Messages carry (round, x) so the program can assert
// it received the right round.
class ToyProgram : public rt::NodeProgram {
 public:
  ToyProgram(int id, int fail_node, std::int64_t fail_round)
      : id_(id), fail_node_(fail_node), fail_round_(fail_round), x_(id) {}
  std::size_t MaxMessageSize() const override { return 2; }
  std::size_t ReportSize() const override { return 2; }
  rt::StepResult Start(rt::Outbox& out) override {
    Send(0, out);
    return rt::StepResult::Ok();
  }
  rt::StepResult Step(std::int64_t round, const rt::Inbox& in, rt::Outbox& out) override {
    double sum = 0.0;
    for (std::size_t k = 0; k < in.size(); ++k) {
      if (in[k][0] != static_cast<double>(round - 1)) return rt::StepResult::Fail("wrong round");
      sum += in[k][1];
    }
    x_ = 0.5 * x_ + 0.5 * sum / static_cast<double>(in.size()) +
         std::sin(static_cast<double>(round + id_)) / (1.0 + static_cast<double>(round));
    if (id_ == fail_node_ && round == fail_round_) return rt::StepResult::Fail("planted failure");
    Send(round, out);
    return rt::StepResult::Ok();
  }
  void Report(std::int64_t round, std::span<double> out) const override {
    out[0] = static_cast<double>(round);
    out[1] = x_;
  }

 private:
  void Send(std::int64_t round, rt::Outbox& out) {
    auto m = out.Prepare(2);
    m[0] = static_cast<double>(round);
    m[1] = x_;
  }
  int id_;
  int fail_node_;
  std::int64_t fail_round_;
  double x_;
};

struct Recorder : rt::RoundSink {
  std::vector<std::vector<double>> rows;  // one per round: x of every node
  std::int64_t stop_after = -1;
  bool in_order = true;
  bool OnRound(std::int64_t round, const rt::ReportTable& t) override {
    if (round != static_cast<std::int64_t>(rows.size())) in_order = false;
    std::vector<double> xs;
    for (int i = 0; i < t.nodes(); ++i) {
      if (t[i][0] != static_cast<double>(round)) in_order = false;
      xs.push_back(t[i][1]);
    }
    rows.push_back(xs);
    return round != stop_after;
  }
};

rt::Topology Ring(int n) {
  rt::Topology t;
  t.neighbors.resize(n);
  for (int i = 0; i < n; ++i) t.neighbors[i] = {(i + n - 1) % n, (i + 1) % n};
  return t;
}
rt::Topology Star(int n) {
  rt::Topology t;
  t.neighbors.resize(n);
  for (int i = 1; i < n; ++i) {
    t.neighbors[0].push_back(i);
    t.neighbors[i].push_back(0);
  }
  return t;
}
rt::Topology Complete(int n) {
  rt::Topology t;
  t.neighbors.resize(n);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      if (i != j) t.neighbors[i].push_back(j);
  return t;
}

struct Outcome {
  rt::EngineResult result;
  Recorder recorder;
};

Outcome RunToy(const rt::Topology& t, rt::EngineKind kind, int threads, std::int64_t rounds,
               int fail_node = -1, std::int64_t fail_round = -1, int window = 0,
               std::int64_t stop_after = -1) {
  std::vector<std::unique_ptr<ToyProgram>> owned;
  std::vector<rt::NodeProgram*> programs;
  for (int i = 0; i < t.num_nodes(); ++i) {
    owned.push_back(std::make_unique<ToyProgram>(i, fail_node, fail_round));
    programs.push_back(owned.back().get());
  }
  rt::EngineOptions options;
  options.kind = kind;
  options.threads = threads;
  options.last_round = rounds;
  options.report_window = window;
  Outcome o;
  o.recorder.stop_after = stop_after;
  o.result = rt::Run(programs, t, options, o.recorder);
  return o;
}

// Independent synchronous reference of the toy process.
std::vector<std::vector<double>> Reference(const rt::Topology& t, std::int64_t rounds) {
  const int n = t.num_nodes();
  std::vector<std::vector<double>> out;
  std::vector<double> x(n);
  for (int i = 0; i < n; ++i) x[i] = i;
  out.push_back(x);
  for (std::int64_t r = 1; r <= rounds; ++r) {
    std::vector<double> next(n);
    for (int i = 0; i < n; ++i) {
      double sum = 0.0;
      for (int j : t.neighbors[i]) sum += x[j];
      next[i] = 0.5 * x[i] + 0.5 * sum / static_cast<double>(t.neighbors[i].size()) +
                std::sin(static_cast<double>(r + i)) / (1.0 + static_cast<double>(r));
    }
    x = next;
    out.push_back(x);
  }
  return out;
}

}  // namespace

class EngineTopologies : public ::testing::TestWithParam<int> {};

TEST_P(EngineTopologies, BothEnginesMatchTheSynchronousReferenceBitForBit) {
  const rt::Topology topologies[] = {Ring(7), Star(9), Complete(6), Ring(64)};
  const rt::Topology& t = topologies[GetParam()];
  const auto ref = Reference(t, 40);
  const auto serial = RunToy(t, rt::EngineKind::kSerial, 0, 40);
  EXPECT_EQ(serial.result.outcome, rt::EngineOutcome::kCompleted);
  EXPECT_EQ(serial.result.last_reported_round, 40);
  EXPECT_EQ(serial.recorder.rows, ref);
  for (int threads : {1, 2, 4, 8}) {
    const auto par = RunToy(t, rt::EngineKind::kTbb, threads, 40);
    EXPECT_EQ(par.result.outcome, rt::EngineOutcome::kCompleted) << threads;
    EXPECT_EQ(par.result.last_reported_round, 40);
    EXPECT_TRUE(par.recorder.in_order);
    EXPECT_EQ(par.recorder.rows, ref) << "threads " << threads;
  }
}
INSTANTIATE_TEST_SUITE_P(Shapes, EngineTopologies, ::testing::Values(0, 1, 2, 3));

TEST(Engine, SmallReportWindowForcesParkingAndStaysExact) {
  // A long ring lets nodes drift apart by many rounds; a window of 2 makes them park.
  const rt::Topology t = Ring(50);
  const auto ref = Reference(t, 60);
  for (int rep = 0; rep < 5; ++rep) {
    const auto par = RunToy(t, rt::EngineKind::kTbb, 4, 60, -1, -1, /*window=*/2);
    EXPECT_EQ(par.result.outcome, rt::EngineOutcome::kCompleted);
    EXPECT_EQ(par.recorder.rows, ref);
  }
}

TEST(Engine, FailureNamesLowestNodeAndRoundInBothEngines) {
  const rt::Topology t = Ring(12);
  for (auto kind : {rt::EngineKind::kSerial, rt::EngineKind::kTbb}) {
    const auto o = RunToy(t, kind, 4, 30, /*fail_node=*/5, /*fail_round=*/17);
    EXPECT_EQ(o.result.outcome, rt::EngineOutcome::kFailed);
    EXPECT_EQ(o.result.failure.node, 5);
    EXPECT_EQ(o.result.failure.round, 17);
    EXPECT_EQ(o.result.failure.message, "planted failure");
    EXPECT_EQ(o.result.last_reported_round, 16);
    ASSERT_EQ(o.recorder.rows.size(), 17u);
  }
}

TEST(Engine, FailureInRoundZeroIsReported) {
  class Bad : public ToyProgram {
   public:
    Bad() : ToyProgram(0, -1, -1) {}
    rt::StepResult Start(rt::Outbox&) override { return rt::StepResult::Fail("no start"); }
  };
  Bad a, b;
  std::vector<rt::NodeProgram*> programs{&a, &b};
  rt::Topology t;
  t.neighbors = {{1}, {0}};
  Recorder rec;
  for (auto kind : {rt::EngineKind::kSerial, rt::EngineKind::kTbb}) {
    rt::EngineOptions o;
    o.kind = kind;
    o.last_round = 3;
    const auto r = rt::Run(programs, t, o, rec);
    EXPECT_EQ(r.outcome, rt::EngineOutcome::kFailed);
    EXPECT_EQ(r.failure.node, 0);
    EXPECT_EQ(r.failure.round, 0);
  }
}

TEST(Engine, SinkCanStopTheRun) {
  const rt::Topology t = Ring(10);
  for (auto kind : {rt::EngineKind::kSerial, rt::EngineKind::kTbb}) {
    const auto o = RunToy(t, kind, 2, 100, -1, -1, 0, /*stop_after=*/9);
    EXPECT_EQ(o.result.outcome, rt::EngineOutcome::kStopped);
    EXPECT_EQ(o.result.last_reported_round, 9);
    EXPECT_EQ(o.recorder.rows.size(), 10u);
  }
}

TEST(Engine, CancellationFromAnotherThread) {
  // A sink that blocks until the stop has been requested makes the test independent of timing.
  struct SlowSink : rt::RoundSink {
    rt::StopToken* token;
    std::atomic<std::int64_t> seen{-1};
    bool OnRound(std::int64_t round, const rt::ReportTable&) override {
      seen = round;
      if (round == 3) {
        std::thread([t = token] { t->RequestStop(); }).join();
      }
      return true;
    }
  };
  for (auto kind : {rt::EngineKind::kSerial, rt::EngineKind::kTbb}) {
    rt::StopToken token;
    SlowSink sink;
    sink.token = &token;
    const rt::Topology t = Ring(8);
    std::vector<std::unique_ptr<ToyProgram>> owned;
    std::vector<rt::NodeProgram*> programs;
    for (int i = 0; i < 8; ++i) {
      owned.push_back(std::make_unique<ToyProgram>(i, -1, -1));
      programs.push_back(owned.back().get());
    }
    rt::EngineOptions o;
    o.kind = kind;
    o.threads = 2;
    o.last_round = 1'000'000;
    o.stop = &token;
    const auto r = rt::Run(programs, t, o, sink);
    EXPECT_EQ(r.outcome, rt::EngineOutcome::kCancelled);
    EXPECT_GE(r.last_reported_round, 3);
    EXPECT_LT(r.last_reported_round, 1'000'000);
  }
}

TEST(Engine, RejectsInconsistentInput) {
  ToyProgram a(0, -1, -1), b(1, -1, -1);
  std::vector<rt::NodeProgram*> programs{&a, &b};
  Recorder rec;
  rt::EngineOptions o;
  o.last_round = 2;
  rt::Topology asym;
  asym.neighbors = {{1}, {}};
  EXPECT_THROW(rt::Run(programs, asym, o, rec), std::invalid_argument);
  rt::Topology self;
  self.neighbors = {{0}, {}};
  EXPECT_THROW(rt::Run(programs, self, o, rec), std::invalid_argument);
  rt::Topology three = Ring(3);
  EXPECT_THROW(rt::Run(programs, three, o, rec), std::invalid_argument);
  EXPECT_THROW(rt::ParseEngineKind("gpu"), std::invalid_argument);
}

TEST(Engine, SeveralRunsShareTheProcessConcurrently) {
  const rt::Topology t = Ring(16);
  const auto ref = Reference(t, 30);
  std::vector<std::thread> threads;
  std::atomic<int> good{0};
  for (int k = 0; k < 3; ++k) {
    threads.emplace_back([&] {
      const auto o = RunToy(t, rt::EngineKind::kTbb, 2, 30);
      if (o.recorder.rows == ref) ++good;
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(good.load(), 3);
}
