// serveStdio over in-memory streams: a line over the cap is answered -32600 (id null) and skipped,
// blank lines are ignored, replies keep request order, and serving stops after shutdown.
import { PassThrough, Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';

import { EngineServer } from '../src/engine-server.ts';
import { serveStdio } from '../src/stdio-server.ts';

describe('serveStdio', () => {
  it('answers each line in order, refuses an oversize line, and answers a request behind shutdown 3003', async () => {
    const request = (id: number, method: string, params: object = {}): string =>
      `${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`;
    const input = Readable.from([
      request(1, 'initialize', { sdk_name: 't', sdk_version: '1', protocol_version: 1 }),
      '\n   \n',
      `${JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'query_drift', params: { assertion_id: 'x'.repeat(600) } })}\n`,
      request(3, 'query_drift', { assertion_id: 'a' }),
      request(4, 'shutdown'),
      request(5, 'query_drift', { assertion_id: 'a' }),
    ]);
    const output = new PassThrough();
    const written: string[] = [];
    output.on('data', (chunk: Buffer) => written.push(chunk.toString()));
    await serveStdio({ server: new EngineServer(), input, output, maxLineBytes: 512 });
    const replies = written
      .join('')
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as { id: unknown; error?: { code: number } });
    expect(replies.map((reply) => [reply.id, reply.error?.code])).toEqual([
      [1, undefined],
      [null, -32600],
      [3, undefined],
      [4, undefined],
      [5, 3003],
    ]);
  });
});
