// No option anywhere in the `evals` command tree is silently overwritten by its repetition: this walks
// every option of every command of createProgram() and gives it twice. Only the options listed in
// REPEATABLE may take several values (and then keep all of them); every other one is a usage error
// (exit 2) naming the option and both values. An option added later without a decision fails here.
// Likewise no option that means something only with another is accepted alone: each listed in NEEDS
// is a usage error (exit 2) without its companion, before any action runs, and reaches it with it.
import { CommanderError } from 'commander';
import { describe, expect, it } from 'vitest';

import { UsageError } from '../src/exit-codes.ts';
import { MISSING_COMPANION, REPEATED_OPTION, companionOf, isRepeatable } from '../src/options.ts';
import { createProgram } from '../src/program.ts';

import type { Command, Option } from 'commander';

/** Every repeatable option, by command path: each keeps every value it is given. */
const REPEATABLE = [
  'report --fail-on',
  'compare --fail-on',
  'policy replay --policy-arg',
  'retract --attempt',
  'merge --from-store',
  'run --pass-env',
];

/** Every option that means something only with another, by command path: the option it needs. */
const NEEDS: Readonly<Record<string, string>> = {
  'ingest --keep-foreign': '--env',
  'compare --run': '--a',
  'compare --all-runs': '--a',
  'retract --attempt': '--run',
  'report --case': '--attempt',
  'report --config': '--attempt',
};

/** Two valid values for options whose parser refuses arbitrary text. */
const SAMPLES: Readonly<Record<string, readonly [string, string]>> = {
  '--fail-on': ['below:0.5', 'drift'],
  '--max-bytes': ['1KiB', '2'],
  '--timeout-ms': ['100', '200'],
  '--processes': ['1', '2'],
  '--sessions-per-process': ['1', '2'],
  '--reply-timeout-ms': ['100', '200'],
  '--pass-env': ['API_KEY', 'OTHER_TOKEN'],
};

class ActionReached extends Error {}

/** A usage error commander found: the CLI's coded UsageError, commander's own error its cause. */
function commanderCause(error: unknown): CommanderError {
  expect(error).toBeInstanceOf(UsageError);
  expect((error as UsageError).code).toBe('paperclip_cli_usage_invalid');
  const cause = (error as UsageError).cause;
  expect(cause).toBeInstanceOf(CommanderError);
  return cause as CommanderError;
}

function* walk(command: Command, path: readonly string[] = []): Generator<[string[], Command]> {
  yield [[...path], command];
  for (const sub of command.commands) yield* walk(sub, [...path, sub.name()]);
}

function samples(option: Option): readonly [string, string] {
  const flag = option.long ?? option.short ?? '';
  return (
    SAMPLES[flag] ??
    (option.argChoices ? [option.argChoices[0]!, option.argChoices[1]!] : ['first', 'second'])
  );
}

const takesValue = (option: Option): boolean => option.required || option.optional;

const given = (option: Option, value: string): string[] =>
  takesValue(option) ? [option.long ?? option.short ?? '', value] : [option.long ?? option.short ?? ''];

/**
 * What else a command needs to reach its action: its required arguments, mandatory options, and the
 * companions of `except` and of the options that go with it (e.g. compare --run needs --a, and --a
 * needs --b in the action itself, after this test stops).
 */
function rest(command: Command, except: Option): string[] {
  const companion = companionOf(except)?.flag;
  const mandatory = command.options
    .filter((option) => (option.mandatory || option.long === companion) && option.long !== except.long)
    .flatMap((option) => given(option, samples(option)[0]));
  const args = command.registeredArguments.filter((arg) => arg.required).map(() => 'input');
  return [...mandatory, ...args];
}

