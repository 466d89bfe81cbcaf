#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# usage: record.sh CLI OUTDIR -- records the 48 seeded traces/summaries of every algorithm with
# the unified `dpadmm run` (the runs of the schema-1 recorder, flags translated; file names kept
# so that compare.py can check them against recordings of the previous code).
set -euo pipefail
CLI=$1; OUT=$2; mkdir -p "$OUT"
common="--rows 1200 --nodes 6 --edges 8 --iterations 25 --seed 7 -q"
for eng in serial tbb; do
$CLI run $common --engine $eng --algorithm admm --trace $OUT/admm_$eng.csv --summary $OUT/admm_$eng.json
$CLI run $common --engine $eng --noise-seed 7 --algorithm dvp --alpha 0.5 --eta 10 --trace $OUT/dvp_$eng.csv --summary $OUT/dvp_$eng.json
$CLI run $common --engine $eng --noise-seed 7 --algorithm pvp --alpha 0.5 --eta 0.5 --trace $OUT/pvp_$eng.csv --summary $OUT/pvp_$eng.json
$CLI run $common --engine $eng --noise-seed 7 --algorithm madmm --alpha 0.5 --q1 1.05 --q2 1.02 --eta 0.5 --trace $OUT/madmm_$eng.csv --summary $OUT/madmm_$eng.json
$CLI run $common --engine $eng --algorithm radmm --trace $OUT/radmm_$eng.csv --summary $OUT/radmm_$eng.json
$CLI run $common --engine $eng --algorithm mradmm --q1 1.04 --trace $OUT/mradmm_$eng.csv --summary $OUT/mradmm_$eng.json
$CLI run $common --engine $eng --noise-seed 7 --algorithm private_mradmm --alpha 1 --q1 1.04 --eta 20 --trace $OUT/pmradmm_$eng.csv --summary $OUT/pmradmm_$eng.json
$CLI run $common --engine $eng --noise-seed 7 --algorithm pdml --label-eps 1 --pdml-R 0.1 --pdml-V 0.01 --eta 1 --C 1750 --rho 0.22 --pdml-decay 0.8 --trace $OUT/pdml_$eng.csv --summary $OUT/pdml_$eng.json
$CLI run $common --engine $eng --noise-seed 7 --algorithm dvp --loss smooth_hinge --alpha 1 --privacy-budget 10 --eta 0.5 --trace $OUT/dvp_hinge_budget_$eng.csv --summary $OUT/dvp_hinge_budget_$eng.json || true
# The vertical family through `run` (its defaults: sparse 2,000 x 200, 2 parties).
$CLI run --algorithm sharing --engine $eng --iterations 10 --seed 3 -q --trace $OUT/sharing_$eng.csv --summary $OUT/sharing_$eng.json
$CLI run --noise-seed 7 --algorithm sharing --engine $eng --iterations 10 --seed 3 -q --dp --total-epsilon 2 --b1 2 --trace $OUT/sharing_dp_$eng.csv --summary $OUT/sharing_dp_$eng.json
$CLI run --noise-seed 7 --algorithm sharing --engine $eng --iterations 10 --seed 3 -q --dp --dp-mechanism paper16 --epsilon 0.5 --b1 2 --trace $OUT/sharing_dp16_$eng.csv --summary $OUT/sharing_dp16_$eng.json
done
# ... and through the `sharing` alias with its old flags.
$CLI sharing --algorithm sgd --epochs 5 --seed 3 -q --trace $OUT/sharing_sgd.csv --summary $OUT/sharing_sgd.json
