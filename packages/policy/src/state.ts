// Caller-owned session state: the register file `{"c":[],"f":[],"t":[],"a":[],"run":null}` whose
// shape (the layout) the active bundle computes. Integers are signed 64-bit, read exactly (from
// JSON.parse's safe integers in a plain frame, else from the raw row text; see framing.ts's
// RawSource); a wrong type is malformed (OL-1240), a shape that differs from the layout is a mismatch
// (OL-1243) and is never padded.
import { arrayNumberTokens, frameSource, hasNoFraction, i64Of, memberSource, parseI64 } from './framing.js';

import type { RawSource } from './framing.js';

export interface StateLayout {
  readonly c: number;
  readonly f: number;
  readonly t: number;
  readonly a: number;
  readonly run: boolean;
}

export interface RunRegister {
  shape: string | null;
  len: bigint;
}

/** c counters, f flags, t timestamps (ms), a accumulators, run the current run of one shape. */
export interface Registers {
  readonly c: bigint[];
  readonly f: boolean[];
  readonly t: bigint[];
  readonly a: bigint[];
  run: RunRegister | null;
}

export type StateResult =
  | { readonly kind: 'ok'; readonly registers: Registers | null }
  | { readonly kind: 'malformed' | 'mismatch'; readonly message: string };

/** The zeroed register file of a layout: registers available, nothing recorded yet. */
export function zeroedRegisters(layout: StateLayout): Registers {
  return {
    c: new Array<bigint>(layout.c).fill(0n),
    f: new Array<boolean>(layout.f).fill(false),
    t: new Array<bigint>(layout.t).fill(0n),
    a: new Array<bigint>(layout.a).fill(0n),
    run: layout.run ? { shape: null, len: 0n } : null,
  };
}

/**
 * A row's `state_in` (`value` as JSON.parse read it, `source` its raw text). Null or absent is
 * unavailable state (registers: null), which is not the same as a zeroed register file.
 */
export function stateFromJSON(value: unknown, source: RawSource, layout: StateLayout): StateResult {
  if (value === undefined || value === null) return { kind: 'ok', registers: null };
  const registers = registersFromJSON(value, source, 'state_in');
  if (typeof registers === 'string') return malformed(registers);
  const mismatch = layoutMismatch(registers, layout);
  return mismatch === undefined ? { kind: 'ok', registers } : { kind: 'mismatch', message: mismatch };
}

/**
 * A register file read exactly, whatever its layout, or what is wrong with it (`name` says which
 * member it is): c, t and a arrays of signed 64-bit integers, f of booleans, run null or
 * {shape: null or a string, len: a signed 64-bit integer}; an absent member is its empty default.
 * The one rule for the row's `state_in` (the producer) and the response's `state_out` (the consumer).
 */
export function registersFromJSON(value: unknown, source: RawSource, name: string): Registers | string {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return `${name} must be an object or null`;
  const raw = value as Record<string, unknown>;
  const c = integers(raw.c, source, 'c');
  const t = integers(raw.t, source, 't');
  const a = integers(raw.a, source, 'a');
  if (c === undefined || t === undefined || a === undefined)
    return `${name}.c, .t and .a must be arrays of signed 64-bit integers`;
  const f = raw.f ?? [];
  if (!Array.isArray(f) || !f.every((flag) => typeof flag === 'boolean'))
    return `${name}.f must be an array of booleans`;
  const run = runRegister(raw.run, source);
  if (run === 'malformed')
    return `${name}.run must be null or {"shape": null or a string, "len": a signed 64-bit integer}`;
  return { c, f, t, a, run };
}

/**
 * What is wrong with a response's `state_out` (its compact text), or undefined when it is a register
 * file. `trailing`: the text matched trailingStateOut's grammar (integer tokens, booleans, a run of
 * that form), so only a token long enough to leave the 64-bit range needs the full read.
 */
export function stateOutProblem(text: string, trailing: boolean): string | undefined {
  if (trailing && !NINETEEN_DIGITS.test(text)) return undefined;
  const registers = registersFromJSON(JSON.parse(text), frameSource(text), 'state_out');
  return typeof registers === 'string' ? registers : undefined;
}

/** 2^63 has 19 digits: a shorter integer token is within the signed 64-bit range. */
const NINETEEN_DIGITS = /[0-9]{19}/;

/** The register file as compact JSON text (integers written exactly). */
export function stateToJSON(registers: Registers): string {
  const run =
    registers.run === null
      ? 'null'
      : `{"shape":${JSON.stringify(registers.run.shape)},"len":${registers.run.len}}`;
  return `{"c":[${list(registers.c)}],"f":[${list(registers.f)}],"t":[${list(registers.t)}],"a":[${list(registers.a)}],"run":${run}}`;
}

/** Comma-separated values (a loop of templates: Array#join is slower for a few BigInts). */
function list(values: readonly (bigint | boolean)[]): string {
  let text = '';
  for (let index = 0; index < values.length; index++)
    text += index === 0 ? `${values[index]}` : `,${values[index]}`;
  return text;
}

