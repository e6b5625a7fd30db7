// The `evals` command tree. Each action is a thin adapter: flags → one lazily imported command
// (one library or app workflow call, its result on stdout) → an Outcome, which act() maps to the exit
// code. createProgram() and runProgram() are exported so tests can run argv without a process.
import { createRequire } from 'node:module';
import { InvalidArgumentError, Option } from 'commander';
import { DEFAULT_MAX_EXECUTABLE_BYTES } from '@paperclip-evals/node';
import { releaseFilesText } from '@paperclip-evals/qualification/release-files';

import type { Command } from 'commander';

import type { FailOn, ReportFormat } from '@paperclip-evals/evalbook';

import { addCampaignCommands } from './commands/campaign-program.js';
import { addEngineCommands } from './commands/engine-program.js';
import { addLedgerCommands } from './commands/ledger-program.js';
import {
  EXIT,
  POLICY_REPLAY_EXIT,
  UsageError,
  contractFailureJson,
  failureJson,
  optionPair,
  usageError,
} from './exit-codes.js';
import { applyOptionRules, needs, positiveInteger, repeatable } from './options.js';
import {
  COMPARE_REPORT_V1,
  DIGEST_V1,
  GRID_REPORT_V1,
  INGEST_REPORT_V1,
  NEGOTIATE_V1,
  QUALIFY_V1,
  RUNNERD_INSPECT_V1,
  VALIDATE_REPORT_V1,
} from './output-schemas.js';
import { addPolicyCommands } from './commands/policy-program.js';
import { addPublishCommands } from './commands/publish-program.js';
import { printOwnText } from './print.js';
import { EvalsCommand, act, codeUsageErrors, runProgram } from './run.js';

/** The store a reading command opens when neither --store nor an --env file names one (evalbook's DEFAULT_STORE_URL). */
const DEFAULT_STORE_TEXT = 'sqlite:.evalbook/evalbook.sqlite';

const CLI_VERSION = (createRequire(import.meta.url)('../package.json') as { version: string }).version;

export { runProgram };

