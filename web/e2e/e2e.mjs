// SPDX-License-Identifier: Apache-2.0
// End-to-end test of the browser demo in real headless Chromium (Debian's /usr/bin/chromium,
// driven by playwright-core). Serves web/dist with `vite preview` (COOP/COEP headers), then:
//   1. a default run: charts update while it runs, it finishes with the expected accuracy;
//   2. a second run, paused, stepped one round, resumed; both runs overlaid in the charts;
//   3. the trace downloads as CSV and equals the native CLI's trace of the same spec
//      (DPADMM_NATIVE_CLI) in every column but wall time;
//   4. a shared URL reproduces a private (DVP) run in simulation mode (noise seed) bit for bit;
//      the baselines local, average and central (mechanism, ε, δ; no consensus gap for local)
//      and a target-ε run (the epsilon policy) give `dpadmm run`'s traces;
//   5. a malformed LIBSVM file shows the C++ loader's message naming the line;
//   6. the vertical setting (ADMM sharing): a default run finishes near the centralized model; a
//      DP run on an uneven 3-party split gives the native `dpadmm run` trace bit for bit; its
//      shared URL reproduces it; the SGD baseline overlays the earlier runs; a CSV file from
//      disk is split between two parties; pause, step and stop work in this setting too.
//   7. the privacy-utility view: a tiny sweep with the baselines gives `dpadmm sweep`'s CSV, its share link
//      reproduces it, Cancel keeps the runs so far, axe, desktop and phone screenshots.
//   8. threads: the cross-origin-isolated page loads the threaded build (pthreads + oneTBB); a
//      seeded private run on 2 threads (TBB engine) gives the native serial engine's trace bit
//      for bit; served without COOP/COEP the page falls back to the single-threaded build and
//      says so. E2E_SPEEDUP=1 also measures 1 vs 2 threads on 1000 nodes x 100 rounds.
// Screenshots go to E2E_ARTIFACTS (default ../build-wasm/e2e-artifacts).
//   node e2e/e2e.mjs            (after `npm run build`; exit code 0 = all passed)
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { preview } from 'vite';

const here = path.dirname(fileURLToPath(import.meta.url));
const webDir = path.resolve(here, '..');
const artifacts = path.resolve(process.env.E2E_ARTIFACTS ?? path.join(webDir, '..', 'build-wasm', 'e2e-artifacts'));
mkdirSync(artifacts, { recursive: true });
// A failed launch leaves profile folders in the temp dir: keep them inside the artifacts.
const tmp = mkdtempSync(path.join(artifacts, 'tmp-'));
process.env.TMPDIR = tmp;

