// SPDX-License-Identifier: Apache-2.0
// The same seeded run natively (the dpadmm CLI, serial engine) and in wasm under node, with
// repetitions; prints medians and the wasm/native ratio. Measured, not asserted.
//
//   node --no-experimental-fetch wasm/bench/wasm_vs_native.mjs \
//     --module build-wasm/dpadmm_wasm.mjs --cli build/cli/dpadmm [--reps 5]
//
// Two times per run: "run" is the summary's `seconds` (the ADMM rounds and their metrics, the
// same code path on both sides); "total" adds building the experiment (data generation,
// partition, the centralized optimum) — for the CLI, the process's wall time.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';

import { loadModule } from '../tests/load_module.mjs';

const { values: args } = parseArgs({
  options: {
    module: { type: 'string', default: 'build-wasm/dpadmm_wasm.mjs' },
    cli: { type: 'string', default: 'build/cli/dpadmm' },
    reps: { type: 'string', default: '5' },
  },
});
const reps = Number(args.reps);

const CASES = {
  'main job (admm, twonorm 7400x20, 10 nodes, 100 rounds)': {},
  'dvp (private, twonorm, 10 nodes, 100 rounds)': { algorithm: { name: 'dvp', eta: 10, dvp: { alpha: 0.5 } } },
  'sparse 4000x500, ring of 16, 60 rounds': {
    data: { source: 'sparse', rows: 4000, dims: 500 }, graph: { topology: 'ring', nodes: 16 }, iterations: 60,
  },
};

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

const module = await loadModule(path.resolve(args.module));
const work = mkdtempSync(path.join(os.tmpdir(), 'dpadmm-bench-'));
const rows = [];
for (const [name, spec] of Object.entries(CASES)) {
  const wasm = { run: [], total: [] };
  const native = { run: [], total: [] };
  const specPath = path.join(work, 'spec.json');
  writeFileSync(specPath, JSON.stringify({ ...spec, engine: 'serial' }));
  for (let r = 0; r < reps; ++r) {
    // Alternate the two so that load from other processes hits both alike.
    let t0 = performance.now();
    execFileSync(path.resolve(args.cli), ['run', '--config', specPath, '--quiet',
      '--trace', path.join(work, 't.csv'), '--summary', path.join(work, 's.json')]);
    native.total.push((performance.now() - t0) / 1000);
    native.run.push(JSON.parse(readFileSync(path.join(work, 's.json'), 'utf8')).seconds);

    t0 = performance.now();
    const session = new module.Session(JSON.stringify(spec));
    if (!session.ok()) throw new Error(session.error());
    const summary = JSON.parse(session.run(() => true));
    session.delete();
    wasm.total.push((performance.now() - t0) / 1000);
    wasm.run.push(summary.seconds);
  }
  rows.push({ name, wasm, native });
}
rmSync(work, { recursive: true, force: true });

const f = (x) => x.toFixed(3);
console.log(`wasm (node ${process.version}, -O3 -msimd128 -msse2, serial engine) vs native (Release, serial engine); ${reps} repetitions, medians in seconds`);
console.log('case | native run | wasm run | ratio | native total | wasm total | ratio');
for (const { name, wasm, native } of rows) {
  const nr = median(native.run), wr = median(wasm.run), nt = median(native.total), wt = median(wasm.total);
  console.log(`${name} | ${f(nr)} | ${f(wr)} | ${(wr / nr).toFixed(2)}x | ${f(nt)} | ${f(wt)} | ${(wt / nt).toFixed(2)}x`);
}
