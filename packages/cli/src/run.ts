// How every command runs: its action returns an Outcome, or fails; act() turns either into the
// command's exit code through exit-codes.ts's one table (a failure is described on stderr first,
// and with --json printed as the JSON the command prints instead of its result), and runProgram()
// parses argv, runs the command and returns that exit code. Nothing else decides one. Commander's
// own usage errors (an unknown option or command, a missing argument or option value, a value it
// refuses, too many arguments, and ours: a repeated option, one without its companion) never reach
// an action: codeUsageErrors() makes each the coded UsageError (paperclip_cli_usage_invalid, with
// what was expected, what was received and what to do), reported as the command's other failures.
import { Command, CommanderError } from 'commander';

import type { AddHelpTextContext } from 'commander';

import { EXIT, UsageError, errorLines, exitCodeFor, exitCodeForOutcome, failureJson } from './exit-codes.js';
import { MISSING_COMPANION, REPEATED_OPTION } from './options.js';
import { printJsonText, printLines } from './print.js';

import type { Issue } from '@paperclip-evals/contract';

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

/** Each action act() made, with how its command reports a failure (looked up by the command). */
const ACTION_FAILURES = new WeakMap<object, Failures>();

function rootOf(command: Command): Command {
  let root = command;
  while (root.parent !== null) root = root.parent;
  return root;
}

/** Describes `error` on stderr and, when --json was asked for, prints the command's failure JSON; returns the exit code. */
function reportFailure(failures: Failures, error: unknown, json: boolean): number {
  const exitCode = (failures.exitCodeOf ?? exitCodeFor)(error);
  printLines('stderr', errorLines(failures.prefix ?? 'evals: ', error));
  const format = json ? failures.json : undefined;
  const text = typeof format === 'string' ? failureJson(format, exitCode, error) : format?.(error, exitCode);
  if (text !== undefined) printJsonText(text);
  return exitCode;
}

/** A commander action that runs `run` and records its exit code (see the file's head). */
export function act<A extends unknown[]>(
  run: (...args: A) => Promise<Outcome>,
  failures: Failures = {},
): (this: Command, ...args: A) => Promise<void> {
  const action = async function (this: Command, ...args: A): Promise<void> {
    const root = rootOf(this);
    let exitCode: number;
    try {
      exitCode = exitCodeForOutcome(await run(...args));
    } catch (error) {
      if (error instanceof CommanderError) throw error;
      exitCode = reportFailure(failures, error, this.opts<{ json?: true }>().json === true);
    }
    EXIT_CODES.set(root, exitCode);
  };
  ACTION_FAILURES.set(action, failures);
  return action;
}

/** Each usage error commander found while parsing, with the command it was parsing. */
const USAGE_COMMAND = new WeakMap<UsageError, Command>();

/** `evals policy replay`, as a user types it. */
function commandPath(command: Command): string {
  const names: string[] = [];
  for (let at: Command | null = command; at !== null; at = at.parent) names.unshift(at.name());
  return names.join(' ');
}

/**
 * What to do instead of an option a command does not have but a user reaches for (other commands
 * have it, or the command does it another way), by command path and option.
 */
const UNKNOWN_OPTION_HINTS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  'evals report': {
    '--json': 'the report is JSON by default (--format json), on stdout or in --out FILE',
  },
  'evals grid': {
    '--format':
      'grid prints a table, or JSON with --json; the grid as Markdown, JUnit or HTML is evals report --format',
    '--out':
      'grid prints on stdout (evals grid > grid.txt); evals report --out FILE writes the grid in a report',
  },
  'evals compare': {
    '--format':
      'compare prints a table, or JSON with --json; evals report --a A --b B --format md writes the comparison in a report',
    '--out':
      'compare prints on stdout (evals compare … > comparison.txt); evals report --a A --b B --out FILE writes it in a report',
  },
  'evals init': {
    '--force': 'init never replaces a file: remove it first, or name another file (evals init other.yaml)',
  },
};

/**
 * What each commander usage error expected and received, from the command and commander's message,
 * and what to do: the message ends by pointing at the command's --help.
 */
/** Words a newcomer types for a command of another name (the docs speak of campaigns, lists, …). */
const UNKNOWN_COMMAND_HINTS: Readonly<Record<string, string>> = {
  campaign: '`evals run` runs a campaign, `evals merge` joins its shards',
  campaigns: "`evals runs` lists the ledger's campaigns and runs",
  list: "`evals runs` lists the ledger's campaigns and runs",
  serve: '`evals view SITE` serves a published site on loopback',
};

