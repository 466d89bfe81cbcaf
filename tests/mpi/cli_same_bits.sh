#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `dpadmm run --engine mpi` on 1, 2, 3 and 4 ranks (and --engine tbb) must give the serial engine's trajectory bit
# for bit, for every algorithm of both families: traces and summaries are compared with
# tests/golden/compare.py (every value except wall times), and exit codes must agree.
# The centralized optimum and the sharing baselines are off (--no-optimum): the mpi engine does
# not compute them (they need every node's rows in one process).
# A run that exits 0 must have its trace and summary complete at their paths when it exits:
# each is checked right after its run (not after all runs), so that an output completed after
# the job ended fails here.
#
#   cli_same_bits.sh DPADMM WORKDIR CASES MPIRUN...   (CASES: comma-separated names, or all)
# SAME_BITS_RANKS (default "1 2 3 4"): the rank counts each case runs on; the 2-rank run with a
# node-to-rank map that is not in blocks runs always.
set -uo pipefail
DPADMM=$1
WORK=$2
SELECTED=$3
shift 3
MPIRUN=("$@")
HERE=$(cd "$(dirname "$0")" && pwd)
COMPARE=$HERE/../golden/compare.py
rm -rf "$WORK" && mkdir -p "$WORK"
failures=0

# LIBSVM files (0/1 labels, blank lines, the test file wider than the training file): on the
# mpi engine each rank reads only its own nodes' rows (LoadLibsvmRows).
python3 - "$WORK" <<'PY'
import random, sys
random.seed(1)
for name, n, width in (("train", 300, 25), ("test", 80, 28)):
    with open(f"{sys.argv[1]}/{name}.libsvm", "w") as f:
        for r in range(n):
            idx = sorted(random.sample(range(1, width + 1), random.randint(1, 6)))
            f.write(random.choice("01") + " " +
                    " ".join(f"{i}:{random.uniform(-3, 3):.4f}" for i in idx) + "\n")
            if r % 50 == 7:
                f.write("\n")
# A CSV file with a header and 0/1 labels (each rank parses only its own nodes' rows).
with open(f"{sys.argv[1]}/train.csv", "w") as f:
    f.write("a,b,c,d,label\n")
    for r in range(300):
        y = r % 2
        f.write(",".join(f"{(2 * y - 1) * 0.4 + random.gauss(0, 1) * 10 ** (j - 1):.5f}"
                         for j in range(4)) + f",{y}\n")
PY
libsvm=(--data libsvm --train "$WORK/train.libsvm" --nodes 5 --edges 7 --iterations 8 --seed 7 --noise-seed 7
  --no-optimum -q)

base=(--rows 600 --nodes 5 --edges 7 --seed 7 --noise-seed 7 --no-optimum -q)
common=("${base[@]}" --iterations 12)
declare -A CASES=(
  [admm]="${common[*]} --algorithm admm"
  [admm_tol]="${base[*]} --algorithm admm --iterations 200 --tolerance 1e-3"
  [dvp]="${common[*]} --algorithm dvp --alpha 0.5 --eta 10"
  [pvp]="${common[*]} --algorithm pvp --alpha 0.5"
  [madmm]="${common[*]} --algorithm madmm --alpha 0.5 --q1 1.05 --q2 1.02"
  [radmm]="${common[*]} --algorithm radmm --metrics-every 1"
  [mradmm]="${common[*]} --algorithm mradmm --q1 1.04"
  [pmradmm]="${common[*]} --algorithm private_mradmm --alpha 1 --q1 1.04 --eta 20"
  [pdml]="${common[*]} --algorithm pdml --label-eps 1 --pdml-R 0.1 --pdml-V 0.01 --eta 1"
  [dvp_budget]="${common[*]} --algorithm dvp --loss smooth_hinge --alpha 1 --privacy-budget 10"
  [libsvm_split]="${libsvm[*]} --algorithm dvp --alpha 0.5 --eta 10"
  [libsvm_test]="${libsvm[*]} --algorithm radmm --test $WORK/test.libsvm --bias"
  [csv_dp_bounds]="--data csv --train $WORK/train.csv --header --nodes 5 --edges 7 --iterations 8 --seed 7 --noise-seed 7 --no-optimum -q --algorithm dvp --alpha 0.5 --eta 10 --scaling dp-bounds --bounds-epsilon 20 --bias"
  [sharing_csv]="--algorithm sharing --data csv --train $WORK/train.csv --header --parties 3 --iterations 6 --seed 3 --noise-seed 3 --no-optimum -q --metrics released-only --scaling clip-only --dp --epsilon 0.5 --b1 2"
  [dvp_dp_bounds]="${common[*]} --algorithm dvp --alpha 0.5 --eta 10 --scaling dp-bounds --bounds-epsilon 0.5"
  # The CSV's features are in raw units: auto standardizes (the nodes' moments, combined in node
  # order across ranks); dp-standardize sums the ranks' releases.
  [csv_standardize]="--data csv --train $WORK/train.csv --header --nodes 5 --edges 7 --iterations 8 --seed 7 --no-optimum -q --algorithm admm --bias"
  [csv_dp_standardize]="--data csv --train $WORK/train.csv --header --nodes 5 --edges 7 --iterations 8 --seed 7 --noise-seed 7 --no-optimum -q --algorithm dvp --alpha 0.5 --eta 10 --scaling dp-standardize --standardize-epsilon 2 --bounds-epsilon 20 --bias"
  [sharing]="--algorithm sharing --rows 400 --dims 30 --parties 3 --iterations 6 --seed 3 --noise-seed 3 --no-optimum -q"
  [sharing_dp]="--algorithm sharing --rows 400 --dims 30 --parties 3 --iterations 6 --seed 3 --noise-seed 3 --no-optimum -q --dp --epsilon 0.5 --b1 2"
  [sgd]="--algorithm sgd --rows 400 --dims 30 --parties 3 --iterations 3 --seed 3 --noise-seed 3 --no-optimum -q"
  # The sharing family on LIBSVM: each rank parses only its parties' values (and the labels
  # where the coordinator is); global-max-norm and metrics all from column-ordered sums.
  [sharing_libsvm]="--algorithm sharing --data libsvm --train $WORK/train.libsvm --test $WORK/test.libsvm --bias --parties 3 --iterations 6 --seed 3 --noise-seed 3 --no-optimum -q"
  [sharing_libsvm_dp]="--algorithm sharing --data libsvm --train $WORK/train.libsvm --parties 3 --iterations 6 --seed 3 --noise-seed 3 --no-optimum -q --metrics released-only --dp --epsilon 0.5 --b1 2"
  [sgd_libsvm]="--algorithm sgd --data libsvm --train $WORK/train.libsvm --test $WORK/test.libsvm --bias --parties 3 --iterations 3 --seed 3 --no-optimum -q"
)

