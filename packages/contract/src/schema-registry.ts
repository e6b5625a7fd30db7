// The one schema registry: every JSON Schema under the repo's schemas/ folder, loaded once into a
// single Ajv 2020-12 instance and looked up by $id. Validators are compiled on first use and cached.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsPlugin from 'ajv-formats';

import type { ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';

/** The repo's schemas/ folder (this file sits at packages/contract/{src,dist}/). */
export const SCHEMAS_DIR = fileURLToPath(new URL('../../../schemas/', import.meta.url));

export const SCHEMA_IDS = {
  nativeExecutionV1: 'https://paperclip.dev/schemas/runner/native-execution/v1.json',
  prpEventV1: 'https://paperclip.dev/schemas/prp/v1/event.schema.json',
  prpTerminalV1: 'https://paperclip.dev/schemas/prp/v1/terminal.schema.json',
  prpResultV1: 'https://paperclip.dev/schemas/prp/v1/result.schema.json',
  prpUsageV1: 'https://paperclip.dev/schemas/prp/v1/usage.schema.json',
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

export type { ErrorObject };
