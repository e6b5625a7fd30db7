// Layer 3: checks on the shape of an execution — the order and count of tool calls (trace), the
// agent tree (trace_tree), and the world effects it recorded (effect).
import { SpecError } from './assertion-types.js';
import {
  comparisonField,
  countField,
  objectField,
  oneOf,
  optionalNumber,
  optionalString,
  stringField,
  stringList,
} from './spec-fields.js';
import { agentInvocations, summarizeTraceTree, traceNodes } from './trace.js';

import type { Verdict } from './assertion-types.js';
import type { Spec } from './spec-fields.js';
import type { Trace, WorldEffect } from './trace.js';

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

/** The names of the root trace's tool_call steps, in order. */
function toolCalls(trace: Trace): string[] {
  return (trace.steps ?? []).filter((step) => step.type === 'tool_call').map((step) => step.name);
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

export function checkTrace(trace: Trace, spec: Spec): Verdict {
  const check = oneOf(spec, 'check', TRACE_CHECKS);
  const calls = toolCalls(trace);
  switch (check) {
    case 'contains_in_order': {
      const tools = stringList(spec, 'tools');
      const positions = subsequencePositions(calls, tools);
      return positions === undefined
        ? verdict(false, `tool calls ${quoted(calls)} do not contain ${quoted(tools)} in order`, {
            expected: tools,
            actual: calls,
          })
        : verdict(true, `tools ${quoted(tools)} called in order at tool calls [${positions.join(', ')}]`);
    }
    case 'exact_order': {
      const tools = stringList(spec, 'tools');
      const start = calls.findIndex((_, at) => tools.every((name, offset) => calls[at + offset] === name));
      return start === -1
        ? verdict(false, `tool calls ${quoted(calls)} do not contain ${quoted(tools)} back to back`, {
            expected: tools,
            actual: calls,
          })
        : verdict(true, `tools ${quoted(tools)} called back to back from tool call ${start}`);
    }
    case 'loop_detection': {
      const limit = countField(spec, 'max_repetitions');
      const tool = optionalString(spec, 'tool');
      const over = [...counts(calls)].filter(
        ([name, count]) => (tool === undefined || name === tool) && count > limit,
      );
      return over.length === 0
        ? verdict(
            true,
            `no tool ${tool === undefined ? '' : `${JSON.stringify(tool)} `}called more than ${limit} times`,
          )
        : verdict(
            false,
            `called more than ${limit} times: ${over.map(([name, count]) => `${name} ×${count}`).join(', ')}`,
            {
              expected: `at most ${limit}`,
              actual: Object.fromEntries(over),
            },
          );
    }
    case 'no_duplicates': {
      const repeated = [...counts(calls)].filter(([, count]) => count > 1).map(([name]) => name);
      return verdict(
        repeated.length === 0,
        repeated.length === 0 ? 'no tool called twice' : `called more than once: ${quoted(repeated)}`,
        {
          actual: repeated,
        },
      );
    }
    case 'required_tools': {
      const missing = stringList(spec, 'tools').filter((name) => !calls.includes(name));
      return verdict(
        missing.length === 0,
        missing.length === 0 ? 'every required tool was called' : `never called: ${quoted(missing)}`,
        {
          actual: calls,
        },
      );
    }
    case 'forbidden_tools': {
      const called = stringList(spec, 'tools').filter((name) => calls.includes(name));
      return verdict(
        called.length === 0,
        called.length === 0 ? 'no forbidden tool was called' : `forbidden tools called: ${quoted(called)}`,
        {
          actual: called,
        },
      );
    }
  }
}

// --- trace_tree -------------------------------------------------------------------------------

const TREE_CHECKS = [
  'agent_called',
  'delegation_depth',
  'aggregate_cost',
  'aggregate_tokens',
  'aggregate_latency',
  'agent_order',
] as const;

export function checkTraceTree(trace: Trace, spec: Spec): Verdict {
  const check = oneOf(spec, 'check', TREE_CHECKS);
  switch (check) {
    case 'agent_called': {
      const agent = stringField(spec, 'agent_id');
      const invoked = agentInvocations(trace);
      return verdict(
        invoked.includes(agent),
        `agent ${JSON.stringify(agent)} ${invoked.includes(agent) ? 'was' : 'was not'} called`,
        {
          actual: invoked,
        },
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
      // Delegation depth counts hand-offs: a tree of only the root has depth 0.
      const depth = summarizeTraceTree(trace).depth - 1;
      return verdict(
        depth <= maxDepth,
        `delegation depth ${depth} ${depth <= maxDepth ? 'within' : 'exceeds'} ${maxDepth}`,
        {
          expected: `at most ${maxDepth}`,
          actual: depth,
        },
      );
    }
    case 'aggregate_cost':
    case 'aggregate_tokens':
    case 'aggregate_latency': {
      const comparison = comparisonField(spec);
      const summary = summarizeTraceTree(trace);
      const [label, total] = {
        aggregate_cost: ['aggregate cost_usd', summary.aggregate_cost_usd],
        aggregate_tokens: ['aggregate total_tokens', summary.aggregate_tokens],
        aggregate_latency: ['aggregate latency_ms', summary.aggregate_latency_ms],
      }[check] as [string, number | null];
      if (total === null)
        return verdict(false, `${label} is missing: no trace in the tree records it`, { actual: 'missing' });
      const held = comparison.test(total);
      return verdict(held, `${label} = ${total}, ${held ? 'satisfies' : 'violates'} ${comparison.text}`, {
        expected: comparison.text,
        actual: total,
      });
    }
  }
}

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
    throw new SpecError('spec.min or spec.max is required for count');
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
