// A reader that stops early (`evals report … | head`, a pager closed) is not a failure (docs/reports.md,
// "Stdout itself is an output too"): the real binary writes a report larger than a pipe holds into a
// pipe whose reader leaves after its first bytes, and exits with the verdict's code (0: the gate
// held), not output_write_failed, and leaves no spool of the report behind in its TMPDIR.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { syntheticAttempt } from '@paperclip-evals/test-kit/synthetic';
import { evalsInProcess } from './support/evals-in-process.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const EVALS = join(ROOT, 'packages/cli/bin/evals.js');

let dir: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'evals-reader-gone-'));
  mkdirSync(join(dir, 'runs'));
  mkdirSync(join(dir, 'tmp'));
  for (let index = 0; index < 60; index++)
    writeFileSync(
      join(dir, 'runs', `a${index}.json`),
      JSON.stringify(syntheticAttempt({ attemptId: `attempt_${index}`, caseId: `case_${index % 6}` })),
    );
  const ingested = await evalsInProcess(['ingest', 'runs', '--store', 'sqlite:book.sqlite'], dir);
  expect(ingested.status, ingested.stderr).toBe(0);
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** The binary with stdout a pipe its reader closes after the first chunk: its exit code and stderr. */
function readFirstChunk(args: string[]): Promise<{ code: number | null; stderr: string; read: number }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [EVALS, ...args], {
      cwd: dir,
      env: { ...process.env, TMPDIR: join(dir, 'tmp'), NO_COLOR: '1' },
    });
    let stderr = '';
    let read = 0;
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdout.once('data', (chunk: Buffer) => {
      read = chunk.length;
      child.stdout.destroy();
    });
    child.on('close', (code) => {
      resolve({ code, stderr, read });
    });
  });
}

describe('a stdout reader that leaves early', () => {
  it.each([
    [
      'report --format json',
      ['report', '--store', 'sqlite:book.sqlite', '--format', 'json', '--fail-on', 'below:0.0'],
    ],
    [
      'report --format csv --out -',
      ['report', '--store', 'sqlite:book.sqlite', '--format', 'csv', '--out', '-'],
    ],
  ])('%s: exits with the verdict, not a write failure, and keeps no spool', async (_name, args) => {
    const { code, stderr, read } = await readFirstChunk(args);
    expect(read).toBeGreaterThan(0);
    expect(stderr).not.toContain('output_write_failed');
    expect(code, stderr).toBe(0);
    expect(readdirSync(join(dir, 'tmp'))).toEqual([]);
  });
});
