// `evals run` and `evals merge` end to end through the built CLI, with real processes: a release
// qualified once (a fake release of the qualification tests, its record accepted), the stand-in
// eval-session as the bin. An incompatible release and a changed one start zero sessions; SIGKILL of
// `evals run` mid-campaign then a rerun leaves every attempt in the ledger exactly once; a finished
// campaign reruns with no session; Ctrl-C stops scheduling and still writes the record; 4 shards
// into one real PostgreSQL, merged, are the unsharded campaign; a SQLite shard SIGKILLed mid-session
// and merged --from-store leaves its unsettled start, unknown spend, in the merged store.
import { spawn } from 'node:child_process';
import { appendFile, cp, mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { schemaErrors } from '@paperclip-evals/contract';
import { openStore } from '@paperclip-evals/evalbook';
import { qualifyRelease, writeQualificationRecord } from '@paperclip-evals/qualification';

import { campaignRecordIssues } from '../src/record.ts';
import { EVALS_BIN } from '@paperclip-evals/test-kit/repo';
import { buildFakeRelease } from '@paperclip-evals/test-kit/fake-release';
import { testPnpm } from '@paperclip-evals/test-kit/pnpm';
import { startPostgres } from '@paperclip-evals/test-kit/postgres-server';
import { createStandIn, suiteEnvironment } from './support/stand-in.ts';

import type { CampaignRecord } from '../src/record.ts';
import type { PostgresServer } from '@paperclip-evals/test-kit/postgres-server';
import type { StandIn } from './support/stand-in.ts';

interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * `evals ARGS` as the real binary. Its consumer installs (a release qualified now, the package's own
 * bin) launch the pinned pnpm binary itself (PAPERCLIP_EVALS_PNPM), not `npx -y pnpm@…`, which costs
 * about a second of CPU a launch; the default launcher has its own e2e test (qualification's cli.e2e).
 */
function evals(
  args: readonly string[],
  onSpawn?: (pid: number) => void,
  extraEnv: NodeJS.ProcessEnv = {},
): Promise<Run> {
  const env = { ...process.env, PAPERCLIP_EVALS_PNPM: testPnpm().join(' '), ...extraEnv };
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [EVALS_BIN, ...args], {
      cwd: scratch,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    if (child.pid !== undefined) onSpawn?.(child.pid);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      resolve({ code: code ?? (signal === null ? null : -1), stdout, stderr });
    });
  });
}

let scratch: string;
let standIn: StandIn;
let good: string;
let goodRecord: string;
let bad: string;
let badRecord: string;
let environment: string;

const CASES = Array.from({ length: 4 }, (_, index) => ({
  id: `case_${index}`,
  behaviour: 'slow',
  delayMs: 150,
}));
const LANES = [{ id: 'lane_a' }, { id: 'lane_b' }];
const PLANNED = CASES.length * LANES.length * 2;

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'campaign-e2e-'));
  standIn = await createStandIn('e2e');
  // Upstream's versions: package.json 0.0.0, the build metadata (what the join negotiates) 0.4.0.
  good = (await buildFakeRelease(join(scratch, 'good'), { packageJsonVersion: '0.0.0' })).dir;
  bad = (
    await buildFakeRelease(join(scratch, 'bad'), { runnerdPrp: { minimumVersion: 99, maximumVersion: 99 } })
  ).dir;
  const work = join(scratch, 'qualify-work');
  await mkdir(work);
  goodRecord = join(scratch, 'good-qualification.json');
  badRecord = join(scratch, 'bad-qualification.json');
  await writeQualificationRecord(
    goodRecord,
    await qualifyRelease({ releaseDir: good, tempDir: work, pnpm: testPnpm() }),
  );
  await writeQualificationRecord(
    badRecord,
    await qualifyRelease({ releaseDir: bad, tempDir: work, pnpm: testPnpm() }),
  );
  environment = join(scratch, 'evalbook.json');
  // A turn limit far above the stand-in's 150 ms, so a loaded machine never turns a slow session
  // into a timeout (the Ctrl-C test asserts every started attempt passed).
  await writeFile(
    environment,
    JSON.stringify(suiteEnvironment(CASES, { lanes: LANES, attempts: 2, turnTimeoutMs: 5_000 })),
  );
}, 120_000);

afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
  await standIn.remove();
});

const runArgs = (
  campaign: string,
  store: string,
  release = good,
  record = goodRecord,
  parallel = '2',
): string[] => [
  'run',
  '--release-dir',
  release,
  '--qualification',
  record,
  '--env',
  environment,
  '--campaign',
  campaign,
  '--store',
  store,
  '--work-dir',
  join(scratch, `work-${campaign}`),
  '--eval-session-bin',
  standIn.binPath,
  '--eval-session-sha256',
  standIn.sha256,
  '--max-parallel',
  parallel,
];

const exists = (path: string): Promise<boolean> =>
  stat(path).then(
    () => true,
    () => false,
  );

async function ledgerIds(store: string, campaign: string): Promise<string[]> {
  const opened = await openStore(store, { mustExist: true });
  const ids: string[] = [];
  try {
    for await (const attempt of opened.attempts())
      if (attempt.key.runId === campaign) ids.push(attempt.key.attemptId);
  } finally {
    await opened.close();
  }
  return ids;
}

/**
 * Runs the good campaign `name` as its 4 shards at once, shard i into `storeOf(i)` with its record at
 * `<prefix>-<i>.json`: each must exit 0 and say its money at a reader's precision. The records' paths.
 */
