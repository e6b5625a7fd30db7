// The attempt replay MODEL: one stored attempt, as the ledger holds it, turned into a plain JSON-able
// `AttemptReplay` that every replay page renders (html/attempt-page.ts: the report's drill-down and
// the published site's attempt pages alike). Pure: no I/O, no clock.
//
//   buildAttemptReplay({ attempt, bundleText, verdict, environment? }): AttemptReplay
//     attempt      a StoredAttempt (store.attempts() / store.getAttempt(key))
//     bundleText   store.getBundle(attempt.bundleDigest): the bundle's canonical JSON (null: the ledger
//                  has none); read back by storedBundle (below): JSON.parse when its sha256 is the
//                  attempt's bundleDigest, else the contract's full parser
//     verdict      the attempt's honest status (analysis/scoring attemptVerdict(record, scores))
//     environment  supplies the case's description and prompt and the config's model, driver and
//                  description (optional: without it they are null)
//     case         the case's prompt and description from elsewhere, winning over the environment's
//                  (a published site: the campaign record's caseDefinitions, as the ledger holds it)
//     retraction   the retraction that covers the attempt, if any (the page says so: reports leave
//                  it out)
//
//   loadAttemptReplay({ store, attemptId, runId?, environment? }): Promise<AttemptReplay>
//     finds the one attempt by id (and run) in a store, through its attempt-id index
//     (attemptsById), and builds its replay, as `evals report
//     --attempt` does; none, or more than one, is a paperclip_evalbook_scope_unknown EvalbookError.
//
// The replay holds the case's prompt, the events in order grouped into turns (the agent's progress and
// message text; each semantic tool call once, at its input event, with its input and result envelopes,
// outcome, code and authorization boundary, and its denial), the terminal state and the proposed
// result, every check with its verdict, usage, cost with provenance (unknown stays null: "unpriced"),
// timing, the artifacts and their verification, and an eval-session artifact's own fields. Without
// events to replay (an eval-session artifact ingested alone, a bundle whose transcript was not
// recorded, a ledger without the bundle's text) `recording` is 'missing' and `recordingReason` says why.
import {
  NATIVE_EXECUTION_V1,
  isContractError,
  parseNativeExecution,
  sha256Digest,
} from '@paperclip-evals/contract';

import { EvalbookError } from '../errors.js';
import { NO_NATIVE_EVIDENCE, attemptArtifactVerification, environmentMismatch } from '../ledger/convert.js';
import { caseOf, configOf } from '../ledger/environment.js';
import { RetractionIndex } from '../ledger/retraction.js';
import { attemptVerdict, withExpectedChecks } from '../analysis/scoring.js';

import { instantMs } from '@paperclip-evals/contract';
import type { NativeExecution, PrpEvent, ToolOutcome } from '@paperclip-evals/contract';
import type { AttemptVerdict } from '../analysis/scoring.js';
import type { AttemptKey, ReferenceRecord, ReferenceVerification, ScoreRow } from '../ledger/convert.js';
import type { AttemptCost } from '../ledger/cost.js';
import type { Environment } from '../ledger/environment.js';
import type { Retraction } from '../ledger/retraction.js';
import type { LedgerStore, StoredAttempt } from '../ledger/store.js';

export const ATTEMPT_REPLAY_V1 = 'paperclip-evals/attempt-replay/v1';

/**
 * complete: the bundle's transcript is complete and its events are replayed · incomplete: the events
 * the bundle holds are replayed, but its transcript says some are missing (recordingReason: its
 * omission reason) · missing: nothing to replay (recordingReason says why).
 */
export type RecordingState = 'complete' | 'incomplete' | 'missing';

/** Outcomes a replay marks on its tool call (everything but `succeeded`). */
export type ToolMark = Exclude<ToolOutcome, 'succeeded'>;

