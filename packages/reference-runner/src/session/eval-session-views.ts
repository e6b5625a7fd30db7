// The two views upstream's eval-session writes into a success artifact beside the session's snapshot:
// `devtools` (upstream's CapabilityDevtoolsSnapshot, schema paperclip.capability.devtools.v1, what its
// projectCapabilityDevtools makes of the live snapshot) and `issueThread` (upstream's
// CapabilityIssueThreadSnapshot, schema paperclip.capability.issue-thread-view.v1, what its
// projectCapabilityIssueThread makes of it in mode `live`). Upstream projects its live session's
// records (mock company state, evidence entries, transcript, authorization records); this runner has
// none of those, so both are projected from what the deterministic session left: its PRP events, its
// semantic tool index and the catalog. Same names and shapes; the values a stand-in cannot have are
// said in docs/app-surface.md. Pure: every time comes from the events or the caller.
import { CAPABILITY_SEMANTIC_TOOL_CATALOG, capabilitySemanticToolDescriptor } from '../semantic-catalog.js';

import type { PrpEvent } from '../prp.js';

export const CAPABILITY_DEVTOOLS_SCHEMA = 'paperclip.capability.devtools.v1';
export const CAPABILITY_ISSUE_THREAD_VIEW_SCHEMA = 'paperclip.capability.issue-thread-view.v1';

type Json = null | boolean | number | string | readonly Json[] | { readonly [key: string]: Json };

export interface CapabilityDevtoolsRevision {
  readonly revision: number;
  readonly at: string;
  readonly turnId: string | null;
  readonly operationId: string;
  readonly state: Json;
}

export interface CapabilityDevtoolsProtocolRecord {
  readonly id: string;
  readonly at: string;
  readonly turnId: string | null;
  readonly boundary: string;
  readonly event: string;
  readonly detail: Json;
}

export interface CapabilityDevtoolsSnapshot {
  readonly schema: typeof CAPABILITY_DEVTOOLS_SCHEMA;
  readonly currentRevision: number;
  readonly revisions: readonly CapabilityDevtoolsRevision[];
  readonly protocol: readonly CapabilityDevtoolsProtocolRecord[];
  readonly runtime: Json;
  readonly authority: Json;
  /** Upstream's: only an explicitly traced run has one; an ordinary snapshot says null. */
  readonly providerTrace: null;
}

export interface CapabilityEvidenceRef {
  readonly section: 'tools' | 'calls' | 'authorization' | 'control_plane' | 'runner' | 'state';
  readonly recordId: string;
}

export type CapabilityThreadItem =
  | {
      readonly kind: 'user_message';
      readonly id: string;
      readonly at: string;
      readonly author: string;
      readonly body: string;
    }
  | {
      readonly kind: 'agent_message';
      readonly id: string;
      readonly at: string;
      readonly author: string;
      readonly body: string;
      readonly streaming: boolean;
    }
  | {
      readonly kind: 'tool_activity';
      readonly id: string;
      readonly at: string;
      readonly status: 'ok' | 'denied' | 'running';
      readonly operationId: string;
      readonly summary: string;
      readonly input: Json;
      readonly result: Json;
      readonly evidenceRef: CapabilityEvidenceRef;
    }
  | {
      readonly kind: 'denial';
      readonly id: string;
      readonly at: string;
      readonly operationId: string;
      readonly reason: string;
      readonly evidenceRef: CapabilityEvidenceRef;
    };

export interface CapabilityThreadTurn {
  readonly id: string;
  readonly ordinal: number;
  readonly mode: 'live';
  readonly toolCallCount: number;
  readonly at: string;
  readonly stoppedByUser: boolean;
  readonly items: readonly CapabilityThreadItem[];
}

