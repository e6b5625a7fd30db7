// A verify worker of `evals publish --verify` (a worker thread, started by verify.ts checkChunks):
// it is given the site's file list once, then chunks of a campaign folder's manifest entries, one
// at a time; it reads each file once, checks its digest and its content from the same bytes
// (verify.ts checkChunk, as the main thread does) and answers only the chunk's issues.
import { parentPort, workerData } from 'node:worker_threads';

import { siteScriptHashes } from '@paperclip-evals/evalbook';

import { checkChunk } from './verify.js';

import type { VerifyWorkerData, VerifyWorkerReply, VerifyWorkerRequest } from './verify.js';

const port = parentPort;
if (port === null) throw new Error('verify-worker.js runs only as a worker thread');
const { site, files } = workerData as VerifyWorkerData;
const all = new Set(files);
const scripts = new Set(siteScriptHashes());
port.on('message', ({ index, chunk }: VerifyWorkerRequest) => {
  let reply: VerifyWorkerReply;
  try {
    reply = { index, result: checkChunk(site, chunk, all, scripts) };
  } catch (error) {
    reply = { index, error: error instanceof Error ? error.message : String(error) };
  }
  port.postMessage(reply);
});
