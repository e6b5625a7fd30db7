// Types of build-protocol.mjs for the TypeScript tests that import it.
export declare const PACKAGE_DIR: string;
export declare const REPO_DIR: string;
export declare const PROTOCOL_DIR: string;
export declare const EVALS_FIXTURES: readonly string[];
export declare function protocolFiles(options?: { fixtures?: boolean }): [source: string, target: string][];
export declare function buildProtocol(options?: { fixtures?: boolean }): number;
