// The SQLite writer thread. With `writerThread`, a SqliteStore hands each batch here, so the main
// thread parses the next batch while this one is written: two cores, one writer connection, the same
// insert code and one transaction per batch as in-thread (a kill still leaves whole batches only).
// A batch arrives as its insert values with the long texts in one transferred buffer (packWrites).
import { parentPort, workerData } from 'node:worker_threads';

import { SqliteStore, unpackWrites } from './sqlite-store.js';

import type { WriterReply, WriterRequest } from './sqlite-store.js';

const port = parentPort;
if (port === null) throw new Error('sqlite-writer.js runs only as a worker thread');
const store = SqliteStore.open((workerData as { path: string }).path);
port.on('message', (request: WriterRequest) => {
  if ('close' in request) {
    void store.close().then(() => {
      port.postMessage({ id: request.id, closed: true } satisfies WriterReply);
      port.close();
    });
    return;
  }
  store.insertWrites(unpackWrites(request.writes)).then(
    (outcomes) => {
      port.postMessage({ id: request.id, outcomes } satisfies WriterReply);
    },
    (error: unknown) => {
      const code = (error as { code?: unknown }).code;
      port.postMessage({
        id: request.id,
        error: error instanceof Error ? error.message : String(error),
        ...(typeof code === 'string' ? { code } : {}),
      } satisfies WriterReply);
    },
  );
});
