// Vitest global setup: tests never run against a stale dist/. Before any test file loads, it runs the
// root package.json's `build` script — the very steps `pnpm run build` runs, whatever they become —
// each of which does nothing when its output is up to date (`tsc -b` is incremental: about half a
// second then; the validator precompiler checks its stamp). The e2e tests spawn
// packages/cli/bin/evals.js, which runs dist/; the unit tests import other packages through their
// package.json exports, which are dist/ too.
//
// Vitest calls a global setup once for the root config and once for each project that extends it
// (three times here): the build runs on the first call only. The first call also names this test
// run (PAPERCLIP_EVALS_TEST_RUN, inherited by every worker) for what the test kit makes once per run
// (packages/test-kit/src/reference-release.ts), and removes what that made when the run ends.
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { TEST_RUN_VARIABLE, testRunCacheDir } from '@paperclip-evals/test-kit/reference-release';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DONE = Symbol.for('paperclip-evals.build-setup');

export default function setup(): (() => void) | undefined {
  const state = globalThis as { [DONE]?: true };
  if (state[DONE] === true) return undefined;
  state[DONE] = true;
  build();
  // A run started inside a test run (the outside-requirement test runs vitest on a fixture) is part of it.
  if (process.env[TEST_RUN_VARIABLE] !== undefined) return undefined;
  const run = randomUUID();
  process.env[TEST_RUN_VARIABLE] = run;
  return () => {
    rmSync(testRunCacheDir(run), { recursive: true, force: true });
  };
}

function build(): void {
  const { scripts } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
    scripts: { build: string };
  };
  try {
    execFileSync('sh', ['-c', scripts.build], {
      cwd: ROOT,
      env: {
        ...process.env,
        PATH: `${join(ROOT, 'node_modules/.bin')}${delimiter}${process.env.PATH ?? ''}`,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
      encoding: 'utf8',
    });
  } catch (error) {
    const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
    throw new Error(
      `the build before the tests failed (${scripts.build}); fix it, or run ` +
        `\`npx -y pnpm@12.4.2 run build\` to see it:\n${stdout}${stderr}`,
      { cause: error },
    );
  }
}
