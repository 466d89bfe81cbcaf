// SPDX-License-Identifier: Apache-2.0
// The page: a form that builds a run configuration, the controls, the graph, the charts and the
// list of runs. The engine runs in a Web Worker (worker.ts); this thread never computes.
import {
  ALGORITHMS, algorithmByName, CHOICES, PARAMS, SHARING_ALGORITHMS, SHARING_PARAMS, sharingAlgorithmByName,
  type ParamDef,
} from './algorithms';
import { addRounds, Charts, formatNumber, PALETTE, type Trace } from './charts';
import {
  defaultConfig, DEFAULT_DIMS, describe, edgeRange, fromQuery, MODE_DATA, parseNoiseSeed,
  storedFileName, targetOf, toQuery,
  toSpec, type Mode, type RunConfig,
} from './config';
import { GraphView } from './graph';
import { initSweepView } from './sweep';
import { applyRule, check, checkSplit, FIELD_LIMITS, type Rule } from './limits';
import {
  CTRL_DELAY, CTRL_STATE, CTRL_STEPS, PAUSED, RUNNING, STOPPING,
  type EpochMetrics, type FromWorker, type GraphShape, type OutputsInfo, type RoundMetrics,
  type SharingGraph,
  type RunInfo, type SharingInfo, type TightPrivacy, type ToWorker, type UploadedFile,
} from './protocol';
import { explain, judge, type Verdict } from './verdict';

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const input = (id: string) => $<HTMLInputElement>(id);
const select = (id: string) => $<HTMLSelectElement>(id);

const MAX_RUNS = 8;

// Pause and step need a SharedArrayBuffer, i.e. a cross-origin isolated page (COOP + COEP).
const canPause = typeof SharedArrayBuffer !== 'undefined' && globalThis.crossOriginIsolated === true;

type Phase = 'loading' | 'idle' | 'running' | 'paused' | 'stopping' | 'finished';

interface RunRecord extends Trace {
  config: RunConfig;
  csv: string[];
  /** The CSV header of this run's trace (consensus or sharing columns). */
  csvHeader: string;
  outcome: string;
  /** The state word shown for the run (verdict.ts). */
  verdict: Verdict | null;
  /** Share of the majority class in the test set (from the run's info). */
  majorityRate: number | null;
  /** Consensus runs: the nodes of the run's graph (central: 1). */
  nodes?: number;
  /** The rounds the run was prepared with (the epsilon policy may choose them). */
  total?: number;
}

let config: RunConfig = defaultConfig();
let uploaded: UploadedFile | null = null;
let worker: Worker;
let csvHeader = '';
let sharingCsvHeader = '';
let phase: Phase = 'loading';
let control: Int32Array | null = null;
let runs: RunRecord[] = [];
let current: RunRecord | null = null;
let nextId = 1;
let pendingAutoRun = false;

const charts = new Charts($('charts'));
const graph = new GraphView($<HTMLCanvasElement>('graph'));

// ---------------------------------------------------------------------------------------------
// Form <-> configuration

function fillAlgorithmPicker() {
  const sel = select('algorithm');
  // The baselines in a group of their own, after the ADMM algorithms they are compared with.
  const baselines = document.createElement('optgroup');
  baselines.label = 'Baselines (one release, same ε)';
  for (const a of ALGORITHMS) {
    const o = document.createElement('option');
    o.value = a.name;
    o.textContent = a.title;
    (a.baseline ? baselines : sel).append(o);
  }
  sel.append(baselines);
  const sharing = select('sharing-algorithm');
  for (const a of SHARING_ALGORITHMS) {
    const o = document.createElement('option');
    o.value = a.name;
    o.textContent = a.title;
    sharing.append(o);
  }
}

function renderParams() {
  const algorithm = algorithmByName(config.algorithm);
  $('algorithm-summary').textContent = algorithm.summary;
  renderParamFields($('params'), 'param', PARAMS, algorithm.params, config.params, config.choices);
  $('target-box').hidden = !algorithm.calibrates;
  syncTarget();
  const sharing = sharingAlgorithmByName(config.sharingAlgorithm);
  $('sharing-algorithm-summary').textContent = sharing.summary;
  renderParamFields($('sharing-params'), 'sparam', SHARING_PARAMS, sharing.params, config.sharingParams);
}

/**
 * One labelled select per named-value parameter in `choices` (CHOICES), then one labelled
 * number field per parameter (each with its one-line help), written into `choices` and `values`.
 * A parameter that only applies to one value of a choice (`when`) is hidden for the others.
 */
