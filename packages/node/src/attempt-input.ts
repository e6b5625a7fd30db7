// One attempt input as validate and ingest read it, dispatched on the `schema` it declares: a
// native-execution/v1 bundle as it is, or an eval-session-artifact/v1 whose native-execution bundle
// (its additive `nativeExecution` reference) is read from beside it — never outside the artifact's
// folder, no symbolic link — verified by the sha256 and size of its bytes, parsed by the native
// parser, and checked against the artifact (attempt, runnerd, package, cost figures, outcome). An
// artifact from standard input has no folder, so its bundle cannot be found: refused.
// An artifact without that reference (what upstream's bin writes, and ours when no session ran) is
// read alone (`readAttemptRead*`: bundle null): the artifact is the attempt's only record, with no
// checks or events, so it can never be scored a pass.
import { dirname } from 'node:path';

import {
  ContractError,
  EVAL_SESSION_ARTIFACT_V1,
  INFRASTRUCTURE_FAILURE_CLASSES,
  NATIVE_EXECUTION_V1,
  assertEvalSessionArtifact,
  assertNativeExecution,
  invalidArtifact,
  invalidNativeExecution,
  isMissingCellArtifact,
  readJsonText,
  sha256Digest,
} from '@paperclip-evals/contract';

import { checkContainedReference } from './contained-file.js';
import { readFileBytes, readNativeExecutionFile, readStreamBytes } from './native-execution-input.js';

import type {
  AnyEvalSessionArtifact,
  EvalSessionArtifact,
  Issue,
  NativeExecution,
  ParseNativeExecutionOptions,
  Sha256Digest,
} from '@paperclip-evals/contract';

import type { NativeExecutionInput } from './native-execution-input.js';

/**
 * An eval-session artifact read without a native-execution bundle (it references none): the
 * artifact is the whole attempt record. `fileSha256` and `byteSize` are the artifact file's.
 */
export interface ArtifactOnlyInput {
  readonly bundle: null;
  readonly fileSha256: Sha256Digest;
  readonly byteSize: number;
  readonly evalSession: EvalSessionEvidence;
}

/** What validate and ingest read: a bundle (with its artifact, if any), or an artifact alone. */
export type AttemptRead = AttemptInput | ArtifactOnlyInput;

/** The eval-session artifact an attempt was read through, with the digest of its bytes. */
export interface EvalSessionEvidence {
  /** A session's artifact, or upstream's for a missing campaign cell (contract's isMissingCellArtifact). */
  readonly artifact: AnyEvalSessionArtifact;
  readonly artifactSha256: Sha256Digest;
  readonly artifactByteSize: number;
}

/** A bundle (fileSha256 and byteSize are the bundle file's), and the artifact it came with, if any. */
export interface AttemptInput extends NativeExecutionInput {
  readonly evalSession?: EvalSessionEvidence;
}

export interface ReadAttemptOptions extends ParseNativeExecutionOptions {
  /**
   * The runnerd digest qualification verified: an attempt that names another binary (a bundle's
   * runner.binary.sha256, an artifact's runnerd.sha256) is refused. Absent: not checked.
   */
  readonly qualifiedRunnerdSha256?: string;
}

/**
 * Reads and parses one attempt file (a bundle, or an artifact and the bundle beside it). An artifact
 * with no bundle reference is refused (native_bundle_absent): callers that need a bundle use this.
 */
export async function readAttemptFile(path: string, options: ReadAttemptOptions = {}): Promise<AttemptInput> {
  return withBundle(await readAttemptReadFile(path, options));
}

/** Reads and parses one attempt from a stream (stdin): a bundle; an artifact is refused (no folder). */
export async function readAttemptStream(
  stream: AsyncIterable<Uint8Array>,
  options: ReadAttemptOptions = {},
): Promise<AttemptInput> {
  return withBundle(await readAttemptReadStream(stream, options));
}

/** Parses one input's bytes; `path` is its file (null: standard input). */
export async function parseAttemptBytes(
  bytes: Buffer,
  path: string | null,
  options: ReadAttemptOptions = {},
): Promise<AttemptInput> {
  return withBundle(await parseAttemptRead(bytes, path, options));
}

/** Reads one attempt file: a bundle, an artifact and its bundle, or an artifact alone. */
export async function readAttemptReadFile(
  path: string,
  options: ReadAttemptOptions = {},
): Promise<AttemptRead> {
  return parseAttemptRead(await readFileBytes(path, options), path, options);
}

/** Reads one attempt from a stream (stdin): a bundle or an artifact alone (an artifact's bundle has no folder). */
export async function readAttemptReadStream(
  stream: AsyncIterable<Uint8Array>,
  options: ReadAttemptOptions = {},
): Promise<AttemptRead> {
  return parseAttemptRead(await readStreamBytes(stream, options), null, options);
}

function withBundle(read: AttemptRead): AttemptInput {
  if (read.bundle !== null) return read;
  throw invalidArtifact([
    {
      code: 'native_bundle_absent',
      path: '/nativeExecution',
      message:
        'the artifact references no native-execution bundle, and this reader needs one (its case, config and events)',
      expected: '{path, sha256, byteSize} of the bundle beside the artifact',
      received: 'missing',
    },
  ]);
}

