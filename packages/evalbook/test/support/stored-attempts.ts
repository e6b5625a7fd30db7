// Test support: stored attempts (synthetic bundles through the contract parser and the converter)
// bent into the outcome a test needs, for the summary and the gates without a store.
import { parseNativeExecution } from '@paperclip-evals/contract';

import { convertBundle } from '../../src/ledger/convert.ts';
import type { LedgerRecord, ScoreRow } from '../../src/ledger/convert.ts';
import type { StoredAttempt } from '../../src/ledger/store.ts';
import { syntheticAttempt } from '@paperclip-evals/test-kit/synthetic';

export type Outcome =
  'solved' | 'unsolved' | 'errored' | 'incomplete' | 'over_budget' | 'unpriced' | 'mismatch';

/** A stored attempt whose converted record is bent into the outcome a test needs. */
export function storedAttempt(
  runId: string,
  caseId: string,
  configId: string,
  attemptId: string,
  outcome: Outcome,
): StoredAttempt {
  const record: LedgerRecord = convertBundle(
    parseNativeExecution(
      Buffer.from(
        JSON.stringify(
          syntheticAttempt({
            runId,
            caseId,
            configId,
            attemptId,
            ...(outcome === 'incomplete' ? { transcriptOmission: 'stream closed' } : {}),
            ...(outcome === 'unpriced' ? { costMicros: null } : { costMicros: 1000 }),
          }),
        ),
      ),
    ),
  );
  const pass: ScoreRow = {
    checkId: 'c1',
    layer: null,
    status: 'pass',
    score: 1,
    reason: null,
    evidence: null,
  };
  const scores: ScoreRow[] = [outcome === 'unsolved' ? { ...pass, status: 'fail', score: 0 } : pass];
  const bent = {
    ...record,
    failure:
      outcome === 'errored'
        ? { classification: 'infrastructure', code: 'sandbox_lost', message: 'lost' }
        : outcome === 'over_budget'
          ? { classification: 'budget', code: 'tokens_exhausted', message: 'over' }
          : null,
    environmentMismatch:
      outcome === 'mismatch' ? [{ field: 'caseSha256' as const, expected: 'x', received: 'y' }] : [],
  };
  const { rawCanonical, scores: _ignored, ...stored } = bent;
  return { key: record.key, bundleDigest: record.bundleDigest, record: stored, scores };
}
