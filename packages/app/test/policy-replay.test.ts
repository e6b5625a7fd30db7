// The policy-replay workflow in-process (the producer is a real process: a verified script that
// allows every call, or one with a known defect): attempts from files or from the Evalbook, the
// verdicts stored once per policy digest, and every refusal coded — each before the work it would
// spoil (a store that cannot be opened is refused before any producer starts).
import { existsSync } from 'node:fs';
import { mkdtemp, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ingest, openStore } from '@paperclip-evals/evalbook';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { bundleOf, denyApprovals } from '@paperclip-evals/test-kit/policy-bundles';
import { brokenProducer, pidFile } from '@paperclip-evals/test-kit/producers';
import { replayPolicy } from '../src/policy-replay.ts';

import type { Executable } from '@paperclip-evals/test-kit/producers';
import type { PolicyReplayRequest } from '../src/policy-replay.ts';

const VALID = fileURLToPath(new URL('../../../fixtures/attempts/valid', import.meta.url));
const SOLVED = join(VALID, 'solved-no-denials.json');

let dir: string;
let producer: Executable;
let bundle: string;
let huge: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'app-policy-replay-'));
  producer = await brokenProducer(dir, 'none');
  bundle = join(dir, 'policy.json');
  await writeFile(bundle, JSON.stringify(bundleOf(denyApprovals)));
  huge = join(dir, 'huge.json');
  await writeFile(huge, '');
  await truncate(huge, 8 * 1024 * 1024 * 1024); // sparse: costs no disk
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const request = (overrides: Partial<PolicyReplayRequest> = {}): PolicyReplayRequest => ({
  attempts: [VALID],
  policyBinary: producer.path,
  sha256: producer.sha256,
  bundle,
  policyArg: [],
  processes: 1,
  sessionsPerProcess: 4,
  initialState: 'zeroed',
  replyTimeoutMs: 30_000,
  ...overrides,
});

async function bookWithFixtures(name: string): Promise<string> {
  const url = `sqlite:${join(dir, name)}`;
  const summary = await ingest({ inputs: [VALID], storeUrl: url });
  expect(summary.inserted).toBe(5);
  return url;
}

