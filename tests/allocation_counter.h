// SPDX-License-Identifier: Apache-2.0
// Counting the heap allocations of the calling thread, and the peak of the bytes it holds, while
// a function runs (tests/allocation_counter.cpp).
//
// Eigen allocates through std::malloc (not operator new), so counting operator new would miss
// exactly the allocations that matter. On glibc (without sanitizers, which bring their own
// allocator) allocation_counter.cpp therefore interposes malloc/calloc/realloc/free and the
// aligned variants, forwarding to glibc's own implementation (__libc_malloc, ...), and counts
// calls made by the current thread while a thread-local flag is set. operator new goes through
// malloc, so it is counted too. The flag is only set around the measured calls, so the other
// tests in the binary are unaffected.
#pragma once

#include <cstdint>
#include <functional>

#include "sanitized.h"

#if defined(__GLIBC__) && !defined(DPADMM_TEST_SANITIZED)
#define DPADMM_TEST_COUNT_ALLOCATIONS 1
#endif

namespace dpadmm::test {

// Allocations (malloc, calloc, realloc, the aligned ones) this thread makes while fn runs; -1
// where they cannot be counted.
long AllocationsDuring(const std::function<void()>& fn);

// The most bytes this thread held while fn ran, above what it held when fn started (blocks fn
// frees that were allocated before it count as given back; usable sizes, as glibc reports them);
// -1 where they cannot be counted.
std::int64_t PeakBytesDuring(const std::function<void()>& fn);

}  // namespace dpadmm::test
