// `evals publish` on several threads (issue 19): page workers render the attempt pages of the
// pages of the stream they claim, so a campaign folder must be the same byte for byte whatever the
// thread count (private and public, with retracted attempts left out by every thread alike); a
// worker's error fails the publication closed (no campaign folder, no temporary folder, no root
// files); and the thread count is a checked number.
import { createHash } from 'node:crypto';
import { renameSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { openStore } from '@paperclip-evals/evalbook';

import { publishSite } from '../src/site/publish.ts';
import { verifySite } from '../src/site/verify.ts';
import {
  PAGE_WORKER_LIMITS,
  PUBLISH_THREADS_ENV,
  campaignThreads,
  checkedThreads,
  publishThreads,
  startPageWorkers,
} from '../src/site/publish-workers.ts';
import { seedCampaigns } from '@paperclip-evals/test-kit/site-store';

let dir: string;
let store: string;

/** 600 attempts (300 cases × 2 lanes): two pages of the stream, so two threads share the campaign. */
const cases = (solvedEvery: number): Record<string, boolean> =>
  Object.fromEntries(
    Array.from({ length: 300 }, (_, index) => [
      `case_${String(index).padStart(3, '0')}`,
      index % solvedEvery !== 0,
    ]),
  );

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'app-site-threads-'));
  store = `sqlite:${join(dir, 'book.sqlite')}`;
  await seedCampaigns(store, [
    { campaignId: 'big1', minute: 1, cases: cases(3) },
    { campaignId: 'big2', minute: 2, cases: cases(4) },
    // A record with case prompts: a worker's pages show them as this thread's do.
    {
      campaignId: 'big3',
      minute: 3,
      cases: cases(5),
      record: {
        caseDefinitions: Object.keys(cases(5)).map((id) => ({
          id,
          prompt: `Fix the bug of ${id} — “quoted” <b>`,
          description: `${id}: a described case`,
        })),
      },
    },
  ]);
  // Retracted attempts on the first page: every thread must leave them out, or the pages shift.
  const book = await openStore(store);
  await book.retract({
    runId: 'big1',
    attemptIds: ['attempt_3_0', 'attempt_7_1'],
    reason: 'a flaky grader',
    by: 'test',
    at: '2026-11-02T00:00:00.000Z',
  });
  await book.close();
}, 120_000);

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Every file under `root`, by path, as its sha256 and size. */
async function tree(root: string): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  for (const entry of await readdir(root, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    const bytes = await readFile(path);
    files[path.slice(root.length + 1)] =
      `${createHash('sha256').update(bytes).digest('hex')} ${bytes.length}`;
  }
  return files;
}

