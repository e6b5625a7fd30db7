// How a failed file system call reads in a message: the user's path, what happened, its code — one
// rendering for the CLI's diagnostics, the app's refusals and the output writer's issues.
import { open } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';

import { fileSystemText, fileSystemWhat, isFileSystemError } from '../src/bundle-inputs.ts';

async function failure(path: string): Promise<NodeJS.ErrnoException> {
  try {
    await open(path);
  } catch (error) {
    if (isFileSystemError(error)) return error;
    throw error;
  }
  throw new Error(`${path} opened`);
}

describe('fileSystemText', () => {
  it('names the path, then what happened and its code', async () => {
    const error = await failure('/nowhere/x.yaml');
    expect(fileSystemWhat(error)).toBe('no such file or directory');
    expect(fileSystemText(error)).toBe('/nowhere/x.yaml: no such file or directory (ENOENT)');
  });

  it('falls back to the syscall without a code, and to the message without a path', () => {
    const noCode = Object.assign(new Error("EACCES: permission denied, open 'a'"), {
      syscall: 'open',
      path: 'a',
    });
    expect(fileSystemText(noCode)).toBe('a: permission denied (open)');
    const noPath = Object.assign(new Error('EPIPE: broken pipe, write'), { code: 'EPIPE', syscall: 'write' });
    expect(fileSystemText(noPath)).toBe('EPIPE: broken pipe, write');
  });
});
