// `evals run` and `evals merge`: thin faces over @paperclip-evals/campaign. `run` makes the plan
// (with --plan: prints it and stops), holds the join, runs the plan (or one shard) with a progress
// line on a terminal (the phases before the first session too: the join takes a while), prints a
// summary (or, with --json, the evals-campaign/v1 record) that lists every try that failed, and
// writes the record to --out. The first Ctrl-C stops scheduling (running attempts finish, the record is
// still written, exit 130); a second, or SIGTERM, kills the running sessions' process groups.
// `merge` combines shard records into one campaign record.

import { displayLocator, isSha256Digest } from '@paperclip-evals/contract';
import { isShardMissing } from '@paperclip-evals/campaign';
import { displayUsd } from '@paperclip-evals/evalbook';

import type {
  AttemptOutcome,
  CampaignPhase,
  CampaignPlan,
  CampaignProgress,
  CampaignRecord,
  Shard,
} from '@paperclip-evals/campaign';
import type { CampaignRecordOutcome } from '@paperclip-evals/evalbook';

import { optionPair, usageError } from '../exit-codes.js';
import { fileInput, refuseOutputsOverInputs, storeInput } from '../outputs-apart.js';
import { clearProgress, drawProgress, isTerminal, painted, printJson, printLines } from '../print.js';

import type { Outcome } from '../exit-codes.js';
import type { Line } from '../print.js';
import type { ProgressLine } from '../progress.js';

export const CAMPAIGN_PLAN_V1 = 'paperclip-evals/campaign-plan/v1';

export interface RunCommandOptions {
  readonly releaseDir?: string;
  readonly qualification?: string;
  readonly env: string;
  readonly campaign: string;
  readonly lanes?: string;
  readonly cases?: string;
  readonly maxParallel?: string;
  readonly maxCostUsd?: string;
  readonly store?: string;
  readonly shard?: string;
  readonly plan: boolean;
  readonly json: boolean;
  readonly out?: string;
  readonly workDir?: string;
  readonly allowUnpriced: boolean;
  readonly evalSessionBin?: string;
  readonly evalSessionSha256?: string;
  /** Names of variables of this process's environment to pass to every eval session (--pass-env). */
  readonly passEnv: readonly string[];
}

/** What --pass-env takes: an environment variable's name (never a value). */
const ENV_NAME = /^[A-Z_][A-Z0-9_]*$/;

/**
 * The eval sessions' environment from --pass-env names: each a variable's name, each set here. A
 * refusal names the flag's argument (a name), never a value.
 */
export function passedEnvironment(
  names: readonly string[],
  from: NodeJS.ProcessEnv = process.env,
): Record<string, string> {
  // A refused argument is never echoed: it may be a value given by mistake (a key pasted in).
  const bad = names.flatMap((name, index) => (ENV_NAME.test(name) ? [] : [index + 1]));
  if (bad.length > 0)
    throw usageError(
      `--pass-env takes a variable's name ([A-Z_][A-Z0-9_]*, e.g. OPENAI_API_KEY), never its value: received --pass-env argument ${bad.map((at) => `#${at}`).join(', #')}, not such a name (not shown: it may be a value). Give the name; evals reads the value from its own environment`,
      {
        code: 'option_value_invalid',
        component: '--pass-env',
        expected: "a variable's name ([A-Z_][A-Z0-9_]*)",
        received: `--pass-env argument ${bad.map((at) => `#${at}`).join(', #')} (not shown: it may be a value)`,
      },
    );
  const unset = names.filter((name) => from[name] === undefined);
  if (unset.length > 0)
    throw usageError(
      `--pass-env ${unset.join(', ')}: not set in the environment evals runs in (set ${unset.length === 1 ? 'it' : 'them'}, or drop the flag)`,
      {
        code: 'environment_variable_unset',
        component: '--pass-env',
        expected: `${unset.join(', ')} set in the environment of evals`,
        received: 'not set',
      },
    );
  return Object.fromEntries(names.map((name) => [name, from[name] as string]));
}

