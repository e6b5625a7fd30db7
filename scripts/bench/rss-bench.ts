// Peak memory of `evals validate` over a ~1 GB directory (target: under 300 MB RSS).
//
// Writes ~1 GB of valid bundles (a few hundred distinct generated bundles, each copied under fresh
// attemptIds by string replacement) into a temporary directory under os.tmpdir(), runs the real CLI
// (`node packages/cli/bin/evals.js validate <dir> --json`) on it, and measures the CLI's peak RSS:
// GNU time's "Maximum resident set size" when /usr/bin/time exists, and in every case VmHWM of the
// node process polled from /proc every 50 ms (a high-water mark, so polling misses nothing but the
// last few milliseconds). The directory is removed afterwards, also on failure or Ctrl-C. Skipped
// (exit 0) when the temporary directory's file system has under 3 GB free.
//
// Run alone: `tsx scripts/bench/rss-bench.ts [--gb 1] [--format compact|pretty] [--json]` (default
// compact: ~10,300 files of ~97 KB), or with the throughput benchmark:
// `pnpm bench --rss`. Exits 1 if the peak is over the target or the CLI does not accept every file.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, statfs, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

import { benchAttemptId, benchBundle } from './corpus.ts';

import type { ChildProcess } from 'node:child_process';

import type { BundleFormat } from './corpus.ts';

export const RSS_TARGET_BYTES = 300e6;
const MIN_FREE_BYTES = 3e9;
const DISTINCT_BUNDLES = 250;
const FILES_PER_SUBDIRECTORY = 1000;
const WRITE_CONCURRENCY = 16;
const POLL_MS = 50;
const TIME_BINARY = '/usr/bin/time';
const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CLI = join(REPO_ROOT, 'packages/cli/bin/evals.js');

/** The CLI under measurement, so an interrupt can stop it before its directory is removed. */
let runningCli: ChildProcess | undefined;

export interface RssBenchOptions {
  /** Size of the generated directory, in GB (10^9 bytes). */
  readonly gigabytes?: number;
  /** How the bundle files are serialised: compact (~97 KB each, the default) or pretty (~132 KB). */
  readonly format?: BundleFormat;
  readonly log?: (line: string) => void;
}

export type RssBenchResult =
  | { readonly status: 'skipped'; readonly reason: string }
  | {
      readonly status: 'passed' | 'failed';
      readonly reason?: string;
      readonly format: BundleFormat;
      readonly files: number;
      readonly totalBytes: number;
      readonly cliExitCode: number | null;
      readonly validFiles: number | null;
      readonly wallSeconds: number;
      readonly filesPerSecond: number;
      readonly megabytesPerSecond: number;
      /** GNU time's maximum resident set size, when /usr/bin/time exists. */
      readonly timeMaxRssBytes: number | null;
      /** Largest VmHWM of the node process seen while polling /proc. */
      readonly polledVmHwmBytes: number | null;
      readonly peakRssBytes: number;
      readonly targetBytes: number;
      readonly node: string;
    };

export const formatBytes = (bytes: number): string =>
  bytes >= 1e9
    ? `${(bytes / 1e9).toFixed(2)} GB`
    : bytes >= 1e6
      ? `${(bytes / 1e6).toFixed(1)} MB`
      : `${(bytes / 1e3).toFixed(1)} KB`;

