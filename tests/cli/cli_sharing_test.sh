#!/usr/bin/env bash
# End-to-end tests of `dpadmm sharing` (001, vertically partitioned features): exit codes,
# error messages and output files. Same conventions as cli_test.sh.
#
#   cli_sharing_test.sh DPADMM WORKDIR CASE
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

expect() {
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

SMALL=(--data twonorm --rows 300 --dims 20 --epochs 4 --rho 0.01 --quiet)

case "$CASE" in
  help)
    expect 0 '' -- "$DPADMM" sharing --help
    grep -q -- '--parties M=2' out.txt || fail "--help does not show --parties with its default"
    grep -q -- '--epsilon' out.txt || fail "--help does not list --epsilon"
    grep -q 'Exit codes' out.txt || fail "--help does not document the exit codes"
    ;;
  bad_rho)
    expect 2 '^dpadmm: error: algorithm\.sharing\.rho must be > 0' -- "$DPADMM" sharing --rho 0
    [ "$(wc -l <err.txt)" -eq 1 ] || fail "expected exactly one line on stderr"
    ;;
  bad_epsilon)
    expect 2 'algorithm\.sharing\.epsilon must be in \(0, 1\]' -- "$DPADMM" sharing --dp --epsilon 3
    ;;
  party_features_mismatch)
    expect 2 'algorithm\.sharing\.party_features: the counts sum to 15 but the data has 20 features' -- \
      "$DPADMM" sharing "${SMALL[@]}" --party-features 10,5
    ;;
  config_unknown_key)
    echo '{"rhoo": 1}' > bad.json
    expect 2 'bad\.json: unknown field .rhoo.' -- "$DPADMM" sharing --config bad.json
    ;;
  missing_data_file)
    expect 2 'no/such/a9a' -- "$DPADMM" sharing --data libsvm --train no/such/a9a
    ;;
  print_config_round_trip)
    expect 0 '' -- "$DPADMM" sharing --parties 3 --dp --epsilon 0.5 --print-config
    cp out.txt spec.json
    expect 0 '' -- "$DPADMM" sharing --config spec.json --print-config
    cmp -s out.txt spec.json || fail "--print-config of --config spec.json differs from spec.json"
    ;;
  small_run)
    expect 0 '' -- "$DPADMM" sharing "${SMALL[@]}" --trace t.csv --summary s.json
    [ "$(wc -l <t.csv)" -eq 6 ] || fail "trace should have a header and 5 rows (epochs 0..4)"
    head -1 t.csv | grep -q '^round,seconds,train_loss,objective,test_error,test_loss,primal_residual' ||
      fail "trace header"
    grep -q '"outcome": "completed"' s.json || fail "summary outcome"
    grep -q 'centralized optimum' out.txt || fail "stdout summary lacks the baseline"
    ;;
  dp_run)
    expect 0 '' -- "$DPADMM" sharing "${SMALL[@]}" --dp --epsilon 0.5 --b1 2 --trace t.csv --summary s.json
    grep -q '"party_sigma"' s.json || fail "summary lacks party_sigma"
    grep -q '"assumption_b1": 2' s.json || fail "summary lacks the b1 used"
    grep -q 'total (' out.txt || fail "stdout lacks the total privacy"
    ;;
  sgd_diverged)
    # (--rho is ADMM sharing's penalty: the SGD baseline has none, so SMALL's --rho is left out.)
    expect 3 '' -- "$DPADMM" sharing --data twonorm --rows 300 --dims 20 --epochs 4 --quiet \
      --algorithm sgd --learning-rate 1e306 --no-baselines
    grep -q 'diverged' out.txt || fail "stdout does not say diverged"
    ;;
  unused_flag)
    expect 2 "--rho is not used by algorithm 'sgd'" -- "$DPADMM" sharing --algorithm sgd --rho 1
    expect 2 "--batch-size is not used by algorithm 'sharing' \\(it sets algorithm.<name>.batch_size of: sgd\\)" -- \
      "$DPADMM" sharing --batch-size 3
    ;;
  same_as_run)
    # The alias is `run` with the vertical family's defaults: same spec, same numbers.
    expect 0 '' -- "$DPADMM" sharing "${SMALL[@]}" --engine serial --trace a.csv --summary a.json
    expect 0 '' -- "$DPADMM" run --algorithm sharing --data twonorm --rows 300 --dims 20 \
      --iterations 4 --rho 0.01 --quiet --engine serial --trace b.csv --summary b.json
    [ "$(cut -d, -f1,3- a.csv)" = "$(cut -d, -f1,3- b.csv)" ] || fail "traces differ"
    ;;
  *)
    echo "unknown case $CASE"
    exit 1
    ;;
esac
echo "PASS [$CASE]"
