// SPDX-License-Identifier: Apache-2.0
// The threaded build only: libunwind's wasm personality glue (Emscripten 3.1.6,
// system/lib/libunwind/src/Unwind-wasm.c) with its landing-pad context as a plain global.
//
// Why: clang 14's exception lowering (WasmEHPrepare) writes the landing pad's index and LSDA to
// the global __wasm_lpad_context as an ordinary global, while Emscripten 3.1.6's libunwind
// declares it thread_local, which with -pthread is a different address. The personality
// function then reads an empty context and no typed handler matches: every
// `catch (const std::exception&)` is skipped and only `catch (...)` catches (the bad-spec and
// loader messages became "unknown error"). Defining every symbol of Unwind-wasm.o here keeps the
// library's object out of the link. The price: the context is shared by all threads, so two
// threads unwinding at the same instant could mix their contexts. In this module exceptions are
// thrown while a run is prepared (calling thread) and, rarely, by a failing node program; the
// TBB engine then stops the run. The single-threaded build is unaffected (no TLS there).
#include <cstdint>

extern "C" {

// The first fields of libunwind's _Unwind_Exception (unwind.h, non-ARM layout).
struct WasmUnwindException {
  std::uint64_t exception_class;
  void (*exception_cleanup)(int reason, WasmUnwindException* exception);
};

int __gxx_personality_wasm0(int version, int actions, std::uint64_t exception_class,
                            WasmUnwindException* exception, void* context);

struct WasmLandingPadContext {
  std::uintptr_t lpad_index;  // input to the personality function
  std::uintptr_t lsda;
  std::uintptr_t selector;  // its output
};

WasmLandingPadContext __wasm_lpad_context;

namespace {
constexpr int kCleanupPhase = 2;            // _UA_CLEANUP_PHASE
constexpr int kForeignExceptionCaught = 1;  // _URC_FOREIGN_EXCEPTION_CAUGHT
}  // namespace

int _Unwind_CallPersonality(void* exception_ptr) {
  auto* e = static_cast<WasmUnwindException*>(exception_ptr);
  __wasm_lpad_context.selector = 0;
  // Wasm has no two-phase unwinding: the cleanup phase only.
  return __gxx_personality_wasm0(1, kCleanupPhase, e->exception_class, e, &__wasm_lpad_context);
}

int _Unwind_RaiseException(WasmUnwindException* e) { __builtin_wasm_throw(0, e); }

void _Unwind_DeleteException(WasmUnwindException* e) {
  if (e->exception_cleanup != nullptr) e->exception_cleanup(kForeignExceptionCaught, e);
}

void _Unwind_SetGR(void* context, int index, std::uintptr_t value) {
  if (index == 1) static_cast<WasmLandingPadContext*>(context)->selector = value;
}

// A 1-based index after the caller subtracts 1, hence + 2 (as in libunwind).
std::uintptr_t _Unwind_GetIP(void* context) {
  return static_cast<WasmLandingPadContext*>(context)->lpad_index + 2;
}

void _Unwind_SetIP(void* /*context*/, std::uintptr_t /*value*/) {}

std::uintptr_t _Unwind_GetLanguageSpecificData(void* context) {
  return static_cast<WasmLandingPadContext*>(context)->lsda;
}

std::uintptr_t _Unwind_GetRegionStart(void* /*context*/) { return 0; }

}  // extern "C"
