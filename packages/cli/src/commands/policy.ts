// `evals policy evaluate` and `evals policy replay`: flags in, one @paperclip-evals/policy call,
// results out. On the evaluate path stdout carries protocol frames only. With --store, replay reads
// its attempts from the Evalbook (or takes the files given) and stores each call's verdict there.
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import {
  ContractError,
  STDIN_INPUT,
  canonicalDigest,
  displayLocator,
  expandBundleInputs,
  isContractError,
  parseNativeExecution,
  readNativeExecutionFile,
  readNativeExecutionStream,
} from '@paperclip-evals/contract';
import {
  handshake,
  isPolicyError,
  replayAttempts,
  runEvaluate,
  toolCallSessions,
} from '@paperclip-evals/policy';

import { progressText } from '../progress.js';
import { clearProgress, drawProgress, printJson, printJsonText, printLines } from '../print.js';
import {
  POLICY_EVALUATE_EXIT,
  POLICY_REPLAY_EXIT,
  EXIT,
  UsageError,
  describeError,
  errorLines,
  exitCodeFor,
  exitCodeForPolicyError,
  failureJson,
  isFileSystemError,
} from '../exit-codes.js';

import type { NativeExecution } from '@paperclip-evals/contract';
import type {
  AttemptKey,
  LedgerStore,
  PolicyDecision,
  PolicyVerdictInput,
  PolicyVerdictOutcome,
} from '@paperclip-evals/evalbook';
import type {
  ReplayAttemptsResult,
  ReplaySession,
  ToolCallComparison,
  ToolCallRef,
} from '@paperclip-evals/policy';

const CLI_VERSION = (createRequire(import.meta.url)('../../package.json') as { version: string }).version;

export interface PolicyEvaluateOptions {
  readonly describe: boolean;
  readonly listen?: string;
}

export async function runPolicyEvaluate(options: PolicyEvaluateOptions): Promise<number> {
  if (options.listen !== undefined) {
    printLines('stderr', [
      `evals policy evaluate: --listen ${options.listen} is reserved and not implemented; no socket is opened (use stdin/stdout)`,
    ]);
    return POLICY_EVALUATE_EXIT.couldNotStart;
  }
  if (options.describe) {
    printJson(handshake(CLI_VERSION), 0);
    return POLICY_EVALUATE_EXIT.ok;
  }
  const code = await runEvaluate({
    input: process.stdin,
    output: process.stdout,
    diagnostics: (message) => {
      printLines('stderr', [`evals policy evaluate: ${message}`]);
    },
    clientVersion: CLI_VERSION,
  });
  return code === 0 ? POLICY_EVALUATE_EXIT.ok : POLICY_EVALUATE_EXIT.rowErrors;
}

export interface PolicyReplayOptions {
  /** Attempt files and directories; with a store and none given, the store's attempts. */
  readonly attempts: readonly string[];
  /** An Evalbook store URL: the verdicts are stored there. */
  readonly store?: string;
  readonly policyBinary: string;
  readonly sha256: string;
  readonly bundle: string;
  readonly policyArg: readonly string[];
  readonly processes: number;
  readonly sessionsPerProcess: number;
  readonly initialState: 'zeroed' | 'unavailable';
  readonly replyTimeoutMs: number;
  readonly json: boolean;
}

export const POLICY_REPLAY_REPORT_V1 = 'paperclip-evals/policy-replay/v1';

/** One replayed call as `policy replay --json` shows it: the Decision parsed, the clock a number. */
export type PolicyReplayCall = Omit<ToolCallComparison, 'decision' | 'nowMs'> & {
  /** The whole Decision as the producer sent it, unfamiliar fields included; null for a row error. */
  readonly decision: unknown;
  readonly nowMs: number;
};

/** `evals policy replay --json` (schemas/evals/policy-replay-v1.schema.json). */
export type PolicyReplayReport = { readonly schema: typeof POLICY_REPLAY_REPORT_V1 } & Omit<
  ReplayAttemptsResult,
  'calls'
> & {
    readonly calls: readonly PolicyReplayCall[];
    /** With --store only. */
    readonly stored?: StoredCounts;
  };

/** Verdicts are written in transactions of at most this many. */
const VERDICTS_PER_BATCH = 1000;
/** Refused and conflicting verdicts are described on stderr up to this many; the rest are counted. */
const MAX_LISTED = 10;

/**
 * An attempt to replay: its tool calls (the bundle itself is not kept, so a large Evalbook is
 * replayed in the memory of its tool calls), and the identity and bundle digest its verdicts are
 * stored under.
 */
interface ReplayInput {
  readonly sessions: readonly ReplaySession<ToolCallRef>[];
  /** How many tool calls its sessions hold. */
  readonly calls: number;
  readonly key: AttemptKey;
  readonly bundleDigest: string;
}

