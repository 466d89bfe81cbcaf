// SPDX-License-Identifier: Apache-2.0
// A run's configuration: what the form shows, what the URL carries, and the spec JSON the C++
// engine receives (the shape of `dpadmm run --print-config` in the horizontal setting, of
// `dpadmm sharing --print-config` in the vertical one).
import { ALGORITHMS, algorithmByName, CHOICES, SHARING_ALGORITHMS, sharingAlgorithmByName } from './algorithms';

/** horizontal: consensus, nodes hold different samples; vertical: sharing, parties hold different features. */
export type Mode = 'horizontal' | 'vertical';

export type DatasetKind = 'twonorm' | 'ringnorm' | 'sparse' | 'file';
export const TOPOLOGIES = ['random', 'ring', 'star', 'complete', 'grid'] as const;
export type Topology = (typeof TOPOLOGIES)[number];
export const LOSSES = ['logistic', 'smooth_hinge'] as const;
export type LossName = (typeof LOSSES)[number];

export interface RunConfig {
  mode: Mode;
  dataset: DatasetKind;
  rows: number;
  dims: number;
  /** For dataset 'file': the file's name, its format and (CSV) whether line 1 is a header. */
  fileName: string;
  fileFormat: 'libsvm' | 'csv';
  csvHeader: boolean;
  topology: Topology;
  nodes: number;
  edges: number;
  algorithm: string;
  params: Record<string, number>;
  /** The algorithm's named-value parameters (the baselines' mechanism). */
  choices: Record<string, string>;
  /**
   * Consensus runs of an algorithm that calibrates: the total ε per node (tight, δ = 10⁻⁵) the
   * run must reach; its rounds, C, ρ, η come from the epsilon policy and its noise from the
   * calibration (spec target_epsilon). 0 = off: the fields as given.
   */
  targetEpsilon: number;
  loss: LossName;
  iterations: number;
  /** Consensus: stop ("converged") once model change and consensus gap are below it; 0 = never. */
  tolerance: number;
  seed: number;
  /**
   * Simulation mode when set: every node's noise key is derived from it, so the run is
   * reproducible and NOT private. null (the default) = private mode: keys from
   * crypto.getRandomValues, never stored or shared.
   */
  noiseSeed: number | null;
  /**
   * Consensus runs: threads of the TBB engine (threaded build only); 1 = the serial engine.
   * Every count gives the same bits, so it stays out of share links.
   */
  threads: number;
  /** Vertical setting (ADMM sharing): parties, the feature split, algorithm and epochs. */
  parties: number;
  /** Features per party in column order, e.g. "120,80"; "" = an even split. */
  partyFeatures: string;
  sharingAlgorithm: string;
  sharingParams: Record<string, number>;
  epochs: number;
}

export const DEFAULT_DIMS: Record<Exclude<DatasetKind, 'file'>, number> = {
  twonorm: 20, ringnorm: 20, sparse: 200,
};

/** The data each setting starts from (the library's defaults: RunSpec::Defaults of each family). */
export const MODE_DATA: Record<Mode, { dataset: Exclude<DatasetKind, 'file'>; rows: number; dims: number }> = {
  horizontal: { dataset: 'twonorm', rows: 7400, dims: 20 },
  vertical: { dataset: 'sparse', rows: 2000, dims: 200 },
};

export function defaultConfig(mode: Mode = 'horizontal'): RunConfig {
  return {
    mode, ...MODE_DATA[mode],
    fileName: '', fileFormat: 'libsvm', csvHeader: false,
    topology: 'random', nodes: 10, edges: 13,
    algorithm: 'admm', params: { ...ALGORITHMS[0].params }, choices: {}, targetEpsilon: 0,
    loss: 'logistic', iterations: 100, tolerance: 0, seed: 1, noiseSeed: null, threads: 1,
    parties: 2, partyFeatures: '', sharingAlgorithm: 'admm',
    sharingParams: { ...SHARING_ALGORITHMS[0].params }, epochs: 20,
  };
}

