#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# End-to-end tests of `dpadmm run --model-out` and `dpadmm predict`: a saved model predicts the
# run's own test rows with the run's test accuracy, in every input format, and bad model or
# data files are refused with exit code 2 and a message naming file and field.
#
#   cli_predict_test.sh DPADMM WORKDIR CASE
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

# Labelled CSV rows (3 features, last column the label), far from unit norm so that the run
# really scales them: label = sign(2 x1 - x2 + 0.3 x3 + 1 + noise).
make_csv() {  # make_csv ROWS SEED FILE
  awk -v n="$1" -v seed="$2" 'BEGIN {
    srand(seed);
    for (i = 0; i < n; i++) {
      x1 = 20 * rand() - 10; x2 = 20 * rand() - 10; x3 = 20 * rand() - 10;
      s = 2 * x1 - x2 + 0.3 * x3 + 1 + 4 * (rand() - 0.5);
      printf "%.6f,%.6f,%.6f,%d\n", x1, x2, x3, (s >= 0 ? 1 : -1);
    }
  }' > "$3"
}
# The same rows as LIBSVM text.
csv_to_libsvm() {
  awk -F, '{ printf "%s", ($4 > 0 ? "+1" : "-1");
             for (k = 1; k <= 3; k++) if ($k + 0 != 0) printf " %d:%s", k, $k;
             printf "\n" }' "$1" > "$2"
}

train_model() {  # train_model EXTRA_FLAGS...
  make_csv 600 1 train.csv
  make_csv 300 2 test.csv
  expect 0 '' -- "$DPADMM" run --data csv --train train.csv --test test.csv --nodes 4 \
    --topology ring --iterations 30 --no-optimum --quiet --model-out model.json "$@"
  [ -s model.json ] || fail "--model-out wrote no model"
  RUN_ACCURACY=$(grep -Eo 'test accuracy +[0-9.]+%' out.txt | grep -Eo '[0-9.]+%')
  [ -n "$RUN_ACCURACY" ] || fail "the run printed no test accuracy"
}

