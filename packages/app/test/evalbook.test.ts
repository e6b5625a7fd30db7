// Reading the Evalbook: the report never replaces the SQLite file it reports on, a gate that cannot
// be judged is refused before any store is opened, and the summary, comparison and gates are the
// report's own numbers.
import { readFile, mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ingest } from '@paperclip-evals/evalbook';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { compareInEvalbook, reportEvalbook, summariseEvalbook } from '../src/evalbook.ts';

const VALID = fileURLToPath(new URL('../../../fixtures/attempts/valid', import.meta.url));

let dir: string;
let file: string;
let store: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'app-evalbook-'));
  file = join(dir, 'book.sqlite');
  store = `sqlite:${file}`;
  await ingest({ inputs: [VALID], storeUrl: store });
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('reportEvalbook', () => {
  it('writes the report to the file named and returns its summary and gate verdicts', async () => {
    const out = join(dir, 'report.json');
    const result = await reportEvalbook({
      store,
      format: 'json',
      out,
      failOn: [{ kind: 'below', rate: 0.5 }],
    });
    expect(result.summary.attempts).toBe(5);
    expect(result.gate?.passed).toBe(true);
    expect(JSON.parse(await readFile(out, 'utf8'))).toMatchObject({ schema: 'paperclip-evals/report/v1' });
  });

  it('refuses the SQLite file it reports on as its output, and leaves it whole', async () => {
    const before = await stat(file);
    await expect(reportEvalbook({ store, format: 'md', out: file, failOn: [] })).rejects.toMatchObject({
      code: 'paperclip_app_request_invalid',
      message: expect.stringMatching(/is the Evalbook being reported on/) as unknown,
    });
    expect((await stat(file)).size).toBe(before.size);
    expect((await summariseEvalbook({ store })).attempts).toBe(5);
  });

  it('refuses a gate that needs a comparison before opening any store', async () => {
    await expect(
      reportEvalbook({
        store: `sqlite:${join(dir, 'missing.sqlite')}`,
        format: 'json',
        failOn: [{ kind: 'regression' }],
      }),
    ).rejects.toThrow(/judges a comparison, and none is named/);
  });
});

describe('compareInEvalbook', () => {
  it('compares a config with itself: no regression, and the gate judged with the same summary', async () => {
    const outcome = await compareInEvalbook({
      store,
      compare: { by: 'config', a: 'config_synthetic', b: 'config_synthetic' },
      failOn: [{ kind: 'regression' }],
    });
    expect(outcome.comparison.sharedCases).toBe(1);
    expect(outcome.comparison.regressions).toEqual([]);
    expect(outcome.gate?.gates.map((gate) => gate.failOn)).toEqual(['regression']);
    expect(outcome.summary.comparison).toBe(outcome.comparison);
  });
});