/** "120, 80" -> [120, 80]; "" -> [] (even split). Non-numbers are kept as NaN for the engine to reject. */
export function parsePartyFeatures(text: string): number[] {
  const t = text.trim();
  return t === '' ? [] : t.split(/[\s,;]+/).filter((x) => x !== '').map(Number);
}

/** Largest and smallest edge counts of a connected simple graph on n nodes. */
export function edgeRange(nodes: number): [number, number] {
  return [nodes - 1, (nodes * (nodes - 1)) / 2];
}

/** The name under which an uploaded file is stored in the module's in-memory file system. */
export function storedFileName(name: string): string {
  const cleaned = name.replace(/[^A-Za-z0-9._-]/g, '_').replace(/^\.+/, '_');
  return cleaned === '' ? 'upload' : cleaned;
}

// AlgorithmSpec's fields shared by the consensus family; every other parameter belongs to the
// algorithm's own struct, algorithm.<name> (spec schema 2).
const SHARED_ALGORITHM_FIELDS = new Set(['C', 'rho', 'rho_per_node', 'eta', 'random_start', 'weighting', 'node_eta', 'privacy_budget']);
// The page's parameter keys that the spec names differently.
const PARAMETER_NAMES: Record<string, string> = { pdml_R: 'R', pdml_V: 'V', pdml_decay: 'decay' };

function algorithmObject(name: string, params: Record<string, unknown>, shared: Set<string>): Record<string, unknown> {
  const algorithm: Record<string, unknown> = { name };
  const own: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(params)) {
    if (shared.has(key)) algorithm[key] = value;
    else own[PARAMETER_NAMES[key] ?? key] = value;
  }
  if (Object.keys(own).length > 0) algorithm[name] = own;
  return algorithm;
}

function dataObject(c: RunConfig): Record<string, unknown> {
  return c.dataset === 'file'
    ? { source: c.fileFormat, train_path: storedFileName(c.fileName),
        ...(c.fileFormat === 'csv' ? { has_header: c.csvHeader } : {}) }
    : { source: c.dataset, rows: c.rows, dims: c.dims };
}

/** The spec (schema 2, as `dpadmm run --config` reads it) of a run of either family. */
export function toSpec(c: RunConfig): Record<string, unknown> {
  if (c.mode === 'vertical') return toSharingSpec(c);
  const graph: Record<string, unknown> = { topology: c.topology, nodes: c.nodes };
  if (c.topology === 'random') graph.edges = c.edges;
  return {
    schema: 2,
    data: dataObject(c),
    graph,
    loss: { kind: c.loss },
    algorithm: algorithmObject(c.algorithm, { ...c.params, ...c.choices }, SHARED_ALGORITHM_FIELDS),
    iterations: c.iterations,
    ...(targetOf(c) > 0 ? { target_epsilon: targetOf(c) } : {}),
    ...(c.tolerance > 0 ? { tolerance: c.tolerance } : {}),
    seed: c.seed,
    ...noiseSeedField(c),
    ...(c.threads > 1 ? { engine: 'tbb', threads: c.threads } : {}),
  };
}

/** The run's target ε: the field's value for an algorithm that calibrates, else 0. */
export function targetOf(c: RunConfig): number {
  return c.mode === 'horizontal' && algorithmByName(c.algorithm).calibrates ? c.targetEpsilon : 0;
}

/** The label every output of a run carries (the same text as the library's NoiseLabel). */
export const SIMULATION_LABEL = 'simulation: noise reproducible from the seed';
export const PRIVATE_LABEL = 'private: noise keys from the operating system, not stored';

/** {noise_seed} in simulation mode, nothing in private mode (absent = private). */
function noiseSeedField(c: RunConfig): Record<string, unknown> {
  return c.noiseSeed === null ? {} : { noise_seed: c.noiseSeed };
}

