// SPDX-License-Identifier: Apache-2.0
// The experiment layer across MPI ranks through its C++ entry (Experiment(spec, MpiPlacement)):
// rank 0's summary and per-round metrics equal the serial engine's bit for bit, on
// MPI_COMM_WORLD and on a communicator of the caller's (the world split in two halves that run
// independently); a rank holds no training set of its own beyond its nodes' slices.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstring>
#include <vector>

#include "dpadmm/core/error.h"
#include "dpadmm/experiment/mpi_run.h"
#include "dpadmm/experiment/run.h"
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

void ExpectSameRun(const RunSpec& spec, const dpadmm::MpiPlacement& where, int rank) {
  Rounds mpi_rounds;
  dpadmm::Experiment across(spec, where);
  EXPECT_EQ(across.train().rows(), 0) << "a rank keeps only its nodes' data";
  const RunSummary s = across.Run(&mpi_rounds);
  if (rank != 0) {
    EXPECT_TRUE(mpi_rounds.values.empty()) << "the observer runs on rank 0 only";
    EXPECT_EQ(s.outcome, dpadmm::RunOutcome::kCompleted);
    return;
  }
  RunSpec serial_spec = spec;
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

}  // namespace
