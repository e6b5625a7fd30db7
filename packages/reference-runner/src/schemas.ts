// The package's schema registry: every schema it ships under protocol/schemas/, loaded once into
// one Ajv 2020-12 instance (with formats) and looked up by $id. Validators compile on first use.
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsPlugin from 'ajv-formats';

import { readProtocolSchemas } from './assets.js';

import type { ValidateFunction } from 'ajv/dist/2020.js';

export const SCHEMA_IDS = {
  prpEventV1: 'https://paperclip.dev/schemas/prp/v1/event.schema.json',
  prpTerminalV1: 'https://paperclip.dev/schemas/prp/v1/terminal.schema.json',
  prpUsageV1: 'https://paperclip.dev/schemas/prp/v1/usage.schema.json',
  prpResultV1: 'https://paperclip.dev/schemas/prp/v1/result.schema.json',
  nativeExecutionV1: 'https://paperclip.dev/schemas/runner/native-execution/v1.json',
  runnerdBuildMetadataV1: 'https://paperclip.dev/schemas/runner/runnerd-build-metadata/v1.json',
  packageBuildMetadataV1: 'https://paperclip.dev/schemas/runner/build-metadata/v1.json',
} as const;

export type SchemaId = (typeof SCHEMA_IDS)[keyof typeof SCHEMA_IDS];

/** One schema violation: a JSON pointer into the document, the keyword that failed and why. */
export interface SchemaViolation {
  readonly path: string;
  readonly keyword: string;
  readonly message: string;
}

// ajv-formats is CommonJS; under NodeNext its default import is the module object.
const addFormats = addFormatsPlugin as unknown as (ajv: Ajv2020) => Ajv2020;

let registry: Ajv2020 | undefined;
const validators = new Map<string, ValidateFunction>();

function schemaRegistry(): Ajv2020 {
  if (registry === undefined) {
    // Not optimising the generated code compiles the large PRP event schema several times faster
    // (runnerd compiles it on every eval-session); the verdicts are the same.
    const ajv = new Ajv2020({ strict: true, allErrors: true, code: { optimize: false } });
    addFormats(ajv);
    for (const schema of readProtocolSchemas()) ajv.addSchema(schema);
    registry = ajv;
  }
  return registry;
}

/** Every violation of the schema with this $id; [] means the value is valid. */
export function schemaViolations(id: SchemaId, value: unknown): SchemaViolation[] {
  let validate = validators.get(id);
  if (validate === undefined) {
    validate = schemaRegistry().getSchema(id);
    if (validate === undefined) throw new Error(`schema ${id} is not shipped in protocol/schemas`);
    validators.set(id, validate);
  }
  if (validate(value)) return [];
  return (validate.errors ?? []).map((error) => ({
    path: error.instancePath,
    keyword: error.keyword,
    message: error.message ?? error.keyword,
  }));
}
