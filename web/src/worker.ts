// SPDX-License-Identifier: Apache-2.0
// The engine's thread: loads the wasm module and runs experiments of either family (one
// Session; the spec's algorithm selects consensus or ADMM sharing), posting the rounds to the
// page. The C++ run is one synchronous call, so pause/step/stop travel through a
// SharedArrayBuffer that the per-round callback reads (Atomics.wait blocks this worker, never
// the page). Without cross-origin isolation there is no SharedArrayBuffer: runs then go to
// the end, and the page stops them by terminating this worker.
//
// Rounds travel in batches (at most one message per BATCH_MS while running at full speed), with
// the per-node vectors dropped except the last round's node distances: a 1000-node run would
// otherwise send 3000 numbers per round and keep the page's thread busy decoding them.
//
// Two builds of the module: the threaded one (pthreads + oneTBB: the TBB engine, runs with
// "threads" > 1) needs SharedArrayBuffer, i.e. a cross-origin-isolated page; elsewhere (a static
// host without the COOP/COEP headers) the single-threaded build runs everything on this thread.
// Both are loaded on demand (separate chunks): a page only downloads the one it uses.
import type { DpadmmModule } from '@dpadmm-wasm/dpadmm_wasm.mjs';
import {
  CTRL_DELAY, CTRL_STATE, CTRL_STEPS, PAUSED, RUNNING, STOPPING,
  type FromWorker, type ToWorker,
} from './protocol';

const BATCH_MS = 100;

const post = (m: FromWorker, transfer: Transferable[] = []) =>
  (self as unknown as Worker).postMessage(m, transfer);

/** Why runs are single-threaded ('' when the threaded build loaded). */
let singleThreadReason = '';

async function loadModule(): Promise<DpadmmModule> {
  if ((self as unknown as { crossOriginIsolated?: boolean }).crossOriginIsolated === true &&
      typeof SharedArrayBuffer !== 'undefined') {
    try {
      // The pthreads' script (dpadmm_wasm_mt.worker.js, served as it is: ?url) imports the
      // module's JavaScript by URL: the unbundled file (?url), named by mainScriptUrlOrBlob.
      const [{ default: create }, { default: url }, { default: threadUrl }, { default: scriptUrl }] =
        await Promise.all([
          import('@dpadmm-wasm-mt/dpadmm_wasm_mt.mjs'), import('@dpadmm-wasm-mt/dpadmm_wasm_mt.wasm?url'),
          import('@dpadmm-wasm-mt/dpadmm_wasm_mt.worker.js?url'), import('@dpadmm-wasm-mt/dpadmm_wasm_mt.mjs?url')]);
      return await create({
        locateFile: (path: string) => (path.endsWith('.wasm') ? url : path.endsWith('.worker.js') ? threadUrl : path),
        mainScriptUrlOrBlob: new URL(scriptUrl, self.location.href).href,
      });
    } catch (err) {
      singleThreadReason = `the threaded engine failed to load (${String(err)})`;
    }
  } else {
    singleThreadReason = 'page not cross-origin isolated';
  }
  const [{ default: create }, { default: url }] = await Promise.all([
    import('@dpadmm-wasm/dpadmm_wasm.mjs'), import('@dpadmm-wasm/dpadmm_wasm.wasm?url')]);
  return create({ locateFile: (path: string) => (path.endsWith('.wasm') ? url : path) });
}

const modulePromise: Promise<DpadmmModule> = loadModule();

/** After each round: false = stop; blocks while paused (a step lets one round through). */
function mayContinue(control: Int32Array | null, flush: () => void): boolean {
  if (control === null) return true;
  for (;;) {
    const state = Atomics.load(control, CTRL_STATE);
    if (state === STOPPING) return false;
    if (state === PAUSED) {
      if (Atomics.load(control, CTRL_STEPS) > 0) {
        Atomics.sub(control, CTRL_STEPS, 1);
        return true;
      }
      flush(); // the page sees the round it paused after
      Atomics.wait(control, CTRL_STATE, PAUSED); // woken by resume, step or stop
      continue;
    }
    const delay = Atomics.load(control, CTRL_DELAY);
    if (delay > 0) Atomics.wait(control, CTRL_STATE, RUNNING, delay); // a click ends the wait
    if (Atomics.load(control, CTRL_STATE) === RUNNING) return true;
  }
}

