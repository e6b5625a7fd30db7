// The store factory: opens a ledger store by URL (`sqlite:PATH` or `postgres://…`), masking any
// secret in what it says, and the SQLite target checks writers make before any work. It imports the
// stores lazily; they import the interface and its row helpers (store.ts, store-rows.ts), never
// this file.
import { existsSync } from 'node:fs';
import { rm, rmdir } from 'node:fs/promises';
import { dirname, isAbsolute, resolve } from 'node:path';
import {
  displayLocator,
  isContractError,
  maskSecrets,
  maskSecretsIn,
  secretsIn,
} from '@paperclip-evals/contract';
import { outputTarget } from '@paperclip-evals/node';

import { EvalbookError, isEvalbookError, storeError } from '../errors.js';

import type { LedgerStore } from './store.js';

export const DEFAULT_STORE_URL = 'sqlite:.evalbook/evalbook.sqlite';

/**
 * Where the store's URL came from, for what a failure says about it: a flag (`--store`), an
 * environment file's `store:` (a relative path in it is read from the working folder), or the default.
 */
export type StoreSource =
  | { readonly from: 'flag'; readonly flag: string }
  | { readonly from: 'environment'; readonly file: string }
  | { readonly from: 'default' };

export interface OpenStoreOptions {
  /** Where the URL came from (said when the store is not there); unsaid when not given. */
  readonly source?: StoreSource;
  /** Refuse to create a SQLite file that is not there (readers: a typo must not look like an empty book). */
  readonly mustExist?: boolean;
  /** SQLite: write batches on a worker thread so parsing and writing overlap (needs the built package). */
  readonly writerThread?: boolean;
  /**
   * SQLite: open the file read-only (readers: report, grid, compare, runs), never migrating or
   * writing it, so a store on a read-only mount or a read-only file can be read. Implies mustExist.
   */
  readonly readOnly?: boolean;
}

/**
 * Opens a store by URL: `sqlite:PATH` (relative to the cwd) or `postgres://…` / `postgresql://…`.
 * Every failure is a store EvalbookError (paperclip_evalbook_store_unusable) whose message never
 * holds the URL's password (the URL is shown as displayLocator shows it, and any message of the
 * driver is masked), or the contract's coded refusal of a SQLite path that is not a regular file or
 * is in a missing folder.
 * A new SQLite file is created only in a folder that exists, except the default store's
 * (DEFAULT_STORE_URL), whose folder is made.
 */
export async function openStore(
  url: string = DEFAULT_STORE_URL,
  options: OpenStoreOptions = {},
): Promise<LedgerStore> {
  try {
    return await openStoreUnmasked(url, options);
  } catch (error) {
    // The contract's refusal of a path that is not a regular file keeps its code (it names a path, no secret).
    if (isContractError(error)) throw error;
    const secrets = secretsIn(url);
    const message = maskSecrets(error instanceof Error ? error.message : String(error), secrets);
    if (isEvalbookError(error))
      throw new EvalbookError(
        error.code,
        message,
        error.issues.map((issue) => maskSecretsIn(issue, secrets)),
      );
    throw storeError(`cannot open the store ${displayLocator(url)}: ${message}`);
  }
}

async function openStoreUnmasked(url: string, options: OpenStoreOptions): Promise<LedgerStore> {
  if (url.startsWith('sqlite:')) {
    const path = url.slice('sqlite:'.length);
    if (path === '') throw storeError('sqlite: store URL needs a path (sqlite:PATH)');
    if ((options.mustExist === true || options.readOnly === true) && !existsSync(path)) {
      const message = `no Evalbook at ${path}${sourceText(path, options.source)}: name an existing one with --store sqlite:PATH${options.source?.from === 'environment' ? ` (or in the store: of ${options.source.file})` : ''}, or make it first (\`evals ingest\` or \`evals run\` with this store)`;
      throw storeError(message, {
        issues: [
          {
            code: 'store_missing',
            component: path,
            expected: 'a SQLite Evalbook file (written by evals ingest or evals run)',
            received: 'nothing there',
            message,
          },
        ],
      });
    }
    const { SqliteStore } = await import('./sqlite-store.js');
    const { sqliteFailure } = await import('./sqlite-store.js');
    const access = options.readOnly === true ? 'read' : 'write';
    const driverFailure = (error: unknown): unknown =>
      error instanceof Error && error.name === 'SqliteError' ? sqliteFailure(error, path, access) : error;
    if (options.readOnly === true) return guardStore(SqliteStore.openReadOnly(path), driverFailure);
    if (options.mustExist !== true) await checkSqliteTarget(url);
    return guardStore(
      SqliteStore.open(path, {
        writerThread: options.writerThread === true,
        createsFolder: url === DEFAULT_STORE_URL,
      }),
      driverFailure,
    );
  }
  if (/^postgres(ql)?:\/\//.test(url)) {
    const { PostgresStore } = await import('./postgres-store.js');
    return PostgresStore.open(url);
  }
  const shown = displayLocator(url);
  // A bare path (book.sqlite): the scheme it lacks. Never for a text that may hold a secret (a conninfo).
  const bare = /^[^\s:=]+$/.test(url) ? ` (this file: sqlite:${url})` : '';
  const message = `unknown store URL ${JSON.stringify(shown)}: name a store as sqlite:PATH or postgres://…${bare}`;
  throw storeError(message, {
    issues: [
      {
        code: 'store_url_unknown',
        component: shown,
        expected: 'sqlite:PATH or postgres://…',
        received: shown,
        message,
      },
    ],
  });
}

