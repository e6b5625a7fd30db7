// What an `evals` process loads before it does its work: the libraries only some runs need are
// imported when first needed, not at start (undici, the checks engine's HTTP client for a model
// provider, is ~0.13 s of CPU per process, paid by every command that never calls a provider).
// The real binary's program in a process, its loaded CommonJS modules listed as it exits.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

import { REPO_ROOT } from '@paperclip-evals/test-kit/repo';

const MAIN = pathToFileURL(join(REPO_ROOT, 'packages/cli/dist/main.js')).href;
const dir = mkdtempSync(join(tmpdir(), 'evals-startup-'));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** The packages (node_modules/.pnpm/NAME@VERSION) whose CommonJS modules `evals ARGS` loaded. */
function loadedPackages(args: readonly string[]): { status: number | null; packages: string[] } {
  const script = `
    import { createRequire } from 'node:module';
    process.on('exit', () => {
      const names = Object.keys(createRequire(import.meta.url).cache)
        .map((path) => /[\\\\/]\\.pnpm[\\\\/]([^\\\\/]+)[\\\\/]/.exec(path)?.[1])
        .filter((name) => name !== undefined);
      process.stderr.write('LOADED ' + JSON.stringify([...new Set(names)].sort()) + '\\n');
    });
    const { main } = await import(${JSON.stringify(MAIN)});
    await main(['node', 'evals', ...${JSON.stringify(args)}]);`;
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    cwd: dir,
    encoding: 'utf8',
  });
  const line = result.stderr.split('\n').find((text) => text.startsWith('LOADED '));
  if (line === undefined) throw new Error(`no list of loaded modules: ${result.stderr}`);
  return { status: result.status, packages: JSON.parse(line.slice('LOADED '.length)) as string[] };
}

describe('an evals process at start', () => {
  it('loads the checks engine for a report, but not its HTTP client (undici) until a provider is called', () => {
    const { status, packages } = loadedPackages(['grid', '--store', `sqlite:${join(dir, 'none.sqlite')}`]);
    expect(status).toBe(2); // no Evalbook there: the command module was imported and ran
    expect(packages.some((name) => name.startsWith('better-sqlite3@'))).toBe(true);
    expect(packages.filter((name) => name.startsWith('undici@'))).toEqual([]);
  });
});
