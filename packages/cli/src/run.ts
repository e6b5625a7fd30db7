// How every command runs: its action returns an Outcome, or fails; act() turns either into the
// command's exit code through exit-codes.ts's one table (a failure is described on stderr first,
// and with --json printed as the JSON the command prints instead of its result), and runProgram()
// parses argv, runs the command and returns that exit code. Nothing else decides one.
import { CommanderError } from 'commander';

import type { Command } from 'commander';

import { EXIT, errorLines, exitCodeFor, exitCodeForOutcome, failureJson } from './exit-codes.js';
import { printJsonText, printLines } from './print.js';

import type { Outcome } from './exit-codes.js';

/** How a command reports a failure. */
export interface Failures {
  /** Before the first line of a failure's description on stderr (default `evals: `). */
  readonly prefix?: string;
  /** The command's exit code for a failure (default exitCodeFor). */
  readonly exitCodeOf?: (error: unknown) => number;
  /**
   * With --json, what stdout gets instead of the result: a schema id, for failureJson's
   * {schema, exitCode, error}, or the command's own JSON text (undefined: nothing).
   */
  readonly json?: string | ((error: unknown, exitCode: number) => string | undefined);
}

/** The exit code each program's command came to, by root command. */
const EXIT_CODES = new WeakMap<Command, number>();

function rootOf(command: Command): Command {
  let root = command;
  while (root.parent !== null) root = root.parent;
  return root;
}

/** A commander action that runs `run` and records its exit code (see the file's head). */
export function act<A extends unknown[]>(
  run: (...args: A) => Promise<Outcome>,
  failures: Failures = {},
): (this: Command, ...args: A) => Promise<void> {
  return async function (this: Command, ...args: A): Promise<void> {
    const root = rootOf(this);
    let exitCode: number;
    try {
      exitCode = exitCodeForOutcome(await run(...args));
    } catch (error) {
      if (error instanceof CommanderError) throw error;
      exitCode = (failures.exitCodeOf ?? exitCodeFor)(error);
      printLines('stderr', errorLines(failures.prefix ?? 'evals: ', error));
      const json = this.opts<{ json?: true }>().json === true ? failures.json : undefined;
      const text = typeof json === 'string' ? failureJson(json, exitCode, error) : json?.(error, exitCode);
      if (text !== undefined) printJsonText(text);
    }
    EXIT_CODES.set(root, exitCode);
  };
}

/**
 * Parses `argv` (node's: the first two are the runtime and the script), runs the command and
 * returns its exit code. Commander's own errors (usage, --help, --version) are written by commander.
 */
export async function runProgram(argv: readonly string[], program: Command): Promise<number> {
  try {
    await program.parseAsync(argv);
  } catch (error) {
    if (!(error instanceof CommanderError)) printLines('stderr', errorLines('evals: ', error));
    return exitCodeFor(error);
  }
  return EXIT_CODES.get(program) ?? EXIT.ok;
}
