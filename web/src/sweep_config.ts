// SPDX-License-Identifier: Apache-2.0
// The privacy-utility view's configuration: form fields <-> sweep config JSON (wasm runSweep,
// the same base spec `dpadmm sweep --config` reads) <-> URL query (view=sweep&...).
import type { SweepConfigJson } from './sweep_protocol';

/**
 * The algorithms whose noise the sweep calibrates (tools/calibration.h): the private consensus
 * ADMMs, then the baselines they are compared with at the same ε (their knob is the ε of their
 * one release).
 */
export const SWEEP_ALGORITHMS: { name: string; label: string; baseline?: boolean }[] = [
  { name: 'dvp', label: 'DVP (dual variable perturbation)' },
  { name: 'pvp', label: 'PVP (primal variable perturbation)' },
  { name: 'madmm', label: 'M-ADMM (Gaussian, moments accountant)' },
  { name: 'private_mradmm', label: 'private MR-ADMM' },
  { name: 'local', label: 'local: every node alone (the floor)', baseline: true },
  { name: 'average', label: 'average: local releases, averaged by gossip', baseline: true },
  { name: 'central', label: 'central: one curator every party must trust (the ceiling)', baseline: true },
];

export const BASELINES = SWEEP_ALGORITHMS.filter((a) => a.baseline).map((a) => a.name);

export const SWEEP_DELTA = 1e-5;

export interface SweepConfig {
  dataset: 'twonorm' | 'ringnorm';
  rows: number;
  nodes: number;
  rounds: number;
  seed: number;
  algorithms: string[];
  epsMin: number;
  epsMax: number;
  epsSteps: number;
  seeds: number;
}

export function defaultSweepConfig(): SweepConfig {
  return {
    dataset: 'twonorm', rows: 2000, nodes: 10, rounds: 100, seed: 1,
    algorithms: ['dvp', 'pvp', ...BASELINES], epsMin: 0.1, epsMax: 10, epsSteps: 5, seeds: 3,
  };
}

/**
 * `steps` log-spaced epsilons from `min` to `max` (both included), each rounded to 3 significant
 * digits so that the list can be typed into `dpadmm sweep --epsilons` as shown.
 */
export function logSpaced(min: number, max: number, steps: number): number[] {
  if (steps <= 1 || min === max) return [min];
  const out: number[] = [];
  for (let k = 0; k < steps; ++k) {
    const v = Number((min * Math.pow(max / min, k / (steps - 1))).toPrecision(3));
    if (out.at(-1) !== v) out.push(v);
  }
  return out;
}

export const epsilonsOf = (c: SweepConfig) => logSpaced(c.epsMin, c.epsMax, c.epsSteps);

/** The base spec (schema-2 JSON, as `dpadmm run --config` reads it). */
export function baseSpec(c: SweepConfig): Record<string, unknown> {
  return {
    data: { source: c.dataset, rows: c.rows }, graph: { nodes: c.nodes }, iterations: c.rounds,
    seed: c.seed,
  };
}

export function toSweepJson(c: SweepConfig): SweepConfigJson {
  return {
    base: baseSpec(c), algorithms: [...c.algorithms], epsilons: epsilonsOf(c), seeds: c.seeds,
    delta: SWEEP_DELTA,
  };
}

/** The native command that computes the same table (sweep.csv). */
export function nativeCommand(c: SweepConfig): string {
  return `dpadmm sweep --data ${c.dataset} --rows ${c.rows} --nodes ${c.nodes} ` +
    `--iterations ${c.rounds} --seed ${c.seed} --algorithms ${c.algorithms.join(',')} ` +
    `--epsilons ${epsilonsOf(c).join(',')} --seeds ${c.seeds}`;
}

export function toSweepQuery(c: SweepConfig): string {
  const q = new URLSearchParams();
  q.set('view', 'sweep');
  q.set('data', c.dataset);
  q.set('rows', String(c.rows));
  q.set('nodes', String(c.nodes));
  q.set('rounds', String(c.rounds));
  q.set('seed', String(c.seed));
  q.set('algorithms', c.algorithms.join(','));
  q.set('eps_min', String(c.epsMin));
  q.set('eps_max', String(c.epsMax));
  q.set('eps_steps', String(c.epsSteps));
  q.set('seeds', String(c.seeds));
  return q.toString();
}

/** The sweep a URL describes (view=sweep), or null. Unknown or malformed values keep defaults;
 * the form's limits check the rest before anything runs. */
export function fromSweepQuery(search: string): SweepConfig | null {
  const q = new URLSearchParams(search);
  if (q.get('view') !== 'sweep') return null;
  const c = defaultSweepConfig();
  const num = (key: string, fallback: number) => {
    const v = q.get(key);
    return v !== null && v.trim() !== '' && Number.isFinite(Number(v)) ? Number(v) : fallback;
  };
  if (q.get('data') === 'ringnorm') c.dataset = 'ringnorm';
  c.rows = num('rows', c.rows);
  c.nodes = num('nodes', c.nodes);
  c.rounds = num('rounds', c.rounds);
  c.seed = num('seed', c.seed);
  const known = new Set(SWEEP_ALGORITHMS.map((a) => a.name));
  const algorithms = q.get('algorithms');
  if (algorithms !== null) c.algorithms = algorithms.split(',').filter((a) => known.has(a));
  c.epsMin = num('eps_min', c.epsMin);
  c.epsMax = num('eps_max', c.epsMax);
  c.epsSteps = num('eps_steps', c.epsSteps);
  c.seeds = num('seeds', c.seeds);
  return c;
}
