// The mutation table of the native-execution/v1 parser: named ways to break a valid bundle, each
// naming the fail-closed rule that must refuse it. Tests run every row through the real parser;
// scripts/attempts/generate-examples.ts writes each row's output as an example of a broken attempt.
import type { JsonTextLimits, NativeExecutionRuleCode } from '@paperclip-evals/contract';

/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-return --
   each row pokes at one arbitrary place of a bundle; typing every shape would hide what it breaks. */
type Json = Record<string, any>;

export interface MutationRow {
  /** Kebab-case name; also the broken example's file name. */
  readonly name: string;
  /** The rule code that must appear among the parser's issues. */
  readonly rule: NativeExecutionRuleCode;
  /** The JSON pointer that issue must carry. */
  readonly path: string;
  /** Structural mutation of a deep copy of the valid bundle… */
  readonly mutate?: (bundle: Json) => unknown;
  /** …or a mutation of its pretty-printed bytes (text-level rules). */
  readonly mutateText?: (text: string) => Uint8Array | string;
  /** Why upstream's schema accepts what ours refuses (an additive field Evals types), if it does. */
  readonly stricterThanUpstream?: string;
  /** Parser limits for this row, where the rule is about a limit. */
  readonly limits?: JsonTextLimits;
}

const events = (bundle: Json): Json[] => bundle.events as Json[];
const nth = (bundle: Json, eventType: string, index = 0): Json => {
  const found = events(bundle).filter((event) => event.eventType === eventType)[index];
  if (found === undefined) throw new Error(`the base bundle has no ${eventType} #${index}`);
  return found;
};
const indexOf = (bundle: Json, eventType: string, index = 0): number =>
  events(bundle).indexOf(nth(bundle, eventType, index));
const UPPER_DIGEST = `sha256:${'AB'.repeat(32)}`;

/** The valid bundle the rows mutate: two tool calls (the first denied), one progress event between. */
export const MUTATION_BASE_OPTIONS = {
  toolCalls: 2,
  deniedCalls: 1,
  progressEvents: 1,
  fillerBytes: 48,
} as const;