const failures = [];
// E2E_ONLY=regex runs the matching steps only (for the self-contained ones: states, charts, forms,
// accessibility, phone, scale, precompressed).
const only = process.env.E2E_ONLY ? new RegExp(process.env.E2E_ONLY) : null;
async function step(name, fn) {
  if (only && !only.test(name)) return;
  const started = Date.now();
  try {
    await fn();
    console.log(`ok   ${name} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
  } catch (err) {
    failures.push(name);
    console.log(`FAIL ${name}\n${err?.stack ?? err}`);
  }
}

const dropSeconds = (csv) => {
  // The CLI's trace starts with a '# ' line naming the noise mode; the page's does not.
  const lines = csv.trim().split('\n').filter((l) => !l.startsWith('#'));
  const k = lines[0].split(',').indexOf('seconds');
  assert.ok(k >= 0, 'trace has a seconds column');
  return lines.map((l) => l.split(',').filter((_, i) => i !== k).join(','));
};

const server = await preview({
  root: webDir, configFile: path.join(webDir, 'vite.config.ts'), logLevel: 'warn',
  preview: { host: '127.0.0.1', port: 4317, strictPort: false, open: false },
});
const base = server.resolvedUrls.local[0];
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  headless: true,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
         '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
const context = await browser.newContext({ viewport: { width: 1440, height: 1000 }, acceptDownloads: true });
const consoleErrors = [];

async function openPage(url) {
  const page = await context.newPage();
  page.on('pageerror', (e) => consoleErrors.push(`${url}: ${e.message}`));
  page.on('console', (m) => { if (m.type() === 'error') consoleErrors.push(`${url}: ${m.text()}`); });
  await page.goto(url);
  return page;
}
const state = (page) => page.locator('#state').getAttribute('data-state');
const roundOf = async (page) => Number(await page.locator('#round').getAttribute('data-value'));
async function waitFinished(page, timeout = 120_000) {
  await page.waitForSelector('#state[data-state=finished]', { timeout });
  // The charts are rebuilt one per task after a run: wait until they are all there.
  await page.waitForTimeout(50);
  await page.waitForFunction(() => !document.querySelector('#charts')?.dataset.building);
}
async function download(page) {
  const [dl] = await Promise.all([page.waitForEvent('download'), page.click('#download')]);
  return readFileSync(await dl.path(), 'utf8');
}

let page;
let defaultTrace = '';
let defaultSpec = '';

await step('loads, cross-origin isolated, engine ready', async () => {
  page = await openPage(base);
  await page.waitForSelector('#state[data-state=idle]', { timeout: 60_000 });
  assert.equal(await page.evaluate(() => globalThis.crossOriginIsolated), true);
  assert.equal(await page.locator('#pause').isDisabled(), true);
  // src/algorithms.ts: 8 consensus algorithms (PDML included) and the 3 baselines
  assert.equal(await page.locator('#algorithm option').count(), 11);
});

await step('default run: charts update live, finishes with the expected accuracy', async () => {
  await page.click('#run');
  await page.waitForFunction(() => Number(document.querySelector('#round')?.getAttribute('data-value')) >= 15);
  assert.equal(await state(page), 'running');
  const early = Number(await page.locator('#charts').getAttribute('data-points'));
  assert.ok(early > 0, 'the charts have points while the run is going');
  await page.screenshot({ path: path.join(artifacts, '1-running.png') });
  await page.waitForFunction(
    (n) => Number(document.querySelector('#charts')?.getAttribute('data-points')) > n, early);
  await waitFinished(page);
  assert.equal(await page.locator('#state').getAttribute('data-outcome'), 'round-limit');
  assert.equal(await page.locator('#state').textContent(), 'round limit reached');
  assert.equal(await roundOf(page), 100);
  // twonorm (Bayes error about 2.3 %): the averaged model's test accuracy is above 96.5 %.
  const accuracy = Number(await page.locator('#accuracy').getAttribute('data-value'));
  assert.ok(accuracy > 0.965 && accuracy < 0.99, `accuracy ${accuracy}`);
  assert.equal(await page.locator('#graph').getAttribute('data-nodes'), '10');
  assert.equal(await page.locator('#graph').getAttribute('data-edges'), '13');
  assert.equal(await page.locator('.uplot').count(), 4);
  defaultSpec = await page.locator('#info').getAttribute('data-spec');
  await page.screenshot({ path: path.join(artifacts, '2-finished.png') });
});

await step('download trace (CSV, 101 rounds)', async () => {
  defaultTrace = await download(page);
  const lines = defaultTrace.trim().split('\n');
  assert.equal(lines.length, 102);
  assert.match(lines[0], /^round,seconds,train_loss,/);
});

await step('browser trace equals the native CLI trace of the same spec, bit for bit', async () => {
  const cli = process.env.DPADMM_NATIVE_CLI;
  assert.ok(cli, 'DPADMM_NATIVE_CLI must name the native dpadmm command');
  const spec = path.join(tmp, 'spec.json');
  const trace = path.join(tmp, 'native.csv');
  writeFileSync(spec, defaultSpec);
  execFileSync(cli, ['run', '--config', spec, '--quiet', '--trace', trace, '--summary', path.join(tmp, 's.json')]);
  assert.deepEqual(dropSeconds(defaultTrace), dropSeconds(readFileSync(trace, 'utf8')));
});

// The native serial trace of a spec the page ran (its #info data-spec), every column but wall time.
function nativeSerialTrace(specJson, name) {
  const cli = process.env.DPADMM_NATIVE_CLI;
  assert.ok(cli, 'DPADMM_NATIVE_CLI must name the native dpadmm command');
  const spec = path.join(tmp, `${name}.json`);
  const trace = path.join(tmp, `${name}.csv`);
  writeFileSync(spec, JSON.stringify({ ...JSON.parse(specJson), engine: 'serial', threads: 1 }));
  execFileSync(cli, ['run', '--config', spec, '--quiet', '--trace', trace, '--summary', path.join(tmp, `${name}-s.json`)]);
  return dropSeconds(readFileSync(trace, 'utf8'));
}

await step('threads: 2 threads (TBB engine, threaded build) give the native serial trace bit for bit', async () => {
  const p = await openPage(`${base}?algorithm=dvp&nodes=12&edges=20&iterations=40&seed=5&noise_seed=7`);
  await waitFinished(p); // a shared link runs once the engine is ready
  assert.match(await p.locator('#threads-note').textContent(), /^threads: 1 to \d+/);
  assert.ok(Number(await p.locator('#threads').getAttribute('max')) >= 2, 'threads field allows 2');
  await p.fill('#threads', '2');
  await p.locator('#threads').dispatchEvent('input');
  await p.click('#run');
  await waitFinished(p);
  const spec = await p.locator('#info').getAttribute('data-spec');
  assert.equal(JSON.parse(spec).engine, 'tbb');
  assert.equal(JSON.parse(spec).threads, 2);
  const trace = await download(p);
  assert.equal(trace.trim().split('\n').length, 42);
  assert.deepEqual(dropSeconds(trace), nativeSerialTrace(spec, 'threads'));
  // The limit: more threads than cores is an inline message, and Run is blocked.
  const cores = Number(await p.locator('#threads').getAttribute('max'));
  await p.fill('#threads', String(cores + 1));
  await p.locator('#threads').dispatchEvent('input');
  assert.equal(await p.locator('#threads-error').textContent(), `At most ${cores}.`);
  await p.fill('#threads', '1');
  await p.locator('#threads').dispatchEvent('input');
  await p.close();
});

await step('baselines in the run view: local (Gaussian, from a link), average, central; traces equal `dpadmm run`', async () => {
  const p = await openPage(`${base}?algorithm=local&mechanism=gaussian&delta=1e-6&nodes=6&edges=8&rows=1200&iterations=10&seed=3&noise_seed=3`);
  await waitFinished(p);
  // The picker: the baselines in a group of their own; central says it needs a trusted curator.
  assert.deepEqual(await p.locator('#algorithm optgroup option').evaluateAll((os) => os.map((o) => o.value)),
                   ['local', 'average', 'central']);
  assert.match(await p.locator('#algorithm option[value=central]').textContent(), /trusted curator/);
  // The link's mechanism and δ are restored and sent.
  assert.equal(await p.locator('#algorithm').inputValue(), 'local');
  assert.equal(await p.locator('#param-mechanism').inputValue(), 'gaussian');
  assert.equal(await p.inputValue('#param-delta'), '0.000001');
  const localSpec = await p.locator('#info').getAttribute('data-spec');
  assert.deepEqual(JSON.parse(localSpec).algorithm.local, { mechanism: 'gaussian', epsilon: 1, delta: 1e-6 });
  // local learns no consensus model: its accuracy is the mean over the nodes' own models, and
  // the spread of those models is not shown as a consensus gap (figure or chart).
  assert.equal(await p.locator('#gap').textContent(), 'none (no consensus model)');
  assert.match(await p.locator('#info').textContent(), /^Baseline local: .*no consensus model/);
  assert.equal(await p.locator('#privacy').textContent(), '1');
  const drawn = (q, title) => q.locator('#charts figure.chart', { hasText: title }).getAttribute('data-values');
  assert.equal(await drawn(p, 'Consensus gap'), '0', 'no consensus gap drawn for local');
  assert.equal(await drawn(p, 'Test error'), '11', 'rounds 0-10 of the test error');
  assert.deepEqual(dropSeconds(await download(p)), nativeSerialTrace(localSpec, 'local'));
  // average: a new algorithm starts from its defaults (objective perturbation: no δ shown); a
  // real gap, which the chart draws.
  await p.selectOption('#algorithm', 'average');
  assert.equal(await p.locator('#param-mechanism').inputValue(), 'objective');
  assert.equal(await p.locator('#param-delta').isVisible(), false, 'objective perturbation has no δ');
  await p.fill('#param-epsilon', '2');
  await p.locator('#param-epsilon').dispatchEvent('input');
  await p.click('#run');
  await waitFinished(p);
  const averageSpec = await p.locator('#info').getAttribute('data-spec');
  assert.deepEqual(JSON.parse(averageSpec).algorithm.average, { mechanism: 'objective', epsilon: 2, delta: 1e-5 });
  assert.match(await p.locator('#gap').textContent(), /^[0-9.e+−-]+$/);
  assert.equal(await drawn(p, 'Consensus gap'), '10', 'average: its gap in rounds 1-10 (log axis: round 0\'s 0 is left out)');
  assert.deepEqual(dropSeconds(await download(p)), nativeSerialTrace(averageSpec, 'average'));
  await p.click('#share');
  assert.match(await p.locator('#share').getAttribute('data-url'), /algorithm=average&.*epsilon=2&.*mechanism=objective/);
  // central: one node holding every row; the info names the curator every party must trust.
  // Choosing the Gaussian mechanism shows δ.
  await p.selectOption('#algorithm', 'central');
  await p.selectOption('#param-mechanism', 'gaussian');
  assert.equal(await p.locator('#param-delta').isVisible(), true, 'the Gaussian mechanism shows δ');
  await p.click('#run');
  await waitFinished(p);
  assert.match(await p.locator('#info').textContent(), /^Baseline central: .*curator every party trusts/);
  assert.equal(await p.locator('#graph').getAttribute('data-nodes'), '1');
  assert.equal(await p.locator('#gap').textContent(), 'none (one node)');
  const centralSpec = await p.locator('#info').getAttribute('data-spec');
  assert.equal(JSON.parse(centralSpec).algorithm.central.mechanism, 'gaussian');
  assert.deepEqual(dropSeconds(await download(p)), nativeSerialTrace(centralSpec, 'central'));
  await p.screenshot({ path: path.join(artifacts, 'baselines-run.png') });
  await p.close();
});

await step('target ε: the epsilon policy and the calibration set the run, as `dpadmm run --target-epsilon`', async () => {
  const p = await openPage(`${base}?algorithm=dvp&nodes=6&edges=8&rows=1200&seed=3&noise_seed=3&target_epsilon=1`);
  await waitFinished(p);
  assert.equal(await p.inputValue('#target-epsilon'), '1');
  for (const id of ['iterations', 'param-C', 'param-rho', 'param-eta', 'param-alpha']) {
    assert.equal(await p.locator(`#${id}`).isDisabled(), true, `${id} is set by the target`);
  }
  const spec = JSON.parse(await p.locator('#info').getAttribute('data-spec'));
  assert.equal(spec.target_epsilon, 1);
  assert.notEqual(spec.iterations, 100, 'the policy chose the rounds');
  assert.equal(await p.locator('#round').textContent(), `${spec.iterations} / ${spec.iterations}`);
  assert.match(await p.locator('#info').textContent(),
               /Target ε 1: the epsilon policy chose rounds 50 \(49 of them gossip\), C 1, .* the calibration set algorithm\.dvp\.alpha = /);
  // The native command with the same flags (no --iterations: the CLI refuses it beside a target).
  const trace = path.join(tmp, 'target.csv');
  execFileSync(process.env.DPADMM_NATIVE_CLI, ['run', '--data', 'twonorm', '--rows', '1200', '--nodes', '6', '--edges', '8',
    '--algorithm', 'dvp', '--seed', '3', '--noise-seed', '3', '--target-epsilon', '1', '--engine', 'serial',
    '--quiet', '--trace', trace, '--summary', path.join(tmp, 'target-s.json')], { stdio: ['ignore', 'ignore', 'ignore'] });
  assert.deepEqual(dropSeconds(await download(p)), dropSeconds(readFileSync(trace, 'utf8')));
  // The link carries the target; 0 turns it off and gives the fields back; non-private ADMM
  // takes none.
  await p.click('#share');
  assert.match(await p.locator('#share').getAttribute('data-url'), /target_epsilon=1/);
  await p.fill('#target-epsilon', '0');
  await p.locator('#target-epsilon').dispatchEvent('input');
  assert.equal(await p.locator('#iterations').isDisabled(), false);
  await p.selectOption('#algorithm', 'admm');
  assert.equal(await p.locator('#target-epsilon').isVisible(), false, 'non-private ADMM takes no target');
  await p.close();
});

