// The flag tables of `evals run` and `evals merge` (commands/campaign.ts does the work).
import { Option } from 'commander';

import type { Command } from 'commander';

import { CAMPAIGN_EXIT, CAMPAIGN_EXIT_MEANING, exitCodesLine } from '../exit-codes.js';
import { repeatable } from '../options.js';
import { act } from '../run.js';

/** From the exit-code table itself, so the help and the table cannot disagree. */
const EXIT_LINE = exitCodesLine(CAMPAIGN_EXIT, CAMPAIGN_EXIT_MEANING);

/** With --json, a failure is one {schema, exitCode, error} object on stdout. */
const FAILURES = { json: 'paperclip-evals/campaign/v1' } as const;

export function addCampaignCommands(program: Command): void {
  program
    .command('run')
    .summary('run a campaign: a qualified release × a suite, every attempt into the Evalbook')
    .description(
      [
        'Run a campaign: qualify the release (or accept --qualification when every digest still matches),',
        'resolve runnerd by path and sha256 and negotiate all six dimensions — any mismatch: exit 3, every issue',
        'listed, nothing written, no session started. Then plan lanes × cases × attempts (stable attempt ids),',
        "run each through the package's paperclip-runner-eval-session (a private folder, no shell, an empty",
        'environment, a timeout from its limits, its process group killed on timeout or interrupt) at most',
        '--max-parallel at once, and ingest each artifact as it lands. Only retryable infrastructure failures',
        'are tried again (max_infrastructure_retries); no attempt starts once the spend reaches the ceiling.',
        'A rerun of the same campaign skips what the ledger holds. The record of a whole campaign that was not',
        'interrupted is also appended to the ledger (evals publish reads it there), beside its earlier records of the',
        'same plan: a campaign stopped by --max-cost-usd and resumed with a higher one publishes its newest (complete)',
        'record; the earlier one is kept. Another plan under the same --campaign id there is refused (exit 1).',
      ].join(' '),
    )
    .requiredOption('--env <file>', 'the suite: evalbook.yaml with lanes and limits (evals init shows them)')
    .requiredOption(
      '--campaign <id>',
      'the campaign id (letters, digits, . _ -; e.g. gha-123-1): it derives every attempt id',
    )
    .option(
      '--release-dir <dir>',
      'the release directory (tarball, paperclip-runnerd, SHA256SUMS); not needed with --plan',
    )
    .option(
      '--qualification <file>',
      'accept this evals-qualification/v1 record instead of qualifying again (every digest is checked)',
    )
    .option(
      '--lanes <ids>',
      'comma-separated lanes (config ids), or all: every enabled lane (default); a disabled lane runs only when named',
    )
    .option('--cases <ids>', 'comma-separated case ids, or all (default)')
    .option(
      '--max-parallel <n>',
      'eval sessions at once (default: campaign.max_parallel, else the number of cores)',
    )
    .option('--max-cost-usd <usd>', 'the cost ceiling (default: campaign.max_cost_usd; none: no ceiling)')
    .option(
      '--allow-unpriced',
      'keep scheduling after a try of unknown cost (the ceiling is then not proven)',
    )
    .option(
      '--store <url>',
      "sqlite:PATH or postgres://… (default: the environment's store, else sqlite:.evalbook/evalbook.sqlite); with PostgreSQL every shard shares the ledger and the ceiling",
    )
    .option(
      '--shard <K/N>',
      'run the K-th of N deterministic, balanced slices of the plan (a CI matrix cell); the record is a shard record for evals merge',
    )
    .option('--plan', 'print the plan and run nothing (no release needed)')
    .option(
      '--out <file>',
      'write the evals-campaign/v1 record here (atomically); checked before anything runs: a missing folder, another flag’s file, or a record of this campaign id for another suite, release or plan there is refused',
    )
    .option(
      '--work-dir <dir>',
      "where each try's request and artifact are kept (default .evalbook/campaigns/<campaign>)",
    )
    .option(
      '--eval-session-bin <file>',
      "run this eval-session bin (node script) instead of the package's; needs --eval-session-sha256",
    )
    .option('--eval-session-sha256 <digest>', 'sha256:<64 hex> of --eval-session-bin')
    .addOption(
      repeatable(
        new Option(
          '--pass-env <name>',
          "pass this variable of evals' own environment to every eval session (e.g. a live provider's API key); repeatable. The name only: its value is never printed, logged or written",
        ).argParser((value: string, previous: string[] | undefined) => [...(previous ?? []), value]),
      ),
    )
    .option('--json', 'print the record (or with --plan the plan) as JSON on stdout')
    .addHelpText(
      'after',
      [
        '',
        EXIT_LINE,
        '',
        'Environment: each eval session starts with an empty environment (nothing inherited). --pass-env NAME',
        '(repeatable) passes NAME from the environment evals runs in, for live-provider credentials: give the name,',
        'never the value (NAME is [A-Z_][A-Z0-9_]*; one that is not set is a usage error, exit 2, before anything',
        'starts). The value goes to the session only: it is masked in every message, reason and error the campaign',
        'keeps, and is in no request file, campaign record or output.',
        '',
        'Outcomes: passed · behavior_failure (scored, never rerun) · grading_evidence_failure · infrastructure_failure',
        '(its class; retried only when retryable) · not_run_budget · not_run_stopped. A try that leaves no evidence',
        "(a hang, a crash, garbage, no artifact) is still recorded: the campaign's own eval-session artifact with its",
        'class goes into the Evalbook (errored), so a rerun counts the tries made and never retries past the limit.',
        "A success artifact with no native bundle (upstream's bin writes none) is stored from the artifact alone and",
        'coded native_bundle_absent: never passed (a completed turn is a grading/evidence failure, a failed one a',
        'behaviour failure), counted, and a rerun counts it.',
        'Provider-reported and estimated cost are kept apart; an unknown cost (no figure, or an artifact whose cost',
        'coverage is unknown: accountingFailure) with a ceiling stops scheduling unless --allow-unpriced. The ceiling',
        'counts the ledger (read once; with PostgreSQL, one aggregate query before each start: every shard) and this run.',
        '',
        'Before anything runs (the join takes ~20 s): --out can be written and is not the --env, --qualification or',
        '--store file; the campaign id is not recorded (in --out or the ledger) for another suite or plan; the store can',
        'be opened where it is named. Each is refused at once, with what was expected and received.',
        '',
        'Progress goes to stderr: on a terminal one line redrawn — the phase before the first session (checking, qualifying',
        'or checking the record, installing the eval-session, reading the ledger), then done/planned, spend of ceiling',
        "(from the ledger's spend: a resumed campaign never starts at $0.00), running, failures by class, ETA and the",
        'seconds so far (a narrow terminal drops the middle parts, never the counters, the spend or the seconds); piped, in a CI',
        'log or with --json, no phase line and a plain line per finished attempt (every N-th past 100 planned). The',
        'summary says how many tries failed and lists each (lane × case #attempt, try, outcome and class, reason; 10 at',
        'most, then "and N more": the record has every one).',
        'The first Ctrl-C stops scheduling and lets running attempts finish (the record is written); a second kills them.',
        '',
        'Examples:',
        '  $ evals run --plan --env evalbook.yaml --campaign nightly-42',
        '  $ OPENAI_API_KEY=… evals run --release-dir dist/release --env evalbook.yaml --campaign live-1 --pass-env OPENAI_API_KEY',
        '  $ evals run --release-dir dist/release --env evalbook.yaml --campaign nightly-42 --out campaign.json',
        '  $ evals run --release-dir r --qualification q.json --env evalbook.yaml --campaign gha-7-1 --shard 2/4 \\',
        '      --store postgres://ci@db/evals --out shard-2.json',
        '  $ evals merge shard-*.json --out campaign.json',
        '  $ evals merge shard-*.json --out campaign.json --store sqlite:all.sqlite \\',
        '      --from-store sqlite:shard-1.sqlite --from-store sqlite:shard-2.sqlite          # SQLite shards',
        '',
        'npx -y pnpm@12.4.2 demo runs a whole campaign of the reference runner this way (README, first command).',
        'docs/campaigns.md has the whole story, and a GitHub Actions matrix workflow with its merge job.',
      ].join('\n'),
    )
    .action(
      act(
        async (flags: {
          env: string;
          campaign: string;
          releaseDir?: string;
          qualification?: string;
          lanes?: string;
          cases?: string;
          maxParallel?: string;
          maxCostUsd?: string;
          allowUnpriced?: true;
          store?: string;
          shard?: string;
          plan?: true;
          out?: string;
          workDir?: string;
          evalSessionBin?: string;
          evalSessionSha256?: string;
          passEnv?: string[];
          json?: true;
        }) => {
          const { runRun } = await import('./campaign.js');
          return runRun({
            ...flags,
            passEnv: flags.passEnv ?? [],
            plan: flags.plan === true,
            json: flags.json === true,
            allowUnpriced: flags.allowUnpriced === true,
          });
        },
        FAILURES,
      ),
    );

  program
    .command('merge')
    .summary('merge the shard records of one campaign into its campaign record')
    .description(
      [
        'Combine the shard records (evals run --shard K/N) of one campaign into one evals-campaign/v1 record.',
        'Every record must be a shard of the same campaign, suite, release and plan, each shard once (a duplicate',
        "or conflicting shard is refused, exit 1); a missing shard's attempts are infrastructure failures",
        '(ci_cell_artifact_missing) and the record is partial.',
      ].join(' '),
    )
    .argument('<records...>', 'shard record files')
    .requiredOption('--out <file>', 'where the campaign record goes (atomically)')
    .option(
      '--store <url>',
      "the ledger the merged record is appended to (evals publish reads the newest record of each campaign; a record of the campaign id for another plan there: exit 1) and, with --from-store, every shard's attempts are copied into (sqlite:PATH or postgres://…)",
    )
    .addOption(
      repeatable(
        new Option(
          '--from-store <url>',
          "a shard's own store (SQLite: each cell ingests into its own); repeatable: one per shard. Every attempt, policy verdict and retraction of the campaign in it is copied into --store",
        ).argParser((value: string, previous: string[] | undefined) => [...(previous ?? []), value]),
      ),
    )
    .option('--json', 'also print the record as JSON on stdout')
    .addHelpText(
      'after',
      [
        '',
        `Exit codes: ${CAMPAIGN_EXIT.ok} merged, every shard there · ${CAMPAIGN_EXIT.incomplete} a shard missing, some attempts without a result · ${CAMPAIGN_EXIT.conflict} a conflict: shards (records or stores) that conflict, or the --store ledger records the campaign otherwise (nothing written) · ${CAMPAIGN_EXIT.usage} an unreadable or invalid record, a --from-store that is not there, --from-store without --store`,
        '',
        'SQLite shards: each cell ingested into its own store, so give each with --from-store and the target with',
        '--store: every attempt of the campaign, its policy verdicts and its retractions (who, why, when kept) are',
        "copied, each through the ledger's own append path, in one transaction (already there alike: skipped).",
        'Before anything is written, an attempt stored with another digest, a verdict or retraction held otherwise',
        '(in two shard stores, or in the target) and a try the records say was stored that no store holds are',
        'refused, every one listed: nothing is written, the record neither. With one shared',
        'PostgreSQL ledger there is nothing to copy: give only --store (the shared ledger), and the merged record is',
        'appended to it.',
        '',
        'Examples:',
        '  $ evals merge shards/*.json --out campaign.json',
        '  $ evals merge shards/*/shard.json --out campaign.json --store sqlite:evalbook.sqlite \\',
        '      --from-store sqlite:shards/1/evalbook.sqlite --from-store sqlite:shards/2/evalbook.sqlite',
      ].join('\n'),
    )
    .action(
      act(
        async (
          records: string[],
          flags: { out: string; json?: true; store?: string; fromStore?: string[] },
        ) => {
          const { runMerge } = await import('./campaign.js');
          return runMerge({
            records,
            out: flags.out,
            json: flags.json === true,
            ...(flags.store === undefined ? {} : { store: flags.store }),
            fromStores: flags.fromStore ?? [],
          });
        },
        FAILURES,
      ),
    );
}