export const MUTATIONS: readonly MutationRow[] = [
  // Text level.
  {
    name: 'input-too-large',
    rule: 'input_too_large',
    path: '',
    limits: { maxBytes: 1024 },
    mutateText: (t) => t,
  },
  { name: 'byte-order-mark', rule: 'text_bom', path: '', mutateText: (t) => `\uFEFF${t}` },
  {
    name: 'not-utf8',
    rule: 'text_not_utf8',
    path: '',
    mutateText: (t) => {
      const bytes = Buffer.from(t, 'utf8');
      const at = bytes.indexOf('seeded');
      return Buffer.concat([bytes.subarray(0, at), Buffer.from([0xc3, 0x28]), bytes.subarray(at)]);
    },
  },
  { name: 'empty', rule: 'json_empty', path: '', mutateText: () => '' },
  { name: 'whitespace-only', rule: 'json_empty', path: '', mutateText: () => ' \n\t\n' },
  {
    name: 'truncated-in-object',
    rule: 'json_truncated',
    path: '',
    mutateText: (t) => t.slice(0, t.lastIndexOf('"failure"')),
  },
  {
    name: 'truncated-in-string',
    rule: 'json_truncated',
    path: '',
    mutateText: (t) => t.slice(0, t.indexOf('"run_') + 3),
  },
  {
    name: 'trailing-comma',
    rule: 'json_syntax',
    path: '',
    mutateText: (t) => t.replace(/\n}\s*$/, ',\n}\n'),
  },
  { name: 'top-level-array', rule: 'json_not_object', path: '', mutateText: (t) => `[${t}]` },
  {
    name: 'too-deep',
    rule: 'json_too_deep',
    path: '',
    mutateText: (t) => t.replace('{', `{"x_deep": ${'['.repeat(80)}${']'.repeat(80)},`),
  },
  {
    name: 'duplicate-root-key',
    rule: 'json_duplicate_key',
    path: '/provenance',
    mutateText: (t) => t.replace('{', '{\n  "provenance": "live",'),
  },
  {
    name: 'duplicate-nested-key',
    rule: 'json_duplicate_key',
    path: '/usage/totalTokens',
    mutateText: (t) => t.replace('"totalTokens":', '"totalTokens": 0, "totalTokens":'),
  },
  {
    name: 'lone-surrogate',
    rule: 'json_lone_surrogate',
    path: '/x_note',
    mutateText: (t) => t.replace('{', '{"x_note": "half a pair: \\ud83d",'),
  },

  {
    name: 'token-count-beyond-2-53',
    rule: 'json_number_unsafe',
    path: '/usage/inputTokens',
    mutateText: (t) => t.replace(/"inputTokens": \d+/, '"inputTokens": 9007199254740993'),
  },
  {
    name: 'cost-overflows-to-infinity',
    rule: 'json_number_unsafe',
    path: '/usage/cost/amountMicros',
    mutateText: (t) => t.replace(/"amountMicros": \d+/, '"amountMicros": 1e400'),
  },

  // Declared schema and provenance.
  {
    name: 'schema-missing',
    rule: 'native_schema_unknown',
    path: '/schema',
    mutate: (b) => delete b.schema,
  },
  {
    name: 'schema-v2',
    rule: 'native_schema_unknown',
    path: '/schema',
    mutate: (b) => (b.schema = 'paperclip-runner/native-execution/v2'),
  },
  {
    name: 'provenance-unknown',
    rule: 'provenance_unknown',
    path: '/provenance',
    mutate: (b) => (b.provenance = 'recorded'),
  },
  {
    name: 'provenance-missing',
    rule: 'provenance_unknown',
    path: '/provenance',
    mutate: (b) => delete b.provenance,
  },

  // Digests, everywhere.
  {
    name: 'case-digest-uppercase',
    rule: 'digest_malformed',
    path: '/input/caseSha256',
    mutate: (b) => (b.input.caseSha256 = UPPER_DIGEST),
  },
  {
    name: 'config-digest-no-prefix',
    rule: 'digest_malformed',
    path: '/input/configSha256',
    mutate: (b) => (b.input.configSha256 = String(b.input.configSha256).slice('sha256:'.length)),
  },
  {
    name: 'binary-digest-63-hex',
    rule: 'digest_malformed',
    path: '/runner/binary/sha256',
    mutate: (b) => (b.runner.binary.sha256 = String(b.runner.binary.sha256).slice(0, -1)),
  },
  {
    name: 'catalog-digest-65-hex',
    rule: 'digest_malformed',
    path: '/runner/catalogSha256',
    mutate: (b) => (b.runner.catalogSha256 = `${String(b.runner.catalogSha256)}0`),
  },
  {
    name: 'transcript-digest-not-hex',
    rule: 'digest_malformed',
    path: '/transcript/sha256',
    mutate: (b) => (b.transcript.sha256 = `sha256:${'g'.repeat(64)}`),
  },
  {
    name: 'artifact-root-digest-number',
    rule: 'digest_malformed',
    path: '/artifactRoot/sha256',
    mutate: (b) => (b.artifactRoot.sha256 = 42),
  },
  {
    name: 'artifact-digest-uppercase',
    rule: 'digest_malformed',
    path: '/artifacts/0/sha256',
    mutate: (b) => (b.artifacts[0].sha256 = UPPER_DIGEST),
  },
  {
    name: 'tool-content-digest-sha512',
    rule: 'digest_malformed',
    path: '/events/2/payload/semantic_tool/content/digest',
    mutate: (b) =>
      (nth(b, 'mcp_app.tool_input').payload.semantic_tool.content.digest = `sha512:${'0'.repeat(128)}`),
  },

  // Required text (upstream's text(): empty after JS trim, which removes every Unicode whitespace).
  {
    name: 'attempt-id-missing',
    rule: 'text_required',
    path: '/identity/attemptId',
    mutate: (b) => delete b.identity.attemptId,
  },
  {
    name: 'case-id-nbsp',
    rule: 'text_required',
    path: '/identity/caseId',
    mutate: (b) => (b.identity.caseId = '\u00a0'),
  },
  {
    name: 'call-id-blank',
    rule: 'text_required',
    path: '/semanticTools/calls/0/callId',
    mutate: (b) => (b.semanticTools.calls[0].callId = ' \t'),
  },
  {
    name: 'denial-code-byte-order-mark',
    rule: 'text_required',
    path: '/semanticTools/denials/0/code',
    mutate: (b) => (b.semanticTools.denials[0].code = '\ufeff\u3000'),
  },
  {
    name: 'definition-empty',
    rule: 'text_required',
    path: '/semanticTools/definitions/0/operationId',
    mutate: (b) => (b.semanticTools.definitions[0] = {}),
  },

  // Timestamps: upstream's date-time format, and real instants.
  {
    name: 'emitted-at-offset',
    rule: 'timestamp_invalid',
    path: '/events/0/emittedAt',
    mutate: (b) => (events(b)[0]!.emittedAt = '2026-11-01T13:00:00.010+01:00'),
  },
  {
    name: 'observed-at-space-separator',
    rule: 'timestamp_invalid',
    path: '/events/1/observedAt',
    mutate: (b) => (events(b)[1]!.observedAt = '2026-11-01 12:00:00.020Z'),
  },
  {
    name: 'emitted-at-microseconds',
    rule: 'timestamp_invalid',
    path: '/events/2/emittedAt',
    mutate: (b) => (events(b)[2]!.emittedAt = '2026-11-01T12:00:00.030000Z'),
  },
  {
    name: 'emitted-at-february-30',
    rule: 'timestamp_impossible',
    path: '/events/3/emittedAt',
    mutate: (b) => (events(b)[3]!.emittedAt = '2026-02-30T12:00:00.040Z'),
  },

  // Events against the attempt.
  {
    name: 'event-from-another-run',
    rule: 'event_run_mismatch',
    path: '/events/1/runId',
    mutate: (b) => (events(b)[1]!.runId = 'run_somebody_else'),
  },
  {
    name: 'source-seq-repeated',
    rule: 'source_seq_not_increasing',
    path: '/events/4/sourceSeq',
    mutate: (b) => (events(b)[4]!.sourceSeq = events(b)[3]!.sourceSeq),
  },
  {
    name: 'source-seq-backwards',
    rule: 'source_seq_not_increasing',
    path: '/events/2/sourceSeq',
    mutate: (b) => (events(b)[2]!.sourceSeq = 1),
  },
  {
    name: 'source-event-id-duplicate',
    rule: 'source_event_id_duplicate',
    path: '/events/4/sourceEventId',
    mutate: (b) => (events(b)[4]!.sourceEventId = events(b)[1]!.sourceEventId),
  },

  // Terminal.
  {
    name: 'terminal-event-missing',
    rule: 'terminal_event_missing',
    path: '/events',
    mutate: (b) => events(b).splice(indexOf(b, 'run.terminal'), 1),
  },
  {
    name: 'terminal-event-twice',
    rule: 'terminal_event_multiple',
    path: '/events/9/eventType',
    mutate: (b) => {
      const terminal = nth(b, 'run.terminal');
      events(b).push({
        ...terminal,
        sourceEventId: `${String(terminal.sourceEventId)}_again`,
        sourceSeq: Number(terminal.sourceSeq) + 1,
      });
    },
  },
  {
    name: 'terminal-state-differs',
    rule: 'terminal_mismatch',
    path: '/terminal/runTerminalState',
    mutate: (b) => (b.terminal.runTerminalState = 'failed'),
  },
  {
    name: 'terminal-extra-field',
    rule: 'terminal_mismatch',
    path: '/terminal/statusDecisionId',
    mutate: (b) => (b.terminal.statusDecisionId = 'decision_only_in_bundle'),
  },

  // Semantic tool index against the PRP envelopes.
  {
    name: 'call-unindexed',
    rule: 'semantic_envelope_unindexed',
    path: '/events/5',
    mutate: (b) => b.semanticTools.calls.splice(1, 1),
  },
  {
    name: 'result-unindexed',
    rule: 'semantic_envelope_unindexed',
    path: '/events/6',
    mutate: (b) => b.semanticTools.results.splice(1, 1),
  },
  {
    name: 'call-points-nowhere',
    rule: 'semantic_index_dangling',
    path: '/semanticTools/calls/0/eventId',
    mutate: (b) => (b.semanticTools.calls[0].eventId = 'no_such_event'),
  },
  {
    name: 'call-points-at-result',
    rule: 'semantic_index_wrong_event',
    path: '/semanticTools/calls/1/eventId',
    mutate: (b) => (b.semanticTools.calls[1].eventId = nth(b, 'mcp_app.tool_result', 1).sourceEventId),
  },
  {
    name: 'result-points-at-progress',
    rule: 'semantic_index_wrong_event',
    path: '/semanticTools/results/1/eventId',
    mutate: (b) => (b.semanticTools.results[1].eventId = nth(b, 'item.delta').sourceEventId),
  },
  {
    name: 'result-indexed-twice',
    rule: 'semantic_index_duplicate',
    path: '/semanticTools/results/2/eventId',
    mutate: (b) => b.semanticTools.results.push({ ...b.semanticTools.results[1] }),
  },
  {
    name: 'call-operation-reinterpreted',
    rule: 'semantic_index_mismatch',
    path: '/semanticTools/calls/1/operationId',
    mutate: (b) => (b.semanticTools.calls[1].operationId = 'delete_document'),
  },
  {
    name: 'result-call-id-reinterpreted',
    rule: 'semantic_index_mismatch',
    path: '/semanticTools/results/1/callId',
    mutate: (b) => (b.semanticTools.results[1].callId = 'call_other'),
  },
  {
    name: 'denied-result-indexed-as-succeeded',
    rule: 'semantic_index_mismatch',
    path: '/semanticTools/results/0/outcome',
    mutate: (b) => (b.semanticTools.results[0].outcome = 'succeeded'),
  },

  {
    name: 'tool-result-envelope-removed',
    rule: 'semantic_envelope_missing',
    path: '/events/3/payload/semantic_tool',
    mutate: (b) => {
      // The denied result leaves the semantic index with its envelope, entry and denial.
      delete nth(b, 'mcp_app.tool_result').payload.semantic_tool;
      b.semanticTools.results.splice(0, 1);
      b.semanticTools.denials = [];
    },
  },
  {
    name: 'semantic-tool-input-without-envelope',
    rule: 'semantic_envelope_missing',
    path: '/events/1/payload/semantic_tool',
    mutate: (b) => (events(b)[1]!.eventType = 'semantic_tool.input'),
  },
  {
    name: 'correlation-turn-differs',
    rule: 'semantic_correlation_mismatch',
    path: '/events/2/payload/semantic_tool/correlation/turnId',
    mutate: (b) => (nth(b, 'mcp_app.tool_input').payload.semantic_tool.correlation.turnId = 'turn_other'),
  },
  {
    name: 'call-id-shared',
    rule: 'semantic_call_id_duplicate',
    path: '/semanticTools/calls/1/callId',
    mutate: (b) => (b.semanticTools.calls[1].callId = b.semanticTools.calls[0].callId),
  },
  {
    name: 'result-call-id-shared',
    rule: 'semantic_call_id_duplicate',
    path: '/semanticTools/results/1/callId',
    mutate: (b) => (b.semanticTools.results[1].callId = b.semanticTools.results[0].callId),
  },
  {
    name: 'result-operation-differs-from-call',
    rule: 'semantic_result_call_mismatch',
    path: '/semanticTools/results/1/operationId',
    mutate: (b) => {
      // The result and its envelope agree with each other, not with the call.
      nth(b, 'mcp_app.tool_result', 1).payload.semantic_tool.operationId = 'write_document';
      b.semanticTools.results[1].operationId = 'write_document';
    },
  },
  {
    name: 'call-unanswered-run-succeeded',
    rule: 'semantic_call_unresolved',
    path: '/semanticTools/results',
    mutate: (b) => {
      // The second call's result leaves the stream and the index; the turn still says completed.
      const result = nth(b, 'mcp_app.tool_result', 1);
      b.events = events(b).filter((event) => event !== result);
      b.semanticTools.results = b.semanticTools.results.filter(
        (entry: Json) => entry.eventId !== result.sourceEventId,
      );
      b.transcript.eventCount = events(b).length;
    },
  },
  {
    name: 'result-without-call',
    rule: 'semantic_result_unpaired',
    path: '/events/6/payload/semantic_tool/callId',
    mutate: (b) => {
      nth(b, 'mcp_app.tool_result', 1).payload.semantic_tool.callId = 'call_never_made';
      b.semanticTools.results[1].callId = 'call_never_made';
    },
  },

  // Denials.
  {
    name: 'denial-missing',
    rule: 'denial_missing',
    path: '/events/3/payload/semantic_tool',
    mutate: (b) => (b.semanticTools.denials = []),
  },
  {
    name: 'denial-code-differs',
    rule: 'denial_missing',
    path: '/events/3/payload/semantic_tool',
    mutate: (b) => (b.semanticTools.denials[0].code = 'other_code'),
  },
  {
    name: 'denial-without-denied-result',
    rule: 'denial_orphaned',
    path: '/semanticTools/denials/1',
    mutate: (b) =>
      b.semanticTools.denials.push({
        callId: b.semanticTools.calls[1].callId,
        code: 'required_claim_missing',
        authorizationBoundary: 'grant',
        retryable: false,
      }),
  },
  {
    name: 'denial-retryable-differs',
    rule: 'denial_mismatch',
    path: '/semanticTools/denials/0/retryable',
    mutate: (b) => (b.semanticTools.denials[0].retryable = true),
  },

  // Usage and cost.
  {
    name: 'total-tokens-off-by-one',
    rule: 'usage_total_mismatch',
    path: '/usage/totalTokens',
    mutate: (b) => (b.usage.totalTokens = Number(b.usage.totalTokens) + 1),
  },
  {
    name: 'input-tokens-negative',
    rule: 'usage_count_invalid',
    path: '/usage/inputTokens',
    mutate: (b) => (b.usage.inputTokens = -1),
  },
  {
    name: 'request-count-fractional',
    rule: 'usage_count_invalid',
    path: '/usage/requestCount',
    mutate: (b) => (b.usage.requestCount = 1.5),
  },
  {
    name: 'cost-micros-negative',
    rule: 'cost_micros_invalid',
    path: '/usage/cost/amountMicros',
    mutate: (b) => (b.usage.cost.amountMicros = -5),
  },
  {
    name: 'cost-micros-fractional',
    rule: 'cost_micros_invalid',
    path: '/usage/cost/amountMicros',
    mutate: (b) => (b.usage.cost.amountMicros = 12.5),
  },
  {
    name: 'cost-estimate-nanodollars-negative',
    stricterThanUpstream: 'eval-session cost figures are additive upstream; Evals types them',
    rule: 'cost_nanodollars_invalid',
    path: '/usage/estimatedCostNanodollars',
    mutate: (b) => (b.usage.estimatedCostNanodollars = -1),
  },
  {
    name: 'cost-coverage-unknown',
    stricterThanUpstream: 'eval-session cost figures are additive upstream; Evals types them',
    rule: 'cost_field_invalid',
    path: '/usage/costCoverage',
    mutate: (b) => (b.usage.costCoverage = 'free'),
  },
  {
    name: 'cost-legacy-ledger-nanodollars-text',
    stricterThanUpstream: 'eval-session cost figures are additive upstream; Evals types them',
    rule: 'cost_nanodollars_invalid',
    path: '/usage/legacyLedgerCostNanodollars',
    mutate: (b) => (b.usage.legacyLedgerCostNanodollars = '0'),
  },

  // Transcript accounting.
  {
    name: 'transcript-count-differs',
    rule: 'transcript_count_mismatch',
    path: '/transcript/eventCount',
    mutate: (b) => (b.transcript.eventCount = Number(b.transcript.eventCount) + 1),
  },
  {
    name: 'incomplete-without-reason',
    rule: 'transcript_ambiguous',
    path: '/transcript/omissionReason',
    mutate: (b) => (b.transcript.complete = false),
  },
  {
    name: 'incomplete-blank-reason',
    rule: 'transcript_ambiguous',
    path: '/transcript/omissionReason',
    mutate: (b) => Object.assign(b.transcript, { complete: false, omissionReason: '   ' }),
  },
  {
    name: 'complete-with-reason',
    rule: 'transcript_ambiguous',
    path: '/transcript/omissionReason',
    mutate: (b) => (b.transcript.omissionReason = 'provider dropped 3 events'),
  },

  // Anything else the schema refuses.
  { name: 'no-events', rule: 'schema_violation', path: '/events', mutate: (b) => (b.events = []) },
  {
    name: 'tool-result-without-outcome',
    rule: 'schema_violation',
    path: '/events/6/payload/semantic_tool/outcome',
    mutate: (b) => delete nth(b, 'mcp_app.tool_result', 1).payload.semantic_tool.outcome,
  },
];

