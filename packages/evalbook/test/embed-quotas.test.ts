// The HTML report's embedded attempts when not all fit: the budget shared fairly so every cell with
// attempts is drillable, the newest run and non-solved attempts first (embed-quotas.ts), as rules
// over any counts (property) and on the example that motivated it.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { EmbedKeys, embedQuotas, fairLevel, quotaKey } from '../src/report/embed-quotas.ts';
import type { CellRunCounts } from '../src/report/embed-quotas.ts';

const counts = (solved: number, unsolved: number, errored = 0) => ({
  solved,
  unsolved,
  errored,
  incomplete: 0,
  over_budget: 0,
});
const size = (tally: CellRunCounts): number => Object.values(tally.counts).reduce((sum, n) => sum + n, 0);

/** What the fair level keeps of a stream: per (run, case, config) and kind, at most ceil(level). */
function needed(
  stream: readonly { run: string; caseId: string; configId: string; solved: boolean }[],
  budget: number,
): number {
  const cells = new Map<string, number>();
  const buckets = new Map<string, number>();
  for (const entry of stream) {
    const cell = `${entry.caseId}/${entry.configId}`;
    cells.set(cell, (cells.get(cell) ?? 0) + 1);
    const bucket = `${entry.run}/${cell}/${String(entry.solved)}`;
    buckets.set(bucket, (buckets.get(bucket) ?? 0) + 1);
  }
  const keep = Math.ceil(fairLevel(cells.values(), budget));
  return [...buckets.values()].reduce((sum, n) => sum + Math.min(n, keep), 0);
}

