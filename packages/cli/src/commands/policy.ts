// `evals policy evaluate` and `evals policy replay`: flags in, one call, results out. Evaluate is the
// policy package's producer on stdin/stdout (stdout carries protocol frames only). Replay is the
// app's policy-replay workflow (attempts from files or the Evalbook, verdicts stored there with
// --store); this file shows its outcome — a line per call and the counts, or the JSON report.
import { createRequire } from 'node:module';
import { handshake, runEvaluate } from '@paperclip-evals/policy';

import type {
  PolicyReplayCall,
  PolicyReplayOutcome,
  PolicyReplayRequest,
  StoredCounts,
} from '@paperclip-evals/app';

import { progressText } from '../progress.js';
import { clearProgress, drawProgress, isTerminal, printJson, printLines } from '../print.js';
import { POLICY_REPLAY_EXIT, exitCodeForOutcome } from '../exit-codes.js';
import { POLICY_REPLAY_REPORT_V1 } from '../output-schemas.js';

import type { Outcome } from '../exit-codes.js';

export type { PolicyReplayCall, StoredCounts } from '@paperclip-evals/app';

const CLI_VERSION = (createRequire(import.meta.url)('../../package.json') as { version: string }).version;

export interface PolicyEvaluateOptions {
  readonly describe: boolean;
  readonly listen?: string;
}

export async function runPolicyEvaluate(options: PolicyEvaluateOptions): Promise<Outcome> {
  if (options.listen !== undefined) {
    printLines('stderr', [
      `evals policy evaluate: --listen ${options.listen} is reserved and not implemented; no socket is opened (use stdin/stdout)`,
    ]);
    return 'could_not_start';
  }
  if (options.describe) {
    printJson(handshake(CLI_VERSION), 0);
    return 'ok';
  }
  let code: 0 | 1;
  try {
    code = await runEvaluate({
      input: process.stdin,
      output: process.stdout,
      diagnostics: (message) => {
        printLines('stderr', [`evals policy evaluate: ${message}`]);
      },
      clientVersion: CLI_VERSION,
    });
  } catch (error) {
    // The reader closed its end (a consumer that exited or stopped early): no one is left to answer,
    // and it is stdout that failed, not an input. Exit 2, never 0: replies were lost.
    if (!isStdoutWriteFailure(error)) throw error;
    printLines('stderr', [
      `evals policy evaluate: stdout is closed (${error.code ?? 'write failed'}): the reader stopped reading, so the rest of the input is not evaluated and replies may be lost; feed stdin and drain stdout concurrently, and read until the process ends`,
    ]);
    return 'could_not_start';
  }
  return code === 0 ? 'ok' : 'evaluate_row_errors';
}

/** A failed write to stdout (EPIPE: the reader is gone), as the stream reports it. */
function isStdoutWriteFailure(error: unknown): error is NodeJS.ErrnoException {
  return error instanceof Error && (error as NodeJS.ErrnoException).syscall === 'write';
}

/** The replay's request as the flags give it (stdin and progress are this process's), and --json. */
export type PolicyReplayOptions = Omit<PolicyReplayRequest, 'stdin' | 'onProgress' | 'onHandshake'> & {
  readonly json: boolean;
};

/**
 * What a replay that ran to its end came to, by the codes of POLICY_REPLAY_EXIT: a row error, an
 * unfamiliar verdict, then — with --store, as ingest's rule — a verdict the store refused (its
 * attempt not in the ledger, or there with another bundle) or kept another for (a conflict); only
 * inserted verdicts and duplicates are a success.
 */
type PolicyReplayOutcomeName = Extract<Outcome, 'ok' | 'row_errors' | 'unfamiliar_verdicts' | 'rejected'>;

/** The outcome of a replay's result and, with --store, what was stored (see PolicyReplayOutcomeName). */
function policyReplayOutcome(
  result: Pick<PolicyReplayOutcome['result'], 'rowErrors' | 'unfamiliarVerdicts'>,
  stored: Pick<StoredCounts, 'conflict' | 'refused'> | undefined,
): PolicyReplayOutcomeName {
  if (result.rowErrors > 0) return 'row_errors';
  if (result.unfamiliarVerdicts > 0) return 'unfamiliar_verdicts';
  if (stored !== undefined && stored.conflict + stored.refused > 0) return 'rejected';
  return 'ok';
}

/** `evals policy replay --json` (schemas/evals/policy-replay-v1.schema.json). */
export type PolicyReplayReport = {
  readonly schema: typeof POLICY_REPLAY_REPORT_V1;
  /** The exit code the command ends with (exitCodeForOutcome of policyReplayOutcome). */
  readonly exitCode: (typeof POLICY_REPLAY_EXIT)['ok' | 'rowErrors' | 'unfamiliarVerdicts' | 'rejected'];
} & PolicyReplayOutcome['result'] & {
    readonly calls: readonly PolicyReplayCall[];
    /** With --store only. */
    readonly stored?: StoredCounts;
  };