function renderParamFields(
  host: HTMLElement, prefix: string, defs: Record<string, ParamDef>, defaults: Record<string, number>,
  values: Record<string, number>, choices: Record<string, string> = {},
) {
  host.replaceChildren();
  const conditional: { wrap: HTMLElement; when: NonNullable<ParamDef['when']> }[] = [];
  const showConditional = () => {
    for (const { wrap, when } of conditional) wrap.hidden = choices[when.choice] !== when.value;
  };
  for (const key of Object.keys(choices)) {
    const def = CHOICES[key];
    const wrap = document.createElement('div');
    wrap.className = 'param privacy choice';
    const label = document.createElement('label');
    label.textContent = def.label + ' ';
    const field = document.createElement('select');
    field.id = `${prefix}-${key}`;
    for (const option of def.options) {
      const o = document.createElement('option');
      o.value = option.value;
      o.textContent = option.label;
      field.append(o);
    }
    field.value = choices[key];
    label.htmlFor = field.id;
    const help = document.createElement('span');
    help.className = 'help';
    help.id = `${field.id}-help`;
    help.textContent = def.help;
    field.setAttribute('aria-describedby', help.id);
    field.addEventListener('change', () => {
      choices[key] = field.value;
      showConditional();
    });
    wrap.append(label, field, help);
    host.append(wrap);
  }
  for (const key of Object.keys(defaults)) {
    const def = defs[key];
    const wrap = document.createElement('div');
    wrap.className = def.privacy ? 'param privacy' : 'param';
    if (def.when) conditional.push({ wrap, when: def.when });
    const label = document.createElement('label');
    label.textContent = def.label + ' ';
    const field = document.createElement('input');
    field.type = 'number';
    field.id = `${prefix}-${key}`;
    field.dataset.key = key;
    const rule: Rule = { min: def.min, max: def.max, integer: def.integer };
    applyRule(field, rule);
    field.value = String(values[key] ?? defaults[key]);
    label.htmlFor = field.id;
    const help = document.createElement('span');
    help.className = 'help';
    help.id = `${field.id}-help`;
    help.textContent = def.help;
    wrap.append(label, field, help);
    host.append(wrap);
    guard(field, rule, (v) => (values[key] = v));
  }
  showConditional();
}

// What a target ε takes out of the user's hands: the epsilon policy's settings (rounds, C, ρ, η;
// PDML's R and decay) and the noise knob the calibration sets (α, PDML's V, or a baseline's ε).
const TARGET_SETS = ['iterations', 'param-C', 'param-rho', 'param-eta', 'param-alpha', 'param-epsilon',
  'param-pdml_R', 'param-pdml_V', 'param-pdml_decay'];

/** With a target ε, the fields it sets are disabled (as `dpadmm run` refuses them beside it). */
function syncTarget() {
  const on = targetOf(config) > 0;
  for (const id of TARGET_SETS) {
    const field = document.getElementById(id) as HTMLInputElement | null;
    if (!field) continue;
    field.disabled = on;
    field.title = on ? 'set by the target ε (epsilon policy and calibration)' : '';
  }
}

/** The simulation banner: visible whenever the run's noise is reproducible from a seed. */
function showNoiseMode() {
  $('noise-banner').hidden = config.noiseSeed === null;
}

function showConfig() {
  input('mode-horizontal').checked = config.mode === 'horizontal';
  input('mode-vertical').checked = config.mode === 'vertical';
  input('parties').value = String(config.parties);
  input('party-features').value = config.partyFeatures;
  select('sharing-algorithm').value = config.sharingAlgorithm;
  input('epochs').value = String(config.epochs);
  input('sharing-seed').value = String(config.seed);
  select('dataset').value = config.dataset;
  input('rows').value = String(config.rows);
  input('dims').value = String(config.dims);
  select('file-format').value = config.fileFormat;
  input('csv-header').checked = config.csvHeader;
  select('topology').value = config.topology;
  input('nodes').value = String(config.nodes);
  input('edges').value = String(config.edges);
  select('algorithm').value = config.algorithm;
  select('loss').value = config.loss;
  input('iterations').value = String(config.iterations);
  input('tolerance').value = String(config.tolerance);
  input('target-epsilon').value = String(config.targetEpsilon);
  input('seed').value = String(config.seed);
  input('threads').value = String(config.threads);
  const noise = config.noiseSeed === null ? '' : String(config.noiseSeed);
  input('noise-seed').value = noise;
  input('sharing-noise-seed').value = noise;
  showNoiseMode();
  renderParams();
  syncVisibility();
  // Values set here are valid: clear the messages of earlier edits.
  for (const field of $('settings').querySelectorAll<HTMLInputElement>('[aria-invalid]')) validate(field);
}

