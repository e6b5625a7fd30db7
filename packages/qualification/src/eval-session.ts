// The runnerd-eval-session check's two runs: the package's own paperclip-runner-eval-session bin,
// as the offline install linked it into the consumer, run against one private copy of the resolved
// runnerd. runnerd is staged by node's stageVerifiedExecutable into a private 0700 directory (the
// bytes run are the bytes hashed, and the digest must be the one the resolver verified; a changed
// file is runnerd_changed and never copied past the size cap); node runs the bin with no shell, an
// empty environment and a timeout, its process group killed whatever happens.
// - the refusal (runEvalSessionRefusalCheck): Evals' refusal request
//   (evals-eval-session-refusal-request.json: upstream's shape, a provider no runner supports) must
//   be refused as upstream's parser refuses it: exit 1, nothing written, stderr naming the provider.
// - the session (runEvalSessionCheck): Evals' session request
//   (evals-eval-session-request.json: our offline provider paperclip_deterministic, behaviour
//   deny_tool). A bin that refuses that provider the same way (upstream's: its providers are all
//   live) ran no session: the result says it needs a provider, and runnerd-eval-session is
//   skipped, never passed. Otherwise the artifact it writes must pass Evals' strict parser
//   together with the native-execution bundle it references (found beside it, by digest), name
//   the binary, the package version and the request's identity, and every file the bundle
//   references must exist beside it with the digest and size it states.
// runEvalSessionChecks runs both on one staged copy, as the check does.
import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isContractError, parseEvalSessionArtifact, readJsonText } from '@paperclip-evals/contract';
import {
  checkContainedReference,
  digestContainedFile,
  readAttemptFile,
  runBounded,
  runFailure,
  stageVerifiedExecutable,
} from '@paperclip-evals/node';

import type { Sha256Digest } from '@paperclip-evals/contract';
import type { AttemptInput, ContainedFileRefusal, StagedExecutable } from '@paperclip-evals/node';

import type { QualificationIssue } from './record.js';

/** The request Evals sends (this file sits at packages/qualification/{src,dist}/). */
export const EVALS_EVAL_SESSION_REQUEST_FILE = fileURLToPath(
  new URL('../evals-eval-session-request.json', import.meta.url),
);
/** The request upstream's parser must refuse (its provider is none a runner supports). */
export const EVALS_EVAL_SESSION_REFUSAL_REQUEST_FILE = fileURLToPath(
  new URL('../evals-eval-session-refusal-request.json', import.meta.url),
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
  /** The package's paperclip-runner-eval-session bin (a JavaScript file in the installed package). */
  readonly evalSessionBin: string;
  /** runnerd in the release directory. */
  readonly runnerdPath: string;
  /** The digest the resolver verified against SHA256SUMS. */
  readonly expectedSha256: Sha256Digest;
  /** The version in the tarball's package.json. */
  readonly packageVersion: string;
  /**
   * The version its build metadata states (upstream's differs from package.json's: 0.0.0 there):
   * a bundle that names either names this release.
   */
  readonly buildVersion?: string;
  /** A private directory to work in (removed by the caller). */
  readonly workDir: string;
  readonly timeoutMs?: number;
  readonly requestFile?: string;
}

export interface EvalSessionCheckResult {
  readonly issues: QualificationIssue[];
  readonly detail: string;
  /**
   * Set when the bin refused Evals' offline provider before any session (exit 1, nothing written,
   * stderr naming the provider): why a live provider is needed. No session ran, nothing is proven.
   */
  readonly needsProvider?: string;
}

/** The bin's name in the package's `bin` map, as upstream names it. */
export const EVAL_SESSION_BIN = 'paperclip-runner-eval-session';
const PACKAGE_NAME = '@paperclipai/paperclip-runner';

/**
 * The installed package's paperclip-runner-eval-session: the file its package.json `bin` names, a
 * plain path inside the package (no `..`, no link, no absolute path), or the issue saying why there
 * is none.
 */
