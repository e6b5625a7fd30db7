// `evals engine --stdio` and the `evals-engine` bin: build the checks engine from the environment and
// serve it on stdin/stdout until shutdown or end of input. With --store, drift history lives in the
// Evalbook (the app's engine history over the store's drift runs), so it outlives the process;
// without --store, ATTEST_CACHE_DIR (the Attest engine's cache folder) names where that Evalbook is.
import { openEngineHistory } from '@paperclip-evals/app/engine-history';
import {
  EngineServer,
  LOG_LEVELS,
  ProviderConfigError,
  engineOptionsFromEnv,
  jsonLogger,
  serveStdio,
} from '@paperclip-evals/checks';

import type { LogLevel } from '@paperclip-evals/checks';

import { UsageError, exitCodeForOutcome } from '../exit-codes.js';
import { printDocument, printLogLine } from '../print.js';

export interface EngineOptions {
  readonly logLevel: string;
  /** An Evalbook store URL for drift history; absent: in memory. */
  readonly store?: string;
}

function isLogLevel(value: string): value is LogLevel {
  return (LOG_LEVELS as readonly string[]).includes(value);
}

/**
 * Serves, then exits the process (an idle provider connection must not keep a finished engine
 * alive). A bad --log-level, an unusable store or provider setting is a failure before serving.
 */
export async function runEngine({ logLevel, store: storeUrl }: EngineOptions): Promise<never> {
  if (!isLogLevel(logLevel)) throw new UsageError(`--log-level must be one of ${LOG_LEVELS.join(', ')}`);
  const log = jsonLogger(logLevel, printLogLine);
  const history = await openEngineHistory(storeUrl, process.env);
  let server: EngineServer;
  try {
    server = new EngineServer({
      ...engineOptionsFromEnv(process.env, log),
      ...(history === undefined ? {} : { history: history.history }),
    });
  } catch (error) {
    await history?.store.close();
    if (error instanceof ProviderConfigError) throw new UsageError(error.message, { cause: error });
    throw error;
  }
  log('info', 'engine started', { pid: process.pid });
  await serveStdio({ server, input: process.stdin, output: process.stdout });
  log('info', 'engine stopped', { state: server.state });
  await history?.store.close();
  await printDocument(''); // every frame handed on before the exit
  process.exit(exitCodeForOutcome('ok'));
}