/** "" -> null (private mode); a non-negative integer -> that noise seed. */
export function parseNoiseSeed(text: string): number | null {
  const t = text.trim();
  if (t === '') return null;
  const v = Number(t);
  return Number.isInteger(v) && v >= 0 ? v : null;
}

/** The spec of a vertical run: algorithm "sharing" (ADMM sharing, dp on or off) or "sgd". */
export function toSharingSpec(c: RunConfig): Record<string, unknown> {
  const algorithm = sharingAlgorithmByName(c.sharingAlgorithm);
  const name = algorithm.spec.algorithm === 'sgd' ? 'sgd' : 'sharing';
  const params: Record<string, unknown> = { parties: c.parties, ...c.sharingParams };
  if (name === 'sharing') params.dp = algorithm.spec.dp;
  const split = parsePartyFeatures(c.partyFeatures);
  if (split.length > 0) params.party_features = split;
  return {
    schema: 2,
    data: dataObject(c),
    algorithm: algorithmObject(name, params, new Set()),
    iterations: c.epochs,
    seed: c.seed,
    ...noiseSeedField(c),
  };
}

// URL: ?data=twonorm&rows=7400&dims=20&topology=random&nodes=10&edges=13&algorithm=dvp
//      &eta=10&alpha=0.5&...&loss=logistic&iterations=100&seed=1
// Vertical: ?mode=vertical&data=sparse&rows=2000&dims=200&parties=2&split=120,80
//      &algorithm=dp_admm&lambda=0.0001&rho=0.0005&epsilon=1&...&epochs=20&seed=1
export function toQuery(c: RunConfig): string {
  const q = new URLSearchParams();
  if (c.mode === 'vertical') q.set('mode', 'vertical');
  q.set('data', c.dataset);
  if (c.dataset === 'file') {
    q.set('file', c.fileName);
    q.set('format', c.fileFormat);
    if (c.fileFormat === 'csv') q.set('header', c.csvHeader ? '1' : '0');
  } else {
    q.set('rows', String(c.rows));
    q.set('dims', String(c.dims));
  }
  if (c.mode === 'vertical') {
    q.set('parties', String(c.parties));
    if (c.partyFeatures.trim() !== '') q.set('split', parsePartyFeatures(c.partyFeatures).join(','));
    q.set('algorithm', c.sharingAlgorithm);
    for (const [k, v] of Object.entries(c.sharingParams)) q.set(k, String(v));
    q.set('epochs', String(c.epochs));
    q.set('seed', String(c.seed));
    // A shared link carries a noise seed only in simulation mode (private keys are never shared).
    if (c.noiseSeed !== null) q.set('noise_seed', String(c.noiseSeed));
    return q.toString();
  }
  q.set('topology', c.topology);
  q.set('nodes', String(c.nodes));
  if (c.topology === 'random') q.set('edges', String(c.edges));
  q.set('algorithm', c.algorithm);
  for (const [k, v] of Object.entries(c.params)) q.set(k, String(v));
  for (const [k, v] of Object.entries(c.choices)) q.set(k, v);
  if (targetOf(c) > 0) q.set('target_epsilon', String(c.targetEpsilon));
  q.set('loss', c.loss);
  q.set('iterations', String(c.iterations));
  if (c.tolerance > 0) q.set('tolerance', String(c.tolerance));
  q.set('seed', String(c.seed));
  if (c.noiseSeed !== null) q.set('noise_seed', String(c.noiseSeed));
  return q.toString();
}

