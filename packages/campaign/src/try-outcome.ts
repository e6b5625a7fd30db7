// What one try of an attempt came to, from how its eval-session process ended and the artifact it
// left (docs/upstream-runner-facts.md §5): exit 0 with a success artifact is evidence to ingest;
// exit 2 with a failure artifact is the infrastructure failure it states (class, category,
// retryable, upstream's table); anything else — exit 1 (refused before the session), a hang past
// its timeout, a crash, garbage or no artifact — is an infrastructure failure of our own class
// (CAMPAIGN_FAILURE_CLASSES), never a pass and never a behaviour result. The artifact is judged by
// the one reader `evals validate` and `evals ingest` use (node's readAttemptReadFile: contract's
// eval-session parser, the bundle beside it by digest and size, the native parser, their
// agreement): an artifact validate refuses is eval_session_artifact_invalid, with its issue codes.
// The artifact's usage gives the try's cost, provider-reported and estimated kept apart.
import { lstat } from 'node:fs/promises';

import {
  ContractError,
  DEFAULT_MAX_INPUT_BYTES,
  ORCHESTRATION_FAILURE_CLASSES,
  isMissingCellArtifact,
} from '@paperclip-evals/contract';
import { artifactCost } from '@paperclip-evals/evalbook';
import { fileKindOf, notRegularMessage, readAttemptReadFile } from '@paperclip-evals/node';

import type { AnyEvalSessionArtifact, EvalSessionArtifact, Issue } from '@paperclip-evals/contract';
import type { KillableRunResult } from '@paperclip-evals/node';

export const EVAL_SESSION_ARTIFACT_V1 = 'paperclip-runner/eval-session-artifact/v1';
/**
 * The largest artifact (and bundle beside it) read: `evals validate`'s and ingest's default limit,
 * so a try's artifact gets the verdict validate gives that file.
 */
export const MAX_ARTIFACT_BYTES = DEFAULT_MAX_INPUT_BYTES;

/** The eval-session bin's exit codes (upstream's). */
export const EVAL_SESSION_EXIT = { ok: 0, refused: 1, infrastructureFailure: 2 } as const;

export interface InfrastructureFailure {
  readonly class: string;
  readonly category: string;
  readonly retryable: boolean;
  /** One line: what happened (the artifact's infrastructureError, or ours). */
  readonly message: string;
}

/**
 * Ours, for what the eval-session never reported itself (upstream's own classes come from the
 * artifact; `ci_cell_artifact_missing` is upstream's name for a matrix cell that left nothing).
 * The one table is contract's (an artifact the campaign synthesizes states these classes).
 */
export const CAMPAIGN_FAILURE_CLASSES = ORCHESTRATION_FAILURE_CLASSES;
export type CampaignFailureClass = keyof typeof CAMPAIGN_FAILURE_CLASSES;

export function campaignFailure(failureClass: CampaignFailureClass, message: string): InfrastructureFailure {
  return { class: failureClass, ...CAMPAIGN_FAILURE_CLASSES[failureClass], message };
}

/**
 * Ours: a try the campaign stopped itself (`evals run` interrupted: the second Ctrl-C, SIGTERM). Upstream
 * has no class for it — its `interrupted` / `cancelled` are a provider turn's statuses (a behaviour
 * result, scored; `provider_turn_interrupted`), `stoppedByUser` a live turn's — and no orchestrator's
 * failure class among its own (docs/campaigns.md). Such a try is no result and no failure: no artifact
 * and no attempt of it is written — only its start and the campaign's word that it killed it (the
 * ledger's try starts: its spend is unknown, for good) — so a rerun runs the attempt again under the
 * next try id and it consumes no retry; the attempt is `not_run_stopped`. Never an artifact's class:
 * not in contract's table, so an artifact stating it is refused.
 */
export const INTERRUPTED_TRY = {
  class: 'eval_session_interrupted',
  category: 'campaign_orchestration',
  retryable: true,
} as const;

/** The signals an interrupt sends (a Ctrl-C, a service manager's stop, a closed terminal). */
const INTERRUPT_SIGNALS: ReadonlySet<string> = new Set(['SIGINT', 'SIGTERM', 'SIGHUP']);

/**
 * Whether a try ended because the campaign was interrupted, and how (null: it ended on its own, or by
 * the timeout we enforce — each read as what it is). `stopping`: the campaign has received an
 * interrupt (the first Ctrl-C or more). A timeout decided first stays the timeout; a session that
 * exited with a code before our kill reached it is read as it exited; a session that died of an
 * interrupt's signal while the campaign was being interrupted got the same signal (a process-group or
 * service-wide one), never a crash.
 */
export function interruptionOf(
  result: Pick<KillableRunResult, 'timedOut' | 'killed' | 'exitCode' | 'signal' | 'spawnError'>,
  stopping: boolean,
): string | null {
  if (result.spawnError !== null || result.timedOut || result.exitCode !== null) return null;
  if (result.killed) return 'killed: the campaign was interrupted (its process group was killed)';
  if (stopping && result.signal !== null && INTERRUPT_SIGNALS.has(result.signal))
    return `ended by ${result.signal} while the campaign was being interrupted (the interrupt reached it too)`;
  return null;
}