export interface CapabilityIssueThreadSnapshot {
  readonly schema: typeof CAPABILITY_ISSUE_THREAD_VIEW_SCHEMA;
  readonly sessionId: string;
  readonly mode: 'live';
  readonly identity: {
    readonly agentLabel: string;
    readonly runnerLabel: string;
    readonly runnerAttached: boolean;
    readonly controlPlaneLabel: string;
    readonly controlPlaneTooltip: string;
    readonly replaySource: 'live';
  };
  readonly issue: {
    readonly identifier: string;
    readonly title: string;
    readonly status: 'in_progress';
    readonly priority: 'medium';
    readonly assignee: null;
    readonly runState: string;
    readonly scenarioId: string;
    readonly fixtureProfile: string;
  };
  readonly turns: readonly CapabilityThreadTurn[];
  readonly composer: {
    readonly state: 'disabled';
    readonly helper: null;
    readonly reason: string;
    readonly pendingInteractionId: null;
  };
  readonly evidence: {
    readonly tools: readonly Json[];
    readonly calls: readonly Json[];
    readonly authorization: readonly Json[];
    readonly control_plane: readonly Json[];
    readonly runner: readonly Json[];
    readonly state: readonly Json[];
    readonly traceability: readonly Json[];
    readonly parity: readonly Json[];
  };
  readonly connection: { readonly state: 'closed'; readonly attempt: 0 };
  readonly replay: null;
  readonly renderedAt: string;
}

/** What the views are made of: the session's events and index, and the request's facts. */
export interface EvalSessionViewInput {
  readonly events: readonly PrpEvent[];
  /** The driver's session id (upstream's live session id). */
  readonly sessionId: string;
  readonly providerSessionId: string;
  readonly runId: string;
  readonly caseId: string;
  readonly prompt: string;
  readonly model: string;
  /** The deterministic behaviour (upstream's scenario). */
  readonly scenario: string;
  readonly turnTimeoutMs: number;
  /** The session's status when it ended (the snapshot's). */
  readonly status: string;
  readonly startedAt: string;
  readonly finishedAt: string;
  /** The usage receipts the snapshot carries (upstream's usageLedger). */
  readonly usageLedger: readonly unknown[];
}

/** The agent's label in the view (upstream names its providers: `Real Codex`, …; ours is a stand-in). */
export const DETERMINISTIC_AGENT_LABEL = 'Paperclip deterministic agent';
const TURN_ZERO = 'turn-0';
const REDACTED = '[redacted]';
const WITHHELD = '[withheld]';

// What upstream's devtools projection withholds from a browser (the facts of its rule, written our
// way): a member named like a credential, and a text holding one — a bearer token, an `sk_` / `pcp_`
// key, an api-key assignment, the names PAPERCLIP_API_KEY / OPENAI_API_KEY — become `[redacted]`.
const CREDENTIAL_NAMES = new Set(['apikey', 'accesstoken', 'refreshtoken']);
const CREDENTIAL_WORDS = new Set(['authorization', 'apikey', 'token', 'secret', 'password']);
function isCredentialMember(member: string): boolean {
  const lower = member.toLowerCase();
  if (CREDENTIAL_NAMES.has(lower)) return true;
  // The words of a snake- or kebab-cased name (api_key, x-auth-token, db_password).
  const words = lower.split(/[_-]/);
  return (
    words.some((word) => CREDENTIAL_WORDS.has(word)) ||
    words.some((word, at) => word === 'api' && words[at + 1] === 'key')
  );
}
const CREDENTIAL_TEXT: readonly RegExp[] = [
  /bearer\s+[a-z0-9._-]+/i,
  /(?:^|[^a-z0-9])(?:sk|pcp)_[a-z0-9._-]{8,}/i,
  /api[_-]?key\s*[:=]/i,
  /PAPERCLIP_API_KEY|OPENAI_API_KEY/i,
];

function redacted(value: unknown, member = ''): Json {
  if (isCredentialMember(member)) return REDACTED;
  if (value === null || typeof value === 'boolean' || typeof value === 'number') return value;
  if (typeof value === 'string') return CREDENTIAL_TEXT.some((shape) => shape.test(value)) ? REDACTED : value;
  if (Array.isArray(value)) return value.map((entry) => redacted(entry));
  if (typeof value !== 'object') return typeof value === 'bigint' ? value.toString() : null;
  return Object.fromEntries(Object.entries(value).map(([key, entry]) => [key, redacted(entry, key)]));
}

