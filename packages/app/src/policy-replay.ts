// Policy replay into the Evalbook: the workflow behind `evals policy replay`. It reads the attempts
// (files, directories, globs, stdin — or, with a store and none named, the store's own attempts),
// replays their tool calls through a producer verified by path and sha256 (the policy package), and
// with a store appends each call's verdict to the Evalbook under the attempt's identity and the
// policy bundle's digest. It prints nothing: the caller shows the outcome.
import {
  ContractError,
  DEFAULT_MAX_INPUT_BYTES,
  canonicalDigest,
  displayLocator,
  isContractError,
  isSha256Digest,
  parseNativeExecution,
} from '@paperclip-evals/contract';
import {
  STDIN_INPUT,
  expandBundleInputs,
  fileSystemText,
  isFileSystemError,
  readNativeExecutionFile,
  readNativeExecutionStream,
  readRegularFile,
} from '@paperclip-evals/node';
import { replayAttempts, toolCallSessions } from '@paperclip-evals/policy';

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

import { AppError } from './errors.js';

export interface PolicyReplayRequest {
  /** Attempt files, directories, quoted globs or `-` (stdin); with a store and none given, the store's attempts. */
  readonly attempts: readonly string[];
  /** An Evalbook store URL (it must exist): the verdicts are stored there. */
  readonly store?: string;
  readonly policyBinary: string;
  readonly sha256: string;
  /** The policy bundle file (JSON), sent as the header to every producer. */
  readonly bundle: string;
  readonly policyArg: readonly string[];
  readonly processes: number;
  readonly sessionsPerProcess: number;
  readonly initialState: 'zeroed' | 'unavailable';
  readonly replyTimeoutMs: number;
  /** What `-` reads. */
  readonly stdin?: AsyncIterable<Uint8Array>;
  /** Called as calls are answered: how many of how many in all. */
  readonly onProgress?: (answered: number, total: number) => void;
  /** Called when a producer process's handshake arrived (once per process started). */
  readonly onHandshake?: () => void;
}

/** One replayed call as the outcome shows it: the Decision parsed, the clock a number. */
export type PolicyReplayCall = Omit<ToolCallComparison, 'decision' | 'nowMs'> & {
  /** The whole Decision as the producer sent it, unfamiliar fields included; null for a row error. */
  readonly decision: unknown;
  readonly nowMs: number;
};

/** What a replay with a store stored of the verdicts. */
export interface StoredCounts {
  /** The store as displayLocator shows it (a password masked). */
  readonly url: string;
  inserted: number;
  duplicate: number;
  conflict: number;
  refused: number;
}

export interface PolicyReplayOutcome {
  /** The replay's counts (rows, row errors, unfamiliar verdicts, skipped artifacts, the bundle digest). */
  readonly result: Omit<ReplayAttemptsResult, 'calls'>;
  readonly calls: readonly PolicyReplayCall[];
  /** With a store only. */
  readonly stored?: StoredCounts;
  /** Each verdict the store refused, or kept another for (a conflict), described once. */
  readonly notStored: readonly string[];
}

/** Verdicts are written in transactions of at most this many. */
const VERDICTS_PER_BATCH = 1000;

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

/** A compared call with the identity and bundle digest of its attempt. */
type KeyedCall = ToolCallComparison & { readonly key: AttemptKey; readonly bundleDigest: string };

/**
 * The largest policy bundle read (64 MiB, the producer's frame cap: a larger header frame could
 * never be sent). A larger file is refused by its size before it is read.
 */
export const MAX_POLICY_BUNDLE_BYTES = DEFAULT_MAX_INPUT_BYTES;

