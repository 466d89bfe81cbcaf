#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# End-to-end tests of the dpadmm command (both families; `sharing_*` cases use the `sharing`
# alias): exit codes, error messages and output files.
#
#   cli_test.sh DPADMM FIXTURES WORKDIR CASE
#
# Each CASE runs in a fresh WORKDIR/CASE and prints what it checked; the first failed check
# prints the command's stdout and stderr and exits 1.
set -u

DPADMM=$1
FIXTURES=$2
WORK=$3/$4
CASE=$4
rm -rf "$WORK" && mkdir -p "$WORK" && cd "$WORK" || exit 1

fail() {
  echo "FAIL [$CASE]: $*"
  echo "--- stdout:"; cat out.txt 2>/dev/null
  echo "--- stderr:"; cat err.txt 2>/dev/null
  exit 1
}

# expect CODE STDERR_REGEX -- COMMAND...: runs the command (stdout to out.txt, stderr to err.txt)
# and checks its exit code and that stderr matches the extended regex ('' = anything).
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

# An error is exactly one line on stderr, "dpadmm: error: <message>".
one_error_line() {
  [ "$(wc -l <err.txt)" -eq 1 ] || fail "expected exactly one line on stderr"
  grep -q '^dpadmm: error: ' err.txt || fail "stderr does not start with 'dpadmm: error: '"
}

# Arguments of a small, fast run (consensus family), and of one through the `sharing` alias.
SMALL=(--iterations 5 --nodes 4 --topology ring --rows 400 --quiet)
SHARING_SMALL=(--data twonorm --rows 300 --dims 20 --epochs 4 --rho 0.01 --quiet)

