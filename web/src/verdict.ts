// SPDX-License-Identifier: Apache-2.0
// How a finished run is announced: one word and one colour per state, never a green "finished"
// for a run that diverged, failed or learned nothing.
//
// A run "learned nothing" when its final test accuracy is within 2 points of the test set's
// majority-class rate (always predicting the majority class would do as well): the same rule
// as the library's RunWarnings (algorithms/run/experiment.cpp).

export type VerdictKey =
  | 'converged' | 'round-limit' | 'budget-exhausted' | 'learned-nothing' | 'diverged' | 'failed'
  | 'cancelled' | 'error';

export interface Verdict {
  key: VerdictKey;
  /** The word on the state badge (and what the status region announces). */
  word: string;
}

export const LEARNED_NOTHING_MARGIN = 0.02;

/**
 * The verdict of a run from the engine's outcome ('completed', 'converged', 'budget exhausted',
 * 'diverged', 'failed', 'cancelled'), its final test error and the majority rate.
 */
export function judge(
  outcome: string, testError: number | null | undefined, majorityRate: number | null | undefined,
  unit: 'round' | 'epoch',
): Verdict {
  switch (outcome) {
    case 'diverged': return { key: 'diverged', word: 'diverged' };
    case 'failed': return { key: 'failed', word: 'failed' };
    case 'cancelled': return { key: 'cancelled', word: 'cancelled' };
    default: break;
  }
  if (testError !== null && testError !== undefined && Number.isFinite(testError) &&
      majorityRate !== null && majorityRate !== undefined && Number.isFinite(majorityRate) &&
      1 - testError < majorityRate + LEARNED_NOTHING_MARGIN) {
    return { key: 'learned-nothing', word: 'learned nothing' };
  }
  if (outcome === 'converged') return { key: 'converged', word: 'converged' };
  if (outcome === 'budget exhausted') return { key: 'budget-exhausted', word: 'privacy budget exhausted' };
  return { key: 'round-limit', word: `${unit} limit reached` };
}

/** One sentence on what the verdict means, for the outcome line. */
export function explain(v: Verdict, accuracy: number | null, majorityRate: number | null): string {
  const pct = (x: number) => `${(100 * x).toFixed(1)} %`;
  switch (v.key) {
    case 'learned-nothing':
      return `Test accuracy ${accuracy === null ? '?' : pct(accuracy)} is within 2 points of the ` +
        `majority-class rate ${majorityRate === null ? '?' : pct(majorityRate)}: always predicting ` +
        'the majority class would do as well. Try more privacy budget (a larger ε) or more rounds.';
    case 'diverged': return 'The iterates blew up: try a larger penalty η or a smaller loss weight C.';
    case 'failed': return 'A node could not complete its update.';
    case 'budget-exhausted': return 'The nodes stopped releasing before the privacy budget would be exceeded.';
    case 'round-limit': return 'Ran all its rounds.';
    case 'converged': return 'Met the stopping tolerance.';
    default: return '';
  }
}