/** The --bundle file's bytes, or AppError input_too_large (by its size, nothing read) past the cap. */
async function readPolicyBundle(path: string): Promise<Buffer> {
  try {
    return await readRegularFile(path, { maxBytes: MAX_POLICY_BUNDLE_BYTES });
  } catch (error) {
    if (!isContractError(error)) throw error;
    const [issue] = error.issues;
    throw new AppError(
      'paperclip_app_input_invalid',
      `--bundle ${path} is over the ${MAX_POLICY_BUNDLE_BYTES}-byte limit of a policy bundle (the producer's frame cap): give the policy bundle JSON file; nothing was replayed`,
      [
        {
          code: 'input_too_large',
          component: '--bundle',
          message: `the policy bundle is over the ${MAX_POLICY_BUNDLE_BYTES}-byte limit`,
          expected: `at most ${MAX_POLICY_BUNDLE_BYTES} bytes`,
          received: issue?.received ?? 'more',
        },
      ],
      { cause: error },
    );
  }
}

export async function replayPolicy(request: PolicyReplayRequest): Promise<PolicyReplayOutcome> {
  if (request.attempts.length === 0 && request.store === undefined)
    throw new AppError(
      'paperclip_app_request_invalid',
      'name attempt files or directories, or --store to replay the attempts of an Evalbook',
    );
  // Every flag is checked before any I/O: a malformed digest is refused before the bundle is read,
  // the attempts are read or the store is connected to (a host that does not resolve must not hide it).
  if (!isSha256Digest(request.sha256))
    throw new AppError(
      'paperclip_app_request_invalid',
      `--sha256 ${JSON.stringify(request.sha256)} is not a digest: give sha256: followed by 64 lowercase hex digits (evals digest FILE prints it); nothing was read or opened`,
      [
        {
          code: 'digest_invalid',
          component: '--sha256',
          message: 'the expected digest of --policy-binary is not a sha256 digest',
          expected: 'sha256: followed by 64 lowercase hex digits',
          received: request.sha256,
        },
      ],
    );
  const bundle = (await readPolicyBundle(request.bundle)).toString('utf8');
  const store = request.store === undefined ? undefined : await openEvalbook(request.store);
  try {
    const inputs =
      store === undefined || request.attempts.length > 0
        ? await readAttempts(request.attempts, request.stdin)
        : await storedAttempts(store);
    const { result, calls } = await replayInPasses(request, bundle, inputs);
    refuseIfEverythingSkipped(bundle, request.bundle, result);
    const shown = calls.map(({ key: _key, bundleDigest: _digest, ...call }): PolicyReplayCall => ({
      ...call,
      // The whole Decision as the producer sent it, unfamiliar fields included.
      decision: call.decision === null ? null : (JSON.parse(call.decision) as unknown),
      nowMs: Number(call.nowMs),
    }));
    const { calls: _calls, ...summary } = result;
    if (store === undefined || request.store === undefined)
      return { result: summary, calls: shown, notStored: [] };
    const { stored, notStored } = await storeVerdicts(
      store,
      displayLocator(request.store),
      result.bundleDigest,
      calls,
    );
    return { result: summary, calls: shown, stored, notStored };
  } finally {
    await store?.close();
  }
}

/** An attempt's identity as one string. */
function identityOf(key: AttemptKey): string {
  return JSON.stringify([key.runId, key.caseId, key.configId, key.attemptId]);
}

function replayInput(attempt: NativeExecution, bundleDigest: string): ReplayInput {
  const { runId, caseId, configId, attemptId } = attempt.identity;
  const sessions = toolCallSessions([attempt]);
  const calls = sessions.reduce((sum, session) => sum + [...session.events].length, 0);
  return { sessions, calls, key: { runId, caseId, configId, attemptId }, bundleDigest };
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
  throw new AppError(
    'paperclip_app_input_invalid',
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
    if (text === null)
      throw new AppError(
        'paperclip_app_input_invalid',
        `the store has no bundle ${bundleDigest} for its attempt`,
      );
    inputs.push({ ...replayInput(parseNativeExecution(text), bundleDigest), key });
  }
  return inputs;
}