case "$CASE" in
  help)
    expect 0 '' -- "$DPADMM" run --help
    grep -q -- '--nodes N=10' out.txt || fail "--help does not show --nodes with its default"
    grep -q 'Exit codes' out.txt || fail "--help does not document the exit codes"
    ;;
  version)
    # The version the build derives from the VERSION file at the top of the tree.
    expect 0 '' -- "$DPADMM" --version
    want=$(cat "$FIXTURES/../../../VERSION")
    [ "$(cat out.txt)" = "$want" ] || fail "--version prints '$(cat out.txt)', VERSION says '$want'"
    ;;
  unknown_flag)
    expect 2 'dpadmm: error: .*--bogus' -- "$DPADMM" run --bogus 3
    one_error_line
    ;;
  unknown_subcommand)
    expect 2 'dpadmm: error: .*frobnicate' -- "$DPADMM" frobnicate
    one_error_line
    ;;
  no_subcommand)
    expect 2 'dpadmm: error: .*subcommand' -- "$DPADMM"
    ;;
  bad_number)
    expect 2 'dpadmm: error: .*--nodes' -- "$DPADMM" run --nodes ten
    one_error_line
    ;;
  one_node)
    expect 2 'dpadmm: error: graph\.nodes must be >= 2, got 1' -- "$DPADMM" run --nodes 1
    one_error_line
    ;;
  negative_eta)
    expect 2 'dpadmm: error: algorithm\.eta must be > 0' -- "$DPADMM" run --eta -1
    one_error_line
    ;;
  negative_seed)
    expect 2 'dpadmm: error: --seed: must be an integer in \[0, 18446744073709551615\]' -- \
      "$DPADMM" run --seed -1
    one_error_line
    ;;
  libsvm_without_train)
    expect 2 'dpadmm: error: data\.train_path is required' -- "$DPADMM" run --data libsvm
    one_error_line
    ;;
  missing_train_file)
    expect 2 'dpadmm: error: .*no_such_file\.libsvm' -- \
      "$DPADMM" run --data libsvm --train no_such_file.libsvm
    one_error_line
    ;;
  malformed_libsvm)
    expect 2 'dpadmm: error: .*bad_line2\.libsvm:2:' -- \
      "$DPADMM" run --data libsvm --train "$FIXTURES/bad_line2.libsvm" --nodes 2 --topology complete
    one_error_line
    ;;
  config_unknown_key)
    expect 2 "dpadmm: error: .*unknown_key\.json: unknown field 'algorithm\.etta'" -- \
      "$DPADMM" run --config "$FIXTURES/unknown_key.json"
    one_error_line
    ;;
  config_syntax_error)
    expect 2 'dpadmm: error: .*syntax_error\.json:3: JSON syntax error' -- \
      "$DPADMM" run --config "$FIXTURES/syntax_error.json"
    one_error_line
    ;;
  config_missing_file)
    expect 2 'dpadmm: error: missing\.json: cannot open config file' -- \
      "$DPADMM" run --config missing.json
    one_error_line
    ;;
  config_wrong_type)
    echo '{"algorithm": {"eta": "big"}}' >wrong.json
    expect 2 'dpadmm: error: wrong\.json: algorithm\.eta must be a number, got string' -- \
      "$DPADMM" run --config wrong.json
    ;;
  trace_format_unknown)
    expect 2 'dpadmm: error: .*--trace-format' -- "$DPADMM" run "${SMALL[@]}" --trace t.txt
    ;;
  print_config_round_trip)
    expect 0 '' -- "$DPADMM" run --nodes 7 --edges 9 --algorithm dvp --alpha 0.25 --seed 42 \
      --partition proportional --proportions 1,2,3,4,5,6,7.5 --delimiter tab --print-config
    cp out.txt first.json
    grep -q '"nodes": 7' first.json || fail "printed config lacks the --nodes value"
    grep -q '"delimiter": "\\t"' first.json || fail "printed config lacks the tab delimiter"
    expect 0 '' -- "$DPADMM" run --config first.json --print-config
    cmp -s first.json out.txt || fail "--config of the printed config prints something else"
    [ ! -e dpadmm-trace.csv ] || fail "--print-config must not run"
    ;;
  small_run)
    expect 0 '' -- "$DPADMM" run "${SMALL[@]}" --trace trace.csv --summary summary.json
    [ -s trace.csv ] || fail "trace.csv not written"
    [ -s summary.json ] || fail "summary.json not written"
    grep -q '"outcome": "completed"' summary.json || fail "summary has no outcome"
    grep -q '"normalization_factor"' summary.json || fail "summary has no normalization_factor"
    [ "$(wc -l <trace.csv)" -eq 8 ] ||
      fail "trace.csv should have the noise line, a header and rounds 0..5"
    # Non-private ADMM draws no noise, and its label says so.
    [ "$(head -1 trace.csv)" = '# no noise: the algorithm is not private' ] ||
      fail "trace.csv does not start with the noise label"
    sed -n 2p trace.csv | grep -q '^round,' || fail "trace.csv has no header"
    grep -q '"noise_mode": "none"' summary.json || fail "summary lacks noise_mode"
    grep -q 'noise  *no noise: the algorithm is not private' out.txt ||
      fail "stdout summary lacks the noise mode"
    grep -q 'test accuracy' out.txt || fail "no human summary on stdout"
    grep -q 'rows scaled by' out.txt || fail "summary does not report the scaling"
    ;;
  small_run_jsonl)
    expect 0 '' -- "$DPADMM" run "${SMALL[@]}" --trace trace.jsonl --summary s.json --no-optimum
    [ "$(wc -l <trace.jsonl)" -eq 7 ] || fail "trace.jsonl should have a header and rounds 0..5"
    head -1 trace.jsonl | grep -q '^{"noise_mode":"none","noise":"no noise: ' ||
      fail "trace.jsonl does not start with the noise header object"
    grep -q '"round":5' trace.jsonl || fail "trace.jsonl lacks round 5"
    grep -q '"distance_to_optimum":null' trace.jsonl || fail "NaN must be written as null"
    ;;
  default_files)
    expect 0 '' -- "$DPADMM" run "${SMALL[@]}"
    [ -s dpadmm-trace.csv ] && [ -s dpadmm-summary.json ] || fail "default output files missing"
    ;;
  diverged)
    # Noise with scale 1/alpha = 1e300 overflows the first primal update.
    expect 3 '' -- "$DPADMM" run "${SMALL[@]}" --algorithm dvp --alpha 1e-300 --no-optimum
    grep -q 'diverged' out.txt || fail "stdout does not report the divergence"
    grep -q '"outcome": "diverged"' dpadmm-summary.json || fail "summary outcome is not diverged"
    ;;
  cancelled)
    # SIGTERM is handled like Ctrl-C (SIGINT is ignored by background jobs of a script).
    "$DPADMM" run --iterations 100000000 --metrics-every 10000 --nodes 4 --topology ring \
      --rows 400 --quiet >out.txt 2>err.txt &
    pid=$!
    sleep 1
    kill -TERM $pid
    wait $pid
    got=$?
    echo "ran: dpadmm run (long) + SIGTERM after 1 s -> exit $got"
    [ "$got" -eq 4 ] || fail "exit code $got, expected 4"
    grep -q '"outcome": "cancelled"' dpadmm-summary.json || fail "summary outcome is not cancelled"
    [ "$(wc -l <dpadmm-trace.csv)" -ge 2 ] || fail "trace of the cancelled run is empty"
    ;;
  flags_override_config)
    expect 0 '' -- "$DPADMM" run --config "$FIXTURES/iterations3.json" --quiet --trace t3.csv
    [ "$(tail -n 1 t3.csv | cut -d, -f1)" = 3 ] || fail "the config's iterations 3 was not used"
    expect 0 '' -- "$DPADMM" run --config "$FIXTURES/iterations3.json" --iterations 4 --quiet \
      --trace t4.csv
    [ "$(grep -v '^#' t4.csv | cut -d, -f1 | tr '\n' ' ')" = "round 0 1 2 3 4 " ] ||
      fail "trace should hold rounds 0..4 (flag overrides config)"
    grep -q '4 nodes' out.txt || fail "the config's other fields (4 nodes) were lost"
    ;;
  five_nodes_default_edges)
    # The random graph's edge count is derived from the node count ("auto").
    expect 0 '' -- "$DPADMM" run --nodes 5 --iterations 2 --rows 300 --quiet
    grep -q '5 nodes, 7 edges (random)' out.txt || fail "5 nodes should get 7 edges"
    expect 2 'graph\.edges must be in \[nodes - 1, nodes \(nodes - 1\) / 2\] = \[4, 10\]' -- \
      "$DPADMM" run --nodes 5 --edges 13
    ;;
  csv_header_hint)
    printf 'a,b,label\n1,2,1\n2,1,-1\n3,3,1\n' > h.csv
    for k in $(seq 1 30); do echo "$((k % 5)),$((k % 3)),$((k % 2 * 2 - 1))" >> h.csv; done
    expect 2 'h\.csv:1: .*use --header' -- "$DPADMM" run --data csv --train h.csv --nodes 3
    one_error_line
    expect 0 '' -- "$DPADMM" run --data csv --train h.csv --header --nodes 3 --iterations 2 --quiet
    ;;
  old_config_rejected)
    echo '{"algorithm": {"name": "dvp", "alpha": 0.5}}' > old.json
    expect 2 "old\.json: 'algorithm\.alpha' is a schema-1 field; schema 2 replaced it by 'algorithm\.<name>\.alpha" -- \
      "$DPADMM" run --config old.json
    echo '{"algorithm": "admm", "epochs": 10}' > old_sharing.json
    expect 2 "old_sharing\.json: algorithm: a string is the schema-1 shape" -- \
      "$DPADMM" sharing --config old_sharing.json
    ;;
  unused_flag)
    expect 2 "--alpha is not used by algorithm 'admm' \(it sets algorithm\.<name>\.alpha of: dvp, pvp, madmm, private_mradmm\)" -- \
      "$DPADMM" run --alpha 1
    expect 2 "algorithm\.dvp\.alpha must be > 0 for algorithm 'dvp'" -- "$DPADMM" run --algorithm dvp --alpha 0
    ;;
  tight_privacy)
    # Both figures of a private consensus run (the paper's and the tight one) and the claim, in
    # the summary lines and the summary JSON; the refused preconditions.
    expect 0 '' -- "$DPADMM" run "${SMALL[@]}" --algorithm dvp --alpha 0.2 --noise-seed 3 \
      --trace t.csv --summary s.json
    # Both deltas carry the sampler's floating-point term: 5 rounds x (1 + e^0.2) x 20 (2^-27 +
    # 2^-40) = 1.66e-6.
    grep -Eq 'privacy loss +\(1, 1\.7e-06\) \(paper: 004 Thm 1, plain sum' out.txt ||
      fail "no paper's figure"
    grep -Eq "tight privacy +\(0\.9[0-9]*, 1\.2e-05\)-DP per node .*delta = 1e-05 \+ the sampler's 1\.7e-06" \
      out.txt || fail "no tight figure"
    grep -q 'privacy claim .*one record replaced' out.txt || fail "no privacy claim"
    grep -q '"tight_privacy"' s.json || fail "summary lacks tight_privacy"
    expect 2 'node_alpha\[0\] must be > 0' -- "$DPADMM" run "${SMALL[@]}" --algorithm madmm \
      --node-alpha 0,1,1,1
    expect 2 'newton.gradient_tolerance must be <= 1e-8' -- "$DPADMM" run "${SMALL[@]}" \
      --algorithm pvp --newton-tolerance 0.5
    expect 2 'norm .* > 1, above the bound' -- "$DPADMM" run "${SMALL[@]}" --algorithm dvp \
      --no-normalize --noise-seed 3
    ;;
  sharing_through_run)
    expect 0 '' -- "$DPADMM" run --algorithm sharing --iterations 2 --quiet --trace t.jsonl \
      --summary s.json
    grep -q '"primal_residual"' t.jsonl || fail "the sharing trace lacks its columns"
    grep -q '"consensus_gap"' t.jsonl && fail "the sharing trace has consensus columns"
    grep -q '"family": "sharing"' s.json || fail "summary lacks the family"
    expect 0 '' -- "$DPADMM" run --algorithm sgd --parties 4 --print-config
    cp out.txt sgd.json
    grep -q '"init_sd"' sgd.json || fail "print-config lacks the SGD parameters"
    expect 0 '' -- "$DPADMM" run --config sgd.json --print-config
    cmp -s out.txt sgd.json || fail "--print-config of --config sgd.json differs"
    ;;
  # --- the vertical family through the `sharing` alias (001) ---
  sharing_help)
    expect 0 '' -- "$DPADMM" sharing --help
    grep -q -- '--parties M=2' out.txt || fail "--help does not show --parties with its default"
    grep -q -- '--epsilon' out.txt || fail "--help does not list --epsilon"
    grep -q 'Exit codes' out.txt || fail "--help does not document the exit codes"
    ;;
  sharing_bad_rho)
    expect 2 '^dpadmm: error: algorithm\.sharing\.rho must be > 0' -- "$DPADMM" sharing --rho 0
    [ "$(wc -l <err.txt)" -eq 1 ] || fail "expected exactly one line on stderr"
    ;;
  sharing_bad_epsilon)
    expect 2 'algorithm\.sharing\.epsilon must be in \(0, 1\]' -- "$DPADMM" sharing --dp --epsilon 3
    ;;
  sharing_party_features_mismatch)
    expect 2 'algorithm\.sharing\.party_features: the counts sum to 15 but the data has 20 features' -- \
      "$DPADMM" sharing "${SHARING_SMALL[@]}" --party-features 10,5
    ;;
  sharing_config_unknown_key)
    echo '{"rhoo": 1}' > bad.json
    expect 2 'bad\.json: unknown field .rhoo.' -- "$DPADMM" sharing --config bad.json
    ;;
  sharing_missing_data_file)
    expect 2 'no/such/a9a' -- "$DPADMM" sharing --data libsvm --train no/such/a9a
    ;;
  sharing_print_config_round_trip)
    expect 0 '' -- "$DPADMM" sharing --parties 3 --dp --epsilon 0.5 --print-config
    cp out.txt spec.json
    expect 0 '' -- "$DPADMM" sharing --config spec.json --print-config
    cmp -s out.txt spec.json || fail "--print-config of --config spec.json differs from spec.json"
    ;;
  sharing_small_run)
    expect 0 '' -- "$DPADMM" sharing "${SHARING_SMALL[@]}" --trace t.csv --summary s.json
    [ "$(wc -l <t.csv)" -eq 7 ] ||
      fail "trace should have the noise line, a header and 5 rows (epochs 0..4)"
    sed -n 2p t.csv | grep -q '^round,seconds,train_loss,objective,test_error,test_loss,primal_residual' ||
      fail "trace header"
    grep -q '"outcome": "completed"' s.json || fail "summary outcome"
    grep -q 'centralized optimum' out.txt || fail "stdout summary lacks the baseline"
    ;;
  sharing_dp_run)
    expect 0 '' -- "$DPADMM" sharing "${SHARING_SMALL[@]}" --dp --epsilon 0.5 --b1 2 --trace t.csv --summary s.json
    grep -q '"party_sigma"' s.json || fail "summary lacks party_sigma"
    grep -q '"assumption_b1": 2' s.json || fail "summary lacks the b1 used"
    grep -q 'total (' out.txt || fail "stdout lacks the total privacy"
    ;;
  sharing_sgd_diverged)
    # (--rho is ADMM sharing's penalty: the SGD baseline has none, so SMALL's --rho is left out.)
    expect 3 '' -- "$DPADMM" sharing --data twonorm --rows 300 --dims 20 --epochs 4 --quiet \
      --algorithm sgd --learning-rate 1e306 --no-baselines
    grep -q 'diverged' out.txt || fail "stdout does not say diverged"
    ;;
  sharing_unused_flag)
    expect 2 "--rho is not used by algorithm 'sgd'" -- "$DPADMM" sharing --algorithm sgd --rho 1
    expect 2 "--batch-size is not used by algorithm 'sharing' \\(it sets algorithm.<name>.batch_size of: sgd\\)" -- \
      "$DPADMM" sharing --batch-size 3
    ;;
  sharing_same_as_run)
    # The alias is `run` with the vertical family's defaults: same spec, same numbers.
    expect 0 '' -- "$DPADMM" sharing "${SHARING_SMALL[@]}" --engine serial --trace a.csv --summary a.json
    expect 0 '' -- "$DPADMM" run --algorithm sharing --data twonorm --rows 300 --dims 20 \
      --iterations 4 --rho 0.01 --quiet --engine serial --trace b.csv --summary b.json
    [ "$(cut -d, -f1,3- a.csv)" = "$(cut -d, -f1,3- b.csv)" ] || fail "traces differ"
    ;;
  noise_modes)
    # Simulation mode (--noise-seed): the same bits twice and on both engines, labelled as such
    # everywhere; private mode (no --noise-seed): two runs release different values.
    NOISY=(run "${SMALL[@]}" --algorithm dvp --alpha 0.5 --no-optimum)
    expect 0 '' -- "$DPADMM" "${NOISY[@]}" \
      --noise-seed 11 --engine serial --trace s1.csv --summary s1.json
    grep -q 'noise  *simulation: noise reproducible from the seed' out.txt ||
      fail "stdout lacks the simulation label"
    expect 0 '' -- "$DPADMM" "${NOISY[@]}" --noise-seed 11 --engine tbb --trace s2.csv --summary s2.json
    [ "$(head -1 s1.csv)" = '# simulation: noise reproducible from the seed' ] ||
      fail "trace lacks the simulation label"
    grep -q '"noise": "simulation: noise reproducible from the seed"' s1.json ||
      fail "summary lacks the simulation label"
    [ "$(cut -d, -f1,3- s1.csv)" = "$(cut -d, -f1,3- s2.csv)" ] ||
      fail "simulation runs on serial and tbb differ"
    # The nodes' keys (derived from 11 as documented) appear in no output, raw or in hex.
    expect 0 'simulation: noise reproducible from the seed' -- "$DPADMM" run --iterations 5 \
      --nodes 4 --topology ring --rows 400 --algorithm dvp --alpha 0.5 --no-optimum \
      --noise-seed 11 --trace k.jsonl --summary k.json
    cp out.txt k.out && cp err.txt k.err
    python3 "$(dirname "$FIXTURES")/noise_keys.py" 11 4 s1.csv s1.json k.jsonl k.json k.out \
      k.err || fail "a noise key appears in an output"
    expect 0 '' -- "$DPADMM" "${NOISY[@]}" --noise-seed 12 --trace s3.csv --summary s3.json
    [ "$(cut -d, -f1,3- s1.csv)" != "$(cut -d, -f1,3- s3.csv)" ] ||
      fail "another noise seed gave the same run"
    expect 0 '' -- "$DPADMM" "${NOISY[@]}" --trace p1.csv --summary p1.json
    grep -q 'noise  *private: noise keys from the operating system, not stored' out.txt ||
      fail "stdout lacks the private label"
    expect 0 '' -- "$DPADMM" "${NOISY[@]}" --trace p2.csv --summary p2.json
    [ "$(cut -d, -f1,3- p1.csv)" != "$(cut -d, -f1,3- p2.csv)" ] ||
      fail "two private runs released the same values"
    # Progress lines (without --quiet) carry the label on stderr.
    expect 0 'dpadmm: simulation: noise reproducible from the seed' -- "$DPADMM" run --nodes 4 \
      --topology ring --rows 400 --iterations 2 --noise-seed 1 --no-optimum --algorithm dvp \
      --alpha 0.5
    expect 0 '' -- "$DPADMM" "${NOISY[@]}" --noise-seed 11 --print-config
    grep -q '"noise_seed": 11' out.txt || fail "--print-config lacks noise_seed"
    expect 0 '' -- "$DPADMM" "${NOISY[@]}" --print-config
    ! grep -q 'noise_seed' out.txt || fail "a private run's config must not have a noise_seed"
    ;;
  private_released_only)
    # A private algorithm in private mode: only released figures, the rows clipped, not scaled.
    expect 0 'warning: features are not scaled' -- "$DPADMM" run "${SMALL[@]}" --algorithm dvp \
      --alpha 0.5 --trace trace.csv --summary summary.json
    grep -q '"metrics": "released-only"' summary.json || fail "metrics scope not released-only"
    grep -q '"scaling": "clip-only"' summary.json || fail "private mode must default to clip-only"
    grep -q '"train_loss": null' summary.json || fail "train_loss must be null (not computed)"
    grep -q '"optimum_objective": null' summary.json || fail "the optimum must not be computed"
    grep -q '"warnings": \[' summary.json || fail "summary has no warnings list"
    if grep -q '^# evaluation on private data' trace.csv; then
      fail "a released-only trace has no evaluation label"
    fi
    # Comment lines (labels) aside, row 2 is round 0.
    [ "$(grep -v '^#' trace.csv | sed -n 2p | cut -d, -f3)" = "nan" ] ||
      fail "trace train_loss must be nan"
    grep -q 'training loss .*not computed' out.txt || fail "stdout must say the loss is not computed"
    ;;
  private_metrics_all_labelled)
    expect 0 '' -- "$DPADMM" run "${SMALL[@]}" --algorithm dvp --alpha 0.5 --metrics all \
      --trace trace.csv --summary summary.json
    grep -q '^# evaluation on private data, outside the guarantee: train_loss' trace.csv ||
      fail "trace must label the private evaluation in a comment line"
    grep -v '^#' trace.csv | head -1 | grep -q '^round,' ||
      fail "the labels must precede the CSV header"
    grep -q '"evaluation_on_private_data"' summary.json || fail "summary must list the evaluation"
    grep -q 'training loss .*\[evaluation on private data, outside the guarantee\]' out.txt ||
      fail "stdout must label the training loss"
    expect 0 '' -- "$DPADMM" run "${SMALL[@]}" --algorithm dvp --alpha 0.5 --metrics all \
      --trace trace.jsonl --summary summary.json
    grep -v '"round":' trace.jsonl | grep -q '"evaluation":"evaluation on private data' ||
      fail "JSON-lines trace must start with the label object"
    [ "$(grep -c '"round":' trace.jsonl)" -eq 6 ] || fail "trace.jsonl should hold rounds 0..5"
    ;;
  private_global_scaling_refused)
    expect 2 "global-max-norm.*refused in private mode" -- "$DPADMM" run "${SMALL[@]}" \
      --algorithm dvp --alpha 0.5 --scaling global-max-norm
    one_error_line
    ;;
  feature_bounds)
    printf '0 -6 6\n# the rest from --feature-range\n' >bounds.txt
    expect 0 '' -- "$DPADMM" run "${SMALL[@]}" --algorithm dvp --alpha 0.5 \
      --feature-bounds bounds.txt --feature-range -5,5 --summary summary.json
    grep -q '"scaling": "public-bounds"' summary.json || fail "bounds must select public-bounds"
    if grep -q 'features are not scaled' err.txt; then fail "no clip-only warning expected"; fi
    printf '0 1\n1 0 1\n' >bad.txt
    expect 2 'bad.txt:2: .*mixes' -- "$DPADMM" run "${SMALL[@]}" --algorithm dvp --alpha 0.5 \
      --feature-bounds bad.txt
    one_error_line
    ;;
  warnings_on_stderr)
    # No training (0 rounds): the model predicts one class; simulation warnings need a noise
    # seed, which the unit tests set directly.
    expect 0 'dpadmm: warning: .*learned nothing' -- "$DPADMM" run --iterations 0 --nodes 4 \
      --topology ring --rows 400 --quiet --algorithm dvp --alpha 0.5 --summary summary.json
    grep -q 'learned nothing' summary.json || fail "summary must list the warning"
    expect 0 '' -- "$DPADMM" run --iterations 30 --nodes 4 --topology ring --rows 400 --quiet
    if grep -q 'warning' err.txt; then fail "a trained non-private run has no warning"; fi
    ;;
  strict_numbers)
    # One strict parser for every numeric flag: each bad value is refused, naming the flag.
    while read -r flag value regex; do
      [ "$value" = "EMPTY" ] && value=""
      expect 2 "dpadmm: error: $flag: $regex" -- "$DPADMM" run "$flag" "$value"
      one_error_line
    done <<'TABLE'
