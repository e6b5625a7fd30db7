// Differential rows against the Attest engine (attest-framework/attest at 448e246, engine 0.4.0 as
// @attest-ai/core 0.5.0 ships it): each row is a request line as an SDK or a hand-written client
// sends it, the answer that engine gives (read from its source: the file:line is on the row), and
// this engine's answer must match it — the code and message of an error, or each row's status and
// explanation. Where seed 003 decides otherwise (ids echoed exactly rather than as 0, every row
// returned), the row says so. Driven in-process, on the bytes of the line (EngineServer.handleLine).
import { describe, expect, it } from 'vitest';

import { EngineServer } from '../src/engine-server.ts';

const INITIALIZE = '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocol_version":1}}';

/** A batch line with `trace` and `assertions` written as JSON text (so raw spellings survive). */
const batch = (id: number, trace: string, assertions = '[]'): string =>
  `{"jsonrpc":"2.0","id":${id},"method":"evaluate_batch","params":{"trace":${trace},"assertions":${assertions}}}`;

/** The line's UTF-8 with its one `@` replaced by `bytes` (invalid UTF-8 on purpose). */
const withBytes = (line: string, bytes: number[]): Uint8Array => {
  const [head = '', tail = ''] = line.split('@');
  return Buffer.concat([Buffer.from(head), Buffer.from(bytes), Buffer.from(tail)]);
};

const content = (id: string, target: string, check: string, value: string): string =>
  JSON.stringify({ assertion_id: id, type: 'content', spec: { target, check, value } });

interface Reply {
  id: unknown;
  result?: {
    results?: { assertion_id: string; status: string; explanation: string }[];
    [key: string]: unknown;
  };
  error?: { code: number; message: string; data: { error_type: string; detail: string } };
}

async function answer(line: string | Uint8Array, initialize = true): Promise<Reply> {
  const server = new EngineServer();
  if (initialize) await server.handleLine(INITIALIZE);
  return JSON.parse((await server.handleLine(line)) ?? 'null') as Reply;
}

describe('request lines as the Attest engine decodes them (server.go:124, segmentio/encoding/json)', () => {
  // [name, line, expected id, expected status of row "a" | error code, upstream source]
  const rows: [string, string | Uint8Array, unknown, string | number, string][] = [
    [
      'a lone surrogate escape (a truncated emoji) is U+FFFD and evaluated',
      batch(
        2,
        '{"trace_id":"t","output":{"message":"refund done \\ud83d"}}',
        `[${content('a', 'output.message', 'contains', 'refund')}]`,
      ),
      2,
      'pass',
      'segmentio json/parse.go:532-536 (unicode.ReplacementChar)',
    ],
    [
      'invalid UTF-8 bytes are U+FFFD and evaluated',
      withBytes(
        batch(
          3,
          '{"trace_id":"t","output":{"message":"caf@!"}}',
          `[${content('a', 'output.message', 'contains', 'caf\uFFFD!')}]`,
        ),
        [0xc3],
      ),
      3,
      'pass',
      'segmentio json/parse.go:577-585 (appendCoerceInvalidUTF8)',
    ],
    [
      'a cut 4-byte sequence is one U+FFFD per byte, as Go ranges over a string',
      withBytes(
        batch(
          3,
          '{"trace_id":"t","output":{"message":"ok @!"}}',
          `[${content('a', 'output.message', 'contains', '\uFFFD\uFFFD\uFFFD!')}]`,
        ),
        [0xf0, 0x9f, 0x98],
      ),
      3,
      'pass',
      'segmentio json/parse.go:577-585; Go spec: for range yields RuneError per invalid byte',
    ],
    [
      'a repeated key keeps its last value',
      `{"jsonrpc":"2.0","id":4,"method":"evaluate_batch","params":{"trace":{"trace_id":"t","output":{"m":"first"},"output":{"m":"last"}},"assertions":[${content('a', 'output.m', 'contains', 'last')}]}}`,
      4,
      'pass',
      'segmentio json/decode.go (a later member overwrites the field)',
    ],
    [
      'nesting deeper than 512 is read',
      batch(
        5,
        `{"trace_id":"t","output":{"deep":${'['.repeat(1000)}${']'.repeat(1000)}}}`,
        `[${content('a', 'output.deep', 'contains', '[[[')}]`,
      ),
      5,
      'pass',
      'segmentio json/parse.go: no depth bound (ours: MAX_REQUEST_DEPTH 3000)',
    ],
  ];
  it.each(rows)('%s', async (_name, line, id, expected) => {
    const reply = await answer(line);
    expect(reply.id).toBe(id);
    expect(reply.error).toBeUndefined();
    expect(reply.result?.results?.map((row) => row.status)).toEqual([expected]);
  });

  it('matches member names of its structs case-insensitively (segmentio json/decode.go:1202-1205)', async () => {
    expect(
      await answer('{"JSONRPC":"2.0","ID":6,"Method":"initialize","Params":{"Protocol_Version":1}}', false),
    ).toMatchObject({ id: 6, result: { protocol_version: 1 } });
    const trace =
      '{"Trace_ID":"t","Output":{"Message":"hi"},"Steps":[{"Type":"tool_call","Name":"a","Result":{"v":1}}],"Metadata":{"Cost_USD":0.5}}';
    const assertions = [
      '{"Assertion_ID":"c","Type":"constraint","Spec":{"field":"metadata.cost_usd","operator":"eq","value":0.5}}',
      // output's keys are a map's there (map[string]json.RawMessage): matched exactly.
      content('m', 'output.message', 'contains', 'hi'),
      content('M', 'output.Message', 'contains', 'hi'),
      JSON.stringify({ assertion_id: 'r', type: 'trace', spec: { check: 'required_tools', tools: ['a'] } }),
    ];
    const reply = await answer(batch(2, trace, `[${assertions.join(',')}]`));
    expect(reply.result?.results?.map((row) => [row.assertion_id, row.status])).toEqual([
      ['c', 'pass'],
      ['m', 'hard_fail'],
      ['M', 'pass'],
      ['r', 'pass'],
    ]);
    // The later of two spellings wins, as a later member does.
    const tree = (sub: string): string =>
      `{"jsonrpc":"2.0","id":3,"method":"validate_trace_tree","params":{"trace":{"trace_id":"x","Steps":[{"type":"agent_call","name":"go","sub_trace":${sub}}]}}}`;
    expect(
      (await answer(tree('{"trace_id":"s","parent_trace_id":"zzz","Parent_Trace_ID":"x"}'))).result,
    ).toMatchObject({
      valid: true,
      depth: 1,
    });
    expect(
      (await answer(tree('{"trace_id":"s","Parent_Trace_ID":"x","parent_trace_id":"zzz"}'))).result,
    ).toMatchObject({
      valid: false,
    });
  });

  it('folds a member name as segmentio folds it (appendToLower: unicode.SimpleFold, so ſ is s; İ stays)', async () => {
    const trace = '{"trace_id":"t","output":{"m":1},"ſteps":[{"type":"tool_call","name":"a"}]}';
    const count = JSON.stringify({
      assertion_id: 'n',
      type: 'constraint',
      spec: { field: 'steps.length', operator: 'eq', value: 1 },
    });
    expect((await answer(batch(2, trace, `[${count}]`))).result?.results).toMatchObject([{ status: 'pass' }]);
    expect(await answer(batch(3, '{"trace_İd":"t","output":{"m":1}}'))).toMatchObject({
      error: { code: 1001, message: 'trace missing required field: trace_id' },
    });
  });

  it('echoes the id of a line that is not JSON when it reads before the problem (upstream: id 0, server.go:126)', async () => {
    expect(await answer('{"jsonrpc":"2.0","id":7,"method":"query_drift","params":{')).toMatchObject({
      id: 7,
      error: { code: -32700, message: 'parse error', data: { error_type: 'PARSE_ERROR' } },
    });
    expect(await answer('{"jsonrpc":"2.0","id":"req-8","method":')).toMatchObject({ id: 'req-8' });
    expect(await answer('{"jsonrpc":"2.0","method":1,,"id":9}')).toMatchObject({ id: null });
    const tooDeep = batch(10, `{"trace_id":"t","output":{"deep":${'['.repeat(3001)}${']'.repeat(3001)}}}`);
    expect(await answer(tooDeep)).toMatchObject({ id: 10, error: { code: -32700 } });
  });
});

describe('non-string targets: the raw text of the value (assertion/target.go:42-52, content.go:40)', () => {
  const trace =
    '{"trace_id":"t","output":{"n":1.0,"e":1e3,"z":null,"s":{"a": 1},"l":[1, 2]},"steps":[{"type":"tool_call","name":"x","result":{"v":2.50}}]}';
  // [assertion, expected status, explanation (content.go's words)]
  const rows: [string, string, string][] = [
    [content('N1', 'output.n', 'contains', '1.0'), 'pass', "output.n contains '1.0'."],
    [content('N2', 'output.e', 'contains', '1e3'), 'pass', "output.e contains '1e3'."],
    [content('N3', 'output.z', 'not_contains', 'null'), 'pass', "output.z does not contain 'null'."],
    [content('N4', 'output.s', 'contains', '"a": 1'), 'pass', 'output.s contains \'"a": 1\'.'],
    [content('N5', 'output', 'contains', '"n":1.0'), 'pass', 'output contains \'"n":1.0\'.'],
    [content('N6', 'output.l', 'contains', '[1, 2]'), 'pass', "output.l contains '[1, 2]'."],
    [
      content('N7', "steps[?name=='x'].result.v", 'contains', '2.50'),
      'pass',
      "steps[?name=='x'].result.v contains '2.50'.",
    ],
    [content('N8', 'output.n', 'contains', '1.00'), 'hard_fail', "output.n does not contain '1.00'."],
    [
      content('N9', 'output.n', 'not_contains', '1.0'),
      'hard_fail',
      "output.n contains '1.0' but should not.",
    ],
  ];
  it.each(rows)('%s', async (assertion, status, explanation) => {
    const reply = await answer(batch(2, trace, `[${assertion}]`));
    expect(reply.result?.results).toMatchObject([{ status, explanation }]);
  });
});

