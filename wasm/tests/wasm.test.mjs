// Unit tests of the wasm build under node (ctest label `wasm`; one ctest entry per test name).
//   DPADMM_WASM_MODULE=build-wasm/dpadmm_wasm.mjs [DPADMM_NATIVE_CLI=build/cli/dpadmm] \
//     node --no-experimental-fetch --test wasm/tests/wasm.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

import { loadModule, runSpec } from './load_module.mjs';

const module = await loadModule();

test('module', () => {
  const spec = JSON.parse(module.defaultSpecJson());
  assert.equal(spec.engine, 'serial', 'the browser runs the serial engine');
  assert.equal(spec.algorithm.name, 'admm');
  const header = module.csvHeader().split(',');
  assert.deepEqual(header.slice(0, 3), ['round', 'seconds', 'train_loss']);
  assert.match(module.putFile('a/b.csv', '1,2\n'), /plain name/);
  assert.equal(module.putFile('ok.csv', '1,2\n'), '');
});

// The main job (10 nodes, random graph with 13 edges, generated twonorm, 100 rounds): twonorm's
// Bayes error is about 2.3 %, and non-private ADMM reaches the centralized optimum's error.
test('default_run', () => {
  const r = runSpec(module, '{}');
  assert.equal(r.error, undefined, r.error);
  assert.equal(r.summary.outcome, 'completed');
  assert.equal(r.summary.rounds, 100);
  assert.equal(r.rounds.length, 101);
  assert.deepEqual(r.rounds.map((m) => m.round), [...Array(101).keys()]);
  const last = r.rounds.at(-1);
  assert.ok(last.test_error < 0.035, `test error ${last.test_error}`);
  assert.ok(Math.abs(last.test_error - r.info.optimum_test_error) <= 0.005);
  assert.ok(last.train_loss < r.rounds[0].train_loss);
  assert.equal(last.node_distance.length, 10);
  assert.ok(Math.max(...last.node_distance) <= last.consensus_gap);
  assert.equal(r.graph.nodes, 10);
  assert.equal(r.graph.edges.length, 13);
  assert.equal(r.csv.length, 101);
  assert.equal(r.csv[0].split(',').length, module.csvHeader().split(',').length);
});

test('bad_spec', () => {
  // Every kind of bad input is a message naming the field, never an abort; the module stays usable.
  let r = runSpec(module, '{"graph": {"nodes": -3}}');
  assert.match(r.error, /graph\.nodes/);
  r = runSpec(module, '{"algorithm": {"etta": 1}}');
  assert.match(r.error, /unknown field 'algorithm\.etta'/);
  r = runSpec(module, '{"iterations": "many"}');
  assert.match(r.error, /iterations must be/);
  r = runSpec(module, '{"graph": ');
  assert.match(r.error, /JSON syntax error/);
  r = runSpec(module, '{"engine": "tbb"}');
  assert.match(r.error, /not available in this build/);
  r = runSpec(module, { iterations: 2 });
  assert.equal(r.summary.outcome, 'completed');
});

test('malformed_libsvm', () => {
  assert.equal(module.putFile('bad.libsvm', '+1 1:0.5 2:1\n-1 1:0.25 2:x\n+1 2:3\n'), '');
  const r = runSpec(module, { data: { source: 'libsvm', train_path: 'bad.libsvm' } });
  assert.match(r.error, /^bad\.libsvm:2: /, r.error);
  const missing = runSpec(module, { data: { source: 'libsvm', train_path: 'nothere.libsvm' } });
  assert.match(missing.error, /nothere\.libsvm: cannot open file/);
});

test('upload_csv', () => {
  // 200 rows, label = sign(x0 + x1), parsed by the same C++ CSV loader as the CLI's.
  const lines = ['x0,x1,label'];
  for (let k = 0; k < 200; ++k) {
    const a = Math.sin(k * 1.3), b = Math.cos(k * 0.7);
    lines.push(`${a},${b},${a + b >= 0 ? 1 : 0}`);
  }
  assert.equal(module.putFile('mine.csv', lines.join('\n') + '\n'), '');
  const r = runSpec(module, {
    data: { source: 'csv', train_path: 'mine.csv', has_header: true },
    graph: { topology: 'ring', nodes: 4 }, iterations: 40,
  });
  assert.equal(r.error, undefined, r.error);
  assert.equal(r.info.train_rows + r.info.test_rows, 200);
  assert.equal(r.info.features, 2);
  assert.ok(r.rounds.at(-1).test_error < 0.1);
});

test('step_and_stop', () => {
  // The callback's return value stops the run after that round (the demo's Stop button).
  const r = runSpec(module, { iterations: 50 }, (m) => m.round < 5);
  assert.equal(r.summary.outcome, 'cancelled');
  assert.equal(r.summary.rounds, 5);
  assert.equal(r.rounds.length, 6);
});

