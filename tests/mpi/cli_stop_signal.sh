#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `dpadmm run --engine mpi` stopped by SIGTERM or SIGINT sent to mpirun, which passes SIGTERM to
# every rank and kills what still runs a second later: every rank must stop the run at once
# (exit 4, cancelled), rank 0 with its trace and summary complete at their paths and no
# .partial file left. (A rank that died of the signal took the job down with rank 0's outputs
# half-written.)
#
#   cli_stop_signal.sh SIGNAL DPADMM WORKDIR MPIRUN...
set -u
sig=$1
DPADMM=$2
WORK=$3
shift 3
rm -rf "$WORK" && mkdir -p "$WORK"
fail() {
  echo "FAIL: $*"
  cat "$WORK/err.txt"
  ls -la "$WORK"
  [ -n "${launcher:-}" ] && kill -9 $(pgrep -P "$launcher") "$launcher" 2>/dev/null
  exit 1
}
"$@" -n 3 "$DPADMM" run --engine mpi --nodes 6 --rows 600 --iterations 100000000 \
  --noise-seed 3 --algorithm dvp --no-optimum -q --trace "$WORK/trace.csv" \
  --summary "$WORK/summary.json" >"$WORK/out.txt" 2>"$WORK/err.txt" &
launcher=$!
# Mid-run: a few rounds are in the trace (bounded wait: 120 s on a loaded machine).
for _ in $(seq 1 1200); do
  [ -f "$WORK/trace.csv.partial" ] && [ "$(wc -l <"$WORK/trace.csv.partial")" -gt 5 ] && break
  kill -0 "$launcher" 2>/dev/null || fail "the job ended before the signal"
  sleep 0.1
done
kill -s "$sig" "$launcher"
sent=$(date +%s)
for _ in $(seq 1 600); do
  kill -0 "$launcher" 2>/dev/null || break
  sleep 0.1
done
kill -0 "$launcher" 2>/dev/null && fail "the job still runs 60 s after SIG$sig"
wait "$launcher"
rc=$?
echo "mpirun exit code $rc, $(($(date +%s) - sent)) s after SIG$sig"
ls "$WORK"
[ -f "$WORK/trace.csv" ] || fail "no trace at its path"
[ -f "$WORK/summary.json" ] || fail "no summary at its path"
ls "$WORK" | grep -q '\.partial$' && fail "a .partial file was left"
python3 - "$WORK/trace.csv" "$WORK/summary.json" <<'PY' || fail "incomplete outputs"
import csv, json, sys
rows = list(csv.reader(l for l in open(sys.argv[1]) if not l.startswith("#")))
assert len(rows) > 2 and all(len(r) == len(rows[0]) for r in rows), "trace rows"
s = json.load(open(sys.argv[2]))
assert s["outcome"] == "cancelled", s["outcome"]
print(f"trace {len(rows) - 1} rows, summary outcome {s['outcome']}")
PY
# Every rank ended by itself with exit 4: mpirun reports no rank killed by a signal.
grep -q "signal" "$WORK/err.txt" && fail "a rank died of a signal"
echo "OK: every rank stopped with the run cancelled, outputs complete"