describe("constraint and schema explanations in the Attest engine's words", () => {
  const trace = '{"trace_id":"t","output":{"m":{"a":1}},"steps":[],"metadata":{"cost_usd":0.0015}}';
  const assertion = (id: string, type: string, spec: object): string =>
    JSON.stringify({ assertion_id: id, type, spec });
  // [assertion, status, explanation, upstream source]
  const rows: [string, string, string, string][] = [
    [
      assertion('c1', 'constraint', { field: 'metadata.cost_usd', operator: 'lte', value: 0.01 }),
      'pass',
      'metadata.cost_usd = 0.0015, constraint lte 0.01 — satisfied.',
      'constraint.go:66, 109',
    ],
    [
      assertion('c2', 'constraint', { field: 'steps.length', operator: 'between', min: 1, max: 3 }),
      'hard_fail',
      'steps.length = 0, constraint between [1, 3] — constraint not satisfied.',
      'constraint.go:90, 100',
    ],
    [
      assertion('c3', 'constraint', { field: 'metadata.latency_ms', operator: 'lt', value: 5 }),
      'hard_fail',
      'field resolution failed: metadata.latency_ms is not set',
      'constraint.go:43, 133',
    ],
    [
      assertion('s1', 'schema', { target: 'output.m', schema: { type: 'object' } }),
      'pass',
      'output.m matches schema: all required fields present, types valid.',
      'schema.go:86',
    ],
  ];
  it.each(rows)('%s', async (line, status, explanation) => {
    expect((await answer(batch(2, trace, `[${line}]`))).result?.results).toMatchObject([
      { status, explanation },
    ]);
  });

  it.each([
    [
      { check: 'contains_in_order', tools: ['a', 'c'] },
      'pass',
      'tool sequence [a c] found in order at steps [0 2].',
    ],
    [
      { check: 'contains_in_order', tools: ['b', 'a'] },
      'hard_fail',
      'tool sequence [b a] not found in order; missing "a" after position 2',
    ],
    [
      { check: 'exact_order', tools: ['b', 'c'] },
      'pass',
      'tool sequence [b c] found in exact order at steps [1 2].',
    ],
    [
      { check: 'exact_order', tools: ['a', 'c'] },
      'hard_fail',
      'tool sequence [a c] not found in exact contiguous order',
    ],
    [
      { check: 'exact_order', tools: ['a', 'b', 'c', 'a', 'b'] },
      'hard_fail',
      'exact order [a b c a b] not found: trace has fewer steps than required sequence',
    ],
    [
      { check: 'loop_detection', tool: 'c', max_repetitions: 1 },
      'hard_fail',
      'tool "c" called 2 times, exceeds max_repetitions 1',
    ],
    [
      { check: 'loop_detection', tool: 'a', max_repetitions: 1 },
      'pass',
      'tool "a" called 1 times, within max_repetitions 1.',
    ],
    [{ check: 'no_duplicates' }, 'hard_fail', 'duplicate step names found: "c" (2 times)'],
    [{ check: 'required_tools', tools: ['a', 'z'] }, 'hard_fail', 'required tools not found in trace: [z]'],
    [{ check: 'required_tools', tools: ['a'] }, 'pass', 'all required tools found: [a].'],
    [{ check: 'forbidden_tools', tools: ['z', 'c'] }, 'hard_fail', 'forbidden tools found in trace: [c]'],
    [{ check: 'forbidden_tools', tools: ['z'] }, 'pass', 'none of the forbidden tools [z] found in trace.'],
  ])('trace %j (trace_check.go:104-219)', async (spec, status, explanation) => {
    const steps = ['a', 'b', 'c', 'c'].map((name) => ({ type: 'tool_call', name }));
    const line = batch(
      2,
      JSON.stringify({ trace_id: 't', output: { m: 1 }, steps }),
      `[${assertion('t', 'trace', spec)}]`,
    );
    expect((await answer(line)).result?.results).toMatchObject([{ status, explanation }]);
  });

  it('words a schema failure as "failed schema validation" (schema.go:76)', async () => {
    const line = assertion('s2', 'schema', { target: 'output.m', schema: { type: 'string' } });
    const [row] = (await answer(batch(2, trace, `[${line}]`))).result?.results ?? [];
    expect(row?.status).toBe('hard_fail');
    expect(row?.explanation).toMatch(/^output\.m failed schema validation: /);
  });
});

describe("case folding as Go's strings.ToLower (content.go:44-47, trace_tree_eval.go:141-145)", () => {
  // unicode.ToLower per code point: İ (U+0130) is "i" (JavaScript: "i̇"), Σ is always σ (JavaScript: ς
  // at the end of a word). [assertion, expected status]
  const trace = JSON.stringify({
    trace_id: 't',
    output: { city: 'İSTANBUL', hero: 'ΟΔΥΣΣΕΥΣ', message: 'x' },
    steps: [
      {
        type: 'agent_call',
        name: 'delegate',
        sub_trace: { trace_id: 's', agent_id: 'guide', output: { city: 'İZMIR' } },
      },
    ],
  });
  const tree = (id: string, value: string): string =>
    JSON.stringify({
      assertion_id: id,
      type: 'trace_tree',
      spec: { check: 'agent_output_contains', agent_id: 'guide', value },
    });
  const rows: [string, string][] = [
    [content('dotted-I', 'output.city', 'contains', 'istanbul'), 'pass'],
    [content('final-sigma', 'output.hero', 'contains', 'οδυσσευσ'), 'pass'],
    [content('no-final-form', 'output.hero', 'not_contains', 'ς'), 'pass'],
    [
      JSON.stringify({
        assertion_id: 'kw',
        type: 'content',
        spec: { target: 'output.city', check: 'keyword_all', values: ['İst', 'BUL'] },
      }),
      'pass',
    ],
    [tree('tree-dotted-I', 'izmir'), 'pass'],
  ];
  it.each(rows)('%s', async (assertion, status) => {
    const reply = await answer(batch(2, trace, `[${assertion}]`));
    expect(reply.result?.results).toMatchObject([{ status }]);
  });
});

describe('tree checks on the raw text of a node (trace_tree_eval.go:139, 170-193)', () => {
  // agent_output_contains searches string(found.Output), the request's own bytes; cross_agent_data_flow
  // searches string(toTrace.Input) for json.Marshal of the sender's field (sorted keys, <>& escaped).
  const trace =
    '{"trace_id":"t","agent_id":"root","output":{"m":1},"steps":[' +
    '{"type":"agent_call","name":"a","sub_trace":{"trace_id":"a","agent_id":"writer","output":{"message": "caf\\u00e9", "q":"a<b", "o":{"b":1,"a":2}, "p":{"a":2}, "n":1.50}}},' +
    '{"type":"agent_call","name":"b","sub_trace":{"trace_id":"b","agent_id":"reader","input":{"q": "a<b", "o": {"a": 2, "b": 1}, "k":{"a":2,"b":1}, "p": {"a": 2}, "n": 1.50},"output":{"ok":true}}}]}';
  const spec = (id: string, body: object): string =>
    JSON.stringify({ assertion_id: id, type: 'trace_tree', spec: body });
  const outputContains = (id: string, value: string): string =>
    spec(id, { check: 'agent_output_contains', agent_id: 'writer', value, case_sensitive: true });
  const flow = (id: string, field: string): string =>
    spec(id, { check: 'cross_agent_data_flow', from_agent: 'writer', to_agent: 'reader', field });
  // [assertion, expected status]
  const rows: [string, string][] = [
    [outputContains('spaced', '"message": "caf'), 'pass'],
    [outputContains('escaped', 'caf\\u00e9'), 'pass'],
    [outputContains('unescaped', 'café'), 'hard_fail'],
    [outputContains('number-as-written', '1.50'), 'pass'],
    [flow('html-escaped', 'q'), 'hard_fail'],
    [flow('sorted-compact', 'o'), 'pass'],
    [flow('spaced-input', 'p'), 'hard_fail'],
    [flow('number', 'n'), 'pass'],
  ];
  it.each(rows)('%s', async (assertion, status) => {
    const reply = await answer(batch(2, trace, `[${assertion}]`));
    expect(reply.result?.results).toMatchObject([{ status }]);
  });
});

describe('raw text of a repeated key, and of values read after others', () => {
  it('is the last occurrence, as the decoded value is (segmentio: a later member overwrites)', async () => {
    const trace =
      '{"trace_id":"t","output":{"s":{"a": 1},"pad":[{"x":"]}"},[1,{"y":2}]],"s":{"b":  2.0}},"steps":[{"type":"tool_call","name":"x","result":{"v":1}},{"type":"tool_call","name":"y","result":{"w":[3.0]}}]}';
    const assertions = [
      content('last', 'output.s', 'contains', '"b":  2.0'),
      content('first', 'output.s', 'not_contains', '"a"'),
      content('pad', 'output.pad', 'contains', '{"x":"]}"}'),
      content('step', "steps[?name=='y'].result.w", 'contains', '[3.0]'),
    ];
    const reply = await answer(batch(2, trace, `[${assertions.join(',')}]`));
    expect(reply.result?.results?.map((row) => [row.assertion_id, row.status])).toEqual([
      ['last', 'pass'],
      ['first', 'pass'],
      ['pad', 'pass'],
      ['step', 'pass'],
    ]);
  });
});

describe('trace fields as the Attest engine decodes them (pkg/types/trace.go, trace/validate.go)', () => {
  // [name, trace, expected: 'ok' or [code, message], upstream source]
  const rows: [string, string, 'ok' | [number, string], string][] = [
    [
      'a plain-string tool result',
      '{"trace_id":"t","output":{"m":1},"steps":[{"type":"tool_call","name":"a","result":"plain text"}]}',
      'ok',
      'trace.go:29 (Result json.RawMessage)',
    ],
    [
      'an array result, null args',
      '{"trace_id":"t","output":{"m":1},"steps":[{"type":"tool_call","name":"b","args":null,"result":[1,2]}]}',
      'ok',
      'trace.go:28-29',
    ],
    [
      'a string input, null metadata, null steps',
      '{"trace_id":"t","output":{"m":1},"input":"hi","metadata":null,"steps":null}',
      'ok',
      'trace.go:17-20',
    ],
    [
      'a null sub_trace on a tool_call step',
      '{"trace_id":"t","output":{"m":1},"steps":[{"type":"tool_call","name":"a","sub_trace":null}]}',
      'ok',
      'trace.go:30 (SubTrace *Trace: null is nil)',
    ],
    [
      'no schema_version at the root',
      '{"trace_id":"t","output":{"m":1}}',
      'ok',
      'normalize.go:12-16, handler.go:454',
    ],
    [
      'no schema_version in a sub-trace',
      '{"trace_id":"t","output":{"m":1},"steps":[{"type":"agent_call","name":"a","sub_trace":{"trace_id":"s","output":{"m":1}}}]}',
      'ok',
      'validate.go:38 (0 is within 0..1)',
    ],
    [
      'schema_version 2',
      '{"schema_version":2,"trace_id":"t","output":{"m":1}}',
      [1001, 'unsupported schema_version 2; engine supports versions 0 to 1'],
      'validate.go:38-45',
    ],
    [
      'a blank step name',
      '{"trace_id":"t","output":{"m":1},"steps":[{"type":"tool_call","name":" "}]}',
      [1001, 'trace step missing required field: name'],
      'validate.go:117-126 (TrimSpace)',
    ],
    [
      'an unknown step type',
      '{"trace_id":"t","output":{"m":1},"steps":[{"type":"bogus","name":"n"}]}',
      [1001, "trace step 'n' has invalid type 'bogus'"],
      'validate.go:127-134',
    ],
    [
      'an empty output',
      '{"trace_id":"t","output":{}}',
      [1001, 'trace output must be a non-empty JSON object'],
      'validate.go:69-77',
    ],
    ['no output', '{"trace_id":"t"}', [1001, 'trace missing required field: output'], 'validate.go:60-67'],
    [
      'a blank trace_id',
      '{"trace_id":"  ","output":{"m":1}}',
      [1001, 'trace missing required field: trace_id'],
      'validate.go:49-56',
    ],
    [
      'null for a field that is not raw JSON is its zero value: metadata, steps and the trace',
      '{"trace_id":"t","agent_id":null,"input":null,"parent_trace_id":null,"output":{"m":1},"metadata":{"model":null,"timestamp":null,"total_tokens":null,"cost_usd":null},"steps":[{"type":"tool_call","name":"a","started_at_ms":null,"ended_at_ms":null,"agent_id":null,"agent_role":null,"sub_trace":null}]}',
      'ok',
      'trace.go:13-49 (a null into a string, an int or a pointer leaves it unset)',
    ],
    [
      'a sub-trace without output, in validate.go words',
      '{"trace_id":"t","output":{"m":1},"steps":[{"type":"agent_call","name":"a","sub_trace":{"trace_id":"s"}}]}',
      [1001, 'trace missing required field: output'],
      'validate.go:60-67, 169-175 (sub-traces are validated as traces)',
    ],
    [
      'a sub-trace with a blank trace_id',
      '{"trace_id":"t","output":{"m":1},"steps":[{"type":"agent_call","name":"a","sub_trace":{"trace_id":" ","output":{"x":1}}}]}',
      [1001, 'trace missing required field: trace_id'],
      'validate.go:49-56, 169-175',
    ],
    [
      'a sub-trace whose output is not an object',
      '{"trace_id":"t","output":{"m":1},"steps":[{"type":"agent_call","name":"a","sub_trace":{"trace_id":"s","output":[1]}}]}',
      [1001, 'trace output must be a non-empty JSON object'],
      'validate.go:69-77, 169-175',
    ],
    [
      'a sub-trace of schema_version 2',
      '{"trace_id":"t","output":{"m":1},"steps":[{"type":"agent_call","name":"a","sub_trace":{"schema_version":2,"trace_id":"s","output":{"x":1}}}]}',
      [1001, 'unsupported schema_version 2; engine supports versions 0 to 1'],
      'validate.go:38-45, 169-175',
    ],
    [
      "a node's steps before its sub-traces",
      '{"trace_id":"t","output":{"m":1},"steps":[{"type":"agent_call","name":"a","sub_trace":{"trace_id":"s"}},{"type":"bogus","name":"b"}]}',
      [1001, "trace step 'b' has invalid type 'bogus'"],
      'validate.go:117-156, then 169-175',
    ],
    [
      'six levels: the sixth is depth 5 (root 0)',
      '{"trace_id":"t1","output":{"m":1},"steps":[{"type":"agent_call","name":"s1","sub_trace":{"trace_id":"t2","output":{"m":1},"steps":[{"type":"agent_call","name":"s2","sub_trace":{"trace_id":"t3","output":{"m":1},"steps":[{"type":"agent_call","name":"s3","sub_trace":{"trace_id":"t4","output":{"m":1},"steps":[{"type":"agent_call","name":"s4","sub_trace":{"trace_id":"t5","output":{"m":1},"steps":[{"type":"agent_call","name":"s5","sub_trace":{"trace_id":"t6","output":{"m":1}}}]}}]}}]}}]}}]}',
      [1001, 'trace nesting depth 5 exceeds maximum 5'],
      'validate.go:158-166',
    ],
  ];
  it.each(rows)('%s', async (_name, trace, expected) => {
    const reply = await answer(batch(2, trace));
    if (expected === 'ok') {
      expect(reply.error).toBeUndefined();
      expect(reply.result?.results).toEqual([]);
    } else {
      expect(reply.error).toMatchObject({ code: expected[0], message: expected[1] });
    }
  });
});

