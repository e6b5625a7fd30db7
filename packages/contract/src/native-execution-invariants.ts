// The native-execution/v1 rules a JSON Schema cannot express. Each check reads the document
// defensively (it may run on a bundle that also failed the schema) and reports every violation.
import { pointer } from './errors.js';

import type { Issue } from './errors.js';

type Json = Record<string, unknown>;

const TOOL_INPUT_EVENT = 'mcp_app.tool_input';
const TOOL_RESULT_EVENT = 'mcp_app.tool_result';
/** The PRP v1 event types whose payload carries a `semantic_tool` envelope (a test reads them off our event schema). */
export const TOOL_EVENT_TYPES: readonly string[] = [
  'semantic_tool.input',
  'semantic_tool.result',
  'semantic_tool.reconciled',
  TOOL_INPUT_EVENT,
  TOOL_RESULT_EVENT,
];
/** The correlation fields of a semantic_tool envelope, each equal to its event's field of the same name. */
const CORRELATION_FIELDS = ['runId', 'normalizedSessionId', 'turnId', 'itemId'] as const;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const objectAt = (value: unknown, key: string): Json | undefined => {
  const child = isObject(value) ? value[key] : undefined;
  return isObject(child) ? child : undefined;
};
const listAt = (value: unknown, key: string): unknown[] => {
  const child = isObject(value) ? value[key] : undefined;
  return Array.isArray(child) ? child : [];
};
const describe = (value: unknown): unknown => (value === undefined ? 'missing' : value);

/** All invariant violations of a (possibly schema-invalid) bundle. */
export function nativeExecutionInvariantIssues(bundle: Json): Issue[] {
  const events = listAt(bundle, 'events');
  const stream = indexEvents(events);
  return [
    ...eventRunIssues(bundle, events),
    ...sourceOrderIssues(events, stream),
    ...terminalIssues(bundle, events, stream),
    ...envelopeIssues(events),
    ...semanticIndexIssues(bundle, events, stream),
    ...callBindingIssues(bundle),
    ...unresolvedCallIssues(bundle),
    ...denialIssues(bundle, stream),
    ...usageIssues(bundle),
    ...transcriptIssues(bundle, events),
  ];
}

function eventRunIssues(bundle: Json, events: unknown[]): Issue[] {
  const runId = objectAt(bundle, 'identity')?.runId;
  if (typeof runId !== 'string') return [];
  const issues: Issue[] = [];
  events.forEach((event, index) => {
    if (isObject(event) && typeof event.runId === 'string' && event.runId !== runId) {
      issues.push({
        code: 'event_run_mismatch',
        message: `event ${index} belongs to run ${JSON.stringify(event.runId)}, not the attempt's run`,
        path: pointer('events', index, 'runId'),
        expected: runId,
        received: event.runId,
      });
    }
  });
  return issues;
}

function sourceOrderIssues(events: unknown[], { positionById }: EventIndex): Issue[] {
  const issues: Issue[] = [];
  const lastSeqByInstance = new Map<string, number>();
  events.forEach((event, index) => {
    if (!isObject(event)) return;
    const { sourceInstanceId, sourceSeq, sourceEventId } = event;
    if (typeof sourceInstanceId === 'string' && typeof sourceSeq === 'number') {
      const previous = lastSeqByInstance.get(sourceInstanceId);
      if (previous !== undefined && sourceSeq <= previous) {
        issues.push({
          code: 'source_seq_not_increasing',
          message: `sourceSeq of event ${index} does not increase for source instance ${JSON.stringify(sourceInstanceId)}`,
          path: pointer('events', index, 'sourceSeq'),
          expected: `greater than ${previous}`,
          received: sourceSeq,
        });
      }
      lastSeqByInstance.set(sourceInstanceId, Math.max(sourceSeq, previous ?? sourceSeq));
    }
    if (typeof sourceEventId === 'string') {
      const first = positionById.get(sourceEventId) ?? index;
      if (first !== index) {
        issues.push({
          code: 'source_event_id_duplicate',
          message: `sourceEventId ${JSON.stringify(sourceEventId)} of event ${index} repeats event ${first}`,
          path: pointer('events', index, 'sourceEventId'),
          expected: 'a sourceEventId not used by an earlier event',
          received: sourceEventId,
        });
      }
    }
  });
  return issues;
}

