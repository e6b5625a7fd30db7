// One eval attempt, end to end: runs the deterministic driver on one attempt's input and turns what
// the session left (events, semantic index, usage with its nanodollar cost figures, transcript,
// outputs) into a native-execution/v1 bundle plus the files it references, each with its real sha256
// and size. The eval-session bin (src/cli/eval-session.ts) and the seeded fixture use it.
// Pure apart from the driver and the turn timeout's timer: no clock read, no network, no file system
// (the caller writes the files).
import { createHash } from 'node:crypto';

import { CONTRACT_VERSIONS, PACKAGE_NAME, RUNNERD_BINARY_NAME, packageVersion } from '../build-info.js';
import { parsePaperclipNativeExecution } from '../evals/native-execution.js';
import {
  PAPERCLIP_RUNNER_SEMANTIC_CATALOG_SHA256,
  SEMANTIC_CATALOG_VERSION,
  capabilitySemanticToolDescriptor,
} from '../semantic-catalog.js';
import {
  DETERMINISTIC_DRIVER_DESCRIPTOR,
  DETERMINISTIC_HARNESS_DRIVER_CONFIG_SCHEMA,
  DeterministicHarnessDriver,
} from '../testing/deterministic-driver.js';
import { FakeControlPlane } from '../testing/fake-control-plane.js';
import { evalSessionCost } from './eval-session-cost.js';

import type { NativeExecutionContentRef, PaperclipNativeExecutionV1 } from '../evals/native-execution.js';
import type { PrpTerminal } from '../prp.js';
import type { NativeSessionSnapshot, NativeSessionSummary, NativeUsage } from '../runner-contracts.js';
import type {
  DeterministicBehaviour,
  DeterministicHarnessDriverConfig,
  DeterministicPricing,
} from '../testing/deterministic-driver.js';
import type { EstimatePricing } from './eval-session-cost.js';

type TurnTerminalState = PrpTerminal['turnTerminalState'];
type RunFailure = NativeSessionSummary['failure'];

/** One attempt of one case under one config, with everything that makes it reproducible. */
export interface NativeAttemptInput {
  readonly runId: string;
  readonly caseId: string;
  readonly configId: string;
  readonly attemptId: string;
  readonly caseSha256: string;
  readonly configSha256: string;
  readonly seed: string;
  /** When the attempt starts (RFC 3339); every event time derives from it. */
  readonly startedAt: string;
  /** Default `succeed`. */
  readonly behaviour?: DeterministicBehaviour;
  /** The case's instruction to the agent. */
  readonly prompt?: string;
  readonly model?: string;
  /** The provider's price list; null: the provider reports no cost. Default: the driver's list. */
  readonly pricing?: DeterministicPricing | null;
  /**
   * A USD price list to estimate cost with (usage.estimatedCostNanodollars + pricingVersion).
   * Absent: no estimate, so an attempt without a provider receipt is unpriced.
   */
  readonly estimatePricing?: EstimatePricing;
  readonly budget?: { readonly maxTotalTokens: number };
}

/** What the turn left, for a caller that judges it before the bundle is made. */
export interface EvalSessionTurnFacts {
  readonly turnId: string;
  readonly state: TurnTerminalState;
  /** The turn did not end within turnTimeoutMs; the session was cancelled. */
  readonly timedOut: boolean;
  /** The driver's usage, its receipt in usage.cost as the driver reported it. */
  readonly usage: NativeUsage;
  readonly failure: RunFailure;
}

export interface EvalSessionOptions {
  /** The turn's wall-clock limit; past it the session is cancelled (timedOut). Default: none. */
  readonly turnTimeoutMs?: number;
  /**
   * Called once the session has ended: the bundle's usage cost figures (replacing the default
   * evalSessionCost of the receipt) and the failure to record (replacing the driver's).
   */
  readonly judge?: (facts: EvalSessionTurnFacts) => {
    readonly usage: NativeUsage & Readonly<Record<string, unknown>>;
    readonly failure: RunFailure;
  };
}

export const DEFAULT_EVAL_PROMPT = 'Summarise the quarterly incident review in the brief document.';
export const ARTIFACT_ROOT_MEDIA_TYPE = 'application/vnd.paperclip.runner-artifact-root+json';
export const ARTIFACT_ROOT_FILE = 'artifact-root.json';
export const TRANSCRIPT_FILE = 'transcript.jsonl';

/** A file the bundle references, relative to the bundle's directory (`<attemptId>/<name>`). */
export interface EvalSessionFile {
  readonly relativePath: string;
  readonly bytes: Buffer;
}

