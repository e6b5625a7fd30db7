// The eval-session a lane starts (the stand-in, support/stand-in-eval-session.mjs): it receives
// exactly the lane's per-provider request fields and bin flags (support/lane-profiles.ts, one lane
// per upstream provider) and no string seed (a case's own seed object goes as is); a lane missing
// its required profile starts no session; a changed profile never reuses the ledger's outcome of
// the old one on resume.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { loadEnvironment } from '@paperclip-evals/evalbook';

import { executeCampaign } from '../src/execute.ts';
import { planCampaign } from '../src/plan.ts';
import { MANAGED, VALID, suiteWith } from './support/lane-profiles.ts';
import { createStandIn, standInRelease } from './support/stand-in.ts';

import type { StandIn } from './support/stand-in.ts';

let scratch: string;
let standIn: StandIn;
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'campaign-lane-profile-'));
  standIn = await createStandIn('lane-profile');
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
  await standIn.remove();
});

async function execute(campaignId: string, suite: Record<string, unknown>, store: string) {
  const environmentPath = join(scratch, `${campaignId}-${Math.random().toString(16).slice(2)}.json`);
  await writeFile(environmentPath, JSON.stringify(suite));
  const environment = await loadEnvironment(environmentPath);
  const plan = planCampaign(environment, { campaignId });
  return executeCampaign({
    plan,
    shard: null,
    release: standInRelease(standIn),
    environment,
    environmentPath,
    storeUrl: store,
    workDir: join(scratch, `${campaignId}-work-${Math.random().toString(16).slice(2)}`),
    maxParallel: 2,
  });
}

describe('the eval-session a lane starts', () => {
  it("receives exactly the lane's request fields and flags, and no seed the case did not give", async () => {
    const store = `sqlite:${join(scratch, 'fields.sqlite')}`;
    const result = await execute('fields', suiteWith(VALID), store);
    // The stand-in refuses (exit 1) every request: each is an infrastructure failure, recorded.
    expect(result.attempts.map((a) => a.infrastructureFailure?.class)).toEqual(
      Object.keys(VALID).map(() => 'eval_session_refused'),
    );
    const received = await standIn.received();
    expect(received).toHaveLength(Object.keys(VALID).length);
    const base = [
      'schema',
      'attemptId',
      'prompt',
      'model',
      'provider',
      'runnerd',
      'limits',
      'session',
      'evalCase',
    ];
    for (const [laneId, entry] of Object.entries(VALID)) {
      const start = received.find(
        (item) => (item.request.evalCase as { configId: string }).configId === laneId,
      );
      expect(start, laneId).toBeDefined();
      const { request, args } = start!;
      expect(Object.keys(request).sort(), laneId).toEqual([...base, ...Object.keys(entry.request)].sort());
      for (const [field, value] of Object.entries(entry.request))
        expect(request[field], laneId).toEqual(value);
      expect(args.slice(0, 4)).toEqual(['--request', expect.any(String), '--output', expect.any(String)]);
      expect(args.slice(4), laneId).toEqual(entry.args);
      // upstream reads session.seed as a fixture seed object, never a string: none is sent.
      expect(request.session, laneId).not.toHaveProperty('seed');
      expect(request.model).toBe(entry.model ?? 'model-x');
    }
  });

  it("sends a case's own upstream seed object as is", async () => {
    const suite = suiteWith({ lane_x: VALID.codex! });
    const seed = { epochMs: 1_767_225_600_000, company: { name: 'Seeded Co' } };
    ((suite.cases as Record<string, unknown>[])[0]!.session as Record<string, unknown>).seed = seed;
    const before = (await standIn.received()).length;
    await execute('seeded', suite, `sqlite:${join(scratch, 'seeded.sqlite')}`);
    const received = await standIn.received();
    expect(received).toHaveLength(before + 1);
    const mine = received.filter((item) => (item.request.session as { runId?: string }).runId === 'seeded');
    expect(mine.map((item) => (item.request.session as { seed?: unknown }).seed)).toEqual([seed]);
  });

  it('starts no session for a lane missing its required profile', async () => {
    const before = (await standIn.starts()).size;
    await expect(
      execute(
        'missing',
        suiteWith({ lane_x: { lane: { provider: 'aws_agentcore' } } }),
        `sqlite:${join(scratch, 'missing.sqlite')}`,
      ),
    ).rejects.toMatchObject({
      code: 'paperclip_campaign_suite_invalid',
      issues: [{ code: 'lane_profile_missing' }],
    });
    expect((await standIn.starts()).size).toBe(before);
  });

  it("never reuses the ledger's outcome of another profile on resume", async () => {
    const store = `sqlite:${join(scratch, 'resume.sqlite')}`;
    const lane = (agentVersion: string) => ({
      lane_m: {
        lane: { provider: 'claude_managed', managed_profile: { ...MANAGED, agentVersion } },
        model: 'claude-sonnet-5',
      },
    });
    await execute('resume', suiteWith(lane('7')), store);
    // The same profile: the held try is this plan's, nothing starts again.
    const before = (await standIn.starts()).size;
    const again = await execute('resume', suiteWith(lane('7')), store);
    expect(again.attempts.map((a) => a.resumed)).toEqual([true]);
    expect((await standIn.starts()).size).toBe(before);
    // Another profile under the same campaign id: refused before any session (the held try ran the old one).
    await expect(execute('resume', suiteWith(lane('8')), store)).rejects.toMatchObject({
      code: 'paperclip_campaign_record_conflict',
      issues: [{ code: 'campaign_held_try_differs', component: 'laneProfileSha256' }],
    });
    expect((await standIn.starts()).size).toBe(before);
  });
});
