// SPDX-License-Identifier: Apache-2.0
// Live charts (uPlot), one series per run so that earlier runs stay overlaid for comparison;
// one quantity per chart, every axis labelled with its unit.
// Horizontal setting (consensus): training loss, test error, privacy loss epsilon (log axis: the
// paper's figure and the tight epsilon of the run so far, both per round, dashed the tight one;
// at the end of a private run its final tight figure at the run's delta is marked),
// consensus gap. Vertical setting (ADMM sharing): training objective, test log loss, test error,
// each party's total epsilon (tight for the default mechanism, 001 Corollary 1's for eq. (16)).
//
// Scale: a trace keeps at most MAX_POINTS points (older ones are thinned by halves, the latest
// round is always kept), and the charts redraw at most every REDRAW_MS, so a run of thousands of
// rounds neither grows the page's memory without bound nor keeps its thread busy.
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import type { EpochMetrics, RoundMetrics } from './protocol';

export type Metrics = RoundMetrics | EpochMetrics;

const MAX_POINTS = 500;
const REDRAW_MS = 250;

export interface Trace {
  id: number;
  label: string;
  colour: string;
  mode: 'horizontal' | 'vertical';
  /** Stored points (decimated: rounds divisible by `stride`), then `latest`. */
  rounds: Metrics[];
  stride: number;
  latest: Metrics | null;
  /** Rounds received (stored or not). */
  received: number;
  visible: boolean;
  /** Private consensus runs, once finished: the tight (epsilon, delta) of the whole run. */
  tight?: { epsilon: number; delta: number; round: number };
  /** Some round carried a tight epsilon (trace column tight_epsilon): the privacy chart draws it. */
  tightRounds?: boolean;
  /** The run learns no consensus model (local: every node keeps its own): no consensus gap is
   * drawn for it (the spread of independent models is not a gap that the run closes). */
  noConsensus?: boolean;
}

/** A round's tight epsilon when it has one (> 0: a run that released something private). */
function tightOf(m: Metrics): number | null {
  const v = (m as RoundMetrics).tight_epsilon;
  return typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : null;
}

/** Appends rounds to a trace, thinning its stored points by halves beyond MAX_POINTS. */
export function addRounds(t: Trace, metrics: Metrics[]) {
  for (const m of metrics) {
    t.latest = m;
    t.received++;
    if (!t.tightRounds && t.mode === 'horizontal' && tightOf(m) !== null) t.tightRounds = true;
    if (m.round % t.stride !== 0) continue;
    t.rounds.push(m);
    if (t.rounds.length > MAX_POINTS) {
      t.stride *= 2;
      t.rounds = t.rounds.filter((p) => p.round % t.stride === 0);
    }
  }
}

/** The points to draw: the stored ones and the latest round. */
export function points(t: Trace): Metrics[] {
  const last = t.rounds.at(-1);
  return t.latest && t.latest !== last ? [...t.rounds, t.latest] : t.rounds;
}

interface ChartDef {
  title: string;
  yLabel: string;
  value: (m: Metrics) => number | null;
  log: boolean;
  /** Only for runs that seek a consensus model (not drawn for Trace.noConsensus). */
  consensus?: boolean;
  unit: string;
  /** The privacy chart of consensus runs: a second series, the tight epsilon at the end. */
  tight?: boolean;
}

interface ChartSet {
  xLabel: string;
  charts: ChartDef[];
}

const percent = (e: number | null) => (e === null ? null : 100 * e);

export const CHART_SETS: Record<Trace['mode'], ChartSet> = {
  horizontal: {
    xLabel: 'round',
    charts: [
      { title: 'Training loss L(t) (private data; empty when released-only)', yLabel: 'loss (nats)', value: (m) => (m as RoundMetrics).train_loss, log: true, unit: '' },
      { title: 'Test error', yLabel: 'error (%)', value: (m) => percent((m as RoundMetrics).test_error), log: false, unit: ' %' },
      { title: "Privacy loss ε per node: paper's figure and tight ε, run so far", yLabel: 'ε (nats, log)', value: (m) => (m as RoundMetrics).privacy_loss, log: true, unit: '', tight: true },
      { title: 'Consensus gap max ||f_i − mean f||', yLabel: '‖·‖₂ (log)', value: (m) => (m as RoundMetrics).consensus_gap, log: true, unit: '', consensus: true },
    ],
  },
  vertical: {
    xLabel: 'epoch',
    charts: [
      { title: 'Training objective (private data; empty when released-only)', yLabel: 'objective (nats)', value: (m) => (m as EpochMetrics).objective, log: true, unit: '' },
      { title: 'Test log loss', yLabel: 'log loss (nats)', value: (m) => (m as EpochMetrics).test_loss, log: true, unit: '' },
      { title: 'Test error', yLabel: 'error (%)', value: (m) => percent((m as EpochMetrics).test_error), log: false, unit: ' %' },
      { title: 'Privacy loss ε per party, run so far', yLabel: 'ε (nats, log)', value: (m) => (m as EpochMetrics).epsilon_total, log: true, unit: '' },
    ],
  },
};