function runShards(name: string, storeOf: (index: number) => string, prefix: string): Promise<string[]> {
  return Promise.all(
    [1, 2, 3, 4].map(async (index) => {
      const out = join(scratch, `${prefix}-${index}.json`);
      const result = await evals([
        ...runArgs(name, storeOf(index), good, goodRecord, '1'),
        '--shard',
        `${index}/4`,
        '--out',
        out,
      ]);
      expect(result.code, result.stderr).toBe(0);
      // The summary's money at a reader's precision: 1,000 µ$ a try, "$0.002", not "$0.002000000".
      const money = '(\\$0\\.0[0-9]{1,2}|\\$0\\.00)';
      // a kind of figure no try had is none, with its count, never $0.00 (unknown is not zero)
      const known = `(none \\(0 of [0-9]+ tries\\)|${money} \\([1-9][0-9]* of [0-9]+ tries\\))`;
      expect(result.stdout).toMatch(
        new RegExp(
          `^  cost: observed ${money} \\([0-9]+ of [0-9]+ tries priced, ${money} on retries; per try its provider-reported figure, else its estimate\\) · provider-reported: ${known} · estimated: ${known} \\(each kind apart, never added to another\\)`,
          'm',
        ),
      );
      return out;
    }),
  );
}

describe('nothing starts before the join holds', () => {
  it('an incompatible release: exit 3, every issue listed, no session, nothing written', async () => {
    const before = (await standIn.spawns()).length;
    const store = join(scratch, 'incompatible.sqlite');
    const result = await evals(runArgs('incompatible', `sqlite:${store}`, bad, badRecord));
    expect(result.code, result.stderr).toBe(3);
    expect(result.stderr).toContain('paperclip_campaign_release_incompatible');
    expect(result.stderr).toContain('prp_version_no_overlap');
    expect((await standIn.spawns()).length).toBe(before);
    expect(await exists(store)).toBe(false);
    expect(await exists(join(scratch, 'work-incompatible'))).toBe(false);
  });

  it('an incompatible release with --json: one cli-failure/v1 object, each issue with the file it is about', async () => {
    const store = join(scratch, 'incompatible-json.sqlite');
    const result = await evals([
      ...runArgs('incompatible-json', `sqlite:${store}`, bad, badRecord),
      '--json',
    ]);
    expect(result.code, result.stderr).toBe(3);
    const failure = JSON.parse(result.stdout) as { error: { code: string; issues: { file?: string }[] } };
    expect(schemaErrors('https://paperclip-evals.dev/schemas/cli-failure/v1.json', failure)).toEqual([]);
    expect(failure.error.code).toBe('paperclip_campaign_release_incompatible');
    // the runnerd's issues say which file of the release they are about (qualification's `file`)
    expect(failure.error.issues.some((issue) => issue.file?.includes('runnerd') === true)).toBe(true);
    expect(await exists(store)).toBe(false);
  });

  it('a package without the paperclip-runner-eval-session bin: exit 3 (eval_session_bin_missing), no session, nothing written', async () => {
    const noBin = (await buildFakeRelease(join(scratch, 'no-bin'), { evalSessionBin: false })).dir;
    const before = (await standIn.spawns()).length;
    const store = join(scratch, 'no-bin.sqlite');
    // Qualified now (no record to accept): the install finds no bin, so the release does not join.
    const args = runArgs('no-bin', `sqlite:${store}`, noBin);
    args.splice(args.indexOf('--qualification'), 2);
    const result = await evals(args);
    expect(result.code, result.stderr).toBe(3);
    expect(result.stderr).toContain('paperclip_campaign_release_incompatible');
    expect(result.stderr).toContain('eval_session_bin_missing');
    expect((await standIn.spawns()).length).toBe(before);
    expect(await exists(store)).toBe(false);
    expect(await exists(join(scratch, 'work-no-bin'))).toBe(false);
  }, 120_000);

  it('a release changed since its qualification: exit 3 (release_digest_changed), no session', async () => {
    const changed = join(scratch, 'changed');
    await cp(good, changed, { recursive: true });
    const runnerd = (await import('node:fs/promises')).readdir(changed);
    const name = (await runnerd).find((file) => file.startsWith('paperclip-runnerd-'))!;
    await appendFile(join(changed, name), '\n# changed\n');
    const before = (await standIn.spawns()).length;
    const result = await evals(runArgs('changed', `sqlite:${join(scratch, 'changed.sqlite')}`, changed));
    expect(result.code, result.stderr).toBe(3);
    expect(result.stderr).toContain('release_digest_changed');
    expect((await standIn.spawns()).length).toBe(before);
  });
});

