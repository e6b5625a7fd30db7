// The producer's protocol rules, frame by frame: replies to headers and rows, the row-error table
// (each bad row → its exact code, with neither decision nor state_out), two-stage loading and
// overrides, ignored frames, and the frozen Decision object.
import { readFileSync } from 'node:fs';
import { schemaErrors } from '@paperclip-evals/contract';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { DECISION_V1 } from '../src/decision.ts';
import { I64_MAX, I64_MIN } from '../src/framing.ts';
import { bundleOf, denyRm, writeRate } from '@paperclip-evals/test-kit/policy-bundles';
import { drive } from './support/session.ts';

const WRITE_LAYOUT_ZEROED = { c: [0], f: [false], t: [0, 0, 0], a: [], run: null };
const header = (bundle: unknown) => ({ type: 'bundle', bundle });
const row = (fields: Record<string, unknown>) => ({
  type: 'row',
  id: 'x',
  event: {},
  state_in: null,
  now_ms: 1,
  ...fields,
});

describe('bundle headers', () => {
  it('acknowledge with the digest and an empty skipped array', () => {
    const reply = drive().send(header(bundleOf(denyRm)));
    expect(reply).toEqual({
      type: 'bundle_ack',
      bundle_digest: expect.stringMatching(/^sha256:[0-9a-f]{64}$/) as unknown,
      skipped: [],
    });
  });

  it('answer a rejected envelope with bundle_error OL-1241 and clear the active bundle', () => {
    const producer = drive();
    producer.send(header(bundleOf(denyRm)));
    expect(producer.send(header({ schema: 'nope' }))).toMatchObject({
      type: 'bundle_error',
      error: { code: 'OL-1241' },
    });
    expect(producer.send(row({}))).toMatchObject({ error: { code: 'OL-1242' }, bundle_digest: null });
  });

  it('skip an artifact whose body is written with a fraction (float_present), header or row override', () => {
    const text = JSON.stringify(bundleOf(denyRm, writeRate)).replace(
      '"window_ms":60000',
      '"window_ms":60000.0',
    );
    const skipped = [{ kind: 't2_rate_limit', id: 'write-rate', reason: 'float_present' }];
    const producer = drive();
    expect(producer.sendLine(`{"type":"bundle","bundle":${text}}`)).toMatchObject({
      type: 'bundle_ack',
      skipped,
    });
    const override = producer.sendLine(
      `{"type":"row","id":"x","event":{"tool_name":"Write"},"state_in":null,"now_ms":1,"bundle":${text}}`,
    );
    // The override loaded without the rate limit: no registers, so the zeroed-or-null state is empty.
    expect(override).toMatchObject({ state_out: { c: [], f: [], t: [], a: [], run: null } });
  });

  it('do not count as row errors', () => {
    const producer = drive();
    producer.send(header({}));
    expect(producer.session.rowErrors).toBe(0);
  });
});