/** Upstream's evidence-entry kind of a PRP event (its devtools `event`, its boundary's input). */
function evidenceKind(eventType: string): string {
  if (eventType === 'mcp_app.tool_input') return 'tool_call';
  if (eventType === 'mcp_app.tool_result') return 'tool_result';
  if (eventType.startsWith('session.') || eventType.startsWith('run.')) return 'session';
  return 'provider_event';
}

/** Upstream's boundary of an evidence kind. */
function boundaryOf(kind: string): string {
  if (kind === 'tool_call' || kind === 'tool_result' || kind === 'tool_discovery') return 'semantic tool';
  if (kind === 'provider_event') return 'provider harness';
  if (kind === 'process') return 'runnerd process';
  if (kind === 'interaction') return 'mock control plane';
  return 'live session';
}

interface SemanticPayload {
  readonly callId?: string;
  readonly operationId?: string;
  readonly schemaVersion?: number;
  readonly outcome?: string;
  readonly code?: string;
}

const semanticOf = (event: PrpEvent): SemanticPayload =>
  (event.payload as { semantic_tool?: SemanticPayload }).semantic_tool ?? {};

interface Call {
  readonly callId: string;
  readonly operationId: string;
  readonly version: number;
  readonly turnId: string;
  readonly at: string;
  readonly outcome: 'succeeded' | 'denied' | 'failed' | null;
  readonly code: string | null;
  /** The control plane's revision before the call, and after it (null: no result yet). */
  readonly beforeRevision: number;
  readonly afterRevision: number | null;
}

/**
 * Every semantic call in event order with its result and the control plane's revision around it:
 * each succeeded call of an effect other than `read` is one state change (upstream's stateHistory
 * keeps one revision per change).
 */
function callsOf(events: readonly PrpEvent[]): Call[] {
  const calls = new Map<string, Call>();
  let revision = 0;
  for (const event of events) {
    const tool = semanticOf(event);
    if (tool.callId === undefined) continue;
    if (event.eventType === 'mcp_app.tool_input' && !calls.has(tool.callId))
      calls.set(tool.callId, {
        callId: tool.callId,
        operationId: tool.operationId ?? '',
        version: tool.schemaVersion ?? 1,
        turnId: event.turnId ?? TURN_ZERO,
        at: event.emittedAt,
        outcome: null,
        code: null,
        beforeRevision: revision,
        afterRevision: null,
      });
    if (event.eventType === 'mcp_app.tool_result') {
      const call = calls.get(tool.callId);
      if (call === undefined) continue;
      const outcome = tool.outcome === 'succeeded' || tool.outcome === 'denied' ? tool.outcome : 'failed';
      const changes =
        outcome === 'succeeded' && capabilitySemanticToolDescriptor(call.operationId)?.effect !== 'read';
      if (changes) revision += 1;
      calls.set(tool.callId, { ...call, outcome, code: tool.code ?? null, afterRevision: revision });
    }
  }
  return [...calls.values()];
}

/** The control plane's public state at a revision (upstream's is the mock company's; ours has only its revision). */
const stateAt = (revision: number): Json => ({ revision });

export function evalSessionDevtools(input: EvalSessionViewInput): CapabilityDevtoolsSnapshot {
  const calls = callsOf(input.events);
  const changes = calls.filter(
    (call) => call.afterRevision !== null && call.afterRevision !== call.beforeRevision,
  );
  return {
    schema: CAPABILITY_DEVTOOLS_SCHEMA,
    currentRevision: changes.at(-1)?.afterRevision ?? 0,
    revisions: [
      { revision: 0, at: input.startedAt, turnId: null, operationId: 'fixture.seed', state: stateAt(0) },
      ...changes.map((call) => ({
        revision: call.afterRevision ?? 0,
        at: resultAt(input.events, call.callId) ?? call.at,
        turnId: call.turnId,
        operationId: call.operationId,
        state: stateAt(call.afterRevision ?? 0),
      })),
    ],
    protocol: input.events.map((event) => {
      const kind = evidenceKind(event.eventType);
      return {
        id: event.sourceEventId,
        at: event.emittedAt,
        turnId: event.turnId ?? null,
        boundary: boundaryOf(kind),
        event: kind,
        detail: redacted({ eventType: event.eventType, payload: event.payload }),
      };
    }),
    runtime: redacted({
      status: input.status,
      activeTurnId: null,
      providerSessionId: input.providerSessionId,
      providerModel: input.model,
      // No runnerd process is attached to a direct deterministic session, and nothing reached a network.
      process: null,
      network: { realPaperclipRequests: 0, childPaperclipEnvironmentKeys: [] },
      attempts: [],
      currentAttemptId: null,
      terminalTurns: [],
      usageLedger: input.usageLedger,
      toolExposure: 'eager',
      loadedOperationIds: [...new Set(calls.map((call) => call.operationId))],
      createdAt: input.startedAt,
      updatedAt: input.finishedAt,
    }),
    authority: redacted({
      runId: input.runId,
      sessionId: input.sessionId,
      scenario: input.scenario,
      effectiveCapabilities: [],
      explicitClaims: [],
      turnTimeoutMs: input.turnTimeoutMs,
      toolExposure: 'eager',
      workingDirectory: WITHHELD,
    }),
    providerTrace: null,
  };
}

