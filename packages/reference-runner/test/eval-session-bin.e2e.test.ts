// paperclip-runner-eval-session, run in process (src/cli/eval-session.ts; e2e: it runs the stand-in
// runnerd it hashes) against a stand-in
// runnerd that prints this package's build metadata: the request parser refuses each rule flipped
// with its code (a mutation table); a request in gives an artifact and its native-execution bundle
// out (exit 0), with seed 001's cost provenance; a hanging turn, a budget overrun, a runnerd digest
// mismatch and a failing runner each write the failure artifact with upstream's class (exit 2);
// bad arguments and bad requests write nothing (exit 1). The packed, installed bin is exercised by
// packages/cli/test/eval-session.e2e.test.ts.
import './support/protocol.js';

import { createHash } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

import {
  parseEvalSessionArtifact as evalsParseEvalSessionArtifact,
  parseNativeExecution as evalsParseNativeExecution,
} from '../../contract/src/index.ts';
import { runnerdBuildMetadata } from '../src/build-info.js';
import {
  EVAL_SESSION_PROVIDER_DRIVERS,
  MODEL_PRICING,
  MODEL_PRICING_VERSION,
  estimateModelCostNanodollars,
  parseEvalSessionRequest,
} from '../src/cli/eval-session-contract.js';
import { runEvalSessionCli } from '../src/cli/eval-session.js';
import { parsePaperclipNativeExecution } from '../src/evals/index.js';
import { DETERMINISTIC_BEHAVIOURS } from '../src/testing/deterministic-driver.js';
import { fileSha256, removeScratchDirs, scratchDir } from './support/executables.js';
import { evalSessionRequest } from '@paperclip-evals/test-kit/eval-session-request';

afterAll(removeScratchDirs);

const sha256 = (bytes: Buffer): string => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;

/** A runnerd stand-in: a shell script printing `metadata`, exiting `exitCode`, touching `ranFile`. */
function fakeRunnerd(dir: string, metadata: unknown = runnerdBuildMetadata(), exitCode = 0): string {
  const path = join(dir, 'paperclip-runnerd');
  const text = JSON.stringify(metadata).replaceAll("'", `'"'"'`);
  writeFileSync(path, `#!/bin/sh\nprintf '%s\\n' '${text}'\nexit ${exitCode}\n`);
  chmodSync(path, 0o755);
  return path;
}

const baseRequest = (runnerdPath: string, overrides: Record<string, unknown> = {}): Record<string, unknown> =>
  evalSessionRequest(
    {
      attemptId: 'attempt_bin_1',
      runnerd: { path: runnerdPath, sha256: fileSha256(runnerdPath) },
      runId: 'run_bin',
      seed: 'seed-bin',
      turnTimeoutMs: 10_000,
    },
    overrides,
  );

interface Session {
  readonly code: number;
  readonly stderr: string;
  readonly dir: string;
  readonly artifactText: string | null;
  readonly artifact: Record<string, unknown> | null;
}

async function session(
  request: (runnerd: string) => unknown,
  options: { metadata?: unknown; exitCode?: number; argv?: (req: string, out: string) => string[] } = {},
): Promise<Session> {
  const dir = scratchDir('eval-session-bin-');
  const runnerd = fakeRunnerd(dir, options.metadata, options.exitCode);
  const requestPath = join(dir, 'request.json');
  const value = request(runnerd);
  writeFileSync(requestPath, typeof value === 'string' ? value : JSON.stringify(value));
  const output = join(dir, 'artifact.json');
  let stderr = '';
  const code = await runEvalSessionCli(
    options.argv?.(requestPath, output) ?? ['--request', requestPath, '--output', output],
    {
      stderr: (text) => {
        stderr += text;
      },
      cwd: dir,
      now: () => new Date(),
    },
  );
  const artifactText = existsSync(output) ? readFileSync(output, 'utf8') : null;
  return {
    code,
    stderr,
    dir,
    artifactText,
    artifact: artifactText === null ? null : (JSON.parse(artifactText) as Record<string, unknown>),
  };
}

