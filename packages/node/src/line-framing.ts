// NDJSON line framing, the one line splitter of every stdio protocol (the policy producer and
// consumer, the checks engine server and client): bytes → complete `\n`-terminated lines, each
// bounded in bytes (a longer line is dropped as it arrives, never buffered whole, and reported once)
// and checked to be strict UTF-8 (never replaced). `lineEvents` is the same over an async byte
// stream (one event at a time, so a reader that awaits each line is backpressure), and
// `writeFrames` waits for `drain` when the writable's buffer is full.
import { isUtf8 } from 'node:buffer';
import { once } from 'node:events';

import type { Writable } from 'node:stream';

const NEWLINE = 0x0a;

export type LineEvent =
  | { readonly kind: 'line'; readonly text: string }
  /** `bytes`: the line as received, for a protocol that answers it (the newline excluded). */
  | { readonly kind: 'not_utf8'; readonly byteLength: number; readonly bytes: Buffer }
  | { readonly kind: 'too_large'; readonly byteLength: number };

/**
 * Splits a byte stream into `\n`-terminated lines. A line longer than `maxLineBytes` is dropped as
 * it arrives (never buffered whole) and reported once as too_large when its newline comes. The
 * complete lines of a chunk are checked and decoded in one step (a newline byte never occurs inside
 * a UTF-8 sequence), then split as text; a chunk that is not UTF-8 is split as bytes to find the
 * lines at fault.
 */
export class LineReader {
  #pending: Buffer[] = [];
  #pendingBytes = 0;
  #oversizedBytes: number | undefined;

  constructor(readonly maxLineBytes: number) {}

  /** Bytes received after the last newline: a truncated frame if the stream ends now. */
  get partialBytes(): number {
    return this.#oversizedBytes ?? this.#pendingBytes;
  }

  push(chunk: Buffer, emit: (event: LineEvent) => void): void {
    const first = chunk.indexOf(NEWLINE);
    if (first === -1) {
      this.#keep(chunk);
      return;
    }
    this.#lines(chunk.subarray(0, first + 1), emit); // completes the line held from earlier chunks
    const last = chunk.lastIndexOf(NEWLINE);
    if (last > first) {
      const whole = chunk.subarray(first + 1, last); // whole lines, the final newline left out
      if (isUtf8(whole)) this.#text(whole.toString('utf8'), emit);
      else this.#lines(chunk.subarray(first + 1, last + 1), emit);
    }
    this.#keep(chunk.subarray(last + 1));
  }

  /** End of stream: bytes after the last newline are handed on as one more line. */
  finish(emit: (event: LineEvent) => void): void {
    if (this.partialBytes > 0) this.push(Buffer.from('\n'), emit);
  }

  /** Lines of already-checked text (no line held from an earlier chunk). */
  #text(text: string, emit: (event: LineEvent) => void): void {
    for (let start = 0; ;) {
      const newline = text.indexOf('\n', start);
      const line = newline === -1 ? text.slice(start) : text.slice(start, newline);
      // A UTF-16 unit is 1 to 3 UTF-8 bytes: the byte count is needed only near the limit.
      const byteLength = line.length * 3 <= this.maxLineBytes ? 0 : Buffer.byteLength(line, 'utf8');
      if (byteLength > this.maxLineBytes) emit({ kind: 'too_large', byteLength });
      else emit({ kind: 'line', text: line });
      if (newline === -1) return;
      start = newline + 1;
    }
  }

  /** `bytes` ends with a newline: each line is checked on its own. */
  #lines(bytes: Buffer, emit: (event: LineEvent) => void): void {
    let start = 0;
    for (let newline = bytes.indexOf(NEWLINE); newline !== -1; newline = bytes.indexOf(NEWLINE, start)) {
      const piece = bytes.subarray(start, newline);
      start = newline + 1;
      if (this.#oversizedBytes !== undefined) {
        emit({ kind: 'too_large', byteLength: this.#oversizedBytes + piece.byteLength });
        this.#oversizedBytes = undefined;
        continue;
      }
      let line = piece;
      if (this.#pendingBytes > 0) {
        this.#pending.push(piece);
        line = Buffer.concat(this.#pending, this.#pendingBytes + piece.byteLength);
        this.#pending = [];
        this.#pendingBytes = 0;
      }
      if (line.byteLength > this.maxLineBytes) emit({ kind: 'too_large', byteLength: line.byteLength });
      else if (!isUtf8(line)) emit({ kind: 'not_utf8', byteLength: line.byteLength, bytes: line });
      else emit({ kind: 'line', text: line.toString('utf8') });
    }
  }

  #keep(rest: Buffer): void {
    if (rest.byteLength === 0) return;
    if (this.#oversizedBytes !== undefined) {
      this.#oversizedBytes += rest.byteLength;
    } else if (this.#pendingBytes + rest.byteLength > this.maxLineBytes) {
      this.#oversizedBytes = this.#pendingBytes + rest.byteLength;
      this.#pending = [];
      this.#pendingBytes = 0;
    } else {
      this.#pending.push(rest);
      this.#pendingBytes += rest.byteLength;
    }
  }
}

/**
 * The line events of a byte stream (strings are UTF-8 encoded first), in order; a last line without
 * its newline is still a line. The stream is read only as fast as events are taken.
 */
export async function* lineEvents(
  input: AsyncIterable<Buffer | string>,
  maxLineBytes: number,
): AsyncGenerator<LineEvent> {
  const reader = new LineReader(maxLineBytes);
  let ready: LineEvent[] = [];
  const collect = (event: LineEvent): void => {
    ready.push(event);
  };
  for await (const chunk of input) {
    reader.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk, collect);
    const events = ready;
    ready = [];
    yield* events;
  }
  reader.finish(collect);
  yield* ready;
}

/** Writes `text` (whole frames) and, when the writable's buffer is full, waits for its `drain`. */
export async function writeFrames(output: Writable, text: string): Promise<void> {
  if (!output.write(text)) await once(output, 'drain');
}