if (process.env.E2E_SPEEDUP === '1') {
  await step('threads: speed-up of 2 threads over 1 (1000 nodes x 100 rounds, medians of 5)', async () => {
    const p = await openPage(`${base}?algorithm=dvp&nodes=1000&edges=3000&iterations=100&seed=2&noise_seed=2`);
    await waitFinished(p, 300_000);
    await p.fill('#delay', '0');
    await p.locator('#delay').dispatchEvent('input');
    const seconds = { 1: [], 2: [] };
    for (let rep = 0; rep < 5; ++rep) {
      for (const threads of [1, 2]) {
        await p.fill('#threads', String(threads));
        await p.locator('#threads').dispatchEvent('input');
        await p.click('#run');
        await waitFinished(p, 300_000);
        const rows = (await download(p)).trim().split('\n');
        const k = rows[0].split(',').indexOf('seconds');
        seconds[threads].push(Number(rows.at(-1).split(',')[k]));
      }
    }
    const median = (v) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)];
    console.log(`     1 thread: ${seconds[1].map((v) => v.toFixed(2)).join(' ')} s; ` +
                `2 threads: ${seconds[2].map((v) => v.toFixed(2)).join(' ')} s; ` +
                `median ratio ${(median(seconds[1]) / median(seconds[2])).toFixed(2)}x ` +
                `(load ${(os.loadavg()[0] / os.cpus().length).toFixed(1)} per core)`);
    await p.close();
  });
}

await step('pause, step, resume; runs overlaid', async () => {
  await page.fill('#delay', '50');
  await page.locator('#delay').dispatchEvent('input');
  await page.click('#run');
  await page.waitForFunction(() => Number(document.querySelector('#round')?.getAttribute('data-value')) >= 5
    && document.querySelector('#state')?.getAttribute('data-state') === 'running');
  await page.click('#pause');
  await page.waitForTimeout(400);
  const paused = await roundOf(page);
  await page.waitForTimeout(600);
  assert.equal(await roundOf(page), paused, 'no round while paused');
  assert.equal(await state(page), 'paused');
  await page.click('#step');
  await page.waitForFunction((r) => Number(document.querySelector('#round')?.getAttribute('data-value')) === r + 1, paused);
  await page.waitForTimeout(500);
  assert.equal(await roundOf(page), paused + 1, 'a step runs exactly one round');
  await page.screenshot({ path: path.join(artifacts, '3-paused-overlay.png') });
  await page.fill('#delay', '0');
  await page.locator('#delay').dispatchEvent('input');
  await page.click('#run'); // resume
  await waitFinished(page);
  assert.equal(await roundOf(page), 100);
  assert.equal(await page.locator('#runs li').count(), 2);
  const second = await download(page);
  assert.deepEqual(dropSeconds(second), dropSeconds(defaultTrace), 'pausing does not change the run');
});

await step('stop ends a run as cancelled', async () => {
  await page.fill('#delay', '30');
  await page.locator('#delay').dispatchEvent('input');
  await page.click('#run');
  await page.waitForFunction(() => Number(document.querySelector('#round')?.getAttribute('data-value')) >= 3);
  await page.click('#stop');
  await waitFinished(page);
  assert.equal(await page.locator('#state').getAttribute('data-outcome'), 'cancelled');
  assert.ok((await roundOf(page)) < 100);
});

await step('shared URL reproduces a simulation-mode DVP run bit for bit (private mode: no noise seed in it)', async () => {
  await page.click('#reset');
  await page.selectOption('#algorithm', 'dvp');
  await page.fill('#nodes', '8');
  await page.locator('#nodes').dispatchEvent('input');
  await page.selectOption('#topology', 'ring');
  await page.fill('#seed', '42');
  await page.locator('#seed').dispatchEvent('input');
  assert.equal(await page.locator('#noise-banner').isVisible(), false, 'private mode: no banner');
  await page.fill('#noise-seed', '42');
  await page.locator('#noise-seed').dispatchEvent('input');
  assert.equal(await page.locator('#noise-banner').isVisible(), true, 'simulation banner');
  await page.fill('#iterations', '60');
  await page.locator('#iterations').dispatchEvent('input');
  await page.fill('#delay', '0');
  await page.locator('#delay').dispatchEvent('input');
  await page.click('#run');
  await waitFinished(page);
  const original = await download(page);
  const privacy = await page.locator('#privacy').textContent();
  assert.notEqual(privacy, 'none', 'DVP reports privacy spent');
  await page.click('#share');
  const url = await page.locator('#share').getAttribute('data-url');
  assert.match(url, /algorithm=dvp/);
  assert.match(url, /seed=42/);
  assert.match(url, /noise_seed=42/);
  const other = await openPage(url);
  await waitFinished(other);
  assert.equal(await other.locator('#algorithm').inputValue(), 'dvp');
  assert.equal(await other.locator('#nodes').inputValue(), '8');
  assert.equal(await other.locator('#param-alpha').inputValue(), '0.15'); // DVP's default
  assert.equal(await other.locator('#noise-banner').isVisible(), true, 'shared simulation banner');
  const reproduced = await download(other);
  assert.equal(dropSeconds(reproduced).length, 62);
  assert.deepEqual(dropSeconds(reproduced), dropSeconds(original));
  await other.screenshot({ path: path.join(artifacts, '4-shared-url.png') });
  await other.close();
  // The same run in private mode (noise seed emptied): its link carries no noise seed.
  await page.fill('#noise-seed', '');
  await page.locator('#noise-seed').dispatchEvent('input');
  assert.equal(await page.locator('#noise-banner').isVisible(), false, 'private mode: no banner');
  await page.click('#run');
  await waitFinished(page);
  await page.click('#share');
  const privateUrl = await page.locator('#share').getAttribute('data-url');
  assert.match(privateUrl, /algorithm=dvp/);
  assert.doesNotMatch(privateUrl, /noise_seed/, 'a private run\'s link has no noise seed');
});

await step('malformed LIBSVM file shows the loader\'s error', async () => {
  await page.selectOption('#dataset', 'file');
  await page.setInputFiles('#file', {
    name: 'bad.libsvm', mimeType: 'text/plain',
    buffer: Buffer.from('+1 1:0.5 2:1\n-1 1:0.25 2:oops\n+1 2:3\n'),
  });
  await page.waitForFunction(() => document.querySelector('#file-status')?.textContent?.includes('bad.libsvm'));
  await page.click('#run');
  await page.waitForSelector('#error:not([hidden])');
  const message = await page.locator('#error').textContent();
  assert.match(message, /^bad\.libsvm:2: /, message);
  await page.waitForSelector('#state[data-state=finished]');
  await page.screenshot({ path: path.join(artifacts, '5-malformed-file.png') });
});

await step('a valid CSV file from disk trains', async () => {
  const rows = ['a,b,label'];
  for (let k = 0; k < 300; ++k) {
    const a = Math.sin(k * 1.7), b = Math.cos(k * 0.9);
    rows.push(`${a.toFixed(4)},${b.toFixed(4)},${a - b > 0 ? 1 : -1}`);
  }
  await page.setInputFiles('#file', { name: 'mine.csv', mimeType: 'text/csv', buffer: Buffer.from(rows.join('\n')) });
  await page.waitForFunction(() => document.querySelector('#file-status')?.textContent?.includes('mine.csv'));
  assert.equal(await page.locator('#file-format').inputValue(), 'csv');
  await page.check('#csv-header');
  await page.selectOption('#algorithm', 'admm');
  await page.click('#run');
  await waitFinished(page);
  assert.equal(await page.locator('#error').isHidden(), true);
  const accuracy = Number(await page.locator('#accuracy').getAttribute('data-value'));
  assert.ok(accuracy > 0.9, `accuracy ${accuracy}`);
  await page.screenshot({ path: path.join(artifacts, '6-csv-file.png') });
});