case "$CASE" in
  help)
    expect 0 '' -- "$DPADMM" predict --help
    for flag in --model --data --format --output --no-labels 'Exit codes'; do
      grep -q -- "$flag" out.txt || fail "predict --help does not mention $flag"
    done
    expect 0 '' -- "$DPADMM" --help
    grep -q 'predict' out.txt || fail "dpadmm --help does not list predict"
    expect 0 '' -- "$DPADMM" run --help
    grep -q -- '--model-out' out.txt || fail "run --help does not list --model-out"
    expect 2 'model.*required|required.*model' -- "$DPADMM" predict --data x.csv
    ;;
  csv_matches_run)
    train_model --bias
    grep -q '"format": "dpadmm.model"' model.json || fail "model.json has no format tag"
    grep -q '"intercept": true' model.json || fail "--bias is not recorded"
    expect 0 '' -- "$DPADMM" predict --model model.json --data test.csv --output preds.csv
    grep -q "accuracy $RUN_ACCURACY" out.txt || fail "accuracy differs from the run's $RUN_ACCURACY"
    [ "$(wc -l <preds.csv)" -eq 301 ] || fail "preds.csv should have a header and 300 rows"
    head -1 preds.csv | grep -qx 'prediction,probability,score' || fail "bad preds.csv header"
    awk -F, 'NR > 1 && (($1 != 1 && $1 != -1) || $2 < 0 || $2 > 1 || ($1 == 1) != ($3 >= 0)) {
               bad = 1 } END { exit bad }' preds.csv || fail "bad prediction rows"
    ;;
  libsvm_matches_run)
    train_model
    csv_to_libsvm test.csv test.libsvm
    expect 0 '' -- "$DPADMM" predict --model model.json --data test.libsvm --output p1.csv
    grep -q "accuracy $RUN_ACCURACY" out.txt || fail "accuracy differs from the run's $RUN_ACCURACY"
    expect 0 '' -- "$DPADMM" predict --model model.json --data test.csv --output p2.csv
    cmp -s p1.csv p2.csv || fail "libsvm and csv rows give different predictions"
    ;;
  no_labels)
    train_model
    cut -d, -f1-3 test.csv > unlabelled.csv
    expect 0 '' -- "$DPADMM" predict --model model.json --data unlabelled.csv --no-labels \
      --output -
    [ "$(wc -l <out.txt)" -eq 301 ] || fail "stdout should hold a header and 300 predictions"
    grep -q accuracy err.txt && fail "accuracy printed without labels"
    "$DPADMM" predict --model model.json --data test.csv --output labelled.csv >/dev/null ||
      fail "labelled predict failed"
    cmp -s out.txt labelled.csv || fail "predictions differ with and without the label column"
    ;;
  smooth_hinge)
    train_model --loss smooth_hinge
    expect 0 '' -- "$DPADMM" predict --model model.json --data test.csv --output preds.csv
    grep -q "accuracy $RUN_ACCURACY" out.txt || fail "accuracy differs from the run's $RUN_ACCURACY"
    awk -F, 'NR > 1 && $2 != "" { bad = 1 } END { exit bad }' preds.csv ||
      fail "smooth hinge has no probabilities; the column must be empty"
    ;;
  scalings_match_run)
    # Every row preparation a run can apply is replayed by the model (the unit tests check the
    # bits; here the accuracy, the recorded preparation and what predict reports).
    make_csv 600 1 train.csv
    make_csv 300 2 test.csv
    for flags in "--scaling clip-only" "--scaling none" \
        "--scaling public-bounds --feature-range -10,10" "--scaling standardize" \
        "--algorithm sharing --parties 2 --scaling clip-only" \
        "--algorithm sharing --parties 2 --scaling public-bounds --feature-range -10,10" \
        "--algorithm sharing --parties 2 --scaling standardize"; do
      # shellcheck disable=SC2086
      train_model --bias $flags
      scaling=$(echo "$flags" | grep -Eo 'scaling [a-z-]+' | cut -d' ' -f2)
      grep -q "\"scaling\": \"$scaling\"" model.json || fail "$flags: scaling not recorded"
      grep -q '"version": 2' model.json || fail "$flags: not a version 2 model"
      if [ "$scaling" = none ]; then want=false; else want=true; fi
      grep -q "\"clip\": $want" model.json || fail "$flags: clipping not recorded as $want"
      case "$flags" in
        *sharing*clip-only* | *sharing*public-bounds* | *sharing*standardize*)
          grep -q '"clip_blocks": \[2, 2\]' model.json || fail "$flags: party blocks not recorded"
          ;;
      esac
      expect 0 '' -- "$DPADMM" predict --model model.json --data test.csv --output preds.csv
      grep -q "accuracy $RUN_ACCURACY" out.txt ||
        fail "$flags: accuracy differs from the run's $RUN_ACCURACY"
      grep -q "$scaling scaling" out.txt || fail "$flags: predict does not report the scaling"
    done
    ;;
  v1_model)
    # A version 1 file (one row factor at the top level) still predicts as it did.
    train_model --bias --scaling global-max-norm
    awk '/"preparation"/ { skip = 1; next }
         skip && /"row_scale"/ { sub(/^ +/, "  "); print; next }
         skip && /^  },/ { skip = 0; next }
         skip { next }
         { sub(/"version": 2/, "\"version\": 1"); print }' model.json > v1.json
    grep -q '^  "row_scale"' v1.json || fail "could not write a version 1 file"
    expect 0 '' -- "$DPADMM" predict --model v1.json --data test.csv --output p1.csv
    grep -q "accuracy $RUN_ACCURACY" out.txt || fail "accuracy differs from the run's $RUN_ACCURACY"
    "$DPADMM" predict --model model.json --data test.csv --output p2.csv >/dev/null ||
      fail "predict failed"
    cmp -s p1.csv p2.csv || fail "version 1 and version 2 files predict differently"
    ;;
  bad_model)
    train_model --scaling global-max-norm  # the fields of a row factor
    make_csv 10 3 few.csv
    sed 's/"version": 2/"version": 3/' model.json > v3.json
    expect 2 'v3\.json: version 3 is not supported' -- \
      "$DPADMM" predict --model v3.json --data few.csv
    sed 's/"row_scale"/"row_scal"/' model.json > typo.json
    expect 2 "typo\.json: unknown field 'preparation\.row_scal'" -- \
      "$DPADMM" predict --model typo.json --data few.csv
    grep -v '"row_scale"' model.json > noscale.json
    expect 2 "noscale\.json: missing field 'preparation\.row_scale'" -- \
      "$DPADMM" predict --model noscale.json --data few.csv
    sed 's/"clip": false/"clip": 0/' model.json > clip.json
    expect 2 'clip\.json: preparation\.clip must be true or false' -- \
      "$DPADMM" predict --model clip.json --data few.csv
    grep -v '"spec"' model.json > syntax.json  # leaves a trailing comma
    expect 2 'syntax\.json: JSON syntax error' -- \
      "$DPADMM" predict --model syntax.json --data few.csv
    # JSON has no NaN: a NaN weight can only appear as null.
    awk '/"weights"/ { print; getline; print "    null,"; next } { print }' model.json > nan.json
    expect 2 'nan\.json: weights\[0\] must be a number, got null' -- \
      "$DPADMM" predict --model nan.json --data few.csv
    head -c 200 model.json > cut.json
    expect 2 'cut\.json: JSON syntax error' -- "$DPADMM" predict --model cut.json --data few.csv
    expect 2 'no_such\.json: cannot open the model file' -- \
      "$DPADMM" predict --model no_such.json --data few.csv
    ;;
  bad_data)
    train_model
    printf '1,2,1\n3,4,-1\n' > two.csv
    expect 2 'two\.csv: rows have 2 features, the model model\.json expects 3' -- \
      "$DPADMM" predict --model model.json --data two.csv
    printf '+1 1:1 7:2\n' > wide.libsvm
    expect 2 'wide\.libsvm:1' -- "$DPADMM" predict --model model.json --data wide.libsvm
    printf '1,2,x\n' > text.csv
    expect 2 "text\.csv:1: field 3: 'x' is not a finite number" -- \
      "$DPADMM" predict --model model.json --data text.csv --no-labels
    expect 2 'format' -- "$DPADMM" predict --model model.json --data test.csv --format arff
    ;;
  diverged_saves_nothing)
    expect 3 'model not saved to m\.json: the run has no usable model \(diverged\)' -- \
      "$DPADMM" run --iterations 5 --nodes 4 --topology ring --rows 400 --quiet \
      --algorithm dvp --alpha 1e-300 --no-optimum --model-out m.json
    [ -e m.json ] && fail "a diverged run saved a model"
    ;;
  *)
    fail "unknown case"
    ;;
esac
echo "PASS [$CASE]"
