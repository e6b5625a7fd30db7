// `pnpm bench` (publish part, issue 19): `evals publish` of ONE 100,000-attempt campaign (a page
// per attempt, a page per case, the grid, the manifest), `--verify` of that site and `--public` —
// wall time, CPU time (user + system, all threads) and the process's peak RSS, with the load average
// before and after each — beside `evals report --format html --run <campaign>` of the same store in
// the same run, and each one's ratio to it (wall and CPU: on a shared machine the ratio travels, the
// seconds do not). The
// targets are the report's (< 10 s and < 500 MB, docs/benchmarks.md); publish writes 100,000 pages
// as they are rendered, so its memory stays flat and its time is the writes'. Right after publish,
// the file system's floor in the same run: a bare node process creating the very files publish
// wrote (same paths, same sizes, the same way: bare-baseline.mjs files) in a fresh folder next to
// the site; publish's wall and CPU minus the floor's is what publish adds to creating its files.
//
// The evalbook (100 cases × 4 configs × 250 attempts, one run with its campaign record) is
// generated once into .bench/ (git-ignored) from a few real converted bundles, re-keyed.
// A measurement, not a test: targets are reported, never enforced.
//
// Run alone: `tsx scripts/bench/publish-bench.ts [--attempts 100000] [--threads N] [--json]` (--threads:
// publish's and --verify's, default theirs).
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

import { parseNativeExecution } from '../../packages/contract/dist/index.js';
import { SqliteStore, convertBundle } from '../../packages/evalbook/dist/index.js';
import { syntheticAttempt } from '@paperclip-evals/test-kit/synthetic';
import { BARE_BASELINE, loadAverage, mb, runCli, runNode } from './cli-run.ts';

import type { LedgerRecord } from '../../packages/evalbook/dist/index.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const GENERATOR_VERSION = 1;
const TIME_TARGET_SECONDS = 10;
const RSS_TARGET_BYTES = 500e6;
const CASES = 100;
const CONFIGS = 4;
const CAMPAIGN = 'bench-campaign-1';

function templates(): LedgerRecord[] {
  const variants = [
    { runTerminalState: 'succeeded' as const },
    { runTerminalState: 'failed' as const },
    { runTerminalState: 'succeeded' as const, costMicros: null },
  ];
  return variants.map((options, index) =>
    convertBundle(
      parseNativeExecution(
        Buffer.from(
          JSON.stringify(syntheticAttempt({ ...options, runId: CAMPAIGN, attemptId: `t${index}` })),
        ),
      ),
    ),
  );
}

async function generate(path: string, attempts: number): Promise<void> {
  const temporary = `${path}.partial`;
  rmSync(temporary, { force: true });
  const store = SqliteStore.open(temporary);
  const [solved, failed, unpriced] = templates() as [LedgerRecord, LedgerRecord, LedgerRecord];
  const perCell = Math.max(1, Math.ceil(attempts / (CASES * CONFIGS)));
  let batch: LedgerRecord[] = [];
  let written = 0;
  for (let caseIndex = 0; caseIndex < CASES; caseIndex++)
    for (let config = 0; config < CONFIGS; config++)
      for (let attempt = 0; attempt < perCell && written + batch.length < attempts; attempt++) {
        const roll = (caseIndex * 7 + config * 13 + attempt * 11) % 10;
        const template = roll === 0 ? failed : roll === 1 ? unpriced : solved;
        batch.push({
          ...template,
          key: {
            runId: CAMPAIGN,
            caseId: `case_${String(caseIndex).padStart(3, '0')}`,
            configId: `config_${config}`,
            attemptId: `attempt_${attempt}`,
          },
        });
        if (batch.length === 2000) {
          await store.insertBatch(batch);
          written += batch.length;
          batch = [];
        }
      }
  await store.insertBatch(batch);
  await store.recordCampaign({
    campaignId: CAMPAIGN,
    record: {
      schema: 'evals-campaign/v1',
      campaignId: CAMPAIGN,
      suiteFingerprint: `sha256:${'a'.repeat(64)}`,
      planDigest: `sha256:${'b'.repeat(64)}`,
      lanes: Array.from({ length: CONFIGS }, (_, config) => ({
        id: `config_${config}`,
        provider: 'bench',
        model: `model-${config}`,
        driver: null,
        enabled: true,
      })),
      complete: true,
      partial: [],
      totals: { planned: attempts, tries: attempts },
      timing: { startedAt: '2026-11-01T12:00:00.000Z' },
    },
  });
  await store.close();
  for (const suffix of ['-wal', '-shm']) rmSync(`${temporary}${suffix}`, { force: true });
  renameSync(temporary, path);
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      attempts: { type: 'string', default: '100000' },
      threads: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
  });
  const attempts = Number(values.attempts);
  if (!Number.isSafeInteger(attempts) || attempts < 1)
    throw new Error('--attempts takes a positive whole number');
  const log = (line: string): void => {
    (values.json ? process.stderr : process.stdout).write(`${line}\n`);
  };
  const dir = join(ROOT, '.bench');
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `publish-evalbook-v${GENERATOR_VERSION}-${attempts}.sqlite`);
  if (!existsSync(path)) {
    log(`publish benchmark: generating a ${attempts}-attempt campaign in ${path} (once)…`);
    const started = performance.now();
    await generate(path, attempts);
    log(`  generated in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  } else {
    // A store generated before the ledger's newest migration: the CLI's readers never migrate
    // (store_needs_migration), so a writer opens it once.
    await SqliteStore.open(path).close();
  }
  const site = join(dir, 'publish-site');
  const report = join(dir, 'publish-report.html');
  rmSync(site, { recursive: true, force: true });
  rmSync(`${site}-public`, { recursive: true, force: true });
  const threads = values.threads === undefined ? [] : ['--threads', values.threads];
  const results: Record<string, unknown> = {
    attempts,
    threads: values.threads ?? null,
    node: process.version,
  };
  const runs: [string, string[]][] = [
    [
      'report --format html',
      ['report', '--store', `sqlite:${path}`, '--format', 'html', '--run', CAMPAIGN, '--out', report],
    ],
    ['publish', ['publish', '--store', `sqlite:${path}`, '--campaign', CAMPAIGN, '--out', site, ...threads]],
    ['publish --verify', ['publish', '--verify', site, ...threads]],
    [
      'publish --public',
      [
        'publish',
        '--store',
        `sqlite:${path}`,
        '--campaign',
        CAMPAIGN,
        '--out',
        `${site}-public`,
        '--public',
        ...threads,
      ],
    ],
  ];
  let baseline: { seconds: number; cpuSeconds: number } | null = null;
  for (const [name, args] of runs) {
    const loadBefore = loadAverage();
    const run = await runCli(args);
    const loadAfter = loadAverage();
    if (run.exitCode !== 0) throw new Error(`evals ${name} exited ${String(run.exitCode)}`);
    baseline ??= run;
    const wallRatio = run.seconds / baseline.seconds;
    const cpuRatio = run.cpuSeconds / baseline.cpuSeconds;
    results[name] = {
      seconds: run.seconds,
      cpuSeconds: run.cpuSeconds,
      peakRssBytes: run.peakRssBytes,
      wallRatioToReport: wallRatio,
      cpuRatioToReport: cpuRatio,
      loadBefore,
      loadAfter,
    };
    log(
      `${name.padEnd(20)} over ${attempts} attempts: ${run.seconds.toFixed(2)} s wall (target < ${TIME_TARGET_SECONDS} s ${run.seconds < TIME_TARGET_SECONDS ? 'met' : 'NOT met'}), ${run.cpuSeconds.toFixed(2)} s CPU, peak RSS ${mb(run.peakRssBytes)} (target < ${mb(RSS_TARGET_BYTES)} ${run.peakRssBytes < RSS_TARGET_BYTES ? 'met' : 'NOT met'}); ${wallRatio.toFixed(2)}× the report's wall, ${cpuRatio.toFixed(2)}× its CPU; load ${loadBefore} → ${loadAfter}`,
    );
    if (name === 'publish') results['file system floor'] = await fileFloor(site, run, baseline, log);
  }
  rmSync(site, { recursive: true, force: true });
  rmSync(`${site}-public`, { recursive: true, force: true });
  rmSync(report, { force: true });
  if (values.json) process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
}