function replayInput(attempt: NativeExecution, bundleDigest: string): ReplayInput {
  const { runId, caseId, configId, attemptId } = attempt.identity;
  const sessions = toolCallSessions([attempt]);
  const calls = sessions.reduce((sum, session) => sum + [...session.events].length, 0);
  return { sessions, calls, key: { runId, caseId, configId, attemptId }, bundleDigest };
}

/** An attempt's identity as one string. */
function identityOf(key: AttemptKey): string {
  return JSON.stringify([key.runId, key.caseId, key.configId, key.attemptId]);
}

/** A compared call with the identity and bundle digest of its attempt. */
type KeyedCall = ToolCallComparison & { readonly key: AttemptKey; readonly bundleDigest: string };

/** What `policy replay --store` stored of the verdicts. */
export interface StoredCounts {
  /** The store as displayLocator shows it (a password masked). */
  readonly url: string;
  inserted: number;
  duplicate: number;
  conflict: number;
  refused: number;
}

export async function runPolicyReplay(options: PolicyReplayOptions): Promise<number> {
  let result: ReplayAttemptsResult;
  let calls: KeyedCall[];
  let stored: StoredCounts | undefined;
  let book: { readonly url: string; readonly store: LedgerStore } | undefined;
  try {
    if (options.attempts.length === 0 && options.store === undefined)
      throw new UsageError(
        'name attempt files or directories, or --store to replay the attempts of an Evalbook',
      );
    const bundle = await readFile(options.bundle, 'utf8');
    if (options.store !== undefined)
      book = { url: displayLocator(options.store), store: await openEvalbook(options.store) };
    const inputs =
      book === undefined || options.attempts.length > 0
        ? await readAttempts(options.attempts)
        : await storedAttempts(book.store);
    ({ result, calls } = await replayInPasses(options, bundle, inputs));
    refuseIfEverythingSkipped(bundle, options.bundle, result);
    if (book !== undefined) stored = await storeVerdicts(book.store, book.url, result.bundleDigest, calls);
  } catch (error) {
    let exitCode: number;
    if (isPolicyError(error)) exitCode = exitCodeForPolicyError(error.code);
    // A contract error, usage error, unreadable file or unusable store (exitCodeFor's usage errors).
    else if (isContractError(error) || exitCodeFor(error) === EXIT.usage) exitCode = POLICY_REPLAY_EXIT.usage;
    else throw error;
    printLines('stderr', errorLines('evals policy replay: ', error));
    // With --json a machine gets the failure too, in the report's shape, and never a verdict.
    if (options.json) printJsonText(failureJson(POLICY_REPLAY_REPORT_V1, exitCode, error));
    return exitCode;
  } finally {
    clearProgress(); // the progress line
    await book?.store.close();
  }
  const shown = calls.map(({ key: _key, bundleDigest: _digest, ...call }): PolicyReplayCall => ({
    ...call,
    // The whole Decision as the producer sent it, unfamiliar fields included.
    decision: call.decision === null ? null : (JSON.parse(call.decision) as unknown),
    nowMs: Number(call.nowMs),
  }));
  if (options.json) {
    const { calls: _calls, ...summary } = result;
    printJson(
      {
        schema: POLICY_REPLAY_REPORT_V1,
        ...summary,
        calls: shown,
        ...(stored === undefined ? {} : { stored }),
      } satisfies PolicyReplayReport,
      0,
    );
  } else {
    const lines = shown.map(
      (call) =>
        `${call.attemptId}  ${call.callId}  ${call.toolName}  policy=${call.verdict ?? `error ${call.errorCode ?? ''}`}  runner=${call.recordedOutcome ?? 'none'}  ${call.agreement}`,
    );
    const disagreements = shown.filter((call) => call.agreement !== 'agree').length;
    lines.push(
      `${shown.length} tool calls · ${shown.length - disagreements} agree · ${disagreements} differ or undecided · ${result.rowErrors} row errors · ${result.unfamiliarVerdicts} unfamiliar verdicts · bundle ${result.bundleDigest}${result.skipped.length > 0 ? ` (${result.skipped.length} ${result.skipped.length === 1 ? 'artifact' : 'artifacts'} skipped)` : ''}`,
    );
    if (stored !== undefined)
      lines.push(
        `stored in ${stored.url}: ${stored.inserted} inserted · ${stored.duplicate} duplicate (skipped) · ${stored.conflict} conflict (kept the stored verdict) · ${stored.refused} refused`,
      );
    printLines('stdout', lines);
    // A skipped artifact decides nothing, so its rule never denies: say which and why, where it is seen.
    printLines(
      'stderr',
      result.skipped.map(
        (item) =>
          `evals policy replay: the producer skipped artifact ${item.id} (${item.kind}): ${item.reason}, so that rule decided nothing`,
      ),
    );
  }
  if (result.unfamiliarVerdicts > 0) {
    const verdicts = [
      ...new Set(
        calls
          .filter((call) => call.agreement === 'policy_verdict_unfamiliar')
          .map((call) => JSON.stringify(call.verdict)),
      ),
    ];
    printLines('stderr', [
      `evals policy replay: ${result.unfamiliarVerdicts} call(s) were decided with a verdict Evals does not know (${verdicts.join(', ')}; it knows allow, deny, ask): each decision is kept whole as received${stored === undefined ? '' : ' and stored'}, reported as policy_verdict_unfamiliar and compared with nothing (exit ${POLICY_REPLAY_EXIT.unfamiliarVerdicts})`,
    ]);
  }
  return result.rowErrors > 0 || result.unfamiliarVerdicts > 0
    ? POLICY_REPLAY_EXIT.rowErrors
    : POLICY_REPLAY_EXIT.ok;
}

