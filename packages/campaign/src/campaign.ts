// runCampaign: what `evals run` does, as one call. Load the suite, make the plan (with --plan, stop
// there), hold the join (qualification or an accepted record, runnerd by digest, six-dimension
// negotiation, the package's eval-session bin), then execute the plan (or this shard of it) and
// return the evals-campaign/v1 record. Before the join (~20 s), everything that needs nothing run is
// checked (preflight.ts: --out, the store, the campaign id against both). Nothing is written and
// nothing started before the join holds.
import { mkdir } from 'node:fs/promises';
import { resolve } from 'node:path';

import { DEFAULT_STORE_URL, loadEnvironment, sqliteStorePath } from '@paperclip-evals/evalbook';

import { evalSessionProgram } from './eval-session-bin.js';
import { executeCampaign } from './execute.js';
import { joinRelease } from './join.js';
import { assertLedgerRecordable, preflightCampaign } from './preflight.js';
import { planCampaign } from './plan.js';
import {
  assertRecordable,
  campaignIdentity,
  campaignRecord,
  isLedgerRecord,
  storeCampaignRecord,
  writeCampaignRecord,
} from './record.js';

import type { AttemptOutcome, CampaignProgress } from './execute.js';
import type { JoinOptions } from './join.js';
import type { CampaignPlan, PlanOptions, Shard } from './plan.js';
import type { CampaignRecord, LedgerRecordOutcome } from './record.js';

/**
 * What a run is doing before its first session, in order (told as each begins): the checks that
 * need nothing run, the join (qualifying the release now, or checking its record's digests), the
 * install of the package's eval-session bin, and reading the ledger (resume, spend so far).
 */
export type CampaignPhase =
  'preflight' | 'qualify' | 'accept_qualification' | 'install_eval_session' | 'ledger';

export interface RunCampaignOptions extends PlanOptions {
  readonly environmentPath: string;
  readonly releaseDir: string;
  readonly qualificationRecord?: string;
  readonly shard?: Shard;
  /** Default: the environment's store, else DEFAULT_STORE_URL. */
  readonly storeUrl?: string;
  /** Default: the environment's campaign.max_parallel, else the number of cores. */
  readonly maxParallel?: number;
  readonly allowUnpriced?: boolean;
  /** Each eval-session's whole environment (default none: nothing is inherited); see ExecuteOptions. */
  readonly sessionEnv?: Readonly<Record<string, string>>;
  /** Where every try's request and artifact are kept (default .evalbook/campaigns/<campaign id>). */
  readonly workDir?: string;
  /** Instead of the package's bin (a stand-in or diagnosis build), verified by digest. */
  readonly evalSessionBin?: { readonly path: string; readonly sha256: string };
  /** Write the record here (a record of the same id for another campaign there is refused). */
  readonly out?: string;
  readonly qualify?: JoinOptions['qualify'];
  readonly stop?: AbortSignal;
  readonly kill?: AbortSignal;
  readonly onProgress?: (progress: CampaignProgress) => void;
  /** Told once per decided attempt, with the progress after it (a plain line when not a terminal). */
  readonly onAttempt?: (outcome: AttemptOutcome, progress: CampaignProgress) => void;
  /** Told once the join holds, before the first session starts. */
  readonly onJoined?: (summary: {
    readonly packageName: string;
    readonly packageVersion: string;
    readonly runnerdSha256: string;
    readonly qualifiedBy: string;
  }) => void;
  /** Told as each phase before the first session begins (a terminal shows it: the join takes a while). */
  readonly onPhase?: (phase: CampaignPhase) => void;
  /** Told what became of the record in the ledger (a whole campaign that was not interrupted). */
  readonly onLedgerRecord?: (outcome: LedgerRecordOutcome) => void;
  /** The number of cores (default os.availableParallelism()). */
  readonly cores?: number;
}

/** The plan only (`evals run --plan`): nothing is joined, written or started. */
export async function planFromFiles(options: RunCampaignOptions): Promise<CampaignPlan> {
  const environment = await loadEnvironment(options.environmentPath);
  return planCampaign(environment, { ...options, shardCount: options.shard?.count ?? 1 });
}