/** A semantic tool call: its input, its result (null: none recorded), and what decided it. */
export interface ReplayToolCall {
  readonly kind: 'tool_call';
  readonly callId: string;
  readonly operationId: string;
  /** The input event's sourceEventId and emittedAt. */
  readonly eventId: string;
  readonly at: string | null;
  /** The input's semantic_tool envelope (content digest, references, targets…), as recorded. */
  readonly input: unknown;
  readonly result: {
    readonly eventId: string;
    readonly at: string | null;
    /** The result's semantic_tool envelope, as recorded. */
    readonly envelope: unknown;
  } | null;
  /** null: no result recorded (the call never answered). */
  readonly outcome: ToolOutcome | null;
  /** The result envelope's outcome code (`completed`, `required_claim_missing`, …). */
  readonly code: string | null;
  readonly authorizationBoundary: string | null;
  readonly retryable: boolean | null;
  /** Set for every outcome but succeeded (denied, conflict, failed, unavailable, duplicate). */
  readonly mark: ToolMark | null;
  /** The semantic index's denial receipt of a denied call. */
  readonly denial: {
    readonly code: string;
    readonly authorizationBoundary: string;
    readonly retryable: boolean;
  } | null;
  /** From input to result, by the events' emittedAt; null without a result. */
  readonly durationMs: number | null;
}

/** Any other event: its type, time, text (the agent's progress or message, or a reason) and payload. */
export interface ReplayEvent {
  readonly kind: 'event';
  readonly eventId: string;
  readonly eventType: string;
  readonly at: string | null;
  /** The payload's presentation channel (progress, final, summary, detail, unknown), when stated. */
  readonly channel: string | null;
  /** The payload's text (`text`, else `message`, else `reason`), when it has one. */
  readonly text: string | null;
  readonly payload: unknown;
}

export type ReplayEntry = ReplayToolCall | ReplayEvent;

/** Consecutive events of one turnId (null: events outside any turn), in the bundle's order. */
export interface ReplayTurn {
  readonly turnId: string | null;
  readonly entries: readonly ReplayEntry[];
}

