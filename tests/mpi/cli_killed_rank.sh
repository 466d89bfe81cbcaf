#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `dpadmm run --engine mpi` on 3 ranks, rank 1 killed (SIGKILL) mid-run: the job must end
# non-zero within SECONDS, and rank 0 must not have reported the run as finished.
#
#   cli_killed_rank.sh SECONDS DPADMM WORKDIR MPIRUN...
set -u
limit=$1
DPADMM=$2
WORK=$3
shift 3
rm -rf "$WORK" && mkdir -p "$WORK"
start=$(date +%s)
"$@" -n 3 "$DPADMM" run --engine mpi --nodes 6 --rows 600 --iterations 100000000 \
  --metrics-every 0 -q --trace "$WORK/trace.csv" --summary "$WORK/summary.json" \
  >"$WORK/out.txt" 2>&1 &
launcher=$!
# The rank-1 process: a child of the launcher whose environment says so.
victim=
for _ in $(seq 1 100); do
  for pid in $(pgrep -P "$launcher"); do
    if tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null | grep -qx "OMPI_COMM_WORLD_RANK=1"; then
      victim=$pid
    fi
  done
  [[ -n $victim ]] && break
  sleep 0.1
done
if [[ -z $victim ]]; then
  echo "FAIL: no rank-1 process found"
  kill "$launcher"
  exit 1
fi
sleep 2  # mid-run: set-up done, rounds under way
kill -9 "$victim"
killed=$(date +%s)
rc=0
for _ in $(seq 1 $((limit * 10))); do
  kill -0 "$launcher" 2>/dev/null || break
  sleep 0.1
done
if kill -0 "$launcher" 2>/dev/null; then
  echo "FAIL: the job still runs ${limit} s after rank 1 was killed"
  kill "$launcher"
  exit 1
fi
wait "$launcher"
rc=$?
grep -v "PMIX ERROR" "$WORK/out.txt"
echo "exit code $rc, $(($(date +%s) - killed)) s after the kill ($((killed - start)) s run)"
if [[ $rc == 0 ]]; then
  echo "FAIL: the job succeeded"
  exit 1
fi
if [[ -s $WORK/summary.json ]] && grep -q '"completed"' "$WORK/summary.json"; then
  echo "FAIL: rank 0 reported a completed run"
  exit 1
fi
echo "OK: the job ended non-zero"
