#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Sanitizer runs, each step timed:
#   asan  the whole project with AddressSanitizer + UndefinedBehaviorSanitizer (CMakePresets.json
#         "asan", build-asan/: clang++-14 at -O1, coverage-instrumented so that scripts/fuzz.sh
#         builds its harnesses in the same tree) and the ctest suite as listed in asan_test;
#   tsan  oneTBB 2021.8 built from the Debian source package with -fsanitize=thread (cached in
#         build-tsan-tbb/), engine_race_tests (the test files holding the engine, channel,
#         engine-comparison and planted-race tests) with ThreadSanitizer against it (build-tsan/,
#         line tables only), and those tests with halt_on_error=1;
#   race  proof that the TSan build catches a race: a planted race among TBB-engine nodes
#         (PlantedRace.* in tests/test_hardening.cpp, skipped unless DPADMM_PLANT_RACE=1) must
#         be reported, or this step fails.
# Usage: scripts/sanitizers.sh [asan|tsan|race]...   (default: all three)
set -euo pipefail
cd "$(dirname "$0")/.."
steps=("$@")
[ ${#steps[@]} -eq 0 ] && steps=(asan tsan race)
root=$PWD
times=()

timed() {  # timed NAME COMMAND...: runs and records the wall time
  local name=$1 t0=$SECONDS
  shift
  "$@"
  times+=("$(printf '%-28s %5d s' "$name" $((SECONDS - t0)))")
  echo "sanitizers: $name took $((SECONDS - t0)) s"
}

# ---- ASan + UBSan ------------------------------------------------------------------------------
asan_configure() { cmake --preset asan >/dev/null; }
asan_build() { cmake --build build-asan; }
asan_test() {
  # Leaks are errors; UBSan stops at the first report (the preset also sets
  # -fno-sanitize-recover). The `package` label (consumer_find_package) is excluded: it
  # installs this build and links a separate, uninstrumented consumer project against the
  # instrumented static libraries, which fails at link time on the __asan_*/__ubsan_* symbols;
  # it tests packaging, which the release build covers.
  # The MPI tests (label `mpi`) run with leak detection off: Open MPI keeps about 120 KB of
  # allocations of its own libraries and dlopen'ed components alive at exit (frames in
  # libopen-pal and unloaded modules, which a suppression cannot name); every other ASan and
  # UBSan check stays on for them.
  # cli.out_of_memory_names_input is excluded: it checks that a failed allocation (std::bad_alloc)
  # ends the run with exit 2 under an address-space limit (ulimit -v), which ASan's shadow
  # memory cannot start under; the release build runs it.
  # The MPI command-line same-bits groups (mpi_cli_same_bits.*: every algorithm's command on
  # 1-4 ranks, compared with the serial engine) are left to the release build: under ASan the
  # MPI engine runs in mpi_engine_np*, mpi_faults_np* and mpi_experiment_np* (1-4 ranks), and
  # the command on the mpi engine in the killed-rank, stop-signal, checkpoint and node-fault
  # cases.
  # Pld.ComposedGaussiansEqualTheAnalyticGaussian and PldCompose.GridFollowsTheFigure (54 s and
  # 22 s under ASan) compose thousands of distributions through the same folds that the other
  # Pld and PldCompose tests run under ASan; the release build runs them.
  # The chaos trials (label `chaos`) and the MPI same-bits check under busy loops test how
  # processes end under signals, full disks and load, not memory safety, and would take most of
  # this stage's time under ASan's slowdown: the release build runs them.
  # The command-line kill-and-resume cases (cli.checkpoint.kill_*: a run killed after its first
  # checkpoint, resumed, compared bit for bit) took 14-95 s each under ASan, half of this stage's
  # test time, for code the unit tests run under ASan in one process (checkpoint writing,
  # loading and resuming: CorruptCheckpoint.*, PartyCheckpoint.*, the checkpoint tests); the
  # release build runs all of them.
  # tests/lsan.supp: OpenSSL objects gRPC's TLS still holds when a refused party exits.
  (cd build-asan &&
   ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:strict_string_checks=1 \
   LSAN_OPTIONS="suppressions=$root/tests/lsan.supp:print_suppressions=0" \
   UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
     ctest --output-on-failure -j2 --label-exclude 'package|mpi|chaos' \
       --exclude-regex '^cli\.out_of_memory_names_input$|^cli\.checkpoint\.kill_|^Pld\.ComposedGaussiansEqualTheAnalyticGaussian$|^PldCompose\.GridFollowsTheFigure$')
  (cd build-asan &&
   ASAN_OPTIONS=detect_leaks=0:abort_on_error=0:strict_string_checks=1 \
   UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
     ctest --output-on-failure -j2 --label-regex '^mpi$' \
       --exclude-regex '^cli\.checkpoint\.kill_|^mpi_cli_same_bits\.')
}

# ---- ThreadSanitizer with an instrumented oneTBB -----------------------------------------------
tbb_dir=$root/build-tsan-tbb
tbb_config=$tbb_dir/install/lib/cmake/TBB
tbb_build() {
  if [ -f "$tbb_config/TBBConfig.cmake" ]; then
    echo "sanitizers: reusing the instrumented oneTBB in $tbb_dir/install"
    return
  fi
  # The Debian source package through a private apt configuration (no change to the system's
  # sources): the machine's own Debian archive entries, as deb-src.
  local apt=$tbb_dir/apt
  mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$apt/parts" "$tbb_dir/src"
  : >"$apt/sources.list"
  if [ -f /etc/apt/sources.list ]; then
    sed -n 's/^deb /deb-src /p' /etc/apt/sources.list >>"$apt/sources.list"
  fi
  if [ -f /etc/apt/sources.list.d/debian.sources ]; then
    sed 's/^Types: deb$/Types: deb-src/' /etc/apt/sources.list.d/debian.sources \
      >"$apt/parts/debian.sources"
  fi
  local opts=(-o "Dir::Etc::SourceList=$apt/sources.list" -o "Dir::Etc::SourceParts=$apt/parts"
              -o "Dir::State::Lists=$apt/lists" -o "Dir::Cache=$apt/cache"
              -o "Debug::NoLocking=1")
  apt-get "${opts[@]}" update -q
  (cd "$tbb_dir/src" && apt-get "${opts[@]}" source --download-only onetbb)
  local orig
  orig=$(ls "$tbb_dir"/src/onetbb_*.orig.tar.* | head -1)
  rm -rf "$tbb_dir/onetbb"
  mkdir -p "$tbb_dir/onetbb"
  tar xf "$orig" -C "$tbb_dir/onetbb" --strip-components=1
  cmake -S "$tbb_dir/onetbb" -B "$tbb_dir/build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_INSTALL_PREFIX="$tbb_dir/install" -DTBB_SANITIZE=thread -DTBB_TEST=OFF \
    -DTBB_EXAMPLES=OFF -DTBBMALLOC_BUILD=OFF -DTBB_STRICT=OFF >/dev/null
  cmake --build "$tbb_dir/build"
  cmake --install "$tbb_dir/build" >/dev/null
}
tsan_configure() {
  cmake -S . -B build-tsan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_FLAGS="-fsanitize=thread" -DTBB_DIR:PATH="$tbb_config" \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" -DDPADMM_ENGINE_RACE_TESTS=ON \
    -DDPADMM_BUILD_BENCH=OFF -DDPADMM_BUILD_CLI=OFF >/dev/null
  # Refuse to run against the uninstrumented system library (dozens of false reports).
  grep -qx "TBB_DIR:PATH=$tbb_config" build-tsan/CMakeCache.txt ||
    { echo "sanitizers: build-tsan does not use $tbb_config" >&2; return 1; }
}
# engine_race_tests: the files of dpadmm_tests that hold the engine, channel and planted-race
# tests (tests/CMakeLists.txt), so the instrumented build compiles only those.
tsan_build() { cmake --build build-tsan --target engine_race_tests channel_stress_test; }
tsan_filter='*Engine*:SpscChannel*'
tsan_test() {
  # ldd's whole output first: `ldd | grep -q` under pipefail fails when grep stops reading at
  # its match and ldd then writes to the closed pipe (seen in about 1 run of 20).
  local libs
  libs=$(ldd build-tsan/tests/engine_race_tests)
  grep -q "$tbb_dir/install" <<<"$libs" ||
    { echo "sanitizers: engine_race_tests is not linked to the instrumented oneTBB" >&2; return 1; }
  TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 \
    build-tsan/tests/engine_race_tests --gtest_filter="$tsan_filter" --gtest_brief=1
  TSAN_OPTIONS=halt_on_error=1 build-tsan/tests/channel_stress_test --gtest_brief=1
}
race_test() {
  local log=build-tsan/planted_race.log status=0
  DPADMM_PLANT_RACE=1 TSAN_OPTIONS=halt_on_error=1 \
    build-tsan/tests/engine_race_tests --gtest_filter='PlantedRace.*' >"$log" 2>&1 || status=$?
  if [ "$status" -ne 0 ] && grep -q "WARNING: ThreadSanitizer: data race" "$log"; then
    echo "sanitizers: the planted race was caught (exit $status):"
    grep -A12 "WARNING: ThreadSanitizer: data race" "$log" | head -14
  else
    echo "sanitizers: the planted race was NOT caught (exit $status); see $log" >&2
    return 1
  fi
}

start=$SECONDS
for step in "${steps[@]}"; do
  case $step in
    asan)
      timed "asan: configure" asan_configure
      timed "asan: build" asan_build
      timed "asan: ctest" asan_test ;;
    tsan)
      timed "tsan: oneTBB (cached)" tbb_build
      timed "tsan: configure" tsan_configure
      timed "tsan: build" tsan_build
      timed "tsan: engine/channel tests" tsan_test ;;
    race)
      [ -x build-tsan/tests/engine_race_tests ] || { tbb_build; tsan_configure; tsan_build; }
      timed "tsan: planted race" race_test ;;
    *) echo "unknown step '$step' (asan, tsan, race)" >&2; exit 2 ;;
  esac
done
echo "sanitizers: total $((SECONDS - start)) s"
printf '%s\n' "${times[@]}"