/** One attempt's replay: every field plain JSON. */
export interface AttemptReplay {
  readonly schema: typeof ATTEMPT_REPLAY_V1;
  readonly key: AttemptKey;
  readonly bundleDigest: string;
  readonly provenance: string;
  readonly runner: { readonly package: string; readonly driver: string; readonly binarySha256: string };
  /** The attempt's honest status and why it is not solved. */
  readonly verdict: AttemptVerdict;
  /**
   * How the attempt is not of the environment's suite (foreign): as ingest recorded it, else as the
   * environment given to the replay finds it now (from the bundle's case and config digests); empty
   * when it is of the suite, or nothing checked it (environmentChecked says which).
   */
  readonly environmentMismatch: StoredAttempt['record']['environmentMismatch'];
  /**
   * Whether an environment was checked against: the one given to the replay (with the bundle's
   * digests to check), or at ingest when it recorded a mismatch. False: nothing here says the
   * attempt is of a suite (a site's page, built from the ledger alone, has no environment).
   */
  readonly environmentChecked: boolean;
  /** The bundle's events: how many it carries, and how many of them are terminal (shown apart); null without a bundle. */
  readonly events: { readonly inBundle: number; readonly terminal: number } | null;
  /** Who retracted the attempt (or its run), when and why; null when it counts. */
  readonly retraction: Retraction | null;
  readonly case: ReplayCase;
  readonly config: {
    readonly model: string | null;
    readonly driver: string | null;
    readonly description: string | null;
  };
  readonly recording: RecordingState;
  /** Why the recording is missing or incomplete; null when complete. */
  readonly recordingReason: string | null;
  readonly transcript: StoredAttempt['record']['transcript'];
  readonly turns: readonly ReplayTurn[];
  /** How many tool calls, and how many of them were not succeeded (denied, failed, …). */
  readonly toolCalls: number;
  readonly markedToolCalls: number;
  readonly terminal: StoredAttempt['record']['terminal'];
  readonly failure: StoredAttempt['record']['failure'];
  /** The last run.result.proposed payload (summary, disposition, completion claim…), or null. */
  readonly proposedResult: {
    readonly summary: string | null;
    readonly reportedWorkDisposition: string | null;
    readonly objectiveSatisfied: boolean | null;
    readonly payload: unknown;
  } | null;
  readonly checks: readonly Pick<ScoreRow, 'checkId' | 'layer' | 'status' | 'score' | 'reason'>[];
  readonly usage: StoredAttempt['record']['usage'];
  readonly cost: AttemptCost;
  readonly timing: {
    /** The first and last event's emittedAt (an eval-session artifact's startedAt / finishedAt). */
    readonly startedAt: string | null;
    readonly endedAt: string | null;
    /** The runner's stated duration (usage.durationMs; an artifact's timing.durationMs). */
    readonly durationMs: number;
  };
  readonly artifacts: {
    /** As the report counts it: mismatched if any, verified if every one, else unverified. */
    readonly verification: ReferenceVerification;
    readonly references: readonly ReferenceRecord[];
  };
  /** The eval-session artifact the attempt came through; null for a bare bundle. */
  readonly evalSession: {
    readonly artifactSha256: string;
    readonly provider: string;
    readonly driver: string;
    readonly providerVersion: string | null;
    readonly requestedModel: string;
    /** null: no session ran (upstream's artifact for a missing campaign cell). */
    readonly runnerdSha256: string | null;
    readonly providerSessionId: string | null;
    readonly turn: {
      readonly turnId: string;
      readonly status: string;
      readonly assistantText: string;
    } | null;
    readonly infrastructureFailure: {
      readonly class: string;
      readonly category: string;
      readonly retryable: boolean;
    } | null;
    /** The artifact's infrastructureError or accountingError text. */
    readonly errorMessage: string | null;
    /** The artifact's usage (its accounting), as recorded; null when it omitted usage. */
    readonly accounting: Readonly<Record<string, unknown>> | null;
    /** null: no session ran (a missing cell's artifact states only when it was written). */
    readonly timing: {
      readonly startedAt: string;
      readonly finishedAt: string;
      readonly durationMs: number;
    } | null;
  } | null;
}

/** A case as a replay shows it; without a prompt, why there is none. */
export interface ReplayCase {
  readonly description: string | null;
  readonly prompt: string | null;
  /** Why `prompt` is null — where it would come from and how to see it; null when there is a prompt. */
  readonly promptMissing: string | null;
}

export interface AttemptReplayInput {
  readonly attempt: StoredAttempt;
  /** The ledger's canonical text for attempt.bundleDigest (store.getBundle), or null. */
  readonly bundleText: string | null;
  readonly verdict: AttemptVerdict;
  readonly environment?: Environment;
  /** The case from elsewhere than the environment (a campaign record's caseDefinitions): wins over it. */
  readonly case?: ReplayCase;
  readonly retraction?: Retraction | null;
}

/** Event types that carry the terminal state and the proposed result (shown apart, not as turns). */
const TERMINAL_EVENTS = new Set(['run.terminal', 'run.result.proposed']);
const TEXT_FIELDS = ['text', 'message', 'reason'] as const;

const record = (value: unknown): Readonly<Record<string, unknown>> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
const stringOr = (value: unknown): string | null => (typeof value === 'string' ? value : null);
const booleanOr = (value: unknown): boolean | null => (typeof value === 'boolean' ? value : null);
const msBetween = (from: string | null, to: string | null): number | null =>
  from === null || to === null ? null : instantMs(to) - instantMs(from);

