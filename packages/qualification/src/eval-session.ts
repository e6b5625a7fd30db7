// The runnerd-eval-session check: runnerd must really run an eval session, not merely print build
// metadata. The resolved runnerd is staged by node's stageVerifiedExecutable into a private
// 0700 directory (the bytes run are the bytes hashed, and the digest must be the one the resolver
// verified; a changed file is runnerd_changed and never copied past the size cap); that copy
// runs Evals' committed request (evals-eval-session-request.json, behaviour deny_tool) with no
// shell, an empty environment and a timeout, its process group killed whatever happens. The bundle
// it writes must pass Evals' strict parser, name the binary, the package version and the request's
// identity, and every file it references must exist beside it with the digest and size it states.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isContractError, readJsonText } from '@paperclip-evals/contract';
import {
  checkContainedReference,
  readNativeExecutionFile,
  runBounded,
  runFailure,
  stageVerifiedExecutable,
} from '@paperclip-evals/node';

import type { NativeExecution, Sha256Digest } from '@paperclip-evals/contract';
import type { StagedExecutable } from '@paperclip-evals/node';

import type { QualificationIssue } from './record.js';

/** The request Evals sends (this file sits at packages/qualification/{src,dist}/). */
export const EVALS_EVAL_SESSION_REQUEST_FILE = fileURLToPath(
  new URL('../evals-eval-session-request.json', import.meta.url),
);
export const DEFAULT_EVAL_SESSION_TIMEOUT_MS = 30_000;
const MAX_EVAL_SESSION_STDOUT_BYTES = 64 * 1024;
/** The file an artifact root URI (`artifact://native/<attemptId>/`) stands for. */
const ARTIFACT_ROOT_FILE = 'artifact-root.json';

export interface EvalSessionRequestIds {
  readonly runId: string;
  readonly caseId: string;
  readonly configId: string;
  readonly attemptId: string;
}

export interface RunEvalSessionCheckOptions {
  /** runnerd in the release directory. */
  readonly runnerdPath: string;
  /** The digest the resolver verified against SHA256SUMS. */
  readonly expectedSha256: Sha256Digest;
  /** The version in the tarball's package.json. */
  readonly packageVersion: string;
  /** A private directory to work in (removed by the caller). */
  readonly workDir: string;
  readonly timeoutMs?: number;
  readonly requestFile?: string;
}

export interface EvalSessionCheckResult {
  readonly issues: QualificationIssue[];
  readonly detail: string;
}

/** Reads the committed request: strict JSON with the four ids; throws if Evals' own file is broken. */
export async function loadEvalSessionRequest(
  file: string = EVALS_EVAL_SESSION_REQUEST_FILE,
): Promise<{ text: Buffer; ids: EvalSessionRequestIds }> {
  const bytes = await readFile(file);
  const parsed = readJsonText(bytes);
  if (!parsed.ok) throw new Error(`${file} is not strict JSON`);
  const value = parsed.value as Record<string, unknown>;
  const ids = ['runId', 'caseId', 'configId', 'attemptId'] as const;
  for (const id of ids) {
    if (typeof value[id] !== 'string' || !/^[A-Za-z0-9][A-Za-z0-9._:-]*$/.test(value[id]))
      throw new Error(`${file}: ${id} is not an identifier`);
  }
  return {
    text: bytes,
    ids: {
      runId: value.runId as string,
      caseId: value.caseId as string,
      configId: value.configId as string,
      attemptId: value.attemptId as string,
    },
  };
}

