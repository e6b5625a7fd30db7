// The validator precompiler's up-to-date check (what lets the tests' global build, scripts/vitest/
// build-setup.ts, run before every test run) covers every file it generates: an output made from
// these schemas is left alone, and an index or any one module missing, edited or stale is rebuilt —
// to the very bytes the build wrote (the build is deterministic). It runs on a copy of the build's
// dist/validators/ (`--out`), never on the folder other tests read.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { PRECOMPILED_VALIDATORS, SCHEMA_IDS } from '../src/schema-registry.ts';

import type { PrecompiledIndex } from '../src/schema-registry.ts';

const SCRIPT = fileURLToPath(new URL('../build/compile-validators.mjs', import.meta.url));
const index = JSON.parse(
  readFileSync(join(PRECOMPILED_VALIDATORS, 'index.json'), 'utf8'),
) as PrecompiledIndex;
const NATIVE = index.ids[SCHEMA_IDS.nativeExecutionV1] ?? '';
const RUNNERD = index.ids[SCHEMA_IDS.runnerdBuildMetadataV1] ?? '';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'evals-compile-validators-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** A fresh copy of the build's folder (newer than every input, as a build leaves it). */
function copy(name: string): string {
  const out = join(dir, name);
  cpSync(PRECOMPILED_VALIDATORS, out, { recursive: true });
  return out;
}

function compile(out: string): void {
  const run = spawnSync(process.execPath, [SCRIPT, '--out', out], { encoding: 'utf8' });
  expect(run.status, run.stderr).toBe(0);
}

/** Every file of a folder and its bytes, by path. */
function files(folder: string): Record<string, string> {
  return Object.fromEntries(
    readdirSync(folder, { recursive: true, encoding: 'utf8' })
      .filter((path) => statSync(join(folder, path)).isFile())
      .sort()
      .map((path) => [path, readFileSync(join(folder, path), 'utf8')]),
  );
}

describe('compile-validators.mjs rebuilds exactly what is out of date', () => {
  it('leaves an up-to-date folder alone (the index is not rewritten)', () => {
    const out = copy('fresh');
    const before = statSync(join(out, 'index.json')).mtimeMs;
    compile(out);
    expect(statSync(join(out, 'index.json')).mtimeMs).toBe(before);
  });

  it.each([
    [
      'a module edited by one byte',
      (out: string) => {
        writeFileSync(join(out, NATIVE), `${readFileSync(join(out, NATIVE), 'utf8')} `);
      },
    ],
    [
      'a module missing, another stamped with other schemas',
      (out: string) => {
        rmSync(join(out, RUNNERD));
        const text = readFileSync(join(out, NATIVE), 'utf8');
        writeFileSync(
          join(out, NATIVE),
          text.replace(
            /exports\.schemasDigest = "sha256:[0-9a-f]{64}"/,
            `exports.schemasDigest = "sha256:${'0'.repeat(64)}"`,
          ),
        );
      },
    ],
    [
      'an index made from other schemas',
      (out: string) => {
        const text = readFileSync(join(out, 'index.json'), 'utf8');
        writeFileSync(
          join(out, 'index.json'),
          text.replace(
            /"schemasDigest": "sha256:[0-9a-f]{64}"/,
            `"schemasDigest": "sha256:${'0'.repeat(64)}"`,
          ),
        );
      },
    ],
  ])('rebuilds %s, to the bytes of the build', (name, spoil) => {
    const out = copy(name.replaceAll(/\W+/g, '-'));
    const built = files(out);
    spoil(out);
    expect(files(out)).not.toEqual(built);
    compile(out);
    expect(files(out)).toEqual(built);
  });
});
