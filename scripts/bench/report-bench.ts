// `pnpm bench` (report part): `evals report` over a generated 100,000-attempt SQLite evalbook, in
// every format — wall time and the process's peak RSS (targets: < 10 s and < 500 MB). The report
// streams the store and aggregates per (run, case, config) tally, never holding every record.
//
// The evalbook (100 cases × 4 configs × 5 runs × 50 attempts by default) is generated once into
// .bench/ (report-evalbook.ts).
// A measurement, not a test: targets are reported, never enforced.
//
// Run alone: `tsx scripts/bench/report-bench.ts [--attempts 100000] [--json]`.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

import { mb, runCli } from './cli-run.ts';
import { BENCH_DIR, reportEvalbook } from './report-evalbook.ts';

const TIME_TARGET_SECONDS = 10;
const RSS_TARGET_BYTES = 500e6;

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
  const dir = BENCH_DIR;
  const path = await reportEvalbook(attempts, log);
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
