# SPDX-License-Identifier: Apache-2.0
# Every third-party dependency comes from the system (Debian packages); nothing is downloaded.
find_package(Eigen3 3.3 REQUIRED NO_MODULE)
if(DPADMM_WITH_TBB)
  find_package(TBB REQUIRED)
endif()
find_package(nlohmann_json 3 REQUIRED CONFIG)  # spec/summary JSON (header-only, private)
find_path(RANDOM123_INCLUDE_DIR Random123/philox.h REQUIRED)
if(NOT TARGET dpadmm_random123)
  add_library(dpadmm_random123 INTERFACE)
  target_include_directories(dpadmm_random123 SYSTEM INTERFACE ${RANDOM123_INCLUDE_DIR})
endif()
# Open MPI for the MPI engine: a private dependency of dpadmm::runtime, on by default when found.
find_package(MPI COMPONENTS CXX QUIET)
option(DPADMM_WITH_MPI "Build the MPI engine (needs MPI)" ${MPI_CXX_FOUND})
if(DPADMM_WITH_MPI AND NOT MPI_CXX_FOUND)
  message(FATAL_ERROR "DPADMM_WITH_MPI is ON but no MPI (C++) was found")
endif()
