// `evals policy …`: policy evaluate (the producer) and policy replay (the consumer), added to the
// command tree by program.ts. Actions lazily import their modules, like every other command.
import { InvalidArgumentError, Option } from 'commander';

import { POLICY_EVALUATE_EXIT, POLICY_REPLAY_EXIT, exitCodeForPolicyReplay } from '../exit-codes.js';
import { positiveInteger, repeatable } from '../options.js';
import { POLICY_REPLAY_REPORT_V1 } from '../output-schemas.js';
import { act } from '../run.js';

import type { Command } from 'commander';

export function addPolicyCommands(program: Command): void {
  const policy = program.command('policy').description('policy replay over the evaluate NDJSON protocol');

  policy
    .command('evaluate')
    .summary('the evaluate NDJSON protocol producer: load policy bundles and evaluate events on stdin/stdout')
    .description(
      [
        'Speak the evaluate protocol: write a handshake, then read NDJSON frames on stdin and answer each in',
        'order on stdout: a bundle header with bundle_ack (RFC 8785 digest, skipped artifacts) or bundle_error,',
        'a row with a response carrying the frozen decision and the next session state, or a row error',
        '(OL-1240..OL-1244). The caller owns session state and time (now_ms); evaluation reads no clock,',
        'network, randomness or input-named files. Stdout carries protocol frames only; diagnostics go to',
        'stderr. See docs/policy.md.',
      ].join(' '),
    )
    .option('--describe', 'write the handshake line and exit, without reading stdin')
    .addOption(
      new Option('--listen <socket>', 'reserved and unimplemented: refused with exit 2').conflicts(
        'describe',
      ),
    )
    .addHelpText(
      'after',
      [
        '',
        `Exit codes: ${POLICY_EVALUATE_EXIT.ok} no row errors (also --describe, or a load check with zero rows; a bundle_error alone is not a row error) · ${POLICY_EVALUATE_EXIT.rowErrors} at least one row error · ${POLICY_EVALUATE_EXIT.couldNotStart} could not start (usage error, --listen), or could not finish: stdout closed by its reader mid-stream (the rest of the input is not evaluated).`,
        '',
        'Examples:',
        '  $ evals policy evaluate --describe',
        `  $ printf '%s\\n' '{"type":"bundle","bundle":'"$(cat policy.json)"'}' | evals policy evaluate`,
        '  $ evals policy evaluate < frames.ndjson > replies.ndjson',
      ].join('\n'),
    )
    .action(
      act(
        async (flags: { describe?: true; listen?: string }) => {
          const { runPolicyEvaluate } = await import('./policy.js');
          return runPolicyEvaluate({
            describe: flags.describe === true,
            ...(flags.listen === undefined ? {} : { listen: flags.listen }),
          });
        },
        { prefix: 'evals policy evaluate: ' },
      ),
    );

  policy
    .command('replay')
    .summary(
      "replay attempts' tool calls through an evaluate producer and compare with the runner's outcomes",
    )
    .description(
      [
        'Replay every tool call of native-execution/v1 attempts through a binary that speaks the evaluate',
        'protocol: the binary is the explicit path given (never a PATH search; symlinks refused), verified',
        'by sha256 and run from a private copy with an empty environment. Each session is replayed in',
        'event-time order, threading state only from successful replies, across --processes producer',
        'processes. Every reply is checked; a broken producer is a job error, never an allow. Each call is',
        "then compared with the runner's recorded outcome: agree, policy_denies_runner_allowed,",
        'runner_denied_policy_allows, policy_error (a row error) or no_recorded_outcome. With --store,',
        "the attempts come from the Evalbook (or the files given) and each call's verdict is stored there",
        '(once per policy bundle digest: a replay again is skipped as duplicates) for `evals report`.',
      ].join(' '),
    )
    .argument(
      '[attempts...]',
      'attempt bundle files, directories (searched recursively for *.json files; symlinks inside are not followed), quoted glob patterns (only matching entries: "*.json" reads one folder, "runs/**/*.json" recurses) or - for stdin; optional with --store',
    )
    .requiredOption(
      '--policy-binary <file>',
      'the producer executable (absolute, or relative to the working directory)',
    )
    .requiredOption('--sha256 <digest>', 'its expected digest: sha256: followed by 64 lowercase hex digits')
    .requiredOption('--bundle <file>', 'the policy bundle (JSON) sent as the header to every producer')
    .addOption(
      repeatable(
        new Option(
          '--policy-arg <arg>',
          'an argument for the binary, repeatable (e.g. --policy-arg evaluate)',
        )
          .argParser((value: string, previous: string[]) => [...previous, value])
          .default([] as string[]),
      ),
    )
    .addOption(
      new Option('--processes <n>', `producer processes run at once (at most ${MAX_PROCESSES})`)
        .default(1)
        .argParser((value) => atMost(MAX_PROCESSES, positiveInteger(value))),
    )
    .addOption(
      new Option(
        '--sessions-per-process <n>',
        'sessions replayed at once by each producer (one row outstanding each; more keeps both sides busy)',
      )
        // The policy package's DEFAULT_SESSIONS_PER_PROCESS (not imported: commands load lazily).
        .default(256)
        .argParser(positiveInteger),
    )
    .addOption(
      new Option('--initial-state <kind>', "each session's first state_in")
        .choices(['zeroed', 'unavailable'])
        .default('zeroed'),
    )
    .addOption(
      new Option(
        '--reply-timeout-ms <ms>',
        'fail the job when a required reply takes this long (unknown frames and stderr meanwhile do not count)',
      )
        .default(60_000)
        .argParser(positiveInteger),
    )
    .option(
      '--store <url>',
      'an Evalbook (sqlite:PATH or postgres://…) to read the attempts from and store the verdicts in; it must exist',
    )
    .option('--json', 'print the replay report as JSON')
    .addHelpText(
      'after',
      [
        '',
        [
          `Exit codes: ${POLICY_REPLAY_EXIT.ok} every call decided with a verdict Evals compares (allow, deny, ask) and, with --store, every verdict inserted or a duplicate`,
          `${POLICY_REPLAY_EXIT.rowErrors} at least one row error, or a verdict Evals does not know (each decision kept whole as sent, reported per call as policy_error or policy_verdict_unfamiliar)`,
          `${POLICY_REPLAY_EXIT.rejected} with --store, a verdict in conflict with a stored one (the stored one kept) or refused by the store (its attempt not in the ledger, or there with another bundle), as ingest exits for conflicts; inserted verdicts and duplicates alone exit ${POLICY_REPLAY_EXIT.ok}`,
          `${POLICY_REPLAY_EXIT.usage} usage, unreadable or invalid input (attempts, bundle, a store that cannot be opened), or a bundle whose every artifact the producer skipped`,
          `${POLICY_REPLAY_EXIT.binaryInvalid} the policy binary is not verified (path, digest)`,
          `${POLICY_REPLAY_EXIT.jobFailed} job error: the producer broke the protocol (missing, extra, duplicate, malformed or truncated replies, wrong ids, exit mismatch, timeout, stderr flood) or rejected the bundle`,
          `${POLICY_REPLAY_EXIT.interrupted}/${POLICY_REPLAY_EXIT.terminated} stopped by SIGINT/SIGTERM (every producer's process group killed, the private copy removed first).`,
        ].join(' · '),
        '',
        'Examples:',
        '  $ evals policy replay --policy-binary ./openlatch --sha256 sha256:… --policy-arg evaluate --bundle policy.json runs/',
        '  $ evals policy replay --policy-binary ./evals-policy.sh --sha256 sha256:… --bundle policy.json attempt.json --json',
        '  $ evals policy replay --policy-binary ./evals-policy.sh --sha256 sha256:… --bundle policy.json --store sqlite:.evalbook/evalbook.sqlite',
      ].join('\n'),
    )
    .action(
      act(
        async (
          attempts: string[],
          flags: {
            policyBinary: string;
            sha256: string;
            bundle: string;
            policyArg: string[];
            processes: number;
            sessionsPerProcess: number;
            initialState: 'zeroed' | 'unavailable';
            replyTimeoutMs: number;
            store?: string;
            json?: true;
          },
        ) => {
          const { runPolicyReplay } = await import('./policy.js');
          const { store, ...rest } = flags;
          return runPolicyReplay({
            ...rest,
            attempts,
            json: flags.json === true,
            ...(store === undefined ? {} : { store }),
          });
        },
        {
          prefix: 'evals policy replay: ',
          exitCodeOf: exitCodeForPolicyReplay,
          json: POLICY_REPLAY_REPORT_V1,
        },
      ),
    );
}

/** More producers than this is a typo, not a machine: each is a process with its own memory. */
const MAX_PROCESSES = 1024;

function atMost(limit: number, value: number): number {
  if (value > limit) throw new InvalidArgumentError(`expected at most ${limit}, received ${value}`);
  return value;
}
