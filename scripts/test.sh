#!/usr/bin/env bash
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
