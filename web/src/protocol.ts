// SPDX-License-Identifier: Apache-2.0
// Messages between the page and the engine's Web Worker.

/** Figures evaluated on private data (training loss, objective, distance to the optimum, ...)
 * are null in a released-only run (the default of a private algorithm in private mode): they are
 * not computed. A run that computes them anyway lists them in the info's
 * evaluation_on_private_data ("evaluation on private data, outside the guarantee"). */
export interface RoundMetrics {
  round: number;
  seconds: number;
  train_loss: number | null;
  objective: number | null;
  test_error: number | null;
  consensus_gap: number;
  distance_to_optimum: number | null;
  privacy_loss: number;
  privacy_round: number;
  /** The tight epsilon of the run so far (max over nodes, at the run's delta); null when the run
   * releases nothing private (trace column tight_epsilon, empty there). */
  tight_epsilon?: number | null;
  /** Per-node vectors: in the summary's final round only (rounds reach the page without them). */
  node_privacy?: number[];
  node_noise?: number[];
  node_distance?: number[];
}

/** One round (iteration / epoch) of an ADMM sharing / SGD run (vertical family): the trace's
 * columns of that family. */
export interface EpochMetrics {
  round: number;
  seconds: number;
  objective: number | null;
  train_loss: number | null;
  test_loss: number | null;
  test_error: number | null;
  primal_residual: number | null;
  max_x_norm: number | null;
  y_norm: number | null;
  epsilon_iteration: number | null;
  delta_iteration: number;
  /** null when infinite (Corollary 1 with a huge per-iteration epsilon). */
  epsilon_total: number | null;
  delta_total: number;
}

export interface SharingBaseline {
  objective: number | null;
  test_loss: number | null;
  test_error: number | null;
}

export interface SharingInfo {
  dataset: string;
  train_rows: number;
  test_rows: number;
  features: number;
  party_features: number[];
  algorithm: string;
  dp: boolean;
  privacy_guarantee: string;
  /** Share of the majority class in the test set (null without test data). */
  test_majority_rate: number | null;
  central_baseline: SharingBaseline | null;
  local_baseline: SharingBaseline | null;
  [key: string]: unknown;
}

/** The star of ADMM sharing: node 0 = coordinator, nodes 1..M = parties. */
export interface SharingGraph {
  family: 'sharing';
  nodes: number;
  /** Flat pairs: edge k joins edges[2k] and edges[2k + 1]. */
  edges: Int32Array;
  party_features: number[];
  rows: number;
}

/** What every run's info carries about its outputs (RunInfo in run.h). */
export interface OutputsInfo {
  /** 'released-only' | 'all' */
  metrics?: string;
  /** 'global-max-norm' | 'public-bounds' | 'clip-only' | 'none' */
  scaling?: string;
  evaluation_on_private_data?: { note: string; figures: string[] };
}

export interface SharingSummary {
  outcome: 'completed' | 'cancelled' | 'diverged' | 'failed';
  message: string;
  rounds: number;
  seconds: number;
  final: EpochMetrics;
  /** Warnings a user must not miss (RunWarnings in run.h). */
  warnings?: string[];
}

export interface GraphShape {
  family: 'consensus';
  nodes: number;
  /** Flat pairs: edge k joins edges[2k] and edges[2k + 1]. */
  edges: Int32Array;
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
  /** Share of the majority class in the test set (null without test data). */
  test_majority_rate: number | null;
  privacy_guarantee: string;
  /** Private consensus runs: neighbouring relation, what is public, notion, compositions. */
  privacy_claim?: string;
  /** What test_error measures: "mean model", or (local) "mean over nodes of each node's own
   * model": local learns no consensus model, so its consensus gap is not a gap to close. */
  test_error_of?: string;
  /** The baselines (local, average, central): what the run stands for, one sentence. */
  baseline?: string;
  /** central: the guarantee holds against everyone but a curator every party must trust. */
  trusted_curator?: boolean;
  /** A target ε with the epsilon policy: the settings it chose, in words. */
  epsilon_policy?: string;
  /** A target ε: the knob the calibration set, its value and the tight (ε, δ) it gives. */
  calibration?: { knob: string; value: number; tight_epsilon: number; delta: number };
  [key: string]: unknown;
}

export interface RunSummary {
  outcome: 'completed' | 'converged' | 'cancelled' | 'diverged' | 'budget exhausted' | 'failed';
  message: string;
  rounds: number;
  seconds: number;
  final: RoundMetrics;
  /** Warnings a user must not miss (RunWarnings in run.h). */
  warnings?: string[];
  /** Private consensus runs: the tight (epsilon, delta) per node beside the paper's figure. */
  tight_privacy?: TightPrivacy;
}

export interface TightPrivacy {
  epsilon: number;
  delta: number;
  composition: string;
  node_epsilon: (number | null)[];
  /** null for PDML, whose paper gives no Phase 2 figure. */
  paper_epsilon: number | null;
  /** The paper's figure's delta (the sampler's); null for PDML. */
  paper_delta?: number | null;
  /** The part of delta the double-precision l2-Laplace sampler adds (0 for exact samplers). */
  sampler_delta?: number;
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
  /** The family of the spec's algorithm (one Session serves both; the page draws them apart). */
  kind: 'consensus' | 'sharing';
  id: number;
  spec: Record<string, unknown>;
  files: UploadedFile[];
  control: SharedArrayBuffer | null;
};

export type FromWorker =
  /** maxThreads: the threads a run may use (1: the single-threaded build, singleThreadReason
   * says why). */
  | { type: 'ready'; csvHeader: string; sharingCsvHeader: string; maxThreads: number; singleThreadReason: string }
  | { type: 'started'; kind: 'consensus'; id: number; info: RunInfo; graph: GraphShape; specJson: string }
  | { type: 'started'; kind: 'sharing'; id: number; info: SharingInfo; graph: SharingGraph; specJson: string }
  /** A batch of rounds in order; csv holds their trace rows joined by newlines; nodeDistance is
   * the last round's per-node distance to the mean model (consensus). */
  | { type: 'rounds'; kind: 'consensus'; id: number; metrics: RoundMetrics[]; csv: string; nodeDistance: Float64Array | null }
  | { type: 'rounds'; kind: 'sharing'; id: number; metrics: EpochMetrics[]; csv: string; nodeDistance: null }
  | { type: 'done'; kind: 'consensus'; id: number; summary: RunSummary }
  | { type: 'done'; kind: 'sharing'; id: number; summary: SharingSummary }
  | { type: 'error'; id: number; message: string };
