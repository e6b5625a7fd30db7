// The documented exit codes of every `evals` command, and the one place they are decided: what a
// command came to (its Outcome) and every coded error a command can end with map to an exit code
// here, and nowhere else (run.ts's act() applies them; a test keeps commands from setting one).
import { CommanderError } from 'commander';
import { isAppError } from '@paperclip-evals/app';
import { CodedError, isContractError, jsonText, maskSecrets, maskSecretsIn } from '@paperclip-evals/contract';
import {
  NOT_REGULAR_ADVICE,
  SIGNAL_EXIT_CODES,
  fileSystemText,
  fileSystemWhat,
  isFileSystemError,
  notRegularKindOf,
} from '@paperclip-evals/node';

import { processSecrets } from './print.js';

import type { AppErrorCode } from '@paperclip-evals/app';
import type { CampaignErrorCode } from '@paperclip-evals/campaign';
import type { ChecksErrorCode } from '@paperclip-evals/checks';
import type { ContractErrorCode, Issue } from '@paperclip-evals/contract';
import type { PolicyErrorCode } from '@paperclip-evals/policy';
import type { EvalbookErrorCode } from '@paperclip-evals/evalbook';

export const EXIT = {
  /** Everything checked is valid / compatible. */
  ok: 0,
  /**
   * An input was checked and refused: an invalid attempt bundle, a refused release, a failed gate —
   * and every conflict with what is already recorded (an attempt, a campaign id, a published
   * campaign, a shard's copy: nothing written). One rule: every `*_conflict` code exits 1.
   */
  invalid: 1,
  /** Bad usage, an input that could not be read or is not the document it should be, or an output path refused. */
  usage: 2,
  /** The runner release and the consumer are incompatible. */
  incompatible: 3,
  /** The runnerd executable could not be verified (path, digest or build metadata). */
  artifactInvalid: 4,
  /** A bug or an unexpected failure inside Evals. */
  internal: 70,
  /**
   * Stopped by SIGINT (128 + 2) or SIGTERM (128 + 15) while children ran: every child's process
   * group was killed and every private copy or work folder removed first (node's child-cleanup).
   * With no child running, the signal's default action gives the same code in a shell.
   */
  interrupted: SIGNAL_EXIT_CODES.SIGINT,
  terminated: SIGNAL_EXIT_CODES.SIGTERM,
} as const;

/**
 * The `evals-engine` bin (the drop-in for the Attest engine): that engine's codes where it has them
 * (cmd/attest-engine/main.go: 1 for an unknown log level and when SIGINT or SIGTERM stops it).
 */
export const ENGINE_BIN_EXIT = {
  /** Served until shutdown or the end of stdin (also --help, version, cache). */
  ok: EXIT.ok,
  /** An unknown --log-level, or stopped by SIGINT / SIGTERM. */
  stopped: 1,
  /** An argument it does not know, or an unusable ATTEST_* / EVALS_ENGINE_* setting. */
  usage: EXIT.usage,
  internal: EXIT.internal,
} as const;

/**
 * `evals policy evaluate`: the evaluate protocol's own codes (a bundle_error alone is not a row
 * error). They are the protocol's, not the other commands' meanings.
 */
export const POLICY_EVALUATE_EXIT = {
  /** No row error; also --describe, or a load check with zero rows. */
  ok: 0,
  /** At least one row error response; other rows may have succeeded. */
  rowErrors: 1,
  /** Could not start: a usage error or the reserved --listen. */
  couldNotStart: 2,
} as const;

/** `evals policy replay`. */
export const POLICY_REPLAY_EXIT = {
  /** Every call was decided. */
  ok: 0,
  /** At least one row error (reported per call as policy_error). */
  rowErrors: 1,
  /**
   * At least one verdict Evals does not know (kept whole, reported per call as
   * policy_verdict_unfamiliar): the producer owns verdict semantics, so the call is compared with
   * nothing — never read as allow, never a success.
   */
  unfamiliarVerdicts: 1,
  /**
   * With --store, a verdict the store refused (its attempt not in the ledger, or there with another
   * bundle) or kept another for (a conflict: nothing overwritten) — ingest's `rejected`: only
   * inserted verdicts and duplicates are a success.
   */
  rejected: EXIT.invalid,
  /** Bad usage, an input (attempts, bundle, store) that cannot be read or is not valid, or a bundle whose every artifact was skipped. */
  usage: EXIT.usage,
  /** The policy binary could not be verified (path or sha256), like runnerd's artifact. */
  binaryInvalid: EXIT.artifactInvalid,
  /** Job error: the producer broke the evaluate protocol or the job could not complete. */
  jobFailed: 5,
  /** Stopped by SIGINT / SIGTERM: the producers' groups killed and the private copy removed first. */
  interrupted: EXIT.interrupted,
  terminated: EXIT.terminated,
} as const;

