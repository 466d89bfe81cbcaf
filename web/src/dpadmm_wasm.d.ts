// Types of the embind bindings in wasm/bindings.cpp (build-wasm/dpadmm_wasm.mjs).
declare module '@dpadmm-wasm/dpadmm_wasm.mjs' {
  export interface Session {
    /** False if the spec or the data was rejected; error() then says why. */
    ok(): boolean;
    error(): string;
    /** The effective spec (every field), as `dpadmm run --print-config` prints it. */
    specJson(): string;
    infoJson(): string;
    /** {"nodes": N, "edges": [[i, j], ...], "rows_per_node": [...]} */
    graphJson(): string;
    /**
     * Runs to the end; calls onRound(roundJson, csvRow) after every round (false = stop after
     * this round). Returns the summary JSON or {"error": message}.
     */
    run(onRound: (roundJson: string, csvRow: string) => boolean): string;
    delete(): void;
  }
  /**
   * ADMM sharing over vertically partitioned features (sharing spec: `dpadmm sharing
   * --print-config`). Same shape as Session; graphJson() is the star {"nodes": M + 1,
   * "edges": [[0, m], ...], "party_features": [...], "rows": N}; run() calls back once per
   * epoch (epoch 0 included) with the epoch's JSON and the CLI's CSV trace row.
   */
  export type SharingSession = Session;
  export interface DpadmmModule {
    Session: new (specJson: string) => Session;
    SharingSession: new (specJson: string) => SharingSession;
    defaultSharingSpecJson(): string;
    sharingCsvHeader(): string;
    /** Stores a file in the in-memory file system; "" or an error message. */
    putFile(name: string, contents: string): string;
    defaultSpecJson(): string;
    csvHeader(): string;
  }
  export interface ModuleOptions {
    locateFile?: (path: string, prefix: string) => string;
    wasmBinary?: ArrayBuffer | Uint8Array;
    print?: (text: string) => void;
    printErr?: (text: string) => void;
  }
  export default function createDpadmmModule(options?: ModuleOptions): Promise<DpadmmModule>;
}
declare module '@dpadmm-wasm/dpadmm_wasm.wasm?url' {
  const url: string;
  export default url;
}
