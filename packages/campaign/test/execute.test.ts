// executeCampaign with real processes: a stand-in eval-session (support/stand-in-eval-session.mjs)
// that succeeds, fails its turn, fails retryably or not, hangs, writes garbage, exits 0 without
// output or exits 1 — each try classified as the contract says and retried only when retryable;
// a rerun starts no session; a cost ceiling stops scheduling with known costs and with unknown ones.
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

import {
  SqliteStore,
  attemptVerdict,
  ingest,
  loadEnvironment,
  openStore,
  summariseStore,
} from '@paperclip-evals/evalbook';

import { QUALIFIED_RECEIPT } from '@paperclip-evals/test-kit/qualification-record';
import { EVALS_BIN } from '@paperclip-evals/test-kit/repo';

import { executeCampaign, startSettlement } from '../src/execute.ts';
import { planCampaign, planDigest } from '../src/plan.ts';
import { createStandIn, standInRelease, suiteEnvironment } from './support/stand-in.ts';

import type { ExecuteResult } from '../src/execute.ts';
import type { StandIn, SuiteCase } from './support/stand-in.ts';

let scratch: string;
let standIn: StandIn;
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'campaign-execute-'));
  standIn = await createStandIn('execute');
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
  await standIn.remove();
});

let runs = 0;
async function run(
  campaignId: string,
  cases: readonly SuiteCase[],
  options: Parameters<typeof suiteEnvironment>[1] & {
    allowUnpriced?: boolean;
    maxParallel?: number;
    store?: string;
    workDir?: string;
    /** Changes the suite (a lane's model, a case's digest) before it is planned. */
    edit?: (environment: Record<string, unknown>) => void;
    /** Another joined release than the stand-in's (a rerun on another runnerd or package). */
    release?: Partial<ReturnType<typeof standInRelease>>;
    /** The first Ctrl-C (no new start) and the second (running sessions killed). */
    stop?: AbortSignal;
    kill?: AbortSignal;
  } = {},
): Promise<ExecuteResult> {
  const dir = join(scratch, `${campaignId}-${runs++}`);
  const environmentPath = `${dir}.json`;
  const suite = suiteEnvironment(cases, options);
  options.edit?.(suite);
  await writeFile(environmentPath, JSON.stringify(suite));
  const environment = await loadEnvironment(environmentPath);
  const plan = planCampaign(environment, { campaignId });
  return executeCampaign({
    plan,
    shard: null,
    release: { ...standInRelease(standIn), ...options.release },
    environment,
    environmentPath,
    storeUrl: options.store ?? `sqlite:${join(scratch, `${campaignId}.sqlite`)}`,
    workDir: options.workDir ?? join(dir, 'work'),
    maxParallel: options.maxParallel ?? 2,
    ...(options.allowUnpriced === undefined ? {} : { allowUnpriced: options.allowUnpriced }),
    ...(options.stop === undefined ? {} : { stop: options.stop }),
    ...(options.kill === undefined ? {} : { kill: options.kill }),
  });
}