describe('a campaign on one machine', () => {
  it('runs every attempt once, prints the record, and a rerun starts no session', async () => {
    const store = `sqlite:${join(scratch, 'whole.sqlite')}`;
    const out = join(scratch, 'whole.json');
    const result = await evals([...runArgs('whole', store), '--json', '--out', out]);
    expect(result.code, result.stderr).toBe(0);
    const record = JSON.parse(result.stdout) as CampaignRecord;
    expect(campaignRecordIssues(record)).toEqual([]);
    expect(record).toMatchObject({
      complete: true,
      allPassed: true,
      totals: { planned: PLANNED, passed: PLANNED },
    });
    expect(JSON.parse(await readFile(out, 'utf8'))).toEqual(record);
    // Not a terminal: one plain progress line per finished attempt on stderr, numbered 1..planned.
    const lines = result.stderr.split('\n').filter((line) => /^whole: \[ *[0-9]+\/[0-9]+\] /.test(line));
    expect(lines.map((line) => Number(/\[ *([0-9]+)\//.exec(line)?.[1]))).toEqual(
      Array.from({ length: PLANNED }, (_, index) => index + 1),
    );
    // Spend at a reader's precision (1,000 µ$ a try: "$0.001", not "$0.001000000").
    expect(lines[0]).toMatch(/lane_[ab] × case_[0-9] #[12]: passed · spend \$0\.0[0-9]{1,2} · [0-9]+s$/);
    expect((await ledgerIds(store, 'whole')).sort()).toEqual(
      record.attempts.map((attempt) => attempt.attemptId).sort(),
    );
    const before = await standIn.starts();
    const again = await evals([...runArgs('whole', store), '--json', '--out', out]);
    expect(again.code, again.stderr).toBe(0);
    expect((JSON.parse(again.stdout) as CampaignRecord).totals.resumed).toBe(PLANNED);
    expect([...(await standIn.starts())].filter((start) => !before.has(start))).toEqual([]);
  }, 60_000);

  it('refuses a campaign id recorded for another suite, before any session (exit 1)', async () => {
    const out = join(scratch, 'reused.json');
    const store = `sqlite:${join(scratch, 'reused.sqlite')}`;
    expect((await evals([...runArgs('reused', store), '--out', out])).code).toBe(0);
    const other = join(scratch, 'other-suite.json');
    await writeFile(other, JSON.stringify(suiteEnvironment(CASES, { lanes: LANES, attempts: 1 })));
    const before = await standIn.starts();
    const args = runArgs('reused', store).map((arg) => (arg === environment ? other : arg));
    const result = await evals([...args, '--out', out]);
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr).toContain('campaign_id_reused');
    expect([...(await standIn.starts())].filter((start) => !before.has(start))).toEqual([]);
  }, 60_000);

  it("without --eval-session-bin runs the package's own bin from the offline install (not the stand-in)", async () => {
    const before = (await standIn.spawns()).length;
    const args = runArgs('own-bin', `sqlite:${join(scratch, 'own-bin.sqlite')}`);
    const at = args.indexOf('--eval-session-bin');
    args.splice(at, 4);
    const result = await evals([...args, '--json']);
    expect(result.code, result.stderr).toBe(0);
    const record = JSON.parse(result.stdout) as CampaignRecord;
    expect(record.totals.planned).toBe(PLANNED);
    expect(record.totals.tries).toBeGreaterThanOrEqual(PLANNED);
    expect(record.totals.notRunBudget + record.totals.notRunStopped).toBe(0);
    // Every attempt ran through the package's paperclip-runner-eval-session: none through the stand-in.
    expect((await standIn.spawns()).length).toBe(before);
    expect(await ledgerIds(`sqlite:${join(scratch, 'own-bin.sqlite')}`, 'own-bin')).toHaveLength(PLANNED);
  }, 180_000);

  it('SIGKILL mid-campaign, then a rerun: every attempt in the ledger exactly once', async () => {
    const store = `sqlite:${join(scratch, 'killed.sqlite')}`;
    let pid = 0;
    const killed = evals(runArgs('killed', store), (child) => (pid = child));
    // Kill it once a few sessions have started (some attempts ingested, some running).
    for (let waited = 0; waited < 20_000; waited += 50) {
      const started = (await standIn.spawns()).filter((id) => id.length > 0).length;
      const ours = (await ledgerIds(store, 'killed').catch(() => [] as string[])).length;
      if (ours >= 3 && started > 0) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    process.kill(pid, 'SIGKILL');
    await killed;
    const partial = await ledgerIds(store, 'killed');
    expect(partial.length).toBeGreaterThan(0);
    expect(partial.length).toBeLessThan(PLANNED);
    const rerun = await evals([...runArgs('killed', store), '--json']);
    expect(rerun.code, rerun.stderr).toBe(0);
    const record = JSON.parse(rerun.stdout) as CampaignRecord;
    expect(record.totals.resumed).toBeGreaterThanOrEqual(partial.length);
    const ids = await ledgerIds(store, 'killed');
    expect(ids).toHaveLength(PLANNED);
    expect(new Set(ids).size).toBe(PLANNED);
  }, 60_000);

  it('Ctrl-C stops scheduling, lets running attempts finish and writes the record (exit 130)', async () => {
    const store = `sqlite:${join(scratch, 'interrupted.sqlite')}`;
    const out = join(scratch, 'interrupted.json');
    let pid = 0;
    const running = evals([...runArgs('interrupted', store), '--out', out], (child) => (pid = child));
    for (let waited = 0; waited < 20_000; waited += 50) {
      if ((await ledgerIds(store, 'interrupted').catch(() => [] as string[])).length >= 2) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    process.kill(pid, 'SIGINT');
    const result = await running;
    expect(result.code, result.stderr).toBe(130);
    const record = JSON.parse(await readFile(out, 'utf8')) as CampaignRecord;
    expect(record.partial).toContain('interrupted');
    expect(record.totals.notRunStopped).toBeGreaterThan(0);
    // Running attempts finished: nothing was killed, every started attempt has its result.
    expect(
      record.attempts
        .filter((attempt) => attempt.tries.length > 0)
        .every((attempt) => attempt.disposition === 'passed'),
    ).toBe(true);
    expect((await ledgerIds(store, 'interrupted')).length).toBe(record.totals.passed);
  }, 60_000);

  it('SIGTERM kills the running sessions: each killed try is eval_session_interrupted, no result in the ledger, and the rerun runs it under a new try id (exit 143, then 0)', async () => {
    const campaign = 'terminated';
    const store = `sqlite:${join(scratch, 'terminated.sqlite')}`;
    const out = join(scratch, 'terminated.json');
    const { args, running, pid, started } = await waitingSession(campaign, store, ['--out', out]);
    const tryId = started.replace(/\.[0-9]+$/, '');
    process.kill(pid, 'SIGTERM');
    const result = await running;
    expect(result.code, result.stderr).toBe(143);
    const record = JSON.parse(await readFile(out, 'utf8')) as CampaignRecord;
    expect(record.partial).toContain('interrupted');
    expect(record.attempts[0]).toMatchObject({ disposition: 'not_run_stopped', infrastructureFailure: null });
    expect(record.attempts[0]?.tries[0]).toMatchObject({
      attemptId: tryId,
      ingest: 'none',
      infrastructureFailure: { class: 'eval_session_interrupted' },
    });
    expect(await ledgerIds(store, campaign).catch(() => [] as string[])).toEqual([]);

    // Its start stays in the ledger, never settled (the killed session's spend is unknown for good):
    // the rerun runs the attempt under the next try id.
    const next = await letNextTryGo(campaign, tryId);
    const rerun = await evals([...args, '--json']);
    expect(rerun.code, rerun.stderr).toBe(0);
    const again = JSON.parse(rerun.stdout) as CampaignRecord;
    expect(again.attempts[0]).toMatchObject({ disposition: 'passed', resumed: false, finalAttemptId: next });
    expect(await ledgerIds(store, campaign)).toEqual([next]);
    expect(await unsettledTries(store, campaign)).toEqual([{ tryId, interrupted: true }]);
  }, 60_000);
});

/** The next stand-in session to start after `before`, once it has started: its try id and pid. */
async function nextSession(before: Set<string>): Promise<{ tryId: string; pid: number }> {
  for (let waited = 0; waited < 20_000; waited += 50) {
    const started = [...(await standIn.starts())].find((name) => !before.has(name));
    if (started !== undefined)
      return {
        tryId: started.slice(0, started.lastIndexOf('.')),
        pid: Number(started.slice(started.lastIndexOf('.') + 1)),
      };
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('no session started');
}

/** An environment of two cases whose sessions each wait for a `go` file beside their request. */
async function waitingPair(campaign: string): Promise<string> {
  const waiting = join(scratch, `evalbook-${campaign}.json`);
  await writeFile(
    waiting,
    JSON.stringify(
      suiteEnvironment(
        [
          { id: 'case_wait_1', behaviour: 'await_go' },
          { id: 'case_wait_2', behaviour: 'await_go' },
        ],
        { retries: 0, turnTimeoutMs: 60_000 },
      ),
    ),
  );
  return waiting;
}

/** The tries of a campaign the ledger holds a start of and no attempt (their spend is unknown). */
async function unsettledTries(
  store: string,
  campaign: string,
): Promise<{ tryId: string; interrupted: boolean }[]> {
  const opened = await openStore(store, { mustExist: true });
  try {
    return (await opened.campaignTries(campaign))
      .filter((entry) => !entry.settled)
      .map((entry) => ({ tryId: entry.tryId, interrupted: entry.interruption !== null }));
  } finally {
    await opened.close();
  }
}

/**
 * Starts `evals run` of a one-attempt campaign whose one session waits for a `go` file beside its
 * request (far under its timeout), and returns once that session started: the run's args (without
 * `extra`), the running CLI, its pid and the stand-in's start name (`<try id>.<session pid>`).
 */
async function waitingSession(
  campaign: string,
  store: string,
  extra: readonly string[] = [],
): Promise<{ args: string[]; running: ReturnType<typeof evals>; pid: number; started: string }> {
  const waiting = join(scratch, `evalbook-${campaign}.json`);
  await writeFile(
    waiting,
    JSON.stringify(
      suiteEnvironment([{ id: 'case_wait', behaviour: 'await_go' }], { retries: 0, turnTimeoutMs: 60_000 }),
    ),
  );
  const args = runArgs(campaign, store);
  args[args.indexOf('--env') + 1] = waiting;
  const before = await standIn.starts();
  let pid = 0;
  const running = evals([...args, ...extra], (child) => (pid = child));
  let started = '';
  for (let waited = 0; waited < 20_000 && started === ''; waited += 50) {
    started = [...(await standIn.starts())].find((name) => !before.has(name)) ?? '';
    if (started === '') await new Promise((resolve) => setTimeout(resolve, 50));
  }
  expect(started).not.toBe('');
  return { args, running, pid, started };
}

/**
 * `evals run` of a one-attempt campaign SIGKILLed while its one session runs (a session that waits
 * for a `go` file), that session then ended too (by its pid: it is in its own process group and
 * outlives the campaign): what a killed run or a dead machine leaves. The args and the try id.
 */
async function killedMidSession(campaign: string, store: string): Promise<{ args: string[]; tryId: string }> {
  const { args, running, pid, started } = await waitingSession(campaign, store);
  process.kill(pid, 'SIGKILL');
  await running;
  const sessionPid = Number(started.slice(started.lastIndexOf('.') + 1));
  try {
    process.kill(-sessionPid, 'SIGKILL');
  } catch {
    // already gone
  }
  const tryId = started.slice(0, started.lastIndexOf('.'));
  expect(await ledgerIds(store, campaign)).toEqual([]);
  expect(await unsettledTries(store, campaign)).toEqual([{ tryId, interrupted: false }]);
  return { args, tryId };
}

/** Lets the attempt's next try (`<id>-r1`) succeed at once: its session finds `go` beside its request. */
async function letNextTryGo(campaign: string, tryId: string): Promise<string> {
  const next = `${tryId}-r1`;
  await mkdir(join(scratch, `work-${campaign}`, next), { recursive: true });
  await writeFile(join(scratch, `work-${campaign}`, next, 'go'), '');
  return next;
}

/**
 * After a SIGKILL mid-session, a resumed run with a ceiling: the killed try's spend is unknown (its
 * start is in the ledger, its attempt is not), so the budget is unproven: nothing starts, exit 1.
 * With --allow-unpriced it runs the missing attempt under a new try id; the old start stays unknown.
 */
async function resumedWithCeiling(campaign: string, store: string): Promise<void> {
  const { args, tryId } = await killedMidSession(campaign, store);
  const before = await standIn.starts();
  const held = await evals([...args, '--max-cost-usd', '1']);
  expect(held.code, held.stderr).toBe(1);
  expect(held.stderr).toContain('spend $0.00 of $1.00 (+1 unpriced, 1 of them never settled)');
  expect(held.stdout).toContain('budget');
  expect([...(await standIn.starts())].filter((start) => !before.has(start))).toEqual([]);

  const next = await letNextTryGo(campaign, tryId);
  const ran = await evals([...args, '--max-cost-usd', '1', '--allow-unpriced', '--json']);
  expect(ran.code, ran.stderr).toBe(0);
  const record = JSON.parse(ran.stdout) as CampaignRecord;
  expect(record.attempts[0]).toMatchObject({ disposition: 'passed', resumed: false, finalAttemptId: next });
  expect(await ledgerIds(store, campaign)).toEqual([next]);
  expect(await unsettledTries(store, campaign)).toEqual([{ tryId, interrupted: false }]);
  // `evals runs` counts it among the run's unpriced, and says it never settled.
  const runs = await evals(['runs', '--store', store, '--json']);
  expect(runs.code, runs.stderr).toBe(0);
  const run = (JSON.parse(runs.stdout) as { runs: { runId: string; spend: unknown }[] }).runs.find(
    (entry) => entry.runId === campaign,
  );
  expect(run?.spend).toMatchObject({ unpriced: 1, unsettledTries: 1 });
  expect((await evals(['runs', '--store', store])).stdout).toMatch(
    new RegExp(`^${campaign} .* \\+ 1 unpriced \\(1 try started, never settled\\)`, 'm'),
  );
}

describe('a run SIGKILLed mid-session (a dead machine): the killed try is unknown spend, never forgotten', () => {
  it('resumed with --max-cost-usd: budget_unproven, nothing starts (exit 1); with --allow-unpriced it runs the attempt', async () => {
    await resumedWithCeiling('sigkill-ceiling', `sqlite:${join(scratch, 'sigkill-ceiling.sqlite')}`);
  }, 90_000);

  it('resumed without a ceiling: runs the missing attempt under a new try id', async () => {
    const campaign = 'sigkill-free';
    const store = `sqlite:${join(scratch, 'sigkill-free.sqlite')}`;
    const { args, tryId } = await killedMidSession(campaign, store);
    const next = await letNextTryGo(campaign, tryId);
    const ran = await evals([...args, '--json']);
    expect(ran.code, ran.stderr).toBe(0);
    expect((JSON.parse(ran.stdout) as CampaignRecord).attempts[0]).toMatchObject({
      disposition: 'passed',
      finalAttemptId: next,
    });
  }, 90_000);
});

describe('--pass-env: a live provider credential reaches the session, and nothing else keeps it', () => {
  const SECRET = 'sk-live-PAPERCLIP-0123456789abcdefSECRET';
  const NAME = 'PAPERCLIP_TEST_PROVIDER_KEY';

  async function filesUnder(dir: string): Promise<string[]> {
    const { readdir } = await import('node:fs/promises');
    const found: string[] = [];
    for (const entry of await readdir(dir, { withFileTypes: true, recursive: true }))
      if (entry.isFile()) found.push(join(entry.parentPath, entry.name));
    return found;
  }

  it('passes only the named variable; the value is in no file the campaign wrote, no output, no error', async () => {
    const env = join(scratch, 'pass-env.json');
    await writeFile(
      env,
      JSON.stringify(
        suiteEnvironment(
          [
            { id: 'c_keyed', behaviour: 'needs_env', needsEnv: NAME },
            { id: 'c_leaky', behaviour: 'leak_env', needsEnv: NAME },
            // A failure artifact with its bundle, its error naming the value: stored masked.
            { id: 'c_leaky_failure', behaviour: 'leak_env_failure', needsEnv: NAME },
            // A bundle the ledger refuses (another runnerd): the run says so, with the ledger's code.
            { id: 'c_refused', behaviour: 'wrong_runnerd' },
          ],
          { turnTimeoutMs: 5_000 },
        ),
      ),
    );
    const store = join(scratch, 'pass-env.sqlite');
    const out = join(scratch, 'pass-env-record.json');
    const args = runArgs('pass-env', `sqlite:${store}`);
    args.splice(args.indexOf('--env') + 1, 1, env);
    const result = await evals([...args, '--pass-env', NAME, '--out', out], undefined, { [NAME]: SECRET });
    expect(result.code, result.stderr).toBe(1); // the leaky session is an infrastructure failure
    const record = JSON.parse(await readFile(out, 'utf8')) as CampaignRecord;
    const of = (caseId: string) => record.attempts.find((attempt) => attempt.caseId === caseId);
    // The session saw exactly the passed variable (needs_env succeeds only then).
    expect(of('c_keyed')?.disposition).toBe('passed');
    expect(of('c_leaky')?.infrastructureFailure?.class).toBe('eval_session_refused');
    expect(of('c_leaky')?.reason).toContain('provider refused the key ***');
    expect(of('c_refused')?.infrastructureFailure?.class).toBe('eval_session_evidence_refused');
    expect(of('c_leaky_failure')?.infrastructureFailure?.class).toBe('runner_infrastructure_failure');
    expect(of('c_leaky_failure')?.reason).toContain('refused the key ***');
    expect(result.stdout).toMatch(/the ledger refused the bundle of .*c_refused.*runnerd_not_qualified/);
    // Every file the campaign wrote (requests, artifacts, its own artifacts, the record, the
    // store), its stdout and stderr: the value is in none of them.
    const written = [...(await filesUnder(join(scratch, 'work-pass-env'))), out, store];
    const { existsSync } = await import('node:fs');
    for (const suffix of ['-wal', '-shm'])
      if (existsSync(`${store}${suffix}`)) written.push(`${store}${suffix}`);
    expect(written.length).toBeGreaterThan(6);
    for (const path of written)
      expect((await readFile(path)).includes(Buffer.from(SECRET)), path).toBe(false);
    expect(result.stdout).not.toContain(SECRET);
    expect(result.stderr).not.toContain(SECRET);
  }, 120_000);

  it('refuses a name that is not set, or an argument that is not a name (never echoed), before anything starts', async () => {
    const before = (await standIn.spawns()).length;
    const unset = await evals([
      ...runArgs('pass-env-unset', `sqlite:${join(scratch, 'unset.sqlite')}`),
      '--pass-env',
      NAME,
    ]);
    expect(unset.code, unset.stderr).toBe(2);
    expect(unset.stderr).toContain(`--pass-env ${NAME}: not set`);
    const value = await evals([
      ...runArgs('pass-env-value', `sqlite:${join(scratch, 'value.sqlite')}`),
      '--pass-env',
      SECRET,
    ]);
    expect(value.code, value.stderr).toBe(2);
    expect(value.stderr).toContain('never its value');
    expect(value.stderr).not.toContain(SECRET);
    expect((await standIn.spawns()).length).toBe(before);
    expect(await exists(join(scratch, 'unset.sqlite'))).toBe(false);
  });
});

describe('many machines with SQLite: 4 shards, each its own store, merged stores and records', () => {
  it('copies every attempt into one store: the same attempts and outcomes as the unsharded campaign', async () => {
    const shardStore = (index: number) => `sqlite:${join(scratch, `sqlite-shard-${index}.sqlite`)}`;
    const records = await runShards('sqlite-sharded', shardStore, 'sqlite-shard');
    const target = join(scratch, 'sqlite-merged.sqlite');
    const fromStores = [1, 2, 3, 4].flatMap((index) => ['--from-store', shardStore(index)]);

    // A shard store left out: its tries are in no store given — refused, nothing written, no record.
    const short = await evals([
      'merge',
      ...records,
      '--out',
      join(scratch, 'sqlite-short.json'),
      '--store',
      `sqlite:${target}`,
      ...fromStores.slice(0, 6),
    ]);
    expect(short.code, short.stderr).toBe(1);
    expect(short.stderr).toContain('shard_store_incomplete');
    expect(await exists(target)).toBe(false);
    expect(await exists(join(scratch, 'sqlite-short.json'))).toBe(false);

    // Each failure point of a merge, and what the store and --out hold after it: every refusal is
    // known before the first write (--out holding another record of the id, the ledger recording the
    // id for another plan), so "nothing was written" is true — no attempt copied, no record stored,
    // no --out written or changed.
    const campaignId = (JSON.parse(await readFile(records[0]!, 'utf8')) as CampaignRecord).campaignId;
    const seedOtherPlan = async (store: string): Promise<void> => {
      const opened = await openStore(store);
      try {
        await opened.recordCampaign({
          campaignId,
          record: { campaignId, planDigest: `sha256:${'e'.repeat(64)}` },
        });
      } finally {
        await opened.close();
      }
    };
    const holds = async (store: string): Promise<{ attempts: number; records: number } | null> => {
      if (!(await exists(store.slice('sqlite:'.length)))) return null;
      const opened = await openStore(store, { mustExist: true });
      try {
        return {
          attempts: (await opened.runs()).reduce((sum, entry) => sum + entry.attempts, 0),
          records: (await opened.campaigns()).length,
        };
      } finally {
        await opened.close();
      }
    };
    const FAILURE_POINTS: readonly (readonly [string, boolean, 'ledger' | 'out'])[] = [
      ['the ledger records the id for another plan (--store alone)', false, 'ledger'],
      ['the ledger records the id for another plan (--from-store)', true, 'ledger'],
      ['--out holds another record of the id (--store alone)', false, 'out'],
      ['--out holds another record of the id (--from-store)', true, 'out'],
    ];
    for (const [index, [what, copy, point]] of FAILURE_POINTS.entries()) {
      const store = `sqlite:${join(scratch, `merge-fail-${index}.sqlite`)}`;
      const failOut = join(scratch, `merge-fail-${index}.json`);
      if (point === 'ledger') await seedOtherPlan(store);
      // A shard's own record at --out: the same campaign id, another shard (its identity differs).
      if (point === 'out') await cp(records[0]!, failOut);
      const outBefore = (await exists(failOut)) ? await readFile(failOut, 'utf8') : null;
      const storeBefore = await holds(store);
      const failed = await evals([
        'merge',
        ...records,
        '--out',
        failOut,
        '--store',
        store,
        ...(copy ? fromStores : []),
      ]);
      expect(failed.code, `${what}: ${failed.stderr}`).toBe(1);
      expect(failed.stderr, what).toContain('paperclip_campaign_record_conflict');
      expect(failed.stderr, what).toContain('nothing was written');
      expect(failed.stderr, what).not.toContain('copied');
      expect(await holds(store), what).toEqual(storeBefore);
      expect((await exists(failOut)) ? await readFile(failOut, 'utf8') : null, what).toBe(outBefore);
    }

    const out = join(scratch, 'sqlite-merged.json');
    const result = await evals([
      'merge',
      ...records,
      '--out',
      out,
      '--store',
      `sqlite:${target}`,
      ...fromStores,
      '--json',
    ]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain(`${PLANNED} inserted, 0 already there`);
    const record = JSON.parse(result.stdout) as CampaignRecord;
    expect(record).toMatchObject({
      shard: null,
      complete: true,
      totals: { planned: PLANNED, passed: PLANNED },
    });
    const wholeOut = join(scratch, 'whole.json');
    if (!(await exists(wholeOut)))
      await evals([...runArgs('whole', `sqlite:${join(scratch, 'whole.sqlite')}`), '--out', wholeOut]);
    const whole = JSON.parse(await readFile(wholeOut, 'utf8')) as CampaignRecord;
    const outcome = (r: CampaignRecord) =>
      r.attempts.map((a) => [a.laneId, a.caseId, a.index, a.disposition]);
    expect(outcome(record)).toEqual(outcome(whole));
    // The merged store holds exactly the campaign's attempts, each with the outcome its shard stored.
    expect((await ledgerIds(`sqlite:${target}`, 'sqlite-sharded')).sort()).toEqual(
      record.attempts.map((a) => a.finalAttemptId).sort(),
    );
    const states = async (store: string, r: CampaignRecord) => {
      const opened = await openStore(store, { mustExist: true });
      try {
        return await Promise.all(
          r.attempts.map(async (a) => {
            const stored = await opened.getAttempt({
              runId: r.campaignId,
              caseId: a.caseId,
              configId: a.laneId,
              attemptId: a.finalAttemptId!,
            });
            return [
              a.laneId,
              a.caseId,
              a.index,
              stored?.record.terminal.run,
              stored?.record.failure?.code ?? null,
            ];
          }),
        );
      } finally {
        await opened.close();
      }
    };
    expect(await states(`sqlite:${target}`, record)).toEqual(
      await states(`sqlite:${join(scratch, 'whole.sqlite')}`, whole),
    );

    // Merging again: every attempt is already there, nothing changes.
    const again = await evals([
      'merge',
      ...records,
      '--out',
      out,
      '--store',
      `sqlite:${target}`,
      ...fromStores,
    ]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain(`0 inserted, ${PLANNED} already there`);
    // --from-store without --store (or the reverse) is a usage error.
    const usage = await evals(['merge', ...records, '--out', out, ...fromStores]);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('--from-store needs --store');
  }, 120_000);

  it('a shard SIGKILLed mid-session: --from-store merges its unsettled start, so the merged store counts its unknown spend and a resumed run with a ceiling is budget_unproven', async () => {
    const campaign = 'sqlite-killed-shard';
    const shardStore = (index: number) => `sqlite:${join(scratch, `${campaign}-${index}.sqlite`)}`;
    const waiting = await waitingPair(campaign);
    const argsOf = (store: string): string[] => {
      const args = runArgs(campaign, store, good, goodRecord, '1');
      args[args.indexOf('--env') + 1] = waiting;
      return args;
    };
    // Shard 1 dies with its session (a dead machine): a start in its store, no attempt, no record.
    let before = await standIn.starts();
    let pid = 0;
    const dying = evals([...argsOf(shardStore(1)), '--shard', '1/2'], (child) => (pid = child));
    const killed = await nextSession(before);
    process.kill(pid, 'SIGKILL');
    await dying;
    try {
      process.kill(-killed.pid, 'SIGKILL');
    } catch {
      // already gone
    }
    expect(await unsettledTries(shardStore(1), campaign)).toEqual([
      { tryId: killed.tryId, interrupted: false },
    ]);
    // Shard 2 runs its try to the end (its start settled by its attempt) and writes its record.
    before = await standIn.starts();
    const shard2 = join(scratch, `${campaign}-2.json`);
    const running = evals([...argsOf(shardStore(2)), '--shard', '2/2', '--out', shard2]);
    const settled = await nextSession(before);
    await writeFile(join(scratch, `work-${campaign}`, settled.tryId, 'go'), '');
    const ran = await running;
    expect(ran.code, ran.stderr).toBe(0);

    const target = `sqlite:${join(scratch, `${campaign}-merged.sqlite`)}`;
    const merge = [
      'merge',
      shard2,
      '--out',
      join(scratch, `${campaign}-merged.json`),
      '--store',
      target,
      '--from-store',
      shardStore(1),
      '--from-store',
      shardStore(2),
    ];
    const merged = await evals(merge);
    // Shard 1's record is missing: the merged record is partial (exit 1), the stores merged all the same.
    expect(merged.code, merged.stderr).toBe(1);
    expect(merged.stderr).toContain(
      'try starts: 2 inserted, 0 already there (1 never settled: unknown spend)',
    );
    expect(await unsettledTries(target, campaign)).toEqual([{ tryId: killed.tryId, interrupted: false }]);
    const runs = await evals(['runs', '--store', target, '--json']);
    const run = (
      JSON.parse(runs.stdout) as { runs: { runId: string; attempts: number; spend: unknown }[] }
    ).runs.find((entry) => entry.runId === campaign);
    expect(run).toMatchObject({ attempts: 1, spend: { unpriced: 1, unsettledTries: 1 } });
    // The same merge again writes nothing new.
    const again = await evals(merge);
    expect(again.stderr).toContain(
      'try starts: 0 inserted, 2 already there (1 never settled: unknown spend)',
    );

    // The dead cell rerun against the merged store with a ceiling: the killed try's spend is
    // unknown, so the budget is unproven and nothing starts.
    before = await standIn.starts();
    const resumed = await evals([...argsOf(target), '--shard', '1/2', '--max-cost-usd', '1']);
    expect(resumed.code, resumed.stderr).toBe(1);
    expect(resumed.stderr).toContain('(+1 unpriced, 1 of them never settled)');
    expect(resumed.stdout).toContain('budget');
    expect([...(await standIn.starts())].filter((start) => !before.has(start))).toEqual([]);
  }, 120_000);
});

describe('many machines: 4 shards into one PostgreSQL, merged', () => {
  let server: PostgresServer;
  beforeAll(async () => {
    server = await startPostgres();
  }, 60_000);
  afterAll(async () => {
    await server.stop();
  });

  it('after a SIGKILL mid-session, a resumed run with --max-cost-usd is budget_unproven (the start is committed in PostgreSQL); --allow-unpriced runs it', async () => {
    await resumedWithCeiling('pg-sigkill', await server.createDatabase('sigkill'));
  }, 90_000);

  it("another shard's running try is unknown spend to a shard with a ceiling until it settles (no shard can tell running from dead)", async () => {
    const campaign = 'pg-running';
    const url = await server.createDatabase('running');
    const args = runArgs(campaign, url, good, goodRecord, '1');
    args[args.indexOf('--env') + 1] = await waitingPair(campaign);
    const nextStart = async (before: Set<string>): Promise<string> => (await nextSession(before)).tryId;
    const go = (tryId: string): Promise<void> =>
      writeFile(join(scratch, `work-${campaign}`, tryId, 'go'), '');

    const before = await standIn.starts();
    const first = evals([...args, '--shard', '1/2']);
    const running = await nextStart(before);
    // Shard 2 with a ceiling sees shard 1's started try, not settled: unproven, nothing starts.
    const held = await evals([...args, '--shard', '2/2', '--max-cost-usd', '1']);
    expect(held.code, held.stderr).toBe(1);
    expect(held.stderr).toContain('(+1 unpriced, 1 of them never settled)');
    expect(
      [...(await standIn.starts())].filter((start) => !before.has(start) && !start.startsWith(running)),
    ).toEqual([]);
    await go(running);
    expect((await first).code).toBe(0);
    // Settled (its attempt is in the ledger, priced): shard 2 runs under the ceiling.
    const afterFirst = await standIn.starts();
    const second = evals([...args, '--shard', '2/2', '--max-cost-usd', '1']);
    await go(await nextStart(afterFirst));
    const result = await second;
    expect(result.code, result.stderr).toBe(0);
    expect(await unsettledTries(url, campaign)).toEqual([]);
  }, 90_000);

  it("makes the cost ceiling global: a second shard sees the first one's spend in the store", async () => {
    const url = await server.createDatabase('ceiling');
    // 1,000 µ$ a try; shard 1/2 holds 8 attempts = $0.008, the ceiling.
    const ceiling = ['--max-cost-usd', '0.008'];
    const first = await evals([
      ...runArgs('ceiling', url, good, goodRecord, '1'),
      '--shard',
      '1/2',
      ...ceiling,
      '--json',
    ]);
    expect(first.code, first.stderr).toBe(0);
    expect((JSON.parse(first.stdout) as CampaignRecord).totals.passed).toBe(PLANNED / 2);
    const before = await standIn.starts();
    const second = await evals([
      ...runArgs('ceiling', url, good, goodRecord, '1'),
      '--shard',
      '2/2',
      ...ceiling,
      '--json',
    ]);
    expect(second.code, second.stderr).toBe(1);
    const record = JSON.parse(second.stdout) as CampaignRecord;
    expect(record.totals.notRunBudget).toBe(PLANNED / 2);
    expect(record.partial).toContain('budget_stop');
    expect([...(await standIn.starts())].filter((start) => !before.has(start))).toEqual([]);
  }, 60_000);

  it('has the same attempts and outcomes as the unsharded campaign; a missing or duplicate shard is said', async () => {
    const url = await server.createDatabase('shards');
    const records = await runShards('sharded', () => url, 'shard');
    const merged = join(scratch, 'merged.json');
    // A shard record edited after the fact (an attempt the ledger holds as passed, said to be a
    // behaviour failure, its totals made to match) is checked against the shared ledger: refused,
    // exit 1, nothing written — neither --out nor a record in the ledger.
    const edited = join(scratch, 'shard-2-edited.json');
    const shard2 = JSON.parse(await readFile(records[1] ?? '', 'utf8')) as {
      attempts: { disposition: string; reason: string | null }[];
      totals: { passed: number; behaviorFailures: number };
      allPassed: boolean;
    };
    const [first] = shard2.attempts;
    if (first === undefined) throw new Error('shard 2 has no attempt');
    first.disposition = 'behavior_failure';
    first.reason = 'check objective-satisfied failed';
    shard2.totals.passed--;
    shard2.totals.behaviorFailures++;
    shard2.allPassed = false;
    await writeFile(edited, JSON.stringify(shard2));
    const editedOut = join(scratch, 'merged-edited.json');
    const refused = await evals([
      'merge',
      records[0] ?? '',
      edited,
      ...records.slice(2),
      '--out',
      editedOut,
      '--json',
      '--store',
      url,
    ]);
    expect(refused.code, refused.stderr).toBe(1);
    expect(refused.stderr).toContain('shard_store_conflict');
    expect(refused.stderr).toMatch(/is behavior_failure in the shard record but solved in postgres:/);
    expect(await exists(editedOut)).toBe(false);
    // One shared ledger: nothing to copy, --store alone appends the merged record to it.
    const result = await evals(['merge', ...records, '--out', merged, '--json', '--store', url]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('recorded in the ledger');
    expect(result.stderr).not.toContain('copied');
    const record = JSON.parse(result.stdout) as CampaignRecord;
    expect(record).toMatchObject({
      shard: null,
      complete: true,
      totals: { planned: PLANNED, passed: PLANNED },
    });
    // The unsharded campaign (the one-machine test's record, or run here when that test was skipped).
    const wholeOut = join(scratch, 'whole.json');
    if (!(await exists(wholeOut)))
      await evals([...runArgs('whole', `sqlite:${join(scratch, 'whole.sqlite')}`), '--out', wholeOut]);
    const whole = JSON.parse(await readFile(wholeOut, 'utf8')) as CampaignRecord;
    const outcome = (r: CampaignRecord) =>
      r.attempts.map((a) => [a.laneId, a.caseId, a.index, a.disposition]);
    expect(outcome(record)).toEqual(outcome(whole));
    expect((await ledgerIds(url, 'sharded')).sort()).toEqual(record.attempts.map((a) => a.attemptId).sort());
    const ledger = await openStore(url, { mustExist: true });
    try {
      const stored = (await ledger.campaigns()).filter((entry) => entry.campaignId === record.campaignId);
      expect(stored.map((entry) => entry.record['complete'])).toEqual([true]);
    } finally {
      await ledger.close();
    }

    const missing = await evals([
      'merge',
      ...records.slice(0, 3),
      '--out',
      join(scratch, 'missing.json'),
      '--json',
    ]);
    expect(missing.code).toBe(1);
    const partial = JSON.parse(missing.stdout) as CampaignRecord;
    expect(partial.partial).toContain('shard_missing');
    const lost = partial.attempts.filter((a) => a.shard === 4);
    expect(lost.length).toBeGreaterThan(0);
    expect(lost.every((a) => a.infrastructureFailure?.class === 'ci_cell_artifact_missing')).toBe(true);

    const duplicate = await evals(['merge', ...records, records[0]!, '--out', join(scratch, 'dup.json')]);
    expect(duplicate.code).toBe(1);
    expect(duplicate.stderr).toContain('shard_duplicate');
  }, 120_000);
});
