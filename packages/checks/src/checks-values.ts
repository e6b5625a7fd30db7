// Layers 1, 2 and 4: checks on values found in the trace — a JSON Schema (schema), a number
// compared with a bound (constraint), and text matching (content) — with the verdicts of the peer
// Attest engine (engine/internal/assertion/schema.go, constraint.go, content.go): a target or field
// that is not there, a schema mismatch and a forbidden term are hard failures whatever `soft` says.
import { goLowerCase } from './go-text.js';
import { REGEX_TIME_LIMIT_MS, re2SyntaxError, testRegexWithin } from './regex-guard.js';
import { resolveTracePath, formatTracePath } from './trace-path.js';
import {
  comparisonField,
  goFloat,
  flag,
  inGoWords,
  isGoZero,
  requiredOneOf,
  stringField,
  objectField,
  constraintField,
  specError,
  resolveTarget,
  targetField,
  targetText,
  textField,
  textList,
} from './spec-fields.js';

import { ajvForDraft, schemaDraft, withoutRefSiblings } from './schema-dialect.js';

import type { ValidateFunction } from './schema-dialect.js';

import type { Verdict } from './assertion-types.js';
import type { Spec } from './spec-fields.js';
import type { Trace } from './trace.js';

/** Longest regex_match pattern, in UTF-8 bytes (the peer engine's bound). */
export const MAX_REGEX_PATTERN_BYTES = 10_000;
/** Longest text regex_match runs on, in characters. */
export const MAX_REGEX_INPUT_CHARS = 100_000;

const pass = (explanation: string, extra: { expected?: unknown; actual?: unknown } = {}): Verdict => ({
  kind: 'checked',
  passed: true,
  explanation,
  ...extra,
});
const fail = (explanation: string, extra: { expected?: unknown; actual?: unknown } = {}): Verdict => ({
  kind: 'checked',
  passed: false,
  explanation,
  ...extra,
});
/** A failure `soft` does not soften. */
const hardFail = (explanation: string, extra: { expected?: unknown; actual?: unknown } = {}): Verdict => ({
  kind: 'checked',
  passed: false,
  hard: true,
  explanation,
  ...extra,
});

// --- Layer 1: schema --------------------------------------------------------------------------

const compiled = new Map<string, ValidateFunction>();
const MAX_CACHED_SCHEMAS = 256;

/** The spec's schema: an object or a boolean schema (true accepts everything, false nothing). */
function schemaField(spec: Spec): Record<string, unknown> | boolean {
  const schema = spec.schema;
  if (typeof schema === 'boolean') return schema;
  return objectField(spec, 'schema');
}

/**
 * The schema compiled as the Attest engine's compiler reads it (schema-dialect.ts: the draft its
 * `$schema` names, else 2020-12), each draft with its own Ajv, loaded at the first schema check
 * (0.1–0.3 s) rather than by every command importing this package. A schema that does not compile
 * is an invalid spec, in the words "schema compilation failed: …" (schema.go:51-60).
 */
function compileUserSchema(schema: Record<string, unknown> | boolean): ValidateFunction {
  const read = schemaDraft(schema);
  if ('error' in read) {
    throw specError(`spec.schema's $schema names no draft this engine reads: ${read.error}`, {
      detail: `schema compilation failed: ${read.error}`,
    });
  }
  // A $schema naming a draft is left out, so no metaschema is fetched (the draft is the
  // validator's); one that is not a string stays, and fails as it fails there (metaschema: a string).
  const body =
    typeof schema === 'boolean'
      ? schema
      : withoutRefSiblings(
          typeof schema.$schema === 'string' ? (({ $schema: _ignored, ...rest }) => rest)(schema) : schema,
          read.draft,
        );
  const key = `${read.draft} ${JSON.stringify(body)}`;
  let validate = compiled.get(key);
  if (validate === undefined) {
    try {
      validate = ajvForDraft(read.draft).compile(body as object | boolean);
    } catch (error) {
      throw specError(`spec.schema is not a valid JSON Schema: ${(error as Error).message}`, {
        cause: error,
        detail: `schema compilation failed: ${(error as Error).message}`,
      });
    }
    if (compiled.size >= MAX_CACHED_SCHEMAS) compiled.clear();
    compiled.set(key, validate);
  }
  return validate;
}