describe('when a campaign is published on several threads', () => {
  it('uses them: the campaign has more pages of the stream than one', () => {
    expect(publishThreads(3, 600)).toBe(2);
    expect(publishThreads(1, 600)).toBe(1);
  });

  it("sizes the threads by the campaign's own attempts, not the ledger's", async () => {
    const book = await openStore(store);
    try {
      // 1,800 attempts in the ledger (four pages of the stream), 600 of them big1's (two pages).
      expect(await book.countAttempts()).toBe(1800);
      expect(await book.countAttempts('big1')).toBe(600);
      expect(await campaignThreads(book, 'big1', 4)).toBe(2);
      expect(await campaignThreads(book, 'no-such-campaign', 4)).toBe(1);
    } finally {
      await book.close();
    }
  });

  it.each([
    ['private', false],
    ['public', true],
  ])('writes the same %s folder byte for byte as one thread', async (_name, isPublic) => {
    const one = join(dir, `one-${String(isPublic)}`);
    const two = join(dir, `two-${String(isPublic)}`);
    await publishSite({ store, out: one, campaign: 'big1', public: isPublic, threads: 1 });
    await publishSite({ store, out: two, campaign: 'big1', public: isPublic, threads: 2 });
    const [single, threaded] = [await tree(one), await tree(two)];
    expect(threaded).toEqual(single);
    // 598 attempt pages: the two retracted attempts have none, on either thread.
    expect(Object.keys(single).filter((path) => path.includes('/attempts/'))).toHaveLength(598);
    expect(Object.keys(single).some((path) => path.endsWith('attempt_3_0.html'))).toBe(false);
    expect((await verifySite(two)).issues).toEqual([]);
  });

  it("renders the record's case prompts and the --as links on every thread alike", async () => {
    const one = join(dir, 'as-one');
    const two = join(dir, 'as-two');
    const as = 'big3-report-1';
    await publishSite({ store, out: one, campaign: 'big3', as, threads: 1 });
    await publishSite({ store, out: two, campaign: 'big3', as, threads: 2 });
    const [single, threaded] = [await tree(one), await tree(two)];
    expect(threaded).toEqual(single);
    // The last case's attempt pages are on the second page of the stream.
    const pages = Object.keys(single).filter((path) => path.includes('/attempts/'));
    expect(pages).toHaveLength(600);
    expect(pages.every((path) => path.startsWith(`campaigns/${as}/`))).toBe(true);
    const last = pages.filter((path) => path.includes('case_299'));
    expect(last).toHaveLength(2);
    for (const path of last) {
      const html = await readFile(join(two, path), 'utf8');
      expect(html).toContain('Fix the bug of case_299');
      expect(html).toContain(`Campaign ${as}`);
    }
    expect((await verifySite(two)).issues).toEqual([]);
  });

  it('fails closed when a worker fails: no campaign folder, no temporary folder, the root files untouched', async () => {
    const copy = join(dir, 'copy.sqlite');
    await writeFile(copy, await readFile(store.slice('sqlite:'.length)));
    const site = join(dir, 'failing');
    await writeFile(join(dir, 'not-a-store'), 'not a SQLite file');
    const published: string[] = [];
    const attempt = publishSite({
      store: `sqlite:${copy}`,
      out: site,
      threads: 2,
      onCampaign: (campaign) => {
        published.push(campaign.campaignId);
        // The next campaign's worker opens the store by its path: now a file that is not a store
        // (this thread reads on through the connection it has).
        renameSync(join(dir, 'not-a-store'), copy);
      },
    });
    await expect(attempt).rejects.toMatchObject({ code: 'paperclip_evalbook_store_unusable' });
    expect(published).toEqual(['big1']);
    expect((await readdir(join(site, 'campaigns'))).sort()).toEqual(['big1']);
    // The root files are written after every campaign: none was.
    expect((await readdir(site)).sort()).toEqual(['campaigns']);
  });

  it("caps each page worker's heap, and a worker out of it is a coded refusal that says what to do", async () => {
    expect(PAGE_WORKER_LIMITS.maxOldGenerationSizeMb).toBeLessThanOrEqual(128);
    const folder = await mkdtemp(join(dir, 'folder-'));
    // A heap far too small for the worker to render a page: V8 stops it (ERR_WORKER_OUT_OF_MEMORY).
    const workers = startPageWorkers(
      1,
      {
        storeUrl: store,
        campaignId: 'big1',
        record: null,
        public: false,
        folder,
        counter: new SharedArrayBuffer(4),
      },
      { maxOldGenerationSizeMb: 2, maxYoungGenerationSizeMb: 1 },
    );
    const failure = workers.entries.then(
      () => null,
      (error: unknown) => error,
    );
    expect(await failure).toMatchObject({
      name: 'AppError',
      code: 'paperclip_app_request_invalid',
      issues: [{ code: 'publish_worker_out_of_memory', path: '/threads' }],
    });
    expect(String(await failure)).toMatch(/2 MB heap .*campaign big1.*--threads 1/);
    expect(() => {
      workers.check();
    }).toThrow(/--threads 1/);
    await workers.stop();
  });

  it("rejects with the worker's error, and says so to the thread that asks", async () => {
    const folder = await mkdtemp(join(dir, 'folder-'));
    const workers = startPageWorkers(1, {
      storeUrl: `sqlite:${join(dir, 'missing.sqlite')}`,
      campaignId: 'big1',
      record: null,
      public: false,
      folder,
      counter: new SharedArrayBuffer(4),
    });
    await expect(workers.entries).rejects.toMatchObject({ code: 'paperclip_evalbook_store_unusable' });
    expect(() => {
      workers.check();
    }).toThrow(/missing\.sqlite/);
    await workers.stop();
    expect(await readdir(folder)).toEqual([]);
  });
});

describe('when a site is verified on several threads', () => {
  it('finds every defect, in chunks any thread checks, and reports them as one thread does', async () => {
    const site = join(dir, 'defects');
    await publishSite({ store, out: site, campaign: 'big2', threads: 1 });
    const attempts = join(site, 'campaigns', 'big2', 'attempts');
    const names = (await readdir(attempts)).sort();
    expect(names.length).toBe(600);
    // Defects in the first, a middle and the last chunk of the manifest's 600 entries.
    await writeFile(join(attempts, names[0] ?? ''), 'tampered');
    await rm(join(attempts, names[300] ?? ''));
    const last = join(attempts, names[599] ?? '');
    await writeFile(last, `${await readFile(last, 'utf8')}<script>alert(1)</script>`);
    await writeFile(join(attempts, 'extra.html'), '<a href="https://example.com/">x</a>');
    const one = await verifySite(site, { threads: 1 });
    const two = await verifySite(site, { threads: 2 });
    expect(two).toEqual(one);
    expect(one.issues.map((entry) => entry.code).sort()).toEqual([
      'site_digest_mismatch',
      'site_digest_mismatch',
      'site_file_missing',
      'site_link_broken',
      'site_remote_resource',
      'site_script_foreign',
      'site_unknown_path',
    ]);
  });
});

describe('the thread count', () => {
  it.each(['0', '65', '1.5', '-1', 'two', '', ' 2'])('refuses %j', (text) => {
    expect(() => checkedThreads(text, '--threads')).toThrowCode('paperclip_app_request_invalid');
  });

  it('takes 1 to 64, from the flag, else the environment, never more than the pages of the stream', () => {
    expect(checkedThreads('64', '--threads')).toBe(64);
    const before = process.env[PUBLISH_THREADS_ENV];
    try {
      process.env[PUBLISH_THREADS_ENV] = '3';
      expect(publishThreads(undefined, 10_000)).toBe(3);
      expect(publishThreads(2, 10_000)).toBe(2);
      expect(publishThreads(undefined, 900)).toBe(2);
      expect(publishThreads(undefined, 1)).toBe(1);
      process.env[PUBLISH_THREADS_ENV] = 'many';
      expect(() => publishThreads(undefined, 10_000)).toThrowCode('paperclip_app_request_invalid');
    } finally {
      if (before === undefined) Reflect.deleteProperty(process.env, PUBLISH_THREADS_ENV);
      else process.env[PUBLISH_THREADS_ENV] = before;
    }
  });
});
