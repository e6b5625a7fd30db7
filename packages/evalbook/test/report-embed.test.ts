// `writeReport --format html` on more attempts than the page embeds (HTML_MAX_ATTEMPTS): every cell
// with attempts keeps at least one for its drill-down (a huge cell streamed first no longer takes
// the whole budget), a small cell keeps all of its own, the newest run's non-solved attempts come
// first, and only the chosen attempts are read again (by key), never the whole store twice.
import { describe, expect, it } from 'vitest';

import { HTML_MAX_ATTEMPTS } from '../src/report/model.ts';
import { writeReport } from '../src/report/report.ts';
import type { AttemptKey } from '../src/ledger/convert.ts';
import type { LedgerStore, StoredAttempt } from '../src/ledger/store.ts';
import { storedAttempt } from './support/stored-attempts.ts';
import type { Outcome } from './support/stored-attempts.ts';

const templates = new Map<Outcome, StoredAttempt>();
function make(
  runId: string,
  caseId: string,
  configId: string,
  attemptId: string,
  outcome: Outcome,
  minute: number,
) {
  let template = templates.get(outcome);
  if (template === undefined) templates.set(outcome, (template = storedAttempt('r', 'c', 'k', 'a', outcome)));
  return {
    ...template,
    key: { runId, caseId, configId, attemptId },
    record: { ...template.record, startedAt: new Date(Date.UTC(2026, 10, 1, 0, minute)).toISOString() },
  };
}

const keyText = (key: AttemptKey): string =>
  JSON.stringify([key.runId, key.caseId, key.configId, key.attemptId]);

/** A store over the given attempts that counts how often they are streamed and read by key. */
function storeOf(attempts: readonly StoredAttempt[]) {
  const byKey = new Map(attempts.map((stored) => [keyText(stored.key), stored]));
  const reads = { passes: 0, byKey: 0 };
  const store = {
    attempts: async function* () {
      reads.passes++;
      for (const stored of attempts) yield await Promise.resolve(stored);
    },
    getAttempt: (key: AttemptKey) => {
      reads.byKey++;
      return Promise.resolve(byKey.get(keyText(key)) ?? null);
    },
    getBundle: () => Promise.resolve(null),
    policyVerdicts: async function* () {
      // none stored
    },
    retractions: () => Promise.resolve([]),
    retriedTries: () => Promise.resolve([]),
  } as unknown as LedgerStore;
  return { store, reads };
}

interface Embedded {
  runId: string;
  caseId: string;
  configId: string;
  attemptId: string;
  status: string;
}

async function embedded(store: LedgerStore): Promise<Embedded[]> {
  let html = '';
  await writeReport({
    store,
    storeUrl: 'memory',
    format: 'html',
    write: (chunk) => {
      html += chunk;
      return Promise.resolve();
    },
  });
  const data = /<script type="application\/json" id="report-data">(.*?)<\/script>/s.exec(html)?.[1];
  return (JSON.parse(data ?? 'null') as { attempts: Embedded[] }).attempts;
}

describe('the HTML report’s embedded attempts, when not all fit', () => {
  // Streamed first: one huge cell of an old run, more attempts than the page embeds.
  const big = Array.from({ length: HTML_MAX_ATTEMPTS + 500 }, (_, n) =>
    make('run_old', 'case_big', 'k', `big-${n}`, 'solved', 0),
  );
  // Then the newest run: the big cell's 3 attempts (2 unsolved), and two small cells.
  const newest = [
    make('run_new', 'case_big', 'k', 'new-0', 'solved', 10),
    make('run_new', 'case_big', 'k', 'new-1', 'unsolved', 10),
    make('run_new', 'case_big', 'k', 'new-2', 'unsolved', 10),
    make('run_new', 'case_small', 'k', 'small-0', 'unsolved', 11),
    make('run_new', 'case_small', 'k', 'small-1', 'solved', 11),
    make('run_new', 'case_tiny', 'k', 'tiny-0', 'errored', 12),
  ];

  it('gives every cell its share, the small ones all of theirs, the newest run and non-solved first', async () => {
    const { store, reads } = storeOf([...big, ...newest]);
    const attempts = await embedded(store);
    expect(attempts).toHaveLength(HTML_MAX_ATTEMPTS);
    const of = (caseId: string) => attempts.filter((attempt) => attempt.caseId === caseId);
    expect(
      of('case_small')
        .map((attempt) => attempt.attemptId)
        .sort(),
    ).toEqual(['small-0', 'small-1']);
    expect(of('case_tiny').map((attempt) => attempt.attemptId)).toEqual(['tiny-0']);
    const bigCell = of('case_big');
    expect(bigCell).toHaveLength(HTML_MAX_ATTEMPTS - 3);
    // every attempt of the big cell's newest run is in, its unsolved ones first
    expect(bigCell.slice(0, 3).map((attempt) => attempt.attemptId)).toEqual(['new-1', 'new-2', 'new-0']);
    // the first attempts (those the page carries replays of) reach every cell first
    expect(new Set(attempts.slice(0, 3).map((attempt) => attempt.caseId))).toEqual(
      new Set(['case_big', 'case_small', 'case_tiny']),
    );
    // one pass over the store, and only the chosen attempts read again
    expect(reads).toEqual({ passes: 1, byKey: HTML_MAX_ATTEMPTS });
  });

  it('embeds every attempt, without reading any again, when they fit', async () => {
    const { store, reads } = storeOf(newest);
    const attempts = await embedded(store);
    // every one, cell by cell in turn (grid order), each cell's non-solved first
    expect(attempts.map((attempt) => attempt.attemptId)).toEqual([
      'new-1',
      'small-0',
      'tiny-0',
      'new-2',
      'small-1',
      'new-0',
    ]);
    expect(reads).toEqual({ passes: 1, byKey: 0 });
  });
});