/** The replay of one stored attempt (see the top of this file). */
export function buildAttemptReplay(input: AttemptReplayInput): AttemptReplay {
  const { attempt, environment } = input;
  const stored = attempt.record;
  const envConfig = configOf(environment, attempt.key.configId);
  const session = stored.evalSession;
  const artifact = session?.artifact;
  const recorded = recordedEvents(input);
  const timing =
    recorded.bundle === null
      ? {
          startedAt: artifact?.timing?.startedAt ?? stored.startedAt ?? null,
          endedAt: artifact?.timing?.finishedAt ?? null,
          durationMs: stored.usage.durationMs,
        }
      : {
          startedAt: recorded.bundle.events[0]?.emittedAt ?? null,
          endedAt: recorded.bundle.events.at(-1)?.emittedAt ?? null,
          durationMs: stored.usage.durationMs,
        };
  const turns = recorded.bundle === null ? [] : replayTurns(recorded.bundle);
  const calls = turns.flatMap((turn) => turn.entries).filter((entry) => entry.kind === 'tool_call');
  return {
    schema: ATTEMPT_REPLAY_V1,
    key: attempt.key,
    bundleDigest: attempt.bundleDigest,
    provenance: stored.provenance,
    runner: {
      package: `${stored.runner.packageName}@${stored.runner.packageVersion}`,
      driver: `${stored.runner.driverKind}@${stored.runner.driverVersion}`,
      binarySha256: stored.runner.binarySha256,
    },
    verdict: input.verdict,
    ...environmentFindings(stored.environmentMismatch, environment, attempt.key, recorded.bundle),
    events:
      recorded.bundle === null
        ? null
        : {
            inBundle: recorded.bundle.events.length,
            terminal: recorded.bundle.events.filter((event) => TERMINAL_EVENTS.has(event.eventType)).length,
          },
    retraction: input.retraction ?? null,
    case: input.case ?? environmentCase(environment, attempt.key.caseId),
    config: {
      model: envConfig?.model ?? null,
      driver: envConfig?.driver ?? null,
      description: envConfig?.description ?? null,
    },
    recording: recorded.state,
    recordingReason: recorded.reason,
    transcript: stored.transcript,
    turns,
    toolCalls: calls.length,
    markedToolCalls: calls.filter((call) => call.mark !== null).length,
    terminal: stored.terminal,
    failure: stored.failure,
    proposedResult: recorded.bundle === null ? null : proposedResult(recorded.bundle),
    checks: attempt.scores.map(({ checkId, layer, status, score, reason }) => ({
      checkId,
      layer,
      status,
      score,
      reason,
    })),
    usage: stored.usage,
    cost: stored.cost,
    timing,
    artifacts: {
      verification: attemptArtifactVerification(stored.references.map((ref) => ref.verification)),
      references: stored.references,
    },
    evalSession:
      session === undefined || artifact === undefined
        ? null
        : {
            artifactSha256: session.artifactSha256,
            provider: session.provider,
            driver: session.driver,
            providerVersion: session.providerVersion,
            requestedModel: session.requestedModel,
            runnerdSha256: session.runnerdSha256,
            providerSessionId: artifact.providerSessionId ?? null,
            turn:
              artifact.turn === undefined || !('turnId' in artifact.turn)
                ? null
                : {
                    turnId: artifact.turn.turnId,
                    status: artifact.turn.status,
                    assistantText: artifact.turn.assistantText,
                  },
            infrastructureFailure: session.infrastructureFailure,
            errorMessage: artifact.infrastructureError ?? artifact.accountingError ?? null,
            accounting: artifact.usage ?? null,
            timing: artifact.timing ?? null,
          },
  };
}

/** The case's prompt and description as the environment gives them (or why there is no prompt). */
function environmentCase(environment: Environment | undefined, caseId: string): ReplayCase {
  const envCase = caseOf(environment, caseId);
  const description = envCase?.description ?? null;
  const prompt = envCase?.prompt ?? null;
  const promptMissing =
    prompt !== null
      ? null
      : environment === undefined
        ? "the ledger does not record a case's prompt: with --env, `evals report --attempt ID --env FILE` shows the environment's"
        : envCase === undefined
          ? `the environment has no case ${JSON.stringify(caseId)}`
          : `the environment's case ${JSON.stringify(caseId)} has no prompt`;
  return { description, prompt, promptMissing };
}