/**
 * What a command came to, when it ran to its end (a failure is an error instead, mapped below):
 * each outcome is one exit code. Commands return an Outcome; act() turns it into the exit code.
 */
export const EXIT_FOR_OUTCOME = {
  /** Everything checked is valid, written, verified, compatible or qualified, and every gate held. */
  ok: EXIT.ok,
  /** validate: at least one bundle is invalid. */
  invalid: EXIT.invalid,
  /** validate: an input could not be read (it takes precedence over invalid). */
  unreadable: EXIT.usage,
  /**
   * ingest: a conflict, an invalid bundle, or an attempt not of the --env suite without
   * --keep-foreign; policy replay --store: a verdict in conflict with a stored one, or refused by
   * the store (POLICY_REPLAY_EXIT.rejected).
   */
  rejected: EXIT.invalid,
  /** ingest: an input could not be read, or the store refused a valid bundle (every other one written). */
  not_stored: EXIT.usage,
  /** qualify: the release is refused (the record lists every reason). */
  refused: EXIT.invalid,
  /** report, compare: a --fail-on gate failed. */
  gate_failed: EXIT.invalid,
  /** negotiate: the release and the consumer are incompatible (every mismatch listed). */
  incompatible: EXIT.incompatible,
  /** policy replay: at least one row error. */
  row_errors: POLICY_REPLAY_EXIT.rowErrors,
  /** policy replay: at least one verdict Evals does not know (and no row error). */
  unfamiliar_verdicts: POLICY_REPLAY_EXIT.unfamiliarVerdicts,
  /** policy evaluate: at least one row error response. */
  evaluate_row_errors: POLICY_EVALUATE_EXIT.rowErrors,
  /** policy evaluate: could not start (the reserved --listen). */
  could_not_start: POLICY_EVALUATE_EXIT.couldNotStart,
  /** run, merge: some attempts ended in an infrastructure failure or were not run; merge: a shard is missing. */
  campaign_incomplete: EXIT.invalid,
  /** run: the first Ctrl-C stopped scheduling; running attempts finished and the record was written. */
  campaign_interrupted: EXIT.interrupted,
  /** publish --verify: the site has a defect (every one listed with its code). */
  site_refused: EXIT.invalid,
  /** evals-engine: SIGINT or SIGTERM stopped it (the Attest engine's 1). */
  engine_stopped: ENGINE_BIN_EXIT.stopped,
  /** run: SIGTERM killed the running sessions (the record was written). */
  campaign_terminated: EXIT.terminated,
} as const;

export type Outcome = keyof typeof EXIT_FOR_OUTCOME;

/** The exit code of a command that came to `outcome`. */
export function exitCodeForOutcome<O extends Outcome>(outcome: O): (typeof EXIT_FOR_OUTCOME)[O] {
  return EXIT_FOR_OUTCOME[outcome];
}

const EXIT_FOR_POLICY_ERROR: Record<PolicyErrorCode, number> = {
  paperclip_policy_bundle_invalid: POLICY_REPLAY_EXIT.usage,
  paperclip_policy_binary_invalid: POLICY_REPLAY_EXIT.binaryInvalid,
  paperclip_policy_job_failed: POLICY_REPLAY_EXIT.jobFailed,
};

const EXIT_FOR_CONTRACT_ERROR: Record<ContractErrorCode, number> = {
  paperclip_native_execution_invalid: EXIT.invalid,
  paperclip_eval_session_artifact_invalid: EXIT.invalid,
  paperclip_runner_eval_incompatible: EXIT.incompatible,
  paperclip_runnerd_artifact_invalid: EXIT.artifactInvalid,
  paperclip_contract_document_invalid: EXIT.usage,
  paperclip_canonical_json_invalid: EXIT.usage,
  paperclip_output_unwritable: EXIT.usage,
};

