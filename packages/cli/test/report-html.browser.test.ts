// `evals report --format html` in a real browser: builds a small evalbook (3 configs, 5 cases, two
// runs, with failures, an incomplete transcript, denials and unpriced attempts), renders it with the
// real `evals` binary next to the JSON report, opens the page in headless Chromium (playwright-core)
// and checks that it loads nothing from the network, logs no error, and that the grid cells, plots
// and comparison show the JSON report's numbers; then clicks through the drill-down to one attempt.
// Screenshots always go to a temp dir; UPDATE_SCREENSHOTS=1 copies them into docs/images/.
// Without Chromium the suite fails in CI (CI set) and is skipped, saying why, elsewhere.
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

import type { Browser, Locator, Page } from 'playwright-core';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const EVALS = join(ROOT, 'node_modules/.bin/evals');

/** A case id that is markup if anything forgets to escape it. */
const TRICKY_CASE = `escape <b>&"q"'`;
const CASES = ['fix-typo', 'refactor-auth', 'add-tests', 'migrate-db', TRICKY_CASE];

/** Per (run, config): one outcome string per case — S solved, U unsolved, E errored, I incomplete. */
const PLAN: Record<string, Record<string, readonly string[]>> = {
  run_1: {
    baseline: ['SSS', 'SSS', 'SUU', 'SSE', 'SSU'],
    candidate: ['SSS', 'SUU', 'SSS', 'SSI', 'SUS'],
  },
  run_2: {
    baseline: ['SSS', 'SSU', 'USU', 'SSS', 'SSS'],
    candidate: ['SSS', 'SSU', 'SSS', 'SSS', 'SSS'],
    experimental: ['SU', '', '', '', 'UU'],
  },
};

interface Cell {
  caseId: string;
  configId: string;
  solved: number;
  solveRate: number | null;
  ci95: [number, number] | null;
  flaky: boolean;
  denominator: { counted: number };
}
interface RatePoint {
  configId: string;
  solveRate: number | null;
  ci95: [number, number] | null;
  cost: { priced: number; attempts: number; pricedTotalNanodollars: number };
}
interface JsonReport {
  attempts: {
    runId: string;
    caseId: string;
    configId: string;
    attemptId: string;
    bundleDigest: string;
    denials: number;
    cost: { coverage: string; providerReportedProvenance: string | null };
  }[];
  summary: {
    attempts: number;
    cases: string[];
    configs: string[];
    grid: Cell[];
    configStats: RatePoint[];
    /** The newest run's per-config rates: what the page's plots show (it opens on the newest run). */
    latestConfigStats: RatePoint[];
    trend: { runId: string; configId: string; solveRate: number | null }[];
    latestGrid: Cell[];
    coverage: { priced: number; attempts: number };
    comparison: {
      deltaSolveRate: number;
      deltaSolveRateCi95: [number, number];
      mcnemarP: number;
      aWins: number;
      bWins: number;
      ties: number;
    };
  };
}

let dir: string;
let shots: string;
let browser: Browser | undefined;
let page: Page;
let report: JsonReport;
const requests: string[] = [];
const consoleErrors: string[] = [];

function evals(args: string[]): void {
  const result = spawnSync(EVALS, args, { cwd: dir, encoding: 'utf8' });
  if (result.status !== 0)
    throw new Error(
      `evals ${args.join(' ')} exited ${String(result.status)}: ${result.stderr}${result.stdout}`,
    );
}

