// The demo's suite and environment, without running runnerd: the suite covers what issue 5 asks of
// the demo, and its environment loads with Evals' loader and matches the checked-in copy.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

import { loadEnvironment } from '../packages/evalbook/dist/index.js';
import { DEMO_ENVIRONMENT_FIXTURE } from './demo-environment.ts';
import {
  DEMO_CASES,
  DEMO_CONFIGS,
  caseSha256,
  configSha256,
  demoAttempts,
  demoEnvironmentYaml,
} from './demo-suite.ts';

describe('the demo suite', () => {
  const attempts = demoAttempts();

  it('is at least 4 cases × 2 configs × 3 attempts, each attempt id unique', () => {
    expect(DEMO_CASES.length).toBeGreaterThanOrEqual(4);
    expect(DEMO_CONFIGS.length).toBeGreaterThanOrEqual(2);
    expect(attempts).toHaveLength(DEMO_CASES.length * DEMO_CONFIGS.length * 3);
    expect(new Set(attempts.map((attempt) => attempt.attemptId)).size).toBe(attempts.length);
  });

  it('covers successes, denials, a failure and an incomplete transcript', () => {
    expect(new Set(DEMO_CASES.map((entry) => entry.behaviour))).toEqual(
      new Set(['succeed', 'deny_tool', 'fail', 'incomplete']),
    );
  });

  it('has a truly unpriced config: no ledger figure and no pricing-table entry', () => {
    const unpriced = DEMO_CONFIGS.filter(
      (config) => config.providerPricing === null && config.tablePrice === null,
    );
    expect(unpriced).toHaveLength(1);
    const requests = attempts.filter((attempt) => attempt.configId === unpriced[0]?.id);
    for (const { request } of requests) expect((request.session as { pricing: unknown }).pricing).toBeNull();
  });

  it('is deterministic: the same requests every time, with fixed seeds', () => {
    expect(demoAttempts()).toEqual(attempts);
    const seeds = attempts.map((attempt) => (attempt.request.session as { seed: string }).seed);
    expect(new Set(seeds).size).toBe(attempts.length);
  });

  it("names each case's and config's digest in every request, upstream-shaped", () => {
    for (const { caseId, configId, request } of attempts) {
      expect(request).toMatchObject({
        schema: 'paperclip-runner/eval-session-request/v1',
        provider: 'paperclip_deterministic',
        evalCase: {
          caseSha256: caseSha256(DEMO_CASES.find((entry) => entry.id === caseId)!),
          configSha256: configSha256(DEMO_CONFIGS.find((config) => config.id === configId)!),
        },
      });
    }
  });
});

describe('the demo environment', () => {
  it('equals fixtures/environments/demo/evalbook.yaml (regenerate: npx tsx scripts/demo-environment.ts)', () => {
    expect(readFileSync(DEMO_ENVIRONMENT_FIXTURE, 'utf8')).toBe(demoEnvironmentYaml());
  });

  it("loads with Evals' environment loader, with the suite's digests and no price for the unpriced model", async () => {
    const environment = await loadEnvironment(DEMO_ENVIRONMENT_FIXTURE);
    expect(environment.cases.map((entry) => [entry.id, entry.sha256])).toEqual(
      DEMO_CASES.map((entry) => [entry.id, caseSha256(entry)]),
    );
    expect(environment.configs.map((config) => [config.id, config.sha256])).toEqual(
      DEMO_CONFIGS.map((config) => [config.id, configSha256(config)]),
    );
    for (const config of DEMO_CONFIGS)
      expect(Object.hasOwn(environment.pricing?.models ?? {}, config.model)).toBe(config.tablePrice !== null);
  });
});
