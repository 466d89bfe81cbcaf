#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds the WebAssembly modules with Debian's Emscripten: the same algorithms/ and runtime/ code
# as the native build, embind bindings.
#   build-wasm/dpadmm_wasm.{mjs,wasm}       single-threaded, serial engine (any static host)
#   build-wasm-mt/dpadmm_wasm_mt.{mjs,wasm,worker.js}  pthreads + oneTBB (the TBB engine), for
#                                           cross-origin-isolated pages; oneTBB for wasm comes
#                                           from scripts/install_deps.sh wasm-tbb (cached)
# DPADMM_NATIVE_CLI=path enables the wasm-vs-native trace tests in both builds' ctest.
# DPADMM_WASM_THREADS=0 skips the threaded build (web/ needs both to build).
set -euo pipefail
cd "$(dirname "$0")/.."
export NODE_PATH=/usr/share/nodejs   # Emscripten 3.1.6's optimiser needs acorn from here
configure() {  # build dir, extra cmake arguments
  local dir=$1
  shift
  if [ ! -f "$dir/CMakeCache.txt" ] || [ -n "${DPADMM_NATIVE_CLI:-}" ]; then
    emcmake cmake -S wasm -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DEigen3_DIR=/usr/share/eigen3/cmake \
      "-DCMAKE_CROSSCOMPILING_EMULATOR=/usr/bin/node;--no-experimental-fetch" \
      -DDPADMM_NATIVE_CLI="${DPADMM_NATIVE_CLI:-}" "$@" >/dev/null
  fi
}
if [ "${DPADMM_WASM_THREADS:-1}" != 0 ]; then
  tbb=$(scripts/install_deps.sh wasm-tbb)
  configure build-wasm-mt -DDPADMM_WASM_THREADS=ON -DDPADMM_WASM_TBB_DIR="$tbb"
  cmake --build build-wasm-mt -j2
  # build-wasm's ctest runs the threaded build's cases too (wasm_mt.*).
  configure build-wasm -DDPADMM_WASM_MT_MODULE="$PWD/build-wasm-mt/dpadmm_wasm_mt.mjs" "$@"
else
  configure build-wasm -DDPADMM_WASM_MT_MODULE= "$@"
fi
cmake --build build-wasm -j2