export function createProgram(): Command {
  const program = new EvalsCommand('evals')
    .description(
      'Paperclip Evals: qualify runner releases, ingest eval attempts, and report numbers you can trust.',
    )
    .version(CLI_VERSION, '-V, --version', 'print the evals version')
    // Commander's help and --version are our own text (built from our flag tables): printed as
    // they are. Its usage errors are coded UsageErrors, reported by runProgram as every other
    // failure (codeUsageErrors), so commander itself prints none of them.
    .configureOutput({
      writeOut: (text) => {
        printOwnText('stdout', text);
      },
      writeErr: (text) => {
        printOwnText('stderr', text);
      },
      outputError: () => undefined,
    })
    .addHelpText(
      'after',
      [
        '',
        'Start here (`pnpm demo` leaves an Evalbook in .evalbook/demo/<campaign>/evalbook.sqlite):',
        '  $ evals init                                        # a commented evalbook.yaml to edit',
        '  $ evals run --release-dir RELEASE --env evalbook.yaml --campaign first-1',
        '  $ evals ingest "runs/**/*.json" --env evalbook.yaml  # attempt bundles a runner wrote',
        '  $ evals grid --env evalbook.yaml                    # cases × configs, the newest run',
        '  $ evals compare --a baseline --b candidate          # is B better than A?',
        '  $ evals report --format html --out report.html      # md, junit, csv, json (the default) too',
        '  $ evals publish --out site && evals view site       # the static site, served on 127.0.0.1',
        "The commands that read the Evalbook find it in --store, else the --env file's store, else",
        `${DEFAULT_STORE_TEXT}. Each command's --help says what it does, every flag, examples and its exit codes.`,
        '',
        `Exit codes: ${EXIT.ok} ok · ${EXIT.invalid} an input refused (an invalid bundle, a refused release, a conflict) or a --fail-on gate failed · ${EXIT.usage} usage error, an unreadable input or an output refused · ${EXIT.incompatible} incompatible release (evals run: a release that does not join, one qualification refuses included; evals qualify says refused with 1) · ${EXIT.artifactInvalid} runnerd artifact invalid · ${POLICY_REPLAY_EXIT.jobFailed} policy replay job error · ${EXIT.internal} internal error · ${EXIT.interrupted}/${EXIT.terminated} stopped by SIGINT/SIGTERM.`,
        'With --json a failure is one {schema, exitCode, error} object on stdout (schemas/evals/).',
        '',
        'Text from input (ids, file names, messages, what runnerd or a producer printed) is shown as data:',
        'a control character, bidi override or line break in it prints escaped as JSON writes it (ESC as',
        '\\u001b, CR as \\r), and a line that would start a CI workflow command (::add-mask::…) shows its',
        'first colon as \\u003a (docs/ingest.md). --json output is exact JSON.',
      ].join('\n'),
    );

  program
    .command('validate')
    .summary(
      'check native-execution/v1 attempt bundles and eval-session artifacts against the runner contract',
    )
    .description(
      [
        'Check paperclip-runner/native-execution/v1 attempt bundles and paperclip-runner/eval-session-artifact/v1',
        'artifacts (dispatched on their schema; an artifact is checked against its contract, and the bundle it',
        'references, when it names one, is read from beside it, verified by digest and checked as a bundle is).',
        'A bundle is checked for strict JSON (UTF-8, no duplicate keys,',
        'size and depth limits), the JSON Schema, required text and UTC timestamps as upstream reads them,',
        'and the contract invariants (terminal, event order, semantic tool envelopes and their correlation,',
        'the semantic tool index, denials, token totals, transcript accounting). Every issue is reported,',
        'each with a rule code, a JSON pointer, what was expected and what was received',
        '(the rules: docs/native-execution.md).',
      ].join(' '),
    )
    .argument(
      '<inputs...>',
      'bundle files, directories (searched recursively for *.json files; symlinks inside are not followed), quoted glob patterns (only matching entries: "*.json" reads one folder, "runs/**/*.json" recurses) or - for stdin',
    )
    .option('--json', 'print one JSON report on stdout instead of the table')
    .option(
      '--artifact-root <dir>',
      "verify each bundle's transcript and artifacts (artifact://native/P is read as <dir>/P) by size and sha256, as ingest --artifact-root does: a file that differs makes the bundle invalid, one absent is unverified (default: only an eval-session artifact's bundle files, beside it)",
    )
    .addOption(
      new Option(
        '--max-bytes <size>',
        'refuse bundles larger than this (bytes, or with KiB/MiB suffix; at most 512 MiB)',
      )
        .default(64 * 1024 * 1024, '64 MiB')
        .argParser(byteSize),
    )
    .addHelpText(
      'after',
      [
        '',
        'Exit codes: 0 every bundle is valid · 1 at least one is invalid · 2 usage error (a missing --artifact-root) or an unreadable input (takes precedence over 1).',
        '',
        'Examples:',
        '  $ evals validate fixtures/attempts/valid',
        '  $ evals validate runs/ --json | jq \'.files[] | select(.status != "valid")\'',
        '  $ evals validate runs/attempt-1.json --artifact-root runs/artifacts   # and the files it references',
        '  $ cat attempt.json | evals validate -',
        '  $ evals validate out/attempt-1.json   # an eval-session artifact, and the bundle beside it',
      ].join('\n'),
    )
    .action(
      act(
        async (inputs: string[], flags: { json?: true; maxBytes: number; artifactRoot?: string }) => {
          const { runValidate } = await import('./commands/validate.js');
          return runValidate({
            inputs,
            json: flags.json === true,
            maxBytes: flags.maxBytes,
            ...(flags.artifactRoot === undefined ? {} : { artifactRoot: flags.artifactRoot }),
          });
        },
        { json: VALIDATE_REPORT_V1 },
      ),
    );

  program
    .command('ingest')
    .summary('ingest attempt bundles into an Evalbook store (append-only, idempotent)')
    .description(
      [
        'Stream paperclip-runner/native-execution/v1 attempt bundles, or paperclip-runner/eval-session-artifact/v1',
        'artifacts (the bundle they reference is read from beside them and verified by digest; an infrastructure',
        'failure is stored as such, retryable or not, never as a behaviour failure or a pass), into an Evalbook',
        'ledger: each is parsed with the contract parser (dispatched on its schema), converted (identity, canonical digest, terminal, failure, tool calls and',
        'denials, transcript completeness, usage, cost in nanodollars with its provenance, score rows) and',
        'written in batched transactions. The same bundle again is skipped and counted; the same attempt',
        'identity with a different digest is a conflict that overwrites nothing. Invalid bundles are',
        'reported with every issue and never written. With --artifact-root, transcript and artifact sha256',
        'are checked where the files exist (verified / unverified / mismatched, or refused unread: a `..`, a',
        'symbolic link, not a regular file, unreadable; a mismatch or refusal is an error), and the summary',
        'says how many attempts were each, refusals by reason. A new SQLite store is created only when there is',
        'something to write (a failed ingest leaves none behind).',
        "With --env, an attempt that is not of the environment's suite (a case or config it does not list,",
        'or a case/config digest that differs from its own) is an error and nothing of the run is written,',
        'unless --keep-foreign stores such attempts apart. On a terminal a progress line shows count, rate and ETA.',
      ].join(' '),
    )
    .argument(
      '<inputs...>',
      'bundle files, directories (searched recursively for *.json files; symlinks inside are not followed), quoted glob patterns (only matching entries: "*.json" reads one folder, "runs/**/*.json" recurses) or - for stdin',
    )
    .option(
      '--store <url>',
      "the store: sqlite:PATH or postgres://… (default: the environment file's store, else sqlite:.evalbook/evalbook.sqlite). A new SQLite file is created only in a folder that exists (a typo must not start a second ledger); only the default's .evalbook/ folder is made",
    )
    .option('--env <file>', 'the Evalbook environment (evalbook.yaml or .json): cases, configs, pricing')
    .option(
      '--runnerd-sha256 <digest>',
      "the runnerd digest qualification verified: an attempt that names another binary (a bundle's runner.binary.sha256, an artifact's runnerd.sha256) is invalid (runnerd_not_qualified) and never stored",
    )
    .option(
      '--artifact-root <dir>',
      'resolve artifact://native/<path> references under this directory and verify them (it must exist); never outside it: a `..` segment or any symbolic link under it is refused (artifact_uri_outside_root, artifact_symlink_refused) and the file is never read',
    )
    .addOption(
      needs(
        new Option(
          '--keep-foreign',
          'with --env: store attempts that are not of its suite apart, marked foreign with the reason, instead of refusing the run (reports, grids, comparisons and gates leave them out unless --include-foreign)',
        ),
        '--env',
        "an attempt is foreign only against an environment's cases and configs, so without one nothing would be kept apart and every attempt would be stored as an ordinary one",
      ),
    )
    .option('--json', 'print one JSON report on stdout instead of the summary')
    .addHelpText(
      'after',
      [
        '',
        'Case checks: a check with `type` and `spec` in the environment is evaluated by the checks engine over each attempt as it is ingested. Model checks (llm_judge, embedding) use the provider in EVALS_ENGINE_PROVIDER_BASE_URL / _API_KEY, EVALS_ENGINE_JUDGE_MODEL, EVALS_ENGINE_EMBEDDING_MODEL (as `evals engine`); without one they are stored not_evaluated, never a pass.',
        '',
        'Credentials: pass a PostgreSQL password in PGPASSWORD or a PGPASSFILE (and PGHOST, PGPORT, PGUSER, PGDATABASE for postgres:///db), not in the URL; PGSERVICE is not supported and is refused. No output or error shows a password (postgres://user:***@host/db).',
        '',
        `Exit codes: 0 only inserted or duplicate attempts (foreign ones kept apart included) · 1 a conflict, an invalid bundle, or an attempt not of the environment's suite without --keep-foreign (then nothing is written) · 2 usage error (a missing --artifact-root), unusable store or environment, an unreadable input, or a valid bundle the store refused to write (reported as 'not stored'; every other bundle is written) (takes precedence over 1) · ${EXIT.interrupted}/${EXIT.terminated} stopped by SIGINT/SIGTERM: stderr says how many attempts are stored (each whole); the same command run again continues.`,
        '',
        'Examples:',
        '  $ evals ingest runs/2026-11-30 --env evalbook.yaml',
        '  $ evals ingest attempt.json --store sqlite:books/nightly.sqlite --artifact-root runs/artifacts   # books/ must exist',
        '  $ evals ingest "runs/2026-11-*/**/*.json" --store postgres://evals@db/evalbook',
        '  $ evals ingest runs --json | jq ".conflicts"',
        '  $ evals ingest other-suite/ --env evalbook.yaml --keep-foreign   # stored apart, reports leave them out',
        '  $ evals ingest runs/artifact.json --runnerd-sha256 sha256:…   # an eval-session artifact and its bundle',
        '  $ cat attempt.json | evals ingest -',
      ].join('\n'),
    )
    .action(
      act(
        async (
          inputs: string[],
          flags: {
            store?: string;
            env?: string;
            artifactRoot?: string;
            keepForeign?: true;
            json?: true;
            runnerdSha256?: string;
          },
        ) => {
          const { runIngest } = await import('./commands/ingest.js');
          return runIngest({
            inputs,
            json: flags.json === true,
            ...(flags.store === undefined ? {} : { store: flags.store }),
            ...(flags.env === undefined ? {} : { env: flags.env }),
            ...(flags.artifactRoot === undefined ? {} : { artifactRoot: flags.artifactRoot }),
            ...(flags.runnerdSha256 === undefined ? {} : { runnerdSha256: flags.runnerdSha256 }),
            keepForeign: flags.keepForeign === true,
          });
        },
        { json: INGEST_REPORT_V1 },
      ),
    );

  program
    .command('report')
    .summary('report the Evalbook as JSON, Markdown, JUnit XML, CSV or one self-contained HTML page')
    .description(
      [
        'Report what the Evalbook holds, in one streaming pass over the store. Every attempt gets an honest',
        'status (solved, unsolved, errored, incomplete, over_budget, with the reason: a missing verdict is',
        'never a pass), and every rate states its denominator. json: every attempt (identity, statuses,',
        'cost with provenance) plus the summary (grid with Wilson intervals, pass@k, per-config rates with',
        'a case-clustered bootstrap interval, trend across runs, flaky cells, cost coverage) and budget',
        'checks. md: a pull-request comment, every id and message escaped to read as itself (no HTML,',
        'link, @mention or #ref: docs/reports.md). junit: one testcase per (case, config), failures and',
        'errors distinct. Every grid (md, junit, html) shows the newest run first, each cell with its trend',
        'since its previous run, and every verdict, per-config rate and gate beside it follows the same run',
        '(--all-runs: every run pooled; json has both and says which in gridView and view).',
        'html: one page with the grid, drill-down to any attempt (its replay), the',
        'comparison and plots; a text past 500 characters shows its head and a "show all" button. csv:',
        'one row per attempt for a spreadsheet (RFC 4180, cost in exact USD, empty and "unpriced" when',
        "unknown; a field that would start a formula gets a leading ', control characters are written as",
        '\\u001b).',
        "With --attempt ID: instead, one attempt's replay as its own self-contained HTML page (the case's",
        "prompt, the turns with the agent's text, every tool call with its input, result, outcome code",
        'and denial, the terminal state and proposed result, checks, usage, cost with provenance,',
        'timing, artifact verification; "recording missing" with the reason when there is nothing to',
        'replay): docs/reports.md#attempt-replay.',
      ].join(' '),
    )
    .addOption(
      new Option('--format <format>', 'the report format')
        .choices(['json', 'md', 'html', 'junit', 'csv'])
        .default('json'),
    )
    .option(
      '--out <file>',
      'write the report to this file instead of stdout: a file atomically (never half-written); - or /dev/stdout to stdout; /dev/null, a FIFO or another character device in place; a directory, socket, block device, missing folder or empty path is refused (exit 2)',
    )
    .option(
      '--run <runId>',
      'only this run in the grid, per-config rates, verdict and gates (default: the newest run, in run order); check drift judges this run against the runs ingested before it (with --attempt: the run of the attempt, needed when its id is in several runs)',
    )
    .addOption(
      new Option(
        '--attempt <attemptId>',
        "write this attempt's replay page (HTML) instead of the report; with --run when the id is in several runs",
      ).conflicts(['a', 'b', 'aRun', 'bRun', 'failOn', 'includeForeign', 'htmlUrl', 'allRuns']),
    )
    .addOption(
      needs(
        new Option(
          '--case <caseId>',
          "with --attempt: the attempt's case, needed when its id is under several cases",
        ),
        '--attempt',
        'it picks the attempt whose replay page is written',
      ),
    )
    .addOption(
      needs(
        new Option(
          '--config <configId>',
          "with --attempt: the attempt's config, needed when its id is under several configs",
        ),
        '--attempt',
        'it picks the attempt whose replay page is written',
      ),
    )
    .addOption(allRunsOption())
    .option('--a <config>', 'compare two configs over their shared cases: the baseline…')
    .option('--b <config>', '…and the candidate')
    .option('--a-run <runId>', 'or compare two runs: the baseline run…')
    .option('--b-run <runId>', '…and the candidate run')
    .addOption(failOnOption())
    .option(
      '--html-url <url>',
      'with --format md: where the HTML report of the same evalbook is published (an http: or https: URL, no user or password); the Markdown links it under its verdict line',
    )
    .addOption(storeOption())
    .addOption(includeForeignOption())
    .option('--env <file>', 'the Evalbook environment (budgets, denominator policy, title, store)')
    .addHelpText(
      'after',
      [
        '',
        GATES_HELP,
        '',
        'Exit codes: 0 written (and every gate held) · 1 a --fail-on gate failed (every verdict on stderr) · 2 usage error (a repeated option, a gate that needs --a/--b without them, an --attempt id the store lacks or holds under several run/case/config keys without the --run, --case or --config that picks one), no such store, an unusable environment, or an --out that cannot be written.',
        '',
        'Examples:',
        '  $ evals report --format html --out report.html',
        '  $ evals report --format md --a baseline --b candidate > comment.md',
        '  $ evals report --format md --html-url https://ci.example/runs/42/report.html --out comment.md',
        '  $ evals report --format junit --out junit.xml --fail-on below:0.8',
        '  $ evals report --format md --all-runs > comment.md        # the grid pooled over every run',
        '  $ evals report --format csv --run nightly-42 --out attempts.csv   # one row per attempt',
        '  $ evals report --format md --run nightly-42 --fail-on drift    # judge one run against earlier runs',
        '  $ evals report --a baseline --b candidate --fail-on regression --fail-on case-regression:50',
        '  $ evals report --store sqlite:book.sqlite | jq ".summary.configStats"',
        "  $ evals report --attempt attempt_0007 --run nightly-42 --out attempt_0007.html   # one attempt's replay",
        '  $ evals report --attempt attempt_0007 --run nightly-42 --case case_a --config baseline --out a.html',
      ].join('\n'),
    )
    .action(
      act(
        async (
          flags: ReportFlags & {
            format: ReportFormat;
            out?: string;
            attempt?: string;
            case?: string;
            config?: string;
            htmlUrl?: string;
            allRuns?: true;
          },
          command: Command,
        ) => {
          if (flags.attempt !== undefined) {
            const { runAttemptPage } = await import('./commands/report.js');
            // --format defaults to json; given, with --attempt, it can only be html.
            if (command.getOptionValueSource('format') === 'cli' && flags.format !== 'html')
              throw usageError(
                `--attempt writes one attempt's replay page, which is HTML: --format ${flags.format} cannot go with it (leave --format out, or give --format html)`,
                {
                  code: 'options_conflict',
                  component: '--format',
                  expected: 'no --format, or --format html, with --attempt',
                  received: `--format ${flags.format} with --attempt`,
                },
              );
            return runAttemptPage({
              attemptId: flags.attempt,
              ...(flags.store === undefined ? {} : { store: flags.store }),
              ...(flags.env === undefined ? {} : { env: flags.env }),
              ...(flags.run === undefined ? {} : { run: flags.run }),
              ...(flags.case === undefined ? {} : { caseId: flags.case }),
              ...(flags.config === undefined ? {} : { configId: flags.config }),
              ...(flags.out === undefined ? {} : { out: flags.out }),
            });
          }
          const { runReport } = await import('./commands/report.js');
          const compare = compareSpec(flags, false);
          return runReport({
            ...storeFlags(flags),
            format: flags.format,
            ...(flags.out === undefined ? {} : { out: flags.out }),
            ...(flags.htmlUrl === undefined ? {} : { htmlUrl: flags.htmlUrl }),
            ...(compare === undefined ? {} : { compare }),
            failOn: flags.failOn ?? [],
            gridView: flags.allRuns === true ? 'all_runs' : 'newest_run',
          });
        },
      ),
    );

  program
    .command('grid')
    .summary("cases × configs: the newest run's solved/counted per cell with its trend (--all-runs pools)")
    .description(
      "Print the grid: one row per case, one column per config. By default the newest run (in run order: when its first attempt started), each cell that run's solved/counted with its Wilson 95% interval and its trend since the cell's previous run with attempts (↑ up, ↓ down, = same, new), so a collapse in the newest run is never hidden by a pooled green cell; --all-runs pools every run instead, --run one run. The header says which. Coloured on a terminal (green ≥ 80%, yellow ≥ 50%, red below), ~ marks a flaky cell (solved and unsolved attempts in one run). The denominator policy and what it excluded are printed under the table.",
    )
    .option('--run <runId>', 'only this run (each cell with its trend since the runs before it)')
    .addOption(allRunsOption())
    .addOption(storeOption())
    .addOption(includeForeignOption())
    .option('--env <file>', 'the Evalbook environment (denominator policy, store)')
    .option(
      '--json',
      'print the grid as JSON: both grids (latestGrid, each cell with its trend; grid, every run pooled), gridRuns and view',
    )
    .addHelpText(
      'after',
      '\nExit codes: 0 printed · 2 usage error (--all-runs with --run), a --run the store does not hold, no such store or an unusable environment (with --json, a failure is one {schema, exitCode, error} object on stdout).\n\nExamples:\n  $ evals grid                          # the newest run, each cell with its trend\n  $ evals grid --all-runs               # every run pooled\n  $ evals grid --run nightly-2026-11-30',
    )
    .action(
      act(
        async (flags: ReportFlags & { json?: true; allRuns?: true }) => {
          const { runGrid } = await import('./commands/report.js');
          return runGrid({
            ...storeFlags(flags),
            json: flags.json === true,
            allRuns: flags.allRuns === true,
          });
        },
        { json: GRID_REPORT_V1 },
      ),
    );

  program
    .command('compare')
    .summary('is B better than A? A paired comparison over shared cases, regressions first')
    .description(
      [
        'Compare two configs (--a, --b; within the newest run, or --run, or every run pooled with --all-runs)',
        'or two runs (--a-run, --b-run) over the cases',
        'both have: wins, losses and ties per case, the exact McNemar p-value on cases whose majority',
        'outcome differs, the difference in solve rate with a paired-bootstrap 95% interval, and the cost',
        'per attempt with its coverage. Regressions are listed first.',
      ].join(' '),
    )
    .option('--a <config>', 'the baseline config')
    .option('--b <config>', 'the candidate config')
    .option('--a-run <runId>', 'or the baseline run')
    .option('--b-run <runId>', 'and the candidate run')
    .addOption(
      needs(
        new Option('--run <runId>', 'with --a/--b: compare the configs within this run only'),
        '--a',
        'it scopes a comparison of configs (--a/--b) to one run; runs compared with --a-run/--b-run are named already',
      ),
    )
    .addOption(
      needs(
        new Option(
          '--all-runs',
          'with --a/--b: compare the configs over every run pooled (the header says all runs) instead of within the newest run; not with --run',
        ).conflicts('run'),
        '--a',
        'it pools the runs a comparison of configs (--a/--b) reads; runs compared with --a-run/--b-run are named already',
      ),
    )
    .addOption(storeOption())
    .addOption(includeForeignOption())
    .option('--env <file>', 'the Evalbook environment (denominator policy, store)')
    .addOption(failOnOption())
    .option(
      '--json',
      'print the comparison as JSON (mcnemarP, deltaSolveRate, deltaSolveRateCi95, aWins, bWins, ties, sharedCases, regressions with solved/counted per side, …, and gate: every --fail-on verdict)',
    )
    .addHelpText(
      'after',
      [
        '',
        GATES_HELP,
        '',
        'Exit codes: 0 printed (and every gate held) · 1 a --fail-on gate failed (every verdict on stderr) · 2 usage error (one of a pair, both pairs, a gate that needs a comparison), a config or run the store does not hold, no such store or an unusable environment (with --json, a failure is one {schema, exitCode, error} object on stdout).',
        '',
        'Examples:',
        '  $ evals compare --a baseline --b candidate',
        '  $ evals compare --a-run nightly-1129 --b-run nightly-1130 --json | jq .deltaSolveRateCi95',
        '  $ evals compare --a baseline --b candidate --fail-on regression --fail-on case-regression:50',
      ].join('\n'),
    )
    .action(
      act(
        async (flags: ReportFlags & { json?: true; allRuns?: true }) => {
          const { runCompare } = await import('./commands/report.js');
          const compare = compareSpec(flags, true);
          if (compare === undefined) throw noComparison();
          return runCompare({
            ...storeFlags(flags),
            compare,
            json: flags.json === true,
            failOn: flags.failOn ?? [],
            view: flags.allRuns === true ? 'all_runs' : 'newest_run',
          });
        },
        { json: COMPARE_REPORT_V1 },
      ),
    );

  program
    .command('init')
    .summary('write a commented starter Evalbook environment (evalbook.yaml)')
    .description(
      'Write a starter Evalbook environment: cases, configs, a versioned pricing table, budgets and report settings, each commented, ready to edit. It loads as is, and `evals run` runs it as is against the reference runner release this repository builds (its deterministic stand-in provider, paperclip_deterministic, and its model paperclip-deterministic-1, priced in the table); its comments say what to change for a real release (provider, models, prices, cases, digests). An existing file is never overwritten. - or /dev/stdout writes it to stdout, a FIFO in place; a directory or a missing folder is refused.',
    )
    .argument('[file]', 'where to write it', 'evalbook.yaml')
    .addHelpText(
      'after',
      '\nExit codes: 0 written · 2 the file exists, its folder is missing, or it cannot be written.\n\nExamples:\n  $ evals init\n  $ evals run --release-dir RELEASE --env evalbook.yaml --campaign first-1 --out campaign.json\n  $ evals init suites/nightly.yaml\n  $ evals init - | less',
    )
    .action(
      act(async (file: string) => {
        const { runInit } = await import('./commands/init.js');
        return runInit({ path: file });
      }),
    );

  program
    .command('digest')
    .summary('print sha256 digests of files, or of the canonical form of the JSON inside them')
    .description(
      'Print the sha256 digest of each file as Evals computes it: of its bytes (like sha256sum, with the sha256: prefix), or with --canonical of the RFC 8785 canonical form of the document it holds — the digest a package build metadata names for its semantic catalog, and the sha256 an environment lists for a case or config definition. A .yaml/.yml file is read as the environment loader reads YAML (strict: unique keys, no custom tags), so a definition in YAML and the same one in JSON have one digest.',
    )
    .argument('<files...>', 'files to digest')
    .option(
      '--canonical',
      'digest the RFC 8785 canonical form of the JSON (or, for .yaml/.yml, strict YAML) in each file',
    )
    .option('--json', 'print the digests as JSON')
    .addHelpText(
      'after',
      [
        '',
        'Exit codes: 0 every file digested · 2 a file unreadable or (with --canonical) not strict JSON / YAML: each such file is one coded line on stderr (with --json under failed), every other file is still digested and printed (as sha256sum does).',
        '',
        'Examples:',
        '  $ evals digest --canonical cases/incident-summary.yaml   # the sha256 to list for that case in evalbook.yaml',
        '  $ evals digest paperclip-runnerd',
      ].join('\n'),
    )
    .action(
      act(
        async (files: string[], flags: { canonical?: true; json?: true }) => {
          const { runDigest } = await import('./commands/digest.js');
          return runDigest({ files, canonical: flags.canonical === true, json: flags.json === true });
        },
        { json: DIGEST_V1 },
      ),
    );

  const runnerd = program.command('runnerd').description('work with paperclip-runnerd executables');
  runnerd
    .command('inspect')
    .summary('verify a runnerd executable by path and sha256, and print its build metadata')
    .description(
      [
        'Verify one paperclip-runnerd executable: the exact path given (never a PATH search; symlinks are',
        'refused), its sha256 digest, then the build metadata it prints for --build-metadata — run from a',
        'private copy of the verified bytes, with no shell, an empty environment, a timeout and an output cap.',
        'Nothing is copied before its digest matched.',
      ].join(' '),
    )
    .requiredOption(
      '--path <file>',
      'the runnerd executable (absolute, or relative to the working directory)',
    )
    .requiredOption('--sha256 <digest>', 'its expected digest: sha256: followed by 64 lowercase hex digits')
    .addOption(timeoutOption())
    .option('--json', 'print the verified artifact as JSON')
    .addHelpText(
      'after',
      [
        '',
        `Exit codes: 0 verified · 2 usage · 4 artifact invalid (path, digest or metadata; a file over ${DEFAULT_MAX_EXECUTABLE_BYTES / 1024 / 1024} MiB is file_too_large, never copied) · ${EXIT.interrupted}/${EXIT.terminated} stopped by SIGINT/SIGTERM (its children killed, its private copies removed first)`,
        '',
        'Examples:',
        '  $ evals runnerd inspect --path release/paperclip-runnerd-linux-x64 --sha256 "sha256:$(sha256sum release/paperclip-runnerd-linux-x64 | cut -c1-64)"',
        '  $ evals runnerd inspect --path ./paperclip-runnerd --sha256 sha256:<64 hex> --json | jq .buildMetadata',
      ].join('\n'),
    )
    .action(
      act(
        async (flags: { path: string; sha256: string; timeoutMs: number; json?: true }) => {
          const { runRunnerdInspect } = await import('./commands/negotiate.js');
          return runRunnerdInspect({ ...flags, json: flags.json === true });
        },
        {
          json: (error, exitCode) =>
            contractFailureJson(error) ?? failureJson(RUNNERD_INSPECT_V1, exitCode, error),
        },
      ),
    );

  program
    .command('negotiate')
    .summary('negotiate a runner release against consumer requirements, across all six dimensions')
    .description(
      [
        'Check the whole join before any eval runs: package version, runnerd binary, PRP version range,',
        'semantic catalog (version and RFC 8785 canonical digest), harness driver (contract, negotiated',
        'PRP version, required capabilities) and native output. Prints the receipt, or every mismatch at once.',
      ].join(' '),
    )
    .requiredOption(
      '--package-metadata <file>',
      "the package's build metadata (paperclip-runner/build-metadata/v1)",
    )
    .requiredOption(
      '--requirements <file>',
      'consumer requirements (paperclip-evals/consumer-requirements/v1)',
    )
    .requiredOption(
      '--catalog <file>',
      'the semantic catalog the consumer holds (JSON with a numeric version)',
    )
    .requiredOption('--runnerd <file>', 'the runnerd executable')
    .requiredOption('--runnerd-sha256 <digest>', 'its expected sha256 digest')
    .addOption(timeoutOption())
    .option('--json', 'print the receipt or the issues as JSON')
    .addHelpText(
      'after',
      [
        '',
        `Exit codes: 0 compatible · 2 usage, an unreadable input or an invalid input document (build metadata, requirements or catalog that is not strict JSON or not of its schema; every issue listed) · 3 incompatible (every mismatch listed) · 4 runnerd artifact invalid · ${EXIT.interrupted}/${EXIT.terminated} stopped by SIGINT/SIGTERM (its children killed, its private copies removed first)`,
        '',
        'Examples:',
        '  $ evals negotiate --package-metadata examples/negotiate/build-metadata.json \\',
        '      --requirements examples/negotiate/requirements.json --catalog examples/negotiate/semantic-catalog.json \\',
        '      --runnerd release/paperclip-runnerd-linux-x64 --runnerd-sha256 sha256:<64 hex>',
        '  $ evals negotiate … --json | jq ".issues[].code"   # every mismatch, by code',
      ].join('\n'),
    )
    .action(
      act(
        async (flags: {
          packageMetadata: string;
          requirements: string;
          catalog: string;
          runnerd: string;
          runnerdSha256: string;
          timeoutMs: number;
          json?: true;
        }) => {
          const { runNegotiate } = await import('./commands/negotiate.js');
          return runNegotiate({ ...flags, json: flags.json === true });
        },
        {
          json: (error, exitCode) => contractFailureJson(error) ?? failureJson(NEGOTIATE_V1, exitCode, error),
        },
      ),
    );

  program
    .command('qualify')
    .summary('qualify a runner release directory before anyone trusts it')
    .description(
      [
        `Qualify one release directory, which holds ${releaseFilesText()} and nothing else:`,
        'verify every digest (nothing is extracted, installed or run before its digest matched), extract the tarball safely,',
        'install it offline into an isolated consumer, probe its entry points, check its build metadata,',
        'semantic catalog, seeded fixture and driver conformance, resolve runnerd (release builds only) and',
        "negotiate with Evals' own consumer requirements. Every check runs and every failure is listed.",
      ].join(' '),
    )
    .requiredOption('--release-dir <dir>', 'the release directory')
    .option(
      '--out <file>',
      'also write the evals-qualification/v1 record to this file (atomically; outside the release directory); - or /dev/stdout: the record is stdout (the table goes to stderr); a FIFO or a character device in place; a directory, socket, missing folder or empty path is refused before any work',
    )
    .option('--json', 'print the record as JSON instead of the table')
    .addHelpText(
      'after',
      [
        '',
        `Exit codes: 0 qualified · 1 refused (every reason listed) · 2 usage (bad flags, no release directory, an --out that cannot be written) · ${EXIT.interrupted}/${EXIT.terminated} stopped by SIGINT/SIGTERM (its children killed, its work directory removed first)`,
        '',
        'The release is untrusted: the tarball is read once, only up to its end-of-archive marker (zero',
        'padding after it, nothing else), its symlinks are resolved as the file system will and must stay in',
        'package/, and the package runs only in the probe, under node --frozen-intrinsics, whose report must',
        'carry a nonce the package never sees. Work files live in one private folder under $TMPDIR, removed',
        'on every outcome; SIGINT or SIGTERM kills the running step and removes it too, then says so on stderr',
        '("evals: interrupted (SIGINT): … cleaned up") and exits 130 / 143. On a terminal (not with --json) a',
        'progress line on stderr names the check running and a line per check appears as it is decided',
        '(the table after, when stdout is that terminal too, leaves out the lines already shown: the verdict,',
        "the failed checks' issues, the counts); elsewhere nothing but the record is printed.",
        '',
        'Examples:',
        '  $ evals qualify --release-dir dist/release --out qualification.json',
        '  $ evals qualify --release-dir dist/release --json | jq ".checks[] | select(.status != \\"pass\\")"',
      ].join('\n'),
    )
    .action(
      act(
        async (flags: { releaseDir: string; out?: string; json?: true }) => {
          const { runQualify } = await import('./commands/qualify.js');
          return runQualify({
            releaseDir: flags.releaseDir,
            ...(flags.out === undefined ? {} : { out: flags.out }),
            json: flags.json === true,
          });
        },
        { json: QUALIFY_V1 },
      ),
    );

  addEngineCommands(program);
  addPolicyCommands(program);
  addLedgerCommands(program);
  addCampaignCommands(program);
  addPublishCommands(program);
  // Last, so that it covers every option of every command: none is silently overwritten, and none
  // that needs another is accepted without it.
  applyOptionRules(program);
  codeUsageErrors(program);
  return program;
}

