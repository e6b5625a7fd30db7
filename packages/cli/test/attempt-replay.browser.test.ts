// Attempt replay pages (`evals report --attempt`) and the report's drill-down, in real headless
// Chromium (playwright-core), each page loaded from file://: a passing attempt, a failing one (a
// denial and a failed tool call shown with their codes and boundary), a bundle whose transcript was
// never recorded and an eval-session artifact ingested without a bundle (both "recording missing",
// with the reason, never a blank page); a collapsed tool call expands to its input and result; every
// request any page makes is counted (only the file itself); and the drill-down shows the very same
// replay as the attempt's own page. Screenshots go to a temp dir; EVALS_UPDATE_SCREENSHOTS=1 copies
// them into docs/images/ (attempt-replay-*.png).
// Without Chromium the suite fails in CI (CI set) and is skipped, saying why, elsewhere.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { sha256Digest } from '@paperclip-evals/contract';
import { attemptVerdict, buildAttemptReplay, openStore } from '@paperclip-evals/evalbook';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { syntheticAttempt } from '@paperclip-evals/test-kit/synthetic';
import {
  keepScreenshots,
  launchChromium,
  needsChromium,
  skippedSuffix,
} from '@paperclip-evals/test-kit/browser';
import { upstreamSuccess } from '@paperclip-evals/test-kit/upstream-artifacts';

import type { AttemptReplay } from '@paperclip-evals/evalbook';
import type { Browser, Page } from 'playwright-core';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const EVALS = join(ROOT, 'node_modules/.bin/evals');
const PROMPT = 'Fix the typo in README.md, then run the <tests>.';
/** A case description past the page's 500-character clip. */
const LONG_DESCRIPTION = `A typo in the README. ${'Explain every change, cite the line it touches. '.repeat(14)}`;

type Json = Record<string, unknown>;

/** A passing attempt: two tool calls, both succeeded. */
const passing = (): Json =>
  syntheticAttempt({ attemptId: 'attempt_pass', configId: 'baseline', toolCalls: 2, deniedCalls: 0 });

/** A failing attempt: a denied call, a failed call and a succeeded one; the run failed, its check too. */
function failing(): Json {
  const bundle = syntheticAttempt({
    attemptId: 'attempt_fail',
    configId: 'candidate',
    toolCalls: 3,
    deniedCalls: 1,
    runTerminalState: 'failed',
  }) as Json & { events: Json[]; semanticTools: { results: Json[] } };
  const failedCall = 'call_attempt_fail_1';
  for (const event of bundle.events) {
    const tool = (event.payload as Json).semantic_tool as Json | undefined;
    if (event.eventType === 'mcp_app.tool_result' && tool?.callId === failedCall) {
      tool.outcome = 'failed';
      tool.code = 'tool_execution_failed';
    }
  }
  const indexed = bundle.semanticTools.results.find((result) => result.callId === failedCall);
  if (indexed !== undefined) indexed.outcome = 'failed';
  bundle.observations = { checks: [{ id: 'tests-pass', passed: false }] };
  return bundle;
}

/** A bundle whose runner recorded no transcript: nothing but the proposed result and the terminal event. */
function unrecorded(): Json {
  const bundle = syntheticAttempt({
    attemptId: 'attempt_norec',
    configId: 'baseline',
    toolCalls: 0,
    progressEvents: 0,
  }) as Json & { events: Json[] };
  bundle.events = bundle.events.filter((event) =>
    ['run.result.proposed', 'run.terminal'].includes(String(event.eventType)),
  );
  bundle.transcript = {
    ...(bundle.transcript as Json),
    complete: false,
    eventCount: 0,
    omissionReason: 'the driver crashed before streaming',
  };
  return bundle;
}

/** An attempt id as long as the site's (`att_` and 24 hex digits, and longer): one word a narrow screen must wrap. */
const LONG_ID = `attempt_${'5014776b9771955190d76a83'.repeat(2)}`;

const HAVE_CHROMIUM = needsChromium(import.meta.url, 'attempt replay pages in headless Chromium');

