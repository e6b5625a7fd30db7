// The digest of a file, read as a stream in constant memory (contract's digestStream over it).
import { createReadStream } from 'node:fs';

import { digestStream } from '@paperclip-evals/contract';

import type { StreamDigest } from '@paperclip-evals/contract';

/** Digest and size of a file, streamed in constant memory. Rejects with the fs error (e.g. ENOENT). */
export function digestFile(path: string): Promise<StreamDigest> {
  return digestStream(createReadStream(path));
}
