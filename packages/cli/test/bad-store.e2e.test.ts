// A SQLite store that is garbage, truncated or corrupt mid-file, through the real `evals` binary: the
// evalbook's coded EvalbookError paperclip_evalbook_store_unusable with exit 2 and a store_* issue,
// never exit 70 and a stack trace. And a store that is really read-only (each way this machine can
// make it so: a read-only bind mount, an immutable file, the CLI run as nobody over a 0444 file in a
// 0555 folder) is read by every reading command without a byte of it changing, while a writer is
// refused with a coded error. Each command runs the real binary on the first bad store and on the
// bind-mounted and the nobody-owned store (setpriv needs a process); the other rows, the same
// question of another file, run the binary's main() in-process (support/evals-in-process.ts).
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { syntheticAttempt } from '@paperclip-evals/test-kit/synthetic';
import { evalsInProcess } from './support/evals-in-process.ts';

import type { EvalsRun } from './support/evals-in-process.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const EVALS = join(ROOT, 'node_modules/.bin/evals');

let dir: string;
const run = (args: string[], prefix: readonly string[] = []) => {
  const [command = EVALS, ...rest] = [...prefix, EVALS, ...args];
  return spawnSync(command, rest, { cwd: dir, encoding: 'utf8' });
};
/** `evals ARGS` as the real binary (`spawned`), or its main() in this process. */
const runHow = async (
  spawned: boolean,
  args: string[],
  prefix: readonly string[] = [],
): Promise<EvalsRun> => {
  if (!spawned) return evalsInProcess(args, dir);
  const { status, stdout, stderr } = run(args, prefix);
  return { status: status ?? -1, stdout, stderr };
};

/** The readers, each with --store STORE (and JSON output where the command has it). */
const READERS: readonly [string, (store: string) => string[]][] = [
  ['report', (store) => ['report', '--store', store, '--format', 'json']],
  ['grid', (store) => ['grid', '--store', store, '--json']],
  ['compare', (store) => ['compare', '--a', 'config_a', '--b', 'config_b', '--store', store, '--json']],
  ['runs', (store) => ['runs', '--store', store, '--json']],
];

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'evals-bad-store-'));
  chmodSync(dir, 0o755);
  mkdirSync(join(dir, 'runs'));
  for (const [attemptId, configId] of [
    ['a0', 'config_a'],
    ['a1', 'config_b'],
  ] as const)
    writeFileSync(
      join(dir, 'runs', `${attemptId}.json`),
      JSON.stringify(syntheticAttempt({ attemptId, configId })),
    );
  expect(run(['ingest', 'runs', '--store', 'sqlite:good.sqlite']).status).toBe(0);
  mkdirSync(join(dir, 'more'));
  writeFileSync(join(dir, 'more', 'a2.json'), JSON.stringify(syntheticAttempt({ attemptId: 'a2' })));
  const good = readFileSync(join(dir, 'good.sqlite'));
  writeFileSync(
    join(dir, 'garbage.sqlite'),
    Buffer.from(Array.from({ length: 8192 }, (_, i) => (i * 37 + 11) % 256)),
  );
  writeFileSync(join(dir, 'truncated.sqlite'), good.subarray(0, Math.floor(good.length / 3)));
  writeFileSync(join(dir, 'empty.sqlite'), '');
  // Every page but the first (the schema) overwritten: opening works, reading the rows does not.
  const pageSize = good.readUInt16BE(16);
  const corrupt = Buffer.from(good);
  corrupt.fill(0x5a, pageSize);
  writeFileSync(join(dir, 'corrupt.sqlite'), corrupt);
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('a store that is not a readable Evalbook is a coded store error with exit 2', () => {
  const stores: readonly [string, string][] = [
    ['garbage.sqlite', 'store_corrupt'],
    ['truncated.sqlite', 'store_corrupt'],
    ['corrupt.sqlite', 'store_corrupt'],
    ['empty.sqlite', 'store_not_an_evalbook'],
  ];
  for (const [index, [name, issue]] of stores.entries())
    for (const [command, argsOf] of READERS)
      it(`${command} on ${name}: ${issue} (${index === 0 ? 'process' : 'in-process'})`, async () => {
        const result = await runHow(index === 0, argsOf(`sqlite:${name}`));
        expect(result.stderr).toContain('paperclip_evalbook_store_unusable');
        expect(result.stderr).toContain(issue);
        expect(result.stderr).toContain(name);
        expect(result.stderr).not.toMatch(/\n\s+at /);
        expect(result.status).toBe(2);
        if (command !== 'report') {
          const failure = JSON.parse(result.stdout) as {
            exitCode: number;
            error: { code: string; issues: { code: string }[] };
          };
          expect(failure.exitCode).toBe(2);
          expect(failure.error.code).toBe('paperclip_evalbook_store_unusable');
          expect(failure.error.issues.map((entry) => entry.code)).toContain(issue);
        }
      });

  it.each([
    { name: 'garbage.sqlite', spawned: true },
    { name: 'truncated.sqlite', spawned: false },
  ])(
    'ingest into $name: coded, exit 2, the file untouched (spawned: $spawned)',
    async ({ name, spawned }) => {
      const before = readFileSync(join(dir, name));
      const result = await runHow(spawned, ['ingest', 'runs', '--store', `sqlite:${name}`, '--json']);
      expect(result.stderr).toContain('paperclip_evalbook_store_unusable');
      expect(result.stderr).toContain('store_corrupt');
      expect(result.stderr).not.toMatch(/\n\s+at /);
      expect(result.status).toBe(2);
      expect(readFileSync(join(dir, name)).equals(before)).toBe(true);
    },
  );
});

