// `pnpm bench` (ingest and validate part): 10,000 generated bundles on disk, each command against
// its bare baseline in the same run (scripts/bench/bare-baseline.mjs: a plain node process doing the
// least the command must do on the same bytes):
//   `evals validate DIR`          vs  read each file synchronously + JSON.parse + sha256
//   `evals ingest DIR --store …`  vs  the same + the raw text inserted into a SQLite table with one
//                                     prepared statement, in transactions of the same batch size
// Targets: each at most 1.5× its baseline (wall and CPU are both reported), ingest's peak RSS < 400
// MB. Then, once each: an ingest with four deterministic engine checks per case, and the same
// ingest into PostgreSQL on loopback (a throwaway server, as the tests start it) when initdb and
// pg_ctl are on the machine, with a re-ingest of the same bundles (all duplicates).
//
// Every side is a child process reading the same files (the page cache is warmed first). Each round
// runs the validate pair, then the ingest pair, swapping which side of a pair goes first every round;
// a ratio is the median of the per-round ratios, reported with its spread and how many rounds met
// the target, and the load average before and after. CPU time and peak RSS are the child's own
// getrusage figures (threads included), printed by a tiny --import hook at exit. A measurement, not
// a test: targets are reported, never enforced; it exits non-zero only when a command does not end
// as expected.
//
// With --against OTHER_CHECKOUT, that checkout's built CLI runs in the same pairs too (before/after).
//
// Run alone: `tsx scripts/bench/ingest-bench.ts [--count 10000] [--rounds 5] [--no-postgres]
// [--against OTHER_CHECKOUT] [--json]`.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

import { startPostgres } from '@paperclip-evals/test-kit/postgres-server';
import { syntheticAttempt } from '@paperclip-evals/test-kit/synthetic';
import {
  BARE_BASELINE,
  describeRatios,
  loadAverage,
  mb,
  median,
  pairedRatios,
  runCli,
  runNode,
} from './cli-run.ts';

import type { Run } from './cli-run.ts';