describe('each way an eval-session ends is classified, and retried only when retryable', () => {
  let result: ExecuteResult;
  const cases: SuiteCase[] = [
    { id: 'c_succeed', behaviour: 'succeed' },
    { id: 'c_fail', behaviour: 'fail' },
    { id: 'c_flaky', behaviour: 'flaky' },
    { id: 'c_retryable', behaviour: 'always_retryable' },
    { id: 'c_nonretryable', behaviour: 'nonretryable' },
    { id: 'c_hang', behaviour: 'hang' },
    { id: 'c_garbage', behaviour: 'garbage' },
    { id: 'c_silent', behaviour: 'silent' },
    { id: 'c_refuse', behaviour: 'refuse' },
    { id: 'c_wrong_runnerd', behaviour: 'wrong_runnerd' },
  ];
  beforeAll(async () => {
    result = await run('classes', cases, { retries: 1 });
  }, 60_000);

  it.each([
    ['c_succeed', 'passed', null, 1],
    ['c_fail', 'behavior_failure', null, 1],
    ['c_flaky', 'passed', null, 2],
    ['c_retryable', 'infrastructure_failure', 'runner_infrastructure_failure', 2],
    ['c_nonretryable', 'infrastructure_failure', 'eval_orchestration_failure', 1],
    ['c_hang', 'infrastructure_failure', 'eval_session_timeout', 2],
    ['c_garbage', 'infrastructure_failure', 'eval_session_artifact_invalid', 1],
    ['c_silent', 'infrastructure_failure', 'eval_session_artifact_missing', 1],
    ['c_refuse', 'infrastructure_failure', 'eval_session_refused', 1],
    // A bundle naming another runnerd than the joined one is never stored (ingest's runnerd_not_qualified):
    // the try is recorded as evidence the ledger refused, never tried again.
    ['c_wrong_runnerd', 'infrastructure_failure', 'eval_session_evidence_refused', 1],
  ])('%s: %s (%s), %i tries', async (caseId, disposition, failureClass, tries) => {
    const outcome = result.attempts.find((attempt) => attempt.caseId === caseId);
    expect(outcome?.disposition, outcome?.reason ?? '').toBe(disposition);
    expect(outcome?.infrastructureFailure?.class ?? null).toBe(failureClass);
    expect(outcome?.tries).toHaveLength(tries);
    // Every try is kept with its own attempt id, and each started exactly one session.
    const started = await standIn.spawns();
    for (const attempt of outcome?.tries ?? [])
      expect(started.filter((id) => id === attempt.attemptId)).toHaveLength(1);
    expect(outcome?.finalAttemptId).toBe(outcome?.tries.at(-1)?.attemptId);
  });

  it("says why a bundle naming another runnerd was not stored: the ledger's code, on the try and in the ledger", async () => {
    const outcome = result.attempts.find((attempt) => attempt.caseId === 'c_wrong_runnerd')!;
    expect(outcome.reason).toContain('runnerd_not_qualified');
    expect(outcome.infrastructureFailure).toEqual({
      class: 'eval_session_evidence_refused',
      category: 'eval_orchestration',
      retryable: false,
    });
    expect(outcome.tries[0]).toMatchObject({
      ingest: 'synthesized',
      ledgerRefusal: { code: 'runnerd_not_qualified' },
    });
    const store = await openStore(`sqlite:${join(scratch, 'classes.sqlite')}`, { mustExist: true });
    try {
      const stored = await store.getAttempt({
        runId: 'classes',
        caseId: 'c_wrong_runnerd',
        configId: 'lane_a',
        attemptId: outcome.finalAttemptId!,
      });
      expect(stored?.record.evalSession?.artifact.infrastructureFailure).toMatchObject({
        class: 'eval_session_evidence_refused',
        diagnostics: { ledgerCode: 'runnerd_not_qualified' },
      });
      // The session's own usage is kept: its cost counts.
      expect(stored?.record.cost.estimatedNanodollars).toBe(1_000_000);
    } finally {
      await store.close();
    }
  });

  it('leaves no unsettled start behind a try that ended: every try has its start, settled exactly when the ledger holds its attempt', async () => {
    const store = await openStore(`sqlite:${join(scratch, 'classes.sqlite')}`, { mustExist: true });
    try {
      const starts = new Map((await store.campaignTries('classes')).map((entry) => [entry.tryId, entry]));
      const tries = result.attempts.flatMap((attempt) => attempt.tries);
      expect(starts.size).toBe(tries.length);
      for (const entry of tries) {
        // Each way a session ended here comes to a result in the ledger: none is left unknown.
        expect(startSettlement(entry.ingest), entry.attemptId).toBe('settled');
        expect(starts.get(entry.attemptId)?.settled, entry.attemptId).toBe(true);
      }
    } finally {
      await store.close();
    }
  });

  it.each([
    ['inserted', 'settled'],
    ['duplicate', 'settled'],
    ['synthesized', 'settled'],
    ['refused', 'unknown_spend'],
    ['none', 'unknown_spend'],
  ] as const)('a try whose ingest is %s: its start is %s', (ingest, settlement) => {
    expect(startSettlement(ingest)).toBe(settlement);
  });

  it('counts the cost of every try, retries included', () => {
    const flaky = result.attempts.find((attempt) => attempt.caseId === 'c_flaky');
    // The stand-in estimates 1000 µ$ (1,000,000 n$) per try that got as far as usage: both tries.
    expect(flaky?.cost.observedNanodollars).toBe(2_000_000);
    expect(flaky?.tries.map((entry) => entry.cost.observedFrom)).toEqual(['estimated', 'estimated']);
  });

  it("puts every try without evidence in the ledger: the campaign's artifact, errored with its class", async () => {
    const store = await openStore(`sqlite:${join(scratch, 'classes.sqlite')}`, { mustExist: true });
    try {
      for (const caseId of [
        'c_retryable',
        'c_nonretryable',
        'c_hang',
        'c_garbage',
        'c_silent',
        'c_refuse',
        'c_wrong_runnerd',
      ]) {
        const outcome = result.attempts.find((attempt) => attempt.caseId === caseId)!;
        for (const attempt of outcome.tries) {
          expect(attempt.ingest, `${caseId} ${attempt.attemptId}`).toBe('synthesized');
          const stored = await store.getAttempt({
            runId: 'classes',
            caseId,
            configId: 'lane_a',
            attemptId: attempt.attemptId,
          });
          expect(stored?.record.failure, caseId).toMatchObject({
            classification: 'infrastructure',
            code: outcome.infrastructureFailure?.class,
            retryable: outcome.infrastructureFailure?.retryable,
          });
          expect(attemptVerdict(stored!.record, stored!.scores).status, caseId).toBe('errored');
          expect(stored?.record.evalSession?.artifact.synthesizedBy).toBe('paperclip-evals campaign');
        }
      }
    } finally {
      await store.close();
    }
  });

  it("reports count each planned attempt once, by its final try (the campaign's own judgement): a try its retry replaced counts nowhere", async () => {
    const store = await openStore(`sqlite:${join(scratch, 'classes.sqlite')}`, { mustExist: true });
    try {
      const summary = await summariseStore(store);
      const tries = result.attempts.reduce((sum, attempt) => sum + attempt.tries.length, 0);
      // Tries with no ledger row (none here: each try is stored, evidence or synthesized) replace nothing.
      expect(summary.attempts).toBe(result.attempts.length);
      expect(summary.leftOut.retried).toBe(tries - result.attempts.length);
      expect(summary.leftOut.retried).toBeGreaterThan(0);
      for (const outcome of result.attempts) {
        const cell = summary.grid.find((entry) => entry.caseId === outcome.caseId)!;
        // One attempt per cell, with the final try's status: c_flaky (retried, then passed) is solved, not flaky.
        expect(
          Object.values(cell.statusCounts).reduce((a, b) => a + b, 0),
          outcome.caseId,
        ).toBe(1);
        const final = await store.getAttempt({
          runId: 'classes',
          caseId: outcome.caseId,
          configId: 'lane_a',
          attemptId: outcome.finalAttemptId ?? '',
        });
        expect(cell.statusCounts[attemptVerdict(final!.record, final!.scores).status], outcome.caseId).toBe(
          1,
        );
        expect(cell.flaky, outcome.caseId).toBe(false);
        if (outcome.disposition === 'passed') expect(cell.statusCounts.solved, outcome.caseId).toBe(1);
      }
    } finally {
      await store.close();
    }
  });

  it('starts no session for what the ledger already holds: a rerun counts the tries made, never retrying past the limit', async () => {
    const before = await standIn.starts();
    // The same campaign and suite again: every try is in the ledger (with evidence, or the
    // campaign's artifact — the one whose bundle the ledger refused included), so none runs again.
    const again = await run('classes', cases, { retries: 1 });
    const resumed = again.attempts.filter((attempt) => attempt.resumed).map((attempt) => attempt.caseId);
    expect(resumed.sort()).toEqual(cases.map((entry) => entry.id).sort());
    for (const caseId of ['c_retryable', 'c_hang', 'c_nonretryable', 'c_garbage', 'c_wrong_runnerd'])
      expect(again.attempts.find((attempt) => attempt.caseId === caseId)).toMatchObject({
        disposition: 'infrastructure_failure',
        infrastructureFailure: result.attempts.find((attempt) => attempt.caseId === caseId)
          ?.infrastructureFailure,
        finalAttemptId: result.attempts.find((attempt) => attempt.caseId === caseId)?.finalAttemptId,
      });
    const started = [...(await standIn.starts())].filter((start) => !before.has(start));
    const held = result.attempts.filter((attempt) => resumed.includes(attempt.caseId));
    expect(started.filter((start) => held.some((attempt) => start.startsWith(attempt.attemptId)))).toEqual(
      [],
    );
    expect(started).toHaveLength(again.attempts.reduce((sum, attempt) => sum + attempt.tries.length, 0));
  }, 60_000);
});

