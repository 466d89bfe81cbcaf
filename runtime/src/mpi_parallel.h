// SPDX-License-Identifier: Apache-2.0
// How a rank runs its local nodes of one round: a plain loop, or a oneTBB arena when the build
// has TBB and more than one thread is asked for. Chosen by CMake (mpi_parallel_tbb.cpp or
// mpi_parallel_serial.cpp), so the MPI engine itself has no #ifdef.
#pragma once

#include <functional>
#include <memory>

namespace dpadmm::runtime::detail {

class LocalPool {
 public:
  // threads <= 1: the calling thread runs everything.
  explicit LocalPool(int threads);
  ~LocalPool();
  LocalPool(const LocalPool&) = delete;
  LocalPool& operator=(const LocalPool&) = delete;
  // Calls body(0) .. body(count - 1), possibly concurrently; returns when all are done.
  void For(int count, const std::function<void(int)>& body);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace dpadmm::runtime::detail