/**
 * A bundle whose every artifact the producer skipped decides nothing but its default: that is a
 * bundle to fix, not a replay to report or store (a bundle of no artifacts at all is taken as meant).
 */
function refuseIfEverythingSkipped(
  bundleText: string,
  bundlePath: string,
  result: ReplayAttemptsResult,
): void {
  const artifacts = (JSON.parse(bundleText) as { artifacts?: unknown }).artifacts;
  const count = Array.isArray(artifacts) ? artifacts.length : 0;
  if (count === 0 || result.skipped.length < count) return;
  const reasons = result.skipped.map((item) => `${item.id} (${item.kind}): ${item.reason}`).join('; ');
  throw new UsageError(
    `the producer skipped every artifact of ${bundlePath}, so the policy would decide nothing but its default; nothing is reported or stored. Skipped: ${reasons}`,
  );
}

/**
 * Opens the Evalbook (it must exist) to write verdicts; one that cannot be opened is the coded
 * EvalbookError paperclip_evalbook_store_unusable (exit 2).
 */
async function openEvalbook(url: string): Promise<LedgerStore> {
  const { openStore } = await import('@paperclip-evals/evalbook');
  return openStore(url, { mustExist: true });
}

/** Every attempt of the store, parsed from its stored canonical bundle. */
async function storedAttempts(store: LedgerStore): Promise<ReplayInput[]> {
  const inputs: ReplayInput[] = [];
  for await (const { key, bundleDigest } of store.attempts()) {
    const text = await store.getBundle(bundleDigest);
    if (text === null) throw new UsageError(`the store has no bundle ${bundleDigest} for its attempt`);
    inputs.push({ ...replayInput(parseNativeExecution(text), bundleDigest), key });
  }
  return inputs;
}

/**
 * Replays the attempts in passes where no identity repeats (one pass unless the same attempt is
 * given twice, say as two files): each comparison must map back to one input.
 */
async function replayInPasses(
  options: PolicyReplayOptions,
  bundle: string,
  inputs: readonly ReplayInput[],
): Promise<{
  result: ReplayAttemptsResult;
  calls: KeyedCall[];
}> {
  const passes: Map<string, ReplayInput>[] = [];
  for (const input of inputs) {
    const id = identityOf(input.key);
    let pass = passes.find((candidate) => !candidate.has(id));
    if (pass === undefined) passes.push((pass = new Map<string, ReplayInput>()));
    pass.set(id, input);
  }
  if (passes.length === 0) passes.push(new Map<string, ReplayInput>());
  const results: ReplayAttemptsResult[] = [];
  const calls = [];
  const progress = progressLine(inputs.reduce((sum, input) => sum + input.calls, 0));
  for (const pass of passes) {
    const before = calls.length;
    const replayed = await replayAttempts({
      binaryPath: options.policyBinary,
      binarySha256: options.sha256,
      binaryArgs: options.policyArg,
      bundle,
      sessions: [...pass.values()].flatMap((input) => input.sessions),
      initialState: options.initialState,
      processes: options.processes,
      sessionsPerProcess: options.sessionsPerProcess,
      replyTimeoutMs: options.replyTimeoutMs,
      ...(progress === undefined
        ? {}
        : {
            onProgress: (answered: number) => {
              progress(before + answered);
            },
          }),
    });
    results.push(replayed);
    for (const call of replayed.calls) {
      const input = pass.get(identityOf(call));
      if (input !== undefined) calls.push({ ...call, key: input.key, bundleDigest: input.bundleDigest });
    }
  }
  // Passes is never empty, so neither is results: reduce needs no seed.
  const result = results.reduce((merged, next) => ({
    ...merged,
    rows: merged.rows + next.rows,
    rowErrors: merged.rowErrors + next.rowErrors,
  }));
  return { result, calls };
}