/** A named change to a valid bundle that upstream's parser accepts, so ours must accept it too. */
export interface AcceptedVariant {
  readonly name: string;
  /** Which of upstream's rules (or which absence of one) makes it valid. */
  readonly why: string;
  readonly mutate: (bundle: Json) => unknown;
}

/** Tool event types whose envelope upstream's parser never reads (nothing indexes them). */
export const UNINDEXED_TOOL_EVENT_TYPES = [
  'semantic_tool.input',
  'semantic_tool.result',
  'semantic_tool.reconciled',
] as const;

const CORRELATION_FIELDS = ['runId', 'normalizedSessionId', 'turnId', 'itemId'] as const;

/**
 * Appends a `semantic_tool.*` event to `bundle`: a copy of its first `mcp_app.tool_input` (for
 * `.input`) or `mcp_app.tool_result` (for `.result` and `.reconciled`) event with the envelope's
 * phase set to match, a fresh sourceEventId and the next sourceSeq; a complete transcript counts it.
 * Returns the new event.
 */
export function appendUnindexedToolEvent(
  bundle: Json,
  eventType: (typeof UNINDEXED_TOOL_EVENT_TYPES)[number],
): Json {
  const list = events(bundle);
  const source = nth(
    bundle,
    eventType === 'semantic_tool.input' ? 'mcp_app.tool_input' : 'mcp_app.tool_result',
  );
  const copy: Json = structuredClone(source);
  copy.eventType = eventType;
  copy.sourceEventId = `${String(source.sourceEventId)}_${eventType.replace('.', '_')}`;
  copy.sourceSeq = Math.max(...list.map((event) => Number(event.sourceSeq))) + 1;
  copy.payload.semantic_tool.phase = eventType.slice('semantic_tool.'.length);
  list.push(copy);
  if (bundle.transcript.complete === true) bundle.transcript.eventCount = list.length;
  return copy;
}

