// The checks engine's drift history kept in an Evalbook: the join behind `evals engine --store` (and
// the Attest engine's ATTEST_CACHE_DIR, where the Attest engine keeps its own history). The engine
// asks for the last runs of a check and appends each new one; the store holds them, so they outlive
// the process.
import { join } from 'node:path';
import { ChecksError, DRIFT_WINDOW_RUNS } from '@paperclip-evals/checks';
import { openStore } from '@paperclip-evals/evalbook';

import type { DriftHistory } from '@paperclip-evals/checks';
import type { LedgerStore } from '@paperclip-evals/evalbook';

/** The Attest engine's cache folder; drift history lives in an Evalbook there (evalbook.sqlite). */
export const ATTEST_CACHE_DIR_ENV = 'ATTEST_CACHE_DIR';

/** An open history and the store under it (close it when the engine stops). */
export interface EngineHistory {
  readonly history: DriftHistory;
  readonly store: LedgerStore;
}

/**
 * The history the engine keeps: in the store named, else in `$ATTEST_CACHE_DIR/evalbook.sqlite`,
 * else none (in memory, this process only). A store that cannot be opened is the EvalbookError
 * paperclip_evalbook_store_unusable.
 */
export async function openEngineHistory(
  storeUrl: string | undefined,
  variables: Readonly<Record<string, string | undefined>>,
): Promise<EngineHistory | undefined> {
  const cacheDir = variables[ATTEST_CACHE_DIR_ENV];
  const url =
    storeUrl ??
    (cacheDir === undefined || cacheDir === '' ? undefined : `sqlite:${join(cacheDir, 'evalbook.sqlite')}`);
  if (url === undefined) return undefined;
  const store = await openStore(url);
  return { history: storeDriftHistory(store), store };
}

/**
 * The engine's drift history over an Evalbook store. Any store failure, thrown or rejected, becomes
 * the ChecksError drift_history_unavailable: query_drift answers it 3001, evaluate_batch still
 * answers its rows.
 */
export function storeDriftHistory(store: LedgerStore): DriftHistory {
  const unavailable = (error: unknown): ChecksError =>
    new ChecksError('drift_history_unavailable', error instanceof Error ? error.message : String(error), [], {
      cause: error,
    });
  return {
    // async, so that a store method throwing synchronously (better-sqlite3 does) is caught too.
    append: async (checkId, run) => {
      try {
        await store.appendDriftRun({ checkId, ...run });
      } catch (error) {
        throw unavailable(error);
      }
    },
    runs: async (checkId) => {
      try {
        const runs = await store.driftWindow(checkId, DRIFT_WINDOW_RUNS);
        return runs.map(({ score, status }) => ({ score, status }));
      } catch (error) {
        throw unavailable(error);
      }
    },
  };
}
