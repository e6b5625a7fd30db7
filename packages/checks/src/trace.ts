// The trace model the checks engine evaluates (schema_version 1; 0 is still read), its limits, and
// the one boundary where untrusted JSON becomes a Trace: traceFromJSON, which refuses with 1001.
// The first rules and limits are checked in its order, in its words, message and detail
// (validate.go:36-166). Values the Attest engine keeps as raw JSON (input, a step's args, result and metadata) may be
// any JSON value, as there (pkg/types/trace.go:17,28-29).
import { schemaErrors } from '@paperclip-evals/contract';

import { ChecksError } from './errors.js';
import { goTrimSpace } from './go-text.js';

export const TRACE_SCHEMA_ID = 'https://paperclip-evals.dev/schemas/checks/trace/v1.json';
export const MAX_TRACE_BYTES = 10 * 1024 * 1024;
export const MAX_STEPS_PER_TRACE = 10_000;
/** Longest step, serialised (the peer engine's MaxStepPayload). */
export const MAX_STEP_BYTES = 1024 * 1024;
/** The root trace is depth 1; its sub-traces depth 2, and so on. */
export const MAX_TRACE_DEPTH = 5;

export type StepType = 'llm_call' | 'tool_call' | 'retrieval' | 'agent_call';
const STEP_TYPES: readonly string[] = ['llm_call', 'tool_call', 'retrieval', 'agent_call'];

type JsonObject = Readonly<Record<string, unknown>>;

export interface Step {
  readonly type: StepType;
  readonly name: string;
  /** Any JSON value (a Python tool's plain-string output, say). */
  readonly args?: unknown;
  readonly result?: unknown;
  /** null reads as none, as the Attest engine's *Trace (an agent_call step without one is a tree error). */
  readonly sub_trace?: Trace | null;
  readonly metadata?: unknown;
  readonly agent_id?: string;
  readonly agent_role?: string;
  readonly started_at_ms?: number;
  readonly ended_at_ms?: number;
  readonly [field: string]: unknown;
}

/** A recorded change to the world (a row written, a message sent), for effect assertions. */
export interface WorldEffect {
  readonly world: string;
  readonly resource: string;
  readonly action?: string;
  readonly [field: string]: unknown;
}

export interface TraceMetadata {
  readonly total_tokens?: number;
  readonly cost_usd?: number;
  readonly latency_ms?: number;
  readonly model?: string;
  readonly timestamp?: string;
  /** Absent: effects were not recorded. Empty: recorded, and there were none. */
  readonly effects?: readonly WorldEffect[];
  readonly [field: string]: unknown;
}

export interface Trace {
  readonly schema_version: 0 | 1;
  readonly trace_id: string;
  readonly agent_id?: string;
  readonly agent_role?: string;
  readonly input?: unknown;
  /** null reads as none (a nil list there). */
  readonly steps?: readonly Step[] | null;
  readonly output: JsonObject;
  /** null reads as none, as the Attest engine's *TraceMetadata. */
  readonly metadata?: TraceMetadata | null;
  readonly parent_trace_id?: string | null;
  readonly [field: string]: unknown;
}

export interface TraceFromJsonOptions {
  /**
   * An upper bound of the trace's serialised size (the request line it came in). When it is within
   * MAX_TRACE_BYTES the trace cannot exceed it, and re-serialising to measure is skipped.
   */
  readonly maxPossibleBytes?: number;
}