/** Parses argv with a program that writes nothing and stops right before any action runs. */
async function parse(argv: readonly string[]): Promise<{ error: unknown; command: Command | undefined }> {
  const program = createProgram();
  for (const [, command] of walk(program))
    command.configureOutput({ writeErr: () => {}, writeOut: () => {} });
  let reached: Command | undefined;
  program.hook('preAction', (_, actionCommand) => {
    reached = actionCommand;
    throw new ActionReached();
  });
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return { error: undefined, command: reached };
  } catch (error) {
    return { error, command: reached };
  }
}

const options = [...walk(createProgram())].flatMap(([path, command]) =>
  command.options
    .filter((option) => option.long !== '--version')
    .map((option) => ({ path, option, name: [...path, option.long ?? option.short].join(' ') })),
);

describe('every option of every command', () => {
  it('is found by the walk (so the test below cannot pass on an empty tree)', () => {
    expect(options.length).toBeGreaterThan(40);
    expect(
      options
        .filter(({ option }) => isRepeatable(option))
        .map(({ name }) => name)
        .sort(),
    ).toEqual([...REPEATABLE].sort());
  });

  it.each(options.filter(({ name }) => !REPEATABLE.includes(name)))(
    '$name given twice is a usage error naming both values',
    async ({ path, option }) => {
      const [first, second] = samples(option);
      const command = [...walk(createProgram())].find(([p]) => p.join(' ') === path.join(' '))![1];
      // Given once, it is accepted (the rule refuses repetition, not the option).
      const once = await parse([...path, ...given(option, first), ...rest(command, option)]);
      expect(once.error).toBeInstanceOf(ActionReached);
      const twice = await parse([
        ...path,
        ...given(option, first),
        ...given(option, second),
        ...rest(command, option),
      ]);
      const error = commanderCause(twice.error);
      expect(error.code).toBe(REPEATED_OPTION);
      expect(error.exitCode).toBe(2);
      expect(error.message).toContain(`option '${option.flags}' given twice`);
      if (takesValue(option)) expect(error.message).toContain(`("${first}", then "${second}")`);
    },
  );

  it.each(options.filter(({ name }) => REPEATABLE.includes(name)))(
    '$name given twice keeps both values',
    async ({ path, option }) => {
      const [first, second] = samples(option);
      const command = [...walk(createProgram())].find(([p]) => p.join(' ') === path.join(' '))![1];
      const result = await parse([
        ...path,
        ...given(option, first),
        ...given(option, second),
        ...rest(command, option),
      ]);
      expect(result.error).toBeInstanceOf(ActionReached);
      const values = result.command?.getOptionValue(option.attributeName()) as unknown[];
      expect(values).toHaveLength(2);
    },
  );
});

describe('an option that needs another', () => {
  const needing = options.filter(({ option }) => companionOf(option) !== undefined);

  it('is declared where NEEDS says (so an option added later gets a decision)', () => {
    expect(Object.fromEntries(needing.map(({ name, option }) => [name, companionOf(option)?.flag]))).toEqual(
      NEEDS,
    );
  });

  it.each(needing)(
    '$name without its companion is a usage error naming both, before any action',
    async ({ path, option }) => {
      const command = [...walk(createProgram())].find(([p]) => p.join(' ') === path.join(' '))![1];
      const flag = companionOf(option)!.flag;
      const [first] = samples(option);
      // With its companion (and what the command needs besides), the action is reached.
      const withIt = await parse([...path, ...given(option, first), ...rest(command, option)]);
      expect(withIt.error).toBeInstanceOf(ActionReached);
      const without = rest(command, option);
      const at = without.indexOf(flag);
      expect(at).toBeGreaterThanOrEqual(0);
      without.splice(at, takesValue(command.options.find((o) => o.long === flag)!) ? 2 : 1);
      const alone = await parse([...path, ...given(option, first), ...without]);
      const error = commanderCause(alone.error);
      expect(error.code).toBe(MISSING_COMPANION);
      expect(error.exitCode).toBe(2);
      expect(error.message).toContain(`option '${option.flags}' needs ${flag}`);
      expect(alone.command).toBeUndefined();
    },
  );
});