/** A JSON integer token, a list of them, a list of booleans, and a JSON string (strict grammar). */
const INT = '-?(?:0|[1-9][0-9]*)';
const INTS = `(?:${INT}(?:,${INT})*)?`;
const BOOLS = '(?:(?:true|false)(?:,(?:true|false))*)?';
const STRING = '"(?:[^"\\\\\\u0000-\\u001f]|\\\\["\\\\/bfnrt]|\\\\u[0-9a-fA-F]{4})*"';
/** A register file exactly as stateToJSON writes it, then the `}` that closes its frame. */
const REGISTER_FILE_CLOSING_FRAME = new RegExp(
  `\\{"c":\\[${INTS}\\],"f":\\[${BOOLS}\\],"t":\\[${INTS}\\],"a":\\[${INTS}\\],"run":(?:null|\\{"shape":(?:null|${STRING}),"len":${INT}\\})\\}\\}$`,
  'y',
);

/**
 * The fast path for the register file a producer writes as a response's last member: when `frame`
 * ends with `,"state_out":`, a register file exactly as stateToJSON writes it and `}`, that member
 * is a top-level one (`,"` never occurs inside a JSON string, and the object it opens closes the
 * frame), so the frame is a JSON object exactly when `head` (the frame without it) is one, and
 * JSON.parse need read only `head` (a third of the time a response takes to parse goes to the
 * register file's arrays). Undefined otherwise: read the frame whole.
 */
export function trailingStateOut(
  frame: string,
): { readonly head: string; readonly text: string } | undefined {
  const at = frame.lastIndexOf(STATE_OUT_MARKER);
  // A value must end before the comma, or `head` could be `{}` while the frame is `{,…}`.
  const before = frame.charCodeAt(at - 1);
  if (at < 1 || before === 0x7b || before === 0x2c || before <= 0x20) return undefined;
  const start = at + STATE_OUT_MARKER.length;
  REGISTER_FILE_CLOSING_FRAME.lastIndex = start;
  if (!REGISTER_FILE_CLOSING_FRAME.test(frame)) return undefined;
  return { head: `${frame.slice(0, at)}}`, text: frame.slice(start, -1) };
}

const STATE_OUT_MARKER = ',"state_out":';

/** An absent member is an empty array; anything but integer tokens is undefined. */
function integers(value: unknown, state: RawSource, key: string): bigint[] | undefined {
  if (value === undefined) return [];
  if (!Array.isArray(value)) return undefined;
  // Fast path: a plain frame, or no '.', 'e' or 'E' in the raw array, means every token is an
  // integer literal, and a safe integer was read exactly by JSON.parse. Anything else is read
  // token by token.
  const source = state.exact ? undefined : memberSource(state, key);
  const span = source?.locate();
  if (source === undefined || (span !== undefined && hasNoFraction(state.text, span.start, span.end))) {
    const exact: bigint[] = new Array<bigint>(value.length);
    let index = 0;
    for (; index < value.length; index++) {
      const item: unknown = value[index];
      if (!Number.isSafeInteger(item)) break;
      exact[index] = BigInt(item as number);
    }
    if (index === value.length) return exact;
  }
  if (!value.every((item) => typeof item === 'number')) return undefined;
  const tokens = span ?? memberSource(state, key).locate();
  if (tokens === undefined) return undefined;
  const parsed: bigint[] = [];
  for (const token of arrayNumberTokens(state.text, tokens)) {
    const integer = parseI64(token);
    if (integer === undefined) return undefined;
    parsed.push(integer);
  }
  return parsed;
}

function runRegister(value: unknown, state: RawSource): RunRegister | null | 'malformed' {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'object' || Array.isArray(value)) return 'malformed';
  const { shape, len } = value as Record<string, unknown>;
  if (shape !== undefined && shape !== null && typeof shape !== 'string') return 'malformed';
  const exactLen = len === undefined ? 0n : i64Of(len, memberSource(memberSource(state, 'run'), 'len'));
  return exactLen === undefined ? 'malformed' : { shape: shape ?? null, len: exactLen };
}

function layoutMismatch(registers: Registers, layout: StateLayout): string | undefined {
  if (
    registers.c.length === layout.c &&
    registers.f.length === layout.f &&
    registers.t.length === layout.t &&
    registers.a.length === layout.a &&
    (registers.run !== null) === layout.run
  )
    return undefined;
  const expected = `c[${layout.c}] f[${layout.f}] t[${layout.t}] a[${layout.a}] run ${layout.run ? 'present' : 'null'}`;
  const received = `c[${registers.c.length}] f[${registers.f.length}] t[${registers.t.length}] a[${registers.a.length}] run ${registers.run === null ? 'null' : 'present'}`;
  return `state_in does not match the bundle's layout: expected ${expected}, received ${received}`;
}

function malformed(message: string): StateResult {
  return { kind: 'malformed', message };
}