/** `evals run --plan --json` (schemas/evals/campaign-plan-v1.schema.json). */
export interface PlanReport {
  readonly schema: typeof CAMPAIGN_PLAN_V1;
  readonly campaignId: string;
  readonly suiteFingerprint: string;
  readonly lanes: CampaignPlan['lanes'];
  readonly lanesLeftOut: readonly string[];
  readonly cases: readonly string[];
  readonly settings: CampaignPlan['settings'];
  readonly shardCount: number;
  readonly shard: Shard | null;
  /** The attempts this invocation would run (the shard's, or all). */
  readonly attempts: CampaignPlan['attempts'];
}

const list = (text: string | undefined): 'all' | string[] | undefined =>
  text === undefined ? undefined : text === 'all' ? 'all' : text.split(',').map((item) => item.trim());

function positiveInteger(flag: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  if (!/^[1-9][0-9]{0,3}$/.test(text))
    throw usageError(`${flag} takes a whole number from 1 to 9999`, {
      code: 'option_value_invalid',
      component: flag,
      expected: 'a whole number from 1 to 9999',
      received: text,
    });
  return Number(text);
}

function usd(flag: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  if (!/^[0-9]+(\.[0-9]{1,9})?$/.test(text))
    throw usageError(`${flag} takes an amount in USD (e.g. 12.50)`, {
      code: 'option_value_invalid',
      component: flag,
      expected: 'an amount in USD, at most 9 decimals (e.g. 12.50)',
      received: text,
    });
  // A ceiling of $0 runs nothing (no attempt starts once the spend reaches it), yet would record a
  // campaign under its id: refused before the join, as the environment's max_cost_usd is.
  if (Number(text) === 0)
    throw usageError(
      `${flag} 0 would run nothing (no attempt starts once the spend reaches the ceiling): leave ${flag} out for no ceiling, or give the most the campaign may spend (e.g. 5)`,
      {
        code: 'option_value_invalid',
        component: flag,
        expected: 'an amount in USD above 0 (leave the flag out for no ceiling)',
        received: text,
      },
    );
  return Number(text);
}

/**
 * --out against the other paths of the run, before anything runs (node's one rule, through
 * refuseOutputsOverInputs): the record never replaces the suite, the qualification record, the
 * SQLite store it names or that store's -wal/-shm/-journal files, through a symlink or a hard link
 * neither (a usage error naming both flags).
 */
export async function assertOutApart(options: RunCommandOptions): Promise<void> {
  if (options.out === undefined) return;
  await refuseOutputsOverInputs(
    [{ flag: '--out', path: options.out }],
    [
      ...fileInput('--env', options.env),
      ...fileInput('--qualification', options.qualification),
      ...storeInput('--store', options.store),
    ],
  );
}

/** What a run is doing before its first session, as its terminal line says it. */
const PHASE_TEXT: Record<CampaignPhase, string> = {
  preflight: 'checking --out, the store and the campaign id',
  qualify:
    'qualifying the release (digests, an isolated offline install, conformance, runnerd, negotiation, its eval-session)',
  accept_qualification: 'checking the qualification record against the release, runnerd and negotiation',
  install_eval_session: "installing the release's paperclip-runner-eval-session offline",
  ledger: 'reading the ledger (what is already there, the spend so far)',
};

/** The phase line of a terminal, redrawn every second until the first attempt's progress replaces it. */
export function phaseLine(campaignId: string, phase: CampaignPhase, since: number): ProgressLine {
  return {
    label: campaignId,
    parts: [PHASE_TEXT[phase], `${Math.round((performance.now() - since) / 1000)}s`],
    clock: true,
  };
}

