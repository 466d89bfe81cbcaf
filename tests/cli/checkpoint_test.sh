#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Checkpoint and resume of the dpadmm command, killed for real:
#
#   checkpoint_test.sh DPADMM WORKDIR CASE [MPIRUN...]
#
# CASE kill_ALGORITHM_ENGINE starts a seeded run (--noise-seed) with --checkpoint, which stops
# itself (SIGSTOP, DPADMM_TEST_STOP_AFTER_CHECKPOINT) once its first checkpoint is on disk: the
# test waits until the checkpoint file exists, SIGKILLs it, resumes it with --resume and the same
# flags, and compares the final trace and summary (every value but wall times) with an
# uninterrupted run.
# ALGORITHM is a consensus algorithm, or dpsharing (private ADMM sharing), sharing or sgd.
# ENGINE mpiP_Q (MPIRUN given): the checkpointed run is an mpirun job of P ranks, killed whole
# (mpirun and its ranks, SIGKILL), resumed by a job of Q ranks (node states are keyed by node
# id); the uninterrupted run is serial.
# The other cases check the file's mode and the refusals (different spec, bad files).
set -u

DPADMM=$1
WORK=$2/$3
CASE=$3
shift 3
MPIRUN=("$@")
rm -rf "$WORK" && mkdir -p "$WORK" && cd "$WORK" || exit 1
trap 'cd / && rm -rf "$WORK"' EXIT

fail() {
  echo "FAIL [$CASE]: $*"
  for f in err*.txt; do [ -f "$f" ] && { echo "--- $f:"; cat "$f"; }; done
  # A job still running (e.g. no checkpoint appeared) dies with the test, its ranks too: left
  # behind, a stuck rank would spin on the machine's cores after the test has failed.
  if [ -n "${RUN_PID:-}" ]; then
    kill -9 $(pgrep -P "$RUN_PID") "$RUN_PID" 2>/dev/null
  fi
  exit 1
}

# Every value of BEFORE's trace (CSV) and summary (JSON) but wall times must be in AFTER, equal.
same_results() {
  python3 - "$@" <<'PY' || fail "results differ"
import csv, json, sys
def rows(p):
    with open(p) as f:
        return list(csv.DictReader(l for l in f if not l.startswith("#")))
def leaves(o, p=""):
    if isinstance(o, dict):
        for k, v in o.items():
            yield from leaves(v, p + "." + k)
    elif isinstance(o, list):
        for i, v in enumerate(o):
            yield from leaves(v, f"{p}[{i}]")
    else:
        yield p, o
a, b = rows(sys.argv[1]), rows(sys.argv[2])
if len(a) != len(b):
    sys.exit(f"trace: {len(a)} rows uninterrupted, {len(b)} resumed")
for k, (x, y) in enumerate(zip(a, b)):
    for c, v in x.items():
        if "seconds" not in c and v != y.get(c):
            sys.exit(f"trace row {k} column {c}: {v} uninterrupted, {y.get(c)} resumed")
ja = dict(leaves(json.load(open(sys.argv[3]))))
jb = dict(leaves(json.load(open(sys.argv[4]))))
for p, v in ja.items():
    if "seconds" in p or p.startswith(".info.engine") or p.startswith(".info.threads"):
        continue
    if p not in jb or jb[p] != v:
        sys.exit(f"summary {p}: {v} uninterrupted, {jb.get(p, 'absent')} resumed")
print(f"same: {len(a)} trace rows, {len(ja)} summary values")
PY
}

# The seeded flags of each case (the kill cases add iterations: several checkpoints after the
# first, where the run is killed).
args_of() {
  local common=(--noise-seed 7 --rows 2000 --quiet --engine "$2")
  case "$1" in
    dpsharing) echo "${common[@]} --algorithm sharing --dp --parties 3" ;;
    sharing | sgd) echo "${common[@]} --algorithm $1 --parties 3" ;;
    *) echo "${common[@]} --nodes 6 --algorithm $1" ;;
  esac
}

# Starts "$@" in the background; sets RUN_PID. Under MPIRUN the job is mpirun with its ranks.
start_run() {
  "$@" &
  RUN_PID=$!
}