/** The per-node vectors are not charted: only the last round's distances reach the page. */
const PER_NODE = ['node_privacy', 'node_noise', 'node_distance'];

async function start(m: Extract<ToWorker, { type: 'start' }>) {
  const module = await modulePromise;
  for (const f of m.files) {
    const problem = module.putFile(f.name, f.text);
    if (problem !== '') {
      post({ type: 'error', id: m.id, message: problem });
      return;
    }
  }
  // One Session for both families: the spec's algorithm selects it.
  const kind = m.kind;
  const session = new module.Session(JSON.stringify(m.spec));
  try {
    if (!session.ok()) {
      post({ type: 'error', id: m.id, message: session.error() });
      return;
    }
    if (session.family() !== kind) {
      post({ type: 'error', id: m.id, message: `the spec's algorithm is of the ${session.family()} family` });
      return;
    }
    // Edges as one flat Int32Array (transferred, not copied): a complete graph of 1000 nodes
    // has 499,500 of them, too many small arrays for the page to decode in one go.
    const shape = JSON.parse(session.graphJson()) as { edges: [number, number][] } & Record<string, unknown>;
    const edges = new Int32Array(2 * shape.edges.length);
    shape.edges.forEach(([i, j], k) => { edges[2 * k] = i; edges[2 * k + 1] = j; });
    post({
      type: 'started', kind, id: m.id, info: JSON.parse(session.infoJson()),
      graph: { ...shape, edges }, specJson: session.specJson(),
    } as FromWorker, [edges.buffer]);
    const control = m.control ? new Int32Array(m.control) : null;
    let metrics: Record<string, unknown>[] = [];
    let csv: string[] = [];
    let distance: Float64Array | null = null;
    let last = 0;
    const flush = () => {
      if (metrics.length === 0) return;
      const transfer = distance ? [distance.buffer] : [];
      post({ type: 'rounds', kind, id: m.id, metrics, csv: csv.join('\n'), nodeDistance: distance } as unknown as FromWorker, transfer);
      metrics = [];
      csv = [];
      distance = null;
      last = performance.now();
    };
    const result = JSON.parse(
      session.run((json: string, row: string) => {
        try {
          const round = JSON.parse(json) as Record<string, unknown>;
          if (Array.isArray(round.node_distance)) distance = Float64Array.from(round.node_distance as number[]);
          for (const key of PER_NODE) delete round[key];
          metrics.push(round);
          csv.push(row);
          // Flush now when the run is slowed down, paused or stopping (the page shows every
          // round then), else once per BATCH_MS.
          const slow = control !== null && (Atomics.load(control, CTRL_STATE) !== RUNNING ||
                                            Atomics.load(control, CTRL_DELAY) > 0);
          if (slow || performance.now() - last >= BATCH_MS) flush();
          return mayContinue(control, flush);
        } catch {
          return false; // never let a JS exception unwind through the C++ frames
        }
      }),
    );
    flush();
    if (result.error) post({ type: 'error', id: m.id, message: result.error });
    else post({ type: 'done', kind, id: m.id, summary: result } as FromWorker);
  } finally {
    session.delete();
  }
}

self.onmessage = (e: MessageEvent<ToWorker>) => {
  if (e.data.type === 'start') {
    start(e.data).catch((err: unknown) =>
      post({ type: 'error', id: e.data.id, message: `engine failure: ${String(err)}` }));
  }
};

modulePromise.then(
  (module) => post({
    type: 'ready', csvHeader: module.csvHeader('consensus'), sharingCsvHeader: module.csvHeader('sharing'),
    maxThreads: module.threaded() ? module.maxThreads() : 1, singleThreadReason,
  }),
  (err: unknown) => post({ type: 'error', id: -1, message: `could not load the engine: ${String(err)}` }),
);