/** A workflow's refusal: the request or one of its inputs cannot be used. */
const EXIT_FOR_APP_ERROR: Record<AppErrorCode, number> = {
  paperclip_app_request_invalid: EXIT.usage,
  paperclip_app_input_invalid: EXIT.usage,
  /** evals publish: a campaign folder is published with other bytes (immutable): nothing changed. */
  paperclip_app_site_conflict: EXIT.invalid,
  /** evals publish --verify: the site has a defect. */
  paperclip_app_site_invalid: EXIT.invalid,
};

/**
 * The evalbook package's EvalbookError codes (checked against its type; the package itself loads
 * lazily, so they are matched by code). Commands turn the usage-like ones (ingest called wrongly, a
 * run or config the evalbook lacks, a retraction refused) into a UsageError first, which prints the
 * same exit code without the code; a cost or statistics failure that escapes its caller is a bug.
 */
const EXIT_FOR_EVALBOOK_ERROR: Record<EvalbookErrorCode, number> = {
  paperclip_evalbook_store_unusable: EXIT.usage,
  paperclip_evalbook_ingest_usage_invalid: EXIT.usage,
  paperclip_evalbook_scope_unknown: EXIT.usage,
  paperclip_evalbook_retraction_refused: EXIT.usage,
  /** A campaign id the ledger records with other content (as paperclip_campaign_record_conflict): nothing written. */
  paperclip_evalbook_campaign_conflict: EXIT.invalid,
  /** Shard stores that hold an attempt, verdict or retraction otherwise (merge --from-store): nothing written. */
  paperclip_evalbook_merge_conflict: EXIT.invalid,
  paperclip_evalbook_report_option_invalid: EXIT.usage,
  paperclip_evalbook_cost_inconsistent: EXIT.internal,
  paperclip_evalbook_cost_out_of_range: EXIT.internal,
  paperclip_evalbook_statistics_out_of_range: EXIT.internal,
};

/** `evals run` and `evals merge`. */
export const CAMPAIGN_EXIT = {
  /** Every planned attempt (of the selection or shard) has a result: passed, behaviour or grading failure. */
  ok: EXIT.ok,
  /** Some attempts ended in an infrastructure failure or were not run (budget); merge: a shard is missing. */
  incomplete: EXIT.invalid,
  /**
   * A conflict, as every conflict (EXIT.invalid): the campaign id is recorded (in --out or the
   * ledger) for another suite, release, plan or shard, or shard records or stores conflict; nothing written.
   */
  conflict: EXIT.invalid,
  /** Bad flags, a suite that makes no plan, an unreadable or invalid record. */
  usage: EXIT.usage,
  /** The release does not join (qualification, a changed digest, runnerd, negotiation): nothing started. */
  incompatible: EXIT.incompatible,
  /** Stopped by Ctrl-C (after the record is written) or SIGTERM. */
  interrupted: EXIT.interrupted,
  terminated: EXIT.terminated,
} as const;

/** What each CAMPAIGN_EXIT code means to a user of `evals run` (its --help says it, from here). */
export const CAMPAIGN_EXIT_MEANING: Record<keyof typeof CAMPAIGN_EXIT, string> = {
  ok: 'every planned attempt has a result (passed, behaviour or grading failure)',
  incomplete: 'some ended in an infrastructure failure or were not run (budget)',
  conflict:
    'a conflict: the campaign id is recorded (in --out or the ledger) for another suite, release, plan or shard (paperclip_campaign_record_conflict, nothing run)',
  usage: 'usage (bad flags, a suite that makes no plan, an invalid record, an --out that cannot be written)',
  incompatible: 'the release does not join (nothing was started)',
  interrupted: 'stopped by Ctrl-C',
  terminated: 'stopped by SIGTERM',
};

/** "Exit codes: 0 … · 1 … or … · …": each code once, in order, with every meaning it has. */
export function exitCodesLine<K extends string>(
  table: Readonly<Record<K, number>>,
  meaning: Readonly<Record<K, string>>,
): string {
  const byCode = new Map<number, string[]>();
  for (const key of Object.keys(table) as K[])
    byCode.set(table[key], [...(byCode.get(table[key]) ?? []), meaning[key]]);
  const parts = [...byCode]
    .sort(([a], [b]) => a - b)
    .map(([code, meanings]) => `${code} ${meanings.join('; or ')}`);
  return `Exit codes: ${parts.join(' · ')}`;
}

