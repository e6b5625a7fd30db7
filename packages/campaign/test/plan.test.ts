// The plan: deterministic ids, lanes all = enabled only, a disabled lane only when named, cases,
// shards (property: every attempt in exactly one shard for any N, balanced), and every problem of
// the suite and flags listed at once.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { parseEnvironment } from '@paperclip-evals/evalbook';

import { CampaignError } from '../src/errors.ts';
import {
  legacyPlanDigest,
  parseShard,
  planCampaign,
  planDigest,
  plannedAttemptId,
  shardAttempts,
} from '../src/plan.ts';
import { suiteEnvironment } from './support/stand-in.ts';

const environment = (caseCount: number, options: Parameters<typeof suiteEnvironment>[1] = {}) =>
  parseEnvironment(
    suiteEnvironment(
      Array.from({ length: caseCount }, (_, index) => ({ id: `case_${index}`, behaviour: 'succeed' })),
      options,
    ),
  );

const issueCodes = (run: () => unknown): string[] => {
  try {
    run();
  } catch (error) {
    if (error instanceof CampaignError) return error.issues.map((issue) => issue.code);
    throw error;
  }
  return [];
};

describe('planCampaign', () => {
  const lanes = [{ id: 'lane_a' }, { id: 'lane_b', enabled: false }, { id: 'lane_c' }];

  it('runs every enabled lane for all, a disabled lane only when named', () => {
    const suite = environment(2, { lanes, attempts: 3 });
    const all = planCampaign(suite, { campaignId: 'c1' });
    expect(all.lanes.map((lane) => lane.id)).toEqual(['lane_a', 'lane_c']);
    expect(all.lanesLeftOut).toEqual(['lane_b']);
    expect(all.allEnabledLanes).toBe(true);
    expect(all.attempts).toHaveLength(2 * 2 * 3);
    const named = planCampaign(suite, { campaignId: 'c1', lanes: ['lane_b'] });
    expect(named.lanes.map((lane) => lane.id)).toEqual(['lane_b']);
    expect(named.allEnabledLanes).toBe(false);
    const cases = planCampaign(suite, { campaignId: 'c1', cases: ['case_1'] });
    expect(new Set(cases.attempts.map((attempt) => attempt.caseId))).toEqual(new Set(['case_1']));
    expect(cases.allCases).toBe(false);
  });

  it('lists every problem of the suite and flags at once', () => {
    const suite = environment(1, { lanes });
    expect(
      issueCodes(() =>
        planCampaign(suite, { campaignId: '-bad', lanes: ['nope', 'lane_a', 'lane_a'], cases: ['missing'] }),
      ),
    ).toEqual(['campaign_id_invalid', 'lane_unknown', 'lane_duplicate', 'case_unknown']);
    const noPrompt = parseEnvironment({
      ...suiteEnvironment([{ id: 'c', behaviour: 'succeed' }]),
      cases: [{ id: 'c', sha256: `sha256:${'a'.repeat(64)}` }],
    });
    expect(issueCodes(() => planCampaign(noPrompt, { campaignId: 'c1' }))).toEqual(['case_prompt_missing']);
    const { lane: _lane, ...bare } = (
      suiteEnvironment([{ id: 'c', behaviour: 'x' }]).configs as Record<string, unknown>[]
    )[0]!;
    const noLane = parseEnvironment({ ...suiteEnvironment([{ id: 'c', behaviour: 'x' }]), configs: [bare] });
    expect(issueCodes(() => planCampaign(noLane, { campaignId: 'c1' }))).toEqual(['lanes_none']);
    expect(issueCodes(() => planCampaign(noLane, { campaignId: 'c1', lanes: ['lane_a'] }))).toEqual([
      'lane_missing',
    ]);
  });

  it('keeps how a campaign is run (ceiling, retries, parallelism) out of its identity (property)', () => {
    const settings = fc.record({
      maxCostUsd: fc.option(
        fc.integer({ min: 1, max: 10_000 }).map((cents) => cents / 100),
        { nil: undefined },
      ),
      yamlCostUsd: fc.option(
        fc.integer({ min: 1, max: 10_000 }).map((cents) => cents / 100),
        { nil: undefined },
      ),
      retries: fc.integer({ min: 0, max: 3 }),
      parallel: fc.option(fc.integer({ min: 1, max: 8 }), { nil: undefined }),
    });
    const identity = (run: {
      maxCostUsd: number | undefined;
      yamlCostUsd: number | undefined;
      retries: number;
      parallel: number | undefined;
    }) => {
      const suite = suiteEnvironment([{ id: 'case_0', behaviour: 'succeed' }], {
        attempts: 2,
        retries: run.retries,
        ...(run.yamlCostUsd === undefined ? {} : { maxCostUsd: run.yamlCostUsd }),
      });
      const campaign = {
        ...(suite.campaign as object),
        ...(run.parallel === undefined ? {} : { max_parallel: run.parallel }),
      };
      const plan = planCampaign(parseEnvironment({ ...suite, campaign }), {
        campaignId: 'c3',
        ...(run.maxCostUsd === undefined ? {} : { maxCostUsd: run.maxCostUsd }),
      });
      return [plan.suiteFingerprint, planDigest(plan)];
    };
    fc.assert(
      fc.property(settings, settings, (a, b) => {
        expect(identity(a)).toEqual(identity(b));
      }),
    );
    // What the campaign is stays in it: attempts per case.
    const two = planCampaign(environment(1, { attempts: 2 }), { campaignId: 'c3' });
    const three = planCampaign(environment(1, { attempts: 3 }), { campaignId: 'c3' });
    expect(planDigest(two)).not.toBe(planDigest(three));
  });

  it("leaves the ledger's place out of the suite: store: moved is the same suite, and an earlier record's digest is still of this plan", () => {
    const suite = suiteEnvironment([{ id: 'case_0', behaviour: 'succeed' }], { attempts: 2 });
    const at = (store: string): ReturnType<typeof parseEnvironment> => parseEnvironment({ ...suite, store });
    const here = planCampaign(at('sqlite:a.sqlite'), { campaignId: 'moved' });
    const there = planCampaign(at('postgres://db.example/evals'), { campaignId: 'moved' });
    expect(there.suiteFingerprint).toBe(here.suiteFingerprint);
    expect(planDigest(there)).toBe(planDigest(here));
    // Written before, with the store in the fingerprint: of this plan at that place, of no other.
    const before = legacyPlanDigest(here, at('sqlite:a.sqlite'));
    expect(before).not.toBe(planDigest(here));
    expect(legacyPlanDigest(there, at('sqlite:a.sqlite'))).toBe(before);
    // What the suite is stays in it.
    const renamed = planCampaign(parseEnvironment({ ...suite, store: 'sqlite:a.sqlite', name: 'other' }), {
      campaignId: 'moved',
    });
    expect(renamed.suiteFingerprint).not.toBe(here.suiteFingerprint);
  });

  it('gives stable, unique attempt ids (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 6 }),
        fc.integer({ min: 1, max: 5 }),
        fc.stringMatching(/^[a-z][a-z0-9]{0,12}$/),
        (caseCount, attempts, campaignId) => {
          const suite = environment(caseCount, { lanes, attempts });
          const first = planCampaign(suite, { campaignId });
          const again = planCampaign(suite, { campaignId });
          expect(again.attempts).toEqual(first.attempts);
          const ids = first.attempts.map((attempt) => attempt.attemptId);
          expect(new Set(ids).size).toBe(ids.length);
          for (const attempt of first.attempts)
            expect(attempt.attemptId).toBe(
              plannedAttemptId(campaignId, attempt.laneId, attempt.caseId, attempt.index),
            );
          // Another campaign id gives other ids.
          const other = planCampaign(suite, { campaignId: `${campaignId}x` });
          expect(other.attempts.some((attempt) => ids.includes(attempt.attemptId))).toBe(false);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('puts every attempt in exactly one shard, balanced, for any N (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 7 }),
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: 1, max: 12 }),
        (caseCount, attempts, count) => {
          const suite = environment(caseCount, { lanes, attempts });
          const plan = planCampaign(suite, { campaignId: 'sharded', shardCount: count });
          const slices = Array.from({ length: count }, (_, index) =>
            shardAttempts(plan, { index: index + 1, count }),
          );
          const ids = slices.flat().map((attempt) => attempt.attemptId);
          expect(ids.sort()).toEqual(plan.attempts.map((attempt) => attempt.attemptId).sort());
          const sizes = slices.map((slice) => slice.length);
          expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1);
          // The same attempt ids whatever the shard count: shards slice one plan.
          expect(plan.attempts.map((attempt) => attempt.attemptId)).toEqual(
            planCampaign(suite, { campaignId: 'sharded' }).attempts.map((attempt) => attempt.attemptId),
          );
        },
      ),
      { numRuns: 60 },
    );
  });

  it.each(['0/4', '5/4', '1/0', 'a/b', '1/257', '2', ' 1/2'])('refuses --shard %s', (text) => {
    expect(issueCodes(() => parseShard(text))).toEqual(['shard_invalid']);
  });
  it('reads --shard K/N', () => {
    expect(parseShard('3/4')).toEqual({ index: 3, count: 4 });
  });
});
