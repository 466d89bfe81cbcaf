// Messages between the page and the engine's Web Worker.

export interface RoundMetrics {
  round: number;
  seconds: number;
  train_loss: number;
  objective: number;
  test_error: number | null;
  consensus_gap: number;
  distance_to_optimum: number | null;
  privacy_loss: number;
  privacy_round: number;
  node_privacy: number[];
  node_noise: number[];
  node_distance: number[];
}

export interface GraphShape {
  nodes: number;
  edges: [number, number][];
  rows_per_node: number[];
}

export interface RunInfo {
  dataset: string;
  train_rows: number;
  test_rows: number;
  features: number;
  nodes: number;
  edges: number;
  algorithm: string;
  optimum_test_error: number | null;
  privacy_guarantee: string;
  [key: string]: unknown;
}

export interface RunSummary {
  outcome: 'completed' | 'converged' | 'cancelled' | 'diverged' | 'budget exhausted';
  message: string;
  rounds: number;
  seconds: number;
  final: RoundMetrics;
}

export interface UploadedFile {
  name: string;
  text: string;
}

/** Control words in the shared Int32Array (when the page is cross-origin isolated). */
export const CTRL_STATE = 0; // RUNNING | PAUSED | STOPPING
export const CTRL_STEPS = 1; // rounds the worker may still run while paused
export const CTRL_DELAY = 2; // milliseconds to wait after each round
export const RUNNING = 0;
export const PAUSED = 1;
export const STOPPING = 2;

export type ToWorker = {
  type: 'start';
  id: number;
  spec: Record<string, unknown>;
  files: UploadedFile[];
  control: SharedArrayBuffer | null;
};

export type FromWorker =
  | { type: 'ready'; csvHeader: string }
  | { type: 'started'; id: number; info: RunInfo; graph: GraphShape; specJson: string }
  | { type: 'round'; id: number; metrics: RoundMetrics; csv: string }
  | { type: 'done'; id: number; summary: RunSummary }
  | { type: 'error'; id: number; message: string };
