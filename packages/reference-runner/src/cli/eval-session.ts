#!/usr/bin/env node
// paperclip-runner-eval-session --request FILE --output FILE: one direct eval session. Reads a
// paperclip-runner/eval-session-request/v1, re-hashes the runnerd it names, asks that exact copy for
// its build metadata, runs one turn with the deterministic driver (our stand-in provider) under the
// request's limits, and writes a paperclip-runner/eval-session-artifact/v1 to --output, with the
// attempt's native-execution/v1 bundle and its files in <output folder>/<attemptId>/.
// Exit codes: 0 the artifact is written (the turn itself may have failed: the bundle says so); 2 an
// infrastructure failure, and the failure-shaped artifact is written (a hanging turn, a budget
// overrun, a runnerd digest mismatch, a runner failure); 1 nothing usable was written (bad
// arguments, an unreadable or invalid request, the output folder missing, an unreadable runnerd, a
// crash while writing).
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import canonicalize from 'canonicalize';

import { CONTRACT_VERSIONS, packageBuildMetadata } from '../build-info.js';
import { runEvalSession } from '../session/eval-session.js';
import { evalSessionDevtools, evalSessionIssueThread } from '../session/eval-session-views.js';
import { DETERMINISTIC_DRIVER_DESCRIPTOR } from '../testing/deterministic-driver.js';
import {
  EVAL_SESSION_ARTIFACT_SCHEMA,
  EvalSessionInfrastructureError,
  WITHHELD,
  budgetFailure,
  evalSessionUsage,
  parseEvalSessionRequest,
} from './eval-session-contract.js';

import type { PaperclipRunnerBuildMetadata } from '../build-info.js';
import type { EvalSessionOutcome } from '../session/eval-session.js';
import type { EvalSessionViewInput } from '../session/eval-session-views.js';
import type {
  EvalSessionArtifact,
  EvalSessionRequest,
  EvalSessionTurn,
  EvalSessionUsage,
  NativeExecutionReference,
  UsageReceipt,
} from './eval-session-contract.js';

/** The driver's seed text: text as is, upstream's fixture seed object by its canonical JSON. */
function seedText(seed: EvalSessionRequest['session']['seed']): string | undefined {
  return seed === undefined || typeof seed === 'string' ? seed : canonicalize(seed);
}

export const EVAL_SESSION_EXIT = Object.freeze({ ok: 0, error: 1, infrastructureFailure: 2 } as const);
/** The bundle's file name inside <output folder>/<attemptId>/. */
export const NATIVE_EXECUTION_FILE = 'native-execution.json';
/** runnerd --build-metadata gets at most this long. */
const RUNNERD_METADATA_TIMEOUT_MS = 10_000;
const MAX_METADATA_BYTES = 64 * 1024;

export interface EvalSessionIo {
  /** Where --help and --version print (default: nowhere). */
  readonly stdout?: (text: string) => void;
  readonly stderr: (text: string) => void;
  readonly cwd: string;
  readonly now: () => Date;
}

const USAGE = 'usage: paperclip-runner-eval-session --request <request.json> --output <artifact.json>\n';

/** What --help prints: what the bin does, its two flags, its exit codes and an example. */
const HELP = `${USAGE}
Runs one eval session: reads a paperclip-runner/eval-session-request/v1, runs the attempt against
the runnerd the request names (verified by its sha256 first), and writes a
paperclip-runner/eval-session-artifact/v1 to --output, the native-execution bundle and the files it
references beside it, under <output folder>/<attemptId>/.

Options:
  --request <file>  the eval-session request (JSON)
  --output <file>   where the artifact is written
  -h, --help        print this help
  -V, --version     print the package version

Exit codes: 0 the session ran (the artifact says how it ended) · 1 usage or unreadable request ·
2 infrastructure failure (the artifact carries infrastructureFailure)

Example:
  paperclip-runner-eval-session --request attempt-1.request.json --output out/attempt-1.json
`;