export async function runCampaign(options: RunCampaignOptions): Promise<CampaignRecord> {
  const environment = await loadEnvironment(options.environmentPath);
  const plan = planCampaign(environment, { ...options, shardCount: options.shard?.count ?? 1 });
  const storeUrl = options.storeUrl ?? environment.store ?? DEFAULT_STORE_URL;
  options.onPhase?.('preflight');
  await preflightCampaign({
    plan,
    shard: options.shard ?? null,
    storeUrl,
    ...(options.out === undefined ? {} : { out: options.out }),
  });
  options.onPhase?.(options.qualificationRecord === undefined ? 'qualify' : 'accept_qualification');
  const join = await joinRelease({
    releaseDir: options.releaseDir,
    ...(options.qualificationRecord === undefined
      ? {}
      : { qualificationRecord: options.qualificationRecord }),
    ...(options.qualify === undefined ? {} : { qualify: options.qualify }),
  });
  // A campaign id names one campaign: refused before anything runs, not after (the release's part
  // of --out's record, and a PostgreSQL ledger's record, are known only now).
  if (options.out !== undefined)
    await assertRecordable(options.out, campaignIdentity(plan, join, options.shard ?? null));
  if (sqliteStorePath(storeUrl) === null) await assertLedgerRecordable(storeUrl, plan, options.shard ?? null);
  const tarballSha256 = join.qualification.package.tarballSha256;
  if (tarballSha256 === null) throw new Error('internal: a qualified record names its tarball digest');
  options.onPhase?.('install_eval_session');
  const program = await evalSessionProgram({
    tarballPath: join.tarballPath,
    tarballSha256,
    ...(options.evalSessionBin === undefined ? {} : { override: options.evalSessionBin }),
    ...(options.qualify?.pnpm === undefined ? {} : { pnpm: options.qualify.pnpm }),
    ...(options.qualify?.tempDir === undefined ? {} : { tempDir: options.qualify.tempDir }),
  });
  try {
    options.onJoined?.({
      packageName: join.packageName,
      packageVersion: join.packageVersion,
      runnerdSha256: join.runnerdSha256,
      qualifiedBy: join.qualifiedBy,
    });
    const workDir = resolve(options.workDir ?? `.evalbook/campaigns/${plan.campaignId}`);
    await mkdir(workDir, { recursive: true, mode: 0o700 });
    const { availableParallelism } = await import('node:os');
    options.onPhase?.('ledger');
    const result = await executeCampaign({
      plan,
      shard: options.shard ?? null,
      release: {
        packageName: join.packageName,
        packageVersion: join.packageVersion,
        runnerdPath: join.runnerdPath,
        runnerdSha256: join.runnerdSha256,
        receipt: join.receipt,
        evalSession: { command: program.command, args: program.args },
        // The join refuses a record without it, so it is there.
        buildMetadata: join.qualification.package.buildMetadata ?? {},
      },
      environment,
      environmentPath: options.environmentPath,
      storeUrl,
      workDir,
      maxParallel:
        options.maxParallel ?? environment.campaign?.max_parallel ?? options.cores ?? availableParallelism(),
      ...(options.allowUnpriced === undefined ? {} : { allowUnpriced: options.allowUnpriced }),
      ...(options.sessionEnv === undefined ? {} : { sessionEnv: options.sessionEnv }),
      ...(options.stop === undefined ? {} : { stop: options.stop }),
      ...(options.kill === undefined ? {} : { kill: options.kill }),
      ...(options.onProgress === undefined ? {} : { onProgress: options.onProgress }),
      ...(options.onAttempt === undefined ? {} : { onAttempt: options.onAttempt }),
    });
    const record = campaignRecord(plan, join, options.shard ?? null, result);
    if (options.out !== undefined) await writeCampaignRecord(options.out, record);
    // The ledger keeps every record of a whole campaign; the newest is its current state (evals
    // publish reads that one): a resumed campaign's record supersedes its budget-stopped one.
    if (isLedgerRecord(record)) options.onLedgerRecord?.(await storeCampaignRecord(storeUrl, record));
    return record;
  } finally {
    await program.dispose();
  }
}
