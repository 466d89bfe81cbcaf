#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds the WebAssembly module (build-wasm/dpadmm_wasm.mjs + .wasm) with Debian's Emscripten:
# the same algorithms/ and runtime/ code as the native build, serial engine, embind bindings.
# DPADMM_NATIVE_CLI=path enables the wasm-vs-native trace test in build-wasm's ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
export NODE_PATH=/usr/share/nodejs   # Emscripten 3.1.6's optimiser needs acorn from here
if [ ! -f build-wasm/CMakeCache.txt ] || [ -n "${DPADMM_NATIVE_CLI:-}" ]; then
  emcmake cmake -S wasm -B build-wasm -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DEigen3_DIR=/usr/share/eigen3/cmake \
    "-DCMAKE_CROSSCOMPILING_EMULATOR=/usr/bin/node;--no-experimental-fetch" \
    -DDPADMM_NATIVE_CLI="${DPADMM_NATIVE_CLI:-}" "$@" >/dev/null
fi
cmake --build build-wasm