export function interruptedTry(message: string): InfrastructureFailure {
  return { ...INTERRUPTED_TRY, message };
}

/** A try's cost as its artifact reports it (nanodollars; null = not known). Never added together. */
export interface TryCost {
  readonly providerReportedNanodollars: number | null;
  readonly estimatedNanodollars: number | null;
  readonly legacyLedgerNanodollars: number | null;
  /** What the budget counts: provider-reported where present, else the estimate, else null (unknown). */
  readonly observedNanodollars: number | null;
  readonly observedFrom: 'provider_reported' | 'estimated' | null;
}

export const UNKNOWN_COST: TryCost = {
  providerReportedNanodollars: null,
  estimatedNanodollars: null,
  legacyLedgerNanodollars: null,
  observedNanodollars: null,
  observedFrom: null,
};

/** The native bundle a valid artifact references (relative to the artifact's folder) and whose attempt it is. */
export interface NativeEvidence {
  readonly path: string;
  readonly sha256: string;
  /** The bundle's identity: the ledger key it is stored under. */
  readonly key: {
    readonly runId: string;
    readonly caseId: string;
    readonly configId: string;
    readonly attemptId: string;
  };
}

export type TryReading =
  | {
      readonly kind: 'evidence';
      readonly nativeExecution: NativeEvidence | null;
      /** The session's artifact, valid by the contract parser. */
      readonly artifact: EvalSessionArtifact;
      readonly cost: TryCost;
    }
  | {
      readonly kind: 'infrastructure';
      readonly failure: InfrastructureFailure;
      readonly nativeExecution: NativeEvidence | null;
      /** The session's own artifact, when it left a valid one (its usage is kept when recorded). */
      readonly artifact?: EvalSessionArtifact;
      readonly cost: TryCost;
    };

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The artifact's usage as a TryCost: the ledger's own reading (evalbook's artifactCost — a provider
 * figure by its provenance, so upstream's usage-ledger sum labelled `legacy_runner_usage_ledger` is
 * the legacy amount and never what the budget counts); absent usage, or figures the ledger refuses
 * as inconsistent, are unknown, never zero.
 */
export function costOfUsage(usage: EvalSessionArtifact['usage']): TryCost {
  if (usage === undefined) return UNKNOWN_COST;
  let cost;
  try {
    cost = artifactCost(usage);
  } catch {
    return UNKNOWN_COST;
  }
  return tryCostOf(cost);
}

/** The ledger's cost figures of an attempt (an artifact's reading or a held attempt's record) as a TryCost. */
export function tryCostOf(cost: {
  readonly providerReportedNanodollars: number | null;
  readonly estimatedNanodollars: number | null;
  readonly legacyLedgerNanodollars: number | null;
  readonly effectiveNanodollars: number | null;
}): TryCost {
  return {
    providerReportedNanodollars: cost.providerReportedNanodollars,
    estimatedNanodollars: cost.estimatedNanodollars,
    legacyLedgerNanodollars: cost.legacyLedgerNanodollars,
    observedNanodollars: cost.effectiveNanodollars,
    observedFrom:
      cost.providerReportedNanodollars !== null
        ? 'provider_reported'
        : cost.estimatedNanodollars !== null
          ? 'estimated'
          : null,
  };
}

/** Issues as one line: each code at its path (what `evals validate` lists for the file). */
function issueText(issues: readonly Issue[]): string {
  return issues
    .map((entry) => `${entry.code} at ${entry.path === '' ? '(root)' : (entry.path ?? '?')}`)
    .join(', ');
}

/**
 * The try's artifact as `evals validate` reads that file (and no other check but the campaign's
 * own: the request's attempt id). Not a regular file (a link included), absent, or refused by the
 * reader: the try's failure instead.
 */
async function readArtifact(
  path: string,
  attemptId: string,
): Promise<
  | { ok: true; artifact: EvalSessionArtifact; nativeExecution: NativeEvidence | null }
  | { ok: false; failure: InfrastructureFailure }
