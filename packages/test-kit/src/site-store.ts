// Test support for the published site (issue 19): a SQLite Evalbook holding campaigns as the
// campaign package records them (runId = campaignId, an evals-campaign/v1 record in the ledger),
// made from synthetic bundles, and a snapshot of every file of a site (path → bytes and inode).
import { createHash } from 'node:crypto';
import { lstat, readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';

import { parseNativeExecution } from '@paperclip-evals/contract';
import { convertBundle, openStore } from '@paperclip-evals/evalbook';

import { syntheticAttempt } from './synthetic.ts';

import type { SyntheticAttemptOptions } from './synthetic.ts';

export const SUITE_A = `sha256:${'a'.repeat(64)}`;
export const SUITE_B = `sha256:${'b'.repeat(64)}`;
export const LANES = [
  { id: 'config_a', provider: 'openai', model: 'gpt-x', driver: 'codex', enabled: true },
  { id: 'config_b', provider: 'anthropic', model: 'claude-y', driver: null, enabled: true },
];

export interface CampaignSpec {
  readonly campaignId: string;
  /** Minutes after 2026-11-01T12:00Z the campaign starts. */
  readonly minute: number;
  /** null: no campaign record (a plain `evals ingest` run). */
  readonly record?: {
    readonly suite?: string;
    readonly complete?: boolean;
    readonly partial?: readonly string[];
    readonly tries?: number;
    /** The record's caseDefinitions (each case's prompt and description); absent: an older record. */
    readonly caseDefinitions?: readonly {
      readonly id: string;
      readonly prompt: string;
      readonly description: string | null;
    }[];
  } | null;
  /** case id → solved?; every case runs on both configs, one attempt each. */
  readonly cases: Readonly<Record<string, boolean>>;
  /** Changes every attempt's bundle (markers, …). */
  readonly bundle?: (bundle: Record<string, unknown>) => Record<string, unknown>;
  readonly attempt?: Partial<SyntheticAttemptOptions>;
  /** Every attempt kept apart as foreign (as `ingest --keep-foreign` stores one). */
  readonly foreign?: boolean;
  /**
   * Every planned attempt tried twice, as a campaign retries an infrastructure failure: try 1 (the
   * attempt id) failed, try 2 (`<id>-r1`) has the case's outcome; a start row for each.
   */
  readonly retried?: boolean;
}

const START = Date.UTC(2026, 10, 1, 12, 0, 0);

/** Writes the campaigns' attempts and records into the store at `url` (created). */
export async function seedCampaigns(url: string, campaigns: readonly CampaignSpec[]): Promise<void> {
  const store = await openStore(url);
  try {
    for (const campaign of campaigns) {
      const startedAtMs = START + campaign.minute * 60_000;
      const records = Object.entries(campaign.cases).flatMap(([caseId, solved], caseIndex) =>
        LANES.flatMap((lane, index) => {
          const attemptId = `attempt_${caseIndex}_${index}`;
          const tries =
            campaign.retried === true
              ? [
                  { tryId: attemptId, solved: false },
                  { tryId: `${attemptId}-r1`, solved },
                ]
              : [{ tryId: attemptId, solved }];
          return tries.map((entry) => {
            const attempt = syntheticAttempt({
              runId: campaign.campaignId,
              caseId,
              configId: lane.id,
              // Ids of any text live in run, case and config; the attempt id also names tool call ids.
              attemptId: entry.tryId,
              runTerminalState: entry.solved ? 'succeeded' : 'failed',
              startedAtMs: startedAtMs + index,
              ...campaign.attempt,
            });
            const bundle = campaign.bundle === undefined ? attempt : campaign.bundle(attempt);
            const record = convertBundle(parseNativeExecution(JSON.stringify(bundle)));
            return campaign.foreign === true
              ? {
                  ...record,
                  environmentMismatch: [{ field: 'case' as const, expected: null, received: caseId }],
                }
              : record;
          });
        }),
      );
      if (campaign.retried === true)
        for (const [tryIndex, record] of records.entries())
          await store.recordTryStart({
            campaignId: campaign.campaignId,
            caseId: record.key.caseId,
            configId: record.key.configId,
            attemptId: record.key.attemptId.replace(/-r1$/, ''),
            tryNumber: tryIndex % 2 === 0 ? 1 : 2,
            tryId: record.key.attemptId,
            startedAt: new Date(startedAtMs + tryIndex).toISOString(),
            runner: {
              packageName: 'p',
              packageVersion: '1.0.0',
              runnerdSha256: 'sha256:r',
              host: 'h',
              pid: 7,
            },
          });
      await store.insertBatch(records);
      const record = campaign.record === undefined ? {} : campaign.record;
      if (record === null) continue;
      await store.recordCampaign({
        campaignId: campaign.campaignId,
        record: {
          schema: 'evals-campaign/v1',
          campaignId: campaign.campaignId,
          suiteFingerprint: record.suite ?? SUITE_A,
          // One plan per campaign id (the ledger keeps every record of it, the newest current).
          planDigest: `sha256:${createHash('sha256').update(campaign.campaignId).digest('hex')}`,
          lanes: LANES,
          ...(record.caseDefinitions === undefined ? {} : { caseDefinitions: record.caseDefinitions }),
          complete: record.complete ?? true,
          partial: record.partial ?? [],
          totals: {
            planned: campaign.retried === true ? records.length / 2 : records.length,
            tries: record.tries ?? records.length,
          },
          timing: { startedAt: new Date(startedAtMs).toISOString() },
        },
      });
    }
  } finally {
    await store.close();
  }
}

/** Every file under `root`: relative path → its bytes (base64) and inode, sorted by path. */
export async function snapshotTree(root: string): Promise<Record<string, { bytes: string; ino: number }>> {
  const out: Record<string, { bytes: string; ino: number }> = {};
  const visit = async (relative: string): Promise<void> => {
    for (const name of (await readdir(join(root, relative))).sort()) {
      const path = relative === '' ? name : `${relative}/${name}`;
      const stat = await lstat(join(root, path));
      if (stat.isDirectory()) await visit(path);
      else out[path] = { bytes: (await readFile(join(root, path))).toString('base64'), ino: stat.ino };
    }
  };
  await visit('');
  return out;
}

/** Every file's bytes under `root`, concatenated (for a grep over the whole site). */
export async function allBytes(root: string): Promise<string> {
  const tree = await snapshotTree(root);
  return Object.entries(tree)
    .map(([path, { bytes }]) => `${path}\n${Buffer.from(bytes, 'base64').toString('utf8')}`)
    .join('\n');
}