describe('params as the Attest engine decodes them (server/handler.go)', () => {
  const trace = '{"trace_id":"t","output":{"m":1}}';
  it('initialize: every field optional, versions 0 and 2 refused (handler.go:328-356)', async () => {
    expect(await answer(INITIALIZE, false)).toMatchObject({
      id: 1,
      result: { protocol_version: 1, missing: [] },
    });
    const init = (params: string): string => `{"jsonrpc":"2.0","id":1,"method":"initialize"${params}}`;
    expect(await answer(init(''), false)).toMatchObject({
      error: { code: 3003, message: 'invalid initialize params' },
    });
    expect(await answer(init(',"params":{}'), false)).toMatchObject({
      error: { code: 3003, message: 'protocol version 0 is too old; engine supports versions 1–1' },
    });
    expect(await answer(init(',"params":{"protocol_version":2}'), false)).toMatchObject({
      error: { code: 3003, message: 'protocol version 2 not supported; engine supports versions 1–1' },
    });
    expect(await answer(init(',"params":{"protocol_version":"1"}'), false)).toMatchObject({
      error: { code: 3003, message: 'invalid initialize params' },
    });
  });

  it("evaluate_batch: a missing spec is that row's hard_fail; no list or null is empty (handler.go:430, pipeline.go:85)", async () => {
    const reply = await answer(
      batch(
        2,
        trace,
        '[{"assertion_id":"x","type":"content"},{"type":"content","spec":{}},{"assertion_id":"u","type":"foo","spec":{}}]',
      ),
    );
    expect(reply.result?.results).toMatchObject([
      {
        assertion_id: 'x',
        status: 'hard_fail',
        explanation: 'invalid content spec: unexpected end of JSON input',
      },
      { assertion_id: '', status: 'hard_fail' },
      { assertion_id: 'u', status: 'hard_fail', explanation: 'unknown assertion type: foo' },
    ]);
    expect((await answer(batch(3, trace, 'null'))).result?.results).toEqual([]);
    expect(
      (await answer(`{"jsonrpc":"2.0","id":4,"method":"evaluate_batch","params":{"trace":${trace}}}`)).result
        ?.results,
    ).toEqual([]);
  });

  it('constraint: no steps (absent or null) count as 0 (constraint.go:137-150)', async () => {
    const count = (id: string, field: string): string =>
      JSON.stringify({ assertion_id: id, type: 'constraint', spec: { field, operator: 'eq', value: 0 } });
    const assertions = `[${count('all', 'steps.length')},${count('tools', "steps[?type=='tool_call'].length")}]`;
    for (const steps of ['', ',"steps":null']) {
      const reply = await answer(batch(2, `{"trace_id":"t","output":{"m":1}${steps}}`, assertions));
      expect(reply.result?.results?.map((row) => row.status)).toEqual(['pass', 'pass']);
    }
  });

  it('evaluate_batch: a repeated assertion_id is evaluated twice (handler.go:441-486)', async () => {
    const assertion = content('same', 'output.m', 'contains', '1');
    const reply = await answer(batch(2, trace, `[${assertion},${assertion}]`));
    expect(reply.result?.results?.map((row) => [row.assertion_id, row.status])).toEqual([
      ['same', 'pass'],
      ['same', 'pass'],
    ]);
  });

  it('evaluate_batch: an assertion_id over 256 bytes wins over a bad trace (handler.go:442, then 466)', async () => {
    const long = content('x'.repeat(257), 'output.m', 'contains', '1');
    expect(await answer(batch(2, '{"trace_id":""}', `[${long}]`))).toMatchObject({
      error: {
        code: 1002,
        message: 'assertion_id exceeds maximum length: 257 > 256',
        data: { detail: 'assertion_id must be at most 256 characters' },
      },
    });
  });

  it("a blank trace_id or step name is blank by Go's strings.TrimSpace (validate.go:49, 118): NEL is a space", async () => {
    expect(await answer(batch(2, '{"trace_id":"\\u0085 ","output":{"m":1}}'))).toMatchObject({
      error: { code: 1001, message: 'trace missing required field: trace_id' },
    });
    expect(
      await answer(
        batch(2, '{"trace_id":"t","output":{"m":1},"steps":[{"type":"tool_call","name":"\\u3000\\u0085"}]}'),
      ),
    ).toMatchObject({ error: { code: 1001, message: 'trace step missing required field: name' } });
  });

  // The detail of each error too, word for word: each handler's first check, handler.go:337-356,
  // and trace/validate.go:36-166.
  it.each([
    [
      '{"jsonrpc":"2.0","id":2,"method":"evaluate_batch","params":{}}',
      false,
      'call initialize first to establish a session before sending evaluate_batch requests',
    ],
    [
      '{"jsonrpc":"2.0","id":2,"method":"query_drift","params":{}}',
      false,
      'call initialize first to establish a session',
    ],
    [
      '{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocol_version":2}}',
      false,
      "Upgrade the engine binary to support this SDK's protocol version",
    ],
    [
      '{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocol_version":0}}',
      false,
      'Upgrade the SDK to a newer protocol version',
    ],
    [
      batch(2, '{"schema_version":2,"trace_id":"t","output":{"m":1}}'),
      true,
      'Set schema_version to 1 (current) or 0 (previous, deprecated). Version 2 is not supported.',
    ],
    [
      batch(
        2,
        `{"trace_id":"t","output":{"m":1},"steps":${JSON.stringify(Array.from({ length: 10_001 }, () => ({ type: 'tool_call', name: 'a' })))}}`,
      ),
      true,
      'Reduce the number of steps to 10000 or fewer. Consider batching or summarizing intermediate steps.',
    ],
    [
      batch(
        2,
        `{"trace_id":"t","output":{"m":1},"steps":[{"type":"tool_call","name":"a","result":"${'x'.repeat(1024 * 1024)}"}]}`,
      ),
      true,
      'Reduce the step payload size to 1048576 bytes (1 MB) or fewer by truncating tool results or outputs.',
    ],
    [
      batch(
        2,
        [1, 2, 3, 4, 5].reduceRight(
          (inner, depth) =>
            `{"trace_id":"t${depth}","output":{"m":1},"steps":[{"type":"agent_call","name":"a","sub_trace":${inner}}]}`,
          '{"trace_id":"t6","output":{"m":1}}',
        ),
      ),
      true,
      'Reduce the agent_call nesting depth to 5 or fewer levels.',
    ],
  ])('%#: the detail in its words', async (line, initialize, detail) => {
    expect((await answer(line, initialize)).error?.data.detail).toBe(detail);
  });

  it('validate_trace_tree: a null field is unset there too (trace.go)', async () => {
    const line =
      '{"jsonrpc":"2.0","id":4,"method":"validate_trace_tree","params":{"trace":{"trace_id":"t","agent_id":null,"output":{"m":1},"metadata":{"model":null},"steps":[{"type":"agent_call","name":"a","started_at_ms":null,"sub_trace":{"trace_id":"s","agent_id":"x","output":{"m":1}}}]}}}';
    expect(await answer(line)).toMatchObject({ result: { valid: true, depth: 1, agent_ids: ['x'] } });
  });

  it('validate_trace_tree: only the tree is checked; no agents is agent_ids null (handler.go:687, tree.go:65-73)', async () => {
    const tree = (value: string): string =>
      `{"jsonrpc":"2.0","id":2,"method":"validate_trace_tree","params":{"trace":${value}}}`;
    expect((await answer(tree('{"trace_id":"t","output":{}}'))).result).toEqual({
      valid: true,
      depth: 0,
      agent_count: 0,
      agent_ids: null,
      aggregate_tokens: 0,
      aggregate_cost_usd: 0,
      aggregate_latency_ms: 0,
    });
    // A null sub_trace on an agent_call step is nil there: a step missing its sub_trace (tree.go:103-105).
    expect(
      (await answer(tree('{"trace_id":"t","steps":[{"type":"agent_call","name":"go","sub_trace":null}]}')))
        .result,
    ).toMatchObject({ valid: false, errors: ['agent_call step "go" in trace "t" is missing sub_trace'] });
    expect((await answer(tree('"x"'))).error).toMatchObject({
      code: 1001,
      message: 'invalid validate_trace_tree params',
    });
  });

  it('messages: "method not found" with "unknown method: X"; "invalid request" (server.go:137-160)', async () => {
    expect(await answer('{"jsonrpc":"2.0","id":3,"method":"nope"}')).toMatchObject({
      id: 3,
      error: {
        code: -32601,
        message: 'method not found',
      },
    });
    expect((await answer('{"jsonrpc":"2.0","id":3,"method":"nope"}')).error?.data.detail).toMatch(
      /^unknown method: nope/,
    );
    for (const line of [
      '{"jsonrpc":"2.0","id":4,"method":""}',
      '{"jsonrpc":"1.0","id":4,"method":"initialize"}',
      '{"id":4,"method":"initialize"}',
      '{"jsonrpc":"2.0","id":4}',
      '{"jsonrpc":"2.0","id":4,"method":null}',
    ]) {
      expect(await answer(line)).toMatchObject({
        id: 4,
        error: {
          code: -32600,
          message: 'invalid request',
          data: { detail: 'jsonrpc must be "2.0" and method must be non-empty' },
        },
      });
    }
  });
});

