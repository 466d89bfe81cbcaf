#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The browser demo. Builds the wasm module and the front-end, then serves the page:
#   scripts/web.sh            build and serve on http://127.0.0.1:5173 (Ctrl-C stops)
#   scripts/web.sh build      only build the static files into web/dist/
#   scripts/web.sh dev        Vite's dev server (hot reload of web/src)
# Installs what it needs first (Debian packages; npm packages from web/package-lock.json).
# The server sends COOP/COEP headers: the page is cross-origin isolated, which pause and step
# need (SharedArrayBuffer). Any static server with those headers can serve web/dist/; the build
# writes brotli (.br) and gzip (.gz) copies of its assets, which `vite preview` serves with
# Content-Encoding (web/README.md: the same for nginx and static hosts).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install_deps.sh
scripts/build_wasm.sh
cd web
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund
fi
case "${1:-serve}" in
  build) npm run build ;;
  dev) exec npx vite --host 127.0.0.1 --port "${PORT:-5173}" ;;
  serve)
    npm run build
    echo "open http://127.0.0.1:${PORT:-5173}/" >&2
    exec npx vite preview --host 127.0.0.1 --port "${PORT:-5173}" --strictPort ;;
  *) echo "usage: scripts/web.sh [serve|build|dev]" >&2; exit 2 ;;
esac
