#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The per-round tight column's cost in every algorithm's default run, in instructions
# (callgrind: deterministic up to the private noise, blind to the machine's load).
# Usage: bench/tight_column_cost.sh DPADMM [REPS]   (REPS runs per algorithm, the median shown)
# Each run is `DPADMM run --algorithm A --engine serial` (the default run on the serial engine,
# so that no idle worker's spinning inflates the total) or `DPADMM sharing --dp --engine serial`,
# in a temporary folder. Columns: the run's instructions; the column's (inclusive, the functions
# only the per-round figure calls: TightTrace::AddRound and ::MaxEpsilon; pdml its analytic
# Gaussian, sharing its closed form, both also called once more at the end, so an upper bound);
# the summary's end-of-run composition (ComposeTightMechanisms, TightTrace::NodeEpsilon).
# "run without the column" = run - column: the summary's composition stays.
set -euo pipefail
cli=$(realpath "${1:?usage: $0 DPADMM [REPS]}")
reps=${2:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
inclusive() {  # FILE PATTERN: the inclusive counts of the functions matching PATTERN, summed
  callgrind_annotate --inclusive=yes --threshold=100 "$1" 2>/dev/null |
    { grep -E "$2" || true; } | awk '{gsub(",", "", $1); s += $1} END {print s + 0}'
}
median() { sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
printf '%-15s %14s %14s %8s %14s %8s\n' algorithm run column column% end-of-run end%
for a in admm dvp pvp madmm radmm mradmm private_mradmm pdml sharing; do
  : >"$work/rows"
  for ((r = 0; r < reps; ++r)); do
    if [[ $a == sharing ]]; then args=(sharing --dp --engine serial); else
      args=(run --algorithm "$a" --engine serial)
    fi
    valgrind --tool=callgrind --callgrind-out-file="$work/cg" "$cli" "${args[@]}" >/dev/null 2>&1
    total=$(callgrind_annotate "$work/cg" 2>/dev/null | awk '/PROGRAM TOTALS/ {gsub(",", "", $1); print $1}')
    column=$(inclusive "$work/cg" 'TightTrace::(AddRound|MaxEpsilon)\(|dpadmm::AnalyticGaussianEpsilon\(|dpadmm::SharingTightEpsilon\(')
    end=$(inclusive "$work/cg" 'dpadmm::ComposeTightMechanisms\(|TightTrace::NodeEpsilon\(')
    echo "$total $column $end" >>"$work/rows"
  done
  total=$(awk '{print $1}' "$work/rows" | median)
  column=$(awk '{print $2}' "$work/rows" | median)
  end=$(awk '{print $3}' "$work/rows" | median)
  awk -v a="$a" -v t="$total" -v c="$column" -v e="$end" \
    'BEGIN {printf "%-15s %14d %14d %7.2f%% %14d %7.2f%%\n", a, t, c, 100 * c / t, e, 100 * e / t}'
done