/** The configuration a URL describes, or null if it carries no run. Unknown keys are ignored. */
export function fromQuery(search: string): RunConfig | null {
  const q = new URLSearchParams(search);
  if (!q.has('algorithm')) return null;
  const c = defaultConfig(q.get('mode') === 'vertical' ? 'vertical' : 'horizontal');
  const num = (key: string, fallback: number) => {
    const v = q.get(key);
    return v !== null && v.trim() !== '' && Number.isFinite(Number(v)) ? Number(v) : fallback;
  };
  const data = q.get('data');
  if (data === 'twonorm' || data === 'ringnorm' || data === 'sparse' || data === 'file') c.dataset = data;
  c.rows = num('rows', c.rows);
  c.dims = c.dataset === 'file' ? c.dims : num('dims', DEFAULT_DIMS[c.dataset]);
  c.fileName = q.get('file') ?? '';
  c.fileFormat = q.get('format') === 'csv' ? 'csv' : 'libsvm';
  c.csvHeader = q.get('header') === '1';
  c.seed = num('seed', c.seed);
  c.noiseSeed = parseNoiseSeed(q.get('noise_seed') ?? '');
  if (c.mode === 'vertical') {
    c.parties = num('parties', c.parties);
    c.partyFeatures = q.get('split') ?? '';
    const algorithm = sharingAlgorithmByName(q.get('algorithm') ?? 'admm');
    c.sharingAlgorithm = algorithm.name;
    c.sharingParams = {};
    for (const [k, v] of Object.entries(algorithm.params)) c.sharingParams[k] = num(k, v);
    c.epochs = num('epochs', c.epochs);
    return c;
  }
  const topology = q.get('topology') as Topology | null;
  if (topology && (TOPOLOGIES as readonly string[]).includes(topology)) c.topology = topology;
  c.nodes = num('nodes', c.nodes);
  c.edges = num('edges', edgeRange(c.nodes)[0] + Math.floor(c.nodes / 3));
  const algorithm = algorithmByName(q.get('algorithm') ?? 'admm');
  c.algorithm = algorithm.name;
  c.params = {};
  for (const [k, v] of Object.entries(algorithm.params)) c.params[k] = num(k, v);
  c.choices = {};
  for (const [k, v] of Object.entries(algorithm.choices ?? {})) {
    const given = q.get(k);
    c.choices[k] = CHOICES[k].options.some((o) => o.value === given) ? given! : v;
  }
  c.targetEpsilon = num('target_epsilon', 0);
  const loss = q.get('loss') as LossName | null;
  if (loss && (LOSSES as readonly string[]).includes(loss)) c.loss = loss;
  c.iterations = num('iterations', c.iterations);
  c.tolerance = num('tolerance', c.tolerance);
  c.seed = num('seed', c.seed);
  return c;
}

export function describe(c: RunConfig): string {
  if (c.mode === 'vertical') {
    const data = c.dataset === 'file' ? c.fileName : c.dataset;
    const total = c.sharingParams.total_epsilon ?? c.sharingParams.epsilon;
    const eps = sharingAlgorithmByName(c.sharingAlgorithm).private && total !== undefined ? ` ε=${total}` : '';
    const split = c.partyFeatures.trim() === '' ? '' : ` (${parsePartyFeatures(c.partyFeatures).join('/')})`;
    return `sharing ${c.sharingAlgorithm}${eps} · ${data} · ${c.parties} parties${split} · seed ${c.seed}${simulation(c)}`;
  }
  const data = c.dataset === 'file' ? c.fileName : c.dataset;
  const mechanism = c.choices.mechanism === 'gaussian' ? ` (Gaussian, δ=${c.params.delta})` : '';
  const privacy = targetOf(c) > 0 ? ` target ε=${c.targetEpsilon}`
    : 'alpha' in c.params && c.params.alpha > 0 ? ` α=${c.params.alpha}`
    : 'epsilon' in c.params ? ` ε=${c.params.epsilon}${mechanism}` : '';
  return `${c.algorithm}${privacy} · ${data} · ${c.topology} ${c.nodes} · seed ${c.seed}${simulation(c)}`;
}

function simulation(c: RunConfig): string {
  return c.noiseSeed === null ? '' : ` · noise seed ${c.noiseSeed} (simulation)`;
}
