// How a held try's infrastructure failure is read back on resume (heldInfrastructureFailure): the
// session's artifact's when the ledger kept it; else a bundle's infrastructure or budget failure by
// contract's one class table (a ledger written before the campaign stored artifacts) — never a
// category guessed for a known class, and never a failure for the agent's own.
import { describe, expect, it } from 'vitest';

import { heldInfrastructureFailure } from '../src/execute.ts';

import type { StoredAttempt } from '@paperclip-evals/evalbook';

type Record = StoredAttempt['record'];
const bare = (failure: Record['failure']): Record => ({ failure }) as unknown as Record;

describe('heldInfrastructureFailure', () => {
  it.each([
    ['no failure', bare(null), null],
    [
      'the agent’s failed turn',
      bare({ classification: 'provider_turn', code: 'provider_turn_failed', message: 'm' }),
      null,
    ],
    [
      'a timeout (bundle alone)',
      bare({ classification: 'infrastructure', code: 'provider_turn_timeout', message: 'm' }),
      { class: 'provider_turn_timeout', category: 'provider_lifecycle', retryable: true },
    ],
    [
      'a budget stop (bundle alone)',
      bare({ classification: 'budget', code: 'provider_budget_reached', message: 'm' }),
      { class: 'provider_budget_reached', category: 'provider_budget', retryable: false },
    ],
    [
      'a class the table does not have keeps what the record says',
      bare({ classification: 'infrastructure', code: 'harness_lost', message: 'm', retryable: true }),
      { class: 'harness_lost', category: 'runner_infrastructure', retryable: true },
    ],
    [
      'the session artifact wins',
      {
        failure: { classification: 'infrastructure', code: 'provider_turn_timeout', message: 'm' },
        evalSession: {
          infrastructureFailure: {
            class: 'eval_session_timeout',
            category: 'campaign_orchestration',
            retryable: true,
          },
        },
      } as unknown as Record,
      { class: 'eval_session_timeout', category: 'campaign_orchestration', retryable: true },
    ],
  ])('%s', (_name, record, expected) => {
    expect(heldInfrastructureFailure(record)).toEqual(expected);
  });
});