describe('a row error', () => {
  const cases: [string, string, string][] = [
    ['now_ms as a float', '{"type":"row","id":"x","event":{},"now_ms":1.0}', 'OL-1240'],
    ['now_ms with an exponent', '{"type":"row","id":"x","event":{},"now_ms":1e3}', 'OL-1240'],
    ['now_ms as a string', '{"type":"row","id":"x","event":{},"now_ms":"1"}', 'OL-1240'],
    ['now_ms above 2^63-1', '{"type":"row","id":"x","event":{},"now_ms":9223372036854775808}', 'OL-1240'],
    ['now_ms missing', '{"type":"row","id":"x","event":{}}', 'OL-1240'],
    ['event missing', '{"type":"row","id":"x","now_ms":1}', 'OL-1240'],
    ['event an array', '{"type":"row","id":"x","event":[],"now_ms":1}', 'OL-1240'],
    ['tool_name not a string', '{"type":"row","id":"x","event":{"tool_name":7},"now_ms":1}', 'OL-1240'],
    ['env values not strings', '{"type":"row","id":"x","event":{"env":{"cwd":1}},"now_ms":1}', 'OL-1240'],
    ['spend_delta a float', '{"type":"row","id":"x","event":{"spend_delta":0.5},"now_ms":1}', 'OL-1240'],
    ['state_in an array', '{"type":"row","id":"x","event":{},"now_ms":1,"state_in":[]}', 'OL-1240'],
    [
      'a counter as a float',
      '{"type":"row","id":"x","event":{},"now_ms":1,"state_in":{"c":[1.5],"f":[false],"t":[0,0,0]}}',
      'OL-1240',
    ],
    [
      'a counter as 1.0',
      '{"type":"row","id":"x","event":{},"now_ms":1,"state_in":{"c":[1.0],"f":[false],"t":[0,0,0]}}',
      'OL-1240',
    ],
    [
      'a flag as a number',
      '{"type":"row","id":"x","event":{},"now_ms":1,"state_in":{"c":[0],"f":[0],"t":[0,0,0]}}',
      'OL-1240',
    ],
    [
      'run malformed',
      '{"type":"row","id":"x","event":{},"now_ms":1,"state_in":{"c":[0],"f":[false],"t":[0,0,0],"run":{"len":"1"}}}',
      'OL-1240',
    ],
    [
      'too few timestamps',
      '{"type":"row","id":"x","event":{},"now_ms":1,"state_in":{"c":[0],"f":[false],"t":[0,0]}}',
      'OL-1243',
    ],
    [
      'an extra accumulator',
      '{"type":"row","id":"x","event":{},"now_ms":1,"state_in":{"c":[0],"f":[false],"t":[0,0,0],"a":[0]}}',
      'OL-1243',
    ],
    [
      'a run register the layout lacks',
      '{"type":"row","id":"x","event":{},"now_ms":1,"state_in":{"c":[0],"f":[false],"t":[0,0,0],"run":{"shape":null,"len":0}}}',
      'OL-1243',
    ],
    ['an empty state object', '{"type":"row","id":"x","event":{},"now_ms":1,"state_in":{}}', 'OL-1243'],
    [
      'a rejected override bundle',
      '{"type":"row","id":"x","event":{},"now_ms":1,"bundle":{"schema":"nope"}}',
      'OL-1241',
    ],
  ];

  it.each(cases)('%s → %s, with neither decision nor state_out', (_name, line, code) => {
    const producer = drive();
    producer.send(header(bundleOf(writeRate)));
    const reply = producer.sendLine(line);
    expect(reply).toMatchObject({
      type: 'response',
      id: 'x',
      error: { code, message: expect.any(String) as unknown },
    });
    expect(reply).not.toHaveProperty('decision');
    expect(reply).not.toHaveProperty('state_out');
    expect(producer.session.rowErrors).toBe(1);
  });

  it('OL-1242 when no bundle was ever loaded', () => {
    expect(drive().send(row({}))).toMatchObject({ error: { code: 'OL-1242' }, bundle_digest: null });
  });

  it('OL-1244 when evaluation throws, and processing continues', () => {
    const producer = drive(() => {
      throw new Error('boom');
    });
    producer.send(header(bundleOf(denyRm)));
    expect(producer.send(row({}))).toMatchObject({
      error: { code: 'OL-1244', message: 'evaluation failed: boom' },
    });
    expect(producer.send(row({ id: 'y' }))).toMatchObject({ id: 'y', error: { code: 'OL-1244' } });
  });
});

describe('rows', () => {
  it('echo the id verbatim, null when it is missing', () => {
    const session = drive();
    session.send(header(bundleOf()));
    const replies: string[] = [];
    const lines = [
      '{"type":"row","id":12345678901234567890123,"event":{},"now_ms":1}',
      '{"type":"row","id": [1, "a b"],"event":{},"now_ms":1}',
      '{"type":"row","event":{},"now_ms":1}',
    ];
    for (const line of lines) replies.push(session.session.handle({ kind: 'line', text: line }) ?? '');
    expect(replies[0]).toContain('"id":12345678901234567890123,');
    expect(replies[1]).toContain('"id":[1,"a b"],');
    expect(replies[2]).toContain('"id":null,');
  });

  it('use an override bundle for that row only, without an acknowledgment', () => {
    const producer = drive();
    producer.send(header(bundleOf()));
    const rm = { tool_name: 'Bash', tool_input: { command: 'rm -rf /' } };
    expect(producer.send(row({ event: rm, bundle: bundleOf(denyRm) }))).toMatchObject({
      decision: { verdict: 'deny', rule_id: 'no-rm' },
    });
    expect(producer.send(row({ event: rm }))).toMatchObject({
      decision: { verdict: 'allow', rule_id: null },
    });
  });

  it('may supply their own bundle without any header', () => {
    expect(drive().send(row({ bundle: bundleOf(denyRm) }))).toMatchObject({ decision: { verdict: 'allow' } });
  });

  it('keep the header bundle when an override is rejected', () => {
    const producer = drive();
    producer.send(header(bundleOf(denyRm)));
    expect(producer.send(row({ bundle: { schema: 'nope' } }))).toMatchObject({ error: { code: 'OL-1241' } });
    expect(producer.send(row({}))).toHaveProperty('decision');
  });

  it('treat null state as unavailable (on_evict) and a zeroed layout as available', () => {
    const producer = drive();
    producer.send(header(bundleOf(writeRate)));
    const write = { tool_name: 'Write' };
    expect(producer.send(row({ event: write, state_in: null }))).toMatchObject({
      decision: {
        verdict: 'ask',
        rule_id: 'write-rate',
        matched: [{ rule_id: 'write-rate', verdict: 'ask', source: 'on_evict' }],
        state: 'unavailable',
      },
    });
    expect(producer.send(row({ event: write, state_in: WRITE_LAYOUT_ZEROED }))).toMatchObject({
      decision: { verdict: 'allow', rule_id: null, matched: [], state: 'available' },
    });
  });
});

