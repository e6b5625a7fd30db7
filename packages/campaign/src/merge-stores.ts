// Merging shard stores: with SQLite each CI cell (shard) ingests into its own store, so the trusted
// merge job copies every attempt of the campaign (run id = campaign id) from each shard's store into
// one target store, through the store's one append-only insert (insertBatch, one transaction: the
// same path ingest writes with). Before anything is written every problem is found at once: the same
// attempt with another digest in two shard stores, or already in the target (shard_store_conflict),
// and a try the merged record says was stored that no shard store holds (shard_store_incomplete).
// Then one batch: what the target already holds is a duplicate, skipped; nothing is overwritten.
import { existsSync } from 'node:fs';

import { displayLocator } from '@paperclip-evals/contract';
import { openStore } from '@paperclip-evals/evalbook';

import { CampaignError } from './errors.js';

import type { Issue } from '@paperclip-evals/contract';
import type { AttemptKey, LedgerRecord, LedgerStore } from '@paperclip-evals/evalbook';

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

export async function mergeShardStores(options: StoreMergeOptions): Promise<StoreMergeSummary> {
  const campaignId = options.record.campaignId;
  const issues: Issue[] = [];
  const records = new Map<string, { record: LedgerRecord; store: string }>();
  const perStore: { store: string; attempts: number }[] = [];
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
        'campaign_record_conflict',
        `the shard stores do not merge into ${target}: nothing was written`,
        issues,
      );
    const writer = opened ?? (await openStore(options.to));
    const outcomes = await writer
      .insertBatch([...records.values()].map((entry) => entry.record))
      .finally(async () => {
        if (writer !== opened) await writer.close();
      });
    const conflicts = outcomes.flatMap((outcome) => (outcome.status === 'conflict' ? [outcome] : []));
    if (conflicts.length > 0)
      throw new CampaignError(
        'campaign_record_conflict',
        `${target} changed while merging: ${conflicts.length} attempt(s) now there with another digest were not overwritten`,
        conflicts.map((outcome) => ({
          code: 'shard_store_conflict',
          message: `attempt ${outcome.key.attemptId} is in ${target} with another digest`,
          path: target,
          expected: outcome.existingDigest,
          received: outcome.bundleDigest,
        })),
      );
    return {
      perStore,
      inserted: outcomes.filter((outcome) => outcome.status === 'inserted').length,
      duplicates:
        outcomes.filter((outcome) => outcome.status === 'duplicate').length +
        perStore.reduce((sum, entry) => sum + entry.attempts, 0) -
        records.size,
    };
  } finally {
    await opened?.close();
  }
}
