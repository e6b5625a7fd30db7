// Bench support: the generated 100,000-attempt SQLite evalbook the report benchmarks read
// (report-bench.ts, report-browser-bench.ts): 100 cases × 4 configs × 5 runs × 50 attempts, with
// errored, incomplete, unpriced and failing attempts. Generated once into .bench/ (git-ignored) and
// reused while its generator version and size match. Records come from a few real converted bundles
// (synthetic generator → contract parser → converter) re-keyed and varied in outcome, cost and
// checks, then written through the store's own insertBatch.
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { parseNativeExecution } from '../../packages/contract/dist/index.js';
import { SqliteStore, convertBundle } from '../../packages/evalbook/dist/index.js';
import { syntheticAttempt } from '@paperclip-evals/test-kit/synthetic';

import type { LedgerRecord } from '../../packages/evalbook/dist/index.js';

export const BENCH_DIR = join(fileURLToPath(new URL('../../', import.meta.url)), '.bench');
const GENERATOR_VERSION = 1;
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

/** The evalbook of `attempts` attempts (generated the first time): its path. */
export async function reportEvalbook(attempts: number, log: (line: string) => void): Promise<string> {
  mkdirSync(BENCH_DIR, { recursive: true });
  const path = join(BENCH_DIR, `report-evalbook-v${GENERATOR_VERSION}-${attempts}.sqlite`);
  if (!existsSync(path)) {
    log(`report benchmark: generating a ${attempts}-attempt evalbook in ${path} (once)…`);
    const started = performance.now();
    await generate(path, attempts);
    log(`  generated in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  }
  return path;
}