let vpage;
let vertical = { trace: '', spec: '' };

await step('vertical setting: ADMM sharing default run finishes near the centralized model', async () => {
  vpage = await openPage(base);
  await vpage.waitForSelector('#state[data-state=idle]', { timeout: 60_000 });
  await vpage.check('#mode-vertical');
  assert.equal(await vpage.locator('#parties').isVisible(), true);
  assert.equal(await vpage.locator('#topology').isVisible(), false, 'no network in the vertical setting');
  assert.equal(await vpage.locator('#dataset').inputValue(), 'sparse');
  assert.equal(await vpage.locator('#dims').inputValue(), '200');
  assert.equal(await vpage.locator('#sharing-algorithm option').count(), 3);
  assert.equal(await vpage.locator('#sparam-rho').inputValue(), '0.0005');
  await vpage.click('#run');
  await waitFinished(vpage);
  assert.equal(await vpage.locator('#state').getAttribute('data-outcome'), 'round-limit');
  assert.equal(await roundOf(vpage), 20);
  const accuracy = Number(await vpage.locator('#accuracy').getAttribute('data-value'));
  assert.ok(accuracy > 0.8, `accuracy ${accuracy}`);
  assert.equal(await vpage.locator('#privacy').textContent(), 'none');
  assert.equal(await vpage.locator('#graph').getAttribute('data-nodes'), '3', 'coordinator and 2 parties');
  assert.equal(await vpage.locator('#graph').getAttribute('data-edges'), '2');
  assert.equal(await vpage.locator('.uplot').count(), 4);
  assert.match(await vpage.locator('.uplot .u-title').first().textContent(), /Training objective/);
  assert.match(await vpage.locator('#info').textContent(), /200 features split among 2 parties \(100 \/ 100\)/);
  await vpage.screenshot({ path: path.join(artifacts, '7-vertical-admm.png') });
});

await step('vertical setting: DP ADMM sharing, 3 parties, uneven split; trace equals `dpadmm run`', async () => {
  await vpage.selectOption('#sharing-algorithm', 'dp_admm');
  await vpage.fill('#parties', '3');
  await vpage.locator('#parties').dispatchEvent('input');
  await vpage.fill('#party-features', '100,60,40');
  await vpage.locator('#party-features').dispatchEvent('input');
  await vpage.fill('#sparam-total_epsilon', '0.5');
  await vpage.locator('#sparam-total_epsilon').dispatchEvent('input');
  await vpage.fill('#epochs', '15');
  await vpage.locator('#epochs').dispatchEvent('input');
  await vpage.fill('#sharing-seed', '7');
  await vpage.locator('#sharing-seed').dispatchEvent('input');
  await vpage.fill('#sharing-noise-seed', '7');
  await vpage.locator('#sharing-noise-seed').dispatchEvent('input');
  await vpage.click('#run');
  await waitFinished(vpage);
  assert.notEqual(await vpage.locator('#state').getAttribute('data-outcome'), 'failed');
  assert.equal(await roundOf(vpage), 15);
  const eps = Number(await vpage.locator('#privacy').getAttribute('data-value'));
  assert.ok(eps > 0, `total epsilon ${eps}`);
  assert.equal(await vpage.locator('#graph').getAttribute('data-nodes'), '4');
  vertical.trace = await download(vpage);
  const lines = vertical.trace.trim().split('\n');
  assert.equal(lines.length, 17);
  assert.match(lines[0], /^round,seconds,train_loss,objective,test_error,test_loss,/);
  vertical.spec = await vpage.locator('#info').getAttribute('data-spec');
  assert.deepEqual(JSON.parse(vertical.spec).algorithm.sharing.party_features, [100, 60, 40]);
  const cli = process.env.DPADMM_NATIVE_CLI;
  assert.ok(cli, 'DPADMM_NATIVE_CLI must name the native dpadmm command');
  const spec = path.join(tmp, 'sharing-spec.json');
  const trace = path.join(tmp, 'sharing-native.csv');
  writeFileSync(spec, vertical.spec);
  execFileSync(cli, ['run', '--config', spec, '--quiet', '--trace', trace, '--summary', path.join(tmp, 'ss.json')]);
  assert.deepEqual(dropSeconds(vertical.trace), dropSeconds(readFileSync(trace, 'utf8')));
  await vpage.screenshot({ path: path.join(artifacts, '8-vertical-dp.png') });
});

await step('vertical setting: shared URL reproduces the DP sharing run bit for bit', async () => {
  await vpage.click('#share');
  const url = await vpage.locator('#share').getAttribute('data-url');
  for (const part of ['mode=vertical', 'algorithm=dp_admm', 'parties=3', 'split=100%2C60%2C40', 'epsilon=0.5',
                      'epochs=15', 'seed=7', 'noise_seed=7']) {
    assert.ok(url.includes(part), `${part} in ${url}`);
  }
  const other = await openPage(url);
  await waitFinished(other);
  assert.equal(await other.locator('#mode-vertical').isChecked(), true);
  assert.equal(await other.locator('#sharing-algorithm').inputValue(), 'dp_admm');
  assert.equal(await other.locator('#parties').inputValue(), '3');
  assert.equal(await other.locator('#party-features').inputValue(), '100,60,40');
  assert.equal(await other.locator('#sparam-total_epsilon').inputValue(), '0.5');
  const reproduced = await download(other);
  assert.deepEqual(dropSeconds(reproduced), dropSeconds(vertical.trace));
  await other.screenshot({ path: path.join(artifacts, '9-vertical-shared-url.png') });
  await other.close();
});

await step('vertical setting: SGD baseline overlays the earlier runs; horizontal runs still work', async () => {
  await vpage.selectOption('#sharing-algorithm', 'sgd');
  assert.equal(await vpage.locator('#sparam-batch_size').inputValue(), '64');
  await vpage.click('#run');
  await waitFinished(vpage);
  assert.equal(await vpage.locator('#state').getAttribute('data-outcome'), 'round-limit');
  assert.equal(await vpage.locator('#runs li').count(), 3);
  // Three runs overlaid in the charts: 21 + 16 + 16 epochs.
  assert.equal(Number(await vpage.locator('#charts').getAttribute('data-points')), 53);
  const accuracy = Number(await vpage.locator('#accuracy').getAttribute('data-value'));
  assert.ok(accuracy > 0.75, `accuracy ${accuracy}`);
  await vpage.screenshot({ path: path.join(artifacts, '10-vertical-sgd-overlay.png') });
  await vpage.check('#mode-horizontal');
  assert.equal(await vpage.locator('#dataset').inputValue(), 'twonorm');
  await vpage.fill('#iterations', '20');
  await vpage.locator('#iterations').dispatchEvent('input');
  await vpage.click('#run');
  await waitFinished(vpage);
  assert.equal(await roundOf(vpage), 20);
  assert.equal(await vpage.locator('#graph').getAttribute('data-nodes'), '10');
  assert.match(await vpage.locator('.uplot .u-title').first().textContent(), /Training loss/);
  await vpage.close();
});

