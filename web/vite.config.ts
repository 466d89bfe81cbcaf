// SPDX-License-Identifier: Apache-2.0
import { defineConfig, type Plugin } from 'vite';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

// The wasm modules come from the Emscripten builds (build-wasm/ and build-wasm-mt/ by default;
// DPADMM_WASM_DIR and DPADMM_WASM_MT_DIR override). COOP/COEP make the page cross-origin
// isolated, so that SharedArrayBuffer exists: the pause/step channel to the engine's worker and
// the threaded build's shared memory (without them the page runs the single-threaded build);
// dev and preview servers both send them. web/README.md: the same headers on static hosts.
const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..');
const wasmDir = path.resolve(root, process.env.DPADMM_WASM_DIR ?? 'build-wasm');
const wasmMtDir = path.resolve(root, process.env.DPADMM_WASM_MT_DIR ?? 'build-wasm-mt');
const version = readFileSync(path.join(root, 'VERSION'), 'utf8').trim();
const isolation = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
};

const COMPRESSIBLE = /\.(js|mjs|css|html|wasm|json|svg|txt)$/;
const TYPES: Record<string, string> = {
  '.js': 'text/javascript', '.mjs': 'text/javascript', '.css': 'text/css', '.html': 'text/html',
  '.wasm': 'application/wasm', '.json': 'application/json', '.svg': 'image/svg+xml', '.txt': 'text/plain',
};

function* files(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) yield* files(full);
    else yield full;
  }
}

/**
 * Precompressed assets: after the build, every compressible file of dist/ above 1 KB gets a
 * .br (brotli, quality 11) and a .gz (gzip -9) sibling, and `vite preview` serves them with
 * Content-Encoding to clients that accept it (static hosts do the same: web/README.md).
 */
function precompress(): Plugin {
  let outDir = 'dist';
  return {
    name: 'dpadmm-precompress',
    apply: 'build',
    configResolved(c) {
      outDir = path.resolve(c.root, c.build.outDir);
    },
    closeBundle() {
      for (const file of files(outDir)) {
        if (!COMPRESSIBLE.test(file)) continue;
        const data = readFileSync(file);
        if (data.length < 1024) continue;
        writeFileSync(`${file}.gz`, gzipSync(data, { level: 9 }));
        writeFileSync(`${file}.br`, brotliCompressSync(data, {
          params: {
            [constants.BROTLI_PARAM_QUALITY]: 11,
            [constants.BROTLI_PARAM_SIZE_HINT]: data.length,
          },
        }));
      }
    },
  };
}

/** `vite preview`: answers with the .br / .gz sibling when the client accepts that encoding. */
function servePrecompressed(): Plugin {
  return {
    name: 'dpadmm-serve-precompressed',
    configurePreviewServer(server) {
      const dist = path.resolve(server.config.root, server.config.build.outDir);
      server.middlewares.use((req, res, next) => {
        if (req.method !== 'GET' && req.method !== 'HEAD') return next();
        let url = decodeURIComponent((req.url ?? '/').split('?')[0]);
        if (url.endsWith('/')) url += 'index.html';
        const file = path.join(dist, path.normalize(url));
        if (!file.startsWith(dist + path.sep) || !COMPRESSIBLE.test(file)) return next();
        const accept = String(req.headers['accept-encoding'] ?? '');
        const choice = [['br', '.br'], ['gzip', '.gz']].find(
          ([enc, ext]) => new RegExp(`\\b${enc}\\b`).test(accept) && existsSync(file + ext));
        if (!choice) return next();
        const body = readFileSync(file + choice[1]);
        for (const [k, v] of Object.entries(isolation)) res.setHeader(k, v);
        res.setHeader('Content-Type', TYPES[path.extname(file)] ?? 'application/octet-stream');
        res.setHeader('Content-Encoding', choice[0]);
        res.setHeader('Vary', 'Accept-Encoding');
        res.setHeader('Content-Length', String(body.length));
        res.setHeader('Cache-Control', url.includes('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache');
        res.statusCode = 200;
        res.end(req.method === 'HEAD' ? undefined : body);
      });
    },
  };
}

/** The page states the library's version: %DPADMM_VERSION% in index.html, from the VERSION file. */
function pageVersion(): Plugin {
  return {
    name: 'dpadmm-version',
    transformIndexHtml: {
      order: 'pre',
      handler: (html) => html.replaceAll('%DPADMM_VERSION%', version),
    },
  };
}

export default defineConfig({
  base: './',
  resolve: { alias: { '@dpadmm-wasm-mt': wasmMtDir, '@dpadmm-wasm': wasmDir } },
  server: { headers: isolation, fs: { allow: [here, wasmDir, wasmMtDir] } },
  preview: { headers: isolation },
  worker: { format: 'es' },
  build: {
    target: 'es2022', chunkSizeWarningLimit: 1024,
    // The threaded build's pthread script must stay a same-origin file: inlined as a data: URL
    // its worker would have an opaque origin and could not import the module under COEP.
    assetsInlineLimit: (file: string) => (file.endsWith('.worker.js') ? false : undefined),
  },
  plugins: [pageVersion(), precompress(), servePrecompressed()],
});
