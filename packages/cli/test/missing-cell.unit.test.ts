// `evals validate --json` of upstream's artifact for a missing campaign cell (test-kit's
// upstreamMissingCell, its aggregate's exact shape) says valid, with the coded disposition
// cell_artifact_missing and its class, and the report matches its schema; the text line says what
// it is. The same artifact with a session field stays invalid (exit 1).
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { schemaErrors } from '@paperclip-evals/contract';
import { upstreamMissingCell } from '@paperclip-evals/test-kit/upstream-artifacts';

import { evalsInProcess } from './support/evals-in-process.ts';

const VALIDATE_REPORT = 'https://paperclip-evals.dev/schemas/validate-report/v1.json';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'evals-missing-cell-'));
  await writeFile(join(dir, 'cell.json'), JSON.stringify(upstreamMissingCell(), null, 2));
  await writeFile(
    join(dir, 'timed.json'),
    JSON.stringify({
      ...upstreamMissingCell(),
      timing: {
        startedAt: '2026-11-30T12:00:00.000Z',
        finishedAt: '2026-11-30T12:00:01.000Z',
        durationMs: 1000,
      },
    }),
  );
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("evals validate of upstream's missing-cell artifact", () => {
  it('is valid, coded cell_artifact_missing with its class, in a report its schema accepts', async () => {
    const run = await evalsInProcess(['validate', 'cell.json', '--json'], dir);
    expect(run.status).toBe(0);
    const report = JSON.parse(run.stdout) as unknown;
    expect(schemaErrors(VALIDATE_REPORT, report)).toEqual([]);
    expect(report).toMatchObject({
      summary: { valid: 1, invalid: 0, unreadable: 0 },
      files: [
        {
          status: 'valid',
          events: 0,
          attempt: { runId: 'eval-session', configId: 'codex/gpt-5.5' },
          evalSession: {
            disposition: 'cell_artifact_missing',
            infrastructureFailure: {
              class: 'ci_cell_artifact_missing',
              category: 'campaign_orchestration',
              retryable: false,
            },
          },
        },
      ],
    });
    const text = await evalsInProcess(['validate', 'cell.json'], dir);
    expect(text.stdout).toContain(
      'a campaign matrix cell that retained no attempt (ci_cell_artifact_missing)',
    );
  });

  it('stays invalid with a session field beside its class', async () => {
    const run = await evalsInProcess(['validate', 'timed.json', '--json'], dir);
    expect(run.status).toBe(1);
    expect(JSON.parse(run.stdout)).toMatchObject({
      files: [{ status: 'invalid', issues: [{ code: 'missing_cell_states_session', path: '/timing' }] }],
    });
  });
});
