// A run's configuration: what the form shows, what the URL carries, and the spec JSON the C++
// engine receives (the same shape as `dpadmm run --print-config`).
import { ALGORITHMS, algorithmByName, PARAMS } from './algorithms';

export type DatasetKind = 'twonorm' | 'ringnorm' | 'sparse' | 'file';
export const TOPOLOGIES = ['random', 'ring', 'star', 'complete', 'grid'] as const;
export type Topology = (typeof TOPOLOGIES)[number];
export const LOSSES = ['logistic', 'smooth_hinge'] as const;
export type LossName = (typeof LOSSES)[number];

export interface RunConfig {
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
  loss: LossName;
  iterations: number;
  seed: number;
}

export const DEFAULT_DIMS: Record<Exclude<DatasetKind, 'file'>, number> = {
  twonorm: 20, ringnorm: 20, sparse: 200,
};

export function defaultConfig(): RunConfig {
  return {
    dataset: 'twonorm', rows: 7400, dims: 20,
    fileName: '', fileFormat: 'libsvm', csvHeader: false,
    topology: 'random', nodes: 10, edges: 13,
    algorithm: 'admm', params: { ...ALGORITHMS[0].params },
    loss: 'logistic', iterations: 100, seed: 1,
  };
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

export function toSpec(c: RunConfig): Record<string, unknown> {
  const data: Record<string, unknown> =
    c.dataset === 'file'
      ? { source: c.fileFormat, train_path: storedFileName(c.fileName),
          ...(c.fileFormat === 'csv' ? { has_header: c.csvHeader } : {}) }
      : { source: c.dataset, rows: c.rows, dims: c.dims };
  const graph: Record<string, unknown> = { topology: c.topology, nodes: c.nodes };
  if (c.topology === 'random') graph.edges = c.edges;
  return {
    data,
    graph,
    loss: { kind: c.loss },
    algorithm: { name: c.algorithm, ...c.params },
    iterations: c.iterations,
    seed: c.seed,
  };
}

// URL: ?data=twonorm&rows=7400&dims=20&topology=random&nodes=10&edges=13&algorithm=dvp
//      &eta=10&alpha=0.5&...&loss=logistic&iterations=100&seed=1
export function toQuery(c: RunConfig): string {
  const q = new URLSearchParams();
  q.set('data', c.dataset);
  if (c.dataset === 'file') {
    q.set('file', c.fileName);
    q.set('format', c.fileFormat);
    if (c.fileFormat === 'csv') q.set('header', c.csvHeader ? '1' : '0');
  } else {
    q.set('rows', String(c.rows));
    q.set('dims', String(c.dims));
  }
  q.set('topology', c.topology);
  q.set('nodes', String(c.nodes));
  if (c.topology === 'random') q.set('edges', String(c.edges));
  q.set('algorithm', c.algorithm);
  for (const [k, v] of Object.entries(c.params)) q.set(k, String(v));
  q.set('loss', c.loss);
  q.set('iterations', String(c.iterations));
  q.set('seed', String(c.seed));
  return q.toString();
}

/** The configuration a URL describes, or null if it carries no run. Unknown keys are ignored. */
export function fromQuery(search: string): RunConfig | null {
  const q = new URLSearchParams(search);
  if (!q.has('algorithm')) return null;
  const c = defaultConfig();
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
  const topology = q.get('topology') as Topology | null;
  if (topology && (TOPOLOGIES as readonly string[]).includes(topology)) c.topology = topology;
  c.nodes = num('nodes', c.nodes);
  c.edges = num('edges', edgeRange(c.nodes)[0] + Math.floor(c.nodes / 3));
  const algorithm = algorithmByName(q.get('algorithm') ?? 'admm');
  c.algorithm = algorithm.name;
  c.params = {};
  for (const [k, v] of Object.entries(algorithm.params)) c.params[k] = num(k, v);
  const loss = q.get('loss') as LossName | null;
  if (loss && (LOSSES as readonly string[]).includes(loss)) c.loss = loss;
  c.iterations = num('iterations', c.iterations);
  c.seed = num('seed', c.seed);
  return c;
}

export function describe(c: RunConfig): string {
  const data = c.dataset === 'file' ? c.fileName : c.dataset;
  const privacy = PARAMS.alpha && 'alpha' in c.params && c.params.alpha > 0 ? ` α=${c.params.alpha}` : '';
  return `${c.algorithm}${privacy} · ${data} · ${c.topology} ${c.nodes} · seed ${c.seed}`;
}
