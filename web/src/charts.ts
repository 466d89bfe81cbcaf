// SPDX-License-Identifier: Apache-2.0
// Live charts (uPlot), one series per run so that earlier runs stay overlaid for comparison.
// Horizontal setting (consensus): training loss, test error, privacy spent, consensus gap per
// round. Vertical setting (ADMM sharing): training objective, test log loss, test error and
// privacy spent (each party's total epsilon: tight for the default mechanism, 001 Corollary 1's
// for the eq. (16) variant) per epoch.
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import type { EpochMetrics, RoundMetrics } from './protocol';

export type Metrics = RoundMetrics | EpochMetrics;

export interface Trace {
  id: number;
  label: string;
  colour: string;
  mode: 'horizontal' | 'vertical';
  rounds: Metrics[];
  visible: boolean;
}

interface ChartDef {
  title: string;
  value: (m: Metrics) => number | null;
  log: boolean;
  unit: string;
}

interface ChartSet {
  xLabel: string;
  x: (m: Metrics) => number;
  charts: ChartDef[];
}

const percent = (e: number | null) => (e === null ? null : 100 * e);

export const CHART_SETS: Record<Trace['mode'], ChartSet> = {
  horizontal: {
    xLabel: 'round',
    x: (m) => (m as RoundMetrics).round,
    charts: [
      { title: 'Training loss L(t): evaluation on private data (empty when released-only)', value: (m) => (m as RoundMetrics).train_loss, log: true, unit: '' },
      { title: 'Test error (%)', value: (m) => percent((m as RoundMetrics).test_error), log: false, unit: '%' },
      { title: 'Privacy spent (total loss)', value: (m) => (m as RoundMetrics).privacy_loss, log: false, unit: '' },
      { title: 'Consensus gap max ||f_i − f_j||', value: (m) => (m as RoundMetrics).consensus_gap, log: true, unit: '' },
    ],
  },
  vertical: {
    xLabel: 'epoch',
    x: (m) => (m as EpochMetrics).round,
    charts: [
      { title: 'Training objective (log loss + λ Σ||x_m||²/2): evaluation on private data (empty when released-only)', value: (m) => (m as EpochMetrics).objective, log: true, unit: '' },
      { title: 'Test log loss', value: (m) => (m as EpochMetrics).test_loss, log: true, unit: '' },
      { title: 'Test error (%)', value: (m) => percent((m as EpochMetrics).test_error), log: false, unit: '%' },
      { title: 'Privacy spent: total ε per party (tight; Corollary 1 for the eq. (16) variant)', value: (m) => (m as EpochMetrics).epsilon_total, log: false, unit: '' },
    ],
  },
};

export class Charts {
  private plots: uPlot[] = [];
  private key = '';
  private pending = false;
  private mode: Trace['mode'] = 'horizontal';

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
    for (const p of this.plots) p.setSize({ width: this.width(), height: 210 });
  }

  /** Redraws at the next animation frame (many rounds may arrive per frame). */
  schedule(traces: Trace[]) {
    if (this.pending) return;
    this.pending = true;
    requestAnimationFrame(() => {
      this.pending = false;
      this.render(traces);
    });
  }

  render(traces: Trace[]) {
    const set = CHART_SETS[this.mode];
    const shown = traces.filter((t) => t.visible && t.mode === this.mode);
    const key = `${this.mode}:${shown.map((t) => t.id).join(',')}`;
    if (key !== this.key) this.rebuild(shown);
    this.key = key;
    const last = Math.max(1, ...shown.map((t) => (t.rounds.length ? set.x(t.rounds[t.rounds.length - 1]) : 0)));
    const x = Array.from({ length: last + 1 }, (_, k) => k);
    set.charts.forEach((def, c) => {
      const ys = shown.map((t) => {
        const y: (number | null)[] = new Array(x.length).fill(null);
        for (const m of t.rounds) {
          const v = def.value(m);
          y[set.x(m)] = v !== null && Number.isFinite(v) && (!def.log || v > 0) ? v : null;
        }
        return y;
      });
      this.plots[c]?.setData([x, ...ys] as uPlot.AlignedData);
    });
    this.host.dataset.points = String(shown.reduce((s, t) => s + t.rounds.length, 0));
  }

  private rebuild(shown: Trace[]) {
    for (const p of this.plots) p.destroy();
    this.host.replaceChildren();
    const set = CHART_SETS[this.mode];
    this.plots = set.charts.map((def) => {
      const box = document.createElement('div');
      box.className = 'chart';
      this.host.append(box);
      const opts: uPlot.Options = {
        title: def.title,
        width: this.width(),
        height: 210,
        scales: { x: { time: false }, y: def.log ? { distr: 3 } : {} },
        axes: [
          { label: set.xLabel },
          { size: 72, values: (_u, vals) => vals.map((v) => (v == null ? '' : formatNumber(v))) },
        ],
        series: [
          { label: set.xLabel },
          ...shown.map((t) => ({
            label: t.label,
            stroke: t.colour,
            width: 2,
            spanGaps: true,
            value: (_u: uPlot, v: number | null) => (v == null ? '–' : formatNumber(v) + def.unit),
          })),
        ],
        legend: { show: true },
        cursor: { drag: { x: true, y: false } },
      };
      return new uPlot(opts, [[], ...shown.map(() => [])] as uPlot.AlignedData, box);
    });
  }
}

export function formatNumber(v: number): string {
  if (v === 0) return '0';
  const a = Math.abs(v);
  if (a >= 1e4 || a < 1e-3) return v.toExponential(2);
  return String(Number(v.toPrecision(4)));
}
