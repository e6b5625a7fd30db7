// The App's own fail-closed parser of paperclip-runner/native-execution/v1 attempt bundles: the
// shipped JSON Schema, then the rules a schema cannot express (required text, the UTC timestamp
// shape, the semantic tool envelopes and their index, denials, totals, transcript). Every issue is
// reported.
import { readFile } from 'node:fs/promises';

import { protocolFileUrl } from '../assets.js';
import { PaperclipNativeExecutionError } from '../errors.js';
import { SCHEMA_IDS, schemaViolations } from '../schemas.js';

import type { PaperclipRunnerIssue } from '../errors.js';
import type { PrpEvent, PrpTerminal } from '../prp.js';
import type { SemanticToolDenial, SemanticToolOutcome } from '../semantic-tools.js';

type Json = Record<string, unknown>;

export interface NativeExecutionContentRef {
  readonly uri: string;
  readonly sha256: string;
  readonly byteSize: number;
  readonly mediaType: string;
  readonly [field: string]: unknown;
}

/** A parsed native-execution/v1 bundle; unknown additive fields are kept. */
export interface PaperclipNativeExecutionV1 {
  readonly schema: 'paperclip-runner/native-execution/v1';
  readonly provenance: 'seeded' | 'replay' | 'live';
  readonly identity: { runId: string; caseId: string; configId: string; attemptId: string };
  readonly input: { caseSha256: string; configSha256: string; deterministicSeed: string };
  readonly runner: {
    readonly package: { name: string; version: string };
    readonly binary: { name: string; sha256: string };
    readonly prpVersion: number;
    readonly nativeExecutionVersion: number;
    readonly catalogVersion: number;
    readonly catalogSha256: string;
    readonly driverContractVersion: number;
    readonly driverKind: string;
    readonly driverVersion: string;
  };
  readonly events: readonly PrpEvent[];
  readonly semanticTools: {
    readonly definitions: readonly Json[];
    readonly calls: readonly { callId: string; operationId: string; eventId: string }[];
    readonly results: readonly {
      callId: string;
      operationId: string;
      eventId: string;
      outcome: SemanticToolOutcome;
    }[];
    readonly denials: readonly SemanticToolDenial[];
  };
  readonly terminal: PrpTerminal;
  readonly observations: Json;
  readonly usage: {
    readonly inputTokens: number;
    readonly outputTokens: number;
    readonly totalTokens: number;
    readonly requestCount: number;
    readonly durationMs: number;
    readonly cost: { currency: string; amountMicros: number } | null;
    /** Eval-session cost figures (additive): integer nanodollars, each with its provenance. */
    readonly providerReportedCostNanodollars?: number | null;
    readonly providerReportedCostProvenance?: string;
    readonly estimatedCostNanodollars?: number | null;
    readonly pricingVersion?: string;
    readonly costCoverage?: 'provider_reported' | 'estimated' | 'unpriced' | 'legacy_ledger_and_estimate';
    readonly legacyLedgerCostNanodollars?: number | null;
  };
  readonly transcript: NativeExecutionContentRef & {
    readonly complete: boolean;
    readonly eventCount: number;
    readonly omissionReason: string | null;
  };
  readonly artifactRoot: NativeExecutionContentRef;
  readonly artifacts: readonly NativeExecutionContentRef[];
  readonly failure: { classification: string; code: string; message: string } | null;
  readonly [field: string]: unknown;
}

/** The native-execution/v1 JSON Schema this package ships. */
export const paperclipNativeExecutionSchemaUrl: URL = protocolFileUrl('schemas/native-execution.schema.json');
/** The no-spend seeded bundle this package ships. */
export const paperclipNativeExecutionFixtureUrl: URL = protocolFileUrl(
  'fixtures/evals/native-execution-seeded.json',
);

