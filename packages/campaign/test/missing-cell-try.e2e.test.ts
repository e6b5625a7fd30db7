// A session that writes upstream's artifact for a missing matrix cell (valid for evals validate:
// an orchestrator's infrastructure failure of a cell) has not reported a try of its own: the
// campaign refuses it as eval_session_artifact_invalid, naming its class, records the try by its
// own artifact (errored) and never retries it.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { loadEnvironment } from '@paperclip-evals/evalbook';

import { executeCampaign } from '../src/execute.ts';
import { planCampaign } from '../src/plan.ts';
import { createStandIn, standInRelease, suiteEnvironment } from './support/stand-in.ts';

import type { StandIn } from './support/stand-in.ts';

let scratch: string;
let standIn: StandIn;
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'campaign-missing-cell-'));
  standIn = await createStandIn('missing-cell');
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
  await standIn.remove();
});

describe("a session's artifact of class ci_cell_artifact_missing", () => {
  it('is eval_session_artifact_invalid, recorded by the campaign, not retried', async () => {
    const environmentPath = join(scratch, 'suite.json');
    await writeFile(
      environmentPath,
      JSON.stringify(
        suiteEnvironment([{ id: 'case_a', behaviour: 'succeed', mutation: 'missing_cell' }], { retries: 2 }),
      ),
    );
    const environment = await loadEnvironment(environmentPath);
    const result = await executeCampaign({
      plan: planCampaign(environment, { campaignId: 'cells' }),
      shard: null,
      release: standInRelease(standIn),
      environment,
      environmentPath,
      storeUrl: `sqlite:${join(scratch, 'cells.sqlite')}`,
      workDir: join(scratch, 'work'),
      maxParallel: 1,
    });
    const [outcome] = result.attempts;
    expect(outcome?.disposition).toBe('infrastructure_failure');
    expect(outcome?.infrastructureFailure).toEqual({
      class: 'eval_session_artifact_invalid',
      category: 'eval_orchestration',
      retryable: false,
    });
    expect(outcome?.reason).toContain('ci_cell_artifact_missing');
    expect(outcome?.tries.map((entry) => entry.ingest)).toEqual(['synthesized']);
  });
});
