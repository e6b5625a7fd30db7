// `pnpm bench`: throughput of the native-execution/v1 parser against a same-run baseline.
//
// The corpus (scripts/bench/corpus.ts) is generated in memory: 1,000 distinct bundles of ~200 events
// each, serialised compact (~97 KB: the issue's ~100 KB / ~200 events) and pretty-printed (~132 KB;
// see docs/benchmarks.md on V8's 128 KiB large-object threshold, which these straddle). Baseline =
// JSON.parse(utf8 text) + sha256 of the bytes; candidate = the BUILT parseNativeExecution
// (packages/contract/dist, what users run) + the same sha256. After a warm-up, rounds alternate
// baseline/candidate (and swap which goes first) so drift cancels; the ratio is the median of the
// per-round ratios (CPU time of each round too: on a shared machine the process may wait for a core).
// The 1.5x target is reported (how many rounds met it), never enforced: this is a measurement, not a test.
// It exits non-zero only if a bundle is refused (the corpus must be valid), on bad arguments, or if
// the --rss benchmark fails.
//
// Flags: --format compact|pretty|both (default both), --count N (bundles, default 1000),
//        --rounds N (default 7), --warmup N (default 2), --json (one JSON report on stdout instead
//        of the tables), --rss (afterwards, run the peak-RSS benchmark of scripts/bench/rss-bench.ts).

import { createHash } from 'node:crypto';
import { cpus } from 'node:os';
import { parseArgs } from 'node:util';

import { parseNativeExecution } from '../../packages/contract/dist/index.js';
import { loadAverage } from './cli-run.ts';
import { benchBundle } from './corpus.ts';
import { formatBytes, runRssBench } from './rss-bench.ts';

import type { BundleFormat } from './corpus.ts';
import type { RssBenchResult } from './rss-bench.ts';

/** Issue 16's target for the parser (its first issue's was 2×): parse at most 1.5× JSON.parse + sha256. */
const TARGET_RATIO = 1.5;
/** V8's kMaxRegularHeapObjectSize: longer one-byte strings are allocated in large-object space. */
const LARGE_OBJECT_BYTES = 128 * 1024;

interface ModeFigures {
  readonly roundsMs: number[];
  readonly medianMs: number;
  readonly bundlesPerSecond: number;
  readonly megabytesPerSecond: number;
}

export interface ThroughputResult {
  readonly machine: { readonly node: string; readonly cpus: number; readonly cpuModel: string };
  readonly corpus: {
    readonly bundles: number;
    readonly totalBytes: number;
    readonly meanBytes: number;
    readonly minBytes: number;
    readonly maxBytes: number;
    readonly meanEvents: number;
    readonly format: BundleFormat;
    /** Bundles whose text is over V8's 128 KiB regular-object limit. */
    readonly overLargeObjectLimit: number;
  };
  readonly warmupRounds: number;
  readonly rounds: number;
  readonly baseline: ModeFigures;
  readonly candidate: ModeFigures;
  /** candidate time / baseline time of each round (the two runs of a round are adjacent in time). */
  readonly roundRatios: number[];
  /** The headline: median of roundRatios (pairing cancels drift that hits both modes of a round). */
  readonly ratio: number;
  /** median candidate time / median baseline time, for comparison. */
  readonly ratioOfMedians: number;
  /** fastest candidate round / fastest baseline round: the least disturbed by other load. */
  readonly ratioOfMinimums: number;
  readonly targetRatio: number;
  readonly targetMet: boolean;
  /** In how many rounds the ratio was at most the target. */
  readonly roundsMet: number;
  /** The same per-round ratios of CPU time, and their median. */
  readonly cpuRoundRatios: number[];
  readonly cpuRatio: number;
  /** Load averages (as `uptime` prints them) before and after the measured rounds. */
  readonly load: { readonly before: string; after: string };
}

const args = parseArgs({
  args: process.argv.slice(2).filter((arg) => arg !== '--'),
  options: {
    format: { type: 'string', default: 'both' },
    count: { type: 'string', default: '1000' },
    rounds: { type: 'string', default: '7' },
    warmup: { type: 'string', default: '2' },
    json: { type: 'boolean', default: false },
    rss: { type: 'boolean', default: false },
  },
  strict: true,
});

const positiveInteger = (name: string, text: string): number => {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) {
    process.stderr.write(`--${name} must be a positive integer, got ${JSON.stringify(text)}\n`);
    process.exit(2);
  }
  return value;
};