describe('replayPolicy over attempt files', () => {
  it('compares every tool call with what the runner recorded, and stores nothing without a store', async () => {
    const answered: [number, number][] = [];
    const outcome = await replayPolicy(
      request({ onProgress: (done, total) => answered.push([done, total]) }),
    );
    expect(outcome.calls.length).toBeGreaterThan(0);
    expect(outcome.result.rows).toBe(outcome.calls.length);
    expect(outcome.result.rowErrors).toBe(0);
    expect(outcome.result.bundleDigest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(outcome.stored).toBeUndefined();
    expect(outcome.notStored).toEqual([]);
    for (const call of outcome.calls) {
      expect(call.verdict).toBe('allow');
      expect(typeof call.nowMs).toBe('number');
      expect(call.decision).toMatchObject({ verdict: 'allow' });
    }
    // Progress counts up to every call, against the same total.
    expect(answered.at(-1)).toEqual([outcome.calls.length, outcome.calls.length]);
  });

  it('replays the same attempt given twice once', async () => {
    const once = await replayPolicy(request({ attempts: [SOLVED] }));
    const twice = await replayPolicy(request({ attempts: [SOLVED, SOLVED] }));
    expect(twice.calls).toHaveLength(once.calls.length);
  });
});

describe('replayPolicy with a store', () => {
  it("replays the store's own attempts and stores each verdict once per policy digest", async () => {
    const store = await bookWithFixtures('replay.sqlite');
    const first = await replayPolicy(request({ attempts: [], store }));
    expect(first.calls.length).toBeGreaterThan(0);
    expect(first.stored).toEqual({
      url: store,
      inserted: first.calls.length,
      duplicate: 0,
      conflict: 0,
      refused: 0,
    });
    const again = await replayPolicy(request({ attempts: [], store }));
    expect(again.stored).toMatchObject({ inserted: 0, duplicate: first.calls.length });
  });

  it('refuses a store that does not exist before any producer starts', async () => {
    const defect = 'drops_a_reply';
    const dropping = await brokenProducer(dir, defect);
    await expect(
      replayPolicy(
        request({
          policyBinary: dropping.path,
          sha256: dropping.sha256,
          store: `sqlite:${join(dir, 'missing.sqlite')}`,
        }),
      ),
    ).rejects.toThrowCode('paperclip_evalbook_store_unusable');
    expect(existsSync(pidFile(dir, defect))).toBe(false);
    expect(existsSync(join(dir, 'missing.sqlite'))).toBe(false);
  });

  it('stores nothing when the producer skipped every artifact of the bundle', async () => {
    const store = await bookWithFixtures('skipped.sqlite');
    const broken = join(dir, 'all-broken.json');
    const artifact = (id: string): unknown => ({
      kind: 't1_predicate_tree',
      id,
      version: 1,
      body: { when: { field: 'tool_name', regex: '(' }, verdict: 'deny', reason: 'x' },
    });
    await writeFile(broken, JSON.stringify(bundleOf(artifact('one'), artifact('two'))));
    // The real producer skips an artifact it cannot load; this script answers like it does.
    const evaluate = (await import('@paperclip-evals/test-kit/producers')).realProducer;
    const real = await evaluate(dir);
    await expect(
      replayPolicy(request({ bundle: broken, store, policyBinary: real.path, sha256: real.sha256 })),
    ).rejects.toMatchObject({
      code: 'paperclip_app_input_invalid',
      message: expect.stringMatching(/skipped every artifact.*Skipped: one \(t1_predicate_tree\)/) as unknown,
    });
    const book = await openStore(store, { mustExist: true, readOnly: true });
    try {
      const verdicts = [];
      for await (const verdict of book.policyVerdicts()) verdicts.push(verdict);
      expect(verdicts).toEqual([]);
    } finally {
      await book.close();
    }
  });
});

describe('replayPolicy refuses, coded, what it cannot serve', () => {
  const nowhere = (): string => join(dir, 'nowhere.json');
  const rows: [string, () => Partial<PolicyReplayRequest>, string, RegExp][] = [
    [
      'nothing to replay (no attempts, no store), before reading the bundle',
      () => ({ attempts: [], bundle: nowhere() }),
      'paperclip_app_request_invalid',
      /name attempt files or directories, or --store/,
    ],
    ['stdin named twice', () => ({ attempts: ['-', '-'] }), 'paperclip_app_request_invalid', /only once/],
    ['stdin named, none given', () => ({ attempts: ['-'] }), 'paperclip_app_request_invalid', /given none/],
    [
      'an attempt that is not there',
      () => ({ attempts: [nowhere()] }),
      'paperclip_app_input_invalid',
      /nowhere\.json/,
    ],
    [
      'an attempt that is not a bundle',
      () => ({
        attempts: [
          fileURLToPath(
            new URL('../../../fixtures/attempts/invalid/attempt-id-missing.json', import.meta.url),
          ),
        ],
      }),
      'paperclip_native_execution_invalid',
      /attempt-id-missing\.json: /,
    ],
    [
      'a policy bundle over the cap, by its size (a sparse 8 GiB file: read, it would take seconds)',
      () => ({ bundle: huge }),
      'paperclip_app_input_invalid',
      /--bundle .*huge\.json is over the 67108864-byte limit/,
    ],
    [
      'a policy binary whose digest differs',
      () => ({ sha256: `sha256:${'0'.repeat(64)}` }),
      'paperclip_policy_binary_invalid',
      /./,
    ],
  ];
  it.each(rows)('%s', async (_name, overrides, code, message) => {
    await expect(replayPolicy(request(overrides()))).rejects.toMatchObject({
      code,
      message: expect.stringMatching(message) as unknown,
    });
  });
});
