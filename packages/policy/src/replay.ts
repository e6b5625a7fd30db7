// Replaying sessions through evaluate producers: N processes, each loading the bundle with a
// header (a bundle_error fails the job), then running several sessions at once. Within a session
// rows go one at a time in the given order, and state is threaded only from a successful
// state_out; a row error leaves the last good state in place. Any producer failure kills every
// process and fails the whole job: no result is ever invented.
import { canonicalDigest } from '@paperclip-evals/contract';

import { EvaluateClient } from './client.js';
import { jobFailed } from './errors.js';

import type { ClientOptions, ProducerCommand, RowReply, SkippedItem } from './client.js';
import type { PolicyError } from './errors.js';

/**
 * Sessions in flight per producer process. A session has one row outstanding at a time, so this is
 * how much work each side has while the other works: at 64 the pipe ran at about half the rate
 * it reaches at 256 (scripts/bench/policy-bench.ts); far more only grows the consumer's memory.
 */
export const DEFAULT_SESSIONS_PER_PROCESS = 256;

export interface ReplayEvent<T> {
  /** The caller's handle for this event, handed back with its reply. */
  readonly ref: T;
  /** The protocol event object as JSON text. */
  readonly event: string;
  readonly nowMs: bigint;
}

export interface ReplaySession<T> {
  readonly key: string;
  /** Already in replay order (event time, then a stable tie-break). */
  readonly events: Iterable<ReplayEvent<T>>;
}

export interface ReplayOptions<T> extends ClientOptions {
  readonly command: ProducerCommand;
  /** The bundle document as JSON text, sent as the header of every process. */
  readonly bundle: string;
  /** state_in of each session's first row: JSON text of a zeroed layout, or null (unavailable). */
  readonly initialState: string | null;
  readonly sessions: Iterable<ReplaySession<T>>;
  /** Producer processes run at once (default 1). */
  readonly processes?: number;
  /** Sessions in flight per process (default DEFAULT_SESSIONS_PER_PROCESS): one outstanding row each. */
  readonly sessionsPerProcess?: number;
  /** Called for every row, in each session's order. */
  readonly onReply: (session: string, event: ReplayEvent<T>, reply: RowReply) => void;
}

export interface ReplaySummary {
  readonly rows: number;
  readonly rowErrors: number;
  readonly bundleDigest: string;
  readonly skipped: readonly SkippedItem[];
  readonly handshake: Readonly<Record<string, unknown>>;
}

