// Test runner configuration: every package's test/ folder and scripts/, in two projects that can run
// apart — `unit` (in-process: no child process, browser or PostgreSQL server) and `e2e` (the real
// `evals` binary and other processes, Chromium, PostgreSQL) — plus the summary line CI reads.
// `pnpm test` runs both, `pnpm test:unit` / `pnpm test:e2e` one. Both first make dist/ fresh
// (scripts/vitest/build-setup.ts). Where the time goes and why these settings: docs/benchmarks.md.
import { defineConfig } from 'vitest/config';

const ALL = ['packages/*/test/**/*.test.ts', 'scripts/**/*.test.ts'];

/** Files that need a process, a browser or a PostgreSQL server: named so, or listed here. */
export const E2E = [
  '**/*.e2e.test.ts',
  '**/*.browser.test.ts',
  // The store contract suite runs on SQLite and on a real PostgreSQL server; sigkill kills ingesters.
  'packages/evalbook/test/**/ledger-store.test.ts',
  'packages/evalbook/test/**/sigkill.test.ts',
];

export default defineConfig({
  test: {
    reporters: ['default', './scripts/summary-reporter.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    globalSetup: ['./scripts/vitest/build-setup.ts'],
    projects: [
      {
        extends: true,
        test: { name: 'unit', include: ALL, exclude: ['**/node_modules/**', ...E2E] },
      },
      {
        extends: true,
        test: { name: 'e2e', include: E2E, exclude: ['**/node_modules/**'] },
      },
    ],
  },
});
