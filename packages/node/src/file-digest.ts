// The digest of a file, read as a stream in constant memory (contract's digestStream over it). The
// file is opened non-blocking and must be a regular file: a FIFO or device at the path is refused at
// once (EINVAL) instead of blocking the process.
import { constants as fsConstants } from 'node:fs';
import { open } from 'node:fs/promises';

import { digestStream } from '@paperclip-evals/contract';

import { notARegularFile } from './native-execution-input.js';

import type { StreamDigest } from '@paperclip-evals/contract';

/** Digest and size of a regular file, streamed in constant memory. Rejects with the fs error (e.g. ENOENT, EINVAL). */
export async function digestFile(path: string): Promise<StreamDigest> {
  const handle = await open(path, fsConstants.O_RDONLY | fsConstants.O_NONBLOCK);
  try {
    if (!(await handle.stat()).isFile()) throw notARegularFile(path);
  } catch (error) {
    await handle.close();
    throw error;
  }
  // The stream closes the handle when it ends or fails.
  return digestStream(handle.createReadStream());
}
