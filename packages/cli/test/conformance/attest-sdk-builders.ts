// The assertion builders of the public Attest TypeScript SDK (@attest-ai/core 0.5.0,
// sdks/typescript/packages/core/src/expect.ts, class ExpectChain), as the wire `{type, spec}` each
// method sends: the same members, the same defaults (`soft: opts?.soft ?? false`, …), an undefined
// option left undefined (JSON.stringify drops it). Written from the SDK's source, not copied: one
// function per builder method, named after it.

/** One assertion as the SDK sends it, before its assertion_id (`assert_` + 8 hex digits). */
export interface WireAssertion {
  readonly type: string;
  readonly spec: Readonly<Record<string, unknown>>;
}

type Soft = { soft?: boolean };
type Case = { caseSensitive?: boolean; soft?: boolean };

const soft = (opts?: Soft): boolean => opts?.soft ?? false;
const spec = (type: string, body: Record<string, unknown>): WireAssertion => ({ type, spec: body });

export const sdk = {
  // Layer 1
  outputMatchesSchema: (schema: unknown) => spec('schema', { target: 'output.structured', schema }),
  outputFieldMatchesSchema: (field: string, schema: unknown) =>
    spec('schema', { target: `output.${field}`, schema }),
  toolArgsMatchSchema: (toolName: string, schema: unknown) =>
    spec('schema', { target: `steps[?name=='${toolName}'].args`, schema }),
  toolResultMatchesSchema: (toolName: string, schema: unknown) =>
    spec('schema', { target: `steps[?name=='${toolName}'].result`, schema }),
  // Layer 2
  costUnder: (maxCost: number, opts?: Soft) =>
    spec('constraint', { field: 'metadata.cost_usd', operator: 'lte', value: maxCost, soft: soft(opts) }),
  latencyUnder: (maxMs: number, opts?: Soft) =>
    spec('constraint', { field: 'metadata.latency_ms', operator: 'lte', value: maxMs, soft: soft(opts) }),
  tokensUnder: (maxTokens: number, opts?: Soft) =>
    spec('constraint', {
      field: 'metadata.total_tokens',
      operator: 'lte',
      value: maxTokens,
      soft: soft(opts),
    }),
  tokensBetween: (minTokens: number, maxTokens: number, opts?: Soft) =>
    spec('constraint', {
      field: 'metadata.total_tokens',
      operator: 'between',
      min: minTokens,
      max: maxTokens,
      soft: soft(opts),
    }),
  stepCount: (operator: string, value: number, opts?: Soft) =>
    spec('constraint', { field: 'steps.length', operator, value, soft: soft(opts) }),
  toolCallCount: (operator: string, value: number, opts?: Soft) =>
    spec('constraint', { field: "steps[?type=='tool_call'].length", operator, value, soft: soft(opts) }),
  constraint: (
    field: string,
    operator: string,
    opts?: { value?: number; min?: number; max?: number; soft?: boolean },
  ) => {
    const body: Record<string, unknown> = { field, operator, soft: soft(opts) };
    if (opts?.value !== undefined) body.value = opts.value;
    if (opts?.min !== undefined) body.min = opts.min;
    if (opts?.max !== undefined) body.max = opts.max;
    return spec('constraint', body);
  },
  // Layer 3: trace
  toolsCalledInOrder: (tools: string[], opts?: Soft) =>
    spec('trace', { check: 'contains_in_order', tools, soft: soft(opts) }),
  toolsCalledExactly: (tools: string[], opts?: Soft) =>
    spec('trace', { check: 'exact_order', tools, soft: soft(opts) }),
  noToolLoops: (tool: string, maxRepetitions = 1, opts?: Soft) =>
    spec('trace', { check: 'loop_detection', tool, max_repetitions: maxRepetitions, soft: soft(opts) }),
  noDuplicateTools: (opts?: Soft) => spec('trace', { check: 'no_duplicates', soft: soft(opts) }),
  requiredTools: (tools: string[], opts?: Soft) =>
    spec('trace', { check: 'required_tools', tools, soft: soft(opts) }),
  forbiddenTools: (tools: string[], opts?: Soft) =>
    spec('trace', { check: 'forbidden_tools', tools, soft: soft(opts) }),
  // Layer 4
  outputContains: (value: string, opts?: Case) =>
    spec('content', {
      target: 'output.message',
      check: 'contains',
      value,
      case_sensitive: opts?.caseSensitive ?? false,
      soft: soft(opts),
    }),
  outputNotContains: (value: string, opts?: Case) =>
    spec('content', {
      target: 'output.message',
      check: 'not_contains',
      value,
      case_sensitive: opts?.caseSensitive ?? false,
      soft: soft(opts),
    }),
  outputMatchesRegex: (pattern: string, opts?: Soft) =>
    spec('content', { target: 'output.message', check: 'regex_match', value: pattern, soft: soft(opts) }),
  outputHasAllKeywords: (keywords: string[], opts?: Case) =>
    spec('content', {
      target: 'output.message',
      check: 'keyword_all',
      values: keywords,
      case_sensitive: opts?.caseSensitive ?? false,
      soft: soft(opts),
    }),
  outputHasAnyKeyword: (keywords: string[], opts?: Case) =>
    spec('content', {
      target: 'output.message',
      check: 'keyword_any',
      values: keywords,
      case_sensitive: opts?.caseSensitive ?? false,
      soft: soft(opts),
    }),
  outputForbids: (terms: string[]) =>
    spec('content', { target: 'output.message', check: 'forbidden', values: terms }),
  contentContains: (target: string, value: string, opts?: Case) =>
    spec('content', {
      target,
      check: 'contains',
      value,
      case_sensitive: opts?.caseSensitive ?? false,
      soft: soft(opts),
    }),
  // Layer 5
  outputSimilarTo: (reference: string, opts?: { threshold?: number; model?: string; soft?: boolean }) =>
    spec('embedding', {
      target: 'output.message',
      reference,
      threshold: opts?.threshold ?? 0.8,
      model: opts?.model,
      soft: soft(opts),
    }),
  // Layer 6
  passesJudge: (
    criteria: string,
    opts?: { rubric?: string; threshold?: number; model?: string; soft?: boolean },
  ) =>
    spec('llm_judge', {
      target: 'output.message',
      criteria,
      rubric: opts?.rubric ?? 'default',
      threshold: opts?.threshold ?? 0.8,
      model: opts?.model,
      soft: soft(opts),
    }),
  // Trace tree
  agentCalled: (agentId: string, opts?: Soft) =>
    spec('trace_tree', { check: 'agent_called', agent_id: agentId, soft: soft(opts) }),
  delegationDepth: (maxDepth: number, opts?: Soft) =>
    spec('trace_tree', { check: 'delegation_depth', max_depth: maxDepth, soft: soft(opts) }),
  agentOutputContains: (agentId: string, value: string, opts?: Case) =>
    spec('trace_tree', {
      check: 'agent_output_contains',
      agent_id: agentId,
      value,
      case_sensitive: opts?.caseSensitive ?? false,
      soft: soft(opts),
    }),
  crossAgentDataFlow: (fromAgent: string, toAgent: string, field: string, opts?: Soft) =>
    spec('trace_tree', {
      check: 'cross_agent_data_flow',
      from_agent: fromAgent,
      to_agent: toAgent,
      field,
      soft: soft(opts),
    }),
  followsTransitions: (transitions: string[][], opts?: Soft) =>
    spec('trace_tree', { check: 'follows_transitions', transitions, soft: soft(opts) }),
  aggregateCostUnder: (maxCost: number, opts?: Soft) =>
    spec('trace_tree', { check: 'aggregate_cost', operator: 'lte', value: maxCost, soft: soft(opts) }),
  aggregateTokensUnder: (maxTokens: number, opts?: Soft) =>
    spec('trace_tree', { check: 'aggregate_tokens', operator: 'lte', value: maxTokens, soft: soft(opts) }),
  agentOrderedBefore: (agentA: string, agentB: string, opts?: Soft) =>
    spec('trace_tree', { check: 'agent_ordered_before', agent_a: agentA, agent_b: agentB, soft: soft(opts) }),
  agentsOverlap: (agentA: string, agentB: string, opts?: Soft) =>
    spec('trace_tree', { check: 'agents_overlap', agent_a: agentA, agent_b: agentB, soft: soft(opts) }),
  agentWallTimeUnder: (agentId: string, maxMs: number, opts?: Soft) =>
    spec('trace_tree', {
      check: 'agent_wall_time_under',
      agent_id: agentId,
      max_ms: maxMs,
      soft: soft(opts),
    }),
  orderedAgents: (groups: string[][], opts?: Soft) =>
    spec('trace_tree', { check: 'ordered_agents', groups, soft: soft(opts) }),
  // Plugins
  plugin: (pluginId: string, config?: Record<string, unknown>, opts?: Soft) => {
    const body: Record<string, unknown> = { plugin_id: pluginId, soft: soft(opts) };
    if (config !== undefined) body.config = config;
    return spec('plugin', body);
  },
  aggregateLatencyUnder: (maxMs: number, opts?: Soft) =>
    spec('trace_tree', { check: 'aggregate_latency', operator: 'lte', value: maxMs, soft: soft(opts) }),
  allToolsCalled: (toolNames: string[], opts?: Soft) =>
    spec('trace_tree', { check: 'all_tools_called', tools: toolNames, soft: soft(opts) }),
} as const;

export type SdkBuilder = keyof typeof sdk;
