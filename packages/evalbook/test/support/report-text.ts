// Test support: a report written from stored attempts without a real store (a store that only
// streams the given attempts, no policy verdicts, retractions or retried tries, no bundle texts), returned as its
// whole text.
import { writeReport } from '../../src/report/report.ts';

import type { ReportOptions } from '../../src/report/report.ts';
import type { ReportResult } from '../../src/report/model.ts';
import type { LedgerStore, StoredAttempt } from '../../src/ledger/store.ts';

/** A store that streams `attempts` and holds nothing else. */
export function memoryStore(attempts: readonly StoredAttempt[]): LedgerStore {
  return {
    attempts: async function* () {
      for (const stored of attempts) yield await Promise.resolve(stored);
    },
    policyVerdicts: async function* () {
      // none stored
    },
    retractions: () => Promise.resolve([]),
    retriedTries: () => Promise.resolve([]),
    // The HTML report's drill-down replays an attempt from its bundle text: none kept here.
    getBundle: () => Promise.resolve(null),
  } as unknown as LedgerStore;
}

/** The report's text and result for `attempts` (format and the rest from `options`). */
export async function reportText(
  attempts: readonly StoredAttempt[],
  options: Omit<ReportOptions, 'store' | 'storeUrl' | 'write'>,
): Promise<{ text: string; result: ReportResult }> {
  let text = '';
  const result = await writeReport({
    ...options,
    store: memoryStore(attempts),
    storeUrl: 'memory',
    write: (chunk) => {
      text += chunk;
      return Promise.resolve();
    },
  });
  return { text, result };
}