/** Checks an untrusted value is a Trace within the limits, or throws ChecksError invalid_trace (1001). */
export function traceFromJSON(raw: unknown, options: TraceFromJsonOptions = {}): Trace {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw invalidTrace(
      'trace must be a JSON object',
      'Send the trace as an object with trace_id, steps and output.',
    );
  }
  const given = withoutNullFields(raw as Record<string, unknown>);
  checkVersionIdAndOutput(given);
  // A root without a version (or 0) is version 1, as the Attest engine normalises it
  // (normalize.go:12-16, handler.go:454); sub-traces keep theirs, and a missing one reads as 0.
  const record = given.schema_version === 1 ? given : { ...given, schema_version: 1 };
  if ((options.maxPossibleBytes ?? Number.POSITIVE_INFINITY) > MAX_TRACE_BYTES) {
    const bytes = Buffer.byteLength(JSON.stringify(raw));
    if (bytes > MAX_TRACE_BYTES) {
      throw invalidTrace(
        `trace exceeds max size: ${bytes} > ${MAX_TRACE_BYTES} bytes`,
        `Reduce trace size by filtering steps or truncating tool results. Max allowed: ${MAX_TRACE_BYTES} bytes (10 MB).`,
      );
    }
  }
  // Steps and nesting are bounded before the schema runs: its validator recurses into sub-traces.
  // A step can be over the bound only in a trace that is.
  checkStepsAndDepth(record, 0, (options.maxPossibleBytes ?? Number.POSITIVE_INFINITY) > MAX_STEP_BYTES);
  const errors = schemaErrors(TRACE_SCHEMA_ID, record);
  // The deepest error names the field (a `null or object` choice also reports its null branch).
  const first = errors.reduce<(typeof errors)[number] | undefined>(
    (deepest, error) =>
      deepest === undefined || error.instancePath.length > deepest.instancePath.length ? error : deepest,
    undefined,
  );
  if (first !== undefined) {
    const where = first.instancePath === '' ? 'trace' : `trace${first.instancePath}`;
    throw invalidTrace(
      `${where} ${first.message ?? 'is invalid'}`,
      `Fix the trace: ${errors.map((error) => `${error.instancePath || '/'} ${error.message ?? ''}`).join('; ')}.`,
    );
  }
  return record as Trace;
}

/**
 * The first rules of a trace node — the root or a sub-trace — in the Attest engine's order and
 * words (validate.go:36-78): schema_version, trace_id, output.
 */
function checkVersionIdAndOutput(node: Record<string, unknown>): void {
  const version = node.schema_version;
  if (version !== 0 && version !== 1 && version !== undefined) {
    throw invalidTrace(
      `unsupported schema_version ${JSON.stringify(version)}; engine supports versions 0 to 1`,
      `Set schema_version to 1 (current) or 0 (previous, deprecated). Version ${JSON.stringify(version)} is not supported.`,
    );
  }
  // strings.TrimSpace (validate.go:49, 118): Go's spaces, not JavaScript's.
  if (typeof node.trace_id !== 'string' || goTrimSpace(node.trace_id) === '') {
    throw invalidTrace(
      'trace missing required field: trace_id',
      'Every trace must include a non-empty trace_id string.',
    );
  }
  const output = node.output;
  // validate.go:60-78: absent is "missing"; present but not an object with a field is the other.
  if (output === undefined) {
    throw invalidTrace(
      'trace missing required field: output',
      'Every trace must include an output object with at least one field.',
    );
  }
  if (!isObject(output) || Object.keys(output).length === 0) {
    throw invalidTrace(
      'trace output must be a non-empty JSON object',
      'The output field must be a JSON object with at least one field.',
    );
  }
}

/**
 * A node's steps (their count, each one's name, type and size), then its depth, then each
 * sub-trace as a trace — the Attest engine's order (validate.go:105-175; depth: root 0, a node at
 * MAX_TRACE_DEPTH is refused). Every step's sub_trace is checked here, not only an agent_call's.
 */
function checkStepsAndDepth(node: Record<string, unknown>, depth: number, measureSteps: boolean): void {
  if (depth > 0) checkVersionIdAndOutput(node);
  const steps = Array.isArray(node.steps) ? (node.steps as unknown[]) : [];
  if (steps.length > MAX_STEPS_PER_TRACE) {
    throw invalidTrace(
      `trace exceeds max steps: ${steps.length} > ${MAX_STEPS_PER_TRACE}`,
      `Reduce the number of steps to ${MAX_STEPS_PER_TRACE} or fewer. Consider batching or summarizing intermediate steps.`,
    );
  }
  for (const step of steps) {
    // The Attest engine's step rules, in its order and words (validate.go:117-135).
    const name = isObject(step) && typeof step.name === 'string' ? step.name : '';
    if (goTrimSpace(name) === '') {
      throw invalidTrace(
        'trace step missing required field: name',
        'Every step must include a non-empty name string.',
      );
    }
    const type = isObject(step) ? step.type : undefined;
    if (typeof type !== 'string' || !STEP_TYPES.includes(type)) {
      const shown = typeof type === 'string' ? type : '';
      throw invalidTrace(
        `trace step '${name}' has invalid type '${shown}'`,
        `Step type must be one of: ${STEP_TYPES.join(', ')}. Got '${shown}' for step '${name}'.`,
      );
    }
    if (measureSteps) {
      const bytes = Buffer.byteLength(JSON.stringify(step));
      if (bytes > MAX_STEP_BYTES) {
        throw invalidTrace(
          `trace step '${name}' exceeds max payload size: ${bytes} > ${MAX_STEP_BYTES} bytes`,
          `Reduce the step payload size to ${MAX_STEP_BYTES} bytes (1 MB) or fewer by truncating tool results or outputs.`,
        );
      }
    }
  }
  if (depth >= MAX_TRACE_DEPTH) {
    throw invalidTrace(
      `trace nesting depth ${depth} exceeds maximum ${MAX_TRACE_DEPTH}`,
      `Reduce the agent_call nesting depth to ${MAX_TRACE_DEPTH} or fewer levels.`,
    );
  }
  for (const step of steps) {
    const sub = isObject(step) ? step.sub_trace : undefined;
    if (isObject(sub)) checkStepsAndDepth(sub, depth + 1, measureSteps);
  }
}

