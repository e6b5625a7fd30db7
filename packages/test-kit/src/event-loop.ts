// The rule turnIfDue keeps (packages/node/src/event-loop-turn.ts): a long loop over an iterator whose
// awaits settle at once still hands the event loop a turn, so a signal's handler or a timer runs
// mid-way. `timerFiresDuring(pass)` sets a zero-delay timer, then runs `pass` (one whole iteration)
// again and again until the timer fires or `withinMs` have passed: true when it fired while the loop
// still ran. Without the turns it fires only after the loop's end (mutation-checked).
import { setTimeout as sleep } from 'node:timers/promises';

export async function timerFiresDuring(pass: () => Promise<void>, withinMs = 300): Promise<boolean> {
  const start = performance.now();
  const timer = { fired: false };
  const firing = sleep(0).then(() => {
    timer.fired = true;
  });
  while (!timer.fired && performance.now() - start < withinMs) await pass();
  const during = timer.fired;
  await firing;
  return during;
}
