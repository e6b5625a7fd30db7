// The bare baselines the validate and ingest benchmarks measure the CLI against, in the same run:
// a plain `node` process (no tsx, no project code) doing the least work the command must do on the
// same bytes. Walks DIR sorted for *.json (as `evals validate DIR` does), then per file:
//
//   validate  readFileSync into one buffer, JSON.parse(buffer.toString('utf8')), sha256 of the bytes
//   ingest    the same, then the raw text inserted into a SQLite table with one prepared statement,
//             in transactions of BATCH files (better-sqlite3, WAL, synchronous=NORMAL, as the store)
//
// and the file system's floor under `evals publish` (publish-bench.ts):
//
//   files     LIST is a JSON array of [path, size] (every file a publication wrote, in the order it
//             lists them); each is created under DIR (a fresh folder) as publish creates a page —
//             openSync with O_CREAT | O_EXCL | O_WRONLY, one writeSync of `size` bytes (slices of
//             one buffer made up front), closeSync — each subfolder made once, before its first file
//
// `node scripts/bench/bare-baseline.mjs validate|ingest DIR [SQLITE_FILE] [BATCH]` or
// `node scripts/bench/bare-baseline.mjs files LIST DIR`; prints the file count. This file is what
// docs/benchmarks.md shows as the baselines' code.
import { createHash } from 'node:crypto';
import { closeSync, constants, mkdirSync, openSync, readFileSync, readdirSync, writeSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const [mode, dir, sqliteFile, batchText = '200'] = process.argv.slice(2);
if (mode === 'files') {
  const [, list, root] = process.argv.slice(2);
  if (list === undefined || root === undefined) throw new Error('usage: bare-baseline.mjs files LIST DIR');
  const files = JSON.parse(readFileSync(list, 'utf8'));
  const bytes = Buffer.alloc(
    files.reduce((most, [, size]) => Math.max(most, size), 0),
    0x61,
  );
  const made = new Set();
  const flags = constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY;
  for (const [path, size] of files) {
    const at = join(root, path);
    const parent = dirname(at);
    if (!made.has(parent)) {
      mkdirSync(parent, { recursive: true });
      made.add(parent);
    }
    const fd = openSync(at, flags, 0o666);
    for (let done = 0; done < size;) done += writeSync(fd, bytes, done, size - done);
    closeSync(fd);
  }
  process.stdout.write(`${files.length}\n`);
  process.exit(0);
}
if ((mode !== 'validate' && mode !== 'ingest') || dir === undefined || (mode === 'ingest' && !sqliteFile))
  throw new Error('usage: bare-baseline.mjs validate|ingest DIR [SQLITE_FILE] [BATCH] | files LIST DIR');

/** Every *.json under `root`, sorted by name at each level. */
function files(root) {
  const found = [];
  const entries = readdirSync(root, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1));
  for (const entry of entries) {
    const path = join(root, entry.name);
    if (entry.isDirectory()) found.push(...files(path));
    else if (entry.isFile() && entry.name.endsWith('.json')) found.push(path);
  }
  return found;
}

let insert = () => undefined;
let commit = () => undefined;
if (mode === 'ingest') {
  // better-sqlite3 as the store loads it (a dependency of packages/evalbook).
  const require = createRequire(new URL('../../packages/evalbook/package.json', import.meta.url));
  const Database = require('better-sqlite3');
  const db = new Database(sqliteFile);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.exec('CREATE TABLE IF NOT EXISTS bundles (digest TEXT PRIMARY KEY, text TEXT NOT NULL)');
  const statement = db.prepare('INSERT INTO bundles (digest, text) VALUES (?, ?)');
  const write = db.transaction((rows) => {
    for (const [digest, text] of rows) statement.run(digest, text);
  });
  const batch = Number(batchText);
  let rows = [];
  insert = (digest, text) => {
    rows.push([digest, text]);
    if (rows.length >= batch) commit();
  };
  commit = () => {
    if (rows.length > 0) write.immediate(rows);
    rows = [];
  };
  process.on('exit', () => db.close());
}

let count = 0;
for (const path of files(dir)) {
  const bytes = readFileSync(path);
  const text = bytes.toString('utf8');
  const value = JSON.parse(text);
  if (typeof value !== 'object' || value === null) throw new Error(`${path}: not a JSON object`);
  insert(createHash('sha256').update(bytes).digest('hex'), text);
  count++;
}
commit();
process.stdout.write(`${count}\n`);
