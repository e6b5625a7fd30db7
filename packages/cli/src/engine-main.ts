// Entry point of the `evals-engine` bin: the checks engine's stdio server for clients that launch a
// bare executable (how Attest SDKs start the engine they find through ATTEST_ENGINE_PATH, with
// --log-level=<level>). Its command line is the Attest engine's (cmd/attest-engine/main.go, Go's flag
// package): `version`, `cache stats|clear`, -log-level / --log-level (=value or a separate value),
// -debug; exit 1 for an unknown level and when SIGINT/SIGTERM stops it. --help and --version print
// and exit 0; any other argument is a usage error (exit 2).
import { homedir } from 'node:os';
import { join } from 'node:path';
import { readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';

import { ENGINE_BIN_EXIT, errorLines, exitCodeFor, exitCodeForOutcome } from './exit-codes.js';
import { printLines } from './print.js';

const USAGE =
  'usage: evals-engine [--log-level=debug|info|warn|error] [--debug] | version | cache stats|clear';
const VERSION = (createRequire(import.meta.url)('../package.json') as { version: string }).version;
const LOG_LEVELS = ['debug', 'info', 'warn', 'error'];

/** What --help prints: what the bin is, how it is started, its exit codes, examples. */
export const ENGINE_HELP = [
  USAGE,
  '',
  "The checks engine's JSON-RPC 2.0 stdio server (NDJSON on stdin/stdout), as a bare executable: a",
  'drop-in for the Attest engine (point ATTEST_ENGINE_PATH at this bin; the ATTEST_* settings apply).',
  'It serves until stdin closes or a client sends shutdown. The same engine is `evals engine --stdio`.',
  '',
  'Options (one or two dashes, as the Attest engine takes them):',
  '  --log-level=<level>  debug, info, warn (default) or error: what it logs on stderr',
  '  --debug              the same as --log-level=debug',
  '  -h, --help           print this help',
  '  -V, --version        print the version',
  '',
  'Commands:',
  '  version              print the version (as `attest-engine version` does)',
  '  cache stats|clear    what is cached: nothing (verdicts are never cached; drift history is kept)',
  '',
  `Exit codes: ${ENGINE_BIN_EXIT.ok} served and shut down · ${ENGINE_BIN_EXIT.stopped} an unknown log level, or stopped by SIGINT/SIGTERM · ${ENGINE_BIN_EXIT.usage} usage (an unknown argument) or an unusable setting · ${ENGINE_BIN_EXIT.internal} internal error`,
  '',
  'Examples:',
  '  export ATTEST_ENGINE_PATH="$(command -v evals-engine)"   # an Attest SDK then launches this engine',
  '  evals-engine --log-level=debug < requests.ndjson',
];

export type EngineArgs =
  | { readonly kind: 'serve'; readonly logLevel: string }
  | { readonly kind: 'help' }
  /** `version` prints "evals-engine X" as `attest-engine version` names itself; --version the bare number. */
  | { readonly kind: 'version'; readonly named: boolean }
  | { readonly kind: 'cache'; readonly action: string | undefined }
  | { readonly kind: 'usage'; readonly problem: string };

/**
 * The command line read as Go's flag package reads the Attest engine's: flags with one or two
 * dashes until the first other argument; a positional argument is refused here (that engine ignores
 * it). A log level is checked later: an unknown one exits 1, as there.
 */
export function parseEngineArgs(args: readonly string[]): EngineArgs {
  if (args[0] === 'version') return { kind: 'version', named: true };
  if (args[0] === 'cache') return { kind: 'cache', action: args[1] };
  let logLevel = 'warn';
  let debug = false;
  for (let index = 0; index < args.length; index++) {
    const arg = args[index] ?? '';
    if (arg === '--') {
      if (index + 1 < args.length)
        return { kind: 'usage', problem: `unexpected argument ${JSON.stringify(args[index + 1])}` };
      break;
    }
    if (arg === '-V' || arg === '--version') return { kind: 'version', named: false };
    const flag = /^--?([^-=][^=]*)(?:=(.*))?$/s.exec(arg);
    if (flag === null) return { kind: 'usage', problem: `unexpected argument ${JSON.stringify(arg)}` };
    const [, name, inline] = flag;
    if (name === 'h' || name === 'help') return { kind: 'help' };
    if (name === 'debug') {
      if (
        inline !== undefined &&
        !['true', 'false', '1', '0', 't', 'f', 'TRUE', 'FALSE', 'True', 'False'].includes(inline)
      )
        return { kind: 'usage', problem: `invalid boolean value ${JSON.stringify(inline)} for -debug` };
      debug = inline === undefined || ['true', '1', 't', 'TRUE', 'True'].includes(inline);
    } else if (name === 'log-level') {
      const value = inline ?? args[++index];
      if (value === undefined) return { kind: 'usage', problem: 'flag needs an argument: -log-level' };
      logLevel = value;
    } else {
      return { kind: 'usage', problem: `flag provided but not defined: -${name ?? ''}` };
    }
  }
  return { kind: 'serve', logLevel: debug ? 'debug' : logLevel };
}

/** The log level the arguments ask for, or undefined when they are not a valid command line. */
export function logLevelFromArgs(args: readonly string[]): string | undefined {
  const parsed = parseEngineArgs(args);
  return parsed.kind === 'serve' ? parsed.logLevel : undefined;
}

export async function engineMain(argv: readonly string[]): Promise<void> {
  process.exitCode = await runEngineBin(argv);
}

/** Serves (the engine exits the process when it is done), or returns the exit code of a failure to start. */
async function runEngineBin(argv: readonly string[]): Promise<number> {
  const parsed = parseEngineArgs(argv.slice(2));
  switch (parsed.kind) {
    case 'help':
      printLines('stdout', ENGINE_HELP);
      return ENGINE_BIN_EXIT.ok;
    case 'version':
      printLines('stdout', [parsed.named ? `evals-engine ${VERSION}` : VERSION]);
      return ENGINE_BIN_EXIT.ok;
    case 'cache':
      return cacheCommand(parsed.action);
    case 'usage':
      printLines('stderr', [`evals-engine: ${parsed.problem}`, USAGE]);
      return ENGINE_BIN_EXIT.usage;
    case 'serve':
      break;
  }
  if (!LOG_LEVELS.includes(parsed.logLevel)) {
    // The Attest engine's words and code (main.go:50-52).
    printLines('stderr', [`invalid log level: ${parsed.logLevel}`]);
    return ENGINE_BIN_EXIT.stopped;
  }
  // Stopped by a signal, the Attest engine returns from its loop and exits 1 (main.go:62-67); once
  // the session was shut down, a signal (an SDK's stop() sends SIGTERM as soon as it read the
  // shutdown reply) is the clean end it would have reached itself: exit 0.
  let shutDown = (): boolean => false;
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      if (shutDown()) process.exit(exitCodeForOutcome('ok'));
      process.exit(exitCodeForOutcome('engine_stopped'));
    });
  }
  try {
    const { runEngine, engineShutDown } = await import('./commands/engine.js');
    shutDown = engineShutDown;
    await runEngine({ logLevel: parsed.logLevel });
    return ENGINE_BIN_EXIT.ok;
  } catch (error) {
    printLines('stderr', errorLines('evals-engine: ', error));
    return exitCodeFor(error);
  }
}

