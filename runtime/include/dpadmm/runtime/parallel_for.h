// SPDX-License-Identifier: Apache-2.0
// Independent work items on a run-owned thread pool: oneTBB when the build has it, the calling
// thread otherwise (WebAssembly). For callers that repeat a whole computation many times (the
// privacy audit's runs), so that algorithms/ stays free of threads.
//
// Thread safety: body(i) runs concurrently for different i; each call must touch only its own
// state (and shared state it only reads). An exception thrown by a body is rethrown here.
#pragma once

#include <cstdint>
#include <functional>

namespace dpadmm::runtime {

// Calls body(0) .. body(count - 1), possibly concurrently, on at most `threads` threads
// (threads <= 0: the machine's default; 1: the calling thread only, in order). Returns when all
// are done.
void ParallelFor(std::int64_t count, int threads, const std::function<void(std::int64_t)>& body);

// Whether ParallelFor can use more than one thread in this build.
bool ParallelForIsParallel();

}  // namespace dpadmm::runtime
