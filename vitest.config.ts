// Test runner configuration: every package's test/ folder and scripts/, in two projects that can run
// apart — `unit` (in-process: no child process, browser or PostgreSQL server) and `e2e` (the real
// `evals` binary and other processes, Chromium, PostgreSQL) — plus the summary line CI reads.
// `pnpm test` runs both, `pnpm test:unit` / `pnpm test:e2e` one. Both first make dist/ fresh
// (scripts/vitest/build-setup.ts). Where the time goes and why these settings: docs/benchmarks.md.
import { defineConfig } from 'vitest/config';

const ALL = ['packages/*/test/**/*.test.ts', 'scripts/**/*.test.ts'];

/**
 * Files that need a process, a browser or a PostgreSQL server: named so, or listed here (by name, in
 * any folder of their package). A unit test that starts a process fails (scripts/vitest/in-process-setup.ts).
 */
export const E2E = [
  '**/*.e2e.test.ts',
  '**/*.browser.test.ts',
  // Clients of a process protocol: the checks client spawns its engine, the policy consumer (and the
  // app's policy replay workflow) its producer.
  'packages/app/test/**/policy-replay.test.ts',
  'packages/checks/test/**/client.test.ts',
  'packages/policy/test/**/consumer.test.ts',
  // Bounded runs, child transports, contained reads, atomic output and staging against FIFOs,
  // devices, other processes and the resolver's executables (the Node runtime layer).
  'packages/node/test/**/{bounded-run,child-transport,contained-file,output-file,ownership,runnerd-artifact,stage-size-cap}.test.ts',
  // The outside-requirement rule runs real vitest on a fixture.
  'packages/test-kit/test/**/requirement.test.ts',
  // The store contract suite runs on SQLite and on a real PostgreSQL server; sigkill kills ingesters;
  // open-store opens a FIFO as a store.
  'packages/evalbook/test/**/{ledger-store,open-store,sigkill}.test.ts',
  // Qualification installs packed releases and runs their runnerd.
  'packages/qualification/test/**/{consumer,eval-session,processes,qualify,refusals,tampering,tarball}.test.ts',
  // A campaign's eval sessions are real processes (the stand-in eval-session).
  'packages/campaign/test/**/execute.test.ts',
  // The reference runner's bins and its paperclip-runnerd single executable.
  'packages/reference-runner/test/**/{evals,runnerd}.test.ts',
];

/** Registers the test kit's matchers (`toThrowCode`) in both projects. */
const TEST_KIT_SETUP = './packages/test-kit/src/setup.ts';

export default defineConfig({
  test: {
    reporters: ['default', './scripts/summary-reporter.ts'],
    // A bound for hangs, not a speed test: one e2e test runs up to dozens of processes in turn, and a
    // property suite thousands of runs, which on a busy 2-core machine can pass 30 s without hanging.
    testTimeout: 120_000,
    hookTimeout: 60_000,
    globalSetup: ['./scripts/vitest/build-setup.ts'],
    // Vitest's default is one worker per core but one: a single worker on a 2-core machine, which
    // then sits idle while an e2e file waits for the processes it started. Three workers keep both
    // cores busy; unit and e2e files share them (one setting: projects with different maxWorkers
    // would have to run one after the other).
    maxWorkers: 3,
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ALL,
          exclude: ['**/node_modules/**', ...E2E],
          setupFiles: ['./scripts/vitest/in-process-setup.ts', TEST_KIT_SETUP],
          // A worker runs its unit files one after another in one module graph, instead of a fresh
          // process and fresh imports per file (about half a second each). Unit files restore what
          // they change (cwd, environment, spies); e2e files keep their own process each.
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: E2E,
          exclude: ['**/node_modules/**'],
          setupFiles: [TEST_KIT_SETUP],
        },
      },
    ],
  },
});