if [[ $SELECTED == all ]]; then
  NAMES=("${!CASES[@]}")
else
  IFS=, read -r -a NAMES <<<"$SELECTED"
  for name in "${NAMES[@]}"; do
    [[ -n ${CASES[$name]+x} ]] || { echo "cli_same_bits.sh: no case '$name'"; exit 2; }
  done
fi

LAUNCH=()
run() {  # DIR NAME ENGINE-ARGS...: "${LAUNCH[@]}" run CASE ENGINE-ARGS; records the exit code
  local dir=$1 name=$2 rc
  shift 2
  mkdir -p "$WORK/$dir"
  # shellcheck disable=SC2086
  "${LAUNCH[@]}" run ${CASES[$name]} "$@" --trace "$WORK/$dir/$name.csv" --summary "$WORK/$dir/$name.json" \
    >"$WORK/$dir/$name.out" 2>"$WORK/$dir/$name.err"
  rc=$?
  echo $rc >"$WORK/$dir/$name.rc"
  # Exit 0: both outputs are complete now, when the launcher has returned.
  if [[ $rc == 0 ]] && ! python3 - "$WORK/$dir/$name.csv" "$WORK/$dir/$name.json" <<'PY'; then
import csv, json, os, sys
trace, summary = sys.argv[1:]
for p in (trace, summary):
    if not os.path.exists(p):
        sys.exit(f"{p} missing when the run had exited 0 ({os.listdir(os.path.dirname(p))})")
rows = [r for r in csv.reader(l for l in open(trace) if not l.startswith("#"))]
if len(rows) < 2 or any(len(r) != len(rows[0]) for r in rows):
    sys.exit(f"{trace}: incomplete")
json.load(open(summary))
PY
    echo "INCOMPLETE OUTPUT: $dir/$name exited 0"
    failures=$((failures + 1))
  fi
}

for name in "${NAMES[@]}"; do
  LAUNCH=("$DPADMM")
  run serial "$name" --engine serial
  run tbb "$name" --engine tbb
  for ranks in ${SAME_BITS_RANKS:-1 2 3 4}; do
    LAUNCH=("${MPIRUN[@]}" -n "$ranks" "$DPADMM")
    run "np$ranks" "$name" --engine mpi
  done
  # A map that is not in blocks (node i on rank i mod 2 ... reversed).
  # (Sharing family: the coordinator and 3 parties.)
  echo -e "1\n0\n1\n0\n1\n0" |
    head -n "$([[ $name == sharing* || $name == sgd* ]] && echo 4 || echo 5)" >"$WORK/map_$name.txt"
  LAUNCH=("${MPIRUN[@]}" -n 2 "$DPADMM")
  run "np2map" "$name" --engine mpi --node-ranks "$WORK/map_$name.txt"
done

for dir in tbb np1 np2 np3 np4 np2map; do
  for name in "${NAMES[@]}"; do
    [[ -f $WORK/$dir/$name.rc ]] || continue
    if [[ $(cat "$WORK/serial/$name.rc") != "$(cat "$WORK/$dir/$name.rc")" ]]; then
      echo "DIFFERENT: $dir/$name exit code $(cat "$WORK/$dir/$name.rc"), serial" \
        "$(cat "$WORK/serial/$name.rc")"
      cat "$WORK/$dir/$name.err"
      failures=$((failures + 1))
      continue
    fi
    # Other ranks print nothing but errors: the output is rank 0's alone. Rank 0's run warnings
    # (RunWarnings: simulation mode, a model that learned nothing) are expected here.
    if grep -v '^dpadmm: warning: ' "$WORK/$dir/$name.err" | grep -q .; then
      echo "UNEXPECTED STDERR: $dir/$name"
      cat "$WORK/$dir/$name.err"
      failures=$((failures + 1))
    fi
    if ! python3 "$COMPARE" "$WORK/serial" "$WORK/$dir" "$name.csv" "$name.json"; then
      echo "  in $dir/$name"
      failures=$((failures + 1))
    fi
  done
done
echo "$failures difference(s)"
[[ $failures == 0 ]]
