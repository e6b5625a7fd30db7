// The published site in headless Chromium from file:// (issue 19): every kind of page — the site
// index, a campaign's grid, a case page, an attempt page, private and public — loads with ZERO
// network requests (the only request is the page's own file), logs no error, and its links lead to
// the pages they name (followed by clicking, still from file://).
import { spawnSync } from 'node:child_process';
import {} from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { seedCampaigns } from '@paperclip-evals/test-kit/site-store';
import { launchChromium, needsChromium, skippedSuffix } from '@paperclip-evals/test-kit/browser';

import type { Browser, Page } from 'playwright-core';

const REPO = fileURLToPath(new URL('../../../', import.meta.url));
const EVALS = join(REPO, 'packages/cli/bin/evals.js');

const HAVE_CHROMIUM = needsChromium(import.meta.url, 'the published site in headless Chromium');

let dir: string;
let browser: Browser | undefined;

function publish(args: readonly string[]): void {
  const result = spawnSync(process.execPath, [EVALS, 'publish', ...args], { cwd: dir, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`evals publish exited ${String(result.status)}: ${result.stderr}`);
}

/** Opens `file` from file:// and returns every request the page made and every error it logged. */
async function open(file: string): Promise<{ page: Page; requests: string[]; errors: string[] }> {
  const page = await (browser as Browser).newPage();
  const requests: string[] = [];
  const errors: string[] = [];
  page.on('request', (request) => requests.push(request.url()));
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(error.message));
  await page.goto(pathToFileURL(file).href);
  return { page, requests, errors };
}

describe.skipIf(!HAVE_CHROMIUM)(
  `the published site in headless Chromium${skippedSuffix(HAVE_CHROMIUM)}`,
  () => {
    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), 'evals-site-browser-'));
      const store = `sqlite:${join(dir, 'book.sqlite')}`;
      await seedCampaigns(store, [
        { campaignId: 'nightly-1', minute: 1, cases: { case_a: true, case_b: true } },
        { campaignId: 'nightly-2', minute: 2, cases: { case_a: true, case_b: false } },
      ]);
      publish(['--store', store, '--out', 'site']);
      publish(['--store', store, '--out', 'public', '--public']);
      browser = await launchChromium();
    }, 60_000);
    afterAll(async () => {
      await browser?.close();
      await rm(dir, { recursive: true, force: true });
    });

    const pages = async (site: string): Promise<string[]> => {
      const attempts = (await readdir(join(dir, site, 'campaigns/nightly-2/attempts'))).sort();
      return [
        'index.html',
        'campaigns/nightly-2/index.html',
        'campaigns/nightly-2/tests/case_b.html',
        `campaigns/nightly-2/attempts/${attempts[0] ?? ''}`,
      ];
    };

    it.each(['site', 'public'])(
      'every kind of page of the %s site loads with zero network requests and no error',
      async (site) => {
        for (const path of await pages(site)) {
          const file = join(dir, site, path);
          const { page, requests, errors } = await open(file);
          expect(requests, path).toEqual([pathToFileURL(file).href]);
          expect(errors, path).toEqual([]);
          expect(await page.locator('main').count(), path).toBe(1);
          await page.close();
        }
      },
    );

    it('links lead from the index to a campaign, a case and an attempt, all from file://', async () => {
      const { page, requests } = await open(join(dir, 'site', 'index.html'));
      await expect(
        page.locator('#campaigns tr[data-campaign]').evaluateAll((rows) => rows.length),
      ).resolves.toBe(2);
      await page.locator('a', { hasText: 'nightly-2' }).first().click();
      expect(page.url()).toBe(pathToFileURL(join(dir, 'site/campaigns/nightly-2/index.html')).href);
      await page.locator('nav.site-nav a', { hasText: 'case_b' }).click();
      expect(page.url()).toBe(pathToFileURL(join(dir, 'site/campaigns/nightly-2/tests/case_b.html')).href);
      await page.locator('table a').first().click();
      expect(page.url()).toMatch(/\/campaigns\/nightly-2\/attempts\/case_b\.[^/]+\.html$/);
      await expect(page.locator('h1').textContent()).resolves.toMatch(/^Attempt /);
      expect(requests.every((url) => url.startsWith('file://'))).toBe(true);
      await page.close();
    });

    it('a private attempt page links to All campaigns, its campaign and its case, from file://', async () => {
      const attempts = (await readdir(join(dir, 'site', 'campaigns/nightly-2/attempts'))).sort();
      const attempt = join(dir, 'site', 'campaigns/nightly-2/attempts', attempts[0] ?? '');
      const targets: [string, string][] = [
        ['All campaigns', 'site/index.html'],
        ['Campaign nightly-2', 'site/campaigns/nightly-2/index.html'],
        [
          `case ${(attempts[0] ?? '').split('.')[0] ?? ''}`,
          `site/campaigns/nightly-2/tests/${(attempts[0] ?? '').split('.')[0] ?? ''}.html`,
        ],
      ];
      for (const [label, target] of targets) {
        const { page, requests } = await open(attempt);
        await page.locator('header nav a', { hasText: label }).click();
        expect(page.url(), label).toBe(pathToFileURL(join(dir, target)).href);
        await expect(page.locator('main').count(), label).resolves.toBe(1);
        expect(requests.every((url) => url.startsWith('file://'))).toBe(true);
        await page.close();
      }
    });

    it("the campaign page's own script (the report's drill-down) runs under its CSP", async () => {
      const { page, errors } = await open(join(dir, 'site', 'campaigns/nightly-2/index.html'));
      // The script replaces the no-JavaScript hint once it runs.
      await expect(page.locator('#drill-hint').textContent()).resolves.toMatch(/^Click a grid cell/);
      expect(errors).toEqual([]);
      await page.close();
    });
  },
);
