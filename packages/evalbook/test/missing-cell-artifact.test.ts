// Upstream's artifact for a missing campaign cell (test-kit's upstreamMissingCell, its aggregate's
// exact shape) is ingested as what it is: an infrastructure failure of that cell
// (ci_cell_artifact_missing, not retryable) — errored, never solved and never a behaviour result —
// its cost unknown (unpriced, usage_omitted), never zero; no runnerd (none ran), so a qualified
// runnerd does not refuse it; re-ingest is a duplicate; its replay says no session ran.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { attemptVerdict } from '../src/analysis/scoring.ts';
import { ARTIFACT_CASE_ID, ARTIFACT_RUN_ID } from '../src/ledger/convert.ts';
import { ingest, ingestExitCode } from '../src/ledger/ingest.ts';
import { openStore } from '../src/ledger/open-store.ts';
import { buildAttemptReplay } from '../src/report/attempt-replay.ts';
import { tempDir } from '@paperclip-evals/test-kit/bundle-files';
import { UPSTREAM_RUNNERD_SHA256, upstreamMissingCell } from '@paperclip-evals/test-kit/upstream-artifacts';

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir, cleanup } = await tempDir('missing-cell-'));
});
afterEach(async () => {
  await cleanup();
});

describe("when upstream's aggregate wrote the artifact of a missing cell", () => {
  it('stores an infrastructure failure of that cell, cost unknown, and re-ingest is a duplicate', async () => {
    const artifact = upstreamMissingCell();
    const path = join(dir, 'artifact.json');
    await writeFile(path, `${JSON.stringify(artifact, null, 2)}\n`);
    const storeUrl = `sqlite:${join(dir, 'e.sqlite')}`;
    const summary = await ingest({
      inputs: [path],
      storeUrl,
      qualifiedRunnerdSha256: UPSTREAM_RUNNERD_SHA256,
    });
    expect(summary.invalid).toEqual([]);
    expect(summary).toMatchObject({ inserted: 1 });
    expect(ingestExitCode(summary)).toBe(0);
    const store = await openStore(storeUrl);
    try {
      const key = {
        runId: ARTIFACT_RUN_ID,
        caseId: ARTIFACT_CASE_ID,
        configId: 'codex/gpt-5.5',
        attemptId: String(artifact.attemptId),
      };
      const stored = await store.getAttempt(key);
      expect(stored).not.toBeNull();
      const { record } = stored!;
      expect(record.failure).toMatchObject({
        classification: 'infrastructure',
        code: 'ci_cell_artifact_missing',
        retryable: false,
      });
      const verdict = attemptVerdict(record, stored!.scores);
      expect(verdict.status).toBe('errored');
      expect(verdict.reason).toContain('ci_cell_artifact_missing');
      expect(record.cost.coverage).toBe('unpriced');
      expect(record.cost.effectiveNanodollars).toBeNull();
      expect(record.cost.providerReportedNanodollars).toBeNull();
      expect(record.cost.estimatedNanodollars).toBeNull();
      expect(record.cost.notes).toContain('usage_omitted');
      expect(record.evalSession).toMatchObject({
        provider: 'codex',
        driver: 'codex_app_server',
        runnerdSha256: null,
        infrastructureFailure: { class: 'ci_cell_artifact_missing', category: 'campaign_orchestration' },
      });
      expect(record.startedAt).toBe(artifact.createdAt);
      const replay = buildAttemptReplay({ attempt: stored!, bundleText: null, verdict });
      expect(replay.evalSession).toMatchObject({ runnerdSha256: null, turn: null, timing: null });
    } finally {
      await store.close();
    }
    expect(await ingest({ inputs: [path], storeUrl })).toMatchObject({ inserted: 0, duplicates: 1 });
  });

  it('refuses one that states a session beside its class, storing nothing', async () => {
    const path = join(dir, 'artifact.json');
    await writeFile(path, JSON.stringify({ ...upstreamMissingCell(), providerSessionId: 'thread_1' }));
    const storeUrl = `sqlite:${join(dir, 'e.sqlite')}`;
    const summary = await ingest({ inputs: [path], storeUrl });
    expect(summary.inserted).toBe(0);
    expect(
      summary.invalid.flatMap((entry) => entry.issues.map((issue) => `${issue.code} ${issue.path}`)),
    ).toEqual(['missing_cell_states_session /providerSessionId']);
  });
});