export async function runRun(options: RunCommandOptions): Promise<Outcome> {
  const campaign = await import('@paperclip-evals/campaign');
  const shard = options.shard === undefined ? undefined : campaign.parseShard(options.shard);
  const maxCostUsd = usd('--max-cost-usd', options.maxCostUsd);
  const maxParallel = positiveInteger('--max-parallel', options.maxParallel);
  const lanes = list(options.lanes);
  const cases = list(options.cases);
  optionPair(
    { flag: '--eval-session-bin', value: options.evalSessionBin, takes: '<file>' },
    { flag: '--eval-session-sha256', value: options.evalSessionSha256, takes: '<digest>' },
    { why: 'the bin is verified by its digest' },
  );
  // Every flag is checked before any I/O (the release is qualified, the store opened only after).
  if (options.evalSessionSha256 !== undefined && !isSha256Digest(options.evalSessionSha256))
    throw usageError(
      `--eval-session-sha256 ${JSON.stringify(options.evalSessionSha256)} is not a digest: expected sha256: followed by 64 lowercase hex digits (evals digest FILE prints it); nothing was run`,
      {
        code: 'option_value_invalid',
        component: '--eval-session-sha256',
        expected: 'sha256: followed by 64 lowercase hex digits',
        received: options.evalSessionSha256,
      },
    );
  const sessionEnv = passedEnvironment(options.passEnv);
  if (options.plan && options.out !== undefined)
    throw usageError(
      '--plan prints the plan and runs nothing: --out has no record to write (drop --out, or drop --plan to run the campaign)',
      {
        code: 'options_conflict',
        component: '--out',
        expected: '--plan without --out',
        received: '--plan and --out',
      },
    );
  await assertOutApart(options);
  const common = {
    environmentPath: options.env,
    releaseDir: options.releaseDir ?? '',
    campaignId: options.campaign,
    ...(lanes === undefined ? {} : { lanes }),
    ...(cases === undefined ? {} : { cases }),
    ...(shard === undefined ? {} : { shard }),
    ...(maxCostUsd === undefined ? {} : { maxCostUsd }),
  };
  if (options.plan) {
    const plan = await campaign.planFromFiles(common);
    const attempts = campaign.shardAttempts(plan, shard ?? null);
    if (options.json) {
      const report: PlanReport = {
        schema: CAMPAIGN_PLAN_V1,
        campaignId: plan.campaignId,
        suiteFingerprint: plan.suiteFingerprint,
        lanes: plan.lanes,
        lanesLeftOut: plan.lanesLeftOut,
        cases: plan.cases,
        settings: plan.settings,
        shardCount: plan.shardCount,
        shard: shard ?? null,
        attempts,
      };
      printJson(report);
    } else printLines('stdout', planLines(plan, shard ?? null, attempts.length));
    return 'ok';
  }
  if (options.releaseDir === undefined)
    throw usageError(
      'evals run needs --release-dir DIR (or --plan to only print the plan); nothing was run',
      {
        code: 'required_option_missing',
        component: '--release-dir',
        expected: '--release-dir DIR, or --plan',
        received: 'neither',
      },
    );

  const stop = new AbortController();
  const kill = new AbortController();
  const received: { signal: NodeJS.Signals | null } = { signal: null };
  const onSigint = (): void => {
    if (!stop.signal.aborted) {
      received.signal = 'SIGINT';
      stop.abort();
      printLines('stderr', [
        'evals: stopping: no new attempt starts; running ones finish (Ctrl-C again to kill them)',
      ]);
    } else kill.abort();
  };
  const onSigterm = (): void => {
    received.signal = 'SIGTERM';
    stop.abort();
    kill.abort();
  };
  process.on('SIGINT', onSigint);
  process.on('SIGTERM', onSigterm);
  const tty = isTerminal('stderr');
  const started = performance.now();
  // On a terminal (not with --json) the phases before the first session are shown, ticking.
  const phases = { current: null as CampaignPhase | null, timer: undefined as NodeJS.Timeout | undefined };
  const stopPhases = (): void => {
    clearInterval(phases.timer);
    phases.timer = undefined;
    phases.current = null;
  };
  const onPhase =
    tty && !options.json
      ? (phase: CampaignPhase): void => {
          phases.current = phase;
          drawProgress(phaseLine(options.campaign, phase, started));
          phases.timer ??= setInterval(() => {
            if (phases.current !== null) drawProgress(phaseLine(options.campaign, phases.current, started));
          }, 1000).unref();
        }
      : undefined;
  let record: CampaignRecord;
  try {
    record = await campaign.runCampaign({
      ...common,
      ...(options.qualification === undefined ? {} : { qualificationRecord: options.qualification }),
      ...(options.store === undefined ? {} : { storeUrl: options.store }),
      ...(maxParallel === undefined ? {} : { maxParallel }),
      ...(options.workDir === undefined ? {} : { workDir: options.workDir }),
      ...(options.out === undefined ? {} : { out: options.out }),
      ...(options.evalSessionBin === undefined || options.evalSessionSha256 === undefined
        ? {}
        : { evalSessionBin: { path: options.evalSessionBin, sha256: options.evalSessionSha256 } }),
      allowUnpriced: options.allowUnpriced,
      ...(options.passEnv.length === 0 ? {} : { sessionEnv }),
      stop: stop.signal,
      kill: kill.signal,
      ...(onPhase === undefined ? {} : { onPhase }),
      onLedgerRecord: (outcome) => {
        printLines('stderr', [ledgerRecordLine(options.campaign, outcome)]);
      },
      onJoined: (joined) => {
        printLines('stderr', [
          `evals: the release joins (${joined.qualifiedBy}): ${joined.packageName} ${joined.packageVersion}, runnerd ${joined.runnerdSha256}`,
        ]);
      },
      // A terminal redraws one progress line; a pipe or log gets a plain line per finished attempt
      // (every N-th on a large campaign), so whoever reads it still sees the campaign move.
      ...(tty
        ? {
            onProgress: (progress: CampaignProgress) => {
              stopPhases();
              drawProgress(progressLine(options.campaign, progress, started));
            },
          }
        : {
            onAttempt: (outcome: AttemptOutcome, progress: CampaignProgress) => {
              if (
                progress.done % attemptLineEvery(progress.planned) === 0 ||
                progress.done === progress.planned
              )
                printLines('stderr', [attemptLine(options.campaign, outcome, progress, started)]);
            },
          }),
    });
  } finally {
    stopPhases();
    process.off('SIGINT', onSigint);
    process.off('SIGTERM', onSigterm);
    clearProgress();
  }
  if (options.out !== undefined) printLines('stderr', [`evals: campaign record written to ${options.out}`]);
  if (options.json) printJson(record);
  else printLines('stdout', recordLines(record));
  if (received.signal !== null)
    return received.signal === 'SIGINT' ? 'campaign_interrupted' : 'campaign_terminated';
  return record.totals.infrastructureFailures + record.totals.notRunBudget + record.totals.notRunStopped > 0
    ? 'campaign_incomplete'
    : 'ok';
}

