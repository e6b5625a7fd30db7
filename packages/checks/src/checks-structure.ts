// Layer 3: checks on the shape of an execution — the order and count of its steps (trace), the
// agent tree (trace_tree), and the world effects it recorded (effect). Trace and trace_tree checks
// give the verdicts of the peer Attest engine (engine/internal/assertion/trace_check.go and
// trace_tree_eval.go); where a spec is unusable ours is an invalid_spec row (never soft).

import {
  inGoWords,
  requiredOneOf,
  countField,
  flag,
  numberField,
  objectField,
  oneOf,
  optionalNumber,
  specError,
  stringField,
  stringList,
} from './spec-fields.js';
import {
  agentInvocations,
  findAgent,
  findAgentNode,
  stepsOfAgent,
  summarizeTraceTree,
  traceNodes,
} from './trace.js';
import { goFormatG, goLowerCase, goMarshal, goQuote } from './go-text.js';
import { sourceText } from './request-text.js';

import type { Verdict } from './assertion-types.js';
import type { Spec } from './spec-fields.js';
import type { Step, Trace, WorldEffect } from './trace.js';

const verdict = (
  passed: boolean,
  explanation: string,
  extra: { expected?: unknown; actual?: unknown } = {},
): Verdict => ({
  kind: 'checked',
  passed,
  explanation,
  ...extra,
});
const quoted = (names: readonly string[]): string =>
  `[${names.map((name) => JSON.stringify(name)).join(', ')}]`;

// --- trace ------------------------------------------------------------------------------------

const TRACE_CHECKS = [
  'contains_in_order',
  'exact_order',
  'loop_detection',
  'no_duplicates',
  'required_tools',
  'forbidden_tools',
] as const;

/** The names of the root trace's steps, whatever their type (llm_call, tool_call, …), in order. */
function stepNames(trace: Trace): string[] {
  return (trace.steps ?? []).map((step) => step.name);
}

/** Positions at which `wanted` occurs in order inside `sequence` (gaps allowed), or undefined. */
function subsequencePositions(sequence: readonly string[], wanted: readonly string[]): number[] | undefined {
  const positions: number[] = [];
  let from = 0;
  for (const name of wanted) {
    const at = sequence.indexOf(name, from);
    if (at === -1) return undefined;
    positions.push(at);
    from = at + 1;
  }
  return positions;
}

function counts(names: readonly string[]): Map<string, number> {
  const tally = new Map<string, number>();
  for (const name of names) tally.set(name, (tally.get(name) ?? 0) + 1);
  return tally;
}

/** A list as Go's %v prints it: [a b]. */
const goList = (list: readonly (string | number)[]): string => `[${list.join(' ')}]`;

