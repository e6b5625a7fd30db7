// The one NDJSON line framer (fast-check): lines are independent of how the bytes are chunked, a
// line over the byte cap is reported once by its size and never kept, invalid UTF-8 is reported
// (with its bytes), never replaced; lineEvents does the same over a stream, a last line without its
// newline included; writeFrames waits for drain.
import { PassThrough, Readable, Writable } from 'node:stream';

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { LineReader, lineEvents, writeFrames } from '../src/line-framing.ts';

import type { LineEvent } from '../src/line-framing.ts';

const MAX = 64 * 1024 * 1024;

function splitAll(chunks: Buffer[], maxLineBytes = MAX): LineEvent[] {
  const reader = new LineReader(maxLineBytes);
  const events: LineEvent[] = [];
  for (const chunk of chunks) reader.push(chunk, (event) => events.push(event));
  reader.finish((event) => events.push(event));
  return events;
}

describe('LineReader', () => {
  it('yields the same lines however the bytes are chunked', () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ unit: 'grapheme' }).map((s) => s.replaceAll('\n', ' '))),
        fc.array(fc.nat(40)),
        (lines, cuts) => {
          const bytes = Buffer.from(lines.map((line) => `${line}\n`).join(''));
          const chunks: Buffer[] = [];
          let at = 0;
          for (const cut of cuts) {
            chunks.push(bytes.subarray(at, Math.min(bytes.length, at + cut)));
            at = Math.min(bytes.length, at + cut);
          }
          chunks.push(bytes.subarray(at));
          expect(splitAll(chunks)).toEqual(lines.map((text) => ({ kind: 'line', text })));
        },
      ),
    );
  });

  it('reports a line over the limit once, without keeping it, and goes on', () => {
    const events = splitAll(
      [
        Buffer.from('short\n'),
        Buffer.from('x'.repeat(50)),
        Buffer.from('y'.repeat(50)),
        Buffer.from('\nnext\n'),
      ],
      64,
    );
    expect(events).toEqual([
      { kind: 'line', text: 'short' },
      { kind: 'too_large', byteLength: 100 },
      { kind: 'line', text: 'next' },
    ]);
  });

  it('reports invalid UTF-8 instead of replacing it', () => {
    expect(splitAll([Buffer.from([0x7b, 0xff, 0x7d, 0x0a])])).toEqual([
      { kind: 'not_utf8', byteLength: 3, bytes: Buffer.from([0x7b, 0xff, 0x7d]) },
    ]);
  });

  it('finds the bad line among whole lines of one chunk, and keeps the good ones', () => {
    const chunk = Buffer.concat([
      Buffer.from('first\nsecond\n'),
      Buffer.from([0x7b, 0xc3, 0x7d, 0x0a]), // a truncated two-byte sequence
      Buffer.from('é third\nfourth\n'),
    ]);
    expect(splitAll([chunk])).toEqual([
      { kind: 'line', text: 'first' },
      { kind: 'line', text: 'second' },
      { kind: 'not_utf8', byteLength: 3, bytes: Buffer.from([0x7b, 0xc3, 0x7d]) },
      { kind: 'line', text: 'é third' },
      { kind: 'line', text: 'fourth' },
    ]);
  });

  it('measures the limit in bytes, not characters, for lines decoded with their chunk', () => {
    // 'é' is two bytes: 20 of them are 40 bytes, over a 30-byte limit though only 20 characters.
    const events = splitAll([Buffer.from(`ok\n${'é'.repeat(20)}\n${'é'.repeat(15)}\nend\n`)], 30);
    expect(events).toEqual([
      { kind: 'line', text: 'ok' },
      { kind: 'too_large', byteLength: 40 },
      { kind: 'line', text: 'é'.repeat(15) },
      { kind: 'line', text: 'end' },
    ]);
  });
});

describe('lineEvents', () => {
  const collect = async (chunks: Buffer[], maxBytes: number): Promise<(string | number)[]> => {
    const frames: (string | number)[] = [];
    for await (const frame of lineEvents(Readable.from(chunks), maxBytes))
      frames.push(frame.kind === 'line' ? frame.text : frame.byteLength);
    return frames;
  };

  it('yields the same lines however the bytes are chunked', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.string({ unit: 'grapheme', maxLength: 30 }).map((text) => text.replaceAll('\n', '')),
          { minLength: 1, maxLength: 8 },
        ),
        fc.array(fc.nat({ max: 400 }), { maxLength: 6 }),
        async (lines, cuts) => {
          const bytes = Buffer.from(lines.map((line) => `${line}\n`).join(''));
          const offsets = [...new Set(cuts.map((cut) => cut % (bytes.length + 1)))].sort((a, b) => a - b);
          const chunks = [0, ...offsets]
            .map((start, index) => bytes.subarray(start, [...offsets, bytes.length][index]))
            .filter((chunk) => chunk.length > 0);
          expect(await collect(chunks, 1024)).toEqual(lines);
        },
      ),
    );
  });

  it('skips a line over the cap whole, reporting its size, and goes on with the next', async () => {
    expect(
      await collect(
        [Buffer.from('short\n' + 'x'.repeat(50)), Buffer.from('y'.repeat(50) + '\nnext\nlast')],
        64,
      ),
    ).toEqual(['short', 100, 'next', 'last']);
  });
});

describe('writeFrames', () => {
  it('resolves at once while the buffer has room, and only after drain once it is full', async () => {
    const written: string[] = [];
    let release: () => void = () => undefined;
    const slow = new Writable({
      highWaterMark: 8,
      write(chunk: Buffer, _encoding, done) {
        written.push(chunk.toString());
        release = done;
      },
    });
    let resolved = false;
    const first = writeFrames(slow, 'ab\n').then(() => (resolved = true));
    await first;
    expect(resolved).toBe(true);
    let second = false;
    const full = writeFrames(slow, 'x'.repeat(16)).then(() => (second = true));
    await new Promise((done) => setTimeout(done, 20));
    expect(second).toBe(false); // waiting for drain
    release();
    await new Promise((done) => setTimeout(done, 0));
    release();
    await full;
    expect(written.join('')).toBe(`ab\n${'x'.repeat(16)}`);
  });

  it('passes frames through a stream unchanged', async () => {
    const sink = new PassThrough();
    await writeFrames(sink, '{"a":1}\n');
    expect(String(sink.read())).toBe('{"a":1}\n');
  });
});