export interface MergeCommandOptions {
  readonly records: readonly string[];
  readonly out: string;
  readonly json: boolean;
  /** Where the merged record is appended (evals publish reads it) and, with fromStores, every shard store's attempts copied. */
  readonly store?: string;
  readonly fromStores: readonly string[];
}

export async function runMerge(options: MergeCommandOptions): Promise<Outcome> {
  if (options.store === undefined && options.fromStores.length > 0)
    throw usageError(
      '--from-store needs --store: the store the shards’ attempts are copied into (add --store URL, or drop --from-store); nothing was written',
      {
        code: 'option_without_companion',
        component: '--from-store',
        expected: '--from-store with --store',
        received: '--from-store alone',
      },
    );
  // The same shard store named twice says so at once (it would read as a shard missing from every store).
  const repeated = options.fromStores.find((store, index) => options.fromStores.indexOf(store) !== index);
  if (repeated !== undefined)
    throw usageError(
      `--from-store ${displayLocator(repeated)} is given twice: name each shard's store once (one per shard); nothing was written`,
      {
        code: 'repeated_option',
        component: '--from-store',
        expected: 'each shard store once',
        received: `${displayLocator(repeated)} twice`,
      },
    );
  await refuseOutputsOverInputs(
    [{ flag: '--out', path: options.out }],
    [
      ...options.records.map((path) => ({ flag: '<records...>', path })),
      ...storeInput('--store', options.store),
      ...options.fromStores.flatMap((store) => storeInput('--from-store', store)),
    ],
  );
  const campaign = await import('@paperclip-evals/campaign');
  const shards = [];
  for (const path of options.records) shards.push({ path, record: await campaign.readCampaignRecord(path) });
  const record = campaign.mergeCampaignRecords(shards);
  // Every refusal that can be known before a write is checked before the first one: --out holding
  // another record of the campaign id, the ledger recording the id for another plan. Then "nothing
  // was written" is true of every refusal; a write that fails after another one says what holds.
  await campaign.assertRecordable(options.out, record);
  if (options.store !== undefined) await campaign.assertLedgerRecordable(options.store, record);
  let stored: CampaignRecordOutcome | null = null;
  // The attempts first: a store merge that does not hold writes nothing, the record neither.
  if (options.store !== undefined && options.fromStores.length > 0) {
    const merged = await campaign.mergeShardStores({ record, from: options.fromStores, to: options.store });
    stored = merged.record;
    printLines('stderr', [
      `evals: copied the campaign's attempts of ${merged.perStore.length} shard store(s) into ${displayStore(options.store)}: ${merged.inserted} inserted, ${merged.duplicates} already there (${merged.perStore.map((entry) => `${displayStore(entry.store)}: ${entry.attempts}`).join(', ')}); policy verdicts: ${merged.policyVerdicts.inserted} inserted, ${merged.policyVerdicts.duplicates} already there; retractions: ${merged.retractions.inserted} inserted, ${merged.retractions.duplicates} already there; campaign records: ${merged.campaignRecords.inserted} inserted, ${merged.campaignRecords.duplicates} already there; try starts: ${merged.tryStarts.inserted} inserted, ${merged.tryStarts.duplicates} already there${merged.tryStarts.unsettled === 0 ? '' : ` (${merged.tryStarts.unsettled} never settled: unknown spend)`}`,
    ]);
  }
  await afterWrites(
    campaign.writeCampaignRecord(options.out, record),
    stored === null || options.store === undefined
      ? null
      : `${displayStore(options.store)} holds the copied attempts and the merged record; ${options.out} was not written`,
  );
  printLines('stderr', [
    `evals: merged ${shards.length} shard record(s) of ${record.shardCount} into ${options.out}`,
  ]);
  // With --from-store the merged record went in with the copy (one transaction); else it goes in now.
  if (options.store !== undefined)
    printLines('stderr', [
      ledgerRecordLine(
        record.campaignId,
        stored ??
          (await afterWrites(
            campaign.storeCampaignRecord(options.store, record),
            `${options.out} was written; the ledger ${displayStore(options.store)} holds nothing of this merge`,
          )),
      ),
    ]);
  if (options.json) printJson(record);
  else printLines('stdout', recordLines(record));
  return record.partial.includes('shard_missing') ||
    record.totals.infrastructureFailures + record.totals.notRunBudget > 0
    ? 'campaign_incomplete'
    : 'ok';
}