function usageIssue(command: Command, error: CommanderError): Issue {
  const path = commandPath(command);
  const help = `${path} --help`;
  // Commander puts a suggestion on a line of its own ("…'--stor'\n(Did you mean --store?)"): one line
  // here, so the message never shows an escaped \n (text from argv in it stays escaped by printLines).
  const said = error.message.replace(/^error: /, '').replace(/\s*\n\s*/g, ' ');
  const base = { component: path, message: `${said.replace(/\.$/, '')}; see ${help}` };
  const quoted = /'([^']*)'/.exec(said)?.[1] ?? '';
  switch (error.code) {
    case 'commander.unknownOption': {
      const hint = UNKNOWN_OPTION_HINTS[path]?.[quoted];
      return {
        code: 'unknown_option',
        ...base,
        ...(hint === undefined ? {} : { message: `${said.replace(/\.$/, '')}: ${hint}; see ${help}` }),
        expected: `an option ${help} lists`,
        received: quoted,
      };
    }
    case 'commander.unknownCommand': {
      const meant = UNKNOWN_COMMAND_HINTS[quoted];
      return {
        code: 'unknown_command',
        ...base,
        ...(meant === undefined ? {} : { message: `${said.replace(/\.$/, '')} (${meant}); see ${help}` }),
        expected: `one of ${command.commands.map((sub) => sub.name()).join(', ')}`,
        received: quoted,
      };
    }
    case 'commander.missingArgument': {
      const argument = command.registeredArguments.find((candidate) => candidate.name() === quoted);
      return {
        code: 'missing_argument',
        ...base,
        expected: `<${quoted}>${argument?.description === undefined || argument.description === '' ? '' : `: ${argument.description}`}`,
        received: 'nothing',
      };
    }
    case 'commander.optionMissingArgument':
      return {
        code: 'option_value_missing',
        ...base,
        expected: `a value after ${quoted}`,
        received: 'nothing',
      };
    case 'commander.missingMandatoryOptionValue':
      return { code: 'required_option_missing', ...base, expected: quoted, received: 'not given' };
    case 'commander.invalidArgument': {
      // "option '--format <format>' argument 'pdf' is invalid. Allowed choices are json, md." or
      // "… is invalid. expected a size from 1 byte to 512 MiB, …; received "zz"" (our argParsers).
      const [, value = '', why = ''] = /argument '([^']*)' is invalid\.\s*(.*)$/s.exec(said) ?? [];
      const choices = /^Allowed choices are (.*?)\.?$/s.exec(why)?.[1];
      const expected =
        choices === undefined
          ? why.replace(/^expected /, '').replace(/[;,]\s*received .*$/s, '')
          : `one of ${choices}`;
      // The why is the issue's expected and received: the message keeps only what was refused.
      const refused = /^(.*?argument '[^']*' is invalid)/s.exec(said)?.[1];
      return {
        code: 'option_value_invalid',
        ...base,
        ...(refused === undefined || expected === '' ? {} : { message: `${refused}; see ${help}` }),
        expected: expected === '' ? `a value ${help} describes` : expected,
        received: value,
      };
    }
    case 'commander.excessArguments': {
      const names = command.registeredArguments.map((argument) => `<${argument.name()}>`);
      return {
        code: 'excess_arguments',
        ...base,
        expected: names.length === 0 ? 'no arguments' : `at most ${names.length}: ${names.join(' ')}`,
        received: command.args,
      };
    }
    case REPEATED_OPTION: {
      const values = /given twice (\([^)]*\))/.exec(said)?.[1];
      return {
        code: 'repeated_option',
        ...base,
        expected: `${quoted} once`,
        received: values === undefined ? `${quoted} twice` : `${quoted} twice ${values}`,
      };
    }
    case MISSING_COMPANION: {
      const companion = /needs (--[a-z-]+)/.exec(said)?.[1] ?? 'its companion';
      return {
        code: 'option_without_companion',
        ...base,
        expected: `${quoted} with ${companion}`,
        received: `${quoted} alone`,
      };
    }
    case 'commander.conflictingOption': {
      // "option '--all-runs' cannot be used with option '--run <runId>'": both named, and which to drop.
      const [first = '', second = ''] = [...said.matchAll(/'(--[^' ]+)[^']*'/g)].map((match) => match[1]);
      return {
        code: 'options_conflict',
        component: path,
        message: `${said}: they ask for different things, so give one of them (nothing was done); see ${help}`,
        expected: `${first} or ${second}, not both`,
        received: `${first} and ${second}`,
      };
    }
    default:
      return { code: 'usage_invalid', ...base, expected: `a command line ${help} describes`, received: said };
  }
}

/** How each command reports a failure: its action's, when act() made it (EvalsCommand records it). */
const COMMAND_FAILURES = new WeakMap<Command, Failures>();

/**
 * The command class of the `evals` tree (its subcommands are made by createCommand, so of it too):
 * commander's Command, remembering how the action act() made for it reports a failure, so that a
 * usage error found before the action runs is reported the same way (its prefix, its --json).
 */
/** The width help text wraps at when the terminal does not say (commander's own default). */
const HELP_WIDTH = 80;