const EXIT_FOR_CAMPAIGN_ERROR: Record<CampaignErrorCode, number> = {
  paperclip_campaign_suite_invalid: CAMPAIGN_EXIT.usage,
  paperclip_campaign_release_incompatible: CAMPAIGN_EXIT.incompatible,
  paperclip_campaign_record_conflict: CAMPAIGN_EXIT.conflict,
  paperclip_campaign_record_invalid: CAMPAIGN_EXIT.usage,
};

/**
 * The checks package's ChecksError codes (checked against its type; the package itself loads
 * lazily, so they are matched by code and class name: they are the protocol's short names). Only
 * engine settings the engine cannot use reach a command on purpose (`evals engine`, `evals ingest`
 * refuse to start: 2); a wire code is answered over JSON-RPC by the engine, and every other local
 * code is handled inside the package (a spec is an invalid_spec row, a provider failure is
 * not_evaluated, a drift history failure is answered 3001), so one that escapes to a command is a bug.
 */
const EXIT_FOR_CHECKS_ERROR: Record<ChecksErrorCode, number> = {
  engine_config_invalid: EXIT.usage,
  parse_error: EXIT.internal,
  invalid_request: EXIT.internal,
  method_not_found: EXIT.internal,
  invalid_params: EXIT.internal,
  internal_error: EXIT.internal,
  invalid_trace: EXIT.internal,
  assertion_error: EXIT.internal,
  provider_error: EXIT.internal,
  engine_error: EXIT.internal,
  timeout: EXIT.internal,
  session_error: EXIT.internal,
  spec_invalid: EXIT.internal,
  trace_path_invalid: EXIT.internal,
  provider_call_auth: EXIT.internal,
  provider_call_unavailable: EXIT.internal,
  provider_call_rejected: EXIT.internal,
  drift_history_unavailable: EXIT.internal,
  request_timeout: EXIT.internal,
  engine_restarted: EXIT.internal,
  connection_closed: EXIT.internal,
  spawn_failed: EXIT.internal,
  protocol_violation: EXIT.internal,
  reply_mismatch: EXIT.internal,
};

/** The exit code of any command that ended with `error`. */
export function exitCodeFor(error: unknown): number {
  if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
  if (error instanceof UsageError || isFileSystemError(error)) return EXIT.usage;
  if (isContractError(error)) return EXIT_FOR_CONTRACT_ERROR[error.code];
  if (isAppError(error)) return EXIT_FOR_APP_ERROR[error.code];
  // E.g. a store that cannot be opened or used (corrupt, read-only for a writer, from the future, ...).
  if (isCodedError(error) && Object.hasOwn(EXIT_FOR_EVALBOOK_ERROR, error.code))
    return EXIT_FOR_EVALBOOK_ERROR[error.code as EvalbookErrorCode];
  if (isCodedError(error) && Object.hasOwn(EXIT_FOR_CAMPAIGN_ERROR, error.code))
    return EXIT_FOR_CAMPAIGN_ERROR[error.code as CampaignErrorCode];
  if (isCodedError(error) && error.name === 'ChecksError' && Object.hasOwn(EXIT_FOR_CHECKS_ERROR, error.code))
    return EXIT_FOR_CHECKS_ERROR[error.code as ChecksErrorCode];
  return EXIT.internal;
}

/** The policy package's coded error codes (checked against its type; the package itself loads lazily). */
const POLICY_ERROR_CODES = new Set<string>(Object.keys(EXIT_FOR_POLICY_ERROR));

/**
 * The exit code of `evals policy replay` that ended with `error`: the policy package's errors by
 * their code; any contract error, and anything else exitCodeFor calls usage, is an input that
 * cannot be replayed (2) — an invalid attempt bundle too, unlike `validate`'s 1; the rest as exitCodeFor.
 */
export function exitCodeForPolicyReplay(error: unknown): number {
  if (isCodedError(error) && POLICY_ERROR_CODES.has(error.code))
    return EXIT_FOR_POLICY_ERROR[error.code as PolicyErrorCode];
  if (isContractError(error)) return POLICY_REPLAY_EXIT.usage;
  return exitCodeFor(error);
}

