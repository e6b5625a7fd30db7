// The assertion vocabulary, layer by layer, as a table: each row is one assertion against one trace
// and the status (and reason) it must get. Then the batch rules: layer order, short-circuiting of
// the model layers after a deterministic hard failure, soft failures, and result order.
import { performance } from 'node:perf_hooks';

import { describe, expect, it } from 'vitest';

import { evaluateAssertions } from '../src/evaluate.ts';
import { summarizeTraceTree, traceFromJSON } from '../src/trace.ts';
import { PluginResults } from '../src/plugin-results.ts';
import { MAX_REGEX_INPUT_CHARS, MAX_REGEX_PATTERN_BYTES } from '../src/checks-values.ts';
import { REGEX_TIME_LIMIT_MS, testRegexWithin } from '../src/regex-guard.ts';

import type { Assertion, AssertionResult } from '../src/assertion-types.ts';

/** The order lookup the trace makes twice, the same call each time (a repeated tool call). */
const LOOKUP_ORDER = {
  type: 'tool_call',
  name: 'lookup_order',
  args: { order_id: 'ORD-123' },
  result: { status: 'delivered', amount: 89.99 },
};

const TRACE = traceFromJSON({
  schema_version: 1,
  trace_id: 'trc_table',
  agent_id: 'orchestrator',
  input: { user_message: 'Refund order ORD-123' },
  steps: [
    { type: 'llm_call', name: 'plan', result: { completion: 'look up first' } },
    LOOKUP_ORDER,
    structuredClone(LOOKUP_ORDER),
    { type: 'retrieval', name: 'policy_search', result: { documents: [] } },
    {
      type: 'tool_call',
      name: 'process_refund',
      args: { order_id: 'ORD-123', amount: 89.99 },
      result: { refund_id: 'RFD-001' },
    },
    {
      type: 'agent_call',
      name: 'escalate',
      sub_trace: {
        schema_version: 1,
        trace_id: 'trc_sub',
        agent_id: 'billing-agent',
        steps: [
          {
            type: 'agent_call',
            name: 'audit',
            agent_id: 'audit-agent',
            sub_trace: {
              schema_version: 1,
              trace_id: 'trc_sub2',
              agent_id: 'audit-agent',
              output: { ok: true },
              metadata: { total_tokens: 50 },
            },
          },
        ],
        output: { resolution: 'approved' },
        metadata: {
          cost_usd: 0.002,
          total_tokens: 300,
          latency_ms: 800,
          effects: [{ world: 'db', resource: 'refunds', action: 'insert', order_id: 'ORD-123' }],
        },
      },
    },
  ],
  output: {
    message: 'Your refund of $89.99 was processed. Refund ID: RFD-001.',
    structured: { refund_id: 'RFD-001', confidence: 0.95 },
  },
  metadata: {
    total_tokens: 1350,
    cost_usd: 0.0067,
    latency_ms: 4200,
    model: 'gpt-4.1',
    effects: [{ world: 'email', resource: 'outbox', action: 'send' }],
  },
});

type Row = [
  name: string,
  type: string,
  spec: Record<string, unknown>,
  status: AssertionResult['status'],
  reason?: string,
];

