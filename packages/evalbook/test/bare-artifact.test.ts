// Issue 17: eval-session artifacts as upstream's bin writes them — no native-execution bundle beside
// them — are ingested from the artifact alone (SQLite here; one row on PostgreSQL in
// ledger-store.test.ts): an infrastructure failure as an infrastructure outcome, a failed turn as a
// behaviour result, any other turn incomplete (no evidence: never solved), cost from the artifact's
// usage with its provenance (omitted usage is unknown, never zero). Mutation rows: each required field
// removed or flipped is a coded refusal and nothing is stored.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { attemptVerdict } from '../src/analysis/scoring.ts';
import { ARTIFACT_CASE_ID, ARTIFACT_RUN_ID } from '../src/ledger/convert.ts';
import { ingest, ingestExitCode } from '../src/ledger/ingest.ts';
import { openStore } from '../src/ledger/open-store.ts';
import { tempDir, writeBundle } from '@paperclip-evals/test-kit/bundle-files';
import { syntheticAttempt } from '@paperclip-evals/test-kit/synthetic';
import {
  upstreamFailure,
  upstreamRows,
  upstreamSuccess,
  writeUpstreamArtifacts,
} from '@paperclip-evals/test-kit/upstream-artifacts';

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir, cleanup } = await tempDir('bare-artifact-'));
});
afterEach(async () => {
  await cleanup();
});

const keyOf = (artifact: Record<string, unknown>) => ({
  runId: ARTIFACT_RUN_ID,
  caseId: ARTIFACT_CASE_ID,
  configId: `${String(artifact.provider)}/${String(artifact.requestedModel)}`,
  attemptId: String(artifact.attemptId),
});

