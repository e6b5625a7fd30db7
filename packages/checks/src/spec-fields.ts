// Reading an assertion's spec: each accessor returns the typed field or throws a spec_invalid
// ChecksError naming it, so an invalid spec becomes a hard_fail row (failure_class invalid_spec)
// that says what to fix.
import { ChecksError, isChecksError } from './errors.js';
import type { ChecksErrorOptions } from './errors.js';
import { sourceText } from './request-text.js';
import { goQuote } from './go-text.js';
import { parseTracePath } from './trace-path.js';

import type { Assertion } from './assertion-types.js';
import type { PathSegment } from './trace-path.js';

/** An assertion's spec, as the checks read it. */
export type Spec = Assertion['spec'];

/** A spec no provider could make valid (ChecksError spec_invalid): its assertion's row is a hard_fail, invalid_spec. */
export function specError(message: string, options?: ChecksErrorOptions): ChecksError {
  return new ChecksError('spec_invalid', message, [], options);
}

/**
 * `read()`, whose spec error (if any) the row explains in the Attest engine's words (failResult's
 * explanation): the error's detail, which a spec error, never on the wire, otherwise leaves empty.
 */
export function inGoWords<T>(explanation: string, read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (isChecksError(error, 'spec_invalid') && error.detail === '')
      throw specError(error.message, { cause: error, detail: explanation });
    throw error;
  }
}

/** Whether a spec member is what Go decodes as its zero value: absent, null or "". */
export function isGoZero(spec: Spec, key: string): boolean {
  const value = spec[key];
  return value === undefined || value === null || value === '';
}

/**
 * A required choice, explained as the Attest engine explains it: `missing` when the member is
 * absent or empty, `unknown(value)` when it is not one of `allowed`.
 */
export function requiredOneOf<T extends string>(
  spec: Spec,
  key: string,
  allowed: readonly T[],
  words: { readonly missing: string; readonly unknown: (value: string) => string },
): T {
  if (isGoZero(spec, key)) return inGoWords(words.missing, () => oneOf(spec, key, allowed));
  const value = spec[key];
  return inGoWords(typeof value === 'string' ? words.unknown(value) : '', () => oneOf(spec, key, allowed));
}

export function stringField(spec: Spec, key: string): string {
  const value = spec[key];
  if (typeof value !== 'string' || value === '') throw specError(`spec.${key} must be a non-empty string`);
  return value;
}

/** A string that may be empty (a content value: "" is in every text); absent or null is "", Go's zero value. */
export function textField(spec: Spec, key: string): string {
  const value = spec[key] ?? '';
  if (typeof value !== 'string') throw specError(`spec.${key} must be a string`);
  return value;
}

/**
 * An array of strings that may be empty (content values); absent or null is none, Go's nil list, and
 * a null element is "" (a []string element decodes null as its zero value).
 */
export function textList(spec: Spec, key: string): string[] {
  const value = spec[key] ?? [];
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'string' || item === null))
    throw specError(`spec.${key} must be an array of strings`);
  return value.map((item: string | null) => item ?? '');
}

export function optionalString(spec: Spec, key: string): string | undefined {
  return spec[key] === undefined ? undefined : stringField(spec, key);
}

export function numberField(spec: Spec, key: string): number {
  const value = spec[key];
  if (typeof value !== 'number' || !Number.isFinite(value)) throw specError(`spec.${key} must be a number`);
  return value;
}

export function optionalNumber(spec: Spec, key: string): number | undefined {
  return spec[key] === undefined || spec[key] === null ? undefined : numberField(spec, key);
}

export function unitNumber(spec: Spec, key: string, fallback: number): number {
  const value = optionalNumber(spec, key) ?? fallback;
  if (value < 0 || value > 1) throw specError(`spec.${key} must be within [0, 1]`);
  return value;
}

export function countField(spec: Spec, key: string): number {
  const value = numberField(spec, key);
  if (!Number.isSafeInteger(value) || value < 0) throw specError(`spec.${key} must be a whole number ≥ 0`);
  return value;
}

/** A non-empty array of strings; a null element is "", as Go decodes it into a []string. */
export function stringList(spec: Spec, key: string): string[] {
  const value = spec[key];
  if (
    !Array.isArray(value) ||
    value.length === 0 ||
    !value.every((item) => typeof item === 'string' || item === null)
  ) {
    throw specError(`spec.${key} must be a non-empty array of strings`);
  }
  return value.map((item: string | null) => item ?? '');
}

export function objectField(spec: Spec, key: string): Record<string, unknown> {
  const value = spec[key];
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw specError(`spec.${key} must be an object`);
  }
  return value as Record<string, unknown>;
}

export function flag(spec: Spec, key: string): boolean {
  const value = spec[key];
  // null is false, Go's zero value.
  if (value !== undefined && value !== null && typeof value !== 'boolean')
    throw specError(`spec.${key} must be true or false`);
  return value === true;
}

export function pathField(spec: Spec, key: string, fallback?: string): PathSegment[] {
  const text = spec[key] === undefined && fallback !== undefined ? fallback : stringField(spec, key);
  try {
    return parseTracePath(text);
  } catch (error) {
    if (isChecksError(error, 'trace_path_invalid'))
      throw specError(`spec.${key}: ${error.message}`, { cause: error });
    throw error;
  }
}

