// Merging shard stores: with SQLite each CI cell (shard) ingests into its own store, so the trusted
// merge job copies everything of the campaign (run id = campaign id) from each shard's store into
// one target store — its attempts, their policy verdicts (evals policy replay --store), its
// retractions (evals retract), who, why and when kept, its campaign records (every one: a
// budget-stopped record and its resumed one alike) followed by the merged record itself, and its
// try starts (a SIGKILLed shard's start with no attempt stays an unknown spend in the target) — through
// the target store's copyIn: each kind by its own append rule, all in ONE transaction. Before
// anything is written every problem is found at once: the same attempt with another digest, the
// same verdict with another content, the same target retracted otherwise, or the same try started
// or interrupted otherwise in two shard stores, an attempt already in the target with another digest
// or a try there otherwise, or a campaign record of another plan in a
// shard store or the target, or an attempt the merged record judges otherwise than the copied
// attempt says (ledgerDispositionIssues: a record never overrides the ledger) (shard_store_conflict),
// and a try the merged record says was stored that
// no shard store holds (shard_store_incomplete). In the transaction, what the target already holds
// alike is a duplicate, skipped (so the same merge again writes nothing); a verdict or retraction it
// holds otherwise refuses the whole copy (nothing is written, nothing overwritten); so does a try's
// start or interruption the target came to hold otherwise meanwhile (copyIn's try_conflict).
import { existsSync } from 'node:fs';

import { displayLocator } from '@paperclip-evals/contract';
import { isEvalbookError, openStore } from '@paperclip-evals/evalbook';

import { CampaignError } from './errors.js';
import { ledgerDispositionIssues } from './record.js';

import type { Issue } from '@paperclip-evals/contract';
import type {
  AttemptKey,
  CampaignRecordOutcome,
  LedgerRecord,
  LedgerStore,
  PolicyVerdictInput,
  Retraction,
} from '@paperclip-evals/evalbook';

import type { CampaignRecord } from './record.js';

export interface StoreMergeOptions {
  /** The merged campaign record: whose attempts, and which tries it says are in a store. */
  readonly record: CampaignRecord;
  /** Each shard's store (sqlite:PATH or postgres://…); each must exist. */
  readonly from: readonly string[];
  /** The store the attempts go to (created like ingest's when it is the default or its folder exists). */
  readonly to: string;
}

export interface StoreMergeSummary {
  /** Attempts of the campaign found, per shard store (in the order given). */
  readonly perStore: readonly { readonly store: string; readonly attempts: number }[];
  readonly inserted: number;
  /** Already in the target with the same digest (or in two shard stores alike): skipped. */
  readonly duplicates: number;
  /** The campaign's policy verdicts copied, and those the target held alike. */
  readonly policyVerdicts: { readonly inserted: number; readonly duplicates: number };
  /** The campaign's retractions copied (who, why, when kept), and those the target held alike. */
  readonly retractions: { readonly inserted: number; readonly duplicates: number };
  /** The campaign's records found in the shard stores, copied, and those the target held alike. */
  readonly campaignRecords: { readonly inserted: number; readonly duplicates: number };
  /**
   * The campaign's try rows (starts and interruptions) copied, and those the target held alike (or
   * another shard store gave alike); `unsettled`: the starts the target holds with no attempt after
   * the copy (its runs() counts them as unpriced).
   */
  readonly tryStarts: { readonly inserted: number; readonly duplicates: number; readonly unsettled: number };
  /** What became of the merged record itself in the target (appended in the same transaction). */
  readonly record: CampaignRecordOutcome;
}

const keyText = (key: AttemptKey): string =>
  JSON.stringify([key.runId, key.caseId, key.configId, key.attemptId]);

/** The whole record of a stored attempt, as insertBatch takes it (its canonical document from the store). */
async function wholeRecord(store: LedgerStore, stored: Awaited<ReturnType<LedgerStore['getAttempt']>>) {
  if (stored === null) return null;
  const rawCanonical = await store.getBundle(stored.bundleDigest);
  if (rawCanonical === null) return null;
  return { ...stored.record, scores: stored.scores, rawCanonical } as LedgerRecord;
}

