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

/**
 * The fair-share level of `budget` over cells wanting `demands` attempts: the L with
 * Σ min(demand, L) = budget (Infinity when every demand fits). More attempts or more cells only
 * lower it, and no cell's final share exceeds it: so, while streaming, a (run, case, config)
 * never needs more of its first attempts of a kind than the level now.
 */
export function fairLevel(demands: Iterable<number>, budget: number): number {
  const sorted = [...demands].filter((demand) => demand > 0).sort((x, y) => x - y);
  let remaining = budget;
  for (let index = 0; index < sorted.length; index++) {
    const demand = sorted[index] ?? 0;
    const left = sorted.length - index;
    if (demand * left > remaining) return remaining / left;
    remaining -= demand;
  }
  return Infinity;
}

/**
 * The keys of the attempts the page may embed, gathered in the report's one pass over the store:
 * per (run, case, config) its first non-solved and first solved attempts, never more of either than
 * the current fair level (fairLevel), trimmed when more than `bound` are held. Then
 * `chosen` takes each one's quota (embedQuotas) of them, and only those are read again, by key.
 */
export class EmbedKeys<K> {
  private readonly buckets = new Map<string, { notSolved: K[]; solved: K[] }>();
  private readonly demands = new Map<string, number>();
  private held = 0;
  private level = Infinity;
  /** Held keys past which the next trim runs: at least `bound`, and twice what the last trim kept. */
  private nextTrim = 0;

  constructor(private readonly budget: number) {}

  add(runId: string, caseId: string, configId: string, solved: boolean, key: K): void {
    const cell = JSON.stringify([caseId, configId]);
    this.demands.set(cell, (this.demands.get(cell) ?? 0) + 1);
    const id = quotaKey(runId, caseId, configId);
    let bucket = this.buckets.get(id);
    if (bucket === undefined) this.buckets.set(id, (bucket = { notSolved: [], solved: [] }));
    const list = solved ? bucket.solved : bucket.notSolved;
    if (list.length >= Math.ceil(this.level)) return;
    list.push(key);
    // Trimmed past a few budgets' worth (a bucket keeps at least one of each kind: a level below 1
    // still leaves each bucket one, so the bound counts the buckets too).
    if (++this.held > Math.max(this.bound, this.nextTrim)) this.trim();
  }

  private trim(): void {
    this.level = fairLevel(this.demands.values(), this.budget);
    const keep = Math.ceil(this.level);
    this.held = 0;
    for (const bucket of this.buckets.values()) {
      bucket.notSolved.length = Math.min(bucket.notSolved.length, keep);
      bucket.solved.length = Math.min(bucket.solved.length, keep);
      this.held += bucket.notSolved.length + bucket.solved.length;
    }
    // What the level keeps may still pass the bound (many small buckets): trim again only once it
    // has doubled, so trimming stays linear in the attempts read.
    this.nextTrim = 2 * this.held;
  }

  /** How many keys are held. */
  get size(): number {
    return this.held;
  }

  /** Keys held before a trim is considered: 4 budgets and two per (run, case, config). */
  get bound(): number {
    return 4 * this.budget + 2 * this.buckets.size;
  }

  /** The keys `quotas` choose, bucket by bucket. */
  chosen(quotas: ReadonlyMap<string, EmbedQuota>): K[] {
    const keys: K[] = [];
    for (const [id, quota] of quotas) {
      const bucket = this.buckets.get(id);
      if (bucket === undefined) continue;
      keys.push(...bucket.notSolved.slice(0, quota.notSolved), ...bucket.solved.slice(0, quota.solved));
    }
    return keys;
  }
}

/**
 * `items` cell by cell in turn: each cell's newest run first and, in a run, its non-solved attempts
 * first (otherwise store order); then the first of every cell, the second of every cell, and so on
 * (cells in grid order). So a prefix of the list (the replays a page carries) spreads over the cells.
 */
export function fairOrder<T>(
  items: readonly T[],
  runs: readonly string[],
  keyOf: (item: T) => { runId: string; caseId: string; configId: string; solved: boolean },
): T[] {
  const order = new Map(runs.map((runId, index) => [runId, index]));
  const cells = new Map<string, { item: T; at: number; run: number; solved: boolean }[]>();
  items.forEach((item, at) => {
    const key = keyOf(item);
    const cell = JSON.stringify([key.caseId, key.configId]);
    const entry = { item, at, run: order.get(key.runId) ?? -1, solved: key.solved };
    const list = cells.get(cell);
    if (list === undefined) cells.set(cell, [entry]);
    else list.push(entry);
  });
  const ranked = [...cells]
    .sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0))
    .map(([, list]) =>
      list.sort((x, y) => y.run - x.run || Number(x.solved) - Number(y.solved) || x.at - y.at),
    );
  const result: T[] = [];
  for (let rank = 0; result.length < items.length; rank++)
    for (const list of ranked) {
      const entry = list[rank];
      if (entry !== undefined) result.push(entry.item);
    }
  return result;
}
