// Types of format-fixture.mjs for the TypeScript tests that import it.
export declare function formatFixture(path: string, value: unknown): Promise<string>;
