// Converter: identity, statuses, failure/denials/transcript, environment mismatch flags, cost
// provenance, score rows (a check without a boolean verdict is not_evaluated, never a pass).
import { describe, expect, it } from 'vitest';

import { canonicalDigest, parseNativeExecution } from '@paperclip-evals/contract';

import { convertBundle, engineScoreRows, scoreRows } from '../src/ledger/convert.ts';
import { parseEnvironment } from '../src/ledger/environment.ts';
import type { Environment } from '../src/ledger/environment.ts';
import type { AssertionResult } from '@paperclip-evals/checks';
import { syntheticAttempt } from '@paperclip-evals/test-kit/synthetic';

const parse = (value: unknown) => parseNativeExecution(JSON.stringify(value));

function environment(caseSha: string, configSha: string): Environment {
  return parseEnvironment({
    schema: 'paperclip-evals/environment/v1',
    name: 't',
    cases: [{ id: 'case_synthetic', sha256: caseSha, checks: [{ id: 'synthetic-check' }, { id: 'style' }] }],
    configs: [{ id: 'config_synthetic', sha256: configSha, model: 'm1', driver: 'paperclip-deterministic' }],
    pricing: { version: 'v1', models: { m1: { inputPerMillionUsd: 1, outputPerMillionUsd: 2 } } },
  });
}

describe('convertBundle', () => {
  it('keeps identity, digest, terminal, denials and provider cost', () => {
    const raw = syntheticAttempt({ toolCalls: 3, deniedCalls: 2 });
    const bundle = parse(raw);
    const record = convertBundle(bundle, { fileSha256: 'sha256:' + '0'.repeat(64) });
    expect(record.key).toEqual({
      runId: 'run_synthetic',
      caseId: 'case_synthetic',
      configId: 'config_synthetic',
      attemptId: 'attempt_synthetic_0001',
    });
    expect(record.bundleDigest).toBe(canonicalDigest(bundle));
    expect(record.denials).toBe(2);
    expect(
      record.toolCalls.filter(
        (call) => call.outcome === 'denied' && call.denial?.code === 'required_claim_missing',
      ),
    ).toHaveLength(2);
    expect(record.cost).toMatchObject({
      coverage: 'provider_reported',
      providerReportedNanodollars: 5_000_000,
    });
    expect(record.scores).toEqual([
      {
        checkId: 'synthetic-check',
        layer: null,
        status: 'pass',
        score: 1,
        reason: null,
        evidence: { id: 'synthetic-check', passed: true },
      },
    ]);
    expect(record.environmentMismatch).toEqual([]);
    expect(record.references.map((ref) => ref.verification)).toEqual(['unverified', 'unverified']);
  });

  it('records failure, incomplete transcript and an unpriced attempt (null, not 0)', () => {
    const record = convertBundle(
      parse(
        syntheticAttempt({
          runTerminalState: 'failed',
          costMicros: null,
          transcriptOmission: 'runner_crashed',
        }),
      ),
    );
    expect(record.terminal.run).toBe('failed');
    expect(record.failure?.classification).toBe('runner');
    expect(record.transcript).toMatchObject({ complete: false, omissionReason: 'runner_crashed' });
    expect(record.cost.coverage).toBe('unpriced');
    expect(record.cost.effectiveNanodollars).toBeNull();
    expect(record.scores[0]?.status).toBe('fail');
  });

  it('estimates from the environment pricing, flags digest mismatches and adds expected checks as not_evaluated', () => {
    const raw = syntheticAttempt({ costMicros: null });
    const input = raw.input as { caseSha256: string; configSha256: string };
    const matching = convertBundle(parse(raw), {
      environment: environment(input.caseSha256, input.configSha256),
    });
    expect(matching.environmentMismatch).toEqual([]);
    expect(matching.cost).toMatchObject({
      coverage: 'estimated',
      estimatedNanodollars: 540_000,
      pricingVersion: 'v1',
    });
    expect(matching.scores.map((score) => [score.checkId, score.status])).toEqual([
      ['synthetic-check', 'pass'],
      ['style', 'not_evaluated'],
    ]);
    const other = 'sha256:' + 'a'.repeat(64);
    const flagged = convertBundle(parse(raw), { environment: environment(other, input.configSha256) });
    expect(flagged.environmentMismatch).toEqual([
      { field: 'caseSha256', expected: other, received: input.caseSha256 },
    ]);
  });
});

