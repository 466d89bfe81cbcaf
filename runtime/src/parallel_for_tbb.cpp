// SPDX-License-Identifier: Apache-2.0
// ParallelFor with oneTBB: a call-owned arena (as the TBB engine's), so concurrent callers do
// not steal each other's workers.
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/task_arena.h>

#include "dpadmm/runtime/parallel_for.h"

namespace dpadmm::runtime {

void ParallelFor(std::int64_t count, int threads, const std::function<void(std::int64_t)>& body) {
  if (threads == 1 || count <= 1) {
    for (std::int64_t i = 0; i < count; ++i) body(i);
    return;
  }
  tbb::task_arena arena(threads <= 0 ? tbb::task_arena::automatic : threads);
  arena.execute(
      [&] { tbb::parallel_for(std::int64_t{0}, count, [&](std::int64_t i) { body(i); }); });
}

bool ParallelForIsParallel() { return true; }

}  // namespace dpadmm::runtime