describe('embedQuotas', () => {
  it('gives a small cell all of its attempts and the big one the rest, newest run and failures first', () => {
    const tallies: CellRunCounts[] = [
      { runId: 'r1', caseId: 'big', configId: 'k', counts: counts(100, 0) },
      { runId: 'r2', caseId: 'big', configId: 'k', counts: counts(3, 2) },
      { runId: 'r1', caseId: 'small', configId: 'k', counts: counts(1, 1) },
    ];
    const quotas = embedQuotas(tallies, ['r1', 'r2'], 10);
    expect(quotas.get(quotaKey('r1', 'small', 'k'))).toEqual({ notSolved: 1, solved: 1 });
    expect(quotas.get(quotaKey('r2', 'big', 'k'))).toEqual({ notSolved: 2, solved: 3 });
    expect(quotas.get(quotaKey('r1', 'big', 'k'))).toEqual({ notSolved: 0, solved: 3 });
  });

  const tally = fc.record({
    runId: fc.constantFrom('r0', 'r1', 'r2'),
    caseId: fc.constantFrom('a', 'b', 'c', 'd', 'e'),
    configId: fc.constantFrom('x', 'y'),
    counts: fc.record({
      solved: fc.nat(6),
      unsolved: fc.nat(6),
      errored: fc.nat(2),
      incomplete: fc.nat(2),
      over_budget: fc.nat(1),
    }),
  });
  // One tally per (run, case, config), as the summary has them.
  const tallies = fc.uniqueArray(tally, {
    selector: (entry) => quotaKey(entry.runId, entry.caseId, entry.configId),
    maxLength: 30,
  });

  it('holds the sharing rules for any counts and budget (property)', () => {
    fc.assert(
      fc.property(tallies, fc.nat(80), (list, budget) => {
        const runs = ['r0', 'r1', 'r2'];
        const quotas = embedQuotas(list, runs, budget);
        const all = list.reduce((sum, entry) => sum + size(entry), 0);
        const given = [...quotas.values()].reduce((sum, quota) => sum + quota.notSolved + quota.solved, 0);
        // never more than the budget or than there is; all of the budget when there is enough
        expect(given).toBe(Math.min(budget, all));
        const cells = new Map<string, CellRunCounts[]>();
        for (const entry of list) {
          const key = `${entry.caseId}/${entry.configId}`;
          cells.set(key, [...(cells.get(key) ?? []), entry]);
        }
        const nonEmpty = [...cells.values()].filter((cell) => cell.some((entry) => size(entry) > 0));
        const shareOf = (cell: CellRunCounts[]): number =>
          cell.reduce((sum, entry) => {
            const quota = quotas.get(quotaKey(entry.runId, entry.caseId, entry.configId));
            return sum + (quota === undefined ? 0 : quota.notSolved + quota.solved);
          }, 0);
        for (const cell of nonEmpty) {
          // every cell with attempts is drillable while the budget has one per cell
          if (budget >= nonEmpty.length) expect(shareOf(cell)).toBeGreaterThan(0);
          const newestFirst = [...cell].sort((x, y) => runs.indexOf(y.runId) - runs.indexOf(x.runId));
          let olderTaken = false;
          for (const entry of [...newestFirst].reverse()) {
            const quota = quotas.get(quotaKey(entry.runId, entry.caseId, entry.configId)) ?? {
              notSolved: 0,
              solved: 0,
            };
            expect(quota.notSolved).toBeLessThanOrEqual(size(entry) - entry.counts.solved);
            expect(quota.solved).toBeLessThanOrEqual(entry.counts.solved);
            // a solved attempt only once every non-solved one of its run is in
            if (quota.solved > 0) expect(quota.notSolved).toBe(size(entry) - entry.counts.solved);
            // a newer run is taken whole before anything of an older one
            if (olderTaken) expect(quota.notSolved + quota.solved).toBe(size(entry));
            if (quota.notSolved + quota.solved > 0) olderTaken = true;
          }
        }
        // fair: a cell short of its demand has at least as many as any other cell, less one
        const shares = nonEmpty.map((cell) => ({
          got: shareOf(cell),
          demand: cell.reduce((sum, entry) => sum + size(entry), 0),
        }));
        for (const short of shares.filter((entry) => entry.got < entry.demand))
          for (const other of shares) expect(short.got).toBeGreaterThanOrEqual(other.got - 1);
      }),
      { numRuns: 300 },
    );
  });

  it('fairLevel: Σ min(demand, level) is the budget, or every demand fits', () => {
    fc.assert(
      fc.property(fc.array(fc.nat(50), { maxLength: 20 }), fc.nat(200), (demands, budget) => {
        const level = fairLevel(demands, budget);
        const total = demands.reduce((sum, demand) => sum + demand, 0);
        if (total <= budget) expect(level).toBe(Infinity);
        else expect(demands.reduce((sum, demand) => sum + Math.min(demand, level), 0)).toBeCloseTo(budget);
      }),
    );
  });

  it('EmbedKeys holds a bounded number of keys, yet yields exactly the first attempts the quotas choose (property)', () => {
    const item = fc.record({
      run: fc.constantFrom('r0', 'r1', 'r2'),
      caseId: fc.constantFrom('a', 'b', 'c', 'd'),
      configId: fc.constantFrom('x', 'y'),
      solved: fc.boolean(),
    });
    fc.assert(
      fc.property(fc.array(item, { maxLength: 400 }), fc.integer({ min: 1, max: 20 }), (stream, budget) => {
        const keys = new EmbedKeys<number>(budget);
        const tallies = new Map<string, CellRunCounts>();
        stream.forEach((entry, index) => {
          keys.add(entry.run, entry.caseId, entry.configId, entry.solved, index);
          // never more than the bound, or twice what the fair level needs of the attempts so far
          expect(keys.size).toBeLessThanOrEqual(
            Math.max(keys.bound, 2 * needed(stream.slice(0, index + 1), budget)),
          );
          const id = quotaKey(entry.run, entry.caseId, entry.configId);
          const tally = tallies.get(id) ?? {
            runId: entry.run,
            caseId: entry.caseId,
            configId: entry.configId,
            counts: counts(0, 0),
          };
          const next = entry.solved
            ? { ...tally, counts: { ...tally.counts, solved: tally.counts.solved + 1 } }
            : { ...tally, counts: { ...tally.counts, unsolved: tally.counts.unsolved + 1 } };
          tallies.set(id, next);
        });
        const quotas = embedQuotas([...tallies.values()], ['r0', 'r1', 'r2'], budget);
        // the reference: each (run, case, config)'s first attempts of each kind, in stream order
        const expected: number[] = [];
        for (const [id, quota] of quotas) {
          const ofBucket = stream
            .map((entry, index) => ({ entry, index }))
            .filter(({ entry }) => quotaKey(entry.run, entry.caseId, entry.configId) === id);
          expected.push(
            ...ofBucket
              .filter(({ entry }) => !entry.solved)
              .slice(0, quota.notSolved)
              .map(({ index }) => index),
            ...ofBucket
              .filter(({ entry }) => entry.solved)
              .slice(0, quota.solved)
              .map(({ index }) => index),
          );
        }
        expect(keys.chosen(quotas)).toEqual(expected);
      }),
      { numRuns: 200 },
    );
  });
});
