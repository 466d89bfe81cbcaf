#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# End-to-end tests of `dpadmm sweep` and `dpadmm run --target-epsilon`: a tiny sweep writes a
# CSV with one row per (algorithm, epsilon) plus the reference lines and a parseable SVG with
# labelled axes; a calibrated run's tight epsilon is the target and its trace's last
# tight_epsilon is the summary's; bad options exit 2 naming the flag or field.
#
#   cli_sweep_test.sh DPADMM WORKDIR CASE
set -u

DPADMM=$1
WORK=$2/$3
CASE=$3
rm -rf "$WORK" && mkdir -p "$WORK" && cd "$WORK" || exit 1

fail() {
  echo "FAIL [$CASE]: $*"
  echo "--- stdout:"; cat out.txt 2>/dev/null
  echo "--- stderr:"; cat err.txt 2>/dev/null
  exit 1
}

expect() {  # expect CODE STDERR_REGEX -- COMMAND...
  local code=$1 regex=$2
  shift 3
  "$@" >out.txt 2>err.txt
  local got=$?
  echo "ran: $* -> exit $got"
  [ "$got" -eq "$code" ] || fail "exit code $got, expected $code"
  if [ -n "$regex" ]; then
    grep -Eq -- "$regex" err.txt || fail "stderr does not match /$regex/"
  fi
}

tiny="--rows 400 --nodes 4 --edges 5 --iterations 10 --seed 5 --engine serial"

case $CASE in
  tiny_sweep)
    expect 0 "" -- "$DPADMM" sweep --algorithms dvp,pvp,sharing --epsilons 0.5,5 --seeds 2 \
      --delta 1e-5 $tiny --out out
    [ -f out/sweep.csv ] || fail "no sweep.csv"
    [ -f out/sweep.svg ] || fail "no sweep.svg"
    rows=$(grep -vc '^#' out/sweep.csv)
    [ "$rows" -eq 10 ] || fail "sweep.csv has $rows rows, expected 1 header + 6 cells + 3 lines"
    # The cell's delta: 1e-5 plus the l2-Laplace sampler's floating-point term (> 1e-5).
    grep -Eq '^dvp,0.5,[1-9](\.[0-9]+)?e-05,2,' out/sweep.csv || fail "no dvp eps 0.5 row"
    grep -q '^sharing,5,1e-05,2,' out/sweep.csv || fail "no sharing eps 5 row"
    grep -q '^centralized,,' out/sweep.csv || fail "no centralized row"
    grep -q 'dvp' out.txt || fail "no table on stdout"
    python3 - out/sweep.svg <<'PY' || fail "sweep.svg does not parse or lacks axes/legend"
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
assert root.tag.endswith('svg'), root.tag
text = ' '.join(t.text or '' for t in root.iter() if t.tag.endswith('text'))
for part in ('test accuracy (%)', 'total epsilon', 'log scale', 'dvp', 'pvp', 'sharing',
             'centralized', 'ADMM (non-private)', 'majority class'):
    assert part in text, part
assert any(e.tag.endswith('polygon') for e in root.iter()), 'no band'
PY
    ;;
  bad_algorithm)
    expect 2 "admm.*(not private)" -- "$DPADMM" sweep --algorithms admm $tiny --out o
    ;;
  bad_epsilon)
    expect 2 "epsilon" -- "$DPADMM" sweep --epsilons 0 $tiny --out o
    ;;
  target_epsilon_run)
    expect 0 "" -- "$DPADMM" run --algorithm madmm --target-epsilon 2 --noise-seed 3 $tiny \
      --no-epsilon-policy --trace t.csv --summary s.json -q
    grep -q 'calibrated .*algorithm.madmm.alpha' out.txt || fail "no calibrated line"
    python3 - <<'PY' || fail "summary/trace disagree with the target"
import csv, json
s = json.load(open('s.json'))
eps = s['tight_privacy']['epsilon']
assert abs(eps - 2) <= 2e-3 and eps <= 2, eps
assert s['info']['calibration']['knob'] == 'algorithm.madmm.alpha'
rows = list(csv.DictReader(l for l in open('t.csv') if not l.startswith('#')))
assert float(rows[-1]['tight_epsilon']) == eps, (rows[-1]['tight_epsilon'], eps)
PY
    ;;
  epsilon_policy_run)
    # The policy's settings (pvp: the Gaussian mechanism, its rounds) and the calibrated knob.
    expect 0 "" -- "$DPADMM" run --algorithm pvp --target-epsilon 2 --noise-seed 3 \
      --rows 400 --nodes 4 --edges 5 --seed 5 --engine serial --trace t.csv --summary s.json -q
    grep -q 'epsilon policy .*gaussian mechanism' out.txt || fail "no epsilon policy line"
    python3 - <<'PY' || fail "summary/trace disagree with the policy or the target"
import csv, json
s = json.load(open('s.json'))
eps = s['tight_privacy']['epsilon']
assert abs(eps - 2) <= 2e-3 and eps <= 2, eps
assert s['info']['calibration']['knob'] == 'algorithm.pvp.noise_multiplier'
assert 'rounds ' in s['info']['epsilon_policy'], s['info']['epsilon_policy']
rows = list(csv.DictReader(l for l in open('t.csv') if not l.startswith('#')))
rounds = int(s['info']['epsilon_policy'].split('rounds ')[1].split(',')[0])
assert int(rows[-1]['round']) == rounds, (rows[-1]['round'], rounds)
assert float(rows[-1]['tight_epsilon']) == eps, (rows[-1]['tight_epsilon'], eps)
PY
    ;;
  epsilon_policy_refuses_settings)
    # A setting the policy chooses, given beside the target: refused, not overridden.
    expect 2 "--iterations with --target-epsilon" -- "$DPADMM" run --algorithm dvp \
      --target-epsilon 1 $tiny -q
    small="--rows 400 --nodes 4 --edges 5 --seed 5 --engine serial -q"
    expect 2 "--weighting with --target-epsilon" -- "$DPADMM" run --algorithm pvp \
      --target-epsilon 1 --weighting node $small
    expect 2 "--gossip-rounds with --target-epsilon" -- "$DPADMM" run --algorithm dvp \
      --target-epsilon 1 --gossip-rounds 5 $small
    expect 2 "--pdml-R with --target-epsilon" -- "$DPADMM" run --algorithm pdml \
      --target-epsilon 1 --pdml-R 1 $small
    # With the policy off they are kept; a gossip tail must leave the algorithm a round.
    expect 0 "" -- "$DPADMM" run --algorithm dvp --target-epsilon 1 --no-epsilon-policy \
      --iterations 6 --gossip-rounds 5 --noise-seed 3 $small
    expect 2 "algorithm.gossip_rounds" -- "$DPADMM" run --algorithm dvp --iterations 5 \
      --gossip-rounds 5 --noise-seed 3 $small
    # dvp at its epsilon defaults: one private round, then the gossip rounds.
    expect 0 "" -- "$DPADMM" run --algorithm dvp --target-epsilon 1 --noise-seed 3 $small
    grep -q 'epsilon policy .*rounds 50 (49 of them gossip)' out.txt || fail "no gossip rounds"
    ;;
  target_epsilon_refused)
    expect 2 "target_epsilon" -- "$DPADMM" run --algorithm admm --target-epsilon 1 $tiny \
      --trace t.csv --summary s.json -q
    ;;
  *)
    echo "unknown case $CASE"; exit 2 ;;
esac
echo "PASS [$CASE]"