describe("session errors and unregistered methods in the Attest engine's words (server/handler.go)", () => {
  async function session(lines: string[]): Promise<Reply[]> {
    const server = new EngineServer();
    const replies: Reply[] = [];
    for (const line of lines) replies.push(JSON.parse((await server.handleLine(line)) ?? 'null') as Reply);
    return replies;
  }
  const SHUTDOWN = '{"jsonrpc":"2.0","id":9,"method":"shutdown","params":{}}';

  it('a second initialize (handler.go:318-325)', async () => {
    const [, again] = await session([INITIALIZE, INITIALIZE]);
    expect(again?.error).toMatchObject({
      code: 3003,
      message: 'initialize called on already-initialized session',
      data: { error_type: 'SESSION_ERROR', detail: 'initialize may only be called once per session' },
    });
  });

  it('shutdown before initialize (handler.go:394-400)', async () => {
    const [early] = await session([SHUTDOWN]);
    expect(early?.error).toMatchObject({
      code: 3003,
      message: 'shutdown called on uninitialized or already-shutting-down session',
      data: { detail: 'call initialize before shutdown' },
    });
  });

  it('generate_user_message without a judge provider is not registered: -32601 (handler.go:54-56)', async () => {
    const line =
      '{"jsonrpc":"2.0","id":5,"method":"generate_user_message","params":{"persona":{"name":"p","system_prompt":"s"},"conversation_history":[]}}';
    const [, reply] = await session([INITIALIZE, line]);
    expect(reply).toMatchObject({
      id: 5,
      error: {
        code: -32601,
        message: 'method not found',
        data: { error_type: 'METHOD_NOT_FOUND', detail: 'unknown method: generate_user_message' },
      },
    });
  });
});

describe('query_drift as the Attest engine shapes its report (handler.go:571-609, cache/history.go:150-160)', () => {
  it('an assertion with no runs: every figure 0 (its float64 fields, COALESCE(AVG(score), 0.0)), status ok', async () => {
    const reply = await answer(
      '{"jsonrpc":"2.0","id":2,"method":"query_drift","params":{"assertion_id":"nope"}}',
    );
    expect(reply.result?.report).toMatchObject({
      assertion_id: 'nope',
      mean: 0,
      stddev: 0,
      count: 0,
      latest_score: 0,
      deviation: 0,
      status: 'ok',
    });
  });

  it("one run and no baseline yet: numbers still, never null (a dynamic row's drift too)", async () => {
    const server = new EngineServer();
    await server.handleLine(INITIALIZE);
    const dynamic = JSON.stringify({
      assertion_id: 'd',
      type: 'content',
      spec: { target: 'output.message', check: 'contains', value: 'hi', threshold: 'dynamic' },
    });
    const row = JSON.parse(
      (await server.handleLine(batch(2, '{"trace_id":"t","output":{"message":"hi"}}', `[${dynamic}]`))) ?? '',
    ) as Reply;
    expect(row.result?.results?.[0]).toMatchObject({ drift: { mean: 0, stddev: 0, latest_score: 1 } });
    const query = JSON.parse(
      (await server.handleLine(
        '{"jsonrpc":"2.0","id":3,"method":"query_drift","params":{"assertion_id":"d"}}',
      )) ?? '',
    ) as Reply;
    expect(query.result?.report).toMatchObject({
      count: 0,
      mean: 0,
      stddev: 0,
      latest_score: 1,
      deviation: 1,
    });
  });
});

describe('a request without params: each handler decodes nothing (json.Unmarshal of an empty RawMessage)', () => {
  // [method, code, message]; shutdown ignores its params (handler.go:393).
  const rows: [string, number, string][] = [
    ['evaluate_batch', 1001, 'invalid evaluate_batch params: unexpected end of JSON input'],
    ['validate_trace_tree', 1001, 'invalid validate_trace_tree params'],
    ['submit_plugin_result', 1002, 'invalid submit_plugin_result params'],
    ['query_drift', 1002, 'invalid query_drift params'],
  ];
  it.each(rows)('%s is %i %s', async (method, code, message) => {
    const reply = await answer(`{"jsonrpc":"2.0","id":7,"method":"${method}"}`);
    expect(reply).toMatchObject({ id: 7, error: { code, message } });
    expect(reply.error?.data.detail).toMatch(/^unexpected end of JSON input/);
  });

  it('initialize is 3003 (handler.go:328-336); shutdown answers', async () => {
    expect(await answer('{"jsonrpc":"2.0","id":1,"method":"initialize"}', false)).toMatchObject({
      error: { code: 3003, message: 'invalid initialize params' },
    });
    expect(await answer('{"jsonrpc":"2.0","id":2,"method":"shutdown"}')).toMatchObject({
      result: { sessions_completed: 1 },
    });
    // It never looks at them (handler.go:393: `_ json.RawMessage`).
    for (const params of ['[]', '[1]', '{"n":12345678901234567890}'])
      expect(await answer(`{"jsonrpc":"2.0","id":3,"method":"shutdown","params":${params}}`)).toMatchObject({
        id: 3,
        result: { sessions_completed: 1, assertions_evaluated: 0 },
      });
  });
});

describe("trace_tree explanations in the Attest engine's words (trace_tree_eval.go)", () => {
  const step = (name: string, agent: string, start?: number, end?: number, sub?: object): object => ({
    type: sub === undefined ? 'tool_call' : 'agent_call',
    name,
    agent_id: agent,
    ...(start === undefined ? {} : { started_at_ms: start }),
    ...(end === undefined ? {} : { ended_at_ms: end }),
    ...(sub === undefined ? {} : { sub_trace: sub }),
  });
  const trace = JSON.stringify({
    trace_id: 't',
    agent_id: 'orchestrator',
    output: { m: 1 },
    metadata: { total_tokens: 100, cost_usd: 0.0123, latency_ms: 1500 },
    steps: [
      step('delegate_research', 'researcher', 0, 100, {
        trace_id: 'r',
        agent_id: 'researcher',
        input: { q: 'x' },
        output: { facts: 'f1' },
        metadata: { total_tokens: 50, cost_usd: 0.01, latency_ms: 100 },
        steps: [step('search', 'researcher', 10, 60)],
      }),
      step('delegate_writer', 'writer', 150, 300, {
        trace_id: 'w',
        agent_id: 'writer',
        input: { facts: 'f1' },
        output: { draft: 'done' },
      }),
      step('untimed', 'ghost'),
    ],
  });
  // [spec, status, explanation]
  const rows: [object, string, string][] = [
    [{ check: 'agent_called', agent_id: 'writer' }, 'pass', 'agent "writer" was called in the trace tree.'],
    [
      { check: 'agent_called', agent_id: 'nobody' },
      'hard_fail',
      'agent "nobody" was not called in the trace tree',
    ],
    [{ check: 'delegation_depth', max_depth: 1 }, 'pass', 'delegation depth 1 is within max_depth 1.'],
    [
      { check: 'agent_output_contains', agent_id: 'writer', value: 'done' },
      'pass',
      'agent "writer" output contains "done".',
    ],
    [
      { check: 'agent_output_contains', agent_id: 'writer', value: 'nope' },
      'hard_fail',
      'agent "writer" output does not contain "nope"',
    ],
    [
      { check: 'agent_output_contains', agent_id: 'nobody', value: 'x' },
      'hard_fail',
      'agent "nobody" not found in trace tree',
    ],
    [
      { check: 'cross_agent_data_flow', from_agent: 'researcher', to_agent: 'writer', field: 'facts' },
      'pass',
      'field "facts" flows from agent "researcher" to agent "writer".',
    ],
    [
      { check: 'cross_agent_data_flow', from_agent: 'writer', to_agent: 'researcher', field: 'draft' },
      'hard_fail',
      'field "draft" value from agent "writer" not found in agent "researcher" input',
    ],
    [
      { check: 'cross_agent_data_flow', from_agent: 'researcher', to_agent: 'writer', field: 'zzz' },
      'hard_fail',
      'field "zzz" not found in from_agent "researcher" output',
    ],
    [
      { check: 'cross_agent_data_flow', from_agent: 'nobody', to_agent: 'writer', field: 'f' },
      'hard_fail',
      'from_agent "nobody" not found in trace tree',
    ],
    [
      { check: 'cross_agent_data_flow', from_agent: 'writer', to_agent: 'nobody', field: 'f' },
      'hard_fail',
      'to_agent "nobody" not found in trace tree',
    ],
    [
      { check: 'follows_transitions', transitions: [['orchestrator', 'researcher']] },
      'hard_fail',
      'follows_transitions: disallowed delegation(s): orchestrator -> writer',
    ],
    [
      {
        check: 'follows_transitions',
        transitions: [
          ['orchestrator', 'researcher'],
          ['orchestrator', 'writer'],
        ],
      },
      'pass',
      'follows_transitions: all delegations match allowed transitions.',
    ],
    [
      { check: 'aggregate_tokens', operator: 'lte', value: 1000 },
      'pass',
      'aggregate_tokens: actual 150 lte threshold 1000 passed.',
    ],
    [
      { check: 'aggregate_cost', operator: 'lt', value: 0.02 },
      'hard_fail',
      'aggregate_cost: actual 0.0223 lt threshold 0.02 failed',
    ],
    [
      // %.4g: 12345 is a tie at four digits, rounded to even (strconv), where toPrecision rounds up.
      { check: 'aggregate_latency', operator: 'gte', value: 12345 },
      'hard_fail',
      'aggregate_latency: actual 1600 gte threshold 1.234e+04 failed',
    ],
    [
      { check: 'agent_ordered_before', agent_a: 'researcher', agent_b: 'writer' },
      'pass',
      'agent_ordered_before: agent_a "researcher" (last ended 100 ms) completed before agent_b "writer" (first started 150 ms).',
    ],
    [
      { check: 'agent_ordered_before', agent_a: 'writer', agent_b: 'researcher' },
      'hard_fail',
      'agent_ordered_before: agent_a "writer" last ended at 300 ms, agent_b "researcher" first started at 0 ms — not strictly before',
    ],
    [
      { check: 'agent_ordered_before', agent_a: 'researcher', agent_b: 'nobody' },
      'hard_fail',
      'agent_ordered_before: no steps found for agent_b "nobody"',
    ],
    [
      { check: 'agent_ordered_before', agent_a: 'ghost', agent_b: 'writer' },
      'hard_fail',
      'agent_ordered_before: step for agent_a "ghost" missing ended_at_ms',
    ],
    [
      { check: 'agents_overlap', agent_a: 'researcher', agent_b: 'writer' },
      'hard_fail',
      'agents_overlap: agent_a "researcher" [0, 100] and agent_b "writer" [150, 300] do not overlap',
    ],
    [
      { check: 'agents_overlap', agent_a: 'ghost', agent_b: 'writer' },
      'hard_fail',
      'agents_overlap: step for agent_a "ghost" missing temporal fields',
    ],
    [
      { check: 'agent_wall_time_under', agent_id: 'researcher', max_ms: 100 },
      'hard_fail',
      'agent_wall_time_under: agent "researcher" total wall time 150 ms >= max_ms 100',
    ],
    [
      { check: 'agent_wall_time_under', agent_id: 'writer', max_ms: 500 },
      'pass',
      'agent_wall_time_under: agent "writer" total wall time 150 ms < max_ms 500.',
    ],
    [
      { check: 'agent_wall_time_under', agent_id: 'ghost', max_ms: 5 },
      'hard_fail',
      'agent_wall_time_under: step for agent_id "ghost" missing temporal fields',
    ],
    [
      { check: 'agent_wall_time_under', agent_id: 'nobody', max_ms: 5 },
      'hard_fail',
      'agent_wall_time_under: no steps found for agent_id "nobody"',
    ],
    [
      { check: 'ordered_agents', groups: [['researcher'], ['writer']] },
      'pass',
      'ordered_agents: all 2 groups are sequentially ordered.',
    ],
    [
      { check: 'ordered_agents', groups: [['writer'], ['researcher']] },
      'hard_fail',
      'ordered_agents: group 0 max ended (300 ms) is not before group 1 min started (0 ms)',
    ],
    [
      { check: 'ordered_agents', groups: [['researcher'], ['nobody']] },
      'hard_fail',
      'ordered_agents: no steps found for agent "nobody" in group 1',
    ],
    [
      { check: 'ordered_agents', groups: [['ghost'], ['writer']] },
      'hard_fail',
      'ordered_agents: step for agent "ghost" missing temporal fields',
    ],
  ];
  it.each(rows)('%j', async (spec, status, explanation) => {
    const assertion = JSON.stringify({ assertion_id: 'tt', type: 'trace_tree', spec });
    expect((await answer(batch(2, trace, `[${assertion}]`))).result?.results).toMatchObject([
      { status, explanation },
    ]);
  });

  it('an agent called twice is its last call not inside an earlier one (tree.go:40-50: the walk goes on past a match)', async () => {
    const sub = (id: string, output: object): object => ({ trace_id: id, agent_id: 'helper', output });
    const twice = JSON.stringify({
      trace_id: 't',
      output: { m: 1 },
      steps: [
        step('first', 'helper', 0, 1, sub('h1', { said: 'first' })),
        step('second', 'helper', 2, 3, sub('h2', { said: 'second' })),
      ],
    });
    const contains = (value: string): string =>
      JSON.stringify({
        assertion_id: value,
        type: 'trace_tree',
        spec: { check: 'agent_output_contains', agent_id: 'helper', value },
      });
    const reply = await answer(batch(2, twice, `[${contains('second')},${contains('first')}]`));
    expect(reply.result?.results?.map((row) => row.status)).toEqual(['pass', 'hard_fail']);
  });
});