/** Parses one input's bytes into a bundle, an artifact with its bundle, or an artifact alone. */
export async function parseAttemptRead(
  bytes: Buffer,
  path: string | null,
  options: ReadAttemptOptions = {},
): Promise<AttemptRead> {
  // Read once, then judged by the schema it declares: an eval-session artifact by the artifact's
  // rules, anything else (text that is no JSON object included) by the native parser's.
  const text = readJsonText(bytes, options);
  if (!text.ok) throw invalidNativeExecution(text.issues);
  const fileSha256 = sha256Digest(bytes);
  if ((text.value as { schema?: unknown }).schema !== EVAL_SESSION_ARTIFACT_V1) {
    const bundle: unknown = text.value;
    const unknownSchema = unknownSchemaIssue(bundle);
    if (unknownSchema !== null) throw invalidNativeExecution([unknownSchema]);
    assertNativeExecution(bundle, { strictlyRead: true });
    const input = { bundle, fileSha256, byteSize: bytes.byteLength };
    qualifiedIssues(
      input.bundle.runner.binary.sha256,
      '/runner/binary/sha256',
      options,
      'paperclip_native_execution_invalid',
    );
    return input;
  }
  const artifact: unknown = text.value;
  assertEvalSessionArtifact(artifact, { strictlyRead: true });
  // Upstream's artifact for a missing campaign cell names no runnerd: no session ran on any binary.
  if (!isMissingCellArtifact(artifact))
    qualifiedIssues(
      artifact.runnerd.sha256,
      '/runnerd/sha256',
      options,
      'paperclip_eval_session_artifact_invalid',
    );
  const evidence: EvalSessionEvidence = {
    artifact,
    artifactSha256: fileSha256,
    artifactByteSize: bytes.byteLength,
  };
  const reference = artifact.nativeExecution;
  // Upstream's artifacts carry no bundle: the artifact alone is the attempt's record.
  if (reference === undefined)
    return {
      bundle: null,
      fileSha256: evidence.artifactSha256,
      byteSize: bytes.byteLength,
      evalSession: evidence,
    };
  if (path === null)
    throw invalidArtifact([
      {
        code: 'native_bundle_unreachable',
        path: '/nativeExecution/path',
        message:
          'an artifact read from standard input has no folder to find its bundle in: give the artifact file',
        expected: 'the artifact as a file',
        received: 'standard input',
      },
    ]);
  // Its size before its digest: a bundle larger than the artifact states is refused by its size on
  // the open descriptor (native_bundle_size_mismatch), never read or hashed.
  const found = await checkContainedReference(dirname(path), reference.path, reference);
  if (found.kind === 'absent' || found.kind === 'refused')
    throw invalidArtifact([
      {
        code: found.kind === 'absent' ? 'native_bundle_missing' : 'native_bundle_refused',
        path: '/nativeExecution/path',
        message:
          found.kind === 'absent'
            ? `the bundle ${reference.path} is not beside the artifact`
            : `the bundle ${reference.path}: ${found.message}`,
        expected: "a regular file under the artifact's folder, reached through no symbolic link",
        received: found.kind === 'absent' ? 'missing' : found.reason,
      },
    ]);
  const digestIssues: Issue[] = [];
  if (found.mismatches.includes('sha256'))
    digestIssues.push({
      code: 'native_bundle_digest_mismatch',
      path: '/nativeExecution/sha256',
      message: `the bundle's bytes are not the ones the artifact names`,
      expected: reference.sha256,
      received: found.digest,
    });
  if (found.mismatches.includes('byteSize'))
    digestIssues.push({
      code: 'native_bundle_size_mismatch',
      path: '/nativeExecution/byteSize',
      message:
        found.digest === null
          ? `the bundle is larger than the ${reference.byteSize} bytes the artifact names (not read)`
          : `the bundle's size is not the one the artifact names`,
      expected: reference.byteSize,
      received: found.byteSize,
    });
  if (digestIssues.length > 0) throw invalidArtifact(digestIssues);
  const input = await readNativeExecutionFile(found.path, options);
  if (input.fileSha256 !== reference.sha256)
    // changed between the check and the read
    throw invalidArtifact([
      {
        code: 'native_bundle_digest_mismatch',
        path: '/nativeExecution/sha256',
        message: 'the bundle changed while it was read',
        expected: reference.sha256,
        received: input.fileSha256,
      },
    ]);
  const crossIssues = agreementIssues(artifact, input.bundle);
  if (crossIssues.length > 0) throw invalidArtifact(crossIssues);
  return { ...input, evalSession: evidence };
}

/**
 * A JSON object that declares neither schema an attempt input may have (fail closed: nothing else
 * of it is judged), as one issue that names what it declares (or that it declares none) and which
 * files are read: a campaign try's folder also holds its request, the session's result, its
 * artifact-root manifest and denial records, none of them an attempt.
 */