/**
 * A write that fails after earlier writes held: its error says what those wrote (`done`), so no
 * message claims "nothing was written" when something was.
 */
async function afterWrites<T>(write: Promise<T>, done: string | null): Promise<T> {
  try {
    return await write;
  } catch (error) {
    if (done !== null && error instanceof Error)
      error.message = `${error.message.replace(/nothing (was|is) written/g, 'nothing more was written')}; written before it: ${done}`;
    throw error;
  }
}

/** What became of the campaign's record in the ledger, as a person reads it. */
export function ledgerRecordLine(campaignId: string, outcome: CampaignRecordOutcome): string {
  return outcome === 'revised'
    ? `evals: campaign ${campaignId} recorded in the ledger beside its earlier record(s) of the same plan: this newest one is its current state (the earlier ones are kept)`
    : outcome === 'duplicate'
      ? `evals: campaign ${campaignId}: the ledger already holds this very record (nothing written)`
      : `evals: campaign ${campaignId} recorded in the ledger`;
}

/** A store URL as printed: never with a password. */
const displayStore = (url: string): string => displayLocator(url);

/**
 * A sum of known figures as a person reads it, with how many of `of` figures it sums: `none (0 of 8
 * tries)` when no figure is known — an unknown cost is never shown as $0.00.
 */
function knownSum(nanodollars: number, known: number | undefined, of: number): string {
  if (known === undefined) return `${displayUsd(nanodollars)} (tries not counted: an older record)`;
  return known === 0 ? `none (0 of ${of} tries)` : `${displayUsd(nanodollars)} (${known} of ${of} tries)`;
}

/**
 * The record's cost line: what the budget counted (each try's provider-reported figure, else its
 * estimate — one figure per try, so not a sum of the two), then each kind apart with its count.
 */
