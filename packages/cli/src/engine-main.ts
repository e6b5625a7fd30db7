// Entry point of the `evals-engine` bin: the checks engine's stdio server for clients that launch a
// bare executable with only --log-level=<level> (how Attest SDKs start the engine they find through
// ATTEST_ENGINE_PATH). --help and --version print and exit 0; anything else on the command line is
// a usage error (exit 2).
import { createRequire } from 'node:module';

import { EXIT, errorLines, exitCodeFor } from './exit-codes.js';
import { printLines } from './print.js';

const USAGE = 'usage: evals-engine [--log-level=debug|info|warn|error]';
const VERSION = (createRequire(import.meta.url)('../package.json') as { version: string }).version;

/** What --help prints: what the bin is, how it is started, its exit codes, examples. */
export const ENGINE_HELP = [
  USAGE,
  '',
  "The checks engine's JSON-RPC 2.0 stdio server (NDJSON on stdin/stdout), as a bare executable: a",
  'drop-in for the Attest engine (point ATTEST_ENGINE_PATH at this bin; the ATTEST_* settings apply).',
  'It serves until stdin closes or a client sends shutdown. The same engine is `evals engine --stdio`.',
  '',
  'Options:',
  '  --log-level=<level>  debug, info, warn (default) or error: what it logs on stderr',
  '  -h, --help           print this help',
  '  -V, --version        print the version',
  '',
  'Exit codes: 0 served and shut down · 2 usage (an unknown argument) · 70 internal error',
  '',
  'Examples:',
  '  export ATTEST_ENGINE_PATH="$(command -v evals-engine)"   # an Attest SDK then launches this engine',
  '  evals-engine --log-level=debug < requests.ndjson',
];

/** The log level the arguments ask for, or undefined when they are not a valid command line. */
export function logLevelFromArgs(args: readonly string[]): string | undefined {
  if (args.length === 0) return 'warn';
  if (args.length === 1 && args[0]?.startsWith('--log-level=') === true)
    return args[0].slice('--log-level='.length);
  if (args.length === 2 && args[0] === '--log-level') return args[1];
  return undefined;
}

export async function engineMain(argv: readonly string[]): Promise<void> {
  process.exitCode = await runEngineBin(argv);
}

/** Serves (the engine exits the process when it is done), or returns the exit code of a failure to start. */
async function runEngineBin(argv: readonly string[]): Promise<number> {
  const args = argv.slice(2);
  if (args.length === 1 && (args[0] === '--help' || args[0] === '-h')) {
    printLines('stdout', ENGINE_HELP);
    return EXIT.ok;
  }
  if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
    printLines('stdout', [VERSION]);
    return EXIT.ok;
  }
  const logLevel = logLevelFromArgs(args);
  if (logLevel === undefined) {
    printLines('stderr', [USAGE]);
    return EXIT.usage;
  }
  try {
    const { runEngine } = await import('./commands/engine.js');
    await runEngine({ logLevel });
    return EXIT.ok;
  } catch (error) {
    printLines('stderr', errorLines('evals-engine: ', error));
    return exitCodeFor(error);
  }
}
