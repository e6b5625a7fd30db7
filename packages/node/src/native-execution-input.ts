// Reading native-execution bundles from files and streams. An oversized input is refused without
// being held in memory: a file by its size before any read, a stream as soon as it passes the limit.
// A file is read straight into one buffer of its size (no chunk copies); a stream is hashed as it
// arrives.
import { closeSync, constants as fsConstants, fstatSync, lstatSync, openSync, readSync } from 'node:fs';

import {
  ContractError,
  DEFAULT_MAX_INPUT_BYTES,
  parseNativeExecution,
  sha256Digest,
} from '@paperclip-evals/contract';

import { FILE_KINDS, FILE_KIND_PHRASE, fileKindOf } from './file-kind.js';

import type { NativeExecution, ParseNativeExecutionOptions, Sha256Digest } from '@paperclip-evals/contract';

import type { FileKind, KindOfEntry } from './file-kind.js';

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
 * one buffer of its size. I/O failures reject with the fs error (e.g. ENOENT). The reads are
 * synchronous (readFileBytesSync): a bundle is a few kilobytes from the page cache, one
 * synchronous open + fstat + read + close costs ~10 µs where the same four calls through the
 * thread pool cost ~150 µs.
 */
export function readFileBytes(path: string, options: { readonly maxBytes?: number } = {}): Promise<Buffer> {
  try {
    return Promise.resolve(readFileBytesSync(path, options));
  } catch (error) {
    return Promise.reject(error instanceof Error ? error : new Error(String(error)));
  }
}

/**
 * A user-given file's bytes, whatever its size (the caller applies its own limit to what it reads):
 * readFileBytes without a limit, so a directory, FIFO, socket or device at the path is refused
 * (EINVAL, "a FIFO (named pipe), not a regular file") at once instead of blocking the process. Every file the CLI reads from a path a
 * user gave goes through here, readFileBytes or digestFile. With `maxBytes`, a file over it is
 * refused by its size before any read (ContractError input_too_large), as readFileBytes does.
 */
export function readRegularFile(path: string, options: { readonly maxBytes?: number } = {}): Promise<Buffer> {
  return readFileBytes(path, { maxBytes: options.maxBytes ?? Number.POSITIVE_INFINITY });
}

/** readRegularFile without the promise (with `maxBytes`, a larger file refused by its size, unread). */
export function readRegularFileSync(path: string, options: { readonly maxBytes?: number } = {}): Buffer {
  return readFileBytesSync(path, { maxBytes: options.maxBytes ?? Number.POSITIVE_INFINITY });
}

/**
 * readFileBytes without the promise. The file is opened non-blocking, so a FIFO or device put at
 * the path after it was listed cannot hang the process: anything but a regular file is refused
 * (EINVAL, "not a regular file") before a read. One read asks for a byte more than the size: a file
 * that grew meanwhile is read on to its end under the same limit; one that shrank is what is there.
 */
export function readFileBytesSync(path: string, options: { readonly maxBytes?: number } = {}): Buffer {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_INPUT_BYTES;
  const fd = openedOrNamed(path, () => openSync(path, fsConstants.O_RDONLY | fsConstants.O_NONBLOCK));
  try {
    const info = fstatSync(fd);
    if (!info.isFile()) throw notARegularFile(path, info);
    const { size } = info;
    if (size > maxBytes) throw tooLarge(maxBytes, `${size} bytes (not read)`);
    let bytes = Buffer.allocUnsafe(size + 1);
    let filled = 0;
    for (;;) {
      const bytesRead = readSync(fd, bytes, filled, bytes.byteLength - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
      if (filled > maxBytes) throw tooLarge(maxBytes, `more than ${maxBytes} bytes (reading stopped)`);
      if (filled === bytes.byteLength) {
        // It grew while we read: on to its end, in a buffer twice the size (at most a byte past the limit).
        const larger = Buffer.allocUnsafe(Math.min(bytes.byteLength * 2, maxBytes + 1));
        bytes.copy(larger, 0, 0, filled);
        bytes = larger;
      }
    }
    return bytes.subarray(0, filled);
  } finally {
    closeSync(fd);
  }
}

/** An fs-style error that names what the path was instead of a regular file (its `fileKind`). */
export interface NotRegularFileError extends NodeJS.ErrnoException {
  readonly fileKind: FileKind;
}

/**
 * The fs-style error for a path that is no regular file (a directory, or a FIFO or device swapped
 * in after listing), naming what it found: "EINVAL: a directory, not a regular file, open 'x'".
 */
export function notARegularFile(path: string, found: KindOfEntry): NotRegularFileError {
  const fileKind = fileKindOf(found);
  return Object.assign(
    new Error(`EINVAL: ${FILE_KIND_PHRASE[fileKind]}, not a regular file, open '${path}'`),
    {
      code: 'EINVAL',
      syscall: 'open',
      path,
      fileKind,
    },
  );
}

/**
 * `open()`, with the refusal named: opening a socket fails (ENXIO) before it can be fstat'ed, so
 * that failure becomes the notARegularFile error naming what is at the path.
 */
export function openedOrNamed<T>(path: string, open: () => T): T {
  try {
    return open();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENXIO') throw error;
    const found = (() => {
      try {
        return lstatSync(path);
      } catch {
        return null;
      }
    })();
    if (found === null || found.isFile()) throw error;
    throw notARegularFile(path, found);
  }
}

/** The kind a notARegularFile error names, or undefined for any other error. */
export function notRegularKindOf(error: unknown): FileKind | undefined {
  const kind = (error as Partial<NotRegularFileError> | null)?.fileKind;
  return typeof kind === 'string' && (FILE_KINDS as readonly string[]).includes(kind) ? kind : undefined;
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
