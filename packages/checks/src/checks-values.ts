// Layers 1, 2 and 4: checks on values found in the trace — a JSON Schema (schema), a number
// compared with a bound (constraint), and text matching (content).
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsPlugin from 'ajv-formats';

import { SpecError } from './assertion-types.js';
import { REGEX_TIME_LIMIT_MS, testRegexWithin } from './regex-guard.js';
import { resolveTracePath, formatTracePath } from './trace-path.js';
import {
  comparisonField,
  flag,
  objectField,
  oneOf,
  pathField,
  stringField,
  stringList,
  targetText,
} from './spec-fields.js';

import type { ValidateFunction } from 'ajv/dist/2020.js';

import type { Verdict } from './assertion-types.js';
import type { Spec } from './spec-fields.js';
import type { Trace } from './trace.js';

/** Longest regex_match pattern, in characters. */
export const MAX_REGEX_PATTERN_CHARS = 512;
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

// --- Layer 1: schema --------------------------------------------------------------------------

// ajv-formats is CommonJS; under NodeNext its default import is the module object.
const addFormats = addFormatsPlugin as unknown as (ajv: Ajv2020) => Ajv2020;
/** User-supplied schemas get their own Ajv (the contract registry holds only our schemas). */
const userSchemas = addFormats(new Ajv2020({ strict: false, allErrors: true, addUsedSchema: false }));
const compiled = new Map<string, ValidateFunction>();
const MAX_CACHED_SCHEMAS = 256;

function compileUserSchema(schema: Record<string, unknown>): ValidateFunction {
  // Every schema is read as draft 2020-12; `$schema` spellings vary in the wild ("…/draft/2020-12").
  const { $schema: _ignored, ...body } = schema;
  const key = JSON.stringify(body);
  let validate = compiled.get(key);
  if (validate === undefined) {
    try {
      validate = userSchemas.compile(body);
    } catch (error) {
      throw new SpecError(`spec.schema is not a valid JSON Schema: ${(error as Error).message}`, {
        cause: error,
      });
    }
    if (compiled.size >= MAX_CACHED_SCHEMAS) compiled.clear();
    compiled.set(key, validate);
  }
  return validate;
}

export function checkSchema(trace: Trace, spec: Spec): Verdict {
  const target = pathField(spec, 'target');
  const validate = compileUserSchema(objectField(spec, 'schema'));
  const where = formatTracePath(target);
  const lookup = resolveTracePath(trace, target);
  if (!lookup.found) return fail(`${where} is not in the trace`, { actual: 'missing' });
  if (validate(lookup.value)) return pass(`${where} matches the schema`);
  const problems = (validate.errors ?? []).map(
    (error) => `${error.instancePath || '/'} ${error.message ?? ''}`,
  );
  return fail(`${where} fails the schema: ${problems.join('; ')}`, { actual: problems });
}

// --- Layer 2: constraint ----------------------------------------------------------------------

export function checkConstraint(trace: Trace, spec: Spec): Verdict {
  const field = pathField(spec, 'field');
  const comparison = comparisonField(spec);
  const where = formatTracePath(field);
  const lookup = resolveTracePath(trace, field);
  if (!lookup.found)
    return fail(`${where} is missing, so ${comparison.text} cannot hold`, {
      actual: 'missing',
      expected: comparison.text,
    });
  const actual = lookup.value;
  if (typeof actual !== 'number' || !Number.isFinite(actual)) {
    return fail(`${where} is not a number (${JSON.stringify(actual)})`, {
      actual,
      expected: comparison.text,
    });
  }
  const held = comparison.test(actual);
  return (held ? pass : fail)(`${where} = ${actual}, ${held ? 'satisfies' : 'violates'} ${comparison.text}`, {
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
  const check = oneOf(spec, 'check', CONTENT_CHECKS);
  const caseSensitive = flag(spec, 'case_sensitive');
  if (check === 'regex_match') return checkRegex(trace, spec, caseSensitive);
  const needles =
    check === 'contains' || check === 'not_contains'
      ? [stringField(spec, 'value')]
      : stringList(spec, 'values');
  const found = targetText(trace, spec);
  if (found.text === undefined) return fail(`${found.where} is not in the trace`, { actual: 'missing' });
  const fold = (text: string): string => (caseSensitive ? text : text.toLowerCase());
  const haystack = fold(found.text);
  const present = needles.filter((needle) => haystack.includes(fold(needle)));
  const absent = needles.filter((needle) => !present.includes(needle));
  const quoted = (list: string[]): string => list.map((item) => JSON.stringify(item)).join(', ');
  switch (check) {
    case 'contains':
      return present.length > 0
        ? pass(`${found.where} contains ${quoted(needles)}`)
        : fail(`${found.where} does not contain ${quoted(needles)}`);
    case 'not_contains':
      return present.length === 0
        ? pass(`${found.where} does not contain ${quoted(needles)}`)
        : fail(`${found.where} contains ${quoted(needles)}`);
    case 'keyword_all':
      return absent.length === 0
        ? pass(`${found.where} contains every keyword`)
        : fail(`${found.where} lacks ${quoted(absent)}`, { expected: needles, actual: present });
    case 'keyword_any':
      return present.length > 0
        ? pass(`${found.where} contains ${quoted(present)}`)
        : fail(`${found.where} contains none of ${quoted(needles)}`, { expected: needles });
    case 'forbidden':
      return present.length === 0
        ? pass(`${found.where} contains no forbidden term`)
        : fail(`${found.where} contains forbidden ${quoted(present)}`, { actual: present });
  }
}

function checkRegex(trace: Trace, spec: Spec, caseSensitive: boolean): Verdict {
  const pattern = stringField(spec, 'value');
  if (pattern.length > MAX_REGEX_PATTERN_CHARS) {
    throw new SpecError(
      `spec.value is ${pattern.length} characters; regex_match patterns are bounded at ${MAX_REGEX_PATTERN_CHARS}`,
    );
  }
  const flags = caseSensitive ? '' : 'i';
  try {
    new RegExp(pattern, flags);
  } catch (error) {
    throw new SpecError(`spec.value is not a valid regular expression: ${(error as Error).message}`, {
      cause: error,
    });
  }
  const found = targetText(trace, spec);
  if (found.text === undefined) return fail(`${found.where} is not in the trace`, { actual: 'missing' });
  if (found.text.length > MAX_REGEX_INPUT_CHARS) {
    return fail(
      `${found.where} is ${found.text.length} characters, over the ${MAX_REGEX_INPUT_CHARS}-character regex_match bound`,
      {
        expected: `at most ${MAX_REGEX_INPUT_CHARS} characters`,
        actual: found.text.length,
      },
    );
  }
  const outcome = testRegexWithin(pattern, flags, found.text);
  if ('timedOut' in outcome) {
    // Catastrophic backtracking is the pattern's doing: a spec to fix, never a verdict on the agent.
    throw new SpecError(
      `spec.value ran longer than ${REGEX_TIME_LIMIT_MS} ms on ${found.where} (catastrophic backtracking): rewrite the pattern without nested or overlapping quantifiers such as (a+)+`,
    );
  }
  if ('error' in outcome) throw new SpecError(`spec.value failed on ${found.where}: ${outcome.error}`);
  return outcome.matched
    ? pass(`${found.where} matches /${pattern}/`)
    : fail(`${found.where} does not match /${pattern}/`);
}
