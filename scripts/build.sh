#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Configures and builds the native Release tree in build/ (installing system packages first),
# the Python extension included.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install_deps.sh
# DPADMM_PYTHON: the Python extension too (python/; scripts/python_test.sh installs it from here).
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DDPADMM_PYTHON=ON \
  -DPYTHON_EXECUTABLE=/usr/bin/python3 "$@" >/dev/null
cmake --build build