await step('vertical setting: a CSV file from disk, its columns split 3 / 1 between two parties', async () => {
  const p = await openPage(base);
  await p.waitForSelector('#state[data-state=idle]', { timeout: 60_000 });
  await p.check('#mode-vertical');
  await p.selectOption('#dataset', 'file');
  const rows = ['a,b,c,d,label'];
  for (let k = 0; k < 300; ++k) {
    const x = [Math.sin(k * 1.3), Math.cos(k * 0.7), Math.sin(k * 0.37 + 1), Math.cos(k * 2.1)];
    rows.push(`${x.map((v) => v.toFixed(5)).join(',')},${x[0] + x[1] - x[2] + x[3] >= 0 ? 1 : 0}`);
  }
  await p.setInputFiles('#file', { name: 'cols.csv', mimeType: 'text/csv', buffer: Buffer.from(rows.join('\n')) });
  await p.waitForFunction(() => document.querySelector('#file-status')?.textContent?.includes('cols.csv'));
  await p.check('#csv-header');
  await p.fill('#party-features', '3,1');
  await p.locator('#party-features').dispatchEvent('input');
  await p.fill('#sparam-rho', '0.003');
  await p.locator('#sparam-rho').dispatchEvent('input');
  await p.fill('#epochs', '30');
  await p.locator('#epochs').dispatchEvent('input');
  await p.click('#run');
  await waitFinished(p);
  assert.equal(await p.locator('#error').isHidden(), true, await p.locator('#error').textContent());
  const accuracy = Number(await p.locator('#accuracy').getAttribute('data-value'));
  assert.ok(accuracy > 0.95, `accuracy ${accuracy}`);
  assert.match(await p.locator('#info').textContent(), /4 features split among 2 parties \(3 \/ 1\)/);
  await p.screenshot({ path: path.join(artifacts, '11-vertical-csv-file.png') });
  await p.close();
});

await step('vertical setting: pause, step and stop', async () => {
  const p = await openPage(base);
  await p.waitForSelector('#state[data-state=idle]', { timeout: 60_000 });
  await p.check('#mode-vertical');
  await p.fill('#epochs', '200');
  await p.locator('#epochs').dispatchEvent('input');
  await p.fill('#delay', '60');
  await p.locator('#delay').dispatchEvent('input');
  await p.click('#run');
  await p.waitForFunction(() => Number(document.querySelector('#round')?.getAttribute('data-value')) >= 3
    && document.querySelector('#state')?.getAttribute('data-state') === 'running');
  await p.click('#pause');
  await p.waitForTimeout(400);
  const paused = await roundOf(p);
  await p.waitForTimeout(500);
  assert.equal(await roundOf(p), paused, 'no epoch while paused');
  await p.click('#step');
  await p.waitForFunction((r) => Number(document.querySelector('#round')?.getAttribute('data-value')) === r + 1, paused);
  assert.match(await p.locator('#state').textContent(), /paused after epoch/);
  await p.click('#stop');
  await waitFinished(p);
  assert.equal(await p.locator('#state').getAttribute('data-outcome'), 'cancelled');
  assert.match(await p.locator('#outcome').textContent(), /cancelled/);
  assert.ok((await roundOf(p)) < 200);
  await p.close();
});

// ---------------------------------------------------------------------------------------------
// Honest run states, charts, forms, accessibility, phone layout, scale and precompressed assets.

const verdictOf = (p) => p.locator('#state').getAttribute('data-outcome');
const stateColours = (p) => p.locator('#state').evaluate((e) => {
  const s = getComputedStyle(e);
  return `${s.color} on ${s.backgroundColor}`;
});

/** axe-core in the page: the violations of impact critical or serious (none expected). */
async function axeProblems(p) {
  await p.addScriptTag({ path: path.join(webDir, 'node_modules', 'axe-core', 'axe.min.js') });
  const result = await p.evaluate(async () => globalThis.axe.run(document));
  return result.violations.filter((v) => v.impact === 'critical' || v.impact === 'serious')
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

/** Counts changes of #state (the only live region) from now on. */
const watchAnnouncements = (p) => p.evaluate(() => {
  globalThis.__announcements = [];
  new MutationObserver(() => globalThis.__announcements.push(document.querySelector('#state').textContent))
    .observe(document.querySelector('#state'), { childList: true, characterData: true, subtree: true });
});

const screenshots = path.join(webDir, 'screenshots');
mkdirSync(screenshots, { recursive: true });

await step('run states: learned nothing, budget exhausted, round limit, converged: own word and colour, announced once', async () => {
  // The CLI's `dpadmm run --algorithm dvp --alpha 0.005 --noise-seed 1 --iterations 30`: 41.4 %.
  const p = await openPage(`${base}?algorithm=dvp&alpha=0.005&edges=13&iterations=30&noise_seed=1`);
  await waitFinished(p);
  assert.equal(await verdictOf(p), 'learned-nothing');
  assert.equal(await p.locator('#state').textContent(), 'learned nothing');
  assert.match(await p.locator('#outcome').textContent(), /within 2 points of the majority-class rate/);
  const nothing = await stateColours(p);
  // The run view's live region is #state alone: the per-round figures are not announced (the
  // sweep view, hidden here, has its own phase badge #sw-state, also once per phase).
  assert.deepEqual(await p.evaluate(() => [...document.querySelectorAll('[aria-live], [role=status], [role=log], output')]
    .map((e) => e.id)), ['state', 'sw-state']);
  assert.equal(await p.locator('#sweep-view').isHidden(), true);
  await p.fill('#param-alpha', '0.15');
  await p.locator('#param-alpha').dispatchEvent('input');
  await p.fill('#param-privacy_budget', '1');
  await p.locator('#param-privacy_budget').dispatchEvent('input');
  await p.fill('#delay', '0');
  await p.locator('#delay').dispatchEvent('input');
  await watchAnnouncements(p);
  await p.click('#run');
  await waitFinished(p);
  assert.equal(await verdictOf(p), 'budget-exhausted');
  assert.equal(await p.locator('#state').textContent(), 'privacy budget exhausted');
  assert.ok(await roundOf(p) < 30, 'stopped before the round limit');
  const budget = await stateColours(p);
  const announced = await p.evaluate(() => globalThis.__announcements);
  assert.deepEqual(announced, ['running', 'privacy budget exhausted'], 'announced once per phase, not per round');
  await p.selectOption('#algorithm', 'admm');
  await p.click('#run');
  await waitFinished(p);
  assert.equal(await verdictOf(p), 'round-limit');
  const limit = await stateColours(p);
  // `dpadmm run --tolerance 1e-3 --edges 13 --iterations 100`: converged in round 40 (the stop
  // rule bounds the gap to the mean, max_i ||f_i - mean f||).
  await p.fill('#tolerance', '0.001');
  await p.locator('#tolerance').dispatchEvent('input');
  await p.fill('#edges', '13');
  await p.locator('#edges').dispatchEvent('input');
  await p.fill('#iterations', '100');
  await p.locator('#iterations').dispatchEvent('input');
  await p.click('#run');
  await waitFinished(p);
  assert.equal(await verdictOf(p), 'converged');
  assert.equal(await roundOf(p), 40);
  const converged = await stateColours(p);
  assert.equal(new Set([nothing, budget, limit, converged]).size, 4, `${nothing} | ${budget} | ${limit} | ${converged}`);
  // Each run keeps its verdict in the list, in its colour.
  assert.deepEqual(await p.locator('#runs .badge').evaluateAll((b) => b.map((e) => e.dataset.outcome)),
    ['converged', 'round-limit', 'budget-exhausted', 'learned-nothing']);
  await p.close();
});

await step('charts: one quantity each, labelled axes, privacy on a log axis with paper and tight ε', async () => {
  const p = await openPage(`${base}?algorithm=dvp&iterations=60&noise_seed=3`);
  await waitFinished(p);
  const charts = await p.locator('#charts .chart').evaluateAll((cs) => cs.map((c) => ({ ...c.dataset })));
  assert.equal(charts.length, 4);
  for (const c of charts) {
    assert.ok(c.xLabel && c.yLabel, `axis labels ${JSON.stringify(c)}`);
    assert.match(c.yLabel, /\(.+\)/, `unit in ${c.yLabel}`);
  }
  const privacy = charts[2];
  assert.equal(privacy.yScale, 'log');
  assert.match(privacy.yLabel, /ε/);
  const legend = await p.locator('#charts .chart').nth(2).locator('.u-legend').textContent();
  assert.match(legend, /paper's ε/);
  // The tight figure's delta: 1e-5 plus the double-precision sampler's term (honest delta).
  const legendDelta = legend.match(/tight ε \(δ = ([0-9.e+-]+)\)/);
  assert.ok(legendDelta, `no tight ε (δ = ...) in the legend: ${legend}`);
  assert.ok(Number(legendDelta[1]) > 1e-5 && Number(legendDelta[1]) < 1e-3,
            `tight δ ${legendDelta[1]}: 1e-5 plus the sampler's delta`);
  // The tight ε per round (trace column tight_epsilon), not only at the end: 61 rounds drawn.
  assert.ok(Number(await p.locator('#charts').getAttribute('data-tight-points')) > 50,
            `tight ε points: ${await p.locator('#charts').getAttribute('data-tight-points')}`);
  assert.match(await p.locator('#outcome').textContent(), /tight \(ε, δ\)/);
  await p.screenshot({ path: path.join(screenshots, 'desktop.png') });
  await p.close();
});

await step('forms: limits with inline messages, empty fields rejected, valid steps, keyboard', async () => {
  const p = await openPage(base);
  await p.waitForSelector('#state[data-state=idle]', { timeout: 60_000 });
  for (const mode of ['horizontal', 'vertical']) {
    await p.check(`#mode-${mode}`);
    const mismatched = await p.evaluate(() => [...document.querySelectorAll('input')]
      .filter((e) => e.offsetParent !== null && (e.validity.stepMismatch || e.validity.rangeUnderflow || e.validity.rangeOverflow))
      .map((e) => `${e.id}=${e.value} (step ${e.step})`));
    assert.deepEqual(mismatched, [], `${mode}: defaults satisfy min/max/step`);
  }
  await p.check('#mode-horizontal');
  await p.fill('#rows', '');
  await p.locator('#rows').dispatchEvent('input');
  assert.match(await p.locator('#rows-error').textContent(), /Required/);
  assert.equal(await p.locator('#rows').getAttribute('aria-invalid'), 'true');
  await p.fill('#nodes', '5000');
  await p.locator('#nodes').dispatchEvent('input');
  assert.equal(await p.locator('#nodes-error').textContent(), 'At most 1000.');
  await p.fill('#param-eta', '');
  await p.locator('#param-eta').dispatchEvent('input');
  assert.match(await p.locator('#param-eta-error').textContent(), /Required/);
  await p.click('#run');
  assert.equal(await state(p), 'idle', 'Run refused');
  assert.match(await p.locator('#error').textContent(), /Fix these 3 fields first/);
  assert.equal(await p.evaluate(() => document.activeElement?.id), 'rows', 'focus on the first bad field');
  assert.deepEqual(await axeProblems(p), [], 'axe with inline messages shown');
  await p.fill('#rows', '2000');
  await p.locator('#rows').dispatchEvent('input');
  await p.fill('#nodes', '12');
  await p.locator('#nodes').dispatchEvent('input');
  await p.fill('#param-eta', '0.5');
  await p.locator('#param-eta').dispatchEvent('input');
  assert.equal(await p.locator('[aria-invalid=true]').count(), 0);
  await p.fill('#iterations', '20');
  await p.locator('#iterations').dispatchEvent('input');
  // Keyboard only: focus Run with Tab from the last field and press Enter.
  await p.focus('#noise-seed');
  for (let k = 0; k < 10 && (await p.evaluate(() => document.activeElement?.id)) !== 'run'; ++k) {
    await p.keyboard.press('Tab');
  }
  assert.equal(await p.evaluate(() => document.activeElement?.id), 'run');
  await p.keyboard.press('Enter');
  await waitFinished(p);
  assert.equal(await roundOf(p), 20);
  assert.equal(await p.locator('#graph').getAttribute('data-nodes'), '12');
  await p.close();
});

await step('accessibility: axe finds no critical or serious violation (both settings, after runs)', async () => {
  const p = await openPage(`${base}?algorithm=dvp&iterations=20&noise_seed=2`);
  await waitFinished(p);
  assert.deepEqual(await axeProblems(p), []);
  assert.ok(Number(await p.locator('#graph').getAttribute('data-label-contrast')) >= 4.5, 'node labels');
  await p.check('#mode-vertical');
  await p.click('#run');
  await waitFinished(p);
  assert.deepEqual(await axeProblems(p), []);
  assert.ok(Number(await p.locator('#graph').getAttribute('data-label-contrast')) >= 4.5, 'party labels');
  await p.close();
});

await step('phone (390 px): Run visible without scrolling, no axe violation', async () => {
  const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 1, isMobile: true, hasTouch: true });
  const p = await phone.newPage();
  p.on('pageerror', (e) => consoleErrors.push(`phone: ${e.message}`));
  await p.goto(base);
  await p.waitForSelector('#state[data-state=idle]', { timeout: 60_000 });
  const box = await p.locator('#run').boundingBox();
  assert.ok(box && box.y >= 0 && box.y + box.height <= 844 && box.x + box.width <= 390, `Run at ${JSON.stringify(box)}`);
  assert.equal(await p.evaluate(() => document.documentElement.scrollWidth <= 390), true, 'no horizontal scroll');
  await p.tap('#run');
  await waitFinished(p);
  assert.deepEqual(await axeProblems(p), []);
  await p.screenshot({ path: path.join(screenshots, 'phone.png') });
  await phone.close();
});

