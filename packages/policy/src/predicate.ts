// Tier 1 predicate trees, compiled once at load into plain functions of an event: all / any / not
// over field tests (equals, in, glob, regex). Patterns are compiled at load, so a bad one skips its
// artifact (bad_pattern) instead of failing a row. A field that is absent matches no test.
import picomatch from 'picomatch';
import { RE2JS } from 're2js';

import { PolicyError, isPolicyError } from './errors.js';

import type { PolicyEvent } from './event.js';

export type Scalar = string | number | boolean | null;

/** A predicate as the bundle schema ($defs/predicate) admits it. */
export type PredicateNode =
  | { readonly all: readonly PredicateNode[] }
  | { readonly any: readonly PredicateNode[] }
  | { readonly not: PredicateNode }
  | { readonly field: string; readonly equals: Scalar }
  | { readonly field: string; readonly in: readonly Scalar[] }
  | { readonly field: string; readonly glob: string }
  | { readonly field: string; readonly regex: string };

export type Predicate = (event: PolicyEvent) => boolean;

/**
 * A pattern that does not compile: a paperclip_policy_bundle_invalid PolicyError with one
 * bad_pattern issue; the artifact holding it is skipped with bad_pattern.
 */
function badPattern(kind: 'glob' | 'regex', pattern: string, cause: unknown): PolicyError {
  const message = `${kind} ${JSON.stringify(pattern)}: ${String(cause)}`;
  return new PolicyError(
    'paperclip_policy_bundle_invalid',
    message,
    [{ code: 'bad_pattern', message, expected: `a ${kind} that compiles`, received: pattern }],
    { cause },
  );
}

/** Whether `error` is a pattern that does not compile (compilePredicate's refusal). */
export function isBadPattern(error: unknown): boolean {
  return (
    isPolicyError(error) &&
    error.code === 'paperclip_policy_bundle_invalid' &&
    error.issues.some((issue) => issue.code === 'bad_pattern')
  );
}

/** Compiles a schema-valid predicate; throws a bad pattern (isBadPattern) for a glob or regex that does not compile. */
export function compilePredicate(node: PredicateNode): Predicate {
  if ('all' in node) {
    const parts = node.all.map(compilePredicate);
    return (event) => parts.every((part) => part(event));
  }
  if ('any' in node) {
    const parts = node.any.map(compilePredicate);
    return (event) => parts.some((part) => part(event));
  }
  if ('not' in node) {
    const inner = compilePredicate(node.not);
    return (event) => !inner(event);
  }
  const read = fieldReader(node.field);
  if ('equals' in node) {
    const expected = node.equals;
    return (event) => scalarEquals(read(event), expected);
  }
  if ('in' in node) {
    const options = node.in;
    return (event) => {
      const value = read(event);
      return options.some((option) => scalarEquals(value, option));
    };
  }
  const test = 'glob' in node ? compileGlob(node.glob) : compileRegex(node.regex);
  return (event) => {
    const value = read(event);
    return typeof value === 'string' && test(value);
  };
}

function compileGlob(pattern: string): (text: string) => boolean {
  try {
    // strictBrackets: an unbalanced bracket is an author's mistake, not a literal.
    return picomatch(pattern, { dot: true, strictBrackets: true });
  } catch (cause) {
    throw badPattern('glob', pattern, cause);
  }
}

/**
 * A `regex` is RE2 (the syntax of Go's regexp and Rust's regex crate, which the upstream producer
 * uses: no lookaround, no backreferences), run by re2js in time linear in the text: the text comes
 * from an agent's recorded tool call, and a backtracking engine would let one hostile input under
 * a pattern such as `^(a+)+$` hang the producer (a row is never left unanswered for it).
 */
function compileRegex(pattern: string): (text: string) => boolean {
  try {
    const regex = RE2JS.compile(pattern);
    return (text) => regex.matcher(text).find();
  } catch (cause) {
    throw badPattern('regex', pattern, cause);
  }
}

/** `tool_input.files.0.path` → a function reading that path (object keys or array indexes). */
function fieldReader(field: string): (event: PolicyEvent) => unknown {
  const [root = '', ...path] = field.split('.');
  return (event) => {
    let value: unknown = (event as unknown as Record<string, unknown>)[root];
    for (const key of path) {
      if (typeof value !== 'object' || value === null || !Object.hasOwn(value, key)) return undefined;
      value = (value as Record<string, unknown>)[key];
    }
    return value;
  };
}

function scalarEquals(value: unknown, expected: Scalar): boolean {
  if (typeof value === 'bigint') return typeof expected === 'number' && value === BigInt(expected);
  return value === expected;
}
