// Live charts (uPlot): training loss, test error and privacy spent per round, one series per
// run so that earlier runs stay overlaid for comparison.
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import type { RoundMetrics } from './protocol';

export interface Trace {
  id: number;
  label: string;
  colour: string;
  rounds: RoundMetrics[];
  visible: boolean;
}

interface ChartDef {
  title: string;
  value: (m: RoundMetrics) => number | null;
  log: boolean;
  unit: string;
}

const CHARTS: ChartDef[] = [
  { title: 'Training loss L(t)', value: (m) => m.train_loss, log: true, unit: '' },
  { title: 'Test error (%)', value: (m) => (m.test_error === null ? null : 100 * m.test_error), log: false, unit: '%' },
  { title: 'Privacy spent (total loss)', value: (m) => m.privacy_loss, log: false, unit: '' },
  { title: 'Consensus gap max ||f_i − f_j||', value: (m) => m.consensus_gap, log: true, unit: '' },
];

export class Charts {
  private plots: uPlot[] = [];
  private key = '';
  private pending = false;

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
    const shown = traces.filter((t) => t.visible);
    const key = shown.map((t) => t.id).join(',');
    if (key !== this.key) this.rebuild(shown);
    this.key = key;
    const last = Math.max(1, ...shown.map((t) => (t.rounds.length ? t.rounds[t.rounds.length - 1].round : 0)));
    const x = Array.from({ length: last + 1 }, (_, k) => k);
    CHARTS.forEach((def, c) => {
      const ys = shown.map((t) => {
        const y: (number | null)[] = new Array(x.length).fill(null);
        for (const m of t.rounds) {
          const v = def.value(m);
          y[m.round] = v !== null && Number.isFinite(v) && (!def.log || v > 0) ? v : null;
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
    this.plots = CHARTS.map((def) => {
      const box = document.createElement('div');
      box.className = 'chart';
      this.host.append(box);
      const opts: uPlot.Options = {
        title: def.title,
        width: this.width(),
        height: 210,
        scales: { x: { time: false }, y: def.log ? { distr: 3 } : {} },
        axes: [
          { label: 'round' },
          { size: 60, values: (_u, vals) => vals.map((v) => (v == null ? '' : formatNumber(v))) },
        ],
        series: [
          { label: 'round' },
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
