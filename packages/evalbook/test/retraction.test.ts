// Retraction requests and plans, without a store: what a request must be (a mutation table: each
// bad field refused, every problem at once, nothing else changed), and how a plan decides against
// what a run holds (missing targets refused whole; a target in force is never appended twice).
import { describe, expect, it } from 'vitest';

import { checkRetractionRequest, planRetraction } from '../src/ledger/retraction.ts';
import { evalbookError, thrownBy } from './support/evalbook-error.ts';
import type { Retraction, RetractionRequest } from '../src/ledger/retraction.ts';

const VALID: RetractionRequest = {
  runId: 'nightly-42',
  attemptIds: [],
  reason: 'the sandbox lost its network',
  by: 'ci-bot',
  at: '2026-12-01T09:30:00.000Z',
};

describe('checkRetractionRequest', () => {
  it('takes a valid request (attempt ids deduplicated)', () => {
    expect(checkRetractionRequest(VALID)).toEqual(VALID);
    expect(checkRetractionRequest({ ...VALID, at: '2026-12-01T09:30:00Z' }).at).toBe('2026-12-01T09:30:00Z');
    expect(checkRetractionRequest({ ...VALID, attemptIds: ['a', 'b', 'a'] }).attemptIds).toEqual(['a', 'b']);
  });

  it.each([
    ['an empty run', { runId: '' }, 'run: expected a non-empty text'],
    ['a blank reason', { reason: ' \t' }, 'reason: expected a non-empty text'],
    ['a blank author', { by: '' }, 'by: expected a non-empty text'],
    ['a blank attempt id', { attemptIds: ['a', ' '] }, 'attempt: expected a non-empty text'],
    ['a time with an offset', { at: '2026-12-01T10:30:00+01:00' }, 'at: expected an ISO 8601 UTC time'],
    ['a time that is not one', { at: 'yesterday' }, 'at: expected an ISO 8601 UTC time'],
    ['an impossible time', { at: '2026-13-01T09:30:00.000Z' }, 'at: expected an ISO 8601 UTC time'],
  ] as const)('refuses %s', (_name, change, message) => {
    expect(() => checkRetractionRequest({ ...VALID, ...change })).toThrow(
      evalbookError('paperclip_evalbook_retraction_refused'),
    );
    expect(() => checkRetractionRequest({ ...VALID, ...change })).toThrow(message);
  });

  it('scrubs a credential from the reason and the author before anything is stored', () => {
    const checked = checkRetractionRequest({
      ...VALID,
      reason: `rotated sk-proj-${'x'.repeat(24)} and password=hunter2`,
      by: `bot ghp_${'c'.repeat(36)}`,
    });
    expect(checked.reason).toBe('rotated *** and password=***');
    expect(checked.by).toBe('bot ***');
  });

  it('names every problem at once', () => {
    expect(() => checkRetractionRequest({ ...VALID, reason: '', by: '' })).toThrow(
      /reason: expected a non-empty text, received ""; by: expected a non-empty text/,
    );
  });

  it('gives each problem as an issue naming its field, with expected and received', () => {
    const error = thrownBy(() => checkRetractionRequest({ ...VALID, reason: '', at: 'yesterday' }));
    expect(error.issues.map(({ code, component, received }) => ({ code, component, received }))).toEqual([
      { code: 'retraction_field_invalid', component: 'reason', received: '' },
      { code: 'retraction_field_invalid', component: 'at', received: 'yesterday' },
    ]);
    expect(error.issues[1]?.expected).toMatch(/ISO 8601 UTC/);
  });
});

describe('planRetraction', () => {
  const { attemptIds: _none, ...fields } = VALID;
  const key = (attemptId: string, caseId = 'case_a') => ({
    runId: 'nightly-42',
    caseId,
    configId: 'base',
    attemptId,
  });
  const held: Retraction = { ...fields, attemptId: 'a1', reason: 'earlier', by: 'alice' };
  const attempts = [key('a1'), key('a2'), key('a2', 'case_b')];

  it('covers every attempt with the id (several cases may share it) and appends only what is not in force', () => {
    const { outcomes, append } = planRetraction({ ...VALID, attemptIds: ['a1', 'a2'] }, attempts, [held]);
    expect(outcomes).toEqual([
      { status: 'already_retracted', retraction: held, attempts: [key('a1')] },
      {
        status: 'retracted',
        retraction: { ...fields, attemptId: 'a2' },
        attempts: [key('a2'), key('a2', 'case_b')],
      },
    ]);
    expect(append).toEqual([
      { runId: 'nightly-42', attemptId: 'a2', reason: VALID.reason, by: 'ci-bot', at: VALID.at },
    ]);
  });

  it("takes a run's retraction as covering its attempts, and a run retracted twice as in force", () => {
    const run: Retraction = { ...fields, attemptId: null, by: 'bob' };
    expect(planRetraction({ ...VALID, attemptIds: ['a2'] }, attempts, [run]).append).toEqual([]);
    expect(planRetraction(VALID, attempts, [held, run]).outcomes).toEqual([
      { status: 'already_retracted', retraction: run, attempts },
    ]);
    // An attempt's retraction does not cover the run.
    expect(planRetraction(VALID, attempts, [held]).append).toEqual([{ ...fields, attemptId: null }]);
  });

  it('refuses a run without attempts, and any missing attempt id (the whole request)', () => {
    expect(() => planRetraction(VALID, [], [])).toThrow(/no run named "nightly-42"/);
    expect(() => planRetraction({ ...VALID, attemptIds: ['a1', 'zz'] }, attempts, [])).toThrow(
      /run "nightly-42" has no attempt "zz": nothing retracted \(its attempts: a1, a2\)/,
    );
  });
});
