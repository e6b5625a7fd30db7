// A bounded child the caller can kill, for the campaign's eval sessions: a thin entry point over
// bounded-run.ts's startBoundedRun (the one core: no shell, the environment it is given and nothing
// else, its own process group, the one kill rule and stderr tail). What it chooses: stdout is
// /dev/null (the session writes its output to a file), and the group is NOT registered with
// child-cleanup: a Ctrl-C at the terminal reaches only the parent (the child's group is not the
// foreground one), and the parent decides (a campaign lets running sessions finish on the first
// Ctrl-C and kills them on the second).
import { startBoundedRun } from './bounded-run.js';

export interface KillableRunOptions {
  readonly command: string;
  readonly args: readonly string[];
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
}

export interface KillableRunResult {
  readonly exitCode: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly timedOut: boolean;
  /** Killed because the caller asked (a second Ctrl-C, SIGTERM). */
  readonly killed: boolean;
  readonly spawnError: string | null;
  readonly stderrTail: string;
  readonly durationMs: number;
}

export interface KillableRun {
  readonly done: Promise<KillableRunResult>;
  /** SIGKILL to the whole group; the result says killed. */
  readonly kill: () => void;
}

/** Starts the child; `done` never rejects. */
export function startKillableRun(options: KillableRunOptions): KillableRun {
  const started = performance.now();
  const run = startBoundedRun({ ...options, maxStdoutBytes: null, registerCleanup: false });
  const done = run.result.then((result): KillableRunResult => ({
    exitCode: result.exitCode,
    signal: result.signal,
    timedOut: result.timedOut,
    killed: result.killed,
    spawnError: result.spawnError?.message ?? null,
    stderrTail: result.stderrTail,
    durationMs: Math.round(performance.now() - started),
  }));
  return { done, kill: run.kill };
}
