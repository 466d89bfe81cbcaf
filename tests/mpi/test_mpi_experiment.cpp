// SPDX-License-Identifier: Apache-2.0
// The experiment layer across MPI ranks through its C++ entry (Experiment(spec, MpiPlacement)):
// rank 0's summary and per-round metrics equal the serial engine's bit for bit, on
// MPI_COMM_WORLD and on a communicator of the caller's (the world split in two halves that run
// independently); a rank holds no training set of its own beyond its nodes' slices.
#include <gtest/gtest.h>
#include <mpi.h>

#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "dpadmm/core/random.h"
#include "dpadmm/data/loaders.h"
#include "dpadmm/data/preprocessing.h"

#include "dpadmm/core/error.h"
#include "dpadmm/placement/mpi_run.h"
#include "dpadmm/run/run.h"
#include "dpadmm/runtime/mpi.h"

namespace {

using dpadmm::Algorithm;
using dpadmm::RunSpec;
using dpadmm::RunSummary;

class Rounds : public dpadmm::RunObserver {
 public:
  void OnRound(const dpadmm::RoundMetrics& m) override {
    values.insert(values.end(), {static_cast<double>(m.round), m.train_loss, m.objective,
                                 m.test_error, m.consensus_gap, m.privacy_loss, m.test_loss});
  }
  std::vector<double> values;
};

bool SameBits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// `serial_spec` (default: `spec` on the serial engine) is the single-process reference.
void ExpectSameRun(const RunSpec& spec, const dpadmm::MpiPlacement& where, int rank,
                   const RunSpec* serial_override = nullptr) {
  Rounds mpi_rounds;
  dpadmm::Experiment across(spec, where);
  EXPECT_EQ(across.train().rows(), 0) << "a rank keeps only its nodes' data";
  const RunSummary s = across.Run(&mpi_rounds);
  if (rank != 0) {
    EXPECT_TRUE(mpi_rounds.values.empty()) << "the observer runs on rank 0 only";
    EXPECT_EQ(s.outcome, dpadmm::RunOutcome::kCompleted);
    return;
  }
  RunSpec serial_spec = serial_override != nullptr ? *serial_override : spec;
  serial_spec.engine = dpadmm::runtime::EngineKind::kSerial;
  Rounds serial_rounds;
  const RunSummary r = dpadmm::Experiment(serial_spec).Run(&serial_rounds);
  EXPECT_EQ(s.outcome, r.outcome);
  EXPECT_EQ(s.rounds, r.rounds);
  ASSERT_EQ(mpi_rounds.values.size(), serial_rounds.values.size());
  for (std::size_t k = 0; k < serial_rounds.values.size(); ++k) {
    EXPECT_TRUE(SameBits(mpi_rounds.values[k], serial_rounds.values[k]))
        << "value " << k << ": " << mpi_rounds.values[k] << " vs " << serial_rounds.values[k];
  }
  ASSERT_EQ(s.model.size(), r.model.size());
  for (Eigen::Index k = 0; k < r.model.size(); ++k) EXPECT_TRUE(SameBits(s.model[k], r.model[k]));
  // What the data's preparation agreed across ranks (the global-max-norm factor, the private
  // figure of metrics scope "all").
  const dpadmm::Experiment serial_experiment(serial_spec);  // kept: info() refers into it
  const dpadmm::RunInfo& serial_info = serial_experiment.info();
  EXPECT_TRUE(SameBits(across.info().normalization_factor, serial_info.normalization_factor))
      << across.info().normalization_factor << " vs " << serial_info.normalization_factor;
  EXPECT_TRUE(SameBits(across.info().max_row_norm_before, serial_info.max_row_norm_before))
      << across.info().max_row_norm_before << " vs " << serial_info.max_row_norm_before;
}

RunSpec Consensus(Algorithm a) {
  RunSpec spec = RunSpec::Defaults(a);
  spec.data.rows = 500;
  spec.graph.nodes = 5;
  spec.iterations = 6;
  spec.metrics_every = 1;
  spec.compute_optimum = false;
  spec.seed = 11;
  spec.noise_seed = 11;  // simulation mode: the same noise in every run
  return spec;
}

TEST(MpiExperiment, ConsensusOnTheWorldMatchesSerial) {
  ExpectSameRun(Consensus(Algorithm::kRadmm), {}, dpadmm::runtime::MpiRank());
}

TEST(MpiExperiment, SharingOnTheWorldMatchesSerial) {
  RunSpec spec = RunSpec::Defaults(Algorithm::kSharing);
  spec.data.rows = 300;
  spec.data.dims = 24;
  spec.iterations = 4;
  spec.compute_optimum = false;
  spec.noise_seed = 3;
  ExpectSameRun(spec, {}, dpadmm::runtime::MpiRank());
}

TEST(MpiExperiment, RunsOnTheCallersCommunicator) {
  // Two halves of the world run different experiments at once on their own communicators.
  const int world_rank = dpadmm::runtime::MpiRank();
  MPI_Comm half = MPI_COMM_NULL;
  MPI_Comm_split(MPI_COMM_WORLD, world_rank % 2, world_rank, &half);
  int rank = 0;
  MPI_Comm_rank(half, &rank);
  dpadmm::MpiPlacement where;
  where.comm = dpadmm::runtime::MpiComm{&half};
  ExpectSameRun(Consensus(world_rank % 2 == 0 ? Algorithm::kAdmm : Algorithm::kMradmm), where,
                rank);
  MPI_Comm_free(&half);
}

TEST(MpiExperiment, AnMpiExperimentRunsOnMpiOnly) {
  dpadmm::Experiment across(Consensus(Algorithm::kAdmm), dpadmm::MpiPlacement{});
  EXPECT_THROW((void)across.RunOn(dpadmm::runtime::EngineKind::kSerial, 0), dpadmm::InputError);
}

// ---- Each rank parses only its own nodes' rows ------------------------------------------------

// A data file in one of the loaders' formats, row r written by `row(r, poisoned)`: every rank
// writes its own copy in which the rows of the nodes it does not host are malformed (values that
// do not parse, wrong field counts, unknown labels). Parsing any of them fails the run, so a
// run that matches the serial run on the clean file bit for bit read no other rank's row.
struct Poisoned {
  std::filesystem::path dir;
  std::vector<int> owner;  // the rank hosting training row r
  int rank = 0;

