// Reading native-execution bundles from files and streams: bytes are hashed as they arrive and
// reading stops as soon as the size limit is passed, so an oversized input is refused without
// being held in memory.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';

import { ContractError } from './errors.js';
import { DEFAULT_MAX_INPUT_BYTES } from './json-text.js';
import { parseNativeExecution } from './native-execution.js';

import type { Sha256Digest } from './digest.js';
import type { ParseNativeExecutionOptions } from './native-execution.js';
import type { NativeExecution } from './native-execution-types.js';

export interface NativeExecutionInput {
  readonly bundle: NativeExecution;
  /** sha256 of the bytes as read (not of the canonical form). */
  readonly fileSha256: Sha256Digest;
  readonly byteSize: number;
}

/** Reads, hashes and parses one bundle from a stream (stdin, a socket, a file). */
export async function readNativeExecutionStream(
  stream: AsyncIterable<Uint8Array>,
  options: ParseNativeExecutionOptions = {},
): Promise<NativeExecutionInput> {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_INPUT_BYTES;
  const hash = createHash('sha256');
  const chunks: Uint8Array[] = [];
  let byteSize = 0;
  for await (const chunk of stream) {
    byteSize += chunk.byteLength;
    if (byteSize > maxBytes) {
      throw new ContractError(
        'paperclip_native_execution_invalid',
        `input is over the ${maxBytes}-byte limit`,
        [
          {
            code: 'input_too_large',
            message: `input is over the ${maxBytes}-byte limit (reading stopped)`,
            path: '',
            expected: `at most ${maxBytes} bytes`,
            received: `more than ${maxBytes} bytes`,
          },
        ],
      );
    }
    hash.update(chunk);
    chunks.push(chunk);
  }
  const bytes = Buffer.concat(chunks, byteSize);
  const bundle = parseNativeExecution(bytes, options);
  return { bundle, fileSha256: `sha256:${hash.digest('hex')}`, byteSize };
}

/** Reads, hashes and parses one bundle file. I/O failures reject with the fs error (e.g. ENOENT). */
export async function readNativeExecutionFile(
  path: string,
  options: ParseNativeExecutionOptions = {},
): Promise<NativeExecutionInput> {
  const stream = createReadStream(path, { highWaterMark: 1024 * 1024 });
  try {
    return await readNativeExecutionStream(stream, options);
  } finally {
    stream.destroy();
  }
}
