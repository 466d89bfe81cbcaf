// SPDX-License-Identifier: Apache-2.0
// The privacy-utility sweep's thread: its own wasm module instance, so that a sweep and a single
// run can go on side by side. One sweep is one synchronous C++ call; the progress callback after
// each run posts the progress and reads the cancel flag in a SharedArrayBuffer (cross-origin
// isolated pages). Without one, the page cancels by terminating this worker.
import createDpadmmModule, { type DpadmmModule } from '@dpadmm-wasm/dpadmm_wasm.mjs';
import wasmUrl from '@dpadmm-wasm/dpadmm_wasm.wasm?url';
import type { FromSweepWorker, ToSweepWorker } from './sweep_protocol';

const post = (m: FromSweepWorker) => (self as unknown as Worker).postMessage(m);

const modulePromise: Promise<DpadmmModule> = createDpadmmModule({
  locateFile: (path: string) => (path.endsWith('.wasm') ? wasmUrl : path),
});

async function start(m: ToSweepWorker) {
  const module = await modulePromise;
  const cancel = m.cancel ? new Int32Array(m.cancel) : null;
  const result = JSON.parse(module.runSweep(JSON.stringify(m.config), (done, total, what) => {
    try {
      post({ type: 'progress', id: m.id, done, total, what });
      return cancel === null || Atomics.load(cancel, 0) === 0;
    } catch {
      return false; // never let a JS exception unwind through the C++ frames
    }
  }));
  if (result.error) post({ type: 'error', id: m.id, message: String(result.error) });
  else post({ type: 'done', id: m.id, result });
}

self.onmessage = (e: MessageEvent<ToSweepWorker>) => {
  start(e.data).catch((err: unknown) =>
    post({ type: 'error', id: e.data.id, message: `engine failure: ${String(err)}` }));
};

modulePromise.then(
  () => post({ type: 'ready' }),
  (err: unknown) => post({ type: 'error', id: -1, message: `could not load the engine: ${String(err)}` }),
);
