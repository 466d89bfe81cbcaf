// SPDX-License-Identifier: Apache-2.0
// The privacy-utility view: test accuracy against the total epsilon per node for chosen private
// algorithms (tools/sweep.h, the same core as `dpadmm sweep`), run in its own worker with
// progress and Cancel, drawn on a log epsilon axis with 95% bands over the seeds, beside the
// baselines at the same epsilons (local, average, central: dashed curves), the non-private ADMM
// line, the centralized optimum and the majority-class rate; a table of the numbers, the CSV
// (`dpadmm sweep`'s sweep.csv) and a share link.
import uPlot from 'uplot';
import { formatNumber, PALETTE } from './charts';
import { applyRule, check, SWEEP_LIMITS } from './limits';
import {
  defaultSweepConfig, epsilonsOf, fromSweepQuery, nativeCommand, SWEEP_ALGORITHMS,
  type SweepConfig, toSweepJson, toSweepQuery,
} from './sweep_config';
import type { FromSweepWorker, SweepResult, SweepStat } from './sweep_protocol';

const $ = <T extends HTMLElement = HTMLElement>(id: string) => document.getElementById(id) as T;
const field = (id: string) => $<HTMLInputElement>(id);

/** Reference lines: colour and dash (the palette's black, wine and orange). */
const REFERENCES = [
  { key: 'admm', label: 'ADMM (non-private)', colour: PALETTE[4], dash: [8, 4] },
  { key: 'centralized', label: 'centralized optimum', colour: PALETTE[7], dash: [3, 3] },
  { key: 'majority', label: 'majority class (learns nothing)', colour: PALETTE[5], dash: [1, 4] },
] as const;

type Phase = 'loading' | 'idle' | 'running' | 'cancelling' | 'done' | 'cancelled' | 'error';

let config: SweepConfig = defaultSweepConfig();
let worker: Worker | null = null;
let ready = false;
let phase: Phase = 'loading';
let id = 0;
let cancel: Int32Array | null = null;
let result: SweepResult | null = null;
let plot: uPlot | null = null;
let pendingRun = false;

/** 1e-5, not 0.00001. */
const deltaText = (d: number) => (d < 1e-3 ? d.toExponential().replace('e-', 'e−') : String(d));
const pct = (v: number | null | undefined) => (v == null ? '–' : (100 * v).toFixed(2));
/** The baselines: dashed curves in colours of their own (sky blue, grey, dark green), apart
 * from the private algorithms' solid ones (PALETTE[0..3]) and the flat reference lines. */
const BASELINE_STYLE: Record<string, { colour: string; dash: number[] }> = {
  local: { colour: PALETTE[6], dash: [6, 3] },
  average: { colour: '#6b6b6b', dash: [6, 3] },
  central: { colour: '#117733', dash: [6, 3] },
};
const colourOf = (algorithm: string) => BASELINE_STYLE[algorithm]?.colour ??
  PALETTE[Math.max(0, SWEEP_ALGORITHMS.findIndex((a) => a.name === algorithm)) % PALETTE.length];
const labelOf = (algorithm: string) => SWEEP_ALGORITHMS.find((a) => a.name === algorithm)?.label ?? algorithm;
/** The table's name of an algorithm: central says that it needs a trusted curator. */
const rowName = (algorithm: string) => (algorithm === 'central' ? 'central (trusted curator)' : algorithm);

// --- form ------------------------------------------------------------------------------------

const NUMBER_FIELDS: [string, keyof SweepConfig][] = [
  ['sw-rows', 'rows'], ['sw-nodes', 'nodes'], ['sw-rounds', 'rounds'], ['sw-seed', 'seed'],
  ['sw-eps-min', 'epsMin'], ['sw-eps-max', 'epsMax'], ['sw-eps-steps', 'epsSteps'], ['sw-seeds', 'seeds'],
];

