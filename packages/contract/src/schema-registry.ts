// The one schema registry: every JSON Schema under the repo's schemas/ folder, looked up by $id.
// The build precompiles them into standalone modules, one per schema file (packages/contract/build/
// compile-validators.mjs → dist/validators/), each stamped with the digest of the schema files it
// was made from, and an index naming the module of every $id. A validator's module loads at the
// first use of its schema: a command loads only the validators it uses (`evals validate` of a
// bundle: the native-execution one), in milliseconds instead of compiling with Ajv (the better part
// of a second). When the index or a module is missing, or its digest is not the digest of the
// schemas on disk (a schema edited since the build), the schemas are compiled here, on first use,
// into a single Ajv 2020-12 instance — never a stale validator.
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { sha256DigestOfParts } from './digest.js';
import { pointer } from './errors.js';
import { SECRET_MASK, isSecretName, scrubCredentials } from './secrets.js';
import { useLengthShortcut } from './schema-lengths.js';

import type * as AjvModule from 'ajv/dist/2020.js';
import type { Ajv2020, ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';

import type { Issue } from './errors.js';

/** The repo's schemas/ folder (this file sits at packages/contract/{src,dist}/). */
export const SCHEMAS_DIR = fileURLToPath(new URL('../../../schemas/', import.meta.url));

export const SCHEMA_IDS = {
  nativeExecutionV1: 'https://paperclip.dev/schemas/runner/native-execution/v1.json',
  evalSessionArtifactV1: 'https://paperclip.dev/schemas/runner/eval-session-artifact/v1.json',
  prpEventV1: 'https://paperclip.dev/schemas/prp/v1/event.schema.json',
  prpTerminalV1: 'https://paperclip.dev/schemas/prp/v1/terminal.schema.json',
  prpResultV1: 'https://paperclip.dev/schemas/prp/v1/result.schema.json',
  prpUsageV1: 'https://paperclip.dev/schemas/prp/v1/usage.schema.json',
  runnerdBuildMetadataV1: 'https://paperclip.dev/schemas/runner/runnerd-build-metadata/v1.json',
  packageBuildMetadataV1: 'https://paperclip.dev/schemas/runner/build-metadata/v1.json',
  consumerRequirementsV1: 'https://paperclip-evals.dev/schemas/consumer-requirements/v1.json',
} as const;

// Ajv (the compiler) and ajv-formats load only when something must be compiled: with the build's
// precompiled validators a command never loads them. Both are CommonJS.
const require = createRequire(import.meta.url);
const loadAjv = (): typeof AjvModule => require('ajv/dist/2020.js') as typeof AjvModule;
const loadAddFormats = (): ((ajv: Ajv2020) => Ajv2020) =>
  (require('ajv-formats') as { default: (ajv: Ajv2020) => Ajv2020 }).default;

/** The build's precompiled validators: a folder of modules and its index.json (this file sits at packages/contract/{src,dist}/). */
export const PRECOMPILED_VALIDATORS = fileURLToPath(new URL('../dist/validators/', import.meta.url));

/** The build's index of its precompiled modules (`index.json` in their folder). */
export interface PrecompiledIndex {
  /** The digest of the schema files every module was made from (schemasDigest). */
  readonly schemasDigest: string;
  /** Each schema's and each definition's $id → the module (a path in the folder) holding its validator. */
  readonly ids: Readonly<Record<string, string>>;
  /** Each module → the sha256 of the bytes the build wrote (for the build's own up-to-date check). */
  readonly modules: Readonly<Record<string, string>>;
}

/** The precompiled validators of one build, each module loaded at the first use of one of its $ids. */
export interface PrecompiledValidators {
  readonly folder: string;
  readonly index: PrecompiledIndex;
  /**
   * The validator for `schemaId`, or undefined when the index names no module for it, or its module
   * is missing, unreadable, or was made from other schemas than the index (a build under way).
   */
  validator(schemaId: string): ValidateFunction | undefined;
}

/** What one precompiled module exports: the digest it was made from and a validator per $id. */
interface PrecompiledModule {
  readonly schemasDigest: string;
  readonly validators: Readonly<Record<string, ValidateFunction>>;
}

let registry: Ajv2020 | undefined;
let precompiled: PrecompiledValidators | null | undefined;
const validators = new Map<string, ValidateFunction>();

/** Every `*.json` file below `dir`, in a stable order (of their `/`-separated paths below `dir`). */
export function listSchemaFiles(dir: string = SCHEMAS_DIR): string[] {
  return schemaPaths(dir)
    .sort()
    .map((path) => join(dir, path));
}

/**
 * The `/`-separated path below `dir` of every `*.json` file there, in no order. A walk of its own:
 * `readdirSync(dir, { recursive: true })` costs a command several times as much CPU (it runs at
 * every start of a validating command, for the digest below).
 */
function schemaPaths(dir: string, prefix = ''): string[] {
  return readdirSync(join(dir, prefix), { withFileTypes: true }).flatMap((entry) => {
    const path = `${prefix}${entry.name}`;
    if (entry.isDirectory()) return schemaPaths(dir, `${path}/`);
    return entry.name.endsWith('.json') ? [path] : [];
  });
}

/**
 * The digest of the schema files in `dir`: each file's path (relative to `dir`, `/`-separated) and
 * bytes, in listing order. It names exactly the set of schemas the precompiled validators were made from.
 */
export function schemasDigest(dir: string = SCHEMAS_DIR): string {
  return sha256DigestOfParts(
    schemaPaths(dir)
      .sort()
      .flatMap((path) => [path, '\0', readFileSync(join(dir, path)), '\0']),
  );
}

/**
 * The precompiled validators in `folder` when its index was made from exactly the schemas in `dir`,
 * else null (missing, unreadable, or stale). Only the index is read here; each module loads when
 * one of its validators is first asked for.
 */
export function loadPrecompiledValidators(
  folder: string = PRECOMPILED_VALIDATORS,
  dir: string = SCHEMAS_DIR,
): PrecompiledValidators | null {
  let index: unknown;
  try {
    index = JSON.parse(readFileSync(join(folder, 'index.json'), 'utf8'));
  } catch {
    return null;
  }
  if (!isPrecompiledIndex(index) || index.schemasDigest !== schemasDigest(dir)) return null;
  return {
    folder,
    index,
    validator(schemaId) {
      const module = Object.hasOwn(index.ids, schemaId) ? index.ids[schemaId] : undefined;
      if (typeof module !== 'string') return undefined;
      let loaded: PrecompiledModule;
      try {
        loaded = require(join(folder, module)) as PrecompiledModule;
      } catch {
        return undefined;
      }
      if (loaded.schemasDigest !== index.schemasDigest) return undefined;
      return Object.hasOwn(loaded.validators, schemaId) ? loaded.validators[schemaId] : undefined;
    },
  };
}

function isPrecompiledIndex(value: unknown): value is PrecompiledIndex {
  const index = value as { schemasDigest?: unknown; ids?: unknown; modules?: unknown } | null;
  return (
    index !== null &&
    typeof index.schemasDigest === 'string' &&
    typeof index.ids === 'object' &&
    index.ids !== null &&
    typeof index.modules === 'object' &&
    index.modules !== null
  );
}

/**
 * A fresh Ajv instance holding every schema in `dir` (strict, all errors, ajv-formats). Its
 * `date-time` is ajv-formats' RFC 3339 rule, for our own schemas that mean RFC 3339 (checks traces,
 * qualification records). Upstream compiles `date-time` as a stricter pattern, so the schemas that
 * mirror upstream's (the PRP `instant`) state that pattern instead of the format: their verdicts
 * are upstream's whatever Ajv reads them (see docs/native-execution.md). `maxLength` and
 * `minLength` count code points only when the string's UTF-16 length cannot decide
 * (schema-lengths.ts: Ajv's verdicts and errors, for less work); `asWritten` keeps Ajv's own
 * keywords (the differential test's reference). `standalone` keeps each validator's source, for
 * the build's precompiled modules.
 */
export function createSchemaAjv(
  dir: string = SCHEMAS_DIR,
  options: { standalone?: boolean; asWritten?: boolean } = {},
): Ajv2020 {
  const { Ajv2020 } = loadAjv();
  const ajv = new Ajv2020({
    strict: true,
    allErrors: true,
    ...(options.standalone === true ? { code: { source: true } } : {}),
  });
  if (options.asWritten !== true) useLengthShortcut(ajv);
  loadAddFormats()(ajv);
  for (const file of listSchemaFiles(dir)) {
    ajv.addSchema(JSON.parse(readFileSync(file, 'utf8')) as object);
  }
  return ajv;
}

/** The compiled validator for a schema $id; throws if no schema has that $id. */
export function schemaValidator(schemaId: string): ValidateFunction {
  let validate = validators.get(schemaId);
  if (validate === undefined) {
    if (precompiled === undefined) precompiled = loadPrecompiledValidators();
    validate = precompiled?.validator(schemaId);
    if (validate === undefined) {
      registry ??= createSchemaAjv();
      validate = registry.getSchema(schemaId);
    }
    if (validate === undefined) throw new Error(`no schema with $id ${schemaId} in ${SCHEMAS_DIR}`);
    validators.set(schemaId, validate);
  }
  return validate;
}

let documents: Map<string, object> | undefined;

/** The schema document with this $id, as its file holds it; throws if no schema has that $id. */
export function schemaDocument(schemaId: string): object {
  documents ??= new Map(
    listSchemaFiles().map((file) => {
      const document = JSON.parse(readFileSync(file, 'utf8')) as { $id: string };
      return [document.$id, document];
    }),
  );
  const document = documents.get(schemaId);
  if (document === undefined) throw new Error(`no schema with $id ${schemaId} in ${SCHEMAS_DIR}`);
  return document;
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
 * there. `codeFor` names the rule each error breaks. One value can break the same rule through two
 * schema paths (an enum reached by two `$ref`s, a `oneOf`'s branches): an issue that reads exactly as
 * one already listed is listed once.
 */
export function schemaIssuesOf(
  schemaId: string,
  value: unknown,
  codeFor: (error: ErrorObject, path: string) => string,
): Issue[] {
  const seen = new Set<string>();
  const errors = schemaErrors(schemaId, value);
  // A document that declares another kind in its own `schema` tag (a campaign record given where a
  // qualification record goes): that is the one issue — every other would be the noise of judging it
  // by the wrong schema.
  const otherKind = errors.find(
    (error) =>
      error.instancePath === '/schema' &&
      (error.keyword === 'const' || error.keyword === 'enum') &&
      typeof (value as { schema?: unknown }).schema === 'string',
  );
  if (otherKind !== undefined) {
    const issue = schemaIssue(value, otherKind, codeFor);
    const declared = (value as { schema: string }).schema;
    return [
      {
        ...issue,
        message: `it declares schema ${JSON.stringify(scrubCredentials(declared.slice(0, 200)))}: a document of another kind (nothing else of it was checked)`,
      },
    ];
  }
  return errors
    .map((error) => schemaIssue(value, error, codeFor))
    .filter((issue) => {
      const key = JSON.stringify([issue.code, issue.path, issue.message, issue.expected, issue.received]);
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
}

function schemaIssue(
  value: unknown,
  error: ErrorObject,
  codeFor: (error: ErrorObject, path: string) => string,
): Issue {
  const params = error.params as Record<string, unknown>;
  const missing = error.keyword === 'required' ? String(params.missingProperty) : undefined;
  // A property the schema does not allow: named (its name scrubbed), never its value or its object's.
  const extra =
    error.keyword === 'additionalProperties'
      ? String(params.additionalProperty)
      : error.keyword === 'unevaluatedProperties'
        ? String(params.unevaluatedProperty)
        : undefined;
  // The path is the member's, for a missing one and for one the schema does not allow alike (the
  // name of one it does not allow scrubbed, as the message shows it: a key may be a pasted secret).
  const path =
    missing !== undefined
      ? error.instancePath + pointer(missing)
      : extra !== undefined
        ? error.instancePath + pointer(scrubCredentials(extra))
        : error.instancePath;
  const where = error.instancePath === '' ? '(root)' : scrubCredentials(error.instancePath);
  const shown = scrubCredentials(missing ?? extra ?? '');
  return {
    code: codeFor(error, path),
    message:
      missing !== undefined
        ? `${where} is missing required property '${shown}'`
        : extra !== undefined
          ? `${where} has property '${shown}', which the schema does not allow`
          : `${path === '' ? '(root)' : scrubCredentials(path)} ${error.message ?? 'is invalid'}`,
    path,
    expected: extra === undefined ? expectationOf(error) : `no property ${shown}`,
    received:
      missing !== undefined
        ? 'missing'
        : extra !== undefined
          ? `property ${shown}`
          : receivedAt(value, error.instancePath),
  };
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
    default:
      return error.message ?? error.keyword;
  }
}

/**
 * What an issue says it received at `path`: a number, boolean or null as it is; a string as it is
 * unless it is credential-shaped, holds a secret, or sits under a secret-named property (then ***);
 * an object or array only by its size, never its members (a whole document may hold a key).
 */
function receivedAt(root: unknown, path: string): unknown {
  const found = valueAt(root, path);
  if (Array.isArray(found)) return `an array of ${found.length} items`;
  if (typeof found === 'object' && found !== null)
    return `an object with ${Object.keys(found).length} properties`;
  if (typeof found !== 'string') return found;
  const name = path.split('/').at(-1) ?? '';
  return isSecretName(name) || scrubCredentials(found) !== found ? SECRET_MASK : found;
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