> {
  const stat = await lstat(path).catch(() => null);
  if (stat === null)
    return { ok: false, failure: campaignFailure('eval_session_artifact_missing', `no artifact at ${path}`) };
  const invalid = (message: string) =>
    ({ ok: false, failure: campaignFailure('eval_session_artifact_invalid', message) }) as const;
  if (!stat.isFile()) return invalid(notRegularMessage('the artifact', fileKindOf(stat)));
  let read;
  try {
    read = await readAttemptReadFile(path, { maxBytes: MAX_ARTIFACT_BYTES });
  } catch (error) {
    if (error instanceof ContractError)
      return invalid(`evals validate refuses the artifact (${error.code}): ${issueText(error.issues)}`);
    return invalid(`the artifact cannot be read: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (read.evalSession === undefined)
    return invalid(
      'the output is a native-execution bundle, not a paperclip-runner/eval-session-artifact/v1',
    );
  const { artifact } = read.evalSession;
  // Upstream's artifact for a missing matrix cell is an orchestrator's, never a session's output.
  if (isMissingCellArtifact(artifact))
    return invalid(
      `the session wrote an artifact of class ${artifact.infrastructureFailure.class} (upstream's aggregate writes it for a matrix cell, no session does)`,
    );
  if (artifact.attemptId !== attemptId)
    return invalid(`attemptId ${JSON.stringify(artifact.attemptId)} is not the request's ${attemptId}`);
  const reference = artifact.nativeExecution;
  return {
    ok: true,
    artifact,
    nativeExecution:
      reference === undefined || read.bundle === null
        ? null
        : {
            path: reference.path,
            sha256: reference.sha256,
            key: {
              runId: read.bundle.identity.runId,
              caseId: read.bundle.identity.caseId,
              configId: read.bundle.identity.configId,
              attemptId: read.bundle.identity.attemptId,
            },
          },
  };
}

/** Reads one try: never rejects for what the eval-session did (only for Evals' own I/O failures). */
export async function readTry(
  result: KillableRunResult,
  artifactPath: string,
  attemptId: string,
  timeoutMs: number,
): Promise<TryReading> {
  const infrastructure = (failure: InfrastructureFailure, cost: TryCost = UNKNOWN_COST): TryReading => ({
    kind: 'infrastructure',
    failure,
    nativeExecution: null,
    cost,
  });
  if (result.spawnError !== null)
    return infrastructure(campaignFailure('eval_session_not_started', result.spawnError));
  if (result.timedOut)
    return infrastructure(
      campaignFailure(
        'eval_session_timeout',
        `the eval-session did not end within ${timeoutMs} ms (its process group was killed)`,
      ),
    );
  if (result.signal !== null)
    return infrastructure(
      campaignFailure(
        'eval_session_crashed',
        `the eval-session died of ${result.signal} (not sent by the campaign: no timeout, no interrupt)`,
      ),
    );
  const tail = result.stderrTail.trim().split('\n').slice(-1)[0] ?? '';
  if (result.exitCode === EVAL_SESSION_EXIT.refused)
    return infrastructure(
      campaignFailure(
        'eval_session_refused',
        `the eval-session exited 1 before any session${tail === '' ? '' : `: ${tail}`}`,
      ),
    );
  if (result.exitCode !== EVAL_SESSION_EXIT.ok && result.exitCode !== EVAL_SESSION_EXIT.infrastructureFailure)
    return infrastructure(
      campaignFailure(
        'eval_session_exit_unknown',
        `the eval-session exited ${String(result.exitCode)} (the contract has 0, 1, 2)`,
      ),
    );
  const read = await readArtifact(artifactPath, attemptId);
  if (!read.ok) return infrastructure(read.failure);
  const { artifact, nativeExecution } = read;
  const cost = spendOf(artifact);
  // The parser vouches for the shape (success, accounting failure of a completed turn, or
  // infrastructure failure, each failure of the class table); the exit code must say the same.
  const stated = artifact.infrastructureFailure ?? artifact.accountingFailure;
  if (result.exitCode === EVAL_SESSION_EXIT.ok) {
    if (stated !== undefined)
      return infrastructure(
        campaignFailure(
          'eval_session_artifact_invalid',
          'exit 0, but the artifact is not the success shape (a turn, no infrastructureFailure or accountingFailure)',
        ),
        cost,
      );
    return { kind: 'evidence', nativeExecution, artifact, cost };
  }
  if (stated === undefined)
    return infrastructure(
      campaignFailure(
        'eval_session_artifact_invalid',
        'exit 2, but the artifact states no infrastructureFailure or accountingFailure {class, category, retryable}',
      ),
      cost,
    );
  // Upstream's newer variant, an accounting failure (a completed turn whose budget check failed or
  // whose cost coverage is unknown), is not evidence of the agent: an infrastructure failure of that
  // class, as ingest stores it.
  const message = artifact.infrastructureError ?? artifact.accountingError ?? stated.class;
  return {
    kind: 'infrastructure',
    failure: { class: stated.class, category: stated.category, retryable: stated.retryable, message },
    nativeExecution,
    artifact,
    cost,
  };
}

/**
 * The try's spend from its artifact (a missing cell's: unknown): its usage figures, except that an artifact saying its cost
 * coverage is unknown (an accountingFailure or infrastructureFailure of class
 * provider_budget_coverage_unknown, or usage.costCoverage `unpriced`) has an unknown spend whatever
 * figures it carries — the budget then cannot be proven (scheduling stops unless --allow-unpriced).
 */
export function spendOf(artifact: AnyEvalSessionArtifact): TryCost {
  // Upstream's missing-cell artifact states no usage (`{}`): no session ran, its cost is unknown.
  if (isMissingCellArtifact(artifact)) return UNKNOWN_COST;
  const cost = costOfUsage(artifact.usage);
  const coverageUnknown = [artifact.accountingFailure, artifact.infrastructureFailure].some(
    (failure) => isObject(failure) && failure.class === 'provider_budget_coverage_unknown',
  );
  const unpriced = isObject(artifact.usage) && artifact.usage.costCoverage === 'unpriced';
  return coverageUnknown || unpriced ? { ...cost, observedNanodollars: null, observedFrom: null } : cost;
}
