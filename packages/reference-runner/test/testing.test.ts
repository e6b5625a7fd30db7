// ./testing: the deterministic driver (seeded, clock-free, every behaviour), the control-plane
// fake, and the conformance kit.
import './support/protocol.js';

import { afterEach, describe, expect, it, vi } from 'vitest';

import { validatePrpEvent } from '../src/index.js';
import {
  CONFORMANCE_STARTED_AT,
  DETERMINISTIC_BEHAVIOURS,
  DETERMINISTIC_DRIVER_CONFIG_SCHEMA,
  DeterministicHarnessDriver,
  FakeControlPlane,
  loadHarnessDriverConformanceFixture,
  runHarnessDriverConformance,
} from '../src/testing/index.js';

import type { HarnessDriver, NativeSession, PrpEvent } from '../src/index.js';
import type { DeterministicBehaviour } from '../src/testing/index.js';

const config = (behaviour: DeterministicBehaviour, seed = 'seed-1') => ({
  schema: DETERMINISTIC_DRIVER_CONFIG_SCHEMA,
  behaviour,
  seed,
});

async function play(
  behaviour: DeterministicBehaviour,
  seed = 'seed-1',
  controlPlane = new FakeControlPlane(),
) {
  const driver = new DeterministicHarnessDriver();
  const session = await driver.openSession({
    runId: 'run_1',
    sessionId: 'session_1',
    config: config(behaviour, seed),
    startedAt: '2026-05-01T09:00:00Z',
    controlPlane,
  });
  const outcome = await session.runTurn({ turnId: 'turn_1', message: 'Summarise the brief.' });
  const summary = await session.close();
  return { outcome, summary, events: session.events(), controlPlane };
}

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('DeterministicHarnessDriver', () => {
  it('gives the same events for the same seed and different ones for another seed', async () => {
    const first = await play('succeed');
    const again = await play('succeed');
    const other = await play('succeed', 'seed-2');
    expect(again.events).toEqual(first.events);
    expect(other.events).not.toEqual(first.events);
  });

  it('never reads a clock or Math.random', async () => {
    const RealDate = Date;
    class ClockFreeDate extends RealDate {
      constructor(value?: number | string) {
        if (value === undefined) throw new Error('clock read: new Date()');
        super(value);
      }
      static override now(): number {
        throw new Error('clock read: Date.now()');
      }
    }
    vi.stubGlobal('Date', ClockFreeDate);
    vi.stubGlobal(
      'Math',
      Object.assign(Object.create(Math) as Math, {
        random: () => {
          throw new Error('Math.random');
        },
      }),
    );
    vi.stubGlobal('performance', {
      now: () => {
        throw new Error('clock read: performance.now()');
      },
    });
    for (const behaviour of DETERMINISTIC_BEHAVIOURS) await expect(play(behaviour)).resolves.toBeDefined();
  });

  it('derives every time from startedAt, in order', async () => {
    const { events } = await play('succeed');
    const times = events.map((event) => Date.parse(event.emittedAt));
    expect(times[0]).toBeGreaterThan(Date.parse('2026-05-01T09:00:00Z'));
    expect([...times].sort((a, b) => a - b)).toEqual(times);
  });

  it.each(DETERMINISTIC_BEHAVIOURS)(
    'emits only valid PRP events for %s, ending with run.terminal',
    async (behaviour) => {
      const { events } = await play(behaviour);
      expect(events.filter((event) => !validatePrpEvent(event).valid)).toEqual([]);
      expect(events.at(-1)?.eventType).toBe('run.terminal');
      expect(events.map((event) => event.sourceSeq)).toEqual(events.map((_event, index) => index + 1));
    },
  );

  const outcomes: [DeterministicBehaviour, string, string, string | null][] = [
    ['succeed', 'completed', 'succeeded', null],
    ['fail', 'failed', 'failed', 'runner'],
    ['deny_tool', 'completed', 'succeeded', null],
    ['incomplete', 'completed', 'succeeded', null],
    ['unpriced', 'completed', 'succeeded', null],
    ['over_budget', 'cancelled', 'cancelled', 'budget'],
    ['harness_crash', 'failed', 'failed', 'infrastructure'],
  ];
  it.each(outcomes)('%s: turn %s, run %s, failure class %s', async (behaviour, turn, run, failure) => {
    const { outcome, summary } = await play(behaviour);
    expect(outcome.state).toBe(turn);
    expect(summary.terminal.runTerminalState).toBe(run);
    expect(summary.failure?.classification ?? null).toBe(failure);
  });

  it('deny_tool: the approval is denied by the control plane, with a denial receipt and a needs_review result', async () => {
    const { summary, controlPlane } = await play('deny_tool');
    expect(summary.semanticTools.denials).toEqual([
      {
        callId: 'call_session_1_2',
        code: 'required_claim_missing',
        authorizationBoundary: 'grant',
        retryable: false,
      },
    ]);
    expect(
      controlPlane.decisions.map(({ request, decision }) => [request.operationId, decision.outcome]),
    ).toEqual([
      ['read_document', 'succeeded'],
      ['decide_approval', 'denied'],
    ]);
    expect(summary.terminal.reportedWorkDisposition).toBe('needs_review');
  });

  it('fail: a write on a stale revision is a conflict and the run fails blocked', async () => {
    const { summary } = await play('fail');
    expect(summary.semanticTools.results.map((result) => result.outcome)).toEqual(['succeeded', 'conflict']);
    expect(summary.terminal.reportedWorkDisposition).toBe('blocked');
  });

  it('incomplete: the transcript holds the first events and says why the rest are missing', async () => {
    const { summary, events } = await play('incomplete');
    expect(summary.transcript.complete).toBe(false);
    expect(summary.transcript.eventCount).toBeLessThan(events.length);
    expect(summary.transcript.omissionReason).toMatch(/cap/);
  });

  it('unpriced: usage has no cost (null, not zero); priced usage adds up', async () => {
    expect((await play('unpriced')).summary.usage.cost).toBeNull();
    const { usage } = (await play('succeed')).summary;
    expect(usage.totalTokens).toBe(usage.inputTokens + usage.outputTokens);
    expect(usage.cost).toEqual({
      currency: 'USD',
      amountMicros: usage.inputTokens * 3 + usage.outputTokens * 15,
    });
  });

  it('refuses an invalid config when validating and when opening a session', async () => {
    const driver = new DeterministicHarnessDriver();
    const invalid = { schema: DETERMINISTIC_DRIVER_CONFIG_SCHEMA, behaviour: 'explode', extra: true };
    expect(
      driver
        .validateConfig(invalid)
        .errors.map((error) => error.path)
        .sort(),
    ).toEqual(['/behaviour', '/extra']);
    await expect(
      driver.openSession({
        runId: 'run_1',
        sessionId: 's',
        config: invalid,
        startedAt: CONFORMANCE_STARTED_AT,
      }),
    ).rejects.toMatchObject({
      code: 'harness_driver_config_invalid',
    });
  });

  it('keeps an interrupt turn active until it is interrupted, and refuses a second turn meanwhile', async () => {
    const driver = new DeterministicHarnessDriver();
    const session = await driver.openSession({
      runId: 'run_1',
      sessionId: 's',
      config: config('succeed'),
      startedAt: CONFORMANCE_STARTED_AT,
    });
    const turn = session.runTurn({ turnId: 'turn_1', message: '[conformance:interrupt] wait' });
    await expect(session.runTurn({ turnId: 'turn_2', message: 'x' })).rejects.toMatchObject({
      code: 'harness_driver_session_state_invalid',
    });
    await session.interrupt('turn_1');
    await expect(turn).resolves.toEqual({ turnId: 'turn_1', state: 'interrupted' });
    expect((await session.close()).terminal).toMatchObject({
      turnTerminalState: 'interrupted',
      runTerminalState: 'cancelled',
    });
  });

  it('resumes from a JSON snapshot, continuing the same stream', async () => {
    const driver = new DeterministicHarnessDriver({ behaviour: 'succeed', seed: 'resume' });
    const session = await driver.openSession({
      runId: 'run_1',
      sessionId: 's',
      config: { schema: DETERMINISTIC_DRIVER_CONFIG_SCHEMA },
      startedAt: CONFORMANCE_STARTED_AT,
    });
    await session.runTurn({ turnId: 'turn_1', message: 'one' });
    const snapshot = JSON.parse(JSON.stringify(session.snapshot())) as ReturnType<typeof session.snapshot>;
    const resumed = await driver.resumeSession({ snapshot });
    await resumed.runTurn({ turnId: 'turn_2', message: 'two' });
    const summary = await resumed.close();
    const all: PrpEvent[] = [...session.events(), ...resumed.events()];
    expect(all.map((event) => event.sourceSeq)).toEqual(all.map((_event, index) => index + 1));
    expect(summary.transcript).toEqual({ complete: true, eventCount: all.length, omissionReason: null });
    expect(summary.semanticTools.calls).toHaveLength(4);
  });
});