function syncVisibility() {
  document.body.dataset.mode = config.mode;
  charts.setMode(config.mode);
  const vertical = config.mode === 'vertical';
  $('round-label').textContent = vertical ? 'epoch' : 'round';
  $('privacy-label').textContent = vertical ? 'privacy spent (total ε)' : "privacy spent (paper's ε)";
  $('gap-label').textContent = vertical ? 'test log loss' : 'consensus gap';
  $('delay-label').textContent = vertical ? 'delay per epoch' : 'delay per round';
  $('generated-options').hidden = config.dataset === 'file';
  $('file-options').hidden = config.dataset !== 'file';
  $('edges-label').hidden = config.topology !== 'random';
  const [lo, hi] = edgeRange(config.nodes);
  input('edges').min = String(lo);
  input('edges').max = String(hi);
  $('edges-range').textContent = `${lo}–${hi}`;
}

// ---------------------------------------------------------------------------------------------
// Validation: every number field checks what is typed against its rule (limits.ts); a bad or
// empty value shows an inline message, is never applied and blocks Run.

/** The inline message element of a field (created on first use, after the field). */
function messageOf(field: HTMLInputElement): HTMLElement {
  const id = `${field.id}-error`;
  let box = document.getElementById(id);
  if (!box) {
    box = document.createElement('span');
    box.id = id;
    box.className = 'field-error';
    box.hidden = true;
    (field.closest('label') ?? field).after(box);
    const described = field.getAttribute('aria-describedby');
    field.setAttribute('aria-describedby', described ? `${described} ${id}` : id);
  }
  return box;
}

const rules = new Map<HTMLInputElement, () => Rule | null>();

/** Shows or clears the field's message; true if its value is valid. */
function validate(field: HTMLInputElement): boolean {
  const rule = rules.get(field)?.();
  const problem = field.id === 'party-features' ? checkSplit(field.value) : rule ? check(field.value, rule) : '';
  if (problem === '' && !field.hasAttribute('aria-invalid')) return true;
  const box = messageOf(field);
  box.textContent = problem;
  box.hidden = problem === '';
  if (problem === '') field.removeAttribute('aria-invalid');
  else field.setAttribute('aria-invalid', 'true');
  return problem === '';
}

/** Validates on every keystroke; applies the value only when it is valid. */
function guard(field: HTMLInputElement, rule: Rule | (() => Rule), apply: (v: number) => void) {
  rules.set(field, typeof rule === 'function' ? rule : () => rule);
  field.addEventListener('input', () => {
    if (validate(field) && field.value.trim() !== '') apply(Number(field.value));
    syncVisibility();
  });
}

/** The visible fields of the current setting that hold an invalid value (their messages shown). */
function invalidFields(): HTMLInputElement[] {
  const bad: HTMLInputElement[] = [];
  for (const field of $('settings').querySelectorAll<HTMLInputElement>('input[type=number], input[type=text]')) {
    if (field.offsetParent === null) continue; // hidden: not part of this run
    if (!validate(field)) bad.push(field);
  }
  return bad;
}

function numberField(id: string, apply: (v: number) => void) {
  const field = input(id);
  const rule = FIELD_LIMITS[id];
  applyRule(field, rule);
  guard(field, id === 'edges' ? () => {
    const [lo, hi] = edgeRange(config.nodes);
    return { ...rule, min: lo, max: hi };
  } : rule, apply);
}

/** Switches between the horizontal (consensus) and vertical (sharing) settings. */
function setMode(mode: Mode) {
  if (mode === config.mode) return;
  config.mode = mode;
  if (config.dataset !== 'file') Object.assign(config, MODE_DATA[mode]);
  showConfig();
  clearStatus();
  $('info').textContent = '';
  graph.clear();
  charts.render(runs);
}