/**
 * On a terminal (stderr), a line counting the calls answered, redrawn at most every 100 ms and at
 * the last; undefined elsewhere, so pipes and files get no control characters.
 */
function progressLine(total: number): ((answered: number) => void) | undefined {
  if (!process.stderr.isTTY) return undefined;
  const started = performance.now();
  let drawn = 0;
  return (answered) => {
    const now = performance.now();
    if (answered < total && now - drawn < 100) return;
    drawn = now;
    drawProgress(progressText('replaying tool calls', answered, total, (now - started) / 1000));
  };
}

/** Stores one verdict per call (in batches) and tells what became of them; refusals and conflicts on stderr. */
async function storeVerdicts(
  store: LedgerStore,
  url: string,
  policyDigest: string,
  calls: readonly KeyedCall[],
): Promise<StoredCounts> {
  const counts: StoredCounts = { url, inserted: 0, duplicate: 0, conflict: 0, refused: 0 };
  const problems = new Set<string>();
  for (let start = 0; start < calls.length; start += VERDICTS_PER_BATCH) {
    const outcomes = await store.insertPolicyVerdicts(
      calls.slice(start, start + VERDICTS_PER_BATCH).map((call) => toPolicyVerdict(call, policyDigest)),
    );
    for (const outcome of outcomes) {
      counts[outcome.status]++;
      const problem = describeOutcome(outcome);
      if (problem !== null) problems.add(problem);
    }
  }
  const listed = [...problems];
  printLines(
    'stderr',
    listed.slice(0, MAX_LISTED).map((problem) => `evals policy replay: ${problem}`),
  );
  if (listed.length > MAX_LISTED)
    printLines('stderr', [
      `evals policy replay: … and ${listed.length - MAX_LISTED} more verdicts not stored`,
    ]);
  return counts;
}

function toPolicyVerdict(call: KeyedCall, policyDigest: string): PolicyVerdictInput {
  const decision: PolicyDecision | null =
    call.verdict === 'allow' || call.verdict === 'deny' || call.verdict === 'ask' ? call.verdict : null;
  return {
    key: call.key,
    bundleDigest: call.bundleDigest,
    callId: call.callId,
    policyDigest,
    toolName: call.toolName,
    decision,
    verdict: call.verdict,
    decisionJson: call.decision,
    ruleId: call.ruleId,
    reason: call.reason,
    errorCode: call.errorCode,
    recordedOutcome: call.recordedOutcome,
    agreement: call.agreement,
  };
}

function describeOutcome(outcome: PolicyVerdictOutcome): string | null {
  const { key, callId } = outcome.verdict;
  const name = `${key.runId}/${key.caseId}/${key.configId}/${key.attemptId} call ${callId}`;
  if (outcome.status === 'refused') return `not stored: ${outcome.reason}`;
  if (outcome.status === 'conflict')
    return `conflict: ${name} already has a different verdict for this policy (${outcome.existing.agreement}, now ${outcome.verdict.agreement}); the stored one is kept`;
  return null;
}

/**
 * The attempts named, read as ingest reads them (files, directories walked sorted for `*.json`,
 * quoted globs, `-` for stdin; symlinks inside directories not followed). Anything unreadable or
 * invalid stops the replay naming its input; the same attempt given twice is replayed once.
 */
async function readAttempts(inputs: readonly string[]): Promise<ReplayInput[]> {
  if (inputs.filter((input) => input === STDIN_INPUT).length > 1)
    throw new UsageError('stdin (-) can be given only once');
  const attempts: ReplayInput[] = [];
  const seen = new Set<string>();
  for await (const input of expandBundleInputs(inputs)) {
    if (input.refused !== undefined) throw new UsageError(`${input.display}: ${input.refused}`);
    let bundle: NativeExecution;
    try {
      ({ bundle } =
        input.path === null
          ? await readNativeExecutionStream(process.stdin)
          : await readNativeExecutionFile(input.path));
    } catch (error) {
      // Named by the input it came from; a contract error keeps its code and issues.
      if (isContractError(error))
        throw new ContractError(error.code, `${input.display}: ${error.message}`, error.issues, {
          cause: error,
        });
      if (isFileSystemError(error))
        throw new UsageError(`${input.display}: ${describeError(error).join(' ')}`);
      throw error;
    }
    const read = replayInput(bundle, canonicalDigest(bundle));
    const identity = `${identityOf(read.key)}${read.bundleDigest}`;
    if (seen.has(identity)) continue;
    seen.add(identity);
    attempts.push(read);
  }
  return attempts;
}