/** What the replay says of the attempt's suite (AttemptReplay's environmentMismatch and environmentChecked). */
function environmentFindings(
  recorded: StoredAttempt['record']['environmentMismatch'],
  environment: Environment | undefined,
  key: AttemptKey,
  bundle: NativeExecution | null,
): Pick<AttemptReplay, 'environmentMismatch' | 'environmentChecked'> {
  if (recorded.length > 0) return { environmentMismatch: recorded, environmentChecked: true };
  if (environment === undefined || bundle === null)
    return { environmentMismatch: [], environmentChecked: false };
  return {
    environmentMismatch: environmentMismatch(environment, {
      caseId: key.caseId,
      configId: key.configId,
      caseSha256: bundle.input.caseSha256,
      configSha256: bundle.input.configSha256,
    }),
    environmentChecked: true,
  };
}

/** The bundle to replay, or why there is none; and whether its transcript is complete. */
function recordedEvents(input: AttemptReplayInput): {
  readonly bundle: NativeExecution | null;
  readonly state: RecordingState;
  readonly reason: string | null;
} {
  const { transcript } = input.attempt.record;
  const missing = (reason: string) => ({ bundle: null, state: 'missing' as const, reason });
  // An eval-session artifact ingested alone: its ledger text is the artifact, there are no events.
  if (input.attempt.record.evalSession !== undefined && transcript.omissionReason === NO_NATIVE_EVIDENCE)
    return missing(
      'the attempt came as an eval-session artifact without its native-execution bundle: no events were recorded',
    );
  if (input.bundleText === null)
    return missing(`the ledger holds no bundle text for ${input.attempt.bundleDigest}`);
  let bundle: NativeExecution;
  try {
    bundle = storedBundle(input.bundleText, input.attempt.bundleDigest);
  } catch (error) {
    if (!isContractError(error)) throw error;
    const codes = [...new Set(error.issues.map((issue) => issue.code))].join(', ');
    return missing(`the ledger's bundle text for ${input.attempt.bundleDigest} does not parse (${codes})`);
  }
  const replayable = bundle.events.some((event) => !TERMINAL_EVENTS.has(event.eventType));
  if (!transcript.complete && (transcript.eventCount === 0 || !replayable))
    return {
      bundle,
      state: 'missing',
      reason: `transcript not recorded: ${transcript.omissionReason ?? 'no reason given'}`,
    };
  if (!transcript.complete)
    return {
      bundle,
      state: 'incomplete',
      reason: `the runner's transcript holds ${transcript.eventCount} of the run's events (${transcript.omissionReason ?? 'no reason given'}); below, the ${bundle.events.length} events the bundle carries`,
    };
  return { bundle, state: 'complete', reason: null };
}

/**
 * The ledger's bundle text as a bundle. Ingest stores a bundle's text only once the contract's
 * fail-closed parser accepted it (convert.ts converts a parsed bundle; the text stored is its
 * canonical JSON and the attempt's bundleDigest is that text's sha256), and the ledger is
 * append-only. So when the text's sha256 is the attempt's bundleDigest, it is the very text the
 * parser accepted: JSON.parse of it is that bundle, and parsing it again would check nothing new
 * (it was half the time of `evals publish`, issue 19). A text that does not hash to its digest (a
 * store edited by hand, a test's in-memory store) or that is not a native-execution bundle (an
 * eval-session artifact's text) goes through the full parser as before: fail closed.
 */
function storedBundle(text: string, digest: string): NativeExecution {
  if (sha256Digest(text) === digest) {
    const value = JSON.parse(text) as { readonly schema?: unknown };
    if (value.schema === NATIVE_EXECUTION_V1) return value as NativeExecution;
  }
  return parseNativeExecution(text);
}

