// SPDX-License-Identifier: Apache-2.0
// Replaces the global operator new/delete of the wasm build so that every C++ allocation is
// 16-byte aligned, as glibc's malloc is on x86-64 (Emscripten's malloc aligns to 8).
//
// Why it matters: Eigen vectorises a reduction over a Map (e.g. a node's model inside the
// engine's report table, a std::vector) by peeling elements up to the first 16-byte boundary,
// so the summation order, and the last bit of norms and sums, follows the data's alignment.
// With the same alignment, wasm and native builds sum in the same order and agree bit for bit.
#include <cstdlib>
#include <new>

namespace {
constexpr std::size_t kAlign = 16;

void* Allocate(std::size_t size, std::size_t align) {
  if (align < kAlign) align = kAlign;
  const std::size_t rounded = (size + align - 1) / align * align;
  return std::aligned_alloc(align, rounded == 0 ? align : rounded);
}
}  // namespace

void* operator new(std::size_t size) {
  if (void* p = Allocate(size, kAlign)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t size) { return ::operator new(size); }
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
  return Allocate(size, kAlign);
}
void* operator new[](std::size_t size, const std::nothrow_t&) noexcept {
  return Allocate(size, kAlign);
}
void* operator new(std::size_t size, std::align_val_t align) {
  if (void* p = Allocate(size, static_cast<std::size_t>(align))) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t size, std::align_val_t align) {
  return ::operator new(size, align);
}

void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }
