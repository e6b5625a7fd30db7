// Eval-session artifacts shaped exactly as upstream's paperclip-runner-eval-session writes them
// (docs/upstream-runner-facts.md §5): no `nativeExecution` reference (that is ours), the success shape
// with turn/snapshot/devtools/issueThread/usage, the failure shape with infrastructureError and
// infrastructureFailure for each class, usage omitted when there was none, and the newer variant's
// accountingError/accountingFailure beside a completed turn. Each row says what Evals
// must make of it: its report status and cost coverage. Shared by the evalbook and cli tests.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const UPSTREAM_RUNNERD_SHA256 = `sha256:${'a'.repeat(64)}`;

/** Upstream's success artifact of a codex direct eval-session, seed 001 cost provenance. */
export function upstreamSuccess(attemptId: string, turnStatus = 'completed'): Record<string, unknown> {
  return {
    schema: 'paperclip-runner/eval-session-artifact/v1',
    attemptId,
    build: {
      schema: 'paperclip-runner/build-metadata/v1',
      package: { name: '@paperclipai/paperclip-runner', version: '0.3.1' },
      contracts: { nativeExecution: 1, runnerdArtifact: 2, harnessDriver: 1, semanticCatalog: 1 },
      prp: { name: 'paperclip.runner', minimumVersion: 1, maximumVersion: 2 },
      semanticCatalog: { version: 1, sha256: `sha256:${'c'.repeat(64)}` },
    },
    runnerd: { path: '[withheld]', sha256: UPSTREAM_RUNNERD_SHA256 },
    requestedModel: 'gpt-5.5',
    provider: 'codex',
    driver: 'codex_app_server',
    providerVersion: null,
    providerSessionId: `thread_${attemptId}`,
    turn: { turnId: `turn_${attemptId}`, status: turnStatus, assistantText: 'Done.' },
    snapshot: {
      sessionId: `thread_${attemptId}`,
      usageLedger: [{ receiptId: 'r1', providerCalls: 1, reportedCost: { amountMicros: 0 } }],
    },
    devtools: upstreamDevtools(),
    issueThread: upstreamIssueThread(`thread_${attemptId}`),
    usage: {
      agentTurns: 1,
      providerRequests: 1,
      inputTokens: 1200,
      outputTokens: 300,
      cachedInputTokens: 200,
      reasoningTokens: 50,
      providerReportedCostNanodollars: null,
      providerReportedCostProvenance: 'unavailable',
      estimatedCostNanodollars: 4_500_000,
      pricingVersion: 'provider-list-prices-2026-09-07-openrouter',
      ratesUsdPerMillionTokens: { input: 1.25, cachedInput: 0.125, output: 10 },
      costCoverage: 'estimated',
      legacyLedgerCostNanodollars: 0,
    },
    timing: {
      startedAt: '2026-12-01T10:00:00.000Z',
      finishedAt: '2026-12-01T10:00:04.500Z',
      durationMs: 4500,
    },
  };
}

/**
 * Upstream's devtools view of a live session that made no state change (CapabilityDevtoolsSnapshot,
 * packages/paperclip-runner/src/devtools/index.ts): the seed revision alone, no protocol records.
 */
export function upstreamDevtools(): Record<string, unknown> {
  return {
    schema: 'paperclip.capability.devtools.v1',
    currentRevision: 1,
    revisions: [
      { revision: 1, at: '2026-12-01T10:00:00.000Z', turnId: null, operationId: 'fixture.seed', state: {} },
    ],
    protocol: [],
    runtime: { status: 'closed', activeTurnId: null },
    authority: { workingDirectory: '[withheld]' },
    providerTrace: null,
  };
}

/**
 * Upstream's issue-thread view of a closed live session, mode `live` (CapabilityIssueThreadSnapshot,
 * packages/paperclip-runner/src/issue-thread/types.ts): one turn with the user's message and the
 * agent's answer, empty evidence sections.
 */