export async function evalSessionBinOf(consumerDir: string): Promise<string | QualificationIssue> {
  const packageDir = join(consumerDir, 'node_modules', ...PACKAGE_NAME.split('/'));
  const missing = (message: string, received: unknown): QualificationIssue => ({
    code: 'eval_session_bin_missing',
    component: 'package',
    message,
    path: `/bin/${EVAL_SESSION_BIN}`,
    expected: `package.json bin["${EVAL_SESSION_BIN}"]: a JavaScript file inside the package`,
    received,
  });
  let manifest: { bin?: unknown };
  try {
    manifest = JSON.parse(await readFile(join(packageDir, 'package.json'), 'utf8')) as { bin?: unknown };
  } catch (error) {
    return missing(
      'the installed package has no readable package.json',
      error instanceof Error ? error.message : String(error),
    );
  }
  const bin = manifest.bin;
  const target =
    typeof bin === 'object' && bin !== null ? (bin as Record<string, unknown>)[EVAL_SESSION_BIN] : undefined;
  if (typeof target !== 'string')
    return missing(`the package ships no ${EVAL_SESSION_BIN} bin`, bin ?? 'no bin');
  // pnpm installs a file: dependency as a link into its store: the package folder itself is trusted
  // (realpath), nothing under it may leave it.
  const file = await digestContainedFile(packageDir, target.replace(/^\.\//, ''));
  if (file.kind !== 'file')
    return missing(
      `bin["${EVAL_SESSION_BIN}"] (${target}) is not a regular file inside the package`,
      file.kind === 'refused' ? file.reason : 'missing',
    );
  return file.path;
}

/**
 * Reads the committed request: strict JSON, its attempt, run (session.runId), case and config ids
 * (evalCase); throws if Evals' own file is broken. runnerd {path, sha256} is added when it runs.
 */
export async function loadEvalSessionRequest(
  file: string = EVALS_EVAL_SESSION_REQUEST_FILE,
): Promise<{ request: Record<string, unknown>; ids: EvalSessionRequestIds }> {
  const bytes = await readFile(file);
  const parsed = readJsonText(bytes);
  if (!parsed.ok) throw new Error(`${file} is not strict JSON`);
  const request = parsed.value as Record<string, unknown>;
  const session = (request.session ?? {}) as Record<string, unknown>;
  const evalCase = (request.evalCase ?? {}) as Record<string, unknown>;
  const ids = {
    runId: session.runId,
    caseId: evalCase.caseId,
    configId: evalCase.configId,
    attemptId: request.attemptId,
  };
  for (const [id, value] of Object.entries(ids)) {
    if (typeof value !== 'string' || !/^[A-Za-z0-9][A-Za-z0-9._:-]*$/.test(value))
      throw new Error(`${file}: ${id} is not an identifier`);
  }
  return { request, ids: ids as unknown as EvalSessionRequestIds };
}

type BoundedRunResult = Awaited<ReturnType<typeof runBounded>>;
/** What running the bin on a staged runnerd takes (a request's own file aside). */
type StagedRunOptions = Omit<RunEvalSessionCheckOptions, 'packageVersion' | 'requestFile'>;

/** One run of the bin on a request naming the staged runnerd: what it did and where it wrote. */
interface BinRun {
  readonly result: BoundedRunResult;
  readonly outputDir: string;
  readonly artifactPath: string;
}

/** One request for the bin, and how its run is judged (while the staged copy still exists). */
interface StagedRequest {
  /** Names its request file and output folder in the staging folder. */
  readonly label: string;
  readonly request: Record<string, unknown>;
  readonly judge: (run: BinRun) => Promise<EvalSessionCheckResult>;
}

/**
 * Stages runnerd once (against the resolver's digest), then for each request in turn writes it
 * naming the private copy, runs the bin with --request --output into an empty private folder of
 * its own, and judges the run. A runnerd changed since it was resolved is never run: the one
 * result is then runnerd_changed.
 */
async function withStagedRuns(
  options: StagedRunOptions,
  requests: readonly StagedRequest[],
): Promise<{ readonly unstaged: EvalSessionCheckResult } | { readonly results: EvalSessionCheckResult[] }> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_EVAL_SESSION_TIMEOUT_MS;
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
    return {
      unstaged: fail('runnerd changed after it was resolved; it was not run', [
        ...error.issues.map((issue): QualificationIssue => ({
          ...issue,
          code: issue.code === 'digest_mismatch' ? 'runnerd_changed' : issue.code,
          component: 'runnerd',
        })),
      ]),
    };
  }
  try {
    const dir = staged.stagingDir;
    const results: EvalSessionCheckResult[] = [];
    for (const { label, request, judge } of requests) {
      const requestPath = join(dir, `${label}-request.json`);
      const named = { ...request, runnerd: { path: staged.stagedPath, sha256: options.expectedSha256 } };
      await writeFile(requestPath, `${JSON.stringify(named, null, 2)}\n`, { mode: 0o600 });
      const outputDir = join(dir, `${label}-output`);
      await mkdir(outputDir, { mode: 0o700 });
      const artifactPath = join(outputDir, 'artifact.json');
      const result = await runBounded({
        command: process.execPath,
        args: [options.evalSessionBin, '--request', requestPath, '--output', artifactPath],
        cwd: dir,
        env: {},
        timeoutMs,
        maxStdoutBytes: MAX_EVAL_SESSION_STDOUT_BYTES,
      });
      results.push(await judge({ result, outputDir, artifactPath }));
    }
    return { results };
  } finally {
    await staged.dispose();
  }
}