/** The bundle's events in order, grouped into runs of one turnId; each tool call once, at its input. */
function replayTurns(bundle: NativeExecution): ReplayTurn[] {
  const tools = bundle.semanticTools;
  const byEvent = new Map(bundle.events.map((event) => [event.sourceEventId, event]));
  const callAt = new Map(tools.calls.map((call) => [call.eventId, call]));
  const resultOf = new Map(tools.results.map((result) => [result.callId, result]));
  const resultEvents = new Set(tools.results.map((result) => result.eventId));
  const denialOf = new Map(tools.denials.map((denial) => [denial.callId, denial]));
  const placed = new Set<string>();

  const toolCall = (call: (typeof tools.calls)[number]): ReplayToolCall => {
    placed.add(call.callId);
    const inputEvent = byEvent.get(call.eventId);
    const result = resultOf.get(call.callId);
    const resultEvent = result === undefined ? undefined : byEvent.get(result.eventId);
    const envelope = record(record(resultEvent?.payload).semantic_tool);
    const denial = denialOf.get(call.callId);
    const outcome = result?.outcome ?? null;
    const at = inputEvent?.emittedAt ?? null;
    const resultAt = resultEvent?.emittedAt ?? null;
    return {
      kind: 'tool_call',
      callId: call.callId,
      operationId: call.operationId,
      eventId: call.eventId,
      at,
      input: record(inputEvent?.payload).semantic_tool ?? null,
      result:
        result === undefined
          ? null
          : {
              eventId: result.eventId,
              at: resultAt,
              envelope: record(resultEvent?.payload).semantic_tool ?? null,
            },
      outcome,
      code: stringOr(envelope.code) ?? denial?.code ?? null,
      authorizationBoundary:
        stringOr(envelope.authorizationBoundary) ?? denial?.authorizationBoundary ?? null,
      retryable: booleanOr(envelope.retryable) ?? denial?.retryable ?? null,
      mark: outcome === null || outcome === 'succeeded' ? null : outcome,
      denial:
        denial === undefined
          ? null
          : {
              code: denial.code,
              authorizationBoundary: denial.authorizationBoundary,
              retryable: denial.retryable,
            },
      durationMs: result === undefined ? null : msBetween(at, resultAt),
    };
  };
  const event = (source: PrpEvent): ReplayEvent => {
    const payload = record(source.payload);
    const text = TEXT_FIELDS.map((field) => stringOr(payload[field])).find((value) => value !== null);
    return {
      kind: 'event',
      eventId: source.sourceEventId,
      eventType: source.eventType,
      at: source.emittedAt,
      channel: stringOr(payload.channel),
      text: text ?? null,
      payload: source.payload,
    };
  };

  const turns: { turnId: string | null; entries: ReplayEntry[] }[] = [];
  const add = (turnId: string | null, entry: ReplayEntry): void => {
    const last = turns.at(-1);
    if (last !== undefined && last.turnId === turnId) last.entries.push(entry);
    else turns.push({ turnId, entries: [entry] });
  };
  for (const source of bundle.events) {
    if (TERMINAL_EVENTS.has(source.eventType)) continue;
    const turnId = stringOr(source.turnId);
    const call = callAt.get(source.sourceEventId);
    if (call !== undefined) add(turnId, toolCall(call));
    // A result is shown with its call; any other event (an unindexed semantic_tool.reconciled too) as itself.
    else if (!resultEvents.has(source.sourceEventId)) add(turnId, event(source));
  }
  // The parser guarantees every call names an event of the bundle; should one not, it is still shown.
  for (const call of tools.calls) if (!placed.has(call.callId)) add(null, toolCall(call));
  return turns;
}

function proposedResult(bundle: NativeExecution): AttemptReplay['proposedResult'] {
  const proposed = bundle.events.filter((event) => event.eventType === 'run.result.proposed').at(-1);
  if (proposed === undefined) return null;
  const payload = record(proposed.payload);
  return {
    summary: stringOr(payload.summary),
    reportedWorkDisposition: stringOr(payload.reportedWorkDisposition),
    objectiveSatisfied: booleanOr(record(payload.completionClaim).objectiveSatisfied),
    payload: proposed.payload,
  };
}