export class EvalsCommand extends Command {
  override createCommand(name?: string): EvalsCommand {
    return new EvalsCommand(name);
  }

  /**
   * Commander checks required and conflicting options before unknown ones, and shows help before
   * an unknown command: a misspelt flag (`qualify --release-di r`) read "required option
   * '--release-dir <dir>' not specified", and `evals ledger --help` printed the root help with exit
   * 0 as if `ledger` were a command. The mistake the user made is the error shown: an unknown
   * option of a command (with commander's suggestion), an unknown command even beside --help.
   */
  override parseOptions(args: string[]): { operands: string[]; unknown: string[] } {
    const parsed = super.parseOptions(args);
    const help = parsed.unknown.some((arg) => arg === '--help' || arg === '-h');
    const [option] = parsed.unknown;
    if (this.commands.length === 0 && !help && option?.startsWith('-') === true)
      (this as unknown as { unknownOption(flag: string): never }).unknownOption(option);
    const [name] = parsed.operands;
    if (this.commands.length > 0 && help && name !== undefined && name !== 'help' && !this.hasCommand(name))
      this.error(`error: unknown command '${name}'`, { code: 'commander.unknownCommand' });
    return parsed;
  }

  private hasCommand(name: string): boolean {
    return this.commands.some((sub) => sub.name() === name || sub.aliases().includes(name));
  }

  /**
   * The text after (or before) the Options list, wrapped as commander wraps a description: the lines
   * that start at the margin, up to a blank or an indented line, are one paragraph (Exit codes,
   * Credentials, Case checks, …; its source breaks lines where the source likes), joined and wrapped
   * by the help's own boxWrap at the help's width (the terminal's, else 80); an indented line (an
   * example command, a list item laid out by hand) and a blank line stay as written.
   */
  override addHelpText(
    position: Parameters<Command['addHelpText']>[0],
    text: string | ((context: AddHelpTextContext) => string),
  ): this {
    return super.addHelpText(position, (context) => {
      const raw = typeof text === 'function' ? text(context) : text;
      const output = context.command.configureOutput();
      const width = (context.error ? output.getErrHelpWidth?.() : output.getOutHelpWidth?.()) ?? HELP_WIDTH;
      const help = context.command.createHelp();
      const lines: string[] = [];
      let paragraph: string[] = [];
      const flush = (): void => {
        if (paragraph.length > 0) lines.push(help.boxWrap(paragraph.join(' '), width));
        paragraph = [];
      };
      for (const line of raw.split('\n')) {
        if (line === '' || /^\s/.test(line)) {
          flush();
          lines.push(line);
        } else paragraph.push(line.trimEnd());
      }
      flush();
      return lines.join('\n');
    });
  }

  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- commander's own signature
  override action(fn: (this: this, ...args: any[]) => void | Promise<void>): this {
    const failures = ACTION_FAILURES.get(fn);
    if (failures !== undefined) COMMAND_FAILURES.set(this, failures);
    return super.action(fn);
  }
}

/**
 * Makes every commander usage error of the tree a coded UsageError (its command remembered): call once,
 * after every command is added. --help, --version and the help shown for a group without its
 * command stay commander's own (their text is ours, from the flag tables).
 */
export function codeUsageErrors(command: Command): void {
  command.exitOverride((error) => {
    if (error.exitCode === 0 || error.code === 'commander.help' || error.code === 'commander.helpDisplayed')
      throw error;
    const issue = usageIssue(command, error);
    const usage = new UsageError(issue.message, { issues: [issue], cause: error });
    USAGE_COMMAND.set(usage, command);
    throw usage;
  });
  for (const sub of command.commands) codeUsageErrors(sub);
}

/** Whether argv asks for --json (before a `--`, where the rest is operands). */
function asksJson(argv: readonly string[]): boolean {
  const end = argv.indexOf('--');
  return (end === -1 ? argv : argv.slice(0, end)).includes('--json');
}

/**
 * Parses `argv` (node's: the first two are the runtime and the script), runs the command and
 * returns its exit code. A usage error commander found is reported as the command's failure
 * (with --json, its failure JSON); --help and --version are written by commander.
 */
export async function runProgram(argv: readonly string[], program: Command): Promise<number> {
  try {
    await program.parseAsync(argv);
  } catch (error) {
    const command = error instanceof UsageError ? USAGE_COMMAND.get(error) : undefined;
    if (error instanceof UsageError && command !== undefined) {
      const json = command.options.some((option) => option.long === '--json') && asksJson(argv.slice(2));
      return reportFailure(COMMAND_FAILURES.get(command) ?? {}, error, json);
    }
    if (!(error instanceof CommanderError)) printLines('stderr', errorLines('evals: ', error));
    return exitCodeFor(error);
  }
  return EXIT_CODES.get(program) ?? EXIT.ok;
}
