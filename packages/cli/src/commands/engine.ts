// `evals engine --stdio` and the `evals-engine` bin: build the checks engine from the environment and
// serve it on stdin/stdout until shutdown or end of input. With --store, drift history lives in the
// Evalbook (the engine's DriftHistory over the store's drift runs), so it outlives the process; without
// --store, ATTEST_CACHE_DIR (the Attest engine's cache folder) names where that Evalbook is.
import { join } from 'node:path';

import {
  DRIFT_WINDOW_RUNS,
  DriftHistoryUnavailableError,
  EngineServer,
  LOG_LEVELS,
  ProviderConfigError,
  engineOptionsFromEnv,
  jsonLogger,
  serveStdio,
} from '@paperclip-evals/checks';

import { EXIT, errorLines } from '../exit-codes.js';
import { printDocument, printLines, printLogLine } from '../print.js';

import { isEvalbookError, openStore } from '@paperclip-evals/evalbook';

import type { DriftHistory, LogLevel } from '@paperclip-evals/checks';
import type { LedgerStore } from '@paperclip-evals/evalbook';

export interface EngineOptions {
  readonly logLevel: string;
  /** An Evalbook store URL for drift history; absent: in memory. */
  readonly store?: string;
}

/**
 * The engine's drift history over an Evalbook store. Any store failure, thrown or rejected, becomes
 * DriftHistoryUnavailableError: query_drift answers it 3001, evaluate_batch still answers its rows.
 */
function storeDriftHistory(store: LedgerStore): DriftHistory {
  const unavailable = (error: unknown): DriftHistoryUnavailableError =>
    new DriftHistoryUnavailableError(error instanceof Error ? error.message : String(error), {
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

function isLogLevel(value: string): value is LogLevel {
  return (LOG_LEVELS as readonly string[]).includes(value);
}

/** The Attest engine's cache folder; drift history lives in an Evalbook there (evalbook.sqlite). */
export const ATTEST_CACHE_DIR_ENV = 'ATTEST_CACHE_DIR';

/** Serves, then exits the process (an idle provider connection must not keep a finished engine alive). */
export async function runEngine({ logLevel, store: storeUrl }: EngineOptions): Promise<number> {
  if (!isLogLevel(logLevel)) {
    printLines('stderr', [`evals engine: --log-level must be one of ${LOG_LEVELS.join(', ')}`]);
    return EXIT.usage;
  }
  const log = jsonLogger(logLevel, printLogLine);
  // The Attest engine keeps its history in ATTEST_CACHE_DIR: so does this one, unless --store says where.
  const cacheDir = process.env[ATTEST_CACHE_DIR_ENV];
  const historyUrl =
    storeUrl ??
    (cacheDir === undefined || cacheDir === '' ? undefined : `sqlite:${join(cacheDir, 'evalbook.sqlite')}`);
  let store: LedgerStore | undefined;
  try {
    store = historyUrl === undefined ? undefined : await openStore(historyUrl);
  } catch (error) {
    if (!isEvalbookError(error, 'paperclip_evalbook_store_unusable')) throw error;
    printLines('stderr', errorLines('evals engine: ', error));
    return EXIT.usage;
  }
  let server: EngineServer;
  try {
    server = new EngineServer({
      ...engineOptionsFromEnv(process.env, log),
      ...(store === undefined ? {} : { history: storeDriftHistory(store) }),
    });
  } catch (error) {
    await store?.close();
    if (!(error instanceof ProviderConfigError)) throw error;
    printLines('stderr', [`evals engine: ${error.message}`]);
    return EXIT.usage;
  }
  log('info', 'engine started', { pid: process.pid });
  await serveStdio({ server, input: process.stdin, output: process.stdout });
  log('info', 'engine stopped', { state: server.state });
  await store?.close();
  await printDocument(''); // every frame handed on before the exit
  process.exit(EXIT.ok);
}
