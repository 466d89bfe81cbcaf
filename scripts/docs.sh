#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds the documentation site into build-docs/html, offline, warnings as errors (part of
# scripts/test.sh, after the release build and the Python package):
#   1. the pages that come from the code (docs/generate.py): every command's --help and the
#      spec's field table, from the dpadmm binary ($DPADMM_CLI, default build/cli/dpadmm);
#   2. Doxygen's XML of the public headers (docs/Doxyfile), private members left out;
#   3. the relative links of README.md and docs/ (scripts/check_links.py);
#   4. the snippets marked runnable in README.md and docs/ (scripts/run_snippets.py; skipped
#      with DPADMM_DOCS_SNIPPETS=0);
#   5. sphinx-build -W --keep-going -n with the Python that has the dpadmm package installed
#      ($DPADMM_PYTHON, default build/python-venv/bin/python, made by scripts/python_test.sh).
# Exit status: non-zero when any step fails.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
cli=${DPADMM_CLI:-$root/build/cli/dpadmm}
python=${DPADMM_PYTHON:-$root/build/python-venv/bin/python}
out=${DPADMM_DOCS_OUT:-$root/build-docs}
for tool in "$cli" "$python"; do
  if [ ! -x "$tool" ]; then
    echo "docs.sh: $tool not found: run scripts/build.sh and scripts/python_test.sh first" >&2
    exit 2
  fi
done
t0=$SECONDS
/usr/bin/python3 docs/generate.py --cli "$cli" --out docs/_generated
mkdir -p "$out/doxygen"
DPADMM_ROOT=$root DPADMM_DOXYGEN_OUT=$out/doxygen doxygen docs/Doxyfile
/usr/bin/python3 docs/doxygen_filter.py --strip-private "$out/doxygen/xml"
/usr/bin/python3 scripts/check_links.py
if [ "${DPADMM_DOCS_SNIPPETS:-1}" != 0 ]; then
  DPADMM_CLI=$cli DPADMM_PYTHON=$python /usr/bin/python3 scripts/run_snippets.py
fi
DPADMM_DOXYGEN_XML=$out/doxygen/xml "$python" -m sphinx -W --keep-going -n -q -b html \
  -d "$out/doctrees" docs "$out/html"
echo "docs.sh: site in $out/html ($((SECONDS - t0)) s)" >&2