function fillAlgorithms() {
  for (const a of SWEEP_ALGORITHMS) {
    const box = $(a.baseline ? 'sw-baselines' : 'sw-algorithms');
    const label = document.createElement('label');
    label.className = 'check';
    const input = document.createElement('input');
    input.type = 'checkbox';
    input.id = `sw-alg-${a.name}`;
    input.value = a.name;
    label.append(input, ` ${a.label}`);
    box.append(label);
  }
}

function showConfig() {
  $<HTMLSelectElement>('sw-data').value = config.dataset;
  for (const [id, key] of NUMBER_FIELDS) field(id).value = String(config[key]);
  for (const a of SWEEP_ALGORITHMS) field(`sw-alg-${a.name}`).checked = config.algorithms.includes(a.name);
  for (const [id] of NUMBER_FIELDS) validate(field(id));
  showEpsilons();
}

/** The inline message of a field (after its label). */
function messageOf(input: HTMLElement, id: string): HTMLElement {
  let box = document.getElementById(id);
  if (!box) {
    box = document.createElement('span');
    box.id = id;
    box.className = 'field-error';
    box.hidden = true;
    (input.closest('label') ?? input).after(box);
    const described = input.getAttribute('aria-describedby');
    input.setAttribute('aria-describedby', described ? `${described} ${id}` : id);
  }
  return box;
}

function setProblem(input: HTMLElement, id: string, problem: string): boolean {
  if (problem === '' && !document.getElementById(id)) return true;
  const box = messageOf(input, id);
  box.textContent = problem;
  box.hidden = problem === '';
  if (problem === '') input.removeAttribute('aria-invalid');
  else input.setAttribute('aria-invalid', 'true');
  return problem === '';
}

/** Checks one number field against SWEEP_LIMITS; applies its value when valid. */
function validate(input: HTMLInputElement): boolean {
  const problem = check(input.value, SWEEP_LIMITS[input.id]);
  const key = NUMBER_FIELDS.find(([id]) => id === input.id)?.[1];
  if (problem === '' && key) (config as unknown as Record<string, number>)[key] = Number(input.value);
  return setProblem(input, `${input.id}-error`, problem);
}

/** The whole form: every field, at least one algorithm, min <= max. */
function validateAll(): boolean {
  let ok = true;
  for (const [id] of NUMBER_FIELDS) ok = validate(field(id)) && ok;
  config.algorithms = SWEEP_ALGORITHMS.map((a) => a.name).filter((n) => field(`sw-alg-${n}`).checked);
  ok = setProblem($('sw-algorithms'), 'sw-algorithms-error',
                  config.algorithms.length === 0 ? 'Choose at least one algorithm.' : '') && ok;
  const rangeOk = !(config.epsMin > config.epsMax);
  ok = setProblem(field('sw-eps-max'), 'sw-eps-max-order',
                  rangeOk ? '' : 'At least the smallest ε.') && ok;
  return ok;
}

function showEpsilons() {
  const eps = epsilonsOf(config);
  $('sw-eps-list').textContent = `ε = ${eps.join(', ')} (log-spaced); ` +
    `${(eps.length * config.algorithms.length + 1) * config.seeds} runs`;
  $('sw-command').textContent = nativeCommand(config);
}

function setPhase(p: Phase, message = '') {
  phase = p;
  const busy = p === 'running' || p === 'cancelling';
  const state = $('sw-state');
  state.dataset.state = p;
  state.textContent = message || {
    loading: 'loading the engine…', idle: 'ready', running: 'running…', cancelling: 'cancelling after this run…',
    done: 'finished', cancelled: 'cancelled (the numbers so far are shown)', error: 'error',
  }[p];
  $<HTMLButtonElement>('sw-run').disabled = busy || p === 'loading';
  $<HTMLButtonElement>('sw-cancel').disabled = !busy || p === 'cancelling';
  $<HTMLButtonElement>('sw-download').disabled = result === null;
  $<HTMLButtonElement>('sw-share').disabled = busy;
  for (const el of $('sw-form').querySelectorAll('input, select')) (el as HTMLInputElement).disabled = busy;
}

function showError(message: string) {
  const box = $('sw-error');
  box.textContent = message;
  box.hidden = message === '';
}

