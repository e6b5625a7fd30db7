// `evals migrate`'s entry to the store: brings an existing Evalbook up to this Evals' schema with the
// store's own migrations (the ones a writer applies when it opens it), and says from which version
// to which. It never creates a SQLite store: a missing path, a file that is not an Evalbook and a
// store from the future are refused by the read-only open every reader makes, before anything is
// written. A PostgreSQL store is migrated by every open (readers' too): migrate opens it and says what
// that open applied.
import { EvalbookError, isEvalbookError } from '../errors.js';
import { openStore, sqliteStorePath } from './open-store.js';

import type { OpenStoreOptions } from './open-store.js';

/** What migrating a store did: its schema version before and after, and the migrations applied. */
export interface StoreMigration {
  /** The highest migration the store had before (0: none, a PostgreSQL database without Evalbook tables). */
  readonly from: number;
  readonly to: number;
  /** The versions applied now, ascending ([] when the store was up to date). */
  readonly applied: readonly number[];
}

const newest = (versions: readonly number[]): number => Math.max(0, ...versions);

/**
 * Applies the pending migrations of the existing store `url` names (sqlite:PATH or postgres://…).
 * Refuses, as the store's EvalbookError (paperclip_evalbook_store_unusable) with its issue code, a
 * SQLite path with nothing there (store_missing), a file that is not an Evalbook
 * (store_not_an_evalbook, store_corrupt) and a store with a migration this Evals does not know.
 */
export async function migrateStore(
  url: string,
  options: Pick<OpenStoreOptions, 'source'> = {},
): Promise<StoreMigration> {
  const path = sqliteStorePath(url);
  if (path === null) {
    // PostgreSQL: the store's open applies what is pending (under its advisory lock) and says what.
    const store = await openStore(url, options);
    try {
      const { PostgresStore } = await import('./postgres-store.js');
      const after = await store.migrations();
      const applied = store instanceof PostgresStore ? [...store.appliedAtOpen] : [];
      return {
        from: newest(after.filter((version) => !applied.includes(version))),
        to: newest(after),
        applied,
      };
    } finally {
      await store.close();
    }
  }
  const before = await sqliteVersions(url, path, options);
  const store = await openStore(url, { ...options, mustExist: true });
  try {
    const after = await store.migrations();
    return {
      from: newest(before),
      to: newest(after),
      applied: after.filter((version) => !before.includes(version)),
    };
  } finally {
    await store.close();
  }
}

/**
 * The migrations a SQLite Evalbook has, read without writing it: the read-only open refuses what is
 * not an Evalbook of this Evals' past (or present); one that needs a migration has its versions read.
 */
async function sqliteVersions(
  url: string,
  path: string,
  options: Pick<OpenStoreOptions, 'source'>,
): Promise<number[]> {
  try {
    const store = await openStore(url, { ...options, readOnly: true });
    try {
      return await store.migrations();
    } finally {
      await store.close();
    }
  } catch (error) {
    if (!isEvalbookError(error)) throw error;
    // A typo must not look like a migrated, empty ledger: say that nothing was made there.
    if (error.issues.some((issue) => issue.code === 'store_missing'))
      throw new EvalbookError(
        error.code,
        `${error.message}; migrate creates no store, nothing was written`,
        error.issues,
      );
    if (!error.issues.some((issue) => issue.code === 'store_needs_migration')) throw error;
  }
  // The driver is loaded here, not with the module: evalbook's index must not load it for every command.
  const { default: Database } = await import('better-sqlite3');
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    return db
      .prepare<[], { version: number }>('SELECT version FROM schema_migrations ORDER BY version')
      .all()
      .map((row) => row.version);
  } finally {
    db.close();
  }
}
