// Attempts (paperclip-runner/native-execution/v1) as replay input, and the comparison of policy
// decisions with what the runner recorded. Each tool call's input event (an event whose
// payload.semantic_tool has phase "input") becomes one protocol event:
//   event_type  "pre_tool_use"
//   session_id  the event's normalizedSessionId (else the attempt id)
//   tool_use_id semantic_tool.callId      tool_name   semantic_tool.operationId
//   tool_input  semantic_tool.content (what the bundle recorded: digest, redaction, references)
//   binding     semantic_tool.correlation
//   agent       {"runner": runner package name, "driver": runner driverKind}
//   session     {"run_id", "case_id", "config_id", "attempt_id"} of the attempt
// now_ms is emittedAt in epoch milliseconds. A session is one attempt's events with one session id
// (state is never shared across attempts), replayed by (now_ms, sourceSeq, position in the bundle).
import { instantMs } from '@paperclip-evals/contract';

import { decisionJsonOf } from './client.js';

import type { NativeExecution, PrpEvent, ToolOutcome } from '@paperclip-evals/contract';

import type { RowReply } from './client.js';
import type { ReplayEvent, ReplaySession } from './replay.js';

/** A tool call, named by its attempt's whole identity (an attempt id may repeat across runs). */
export interface ToolCallRef {
  readonly runId: string;
  readonly caseId: string;
  readonly configId: string;
  readonly attemptId: string;
  readonly sessionId: string;
  readonly callId: string;
  readonly toolName: string;
  readonly nowMs: bigint;
  /** The recorded outcome of the call, or null when the bundle holds no result for it. */
  readonly recordedOutcome: ToolOutcome | null;
}

/** Epoch milliseconds of a timestamp the contract accepted (contract's instantMs: a leap second too), as a bigint. */
function epochMs(timestamp: string): bigint {
  const ms = instantMs(timestamp);
  if (!Number.isSafeInteger(ms))
    // the contract's parser refuses every such timestamp before replay: a caller that skipped it
    throw new RangeError(`not an upstream UTC timestamp: ${JSON.stringify(timestamp)}`);
  return BigInt(ms);
}

/** Every tool call of the attempts, grouped into sessions in replay order. */
export function toolCallSessions(attempts: readonly NativeExecution[]): ReplaySession<ToolCallRef>[] {
  const sessions = new Map<string, { event: ReplayEvent<ToolCallRef>; seq: number; position: number }[]>();
  for (const attempt of attempts) {
    const { identity } = attempt;
    const outcomes = new Map(attempt.semanticTools.results.map((result) => [result.callId, result.outcome]));
    attempt.events.forEach((prpEvent, position) => {
      const tool = semanticToolInput(prpEvent);
      if (tool === undefined) return;
      const sessionId =
        typeof prpEvent.normalizedSessionId === 'string' ? prpEvent.normalizedSessionId : identity.attemptId;
      const nowMs = epochMs(prpEvent.emittedAt);
      const event = {
        event_type: 'pre_tool_use',
        session_id: sessionId,
        tool_use_id: tool.callId,
        tool_name: tool.operationId,
        tool_input: tool.content ?? null,
        binding: tool.correlation ?? null,
        agent: { runner: attempt.runner.package.name, driver: attempt.runner.driverKind },
        session: {
          run_id: identity.runId,
          case_id: identity.caseId,
          config_id: identity.configId,
          attempt_id: identity.attemptId,
        },
      };
      const key = JSON.stringify([
        identity.runId,
        identity.caseId,
        identity.configId,
        identity.attemptId,
        sessionId,
      ]);
      const ref: ToolCallRef = {
        runId: identity.runId,
        caseId: identity.caseId,
        configId: identity.configId,
        attemptId: identity.attemptId,
        sessionId,
        callId: tool.callId,
        toolName: tool.operationId,
        nowMs,
        recordedOutcome: outcomes.get(tool.callId) ?? null,
      };
      const list = sessions.get(key) ?? [];
      list.push({ event: { ref, event: JSON.stringify(event), nowMs }, seq: prpEvent.sourceSeq, position });
      sessions.set(key, list);
    });
  }
  return [...sessions.entries()].map(([key, events]) => ({
    key,
    events: events
      .sort((a, b) =>
        a.event.nowMs === b.event.nowMs
          ? a.seq - b.seq || a.position - b.position
          : a.event.nowMs < b.event.nowMs
            ? -1
            : 1,
      )
      .map((entry) => entry.event),
  }));
}

