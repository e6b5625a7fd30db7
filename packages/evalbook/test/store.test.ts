// SQLite store and ingest: migrations (and refusing a store from the future), idempotent re-ingest,
// conflicts that overwrite nothing, invalid bundles never written, unknown fields surviving in the raw
// bundle, batch atomicity, artifact verification, append-only triggers.
import { readFile, writeFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { canonicalDigest, parseNativeExecution, sha256Digest } from '@paperclip-evals/contract';

import { convertBundle } from '../src/convert.ts';
import { ingest, ingestExitCode } from '../src/ingest.ts';
import { SqliteStore } from '../src/sqlite-store.ts';
import { StoreError, openStore } from '../src/store.ts';
import { syntheticAttempt, tempDir, writeBundle, writeBundles } from './support/bundles.ts';

let dir: string;
let cleanup: () => Promise<void>;
let storeUrl: string;
let dbPath: string;
beforeEach(async () => {
  ({ dir, cleanup } = await tempDir());
  dbPath = join(dir, 'db', 'evalbook.sqlite');
  storeUrl = `sqlite:${dbPath}`;
});
afterEach(() => cleanup());

const bundles = async (count: number): Promise<string> => {
  const at = join(dir, 'bundles');
  await mkdir(at, { recursive: true });
  await writeBundles(at, count);
  return at;
};

describe('migrations', () => {
  it('applies every migration once and refuses a store from the future', async () => {
    const store = await openStore(storeUrl);
    expect(await store.migrations()).toEqual([1]);
    await store.close();
    const again = SqliteStore.open(dbPath);
    expect(await again.migrations()).toEqual([1]);
    await again.close();
    const db = new Database(dbPath);
    db.prepare("INSERT INTO schema_migrations VALUES (99, 'future', 'x')").run();
    db.close();
    await expect(openStore(storeUrl)).rejects.toThrow(StoreError);
    await expect(openStore(storeUrl)).rejects.toThrow(/future/);
  });

  it('refuses unknown store URLs', async () => {
    await expect(openStore('mysql://x')).rejects.toThrow(StoreError);
  });
});

describe('ingest', () => {
  it('is idempotent: the same bundles again are duplicates (exit 0)', async () => {
    const input = await bundles(25);
    const first = await ingest({ inputs: [input], storeUrl, batchSize: 10 });
    expect(first).toMatchObject({ inserted: 25, duplicates: 0, conflicts: [], invalid: [], unreadable: [] });
    expect(first.coverage.text).toBe('25 of 25 attempts priced (25 provider-reported, 0 estimated)');
    const second = await ingest({ inputs: [input], storeUrl, batchSize: 10 });
    expect(second).toMatchObject({ inserted: 0, duplicates: 25 });
    expect(ingestExitCode(second)).toBe(0);
    const store = await openStore(storeUrl);
    expect(await store.countAttempts()).toBe(25);
    await store.close();
  });

  it('reports a conflict (exit 1) and leaves the original untouched, byte for byte', async () => {
    const original = await writeBundle(dir, 'a.json', { attemptId: 'attempt_x' });
    await ingest({ inputs: [original], storeUrl });
    const store = await openStore(storeUrl);
    const key = {
      runId: 'run_synthetic',
      caseId: 'case_synthetic',
      configId: 'config_synthetic',
      attemptId: 'attempt_x',
    };
    const before = await store.getAttempt(key);
    const beforeRaw = await store.getBundle(before?.bundleDigest ?? '');
    await store.close();
    const dbBytesBefore = sha256Digest(await readFile(dbPath));

    const changed = await writeBundle(dir, 'b.json', { attemptId: 'attempt_x', costMicros: 1 });
    const summary = await ingest({ inputs: [changed], storeUrl });
    expect(summary.conflicts).toHaveLength(1);
    expect(summary.conflicts[0]?.existingDigest).toBe(before?.bundleDigest);
    expect(ingestExitCode(summary)).toBe(1);

    const after = await openStore(storeUrl);
    expect(await after.getAttempt(key)).toEqual(before);
    expect(await after.getBundle(before?.bundleDigest ?? '')).toBe(beforeRaw);
    expect(await after.countAttempts()).toBe(1);
    await after.close();
    expect(sha256Digest(await readFile(dbPath))).toBe(dbBytesBefore);
  });

  it('never writes an invalid bundle and reports every issue', async () => {
    const good = await writeBundle(dir, 'good.json', { attemptId: 'attempt_good' });
    const bad = syntheticAttempt({ attemptId: 'attempt_bad' });
    (bad.usage as Record<string, unknown>).totalTokens = 1;
    delete (bad as Record<string, unknown>).failure;
    await writeFile(join(dir, 'bad.json'), JSON.stringify(bad));
    const summary = await ingest({ inputs: [good, join(dir, 'bad.json')], storeUrl });
    expect(summary.inserted).toBe(1);
    expect(summary.invalid).toHaveLength(1);
    expect(summary.invalid[0]?.issues.length).toBeGreaterThanOrEqual(2);
    expect(ingestExitCode(summary)).toBe(1);
    const store = await openStore(storeUrl);
    expect(await store.countAttempts()).toBe(1);
    await store.close();
  });

  it('reports unreadable inputs (exit 2)', async () => {
    const summary = await ingest({ inputs: [join(dir, 'absent.json')], storeUrl });
    expect(summary.unreadable).toHaveLength(1);
    expect(ingestExitCode(summary)).toBe(2);
  });

  it('keeps unknown additive fields in the stored raw bundle', async () => {
    const extra = { futureField: { nested: [1, 'two', null] }, anotherNewThing: 'kept' };
    const path = await writeBundle(dir, 'extra.json', { attemptId: 'attempt_extra' }, extra);
    await ingest({ inputs: [path], storeUrl });
    const store = await openStore(storeUrl);
    const stored = await store.getAttempt({
      runId: 'run_synthetic',
      caseId: 'case_synthetic',
      configId: 'config_synthetic',
      attemptId: 'attempt_extra',
    });
    const raw = await store.getBundle(stored?.bundleDigest ?? '');
    await store.close();
    const original = { ...syntheticAttempt({ attemptId: 'attempt_extra' }), ...extra };
    expect(raw).not.toBeNull();
    const readBack = JSON.parse(raw ?? 'null') as Record<string, unknown>;
    expect(readBack.futureField).toEqual(extra.futureField);
    expect(canonicalDigest(readBack)).toBe(canonicalDigest(original));
    expect(stored?.bundleDigest).toBe(canonicalDigest(original));
  });

  it('verifies transcript and artifact digests under --artifact-root', async () => {
    const root = join(dir, 'artifacts');
    const attemptId = 'attempt_art';
    const raw = syntheticAttempt({ attemptId });
    const transcriptBytes = Buffer.from('{"line":1}\n');
    const transcript = raw.transcript as Record<string, unknown>;
    transcript.sha256 = sha256Digest(transcriptBytes);
    transcript.byteSize = transcriptBytes.byteLength;
    await mkdir(join(root, attemptId), { recursive: true });
    await writeFile(join(root, attemptId, 'transcript.jsonl'), transcriptBytes);
    await writeFile(join(dir, 'art.json'), JSON.stringify(raw));
    const ok = await ingest({ inputs: [join(dir, 'art.json')], storeUrl, artifactRoot: root });
    expect(ok.inserted).toBe(1);
    const store = await openStore(storeUrl);
    const stored = await store.getAttempt({
      runId: 'run_synthetic',
      caseId: 'case_synthetic',
      configId: 'config_synthetic',
      attemptId,
    });
    await store.close();
    expect(stored?.record.references.map((ref) => [ref.role, ref.verification])).toEqual([
      ['transcript', 'verified'],
      ['artifact', 'unverified'],
    ]);

    await writeFile(join(root, attemptId, 'summary.json'), 'not the summary');
    const raw2 = { ...raw, identity: { ...(raw.identity as object), attemptId: 'attempt_art2' } };
    await writeFile(join(dir, 'art2.json'), JSON.stringify(raw2));
    const mismatched = await ingest({ inputs: [join(dir, 'art2.json')], storeUrl, artifactRoot: root });
    expect(mismatched.inserted).toBe(0);
    expect(mismatched.invalid[0]?.issues.map((issue) => [issue.code, issue.path])).toEqual([
      ['artifact_digest_mismatch', '/artifacts/0/sha256'],
    ]);
  });
});

describe('SqliteStore', () => {
  it('writes a batch atomically: a failure mid-batch leaves nothing', async () => {
    const store = SqliteStore.open(dbPath);
    const record = (attemptId: string) =>
      convertBundle(parseNativeExecution(JSON.stringify(syntheticAttempt({ attemptId }))));
    const broken = record('attempt_broken');
    const badRecord = { ...broken, scores: [...broken.scores, ...broken.scores] }; // (attempt, check) primary key violated
    await expect(store.insertBatch([record('attempt_a'), record('attempt_b'), badRecord])).rejects.toThrow(
      /UNIQUE|constraint/,
    );
    expect(await store.countAttempts()).toBe(0);
    expect(await store.getBundle(record('attempt_a').bundleDigest)).toBeNull();
    const outcomes = await store.insertBatch([record('attempt_a'), record('attempt_a')]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['inserted', 'duplicate']);
    expect(store.integrityCheck()).toEqual(['ok']);
    await store.close();
  });

  it('is append-only: UPDATE and DELETE are refused by the database itself', async () => {
    const store = SqliteStore.open(dbPath);
    await store.insertBatch([convertBundle(parseNativeExecution(JSON.stringify(syntheticAttempt())))]);
    await store.close();
    const db = new Database(dbPath);
    expect(() => db.prepare("UPDATE attempts SET provenance = 'live'").run()).toThrow(/append-only/);
    expect(() => db.prepare('DELETE FROM scores').run()).toThrow(/append-only/);
    expect(() => db.prepare('DELETE FROM bundles').run()).toThrow(/append-only/);
    db.close();
  });

  it('streams attempts back in insertion order', async () => {
    const input = await bundles(3);
    await ingest({ inputs: [input], storeUrl });
    const store = await openStore(storeUrl);
    const ids: string[] = [];
    for await (const attempt of store.attempts()) ids.push(attempt.key.attemptId);
    await store.close();
    expect(ids).toEqual(['attempt_00000', 'attempt_00001', 'attempt_00002']);
  });
});
