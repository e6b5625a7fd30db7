// Release qualification wall time: `qualifyRelease` on one release directory, end to end (SHA256SUMS,
// safe extraction, the offline consumer install, the probe, runnerd resolution, negotiation),
// excluding whatever built the release. Given --release-dir it qualifies that directory (e.g. the
// output of check:clean-consumers, with a ~100 MB runnerd); otherwise it builds a FAKE release once
// (the test suite's, not timed) under os.tmpdir() and removes it afterwards. Each round is one
// qualification in this process; the first also pays for loading and compiling the schemas. The
// target (< 20 s) is reported, never enforced: this is a measurement, not a test. It exits non-zero
// only on bad arguments or an internal error — a refused release is timed like any other.
//
// Run: `npx -y pnpm@12.4.2 run build && ./node_modules/.bin/tsx scripts/bench/qualify-bench.ts
// [--release-dir DIR] [--rounds 3] [--json]` (PAPERCLIP_EVALS_PNPM picks the pnpm, as in the CLI).
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

import { pnpmCommand, qualifyRelease } from '../../packages/qualification/src/index.ts';
import { buildFakeRelease } from '@paperclip-evals/test-kit/fake-release';

export const TARGET_MS = 20_000;

export interface QualifyBenchRound {
  readonly ms: number;
  readonly qualified: boolean;
  readonly failed: readonly string[];
}

export interface QualifyBenchResult {
  readonly machine: { readonly node: string; readonly cpus: number; readonly cpuModel: string };
  readonly releaseDir: string;
  readonly fake: boolean;
  readonly pnpm: readonly string[];
  readonly rounds: readonly QualifyBenchRound[];
  readonly bestMs: number;
  readonly medianMs: number;
  readonly targetMs: number;
}

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  const at = (index: number): number => sorted[index] ?? Number.NaN;
  return sorted.length % 2 === 1 ? at(middle) : (at(middle - 1) + at(middle)) / 2;
};

export async function runQualifyBench(
  options: { releaseDir?: string; rounds?: number } = {},
): Promise<QualifyBenchResult> {
  const roundCount = options.rounds ?? 3;
  let scratch: string | undefined;
  try {
    let releaseDir: string;
    if (options.releaseDir === undefined) {
      scratch = await mkdtemp(join(tmpdir(), 'qualify-bench-'));
      releaseDir = (await buildFakeRelease(join(scratch, 'release'))).dir;
    } else releaseDir = resolve(options.releaseDir);
    const rounds: QualifyBenchRound[] = [];
    for (let round = 0; round < roundCount; round++) {
      const start = performance.now();
      const record = await qualifyRelease({ releaseDir });
      rounds.push({
        ms: performance.now() - start,
        qualified: record.qualified,
        failed: record.checks
          .filter((check) => check.status !== 'pass')
          .map((check) => `${check.id}:${check.status}`),
      });
    }
    const cpu = cpus();
    return {
      machine: { node: process.version, cpus: cpu.length, cpuModel: cpu[0]?.model ?? 'unknown' },
      releaseDir,
      fake: options.releaseDir === undefined,
      pnpm: pnpmCommand(),
      rounds,
      bestMs: Math.min(...rounds.map((r) => r.ms)),
      medianMs: median(rounds.map((r) => r.ms)),
      targetMs: TARGET_MS,
    };
  } finally {
    if (scratch !== undefined) await rm(scratch, { recursive: true, force: true });
  }
}

function report(result: QualifyBenchResult): string {
  const lines = [
    `qualify ${result.fake ? 'a fake release (built, not timed)' : result.releaseDir} — node ${result.machine.node}, ${result.machine.cpus} × ${result.machine.cpuModel}`,
    `pnpm: ${result.pnpm.join(' ')}`,
    '',
    'round   wall time   qualified',
    ...result.rounds.map(
      (r, index) =>
        `${String(index + 1).padStart(5)}   ${r.ms.toFixed(0).padStart(6)} ms   ${r.qualified ? 'yes' : `no (${r.failed.join(', ')})`}`,
    ),
    '',
    `best ${result.bestMs.toFixed(0)} ms, median ${result.medianMs.toFixed(0)} ms (target < ${result.targetMs} ms: ${result.medianMs < result.targetMs ? 'met' : 'NOT met'})`,
  ];
  return `${lines.join('\n')}\n`;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { values } = parseArgs({
    args: process.argv.slice(2).filter((arg) => arg !== '--'),
    options: {
      'release-dir': { type: 'string' },
      rounds: { type: 'string', default: '3' },
      json: { type: 'boolean', default: false },
    },
  });
  const rounds = Number(values.rounds);
  if (!Number.isInteger(rounds) || rounds < 1) {
    process.stderr.write('usage: qualify-bench.ts [--release-dir DIR] [--rounds N] [--json]\n');
    process.exit(2);
  }
  const result = await runQualifyBench({
    rounds,
    ...(values['release-dir'] === undefined ? {} : { releaseDir: values['release-dir'] }),
  });
  process.stdout.write(values.json ? `${JSON.stringify(result, null, 2)}\n` : report(result));
}
