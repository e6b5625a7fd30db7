// `pnpm bench`: every benchmark in turn — parser throughput (and, with --rss, peak memory over
// 1 GB), one small command's start-up, resolving a 100 MB runnerd executable, qualifying a release, ingesting 10,000 bundles
// (SQLite and PostgreSQL), reporting a 100,000-attempt evalbook (and loading its HTML report in
// Chromium), the checks engine over stdio and
// 1,000,000 events through the policy producer. Arguments go to the throughput benchmark;
// --json is passed to both. Exits non-zero if either benchmark does.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TSX = join(ROOT, 'node_modules/.bin/tsx');
const args = process.argv.slice(2).filter((arg) => arg !== '--');

const runs: [string, string[]][] = [
  ['scripts/bench/validate-bench.ts', args],
  ['scripts/bench/startup-bench.ts', args.includes('--json') ? ['--json'] : []],
  ['scripts/bench/resolve-bench.ts', args.includes('--json') ? ['--json'] : []],
  ['scripts/bench/qualify-bench.ts', args.includes('--json') ? ['--json'] : []],
  ['scripts/bench/ingest-bench.ts', args.includes('--json') ? ['--json'] : []],
  ['scripts/bench/report-bench.ts', args.includes('--json') ? ['--json'] : []],
  ['scripts/bench/report-browser-bench.ts', args.includes('--json') ? ['--json'] : []],
  ['scripts/bench/engine-bench.ts', args.includes('--json') ? ['--json'] : []],
  ['scripts/bench/policy-bench.ts', args.includes('--json') ? ['--json'] : []],
  ['scripts/bench/campaign-bench.ts', args.includes('--json') ? ['--json'] : []],
  ['scripts/bench/publish-bench.ts', args.includes('--json') ? ['--json'] : []],
];
for (const [script, scriptArgs] of runs) {
  const { status } = spawnSync(TSX, [join(ROOT, script), ...scriptArgs], { stdio: 'inherit' });
  if (status !== 0) process.exitCode = status ?? 1;
}
