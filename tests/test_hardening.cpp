// SPDX-License-Identifier: Apache-2.0
// Regression tests for inputs found by the libFuzzer harnesses (tests/fuzz; each input is also
// in the harness's seed corpus), and a planted data race that proves the ThreadSanitizer build
// of scripts/sanitizers.sh catches races between TBB-engine nodes.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "core/numeric_parse.h"
#include "dpadmm/core/error.h"
#include "dpadmm/data/loaders.h"
#include "dpadmm/graph/graph.h"
#include "dpadmm/party.h"
#include "dpadmm/run/spec_json.h"
#include "dpadmm/runtime/engine.h"
#include "dpadmm/sharing/sharing.h"
#include "test_helpers.h"

namespace dpadmm {
namespace {

using test::ThrowsInputError;

// nlohmann::json reports a number literal beyond the double range as out_of_range, not as a
// parse_error; it used to escape the JSON spec readers and end the process (std::terminate).
// Corpus: tests/fuzz/corpus/spec_json/crash_*number_overflow*.json.
TEST(Hardening, SpecJsonNumberOverflowIsInputError) {
  for (
      const char* text :
      {R"({"seed": 1e999})",
       R"({"schema": 2, "algorithm": {"name": "sharing", "sharing": {"rho": 1e999}}})",
       R"({"schema": 2, "algorithm": {"name": "sharing", "sharing": {"party_features": [-1e400]}}})"}) {
    RunSpec spec;
    const std::string before = SpecToJson(spec);
    EXPECT_TRUE(ThrowsInputError([&] { ApplySpecJson(text, "r.json", spec); },
                                 {"r.json", "outside the range of a double"}))
        << text;
    EXPECT_EQ(SpecToJson(spec), before) << "a rejected config changed the spec";
  }
}

// A numeric attribute spanning more than the double range (max - min = inf) was scaled as
// inf / inf = NaN. Corpus: tests/fuzz/corpus/adult/crash_range_overflow.
// The one strict number parser of user-typed numbers (core/numeric_parse.h), over a table of
// bad and good inputs; the command line applies it to every numeric flag (tests/cli case
// strict_numbers).
TEST(StrictNumbers, DoubleTable) {
  struct Case {
    const char* text;
    const char* error;  // "" = accepted
    double value;
  };
  for (const Case& c : std::vector<Case>{{"0.5", "", 0.5},
                                         {"+2", "", 2.0},
                                         {"-3e-2", "", -0.03},
                                         {".5", "", 0.5},
                                         {"1e308", "", 1e308},
                                         {"", "empty value", 0},
                                         {" 1", "decimal number", 0},
                                         {"1 ", "decimal number", 0},
                                         {"0x10", "decimal number", 0},
                                         {"0x1p3", "decimal number", 0},
                                         {"1abc", "decimal number", 0},
                                         {"1,5", "decimal number", 0},
                                         {"+", "decimal number", 0},
                                         {"++1", "decimal number", 0},
                                         {"+-1", "decimal number", 0},
                                         {"-", "decimal number", 0},
                                         {"inf", "finite", 0},
                                         {"-infinity", "finite", 0},
                                         {"nan", "finite", 0},
                                         {"1e999", "double range", 0},
                                         {"-1e999", "double range", 0},
                                         {"1e-400", "double range", 0}}) {
    double value = -7.0;
    const std::string error = internal::ParseStrictDouble(c.text, value);
    if (*c.error == '\0') {
      EXPECT_EQ(error, "") << c.text;
      EXPECT_EQ(value, c.value) << c.text;
    } else {
      EXPECT_NE(error.find(c.error), std::string::npos) << c.text << " -> " << error;
      EXPECT_EQ(value, -7.0) << "a rejected value was stored: " << c.text;
    }
  }
}

TEST(StrictNumbers, IntegerTable) {
  struct Case {
    const char* text;
    const char* error;
    std::int64_t value;
  };
  for (const Case& c : std::vector<Case>{{"10", "", 10},
                                         {"010", "", 10},  // decimal, never octal
                                         {"+7", "", 7},
                                         {"-2147483648", "", -2147483648LL},
                                         {"2147483647", "", 2147483647},
                                         {"2147483648", "out of range", 0},
                                         {"-2147483649", "out of range", 0},
                                         {"99999999999999999999999", "out of range", 0},
                                         {"", "empty value", 0},
                                         {"2.5", "must be an integer in", 0},
                                         {"1e3", "no exponent", 0},
                                         {"9.2e18", "no exponent", 0},
                                         {"1.0", "must be an integer in", 0},
                                         {"0x10", "must be an integer in", 0},
                                         {" 1", "must be an integer in", 0},
                                         {"1 ", "must be an integer in", 0},
                                         {"12abc", "must be an integer in", 0},
                                         {"+-1", "must be an integer in", 0}}) {
    int value = -7;
    const std::string error = internal::ParseStrictInteger(c.text, value);
    if (*c.error == '\0') {
      EXPECT_EQ(error, "") << c.text;
      EXPECT_EQ(value, c.value) << c.text;
    } else {
      EXPECT_NE(error.find(c.error), std::string::npos) << c.text << " -> " << error;
      EXPECT_EQ(value, -7) << "a rejected value was stored: " << c.text;
    }
  }
  // Unsigned fields: a negative value is out of range, not wrapped around.
  std::uint64_t seed = 5;
  EXPECT_NE(internal::ParseStrictInteger("-1", seed).find("out of range"), std::string::npos);
  EXPECT_EQ(seed, 5u);
  EXPECT_EQ(internal::ParseStrictInteger("18446744073709551615", seed), "");
  EXPECT_EQ(seed, 18446744073709551615ULL);
  std::int64_t big = 0;
  EXPECT_NE(internal::ParseStrictInteger("9223372036854775808", big).find("out of range"),
            std::string::npos);
}

// The JSON reader (also the wasm demo's entry point) applies the same rules to typed JSON
// numbers: integers written out, inside the field's range; doubles inside the double range.
TEST(StrictNumbers, SpecJsonTable) {
  struct Case {
    const char* json;
    const char* error;
  };
  for (const Case& c : std::vector<Case>{
           {R"({"graph": {"nodes": 2.5}})", "graph.nodes must be an integer"},
           {R"({"graph": {"nodes": 1e3}})", "graph.nodes must be an integer"},
           {R"({"graph": {"nodes": 1000.0}})", "graph.nodes must be an integer"},
           {R"({"graph": {"nodes": 2147483648}})", "graph.nodes must be an integer in the range"},
           {R"({"graph": {"nodes": "10"}})", "graph.nodes must be an integer"},
           {R"({"data": {"rows": 9223372036854775808}})", "data.rows must be an integer"},
           {R"({"seed": -1})", "seed must be a non-negative integer"},
           {R"({"algorithm": {"eta": 1e999}})", "outside the range of a double"},
           {R"({"algorithm": {"eta": "0.5"}})", "algorithm.eta must be a number"},
           {R"({"algorithm": {"eta": null}})", "algorithm.eta must be a number"},
       }) {
    RunSpec spec;
    EXPECT_TRUE(
        ThrowsInputError([&] { ApplySpecJson(c.json, "t.json", spec); }, {"t.json", c.error}))
        << c.json;
  }
}

TEST(Hardening, AdultNumericRangeBeyondDoubleRangeScalesToUnitInterval) {
  const std::string row =
      ", Private, 1, HS-grad, 9, Never-married, Sales, Own-child, White, Male, 0, 0, 40, "
      "United-States, ";
  const std::string train =
      test::WriteTempFile("adult_inf.data", "-1.5e308" + row + "<=50K\n1.5e308" + row + ">50K\n");
  const std::string test_file = test::WriteTempFile("adult_inf.test", "0" + row + ">50K.\n");
  const AdultData a = LoadAdult(train, test_file);
  EXPECT_NO_THROW(a.train.Validate());
  EXPECT_NO_THROW(a.test.Validate());
  const auto& x = std::get<SparseRows>(a.train.x);
  EXPECT_EQ(x.coeff(0, 0), 0.0);                                      // age: the minimum
  EXPECT_EQ(x.coeff(1, 0), 1.0);                                      // age: the maximum
  EXPECT_DOUBLE_EQ(std::get<SparseRows>(a.test.x).coeff(0, 0), 0.5);  // 0 is half way
}

// A one-line edge list naming node 2147483646 sized the adjacency at two billion nodes before
// finding the graph disconnected (std::bad_alloc or an out-of-memory kill instead of an
// InputError). Corpus: tests/fuzz/corpus/edge_list/crash_huge_id.
TEST(Hardening, EdgeListWithHugeNodeIdIsDisconnectedNotAnAllocation) {
  const std::string path = test::WriteTempFile("huge.txt", "0 2147483646\n");
  EXPECT_TRUE(ThrowsInputError([&] { LoadEdgeList(path); }, {path, "disconnected"}));
  EXPECT_TRUE(ThrowsInputError([&] { Graph(2000000000, {{0, 1}}, "g"); }, {"g", "disconnected"}));
  EXPECT_EQ(LoadEdgeList(test::WriteTempFile("pair.txt", "0 1\n")).num_nodes(), 2);
}

// A LIBSVM feature index near 1e13 made the sparse matrix reserve min(rows * cols,
// 2 max(rows, cols)) entries (terabytes) instead of the one entry it holds. Sparse rows have
// 32-bit column indices: such an index is refused naming the file and line, and one within the
// limit stores only its entries. Corpus: tests/fuzz/corpus/libsvm/crash_huge_index.
TEST(Hardening, LibsvmHugeFeatureIndexStoresOnlyItsEntries) {
  const std::string path = test::WriteTempFile("huge.libsvm", "2 2000000000:22\n1 1:1\n");
  const Dataset d = LoadLibsvm(path);
  EXPECT_EQ(d.cols(), 2000000000);
  EXPECT_EQ(d.nonzeros(), 2);
  const auto& x = std::get<SparseRows>(d.x);
  EXPECT_EQ(x.coeff(0, 1999999999), 22.0);
  EXPECT_EQ(x.coeff(1, 0), 1.0);
  EXPECT_TRUE(x.isCompressed());
  const std::string beyond = test::WriteTempFile("beyond.libsvm", "1 1:1\n2 31313131231223:22\n");
  EXPECT_TRUE(ThrowsInputError([&] { (void)LoadLibsvm(beyond); },
                               {beyond + ":2", "31313131231223", "limit of 2147483647"}));
  const std::string edge = test::WriteTempFile("edge.libsvm", "1 2147483647:1\n-1 2147483648:1\n");
  EXPECT_TRUE(ThrowsInputError([&] { (void)LoadLibsvm(edge); }, {edge + ":2", "2147483648"}));
}

// fuzz_party_file's crash_number_overflow: a number beyond the double range made the JSON
// library throw out_of_range, which escaped the party file parser (not an InputError).
TEST(Hardening, PartyFileNumberBeyondDoubleRangeIsAnInputError) {
  EXPECT_TRUE(ThrowsInputError(
      [] { (void)ParsePartyFile(R"({"spec": {}, "party": 1e999999})", "party.json"); },
      {"party.json", "outside the range of a double"}));
  EXPECT_TRUE(ThrowsInputError(
      [] { (void)ParsePartyFile("999999999999999999991E79999999999999", "p.json"); },
      {"p.json", "outside the range of a double"}));
}

// ---- Planted race (ThreadSanitizer self-test) -------------------------------------------------

namespace rt = runtime;

// Every node increments one shared counter without synchronisation: a data race between nodes
// that the TBB engine runs on different threads. It breaks the NodeProgram contract on purpose.
// Each step first works for kStepWork, so that a round outlasts the wake-up of a sleeping
// worker thread: with steps of a few nanoseconds, the calling thread could run every task of
// every round before the one worker of a 2-core machine joins, leaving no race to report. Each
// program also records the threads that ran its steps (its steps are ordered by the engine, so
// the record itself is not shared between concurrent steps).
class RacyProgram : public rt::NodeProgram {
 public:
  static constexpr std::chrono::microseconds kStepWork{200};
  explicit RacyProgram(long* shared) : shared_(shared) {}
  const std::vector<std::thread::id>& threads() const { return threads_; }
  std::size_t MaxMessageSize() const override { return 1; }
  std::size_t ReportSize() const override { return 1; }
  rt::StepResult Start(rt::Outbox& out) override {
    out.Prepare(1)[0] = 0.0;
    return rt::StepResult::Ok();
  }
  rt::StepResult Step(std::int64_t round, const rt::Inbox&, rt::Outbox& out) override {
    const auto until = std::chrono::steady_clock::now() + kStepWork;
    while (std::chrono::steady_clock::now() < until) {
    }
    if (std::find(threads_.begin(), threads_.end(), std::this_thread::get_id()) == threads_.end())
      threads_.push_back(std::this_thread::get_id());
    ++*shared_;  // the race
    out.Prepare(1)[0] = static_cast<double>(round);
    return rt::StepResult::Ok();
  }
  void Report(std::int64_t, std::span<double> out) const override { out[0] = 0.0; }

