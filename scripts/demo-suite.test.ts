// The demo's suite and environment, without running a session: the environment loads with Evals'
// loader and matches the checked-in copy, `evals run`'s planner makes the campaign the demo runs
// from it, and the stand-in provider's per-model behaviours make the two lanes differ both ways (a
// regression and an improvement), on models the reference runner prices.
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

import { planCampaign } from '../packages/campaign/dist/index.js';
import { loadEnvironment, starterEnvironment } from '../packages/evalbook/dist/index.js';
import { MODEL_PRICING } from '../packages/reference-runner/dist/cli/eval-session-contract.js';
import { DEMO_ENVIRONMENT_FIXTURE } from './demo-environment.ts';
import { demoPaths } from './demo-paths.ts';
import {
  BASELINE,
  CANDIDATE,
  DEMO_ATTEMPTS_PER_PAIR,
  DEMO_CASES,
  DEMO_CONFIGS,
  behaviourOn,
  caseSession,
  caseSha256,
  configSha256,
  demoEnvironmentYaml,
} from './demo-suite.ts';

const config = (id: string) => DEMO_CONFIGS.find((entry) => entry.id === id)!;
const solves = (behaviour: string): boolean => behaviour === 'succeed';

describe('the demo suite', () => {
  it('covers successes, denials and an incomplete transcript', () => {
    const behaviours = new Set(DEMO_CASES.flatMap((entry) => DEMO_CONFIGS.map((c) => behaviourOn(entry, c))));
    for (const behaviour of ['succeed', 'deny_tool', 'incomplete']) expect(behaviours).toContain(behaviour);
  });

  it('makes the candidate regress on one case and improve on another (deterministic, by model)', () => {
    const baseline = config(BASELINE);
    const candidate = config(CANDIDATE);
    expect(baseline.model).not.toBe(candidate.model);
    const regressed = DEMO_CASES.filter(
      (entry) => solves(behaviourOn(entry, baseline)) && !solves(behaviourOn(entry, candidate)),
    );
    const improved = DEMO_CASES.filter(
      (entry) => !solves(behaviourOn(entry, baseline)) && solves(behaviourOn(entry, candidate)),
    );
    expect(regressed.length).toBeGreaterThanOrEqual(1);
    expect(improved.length).toBeGreaterThanOrEqual(1);
  });

  it('runs its enabled lanes on models the reference runner prices; the disabled one is unpriced everywhere', () => {
    for (const lane of DEMO_CONFIGS.filter((entry) => entry.enabled)) {
      expect(Object.hasOwn(MODEL_PRICING, lane.model), lane.model).toBe(true);
      expect(lane.runnerPriced).toBe(true);
    }
    const disabled = DEMO_CONFIGS.filter((entry) => !entry.enabled);
    expect(disabled).toHaveLength(1);
    expect(Object.hasOwn(MODEL_PRICING, disabled[0]!.model)).toBe(false);
    expect(disabled[0]!.tablePrice).toBeNull();
  });

  it('names only models of its configs in behaviourByModel', () => {
    const models = new Set(DEMO_CONFIGS.map((entry) => entry.model));
    for (const entry of DEMO_CASES)
      for (const model of Object.keys(entry.behaviourByModel)) expect(models).toContain(model);
  });
});

describe('the demo environment', () => {
  it('equals fixtures/environments/demo/evalbook.yaml (regenerate: npx tsx scripts/demo-environment.ts)', () => {
    expect(readFileSync(DEMO_ENVIRONMENT_FIXTURE, 'utf8')).toBe(demoEnvironmentYaml());
  });

  it("loads with Evals' environment loader: digests, prompts, sessions, lanes and no price for the unpriced model", async () => {
    const environment = await loadEnvironment(DEMO_ENVIRONMENT_FIXTURE);
    expect(environment.cases.map((entry) => [entry.id, entry.sha256, entry.prompt, entry.session])).toEqual(
      DEMO_CASES.map((entry) => [entry.id, caseSha256(entry), entry.prompt, caseSession(entry)]),
    );
    expect(environment.configs.map((entry) => [entry.id, entry.sha256, entry.lane?.enabled ?? true])).toEqual(
      DEMO_CONFIGS.map((entry) => [entry.id, configSha256(entry), entry.enabled]),
    );
    for (const entry of DEMO_CONFIGS)
      expect(Object.hasOwn(environment.pricing?.models ?? {}, entry.model)).toBe(entry.tablePrice !== null);
  });

  it('plans the campaign the demo runs: enabled lanes × cases × 3 attempts, stable unique ids, the disabled lane left out', async () => {
    const environment = await loadEnvironment(DEMO_ENVIRONMENT_FIXTURE);
    const plan = planCampaign(environment, { campaignId: 'demo-test' });
    const enabled = DEMO_CONFIGS.filter((entry) => entry.enabled);
    expect(plan.lanes.map((lane) => [lane.id, lane.model, lane.provider])).toEqual(
      enabled.map((entry) => [entry.id, entry.model, 'paperclip_deterministic']),
    );
    expect(plan.lanesLeftOut).toEqual(
      DEMO_CONFIGS.filter((entry) => !entry.enabled).map((entry) => entry.id),
    );
    expect(plan.attempts).toHaveLength(enabled.length * DEMO_CASES.length * DEMO_ATTEMPTS_PER_PAIR);
    expect(new Set(plan.attempts.map((attempt) => attempt.attemptId)).size).toBe(plan.attempts.length);
    expect(planCampaign(environment, { campaignId: 'demo-test' })).toEqual(plan);
    expect(plan.settings).toMatchObject({ attempts: DEMO_ATTEMPTS_PER_PAIR, maxInfrastructureRetries: 1 });
    expect(plan.settings.maxCostNanodollars).toBe(1_000_000_000);
  });
});

describe('what the demo keeps', () => {
  it('keeps the release it builds beside the records that point to it, in the campaign folder', () => {
    const paths = demoPaths('/repo', 'demo-1');
    expect(relative('/repo', paths.keptDir)).toBe('.evalbook/demo/demo-1');
    for (const path of [
      paths.releaseDir,
      paths.environment,
      paths.qualification,
      paths.campaignRecord,
      paths.campaignWorkDir,
      paths.storeUrl.slice('sqlite:'.length),
    ])
      expect(relative(paths.keptDir, path)).toMatch(/^[^./][^/]*$/);
  });

  it('demo.ts builds its release there and removes nothing (no temporary folder, no rm)', () => {
    const source = readFileSync(new URL('./demo.ts', import.meta.url), 'utf8');
    expect(source).toContain('demoPaths(ROOT, campaignId)');
    expect(source).not.toMatch(/\b(rmSync|rm|mkdtempSync|tmpdir)\(/);
  });
});

describe("evals init's starter suite", () => {
  it('runs on the reference runner: its stand-in provider, a model it prices, priced in the table at its pinned rates', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'starter-'));
    try {
      await writeFile(join(dir, 'evalbook.yaml'), starterEnvironment());
      const environment = await loadEnvironment(join(dir, 'evalbook.yaml'));
      const plan = planCampaign(environment, { campaignId: 'first-1' });
      expect(plan.lanes.length).toBeGreaterThan(0);
      for (const lane of plan.lanes) {
        expect(lane.provider).toBe('paperclip_deterministic');
        const pinned = Object.entries(MODEL_PRICING).find(([model]) => model === lane.model)?.[1];
        expect(pinned, lane.model).toBeDefined();
        expect(environment.pricing?.models[lane.model]).toEqual({
          inputPerMillionUsd: pinned?.input,
          outputPerMillionUsd: pinned?.output,
        });
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
