// The review's own steps with the real binary (S1, data loss): `evals report --store sqlite:a.sqlite
// --format html --out .evalbook/evalbook.sqlite` replaced the default Evalbook with HTML and exited
// 0, and `evals runs` then failed store_corrupt. Now the report is refused (exit 2, the issue and
// what to do on stderr), the default Evalbook is byte for byte what it was and `evals runs` reads it;
// `qualify --out` at another ledger likewise. The rows of every command are in-process
// (output-database.unit.test.ts).
import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const REPO = fileURLToPath(new URL('../../../', import.meta.url));
const EVALS = join(REPO, 'packages/cli/bin/evals.js');
const VALID = join(REPO, 'fixtures/attempts/valid');

let dir = '';
const evals = (...args: string[]) => {
  const result = spawnSync(process.execPath, [EVALS, ...args], { encoding: 'utf8', cwd: dir });
  return { code: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
};

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'evals-output-database-e2e-'));
  expect(evals('ingest', VALID, '--store', 'sqlite:a.sqlite').code).toBe(0);
  expect(evals('ingest', VALID).code).toBe(0); // the default Evalbook, .evalbook/evalbook.sqlite
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('--out never destroys a ledger (the binary)', () => {
  it('report --format html --out the default Evalbook: refused, the Evalbook intact, evals runs reads it', async () => {
    const before = await readFile(join(dir, '.evalbook/evalbook.sqlite'));
    const report = evals(
      'report',
      '--store',
      'sqlite:a.sqlite',
      '--format',
      'html',
      '--out',
      '.evalbook/evalbook.sqlite',
    );
    expect(report.code).toBe(2);
    expect(report.stdout).toBe('');
    expect(report.stderr).toContain(
      'output_is_a_database at .evalbook/evalbook.sqlite: it is a SQLite database',
    );
    expect(report.stderr).toContain('nothing was written');
    expect(await readFile(join(dir, '.evalbook/evalbook.sqlite'))).toEqual(before);
    const runs = evals('runs');
    expect(runs.code).toBe(0);
    expect(runs.stderr).not.toContain('store_corrupt');
  });

  it('qualify --release-dir r4 --out a2.sqlite (another ledger): refused before any work', async () => {
    expect(evals('ingest', VALID, '--store', 'sqlite:a2.sqlite').code).toBe(0);
    const before = await readFile(join(dir, 'a2.sqlite'));
    await mkdir(join(dir, 'r4'));
    const qualify = evals('qualify', '--release-dir', 'r4', '--out', 'a2.sqlite');
    expect(qualify.code).toBe(2);
    expect(qualify.stderr).toContain('output_is_a_database');
    expect(await readFile(join(dir, 'a2.sqlite'))).toEqual(before);
  });
});
