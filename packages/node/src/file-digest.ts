// Streaming a regular file, read once in constant memory: regularFileChunks (its bytes chunk by
// chunk, up to a limit) and digestFile (its sha256, contract's digestStream over those chunks).
// The file is opened non-blocking and must be a regular file: a FIFO, socket or device at the path
// is refused at once (EINVAL) instead of blocking the process. The limit comes before any read: a
// file whose size on the open descriptor is over it is refused (EFBIG) without a byte read, and
// one that grows past it while it is read is refused there (EFBIG, never read past a byte more
// than the limit).
import { constants as fsConstants } from 'node:fs';
import { open } from 'node:fs/promises';

import { digestStream } from '@paperclip-evals/contract';

import { notARegularFile, openedOrNamed } from './native-execution-input.js';

import type { StreamDigest } from '@paperclip-evals/contract';

/** How much one read asks for. */
const CHUNK_BYTES = 64 * 1024;

/**
 * The bytes of the regular file at `path`, chunk by chunk (each a fresh buffer), closed when the
 * iteration ends or stops. Rejects with the fs error (ENOENT, EINVAL for no regular file, EFBIG
 * for a file over `maxBytes` — by its size before the first read, or once more were read; no limit
 * by default).
 */
export async function* regularFileChunks(
  path: string,
  options: { readonly maxBytes?: number } = {},
): AsyncGenerator<Buffer> {
  const maxBytes = options.maxBytes ?? Number.POSITIVE_INFINITY;
  // A socket fails the open itself (ENXIO): openedOrNamed names it as it names any other kind.
  const handle = await open(path, fsConstants.O_RDONLY | fsConstants.O_NONBLOCK).catch((error: unknown) =>
    openedOrNamed<never>(path, () => {
      throw error;
    }),
  );
  try {
    const info = await handle.stat();
    if (!info.isFile()) throw notARegularFile(path, info);
    if (info.size > maxBytes) throw fileTooLarge(path, maxBytes, `it is ${info.size} bytes (not read)`);
    let byteSize = 0;
    for (;;) {
      const length = Math.min(CHUNK_BYTES, maxBytes + 1 - byteSize);
      const buffer = Buffer.allocUnsafe(length);
      const { bytesRead } = await handle.read(buffer, 0, length, null);
      if (bytesRead === 0) return;
      byteSize += bytesRead;
      if (byteSize > maxBytes) throw fileTooLarge(path, maxBytes, 'reading stopped');
      yield buffer.subarray(0, bytesRead);
    }
  } finally {
    await handle.close();
  }
}

/**
 * Digest and size of a regular file, streamed in constant memory. Rejects with the fs error (e.g.
 * ENOENT, EINVAL; EFBIG for a file over `maxBytes`, refused by its size before it is hashed).
 */
export function digestFile(
  path: string,
  options: { readonly maxBytes?: number } = {},
): Promise<StreamDigest> {
  return digestStream(regularFileChunks(path, options));
}

/** The fs-style error of a file read past its limit (reading stopped there). */
function fileTooLarge(path: string, maxBytes: number, how: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`EFBIG: file is over the ${maxBytes}-byte limit (${how}), read '${path}'`), {
    code: 'EFBIG',
    syscall: 'read',
    path,
  });
}
