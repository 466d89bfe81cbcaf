#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The project's formatting and licence lines.
#   scripts/format.sh           add missing SPDX lines, then clang-format every C++ file in place
#   scripts/format.sh --check   change nothing; exit 1 naming every file that is not formatted or
#                               lacks its SPDX line, and every failure of scripts/check_text.py
#                               (version strings that disagree with VERSION, text that refers to
#                               the work instead of the product); scripts/test.sh runs this, so
#                               CI fails on it
set -euo pipefail
cd "$(dirname "$0")/.."
check=0
[ "${1:-}" = "--check" ] && check=1
CLANG_FORMAT=${CLANG_FORMAT:-clang-format}
spdx='SPDX-License-Identifier: Apache-2.0'

# Every tracked source file (C++, CMake, shell, TypeScript/JavaScript), generated files excluded.
mapfile -t sources < <(git ls-files -- '*.cpp' '*.h' '*.h.in' '*.cmake' 'CMakeLists.txt' \
  '*/CMakeLists.txt' '*.sh' '*.ts' '*.mjs' '.ci/run' | grep -v -e '^web/node_modules/' -e '/corpus/')
mapfile -t cxx < <(printf '%s\n' "${sources[@]}" | grep -E '\.(cpp|h)$')

bad=0
for f in "${sources[@]}"; do
  [ -f "$f" ] || continue
  head -n 3 "$f" | grep -q "$spdx" && continue
  if [ $check -eq 1 ]; then
    echo "missing SPDX line: $f" >&2; bad=1; continue
  fi
  case "$f" in
    *.cpp|*.h|*.h.in|*.ts|*.mjs) line="// $spdx" ;;
    *) line="# $spdx" ;;
  esac
  if head -n 1 "$f" | grep -q '^#!'; then
    { head -n 1 "$f"; echo "$line"; tail -n +2 "$f"; } > "$f.spdx.tmp"
  else
    { echo "$line"; cat "$f"; } > "$f.spdx.tmp"
  fi
  chmod --reference="$f" "$f.spdx.tmp"; mv "$f.spdx.tmp" "$f"
done

if [ $check -eq 1 ]; then
  # Two at a time, 16 files a call; a file out of format fails its call, whose files are then
  # named one by one.
  check_batch() {
    "$CLANG_FORMAT" --style=file --dry-run -Werror "$@" >/dev/null 2>&1 && return 0
    for f in "$@"; do
      "$CLANG_FORMAT" --style=file --dry-run -Werror "$f" >/dev/null 2>&1 ||
        echo "not formatted (run scripts/format.sh): $f" >&2
    done
    return 1
  }
  export -f check_batch
  export CLANG_FORMAT
  printf '%s\0' "${cxx[@]}" | xargs -0 -P 2 -n 16 bash -c 'check_batch "$@"' _ || bad=1
  python3 scripts/check_text.py || bad=1
  exit $bad
fi
"$CLANG_FORMAT" --style=file -i "${cxx[@]}"
