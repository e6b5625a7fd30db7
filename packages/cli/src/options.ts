// The rules every option of `evals` follows, so that nothing the user wrote is silently dropped:
//   - an option given more than once is repeatable only when declared so (repeatable(), which
//     collects every value); any other option named twice is a usage error (exit 2) that names the
//     option and both values. Commander would silently keep the last value.
//   - an option that means something only together with another (needs()) is a usage error (exit 2)
//     without it, before any work: it names both and says why. Commander would accept it and the
//     command would quietly do what it does without it.
// applyOptionRules() puts both rules on every command. The argParsers several commands share live here too.
import { InvalidArgumentError } from 'commander';

import type { EventEmitter } from 'node:events';
import type { Command, Option } from 'commander';

/** The commander error code of a repeated option. */
export const REPEATED_OPTION = 'evals.repeatedOption';
/** The commander error code of an option given without the option it needs. */
export const MISSING_COMPANION = 'evals.missingCompanion';

const REPEATABLE = new WeakSet<Option>();

/** Declares an option repeatable: its argParser must collect every value it is given. */
export function repeatable(option: Option): Option {
  REPEATABLE.add(option);
  return option;
}

export function isRepeatable(option: Option): boolean {
  return REPEATABLE.has(option);
}

/** What an option needs: another option's long flag, and why (shown in the usage error). */
export interface Companion {
  readonly flag: string;
  readonly why: string;
}

const NEEDS = new WeakMap<Option, Companion>();

/** Declares that `option` means something only when `flag` (another option of its command) is given too. */
export function needs(option: Option, flag: string, why: string): Option {
  NEEDS.set(option, { flag, why });
  return option;
}

export function companionOf(option: Option): Companion | undefined {
  return NEEDS.get(option);
}

/** Both rules, on every command of the tree. Call once, after every command and option is added. */
export function applyOptionRules(program: Command): void {
  refuseRepeatedOptions(program);
  // A preAction hook of the root runs for every command's action, after parsing, before any work.
  program.hook('preAction', (_, command) => {
    refuseMissingCompanions(command);
  });
}

/** The usage error for the first option given without the option it needs. */
function refuseMissingCompanions(command: Command): void {
  for (const option of command.options) {
    const companion = NEEDS.get(option);
    if (companion === undefined || command.getOptionValueSource(option.attributeName()) !== 'cli') continue;
    const other = command.options.find((candidate) => candidate.long === companion.flag);
    if (other === undefined)
      throw new Error(`${option.flags} needs ${companion.flag}, which its command lacks`);
    if (command.getOptionValue(other.attributeName()) !== undefined) continue;
    command.error(
      `error: option '${option.flags}' needs ${companion.flag}: ${companion.why}; add ${companion.flag} or leave ${option.long ?? option.flags} out (nothing was done)`,
      { exitCode: 2, code: MISSING_COMPANION },
    );
  }
}

/** Why a repeated option cannot union its values, where a reader would expect it to. */
const REPEAT_HINTS: Readonly<Record<string, string>> = {
  '--run':
    'the numbers are scoped to one run, the run check drift judges against the runs before it, so two runs do not add up to a scope; leave --run out to count every run, or compare two runs with --a-run and --b-run',
};

/**
 * Walks the command tree and makes every option that is not repeatable refuse a second occurrence.
 * Call once, after every command and option is added.
 */
export function refuseRepeatedOptions(command: Command): void {
  // The first value of each option as the user wrote it (commander keeps only the parsed one).
  const written = new Map<string, unknown>();
  for (const option of command.options) {
    if (isRepeatable(option) || option.long === '--version') continue;
    const key = option.attributeName();
    // Runs before commander's own listener stores the value, so a first occurrence still has the
    // source 'default' (or none): commander restores that state before every parse.
    // (A Command is an EventEmitter, as commander documents; its typings declare only on().)
    (command as unknown as EventEmitter).prependListener(`option:${option.name()}`, (value: unknown) => {
      if (command.getOptionValueSource(key) !== 'cli') {
        written.set(key, value);
        return;
      }
      const values = [written.get(key), value].filter((text) => typeof text === 'string');
      const hint = REPEAT_HINTS[option.long ?? ''];
      command.error(
        `error: option '${option.flags}' given twice${values.length === 0 ? '' : ` (${values.map((text) => JSON.stringify(text)).join(', then ')})`}: it is not repeatable and Evals never keeps only the last one; name it once${hint === undefined ? '' : `. ${option.long ?? ''}: ${hint}`}`,
        { exitCode: 2, code: REPEATED_OPTION },
      );
    });
  }
  for (const sub of command.commands) refuseRepeatedOptions(sub);
}

/** The argParser of a whole number above 0 (--timeout-ms, --processes, …); anything else is a usage error. */
export function positiveInteger(value: string): number {
  const parsed = Number(value);
  if (!Number.isSafeInteger(parsed) || parsed <= 0)
    throw new InvalidArgumentError(`expected a positive whole number, received ${JSON.stringify(value)}`);
  return parsed;
}
