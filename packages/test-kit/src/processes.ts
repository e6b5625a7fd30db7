// Whether a process we killed (or whose group we killed) is gone, for the tests of every kill rule.
// A SIGKILL is delivered at once but acted on when the kernel next schedules the process, and a
// killed process whose parent died stays a zombie until init reaps it: on a loaded machine either
// can take more than a fixed pause. So tests wait for the event, with a bound that only a process
// that really survived the kill reaches (every test's process sleeps for 30 s or more).
import { readFileSync } from 'node:fs';

/** Running: it exists and is not a zombie (a killed process init has not reaped yet is gone). */
export function isRunning(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) throw new Error(`isRunning: not a pid: ${pid}`);
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The state is the field after the command name, which is in parentheses and may hold any byte.
    return stat.charAt(stat.lastIndexOf(')') + 2) !== 'Z';
  } catch {
    return false;
  }
}

/** How long a killed process may take to be gone before a test calls it a survivor. */
export const GONE_WITHIN_MS = 10_000;

/**
 * Resolves true as soon as every one of `pids` is gone (not running), false if one still runs after
 * `withinMs`. Polls /proc every 20 ms: no fixed pause decides the outcome.
 */
export async function goneWithin(
  pids: number | readonly number[],
  withinMs = GONE_WITHIN_MS,
): Promise<boolean> {
  const all = typeof pids === 'number' ? [pids] : pids;
  const deadline = Date.now() + withinMs;
  for (;;) {
    if (!all.some(isRunning)) return true;
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
