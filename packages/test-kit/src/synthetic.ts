// Deterministic generator of valid native-execution/v1 bundles for examples, tests and benchmarks.
// Same options, same bytes: no clock, no randomness; times and ids derive from the options.
import { createHash } from 'node:crypto';

export interface SyntheticAttemptOptions {
  readonly runId?: string;
  readonly caseId?: string;
  readonly configId?: string;
  readonly attemptId?: string;
  readonly provenance?: 'seeded' | 'replay' | 'live';
  /** Semantic tool call pairs (input + result envelopes). */
  readonly toolCalls?: number;
  /** How many of those calls the runner denied (each with a denial receipt). */
  readonly deniedCalls?: number;
  /** Progress events between tool calls, each carrying `fillerBytes` of text. */
  readonly progressEvents?: number;
  readonly fillerBytes?: number;
  readonly runTerminalState?: 'succeeded' | 'failed' | 'cancelled';
  /** null: the provider reported no cost. */
  readonly costMicros?: number | null;
  readonly startedAtMs?: number;
  /** Makes the transcript incomplete (one event short), with this omission reason. */
  readonly transcriptOmission?: string;
}

type Json = Record<string, unknown>;

const digestOf = (text: string): string => `sha256:${createHash('sha256').update(text).digest('hex')}`;