describe('an artifact evals validate refuses is never a solved or failed attempt (mutation table)', () => {
  // Each row: one change to a success artifact (or its bundle) of a passing or a failing turn; the
  // session still exits 0. The campaign reads the artifact with the reader evals validate uses.
  const MUTATIONS = [
    'build_without_package',
    'turn_without_text',
    'driver_of_another_provider',
    'runnerd_path_written',
    'timing_out_of_order',
    'usage_provenance_mismatch',
    'success_without_snapshot',
    'usage_not_the_bundles',
    'bundle_digest_mismatch',
    'bundle_size_mismatch',
    'bundle_missing',
    'bundle_outside_the_folder',
    'bundle_of_another_package',
    'bundle_invalid',
    'bundle_of_another_attempt',
    'duplicate_key',
  ];
  const cases: SuiteCase[] = [
    { id: 'control_pass', behaviour: 'succeed' },
    { id: 'control_fail', behaviour: 'fail' },
    ...MUTATIONS.flatMap((mutation) => [
      { id: `pass_${mutation}`, behaviour: 'succeed', mutation },
      { id: `fail_${mutation}`, behaviour: 'fail', mutation },
    ]),
  ];
  let result: ExecuteResult;
  let validated: Map<string, { status: string; issues?: { code: string }[] }>;
  beforeAll(async () => {
    const workDir = join(scratch, 'mutations-work');
    result = await run('mutations', cases, { retries: 1, workDir });
    // `evals validate --json` on every try's artifact, through the built CLI: the verdicts to match.
    const paths = result.attempts.map((attempt) =>
      join(workDir, attempt.finalAttemptId!, 'output', 'artifact.json'),
    );
    const stdout = await new Promise<string>((resolve, reject) => {
      execFile(process.execPath, [EVALS_BIN, 'validate', '--json', ...paths], (error, out) => {
        // Exit 1: some input invalid (what this table expects).
        if (error === null || error.code === 1) resolve(out);
        else reject(new Error(`evals validate failed: ${error.message}`));
      });
    });
    const report = JSON.parse(stdout) as { files: { status: string; issues?: { code: string }[] }[] };
    validated = new Map(result.attempts.map((attempt, index) => [attempt.caseId, report.files[index]!]));
  }, 120_000);

  it.each([
    ['control_pass', 'passed'],
    ['control_fail', 'behavior_failure'],
  ])('%s: an artifact evals validate accepts is %s', (caseId, disposition) => {
    expect(validated.get(caseId)?.status).toBe('valid');
    expect(result.attempts.find((attempt) => attempt.caseId === caseId)?.disposition).toBe(disposition);
  });

  it.each(cases.filter((entry) => entry.mutation !== undefined).map((entry) => [entry.id]))(
    '%s: refused by evals validate, so an infrastructure failure (not retried), recorded, never a result',
    async (caseId) => {
      const verdict = validated.get(caseId);
      expect(verdict?.status).toBe('invalid');
      const outcome = result.attempts.find((attempt) => attempt.caseId === caseId)!;
      expect(outcome.disposition, outcome.reason ?? '').toBe('infrastructure_failure');
      expect(outcome.infrastructureFailure).toEqual({
        class: 'eval_session_artifact_invalid',
        category: 'eval_orchestration',
        retryable: false,
      });
      expect(outcome.tries).toHaveLength(1);
      // The reason names what evals validate names.
      for (const issue of verdict?.issues ?? []) expect(outcome.reason).toContain(issue.code);
      // In the ledger: the campaign's artifact of the try (errored), never the session's bundle.
      expect(outcome.tries[0]?.ingest).toBe('synthesized');
      const store = await openStore(`sqlite:${join(scratch, 'mutations.sqlite')}`, { mustExist: true });
      try {
        const stored = await store.getAttempt({
          runId: 'mutations',
          caseId,
          configId: 'lane_a',
          attemptId: outcome.finalAttemptId!,
        });
        expect(stored?.record.evalSession?.artifact.synthesizedBy).toBe('paperclip-evals campaign');
        expect(attemptVerdict(stored!.record, stored!.scores).status).toBe('errored');
      } finally {
        await store.close();
      }
    },
  );
});