function terminalIssues(bundle: Json, events: unknown[], { terminalPositions }: EventIndex): Issue[] {
  const [first, ...extra] = terminalPositions;
  if (first === undefined) {
    return [
      {
        code: 'terminal_event_missing',
        message: 'no run.terminal event: the attempt never says how the run ended',
        path: '/events',
        expected: 'exactly one run.terminal event',
        received: 'none',
      },
    ];
  }
  if (extra.length > 0) {
    return extra.map((index) => ({
      code: 'terminal_event_multiple',
      message: `event ${index} is a second run.terminal event (the first is event ${first})`,
      path: pointer('events', index, 'eventType'),
      expected: 'exactly one run.terminal event',
      received: `${terminalPositions.length} run.terminal events`,
    }));
  }
  const fromEvent = objectAt(events[first], 'payload');
  const declared = objectAt(bundle, 'terminal');
  if (fromEvent === undefined || declared === undefined) return [];
  const fields = new Set([...Object.keys(fromEvent), ...Object.keys(declared)]);
  const issues: Issue[] = [];
  for (const field of fields) {
    if (!sameJson(fromEvent[field], declared[field])) {
      issues.push({
        code: 'terminal_mismatch',
        message: `terminal.${field} differs from the run.terminal event (event ${first})`,
        path: pointer('terminal', field),
        expected: describe(fromEvent[field]),
        received: describe(declared[field]),
      });
    }
  }
  return issues;
}

interface Envelope {
  readonly index: number;
  readonly eventType: string;
  readonly tool: Json;
}

interface EventIndex {
  /** Position of the first event with each sourceEventId. */
  readonly positionById: ReadonlyMap<string, number>;
  /** Semantic tool envelopes (events carrying payload.semantic_tool), by sourceEventId. */
  readonly envelopes: ReadonlyMap<string, Envelope>;
  /** Positions of the run.terminal events. */
  readonly terminalPositions: readonly number[];
}

/** One pass over the stream, so that every lookup after it is constant time. */
function indexEvents(events: unknown[]): EventIndex {
  const positionById = new Map<string, number>();
  const envelopes = new Map<string, Envelope>();
  const terminalPositions: number[] = [];
  events.forEach((event, index) => {
    if (!isObject(event)) return;
    if (event.eventType === 'run.terminal') terminalPositions.push(index);
    if (typeof event.sourceEventId !== 'string') return;
    if (positionById.has(event.sourceEventId)) return;
    positionById.set(event.sourceEventId, index);
    const tool = objectAt(objectAt(event, 'payload'), 'semantic_tool');
    if (tool !== undefined && typeof event.eventType === 'string') {
      envelopes.set(event.sourceEventId, { index, eventType: event.eventType, tool });
    }
  });
  return { positionById, envelopes, terminalPositions };
}

/** The event types whose envelope's correlation upstream's parser reads: the ones its semantic index holds. */
const CORRELATED_EVENT_TYPES: readonly string[] = [TOOL_INPUT_EVENT, TOOL_RESULT_EVENT];

/**
 * Every event of a tool event type carries a `semantic_tool` envelope, and the envelope of an
 * `mcp_app.tool_input` / `mcp_app.tool_result` event names the event it sits in (runId,
 * normalizedSessionId, turnId, itemId). That is upstream's parser (`semanticToolEnvelope`, called for
 * each indexed event — and every such event must be indexed): it never reads the correlation of a
 * `semantic_tool.*` event, or of an envelope on any other event, so neither is refused here (only
 * upstream's replay-fixture validator compares those, on fixtures, not on attempt bundles).
 */