/** Long tasks of the page from now on (PerformanceObserver 'longtask'). */
const watchLongTasks = (p) => p.evaluate(() => {
  globalThis.__long = [];
  new PerformanceObserver((list) => { for (const e of list.getEntries()) globalThis.__long.push(e.duration); })
    .observe({ type: 'longtask' });
});
const longest = async (p) => Math.max(0, ...(await p.evaluate(() => globalThis.__long)));

// The page's tasks from a Chromium trace: the longest one in wall time and in CPU time (thread
// time, 'tdur'). On a machine with more runnable threads than cores a task's wall time also
// counts the time the OS ran other processes: the CPU time is then what the page itself spent.
// The CPU-time limit always applies. The wall-time limit (the PerformanceObserver's long tasks)
// applies on a quiet machine only (load average per core below 0.75): on 2 cores the browser's
// own processes and the test driver load the machine past that, and a 116 ms wall-time task
// (98 ms in the trace, 20 ms of CPU) was seen at load 1.4 per core.
const LONG_TASK_MS = 100;
const loadPerCore = () => os.loadavg()[0] / os.cpus().length;
async function startTrace(p) {
  await browser.startTracing(p, { categories: ['toplevel', 'disabled-by-default-devtools.timeline'] });
}
async function stopTrace() {
  const trace = JSON.parse((await browser.stopTracing()).toString('utf8'));
  const events = trace.traceEvents ?? trace;
  const main = new Set(events.filter((e) => e.ph === 'M' && e.name === 'thread_name' && e.args?.name === 'CrRendererMain')
    .map((e) => `${e.pid}:${e.tid}`));
  let wall = 0, cpu = 0;
  for (const e of events) {
    if (e.ph !== 'X' || e.name !== 'RunTask' || !main.has(`${e.pid}:${e.tid}`)) continue;
    wall = Math.max(wall, (e.dur ?? 0) / 1000);
    cpu = Math.max(cpu, (e.tdur ?? 0) / 1000);
  }
  return { wall, cpu };
}
function checkTasks(what, observed, trace) {
  const load = loadPerCore();
  console.log(`     ${what}: longest task ${observed.toFixed(0)} ms (PerformanceObserver), ` +
              `${trace.wall.toFixed(0)} ms wall / ${trace.cpu.toFixed(0)} ms CPU (trace); load ${load.toFixed(1)} per core`);
  assert.ok(trace.cpu <= LONG_TASK_MS, `a task of ${trace.cpu.toFixed(0)} ms CPU time`);
  if (load < 0.75) assert.ok(observed <= LONG_TASK_MS, `a long task of ${observed} ms`);
  else console.log(`     (machine busy: the ${LONG_TASK_MS} ms wall-time limit is not checked)`);
}

