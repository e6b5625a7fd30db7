// Test support: the directories and repo files the reference-runner tests use.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsPlugin from 'ajv-formats';

export const PACKAGE_DIR = fileURLToPath(new URL('../../', import.meta.url));
export const REPO_DIR = join(PACKAGE_DIR, '..', '..');

const addFormats = addFormatsPlugin as unknown as (ajv: Ajv2020) => Ajv2020;

/** A validator of one of the repo's own JSON Schemas (schemas/<relative>), standalone. */
export function repoSchemaValidator(relative: string): (value: unknown) => string[] {
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  addFormats(ajv);
  const validate = ajv.compile(
    JSON.parse(readFileSync(join(REPO_DIR, 'schemas', relative), 'utf8')) as object,
  );
  return (value) =>
    validate(value)
      ? []
      : (validate.errors ?? []).map((error) => `${error.instancePath} ${error.message ?? ''}`);
}
