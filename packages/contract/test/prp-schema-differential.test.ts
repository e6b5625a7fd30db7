// Differential test: our PRP v1 schemas (schemas/prp/v1/) against upstream's. Every document of a
// corpus (upstream fixtures plus synthetic documents covering every eventType with a payload
// condition), every systematic mutation of it, and random mutations, must get the same accept/reject
// verdict from both.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';

import {
  OUR_SCHEMAS_DIR,
  UPSTREAM_FIXTURES_DIR,
  UPSTREAM_SCHEMAS_DIR,
  listJsonFiles,
  loadOurAjv,
  loadUpstreamAjv,
  needsUpstream,
  readJson,
} from '@paperclip-evals/test-kit/upstream';

import type { Ajv2020, ValidateFunction } from 'ajv/dist/2020.js';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };
type Segment = string | number;

const PRP = 'https://paperclip.dev/schemas/prp/v1/';
const PRP_V1_DIR = join(OUR_SCHEMAS_DIR, 'prp', 'v1');

// ---------------------------------------------------------------------------------------------------
// Document kinds: which upstream schema and which of ours judge a document.

interface Kind {
  readonly upstream: string;
  readonly ours: string;
}

/** Upstream provider-event.schema.json $defs name -> our provider-event-payloads.schema.json $defs name. */
const ACTIVITY_DEFS = {
  plan: 'planSnapshot',
  toolExecution: 'toolExecution',
  research: 'research',
  delegation: 'delegation',
  modelRoute: 'modelRouteChange',
  modelVerification: 'modelVerification',
  contextCompacted: 'contextCompaction',
  artifactViewed: 'artifactView',
  artifactGenerated: 'artifactGeneration',
  reviewMode: 'reviewModeChange',
  hook: 'hookRun',
  memoryCitation: 'memoryCitation',
  safetyReview: 'safetyReview',
  terminalInput: 'terminalInput',
  wait: 'wait',
  providerNotice: 'providerNotice',
} as const;
type ActivityDef = keyof typeof ACTIVITY_DEFS;

/** The `schema` const of each activity payload. */
const ACTIVITY_SCHEMAS: Record<string, ActivityDef> = {
  'paperclip.plan.updated.v1': 'plan',
  'paperclip.tool.execution.v1': 'toolExecution',
  'paperclip.research.v1': 'research',
  'paperclip.delegation.v1': 'delegation',
  'paperclip.model.route_changed.v1': 'modelRoute',
  'paperclip.model.verification.v1': 'modelVerification',
  'paperclip.context.compacted.v1': 'contextCompacted',
  'paperclip.artifact.viewed.v1': 'artifactViewed',
  'paperclip.artifact.generated.v1': 'artifactGenerated',
  'paperclip.review.mode_changed.v1': 'reviewMode',
  'paperclip.hook.v1': 'hook',
  'paperclip.memory.citation.v1': 'memoryCitation',
  'paperclip.safety.review.v1': 'safetyReview',
  'paperclip.terminal.input_sent.v1': 'terminalInput',
  'paperclip.wait.v1': 'wait',
  'paperclip.provider.notice.v1': 'providerNotice',
};

function same(file: string): Kind {
  return { upstream: PRP + file, ours: PRP + file };
}

const KINDS: Record<string, Kind> = {
  event: same('event.schema.json'),
  terminal: same('terminal.schema.json'),
  result: same('result.schema.json'),
  'semantic-tool': same('semantic-tool.schema.json'),
  usage: same('usage.schema.json'),
  'workspace-diff': same('workspace-diff.schema.json'),
  'workspace-file-reference': same('workspace-file-reference.schema.json'),
  'output-body-reference': same('output-body-reference.schema.json'),
  activity: {
    upstream: `${PRP}provider-event.schema.json`,
    ours: `${PRP}provider-event-payloads.schema.json`,
  },
  ...Object.fromEntries(
    Object.entries(ACTIVITY_DEFS).map(([upstreamDef, ourDef]) => [
      `activity:${upstreamDef}`,
      {
        upstream: `${PRP}provider-event.schema.json#/$defs/${upstreamDef}`,
        ours: `${PRP}provider-event-payloads.schema.json#/$defs/${ourDef}`,
      },
    ]),
  ),
};

/** Sub-documents recognised by their `schema` member while walking a corpus document. */
const KIND_BY_SCHEMA: Record<string, string> = {
  'paperclip.prp.event.v1': 'event',
  'paperclip.prp.terminal.v1': 'terminal',
  'paperclip.run_result.v1': 'result',
  'paperclip.prp.semantic_tool.v1': 'semantic-tool',
  'paperclip.workspace.diff.v1': 'workspace-diff',
  'paperclip.workspace.file_reference.v1': 'workspace-file-reference',
  'paperclip.output.body.v1': 'output-body-reference',
};

// ---------------------------------------------------------------------------------------------------
// JSON helpers.

