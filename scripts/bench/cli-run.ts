// Bench support: run the real `evals` CLI (or a bare baseline script) in a child `node` process with
// stdout discarded and report its wall time, exit code, CPU time and peak RSS — the child's own
// getrusage figures (threads included), printed at exit by a tiny --import hook, so no platform tool
// is needed.
import { spawn } from 'node:child_process';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const CLI = join(fileURLToPath(new URL('../../', import.meta.url)), 'packages/cli/bin/evals.js');
const RSS_HOOK = `data:text/javascript,process.on('exit',()=>{const u=process.resourceUsage();process.stderr.write('\\ncpu_us='+(u.userCPUTime+u.systemCPUTime)+' maxrss_kib='+u.maxRSS+'\\n')})`;

export interface Run {
  readonly seconds: number;
  /** User + system CPU time of the child process. */
  readonly cpuSeconds: number;
  readonly peakRssBytes: number;
  readonly exitCode: number | null;
}

/** Runs the CLI (this checkout's, or `cli`: another checkout's `packages/cli/bin/evals.js`). */
export function runCli(args: readonly string[], cli: string = CLI): Promise<Run> {
  return runNode(cli, args);
}

/** The bare baselines' script (scripts/bench/bare-baseline.mjs): plain node, no project code. */
export const BARE_BASELINE = fileURLToPath(new URL('bare-baseline.mjs', import.meta.url));

/** Runs `node SCRIPT ARGS…` as the CLI runs, with the same figures. */
export function runNode(script: string, args: readonly string[]): Promise<Run> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, ['--import', RSS_HOOK, script, ...args], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      stderr = (stderr + chunk).slice(-4096);
    });
    child.on('error', reject);
    child.on('close', (exitCode) => {
      const match = /cpu_us=(\d+) maxrss_kib=(\d+)\s*$/.exec(stderr);
      resolve({
        seconds: (performance.now() - started) / 1000,
        cpuSeconds: match === null ? Number.NaN : Number(match[1]) / 1e6,
        peakRssBytes: match === null ? Number.NaN : Number(match[2]) * 1024,
        exitCode,
      });
    });
  });
}

export const mb = (bytes: number): string => `${(bytes / 1e6).toFixed(1)} MB`;

/** A candidate against its baseline over interleaved rounds: per-round ratios of wall and CPU time. */
export interface PairedRatios {
  readonly rounds: number;
  /** Medians of the per-round ratios (candidate ÷ baseline of the same round). */
  readonly wall: number;
  readonly cpu: number;
  /** The lowest and highest per-round ratios. */
  readonly wallSpread: readonly [number, number];
  readonly cpuSpread: readonly [number, number];
  /** In how many rounds the wall ratio was at most the target. */
  readonly wallRoundsMet: number;
  readonly cpuRoundsMet: number;
  readonly target: number;
}

export const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] ?? Number.NaN)
    : ((sorted[middle - 1] ?? Number.NaN) + (sorted[middle] ?? Number.NaN)) / 2;
};

/** Per-round ratios of `candidate[i]` over `baseline[i]` against a target (at most `target`×). */
export function pairedRatios(
  baseline: readonly Run[],
  candidate: readonly Run[],
  target: number,
): PairedRatios {
  const wall = candidate.map((run, index) => run.seconds / (baseline[index]?.seconds ?? Number.NaN));
  const cpu = candidate.map((run, index) => run.cpuSeconds / (baseline[index]?.cpuSeconds ?? Number.NaN));
  const spread = (values: number[]): [number, number] => [Math.min(...values), Math.max(...values)];
  return {
    rounds: wall.length,
    wall: median(wall),
    cpu: median(cpu),
    wallSpread: spread(wall),
    cpuSpread: spread(cpu),
    wallRoundsMet: wall.filter((ratio) => ratio <= target).length,
    cpuRoundsMet: cpu.filter((ratio) => ratio <= target).length,
    target,
  };
}

/** One line for a PairedRatios: "wall 1.42× (1.30–1.61, 4/5 rounds ≤ 1.5×), cpu …". */
export function describeRatios(ratios: PairedRatios): string {
  const part = (name: string, value: number, [low, high]: readonly [number, number], met: number): string =>
    `${name} ${value.toFixed(2)}× (${low.toFixed(2)}–${high.toFixed(2)}, ${met}/${ratios.rounds} rounds ≤ ${ratios.target}×)`;
  return `${part('wall', ratios.wall, ratios.wallSpread, ratios.wallRoundsMet)}, ${part('cpu', ratios.cpu, ratios.cpuSpread, ratios.cpuRoundsMet)}`;
}

/** The load averages now, as `uptime` prints them. */
export const loadAverage = (): string =>
  loadavg()
    .map((value) => value.toFixed(2))
    .join(', ');
