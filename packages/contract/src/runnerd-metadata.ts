// Runnerd build metadata, the pure half of the runnerd resolver (its I/O — verifying, staging and
// running the executable — is @paperclip-evals/node's resolveRunnerdArtifact): the metadata types,
// their validation (schemas/runner/runnerd-build-metadata-v1.schema.json, plus prp.minimumVersion
// <= maximumVersion and packageVersion / prp.name not blank under JS trim, as upstream's text();
// unknown fields kept), what `--build-metadata` printed read as exactly one
// strict JSON object, and the one coded error every resolver failure is:
// ContractError('paperclip_runnerd_artifact_invalid') whose issues say what is wrong
// (path_invalid | digest_invalid | file_too_large | digest_mismatch | metadata_unavailable |
// metadata_invalid).
import { ContractError, pointer } from './errors.js';
import { readJsonText } from './json-text.js';
import { isRequiredText } from './native-execution-fields.js';
import { SCHEMA_IDS, schemaIssuesOf } from './schema-registry.js';

import type { Issue } from './errors.js';

export const RUNNERD_BUILD_METADATA_V1 = 'paperclip-runner/runnerd-build-metadata/v1';

export type RunnerdArtifactIssueCode =
  | 'path_invalid'
  | 'digest_invalid'
  | 'file_too_large'
  | 'digest_mismatch'
  | 'metadata_unavailable'
  | 'metadata_invalid';

export interface RunnerdArtifactIssue extends Issue {
  readonly code: RunnerdArtifactIssueCode;
  readonly component: 'runnerd';
}

/** What a runnerd build prints for `--build-metadata`; unknown fields are kept. */
export interface RunnerdBuildMetadata {
  readonly schema: typeof RUNNERD_BUILD_METADATA_V1;
  readonly binaryName: 'paperclip-runnerd';
  readonly packageName: '@paperclipai/paperclip-runner';
  readonly packageVersion: string;
  readonly binaryContractVersion: number;
  readonly nativeExecutionVersion: number;
  readonly harnessDriverVersion: number;
  readonly prp: {
    readonly name: string;
    readonly minimumVersion: number;
    readonly maximumVersion: number;
    readonly [field: string]: unknown;
  };
  readonly prpTransportModes?: readonly string[];
  readonly [field: string]: unknown;
}

/** The fields of upstream's build metadata (the eight, and newer builds' prpTransportModes). */
export const RUNNERD_BUILD_METADATA_FIELDS = [
  'schema',
  'binaryName',
  'packageName',
  'packageVersion',
  'binaryContractVersion',
  'nativeExecutionVersion',
  'harnessDriverVersion',
  'prp',
  'prpTransportModes',
] as const;

/**
 * The fields a build printed beyond upstream's (additive, kept), in the order it printed them:
 * what `runnerd inspect` shows and a reader must not lose.
 */
export function additionalRunnerdFields(metadata: RunnerdBuildMetadata): [string, unknown][] {
  const known: readonly string[] = RUNNERD_BUILD_METADATA_FIELDS;
  return Object.entries(metadata).filter(([key]) => !known.includes(key));
}

/**
 * The build profile a runnerd declares of itself (`buildProfile`, a field upstream's builds do not
 * print), or null when it declares none. Only the gate's record proves a release build; a
 * self-declared profile can only contradict it ("debug" where the record says "release").
 */
export function declaredBuildProfile(metadata: RunnerdBuildMetadata): string | null {
  return typeof metadata.buildProfile === 'string' ? metadata.buildProfile : null;
}

/** Every issue of a parsed `--build-metadata` object; [] means it is valid. */
export function runnerdBuildMetadataIssues(value: unknown): RunnerdArtifactIssue[] {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return [
      metadataInvalid(
        '',
        'the build metadata is not a JSON object',
        'a JSON object',
        describeJsonType(value),
      ),
    ];
  }
  const declared = (value as Record<string, unknown>).schema;
  if (declared !== RUNNERD_BUILD_METADATA_V1) {
    // An unknown schema is an issue, not a guess: nothing else is checked against rules it may not follow.
    return [
      metadataInvalid(
        '/schema',
        `the build metadata does not declare ${RUNNERD_BUILD_METADATA_V1}`,
        RUNNERD_BUILD_METADATA_V1,
        declared === undefined ? 'missing' : declared,
      ),
    ];
  }
  const schemaIssues = schemaIssuesOf(SCHEMA_IDS.runnerdBuildMetadataV1, value, () => 'metadata_invalid').map(
    (issue): RunnerdArtifactIssue => ({ ...issue, code: 'metadata_invalid', component: 'runnerd' }),
  );
  return [
    ...schemaIssues,
    ...blankTextIssues(value as Record<string, unknown>),
    ...prpRangeIssues(value as Record<string, unknown>),
  ];
}

