// `evals report`: the Evalbook as a report. `--format json` streams every attempt (identity,
// statuses, cost with provenance) plus coverage and budget checks, to stdout or atomically to --out;
// a one-line summary goes to stderr when the report goes to a file.
import { writeFileAtomically } from '@paperclip-evals/contract';
import {
  DEFAULT_STORE_URL,
  StoreError,
  formatUsd,
  loadEnvironment,
  openStore,
  writeJsonReport,
} from '@paperclip-evals/evalbook';

import type { ReportTotals } from '@paperclip-evals/evalbook';

import { UsageError } from '../exit-codes.js';

export interface ReportCommandOptions {
  readonly store?: string;
  readonly env?: string;
  readonly format: 'json';
  readonly out?: string;
}

const toStdout = (chunk: string): Promise<void> =>
  new Promise((resolve, reject) => {
    process.stdout.write(chunk, (error) => {
      if (error) reject(error);
      else resolve();
    });
  });

export async function runReport(options: ReportCommandOptions): Promise<number> {
  const environment = options.env === undefined ? undefined : await loadEnvironment(options.env);
  const storeUrl = options.store ?? environment?.store ?? DEFAULT_STORE_URL;
  let store;
  try {
    store = await openStore(storeUrl, { mustExist: true });
  } catch (error) {
    if (error instanceof StoreError) throw new UsageError(error.message);
    throw error;
  }
  let totals: ReportTotals | undefined;
  try {
    const report = (write: (chunk: string) => Promise<void>): Promise<void> =>
      writeJsonReport({ store, storeUrl, write, ...(environment === undefined ? {} : { environment }) }).then(
        (result) => {
          totals = result;
        },
      );
    if (options.out === undefined) await report(toStdout);
    else await writeFileAtomically(options.out, report);
  } finally {
    await store.close();
  }
  if (options.out !== undefined && totals !== undefined) {
    const over = totals.budgets.filter((budget) => budget.status === 'exceeded').length;
    process.stderr.write(
      `wrote ${options.out}: ${totals.attempts} attempts; cost: ${totals.coverage.text}, priced total ${formatUsd(totals.coverage.pricedTotalNanodollars)}${over > 0 ? `; ${over} budget(s) exceeded` : ''}\n`,
    );
  }
  return 0;
}
