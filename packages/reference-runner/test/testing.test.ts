// ./testing: upstream's names; the deterministic driver (seeded, clock-free, every behaviour), the
// control-plane fake, and the conformance kit — which passes upstream's own conformance fixture
// (read from ../shared), every check, with its config and capability names.
import './support/protocol.js';

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';

import { UPSTREAM_FIXTURES_DIR, needsUpstream } from '@paperclip-evals/test-kit/upstream';
import * as root from '../src/index.js';
import * as testing from '../src/testing.js';
import { validatePrpEvent } from '../src/index.js';
import {
  DETERMINISTIC_BEHAVIOURS,
  DETERMINISTIC_HARNESS_DRIVER_CONFIG_SCHEMA,
  DeterministicHarnessDriver,
} from '../src/testing/deterministic-driver.js';
import { FakeControlPlane } from '../src/testing/fake-control-plane.js';
import {
  HARNESS_DRIVER_CONFORMANCE_CHECKS,
  loadHarnessDriverConformanceFixture,
  parseHarnessDriverConformanceFixture,
  runHarnessDriverConformance,
} from '../src/testing/conformance.js';

import type { HarnessDriver, NativeSession, PrpEvent } from '../src/index.js';
import type { DeterministicBehaviour } from '../src/testing/deterministic-driver.js';
import type { HarnessDriverConformanceFixture } from '../src/testing/conformance.js';

const STARTED_AT = '2026-01-01T00:00:00.000Z';
const config = (behaviour: DeterministicBehaviour, seed = 'seed-1') => ({
  schema: DETERMINISTIC_HARNESS_DRIVER_CONFIG_SCHEMA,
  behaviour,
  seed,
});

const withUpstream = needsUpstream(
  import.meta.url,
  "the conformance kit on upstream's own harness-driver conformance fixture",
);