describe.skipIf(!HAVE_CHROMIUM)(
  `attempt replay pages in headless Chromium${skippedSuffix(HAVE_CHROMIUM)}`,
  () => {
    let dir: string;
    let shots: string;
    let browser: Browser | undefined;
    const requests: string[] = [];
    const loaded: string[] = [];
    const errors: string[] = [];

    function evals(args: string[]): void {
      const result = spawnSync(EVALS, args, { cwd: dir, encoding: 'utf8' });
      if (result.status !== 0)
        throw new Error(`evals ${args.join(' ')} exited ${String(result.status)}: ${result.stderr}`);
    }
    /** A new page on `file`, every request it makes counted. */
    async function open(file: string): Promise<Page> {
      const page = await browser!.newPage({ viewport: { width: 1100, height: 900 } });
      page.on('request', (request) => requests.push(request.url()));
      page.on('console', (message) => {
        if (message.type() === 'error') errors.push(message.text());
      });
      page.on('pageerror', (error) => errors.push(error.message));
      const url = pathToFileURL(join(dir, file)).href;
      loaded.push(url);
      await page.goto(url);
      return page;
    }
    const shoot = async (page: Page, name: string): Promise<void> => {
      await page.screenshot({ path: join(shots, name), fullPage: true });
    };

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'evals-attempt-replay-'));
      shots = join(dir, 'screenshots');
      mkdirSync(shots);
      mkdirSync(join(dir, 'runs'));
      const files: [string, Json][] = [
        ['pass.json', passing()],
        ['fail.json', failing()],
        ['norec.json', unrecorded()],
        ['bare-artifact.json', upstreamSuccess('attempt_bare')],
        [
          'long.json',
          syntheticAttempt({ attemptId: LONG_ID, configId: 'candidate', toolCalls: 2, deniedCalls: 1 }),
        ],
      ];
      for (const [name, document] of files) writeFileSync(join(dir, 'runs', name), JSON.stringify(document));
      writeFileSync(
        join(dir, 'evalbook.json'),
        JSON.stringify({
          schema: 'paperclip-evals/environment/v1',
          name: 'replay suite',
          cases: [
            {
              id: 'case_synthetic',
              sha256: sha256Digest('case:case_synthetic'),
              description: LONG_DESCRIPTION,
              prompt: PROMPT,
            },
          ],
          configs: [
            { id: 'baseline', sha256: sha256Digest('config:baseline'), model: 'model-a', driver: 'driver-a' },
            {
              id: 'candidate',
              sha256: sha256Digest('config:candidate'),
              model: 'model-b',
              driver: 'driver-b',
            },
          ],
        }),
      );
      evals(['ingest', 'runs', '--store', 'sqlite:book.sqlite']);
      for (const attempt of ['attempt_pass', 'attempt_fail', 'attempt_norec', 'attempt_bare', LONG_ID])
        evals([
          'report',
          '--store',
          'sqlite:book.sqlite',
          '--env',
          'evalbook.json',
          '--attempt',
          attempt,
          '--out',
          `${attempt}.html`,
        ]);
      evals(['report', '--format', 'html', '--store', 'sqlite:book.sqlite', '--out', 'report.html']);
      browser = await launchChromium();
    });
    afterAll(async () => {
      await browser?.close();
      keepScreenshots(shots, [
        'attempt-replay-passing.png',
        'attempt-replay-failing.png',
        'attempt-replay-recording-missing.png',
        'attempt-replay-drilldown.png',
      ]);
      rmSync(dir, { recursive: true, force: true });
    });

    it('a passing attempt: its prompt, its turns and two succeeded tool calls, nothing marked', async () => {
      const page = await open('attempt_pass.html');
      const replay = page.locator('article.replay[data-attempt="attempt_pass"]');
      await expect(replay.getAttribute('data-status')).resolves.toBe('solved');
      await expect(replay.getAttribute('data-recording')).resolves.toBe('complete');
      await expect(replay.locator('[data-field="prompt"]').textContent()).resolves.toBe(PROMPT);
      expect(await replay.locator('details.tool').count()).toBe(2);
      expect(await replay.locator('details.tool[data-mark]').count()).toBe(0);
      expect(await replay.locator('.msg').count()).toBeGreaterThan(0);
      await expect(replay.locator('.recording').count()).resolves.toBe(0);
      await shoot(page, 'attempt-replay-passing.png');
      await page.close();
    });

    it('a failing attempt: the denial with its code and boundary, the failed call with its code, the failed check', async () => {
      const page = await open('attempt_fail.html');
      const replay = page.locator('article.replay[data-attempt="attempt_fail"]');
      await expect(replay.getAttribute('data-status')).resolves.not.toBe('solved');
      const denied = replay.locator('details.tool[data-mark="denied"]');
      expect(await denied.count()).toBe(1);
      await expect(denied.locator('summary [data-field="mark"]').textContent()).resolves.toBe(
        'denied: required_claim_missing at grant',
      );
      const failed = replay.locator('details.tool[data-mark="failed"]');
      expect(await failed.count()).toBe(1);
      await expect(failed.locator('summary [data-field="mark"]').textContent()).resolves.toBe(
        'failed: tool_execution_failed',
      );
      // marks are visible without expanding anything
      expect(await denied.locator('summary').isVisible()).toBe(true);
      expect(await failed.locator('summary [data-field="mark"]').isVisible()).toBe(true);
      await expect(replay.locator('tr[data-check="tests-pass"]').getAttribute('data-status')).resolves.toBe(
        'fail',
      );
      await expect(replay.locator('[data-field="failure"]').textContent()).resolves.toBe(
        'runner: run_failed',
      );
      for (const details of await replay.locator('details.tool').all())
        await details.locator('summary').click();
      await shoot(page, 'attempt-replay-failing.png');
      await page.close();
    });

    it('a long text shows its head and a working "show all" (the page\'s clip.js, allowed by its CSP)', async () => {
      const page = await open('attempt_pass.html');
      const clip = page.locator('.clip', { hasText: LONG_DESCRIPTION.slice(0, 100) }).first();
      const button = clip.locator('button.clip-more');
      expect(await button.isVisible()).toBe(true);
      expect(await clip.locator('.clip-all').isVisible()).toBe(false);
      await button.click();
      expect(await clip.locator('.clip-all').isVisible()).toBe(true);
      await expect(clip.locator('.clip-all').textContent()).resolves.toBe(LONG_DESCRIPTION);
      await expect(button.getAttribute('aria-expanded')).resolves.toBe('true');
      await page.close();
    });

    it('a collapsed tool call expands and shows its input and result', async () => {
      const page = await open('attempt_fail.html');
      const call = page.locator('details.tool[data-call-id="call_attempt_fail_1"]');
      expect(await call.getAttribute('open')).toBeNull();
      const body = call.locator('.tool-body');
      expect(await body.isVisible()).toBe(false);
      await call.locator('summary').click();
      expect(await call.getAttribute('open')).not.toBeNull();
      expect(await body.isVisible()).toBe(true);
      const [input, result] = await body.locator('pre.json').allInnerTexts();
      expect(input).toContain('"phase": "input"');
      expect(input).toContain('"callId": "call_attempt_fail_1"');
      expect(result).toContain('"outcome": "failed"');
      await expect(body.textContent()).resolves.toContain('tool_execution_failed');
      await page.close();
    });

    it('a bundle without a transcript: "recording missing" with the reason, in the same page', async () => {
      const page = await open('attempt_norec.html');
      const block = page.locator('article.replay .recording.missing');
      expect(await block.isVisible()).toBe(true);
      await expect(block.textContent()).resolves.toBe(
        'Recording missing: transcript not recorded: the driver crashed before streaming',
      );
      // the rest of the page is there: terminal state, cost, checks
      expect(await page.locator('article.replay .replay-outcome').isVisible()).toBe(true);
      expect(await page.locator('article.replay [data-field="effectiveNanodollars"]').isVisible()).toBe(true);
      await shoot(page, 'attempt-replay-recording-missing.png');
      await page.close();
    });

    it('an eval-session artifact without a bundle: "recording missing", and the artifact’s own fields', async () => {
      const page = await open('attempt_bare.html');
      const replay = page.locator('article.replay[data-attempt="attempt_bare"]');
      await expect(replay.getAttribute('data-recording')).resolves.toBe('missing');
      await expect(replay.locator('.recording.missing').textContent()).resolves.toContain(
        'eval-session artifact without its native-execution bundle',
      );
      const session = replay.locator('.replay-eval-session');
      expect(await session.isVisible()).toBe(true);
      await expect(session.textContent()).resolves.toContain('completed');
      await page.close();
    });

    it('shows the very same replay inside the report’s drill-down', async () => {
      const page = await open('report.html');
      // the cell is not in the newest run: its attempts are in the all-runs grid
      await page.locator('[data-scope-button="all"]').click();
      await page
        .locator('td.cell[data-scope="all"][data-case="case_synthetic"][data-config="candidate"]')
        .click();
      await page.locator('#cell-attempts tr[data-attempt="attempt_fail"] button').click();
      const inReport = page.locator('#attempt-detail article.replay[data-attempt="attempt_fail"]');
      expect(await inReport.isVisible()).toBe(true);
      // the model, built here from the same store, names the calls the page shows, in order
      const store = await openStore(`sqlite:${join(dir, 'book.sqlite')}`);
      let replay: AttemptReplay;
      try {
        const key = {
          runId: 'run_synthetic',
          caseId: 'case_synthetic',
          configId: 'candidate',
          attemptId: 'attempt_fail',
        };
        const attempt = (await store.getAttempt(key))!;
        replay = buildAttemptReplay({
          attempt,
          bundleText: await store.getBundle(attempt.bundleDigest),
          verdict: attemptVerdict(attempt.record, attempt.scores),
        });
      } finally {
        await store.close();
      }
      const shown = await inReport
        .locator('details.tool')
        .evaluateAll((nodes: { getAttribute(name: string): string | null }[]) =>
          nodes.map((node) => node.getAttribute('data-call-id')),
        );
      expect(shown).toEqual(
        replay.turns.flatMap((turn) =>
          turn.entries.flatMap((entry) => (entry.kind === 'tool_call' ? [entry.callId] : [])),
        ),
      );
      await inReport.locator('details.tool[data-mark="denied"] summary').click();
      await page.locator('#drilldown').screenshot({ path: join(shots, 'attempt-replay-drilldown.png') });
      await inReport.locator('details.tool[data-mark="denied"] summary').click();
      // rendered without the environment here, with it on its own page: compare with a page rendered the same way
      evals(['report', '--store', 'sqlite:book.sqlite', '--attempt', 'attempt_fail', '--out', 'plain.html']);
      const own = await open('plain.html');
      const ownHtml = await own
        .locator('article.replay')
        .evaluate((node: { outerHTML: string }) => node.outerHTML);
      // The same replay but for its heading: a page names the attempt (and its status) in its h1 once.
      const reportHtml = await inReport.evaluate((node: { outerHTML: string }) => node.outerHTML);
      expect(reportHtml).toMatch(/<h3>Attempt <code>attempt_fail<\/code> <span class="chip errored">/);
      expect(reportHtml.replace(/<h3>Attempt [\s\S]*?<\/h3>/, '')).toBe(ownHtml);
      await expect(own.locator('h1').textContent()).resolves.toMatch(/attempt attempt_fail\s+errored$/);
      await own.close();
      await page.close();
    });

    it('fits a 390 px viewport: no page-level horizontal overflow, a long attempt id wraps, wide tables scroll in place', async () => {
      for (const attempt of ['attempt_pass', 'attempt_fail', 'attempt_norec', 'attempt_bare', LONG_ID]) {
        const page = await open(`${attempt}.html`);
        await page.setViewportSize({ width: 390, height: 844 });
        expect(
          await page.evaluate<number>('document.documentElement.scrollWidth'),
          attempt,
        ).toBeLessThanOrEqual(390);
        await page.close();
      }
    });

    it('loads nothing from the network: every request of every page was the page file itself', () => {
      expect(loaded.length).toBeGreaterThanOrEqual(6);
      expect(requests).toEqual(loaded);
      expect(errors).toEqual([]);
    });
  },
);
