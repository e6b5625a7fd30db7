// Types of build-runnerd.mjs for the TypeScript tests that import it.
export declare function buildRunnerd(options: { profile: 'release' | 'debug'; out: string }): Promise<string>;
