// `evals engine --stdio` and the `evals-engine` bin: build the checks engine from the environment and
// serve it on stdin/stdout until shutdown or end of input.
import {
  EngineServer,
  LOG_LEVELS,
  ProviderConfigError,
  engineOptionsFromEnv,
  jsonLogger,
  serveStdio,
} from '@paperclip-evals/checks';

import { EXIT } from '../exit-codes.js';

import type { LogLevel } from '@paperclip-evals/checks';

export interface EngineOptions {
  readonly logLevel: string;
}

function isLogLevel(value: string): value is LogLevel {
  return (LOG_LEVELS as readonly string[]).includes(value);
}

/** Serves, then exits the process (an idle provider connection must not keep a finished engine alive). */
export async function runEngine({ logLevel }: EngineOptions): Promise<number> {
  if (!isLogLevel(logLevel)) {
    process.stderr.write(`evals engine: --log-level must be one of ${LOG_LEVELS.join(', ')}\n`);
    return EXIT.usage;
  }
  const log = jsonLogger(logLevel, (line) => process.stderr.write(line));
  let server: EngineServer;
  try {
    server = new EngineServer(engineOptionsFromEnv(process.env, log));
  } catch (error) {
    if (!(error instanceof ProviderConfigError)) throw error;
    process.stderr.write(`evals engine: ${error.message}\n`);
    return EXIT.usage;
  }
  log('info', 'engine started', { pid: process.pid });
  await serveStdio({ server, input: process.stdin, output: process.stdout });
  log('info', 'engine stopped', { state: server.state });
  await new Promise<void>((resolve) => {
    process.stdout.write('', () => {
      resolve();
    });
  });
  process.exit(EXIT.ok);
}
