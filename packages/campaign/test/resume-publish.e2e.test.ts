// Issue 18 end to end, through the built CLI with real processes: a campaign stopped by a tiny
// --max-cost-usd is recorded partial (budget_stop); resumed under the same id with a higher ceiling
// it completes, and its complete record goes into the ledger BESIDE the partial one (both kept);
// `evals publish` then lists the campaign complete, as a trend point and as latest green — the
// ledger's current record is the newest, never the first.
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { openStore } from '@paperclip-evals/evalbook';
import { qualifyRelease, writeQualificationRecord } from '@paperclip-evals/qualification';

import { EVALS_BIN } from '@paperclip-evals/test-kit/repo';
import { buildFakeRelease } from '@paperclip-evals/test-kit/fake-release';
import { testPnpm } from '@paperclip-evals/test-kit/pnpm';
import { createStandIn, suiteEnvironment } from './support/stand-in.ts';

import type { CampaignRecord } from '../src/record.ts';
import type { StandIn } from './support/stand-in.ts';

let scratch: string;
let standIn: StandIn;
let release: string;
let qualification: string;
let environment: string;

function evals(args: readonly string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [EVALS_BIN, ...args], {
      cwd: scratch,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      resolve({ code, stdout, stderr });
    });
  });
}

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'campaign-resume-'));
  standIn = await createStandIn('resume');
  release = (await buildFakeRelease(join(scratch, 'release'))).dir;
  const work = join(scratch, 'qualify-work');
  await mkdir(work);
  qualification = join(scratch, 'qualification.json');
  await writeQualificationRecord(
    qualification,
    await qualifyRelease({ releaseDir: release, tempDir: work, pnpm: testPnpm() }),
  );
  environment = join(scratch, 'evalbook.json');
  // Two cases × one lane: 1,000 µ$ a try (the stand-in's), so a $0.001 ceiling stops after one.
  await writeFile(
    environment,
    JSON.stringify(
      suiteEnvironment(
        [
          { id: 'case_0', behaviour: 'succeed' },
          { id: 'case_1', behaviour: 'succeed' },
        ],
        { attempts: 1, turnTimeoutMs: 5_000 },
      ),
    ),
  );
}, 120_000);

afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
  await standIn.remove();
});

const run = (store: string, ceilingUsd: string) =>
  evals([
    'run',
    '--release-dir',
    release,
    '--qualification',
    qualification,
    '--env',
    environment,
    '--campaign',
    'nightly-7',
    '--store',
    store,
    '--work-dir',
    join(scratch, 'work'),
    '--eval-session-bin',
    standIn.binPath,
    '--eval-session-sha256',
    standIn.sha256,
    '--max-parallel',
    '1',
    '--max-cost-usd',
    ceilingUsd,
    '--json',
  ]);

describe('a campaign stopped by its budget, then resumed to completion', () => {
  it('is published complete: listed complete, a trend point and latest green; both records kept in the ledger', async () => {
    const store = `sqlite:${join(scratch, 'evalbook.sqlite')}`;
    const stopped = await run(store, '0.001');
    expect(stopped.code, stopped.stderr).toBe(1);
    const partial = JSON.parse(stopped.stdout) as CampaignRecord;
    expect(partial).toMatchObject({ complete: false, partial: ['budget_stop'], totals: { notRunBudget: 1 } });
    expect(stopped.stderr).toContain('campaign nightly-7 recorded in the ledger');

    const resumed = await run(store, '1');
    expect(resumed.code, resumed.stderr).toBe(0);
    const complete = JSON.parse(resumed.stdout) as CampaignRecord;
    expect(complete).toMatchObject({ complete: true, partial: [], totals: { resumed: 1, passed: 2 } });
    expect(complete.planDigest).toBe(partial.planDigest);
    expect(resumed.stderr).toContain('beside its earlier record(s) of the same plan');

    // Both records in the ledger, in the order they were appended: nothing replaced.
    const ledger = await openStore(store, { mustExist: true });
    try {
      expect((await ledger.campaigns()).map((entry) => entry.record['complete'])).toEqual([false, true]);
    } finally {
      await ledger.close();
    }

    const site = join(scratch, 'site');
    const published = await evals(['publish', '--store', store, '--out', site, '--json']);
    expect(published.code, published.stderr).toBe(0);
    const history = JSON.parse(await readFile(join(site, 'history.json'), 'utf8')) as {
      campaigns: { campaignId: string; completeness: string; partialReasons: string[]; green: boolean }[];
      groups: { points: { campaignId: string }[] }[];
      latestGreen: string | null;
    };
    expect(history.campaigns).toEqual([
      expect.objectContaining({
        campaignId: 'nightly-7',
        completeness: 'complete',
        partialReasons: [],
        green: true,
      }),
    ]);
    expect(history.groups.flatMap((group) => group.points.map((point) => point.campaignId))).toEqual([
      'nightly-7',
    ]);
    expect(history.latestGreen).toBe('nightly-7');
    const latestGreen = JSON.parse(await readFile(join(site, 'latest-green.json'), 'utf8')) as {
      campaign: { campaignId: string } | null;
    };
    expect(latestGreen.campaign?.campaignId).toBe('nightly-7');
    const campaignJson = JSON.parse(
      await readFile(join(site, 'campaigns', 'nightly-7', 'campaign.json'), 'utf8'),
    ) as { completeness: string };
    expect(campaignJson.completeness).toBe('complete');
  }, 180_000);
});
