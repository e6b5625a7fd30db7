// `evals migrate`: brings an Evalbook an older Evals wrote up to this one's schema, so that readers
// (report, grid, compare, runs, publish) can open it, without ingesting anything. It applies the
// store's own migrations (app's migrateEvalbook → evalbook's migrateStore), never creates a store,
// and says from which version to which.
import { EXIT } from '../exit-codes.js';
import { MIGRATE_V1 } from '../output-schemas.js';
import { printJson, printLines } from '../print.js';

import type { Outcome } from '../exit-codes.js';

/** `evals migrate --json` (schemas/evals/migrate-v1.schema.json). */
export interface MigrateReport {
  readonly schema: typeof MIGRATE_V1;
  readonly exitCode: typeof EXIT.ok;
  /** The store as displayLocator shows it (a password masked). */
  readonly store: string;
  readonly status: 'migrated' | 'up_to_date';
  readonly from: number;
  readonly to: number;
  readonly applied: readonly number[];
}

export async function runMigrate(options: {
  readonly store?: string;
  readonly env?: string;
  readonly json: boolean;
}): Promise<Outcome> {
  const { migrateEvalbook } = await import('@paperclip-evals/app/evalbook');
  const { storeShown, from, to, applied } = await migrateEvalbook(options);
  const status = applied.length === 0 ? 'up_to_date' : 'migrated';
  if (options.json) {
    printJson({
      schema: MIGRATE_V1,
      exitCode: EXIT.ok,
      store: storeShown,
      status,
      from,
      to,
      applied,
    } satisfies MigrateReport);
    return 'ok';
  }
  const count = `${applied.length} migration${applied.length === 1 ? '' : 's'}`;
  printLines('stdout', [
    status === 'migrated'
      ? `migrated ${storeShown} from version ${from} to ${to} (${count}: ${applied.join(', ')})`
      : `${storeShown} is already at version ${to}: nothing to do`,
  ]);
  return 'ok';
}
