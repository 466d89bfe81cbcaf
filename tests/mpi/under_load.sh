#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Runs COMMAND while one busy loop spins on every core (nproc of them), as a loaded machine
# does: a race between the ranks' exit and rank 0's outputs, or a timeout that holds only on a
# quiet machine, shows here. The loops end with the command (or with this script).
#
#   under_load.sh COMMAND...
set -u
loops=()
stop_loops() {
  [ ${#loops[@]} -gt 0 ] && kill "${loops[@]}" 2>/dev/null
  wait "${loops[@]}" 2>/dev/null
  loops=()
}
trap stop_loops EXIT
trap 'exit 143' TERM INT
for _ in $(seq 1 "$(nproc)"); do
  bash -c 'while :; do :; done' &
  loops+=($!)
done
echo "under_load.sh: ${#loops[@]} busy loops (one per core) while running: $*"
"$@"
rc=$?
stop_loops
exit $rc
