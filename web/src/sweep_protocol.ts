// SPDX-License-Identifier: Apache-2.0
// Messages between the page and the sweep's Web Worker, and the SweepResult's JSON
// (wasm/bindings.cpp runSweep; tools/sweep.h).

/** Mean and 95% t-interval over the seeds (fractions in [0, 1]); low/high null for one seed. */
export interface SweepStat {
  mean: number;
  low: number | null;
  high: number | null;
  values: number[];
}

export interface SweepCell {
  algorithm: string;
  epsilon: number;
  accuracy: SweepStat;
  /** The calibrated field, e.g. "algorithm.dvp.alpha". */
  knob: string;
  knob_values: number[];
  achieved_epsilon: number[];
  outcomes: string[];
}

export interface SweepResult {
  cells: SweepCell[];
  /** Present when the reference lines ran. */
  admm?: SweepStat;
  centralized?: SweepStat;
  majority?: SweepStat;
  delta: number;
  seeds: number;
  dataset: string;
  band: string;
  /** "simulation: noise seeded per repetition (reproducible, not private)" */
  noise: string;
  cancelled: boolean;
  /** The same table as `dpadmm sweep`'s sweep.csv. */
  csv: string;
}

export interface SweepConfigJson {
  base: Record<string, unknown>;
  algorithms: string[];
  epsilons: number[];
  seeds: number;
  delta: number;
}

export interface ToSweepWorker {
  type: 'start';
  id: number;
  config: SweepConfigJson;
  /** Int32 word 0: 1 = cancel after the run in progress (cross-origin isolated pages). */
  cancel: SharedArrayBuffer | null;
}

export type FromSweepWorker =
  | { type: 'ready' }
  | { type: 'progress'; id: number; done: number; total: number; what: string }
  | { type: 'done'; id: number; result: SweepResult }
  | { type: 'error'; id: number; message: string };