/** Refused and conflicting verdicts are described on stderr up to this many; the rest are counted. */
const MAX_LISTED = 10;

/** Replays (the app's workflow) and shows the outcome; a failure is act()'s to report. */
export async function runPolicyReplay(options: PolicyReplayOptions): Promise<Outcome> {
  const { replayPolicy } = await import('@paperclip-evals/app/policy-replay');
  const progress = progressLine();
  let outcome: PolicyReplayOutcome;
  try {
    const { json: _json, ...request } = options;
    outcome = await replayPolicy({
      ...request,
      stdin: process.stdin,
      ...(progress === undefined ? {} : { onProgress: progress.answered, onHandshake: progress.handshaken }),
    });
  } finally {
    progress?.stop();
    clearProgress(); // the progress line
  }
  const { result, calls, stored, notStored } = outcome;
  const ended = policyReplayOutcome(result, stored);
  printLines(
    'stderr',
    notStored.slice(0, MAX_LISTED).map((problem) => `evals policy replay: ${problem}`),
  );
  if (notStored.length > MAX_LISTED)
    printLines('stderr', [
      `evals policy replay: … and ${notStored.length - MAX_LISTED} more verdicts not stored`,
    ]);
  if (options.json) {
    printJson(
      {
        schema: POLICY_REPLAY_REPORT_V1,
        exitCode: exitCodeForOutcome(ended),
        ...result,
        calls,
        ...(stored === undefined ? {} : { stored }),
      } satisfies PolicyReplayReport,
      0,
    );
  } else {
    const lines = calls.map(
      (call) =>
        `${call.attemptId}  ${call.callId}  ${call.toolName}  policy=${call.verdict ?? `error ${call.errorCode ?? ''}`}  runner=${call.recordedOutcome ?? 'none'}  ${call.agreement}`,
    );
    const disagreements = calls.filter((call) => call.agreement !== 'agree').length;
    lines.push(
      `${calls.length} tool calls · ${calls.length - disagreements} agree · ${disagreements} differ or undecided · ${result.rowErrors} row errors · ${result.unfamiliarVerdicts} unfamiliar verdicts · bundle ${result.bundleDigest}${result.skipped.length > 0 ? ` (${result.skipped.length} ${result.skipped.length === 1 ? 'artifact' : 'artifacts'} skipped)` : ''}`,
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
  if (ended === 'rejected')
    printLines('stderr', [
      `evals policy replay: ${stored?.conflict ?? 0} verdict(s) in conflict with a stored one (the stored one kept) and ${stored?.refused ?? 0} refused by the store (not stored): exit ${POLICY_REPLAY_EXIT.rejected}, as ingest exits for conflicts; ingest the attempts first, or replay with the bundle and producer the stored verdicts came from`,
    ]);
  return ended;
}

/** How long a producer may stay silent before the terminal says it is being waited for. */
export const SILENT_PRODUCER_MS = 3000;

/**
 * On a terminal (stderr), a line counting the calls answered, redrawn at most every 100 ms and at
 * the last — and, while no call is answered yet after SILENT_PRODUCER_MS, one saying what the producer
 * is waited for: its handshake (a binary that never speaks, node reading stdin as a script, would
 * otherwise be silence until the reply timeout) or, once that came, its first reply; undefined
 * elsewhere, so pipes and files get no control characters.
 */
function progressLine():
  | {
      readonly answered: (answered: number, total: number) => void;
      readonly handshaken: () => void;
      readonly stop: () => void;
    }
  | undefined {
  if (!isTerminal('stderr')) return undefined;
  const started = performance.now();
  let drawn = 0;
  let handshake = false;
  let waiting: NodeJS.Timeout | undefined = setInterval(() => {
    const seconds = Math.round((performance.now() - started) / 1000);
    if (seconds * 1000 >= SILENT_PRODUCER_MS)
      drawProgress({
        label: 'policy replay',
        parts: [
          handshake
            ? "waiting for the producer's first reply… (its handshake arrived; no call answered yet)"
            : "waiting for the producer's handshake… (none yet: is it an evaluate producer?)",
          `${seconds}s`,
        ],
      });
  }, 1000);
  waiting.unref();
  const stop = (): void => {
    clearInterval(waiting);
    waiting = undefined;
  };
  return {
    handshaken: () => {
      handshake = true;
    },
    answered: (answered, total) => {
      stop();
      const now = performance.now();
      if (answered < total && now - drawn < 100) return;
      drawn = now;
      drawProgress(progressText('replaying tool calls', answered, total, (now - started) / 1000));
    },
    stop,
  };
}
