// Field rules of the native-execution/v1 parser that a JSON Schema does not state as upstream's
// parser applies them: required text (a string that is not empty after trimming every Unicode
// whitespace, as `String.prototype.trim` does) and timestamps (upstream's UTC shape, and a real
// instant). The places are listed once, here. These rules decide alone at their places: the parser
// drops the schema's errors there (a missing or empty id is `text_required`, never reported twice).
import { pointer } from './errors.js';

import type { Issue } from './errors.js';

type Json = Record<string, unknown>;

/** One field place: reference tokens, `*` for every item of an array. */
export type Place = readonly string[];

/**
 * Every field upstream's parser reads as required text (its `text()`). A place whose parent is
 * null or absent (no `usage.cost`, no `failure`) has nothing to check; `transcript.omissionReason`
 * is text only when it is not null.
 */
export const REQUIRED_TEXT_PLACES: readonly Place[] = [
  ['identity', 'runId'],
  ['identity', 'caseId'],
  ['identity', 'configId'],
  ['identity', 'attemptId'],
  ['input', 'deterministicSeed'],
  ['runner', 'package', 'name'],
  ['runner', 'package', 'version'],
  ['runner', 'binary', 'name'],
  ['runner', 'driverKind'],
  ['runner', 'driverVersion'],
  ['transcript', 'uri'],
  ['transcript', 'mediaType'],
  ['transcript', 'omissionReason'],
  ['artifactRoot', 'uri'],
  ['artifactRoot', 'mediaType'],
  ['artifacts', '*', 'uri'],
  ['artifacts', '*', 'mediaType'],
  ['usage', 'cost', 'currency'],
  ['failure', 'classification'],
  ['failure', 'code'],
  ['failure', 'message'],
  ['semanticTools', 'definitions', '*', 'operationId'],
  ['semanticTools', 'calls', '*', 'callId'],
  ['semanticTools', 'calls', '*', 'operationId'],
  ['semanticTools', 'calls', '*', 'eventId'],
  ['semanticTools', 'results', '*', 'callId'],
  ['semanticTools', 'results', '*', 'operationId'],
  ['semanticTools', 'results', '*', 'eventId'],
  ['semanticTools', 'results', '*', 'outcome'],
  ['semanticTools', 'denials', '*', 'callId'],
  ['semanticTools', 'denials', '*', 'code'],
  ['semanticTools', 'denials', '*', 'authorizationBoundary'],
];

/** Places that may hold null instead of text. */
const NULLABLE_TEXT = new Set(['/transcript/omissionReason']);

/**
 * Every timestamp field of our native-execution and PRP v1 schemas: the fields of the PRP `instant`
 * (upstream's date-time pattern), the events' `emittedAt` and `observedAt`; a test holds this list
 * equal to the schemas.
 */
export const TIMESTAMP_PLACES: readonly Place[] = [
  ['events', '*', 'emittedAt'],
  ['events', '*', 'observedAt'],
];

/**
 * Upstream compiles its schemas with this `date-time` format: UTC `Z`, `T`, three fraction digits or
 * none (our PRP `instant` states it as its pattern; a test holds the two equal).
 */
export const UPSTREAM_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{3})?Z$/;

const placePattern = (place: Place): RegExp =>
  new RegExp(`^${place.map((token) => (token === '*' ? '/\\d+' : `/${token}`)).join('')}$`);
const REQUIRED_TEXT_PATTERNS = REQUIRED_TEXT_PLACES.map(placePattern);
const TIMESTAMP_PATTERNS = TIMESTAMP_PLACES.map(placePattern);

/** True when `path` is a required-text place. */
export const isRequiredTextPath = (path: string): boolean =>
  REQUIRED_TEXT_PATTERNS.some((pattern) => pattern.test(path));

/** True when `path` is a timestamp place. */
export const isTimestampPath = (path: string): boolean =>
  TIMESTAMP_PATTERNS.some((pattern) => pattern.test(path));

/** Upstream's `text()`: a string with something left after JS `trim` (all Unicode White_Space, line terminators, U+FEFF). */
export const isRequiredText = (value: unknown): value is string =>
  typeof value === 'string' && value.trim().length > 0;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Calls `visit` for every field a place names in `bundle` (a place whose parent is not an object
 * names nothing), with the object that holds it and its name. Nothing is allocated per field: the
 * field's pointer is built (`pathOf`) only for a field that fails — on a valid bundle no pointer is
 * built at all (this runs for every event of every bundle).
 */
function forEachField(
  node: unknown,
  place: Place,
  visit: (parent: Json, name: string, pathOf: () => string) => void,
): void {
  const tokens: (string | number)[] = [];
  let name = '';
  const pathOf = (): string => pointer(...tokens, name);
  const walk = (current: unknown, depth: number): void => {
    const head = place[depth];
    if (head === undefined) return;
    if (head === '*') {
      if (!Array.isArray(current)) return;
      for (let index = 0; index < current.length; index += 1) {
        tokens.push(index);
        walk(current[index], depth + 1);
        tokens.pop();
      }
      return;
    }
    if (!isObject(current)) return;
    if (depth === place.length - 1) {
      name = head;
      visit(current, head, pathOf);
      return;
    }
    tokens.push(head);
    walk(current[head], depth + 1);
    tokens.pop();
  };
  walk(node, 0);
}