/** Reads a bundle (default: the seeded fixture), then parses it. */
export async function loadPaperclipNativeExecutionFixture(
  url: URL = paperclipNativeExecutionFixtureUrl,
): Promise<PaperclipNativeExecutionV1> {
  return parsePaperclipNativeExecution(JSON.parse(await readFile(url, 'utf8')));
}

/**
 * The bundle (an already parsed JSON value), unchanged, or a PaperclipNativeExecutionError
 * (`paperclip_native_execution_invalid`; `path` is the first issue's JSON pointer) with every issue.
 */
export function parsePaperclipNativeExecution(value: unknown): PaperclipNativeExecutionV1 {
  const issues: PaperclipRunnerIssue[] = schemaViolations(SCHEMA_IDS.nativeExecutionV1, value).map(
    (violation) => ({
      code: `schema_${violation.keyword}`,
      path: violation.path,
      message: violation.message,
    }),
  );
  if (issues.length === 0) issues.push(...invariantIssues(value as PaperclipNativeExecutionV1));
  if (issues.length > 0) {
    throw new PaperclipNativeExecutionError(
      `invalid native-execution bundle: ${issues.map((issue) => `${issue.code} at ${issue.path ?? ''}`).join('; ')}`,
      issues,
    );
  }
  return value as PaperclipNativeExecutionV1;
}

/**
 * Fields read as required text: a string with something left after `trim` (every Unicode
 * whitespace). Written as parent → field names; `*` is every item of an array.
 */
const REQUIRED_TEXT: readonly (readonly string[])[] = Object.entries({
  identity: ['runId', 'caseId', 'configId', 'attemptId'],
  input: ['deterministicSeed'],
  'runner.package': ['name', 'version'],
  'runner.binary': ['name'],
  runner: ['driverKind', 'driverVersion'],
  transcript: ['uri', 'mediaType'],
  artifactRoot: ['uri', 'mediaType'],
  'artifacts.*': ['uri', 'mediaType'],
  'usage.cost': ['currency'],
  failure: ['classification', 'code', 'message'],
  'semanticTools.definitions.*': ['operationId'],
  'semanticTools.calls.*': ['callId', 'operationId', 'eventId'],
  'semanticTools.results.*': ['callId', 'operationId', 'eventId', 'outcome'],
  'semanticTools.denials.*': ['callId', 'code', 'authorizationBoundary'],
}).flatMap(([parent, names]) => names.map((name) => [...parent.split('.'), name]));

/** The event types whose payload carries a semantic_tool envelope. */
const TOOL_EVENT_TYPES = new Set([
  'semantic_tool.input',
  'semantic_tool.result',
  'semantic_tool.reconciled',
  'mcp_app.tool_input',
  'mcp_app.tool_result',
]);

/** The tool event types the semantic index holds: the only ones whose envelope correlation is compared. */
const INDEXED_TOOL_EVENT_TYPES = new Set(['mcp_app.tool_input', 'mcp_app.tool_result']);

/** The PRP timestamp shape: UTC, upper-case T and Z, three fraction digits or none. */
const UTC_TIMESTAMP = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.\d{3})?Z$/;

const isText = (value: unknown): boolean => typeof value === 'string' && value.trim() !== '';

/** Every [pointer, value] a field path names; `*` walks an array, a non-object parent names nothing. */
function fieldValues(node: unknown, tokens: readonly string[], at = ''): [string, unknown][] {
  const [head, ...rest] = tokens;
  if (head === undefined) return [[at, node]];
  if (head === '*') {
    return Array.isArray(node)
      ? node.flatMap((item, index) => fieldValues(item, rest, `${at}/${index}`))
      : [];
  }
  if (typeof node !== 'object' || node === null || Array.isArray(node)) return [];
  return fieldValues((node as Json)[head], rest, `${at}/${head}`);
}

