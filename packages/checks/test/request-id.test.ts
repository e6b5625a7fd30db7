// Request ids echoed exactly: the raw-token scan finds the top-level id's number token wherever the
// member sits and whatever strings or nested ids surround it (a property test over generated
// requests), and the server answers an id JSON.parse would change with the id as written.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { EngineServer } from '../src/engine-server.ts';
import { idNeedsRawToken, rawIdToken } from '../src/request-id.ts';

/** JSON number tokens, many of them beyond what a double holds exactly. */
const numberToken = fc.oneof(
  fc.bigInt({ min: -(2n ** 90n), max: 2n ** 90n }).map(String),
  fc
    .tuple(fc.bigInt({ min: 0n, max: 2n ** 70n }), fc.stringMatching(/^\d{1,30}$/))
    .map(([whole, fraction]) => `${whole}.${fraction}`),
  fc
    .tuple(
      fc.integer({ min: -9, max: 9 }),
      fc.stringMatching(/^\d{1,25}$/),
      fc.integer({ min: -400, max: 400 }),
    )
    .map(([whole, fraction, exponent]) => `${whole}.${fraction}e${exponent}`),
  fc.constantFrom('-0', '0', '9007199254740993', '-9007199254740993', '1e400', '-1E+400', '0.1'),
);

/** Text designed to fool a naive scan: quotes, escapes, colons and "id" inside strings and keys. */
const decoyString = fc.oneof(
  fc.string(),
  fc.constantFrom('"id":1', 'id', '\\', '\\"id\\":', '{"id":2}', '[', '}', ':', '\u0069d'),
);
const decoyValue: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    decoyString,
    fc.integer(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(fc.oneof(decoyString, fc.constant('id')), tie('value'), { maxKeys: 3 }),
  ),
})).value;

/** A request line with the id token spliced in at `position` among the other members. */
function requestLine(
  token: string,
  members: [string, unknown][],
  position: number,
  spacing: string,
  escapedName: boolean,
): string {
  const parts = members
    .filter(([key]) => key !== 'id')
    .map(([key, value]) => `${JSON.stringify(key)}${spacing}:${spacing}${JSON.stringify(value)}`);
  const name = escapedName ? '"\\u0069d"' : '"id"';
  parts.splice(Math.min(position, parts.length), 0, `${name}${spacing}:${spacing}${token}`);
  return `{${spacing}${parts.join(`,${spacing}`)}${spacing}}`;
}

describe('rawIdToken', () => {
  it('returns the top-level id token exactly as written, wherever it sits', () => {
    fc.assert(
      fc.property(
        numberToken,
        fc.array(fc.tuple(decoyString, decoyValue), { maxLength: 6 }),
        fc.nat(8),
        fc.constantFrom('', ' ', '\t', '\n '),
        fc.boolean(),
        (token, members, position, spacing, escapedName) => {
          const line = requestLine(token, members, position, spacing, escapedName);
          expect(() => JSON.parse(line) as unknown).not.toThrow();
          expect(rawIdToken(line)).toBe(token);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('finds no token when the top-level id is absent or not a number, even if a nested one is', () => {
    expect(rawIdToken('{"params":{"id":12345678901234567890},"method":"x"}')).toBeUndefined();
    expect(rawIdToken('{"id":"12345678901234567890"}')).toBeUndefined();
    expect(rawIdToken('{"id":null,"x":1}')).toBeUndefined();
    expect(rawIdToken('{"x":"\\"id\\":5"}')).toBeUndefined();
  });
});

describe('idNeedsRawToken', () => {
  it('is true exactly for numbers JSON.parse may not have kept as written', () => {
    expect([2 ** 53 + 2, 0.1, 1.5, -0, Number.POSITIVE_INFINITY].map(idNeedsRawToken)).toEqual([
      true,
      true,
      true,
      true,
      true,
    ]);
    expect([0, 42, -7, Number.MAX_SAFE_INTEGER, '12345678901234567890', null].map(idNeedsRawToken)).toEqual([
      false,
      false,
      false,
      false,
      false,
      false,
    ]);
  });
});

describe('EngineServer', () => {
  const initialize = (token: string): string =>
    `{"jsonrpc":"2.0","id":${token},"method":"initialize","params":{"sdk_name":"t","sdk_version":"1","protocol_version":1}}`;

  it('echoes any numeric id with exactly its value, as a result and as an error', async () => {
    await fc.assert(
      fc.asyncProperty(numberToken, async (token) => {
        // A value a double holds exactly (a safe integer) may come back in its shortest form
        // (1.0e1 as 10); anything else comes back as written.
        const parsed = JSON.parse(token) as number;
        const echoed = idNeedsRawToken(parsed) ? token : String(parsed);
        const server = new EngineServer();
        const first = (await server.handleLine(initialize(token))) ?? '';
        expect(first.startsWith(`{"jsonrpc":"2.0","id":${echoed},"result":{`)).toBe(true);
        const second = (await server.handleLine(initialize(token))) ?? '';
        expect(second.startsWith(`{"jsonrpc":"2.0","id":${echoed},"error":{"code":3003,`)).toBe(true);
        expect(JSON.parse(second)).toMatchObject({ error: { code: 3003 } });
      }),
      { numRuns: 200 },
    );
  });

  it('reads other numbers where and as the Attest engine decodes them, still echoing the id exactly', async () => {
    const server = new EngineServer();
    await server.handleLine(initialize('1'));
    // An unknown metadata member is skipped there, whatever number it holds (go-decode.ts).
    const trace = `{"schema_version":1,"trace_id":"t","output":{"message":"ok"},"metadata":{"tweet_id":1234567890123456789012}}`;
    const reply =
      (await server.handleLine(
        `{"jsonrpc":"2.0","id":18446744073709551617,"method":"evaluate_batch","params":{"trace":${trace},"assertions":[]}}`,
      )) ?? '';
    expect(reply.startsWith('{"jsonrpc":"2.0","id":18446744073709551617,"result":{"results":[],')).toBe(true);
    const validated =
      (await server.handleLine(
        `{"jsonrpc":"2.0","id":3,"method":"validate_trace_tree","params":{"trace":${trace}}}`,
      )) ?? '';
    expect(JSON.parse(validated)).toMatchObject({ id: 3, result: { valid: true } });
    // An int member past int64 does not decode: the method's params error (query_drift: 1002).
    const query =
      (await server.handleLine(
        '{"jsonrpc":"2.0","id":9007199254740993,"method":"query_drift","params":{"assertion_id":"a","window_size":99999999999999999999}}',
      )) ?? '';
    expect(query.startsWith('{"jsonrpc":"2.0","id":9007199254740993,"error":{"code":1002,')).toBe(true);
  });
});