function wireForm() {
  for (const id of ['mode-horizontal', 'mode-vertical']) {
    input(id).addEventListener('change', () => {
      if (input(id).checked) setMode(input(id).value as Mode);
    });
  }
  numberField('parties', (v) => (config.parties = Math.round(v)));
  input('party-features').addEventListener('input', () => {
    rules.set(input('party-features'), () => null);
    if (validate(input('party-features'))) config.partyFeatures = input('party-features').value;
  });
  numberField('epochs', (v) => (config.epochs = Math.round(v)));
  numberField('sharing-seed', (v) => {
    config.seed = Math.round(v);
    input('seed').value = String(config.seed);
  });
  select('sharing-algorithm').addEventListener('change', () => {
    config.sharingAlgorithm = select('sharing-algorithm').value;
    config.sharingParams = { ...sharingAlgorithmByName(config.sharingAlgorithm).params };
    renderParams();
  });
  select('dataset').addEventListener('change', () => {
    config.dataset = select('dataset').value as RunConfig['dataset'];
    if (config.dataset !== 'file') {
      config.dims = config.mode === 'vertical' && config.dataset === 'sparse' ? MODE_DATA.vertical.dims : DEFAULT_DIMS[config.dataset];
      input('dims').value = String(config.dims);
    }
    syncVisibility();
  });
  numberField('rows', (v) => (config.rows = Math.round(v)));
  numberField('dims', (v) => (config.dims = Math.round(v)));
  numberField('nodes', (v) => {
    config.nodes = Math.round(v);
    const [lo, hi] = edgeRange(config.nodes);
    if (config.edges < lo || config.edges > hi) {
      config.edges = Math.min(hi, lo + Math.floor(config.nodes / 3));
      input('edges').value = String(config.edges);
    }
    validate(input('edges'));
  });
  numberField('edges', (v) => (config.edges = Math.round(v)));
  numberField('iterations', (v) => (config.iterations = Math.round(v)));
  numberField('tolerance', (v) => (config.tolerance = v));
  numberField('target-epsilon', (v) => {
    config.targetEpsilon = v;
    syncTarget();
  });
  numberField('threads', (v) => (config.threads = Math.round(v)));
  numberField('seed', (v) => {
    config.seed = Math.round(v);
    input('sharing-seed').value = String(config.seed);
  });
  const noiseFields: Array<[string, string]> = [
    ['noise-seed', 'sharing-noise-seed'], ['sharing-noise-seed', 'noise-seed'],
  ];
  for (const [id, other] of noiseFields) {
    applyRule(input(id), FIELD_LIMITS[id]);
    rules.set(input(id), () => FIELD_LIMITS[id]);
    input(id).addEventListener('input', () => {
      if (!validate(input(id))) return;
      config.noiseSeed = parseNoiseSeed(input(id).value);
      input(other).value = input(id).value;
      validate(input(other));
      showNoiseMode();
    });
  }
  select('topology').addEventListener('change', () => {
    config.topology = select('topology').value as RunConfig['topology'];
    syncVisibility();
  });
  select('algorithm').addEventListener('change', () => {
    config.algorithm = select('algorithm').value;
    config.params = { ...algorithmByName(config.algorithm).params };
    config.choices = { ...algorithmByName(config.algorithm).choices };
    renderParams();
  });
  select('loss').addEventListener('change', () => (config.loss = select('loss').value as RunConfig['loss']));
  select('file-format').addEventListener('change', () => {
    config.fileFormat = select('file-format').value as RunConfig['fileFormat'];
  });
  input('csv-header').addEventListener('change', () => (config.csvHeader = input('csv-header').checked));
  input('file').addEventListener('change', async () => {
    const file = input('file').files?.[0];
    if (!file) return;
    uploaded = { name: storedFileName(file.name), text: await file.text() };
    config.fileName = file.name;
    if (/\.csv$/i.test(file.name)) {
      config.fileFormat = 'csv';
      select('file-format').value = 'csv';
    } else if (/\.(libsvm|svm)$/i.test(file.name)) {
      config.fileFormat = 'libsvm';
      select('file-format').value = 'libsvm';
    }
    $('file-status').textContent = `${file.name}: ${(file.size / 1024).toFixed(1)} KB, read locally.`;
  });
}

// ---------------------------------------------------------------------------------------------
// Worker and controls

/**
 * The state badge (#state, the page's only live region: it changes once per phase, never per
 * round) shows the phase, and once a run ends its verdict's word, in the verdict's colour.
 */
function setPhase(p: Phase, verdict: Verdict | null = null) {
  phase = p;
  const state = $('state');
  state.dataset.state = p;
  if (verdict) state.dataset.outcome = verdict.key;
  else delete state.dataset.outcome;
  state.textContent = verdict?.word ?? {
    loading: 'loading the engine…', idle: 'ready', running: 'running', paused: 'paused',
    stopping: 'stopping…', finished: 'finished',
  }[p];
  const busy = p === 'running' || p === 'paused' || p === 'stopping';
  $<HTMLButtonElement>('run').disabled = p === 'loading' || p === 'running' || p === 'stopping';
  $<HTMLButtonElement>('run').textContent = p === 'paused' ? '▶ Resume' : '▶ Run';
  $<HTMLButtonElement>('pause').disabled = !canPause || p !== 'running';
  $<HTMLButtonElement>('step').disabled = !canPause || p === 'loading' || p === 'running' || p === 'stopping';
  $<HTMLButtonElement>('stop').disabled = !busy || p === 'stopping';
  $<HTMLButtonElement>('reset').disabled = p === 'loading';
  $<HTMLButtonElement>('download').disabled = !current || current.csv.length === 0;
  for (const el of $('settings').querySelectorAll('input, select')) {
    (el as HTMLInputElement).disabled = busy;
  }
  if (!busy) syncTarget();
}