describe('FakeControlPlane', () => {
  it('denies what it is told to deny and records every decision', async () => {
    const controlPlane = new FakeControlPlane({
      deny: [{ operationId: 'read_document', code: 'tenant_blocked', authorizationBoundary: 'company' }],
    });
    const { summary } = await play('succeed', 'seed-1', controlPlane);
    expect(summary.semanticTools.denials).toEqual([
      {
        callId: 'call_session_1_1',
        code: 'tenant_blocked',
        authorizationBoundary: 'company',
        retryable: false,
      },
    ]);
    expect(controlPlane.decisions[0]?.request).toMatchObject({
      operationId: 'read_document',
      runId: 'run_1',
      claims: [],
    });
  });

  it('answers a reused idempotency key with duplicate and an unknown operation with unavailable', async () => {
    const controlPlane = new FakeControlPlane();
    const request = {
      runId: 'r',
      sessionId: 's',
      turnId: 't',
      callId: 'c1',
      operationId: 'read_document',
      idempotencyKey: 'k',
      claims: [],
      arguments: { documentId: 'doc_brief' },
    };
    expect((await controlPlane.decideGovernedTool(request)).outcome).toBe('succeeded');
    expect((await controlPlane.decideGovernedTool({ ...request, callId: 'c2' })).outcome).toBe('duplicate');
    expect(
      (await controlPlane.decideGovernedTool({ ...request, operationId: 'drop_table', idempotencyKey: 'k2' }))
        .outcome,
    ).toBe('unavailable');
  });
});