/** A contract, evalbook, policy, app, campaign or checks error: a code and the issues behind it (each package's own error type). */
interface CodedFailure extends Error {
  readonly code: string;
  readonly issues: readonly Issue[];
}

function isCodedError(error: unknown): error is CodedFailure {
  return (
    error instanceof Error &&
    typeof (error as Partial<CodedFailure>).code === 'string' &&
    Array.isArray((error as Partial<CodedFailure>).issues)
  );
}

/**
 * One readable paragraph for stderr, as its lines (printLines renders each, so a newline or escape in
 * a received value is shown, never acted on): the message and, for a coded error, every issue with
 * what was expected and received. A message that only repeats its one issue is not said twice.
 * Secrets are masked (maskSecrets, with the process's own secrets): no error of a driver or a
 * provider echoes one.
 */
export function describeError(error: unknown): string[] {
  const secrets = processSecrets();
  return describeUnmasked(error).map((line) => maskSecrets(line, secrets));
}

/** describeError's lines with `prefix` ("evals: ") before the first. */
export function errorLines(prefix: string, error: unknown): string[] {
  const [first = '', ...rest] = describeError(error);
  return [`${prefix}${first}`, ...rest];
}

/** A file system error on a user's input as the CLI's coded error; any other error as it is. */
const coded = (error: unknown): unknown => (isFileSystemError(error) ? unreadableInput(error) : error);

/**
 * At most this many issues of one error are described on stderr, then how many more there were: a
 * file that is not YAML at all gives hundreds of follow-on parse problems, and the first ones say
 * what is wrong. Machine output (`--json`) keeps every issue.
 */
export const MAX_DESCRIBED_ISSUES = 25;

function describeUnmasked(failure: unknown): string[] {
  const error = coded(failure);
  if (isCodedError(error)) {
    const groups = alikeGroups(error.issues);
    const lines = groups
      .slice(0, MAX_DESCRIBED_ISSUES)
      .map(([first, ...alike]) =>
        alike.length === 0
          ? issueLine(first)
          : `${issueLine(first)} — and ${alike.length} more like it (the same code, place, expected and received; --json lists each)`,
      );
    const more = groups.slice(MAX_DESCRIBED_ISSUES).reduce((sum, group) => sum + group.length, 0);
    if (more > 0)
      lines.push(
        `  … and ${more} more issue${more === 1 ? '' : 's'} (${error.issues.length - more} of ${error.issues.length} shown; fix these first, or use --json where the command has it for every one)`,
      );
    const [only] = error.issues;
    const repeats = error.issues.length === 1 && only !== undefined && error.message.endsWith(only.message);
    return [repeats ? error.code : `${error.code}: ${error.message}`, ...lines];
  }
  // An internal failure: its stack, a line each (a line from input is still rendered, never acted on).
  if (error instanceof Error) return (error.stack ?? error.message).split('\n');
  return [String(error)];
}

/**
 * The issues in groups of those alike — the same code, place (path, else component), expected and
 * received, differing only in their message (a try id) — in the order each group first appears: one
 * missing shard store gives a line, not one per try of it.
 */
function alikeGroups(issues: readonly Issue[]): [Issue, ...Issue[]][] {
  const groups = new Map<string, [Issue, ...Issue[]]>();
  for (const issue of issues) {
    const key = JSON.stringify([
      issue.code,
      issue.path ?? issue.component ?? '',
      show(issue.expected ?? null),
      show(issue.received ?? null),
    ]);
    const group = groups.get(key);
    if (group === undefined) groups.set(key, [issue]);
    else group.push(issue);
  }
  return [...groups.values()];
}

/**
 * One issue as its stderr line: its code, where (path, else component) when it says, its message,
 * then what was expected and what was received — each only when the issue has it.
 */
export function issueLine(issue: Issue): string {
  const where = issue.path ?? issue.component ?? '';
  const values = [
    ...(issue.expected === undefined ? [] : [`expected ${show(issue.expected)}`]),
    ...(issue.received === undefined ? [] : [`received ${show(issue.received)}`]),
  ];
  const shown = values.length === 0 ? '' : ` (${values.join(', ')})`;
  return `  ${issue.code}${where === '' ? '' : ` at ${where}`}: ${issue.message}${shown}`;
}

