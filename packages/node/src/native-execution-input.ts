// Reading native-execution bundles from files and streams. An oversized input is refused without
// being held in memory: a file by its size before any read, a stream as soon as it passes the limit.
// A file is read straight into one buffer of its size (no chunk copies); a stream is hashed as it
// arrives.
import { open } from 'node:fs/promises';

import {
  ContractError,
  DEFAULT_MAX_INPUT_BYTES,
  parseNativeExecution,
  sha256Digest,
} from '@paperclip-evals/contract';

import type { NativeExecution, ParseNativeExecutionOptions, Sha256Digest } from '@paperclip-evals/contract';

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
  return parseBytes(await readStreamBytes(stream, options), options);
}

/** Reads, hashes and parses one bundle file. I/O failures reject with the fs error (e.g. ENOENT). */
export async function readNativeExecutionFile(
  path: string,
  options: ParseNativeExecutionOptions = {},
): Promise<NativeExecutionInput> {
  return parseBytes(await readFileBytes(path, options), options);
}

/** A stream's bytes, refused as soon as they pass the limit (ContractError input_too_large). */
export async function readStreamBytes(
  stream: AsyncIterable<Uint8Array>,
  options: { readonly maxBytes?: number } = {},
): Promise<Buffer> {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_INPUT_BYTES;
  const chunks: Uint8Array[] = [];
  let byteSize = 0;
  for await (const chunk of stream) {
    byteSize += chunk.byteLength;
    if (byteSize > maxBytes) throw tooLarge(maxBytes, `more than ${maxBytes} bytes (reading stopped)`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, byteSize);
}

/**
 * A file's bytes: refused by its size before any read when over the limit, else read straight into
 * one buffer of its size. I/O failures reject with the fs error (e.g. ENOENT).
 */
export async function readFileBytes(
  path: string,
  options: { readonly maxBytes?: number } = {},
): Promise<Buffer> {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_INPUT_BYTES;
  const handle = await open(path, 'r');
  try {
    const { size } = await handle.stat();
    if (size > maxBytes) throw tooLarge(maxBytes, `${size} bytes (not read)`);
    const bytes = Buffer.allocUnsafe(size);
    let filled = 0;
    while (filled < size) {
      const { bytesRead } = await handle.read(bytes, filled, size - filled, filled);
      if (bytesRead === 0) break; // the file shrank while we read: parse what is there
      filled += bytesRead;
    }
    // A file that grew while we read is read again as a stream, under the same limit.
    const { bytesRead: more } = await handle.read(Buffer.alloc(1), 0, 1, filled);
    if (more > 0)
      return await readStreamBytes(handle.createReadStream({ start: 0, autoClose: false }), options);
    return bytes.subarray(0, filled);
  } finally {
    await handle.close();
  }
}

function parseBytes(bytes: Buffer, options: ParseNativeExecutionOptions): NativeExecutionInput {
  const bundle = parseNativeExecution(bytes, options);
  return { bundle, fileSha256: sha256Digest(bytes), byteSize: bytes.byteLength };
}

function tooLarge(maxBytes: number, received: string): ContractError {
  return new ContractError('paperclip_native_execution_invalid', `input is over the ${maxBytes}-byte limit`, [
    {
      code: 'input_too_large',
      message: `input is over the ${maxBytes}-byte limit`,
      path: '',
      expected: `at most ${maxBytes} bytes`,
      received,
    },
  ]);
}