/** The members of a node whose null is raw JSON there (json.RawMessage), kept as null. */
const RAW_TRACE_FIELDS: ReadonlySet<string> = new Set(['input', 'output']);
const RAW_STEP_FIELDS: ReadonlySet<string> = new Set(['args', 'result', 'metadata']);

/**
 * The trace with every null member removed (the same objects where there is none), as the Attest
 * engine decodes a null into a string, a number or a pointer field: it leaves the field unset
 * (trace.go). Raw JSON members (a trace's input and output, a step's args, result and metadata)
 * keep their null, which is a value there.
 */
export function withoutNullFields(trace: Record<string, unknown>): Record<string, unknown> {
  return dropNulls(trace, RAW_TRACE_FIELDS, (key, value) => {
    if (key === 'metadata' && isObject(value)) return dropNulls(value, new Set<string>(), () => undefined);
    if (key !== 'steps' || !Array.isArray(value)) return undefined;
    const steps = (value as unknown[]).map((step) =>
      isObject(step)
        ? dropNulls(step, RAW_STEP_FIELDS, (field, member) =>
            field === 'sub_trace' && isObject(member) ? withoutNullFields(member) : undefined,
          )
        : step,
    );
    return steps.some((step, index) => step !== value[index]) ? steps : undefined;
  });
}

