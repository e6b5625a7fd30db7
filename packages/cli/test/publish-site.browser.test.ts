// The published site in headless Chromium from file:// (issue 19): every kind of page — the site
// index, a campaign's grid, a case page, an attempt page, private and public — loads with ZERO
// network requests (the only request is the page's own file), logs no error, and its links lead to
// the pages they name (followed by clicking, still from file://).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
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

    // A reader of a site has no store: a grid cell lists the cell's attempts, each linked to its page
    // (every attempt has one), and no text of the page sends them to an `evals` command.
    it.each(['site', 'public'])(
      "a grid cell of the %s site lists its attempts' pages, each link resolving to a file, and no evals command",
      async (site) => {
        const grid = join(dir, site, 'campaigns/nightly-2/index.html');
        const { page, errors, requests } = await open(grid);
        const cell = page.locator('td.cell[data-scope="latest"][data-case="case_b"]').first();
        const config = (await cell.getAttribute('data-config')) ?? '';
        await cell.click();
        const links = page.locator('#cell-attempts a[data-attempt-page]');
        await expect(links.count()).resolves.toBeGreaterThan(0);
        const hrefs = await links.evaluateAll((anchors) =>
          anchors.map((a) => (a as unknown as { href: string }).href),
        );
        const files = (await readdir(join(dir, site, 'campaigns/nightly-2/attempts'))).filter((name) =>
          name.startsWith(`case_b.${config}.`),
        );
        expect(hrefs).toHaveLength(files.length);
        for (const href of hrefs) {
          expect(href).toMatch(/^file:\/\/.*\/campaigns\/nightly-2\/attempts\/case_b\.[^/]+\.html$/);
          expect(href).toContain(`/case_b.${config}.`);
          expect(existsSync(fileURLToPath(href)), href).toBe(true);
        }
        const casePage = page.locator('#cell-attempts a[data-case-page]').first();
        expect(
          existsSync(fileURLToPath(await casePage.evaluate((a) => (a as unknown as { href: string }).href))),
        ).toBe(true);
        const shown = (await page.locator('main').innerText()).replaceAll(/\s+/g, ' ');
        expect(shown).not.toMatch(/evals report/);
        expect(shown).not.toMatch(/JSON report/);
        expect(shown).toMatch(/Campaign nightly-2/);
        expect(shown).not.toMatch(/Store /);
        await links.first().click();
        expect(page.url()).toBe(hrefs[0]);
        await expect(page.locator('h1').textContent()).resolves.toMatch(/^Attempt /);
        expect(errors).toEqual([]);
        expect(requests.every((url) => url.startsWith('file://'))).toBe(true);
        await page.close();
      },
    );

    it("the campaign page's own script (the report's drill-down) runs under its CSP", async () => {
      const { page, errors } = await open(join(dir, 'site', 'campaigns/nightly-2/index.html'));
      // The script replaces the no-JavaScript hint once it runs.
      await expect(page.locator('#drill-hint').textContent()).resolves.toMatch(/^Click a grid cell/);
      expect(errors).toEqual([]);
      await page.close();
    });
  },
);