interface ReportFlags {
  store?: string;
  env?: string;
  run?: string;
  a?: string;
  b?: string;
  aRun?: string;
  bRun?: string;
  failOn?: FailOn[];
  includeForeign?: true;
}

function storeOption(): Option {
  return new Option(
    '--store <url>',
    `the store: sqlite:PATH or postgres://… (default: the environment file's store, else ${DEFAULT_STORE_TEXT})`,
  );
}

function storeFlags(flags: ReportFlags): {
  store?: string;
  env?: string;
  run?: string;
  includeForeign: boolean;
} {
  return {
    includeForeign: flags.includeForeign === true,
    ...(flags.store === undefined ? {} : { store: flags.store }),
    ...(flags.env === undefined ? {} : { env: flags.env }),
    ...(flags.run === undefined ? {} : { run: flags.run }),
  };
}

/** --all-runs on grid and report: pool every run in scope instead of showing the newest run; not with --run. */
function allRunsOption(): Option {
  return new Option(
    '--all-runs',
    "pool every run into each cell, per-config rate, verdict and gate (the header says all runs) instead of the newest run's, each cell with its trend; not with --run, which names one run",
  ).conflicts('run');
}

function includeForeignOption(): Option {
  return new Option(
    '--include-foreign',
    "count foreign attempts like any other: those kept apart at ingest (--keep-foreign), and with --env those whose case or config it does not list or lists under another digest (judged by ingest's rule, however they were ingested); without it they are left out and counted as left out (retracted attempts are left out always)",
  );
}