const formatOption = args.values.format;
if (formatOption !== 'compact' && formatOption !== 'pretty' && formatOption !== 'both') {
  process.stderr.write(`--format must be compact, pretty or both, got ${JSON.stringify(formatOption)}\n`);
  process.exit(2);
}
const formats: BundleFormat[] = formatOption === 'both' ? ['compact', 'pretty'] : [formatOption];
const count = positiveInteger('count', args.values.count);
const rounds = positiveInteger('rounds', args.values.rounds);
const warmupRounds = args.values.warmup === '0' ? 0 : positiveInteger('warmup', args.values.warmup);
const log = (line: string): void => {
  // With --json, stdout carries only the report; progress goes to stderr.
  (args.values.json ? process.stderr : process.stdout).write(`${line}\n`);
};

// Keeps results observable so the optimiser cannot drop the work being timed.
let sink = 0;
/** CPU milliseconds (user + system) of the last round, next to the wall time it returns. */
let lastCpuMs = 0;
const cpuNow = (): number => {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
};

function baselineRound(buffers: readonly Buffer[]): number {
  const cpuStart = cpuNow();
  const start = process.hrtime.bigint();
  for (const buffer of buffers) {
    const value = JSON.parse(buffer.toString('utf8')) as { events: unknown[] };
    const digest = createHash('sha256').update(buffer).digest();
    sink += value.events.length + (digest[0] ?? 0);
  }
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  lastCpuMs = cpuNow() - cpuStart;
  return ms;
}

function candidateRound(buffers: readonly Buffer[]): number {
  const cpuStart = cpuNow();
  const start = process.hrtime.bigint();
  for (const buffer of buffers) {
    const bundle = parseNativeExecution(buffer);
    const digest = createHash('sha256').update(buffer).digest();
    sink += bundle.events.length + (digest[0] ?? 0);
  }
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  lastCpuMs = cpuNow() - cpuStart;
  return ms;
}

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1
    ? (sorted[middle] ?? 0)
    : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
};

function figures(roundsMs: number[], bundles: number, totalBytes: number): ModeFigures {
  const medianMs = median(roundsMs);
  return {
    roundsMs,
    medianMs,
    bundlesPerSecond: bundles / (medianMs / 1000),
    megabytesPerSecond: totalBytes / 1e6 / (medianMs / 1000),
  };
}