describe('runHarnessDriverConformance', () => {
  const base = new DeterministicHarnessDriver();
  /** The deterministic driver with some members replaced. */
  const delegate = (overrides: Partial<HarnessDriver>): HarnessDriver => ({
    descriptor: base.descriptor,
    validateConfig: (value) => base.validateConfig(value),
    openSession: (request) => base.openSession(request),
    resumeSession: (request) => base.resumeSession(request),
    ...overrides,
  });

  it('passes the deterministic driver on every check of the shipped fixture', async () => {
    const failures: string[] = [];
    const report = await runHarnessDriverConformance({
      driver: new DeterministicHarnessDriver(),
      onCheck: (name, passed, detail) => {
        if (!passed) failures.push(`${name}: ${detail}`);
      },
    });
    expect(failures).toEqual([]);
    expect(report).toMatchObject({
      schema: 'paperclip-runner/harness-driver-conformance/v1',
      passed: true,
      contractVersion: 1,
      descriptor: {
        kind: 'paperclip-deterministic',
        version: '1.0.0',
        protocolVersion: 'prp.v1',
        capabilities: {
          steer: false,
          interrupt: true,
          resume: true,
          runtimeRequests: false,
          structuredResult: true,
          typedEvents: true,
        },
      },
    });
    expect(Object.keys(report.checks).sort()).toEqual([
      'capabilities.described',
      'capabilities.unsupportedDescribed',
      'config.invalidRejected',
      'config.validAccepted',
      'events.valid',
      'interrupt.terminal',
      'lifecycle.cancel',
      'lifecycle.close',
      'lifecycle.open',
      'lifecycle.recovery',
      'lifecycle.snapshot',
      'lifecycle.turn',
      'semanticTools.paired',
      'transcript.accounted',
      'usage.reported',
    ]);
    expect(report.semanticToolCallCount).toBe(4);
  });

  it('fails a driver that claims an unsupported feature it cannot do', async () => {
    const liar = delegate({
      descriptor: { ...base.descriptor, capabilities: { ...base.descriptor.capabilities, steer: true } },
    });
    const report = await runHarnessDriverConformance({ driver: liar });
    expect(report.passed).toBe(false);
    expect(report.checks['capabilities.unsupportedDescribed']).toBe(false);
  });

  it('fails, rather than hangs on, a driver whose interrupt never lands', async () => {
    const deaf = delegate({
      openSession: async (request) => {
        const session = await base.openSession(request);
        const forwarded: NativeSession = {
          runId: session.runId,
          sessionId: session.sessionId,
          capabilities: session.capabilities,
          events: () => session.events(),
          runTurn: (input) => session.runTurn(input),
          interrupt: () => Promise.resolve(), // acknowledged, never delivered
          steer: (turnId, message) => session.steer(turnId, message),
          resolveRuntimeRequest: (id, resolution) => session.resolveRuntimeRequest(id, resolution),
          snapshot: () => session.snapshot(),
          cancel: (reason) => session.cancel(reason),
          close: () => session.close(),
        };
        return forwarded;
      },
    });
    const report = await runHarnessDriverConformance({ driver: deaf, checkTimeoutMs: 200 });
    expect(report.checks['interrupt.terminal']).toBe(false);
  });

  it('fails a driver that accepts the invalid config', async () => {
    const driver = new DeterministicHarnessDriver();
    const lax = Object.assign(Object.create(driver) as DeterministicHarnessDriver, {
      validateConfig: () => ({ valid: true, errors: [] }),
    });
    const report = await runHarnessDriverConformance({
      driver: lax,
      fixture: loadHarnessDriverConformanceFixture(),
    });
    expect(report.checks['config.invalidRejected']).toBe(false);
  });
});