describe('scoreRows', () => {
  it('maps verdicts and never turns a missing verdict into a pass', () => {
    const rows = scoreRows({
      checks: [
        { id: 'a', passed: true },
        { id: 'b', passed: false },
        { id: 'c', passed: 'yes' },
        { id: 'd' },
        { id: 'e', error: 'grader timed out' },
        { id: 'a', passed: true },
        'not an object',
      ],
    });
    expect(rows.map((row) => [row.checkId, row.status, row.score])).toEqual([
      ['a', 'pass', 1],
      ['b', 'fail', 0],
      ['c', 'not_evaluated', null],
      ['d', 'not_evaluated', null],
      ['e', 'error', null],
      ['a#5', 'pass', 1],
      ['#6', 'not_evaluated', null],
    ]);
    expect(rows[2]?.reason).toMatch(/not a boolean/);
    expect(rows[3]?.reason).toMatch(/missing/);
  });
});

describe('engineScoreRows', () => {
  const row = (changes: Partial<AssertionResult>): AssertionResult => ({
    assertion_id: 'check',
    status: 'pass',
    score: 1,
    explanation: 'ok',
    cost: 0,
    duration_ms: 3.25,
    type: 'trace',
    layer: 3,
    ...changes,
  });

  it.each([
    ['pass', row({}), { status: 'pass', score: 1, reason: null }],
    [
      'soft_fail',
      row({ status: 'soft_fail', score: 0.4, explanation: 'tone is curt' }),
      { status: 'soft_fail', score: 0.4, reason: 'tone is curt' },
    ],
    [
      'hard_fail',
      row({ status: 'hard_fail', score: 0, explanation: 'shell.exec was called' }),
      { status: 'fail', score: 0, reason: 'shell.exec was called' },
    ],
    [
      'hard_fail of the spec itself',
      row({ status: 'hard_fail', score: 0, explanation: 'bad operator', failure_class: 'invalid_spec' }),
      { status: 'error', score: null, reason: 'invalid_spec: bad operator' },
    ],
    [
      'not_evaluated',
      row({
        status: 'not_evaluated',
        score: 0,
        reason: 'provider_not_configured',
        explanation: 'no provider',
        layer: 6,
      }),
      { status: 'not_evaluated', score: null, reason: 'provider_not_configured: no provider', layer: 6 },
    ],
  ])('maps %s honestly: a not_evaluated zero is not a score', (_name, result, expected) => {
    const [mapped] = engineScoreRows([result]);
    expect(mapped).toMatchObject({ checkId: 'check', layer: 3, ...expected });
    expect(mapped?.evidence).not.toHaveProperty('duration_ms');
    expect(mapped?.evidence).toMatchObject({ assertion_id: 'check', status: result.status });
  });

  it('puts engine rows first; a runner observation with an engine check id is kept apart, never merged', () => {
    const raw = syntheticAttempt({});
    const input = raw.input as { caseSha256: string; configSha256: string };
    const env = parseEnvironment({
      schema: 'paperclip-evals/environment/v1',
      name: 't',
      cases: [
        {
          id: 'case_synthetic',
          sha256: input.caseSha256,
          checks: [
            { id: 'synthetic-check', type: 'trace', spec: { check: 'required_tools', tools: ['x'] } },
            { id: 'style' },
          ],
        },
      ],
      configs: [],
    });
    const record = convertBundle(parse(raw), {
      environment: env,
      checkResults: [
        row({ assertion_id: 'synthetic-check', status: 'hard_fail', score: 0, explanation: 'x missing' }),
      ],
    });
    expect(record.scores.map((score) => [score.checkId, score.layer, score.status])).toEqual([
      ['synthetic-check', 3, 'fail'],
      ['synthetic-check#0', null, 'pass'],
      ['style', null, 'not_evaluated'],
    ]);
  });
});