export function oneOf<T extends string>(spec: Spec, key: string, allowed: readonly T[]): T {
  const value = stringField(spec, key);
  if (!(allowed as readonly string[]).includes(value)) {
    throw specError(`spec.${key} must be one of ${allowed.join(', ')}; received ${JSON.stringify(value)}`);
  }
  return value as T;
}

export type Comparison = (actual: number) => boolean;

const OPERATORS = ['lt', 'lte', 'gt', 'gte', 'eq', 'between'] as const;

/**
 * A number as the Attest engine prints one (constraint.go:157-164, strconv.FormatFloat(v, 'f', -1,
 * 64)): the shortest digits that read back as the double, written out in decimal with no exponent
 * — 12345678901234567000 (not the double's exact 12345678901234567168), 1000000000000000000000,
 * 0.000000000123456789012345 — and -0 as "-0".
 */
export function goFloat(value: number): string {
  if (!Number.isFinite(value)) return value > 0 ? '+Inf' : value < 0 ? '-Inf' : 'NaN';
  if (value === 0) return Object.is(value, -0) ? '-0' : '0';
  // toExponential() without a digit count gives the shortest digits, as Go's shortest formatting.
  const [mantissa = '', exponent = '0'] = Math.abs(value).toExponential().split('e');
  const digits = mantissa.replace('.', '');
  const point = Number(exponent) + 1;
  const text =
    point <= 0
      ? `0.${'0'.repeat(-point)}${digits}`
      : point >= digits.length
        ? `${digits}${'0'.repeat(point - digits.length)}`
        : `${digits.slice(0, point)}.${digits.slice(point)}`;
  return `${value < 0 ? '-' : ''}${text}`;
}

/**
 * `operator` with `value` (or `min`/`max` for between), as a test, its text, and the Attest
 * engine's wording of it (`lte 0.01`, `between [1, 2]`: constraint.go:60-90).
 */
export function comparisonField(spec: Spec): { test: Comparison; text: string; constraint: string } {
  const operator = oneOf(spec, 'operator', OPERATORS);
  if (operator === 'between') {
    const min = numberField(spec, 'min');
    const max = numberField(spec, 'max');
    if (min > max) throw specError('spec.min must not exceed spec.max');
    return {
      test: (actual) => actual >= min && actual <= max,
      text: `between ${min} and ${max}`,
      constraint: `between [${goFloat(min)}, ${goFloat(max)}]`,
    };
  }
  const value = numberField(spec, 'value');
  const tests: Record<Exclude<typeof operator, 'between'>, Comparison> = {
    lt: (actual) => actual < value,
    lte: (actual) => actual <= value,
    gt: (actual) => actual > value,
    gte: (actual) => actual >= value,
    eq: (actual) => actual === value,
  };
  return { test: tests[operator], text: `${operator} ${value}`, constraint: `${operator} ${goFloat(value)}` };
}

/**
 * A target as the spec wrote it, and its parts as the Attest engine's ResolveTarget splits it
 * (target.go:26-39, 57-123): `output`; `output.` then keys split at every `.` — a key is whatever
 * lies between two dots (`order-id`, `2024`, `a b`, even ``), looked up as a map key; or
 * `steps[?name=='<step>'].` then the step's field (`args` or `result`, checked once the step is
 * found) and keys split the same way. `segments` is null for any other text (an index, `input…`,
 * `metadata…`): there its resolution fails, `unsupported target: <text>`.
 */
export interface Target {
  readonly text: string;
  readonly segments: readonly PathSegment[] | null;
}

/**
 * ResolveTarget's step form (`^steps\[\?name=='([^']+)'\]\.(.+)$`, Go's `.` is any character but
 * `\n`), and ours with the name double-quoted (beyond the Attest engine's vocabulary).
 */
const STEP_TARGET = /^steps\[\?name==(?:'([^']+)'|"([^"]+)")\]\.([^\n]+)$/;

/** A target's text as ResolveTarget splits it (see Target). */
export function parseTarget(text: string): Target {
  const keys = (path: string): PathSegment[] => path.split('.').map((key) => ({ kind: 'key', key }));
  const output: PathSegment = { kind: 'key', key: 'output' };
  if (text === 'output') return { text, segments: [output] };
  if (text.startsWith('output.')) return { text, segments: [output, ...keys(text.slice('output.'.length))] };
  const step = STEP_TARGET.exec(text);
  if (step === null) return { text, segments: null };
  const [, single, double, field = ''] = step;
  return {
    text,
    segments: [
      { kind: 'key', key: 'steps' },
      { kind: 'filter', key: 'name', value: single ?? double ?? '' },
      ...keys(field),
    ],
  };
}

/** `spec[key]` (default `fallback` when absent) as a target: a string, split as ResolveTarget splits it. */
export function targetField(spec: Spec, key: string, fallback?: string): Target {
  return parseTarget(spec[key] === undefined && fallback !== undefined ? fallback : stringField(spec, key));
}