--eta EMPTY must be a number, got an empty value
--privacy-budget EMPTY must be a number, got an empty value
--eta 0x1p3 must be a decimal number
--eta 1abc must be a decimal number
--eta 1e999 must be a number inside the double range
--eta 1e-400 must be a number inside the double range
--eta inf must be a finite number
--eta nan must be a finite number
--C 1,5 must be a decimal number
--nodes EMPTY must be an integer
--nodes 2.5 must be an integer in
--nodes 1e3 must be an integer written in digits \(no exponent\)
--nodes 0x10 must be an integer in
--nodes 99999999999 must be an integer in .* \(out of range\)
--rows 9.2e18 must be an integer written in digits
--features 9.2e18 must be an integer written in digits
--seed -1 must be an integer in \[0, 18446744073709551615\]
--threads +-1 must be an integer in
--node-eta 1,x must be a decimal number, got 'x'
--edges 0x10 must be a positive integer or 'auto'
TABLE
    expect 2 "dpadmm: error: --parties: must be an integer in .*got an empty value" -- \
      "$DPADMM" run --algorithm sharing --parties ""
    expect 2 "dpadmm: error: --party-features: must be an integer in .*'0x2'" -- \
      "$DPADMM" run --algorithm sharing --party-features 1,0x2
    expect 2 "dpadmm: error: --max-memory: must be a size in bytes" -- \
      "$DPADMM" run --max-memory 12Q
    # Accepted forms: a leading '+', "010" is decimal ten (not octal eight).
    expect 0 '' -- "$DPADMM" run --eta +0.5 --rows 010 --nodes 2 --topology complete \
      --print-config
    grep -q '"rows": 10' out.txt || fail "--rows 010 must be ten"
    ;;
  size_guards)
    # Refused before anything is allocated: fast, exit 2, the flag named.
    start=$(date +%s)
    expect 2 'would need about .* of memory \(mostly --nodes 100000000' -- \
      "$DPADMM" run --nodes 100000000 --quiet
    one_error_line
    expect 2 'would need about .* \(mostly --rows 1000000000' -- "$DPADMM" run --rows 1000000000
    expect 2 'would need about .*--features 1000000000' -- "$DPADMM" run --data libsvm \
      --train "$FIXTURES/bad_line2.libsvm" --features 1000000000
    expect 2 'more than the limit of 1.0 MB \(set by --max-memory' -- \
      "$DPADMM" run "${SMALL[@]}" --max-memory 1M
    expect 2 '--threads 10000000 is above the limit of 1024' -- \
      "$DPADMM" run "${SMALL[@]}" --engine tbb --threads 10000000
    # Hard caps hold without a memory limit (INT64_MAX features used to crash the loader).
    expect 2 '--features 9223372036854775807 is above the limit' -- "$DPADMM" run --data libsvm \
      --train "$FIXTURES/bad_line2.libsvm" --features 9223372036854775807 --bias --max-memory 0
    [ $(($(date +%s) - start)) -le 10 ] || fail "the size guards took more than 10 s"
    # The estimate follows the measured peak (bench_memory): 400 000 dense rows peak at about
    # 106 MB of resident memory and are estimated at 165 MB. An estimate of three copies of the
    # data (276 MB) refused this run.
    expect 0 '' -- "$DPADMM" run --rows 400000 --iterations 1 --quiet --max-memory 220M
    expect 0 '' -- "$DPADMM" run "${SMALL[@]}" --max-memory 0
    [ ! -e dpadmm-trace.csv.partial ] || fail "a .partial file was left"
    ;;
  private_by_default_*)
    # Every private algorithm run with no flag but its name prints a finite epsilon and learns
    # (test accuracy at least 10 points above the majority-class rate on the default data).
    # sharing is ADMM sharing, non-private, unless --dp: its private form is checked with it.
    algo=${CASE#private_by_default_}
    if [ "$algo" = sharing_dp ]; then
      expect 0 '' -- "$DPADMM" run --algorithm sharing --dp
      grep -Eq 'privacy +.*epsilon' out.txt || fail "stdout does not state the privacy"
    else
      expect 0 '' -- "$DPADMM" run --algorithm "$algo"
      grep -Eq 'tight (privacy +)?\(' out.txt || fail "stdout has no tight (epsilon, delta) figure"
    fi
    grep -q 'no epsilon\|not randomized\|not private' out.txt && fail "stdout says the run is not private"
    python3 - "$algo" dpadmm-summary.json <<'PY' || fail "summary: no finite epsilon, or no learning"
import json, math, sys
algo, path = sys.argv[1], sys.argv[2]
s = json.load(open(path))
f = s["final"]
eps = f["epsilon_total"] if algo == "sharing_dp" else s["tight_privacy"]["epsilon"]
acc = 1.0 - f["test_error"]
major = s["info"]["test_majority_rate"]
print(f"{algo}: epsilon {eps}, accuracy {acc:.4f}, majority {major:.4f}, noise {s['noise_mode']}")
assert s["noise_mode"] == "private", s["noise_mode"]
assert eps is not None and math.isfinite(eps) and eps > 0, eps
assert acc >= major + 0.10, (acc, major)
PY
    ;;
  non_private_flag)
    # The non-private setting is one explicit flag away, and refused beside a noise flag.
    expect 0 '' -- "$DPADMM" run "${SMALL[@]}" --algorithm pdml --non-private
    grep -q 'labels not randomized' out.txt || fail "pdml --non-private still randomizes labels"
    grep -q 'no primal noise' out.txt || fail "pdml --non-private still adds primal noise"
    expect 2 "algorithm 'dvp' is private by construction.*--algorithm admm" -- \
      "$DPADMM" run "${SMALL[@]}" --algorithm dvp --non-private
    one_error_line
    expect 0 '' -- "$DPADMM" run --algorithm sharing --non-private --iterations 3 --quiet
    expect 2 'non-private.*excludes.*alpha|alpha.*excludes.*non-private' -- \
      "$DPADMM" run "${SMALL[@]}" --algorithm dvp --non-private --alpha 1
    expect 0 '' -- "$DPADMM" run --help
    grep -q -- '--non-private' out.txt || fail "--help does not document --non-private"
    ;;
  huge_values_name_file_and_line)
    # Finite values whose squares overflow (about 1e308): the first such row is named by file
    # and line in every role (train, test, the sharing family's file), format and scaling.
    printf '+1 1:0.5 2:1\n-1 1:1 2:0.2\n+1 1:0.3 2:0.1\n-1 1:0.9 2:0.7\n' >ok.svm
    printf '+1 1:0.5 2:1\n\n-1 1:1e308 2:2\n+1 1:0.3\n-1 1:0.9 2:0.7\n' >huge.svm
    for scaling in global-max-norm clip-only none public-bounds; do
      extra=()
      [ "$scaling" = public-bounds ] && extra=(--feature-range -1,1)
      expect 2 'huge\.svm:3: the row.s norm is not finite' -- "$DPADMM" run --data libsvm \
        --train huge.svm --test ok.svm --nodes 2 --topology complete --scaling "$scaling" \
        "${extra[@]}" --quiet
      one_error_line
      expect 2 'huge\.svm:3: the row.s norm is not finite' -- "$DPADMM" run --data libsvm \
        --train ok.svm --test huge.svm --nodes 2 --topology complete --scaling "$scaling" \
        "${extra[@]}" --quiet
      one_error_line
    done
    expect 2 'huge\.svm:3: the row.s norm is not finite' -- "$DPADMM" run --algorithm sharing \
      --data libsvm --train huge.svm --test ok.svm --quiet
    one_error_line
    expect 2 'huge\.svm:3: the row.s norm is not finite' -- "$DPADMM" run --algorithm dvp \
      --data libsvm --train huge.svm --test ok.svm --nodes 2 --topology complete --quiet
    one_error_line
    printf 'a,b,y\n1,2,1\n3,4,0\n-1e308,1e308,1\n5,6,0\n' >huge.csv
    printf 'a,b,y\n1,2,1\n3,4,0\n5,6,0\n2,2,1\n' >ok.csv
    expect 2 'huge\.csv:4: the row.s norm is not finite' -- "$DPADMM" run --data csv --header \
      --train huge.csv --test ok.csv --nodes 2 --topology complete --quiet
    one_error_line
    expect 2 'huge\.csv:4: the row.s norm is not finite' -- "$DPADMM" run --algorithm sharing \
      --data csv --header --train ok.csv --test huge.csv --quiet
    one_error_line
    printf '1 2\n3 4\n5 1e200\n2 2\n' >huge.asc
    printf '1 2\n3 4\n5 6\n2 2\n' >ok.asc
    printf '1\n-1\n1\n-1\n' >y.labels
    expect 2 'huge\.asc:3: the row.s norm is not finite' -- "$DPADMM" run --algorithm sharing \
      --data asc --train huge.asc --train-labels y.labels --test ok.asc --test-labels y.labels \
      --quiet
    one_error_line
    expect 2 'huge\.asc:3: the row.s norm is not finite' -- "$DPADMM" run --data asc \
      --train ok.asc --train-labels y.labels --test huge.asc --test-labels y.labels --nodes 2 \
      --topology complete --quiet
    one_error_line
    ;;
  huge_feature_index_names_input)
    # A size only the data file reveals (feature index 2e9) is not seen by the estimate before
    # the run: it is refused once the data is loaded, before any per-column array is allocated,
    # with exit 2 and the file named.
    printf '1 1:1 2000000000:1\n-1 1:2\n1 1:1\n-1 1:3\n' >huge_index.libsvm
    start=$(date +%s)
    expect 2 'huge_index\.libsvm: 2000000000 columns, above the limit of 536870911' -- \
      "$DPADMM" run --data libsvm --train huge_index.libsvm --test huge_index.libsvm --nodes 2 \
      --topology complete --quiet
    one_error_line
    expect 2 'huge_index\.libsvm: 2000000001 columns with the intercept, above the limit' -- \
      "$DPADMM" run --data libsvm --train huge_index.libsvm --bias --quiet
    one_error_line
    [ $(($(date +%s) - start)) -le 10 ] || fail "the column check took more than 10 s"
    [ -z "$(ls)" ] || [ "$(ls | grep -v -e '^out.txt$' -e '^err.txt$' -e '^huge_index')" = "" ] ||
      fail "files left: $(ls)"
    ;;
  out_of_memory_names_input)
    # An allocation that fails (std::bad_alloc; here under a 1 GB address-space limit, with the
    # estimate's limit off) ends the run with exit 2 and names the input.
    (ulimit -v 1000000
     expect 2 'out of memory while running on --data twonorm --rows 2000000 --dims 100' -- \
       "$DPADMM" run --data twonorm --rows 2000000 --dims 100 --nodes 2 --quiet --max-memory 0) ||
      exit 1
    one_error_line
    [ -z "$(ls)" ] || [ "$(ls | grep -v -e '^out.txt$' -e '^err.txt$')" = "" ] ||
      fail "files left: $(ls)"
    ;;
  same_output_path)
    expect 2 '--trace and --summary name the same file' -- \
      "$DPADMM" run "${SMALL[@]}" --trace x.csv --summary ./x.csv
    one_error_line
    mkdir -p sub
    expect 2 '--summary and --model-out name the same file' -- \
      "$DPADMM" run "${SMALL[@]}" --summary sub/../m.json --model-out m.json
    cp "$FIXTURES/bad_line2.libsvm" in.libsvm
    expect 2 '--trace in\.libsvm is the input --train' -- \
      "$DPADMM" run --data libsvm --train in.libsvm --trace in.libsvm --trace-format csv
    cmp -s in.libsvm "$FIXTURES/bad_line2.libsvm" || fail "the input was overwritten"
    [ ! -e x.csv ] && [ ! -e m.json ] || fail "a refused run wrote a file"
    ;;
  full_disk)
    # /dev/full: the first failing write is caught (not the end of the run), exit 6, path named.
    start=$(date +%s)
    expect 6 'dpadmm: error: /dev/full: cannot write the trace: No space left' -- \
      timeout 60 "$DPADMM" run --iterations 100000000 --metrics-every 1 --nodes 4 --topology ring \
      --rows 400 --quiet --trace /dev/full --trace-format csv --summary s.json
    [ $(($(date +%s) - start)) -le 20 ] || fail "the write error was not caught at once"
    grep -q '"outcome": "cancelled"' s.json || fail "the summary should still be written"
    expect 6 'dpadmm: error: /dev/full: cannot write the summary' -- \
      "$DPADMM" run "${SMALL[@]}" --trace t.csv --summary /dev/full
    # The label line, the header and rounds 0..5.
    [ "$(grep -vc '^#' t.csv)" -eq 7 ] || fail "the complete trace must be kept when the summary fails"
    ;;
  unwritable_summary_leaves_nothing)
    expect 6 'dpadmm: error: no_dir/s\.json: cannot create the summary' -- \
      "$DPADMM" run "${SMALL[@]}" --trace t.csv --summary no_dir/s.json
    one_error_line
    [ ! -e t.csv ] && [ ! -e t.csv.partial ] || fail "a trace was left by a run that never started"
    mkdir -p a_dir
    expect 6 'dpadmm: error: a_dir: cannot write the trace: it is a directory' -- \
      "$DPADMM" run "${SMALL[@]}" --trace a_dir --trace-format csv --summary s.json
    [ ! -e s.json ] && [ ! -e a_dir.partial ] || fail "files left by a run that never started"
    ;;
  early_end_trace_valid)
    # Rows reach the trace as they come (TRACE.partial); however the run ends, TRACE is renamed
    # into place and holds a header and complete rows.
    "$DPADMM" run --iterations 100000000 --metrics-every 1000 --nodes 4 --topology ring \
      --rows 400 --quiet --trace t.csv --summary s.json >out.txt 2>err.txt &
    pid=$!
    # A failed check must not leave the endless run behind.
    trap 'kill -KILL $pid 2>/dev/null' EXIT
    for _ in $(seq 100); do
      [ -s t.csv.partial ] && [ "$(wc -l <t.csv.partial)" -ge 3 ] && break
      sleep 0.1
    done
    [ -e t.csv ] && fail "the trace must not be at its final path while the run is going"
    kill -TERM $pid
    wait $pid
    got=$?
    [ "$got" -eq 4 ] || fail "exit code $got, expected 4"
    [ ! -e t.csv.partial ] || fail "t.csv.partial left after the run"
    head -n 1 t.csv | grep -q '^# no noise: the algorithm is not private$' ||
      fail "the trace lacks its noise label"
    grep -v '^#' t.csv | head -n 1 | grep -q '^round,' || fail "the trace has no header"
    grep -v '^#' t.csv | awk -F, 'NR==1 {n=NF} NF!=n {exit 1}' || fail "the trace has a torn row"
    ;;
  user_words_in_messages)
    expect 2 'dpadmm: error: --partition even: 7 rows cannot give each of 10 nodes' -- \
      "$DPADMM" run --rows 10
    grep -q 'PartitionEven' err.txt && fail "internal name in the message"
    ;;
  *)
    echo "unknown case '$CASE'"
    exit 1
    ;;
esac
echo "PASS [$CASE]"
