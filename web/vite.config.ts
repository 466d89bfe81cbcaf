// SPDX-License-Identifier: Apache-2.0
import { defineConfig } from 'vite';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

// The wasm module comes from the Emscripten build (build-wasm/ by default; DPADMM_WASM_DIR
// overrides). COOP/COEP make the page cross-origin isolated, so that SharedArrayBuffer (the
// pause/step channel to the engine's worker) exists; dev and preview servers both send them.
const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..');
const wasmDir = path.resolve(root, process.env.DPADMM_WASM_DIR ?? 'build-wasm');
const isolation = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
};

export default defineConfig({
  base: './',
  resolve: { alias: { '@dpadmm-wasm': wasmDir } },
  server: { headers: isolation, fs: { allow: [here, wasmDir] } },
  preview: { headers: isolation },
  worker: { format: 'es' },
  build: { target: 'es2022', chunkSizeWarningLimit: 1024 },
});