function envelopeIssues(events: unknown[]): Issue[] {
  const issues: Issue[] = [];
  events.forEach((event, index) => {
    if (!isObject(event)) return;
    const tool = objectAt(objectAt(event, 'payload'), 'semantic_tool');
    if (tool === undefined) {
      if (typeof event.eventType === 'string' && TOOL_EVENT_TYPES.includes(event.eventType)) {
        const payload = objectAt(event, 'payload');
        issues.push({
          code: 'semantic_envelope_missing',
          message: `${event.eventType} event ${index} carries no payload.semantic_tool envelope, so no semantic index can see it`,
          path: pointer('events', index, 'payload', 'semantic_tool'),
          expected: 'a paperclip.prp.semantic_tool.v1 envelope',
          received: describe(payload?.semantic_tool),
        });
      }
      return;
    }
    if (typeof event.eventType !== 'string' || !CORRELATED_EVENT_TYPES.includes(event.eventType)) return;
    const correlation = objectAt(tool, 'correlation');
    if (correlation === undefined) return; // the schema refuses an envelope without one
    for (const field of CORRELATION_FIELDS) {
      if (correlation[field] === event[field]) continue;
      issues.push({
        code: 'semantic_correlation_mismatch',
        message: `the semantic_tool envelope of event ${index} names ${field} ${JSON.stringify(correlation[field])}, not its event's`,
        path: pointer('events', index, 'payload', 'semantic_tool', 'correlation', field),
        expected: describe(event[field]),
        received: describe(correlation[field]),
      });
    }
  });
  return issues;
}

/**
 * One call per callId and one result per callId; a result answers a call of the index, with the
 * same operationId.
 */
function callBindingIssues(bundle: Json): Issue[] {
  const semanticTools = objectAt(bundle, 'semanticTools');
  const calls = listAt(semanticTools, 'calls');
  const results = listAt(semanticTools, 'results');
  const callById = new Map<string, Json>();
  for (const call of calls) {
    if (isObject(call) && typeof call.callId === 'string' && !callById.has(call.callId))
      callById.set(call.callId, call);
  }
  const issues = [...duplicateCallIdIssues('calls', calls), ...duplicateCallIdIssues('results', results)];
  results.forEach((result, position) => {
    if (!isObject(result) || typeof result.callId !== 'string') return;
    const call = callById.get(result.callId);
    if (call === undefined) {
      issues.push({
        code: 'semantic_result_call_mismatch',
        message: `semanticTools.results[${position}] answers call ${JSON.stringify(result.callId)}, which semanticTools.calls does not hold`,
        path: pointer('semanticTools', 'results', position, 'callId'),
        expected: 'the callId of a semanticTools.calls entry',
        received: result.callId,
      });
    } else if (result.operationId !== call.operationId) {
      issues.push({
        code: 'semantic_result_call_mismatch',
        message: `semanticTools.results[${position}] names another operation than its call ${JSON.stringify(result.callId)}`,
        path: pointer('semanticTools', 'results', position, 'operationId'),
        expected: describe(call.operationId),
        received: describe(result.operationId),
      });
    }
  });
  return issues;
}

/**
 * Every call has a result of its callId, unless the run stopped before it could answer: the turn was
 * interrupted or cancelled, or the run cancelled (upstream's parser reads the bundle's terminal; a
 * differing run.terminal payload is terminal_mismatch). One issue per unanswered call, at the list
 * where its result is missing, as upstream's parser reports it.
 */
