#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds and runs the whole test suite (what .ci/run calls), each stage timed:
#   1. formatting and licence lines (scripts/format.sh --check);
#   2. the release build and every ctest: unit, engine (serial, TBB, MPI under mpirun with 1-4
#      ranks), ADMM, CLI, golden seeded runs, the installed package and examples/embed; then the
#      Python package's pytest suite (scripts/python_test.sh, reusing the release build); then
#      the documentation site with warnings as errors, its links and its runnable snippets
#      (scripts/docs.sh, which needs the release build's CLI and the Python package);
#   3. sanitizers: the suite under ASan+UBSan (clang; the cases it leaves to the release build
#      are named in scripts/sanitizers.sh), the engine and channel tests under TSan with
#      an instrumented oneTBB, and a planted race that TSan must catch (scripts/sanitizers.sh);
#   4. a fuzz smoke of every parser (scripts/fuzz.sh; DPADMM_FUZZ_SECONDS per harness, default 5);
#   5. the browser demo: the wasm build's tests under node (traces compared bit for bit with the
#      native CLI), then the page end to end in headless Chromium.
set -euo pipefail
cd "$(dirname "$0")/.."
stages=()
times_file=$(mktemp)
trap 'rm -f "$times_file"' EXIT
cpu_seconds() {  # sets cpu to the user + system seconds of this shell's finished children
  times >"$times_file"  # in this shell: a subshell would see none of its parent's children
  cpu=$(tail -1 "$times_file" |
    awk '{ s = 0; for (i = 1; i <= 2; ++i) { split($i, t, /[ms]/); s += t[1] * 60 + t[2] } printf "%d", s }')
}
stage() {  # stage NAME COMMAND...: wall and CPU seconds (CPU time barely moves on a busy machine)
  local name=$1 t0=$SECONDS c0 cpu
  cpu_seconds
  c0=$cpu
  shift
  echo "== test.sh: $name" >&2
  "$@"
  cpu_seconds
  stages+=("$(printf '%-34s %5d s wall %6d s cpu' "$name" $((SECONDS - t0)) $((cpu - c0)))")
  echo "== test.sh: ${stages[-1]}" >&2
}
start=$SECONDS

scripts/install_deps.sh
stage "format check" scripts/format.sh --check
stage "release build" scripts/build.sh
stage "ctest (release)" bash -c 'cd build && ctest --output-on-failure -j2'
stage "python package (pytest)" scripts/python_test.sh
stage "docs (site, links, snippets)" scripts/docs.sh
stage "sanitizers (asan, tsan, race)" scripts/sanitizers.sh asan tsan race
stage "fuzz smoke" scripts/fuzz.sh "${DPADMM_FUZZ_SECONDS:-5}"
stage "wasm build" env DPADMM_NATIVE_CLI="$PWD/build/cli/dpadmm" scripts/build_wasm.sh
stage "wasm ctest (node)" bash -c 'cd build-wasm && ctest --output-on-failure -j2'
stage "web build" bash -c 'cd web && npm ci --no-audit --no-fund && npm run build'
stage "browser end to end" bash -c \
  'cd web && DPADMM_NATIVE_CLI="$PWD/../build/cli/dpadmm" node e2e/e2e.mjs'

echo "test.sh: all stages passed in $((SECONDS - start)) s" >&2
printf '  %s\n' "${stages[@]}" >&2