// Okabe-Ito, without its yellow (too light on white): safe for the common colour-vision
// deficiencies; runs also differ by legend label.
export const PALETTE = ['#0072B2', '#D55E00', '#009E73', '#CC79A7', '#000000', '#E69F00', '#56B4E9', '#882255'];

export class Charts {
  private plots: uPlot[] = [];
  private key = '';
  private timer: ReturnType<typeof setTimeout> | null = null;
  private mode: Trace['mode'] = 'horizontal';
  /** A rebuild creates one chart per task (each uPlot lays itself out): none blocks for long. */
  private building = false;
  private traces: Trace[] = [];

  /** The setting whose runs are shown (the other setting's runs stay in the list). */
  setMode(mode: Trace['mode']) {
    this.mode = mode;
  }

  constructor(private readonly host: HTMLElement) {
    new ResizeObserver(() => this.resize()).observe(host);
  }

  /** Two charts per row (one on narrow screens); see #charts in style.css. */
  private width(): number {
    const inner = this.host.clientWidth - 16;
    const two = inner >= 640;
    this.host.style.gridTemplateColumns = two ? '1fr 1fr' : '1fr';
    return Math.max(240, Math.floor(two ? (inner - 12) / 2 : inner));
  }

  private resize() {
    const width = this.width(); // one layout read for all charts
    for (const p of this.plots) p.setSize({ width, height: 220 });
  }

  /** Redraws within REDRAW_MS (many batches of rounds may arrive in between). */
  schedule(traces: Trace[]) {
    if (this.timer !== null) return;
    this.timer = setTimeout(() => {
      requestAnimationFrame(() => {
        this.timer = null;
        this.render(traces);
      });
    }, REDRAW_MS);
  }

  render(traces: Trace[]) {
    this.traces = traces;
    if (this.building) return; // drawn when the rebuild ends
    const set = CHART_SETS[this.mode];
    const shown = traces.filter((t) => t.visible && t.mode === this.mode);
    const key = `${this.mode}:${shown.map((t) => `${t.id}${t.tight ? 'T' : t.tightRounds ? 't' : ''}`).join(',')}`;
    if (key !== this.key) {
      this.key = key;
      this.building = true;
      this.host.dataset.building = 'true';
      this.rebuild(shown, () => {
        this.building = false;
        delete this.host.dataset.building;
        this.render(this.traces);
      });
      return;
    }
    const drawn = shown.map(points);
    // The x values: every round any shown run has a point at.
    const xs = new Set<number>();
    for (const list of drawn) for (const m of list) xs.add(m.round);
    const x = [...xs].sort((a, b) => a - b);
    if (x.length === 0) x.push(0);
    const at = new Map(x.map((r, k) => [r, k]));
    let tightPoints = 0;
    set.charts.forEach((def, c) => {
      const ys: (number | null)[][] = [];
      shown.forEach((t, s) => {
        const y: (number | null)[] = new Array(x.length).fill(null);
        for (const m of def.consensus && t.noConsensus ? [] : drawn[s]) {
          const v = def.value(m);
          y[at.get(m.round)!] = v !== null && Number.isFinite(v) && (!def.log || v > 0) ? v : null;
        }
        ys.push(y);
        if (def.tight && (t.tight || t.tightRounds)) {
          const tight: (number | null)[] = new Array(x.length).fill(null);
          for (const m of drawn[s]) tight[at.get(m.round)!] = tightOf(m);
          const k = t.tight ? at.get(t.tight.round) : undefined;
          if (t.tight && k !== undefined && t.tight.epsilon > 0) tight[k] = t.tight.epsilon;
          tightPoints += tight.filter((v) => v !== null).length;
          ys.push(tight);
        }
      });
      this.plots[c]?.setData([x, ...ys] as uPlot.AlignedData);
      // The values drawn in this chart (for tests: what a run shows and what it leaves out).
      const box = this.host.children[c] as HTMLElement | undefined;
      if (box) box.dataset.values = String(ys.reduce((n, y) => n + y.filter((v) => v !== null).length, 0));
    });
    this.host.dataset.points = String(drawn.reduce((s, list) => s + list.length, 0));
    this.host.dataset.tightPoints = String(tightPoints);
    this.host.dataset.received = String(shown.reduce((s, t) => s + t.received, 0));
  }

