// What an output that cannot be written says is true and says what to do (a new user's review):
// `publish --out /proc/site` is not "the folder /proc is not there" (it is; its file system refused
// the folder, ENOENT), a site whose parent is really missing still is `site_folder_missing` with the
// mkdir to run, and `report --out /dev/full` says /dev/full is full, not "what /dev/full writes to is
// full: free space on what /dev/full writes to". In-process, on Linux's /proc and /dev/full.
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { evals } from './support/evals-in-process.ts';

const VALID = fileURLToPath(new URL('../../../fixtures/attempts/valid', import.meta.url));
const LINUX = existsSync('/proc/self') && existsSync('/dev/full');

let dir = '';
let store = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'evals-output-refusals-'));
  store = `sqlite:${join(dir, 'book.sqlite')}`;
  expect((await evals('ingest', VALID, '--store', store)).code).toBe(0);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe.runIf(LINUX)('outputs a file system refuses', () => {
  it('publish --out /proc/site: the folder is there, its file system refused (ENOENT), what to do', async () => {
    const run = await evals('publish', '--store', store, '--out', '/proc/evals-site', '--json');
    expect(run.code).toBe(2);
    expect(run.stderr).not.toContain('is not there');
    expect(run.stderr).toContain(
      'cannot make a folder in /proc: it is there, but its file system refused it (ENOENT; a virtual one such as /proc or /sys makes none): name an --out on a writable file system',
    );
    expect(JSON.parse(run.stdout)).toMatchObject({
      error: { issues: [{ code: 'site_folder_unwritable', received: 'ENOENT' }] },
    });
  });

  it('publish --out in a folder that is really missing: site_folder_missing, and the mkdir to run', async () => {
    const parent = join(dir, 'no such folder');
    const run = await evals('publish', '--store', store, '--out', join(parent, 'site'), '--json');
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`the folder ${parent} is not there: make it first (mkdir -p '${parent}')`);
    expect(JSON.parse(run.stdout)).toMatchObject({ error: { issues: [{ code: 'site_folder_missing' }] } });
  });

  it('report --out /dev/full: /dev/full is full, and what to do', async () => {
    const run = await evals('report', '--store', store, '--format', 'md', '--out', '/dev/full');
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      '/dev/full is full (it takes no more bytes): write to a file on a file system with free space',
    );
    expect(run.stderr).not.toContain('writes to is full');
  });

  it('report --out /proc/q.json: not a missing folder, a file system that makes no file', async () => {
    const run = await evals('report', '--store', store, '--format', 'md', '--out', '/proc/evals-q.md');
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('/proc is there, but its file system refused to create anything in it');
  });
});
