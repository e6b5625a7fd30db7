// Test support: whether a process still runs (Linux /proc), for the tests of the kill rule.
import { readFile } from 'node:fs/promises';

/** False for a process that is gone or a zombie (killed, not yet reaped by init). */
export async function isRunning(pid: number): Promise<boolean> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}
