// Which attempts the HTML report embeds for its drill-down when not all of them fit (HTML_MAX_ATTEMPTS):
// the budget is shared fairly among the grid's cells (max-min: a cell with few attempts takes them
// all, the rest is split evenly among the others), so every cell that has attempts has at least one
// embedded (while the budget has one per cell); within a cell the newest run comes first, and in each
// run its non-solved attempts (what a reader drills into) before its solved ones. A pure function of
// the (run, case, config) counts and the run order; report.ts then takes that many of each kind, in
// store order, in a second pass.
import type { StatusCounts } from '../analysis/summary.js';

export interface CellRunCounts {
  readonly runId: string;
  readonly caseId: string;
  readonly configId: string;
  readonly counts: StatusCounts;
}

/** How many of a (run, case, config)'s attempts to embed: not solved, and solved. */
export interface EmbedQuota {
  readonly notSolved: number;
  readonly solved: number;
}

/** The key of a (run, case, config) in the quotas. */
export const quotaKey = (runId: string, caseId: string, configId: string): string =>
  JSON.stringify([runId, caseId, configId]);

const total = (counts: StatusCounts): number => Object.values(counts).reduce((sum, n) => sum + n, 0);

/**
 * Shares `budget` attempts among the cells of `tallies` (runs ordered oldest first in `runs`); returns
 * the quota of each (run, case, config) that gets any, by quotaKey. With fewer budget slots than
 * cells, not every cell can have one: the slots go to the cells with the most attempts.
 */
export function embedQuotas(
  tallies: readonly CellRunCounts[],
  runs: readonly string[],
  budget: number,
): Map<string, EmbedQuota> {
  const order = new Map(runs.map((runId, index) => [runId, index]));
  const cells = new Map<string, CellRunCounts[]>();
  for (const tally of tallies) {
    const key = JSON.stringify([tally.caseId, tally.configId]);
    const list = cells.get(key);
    if (list === undefined) cells.set(key, [tally]);
    else list.push(tally);
  }
  const entries = [...cells]
    .map(([key, list]) => ({ key, list, demand: list.reduce((sum, tally) => sum + total(tally.counts), 0) }))
    .filter((cell) => cell.demand > 0)
    .sort((x, y) => (x.key < y.key ? -1 : x.key > y.key ? 1 : 0));
  // Max-min fair shares: the smallest demands are met whole; the rest split what remains evenly.
  const share = new Map<string, number>();
  let remaining = Math.max(0, Math.floor(budget));
  const byDemand = [...entries].sort((x, y) => x.demand - y.demand);
  byDemand.forEach((cell, index) => {
    const give = Math.min(cell.demand, Math.floor(remaining / (byDemand.length - index)));
    share.set(cell.key, give);
    remaining -= give;
  });
  // What floor() left over (fewer slots than cells still wanting one): one more each, in grid order.
  for (const cell of entries) {
    if (remaining === 0) break;
    if ((share.get(cell.key) ?? 0) < cell.demand) {
      share.set(cell.key, (share.get(cell.key) ?? 0) + 1);
      remaining--;
    }
  }
  const quotas = new Map<string, EmbedQuota>();
  for (const cell of entries) {
    let left = share.get(cell.key) ?? 0;
    const newestFirst = [...cell.list].sort(
      (x, y) => (order.get(y.runId) ?? -1) - (order.get(x.runId) ?? -1),
    );
    for (const tally of newestFirst) {
      if (left === 0) break;
      const notSolved = Math.min(left, total(tally.counts) - tally.counts.solved);
      left -= notSolved;
      const solved = Math.min(left, tally.counts.solved);
      left -= solved;
      if (notSolved + solved > 0)
        quotas.set(quotaKey(tally.runId, tally.caseId, tally.configId), { notSolved, solved });
    }
  }
  return quotas;
}
