// Nothing a user must see is hidden, end to end through the real `evals` binary: a missing
// --artifact-root is a usage error; ingest and every report say how many attempts had their
// artifacts verified, unverified, mismatched; a failed ingest leaves no empty store behind; grid and
// compare --json print one JSON error object on stdout when they fail. Each command runs the real
// binary at least once (`spawned`); the other rows run its main() in-process
// (support/evals-in-process.ts), which sees the same exit code, stdout and stderr.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { syntheticAttempt } from '@paperclip-evals/test-kit/synthetic';
import { evalsInProcess } from './support/evals-in-process.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const EVALS = join(ROOT, 'node_modules/.bin/evals');

interface Run {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

let dir: string;
/** The real `evals` binary. */
const spawned = (args: string[], cwd = dir): Run => {
  const result = spawnSync(EVALS, args, {
    cwd,
    input: '',
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
};
/** The binary's main() in this process. */
const evals = (args: string[], cwd = dir): Promise<Run> => evalsInProcess(args, cwd);

type Bundle = Record<string, unknown> & {
  transcript: { uri: string; sha256: string; byteSize: number };
  artifacts: { uri: string; sha256: string; byteSize: number }[];
};

/** An attempt whose transcript and artifact bytes are written under `artifacts/` (verifiable). */
function verifiableAttempt(attemptId: string, configId: string, corrupt = false): Bundle {
  const bundle = syntheticAttempt({ attemptId, configId }) as Bundle;
  for (const ref of [bundle.transcript, ...bundle.artifacts]) {
    const bytes = `${ref.uri}\n`;
    const file = join(dir, 'artifacts', ref.uri.slice('artifact://native/'.length));
    mkdirSync(join(file, '..'), { recursive: true });
    writeFileSync(file, corrupt ? `${bytes}tampered` : bytes);
    ref.sha256 = `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
    ref.byteSize = Buffer.byteLength(bytes);
  }
  return bundle;
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'evals-nothing-hidden-'));
  for (const folder of ['verified', 'unverified', 'mismatched', 'invalid']) mkdirSync(join(dir, folder));
  mkdirSync(join(dir, 'artifacts'));
  for (const [index, configId] of ['baseline', 'candidate', 'baseline'].entries())
    writeFileSync(
      join(dir, 'verified', `v${index}.json`),
      JSON.stringify(verifiableAttempt(`verified_${index}`, configId)),
    );
  // Its files are not under the artifact root: unverified, not an error.
  writeFileSync(
    join(dir, 'unverified', 'u.json'),
    JSON.stringify(syntheticAttempt({ attemptId: 'unverified_0', configId: 'candidate' })),
  );
  writeFileSync(
    join(dir, 'mismatched', 'm.json'),
    JSON.stringify(verifiableAttempt('mismatched_0', 'baseline', true)),
  );
  const bad = syntheticAttempt({ attemptId: 'bad' }) as Record<string, unknown>;
  delete bad.usage;
  writeFileSync(join(dir, 'invalid', 'bad.json'), JSON.stringify(bad));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('--artifact-root', () => {
  it.each([
    ['no-such-dir', /--artifact-root no-such-dir: no such directory/],
    ['verified/v0.json', /--artifact-root verified\/v0\.json: not a directory/],
  ])('%s is a usage error (exit 2), and nothing is created', async (root, says) => {
    const args = ['ingest', 'verified', '--artifact-root', root, '--store', 'sqlite:root.sqlite'];
    const run = root === 'no-such-dir' ? spawned(args) : await evals(args);
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(says);
    expect(existsSync(join(dir, 'root.sqlite'))).toBe(false);
  });
});

describe('artifact verification counts', () => {
  const store = 'sqlite:counts.sqlite';
  beforeAll(async () => {
    const run = await evals([
      'ingest',
      'verified',
      'unverified',
      'mismatched',
      '--artifact-root',
      'artifacts',
      '--store',
      store,
      '--json',
    ]);
    expect(run.status, run.stderr).toBe(1); // the mismatched bundle is refused
  });

  it('ingest states them, in its summary and its --json', async () => {
    const run = spawned([
      'ingest',
      'verified',
      'unverified',
      'mismatched',
      '--artifact-root',
      'artifacts',
      '--store',
      store,
    ]);
    expect(run.stdout).toContain(
      'artifacts of the valid attempts: 3 verified, 1 unverified, 1 mismatched, 0 refused',
    );
    const json = await evals([
      'ingest',
      'verified',
      'unverified',
      'mismatched',
      '--artifact-root',
      'artifacts',
      '--store',
      store,
      '--json',
    ]);
    expect((JSON.parse(json.stdout) as { artifacts: unknown }).artifacts).toEqual({
      verified: 3,
      unverified: 1,
      mismatched: 1,
      refused: 0,
      refusedReasons: { outside_root: 0, symlink: 0, not_a_file: 0, unreadable: 0 },
    });
    const without = await evals(['ingest', 'verified', '--store', store]);
    expect(without.stdout).toContain(
      'artifacts of the valid attempts: 0 verified, 3 unverified, 0 mismatched, 0 refused (no --artifact-root: nothing could be verified)',
    );
  });

  it('every report format states them (json, md, html, junit), and grid and compare', async () => {
    const report = async (format: string): Promise<string> =>
      (await evals(['report', '--format', format, '--store', store])).stdout;
    expect(
      (
        JSON.parse(spawned(['report', '--format', 'json', '--store', store]).stdout) as {
          summary: { artifactVerification: unknown };
        }
      ).summary.artifactVerification,
    ).toEqual({
      verified: 3,
      unverified: 1,
      mismatched: 0,
    });
    expect(await report('md')).toContain('Artifacts of the attempts: 3 verified, 1 unverified, 0 mismatched');
    expect(await report('html')).toMatch(
      /data-summary="artifacts" data-verified="3" data-unverified="1" data-mismatched="0"/,
    );
    expect(await report('junit')).toContain('<property name="artifacts.verified" value="3"/>');
    expect((await evals(['grid', '--store', store])).stdout).toContain(
      'artifacts of the attempts: 3 verified, 1 unverified, 0 mismatched.',
    );
    const grid = JSON.parse((await evals(['grid', '--json', '--store', store])).stdout) as {
      artifactVerification: unknown;
    };
    expect(grid.artifactVerification).toEqual({ verified: 3, unverified: 1, mismatched: 0 });
    const compare = ['compare', '--a', 'baseline', '--b', 'candidate', '--store', store];
    expect(spawned(compare).stdout).toContain(
      'artifacts of the attempts: 3 verified, 1 unverified, 0 mismatched.',
    );
  });
});

describe('a failed ingest leaves no empty store behind', () => {
  it('only invalid bundles into a new default store: exit 1, no .evalbook/ at all', () => {
    const cwd = mkdtempSync(join(dir, 'fresh-'));
    const run = spawned(['ingest', join(dir, 'invalid')], cwd);
    expect(run.status).toBe(1);
    expect(readdirSync(cwd)).toEqual([]);
  });

  it('only unreadable inputs into a new store in a new folder: exit 2, neither the file nor the folder', async () => {
    const run = await evals(['ingest', 'absent.json', '--store', 'sqlite:new-folder/deeper/book.sqlite']);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('the folder new-folder/deeper does not exist');
    expect(existsSync(join(dir, 'new-folder'))).toBe(false);
  });

  it('a mismatch refused into a new store leaves nothing; a store that existed is kept as it was', async () => {
    expect(
      (await evals(['ingest', 'mismatched', '--artifact-root', 'artifacts', '--store', 'sqlite:m.sqlite']))
        .status,
    ).toBe(1);
    expect(existsSync(join(dir, 'm.sqlite'))).toBe(false);
    expect((await evals(['ingest', 'unverified', '--store', 'sqlite:kept.sqlite'])).status).toBe(0);
    expect((await evals(['ingest', 'invalid', '--store', 'sqlite:kept.sqlite'])).status).toBe(1);
    expect(existsSync(join(dir, 'kept.sqlite'))).toBe(true);
    expect((await evals(['grid', '--json', '--store', 'sqlite:kept.sqlite'])).status).toBe(0);
  });

  it('a store that gets attempts is written as before', async () => {
    mkdirSync(join(dir, 'mixed')); // a store the user names is created only in a folder that exists
    const run = await evals(['ingest', 'unverified', 'invalid', '--store', 'sqlite:mixed/book.sqlite']);
    expect(run.status).toBe(1);
    expect(existsSync(join(dir, 'mixed', 'book.sqlite'))).toBe(true);
  });
});

describe('grid --json and compare --json on a failure', () => {
  /** The first grid row and the first compare row run the real binary. */
  const FIRST_ROWS = new Set([
    'grid --json --store sqlite:absent.sqlite',
    'compare --json --store sqlite:counts.sqlite --a baseline',
  ]);
  it.each([
    [
      ['grid', '--json', '--store', 'sqlite:absent.sqlite'],
      'paperclip-evals/grid/v1',
      2,
      /no Evalbook at absent\.sqlite/,
    ],
    [
      ['grid', '--json', '--store', 'sqlite:counts.sqlite', '--run', 'no-such-run'],
      'paperclip-evals/grid/v1',
      2,
      /no-such-run/,
    ],
    [
      ['compare', '--json', '--store', 'sqlite:counts.sqlite', '--a', 'baseline'],
      'paperclip-evals/compare/v1',
      2,
      /--a and --b go together/,
    ],
    [
      ['compare', '--json', '--store', 'sqlite:counts.sqlite', '--a', 'baseline', '--b', 'nope'],
      'paperclip-evals/compare/v1',
      2,
      /nope/,
    ],
    [
      ['compare', '--json', '--store', 'mysql://u:pw-123@h/db', '--a', 'a', '--b', 'b'],
      'paperclip-evals/compare/v1',
      2,
      /unknown store URL/,
    ],
  ] as const)('%j prints {schema, exitCode, error} on stdout', async (args, schema, exitCode, says) => {
    const run = FIRST_ROWS.has(args.join(' ')) ? spawned([...args]) : await evals([...args]);
    expect(run.status).toBe(exitCode);
    const failure = JSON.parse(run.stdout) as {
      schema: string;
      exitCode: number;
      error: { code: string | null; message: string; issues: unknown[] };
    };
    expect(failure).toMatchObject({ schema, exitCode });
    expect(Array.isArray(failure.error.issues)).toBe(true);
    // What it says is in its message or, for an unknown scope, in the issue naming where.
    expect(JSON.stringify(failure.error)).toMatch(says);
    expect(run.stderr).toMatch(says);
    expect(run.stdout).not.toContain('pw-123');
  });

  it('without --json the failure stays on stderr and stdout is empty', () => {
    const run = spawned(['grid', '--store', 'sqlite:absent.sqlite']);
    expect(run.status).toBe(2);
    expect(run.stdout).toBe('');
  });
});
