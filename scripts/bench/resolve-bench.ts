// Resolving a 100 MB runnerd executable: the resolver's hashing against `sha256sum` on the same
// file in the same run, and the resolver process's peak RSS.
//
// The executable is a `#!/bin/sh` script that prints valid build metadata and exits, followed by
// ~100 MB of comment lines the shell never reads (written in 1 MiB pieces under os.tmpdir(), and
// removed afterwards, also on failure or Ctrl-C). Each round, paired so drift hits both sides:
//   1. `sha256sum <file>` (spawnSync, wall time including its process start);
//   2. a fresh `node` process that imports the BUILT resolver (packages/node/dist) and
//      - resolves a tiny executable first (loads and compiles the schemas; not timed),
//      - "hash phase": resolves the big file with a wrong expected digest, which stops with
//        digest_mismatch right after open + stream through sha256 (nothing is copied before the
//        digest matched: the resolver's own code path, exactly what runs before any copy or exec),
//      - "end to end": resolves it with the right digest (+ the copy and the copy's digest, spawn
//        --build-metadata, parse, validate),
//      then reports its times and VmHWM (peak RSS) from /proc/self/status.
// The headline ratio is the median over rounds of (hash phase / sha256sum). The targets (ratio at
// most 1.5, RSS under 100 MB) are reported, never enforced: this is a measurement, not a test. It
// exits non-zero only on bad arguments or if the resolver does not accept the executable.
//
// Run: `npx -y pnpm@12.4.2 run build && ./node_modules/.bin/tsx scripts/bench/resolve-bench.ts
// [--mb 100] [--rounds 5] [--json]`.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmod, mkdtemp, open, rm, stat, writeFile } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

export const TARGET_RATIO = 1.5;
export const RSS_TARGET_BYTES = 100e6;
const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const RESOLVER_MODULE = join(REPO_ROOT, 'packages/node/dist/runnerd-artifact.js');
const PIECE_BYTES = 1024 * 1024;

const METADATA = {
  schema: 'paperclip-runner/runnerd-build-metadata/v1',
  binaryName: 'paperclip-runnerd',
  packageName: '@paperclipai/paperclip-runner',
  packageVersion: '0.0.0-bench',
  binaryContractVersion: 2,
  nativeExecutionVersion: 1,
  harnessDriverVersion: 1,
  prp: { name: 'paperclip.runner', minimumVersion: 1, maximumVersion: 1 },
  buildProfile: 'release',
};

const SCRIPT_HEADER = `#!/bin/sh\nprintf '%s\\n' '${JSON.stringify(METADATA)}'\nexit 0\n`;

/** What the child node process runs (plain ESM, no tsx, so its RSS is the resolver's). */
const CHILD_SOURCE = `
import { performance } from 'node:perf_hooks';
import { readFileSync } from 'node:fs';
const [moduleUrl, big, bigDigest, tiny, tinyDigest] = process.argv.slice(1);
const { resolveRunnerdArtifact } = await import(moduleUrl);
await resolveRunnerdArtifact({ executablePath: tiny, expectedSha256: tinyDigest });
const wrongDigest = 'sha256:' + '0'.repeat(64);
let start = performance.now();
let code;
try { await resolveRunnerdArtifact({ executablePath: big, expectedSha256: wrongDigest }); }
catch (error) { code = error.issues?.[0]?.code; }
const hashPhaseMs = performance.now() - start;
if (code !== 'digest_mismatch') throw new Error('expected digest_mismatch, got ' + code);
start = performance.now();
const artifact = await resolveRunnerdArtifact({ executablePath: big, expectedSha256: bigDigest });
const endToEndMs = performance.now() - start;
const status = readFileSync('/proc/self/status', 'utf8');
const kb = (field) => Number(new RegExp('^' + field + ':\\\\s+(\\\\d+) kB', 'm').exec(status)?.[1] ?? NaN) * 1024;
process.stdout.write(JSON.stringify({ hashPhaseMs, endToEndMs, byteSize: artifact.byteSize, sha256: artifact.sha256, vmHwmBytes: kb('VmHWM') }));
`;