export async function runRssBench(options: RssBenchOptions = {}): Promise<RssBenchResult> {
  const log = options.log ?? ((line: string) => process.stdout.write(`${line}\n`));
  const wantedBytes = (options.gigabytes ?? 1) * 1e9;
  const base = tmpdir();
  const space = await statfs(base);
  const freeBytes = space.bavail * space.bsize;
  const neededBytes = Math.max(MIN_FREE_BYTES, wantedBytes * 3);
  if (freeBytes < neededBytes) {
    const reason = `only ${formatBytes(freeBytes)} free under ${base}; the RSS benchmark needs ${formatBytes(neededBytes)}`;
    log(`rss benchmark SKIPPED: ${reason}`);
    return { status: 'skipped', reason };
  }

  const root = await mkdtemp(join(base, 'evals-rss-bench-'));
  const cleanup = (): void => {
    rmSync(root, { recursive: true, force: true });
  };
  const onSignal = (signal: NodeJS.Signals): void => {
    runningCli?.kill('SIGKILL');
    cleanup();
    process.kill(process.pid, signal);
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  process.once('exit', cleanup);
  try {
    const bundlesDir = join(root, 'bundles');
    const format = options.format ?? 'compact';
    const { files, totalBytes } = await writeCorpus(bundlesDir, wantedBytes, format, log);
    return { format, ...(await measureCli(root, bundlesDir, files, totalBytes, log)) };
  } finally {
    cleanup();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    process.off('exit', cleanup);
    log(`removed ${root}`);
  }
}

async function writeCorpus(
  dir: string,
  wantedBytes: number,
  format: BundleFormat,
  log: (line: string) => void,
): Promise<{ files: number; totalBytes: number }> {
  log(`writing ~${formatBytes(wantedBytes)} of ${format} bundles under ${dir} ...`);
  const started = performance.now();
  const templates = Array.from({ length: DISTINCT_BUNDLES }, (_, index) => ({
    text: benchBundle(index, undefined, format).bytes.toString('utf8'),
    attemptId: benchAttemptId(index),
  }));
  let files = 0;
  let totalBytes = 0;
  const next = (): { path: string; bytes: Buffer } | undefined => {
    if (totalBytes >= wantedBytes) return undefined;
    const index = files++;
    const template = templates[index % templates.length];
    if (template === undefined) throw new Error('no template');
    // The attemptId occurs in every event id, call id, artifact URI...: a fresh id makes a fresh bundle.
    const bytes = Buffer.from(template.text.replaceAll(template.attemptId, benchAttemptId(index)), 'utf8');
    totalBytes += bytes.byteLength;
    const shard = String(Math.floor(index / FILES_PER_SUBDIRECTORY)).padStart(3, '0');
    return { path: join(dir, shard, `${benchAttemptId(index)}.json`), bytes };
  };
  // One mkdir per subdirectory, shared by the writers that need it.
  const made = new Map<string, Promise<unknown>>();
  const worker = async (): Promise<void> => {
    for (let file = next(); file !== undefined; file = next()) {
      const parent = dirname(file.path);
      let ready = made.get(parent);
      if (ready === undefined) {
        ready = mkdir(parent, { recursive: true });
        made.set(parent, ready);
      }
      await ready;
      await writeFile(file.path, file.bytes);
    }
  };
  await mkdir(dir, { recursive: true });
  await Promise.all(Array.from({ length: WRITE_CONCURRENCY }, worker));
  const seconds = (performance.now() - started) / 1000;
  log(`wrote ${files} files, ${formatBytes(totalBytes)} in ${seconds.toFixed(1)} s`);
  return { files, totalBytes };
}

/** VmHWM (peak resident set) of a live process, in bytes, or null once it is gone. */
function vmHwmBytes(pid: number): number | null {
  try {
    const match = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match === null ? null : Number(match[1]) * 1024;
  } catch {
    return null;
  }
}

/** The pid of a direct child of `parent` (GNU time's node process), by scanning /proc. */
function childOf(parent: number): number | null {
  try {
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        // /proc/<pid>/stat: "pid (comm) state ppid ..."; comm may contain spaces, so split after ')'.
        const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
        const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
        if (ppid === parent) return Number(entry);
      } catch {
        // the process ended while we looked
      }
    }
  } catch {
    // no /proc
  }
  return null;
}

