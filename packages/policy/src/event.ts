// The protocol's Event as the zone evaluator sees it, read from a row's `event` object. Every field
// defaults when omitted (`{}` is a valid event) and unknown fields are ignored; a field of the wrong
// type makes the row malformed (OL-1240). `env` values are strings used for classification only.
import { memberSpans, parseI64 } from './framing.js';

import type { Span } from './framing.js';

export interface PolicyEvent {
  readonly event_type: string;
  readonly session_id: string;
  readonly tool_use_id: string;
  readonly tool_name: string;
  readonly tool_input: unknown;
  readonly binding: unknown;
  readonly tool_result?: unknown;
  readonly agent?: unknown;
  readonly env?: Readonly<Record<string, string>>;
  readonly session?: unknown;
  /** Signed 64-bit; read from the raw text, never through a double. */
  readonly spend_delta?: bigint;
}

const STRING_FIELDS = ['event_type', 'session_id', 'tool_use_id', 'tool_name'] as const;

/**
 * The event of a row, or the reason it is malformed. `text[span)` is the raw `event` member, for
 * spend_delta; `value` is what JSON.parse made of it.
 */
export function eventFromJSON(value: unknown, text: string, span: Span | undefined): PolicyEvent | string {
  if (span === undefined) return 'event is required';
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return 'event must be a JSON object';
  const raw = value as Record<string, unknown>;
  for (const field of STRING_FIELDS) {
    const fieldValue = raw[field];
    if (fieldValue !== undefined && typeof fieldValue !== 'string') return `event.${field} must be a string`;
  }
  const env = raw.env;
  if (env !== undefined && env !== null) {
    if (typeof env !== 'object' || Array.isArray(env)) return 'event.env must be an object of strings';
    if (!Object.values(env).every((path) => typeof path === 'string'))
      return 'event.env values must be strings';
  }
  let spendDelta: bigint | undefined;
  if (raw.spend_delta !== undefined && raw.spend_delta !== null) {
    const spendSpan =
      typeof raw.spend_delta === 'number'
        ? memberSpans(text, span.start, span.end).get('spend_delta')
        : undefined;
    spendDelta = spendSpan === undefined ? undefined : parseI64(text.slice(spendSpan.start, spendSpan.end));
    if (spendDelta === undefined) return 'event.spend_delta must be a signed 64-bit integer';
  }
  return {
    event_type: (raw.event_type as string | undefined) ?? '',
    session_id: (raw.session_id as string | undefined) ?? '',
    tool_use_id: (raw.tool_use_id as string | undefined) ?? '',
    tool_name: (raw.tool_name as string | undefined) ?? '',
    tool_input: raw.tool_input ?? null,
    binding: raw.binding ?? null,
    ...(raw.tool_result === undefined ? {} : { tool_result: raw.tool_result }),
    ...(raw.agent === undefined ? {} : { agent: raw.agent }),
    ...(env === undefined || env === null ? {} : { env: env as Record<string, string> }),
    ...(raw.session === undefined ? {} : { session: raw.session }),
    ...(spendDelta === undefined ? {} : { spend_delta: spendDelta }),
  };
}