/** The bundle the artifact references, after checking the reference's digest and size. */
function referencedBundle(run: Session): ReturnType<typeof evalsParseNativeExecution> {
  const reference = run.artifact?.nativeExecution as { path: string; sha256: string; byteSize: number };
  const bytes = readFileSync(join(run.dir, reference.path));
  expect(sha256(bytes)).toBe(reference.sha256);
  expect(bytes.length).toBe(reference.byteSize);
  expect(() => parsePaperclipNativeExecution(JSON.parse(bytes.toString('utf8')))).not.toThrow();
  return evalsParseNativeExecution(bytes);
}

describe('parseEvalSessionRequest: each rule flipped is refused with its code', () => {
  const runnerd = '/opt/paperclip-runnerd';
  const valid = (): Record<string, unknown> => ({
    ...baseRequest('/dev/null'),
    runnerd: { path: runnerd, sha256: `sha256:${'c'.repeat(64)}` },
  });
  const rows: [string, (request: Record<string, unknown>) => unknown, string, string][] = [
    ['not an object', () => [], 'request_not_object', ''],
    [
      'another schema',
      (r) => ({ ...r, schema: 'paperclip-runner/eval-session-request/v2' }),
      'schema_unsupported',
      '/schema',
    ],
    ['attemptId missing', ({ attemptId: _a, ...r }) => r, 'text_required', '/attemptId'],
    ['prompt whitespace only', (r) => ({ ...r, prompt: '  \n' }), 'text_required', '/prompt'],
    ['model empty', (r) => ({ ...r, model: '' }), 'text_required', '/model'],
    ['attemptId a path', (r) => ({ ...r, attemptId: '../escape' }), 'attempt_id_invalid', '/attemptId'],
    ['unknown provider', (r) => ({ ...r, provider: 'gpt-shell' }), 'provider_unknown', '/provider'],
    [
      'driver of another provider',
      (r) => ({ ...r, driver: 'codex_app_server' }),
      'provider_driver_mismatch',
      '/driver',
    ],
    ['a live provider', (r) => ({ ...r, provider: 'codex' }), 'provider_unavailable', '/provider'],
    [
      'no provider (upstream default: codex)',
      ({ provider: _p, ...r }) => r,
      'provider_unavailable',
      '/provider',
    ],
    [
      'nativeResume',
      (r) => ({ ...r, nativeResume: { threadId: 't' } }),
      'native_resume_unsupported',
      '/nativeResume',
    ],
    [
      'collaboration instructions false',
      (r) => ({ ...r, includeCollaborationModeInstructions: false }),
      'collaboration_mode_instructions_invalid',
      '/includeCollaborationModeInstructions',
    ],
    ['runnerd missing', ({ runnerd: _r, ...r }) => r, 'runnerd_invalid', '/runnerd'],
    [
      'runnerd path empty',
      (r) => ({ ...r, runnerd: { path: '', sha256: `sha256:${'c'.repeat(64)}` } }),
      'runnerd_path_invalid',
      '/runnerd/path',
    ],
    [
      'runnerd digest short',
      (r) => ({ ...r, runnerd: { path: runnerd, sha256: 'sha256:abc' } }),
      'runnerd_digest_invalid',
      '/runnerd/sha256',
    ],
    ['limits missing', ({ limits: _l, ...r }) => r, 'limits_invalid', '/limits'],
    ...(['turnTimeoutMs', 'maxAgentTurns', 'maxEstimatedCostNanodollars'] as const).flatMap(
      (field): [string, (request: Record<string, unknown>) => unknown, string, string][] =>
        [0, -1, 1.5, 2 ** 53, '10', null].map((bad) => [
          `limits.${field} ${JSON.stringify(bad)}`,
          (r) => ({ ...r, limits: { ...(r.limits as object), [field]: bad } }),
          'limit_invalid',
          `/limits/${field}`,
        ]),
    ),
    ['session missing', ({ session: _s, ...r }) => r, 'session_invalid', '/session'],
    [
      'session.provider another',
      (r) => ({ ...r, session: { runId: 'run_1', provider: 'codex' } }),
      'session_provider_mismatch',
      '/session/provider',
    ],
    [
      'session.requestedModel another',
      (r) => ({ ...r, session: { runId: 'run_1', requestedModel: 'other' } }),
      'session_model_mismatch',
      '/session/requestedModel',
    ],
    ['session.runId missing', (r) => ({ ...r, session: {} }), 'session_run_id_invalid', '/session/runId'],
    [
      'session.sessionId not an id',
      (r) => ({ ...r, session: { runId: 'run_1', sessionId: 'a b' } }),
      'session_id_invalid',
      '/session/sessionId',
    ],
    [
      'session.seed empty',
      (r) => ({ ...r, session: { runId: 'run_1', seed: '' } }),
      'session_seed_invalid',
      '/session/seed',
    ],
    [
      'session.behaviour unknown',
      (r) => ({ ...r, session: { runId: 'run_1', behaviour: 'explode' } }),
      'session_behaviour_unknown',
      '/session/behaviour',
    ],
    [
      'session.behaviourByModel not an object',
      (r) => ({ ...r, session: { runId: 'run_1', behaviourByModel: ['fail'] } }),
      'session_behaviour_by_model_invalid',
      '/session/behaviourByModel',
    ],
    [
      'session.behaviourByModel with an unknown behaviour',
      (r) => ({ ...r, session: { runId: 'run_1', behaviourByModel: { 'model/x': 'explode' } } }),
      'session_behaviour_unknown',
      '/session/behaviourByModel/model~1x',
    ],
    ['evalCase missing', ({ evalCase: _e, ...r }) => r, 'eval_case_invalid', '/evalCase'],
    [
      'evalCase.caseId not an id',
      (r) => ({ ...r, evalCase: { ...(r.evalCase as object), caseId: '' } }),
      'eval_case_id_invalid',
      '/evalCase/caseId',
    ],
    [
      'evalCase.configSha256 upper-case',
      (r) => ({ ...r, evalCase: { ...(r.evalCase as object), configSha256: `sha256:${'B'.repeat(64)}` } }),
      'eval_case_digest_invalid',
      '/evalCase/configSha256',
    ],
  ];

  it('accepts the valid request, deriving the driver and keeping unknown top-level fields', () => {
    const parsed = parseEvalSessionRequest({ ...valid(), upstreamExtra: { kept: true } });
    expect(parsed).toMatchObject({
      provider: 'paperclip_deterministic',
      driver: 'paperclip_deterministic_harness',
      upstreamExtra: { kept: true },
    });
    expect(
      parseEvalSessionRequest({
        ...valid(),
        driver: 'paperclip_deterministic_harness',
        runnerd: { path: runnerd, sha256: 'C'.repeat(64) },
      }),
    ).toBeDefined();
  });

  it.each(rows)('%s → %s', (_name, mutate, code, path) => {
    let thrown: unknown;
    try {
      parseEvalSessionRequest(mutate(valid()));
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toMatchObject({ code: 'paperclip_eval_session_request_invalid' });
    expect((thrown as { issues: { code: string; path: string }[] }).issues).toContainEqual(
      expect.objectContaining({ code, path }),
    );
  });

  it('derives each upstream driver from its provider', () => {
    for (const [provider, driver] of Object.entries(EVAL_SESSION_PROVIDER_DRIVERS)) {
      const issues = (() => {
        try {
          parseEvalSessionRequest({ ...valid(), provider, driver, session: { runId: 'run_1', provider } });
          return [];
        } catch (error) {
          return (error as { issues: { code: string }[] }).issues.map((entry) => entry.code);
        }
      })();
      expect(issues).toEqual(provider === 'paperclip_deterministic' ? [] : ['provider_unavailable']);
    }
  });

  it('lists every issue at once', () => {
    expect(() => parseEvalSessionRequest({ schema: 'x' })).toThrow(
      expect.objectContaining({
        issues: expect.arrayContaining([
          expect.objectContaining({ code: 'schema_unsupported' }),
          expect.objectContaining({ code: 'runnerd_invalid' }),
          expect.objectContaining({ code: 'limits_invalid' }),
          expect.objectContaining({ code: 'session_invalid' }),
        ]) as unknown,
      }),
    );
  });
});

describe('a request in, an artifact and its bundle out', () => {
  it('succeed: exit 0, the success shape, runnerd [withheld], the bundle verified by digest', async () => {
    const run = await session((runnerd) => baseRequest(runnerd));
    expect(run.code, run.stderr).toBe(0);
    const artifact = run.artifact!;
    expect(artifact).toMatchObject({
      schema: 'paperclip-runner/eval-session-artifact/v1',
      attemptId: 'attempt_bin_1',
      runnerd: { path: '[withheld]', sha256: fileSha256(join(run.dir, 'paperclip-runnerd')) },
      requestedModel: 'paperclip-deterministic-1',
      provider: 'paperclip_deterministic',
      driver: 'paperclip_deterministic_harness',
      providerSessionId: 'session_attempt_bin_1',
      turn: { turnId: 'turn_attempt_bin_1_1', status: 'completed' },
      build: { schema: 'paperclip-runner/build-metadata/v1' },
    });
    expect(artifact).not.toHaveProperty('infrastructureFailure');
    expect(run.artifactText).not.toContain(run.dir); // no path of this machine
    const bundle = referencedBundle(run);
    expect(bundle.identity).toEqual({
      runId: 'run_bin',
      caseId: 'case_summary',
      configId: 'config_a',
      attemptId: 'attempt_bin_1',
    });
    expect(bundle.runner.binary.sha256).toBe((artifact.runnerd as { sha256: string }).sha256);
    expect(bundle.failure).toBeNull();
  });

  it('states cost as seed 001 says for a direct session: no receipt, the pinned estimate, the ledger kept apart', async () => {
    const run = await session((runnerd) => baseRequest(runnerd));
    const usage = run.artifact!.usage as Record<string, number | string | null>;
    const rates = MODEL_PRICING['paperclip-deterministic-1']!;
    const estimate = estimateModelCostNanodollars(rates, {
      inputTokens: usage.inputTokens as number,
      cachedInputTokens: 0,
      outputTokens: usage.outputTokens as number,
    });
    expect(usage).toMatchObject({
      providerReportedCostNanodollars: null,
      providerReportedCostProvenance: 'unavailable',
      estimatedCostNanodollars: estimate,
      pricingVersion: MODEL_PRICING_VERSION,
      ratesUsdPerMillionTokens: rates,
      costCoverage: 'estimated',
      cachedInputTokens: 0,
      reasoningTokens: 0,
    });
    const receipts = (run.artifact!.snapshot as { usageLedger: { reportedCost: { amountMicros: number } }[] })
      .usageLedger;
    expect(receipts).toHaveLength(1);
    // The driver's own figure: kept as the legacy ledger amount, never added to the estimate.
    expect(usage.legacyLedgerCostNanodollars).toBe(receipts[0]!.reportedCost.amountMicros * 1000);
    expect(usage.legacyLedgerCostNanodollars).not.toBe(estimate);
    const bundle = referencedBundle(run);
    expect(bundle.usage).toMatchObject({
      cost: null,
      providerReportedCostNanodollars: null,
      providerReportedCostProvenance: 'unavailable',
      estimatedCostNanodollars: estimate,
      costCoverage: 'estimated',
      legacyLedgerCostNanodollars: usage.legacyLedgerCostNanodollars,
    });
  });

  it('a driver keeping no ledger figure (session.pricing null): legacyLedgerCostNanodollars null, unknown, never 0', async () => {
    const run = await session((runnerd) =>
      baseRequest(runnerd, { session: { runId: 'run_bin', pricing: null } }),
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.artifact!.usage).toMatchObject({
      legacyLedgerCostNanodollars: null,
      costCoverage: 'estimated',
    });
    expect(referencedBundle(run).usage).toMatchObject({ cost: null, legacyLedgerCostNanodollars: null });
  });

  it.each(DETERMINISTIC_BEHAVIOURS)('%s: an artifact whose bundle both parsers accept', async (behaviour) => {
    const run = await session((runnerd) =>
      baseRequest(runnerd, { session: { runId: 'run_bin', behaviour } }),
    );
    const crashed = behaviour === 'harness_crash';
    expect(run.code, run.stderr).toBe(crashed || behaviour === 'over_budget' ? 2 : 0);
    const bundle = referencedBundle(run);
    if (crashed) {
      expect(run.artifact!.infrastructureFailure).toEqual({
        class: 'runner_infrastructure_failure',
        category: 'runner_infrastructure',
        retryable: true,
        diagnostics: { code: 'harness_exited' },
      });
      expect(bundle.failure).toMatchObject({
        classification: 'infrastructure',
        code: 'runner_infrastructure_failure',
      });
    } else if (behaviour === 'over_budget') {
      expect(run.artifact!.infrastructureFailure).toMatchObject({
        class: 'provider_budget_reached',
        retryable: false,
      });
      expect(bundle.failure).toMatchObject({ classification: 'budget', code: 'provider_budget_reached' });
    } else expect(run.artifact!.turn).toBeDefined();
  });
});

// Upstream's eval-session writes two projections of the session into its success artifact, by
// upstream's names and shapes: devtools (CapabilityDevtoolsSnapshot) and issueThread
// (CapabilityIssueThreadSnapshot, mode live); its failure artifact has neither. Ours are projected
// from the session's PRP events (docs/app-surface.md), and Evals' parser keeps them whole.
/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-call --
   the rows read arbitrary places of the two views. */
type Views = Record<string, any>;

describe("upstream's devtools and issueThread views of the session", () => {
  const eventsOf = (run: Session) => referencedBundle(run).events as readonly { sourceEventId: string }[];

  it.each(['succeed', 'fail', 'deny_tool', 'incomplete'] as const)(
    '%s: both views, projected from the events, kept whole by Evals',
    async (behaviour) => {
      const run = await session((runnerd) =>
        baseRequest(runnerd, { session: { runId: 'run_bin', behaviour } }),
      );
      expect(run.code, run.stderr).toBe(0);
      const artifact = run.artifact!;
      const devtools = artifact.devtools as Views;
      const thread = artifact.issueThread as Views;
      expect(Object.keys(artifact)).toEqual(
        expect.arrayContaining(['turn', 'snapshot', 'devtools', 'issueThread', 'usage', 'timing']),
      );
      // Upstream's order: turn, snapshot, devtools, issueThread, usage, timing.
      const order = Object.keys(artifact);
      expect(order.indexOf('devtools')).toBe(order.indexOf('snapshot') + 1);
      expect(order.indexOf('issueThread')).toBe(order.indexOf('devtools') + 1);
      const parsed = evalsParseEvalSessionArtifact(run.artifactText!);
      expect(parsed.devtools).toEqual(devtools);
      expect(parsed.issueThread).toEqual(thread);

      const events = eventsOf(run);
      const bundle = referencedBundle(run);
      const calls = bundle.semanticTools.calls;
      const changes = bundle.semanticTools.results.filter(
        (result) => result.outcome === 'succeeded' && result.operationId !== 'read_document',
      );
      expect(devtools).toMatchObject({
        schema: 'paperclip.capability.devtools.v1',
        currentRevision: changes.length,
        providerTrace: null,
      });
      expect(devtools.revisions.map((entry: { operationId: string }) => entry.operationId)).toEqual([
        'fixture.seed',
        ...changes.map((result) => result.operationId),
      ]);
      expect(devtools.protocol.map((entry: { id: string }) => entry.id)).toEqual(
        events.map((event) => event.sourceEventId),
      );
      expect(devtools.authority).toMatchObject({ workingDirectory: '[withheld]' });

      expect(thread).toMatchObject({
        schema: 'paperclip.capability.issue-thread-view.v1',
        sessionId: 'session_attempt_bin_1',
        mode: 'live',
        identity: { replaySource: 'live' },
        connection: { state: 'closed', attempt: 0 },
        replay: null,
        renderedAt: (artifact.timing as { finishedAt: string }).finishedAt,
      });
      expect(thread.turns).toHaveLength(1);
      expect(thread.turns[0]).toMatchObject({
        id: 'turn_attempt_bin_1_1',
        ordinal: 1,
        toolCallCount: calls.length,
      });
      const items = thread.turns[0].items as { kind: string; id: string }[];
      expect(items[0]).toMatchObject({
        kind: 'user_message',
        body: 'Summarise the quarterly incident review in the brief document.',
      });
      for (const call of calls) {
        const denied = bundle.semanticTools.denials.some((denial) => denial.callId === call.callId);
        expect(items.find((item) => item.id === `item-call-${call.callId}`)?.kind).toBe(
          denied ? 'denial' : 'tool_activity',
        );
      }
      expect(thread.evidence.calls).toHaveLength(calls.length);
      expect(
        thread.evidence.authorization.filter((entry: { allowed: boolean }) => !entry.allowed),
      ).toHaveLength(bundle.semanticTools.denials.length);
      expect(thread.evidence.runner).toHaveLength(events.length);
    },
  );

  it('withholds a credential-shaped text from devtools, as upstream does', async () => {
    const prompt = 'Use the key sk_live_0123456789abcdef to write the summary.';
    const run = await session((runnerd) => baseRequest(runnerd, { prompt }));
    expect(run.code, run.stderr).toBe(0);
    const devtools = JSON.stringify(run.artifact!.devtools);
    expect(devtools).not.toContain('sk_live_0123456789abcdef');
    expect(devtools).toContain('[redacted]');
  });

  it.each([
    [
      'a hanging turn',
      {
        session: { runId: 'run_bin', behaviour: 'hang' },
        limits: { turnTimeoutMs: 200, maxAgentTurns: 50, maxEstimatedCostNanodollars: 100_000_000 },
      },
    ],
    [
      'a budget overrun',
      { limits: { turnTimeoutMs: 10_000, maxAgentTurns: 1, maxEstimatedCostNanodollars: 100_000_000 } },
    ],
  ])('%s: the failure artifact has neither, as upstream', async (_row, edit) => {
    const run = await session((runnerd) => baseRequest(runnerd, edit));
    expect(run.code, run.stderr).toBe(2);
    expect(run.artifact).not.toHaveProperty('devtools');
    expect(run.artifact).not.toHaveProperty('issueThread');
  });
});

/* eslint-enable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-call */

describe('per-model behaviour: session.behaviourByModel', () => {
  // The request's model picks its entry; any other model gets `behaviour`. Both priced models run.
  it.each([
    ['paperclip-deterministic-1', 'completed', true, null],
    // The agent's own failed turn (a stale write, a conflict): upstream's attempt failure code for a
    // turn that did not complete (provider_turn_<status>), a behaviour result — never the runner's.
    [
      'paperclip-deterministic-2',
      'failed',
      false,
      { classification: 'provider_turn', code: 'provider_turn_failed' },
    ],
  ] as const)('%s: turn %s, objective satisfied %s', async (model, status, satisfied, failure) => {
    const run = await session((runnerd) =>
      baseRequest(runnerd, {
        model,
        session: {
          runId: 'run_bin',
          behaviour: 'succeed',
          behaviourByModel: { 'paperclip-deterministic-2': 'fail', 'paperclip-deterministic-x': 'hang' },
        },
      }),
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.artifact!.turn).toMatchObject({ status });
    expect(run.artifact!.usage).toMatchObject({ costCoverage: 'estimated' });
    const checks = (
      referencedBundle(run) as unknown as { observations: { checks: { id: string; passed: boolean }[] } }
    ).observations.checks;
    expect(checks.find((check) => check.id === 'objective-satisfied')?.passed).toBe(satisfied);
    const bundleFailure = referencedBundle(run).failure;
    if (failure === null) expect(bundleFailure).toBeNull();
    else expect(bundleFailure).toMatchObject(failure);
  });
});

describe('infrastructure failures: the failure artifact with upstream class, exit 2', () => {
  it('a hanging driver is provider_turn_timeout (retryable) after turnTimeoutMs', async () => {
    const started = Date.now();
    const run = await session((runnerd) =>
      baseRequest(runnerd, {
        session: { runId: 'run_bin', behaviour: 'hang' },
        limits: { turnTimeoutMs: 200, maxAgentTurns: 50, maxEstimatedCostNanodollars: 100_000_000 },
      }),
    );
    expect(run.code, run.stderr).toBe(2);
    // The driver hangs forever: ending at all, well under a minute, shows the turn timeout ended it.
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(run.artifact).toMatchObject({
      infrastructureError: 'the provider turn timed out after 200 ms',
      infrastructureFailure: {
        class: 'provider_turn_timeout',
        category: 'provider_lifecycle',
        retryable: true,
      },
      providerSessionId: 'session_attempt_bin_1',
    });
    expect(run.artifact).not.toHaveProperty('turn');
    expect(referencedBundle(run).failure).toMatchObject({
      classification: 'infrastructure',
      code: 'provider_turn_timeout',
    });
    expect(run.stderr).toContain('provider_turn_timeout');
  });

  it.each([
    ['agent turns', { maxAgentTurns: 1 }, 'agent turn limit exceeded'],
    ['estimated cost', { maxEstimatedCostNanodollars: 1 }, 'estimated cost limit exceeded'],
  ])('over the %s limit is provider_budget_reached (not retryable)', async (_name, limit, message) => {
    const run = await session((runnerd) =>
      baseRequest(runnerd, {
        limits: {
          turnTimeoutMs: 10_000,
          maxAgentTurns: 50,
          maxEstimatedCostNanodollars: 100_000_000,
          ...limit,
        },
      }),
    );
    expect(run.code, run.stderr).toBe(2);
    expect(run.artifact).toMatchObject({
      infrastructureFailure: {
        class: 'provider_budget_reached',
        category: 'provider_budget',
        retryable: false,
      },
      usage: { providerReportedCostProvenance: 'unavailable' },
    });
    expect(run.artifact!.infrastructureError).toContain(message);
    expect(referencedBundle(run).failure).toMatchObject({
      classification: 'budget',
      code: 'provider_budget_reached',
    });
  });

  it('a model without a pinned price cannot be shown under the cost limit: provider_budget_coverage_unknown', async () => {
    const run = await session((runnerd) => baseRequest(runnerd, { model: 'unpriced-model' }));
    expect(run.code).toBe(2);
    expect(run.artifact).toMatchObject({
      infrastructureFailure: { class: 'provider_budget_coverage_unknown', retryable: false },
      usage: { estimatedCostNanodollars: null, costCoverage: 'unpriced', pricingVersion: null },
    });
  });

  it('a runnerd digest mismatch: eval_orchestration_failure, runnerd never run, no session, no bundle', async () => {
    const run = await session(
      (runnerd) => ({
        ...baseRequest(runnerd),
        runnerd: { path: runnerd, sha256: `sha256:${'0'.repeat(64)}` },
      }),
      {
        metadata: 'not reached',
      },
    );
    expect(run.code, run.stderr).toBe(2);
    expect(run.artifact).toMatchObject({
      infrastructureError: `runnerd digest mismatch: expected sha256:${'0'.repeat(64)}, got ${fileSha256(join(run.dir, 'paperclip-runnerd'))}`,
      infrastructureFailure: {
        class: 'eval_orchestration_failure',
        category: 'eval_orchestration',
        retryable: false,
      },
      runnerd: { path: '[withheld]', sha256: fileSha256(join(run.dir, 'paperclip-runnerd')) },
      providerSessionId: null,
    });
    for (const absent of ['nativeExecution', 'snapshot', 'usage', 'turn'])
      expect(run.artifact).not.toHaveProperty(absent);
    expect(existsSync(join(run.dir, 'attempt_bin_1'))).toBe(false);
  });

  it('upper-case hex passes the parser but is not the digest: a mismatch', async () => {
    const run = await session((runnerd) => ({
      ...baseRequest(runnerd),
      runnerd: { path: runnerd, sha256: fileSha256(runnerd).toUpperCase().replace('SHA256:', 'sha256:') },
    }));
    expect(run.code).toBe(2);
    expect(run.artifact!.infrastructureFailure).toMatchObject({ class: 'eval_orchestration_failure' });
  });

  it.each([
    ['exits 1', { exitCode: 1 }, 'the runner exited 1'],
    ['prints no JSON', { metadata: 'garbage' }, 'no JSON build metadata'],
    [
      'is of another package version',
      { metadata: { ...runnerdBuildMetadata(), packageVersion: '9.9.9' } },
      'package version 9.9.9',
    ],
    [
      'speaks no common PRP version',
      {
        metadata: {
          ...runnerdBuildMetadata(),
          prp: { name: 'paperclip.runner', minimumVersion: 7, maximumVersion: 9 },
        },
      },
      'PRP',
    ],
  ])('a runnerd that %s is runner_infrastructure_failure (retryable)', async (_name, options, message) => {
    const run = await session((runnerd) => baseRequest(runnerd), options);
    expect(run.code, run.stderr).toBe(2);
    expect(run.artifact).toMatchObject({
      infrastructureFailure: { class: 'runner_infrastructure_failure', retryable: true },
    });
    expect(run.artifact!.infrastructureError).toContain(message);
  });
});

describe('nothing usable: exit 1, no artifact', () => {
  it.each([
    [
      'an unknown argument',
      (req: string, out: string) => ['--request', req, '--output', out, '--verbose', 'x'],
      'unknown argument: --verbose',
    ],
    ['no --output', (req: string) => ['--request', req], 'missing --output'],
    [
      'a value that is a flag',
      (_req: string, out: string) => ['--request', '--output', out],
      'missing --request',
    ],
    [
      '--request twice',
      (req: string, out: string) => ['--request', req, '--request', req, '--output', out],
      'given twice',
    ],
    [
      'an absent request file',
      (_req: string, out: string) => ['--request', 'absent.json', '--output', out],
      'ENOENT',
    ],
    [
      'an output folder that does not exist',
      (req: string) => ['--request', req, '--output', 'no/such/artifact.json'],
      'does not exist',
    ],
    [
      'a runnerd that cannot be read (no digest an artifact could state)',
      (req: string, out: string) => {
        const value = JSON.parse(readFileSync(req, 'utf8')) as Record<string, unknown>;
        const runnerd = { path: 'absent-runnerd', sha256: `sha256:${'0'.repeat(64)}` };
        writeFileSync(req, JSON.stringify({ ...value, runnerd }));
        return ['--request', req, '--output', out];
      },
      'runnerd cannot be read',
    ],
  ])('%s', async (_name, argv, message) => {
    const run = await session((runnerd) => baseRequest(runnerd), { argv });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(message);
    expect(run.artifact).toBeNull();
  });

  it('a request that is not JSON, or not valid', async () => {
    const notJson = await session(() => '{"schema":');
    const invalid = await session((runnerd) => baseRequest(runnerd, { limits: { turnTimeoutMs: 0 } }));
    for (const run of [notJson, invalid]) {
      expect(run.code).toBe(1);
      expect(run.artifact).toBeNull();
    }
    expect(notJson.stderr).toContain('is not JSON');
    expect(invalid.stderr).toContain('/limits/turnTimeoutMs');
  });
});
