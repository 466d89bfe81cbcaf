#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds and runs the whole test suite: unit, engine, ADMM, CLI and package tests (ctest), then
# the channel stress test again under ThreadSanitizer.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh
(cd build && ctest --output-on-failure -j2)

# ThreadSanitizer: the SPSC channel stress test uses std::thread only, so it is meaningful
# against the uninstrumented system libraries.
cmake -S . -B build-tsan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS="-fsanitize=thread" -DDPADMM_BUILD_BENCH=OFF -DDPADMM_BUILD_CLI=OFF >/dev/null
cmake --build build-tsan --target channel_stress_test
TSAN_OPTIONS="halt_on_error=1" build-tsan/tests/channel_stress_test

# Browser demo: the wasm build's unit tests under node (including a trace compared bit for bit
# with the native CLI's), then the page end to end in headless Chromium (screenshots in
# build-wasm/e2e-artifacts/).
DPADMM_NATIVE_CLI="$PWD/build/cli/dpadmm" scripts/build_wasm.sh
(cd build-wasm && ctest --output-on-failure -j2)
(cd web && npm ci --no-audit --no-fund && npm run build)
(cd web && DPADMM_NATIVE_CLI="$PWD/../build/cli/dpadmm" node e2e/e2e.mjs)