type Way = 'read-only bind mount' | 'immutable file' | 'run as nobody';

/**
 * Makes the store really read-only, even for root, one way: a read-only bind mount over its folder,
 * an immutable file (chattr +i), or the CLI run as nobody (setpriv) over a 0444 file in a 0555
 * folder. Returns the command prefix and the undo, or null when this machine cannot do it that way.
 */
function readOnly(way: Way, folder: string, file: string): { prefix: string[]; undo: () => void } | null {
  const ok = (command: string, ...args: string[]): boolean => spawnSync(command, args).status === 0;
  chmodSync(file, 0o444);
  chmodSync(folder, 0o555);
  if (way === 'read-only bind mount') {
    if (!ok('mount', '--bind', folder, folder)) return null;
    if (ok('mount', '-o', 'remount,bind,ro', folder)) return { prefix: [], undo: () => ok('umount', folder) };
    ok('umount', folder);
    return null;
  }
  if (way === 'immutable file')
    return ok('chattr', '+i', file) ? { prefix: [], undo: () => ok('chattr', '-i', file) } : null;
  const prefix = ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups'];
  if (process.getuid?.() !== 0) return { prefix: [], undo: () => undefined };
  return ok(prefix[0] ?? '', ...prefix.slice(1), 'true') ? { prefix, undo: () => undefined } : null;
}

const WAYS: readonly Way[] = ['read-only bind mount', 'immutable file', 'run as nobody'];
/** The ways this machine allowed: a way it does not allow is skipped, but never all of them. */
const possible = new Set<Way>();

describe.each(WAYS)('a read-only store (%s)', (way) => {
  let folder: string;
  let store: string;
  let before: Buffer;
  let guard: ReturnType<typeof readOnly>;
  beforeAll(() => {
    folder = join(dir, `ro-${way.replace(/\W+/g, '-')}`);
    mkdirSync(folder);
    store = join(folder, 'book.sqlite');
    copyFileSync(join(dir, 'good.sqlite'), store);
    before = readFileSync(store);
    guard = readOnly(way, folder, store);
    if (guard === null) console.warn(`${way}: not possible on this machine, so these cases are skipped`);
    else possible.add(way);
  });
  afterAll(() => {
    guard?.undo();
    chmodSync(folder, 0o755);
  });
  const url = (): string => `sqlite:${folder.slice(dir.length + 1)}/book.sqlite`;

  it('really cannot be written (the test means something)', (context) => {
    if (guard === null) return context.skip();
    const [command, ...rest] = guard.prefix.length > 0 ? guard.prefix : ['env'];
    expect(spawnSync(command ?? 'env', [...rest, 'sh', '-c', `: >> '${store}'`]).status).not.toBe(0);
  });

  // The immutable file's rows run in-process (root's own open meets the same EPERM).
  const spawned = way !== 'immutable file';
  for (const [command, argsOf] of READERS)
    it(`${command} reads it, and not a byte changes`, async (context) => {
      if (guard === null) return context.skip();
      const result = await runHow(spawned, argsOf(url()), guard.prefix);
      expect(result.stderr).not.toContain('store_');
      expect(result.status).toBe(0);
      if (command === 'report')
        expect((JSON.parse(result.stdout) as { attemptCount: number }).attemptCount).toBe(2);
      expect(readFileSync(store).equals(before)).toBe(true);
    });

  it('a writer (ingest of a new attempt) is refused with a coded store error, exit 2', async (context) => {
    if (guard === null) return context.skip();
    const result = await runHow(spawned, ['ingest', 'more', '--store', url()], guard.prefix);
    expect(result.stderr).toContain('paperclip_evalbook_store_unusable');
    expect(result.stderr).toContain('store_read_only');
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(result.status).toBe(2);
    expect(readFileSync(store).equals(before)).toBe(true);
  });
});

it('reads a read-only store by at least one of the ways (the cases above cannot all be skipped)', () => {
  expect([...possible]).not.toEqual([]);
});
