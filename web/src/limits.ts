// SPDX-License-Identifier: Apache-2.0
// The limits of the form's fields: one table that sets each field's min/max/step attributes and
// checks what is typed, with an inline message for a value outside them. The engine validates
// the spec again (its messages appear in the error box); these limits keep a browser tab
// responsive (at most 1000 nodes, 5000 rounds) and catch empty or malformed fields before a run.

export interface Rule {
  min?: number;
  max?: number;
  integer?: boolean;
  /** Empty is allowed (e.g. the noise seed: empty = private mode). */
  optional?: boolean;
}

export const MAX_SEED = 4294967295;

export const FIELD_LIMITS: Record<string, Rule> = {
  rows: { min: 20, max: 200_000, integer: true },
  dims: { min: 1, max: 20_000, integer: true },
  parties: { min: 1, max: 32, integer: true },
  epochs: { min: 0, max: 2000, integer: true },
  'sharing-seed': { min: 0, max: MAX_SEED, integer: true },
  'sharing-noise-seed': { min: 0, max: MAX_SEED, integer: true, optional: true },
  nodes: { min: 2, max: 1000, integer: true },
  // edges: [nodes - 1, nodes (nodes - 1) / 2], set from the node count (edgeRange).
  edges: { min: 1, max: 499_500, integer: true },
  iterations: { min: 1, max: 5000, integer: true },
  tolerance: { min: 0, max: 1 },
  // 0 = off; the engine refuses a target out of the algorithm's reach with its smallest ε.
  'target-epsilon': { min: 0, max: 100 },
  seed: { min: 0, max: MAX_SEED, integer: true },
  'noise-seed': { min: 0, max: MAX_SEED, integer: true, optional: true },
  // threads: [1, the engine's cores] (navigator.hardwareConcurrency in the threaded build, 1 in
  // the single-threaded one), set when the engine is ready (main.ts).
  threads: { min: 1, max: 1, integer: true },
};

/** '' if `text` satisfies `rule`, else the inline message. */
export function check(text: string, rule: Rule): string {
  const t = text.trim();
  if (t === '') return rule.optional ? '' : 'Required: enter a number.';
  const v = Number(t);
  if (!Number.isFinite(v)) return 'Enter a number.';
  if (rule.integer && !Number.isInteger(v)) return 'Enter a whole number.';
  if (rule.min !== undefined && v < rule.min) return `At least ${rule.min}.`;
  if (rule.max !== undefined && v > rule.max) return `At most ${rule.max}.`;
  return '';
}

/** Writes the rule into the field's attributes (min, max, a valid step). */
export function applyRule(field: HTMLInputElement, rule: Rule) {
  if (rule.min !== undefined) field.min = String(rule.min);
  else field.removeAttribute('min');
  if (rule.max !== undefined) field.max = String(rule.max);
  else field.removeAttribute('max');
  field.step = rule.integer ? '1' : 'any';
  field.inputMode = rule.integer ? 'numeric' : 'decimal';
}

/** "120, 80" style lists: positive whole numbers separated by commas, spaces or semicolons. */
export function checkSplit(text: string): string {
  const t = text.trim();
  if (t === '') return '';
  const parts = t.split(/[\s,;]+/).filter((x) => x !== '');
  return parts.every((p) => /^\d+$/.test(p) && Number(p) > 0)
    ? '' : 'Positive whole numbers separated by commas, e.g. 150,50 (empty = even split).';
}

/** The privacy-utility view's fields (sweep.ts): a sweep runs (algorithms x epsilons + 1) x
 * seeds complete runs, so its runs are kept smaller than a single run's. */
export const SWEEP_LIMITS: Record<string, Rule> = {
  'sw-rows': { min: 20, max: 50_000, integer: true },
  'sw-nodes': { min: 2, max: 100, integer: true },
  'sw-rounds': { min: 1, max: 1000, integer: true },
  'sw-seed': { min: 0, max: MAX_SEED, integer: true },
  'sw-eps-min': { min: 0.001, max: 1000 },
  'sw-eps-max': { min: 0.001, max: 1000 },
  'sw-eps-steps': { min: 1, max: 12, integer: true },
  'sw-seeds': { min: 1, max: 20, integer: true },
};
