#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs every system package dpadmm needs on Debian 12 (idempotent; skips apt when all are
# present). Run as root (or with sudo available).
set -euo pipefail

packages=(build-essential cmake ninja-build pkg-config libgtest-dev libgmock-dev googletest
          libbenchmark-dev libtbb-dev libeigen3-dev librandom123-dev libcli11-dev
          nlohmann-json3-dev gnuplot-nox
          emscripten chromium  # browser demo: wasm build and its end-to-end test
          clang-14 libfuzzer-14-dev libclang-rt-14-dev  # scripts/fuzz.sh (libFuzzer, ASan, UBSan)
          libopenmpi-dev openmpi-bin  # the MPI engine and its tests under mpirun
          clang-format python3        # scripts/format.sh --check; the golden test's comparison
          python3-sklearn)            # bench/liblinear_side_by_side.py (liblinear, NumPy, SciPy)

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