export function checkSchema(trace: Trace, spec: Spec): Verdict {
  const target = targetField(spec, 'target');
  const schema = schemaField(spec);
  const where = target.text;
  const lookup = resolveTarget(trace, target);
  // The Attest engine's words and order (schema.go:39-41, 51-60, 64-66, 76, 86): the target is
  // resolved before the schema is compiled, with the target as the spec wrote it.
  if (!lookup.found) return missingTarget(lookup.problem);
  const validate = compileUserSchema(schema);
  if (lookup.value === undefined)
    return hardFail('cannot parse target value: unexpected end of JSON input', { actual: 'missing' });
  const written = writtenTarget(spec, where);
  if (validate(lookup.value))
    return pass(`${written} matches schema: all required fields present, types valid.`);
  const problems = (validate.errors ?? []).map(
    (error) => `${error.instancePath || '/'} ${error.message ?? ''}`,
  );
  return hardFail(`${written} failed schema validation: ${problems.join('; ')}`, { actual: problems });
}

// --- Layer 2: constraint ----------------------------------------------------------------------

/** The operators constraint.go reads (its switch, 56-93). */
const CONSTRAINT_OPERATORS: readonly string[] = ['lt', 'lte', 'gt', 'gte', 'eq', 'between'];

export function checkConstraint(trace: Trace, spec: Spec): Verdict {
  // An unusable spec in the Attest engine's words and order (constraint.go:33-93).
  const written = inGoWords('constraint spec missing required field: field', () =>
    stringField(spec, 'field'),
  );
  if (isGoZero(spec, 'operator'))
    inGoWords('constraint spec missing required field: operator', () => stringField(spec, 'operator'));
  const field = inGoWords(`field resolution failed: unsupported constraint field: ${written}`, () =>
    constraintField(spec),
  );
  const operator = spec.operator;
  const absent = (key: string): boolean => spec[key] === undefined || spec[key] === null;
  const words =
    typeof operator !== 'string' || !CONSTRAINT_OPERATORS.includes(operator)
      ? `unsupported operator: ${String(operator)}`
      : operator === 'between'
        ? absent('min') || absent('max')
          ? "operator 'between' requires 'min' and 'max'"
          : ''
        : absent('value')
          ? `operator '${operator}' requires 'value'`
          : '';
  const comparison = inGoWords(words, () => comparisonField(spec));
  const where = formatTracePath(field);
  // No steps (absent or null) count as none, as the Attest engine counts a nil list (constraint.go:137-150).
  const root = trace.steps === undefined || trace.steps === null ? { ...trace, steps: [] } : trace;
  const lookup = resolveTracePath(root, field);
  // The Attest engine's words (constraint.go:43, 60-110).
  if (!lookup.found)
    return hardFail(`field resolution failed: ${where} is not set`, {
      actual: 'missing',
      expected: comparison.text,
    });
  const actual = lookup.value;
  if (typeof actual !== 'number' || !Number.isFinite(actual)) {
    return hardFail(`${where} is not a number (${JSON.stringify(actual)})`, {
      actual,
      expected: comparison.text,
    });
  }
  const held = comparison.test(actual);
  const stated = `${where} = ${goFloat(actual)}, constraint ${comparison.constraint}`;
  return (held ? pass : fail)(`${stated} — ${held ? 'satisfied.' : 'constraint not satisfied.'}`, {
    actual,
    expected: comparison.text,
  });
}

// --- Layer 4: content -------------------------------------------------------------------------

const CONTENT_CHECKS = [
  'contains',
  'not_contains',
  'regex_match',
  'keyword_all',
  'keyword_any',
  'forbidden',
] as const;

