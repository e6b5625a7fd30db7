// Issue 18 end to end, through the built CLI with real processes: a campaign stopped by a tiny
// --max-cost-usd is recorded partial (budget_stop); resumed under the same id with a higher ceiling
// it completes, and its complete record goes into the ledger BESIDE the partial one (both kept);
// `evals publish` then lists the campaign complete, as a trend point and as latest green — the
// ledger's current record is the newest, never the first. And issue 19: a campaign's record carries
// its cases' prompts and descriptions (caseDefinitions), so its published private attempt pages show
// the case's prompt from the ledger alone — the same bytes with or without `--env` on publish (even an
// --env whose prompts differ) — while its public pages hold none of it.
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { openStore } from '@paperclip-evals/evalbook';
import { qualifyRelease, writeQualificationRecord } from '@paperclip-evals/qualification';

import { EVALS_BIN } from '@paperclip-evals/test-kit/repo';
import { buildFakeRelease } from '@paperclip-evals/test-kit/fake-release';
import { testPnpm } from '@paperclip-evals/test-kit/pnpm';
import { allBytes, snapshotTree } from '@paperclip-evals/test-kit/site-store';
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

const run = (store: string, ceilingUsd: string, env = environment, campaign = 'nightly-7') =>
  evals([
    'run',
    '--release-dir',
    release,
    '--qualification',
    qualification,
    '--env',
    env,
    '--campaign',
    campaign,
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

    // The same command again finds every try in the ledger (a no-op resume): the same campaign, its
    // calls the ledger's tries, so publishing it again into the site changes nothing — never a
    // re-render that leaves latest and the trend, nor a conflict with its own folder.
    const calls = (campaignJson as unknown as { providerCalls: number }).providerCalls;
    expect(calls).toBe(2);
    const noop = await run(store, '1');
    expect(noop.code, noop.stderr).toBe(0);
    expect(JSON.parse(noop.stdout)).toMatchObject({ totals: { tries: 0, resumed: 2 } });
    const again = await evals(['publish', '--store', store, '--out', site, '--json']);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({
      campaigns: [{ campaignId: 'nightly-7', outcome: 'unchanged', kind: 'campaign' }],
      latest: 'nightly-7',
      latestGreen: 'nightly-7',
    });
  }, 180_000);
});

describe("a published campaign's attempt pages show its case's prompt, from the ledger (issue 19)", () => {
  const PROMPT = 'Summarise the <incident> review & "brief" PROMPT-MARKER';
  const DESCRIPTION = 'the brief case DESCRIPTION-MARKER';

  it('private pages show the prompt and description the record carries, the same bytes with and without --env; public pages none', async () => {
    const suite = suiteEnvironment([
      { id: 'case_0', behaviour: 'succeed' },
      { id: 'case_1', behaviour: 'succeed' },
    ]);
    const cases = suite.cases as Record<string, unknown>[];
    const described = {
      ...suite,
      cases: [{ ...cases[0], prompt: PROMPT, description: DESCRIPTION }, cases[1]],
    };
    const env = join(scratch, 'prompt-suite.json');
    await writeFile(env, JSON.stringify(described));
    const store = `sqlite:${join(scratch, 'prompts.sqlite')}`;
    const ran = await run(store, '1', env, 'prompted-1');
    expect(ran.code, ran.stderr).toBe(0);
    const record = JSON.parse(ran.stdout) as CampaignRecord;
    expect(record.caseDefinitions).toEqual([
      { id: 'case_0', prompt: PROMPT, description: DESCRIPTION },
      { id: 'case_1', prompt: 'Do case_1.', description: null },
    ]);

    const site = join(scratch, 'prompt-site');
    const published = await evals(['publish', '--store', store, '--out', site]);
    expect(published.code, published.stderr).toBe(0);
    const attempts = join(site, 'campaigns', 'prompted-1', 'attempts');
    const pages = (await readdir(attempts)).sort();
    expect(pages).toHaveLength(2);
    const [first, second] = await Promise.all(pages.map((name) => readFile(join(attempts, name), 'utf8')));
    expect(pages[0]).toMatch(/^case_0\./);
    expect(first).toContain(
      '<blockquote class="prompt" data-field="prompt">Summarise the &lt;incident&gt; review &amp; &quot;brief&quot; PROMPT-MARKER</blockquote>',
    );
    expect(first).toContain(DESCRIPTION);
    expect(first).not.toContain('data-field="prompt-missing"');
    expect(second).toContain('<blockquote class="prompt" data-field="prompt">Do case_1.</blockquote>');

    // With --env (one whose prompts differ, even): the very same bytes; nothing from the environment.
    const other = join(scratch, 'other-suite.json');
    await writeFile(
      other,
      JSON.stringify({
        ...described,
        cases: (described.cases as Record<string, unknown>[]).map((entry) => ({
          ...entry,
          prompt: 'FROM-THE-ENVIRONMENT',
          description: 'FROM-THE-ENVIRONMENT',
        })),
      }),
    );
    const withEnv = join(scratch, 'prompt-site-env');
    for (const file of [env, other]) {
      await rm(withEnv, { recursive: true, force: true });
      const again = await evals(['publish', '--store', store, '--env', file, '--out', withEnv]);
      expect(again.code, again.stderr).toBe(0);
      expect(await snapshotBytes(withEnv)).toEqual(await snapshotBytes(site));
    }
    expect(await allBytes(site)).not.toContain('FROM-THE-ENVIRONMENT');
    expect((await evals(['publish', '--verify', site])).code).toBe(0);

    // The public projection keeps no prompt and no description (the suite's, not the attempt's).
    const pub = join(scratch, 'prompt-public');
    const projected = await evals(['publish', '--store', store, '--out', pub, '--public']);
    expect(projected.code, projected.stderr).toBe(0);
    const publicBytes = await allBytes(pub);
    for (const marker of ['PROMPT-MARKER', 'DESCRIPTION-MARKER', 'Do case_1.', 'incident'])
      expect(publicBytes).not.toContain(marker);
  }, 180_000);
});

/** Every file of a site: path → bytes (inodes left out: two folders are compared). */
async function snapshotBytes(root: string): Promise<Record<string, string>> {
  return Object.fromEntries(
    Object.entries(await snapshotTree(root)).map(([path, { bytes }]) => [path, bytes]),
  );
}
