#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `dpadmm run --engine mpi --checkpoint` whose checkpoint rank 0 cannot write (its folder does
# not exist): every rank must end at once (rank 0 aborts the job: well within the 60 s peer
# timeout) with exit 6 and an error naming the checkpoint, and leave no .partial file.
#
#   cli_checkpoint_fails.sh SECONDS DPADMM WORKDIR MPIRUN...
set -u
limit=$1
DPADMM=$2
WORK=$3
shift 3
rm -rf "$WORK" && mkdir -p "$WORK"
start=$(date +%s)
timeout $((limit * 4)) "$@" -n 3 "$DPADMM" run --engine mpi --nodes 6 --rows 600 \
  --iterations 100000000 --noise-seed 3 --no-optimum -q --trace "$WORK/trace.csv" \
  --summary "$WORK/summary.json" --checkpoint "$WORK/missing/run.ckpt" --checkpoint-every 20 \
  >"$WORK/out.txt" 2>"$WORK/err.txt"
rc=$?
elapsed=$(($(date +%s) - start))
grep -v "PMIX ERROR" "$WORK/err.txt" | head -5
echo "exit code $rc after $elapsed s"
fail() { echo "FAIL: $*"; exit 1; }
[ "$elapsed" -le "$limit" ] || fail "the job took more than $limit s"
[ "$rc" -eq 6 ] || fail "exit code $rc, expected 6 (an output could not be written)"
grep -q "dpadmm: error: checkpoint $WORK/missing/run.ckpt: cannot create" "$WORK/err.txt" ||
  fail "the error does not name the checkpoint"
ls "$WORK" | grep -q '\.partial$' && fail "a .partial file was left"
echo "OK: every rank ended with exit 6 naming the checkpoint"
