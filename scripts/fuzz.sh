#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds the libFuzzer harnesses (tests/fuzz) in the ASan tree build-asan/ (the "asan" preset:
# clang++-14, ASan+UBSan, coverage-instrumented, shared with scripts/sanitizers.sh asan) and runs
# each for SECONDS (default 60) from its committed seed corpus, printing the executions reached.
# Usage: scripts/fuzz.sh [SECONDS] [HARNESS...]   (harness names without "fuzz_", e.g. csv)
# FUZZ_RUNS=N stops each harness after N executions (SECONDS is then the ceiling).
# FUZZ_FAST=1 keeps no allocation stacks (ASan's malloc_context_size=0): about 1.5x more
# executions for allocation-heavy harnesses (cli); a finding is then re-run on its artifact with
# the default options for a full report.
# New corpus entries go to build-asan/fuzz/corpus/<harness>/ (the committed seeds are only read);
# a finding leaves its input in build-asan/fuzz/artifacts/<harness>/ and makes the script fail.
# Needs clang-14 and libfuzzer-14-dev (scripts/install_deps.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
shift || true
all=(libsvm csv adult asc edge_list partition spec_json party_file node_ranks checkpoint cli
     party_frame)
harnesses=("$@")
[ ${#harnesses[@]} -eq 0 ] && harnesses=("${all[@]}")

start=$SECONDS
cmake --preset asan >/dev/null
cmake --build build-asan --target "${harnesses[@]/#/fuzz_}"
echo "fuzz: build took $((SECONDS - start)) s"

failed=()
summary=()
for h in "${harnesses[@]}"; do
  work=build-asan/fuzz/corpus/$h
  artifacts=build-asan/fuzz/artifacts/$h
  mkdir -p "$work" "$artifacts"
  log=build-asan/fuzz/fuzz_$h.log
  t0=$SECONDS
  status=0
  # UBSan and ASan reports abort; leaks are findings too. -timeout: a single input running
  # longer than 10 s is reported as a hang.
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ASAN_OPTIONS=detect_leaks=1${FUZZ_FAST:+:malloc_context_size=0} \
    "build-asan/tests/fuzz/fuzz_$h" -max_total_time="$seconds" ${FUZZ_RUNS:+-runs=$FUZZ_RUNS} \
      -timeout=10 -max_len=4096 \
      -print_final_stats=1 -artifact_prefix="$artifacts/" "$work" "tests/fuzz/corpus/$h" \
      >"$log" 2>&1 || status=$?
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  elapsed=$((SECONDS - t0))
  line=$(printf '%-14s %10s executions in %4d s' "$h" "${runs:-?}" "$elapsed")
  if [ "$status" -ne 0 ]; then
    line+="  FINDING (exit $status, see $log and $artifacts/)"
    failed+=("$h")
    grep -aE "ERROR|runtime error|terminate called|what\(\)|property violated" "$log" |
      head -5 || true
  fi
  echo "$line"
  summary+=("$line")
done
echo "fuzz: total wall time $((SECONDS - start)) s"
printf '%s\n' "${summary[@]}"
if [ ${#failed[@]} -ne 0 ]; then
  echo "fuzz: findings in: ${failed[*]}" >&2
  exit 1
fi