export interface LoadAttemptReplayOptions {
  readonly store: LedgerStore;
  readonly attemptId: string;
  /** Needed only when the attempt id is in more than one run (or case, config). */
  readonly runId?: string;
  /** Needed only when the attempt id is under more than one case (of its run). */
  readonly caseId?: string;
  /** Needed only when the attempt id is under more than one config (of its run and case). */
  readonly configId?: string;
  readonly environment?: Environment;
}

/** The selectors of one attempt's key, as `evals report --attempt` spells them. */
const KEY_SELECTORS = [
  { field: 'runId', flag: '--run', option: 'runId' },
  { field: 'caseId', flag: '--case', option: 'caseId' },
  { field: 'configId', flag: '--config', option: 'configId' },
] as const;

/**
 * Finds the one attempt `attemptId` (of `runId`, when given) in the store and builds its replay.
 * No such attempt, or more than one (the same id in several runs, cases or configs), is a
 * paperclip_evalbook_scope_unknown EvalbookError listing what there is.
 */
export async function loadAttemptReplay(options: LoadAttemptReplayOptions): Promise<AttemptReplay> {
  // By the store's index on attempt ids, never a scan of the ledger.
  async function* matching(): AsyncIterable<StoredAttempt> {
    yield* await options.store.attemptsById(options.attemptId, options.runId);
  }
  const found: StoredAttempt[] = [];
  for await (const stored of withExpectedChecks(matching(), options.environment))
    if (
      (options.caseId === undefined || stored.key.caseId === options.caseId) &&
      (options.configId === undefined || stored.key.configId === options.configId)
    )
      found.push(stored);
  const narrowing = KEY_SELECTORS.filter(
    ({ field, option }) => field !== 'runId' && options[option] !== undefined,
  );
  const where = `${options.runId === undefined ? '' : ` in run ${JSON.stringify(options.runId)}`}${
    narrowing.length === 0
      ? ''
      : ` with ${narrowing.map(({ flag, option }) => `${flag} ${JSON.stringify(options[option])}`).join(', ')}`
  }`;
  const [attempt, ...others] = found;
  if (attempt === undefined)
    throw new EvalbookError(
      'paperclip_evalbook_scope_unknown',
      `no attempt ${JSON.stringify(options.attemptId)}${where} in the evalbook: \`evals runs\` lists the runs, \`evals report --format json\` every attempt`,
      [
        {
          code: 'attempt_unknown',
          component: '--attempt',
          message: 'no stored attempt has this id',
          expected: 'the id of a stored attempt',
          received: options.attemptId,
        },
      ],
    );
  if (others.length > 0) {
    // The selectors that still tell the matches apart: a flag not given whose value differs among them.
    const telling = KEY_SELECTORS.filter(
      ({ field, option }) =>
        options[option] === undefined && new Set(found.map((entry) => entry.key[field])).size > 1,
    );
    const name = telling
      .map(
        ({ field, flag }) =>
          `${field === 'runId' ? 'its run' : field === 'caseId' ? 'its case' : 'its config'} with ${flag}`,
      )
      .join(' and ');
    throw new EvalbookError(
      'paperclip_evalbook_scope_unknown',
      `attempt ${JSON.stringify(options.attemptId)} is stored ${found.length} times${where} (run/case/config: ${found.map((entry) => `${entry.key.runId}/${entry.key.caseId}/${entry.key.configId}`).join(', ')}): name ${name}`,
      found.map((entry) => ({
        code: 'attempt_ambiguous',
        component: telling[0]?.flag ?? '--run',
        message: `run ${entry.key.runId}, case ${entry.key.caseId}, config ${entry.key.configId}`,
        expected: 'one attempt',
        received: entry.key,
      })),
    );
  }
  return buildAttemptReplay({
    attempt,
    bundleText: await options.store.getBundle(attempt.bundleDigest),
    verdict: attemptVerdict(attempt.record, attempt.scores),
    ...(options.environment === undefined ? {} : { environment: options.environment }),
    retraction: new RetractionIndex(await options.store.retractions()).of(attempt.key) ?? null,
  });
}
