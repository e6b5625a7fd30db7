// Entry point of the `evals-engine` bin: the checks engine's stdio server for clients that launch a
// bare executable with only --log-level=<level> (how Attest SDKs start the engine they find through
// ATTEST_ENGINE_PATH). Anything else on the command line is a usage error (exit 2).
import { EXIT, errorLines, exitCodeFor } from './exit-codes.js';
import { printLines } from './print.js';

const USAGE = 'usage: evals-engine [--log-level=debug|info|warn|error]';

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
  const logLevel = logLevelFromArgs(argv.slice(2));
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