// The same seeded runs natively (the CLI's CSV trace) and in wasm. Native x86-64 and wasm do
// not yet agree in the last bits after round 0 (see wasm/README.md, "Bit identity"): every
// column must agree to a relative 1e-8 (measured: at most 3e-11, on the consensus gap, a
// difference of nearly equal vectors; loss and objective within 1e-15), the test error within
// one test sample, and round 0 (data, partition, normalisation, initial metrics) exactly.
// `same_bits_as_native` is the exact comparison (ctest: disabled until the gap is closed).
const NATIVE_SPECS = {
  admm: { iterations: 60, seed: 3 },
  dvp: { algorithm: { name: 'dvp', alpha: 0.5, eta: 10 }, graph: { nodes: 6, edges: 8 },
         iterations: 40, seed: 11 },
  private_mradmm: { algorithm: { name: 'private_mradmm', alpha: 1, eta: 1, q1: 1.04 },
                    iterations: 30, seed: 5 },
  sparse_madmm: { algorithm: { name: 'madmm', alpha: 0.8, eta: 1, q1: 1.02 },
                  data: { source: 'sparse', rows: 1500, dims: 60 }, graph: { topology: 'ring', nodes: 5 },
                  iterations: 25, seed: 9 },
};

function nativeAndWasm(name, spec) {
  const cli = process.env.DPADMM_NATIVE_CLI;
  assert.ok(cli, 'DPADMM_NATIVE_CLI must name the native dpadmm command');
  const work = process.env.DPADMM_TEST_WORKDIR ?? '.';
  mkdirSync(work, { recursive: true });
  const specPath = path.join(work, `${name}.json`);
  const tracePath = path.join(work, `${name}-native.csv`);
  writeFileSync(specPath, JSON.stringify({ ...spec, engine: 'serial' }));
  execFileSync(cli, ['run', '--config', specPath, '--quiet', '--trace', tracePath,
                     '--summary', path.join(work, `${name}-native.json`)]);
  const native = readFileSync(tracePath, 'utf8').trim().split('\n');
  const r = runSpec(module, spec);
  assert.equal(r.error, undefined, r.error);
  const wasm = [module.csvHeader(), ...r.csv];
  writeFileSync(path.join(work, `${name}-wasm.csv`), wasm.join('\n') + '\n');
  assert.equal(wasm.length, native.length, `${name}: row count`);
  return { native, wasm, testRows: r.info.test_rows };
}

const withoutSeconds = (line, k) => line.split(',').filter((_, j) => j !== k).join(',');

test('matches_native', () => {
  for (const [name, spec] of Object.entries(NATIVE_SPECS)) {
    const { native, wasm, testRows } = nativeAndWasm(name, spec);
    const header = native[0].split(',');
    assert.equal(wasm[0], native[0]);
    const seconds = header.indexOf('seconds');
    assert.equal(withoutSeconds(wasm[1], seconds), withoutSeconds(native[1], seconds), `${name}: round 0`);
    let worst = 0;
    for (let k = 2; k < native.length; ++k) {
      const a = native[k].split(','), b = wasm[k].split(',');
      header.forEach((column, j) => {
        if (column === 'seconds') return;
        const xs = a[j].split(';').map(Number), ys = b[j].split(';').map(Number);
        assert.equal(xs.length, ys.length);
        xs.forEach((x, i) => {
          const y = ys[i];
          if (column === 'round') return assert.equal(y, x);
          if (column === 'test_error') {
            return assert.ok(Math.abs(x - y) * testRows <= 1 + 1e-9, `${name} row ${k}: test_error ${y} vs ${x}`);
          }
          const scale = Math.max(Math.abs(x), Math.abs(y));
          const rel = scale === 0 ? 0 : Math.abs(x - y) / scale;
          worst = Math.max(worst, rel);
          assert.ok(rel <= 1e-8 || Math.abs(x - y) <= 1e-14, `${name} row ${k}: ${column} ${y} vs ${x}`);
        });
      });
    }
    console.log(`${name}: largest relative difference native vs wasm ${worst.toExponential(2)}`);
  }
});

test('same_bits_as_native', () => {
  for (const [name, spec] of Object.entries(NATIVE_SPECS)) {
    const { native, wasm } = nativeAndWasm(name, spec);
    const seconds = native[0].split(',').indexOf('seconds');
    for (let k = 0; k < native.length; ++k) {
      assert.equal(withoutSeconds(wasm[k], seconds), withoutSeconds(native[k], seconds), `${name}: trace line ${k + 1}`);
    }
  }
});
