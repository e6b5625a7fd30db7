// The one registry of what this process must not leave behind when it is stopped: the process
// groups of the children it started and the private files and folders it made for them. Every
// layer that starts a child (the runnerd resolver, the policy producer client, the checks engine
// client, qualification's bounded runs) registers the child's group while it may run and each
// private path while it exists, and releases it when done. While anything is registered, SIGINT
// and SIGTERM run every cleanup synchronously — SIGKILL to each group first, then each path
// removed — and the process exits with the conventional code (128 + the signal's number: 130 for
// SIGINT, 143 for SIGTERM), exactly as if the signal had killed it. With nothing registered, the
// signals keep Node's default action. POSIX only (process groups).
import { renameSync, rmSync } from 'node:fs';

/** The exit code after a signal stopped the process (a shell's 128 + signal number). */
export const SIGNAL_EXIT_CODES = { SIGINT: 130, SIGTERM: 143 } as const;
export type CleanupSignal = keyof typeof SIGNAL_EXIT_CODES;
const SIGNALS = Object.keys(SIGNAL_EXIT_CODES) as CleanupSignal[];

const groups = new Set<number>();
const paths = new Set<string>();
let listening = false;

/** SIGKILL to every process of the group led by `pid`; a group already gone is fine. */
export function killProcessGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ESRCH' && code !== 'EPERM') throw error;
  }
}

/**
 * Registers the process group led by `pid` (a child spawned with `detached: true`): a signal kills
 * it. Returns the release, which kills the group too (whatever the child left running in it) and
 * forgets it; calling it again does nothing.
 */
export function guardProcessGroup(pid: number | undefined): () => void {
  if (pid === undefined) return () => undefined;
  groups.add(pid);
  update();
  let released = false;
  return () => {
    if (released) return;
    released = true;
    killProcessGroup(pid);
    groups.delete(pid);
    update();
  };
}

/**
 * Registers a private file or folder: a signal removes it (recursively). Returns the release,
 * which only forgets it (the caller removes it as it always does); calling it again does nothing.
 */
export function guardPrivatePath(path: string): () => void {
  paths.add(path);
  update();
  let released = false;
  return () => {
    if (released) return;
    released = true;
    paths.delete(path);
    update();
  };
}

/** What is registered now (for tests and diagnostics). */
export function guardedCounts(): { readonly processGroups: number; readonly privatePaths: number } {
  return { processGroups: groups.size, privatePaths: paths.size };
}

/** Kills every registered group, then removes every registered path; synchronous. */
export function cleanUpGuarded(): void {
  for (const pid of groups) killProcessGroup(pid);
  groups.clear();
  for (const path of paths) {
    // Moved aside first (`<path>.removing`), then removed: a thread of this process still writing
    // into the folder (a publish page worker) cannot refill it while it is being removed, since its
    // next file's path no longer exists. A path that cannot be moved is removed where it is.
    let target = path;
    try {
      renameSync(path, `${path}.removing`);
      target = `${path}.removing`;
    } catch {
      // gone already, or it cannot be moved: remove it where it is
    }
    try {
      rmSync(target, { recursive: true, force: true });
    } catch {
      // Nothing more can be done while the process is stopping; the others are still removed.
    }
  }
  paths.clear();
  update();
}

const notices = new Set<(signal: CleanupSignal) => void>();

/**
 * Registers what to say when a signal stopped the process, once everything registered was cleaned
 * up and before it exits (a command's "interrupted: … cleaned up" line). Synchronous; it must not
 * throw. Returns the release.
 */
export function noticeOnStop(notice: (signal: CleanupSignal) => void): () => void {
  notices.add(notice);
  // A notice is heard even when no child runs (an ingest between batches): the signal is handled
  // here, the notice said, and the process exits with the signal's code as its default action would.
  update();
  return () => {
    notices.delete(notice);
    update();
  };
}

function onSignal(signal: CleanupSignal): void {
  cleanUpGuarded();
  for (const notice of notices) {
    try {
      notice(signal);
    } catch {
      // The process is stopping: a notice that fails must not keep it from exiting.
    }
  }
  process.exit(SIGNAL_EXIT_CODES[signal]);
}

function update(): void {
  const needed = groups.size > 0 || paths.size > 0 || notices.size > 0;
  if (needed === listening) return;
  listening = needed;
  for (const signal of SIGNALS) {
    if (needed) process.on(signal, onSignal);
    else process.removeListener(signal, onSignal);
  }
}