/** `node` without its null members but `keep`; `nested` may replace a member (undefined: as it is). */
function dropNulls(
  node: Record<string, unknown>,
  keep: ReadonlySet<string>,
  nested: (key: string, value: unknown) => unknown,
): Record<string, unknown> {
  let changed = false;
  const members: [string, unknown][] = [];
  for (const [key, value] of Object.entries(node)) {
    if (value === null && !keep.has(key)) {
      changed = true;
      continue;
    }
    const replaced = value === null ? undefined : nested(key, value);
    if (replaced !== undefined && replaced !== value) changed = true;
    members.push([key, replaced ?? value]);
  }
  return changed ? Object.fromEntries(members) : node;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function invalidTrace(message: string, detail: string): ChecksError {
  return new ChecksError('invalid_trace', message, [], { detail });
}

/**
 * The trace tree: the root and the sub-trace of every agent_call step below it, in pre-order, each
 * with its depth (root = 0). A sub_trace on a step of another type is not part of the tree (the
 * peer engine walks agent_call steps only).
 */
export function traceNodes(root: Trace): TraceNode[] {
  const nodes: TraceNode[] = [];
  const visit = (trace: Trace, depth: number, at: readonly (string | number)[]): void => {
    nodes.push({ trace, depth, at });
    (trace.steps ?? []).forEach((step, index) => {
      if (step.type === 'agent_call' && step.sub_trace != null)
        visit(step.sub_trace, depth + 1, [...at, 'steps', index, 'sub_trace']);
    });
  };
  visit(root, 0, []);
  return nodes;
}

/** A node of the trace tree: its depth (root = 0) and where it is below the root (keys and indexes). */
export interface TraceNode {
  readonly trace: Trace;
  readonly depth: number;
  readonly at: readonly (string | number)[];
}

/**
 * The trace of the tree whose agent_id is `agentId` (the root counts), as the Attest engine finds it
 * (trace.FindAgentByID, tree.go:40-50): its walk does not descend into a match but goes on past it,
 * so an agent called more than once is its last call (pre-order) not inside an earlier one.
 */
export function findAgent(root: Trace, agentId: string): Trace | undefined {
  return findAgentNode(root, agentId)?.trace;
}

/** findAgent's node, with where it is below the root. */
export function findAgentNode(root: Trace, agentId: string): TraceNode | undefined {
  let found: TraceNode | undefined;
  for (const node of traceNodes(root)) {
    const insideFound =
      found !== undefined &&
      node.at.length > found.at.length &&
      found.at.every((segment, index) => node.at[index] === segment);
    if (node.trace.agent_id === agentId && !insideFound) found = node;
  }
  return found;
}

/** Every step of the tree whose own `agent_id` is `agentId`, in pre-order. */
export function stepsOfAgent(root: Trace, agentId: string): Step[] {
  return traceNodes(root).flatMap(({ trace }) =>
    (trace.steps ?? []).filter((step) => step.agent_id === agentId),
  );
}

export interface TraceTreeSummary {
  /** The deepest node's depth: a tree of only the root has depth 0. */
  readonly depth: number;
  readonly agent_count: number;
  /** Every node's non-empty agent_id, in pre-order (a repeated agent is listed each time). */
  readonly agent_ids: string[];
  /** Sums over every node's own metadata; a node that does not record the figure adds 0. */
  readonly aggregate_tokens: number;
  readonly aggregate_cost_usd: number;
  readonly aggregate_latency_ms: number;
}

/** Who each agent_call step invoked, in pre-order: the sub-trace's agent, else the step's, else its name. */
export function agentInvocations(root: Trace): string[] {
  const invoked: string[] = [];
  const visit = (trace: Trace): void => {
    for (const step of trace.steps ?? []) {
      if (step.type !== 'agent_call') continue;
      invoked.push(step.sub_trace?.agent_id ?? step.agent_id ?? step.name);
      if (step.sub_trace != null) visit(step.sub_trace);
    }
  };
  visit(root);
  return invoked;
}

/**
 * The tree's shape and totals, as the peer engine reports them. Each node's own metadata is summed
 * (a parent's figures are taken to be its own work, not to include its sub-traces').
 */
export function summarizeTraceTree(root: Trace): TraceTreeSummary {
  const nodes = traceNodes(root);
  const agentIds = nodes.flatMap(({ trace }) =>
    trace.agent_id === undefined || trace.agent_id === '' ? [] : [trace.agent_id],
  );
  const sum = (field: 'total_tokens' | 'cost_usd' | 'latency_ms'): number =>
    nodes.reduce((total, { trace }) => total + (trace.metadata?.[field] ?? 0), 0);
  return {
    depth: Math.max(...nodes.map((node) => node.depth)),
    agent_count: agentIds.length,
    agent_ids: agentIds,
    aggregate_tokens: sum('total_tokens'),
    aggregate_cost_usd: sum('cost_usd'),
    aggregate_latency_ms: sum('latency_ms'),
  };
}

/**
 * What is wrong with the tree's structure, every problem in pre-order (empty when nothing is): an
 * agent_call step without a sub_trace, a sub-trace whose parent_trace_id is not its parent's
 * trace_id, a trace_id seen twice in the tree. The peer engine's messages, word for word.
 */
export function traceTreeErrors(root: Trace): string[] {
  const errors: string[] = [];
  const seen = new Set<string>();
  const visit = (trace: Trace, parent: Trace | undefined, depth: number): void => {
    // The order of tree.go:87-111: nesting, a repeated id, the parent link, then the steps.
    if (depth > MAX_TRACE_DEPTH) {
      errors.push(`trace nesting depth ${depth} exceeds maximum ${MAX_TRACE_DEPTH}`);
      return;
    }
    const traceId = trace.trace_id as string | undefined;
    if (seen.has(traceId ?? ''))
      errors.push(`duplicate trace_id: cycle detected at ${JSON.stringify(traceId ?? '')}`);
    seen.add(traceId ?? '');
    const parentId = trace.parent_trace_id;
    if (parent !== undefined && typeof parentId === 'string' && parentId !== parent.trace_id) {
      errors.push(
        `sub_trace ${JSON.stringify(traceId ?? '')} has parent_trace_id ${JSON.stringify(parentId)} but parent trace_id is ${JSON.stringify(parent.trace_id)}`,
      );
    }
    for (const step of trace.steps ?? []) {
      if (step.type !== 'agent_call') continue;
      if (step.sub_trace == null)
        errors.push(
          `agent_call step ${JSON.stringify(step.name)} in trace ${JSON.stringify(traceId ?? '')} is missing sub_trace`,
        );
      else visit(step.sub_trace, trace, depth + 1);
    }
  };
  visit(root, undefined, 0);
  return errors;
}
