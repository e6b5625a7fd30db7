// `evals engine --stdio` and the `evals-engine` bin: build the checks engine from the environment and
// serve it on stdin/stdout until shutdown or end of input. With --store, drift history lives in the
// Evalbook (the app's engine history over the store's drift runs), so it outlives the process;
// without --store, ATTEST_CACHE_DIR (the Attest engine's cache folder) names where that Evalbook is.
import { openEngineHistory } from '@paperclip-evals/app/engine-history';
import {
  EngineServer,
  LOG_LEVELS,
  engineOptionsFromEnv,
  jsonLogger,
  serveStdio,
} from '@paperclip-evals/checks';

import type { Readable, Writable } from 'node:stream';
import type { LogLevel } from '@paperclip-evals/checks';

import { exitCodeForOutcome, usageError } from '../exit-codes.js';
import { printDocument, printLogLine } from '../print.js';

export interface EngineOptions {
  readonly logLevel: string;
  /** An Evalbook store URL for drift history; absent: in memory. */
  readonly store?: string;
}

function isLogLevel(value: string): value is LogLevel {
  return (LOG_LEVELS as readonly string[]).includes(value);
}

/** Where an engine session reads requests, writes responses and log lines, and finds its settings. */
export interface EngineStdio {
  readonly input: Readable;
  readonly output: Writable;
  /** The settings' environment (EVALS_ENGINE_*, ATTEST_*). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Writes one JSON log line (with its newline). */
  readonly logLine: (line: string) => void;
}

/**
 * Builds the engine from `env` and serves it on `input`/`output` until shutdown or end of input. A
 * bad --log-level, an unusable store or provider setting is a failure before serving. runEngine
 * serves the process's own stdio with it; tests serve in-memory streams.
 */
export async function serveEngine(
  { logLevel, store: storeUrl }: EngineOptions,
  { input, output, env, logLine }: EngineStdio,
): Promise<void> {
  if (!isLogLevel(logLevel))
    throw usageError(`--log-level must be one of ${LOG_LEVELS.join(', ')}`, {
      code: 'option_value_invalid',
      component: '--log-level',
      expected: `one of ${LOG_LEVELS.join(', ')}`,
      received: logLevel,
    });
  const log = jsonLogger(logLevel, logLine);
  const history = await openEngineHistory(storeUrl, env);
  let server: EngineServer;
  try {
    server = new EngineServer({
      ...engineOptionsFromEnv(env, log),
      ...(history === undefined ? {} : { history: history.history }),
    });
  } catch (error) {
    await history?.store.close();
    throw error;
  }
  log('info', 'engine started', { pid: process.pid });
  served = server;
  await serveStdio({ server, input, output });
  log('info', 'engine stopped', { state: server.state });
  await history?.store.close();
}

/** The server this process serves, once it does (for what a signal then means). */
let served: EngineServer | undefined;

/**
 * Whether this process's session has been shut down (the shutdown reply handed on). A signal then
 * stops nothing but the short wait for requests written behind shutdown: an Attest SDK's stop()
 * sends SIGTERM as soon as it has read the reply, before a Go engine would have exited on its own.
 */
export const engineShutDown = (): boolean => served?.state === 'shut_down';

/** Serves this process's stdin/stdout, then exits the process (an idle provider connection must not keep a finished engine alive). */
export async function runEngine(options: EngineOptions): Promise<never> {
  // SIGINT/SIGTERM after shutdown is the session's clean end (exit 0); before it, the signal ends
  // the process as it would without this handler. The evals-engine bin has its own handlers (the
  // Attest engine's exit 1) and asks engineShutDown the same question.
  for (const signal of ['SIGINT', 'SIGTERM'] as const)
    if (process.listenerCount(signal) === 0)
      process.once(signal, () => {
        if (engineShutDown()) process.exit(exitCodeForOutcome('ok'));
        process.kill(process.pid, signal);
      });
  await serveEngine(options, {
    input: process.stdin,
    output: process.stdout,
    env: process.env,
    logLine: printLogLine,
  });
  await printDocument(''); // every frame handed on before the exit
  process.exit(exitCodeForOutcome('ok'));
}
