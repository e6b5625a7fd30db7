// Vitest setup file of the `unit` project: a unit test runs in-process. Any child process it starts
// (spawn, exec, fork and their sync forms, from the test or from the code it calls) throws, naming
// the command, so a test that needs a process says so — its file is `*.e2e.test.ts` or is listed in
// vitest.config.ts's E2E — and `pnpm test:unit` stays the fast loop it is meant to be.
import { createRequire, syncBuiltinESMExports } from 'node:module';

const childProcess = createRequire(import.meta.url)('node:child_process') as Record<string, unknown>;

for (const name of ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork']) {
  childProcess[name] = (command: unknown): never => {
    throw new Error(
      `a unit test started a child process (${name} ${String(command)}): unit tests run in-process; ` +
        'name the file *.e2e.test.ts or list it in E2E in vitest.config.ts',
    );
  };
}
syncBuiltinESMExports();
