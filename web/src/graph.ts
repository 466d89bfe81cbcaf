// SPDX-License-Identifier: Apache-2.0
// The communication graph on a canvas: nodes coloured by how far each is from consensus.
//
// Canvas, not SVG: a complete graph of 1000 nodes has 499,500 edges, one DOM element each in
// SVG (seconds of layout, gigabytes of memory). Here the edges are painted once into an
// offscreen layer, in slices of EDGE_SLICE per frame so that no task blocks the page, and every
// update repaints only that bitmap plus the nodes.
import type { GraphShape, SharingGraph } from './protocol';

const SIZE = 320; // CSS pixels of the square drawing
const EDGE_SLICE = 200;
// Above this many edges a uniform sample of them is drawn (the caption says so): a complete graph
// of 1000 nodes is a filled disc either way, and half a million translucent lines take seconds
// to rasterise without a GPU.
const MAX_DRAWN_EDGES = 20_000;

/** Relative luminance (WCAG 2) of an sRGB colour given as [r, g, b] in 0..255. */
function luminance([r, g, b]: number[]): number {
  const lin = (c: number) => {
    const s = c / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
}

export function contrast(a: number[], b: number[]): number {
  const [x, y] = [luminance(a), luminance(b)].sort((p, q) => q - p);
  return (x + 0.05) / (y + 0.05);
}

const BLACK = [0, 0, 0];
const WHITE = [255, 255, 255];

/** The label colour (black or white) with the larger contrast on `fill` (always >= 4.58:1). */
function labelColour(fill: number[]): number[] {
  return contrast(fill, BLACK) >= contrast(fill, WHITE) ? BLACK : WHITE;
}

// A colour-blind-safe diverging scale (ColorBrewer RdBu): dark red = as far from consensus as
// the run got, light = half-way (on a log scale), dark blue = agreed.
const STOPS = [[178, 24, 43], [239, 138, 98], [247, 247, 247], [103, 169, 207], [33, 102, 172]];

/** t in [0, 1]: 0 = agreed (blue), 1 = far (red). */
export function distanceColour(t: number): number[] {
  const u = (1 - Math.min(1, Math.max(0, t))) * (STOPS.length - 1);
  const k = Math.min(STOPS.length - 2, Math.floor(u));
  const f = u - k;
  return STOPS[k].map((c, i) => Math.round(c + f * (STOPS[k + 1][i] - c)));
}

// The scale in 64 steps: nodes of one step share one colour object, so a paint fills one path
// per step rather than one per node.
const STEPS = 64;
const SCALE = Array.from({ length: STEPS + 1 }, (_, k) => distanceColour(k / STEPS));
const PAINT_MS = 200;

const rgb = (c: number[]) => `rgb(${c[0]},${c[1]},${c[2]})`;
const GREY = [154, 165, 177];
const COORDINATOR = [16, 42, 67];
const PARTY = [14, 116, 144];

function layout(n: number, topology: string, size: number): Float64Array {
  const pos = new Float64Array(2 * n);
  const c = size / 2;
  const r = size * 0.42;
  if (topology === 'grid') {
    let rows = 1;
    for (let k = 1; k * k <= n; ++k) if (n % k === 0) rows = k;
    const cols = n / rows;
    const step = (size * 0.84) / Math.max(rows, cols);
    const x0 = c - ((cols - 1) * step) / 2;
    const y0 = c - ((rows - 1) * step) / 2;
    for (let i = 0; i < n; ++i) {
      pos[2 * i] = x0 + (i % cols) * step;
      pos[2 * i + 1] = y0 + Math.floor(i / cols) * step;
    }
    return pos;
  }
  for (let i = 0; i < n; ++i) {
    const star = topology === 'star';
    if (star && i === 0) {
      pos[0] = c;
      pos[1] = c;
      continue;
    }
    const a = (2 * Math.PI * (star ? i - 1 : i)) / (star ? n - 1 : n) - Math.PI / 2;
    pos[2 * i] = c + r * Math.cos(a);
    pos[2 * i + 1] = c + r * Math.sin(a);
  }
  return pos;
}

interface Shape {
  nodes: number;
  edges: Int32Array;
  pos: Float64Array;
  radius: number;
  fills: number[][];
  labels: string[];
  /** Text under the drawing (sharing) and per-node tooltips. */
  caption: string;
  tooltip: (i: number) => string;
  dashed: boolean;
  /** Sharing: the parties' radii (area proportional to their features) and feature notes. */
  radii?: number[];
  notes?: string[];
}

export class GraphView {
  private shape: Shape | null = null;
  private readonly edgeLayer = document.createElement('canvas');
  private generation = 0;
  private largest = 0;
  private distance: Float64Array | null = null;
  private rows: number[] = [];
  private paintPending = false;

  private readonly ctx: CanvasRenderingContext2D | null;

  constructor(private readonly canvas: HTMLCanvasElement) {
    this.ctx = canvas.getContext('2d');
    canvas.addEventListener('mousemove', (e) => this.hover(e));
  }

  private scale(): number {
    return Math.min(3, Math.max(1, Math.ceil(window.devicePixelRatio || 1)));
  }

  clear() {
    this.generation++;
    this.shape = null;
    const ctx = this.ctx;
    ctx?.clearRect(0, 0, this.canvas.width, this.canvas.height);
    this.canvas.setAttribute('aria-label', 'communication graph (no run yet)');
    delete this.canvas.dataset.nodes;
    delete this.canvas.dataset.edges;
    delete this.canvas.dataset.edgesDrawn;
  }

  draw(g: GraphShape, topology: string) {
    this.rows = g.rows_per_node;
    const radius = Math.max(1.5, Math.min(14, 110 / Math.sqrt(g.nodes)));
    this.start({
      nodes: g.nodes, edges: g.edges, pos: layout(g.nodes, topology, SIZE), radius,
      fills: Array.from({ length: g.nodes }, () => GREY),
      labels: g.nodes <= 30 ? Array.from({ length: g.nodes }, (_, i) => String(i)) : [],
      caption: '', dashed: false,
      tooltip: (i) => {
        const d = this.distance?.[i];
        return `node ${i}: ${this.rows[i] ?? '?'} training rows` +
          (d === undefined ? '' : `, distance to the mean model ${d.toExponential(2)}`);
      },
    });
    this.canvas.setAttribute('aria-label',
      `communication graph: ${g.nodes} nodes, ${g.edges.length / 2} edges (${topology}); ` +
      'node colour shows the distance to consensus');
  }

  /**
   * The star of ADMM sharing: the coordinator (C, holds the labels) in the middle, party m
   * around it; a party's area is proportional to its share of the features. Each edge carries
   * one partial score per row, never features or model weights.
   */
  drawSharing(g: SharingGraph) {
    const parties = g.nodes - 1;
    const c = SIZE / 2;
    const r = SIZE * (parties > 12 ? 0.4 : 0.32);
    const pos = new Float64Array(2 * g.nodes);
    pos[0] = c;
    pos[1] = c;
    for (let m = 0; m < parties; ++m) {
      // Two parties side by side (party 1 on the left); more on a circle from the top.
      const a = parties === 2 ? Math.PI * (1 - m) : (2 * Math.PI * m) / parties - Math.PI / 2;
      pos[2 * (m + 1)] = c + r * Math.cos(a);
      pos[2 * (m + 1) + 1] = c + r * Math.sin(a);
    }
    const total = g.party_features.reduce((s, d) => s + d, 0) || 1;
    const small = parties > 12;
    this.rows = [];
    this.start({
      nodes: g.nodes, edges: g.edges, pos, radius: small ? 8 : 16,
      fills: Array.from({ length: g.nodes }, (_, i) => (i === 0 ? COORDINATOR : PARTY)),
      labels: small ? [] : ['C', ...Array.from({ length: parties }, (_, m) => `P${m + 1}`)],
      caption: `${parties} parties · ${total} features · ${g.rows} rows`,
      dashed: true,
      tooltip: (i) => (i === 0
        ? `coordinator: holds the ${g.rows} training labels, no features`
        : `party ${i}: ${g.party_features[i - 1]} features of ${total} (columns of every training row), no labels`),
    });
    // Party sizes: area proportional to the feature share.
    if (!small && this.shape) {
      this.shape.radii = g.party_features.map((d) => Math.max(12, Math.min(34, 60 * Math.sqrt(d / total))));
      this.shape.notes = g.party_features.map((d) => `${d} feature${d === 1 ? '' : 's'}`);
    }
    this.canvas.setAttribute('aria-label',
      `ADMM sharing star: a coordinator holding the labels and ${parties} parties holding ` +
      `${g.party_features.join(' / ')} features`);
    this.paint();
  }

  private start(shape: Shape) {
    const gen = ++this.generation;
    this.shape = shape;
    this.largest = 0;
    this.distance = null;
    const s = this.scale();
    for (const cv of [this.canvas, this.edgeLayer]) {
      cv.width = SIZE * s;
      cv.height = SIZE * s;
    }
    this.canvas.dataset.nodes = String(shape.nodes);
    this.canvas.dataset.edges = String(shape.edges.length / 2);
    this.canvas.dataset.edgesDrawn = '0';
    const ctx = this.edgeLayer.getContext('2d')!;
    ctx.setTransform(s, 0, 0, s, 0, 0);
    ctx.clearRect(0, 0, SIZE, SIZE);
    const total = shape.edges.length / 2;
    const m = Math.min(total, MAX_DRAWN_EDGES);
    // Edge k of the drawing: all of them, or a sample spread over the list (P is a prime, so
    // s -> s P mod total visits distinct edges for s < total unless total is a multiple of P).
    const P = 1_000_003;
    const pick = total === m ? (s: number) => s : (s: number) => (s * P) % total;
    if (total > m) shape.caption = `showing a sample of ${m.toLocaleString('en')} of ${total.toLocaleString('en')} edges`;
    this.canvas.dataset.edgesShown = String(m);
    // Dense graphs: thin, translucent edges (their overlap shows the density).
    ctx.lineWidth = m > 5000 ? 0.4 : shape.dashed ? 2.5 : 1.2;
    ctx.strokeStyle = m > 5000 ? 'rgba(97,110,124,0.12)' : '#9aa5b1';
    if (shape.dashed) ctx.setLineDash([5, 3]);
    const slice = (from: number) => {
      if (gen !== this.generation) return; // a newer graph replaced this one
      const to = Math.min(m, from + EDGE_SLICE);
      ctx.beginPath();
      const { edges, pos } = shape;
      for (let s = from; s < to; ++s) {
        // Short paths: stroking one path of thousands of crossing segments costs far more.
        if (s > from && s % 200 === 0) {
          ctx.stroke();
          ctx.beginPath();
        }
        const k = pick(s);
        const i = edges[2 * k], j = edges[2 * k + 1];
        ctx.moveTo(pos[2 * i], pos[2 * i + 1]);
        ctx.lineTo(pos[2 * j], pos[2 * j + 1]);
      }
      ctx.stroke();
      this.canvas.dataset.edgesDrawn = String(to);
      this.paint();
      if (to < m) setTimeout(() => slice(to), 0);
    };
    this.paint(); // the nodes at once, the edges slice by slice from the next task on
    setTimeout(() => slice(0), 0);
  }

  /**
   * Colours node i by log10 of its distance to the mean model, relative to the largest
   * distance seen in this run: red = as far as it got, blue = 6 orders of magnitude closer.
   */
  update(distance: Float64Array) {
    if (!this.shape) return;
    this.distance = distance;
    for (const d of distance) if (Number.isFinite(d)) this.largest = Math.max(this.largest, d);
    const fills = this.shape.fills;
    for (let i = 0; i < distance.length && i < fills.length; ++i) {
      const d = distance[i];
      const t = this.largest > 0 && d > 0 ? 1 + Math.log10(d / this.largest) / 6 : 0;
      fills[i] = Number.isFinite(d) ? SCALE[Math.round(Math.min(1, Math.max(0, t)) * STEPS)] : GREY;
    }
    if (this.paintPending) return;
    this.paintPending = true;
    setTimeout(() => requestAnimationFrame(() => {
      this.paintPending = false;
      this.paint();
    }), PAINT_MS);
  }

  private paint() {
    const shape = this.shape;
    const ctx = this.ctx;
    if (!shape || !ctx) return;
    const s = this.scale();
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.clearRect(0, 0, this.canvas.width, this.canvas.height);
    ctx.drawImage(this.edgeLayer, 0, 0);
    ctx.setTransform(s, 0, 0, s, 0, 0);
    const { pos, fills, labels } = shape;
    ctx.lineWidth = shape.nodes > 200 ? 0 : 1;
    ctx.strokeStyle = '#1f2933';
    let minContrast = Infinity;
    // One path per colour.
    const groups = new Map<number[], number[]>();
    for (let i = 0; i < shape.nodes; ++i) {
      const list = groups.get(fills[i]);
      if (list) list.push(i);
      else groups.set(fills[i], [i]);
    }
    for (const [fill, members] of groups) {
      ctx.beginPath();
      for (const i of members) {
        const r = shape.radii ? (i === 0 ? 18 : shape.radii[i - 1]) : shape.radius;
        ctx.moveTo(pos[2 * i] + r, pos[2 * i + 1]);
        ctx.arc(pos[2 * i], pos[2 * i + 1], r, 0, 2 * Math.PI);
      }
      ctx.fillStyle = rgb(fill);
      ctx.fill();
      if (ctx.lineWidth > 0) ctx.stroke();
    }
    ctx.textAlign = 'center';
    ctx.textBaseline = 'middle';
    ctx.font = '600 10px system-ui, sans-serif';
    labels.forEach((text, i) => {
      const colour = labelColour(fills[i]);
      minContrast = Math.min(minContrast, contrast(colour, fills[i]));
      ctx.fillStyle = rgb(colour);
      ctx.fillText(text, pos[2 * i], pos[2 * i + 1] + 0.5);
    });
    ctx.font = '11px system-ui, sans-serif';
    ctx.fillStyle = '#4b5563'; // 7.6:1 on white
    if (shape.notes) {
      shape.notes.forEach((text, m) => {
        const y = pos[2 * (m + 1) + 1];
        const below = y > SIZE / 2 + 1 || shape.nodes === 3;
        const r = shape.radii?.[m] ?? shape.radius;
        ctx.fillText(text, pos[2 * (m + 1)], y + (below ? r + 12 : -r - 8));
      });
    }
    if (shape.caption) ctx.fillText(shape.caption, SIZE / 2, SIZE - 8);
    // For the tests: the worst label contrast of this frame (WCAG ratio).
    this.canvas.dataset.labelContrast = Number.isFinite(minContrast) ? minContrast.toFixed(2) : '';
  }

  private hover(e: MouseEvent) {
    const shape = this.shape;
    if (!shape) return;
    const box = this.canvas.getBoundingClientRect();
    const x = ((e.clientX - box.left) / box.width) * SIZE;
    const y = ((e.clientY - box.top) / box.height) * SIZE;
    let best = -1;
    let bestD = Infinity;
    for (let i = 0; i < shape.nodes; ++i) {
      const d = (shape.pos[2 * i] - x) ** 2 + (shape.pos[2 * i + 1] - y) ** 2;
      if (d < bestD) {
        bestD = d;
        best = i;
      }
    }
    const reach = Math.max(6, shape.radii ? 34 : shape.radius + 2);
    this.canvas.title = best >= 0 && bestD <= reach * reach ? shape.tooltip(best) : '';
  }
}
