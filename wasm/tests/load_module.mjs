// SPDX-License-Identifier: Apache-2.0
// Loads the MODULARIZE + EXPORT_ES6 build under node. Emscripten 3.1.6's ES module output still
// calls require() and reads __dirname on node, and its fetch-based loader breaks under node's
// built-in fetch, so: define both globals, and hand it the wasm bytes directly.
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

export async function loadModule(modulePath = process.env.DPADMM_WASM_MODULE) {
  if (!modulePath) throw new Error('set DPADMM_WASM_MODULE to build-wasm/dpadmm_wasm.mjs');
  globalThis.require ??= createRequire(import.meta.url);
  globalThis.__dirname ??= path.dirname(modulePath);
  const { default: create } = await import(pathToFileURL(modulePath).href);
  const wasmBinary = readFileSync(modulePath.replace(/\.mjs$/, '.wasm'));
  return create({ wasmBinary, print: () => {}, printErr: (s) => process.stderr.write(`${s}\n`) });
}

// Runs one spec (either family) to its end; returns {summary, rounds (parsed JSON), csv (rows),
// info, graph, specJson, csvHeader, family} or {error}.
export function runSpec(module, spec, onRound = () => true) {
  const session = new module.Session(typeof spec === 'string' ? spec : JSON.stringify(spec));
  try {
    if (!session.ok()) return { error: session.error() };
    const rounds = [];
    const csv = [];
    const summary = JSON.parse(
      session.run((json, row) => {
        const m = JSON.parse(json);
        rounds.push(m);
        csv.push(row);
        return onRound(m);
      }),
    );
    if (summary.error) return { error: summary.error };
    return { summary, rounds, csv, info: JSON.parse(session.infoJson()),
             graph: JSON.parse(session.graphJson()), specJson: session.specJson(),
             csvHeader: session.csvHeader(), family: session.family() };
  } finally {
    session.delete();
  }
}

// A vertical-family run (the same Session): runSpec's result with the rounds also as `epochs`.
export function runSharingSpec(module, spec, onEpoch = () => true) {
  const r = runSpec(module, spec, onEpoch);
  return r.error ? r : { ...r, epochs: r.rounds };
}