function unresolvedCallIssues(bundle: Json): Issue[] {
  const terminal = objectAt(bundle, 'terminal');
  if (terminal === undefined) return []; // the schema refuses a bundle without one
  const { turnTerminalState, runTerminalState } = terminal;
  if (
    turnTerminalState === 'interrupted' ||
    turnTerminalState === 'cancelled' ||
    runTerminalState === 'cancelled'
  )
    return [];
  const semanticTools = objectAt(bundle, 'semanticTools');
  const answered = new Set<unknown>(
    listAt(semanticTools, 'results').map((result) => (isObject(result) ? result.callId : undefined)),
  );
  const issues: Issue[] = [];
  listAt(semanticTools, 'calls').forEach((call, position) => {
    if (!isObject(call) || typeof call.callId !== 'string' || answered.has(call.callId)) return;
    issues.push({
      code: 'semantic_call_unresolved',
      message: `semanticTools.calls[${position}] (call ${JSON.stringify(call.callId)}) has no result, yet the turn ${String(turnTerminalState)} and the run ${String(runTerminalState)}: only an interrupted or cancelled turn, or a cancelled run, may leave a call unanswered`,
      path: '/semanticTools/results',
      expected: `a semanticTools.results entry with callId ${JSON.stringify(call.callId)}`,
      received: 'none',
    });
  });
  return issues;
}

/** A callId used by an earlier entry of the same list. */
function duplicateCallIdIssues(list: 'calls' | 'results', entries: unknown[]): Issue[] {
  const firstPosition = new Map<string, number>();
  const issues: Issue[] = [];
  entries.forEach((entry, position) => {
    if (!isObject(entry) || typeof entry.callId !== 'string') return;
    const earlier = firstPosition.get(entry.callId);
    if (earlier === undefined) {
      firstPosition.set(entry.callId, position);
      return;
    }
    issues.push({
      code: 'semantic_call_id_duplicate',
      message: `semanticTools.${list}[${position}] repeats the callId of semanticTools.${list}[${earlier}]`,
      path: pointer('semanticTools', list, position, 'callId'),
      expected: `a callId no other ${list} entry uses`,
      received: entry.callId,
    });
  });
  return issues;
}

function semanticIndexIssues(
  bundle: Json,
  events: unknown[],
  { positionById, envelopes }: EventIndex,
): Issue[] {
  const semanticTools = objectAt(bundle, 'semanticTools');
  if (semanticTools === undefined) return [];
  const issues: Issue[] = [];
  const indexedEvents = new Map<number, string>();
  /** Events an entry of the right list points at, envelope or not. */
  const referenced = new Set<number>();

  const checkList = (list: 'calls' | 'results', eventType: string, compared: readonly string[]): void => {
    listAt(semanticTools, list).forEach((entry, position) => {
      if (!isObject(entry)) return;
      const entryPath = `/semanticTools/${list}/${position}`; // no escaping needed: fixed tokens
      const eventId = entry.eventId;
      const envelope = typeof eventId === 'string' ? envelopes.get(eventId) : undefined;
      const target = typeof eventId === 'string' ? (positionById.get(eventId) ?? -1) : -1;
      if (target === -1) {
        issues.push({
          code: 'semantic_index_dangling',
          message: `semanticTools.${list}[${position}] points at no event`,
          path: `${entryPath}/eventId`,
          expected: `the sourceEventId of a ${eventType} event`,
          received: describe(eventId),
        });
        return;
      }
      const actualType = (events[target] as Json).eventType;
      if (actualType === eventType) referenced.add(target);
      if (envelope?.eventType !== eventType) {
        issues.push({
          code: 'semantic_index_wrong_event',
          message: `semanticTools.${list}[${position}] points at event ${target}, which is not a ${eventType} semantic tool envelope`,
          path: `${entryPath}/eventId`,
          expected: `a ${eventType} event carrying payload.semantic_tool`,
          received:
            envelope === undefined ? `${String(actualType)} without payload.semantic_tool` : actualType,
        });
        return;
      }
      const claimedBy = indexedEvents.get(envelope.index);
      if (claimedBy !== undefined) {
        issues.push({
          code: 'semantic_index_duplicate',
          message: `semanticTools.${list}[${position}] indexes event ${envelope.index} again`,
          path: `${entryPath}/eventId`,
          expected: 'one index entry per envelope',
          received: `also indexed by ${claimedBy}`,
        });
        return;
      }
      indexedEvents.set(envelope.index, entryPath);
      for (const field of compared) {
        if (!sameJson(entry[field], envelope.tool[field])) {
          issues.push({
            code: 'semantic_index_mismatch',
            message: `semanticTools.${list}[${position}].${field} reinterprets its envelope (event ${envelope.index})`,
            path: `${entryPath}/${field}`,
            expected: describe(envelope.tool[field]),
            received: describe(entry[field]),
          });
        }
      }
    });
  };
  checkList('calls', TOOL_INPUT_EVENT, ['callId', 'operationId']);
  checkList('results', TOOL_RESULT_EVENT, ['callId', 'operationId', 'outcome']);

  // Every tool input/result event is indexed, whether or not it carries an envelope.
  events.forEach((event, index) => {
    if (!isObject(event)) return;
    const list =
      event.eventType === TOOL_INPUT_EVENT
        ? 'calls'
        : event.eventType === TOOL_RESULT_EVENT
          ? 'results'
          : undefined;
    if (list === undefined || referenced.has(index)) return;
    // An event repeating an earlier sourceEventId is source_event_id_duplicate, not unindexed.
    if (typeof event.sourceEventId === 'string' && positionById.get(event.sourceEventId) !== index) return;
    issues.push({
      code: 'semantic_envelope_unindexed',
      message: `${String(event.eventType)} event ${index} has no semanticTools.${list} entry`,
      path: pointer('events', index),
      expected: `a semanticTools.${list} entry with this eventId`,
      received: 'none',
    });
  });
  return [...issues, ...unpairedResultIssues(envelopes)];
}