await step('scale: a complete graph of 1000 nodes, no long task over 100 ms', async () => {
  const p = await openPage(base);
  await p.waitForSelector('#state[data-state=idle]', { timeout: 60_000 });
  await watchLongTasks(p);
  await p.selectOption('#topology', 'complete');
  await p.fill('#nodes', '1000');
  await p.locator('#nodes').dispatchEvent('input');
  await p.fill('#iterations', '2');
  await p.locator('#iterations').dispatchEvent('input');
  await p.fill('#delay', '0');
  await p.locator('#delay').dispatchEvent('input');
  await startTrace(p);
  await p.click('#run');
  await waitFinished(p, 180_000);
  await p.waitForFunction(() => {
    const g = document.querySelector('#graph');
    return g?.dataset.edgesShown && g.dataset.edgesDrawn === g.dataset.edgesShown;
  });
  assert.equal(await p.locator('#graph').getAttribute('data-edges'), '499500');
  assert.equal(await p.locator('#graph').getAttribute('data-edges-shown'), '20000', 'a sample of the edges');
  checkTasks('complete graph, 1000 nodes', await longest(p), await stopTrace());
  await p.close();
});

await step('scale: 1000 nodes x 1000 rounds, no long task over 100 ms, flat heap', async () => {
  const p = await openPage(base);
  await p.waitForSelector('#state[data-state=idle]', { timeout: 60_000 });
  const cdp = await context.newCDPSession(p);
  const heap = async () => {
    await cdp.send('HeapProfiler.collectGarbage');
    return (await cdp.send('Runtime.getHeapUsage')).usedSize / 2 ** 20;
  };
  await p.fill('#nodes', '1000');
  await p.locator('#nodes').dispatchEvent('input');
  await p.fill('#iterations', '1000');
  await p.locator('#iterations').dispatchEvent('input');
  await p.fill('#delay', '0');
  await p.locator('#delay').dispatchEvent('input');
  await watchLongTasks(p);
  const started = Date.now();
  await startTrace(p);
  await p.click('#run');
  await p.waitForFunction(() => Number(document.querySelector('#round')?.dataset.value) >= 250, null, { timeout: 120_000 });
  const before = await longest(p);
  const firstTrace = await stopTrace();
  const early = await heap(); // a forced full GC: itself a long task, not counted
  await watchLongTasks(p);
  await startTrace(p);
  await waitFinished(p, 180_000);
  const seconds = (Date.now() - started) / 1000;
  const worst = Math.max(before, await longest(p));
  const secondTrace = await stopTrace();
  const late = await heap();
  const points = Number(await p.locator('#charts').getAttribute('data-points'));
  console.log(`     1000 x 1000: ${seconds.toFixed(1)} s, ` +
              `heap ${early.toFixed(1)} MB at round 250 -> ${late.toFixed(1)} MB at the end, ${points} chart points`);
  assert.equal(await roundOf(p), 1000);
  checkTasks('1000 x 1000', worst, {
    wall: Math.max(firstTrace.wall, secondTrace.wall), cpu: Math.max(firstTrace.cpu, secondTrace.cpu) });
  // The trace kept for download (about 4 MB of CSV for 750 rounds of 1000 nodes) is the growth.
  assert.ok(late - early < 12, `heap grew by ${(late - early).toFixed(1)} MB`);
  assert.ok(points <= 502, `${points} chart points kept (decimated)`);
  const trace = await download(p);
  assert.equal(trace.trim().split('\n').length, 1002, 'the whole trace downloads');
  await p.close();
});

await step('precompressed assets: brotli and gzip with Content-Encoding, isolation headers kept', async () => {
  const html = await (await fetch(base)).text();
  const js = html.match(/assets\/index-[\w-]+\.js/)[0];
  const page2 = await openPage(base);
  await page2.waitForSelector('#state[data-state=idle]', { timeout: 60_000 });
  await page2.close();
  const wasm = new URL(`assets/${readdirSync(path.join(webDir, 'dist', 'assets')).find((n) => n.endsWith('.wasm'))}`, base).href;
  const { get } = await import('node:http');
  const head = (url, encoding) => new Promise((resolve, reject) => {
    get(url, { headers: encoding ? { 'Accept-Encoding': encoding } : {} }, (res) => {
      let bytes = 0;
      res.on('data', (c) => { bytes += c.length; });
      res.on('end', () => resolve({ headers: res.headers, bytes }));
    }).on('error', reject);
  });
  for (const url of [new URL(js, base).href, wasm]) {
    const br = await head(url, 'gzip, deflate, br');
    const gz = await head(url, 'gzip');
    const plain = await head(url, '');
    assert.equal(br.headers['content-encoding'], 'br', url);
    assert.equal(gz.headers['content-encoding'], 'gzip', url);
    assert.equal(plain.headers['content-encoding'], undefined, url);
    for (const r of [br, gz, plain]) {
      assert.equal(r.headers['cross-origin-embedder-policy'], 'require-corp');
      assert.equal(r.headers['cross-origin-opener-policy'], 'same-origin');
    }
    assert.ok(br.bytes < gz.bytes && gz.bytes < plain.bytes, `${url}: ${br.bytes} < ${gz.bytes} < ${plain.bytes}`);
    console.log(`     ${path.basename(url)}: ${plain.bytes} B, gzip ${gz.bytes} B, brotli ${br.bytes} B`);
  }
  assert.match(wasm, /\.wasm$/);
});

// The privacy-utility view: a tiny sweep (2 algorithms and the 3 baselines x 2 epsilons x 2 seeds
// + the reference, 4 nodes, 400 rows, 15 rounds) from the form, its numbers against `dpadmm sweep`, the share
// link, Cancel, keyboard tabs, axe and the screenshots of the README.
const SWEEP_FIELDS = { 'sw-rows': 400, 'sw-nodes': 4, 'sw-rounds': 15, 'sw-seed': 3,
                       'sw-eps-min': 1, 'sw-eps-max': 10, 'sw-eps-steps': 2, 'sw-seeds': 2 };
async function waitSweep(p, timeout = 120_000) {
  await p.waitForSelector('#sw-state[data-state=done], #sw-state[data-state=error]', { timeout });
  assert.equal(await p.locator('#sw-state').getAttribute('data-state'), 'done',
               await p.locator('#sw-error').textContent());
}
const sweepTable = (p) => p.locator('#sw-table-body tr').evaluateAll(
  (rows) => rows.map((r) => [...r.children].map((c) => c.textContent).join(' | ')));

