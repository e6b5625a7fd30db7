// `evals run`'s summary lists every try that did not pass (failedTries): a table of the ways an
// attempt ends — each try's own infrastructure failure, a behaviour or grading/evidence result, and
// an infrastructure failure the ledger's reading of the try's bundle found (a runner-side failure
// the bundle records: the try itself carries none) — and what is never listed (a pass, an attempt
// not run, the try the campaign's own stop killed).
import { describe, expect, it } from 'vitest';

import { failedTries } from '../src/commands/campaign.ts';

import type { AttemptOutcome, CampaignRecord } from '@paperclip-evals/campaign';

const failure = (name: string, retryable = false) => ({
  class: name,
  category: 'runner_infrastructure',
  retryable,
  message: `${name} happened`,
});
const aTry = (infrastructureFailure: ReturnType<typeof failure> | null): AttemptOutcome['tries'][number] => ({
  attemptId: 't',
  exitCode: infrastructureFailure === null ? 0 : 2,
  signal: null,
  durationMs: 1,
  infrastructureFailure,
  ingest: 'inserted',
  cost: {
    providerReportedNanodollars: null,
    estimatedNanodollars: null,
    legacyLedgerNanodollars: null,
    observedNanodollars: null,
    observedFrom: null,
  },
});

type Row = [string, Partial<AttemptOutcome>, [number | null, string, string | null][]];
const ROWS: Row[] = [
  ['a pass', { disposition: 'passed', reason: null, tries: [aTry(null)] }, []],
  [
    'a behaviour failure',
    { disposition: 'behavior_failure', reason: 'check x failed', tries: [aTry(null)] },
    [[1, 'behavior_failure', null]],
  ],
  [
    'a grading/evidence failure',
    { disposition: 'grading_evidence_failure', reason: 'transcript incomplete', tries: [aTry(null)] },
    [[1, 'grading_evidence_failure', null]],
  ],
  [
    'a retried infrastructure failure (every try listed)',
    {
      disposition: 'infrastructure_failure',
      reason: 'runner_infrastructure_failure happened',
      infrastructureFailure: failure('runner_infrastructure_failure', true),
      tries: [
        aTry(failure('runner_infrastructure_failure', true)),
        aTry(failure('runner_infrastructure_failure', true)),
      ],
    },
    [
      [1, 'infrastructure_failure', 'runner_infrastructure_failure'],
      [2, 'infrastructure_failure', 'runner_infrastructure_failure'],
    ],
  ],
  [
    "an infrastructure failure the try's bundle records (the try carries none)",
    {
      disposition: 'infrastructure_failure',
      reason: 'provider: provider_unreachable',
      infrastructureFailure: { class: 'provider_unreachable', category: 'provider', retryable: false },
      tries: [aTry(null)],
    },
    [[1, 'infrastructure_failure', 'provider_unreachable']],
  ],
  ['not run (budget)', { disposition: 'not_run_budget', reason: 'the ceiling', tries: [] }, []],
  [
    'the try the campaign stopped',
    {
      disposition: 'not_run_stopped',
      reason: 'killed',
      infrastructureFailure: failure('eval_session_interrupted'),
      tries: [aTry(failure('eval_session_interrupted'))],
    },
    [],
  ],
  [
    'a resumed failure',
    {
      disposition: 'infrastructure_failure',
      reason: 'turn limit reached',
      resumed: true,
      infrastructureFailure: {
        class: 'provider_budget_reached',
        category: 'provider_budget',
        retryable: false,
      },
      tries: [],
    },
    [[null, 'infrastructure_failure', 'provider_budget_reached']],
  ],
];

describe('failedTries: every try that did not pass, each once', () => {
  it.each(ROWS)('%s', (_name, attempt, expected) => {
    const record = {
      attempts: [
        { laneId: 'lane', caseId: 'case', index: 1, resumed: false, infrastructureFailure: null, ...attempt },
      ],
    } as unknown as CampaignRecord;
    expect(
      failedTries(record).map((entry) => [entry.tryNumber, entry.disposition, entry.failureClass]),
    ).toEqual(expected);
  });
});
