// `pnpm bench` (ingest part): `evals ingest` of 10,000 generated bundles into a fresh SQLite store,
// against `evals validate` of the same files in the same run (target: ingest ≤ 1.5× validate-only),
// with the ingesting process's peak RSS (target < 400 MB); then the same ingest into PostgreSQL on
// loopback (a throwaway server, as the tests start it) when initdb and pg_ctl are on the machine.
// One more SQLite ingest with an environment whose cases carry four deterministic engine checks
// (constraint, trace ×2, content) says what evaluating case checks at ingest costs.
//
// Both sides are the real CLI in a child process reading the same files (the page cache is warmed
// first), so the ratio is what a user sees: parse + canonical digest + convert + batched writes,
// over parse alone. Rounds alternate validate / ingest and the ratio is the median of per-round
// ratios. Peak RSS is the child's own getrusage maxRSS, printed by a tiny --import hook at exit.
// A measurement, not a test: targets are reported, never enforced; it exits non-zero only when a
// command does not end as expected.
//
// Run alone: `tsx scripts/bench/ingest-bench.ts [--count 10000] [--rounds 5] [--no-postgres] [--json]`.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

import { startPostgres } from '@paperclip-evals/test-kit/postgres-server';
import { syntheticAttempt } from '@paperclip-evals/test-kit/synthetic';
import { mb, runCli } from './cli-run.ts';

import type { Run } from './cli-run.ts';

const RATIO_TARGET = 1.5;
const RSS_TARGET_BYTES = 400e6;
const FILES_PER_DIRECTORY = 1000;
/** Writes `count` distinct bundles (~20 events, ~11 KB each) in directories of 1,000. */
async function writeCorpus(dir: string, count: number): Promise<number> {
  let bytes = 0;
  for (let index = 0; index < count; index++) {
    const sub = join(dir, String(Math.floor(index / FILES_PER_DIRECTORY)).padStart(3, '0'));
    if (index % FILES_PER_DIRECTORY === 0) await mkdir(sub);
    const attemptId = `attempt_${String(index).padStart(6, '0')}`;
    const text = JSON.stringify(
      syntheticAttempt({
        runId: `run_${String(Math.floor(index / 500)).padStart(3, '0')}`,
        caseId: `case_${String(index % 40).padStart(3, '0')}`,
        configId: `config_${String(index % 2)}`,
        attemptId,
        toolCalls: 3 + (index % 4),
        deniedCalls: index % 3,
        progressEvents: 1,
        costMicros: index % 7 === 0 ? null : 1000 + index,
      }),
    );
    bytes += Buffer.byteLength(text);
    await writeFile(join(sub, `${attemptId}.json`), text);
  }
  return bytes;
}

/** An environment for the corpus: its 40 cases and 2 configs, each case with four engine checks. */
async function writeCheckedEnvironment(path: string): Promise<void> {
  const digestsOf = (caseId: string, configId: string) =>
    (syntheticAttempt({ caseId, configId }) as { input: { caseSha256: string; configSha256: string } }).input;
  const checks = [
    { id: 'few-steps', type: 'constraint', spec: { field: 'steps.length', operator: 'lte', value: 5 } },
    { id: 'no-loops', type: 'trace', spec: { check: 'loop_detection', max_repetitions: 3 } },
    { id: 'no-shell', type: 'trace', spec: { check: 'forbidden_tools', tools: ['shell.exec'] } },
    {
      id: 'finished',
      type: 'content',
      spec: { target: 'output.run_terminal_state', check: 'contains', value: 'succeeded' },
    },
  ];
  const cases = Array.from({ length: 40 }, (_, index) => {
    const caseId = `case_${String(index).padStart(3, '0')}`;
    return { id: caseId, sha256: digestsOf(caseId, 'config_0').caseSha256, checks };
  });
  const configs = ['config_0', 'config_1'].map((configId) => ({
    id: configId,
    sha256: digestsOf('case_000', configId).configSha256,
    model: 'bench-model',
    driver: 'paperclip-deterministic',
  }));
  await writeFile(
    path,
    JSON.stringify({ schema: 'paperclip-evals/environment/v1', name: 'ingest-bench', cases, configs }),
  );
}

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] ?? 0)
    : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
};

