// SPDX-License-Identifier: Apache-2.0
#include "allocation_counter.h"

#include <algorithm>
#include <cerrno>
#include <cstddef>

#if DPADMM_TEST_COUNT_ALLOCATIONS
#include <malloc.h>

namespace {
thread_local bool t_counting = false;
thread_local long t_allocations = 0;
thread_local std::int64_t t_held = 0;  // bytes held, above the start
thread_local std::int64_t t_peak = 0;

// Returns p, counted as an allocation.
void* Allocated(void* p) {
  if (!t_counting) return p;
  ++t_allocations;
  if (p != nullptr) {
    t_held += static_cast<std::int64_t>(malloc_usable_size(p));
    t_peak = std::max(t_peak, t_held);
  }
  return p;
}
void Released(void* p) {
  if (t_counting && p != nullptr) t_held -= static_cast<std::int64_t>(malloc_usable_size(p));
}
}  // namespace

extern "C" {
void* __libc_malloc(std::size_t size) noexcept;
void* __libc_calloc(std::size_t count, std::size_t size) noexcept;
void* __libc_realloc(void* ptr, std::size_t size) noexcept;
void* __libc_memalign(std::size_t alignment, std::size_t size) noexcept;
void __libc_free(void* ptr) noexcept;

void* malloc(std::size_t size) noexcept { return Allocated(__libc_malloc(size)); }
void* calloc(std::size_t count, std::size_t size) noexcept {
  return Allocated(__libc_calloc(count, size));
}
void* realloc(void* ptr, std::size_t size) noexcept {
  Released(ptr);
  return Allocated(__libc_realloc(ptr, size));
}
void free(void* ptr) noexcept {
  Released(ptr);
  __libc_free(ptr);
}
void* memalign(std::size_t alignment, std::size_t size) noexcept {
  return Allocated(__libc_memalign(alignment, size));
}
void* aligned_alloc(std::size_t alignment, std::size_t size) noexcept {
  return Allocated(__libc_memalign(alignment, size));
}
int posix_memalign(void** out, std::size_t alignment, std::size_t size) noexcept {
  if (alignment % sizeof(void*) != 0 || (alignment & (alignment - 1)) != 0) {
    Allocated(nullptr);
    return EINVAL;
  }
  void* p = __libc_memalign(alignment, size);
  Allocated(p);
  if (p == nullptr) return ENOMEM;
  *out = p;
  return 0;
}
}  // extern "C"
#endif

namespace dpadmm::test {
namespace {

struct Counts {
  long allocations = -1;
  std::int64_t peak_bytes = -1;
};

Counts Measure(const std::function<void()>& fn) {
  Counts c;
#if DPADMM_TEST_COUNT_ALLOCATIONS
  t_allocations = 0;
  t_held = t_peak = 0;
  t_counting = true;
  fn();
  t_counting = false;
  c.allocations = t_allocations;
  c.peak_bytes = t_peak;
#else
  fn();
#endif
  return c;
}

}  // namespace

long AllocationsDuring(const std::function<void()>& fn) { return Measure(fn).allocations; }

std::int64_t PeakBytesDuring(const std::function<void()>& fn) { return Measure(fn).peak_bytes; }

}  // namespace dpadmm::test
