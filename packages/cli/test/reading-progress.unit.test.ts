// Reading the Evalbook can take a while (a large store, a remote PostgreSQL): on a terminal `evals
// report`, `grid` and `compare` draw one progress line on stderr at once and clear it before
// anything else is printed; piped, they print none. In-process, stderr a terminal or not.
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeBundles } from '@paperclip-evals/test-kit/bundle-files';

import { evalsOn, evalsOnTerminal } from './support/evals-in-process.ts';

const VALID = fileURLToPath(new URL('../../../fixtures/attempts/valid', import.meta.url));
const ERASE = '\r\u001b[K';

let dir = '';
let store = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'evals-reading-progress-'));
  store = `sqlite:${join(dir, 'book.sqlite')}`;
  await mkdir(join(dir, 'run-two'));
  await writeBundles(join(dir, 'run-two'), 3, { runId: 'run_two' });
  expect((await evalsOn(false, 'ingest', VALID, join(dir, 'run-two'), '--store', store)).code).toBe(0);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
  await rm(join(tmpdir(), `evals-progress-${process.pid}.md`), { force: true });
});

const COMMANDS: [string, string, string[]][] = [
  // The report is written by node's writeOutputFile (stdout itself, not this sink): to a file here.
  [
    'report',
    'reporting',
    ['report', '--format', 'md', '--out', join(tmpdir(), `evals-progress-${process.pid}.md`)],
  ],
  ['grid', 'grid', ['grid']],
  ['compare', 'comparing', ['compare', '--a-run', 'run_synthetic', '--b-run', 'run_two']],
];

describe('a progress line while the Evalbook is read', () => {
  it.each(COMMANDS)(
    '%s: drawn on a terminal at once, then cleared; the result on stdout',
    async (_name, what, args) => {
      const run = await evalsOn(true, ...args, '--store', store);
      expect(run.stderr.startsWith(`${ERASE}${what}: reading the Evalbook…${ERASE}`), run.stderr).toBe(true);
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).not.toContain('\u001b[K');
      if (!args.includes('--out')) expect(run.stdout).not.toBe('');
      // What is said after the progress (report's "wrote …") starts on the cleared line.
      expect(run.stderr.slice(`${ERASE}${what}: reading the Evalbook…${ERASE}`.length)).not.toContain('\r');
    },
  );

  it.each(COMMANDS)('%s: none when stderr is not a terminal', async (_name, what, args) => {
    const run = await evalsOn(false, ...args, '--store', store);
    expect(run.stderr).not.toContain(`${what}: reading`);
    expect(run.stderr).not.toContain('\u001b');
  });

  it('cleared before a failure is described (a config the store lacks)', async () => {
    const run = await evalsOn(
      true,
      'compare',
      '--a-run',
      'run_synthetic',
      '--b-run',
      'nope',
      '--store',
      store,
    );
    expect(run.code).toBe(2);
    expect(run.stderr.startsWith(`${ERASE}comparing: reading the Evalbook…${ERASE}evals: `), run.stderr).toBe(
      true,
    );
  });
});

describe('the grid table', () => {
  it.each([[[]], [['--all-runs']], [['--run', 'run_synthetic']]])(
    'no line ends in a space (each column padded but the last) %j',
    async (extra) => {
      const run = await evalsOn(false, 'grid', ...extra, '--store', store);
      expect(run.code).toBe(0);
      expect(run.stdout.split('\n').filter((line) => / $/.test(line))).toEqual([]);
      expect(run.stdout).toMatch(/^case {2,}config_synthetic$/m);
    },
  );
});

describe('publish and publish --verify: a progress line on a terminal, none elsewhere', () => {
  // A terminal wide enough for the whole line (a temporary folder's path is long; at 80 columns it is cut).
  it('publish: drawn at once, redrawn per campaign folder, cleared at the end', async () => {
    const site = join(dir, 'site-tty');
    const run = await evalsOnTerminal(
      { columns: 200 },
      'publish',
      '--store',
      store,
      '--out',
      site,
      '--threads',
      '1',
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr.startsWith(`${ERASE}publishing into ${site}: 0 campaign folder(s) done · 0s`)).toBe(
      true,
    );
    expect(run.stderr).toContain(`${ERASE}publishing into ${site}: 2 campaign folder(s) done · `);
    expect(run.stderr).toMatch(/evals: campaigns\/run_two: published/);
    expect(run.stderr.endsWith(ERASE)).toBe(true);
    const verify = await evalsOnTerminal({ columns: 200 }, 'publish', '--verify', site, '--threads', '1');
    expect(verify.code, verify.stderr).toBe(0);
    expect(verify.stderr.startsWith(`${ERASE}verifying ${site}: 0s`)).toBe(true);
    expect(verify.stderr.endsWith(ERASE)).toBe(true);
    expect(verify.stderr).not.toContain('campaign folder(s) done');
  });

  it('none when stderr is not a terminal, nor with --json', async () => {
    const site = join(dir, 'site-piped');
    const piped = await evalsOn(false, 'publish', '--store', store, '--out', site, '--threads', '1');
    expect(piped.code, piped.stderr).toBe(0);
    expect(piped.stderr).not.toContain('\u001b');
    const json = await evalsOn(true, 'publish', '--verify', site, '--threads', '1', '--json');
    expect(json.code).toBe(0);
    expect(json.stderr).toBe('');
  });
});