  /** The series of one chart for the shown runs (the privacy chart adds the tight epsilon). */
  private seriesOf(def: ChartDef, shown: Trace[]): uPlot.Series[] {
    const value = (_u: uPlot, v: number | null) => (v == null ? '–' : formatNumber(v) + def.unit);
    const series: uPlot.Series[] = [];
    for (const t of shown) {
      series.push({
        label: def.tight ? `${t.label}: paper's ε` : t.label,
        stroke: t.colour, width: 2, spanGaps: true, value,
      });
      if (def.tight && (t.tight || t.tightRounds)) {
        series.push({
          label: `${t.label}: tight ε${t.tight ? ` (δ = ${formatNumber(t.tight.delta)})` : ''}`, stroke: t.colour,
          width: 2, dash: [6, 4], spanGaps: true, value,
        });
      }
    }
    return series;
  }

  /**
   * New runs in the same setting: the existing charts swap their series (uPlot's delSeries /
   * addSeries), far cheaper than new charts. A new setting builds new charts, one per task.
   */
  private rebuild(shown: Trace[], done: () => void) {
    const set = CHART_SETS[this.mode];
    if (this.plots.length === set.charts.length && this.host.dataset.mode === this.mode) {
      const next = (c: number) => {
        if (c === set.charts.length) {
          done();
          return;
        }
        const p = this.plots[c];
        for (let k = p.series.length - 1; k >= 1; --k) p.delSeries(k);
        const series = this.seriesOf(set.charts[c], shown);
        series.forEach((opts, k) => p.addSeries(opts, k + 1));
        // uPlot leaves the data to the caller: match it to the new series before any redraw.
        p.setData([[], ...series.map(() => [])] as uPlot.AlignedData);
        setTimeout(() => next(c + 1), 0);
      };
      next(0);
      return;
    }
    for (const p of this.plots) p.destroy();
    this.plots = [];
    this.host.replaceChildren();
    this.host.dataset.mode = this.mode;
    const width = this.width();
    const make = (def: ChartDef) => {
      const box = document.createElement('figure');
      box.className = 'chart';
      box.setAttribute('aria-label', `${def.title}: ${def.yLabel} against ${set.xLabel}`);
      box.dataset.xLabel = set.xLabel;
      box.dataset.yLabel = def.yLabel;
      box.dataset.yScale = def.log ? 'log' : 'linear';
      this.host.append(box);
      const series: uPlot.Series[] = [{ label: set.xLabel }, ...this.seriesOf(def, shown)];
      const axisFont = '12px system-ui, sans-serif';
      const opts: uPlot.Options = {
        title: def.title,
        width,
        height: 220,
        scales: { x: { time: false }, y: def.log ? { distr: 3 } : {} },
        axes: [
          { label: set.xLabel, labelSize: 20, font: axisFont, labelFont: axisFont, stroke: '#374151' },
          {
            label: def.yLabel, labelSize: 20, size: 64, font: axisFont, labelFont: axisFont, stroke: '#374151',
            values: (_u, vals) => vals.map((v) => (v == null ? '' : formatNumber(v))),
          },
        ],
        series,
        legend: { show: true },
        cursor: { drag: { x: true, y: false } },
      };
      return new uPlot(opts, [[], ...series.slice(1).map(() => [])] as uPlot.AlignedData, box);
    };
    const next = (c: number) => {
      if (c === set.charts.length) {
        done();
        return;
      }
      this.plots.push(make(set.charts[c]));
      setTimeout(() => next(c + 1), 0);
    };
    next(0);
  }
}

export function formatNumber(v: number): string {
  if (v === 0) return '0';
  const a = Math.abs(v);
  if (a >= 1e4 || a < 1e-3) return v.toExponential(2);
  return String(Number(v.toPrecision(4)));
}
