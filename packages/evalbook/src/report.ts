// The Evalbook JSON report (paperclip-evals/report/v1): every attempt with its identity, statuses and
// cost with provenance, then cost coverage overall, per run and per (run, config), and the budget
// checks. Streamed: attempts are written as the store yields them; only per-group tallies are held.
import type { LedgerRecord } from './convert.js';
import { CoverageTally, checkBudget } from './cost.js';
import type { BudgetCheck, CoverageSummary } from './cost.js';
import type { Environment } from './environment.js';
import type { LedgerStore, StoredAttempt } from './store.js';

export const REPORT_V1 = 'paperclip-evals/report/v1';

export interface ReportOptions {
  readonly store: LedgerStore;
  /** How the store was named (shown in the report). */
  readonly storeUrl: string;
  /** Supplies the budgets; without it no budget is checked. */
  readonly environment?: Environment;
  /** Receives the report text in order; awaited, so a slow file or pipe holds the reader back. */
  readonly write: (chunk: string) => Promise<void>;
}

export interface ReportBudget extends BudgetCheck {
  readonly scope: 'run' | 'config';
  readonly runId: string;
  readonly configId: string | null;
}

export interface ReportTotals {
  readonly attempts: number;
  readonly coverage: CoverageSummary;
  readonly budgets: readonly ReportBudget[];
}

/** One attempt as the report lists it: what a reader needs to trust or question the row. */
export function reportAttempt(stored: StoredAttempt): Record<string, unknown> {
  const record: Omit<LedgerRecord, 'rawCanonical' | 'scores'> = stored.record;
  return {
    ...stored.key,
    bundleDigest: stored.bundleDigest,
    provenance: record.provenance,
    runner: {
      package: `${record.runner.packageName}@${record.runner.packageVersion}`,
      driver: `${record.runner.driverKind}@${record.runner.driverVersion}`,
    },
    terminal: record.terminal,
    failure: record.failure,
    transcript: record.transcript,
    toolCalls: record.toolCalls.length,
    denials: record.denials,
    usage: record.usage,
    cost: record.cost,
    environmentMismatch: record.environmentMismatch,
    checks: stored.scores.map((score) => ({
      checkId: score.checkId,
      status: score.status,
      reason: score.reason,
    })),
  };
}

/** Flushes buffered attempt lines every this many attempts. */
const CHUNK_ATTEMPTS = 200;

/** Writes the report; returns its totals (for a summary line). */
export async function writeJsonReport(options: ReportOptions): Promise<ReportTotals> {
  const overall = new CoverageTally();
  const byRun = new Map<string, CoverageTally>();
  const byRunConfig = new Map<string, { runId: string; configId: string; tally: CoverageTally }>();
  const tallyOf = <T>(map: Map<string, T>, key: string, create: () => T): T => {
    let found = map.get(key);
    if (found === undefined) map.set(key, (found = create()));
    return found;
  };

  await options.write(
    `{\n"schema": ${JSON.stringify(REPORT_V1)},\n"store": ${JSON.stringify(options.storeUrl)},\n"attempts": [`,
  );
  let count = 0;
  let buffer = '';
  for await (const stored of options.store.attempts()) {
    const { runId, configId } = stored.key;
    const cost = stored.record.cost;
    overall.add(cost);
    tallyOf(byRun, runId, () => new CoverageTally()).add(cost);
    tallyOf(byRunConfig, JSON.stringify([runId, configId]), () => ({
      runId,
      configId,
      tally: new CoverageTally(),
    })).tally.add(cost);
    buffer += `${count === 0 ? '' : ','}\n${JSON.stringify(reportAttempt(stored))}`;
    if (++count % CHUNK_ATTEMPTS === 0) {
      await options.write(buffer);
      buffer = '';
    }
  }
  const budgets: ReportBudget[] = [];
  const limits = options.environment?.budgets;
  if (limits?.perRunUsd !== undefined)
    for (const [runId, tally] of byRun)
      budgets.push({
        scope: 'run',
        runId,
        configId: null,
        ...checkBudget(limits.perRunUsd, tally.summary()),
      });
  if (limits?.perConfigUsd !== undefined)
    for (const { runId, configId, tally } of byRunConfig.values())
      budgets.push({
        scope: 'config',
        runId,
        configId,
        ...checkBudget(limits.perConfigUsd, tally.summary()),
      });
  const coverage = overall.summary();
  const tail = {
    coverage,
    coverageByRun: Object.fromEntries([...byRun].map(([runId, tally]) => [runId, tally.summary()])),
    coverageByConfig: [...byRunConfig.values()].map(({ runId, configId, tally }) => ({
      runId,
      configId,
      ...tally.summary(),
    })),
    budgets,
  };
  const fields = Object.entries(tail)
    .map(([name, value]) => `${JSON.stringify(name)}: ${JSON.stringify(value, null, 2)}`)
    .join(',\n');
  await options.write(`${buffer}\n],\n"attemptCount": ${count},\n${fields}\n}\n`);
  return { attempts: count, coverage, budgets };
}