/**
 * Where a SQLite path came from, as a missing store's message says it: the flag that named it, the
 * environment file whose `store:` named it (and, for a relative path, the folder it was read from —
 * the working folder, not the file's), or the default; nothing when the caller did not say.
 */
function sourceText(path: string, source: StoreSource | undefined): string {
  if (source === undefined) return '';
  if (source.from === 'flag') return ` (named by ${source.flag})`;
  if (source.from === 'default')
    return " (the default store: neither --store nor an --env file's `store` key names one)";
  const resolved = isAbsolute(path)
    ? ''
    : `; a relative path there is read from the working folder, not the file's: here ${resolve(path)}`;
  return ` (the store: of the env file ${source.file}${resolved})`;
}

/**
 * The store with every failure of a call passed through `convert` (the SQLite driver's errors become
 * store EvalbookErrors: a page found corrupt mid-report is exit 2, never a stack trace). Other errors
 * (any EvalbookError) come through as they are.
 */
export function guardStore(store: LedgerStore, convert: (error: unknown) => unknown): LedgerStore {
  const call = async <T>(run: () => Promise<T>): Promise<T> => {
    try {
      return await run();
    } catch (error) {
      throw convert(error);
    }
  };
  async function* stream<T>(items: () => AsyncIterable<T>): AsyncIterable<T> {
    try {
      yield* items();
    } catch (error) {
      throw convert(error);
    }
  }
  return {
    kind: store.kind,
    insertBatch: (records) => call(() => store.insertBatch(records)),
    getAttempt: (key) => call(() => store.getAttempt(key)),
    heldDigests: (attempts) => call(() => store.heldDigests(attempts)),
    attemptsById: (attemptId, runId) => call(() => store.attemptsById(attemptId, runId)),
    getBundle: (digest) => call(() => store.getBundle(digest)),
    getBundles: (digests) => call(() => store.getBundles(digests)),
    countAttempts: (runId) => call(() => store.countAttempts(runId)),
    attempts: (runId) => stream(() => store.attempts(runId)),
    insertPolicyVerdicts: (verdicts) => call(() => store.insertPolicyVerdicts(verdicts)),
    policyVerdicts: () => stream(() => store.policyVerdicts()),
    appendDriftRun: (run) => call(() => store.appendDriftRun(run)),
    driftWindow: (checkId, eligible) => call(() => store.driftWindow(checkId, eligible)),
    retract: (request) => call(() => store.retract(request)),
    retractions: () => call(() => store.retractions()),
    copyIn: (batch) => call(() => store.copyIn(batch)),
    recordCampaign: (input) => call(() => store.recordCampaign(input)),
    campaigns: () => call(() => store.campaigns()),
    recordTryStart: (start) => call(() => store.recordTryStart(start)),
    recordTryInterruption: (interruption) => call(() => store.recordTryInterruption(interruption)),
    campaignTries: (campaignId) => call(() => store.campaignTries(campaignId)),
    retriedTries: () => call(() => store.retriedTries()),
    runs: () => call(() => store.runs()),
    migrations: () => call(() => store.migrations()),
    close: () => call(() => store.close()),
  };
}

/**
 * Refuses (the contract's coded `paperclip_output_unwritable`, naming the user's path) a SQLite store
 * URL a writer may not open or create: a directory, device, FIFO, socket or `-` is never opened or
 * replaced, and a path in a missing folder is refused — only the default store (DEFAULT_STORE_URL)
 * makes its folder (.evalbook/), so a typo never starts a second, empty ledger. Writers call it before
 * any work (openStore calls it too); other URLs pass.
 */
export async function checkSqliteTarget(url: string): Promise<void> {
  const path = sqliteStorePath(url);
  if (path === null) return;
  await outputTarget(path, { inPlace: false, createsFolders: url === DEFAULT_STORE_URL });
}
/** The file a `sqlite:PATH` URL names (relative to the cwd), or null for another store. */
export function sqliteStorePath(url: string): string | null {
  return url.startsWith('sqlite:') && url.length > 'sqlite:'.length ? url.slice('sqlite:'.length) : null;
}

/**
 * What opening a new SQLite store at `path` would create: the folders missing above it (deepest
 * first) and the file itself — so that a run that created them and wrote nothing can remove exactly
 * those, and nothing else.
 */
export function sqliteCreations(path: string): { readonly file: string; readonly folders: string[] } {
  const file = resolve(path);
  const folders: string[] = [];
  for (let folder = dirname(file); !existsSync(folder); folder = dirname(folder)) {
    folders.push(folder);
    if (dirname(folder) === folder) break;
  }
  return { file, folders };
}

/** Removes a SQLite store this run created (its -wal/-shm files too) and the folders it created, when empty. */
export async function removeCreatedSqliteStore(creations: ReturnType<typeof sqliteCreations>): Promise<void> {
  for (const suffix of ['', '-wal', '-shm', '-journal'])
    await rm(`${creations.file}${suffix}`, { force: true });
  for (const folder of creations.folders) await rmdir(folder).catch(() => undefined);
}