export async function runEvalSessionCli(argv: readonly string[], io: EvalSessionIo): Promise<number> {
  const fail = (message: string): number => {
    io.stderr(`paperclip-runner-eval-session: ${message}\n`);
    return EVAL_SESSION_EXIT.error;
  };
  if (argv.length === 1 && (argv[0] === '--help' || argv[0] === '-h')) {
    io.stdout?.(HELP);
    return EVAL_SESSION_EXIT.ok;
  }
  if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
    io.stdout?.(`${packageBuildMetadata().package.version}\n`);
    return EVAL_SESSION_EXIT.ok;
  }
  const flags = parseArguments(argv);
  if (typeof flags === 'string') return fail(`${flags}\n${USAGE}`);
  const requestPath = resolve(io.cwd, flags.request);
  const outputPath = resolve(io.cwd, flags.output);
  let request: EvalSessionRequest;
  try {
    const text = await readFile(requestPath, 'utf8');
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch (cause) {
      return fail(`${flags.request} is not JSON: ${String(cause)}`);
    }
    request = parseEvalSessionRequest(raw);
  } catch (error) {
    return fail(error instanceof Error ? error.message : String(error));
  }
  const outputDir = dirname(outputPath);
  // The output's folder must exist: the bin never creates folders above the one it owns.
  if ((await stat(outputDir).catch(() => null))?.isDirectory() !== true)
    return fail(`the output's folder ${outputDir} does not exist`);

  const build = packageBuildMetadata();
  const startedAt = io.now();
  const common = {
    schema: EVAL_SESSION_ARTIFACT_SCHEMA,
    attemptId: request.attemptId,
    build,
    requestedModel: request.model,
    provider: request.provider,
    driver: request.driver,
    providerVersion: DETERMINISTIC_DRIVER_DESCRIPTOR.version,
  } as const;
  const timing = (): EvalSessionArtifact['timing'] => {
    const finishedAt = io.now();
    return {
      startedAt: startedAt.toISOString(),
      finishedAt: finishedAt.toISOString(),
      durationMs: Math.max(0, finishedAt.getTime() - startedAt.getTime()),
    };
  };
  // Before the session block, as upstream: an unreadable runnerd has no digest to state, so no
  // artifact can name it (exit 1).
  const runnerdPath = resolve(io.cwd, request.runnerd.path);
  let runnerdBytes: Buffer;
  try {
    runnerdBytes = await readFile(runnerdPath);
  } catch (error) {
    return fail(`runnerd cannot be read: ${error instanceof Error ? error.message : String(error)}`);
  }
  const observedSha256 = `sha256:${createHash('sha256').update(runnerdBytes).digest('hex')}`;
  let outcome: EvalSessionOutcome | undefined;
  let usage: EvalSessionUsage | undefined;
  let nativeExecution: NativeExecutionReference | undefined;
  const providerSessionId = request.session.sessionId ?? `session_${request.attemptId}`;
  try {
    const expected = request.runnerd.sha256.replace(/^sha256:/, '');
    // Exact, as upstream compares: upper-case hex parses but is not the digest of these bytes.
    if (`sha256:${expected}` !== observedSha256)
      throw new EvalSessionInfrastructureError(
        'eval_orchestration_failure',
        `runnerd digest mismatch: expected ${request.runnerd.sha256}, got ${observedSha256}`,
        { expected: request.runnerd.sha256, received: observedSha256 },
      );
    // Its own limit, not the turn's: the runner's start-up is not the provider's turn.
    await checkRunnerd(runnerdBytes, build, RUNNERD_METADATA_TIMEOUT_MS);

    // What the judge found (set inside the session's judge callback).
    const found: { failure: EvalSessionInfrastructureError | null } = { failure: null };
    const behaviour = behaviourOf(request);
    outcome = await runEvalSession(
      {
        runId: request.session.runId,
        caseId: request.evalCase.caseId,
        configId: request.evalCase.configId,
        attemptId: request.attemptId,
        caseSha256: request.evalCase.caseSha256,
        configSha256: request.evalCase.configSha256,
        seed: seedText(request.session.seed) ?? request.attemptId,
        startedAt: startedAt.toISOString(),
        ...(behaviour === undefined ? {} : { behaviour }),
        prompt: request.prompt,
        model: request.model,
        ...(request.session.pricing === undefined ? {} : { pricing: request.session.pricing }),
      },
      { binarySha256: observedSha256 },
      {
        turnTimeoutMs: request.limits.turnTimeoutMs,
        judge: (turn) => {
          usage = evalSessionUsage(receiptsOf(turn.turnId, turn.usage), request.model);
          if (turn.timedOut)
            found.failure = new EvalSessionInfrastructureError(
              'provider_turn_timeout',
              `the provider turn timed out after ${request.limits.turnTimeoutMs} ms`,
              { turnTimeoutMs: request.limits.turnTimeoutMs },
            );
          else if (turn.failure?.classification === 'infrastructure')
            found.failure = new EvalSessionInfrastructureError(
              'runner_infrastructure_failure',
              `the runner failed during the turn: ${turn.failure.message}`,
              { code: turn.failure.code },
            );
          else if (turn.failure?.classification === 'budget')
            found.failure = new EvalSessionInfrastructureError(
              'provider_budget_reached',
              `the provider stopped at its budget: ${turn.failure.message}`,
              { code: turn.failure.code },
            );
          else if (turn.state === 'completed') found.failure = budgetFailure(usage, request.limits);
          const { cost: _receipt, ...tokens } = turn.usage;
          return {
            // A direct session has no provider receipt: usage.cost is null, the figures are seed 001's.
            usage: {
              ...tokens,
              cost: null,
              providerReportedCostNanodollars: null,
              providerReportedCostProvenance: usage.providerReportedCostProvenance,
              estimatedCostNanodollars: usage.estimatedCostNanodollars,
              ...(usage.pricingVersion === null ? {} : { pricingVersion: usage.pricingVersion }),
              costCoverage: usage.costCoverage,
              legacyLedgerCostNanodollars: usage.legacyLedgerCostNanodollars,
            },
            // A turn that did not complete with no infrastructure failure is the agent's own (a
            // behaviour result): upstream's attempt failure code for it, provider_turn_<status>.
            failure:
              found.failure === null
                ? turn.state === 'completed'
                  ? turn.failure
                  : {
                      classification: 'provider_turn',
                      code: `provider_turn_${turn.state}`,
                      message: turn.failure?.message ?? `the provider turn ended ${turn.state}`,
                    }
                : {
                    classification:
                      found.failure.infrastructureFailure.category === 'provider_budget'
                        ? 'budget'
                        : 'infrastructure',
                    code: found.failure.failureClass,
                    message: found.failure.message,
                  },
          };
        },
      },
    );
    nativeExecution = await writeBundle(outputDir, request.attemptId, outcome);
    if (found.failure !== null) throw found.failure;
    const turn: EvalSessionTurn = {
      turnId: outcome.turn.turnId,
      status: outcome.turn.state,
      assistantText: outcome.assistantText,
    };
    const snapshot = snapshotOf(outcome, providerSessionId);
    const ended = timing();
    // Upstream's two projections of the session, in a success artifact only (its failure has neither).
    const views: EvalSessionViewInput = {
      events: outcome.bundle.events,
      sessionId: outcome.snapshot?.sessionId ?? `session_${request.attemptId}`,
      providerSessionId,
      runId: request.session.runId,
      caseId: request.evalCase.caseId,
      prompt: request.prompt,
      model: request.model,
      scenario: behaviour ?? 'succeed',
      turnTimeoutMs: request.limits.turnTimeoutMs,
      status: String(snapshot.status),
      startedAt: ended.startedAt,
      finishedAt: ended.finishedAt,
      usageLedger: receiptsOf(outcome.turn.turnId, outcome.turn.usage),
    };
    await writeArtifact(outputPath, {
      ...common,
      runnerd: { path: WITHHELD, sha256: observedSha256 },
      providerSessionId,
      turn,
      snapshot,
      devtools: evalSessionDevtools(views),
      issueThread: evalSessionIssueThread(views),
      usage: usage ?? evalSessionUsage([], request.model),
      timing: ended,
      nativeExecution,
    });
    return EVAL_SESSION_EXIT.ok;
  } catch (error) {
    const infrastructure =
      error instanceof EvalSessionInfrastructureError
        ? error
        : new EvalSessionInfrastructureError(
            'eval_orchestration_failure',
            error instanceof Error ? error.message : String(error),
          );
    try {
      await writeArtifact(outputPath, {
        ...common,
        infrastructureError: infrastructure.message,
        infrastructureFailure: infrastructure.infrastructureFailure,
        runnerd: { path: WITHHELD, sha256: observedSha256 },
        providerSessionId: outcome === undefined ? null : providerSessionId,
        ...(outcome === undefined ? {} : { snapshot: snapshotOf(outcome, providerSessionId) }),
        ...(usage === undefined ? {} : { usage }),
        timing: timing(),
        ...(nativeExecution === undefined ? {} : { nativeExecution }),
      });
    } catch (writeError) {
      return fail(
        `cannot write the artifact: ${writeError instanceof Error ? writeError.message : String(writeError)}`,
      );
    }
    io.stderr(`paperclip-runner-eval-session: ${infrastructure.failureClass}: ${infrastructure.message}\n`);
    return EVAL_SESSION_EXIT.infrastructureFailure;
  }
}

