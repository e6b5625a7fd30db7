// The grid and the comparison tell their caller how many attempts they have read, at the report's
// cadence (PROGRESS_EVERY by default; `progressEvery: 2` here so five attempts show it): what `evals
// grid` and `evals compare` draw their terminal progress line from, as `evals report` does from
// writeReport's. (No vi.mock of evalbook's constant: unit files share a worker's module graph, so a
// mock lands or not by which file loaded the module first — scripts/test-imports.test.ts.)
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ingest } from '@paperclip-evals/evalbook';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { compareInEvalbook, reportEvalbook, summariseEvalbook } from '../src/evalbook.ts';

const VALID = fileURLToPath(new URL('../../../fixtures/attempts/valid', import.meta.url));

let dir: string;
let store: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'app-evalbook-progress-'));
  store = `sqlite:${join(dir, 'book.sqlite')}`;
  await ingest({ inputs: [VALID], storeUrl: store });
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('onProgress: the attempts read so far, every PROGRESS_EVERY', () => {
  it('summariseEvalbook (evals grid)', async () => {
    const seen: number[] = [];
    const summary = await summariseEvalbook({
      store,
      progressEvery: 2,
      onProgress: (read) => seen.push(read),
    });
    expect(summary.attempts).toBe(5);
    expect(seen).toEqual([2, 4]);
  });

  it('compareInEvalbook (evals compare)', async () => {
    const seen: number[] = [];
    await compareInEvalbook({
      store,
      compare: { by: 'config', a: 'config_synthetic', b: 'config_synthetic' },
      failOn: [],
      progressEvery: 2,
      onProgress: (read) => seen.push(read),
    });
    expect(seen).toEqual([2, 4]);
  });

  it('reportEvalbook (evals report)', async () => {
    const seen: number[] = [];
    await reportEvalbook({
      store,
      format: 'json',
      out: join(dir, 'report.json'),
      failOn: [],
      progressEvery: 2,
      onProgress: (read) => seen.push(read),
    });
    expect(seen).toEqual([2, 4]);
  });
});