export function upstreamIssueThread(sessionId: string): Record<string, unknown> {
  const at = '2026-12-01T10:00:01.000Z';
  return {
    schema: 'paperclip.capability.issue-thread-view.v1',
    sessionId,
    mode: 'live',
    identity: {
      agentLabel: 'Real Codex',
      runnerLabel: 'Real runnerd',
      runnerAttached: false,
      controlPlaneLabel: 'Mock Paperclip',
      controlPlaneTooltip: 'A mock control plane.',
      replaySource: 'live',
    },
    issue: {
      identifier: 'MCK-1',
      title: 'Mock task',
      status: 'in_progress',
      priority: 'medium',
      assignee: null,
      runState: 'run_1 · closed',
      scenarioId: 'hb-baseline',
      fixtureProfile: 'hb-baseline',
    },
    turns: [
      {
        id: 'turn-1',
        ordinal: 1,
        mode: 'live',
        toolCallCount: 0,
        at,
        stoppedByUser: false,
        items: [
          { kind: 'user_message', id: 'u1', at, author: 'Board user', body: 'Do it.' },
          { kind: 'agent_message', id: 'a1', at, author: 'Real Codex', body: 'Done.', streaming: false },
        ],
      },
    ],
    composer: { state: 'disabled', helper: null, reason: 'closed', pendingInteractionId: null },
    evidence: {
      tools: [],
      calls: [],
      authorization: [],
      control_plane: [],
      runner: [],
      state: [],
      traceability: [],
      parity: [],
    },
    connection: { state: 'connected', attempt: 0 },
    replay: null,
    renderedAt: '2026-12-01T10:00:04.500Z',
  };
}

export const CLASS_CATEGORIES = {
  provider_turn_timeout: ['provider_lifecycle', true],
  provider_budget_reached: ['provider_budget', false],
  runner_infrastructure_failure: ['runner_infrastructure', true],
  eval_orchestration_failure: ['eval_orchestration', false],
} as const;

/** Upstream's failure artifact: no turn, devtools or issueThread; usage only when it was receivable. */
export function upstreamFailure(
  attemptId: string,
  failureClass: keyof typeof CLASS_CATEGORIES,
  withUsage: boolean,
): Record<string, unknown> {
  const {
    turn: _turn,
    devtools: _devtools,
    issueThread: _thread,
    usage,
    ...rest
  } = upstreamSuccess(attemptId);
  const [category, retryable] = CLASS_CATEGORIES[failureClass];
  return {
    ...rest,
    infrastructureError: failureClass.replaceAll('_', ' '),
    infrastructureFailure: { class: failureClass, category, retryable, diagnostics: {} },
    ...(withUsage ? { usage } : {}),
  };
}

export interface UpstreamRow {
  readonly name: string;
  readonly artifact: Record<string, unknown>;
  readonly status: 'solved' | 'unsolved' | 'errored' | 'incomplete' | 'over_budget';
  /** What the report's reason starts with. */
  readonly reason: string;
  readonly coverage: 'estimated' | 'unpriced' | 'legacy_ledger_and_estimate';
  readonly effectiveNanodollars: number | null;
}