describe('plain frames (no backslash, no fraction or exponent) and the others', () => {
  // The producer reads a plain frame's integers and ids from JSON.parse's values, and every other
  // frame's from the raw text: the replies must not differ. An unknown member holding a backslash
  // or a float makes the same row take the raw-text path.
  const frame = (id: string, nowMs: bigint, t: bigint, spend: bigint, extra = '') =>
    `{"type":"row","id":${id},"event":{"tool_name":"Write","spend_delta":${spend}},"state_in":{"c":[0],"f":[false],"t":[${t},0,0],"a":[],"run":null},"now_ms":${nowMs}${extra}}`;
  const i64 = fc.bigInt({ min: I64_MIN, max: I64_MAX });
  const ids = fc.oneof(
    fc.string().map((text) => JSON.stringify(text)),
    fc.string().map((text) => JSON.stringify(text).replaceAll('a', '\\u0061')),
    i64.map(String),
    fc.constantFrom('-0', '1.0', '1e2', 'true', 'null', '[1, "a b"]', '{"k": [ ]}', '"\\ud800"'),
  );

  it('get the same reply either way', () => {
    fc.assert(
      fc.property(ids, i64, i64, i64, (id, nowMs, t, spend) => {
        const producer = drive();
        producer.send({ type: 'bundle', bundle: bundleOf(writeRate) });
        const reply = (line: string) => producer.session.handle({ kind: 'line', text: line });
        const plain = reply(frame(id, nowMs, t, spend));
        expect(reply(frame(id, nowMs, t, spend, ',"x":"\\\\"'))).toBe(plain);
        expect(reply(frame(id, nowMs, t, spend, ',"x":0.5'))).toBe(plain);
      }),
      { numRuns: 300 },
    );
  });

  it('echo ids exactly as written', () => {
    const producer = drive();
    producer.send({ type: 'bundle', bundle: bundleOf() });
    for (const id of ['-0', '1.0', '1E2', '"\\u0041"', '"a b"', '12345678901234567890123', 'false'])
      expect(
        producer.session.handle({ kind: 'line', text: `{"type":"row","id":${id},"event":{},"now_ms":1}` }),
      ).toContain(`"id":${id},`);
  });

  it('refuse a float now_ms even when it reads as a safe integer', () => {
    const producer = drive();
    producer.send({ type: 'bundle', bundle: bundleOf() });
    for (const token of ['1.0', '1e3', '10E-1', '-0.0'])
      expect(producer.sendLine(`{"type":"row","id":1,"event":{},"now_ms":${token}}`)).toMatchObject({
        error: { code: 'OL-1240' },
      });
  });
});

describe('lines that get no reply', () => {
  const cases: [string, string, boolean][] = [
    ['a blank line', '   ', false],
    ['a line of tabs and a CR', '\t \t\r', false],
    ['a line of no-break spaces (not JSON whitespace)', '\u00a0\u00a0', true],
    ['invalid JSON', '{"type":"row"', true],
    ['a JSON array', '[{"type":"row"}]', true],
    ['a JSON string', '"row"', true],
    ['no type', '{"id":"x"}', false],
    ['a non-string type', '{"type":1}', false],
    ['an unknown type', '{"type":"load_check"}', false],
  ];
  it.each(cases)('%s (reported on stderr: %s)', (_name, line, reported) => {
    const producer = drive();
    expect(producer.sendLine(line)).toBeUndefined();
    expect(producer.diagnostics.length > 0).toBe(reported);
    expect(producer.session.rowErrors).toBe(0);
  });
});