const RATIO_TARGET = 1.5;
const RSS_TARGET_BYTES = 400e6;
const FILES_PER_DIRECTORY = 1000;
/** `evals ingest`'s default batch: the bare baseline commits as many rows per transaction. */
const BATCH_SIZE = 200;
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
    {
      id: 'no-loops',
      type: 'trace',
      spec: { check: 'loop_detection', tool: 'read_document', max_repetitions: 3 },
    },
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
      against: { type: 'string' },
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

    // Each round runs the four commands, pairs in turn, the order within each pair swapped every
    // round (A B, then B A) so a slow spell on the shared machine hits both sides of a pair.
    const runs = {
      bareValidate: [] as Run[],
      validate: [] as Run[],
      validateAgainst: [] as Run[],
      bareIngest: [] as Run[],
      sqlite: [] as Run[],
      sqliteAgainst: [] as Run[],
    };
    // --against: another checkout's built CLI (e.g. the code before a change) in the same pairs.
    const againstCli =
      values.against === undefined ? undefined : join(values.against, 'packages/cli/bin/evals.js');
    const loadBefore = loadAverage();
    for (let round = 0; round < rounds; round++) {
      const store = `sqlite:${join(dir, `round${round}.sqlite`)}`;
      const pairs: (readonly [keyof typeof runs, () => Promise<Run>, number])[][] = [
        [
          ['bareValidate', () => runNode(BARE_BASELINE, ['validate', corpus]), 0],
          ['validate', () => runCli(['validate', corpus]), 0],
          ...(againstCli === undefined
            ? []
            : ([['validateAgainst', () => runCli(['validate', corpus], againstCli), 0]] as const)),
        ],
        [
          [
            'bareIngest',
            () =>
              runNode(BARE_BASELINE, [
                'ingest',
                corpus,
                join(dir, `bare${round}.sqlite`),
                String(BATCH_SIZE),
              ]),
            0,
          ],
          ['sqlite', () => runCli(['ingest', corpus, '--store', store]), 0],
          ...(againstCli === undefined
            ? []
            : ([
                [
                  'sqliteAgainst',
                  () =>
                    runCli(
                      ['ingest', corpus, '--store', `sqlite:${join(dir, `against${round}.sqlite`)}`],
                      againstCli,
                    ),
                  0,
                ],
              ] as const)),
        ],
      ];
      for (const pair of pairs)
        for (const [name, run, exit] of round % 2 === 0 ? pair : [...pair].reverse()) {
          const result = await run();
          expectExit(name, result, exit);
          runs[name].push(result);
        }
      const last = (name: keyof typeof runs): Run => runs[name][round] as Run;
      log(
        `  round ${round + 1}: bare validate ${last('bareValidate').seconds.toFixed(2)} s, evals validate ${last('validate').seconds.toFixed(2)} s (${(last('validate').seconds / last('bareValidate').seconds).toFixed(2)}×); bare ingest ${last('bareIngest').seconds.toFixed(2)} s, evals ingest ${last('sqlite').seconds.toFixed(2)} s (${(last('sqlite').seconds / last('bareIngest').seconds).toFixed(2)}×, cpu ${(last('sqlite').cpuSeconds / last('bareIngest').cpuSeconds).toFixed(2)}×), peak RSS ${mb(last('sqlite').peakRssBytes)}`,
      );
    }
    const loadAfter = loadAverage();
    const validateRatios = pairedRatios(runs.bareValidate, runs.validate, RATIO_TARGET);
    const ingestRatios = pairedRatios(runs.bareIngest, runs.sqlite, RATIO_TARGET);
    const toValidate = pairedRatios(runs.validate, runs.sqlite, RATIO_TARGET);
    const validateSeconds = median(runs.validate.map((run) => run.seconds));
    const sqliteSeconds = median(runs.sqlite.map((run) => run.seconds));
    const peakRss = Math.max(...runs.sqlite.map((run) => run.peakRssBytes));
    const secondsOf = (list: readonly Run[]) => ({
      seconds: median(list.map((run) => run.seconds)),
      cpuSeconds: median(list.map((run) => run.cpuSeconds)),
    });
    const result: Record<string, unknown> = {
      bundles: count,
      corpusBytes: bytes,
      node: process.version,
      rounds,
      load: { before: loadBefore, after: loadAfter },
      bareValidate: secondsOf(runs.bareValidate),
      validate: {
        ...secondsOf(runs.validate),
        bundlesPerSecond: count / validateSeconds,
        toBare: validateRatios,
      },
      bareIngest: secondsOf(runs.bareIngest),
      sqlite: {
        ...secondsOf(runs.sqlite),
        attemptsPerSecond: count / sqliteSeconds,
        toBare: ingestRatios,
        toValidate,
        peakRssBytes: peakRss,
        rssTargetBytes: RSS_TARGET_BYTES,
      },
    };
    log(`load average ${loadBefore} before, ${loadAfter} after; medians of ${rounds} interleaved rounds:`);
    log(
      `validate: ${Math.round(count / validateSeconds)} bundles/s; to bare read + JSON.parse + sha256: ${describeRatios(validateRatios)}`,
    );
    log(
      `ingest:   ${Math.round(count / sqliteSeconds)} attempts/s; to bare read + JSON.parse + sha256 + SQLite insert: ${describeRatios(ingestRatios)}`,
    );
    if (againstCli !== undefined) {
      const validateAgainst = pairedRatios(runs.bareValidate, runs.validateAgainst, RATIO_TARGET);
      const ingestAgainst = pairedRatios(runs.bareIngest, runs.sqliteAgainst, RATIO_TARGET);
      result.against = {
        checkout: values.against,
        validate: { ...secondsOf(runs.validateAgainst), toBare: validateAgainst },
        sqlite: { ...secondsOf(runs.sqliteAgainst), toBare: ingestAgainst },
      };
      log(`--against ${values.against}, the same rounds:`);
      log(`  validate: ${describeRatios(validateAgainst)}`);
      log(`  ingest:   ${describeRatios(ingestAgainst)}`);
    }
    log(
      `          to evals validate: wall ${toValidate.wall.toFixed(2)}×, cpu ${toValidate.cpu.toFixed(2)}×; peak RSS ${mb(peakRss)}, target < ${mb(RSS_TARGET_BYTES)} ${peakRss < RSS_TARGET_BYTES ? 'met' : 'NOT met'}`,
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