function writeEvalbook(): void {
  mkdirSync(join(dir, 'runs'));
  let index = 0;
  for (const [runId, configs] of Object.entries(PLAN))
    for (const [configId, outcomes] of Object.entries(configs))
      outcomes.forEach((outcome, caseIndex) => {
        const caseId = CASES[caseIndex]!;
        Array.from(outcome).forEach((code, attempt) => {
          const bundle = syntheticAttempt({
            runId,
            caseId,
            configId,
            attemptId: `${runId}.${configId}.${caseIndex}.${attempt}`,
            toolCalls: 2,
            deniedCalls: attempt === 0 ? 1 : 0,
            runTerminalState: code === 'E' ? 'failed' : 'succeeded',
            // experimental is never priced; candidate's run_2 add-tests attempts are not either
            costMicros:
              configId === 'experimental' ||
              (runId === 'run_2' && configId === 'candidate' && caseIndex === 2)
                ? null
                : configId === 'candidate'
                  ? 3500
                  : 2000,
            ...(code === 'I' ? { transcriptOmission: 'stream closed before run.terminal' } : {}),
          });
          if (code === 'U') bundle.observations = { checks: [{ id: 'tests-pass', passed: false }] };
          writeFileSync(
            join(dir, 'runs', `${String(index++).padStart(3, '0')}.json`),
            JSON.stringify(bundle),
          );
        });
      });
}

/** What the attribute reader needs of a DOM element (the tests compile without the DOM lib). */
interface AttributeSource {
  getAttribute(name: string): string | null;
}
/** The attributes of every element a locator matches, in document order (one browser round trip). */
function attributes(locator: Locator, names: readonly string[]): Promise<Record<string, string | null>[]> {
  return locator.evaluateAll(
    (elements: AttributeSource[], wanted: readonly string[]) =>
      elements.map((element) => Object.fromEntries(wanted.map((name) => [name, element.getAttribute(name)]))),
    names,
  );
}
/** A data-* number as the page writes it: "" is null. */
const num = (text: string | null | undefined): number | null =>
  text === '' || text === null || text === undefined ? null : Number(text);

// In CI a missing browser is a failure; elsewhere a skip that says why.
const HAVE_CHROMIUM = needsChromium(import.meta.url, 'the HTML report in headless Chromium');

