// The HTML report's views in real Chromium (issue 19): the newest run by default (a fixture whose
// newest run collapsed while the pooled cell looks green: the default shows the collapse), "all runs"
// one click away; the status filter, the search, sorting (mouse and keyboard; the grid's sort in the
// address), deep links to a cell
// and to an attempt that survive a reload and walk back/forward, a link back from the drill-down; the
// checks × configs table (per-call runner observations left out); what each config and case is; the
// trend plot's coinciding lines and ticks that never overlap; a 390 px viewport; and not one network
// request (every request is counted and any but the file itself aborted). The evalbook is built and
// rendered with the real `evals` binary, next to the JSON report the page is checked against.
// UPDATE_SCREENSHOTS=1 (or EVALS_UPDATE_SCREENSHOTS=1) copies the screenshots into docs/images/.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { syntheticAttempt } from '@paperclip-evals/test-kit/synthetic';
import {
  keepScreenshots,
  launchChromium,
  needsChromium,
  skippedSuffix,
} from '@paperclip-evals/test-kit/browser';

import type { Browser, BrowserContext, Page } from 'playwright-core';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const EVALS = join(ROOT, 'node_modules/.bin/evals');

/** A case id a deep link must encode (an environment's ids are [A-Za-z0-9._:-]). */
const SLASHED = 'db:migrate.2';
const CASES = ['fix-typo', 'refactor-auth', 'add-tests', SLASHED];
const CONFIGS = ['baseline', 'candidate'];
/** Fourteen nightly runs: enough that the trend plot's run labels would collide unthinned. */
const RUNS = Array.from(
  { length: 14 },
  (_, index) => `nightly-2026-11-${String(index + 1).padStart(2, '0')}`,
);
const NEWEST = RUNS.at(-1)!;

/**
 * Outcomes per (case, config) in the newest run: S solved, U unsolved, E errored, I incomplete.
 * Every earlier run solves everything once per cell, so refactor-auth × candidate pools green
 * (13 of 16) while its newest run solved none.
 */
const NEWEST_PLAN: Record<string, Record<string, string>> = {
  'fix-typo': { baseline: 'SSS', candidate: 'SSS' },
  'refactor-auth': { baseline: 'SSU', candidate: 'UUU' },
  'add-tests': { baseline: 'SES', candidate: 'SIS' },
  [SLASHED]: { baseline: 'SS', candidate: 'SU' },
};

interface Cell {
  caseId: string;
  configId: string;
  solveRate: number | null;
  flaky: boolean;
  statusCounts: Record<string, number>;
}
interface JsonReport {
  attempts: {
    runId: string;
    caseId: string;
    configId: string;
    attemptId: string;
    bundleDigest: string;
    status: string;
  }[];
  summary: {
    latestRun: string;
    grid: Cell[];
    latestGrid: (Cell & { delta: number | null; previous: { runId: string } | null })[];
    checkRates: { checkId: string; configId: string; latest: { passRate: number | null } | null }[];
    perCallObservations: number;
    checkDrift: { checkId: string }[];
    configStats: { configId: string; cost: { priced: number; pricedTotalNanodollars: number } }[];
    /** The newest run's: what the page's Configs table shows (it opens on the newest run). */
    latestConfigStats: { configId: string; cost: { priced: number; pricedTotalNanodollars: number } }[];
  };
}

let dir: string;
let shots: string;
let url: string;
let browser: Browser | undefined;
let context: BrowserContext;
let page: Page;
let report: JsonReport;
/** Every request any page of the suite made, and those that were not the report file itself. */
const requests: string[] = [];
const foreign: string[] = [];
const errors: string[] = [];

function evals(args: string[]): void {
  const result = spawnSync(EVALS, args, { cwd: dir, encoding: 'utf8' });
  if (result.status !== 0)
    throw new Error(
      `evals ${args.join(' ')} exited ${String(result.status)}: ${result.stderr}${result.stdout}`,
    );
}