interface SemanticToolInput {
  readonly callId: string;
  readonly operationId: string;
  readonly content?: unknown;
  readonly correlation?: unknown;
}

function semanticToolInput(event: PrpEvent): SemanticToolInput | undefined {
  const tool = event.payload.semantic_tool as Record<string, unknown> | undefined;
  if (typeof tool !== 'object' || tool.phase !== 'input') return undefined;
  if (typeof tool.callId !== 'string' || typeof tool.operationId !== 'string') return undefined;
  return tool as unknown as SemanticToolInput;
}

/**
 * Policy vs runner for one tool call. `deny` and `ask` both mean the policy would not let the call
 * run unattended. A row error, a verdict Evals does not know (the producer owns verdict semantics:
 * it is kept as received, never read as allow or deny, never a row error) and a call without a
 * recorded result are each their own class, never a guess.
 */
export type Agreement =
  | 'agree'
  | 'policy_denies_runner_allowed'
  | 'runner_denied_policy_allows'
  | 'policy_error'
  | 'policy_verdict_unfamiliar'
  | 'no_recorded_outcome';

/** The verdicts Evals can compare with a recorded outcome. */
export const FAMILIAR_VERDICTS: readonly string[] = ['allow', 'deny', 'ask'];

export interface ToolCallComparison extends ToolCallRef {
  /** The decision's verdict as the producer gave it (any string); null for a row error or none given. */
  readonly verdict: string | null;
  /** The whole Decision as JSON text exactly as received (unfamiliar fields included); null for a row error. */
  readonly decision: string | null;
  /** The decision's rule_id: the artifact that decided; null when the default applied or for a row error. */
  readonly ruleId: string | null;
  /** The decision's reason text; null for a row error (its code is errorCode). */
  readonly reason: string | null;
  /** The row error's code (e.g. OL-1243); null when the row was decided. */
  readonly errorCode: string | null;
  readonly agreement: Agreement;
}

/** The per-call comparison the Evalbook view stores: the policy's decision vs the recorded outcome. */
export function compareToolCall(call: ToolCallRef, reply: RowReply): ToolCallComparison {
  if (!reply.ok)
    return {
      ...call,
      verdict: null,
      decision: null,
      ruleId: null,
      reason: null,
      errorCode: reply.code,
      agreement: 'policy_error',
    };
  const { decision } = reply;
  const verdict = typeof decision.verdict === 'string' ? decision.verdict : null;
  const ruleId = typeof decision.rule_id === 'string' ? decision.rule_id : null;
  const reason = typeof decision.reason === 'string' ? decision.reason : null;
  const base = { ...call, verdict, decision: decisionJsonOf(reply), ruleId, reason, errorCode: null };
  // Not a row error (the producer decided) and not ours to interpret: kept and reported as it is.
  if (verdict === null || !FAMILIAR_VERDICTS.includes(verdict))
    return { ...base, agreement: 'policy_verdict_unfamiliar' };
  if (call.recordedOutcome === null) return { ...base, agreement: 'no_recorded_outcome' };
  const policyAllows = verdict === 'allow';
  const runnerDenied = call.recordedOutcome === 'denied';
  if (policyAllows === !runnerDenied) return { ...base, agreement: 'agree' };
  return {
    ...base,
    agreement: policyAllows ? 'runner_denied_policy_allows' : 'policy_denies_runner_allowed',
  };
}