type CampaignTry = Awaited<ReturnType<LedgerStore['campaignTries']>>[number];

/** A try's identity within the campaign: case, config, try id (campaign_tries' key, per event). */
const tryKeyText = (entry: CampaignTry): string =>
  JSON.stringify([entry.caseId, entry.configId, entry.tryId]);

/**
 * Which row of one try two stores hold otherwise: its start (attempt id, number, time, runner), or
 * the interruption both hold; null when they agree (whether it settled is each store's own reading).
 */
function tryDiffers(a: CampaignTry, b: CampaignTry): 'start' | 'interruption' | null {
  const start = (entry: CampaignTry) =>
    JSON.stringify([entry.attemptId, entry.tryNumber, entry.startedAt, entry.runner]);
  if (start(a) !== start(b)) return 'start';
  if (a.interruption !== null && b.interruption !== null)
    if (JSON.stringify(a.interruption) !== JSON.stringify(b.interruption)) return 'interruption';
  return null;
}

export async function mergeShardStores(options: StoreMergeOptions): Promise<StoreMergeSummary> {
  const campaignId = options.record.campaignId;
  const issues: Issue[] = [];
  const records = new Map<string, { record: LedgerRecord; store: string }>();
  const verdicts = new Map<string, { verdict: PolicyVerdictInput; store: string }>();
  const retractions = new Map<string, { retraction: Retraction; store: string }>();
  /** The campaign's records in the shard stores, by record digest (the same record in two is one). */
  const campaignRecords = new Map<string, Readonly<Record<string, unknown>>>();
  const planDigest = options.record.planDigest;
  const otherPlan = (where: string, record: Readonly<Record<string, unknown>>): void => {
    issues.push({
      code: 'shard_store_conflict',
      message: `${where} records campaign ${campaignId} for another plan: a campaign id names one campaign`,
      path: where,
      expected: `plan digest ${planDigest} (the merged record's)`,
      received: `plan digest ${String(record.planDigest)}`,
    });
  };
  const perStore: { store: string; attempts: number }[] = [];
  /** Every shard store's starts of the campaign, in the order given (the target writes each once). */
  const tries: CampaignTry[] = [];
  /** The first store's start of each try (case, config, try id), to find another store's other one. */
  const triesSeen = new Map<string, { entry: CampaignTry; store: string }>();
  const target = displayLocator(options.to);
  for (const given of options.from) {
    // Named in messages as displayLocator shows it: never with a password.
    const url = displayLocator(given);
    const store = await openStore(given, { mustExist: true });
    try {
      let count = 0;
      for await (const stored of store.attempts()) {
        if (stored.key.runId !== campaignId) continue;
        count++;
        const record = await wholeRecord(store, await store.getAttempt(stored.key));
        if (record === null) {
          issues.push({
            code: 'shard_store_unreadable',
            message: `${url} lists attempt ${stored.key.attemptId} but its stored document cannot be read`,
            path: url,
            expected: 'the attempt and its canonical document',
            received: 'missing',
          });
          continue;
        }
        const seen = records.get(keyText(stored.key));
        if (seen !== undefined && seen.record.bundleDigest !== record.bundleDigest)
          issues.push({
            code: 'shard_store_conflict',
            message: `attempt ${stored.key.attemptId} (${stored.key.caseId} × ${stored.key.configId}) is stored with another digest in ${seen.store} and ${url}`,
            path: url,
            expected: seen.record.bundleDigest,
            received: record.bundleDigest,
          });
        else if (seen === undefined) records.set(keyText(stored.key), { record, store: url });
      }
      // Its policy verdicts of the campaign, with the bundle of the attempt each is of (in this store).
      for await (const verdict of store.policyVerdicts()) {
        if (verdict.key.runId !== campaignId) continue;
        const own = await store.getAttempt(verdict.key);
        if (own === null) continue; // a store never holds a verdict without its attempt
        const input: PolicyVerdictInput = { ...verdict, bundleDigest: own.bundleDigest };
        const id = JSON.stringify([keyText(verdict.key), verdict.callId, verdict.policyDigest]);
        const seen = verdicts.get(id);
        if (seen === undefined) verdicts.set(id, { verdict: input, store: url });
        else if (JSON.stringify(seen.verdict) !== JSON.stringify(input))
          issues.push({
            code: 'shard_store_conflict',
            message: `the policy verdict of call ${verdict.callId} (attempt ${verdict.key.attemptId}) differs in ${seen.store} and ${url}`,
            path: url,
            expected: seen.verdict.verdict,
            received: input.verdict,
          });
      }
      for (const retraction of await store.retractions()) {
        if (retraction.runId !== campaignId) continue;
        const id = JSON.stringify([retraction.runId, retraction.attemptId]);
        const seen = retractions.get(id);
        if (seen === undefined) retractions.set(id, { retraction, store: url });
        else if (JSON.stringify(seen.retraction) !== JSON.stringify(retraction))
          issues.push({
            code: 'shard_store_conflict',
            message: `${retraction.attemptId === null ? `run ${campaignId}` : `attempt ${retraction.attemptId}`} is retracted otherwise in ${seen.store} and ${url}`,
            path: url,
            expected: seen.retraction,
            received: retraction,
          });
      }
      for (const entry of await store.campaigns()) {
        if (entry.campaignId !== campaignId) continue;
        if (entry.record.planDigest !== planDigest) otherPlan(url, entry.record);
        else campaignRecords.set(entry.recordDigest, entry.record);
      }
      for (const entry of await store.campaignTries(campaignId)) {
        const id = tryKeyText(entry);
        const seen = triesSeen.get(id);
        if (seen === undefined) triesSeen.set(id, { entry, store: url });
        else {
          const differs = tryDiffers(seen.entry, entry);
          if (differs !== null)
            issues.push({
              code: 'shard_store_conflict',
              message: `the ${differs} of try ${entry.tryId} (${entry.caseId} × ${entry.configId}) differs in ${seen.store} and ${url}`,
              path: url,
              expected: seen.entry,
              received: entry,
            });
        }
        tries.push(entry);
      }
      perStore.push({ store: url, attempts: count });
    } finally {
      await store.close();
    }
  }

  // A SQLite target that is not there yet holds nothing; it is made only once the merge holds, so a
  // refused merge leaves no empty store behind.
  const targetExists = !options.to.startsWith('sqlite:') || existsSync(options.to.slice('sqlite:'.length));
  const opened = targetExists ? await openStore(options.to) : null;
  try {
    const targetHolds = async (key: AttemptKey) => (opened === null ? null : await opened.getAttempt(key));
    for (const { record, store } of records.values()) {
      const existing = await targetHolds(record.key);
      if (existing === null) continue;
      if (existing.bundleDigest !== record.bundleDigest)
        issues.push({
          code: 'shard_store_conflict',
          message: `attempt ${record.key.attemptId} is in ${target} with another digest than in ${store}: nothing is overwritten`,
          path: target,
          expected: existing.bundleDigest,
          received: record.bundleDigest,
        });
    }
    for (const held of opened === null ? [] : await opened.campaignTries(campaignId)) {
      const given = triesSeen.get(tryKeyText(held));
      const differs = given === undefined ? null : tryDiffers(held, given.entry);
      if (given !== undefined && differs !== null)
        issues.push({
          code: 'shard_store_conflict',
          message: `the ${differs} of try ${held.tryId} (${held.caseId} × ${held.configId}) is in ${target} otherwise than in ${given.store}: nothing is overwritten`,
          path: target,
          expected: held,
          received: given.entry,
        });
    }
    let heldRecords = 0;
    for (const entry of opened === null ? [] : await opened.campaigns()) {
      if (entry.campaignId !== campaignId) continue;
      heldRecords++;
      if (entry.record.planDigest !== planDigest) otherPlan(target, entry.record);
    }
    // The merged record's dispositions as the copied attempts say (a shard store's, else the target's).
    issues.push(
      ...(await ledgerDispositionIssues(
        options.record,
        async (key) => {
          const copied = records.get(keyText(key))?.record;
          return copied === undefined ? await targetHolds(key) : { record: copied, scores: copied.scores };
        },
        'the shard stores',
      )),
    );
    // Every try the merged record says went into a ledger must be in a shard store (or the target).
    for (const attempt of options.record.attempts)
      for (const entry of attempt.tries) {
        if (entry.ingest !== 'inserted' && entry.ingest !== 'duplicate' && entry.ingest !== 'synthesized')
          continue;
        const key = {
          runId: campaignId,
          caseId: attempt.caseId,
          configId: attempt.laneId,
          attemptId: entry.attemptId,
        };
        if (records.has(keyText(key)) || (await targetHolds(key)) !== null) continue;
        issues.push({
          code: 'shard_store_incomplete',
          message: `try ${entry.attemptId} of shard ${attempt.shard} (${attempt.caseId} × ${attempt.laneId}) is in no store given: pass each shard's store with --from-store`,
          path: '--from-store',
          expected: `the store shard ${attempt.shard} ingested into`,
          received: options.from.map(displayLocator).join(', ') || 'none',
        });
      }
    if (issues.length > 0)
      throw new CampaignError(
        'paperclip_campaign_record_conflict',
        `the shard stores do not merge into ${target}: nothing was written`,
        issues,
      );
    const writer = opened ?? (await openStore(options.to));
    let copied;
    let unsettled = 0;
    try {
      copied = await writer.copyIn({
        records: [...records.values()].map((entry) => entry.record),
        policyVerdicts: [...verdicts.values()].map((entry) => entry.verdict),
        retractions: [...retractions.values()].map((entry) => entry.retraction),
        // The shard stores' records of the campaign, then the merged one: the newest by its own
        // time is the campaign's current state, whatever order they reach the target in.
        campaigns: [
          ...[...campaignRecords.values()].map((record) => ({ campaignId, record })),
          { campaignId, record: JSON.parse(JSON.stringify(options.record)) as Record<string, unknown> },
        ],
        tries,
      });
      unsettled = (await writer.campaignTries(campaignId)).filter((entry) => !entry.settled).length;
    } catch (error) {
      // The target changed while merging, or holds a verdict, retraction or try otherwise: nothing written.
      if (isEvalbookError(error, 'paperclip_evalbook_merge_conflict'))
        throw new CampaignError(
          'paperclip_campaign_record_conflict',
          `the shard stores do not merge into ${target}: nothing was written (${error.message})`,
          error.issues.map((issue) => ({ ...issue, path: target })),
          { cause: error },
        );
      throw error;
    } finally {
      if (writer !== opened) await writer.close();
    }
    const counted = (outcomes: readonly { readonly status: string }[]) => ({
      inserted: outcomes.filter((outcome) => outcome.status === 'inserted').length,
      duplicates: outcomes.filter((outcome) => outcome.status === 'duplicate').length,
    });
    return {
      perStore,
      inserted: counted(copied.attempts).inserted,
      duplicates:
        counted(copied.attempts).duplicates +
        perStore.reduce((sum, entry) => sum + entry.attempts, 0) -
        records.size,
      policyVerdicts: counted(copied.policyVerdicts),
      retractions: counted(copied.retractions),
      campaignRecords: counted(copied.campaigns.slice(0, -1)),
      tryStarts: { ...counted(copied.tries), unsettled },
      // The merged record: there already, or appended as the campaign's first or beside earlier ones.
      record:
        copied.campaigns.at(-1)?.status !== 'inserted'
          ? 'duplicate'
          : heldRecords + counted(copied.campaigns.slice(0, -1)).inserted > 0
            ? 'revised'
            : 'recorded',
    };
  } finally {
    await opened?.close();
  }
}
