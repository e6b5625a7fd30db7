// The fail-closed rules of the native-execution/v1 parser: one code per rule, what it refuses, and
// where the rule comes from, compared with upstream's parser (paperclipai/paperclip,
// packages/paperclip-runner/src/evals/native-execution.ts) and its schemas. The mutation-table test
// holds a row for every code listed here; docs/native-execution.md lists them with the same origin.

export interface NativeExecutionRule {
  readonly refuses: string;
  /**
   * `schema`: upstream's JSON Schema refuses every such input (as upstream compiles it);
   * `upstream parser`: upstream's parser refuses every such input, though its schema does not;
   * `evals`: ours, stricter than upstream — upstream's parser accepts some of what it refuses.
   */
  readonly origin: 'schema' | 'upstream parser' | 'evals';
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
    origin: 'evals',
  },
  cost_field_invalid: {
    refuses:
      'an eval-session cost field of the wrong kind: usage.costCoverage not one of its four values, or usage.providerReportedCostProvenance / pricingVersion not text',
    origin: 'evals',
  },
  schema_violation: {
    refuses: 'anything else the JSON Schema refuses (reported with its keyword)',
    origin: 'schema',
  },
  text_required: {
    refuses:
      'a required text field (ids, names, kinds, codes, reasons, uris, media types, currency) missing, not a string, or empty after trimming Unicode whitespace',
    origin: 'upstream parser',
  },
  timestamp_invalid: {
    refuses:
      'an emittedAt/observedAt not of the form YYYY-MM-DDTHH:MM:SS[.sss]Z (offsets, lower-case t/z, a space, other fraction lengths)',
    origin: 'schema',
  },
  timestamp_impossible: {
    refuses: 'a timestamp of that form that names no real instant (month 13, Feb 30, hour 24, minute 60, …)',
    origin: 'evals',
  },
  event_run_mismatch: {
    refuses: 'an event whose runId differs from identity.runId',
    origin: 'upstream parser',
  },
  source_seq_not_increasing: {
    refuses: 'sourceSeq not strictly increasing per sourceInstanceId',
    origin: 'upstream parser',
  },
  source_event_id_duplicate: { refuses: 'a sourceEventId used by two events', origin: 'upstream parser' },
  terminal_event_missing: { refuses: 'no run.terminal event', origin: 'upstream parser' },
  terminal_event_multiple: { refuses: 'more than one run.terminal event', origin: 'upstream parser' },
  terminal_mismatch: {
    refuses: 'a bundle terminal that differs from the run.terminal payload in any field',
    origin: 'upstream parser',
  },
  semantic_envelope_unindexed: {
    refuses:
      'an mcp_app.tool_input/tool_result event (with or without an envelope) that no semanticTools entry indexes',
    origin: 'upstream parser',
  },
  semantic_envelope_missing: {
    refuses:
      'an event of a tool event type (mcp_app.tool_input/tool_result, semantic_tool.input/result/reconciled) without payload.semantic_tool',
    origin: 'evals',
  },
  semantic_correlation_mismatch: {
    refuses:
      "an mcp_app.tool_input/tool_result event whose semantic_tool correlation runId, normalizedSessionId, turnId or itemId differs from the event's (the correlation of a semantic_tool.* event is not read, as upstream's parser does not)",
    origin: 'upstream parser',
  },
  semantic_call_id_duplicate: {
    refuses: 'two semanticTools calls, or two results, sharing one callId',
    origin: 'upstream parser',
  },
  semantic_result_call_mismatch: {
    refuses:
      "a semanticTools result whose callId names no call, or whose operationId differs from its call's",
    origin: 'upstream parser',
  },
  semantic_call_unresolved: {
    refuses:
      'a semanticTools call with no result of its callId, unless the turn was interrupted or cancelled or the run cancelled',
    origin: 'upstream parser',
  },
  semantic_index_dangling: {
    refuses: 'a semanticTools call/result whose eventId names no event',
    origin: 'upstream parser',
  },
  semantic_index_wrong_event: {
    refuses: 'a semanticTools call/result pointing at an event of the wrong kind',
    origin: 'upstream parser',
  },
  semantic_index_duplicate: {
    refuses: 'two semanticTools entries indexing the same envelope',
    origin: 'upstream parser',
  },
  semantic_result_unpaired: {
    refuses: 'a tool result envelope whose callId no tool input envelope made',
    origin: 'upstream parser',
  },
  semantic_index_mismatch: {
    refuses: 'an index entry whose callId, operationId or outcome differs from its envelope',
    origin: 'upstream parser',
  },
  denial_missing: {
    refuses: 'a denied result without a denial of the same callId and code',
    origin: 'upstream parser',
  },
  denial_orphaned: {
    refuses: 'a denial without a denied result of the same callId and code',
    origin: 'upstream parser',
  },
  denial_mismatch: {
    refuses: "a denial whose authorizationBoundary or retryable disagree with its denied result's envelope",
    origin: 'upstream parser',
  },
  usage_total_mismatch: { refuses: 'totalTokens ≠ inputTokens + outputTokens', origin: 'upstream parser' },
  transcript_count_mismatch: {
    refuses: 'a complete transcript whose eventCount ≠ events.length',
    origin: 'upstream parser',
  },
  transcript_ambiguous: {
    refuses: 'an incomplete transcript without an omissionReason, or a complete one with one',
    origin: 'evals',
  },
} as const satisfies Record<string, NativeExecutionRule>;

export type NativeExecutionRuleCode = keyof typeof NATIVE_EXECUTION_RULES;
