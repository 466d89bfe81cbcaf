// SPDX-License-Identifier: Apache-2.0
// LocalPool without oneTBB: always the calling thread.
#include "mpi_parallel.h"

namespace dpadmm::runtime::detail {

struct LocalPool::Impl {};

LocalPool::LocalPool(int) {}
LocalPool::~LocalPool() = default;

void LocalPool::For(int count, const std::function<void(int)>& body) {
  for (int i = 0; i < count; ++i) body(i);
}

}  // namespace dpadmm::runtime::detail
