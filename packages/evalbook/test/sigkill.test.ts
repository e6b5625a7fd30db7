// Crash safety: a child process ingesting a few thousand bundles is SIGKILLed mid-way; a rerun then
// leaves every attempt present exactly once and the SQLite file passes PRAGMA integrity_check.
// The child runs the built package (packages/evalbook/dist), as `pnpm test` builds before testing.
import { spawn } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { ingest } from '../src/ingest.ts';
import { tempDir, writeBundles } from './support/bundles.ts';

const DIST = pathToFileURL(fileURLToPath(new URL('../dist/index.js', import.meta.url))).href;
const TOTAL = 3000;

let dir: string;
let cleanup: () => Promise<void>;
beforeAll(async () => {
  ({ dir, cleanup } = await tempDir('evalbook-sigkill-'));
  await mkdir(join(dir, 'bundles'));
  await writeBundles(join(dir, 'bundles'), TOTAL);
});
afterAll(() => cleanup());

describe('SIGKILL during ingest', () => {
  it('leaves a consistent store; a rerun completes it with every attempt exactly once', async () => {
    const dbPath = join(dir, 'evalbook.sqlite');
    const child = join(dir, 'child.mjs');
    await writeFile(
      child,
      `import { ingest } from ${JSON.stringify(DIST)};
await ingest({ inputs: [process.argv[2]], storeUrl: 'sqlite:' + process.argv[3], batchSize: 50,
  onProgress: (p) => process.stdout.write(p.inserted + '\\n') });
process.stdout.write('done\\n');`,
    );
    const proc = spawn(process.execPath, [child, join(dir, 'bundles'), dbPath], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const signal = await new Promise<NodeJS.Signals | null>((done) => {
      let killed = false;
      proc.stdout.setEncoding('utf8');
      proc.stdout.on('data', (text: string) => {
        const counts = text.trim().split('\n').map(Number);
        if (!killed && counts.some((count) => count >= 500)) {
          killed = true;
          proc.kill('SIGKILL');
        }
      });
      proc.on('exit', (_code, sig) => {
        done(sig);
      });
    });
    expect(signal).toBe('SIGKILL');

    const db = new Database(dbPath, { readonly: true });
    const before = (db.prepare('SELECT count(*) AS n FROM attempts').get() as { n: number }).n;
    db.close();
    expect(before).toBeGreaterThanOrEqual(500);
    expect(before).toBeLessThan(TOTAL);
    expect(before % 50).toBe(0); // whole batches only

    const rerun = await ingest({ inputs: [join(dir, 'bundles')], storeUrl: `sqlite:${dbPath}` });
    expect(rerun).toMatchObject({
      inserted: TOTAL - before,
      duplicates: before,
      conflicts: [],
      invalid: [],
      unreadable: [],
    });

    const check = new Database(dbPath);
    expect(check.pragma('integrity_check', { simple: true })).toBe('ok');
    const counts = check
      .prepare(
        'SELECT count(*) AS n, count(DISTINCT attempt_id) AS distinctIds, (SELECT count(*) FROM scores) AS scores FROM attempts',
      )
      .get() as { n: number; distinctIds: number; scores: number };
    check.close();
    expect(counts).toEqual({ n: TOTAL, distinctIds: TOTAL, scores: TOTAL });
  }, 60_000);
});