describe("a success artifact with no native bundle (upstream's eval-session writes none)", () => {
  it('is recorded from the artifact alone under the planned try, coded native_bundle_absent, never solved, its cost counted; a rerun starts no session', async () => {
    const store = `sqlite:${join(scratch, 'alone.sqlite')}`;
    const workDir = join(scratch, 'alone-work');
    const cases: SuiteCase[] = [
      { id: 'c_completed', behaviour: 'succeed', mutation: 'no_native_bundle' },
      { id: 'c_failed', behaviour: 'fail', mutation: 'no_native_bundle' },
    ];
    const result = await run('alone', cases, { store, workDir });
    const of = (caseId: string) => result.attempts.find((attempt) => attempt.caseId === caseId)!;
    // A completed turn has nothing to grade (incomplete: recording missing); a failed turn is the
    // behaviour result upstream scores it as. Neither is solved; both are coded and stored.
    expect(of('c_completed')).toMatchObject({
      disposition: 'grading_evidence_failure',
      reasonCode: 'native_bundle_absent',
      infrastructureFailure: null,
    });
    expect(of('c_completed').reason).toMatch(/^native_bundle_absent: .*recording missing/);
    expect(of('c_failed')).toMatchObject({
      disposition: 'behavior_failure',
      reasonCode: 'native_bundle_absent',
    });
    for (const caseId of ['c_completed', 'c_failed']) {
      const outcome = of(caseId);
      expect(outcome.tries).toEqual([
        expect.objectContaining({
          ingest: 'inserted',
          evidenceGap: expect.objectContaining({ code: 'native_bundle_absent' }) as unknown,
          infrastructureFailure: null,
        }),
      ]);
      // The session's usage is the try's cost (the stand-in's 1,000 µ$): counted, never zero or lost.
      expect(outcome.cost.observedNanodollars).toBe(1_000_000);
    }
    const opened = await openStore(store, { mustExist: true });
    try {
      for (const caseId of ['c_completed', 'c_failed']) {
        const outcome = of(caseId);
        const stored = await opened.getAttempt({
          runId: 'alone',
          caseId,
          configId: 'lane_a',
          attemptId: outcome.finalAttemptId!,
        });
        expect(stored?.record.evalSession?.artifact.evalCase).toMatchObject({ runId: 'alone', caseId });
        expect(stored?.record.evalSession?.artifact.synthesizedBy).toBeUndefined();
        expect(stored?.record.cost.estimatedNanodollars).toBe(1_000_000);
        expect(attemptVerdict(stored!.record, stored!.scores).status).not.toBe('solved');
      }
    } finally {
      await opened.close();
    }
    // A rerun counts both from the ledger, with their code: no session starts.
    const before = await standIn.starts();
    const again = await run('alone', cases, { store, workDir });
    expect(
      again.attempts.map((attempt) => [attempt.resumed, attempt.disposition, attempt.reasonCode]),
    ).toEqual([
      [true, 'grading_evidence_failure', 'native_bundle_absent'],
      [true, 'behavior_failure', 'native_bundle_absent'],
    ]);
    expect([...(await standIn.starts())].filter((start) => !before.has(start))).toEqual([]);
  }, 60_000);
});

describe('a try whose bundle the ledger refuses for a digest conflict', () => {
  it('is recorded as eval_session_evidence_refused with the ledger code, and a rerun starts no session for it', async () => {
    const workDir = join(scratch, 'conflict-work');
    const store = `sqlite:${join(scratch, 'conflict.sqlite')}`;
    const cases = [{ id: 'c_conflict', behaviour: 'await_go' }];
    const running = run('conflict', cases, { retries: 1, workDir, store, turnTimeoutMs: 20_000 });
    // While the session waits, another bundle of the same try (its failed turn: other bytes) lands
    // in the ledger first — as a second writer of a shared ledger would.
    let request: Record<string, unknown> | null = null;
    let tryId = '';
    while (request === null) {
      tryId = (await readdir(workDir).catch(() => [] as string[]))[0] ?? '';
      request = await readFile(join(workDir, tryId, 'request.json'), 'utf8').then(
        (text) => JSON.parse(text) as Record<string, unknown>,
        () =>
          new Promise<null>((resolve) => {
            setTimeout(() => {
              resolve(null);
            }, 20);
          }),
      );
    }
    const decoy = join(scratch, 'conflict-decoy');
    await mkdir(join(decoy, 'output'), { recursive: true });
    await writeFile(
      join(decoy, 'request.json'),
      JSON.stringify({ ...request, session: { ...(request.session as object), behaviour: 'fail' } }),
    );
    await new Promise<void>((resolve, reject) => {
      execFile(
        process.execPath,
        [
          standIn.binPath,
          '--request',
          join(decoy, 'request.json'),
          '--output',
          join(decoy, 'output', 'artifact.json'),
        ],
        (error) => {
          if (error === null) resolve();
          else reject(new Error(`the decoy session failed: ${error.message}`));
        },
      );
    });
    const decoyIngest = await ingest({
      inputs: [join(decoy, 'output', 'native-execution.json')],
      storeUrl: store,
      artifactRoot: join(decoy, 'output'),
    });
    expect(decoyIngest.inserted).toBe(1);
    await writeFile(join(workDir, tryId, 'go'), '');
    const result = await running;
    const outcome = result.attempts[0]!;
    expect(outcome.finalAttemptId).toBe(tryId);
    expect(outcome).toMatchObject({
      disposition: 'infrastructure_failure',
      infrastructureFailure: { class: 'eval_session_evidence_refused', retryable: false },
    });
    expect(outcome.tries).toHaveLength(1);
    expect(outcome.tries[0]?.ledgerRefusal?.code).toBe('attempt_digest_conflict');
    expect(outcome.reason).toContain('attempt_digest_conflict');
    // The key is held (by the other record): nothing was overwritten, and a rerun counts the try.
    const before = await standIn.starts();
    const again = await run('conflict', cases, { retries: 1, workDir, store, turnTimeoutMs: 20_000 });
    expect(again.attempts[0]).toMatchObject({ resumed: true, tries: [] });
    expect([...(await standIn.starts())].filter((start) => !before.has(start))).toEqual([]);
  }, 60_000);
});

describe('a retryable failure without evidence, resumed', () => {
  it('continues with the next try where the last run stopped, and stops at the limit', async () => {
    const cases = [{ id: 'c_down', behaviour: 'always_retryable' }];
    const first = await run('counting', cases, { retries: 0 });
    const attemptId = first.attempts[0]!.attemptId;
    expect(first.attempts[0]?.tries.map((entry) => entry.attemptId)).toEqual([attemptId]);
    // One more retry allowed now: the ledger holds try 1, so only try 2 runs.
    const before = await standIn.starts();
    const second = await run('counting', cases, { retries: 1 });
    expect(second.attempts[0]?.tries.map((entry) => entry.attemptId)).toEqual([`${attemptId}-r1`]);
    expect(second.attempts[0]?.finalAttemptId).toBe(`${attemptId}-r1`);
    const started = [...(await standIn.starts())].filter((start) => !before.has(start));
    expect(started.map((start) => start.replace(/\.[0-9]+$/, ''))).toEqual([`${attemptId}-r1`]);
    // At the limit: nothing more starts, the attempt is resumed as the failure it is.
    const third = await run('counting', cases, { retries: 1 });
    expect(third.attempts[0]).toMatchObject({
      resumed: true,
      tries: [],
      disposition: 'infrastructure_failure',
      infrastructureFailure: { class: 'runner_infrastructure_failure', retryable: true },
    });
  }, 60_000);
});