function isObject(value: Json | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function pointer(path: readonly Segment[]): string {
  return path.map((segment) => `/${String(segment).replaceAll('~', '~0').replaceAll('/', '~1')}`).join('');
}

function show(value: Json | undefined): string {
  if (value === undefined) return 'undefined';
  if (typeof value === 'string' && value.length > 60)
    return `${JSON.stringify(value.slice(0, 20))}...(${value.length} chars)`;
  if (Array.isArray(value) && value.length > 8) return `[${show(value[0])}, ...(${value.length} items)]`;
  const text = JSON.stringify(value);
  return text.length > 60 ? `${text.slice(0, 57)}...(${text.length} chars)` : text;
}

interface Node {
  readonly path: readonly Segment[];
  readonly value: Json;
}

/** Every node of `doc` (the root included), depth first. */
function nodesOf(doc: Json): Node[] {
  const out: Node[] = [];
  const visit = (value: Json, path: Segment[]): void => {
    out.push({ path, value });
    if (Array.isArray(value)) for (const [index, item] of value.entries()) visit(item, [...path, index]);
    else if (isObject(value)) for (const [key, item] of Object.entries(value)) visit(item, [...path, key]);
  };
  visit(doc, []);
  return out;
}

const REMOVE = Symbol('remove');

/** A copy of `doc` with the node at `path` replaced (or removed); only the nodes along `path` are copied. */
function setAt(doc: Json, path: readonly Segment[], value: Json | typeof REMOVE): Json {
  const [head, ...rest] = path;
  if (head === undefined) {
    if (value === REMOVE) throw new Error('cannot remove the root');
    return value;
  }
  if (Array.isArray(doc) && typeof head === 'number') {
    const copy = [...doc];
    if (rest.length === 0 && value === REMOVE) copy.splice(head, 1);
    else copy[head] = setAt(doc[head] ?? null, rest, value);
    return copy;
  }
  if (isObject(doc) && typeof head === 'string') {
    if (rest.length === 0 && value === REMOVE) {
      return Object.fromEntries(Object.entries(doc).filter(([key]) => key !== head));
    }
    return { ...doc, [head]: setAt(doc[head] ?? null, rest, value) };
  }
  throw new Error(`no container at ${pointer(path)}`);
}

// ---------------------------------------------------------------------------------------------------
// The corpus.

interface Doc {
  readonly kind: string;
  readonly label: string;
  readonly doc: Json;
}

const HEX_A = 'a'.repeat(64);
const HEX_B = '0123456789abcdef'.repeat(4);
const DIGEST = `sha256:${HEX_B}`;
const UUID = '3f1c2b9e-8d7a-4c6b-9e5f-0a1b2c3d4e5f';
const UUID_2 = '9b2e4f60-1c3d-4a5b-8c7d-6e5f4a3b2c1d';

const outputBody = (): JsonObject => ({
  schema: 'paperclip.output.body.v1',
  bodyId: HEX_A,
  sha256: HEX_B,
  byteLength: '1048576',
  mediaType: 'text/plain; charset=utf-8',
});

/** One valid payload (or more) for every activity definition, optional members included. */
function activityPayloads(): Record<ActivityDef, JsonObject[]> {
  return {
    plan: [
      {
        schema: 'paperclip.plan.updated.v1',
        planId: 'plan_01',
        revision: 2,
        explanation: 'Read, then fix.',
        steps: [
          { stepId: 'step_read', body: 'Read the failing test', status: 'completed' },
          { stepId: 'step_fix', body: 'Fix the parser', status: 'in_progress' },
        ],
        complete: false,
        syncStatus: 'not_applicable',
        documentRevision: null,
      },
      {
        schema: 'paperclip.plan.updated.v1',
        planId: 'plan:02',
        revision: 1,
        steps: [],
        complete: true,
        syncStatus: 'synchronized',
        documentRevision: 4,
      },
    ],
    toolExecution: [
      {
        schema: 'paperclip.tool.execution.v1',
        executionId: 'exec_01',
        transport: 'process',
        operation: 'execute',
        name: 'bash',
        target: 'src/index.ts',
        namespace: 'shell',
        readOnly: false,
        inputUpdated: false,
        status: 'completed',
        durationMs: 42,
        exitCode: 0,
        progress: 'done',
        output: 'ok\n',
        outputBytes: 3,
        outputTruncated: false,
        outputDigest: DIGEST,
        outputBody: outputBody(),
      },
      {
        schema: 'paperclip.tool.execution.v1',
        executionId: 'exec_02',
        transport: 'mcp',
        operation: 'read',
        name: null,
        target: null,
        namespace: null,
        readOnly: null,
        status: 'running',
        durationMs: null,
        exitCode: null,
        progress: null,
        output: null,
        outputBytes: 0,
        outputTruncated: true,
        outputDigest: null,
      },
    ],
    research: [
      {
        schema: 'paperclip.research.v1',
        researchId: 'research_01',
        action: 'search',
        status: 'completed',
        query: 'json schema if then',
        url: 'https://example.com/search',
        pattern: null,
        sources: [
          { sourceId: 'src_01', title: 'Conditionals', url: 'https://example.com/a', snippet: 'if/then' },
          { sourceId: 'src_02', title: 'Other', url: null, snippet: null },
        ],
      },
    ],
    delegation: [
      {
        schema: 'paperclip.delegation.v1',
        delegationId: 'delegation_01',
        action: 'spawn',
        status: 'running',
        children: [
          {
            childId: 'child_01',
            role: 'reviewer',
            model: 'model-small',
            status: 'waiting',
            summary: 'Reviewing',
            activitySummary: null,
          },
        ],
      },
    ],
    modelRoute: [
      {
        schema: 'paperclip.model.route_changed.v1',
        routeId: 'route_01',
        provider: 'provider-a',
        requestedModel: 'model-large',
        fromModel: null,
        effectiveModel: 'model-large-fallback',
        reason: 'capacity',
      },
    ],
    modelVerification: [
      {
        schema: 'paperclip.model.verification.v1',
        verificationId: 'verify_01',
        status: 'running',
        classes: ['cyber', 'bio'],
        buffering: true,
        summary: null,
      },
    ],
    contextCompacted: [
      {
        schema: 'paperclip.context.compacted.v1',
        compactionId: 'compact_01',
        reason: 'context_window',
        preTokens: 180000,
        postTokens: null,
        sameSession: true,
      },
    ],
    artifactViewed: [
      {
        schema: 'paperclip.artifact.viewed.v1',
        artifactId: 'artifact_01',
        reference: 'out/report.md',
        mediaType: 'text/markdown',
        title: 'Report',
      },
    ],
    artifactGenerated: [
      {
        schema: 'paperclip.artifact.generated.v1',
        artifactId: 'artifact_02',
        status: 'completed',
        reference: 'out/chart.png',
        mediaType: 'image/png',
        registered: true,
        transparentBackground: false,
        failure: null,
      },
    ],
    reviewMode: [
      { schema: 'paperclip.review.mode_changed.v1', reviewId: 'review_01', state: 'entered', scope: 'diff' },
    ],
    hook: [
      {
        schema: 'paperclip.hook.v1',
        hookId: 'hook_01',
        event: 'PreToolUse',
        scope: 'project',
        status: 'completed',
        blocking: false,
        durationMs: 7,
        summary: null,
      },
    ],
    memoryCitation: [
      {
        schema: 'paperclip.memory.citation.v1',
        citationId: 'cite_01',
        messageItemId: 'item_07',
        label: 'Coding style',
        available: true,
        reference: 'memory/style.md',
      },
    ],
    safetyReview: [
      {
        schema: 'paperclip.safety.review.v1',
        reviewId: 'safety_01',
        targetExecutionId: 'exec_01',
        status: 'completed',
        decision: 'allowed',
        summary: null,
      },
      {
        schema: 'paperclip.safety.review.v1',
        reviewId: 'safety_02',
        targetExecutionId: null,
        status: 'running',
        decision: 'pending',
        summary: 'Waiting for the reviewer',
      },
    ],
    terminalInput: [
      {
        schema: 'paperclip.terminal.input_sent.v1',
        executionId: 'exec_01',
        origin: 'agent',
        inputClass: 'text',
        byteCount: 12,
      },
    ],
    wait: [
      {
        schema: 'paperclip.wait.v1',
        waitId: 'wait_01',
        reason: 'rate_limit',
        status: 'completed',
        plannedDurationMs: 1000,
        elapsedDurationMs: 1012,
      },
    ],
    providerNotice: [
      {
        schema: 'paperclip.provider.notice.v1',
        noticeId: 'notice_01',
        severity: 'warning',
        category: 'quota',
        scope: 'account',
        recoverable: true,
        userActionable: false,
        summary: 'Close to the monthly limit.',
      },
    ],
  };
}

/** The eventTypes whose payload each activity definition governs. */
const ACTIVITY_EVENT_TYPES: Record<ActivityDef, string[]> = {
  plan: ['plan.updated'],
  toolExecution: ['tool.execution.started', 'tool.execution.progressed', 'tool.execution.completed'],
  research: ['research.started', 'research.progressed', 'research.completed'],
  delegation: ['delegation.started', 'delegation.updated', 'delegation.completed'],
  modelRoute: ['model.route.changed'],
  modelVerification: ['model.verification.updated'],
  contextCompacted: ['context.compacted'],
  artifactViewed: ['artifact.viewed'],
  artifactGenerated: ['artifact.generated'],
  reviewMode: ['review.mode.changed'],
  hook: ['hook.started', 'hook.completed'],
  memoryCitation: ['memory.citation.referenced'],
  safetyReview: ['safety.review.started', 'safety.review.completed'],
  terminalInput: ['terminal.input.sent'],
  wait: ['wait.started', 'wait.completed'],
  providerNotice: ['provider.notice.recorded'],
};

function workspaceDiff(complete: boolean): JsonObject {
  return {
    schema: 'paperclip.workspace.diff.v1',
    changeSetId: 'changes_01',
    revision: 3,
    source: 'runner_verified',
    complete,
    files: [
      {
        path: 'src/parser.ts',
        operation: 'modify',
        previousPath: null,
        additions: 12,
        deletions: 3,
        binary: false,
        diff: '@@ -1 +1 @@\n-a\n+b\n',
      },
      {
        path: 'assets/logo.png',
        operation: 'rename',
        previousPath: 'img/logo.png',
        additions: null,
        deletions: null,
        binary: true,
        diff: null,
      },
    ],
    totals: { files: 2, additions: 12, deletions: null },
    patchArtifactRef: complete ? 'artifact://patch/01' : null,
  };
}

function workspaceFileReference(): JsonObject {
  return {
    schema: 'paperclip.workspace.file_reference.v1',
    referenceId: 'fileref_01',
    source: 'harness_reported',
    path: 'docs/guide.md',
    displayName: 'guide.md',
    mediaType: 'text/markdown',
    presentation: 'document',
    line: 14,
    preview: '# Guide',
    previewTruncated: false,
    contentDigest: DIGEST,
  };
}

function semanticTool(phase: 'input' | 'result' | 'reconciled'): JsonObject {
  const envelope: JsonObject = {
    schema: 'paperclip.prp.semantic_tool.v1',
    schemaVersion: 1,
    phase,
    operationId: 'update_document',
    callId: 'call_01',
    correlation: {
      runId: 'run_synthetic',
      normalizedSessionId: 'session_synthetic',
      turnId: 'turn_01',
      itemId: 'item_01',
      requestId: 'request_01',
    },
    idempotencyKey: phase === 'input' ? null : 'idem_01',
    content: {
      digest: DIGEST,
      redactionDisposition: 'allowlisted_references',
      references: [
        { kind: 'task', id: 'task_01' },
        { kind: 'document_revision', id: 'doc_01:rev_3' },
      ],
    },
  };
  if (phase === 'input') return envelope;
  return {
    ...envelope,
    outcome: phase === 'result' ? 'conflict' : 'succeeded',
    code: phase === 'result' ? 'revision_conflict' : 'ok',
    retryable: phase === 'result',
    authorizationBoundary: phase === 'result' ? 'revision' : 'active_task',
    operationReceiptId: 'receipt_01',
    auditReceiptId: 'audit_01',
    currentRevision: phase === 'result' ? 3 : 'rev_4',
    duplicateOfReceiptId: 'receipt_00',
    artifactRefs: [
      { kind: 'artifact', id: 'artifact_01' },
      { kind: 'work_product', id: 'wp_01' },
    ],
    targets: [
      { kind: 'document_revision', id: 'doc_01', immutable: true, revisionId: 'rev_4', decisionId: 'dec_1' },
    ],
    causalRefs: [{ kind: 'interaction', id: 'interaction_01' }],
  };
}

function runResults(): JsonObject[] {
  const base: JsonObject = {
    schema: 'paperclip.run_result.v1',
    reportedWorkDisposition: 'done',
    summary: 'Fixed the parser.',
    completionClaim: {
      contractRevision: 'rev_1',
      objectiveSatisfied: true,
      criteria: [
        { criterionId: 'tests_pass', status: 'satisfied', evidenceRefs: ['check_01'], explanation: 'green' },
      ],
      remainingWork: [],
    },
    evidence: [{ kind: 'log', ref: 'log_01' }],
    verification: [
      { commandOrCheck: 'pnpm test', status: 'passed', detail: '12 passed', artifactRef: 'artifact_01' },
    ],
    attentionRequests: [],
    artifacts: [{ kind: 'patch', ref: 'artifact_01', title: 'The patch' }],
  };
  return [
    base,
    {
      ...base,
      reportedWorkDisposition: 'blocked',
      blocker: {
        reasonCode: 'missing_credentials',
        owner: { kind: 'user', id: 'user_01' },
        unblockAction: 'Provide the API key.',
        scope: 'task_wide',
      },
    },
    {
      ...base,
      reportedWorkDisposition: 'yielded',
      continuation: { kind: 'monitor', summary: 'Check the deploy later.', idempotencyKey: 'cont_01' },
    },
  ];
}

function usageReceipts(): JsonObject[] {
  const counters = (scale: number): JsonObject => ({
    inputTokens: 1000 * scale,
    outputTokens: 200 * scale,
    cacheReadTokens: 50 * scale,
    cacheWriteTokens: 0,
    activeSeconds: 1.5 * scale,
    requests: scale,
    providerCostUsd: 0.0125 * scale,
  });
  return [
    {
      provider: 'provider-a',
      model: 'model-large',
      providerSessionId: 'psession_01',
      providerTurnId: null,
      providerRequestId: null,
      providerRequestIdUnavailableReason: 'streaming transport',
      cumulative: {
        ...counters(3),
        requestCountSource: 'provider_reported',
        requestCountExact: true,
        providerCostStatus: 'reported',
        providerCostUnavailableReason: null,
      },
      runDelta: counters(1),
    },
    {
      provider: 'provider-b',
      model: null,
      cumulative: { ...counters(0), requestCountSource: 'unavailable', providerCostStatus: 'unpriced' },
      runDelta: {
        ...counters(0),
        requestCountSource: 'token_bearing_turn_minimum',
        requestCountExact: false,
        providerCostUnavailableReason: 'no price list',
      },
    },
  ];
}

let syntheticSeq = 0;

function event(eventType: string, payload: JsonObject, extra: JsonObject = {}): JsonObject {
  syntheticSeq += 1;
  return {
    schema: 'paperclip.prp.event.v1',
    sourceEventId: `synthetic_${syntheticSeq}`,
    sourceSeq: syntheticSeq,
    sourceInstanceId: 'runner_synthetic',
    sourceKind: 'runner',
    runId: 'run_synthetic',
    normalizedSessionId: 'session_synthetic',
    turnId: 'turn_01',
    eventType,
    schemaVersion: 1,
    priority: 1,
    emittedAt: '2026-08-11T12:00:00.000Z',
    payload,
    ...extra,
  };
}

/** Synthetic events: one per eventType with a payload condition (per payload variant), and envelope variants. */
function syntheticEvents(): Doc[] {
  const out: Doc[] = [];
  const add = (label: string, doc: JsonObject): void => {
    out.push({ kind: 'event', label: `synthetic ${label}`, doc });
  };
  const payloads = activityPayloads();
  for (const def of Object.keys(payloads) as ActivityDef[]) {
    for (const [index, payload] of payloads[def].entries()) {
      for (const eventType of ACTIVITY_EVENT_TYPES[def])
        add(`${eventType} #${index}`, event(eventType, payload));
    }
  }
  add('workspace.file.referenced', event('workspace.file.referenced', workspaceFileReference()));
  add('workspace.change.updated (incomplete)', event('workspace.change.updated', workspaceDiff(false)));
  add('workspace.change.updated (complete)', event('workspace.change.updated', workspaceDiff(true)));
  add('workspace.diff.recorded', event('workspace.diff.recorded', workspaceDiff(true)));
  for (const eventType of ['semantic_tool.input', 'mcp_app.tool_input']) {
    add(eventType, event(eventType, { semantic_tool: semanticTool('input'), channel: 'progress' }));
  }
  for (const eventType of ['semantic_tool.result', 'mcp_app.tool_result']) {
    add(eventType, event(eventType, { semantic_tool: semanticTool('result') }));
  }
  add(
    'semantic_tool.reconciled',
    event('semantic_tool.reconciled', { semantic_tool: semanticTool('reconciled') }),
  );
  add('semantic_tool.input without envelope', event('semantic_tool.input', { note: 'no envelope' }));
  for (const [index, result] of runResults().entries()) {
    add(`run.result.proposed #${index}`, event('run.result.proposed', result, { priority: 0 }));
  }
  add(
    'run.terminal',
    event('run.terminal', {
      schema: 'paperclip.prp.terminal.v1',
      turnTerminalState: 'interrupted',
      runTerminalState: 'cancelled',
      reportedWorkDisposition: 'yielded',
      workAssessmentId: 'assessment_01',
      statusDecisionId: 'decision_01',
      channel: 'final',
    }),
  );
  add(
    'output.body.chunk',
    event('output.body.chunk', {
      schema: 'paperclip.output.body.chunk.v1',
      body: outputBody(),
      offset: '0',
      sha256: HEX_B,
      text: 'first chunk',
    }),
  );
  add(
    'output.body.chunk at an offset',
    event('output.body.chunk', {
      schema: 'paperclip.output.body.chunk.v1',
      body: outputBody(),
      offset: '32766',
      sha256: HEX_A,
      text: 'second chunk',
    }),
  );
  add(
    'envelope with every optional member',
    event(
      'item.delta',
      { channel: 'detail', providerPhase: 'streaming', providerMethod: 'item/delta', text: 'Hel' },
      {
        sourceKind: 'control_plane',
        sourceEpoch: UUID_2,
        itemId: 'item_01',
        priority: 2,
        observedAt: '2026-08-11T10:00:00.120Z',
        debug: { raw: { anything: [1, 2, 3] } },
        sourceEpochTransition: {
          schema: 'paperclip.prp.event-epoch.v1',
          runId: 'run_synthetic',
          transitionId: UUID,
          fromEpoch: null,
          nextEpoch: UUID_2,
          finalOrdinal: 17,
        },
      },
    ),
  );
  add(
    'epoch transition from a previous epoch',
    event(
      'runner.reconnected',
      {},
      {
        sourceEpoch: UUID,
        sourceEpochTransition: {
          schema: 'paperclip.prp.event-epoch.v1',
          runId: 'run_synthetic',
          transitionId: UUID_2,
          fromEpoch: UUID_2,
          nextEpoch: UUID,
          finalOrdinal: 9007199254740991,
        },
      },
    ),
  );
  add('sandbox.metric (free payload)', event('sandbox.metric', { cpu: 0.5, channel: 'unknown' }));
  return out;
}

/** Every object below `value` whose `schema` names a document kind, paired with that kind. */
function embeddedDocs(value: Json, label: string): Doc[] {
  const out: Doc[] = [];
  for (const { path, value: node } of nodesOf(value)) {
    if (!isObject(node) || typeof node.schema !== 'string') continue;
    const at = path.length === 0 ? label : `${label}#${pointer(path)}`;
    const kind = KIND_BY_SCHEMA[node.schema];
    if (kind !== undefined) out.push({ kind, label: at, doc: node });
    const activity = ACTIVITY_SCHEMAS[node.schema];
    if (activity !== undefined) {
      out.push({ kind: 'activity', label: at, doc: node });
      out.push({ kind: `activity:${activity}`, label: at, doc: node });
    }
  }
  return out;
}

function fixtureFiles(): string[] {
  const phase01 = listJsonFiles(join(UPSTREAM_FIXTURES_DIR, 'phase-01')).filter(
    (file) => !file.includes('golden'),
  );
  const replay = listJsonFiles(join(UPSTREAM_FIXTURES_DIR, 'replay')).filter(
    (file) => !file.includes('golden'),
  );
  return [join(UPSTREAM_FIXTURES_DIR, 'evals', 'native-execution-seeded.json'), ...phase01, ...replay];
}

function buildCorpus(): Doc[] {
  const docs: Doc[] = [];
  for (const file of fixtureFiles()) {
    const label = file.slice(UPSTREAM_FIXTURES_DIR.length + 1);
    docs.push(...embeddedDocs(readJson(file) as Json, label));
  }
  for (const synthetic of syntheticEvents()) docs.push(...embeddedDocs(synthetic.doc, synthetic.label));
  for (const [index, usage] of usageReceipts().entries()) {
    docs.push({ kind: 'usage', label: `synthetic usage #${index}`, doc: usage });
  }
  const seen = new Set<string>();
  return docs.filter(({ kind, doc }) => {
    const key = `${kind} ${JSON.stringify(doc)}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

// ---------------------------------------------------------------------------------------------------
// Mutations.

interface Mutation {
  /** What was done, for failure messages (built only when needed). */
  readonly label: () => string;
  readonly doc: Json;
}

const LONG_STRING_CACHE = new Map<number, string>();
function longString(length: number): string {
  let text = LONG_STRING_CACHE.get(length);
  if (text === undefined) {
    text = 'a'.repeat(length);
    LONG_STRING_CACHE.set(length, text);
  }
  return text;
}

/**
 * String lengths on both sides of every maxLength bound in the PRP v1 schemas. Strings of these lengths
 * (and arrays of BOUNDARY_ITEMS items) only probe length bounds and cost a linear scan per validation,
 * so they are tried once per schema site (document kind, the eventType for an event's payload, and the
 * path with array indexes blurred) rather than at every occurrence.
 */
const BOUNDARY_LENGTHS = [
  80, 81, 160, 161, 200, 201, 240, 241, 255, 256, 1024, 1025, 2048, 2049, 4000, 4001, 4096, 4097, 8192, 8193,
  12000, 12001, 32766, 32767, 65536, 65537, 262144, 262145,
];
const BOUNDARY_ITEMS = [32, 33, 64, 65, 256, 257, 2000, 2001];

/** Replacement values tried at every node. */
const VALUE_POOL: Json[] = [
  null,
  true,
  false,
  0,
  1,
  2,
  -1,
  0.5,
  9007199254740991,
  9007199254740992,
  [],
  {},
  [1],
  { zz: 1 },
];

/** Replacement strings tried at every string node: empty, case, paths, URLs, digests, UUIDs, dates. */
const STRING_POOL: string[] = [
  '',
  'x',
  'X',
  ' ',
  '0',
  '01',
  '1',
  '10000000',
  '9999999',
  '_a',
  'a b',
  '..',
  '../a',
  'a/../b',
  'a/..',
  '..a/b',
  'a..b',
  '/a',
  'a/',
  'a\nb',
  'a\u2028b',
  'http://e',
  'https://e',
  'ftp://e',
  `sha256:${HEX_A}`,
  `sha256:${HEX_A.toUpperCase()}`,
  `sha256:${HEX_A.slice(1)}`,
  HEX_A,
  HEX_A.toUpperCase(),
  `${HEX_A}0`,
  UUID,
  UUID.toUpperCase(),
  '3f1c2b9e-8d7a-1c6b-9e5f-0a1b2c3d4e5f',
  '3f1c2b9e-8d7a-4c6b-1e5f-0a1b2c3d4e5f',
  'text/plain; charset=utf-8',
  'text/plain',
  '2026-08-11T12:00:00Z',
  '2026-08-11T12:00:00',
  '2026-08-11',
  '2026-02-30T00:00:00Z',
  '2026-08-11T24:00:00Z',
  '2026-08-11 12:00:00Z',
  '2026-08-11t12:00:00.5+05:30',
  '2026-08-11T12:00:00.123Z',
  '2026-08-11T12:00:00.123456Z',
  '2026-08-11T12:00:00.000+00:00',
];

/** Timestamps upstream's date-time format refuses (see TIMESTAMPS_ACCEPTED for the ones it takes). */
const TIMESTAMPS_REFUSED = [
  '2026-08-11T12:00:00+02:00', // offsets
  '2026-08-11T12:00:00.000+00:00',
  '2026-08-11T12:00:00.000-05:30',
  '2026-08-11t12:00:00.000Z', // lower-case t
  '2026-08-11T12:00:00.000z', // lower-case z
  '2026-08-11 12:00:00.000Z', // a space for T
  '2026-08-11T12:00:00.1Z', // 1, 2, 4, 6, 9 fraction digits
  '2026-08-11T12:00:00.12Z',
  '2026-08-11T12:00:00.1234Z',
  '2026-08-11T12:00:00.123456Z',
  '2026-08-11T12:00:00.123456789Z',
  '2026-08-11T12:00Z', // no seconds
  '2026-08-11T12:00:00.Z',
  '2026-08-11T12:00:00', // no zone
];
/** Upstream's two shapes; its format does no calendar check, so month 13 day 45 passes too. */
const TIMESTAMPS_ACCEPTED = ['2026-08-11T12:00:00Z', '2026-08-11T12:00:00.123Z', '2026-13-45T25:61:61.000Z'];

function stringVariants(text: string): string[] {
  return [
    `${text}\n`,
    `/${text}`,
    `../${text}`,
    `${text}/..`,
    `${text}/../x`,
    ` ${text}`,
    `${text}0`,
    text.toUpperCase(),
    text.slice(0, -1),
    text.slice(1),
  ];
}

function numberVariants(value: number): Json[] {
  return [value + 1, value - 1, -value, value + 0.5, value * 2, 3, 4, 2 ** 31, String(value)];
}

/** Values seen under each member name across the corpus, for swaps between documents and kinds. */
function vocabulary(corpus: readonly Doc[], perKey = 24): Map<string, Json[]> {
  const seen = new Map<string, Map<string, Json>>();
  for (const { doc } of corpus) {
    for (const { path, value } of nodesOf(doc)) {
      const key = path.at(-1);
      if (typeof key !== 'string') continue;
      let values = seen.get(key);
      if (values === undefined) seen.set(key, (values = new Map<string, Json>()));
      if (values.size < perKey) values.set(JSON.stringify(value), value);
    }
  }
  return new Map([...seen].map(([key, values]) => [key, [...values.values()]]));
}

interface MutationContext {
  readonly vocab: ReadonlyMap<string, Json[]>;
  /** eventType values to swap in at /eventType (events only). */
  readonly eventTypes: readonly string[];
  /** Schema sites already given the boundary-length strings or arrays (see BOUNDARY_LENGTHS); updated. */
  readonly largeSites: Set<string>;
}

/** The systematic mutations of one document of `kind`. */
function* mutationsOf(kind: string, doc: Json, context: MutationContext): Generator<Mutation> {
  const { vocab, eventTypes, largeSites } = context;
  /** True the first time a schema site is seen with this `aspect` (across all documents). */
  const firstAtSite = (path: readonly Segment[], aspect: string): boolean => {
    // An event's payload is judged by a definition chosen by its eventType.
    const eventType =
      isObject(doc) && path[0] === 'payload' && typeof doc.eventType === 'string' ? doc.eventType : '';
    const blurred = path.map((segment) => (typeof segment === 'number' ? '*' : segment)).join('/');
    const site = `${kind} ${eventType} ${blurred} ${aspect}`;
    if (largeSites.has(site)) return false;
    largeSites.add(site);
    return true;
  };
  const out: Mutation[] = [];
  const put = (path: readonly Segment[], value: Json, why: string): void => {
    out.push({
      label: () => `${why} ${pointer(path) || '/'} = ${show(value)}`,
      doc: setAt(doc, path, value),
    });
  };
  for (const { path, value } of nodesOf(doc)) {
    yield* out.splice(0);
    const key = path.at(-1);
    if (key !== undefined) {
      out.push({ label: () => `remove ${pointer(path)}`, doc: setAt(doc, path, REMOVE) });
    }
    for (const replacement of VALUE_POOL) put(path, replacement, 'replace');
    if (typeof value === 'string') {
      for (const replacement of [...STRING_POOL, ...stringVariants(value)]) put(path, replacement, 'string');
      for (const length of firstAtSite(path, 'length') ? BOUNDARY_LENGTHS : []) {
        put(path, longString(length), 'long string');
      }
    }
    if (typeof value === 'number')
      for (const replacement of numberVariants(value)) put(path, replacement, 'number');
    if (typeof value === 'boolean') {
      put(path, !value, 'flip');
      put(path, String(value), 'stringify');
    }
    if (Array.isArray(value)) {
      const first = value[0];
      if (first !== undefined) {
        put(path, [...value, first], 'duplicate first item');
        for (const count of firstAtSite(path, 'items') ? BOUNDARY_ITEMS : []) {
          put(
            path,
            Array.from({ length: count }, () => first),
            `${count} copies of the first item at`,
          );
        }
      }
      put(path, [...value, null], 'append null');
      put(path, [...value, {}], 'append {}');
      put(path, [...value, 'x'], 'append "x"');
    }
    if (isObject(value)) {
      put([...path, 'zzUnknown'], 1, 'add unknown member');
      put([...path, 'zzUnknown'], null, 'add unknown member');
    }
    if (typeof key === 'string') {
      for (const replacement of vocab.get(key) ?? []) put(path, replacement, 'swap');
    }
    if (key === 'eventType' && path.length === 1) {
      for (const eventType of eventTypes) put(path, eventType, 'eventType');
    }
  }
  for (const replacement of [null, [], 'x', 1]) put([], replacement, 'replace root');
  yield* out;
}

// ---------------------------------------------------------------------------------------------------
// Verdicts.

class Judge {
  private readonly cache = new Map<string, ValidateFunction>();

  constructor(
    private readonly upstreamAjv: Ajv2020,
    private readonly ourAjv: Ajv2020,
  ) {}

  private validator(ajv: Ajv2020, id: string): ValidateFunction {
    const key = `${ajv === this.upstreamAjv ? 'upstream' : 'ours'} ${id}`;
    let validate = this.cache.get(key);
    if (validate === undefined) {
      validate = ajv.getSchema(id);
      if (validate === undefined) throw new Error(`no schema ${id}`);
      this.cache.set(key, validate);
    }
    return validate;
  }

  /** Both verdicts for `doc` as a document of `kind`, with the error text of each. */
  verdicts(kind: string, doc: Json): { upstream: boolean; ours: boolean; detail: () => string } {
    const ids = KINDS[kind];
    if (ids === undefined) throw new Error(`unknown kind ${kind}`);
    const upstreamValidate = this.validator(this.upstreamAjv, ids.upstream);
    const ourValidate = this.validator(this.ourAjv, ids.ours);
    const upstream = upstreamValidate(doc);
    const upstreamErrors = upstreamValidate.errors;
    const ours = ourValidate(doc);
    const ourErrors = ourValidate.errors;
    const text = (ajv: Ajv2020, errors: typeof ourErrors): string => ajv.errorsText(errors).slice(0, 400);
    return {
      upstream,
      ours,
      detail: () =>
        `upstream ${upstream ? 'accepts' : `rejects (${text(this.upstreamAjv, upstreamErrors)})`}; ` +
        `ours ${ours ? 'accepts' : `rejects (${text(this.ourAjv, ourErrors)})`}`,
    };
  }
}

// ---------------------------------------------------------------------------------------------------
// Tests.

/**
 * The registry Ajv over the whole schemas/ folder, compiled by the first test that needs it (its
 * compile is what that test checks) and reused by the comparisons: compiling it is ~2 s.
 */
let wholeFolderAjv: Ajv2020 | undefined;

// Ours alone: runs without upstream's data too.
describe('our PRP v1 schemas', () => {
  it('our PRP v1 schemas compile in strict mode, and every $ref resolves', () => {
    const ajv = loadOurAjv(PRP_V1_DIR);
    const unresolved: string[] = [];
    for (const file of listJsonFiles(PRP_V1_DIR)) {
      const schema = JSON.parse(readFileSync(file, 'utf8')) as Json;
      if (!isObject(schema) || typeof schema.$id !== 'string') throw new Error(`${file} has no $id`);
      expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
      expect(typeof schema.title).toBe('string');
      expect(typeof schema.description).toBe('string');
      for (const { path, value } of nodesOf(schema)) {
        if (path.at(-1) !== '$ref' || typeof value !== 'string') continue;
        const target = new URL(value, schema.$id).href;
        if (ajv.getSchema(target) === undefined) unresolved.push(`${file}#${pointer(path)} -> ${target}`);
      }
    }
    expect(unresolved).toEqual([]);
    // The whole schemas/ folder (other families included) also compiles with the registry's options.
    expect(() => (wholeFolderAjv = loadOurAjv())).not.toThrow();
  });
});

