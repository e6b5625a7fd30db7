// Attempts as replay input: tool input events become protocol events in event-time order with a
// stable tie-break, one session per (attempt, session id); and the per-call comparison table.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

import { REPO_ROOT } from '@paperclip-evals/test-kit/repo';
import { compareToolCall, toolCallSessions } from '../src/attempts.ts';

import type { NativeExecution } from '@paperclip-evals/contract';

import type { ToolCallRef } from '../src/attempts.ts';
import type { RowReply } from '../src/client.ts';

const attempt = JSON.parse(
  readFileSync(`${REPO_ROOT}/fixtures/attempts/valid/denied-tool-call.json`, 'utf8'),
) as NativeExecution;

/** The attempt with its events' emittedAt replaced, by sourceEventId. */
function withTimes(times: Record<string, string>): NativeExecution {
  return {
    ...attempt,
    events: attempt.events.map((event) => ({
      ...event,
      emittedAt: times[event.sourceEventId] ?? event.emittedAt,
    })),
  };
}

// now_ms is the event's emittedAt in epoch milliseconds, for every timestamp the contract accepts:
// RFC 3339 allows a leap second (23:59:60, which Date.parse cannot read: NaN, then BigInt threw a
// RangeError and replay crashed, exit 70). Epoch time has no leap seconds: 23:59:60.xyz is read as
// the instant one second after 23:59:59.xyz (the next day's 00:00:00.xyz), as POSIX time and
// chrono's timestamp_millis count it. The extremes of the four-digit years are read too.
describe('now_ms of every timestamp the contract accepts', () => {
  const cases: [string, bigint][] = [
    ['2026-11-01T12:00:00.030Z', 1_793_534_400_030n],
    ['2026-11-01T12:00:00Z', 1_793_534_400_000n],
    ['2016-12-31T23:59:60.030Z', BigInt(Date.UTC(2017, 0, 1, 0, 0, 0, 30))],
    ['2016-12-31T23:59:60Z', BigInt(Date.UTC(2017, 0, 1))],
    ['2016-06-30T23:59:60.999Z', BigInt(Date.UTC(2016, 6, 1, 0, 0, 0, 999))],
    ['9999-12-31T23:59:60.999Z', BigInt(Date.UTC(9999, 11, 31, 23, 59, 59, 999)) + 1000n],
    ['0000-01-01T00:00:00.000Z', -62_167_219_200_000n],
    ['1969-12-31T23:59:59.999Z', -1n],
  ];
  it.each(cases)('%s → %s', (emittedAt, nowMs) => {
    const [session] = toolCallSessions([withTimes({ attempt_denied_0001_event_0003: emittedAt })]);
    const call = [...(session?.events ?? [])].find(
      (event) => event.ref.callId === 'call_attempt_denied_0001_0',
    );
    expect(call?.nowMs).toBe(nowMs);
    expect(call?.ref.nowMs).toBe(nowMs);
  });

  it('a leap second sorts after 23:59:59.999 and with the next second', () => {
    const [session] = toolCallSessions([
      withTimes({
        attempt_denied_0001_event_0003: '2016-12-31T23:59:60.500Z',
        attempt_denied_0001_event_0006: '2016-12-31T23:59:59.999Z',
      }),
    ]);
    expect([...(session?.events ?? [])].map((event) => event.ref.callId)).toEqual([
      'call_attempt_denied_0001_1',
      'call_attempt_denied_0001_0',
    ]);
  });
});

describe('toolCallSessions', () => {
  it('maps each tool input event to a pre_tool_use event', () => {
    const [session] = toolCallSessions([attempt]);
    const events = [...(session?.events ?? [])];
    expect(events.map((event) => event.ref.callId)).toEqual([
      'call_attempt_denied_0001_0',
      'call_attempt_denied_0001_1',
    ]);
    expect(JSON.parse(events[0]!.event)).toMatchObject({
      event_type: 'pre_tool_use',
      session_id: 'session_attempt_denied_0001',
      tool_use_id: 'call_attempt_denied_0001_0',
      tool_name: 'decide_approval',
      tool_input: { redactionDisposition: 'redacted' },
      session: { attempt_id: 'attempt_denied_0001' },
    });
    expect(events[0]!.nowMs).toBe(BigInt(Date.parse('2026-11-01T12:00:00.030Z')));
    expect(events.map((event) => event.ref.recordedOutcome)).toEqual(['denied', 'succeeded']);
  });

  it('orders by event time, not by position', () => {
    const swapped = withTimes({ attempt_denied_0001_event_0003: '2026-11-01T12:00:09.000Z' });
    const events = [...(toolCallSessions([swapped])[0]?.events ?? [])];
    expect(events.map((event) => event.ref.callId)).toEqual([
      'call_attempt_denied_0001_1',
      'call_attempt_denied_0001_0',
    ]);
  });

  it('breaks a time tie by sourceSeq', () => {
    const tied = withTimes({
      attempt_denied_0001_event_0003: '2026-11-01T12:00:05.000Z',
      attempt_denied_0001_event_0006: '2026-11-01T12:00:05.000Z',
    });
    const reversed = { ...tied, events: [...tied.events].reverse() };
    const events = [...(toolCallSessions([reversed])[0]?.events ?? [])];
    expect(events.map((event) => event.ref.callId)).toEqual([
      'call_attempt_denied_0001_0',
      'call_attempt_denied_0001_1',
    ]);
  });

  it('never shares a session between attempts', () => {
    const other = { ...attempt, identity: { ...attempt.identity, attemptId: 'attempt_other' } };
    expect(toolCallSessions([attempt, other])).toHaveLength(2);
  });

  it("names each call by its attempt's whole identity: the same attempt id in another run is another attempt", () => {
    const rerun = { ...attempt, identity: { ...attempt.identity, runId: 'run_again' } };
    const sessions = toolCallSessions([attempt, rerun]);
    expect(sessions).toHaveLength(2);
    const runs = sessions.map((session) => [...new Set([...session.events].map((event) => event.ref.runId))]);
    expect(runs).toEqual([[attempt.identity.runId], ['run_again']]);
    const [first] = [...(sessions[0]?.events ?? [])];
    expect(first?.ref).toMatchObject(attempt.identity);
  });
});

