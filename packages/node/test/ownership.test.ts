// One owner per job (issue 16): of the Evals packages, only @paperclip-evals/node starts a child
// process or splits a stream into lines (node:child_process, node:readline); every other package
// goes through runBounded, ChildTransport and the one line framer. (The reference runner is the
// App side, walled off from Evals, and the test kit is no shipped package — it starts the servers
// and engines tests drive: neither is scanned.)
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { describe, expect, it } from 'vitest';

const PACKAGES = fileURLToPath(new URL('../../', import.meta.url));
const OWNER = 'node';
const NOT_EVALS = new Set(['reference-runner', 'test-kit']);
const OWNED_MODULES =
  /(?:from\s*|import\s*\(\s*|require\s*\(\s*)['"](?:node:)?(child_process|readline)(?:\/[^'"]*)?['"]/;

/** The first module only the owner may import, in a source text; undefined when there is none. */
function ownedImport(source: string): string | undefined {
  return OWNED_MODULES.exec(source)?.[1];
}

const sources = readdirSync(PACKAGES)
  .filter((name) => name !== OWNER && !NOT_EVALS.has(name) && existsSync(join(PACKAGES, name, 'src')))
  .flatMap((name) =>
    readdirSync(join(PACKAGES, name, 'src'), { recursive: true, encoding: 'utf8' })
      .filter((file) => /\.(ts|mts|js|mjs)$/.test(file))
      .map((file) => join(name, 'src', file)),
  );

describe('only packages/node starts processes and splits lines', () => {
  it('scans the sources of every other Evals package', () => {
    expect(sources.some((file) => file.startsWith('policy/'))).toBe(true);
    expect(sources.some((file) => file.startsWith('checks/'))).toBe(true);
    expect(sources.some((file) => file.startsWith('qualification/'))).toBe(true);
  });

  it.each(sources)('%s imports neither node:child_process nor node:readline', (file) => {
    expect(ownedImport(readFileSync(join(PACKAGES, file), 'utf8'))).toBeUndefined();
  });

  it.each([
    ["import { spawn } from 'node:child_process';", 'child_process'],
    ["import type { ChildProcess } from 'child_process';", 'child_process'],
    ["import { createInterface } from 'node:readline';", 'readline'],
    ["import { createInterface } from 'node:readline/promises';", 'readline'],
    ["const { spawn } = await import('node:child_process');", 'child_process'],
    ["const cp = require('child_process');", 'child_process'],
  ])('the scan finds %s', (source, module) => {
    expect(ownedImport(source)).toBe(module);
  });

  it('lets other modules be', () => {
    expect(ownedImport("import { once } from 'node:events';")).toBeUndefined();
    expect(ownedImport("import { ChildTransport } from '@paperclip-evals/node';")).toBeUndefined();
  });
});
