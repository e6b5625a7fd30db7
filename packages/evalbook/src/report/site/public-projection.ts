// The public projection of an attempt (issue 19, `evals publish --public`): a CLOSED allowlist. The
// public object is built field by field from the stored attempt — never a copy with fields deleted —
// so a field the ledger gains tomorrow stays private until it is named here. Kept: the attempt's
// identity (run, case, config, attempt ids), model/config identity (runner package and driver,
// eval-session provider, requested model and driver), the honest status, terminal states, the
// infrastructure failure's {class, category, retryable} and the failure's classification and code
// (never its message), usage numbers and timing, cost figures with their coverage, check outcomes
// (id — a call id in it replaced by the call's place —, layer, status, score: never the
// explanation), tool names and outcomes with a denial's code,
// boundary and retryability (never a call's input or result, nor its call id), transcript
// completeness, and the conversation's progress text with every credential-shaped value scrubbed
// and every stretch of the suite's prompts and descriptions withheld (suite-text.ts; the whole text
// withheld when the campaign record does not carry them: record-cases.ts recordSuiteText).
// Dropped by not being named: tool inputs and results, session ids, raw failure text, traces,
// artifacts, profile identities, check evidence and reasons, a case's prompt and description.
import { scrubCredentials } from '@paperclip-evals/contract';

import type { AttemptVerdict } from '../../analysis/scoring.js';
import type { StoredAttempt } from '../../ledger/store.js';
import type { SuiteTextOf } from './record-cases.js';

export interface PublicAttempt {
  readonly runId: string;
  readonly caseId: string;
  readonly configId: string;
  readonly attemptId: string;
  readonly status: AttemptVerdict['status'];
  readonly runner: { readonly package: string; readonly driver: string };
  readonly model: {
    readonly provider: string | null;
    readonly requestedModel: string | null;
    readonly driver: string | null;
  };
  readonly terminal: { readonly turn: string; readonly run: string; readonly workDisposition: string };
  readonly failure: { readonly classification: string; readonly code: string } | null;
  readonly infrastructureFailure: {
    readonly class: string;
    readonly category: string;
    readonly retryable: boolean;
  } | null;
  readonly usage: {
    readonly inputTokens: number;
    readonly outputTokens: number;
    readonly totalTokens: number;
    readonly requestCount: number;
    readonly durationMs: number;
  };
  readonly startedAt: string | null;
  readonly cost: {
    readonly providerReportedNanodollars: number | null;
    readonly estimatedNanodollars: number | null;
    readonly coverage: string;
  };
  readonly checks: readonly {
    readonly checkId: string;
    readonly layer: string | null;
    readonly status: string;
    readonly score: number | null;
  }[];
  readonly tools: readonly {
    readonly name: string;
    readonly outcome: string | null;
    readonly denial: {
      readonly code: string;
      readonly authorizationBoundary: string;
      readonly retryable: boolean;
    } | null;
  }[];
  readonly transcript: { readonly complete: boolean; readonly eventCount: number };
  /** The agent's progress text in order, credential-shaped values and the suite's text withheld. */
  readonly conversation: readonly string[];
  /** Why the progress text is not published (the suite's text is unknown); null when it is. */
  readonly conversationWithheld: string | null;
}

/**
 * The agent's progress text of a bundle (its `item.delta` events' `text`, in order), as the ledger
 * stored the bundle (canonical JSON). Not scrubbed: publicAttempt scrubs what it keeps.
 */
export function conversationOf(bundleText: string | null): string[] {
  if (bundleText === null) return [];
  const bundle = JSON.parse(bundleText) as { events?: unknown };
  if (!Array.isArray(bundle.events)) return [];
  const texts: string[] = [];
  for (const event of bundle.events as { eventType?: unknown; payload?: { text?: unknown } }[])
    if (event.eventType === 'item.delta' && typeof event.payload?.text === 'string')
      texts.push(event.payload.text);
  return texts;
}

/** A campaign record's lane (its id is the config's): how the campaign ran that config. */
export interface SiteLaneIdentity {
  readonly provider: string;
  readonly model: string;
  readonly driver: string | null;
}

/**
 * An attempt's provider, requested model and driver as the ledger holds them, one source for the
 * private and the public page: the attempt's eval session (an ingested artifact), else the campaign
 * record's lane for its config, else null (not recorded).
 */
