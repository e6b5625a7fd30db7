// `pnpm bench` (HTML report in the browser): renders the 100,000-attempt evalbook's HTML report with
// the real CLI, loads it in headless Chromium from file:// and measures, in the page: the load (to
// the load event, and until the page's script has run and the page is laid out), a status-filter
// change, a search, the "all runs" switch and a grid-cell drill-down — each from just before the
// change until the next frame has painted (performance.now around the change, then
// requestAnimationFrame and a task after it) — and the longest task (Long Tasks API) of the load and
// of the changes. The baseline, measured in the same run and the same browser: the same page with
// its script removed (the same bytes to parse, lay out and paint, embedded data included). Every
// request but the file itself is aborted and counted (there must be none). The target for a change
// is < 100 ms ("no visible stall"); targets are reported, never enforced.
//
// Run alone: `tsx scripts/bench/report-browser-bench.ts [--attempts 100000] [--rounds 5] [--json]`.
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { chromium } from 'playwright-core';

import { runCli } from './cli-run.ts';
import { BENCH_DIR, reportEvalbook } from './report-evalbook.ts';

import type { Browser } from 'playwright-core';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const CHANGE_TARGET_MS = 100;

/** What one load of a page measured (ms, from the page's own clock). */
interface Load {
  readonly loadEventMs: number;
  /** Until the page's script has run and the page is laid out (or, without a script, laid out). */
  readonly readyMs: number;
  readonly longestTaskMs: number;
}
interface Changes {
  readonly statusFilterMs: number;
  readonly searchMs: number;
  readonly allRunsMs: number;
  readonly drillDownMs: number;
  readonly longestTaskMs: number;
}

// The page side, as strings run in the page (this file compiles without the DOM library).
const OBSERVE_LONG_TASKS = `window.__longTasks = [];
new PerformanceObserver((list) => { for (const entry of list.getEntries()) window.__longTasks.push(entry.duration); })
  .observe({ type: 'longtask', buffered: true });`;
const MEASURE_LOAD = `(() => {
  const navigation = performance.getEntriesByType('navigation')[0];
  const laidOut = document.body.offsetHeight;
  return { loadEventMs: navigation.loadEventEnd, readyMs: performance.now(), longestTaskMs: Math.max(0, ...window.__longTasks), laidOut };
})()`;
/** One change, timed until the frame after it painted. */
const timed = (change: string): string => `(async () => {
  window.__longTasks.length = 0;
  const start = performance.now();
  ${change}
  await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
  return { ms: performance.now() - start, longest: Math.max(0, ...window.__longTasks) };
})()`;
const CHANGES: Record<Exclude<keyof Changes, 'longestTaskMs'>, string> = {
  statusFilterMs: `const select = document.getElementById('status-filter'); select.value = 'failures'; select.dispatchEvent(new Event('change'));`,
  searchMs: `const input = document.getElementById('search'); input.value = 'case_04'; input.dispatchEvent(new Event('input'));`,
  allRunsMs: `document.querySelector('[data-scope-button="all"]').click();`,
  drillDownMs: `document.querySelector('table.grid[data-scope="all"] td.cell:not(.empty):not([hidden])').click();`,
};

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((x, y) => x - y);
  const middle = Math.floor(sorted.length / 2);
  const at = (index: number): number => sorted[index] ?? Number.NaN;
  return sorted.length % 2 === 1 ? at(middle) : (at(middle - 1) + at(middle)) / 2;
};