/** The deterministic agent's behaviour for this request: its model's in behaviourByModel, else behaviour. */
export function behaviourOf(request: EvalSessionRequest): EvalSessionRequest['session']['behaviour'] {
  const byModel = request.session.behaviourByModel;
  return byModel !== undefined && Object.hasOwn(byModel, request.model)
    ? byModel[request.model]
    : request.session.behaviour;
}

/** `--request FILE --output FILE`, in any order, each once; nothing else. */
function parseArguments(argv: readonly string[]): { request: string; output: string } | string {
  const values = new Map<string, string>();
  for (let index = 0; index < argv.length; index += 2) {
    const flag = argv[index] ?? '';
    const value = argv[index + 1];
    if (flag !== '--request' && flag !== '--output') return `unknown argument: ${flag}`;
    if (value === undefined || value === '' || value.startsWith('--')) return `missing ${flag}`;
    if (values.has(flag)) return `${flag} given twice`;
    values.set(flag, value);
  }
  const request = values.get('--request');
  const output = values.get('--output');
  if (request === undefined) return 'missing --request';
  if (output === undefined) return 'missing --output';
  return { request, output };
}

/**
 * One receipt per turn, as the driver reported it. Each model request of the agent's loop is one
 * agent turn (providerCalls), so maxAgentTurns bounds the requests one prompt may cost.
 */