function resultAt(events: readonly PrpEvent[], callId: string): string | undefined {
  return events.find(
    (event) => event.eventType === 'mcp_app.tool_result' && semanticOf(event).callId === callId,
  )?.emittedAt;
}

export function evalSessionIssueThread(input: EvalSessionViewInput): CapabilityIssueThreadSnapshot {
  const calls = callsOf(input.events);
  const turns = new Map<string, { at: string; items: CapabilityThreadItem[]; toolCallCount: number }>();
  const turnFor = (turnId: string, at: string) => {
    let turn = turns.get(turnId);
    if (turn === undefined) {
      turn = { at, items: [], toolCallCount: 0 };
      turns.set(turnId, turn);
    }
    return turn;
  };
  for (const event of input.events) {
    if (event.turnId === undefined) continue;
    if (event.eventType === 'turn.started')
      turnFor(event.turnId, event.emittedAt).items.push({
        kind: 'user_message',
        id: `${event.turnId}.prompt`,
        at: event.emittedAt,
        author: 'Evals (the case prompt)',
        body: input.prompt,
      });
    const text = (event.payload as { text?: unknown }).text;
    if (event.eventType === 'item.delta' && typeof text === 'string')
      turnFor(event.turnId, event.emittedAt).items.push({
        kind: 'agent_message',
        id: event.itemId ?? event.sourceEventId,
        at: event.emittedAt,
        author: DETERMINISTIC_AGENT_LABEL,
        body: text,
        streaming: false,
      });
  }
  for (const call of calls) {
    const turn = turnFor(call.turnId, call.at);
    turn.toolCallCount += 1;
    const id = `item-call-${call.callId}`;
    if (call.outcome === 'denied')
      turn.items.push({
        kind: 'denial',
        id,
        at: call.at,
        operationId: call.operationId,
        reason: call.code ?? 'denied',
        evidenceRef: { section: 'authorization', recordId: `call:${call.callId}` },
      });
    else
      turn.items.push({
        kind: 'tool_activity',
        id,
        at: call.at,
        status: call.outcome === null ? 'running' : 'ok',
        operationId: call.operationId,
        summary:
          call.outcome === null
            ? `${call.operationId} · running`
            : call.afterRevision !== call.beforeRevision
              ? `state revision ${String(call.afterRevision)}`
              : 'completed',
        input: { fields: [] },
        result: call.outcome === null ? null : resultView(call),
        evidenceRef: { section: 'calls', recordId: call.callId },
      });
  }
  for (const turn of turns.values()) turn.items.sort((left, right) => left.at.localeCompare(right.at));
  const turnIds = [...turns.keys()];
  const exposed = new Set(calls.map((call) => call.operationId));
  const rows = CAPABILITY_SEMANTIC_TOOL_CATALOG.operations.map((operation) => ({
    operationId: operation.operationId,
    disposition: exposed.has(operation.operationId) ? 'always_agent_tool' : 'control_plane_owned',
    grant: operation.requiredClaims[0] ?? null,
    description: operation.description,
  }));
  const currentRevision = calls.reduce((last, call) => call.afterRevision ?? last, 0);
  return {
    schema: CAPABILITY_ISSUE_THREAD_VIEW_SCHEMA,
    sessionId: input.sessionId,
    mode: 'live',
    identity: {
      agentLabel: DETERMINISTIC_AGENT_LABEL,
      runnerLabel: 'Real runnerd',
      runnerAttached: false,
      controlPlaneLabel: 'Mock Paperclip',
      controlPlaneTooltip: 'The deterministic fake control plane: no real Paperclip API is reachable.',
      replaySource: 'live',
    },
    issue: {
      identifier: input.caseId,
      title: input.prompt,
      status: 'in_progress',
      priority: 'medium',
      assignee: null,
      runState: `${input.runId} · ${input.status}`,
      scenarioId: input.scenario,
      fixtureProfile: input.scenario,
    },
    turns: [...turns].map(([id, turn], index) => ({
      id,
      ordinal: index + 1,
      mode: 'live',
      toolCallCount: turn.toolCallCount,
      at: turn.at,
      stoppedByUser: false,
      items: turn.items,
    })),
    composer: {
      state: 'disabled',
      helper: null,
      reason: 'The session is closed',
      pendingInteractionId: null,
    },
    evidence: {
      tools: turnIds.map((turnId) => ({ id: `tools-${turnId}`, turnId, rows })),
      calls: calls.map((call) => ({
        id: call.callId,
        turnId: call.turnId,
        operationId: call.operationId,
        version: call.version,
        providerRequest: `tools/call ${call.operationId} · 0 fields`,
        dispatchedCommand:
          call.outcome === 'denied'
            ? 'rejected before dispatch'
            : `control_plane.dispatch(${call.operationId})`,
        outcome: call.outcome === 'denied' ? 'denied' : 'ok',
        result: call.outcome === null ? null : resultView(call),
        redactions: call.outcome === null ? [] : ['tool_result_detail'],
        threadAnchorId: `item-call-${call.callId}`,
      })),
      authorization: calls
        .filter((call) => call.outcome !== null)
        .map((call) => ({
          id: `authorization-${call.callId}`,
          turnId: call.turnId,
          operationId: call.operationId,
          phase: 'invocation',
          allowed: call.outcome !== 'denied',
          code: call.code ?? 'ok',
          reason: call.outcome === 'denied' ? `denied: ${call.code ?? 'denied'}` : 'allowed',
          claimsConsidered: [],
          redactions: [],
          stateChangeRef: null,
          threadAnchorId: `item-call-${call.callId}`,
        })),
      control_plane: [
        {
          id: `network-guard-${input.sessionId}`,
          turnId: TURN_ZERO,
          category: 'session',
          outcome: 'no_real_paperclip_request',
          reason: 'Real Paperclip API requests: 0. Child PAPERCLIP_* environment keys: none.',
          stateRevision: currentRevision,
          threadAnchorId: null,
        },
      ],
      runner: input.events.map((event, index) => ({
        id: event.sourceEventId,
        turnId: event.turnId ?? TURN_ZERO,
        kind: evidenceKind(event.eventType),
        ordinal: index + 1,
        detail: event.eventType,
        details: [{ label: 'event', value: event.eventType }],
      })),
      state: calls
        .filter((call) => call.afterRevision !== null && call.afterRevision !== call.beforeRevision)
        .map((call) => ({
          id: `diff-${call.callId}`,
          turnId: call.turnId,
          fromRevision: call.beforeRevision,
          toRevision: call.afterRevision ?? call.beforeRevision,
          rows: [],
        })),
      traceability: [],
      parity: [],
    },
    connection: { state: 'closed', attempt: 0 },
    replay: null,
    renderedAt: input.finishedAt,
  };
}

/** A call's result as the view shows it: whether it went through, and the revision after it. */
function resultView(call: Call): Json {
  return {
    ok: call.outcome === 'succeeded',
    stateRevision: call.afterRevision ?? call.beforeRevision,
    result: { entityRefs: [] },
    ...(call.outcome === 'denied' ? { denial: { code: call.code ?? 'denied', message: 'denied' } } : {}),
  };
}
