// SPDX-License-Identifier: Apache-2.0
// ParallelFor without oneTBB (WebAssembly builds): the calling thread, in order.
#include "dpadmm/runtime/parallel_for.h"

namespace dpadmm::runtime {

void ParallelFor(std::int64_t count, int /*threads*/,
                 const std::function<void(std::int64_t)>& body) {
  for (std::int64_t i = 0; i < count; ++i) body(i);
}

bool ParallelForIsParallel() { return false; }

}  // namespace dpadmm::runtime
