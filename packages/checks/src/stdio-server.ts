// The checks engine on stdin/stdout: NDJSON framing (one JSON object per line, a byte cap per line:
// @paperclip-evals/node's lineEvents),
// requests handled strictly one at a time so responses leave in request order, and nothing but
// responses written to stdout. It ends when stdin closes, or after shutdown once the pipe has been
// quiet for SHUTDOWN_GRACE_MS: a request already written behind shutdown is answered 3003, not lost.
import { lineEvents, writeFrames } from '@paperclip-evals/node';

import { ChecksError, toWireError } from './errors.js';
import { MAX_REQUEST_LINE_BYTES } from './engine-server.js';

import type { Readable, Writable } from 'node:stream';

import type { EngineServer } from './engine-server.js';

/**
 * How long after shutdown (and after each later line) the engine keeps reading, so that requests a
 * client wrote before it saw the shutdown reply are answered (3003) rather than left unanswered.
 */
export const SHUTDOWN_GRACE_MS = 100;

/** A line of only spaces, tabs and carriage returns carries no message. */
const BLANK = /^[ \t\r]*$/;

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
  const write = (text: string): Promise<void> => writeFrames(output, `${text}\n`);
  const frames = lineEvents(input, maxLineBytes)[Symbol.asyncIterator]();
  for (;;) {
    const next =
      server.state === 'shut_down' ? await withinGrace(frames.next(), shutdownGraceMs) : await frames.next();
    if (next === undefined || next.done === true) break;
    const frame = next.value;
    if (frame.kind === 'too_large') {
      const error = new ChecksError(
        'invalid_request',
        `request line of ${frame.byteLength} bytes exceeds ${maxLineBytes} bytes`,
        [],
        { detail: `Send at most ${maxLineBytes} bytes per line; a trace may be at most 10 MiB.` },
      );
      await write(JSON.stringify({ jsonrpc: '2.0', id: null, error: toWireError(error) }));
      continue;
    }
    // Blank lines carry no message; anything else is answered, even if it is not JSON.
    if (frame.kind === 'line' && BLANK.test(frame.text)) continue;
    // A line that is not UTF-8 goes on as its bytes: the server reads them as the Attest engine does
    // (each invalid byte U+FFFD, request-text.ts).
    const line = frame.kind === 'line' ? frame.text : frame.bytes;
    // After shutdown the server answers every request 3003 (session over).
    const response = await server.handleLine(line);
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