describe('when an upstream artifact comes with no native bundle', () => {
  it('stores every row of the table, each with its honest status and cost, and re-ingest is a duplicate', async () => {
    const rows = upstreamRows();
    const paths = writeUpstreamArtifacts(join(dir, 'runs'), rows);
    const storeUrl = `sqlite:${join(dir, 'e.sqlite')}`;
    const summary = await ingest({ inputs: paths, storeUrl });
    expect(summary.invalid).toEqual([]);
    expect(summary).toMatchObject({ inserted: rows.length });
    expect(ingestExitCode(summary)).toBe(0);
    const store = await openStore(storeUrl);
    try {
      for (const row of rows) {
        const stored = await store.getAttempt(keyOf(row.artifact));
        expect(stored, row.name).not.toBeNull();
        const verdict = attemptVerdict(stored!.record, stored!.scores);
        expect(verdict.status, row.name).toBe(row.status);
        expect(verdict.reason ?? '', row.name).toContain(row.reason);
        expect(stored!.record.cost.coverage, row.name).toBe(row.coverage);
        expect(stored!.record.cost.effectiveNanodollars, row.name).toBe(row.effectiveNanodollars);
        // A direct session has no provider receipt: unknown, never $0.
        expect(stored!.record.cost.providerReportedNanodollars, row.name).toBeNull();
        if (row.artifact.usage === undefined)
          expect(stored!.record.cost.notes, row.name).toContain('usage_omitted');
        else if (row.coverage === 'estimated')
          expect(stored!.record.cost.pricingVersion, row.name).not.toBeNull();
        expect(stored!.record.evalSession, row.name).toMatchObject({
          provider: 'codex',
          driver: 'codex_app_server',
          requestedModel: 'gpt-5.5',
          artifact: { attemptId: row.artifact.attemptId },
        });
        const failure = row.artifact.infrastructureFailure as { retryable: boolean } | undefined;
        if (failure !== undefined)
          expect(stored!.record.failure?.retryable, row.name).toBe(failure.retryable);
      }
    } finally {
      await store.close();
    }
    expect(await ingest({ inputs: paths, storeUrl })).toMatchObject({
      inserted: 0,
      duplicates: rows.length,
    });
  });

  it('never stores one as solved, whatever its turn says', () => {
    for (const row of upstreamRows()) expect(row.status, row.name).not.toBe('solved');
  });

  const success = (): Record<string, unknown> => upstreamSuccess('up_mutant');
  const usageOf = (artifact: Record<string, unknown>): Record<string, unknown> =>
    artifact.usage as Record<string, unknown>;
  /** The infrastructure failure of a turn that timed out, with the retryability given. */
  const turnTimeout = (retryable: boolean) => ({
    class: 'provider_turn_timeout',
    category: 'provider_lifecycle',
    retryable,
  });
  /** The accounting failure of a reached budget (not retryable), in the category given. */
  const budgetReached = (category: string) => ({
    class: 'provider_budget_reached',
    category,
    retryable: false,
  });
  const mutations: [string, (artifact: Record<string, unknown>) => void, string][] = [
    ['attemptId removed', (a) => delete a.attemptId, 'schema_violation'],
    ['build removed', (a) => delete a.build, 'schema_violation'],
    ['runnerd removed', (a) => delete a.runnerd, 'schema_violation'],
    [
      'runnerd path written',
      (a) => ((a.runnerd as Record<string, unknown>).path = '/opt/runnerd'),
      'runnerd_path_not_withheld',
    ],
    [
      'runnerd digest not a digest',
      (a) => ((a.runnerd as Record<string, unknown>).sha256 = 'abc'),
      'digest_malformed',
    ],
    ['requestedModel removed', (a) => delete a.requestedModel, 'schema_violation'],
    ['provider unknown', (a) => (a.provider = 'gemini'), 'schema_violation'],
    ['driver of another provider', (a) => (a.driver = 'opencode_server'), 'provider_driver_mismatch'],
    ['providerSessionId removed', (a) => delete a.providerSessionId, 'schema_violation'],
    ['timing removed', (a) => delete a.timing, 'schema_violation'],
    ['turn removed', (a) => delete a.turn, 'artifact_success_incomplete'],
    ['snapshot removed', (a) => delete a.snapshot, 'artifact_success_incomplete'],
    ['usage removed from a completed turn', (a) => delete a.usage, 'artifact_success_incomplete'],
    ['turn status unknown', (a) => ((a.turn as Record<string, unknown>).status = 'done'), 'schema_violation'],
    [
      'provider figure null, provenance not unavailable',
      (a) => (usageOf(a).providerReportedCostProvenance = 'legacy_runner_usage_ledger'),
      'usage_provenance_mismatch',
    ],
    [
      'an estimate without its price list',
      (a) => (usageOf(a).pricingVersion = null),
      'usage_pricing_missing',
    ],
    [
      'coverage unpriced beside an estimate',
      (a) => (usageOf(a).costCoverage = 'unpriced'),
      'usage_coverage_mismatch',
    ],
    ['a negative estimate', (a) => (usageOf(a).estimatedCostNanodollars = -1), 'cost_nanodollars_invalid'],
    [
      'the older usage shape without provenance or coverage',
      (a) => {
        delete usageOf(a).providerReportedCostProvenance;
        delete usageOf(a).costCoverage;
      },
      'schema_violation',
    ],
    [
      'finished before it started',
      (a) => ((a.timing as Record<string, unknown>).finishedAt = '2026-12-01T09:00:00.000Z'),
      'timing_out_of_order',
    ],
    [
      'a failure class with another retryability',
      (a) => {
        delete a.turn;
        a.infrastructureError = 'timed out';
        a.infrastructureFailure = turnTimeout(false);
      },
      'failure_class_mismatch',
    ],
    [
      'a failure without its message',
      (a) => {
        delete a.turn;
        a.infrastructureFailure = turnTimeout(true);
      },
      'artifact_failure_incomplete',
    ],
    [
      'a failure beside a turn',
      (a) => {
        a.infrastructureError = 'timed out';
        a.infrastructureFailure = turnTimeout(true);
      },
      'artifact_shape_ambiguous',
    ],
    [
      'an accounting failure without its message',
      (a) => {
        a.accountingFailure = budgetReached('provider_budget');
      },
      'artifact_accounting_incomplete',
    ],
    [
      'an accounting failure of a failed turn',
      (a) => {
        (a.turn as Record<string, unknown>).status = 'failed';
        a.accountingError = 'agent turn limit exceeded';
        a.accountingFailure = budgetReached('provider_budget');
      },
      'artifact_shape_ambiguous',
    ],
    [
      'an accounting failure of another category',
      (a) => {
        a.accountingError = 'agent turn limit exceeded';
        a.accountingFailure = budgetReached('provider_lifecycle');
      },
      'failure_class_mismatch',
    ],
  ];
  it.each(mutations.map(([name, mutate, code]) => [name, code, mutate] as const))(
    'refuses %s (%s) and stores nothing',
    async (_name, code, mutate) => {
      const artifact = success();
      mutate(artifact);
      const [path] = writeUpstreamArtifacts(dir, [
        {
          name: 'mutant',
          artifact,
          status: 'incomplete',
          reason: '',
          coverage: 'unpriced',
          effectiveNanodollars: null,
        },
      ]);
      const storeUrl = `sqlite:${join(dir, 'm.sqlite')}`;
      const summary = await ingest({ inputs: [path!], storeUrl });
      expect(summary.inserted).toBe(0);
      expect(ingestExitCode(summary)).toBe(1);
      expect(summary.invalid[0]?.issues.map((issue) => issue.code)).toContain(code);
    },
  );

  it('with --env, an artifact alone is not of the suite: refused by the first pass, nothing of the run written', async () => {
    const { caseSha256, configSha256 } = syntheticAttempt({}).input as {
      caseSha256: string;
      configSha256: string;
    };
    const storeUrl = `sqlite:${join(dir, 'env.sqlite')}`;
    const environmentPath = join(dir, 'evalbook.json');
    await writeFile(
      environmentPath,
      JSON.stringify({
        schema: 'paperclip-evals/environment/v1',
        name: 't',
        store: storeUrl,
        cases: [{ id: 'case_synthetic', sha256: caseSha256 }],
        configs: [
          { id: 'config_synthetic', sha256: configSha256, model: 'm1', driver: 'paperclip-deterministic' },
        ],
      }),
    );
    const clean = await writeBundle(dir, 'clean.json', { attemptId: 'attempt_clean' });
    const [bare] = writeUpstreamArtifacts(dir, upstreamRows().slice(0, 1));
    const summary = await ingest({ inputs: [clean, bare!], environmentPath, batchSize: 1 });
    expect(summary).toMatchObject({ inserted: 0 });
    expect(summary.foreign).toHaveLength(1);
    expect(summary.foreign[0]?.key).toEqual(keyOf(upstreamRows()[0]!.artifact));
    expect(summary.foreign[0]?.issues.map((issue) => issue.code)).toEqual([
      'case_not_in_environment',
      'config_not_in_environment',
    ]);
  });
});

