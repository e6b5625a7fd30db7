// Property tests of the parsers at the engine's edges: the trace path language and the request reader
// (any bytes in, a JSON-RPC reply out, never a throw). NDJSON framing is @paperclip-evals/node's.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { EngineServer } from '../src/engine-server.ts';
import { ChecksError } from '../src/errors.ts';
import { parseTarget, resolveTarget } from '../src/spec-fields.ts';
import { formatTracePath, parseTracePath, resolveTracePath } from '../src/trace-path.ts';

import type { PathSegment } from '../src/trace-path.ts';

const identifier = fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,8}$/);
const segment: fc.Arbitrary<PathSegment> = fc.oneof(
  identifier.map((key) => ({ kind: 'key' as const, key })),
  fc.nat({ max: 999 }).map((index) => ({ kind: 'index' as const, index })),
  fc.record({
    kind: fc.constant('filter' as const),
    key: identifier,
    value: fc.stringMatching(/^[^'"\]]{0,8}$/),
  }),
);
const path = fc
  .tuple(
    identifier.map((key) => ({ kind: 'key' as const, key })),
    fc.array(segment, { maxLength: 6 }),
  )
  .map(([first, rest]) => [first, ...rest]);

describe('assertion targets, as the Attest engine splits them (ResolveTarget, target.go:26-123)', () => {
  // A key is any text without a dot (the engine splits at every one), the empty text included.
  const key = fc.string({ maxLength: 8 }).filter((text) => !text.includes('.'));
  it('output.<k1>.<k2>… finds the value at those keys, whatever characters they hold', () => {
    fc.assert(
      fc.property(fc.array(key, { minLength: 1, maxLength: 4 }), fc.string(), (keys, leaf) => {
        const output = keys.reduceRight<unknown>((inner, name) => ({ [name]: inner }), leaf);
        const lookup = resolveTarget({ output }, parseTarget(`output.${keys.join('.')}`));
        expect(lookup).toMatchObject({ found: true, value: leaf });
      }),
    );
  });

  it("steps[?name=='<s>'].result.<k>… the same way, in the first step of that name", () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1, maxLength: 8 }).filter((name) => !name.includes("'")),
        fc.array(key, { minLength: 1, maxLength: 3 }),
        fc.string(),
        (name, keys, leaf) => {
          const result = keys.reduceRight<unknown>((inner, k) => ({ [k]: inner }), leaf);
          const trace = {
            output: {},
            steps: [
              { name, result },
              { name, result: {} },
            ],
          };
          const target = parseTarget(`steps[?name=='${name}'].result.${keys.join('.')}`);
          expect(resolveTarget(trace, target)).toMatchObject({ found: true, value: leaf });
        },
      ),
    );
  });

  it('never throw, and a text of neither form is an unsupported target', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), fc.jsonValue(), (text, output) => {
        const target = parseTarget(text);
        const lookup = resolveTarget({ output, steps: [] }, target);
        if (!text.startsWith('output') && !text.startsWith('steps[?name=='))
          expect(lookup).toEqual({ found: false, problem: `unsupported target: ${text}` });
      }),
    );
  });
});

describe('trace paths', () => {
  it('parse back to the segments they were formatted from', () => {
    fc.assert(
      fc.property(path, (segments) => {
        expect(parseTracePath(formatTracePath(segments))).toEqual(segments);
      }),
    );
  });

  it('either parse or throw ChecksError trace_path_invalid, for any text', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), (text) => {
        try {
          parseTracePath(text);
        } catch (error) {
          expect(error).toBeInstanceOf(ChecksError);
          expect(error).toHaveProperty('code', 'trace_path_invalid');
        }
      }),
    );
  });

  it('resolve without throwing on any JSON value', () => {
    fc.assert(
      fc.property(path, fc.jsonValue(), (segments, value) => {
        const lookup = resolveTracePath(value, segments);
        expect(typeof lookup.found).toBe('boolean');
      }),
    );
  });

  it.each([
    ['output.message', { output: { message: 'hi' } }, 'hi', ['output', 'message']],
    ['steps.length', { steps: [1, 2, 3] }, 3, ['steps']],
    [
      "steps[?type=='tool_call'].length",
      { steps: [{ type: 'tool_call' }, { type: 'llm_call' }, { type: 'tool_call' }] },
      2,
      ['steps'],
    ],
    [
      "steps[?name=='b'].result.x",
      {
        steps: [
          { name: 'a', result: { x: 1 } },
          { name: 'b', result: { x: 2 } },
          { name: 'b', result: { x: 3 } },
        ],
      },
      2,
      // The first match is where the value is: its index, as a request line's raw text is found.
      ['steps', 1, 'result', 'x'],
    ],
    ['steps[1].name', { steps: [{ name: 'a' }, { name: 'b' }] }, 'b', ['steps', 1, 'name']],
  ])('resolve %s', (text, root, expected, at) => {
    expect(resolveTracePath(root, parseTracePath(text))).toEqual({ found: true, value: expected, at });
  });

  it.each([['.output'], ['output.'], ['output..message'], ['steps[?name=bad]'], ['steps[-1]'], ['']])(
    'refuse %j',
    (text) => {
      expect(() => parseTracePath(text)).toThrow(
        expect.objectContaining({ name: 'ChecksError', code: 'trace_path_invalid' }),
      );
    },
  );
});

describe('the request reader', () => {
  it('answers any line with one JSON-RPC 2.0 reply or nothing (a notification), never throwing', async () => {
    const server = new EngineServer();
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.string({ maxLength: 60 }),
          fc.jsonValue().map((value) => JSON.stringify(value)),
        ),
        async (line) => {
          const reply = await server.handleLine(line);
          if (reply === undefined) return;
          const parsed = JSON.parse(reply) as { jsonrpc: string; result?: unknown; error?: { code: number } };
          expect(parsed.jsonrpc).toBe('2.0');
          expect('result' in parsed !== 'error' in parsed).toBe(true);
        },
      ),
    );
  });
});