function runThroughput(format: BundleFormat): ThroughputResult {
  log('');
  log(`generating ${count} ${format} bundles...`);
  const buffers: Buffer[] = [];
  let events = 0;
  for (let index = 0; index < count; index++) {
    const bundle = benchBundle(index, undefined, format);
    buffers.push(bundle.bytes);
    events += bundle.events;
  }
  const sizes = buffers.map((buffer) => buffer.byteLength);
  const totalBytes = sizes.reduce((sum, size) => sum + size, 0);

  // Sanity: every bundle of the corpus must be accepted (and is parsed once before timing).
  let refused = 0;
  for (const [index, buffer] of buffers.entries()) {
    try {
      parseNativeExecution(buffer);
    } catch (error) {
      refused++;
      if (refused <= 5)
        log(`bundle ${index} refused: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  if (refused > 0) {
    process.stderr.write(`${refused} of ${count} generated bundles were refused; the benchmark is void\n`);
    process.exit(1);
  }

  log(`warm-up: ${warmupRounds} round(s) of each`);
  for (let round = 0; round < warmupRounds; round++) {
    baselineRound(buffers);
    candidateRound(buffers);
  }
  const baselineMs: number[] = [];
  const candidateMs: number[] = [];
  const baselineCpuMs: number[] = [];
  const candidateCpuMs: number[] = [];
  const load = { before: loadAverage(), after: '' };
  const runBaseline = (): void => {
    baselineMs.push(baselineRound(buffers));
    baselineCpuMs.push(lastCpuMs);
  };
  const runCandidate = (): void => {
    candidateMs.push(candidateRound(buffers));
    candidateCpuMs.push(lastCpuMs);
  };
  for (let round = 0; round < rounds; round++) {
    // Alternate which mode goes first so neither always runs on a heap the other left behind.
    if (round % 2 === 0) {
      runBaseline();
      runCandidate();
    } else {
      runCandidate();
      runBaseline();
    }
    const baselineLast = baselineMs.at(-1) ?? Number.NaN;
    const candidateLast = candidateMs.at(-1) ?? Number.NaN;
    log(
      `round ${round + 1}/${rounds}: baseline ${baselineLast.toFixed(1)} ms, candidate ${candidateLast.toFixed(1)} ms ` +
        `(${(candidateLast / baselineLast).toFixed(2)}x)`,
    );
  }
  const baseline = figures(baselineMs, count, totalBytes);
  const candidate = figures(candidateMs, count, totalBytes);
  const roundRatios = candidateMs.map((ms, round) => ms / (baselineMs[round] ?? Number.NaN));
  const ratio = median(roundRatios);
  const cpuRoundRatios = candidateCpuMs.map((ms, round) => ms / (baselineCpuMs[round] ?? Number.NaN));
  load.after = loadAverage();
  return {
    machine: { node: process.version, cpus: cpus().length, cpuModel: cpus()[0]?.model.trim() ?? 'unknown' },
    corpus: {
      bundles: count,
      totalBytes,
      meanBytes: totalBytes / count,
      minBytes: Math.min(...sizes),
      maxBytes: Math.max(...sizes),
      meanEvents: events / count,
      format,
      overLargeObjectLimit: sizes.filter((size) => size > LARGE_OBJECT_BYTES).length,
    },
    warmupRounds,
    rounds,
    baseline,
    candidate,
    roundRatios,
    ratio,
    ratioOfMedians: candidate.medianMs / baseline.medianMs,
    ratioOfMinimums: Math.min(...candidateMs) / Math.min(...baselineMs),
    targetRatio: TARGET_RATIO,
    targetMet: ratio <= TARGET_RATIO,
    roundsMet: roundRatios.filter((value) => value <= TARGET_RATIO).length,
    cpuRoundRatios,
    cpuRatio: median(cpuRoundRatios),
    load,
  };
}

function printTable(result: ThroughputResult): void {
  const { corpus } = result;
  const row = (name: string, mode: ModeFigures): string =>
    `${name.padEnd(44)}${mode.medianMs.toFixed(1).padStart(10)}${mode.bundlesPerSecond.toFixed(0).padStart(12)}${mode.megabytesPerSecond.toFixed(1).padStart(10)}`;
  log('');
  log(
    `corpus: ${corpus.bundles} ${corpus.format} bundles, ${formatBytes(corpus.totalBytes)} total, ` +
      `mean ${formatBytes(corpus.meanBytes)} (${formatBytes(corpus.minBytes)}..${formatBytes(corpus.maxBytes)}), ` +
      `mean ${corpus.meanEvents.toFixed(1)} events`,
  );
  if (corpus.overLargeObjectLimit > 0) {
    log(
      `note: ${corpus.overLargeObjectLimit} of ${corpus.bundles} bundles are over 128 KiB, where V8 allocates ` +
        'their decoded text in large-object space (slow for both modes; see docs/benchmarks.md)',
    );
  }
  log(`machine: node ${result.machine.node}, ${result.machine.cpus} CPUs (${result.machine.cpuModel})`);
  log(`medians over ${result.rounds} interleaved rounds after ${result.warmupRounds} warm-up round(s)`);
  log('');
  log(`${'mode'.padEnd(44)}${'ms/round'.padStart(10)}${'bundles/s'.padStart(12)}${'MB/s'.padStart(10)}`);
  log(row('baseline: JSON.parse + sha256', result.baseline));
  log(row('candidate: parseNativeExecution + sha256', result.candidate));
  log('');
  log(
    `ratio candidate/baseline: ${result.ratio.toFixed(2)}x, median of per-round ratios ` +
      `[${result.roundRatios.map((ratio) => ratio.toFixed(2)).join(', ')}] ` +
      `(ratio of medians ${result.ratioOfMedians.toFixed(2)}x, of fastest rounds ${result.ratioOfMinimums.toFixed(2)}x)`,
  );
  log(
    `cpu ratio: ${result.cpuRatio.toFixed(2)}x [${result.cpuRoundRatios.map((ratio) => ratio.toFixed(2)).join(', ')}]; load average ${result.load.before} before, ${result.load.after} after`,
  );
  log(
    `target <= ${result.targetRatio}x: ${result.targetMet ? 'met' : 'NOT met'} (${result.roundsMet}/${result.rounds} rounds)`,
  );
}

const throughput: ThroughputResult[] = [];
for (const format of formats) {
  const result = runThroughput(format);
  throughput.push(result);
  if (!args.values.json) printTable(result);
}
let rss: RssBenchResult | undefined;
if (args.values.rss) {
  log('');
  rss = await runRssBench({ log });
}
if (args.values.json) {
  process.stdout.write(
    `${JSON.stringify({ schema: 'paperclip-evals/bench/v1', throughput, ...(rss === undefined ? {} : { rss }) }, null, 2)}\n`,
  );
}
if (sink === -1) log('unreachable');
if (rss !== undefined && rss.status === 'failed') process.exitCode = 1;
