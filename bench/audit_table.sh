#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# usage: bench/audit_table.sh [DPADMM] -- the "Privacy audit" table of bench/README.md: every
# audited mechanism at T = 1 and 5 rounds with the command's defaults (1e4 runs per side, fresh
# private keys per run), as Markdown rows.
set -euo pipefail
DPADMM=${1:-build/cli/dpadmm}
echo "| mechanism | T | runs/side | eps_lb | claim (tight) | per-round claim | ratio | FPR / FNR | result | seconds |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for a in dvp pvp madmm private_mradmm pdml sharing sharing_paper16; do
  for T in 1 5; do
    [ "$a" = pdml ] && [ "$T" = 5 ] && continue  # Phase 1 happens once
    "$DPADMM" audit --algorithm "$a" --rounds "$T" --json > /tmp/dpadmm_audit_$$.json || true
    python3 - /tmp/dpadmm_audit_$$.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
lb = d['epsilon_lower_bound']
print('| %s | %d | %d | %.3f | %.3f | %.3f | %.2f | %.3g / %.3g | %s | %.2f |' % (
    d['algorithm'], d['rounds'], d['runs_per_side'], lb, d['claim'], d['claim_per_round'],
    d['ratio'], d['fpr'], d['fnr'], 'PASS' if d['pass'] else 'FAIL', d['seconds']))
PY
  done
done
rm -f /tmp/dpadmm_audit_$$.json