const HAVE_UPSTREAM = needsUpstream(import.meta.url, "the comparisons of our PRP v1 schemas with upstream's");

describe.skipIf(!HAVE_UPSTREAM)('PRP v1 schemas: ours against upstream', () => {
  let judge: Judge;
  let corpus: Doc[];
  let vocab: Map<string, Json[]>;
  let eventTypes: string[];

  beforeAll(() => {
    judge = new Judge(loadUpstreamAjv(), wholeFolderAjv ?? loadOurAjv());
    corpus = buildCorpus();
    vocab = vocabulary(corpus);
    const upstreamEvent = readJson(join(UPSTREAM_SCHEMAS_DIR, 'event.schema.json')) as {
      properties: { eventType: { enum: string[] } };
    };
    eventTypes = upstreamEvent.properties.eventType.enum;
  });

  it('the corpus covers every kind and every eventType with a payload condition, and upstream accepts it all', () => {
    const kinds = new Set(corpus.map(({ kind }) => kind));
    expect([...kinds].sort()).toEqual(Object.keys(KINDS).sort());
    const coveredTypes = new Set(
      corpus.flatMap(({ kind, doc }) => (kind === 'event' && isObject(doc) ? [doc.eventType] : [])),
    );
    const conditioned = [
      ...Object.values(ACTIVITY_EVENT_TYPES).flat(),
      'workspace.file.referenced',
      'workspace.change.updated',
      'workspace.diff.recorded',
      'semantic_tool.input',
      'semantic_tool.result',
      'semantic_tool.reconciled',
      'mcp_app.tool_input',
      'mcp_app.tool_result',
      'run.terminal',
      'run.result.proposed',
      'output.body.chunk',
    ];
    expect(conditioned.filter((eventType) => !coveredTypes.has(eventType))).toEqual([]);
    const rejected = corpus
      .map(({ kind, label, doc }) => ({ kind, label, verdicts: judge.verdicts(kind, doc) }))
      .filter(({ verdicts }) => !verdicts.upstream || !verdicts.ours)
      .map(({ kind, label, verdicts }) => `${kind} ${label}: ${verdicts.detail()}`);
    expect(rejected).toEqual([]);
  });

  it("refuses with upstream every timestamp outside upstream's format, and accepts with it the rest", () => {
    const events = corpus.filter(({ kind, doc }) => kind === 'event' && isObject(doc));
    expect(events.length).toBeGreaterThan(10);
    const wrong: string[] = [];
    let refused = 0;
    for (const { label, doc } of events) {
      for (const field of ['emittedAt', 'observedAt']) {
        for (const [texts, valid] of [
          [TIMESTAMPS_REFUSED, false],
          [TIMESTAMPS_ACCEPTED, true],
        ] as const) {
          for (const text of texts) {
            const verdicts = judge.verdicts('event', setAt(doc, [field], text));
            if (!valid && !verdicts.upstream && !verdicts.ours) refused += 1;
            if (verdicts.upstream !== valid || verdicts.ours !== valid) {
              wrong.push(`${label} /${field} = ${JSON.stringify(text)}: ${verdicts.detail()}`);
            }
          }
        }
      }
    }
    expect(wrong.slice(0, 20)).toEqual([]);
    expect(refused).toBe(events.length * 2 * TIMESTAMPS_REFUSED.length);
  });

  it('gives the same verdict as upstream on every systematic mutation of every corpus document', () => {
    const mismatches: string[] = [];
    const counts = new Map<string, { accepted: number; rejected: number }>();
    let total = 0;
    const context: MutationContext = { vocab, eventTypes, largeSites: new Set() };
    for (const { kind, label, doc } of corpus) {
      const tally = counts.get(kind) ?? { accepted: 0, rejected: 0 };
      counts.set(kind, tally);
      for (const mutation of mutationsOf(kind, doc, {
        ...context,
        eventTypes: kind === 'event' ? eventTypes : [],
      })) {
        total += 1;
        const verdicts = judge.verdicts(kind, mutation.doc);
        if (verdicts.upstream) tally.accepted += 1;
        else tally.rejected += 1;
        if (verdicts.upstream !== verdicts.ours && mismatches.length < 25) {
          mismatches.push(`${kind} ${label} :: ${mutation.label()}: ${verdicts.detail()}`);
        }
      }
    }
    expect(mismatches).toEqual([]);
    // Non-trivial: every kind sees mutations accepted and mutations rejected, most of them rejected.
    for (const [kind, { accepted, rejected }] of counts) {
      expect(accepted, `${kind} accepted`).toBeGreaterThan(0);
      expect(rejected, `${kind} rejected`).toBeGreaterThan(accepted / 4);
    }
    expect(total).toBeGreaterThan(50_000);
  }, 240_000);

  it('gives the same verdict as upstream on random mutations (fast-check)', () => {
    const pool: Json[] = [...VALUE_POOL, ...STRING_POOL, ...[...vocab.values()].flat()];
    const keys = ['zzUnknown', ...vocab.keys()];
    const operation = fc.record({
      at: fc.nat(),
      action: fc.oneof(
        fc.record({ type: fc.constant('remove' as const) }),
        fc.record({ type: fc.constant('replace' as const), value: fc.constantFrom(...pool) }),
        fc.record({
          type: fc.constant('add' as const),
          key: fc.constantFrom(...keys),
          value: fc.constantFrom(...pool),
        }),
      ),
    });
    let accepted = 0;
    let rejected = 0;
    fc.assert(
      fc.property(
        fc.nat(corpus.length - 1),
        fc.array(operation, { minLength: 1, maxLength: 4 }),
        (index, ops) => {
          const entry = corpus[index];
          if (entry === undefined) throw new Error('corpus index out of range');
          let doc = entry.doc;
          const steps: string[] = [];
          for (const { at, action } of ops) {
            const nodes = nodesOf(doc);
            const node = nodes[at % nodes.length];
            if (node === undefined) continue;
            if (action.type === 'remove') {
              if (node.path.length === 0) continue;
              doc = setAt(doc, node.path, REMOVE);
              steps.push(`remove ${pointer(node.path)}`);
            } else if (action.type === 'replace') {
              doc = setAt(doc, node.path, action.value);
              steps.push(`replace ${pointer(node.path) || '/'} = ${show(action.value)}`);
            } else if (isObject(node.value)) {
              doc = setAt(doc, [...node.path, action.key], action.value);
              steps.push(`add ${pointer([...node.path, action.key])} = ${show(action.value)}`);
            }
          }
          const verdicts = judge.verdicts(entry.kind, doc);
          if (verdicts.upstream) accepted += 1;
          else rejected += 1;
          expect(
            verdicts.ours,
            `${entry.kind} ${entry.label} :: ${steps.join('; ')}: ${verdicts.detail()}`,
          ).toBe(verdicts.upstream);
        },
      ),
      { numRuns: 5000 },
    );
    expect(accepted).toBeGreaterThan(0);
    expect(rejected).toBeGreaterThan(accepted);
  }, 120_000);
});
