#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Usage: expect_job_fails.sh SECONDS [--survivors N PATTERN] COMMAND...
# Passes when COMMAND ends within SECONDS, non-zero. With --survivors, it must instead print
# PATTERN at least N times (one line per surviving rank): mpirun --enable-recovery exits 0 even
# when ranks exit non-zero (Open MPI 4.1.4), so there the ranks' own messages are the evidence.
limit=$1
shift
survivors=0
pattern=
if [ "$1" = "--survivors" ]; then
  survivors=$2
  pattern=$3
  shift 3
fi
log=$(mktemp)
start=$(date +%s)
timeout $((limit * 2)) "$@" >"$log" 2>&1
rc=$?
elapsed=$(($(date +%s) - start))
grep -v "PMIX ERROR" "$log"
echo "exit code $rc after ${elapsed} s"
if [ "$rc" -eq 124 ] || [ "$elapsed" -gt "$limit" ]; then
  echo "FAIL: no end within ${limit} s"; rm -f "$log"; exit 1
fi
if [ "$survivors" -gt 0 ]; then
  found=$(grep -c -- "$pattern" "$log")
  rm -f "$log"
  if [ "$found" -lt "$survivors" ]; then
    echo "FAIL: $found of $survivors surviving ranks reported '$pattern'"; exit 1
  fi
  echo "OK: every surviving rank ended with '$pattern'"; exit 0
fi
rm -f "$log"
if [ "$rc" -eq 0 ]; then echo "FAIL: the job succeeded"; exit 1; fi
echo "OK: the job ended non-zero"