  Poisoned(std::int64_t rows, int nodes, std::uint64_t seed) {
    rank = dpadmm::runtime::MpiRank();
    dir =
        std::filesystem::temp_directory_path() / ("dpadmm_mpi_rows_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    const dpadmm::Partition p = dpadmm::PartitionEven(rows, nodes, seed);
    const std::vector<int> ranks =
        dpadmm::runtime::ContiguousNodeRanks(nodes, dpadmm::runtime::MpiSize());
    owner.assign(static_cast<std::size_t>(rows), -1);
    for (int i = 0; i < nodes; ++i) {
      for (std::int64_t r : p[static_cast<std::size_t>(i)]) owner[r] = ranks[i];
    }
  }
  ~Poisoned() { std::filesystem::remove_all(dir); }

  // Writes NAME (clean) and NAME.poisoned (this rank's copy); returns the clean path.
  std::string Write(const std::string& name, std::int64_t rows,
                    const std::function<std::string(std::int64_t, bool)>& row,
                    const std::string& header = "") const {
    const std::string clean = (dir / name).string();
    std::ofstream a(clean), b(clean + ".poisoned");
    a << header;
    b << header;
    for (std::int64_t r = 0; r < rows; ++r) {
      a << row(r, false) << "\n";
      const bool mine = r >= static_cast<std::int64_t>(owner.size()) || owner[r] == rank;
      b << row(r, !mine) << "\n";
    }
    return clean;
  }
};

double Value(std::int64_t r, int j) {
  dpadmm::Stream s(5, static_cast<std::uint64_t>(r), static_cast<std::uint64_t>(j),
                   dpadmm::Purpose::kGenerateData);
  return (r % 2 == 0 ? 1.0 : -1.0) * 0.5 + s.Normal() * std::pow(10.0, j - 2);
}

std::string Num(double v) {
  char b[40];
  std::snprintf(b, sizeof b, "%.6f", v);
  return b;
}

RunSpec FileRun(Algorithm a) {
  RunSpec spec = RunSpec::Defaults(a);
  spec.graph.nodes = 5;
  spec.iterations = 4;
  spec.metrics_every = 1;
  spec.compute_optimum = false;
  spec.seed = 11;
  spec.noise_seed = 11;
  if (a == Algorithm::kDvp) spec.algorithm.As<dpadmm::DvpParams>().alpha = 0.5;
  return spec;
}

constexpr std::int64_t kRows = 200, kTestRows = 40;

TEST(MpiExperiment, EachRankParsesOnlyItsOwnNodesRowsInEveryFormat) {
  const Poisoned files(kRows, 5, 11);
  const int rank = files.rank;
  const auto csv = [](std::int64_t r, bool bad) {
    if (bad) return std::string("not,a,row");
    std::string line;
    for (int j = 0; j < 4; ++j) line += Num(Value(r, j)) + ",";
    return line + (r % 2 == 0 ? "1" : "0");
  };
  const auto libsvm = [](std::int64_t r, bool bad) {
    if (bad) return std::string("7 0:x 3:");
    std::string line = r % 2 == 0 ? "2" : "1";
    for (int j = 0; j < 4; ++j) line += " " + std::to_string(j + 1) + ":" + Num(Value(r, j));
    return line;
  };
  const auto asc = [](std::int64_t r, bool bad) {
    if (bad) return std::string("nan? x");
    std::string line = Num(Value(r, 0));
    for (int j = 1; j < 4; ++j) line += " " + Num(Value(r, j));
    return line;
  };
  const auto asc_labels = [](std::int64_t r, bool bad) {
    return bad ? std::string("5") : std::string(r % 2 == 0 ? "1" : "-1");
  };
  struct Case {
    const char* name;
    dpadmm::DataSource source;
    std::function<std::string(std::int64_t, bool)> row;
  };
  for (const Case& c : {Case{"csv", dpadmm::DataSource::kCsv, csv},
                        Case{"libsvm", dpadmm::DataSource::kLibsvm, libsvm},
                        Case{"asc", dpadmm::DataSource::kAsc, asc}}) {
    SCOPED_TRACE(c.name);
    for (bool dp_bounds : {false, true}) {
      RunSpec spec = FileRun(Algorithm::kDvp);
      spec.data.source = c.source;
      const std::string train = files.Write(std::string("train.") + c.name, kRows, c.row);
      // The test set: a clean file every rank reads whole (public evaluation data).
      spec.data.test_path = files.Write(std::string("test.") + c.name, kTestRows,
                                        [&](std::int64_t r, bool) { return c.row(r, false); });
      if (c.source == dpadmm::DataSource::kAsc) {
        spec.data.train_labels_path = files.Write("train_labels.asc", kRows, asc_labels);
        spec.data.test_labels_path =
            files.Write("test_labels.asc", kTestRows,
                        [&](std::int64_t r, bool) { return asc_labels(r, false); });
      }
      if (dp_bounds) {
        spec.data.scaling = dpadmm::Scaling::kDpBounds;
        spec.data.bounds_epsilon = 20.0;  // 40 rows per node: bins above the noise
      }
      RunSpec serial = spec;
      serial.data.train_path = train;
      spec.data.train_path = train + ".poisoned";
      if (c.source == dpadmm::DataSource::kAsc) {
        spec.data.train_labels_path += ".poisoned";
      }
      ExpectSameRun(spec, {}, rank, &serial);
      // The same file read whole on this rank fails: the poison is real (unless this rank hosts
      // every node).
      bool all_mine = true;
      for (int o : files.owner) all_mine = all_mine && o == rank;
      if (!all_mine) {
        RunSpec whole = spec;
        whole.engine = dpadmm::runtime::EngineKind::kSerial;
        EXPECT_THROW((void)dpadmm::Experiment(whole), dpadmm::InputError);
      }
    }
  }
}

// Adult: complete records are counted without parsing (a '?' field makes a line no record);
// the encoding (category lists and numeric ranges) is merged from every rank's own records.
TEST(MpiExperiment, AdultRowsPerRankMatchSerial) {
  const char* kWork[] = {"Private", "Self-emp", "State-gov"};
  const char* kEdu[] = {"Bachelors", "HS-grad", "Masters", "Doctorate"};
  const auto adult = [&](std::int64_t r, bool bad, bool test) {
    if (bad) return std::string("garbage, row");
    dpadmm::Stream s(9, static_cast<std::uint64_t>(r), test ? 1u : 0u,
                     dpadmm::Purpose::kGenerateData);
    const auto pick = [&](int n) { return static_cast<int>(s.UniformInt(n)); };
    const bool rich = s.Uniform() < 0.3;
    std::string line = std::to_string(20 + pick(50) + (rich ? 10 : 0)) + ", " + kWork[pick(3)] +
                       ", " + std::to_string(10000 + pick(90000)) + ", " + kEdu[pick(4)] + ", " +
                       std::to_string(8 + pick(8)) + ", Married, Sales, Husband, White, " +
                       (pick(2) ? "Male" : "Female") + ", " +
                       std::to_string(rich ? pick(5000) : 0) + ", 0, " +
                       std::to_string(30 + pick(30)) + ", United-States, " +
                       (rich ? ">50K" : "<=50K") + (test ? "." : "");
    return line;
  };
  // Row count of complete records = kRows; every 10th record is preceded by one with a '?'
  // (not a record: its row index does not exist).
  std::vector<std::string> lines;
  const Poisoned files(kRows, 5, 11);
  RunSpec spec = FileRun(Algorithm::kDvp);
  spec.data.source = dpadmm::DataSource::kAdult;
  const std::string test = files.Write(
      "adult.test", kTestRows, [&](std::int64_t r, bool) { return adult(r, false, true); },
      "|1x3 Cross validator\n");
  const std::string train = files.Write("adult.data", kRows, [&](std::int64_t r, bool bad) {
    std::string line = adult(r, bad, false);
    if (r % 10 == 3) line = "39, ?, 1, ?, 9, x, y, z, White, Male, 0, 0, 40, ?, <=50K\n" + line;
    return line;
  });
  spec.data.test_path = test;
  RunSpec serial = spec;
  serial.data.train_path = train;
  spec.data.train_path = train + ".poisoned";
  ExpectSameRun(spec, {}, files.rank, &serial);
}

// Sharing (vertical partition): each rank parses only its parties' feature columns, and the
// label column only where the coordinator is: in every rank's copy of the file the other
// fields are garbage. The run matches the serial run on the clean file bit for bit.
TEST(MpiExperiment, SharingRanksParseOnlyTheirPartiesColumns) {
  constexpr int kParties = 3, kFeatures = 12;
  const int rank = dpadmm::runtime::MpiRank();
  const std::vector<int> map =
      dpadmm::runtime::ContiguousNodeRanks(kParties + 1, dpadmm::runtime::MpiSize());
  const Poisoned files(kRows, 5, 11);  // (its row owners are unused: every row is written)
  const auto row = [&](std::int64_t r, bool poison) {
    std::string line;
    for (int j = 0; j < kFeatures; ++j) {
      const bool mine = map[static_cast<std::size_t>(j / 4 + 1)] == rank;
      line += (poison && !mine ? std::string("x") : Num(Value(r, j % 4))) + ",";
    }
    return line + (poison && map[0] != rank ? "?" : (r % 2 == 0 ? "1" : "0"));
  };
  const std::string clean = (files.dir / "sharing.csv").string();
  {
    std::ofstream a(clean), b(clean + ".poisoned");
    for (std::int64_t r = 0; r < kRows; ++r) {
      a << row(r, false) << "\n";
      b << row(r, true) << "\n";
    }
    std::ofstream t(clean + ".test");  // public evaluation data: every rank reads it whole
    for (std::int64_t r = 0; r < kTestRows; ++r) t << row(r + kRows, false) << "\n";
  }
  for (dpadmm::Scaling scaling : {dpadmm::Scaling::kClipOnly, dpadmm::Scaling::kPublicBounds}) {
    RunSpec spec = RunSpec::Defaults(Algorithm::kSharing);
    spec.algorithm.As<dpadmm::SharingParams>().parties = kParties;
    // Four file columns per party; the intercept column joins the last party.
    spec.algorithm.As<dpadmm::SharingParams>().party_features = {4, 4, 5};
    spec.data.source = dpadmm::DataSource::kCsv;
    spec.data.scaling = scaling;
    if (scaling == dpadmm::Scaling::kPublicBounds) spec.data.feature_range = {-40.0, 40.0};
    spec.data.add_bias = true;
    spec.data.test_path = clean + ".test";
    spec.metrics = dpadmm::MetricsScope::kReleasedOnly;  // what a private run computes
    spec.iterations = 4;
    spec.compute_optimum = false;
    spec.noise_seed = 3;
    RunSpec serial = spec;
    serial.data.train_path = clean;
    spec.data.train_path = clean + ".poisoned";
    ExpectSameRun(spec, {}, rank, &serial);
  }
}

// ---- Sharing on every input format: each rank parses only its parties' columns ----------------

// A sharing run of 3 parties over 30 file columns and the intercept (blocks 11, 10, 10), nodes
// placed as --node-ranks would by default (node 0 the coordinator, node m party m).
struct SharingFiles {
  static constexpr int kParties = 3, kColumns = 30;
  int rank = dpadmm::runtime::MpiRank();
  std::vector<int> map =
      dpadmm::runtime::ContiguousNodeRanks(kParties + 1, dpadmm::runtime::MpiSize());
  std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("dpadmm_mpi_cols_" + std::to_string(::getpid()));
  SharingFiles() { std::filesystem::create_directories(dir); }
  ~SharingFiles() { std::filesystem::remove_all(dir); }
  // True where this rank holds file column c (0-based).
  bool Mine(int c) const {
    const int party = c < 11 ? 1 : c < 21 ? 2 : 3;
    return map[static_cast<std::size_t>(party)] == rank;
  }
  bool Coordinator() const { return map[0] == rank; }
  // Every other rank holds some column or the labels: reading the poisoned copy whole fails.
  bool PoisonIsReal() const { return dpadmm::runtime::MpiSize() > 1; }
};

RunSpec SharingFileRun(dpadmm::DataSource source, dpadmm::Scaling scaling,
                       dpadmm::MetricsScope metrics, bool dp) {
  RunSpec spec = RunSpec::Defaults(Algorithm::kSharing);
  auto& sp = spec.algorithm.As<dpadmm::SharingParams>();
  sp.parties = SharingFiles::kParties;
  if (dp) {
    sp.dp = true;
    sp.epsilon = 0.5;
    sp.b1 = 2.0;
  }
  spec.data.source = source;
  spec.data.scaling = scaling;
  spec.data.add_bias = true;
  spec.metrics = metrics;
  spec.iterations = 4;
  spec.compute_optimum = false;
  spec.seed = 3;
  spec.noise_seed = 3;
  return spec;
}

// An a9a-like LIBSVM row: one-hot groups of five binary columns and a real-valued last column;
// in the poisoned copy the values of the other ranks' columns do not parse (their indices
// stay: an index says whose value it is) and so does the label where the coordinator is not.
std::string SharingLibsvmRow(const SharingFiles& f, std::int64_t r, bool poison) {
  std::string line = poison && !f.Coordinator() ? "?" : (r % 3 == 0 ? "+1" : "-1");
  const auto entry = [&](int c, const std::string& value) {
    line.append(" ").append(std::to_string(c + 1)).append(":");
    line.append(poison && !f.Mine(c) ? std::string("x") : value);
  };
  for (int g = 0; g < 5; ++g) {
    dpadmm::Stream s(9, static_cast<std::uint64_t>(r), static_cast<std::uint64_t>(g),
                     dpadmm::Purpose::kGenerateData);
    entry(g * 5 + static_cast<int>(s.UniformInt(5)), "1");
  }
  entry(25 + static_cast<int>(r % 4), Num(Value(r, 1)));
  entry(29, Num(Value(r, 2)));
  return line;
}

// Writes the clean file, this rank's poisoned copy (".poisoned") and a clean test file (".t").
std::string WriteSharingLibsvm(const SharingFiles& f) {
  const std::string clean = (f.dir / "a9a_like").string();
  std::ofstream a(clean), b(clean + ".poisoned"), t(clean + ".t");
  for (std::int64_t r = 0; r < kRows; ++r) {
    a << SharingLibsvmRow(f, r, false) << "\n";
    b << SharingLibsvmRow(f, r, true) << "\n";
  }
  for (std::int64_t r = 0; r < kTestRows; ++r) t << SharingLibsvmRow(f, kRows + r, false) << "\n";
  return clean;
}

TEST(MpiExperiment, SharingOnLibsvmParsesOnlyTheRanksColumns) {
  const SharingFiles f;
  const std::string clean = WriteSharingLibsvm(f);
  if (f.PoisonIsReal()) {
    EXPECT_THROW((void)dpadmm::LoadLibsvm(clean + ".poisoned"), dpadmm::InputError);
  }
  using dpadmm::MetricsScope;
  using dpadmm::Scaling;
  struct Case {
    Scaling scaling;
    MetricsScope metrics;
    bool dp;
  };
  for (const Case c : {Case{Scaling::kClipOnly, MetricsScope::kReleasedOnly, true},
                       Case{Scaling::kGlobalMaxNorm, MetricsScope::kAll, false},
                       Case{Scaling::kGlobalMaxNorm, MetricsScope::kReleasedOnly, true},
                       Case{Scaling::kPublicBounds, MetricsScope::kAll, true}}) {
    SCOPED_TRACE(std::string(dpadmm::ChoiceName(c.scaling)) + ", metrics " +
                 dpadmm::ChoiceName(c.metrics));
    RunSpec spec = SharingFileRun(dpadmm::DataSource::kLibsvm, c.scaling, c.metrics, c.dp);
    if (c.scaling == Scaling::kPublicBounds) spec.data.feature_range = {-40.0, 40.0};
    spec.data.test_path = clean + ".t";
    RunSpec serial = spec;
    serial.data.train_path = clean;
    spec.data.train_path = clean + ".poisoned";
    ExpectSameRun(spec, {}, f.rank, &serial);
  }
}

// The SGD baseline under MPI: each rank steps its own parties' weights from its own columns;
// the label holder (the coordinator's rank) alone reads the labels.
TEST(MpiExperiment, SgdBaselineOnLibsvmParsesOnlyTheRanksColumns) {
  const SharingFiles f;
  const std::string clean = WriteSharingLibsvm(f);
  for (const dpadmm::MetricsScope metrics :
       {dpadmm::MetricsScope::kAll, dpadmm::MetricsScope::kReleasedOnly}) {
    RunSpec spec = RunSpec::Defaults(Algorithm::kSgd);
    auto& sg = spec.algorithm.As<dpadmm::SgdParams>();
    sg.parties = SharingFiles::kParties;
    sg.batch_size = 16;
    spec.data.source = dpadmm::DataSource::kLibsvm;
    spec.data.scaling = dpadmm::Scaling::kGlobalMaxNorm;
    spec.data.add_bias = true;
    spec.data.test_path = clean + ".t";
    spec.metrics = metrics;
    spec.iterations = 3;
    spec.compute_optimum = false;
    spec.seed = 3;
    RunSpec serial = spec;
    serial.data.train_path = clean;
    spec.data.train_path = clean + ".poisoned";
    ExpectSameRun(spec, {}, f.rank, &serial);
  }
}

TEST(MpiExperiment, SharingOnLibsvmWithTheSeededHoldOutParsesOnlyTheRanksColumns) {
  // Without a test file the seeded hold-out rows are the public test set, read whole by every
  // rank: only the training rows are poisoned.
  const SharingFiles f;
  RunSpec spec = SharingFileRun(dpadmm::DataSource::kLibsvm, dpadmm::Scaling::kGlobalMaxNorm,
                                dpadmm::MetricsScope::kAll, false);
  dpadmm::Dataset index;
  dpadmm::DenseRows column(kRows, 1);
  for (std::int64_t r = 0; r < kRows; ++r) column(r, 0) = static_cast<double>(r);
  index.x = column;
  index.y = Eigen::VectorXd::Ones(kRows);
  const dpadmm::TrainTest split = dpadmm::SplitTrainTest(index, spec.data.test_fraction, spec.seed);
  std::vector<char> held_out(kRows, 0);
  const auto& test_index = std::get<dpadmm::DenseRows>(split.test.x);
  for (Eigen::Index r = 0; r < test_index.rows(); ++r) {
    held_out[static_cast<std::size_t>(test_index(r, 0))] = 1;
  }
  ASSERT_GT(test_index.rows(), 0);
  const std::string clean = (f.dir / "split.libsvm").string();
  {
    std::ofstream a(clean), b(clean + ".poisoned");
    for (std::int64_t r = 0; r < kRows; ++r) {
      a << SharingLibsvmRow(f, r, false) << "\n";
      b << SharingLibsvmRow(f, r, held_out[static_cast<std::size_t>(r)] == 0) << "\n";
    }
  }
  RunSpec serial = spec;
  serial.data.train_path = clean;
  spec.data.train_path = clean + ".poisoned";
  ExpectSameRun(spec, {}, f.rank, &serial);
}

TEST(MpiExperiment, SharingOnAscParsesOnlyTheRanksColumnsAndTheCoordinatorTheLabels) {
  const SharingFiles f;
  const std::string data = (f.dir / "x_train_data_1.asc").string();
  const std::string labels = (f.dir / "x_train_labels_1.asc").string();
  const std::string test_data = (f.dir / "x_test_data_1.asc").string();
  const std::string test_labels = (f.dir / "x_test_labels_1.asc").string();
  const auto row = [&](std::int64_t r, bool poison) {
    std::string line;
    for (int c = 0; c < SharingFiles::kColumns; ++c) {
      line.append(" ").append(poison && !f.Mine(c) ? std::string("x") : Num(Value(r, c % 4)));
    }
    return line;
  };
  const auto label = [&](std::int64_t r, bool poison) {
    return poison && !f.Coordinator() ? std::string("?") : std::string(r % 2 == 0 ? "1" : "-1");
  };
  {
    std::ofstream a(data), b(data + ".poisoned"), la(labels), lb(labels + ".poisoned");
    std::ofstream ta(test_data), tl(test_labels);
    for (std::int64_t r = 0; r < kRows; ++r) {
      a << row(r, false) << "\n";
      b << row(r, true) << "\n";
      la << label(r, false) << "\n";
      lb << label(r, true) << "\n";
    }
    for (std::int64_t r = 0; r < kTestRows; ++r) {
      ta << row(kRows + r, false) << "\n";
      tl << label(kRows + r, false) << "\n";
    }
  }
  if (f.PoisonIsReal()) {
    EXPECT_THROW((void)dpadmm::LoadAsc(data + ".poisoned", labels + ".poisoned"),
                 dpadmm::InputError);
  }
  for (dpadmm::Scaling scaling : {dpadmm::Scaling::kClipOnly, dpadmm::Scaling::kPublicBounds}) {
    RunSpec spec = SharingFileRun(dpadmm::DataSource::kAsc, scaling,
                                  dpadmm::MetricsScope::kReleasedOnly, true);
    if (scaling == dpadmm::Scaling::kPublicBounds) spec.data.feature_range = {-40.0, 40.0};
    spec.data.test_path = test_data;
    spec.data.test_labels_path = test_labels;
    RunSpec serial = spec;
    serial.data.train_path = data;
    serial.data.train_labels_path = labels;
    spec.data.train_path = data + ".poisoned";
    spec.data.train_labels_path = labels + ".poisoned";
    ExpectSameRun(spec, {}, f.rank, &serial);
  }
}

// The cases that would need other parties' columns are refused on every rank, before any file
// is read (the files here do not exist).
TEST(MpiExperiment, SharingCasesThatNeedOtherColumnsAreRefused) {
  const auto refused = [](RunSpec spec, const std::string& why) {
    try {
      dpadmm::Experiment across(spec, dpadmm::MpiPlacement{});
      ADD_FAILURE() << "not refused: " << why;
    } catch (const dpadmm::InputError& e) {
      EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << e.what();
    }
  };
  using dpadmm::DataSource;
  using dpadmm::MetricsScope;
  using dpadmm::Scaling;
  RunSpec adult =
      SharingFileRun(DataSource::kAdult, Scaling::kClipOnly, MetricsScope::kReleasedOnly, true);
  adult.data.train_path = "/nonexistent/adult.data";
  adult.data.test_path = "/nonexistent/adult.test";
  refused(adult, "one-hot encoding");
  RunSpec csv =
      SharingFileRun(DataSource::kCsv, Scaling::kGlobalMaxNorm, MetricsScope::kReleasedOnly, false);
  csv.data.train_path = "/nonexistent/train.csv";
  refused(csv, "global-max-norm on dense data");
  csv.data.scaling = Scaling::kClipOnly;
  csv.metrics = MetricsScope::kAll;
  refused(csv, "'all' on dense data");
  RunSpec asc =
      SharingFileRun(DataSource::kAsc, Scaling::kGlobalMaxNorm, MetricsScope::kReleasedOnly, false);
  asc.data.train_path = "/nonexistent/x_train_data_1.asc";
  asc.data.train_labels_path = "/nonexistent/x_train_labels_1.asc";
  refused(asc, "global-max-norm on dense data");
}

}  // namespace