/** Runs the whole replay; rejects with the first job error (PolicyError) after killing every process. */
export async function replaySessions<T>(options: ReplayOptions<T>): Promise<ReplaySummary> {
  const processes = options.processes ?? 1;
  const sessionsPerProcess = options.sessionsPerProcess ?? DEFAULT_SESSIONS_PER_PROCESS;
  const queue = options.sessions[Symbol.iterator]();
  const clients: EvaluateClient[] = [];
  let firstFailure: unknown;
  /** Read through a function: the failure can arrive while a session awaits a reply. */
  const failed = (): boolean => firstFailure !== undefined;
  const failAll = (error: unknown): void => {
    firstFailure ??= error;
    for (const client of clients) client.kill();
  };

  let rows = 0;
  let rowErrors = 0;
  /** The digest the first process acknowledged: every process and every reply must name it. */
  let headerDigest: string | undefined;
  const sentDigest = digestOfSent(options.bundle);
  const worker = async (): Promise<{
    digest: string;
    skipped: readonly SkippedItem[];
    handshake: Readonly<Record<string, unknown>>;
  }> => {
    const client = await EvaluateClient.start(options.command, options);
    clients.push(client);
    if (failed()) client.kill();
    client.onFailure(failAll);
    const ack = await client.loadBundle(options.bundle);
    if (!ack.ok)
      throw jobFailed('bundle_rejected', `the producer rejected the bundle: ${ack.code} ${ack.message}`);
    // The producer's digest is checked, never trusted: verdicts are stored under it.
    if (ack.digest !== sentDigest)
      throw jobFailed(
        'bundle_digest_mismatch',
        `the producer acknowledged the bundle as ${ack.digest}, but the RFC 8785 digest of the bundle sent is ${sentDigest ?? '(none: the bundle is not JSON)'}`,
        ack.digest,
      );
    headerDigest ??= ack.digest;
    if (ack.digest !== headerDigest)
      throw jobFailed(
        'bundle_digest_mismatch',
        `two producer processes acknowledged the same bundle as ${headerDigest} and ${ack.digest}`,
        ack.digest,
      );
    const expectedDigest = ack.digest;
    // One chain of sessions, started with its first session and then taking the next from the
    // queue: each row is sent when the previous reply of its session arrived (a callback per row,
    // not a promise: this is the consumer's hot path).
    const runSessions = (first: ReplaySession<T>): Promise<void> =>
      new Promise<void>((done, fail) => {
        let key = first.key;
        let events: Iterator<ReplayEvent<T>> | undefined = first.events[Symbol.iterator]();
        let state: string | null = options.initialState;
        const next = (): void => {
          try {
            for (;;) {
              if (failed()) {
                done();
                return;
              }
              if (events === undefined) {
                const session = queue.next();
                if (session.done === true) {
                  done();
                  return;
                }
                key = session.value.key;
                events = session.value.events[Symbol.iterator]();
                state = options.initialState;
              }
              const step = events.next();
              if (step.done === true) {
                events = undefined;
                continue;
              }
              const event = step.value;
              const onReply = (reply: RowReply): void => {
                // Rows carry no bundle of their own: each is evaluated with the header, or the
                // verdict would be stored under a policy digest it was not decided by.
                if (reply.bundleDigest !== expectedDigest) {
                  const error = jobFailed(
                    'bundle_digest_mismatch',
                    `a response names bundle ${String(reply.bundleDigest)}, not the acknowledged ${expectedDigest}`,
                    reply.bundleDigest,
                  );
                  client.kill();
                  fail(error);
                  return;
                }
                rows++;
                if (reply.ok) state = reply.stateOut;
                else rowErrors++;
                try {
                  options.onReply(key, event, reply);
                } catch (error) {
                  fail(asError(error));
                  return;
                }
                next();
              };
              client.submit({ event: event.event, nowMs: event.nowMs, stateIn: state }, onReply, fail);
              return;
            }
          } catch (error) {
            fail(asError(error)); // the caller's session iterator threw
          }
        };
        next();
      });
    // Chains start as sessions are taken, never more than there are sessions.
    const chains: Promise<void>[] = [];
    while (chains.length < sessionsPerProcess && !failed()) {
      const session = queue.next();
      if (session.done === true) break;
      chains.push(runSessions(session.value));
    }
    await Promise.all(chains);
    if (!failed()) await client.finish();
    return { digest: ack.digest, skipped: ack.skipped, handshake: client.handshake };
  };

  const outcomes = await Promise.allSettled(
    Array.from({ length: processes }, () =>
      worker().catch((error: unknown) => {
        failAll(error);
        throw error;
      }),
    ),
  );
  if (firstFailure !== undefined) throw firstFailure as PolicyError;
  const first = outcomes[0];
  if (first?.status !== 'fulfilled') throw jobFailed('spawn_failed', 'no producer process ran');
  return {
    rows,
    rowErrors,
    bundleDigest: first.value.digest,
    skipped: first.value.skipped,
    handshake: first.value.handshake,
  };
}

/** `sha256:` + the SHA-256 of the bundle's RFC 8785 form, as the seed defines bundle_digest. */
function digestOfSent(bundle: string): string | undefined {
  try {
    return canonicalDigest(JSON.parse(bundle));
  } catch {
    return undefined; // not JSON (or not canonicalisable): no acknowledgment can be right
  }
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