function costLine(cost: CampaignRecord['cost']): string {
  const of = cost.coverage.priced + cost.coverage.unpriced;
  const observed =
    cost.coverage.priced === 0
      ? `observed: none (0 of ${of} tries priced)`
      : `observed ${displayUsd(cost.observedNanodollars)} (${cost.coverage.priced} of ${of} tries priced, ${displayUsd(cost.retryObservedNanodollars)} on retries; per try its provider-reported figure, else its estimate)`;
  const legacy =
    cost.legacyLedgerTries === undefined || cost.legacyLedgerTries === 0
      ? ''
      : ` · legacy ledger (unverified): ${knownSum(cost.legacyLedgerNanodollars, cost.legacyLedgerTries, of)}`;
  const ceiling = cost.ceilingNanodollars === null ? '' : ` · ceiling ${displayUsd(cost.ceilingNanodollars)}`;
  return `${observed} · provider-reported: ${knownSum(cost.providerReportedNanodollars, cost.providerReportedTries, of)} · estimated: ${knownSum(cost.estimatedNanodollars, cost.estimatedTries, of)}${legacy} (each kind apart, never added to another)${ceiling}`;
}

/** Money a person reads: displayUsd's precision (the --json record keeps the exact nanodollars). */
const dollars = (nanodollars: number | null): string =>
  nanodollars === null ? 'none' : displayUsd(nanodollars);

/** The spend both progress lines show: the observed figure, the ceiling, the tries of unknown cost. */
function spendText(progress: CampaignProgress): string {
  const ceiling = progress.ceilingNanodollars === null ? '' : ` of ${dollars(progress.ceilingNanodollars)}`;
  // Of them, the ledger's tries started and never settled (a killed run's): said, since they are no
  // artifact's unpriced usage but sessions whose spend nobody recorded.
  const unsettled = progress.unsettledTries > 0 ? `, ${progress.unsettledTries} of them never settled` : '';
  const unknown =
    progress.unknownCostTries > 0 ? ` (+${progress.unknownCostTries} unpriced${unsettled})` : '';
  return `spend ${dollars(progress.observedNanodollars)}${ceiling}${unknown}`;
}

/**
 * The run's terminal line, its parts most important first (a narrow terminal drops the last before
 * the clock, which it keeps): "c: 1/3 done · stopping (…) · spend $0.01 of $1.00 · 1 running ·
 * failed: none · ETA 4s · 2s" — the counters and the spend before what says less.
 */
export function progressLine(campaignId: string, progress: CampaignProgress, started: number): ProgressLine {
  const failed = Object.entries(progress.failuresByClass)
    .map(([name, count]) => `${count} ${name}`)
    .join(', ');
  const elapsed = Math.round((performance.now() - started) / 1000);
  return {
    label: campaignId,
    parts: [
      `${progress.done}/${progress.planned} done`,
      ...(progress.stopped === null ? [] : [`stopping (${progress.stopped})`]),
      spendText(progress),
      `${progress.running} running`,
      `failed: ${failed === '' ? 'none' : failed}`,
      ...(progress.etaMs === null ? [] : [`ETA ${Math.ceil(progress.etaMs / 1000)}s`]),
      `${elapsed}s`,
    ],
    clock: true,
  };
}

/** Off a terminal: a line for every attempt up to 100 planned, else for about every 1%. */
export function attemptLineEvery(planned: number): number {
  return Math.max(1, Math.ceil(planned / 100));
}

export function attemptLine(
  campaignId: string,
  outcome: AttemptOutcome,
  progress: CampaignProgress,
  started: number,
): string {
  const width = String(progress.planned).length;
  const what =
    outcome.infrastructureFailure === null
      ? outcome.disposition
      : `${outcome.disposition} (${outcome.infrastructureFailure.class})`;
  const tries = outcome.tries.length > 1 ? ` after ${outcome.tries.length} tries` : '';
  const elapsed = Math.round((performance.now() - started) / 1000);
  return `${campaignId}: [${String(progress.done).padStart(width)}/${progress.planned}] ${outcome.laneId} × ${outcome.caseId} #${outcome.index}: ${what}${outcome.resumed ? ' (already in the ledger)' : tries} · ${spendText(progress)} · ${elapsed}s`;
}

