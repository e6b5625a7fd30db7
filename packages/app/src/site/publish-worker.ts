// A page worker of `evals publish` (a worker thread, started by publish-workers.ts): it opens the
// store itself (SQLite: its own read-only connection; PostgreSQL: its own connection, from the same
// URL), renders, writes and hashes the attempt pages of the pages of the stream it claims from the
// counter the threads share (evalbook's writeAttemptPages), and posts back only what the manifest
// needs (path, sha256, size), 500 entries at a time as it goes, then the rest — never a bundle text,
// an attempt or a page. An error is posted as its name, code, message and issues, and the
// publication fails with it. Its heap is capped (publish-workers.ts PAGE_WORKER_LIMITS).
import { parentPort, workerData } from 'node:worker_threads';
import type { MessagePort } from 'node:worker_threads';

import { openStore, writeAttemptPages } from '@paperclip-evals/evalbook';

import { FolderWriter } from './folder-writer.js';

import type { PageWorkerData, PageWorkerReply } from './publish-workers.js';

if (parentPort === null) throw new Error('publish-worker.js runs only as a worker thread');
const port: MessagePort = parentPort;
const share = workerData as PageWorkerData;
/** Manifest entries posted to the main thread at a time (a structured clone of 500 small objects). */
const ENTRY_BATCH = 500;

async function work(): Promise<PageWorkerReply> {
  const store = await openStore(share.storeUrl, { mustExist: true, readOnly: true });
  try {
    const writer = new FolderWriter(share.folder);
    const claims = new Int32Array(share.counter);
    // The entries go to the main thread as they accumulate, so this thread's heap holds a batch of
    // them, never the campaign's: its live set does not grow with the campaign (its heap is capped).
    const flush = (): void => {
      port.postMessage({ batch: writer.entries.take() } satisfies PageWorkerReply);
    };
    await writeAttemptPages({
      store,
      campaignId: share.campaignId,
      record: share.record,
      public: share.public,
      ...(share.siteId === undefined ? {} : { siteId: share.siteId }),
      claimPage: () => Atomics.add(claims, 0, 1),
      emit: (path, content) => {
        writer.write(path, content);
        if (writer.entries.length === ENTRY_BATCH) flush();
        return Promise.resolve();
      },
    });
    return { entries: writer.entries.take() };
  } finally {
    await store.close();
  }
}

work().then(
  (reply) => {
    port.postMessage(reply);
  },
  (error: unknown) => {
    const coded = error as { name?: unknown; code?: unknown; issues?: unknown };
    port.postMessage({
      error: {
        name: typeof coded.name === 'string' ? coded.name : 'Error',
        message: error instanceof Error ? error.message : String(error),
        ...(typeof coded.code === 'string' ? { code: coded.code } : {}),
        ...(Array.isArray(coded.issues) ? { issues: coded.issues as unknown[] } : {}),
      },
    } satisfies PageWorkerReply);
  },
);
