// SPDX-License-Identifier: Apache-2.0
// The communication graph as SVG: nodes coloured by how far each is from consensus.
import type { GraphShape, SharingGraph } from './protocol';

const SVG = 'http://www.w3.org/2000/svg';

function layout(g: GraphShape, topology: string, size: number): [number, number][] {
  const c = size / 2;
  const r = size * 0.4;
  const n = g.nodes;
  if (topology === 'grid') {
    let rows = 1;
    for (let k = 1; k * k <= n; ++k) if (n % k === 0) rows = k;
    const cols = n / rows;
    const step = (size * 0.8) / Math.max(rows, cols);
    const x0 = c - ((cols - 1) * step) / 2;
    const y0 = c - ((rows - 1) * step) / 2;
    return [...Array(n).keys()].map((i) => [x0 + (i % cols) * step, y0 + Math.floor(i / cols) * step]);
  }
  if (topology === 'star') {
    return [...Array(n).keys()].map((i) =>
      i === 0 ? [c, c] : [c + r * Math.cos((2 * Math.PI * (i - 1)) / (n - 1) - Math.PI / 2),
                          c + r * Math.sin((2 * Math.PI * (i - 1)) / (n - 1) - Math.PI / 2)]);
  }
  return [...Array(n).keys()].map((i) => [
    c + r * Math.cos((2 * Math.PI * i) / n - Math.PI / 2),
    c + r * Math.sin((2 * Math.PI * i) / n - Math.PI / 2),
  ]);
}

/** Green (at consensus) to red (far): t in [0, 1]. */
export function distanceColour(t: number): string {
  const hue = 120 * (1 - Math.min(1, Math.max(0, t)));
  return `hsl(${hue.toFixed(0)}, 75%, 45%)`;
}

export class GraphView {
  private circles: SVGCircleElement[] = [];
  private titles: SVGTitleElement[] = [];
  private largest = 0;

  constructor(private readonly svg: SVGSVGElement) {}

  draw(g: GraphShape, topology: string) {
    this.svg.replaceChildren();
    this.largest = 0;
    const size = 320;
    this.svg.setAttribute('viewBox', `0 0 ${size} ${size}`);
    const pos = layout(g, topology, size);
    const radius = Math.max(5, Math.min(16, 120 / Math.sqrt(g.nodes)));
    for (const [i, j] of g.edges) {
      const line = document.createElementNS(SVG, 'line');
      line.setAttribute('x1', String(pos[i][0]));
      line.setAttribute('y1', String(pos[i][1]));
      line.setAttribute('x2', String(pos[j][0]));
      line.setAttribute('y2', String(pos[j][1]));
      line.setAttribute('class', 'edge');
      this.svg.append(line);
    }
    this.circles = [];
    this.titles = [];
    for (let i = 0; i < g.nodes; ++i) {
      const circle = document.createElementNS(SVG, 'circle');
      circle.setAttribute('cx', String(pos[i][0]));
      circle.setAttribute('cy', String(pos[i][1]));
      circle.setAttribute('r', String(radius));
      circle.setAttribute('class', 'node');
      circle.setAttribute('fill', '#9aa5b1');
      const title = document.createElementNS(SVG, 'title');
      title.textContent = `node ${i}: ${g.rows_per_node[i] ?? '?'} training rows`;
      circle.append(title);
      this.svg.append(circle);
      this.circles.push(circle);
      this.titles.push(title);
      if (g.nodes <= 30) {
        const label = document.createElementNS(SVG, 'text');
        label.setAttribute('x', String(pos[i][0]));
        label.setAttribute('y', String(pos[i][1] + 4));
        label.setAttribute('class', 'node-label');
        label.textContent = String(i);
        this.svg.append(label);
      }
    }
  }

  /**
   * The star of ADMM sharing: the coordinator (C, holds the labels) in the middle, party m
   * around it with its feature count. Each edge carries one partial score per row, never
   * features or model weights.
   */
  drawSharing(g: SharingGraph) {
    this.svg.replaceChildren();
    this.circles = [];
    this.titles = [];
    this.largest = 0;
    const size = 320;
    this.svg.setAttribute('viewBox', `0 0 ${size} ${size}`);
    const parties = g.nodes - 1;
    const c = size / 2;
    const r = size * (parties > 12 ? 0.4 : 0.34);
    const pos: [number, number][] = [[c, c]];
    for (let m = 0; m < parties; ++m) {
      // Two parties side by side (party 1 on the left); more on a circle from the top.
      const a = parties === 2 ? Math.PI * (1 - m) : (2 * Math.PI * m) / parties - Math.PI / 2;
      pos.push([c + r * Math.cos(a), c + r * Math.sin(a)]);
    }
    const total = g.party_features.reduce((s, d) => s + d, 0) || 1;
    const add = (name: string, attrs: Record<string, string | number>, text?: string) => {
      const el = document.createElementNS(SVG, name);
      for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
      if (text !== undefined) el.textContent = text;
      this.svg.append(el);
      return el;
    };
    for (const [i, j] of g.edges) {
      add('line', { x1: pos[i][0], y1: pos[i][1], x2: pos[j][0], y2: pos[j][1], class: 'edge sharing-edge' });
    }
    const small = parties > 12;
    for (let m = 1; m <= parties; ++m) {
      const d = g.party_features[m - 1] ?? 0;
      // Area proportional to the party's share of the features.
      const radius = small ? 8 : Math.max(12, Math.min(34, 60 * Math.sqrt(d / total)));
      const circle = add('circle', { cx: pos[m][0], cy: pos[m][1], r: radius, class: 'node party', fill: '#0891b2' });
      const title = document.createElementNS(SVG, 'title');
      title.textContent = `party ${m}: ${d} features of ${total} (columns of every training row), no labels`;
      circle.append(title);
      if (!small) {
        add('text', { x: pos[m][0], y: pos[m][1] + 4, class: 'node-label' }, `P${m}`);
        const below = pos[m][1] > c + 1 || parties === 2 ? radius + 14 : -radius - 6;
        add('text', { x: pos[m][0], y: pos[m][1] + below, class: 'party-label' }, `${d} feature${d === 1 ? '' : 's'}`);
      }
    }
    const coordinator = add('circle', { cx: c, cy: c, r: small ? 12 : 18, class: 'node coordinator', fill: '#102a43' }) as SVGCircleElement;
    const ctitle = document.createElementNS(SVG, 'title');
    ctitle.textContent = `coordinator: holds the ${g.rows} training labels, no features`;
    coordinator.append(ctitle);
    add('text', { x: c, y: c + 4, class: 'node-label' }, 'C');
    add('text', { x: c, y: size - 6, class: 'party-label' }, `${parties} parties · ${total} features · ${g.rows} rows`);
  }

  /**
   * Colours node i by log10 of its distance to the mean model, relative to the largest
   * distance seen in this run: red = as far as it got, green = 6 orders of magnitude closer.
   */
  update(distance: number[], rows: number[]) {
    for (const d of distance) if (Number.isFinite(d)) this.largest = Math.max(this.largest, d);
    distance.forEach((d, i) => {
      const circle = this.circles[i];
      if (!circle) return;
      const t = this.largest > 0 && d > 0 ? 1 + Math.log10(d / this.largest) / 6 : 0;
      circle.setAttribute('fill', distanceColour(t));
      circle.dataset.distance = String(d);
      this.titles[i].textContent =
        `node ${i}: ${rows[i] ?? '?'} training rows, distance to the mean model ${d.toExponential(2)}`;
    });
  }
}