/** Required text that is missing, not a string, or blank after trimming Unicode whitespace. */
export function requiredTextIssues(bundle: Json): Issue[] {
  const issues: Issue[] = [];
  for (const place of REQUIRED_TEXT_PLACES) {
    forEachField(bundle, place, (parent, name, pathOf) => {
      const value = parent[name];
      if (isRequiredText(value)) return;
      const present = Object.hasOwn(parent, name);
      const path = pathOf();
      if (value === null && NULLABLE_TEXT.has(path)) return;
      issues.push({
        code: 'text_required',
        message:
          typeof value === 'string' && value !== ''
            ? `${path} holds only whitespace (${codePoints(value)}): it must be text`
            : `${path} must be text with something besides whitespace`,
        path,
        expected: NULLABLE_TEXT.has(path)
          ? 'null, or a string that is not empty after trimming whitespace'
          : 'a string that is not empty after trimming whitespace',
        received: present ? value : 'missing',
      });
    });
  }
  return issues;
}

/**
 * Optional text: a string present at one of `places` must be text (`text_required` when only
 * whitespace `trim` removes is left); an absent field, or one of another type, is the schema's to judge.
 */
export function blankTextIssues(document: Json, places: readonly Place[]): Issue[] {
  const issues: Issue[] = [];
  for (const place of places) {
    forEachField(document, place, (parent, name, pathOf) => {
      const value = parent[name];
      if (typeof value !== 'string' || isRequiredText(value)) return;
      const path = pathOf();
      issues.push({
        code: 'text_required',
        message: `${path} holds only whitespace (${codePoints(value)}): it must be text`,
        path,
        expected: 'a string that is not empty after trimming whitespace',
        received: value,
      });
    });
  }
  return issues;
}

/** `U+00A0 U+3000`: whitespace made visible (every character trim removes is one UTF-16 unit). */
const codePoints = (text: string): string =>
  Array.from(
    { length: text.length },
    (_, index) => `U+${text.charCodeAt(index).toString(16).toUpperCase().padStart(4, '0')}`,
  ).join(' ');

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** Whether a string of upstream's shape names a real instant (a leap second only at 23:59:60, as RFC 3339 allows). */
export function isRealInstant(text: string): boolean {
  const number = (at: number, length: number): number => {
    let value = 0;
    for (let index = at; index < at + length; index += 1) value = value * 10 + text.charCodeAt(index) - 48;
    return value;
  };
  const [year, month, day] = [number(0, 4), number(5, 2), number(8, 2)];
  const [hour, minute, second] = [number(11, 2), number(14, 2), number(17, 2)];
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const monthDays = month === 2 && leap ? 29 : (DAYS_IN_MONTH[month - 1] ?? 0);
  return (
    day >= 1 &&
    day <= monthDays &&
    hour <= 23 &&
    minute <= 59 &&
    (second <= 59 || (second === 60 && hour === 23 && minute === 59))
  );
}

/**
 * Epoch milliseconds of a timestamp the contract accepts (upstream's `YYYY-MM-DDTHH:MM:SS[.fff]Z`):
 * a leap second (`23:59:60`, which RFC 3339 allows and the parser accepts, but Date.parse cannot
 * read) is the instant one second after `23:59:59` with the same fraction, as epoch time counts it
 * (POSIX; chrono's timestamp_millis). NaN for a text Date.parse cannot read. Every duration or order
 * taken from a bundle's or an artifact's timestamps goes through here.
 */
export function instantMs(timestamp: string): number {
  if (timestamp.slice(16, 19) !== ':60') return Date.parse(timestamp);
  return Date.parse(`${timestamp.slice(0, 17)}59${timestamp.slice(19)}`) + 1000;
}

/** Timestamps outside upstream's format (`timestamp_invalid`), or of its shape yet no real instant (`timestamp_impossible`). */
export function timestampIssues(bundle: Json): Issue[] {
  const issues: Issue[] = [];
  for (const place of TIMESTAMP_PLACES) {
    const optional = place.at(-1) === 'observedAt';
    forEachField(bundle, place, (parent, name, pathOf) => {
      const value = parent[name];
      const present = value !== undefined || Object.hasOwn(parent, name);
      if (!present && optional) return;
      const shaped = typeof value === 'string' && UPSTREAM_DATE_TIME.test(value);
      if (shaped && isRealInstant(value)) return;
      const path = pathOf();
      if (!shaped) {
        issues.push({
          code: 'timestamp_invalid',
          message: `${path} is not a UTC timestamp of the form 2026-11-30T12:00:00.000Z`,
          path,
          expected: 'YYYY-MM-DDTHH:MM:SSZ or YYYY-MM-DDTHH:MM:SS.sssZ (UTC, upper-case T and Z)',
          received: present ? value : 'missing',
        });
      } else if (!isRealInstant(value)) {
        issues.push({
          code: 'timestamp_impossible',
          message: `${path} names no real instant (month, day, hour, minute or second out of range)`,
          path,
          expected: 'a real calendar date and time of day',
          received: value,
        });
      }
    });
  }
  return issues;
}