// --- worker ----------------------------------------------------------------------------------

function newWorker() {
  worker?.terminate();
  ready = false;
  worker = new Worker(new URL('./sweep_worker.ts', import.meta.url), { type: 'module' });
  worker.onmessage = (e: MessageEvent<FromSweepWorker>) => onMessage(e.data);
  worker.onerror = (e) => {
    showError(`the sweep's worker failed: ${e.message}`);
    setPhase('error');
  };
}

function onMessage(m: FromSweepWorker) {
  if (m.type === 'ready') {
    ready = true;
    if (phase === 'loading') setPhase('idle');
    if (pendingRun) {
      pendingRun = false;
      start();
    }
    return;
  }
  if (m.id !== id && m.id !== -1) return; // a cancelled sweep's late message
  if (m.type === 'progress') {
    const bar = $<HTMLProgressElement>('sw-progress');
    bar.max = m.total;
    bar.value = m.done;
    $('sw-progress-text').textContent = `${m.done} / ${m.total} runs (last: ${m.what})`;
  } else if (m.type === 'done') {
    result = m.result;
    draw(m.result);
    setPhase(m.result.cancelled ? 'cancelled' : 'done');
  } else {
    showError(m.message);
    setPhase('error');
  }
}

function start() {
  showError('');
  if (!validateAll()) {
    showError('Fix the marked fields first.');
    return;
  }
  if (!ready) {
    pendingRun = true;
    return;
  }
  id++;
  const shared = typeof SharedArrayBuffer !== 'undefined' && crossOriginIsolated
    ? new SharedArrayBuffer(4) : null;
  cancel = shared ? new Int32Array(shared) : null;
  const bar = $<HTMLProgressElement>('sw-progress');
  bar.value = 0;
  $('sw-progress-text').textContent = 'starting…';
  worker!.postMessage({ type: 'start', id, config: toSweepJson(config), cancel: shared });
  setPhase('running');
}

function stop() {
  if (cancel) {
    Atomics.store(cancel, 0, 1); // the sweep ends after the run in progress, keeping the results
    setPhase('cancelling');
  } else {
    newWorker(); // no shared memory: end the worker (the finished runs are lost)
    setPhase('cancelled', 'cancelled');
  }
}

// --- chart and table -------------------------------------------------------------------------

