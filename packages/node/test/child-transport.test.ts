// The child transport for stdio protocols, against real processes: exactly the environment given
// and no shell, stdout lines through the one framer (a line over the cap reported, a last line
// without its newline kept as a truncated frame), stderr handed on, stdin frames echoed back, a
// spawn failure reported, and the process group killed on kill() and once the leader exits —
// nothing it started outlives it — with nothing left registered for signal cleanup.

import { describe, expect, it } from 'vitest';

import { guardedCounts } from '../src/child-cleanup.ts';
import { ChildTransport } from '../src/child-transport.ts';
import { goneWithin } from '@paperclip-evals/test-kit/processes';

import type { ChildExit } from '../src/child-transport.ts';
import type { LineEvent } from '../src/line-framing.ts';

interface Run {
  readonly transport: ChildTransport;
  readonly lines: LineEvent[];
  readonly stderr: Buffer[];
  readonly errors: Error[];
  readonly exits: ChildExit[];
}

function start(script: string, env: Record<string, string> = {}, maxLineBytes = 1024): Run {
  const lines: LineEvent[] = [];
  const stderr: Buffer[] = [];
  const errors: Error[] = [];
  const exits: ChildExit[] = [];
  const transport = new ChildTransport({
    command: '/bin/sh',
    args: ['-c', script],
    env,
    maxLineBytes,
    onLine: (line) => lines.push(line),
    onStderr: (chunk) => stderr.push(chunk),
    onError: (error) => errors.push(error),
    onExit: (exit) => exits.push(exit),
  });
  return { transport, lines, stderr, errors, exits };
}

const texts = (lines: readonly LineEvent[]): string[] =>
  lines.map((line) => (line.kind === 'line' ? line.text : `${line.kind}:${line.byteLength}`));

describe('ChildTransport', () => {
  it('gives the child exactly the environment given, and reads its lines and stderr', async () => {
    const run = start('printf "%s|%s\\n" "${HOME:-none}" "$ONLY"; printf oops >&2; exit 4', { ONLY: 'this' });
    const exit = await run.transport.closed;
    await run.transport.stdoutEnded;
    expect(exit).toEqual({ code: 4, signal: null });
    expect(run.exits).toEqual([{ code: 4, signal: null }]);
    expect(texts(run.lines)).toEqual(['none|this']);
    expect(Buffer.concat(run.stderr).toString()).toBe('oops');
    expect(guardedCounts().processGroups).toBe(0);
  });

  it('echoes what it is sent, and ends when its stdin ends', async () => {
    const run = start('/bin/cat');
    expect(run.transport.send('{"a":1}\n{"b":2}\n')).toBe(true);
    await run.transport.drained();
    run.transport.end();
    await run.transport.closed;
    expect(texts(run.lines)).toEqual(['{"a":1}', '{"b":2}']);
  });

  it('reports a line over the cap by its size, and keeps a last line without newline as a truncated frame', async () => {
    const run = start(`printf 'short\\n%s\\nnext\\npartial' "$(printf '%0100d' 0)"`, {}, 64);
    await run.transport.closed;
    await run.transport.stdoutEnded;
    expect(texts(run.lines)).toEqual(['short', 'too_large:100', 'next']);
    expect(run.transport.partialBytes).toBe('partial'.length);
  });

  it('kills what the leader left in its group once it exits, so a straggler cannot hold stdout open', async () => {
    const started = Date.now();
    const run = start('/bin/sleep 30 & echo $!; exit 0');
    await run.transport.closed;
    expect(Date.now() - started).toBeLessThan(5000);
    const [first] = run.lines;
    const straggler = Number(first?.kind === 'line' ? first.text : NaN);
    expect(await goneWithin(straggler)).toBe(true);
  });

  it('kill() SIGKILLs the whole group while the leader runs', async () => {
    const run = start('/bin/sleep 30 & echo $!; /bin/sleep 30');
    while (run.lines.length === 0) await new Promise((done) => setTimeout(done, 10));
    expect(run.transport.running).toBe(true);
    run.transport.kill();
    expect(await run.transport.closed).toEqual({ code: null, signal: 'SIGKILL' });
    expect(run.transport.running).toBe(false);
    const [first] = run.lines;
    expect(await goneWithin(Number(first?.kind === 'line' ? first.text : NaN))).toBe(true);
    expect(guardedCounts().processGroups).toBe(0);
  });

  it('reports a command that cannot start, and still closes', async () => {
    const errors: Error[] = [];
    const transport = new ChildTransport({
      command: '/no/such/command',
      args: [],
      env: {},
      maxLineBytes: 1024,
      onLine: () => undefined,
      onError: (error) => errors.push(error),
    });
    await transport.closed;
    expect(errors).toMatchObject([{ code: 'ENOENT' }]);
    expect(transport.send('ignored\n')).toBeTypeOf('boolean'); // a write to a dead peer never throws
    expect(guardedCounts().processGroups).toBe(0);
  });
});