/** A valid bundle as a plain JSON object. */
export function syntheticAttempt(options: SyntheticAttemptOptions = {}): Json {
  const runId = options.runId ?? 'run_synthetic';
  const caseId = options.caseId ?? 'case_synthetic';
  const configId = options.configId ?? 'config_synthetic';
  const attemptId = options.attemptId ?? 'attempt_synthetic_0001';
  const toolCalls = options.toolCalls ?? 2;
  const deniedCalls = Math.min(options.deniedCalls ?? 1, toolCalls);
  const progressEvents = options.progressEvents ?? 2;
  const fillerBytes = options.fillerBytes ?? 64;
  const startedAtMs = options.startedAtMs ?? Date.UTC(2026, 10, 1, 12, 0, 0);
  const runTerminalState = options.runTerminalState ?? 'succeeded';
  const instance = `runner_${attemptId}`;
  const session = `session_${attemptId}`;
  const turn = `turn_${attemptId}`;

  const events: Json[] = [];
  const calls: Json[] = [];
  const results: Json[] = [];
  const denials: Json[] = [];
  const envelope = (eventType: string, payload: Json, itemId?: string): Json => {
    const seq = events.length + 1;
    const event: Json = {
      schema: 'paperclip.prp.event.v1',
      sourceEventId: `${attemptId}_event_${String(seq).padStart(4, '0')}`,
      sourceSeq: seq,
      sourceInstanceId: instance,
      sourceKind: 'runner',
      runId,
      normalizedSessionId: session,
      turnId: turn,
      ...(itemId === undefined ? {} : { itemId }),
      eventType,
      schemaVersion: 1,
      priority: eventType === 'run.terminal' || eventType === 'run.result.proposed' ? 0 : 1,
      emittedAt: new Date(startedAtMs + seq * 10).toISOString(),
      payload,
    };
    events.push(event);
    return event;
  };
  const filler = (index: number): string => {
    const words = `progress ${index} of ${attemptId}: the agent reads, plans and edits. `;
    return words.repeat(Math.ceil(fillerBytes / words.length)).slice(0, fillerBytes);
  };

  envelope('turn.started', { channel: 'progress' });
  for (let call = 0; call < toolCalls; call++) {
    for (let p = 0; p < progressEvents; p++) {
      envelope('item.delta', { channel: 'progress', text: filler(call * progressEvents + p) });
    }
    const denied = call < deniedCalls;
    const callId = `call_${attemptId}_${call}`;
    const itemId = `item_${attemptId}_${call}`;
    const operationId = denied ? 'decide_approval' : 'read_document';
    const tool = (phase: 'input' | 'result'): Json => ({
      schema: 'paperclip.prp.semantic_tool.v1',
      schemaVersion: 1,
      phase,
      operationId,
      callId,
      correlation: { runId, normalizedSessionId: session, turnId: turn, itemId },
      idempotencyKey: `${callId}_key`,
      content: { digest: digestOf(`${callId}:${phase}`), redactionDisposition: 'redacted', references: [] },
    });
    const input = envelope('mcp_app.tool_input', { semantic_tool: tool('input') }, itemId);
    calls.push({ callId, operationId, eventId: input.sourceEventId });
    const outcome = denied ? 'denied' : 'succeeded';
    const code = denied ? 'required_claim_missing' : 'completed';
    const result = envelope(
      'mcp_app.tool_result',
      {
        semantic_tool: {
          ...tool('result'),
          outcome,
          code,
          retryable: false,
          authorizationBoundary: 'grant',
          operationReceiptId: `receipt_${callId}`,
        },
      },
      itemId,
    );
    results.push({ callId, operationId, eventId: result.sourceEventId, outcome });
    if (denied) denials.push({ callId, code, authorizationBoundary: 'grant', retryable: false });
  }
  envelope('run.result.proposed', {
    schema: 'paperclip.run_result.v1',
    reportedWorkDisposition: 'done',
    summary: `Synthetic attempt ${attemptId} finished.`,
    completionClaim: {
      contractRevision: 'synthetic-v1',
      objectiveSatisfied: true,
      criteria: [],
      remainingWork: [],
    },
    evidence: [],
    verification: [],
    attentionRequests: [],
    artifacts: [],
  });
  const terminal = {
    schema: 'paperclip.prp.terminal.v1',
    turnTerminalState:
      runTerminalState === 'succeeded' ? 'completed' : runTerminalState === 'failed' ? 'failed' : 'cancelled',
    runTerminalState,
    reportedWorkDisposition: 'done',
  };
  envelope('run.terminal', terminal);

  const inputTokens = 100 * (toolCalls + 1);
  const outputTokens = 40 * (toolCalls + 1);
  const artifactBase = `artifact://native/${attemptId}/`;
  return {
    schema: 'paperclip-runner/native-execution/v1',
    provenance: options.provenance ?? 'seeded',
    identity: { runId, caseId, configId, attemptId },
    input: {
      caseSha256: digestOf(`case:${caseId}`),
      configSha256: digestOf(`config:${configId}`),
      deterministicSeed: `seed_${attemptId}`,
    },
    runner: {
      package: { name: '@paperclipai/paperclip-runner', version: '0.1.0' },
      binary: { name: 'paperclip-runnerd', sha256: digestOf('paperclip-runnerd') },
      prpVersion: 1,
      nativeExecutionVersion: 1,
      catalogVersion: 1,
      catalogSha256: digestOf('catalog'),
      driverContractVersion: 1,
      driverKind: 'paperclip-deterministic',
      driverVersion: '1.0.0',
    },
    events,
    semanticTools: {
      definitions: [
        { operationId: 'read_document', schemaVersion: 1, availability: 'available' },
        { operationId: 'decide_approval', schemaVersion: 1, availability: 'denied' },
      ],
      calls,
      results,
      denials,
    },
    terminal: { ...terminal },
    observations: { checks: [{ id: 'synthetic-check', passed: runTerminalState === 'succeeded' }] },
    usage: {
      inputTokens,
      outputTokens,
      totalTokens: inputTokens + outputTokens,
      requestCount: toolCalls + 1,
      durationMs: events.length * 10,
      cost:
        options.costMicros === null
          ? null
          : { currency: 'USD', amountMicros: options.costMicros ?? 1250 * (toolCalls + 1) },
    },
    transcript: {
      uri: `${artifactBase}transcript.jsonl`,
      sha256: digestOf(`${attemptId}:transcript`),
      byteSize: 256 * events.length,
      mediaType: 'application/x-ndjson',
      complete: options.transcriptOmission === undefined,
      eventCount: options.transcriptOmission === undefined ? events.length : events.length - 1,
      omissionReason: options.transcriptOmission ?? null,
    },
    artifactRoot: {
      uri: artifactBase,
      sha256: digestOf(`${attemptId}:root`),
      byteSize: 4096,
      mediaType: 'application/vnd.paperclip.runner-artifact-root+json',
    },
    artifacts: [
      {
        uri: `${artifactBase}summary.json`,
        sha256: digestOf(`${attemptId}:summary`),
        byteSize: 512,
        mediaType: 'application/json',
      },
    ],
    failure:
      runTerminalState === 'succeeded'
        ? null
        : {
            classification: 'runner',
            code: `run_${runTerminalState}`,
            message: `The run ended ${runTerminalState}.`,
          },
  };
}