/** Whether a timestamp of the PRP shape names a real instant (a leap second only at 23:59:60). */
function isRealInstant(match: RegExpExecArray): boolean {
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1] ?? 0;
  return (
    day >= 1 &&
    day <= days &&
    hour <= 23 &&
    minute <= 59 &&
    (second <= 59 || (second === 60 && hour === 23 && minute === 59))
  );
}

function invariantIssues(bundle: PaperclipNativeExecutionV1): PaperclipRunnerIssue[] {
  const issues: PaperclipRunnerIssue[] = [];
  const issue = (code: string, path: string, message: string): void => {
    issues.push({ code, path, message });
  };
  const { events, semanticTools, usage, transcript } = bundle;

  for (const field of REQUIRED_TEXT) {
    for (const [path, value] of fieldValues(bundle, field)) {
      if (!isText(value)) issue('text_required', path, 'must be text, not empty after trimming whitespace');
    }
  }
  if (transcript.omissionReason !== null && !isText(transcript.omissionReason)) {
    issue('text_required', '/transcript/omissionReason', 'must be null or text');
  }

  const positions = new Map<string, number>();
  const terminals: number[] = [];
  events.forEach((event, index) => {
    if (event.runId !== bundle.identity.runId) {
      issue('event_run_mismatch', `/events/${index}/runId`, `event ${index} belongs to another run`);
    }
    if (positions.has(event.sourceEventId)) {
      issue(
        'event_id_duplicate',
        `/events/${index}/sourceEventId`,
        `sourceEventId repeats event ${String(positions.get(event.sourceEventId))}`,
      );
    } else positions.set(event.sourceEventId, index);
    if (event.eventType === 'run.terminal') terminals.push(index);
    for (const field of ['emittedAt', 'observedAt'] as const) {
      const value = event[field];
      if (value === undefined) continue;
      const match = UTC_TIMESTAMP.exec(value);
      if (match === null) {
        issue('timestamp_invalid', `/events/${index}/${field}`, 'must be YYYY-MM-DDTHH:MM:SS[.sss]Z');
      } else if (!isRealInstant(match)) {
        issue('timestamp_impossible', `/events/${index}/${field}`, 'names no real instant');
      }
    }
    const tool = envelopeOf(event);
    if (tool === undefined) {
      if (TOOL_EVENT_TYPES.has(event.eventType)) {
        issue(
          'semantic_envelope_missing',
          `/events/${index}/payload/semantic_tool`,
          'a tool event carries an envelope',
        );
      }
      return;
    }
    // Only an indexed tool event's envelope names its event (upstream's semanticToolEnvelope); the
    // correlation of a semantic_tool.* event, or of an envelope elsewhere, is not read.
    if (!INDEXED_TOOL_EVENT_TYPES.has(event.eventType)) return;
    const correlation = tool.correlation as Json;
    for (const field of ['runId', 'normalizedSessionId', 'turnId', 'itemId'] as const) {
      if (correlation[field] !== event[field]) {
        issue(
          'semantic_correlation_mismatch',
          `/events/${index}/payload/semantic_tool/correlation/${field}`,
          `must equal the event's ${field}`,
        );
      }
    }
  });

  const [terminalAt, ...extra] = terminals;
  if (terminalAt === undefined) issue('terminal_event_missing', '/events', 'no run.terminal event');
  for (const index of extra)
    issue('terminal_event_multiple', `/events/${index}`, 'a second run.terminal event');
  if (terminalAt !== undefined && !sameJson(events[terminalAt]?.payload, bundle.terminal)) {
    issue('terminal_mismatch', '/terminal', `terminal differs from the run.terminal event ${terminalAt}`);
  }

  const indexed = new Set<number>();
  const referenced = new Set<number>();
  const checkIndex = (list: 'calls' | 'results', eventType: string, fields: readonly string[]): void => {
    const callIds = new Map<unknown, number>();
    semanticTools[list].forEach((entry: Json, position) => {
      const path = `/semanticTools/${list}/${position}`;
      const earlier = callIds.get(entry.callId);
      if (earlier !== undefined) {
        issue('semantic_call_id_duplicate', `${path}/callId`, `callId repeats ${list}[${earlier}]`);
      } else callIds.set(entry.callId, position);
      const at = typeof entry.eventId === 'string' ? positions.get(entry.eventId) : undefined;
      if (at !== undefined && events[at]?.eventType === eventType) referenced.add(at);
      const tool = at === undefined ? undefined : envelopeOf(events[at]);
      if (at === undefined || tool === undefined || events[at]?.eventType !== eventType) {
        issue('semantic_index_invalid', `${path}/eventId`, `does not point at a ${eventType} envelope`);
      } else if (indexed.has(at)) {
        issue('semantic_index_duplicate', `${path}/eventId`, `event ${at} is indexed twice`);
      } else {
        indexed.add(at);
        for (const field of fields) {
          if (!sameJson(entry[field], tool[field])) {
            issue('semantic_index_mismatch', `${path}/${field}`, `${field} reinterprets event ${at}`);
          }
        }
      }
    });
  };
  checkIndex('calls', 'mcp_app.tool_input', ['callId', 'operationId']);
  checkIndex('results', 'mcp_app.tool_result', ['callId', 'operationId', 'outcome']);
  const calls = new Map<unknown, Json>();
  for (const call of semanticTools.calls as readonly Json[])
    if (!calls.has(call.callId)) calls.set(call.callId, call);
  (semanticTools.results as readonly Json[]).forEach((result, position) => {
    const call = calls.get(result.callId);
    if (call === undefined) {
      issue('semantic_result_call_mismatch', `/semanticTools/results/${position}/callId`, 'answers no call');
    } else if (call.operationId !== result.operationId) {
      issue(
        'semantic_result_call_mismatch',
        `/semanticTools/results/${position}/operationId`,
        "differs from its call's operationId",
      );
    }
  });

  // Every call is answered unless the run stopped before it could be: an interrupted or cancelled
  // turn, or a cancelled run (upstream's later parser).
  const { turnTerminalState, runTerminalState } = bundle.terminal;
  if (
    turnTerminalState !== 'interrupted' &&
    turnTerminalState !== 'cancelled' &&
    runTerminalState !== 'cancelled'
  ) {
    const answered = new Set((semanticTools.results as readonly Json[]).map((result) => result.callId));
    (semanticTools.calls as readonly Json[]).forEach((call, position) => {
      if (!answered.has(call.callId))
        issue(
          'semantic_call_unresolved',
          '/semanticTools/results',
          `semanticTools.calls[${position}] has no result, yet the turn is ${turnTerminalState} and the run ${runTerminalState}`,
        );
    });
  }

  const denials = new Map<string, number>();
  semanticTools.denials.forEach((denial, position) =>
    denials.set(denialKey(denial.callId, denial.code), position),
  );
  const matchedDenials = new Set<number>();
  events.forEach((event, index) => {
    if (
      (event.eventType === 'mcp_app.tool_input' || event.eventType === 'mcp_app.tool_result') &&
      !referenced.has(index) &&
      positions.get(event.sourceEventId) === index
    ) {
      issue(
        'semantic_envelope_unindexed',
        `/events/${index}`,
        `${event.eventType} event ${index} is not indexed`,
      );
    }
    const tool = envelopeOf(event);
    if (tool === undefined || event.eventType !== 'mcp_app.tool_result' || tool.outcome !== 'denied') return;
    const position = denials.get(denialKey(tool.callId, tool.code));
    if (position === undefined) {
      issue(
        'denial_missing',
        `/events/${index}/payload/semantic_tool`,
        'denied result without a matching denial',
      );
      return;
    }
    matchedDenials.add(position);
    const denial = semanticTools.denials[position] as unknown as Json;
    for (const field of ['authorizationBoundary', 'retryable']) {
      if (!sameJson(denial[field], tool[field])) {
        issue(
          'denial_mismatch',
          `/semanticTools/denials/${position}/${field}`,
          `${field} disagrees with event ${index}`,
        );
      }
    }
  });
  semanticTools.denials.forEach((_denial, position) => {
    if (!matchedDenials.has(position)) {
      issue(
        'denial_orphaned',
        `/semanticTools/denials/${position}`,
        'no denied result has this callId and code',
      );
    }
  });

  if (usage.totalTokens !== usage.inputTokens + usage.outputTokens) {
    issue('usage_total_mismatch', '/usage/totalTokens', 'totalTokens is not inputTokens + outputTokens');
  }
  costIssues(usage, issue);
  if (transcript.complete) {
    if (transcript.eventCount !== events.length) {
      issue('transcript_count_mismatch', '/transcript/eventCount', 'a complete transcript holds every event');
    }
    if (transcript.omissionReason !== null) {
      issue('transcript_ambiguous', '/transcript/omissionReason', 'a complete transcript omits nothing');
    }
  } else if (transcript.omissionReason === null || transcript.omissionReason.trim() === '') {
    issue(
      'transcript_ambiguous',
      '/transcript/omissionReason',
      'an incomplete transcript must say what it omits',
    );
  }
  return issues;
}