/** The chart's data: x = the epsilons; per algorithm mean, low, high; per reference its mean. */
function draw(r: SweepResult) {
  $('sw-results').hidden = false; // before the layout read of the chart's width
  const host = $('sw-chart');
  const algorithms = [...new Set(r.cells.map((c) => c.algorithm))];
  const x = [...new Set(r.cells.map((c) => c.epsilon))].sort((a, b) => a - b);
  const value = (_u: uPlot, v: number | null) => (v == null ? '–' : `${formatNumber(v)} %`);
  const series: uPlot.Series[] = [{ label: 'total ε per node' }];
  const data: (number | null)[][] = [x];
  const bands: uPlot.Band[] = [];
  const legend: { label: string; colour: string; dash: number[] | null; band: boolean }[] = [];
  for (const a of algorithms) {
    const colour = colourOf(a);
    const at = (stat: (s: SweepStat) => number | null) => x.map((e) => {
      const c = r.cells.find((cell) => cell.algorithm === a && cell.epsilon === e);
      if (!c || c.accuracy.values.length === 0) return null;
      const v = stat(c.accuracy);
      return v == null ? null : 100 * v;
    });
    const mean = series.length;
    const dash = BASELINE_STYLE[a]?.dash;
    series.push({ label: a, stroke: colour, width: 2, ...(dash ? { dash: [...dash] } : {}), value,
                  points: { show: true, size: 7, fill: colour } });
    data.push(at((s) => s.mean));
    series.push({ label: `${a} high`, stroke: 'transparent', width: 0, value, points: { show: false } });
    data.push(at((s) => s.high));
    series.push({ label: `${a} low`, stroke: 'transparent', width: 0, value, points: { show: false } });
    data.push(at((s) => s.low));
    bands.push({ series: [mean + 1, mean + 2], fill: `${colour}33` });
    legend.push({ label: labelOf(a), colour, dash: dash ?? null, band: r.seeds > 1 });
  }
  for (const ref of REFERENCES) {
    const stat = r[ref.key];
    if (!stat || stat.values.length === 0) continue;
    series.push({ label: ref.label, stroke: ref.colour, width: 2, dash: [...ref.dash], value, points: { show: false } });
    data.push(x.map(() => 100 * stat.mean));
    legend.push({ label: `${ref.label}: ${pct(stat.mean)} %`, colour: ref.colour, dash: [...ref.dash], band: false });
  }
  plot?.destroy();
  host.replaceChildren();
  const axisFont = '12px system-ui, sans-serif';
  const width = Math.max(280, Math.min(900, host.clientWidth - 8));
  const xLabel = `total ε per node (tight, δ = ${deltaText(r.delta)}; log scale)`;
  const yLabel = 'test accuracy (%)';
  host.dataset.xLabel = xLabel; // the axes are drawn on the canvas: the labels also here
  host.dataset.yLabel = yLabel;
  host.dataset.xScale = 'log';
  plot = new uPlot({
    title: `Test accuracy against privacy on ${r.dataset}`,
    width,
    height: 320,
    scales: { x: { time: false, distr: 3 }, y: { range: [0, 100] } },
    axes: [
      { label: xLabel, labelSize: 20, font: axisFont, labelFont: axisFont, stroke: '#374151',
        values: (_u, vals) => vals.map((v) => (v == null ? '' : formatNumber(v))) },
      { label: yLabel, labelSize: 20, size: 50, font: axisFont, labelFont: axisFont, stroke: '#374151' },
    ],
    series,
    bands,
    legend: { show: false },
    cursor: { drag: { x: false, y: false } },
  }, data as uPlot.AlignedData, host);
  host.dataset.series = String(algorithms.length);
  host.dataset.baselines = String(algorithms.filter((a) => a in BASELINE_STYLE).length);
  host.dataset.points = String(x.length);
  host.setAttribute('aria-label', `Test accuracy (%) against total ε per node (log scale) for ${algorithms.join(', ')}; the table below lists the numbers`);
  const keyBox = $('sw-legend');
  keyBox.replaceChildren(...legend.map((l) => {
    const item = document.createElement('li');
    const swatch = document.createElement('span');
    swatch.className = 'sw-swatch';
    swatch.style.borderTopColor = l.colour;
    swatch.style.borderTopStyle = l.dash ? 'dashed' : 'solid';
    if (l.band) swatch.style.background = `${l.colour}33`;
    item.append(swatch, l.label + (l.band ? ' (band: 95% interval over seeds)' : ''));
    return item;
  }));
  $('sw-noise').textContent = r.noise;
  $('sw-noise').hidden = false;
  drawTable(r);
}

function drawTable(r: SweepResult) {
  const body = $<HTMLTableSectionElement>('sw-table-body');
  const row = (cells: string[], key: string) => {
    const tr = document.createElement('tr');
    tr.dataset.key = key;
    cells.forEach((text, k) => {
      const td = document.createElement(k === 0 ? 'th' : 'td');
      if (k === 0) td.setAttribute('scope', 'row');
      td.textContent = text;
      tr.append(td);
    });
    return tr;
  };
  const band = (s: SweepStat) => (s.low == null ? '–' : `${pct(s.low)} – ${pct(s.high)}`);
  const perSeed = (s: SweepStat) => s.values.map((v) => pct(v)).join('; ');
  const rows: HTMLTableRowElement[] = [];
  for (const c of r.cells) {
    if (c.accuracy.values.length === 0) continue;
    const achieved = c.achieved_epsilon.length ? formatNumber(Math.max(...c.achieved_epsilon)) : '–';
    rows.push(row([rowName(c.algorithm), String(c.epsilon), pct(c.accuracy.mean), band(c.accuracy), perSeed(c.accuracy),
                   `${c.knob.replace(/^algorithm\./, '')} = ${[...new Set(c.knob_values.map(formatNumber))].join('; ')}`,
                   achieved], `${c.algorithm}@${c.epsilon}`));
  }
  for (const ref of REFERENCES) {
    const s = r[ref.key];
    if (s && s.values.length) rows.push(row([ref.label, '–', pct(s.mean), band(s), perSeed(s), '–', '–'], ref.key));
  }
  body.replaceChildren(...rows);
  $('sw-table-caption').textContent =
    `Test accuracy (%) on ${r.dataset}, mean and ${r.band} over ${r.seeds} seed${r.seeds === 1 ? '' : 's'}; ` +
    `ε is the tight total per node at δ = ${deltaText(r.delta)}. ${r.noise}.`;
}

