// The HTML report's embedded attempts when not all fit: the budget shared fairly so every cell with
// attempts is drillable, the newest run and non-solved attempts first (embed-quotas.ts), as rules
// over any counts (property) and on the example that motivated it.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { embedQuotas, quotaKey } from '../src/report/embed-quotas.ts';
import type { CellRunCounts } from '../src/report/embed-quotas.ts';

const counts = (solved: number, unsolved: number, errored = 0) => ({
  solved,
  unsolved,
  errored,
  incomplete: 0,
  over_budget: 0,
});
const size = (tally: CellRunCounts): number => Object.values(tally.counts).reduce((sum, n) => sum + n, 0);

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
});
