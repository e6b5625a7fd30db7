// ingest's writeBatch, the rule "a store error for one record never loses the others", as a table:
// which failures of a batch are written again record by record (and the record the store still
// refuses reported), and which end the run (a store that cannot be used is not N refused bundles).
// The driver codes come through the stores' own mappings (sqliteFailure, the PostgreSQL store's
// SQLSTATE classes): the same errors the real databases raise, which ledger-store.test.ts provokes.
import { describe, expect, it } from 'vitest';

import { parseNativeExecution } from '@paperclip-evals/contract';

import { convertBundle } from '../src/ledger/convert.ts';
import { writeBatch } from '../src/ledger/ingest.ts';
import { postgresFailure } from '../src/ledger/postgres-store.ts';
import { sqliteFailure } from '../src/ledger/sqlite-store.ts';
import { EvalbookError, storeError } from '../src/errors.ts';
import { STORE_RECORD_REFUSED, isRecordRefusal } from '../src/ledger/store.ts';
import { syntheticAttempt } from '@paperclip-evals/test-kit/synthetic';

import type { LedgerRecord } from '../src/ledger/convert.ts';
import type { InsertOutcome, LedgerStore } from '../src/ledger/store.ts';

const record = (attemptId: string): LedgerRecord =>
  convertBundle(parseNativeExecution(JSON.stringify(syntheticAttempt({ attemptId }))));

/** A store whose insertBatch fails with `failure` for any batch holding `poisoned`, and records what it wrote. */
function storeFailing(poisoned: string, failure: () => Error): LedgerStore & { written: string[] } {
  const written: string[] = [];
  const store = {
    kind: 'fake',
    written,
    insertBatch(records: readonly LedgerRecord[]): Promise<InsertOutcome[]> {
      if (records.some((given) => given.key.attemptId === poisoned)) return Promise.reject(failure());
      written.push(...records.map((given) => given.key.attemptId));
      return Promise.resolve(
        records.map((given) => ({ status: 'inserted', key: given.key, bundleDigest: given.bundleDigest })),
      );
    },
  };
  return store as unknown as LedgerStore & { written: string[] };
}

const sqliteError = (code: string): Error =>
  sqliteFailure(
    Object.assign(new Error(`driver says ${code}`), { name: 'SqliteError', code }),
    'book.sqlite',
    'write',
  );

/** A node-postgres error with its SQLSTATE, through the PostgreSQL store's mapping. */
const postgresError = (code: string): Error =>
  postgresFailure(Object.assign(new Error(`server says ${code}`), { code }));

const REFUSALS: [string, () => Error][] = [
  ['PostgreSQL 22021 (U+0000 in text)', () => postgresError('22021')],
  ['PostgreSQL 22P05 (untranslatable character)', () => postgresError('22P05')],
  ['PostgreSQL 54000 (index row too big)', () => postgresError('54000')],
  ['PostgreSQL 23505 (unique violation)', () => postgresError('23505')],
  ['PostgreSQL P0001 (a trigger raised)', () => postgresError('P0001')],
  ['SQLITE_CONSTRAINT_TRIGGER', () => sqliteError('SQLITE_CONSTRAINT_TRIGGER')],
  ['SQLITE_CONSTRAINT_UNIQUE', () => sqliteError('SQLITE_CONSTRAINT_UNIQUE')],
  ['SQLITE_TOOBIG', () => sqliteError('SQLITE_TOOBIG')],
  ['SQLITE_MISMATCH', () => sqliteError('SQLITE_MISMATCH')],
  [
    'a store EvalbookError with store_record_refused',
    () => storeError('refused', { issues: [{ code: STORE_RECORD_REFUSED, message: 'x', path: '' }] }),
  ],
];

const STORE_WIDE: [string, () => Error][] = [
  ['PostgreSQL 08006 (connection failure)', () => postgresError('08006')],
  ['PostgreSQL 53100 (disk full)', () => postgresError('53100')],
  ['PostgreSQL 57P01 (server shut down)', () => postgresError('57P01')],
  ['PostgreSQL 42P01 (no such table)', () => postgresError('42P01')],
  ['PostgreSQL 25006 (read-only transaction)', () => postgresError('25006')],
  ['SQLITE_READONLY', () => sqliteError('SQLITE_READONLY')],
  ['SQLITE_CORRUPT', () => sqliteError('SQLITE_CORRUPT')],
  ['SQLITE_BUSY', () => sqliteError('SQLITE_BUSY')],
  ['SQLITE_FULL', () => sqliteError('SQLITE_FULL')],
  ['SQLITE_IOERR_WRITE', () => sqliteError('SQLITE_IOERR_WRITE')],
  ['a store EvalbookError without issues (the writer thread ended)', () => storeError('the thread ended')],
  [
    "store_record_refused on an EvalbookError that is not the store's",
    () =>
      new EvalbookError('paperclip_evalbook_scope_unknown', 'not a store', [
        { code: STORE_RECORD_REFUSED, message: 'x', path: '' },
      ]),
  ],
  ['a lost connection (no SQLSTATE)', () => new Error('Connection terminated unexpectedly')],
];

