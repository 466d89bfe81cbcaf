#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# A node fault under `dpadmm run --engine mpi`: DVP with alpha = 1e-300 makes every node's noise
# non-finite in round 1. With node 0 placed on rank 2, every rank must end with the diverged
# outcome (exit 3) and rank 0's summary must name rank 2, node 0 and round 1.
#
#   cli_node_fault.sh DPADMM WORKDIR MPIRUN...
set -u
DPADMM=$1
WORK=$2
shift 2
rm -rf "$WORK" && mkdir -p "$WORK"
printf '2\n0\n0\n1\n1\n2\n' >"$WORK/ranks.txt"
timeout 60 "$@" -n 3 "$DPADMM" run --engine mpi --node-ranks "$WORK/ranks.txt" --algorithm dvp \
  --alpha 1e-300 --nodes 6 --rows 600 --iterations 5 --no-optimum -q \
  --trace "$WORK/trace.csv" --summary "$WORK/summary.json" >"$WORK/out.txt" 2>&1
rc=$?
grep -v "PMIX ERROR" "$WORK/out.txt" | head -3
if [[ $rc != 3 ]]; then
  echo "FAIL: exit code $rc, expected 3 (diverged)"
  exit 1
fi
if ! grep -q "rank 2, node 0 diverged in round 1" "$WORK/out.txt" "$WORK/summary.json"; then
  echo "FAIL: the failure does not name rank 2, node 0, round 1"
  exit 1
fi
echo "OK"
