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

describe('isFileSystemError', () => {
  /** A real failure of a network call: listening on a port another server holds. */
  async function portTaken(): Promise<NodeJS.ErrnoException> {
    const { createServer } = await import('node:net');
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const address = holder.address();
    const port = typeof address === 'object' && address !== null ? address.port : 0;
    const second = createServer();
    try {
      return await new Promise<NodeJS.ErrnoException>((resolve) => {
        second.once('error', resolve);
        second.listen(port, '127.0.0.1');
      });
    } finally {
      holder.close();
    }
  }

  it('is true of a failed file system call', async () => {
    expect(isFileSystemError(await failure('/nowhere/x.yaml'))).toBe(true);
  });

  it('is false of a taken port (listen EADDRINUSE): a network error is never "name a file that exists"', async () => {
    const error = await portTaken();
    expect(error.code).toBe('EADDRINUSE');
    expect(isFileSystemError(error)).toBe(false);
  });

  it.each([
    ['ENOTFOUND', 'getaddrinfo'],
    ['EAI_AGAIN', 'getaddrinfo'],
    ['ECONNREFUSED', 'connect'],
    ['ETIMEDOUT', 'connect'],
    ['EACCES', 'listen'],
    ['EADDRNOTAVAIL', 'bind'],
    ['ECONNRESET', 'read'],
  ])('is false of %s from %s', (code, syscall) => {
    const error = Object.assign(new Error(`${syscall} ${code} db.example`), { code, syscall });
    expect(isFileSystemError(error)).toBe(false);
  });
});