/** --a/--b (configs) or --a-run/--b-run (runs), both halves of one pair; undefined when none given. */
function compareSpec(
  flags: ReportFlags,
  required: boolean,
): { by: 'config' | 'run'; a: string; b: string } | undefined {
  const configs = flags.a !== undefined || flags.b !== undefined;
  const runs = flags.aRun !== undefined || flags.bRun !== undefined;
  if (configs && runs) {
    const message =
      'compare configs (--a, --b) or runs (--a-run, --b-run), not both: leave one pair out (nothing was done)';
    throw new UsageError(message, {
      issues: [
        {
          code: 'option_pairs_conflict',
          component: '--a/--b, --a-run/--b-run',
          expected: 'one pair',
          received: 'both pairs',
          message,
        },
      ],
    });
  }
  const pairedConfigs = optionPair(
    { flag: '--a', value: flags.a, takes: '<config>' },
    { flag: '--b', value: flags.b, takes: '<config>' },
    { why: 'the baseline config and the candidate', distinct: 'a config compared with itself always ties' },
  );
  if (pairedConfigs !== undefined) return { by: 'config', a: pairedConfigs[0], b: pairedConfigs[1] };
  const pairedRuns = optionPair(
    { flag: '--a-run', value: flags.aRun, takes: '<runId>' },
    { flag: '--b-run', value: flags.bRun, takes: '<runId>' },
    { why: 'the baseline run and the candidate', distinct: 'a run compared with itself always ties' },
  );
  if (pairedRuns !== undefined) return { by: 'run', a: pairedRuns[0], b: pairedRuns[1] };
  if (required) throw noComparison();
  return undefined;
}

