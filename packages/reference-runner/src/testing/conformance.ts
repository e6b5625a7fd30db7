// The harness-driver conformance kit: drives any HarnessDriver through the contract (capabilities,
// config handling, open → turn → snapshot → recovery → close, cancel, interrupt, paired semantic
// tool events, PRP validity, usage and transcript accounting) without network or credentials,
// using a harness-driver-conformance-fixture/v1 (default: the one shipped in
// protocol/fixtures/evals/harness-driver-conformance.json). Like upstream's kit it returns a
// harness-driver-conformance-report/v1 whose ten checks are all true, or throws: ours runs every
// check first and its Error lists each one that failed, with why.
import { readFile } from 'node:fs/promises';

import { protocolFileUrl } from '../assets.js';
import { isPaperclipRunnerError } from '../errors.js';
import { validatePrpEvent, validatePrpTerminal } from '../prp.js';
import { HARNESS_DRIVER_CONTRACT_VERSION } from '../runner-contracts.js';
import { SCHEMA_IDS, schemaViolations } from '../schemas.js';

import type { PrpEvent } from '../prp.js';
import type {
  HarnessDriver,
  HarnessDriverDescriptor,
  NativeSession,
  NativeSessionSummary,
} from '../runner-contracts.js';

export const HARNESS_DRIVER_CONFORMANCE_REPORT_SCHEMA =
  'paperclip-runner/harness-driver-conformance-report/v1';
export const HARNESS_DRIVER_CONFORMANCE_FIXTURE_SCHEMA =
  'paperclip-runner/harness-driver-conformance-fixture/v1';
/** The fixture this package ships. */
export const harnessDriverConformanceFixtureUrl: URL = protocolFileUrl(
  'fixtures/evals/harness-driver-conformance.json',
);
const CHECK_TIMEOUT_MS = 10_000;
/** Conformance sessions start at this instant (time is data; nothing reads a clock). */
const CONFORMANCE_STARTED_AT = '2026-01-01T00:00:00.000Z';

export interface HarnessDriverConformanceFixture {
  readonly schema: typeof HARNESS_DRIVER_CONFORMANCE_FIXTURE_SCHEMA;
  readonly validConfig: unknown;
  readonly invalidConfig: unknown;
  readonly completionMessage: string;
  readonly interruptMessage: string;
  readonly requiredCapabilities: readonly string[];
  readonly unsupportedFeatures: readonly string[];
}

/** Upstream's ten check keys: a report is returned only when every one is true. */
export const HARNESS_DRIVER_CONFORMANCE_CHECKS = [
  'capabilityDescription',
  'configValidation',
  'sessionLifecycle',
  'sessionRecovery',
  'semanticTools',
  'eventValidation',
  'interruptAndCancel',
  'usage',
  'transcriptCompleteness',
  'unsupportedFeatures',
] as const;

export type HarnessDriverConformanceCheck = (typeof HARNESS_DRIVER_CONFORMANCE_CHECKS)[number];

export interface HarnessDriverConformanceReport {
  readonly schema: typeof HARNESS_DRIVER_CONFORMANCE_REPORT_SCHEMA;
  readonly contractVersion: typeof HARNESS_DRIVER_CONTRACT_VERSION;
  readonly descriptor: HarnessDriverDescriptor;
  readonly checks: Readonly<Record<HarnessDriverConformanceCheck, true>>;
  /** Events the lifecycle session emitted. */
  readonly eventCount: number;
  readonly semanticToolCallCount: number;
  /** The lifecycle session's usage when it closed. */
  readonly usage: NativeSessionSummary['usage'];
}