async function measureCli(
  root: string,
  bundlesDir: string,
  files: number,
  totalBytes: number,
  log: (line: string) => void,
): Promise<Omit<Extract<RssBenchResult, { status: 'passed' | 'failed' }>, 'format'>> {
  const useTime = existsSync(TIME_BINARY);
  const timeReport = join(root, 'time.txt');
  const cliArgs = [CLI, 'validate', bundlesDir, '--json'];
  const [command, commandArgs] = useTime
    ? [TIME_BINARY, ['-v', '-o', timeReport, process.execPath, ...cliArgs]]
    : [process.execPath, cliArgs];
  log(`running: ${useTime ? `${TIME_BINARY} -v ` : ''}node packages/cli/bin/evals.js validate <dir> --json`);
  const started = performance.now();
  const child = spawn(command, commandArgs, { stdio: ['ignore', 'pipe', 'inherit'] });
  runningCli = child;
  const stdout: Buffer[] = [];
  child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));

  // Under GNU time the node process is time's child; its pid is found on the first polls.
  const sampling: { nodePid: number | null; peak: number | null } = {
    nodePid: useTime ? null : (child.pid ?? null),
    peak: null,
  };
  const poll = setInterval(() => {
    if (sampling.nodePid === null && child.pid !== undefined) sampling.nodePid = childOf(child.pid);
    if (sampling.nodePid === null) return;
    const hwm = vmHwmBytes(sampling.nodePid);
    if (hwm !== null) sampling.peak = Math.max(sampling.peak ?? 0, hwm);
  }, POLL_MS);
  const exitCode = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', resolve);
  }).finally(() => {
    clearInterval(poll);
    runningCli = undefined;
  });
  const polled = sampling.peak;
  const wallSeconds = (performance.now() - started) / 1000;

  let timeMaxRss: number | null = null;
  if (useTime) {
    const report = await readFile(timeReport, 'utf8').catch(() => '');
    const match = /Maximum resident set size \(kbytes\): (\d+)/.exec(report);
    timeMaxRss = match === null ? null : Number(match[1]) * 1024;
  }
  let validFiles: number | null;
  try {
    const report = JSON.parse(Buffer.concat(stdout).toString('utf8')) as { summary?: { valid?: number } };
    validFiles = report.summary?.valid ?? null;
  } catch {
    validFiles = null;
  }

  const peak = Math.max(timeMaxRss ?? 0, polled ?? 0);
  const problems: string[] = [];
  if (exitCode !== 0) problems.push(`the CLI exited with ${String(exitCode)}`);
  if (validFiles !== files) problems.push(`the CLI accepted ${String(validFiles)} of ${files} files`);
  if (peak === 0) problems.push('no RSS measurement was obtained');
  else if (peak > RSS_TARGET_BYTES)
    problems.push(`peak RSS is over the ${formatBytes(RSS_TARGET_BYTES)} target`);
  const result = {
    status: problems.length === 0 ? ('passed' as const) : ('failed' as const),
    ...(problems.length === 0 ? {} : { reason: problems.join('; ') }),
    files,
    totalBytes,
    cliExitCode: exitCode,
    validFiles,
    wallSeconds,
    filesPerSecond: files / wallSeconds,
    megabytesPerSecond: totalBytes / 1e6 / wallSeconds,
    timeMaxRssBytes: timeMaxRss,
    polledVmHwmBytes: polled,
    peakRssBytes: peak,
    targetBytes: RSS_TARGET_BYTES,
    node: process.version,
  };
  log('');
  log(
    `validate ${files} files (${formatBytes(totalBytes)}): exit ${String(exitCode)}, ${String(validFiles)} valid`,
  );
  log(
    `  wall ${wallSeconds.toFixed(1)} s, ${result.filesPerSecond.toFixed(0)} files/s, ${result.megabytesPerSecond.toFixed(1)} MB/s (whole CLI process, files in page cache)`,
  );
  log(
    `  peak RSS ${formatBytes(peak)} (GNU time max RSS: ${timeMaxRss === null ? 'n/a' : formatBytes(timeMaxRss)}, ` +
      `polled VmHWM: ${polled === null ? 'n/a' : formatBytes(polled)}); target < ${formatBytes(RSS_TARGET_BYTES)}: ` +
      (peak > 0 && peak <= RSS_TARGET_BYTES ? 'met' : 'NOT met'),
  );
  if (result.status === 'failed') log(`rss benchmark FAILED: ${result.reason ?? ''}`);
  return result;
}

const invokedDirectly =
  process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href;
if (invokedDirectly) {
  const args = parseArgs({
    args: process.argv.slice(2).filter((arg) => arg !== '--'),
    options: {
      gb: { type: 'string', default: '1' },
      format: { type: 'string', default: 'compact' },
      json: { type: 'boolean', default: false },
    },
    strict: true,
  });
  const gigabytes = Number(args.values.gb);
  if (!(gigabytes > 0)) {
    process.stderr.write(`--gb must be a positive number, got ${JSON.stringify(args.values.gb)}\n`);
    process.exit(2);
  }
  const format = args.values.format;
  if (format !== 'compact' && format !== 'pretty') {
    process.stderr.write(`--format must be compact or pretty, got ${JSON.stringify(format)}\n`);
    process.exit(2);
  }
  const json = args.values.json;
  const result = await runRssBench({
    gigabytes,
    format,
    log: (line) => {
      (json ? process.stderr : process.stdout).write(`${line}\n`);
    },
  });
  if (json) process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  if (result.status === 'failed') process.exitCode = 1;
}