describe('./testing', () => {
  it("exports upstream's names and the root's, none of our old ones", () => {
    expect(Object.keys(testing)).toEqual(
      expect.arrayContaining([
        'DeterministicHarnessDriver',
        'runHarnessDriverConformance',
        'loadHarnessDriverConformanceFixture',
        'parseHarnessDriverConformanceFixture',
        'harnessDriverConformanceFixtureUrl',
        'HARNESS_DRIVER_CONFORMANCE_FIXTURE_SCHEMA',
        'HARNESS_DRIVER_CONFORMANCE_REPORT_SCHEMA',
        'DETERMINISTIC_HARNESS_DRIVER_CONFIG_SCHEMA',
        ...Object.keys(root),
      ]),
    );
    for (const old of [
      'CONFORMANCE_INTERRUPT_DIRECTIVE',
      'DETERMINISTIC_BEHAVIOURS',
      'DETERMINISTIC_DRIVER_DESCRIPTOR',
      'DETERMINISTIC_DRIVER_CONFIG_SCHEMA',
      'FakeControlPlane',
      'FAKE_CONTROL_PLANE_DOCUMENTS',
      'SeededPrng',
      'CONFORMANCE_STARTED_AT',
      'DEFAULT_CONFORMANCE_CHECK_TIMEOUT_MS',
      'HARNESS_DRIVER_CONFORMANCE_SCHEMA',
    ])
      expect(Object.keys(testing), old).not.toContain(old);
  });
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

  it("validates a config in upstream's shape {ok, config, issues}, with upstream's codes", async () => {
    const driver = new DeterministicHarnessDriver();
    const valid = { schema: DETERMINISTIC_HARNESS_DRIVER_CONFIG_SCHEMA, scenario: 'semantic-tool-success' };
    await expect(driver.validateConfig(valid)).resolves.toEqual({ ok: true, config: valid, issues: [] });
    const verdict = await driver.validateConfig({
      schema: 'other/v1',
      scenario: 'unknown',
      behaviour: 'explode',
      extra: true,
    });
    expect(verdict.ok).toBe(false);
    expect(verdict.config).toBeNull();
    expect(verdict.issues.map((issue) => [issue.path, issue.code]).sort()).toEqual(
      [
        ['/behaviour', 'invalid'],
        ['/extra', 'unknown_field'],
        ['/scenario', 'unsupported_scenario'],
        ['/schema', 'unsupported_schema'],
      ].sort(),
    );
    const conflicting = await driver.validateConfig({ ...valid, behaviour: 'fail' });
    expect(conflicting.issues.map((issue) => [issue.path, issue.code])).toEqual([
      ['/behaviour', 'scenario_conflict'],
    ]);
    await expect(driver.validateConfig({ ...valid, behaviour: 'succeed' })).resolves.toMatchObject({
      ok: true,
    });
    expect((await driver.validateConfig([])).issues).toEqual([
      expect.objectContaining({ path: '/', code: 'type' }),
    ]);
  });

  it('refuses an invalid config when opening a session', async () => {
    await expect(
      new DeterministicHarnessDriver().openSession({
        runId: 'run_1',
        sessionId: 's',
        config: { schema: DETERMINISTIC_HARNESS_DRIVER_CONFIG_SCHEMA, behaviour: 'explode' },
        startedAt: STARTED_AT,
      }),
    ).rejects.toMatchObject({
      code: 'harness_driver_config_invalid',
    });
  });

  it('describes itself as upstream does (async descriptor, upstream capability names, unsupported list)', async () => {
    const descriptor = await new DeterministicHarnessDriver().descriptor();
    expect(descriptor).toMatchObject({
      kind: 'paperclip-deterministic',
      displayName: 'Paperclip deterministic harness driver',
      version: '1.0.0',
      protocolVersion: 'prp.v1',
    });
    const { unsupported, ...flags } = descriptor.capabilities;
    for (const name of unsupported) expect(flags[name as keyof typeof flags], name).toBe(false);
    expect(unsupported).toEqual(['steering', 'runtimeRequestResolution', 'goals', 'threadLineage']);
  });

  it('reads a live session and reconciles its semantic tool index with its events', async () => {
    const session = await new DeterministicHarnessDriver().openSession({
      runId: 'run_1',
      sessionId: 's',
      config: config('deny_tool'),
      startedAt: STARTED_AT,
    });
    await session.runTurn({ turnId: 'turn_1', message: 'go' });
    const view = session.read();
    expect(view.events).toEqual(session.events());
    expect(view.activeTurnId).toBeNull();
    const { index, mismatches } = session.reconcile();
    expect(mismatches).toEqual([]);
    expect(index.calls.map((call) => call.operationId)).toEqual(['read_document', 'decide_approval']);
    expect(index.denials).toHaveLength(1);
  });

  it('keeps an interrupt turn active until it is interrupted, and refuses a second turn meanwhile', async () => {
    const driver = new DeterministicHarnessDriver();
    const session = await driver.openSession({
      runId: 'run_1',
      sessionId: 's',
      config: config('succeed'),
      startedAt: STARTED_AT,
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
      config: { schema: DETERMINISTIC_HARNESS_DRIVER_CONFIG_SCHEMA },
      startedAt: STARTED_AT,
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
    descriptor: () => base.descriptor(),
    validateConfig: (value) => base.validateConfig(value),
    openSession: (request) => base.openSession(request),
    resumeSession: (request) => base.resumeSession(request),
    ...overrides,
  });
  /** Runs the kit, expecting a throw; returns its message. */
  const failure = (run: Promise<unknown>): Promise<string> =>
    run.then(
      () => 'returned a report',
      (error: unknown) => (error instanceof Error ? error.message : String(error)),
    );

  const expectPassingReport = async (fixture?: HarnessDriverConformanceFixture): Promise<void> => {
    const failures: string[] = [];
    const report = await runHarnessDriverConformance({
      driver: new DeterministicHarnessDriver(),
      ...(fixture === undefined ? {} : { fixture }),
      onCheck: (name, passed, detail) => {
        if (!passed) failures.push(`${name}: ${detail}`);
      },
    });
    expect(failures).toEqual([]);
    expect(report).toMatchObject({
      schema: 'paperclip-runner/harness-driver-conformance-report/v1',
      contractVersion: 1,
      descriptor: await base.descriptor(),
      usage: { totalTokens: expect.any(Number) as unknown },
    });
    expect(report.checks).toEqual(
      Object.fromEntries(HARNESS_DRIVER_CONFORMANCE_CHECKS.map((name) => [name, true])),
    );
    expect(report.eventCount).toBeGreaterThan(0);
    expect(report.semanticToolCallCount).toBe(4);
  };

  it("passes the deterministic driver on every check of the shipped fixture, in upstream's report shape", async () => {
    await expectPassingReport();
  });

  describe.skipIf(!withUpstream)("on upstream's own conformance fixture (../shared)", () => {
    const upstream = (): HarnessDriverConformanceFixture =>
      parseHarnessDriverConformanceFixture(
        JSON.parse(
          readFileSync(join(UPSTREAM_FIXTURES_DIR, 'evals', 'harness-driver-conformance.json'), 'utf8'),
        ),
      );

    it('passes every check, with its config and capability names', async () => {
      const fixture = upstream();
      expect(fixture.validConfig).toMatchObject({ scenario: 'semantic-tool-success' });
      expect(fixture.requiredCapabilities).toContain('interruption');
      await expectPassingReport(fixture);
    });

    it('is the very fixture this package ships', async () => {
      expect(await loadHarnessDriverConformanceFixture()).toEqual(upstream());
    });
  });

  it('parses only a harness-driver-conformance-fixture/v1', () => {
    for (const bad of [null, {}, { schema: 'paperclip-runner/harness-driver-conformance-fixture/v1' }])
      expect(() => parseHarnessDriverConformanceFixture(bad)).toThrow(
        /invalid harness-driver conformance fixture/,
      );
  });

  it('throws for a driver that claims an unsupported feature it cannot do, naming the check', async () => {
    const descriptor = await base.descriptor();
    const liar = delegate({
      descriptor: () =>
        Promise.resolve({ ...descriptor, capabilities: { ...descriptor.capabilities, steering: true } }),
    });
    expect(await failure(runHarnessDriverConformance({ driver: liar }))).toMatch(
      /unsupportedFeatures \(capabilities\.unsupportedDescribed\): steering is declared true and unsupported/,
    );
  });

  it('throws for a driver that lacks a capability the fixture requires', async () => {
    const descriptor = await base.descriptor();
    const weak = delegate({
      descriptor: () =>
        Promise.resolve({ ...descriptor, capabilities: { ...descriptor.capabilities, read: false } }),
    });
    expect(await failure(runHarnessDriverConformance({ driver: weak }))).toMatch(
      /capabilityDescription \(capabilities\.described\): required capabilities not true: read/,
    );
  });

  it('throws, rather than hangs, for a driver whose interrupt never lands', async () => {
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
          read: () => session.read(),
          reconcile: () => session.reconcile(),
          snapshot: () => session.snapshot(),
          cancel: (reason) => session.cancel(reason),
          close: () => session.close(),
        };
        return forwarded;
      },
    });
    expect(await failure(runHarnessDriverConformance({ driver: deaf, checkTimeoutMs: 200 }))).toMatch(
      /interruptAndCancel \(interrupt\.terminal\)/,
    );
  });

  it('throws for a driver that accepts the invalid config, listing every failed check', async () => {
    const lax = delegate({
      validateConfig: (value: unknown) =>
        Promise.resolve({ ok: true as const, config: value, issues: [] as [] }),
    });
    const message = await failure(
      runHarnessDriverConformance({ driver: lax, fixture: await loadHarnessDriverConformanceFixture() }),
    );
    expect(message).toMatch(/failed conformance \(1\): configValidation \(config\.invalidRejected\)/);
  });
});