export function modelOf(stored: StoredAttempt, lane: SiteLaneIdentity | null): PublicAttempt['model'] {
  const session = stored.record.evalSession;
  // One source whole, never fields mixed from two.
  if (session !== undefined)
    return { provider: session.provider, requestedModel: session.requestedModel, driver: session.driver };
  if (lane !== null) return { provider: lane.provider, requestedModel: lane.model, driver: lane.driver };
  return { provider: null, requestedModel: null, driver: null };
}

/** What a public page is made of besides the stored attempt and its verdict. */
export interface PublicAttemptContext {
  /** The agent's progress text (conversationOf), unscrubbed. */
  readonly conversation: readonly string[];
  /** The campaign record's lane of the attempt's config, or null. */
  readonly lane: SiteLaneIdentity | null;
  /** The suite's text to withhold (recordSuiteText of the campaign record). */
  readonly suiteText: SuiteTextOf;
}

/** The public projection of one stored attempt: every field named, nothing copied whole. */
export function publicAttempt(
  stored: StoredAttempt,
  verdict: AttemptVerdict,
  { conversation, lane, suiteText }: PublicAttemptContext,
): PublicAttempt {
  const { record, key } = stored;
  const suite = suiteText(key.caseId);
  // Every free text goes through both: the suite's text withheld, then credentials scrubbed.
  const open = (text: string): string => scrubCredentials(suite.redact === null ? text : suite.redact(text));
  const session = record.evalSession;
  const failure = record.failure;
  const infrastructure = session?.infrastructureFailure ?? null;
  return {
    runId: key.runId,
    caseId: key.caseId,
    configId: key.configId,
    attemptId: key.attemptId,
    status: verdict.status,
    runner: {
      package: `${record.runner.packageName}@${record.runner.packageVersion}`,
      driver: `${record.runner.driverKind}@${record.runner.driverVersion}`,
    },
    model: modelOf(stored, lane),
    terminal: {
      turn: record.terminal.turn,
      run: record.terminal.run,
      workDisposition: record.terminal.workDisposition,
    },
    failure: failure === null ? null : { classification: failure.classification, code: failure.code },
    infrastructureFailure:
      infrastructure === null
        ? null
        : {
            class: infrastructure.class,
            category: infrastructure.category,
            retryable: infrastructure.retryable,
          },
    usage: {
      inputTokens: record.usage.inputTokens,
      outputTokens: record.usage.outputTokens,
      totalTokens: record.usage.totalTokens,
      requestCount: record.usage.requestCount,
      durationMs: record.usage.durationMs,
    },
    startedAt: record.startedAt ?? null,
    cost: {
      providerReportedNanodollars: record.cost.providerReportedNanodollars,
      estimatedNanodollars: record.cost.estimatedNanodollars,
      coverage: record.cost.coverage,
    },
    checks: stored.scores.map((score) => ({
      checkId: open(publicCheckId(score.checkId, record.toolCalls)),
      layer: score.layer === null ? null : String(score.layer),
      status: score.status,
      score: score.score,
    })),
    tools: record.toolCalls.map((call) => ({
      name: call.operationId,
      outcome: call.outcome,
      denial:
        call.denial === null
          ? null
          : {
              code: call.denial.code,
              authorizationBoundary: call.denial.authorizationBoundary,
              retryable: call.denial.retryable,
            },
    })),
    transcript: { complete: record.transcript.complete, eventCount: record.transcript.eventCount },
    conversation: suite.redact === null ? [] : conversation.map(open),
    conversationWithheld: suite.redact === null && conversation.length > 0 ? suite.withheld : null,
  };
}

/**
 * A check's id as published: the runner names a check per tool call by the call's id (e.g.
 * `tool:read_document:call_<session id>_1`), and a call id carries the session id, so every call id
 * of the attempt in it becomes `call-<n>` (the call's place in the attempt, from 1).
 */
export function publicCheckId(checkId: string, calls: readonly { readonly callId: string }[]): string {
  let id = checkId;
  // Longest first, so a call id that holds another is replaced whole.
  const ordered = calls
    .map((call, index) => ({ callId: call.callId, n: index + 1 }))
    .sort((a, b) => b.callId.length - a.callId.length);
  for (const { callId, n } of ordered) if (callId !== '') id = id.split(callId).join(`call-${n}`);
  return id;
}