function planLines(plan: CampaignPlan, shard: Shard | null, count: number): Line[] {
  return [
    `campaign ${plan.campaignId}: ${count} attempt(s)${shard === null ? '' : ` in shard ${shard.index}/${shard.count} (of ${plan.attempts.length})`} — ${plan.lanes.length} lane(s) × ${plan.cases.length} case(s) × ${plan.settings.attempts}`,
    `  suite ${plan.suiteFingerprint}`,
    ...plan.lanes.map(
      (lane) =>
        `  lane ${lane.id}: ${lane.provider} ${lane.model}${lane.driver === null ? '' : ` (${lane.driver})`}${lane.enabled ? '' : ' [disabled, named]'}${lane.profile === undefined ? '' : ` · ${lane.profile.label} (${lane.profile.sha256.slice(0, 19)})`} · turn ${lane.limits.turnTimeoutMs} ms, ≤ ${lane.limits.maxAgentTurns} turns, ≤ ${dollars(lane.limits.maxEstimatedCostNanodollars)}`,
    ),
    ...(plan.lanesLeftOut.length === 0 ? [] : [`  left out: ${plan.lanesLeftOut.join(', ')}`]),
    `  retries: up to ${plan.settings.maxInfrastructureRetries} per attempt (retryable infrastructure failures only) · ceiling ${dollars(plan.settings.maxCostNanodollars)}`,
    'nothing was run (--plan)',
  ];
}

/** The summary lists at most this many failed tries, then "and N more". */
export const FAILED_TRIES_SHOWN = 10;

/** One failed or errored try as the summary lists it. */
export interface FailedTry {
  readonly laneId: string;
  readonly caseId: string;
  readonly index: number;
  /** Its try number in this run's tries; null for an attempt the ledger already held (resumed). */
  readonly tryNumber: number | null;
  readonly disposition: string;
  /** The infrastructure failure's class, else null. */
  readonly failureClass: string | null;
  readonly reason: string | null;
}

/**
 * Every try of the record that did not pass, in plan order: each try that ended in an
 * infrastructure failure (a retried one too), the try a behaviour or grading/evidence failure — or
 * an infrastructure failure its bundle records — is of,
 * and an attempt the ledger already held with such a result. Attempts not run (budget, stopped) made
 * no try: the totals count them.
 */
export function failedTries(record: CampaignRecord): FailedTry[] {
  const failed: FailedTry[] = [];
  for (const attempt of record.attempts) {
    const where = { laneId: attempt.laneId, caseId: attempt.caseId, index: attempt.index };
    if (attempt.resumed) {
      if (attempt.disposition !== 'passed')
        failed.push({
          ...where,
          tryNumber: null,
          disposition: attempt.disposition,
          failureClass: attempt.infrastructureFailure?.class ?? null,
          reason: attempt.reason,
        });
      continue;
    }
    attempt.tries.forEach((entry, at) => {
      const last = at === attempt.tries.length - 1;
      if (entry.infrastructureFailure !== null && !(last && attempt.disposition === 'not_run_stopped'))
        failed.push({
          ...where,
          tryNumber: at + 1,
          disposition: 'infrastructure_failure',
          failureClass: entry.infrastructureFailure.class,
          reason: entry.infrastructureFailure.message,
        });
      else if (
        last &&
        (attempt.disposition === 'behavior_failure' ||
          attempt.disposition === 'grading_evidence_failure' ||
          // An infrastructure failure the try's bundle records (the runner's side): the try carries none.
          attempt.disposition === 'infrastructure_failure')
      )
        failed.push({
          ...where,
          tryNumber: at + 1,
          disposition: attempt.disposition,
          failureClass: attempt.infrastructureFailure?.class ?? null,
          reason: attempt.reason,
        });
    });
  }
  return failed;
}

/** One line, at most `max` characters: a reason's whitespace runs (newlines too) as one space. */
const oneLine = (text: string, max = 220): string => {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
};

function failedTryLine(entry: FailedTry): string {
  const which = entry.tryNumber === null ? ' (already in the ledger)' : ` try ${entry.tryNumber}`;
  const code = entry.failureClass === null ? entry.disposition : `${entry.disposition} ${entry.failureClass}`;
  return `  ✗ ${entry.laneId} × ${entry.caseId} #${entry.index}${which}: ${code}${entry.reason === null ? '' : ` — ${oneLine(entry.reason)}`}`;
}

/**
 * The attempts of the shards that left no record (merge): never run, so never a try, and said as
 * "not run: shard 2 missing" in both the status and the planned line (the record counts them in
 * totals.notRunShardMissing, apart from its infrastructure failures).
 */