/**
 * One issue as every CLI JSON output carries it (schemas/evals/cli-common-v1.schema.json#/$defs/issue):
 * the contract's Issue, and where a release's issue names them (qualification's QualificationIssue)
 * the file of the release directory and the entry inside its tarball.
 */
export interface CliIssue extends Issue {
  /** A file of the input directory (a release's `SHA256SUMS`, its tarball, …). */
  readonly file?: string;
  /** A path inside an archive (a tarball's entry). */
  readonly entry?: string;
}

/** A `file` or `entry` as the text the schema wants (a package that put anything else there: its JSON). */
const asText = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value));

/**
 * The one mapping from any package's issue to the issue a CLI JSON output prints: exactly the
 * members the schema defines (a package's own extra member never reaches stdout to break it), each
 * only when the issue has it; `file` and `entry` kept as text, what was expected and received as
 * they are.
 */
export function cliIssue(issue: Issue): CliIssue {
  const { file, entry } = issue as { readonly file?: unknown; readonly entry?: unknown };
  return {
    code: issue.code,
    message: issue.message,
    ...(issue.path === undefined ? {} : { path: issue.path }),
    ...(issue.component === undefined ? {} : { component: issue.component }),
    ...(file === undefined ? {} : { file: asText(file) }),
    ...(entry === undefined ? {} : { entry: asText(entry) }),
    ...(issue.expected === undefined ? {} : { expected: issue.expected }),
    ...(issue.received === undefined ? {} : { received: issue.received }),
  };
}

/** cliIssue over a list. */
export const cliIssues = (issues: readonly Issue[]): CliIssue[] => issues.map(cliIssue);

/** The one failure object of `--json` commands (schemas/evals/cli-failure-v1.schema.json). */
export interface FailureReport {
  /** The schema of the result the command would have printed (`paperclip-evals/grid/v1`, …). */
  readonly schema: string;
  readonly exitCode: number;
  readonly error: {
    /** The coded error's code; null for an uncoded one. */
    readonly code: string | null;
    readonly message: string;
    readonly issues: readonly CliIssue[];
  };
}

/**
 * A failure as the one JSON object a `--json` command prints on stdout instead of its result:
 * `{schema, exitCode, error: {code, message, issues}}` — the code and issues of a coded error (null
 * and none otherwise), secrets masked as describeError masks them.
 */
export function failureJson(schema: string, exitCode: number, failure: unknown): string {
  const error = coded(failure);
  const isCoded = isCodedError(error);
  const report: FailureReport = {
    schema,
    exitCode,
    error: {
      code: isCoded ? error.code : null,
      message: isCoded ? error.message : describeUnmasked(error).join('\n'),
      issues: isCoded ? cliIssues(error.issues) : [],
    },
  };
  return `${jsonText(maskSecretsIn(report, processSecrets()))}\n`;
}

/**
 * What `runnerd inspect --json` and `negotiate --json` print for a coded contract failure
 * (schemas/evals/runnerd-inspect-v1.schema.json, negotiate-v1.schema.json). These outputs carry no
 * `schema` member.
 */
export interface ContractFailureReport {
  readonly ok: false;
  readonly code: ContractErrorCode;
  readonly message: string;
  readonly issues: readonly CliIssue[];
}

/** A contract failure as ContractFailureReport's JSON text (secrets masked); undefined for any other failure. */
export function contractFailureJson(error: unknown): string | undefined {
  if (!isContractError(error)) return undefined;
  const report: ContractFailureReport = {
    ok: false,
    code: error.code,
    message: error.message,
    issues: cliIssues(error.issues),
  };
  return `${jsonText(maskSecretsIn(report, processSecrets()), 2)}\n`;
}

export function show(value: unknown): string {
  const text = typeof value === 'string' ? value : value === undefined ? 'undefined' : JSON.stringify(value);
  return text.length > 160 ? `${text.slice(0, 157)}...` : text;
}

export { isFileSystemError };

/**
 * The CLI's codes: a mistake in how the command was called (a flag missing, two that do not go
 * together, a value out of range), and an input the command could not read (a file system error
 * on a path the user named, shown with its path and errno).
 */
export type CliErrorCode = 'paperclip_cli_usage_invalid' | 'paperclip_cli_input_unreadable';