/** The one result of a single request's staged run. */
async function withStagedRun(
  options: StagedRunOptions,
  request: StagedRequest,
): Promise<EvalSessionCheckResult> {
  const outcome = await withStagedRuns(options, [request]);
  if ('unstaged' in outcome) return outcome.unstaged;
  const [result] = outcome.results;
  if (result === undefined) throw new Error('internal: a staged request gave no result');
  return result;
}

/** The last 4000 characters of what the bin printed on stderr, or its exit code when it printed nothing. */
const stderrOf = (result: BoundedRunResult): string =>
  result.stderrTail.slice(-4000) || `exit code ${String(result.exitCode)}`;

/**
 * The bin refused the request before any session, as upstream's exits on a request its parser
 * refuses: exit 1 (no timeout, no signal), nothing at all in the output folder, and stderr naming
 * the provider (upstream: "eval-session provider is unsupported by CapabilityLiveSessionService").
 */
async function refusedProvider(run: BinRun): Promise<boolean> {
  if (!exitedWithOne(run.result)) return false;
  if ((await readdir(run.outputDir)).length > 0) return false;
  return /provider/i.test(run.result.stderrTail);
}

/** It ran and exited with code 1 by itself (not killed, not timed out, not a signal). */
const exitedWithOne = (result: BoundedRunResult): boolean =>
  result.exitCode === 1 &&
  result.spawnError === null &&
  !result.timedOut &&
  !result.killed &&
  result.signal === null;

/**
 * The refusal: Evals' refusal request (upstream's shape; a provider no runner
 * supports) must be refused as upstream's parser refuses it. Never rejects for anything the bin does.
 */
export async function runEvalSessionRefusalCheck(
  options: StagedRunOptions & { readonly requestFile?: string },
): Promise<EvalSessionCheckResult> {
  return withStagedRun(options, await refusalRequest(options, options.requestFile));
}

/** The refusal as one staged request: Evals' refusal request, or `file`'s. */
async function refusalRequest(
  options: StagedRunOptions,
  file = EVALS_EVAL_SESSION_REFUSAL_REQUEST_FILE,
): Promise<StagedRequest> {
  const parsed = readJsonText(await readFile(file));
  if (!parsed.ok || typeof parsed.value !== 'object' || parsed.value === null)
    throw new Error(`${file} is not a strict JSON object`);
  const request = parsed.value as Record<string, unknown>;
  const provider = String(request.provider);
  const timeoutMs = options.timeoutMs ?? DEFAULT_EVAL_SESSION_TIMEOUT_MS;
  const judge = async (run: BinRun): Promise<EvalSessionCheckResult> => {
    if (await refusedProvider(run))
      return {
        issues: [],
        detail: `paperclip-runner-eval-session refused a request for provider ${provider} as upstream's parser does: exit 1, nothing written, no session (stderr: ${JSON.stringify(run.result.stderrTail.trim().slice(-300))})`,
      };
    const written = await readdir(run.outputDir);
    const failure = runFailure(run.result, timeoutMs);
    const expected = `exit code 1, nothing written, stderr naming the provider: upstream's parser refuses provider ${provider} before any session ("eval-session provider is unsupported by CapabilityLiveSessionService")`;
    const issues: QualificationIssue[] = [];
    if (!exitedWithOne(run.result))
      issues.push({
        code: 'eval_session_refusal_not_refused',
        component: 'eval-session',
        message: `given a request for provider ${provider}, which no runner supports, paperclip-runner-eval-session ${failure ?? 'exited 0'}: a request it cannot run must be refused with exit code 1`,
        expected,
        received: stderrOf(run.result),
      });
    if (written.length > 0)
      issues.push({
        code: 'eval_session_refusal_wrote_output',
        component: 'eval-session',
        message: `given a request it must refuse, paperclip-runner-eval-session wrote ${written.join(', ')} into the output folder: a refused request leaves no artifact`,
        expected: 'nothing in the output folder',
        received: written,
      });
    if (issues.length === 0)
      issues.push({
        code: 'eval_session_refusal_unexplained',
        component: 'eval-session',
        message: `paperclip-runner-eval-session exited 1 for a request for provider ${provider}, but its stderr does not say the provider is why: the refusal cannot be told from a crash`,
        expected,
        received: stderrOf(run.result),
      });
    return fail(
      `paperclip-runner-eval-session did not refuse a request for provider ${provider} as upstream's parser does`,
      issues,
    );
  };
  return { label: 'refusal', request, judge };
}

