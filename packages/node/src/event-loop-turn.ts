// A loop whose awaits all settle at once — synchronous reads behind an async iterator, a worker that
// answers before it is awaited (its replies then resume the loop from inside the message callback) —
// never hands the event loop a turn: a signal's handler (Ctrl-C's notice and exit), a timer or a
// progress line waits for the whole loop (seen: an ingest heard SIGINT 3.8 s late, after its last
// file; a publish 2.7 s late). Such a loop awaits `turnIfDue()` once per item: a real turn
// (setImmediate) when TURN_EVERY_MS have passed since the process's last one, otherwise nothing.
// The clock is the process's, not the loop's: many short loops back to back turn as one long one.
import { setImmediate as nextTurn } from 'node:timers/promises';

/** How long a loop may keep the event loop from running, at most, between two turns. */
export const TURN_EVERY_MS = 50;

let lastTurn = performance.now();

export function turnIfDue(): Promise<void> | undefined {
  if (performance.now() - lastTurn < TURN_EVERY_MS) return undefined;
  return nextTurn().then(() => {
    lastTurn = performance.now();
  });
}