/** Trace checks, explained in the Attest engine's words (assertion/trace_check.go:104-219). */
export function checkTrace(trace: Trace, spec: Spec): Verdict {
  const check = requiredOneOf(spec, 'check', TRACE_CHECKS, {
    missing: 'trace spec missing required field: check',
    unknown: (value) => `unsupported check type: ${value}`,
  });
  const calls = stepNames(trace);
  // trace_check.go:47-79: each check's own words for what it lacks.
  const readTools = (): string[] => inGoWords(`${check} requires 'tools'`, () => stringList(spec, 'tools'));
  switch (check) {
    case 'contains_in_order': {
      const tools = readTools();
      const positions = subsequencePositions(calls, tools);
      if (positions !== undefined)
        return verdict(true, `tool sequence ${goList(tools)} found in order at steps ${goList(positions)}.`);
      // Where the in-order search stopped: the first tool not found after the ones matched.
      let cursor = 0;
      let missing = tools[0] ?? '';
      for (const tool of tools) {
        const at = calls.indexOf(tool, cursor);
        if (at === -1) {
          missing = tool;
          break;
        }
        cursor = at + 1;
      }
      return verdict(
        false,
        `tool sequence ${goList(tools)} not found in order; missing ${JSON.stringify(missing)} after position ${cursor}`,
        { expected: tools, actual: calls },
      );
    }
    case 'exact_order': {
      const tools = readTools();
      if (tools.length > calls.length) {
        return verdict(
          false,
          `exact order ${goList(tools)} not found: trace has fewer steps than required sequence`,
          { expected: tools, actual: calls },
        );
      }
      const start = calls.findIndex((_, at) => tools.every((name, offset) => calls[at + offset] === name));
      return start === -1
        ? verdict(false, `tool sequence ${goList(tools)} not found in exact contiguous order`, {
            expected: tools,
            actual: calls,
          })
        : verdict(
            true,
            `tool sequence ${goList(tools)} found in exact order at steps ${goList(tools.map((_, offset) => start + offset))}.`,
          );
    }
    case 'loop_detection': {
      const tool = inGoWords("loop_detection requires 'tool'", () => stringField(spec, 'tool'));
      const limit = inGoWords("loop_detection requires 'max_repetitions' > 0", () => {
        const count = countField(spec, 'max_repetitions');
        if (count === 0) throw specError('spec.max_repetitions must be at least 1');
        return count;
      });
      const count = calls.filter((name) => name === tool).length;
      return verdict(
        count <= limit,
        count <= limit
          ? `tool ${JSON.stringify(tool)} called ${count} times, within max_repetitions ${limit}.`
          : `tool ${JSON.stringify(tool)} called ${count} times, exceeds max_repetitions ${limit}`,
        { expected: `at most ${limit}`, actual: count },
      );
    }
    case 'no_duplicates': {
      const tally = [...counts(calls)].filter(([, count]) => count > 1);
      const repeated = tally.map(([name]) => name);
      return verdict(
        repeated.length === 0,
        repeated.length === 0
          ? 'no duplicate step names found.'
          : `duplicate step names found: ${tally.map(([name, count]) => `${JSON.stringify(name)} (${count} times)`).join(', ')}`,
        {
          actual: repeated,
        },
      );
    }
    case 'required_tools': {
      const tools = readTools();
      const missing = tools.filter((name) => !calls.includes(name));
      return verdict(
        missing.length === 0,
        missing.length === 0
          ? `all required tools found: ${goList(tools)}.`
          : `required tools not found in trace: ${goList(missing)}`,
        {
          actual: calls,
        },
      );
    }
    case 'forbidden_tools': {
      const tools = readTools();
      const called = tools.filter((name) => calls.includes(name));
      return verdict(
        called.length === 0,
        called.length === 0
          ? `none of the forbidden tools ${goList(tools)} found in trace.`
          : `forbidden tools found in trace: ${goList(called)}`,
        {
          actual: called,
        },
      );
    }
  }
}

// --- trace_tree ---------------------------------------------------------------------------------

const TREE_CHECKS = [
  'agent_called',
  'delegation_depth',
  'agent_output_contains',
  'cross_agent_data_flow',
  'follows_transitions',
  'aggregate_cost',
  'aggregate_tokens',
  'aggregate_latency',
  'agent_ordered_before',
  'agents_overlap',
  'agent_wall_time_under',
  'ordered_agents',
  'agent_order',
] as const;

/** A positive number (the peer engine refuses 0 and below). */
function positiveNumber(spec: Spec, key: string): number {
  const value = numberField(spec, key);
  if (value <= 0) throw specError(`spec.${key} must be greater than 0`);
  return value;
}

/** A list of lists of strings (transitions, groups). */
function stringLists(spec: Spec, key: string): string[][] {
  const value = spec[key];
  if (
    !Array.isArray(value) ||
    value.length === 0 ||
    !value.every((item) => Array.isArray(item) && item.every((name) => typeof name === 'string'))
  ) {
    throw specError(`spec.${key} must be a non-empty array of arrays of strings`);
  }
  return value;
}

/**
 * The bounds of an agent's steps anywhere in the tree (trace.CollectStepsByAgentID): undefined
 * without steps, 'untimed' when one lacks a time it needs.
 */
function agentSpan(
  trace: Trace,
  agent: string,
  needs: 'start' | 'end' | 'both' = 'both',
): { start: number; end: number; total: number } | 'untimed' | undefined {
  const steps: Step[] = stepsOfAgent(trace, agent);
  if (steps.length === 0) return undefined;
  let start = Number.POSITIVE_INFINITY;
  let end = Number.NEGATIVE_INFINITY;
  let total = 0;
  for (const { started_at_ms: started, ended_at_ms: ended } of steps) {
    if ((needs !== 'end' && started === undefined) || (needs !== 'start' && ended === undefined))
      return 'untimed';
    start = Math.min(start, started ?? start);
    end = Math.max(end, ended ?? end);
    total += (ended ?? 0) - (started ?? 0);
  }
  return { start, end, total };
}

/**
 * Trace-tree checks, with the Attest engine's verdicts and explanations (trace_tree_eval.go: agents
 * quoted as Go's %q, figures as its %.4g).
 */