function newWorker() {
  worker?.terminate();
  worker = new Worker(new URL('./worker.ts', import.meta.url), { type: 'module' });
  worker.onmessage = (e: MessageEvent<FromWorker>) => onWorkerMessage(e.data);
  worker.onerror = (e) => showError(`the engine's worker failed: ${e.message}`);
}

function showError(message: string) {
  const box = $('error');
  box.textContent = message;
  box.hidden = message === '';
}

function writeDelay() {
  const ms = Number(input('delay').value);
  $('delay-value').textContent = `${ms} ms`;
  if (control) Atomics.store(control, CTRL_DELAY, ms);
}

function start(paused: boolean) {
  if (config.dataset === 'file' && (!uploaded || storedFileName(config.fileName) !== uploaded.name)) {
    showError(config.fileName
      ? `This run used the file "${config.fileName}": choose it under Data to run it again.`
      : 'Choose a LIBSVM or CSV file under Data first.');
    return;
  }
  const bad = invalidFields();
  if (bad.length > 0) {
    const names = bad.map((f) => (f.closest('label') ?? document.querySelector(`label[for="${f.id}"]`))
      ?.textContent?.trim().split('\n')[0] || f.id);
    showError(`Fix ${bad.length === 1 ? 'this field' : `these ${bad.length} fields`} first: ${names.join('; ')}.`);
    bad[0].focus();
    return;
  }
  showError('');
  clearStatus();
  const id = nextId++;
  const colour = PALETTE[(id - 1) % PALETTE.length];
  const vertical = config.mode === 'vertical';
  current = {
    id, label: `#${id} ${vertical ? `sharing ${config.sharingAlgorithm}` : config.algorithm}`, colour,
    mode: config.mode, rounds: [], stride: 1, latest: null, received: 0, visible: true,
    config: structuredClone(config), csv: [],
    csvHeader: vertical ? sharingCsvHeader : csvHeader, outcome: 'running', verdict: null, majorityRate: null,
  };
  runs.push(current);
  while (runs.length > MAX_RUNS) runs.shift();
  history.replaceState(null, '', `?${toQuery(config)}`);
  let buffer: SharedArrayBuffer | null = null;
  if (canPause) {
    buffer = new SharedArrayBuffer(4 * Int32Array.BYTES_PER_ELEMENT);
    control = new Int32Array(buffer);
    Atomics.store(control, CTRL_STATE, paused ? PAUSED : RUNNING);
    writeDelay();
  } else {
    control = null;
  }
  const message: ToWorker = {
    type: 'start', kind: vertical ? 'sharing' : 'consensus', id, spec: toSpec(config), files: config.dataset === 'file' && uploaded ? [uploaded] : [],
    control: buffer,
  };
  worker.postMessage(message);
  setPhase(paused ? 'paused' : 'running');
  setTimeout(() => { // a task of its own: the click's task stays short
    renderRuns();
    charts.render(runs);
  }, 0);
}

/** The threads field's range: [1, the engine's cores]; the note says why it is 1. */
function setMaxThreads(max: number, reason: string) {
  FIELD_LIMITS.threads.max = max;
  const field = input('threads');
  applyRule(field, FIELD_LIMITS.threads);
  if (config.threads > max) {
    config.threads = max;
    field.value = String(max);
  }
  validate(field);
  $('threads-note').textContent = max > 1
    ? `threads: 1 to ${max} (TBB engine on ${max} cores; every count gives the same results)`
    : `1 thread: ${reason}`;
}