/** Every file under `root` as [its path inside root, its size], sorted by path. */
function filesOf(root: string): [string, number][] {
  return readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry): [string, number] => {
      const path = join(entry.parentPath, entry.name);
      return [path.slice(root.length + 1), statSync(path).size];
    })
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/**
 * The file system's floor under the publish just run: the same files (paths and sizes) created by a
 * bare node process in a fresh folder next to the site, timed as the CLI is; and publish minus it.
 */
async function fileFloor(
  site: string,
  publish: { seconds: number; cpuSeconds: number },
  baseline: { seconds: number; cpuSeconds: number },
  log: (line: string) => void,
): Promise<Record<string, unknown>> {
  const files = filesOf(site);
  const list = `${site}-files.json`;
  const floor = `${site}-floor`;
  writeFileSync(list, JSON.stringify(files));
  rmSync(floor, { recursive: true, force: true });
  mkdirSync(floor);
  const loadBefore = loadAverage();
  const run = await runNode(BARE_BASELINE, ['files', list, floor]);
  const loadAfter = loadAverage();
  rmSync(floor, { recursive: true, force: true });
  rmSync(list, { force: true });
  if (run.exitCode !== 0) throw new Error(`the file floor exited ${String(run.exitCode)}`);
  const bytes = files.reduce((sum, [, size]) => sum + size, 0);
  const above = { seconds: publish.seconds - run.seconds, cpuSeconds: publish.cpuSeconds - run.cpuSeconds };
  log(
    `${'file system floor'.padEnd(20)} ${files.length} files, ${mb(bytes)}: ${run.seconds.toFixed(2)} s wall, ${run.cpuSeconds.toFixed(2)} s CPU, peak RSS ${mb(run.peakRssBytes)}; ${(run.seconds / baseline.seconds).toFixed(2)}× the report's wall, ${(run.cpuSeconds / baseline.cpuSeconds).toFixed(2)}× its CPU; load ${loadBefore} → ${loadAfter}`,
  );
  log(
    `${'publish − floor'.padEnd(20)} ${above.seconds.toFixed(2)} s wall, ${above.cpuSeconds.toFixed(2)} s CPU; ${(above.seconds / baseline.seconds).toFixed(2)}× the report's wall, ${(above.cpuSeconds / baseline.cpuSeconds).toFixed(2)}× its CPU`,
  );
  return {
    files: files.length,
    bytes,
    seconds: run.seconds,
    cpuSeconds: run.cpuSeconds,
    peakRssBytes: run.peakRssBytes,
    wallRatioToReport: run.seconds / baseline.seconds,
    cpuRatioToReport: run.cpuSeconds / baseline.cpuSeconds,
    publishMinusFloor: above,
    loadBefore,
    loadAfter,
  };
}

await main();