export function checkContent(trace: Trace, spec: Spec): Verdict {
  // The Attest engine's order (content.go:33-42, 167): the check named, the target resolved, then
  // the check known.
  if (isGoZero(spec, 'check'))
    inGoWords('content spec missing required field: check', () => stringField(spec, 'check'));
  const found = targetText(trace, spec);
  if (found.text === undefined) return missingTarget(found.problem);
  const check = requiredOneOf(spec, 'check', CONTENT_CHECKS, {
    missing: 'content spec missing required field: check',
    unknown: (value) => `unknown content check type: ${value}`,
  });
  if (check === 'regex_match') return checkRegex(spec, { where: found.where, text: found.text });
  const caseSensitive = flag(spec, 'case_sensitive');
  // An empty value or list is a valid spec: "" is in every text, and an empty list has no member.
  const needles =
    check === 'contains' || check === 'not_contains' ? [textField(spec, 'value')] : textList(spec, 'values');
  // Lowered as Go's strings.ToLower lowers (content.go:44-47), not as JavaScript does.
  const fold = (text: string): string => (caseSensitive ? text : goLowerCase(text));
  const haystack = fold(found.text);
  const present = needles.filter((needle) => haystack.includes(fold(needle)));
  const absent = needles.filter((needle) => !present.includes(needle));
  // Explanations in the Attest engine's words (content.go:57-165): the target as the spec wrote it,
  // values in single quotes, lists as Go prints them ([a b]).
  const where = writtenTarget(spec, found.where);
  const [value = ''] = needles;
  const goList = (list: readonly string[]): string => `[${list.join(' ')}]`;
  switch (check) {
    case 'contains':
      return present.length > 0
        ? pass(`${where} contains '${value}'.`)
        : fail(`${where} does not contain '${value}'.`);
    case 'not_contains':
      return present.length === 0
        ? pass(`${where} does not contain '${value}'.`)
        : fail(`${where} contains '${value}' but should not.`);
    case 'keyword_all':
      return absent.length === 0
        ? pass(`${where} contains all keywords.`)
        : {
            kind: 'checked',
            passed: false,
            explanation: `${where} missing keywords: ${goList(absent)}`,
            expected: needles,
            actual: present,
            // The share of keywords found, as the peer engine scores it.
            score: present.length / needles.length,
          };
    case 'keyword_any':
      return present.length > 0
        ? pass(`${where} contains keyword '${present[0] ?? ''}'.`)
        : fail(`${where} contains none of keywords: ${goList(needles)}`, { expected: needles });
    case 'forbidden':
      return present.length === 0
        ? pass(`${where} contains none of forbidden terms.`)
        : hardFail(`${where} contains forbidden terms: ${goList(present)}`, { actual: present });
  }
}

/** A target that does not resolve: a hard failure in the Attest engine's words (content.go:40-42). */
function missingTarget(problem: string | undefined): Verdict {
  return hardFail(`target resolution failed: ${problem ?? 'target not found'}`, { actual: 'missing' });
}

/** The target as the spec wrote it (the Attest engine's explanations quote spec.Target), else its default. */
function writtenTarget(spec: Spec, where: string): string {
  return typeof spec.target === 'string' ? spec.target : where;
}

/**
 * regex_match: an RE2 pattern (Go's regexp, as the peer engine runs it), matched anywhere in the
 * target, case-sensitive unless the pattern says `(?i)` or the spec `case_sensitive: false`.
 */
function checkRegex(spec: Spec, found: { readonly where: string; readonly text: string }): Verdict {
  const written = textField(spec, 'value');
  const bytes = Buffer.byteLength(written);
  if (bytes > MAX_REGEX_PATTERN_BYTES) {
    throw specError(
      `spec.value is ${bytes} bytes; regex_match patterns are bounded at ${MAX_REGEX_PATTERN_BYTES}`,
    );
  }
  flag(spec, 'case_sensitive');
  const pattern = spec.case_sensitive === false ? `(?i)${written}` : written;
  const syntax = re2SyntaxError(pattern);
  if (syntax !== undefined) {
    throw specError(
      `spec.value is not an RE2 regular expression (Go's regexp syntax: no lookaround or backreferences): ${syntax}`,
    );
  }
  if (found.text.length > MAX_REGEX_INPUT_CHARS) {
    return fail(
      `${found.where} is ${found.text.length} characters, over the ${MAX_REGEX_INPUT_CHARS}-character regex_match bound`,
      {
        expected: `at most ${MAX_REGEX_INPUT_CHARS} characters`,
        actual: found.text.length,
      },
    );
  }
  const outcome = testRegexWithin(pattern, found.text);
  if ('timedOut' in outcome) {
    throw specError(
      `spec.value ran longer than ${REGEX_TIME_LIMIT_MS} ms on ${found.where}: simplify the pattern (fewer alternatives and counted repetitions)`,
    );
  }
  if ('error' in outcome) throw specError(`spec.value failed on ${found.where}: ${outcome.error}`);
  const where = writtenTarget(spec, found.where);
  return outcome.matched
    ? pass(`${where} matches regex '${written}'.`)
    : fail(`${where} does not match regex '${written}'.`);
}
