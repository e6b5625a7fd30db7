// `pnpm bench` (report part): `evals report` over a generated 100,000-attempt SQLite evalbook, in
// every format — wall time and the process's peak RSS (targets: < 10 s and < 500 MB). The report
// streams the store and aggregates per (run, case, config) tally, never holding every record.
//
// The evalbook (100 cases × 4 configs × 5 runs × 50 attempts by default) is generated once into
// .bench/ (git-ignored) and reused while its generator version and size match. Records come from
// a few real converted bundles (synthetic generator → contract parser → converter) re-keyed and
// varied in outcome, cost and checks, then written through the store's own insertBatch.
// A measurement, not a test: targets are reported, never enforced.
//
// Run alone: `tsx scripts/bench/report-bench.ts [--attempts 100000] [--json]`.
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

import { parseNativeExecution } from '../../packages/contract/dist/index.js';
import { SqliteStore, convertBundle } from '../../packages/evalbook/dist/index.js';
import { syntheticAttempt } from '@paperclip-evals/test-kit/synthetic';
import { mb, runCli } from './cli-run.ts';

import type { LedgerRecord } from '../../packages/evalbook/dist/index.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const GENERATOR_VERSION = 1;
const TIME_TARGET_SECONDS = 10;
const RSS_TARGET_BYTES = 500e6;
const CASES = 100;
const CONFIGS = 4;
const RUNS = 5;

/** A record template per outcome, converted once from a real bundle. */
function templates(): LedgerRecord[] {
  const variants = [
    { runTerminalState: 'succeeded' as const },
    { runTerminalState: 'failed' as const },
    { runTerminalState: 'succeeded' as const, costMicros: null },
    { runTerminalState: 'succeeded' as const, transcriptOmission: 'stream closed' },
  ];
  return variants.map((options, index) =>
    convertBundle(
      parseNativeExecution(
        Buffer.from(JSON.stringify(syntheticAttempt({ ...options, attemptId: `t${index}` }))),
      ),
    ),
  );
}

/** Writes the evalbook to a temporary name, then moves it in place (a half-built one is never reused). */
async function generate(path: string, attempts: number): Promise<void> {
  const temporary = `${path}.partial`;
  rmSync(temporary, { force: true });
  const store = SqliteStore.open(temporary);
  const [solved, errored, unpriced, incomplete] = templates() as [
    LedgerRecord,
    LedgerRecord,
    LedgerRecord,
    LedgerRecord,
  ];
  const perCell = Math.max(1, Math.round(attempts / (CASES * CONFIGS * RUNS)));
  let batch: LedgerRecord[] = [];
  let written = 0;
  for (let run = 0; run < RUNS; run++)
    for (let caseIndex = 0; caseIndex < CASES; caseIndex++)
      for (let config = 0; config < CONFIGS; config++)
        for (let attempt = 0; attempt < perCell && written + batch.length < attempts; attempt++) {
          const roll = (caseIndex * 7 + config * 13 + run * 3 + attempt * 11) % 20;
          const template = roll === 0 ? errored : roll === 1 ? unpriced : roll === 2 ? incomplete : solved;
          const passes = roll < 20 - (caseIndex % 10) - config;
          batch.push({
            ...template,
            key: {
              runId: `run_${run}`,
              caseId: `case_${String(caseIndex).padStart(3, '0')}`,
              configId: `config_${config}`,
              attemptId: `attempt_${attempt}`,
            },
            scores: template.scores.map((score) =>
              passes ? score : { ...score, status: 'fail' as const, score: 0 },
            ),
          });
          if (batch.length === 2000) {
            await store.insertBatch(batch);
            written += batch.length;
            batch = [];
          }
        }
  await store.insertBatch(batch);
  await store.close();
  for (const suffix of ['-wal', '-shm']) rmSync(`${temporary}${suffix}`, { force: true });
  renameSync(temporary, path);
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { attempts: { type: 'string', default: '100000' }, json: { type: 'boolean', default: false } },
  });
  const attempts = Number(values.attempts);
  if (!Number.isSafeInteger(attempts) || attempts < 1)
    throw new Error('--attempts takes a positive whole number');
  const log = (line: string): void => {
    (values.json ? process.stderr : process.stdout).write(`${line}\n`);
  };
  const dir = join(ROOT, '.bench');
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `report-evalbook-v${GENERATOR_VERSION}-${attempts}.sqlite`);
  if (!existsSync(path)) {
    log(`report benchmark: generating a ${attempts}-attempt evalbook in ${path} (once)…`);
    const started = performance.now();
    await generate(path, attempts);
    log(`  generated in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  }
  const results: Record<string, unknown> = { attempts, node: process.version };
  for (const format of ['json', 'md', 'junit', 'html'] as const) {
    const out = join(dir, `report.${format}`);
    const run = await runCli([
      'report',
      '--store',
      `sqlite:${path}`,
      '--format',
      format,
      '--out',
      out,
      '--a',
      'config_0',
      '--b',
      'config_1',
    ]);
    if (run.exitCode !== 0) throw new Error(`evals report --format ${format} exited ${String(run.exitCode)}`);
    results[format] = { seconds: run.seconds, peakRssBytes: run.peakRssBytes };
    log(
      `report ${format.padEnd(5)} over ${attempts} attempts: ${run.seconds.toFixed(2)} s (target < ${TIME_TARGET_SECONDS} s ${run.seconds < TIME_TARGET_SECONDS ? 'met' : 'NOT met'}), peak RSS ${mb(run.peakRssBytes)} (target < ${mb(RSS_TARGET_BYTES)} ${run.peakRssBytes < RSS_TARGET_BYTES ? 'met' : 'NOT met'})`,
    );
    rmSync(out, { force: true });
  }
  if (values.json) process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
}

await main();