// The seed protocol: invalid JSON is reported on stderr and skipped without a reply. A repeated key
// is invalid under the contract's strict reader (the one the consumer reads our replies with), so a
// row that repeats its id is never answered as its last id, nor any frame read as its last value.
describe('a frame that repeats a key is not valid JSON: reported, skipped, no reply', () => {
  const cases: [string, string, string][] = [
    ['a row that repeats its id', '{"type":"row","id":"d","id":"e","event":{},"now_ms":1}', '/id'],
    ['a row that repeats its type', '{"type":"row","type":"row","id":"d","event":{},"now_ms":1}', '/type'],
    ['a row that repeats now_ms', '{"type":"row","id":"d","event":{},"now_ms":1,"now_ms":2}', '/now_ms'],
    [
      'a row whose event repeats tool_name',
      '{"type":"row","id":"d","event":{"tool_name":"Bash","tool_name":"Read"},"now_ms":1}',
      '/event/tool_name',
    ],
    [
      'a row whose state_in repeats a register file',
      '{"type":"row","id":"d","event":{},"now_ms":1,"state_in":{"c":[],"c":[1]}}',
      '/state_in/c',
    ],
    ['a header that repeats its bundle', '{"type":"bundle","bundle":{},"bundle":{}}', '/bundle'],
  ];
  it.each(cases)('%s', (_name, line, path) => {
    const producer = drive();
    producer.send(header(bundleOf()));
    expect(producer.sendLine(line)).toBeUndefined();
    expect(producer.diagnostics.join('\n')).toContain(`the key at ${path} is repeated`);
    expect(producer.session.rowErrors).toBe(0);
    // the session goes on: the next row is answered with its own id
    expect(producer.send(row({ id: 'next' }))).toMatchObject({ id: 'next', decision: {} });
  });

  it('a header that repeats a key inside its bundle gets no acknowledgment, and leaves the active bundle', () => {
    const producer = drive();
    const active = producer.send(header(bundleOf())) as { bundle_digest: string };
    const text = JSON.stringify(header(bundleOf(denyRm))).replace('"schema":', '"schema":"x","schema":');
    expect(producer.sendLine(text)).toBeUndefined();
    expect(producer.send(row({}))).toMatchObject({ bundle_digest: active.bundle_digest });
  });

  it('any repeated member of a row, at any value, is never answered (property)', () => {
    const producer = drive();
    producer.send(header(bundleOf()));
    const key = fc.constantFrom('type', 'id', 'event', 'now_ms', 'state_in', 'bundle', 'extra');
    fc.assert(
      fc.property(key, fc.jsonValue(), fc.jsonValue(), (name, first, second) => {
        const members = ['"type":"row"', '"id":"r"', '"event":{}', '"now_ms":1'];
        const repeated = `${JSON.stringify(name)}:${JSON.stringify(first)},${JSON.stringify(name)}:${JSON.stringify(second)}`;
        const line = `{${[...members, repeated].join(',')}}`;
        expect(producer.sendLine(line)).toBeUndefined();
      }),
    );
    expect(producer.session.rowErrors).toBe(0);
  });
});

