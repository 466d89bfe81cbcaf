// SPDX-License-Identifier: Apache-2.0
// The same seeded run natively (the dpadmm CLI, serial engine) and in wasm under node, with
// repetitions; prints medians and the wasm/native ratio. Measured, not asserted.
//
//   node --no-experimental-fetch wasm/bench/wasm_vs_native.mjs \
//     --module build-wasm/dpadmm_wasm.mjs --cli build/cli/dpadmm [--reps 5] [--warmup N]
//
// The default measures cold wasm: each case's first runs pay V8's tiering (Liftoff code until
// TurboFan's has compiled), as a page's first run does. --warmup N runs each case N times in
// wasm, untimed, before its repetitions: the figures then exclude most of the tiering and are
// labelled "warm" (a separate figure, not the cold one).
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
    warmup: { type: 'string', default: '0' },
  },
});
const reps = Number(args.reps);
const warmup = Number(args.warmup);
for (const [flag, v, min] of [['--reps', reps, 1], ['--warmup', warmup, 0]]) {
  if (!Number.isInteger(v) || v < min) {
    console.error(`wasm_vs_native: ${flag} must be an integer >= ${min}, got '${args[flag.slice(2)]}'`);
    process.exit(2);
  }
}

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
// One run of the spec in wasm; its summary.
const runWasm = (spec) => {
  const session = new module.Session(JSON.stringify(spec));
  if (!session.ok()) throw new Error(session.error());
  const summary = JSON.parse(session.run(() => true));
  session.delete();
  return summary;
};
const work = mkdtempSync(path.join(os.tmpdir(), 'dpadmm-bench-'));
const rows = [];
for (const [name, spec] of Object.entries(CASES)) {
  const wasm = { run: [], total: [] };
  const native = { run: [], total: [] };
  const specPath = path.join(work, 'spec.json');
  writeFileSync(specPath, JSON.stringify({ ...spec, engine: 'serial' }));
  for (let r = 0; r < warmup; ++r) runWasm(spec);
  for (let r = 0; r < reps; ++r) {
    // Alternate the two so that load from other processes hits both alike.
    let t0 = performance.now();
    execFileSync(path.resolve(args.cli), ['run', '--config', specPath, '--quiet',
      '--trace', path.join(work, 't.csv'), '--summary', path.join(work, 's.json')]);
    native.total.push((performance.now() - t0) / 1000);
    native.run.push(JSON.parse(readFileSync(path.join(work, 's.json'), 'utf8')).seconds);

    t0 = performance.now();
    const summary = runWasm(spec);
    wasm.total.push((performance.now() - t0) / 1000);
    wasm.run.push(summary.seconds);
  }
  rows.push({ name, wasm, native });
}
rmSync(work, { recursive: true, force: true });

const f = (x) => x.toFixed(3);
const temperature = warmup > 0
  ? `WARM wasm (each case first run ${warmup} times untimed: V8's tiering mostly excluded)`
  : 'cold wasm (V8 tiering included)';
console.log(`wasm (node ${process.version}, -O3 -msimd128 -msse2, serial engine) vs native (Release, serial engine); ${reps} repetitions, medians in seconds; ${temperature}`);
console.log('case | native run | wasm run | ratio | native total | wasm total | ratio');
for (const { name, wasm, native } of rows) {
  const nr = median(native.run), wr = median(wasm.run), nt = median(native.total), wt = median(wasm.total);
  console.log(`${name} | ${f(nr)} | ${f(wr)} | ${(wr / nr).toFixed(2)}x | ${f(nt)} | ${f(wt)} | ${(wt / nt).toFixed(2)}x`);
}