describe('a retryable failure, then a try killed with its run (its start alone in the ledger), resumed', () => {
  it('the killed try counts against no retry and its number is never reused; with a ceiling its spend leaves the budget unproven', async () => {
    const cases = [{ id: 'c_down', behaviour: 'always_retryable' }];
    const first = await run('gap', cases, { retries: 0 });
    const attemptId = first.attempts[0]!.attemptId;
    // What a run SIGKILLed during try 2 leaves: try 2's start, no attempt of it.
    const store = await openStore(`sqlite:${join(scratch, 'gap.sqlite')}`, { mustExist: true });
    try {
      expect(
        await store.recordTryStart({
          campaignId: 'gap',
          caseId: 'c_down',
          configId: 'lane_a',
          attemptId,
          tryNumber: 2,
          tryId: `${attemptId}-r1`,
          startedAt: new Date().toISOString(),
          runner: { packageName: 'p', packageVersion: '1', runnerdSha256: 'sha256:r', host: 'h', pid: 1 },
        }),
      ).toBe(true);
    } finally {
      await store.close();
    }
    const before = await standIn.starts();
    const held = await run('gap', cases, { retries: 1, maxCostUsd: 1 });
    expect(held.stopped).toBe('budget_unproven');
    expect([...(await standIn.starts())].filter((start) => !before.has(start))).toEqual([]);
    // One retry allowed: try 1 is the one recorded, so one more runs — as try 3 (try 2 is taken).
    const resumed = await run('gap', cases, { retries: 1 });
    expect(resumed.attempts[0]?.tries.map((entry) => entry.attemptId)).toEqual([`${attemptId}-r2`]);
    expect(resumed.attempts[0]).toMatchObject({
      disposition: 'infrastructure_failure',
      finalAttemptId: `${attemptId}-r2`,
    });
    // At the limit (two tries recorded): resumed as the failure it is, nothing starts.
    const again = await run('gap', cases, { retries: 1 });
    expect(again.attempts[0]).toMatchObject({ resumed: true, tries: [], finalAttemptId: `${attemptId}-r2` });
  }, 60_000);
});

describe('an attempt reads the same from the ledger as when it ran (a rerun resumes it as it was)', () => {
  // A failure artifact that references its bundle (what the reference runner writes for a hang, a
  // crash or a budget stop once a session ran), a pass and a behaviour failure: each attempt's
  // disposition, reason and failure {class, category, retryable} are what the run said, fresh or
  // resumed, and the ledger keeps the artifact's failure as `evals ingest` of the artifact does.
  const cases: SuiteCase[] = [
    { id: 'c_pass', behaviour: 'succeed' },
    { id: 'c_fail', behaviour: 'fail' },
    { id: 'c_budget', behaviour: 'budget_with_bundle' },
    { id: 'c_timeout', behaviour: 'timeout_with_bundle' },
  ];
  let first: ExecuteResult;
  let again: ExecuteResult;
  beforeAll(async () => {
    first = await run('as-it-was', cases, { retries: 1 });
    again = await run('as-it-was', cases, { retries: 1 });
  }, 60_000);
  const view = (result: ExecuteResult, caseId: string) => {
    const attempt = result.attempts.find((entry) => entry.caseId === caseId);
    return {
      disposition: attempt?.disposition,
      reason: attempt?.reason,
      infrastructureFailure: attempt?.infrastructureFailure,
      finalAttemptId: attempt?.finalAttemptId,
    };
  };
  it.each([
    ['c_pass', 'passed', null, 1],
    ['c_fail', 'behavior_failure', null, 1],
    [
      'c_budget',
      'infrastructure_failure',
      { class: 'provider_budget_reached', category: 'provider_budget', retryable: false },
      1,
    ],
    [
      'c_timeout',
      'infrastructure_failure',
      { class: 'provider_turn_timeout', category: 'provider_lifecycle', retryable: true },
      2,
    ],
  ] as const)('%s: %s, fresh and resumed alike', (caseId, disposition, failure, tries) => {
    const fresh = first.attempts.find((entry) => entry.caseId === caseId);
    expect(fresh?.disposition, fresh?.reason ?? '').toBe(disposition);
    expect(fresh?.infrastructureFailure ?? null).toEqual(failure);
    expect(fresh?.tries).toHaveLength(tries);
    // A passed attempt has no reason to give.
    if (disposition === 'passed') expect(fresh?.reason).toBeNull();
    expect(again.attempts.find((entry) => entry.caseId === caseId)?.resumed).toBe(true);
    expect(view(again, caseId)).toEqual(view(first, caseId));
  });
  it("keeps the artifact's failure in the ledger: class, category and retryable", async () => {
    const store = await openStore(`sqlite:${join(scratch, 'as-it-was.sqlite')}`, { mustExist: true });
    try {
      for (const caseId of ['c_budget', 'c_timeout']) {
        const outcome = first.attempts.find((entry) => entry.caseId === caseId)!;
        const stored = await store.getAttempt({
          runId: 'as-it-was',
          caseId,
          configId: 'lane_a',
          attemptId: outcome.finalAttemptId!,
        });
        expect(stored?.record.failure?.retryable, caseId).toBe(outcome.infrastructureFailure?.retryable);
        expect(stored?.record.evalSession?.infrastructureFailure, caseId).toEqual(
          outcome.infrastructureFailure,
        );
      }
    } finally {
      await store.close();
    }
  });
});