function receiptsOf(turnId: string, usage: EvalSessionOutcome['turn']['usage']): UsageReceipt[] {
  return [
    {
      receiptId: `receipt_${turnId}`,
      turnId,
      providerCalls: usage.requestCount,
      providerRequests: usage.requestCount,
      inputTokens: usage.inputTokens,
      outputTokens: usage.outputTokens,
      cachedInputTokens: 0,
      reasoningTokens: 0,
      reportedCost: usage.cost,
    },
  ];
}

/** The driver's snapshot (when it could take one) with the raw usage receipts. */
function snapshotOf(outcome: EvalSessionOutcome, providerSessionId: string): Record<string, unknown> {
  return {
    ...(outcome.snapshot ?? { sessionId: providerSessionId }),
    status: outcome.turn.timedOut ? 'cancelled' : 'closed',
    usageLedger: receiptsOf(outcome.turn.turnId, outcome.turn.usage),
  };
}

/**
 * Runs a private copy of exactly the hashed bytes with --build-metadata (no shell, empty
 * environment, timeout, output cap). A runnerd that cannot run, or does not match the package, is a
 * runner infrastructure failure (retryable).
 */
async function checkRunnerd(
  bytes: Buffer,
  build: PaperclipRunnerBuildMetadata,
  timeoutMs: number,
): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'paperclip-runner-eval-session-'));
  try {
    const copy = join(dir, 'paperclip-runnerd');
    await writeFile(copy, bytes, { mode: 0o700 });
    const { code, signal, stdout, timedOut } = await runCapped(copy, ['--build-metadata'], timeoutMs);
    const failed = (message: string): EvalSessionInfrastructureError =>
      new EvalSessionInfrastructureError('runner_infrastructure_failure', message, {
        exitCode: code,
        signal,
      });
    if (timedOut) throw failed(`runnerd --build-metadata did not answer within ${timeoutMs} ms`);
    if (code !== 0) throw failed(`the runner exited ${code ?? signal ?? 'abnormally'} on --build-metadata`);
    let metadata: unknown;
    try {
      metadata = JSON.parse(stdout);
    } catch {
      metadata = undefined;
    }
    if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata))
      throw failed('the runner printed no JSON build metadata object');
    const fields = metadata as Record<string, unknown>;
    const prp = fields.prp as { minimumVersion?: unknown; maximumVersion?: unknown } | undefined;
    const mismatches = [
      fields.packageVersion !== build.package.version &&
        `package version ${String(fields.packageVersion)} ≠ ${build.package.version}`,
      fields.binaryContractVersion !== CONTRACT_VERSIONS.runnerdArtifact && 'binary contract version',
      fields.nativeExecutionVersion !== CONTRACT_VERSIONS.nativeExecution && 'native execution version',
      (typeof prp?.minimumVersion !== 'number' ||
        typeof prp.maximumVersion !== 'number' ||
        prp.minimumVersion > build.prp.maximumVersion ||
        prp.maximumVersion < build.prp.minimumVersion) &&
        'PRP version range does not overlap',
    ].filter((entry): entry is string => typeof entry === 'string');
    if (mismatches.length > 0)
      throw failed(`the runner does not match the package: ${mismatches.join('; ')}`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function runCapped(
  command: string,
  args: readonly string[],
  timeoutMs: number,
): Promise<{ code: number | null; signal: string | null; stdout: string; timedOut: boolean }> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(command, args, { env: {}, stdio: ['ignore', 'pipe', 'ignore'], detached: true });
    const chunks: Buffer[] = [];
    let size = 0;
    let timedOut = false;
    const kill = (): void => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, timeoutMs);
    child.stdout.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_METADATA_BYTES) kill();
      else chunks.push(chunk);
    });
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(
        new EvalSessionInfrastructureError(
          'runner_infrastructure_failure',
          `the runner cannot start: ${error.message}`,
        ),
      );
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      kill();
      resolvePromise({ code, signal, stdout: Buffer.concat(chunks).toString('utf8'), timedOut });
    });
  });
}