/** Runs the check; never rejects for anything runnerd does (only for Evals' own I/O failures). */
export async function runEvalSessionCheck(
  options: RunEvalSessionCheckOptions,
): Promise<EvalSessionCheckResult> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_EVAL_SESSION_TIMEOUT_MS;
  const request = await loadEvalSessionRequest(options.requestFile);
  // The bytes run are the bytes hashed: node's one staging step (size cap, digest compared
  // before anything is copied, the private copy digested again), against the resolver's digest.
  let staged: StagedExecutable;
  try {
    staged = await stageVerifiedExecutable({
      executablePath: options.runnerdPath,
      expectedSha256: options.expectedSha256,
      stagingDirPrefix: 'runnerd-',
      parentDir: options.workDir,
    });
  } catch (error) {
    if (!isContractError(error)) throw error;
    return fail('runnerd changed after it was resolved; it was not run', [
      ...error.issues.map((issue): QualificationIssue => ({
        ...issue,
        code: issue.code === 'digest_mismatch' ? 'runnerd_changed' : issue.code,
        component: 'runnerd',
      })),
    ]);
  }
  try {
    return await runStaged(options, request, staged, timeoutMs);
  } finally {
    await staged.dispose();
  }
}

async function runStaged(
  options: RunEvalSessionCheckOptions,
  request: Awaited<ReturnType<typeof loadEvalSessionRequest>>,
  staged: StagedExecutable,
  timeoutMs: number,
): Promise<EvalSessionCheckResult> {
  const dir = staged.stagingDir;
  const copy = staged.stagedPath;
  const requestPath = join(dir, 'request.json');
  await writeFile(requestPath, request.text, { mode: 0o600 });
  const outputDir = join(dir, 'output');
  await mkdir(outputDir, { mode: 0o700 });
  const bundlePath = join(outputDir, 'bundle.json');
  const args = ['eval-session', '--request', requestPath, '--output', bundlePath];
  const result = await runBounded({
    command: copy,
    args,
    cwd: dir,
    env: {},
    timeoutMs,
    maxStdoutBytes: MAX_EVAL_SESSION_STDOUT_BYTES,
  });
  const failure = runFailure(result, timeoutMs);
  if (failure !== null) {
    return fail(`runnerd eval-session ${failure}`, [
      {
        code: 'eval_session_failed',
        component: 'runnerd',
        message: `runnerd ${args.join(' ')} ${failure}`,
        expected: 'exit code 0',
        received: result.stderrTail.slice(-4000) || `exit code ${String(result.exitCode)}`,
      },
    ]);
  }

  let bundle: NativeExecution;
  try {
    bundle = (await readNativeExecutionFile(bundlePath)).bundle;
  } catch (error) {
    if (isContractError(error)) {
      return fail("the bundle runnerd wrote does not pass Evals' parser", [
        {
          code: 'eval_session_bundle_invalid',
          component: 'runnerd',
          message: `${error.issues.length} issue(s): ${[...new Set(error.issues.map((issue) => issue.code))].join(', ')}`,
          expected: 'a valid paperclip-runner/native-execution/v1 bundle',
          received: error.issues.slice(0, 20),
        },
      ]);
    }
    return fail('runnerd exited 0 but wrote no readable bundle', [
      {
        code: 'eval_session_bundle_missing',
        component: 'runnerd',
        message: `${bundlePath} cannot be read: ${error instanceof Error ? error.message : String(error)}`,
        expected: 'the bundle at --output',
        received: (error as NodeJS.ErrnoException).code ?? 'unreadable',
      },
    ]);
  }

  const issues: QualificationIssue[] = [];
  if (bundle.runner.binary.sha256 !== options.expectedSha256) {
    issues.push({
      code: 'eval_session_binary_mismatch',
      component: 'runnerd',
      message: 'the bundle names another runnerd binary than the one that ran',
      path: '/runner/binary/sha256',
      expected: options.expectedSha256,
      received: bundle.runner.binary.sha256,
    });
  }
  if (bundle.runner.package.version !== options.packageVersion) {
    issues.push({
      code: 'eval_session_version_mismatch',
      component: 'runnerd',
      message: `the bundle says package version ${bundle.runner.package.version}, the tarball ${options.packageVersion}`,
      path: '/runner/package/version',
      expected: options.packageVersion,
      received: bundle.runner.package.version,
    });
  }
  for (const id of ['runId', 'caseId', 'configId', 'attemptId'] as const) {
    if (bundle.identity[id] !== request.ids[id]) {
      issues.push({
        code: 'eval_session_identity_mismatch',
        component: 'runnerd',
        message: `the bundle's identity.${id} is not the request's`,
        path: `/identity/${id}`,
        expected: request.ids[id],
        received: bundle.identity[id],
      });
    }
  }
  if (bundle.semanticTools.denials.length === 0) {
    issues.push({
      code: 'eval_session_no_denial',
      component: 'runnerd',
      message: 'the request asks for deny_tool, but the bundle records no denial',
      path: '/semanticTools/denials',
      expected: 'at least one denial',
      received: 0,
    });
  }
  const references = [
    { path: '/transcript', ref: bundle.transcript },
    { path: '/artifactRoot', ref: bundle.artifactRoot },
    ...bundle.artifacts.map((ref, index) => ({ path: `/artifacts/${index}`, ref })),
  ];
  for (const { path, ref } of references) {
    issues.push(...(await referenceIssues(outputDir, bundle.identity.attemptId, path, ref)));
  }
  if (issues.length > 0) return fail('the eval-session bundle does not describe this run', issues);
  return {
    issues: [],
    detail: `runnerd ran ${request.ids.attemptId} (deny_tool): a valid bundle naming ${options.expectedSha256}, ${bundle.semanticTools.denials.length} denial(s), ${references.length} referenced files verified`,
  };
}