/**
 * A mistake in how the command was called (reported without a stack trace, exit 2); its message says
 * what to do, and it has at least one issue saying where (the flag), what was expected and what was
 * received — a usage error with none could not say them (usageError makes the one-issue kind).
 */
export class UsageError extends CodedError<CliErrorCode> {
  override readonly name = 'UsageError';

  constructor(
    message: string,
    options: ErrorOptions & { readonly code?: CliErrorCode; readonly issues: readonly [Issue, ...Issue[]] },
  ) {
    super(options.code ?? 'paperclip_cli_usage_invalid', message, options.issues, options);
  }
}

/** What one usage issue says beside its message: its code, where (a flag, `-`, a file), what was expected, what was received. */
export interface UsageIssue {
  readonly code: string;
  readonly component: string;
  readonly expected: unknown;
  readonly received: unknown;
}

/**
 * The usage error of one mistake: `message` (what is wrong and what to do) and its one issue with
 * where, expected and received. A received value that may be a secret is described, never given.
 */
export function usageError(message: string, issue: UsageIssue): UsageError {
  return new UsageError(message, { issues: [{ ...issue, message }] });
}

/** One half of a pair of options that go together: its flag, its value as given, what it names. */
export interface PairedOption {
  readonly flag: string;
  readonly value: string | undefined;
  /** What the option takes, as `--help` shows it: `<config>`, `<runId>`, `<sha256>`. */
  readonly takes: string;
}

/**
 * Two options that go together (`--a`/`--b`, `--a-run`/`--b-run`, a bin and its digest): both
 * given, or neither (undefined). One alone is a usage error that names the missing flag; with
 * `distinct`, the same value in both is one too (a config compared with itself always ties, so a
 * gate would hold on nothing). Each is coded, with expected/received and what to do.
 */
export function optionPair(
  first: PairedOption,
  second: PairedOption,
  rule: { readonly why: string; readonly distinct?: string },
): readonly [string, string] | undefined {
  if (first.value === undefined && second.value === undefined) return undefined;
  if (first.value === undefined || second.value === undefined) {
    const [given, missing] = first.value === undefined ? [second, first] : [first, second];
    const message = `${missing.flag} is missing: ${first.flag} and ${second.flag} go together (${rule.why}); add ${missing.flag} ${missing.takes} or leave ${given.flag} out (nothing was done)`;
    throw new UsageError(message, {
      issues: [
        {
          code: 'option_pair_incomplete',
          component: missing.flag,
          expected: `${missing.flag} ${missing.takes} beside ${given.flag}`,
          received: `only ${given.flag} ${JSON.stringify(given.value)}`,
          message,
        },
      ],
    });
  }
  if (rule.distinct !== undefined && first.value === second.value) {
    const message = `${first.flag} and ${second.flag} both name ${JSON.stringify(first.value)}: ${rule.distinct}; name two different ones (nothing was done)`;
    throw new UsageError(message, {
      issues: [
        {
          code: 'option_pair_same',
          component: `${first.flag}/${second.flag}`,
          expected: `two different values for ${first.flag} and ${second.flag}`,
          received: `${JSON.stringify(first.value)} twice`,
          message,
        },
      ],
    });
  }
  return [first.value, second.value];
}

/**
 * A file system error on an input the user named, as the CLI's coded error: where (its path), what
 * was expected and what was received (its errno), and the message fileSystemText writes.
 */
export function unreadableInput(error: NodeJS.ErrnoException): UsageError {
  const received = error.code ?? error.syscall;
  // A reader that refused a directory, FIFO, socket or device names it: the advice fits what it found.
  const kind = notRegularKindOf(error);
  const advice =
    kind === undefined
      ? 'name a file or folder that exists and that Evals can read'
      : NOT_REGULAR_ADVICE[kind];
  const issue: Issue = {
    code: 'input_unreadable',
    message: `${fileSystemWhat(error)} (${received}): ${advice}`,
    ...(error.path === undefined ? {} : { component: error.path }),
    expected: kind === undefined ? 'a path Evals can read' : 'a regular file',
    ...(received === undefined ? {} : { received: kind ?? received }),
  };
  return new UsageError(fileSystemText(error), {
    code: 'paperclip_cli_input_unreadable',
    issues: [issue],
    cause: error,
  });
}