await step('privacy-utility view: a tiny sweep runs, draws, matches `dpadmm sweep`, its link round-trips', async () => {
  const p = await openPage(base);
  await p.waitForSelector('#state[data-state=idle]', { timeout: 60_000 });
  // Keyboard: the tabs are ARIA tabs; the arrow key moves to the sweep view.
  await p.focus('#tab-run');
  await p.keyboard.press('ArrowRight');
  assert.equal(await p.evaluate(() => document.activeElement?.id), 'tab-sweep');
  assert.equal(await p.locator('#tab-sweep').getAttribute('aria-selected'), 'true');
  assert.equal(await p.locator('#run-view').isHidden(), true);
  await p.waitForSelector('#sw-state[data-state=idle]', { timeout: 60_000 });
  for (const [id, v] of Object.entries(SWEEP_FIELDS)) await p.fill(`#${id}`, String(v));
  await p.check('#sw-alg-dvp');
  await p.check('#sw-alg-pvp');
  await p.uncheck('#sw-alg-madmm');
  // The baselines are on by default: drawn beside every curve.
  for (const b of ['local', 'average', 'central']) assert.equal(await p.isChecked(`#sw-alg-${b}`), true, `${b} on by default`);
  // Limits: an empty or out-of-range field shows its message and blocks the sweep.
  await p.fill('#sw-seeds', '');
  assert.match(await p.locator('#sw-seeds-error').textContent(), /Required/);
  await p.fill('#sw-seeds', '99');
  assert.match(await p.locator('#sw-seeds-error').textContent(), /At most 20/);
  await p.fill('#sw-seeds', '2');
  assert.equal(await p.locator('#sw-seeds-error').isHidden(), true);
  assert.match(await p.locator('#sw-eps-list').textContent(), /ε = 1, 10 .* 22 runs/);
  const started = Date.now();
  await p.click('#sw-run');
  await waitSweep(p);
  console.log(`     tiny sweep in the browser: ${((Date.now() - started) / 1000).toFixed(1)} s`);
  assert.equal(Number(await p.locator('#sw-progress').getAttribute('value')), 22);
  assert.match(await p.locator('#sw-noise').textContent(), /^simulation: noise seeded per repetition/);
  // The chart: uPlot's canvas, a log x axis, both axes labelled with units, a legend.
  assert.equal(await p.locator('#sw-chart canvas').count(), 1);
  assert.equal(await p.locator('#sw-chart').getAttribute('data-series'), '5');
  assert.equal(await p.locator('#sw-chart').getAttribute('data-baselines'), '3');
  const chart = p.locator('#sw-chart');
  assert.match(await chart.getAttribute('data-x-label'), /^total ε per node .*log scale/);
  assert.equal(await chart.getAttribute('data-x-scale'), 'log');
  assert.equal(await chart.getAttribute('data-y-label'), 'test accuracy (%)');
  const legend = await p.locator('#sw-legend li').allTextContents();
  assert.equal(legend.length, 8, legend.join(' / '));
  assert.ok(legend.some((l) => /ADMM \(non-private\)/.test(l)) && legend.some((l) => /majority/.test(l)));
  assert.ok(legend.some((l) => /^central: one curator every party must trust/.test(l)), legend.join(' / '));
  const table = await sweepTable(p);
  assert.equal(table.length, 13, table.join('\n'));
  // The same sweep from the command line the page shows: the same CSV, character for character.
  const command = (await p.locator('#sw-command').textContent()).trim().split(/\s+/);
  assert.equal(command[0], 'dpadmm');
  assert.equal(command[command.indexOf('--algorithms') + 1], 'dvp,pvp,local,average,central');
  const out = path.join(tmp, 'sweep-native');
  execFileSync(process.env.DPADMM_NATIVE_CLI, [...command.slice(1), '--out', out, '--quiet']);
  const native = readFileSync(path.join(out, 'sweep.csv'), 'utf8');
  const [dl] = await Promise.all([p.waitForEvent('download'), p.click('#sw-download')]);
  const csv = readFileSync(await dl.path(), 'utf8');
  assert.equal(csv, native);
  // The table shows the native means; central's row names the curator.
  for (const name of ['dvp', 'local', 'average', 'central']) {
    for (const eps of ['1', '10']) {
      const line = native.split('\n').find((l) => l.startsWith(`${name},${eps},`));
      assert.ok(line, `${name} at ε ${eps} in sweep.csv`);
      const shown = name === 'central' ? 'central (trusted curator)' : name;
      assert.ok(table.some((row) => row.startsWith(`${shown} | ${eps} | ${Number(line.split(',')[4]).toFixed(2)} |`)),
                `${line} vs\n${table.join('\n')}`);
    }
  }
  assert.deepEqual(await axeProblems(p), []);
  // The share link: the view, the fields and the same numbers in a fresh page.
  await p.click('#sw-share');
  const url = await p.locator('#sw-share-url').inputValue();
  assert.match(url, /view=sweep/);
  const other = await openPage(url);
  assert.equal(await other.locator('#tab-sweep').getAttribute('aria-selected'), 'true');
  await waitSweep(other);
  for (const [id, v] of Object.entries(SWEEP_FIELDS)) assert.equal(await other.inputValue(`#${id}`), String(v), id);
  assert.equal(await other.isChecked('#sw-alg-madmm'), false);
  assert.deepEqual(await sweepTable(other), table);
  await other.close();
  await p.close();
});

// The README's picture: DVP and PVP beside the baselines over two decades of ε, 5 seeds (130 runs
// of 6 nodes, 50 rounds).
const SWEEP_SHOWN = `${base}?view=sweep&data=twonorm&rows=1000&nodes=6&rounds=50&seed=1&algorithms=dvp,pvp,local,average,central&eps_min=0.1&eps_max=10&eps_steps=5&seeds=5`;

await step('privacy-utility view: a 5-seed sweep from a link (desktop screenshot, axe)', async () => {
  const p = await openPage(SWEEP_SHOWN);
  const started = Date.now();
  await waitSweep(p);
  console.log(`     2 algorithms and 3 baselines x 5 epsilons x 5 seeds + reference (130 runs): ${((Date.now() - started) / 1000).toFixed(1)} s`);
  assert.equal((await sweepTable(p)).length, 28);
  assert.deepEqual(await axeProblems(p), []);
  await p.screenshot({ path: path.join(screenshots, 'sweep-desktop.png'), fullPage: true });
  await p.close();
});

await step('privacy-utility view: Cancel ends a sweep early and keeps the runs so far', async () => {
  const p = await openPage(`${base}?view=sweep&nodes=4&rows=2000&rounds=100&algorithms=dvp,pvp,madmm&eps_min=0.1&eps_max=10&eps_steps=5&seeds=5`);
  await p.waitForFunction(() => Number(document.querySelector('#sw-progress')?.getAttribute('value') ?? 0) >= 1
    || document.querySelector('#sw-state')?.getAttribute('data-state') !== 'running', null, { timeout: 60_000 });
  await p.click('#sw-cancel');
  await p.waitForSelector('#sw-state[data-state=cancelled]', { timeout: 60_000 });
  const done = Number(await p.locator('#sw-progress').getAttribute('value'));
  assert.ok(done >= 1 && done < 80, `${done} of 80 runs`);
  assert.equal(await p.locator('#sw-run').isEnabled(), true);
  await p.close();
});

await step('privacy-utility view on a phone (390 px): no horizontal scroll, no axe violation', async () => {
  const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 1, isMobile: true, hasTouch: true });
  const p = await phone.newPage();
  p.on('pageerror', (e) => consoleErrors.push(`phone sweep: ${e.message}`));
  await p.goto(SWEEP_SHOWN);
  await waitSweep(p);
  assert.equal(await p.evaluate(() => document.documentElement.scrollWidth <= 390), true, 'no horizontal scroll');
  assert.deepEqual(await axeProblems(p), []);
  await p.locator('#sw-stage').evaluate((e) => e.scrollIntoView({ block: 'start' }));
  await p.screenshot({ path: path.join(screenshots, 'sweep-phone.png') });
  await phone.close();
});

await step('without COOP/COEP: the single-threaded build runs, the page says why', async () => {
  // A plain static server of web/dist without the isolation headers (as many static hosts).
  const dist = path.join(webDir, 'dist');
  const types = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.wasm': 'application/wasm', '.svg': 'image/svg+xml' };
  const plain = http.createServer((req, res) => {
    const url = decodeURIComponent((req.url ?? '/').split('?')[0]);
    const file = path.join(dist, path.normalize(url.endsWith('/') ? `${url}index.html` : url));
    if (!file.startsWith(dist + path.sep) || !existsSync(file)) { res.statusCode = 404; res.end(); return; }
    res.setHeader('Content-Type', types[path.extname(file)] ?? 'application/octet-stream');
    res.end(readFileSync(file));
  });
  await new Promise((resolve) => plain.listen(0, '127.0.0.1', resolve));
  try {
    const p = await openPage(`http://127.0.0.1:${plain.address().port}/?algorithm=dvp&nodes=6&edges=8&iterations=20&seed=3&noise_seed=3`);
    await waitFinished(p);
    assert.equal(await p.evaluate(() => globalThis.crossOriginIsolated), false);
    assert.equal(await p.locator('#threads-note').textContent(), '1 thread: page not cross-origin isolated');
    assert.equal(await p.locator('#threads').getAttribute('max'), '1');
    const spec = await p.locator('#info').getAttribute('data-spec');
    assert.equal(JSON.parse(spec).engine, 'serial');
    assert.deepEqual(dropSeconds(await download(p)), nativeSerialTrace(spec, 'plain'));
    await p.close();
  } finally {
    plain.close();
  }
});

await step('no errors in the console', async () => {
  assert.deepEqual(consoleErrors, []);
});

await browser.close();
await server.close();
rmSync(tmp, { recursive: true, force: true });
console.log(failures.length === 0 ? `all passed; screenshots in ${artifacts}` : `${failures.length} failed: ${failures.join(', ')}`);
process.exit(failures.length === 0 ? 0 : 1);
