// Bench support: run the real `evals` CLI in a child process with stdout discarded and report its
// wall time, exit code, CPU time and peak RSS — the child's own getrusage figures (threads
// included), printed at exit by a tiny --import hook, so no platform tool is needed.
import { spawn } from 'node:child_process';
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
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, ['--import', RSS_HOOK, cli, ...args], {
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
