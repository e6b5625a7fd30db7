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

/**
 * A fresh Ajv instance holding every schema in `dir` (strict, all errors, ajv-formats). Its
 * `date-time` is ajv-formats' RFC 3339 rule, for our own schemas that mean RFC 3339 (checks traces,
 * qualification records). Upstream compiles `date-time` as a stricter pattern, so the schemas that
 * mirror upstream's (the PRP `instant`) state that pattern instead of the format: their verdicts
 * are upstream's whatever Ajv reads them (see docs/native-execution.md).
 */
export function createSchemaAjv(dir: string = SCHEMAS_DIR): Ajv2020 {
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  addFormats(ajv);
  for (const file of listSchemaFiles(dir)) {
    ajv.addSchema(JSON.parse(readFileSync(file, 'utf8')) as object);
  }
  return ajv;
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
