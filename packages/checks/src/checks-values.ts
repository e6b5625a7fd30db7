// Layers 1, 2 and 4: checks on values found in the trace — a JSON Schema (schema), a number
// compared with a bound (constraint), and text matching (content) — with the verdicts of the peer
// Attest engine (engine/internal/assertion/schema.go, constraint.go, content.go): a target or field
// that is not there, a schema mismatch and a forbidden term are hard failures whatever `soft` says.
import { createRequire } from 'node:module';

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

import type * as AjvModule from 'ajv/dist/2020.js';
import type { Ajv2020, ValidateFunction } from 'ajv/dist/2020.js';

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

/**
 * User-supplied schemas get their own Ajv (the contract registry holds only our schemas). `format`
 * is an annotation, as JSON Schema 2020-12 makes it by default: it never fails a value. Ajv (the
 * compiler, 0.1–0.3 s to load) is loaded at the first schema check, not by every command that
 * imports this package (`evals validate` of one bundle would spend more on it than on the bundle).
 */
type Dialect = '2020-12' | '2019-09' | 'draft-07';
const userSchemas = new Map<Dialect, Ajv2020>();
const require = createRequire(import.meta.url);
function userSchemaAjv(dialect: Dialect): Ajv2020 {
  let ajv = userSchemas.get(dialect);
  if (ajv === undefined) {
    const options = { strict: false, allErrors: true, addUsedSchema: false, validateFormats: false };
    if (dialect === '2020-12') {
      const { Ajv2020: Ajv } = require('ajv/dist/2020.js') as typeof AjvModule;
      ajv = new Ajv(options);
    } else {
      const Ajv = (dialect === '2019-09' ? require('ajv/dist/2019.js') : require('ajv/dist/ajv.js')) as {
        default: new (opts: typeof options) => Ajv2020;
      };
      ajv = new Ajv.default(options);
    }
    userSchemas.set(dialect, ajv);
  }
  return ajv;
}

/**
 * The draft a schema's `$schema` names, as the Attest engine's compiler (santhosh-tekuri/jsonschema
 * v6) picks it: draft-07 (and -06, -04, read as -07 here) and 2019-09 by name, else 2020-12.
 */
function dialectOf(schema: Record<string, unknown> | boolean): Dialect {
  const named = typeof schema === 'object' && typeof schema.$schema === 'string' ? schema.$schema : '';
  if (/draft-0[467]\b/.test(named)) return 'draft-07';
  if (named.includes('2019-09')) return '2019-09';
  return '2020-12';
}
const compiled = new Map<string, ValidateFunction>();
const MAX_CACHED_SCHEMAS = 256;

/** The spec's schema: an object or a boolean schema (true accepts everything, false nothing). */
function schemaField(spec: Spec): Record<string, unknown> | boolean {
  const schema = spec.schema;
  if (typeof schema === 'boolean') return schema;
  return objectField(spec, 'schema');
}

function compileUserSchema(schema: Record<string, unknown> | boolean): ValidateFunction {
  // Read in the draft `$schema` names (its spellings vary in the wild: "…/draft/2020-12"), the
  // member itself left out so no meta-schema is fetched.
  const dialect = dialectOf(schema);
  const body: Record<string, unknown> | boolean =
    typeof schema === 'boolean' ? schema : (({ $schema: _ignored, ...rest }) => rest)(schema);
  const key = `${dialect} ${JSON.stringify(body)}`;
  let validate = compiled.get(key);
  if (validate === undefined) {
    try {
      validate = userSchemaAjv(dialect).compile(body);
    } catch (error) {
      throw specError(`spec.schema is not a valid JSON Schema: ${(error as Error).message}`, {
        cause: error,
      });
    }
    if (compiled.size >= MAX_CACHED_SCHEMAS) compiled.clear();
    compiled.set(key, validate);
  }
  return validate;
}

export function checkSchema(trace: Trace, spec: Spec): Verdict {
  const target = targetField(spec, 'target');
  const validate = compileUserSchema(schemaField(spec));
  const where = formatTracePath(target);
  const lookup = resolveTarget(trace, target);
  // The Attest engine's words (schema.go:39-41, 64-66, 76, 86), with the target as the spec wrote it.
  if (!lookup.found) return missingTarget(lookup.problem);
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