function expectExit(what: string, run: Run, expected: number): void {
  if (run.exitCode !== expected)
    throw new Error(`${what} exited ${String(run.exitCode)}, expected ${expected}`);
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      count: { type: 'string', default: '10000' },
      rounds: { type: 'string', default: '5' },
      'no-postgres': { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
    },
  });
  const count = Number(values.count);
  const rounds = Number(values.rounds);
  if (!Number.isSafeInteger(count) || count < 1 || !Number.isSafeInteger(rounds) || rounds < 1)
    throw new Error('--count and --rounds take positive whole numbers');
  const log = (line: string): void => {
    (values.json ? process.stderr : process.stdout).write(`${line}\n`);
  };

  const dir = await mkdtemp(join(tmpdir(), 'evals-ingest-bench-'));
  try {
    const corpus = join(dir, 'bundles');
    await mkdir(corpus);
    const bytes = await writeCorpus(corpus, count);
    log(`ingest benchmark: ${count} bundles, ${mb(bytes)} (mean ${(bytes / count / 1000).toFixed(1)} KB)`);
    expectExit('warm-up validate', await runCli(['validate', corpus]), 0);

    const validate: Run[] = [];
    const sqlite: Run[] = [];
    const ratios: number[] = [];
    for (let round = 0; round < rounds; round++) {
      const checked = await runCli(['validate', corpus]);
      expectExit('evals validate', checked, 0);
      const ingested = await runCli([
        'ingest',
        corpus,
        '--store',
        `sqlite:${join(dir, `round${round}.sqlite`)}`,
      ]);
      expectExit('evals ingest (sqlite)', ingested, 0);
      validate.push(checked);
      sqlite.push(ingested);
      ratios.push(ingested.seconds / checked.seconds);
      log(
        `  round ${round + 1}: validate ${checked.seconds.toFixed(2)} s, ingest ${ingested.seconds.toFixed(2)} s (${(ingested.seconds / checked.seconds).toFixed(2)}×), peak RSS ${mb(ingested.peakRssBytes)}`,
      );
    }
    const validateSeconds = median(validate.map((run) => run.seconds));
    const sqliteSeconds = median(sqlite.map((run) => run.seconds));
    const ratio = median(ratios);
    const peakRss = Math.max(...sqlite.map((run) => run.peakRssBytes));
    const result: Record<string, unknown> = {
      bundles: count,
      corpusBytes: bytes,
      node: process.version,
      validate: { seconds: validateSeconds, bundlesPerSecond: count / validateSeconds },
      sqlite: {
        seconds: sqliteSeconds,
        attemptsPerSecond: count / sqliteSeconds,
        ratioToValidate: ratio,
        ratioTarget: RATIO_TARGET,
        peakRssBytes: peakRss,
        rssTargetBytes: RSS_TARGET_BYTES,
      },
    };
    log(
      `sqlite:   ${Math.round(count / sqliteSeconds)} attempts/s; ${ratio.toFixed(2)}× validate-only (${Math.round(count / validateSeconds)} bundles/s), target ≤ ${RATIO_TARGET}× ${ratio <= RATIO_TARGET ? 'met' : 'NOT met'}; peak RSS ${mb(peakRss)}, target < ${mb(RSS_TARGET_BYTES)} ${peakRss < RSS_TARGET_BYTES ? 'met' : 'NOT met'}`,
    );

    const environment = join(dir, 'evalbook.json');
    await writeCheckedEnvironment(environment);
    const checked = await runCli([
      'ingest',
      corpus,
      '--store',
      `sqlite:${join(dir, 'checked.sqlite')}`,
      '--env',
      environment,
    ]);
    expectExit('evals ingest (sqlite, case checks)', checked, 0);
    result.sqliteWithCaseChecks = {
      seconds: checked.seconds,
      attemptsPerSecond: count / checked.seconds,
      ratioToPlainIngest: checked.seconds / sqliteSeconds,
      ratioToValidate: checked.seconds / validateSeconds,
    };
    log(
      `sqlite + 4 case checks per attempt: ${Math.round(count / checked.seconds)} attempts/s (${(checked.seconds / sqliteSeconds).toFixed(2)}× plain ingest, ${(checked.seconds / validateSeconds).toFixed(2)}× validate-only)`,
    );

    if (!values['no-postgres']) {
      const server = await startPostgres().catch((error: unknown) => {
        log(`postgres: SKIPPED (${error instanceof Error ? error.message : String(error)})`);
        return null;
      });
      if (server !== null)
        try {
          const url = await server.createDatabase('ingest_bench');
          const ingested = await runCli(['ingest', corpus, '--store', url]);
          expectExit('evals ingest (postgres)', ingested, 0);
          const again = await runCli(['ingest', corpus, '--store', url]);
          expectExit('evals ingest (postgres, all duplicates)', again, 0);
          result.postgres = {
            seconds: ingested.seconds,
            attemptsPerSecond: count / ingested.seconds,
            ratioToValidate: ingested.seconds / validateSeconds,
            peakRssBytes: ingested.peakRssBytes,
            duplicatesSeconds: again.seconds,
          };
          log(
            `postgres: ${Math.round(count / ingested.seconds)} attempts/s (${(ingested.seconds / validateSeconds).toFixed(2)}× validate-only), peak RSS ${mb(ingested.peakRssBytes)}; re-ingest of the same ${count} (all duplicates) ${again.seconds.toFixed(2)} s`,
          );
        } finally {
          await server.stop();
        }
    }
    if (values.json) process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