case "$CASE" in
  kill_*)
    alg=$(echo "$CASE" | cut -d_ -f2)
    engine=$(echo "$CASE" | cut -d_ -f3-)
    cut_with=("$DPADMM")
    resume_with=("$DPADMM")
    if [[ "$engine" == mpi* ]]; then
      [ ${#MPIRUN[@]} -gt 0 ] || fail "an mpi case needs MPIRUN"
      ranks=$(echo "$engine" | sed 's/mpi\([0-9]*\)_\([0-9]*\)/\1/')
      resume_ranks=$(echo "$engine" | sed 's/mpi\([0-9]*\)_\([0-9]*\)/\2/')
      # mpirun's session folder goes to TMPDIR; a killed job cannot remove it: keep it in WORK.
      export TMPDIR=$WORK/tmp
      mkdir -p "$TMPDIR"
      cut_with=("${MPIRUN[@]}" -np "$ranks" "$DPADMM")
      resume_with=("${MPIRUN[@]}" -np "$resume_ranks" "$DPADMM")
      engine=mpi
    fi
    read -r -a ARGS <<<"$(args_of "$alg" "$engine")"
    read -r -a SERIAL_ARGS <<<"$(args_of "$alg" serial)"
    more=()
    case "$alg" in dvp | madmm | admm) more=(--iterations 150) ;;
      pdml) more=(--iterations 150 --label-eps 1 --pdml-V 0.5 --pdml-decay 1) ;;
      *) more=(--iterations 100) ;; esac
    # The mpi engine computes no optimum or baselines (they need every node's data in one
    # process): left out of both runs.
    [ "$engine" = mpi ] && more+=(--no-optimum)
    ARGS+=("${more[@]}")
    SERIAL_ARGS+=("${more[@]}")
    "$DPADMM" run "${SERIAL_ARGS[@]}" --trace full.csv --summary full.json >out.txt \
      2>err_full.txt || fail "uninterrupted run failed"
    # The killed run stops itself after its first checkpoint (mpirun passes the variable on to its
    # ranks): it cannot end before the kill however fast the machine is.
    start_run env DPADMM_TEST_STOP_AFTER_CHECKPOINT=1 "${cut_with[@]}" run "${ARGS[@]}" \
      --trace cut.csv --summary cut.json \
      --checkpoint run.ckpt --checkpoint-every 25 >out.txt 2>err_cut.txt
    pid=$RUN_PID
    for _ in $(seq 1 3000); do
      [ -f run.ckpt ] && break
      sleep 0.01
    done
    [ -f run.ckpt ] || fail "no checkpoint appeared"
    # The whole job: mpirun's ranks (its children) too, so that none writes after the kill.
    children=$(pgrep -P "$pid" || true)
    kill -9 "$pid" $children 2>/dev/null
    wait "$pid"
    status=$?
    [ "$status" -eq 137 ] || fail "the run ended (exit $status) before SIGKILL: make it longer"
    for _ in $(seq 1 500); do
      alive=0
      for c in $children; do kill -0 "$c" 2>/dev/null && ! grep -q zombie /proc/"$c"/status \
        2>/dev/null && alive=1; done
      [ $alive -eq 0 ] && break
      sleep 0.01
    done
    [ -f cut.json ] && fail "a killed run left a summary"
    mode=$(stat -c %a run.ckpt)
    [ "$mode" = 600 ] || fail "checkpoint mode $mode, expected 600"
    echo "killed pid $pid after its first checkpoint ($(stat -c %s run.ckpt) bytes)"
    # The resumed run continues the killed run's trace (cut.csv.partial, kept as cut.csv).
    "${resume_with[@]}" run "${ARGS[@]}" --trace cut.csv --summary resumed.json \
      --resume run.ckpt --checkpoint run.ckpt --checkpoint-every 25 >out.txt \
      2>err_resume.txt || fail "resumed run failed"
    [ -f cut.csv.partial ] && fail "the killed run's partial trace was left"
    same_results full.csv cut.csv full.json resumed.json
    ;;
  cross_engine)
    # Saved on tbb, resumed on serial: the engine is not part of the spec comparison.
    read -r -a ARGS <<<"$(args_of dvp tbb)"
    "$DPADMM" run "${ARGS[@]}" --iterations 40 --trace full.csv --summary full.json \
      >out.txt 2>err.txt || fail "run failed"
    "$DPADMM" run "${ARGS[@]}" --iterations 40 --trace a.csv --summary a.json \
      --checkpoint run.ckpt --checkpoint-every 30 >out.txt 2>err.txt || fail "run failed"
    read -r -a ARGS <<<"$(args_of dvp serial)"
    "$DPADMM" run "${ARGS[@]}" --iterations 40 --trace a.csv --summary b.json \
      --resume run.ckpt >out.txt 2>err.txt || fail "resume failed"
    same_results full.csv a.csv full.json b.json
    ;;
  refusals)
    read -r -a ARGS <<<"$(args_of dvp serial)"
    "$DPADMM" run "${ARGS[@]}" --iterations 20 --trace a.csv --summary a.json \
      --checkpoint run.ckpt --checkpoint-every 10 >out.txt 2>err.txt || fail "run failed"
    "$DPADMM" run "${ARGS[@]}" --iterations 30 --eta 5 --resume run.ckpt >out.txt 2>err.txt &&
      fail "a different spec was accepted"
    grep -q "different spec" err.txt && grep -q "iterations: 20 in the checkpoint, 30 now" err.txt &&
      grep -q "algorithm.eta: " err.txt || fail "the differences are not named"
    [ "$(wc -l <err.txt)" -eq 1 ] || fail "expected one error line"
    "$DPADMM" run "${ARGS[@]}" --resume a.csv >out.txt 2>err.txt && fail "a trace was resumed"
    grep -q "checkpoint a.csv: not a dpadmm checkpoint" err.txt || fail "foreign file not named"
    head -c 100 run.ckpt >short.ckpt
    "$DPADMM" run "${ARGS[@]}" --resume short.ckpt >out.txt 2>err.txt && fail "truncated accepted"
    grep -q "checkpoint short.ckpt: .*truncated" err.txt || fail "truncation not named"
    "$DPADMM" run "${ARGS[@]}" --checkpoint x.ckpt >out.txt 2>err.txt && fail "no --checkpoint-every"
    grep -q -- "--checkpoint-every: must be >= 1" err.txt || fail "missing every not named"
    "$DPADMM" run "${ARGS[@]}" --checkpoint-every 3 >out.txt 2>err.txt && fail "every alone"
    grep -q -- "--checkpoint-every needs --checkpoint" err.txt || fail "every alone not named"
    # The sharing family: a checkpoint of another spec (another algorithm) is refused too.
    "$DPADMM" sharing --rows 300 --epochs 4 --quiet --noise-seed 1 --dp --trace s.csv \
      --summary s.json --checkpoint s.ckpt --checkpoint-every 2 >out.txt 2>err.txt ||
      fail "sharing checkpoint failed"
    "$DPADMM" sharing --rows 300 --epochs 4 --quiet --noise-seed 1 --resume s.ckpt \
      >out.txt 2>err.txt && fail "a private sharing checkpoint resumed a non-private run"
    grep -q "different spec" err.txt || fail "the sharing difference is not named"
    "$DPADMM" run "${ARGS[@]}" --resume s.ckpt >out.txt 2>err.txt && fail "sharing into dvp"
    grep -q "algorithm.name" err.txt || fail "the algorithm difference is not named"
    "$DPADMM" run "${ARGS[@]}" --checkpoint a.json --checkpoint-every 2 --summary a.json \
      >out.txt 2>err.txt && fail "checkpoint onto the summary accepted"
    [ -f x.ckpt ] && fail "a refused run wrote a checkpoint"
    echo "refusals named"
    ;;
  trace_continues)
    # The resumed run appends to the trace its checkpoint describes (length and checksum of the
    # rows up to the checkpoint): the same trace continues; another path, an edited row, a
    # shorter trace are refused naming the trace and the checkpoint.
    read -r -a ARGS <<<"$(args_of dvp serial)"
    ARGS+=(--iterations 30)
    "$DPADMM" run "${ARGS[@]}" --trace full.csv --summary full.json >out.txt 2>err.txt ||
      fail "run failed"
    "$DPADMM" run "${ARGS[@]}" --trace a.csv --summary a.json --checkpoint run.ckpt \
      --checkpoint-every 10 >out.txt 2>err.txt || fail "checkpointed run failed"
    cp a.csv pristine.csv
    "$DPADMM" run "${ARGS[@]}" --trace other.csv --summary b.json --resume run.ckpt \
      >out.txt 2>err.txt && fail "a resume onto another trace path was accepted"
    grep -q -- "--trace other.csv: the resumed run appends to the trace the run of checkpoint run.ckpt wrote" \
      err.txt && grep -q "no trace at this path" err.txt || fail "missing trace not named"
    sed -i '5s/,0\.\([0-9]\)/,0.9\1/' a.csv  # one digit of row 3 edited
    cmp -s a.csv pristine.csv && fail "the edit did not change the trace"
    "$DPADMM" run "${ARGS[@]}" --trace a.csv --summary b.json --resume run.ckpt >out.txt \
      2>err.txt && fail "a resume onto an edited trace was accepted"
    grep -q "rows differ from them (edited, or another run's trace): refused" err.txt ||
      fail "edited trace not named"
    head -c 200 pristine.csv >a.csv
    "$DPADMM" run "${ARGS[@]}" --trace a.csv --summary b.json --resume run.ckpt >out.txt \
      2>err.txt && fail "a resume onto a shorter trace was accepted"
    grep -q "this trace is shorter" err.txt || fail "shorter trace not named"
    cp pristine.csv a.csv
    "$DPADMM" run "${ARGS[@]}" --trace a.csv --summary b.json --resume run.ckpt >out.txt \
      2>err.txt || fail "the resume onto its own trace failed"
    same_results full.csv a.csv full.json b.json
    echo "trace continued and refusals named"
    ;;
  help)
    "$DPADMM" run --help >out.txt 2>err.txt || fail "help failed"
    grep -q -- "--checkpoint FILE" out.txt && grep -q "0600" out.txt &&
      grep -q -- "--resume FILE" out.txt || fail "--help does not document checkpoints and 0600"
    ;;
  *)
    fail "unknown case"
    ;;
esac
echo "PASS [$CASE]"