function onWorkerMessage(m: FromWorker) {
  if (m.type === 'ready') {
    csvHeader = m.csvHeader;
    sharingCsvHeader = m.sharingCsvHeader;
    setMaxThreads(m.maxThreads, m.singleThreadReason);
    setPhase('idle');
    if (pendingAutoRun) {
      pendingAutoRun = false;
      start(false);
    }
    return;
  }
  if (!current || m.id !== current.id) {
    if (m.type === 'error' && m.id === -1) showError(m.message);
    return; // a message from a run that was already abandoned
  }
  switch (m.type) {
    case 'started':
      current.majorityRate = m.info.test_majority_rate ?? null;
      if (m.kind === 'sharing') {
        $('info').dataset.spec = m.specJson; // the effective spec, for `dpadmm run --config`
        graph.drawSharing(m.graph as SharingGraph);
        $('info').textContent = sharingInfoText(m.info);
        break;
      }
      $('info').dataset.spec = m.specJson; // the effective spec, for `dpadmm run --config`
      current.noConsensus = m.info.test_error_of !== undefined && m.info.test_error_of !== 'mean model';
      current.nodes = m.info.nodes;
      current.total = JSON.parse(m.specJson).iterations;
      drawGraph(m.graph);
      $('info').textContent =
        (m.info.baseline ? `Baseline ${m.info.baseline}. ` : '') +
        `${m.info.dataset}: ${m.info.train_rows} training rows on ${m.info.nodes} nodes ` +
        `(${m.info.edges} edges), ${m.info.test_rows} test rows, ${m.info.features} features. ` +
        (current.noConsensus ? `Test accuracy: the ${m.info.test_error_of} (no consensus model). ` : '') +
        `Privacy: ${m.info.privacy_guarantee}.` +
        (m.info.privacy_claim ? ` Claim: ${m.info.privacy_claim}.` : '') +
        targetText(m.info) +
        outputsText(m.info as OutputsInfo);
      break;
    case 'rounds': {
      addRounds(current, m.metrics);
      current.csv.push(m.csv);
      charts.schedule(runs);
      const last = m.metrics[m.metrics.length - 1];
      if (m.kind === 'sharing') showEpoch(last as EpochMetrics);
      else showRound(last as RoundMetrics, m.nodeDistance);
      if (phase === 'paused') {
        $('state').textContent = `paused after ${m.kind === 'sharing' ? 'epoch' : 'round'} ${last.round}`;
      }
      break;
    }
    case 'done': {
      const s = m.summary;
      const tight = 'tight_privacy' in s ? s.tight_privacy : undefined;
      if (tight && Number.isFinite(tight.epsilon)) {
        current.tight = { epsilon: tight.epsilon, delta: tight.delta, round: s.final.round };
      }
      current.outcome = s.outcome;
      const verdict = judge(s.outcome, s.final.test_error, current.majorityRate, m.kind === 'sharing' ? 'epoch' : 'round');
      current.verdict = verdict;
      const accuracy = s.final.test_error === null ? null : 1 - s.final.test_error;
      $('outcome').textContent =
        `Run #${current.id}: ${verdict.word} — ${s.message}. ${explain(verdict, accuracy, current.majorityRate)}` +
        tightPrivacyText(tight);
      showWarnings(s.warnings ?? []);
      finishRun(verdict);
      break;
    }
    case 'error':
      current.outcome = 'error';
      runs = runs.filter((r) => r !== current);
      showError(m.message);
      finishRun({ key: 'error', word: 'error' });
      break;
  }
}

function finishRun(verdict: Verdict) {
  control = null;
  setPhase('finished', verdict);
  renderRuns();
  setTimeout(() => charts.render(runs), 0);
}

function drawGraph(g: GraphShape) {
  graph.draw(g, current?.config.topology ?? config.topology);
}

function clearStatus() {
  $('outcome').textContent = '';
  showWarnings([]);
  for (const key of ['round', 'accuracy', 'privacy', 'gap']) {
    $(key).textContent = '–';
    delete $(key).dataset.value;
  }
}

const percentText = (e: number | null | undefined) => (e === null || e === undefined ? '–' : `${(100 * e).toFixed(2)} %`);

function sharingInfoText(i: SharingInfo): string {
  const split = i.party_features.join(' / ');
  let text = `${i.dataset}: ${i.train_rows} training rows, ${i.test_rows} test rows; ` +
    `${i.features} features split among ${i.party_features.length} parties (${split}); the coordinator holds the labels.`;
  if (i.central_baseline && i.local_baseline) {
    text += ` Reference test error: all features in one place ${percentText(i.central_baseline.test_error)}, ` +
      `party 1's features alone ${percentText(i.local_baseline.test_error)}.`;
  }
  return `${text} Privacy: ${i.privacy_guarantee}.` + outputsText(i as OutputsInfo);
}

/** A run with a target ε: the settings the epsilon policy chose and the knob calibrated to it. */
function targetText(i: RunInfo): string {
  if (!i.calibration) return '';
  const c = i.calibration;
  const policy = i.epsilon_policy ? `the epsilon policy chose ${i.epsilon_policy}; ` : '';
  return ` Target ε ${formatNumber(current ? targetOf(current.config) : 0)}: ${policy}the calibration set ` +
    `${c.knob} = ${formatNumber(c.value)} (tight ε ${formatNumber(c.tight_epsilon)} at δ ${formatNumber(c.delta)}).`;
}

