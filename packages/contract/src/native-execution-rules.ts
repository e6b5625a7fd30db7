// The fail-closed rules of the native-execution/v1 parser: one code per rule, what it refuses, and
// whether upstream's schema already refuses it ("schema") or it is an Evals rule ("evals"). The
// mutation-table test holds a row for every code listed here.

export interface NativeExecutionRule {
  readonly refuses: string;
  /** `schema`: upstream's JSON Schema refuses it too; `invariant`: upstream's parser contract names it but no schema can; `evals`: ours, stricter than upstream. */
  readonly origin: 'schema' | 'invariant' | 'evals';
}

export const NATIVE_EXECUTION_RULES = {
  input_too_large: { refuses: 'input larger than the configured limit (default 64 MiB)', origin: 'evals' },
  text_bom: { refuses: 'a UTF-8 byte order mark before the JSON text', origin: 'evals' },
  text_not_utf8: { refuses: 'bytes that are not UTF-8', origin: 'evals' },
  json_empty: { refuses: 'an empty (or all-whitespace) input', origin: 'evals' },
  json_truncated: {
    refuses: 'JSON text that ends early (an unclosed string, object or array)',
    origin: 'evals',
  },
  json_syntax: { refuses: 'any other JSON syntax error', origin: 'evals' },
  json_too_deep: { refuses: 'nesting deeper than the configured bound (default 64)', origin: 'evals' },
  json_not_object: { refuses: 'a JSON text whose top level is not an object', origin: 'schema' },
  json_duplicate_key: {
    refuses: 'the same key twice in one object (JSON.parse would keep the last silently)',
    origin: 'evals',
  },
  json_number_unsafe: {
    refuses: 'a number beyond ±(2^53 − 1), which JSON.parse would silently round (or turn into Infinity)',
    origin: 'evals',
  },
  json_lone_surrogate: {
    refuses: 'a string or key with an unpaired surrogate escape (cannot be canonicalised)',
    origin: 'evals',
  },
  native_schema_unknown: {
    refuses: '`schema` missing or not paperclip-runner/native-execution/v1',
    origin: 'schema',
  },
  provenance_unknown: { refuses: '`provenance` other than seeded, replay or live', origin: 'schema' },
  digest_malformed: {
    refuses: 'any digest that is not sha256: + 64 lowercase hex, artifacts included',
    origin: 'schema',
  },
  usage_count_invalid: {
    refuses: 'a negative or non-integer token, request or duration count',
    origin: 'schema',
  },
  cost_micros_invalid: { refuses: 'a negative or non-integer usage.cost.amountMicros', origin: 'schema' },
  cost_nanodollars_invalid: {
    refuses: 'a negative or non-integer eval-session cost figure (usage.*CostNanodollars)',
    origin: 'schema',
  },
  schema_violation: {
    refuses: 'anything else the JSON Schema refuses (reported with its keyword)',
    origin: 'schema',
  },
  event_run_mismatch: { refuses: 'an event whose runId differs from identity.runId', origin: 'invariant' },
  source_seq_not_increasing: {
    refuses: 'sourceSeq not strictly increasing per sourceInstanceId',
    origin: 'invariant',
  },
  source_event_id_duplicate: { refuses: 'a sourceEventId used by two events', origin: 'invariant' },
  terminal_event_missing: { refuses: 'no run.terminal event', origin: 'invariant' },
  terminal_event_multiple: { refuses: 'more than one run.terminal event', origin: 'invariant' },
  terminal_mismatch: {
    refuses: 'a bundle terminal that differs from the run.terminal payload in any field',
    origin: 'invariant',
  },
  semantic_envelope_unindexed: {
    refuses: 'an mcp_app.tool_input/tool_result envelope with no semanticTools entry',
    origin: 'invariant',
  },
  semantic_index_dangling: {
    refuses: 'a semanticTools call/result whose eventId names no event',
    origin: 'invariant',
  },
  semantic_index_wrong_event: {
    refuses: 'a semanticTools call/result pointing at an event of the wrong kind',
    origin: 'invariant',
  },
  semantic_index_duplicate: {
    refuses: 'two semanticTools entries indexing the same envelope',
    origin: 'evals',
  },
  semantic_result_unpaired: {
    refuses: 'a tool result envelope whose callId no tool input envelope made',
    origin: 'evals',
  },
  semantic_index_mismatch: {
    refuses: 'an index entry whose callId, operationId or outcome differs from its envelope',
    origin: 'invariant',
  },
  denial_missing: {
    refuses: 'a denied result without a denial of the same callId and code',
    origin: 'invariant',
  },
  denial_orphaned: {
    refuses: 'a denial without a denied result of the same callId and code',
    origin: 'invariant',
  },
  denial_mismatch: {
    refuses: "a denial whose authorizationBoundary or retryable disagree with its result's",
    origin: 'evals',
  },
  usage_total_mismatch: { refuses: 'totalTokens ≠ inputTokens + outputTokens', origin: 'invariant' },
  transcript_count_mismatch: {
    refuses: 'a complete transcript whose eventCount ≠ events.length',
    origin: 'invariant',
  },
  transcript_ambiguous: {
    refuses: 'an incomplete transcript without an omissionReason, or a complete one with one',
    origin: 'invariant',
  },
} as const satisfies Record<string, NativeExecutionRule>;

export type NativeExecutionRuleCode = keyof typeof NATIVE_EXECUTION_RULES;