function writeEvalbook(): void {
  mkdirSync(join(dir, 'runs'));
  type Input = { input: { caseSha256: string; configSha256: string } };
  const digests = (caseId: string, configId: string) =>
    (syntheticAttempt({ caseId, configId }) as Input).input;
  writeFileSync(
    join(dir, 'evalbook.json'),
    JSON.stringify({
      schema: 'paperclip-evals/environment/v1',
      name: 'report views',
      cases: CASES.map((caseId) => ({
        id: caseId,
        sha256: digests(caseId, 'baseline').caseSha256,
        description: `the ${caseId} task`,
        prompt: `Please do ${caseId}.`,
        checks: [{ id: 'tests-pass', description: 'the test suite passes' }],
      })),
      configs: [
        { id: 'baseline', model: 'model-alpha', driver: 'harness-one', description: 'what ships today' },
        { id: 'candidate', model: 'model-beta', driver: 'harness-two', description: 'the proposed upgrade' },
      ].map((config) => ({ ...config, sha256: digests('fix-typo', config.id).configSha256 })),
    }),
  );
  let file = 0;
  const write = (runIndex: number, caseId: string, configId: string, attempt: number, code: string) => {
    const attemptId = `a${runIndex}-${CASES.indexOf(caseId)}-${configId}-${attempt}`;
    const bundle = syntheticAttempt({
      runId: RUNS[runIndex]!,
      caseId,
      configId,
      attemptId,
      toolCalls: 2,
      deniedCalls: 0,
      startedAtMs: Date.UTC(2026, 10, runIndex + 1, 2, 0, attempt),
      runTerminalState: code === 'E' ? 'failed' : 'succeeded',
      costMicros: configId === 'candidate' ? 3500 : 1250000,
      ...(code === 'I' ? { transcriptOmission: 'stream closed before run.terminal' } : {}),
    });
    // One case check, and one per-call observation per tool call (as the reference runner reports).
    bundle.observations = {
      checks: [
        { id: 'tests-pass', passed: code !== 'U' },
        ...[0, 1].map((call) => ({ id: `tool:files.read:call_${attemptId}_${call}`, passed: true })),
      ],
    };
    writeFileSync(join(dir, 'runs', `${String(file++).padStart(4, '0')}.json`), JSON.stringify(bundle));
  };
  RUNS.slice(0, -1).forEach((_, runIndex) => {
    for (const caseId of CASES) for (const configId of CONFIGS) write(runIndex, caseId, configId, 0, 'S');
    write(runIndex, 'refactor-auth', 'candidate', 1, 'S');
  });
  for (const [caseId, plan] of Object.entries(NEWEST_PLAN))
    for (const [configId, codes] of Object.entries(plan))
      Array.from(codes).forEach((code, attempt) => {
        write(RUNS.length - 1, caseId, configId, attempt, code);
      });
}

interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}
const overlaps = (a: Box, b: Box): boolean =>
  a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

/** The case ids of the visible rows of the shown grid, in order. */
const visibleCases = (scope = 'latest'): Promise<string[]> =>
  page
    .locator(`table.grid[data-scope="${scope}"] tbody tr:not([hidden])`)
    .evaluateAll((rows: { getAttribute(name: string): string | null }[]) =>
      rows.map((row) => row.getAttribute('data-case') ?? ''),
    );

const HAVE_CHROMIUM = needsChromium(import.meta.url, 'the HTML report’s views in headless Chromium');

