// Test support: an attempt's replay from a bundle object (a synthetic one by default), through the
// real chain — the contract's parser, the converter, the ledger's canonical text, the verdict — as
// the report and `evals report --attempt` build it from a store.
import { parseNativeExecution } from '@paperclip-evals/contract';

import { attemptVerdict } from '../../src/analysis/scoring.ts';
import { convertBundle } from '../../src/ledger/convert.ts';
import { buildAttemptReplay } from '../../src/report/attempt-replay.ts';
import { syntheticAttempt } from '@paperclip-evals/test-kit/synthetic';

import type { AttemptReplay } from '../../src/report/attempt-replay.ts';
import type { ConvertOptions, LedgerRecord } from '../../src/ledger/convert.ts';
import type { StoredAttempt } from '../../src/ledger/store.ts';
import type { SyntheticAttemptOptions } from '@paperclip-evals/test-kit/synthetic';

/** A converted record as the store reads it back, and the ledger's text of its bundle. */
export function storedFromRecord(record: LedgerRecord): { stored: StoredAttempt; bundleText: string } {
  const { rawCanonical, scores, ...kept } = record;
  return {
    stored: { key: record.key, bundleDigest: record.bundleDigest, record: kept, scores },
    bundleText: rawCanonical,
  };
}

/** The replay of `bundle` (an object), as stored without an environment. */
export function replayOfBundle(bundle: unknown, options: ConvertOptions = {}): AttemptReplay {
  const record = convertBundle(parseNativeExecution(JSON.stringify(bundle)), options);
  const { stored, bundleText } = storedFromRecord(record);
  return buildAttemptReplay({
    attempt: stored,
    bundleText,
    verdict: attemptVerdict(stored.record, stored.scores),
    ...(options.environment === undefined ? {} : { environment: options.environment }),
  });
}

/** The replay of a synthetic attempt. */
export const replayOf = (options: SyntheticAttemptOptions = {}): AttemptReplay =>
  replayOfBundle(syntheticAttempt(options));
