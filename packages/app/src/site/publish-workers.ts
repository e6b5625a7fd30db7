// The threads of `evals publish` (issue 19): how many render a campaign's attempt pages, and the
// page workers beside the main thread. The main thread reads the campaign for its summary, grid,
// case pages and campaign.json and renders the attempt pages it claims; each worker
// (publish-worker.ts) renders the pages it claims, from a counter the threads share (a page of the
// stream is ATTEMPT_PAGE_SIZE attempts; whoever is free takes the next), writing into the same
// temporary folder. A page's bytes are the same whichever thread writes it, and the manifest is
// sorted by path, so the folder is the same byte for byte with one thread or several.
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { ResourceLimits } from 'node:worker_threads';

import { ATTEMPT_PAGE_SIZE } from '@paperclip-evals/evalbook';

import type { Issue } from '@paperclip-evals/contract';
import type { LedgerStore } from '@paperclip-evals/evalbook';

import { AppError } from '../errors.js';

import type { PackedEntries } from './folder-writer.js';

/** At most this many threads by default: each has its own heap (memory, issue 19's < 500 MB). */
export const DEFAULT_MAX_PUBLISH_THREADS = 4;
/** The variable that sets the thread count when --threads does not. */
export const PUBLISH_THREADS_ENV = 'EVALS_PUBLISH_THREADS';
/** The most threads that can be asked for. */
export const MAX_PUBLISH_THREADS = 64;

/**
 * The threads that share a job of `shares` shares (a campaign's pages of the stream, a site's
 * chunks of files), the main thread included: `requested` (--threads), else EVALS_PUBLISH_THREADS,
 * else the cores Node may use (os.availableParallelism(), at most DEFAULT_MAX_PUBLISH_THREADS);
 * never more than the shares (a small campaign is published on this thread alone: starting a
 * worker costs more than it saves).
 */
export function threadCount(requested: number | undefined, shares: number): number {
  const fromEnv = process.env[PUBLISH_THREADS_ENV];
  const asked =
    requested ??
    (fromEnv === undefined || fromEnv === ''
      ? Math.min(availableParallelism(), DEFAULT_MAX_PUBLISH_THREADS)
      : checkedThreads(fromEnv, PUBLISH_THREADS_ENV));
  return Math.max(1, Math.min(asked, shares));
}

/** The threads that publish a campaign of `attempts` attempts (a share: a page of its stream). */
export const publishThreads = (requested: number | undefined, attempts: number): number =>
  threadCount(requested, Math.ceil(attempts / ATTEMPT_PAGE_SIZE));

/**
 * The threads that publish campaign `campaignId`: sized by its own attempts, counted through the
 * run's index (store.countAttempts(runId): a few ms at 100,000), never by a whole-ledger
 * store.runs() (a GROUP BY over every attempt: ~0.9 s at 100,000).
 */
export async function campaignThreads(
  store: Pick<LedgerStore, 'countAttempts'>,
  campaignId: string,
  requested: number | undefined,
): Promise<number> {
  return publishThreads(requested, await store.countAttempts(campaignId));
}

/** A thread count from a flag or the environment: a whole number from 1 to MAX_PUBLISH_THREADS. */
export function checkedThreads(text: string, where: string): number {
  const threads = Number(text);
  if (/^[0-9]+$/.test(text) && threads >= 1 && threads <= MAX_PUBLISH_THREADS) return threads;
  throw new AppError(
    'paperclip_app_request_invalid',
    `${where} takes the number of threads that render attempt pages (1 to ${MAX_PUBLISH_THREADS}; 1: this thread only), received ${JSON.stringify(text)}`,
    [
      {
        code: 'threads_invalid',
        message: 'not a whole number of threads',
        path: where,
        expected: `a whole number from 1 to ${MAX_PUBLISH_THREADS}`,
        received: text,
      },
    ],
  );
}

/** What a page worker is started with (posted once, as its workerData). */
export interface PageWorkerData {
  readonly storeUrl: string;
  readonly campaignId: string;
  /** The campaign's record as the main thread read it (a page's lanes and case prompts come from it). */
  readonly record: Readonly<Record<string, unknown>> | null;
  readonly public: boolean;
  /** The id the folder is published under when it is not the campaign's (`--as`). */
  readonly siteId?: string;
  /** The campaign's temporary folder. */
  readonly folder: string;
  /** An Int32Array's buffer: [0] is the next page of the stream to claim. */
  readonly counter: SharedArrayBuffer;
}

/**
 * A page worker's messages: batches of its files' manifest entries as it writes them, then its last
 * entries (it is done) or its error.
 */
export type PageWorkerReply =
  | { readonly batch: PackedEntries }
  | { readonly entries: PackedEntries }
  | {
      readonly error: {
        readonly name: string;
        readonly message: string;
        readonly code?: string;
        readonly issues?: readonly unknown[];
      };
    };

