#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds everything and runs the main job on the built-in default: non-private consensus ADMM,
# 10 nodes on a random connected graph (13 edges), logistic regression on generated twonorm.
# Extra arguments go to `dpadmm run` (see build/cli/dpadmm run --help).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh
exec build/cli/dpadmm run "$@"