interface ChildFigures {
  readonly hashPhaseMs: number;
  readonly endToEndMs: number;
  readonly byteSize: number;
  readonly sha256: string;
  readonly vmHwmBytes: number;
}

export interface ResolveBenchRound {
  readonly sha256sumMs: number;
  readonly hashPhaseMs: number;
  readonly endToEndMs: number;
  readonly ratio: number;
  readonly vmHwmBytes: number;
}

export interface ResolveBenchResult {
  readonly machine: { readonly node: string; readonly cpus: number; readonly cpuModel: string };
  readonly fileBytes: number;
  readonly rounds: ResolveBenchRound[];
  readonly sha256sumBestMs: number;
  readonly hashPhaseBestMs: number;
  readonly endToEndBestMs: number;
  /** Median over rounds of hashPhaseMs / sha256sumMs. */
  readonly ratio: number;
  readonly targetRatio: number;
  readonly peakRssBytes: number;
  readonly rssTargetBytes: number;
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  const at = (index: number): number => sorted[index] ?? Number.NaN;
  return sorted.length % 2 === 1 ? at(middle) : (at(middle - 1) + at(middle)) / 2;
};

/** Writes the padded script and returns its digest (hashed while writing). */
async function writeBigExecutable(path: string, minBytes: number): Promise<string> {
  const hash = createHash('sha256');
  const file = await open(path, 'wx', 0o755);
  try {
    const header = Buffer.from(SCRIPT_HEADER);
    hash.update(header);
    await file.write(header);
    const line = `#${'-'.repeat(1022)}\n`;
    const piece = Buffer.from(line.repeat(PIECE_BYTES / line.length));
    for (let written = header.byteLength; written < minBytes; written += piece.byteLength) {
      hash.update(piece);
      await file.write(piece);
    }
  } finally {
    await file.close();
  }
  return `sha256:${hash.digest('hex')}`;
}

function timeSha256sum(path: string): { ms: number; digest: string } {
  const start = performance.now();
  const result = spawnSync('sha256sum', [path], { encoding: 'utf8' });
  const ms = performance.now() - start;
  if (result.status !== 0) throw new Error(`sha256sum failed: ${result.stderr}`);
  return { ms, digest: `sha256:${result.stdout.slice(0, 64)}` };
}

function runChild(big: string, bigDigest: string, tiny: string, tinyDigest: string): ChildFigures {
  const result = spawnSync(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      CHILD_SOURCE,
      pathToFileURL(RESOLVER_MODULE).href,
      big,
      bigDigest,
      tiny,
      tinyDigest,
    ],
    { encoding: 'utf8' },
  );
  if (result.status !== 0) throw new Error(`resolver process failed:\n${result.stderr}`);
  return JSON.parse(result.stdout) as ChildFigures;
}

