// regex_match under a time limit. JavaScript regexes backtrack, and a pattern such as ^(a+)+$ takes
// exponential time on a near-miss input however small the pattern and input bounds are, so the test
// runs on a worker thread while this thread waits for it (Atomics.wait) at most REGEX_TIME_LIMIT_MS;
// a worker that overruns is terminated and the next test starts a new one. A round trip costs tens
// of microseconds, and the wait keeps evaluation synchronous.
import { MessageChannel, Worker, receiveMessageOnPort } from 'node:worker_threads';

import type { MessagePort } from 'node:worker_threads';

/** Longest a regex_match test may run, in milliseconds (the worker's start is not counted). */
export const REGEX_TIME_LIMIT_MS = 250;
/** Longest a new worker may take to start before the engine gives up on it (a machine in trouble). */
const WORKER_START_LIMIT_MS = 30_000;

/** The worker, as CommonJS source (eval: true), so it runs the same from src/ under tsx and dist/. */
const WORKER_SOURCE = `
const { workerData } = require('node:worker_threads');
const signal = new Int32Array(workerData.signal);
const port = workerData.port;
port.on('message', ({ pattern, flags, text }) => {
  let reply;
  try {
    reply = { matched: new RegExp(pattern, flags).test(text) };
  } catch (error) {
    reply = { error: String(error) };
  }
  port.postMessage(reply);
  Atomics.store(signal, 0, 1);
  Atomics.notify(signal, 0);
});
Atomics.store(signal, 0, 1);
Atomics.notify(signal, 0);
`;

export type RegexOutcome =
  { readonly matched: boolean } | { readonly timedOut: true } | { readonly error: string };

interface RegexWorker {
  readonly worker: Worker;
  readonly port: MessagePort;
  /** 0 while the worker is busy; it stores 1 when it is ready and after every reply. */
  readonly signal: Int32Array;
}

let current: RegexWorker | undefined;

function startWorker(): RegexWorker {
  const signal = new Int32Array(new SharedArrayBuffer(4));
  const { port1, port2 } = new MessageChannel();
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: { signal: signal.buffer, port: port2 },
    transferList: [port2],
  });
  // Neither may keep a finished process alive.
  worker.unref();
  port1.unref();
  if (Atomics.wait(signal, 0, 0, WORKER_START_LIMIT_MS) === 'timed-out') {
    worker.terminate().catch(() => undefined);
    throw new Error(`the regex worker did not start within ${WORKER_START_LIMIT_MS} ms`);
  }
  return { worker, port: port1, signal };
}

/**
 * Tests `pattern` (already known to compile) against `text`, giving up after `limitMs`. Blocks the
 * calling thread for at most that long.
 */
export function testRegexWithin(
  pattern: string,
  flags: string,
  text: string,
  limitMs: number = REGEX_TIME_LIMIT_MS,
): RegexOutcome {
  current ??= startWorker();
  const { worker, port, signal } = current;
  Atomics.store(signal, 0, 0);
  port.postMessage({ pattern, flags, text });
  if (Atomics.wait(signal, 0, 0, limitMs) === 'timed-out') {
    // The worker is stuck in the regex: end it (termination interrupts a running regex).
    current = undefined;
    worker.terminate().catch(() => undefined);
    return { timedOut: true };
  }
  const reply = receiveMessageOnPort(port)?.message as RegexOutcome | undefined;
  if (reply === undefined) throw new Error('the regex worker signalled without a reply');
  return reply;
}