const ROWS: Row[] = [
  // Layer 1: schema
  [
    'schema pass',
    'schema',
    { target: 'output.structured', schema: { type: 'object', required: ['refund_id'] } },
    'pass',
  ],
  [
    'schema fail',
    'schema',
    { target: "steps[?name=='process_refund'].result", schema: { required: ['missing'] } },
    'hard_fail',
  ],
  ['schema target missing', 'schema', { target: 'output.nothing', schema: {} }, 'hard_fail'],
  ['schema not a schema', 'schema', { target: 'output', schema: { type: 'banana' } }, 'hard_fail'],
  // Layer 2: constraint
  ['lte pass', 'constraint', { field: 'metadata.cost_usd', operator: 'lte', value: 0.01 }, 'pass'],
  ['lt fail', 'constraint', { field: 'metadata.latency_ms', operator: 'lt', value: 4200 }, 'hard_fail'],
  ['gt pass', 'constraint', { field: 'metadata.total_tokens', operator: 'gt', value: 1000 }, 'pass'],
  [
    'gte pass at the bound',
    'constraint',
    { field: 'metadata.total_tokens', operator: 'gte', value: 1350 },
    'pass',
  ],
  ['eq on steps.length', 'constraint', { field: 'steps.length', operator: 'eq', value: 6 }, 'pass'],
  [
    'count of tool calls',
    'constraint',
    { field: "steps[?type=='tool_call'].length", operator: 'eq', value: 3 },
    'pass',
  ],
  [
    'between pass',
    'constraint',
    { field: 'metadata.total_tokens', operator: 'between', min: 100, max: 2000 },
    'pass',
  ],
  [
    'between fail',
    'constraint',
    { field: 'metadata.total_tokens', operator: 'between', min: 100, max: 1000 },
    'hard_fail',
  ],
  ['missing field', 'constraint', { field: 'metadata.nonexistent', operator: 'lte', value: 1 }, 'hard_fail'],
  ['not a number', 'constraint', { field: 'metadata.model', operator: 'eq', value: 1 }, 'hard_fail'],
  [
    'soft constraint',
    'constraint',
    { field: 'metadata.latency_ms', operator: 'lte', value: 1000, soft: true },
    'soft_fail',
  ],
  [
    'unknown operator',
    'constraint',
    { field: 'metadata.cost_usd', operator: 'approx', value: 1 },
    'hard_fail',
  ],
  // Layer 3: trace
  [
    'contains_in_order pass',
    'trace',
    { check: 'contains_in_order', tools: ['lookup_order', 'process_refund'] },
    'pass',
  ],
  [
    'contains_in_order fail',
    'trace',
    { check: 'contains_in_order', tools: ['process_refund', 'lookup_order'] },
    'hard_fail',
  ],
  [
    'exact_order pass',
    'trace',
    { check: 'exact_order', tools: ['lookup_order', 'policy_search', 'process_refund'] },
    'pass',
  ],
  // Trace checks see every step, whatever its type (the peer engine matches step names).
  [
    'exact_order: a retrieval step in between breaks the run',
    'trace',
    { check: 'exact_order', tools: ['lookup_order', 'process_refund'] },
    'hard_fail',
  ],
  ['an llm_call step counts', 'trace', { check: 'forbidden_tools', tools: ['plan'] }, 'hard_fail'],
  [
    'contains_in_order across step types',
    'trace',
    { check: 'contains_in_order', tools: ['plan', 'policy_search', 'escalate'] },
    'pass',
  ],
  [
    'loop_detection without a tool (the peer engine requires one)',
    'trace',
    { check: 'loop_detection', max_repetitions: 5 },
    'hard_fail',
  ],
  [
    'aggregate_tokens does not take between (the peer engine: lt lte gt gte eq)',
    'trace_tree',
    { check: 'aggregate_tokens', operator: 'between', min: 0, max: 1e9 },
    'hard_fail',
  ],
  [
    'loop_detection with max_repetitions 0',
    'trace',
    { check: 'loop_detection', tool: 'plan', max_repetitions: 0 },
    'hard_fail',
  ],
  [
    'exact_order fail',
    'trace',
    { check: 'exact_order', tools: ['lookup_order', 'lookup_order', 'lookup_order'] },
    'hard_fail',
  ],
  [
    'loop_detection pass',
    'trace',
    { check: 'loop_detection', tool: 'lookup_order', max_repetitions: 2 },
    'pass',
  ],
  [
    'loop_detection fail',
    'trace',
    { check: 'loop_detection', tool: 'lookup_order', max_repetitions: 1 },
    'hard_fail',
  ],
  ['no_duplicates fail', 'trace', { check: 'no_duplicates' }, 'hard_fail'],
  ['required_tools pass', 'trace', { check: 'required_tools', tools: ['process_refund'] }, 'pass'],
  ['required_tools fail', 'trace', { check: 'required_tools', tools: ['notify_customer'] }, 'hard_fail'],
  ['forbidden_tools pass', 'trace', { check: 'forbidden_tools', tools: ['delete_account'] }, 'pass'],
  ['forbidden_tools fail', 'trace', { check: 'forbidden_tools', tools: ['process_refund'] }, 'hard_fail'],
  ['a retrieval step counts', 'trace', { check: 'required_tools', tools: ['policy_search'] }, 'pass'],
  ['trace check without tools', 'trace', { check: 'required_tools' }, 'hard_fail'],
  // Layer 3: trace_tree
  ['agent_called pass', 'trace_tree', { check: 'agent_called', agent_id: 'audit-agent' }, 'pass'],
  ['agent_called fail', 'trace_tree', { check: 'agent_called', agent_id: 'fraud-agent' }, 'hard_fail'],
  [
    'agent_order pass',
    'trace_tree',
    { check: 'agent_order', agents: ['billing-agent', 'audit-agent'] },
    'pass',
  ],
  [
    'agent_order fail',
    'trace_tree',
    { check: 'agent_order', agents: ['audit-agent', 'billing-agent'] },
    'hard_fail',
  ],
  ['delegation_depth pass', 'trace_tree', { check: 'delegation_depth', max_depth: 2 }, 'pass'],
  ['delegation_depth fail', 'trace_tree', { check: 'delegation_depth', max_depth: 1 }, 'hard_fail'],
  ['aggregate_cost pass', 'trace_tree', { check: 'aggregate_cost', operator: 'lte', value: 0.01 }, 'pass'],
  [
    'aggregate_tokens fail',
    'trace_tree',
    { check: 'aggregate_tokens', operator: 'lt', value: 1700 },
    'hard_fail',
  ],
  [
    'aggregate_latency pass',
    'trace_tree',
    { check: 'aggregate_latency', operator: 'eq', value: 5000 },
    'pass',
  ],
  // Layer 3: effect
  [
    'effect exists',
    'effect',
    { check: 'exists', world: 'db', resource: 'refunds', where: { order_id: 'ORD-123' } },
    'pass',
  ],
  [
    'effect exists fail',
    'effect',
    { check: 'exists', world: 'db', resource: 'refunds', where: { order_id: 'ORD-9' } },
    'hard_fail',
  ],
  ['effect absent', 'effect', { check: 'absent', world: 'db', resource: 'accounts' }, 'pass'],
  ['effect count', 'effect', { check: 'count', world: 'email', resource: 'outbox', min: 1, max: 1 }, 'pass'],
  [
    'effect count fail',
    'effect',
    { check: 'count', world: 'email', resource: 'outbox', max: 0 },
    'hard_fail',
  ],
  // Layer 4: content
  [
    'contains, case-insensitive by default',
    'content',
    { target: 'output.message', check: 'contains', value: 'REFUND' },
    'pass',
  ],
  [
    'contains, case_sensitive',
    'content',
    { target: 'output.message', check: 'contains', value: 'REFUND', case_sensitive: true },
    'hard_fail',
  ],
  [
    'not_contains pass',
    'content',
    { target: 'output.message', check: 'not_contains', value: 'cannot process' },
    'pass',
  ],
  [
    'not_contains soft fail',
    'content',
    { target: 'output.message', check: 'not_contains', value: 'refund', soft: true },
    'soft_fail',
  ],
  [
    'regex_match pass',
    'content',
    { target: 'output.message', check: 'regex_match', value: 'RFD-\\d{3,}' },
    'pass',
  ],
  [
    'regex_match is case-sensitive by default',
    'content',
    { target: 'output.message', check: 'regex_match', value: 'rfd-\\d+' },
    'hard_fail',
  ],
  [
    'regex_match: RE2 (?i)',
    'content',
    { target: 'output.message', check: 'regex_match', value: '(?i)rfd-\\d+' },
    'pass',
  ],
  [
    'regex_match: case_sensitive false',
    'content',
    { target: 'output.message', check: 'regex_match', value: 'rfd-\\d+', case_sensitive: false },
    'pass',
  ],
  [
    'regex_match: RE2 \\p{L} matches letters',
    'content',
    { target: 'output.message', check: 'regex_match', value: '^\\p{L}+ ' },
    'pass',
  ],
  [
    'regex_match: lookahead is not RE2',
    'content',
    { target: 'output.message', check: 'regex_match', value: 'RFD(?=-)' },
    'hard_fail',
  ],
  [
    'regex_match fail',
    'content',
    { target: 'output.message', check: 'regex_match', value: '^Sorry' },
    'hard_fail',
  ],
  [
    'regex invalid',
    'content',
    { target: 'output.message', check: 'regex_match', value: '[unclosed' },
    'hard_fail',
  ],
  [
    'regex over the pattern bound',
    'content',
    { target: 'output.message', check: 'regex_match', value: 'a'.repeat(MAX_REGEX_PATTERN_BYTES + 1) },
    'hard_fail',
  ],
  [
    'keyword_all pass',
    'content',
    { target: 'output.message', check: 'keyword_all', values: ['refund', 'rfd-'] },
    'pass',
  ],
  [
    'keyword_all fail',
    'content',
    { target: 'output.message', check: 'keyword_all', values: ['refund', 'business days'] },
    'hard_fail',
  ],
  [
    'keyword_any pass',
    'content',
    { target: 'output.message', check: 'keyword_any', values: ['nope', 'processed'] },
    'pass',
  ],
  [
    'keyword_any fail',
    'content',
    { target: 'output.message', check: 'keyword_any', values: ['nope', 'never'] },
    'hard_fail',
  ],
  [
    'forbidden pass',
    'content',
    { target: 'output.message', check: 'forbidden', values: ['kill', 'bomb'] },
    'pass',
  ],
  [
    'forbidden fail',
    'content',
    { target: 'output.message', check: 'forbidden', values: ['kill', 'REFUND'] },
    'hard_fail',
  ],
  [
    'content on a step result field',
    'content',
    { target: "steps[?name=='lookup_order'].result.status", check: 'contains', value: 'delivered' },
    'pass',
  ],
  [
    'content target missing',
    'content',
    { target: 'output.summary', check: 'contains', value: 'x' },
    'hard_fail',
  ],
  [
    'content target unparseable',
    'content',
    { target: 'output..message', check: 'contains', value: 'x' },
    'hard_fail',
  ],
  // Layers 5–6 without a provider, plugins without a result
  [
    'embedding without provider',
    'embedding',
    { target: 'output.message', reference: 'refund processed' },
    'not_evaluated',
    'provider_not_configured',
  ],
  [
    'llm_judge without provider',
    'llm_judge',
    { rubric: 'helpfulness' },
    'not_evaluated',
    'provider_not_configured',
  ],
  [
    'plugin without a submitted result',
    'plugin',
    { plugin_name: 'safety' },
    'not_evaluated',
    'missing_evidence',
  ],
  ['unknown type', 'sentiment', {}, 'hard_fail'],
];