function noComparison(): UsageError {
  const message =
    'nothing to compare: name two configs (--a baseline --b candidate) or two runs (--a-run R1 --b-run R2)';
  return new UsageError(message, {
    issues: [
      {
        code: 'option_pair_incomplete',
        component: '--a/--b',
        expected: '--a and --b, or --a-run and --b-run',
        received: 'neither',
        message,
      },
    ],
  });
}

const GATES_HELP = [
  'Gates (--fail-on, repeatable: every gate must hold, and each verdict is reported):',
  '  regression            the 95% interval of B − A lies below 0 (needs --a/--b or --a-run/--b-run)',
  "  case-regression:PTS   a shared case's solve rate fell by PTS points or more from A to B, PTS in (0, 100],",
  '                        e.g. case-regression:50 (needs the comparison too; a pooled Δ of 0 cannot hide it)',
  '  drift                 a check scored below its drift bar in the newest run',
  '  below:RATE            a config of the newest run solves less than RATE (0 to 1), e.g. below:0.8;',
  '                        exactly RATE holds; a config the newest run has no attempt of is not judged',
  'Every gate judges what the grid shows: the newest run by default (so --fail-on below:0.8 in CI gates',
  'the run CI just made, never a pool of older runs), --run R that run, --all-runs every run pooled; a',
  'comparison of configs (--a/--b) pairs the same runs. Each verdict says what it judged.',
  'A gate with nothing to judge fails.',
  '',
  'Every option but --fail-on is given once: repeating one is a usage error (exit 2), never a silent last-one-wins.',
].join('\n');