// A try the campaign stopped (interrupted) is no result and no failure: nothing of it is written, the
// attempt is not_run_stopped, and a rerun runs it again under the same try id (no retry consumed —
// these run with max_infrastructure_retries 0, where a recorded retryable failure would be final).
// A timeout the campaign enforces, and a session that dies of a signal on its own, are what they are:
// recorded, retried when retryable.
describe('a try the campaign stopped, a timeout it enforced, a session that died on its own', () => {
  const held = async (campaignId: string, caseId: string, attemptId: string) => {
    const store = await openStore(`sqlite:${join(scratch, `${campaignId}.sqlite`)}`, { mustExist: true });
    try {
      return await store.getAttempt({ runId: campaignId, caseId, configId: 'lane_a', attemptId });
    } finally {
      await store.close();
    }
  };
  /** The pid of the session started for a try, once it has started (its spawn record says so). */
  const startedPid = async (tryId: string): Promise<number> => {
    let pid = 0;
    await vi.waitFor(
      async () => {
        const start = [...(await standIn.starts())].find((name) => name.startsWith(`${tryId}.`));
        expect(start).toBeDefined();
        pid = Number(start!.slice(tryId.length + 1));
      },
      { timeout: 20_000, interval: 20 },
    );
    return pid;
  };
  /** The ledger's try starts of a campaign: which try, settled or not, and why not when it says. */
  const startsOf = async (campaignId: string) => {
    const store = await openStore(`sqlite:${join(scratch, `${campaignId}.sqlite`)}`, { mustExist: true });
    try {
      return (await store.campaignTries(campaignId)).map(({ tryId, tryNumber, settled, interruption }) => ({
        tryId,
        tryNumber,
        settled,
        interruption,
      }));
    } finally {
      await store.close();
    }
  };
  const tryIdOf = async (campaignId: string, caseId: string): Promise<string> => {
    const suite = suiteEnvironment([{ id: caseId, behaviour: 'succeed' }], {});
    const path = join(scratch, `${campaignId}-ids.json`);
    await writeFile(path, JSON.stringify(suite));
    return planCampaign(await loadEnvironment(path), { campaignId }).attempts[0]!.attemptId;
  };

  it.each([
    ['killed by the second Ctrl-C (SIGTERM: both at once)', 'kill'],
    ["ended by the interrupt's own signal (SIGTERM to its group) once the campaign stops", 'stop+SIGTERM'],
  ] as const)(
    '%s: not_run_stopped, no result written, its start kept unsettled; a rerun runs it under a new try id',
    async (_label, how) => {
      const campaignId = `stopped-${how === 'kill' ? 'kill' : 'signal'}`;
      const caseId = 'c_wait';
      const cases = [{ id: caseId, behaviour: 'await_go' }];
      const workDir = join(scratch, `${campaignId}-work`);
      const tryId = await tryIdOf(campaignId, caseId);
      const stop = new AbortController();
      const kill = new AbortController();
      const running = run(campaignId, cases, {
        retries: 0,
        turnTimeoutMs: 60_000,
        workDir,
        stop: stop.signal,
        kill: kill.signal,
      });
      const pid = await startedPid(tryId);
      // Written ahead: while its session runs, the try's start is committed (another connection reads it).
      expect((await startsOf(campaignId)).map((entry) => [entry.tryId, entry.settled])).toEqual([
        [tryId, false],
      ]);
      stop.abort();
      if (how === 'kill') kill.abort();
      else process.kill(pid, 'SIGTERM');
      const result = await running;
      const outcome = result.attempts[0]!;
      expect(outcome).toMatchObject({ disposition: 'not_run_stopped', infrastructureFailure: null });
      expect(outcome.tries).toHaveLength(1);
      expect(outcome.tries[0]).toMatchObject({
        attemptId: tryId,
        ingest: 'none',
        infrastructureFailure: {
          class: 'eval_session_interrupted',
          category: 'campaign_orchestration',
          retryable: true,
        },
      });
      expect(outcome.tries[0]?.infrastructureFailure?.class).not.toBe('eval_session_crashed');
      expect(await held(campaignId, caseId, tryId)).toBeNull();
      // Its start is in the ledger, unsettled, with the campaign's word that it killed it.
      const starts = await startsOf(campaignId);
      expect(starts.map(({ tryId: id, tryNumber, settled }) => [id, tryNumber, settled])).toEqual([
        [tryId, 1, false],
      ]);
      expect(starts[0]?.interruption?.reason).toBe(outcome.tries[0]?.infrastructureFailure?.message);

      // A rerun with a ceiling: that session's spend is unknown, so the budget is unproven; nothing starts.
      const spawned = (await standIn.spawns()).length;
      const held1 = await run(campaignId, cases, {
        retries: 0,
        turnTimeoutMs: 60_000,
        workDir,
        maxCostUsd: 1,
      });
      expect(held1.stopped).toBe('budget_unproven');
      expect(held1.attempts[0]).toMatchObject({ disposition: 'not_run_budget', tries: [] });
      expect((await standIn.spawns()).length).toBe(spawned);

      // The rerun (resume) runs it again under a new try id (the old start stays unknown spend, for
      // good): it consumed no retry.
      const next = `${tryId}-r1`;
      await mkdir(join(workDir, next), { recursive: true });
      await writeFile(join(workDir, next, 'go'), '');
      const rerun = await run(campaignId, cases, { retries: 0, turnTimeoutMs: 60_000, workDir });
      expect(rerun.attempts[0], rerun.attempts[0]?.reason ?? '').toMatchObject({
        disposition: 'passed',
        resumed: false,
        finalAttemptId: next,
      });
      expect((await standIn.spawns()).filter((id) => id === tryId)).toHaveLength(1);
      expect((await standIn.spawns()).filter((id) => id === next)).toHaveLength(1);
      expect((await startsOf(campaignId)).map((entry) => [entry.tryId, entry.settled])).toEqual([
        [tryId, false],
        [next, true],
      ]);
    },
    60_000,
  );

  it.each([
    ['its own SIGKILL (no interrupt)', 'die_SIGKILL', 'eval_session_crashed', 'runner_infrastructure', 2],
    ['its own SIGTERM (no interrupt)', 'die_SIGTERM', 'eval_session_crashed', 'runner_infrastructure', 2],
    ['the timeout the campaign enforces', 'hang', 'eval_session_timeout', 'campaign_orchestration', 2],
  ])(
    'a session that ends by %s: %s, recorded, retried',
    async (_label, behaviour, failureClass, category, tries) => {
      const campaignId = `ended-${behaviour.toLowerCase()}`;
      const caseId = 'c_end';
      const result = await run(campaignId, [{ id: caseId, behaviour }], { retries: 1 });
      const outcome = result.attempts[0]!;
      expect(outcome).toMatchObject({
        disposition: 'infrastructure_failure',
        infrastructureFailure: { class: failureClass, category, retryable: true },
      });
      expect(outcome.tries).toHaveLength(tries);
      for (const entry of outcome.tries) {
        expect(entry.ingest).toBe('synthesized');
        expect((await held(campaignId, caseId, entry.attemptId))?.record.failure?.code).toBe(failureClass);
      }
    },
    60_000,
  );
});