export function checkTraceTree(trace: Trace, spec: Spec): Verdict {
  const check = requiredOneOf(spec, 'check', TREE_CHECKS, {
    missing: 'trace_tree spec missing required field: check',
    unknown: (value) => `unsupported trace_tree check: ${value}`,
  });
  const q = goQuote;
  switch (check) {
    case 'agent_called': {
      const agent = stringField(spec, 'agent_id');
      const found = findAgent(trace, agent) !== undefined;
      return verdict(
        found,
        found
          ? `agent ${q(agent)} was called in the trace tree.`
          : `agent ${q(agent)} was not called in the trace tree`,
        { actual: summarizeTraceTree(trace).agent_ids },
      );
    }
    case 'agent_order': {
      const agents = stringList(spec, 'agents');
      const invoked = agentInvocations(trace);
      const positions = subsequencePositions(invoked, agents);
      return verdict(
        positions !== undefined,
        positions === undefined
          ? `agents ${quoted(agents)} were not called in this order`
          : `agents ${quoted(agents)} called in order`,
        { expected: agents, actual: invoked },
      );
    }
    case 'delegation_depth': {
      const maxDepth = countField(spec, 'max_depth');
      if (maxDepth === 0) throw specError('spec.max_depth must be at least 1');
      // Delegation depth counts hand-offs: a tree of only the root has depth 0.
      const { depth } = summarizeTraceTree(trace);
      return verdict(
        depth <= maxDepth,
        depth <= maxDepth
          ? `delegation depth ${depth} is within max_depth ${maxDepth}.`
          : `delegation depth ${depth} exceeds max_depth ${maxDepth}`,
        { expected: `at most ${maxDepth}`, actual: depth },
      );
    }
    case 'agent_output_contains': {
      const agent = stringField(spec, 'agent_id');
      const value = stringField(spec, 'value');
      const caseSensitive = flag(spec, 'case_sensitive');
      const found = findAgentNode(trace, agent);
      if (found === undefined) return verdict(false, `agent ${q(agent)} not found in trace tree`);
      // The output's text as the request wrote it (the peer engine searches string(found.Output)),
      // lowered as Go lowers it.
      const fold = (text: string): string => (caseSensitive ? text : goLowerCase(text));
      const output = rawText(trace, [...found.at, 'output'], found.trace.output);
      const held = fold(output).includes(fold(value));
      return verdict(
        held,
        held
          ? `agent ${q(agent)} output contains ${q(value)}.`
          : `agent ${q(agent)} output does not contain ${q(value)}`,
      );
    }
    case 'cross_agent_data_flow': {
      const from = stringField(spec, 'from_agent');
      const to = stringField(spec, 'to_agent');
      const field = stringField(spec, 'field');
      const source = findAgent(trace, from);
      if (source === undefined) return verdict(false, `from_agent ${q(from)} not found in trace tree`);
      const receiver = findAgentNode(trace, to);
      if (receiver === undefined) return verdict(false, `to_agent ${q(to)} not found in trace tree`);
      if (!Object.hasOwn(source.output, field))
        return verdict(false, `field ${q(field)} not found in from_agent ${q(from)} output`);
      // The value as Go's json.Marshal writes it (strings without their quotes) must occur in the
      // receiver's input as the request wrote it (trace_tree_eval.go:183-193).
      const needle = goMarshal(source.output[field]).replace(/^"+|"+$/g, '');
      const { input } = receiver.trace;
      const held = (input === undefined ? '' : rawText(trace, [...receiver.at, 'input'], input)).includes(
        needle,
      );
      return verdict(
        held,
        held
          ? `field ${q(field)} flows from agent ${q(from)} to agent ${q(to)}.`
          : `field ${q(field)} value from agent ${q(from)} not found in agent ${q(to)} input`,
      );
    }
    case 'follows_transitions': {
      const transitions = stringLists(spec, 'transitions');
      for (const pair of transitions)
        if (pair.length !== 2) throw specError('spec.transitions: every transition must be [parent, child]');
      const allowed = new Set(transitions.map((pair) => JSON.stringify(pair)));
      const violations: string[] = [];
      for (const { trace: node } of traceNodes(trace)) {
        for (const step of node.steps ?? []) {
          if (step.type !== 'agent_call' || step.sub_trace == null) continue;
          const pair = [node.agent_id ?? '', step.sub_trace.agent_id ?? ''];
          if (!allowed.has(JSON.stringify(pair))) violations.push(`${pair[0]} -> ${pair[1]}`);
        }
      }
      return verdict(
        violations.length === 0,
        violations.length === 0
          ? 'follows_transitions: all delegations match allowed transitions.'
          : `follows_transitions: disallowed delegation(s): ${violations.join(', ')}`,
        { actual: violations },
      );
    }
    case 'agent_ordered_before': {
      const a = stringField(spec, 'agent_a');
      const b = stringField(spec, 'agent_b');
      // Only agent_a's ends and agent_b's starts are needed (trace_tree_eval.go:296-330).
      const spanA = agentSpan(trace, a, 'end');
      const spanB = agentSpan(trace, b, 'start');
      if (spanA === undefined) return verdict(false, `${check}: no steps found for agent_a ${q(a)}`);
      if (spanB === undefined) return verdict(false, `${check}: no steps found for agent_b ${q(b)}`);
      if (spanA === 'untimed')
        return verdict(false, `${check}: step for agent_a ${q(a)} missing ended_at_ms`);
      if (spanB === 'untimed')
        return verdict(false, `${check}: step for agent_b ${q(b)} missing started_at_ms`);
      const held = spanA.end < spanB.start;
      return verdict(
        held,
        held
          ? `${check}: agent_a ${q(a)} (last ended ${spanA.end} ms) completed before agent_b ${q(b)} (first started ${spanB.start} ms).`
          : `${check}: agent_a ${q(a)} last ended at ${spanA.end} ms, agent_b ${q(b)} first started at ${spanB.start} ms — not strictly before`,
      );
    }
    case 'agents_overlap': {
      const a = stringField(spec, 'agent_a');
      const b = stringField(spec, 'agent_b');
      const spanA = agentSpan(trace, a);
      const spanB = agentSpan(trace, b);
      if (spanA === undefined) return verdict(false, `${check}: no steps found for agent_a ${q(a)}`);
      if (spanB === undefined) return verdict(false, `${check}: no steps found for agent_b ${q(b)}`);
      if (spanA === 'untimed')
        return verdict(false, `${check}: step for agent_a ${q(a)} missing temporal fields`);
      if (spanB === 'untimed')
        return verdict(false, `${check}: step for agent_b ${q(b)} missing temporal fields`);
      const held = spanA.start < spanB.end && spanB.start < spanA.end;
      const spans = `agent_a ${q(a)} [${spanA.start}, ${spanA.end}] and agent_b ${q(b)} [${spanB.start}, ${spanB.end}]`;
      return verdict(held, held ? `${check}: ${spans} overlap.` : `${check}: ${spans} do not overlap`);
    }
    case 'agent_wall_time_under': {
      const agent = stringField(spec, 'agent_id');
      const maxMs = positiveNumber(spec, 'max_ms');
      const span = agentSpan(trace, agent);
      if (span === undefined) return verdict(false, `${check}: no steps found for agent_id ${q(agent)}`);
      if (span === 'untimed')
        return verdict(false, `${check}: step for agent_id ${q(agent)} missing temporal fields`);
      const held = span.total < maxMs;
      const stated = `${check}: agent ${q(agent)} total wall time ${span.total} ms`;
      return verdict(
        held,
        held ? `${stated} < max_ms ${goFormatG(maxMs, 4)}.` : `${stated} >= max_ms ${goFormatG(maxMs, 4)}`,
        { expected: `under ${maxMs}`, actual: span.total },
      );
    }
    case 'ordered_agents': {
      const groups = stringLists(spec, 'groups');
      if (groups.length < 2) throw specError('spec.groups must hold at least 2 groups');
      const bounds: { start: number; end: number }[] = [];
      for (const [index, group] of groups.entries()) {
        if (group.length === 0) throw specError(`spec.groups[${index}] is empty`);
        let start = Number.POSITIVE_INFINITY;
        let end = Number.NEGATIVE_INFINITY;
        for (const agent of group) {
          const span = agentSpan(trace, agent);
          if (span === undefined)
            return verdict(false, `${check}: no steps found for agent ${q(agent)} in group ${index}`);
          if (span === 'untimed')
            return verdict(false, `${check}: step for agent ${q(agent)} missing temporal fields`);
          start = Math.min(start, span.start);
          end = Math.max(end, span.end);
        }
        bounds.push({ start, end });
      }
      for (let index = 0; index + 1 < bounds.length; index++) {
        const [current, next] = [bounds[index], bounds[index + 1]] as [
          { start: number; end: number },
          { start: number; end: number },
        ];
        if (current.end >= next.start)
          return verdict(
            false,
            `${check}: group ${index} max ended (${current.end} ms) is not before group ${index + 1} min started (${next.start} ms)`,
          );
      }
      return verdict(true, `${check}: all ${groups.length} groups are sequentially ordered.`);
    }
    case 'aggregate_cost':
    case 'aggregate_tokens':
    case 'aggregate_latency': {
      // As trace_tree_eval.go:199-241 reads the spec: `operator` required, `value` a float64 whose
      // zero value (absent or null) is 0; applyNumericOperator's five operators (483-505).
      // A member of another type does not decode (spec-decode.ts): what is left is a string or none.
      const operator = typeof spec.operator === 'string' ? spec.operator : '';
      if (operator === '')
        throw specError(`spec.operator is required by ${check}`, { detail: `${check} requires 'operator'` });
      if (!AGGREGATE_OPERATORS.includes(operator))
        throw specError(`spec.operator ${JSON.stringify(operator)} is not one of lte, gte, eq, lt, gt`, {
          detail: `${check}: unsupported operator ${goQuote(operator)} (use lte, gte, eq, lt, gt)`,
        });
      const threshold = typeof spec.value === 'number' ? spec.value : 0;
      const summary = summarizeTraceTree(trace);
      const total = {
        aggregate_cost: summary.aggregate_cost_usd,
        aggregate_tokens: summary.aggregate_tokens,
        aggregate_latency: summary.aggregate_latency_ms,
      }[check];
      // A node that does not record the figure adds 0, as in the peer engine.
      const held =
        operator === 'lte'
          ? total <= threshold
          : operator === 'gte'
            ? total >= threshold
            : operator === 'eq'
              ? total === threshold
              : operator === 'lt'
                ? total < threshold
                : total > threshold;
      const stated = `${check}: actual ${goFormatG(total, 4)} ${operator} threshold ${goFormatG(threshold, 4)}`;
      return verdict(held, held ? `${stated} passed.` : `${stated} failed`, {
        expected: `${operator} ${threshold}`,
        actual: total,
      });
    }
  }
}