/**
 * The runnerd-eval-session check; never rejects for anything runnerd or the bin does (only for
 * Evals' own I/O failures). A bin that refuses Evals' offline provider gives `needsProvider`.
 */
export async function runEvalSessionCheck(
  options: RunEvalSessionCheckOptions,
): Promise<EvalSessionCheckResult> {
  return withStagedRun(options, await sessionRequest(options));
}

/** The session as one staged request: Evals' session request, or options.requestFile's. */
async function sessionRequest(options: RunEvalSessionCheckOptions): Promise<StagedRequest> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_EVAL_SESSION_TIMEOUT_MS;
  const loaded = await loadEvalSessionRequest(options.requestFile);
  return {
    label: 'session',
    request: loaded.request,
    judge: (run) => judgeSession(options, loaded, run, timeoutMs),
  };
}

/**
 * Both runs of runnerd-eval-session on one staged copy of runnerd: the refusal, then the session
 * (a runnerd changed since it was resolved runs neither: `unstaged`).
 */
export async function runEvalSessionChecks(
  options: RunEvalSessionCheckOptions,
): Promise<
  | { readonly unstaged: EvalSessionCheckResult }
  | { readonly refusal: EvalSessionCheckResult; readonly session: EvalSessionCheckResult }
> {
  const outcome = await withStagedRuns(options, [
    await refusalRequest(options),
    await sessionRequest(options),
  ]);
  if ('unstaged' in outcome) return outcome;
  const [refusal, session] = outcome.results as [EvalSessionCheckResult, EvalSessionCheckResult];
  return { refusal, session };
}