export interface RunHarnessDriverConformanceOptions {
  readonly driver: HarnessDriver;
  readonly fixture?: HarnessDriverConformanceFixture;
  /** How long one step may take before it fails (default 10 000 ms). */
  readonly checkTimeoutMs?: number;
  /** Told the outcome of each step (`<check>: <step>`), with why it failed. */
  readonly onCheck?: (name: string, passed: boolean, detail: string) => void;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const isText = (value: unknown): value is string => typeof value === 'string' && value.trim() !== '';
const isTextList = (value: unknown): value is string[] => Array.isArray(value) && value.every(isText);

/** A harness-driver-conformance-fixture/v1, checked; throws an Error naming the first bad field. */
export function parseHarnessDriverConformanceFixture(value: unknown): HarnessDriverConformanceFixture {
  const problem = !isRecord(value)
    ? 'the fixture is not an object'
    : value.schema !== HARNESS_DRIVER_CONFORMANCE_FIXTURE_SCHEMA
      ? `schema is not ${HARNESS_DRIVER_CONFORMANCE_FIXTURE_SCHEMA}`
      : !isRecord(value.validConfig) || !isRecord(value.invalidConfig)
        ? 'validConfig and invalidConfig must be objects'
        : !isText(value.completionMessage) || !isText(value.interruptMessage)
          ? 'completionMessage and interruptMessage must be non-empty strings'
          : !isTextList(value.requiredCapabilities) || !isTextList(value.unsupportedFeatures)
            ? 'requiredCapabilities and unsupportedFeatures must be lists of names'
            : null;
  if (problem !== null) throw new Error(`invalid harness-driver conformance fixture: ${problem}`);
  return value as HarnessDriverConformanceFixture;
}

/** Reads and parses a fixture (default: the one this package ships). */
export async function loadHarnessDriverConformanceFixture(
  url: URL = harnessDriverConformanceFixtureUrl,
): Promise<HarnessDriverConformanceFixture> {
  return parseHarnessDriverConformanceFixture(JSON.parse(await readFile(url, 'utf8')));
}

/** The session methods that exercise each unsupported feature. */
const FEATURE_PROBES: Record<string, (session: NativeSession) => Promise<void>> = {
  steering: (session) => session.steer('turn_probe', 'steer probe'),
  runtimeRequestResolution: (session) => session.resolveRuntimeRequest('request_probe', { action: 'accept' }),
};

/** Which of upstream's ten checks each of our steps counts toward. */
const STEP_CHECK: Record<string, HarnessDriverConformanceCheck> = {
  'capabilities.described': 'capabilityDescription',
  'capabilities.unsupportedDescribed': 'unsupportedFeatures',
  'config.validAccepted': 'configValidation',
  'config.invalidRejected': 'configValidation',
  'lifecycle.open': 'sessionLifecycle',
  'lifecycle.turn': 'sessionLifecycle',
  'lifecycle.snapshot': 'sessionLifecycle',
  'lifecycle.recovery': 'sessionRecovery',
  'lifecycle.close': 'sessionLifecycle',
  'lifecycle.cancel': 'interruptAndCancel',
  'interrupt.terminal': 'interruptAndCancel',
  'semanticTools.paired': 'semanticTools',
  'events.valid': 'eventValidation',
  'usage.reported': 'usage',
  'transcript.accounted': 'transcriptCompleteness',
};

const TURN_TERMINAL_EVENTS = new Set(['turn.completed', 'turn.failed', 'turn.interrupted', 'turn.cancelled']);

export async function runHarnessDriverConformance(
  options: RunHarnessDriverConformanceOptions,
): Promise<HarnessDriverConformanceReport> {
  const { driver, checkTimeoutMs = CHECK_TIMEOUT_MS } = options;
  const fixture = parseHarnessDriverConformanceFixture(
    options.fixture ?? (await loadHarnessDriverConformanceFixture()),
  );
  const descriptor = await driver.descriptor();
  const failures: string[] = [];
  const emitted: PrpEvent[] = [];
  const check = async (name: string, body: () => Promise<string | true> | string | true): Promise<void> => {
    let detail: string | true;
    let timer: NodeJS.Timeout | undefined;
    try {
      // A driver that never answers fails the check instead of hanging the kit.
      const timedOut = new Promise<string>((resolve) => {
        timer = setTimeout(() => {
          resolve(`no answer within ${checkTimeoutMs} ms`);
        }, checkTimeoutMs);
      });
      detail = await Promise.race([Promise.resolve().then(body), timedOut]);
    } catch (error) {
      detail = `threw ${error instanceof Error ? error.message : String(error)}`;
    } finally {
      clearTimeout(timer);
    }
    if (detail !== true) failures.push(`${STEP_CHECK[name] ?? name} (${name}): ${detail}`);
    options.onCheck?.(name, detail === true, detail === true ? 'ok' : detail);
  };
  const open = (sessionId: string, runId = `run_conformance_${sessionId}`): Promise<NativeSession> =>
    driver.openSession({ runId, sessionId, config: fixture.validConfig, startedAt: CONFORMANCE_STARTED_AT });
  const collect = (session: NativeSession): readonly PrpEvent[] => {
    const events = session.events();
    emitted.push(...events);
    return events;
  };

  const capabilities = descriptor.capabilities as unknown as Record<string, unknown>;
  await check('capabilities.described', () => {
    const named = ['resume', 'typedEvents', 'steering', 'interruption', 'structuredResult'];
    if (!isText(descriptor.kind) || !isText(descriptor.displayName) || !isText(descriptor.version))
      return 'descriptor kind, displayName and version must be non-empty';
    if (!/^prp\.v[1-9][0-9]*$/.test(descriptor.protocolVersion))
      return `protocolVersion ${descriptor.protocolVersion}`;
    const loose = named.filter((name) => typeof capabilities[name] !== 'boolean');
    const missing = fixture.requiredCapabilities.filter((name) => capabilities[name] !== true);
    if (loose.length > 0) return `capabilities not stated as booleans: ${loose.join(', ')}`;
    return missing.length === 0 ? true : `required capabilities not true: ${missing.join(', ')}`;
  });
  await check('capabilities.unsupportedDescribed', async () => {
    const session = await open('unsupported');
    try {
      const declared = capabilities.unsupported;
      if (!isTextList(declared)) return 'capabilities.unsupported is not a list of names';
      for (const feature of fixture.unsupportedFeatures) {
        if (!declared.includes(feature)) return `${feature} is not in capabilities.unsupported`;
        if (capabilities[feature] === true) return `${feature} is declared true and unsupported`;
        const probe = FEATURE_PROBES[feature];
        const outcome =
          probe === undefined
            ? 'rejected'
            : await probe(session).then(
                () => 'accepted',
                (error: unknown) =>
                  isPaperclipRunnerError(error) && error.code === 'harness_driver_feature_unsupported'
                    ? 'rejected'
                    : String(error),
              );
        if (outcome !== 'rejected') return `${feature} was not refused as unsupported: ${outcome}`;
      }
      return true;
    } finally {
      await session.close();
      collect(session);
    }
  });

  await check(
    'config.validAccepted',
    async () => (await driver.validateConfig(fixture.validConfig)).ok || 'validConfig was rejected',
  );
  await check('config.invalidRejected', async () => {
    const verdict = await driver.validateConfig(fixture.invalidConfig);
    if (verdict.ok) return 'validateConfig accepted invalidConfig';
    if (verdict.issues.length === 0) return 'validateConfig rejected invalidConfig without an issue';
    const opened = await driver
      .openSession({
        runId: 'run_conformance_invalid',
        sessionId: 'invalid',
        config: fixture.invalidConfig,
        startedAt: CONFORMANCE_STARTED_AT,
      })
      .then(
        () => 'opened',
        (error: unknown) => (isPaperclipRunnerError(error) ? error.code : String(error)),
      );
    return opened === 'harness_driver_config_invalid' || `openSession with invalidConfig: ${opened}`;
  });

  // The main lifecycle: open → turn → snapshot → recovery (a new session object) → turn → close.
  let first: NativeSession | undefined;
  let firstEvents: readonly PrpEvent[] = [];
  let recovered: NativeSession | undefined;
  let summary: NativeSessionSummary | undefined;
  await check('lifecycle.open', async () => {
    first = await open('lifecycle');
    return first.sessionId === 'lifecycle' || `opened session ${first.sessionId}`;
  });
  await check('lifecycle.turn', async () => {
    if (first === undefined) return 'no session';
    const outcome = await first.runTurn({ turnId: 'turn_lifecycle_1', message: fixture.completionMessage });
    const types = first
      .events()
      .filter((event) => event.turnId === 'turn_lifecycle_1')
      .map((event) => event.eventType);
    if (!types.includes('turn.started') || !types.some((type) => TURN_TERMINAL_EVENTS.has(type)))
      return `turn events: ${types.join(', ')}`;
    return outcome.state === 'completed' || `the completion turn ended ${outcome.state}`;
  });
  await check('lifecycle.snapshot', () => {
    if (first === undefined) return 'no session';
    const snapshot = first.snapshot();
    firstEvents = collect(first);
    const lastSeq = Math.max(...firstEvents.map((event) => event.sourceSeq));
    if (snapshot.lastSourceSeq !== lastSeq || snapshot.eventCount !== firstEvents.length)
      return 'snapshot does not account for the events';
    return (
      JSON.stringify(JSON.parse(JSON.stringify(snapshot))) === JSON.stringify(snapshot) ||
      'snapshot is not JSON'
    );
  });
  await check('lifecycle.recovery', async () => {
    if (first === undefined) return 'no session';
    const snapshot = JSON.parse(JSON.stringify(first.snapshot())) as ReturnType<NativeSession['snapshot']>;
    recovered = await driver.resumeSession({ snapshot });
    await recovered.runTurn({ turnId: 'turn_lifecycle_2', message: fixture.completionMessage });
    const seqs = recovered.events().map((event) => event.sourceSeq);
    const contiguous = seqs.every((seq, index) => seq === snapshot.lastSourceSeq + index + 1);
    if (recovered.sessionId !== first.sessionId) return 'the recovered session has another id';
    return contiguous || `recovered sourceSeq ${seqs.join(',')} does not continue ${snapshot.lastSourceSeq}`;
  });
  await check('lifecycle.close', async () => {
    if (recovered === undefined) return 'no recovered session';
    summary = await recovered.close();
    const events = collect(recovered);
    if (events.at(-1)?.eventType !== 'run.terminal') return 'run.terminal is not the last event';
    const after = await recovered
      .runTurn({ turnId: 'turn_after_close', message: fixture.completionMessage })
      .then(
        () => 'accepted',
        () => 'refused',
      );
    return after === 'refused' || 'a turn after close was accepted';
  });
  await check('lifecycle.cancel', async () => {
    const session = await open('cancel');
    const turn = session.runTurn({ turnId: 'turn_cancel', message: fixture.interruptMessage });
    const cancelled = await session.cancel('conformance cancel');
    const outcome = await turn;
    collect(session);
    const { turnTerminalState, runTerminalState } = cancelled.terminal;
    if (outcome.state !== 'cancelled') return `the active turn ended ${outcome.state}`;
    return (
      (turnTerminalState === 'cancelled' && runTerminalState === 'cancelled') ||
      `terminal ${turnTerminalState}/${runTerminalState}`
    );
  });
  await check('interrupt.terminal', async () => {
    const session = await open('interrupt');
    const settled = { value: false };
    const turn = session
      .runTurn({ turnId: 'turn_interrupt', message: fixture.interruptMessage })
      .finally(() => {
        settled.value = true;
      });
    await new Promise<void>((resolve) => {
      setImmediate(resolve);
    });
    if (settled.value) return 'the interrupt turn ended before it was interrupted';
    await session.interrupt('turn_interrupt');
    const outcome = await turn;
    const closed = await session.close();
    const events = collect(session);
    if (!events.some((event) => event.eventType === 'turn.interrupted')) return 'no turn.interrupted event';
    return (
      (outcome.state === 'interrupted' && closed.terminal.turnTerminalState === 'interrupted') ||
      `ended ${outcome.state}/${closed.terminal.turnTerminalState}`
    );
  });

  await check('semanticTools.paired', () => {
    const inputs = new Map<string, PrpEvent>();
    const results = new Set<string>();
    for (const event of emitted) {
      const tool = event.payload.semantic_tool as { callId?: string; operationId?: string } | undefined;
      if (tool?.callId === undefined) continue;
      const key = `${event.runId}/${tool.callId}`;
      if (event.eventType === 'mcp_app.tool_input') {
        if (inputs.has(key)) return `call ${key} has two inputs`;
        inputs.set(key, event);
      } else if (event.eventType === 'mcp_app.tool_result') {
        const input = inputs.get(key);
        if (input === undefined || results.has(key)) return `result ${key} has no single input before it`;
        if ((input.payload.semantic_tool as { operationId?: string }).operationId !== tool.operationId)
          return `result ${key} reinterprets its operation`;
        results.add(key);
      }
    }
    if (inputs.size === 0) return 'no semantic tool calls were made';
    return inputs.size === results.size || `${inputs.size - results.size} calls have no result`;
  });
  await check('events.valid', () => {
    const invalid = emitted.flatMap((event) => {
      const errors = [...validatePrpEvent(event).errors];
      if (event.eventType === 'run.terminal') errors.push(...validatePrpTerminal(event.payload).errors);
      if (event.eventType === 'usage.reported')
        errors.push(...schemaViolations(SCHEMA_IDS.prpUsageV1, event.payload));
      return errors.map((error) => `${event.sourceEventId}${error.path}: ${error.message}`);
    });
    if (emitted.length === 0) return 'no events';
    return invalid.length === 0 || invalid.slice(0, 5).join('; ');
  });
  await check('usage.reported', () => {
    if (summary === undefined) return 'no closed lifecycle session';
    const { usage } = summary;
    if (usage.totalTokens !== usage.inputTokens + usage.outputTokens)
      return 'totalTokens is not input + output';
    const reports = emitted.filter(
      (event) => event.runId === 'run_conformance_lifecycle' && event.eventType === 'usage.reported',
    );
    const sum = { inputTokens: 0, outputTokens: 0, requests: 0 };
    for (const report of reports) {
      const delta = report.payload.runDelta as typeof sum;
      sum.inputTokens += delta.inputTokens;
      sum.outputTokens += delta.outputTokens;
      sum.requests += delta.requests;
    }
    if (reports.length === 0) return 'no usage.reported events';
    return (
      (sum.inputTokens === usage.inputTokens &&
        sum.outputTokens === usage.outputTokens &&
        sum.requests === usage.requestCount) ||
      'usage.reported deltas do not add up to the session usage'
    );
  });
  await check('transcript.accounted', () => {
    if (summary === undefined) return 'no closed lifecycle session';
    const events = emitted.filter((event) => event.runId === 'run_conformance_lifecycle');
    const contiguous = events.every((event, index) => event.sourceSeq === index + 1);
    if (!contiguous) return 'the lifecycle stream has gaps or repeats';
    const { transcript } = summary;
    if (transcript.complete)
      return (
        (transcript.eventCount === events.length && transcript.omissionReason === null) ||
        'a complete transcript must hold every event'
      );
    return (
      (transcript.eventCount < events.length && (transcript.omissionReason ?? '').trim() !== '') ||
      'an incomplete transcript must say what it omits'
    );
  });

  if (failures.length > 0) {
    throw new Error(
      `harness driver ${descriptor.kind} failed conformance (${failures.length}): ${failures.join('; ')}`,
    );
  }
  if (summary === undefined) throw new Error('internal: the lifecycle session did not close');
  const lifecycleEvents = emitted.filter((event) => event.runId === 'run_conformance_lifecycle');
  return {
    schema: HARNESS_DRIVER_CONFORMANCE_REPORT_SCHEMA,
    contractVersion: HARNESS_DRIVER_CONTRACT_VERSION,
    descriptor: {
      ...descriptor,
      capabilities: { ...descriptor.capabilities, unsupported: [...descriptor.capabilities.unsupported] },
    },
    checks: Object.fromEntries(HARNESS_DRIVER_CONFORMANCE_CHECKS.map((name) => [name, true])) as Record<
      HarnessDriverConformanceCheck,
      true
    >,
    eventCount: lifecycleEvents.length,
    semanticToolCallCount: lifecycleEvents.filter((event) => event.eventType === 'mcp_app.tool_input').length,
    usage: summary.usage,
  };
}