/** applyNumericOperator's operators (trace_tree_eval.go:483-505): no between. */
const AGGREGATE_OPERATORS: readonly string[] = ['lte', 'gte', 'eq', 'lt', 'gt'];

// --- effect -----------------------------------------------------------------------------------

const EFFECT_CHECKS = ['exists', 'absent', 'count'] as const;

export function checkEffect(trace: Trace, spec: Spec): Verdict {
  const check = oneOf(spec, 'check', EFFECT_CHECKS);
  const world = stringField(spec, 'world');
  const resource = stringField(spec, 'resource');
  const where = spec.where === undefined ? {} : objectField(spec, 'where');
  const min = check === 'count' ? optionalNumber(spec, 'min') : undefined;
  const max = check === 'count' ? optionalNumber(spec, 'max') : undefined;
  if (check === 'count' && min === undefined && max === undefined)
    throw specError('spec.min or spec.max is required for count');
  const recorded = traceNodes(trace)
    .map(({ trace: node }) => node.metadata?.effects)
    .filter((effects): effects is readonly WorldEffect[] => effects !== undefined);
  if (recorded.length === 0) {
    return {
      kind: 'not_evaluated',
      reason: 'missing_evidence',
      explanation: 'the trace records no world effects (metadata.effects)',
    };
  }
  const matching = recorded
    .flat()
    .filter((effect) => effect.world === world && effect.resource === resource)
    .filter((effect) =>
      Object.entries(where).every(([key, value]) => JSON.stringify(effect[key]) === JSON.stringify(value)),
    );
  const subject = `effects on ${world}/${resource}${Object.keys(where).length > 0 ? ` where ${JSON.stringify(where)}` : ''}`;
  if (check === 'exists')
    return verdict(matching.length > 0, `${matching.length} ${subject}`, { actual: matching.length });
  if (check === 'absent')
    return verdict(matching.length === 0, `${matching.length} ${subject}`, { actual: matching.length });
  const held = (min === undefined || matching.length >= min) && (max === undefined || matching.length <= max);
  return verdict(held, `${matching.length} ${subject}, expected ${min ?? 0}..${max ?? '∞'}`, {
    expected: { min: min ?? null, max: max ?? null },
    actual: matching.length,
  });
}

/** A value's text as its request line wrote it (`at` below the root), else its JSON (an in-process trace). */
function rawText(root: Trace, at: readonly (string | number)[], value: unknown): string {
  return sourceText(root, at) ?? JSON.stringify(value);
}
