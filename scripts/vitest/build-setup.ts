// Vitest global setup: tests never run against a stale dist/. Before any test file loads, it runs the
// root package.json's `build` script — the very steps `pnpm run build` runs, whatever they become —
// each of which does nothing when its output is up to date (`tsc -b` is incremental: about half a
// second then; the validator precompiler checks its stamp). The e2e tests spawn
// packages/cli/bin/evals.js, which runs dist/; the unit tests import other packages through their
// package.json exports, which are dist/ too.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export default function setup(): void {
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