describe.skipIf(!HAVE_CHROMIUM)(
  `evals report --format html in headless Chromium${skippedSuffix(HAVE_CHROMIUM)}`,
  () => {
    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'evals-report-html-'));
      shots = join(dir, 'screenshots');
      mkdirSync(shots);
      writeEvalbook();
      evals(['ingest', 'runs', '--store', 'sqlite:book.sqlite']);
      const compare = ['--store', 'sqlite:book.sqlite', '--a', 'baseline', '--b', 'candidate'];
      evals(['report', '--format', 'html', '--out', 'report.html', ...compare]);
      evals(['report', '--format', 'json', '--out', 'report.json', ...compare]);
      report = JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8')) as JsonReport;

      browser = await launchChromium();
      page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      page.on('request', (request) => requests.push(request.url()));
      page.on('console', (message) => {
        if (message.type() === 'error') consoleErrors.push(message.text());
      });
      page.on('pageerror', (error) => consoleErrors.push(error.message));
      await page.goto(pathToFileURL(join(dir, 'report.html')).href);
    });
    afterAll(async () => {
      await browser?.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it('loads nothing but the file itself and logs no error', () => {
      expect(requests).toEqual([pathToFileURL(join(dir, 'report.html')).href]);
      expect(consoleErrors).toEqual([]);
    });

    it('escapes ids: the tricky case id is text, never markup', async () => {
      expect(await page.locator('main b').count()).toBe(0);
      await expect(
        page
          .locator('table.grid[data-scope="all"] th[scope=row]')
          .nth(report.summary.cases.indexOf(TRICKY_CASE))
          .textContent(),
      ).resolves.toBe(TRICKY_CASE);
    });

    it('renders every grid cell (all runs pooled) with the JSON report’s numbers', async () => {
      const { grid, cases, configs } = report.summary;
      const cells = await attributes(page.locator('table.grid[data-scope="all"] td.cell:not(.empty)'), [
        'data-case',
        'data-config',
        'data-solved',
        'data-counted',
        'data-rate',
        'data-lo',
        'data-hi',
        'data-flaky',
      ]);
      expect(cells).toHaveLength(grid.length);
      expect(await page.locator('table.grid[data-scope="all"] td.cell.empty').count()).toBe(
        cases.length * configs.length - grid.length,
      );
      expect(
        cells.map((cell) => ({
          caseId: cell['data-case'],
          configId: cell['data-config'],
          solved: num(cell['data-solved']),
          counted: num(cell['data-counted']),
          solveRate: num(cell['data-rate']),
          ci95: cell['data-lo'] === '' ? null : [num(cell['data-lo']), num(cell['data-hi'])],
          flaky: cell['data-flaky'] === 'true',
        })),
      ).toEqual(
        grid.map((cell) => ({
          caseId: cell.caseId,
          configId: cell.configId,
          solved: cell.solved,
          counted: cell.denominator.counted,
          solveRate: cell.solveRate,
          ci95: cell.ci95,
          flaky: cell.flaky,
        })),
      );
      const shown = await page
        .locator('table.grid[data-scope="all"] td.cell:not(.empty) .frac')
        .allTextContents();
      expect(shown).toEqual(grid.map((cell) => `${cell.solved}/${cell.denominator.counted}`));
    });

    it('plots each config’s solve rate with its interval', async () => {
      const plotted = await attributes(page.locator('[data-plot="solve-rate"] g[data-config]'), [
        'data-config',
        'data-rate',
        'data-lo',
        'data-hi',
      ]);
      expect(plotted).toEqual(
        report.summary.latestConfigStats.map((config) => ({
          'data-config': config.configId,
          'data-rate': String(config.solveRate),
          'data-lo': String(config.ci95?.[0]),
          'data-hi': String(config.ci95?.[1]),
        })),
      );
      expect(await page.locator('[data-plot="solve-rate"] circle').count()).toBe(
        report.summary.latestConfigStats.length,
      );
    });

    it('plots cost against solve rate, with the unpriced config apart and never at $0', async () => {
      const plotted = await attributes(page.locator('[data-plot="cost-vs-rate"] g[data-config]'), [
        'data-config',
        'data-rate',
        'data-cost',
        'data-unpriced',
      ]);
      expect(plotted).toEqual(
        expect.arrayContaining(
          report.summary.latestConfigStats.map((config) => ({
            'data-config': config.configId,
            'data-rate': String(config.solveRate),
            'data-cost':
              config.cost.priced === 0
                ? ''
                : String(Math.round(config.cost.pricedTotalNanodollars / config.cost.priced)),
            'data-unpriced': String(config.cost.priced === 0),
          })),
        ),
      );
      expect(plotted).toHaveLength(report.summary.latestConfigStats.length);
      expect(plotted.find((point) => point['data-config'] === 'experimental')).toMatchObject({
        'data-unpriced': 'true',
        'data-cost': '',
      });
    });

    it('plots the solve rate across both runs', async () => {
      const plotted = await attributes(page.locator('[data-plot="trend"] circle[data-run]'), [
        'data-run',
        'data-config',
        'data-rate',
      ]);
      const expected = report.summary.trend
        .filter((point) => point.solveRate !== null)
        .map((point) => ({
          'data-run': point.runId,
          'data-config': point.configId,
          'data-rate': String(point.solveRate),
        }));
      expect(plotted).toHaveLength(expected.length);
      expect(plotted).toEqual(expect.arrayContaining(expected));
      expect(new Set(plotted.map((point) => point['data-run']))).toEqual(new Set(['run_1', 'run_2']));
    });

    it('shows the comparison and the cost coverage from the JSON report', async () => {
      const comparison = report.summary.comparison;
      const section = page.locator('section[data-comparison]');
      expect(
        await attributes(section, [
          'data-delta',
          'data-lo',
          'data-hi',
          'data-mcnemar-p',
          'data-a-wins',
          'data-b-wins',
          'data-ties',
        ]),
      ).toEqual([
        {
          'data-delta': String(comparison.deltaSolveRate),
          'data-lo': String(comparison.deltaSolveRateCi95[0]),
          'data-hi': String(comparison.deltaSolveRateCi95[1]),
          'data-mcnemar-p': String(comparison.mcnemarP),
          'data-a-wins': String(comparison.aWins),
          'data-b-wins': String(comparison.bWins),
          'data-ties': String(comparison.ties),
        },
      ]);
      expect(await section.locator('table[data-cases="regressions"] tr[data-case]').count()).toBe(
        comparison.aWins,
      );
      const coverage = page.locator('[data-summary="coverage"]');
      await expect(coverage.getAttribute('data-priced')).resolves.toBe(
        String(report.summary.coverage.priced),
      );
      await expect(coverage.textContent()).resolves.toContain(
        `${report.summary.coverage.priced} of ${report.summary.coverage.attempts} priced`,
      );
      await page.screenshot({ path: join(shots, 'report-html.png'), fullPage: true });
    });

    it('drills down from a grid cell to an attempt’s digest, tool denials and cost provenance', async () => {
      const target = report.attempts.find(
        (attempt) =>
          attempt.caseId === 'refactor-auth' && attempt.configId === 'candidate' && attempt.denials > 0,
      )!;
      const inCell = report.attempts.filter(
        (attempt) => attempt.caseId === target.caseId && attempt.configId === target.configId,
      );
      await page
        .locator('td.cell[data-scope="latest"][data-case="refactor-auth"][data-config="candidate"]')
        .click();
      const rows = page.locator('#cell-attempts tr[data-attempt]');
      expect(await rows.count()).toBe(inCell.length);
      await page.locator(`#cell-attempts tr[data-attempt="${target.attemptId}"] button`).click();
      const detail = page.locator('#attempt-detail');
      await expect(detail.locator('[data-field="bundleDigest"]').textContent()).resolves.toBe(
        target.bundleDigest,
      );
      await expect(detail.locator('[data-field="coverage"]').textContent()).resolves.toBe(
        target.cost.coverage,
      );
      await expect(detail.locator('[data-field="providerReportedProvenance"]').textContent()).resolves.toBe(
        target.cost.providerReportedProvenance,
      );
      await expect(detail.textContent()).resolves.toContain('required_claim_missing');
      await page.locator('#drilldown').screenshot({ path: join(shots, 'report-html-drilldown.png') });

      // an unpriced attempt says so and is never shown as $0
      await page
        .locator('td.cell[data-scope="latest"][data-case="add-tests"][data-config="candidate"]')
        .click();
      const unpriced = report.attempts.find(
        (attempt) =>
          attempt.caseId === 'add-tests' && attempt.configId === 'candidate' && attempt.runId === 'run_2',
      )!;
      await page.locator(`#cell-attempts tr[data-attempt="${unpriced.attemptId}"] button`).click();
      await expect(detail.locator('[data-field="coverage"]').textContent()).resolves.toBe('unpriced');
      await expect(detail.locator('[data-field="effectiveNanodollars"]').textContent()).resolves.toContain(
        'unpriced',
      );
      expect(consoleErrors).toEqual([]);
      keepScreenshots(shots, ['report-html.png', 'report-html-drilldown.png']);
    });

    it('shows the summary, grid and plots without JavaScript', async () => {
      const context = await browser!.newContext({ javaScriptEnabled: false });
      const plain = await context.newPage();
      await plain.goto(pathToFileURL(join(dir, 'report.html')).href);
      // both grids, the newest run's first, with the controls that need a script hidden
      expect(await plain.locator('table.grid[data-scope="all"] td.cell:not(.empty)').count()).toBe(
        report.summary.grid.length,
      );
      expect(await plain.locator('table.grid[data-scope="latest"] td.cell:not(.empty)').count()).toBe(
        report.summary.latestGrid.length,
      );
      await expect(plain.locator('#controls').isVisible()).resolves.toBe(false);
      expect(await plain.locator('svg[data-plot]').count()).toBe(4);
      await expect(plain.locator('#drill-hint').textContent()).resolves.toContain('needs JavaScript');
      await context.close();
    });
  },
);
