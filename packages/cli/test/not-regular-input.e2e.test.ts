// Every reader that refuses a path that is not a regular file names what it found and gives advice
// that fits it. The review found `evals digest /tmp` saying "not a regular file (a FIFO, socket or
// device) (EINVAL): name a file or folder that exists" for a directory. Through the real CLI: a
// directory, a FIFO and a socket given to commands that read one file (digest, negotiate's build
// metadata) and to the bundle expander (validate).
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { EVALS_BIN } from '@paperclip-evals/test-kit/repo';

import type { Server } from 'node:net';

let dir: string;
let server: Server;
const run = (args: readonly string[]) =>
  spawnSync(process.execPath, [EVALS_BIN, ...args], { cwd: dir, encoding: 'utf8', timeout: 20_000 });

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'evals-not-regular-'));
  mkdirSync(join(dir, 'folder'));
  expect(spawnSync('mkfifo', [join(dir, 'pipe')]).status).toBe(0);
  server = createServer();
  await new Promise<void>((done) => server.listen(join(dir, 'sock'), done));
});
afterAll(async () => {
  await new Promise((done) => server.close(done));
  rmSync(dir, { recursive: true, force: true });
});

const KINDS = [
  ['folder', 'a directory', 'name a file inside it, not the folder', 'directory'],
  ['pipe', 'a FIFO (named pipe)', 'a FIFO is never read', 'fifo'],
  ['sock', 'a socket', 'a socket is never read', 'socket'],
] as const;

describe.each(KINDS)('when %s is given where a file is read', (name, phrase, advice, kind) => {
  it(`evals digest names ${phrase} and advises for it (exit 2)`, () => {
    const result = run(['digest', name, '--json']);
    expect(result.status).toBe(2);
    const printed = JSON.parse(result.stdout) as { error: { issues: Record<string, unknown>[] } };
    expect(printed.error.issues).toEqual([
      expect.objectContaining({
        code: 'input_unreadable',
        message: expect.stringContaining(`${phrase}, not a regular file (EINVAL): `) as unknown,
        expected: 'a regular file',
        received: kind,
      }),
    ]);
    expect(String(printed.error.issues[0]?.message)).toContain(advice);
    expect(result.stderr).not.toContain('name a file or folder that exists');
  });

  it(`evals negotiate --package-metadata names ${phrase}`, () => {
    const zero = `sha256:${'0'.repeat(64)}`;
    const result = run([
      'negotiate',
      '--package-metadata',
      name,
      '--requirements',
      name,
      '--catalog',
      name,
      '--runnerd',
      name,
      '--runnerd-sha256',
      zero,
    ]);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain(`${phrase}, not a regular file`);
  });
});

describe('when the bundle expander meets a FIFO or a socket in a folder', () => {
  it('evals validate names each kind with its advice', () => {
    mkdirSync(join(dir, 'runs'));
    expect(spawnSync('mkfifo', [join(dir, 'runs', 'a.json')]).status).toBe(0);
    const result = run(['validate', 'runs', 'pipe']);
    expect(result.status).toBe(2);
    expect(result.stdout).toContain('a FIFO (named pipe), not a regular file: name a regular file');
    expect(result.stdout).not.toContain('(a FIFO, socket or device)');
  });
});