 private:
  long* shared_;
  std::vector<std::thread::id> threads_;
};

class NullSink : public rt::RoundSink {
 public:
  bool OnRound(std::int64_t, const rt::ReportTable&) override { return true; }
};

// Skipped unless DPADMM_PLANT_RACE=1: run only by scripts/sanitizers.sh (step "race"), which
// requires ThreadSanitizer to report it.
TEST(PlantedRace, UnsynchronisedCounterAcrossTbbNodes) {
  const char* plant = std::getenv("DPADMM_PLANT_RACE");
  if (plant == nullptr || std::string(plant) != "1") GTEST_SKIP() << "set DPADMM_PLANT_RACE=1";
  if (!rt::EngineAvailable(rt::EngineKind::kTbb)) GTEST_SKIP() << "no TBB engine";
  constexpr int kNodes = 8;
  long shared = 0;
  std::vector<std::unique_ptr<RacyProgram>> owned;
  std::vector<rt::NodeProgram*> programs;
  rt::Topology ring;
  for (int i = 0; i < kNodes; ++i) {
    owned.push_back(std::make_unique<RacyProgram>(&shared));
    programs.push_back(owned.back().get());
    ring.neighbors.push_back({(i + kNodes - 1) % kNodes, (i + 1) % kNodes});
  }
  rt::EngineOptions options;
  options.kind = rt::EngineKind::kTbb;
  options.threads = 2;
  options.last_round = 200;
  options.inline_round_seconds = 0.0;  // tasks from round 1, however cheap the rounds
  NullSink sink;
  (void)rt::Run(programs, ring, options, sink);
  EXPECT_GT(shared, 0);
  // Without TSan's report (the expected outcome), reaching here means no race was seen; say
  // whether the steps ever ran on two threads, which a race between them needs.
  std::vector<std::thread::id> threads;
  for (const auto& p : owned)
    for (const auto id : p->threads())
      if (std::find(threads.begin(), threads.end(), id) == threads.end()) threads.push_back(id);
  EXPECT_GE(threads.size(), 2u) << "the engine ran every step on one thread";
}

}  // namespace
}  // namespace dpadmm