/** What the run outputs: released figures only, or also (labelled) evaluation on private data. */
function outputsText(i: OutputsInfo): string {
  const scaling = i.scaling ? ` Rows prepared by ${i.scaling}.` : '';
  if (i.metrics === 'released-only') {
    return `${scaling} Released figures only: the training loss and objective are not computed ` +
      '(they would evaluate private data).';
  }
  if (i.evaluation_on_private_data) {
    const e = i.evaluation_on_private_data;
    return `${scaling} ${e.figures.join(', ')}: ${e.note.toUpperCase()}.`;
  }
  return scaling;
}

/** The summary's warnings, under the outcome line (cleared with it). */
function showWarnings(warnings: string[]) {
  let list = document.getElementById('warnings');
  if (!list) {
    list = document.createElement('ul');
    list.id = 'warnings';
    list.className = 'warnings';
    $('outcome').after(list);
  }
  list.replaceChildren(...warnings.map((w) => {
    const item = document.createElement('li');
    item.textContent = `Warning: ${w}`;
    return item;
  }));
}

function showEpoch(m: EpochMetrics) {
  $('round').textContent = `${m.round} / ${current?.config.epochs ?? '?'}`;
  $('round').dataset.value = String(m.round);
  const acc = $('accuracy');
  if (m.test_error !== null) {
    acc.textContent = `${(100 * (1 - m.test_error)).toFixed(2)} %`;
    acc.dataset.value = String(1 - m.test_error);
  }
  // null: the total is infinite (eq. (16) variant: Corollary 1 with a huge per-iteration ε).
  const eps = m.epsilon_total;
  $('privacy').textContent = eps === null ? '∞' : eps > 0 ? formatNumber(eps) : 'none';
  $('privacy').dataset.value = String(eps ?? Infinity);
  $('gap').textContent = m.test_loss === null ? '–' : formatNumber(m.test_loss);
}

/** Both figures of a private consensus run: the paper's (plain composition) and the tight one. */
function tightPrivacyText(t: TightPrivacy | undefined): string {
  if (!t) return '';
  if (t.paper_epsilon === null) {
    // PDML: the paper gives no figure; the tight one is Phase 2's Gaussian primal noise.
    return ` Privacy: tight (ε, δ) = (${formatNumber(t.epsilon)}, ${formatNumber(t.delta)}) per node ` +
      `(${t.composition}, max over nodes); the paper gives no figure.`;
  }
  // Both deltas include the double-precision sampler's (sampler_delta).
  return ` Privacy: paper's figure (ε, δ) = (${formatNumber(t.paper_epsilon)}, ` +
    `${formatNumber(t.paper_delta ?? 0)}) (its own composition); tight (ε, δ) = ` +
    `(${formatNumber(t.epsilon)}, ${formatNumber(t.delta)}) per node (optimal composition, max ` +
    `over nodes; δ includes the sampler's ${formatNumber(t.sampler_delta ?? 0)}).`;
}

function showRound(m: RoundMetrics, distance: Float64Array | null) {
  $('round').textContent = `${m.round} / ${current?.total ?? current?.config.iterations ?? '?'}`;
  const acc = $('accuracy');
  if (m.test_error !== null) {
    acc.textContent = `${(100 * (1 - m.test_error)).toFixed(2)} %`;
    acc.dataset.value = String(1 - m.test_error);
  }
  $('privacy').textContent = m.privacy_loss > 0 ? formatNumber(m.privacy_loss) : 'none';
  // local keeps one model per node: the spread of independent models is no consensus gap; a
  // run on one node (central) has nothing to agree on.
  $('gap').textContent = current?.noConsensus ? 'none (no consensus model)'
    : current?.nodes === 1 ? 'none (one node)' : formatNumber(m.consensus_gap);
  $('round').dataset.value = String(m.round);
  if (distance) graph.update(distance);
}

function renderRuns() {
  const list = $('runs');
  list.replaceChildren();
  for (const r of [...runs].reverse()) {
    const li = document.createElement('li');
    const box = document.createElement('input');
    box.type = 'checkbox';
    box.checked = r.visible;
    box.id = `show-run-${r.id}`;
    box.setAttribute('aria-label', `show run #${r.id} in the charts`);
    box.addEventListener('change', () => {
      r.visible = box.checked;
      charts.render(runs);
    });
    const swatch = document.createElement('span');
    swatch.className = 'swatch';
    swatch.style.background = r.colour;
    const text = document.createElement('span');
    const last = r.latest;
    const acc = last && last.test_error !== null ? `, accuracy ${(100 * (1 - last.test_error)).toFixed(2)} %` : '';
    text.textContent = `#${r.id} ${describe(r.config)}${acc}`;
    const badge = document.createElement('span');
    badge.className = 'badge';
    badge.dataset.outcome = r.verdict?.key ?? 'running';
    badge.textContent = r.verdict?.word ?? r.outcome;
    const link = document.createElement('a');
    link.href = `?${toQuery(r.config)}`;
    link.textContent = 'link';
    link.title = 'open this exact run';
    li.append(box, swatch, badge, text, ' ', link);
    list.append(li);
  }
}