function failOnOption(): Option {
  return repeatable(
    new Option(
      '--fail-on <gate>',
      'exit 1 when a gate fails: regression, case-regression:PTS, drift or below:RATE (see Gates below); repeatable, every gate must hold',
    ).argParser((value: string, previous: FailOn[] | undefined) => [...(previous ?? []), failOnGate(value)]),
  );
}

function failOnGate(value: string): FailOn {
  if (value === 'regression') return { kind: 'regression' };
  if (value === 'drift') return { kind: 'drift' };
  const below = /^below:(0(?:\.\d+)?|1(?:\.0+)?)$/.exec(value);
  if (below !== null) return { kind: 'below', rate: Number(below[1]) };
  const caseRegression = /^case-regression:(\d+(?:\.\d+)?)$/.exec(value);
  const points = Number(caseRegression?.[1]);
  if (caseRegression !== null && points > 0 && points <= 100) return { kind: 'case-regression', points };
  throw new InvalidArgumentError(
    `expected regression, case-regression:PTS with PTS above 0 and at most 100 (like case-regression:50), drift, or below:RATE with RATE from 0 to 1 (like below:0.8); received ${JSON.stringify(value)}`,
  );
}

function timeoutOption(): Option {
  return new Option('--timeout-ms <ms>', 'how long runnerd may take to print its build metadata')
    .default(5000)
    .argParser(positiveInteger);
}

