// `evals publish --verify` and the site's root files (a new user's review, S1): history.json,
// latest.json and latest-green.json are listed by no manifest, so verify reads each with the strict
// JSON reader, validates it against its schema, and holds the three to each other and to the
// campaign folders; the root index.html's links are checked as a campaign page's are. A test per
// defect, each planted alone in a copy of a site of two campaigns (c2 the newer and the latest; c1
// the latest green).
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { publishSite } from '../src/site/publish.ts';
import { verifySite } from '../src/site/verify.ts';
import { seedCampaigns } from '@paperclip-evals/test-kit/site-store';

import type { SiteHistory, SiteLatest } from '@paperclip-evals/evalbook';

let dir: string;
let published: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'app-site-verify-root-'));
  const store = `sqlite:${join(dir, 'book.sqlite')}`;
  await seedCampaigns(store, [
    { campaignId: 'c1', minute: 1, cases: { case_a: true, case_b: true } },
    { campaignId: 'c2', minute: 2, cases: { case_a: false, case_b: true } },
  ]);
  published = join(dir, 'published');
  await publishSite({ store, out: published });
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

let copies = 0;
async function copy(): Promise<string> {
  const site = join(dir, `copy-${copies++}`);
  await cp(published, site, { recursive: true });
  return site;
}
const readJson = async <T>(site: string, name: string): Promise<T> =>
  JSON.parse(await readFile(join(site, name), 'utf8')) as T;
const writeJson = (site: string, name: string, value: unknown): Promise<void> =>
  writeFile(join(site, name), `${JSON.stringify(value, null, 2)}\n`);
const codes = async (site: string): Promise<string[]> =>
  [...new Set((await verifySite(site)).issues.map((issue) => issue.code))].sort();