export async function runResolveBench(
  options: { megabytes?: number; rounds?: number } = {},
): Promise<ResolveBenchResult> {
  const fileBytes = Math.round((options.megabytes ?? 100) * 1e6);
  const roundCount = options.rounds ?? 5;
  const dir = await mkdtemp(join(tmpdir(), 'resolve-bench-'));
  const onInterrupt = (): void => {
    spawnSync('rm', ['-rf', dir]);
    process.exit(130);
  };
  process.once('SIGINT', onInterrupt);
  try {
    const big = join(dir, 'paperclip-runnerd');
    const bigDigest = await writeBigExecutable(big, fileBytes);
    const tiny = join(dir, 'tiny-runnerd');
    await writeFile(tiny, SCRIPT_HEADER);
    await chmod(tiny, 0o755);
    const tinyDigest = `sha256:${createHash('sha256').update(SCRIPT_HEADER).digest('hex')}`;

    const warm = timeSha256sum(big); // also puts the file in the page cache
    if (warm.digest !== bigDigest) throw new Error('sha256sum and node disagree on the digest');

    const rounds: ResolveBenchRound[] = [];
    for (let round = 0; round < roundCount; round++) {
      // Alternate which side goes first, so drift within a round does not favour one side.
      let sha256sumMs: number;
      let child: ChildFigures;
      if (round % 2 === 0) {
        sha256sumMs = timeSha256sum(big).ms;
        child = runChild(big, bigDigest, tiny, tinyDigest);
      } else {
        child = runChild(big, bigDigest, tiny, tinyDigest);
        sha256sumMs = timeSha256sum(big).ms;
      }
      if (child.sha256 !== bigDigest) throw new Error('the resolver reported another digest');
      rounds.push({
        sha256sumMs,
        hashPhaseMs: child.hashPhaseMs,
        endToEndMs: child.endToEndMs,
        ratio: child.hashPhaseMs / sha256sumMs,
        vmHwmBytes: child.vmHwmBytes,
      });
    }
    const cpu = cpus();
    return {
      machine: { node: process.version, cpus: cpu.length, cpuModel: cpu[0]?.model ?? 'unknown' },
      fileBytes: (await stat(big)).size,
      rounds,
      sha256sumBestMs: Math.min(...rounds.map((r) => r.sha256sumMs)),
      hashPhaseBestMs: Math.min(...rounds.map((r) => r.hashPhaseMs)),
      endToEndBestMs: Math.min(...rounds.map((r) => r.endToEndMs)),
      ratio: median(rounds.map((r) => r.ratio)),
      targetRatio: TARGET_RATIO,
      peakRssBytes: Math.max(...rounds.map((r) => r.vmHwmBytes)),
      rssTargetBytes: RSS_TARGET_BYTES,
    };
  } finally {
    process.removeListener('SIGINT', onInterrupt);
    await rm(dir, { recursive: true, force: true });
  }
}

function report(result: ResolveBenchResult): string {
  const ms = (value: number): string => `${value.toFixed(0).padStart(6)} ms`;
  const mb = (bytes: number): string => `${(bytes / 1e6).toFixed(1)} MB`;
  const lines = [
    `resolve a ${mb(result.fileBytes)} runnerd executable — node ${result.machine.node}, ${result.machine.cpus} × ${result.machine.cpuModel}`,
    '',
    'round   sha256sum   hash phase   end to end   ratio   peak RSS',
    ...result.rounds.map(
      (r, index) =>
        `${String(index + 1).padStart(5)}  ${ms(r.sha256sumMs)}   ${ms(r.hashPhaseMs)}    ${ms(r.endToEndMs)}   ${r.ratio.toFixed(2).padStart(5)}   ${mb(r.vmHwmBytes)}`,
    ),
    '',
    `best: sha256sum ${result.sha256sumBestMs.toFixed(0)} ms, hash phase ${result.hashPhaseBestMs.toFixed(0)} ms, end to end ${result.endToEndBestMs.toFixed(0)} ms`,
    `ratio (median of rounds, hash phase / sha256sum): ${result.ratio.toFixed(2)}× (target ≤ ${result.targetRatio}×: ${result.ratio <= result.targetRatio ? 'met' : 'NOT met'})`,
    `peak RSS of the resolver process (VmHWM): ${mb(result.peakRssBytes)} (target < ${mb(result.rssTargetBytes)}: ${result.peakRssBytes < result.rssTargetBytes ? 'met' : 'NOT met'})`,
  ];
  return `${lines.join('\n')}\n`;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { values } = parseArgs({
    args: process.argv.slice(2).filter((arg) => arg !== '--'),
    options: {
      mb: { type: 'string', default: '100' },
      rounds: { type: 'string', default: '5' },
      json: { type: 'boolean', default: false },
    },
  });
  const megabytes = Number(values.mb);
  const rounds = Number(values.rounds);
  if (!(megabytes > 0) || !Number.isInteger(rounds) || rounds < 1) {
    process.stderr.write('usage: resolve-bench.ts [--mb N] [--rounds N] [--json]\n');
    process.exit(2);
  }
  const result = await runResolveBench({ megabytes, rounds });
  process.stdout.write(values.json ? `${JSON.stringify(result, null, 2)}\n` : report(result));
}