/** The largest --max-bytes: V8 cannot hold a longer string, so a larger bundle could never be parsed. */
const MAX_BUNDLE_BYTES_LIMIT = 512 * 1024 * 1024;
const SIZE_UNITS: Record<string, number> = {
  '': 1,
  b: 1,
  kib: 1024,
  mib: 1024 ** 2,
  kb: 1000,
  mb: 1000 ** 2,
};

function byteSize(value: string): number {
  const match = /^(\d+)\s*([a-z]*)$/i.exec(value.trim());
  const unit = SIZE_UNITS[(match?.[2] ?? '').toLowerCase()];
  const bytes = match === null || unit === undefined ? Number.NaN : Number(match[1]) * unit;
  if (!Number.isSafeInteger(bytes) || bytes <= 0 || bytes > MAX_BUNDLE_BYTES_LIMIT) {
    throw new InvalidArgumentError(
      `expected a size from 1 byte to 512 MiB, like 1048576 or 64MiB; received ${JSON.stringify(value)}`,
    );
  }
  return bytes;
}

// The JSON the commands print, as types: each is the one definition its writer builds, and each has
// a JSON Schema under schemas/evals/ (docs/reports.md lists command → schema). `report --format json`
// is evalbook's JsonReport, the qualification record qualification's QualificationRecord.
export type { DigestReport } from './commands/digest.js';
export type { PlanReport } from './commands/campaign.js';
export type { CampaignRecord } from '@paperclip-evals/campaign';
export type { FailureReport } from './exit-codes.js';
export type { IngestReport } from './commands/ingest.js';
export type { RetractionReport, RunsReport } from './commands/ledger.js';
export type { ContractFailureReport } from './exit-codes.js';
export type { NegotiateReport, RunnerdInspectReport } from './commands/negotiate.js';
export type { PolicyReplayCall, PolicyReplayReport, StoredCounts } from './commands/policy.js';
export type { CompareReport, GridReport } from './commands/report.js';
export type { ValidateFileReport, ValidateReport } from './commands/validate.js';
export type { JsonReport } from '@paperclip-evals/evalbook';
export type { QualificationRecord } from '@paperclip-evals/qualification';