function unknownSchemaIssue(value: unknown): Issue | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const declared = (value as { schema?: unknown }).schema;
  if (declared === NATIVE_EXECUTION_V1) return null;
  const what =
    declared === undefined
      ? 'this file declares no schema (no top-level "schema" field)'
      : typeof declared === 'string'
        ? `this file declares schema ${JSON.stringify(declared.length > 200 ? `${declared.slice(0, 200)}…` : declared)}`
        : `this file's "schema" is not a string (${declared === null ? 'null' : Array.isArray(declared) ? 'an array' : typeof declared})`;
  return {
    code: 'native_schema_unknown',
    path: '/schema',
    message: `${what}: Evals reads only an attempt bundle (${NATIVE_EXECUTION_V1}) or an eval-session artifact (${EVAL_SESSION_ARTIFACT_V1}, with the bundle it references). Name those files (a campaign try's artifact is <try>/output/artifact.json), not a folder that holds other JSON`,
    expected: `${NATIVE_EXECUTION_V1} or ${EVAL_SESSION_ARTIFACT_V1}`,
    received: declared === undefined ? 'missing' : declared,
  };
}

function qualifiedIssues(
  digest: string,
  path: string,
  options: ReadAttemptOptions,
  code: 'paperclip_native_execution_invalid' | 'paperclip_eval_session_artifact_invalid',
): void {
  const qualified = options.qualifiedRunnerdSha256;
  if (qualified === undefined || digest === qualified) return;
  throw new ContractError(code, 'the attempt ran on another runnerd than the one qualified', [
    {
      code: 'runnerd_not_qualified',
      path,
      message: 'the attempt names another runnerd binary than the qualified one',
      expected: qualified,
      received: digest,
    },
  ]);
}

/** The artifact and its bundle tell one story: same attempt, binary, package, cost and outcome. */
function agreementIssues(artifact: EvalSessionArtifact, bundle: NativeExecution): Issue[] {
  const issues: Issue[] = [];
  const differ = (
    code: string,
    path: string,
    message: string,
    expected: unknown,
    received: unknown,
  ): void => {
    issues.push({ code, path, message, expected, received });
  };
  if (bundle.identity.attemptId !== artifact.attemptId)
    differ(
      'eval_session_attempt_mismatch',
      '/attemptId',
      'the bundle is of another attempt',
      artifact.attemptId,
      bundle.identity.attemptId,
    );
  if (bundle.runner.binary.sha256 !== artifact.runnerd.sha256)
    differ(
      'eval_session_runnerd_mismatch',
      '/runnerd/sha256',
      'the bundle names another runnerd',
      artifact.runnerd.sha256,
      bundle.runner.binary.sha256,
    );
  if (bundle.runner.package.version !== artifact.build.package.version)
    differ(
      'eval_session_package_mismatch',
      '/build/package/version',
      'the bundle names another package version',
      artifact.build.package.version,
      bundle.runner.package.version,
    );
  const usage = artifact.usage;
  if (usage !== undefined) {
    const fields = [
      'providerReportedCostNanodollars',
      'providerReportedCostProvenance',
      'estimatedCostNanodollars',
      'costCoverage',
      'legacyLedgerCostNanodollars',
      'inputTokens',
      'outputTokens',
    ] as const;
    for (const field of fields) {
      const stated = usage[field] ?? null;
      const bundled = (bundle.usage as Record<string, unknown>)[field] ?? null;
      if (stated !== bundled)
        differ(
          'eval_session_cost_mismatch',
          `/usage/${field}`,
          `the bundle's usage.${field} (${JSON.stringify(bundled)}) is not the artifact's (${JSON.stringify(stated)}): the bundle's figures are the evidence, and the artifact's must be the same`,
          stated,
          bundled,
        );
    }
    if (usage.providerReportedCostNanodollars === null && bundle.usage.cost !== null)
      differ(
        'eval_session_cost_mismatch',
        '/usage/providerReportedCostNanodollars',
        'the artifact states no provider receipt, the bundle a usage.cost',
        null,
        bundle.usage.cost,
      );
  }
  // An accounting failure (a completed turn over budget, upstream's newer variant) is recorded as one too.
  const failure = artifact.infrastructureFailure ?? artifact.accountingFailure;
  if (failure !== undefined) {
    const classification =
      INFRASTRUCTURE_FAILURE_CLASSES[failure.class].category === 'provider_budget'
        ? 'budget'
        : 'infrastructure';
    if (bundle.failure?.code !== failure.class || bundle.failure.classification !== classification)
      differ(
        'eval_session_outcome_mismatch',
        '/infrastructureFailure/class',
        "the bundle's failure is not the artifact's infrastructure failure",
        { classification, code: failure.class },
        bundle.failure,
      );
  } else if (
    bundle.failure !== null &&
    (bundle.failure.classification === 'infrastructure' || bundle.failure.classification === 'budget')
  )
    differ(
      'eval_session_outcome_mismatch',
      '/infrastructureFailure',
      'the bundle records an infrastructure failure the artifact does not state',
      undefined,
      bundle.failure,
    );
  return issues;
}