describe('a try folder a killed run left behind (its session may still be writing there)', () => {
  it('is not reused: the new session writes beside it, and what the old one writes later is not read', async () => {
    // The try's folder as a SIGKILLed `evals run` leaves it: its session (in its own process group)
    // outlives the campaign and still writes its artifact into output/ while the rerun's runs.
    const cases = [{ id: 'c_orphaned', behaviour: 'slow', delayMs: 600 }];
    const workDir = join(scratch, 'orphaned-work');
    const suite = suiteEnvironment(cases, {});
    const environmentPath = join(scratch, 'orphaned-plan.json');
    await writeFile(environmentPath, JSON.stringify(suite));
    const planned = planCampaign(await loadEnvironment(environmentPath), { campaignId: 'orphaned' });
    const attemptId = planned.attempts[0]!.attemptId;
    const stale = join(workDir, attemptId, 'output');
    await mkdir(stale, { recursive: true });
    const orphan = setTimeout(() => {
      void writeFile(join(stale, 'artifact.json'), 'not json {');
    }, 250);
    try {
      const result = await run('orphaned', cases, { workDir });
      expect(result.attempts[0]?.disposition, result.attempts[0]?.reason ?? '').toBe('passed');
      expect(await readFile(join(stale, 'artifact.json'), 'utf8')).toBe('not json {');
      expect(await readdir(join(workDir, attemptId))).toContain('output.2');
    } finally {
      clearTimeout(orphan);
    }
  }, 60_000);
});

describe('the cost ceiling', () => {
  it('stops scheduling at the ceiling with known costs; the rest is not run (budget)', async () => {
    const cases = Array.from({ length: 5 }, (_, index) => ({
      id: `c_${index}`,
      behaviour: 'succeed',
      costMicros: 1000,
    }));
    // 1,000 µ$ a try; a ceiling of 2,000 µ$: two run (one at a time), then nothing more starts.
    const result = await run('budget', cases, { maxCostUsd: 0.002, maxParallel: 1 });
    expect(result.stopped).toBe('budget');
    expect(result.attempts.map((attempt) => attempt.disposition)).toEqual([
      'passed',
      'passed',
      'not_run_budget',
      'not_run_budget',
      'not_run_budget',
    ]);
    expect(result.attempts.slice(2).every((attempt) => attempt.tries.length === 0)).toBe(true);
  });

  it('stops when a cost is unknown (the budget is unproven), unless --allow-unpriced', async () => {
    const cases = Array.from({ length: 3 }, (_, index) => ({
      id: `c_${index}`,
      behaviour: 'succeed',
      costMicros: null,
    }));
    const stopped = await run('unpriced', cases, { maxCostUsd: 1, maxParallel: 1 });
    expect(stopped.stopped).toBe('budget_unproven');
    expect(stopped.attempts.map((attempt) => attempt.disposition)).toEqual([
      'passed',
      'not_run_budget',
      'not_run_budget',
    ]);
    const allowed = await run('unpriced-allowed', cases, {
      maxCostUsd: 1,
      maxParallel: 1,
      allowUnpriced: true,
    });
    expect(allowed.stopped).toBe(null);
    expect(allowed.attempts.every((attempt) => attempt.disposition === 'passed')).toBe(true);
  });

  it("honours an artifact's accounting failure as spend unknown: infrastructure, then a stop unless --allow-unpriced", async () => {
    const cases = [
      { id: 'c_accounting', behaviour: 'accounting_unpriced' },
      { id: 'c_next', behaviour: 'succeed' },
    ];
    const stopped = await run('accounting', cases, { maxCostUsd: 1, maxParallel: 1 });
    const first = stopped.attempts[0]!;
    expect(first).toMatchObject({
      disposition: 'infrastructure_failure',
      infrastructureFailure: {
        class: 'provider_budget_coverage_unknown',
        category: 'provider_budget',
        retryable: false,
      },
    });
    // Its usage says 1000 µ$, but its coverage is unknown: the spend is not known.
    expect(first.cost.observedNanodollars).toBeNull();
    expect(stopped.stopped).toBe('budget_unproven');
    expect(stopped.attempts[1]?.disposition).toBe('not_run_budget');
    const allowed = await run('accounting-allowed', cases, {
      maxCostUsd: 1,
      maxParallel: 1,
      allowUnpriced: true,
    });
    expect(allowed.stopped).toBe(null);
    expect(allowed.attempts.map((attempt) => attempt.disposition)).toEqual([
      'infrastructure_failure',
      'passed',
    ]);
  });

  it('reads the ledger once (one aggregate query), not every row before each start', async () => {
    const cases = Array.from({ length: 6 }, (_, index) => ({ id: `c_${index}`, behaviour: 'succeed' }));
    // An earlier run of the campaign holds two attempts' spend: it counts, read once.
    await run('read-once', cases.slice(0, 2), { maxCostUsd: 1, maxParallel: 1 });
    const scans = vi.spyOn(SqliteStore.prototype, 'attempts');
    const aggregates = vi.spyOn(SqliteStore.prototype, 'runs');
    try {
      // 1,000 µ$ a try: 2 held + 3 new reach the ceiling of 5,000 µ$; the sixth does not start.
      const result = await run('read-once', cases, { maxCostUsd: 0.005, maxParallel: 1 });
      expect(result.attempts.map((attempt) => attempt.disposition)).toEqual([
        'passed',
        'passed',
        'passed',
        'passed',
        'passed',
        'not_run_budget',
      ]);
      expect(result.attempts.filter((attempt) => attempt.resumed)).toHaveLength(2);
      expect(scans).not.toHaveBeenCalled();
      expect(aggregates).toHaveBeenCalledTimes(1);
    } finally {
      scans.mockRestore();
      aggregates.mockRestore();
    }
  });

  it('never stops without a ceiling, whatever is unpriced', async () => {
    const cases = [{ id: 'c_0', behaviour: 'succeed', costMicros: null }];
    expect((await run('no-ceiling', cases)).stopped).toBe(null);
  });
});