/**
 * A page worker's error as it was thrown there: a structured clone cannot carry its class, so it is
 * an Error with the same name, code, message and issues (an AppError is rebuilt as one); the CLI's
 * exit code is its code's, as for the error itself.
 */
function passedError(error: Extract<PageWorkerReply, { error: unknown }>['error']): Error {
  if (error.code === undefined) return new Error(`a page worker failed: ${error.message}`);
  const issues = (error.issues ?? []) as Issue[];
  if (error.name === 'AppError') return new AppError(error.code as AppError['code'], error.message, issues);
  return Object.assign(new Error(error.message), { name: error.name, code: error.code, issues });
}

/**
 * A page worker's heap (worker resourceLimits, in MB): its live set is a batch of attempts being
 * rendered (RENDER_BATCH, their bundles) and of manifest entries not yet posted, whatever the
 * campaign's size, so the cap bounds what V8 lets its heap grow to with garbage (uncapped, a
 * worker's heap grew like the main thread's: docs/benchmarks.md, run 8). A worker that needs more
 * (bundles of tens of MB each) fails the publication closed (pageWorkerOutOfMemory); on one
 * thread (--threads 1) the pages are rendered with this thread's own heap.
 */
export const PAGE_WORKER_LIMITS = { maxOldGenerationSizeMb: 128, maxYoungGenerationSizeMb: 32 } as const;

/** A page worker that hit PAGE_WORKER_LIMITS: a coded refusal that says what to do. */
export function pageWorkerOutOfMemory(campaignId: string, heapMb: number | undefined): AppError {
  return new AppError(
    'paperclip_app_request_invalid',
    `a page worker ran out of its ${heapMb ?? '(default)'} MB heap while rendering the attempt pages of campaign ${campaignId} (its bundles are too large for a capped worker): nothing was published; publish it with --threads 1, which renders every page on the main thread's heap`,
    [
      {
        code: 'publish_worker_out_of_memory',
        message: 'a page worker exceeded its heap limit',
        path: '/threads',
        expected: `attempt pages that render within ${heapMb ?? '(default)'} MB of heap per page worker`,
        received: 'a page worker out of memory (ERR_WORKER_OUT_OF_MEMORY)',
      },
    ],
  );
}

/**
 * The worker there (it is built: the sources' tests run it too, after the build their setup makes),
 * from dist/site/ and src/site/ alike.
 */
const WORKER = new URL('../../dist/site/publish-worker.js', import.meta.url);

export interface PageWorkers {
  /** Every worker's manifest entries (in batches), once all are done; rejects with the first worker's error. */
  readonly entries: Promise<PackedEntries[]>;
  /** Throws the first worker's error, if one failed already (the main thread stops claiming pages). */
  readonly check: () => void;
  /** Stops every worker still running and waits until each has exited (none writes after this). */
  readonly stop: () => Promise<void>;
}

export function startPageWorkers(
  count: number,
  data: PageWorkerData,
  limits: ResourceLimits = PAGE_WORKER_LIMITS,
): PageWorkers {
  let failed: Error | undefined;
  const workers: Worker[] = [];
  const exits: Promise<void>[] = [];
  const replies: Promise<readonly PackedEntries[]>[] = [];
  for (let index = 0; index < count; index++) {
    // execArgv: [] — the parent's flags (e.g. --cpu-prof) are not the worker's to inherit.
    const worker = new Worker(WORKER, { workerData: data, execArgv: [], resourceLimits: limits });
    workers.push(worker);
    exits.push(
      new Promise((resolve) => {
        worker.once('exit', () => {
          resolve();
        });
      }),
    );
    replies.push(
      new Promise<readonly PackedEntries[]>((resolve, reject) => {
        const received: PackedEntries[] = [];
        worker.on('message', (reply: PageWorkerReply) => {
          if ('batch' in reply) received.push(reply.batch);
          else if ('entries' in reply) {
            received.push(reply.entries);
            resolve(received);
          } else reject(passedError(reply.error));
        });
        worker.once('error', (error: NodeJS.ErrnoException) => {
          reject(
            error.code === 'ERR_WORKER_OUT_OF_MEMORY'
              ? pageWorkerOutOfMemory(data.campaignId, limits.maxOldGenerationSizeMb)
              : error,
          );
        });
        worker.once('exit', (code) => {
          reject(new Error(`a page worker exited (code ${code}) before it answered`));
        });
      }).catch((error: unknown) => {
        failed ??= error instanceof Error ? error : new Error(String(error));
        throw failed;
      }),
    );
  }
  const entries = Promise.all(replies).then((lists) => lists.flat());
  // Awaited by the caller unless its own thread failed first: then the workers' errors are moot.
  entries.catch(() => undefined);
  return {
    entries,
    check: () => {
      if (failed !== undefined) throw failed;
    },
    stop: async () => {
      await Promise.all(workers.map((worker) => worker.terminate()));
      await Promise.all(exits);
    },
  };
}
