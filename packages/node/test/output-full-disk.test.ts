// A full disk in the one atomic writer (writeOutputFile): a write, flush, close, create or rename
// that fails with ENOSPC, EDQUOT, EROFS or EFBIG is the coded error (paperclip_output_unwritable,
// output_write_failed) naming the user's path, the file system it is on and what to do — and leaves
// nothing half-written: the temporary file removed, the target as it was (or still absent). The
// failure is injected into the very call the writer makes (a spy on node's FileHandle and
// fs/promises, synced into the named imports); /dev/full is the device that is always full.
import fsPromises from 'node:fs/promises';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';

import { ContractError } from '@paperclip-evals/contract';

import { FULL_DISK_CODES, writeOutputFile } from '../src/output-file.ts';

import type { FileHandle } from 'node:fs/promises';

import type { FullDiskCode } from '../src/output-file.ts';

let dir: string;
let counter = 0;
let handleProto: FileHandle;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'evals-output-full-'));
  const probe = await fsPromises.open(join(dir, 'probe'), 'w');
  handleProto = Object.getPrototypeOf(probe) as FileHandle;
  await probe.close();
  rmSync(join(dir, 'probe'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});
afterEach(() => {
  vi.restoreAllMocks();
  syncBuiltinESMExports();
});

const MESSAGES: Record<FullDiskCode, string> = {
  ENOSPC: 'no space left on device',
  EDQUOT: 'disk quota exceeded',
  EROFS: 'read-only file system',
  EFBIG: 'file too large',
};
/** What each code's advice says (after "the file system holding <folder>"). */
const ADVICE: Record<FullDiskCode, RegExp> = {
  ENOSPC: /is full: free space on the file system holding /,
  EDQUOT: /quota on the file system holding .* is used up: free space on the file system holding /,
  EROFS: /the file system holding .* is read-only: name a path on a writable file system/,
  EFBIG: /the file is larger than the file system holding .* allows: free space on the file system holding /,
};

function errno(code: FullDiskCode, syscall: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: ${MESSAGES[code]}, ${syscall}`), { code, syscall, errno: -1 });
}

/** Where the failure is injected: each a call the atomic writer makes. */
const CALLS = ['write', 'sync', 'close', 'open', 'rename'] as const;
type Call = (typeof CALLS)[number];

function inject(call: Call, code: FullDiskCode): void {
  const failure = errno(code, call);
  if (call === 'write') {
    // Half the chunk reaches the file, then the disk is full: a half-written temporary file.
    const real = Reflect.get(handleProto, 'write') as (this: FileHandle, chunk: string) => Promise<unknown>;
    vi.spyOn(handleProto, 'write').mockImplementation(async function (this: FileHandle, chunk: unknown) {
      await real.call(this, String(chunk).slice(0, Math.ceil(String(chunk).length / 2)));
      throw failure;
    });
  } else if (call === 'sync') {
    vi.spyOn(handleProto, 'sync').mockRejectedValue(failure);
  } else if (call === 'close') {
    // close is each handle's own property (not the prototype's): the handle open gives is wrapped.
    const realOpen = fsPromises.open;
    vi.spyOn(fsPromises, 'open').mockImplementation(async (...args: Parameters<typeof realOpen>) => {
      const handle = await realOpen(...args);
      const realClose = handle.close.bind(handle);
      handle.close = async () => {
        await realClose();
        throw failure;
      };
      return handle;
    });
    syncBuiltinESMExports();
  } else if (call === 'open') {
    vi.spyOn(fsPromises, 'open').mockRejectedValue(failure);
    syncBuiltinESMExports();
  } else {
    vi.spyOn(fsPromises, 'rename').mockRejectedValue(failure);
    syncBuiltinESMExports();
  }
}

const rows = FULL_DISK_CODES.flatMap((code) => CALLS.map((call) => [code, call] as const));

describe('a full disk in the atomic writer', () => {
  it.each(rows)(
    '%s at %s over an existing file: coded, named, the file as it was, no temporary left',
    async (code, call) => {
      const folder = join(dir, `case-${++counter}`);
      await fsPromises.mkdir(folder);
      const path = join(folder, 'report.json');
      writeFileSync(path, 'before\n');
      inject(call, code);
      const error = await writeOutputFile(path, (write) => write('after, and a good deal more of it\n')).then(
        () => undefined,
        (failure: unknown) => failure,
      );
      vi.restoreAllMocks();
      syncBuiltinESMExports();
      expect(error).toBeInstanceOf(ContractError);
      expect(error).toMatchObject({
        code: 'paperclip_output_unwritable',
        issues: [{ code: 'output_write_failed', component: path, received: code }],
      });
      const { message } = error as ContractError;
      expect(message).toContain(`cannot write ${path}`);
      expect(message).toMatch(ADVICE[code]);
      expect(message).toContain(`the file system holding ${folder}`);
      expect(message).toContain(`nothing was written to ${path}`);
      expect(message).not.toContain('.tmp');
      expect(readFileSync(path, 'utf8')).toBe('before\n');
      expect(readdirSync(folder)).toEqual(['report.json']);
    },
  );

  it.each(FULL_DISK_CODES)('%s at write of a new file: coded, and nothing is created', async (code) => {
    const folder = mkdtempSync(join(dir, 'new-'));
    const path = join(folder, 'new.json');
    inject('write', code);
    await expect(writeOutputFile(path, (write) => write('x'.repeat(1000)))).rejects.toMatchObject({
      code: 'paperclip_output_unwritable',
      issues: [{ code: 'output_write_failed', received: code }],
      message: expect.stringMatching(ADVICE[code]) as unknown,
    });
    vi.restoreAllMocks();
    expect(existsSync(path)).toBe(false);
    expect(readdirSync(folder)).toEqual([]);
  });

  it('writing /dev/full (a device that is always full) is coded ENOSPC, naming it and what to do', async () => {
    if (!existsSync('/dev/full')) return; // not Linux: no such device
    await expect(writeOutputFile('/dev/full', (write) => write('a report\n'))).rejects.toMatchObject({
      code: 'paperclip_output_unwritable',
      issues: [{ code: 'output_write_failed', component: '/dev/full', received: 'ENOSPC' }],
      message: expect.stringMatching(
        /\/dev\/full is full \(it takes no more bytes\): write to a file on a file system with free space/,
      ) as unknown,
    });
    // Never the old riddle "what /dev/full writes to is full: free space on what /dev/full writes to".
    await expect(writeOutputFile('/dev/full', (write) => write('a report\n'))).rejects.not.toThrow(
      /writes to is full/,
    );
  });

  it('a file in /proc (there, but its file system makes no file): ENOENT said as a refusal, not a missing folder', async () => {
    if (!existsSync('/proc/self')) return; // not Linux: no /proc
    await expect(writeOutputFile('/proc/evals-q.json', (write) => write('{}'))).rejects.toMatchObject({
      code: 'paperclip_output_unwritable',
      issues: [{ code: 'output_write_failed', component: '/proc/evals-q.json', received: 'ENOENT' }],
      message: expect.stringMatching(
        /\/proc is there, but its file system refused to create anything in it .*name a path on a writable file system/,
      ) as unknown,
    });
  });
});