// The seed protocol's frames are UTF-8 text: a \uD800-\uDFFF escape with no partner is JSON syntax
// but no character (not I-JSON, RFC 7493 §2.1; the contract's strict reader refuses it as
// json_lone_surrogate), so the line is invalid JSON: reported, skipped, no reply. Never answered with
// the escape echoed back in an id, nor evaluated against a tool name no event can carry.
describe('a frame holding an unpaired surrogate escape is not valid JSON: reported, skipped, no reply', () => {
  const cases: [string, string, string][] = [
    ['in the row id', '{"type":"row","id":"\\ud800","event":{},"now_ms":1}', '/id'],
    ['in an id array', '{"type":"row","id":["a","\\udfff"],"event":{},"now_ms":1}', '/id/1'],
    [
      'in a tool name',
      '{"type":"row","id":"d","event":{"tool_name":"Wr\\udc00ite"},"now_ms":1}',
      '/event/tool_name',
    ],
    ['in a key of the event', '{"type":"row","id":"d","event":{"\\ud83d":1},"now_ms":1}', '/event/\ud83d'],
    [
      'in the tool input',
      '{"type":"row","id":"d","event":{"tool_input":{"command":"rm \\uDBFF"}},"now_ms":1}',
      '/event/tool_input/command',
    ],
    ['high then high', '{"type":"row","id":"\\ud800\\ud800","event":{},"now_ms":1}', '/id'],
    ['low then high', '{"type":"row","id":"\\udc00\\ud800","event":{},"now_ms":1}', '/id'],
    [
      'in the state run shape',
      '{"type":"row","id":"d","event":{},"now_ms":1,"state_in":{"run":{"shape":"\\ud800","len":0}}}',
      '/state_in/run/shape',
    ],
    ['in an unknown member', '{"type":"row","id":"d","event":{},"now_ms":1,"note":"\\ud800"}', '/note'],
    ['in the type', '{"type":"row\\ud800","id":"d","event":{},"now_ms":1}', '/type'],
    ['in a header bundle', '{"type":"bundle","bundle":{"schema":"\\ud800"}}', '/bundle/schema'],
  ];
  it.each(cases)('%s', (_name, line, path) => {
    const producer = drive();
    const active = producer.send(header(bundleOf())) as { bundle_digest: string };
    expect(producer.sendLine(line)).toBeUndefined();
    expect(producer.diagnostics.join('\n')).toContain(`unpaired UTF-16 surrogate escape at ${path}`);
    expect(producer.session.rowErrors).toBe(0);
    // the session goes on, the active bundle as it was
    expect(producer.send(row({ id: 'next' }))).toMatchObject({
      id: 'next',
      bundle_digest: active.bundle_digest,
      decision: {},
    });
  });

  it('a paired escape is the character it spells: answered, the id echoed as written', () => {
    const producer = drive();
    producer.send(header(bundleOf()));
    const reply = producer.sendLine(
      '{"type":"row","id":"\\ud83d\\ude00","event":{"tool_name":"\\uD83D\\uDE00"},"now_ms":1}',
    );
    expect(reply).toMatchObject({ id: '\u{1F600}', decision: {} });
    expect(producer.diagnostics).toEqual([]);
  });

  it('any unpaired surrogate anywhere in a row is never answered (property)', () => {
    const producer = drive();
    producer.send(header(bundleOf()));
    const lone = fc.oneof(
      fc.integer({ min: 0xd800, max: 0xdbff }).map((code) => `\\u${code.toString(16)}`),
      fc.integer({ min: 0xdc00, max: 0xdfff }).map((code) => `\\u${code.toString(16).toUpperCase()}`),
    );
    const place = fc.constantFrom(
      (escape: string) => `{"type":"row","id":"a${escape}b","event":{},"now_ms":1}`,
      (escape: string) => `{"type":"row","id":"d","event":{"tool_name":"${escape}"},"now_ms":1}`,
      (escape: string) => `{"type":"row","id":"d","event":{"env":{"${escape}x":"y"}},"now_ms":1}`,
    );
    fc.assert(
      fc.property(lone, place, (escape, at) => {
        expect(producer.sendLine(at(escape))).toBeUndefined();
      }),
    );
    expect(producer.session.rowErrors).toBe(0);
  });
});

describe('a row with no id is answered with id null, as the seed protocol says ("omission yields null")', () => {
  it('a success and a row error alike', () => {
    const producer = drive();
    producer.send(header(bundleOf()));
    expect(producer.sendLine('{"type":"row","event":{},"now_ms":1}')).toMatchObject({
      id: null,
      decision: {},
    });
    expect(producer.sendLine('{"type":"row","event":{},"now_ms":1.5}')).toMatchObject({
      id: null,
      error: { code: 'OL-1240' },
    });
  });
});

describe('the Decision object', () => {
  it('is frozen: the schema file is pinned', () => {
    const schema = readFileSync(
      new URL('../../../schemas/policy/decision-v1.schema.json', import.meta.url),
      'utf8',
    );
    expect(JSON.parse(schema)).toMatchSnapshot();
  });

  it('every decision the producer emits matches the schema exactly', () => {
    const producer = drive();
    producer.send(header(bundleOf(denyRm, writeRate)));
    const decisions = [
      producer.send(row({ event: { tool_name: 'Bash', tool_input: { command: 'rm x' } } })),
      producer.send(row({ event: { tool_name: 'Write' }, state_in: WRITE_LAYOUT_ZEROED })),
    ].map((reply) => reply?.decision);
    for (const decision of decisions) {
      expect(Object.keys(decision as object).sort()).toEqual([
        'matched',
        'reason',
        'rule_id',
        'state',
        'verdict',
      ]);
      expect(schemaErrors(DECISION_V1, decision)).toEqual([]);
    }
  });
});