async function judgeSession(
  options: RunEvalSessionCheckOptions,
  loaded: Awaited<ReturnType<typeof loadEvalSessionRequest>>,
  { result, outputDir, artifactPath }: BinRun,
  timeoutMs: number,
): Promise<EvalSessionCheckResult> {
  if (await refusedProvider({ result, outputDir, artifactPath })) {
    const provider = String(loaded.request.provider);
    return {
      issues: [],
      detail: `paperclip-runner-eval-session refused Evals' offline provider ${provider}: no session ran`,
      needsProvider: `paperclip-runner-eval-session refused Evals' offline provider ${provider} before any session (exit 1, nothing written; stderr: ${JSON.stringify(result.stderrTail.trim().slice(-300))}). Upstream's bin runs only live providers (codex, opencode, claude_managed, aws_agentcore, acpx: credentials and the network), so no eval session runs offline and what it would prove (an artifact and bundle naming this runnerd) is unproven`,
    };
  }
  const failure = runFailure(result, timeoutMs);
  if (failure !== null) {
    const written = await readFile(artifactPath, 'utf8').catch(() => null);
    const infrastructure = written === null ? undefined : infrastructureFailureOf(written);
    return fail(`paperclip-runner-eval-session ${failure}`, [
      {
        code: 'eval_session_failed',
        component: 'eval-session',
        message: `paperclip-runner-eval-session --request --output ${failure}${infrastructure === undefined ? '' : ` (${infrastructure})`}`,
        expected: 'exit code 0',
        received: stderrOf(result),
      },
    ]);
  }

  let input: AttemptInput;
  try {
    input = await readAttemptFile(artifactPath);
  } catch (error) {
    if (isContractError(error)) {
      return fail(
        "the artifact paperclip-runner-eval-session wrote (or its bundle) does not pass Evals' parser",
        [
          {
            code: 'eval_session_artifact_invalid',
            component: 'eval-session',
            message: `${error.issues.length} issue(s): ${[...new Set(error.issues.map((issue) => issue.code))].join(', ')}`,
            expected:
              'a valid paperclip-runner/eval-session-artifact/v1 and the native-execution/v1 bundle it references',
            received: error.issues.slice(0, 20),
          },
        ],
      );
    }
    return fail('paperclip-runner-eval-session exited 0 but wrote no readable artifact', [
      {
        code: 'eval_session_artifact_missing',
        component: 'eval-session',
        message: `${artifactPath} cannot be read: ${error instanceof Error ? error.message : String(error)}`,
        expected: 'the artifact at --output',
        received: (error as NodeJS.ErrnoException).code ?? 'unreadable',
      },
    ]);
  }
  const bundle = input.bundle;
  if (input.evalSession === undefined)
    return fail('paperclip-runner-eval-session wrote a bare bundle, not an eval-session artifact', [
      {
        code: 'eval_session_artifact_invalid',
        component: 'eval-session',
        message: 'the output is a native-execution bundle, not a paperclip-runner/eval-session-artifact/v1',
        expected: 'paperclip-runner/eval-session-artifact/v1',
        received: bundle.schema,
      },
    ]);

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
  const versions = [options.packageVersion, options.buildVersion ?? options.packageVersion];
  if (!versions.includes(bundle.runner.package.version)) {
    const stated = [...new Set(versions)].join(' or ');
    issues.push({
      code: 'eval_session_version_mismatch',
      component: 'runnerd',
      message: `the bundle says package version ${bundle.runner.package.version}, the release ${stated} (package.json, build metadata)`,
      path: '/runner/package/version',
      expected: stated,
      received: bundle.runner.package.version,
    });
  }
  for (const id of ['runId', 'caseId', 'configId', 'attemptId'] as const) {
    if (bundle.identity[id] !== loaded.ids[id]) {
      issues.push({
        code: 'eval_session_identity_mismatch',
        component: 'runnerd',
        message: `the bundle's identity.${id} is not the request's`,
        path: `/identity/${id}`,
        expected: loaded.ids[id],
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
    detail: `paperclip-runner-eval-session ran ${loaded.ids.attemptId} (deny_tool) on runnerd ${options.expectedSha256}: a valid artifact and bundle naming it, ${bundle.semanticTools.denials.length} denial(s), ${references.length} referenced files verified`,
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
  if (found.kind === 'refused') {
    const { reason } = found;
    if (reason === 'outside_root') return [referenceInvalid(path, prefix, ref.uri)];
    return [referenceRefusal(reason, ref.uri, path, found.message)];
  }
  if (found.kind === 'absent')
    return [
      {
        code: 'eval_session_file_missing',
        component: 'runnerd',
        message: `${ref.uri} is not a file beside the bundle`,
        path: `${path}/uri`,
        expected: 'a regular file',
        received: 'missing',
      },
    ];
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

/** The issue of each reason node's contained-file reader refuses a referenced file (but outside_root). */
const REFERENCE_REFUSAL: Record<
  Exclude<ContainedFileRefusal, 'outside_root'>,
  { readonly code: string; readonly expected: string; readonly received: string }
> = {
  symlink: {
    code: 'eval_session_reference_symlink',
    expected: 'a regular file beside the bundle, reached through no symbolic link',
    received: 'a symbolic link',
  },
  not_a_file: {
    code: 'eval_session_file_not_regular',
    expected: 'a regular file',
    received: 'not a regular file (a directory, FIFO, socket or device)',
  },
  unreadable: {
    code: 'eval_session_file_unreadable',
    expected: 'a file Evals can read',
    received: 'a file the file system will not let Evals read',
  },
};

/** The issue for a referenced file the reader refused, by its reason (one code per reason). */
export function referenceRefusal(
  reason: Exclude<ContainedFileRefusal, 'outside_root'>,
  uri: string,
  path: string,
  found: string,
): QualificationIssue {
  const { code, expected, received } = REFERENCE_REFUSAL[reason];
  return { code, component: 'runnerd', message: `${uri}: ${found}`, path: `${path}/uri`, expected, received };
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

/** `class (retryable)` of a failure artifact, when the text is one. */
/**
 * The failure a failed session's artifact states, as the contract parser reads it (the one that
 * judges it in `evals validate`): a class only from a valid artifact, else why it is not one.
 */
function infrastructureFailureOf(text: string): string | undefined {
  try {
    const failure = parseEvalSessionArtifact(text).infrastructureFailure;
    return failure === undefined ? undefined : `${failure.class}${failure.retryable ? ', retryable' : ''}`;
  } catch (error) {
    return isContractError(error)
      ? `its artifact is invalid: ${[...new Set(error.issues.map((issue) => issue.code))].join(', ')}`
      : undefined;
  }
}

function fail(detail: string, issues: QualificationIssue[]): EvalSessionCheckResult {
  return { issues, detail };
}
