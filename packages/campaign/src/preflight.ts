// What `evals run` checks before it qualifies or installs anything (the join takes ~20 s): every
// refusal that needs nothing run. The --out path can be written (its folder exists, it is not a
// folder or a device) and holds no record of this campaign id for another suite, plan or shard; the
// store can be opened or created where it is named (no typo'd folder) and its ledger (SQLite, read
// only; PostgreSQL right after the join, before any session) does not record this campaign id for
// another suite, plan or shard. The release's own part of the identity (package,
// runnerd) is checked once the join has it (record.ts's assertRecordable, again before writing).
import { existsSync } from 'node:fs';

import { checkSqliteTarget, openStore, sqliteStorePath } from '@paperclip-evals/evalbook';
import { outputTarget } from '@paperclip-evals/node';

import { CampaignError } from './errors.js';
import { assertRecordable, planIdentity, planIdentityDifferences } from './record.js';

import type { CampaignPlan, Shard } from './plan.js';

export interface PreflightOptions {
  readonly plan: CampaignPlan;
  readonly shard: Shard | null;
  readonly storeUrl: string;
  readonly out?: string;
}

/** Throws the first refusal found (every issue of it listed); resolves when a run may start. */
export async function preflightCampaign(options: PreflightOptions): Promise<void> {
  const identity = planIdentity(options.plan, options.shard);
  if (options.out !== undefined) {
    await outputTarget(options.out);
    await assertRecordable(options.out, identity);
  }
  const sqlite = sqliteStorePath(options.storeUrl);
  if (sqlite !== null && !existsSync(sqlite)) await checkSqliteTarget(options.storeUrl);
  // A SQLite ledger is read read-only here; a PostgreSQL one is opened (and a new database
  // migrated) only once the join holds, so runCampaign asks it then, still before any session.
  else if (sqlite !== null) await assertLedgerRecordable(options.storeUrl, options.plan, options.shard);
}

/**
 * Refuses (paperclip_campaign_record_conflict) when the ledger at `storeUrl` records this campaign id for
 * another suite, plan or shard. A shard's record is the merge's to put in the ledger: only a whole
 * campaign meets the ledger's. A SQLite store that is not there records nothing.
 */
export async function assertLedgerRecordable(
  storeUrl: string,
  plan: CampaignPlan,
  shard: Shard | null,
): Promise<void> {
  if (shard !== null) return;
  const identity = planIdentity(plan, shard);
  const sqlite = sqliteStorePath(storeUrl);
  if (sqlite !== null && !existsSync(sqlite)) return;
  const store = await openStore(storeUrl, sqlite === null ? {} : { readOnly: true });
  let recorded: Readonly<Record<string, unknown>> | undefined;
  try {
    recorded = (await store.campaigns()).find((entry) => entry.campaignId === identity.campaignId)?.record;
  } finally {
    await store.close();
  }
  if (recorded === undefined) return;
  const differences = planIdentityDifferences(recorded, identity);
  if (differences.length === 0) return;
  throw new CampaignError(
    'paperclip_campaign_record_conflict',
    `the ledger records campaign ${identity.campaignId} with another ${differences.map((d) => d.field).join(', ')}: nothing was run. Run this suite under a new --campaign id (a campaign id names one campaign), or rerun the recorded campaign with its own suite to resume it`,
    differences.map((difference) => ({
      code: 'campaign_id_reused',
      message: `the ledger records campaign ${identity.campaignId} with another ${difference.field}: a campaign id names one campaign`,
      path: `--campaign ${identity.campaignId}`,
      expected: difference.recorded,
      received: difference.now,
    })),
  );
}
