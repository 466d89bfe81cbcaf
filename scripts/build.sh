#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Configures and builds the native Release tree in build/ (installing system packages first).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install_deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
cmake --build build
