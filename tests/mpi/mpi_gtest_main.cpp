// SPDX-License-Identifier: Apache-2.0
// main() for the MPI GoogleTest programs: every rank runs every test (the engine is collective),
// only rank 0 prints the report, and the job fails if any rank failed.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdlib>

#include "dpadmm/runtime/mpi.h"

int main(int argc, char** argv) {
  dpadmm::runtime::MpiSession mpi(&argc, &argv);
  ::testing::InitGoogleTest(&argc, argv);
  // DPADMM_MPI_TEST_ALL_RANKS=1 keeps every rank's report (to see a failure on another rank).
  if (mpi.rank() != 0 && std::getenv("DPADMM_MPI_TEST_ALL_RANKS") == nullptr) {
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
  }
  int failed = RUN_ALL_TESTS();
  int any = 0;
  MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return any;
}