describe('target keys are whatever lies between two dots, as navigateDotPath splits them (target.go:102-123)', () => {
  const trace = JSON.stringify({
    trace_id: 't',
    output: {
      'order-id': 'ORD-1',
      '2024': 'yes',
      'a b': 'spaced',
      ключ: 'значение',
      $x: 'dollar',
      '': { '': 'empty keys' },
      'k[0]': 'bracketed',
      "it's": 'quoted',
      nested: { 'k-1': { 'x y': 'deep' } },
    },
    steps: [{ type: 'tool_call', name: 'look up', result: { 'k-1': 'step value' }, args: { 'q-1': 'arg' } }],
  });
  // [target, value it contains]
  const rows: [string, string][] = [
    ['output.order-id', 'ORD-1'],
    ['output.2024', 'yes'],
    ['output.a b', 'spaced'],
    ['output.ключ', 'значение'],
    ['output.$x', 'dollar'],
    ['output..', 'empty keys'],
    ['output.k[0]', 'bracketed'],
    ["output.it's", 'quoted'],
    ['output.nested.k-1.x y', 'deep'],
    ["steps[?name=='look up'].result.k-1", 'step value'],
    ["steps[?name=='look up'].args.q-1", 'arg'],
  ];
  it.each(rows)('%s contains %j (pass, explained with the target as written)', async (target, value) => {
    const reply = await answer(batch(2, trace, `[${content('r', target, 'contains', value)}]`));
    expect(reply.result?.results).toMatchObject([
      { status: 'pass', explanation: `${target} contains '${value}'.` },
    ]);
  });

  it('a schema target the same way (schema.go:37)', async () => {
    const schema = JSON.stringify({
      assertion_id: 's',
      type: 'schema',
      spec: { target: 'output.order-id', schema: { type: 'string' } },
    });
    const reply = await answer(batch(2, trace, `[${schema}]`));
    expect(reply.result?.results).toMatchObject([{ status: 'pass' }]);
  });

  // [target, explanation]: ResolveTarget's own errors (target.go:38, 73, 85-86), never an invalid spec.
  const refused: [string, string][] = [
    ['steps[0].result', 'target resolution failed: unsupported target: steps[0].result'],
    ['input.user_message', 'target resolution failed: unsupported target: input.user_message'],
    ['metadata.cost_usd', 'target resolution failed: unsupported target: metadata.cost_usd'],
    ['outputs.x', 'target resolution failed: unsupported target: outputs.x'],
    ["steps[?name=='look up']", "target resolution failed: unsupported target: steps[?name=='look up']"],
    [
      // Go's `.` is any character but a line break: a field of one is no field.
      "steps[?name=='look up'].\n",
      "target resolution failed: unsupported target: steps[?name=='look up'].\n",
    ],
    [
      "steps[?name=='look up'].output",
      'target resolution failed: unsupported step field: output (must be args or result)',
    ],
    // The step is looked up before its field is (target.go:66-86).
    ["steps[?name=='nope'].output", 'target resolution failed: step not found: nope'],
  ];
  it.each(refused)('%s: hard_fail, %j', async (target, explanation) => {
    const reply = await answer(batch(2, trace, `[${content('r', target, 'contains', 'x')}]`));
    expect(reply.result?.results).toMatchObject([{ status: 'hard_fail', explanation }]);
  });
});

describe('targets that do not resolve, as ResolveTarget says so (assertion/target.go:26-123)', () => {
  const trace = JSON.stringify({
    trace_id: 't',
    output: { m: { a: 1 }, s: 'text', n: null },
    steps: [
      { type: 'tool_call', name: 'x', result: { v: 1 } },
      { type: 'tool_call', name: 'bare' },
    ],
  });
  // [target, check, value, status, explanation]
  const rows: [string, string, string, string, string][] = [
    [
      'output.missing',
      'contains',
      'a',
      'hard_fail',
      'target resolution failed: field "missing" not found in output',
    ],
    [
      'output.m.deep',
      'contains',
      'a',
      'hard_fail',
      'target resolution failed: field "deep" not found in output.m',
    ],
    ['output.n.k', 'contains', 'a', 'hard_fail', 'target resolution failed: field "k" not found in output.n'],
    [
      'output.s.k',
      'contains',
      'a',
      'hard_fail',
      // segmentio's UnmarshalTypeError: the value's text, quoted (decode.go inputError, codec.go:1180).
      'target resolution failed: cannot parse output.s as object: json: cannot unmarshal "\\"text\\"" into Go value of type map[string]json.RawMessage',
    ],
    [
      "steps[?name=='nope'].result",
      'contains',
      'a',
      'hard_fail',
      'target resolution failed: step not found: nope',
    ],
    [
      "steps[?name=='x'].result.k",
      'contains',
      'a',
      'hard_fail',
      'target resolution failed: field "k" not found in steps[?name==\'x\'].result',
    ],
    // A step without the field is the empty text there (a nil RawMessage, trimmed: target.go:49-51).
    [
      "steps[?name=='bare'].result",
      'not_contains',
      'a',
      'pass',
      "steps[?name=='bare'].result does not contain 'a'.",
    ],
    ["steps[?name=='bare'].args", 'contains', '', 'pass', "steps[?name=='bare'].args contains ''."],
    [
      "steps[?name=='bare'].args.k",
      'contains',
      'a',
      'hard_fail',
      'target resolution failed: cannot parse step bare.args as object: unexpected end of JSON input',
    ],
  ];
  it.each(rows)('%s %s %j', async (target, check, value, status, explanation) => {
    const reply = await answer(batch(2, trace, `[${content('r', target, check, value)}]`));
    expect(reply.result?.results).toMatchObject([{ status, explanation }]);
  });

  it('a schema target too (schema.go:39-41, 64-66), and soft does not soften it', async () => {
    const schema = (id: string, target: string): string =>
      JSON.stringify({ assertion_id: id, type: 'schema', spec: { target, schema: { type: 'object' } } });
    const soft = JSON.stringify({
      assertion_id: 'soft',
      type: 'content',
      spec: { target: 'output.missing', check: 'contains', value: 'a', soft: true },
    });
    const reply = await answer(
      batch(
        2,
        trace,
        `[${schema('s1', 'output.missing')},${schema('s2', "steps[?name=='bare'].result")},${soft}]`,
      ),
    );
    expect(reply.result?.results).toMatchObject([
      { status: 'hard_fail', explanation: 'target resolution failed: field "missing" not found in output' },
      { status: 'hard_fail', explanation: 'cannot parse target value: unexpected end of JSON input' },
      { status: 'hard_fail', explanation: 'target resolution failed: field "missing" not found in output' },
    ]);
  });
});

describe("unusable specs explained in the Attest engine's words (failResult: hard_fail, never softened)", () => {
  const trace = '{"trace_id":"t","output":{"message":"hi"},"steps":[{"type":"tool_call","name":"a"}]}';
  // [type, spec, explanation, upstream source]; the row stays ours: failure_class invalid_spec.
  const rows: [string, object, string, string][] = [
    [
      'content',
      { target: 'output.message', value: 'x' },
      'content spec missing required field: check',
      'content.go:36-38',
    ],
    [
      'content',
      { target: 'output.message', check: 'startswith', value: 'x' },
      'unknown content check type: startswith',
      'content.go:167-168',
    ],
    [
      'content',
      { target: 'output.nope', check: 'startswith', value: 'x' },
      'target resolution failed: field "nope" not found in output',
      'content.go:40-42 (before the check)',
    ],
    [
      'content',
      { target: 'output.nope', check: 'regex_match', value: '(' },
      'target resolution failed: field "nope" not found in output',
      'content.go:40-42 (before the pattern)',
    ],
    [
      'constraint',
      { operator: 'lt', value: 1 },
      'constraint spec missing required field: field',
      'constraint.go:33-35',
    ],
    [
      'constraint',
      { field: 'steps.length', value: 1 },
      'constraint spec missing required field: operator',
      'constraint.go:36-38',
    ],
    [
      'constraint',
      { field: 'metadata.model', operator: 'eq', value: 1 },
      'field resolution failed: unsupported constraint field: metadata.model',
      'constraint.go:41-43, 152',
    ],
    [
      'constraint',
      { field: 'steps.length', operator: 'ne', value: 1 },
      'unsupported operator: ne',
      'constraint.go:92-93',
    ],
    [
      'constraint',
      { field: 'steps.length', operator: 'lte' },
      "operator 'lte' requires 'value'",
      'constraint.go:62-63',
    ],
    [
      'constraint',
      { field: 'steps.length', operator: 'between', min: 1 },
      "operator 'between' requires 'min' and 'max'",
      'constraint.go:86-87',
    ],
    ['trace', { tools: ['a'] }, 'trace spec missing required field: check', 'trace_check.go:28-30'],
    [
      'trace',
      { check: 'called_once', tools: ['a'] },
      'unsupported check type: called_once',
      'trace_check.go:82-83',
    ],
    ['trace', { check: 'required_tools' }, "required_tools requires 'tools'", 'trace_check.go:71-72'],
    ['trace', { check: 'loop_detection' }, "loop_detection requires 'tool'", 'trace_check.go:59-60'],
    [
      'trace_tree',
      { agent_id: 'x' },
      'trace_tree spec missing required field: check',
      'trace_tree_eval.go:27-29',
    ],
    [
      'trace_tree',
      { check: 'agent_spoke' },
      'unsupported trace_tree check: agent_spoke',
      'trace_tree_eval.go:61-62',
    ],
  ];
  it.each(rows)('%s %j', async (type, spec, explanation) => {
    const assertion = JSON.stringify({ assertion_id: 'bad', type, spec: { ...spec, soft: true } });
    expect((await answer(batch(2, trace, `[${assertion}]`))).result?.results).toMatchObject([
      { status: 'hard_fail', explanation },
    ]);
  });
});