export interface EvalSessionOutcome {
  readonly bundle: PaperclipNativeExecutionV1;
  /** The bundle as written: JSON, two-space indented, one trailing newline. */
  readonly bundleText: string;
  readonly files: readonly EvalSessionFile[];
  /** True when the attempt failed for infrastructure reasons (runnerd exits 2). */
  readonly infrastructureFailure: boolean;
  readonly turn: EvalSessionTurnFacts;
  /** The session's snapshot after the turn; null when it was cancelled mid-turn or its harness died. */
  readonly snapshot: NativeSessionSnapshot | null;
  /** What the agent said last (its result summary, or its last step), '' when nothing. */
  readonly assistantText: string;
}

export interface EvalSessionRunner {
  /** The digest of the runnerd executable running the session. */
  readonly binarySha256: string;
}

const sha256Of = (bytes: Buffer): string => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
const jsonBytes = (value: unknown): Buffer => Buffer.from(`${JSON.stringify(value, null, 2)}\n`, 'utf8');

export async function runEvalSession(
  request: NativeAttemptInput,
  runner: EvalSessionRunner,
  options: EvalSessionOptions = {},
): Promise<EvalSessionOutcome> {
  const { runId, attemptId } = request;
  const driver = new DeterministicHarnessDriver();
  const config: DeterministicHarnessDriverConfig = {
    schema: DETERMINISTIC_HARNESS_DRIVER_CONFIG_SCHEMA,
    behaviour: request.behaviour ?? 'succeed',
    seed: request.seed,
    ...(request.model === undefined ? {} : { model: request.model }),
    ...(request.pricing === undefined ? {} : { pricing: request.pricing }),
    ...(request.budget === undefined ? {} : { budget: request.budget }),
  };
  const session = await driver.openSession({
    runId,
    sessionId: `session_${attemptId}`,
    config,
    startedAt: request.startedAt,
    controlPlane: new FakeControlPlane(),
  });
  const turnId = `turn_${attemptId}_1`;
  const ran = await withinTimeout(
    session.runTurn({ turnId, message: request.prompt ?? DEFAULT_EVAL_PROMPT }),
    options.turnTimeoutMs,
  );
  const timedOut = ran === 'timed_out';
  let snapshot: NativeSessionSnapshot | null = null;
  try {
    if (!timedOut) snapshot = session.snapshot();
  } catch {
    // A session whose harness died can only be closed: there is no snapshot to take.
  }
  const summary = timedOut
    ? await session.cancel(`the provider turn timed out after ${String(options.turnTimeoutMs)} ms`)
    : await session.close();
  const events = session.events();
  const turn: EvalSessionTurnFacts = {
    turnId,
    state: timedOut ? 'cancelled' : ran.state,
    timedOut,
    usage: summary.usage,
    failure: summary.failure,
  };
  const judged = options.judge?.(turn) ?? {
    usage: { ...summary.usage, ...evalSessionCost(summary.usage, request.estimatePricing) },
    failure: summary.failure,
  };

  const files: EvalSessionFile[] = [];
  const reference = (name: string, mediaType: string, bytes: Buffer): NativeExecutionContentRef => {
    files.push({ relativePath: `${attemptId}/${name}`, bytes });
    return {
      uri: `artifact://native/${attemptId}/${name}`,
      sha256: sha256Of(bytes),
      byteSize: bytes.length,
      mediaType,
    };
  };

  const transcriptEvents = events.slice(0, summary.transcript.eventCount);
  const transcriptBytes = Buffer.from(
    transcriptEvents.map((event) => `${JSON.stringify(event)}\n`).join(''),
    'utf8',
  );
  const transcript = reference(TRANSCRIPT_FILE, 'application/x-ndjson', transcriptBytes);

  const artifacts: NativeExecutionContentRef[] = [];
  if (summary.result !== null)
    artifacts.push(reference('result.json', 'application/json', jsonBytes(summary.result)));
  for (const output of summary.outputs) {
    artifacts.push(reference(output.name, output.mediaType, Buffer.from(output.text, 'utf8')));
  }
  for (const denial of summary.semanticTools.denials) {
    const resultEvent = events.find(
      (event) =>
        event.eventType === 'mcp_app.tool_result' &&
        (event.payload.semantic_tool as { callId?: string }).callId === denial.callId,
    );
    artifacts.push(
      reference(
        `denial-${denial.callId}.json`,
        'application/json',
        jsonBytes({ denial, result: resultEvent?.payload.semantic_tool }),
      ),
    );
  }
  const artifactRootBytes = jsonBytes({
    schema: 'paperclip-runner/artifact-root/v1',
    attemptId,
    transcript,
    artifacts,
  });
  files.push({ relativePath: `${attemptId}/${ARTIFACT_ROOT_FILE}`, bytes: artifactRootBytes });
  const artifactRoot: NativeExecutionContentRef = {
    uri: `artifact://native/${attemptId}/`,
    sha256: sha256Of(artifactRootBytes),
    byteSize: artifactRootBytes.length,
    mediaType: ARTIFACT_ROOT_MEDIA_TYPE,
  };

  const { calls, results, denials } = summary.semanticTools;
  const operations = [...new Set(calls.map((call) => call.operationId))];
  const bundle: PaperclipNativeExecutionV1 = {
    schema: 'paperclip-runner/native-execution/v1',
    provenance: 'seeded',
    identity: { runId, caseId: request.caseId, configId: request.configId, attemptId },
    input: {
      caseSha256: request.caseSha256,
      configSha256: request.configSha256,
      deterministicSeed: request.seed,
    },
    runner: {
      package: { name: PACKAGE_NAME, version: packageVersion() },
      binary: { name: RUNNERD_BINARY_NAME, sha256: runner.binarySha256 },
      prpVersion: CONTRACT_VERSIONS.prp,
      nativeExecutionVersion: CONTRACT_VERSIONS.nativeExecution,
      catalogVersion: SEMANTIC_CATALOG_VERSION,
      catalogSha256: PAPERCLIP_RUNNER_SEMANTIC_CATALOG_SHA256,
      driverContractVersion: CONTRACT_VERSIONS.harnessDriver,
      driverKind: DETERMINISTIC_DRIVER_DESCRIPTOR.kind,
      driverVersion: DETERMINISTIC_DRIVER_DESCRIPTOR.version,
    },
    events,
    semanticTools: {
      definitions: operations.map((operationId) => ({
        operationId,
        schemaVersion: capabilitySemanticToolDescriptor(operationId)?.schemaVersion ?? 1,
        availability: results.some(
          (result) => result.operationId === operationId && result.outcome === 'denied',
        )
          ? 'denied'
          : 'available',
      })),
      calls: calls.map(({ callId, operationId, eventId }) => ({ callId, operationId, eventId })),
      results: results.map(({ callId, operationId, eventId, outcome }) => ({
        callId,
        operationId,
        eventId,
        outcome,
      })),
      denials: denials.map(({ callId, code, authorizationBoundary, retryable }) => ({
        callId,
        code,
        authorizationBoundary,
        retryable,
      })),
    },
    terminal: summary.terminal,
    observations: { checks: observationChecks(summary.result, results) },
    usage: judged.usage,
    transcript: { ...transcript, ...summary.transcript },
    artifactRoot,
    artifacts,
    failure: judged.failure,
  };
  parsePaperclipNativeExecution(bundle); // never write a bundle the package's own parser refuses
  return {
    bundle,
    bundleText: `${JSON.stringify(bundle, null, 2)}\n`,
    files,
    infrastructureFailure: judged.failure?.classification === 'infrastructure',
    turn,
    snapshot,
    assistantText: assistantText(summary.result, events),
  };
}

