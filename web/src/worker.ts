// SPDX-License-Identifier: Apache-2.0
// The engine's thread: loads the wasm module and runs experiments of either family (one
// Session; the spec's algorithm selects consensus or ADMM sharing), posting every round to the page. The C++ run is one synchronous call, so pause/step/stop travel through a
// SharedArrayBuffer that the per-round callback reads (Atomics.wait blocks this worker, never
// the page). Without cross-origin isolation there is no SharedArrayBuffer: runs then go to
// the end, and the page stops them by terminating this worker.
import createDpadmmModule, { type DpadmmModule } from '@dpadmm-wasm/dpadmm_wasm.mjs';
import wasmUrl from '@dpadmm-wasm/dpadmm_wasm.wasm?url';
import {
  CTRL_DELAY, CTRL_STATE, CTRL_STEPS, PAUSED, RUNNING, STOPPING,
  type FromWorker, type ToWorker,
} from './protocol';

const post = (m: FromWorker) => (self as unknown as Worker).postMessage(m);

const modulePromise: Promise<DpadmmModule> = createDpadmmModule({
  locateFile: (path: string) => (path.endsWith('.wasm') ? wasmUrl : path),
});

/** After each round: false = stop; blocks while paused (a step lets one round through). */
function mayContinue(control: Int32Array | null): boolean {
  if (control === null) return true;
  for (;;) {
    const state = Atomics.load(control, CTRL_STATE);
    if (state === STOPPING) return false;
    if (state === PAUSED) {
      if (Atomics.load(control, CTRL_STEPS) > 0) {
        Atomics.sub(control, CTRL_STEPS, 1);
        return true;
      }
      Atomics.wait(control, CTRL_STATE, PAUSED); // woken by resume, step or stop
      continue;
    }
    const delay = Atomics.load(control, CTRL_DELAY);
    if (delay > 0) Atomics.wait(control, CTRL_STATE, RUNNING, delay); // a click ends the wait
    if (Atomics.load(control, CTRL_STATE) === RUNNING) return true;
  }
}

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
    post({
      type: 'started', kind, id: m.id, info: JSON.parse(session.infoJson()),
      graph: JSON.parse(session.graphJson()), specJson: session.specJson(),
    } as FromWorker);
    const control = m.control ? new Int32Array(m.control) : null;
    const result = JSON.parse(
      session.run((json: string, csv: string) => {
        try {
          post({ type: 'round', kind, id: m.id, metrics: JSON.parse(json), csv } as FromWorker);
          return mayContinue(control);
        } catch {
          return false; // never let a JS exception unwind through the C++ frames
        }
      }),
    );
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
  }),
  (err: unknown) => post({ type: 'error', id: -1, message: `could not load the engine: ${String(err)}` }),
);
