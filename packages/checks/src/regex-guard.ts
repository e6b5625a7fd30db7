// regex_match under a time limit, in the RE2 dialect the peer Attest engine uses (Go's regexp):
// `(?i)` and the other inline flags, `\p{L}`, `[[:alpha:]]`, no backreferences or lookaround. The
// patterns run on re2js, a linear-time RE2 port, on a worker thread while this thread waits for it
// (Atomics.wait) until the regex has used REGEX_TIME_LIMIT_MS of CPU: linear time is still time, and a
// long input under a large pattern must not stall the engine. The limit counts the process's CPU time
// while this thread sleeps (what the worker spends, plus any other thread: never less), so a busy
// machine that gives the worker no core does not turn a trivial match into a timeout; a wall-clock
// backstop (REGEX_WALL_LIMIT_FACTOR × the limit) still ends a wait on a machine that never runs it. A
// worker that overruns is terminated and the next test starts a new one. A round trip costs tens of
// microseconds, and the wait keeps evaluation synchronous.
import { createRequire } from 'node:module';
import { MessageChannel, Worker, receiveMessageOnPort } from 'node:worker_threads';

import { RE2JS } from 're2js';

import type { MessagePort } from 'node:worker_threads';

/** Most CPU time a regex_match test may use, in milliseconds (the worker's start is not counted). */
export const REGEX_TIME_LIMIT_MS = 250;
/** The wall-clock backstop: a test ends after this many times its CPU limit whatever it used. */
const REGEX_WALL_LIMIT_FACTOR = 40;
/** Longest a new worker may take to start before the engine gives up on it (a machine in trouble). */
const WORKER_START_LIMIT_MS = 30_000;

/** The worker, as CommonJS source (eval: true), so it runs the same from src/ under tsx and dist/. */
const WORKER_SOURCE = `
const { workerData } = require('node:worker_threads');
const { RE2JS } = require(workerData.re2js);
const signal = new Int32Array(workerData.signal);
const port = workerData.port;
port.on('message', ({ pattern, text }) => {
  let reply;
  try {
    reply = { matched: RE2JS.compile(pattern).matcher(text).find() };
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

/** re2js's CommonJS build, for the worker (an eval worker resolves nothing on its own). */
const RE2JS_PATH = createRequire(import.meta.url).resolve('re2js');

let current: RegexWorker | undefined;

/** Why `pattern` is not an RE2 pattern, or undefined when it is one. */
export function re2SyntaxError(pattern: string): string | undefined {
  try {
    RE2JS.compile(pattern);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

function startWorker(): RegexWorker {
  const signal = new Int32Array(new SharedArrayBuffer(4));
  const { port1, port2 } = new MessageChannel();
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: { signal: signal.buffer, port: port2, re2js: RE2JS_PATH },
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
 * Whether the RE2 `pattern` (already known to compile) matches anywhere in `text`, as Go's
 * MatchString answers; gives up after `limitMs`. Blocks the calling thread for at most that long.
 */
export function testRegexWithin(
  pattern: string,
  text: string,
  limitMs: number = REGEX_TIME_LIMIT_MS,
): RegexOutcome {
  current ??= startWorker();
  const { worker, port, signal } = current;
  Atomics.store(signal, 0, 0);
  const cpuAtStart = process.cpuUsage();
  const wallDeadline = performance.now() + limitMs * REGEX_WALL_LIMIT_FACTOR;
  port.postMessage({ pattern, text });
  if (!waitForReply(signal, limitMs, cpuAtStart, wallDeadline)) {
    // The worker is stuck in the regex: end it (termination interrupts a running regex).
    current = undefined;
    worker.terminate().catch(() => undefined);
    return { timedOut: true };
  }
  const reply = receiveMessageOnPort(port)?.message as RegexOutcome | undefined;
  if (reply === undefined) throw new Error('the regex worker signalled without a reply');
  return reply;
}

/**
 * Sleeps until the worker signals (true), or until the process has used `limitMs` of CPU since
 * `cpuAtStart` or the wall clock passes `wallDeadline` (false). This thread sleeps meanwhile, so the
 * CPU counted is the worker's (and any other thread's: it can only end the wait sooner).
 */
function waitForReply(
  signal: Int32Array,
  limitMs: number,
  cpuAtStart: NodeJS.CpuUsage,
  wallDeadline: number,
): boolean {
  for (;;) {
    const used = process.cpuUsage(cpuAtStart);
    const cpuLeftMs = limitMs - (used.user + used.system) / 1000;
    const wallLeftMs = wallDeadline - performance.now();
    if (cpuLeftMs <= 0 || wallLeftMs <= 0) return Atomics.load(signal, 0) === 1;
    // The CPU left can be used no faster than in real time (one worker thread): sleep that long.
    if (Atomics.wait(signal, 0, 0, Math.max(1, Math.min(cpuLeftMs, wallLeftMs))) !== 'timed-out') {
      return true;
    }
  }
}