/** The turn's outcome, or 'timed_out' when it has not ended within `ms` (no limit: undefined). */
async function withinTimeout<T>(turn: Promise<T>, ms: number | undefined): Promise<T | 'timed_out'> {
  if (ms === undefined) return turn;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timed_out'>((resolve) => {
    timer = setTimeout(() => {
      resolve('timed_out');
    }, ms);
  });
  try {
    return await Promise.race([turn, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function assistantText(
  result: Readonly<Record<string, unknown>> | null,
  events: readonly { eventType: string; payload: Readonly<Record<string, unknown>> }[],
): string {
  if (typeof result?.summary === 'string') return result.summary;
  const step = events.findLast((event) => typeof event.payload.text === 'string');
  return typeof step?.payload.text === 'string' ? step.payload.text : '';
}

function observationChecks(
  result: Readonly<Record<string, unknown>> | null,
  results: readonly { callId: string; operationId: string; outcome: string; operationReceiptId: string }[],
): Record<string, unknown>[] {
  const claim = result?.completionClaim as { objectiveSatisfied?: unknown } | undefined;
  return [
    { id: 'result-proposed', passed: result !== null },
    { id: 'objective-satisfied', passed: claim?.objectiveSatisfied === true },
    ...results.map((entry) => ({
      id: `tool:${entry.operationId}:${entry.callId}`,
      passed: entry.outcome === 'succeeded',
      outcome: entry.outcome,
      receiptId: entry.operationReceiptId,
    })),
  ];
}
