// The fail-closed parser of paperclip-runner/native-execution/v1 attempt bundles: strict JSON text,
// then our JSON Schema, then the invariants a schema cannot express. Every issue is collected before
// one ContractError('paperclip_native_execution_invalid') is thrown; a valid bundle comes back as
// the parsed object itself, so unknown additive fields survive untouched.
import { ContractError } from './errors.js';
import { readJsonText, unsafeNumberIssues } from './json-text.js';
import {
  isRequiredTextPath,
  isTimestampPath,
  requiredTextIssues,
  timestampIssues,
} from './native-execution-fields.js';
import { nativeExecutionInvariantIssues } from './native-execution-invariants.js';
import { NATIVE_EXECUTION_V1 } from './native-execution-types.js';
import { SCHEMA_IDS, schemaIssuesOf } from './schema-registry.js';

import type { Issue } from './errors.js';
import type { JsonTextLimits, JudgeOptions } from './json-text.js';
import type { NativeExecution } from './native-execution-types.js';
import type { ErrorObject } from './schema-registry.js';

export type ParseNativeExecutionOptions = JsonTextLimits;

/** Parses bundle bytes (or text); throws ContractError listing every issue. */
export function parseNativeExecution(
  input: Uint8Array | string,
  options: ParseNativeExecutionOptions = {},
): NativeExecution {
  const text = readJsonText(input, options);
  if (!text.ok) throw invalidNativeExecution(text.issues);
  assertNativeExecution(text.value, { strictlyRead: true });
  return text.value;
}

/** Every issue of an already-parsed value; [] means it is a valid bundle. */
export function nativeExecutionIssues(value: unknown, options: JudgeOptions = {}): Issue[] {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return [
      {
        code: 'json_not_object',
        message: 'the bundle is not a JSON object',
        path: '',
        expected: 'a JSON object',
        received: value,
      },
    ];
  }
  const declared = (value as Record<string, unknown>).schema;
  if (declared !== NATIVE_EXECUTION_V1) {
    // An unknown schema is an issue, not a guess: nothing else is checked against rules it may not follow.
    return [
      {
        code: 'native_schema_unknown',
        message: 'the bundle does not declare paperclip-runner/native-execution/v1',
        path: '/schema',
        expected: NATIVE_EXECUTION_V1,
        received: declared === undefined ? 'missing' : declared,
      },
    ];
  }
  const bundle = value as Record<string, unknown>;
  // A value that never was text is held to the text's number rule (text refused them already):
  // upstream's integer() is Number.isSafeInteger, and no other number may be one JSON cannot hold.
  const numberIssues = options.strictlyRead === true ? [] : unsafeNumberIssues(value);
  // Required text and timestamps are judged by their own rules alone (a missing attemptId is
  // text_required, not also a schema error); every other place by the schema.
  const schemaIssues = schemaIssuesOf(SCHEMA_IDS.nativeExecutionV1, value, ruleFor).filter(
    ({ path = '' }) => !isRequiredTextPath(path) && !isTimestampPath(path),
  );
  return [
    ...numberIssues,
    ...schemaIssues,
    ...requiredTextIssues(bundle),
    ...timestampIssues(bundle),
    ...nativeExecutionInvariantIssues(bundle),
  ];
}

export function isNativeExecution(value: unknown): value is NativeExecution {
  return nativeExecutionIssues(value).length === 0;
}

export function assertNativeExecution(
  value: unknown,
  options: JudgeOptions = {},
): asserts value is NativeExecution {
  const issues = nativeExecutionIssues(value, options);
  if (issues.length > 0) throw invalidNativeExecution(issues);
}

/** The parser's error for these issues: paperclip_native_execution_invalid, naming the first. */
export function invalidNativeExecution(issues: readonly Issue[]): ContractError {
  const first = issues[0];
  const summary =
    first === undefined ? '' : `: ${first.code} at ${first.path === '' ? '(root)' : (first.path ?? '')}`;
  const more = issues.length > 1 ? ` (+${issues.length - 1} more)` : '';
  return new ContractError(
    'paperclip_native_execution_invalid',
    `invalid native-execution bundle${summary}${more}`,
    issues,
  );
}

const USAGE_COUNT_PATH = /^\/usage\/(inputTokens|outputTokens|totalTokens|requestCount|durationMs)$/;

/** The rule code of the fail-closed rule an Ajv error breaks. */
function ruleFor(error: ErrorObject, path: string): string {
  if (path === '/provenance') return 'provenance_unknown';
  const field = path.slice(path.lastIndexOf('/') + 1);
  const pattern = (error.params as { pattern?: unknown }).pattern;
  if (
    (typeof pattern === 'string' && pattern.startsWith('^sha256:')) ||
    field === 'sha256' ||
    field.endsWith('Sha256') ||
    field === 'digest'
  ) {
    return 'digest_malformed';
  }
  if (path === '/usage/cost/amountMicros') return 'cost_micros_invalid';
  if (/^\/usage\/[A-Za-z]+CostNanodollars$/.test(path)) return 'cost_nanodollars_invalid';
  if (/^\/usage\/(costCoverage|providerReportedCostProvenance|pricingVersion)$/.test(path))
    return 'cost_field_invalid';
  if (USAGE_COUNT_PATH.test(path)) return 'usage_count_invalid';
  return 'schema_violation';
}
