// SPDX-License-Identifier: Apache-2.0
// LocalPool with oneTBB: a run-owned arena, as in the TBB engine, so that runs do not steal each
// other's workers.
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/task_arena.h>

#include "mpi_parallel.h"

namespace dpadmm::runtime::detail {

struct LocalPool::Impl {
  explicit Impl(int threads) : arena(threads) {}
  tbb::task_arena arena;
};

LocalPool::LocalPool(int threads) {
  if (threads > 1) impl_ = std::make_unique<Impl>(threads);
}
LocalPool::~LocalPool() = default;

void LocalPool::For(int count, const std::function<void(int)>& body) {
  if (!impl_ || count <= 1) {
    for (int i = 0; i < count; ++i) body(i);
    return;
  }
  impl_->arena.execute([&] { tbb::parallel_for(0, count, [&](int i) { body(i); }); });
}

}  // namespace dpadmm::runtime::detail