describe('postgresFailure', () => {
  // Every failure of the server or driver is a coded store EvalbookError (exit 2 with its issue), never a
  // raw driver error (exit 70 and a stack trace): the issue says which kind.
  const rows: [string, Error, string][] = [
    ['23505 (unique violation)', Object.assign(new Error('dup'), { code: '23505' }), STORE_RECORD_REFUSED],
    ['08006 (connection failure)', Object.assign(new Error('gone'), { code: '08006' }), 'store_unreachable'],
    [
      '57P01 (server shut down)',
      Object.assign(new Error('admin shutdown'), { code: '57P01' }),
      'store_unreachable',
    ],
    [
      'no SQLSTATE: Connection terminated',
      new Error('Connection terminated unexpectedly'),
      'store_unreachable',
    ],
    [
      'no SQLSTATE: ECONNREFUSED',
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' }),
      'store_unreachable',
    ],
    [
      '53100 (disk full)',
      Object.assign(new Error('could not extend file'), { code: '53100' }),
      'store_postgres_failed',
    ],
    [
      '42P01 (no such table)',
      Object.assign(new Error('relation does not exist'), { code: '42P01' }),
      'store_postgres_failed',
    ],
    ['something not an Error', 'a string' as unknown as Error, 'store_postgres_failed'],
  ];
  it.each(rows)('%s is a store EvalbookError with issue %s', (_, error, code) => {
    const failure = postgresFailure(error);
    expect(failure).toBeInstanceOf(EvalbookError);
    expect(failure.code).toBe('paperclip_evalbook_store_unusable');
    expect(failure.issues.map((issue) => issue.code)).toEqual([code]);
    expect(failure.cause).toBe(error);
  });

  it('keeps a store EvalbookError as it is', () => {
    const error = storeError('already coded');
    expect(postgresFailure(error)).toBe(error);
  });
});

describe('writeBatch', () => {
  const batch = ['a', 'b', 'poison', 'c'].map(record);

  it.each(REFUSALS)(
    'writes the others again one by one and reports the refused one (%s)',
    async (_, failure) => {
      expect(isRecordRefusal(failure())).toBe(true);
      const store = storeFailing('poison', failure);
      const outcomes = await writeBatch(store, batch);
      expect(outcomes.map((outcome) => outcome.status)).toEqual([
        'inserted',
        'inserted',
        'store_refused',
        'inserted',
      ]);
      expect(store.written).toEqual(['a', 'b', 'c']);
    },
  );

  it.each(STORE_WIDE)(
    'ends the run on a store that cannot be used, writing nothing more (%s)',
    async (_, failure) => {
      expect(isRecordRefusal(failure())).toBe(false);
      const store = storeFailing('poison', failure);
      await expect(writeBatch(store, batch)).rejects.toBeDefined();
      expect(store.written).toEqual([]);
    },
  );

  it.each(STORE_WIDE)(
    'ends the run when a record written alone meets a store that cannot be used (%s)',
    async (_, failure) => {
      // The batch is refused for a record; written alone, that record then meets the broken store.
      const store = storeFailing('poison', REFUSALS[0]![1]);
      const insert = store.insertBatch.bind(store);
      store.insertBatch = (records) =>
        records.length === 1 && records[0]?.key.attemptId === 'poison'
          ? Promise.reject(failure())
          : insert(records);
      await expect(writeBatch(store, batch)).rejects.toBeDefined();
      expect(store.written).toEqual(['a', 'b']);
    },
  );

  it('reports a batch of one refused record without writing it twice', async () => {
    const store = storeFailing('poison', REFUSALS[0]![1]);
    expect((await writeBatch(store, [record('poison')])).map((outcome) => outcome.status)).toEqual([
      'store_refused',
    ]);
    expect(store.written).toEqual([]);
  });
});