describe('content without value or values: Go zero values (content.go:24-31, omitempty string and list)', () => {
  const trace = '{"trace_id":"t","output":{"message":"hi"}}';
  // [spec, status, explanation]
  const rows: [object, string, string][] = [
    [{ target: 'output.message', check: 'contains' }, 'pass', "output.message contains ''."],
    [
      { target: 'output.message', check: 'not_contains', value: null },
      'hard_fail',
      "output.message contains '' but should not.",
    ],
    [{ target: 'output.message', check: 'regex_match' }, 'pass', "output.message matches regex ''."],
    [{ target: 'output.message', check: 'keyword_all' }, 'pass', 'output.message contains all keywords.'],
    [
      { target: 'output.message', check: 'keyword_any', values: null },
      'hard_fail',
      'output.message contains none of keywords: []',
    ],
    [
      { target: 'output.message', check: 'forbidden' },
      'pass',
      'output.message contains none of forbidden terms.',
    ],
  ];
  it.each(rows)('%j', async (spec, status, explanation) => {
    const assertion = JSON.stringify({ assertion_id: 'z', type: 'content', spec });
    expect((await answer(batch(2, trace, `[${assertion}]`))).result?.results).toMatchObject([
      { status, explanation },
    ]);
  });
});

// segmentio's UnmarshalTypeError names every type it crossed, outermost first, and the member path
// (decode.go:637-638 for a slice, 1224-1225 for a struct), written by Go's Error() as
// "Go struct field <types>.<path>".
describe('a number with a fraction or an exponent where Go decodes an int (segmentio parseInt: "was this actually a float?")', () => {
  const call = (id: number, method: string, params: string): string =>
    `{"jsonrpc":"2.0","id":${id},"method":"${method}","params":${params}}`;
  // [line, initialize first, code, message]
  const rows: [string, boolean, number, string][] = [
    [call(1, 'initialize', '{"protocol_version":1.0}'), false, 3003, 'invalid initialize params'],
    [
      batch(2, '{"trace_id":"t","output":{"m":1},"metadata":{"total_tokens":1.5e2}}'),
      true,
      1001,
      'invalid evaluate_batch params: json: cannot unmarshal "1.5e2" into Go struct field types.EvaluateBatchParamstypes.Tracetypes.TraceMetadata.trace.metadata.total_tokens of type int',
    ],
    [
      batch(
        2,
        '{"trace_id":"t","output":{"m":1},"steps":[{"type":"tool_call","name":"a","started_at_ms":10.0}]}',
      ),
      true,
      1001,
      'invalid evaluate_batch params: json: cannot unmarshal "10.0" into Go struct field types.EvaluateBatchParamstypes.Trace[]types.Steptypes.Step.trace.steps.0.started_at_ms of type int64',
    ],
    [
      call(3, 'validate_trace_tree', '{"trace":{"trace_id":"t","schema_version":1.0,"output":{"m":1}}}'),
      true,
      1001,
      'invalid validate_trace_tree params',
    ],
    [
      call(4, 'query_drift', '{"assertion_id":"a","window_size":5.0}'),
      true,
      1002,
      'invalid query_drift params',
    ],
  ];
  it.each(rows)('%s', async (line, initialize, code, message) => {
    expect(await answer(line, initialize)).toMatchObject({ error: { code, message } });
  });

  it('a whole number is read, and a float field takes any spelling', async () => {
    const trace =
      '{"trace_id":"t","output":{"m":1},"metadata":{"total_tokens":150,"cost_usd":1e-3,"latency_ms":-0}}';
    expect(await answer(batch(2, trace))).toMatchObject({ result: { results: [] } });
  });
});

describe('result rows as the Attest engine writes them (pkg/types/assertion.go)', () => {
  it('an empty request_id is left out (omitempty), a given one echoed', async () => {
    const row = (id: string, requestId: string): string =>
      JSON.stringify({
        assertion_id: id,
        type: 'constraint',
        request_id: requestId,
        spec: { field: 'steps.length', operator: 'eq', value: 0 },
      });
    const reply = await answer(
      batch(2, '{"trace_id":"t","output":{"m":1}}', `[${row('e', '')},${row('g', 'r-1')}]`),
    );
    const [empty, given] = reply.result?.results ?? [];
    expect(empty).not.toHaveProperty('request_id');
    expect(given).toMatchObject({ request_id: 'r-1' });
  });
});

describe('numbers a double cannot hold inside raw JSON members (json.RawMessage keeps their text there)', () => {
  it('a 64-bit id in a tool result, an input, an output: read, and checked as written', async () => {
    const trace =
      '{"trace_id":"t","input":{"user":12345678901234567891},"output":{"order":98765432109876543211},"steps":[{"type":"tool_call","name":"x","args":{"a":1},"result":{"id":1234567890123456789}}]}';
    const assertions = [
      content('r', "steps[?name=='x'].result.id", 'contains', '1234567890123456789'),
      content('o', 'output.order', 'contains', '98765432109876543211'),
    ];
    const reply = await answer(batch(2, trace, `[${assertions.join(',')}]`));
    expect(reply.result?.results).toMatchObject([{ status: 'pass' }, { status: 'pass' }]);
  });
});

// go-decode.ts: a number decodes where, and as, segmentio decodes it into pkg/types' structs.
describe('numbers where the Attest engine decodes them, and only there (segmentio decode.go, parse.go)', () => {
  const evaluate = (trace: string, assertions = '[]', extra = ''): string =>
    `{"jsonrpc":"2.0","id":2,"method":"evaluate_batch","params":{"trace":${trace},"assertions":${assertions}${extra}}}`;
  const constraint = (field: string, value: string): string =>
    `{"assertion_id":"a","type":"constraint","spec":{"field":"${field}","operator":"gt","value":${value}}}`;
  // [name, line, status of row "a", its explanation, upstream source]
  const accepted: [string, string, string, string, string][] = [
    [
      'unknown trace metadata holding numbers no double holds: skipped, whatever they hold',
      evaluate(
        '{"trace_id":"t","output":{"m":1},"metadata":{"tweet_id":1234567890123456789012,"huge":1e400,"run":9007199254740993,"cost_usd":0.5}}',
        `[${constraint('metadata.cost_usd', '0.1')}]`,
      ),
      'pass',
      'metadata.cost_usd = 0.5, constraint gt 0.1 — satisfied.',
      'decode.go:1208-1215 (an unknown field: parseValue, nothing decoded)',
    ],
    [
      'unknown members of a trace, a step, a sub-trace, an assertion and the params: skipped too',
      evaluate(
        '{"trace_id":"t","output":{"m":1},"big":-1e999,"steps":[{"type":"agent_call","name":"s","n":18446744073709551616,"sub_trace":{"trace_id":"u","output":{"m":1},"x":1e400}}]}',
        '[{"assertion_id":"a","type":"constraint","seq":1e309,"spec":{"field":"steps.length","operator":"gt","value":0,"extra":1e400}}]',
        ',"context":{"line":99999999999999999999999}',
      ),
      'pass',
      'steps.length = 1, constraint gt 0 — satisfied.',
      'decode.go:1208-1215; spec is json.RawMessage, its struct has no "extra"',
    ],
    [
      "a float64 field beyond 2^53: read as its double, printed by FormatFloat(v, 'f', -1)",
      evaluate(
        '{"trace_id":"t","output":{"m":1},"metadata":{"cost_usd":12345678901234567891}}',
        `[${constraint('metadata.cost_usd', '1e21')}]`,
      ),
      'hard_fail',
      'metadata.cost_usd = 12345678901234567000, constraint gt 1000000000000000000000 — constraint not satisfied.',
      'decode.go:246-262 (strconv.ParseFloat), constraint.go:157-164',
    ],
    [
      'an int field beyond 2^53 within int64: read, and compared as float64(int)',
      evaluate(
        '{"trace_id":"t","output":{"m":1},"metadata":{"total_tokens":9007199254740993}}',
        `[${constraint('metadata.total_tokens', '9007199254740991')}]`,
      ),
      'pass',
      'metadata.total_tokens = 9007199254740992, constraint gt 9007199254740991 — satisfied.',
      'parse.go:83-157 (parseInt), constraint.go:127',
    ],
    [
      'a positive int past 2^63 that the overflow check (next < value) misses: wrapped',
      evaluate(
        '{"trace_id":"t","output":{"m":1},"metadata":{"latency_ms":25000000000000000000}}',
        `[${constraint('metadata.latency_ms', '6e18')}]`,
      ),
      'pass',
      'metadata.latency_ms = 6553255926290448000, constraint gt 6000000000000000000 — satisfied.',
      'parse.go:133-139 (next := value*10 + x; if next < value)',
    ],
    [
      'a tiny float: no exponent in the explanation either',
      evaluate(
        '{"trace_id":"t","output":{"m":1},"metadata":{"cost_usd":1.5e-10}}',
        `[${constraint('metadata.cost_usd', '1e-400')}]`,
      ),
      'pass',
      'metadata.cost_usd = 0.00000000015, constraint gt 0 — satisfied.',
      'constraint.go:157-164; strconv.ParseFloat: an underflow is 0, no error',
    ],
  ];
  it.each(accepted)('%s', async (_name, line, status, explanation) => {
    expect((await answer(line)).result?.results).toMatchObject([{ assertion_id: 'a', status, explanation }]);
  });

  const prefix = 'invalid evaluate_batch params: json: cannot unmarshal';
  const metadataField =
    'Go struct field types.EvaluateBatchParamstypes.Tracetypes.TraceMetadata.trace.metadata';
  // [name, line, initialize first, code, message, detail (when the message is fixed), upstream source]
  const refused: [string, string, number, string, string | undefined, string][] = [
    [
      'an int past int64 that the check sees: the 32 bytes from the number on, in its words',
      evaluate('{"trace_id":"t","output":{"m":1},"metadata":{"total_tokens":99999999999999999999}}'),
      1001,
      `${prefix} number 99999999999999999999}},"assertio... overflows into ${metadataField}.total_tokens of type int`,
      undefined,
      'parse.go:133-139, codec.go:993-995 (unmarshalOverflow of the rest), codec.go:1035-1040 (prefix)',
    ],
    [
      'a negative int below -2^63 (in a step: the slice and the index)',
      evaluate(
        '{"trace_id":"t","output":{"m":1},"steps":[{"type":"tool_call","name":"a","ended_at_ms":-9223372036854775809}]}',
      ),
      1001,
      `${prefix} number -9223372036854775809}]},"asserti... overflows into Go struct field types.EvaluateBatchParamstypes.Trace[]types.Steptypes.Step.trace.steps.0.ended_at_ms of type int64`,
      undefined,
      'parse.go:91-126, decode.go:636-638',
    ],
    [
      "a float64 field out of a double's range: the rest of the params, quoted",
      evaluate('{"trace_id":"t","output":{"m":1},"metadata":{"cost_usd":1e400}}'),
      1001,
      `${prefix} "1e400}},\\"assertions\\":[]}" into ${metadataField}.cost_usd of type float64`,
      undefined,
      'decode.go:246-262 (inputError of the rest), decode.go:1513-1521',
    ],
    [
      "the first member that does not decode, in the line's order",
      evaluate('{"trace_id":"t","output":{"m":1},"metadata":{"latency_ms":1.5,"total_tokens":1.5e2}}'),
      1001,
      `${prefix} "1.5" into ${metadataField}.latency_ms of type int`,
      undefined,
      'decode.go:1217-1227 (decodeStruct returns at the first error)',
    ],
    [
      'validate_trace_tree: an error, 1001, not an invalid tree',
      '{"jsonrpc":"2.0","id":2,"method":"validate_trace_tree","params":{"trace":{"trace_id":"t","output":{"m":1},"metadata":{"agent_count":1e3}}}}',
      1001,
      'invalid validate_trace_tree params',
      'json: cannot unmarshal "1e3" into Go struct field types.ValidateTraceTreeParamstypes.Tracetypes.TraceMetadata.trace.metadata.agent_count of type int',
      'handler.go:675-683',
    ],
    [
      'query_drift: window_size past int64',
      '{"jsonrpc":"2.0","id":2,"method":"query_drift","params":{"assertion_id":"a","window_size":99999999999999999999}}',
      1002,
      'invalid query_drift params',
      'json: cannot unmarshal number 99999999999999999999} overflows into Go struct field types.QueryDriftParams.window_size of type int',
      'handler.go:555-563',
    ],
    [
      'initialize: protocol_version past int64',
      '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocol_version":99999999999999999999}}',
      3003,
      'invalid initialize params',
      'json: cannot unmarshal number 99999999999999999999} overflows into Go struct field types.InitializeParams.protocol_version of type int',
      'handler.go:328-336',
    ],
  ];
  it.each(refused)('%s', async (_name, line, code, message, detail) => {
    const reply = await answer(line, code !== 3003);
    expect(reply.error).toMatchObject({ code, message });
    if (detail !== undefined) expect(reply.error?.data.detail.startsWith(`${detail}: `)).toBe(true);
  });

  it('validate_trace_tree sums int64s as Go does, wrapping, and writes the sum whole (tree.go:133-150)', async () => {
    const server = new EngineServer();
    await server.handleLine(INITIALIZE);
    const trace =
      '{"trace_id":"t","output":{"m":1},"metadata":{"total_tokens":9007199254740993,"latency_ms":9223372036854775807},"steps":[{"type":"agent_call","name":"s","sub_trace":{"trace_id":"u","output":{"m":1},"metadata":{"total_tokens":2,"latency_ms":2}}}]}';
    const reply =
      (await server.handleLine(
        `{"jsonrpc":"2.0","id":3,"method":"validate_trace_tree","params":{"trace":${trace}}}`,
      )) ?? '';
    expect(reply).toContain('"aggregate_tokens":9007199254740995,');
    expect(reply).toContain('"aggregate_latency_ms":-9223372036854775807}');
    expect(JSON.parse(reply)).toMatchObject({ id: 3, result: { valid: true, depth: 1 } });
  });

  it("submit_plugin_result: a score out of a double's range does not decode (1002)", async () => {
    const line =
      '{"jsonrpc":"2.0","id":2,"method":"submit_plugin_result","params":{"trace_id":"t","plugin_name":"p","assertion_id":"a","result":{"status":"pass","score":-1e999}}}';
    expect(await answer(line)).toMatchObject({
      error: { code: 1002, message: 'invalid submit_plugin_result params' },
    });
  });
});

