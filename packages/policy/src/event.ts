// The protocol's Event as the zone evaluator sees it, read from a row's `event` object. Every field
// defaults when omitted (`{}` is a valid event) and unknown fields are ignored; a field of the wrong
// type makes the row malformed (OL-1240). `env` values are strings used for classification only.
import { i64Of, memberSource } from './framing.js';

import type { RawSource } from './framing.js';

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
 * The event of a row, or the reason it is malformed. `value` is what JSON.parse made of the row's
 * `event` member (undefined when absent) and `source` its raw text, for spend_delta.
 */
export function eventFromJSON(value: unknown, source: RawSource): PolicyEvent | string {
  if (value === undefined) return 'event is required';
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
    spendDelta = i64Of(raw.spend_delta, memberSource(source, 'spend_delta'));
    if (spendDelta === undefined) return 'event.spend_delta must be a signed 64-bit integer';
  }
  const event: Mutable<PolicyEvent> = {
    event_type: (raw.event_type as string | undefined) ?? '',
    session_id: (raw.session_id as string | undefined) ?? '',
    tool_use_id: (raw.tool_use_id as string | undefined) ?? '',
    tool_name: (raw.tool_name as string | undefined) ?? '',
    tool_input: raw.tool_input ?? null,
    binding: raw.binding ?? null,
  };
  if (raw.tool_result !== undefined) event.tool_result = raw.tool_result;
  if (raw.agent !== undefined) event.agent = raw.agent;
  if (env !== undefined && env !== null) event.env = env as Record<string, string>;
  if (raw.session !== undefined) event.session = raw.session;
  if (spendDelta !== undefined) event.spend_delta = spendDelta;
  return event;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };
