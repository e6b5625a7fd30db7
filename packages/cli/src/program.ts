// The `evals` command tree. Each action is a thin adapter: flags → one lazily imported library
// call → result on stdout. createProgram() is exported so tests can parse argv without a process.
import { createRequire } from 'node:module';
import { Command, InvalidArgumentError, Option } from 'commander';

const CLI_VERSION = (createRequire(import.meta.url)('../package.json') as { version: string }).version;

export function createProgram(): Command {
  const program = new Command('evals')
    .description(
      'Paperclip Evals: qualify runner releases, ingest eval attempts, and report numbers you can trust.',
    )
    .version(CLI_VERSION, '-V, --version', 'print the evals version')
    .exitOverride()
    .showHelpAfterError('(run `evals help <command>` for usage)')
    .configureOutput({ writeErr: (text) => process.stderr.write(text) });

  program
    .command('validate')
    .summary('check native-execution/v1 attempt bundles against the runner contract')
    .description(
      [
        'Check paperclip-runner/native-execution/v1 attempt bundles: strict JSON (UTF-8, no duplicate keys,',
        'size and depth limits), the JSON Schema, and the contract invariants (terminal, event order,',
        'semantic tool index, denials, token totals, transcript accounting). Every issue is reported,',
        'each with a rule code, a JSON pointer, what was expected and what was received.',
      ].join('\n'),
    )
    .argument('<inputs...>', 'bundle files, directories (searched recursively for *.json) or - for stdin')
    .option('--json', 'print one JSON report on stdout instead of the table')
    .addOption(
      new Option('--max-bytes <bytes>', 'refuse bundles larger than this')
        .default(64 * 1024 * 1024, '64 MiB')
        .argParser(positiveInteger),
    )
    .addHelpText(
      'after',
      [
        '',
        'Exit codes: 0 every bundle is valid · 1 at least one is invalid · 2 usage error or unreadable input.',
        '',
        'Examples:',
        '  $ evals validate fixtures/attempts/valid',
        '  $ evals validate attempt.json --json | jq ".files[] | select(.valid | not)"',
        '  $ cat attempt.json | evals validate -',
      ].join('\n'),
    )
    .action(async (inputs: string[], flags: { json?: true; maxBytes: number }) => {
      const { runValidate } = await import('./commands/validate.js');
      process.exitCode = await runValidate({ inputs, json: flags.json === true, maxBytes: flags.maxBytes });
    });

  return program;
}

function positiveInteger(value: string): number {
  const parsed = Number(value);
  if (!Number.isSafeInteger(parsed) || parsed <= 0)
    throw new InvalidArgumentError(`expected a positive whole number, received ${JSON.stringify(value)}`);
  return parsed;
}