/** Constraint fields, as the peer engine reads them (resolveConstraintField). */
const CONSTRAINT_FIELD =
  /^(?:metadata\.(?:cost_usd|total_tokens|latency_ms)|steps\.length|steps\[\?type=='[^']+'\]\.length)$/;

/** A constraint's field: one of the figures the peer engine reads, else an invalid spec. */
export function constraintField(spec: Spec): PathSegment[] {
  const text = stringField(spec, 'field');
  if (!CONSTRAINT_FIELD.test(text)) {
    throw specError(
      `spec.field ${JSON.stringify(text)} is not a constraint field: use metadata.cost_usd, metadata.total_tokens, metadata.latency_ms, steps.length or steps[?type=='<type>'].length`,
    );
  }
  return pathField(spec, 'field');
}

/**
 * The text `spec.target` (default output.message) points at in the trace, as the Attest engine
 * reads a target (ResolveTargetString, assertion/target.go:42-52): a string as it is, null as "",
 * anything else as the request wrote it (json.RawMessage: `1.0` stays "1.0", `{"a": 1}` keeps its
 * space) — or, for a trace not read from a request line, as its JSON. text is undefined when the
 * target is not there.
 */
export function targetText(
  root: unknown,
  spec: Spec,
): { where: string; text: string | undefined; problem?: string } {
  const target = targetField(spec, 'target', 'output.message');
  const where = target.text;
  const lookup = resolveTarget(root, target);
  if (!lookup.found) return { where, text: undefined, problem: lookup.problem };
  const { value } = lookup;
  // A step without the field is a nil RawMessage there, which reads as "" (target.go:49-51).
  const text =
    value === undefined
      ? ''
      : typeof value === 'string'
        ? value
        : value === null
          ? ''
          : (sourceText(root as object, lookup.at) ?? JSON.stringify(value));
  return { where, text };
}

/**
 * What a target points at, found as the Attest engine's ResolveTarget finds it (target.go:26-123), or
 * why not in its words: `field "k" not found in output.m`, `step not found: x`, `cannot parse … as
 * object: …`. `value` is undefined for a step without the args or result named (a nil RawMessage).
 */
export type TargetLookup =
  | { readonly found: true; readonly value: unknown; readonly at: readonly (string | number)[] }
  | { readonly found: false; readonly problem: string };

export function resolveTarget(root: unknown, target: Target): TargetLookup {
  const { segments } = target;
  if (segments === null) return { found: false, problem: `unsupported target: ${target.text}` };
  const trace = root as {
    readonly output?: unknown;
    readonly steps?: readonly Record<string, unknown>[] | null;
  };
  const [first, second, third] = segments;
  let value: unknown;
  let description: string;
  let rest: readonly PathSegment[];
  const at: (string | number)[] = [];
  if (second?.kind === 'filter' && third?.kind === 'key') {
    const steps = trace.steps ?? [];
    const index = steps.findIndex((step) => step.name === second.value);
    const step = steps[index];
    if (step === undefined) return { found: false, problem: `step not found: ${second.value}` };
    if (third.key !== 'args' && third.key !== 'result')
      return { found: false, problem: `unsupported step field: ${third.key} (must be args or result)` };
    value = step[third.key];
    at.push('steps', index, third.key);
    description = `steps[?name=='${second.value}'].${third.key}`;
    rest = segments.slice(3);
    if (rest.length > 0 && !isMapValue(value)) {
      return {
        found: false,
        problem: `cannot parse step ${second.value}.${third.key} as object: ${mapDecodeError(root, at, value)}`,
      };
    }
  } else {
    value = first?.kind === 'key' ? trace.output : undefined;
    at.push('output');
    description = 'output';
    rest = segments.slice(1);
  }
  for (const segment of rest) {
    if (segment.kind !== 'key') return { found: false, problem: `unsupported target: ${target.text}` };
    if (!isMapValue(value))
      return {
        found: false,
        problem: `cannot parse ${description} as object: ${mapDecodeError(root, at, value)}`,
      };
    // null decodes as an empty map.
    if (value === null || !Object.hasOwn(value as object, segment.key))
      return { found: false, problem: `field ${goQuote(segment.key)} not found in ${description}` };
    value = (value as Record<string, unknown>)[segment.key];
    at.push(segment.key);
    description += `.${segment.key}`;
  }
  return { found: true, value, at };
}

/** Whether Go decodes the value into a map: an object, or null (a nil map). */
function isMapValue(value: unknown): boolean {
  return value === null || (typeof value === 'object' && !Array.isArray(value));
}

/** segmentio's error for a value that is not an object, decoded into a map (its text, quoted, up to 32 bytes). */
function mapDecodeError(root: unknown, at: readonly (string | number)[], value: unknown): string {
  if (value === undefined) return 'unexpected end of JSON input';
  const text = Buffer.from(sourceText(root as object, at) ?? JSON.stringify(value));
  const prefix = text.byteLength < 32 ? text.toString() : `${text.subarray(0, 32).toString()}...`;
  return `json: cannot unmarshal ${goQuote(prefix)} into Go value of type map[string]json.RawMessage`;
}