function downloadTrace() {
  if (!current) return;
  const blob = new Blob([[current.csvHeader, ...current.csv].join('\n') + '\n'], { type: 'text/csv' });
  const a = document.createElement('a');
  a.href = URL.createObjectURL(blob);
  const c = current.config;
  a.download = c.mode === 'vertical'
    ? `dpadmm-sharing-trace-${c.sharingAlgorithm}-seed${c.seed}-run${current.id}.csv`
    : `dpadmm-trace-${c.algorithm}-seed${c.seed}-run${current.id}.csv`;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 1000);
}

async function share() {
  const url = `${location.origin}${location.pathname}?${toQuery(current?.config ?? config)}`;
  history.replaceState(null, '', url);
  $('share').dataset.url = url;
  try {
    await navigator.clipboard.writeText(url);
    $('outcome').textContent = 'Link copied: it opens this page with the same settings and seed, and runs it.';
  } catch {
    $('outcome').textContent = `Link to this run: ${url}`;
  }
}

function wireControls() {
  $('run').addEventListener('click', () => {
    if (phase === 'paused' && control) {
      Atomics.store(control, CTRL_STATE, RUNNING);
      Atomics.notify(control, CTRL_STATE);
      setPhase('running');
    } else {
      start(false);
    }
  });
  $('pause').addEventListener('click', () => {
    if (!control) return;
    Atomics.store(control, CTRL_STATE, PAUSED);
    Atomics.notify(control, CTRL_STATE);
    setPhase('paused');
  });
  $('step').addEventListener('click', () => {
    if (phase === 'paused' && control) {
      Atomics.add(control, CTRL_STEPS, 1);
      Atomics.notify(control, CTRL_STATE);
    } else if (phase === 'idle' || phase === 'finished') {
      start(true); // starts paused: round 0 appears, then one round per click
    }
  });
  $('stop').addEventListener('click', () => {
    if (!current) return;
    if (control) {
      Atomics.store(control, CTRL_STATE, STOPPING);
      Atomics.notify(control, CTRL_STATE);
      setPhase('stopping');
    } else {
      // Without shared memory the worker cannot be reached mid-run: end it and start afresh.
      current.outcome = 'cancelled';
      current.verdict = { key: 'cancelled', word: 'cancelled' };
      const last = current.latest;
      const where = current.mode === 'vertical'
        ? `epoch ${(last as EpochMetrics | undefined)?.round ?? 0}`
        : `round ${(last as RoundMetrics | undefined)?.round ?? 0}`;
      $('outcome').textContent = `Run #${current.id}: cancelled after ${where}.`;
      setPhase('loading');
      newWorker();
      renderRuns();
    }
  });
  $('reset').addEventListener('click', () => {
    if (phase === 'running' || phase === 'paused' || phase === 'stopping') {
      setPhase('loading');
      newWorker();
    }
    config = defaultConfig(config.mode); // Reset keeps the setting
    uploaded = null;
    input('file').value = '';
    runs = [];
    current = null;
    showConfig();
    showError('');
    $('outcome').textContent = '';
    $('info').textContent = '';
    clearStatus();
    graph.clear();
    history.replaceState(null, '', location.pathname);
    renderRuns();
    charts.render(runs);
    if (phase !== 'loading') setPhase('idle');
  });
  $('clear-runs').addEventListener('click', () => {
    runs = current && (phase === 'running' || phase === 'paused') ? [current] : [];
    renderRuns();
    charts.render(runs);
  });
  $('share').addEventListener('click', () => void share());
  $('download').addEventListener('click', downloadTrace);
  input('delay').addEventListener('input', writeDelay);
}

// ---------------------------------------------------------------------------------------------

fillAlgorithmPicker();
const shared = fromQuery(location.search);
if (shared) config = shared;
showConfig();
wireForm();
wireControls();
writeDelay();
if (!canPause) {
  for (const id of ['pause', 'step']) {
    $(id).title = 'Pause and step need a cross-origin isolated page (served with COOP/COEP headers, as scripts/web.sh does).';
  }
}
setPhase('loading');
newWorker();
// Opening a shared link runs it (unless it needs a file from the visitor's disk).
pendingAutoRun = shared !== null && shared.dataset !== 'file';
if (shared?.dataset === 'file') {
  showError(`This link describes a run on the file "${shared.fileName}": choose it under Data, then press Run.`);
}

// The privacy-utility view (its own worker, loaded when the view is first shown).
initSweepView();