describe('assertions, one at a time', () => {
  it.each(ROWS)('%s → %s', async (_name, type, spec, status, reason) => {
    const { results } = await evaluateAssertions(TRACE, [{ assertion_id: 'a', type, spec }]);
    expect(results).toHaveLength(1);
    expect(results[0]).toMatchObject({ assertion_id: 'a', type, status, cost: 0 });
    expect(results[0]?.reason).toBe(reason);
    expect(results[0]?.explanation).not.toBe('');
  });

  it('labels spec mistakes and unknown types as such, not as agent failures', async () => {
    const { results } = await evaluateAssertions(TRACE, [
      { assertion_id: 'bad-spec', type: 'trace', spec: { check: 'teleport' } },
      { assertion_id: 'bad-type', type: 'vibes', spec: {} },
    ]);
    expect(results.map((result) => result.failure_class)).toEqual(['invalid_spec', 'unknown_assertion_type']);
  });

  it('refuses a model-layer spec no provider could make valid, with or without a provider', async () => {
    const { results } = await evaluateAssertions(TRACE, [
      { assertion_id: 'judge-no-rubric', type: 'llm_judge', spec: {} },
      { assertion_id: 'embedding-no-reference', type: 'embedding', spec: { target: 'output.message' } },
      {
        assertion_id: 'judge-bad-threshold',
        type: 'llm_judge',
        spec: { rubric: 'helpfulness', threshold: 2 },
      },
    ]);
    expect(results.map((result) => [result.status, result.failure_class])).toEqual([
      ['hard_fail', 'invalid_spec'],
      ['hard_fail', 'invalid_spec'],
      ['hard_fail', 'invalid_spec'],
    ]);
  });

  it('reports effects as missing evidence when the trace records none', async () => {
    const bare = traceFromJSON({ schema_version: 1, trace_id: 't', output: { message: 'hi' } });
    const { results } = await evaluateAssertions(bare, [
      { assertion_id: 'e', type: 'effect', spec: { check: 'absent', world: 'db', resource: 'refunds' } },
    ]);
    expect(results[0]).toMatchObject({ status: 'not_evaluated', reason: 'missing_evidence' });
  });

  it('refuses to run a regex over text longer than the input bound', async () => {
    const long = traceFromJSON({
      schema_version: 1,
      trace_id: 't',
      output: { message: 'a'.repeat(MAX_REGEX_INPUT_CHARS + 1) },
    });
    const { results } = await evaluateAssertions(long, [
      {
        assertion_id: 'r',
        type: 'content',
        spec: { target: 'output.message', check: 'regex_match', value: 'a+' },
      },
    ]);
    expect(results[0]).toMatchObject({ status: 'hard_fail' });
    expect(results[0]?.explanation).toMatch(/regex_match bound/);
  });

  it('runs a pattern that backtracks catastrophically in JavaScript in linear time (RE2)', async () => {
    // ^(a+)+$ on 30 a's and a miss backtracks through 2^30 splits in a backtracking engine.
    const nearMiss = traceFromJSON({
      schema_version: 1,
      trace_id: 't',
      output: { message: `${'a'.repeat(30)}!` },
    });
    const regex = (id: string, value: string): Assertion => ({
      assertion_id: id,
      type: 'content',
      spec: { target: 'output.message', check: 'regex_match', value },
    });
    const started = performance.now();
    const { results } = await evaluateAssertions(nearMiss, [
      regex('evil', '^(a+)+$'),
      regex('fine', 'a{30}!$'),
    ]);
    expect(performance.now() - started).toBeLessThan(REGEX_TIME_LIMIT_MS);
    expect(results[0]).toMatchObject({ status: 'hard_fail', threshold_source: 'static' });
    expect(results[0]?.failure_class).toBeUndefined();
    expect(results[1]).toMatchObject({ status: 'pass' });
  });

  it('stops a regex at its time limit and replaces the worker', () => {
    expect(testRegexWithin('(a+)+$', `${'a'.repeat(5_000_000)}!`, 5)).toEqual({ timedOut: true });
    expect(testRegexWithin('(?i)A+', 'aaa')).toEqual({ matched: true });
  });
});