describe.skipIf(!HAVE_CHROMIUM)(
  `the HTML report's views in headless Chromium${skippedSuffix(HAVE_CHROMIUM)}`,
  () => {
    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'evals-report-views-'));
      shots = join(dir, 'screenshots');
      mkdirSync(shots);
      writeEvalbook();
      evals(['ingest', 'runs', '--store', 'sqlite:book.sqlite', '--env', 'evalbook.json']);
      const common = ['--store', 'sqlite:book.sqlite', '--env', 'evalbook.json'];
      evals(['report', '--format', 'html', '--out', 'report.html', ...common]);
      evals(['report', '--format', 'json', '--out', 'report.json', ...common]);
      report = JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8')) as JsonReport;
      url = pathToFileURL(join(dir, 'report.html')).href;
      browser = await launchChromium();
      context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      // Count every request of every page of the context; let only the report file itself through.
      await context.route('**/*', async (route) => {
        const target = route.request().url();
        requests.push(target);
        if (target.split('#')[0] === url) await route.continue();
        else {
          foreign.push(target);
          await route.abort();
        }
      });
      context.on('page', (opened) => {
        opened.on('pageerror', (error) => errors.push(error.message));
        opened.on('console', (message) => {
          if (message.type() === 'error') errors.push(message.text());
        });
      });
      page = await context.newPage();
      await page.goto(url);
    });
    afterAll(async () => {
      await browser?.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it('shows the newest run by default: the collapse the pooled cell hides', async () => {
      expect(report.summary.latestRun).toBe(NEWEST);
      await expect(page.locator('[data-grid-scope="latest"]').isVisible()).resolves.toBe(true);
      await expect(page.locator('[data-grid-scope="all"]').isVisible()).resolves.toBe(false);
      const newest = page.locator(
        'table.grid[data-scope="latest"] td.cell[data-case="refactor-auth"][data-config="candidate"]',
      );
      await expect(newest.getAttribute('data-rate')).resolves.toBe('0');
      await expect(newest.locator('.trend.down').textContent()).resolves.toContain('−100.0 pts');
      const pooled = report.summary.grid.find(
        (cell) => cell.caseId === 'refactor-auth' && cell.configId === 'candidate',
      )!;
      expect(pooled.solveRate).toBeGreaterThan(0.8);
      await page.locator('#grid').screenshot({ path: join(shots, 'report-html-newest-run.png') });

      // "All runs" is one click away, and says the newest run is lower
      await page.locator('[data-scope-button="all"]').click();
      await expect(page.locator('[data-grid-scope="all"]').isVisible()).resolves.toBe(true);
      await expect(page.locator('[data-grid-scope="latest"]').isVisible()).resolves.toBe(false);
      expect(page.url()).toContain('#scope=all');
      const all = page.locator(
        'table.grid[data-scope="all"] td.cell[data-case="refactor-auth"][data-config="candidate"]',
      );
      await expect(all.getAttribute('data-rate')).resolves.toBe(String(pooled.solveRate));
      await expect(all.locator('[data-newest-lower]').textContent()).resolves.toContain('newest run 0%');
      // a reload keeps it; back returns to the newest run
      await page.reload();
      await expect(page.locator('[data-grid-scope="all"]').isVisible()).resolves.toBe(true);
      await page.goBack();
      await expect(page.locator('[data-grid-scope="latest"]').isVisible()).resolves.toBe(true);
    });

    it('filters by status: the rows left are the cases with such a cell in the newest run', async () => {
      const expected = (keep: (cell: Cell) => boolean): string[] =>
        CASES.filter((caseId) =>
          report.summary.latestGrid.some((cell) => cell.caseId === caseId && keep(cell)),
        ).sort();
      const rules: [string, (cell: Cell) => boolean][] = [
        ['failures', (cell) => cell.statusCounts.unsolved! > 0],
        ['errors', (cell) => cell.statusCounts.errored! + cell.statusCounts.over_budget! > 0],
        ['incomplete', (cell) => cell.statusCounts.incomplete! > 0],
        ['flaky', (cell) => cell.flaky],
        ['all', () => true],
      ];
      for (const [status, keep] of rules) {
        await page.locator('#status-filter').selectOption(status);
        expect([...(await visibleCases())].sort()).toEqual(expected(keep));
        if (status !== 'all') expect(page.url()).toContain(`status=${status}`);
      }
      // each filter actually narrows this fixture (else the test above could not fail)
      expect(expected(rules[0]![1])).toEqual([SLASHED, 'refactor-auth']);
      expect(expected(rules[3]![1])).toEqual([SLASHED, 'refactor-auth']);
      expect(expected(rules[1]![1])).toEqual(['add-tests']);
    });

    it('searches cases (by id or description) and configs (by id, model, driver or description)', async () => {
      const search = page.locator('#search');
      await search.fill('auth');
      expect(await visibleCases()).toEqual(['refactor-auth']);
      await search.fill('model-beta');
      expect(await visibleCases()).toHaveLength(CASES.length);
      const heads = page.locator('table.grid[data-scope="latest"] thead th[data-config]');
      expect(await heads.evaluateAll((ths: { hidden: boolean }[]) => ths.map((th) => th.hidden))).toEqual([
        true,
        false,
      ]);
      // the configs table follows the search too
      await expect(page.locator('#configs tr[data-config="baseline"]').isVisible()).resolves.toBe(false);
      await expect(page.locator('#configs tr[data-config="candidate"]').isVisible()).resolves.toBe(true);
      await search.fill('no such thing');
      expect(await visibleCases()).toEqual([]);
      await expect(page.locator('#filter-count').textContent()).resolves.toContain('nothing matches');
      await search.fill('');
      expect(await visibleCases()).toHaveLength(CASES.length);
    });

    it('sorts every table by a header, ascending then descending, by mouse and by keyboard', async () => {
      const candidate = page.locator('table.grid[data-scope="latest"] thead th[data-config="candidate"]');
      const rate = (caseId: string): number =>
        report.summary.latestGrid.find((cell) => cell.caseId === caseId && cell.configId === 'candidate')!
          .solveRate!;
      await candidate.locator('button.sort').click();
      await expect(candidate.getAttribute('aria-sort')).resolves.toBe('ascending');
      const ascending = await visibleCases();
      expect(ascending.map(rate)).toEqual([...ascending.map(rate)].sort((x, y) => x - y));
      expect(ascending[0]).toBe('refactor-auth');
      await candidate.locator('button.sort').focus();
      await page.keyboard.press('Enter');
      await expect(candidate.getAttribute('aria-sort')).resolves.toBe('descending');
      const descending = await visibleCases();
      expect(descending.map(rate)).toEqual([...descending.map(rate)].sort((x, y) => y - x));
      expect(descending.at(-1)).toBe('refactor-auth');
      // the case column sorts by name
      await page.locator('table.grid[data-scope="latest"] thead th').first().locator('button.sort').click();
      expect(await visibleCases()).toEqual([...CASES].sort());
      // and every other table has sortable headers
      const tables = await page.locator('main table').count();
      const sortableTables = await page.locator('main table:has(thead th[aria-sort] button.sort)').count();
      expect(sortableTables).toBe(tables);
      const configRows = page.locator('#configs tbody tr');
      await page.locator('#configs thead th').nth(1).locator('button.sort').click();
      const rates = await configRows.evaluateAll((rows: { getAttribute(name: string): string | null }[]) =>
        rows.map((row) => Number(row.getAttribute('data-rate'))),
      );
      expect(rates).toEqual([...rates].sort((x, y) => x - y));
    });

    it("keeps the grid's sort in the address (sort=<column>:<dir>): a reload keeps it, back/forward walk it", async () => {
      await page.goto(url);
      await page.reload();
      const pageOrder = await visibleCases();
      const header = (scope: string, config: string) =>
        page.locator(`table.grid[data-scope="${scope}"] thead th[data-config="${config}"]`);
      const rate = (caseId: string): number =>
        report.summary.latestGrid.find((cell) => cell.caseId === caseId && cell.configId === 'candidate')!
          .solveRate!;
      await header('latest', 'candidate').locator('button.sort').click();
      expect(new URL(page.url()).hash).toBe('#sort=candidate:asc');
      await header('latest', 'candidate').locator('button.sort').click();
      expect(new URL(page.url()).hash).toBe('#sort=candidate:desc');
      const descending = await visibleCases();
      expect(descending.map(rate)).toEqual([...descending.map(rate)].sort((x, y) => y - x));
      // a reload keeps it, on both grids
      await page.reload();
      await expect(header('latest', 'candidate').getAttribute('aria-sort')).resolves.toBe('descending');
      await expect(header('all', 'candidate').getAttribute('aria-sort')).resolves.toBe('descending');
      expect(await visibleCases()).toEqual(descending);
      // back: ascending, then the page's own order; forward: ascending again
      await page.goBack();
      await expect(header('latest', 'candidate').getAttribute('aria-sort')).resolves.toBe('ascending');
      await page.goBack();
      expect(new URL(page.url()).hash).toBe('');
      await expect(header('latest', 'candidate').getAttribute('aria-sort')).resolves.toBe('none');
      expect(await visibleCases()).toEqual(pageOrder);
      await page.goForward();
      await expect(header('latest', 'candidate').getAttribute('aria-sort')).resolves.toBe('ascending');
      // a link with a sort, a scope and a search opens that view; a column the page lacks is ignored
      await page.goto(`${url}#scope=all&sort=case:desc`);
      await page.reload();
      expect(await visibleCases('all')).toEqual([...CASES].sort().reverse());
      await page.goto(`${url}#sort=${encodeURIComponent('no-such-config')}:asc`);
      await page.reload();
      expect(await visibleCases()).toEqual(pageOrder);
      await page.goto(url);
      await page.reload();
    });

    it('deep-links a cell and an attempt: they survive a reload and walk back and forward', async () => {
      const target = report.attempts.find(
        (attempt) =>
          attempt.caseId === SLASHED && attempt.configId === 'candidate' && attempt.status === 'unsolved',
      )!;
      const cellHash = `#cell=${encodeURIComponent(SLASHED)}/candidate`;
      await page.goto(`${url}${cellHash}`);
      await expect(page.locator('#cell-attempts h3').textContent()).resolves.toBe(`${SLASHED} × candidate`);
      const inCell = report.attempts.filter(
        (attempt) => attempt.caseId === SLASHED && attempt.configId === 'candidate',
      );
      expect(await page.locator('#cell-attempts tr[data-attempt]').count()).toBe(inCell.length);
      // newest run first, its unsolved attempt first of all
      await expect(
        page.locator('#cell-attempts tr[data-attempt]').first().getAttribute('data-attempt'),
      ).resolves.toBe(target.attemptId);
      await page.locator(`#cell-attempts tr[data-attempt="${target.attemptId}"] button`).click();
      const attemptHash = `#attempt=${[target.runId, target.caseId, target.configId, target.attemptId].map(encodeURIComponent).join('/')}`;
      expect(new URL(page.url()).hash).toBe(attemptHash);
      const detail = page.locator('#attempt-detail');
      await expect(detail.locator('[data-field="bundleDigest"]').textContent()).resolves.toBe(
        target.bundleDigest,
      );
      await page.screenshot({ path: join(shots, 'report-html-deep-link.png'), fullPage: false });

      await page.reload();
      await expect(detail.locator('[data-field="bundleDigest"]').textContent()).resolves.toBe(
        target.bundleDigest,
      );
      await expect(page.locator('#cell-attempts h3').textContent()).resolves.toBe(`${SLASHED} × candidate`);

      // back: the cell without the attempt; forward: the attempt again
      await page.goBack();
      expect(new URL(page.url()).hash).toBe(cellHash);
      await expect(detail.locator('[data-field="bundleDigest"]').count()).resolves.toBe(0);
      await page.goForward();
      await expect(detail.locator('[data-field="bundleDigest"]').textContent()).resolves.toBe(
        target.bundleDigest,
      );

      // the visible links back: to the cell, then to the grid
      const nav = page.locator('#drill-nav');
      await expect(nav.isVisible()).resolves.toBe(true);
      await nav.getByText(`← Back to ${SLASHED} × candidate`).click();
      expect(new URL(page.url()).hash).toBe(cellHash);
      await nav.getByText('← Back to the grid').click();
      await expect(page.locator('#cell-attempts h3').count()).resolves.toBe(0);
      await expect(nav.isVisible()).resolves.toBe(false);

      // a link to something the page does not have says so
      await page.goto(`${url}#attempt=${NEWEST}/fix-typo/baseline/no-such-attempt`);
      await expect(page.locator('[data-missing="attempt"]').textContent()).resolves.toContain('not embedded');
      // clicking a grid cell writes its link
      await page.goto(url);
      await page
        .locator('table.grid[data-scope="latest"] td.cell[data-case="add-tests"][data-config="baseline"]')
        .click();
      expect(new URL(page.url()).hash).toBe('#cell=add-tests/baseline');
    });

    it('shows the checks × configs table, without the per-call runner observations', async () => {
      const rows = page.locator('table[data-check-rates] tbody tr[data-check]');
      expect(await rows.count()).toBe(1);
      await expect(rows.first().getAttribute('data-check')).resolves.toBe('tests-pass');
      await expect(rows.first().textContent()).resolves.toContain('the test suite passes');
      for (const rate of report.summary.checkRates)
        await expect(
          page
            .locator(
              `table[data-check-rates] td[data-check="${rate.checkId}"][data-config="${rate.configId}"]`,
            )
            .getAttribute('data-pass-rate'),
        ).resolves.toBe(String(rate.latest?.passRate ?? ''));
      expect(report.summary.checkRates.map((rate) => rate.checkId)).toEqual(['tests-pass', 'tests-pass']);
      expect(report.summary.checkDrift.every((drift) => drift.checkId === 'tests-pass')).toBe(true);
      // 2 per-call observations on every attempt
      expect(report.summary.perCallObservations).toBe(2 * report.attempts.length);
      await expect(page.locator('[data-per-call]').getAttribute('data-per-call')).resolves.toBe(
        String(report.summary.perCallObservations),
      );
    });

    it('says what each config and case is where they are compared', async () => {
      const head = page.locator('table.grid[data-scope="latest"] thead th[data-config="candidate"]');
      await expect(head.textContent()).resolves.toContain('model-beta · harness-two — the proposed upgrade');
      await expect(page.locator('#configs tr[data-config="baseline"] th').textContent()).resolves.toContain(
        'model-alpha · harness-one',
      );
      const row = page.locator('table.grid[data-scope="latest"] tbody tr[data-case="fix-typo"] th');
      await expect(row.textContent()).resolves.toContain('the fix-typo task');
      await expect(row.locator('.prompt').getAttribute('title')).resolves.toBe('Please do fix-typo.');
    });

    it('draws coinciding trend lines apart and never overlaps axis labels', async () => {
      const series = await page
        .locator('[data-plot="trend"] g[data-series] path')
        .evaluateAll((paths: { getAttribute(name: string): string | null }[]) =>
          paths.map(
            (path) => `${path.getAttribute('stroke-width')}|${path.getAttribute('stroke-dasharray')}`,
          ),
        );
      expect(series).toHaveLength(CONFIGS.length);
      expect(new Set(series).size).toBe(series.length);
      for (const plot of await page.locator('svg[data-plot]').all()) {
        const boxes = (await plot
          .locator('text.axis')
          .evaluateAll((texts: { getBoundingClientRect(): Box }[]) =>
            texts.map((t) => {
              const r = t.getBoundingClientRect();
              return { x: r.x, y: r.y, width: r.width, height: r.height };
            }),
          )) as Box[];
        const texts = await plot.locator('text.axis').allTextContents();
        const plotName = await plot.getAttribute('data-plot');
        for (let i = 0; i < boxes.length; i++)
          for (let j = i + 1; j < boxes.length; j++)
            expect(overlaps(boxes[i]!, boxes[j]!), `${plotName}: "${texts[i]}" and "${texts[j]}"`).toBe(
              false,
            );
      }
      // thinned, not dropped: the newest run is labelled, and more than one run is
      const labels = await page
        .locator('[data-plot="trend"] text[data-run-label]')
        .evaluateAll((texts: { firstChild: { textContent: string | null } | null }[]) =>
          texts.map((t) => t.firstChild?.textContent ?? ''),
        );
      // cut in the middle: runs that share a prefix stay told apart
      expect(labels.at(-1)).toBe('nightly-…6-11-14');
      expect(new Set(labels).size).toBe(labels.length);
      expect(labels.length).toBeGreaterThan(2);
      expect(labels.length).toBeLessThan(RUNS.length);
    });

    it('shows money with sensible precision (the JSON keeps nanodollars)', async () => {
      const mean = (configId: string): number => {
        const stat = report.summary.latestConfigStats.find((config) => config.configId === configId)!;
        return stat.cost.pricedTotalNanodollars / stat.cost.priced;
      };
      // below $1: three significant digits, as the JSON's exact nanodollars round
      const small = (await page.locator('#configs tr[data-config="candidate"] td').nth(6).textContent())!;
      expect(small).toMatch(/^\$0\.00[1-9]\d{0,2}$/);
      expect(small).toBe(`$${Number((mean('candidate') / 1e9).toPrecision(3))}`);
      expect(Number.isInteger(mean('candidate'))).toBe(true);
      // from $1: cents
      const large = (await page.locator('#configs tr[data-config="baseline"] td').nth(6).textContent())!;
      expect(large).toMatch(/^\$\d+\.\d\d$/);
      expect(large).toBe(`$${(mean('baseline') / 1e9).toFixed(2)}`);
    });

    it('is usable at 390 px: no page-level horizontal overflow, the controls within reach', async () => {
      const narrow = await context.newPage();
      await narrow.setViewportSize({ width: 390, height: 844 });
      await narrow.goto(url);
      const width = await narrow.evaluate<number>('document.documentElement.scrollWidth');
      expect(width).toBeLessThanOrEqual(390);
      for (const control of ['#status-filter', '#search', '[data-scope-button="all"]']) {
        const box = (await narrow.locator(control).boundingBox())!;
        expect(box.x).toBeGreaterThanOrEqual(0);
        expect(box.x + box.width).toBeLessThanOrEqual(390);
      }
      await narrow.locator('#status-filter').selectOption('failures');
      expect(
        await narrow
          .locator('table.grid[data-scope="latest"] tbody tr:not([hidden])')
          .evaluateAll((rows) => rows.length),
      ).toBe(2);
      await narrow
        .locator(
          'table.grid[data-scope="latest"] td.cell[data-case="refactor-auth"][data-config="candidate"]',
        )
        .click();
      await expect(narrow.locator('#drill-nav').isVisible()).resolves.toBe(true);
      expect(await narrow.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
      await narrow.screenshot({ path: join(shots, 'report-html-narrow.png'), fullPage: false });
      await narrow.close();
    });

    // A new user at 390 px saw the Configs header ~3 lines high, its sort arrows wrapped onto lines
    // of their own and "Solved / counted" cut: each header is one line now, its arrow beside it.
    it("shows the Configs table's header on one line at 390 px, each sort arrow beside its label", async () => {
      const narrow = await context.newPage();
      await narrow.setViewportSize({ width: 390, height: 844 });
      await narrow.goto(url);
      // Each header's label (its sort button): how many lines it takes.
      const heights = await narrow.evaluate<{ text: string; lines: number }[]>(`
        [...document.querySelectorAll('#configs table thead th button.sort')].map((button) => ({
          text: button.textContent,
          lines: Math.round(button.getBoundingClientRect().height / parseFloat(getComputedStyle(button).lineHeight)),
        }))`);
      expect(heights.length).toBeGreaterThan(5);
      for (const { text, lines } of heights) expect(lines, text).toBe(1);
      await narrow.close();
    });

    it('made no network request but for the file itself, and logged no error', () => {
      expect(foreign).toEqual([]);
      expect(requests.length).toBeGreaterThan(0);
      expect(new Set(requests.map((request) => request.split('#')[0]))).toEqual(new Set([url]));
      expect(errors).toEqual([]);
      keepScreenshots(shots, [
        'report-html-newest-run.png',
        'report-html-deep-link.png',
        'report-html-narrow.png',
      ]);
    });
  },
);
