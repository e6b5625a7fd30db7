// The child processes of a qualification (pnpm installing the consumer, node running the probe):
// which pnpm to run, the small environment each gets, and a bounded run — no shell, stdin a pipe
// holding a given text (or nothing) then closed, its own process group, a timeout and output caps —
// after which nothing it started is left running (the group is SIGKILLed on timeout, on oversize,
// once it has exited, and when a SIGINT or SIGTERM stops us: contract's child-cleanup registry).
import { spawn } from 'node:child_process';
import { delimiter, sep } from 'node:path';
import { guardProcessGroup, killProcessGroup } from '@paperclip-evals/contract';

/** The pnpm the repo pins; used through npx when nothing else names a pnpm. */
export const PINNED_PNPM = 'pnpm@12.4.2';
/** Names one pnpm command line, split on spaces (e.g. `/usr/local/bin/pnpm` or `npx -y pnpm@12.4.2`). */
export const PNPM_COMMAND_ENV = 'PAPERCLIP_EVALS_PNPM';

/**
 * The pnpm command line: PAPERCLIP_EVALS_PNPM (split on spaces) if set; else the pnpm running
 * us, when npm_execpath is its JavaScript entry point (pnpm.cjs, pnpm.js or pnpm.mjs); else
 * `npx -y pnpm@12.4.2`.
 */
export function pnpmCommand(
  env: NodeJS.ProcessEnv = process.env,
  nodePath: string = process.execPath,
): string[] {
  const configured = env[PNPM_COMMAND_ENV]?.trim();
  if (configured !== undefined && configured !== '') return configured.split(/ +/);
  const execPath = env.npm_execpath;
  if (execPath !== undefined && /(?:^|[/\\])pnpm\.(?:cjs|js|mjs)$/.test(execPath))
    return [nodePath, execPath];
  return ['npx', '-y', PINNED_PNPM];
}

/**
 * Variables pnpm (and npx, when it is the launcher) may need to find the user's store, metadata
 * cache and configuration offline. Anything else of ours — tokens, CI flags, npm_config_* set by
 * the package manager running us, NODE_OPTIONS, NODE_PATH — stays out.
 */
const PNPM_ENV_NAMES = [
  'HOME',
  'TMPDIR',
  'LANG',
  'XDG_CONFIG_HOME',
  'XDG_DATA_HOME',
  'XDG_CACHE_HOME',
  'XDG_STATE_HOME',
  'PNPM_HOME',
  'npm_config_store_dir',
  'NPM_CONFIG_STORE_DIR',
  'npm_config_cache_dir',
  'NPM_CONFIG_CACHE_DIR',
  'npm_config_cache',
  'NPM_CONFIG_CACHE',
  'npm_config_userconfig',
  'NPM_CONFIG_USERCONFIG',
] as const;

/**
 * The environment of the consumer's `pnpm install`: PATH without any node_modules/.bin folder (a
 * package manager running us puts the workspace's there), plus the variables above when set.
 */
export function pnpmEnvironment(env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const result: Record<string, string> = { PATH: sanitizedPath(env.PATH) };
  for (const name of PNPM_ENV_NAMES) {
    const value = env[name];
    if (value !== undefined && value !== '') result[name] = value;
  }
  return result;
}

/** PATH minus every entry inside a node_modules folder. */
export function sanitizedPath(path: string | undefined): string {
  return (path ?? '')
    .split(delimiter)
    .filter((entry) => entry !== '' && !entry.split(sep).includes('node_modules'))
    .join(delimiter);
}

export interface BoundedRunOptions {
  readonly command: string;
  readonly args: readonly string[];
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
  /** Most stdout bytes kept; past it the group is killed. */
  readonly maxStdoutBytes: number;
  /** Stderr bytes kept (the tail); stderr never kills. */
  readonly maxStderrBytes?: number;
  /** Written to the child's stdin, which is then closed (default: nothing, so stdin is at its end at once). */
  readonly stdin?: string;
}

export interface BoundedRunResult {
  readonly exitCode: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: Buffer;
  /** The last maxStderrBytes bytes of stderr, as text. */
  readonly stderrTail: string;
  readonly timedOut: boolean;
  readonly stdoutOverflow: boolean;
  /** Set when the process could not be started (e.g. ENOENT). */
  readonly spawnError: string | null;
}

const DEFAULT_MAX_STDERR_BYTES = 8192;

/** Runs one process to completion under the bounds above. Never rejects. */
export function runBounded(options: BoundedRunOptions): Promise<BoundedRunResult> {
  const maxStderrBytes = options.maxStderrBytes ?? DEFAULT_MAX_STDERR_BYTES;
  return new Promise((resolve) => {
    const child = spawn(options.command, [...options.args], {
      cwd: options.cwd,
      env: { ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true,
      shell: false,
    });
    // Registered with contract's child-cleanup: a SIGINT or SIGTERM to us kills the whole group.
    const releaseGroup = guardProcessGroup(child.pid);
    const stdoutChunks: Buffer[] = [];
    let stdoutBytes = 0;
    let stderr = Buffer.alloc(0);
    let timedOut = false;
    let stdoutOverflow = false;
    let spawnError: string | null = null;
    const killGroup = (): void => {
      killProcessGroup(child.pid);
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, options.timeoutMs);
    child.stdout.on('data', (chunk: Buffer) => {
      if (stdoutOverflow) return;
      stdoutBytes += chunk.byteLength;
      if (stdoutBytes > options.maxStdoutBytes) {
        stdoutOverflow = true;
        killGroup();
        return;
      }
      stdoutChunks.push(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr = Buffer.concat([stderr, chunk]);
      if (stderr.byteLength > maxStderrBytes) stderr = stderr.subarray(stderr.byteLength - maxStderrBytes);
    });
    child.on('error', (error) => {
      spawnError = error.message;
    });
    child.stdin.on('error', () => {
      // the child exited without reading it all; its exit says what happened
    });
    child.stdin.end(options.stdin ?? '');
    child.on('close', (exitCode, signal) => {
      clearTimeout(timer);
      releaseGroup(); // SIGKILLs whatever it started and left behind

      resolve({
        exitCode,
        signal,
        stdout: Buffer.concat(stdoutChunks),
        stderrTail: stderr.toString('utf8'),
        timedOut,
        stdoutOverflow,
        spawnError,
      });
    });
  });
}

/** One line saying how a run went wrong, or null when it exited 0 within its bounds. */
export function runFailure(result: BoundedRunResult, timeoutMs: number): string | null {
  if (result.spawnError !== null) return `could not be started: ${result.spawnError}`;
  if (result.timedOut) return `did not finish within ${timeoutMs} ms (killed)`;
  if (result.stdoutOverflow) return 'printed more than its output limit (killed)';
  if (result.signal !== null) return `was killed by ${result.signal}`;
  if (result.exitCode !== 0) return `exited with code ${String(result.exitCode)}`;
  return null;
}