/** A tool result must answer a call the stream shows: an input envelope with the same callId. */
function unpairedResultIssues(envelopes: ReadonlyMap<string, Envelope>): Issue[] {
  const calledIds = new Set<unknown>();
  for (const envelope of envelopes.values()) {
    if (envelope.eventType === TOOL_INPUT_EVENT) calledIds.add(envelope.tool.callId);
  }
  const issues: Issue[] = [];
  for (const envelope of envelopes.values()) {
    if (envelope.eventType !== TOOL_RESULT_EVENT || calledIds.has(envelope.tool.callId)) continue;
    issues.push({
      code: 'semantic_result_unpaired',
      message: `${TOOL_RESULT_EVENT} event ${envelope.index} answers call ${JSON.stringify(envelope.tool.callId)}, which no ${TOOL_INPUT_EVENT} event made`,
      path: pointer('events', envelope.index, 'payload', 'semantic_tool', 'callId'),
      expected: `the callId of an earlier ${TOOL_INPUT_EVENT} event`,
      received: describe(envelope.tool.callId),
    });
  }
  return issues;
}

function denialIssues(bundle: Json, { envelopes }: EventIndex): Issue[] {
  const denials = listAt(objectAt(bundle, 'semanticTools'), 'denials');
  // Denial positions by (callId, code), so each denied result finds its receipt in constant time.
  const denialPositions = new Map<string, number[]>();
  denials.forEach((denial, position) => {
    if (!isObject(denial)) return;
    const key = denialKey(denial.callId, denial.code);
    denialPositions.set(key, [...(denialPositions.get(key) ?? []), position]);
  });
  const deniedResults = [...envelopes.values()].filter(
    (envelope) => envelope.eventType === TOOL_RESULT_EVENT && envelope.tool.outcome === 'denied',
  );
  const issues: Issue[] = [];
  const matched = new Set<number>();
  for (const result of deniedResults) {
    const { callId, code } = result.tool;
    const position = denialPositions.get(denialKey(callId, code))?.[0] ?? -1;
    if (position === -1) {
      issues.push({
        code: 'denial_missing',
        message: `denied result of call ${JSON.stringify(callId)} (event ${result.index}) has no matching denial`,
        path: pointer('events', result.index, 'payload', 'semantic_tool'),
        expected: `a semanticTools.denials entry with callId ${JSON.stringify(callId)} and code ${JSON.stringify(code)}`,
        received: 'none',
      });
      continue;
    }
    matched.add(position);
    const denial = denials[position] as Json;
    for (const field of ['authorizationBoundary', 'retryable']) {
      if (!sameJson(denial[field], result.tool[field])) {
        issues.push({
          code: 'denial_mismatch',
          message: `denial ${position}.${field} disagrees with the denied result (event ${result.index})`,
          path: pointer('semanticTools', 'denials', position, field),
          expected: describe(result.tool[field]),
          received: describe(denial[field]),
        });
      }
    }
  }
  denials.forEach((denial, position) => {
    if (matched.has(position)) return;
    issues.push({
      code: 'denial_orphaned',
      message: `denial ${position} matches no denied ${TOOL_RESULT_EVENT} (same callId and code)`,
      path: pointer('semanticTools', 'denials', position),
      expected: 'a denied result with the same callId and code',
      received: isObject(denial) ? { callId: denial.callId, code: denial.code } : denial,
    });
  });
  return issues;
}