async function measure(browser: Browser, file: string, withChanges: boolean) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const url = pathToFileURL(file).href;
  let foreign = 0;
  await context.route('**/*', async (route) => {
    if (route.request().url().split('#')[0] === url) await route.continue();
    else {
      foreign++;
      await route.abort();
    }
  });
  await context.addInitScript(OBSERVE_LONG_TASKS);
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  await page.goto(url, { waitUntil: 'load', timeout: 120_000 });
  const load = await page.evaluate<Load>(MEASURE_LOAD);
  let changes: Changes | null = null;
  if (withChanges) {
    const results: Record<string, number> = {};
    let longest = 0;
    for (const [name, change] of Object.entries(CHANGES)) {
      const { ms, longest: task } = await page.evaluate<{ ms: number; longest: number }>(timed(change));
      results[name] = ms;
      longest = Math.max(longest, task);
    }
    changes = { ...(results as Omit<Changes, 'longestTaskMs'>), longestTaskMs: longest };
  }
  await context.close();
  if (errors.length > 0) throw new Error(`the page logged errors: ${errors.join('; ')}`);
  return { load, changes, foreign };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      attempts: { type: 'string', default: '100000' },
      rounds: { type: 'string', default: '5' },
      json: { type: 'boolean', default: false },
    },
  });
  const attempts = Number(values.attempts);
  const rounds = Number(values.rounds);
  if (!Number.isSafeInteger(attempts) || attempts < 1)
    throw new Error('--attempts takes a positive whole number');
  if (!Number.isSafeInteger(rounds) || rounds < 1) throw new Error('--rounds takes a positive whole number');
  const log = (line: string): void => {
    (values.json ? process.stderr : process.stdout).write(`${line}\n`);
  };
  const store = await reportEvalbook(attempts, log);
  const page = join(BENCH_DIR, 'report-browser.html');
  const render = await runCli(['report', '--store', `sqlite:${store}`, '--format', 'html', '--out', page]);
  if (render.exitCode !== 0) throw new Error(`evals report --format html exited ${String(render.exitCode)}`);
  // The baseline: the same page without its script (its embedded data stays, unread).
  const html = readFileSync(page, 'utf8');
  const scriptAt = html.lastIndexOf('<script>');
  const baseline = join(BENCH_DIR, 'report-browser-baseline.html');
  writeFileSync(baseline, html.slice(0, scriptAt) + html.slice(html.indexOf('</script>', scriptAt) + 9));

  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
  const report: Awaited<ReturnType<typeof measure>>[] = [];
  const plain: Awaited<ReturnType<typeof measure>>[] = [];
  try {
    // Alternate the two pages, so a busy moment of the machine falls on both alike.
    for (let round = 0; round < rounds; round++) {
      plain.push(await measure(browser, baseline, false));
      report.push(await measure(browser, page, true));
    }
  } finally {
    await browser.close();
  }
  type Measured = Awaited<ReturnType<typeof measure>>;
  const m = (pick: (run: Measured) => number, runs = report): number =>
    Math.round(median(runs.map(pick)) * 10) / 10;
  const change = (name: keyof Changes): number => m((run) => run.changes?.[name] ?? Number.NaN);
  const results = {
    attempts,
    rounds,
    pageBytes: statSync(page).size,
    renderSeconds: Math.round(render.seconds * 100) / 100,
    networkRequests: [...report, ...plain].reduce((sum, run) => sum + run.foreign, 0),
    baseline: {
      loadEventMs: m((run) => run.load.loadEventMs, plain),
      readyMs: m((run) => run.load.readyMs, plain),
      longestTaskMs: m((run) => run.load.longestTaskMs, plain),
    },
    report: {
      loadEventMs: m((run) => run.load.loadEventMs),
      readyMs: m((run) => run.load.readyMs),
      longestTaskMs: m((run) => run.load.longestTaskMs),
    },
    changes: {
      statusFilterMs: change('statusFilterMs'),
      searchMs: change('searchMs'),
      allRunsMs: change('allRunsMs'),
      drillDownMs: change('drillDownMs'),
      longestTaskMs: change('longestTaskMs'),
    },
  };
  const slowest = Math.max(
    results.changes.statusFilterMs,
    results.changes.searchMs,
    results.changes.allRunsMs,
    results.changes.drillDownMs,
  );
  log(
    `report html in Chromium, ${attempts} attempts (${(results.pageBytes / 1e6).toFixed(1)} MB page, rendered in ${results.renderSeconds} s), median of ${rounds}:`,
  );
  log(
    `  load: ${results.report.loadEventMs} ms to the load event, ${results.report.readyMs} ms until scripted and laid out (longest task ${results.report.longestTaskMs} ms); baseline without the script: ${results.baseline.loadEventMs} ms / ${results.baseline.readyMs} ms (longest task ${results.baseline.longestTaskMs} ms)`,
  );
  log(
    `  to the next painted frame: status filter ${results.changes.statusFilterMs} ms, search ${results.changes.searchMs} ms, all runs ${results.changes.allRunsMs} ms, drill-down ${results.changes.drillDownMs} ms (longest task ${results.changes.longestTaskMs} ms); target < ${CHANGE_TARGET_MS} ms ${slowest < CHANGE_TARGET_MS ? 'met' : 'NOT met'}`,
  );
  log(`  network requests: ${results.networkRequests}`);
  if (values.json) process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
  if (results.networkRequests > 0) process.exitCode = 1;
}

await main();