/**
 * Variants of the valid base bundle that upstream's parser (`parsePaperclipNativeExecution`) accepts
 * and so must ours: it compares a semantic_tool envelope's correlation with its event only for the
 * `mcp_app.tool_input` / `mcp_app.tool_result` events its semantic index holds (`semanticToolEnvelope`).
 */
export const ACCEPTED_VARIANTS: readonly AcceptedVariant[] = [
  ...UNINDEXED_TOOL_EVENT_TYPES.flatMap((eventType) => [
    {
      name: `${eventType}-event`,
      why: `a ${eventType} event is not indexed, and upstream's parser does not require it to be`,
      mutate: (b: Json) => appendUnindexedToolEvent(b, eventType),
    },
    ...CORRELATION_FIELDS.map((field) => ({
      name: `${eventType}-correlation-${field}-differs`,
      why: `upstream's parser never reads the correlation of a ${eventType} event`,
      mutate: (b: Json) => {
        appendUnindexedToolEvent(b, eventType).payload.semantic_tool.correlation[field] = `${field}_other`;
      },
    })),
    {
      name: `${eventType}-event-turn-differs`,
      why: `the event's own turnId is not compared with a ${eventType} envelope either`,
      mutate: (b: Json) => {
        appendUnindexedToolEvent(b, eventType).turnId = 'turn_other';
      },
    },
  ]),
  {
    name: 'progress-event-with-foreign-envelope',
    why: "an envelope on an event that is not a tool event is not read by upstream's parser",
    mutate: (b: Json) => {
      const envelope = structuredClone(nth(b, 'mcp_app.tool_input').payload.semantic_tool);
      envelope.correlation.turnId = 'turn_other';
      nth(b, 'item.delta').payload.semantic_tool = envelope;
    },
  },
];