/** The table: every upstream shape Evals must ingest, and what it is. */
export function upstreamRows(): UpstreamRow[] {
  const unpriced = upstreamSuccess('up_unpriced');
  const usage = unpriced.usage as Record<string, unknown>;
  unpriced.usage = {
    ...usage,
    estimatedCostNanodollars: null,
    pricingVersion: null,
    ratesUsdPerMillionTokens: null,
    costCoverage: 'unpriced',
  };
  const noUsageFailedTurn = upstreamSuccess('up_failed_no_usage', 'failed');
  delete noUsageFailedTurn.usage;
  // Upstream's eval-session before seed 001 (33c97692): its runner's usage-ledger sum in
  // providerReportedCostNanodollars, labelled legacy_runner_usage_ledger, coverage
  // legacy_ledger_and_estimate (the artifact's coverage has no provider_reported).
  const ledgerSum = upstreamSuccess('up_ledger_sum');
  const { legacyLedgerCostNanodollars: _legacy, ...ledgerUsage } = ledgerSum.usage as Record<string, unknown>;
  ledgerSum.usage = {
    ...ledgerUsage,
    providerReportedCostNanodollars: 3_000_000,
    providerReportedCostProvenance: 'legacy_runner_usage_ledger',
    costCoverage: 'legacy_ledger_and_estimate',
  };
  return [
    {
      name: "a completed turn whose provider figure is upstream's usage-ledger sum (legacy_runner_usage_ledger)",
      artifact: ledgerSum,
      status: 'incomplete',
      reason: 'transcript incomplete',
      coverage: 'legacy_ledger_and_estimate',
      effectiveNanodollars: 4_500_000,
    },
    {
      name: 'a completed turn',
      artifact: upstreamSuccess('up_completed'),
      status: 'incomplete',
      reason: 'transcript incomplete: no native-execution evidence: recording missing',
      coverage: 'estimated',
      effectiveNanodollars: 4_500_000,
    },
    {
      name: 'a completed turn nobody priced (provider figure null, unavailable)',
      artifact: unpriced,
      status: 'incomplete',
      reason: 'transcript incomplete',
      coverage: 'unpriced',
      effectiveNanodollars: null,
    },
    {
      name: 'a failed turn',
      artifact: upstreamSuccess('up_failed', 'failed'),
      status: 'unsolved',
      reason: 'provider_turn: provider_turn_failed',
      coverage: 'estimated',
      effectiveNanodollars: 4_500_000,
    },
    {
      name: 'an interrupted turn',
      artifact: upstreamSuccess('up_interrupted', 'interrupted'),
      status: 'unsolved',
      reason: 'provider_turn: provider_turn_interrupted',
      coverage: 'estimated',
      effectiveNanodollars: 4_500_000,
    },
    {
      name: 'a failed turn with usage omitted',
      artifact: noUsageFailedTurn,
      status: 'unsolved',
      reason: 'provider_turn: provider_turn_failed',
      coverage: 'unpriced',
      effectiveNanodollars: null,
    },
    ...(
      [
        ['provider_budget_reached', 'agent turn limit exceeded'],
        ['provider_budget_coverage_unknown', 'budget cost coverage is unavailable'],
      ] as const
    ).map(([failureClass, message]): UpstreamRow => {
      // Upstream's newer variant: a completed turn whose budget check failed, the success shape.
      const artifact = upstreamSuccess(`up_accounting_${failureClass}`);
      artifact.accountingError = message;
      artifact.accountingFailure = {
        class: failureClass,
        category: 'provider_budget',
        retryable: false,
        diagnostics: {},
      };
      return {
        name: `a completed turn with accountingFailure ${failureClass}`,
        artifact,
        status: 'over_budget',
        reason: `${failureClass} (not retryable)`,
        coverage: 'estimated',
        effectiveNanodollars: 4_500_000,
      };
    }),
    ...(Object.keys(CLASS_CATEGORIES) as (keyof typeof CLASS_CATEGORIES)[]).flatMap((failureClass) =>
      [true, false].map((withUsage): UpstreamRow => {
        const budget = CLASS_CATEGORIES[failureClass][0] === 'provider_budget';
        const retry = CLASS_CATEGORIES[failureClass][1] ? '(retryable)' : '(not retryable)';
        return {
          name: `${failureClass}, usage ${withUsage ? 'present' : 'omitted'}`,
          artifact: upstreamFailure(
            `up_${failureClass}_${withUsage ? 'usage' : 'none'}`,
            failureClass,
            withUsage,
          ),
          status: budget ? 'over_budget' : 'errored',
          reason: budget ? `${failureClass} ${retry}` : `infrastructure: ${failureClass} ${retry}`,
          coverage: withUsage ? 'estimated' : 'unpriced',
          effectiveNanodollars: withUsage ? 4_500_000 : null,
        };
      }),
    ),
  ];
}

/** Writes each row's artifact as `<dir>/<attemptId>.json` (nothing beside it); returns the paths. */
export function writeUpstreamArtifacts(dir: string, rows: readonly UpstreamRow[]): string[] {
  mkdirSync(dir, { recursive: true });
  return rows.map((row) => {
    const path = join(dir, `${String(row.artifact.attemptId)}.json`);
    writeFileSync(path, `${JSON.stringify(row.artifact, null, 2)}\n`);
    return path;
  });
}

/**
 * Upstream's artifact for a campaign matrix cell that retained none, field for field as its
 * aggregate writes it (scripts/runner-protocol-eval-campaign.mjs, syntheticAttempt): the attempt id
 * `<roster>--<case>-<campaign>-missing`, when it was written, the cell's config (model, provider,
 * driver, opencodeVersion or null), `usage: {}`, `turn: {status: "failed"}`, an empty snapshot and
 * devtools, and infrastructureFailure ci_cell_artifact_missing — no build, runnerd,
 * providerSessionId, timing or infrastructureError.
 */
export function upstreamMissingCell(
  attemptId = 'live-codex--case-01-campaign-7-missing',
  config: { model: string; provider?: string; driver?: string; opencodeVersion?: string } = {
    model: 'gpt-5.5',
    provider: 'codex',
    driver: 'codex_app_server',
  },
): Record<string, unknown> {
  const createdAt = '2026-11-30T12:00:00.000Z';
  return {
    schema: 'paperclip-runner/eval-session-artifact/v1',
    attemptId,
    createdAt,
    requestedModel: config.model,
    provider: config.provider ?? 'codex',
    driver: config.driver ?? 'codex_app_server',
    providerVersion: config.opencodeVersion ?? null,
    usage: {},
    turn: { status: 'failed' },
    snapshot: {
      createdAt,
      providerModel: { id: config.model, provider: config.provider ?? 'unknown' },
      transcript: [],
      evidence: [],
    },
    devtools: { revisions: [] },
    infrastructureFailure: {
      class: 'ci_cell_artifact_missing',
      category: 'campaign_orchestration',
      retryable: false,
    },
  };
}