export function isRunnerdBuildMetadata(value: unknown): value is RunnerdBuildMetadata {
  return runnerdBuildMetadataIssues(value).length === 0;
}

export function assertRunnerdBuildMetadata(value: unknown): asserts value is RunnerdBuildMetadata {
  const issues = runnerdBuildMetadataIssues(value);
  if (issues.length > 0) throw runnerdArtifactInvalid(undefined, issues);
}

/** The build metadata, unchanged (unknown fields kept), or a ContractError with every metadata_invalid issue. */
export function parseRunnerdBuildMetadata(value: unknown): RunnerdBuildMetadata {
  assertRunnerdBuildMetadata(value);
  return value;
}

/**
 * The build metadata in what `<absolutePath> --build-metadata` printed on stdout (the process
 * exited 0): exactly one strict JSON object of at most `maxStdoutBytes`, valid metadata. Throws the
 * resolver's ContractError with metadata_invalid issues (not one JSON object, or not valid metadata).
 */
export function runnerdMetadataFromStdout(
  absolutePath: string,
  stdout: Buffer,
  maxStdoutBytes: number,
): RunnerdBuildMetadata {
  const text = readJsonText(stdout, { maxBytes: maxStdoutBytes });
  if (!text.ok) {
    const issues = text.issues.map((issue): RunnerdArtifactIssue => {
      const detail = outputProblem(issue, stdout);
      // Upstream's resolver names output it cannot JSON.parse metadata_invalid (the process ran):
      // metadata_unavailable is a run that failed (runnerd-artifact.ts in paperclipai/paperclip).
      return {
        code: 'metadata_invalid',
        component: 'runnerd',
        message: `${absolutePath} --build-metadata printed ${detail}`,
        ...(issue.path === undefined || issue.path === '' ? {} : { path: issue.path }),
        expected: 'exactly one JSON object (strict JSON: UTF-8, no duplicate keys)',
        received: issue.received,
      };
    });
    throw runnerdArtifactInvalid(absolutePath, issues);
  }
  const issues = runnerdBuildMetadataIssues(text.value);
  if (issues.length > 0) throw runnerdArtifactInvalid(absolutePath, issues);
  return text.value as RunnerdBuildMetadata;
}

/** What is wrong with the output, in words, for one issue of readJsonText. */
function outputProblem(issue: Issue, stdout: Buffer): string {
  switch (issue.code) {
    case 'json_empty':
      return 'nothing on stdout';
    case 'json_not_object':
      return `a JSON text that is not an object (${String(issue.received)})`;
    case 'json_syntax': {
      const trailing = trailingAfterFirstValue(stdout.toString('utf8'));
      if (trailing === 'json') return 'several JSON texts (exactly one object is expected)';
      if (trailing === 'other') return 'trailing content after the JSON object';
      return `not JSON: ${issue.message}`;
    }
    case 'json_truncated':
      return `not JSON: ${issue.message}`;
    default:
      return `not strict JSON: ${issue.message}`;
  }
}

