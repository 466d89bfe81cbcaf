#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The Python package's test suite (part of scripts/test.sh, after the release build):
# a virtual environment over Debian's numpy/scipy/scikit-learn/pytest, `pip install
# --no-build-isolation ./python` reusing build/ (only the extension target is built there), then
# pytest against build/cli/dpadmm. Arguments go to pytest. Exit status: pytest's (0 = passed;
# 5 = no test collected is a failure too).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
venv=${DPADMM_VENV:-$root/build/python-venv}
if [ ! -x "$venv/bin/python" ]; then
  /usr/bin/python3 -m venv --system-site-packages "$venv"
fi
DPADMM_BUILD_DIR="${DPADMM_BUILD_DIR:-$root/build}" \
  "$venv/bin/pip" install --no-build-isolation --no-deps --no-index --quiet "$root/python"
status=0
(cd "$root/python/tests" && DPADMM_CLI="${DPADMM_CLI:-$root/build/cli/dpadmm}" \
  "$venv/bin/python" -m pytest -q -p no:cacheprovider "$@" .) || status=$?
if [ "$status" -eq 5 ]; then
  echo "python_test.sh: pytest collected no tests" >&2
fi
exit "$status"
