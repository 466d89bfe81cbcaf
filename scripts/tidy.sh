#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# clang-tidy with the project's .clang-tidy over the library, runtime and CLI sources
# (needs a configured build/ with compile_commands.json; scripts/build.sh makes one).
set -euo pipefail
cd "$(dirname "$0")/.."
[ -f build/compile_commands.json ] || cmake -S . -B build -G Ninja -DCMAKE_EXPORT_COMPILE_COMMANDS=ON >/dev/null
git ls-files 'algorithms/*.cpp' 'runtime/*.cpp' 'cli/*.cpp' | xargs -P "$(nproc)" -n 4 \
  clang-tidy -p build --quiet "$@"
