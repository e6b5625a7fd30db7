// Vitest global setup: tests never run against a stale dist/. Before any test file loads, the
// packages are built as `pnpm run build` builds them — `tsc -b tsconfig.build.json` (incremental:
// about half a second when nothing changed) and, when dist/validators.generated.cjs is missing or was
// made from other schemas (the registry's own rule: it would ignore the file), the precompiled
// validators. The e2e tests spawn packages/cli/bin/evals.js, which runs dist/, and the unit tests
// import other packages through their package.json exports, which are dist/ too.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

function run(command: string, args: readonly string[]): void {
  try {
    execFileSync(command, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
  } catch (error) {
    const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
    throw new Error(
      `the build before the tests failed (${[command, ...args].join(' ')}); fix it, or run ` +
        `\`npx -y pnpm@12.4.2 run build\` to see it:\n${stdout}${stderr}`,
      { cause: error },
    );
  }
}

export default async function setup(): Promise<void> {
  run(join(ROOT, 'node_modules/.bin/tsc'), ['-b', 'tsconfig.build.json']);
  const registry = pathToFileURL(join(ROOT, 'packages/contract/dist/schema-registry.js')).href;
  const { loadPrecompiledValidators } = (await import(registry)) as {
    loadPrecompiledValidators: () => unknown;
  };
  if (loadPrecompiledValidators() === null)
    run(process.execPath, [join(ROOT, 'packages/contract/build/compile-validators.mjs')]);
}
