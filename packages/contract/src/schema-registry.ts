// The one schema registry: every JSON Schema under the repo's schemas/ folder, loaded once into a
// single Ajv 2020-12 instance and looked up by $id. Validators are compiled on first use and cached.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsPlugin from 'ajv-formats';

import { pointer } from './errors.js';

import type { ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';

import type { Issue } from './errors.js';

/** The repo's schemas/ folder (this file sits at packages/contract/{src,dist}/). */
export const SCHEMAS_DIR = fileURLToPath(new URL('../../../schemas/', import.meta.url));

export const SCHEMA_IDS = {
  nativeExecutionV1: 'https://paperclip.dev/schemas/runner/native-execution/v1.json',
  prpEventV1: 'https://paperclip.dev/schemas/prp/v1/event.schema.json',
  prpTerminalV1: 'https://paperclip.dev/schemas/prp/v1/terminal.schema.json',
  prpResultV1: 'https://paperclip.dev/schemas/prp/v1/result.schema.json',
  prpUsageV1: 'https://paperclip.dev/schemas/prp/v1/usage.schema.json',
  runnerdBuildMetadataV1: 'https://paperclip.dev/schemas/runner/runnerd-build-metadata/v1.json',
  packageBuildMetadataV1: 'https://paperclip.dev/schemas/runner/build-metadata/v1.json',
  consumerRequirementsV1: 'https://paperclip-evals.dev/schemas/consumer-requirements/v1.json',
} as const;

// ajv-formats is CommonJS; under NodeNext its default import is the module object.
const addFormats = addFormatsPlugin as unknown as (ajv: Ajv2020) => Ajv2020;

let registry: Ajv2020 | undefined;
const validators = new Map<string, ValidateFunction>();

/** Every `*.json` file below `dir`, in a stable order. */
export function listSchemaFiles(dir: string = SCHEMAS_DIR): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((relative) => relative.endsWith('.json'))
    .sort()
    .map((relative) => join(dir, relative));
}

/** A fresh Ajv instance holding every schema in `dir` (strict, all errors, formats). */
export function createSchemaAjv(dir: string = SCHEMAS_DIR): Ajv2020 {
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  addFormats(ajv);
  addFastDateTime(ajv);
  for (const file of listSchemaFiles(dir)) {
    ajv.addSchema(JSON.parse(readFileSync(file, 'utf8')) as object);
  }
  return ajv;
}

/** `2026-11-30T12:00:00.000Z`: the shape nearly every timestamp in a bundle has. */
const UTC_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?Z$/;
const DAYS_IN_MONTH = [0, 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/**
 * ajv-formats' `date-time` costs a third of a bundle's validation. This accepts the common UTC
 * shape after checking its fields, allocation-free, and hands every other string to ajv-formats,
 * so the verdicts are ajv-formats' own (a test holds them equal on random timestamps).
 */
function addFastDateTime(ajv: Ajv2020): void {
  const full = ajv.formats['date-time'];
  const fullValidate = (typeof full === 'object' && 'validate' in full ? full.validate : full) as unknown;
  if (typeof fullValidate !== 'function') throw new Error('ajv-formats did not register date-time');
  const isFullDateTime = fullValidate as (text: string) => unknown;
  const digits = (text: string, at: number, count: number): number => {
    let value = 0;
    for (let index = at; index < at + count; index++) value = value * 10 + text.charCodeAt(index) - 48;
    return value;
  };
  const isCommonUtc = (text: string): boolean => {
    if (!UTC_DATE_TIME.test(text)) return false;
    const year = digits(text, 0, 4);
    const month = digits(text, 5, 2);
    const day = digits(text, 8, 2);
    const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
    const monthDays = month === 2 && !leap ? 28 : (DAYS_IN_MONTH[month] ?? 0);
    return (
      day >= 1 &&
      day <= monthDays &&
      digits(text, 11, 2) <= 23 &&
      digits(text, 14, 2) <= 59 &&
      digits(text, 17, 2) <= 59
    );
  };
  ajv.addFormat('date-time', {
    type: 'string',
    validate: (text: string) => isCommonUtc(text) || isFullDateTime(text) === true,
  });
}

/** The compiled validator for a schema $id; throws if no schema has that $id. */
export function schemaValidator(schemaId: string): ValidateFunction {
  let validate = validators.get(schemaId);
  if (validate === undefined) {
    registry ??= createSchemaAjv();
    validate = registry.getSchema(schemaId);
    if (validate === undefined) throw new Error(`no schema with $id ${schemaId} in ${SCHEMAS_DIR}`);
    validators.set(schemaId, validate);
  }
  return validate;
}

/**
 * Ajv's errors for `value` against a schema, or [] when it is valid. Errors of an `if` keyword are
 * dropped: each is always accompanied by the more precise errors of its `then` branch.
 */
export function schemaErrors(schemaId: string, value: unknown): ErrorObject[] {
  const validate = schemaValidator(schemaId);
  if (validate(value)) return [];
  return (validate.errors ?? []).filter((error) => error.keyword !== 'if');
}

/**
 * Every schema error of `value` as an Issue: `path` is the JSON pointer of the offending value (of
 * the missing member, for `required`), `expected` what the schema asked for, `received` what is
 * there. `codeFor` names the rule each error breaks.
 */
export function schemaIssuesOf(
  schemaId: string,
  value: unknown,
  codeFor: (error: ErrorObject, path: string) => string,
): Issue[] {
  return schemaErrors(schemaId, value).map((error) => {
    const missing =
      error.keyword === 'required'
        ? (error.params as { missingProperty: string }).missingProperty
        : undefined;
    const path = missing === undefined ? error.instancePath : error.instancePath + pointer(missing);
    return {
      code: codeFor(error, path),
      message:
        missing === undefined
          ? `${path === '' ? '(root)' : path} ${error.message ?? 'is invalid'}`
          : `${error.instancePath === '' ? '(root)' : error.instancePath} is missing required property '${missing}'`,
      path,
      expected: expectationOf(error),
      received: missing === undefined ? valueAt(value, error.instancePath) : 'missing',
    };
  });
}

function expectationOf(error: ErrorObject): unknown {
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'const':
      return params.allowedValue;
    case 'enum':
      return `one of ${(params.allowedValues as unknown[]).map((value) => JSON.stringify(value)).join(', ')}`;
    case 'type':
      return `type ${String(params.type)}`;
    case 'pattern':
      return `a string matching ${String(params.pattern)}`;
    case 'required':
      return `property ${String(params.missingProperty)}`;
    case 'minimum':
    case 'maximum':
    case 'minLength':
    case 'maxLength':
    case 'minItems':
    case 'maxItems':
      return `${error.keyword} ${String(params.limit)}`;
    case 'format':
      return `format ${String(params.format)}`;
    case 'additionalProperties':
      return `no property ${String(params.additionalProperty)}`;
    default:
      return error.message ?? error.keyword;
  }
}

/** The value at a JSON pointer, or 'missing'. */
function valueAt(root: unknown, path: string): unknown {
  let node: unknown = root;
  for (const raw of path.split('/').slice(1)) {
    const token = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    if (typeof node !== 'object' || node === null || !Object.hasOwn(node, token)) return 'missing';
    node = (node as Record<string, unknown>)[token];
  }
  return node;
}

export type { ErrorObject };