describe('when an artifact alone states its planned attempt (evalCase, a campaign synthesizes one)', () => {
  /** What `evals run` writes for a try that left no artifact of its own: a campaign class, its planned key. */
  const synthesized = (
    attemptId: string,
    evalCase: Record<string, string>,
    failureClass = 'eval_session_timeout',
  ): Record<string, unknown> => {
    const base = upstreamFailure(attemptId, 'provider_turn_timeout', false);
    return {
      ...base,
      infrastructureError: 'the eval-session did not end within 2000 ms (its process group was killed)',
      infrastructureFailure: {
        class: failureClass,
        category:
          failureClass === 'eval_session_crashed' ? 'runner_infrastructure' : 'campaign_orchestration',
        retryable: true,
        diagnostics: {},
      },
      evalCase,
      synthesizedBy: 'paperclip-evals campaign',
    };
  };

  async function suite(): Promise<{ environmentPath: string; evalCase: Record<string, string> }> {
    const { caseSha256, configSha256 } = syntheticAttempt({}).input as {
      caseSha256: string;
      configSha256: string;
    };
    const environmentPath = join(dir, 'suite.json');
    await writeFile(
      environmentPath,
      JSON.stringify({
        schema: 'paperclip-evals/environment/v1',
        name: 't',
        cases: [{ id: 'case_synthetic', sha256: caseSha256 }],
        configs: [
          { id: 'config_synthetic', sha256: configSha256, model: 'm1', driver: 'paperclip-deterministic' },
        ],
      }),
    );
    return {
      environmentPath,
      evalCase: {
        runId: 'campaign-1',
        caseId: 'case_synthetic',
        caseSha256,
        configId: 'config_synthetic',
        configSha256,
      },
    };
  }

  it('is stored under that run, case and config, of the suite, errored with its (campaign) class and retryability', async () => {
    const { environmentPath, evalCase } = await suite();
    const path = join(dir, 'synthesized.json');
    await writeFile(path, JSON.stringify(synthesized('att_1', evalCase)));
    const storeUrl = `sqlite:${join(dir, 'planned.sqlite')}`;
    const summary = await ingest({ inputs: [path], storeUrl, environmentPath });
    expect(summary.invalid).toEqual([]);
    expect(summary.foreign).toEqual([]);
    expect(summary.inserted).toBe(1);
    const store = await openStore(storeUrl);
    try {
      const stored = await store.getAttempt({
        runId: 'campaign-1',
        caseId: 'case_synthetic',
        configId: 'config_synthetic',
        attemptId: 'att_1',
      });
      expect(stored?.record.failure).toMatchObject({
        classification: 'infrastructure',
        code: 'eval_session_timeout',
        retryable: true,
      });
      expect(attemptVerdict(stored!.record, stored!.scores).status).toBe('errored');
      expect(stored?.record.cost.effectiveNanodollars).toBeNull();
    } finally {
      await store.close();
    }
  });

  it('is not of the suite when its evalCase names another digest (foreign, nothing written)', async () => {
    const { environmentPath, evalCase } = await suite();
    const path = join(dir, 'other.json');
    await writeFile(
      path,
      JSON.stringify(synthesized('att_2', { ...evalCase, caseSha256: `sha256:${'f'.repeat(64)}` })),
    );
    const summary = await ingest({
      inputs: [path],
      storeUrl: `sqlite:${join(dir, 'f.sqlite')}`,
      environmentPath,
    });
    expect(summary.inserted).toBe(0);
    expect(summary.foreign[0]?.issues.map((issue) => issue.code)).toContain('case_digest_differs');
  });

  it.each([
    [
      'a campaign class with the wrong category',
      { category: 'eval_orchestration' },
      'failure_class_mismatch',
    ],
    ['a campaign class with the wrong retryability', { retryable: false }, 'failure_class_mismatch'],
    ['a class nobody has', { class: 'eval_session_mystery' }, 'schema_violation'],
  ])('refuses %s', async (_name, change, code) => {
    const { evalCase } = await suite();
    const artifact = synthesized('att_3', evalCase);
    const path = join(dir, 'bad.json');
    await writeFile(
      path,
      JSON.stringify({
        ...artifact,
        infrastructureFailure: { ...(artifact.infrastructureFailure as object), ...change },
      }),
    );
    const summary = await ingest({ inputs: [path], storeUrl: `sqlite:${join(dir, 'b.sqlite')}` });
    expect(summary.inserted).toBe(0);
    expect(summary.invalid[0]?.issues.map((issue) => issue.code)).toContain(code);
  });
});