// A campaign id names one suite. A rerun under the same id whose plan differs (here a lane's model,
// or a case's definition) is refused before any session starts — by the ledger's record of the
// campaign when there is one (listing what differs), and by the held tries' own case/config digests
// when the first run left no record (and their session's provider/model where the ledger kept the
// session artifact) — never resumed from the old suite's outcomes. The same plan again still resumes.
describe('a rerun under the same campaign id with a changed suite', () => {
  const cases: SuiteCase[] = [
    { id: 'c_0', behaviour: 'succeed' },
    { id: 'c_1', behaviour: 'succeed' },
  ];
  const otherModel = (environment: Record<string, unknown>): void => {
    for (const config of environment.configs as { model: string }[]) config.model = 'model-y';
  };
  const otherConfig = (environment: Record<string, unknown>): void => {
    (environment.configs as { sha256: string }[])[0]!.sha256 = `sha256:${'d'.repeat(64)}`;
  };
  const otherCase = (environment: Record<string, unknown>): void => {
    (environment.cases as { sha256: string }[])[0]!.sha256 = `sha256:${'c'.repeat(64)}`;
  };
  const attemptsIn = async (store: string): Promise<number> => {
    const opened = await openStore(store);
    try {
      return (await opened.runs()).reduce((sum, entry) => sum + entry.attempts, 0);
    } finally {
      await opened.close();
    }
  };

  it.each([
    ['a lane model', otherModel, ['lanes', 'suiteFingerprint']],
    ['a case definition', otherCase, ['suiteFingerprint']],
  ])(
    'with a campaign record in the ledger: %s differs, refused listing it, nothing run',
    async (_what, edit, fields) => {
      const id = `changed-record-${fields.length}`;
      const store = `sqlite:${join(scratch, `${id}.sqlite`)}`;
      await run(id, cases, { store });
      // The ledger's record of the first run (what `evals run` stores at its end).
      const environment = await loadEnvironment(
        await (async () => {
          const path = join(scratch, `${id}-record.json`);
          await writeFile(path, JSON.stringify(suiteEnvironment(cases)));
          return path;
        })(),
      );
      const first = planCampaign(environment, { campaignId: id });
      const opened = await openStore(store);
      await opened.recordCampaign({
        campaignId: id,
        record: {
          campaignId: id,
          planDigest: planDigest(first),
          suiteFingerprint: first.suiteFingerprint,
          lanes: first.lanes.map(({ id: lane, provider, model, driver, enabled }) => ({
            id: lane,
            provider,
            model,
            driver,
            enabled,
          })),
          cases: first.cases,
          settings: first.settings,
        },
      });
      await opened.close();
      const held = await attemptsIn(store);
      const before = await standIn.starts();
      const refusal = await run(id, cases, { store, edit }).then(
        () => null,
        (error: unknown) => error as { code: string; issues: { component: string; code: string }[] },
      );
      expect(refusal?.code).toBe('paperclip_campaign_record_conflict');
      expect(refusal?.issues.map((issue) => issue.component).sort()).toEqual(fields);
      expect(new Set(refusal?.issues.map((issue) => issue.code))).toEqual(new Set(['campaign_plan_differs']));
      expect([...(await standIn.starts())].filter((start) => !before.has(start))).toEqual([]);
      expect(await attemptsIn(store)).toBe(held);
    },
    60_000,
  );

  it.each([
    ['a config definition', otherConfig, 'configSha256'],
    ['a case definition', otherCase, 'caseSha256'],
  ])(
    'with no record (the first run left none): %s differs, the held try is refused, nothing run',
    async (_what, edit, field) => {
      const id = `changed-held-${field}`;
      const store = `sqlite:${join(scratch, `${id}.sqlite`)}`;
      await run(id, cases, { store });
      const held = await attemptsIn(store);
      const before = await standIn.starts();
      const refusal = await run(id, cases, { store, edit }).then(
        () => null,
        (error: unknown) => error as { code: string; issues: { component: string; code: string }[] },
      );
      expect(refusal?.code).toBe('paperclip_campaign_record_conflict');
      expect(refusal?.issues).toMatchObject([{ code: 'campaign_held_try_differs', component: field }]);
      expect([...(await standIn.starts())].filter((start) => !before.has(start))).toEqual([]);
      expect(await attemptsIn(store)).toBe(held);
      // The same plan again resumes every held try.
      const again = await run(id, cases, { store });
      expect(again.attempts.every((attempt) => attempt.resumed)).toBe(true);
    },
    60_000,
  );

  it.each([
    ['another runnerd', { runnerdSha256: `sha256:${'c'.repeat(64)}` }, 'runnerdSha256'],
    [
      'another package version',
      // Another release: its package.json and its build metadata (the receipt's version) say 9.9.9.
      {
        packageVersion: '9.9.9',
        receipt: { ...QUALIFIED_RECEIPT, driverVersion: '1.0.0', packageVersion: '9.9.9' },
      },
      'packageVersion',
    ],
  ])(
    'a rerun on %s than the held tries ran on is refused, nothing run (a campaign is one release)',
    async (_what, release, field) => {
      const id = `other-release-${field}`;
      const store = `sqlite:${join(scratch, `${id}.sqlite`)}`;
      await run(id, cases, { store });
      const held = await attemptsIn(store);
      const before = await standIn.starts();
      const refusal = await run(id, cases, { store, release }).then(
        () => null,
        (error: unknown) => error as { code: string; issues: { component: string; code: string }[] },
      );
      expect(refusal?.code).toBe('paperclip_campaign_record_conflict');
      expect(refusal?.issues).toMatchObject([{ code: 'campaign_held_try_differs', component: field }]);
      expect([...(await standIn.starts())].filter((start) => !before.has(start))).toEqual([]);
      expect(await attemptsIn(store)).toBe(held);
    },
    60_000,
  );

  it('a rerun of the same release whose package.json says another version than its build metadata (upstream: 0.0.0) resumes', async () => {
    const id = 'upstream-versions';
    const store = `sqlite:${join(scratch, `${id}.sqlite`)}`;
    await run(id, cases, { store });
    // The held tries name the build metadata's version (the receipt's), the join now package.json's.
    const again = await run(id, cases, { store, release: { packageVersion: '0.0.0' } });
    expect(again.attempts.every((attempt) => attempt.resumed)).toBe(true);
  }, 60_000);
});
