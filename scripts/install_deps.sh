#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs every system package dpadmm needs on Debian 12 (idempotent; skips apt when all are
# present). Run as root (or with sudo available).
set -euo pipefail

# `install_deps.sh wasm-tbb`: oneTBB for the threaded wasm build (wasm/CMakeLists.txt,
# DPADMM_WASM_THREADS). The source of Debian 12's onetbb package (2021.8.0, the version the
# native build links), checked against its sha256, built static with Emscripten and -pthread
# into a cache folder; done once (prints the install prefix). About a minute on 2 cores.
if [ "${1:-}" = wasm-tbb ]; then
  cache="${DPADMM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/dpadmm}"
  prefix="$cache/onetbb-wasm-2021.8.0"
  if [ ! -f "$prefix/lib/cmake/TBB/TBBConfig.cmake" ]; then
    mkdir -p "$cache"
    tarball="$cache/onetbb_2021.8.0.orig.tar.xz"
    sha256=7e9111b8bb59c8800bf6d0b06afe7b0891937443d2dae1ee1101c8e2ede6a7ef
    if ! echo "$sha256  $tarball" | sha256sum -c --quiet >/dev/null 2>&1; then
      curl -fsSL --retry 3 -o "$tarball.part" \
        http://deb.debian.org/debian/pool/main/o/onetbb/onetbb_2021.8.0.orig.tar.xz
      echo "$sha256  $tarball.part" | sha256sum -c --quiet >&2
      mv "$tarball.part" "$tarball"
    fi
    rm -rf "$cache/oneTBB-2021.8.0" "$cache/onetbb-wasm-build"
    tar -C "$cache" -xf "$tarball"
    # Resumable tasks on threads (wasm has no ucontext); no tbbmalloc (Emscripten's malloc);
    # TBB_STRICT off: Emscripten warns about TBB's x86 flags (-mrtm, -mwaitpkg).
    export NODE_PATH=/usr/share/nodejs
    emcmake cmake -S "$cache/oneTBB-2021.8.0" -B "$cache/onetbb-wasm-build" -G Ninja \
      -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=OFF -DTBB_TEST=OFF -DTBB_EXAMPLES=OFF \
      -DTBBMALLOC_BUILD=OFF -DTBB_STRICT=OFF -DCMAKE_C_FLAGS=-pthread \
      "-DCMAKE_CXX_FLAGS=-pthread -fwasm-exceptions -D__TBB_RESUMABLE_TASKS_USE_THREADS=1" \
      -DCMAKE_INSTALL_PREFIX="$prefix" >/dev/null
    cmake --build "$cache/onetbb-wasm-build" -j2 >/dev/null
    cmake --install "$cache/onetbb-wasm-build" >/dev/null
    rm -rf "$cache/oneTBB-2021.8.0" "$cache/onetbb-wasm-build"
  fi
  echo "$prefix"
  exit 0
fi

packages=(build-essential cmake ninja-build pkg-config libgtest-dev libgmock-dev googletest
          libbenchmark-dev libtbb-dev libeigen3-dev librandom123-dev libcli11-dev
          nlohmann-json3-dev gnuplot-nox
          emscripten chromium  # browser demo: wasm build and its end-to-end test
          clang-14 libfuzzer-14-dev libclang-rt-14-dev  # scripts/fuzz.sh (libFuzzer, ASan, UBSan)
          libopenmpi-dev openmpi-bin  # the MPI engine and its tests under mpirun
          libgrpc++-dev protobuf-compiler-grpc protobuf-compiler libprotobuf-dev  # network engine
          openssl                     # scripts/make_certs.sh (the network engine's test certificates)
          clang-format python3        # scripts/format.sh --check; the golden test's comparison
          curl ca-certificates xz-utils  # `install_deps.sh wasm-tbb`: oneTBB's Debian source
          python3-sklearn             # bench/liblinear_side_by_side.py (liblinear, NumPy, SciPy)
          python3-dev pybind11-dev python3-pybind11 python3-numpy python3-scipy  # python/
          python3-pytest python3-venv python3-setuptools python3-pip
          python3-matplotlib          # examples/python/privacy_utility.py's plot
          python3-sphinx python3-myst-parser python3-breathe doxygen furo)  # scripts/docs.sh
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# node and npm (the front-end's build): Debian's only when none is installed, so that a newer
# node already on the machine (Vite needs >= 20.19) is never replaced.
command -v node >/dev/null 2>&1 || missing+=(nodejs)
command -v npm >/dev/null 2>&1 || missing+=(npm)
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
echo "installing: ${missing[*]}" >&2
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
$SUDO apt-get -o DPkg::Lock::Timeout=600 update -q
DEBIAN_FRONTEND=noninteractive $SUDO apt-get -o DPkg::Lock::Timeout=600 install -y -q \
  --no-install-recommends "${missing[@]}"