function missingShards(record: CampaignRecord): { readonly attempts: number; readonly text: string } {
  const which = [...new Set(record.attempts.filter(isShardMissing).map((attempt) => attempt.shard))].sort(
    (a, b) => a - b,
  );
  const attempts = record.totals.notRunShardMissing;
  const text =
    which.length === 0
      ? 'a shard missing'
      : `shard${which.length === 1 ? '' : 's'} ${which.join(', ')} missing`;
  return { attempts, text: `${attempts} not run: ${text}` };
}

function recordLines(record: CampaignRecord): Line[] {
  const totals = record.totals;
  const failed = failedTries(record);
  const tries = totals.tries + totals.resumed;
  const missing = missingShards(record);
  // "complete" says the plan was decided, never that it passed: how many tries failed goes with it.
  const failedText = `${failed.length === 0 ? '' : ` · ${failed.length} of ${tries} tries failed`}${missing.attempts === 0 ? '' : ` · ${missing.text}`}`;
  const status = record.complete
    ? painted(failed.length === 0 ? 'green' : 'yellow', `complete${failedText}`)
    : painted('yellow', `partial (${record.partial.join(', ')})${failedText}`);
  const lines: Line[] = [
    [
      `campaign ${record.campaignId}: `,
      status,
      record.shard === null ? '' : ` · shard ${record.shard.index}/${record.shard.count}`,
    ],
    `  ${record.package.name} ${record.package.version} · runnerd ${record.runnerd.sha256} · suite ${record.suiteFingerprint}`,
    `  ${totals.planned} planned: ${totals.passed} passed · ${totals.behaviorFailures} behaviour failure(s) · ${totals.gradingEvidenceFailures} grading/evidence failure(s) · ${totals.infrastructureFailures} infrastructure failure(s) · ${totals.notRunBudget} not run (budget) · ${totals.notRunStopped} not run (stopped)${missing.attempts === 0 ? '' : ` · ${missing.text}`}`,
    `  ${totals.tries} tries (${totals.retries} retries) · ${totals.resumed} already in the ledger (resumed)`,
    `  cost: ${costLine(record.cost)}`,
  ];
  const classes = new Map<string, number>();
  for (const attempt of record.attempts)
    if (attempt.infrastructureFailure !== null && !isShardMissing(attempt))
      classes.set(
        attempt.infrastructureFailure.class,
        (classes.get(attempt.infrastructureFailure.class) ?? 0) + 1,
      );
  for (const [name, count] of classes) lines.push(`  infrastructure ${name}: ${count}`);
  // A try that left a success artifact without a native bundle: recorded from the artifact alone.
  if (totals.withoutNativeEvidence > 0)
    lines.push(
      `  ${totals.withoutNativeEvidence} attempt(s) without native evidence (native_bundle_absent): the session's success artifact referenced no native-execution bundle; recorded from the artifact alone, never solved — a rerun counts them`,
    );
  for (const attempt of record.attempts)
    for (const entry of attempt.tries)
      if (entry.evidenceGap !== undefined && entry.ledgerRefusal === undefined)
        lines.push(
          `  ${entry.attemptId} (${attempt.laneId} × ${attempt.caseId} #${attempt.index}): ${entry.evidenceGap.code} — ${attempt.disposition}`,
        );
  if (failed.length > 0) {
    lines.push(`  failed tries (lane × case #attempt, try: outcome, class — reason):`);
    for (const entry of failed.slice(0, FAILED_TRIES_SHOWN)) lines.push(failedTryLine(entry));
    if (failed.length > FAILED_TRIES_SHOWN)
      lines.push(
        `  … and ${failed.length - FAILED_TRIES_SHOWN} more (every try with its reason: the record, --out or --json)`,
      );
  }
  // A try whose bundle the ledger refused: recorded by the campaign's artifact, with the ledger's code.
  for (const attempt of record.attempts)
    for (const entry of attempt.tries)
      if (entry.ledgerRefusal !== undefined)
        lines.push(
          `  the ledger refused the bundle of ${entry.attemptId} (${attempt.laneId} × ${attempt.caseId} #${attempt.index}): ${entry.ledgerRefusal.code} — ${entry.ingest === 'synthesized' ? "recorded by the campaign's artifact: a rerun counts it" : 'not recorded'}`,
        );
  return lines;
}