/** `artifact://native/<attemptId>/X` is `<output dir>/<attemptId>/X`; the root URI is its artifact-root.json. */
async function referenceIssues(
  outputDir: string,
  attemptId: string,
  path: string,
  ref: { readonly uri: string; readonly sha256: string; readonly byteSize: number },
): Promise<QualificationIssue[]> {
  const prefix = `artifact://native/${attemptId}/`;
  const rest = ref.uri.startsWith(prefix) ? ref.uri.slice(prefix.length) : null;
  const name = rest === '' ? ARTIFACT_ROOT_FILE : rest;
  if (name === null) return [referenceInvalid(path, prefix, ref.uri)];
  // Never outside the output folder Evals made, links included: runnerd wrote everything in it
  // (the attempt's folder too), so it may hold anything.
  const found = await checkContainedReference(outputDir, `${attemptId}/${name}`, ref);
  if (found.kind === 'refused' && found.reason === 'outside_root')
    return [referenceInvalid(path, prefix, ref.uri)];
  if (found.kind === 'refused' && found.reason === 'symlink')
    return [
      {
        code: 'eval_session_reference_symlink',
        component: 'runnerd',
        message: `${ref.uri}: ${found.message}`,
        path: `${path}/uri`,
        expected: 'a regular file beside the bundle, reached through no symbolic link',
        received: 'a symbolic link',
      },
    ];
  if (found.kind === 'absent' || found.kind === 'refused') {
    return [
      {
        code: 'eval_session_file_missing',
        component: 'runnerd',
        message: `${ref.uri} is not a regular file beside the bundle`,
        path: `${path}/uri`,
        expected: 'a regular file',
        received: found.kind === 'absent' ? 'missing' : 'not a regular file',
      },
    ];
  }
  const issues: QualificationIssue[] = [];
  if (found.mismatches.includes('sha256')) {
    issues.push({
      code: 'eval_session_file_digest_mismatch',
      component: 'runnerd',
      message: `${ref.uri} does not have the digest the bundle states`,
      path: `${path}/sha256`,
      expected: ref.sha256,
      received: found.digest,
    });
  }
  if (found.mismatches.includes('byteSize')) {
    issues.push({
      code: 'eval_session_file_size_mismatch',
      component: 'runnerd',
      message: `${ref.uri} does not have the size the bundle states`,
      path: `${path}/byteSize`,
      expected: ref.byteSize,
      received: found.byteSize,
    });
  }
  return issues;
}

function referenceInvalid(path: string, prefix: string, uri: string): QualificationIssue {
  return {
    code: 'eval_session_reference_invalid',
    component: 'runnerd',
    message: `${path}/uri is not a file under ${prefix}`,
    path: `${path}/uri`,
    expected: `${prefix}<file>`,
    received: uri,
  };
}

function fail(detail: string, issues: QualificationIssue[]): EvalSessionCheckResult {
  return { issues, detail };
}
