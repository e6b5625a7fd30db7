// RFC 8785 (JCS) canonical JSON: the one serialisation every contract digest is computed over.
import { ContractError, pointer } from './errors.js';
import './well-formed-strings.js';

/** True when a string holds an unpaired surrogate (not well-formed Unicode, not I-JSON). */
export function hasLoneSurrogate(text: string): boolean {
  return !text.isWellFormed();
}

const UTF8 = new TextEncoder();

type CanonicalRule = 'non_finite_number' | 'lone_surrogate' | 'unsupported_value';

/**
 * Serialises a JSON value as RFC 8785 canonical JSON: members sorted by UTF-16 code units, numbers
 * in ECMAScript Number-to-String form, strings escaped as JSON.stringify does.
 *
 * @throws ContractError `paperclip_canonical_json_invalid` with one issue (rule code and JSON
 *   pointer) for a value JSON cannot represent exactly: NaN or ±Infinity, a string or member
 *   name with an unpaired surrogate, undefined, a function, symbol or bigint, a non-plain object
 *   (Date, Map, class instance…), an array hole or a circular reference.
 */
export function canonicalize(value: unknown): string {
  // Ingest canonicalises every bundle, so the common case (a valid document) takes a lean path that
  // tracks no pointer; only when it meets something it cannot write does the located path run.
  // The lean path writes a string that needs no escape as it is, unchecked: one check of the whole
  // text finds any unpaired surrogate in them (quotes, ASCII, stand on both sides of each, so none
  // can pair across strings), where one per string cost ~15% of a bundle's canonical form.
  const text = canonicalFast(value, 0);
  return text !== undefined && text.isWellFormed() ? text : canonicalLocated(value);
}

/** Deeper than this, the lean path stops (a cycle, or a document to report carefully). */
const FAST_MAX_DEPTH = 1000;
const memberNameCache = new Map<string, string>();
const MEMBER_NAME_CACHE_LIMIT = 10_000;
/** What JSON.stringify escapes in a well-formed string: a quote, a backslash, a control character. */
// eslint-disable-next-line no-control-regex -- the control characters are the point
const ESCAPED = /["\\\u0000-\u001f]/;

/** Canonical text, or undefined when `value` holds anything the located path must report. */
function canonicalFast(value: unknown, depth: number): string | undefined {
  switch (typeof value) {
    case 'string':
      // A string with nothing JSON.stringify would escape is itself between quotes (most of them;
      // an unpaired surrogate in one is found in the whole text: canonicalize). JSON.stringify
      // would escape one (\udXXX), so an escaped string is checked here.
      if (!ESCAPED.test(value)) return `"${value}"`;
      return hasLoneSurrogate(value) ? undefined : JSON.stringify(value);
    case 'number':
      return Number.isFinite(value) ? String(value) : undefined;
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object': {
      if (value === null) return 'null';
      if (depth > FAST_MAX_DEPTH) return undefined;
      if (Array.isArray(value)) {
        let out = '[';
        for (let i = 0; i < value.length; i++) {
          if (!(i in value)) return undefined;
          const item = canonicalFast(value[i], depth + 1);
          if (item === undefined) return undefined;
          out += i === 0 ? item : `,${item}`;
        }
        return `${out}]`;
      }
      if (!isPlainObject(value)) return undefined;
      const keys = Object.keys(value);
      // Sorted only when they are not in order already (a canonical document's are).
      for (let i = 1; i < keys.length; i++)
        if ((keys[i - 1] as string) > (keys[i] as string)) {
          keys.sort();
          break;
        }
      let out = '{';
      for (let i = 0; i < keys.length; i++) {
        const key = keys[i] as string;
        let name = memberNameCache.get(key);
        if (name === undefined) {
          if (hasLoneSurrogate(key)) return undefined;
          name = `${JSON.stringify(key)}:`;
          if (memberNameCache.size < MEMBER_NAME_CACHE_LIMIT) memberNameCache.set(key, name);
        }
        const member = canonicalFast(value[key], depth + 1);
        if (member === undefined) return undefined;
        out += i === 0 ? name + member : `,${name}${member}`;
      }
      return `${out}}`;
    }
    default:
      return undefined;
  }
}

/** The careful path: the same text, or a ContractError naming the rule and the JSON pointer. */
function canonicalLocated(value: unknown): string {
  const path: (string | number)[] = [];
  const open = new Set<object>();

  const fail = (rule: CanonicalRule, message: string): never => {
    const at = pointer(...path);
    throw new ContractError(
      'paperclip_canonical_json_invalid',
      `cannot canonicalize: ${message} at '${at}'`,
      [{ code: rule, message, path: at }],
    );
  };

  const write = (v: unknown): string => {
    switch (typeof v) {
      case 'string':
        if (hasLoneSurrogate(v)) fail('lone_surrogate', 'string has an unpaired UTF-16 surrogate');
        return JSON.stringify(v);
      case 'number':
        if (!Number.isFinite(v)) fail('non_finite_number', `${v} is not a finite number`);
        return String(v);
      case 'boolean':
        return v ? 'true' : 'false';
      case 'object':
        return v === null ? 'null' : writeContainer(v);
      default:
        return fail('unsupported_value', `${typeof v} is not a JSON value`);
    }
  };

  const writeContainer = (container: object): string => {
    if (open.has(container)) fail('unsupported_value', 'circular reference');
    open.add(container);
    let text: string;
    if (Array.isArray(container)) text = writeArray(container);
    else if (isPlainObject(container)) text = writeObject(container);
    else text = fail('unsupported_value', `${describe(container)} is not a plain object or array`);
    open.delete(container);
    return text;
  };

  const writeArray = (array: readonly unknown[]): string => {
    let out = '[';
    for (let i = 0; i < array.length; i++) {
      const item = array[i];
      path.push(i);
      if (item === undefined && !(i in array)) fail('unsupported_value', 'array has a hole');
      out += (i === 0 ? '' : ',') + write(item);
      path.pop();
    }
    return out + ']';
  };

  const writeObject = (object: Record<string, unknown>): string => {
    let out = '{';
    let first = true;
    for (const key of Object.keys(object).sort()) {
      path.push(key);
      out += (first ? '' : ',') + memberName(key) + write(object[key]);
      first = false;
      path.pop();
    }
    return out + '}';
  };

  // Documents repeat a few member names many times: check and escape each once per call.
  const memberNames = new Map<string, string>();
  const memberName = (key: string): string => {
    let text = memberNames.get(key);
    if (text === undefined) {
      if (hasLoneSurrogate(key)) fail('lone_surrogate', 'member name has an unpaired UTF-16 surrogate');
      text = JSON.stringify(key) + ':';
      memberNames.set(key, text);
    }
    return text;
  };

  return write(value);
}

/** The UTF-8 bytes of `canonicalize(value)`: what is hashed, signed or written to disk. */
export function canonicalBytes(value: unknown): Uint8Array {
  return UTF8.encode(canonicalize(value));
}

function isPlainObject(value: object): value is Record<string, unknown> {
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

function describe(value: object): string {
  const constructor: unknown = (value as { constructor?: unknown }).constructor;
  return typeof constructor === 'function' && constructor.name !== '' ? constructor.name : 'object';
}