/** The eval-session cost figures agree with the receipt and with each other (when present). */
function costIssues(
  usage: PaperclipNativeExecutionV1['usage'],
  issue: (code: string, path: string, message: string) => void,
): void {
  const { cost, providerReportedCostNanodollars: provider, estimatedCostNanodollars: estimate } = usage;
  const usdReceipt = cost !== null && cost.currency === 'USD' ? cost.amountMicros * 1000 : null;
  if (typeof provider === 'number' && usdReceipt !== null && provider !== usdReceipt) {
    issue(
      'usage_cost_receipt_mismatch',
      '/usage/providerReportedCostNanodollars',
      'the provider figure is not usage.cost.amountMicros × 1000',
    );
  }
  if (typeof estimate === 'number' && usage.pricingVersion === undefined) {
    issue('usage_cost_pricing_version_missing', '/usage/pricingVersion', 'an estimate names its price list');
  }
  if (usage.costCoverage === undefined) return;
  const implied =
    typeof provider === 'number' || usdReceipt !== null
      ? 'provider_reported'
      : typeof estimate !== 'number'
        ? 'unpriced'
        : 'estimated';
  // Seed 001: a legacy ledger amount is kept apart and never prices the attempt, so an estimate
  // beside one is `estimated`; older runners said `legacy_ledger_and_estimate`, which needs the amount.
  const allowed =
    implied === 'estimated' && typeof usage.legacyLedgerCostNanodollars === 'number'
      ? ['estimated', 'legacy_ledger_and_estimate']
      : [implied];
  if (!allowed.includes(usage.costCoverage)) {
    issue(
      'usage_cost_coverage_mismatch',
      '/usage/costCoverage',
      `the cost figures say ${allowed.join(' or ')}`,
    );
  }
}

function envelopeOf(event: PrpEvent | undefined): Json | undefined {
  const tool = event?.payload.semantic_tool;
  return typeof tool === 'object' && tool !== null && !Array.isArray(tool) ? (tool as Json) : undefined;
}

const denialKey = (callId: unknown, code: unknown): string => JSON.stringify([callId, code]);

function sameJson(left: unknown, right: unknown): boolean {
  if (left === right) return true;
  if (typeof left !== 'object' || typeof right !== 'object' || left === null || right === null) return false;
  if (Array.isArray(left) !== Array.isArray(right)) return false;
  const keys = Object.keys(left);
  return (
    keys.length === Object.keys(right).length &&
    keys.every((key) => Object.hasOwn(right, key) && sameJson((left as Json)[key], (right as Json)[key]))
  );
}
