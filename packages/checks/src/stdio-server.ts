// The checks engine on stdin/stdout: NDJSON framing (one JSON object per line, a byte cap per line),
// requests handled strictly one at a time so responses leave in request order, and nothing but
// responses written to stdout. It ends when stdin closes, or after shutdown once the pipe has been
// quiet for SHUTDOWN_GRACE_MS: a request already written behind shutdown is answered 3003, not lost.
import { once } from 'node:events';

import { RPC_ERROR, RpcError } from './errors.js';
import { MAX_REQUEST_LINE_BYTES } from './engine-server.js';

import type { Readable, Writable } from 'node:stream';

import type { EngineServer } from './engine-server.js';

export type Frame = { readonly line: Buffer } | { readonly oversizeBytes: number };

/** Splits a byte stream into lines; a line longer than maxBytes is skipped whole and reported. */
export async function* ndjsonFrames(
  input: AsyncIterable<Buffer | string>,
  maxBytes: number,
): AsyncGenerator<Frame> {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let skipping = false;
  for await (const raw of input) {
    let chunk = typeof raw === 'string' ? Buffer.from(raw) : raw;
    for (let newline = chunk.indexOf(0x0a); ; newline = chunk.indexOf(0x0a)) {
      const piece = newline === -1 ? chunk : chunk.subarray(0, newline);
      if (!skipping) {
        pendingBytes += piece.byteLength;
        if (pendingBytes > maxBytes) {
          skipping = true;
          pending = [];
        } else {
          pending.push(piece);
        }
      } else {
        pendingBytes += piece.byteLength;
      }
      if (newline === -1) break;
      yield skipping ? { oversizeBytes: pendingBytes } : { line: Buffer.concat(pending) };
      pending = [];
      pendingBytes = 0;
      skipping = false;
      chunk = chunk.subarray(newline + 1);
    }
  }
  if (skipping) yield { oversizeBytes: pendingBytes };
  else if (pendingBytes > 0) yield { line: Buffer.concat(pending) };
}

/**
 * How long after shutdown (and after each later line) the engine keeps reading, so that requests a
 * client wrote before it saw the shutdown reply are answered (3003) rather than left unanswered.
 */
export const SHUTDOWN_GRACE_MS = 100;

export interface ServeStdioOptions {
  readonly server: EngineServer;
  readonly input: Readable;
  readonly output: Writable;
  readonly maxLineBytes?: number;
  readonly shutdownGraceMs?: number;
}

/** Serves requests until shutdown or end of input. */
export async function serveStdio({
  server,
  input,
  output,
  maxLineBytes = MAX_REQUEST_LINE_BYTES,
  shutdownGraceMs = SHUTDOWN_GRACE_MS,
}: ServeStdioOptions): Promise<void> {
  const write = async (text: string): Promise<void> => {
    if (!output.write(`${text}\n`)) await once(output, 'drain');
  };
  const frames = ndjsonFrames(input, maxLineBytes)[Symbol.asyncIterator]();
  for (;;) {
    const next =
      server.state === 'shut_down' ? await withinGrace(frames.next(), shutdownGraceMs) : await frames.next();
    if (next === undefined || next.done === true) break;
    const frame = next.value;
    if ('oversizeBytes' in frame) {
      const error = new RpcError(
        RPC_ERROR.invalidRequest,
        `request line of ${frame.oversizeBytes} bytes exceeds ${maxLineBytes} bytes`,
        `Send at most ${maxLineBytes} bytes per line; a trace may be at most 10 MiB.`,
      );
      await write(JSON.stringify({ jsonrpc: '2.0', id: null, error: error.toWire() }));
      continue;
    }
    // Blank lines carry no message; anything else is answered, even if it is not JSON.
    if (isBlank(frame.line)) continue;
    // After shutdown the server answers every request 3003 (session over).
    const response = await server.handleLine(frame.line);
    if (response !== undefined) await write(response);
  }
  // Stop reading: stdin may stay open (the client waits for the exit).
  void frames.return(undefined);
}

/** The next frame, or undefined when none arrives within `ms`. */
async function withinGrace<T>(next: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const quiet = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => {
      resolve(undefined);
    }, ms);
  });
  try {
    return await Promise.race([next, quiet]);
  } finally {
    clearTimeout(timer);
  }
}

/** Only spaces, tabs and carriage returns (the test stops at the first other byte). */
function isBlank(line: Buffer): boolean {
  for (const byte of line) if (byte !== 0x20 && byte !== 0x09 && byte !== 0x0d) return false;
  return true;
}