/**
 * Replays the attempts in passes where no identity repeats (one pass unless the same attempt is
 * given twice, say as two files): each comparison must map back to one input.
 */
async function replayInPasses(
  request: PolicyReplayRequest,
  bundle: string,
  inputs: readonly ReplayInput[],
): Promise<{ result: ReplayAttemptsResult; calls: KeyedCall[] }> {
  const passes: Map<string, ReplayInput>[] = [];
  for (const input of inputs) {
    const id = identityOf(input.key);
    let pass = passes.find((candidate) => !candidate.has(id));
    if (pass === undefined) passes.push((pass = new Map<string, ReplayInput>()));
    pass.set(id, input);
  }
  if (passes.length === 0) passes.push(new Map<string, ReplayInput>());
  const results: ReplayAttemptsResult[] = [];
  const calls: KeyedCall[] = [];
  const total = inputs.reduce((sum, input) => sum + input.calls, 0);
  const { onProgress } = request;
  for (const pass of passes) {
    const before = calls.length;
    const replayed = await replayAttempts({
      binaryPath: request.policyBinary,
      binarySha256: request.sha256,
      binaryArgs: request.policyArg,
      bundle,
      sessions: [...pass.values()].flatMap((input) => input.sessions),
      initialState: request.initialState,
      processes: request.processes,
      sessionsPerProcess: request.sessionsPerProcess,
      replyTimeoutMs: request.replyTimeoutMs,
      ...(request.onHandshake === undefined ? {} : { onHandshake: request.onHandshake }),
      ...(onProgress === undefined
        ? {}
        : {
            onProgress: (answered: number) => {
              onProgress(before + answered, total);
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

/** Stores one verdict per call (in batches) and tells what became of them. */
async function storeVerdicts(
  store: LedgerStore,
  url: string,
  policyDigest: string,
  calls: readonly KeyedCall[],
): Promise<{ stored: StoredCounts; notStored: string[] }> {
  const stored: StoredCounts = { url, inserted: 0, duplicate: 0, conflict: 0, refused: 0 };
  const problems = new Set<string>();
  for (let start = 0; start < calls.length; start += VERDICTS_PER_BATCH) {
    const outcomes = await store.insertPolicyVerdicts(
      calls.slice(start, start + VERDICTS_PER_BATCH).map((call) => toPolicyVerdict(call, policyDigest)),
    );
    for (const outcome of outcomes) {
      stored[outcome.status]++;
      const problem = describeOutcome(outcome);
      if (problem !== null) problems.add(problem);
    }
  }
  return { stored, notStored: [...problems] };
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
async function readAttempts(
  inputs: readonly string[],
  stdin: AsyncIterable<Uint8Array> | undefined,
): Promise<ReplayInput[]> {
  if (inputs.filter((input) => input === STDIN_INPUT).length > 1)
    throw new AppError('paperclip_app_request_invalid', 'stdin (-) can be given only once');
  const attempts: ReplayInput[] = [];
  const seen = new Set<string>();
  for await (const input of expandBundleInputs(inputs)) {
    if (input.refused !== undefined)
      throw new AppError('paperclip_app_input_invalid', `${input.display}: ${input.refused}`);
    let bundle: NativeExecution;
    try {
      if (input.path === null) {
        if (stdin === undefined)
          throw new AppError(
            'paperclip_app_request_invalid',
            '- names stdin, and this replay was given none',
          );
        ({ bundle } = await readNativeExecutionStream(stdin));
      } else ({ bundle } = await readNativeExecutionFile(input.path));
    } catch (error) {
      // Named by the input it came from; a contract error keeps its code and issues.
      if (isContractError(error))
        throw new ContractError(error.code, `${input.display}: ${error.message}`, error.issues, {
          cause: error,
        });
      if (isFileSystemError(error))
        throw new AppError('paperclip_app_input_invalid', `${input.display}: ${fileSystemText(error)}`, [], {
          cause: error,
        });
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
