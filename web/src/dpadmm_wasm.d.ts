// SPDX-License-Identifier: Apache-2.0
// Types of the embind bindings in wasm/bindings.cpp (build-wasm/dpadmm_wasm.mjs).
declare module '@dpadmm-wasm/dpadmm_wasm.mjs' {
  export interface Session {
    /** False if the spec or the data was rejected; error() then says why. */
    ok(): boolean;
    error(): string;
    /** "consensus" | "sharing": the family of the spec's algorithm ("" if rejected). */
    family(): string;
    /** The effective spec (schema 2), as `dpadmm run --print-config` prints it. */
    specJson(): string;
    infoJson(): string;
    /** The CSV trace header of this run's family. */
    csvHeader(): string;
    /**
     * Consensus: {"family": "consensus", "nodes": N, "edges": [[i, j], ...], "rows_per_node": [...]};
     * sharing, the star: {"family": "sharing", "nodes": M + 1, "edges": [[0, m], ...],
     * "party_features": [...], "rows": N}.
     */
    graphJson(): string;
    /**
     * Runs to the end; calls onRound(roundJson, csvRow) after every round (false = stop after
     * this round). Returns the summary JSON or {"error": message}.
     */
    run(onRound: (roundJson: string, csvRow: string) => boolean): string;
    delete(): void;
  }
  export interface DpadmmModule {
    Session: new (specJson: string) => Session;
    /** Stores a file in the in-memory file system; "" or an error message. */
    putFile(name: string, contents: string): string;
    /** The browser defaults of an algorithm's family ("" = admm) as spec JSON. */
    defaultSpecJson(algorithm: string): string;
    /** The CSV trace header of a family ("consensus" | "sharing"). */
    csvHeader(family: string): string;
    /**
     * Runs a privacy-utility sweep (tools/sweep.h) from {"base": spec, "algorithms",
     * "epsilons", "seeds", "delta", "reference_lines"}; onProgress after every run (false =
     * cancel). Returns the SweepResult JSON (with "csv", `dpadmm sweep`'s CSV) or {"error"}.
     */
    runSweep(configJson: string,
             onProgress: (done: number, total: number, what: string) => boolean): string;
    /** True in the threaded build (pthreads + oneTBB: specs may ask for "engine": "tbb"). */
    threaded(): boolean;
    /** The cores the threaded build may use (navigator.hardwareConcurrency); 1 otherwise. */
    maxThreads(): number;
  }
  export interface ModuleOptions {
    locateFile?: (path: string, prefix: string) => string;
    wasmBinary?: ArrayBuffer | Uint8Array;
    print?: (text: string) => void;
    printErr?: (text: string) => void;
    /** Threaded build: the URL its pthreads import the module's JavaScript from. */
    mainScriptUrlOrBlob?: string;
  }
  export default function createDpadmmModule(options?: ModuleOptions): Promise<DpadmmModule>;
}
declare module '@dpadmm-wasm/dpadmm_wasm.wasm?url' {
  const url: string;
  export default url;
}
// The threaded build (build-wasm-mt/dpadmm_wasm_mt.mjs): the same bindings.
declare module '@dpadmm-wasm-mt/dpadmm_wasm_mt.mjs' {
  export { default } from '@dpadmm-wasm/dpadmm_wasm.mjs';
}
declare module '@dpadmm-wasm-mt/dpadmm_wasm_mt.wasm?url' {
  const url: string;
  export default url;
}
declare module '@dpadmm-wasm-mt/dpadmm_wasm_mt.worker.js?url' {
  const url: string;
  export default url;
}
declare module '@dpadmm-wasm-mt/dpadmm_wasm_mt.mjs?url' {
  const url: string;
  export default url;
}