/**
 * `cache stats|clear`, as the Attest engine answers them for its cache folder (ATTEST_CACHE_DIR,
 * else ~/.attest/cache). This engine caches no verdicts; the folder may hold an Evalbook's drift
 * history (append-only), so `clear` removes nothing and says so.
 */
function cacheCommand(action: string | undefined): number {
  if (action !== 'stats' && action !== 'clear') {
    printLines('stderr', ['usage: evals-engine cache <stats|clear>']);
    return ENGINE_BIN_EXIT.stopped;
  }
  const dir = process.env.ATTEST_CACHE_DIR || join(homedir(), '.attest', 'cache');
  let isDir: boolean;
  try {
    isDir = statSync(dir).isDirectory();
  } catch {
    printLines('stdout', [`cache directory does not exist: ${dir}`]);
    return ENGINE_BIN_EXIT.ok;
  }
  if (action === 'clear') {
    printLines('stdout', [
      `nothing to clear in ${dir}: this engine caches no judge or embedding verdicts, and drift history there is an append-only Evalbook, kept`,
    ]);
    return ENGINE_BIN_EXIT.ok;
  }
  const files = isDir ? readdirSync(dir, { withFileTypes: true }).filter((entry) => entry.isFile()) : [];
  const bytes = files.reduce((total, entry) => total + statSync(join(dir, entry.name)).size, 0);
  printLines('stdout', [
    `cache dir: ${dir}`,
    'exists:    true',
    `is_dir:    ${String(isDir)}`,
    `files:     ${files.length}`,
    `size_bytes: ${bytes}`,
  ]);
  return ENGINE_BIN_EXIT.ok;
}