describe('evals publish --verify: the root files', () => {
  it('the site as published verifies: c2 is the latest, c1 the latest green', async () => {
    expect(await verifySite(published)).toMatchObject({ ok: true, issues: [], campaigns: 2 });
    expect((await readJson<SiteLatest>(published, 'latest.json')).campaign?.campaignId).toBe('c2');
    expect((await readJson<SiteLatest>(published, 'latest-green.json')).campaign?.campaignId).toBe('c1');
  });

  it("site_root_invalid: the review's site — garbage after latest.json, history.json cut at 100 bytes", async () => {
    const site = await copy();
    await writeFile(join(site, 'latest.json'), 'garbage\n', { flag: 'a' });
    const history = await readFile(join(site, 'history.json'));
    await writeFile(join(site, 'history.json'), history.subarray(0, 100));
    const result = await verifySite(site);
    expect(result.ok).toBe(false);
    expect(result.issues.map((issue) => [issue.code, issue.path])).toEqual([
      ['site_root_invalid', 'history.json'],
      ['site_root_invalid', 'latest.json'],
    ]);
    expect(result.issues[0]?.message).toContain('history.json is not strict JSON (100 bytes)');
    expect(result.issues[0]?.message).toContain('publish into the site again');
  });

  it.each([
    ['garbage after it', (text: string) => `${text}garbage\n`],
    ['cut short', (text: string) => text.slice(0, 40)],
    ['a duplicate key', (text: string) => text.replace('{', '{"which": "latest_green",')],
    ['empty', () => ''],
    ['a byte order mark', (text: string) => `\uFEFF${text}`],
    ['an array, not an object', () => '[1, 2]\n'],
  ])('site_root_invalid: latest-green.json %s', async (_name, change) => {
    const site = await copy();
    await writeFile(
      join(site, 'latest-green.json'),
      change(await readFile(join(site, 'latest-green.json'), 'utf8')),
    );
    expect(await codes(site)).toEqual(['site_root_invalid']);
  });

  it('site_root_schema: history.json of the wrong shape (a pass rate that is text), at its pointer', async () => {
    const site = await copy();
    const history = await readJson<SiteHistory & { campaigns: { passRate: unknown }[] }>(
      site,
      'history.json',
    );
    (history.campaigns[0] as { passRate: unknown }).passRate = 'high';
    await writeJson(site, 'history.json', history);
    expect(await codes(site)).toEqual(['site_root_schema']);
    const paths = (await verifySite(site)).issues.map((issue) => issue.path);
    expect(paths).toContain('history.json#/campaigns/0/passRate');
  });

  it('site_root_schema: latest.json that is not a site-latest/v1 document (no campaign member)', async () => {
    const site = await copy();
    await writeJson(site, 'latest.json', { schema: 'paperclip-evals/site-latest/v1', which: 'latest' });
    expect(await codes(site)).toEqual(['site_root_schema']);
  });

  it("site_root_schema: latest.json that says which: latest_green (latest-green.json's)", async () => {
    const site = await copy();
    await cp(join(site, 'latest-green.json'), join(site, 'latest.json'));
    const result = await verifySite(site);
    expect(result.issues.map((issue) => [issue.code, issue.path])).toEqual([
      ['site_root_schema', 'latest.json#/which'],
    ]);
  });

  it('site_root_inconsistent: latest.json names a campaign folder the site does not have', async () => {
    const site = await copy();
    const latest = await readJson<SiteLatest & { campaign: { folder: string } }>(site, 'latest.json');
    latest.campaign.folder = 'campaigns/gone';
    await writeJson(site, 'latest.json', latest);
    const result = await verifySite(site);
    expect(await codes(site)).toEqual(['site_root_inconsistent']);
    expect(result.issues[0]?.message).toContain(
      'latest.json names campaign c2 in campaigns/gone, which the site does not have',
    );
  });

  it("site_root_inconsistent: latest.json names a campaign that is not history.json's latest", async () => {
    const site = await copy();
    const history = await readJson<SiteHistory>(site, 'history.json');
    const c1 = history.campaigns.find((entry) => entry.campaignId === 'c1');
    await writeJson(site, 'latest.json', {
      schema: 'paperclip-evals/site-latest/v1',
      which: 'latest',
      campaign: c1,
    });
    const result = await verifySite(site);
    expect(result.issues.map((issue) => issue.code)).toEqual(['site_root_inconsistent']);
    expect(result.issues[0]?.message).toContain("latest.json names c1, but history.json's latest is c2");
  });

  it("site_root_inconsistent: latest.json's entry is not history.json's (its pass rate edited)", async () => {
    const site = await copy();
    const latest = await readJson<SiteLatest & { campaign: { passRate: number } }>(site, 'latest.json');
    latest.campaign.passRate = 1;
    await writeJson(site, 'latest.json', latest);
    expect(await codes(site)).toEqual(['site_root_inconsistent']);
  });

  it('site_root_inconsistent: history.json lists a campaign whose folder the site does not have', async () => {
    const site = await copy();
    const history = await readJson<SiteHistory & { rerenders: unknown[] }>(site, 'history.json');
    const c1 = history.campaigns.find((entry) => entry.campaignId === 'c1');
    history.rerenders.push({ ...c1, campaignId: 'ghost', folder: 'campaigns/ghost', kind: 'rerender' });
    await writeJson(site, 'history.json', history);
    const result = await verifySite(site);
    expect(result.issues.map((issue) => issue.code)).toEqual(['site_root_inconsistent']);
    expect(result.issues[0]?.message).toContain('campaigns/ghost, which the site does not have');
  });

  it('a campaign folder history.json does not list yet (a publication stopped between campaigns) still verifies', async () => {
    const site = await copy();
    const history = await readJson<SiteHistory & { campaigns: unknown[] }>(site, 'history.json');
    history.campaigns = history.campaigns.filter(
      (entry) => (entry as { campaignId: string }).campaignId !== 'c1',
    );
    await writeJson(site, 'history.json', { ...history, latestGreen: null });
    await writeJson(site, 'latest-green.json', {
      schema: 'paperclip-evals/site-latest/v1',
      which: 'latest_green',
      campaign: null,
    });
    expect(await verifySite(site)).toMatchObject({ ok: true, issues: [] });
  });

  it("site_root_inconsistent: history.json's latest is a campaign it does not list", async () => {
    const site = await copy();
    const history = await readJson<SiteHistory>(site, 'history.json');
    await writeJson(site, 'history.json', { ...history, latest: 'ghost' });
    const result = await verifySite(site);
    expect(await codes(site)).toEqual(['site_root_inconsistent']);
    expect(result.issues.map((issue) => issue.path)).toEqual([
      'history.json#/latest',
      'latest.json#/campaign',
    ]);
  });

  it("site_root_inconsistent: history.json's latest green is not its newest green campaign (and latest-green.json agrees)", async () => {
    const site = await copy();
    const history = await readJson<SiteHistory>(site, 'history.json');
    const c2 = history.campaigns.find((entry) => entry.campaignId === 'c2');
    expect(c2?.green).toBe(false);
    await writeJson(site, 'history.json', { ...history, latestGreen: 'c2' });
    await writeJson(site, 'latest-green.json', {
      schema: 'paperclip-evals/site-latest/v1',
      which: 'latest_green',
      campaign: c2,
    });
    const result = await verifySite(site);
    expect(result.issues.map((issue) => [issue.code, issue.path])).toEqual([
      ['site_root_inconsistent', 'history.json#/latestGreen'],
    ]);
    expect(result.issues[0]?.message).toContain('but the newest green campaign it lists is c1');
  });

  it('site_link_broken: the root index.html links to a campaign page that is not there', async () => {
    const site = await copy();
    const index = await readFile(join(site, 'index.html'), 'utf8');
    expect(index).toContain('campaigns/c2/index.html');
    await writeFile(
      join(site, 'index.html'),
      index.replace('campaigns/c2/index.html', 'campaigns/c9/index.html'),
    );
    const result = await verifySite(site);
    expect(result.issues.map((issue) => [issue.code, issue.path])).toEqual([
      ['site_link_broken', 'index.html'],
    ]);
  });
});