function usageIssues(bundle: Json): Issue[] {
  const usage = objectAt(bundle, 'usage');
  if (usage === undefined) return [];
  const { inputTokens, outputTokens, totalTokens } = usage;
  if (typeof inputTokens !== 'number' || typeof outputTokens !== 'number' || typeof totalTokens !== 'number')
    return [];
  if (totalTokens === inputTokens + outputTokens) return [];
  return [
    {
      code: 'usage_total_mismatch',
      message: 'usage.totalTokens is not inputTokens + outputTokens',
      path: '/usage/totalTokens',
      expected: inputTokens + outputTokens,
      received: totalTokens,
    },
  ];
}

function transcriptIssues(bundle: Json, events: unknown[]): Issue[] {
  const transcript = objectAt(bundle, 'transcript');
  if (transcript === undefined) return [];
  const { complete, eventCount, omissionReason } = transcript;
  const hasReason = typeof omissionReason === 'string' && omissionReason.trim() !== '';
  if (complete === true) {
    const issues: Issue[] = [];
    if (typeof eventCount === 'number' && eventCount !== events.length) {
      issues.push({
        code: 'transcript_count_mismatch',
        message: 'a complete transcript must account for every event',
        path: '/transcript/eventCount',
        expected: events.length,
        received: eventCount,
      });
    }
    if (omissionReason !== null && omissionReason !== undefined) {
      issues.push({
        code: 'transcript_ambiguous',
        message: 'transcript says complete yet gives an omission reason',
        path: '/transcript/omissionReason',
        expected: null,
        received: omissionReason,
      });
    }
    return issues;
  }
  if (complete === false && !hasReason) {
    return [
      {
        code: 'transcript_ambiguous',
        message: 'an incomplete transcript must say what was omitted and why',
        path: '/transcript/omissionReason',
        expected: 'a non-empty omissionReason',
        received: describe(omissionReason),
      },
    ];
  }
  return [];
}

const denialKey = (callId: unknown, code: unknown): string => JSON.stringify([callId, code]);

/** Structural equality of two JSON values (key order ignored). */
function sameJson(left: unknown, right: unknown): boolean {
  if (left === right) return true;
  if (typeof left !== 'object' || typeof right !== 'object' || left === null || right === null) return false;
  if (Array.isArray(left) !== Array.isArray(right)) return false;
  const leftKeys = Object.keys(left);
  if (leftKeys.length !== Object.keys(right).length) return false;
  return leftKeys.every(
    (key) => Object.hasOwn(right, key) && sameJson((left as Json)[key], (right as Json)[key]),
  );
}
