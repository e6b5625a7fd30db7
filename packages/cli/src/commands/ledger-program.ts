// `evals retract`, `evals runs` and `evals migrate`: the ledger's own commands, added to the command
// tree by program.ts. Actions lazily import their modules, like every other command.
import { Option } from 'commander';

import type { Command } from 'commander';

import { needs, repeatable } from '../options.js';
import { MIGRATE_V1, RETRACTION_REPORT_V1, RUNS_V1 } from '../output-schemas.js';
import { act } from '../run.js';

const STORE_HELP =
  "the store: sqlite:PATH or postgres://… (default: the environment file's store, else sqlite:.evalbook/evalbook.sqlite)";

const collect = (value: string, previous: string[]): string[] => [...previous, value];

export function addLedgerCommands(program: Command): void {
  program
    .command('retract')
    .summary('retract a run or some of its attempts: an appended record (who, why, when), never a delete')
    .description(
      [
        'The ledger is append-only: to stop a run or an attempt from counting (a broken harness, a bundle',
        'of another suite, a rerun that supersedes it), retract it. A retraction record is appended with',
        'who (--by, default: your user name), why (--reason) and when (now, by this machine’s clock).',
        'Every report, grid, comparison and --fail-on gate then leaves the retracted attempts out and says',
        'how many it left out; `evals runs` lists the records. Retracting what is already retracted writes',
        'nothing and shows the record in force; a run or attempt the store does not hold is an error.',
      ].join(' '),
    )
    .option('--run <runId>', 'the run (every attempt of it, without --attempt)')
    .addOption(
      needs(
        repeatable(
          new Option(
            '--attempt <attemptId>',
            'only the attempts of the run with this attempt id (repeatable)',
          )
            .argParser(collect)
            .default([], 'the whole run'),
        ),
        '--run',
        'an attempt id names an attempt only within its run',
      ),
    )
    .option('--reason <text>', 'why: shown wherever the retraction is')
    .option('--by <name>', 'who retracts (default: the user name of this process)')
    .option('--store <url>', STORE_HELP)
    .option('--env <file>', 'the Evalbook environment (its store)')
    .option('--json', 'print the outcome as JSON')
    .addHelpText(
      'after',
      [
        '',
        'Exit codes: 0 retracted (or already retracted: nothing written) · 2 usage error, no such store, or no such run or attempt in it (nothing written).',
        '',
        'Examples:',
        '  $ evals retract --run nightly-42 --reason "harness lost the network" --by ci-bot',
        '  $ evals retract --run nightly-42 --attempt a-17 --attempt a-18 --reason "another suite\'s bundles"',
      ].join('\n'),
    )
    .action(
      act(
        async (flags: {
          run?: string;
          attempt: string[];
          reason?: string;
          by?: string;
          store?: string;
          env?: string;
          json?: true;
        }) => {
          const { runRetract } = await import('./ledger.js');
          return runRetract({ ...flags, attempts: flags.attempt, json: flags.json === true });
        },
        { json: RETRACTION_REPORT_V1 },
      ),
    );

  program
    .command('runs')
    .summary('list the runs in the Evalbook with their counts (attempts, foreign, retracted)')
    .description(
      [
        'List every run the store holds, in the order runs first reached it: attempts, cases and configs,',
        'attempts by the run terminal state the runner recorded, attempts kept apart as foreign',
        '(ingested with --keep-foreign) and retracted ones, with each retraction record (who, why, when).',
        'Counted by the database, without reading every attempt.',
      ].join(' '),
    )
    .option('--store <url>', STORE_HELP)
    .option('--env <file>', 'the Evalbook environment (its store)')
    .option('--json', 'print the runs as JSON (paperclip-evals/runs/v1)')
    .addHelpText(
      'after',
      [
        '',
        'Exit codes: 0 listed · 2 usage error, no such store, or a store that cannot be read (with --json, the failure as one JSON object).',
        '',
        'Examples:',
        '  $ evals runs',
        '  $ evals runs --json | jq ".runs[] | select(.retracted > 0)"',
      ].join('\n'),
    )
    .action(
      act(
        async (flags: { store?: string; env?: string; json?: true }) => {
          const { runRuns } = await import('./ledger.js');
          return runRuns({ ...flags, json: flags.json === true });
        },
        { json: RUNS_V1 },
      ),
    );

  program
    .command('migrate')
    .summary("bring an Evalbook an older Evals wrote up to this one's schema, so readers can open it")
    .description(
      [
        'A store made by an older Evals needs its schema migrated before a reader (report, grid,',
        'compare, runs, publish) opens it: readers never write, so they refuse it (store_needs_migration).',
        'migrate applies the pending migrations, the same ones a writer such as `evals ingest` applies',
        'when it opens the store, each in its own transaction, and says from which version to which;',
        'a store already up to date is left as it is. It never creates a store: a path with nothing',
        'there, a file that is not an Evalbook and a store from a newer Evals are refused, and nothing',
        'is written. Take a copy first if an older Evals must still read the store: it refuses a store',
        'with migrations it does not know. A PostgreSQL store is migrated by every command that opens it',
        '(readers too): migrate opens it and says what that applied; a database without Evalbook tables',
        'gets them, as `evals ingest` would make them.',
      ].join(' '),
    )
    .option('--store <url>', STORE_HELP)
    .option('--env <file>', 'the Evalbook environment (its store)')
    .option('--json', 'print the outcome as JSON (paperclip-evals/migrate/v1)')
    .addHelpText(
      'after',
      [
        '',
        'Exit codes: 0 migrated, or already up to date · 2 usage error, no store at that path (none is created), a file that is not an Evalbook, a store from a newer Evals, or a store that cannot be written (with --json, the failure as one JSON object).',
        '',
        'Examples:',
        '  $ evals migrate --store sqlite:.evalbook/evalbook.sqlite',
        '  migrated sqlite:.evalbook/evalbook.sqlite from version 10 to 11 (1 migration: 11)',
        '  $ evals migrate --env evalbook.yaml --json | jq .to',
      ].join('\n'),
    )
    .action(
      act(
        async (flags: { store?: string; env?: string; json?: true }) => {
          const { runMigrate } = await import('./migrate.js');
          return runMigrate({ ...flags, json: flags.json === true });
        },
        { json: MIGRATE_V1 },
      ),
    );
}
