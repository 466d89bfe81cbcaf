// SPDX-License-Identifier: Apache-2.0
// Unit tests of the wasm build under node (ctest label `wasm`; one ctest entry per test name).
//   DPADMM_WASM_MODULE=build-wasm/dpadmm_wasm.mjs [DPADMM_NATIVE_CLI=build/cli/dpadmm] \
//     node --no-experimental-fetch --test wasm/tests/wasm.test.mjs
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

import { loadModule, runSharingSpec, runSpec } from './load_module.mjs';

const module = await loadModule();
// The threaded build's pool of pthread workers keeps node alive: leave once every test has run
// (process.exitCode carries a failure; stdout to a pipe is synchronous, nothing is lost).
if (module.threaded()) after(() => setImmediate(() => process.exit()));

test('module', () => {
  assert.equal(module.threaded(), /_mt\.mjs$/.test(process.env.DPADMM_WASM_MODULE));
  assert.ok(module.maxThreads() >= 1);
  const spec = JSON.parse(module.defaultSpecJson(''));
  assert.equal(spec.engine, 'serial', 'the browser runs the serial engine');
  assert.equal(spec.algorithm.name, 'admm');
  const header = module.csvHeader('consensus').split(',');
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
  assert.equal(r.csv[0].split(',').length, module.csvHeader('consensus').split(',').length);
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

// A seeded run gives the same bits natively and in wasm: the native CLI's CSV trace and the
// wasm trace agree in every column but wall time, for five algorithms (dense and sparse data,
// private and not; the private ones in simulation mode, noise_seed set), the three baselines
// (both mechanisms) and a run with a target epsilon (the epsilon policy and the calibration,
// applied when the Session prepares the run as `dpadmm run` does). The numbers are printed in
// shortest round-trip form, so equal text means equal doubles.
const NATIVE_SPECS = {
  admm: { iterations: 60, seed: 3 },
  dvp: { algorithm: { name: 'dvp', eta: 10, dvp: { alpha: 0.5 } }, graph: { nodes: 6, edges: 8 },
         iterations: 40, seed: 11, noise_seed: 11 },
  private_mradmm: { algorithm: { name: 'private_mradmm', eta: 1,
                                 private_mradmm: { alpha: 1, q1: 1.04 } },
                    iterations: 30, seed: 5, noise_seed: 5 },
  pdml: { algorithm: { name: 'pdml', C: 1, rho: 0.01, eta: 0.1,
                       pdml: { label_eps: 1, R: 1, V: 0.5, decay: 0.8 } }, iterations: 30, seed: 4,
          noise_seed: 4 },
  sparse_madmm: { algorithm: { name: 'madmm', eta: 1, madmm: { alpha: 0.8, q1: 1.02 } },
                  data: { source: 'sparse', rows: 1500, dims: 60 }, graph: { topology: 'ring', nodes: 5 },
                  iterations: 25, seed: 9, noise_seed: 9 },
  local: { algorithm: { name: 'local', local: { epsilon: 0.5 } }, data: { source: 'twonorm', rows: 1200 },
           graph: { nodes: 6, edges: 8 }, iterations: 5, seed: 6, noise_seed: 6 },
  average_gaussian: { algorithm: { name: 'average', average: { mechanism: 'gaussian', epsilon: 2, delta: 1e-6 } },
                      data: { source: 'twonorm', rows: 1200 }, graph: { nodes: 6, edges: 8 }, iterations: 15,
                      seed: 7, noise_seed: 7 },
  central: { algorithm: { name: 'central', central: { epsilon: 1 } }, data: { source: 'twonorm', rows: 1200 },
             graph: { nodes: 6, edges: 8 }, iterations: 5, seed: 8, noise_seed: 8 },
  dvp_target_epsilon: { algorithm: { name: 'dvp' }, data: { source: 'twonorm', rows: 1200 },
                        graph: { nodes: 6, edges: 8 }, target_epsilon: 1, seed: 12, noise_seed: 12 },
};

// The library computes every elementary function itself (algorithms' portable_math.h), so the
// native command runs in its ordinary environment, whatever the C library and the CPU.

function nativeAndWasm(name, spec, wasmFields = {}) {
  const cli = process.env.DPADMM_NATIVE_CLI;
  assert.ok(cli, 'DPADMM_NATIVE_CLI must name the native dpadmm command');
  const work = process.env.DPADMM_TEST_WORKDIR ?? '.';
  mkdirSync(work, { recursive: true });
  const specPath = path.join(work, `${name}.json`);
  const tracePath = path.join(work, `${name}-native.csv`);
  writeFileSync(specPath, JSON.stringify({ ...spec, engine: 'serial' }));
  execFileSync(cli, ['run', '--config', specPath, '--quiet', '--trace', tracePath,
                     '--summary', path.join(work, `${name}-native.json`)]);
  // The CLI's first line says the noise mode (a '# ' comment); the rows follow.
  const native = readFileSync(tracePath, 'utf8').trim().split('\n').filter((l) => !l.startsWith('#'));
  const r = runSpec(module, { ...spec, ...wasmFields });
  assert.equal(r.error, undefined, r.error);
  const wasm = [module.csvHeader('consensus'), ...r.csv];
  writeFileSync(path.join(work, `${name}-wasm.csv`), wasm.join('\n') + '\n');
  assert.equal(wasm.length, native.length, `${name}: row count`);
  return { native, wasm, testRows: r.info.test_rows };
}

const withoutSeconds = (line, k) => line.split(',').filter((_, j) => j !== k).join(',');

// Private mode (no noise_seed): the keys come from crypto.getRandomValues, so two runs release
// different values; simulation mode (noise_seed) repeats the same bits. Both are labelled.
test('noise_modes', () => {
  const spec = { algorithm: { name: 'dvp', eta: 10, dvp: { alpha: 0.5 } }, graph: { nodes: 4 },
                 data: { source: 'twonorm', rows: 400 }, iterations: 5, seed: 2 };
  const strip = (rows) => rows.map((row) => row.split(',').filter((_, k) => k !== 1).join(','));
  const p1 = runSpec(module, spec), p2 = runSpec(module, spec);
  assert.equal(p1.error, undefined, p1.error);
  assert.equal(p1.summary.noise_mode, 'private');
  assert.equal(p1.summary.noise, 'private: noise keys from the operating system, not stored');
  assert.notDeepEqual(strip(p1.csv), strip(p2.csv), 'two private runs released the same values');
  const s1 = runSpec(module, { ...spec, noise_seed: 3 }), s2 = runSpec(module, { ...spec, noise_seed: 3 });
  assert.equal(s1.summary.noise_mode, 'simulation');
  assert.equal(s1.summary.noise, 'simulation: noise reproducible from the seed');
  assert.deepEqual(strip(s1.csv), strip(s2.csv), 'simulation runs differ');
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

// --- The threaded build (build-wasm-mt: pthreads + oneTBB) ------------------------------------

// The TBB engine on 2 threads: rounds reach the callback in order, from the calling thread.
test('threads_run', () => {
  assert.ok(module.threaded(), 'DPADMM_WASM_MODULE must be the threaded build');
  const r = runSpec(module, { engine: 'tbb', threads: 2, iterations: 40 });
  assert.equal(r.error, undefined, r.error);
  assert.equal(r.summary.outcome, 'completed');
  assert.equal(r.info.engine, 'tbb');
  assert.equal(r.info.threads, 2);
  assert.deepEqual(r.rounds.map((m) => m.round), [...Array(41).keys()]);
  assert.ok(r.rounds.at(-1).test_error < 0.05);
});

test('threads_stop', () => {
  // The callback's false stops the run. The TBB engine has rounds in flight (nodes run ahead
  // of the slowest one by up to the graph's diameter): those finish and are reported too, as in
  // the native engine, so the run ends a few rounds later than on the serial engine.
  const r = runSpec(module, { engine: 'tbb', threads: 2, iterations: 50 }, (m) => m.round < 5);
  assert.equal(r.error, undefined, r.error);
  assert.equal(r.summary.outcome, 'cancelled');
  assert.ok(r.summary.rounds >= 5 && r.summary.rounds < 50, `stopped at ${r.summary.rounds}`);
  assert.deepEqual(r.rounds.map((m) => m.round), [...Array(r.summary.rounds + 1).keys()]);
  // The module stays usable: another run on threads right after.
  assert.equal(runSpec(module, { engine: 'tbb', threads: 2, iterations: 3 }).summary.outcome,
               'completed');
});

// Bad input in the threaded build: the messages name the field or the file's line, as in the
// single-threaded build (typed C++ catches work with -pthread: unwind_wasm_threads.cpp).
test('threads_bad_input', () => {
  let r = runSpec(module, '{"graph": {"nodes": -3}}');
  assert.match(r.error, /graph\.nodes/);
  r = runSpec(module, '{"graph": ');
  assert.match(r.error, /JSON syntax error/);
  r = runSpec(module, { engine: 'tbb', threads: -1 });
  assert.match(r.error, /threads/);
  assert.equal(module.putFile('bad.libsvm', '+1 1:0.5 2:1\n-1 1:0.25 2:x\n+1 2:3\n'), '');
  r = runSpec(module, { engine: 'tbb', threads: 2, data: { source: 'libsvm', train_path: 'bad.libsvm' } });
  assert.match(r.error, /^bad\.libsvm:2: /, r.error);
  assert.equal(runSpec(module, { engine: 'tbb', threads: 2, iterations: 2 }).summary.outcome, 'completed');
});

// The TBB engine at 2 threads in wasm gives the native serial engine's bits: every column of
// the trace but wall time, and the summary's values, for the same specs as above.
test('threads_same_bits_as_native', () => {
  const work = process.env.DPADMM_TEST_WORKDIR ?? '.';
  for (const [name, spec] of Object.entries(NATIVE_SPECS)) {
    const { native, wasm } = nativeAndWasm(`${name}-mt`, spec, { engine: 'tbb', threads: 2 });
    const seconds = native[0].split(',').indexOf('seconds');
    for (let k = 0; k < native.length; ++k) {
      assert.equal(withoutSeconds(wasm[k], seconds), withoutSeconds(native[k], seconds), `${name}: trace line ${k + 1}`);
    }
  }
});

// --- The vertical family (ADMM sharing, 001) through the same Session -------------------------

// A schema-2 spec of the vertical family: `params` of algorithm.<name>, `top` the other fields.
const sharing = (params = {}, top = {}, name = 'sharing') =>
  ({ algorithm: { name, [name]: params }, ...top });

// The library's default sharing run (generated sparse data, 2,000 rows x 200 features, 2
// parties, 20 iterations of non-private ADMM sharing): it ends near the centralized model.
test('sharing_default_run', () => {
  const defaults = JSON.parse(module.defaultSpecJson('sharing'));
  assert.equal(defaults.engine, 'serial');
  assert.equal(defaults.schema, 2);
  assert.equal(defaults.algorithm.name, 'sharing');
  assert.equal(defaults.data.source, 'sparse');
  assert.deepEqual(module.csvHeader('sharing').split(',').slice(0, 6),
                   ['round', 'seconds', 'train_loss', 'objective', 'test_error', 'test_loss']);
  const r = runSharingSpec(module, sharing());
  assert.equal(r.error, undefined, r.error);
  assert.equal(r.family, 'sharing');
  assert.equal(r.csvHeader, module.csvHeader('sharing'));
  assert.equal(r.summary.outcome, 'completed');
  assert.equal(r.summary.rounds, 20);
  assert.deepEqual(r.epochs.map((m) => m.round), [...Array(21).keys()]);
  assert.equal(r.csv.length, 21);
  assert.equal(r.csv[0].split(',').length, module.csvHeader('sharing').split(',').length);
  const last = r.epochs.at(-1);
  const central = r.info.central_baseline;
  assert.ok(last.test_error < 0.2, `test error ${last.test_error}`);
  assert.ok(last.test_error <= central.test_error + 0.02, `test error ${last.test_error} vs centralized ${central.test_error}`);
  assert.ok(last.objective < r.epochs[0].objective);
  assert.ok(last.test_loss < r.epochs[0].test_loss);
  assert.equal(last.epsilon_total, 0, 'no privacy spent without dp');
  assert.equal(last.consensus_gap, undefined, 'no consensus columns in a sharing run');
  // Star: coordinator 0 and the two parties, 100 features each.
  assert.equal(r.graph.family, 'sharing');
  assert.equal(r.graph.nodes, 3);
  assert.deepEqual(r.graph.edges, [[0, 1], [0, 2]]);
  assert.deepEqual(r.graph.party_features, [100, 100]);
  assert.equal(r.info.train_rows + r.info.test_rows, 2000);
  // A DP run spends privacy every iteration (Corollary 1's total grows) and says so.
  const dp = runSharingSpec(module, sharing({ dp: true, epsilon: 0.5, parties: 3 }, { iterations: 5 }));
  assert.equal(dp.error, undefined, dp.error);
  assert.equal(dp.info.party_features.length, 3);
  assert.ok(dp.epochs[1].epsilon_iteration > 0);
  assert.ok(dp.epochs[5].epsilon_total > dp.epochs[1].epsilon_total);
  // The SGD baseline, and the callback's false stops a run after that epoch.
  const sgd = runSharingSpec(module, sharing({}, { iterations: 10 }, 'sgd'), (m) => m.round < 3);
  assert.equal(sgd.error, undefined, sgd.error);
  assert.equal(sgd.summary.outcome, 'cancelled');
  assert.equal(sgd.summary.rounds, 3);
  assert.equal(sgd.epochs.length, 4);
});

test('sharing_bad_spec', () => {
  let r = runSharingSpec(module, sharing({ rho: 0 }));
  assert.match(r.error, /algorithm\.sharing\.rho must be > 0/);
  r = runSharingSpec(module, sharing({ partys: 3 }));
  assert.match(r.error, /unknown field 'algorithm\.sharing\.partys'/);
  r = runSharingSpec(module, sharing({ parties: 2, party_features: [150, 20] }));
  assert.match(r.error, /party_features/);
  r = runSharingSpec(module, sharing({}, { iterations: 'many' }));
  assert.match(r.error, /iterations must be/);
  r = runSharingSpec(module, '{"algorithm": {"name": "newton"}}');
  assert.match(r.error, /algorithm\.name must be one of/);
  r = runSharingSpec(module, sharing({}, { engine: 'tbb' }));
  assert.match(r.error, /not available in this build/);
  r = runSharingSpec(module, sharing({}, { data: { source: 'libsvm', train_path: 'nothere.libsvm' } }));
  assert.match(r.error, /nothere\.libsvm: cannot open file/);
  r = runSharingSpec(module, '[1');
  assert.match(r.error, /JSON syntax error/);
  // The schema-1 shape of the sharing spec is refused naming what replaced the field.
  r = runSharingSpec(module, '{"parties": 3, "epochs": 2}');
  assert.match(r.error, /schema-1 field; schema 2 replaced it by/);
  r = runSharingSpec(module, sharing({}, { iterations: 2, compute_optimum: false }));
  assert.equal(r.summary.outcome, 'completed', 'the module is still usable');
});

// Seeded sharing runs give the same trace as `dpadmm run --config spec.json --trace x.csv` in
// every column but wall time: ADMM sharing, its DP version (the default Gaussian mechanism at a
// total epsilon, and 001's eq. (16) variant at an explicit noise level), uneven party blocks,
// dense data, and the SGD baseline.
const SHARING_NATIVE_SPECS = {
  sharing_admm: sharing({ parties: 3 }, { iterations: 15, seed: 7 }),
  sharing_dp: sharing({ dp: true, total_epsilon: 2, delta: 1e-4, parties: 2 },
                      { iterations: 12, seed: 5, noise_seed: 5 }),
  sharing_dp_sigma: sharing({ dp: true, mechanism: 'paper16', noise_sigma: 0.05, b1: 1, parties: 4,
                              party_features: [80, 60, 40, 20] },
                            { iterations: 10, seed: 13, noise_seed: 13 }),
  sharing_twonorm: sharing({ parties: 3, rho: 1e-3 },
                           { data: { source: 'twonorm', rows: 1500, dims: 20 }, iterations: 10, seed: 2 }),
  sharing_sgd: sharing({ learning_rate: 0.5, batch_size: 32 }, { iterations: 8, seed: 3 }, 'sgd'),
};

test('sharing_same_bits_as_native', () => {
  const cli = process.env.DPADMM_NATIVE_CLI;
  assert.ok(cli, 'DPADMM_NATIVE_CLI must name the native dpadmm command');
  const work = process.env.DPADMM_TEST_WORKDIR ?? '.';
  mkdirSync(work, { recursive: true });
  for (const [name, spec] of Object.entries(SHARING_NATIVE_SPECS)) {
    const specPath = path.join(work, `${name}.json`);
    const tracePath = path.join(work, `${name}-native.csv`);
    // The native side gets the effective spec the wasm session used (engine serial; tbb gives
    // the same bits).
    const r = runSharingSpec(module, spec);
    assert.equal(r.error, undefined, r.error);
    writeFileSync(specPath, r.specJson);
    execFileSync(cli, ['run', '--config', specPath, '--quiet', '--trace', tracePath,
                       '--summary', path.join(work, `${name}-native.json`)]);
    // The CLI's first line says the noise mode (a '# ' comment); the rows follow.
  const native = readFileSync(tracePath, 'utf8').trim().split('\n').filter((l) => !l.startsWith('#'));
    const wasm = [module.csvHeader('sharing'), ...r.csv];
    writeFileSync(path.join(work, `${name}-wasm.csv`), wasm.join('\n') + '\n');
    assert.equal(wasm.length, native.length, `${name}: row count`);
    assert.equal(wasm.length, spec.iterations + 2, `${name}: header, round 0 and every round`);
    const seconds = native[0].split(',').indexOf('seconds');
    for (let k = 0; k < native.length; ++k) {
      assert.equal(withoutSeconds(wasm[k], seconds), withoutSeconds(native[k], seconds), `${name}: trace line ${k + 1}`);
    }
  }
});

test('sharing_upload_csv', () => {
  // An uploaded CSV (4 columns, label = sign(a + b - c + d)) split 3 / 1 between two parties:
  // party 1 alone cannot learn the label, the parties together can.
  const lines = ['a,b,c,d,label'];
  for (let k = 0; k < 300; ++k) {
    const x = [Math.sin(k * 1.3), Math.cos(k * 0.7), Math.sin(k * 0.37 + 1), Math.cos(k * 2.1)];
    lines.push(`${x.join(',')},${x[0] + x[1] - x[2] + x[3] >= 0 ? 1 : 0}`);
  }
  assert.equal(module.putFile('cols.csv', lines.join('\n') + '\n'), '');
  const r = runSharingSpec(module, sharing({ parties: 2, party_features: [3, 1], rho: 3e-3 }, {
    data: { source: 'csv', train_path: 'cols.csv', has_header: true }, iterations: 30,
  }));
  assert.equal(r.error, undefined, r.error);
  assert.equal(r.info.features, 4);
  assert.deepEqual(r.graph.party_features, [3, 1]);
  assert.ok(r.info.local_baseline.test_error > 0.1, `party 1 alone: ${r.info.local_baseline.test_error}`);
  assert.ok(r.epochs.at(-1).test_error < 0.05, `test error ${r.epochs.at(-1).test_error}`);
  assert.equal(module.putFile('bad.csv', 'a,b,label\n1,2,1\n3,x,0\n'), '');
  const bad = runSharingSpec(module, sharing({}, { data: { source: 'csv', train_path: 'bad.csv', has_header: true } }));
  assert.match(bad.error, /^bad\.csv:3: /, bad.error);
});

// --- The privacy-utility sweep (dpadmm/tools/sweep.h) --------------------------------------------

// A tiny sweep: 4 nodes, 400 twonorm rows, 15 rounds, two algorithms at two epsilons, 2 seeds.
const TINY_SWEEP = {
  base: { data: { source: 'twonorm', rows: 400 }, graph: { nodes: 4 }, iterations: 15, seed: 3 },
  algorithms: ['dvp', 'pvp'], epsilons: [1, 10], seeds: 2,
};

const runSweep = (config, onProgress = () => true) =>
  JSON.parse(module.runSweep(typeof config === 'string' ? config : JSON.stringify(config),
                             onProgress));

test('sweep_run', () => {
  const seen = [];
  const r = runSweep(TINY_SWEEP, (done, total, what) => { seen.push([done, total, what]); return true; });
  assert.equal(r.error, undefined, r.error);
  assert.equal(r.cancelled, false);
  assert.equal(r.seeds, 2);
  assert.match(r.noise, /^simulation: noise seeded per repetition/);
  // (2 algorithms x 2 epsilons + the non-private reference) x 2 seeds.
  assert.deepEqual(seen.map(([d, t]) => [d, t]), [...Array(10).keys()].map((k) => [k + 1, 10]));
  assert.match(seen[0][2], /^admm \(non-private\) seed 1$/);
  assert.deepEqual(r.cells.map((c) => [c.algorithm, c.epsilon]),
                   [['dvp', 1], ['dvp', 10], ['pvp', 1], ['pvp', 10]]);
  for (const c of r.cells) {
    assert.equal(c.accuracy.values.length, 2);
    assert.ok(c.accuracy.low <= c.accuracy.mean && c.accuracy.mean <= c.accuracy.high);
    for (const e of c.achieved_epsilon) assert.ok(e <= c.epsilon * (1 + 1e-9), `${e} > ${c.epsilon}`);
  }
  assert.ok(r.admm.mean > 0.9 && r.centralized.mean > 0.9, JSON.stringify(r.admm));
  assert.ok(r.majority.mean > 0.3 && r.majority.mean < 0.7);
  assert.match(r.csv.split('\n')[1], /^algorithm,epsilon,delta,seeds,accuracy_mean/);
  // A single seed has no band: null in JSON (NaN in C++).
  const one = runSweep({ ...TINY_SWEEP, algorithms: ['dvp'], epsilons: [1], seeds: 1 });
  assert.equal(one.cells[0].accuracy.low, null);
});

test('sweep_cancel_and_bad_config', () => {
  // The callback's false stops the sweep after that run; what finished is kept.
  let calls = 0;
  const r = runSweep(TINY_SWEEP, () => ++calls < 3);
  assert.equal(r.error, undefined, r.error);
  assert.equal(r.cancelled, true);
  assert.equal(calls, 3);
  assert.deepEqual(r.cells.map((c) => c.accuracy.values.length), [1, 1, 0, 0]);
  assert.match(runSweep({ ...TINY_SWEEP, algorithms: ['admm'] }).error, /admm/);
  assert.match(runSweep({ ...TINY_SWEEP, epsilons: [0] }).error, /epsilon/);
  assert.match(runSweep({ ...TINY_SWEEP, seeds: 0 }).error, /seeds/);
  assert.match(runSweep({ ...TINY_SWEEP, colour: 1 }).error, /unknown field 'colour'/);
  assert.match(runSweep({ ...TINY_SWEEP, base: { graph: { nodes: -1 } } }).error, /graph\.nodes/);
  assert.match(runSweep('{"seeds": ').error, /JSON syntax error/);
});

// The same sweep in wasm and through `dpadmm sweep`: the same CSV, character for character.
test('sweep_same_as_native', () => {
  const cli = process.env.DPADMM_NATIVE_CLI;
  assert.ok(cli, 'DPADMM_NATIVE_CLI must name the native dpadmm command');
  const work = path.join(process.env.DPADMM_TEST_WORKDIR ?? '.', 'sweep');
  mkdirSync(work, { recursive: true });
  const basePath = path.join(work, 'base.json');
  writeFileSync(basePath, JSON.stringify({ ...TINY_SWEEP.base, engine: 'serial' }));
  execFileSync(cli, ['sweep', '--config', basePath, '--algorithms', TINY_SWEEP.algorithms.join(','),
                     '--epsilons', TINY_SWEEP.epsilons.join(','), '--seeds', `${TINY_SWEEP.seeds}`,
                     '--out', work, '--quiet']);
  const native = readFileSync(path.join(work, 'sweep.csv'), 'utf8');
  const r = runSweep(TINY_SWEEP);
  assert.equal(r.error, undefined, r.error);
  writeFileSync(path.join(work, 'sweep-wasm.csv'), r.csv);
  assert.equal(r.csv, native);
});