describe('nulls and gaps in the assertion list, as Go decodes them into []Assertion and each spec struct', () => {
  const trace = '{"trace_id":"t","output":{"message":"hi"}}';
  it('a null assertion is a zero one: an unknown assertion type "" (pipeline.go:85)', async () => {
    const reply = await answer(batch(2, trace, '[null]'));
    expect(reply.result?.results).toMatchObject([
      { assertion_id: '', status: 'hard_fail', explanation: 'unknown assertion type: ' },
    ]);
  });

  it('a spec left out does not decode; a null spec is an empty one; a null flag is false', async () => {
    const rows = [
      '{"assertion_id":"gone","type":"constraint"}',
      '{"assertion_id":"nil","type":"constraint","spec":null}',
      '{"assertion_id":"flag","type":"content","spec":{"target":"output.message","check":"contains","value":"HI","case_sensitive":null}}',
    ];
    const reply = await answer(batch(2, trace, `[${rows.join(',')}]`));
    expect(reply.result?.results).toMatchObject([
      { status: 'hard_fail', explanation: 'invalid constraint spec: unexpected end of JSON input' },
      { status: 'hard_fail', explanation: 'constraint spec missing required field: field' },
      { status: 'pass', explanation: "output.message contains 'HI'." },
    ]);
  });
});

describe('a schema read in the draft its $schema names, as santhosh-tekuri/jsonschema reads it (schema.go:55-60)', () => {
  const trace = '{"trace_id":"t","output":{"pair":["a","b"],"dep":{"a":1}}}';
  const D7 = 'http://json-schema.org/draft-07/schema#';
  // [target, schema, status]
  const rows: [string, object, string][] = [
    // draft-07 (zod-to-json-schema's default): items as an array is a tuple.
    [
      'output.pair',
      { $schema: D7, type: 'array', items: [{ type: 'string' }, { type: 'number' }] },
      'hard_fail',
    ],
    ['output.pair', { $schema: D7, type: 'array', items: [{ type: 'string' }, { type: 'string' }] }, 'pass'],
    ['output.dep', { $schema: D7, type: 'object', dependencies: { a: ['b'] } }, 'hard_fail'],
    ['output.dep', { type: 'object', dependentRequired: { a: ['b'] } }, 'hard_fail'],
  ];
  it.each(rows)('%s %j', async (target, schema, status) => {
    const assertion = JSON.stringify({ assertion_id: 's', type: 'schema', spec: { target, schema } });
    expect((await answer(batch(2, trace, `[${assertion}]`))).result?.results).toMatchObject([{ status }]);
  });
});

// schema-dialect.ts: santhosh-tekuri/jsonschema v6 (draft.go, loader.go, objcompiler.go, format.go)
// as schema.go:51-60 uses it — NewCompiler() with no options.
describe('each draft as santhosh-tekuri/jsonschema v6 reads it, and a $schema it cannot load', () => {
  const trace = JSON.stringify({
    trace_id: 't',
    output: {
      n: 5,
      list: [2],
      obj: { a: 'abc' },
      email: 'not-an-email',
      good_email: 'a.b@example.com',
      day: '2021-02-30',
      id: '123e4567-e89b-12d3-a456-42661417400',
      stamp: '2021-01-01T23:59:60Z',
      word: 'abc',
    },
  });
  const D4 = 'http://json-schema.org/draft-04/schema#';
  const D6 = 'http://json-schema.org/draft-06/schema#';
  const D7 = 'http://json-schema.org/draft-07/schema#';
  const D2019 = 'https://json-schema.org/draft/2019-09/schema';
  const D2020 = 'https://json-schema.org/draft/2020-12/schema';
  // [what, target, schema, status, upstream source]
  const rows: [string, string, object, string, string][] = [
    [
      'draft-04: a boolean exclusiveMaximum',
      'output.n',
      { $schema: D4, maximum: 5, exclusiveMaximum: true },
      'hard_fail',
      'objcompiler.go:146-152',
    ],
    [
      'draft-04: maximum alone is inclusive',
      'output.n',
      { $schema: D4, maximum: 5 },
      'pass',
      'objcompiler.go:146',
    ],
    [
      'draft-04 has no const',
      'output.n',
      { $schema: D4, const: 6 },
      'pass',
      'objcompiler.go:46-49 (compileDraft6 from 6 on)',
    ],
    ['draft-06 has const', 'output.n', { $schema: D6, const: 6 }, 'hard_fail', 'objcompiler.go:212-216'],
    [
      'draft-04 has no contains',
      'output.list',
      { $schema: D4, contains: { const: 1 } },
      'pass',
      'objcompiler.go:207-210',
    ],
    [
      'draft-06 has contains',
      'output.list',
      { $schema: D6, contains: { const: 1 } },
      'hard_fail',
      'objcompiler.go:207-210',
    ],
    [
      'draft-06 has no if/then',
      'output.n',
      { $schema: D6, if: { const: 5 }, then: { const: 6 } },
      'pass',
      'objcompiler.go:51-55 (compileDraft7 from 7 on)',
    ],
    [
      'draft-07 has if/then',
      'output.n',
      { $schema: D7, if: { const: 5 }, then: { const: 6 } },
      'hard_fail',
      'objcompiler.go:221-233',
    ],
    [
      'draft-07: a boolean exclusiveMaximum is not a schema',
      'output.n',
      { $schema: D7, exclusiveMaximum: true },
      'hard_fail',
      'roots.go:51-55 (validated against its metaschema)',
    ],
    [
      'draft-07: keywords beside $ref are ignored',
      'output.obj',
      {
        $schema: D7,
        definitions: { s: { type: 'string' } },
        properties: { a: { $ref: '#/definitions/s', maxLength: 1 } },
      },
      'pass',
      'objcompiler.go:93-96',
    ],
    [
      '2020-12: keywords beside $ref apply',
      'output.obj',
      { $defs: { s: { type: 'string' } }, properties: { a: { $ref: '#/$defs/s', maxLength: 1 } } },
      'hard_fail',
      'objcompiler.go:93 (only before 2019)',
    ],
    [
      'draft-07 asserts format: email',
      'output.email',
      { $schema: D7, format: 'email' },
      'hard_fail',
      'objcompiler.go:432-441, format.go validateEmail',
    ],
    [
      'draft-07 asserts format: a good email',
      'output.good_email',
      { $schema: D7, format: 'email' },
      'pass',
      'format.go validateEmail',
    ],
    [
      'draft-04 asserts format: date (time.Parse: no 30 February)',
      'output.day',
      { $schema: D4, format: 'date' },
      'hard_fail',
      'format.go validateDate',
    ],
    [
      'draft-06 asserts format: uuid',
      'output.id',
      { $schema: D6, format: 'uuid' },
      'hard_fail',
      'format.go validateUUID',
    ],
    [
      'draft-07: a leap second at 23:59:60Z is a date-time',
      'output.stamp',
      { $schema: D7, format: 'date-time' },
      'pass',
      'format.go validateTime',
    ],
    [
      '2019-09: format is an annotation',
      'output.email',
      { $schema: D2019, format: 'email' },
      'pass',
      'objcompiler.go:436-437 (no format vocabulary by default)',
    ],
    [
      '2020-12 (and no $schema): format is an annotation',
      'output.email',
      { format: 'email' },
      'pass',
      'objcompiler.go:438-439',
    ],
    [
      'draft-07 named over https is draft-07 (a tuple)',
      'output.list',
      { $schema: 'https://json-schema.org/draft-07/schema', items: [{ type: 'string' }] },
      'hard_fail',
      'draft.go draftFromURL',
    ],
    [
      'a carried metaschema named with a fragment: its draft',
      'output.list',
      { $schema: `${D7}definitions`, items: [{ type: 'string' }] },
      'hard_fail',
      'loader.go getDraft (loads it, reads its $schema)',
    ],
    [
      '2020-12 by name: items as an array is no schema',
      'output.list',
      { $schema: D2020, items: [{ type: 'string' }] },
      'hard_fail',
      'roots.go:51-55',
    ],
    [
      'a $schema that is not a string is no schema there either',
      'output.n',
      { $schema: 7 },
      'hard_fail',
      'loader.go getDraft (strVal), the 2020-12 metaschema: $schema is a string',
    ],
    [
      'pattern is Go regexp: inline flags',
      'output.word',
      { type: 'string', pattern: '(?i)^ABC$' },
      'pass',
      'roots.go:21 (goRegexpCompile)',
    ],
    [
      'pattern is Go regexp: no lookahead',
      'output.word',
      { type: 'string', pattern: '^(?=a)' },
      'hard_fail',
      'objcompiler.go:161-166 (InvalidRegexError)',
    ],
  ];
  const row = async (target: string, schema: object): Promise<{ status: string; explanation: string }> => {
    const assertion = JSON.stringify({ assertion_id: 's', type: 'schema', spec: { target, schema } });
    const [result] = (await answer(batch(2, trace, `[${assertion}]`))).result?.results ?? [];
    return result ?? { status: 'missing', explanation: '' };
  };
  it.each(rows)('%s', async (_what, target, schema, status) => {
    expect((await row(target, schema)).status).toBe(status);
  });

  it('a $schema the compiler does not carry is loaded, and its only loader reads files: the schema does not compile', async () => {
    for (const url of ['http://example.com/my-schema', 'http://json-schema.org/draft-03/schema']) {
      expect(await row('output.n', { $schema: `${url}#`, type: 'number' })).toMatchObject({
        status: 'hard_fail',
        explanation: `schema compilation failed: failing loading "${url}": invalid file url: ${url}`,
      });
    }
  });

  it('a $schema naming a folder of its metaschemas (…/draft/2020-12) does not compile: reading a folder fails', async () => {
    expect(
      await row('output.n', { $schema: 'https://json-schema.org/draft/2020-12', type: 'number' }),
    ).toMatchObject({
      status: 'hard_fail',
      explanation: 'schema compilation failed: read metaschemas/draft/2020-12: is a directory',
    });
  });

  it('the target is resolved before the schema is compiled (schema.go:44-60)', async () => {
    expect(await row('output.nope', { $schema: 'http://example.com/x' })).toMatchObject({
      status: 'hard_fail',
      explanation: expect.stringMatching(/^target resolution failed: /) as string,
    });
  });
});