/** The bundle and its files under <outputDir>/<attemptId>/; returns the bundle's reference. */
async function writeBundle(
  outputDir: string,
  attemptId: string,
  outcome: EvalSessionOutcome,
): Promise<NativeExecutionReference> {
  await mkdir(join(outputDir, attemptId), { recursive: true });
  for (const file of outcome.files) await writeFile(join(outputDir, file.relativePath), file.bytes);
  const bytes = Buffer.from(outcome.bundleText, 'utf8');
  const path = `${attemptId}/${NATIVE_EXECUTION_FILE}`;
  await writeFile(join(outputDir, path), bytes);
  return {
    path,
    sha256: `sha256:${createHash('sha256').update(bytes).digest('hex')}`,
    byteSize: bytes.length,
  };
}

/** Pretty JSON and a newline, written whole (a temporary file renamed over the output). */
async function writeArtifact(outputPath: string, artifact: EvalSessionArtifact): Promise<void> {
  const temporary = join(dirname(outputPath), `.${basename(outputPath)}.${process.pid}.tmp`);
  await writeFile(temporary, `${JSON.stringify(artifact, null, 2)}\n`);
  await rename(temporary, outputPath);
}

const entry = process.argv[1];
// Run as the bin (npm links it from node_modules/.bin), not when imported by a test.
if (entry !== undefined && realpathSync(entry) === fileURLToPath(import.meta.url)) {
  runEvalSessionCli(process.argv.slice(2), {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    cwd: process.cwd(),
    now: () => new Date(),
  }).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      process.stderr.write(
        `paperclip-runner-eval-session: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
      );
      process.exitCode = 1;
    },
  );
}