describe('a batch', () => {
  const judge: Assertion = { assertion_id: 'judge', type: 'llm_judge', spec: { rubric: 'helpfulness' } };
  const embedding: Assertion = { assertion_id: 'embed', type: 'embedding', spec: { reference: 'ok' } };
  const failing: Assertion = {
    assertion_id: 'order',
    type: 'trace',
    spec: { check: 'required_tools', tools: ['notify'] },
  };
  const softFailing: Assertion = {
    assertion_id: 'soft',
    type: 'content',
    spec: { check: 'contains', value: 'sorry', soft: true },
  };
  const passing: Assertion = {
    assertion_id: 'cost',
    type: 'constraint',
    spec: { field: 'metadata.cost_usd', operator: 'lt', value: 1 },
  };

  it('returns one row per assertion, in request order, with the layer of each', async () => {
    const { results } = await evaluateAssertions(TRACE, [judge, embedding, softFailing, passing]);
    expect(results.map((result) => [result.assertion_id, result.layer])).toEqual([
      ['judge', 6],
      ['embed', 5],
      ['soft', 4],
      ['cost', 2],
    ]);
  });

  it('short-circuits layers 5–6 (reported, not omitted) after a deterministic hard failure', async () => {
    const { results } = await evaluateAssertions(TRACE, [judge, embedding, failing, passing], {
      simulation: true,
    });
    expect(results.map((result) => [result.status, result.reason])).toEqual([
      ['not_evaluated', 'short_circuited'],
      ['not_evaluated', 'short_circuited'],
      ['hard_fail', undefined],
      ['pass', undefined],
    ]);
  });

  it('does not short-circuit after a soft failure', async () => {
    const { results } = await evaluateAssertions(TRACE, [judge, softFailing], { simulation: true });
    expect(results.map((result) => [result.status, result.reason])).toEqual([
      ['not_evaluated', 'simulation'],
      ['soft_fail', undefined],
    ]);
  });

  it('reports a submitted plugin result with its status, score and plugin name', async () => {
    const plugins = new PluginResults();
    plugins.submit('trc_table', 'p', 'safety', {
      status: 'soft_fail',
      score: 0.4,
      explanation: 'borderline',
    });
    const { results } = await evaluateAssertions(
      TRACE,
      [{ assertion_id: 'p', type: 'plugin', spec: { plugin_name: 'safety' } }],
      { pluginResults: plugins },
    );
    expect(results[0]).toMatchObject({
      status: 'soft_fail',
      score: 0.4,
      explanation: 'borderline',
      layer: 'plugin',
      judge_metadata: { plugin_name: 'safety' },
    });
  });

  it('sums costs and durations and echoes request_id and scope_id', async () => {
    const evaluation = await evaluateAssertions(TRACE, [
      { ...passing, request_id: 'req-1', scope_id: 'scope-1' },
    ]);
    expect(evaluation.results[0]).toMatchObject({ request_id: 'req-1', scope_id: 'scope-1' });
    expect(evaluation.total_cost).toBe(0);
    expect(evaluation.usage).toMatchObject({ model_calls: 0, unpriced_calls: 0 });
  });
});