/** A response frame holding this decision, as a producer writes it. */
const frameOf = (decision: Record<string, unknown>): string =>
  JSON.stringify({ type: 'response', id: 'r1', bundle_digest: null, decision, state_out: { c: [] } });

describe('compareToolCall', () => {
  const call = (recordedOutcome: ToolCallRef['recordedOutcome']): ToolCallRef => ({
    runId: 'r',
    caseId: 'c',
    configId: 'k',
    attemptId: 'a',
    sessionId: 's',
    callId: 'c',
    toolName: 't',
    nowMs: 0n,
    recordedOutcome,
  });
  const decided = (verdict: string): RowReply => ({
    ok: true,
    bundleDigest: null,
    decision: { verdict, rule_id: 'r', reason: `because ${verdict}` },
    frame: frameOf({ verdict, rule_id: 'r', reason: `because ${verdict}` }),
    stateOut: '{}',
  });
  const cases: [string, ToolCallRef['recordedOutcome'], RowReply, string][] = [
    ['allow vs succeeded', 'succeeded', decided('allow'), 'agree'],
    ['deny vs denied', 'denied', decided('deny'), 'agree'],
    ['ask vs denied', 'denied', decided('ask'), 'agree'],
    ['deny vs succeeded', 'succeeded', decided('deny'), 'policy_denies_runner_allowed'],
    ['deny vs failed', 'failed', decided('deny'), 'policy_denies_runner_allowed'],
    ['allow vs denied', 'denied', decided('allow'), 'runner_denied_policy_allows'],
    [
      'a row error',
      'denied',
      { ok: false, bundleDigest: null, code: 'OL-1243', message: 'layout' },
      'policy_error',
    ],
    ['an unfamiliar verdict', 'succeeded', decided('shrug'), 'policy_verdict_unfamiliar'],
    ['an unfamiliar verdict, no recorded result', null, decided('escalate'), 'policy_verdict_unfamiliar'],
    ['no recorded result', null, decided('allow'), 'no_recorded_outcome'],
  ];
  it.each(cases)('%s → %s', (_name, outcome, reply, agreement) => {
    expect(compareToolCall(call(outcome), reply).agreement).toBe(agreement);
  });

  it('keeps the row error code and invents no verdict, rule or reason', () => {
    expect(
      compareToolCall(call('succeeded'), { ok: false, bundleDigest: null, code: 'OL-1242', message: 'none' }),
    ).toMatchObject({
      verdict: null,
      ruleId: null,
      reason: null,
      errorCode: 'OL-1242',
    });
  });

  it("carries the decision's rule id and reason text", () => {
    expect(compareToolCall(call('succeeded'), decided('deny'))).toMatchObject({
      verdict: 'deny',
      ruleId: 'r',
      reason: 'because deny',
      errorCode: null,
    });
  });

  it('keeps a reason that is not a string as null, never a guess', () => {
    const reply: RowReply = {
      ok: true,
      bundleDigest: null,
      decision: { verdict: 'allow', reason: 7 },
      frame: frameOf({ verdict: 'allow', reason: 7 }),
      stateOut: '{}',
    };
    expect(compareToolCall(call('succeeded'), reply)).toMatchObject({ ruleId: null, reason: null });
  });

  it('keeps the whole decision as sent, unfamiliar fields and exact numbers included', () => {
    const decisionJson = '{"verdict":"shrug","x_new":{"n":12345678901234567890},"matched":[]}';
    const reply: RowReply = {
      ok: true,
      bundleDigest: null,
      decision: JSON.parse(decisionJson) as Record<string, unknown>,
      frame: `{"type":"response","id":"r1","bundle_digest":null,"decision": ${decisionJson},"state_out":{"c":[]}}`,
      stateOut: '{}',
    };
    expect(compareToolCall(call('succeeded'), reply)).toMatchObject({
      verdict: 'shrug',
      decision: decisionJson,
      agreement: 'policy_verdict_unfamiliar',
    });
  });
});
