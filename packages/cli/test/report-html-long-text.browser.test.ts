// `evals report --format html` with huge text in real Chromium: several attempts whose failure
// messages, case id and config id are 100,000 unbroken characters of mixed scripts (what froze the
// tab for tens of seconds: laying out that much text costs seconds per field, whatever the CSS).
// The page must open, and a grid cell's attempts and an attempt's details show, each in well under
// 3 s measured in the browser (layout forced); every such text shows its head and a "show all"
// button, which reveals the whole text, on the page and in the drill-down alike.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { syntheticAttempt } from '@paperclip-evals/test-kit/synthetic';
import { launchChromium, needsChromium, skippedSuffix } from '@paperclip-evals/test-kit/browser';

import type { Browser, Page } from 'playwright-core';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const EVALS = join(ROOT, 'node_modules/.bin/evals');

/** The page's bound: well under it in a browser on a busy two-core machine. */
const BOUND_MS = 3000;
const HUGE = 100_000;
/** 100,000 characters with no space: Latin, accented, CJK, Arabic, emoji and punctuation in turn. */
const huge = (seed: string): string => {
  const units = Array.from(`${seed}é中ب😀-./`);
  return Array.from({ length: HUGE }, (_, index) => units[index % units.length]).join('');
};
const CASE_ID = huge('c');
const CONFIG_ID = huge('k');
const ATTEMPTS = 4;
const message = (index: number): string => huge(`m${index}`);
/** What the page shows of a longer text: 500 characters (499 rather than half an emoji), then …. */
const headOf = (text: string): string => {
  const end = /[\ud800-\udbff]/.test(text.charAt(499)) ? 499 : 500;
  return `${text.slice(0, end)}…`;
};

/** What the page's script needs of a DOM (the tests compile without the DOM lib). */
interface PageNode {
  click(): void;
  textContent: string | null;
  hidden: boolean;
}
interface PageDocument {
  querySelector(selector: string): PageNode | null;
  body: { offsetHeight: number };
}
declare const document: PageDocument;
declare const performance: { now(): number };

/** Clicks `selector` in the page: the milliseconds until the page is laid out again (reading its height). */
async function timedClick(page: Page, selector: string): Promise<number> {
  const { ms, height } = await page.evaluate((target) => {
    const start = performance.now();
    const node = document.querySelector(target);
    if (node === null) throw new Error(`nothing matches ${target}`);
    node.click();
    const laidOut = document.body.offsetHeight;
    return { ms: performance.now() - start, height: laidOut };
  }, selector);
  expect(height).toBeGreaterThan(0);
  return ms;
}

const HAVE_CHROMIUM = needsChromium(import.meta.url, 'the HTML report with huge texts in headless Chromium');

describe.skipIf(!HAVE_CHROMIUM)(
  `evals report --format html with 100,000-character texts${skippedSuffix(HAVE_CHROMIUM)}`,
  () => {
    let dir: string;
    let browser: Browser | undefined;
    let page: Page;
    const errors: string[] = [];

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'evals-report-long-'));
      mkdirSync(join(dir, 'runs'));
      for (let index = 0; index < ATTEMPTS; index++) {
        const bundle = syntheticAttempt({
          runId: 'run_1',
          caseId: CASE_ID,
          configId: CONFIG_ID,
          attemptId: `attempt_${index}`,
          runTerminalState: 'failed',
        }) as { failure: { message: string } };
        bundle.failure.message = message(index);
        writeFileSync(join(dir, 'runs', `${index}.json`), JSON.stringify(bundle));
      }
      for (const args of [
        ['ingest', 'runs', '--store', 'sqlite:book.sqlite'],
        ['report', '--format', 'html', '--out', 'report.html', '--store', 'sqlite:book.sqlite'],
      ]) {
        const result = spawnSync(EVALS, args, { cwd: dir, encoding: 'utf8' });
        if (result.status !== 0)
          throw new Error(`evals ${args[0] ?? ''} exited ${String(result.status)}: ${result.stderr}`);
      }
      browser = await launchChromium();
      page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      page.on('pageerror', (error) => errors.push(error.message));
      page.on('console', (entry) => {
        if (entry.type() === 'error') errors.push(entry.text());
      });
    });
    afterAll(async () => {
      await browser?.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it('opens and is laid out within the bound', { timeout: 120_000 }, async () => {
      await page.goto(pathToFileURL(join(dir, 'report.html')).href, { timeout: 100_000 });
      // since navigation started, until the page is laid out (reading its height)
      const { ms, height } = await page.evaluate(() => {
        const laidOut = document.body.offsetHeight;
        return { ms: performance.now(), height: laidOut };
      });
      expect(height).toBeGreaterThan(0);
      expect(ms).toBeLessThan(BOUND_MS);
      expect(errors).toEqual([]);
    });

    it('shows a huge id as its head and a "show all" button that reveals it', async () => {
      const header = page.locator('table.grid[data-scope="latest"] th[scope=row] .clip');
      await expect(header.getAttribute('data-length')).resolves.toBe(String(HUGE));
      await expect(header.locator('.clip-head').textContent()).resolves.toBe(headOf(CASE_ID));
      const button = header.locator('button.clip-more');
      await expect(button.textContent()).resolves.toBe('show all 100,000 characters');
      expect(await header.locator('.clip-all').isVisible()).toBe(false);
      await button.click();
      expect(await header.locator('.clip-all').isVisible()).toBe(true);
      await expect(header.locator('.clip-all').textContent()).resolves.toBe(CASE_ID);
      expect(await header.locator('.clip-head').isVisible()).toBe(false);
      await button.click();
      expect(await header.locator('.clip-all').isVisible()).toBe(false);
    });

    it('lists a cell’s attempts and shows an attempt within the bound', { timeout: 120_000 }, async () => {
      const cell = await timedClick(page, 'td.cell[data-scope="latest"]:not(.empty)');
      expect(cell).toBeLessThan(BOUND_MS);
      expect(await page.locator('#cell-attempts tr[data-attempt]').count()).toBe(ATTEMPTS);
      const attempt = await timedClick(page, '#cell-attempts tr[data-attempt="attempt_2"] button');
      expect(attempt).toBeLessThan(BOUND_MS);
      expect(errors).toEqual([]);
    });

    it('shows a huge failure message as its head, and all of it on "show all"', async () => {
      const detail = page.locator('#attempt-detail [data-attempt="attempt_2"]');
      const clipped = detail.locator(`.clip[data-length="${HUGE}"]`);
      // the case id, the config id and the message, each clipped
      expect(await clipped.count()).toBeGreaterThanOrEqual(3);
      // what is laid out (innerText: hidden text left out) is the heads, not the texts
      const shown = await detail.innerText();
      expect(shown).not.toContain(message(2));
      expect(shown.length).toBeLessThan(20_000);
      const messageClip = detail.locator('.clip', { hasText: message(2).slice(0, 500) });
      await expect(messageClip.locator('.clip-head').textContent()).resolves.toBe(headOf(message(2)));
      await messageClip.locator('button.clip-more').click();
      await expect(messageClip.locator('.clip-all').textContent()).resolves.toBe(message(2));
      expect(await messageClip.locator('.clip-all').isVisible()).toBe(true);
      await expect(messageClip.locator('button.clip-more').getAttribute('aria-expanded')).resolves.toBe(
        'true',
      );
      expect(errors).toEqual([]);
    });
  },
);