describe('traceFromJSON, as the Attest engine reads a trace', () => {
  const base = { schema_version: 1, trace_id: 't', output: { message: 'm' } };
  it.each([
    ['a fractional step time', { steps: [{ type: 'llm_call', name: 'x', started_at_ms: 1.5 }] }],
    ['fractional total_tokens', { metadata: { total_tokens: 10.5 } }],
    ['fractional latency_ms', { metadata: { latency_ms: 0.25 } }],
  ])('refuses %s with 1001 (the Attest engine reads whole numbers there)', (_name, extra) => {
    expect(() => traceFromJSON({ ...base, ...extra })).toThrow(
      expect.objectContaining({ name: 'ChecksError', code: 'invalid_trace' }),
    );
  });
  it('reads whole-number times and a fractional cost', () => {
    expect(() =>
      traceFromJSON({
        ...base,
        steps: [{ type: 'llm_call', name: 'x', started_at_ms: 1, ended_at_ms: 2 }],
        metadata: { total_tokens: 10, latency_ms: 3, cost_usd: 0.25 },
      }),
    ).not.toThrow();
  });
});

describe('summarizeTraceTree', () => {
  it('lists every node’s agent in pre-order, counts depth from the root (0), and sums each node’s own figures', () => {
    expect(summarizeTraceTree(TRACE)).toEqual({
      depth: 2,
      agent_count: 3,
      agent_ids: ['orchestrator', 'billing-agent', 'audit-agent'],
      aggregate_tokens: 1700,
      aggregate_cost_usd: 0.0067 + 0.002,
      aggregate_latency_ms: 5000,
    });
  });
});