describe('the whole spec decodes into the evaluator struct before the check looks at it (segmentio into each spec struct)', () => {
  const trace =
    '{"trace_id":"t","output":{"message":"hello"},"steps":[{"type":"tool_call","name":"s1"}],"metadata":{"cost_usd":0.5,"total_tokens":10,"latency_ms":100}}';
  const CONTENT =
    'struct { Target string "json:\\"target\\""; Check string "json:\\"check\\""; Value string "json:\\"value,omitempty\\""; Values []string "json:\\"values,omitempty\\""; Soft bool "json:\\"soft\\""; CaseSensitive bool "json:\\"case_sensitive\\"" }';
  const TRACE =
    'struct { Check string "json:\\"check\\""; Tools []string "json:\\"tools,omitempty\\""; Tool string "json:\\"tool,omitempty\\""; MaxRepetitions int "json:\\"max_repetitions,omitempty\\""; Soft bool "json:\\"soft\\"" }';
  const CONSTRAINT =
    'struct { Field string "json:\\"field\\""; Operator string "json:\\"operator\\""; Value *float64 "json:\\"value,omitempty\\""; Min *float64 "json:\\"min,omitempty\\""; Max *float64 "json:\\"max,omitempty\\""; Soft bool "json:\\"soft\\"" }';
  // [type, spec as the request writes it, explanation of the hard_fail, upstream source]
  const rows: [string, string, string, string][] = [
    [
      'content',
      '{"check":"contains","target":"output.message","value":"hello","soft":"yes"}',
      `invalid content spec: json: cannot unmarshal "\\"yes\\"}" into Go struct field ${CONTENT}.soft of type bool`,
      'content.go:22-32',
    ],
    [
      'content',
      '{"check":"contains","target":"output.message","value":"hello","values":"x"}',
      `invalid content spec: json: cannot unmarshal "\\"x\\"}" into Go struct field ${CONTENT}.values of type []string`,
      'content.go:22-32, decode.go decodeSlice',
    ],
    [
      'content',
      '{"check":"keyword_all","target":"output.message","values":["hello",1,"x"]}',
      `invalid content spec: json: cannot unmarshal "1,\\"x\\"]}" into Go struct field ${CONTENT}[]string.values.1 of type string`,
      'decode.go:629-640 (the index in the field path)',
    ],
    [
      'trace',
      '{"check":"no_duplicates","tools":"a"}',
      `invalid trace spec: json: cannot unmarshal "\\"a\\"}" into Go struct field ${TRACE}.tools of type []string`,
      'trace_check.go:18-27',
    ],
    [
      'trace',
      '{"check":"no_duplicates","max_repetitions":"a"}',
      `invalid trace spec: json: cannot unmarshal "\\"a\\"}" into Go struct field ${TRACE}.max_repetitions of type int`,
      'parse.go:143-146',
    ],
    [
      'trace',
      '{"check":"no_duplicates","max_repetitions":2.0}',
      `invalid trace spec: json: cannot unmarshal "2.0" into Go struct field ${TRACE}.max_repetitions of type int`,
      'parse.go:149-156 (was this actually a float?)',
    ],
    [
      'constraint',
      '{"field":"steps.length","operator":"lt","value":5,"max":"x"}',
      `invalid constraint spec: json: cannot unmarshal "\\"x\\"}" into Go struct field ${CONSTRAINT}.max of type float64`,
      'constraint.go:23-33',
    ],
    [
      'trace_tree',
      '{"check":"delegation_depth","max_depth":3,"soft":"x"}',
      'invalid trace_tree spec: json: cannot unmarshal "\\"x\\"}" into Go struct field struct { Check string "json:\\"check\\""; Soft bool "json:\\"soft\\"" }.soft of type bool',
      'trace_tree_eval.go:19-25',
    ],
    [
      'trace_tree',
      '{"check":"ordered_agents","groups":[["a"],"b"]}',
      'ordered_agents: invalid spec: json: cannot unmarshal "\\"b\\"]}" into Go struct field struct { Groups [][]string "json:\\"groups\\"" }[][]string.groups.1 of type []string',
      'trace_tree_eval.go:431-436',
    ],
    [
      'trace_tree',
      '{"check":"aggregate_cost","operator":"gte","value":"1"}',
      'aggregate_cost: invalid spec: json: cannot unmarshal "\\"1\\"}" into Go struct field struct { Operator string "json:\\"operator\\""; Value float64 "json:\\"value\\"" }.value of type float64',
      'trace_tree_eval.go:199-206',
    ],
  ];
  it.each(rows)('%s %s: hard_fail (%s)', async (type, spec, explanation) => {
    const reply = await answer(batch(2, trace, `[{"assertion_id":"a","type":"${type}","spec":${spec}}]`));
    expect(reply.result?.results).toMatchObject([{ status: 'hard_fail', explanation }]);
  });

  it('a member the struct does not have, or a null one, decodes (decode.go:1208-1215, hasNullPrefix)', async () => {
    const specs = [
      '{"check":"contains","target":"output.message","value":"hello","extra":[1,{"x":null}]}',
      '{"check":"contains","target":"output.message","value":"hello","soft":null,"values":null}',
      '{"check":"keyword_all","target":"output.message","values":["hello",null]}',
    ];
    const assertions = specs.map(
      (spec, index) => `{"assertion_id":"a${index}","type":"content","spec":${spec}}`,
    );
    const reply = await answer(batch(2, trace, `[${assertions.join(',')}]`));
    expect(reply.result?.results?.map((row) => row.status)).toEqual(['pass', 'pass', 'pass']);
  });

  // [spec, status, explanation]: value is a float64 there, its zero value 0 when absent or null.
  const aggregates: [string, string, string][] = [
    [
      '{"check":"aggregate_cost","operator":"gte"}',
      'pass',
      'aggregate_cost: actual 0.5 gte threshold 0 passed.',
    ],
    [
      '{"check":"aggregate_tokens","operator":"gt","value":null}',
      'pass',
      'aggregate_tokens: actual 10 gt threshold 0 passed.',
    ],
    [
      '{"check":"aggregate_latency","operator":"lt"}',
      'hard_fail',
      'aggregate_latency: actual 100 lt threshold 0 failed',
    ],
    ['{"check":"aggregate_cost","value":1}', 'hard_fail', "aggregate_cost requires 'operator'"],
    [
      '{"check":"aggregate_cost","operator":"between","value":1}',
      'hard_fail',
      'aggregate_cost: unsupported operator "between" (use lte, gte, eq, lt, gt)',
    ],
  ];
  it.each(aggregates)(
    '%s: %s, %j (trace_tree_eval.go:199-241, 483-505)',
    async (spec, status, explanation) => {
      const reply = await answer(
        batch(2, trace, `[{"assertion_id":"a","type":"trace_tree","spec":${spec}}]`),
      );
      expect(reply.result?.results).toMatchObject([{ status, explanation }]);
    },
  );

  it('shutdown counts the rows the pipeline evaluated, not the layer 5–6 rows skipped after a hard failure (handler.go IncrementAssertions)', async () => {
    const server = new EngineServer();
    await server.handleLine(INITIALIZE);
    const failing = content('x', 'output.message', 'contains', 'zz');
    const judge = '{"assertion_id":"y","type":"llm_judge","spec":{"rubric":"default"}}';
    const embedding =
      '{"assertion_id":"z","type":"embedding","spec":{"reference":"r","target":"output.message"}}';
    const batchReply = JSON.parse(
      (await server.handleLine(batch(2, trace, `[${failing},${judge},${embedding}]`))) ?? 'null',
    ) as Reply;
    expect(batchReply.result?.results?.map((row) => row.status)).toEqual([
      'hard_fail',
      'not_evaluated',
      'not_evaluated',
    ]);
    const shutdown = JSON.parse(
      (await server.handleLine('{"jsonrpc":"2.0","id":3,"method":"shutdown","params":{}}')) ?? 'null',
    ) as Reply;
    expect(shutdown.result).toEqual({ sessions_completed: 1, assertions_evaluated: 1 });
  });
});

describe('each schema pattern is its own (santhosh-tekuri asserts every pattern; Ajv caches compiled ones by their text)', () => {
  const trace = '{"trace_id":"t","output":{"m":"aaa","n":"123"}}';
  const DRAFTS = [
    undefined,
    'https://json-schema.org/draft/2020-12/schema',
    'https://json-schema.org/draft/2019-09/schema',
    'http://json-schema.org/draft-07/schema#',
  ];
  it.each(DRAFTS.map((draft) => [draft ?? '(no $schema)', draft] as const))(
    '%s: several patterns in one engine, each judged by itself',
    async (_name, draft) => {
      const server = new EngineServer();
      await server.handleLine(INITIALIZE);
      // [target, pattern, status]
      const rows: [string, string, string][] = [
        ['output.m', '^b', 'hard_fail'],
        ['output.m', '^a', 'pass'],
        ['output.n', '^[0-9]+$', 'pass'],
        ['output.m', '^[0-9]+$', 'hard_fail'],
        ['output.m', '(x+x+)+y', 'hard_fail'],
      ];
      for (const [index, [target, pattern, status]] of rows.entries()) {
        const schema = { ...(draft === undefined ? {} : { $schema: draft }), type: 'string', pattern };
        const assertion = JSON.stringify({
          assertion_id: `p${index}`,
          type: 'schema',
          spec: { target, schema },
        });
        const reply = JSON.parse(
          (await server.handleLine(batch(2 + index, trace, `[${assertion}]`))) ?? 'null',
        ) as Reply;
        expect(reply.result?.results?.[0]?.status, `${target} ${pattern}`).toBe(status);
      }
      // patternProperties too.
      const keyed = JSON.stringify({
        assertion_id: 'pp',
        type: 'schema',
        spec: {
          target: 'output',
          schema: {
            ...(draft === undefined ? {} : { $schema: draft }),
            type: 'object',
            patternProperties: { '^z': {} },
            additionalProperties: false,
          },
        },
      });
      const reply = JSON.parse((await server.handleLine(batch(20, trace, `[${keyed}]`))) ?? 'null') as Reply;
      expect(reply.result?.results?.[0]?.status).toBe('hard_fail');
    },
  );
});

describe("a trace's aggregate metadata decodes as TraceMetadata's pointers (pkg/types/trace.go: *int, *float64)", () => {
  const check = '[{"assertion_id":"x","type":"trace","spec":{"check":"no_duplicates"}}]';
  const trace = (metadata: string): string =>
    `{"trace_id":"r","output":{"message":"m"},"metadata":${metadata}}`;
  it.each([
    '{"aggregate_tokens":"x"}',
    '{"aggregate_tokens":true}',
    '{"aggregate_latency_ms":{}}',
    '{"agent_count":"3"}',
    '{"aggregate_cost_usd":[1]}',
  ])('%s is a trace that does not decode: 1001', async (metadata) => {
    expect(await answer(batch(2, trace(metadata), check))).toMatchObject({ error: { code: 1001 } });
  });
  it('null is none, and numbers decode', async () => {
    const reply = await answer(
      batch(2, trace('{"aggregate_tokens":null,"aggregate_cost_usd":0.5,"agent_count":2}'), check),
    );
    expect(reply.result?.results?.[0]?.status).toBe('pass');
  });
});