function download() {
  if (!result) return;
  const a = document.createElement('a');
  a.href = URL.createObjectURL(new Blob([result.csv], { type: 'text/csv' }));
  a.download = 'sweep.csv';
  a.click();
  setTimeout(() => URL.revokeObjectURL(a.href), 1000);
}

async function share() {
  if (!validateAll()) {
    showError('Fix the marked fields first.');
    return;
  }
  const url = `${location.origin}${location.pathname}?${toSweepQuery(config)}`;
  const out = field('sw-share-url');
  out.value = url;
  out.hidden = false;
  try {
    await navigator.clipboard.writeText(url);
    $('sw-share-note').textContent = 'Link copied.';
  } catch {
    $('sw-share-note').textContent = 'Copy the link from the field.';
  }
}

// --- tabs ------------------------------------------------------------------------------------

/** Shows a view ('run' | 'sweep'): ARIA tabs, arrow keys move between them. */
export function showView(view: 'run' | 'sweep', focus = false) {
  for (const v of ['run', 'sweep'] as const) {
    const tab = $(`tab-${v}`);
    const on = v === view;
    tab.setAttribute('aria-selected', String(on));
    tab.tabIndex = on ? 0 : -1;
    $(`${v}-view`).hidden = !on;
    if (on && focus) tab.focus();
  }
  document.body.dataset.view = view;
  if (view === 'sweep' && worker === null) newWorker(); // the module loads on first use
}

function wireTabs() {
  for (const v of ['run', 'sweep'] as const) {
    const tab = $(`tab-${v}`);
    tab.addEventListener('click', () => showView(v));
    tab.addEventListener('keydown', (e) => {
      if (e.key === 'ArrowRight' || e.key === 'ArrowLeft' || e.key === 'Home' || e.key === 'End') {
        e.preventDefault();
        const next = e.key === 'Home' ? 'run' : e.key === 'End' ? 'sweep' : v === 'run' ? 'sweep' : 'run';
        showView(next, true);
      }
    });
  }
}

export function initSweepView() {
  fillAlgorithms();
  for (const [id] of NUMBER_FIELDS) applyRule(field(id), SWEEP_LIMITS[id]);
  const shared = fromSweepQuery(location.search);
  if (shared) config = shared;
  showConfig();
  $('sw-form').addEventListener('input', (e) => {
    const t = e.target as HTMLInputElement;
    if (t.id === 'sw-data') config.dataset = t.value === 'ringnorm' ? 'ringnorm' : 'twonorm';
    else if (SWEEP_LIMITS[t.id]) validate(t);
    validateAll();
    showEpsilons();
  });
  $('sw-form').addEventListener('submit', (e) => {
    e.preventDefault();
    start();
  });
  $('sw-cancel').addEventListener('click', stop);
  $('sw-download').addEventListener('click', download);
  $('sw-share').addEventListener('click', () => void share());
  wireTabs();
  new ResizeObserver(() => {
    const width = Math.max(280, Math.min(900, $('sw-chart').clientWidth - 8));
    if (plot && Math.abs(plot.width - width) > 4) plot.setSize({ width, height: 320 });
  }).observe($('sw-stage'));
  setPhase('loading');
  if (shared) {
    showView('sweep');
    pendingRun = true; // a shared link runs its sweep once the engine is ready
  } else {
    showView('run');
  }
}