const JSON_VALUE_START = /^[{["\-0-9tfn]/;

/**
 * When `text` starts with a complete JSON object or array followed by more non-whitespace:
 * 'json' if what follows starts like another JSON value, 'other' if not. Undefined otherwise.
 */
function trailingAfterFirstValue(text: string): 'json' | 'other' | undefined {
  const end = endOfFirstContainer(text);
  if (end === undefined) return undefined;
  try {
    JSON.parse(text.slice(0, end));
  } catch {
    return undefined;
  }
  const rest = text.slice(end).replace(/^[ \t\r\n]+/, '');
  if (rest === '') return undefined;
  return JSON_VALUE_START.test(rest) ? 'json' : 'other';
}

/** Index just past the object or array that opens `text` (brackets counted outside strings). */
function endOfFirstContainer(text: string): number | undefined {
  let index = text.search(/[^ \t\r\n]/);
  if (index === -1 || (text[index] !== '{' && text[index] !== '[')) return undefined;
  let depth = 0;
  for (; index < text.length; index++) {
    const char = text[index];
    if (char === '"') {
      for (index++; index < text.length && text[index] !== '"'; index++) if (text[index] === '\\') index++;
    } else if (char === '{' || char === '[') depth++;
    else if (char === '}' || char === ']') {
      depth--;
      if (depth === 0) return index + 1;
    }
  }
  return undefined;
}

// --- metadata checks -------------------------------------------------------------------------

/**
 * The fields upstream's `parsePaperclipRunnerdBuildMetadata` (src/evals/runnerd-artifact.ts) reads
 * with its `text()`: a string with something left after JavaScript's `trim`, else metadata_invalid.
 * (schema, binaryName and packageName it compares with exact constants; the rest are versions.)
 */
export const RUNNERD_REQUIRED_TEXT_PLACES = [['packageVersion'], ['prp', 'name']] as const;
const PLACE_MEANS: Record<string, string> = {
  '/packageVersion': 'the package version it was built from',
  '/prp/name': 'the name of the protocol it speaks',
};

/**
 * A required text field that holds only whitespace (`" "`, `"\t"`, U+3000, …): the schema's
 * `minLength: 1` lets it through, upstream's `text()` does not. A field missing, not a string or
 * empty is the schema's issue already, so it is not reported twice.
 */
function blankTextIssues(value: Record<string, unknown>): RunnerdArtifactIssue[] {
  const issues: RunnerdArtifactIssue[] = [];
  for (const place of RUNNERD_REQUIRED_TEXT_PLACES) {
    const parent = place.length === 1 ? value : value[place[0]];
    if (typeof parent !== 'object' || parent === null) continue;
    const field = (parent as Record<string, unknown>)[place[place.length - 1] as string];
    if (typeof field !== 'string' || field === '' || isRequiredText(field)) continue;
    const path = pointer(...place);
    issues.push(
      metadataInvalid(
        path,
        `${path} holds only whitespace (${JSON.stringify(field)}): a runnerd build must print ${PLACE_MEANS[path] ?? 'text'} there`,
        'a string that is not empty after trimming whitespace',
        field,
      ),
    );
  }
  return issues;
}

function prpRangeIssues(value: Record<string, unknown>): RunnerdArtifactIssue[] {
  const prp = value.prp;
  if (typeof prp !== 'object' || prp === null) return [];
  const { minimumVersion, maximumVersion } = prp as Record<string, unknown>;
  if (!Number.isInteger(minimumVersion) || !Number.isInteger(maximumVersion)) return [];
  if ((minimumVersion as number) <= (maximumVersion as number)) return [];
  return [
    metadataInvalid(
      '/prp/minimumVersion',
      `/prp/minimumVersion ${String(minimumVersion)} is above /prp/maximumVersion ${String(maximumVersion)}`,
      `at most prp.maximumVersion (${String(maximumVersion)})`,
      minimumVersion,
    ),
  ];
}

function metadataInvalid(
  path: string,
  message: string,
  expected: unknown,
  received: unknown,
): RunnerdArtifactIssue {
  return { code: 'metadata_invalid', component: 'runnerd', message, path, expected, received };
}

export function describeJsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value;
}

/** The resolver's one coded error: the artifact (or, without a path, the metadata) and its issues. */
export function runnerdArtifactInvalid(
  executablePath: string | undefined,
  issues: readonly RunnerdArtifactIssue[],
  cause?: unknown,
): ContractError {
  const first = issues[0];
  const what =
    executablePath === undefined
      ? 'invalid runnerd build metadata'
      : `invalid runnerd artifact ${executablePath}`;
  const where = first?.path === undefined || first.path === '' ? '' : ` at ${first.path}`;
  const summary = first === undefined ? '' : `: ${first.code}${where}`;
  const more = issues.length > 1 ? ` (+${issues.length - 1} more)` : '';
  return new ContractError(
    'paperclip_runnerd_artifact_invalid',
    `${what}${summary}${more}`,
    issues,
    cause === undefined ? undefined : { cause },
  );
}
