// `evals retract` and `evals runs`. Retract takes its time and its default author here, at the CLI
// edge (the library takes both as data), appends the retraction in one transaction and says what it
// covered; runs lists the store's runs with their counts. Both read an existing store only.
import { userInfo } from 'node:os';
import { checkRetractionRequest, displayUsd, retractionText } from '@paperclip-evals/evalbook';

import type { RetractionOutcome, RunCounts } from '@paperclip-evals/evalbook';

import { EXIT, usageError } from '../exit-codes.js';
import { RETRACTION_REPORT_V1, RUNS_V1 } from '../output-schemas.js';
import { padShown, printJson, printLines, shownWidth } from '../print.js';

import type { Outcome } from '../exit-codes.js';

/** `evals retract --json` (schemas/evals/retraction-report-v1.schema.json). */
export interface RetractionReport {
  readonly schema: typeof RETRACTION_REPORT_V1;
  readonly exitCode: typeof EXIT.ok;
  /** The store as displayLocator shows it (a password masked). */
  readonly store: string;
  readonly outcomes: readonly RetractionOutcome[];
}

/** `evals runs --json` (schemas/evals/runs-v1.schema.json). */
export interface RunsReport {
  readonly schema: typeof RUNS_V1;
  readonly store: string;
  readonly runs: readonly RunCounts[];
}

export interface RetractCommandOptions {
  readonly run?: string;
  readonly attempts: readonly string[];
  readonly reason?: string;
  readonly by?: string;
  readonly store?: string;
  readonly env?: string;
  readonly json: boolean;
}

/** Who retracts when --by is not given: this process's user, or a usage error when there is none. */
function defaultAuthor(): string {
  try {
    const name = userInfo().username;
    if (name.trim() !== '') return name;
  } catch {
    // no user entry for this uid (a container): fall through
  }
  throw usageError('cannot tell who retracts (this process has no user name): name yourself with --by NAME', {
    code: 'author_unknown',
    component: '--by',
    expected: '--by NAME, or a user name for this process',
    received: 'neither',
  });
}

export async function runRetract(options: RetractCommandOptions): Promise<Outcome> {
  if (options.run === undefined)
    throw usageError('name the run to retract: --run RUN_ID (evals runs lists them); nothing was written', {
      code: 'required_option_missing',
      component: '--run',
      expected: '--run RUN_ID',
      received: 'not given',
    });
  if (options.reason === undefined)
    throw usageError(
      'say why with --reason "…" (it is shown wherever the retraction is); nothing was written',
      {
        code: 'required_option_missing',
        component: '--reason',
        expected: '--reason TEXT',
        received: 'not given',
      },
    );
  const request = checkRetractionRequest({
    runId: options.run,
    attemptIds: options.attempts,
    reason: options.reason,
    by: options.by ?? defaultAuthor(),
    at: new Date().toISOString(),
  });
  const { withEvalbook } = await import('@paperclip-evals/app/evalbook');
  const { storeShown, outcomes } = await withEvalbook(options, 'write', async ({ store, storeShown }) => {
    return { storeShown, outcomes: await store.retract(request) };
  });
  if (options.json) {
    const report: RetractionReport = {
      schema: RETRACTION_REPORT_V1,
      exitCode: EXIT.ok,
      store: storeShown,
      outcomes,
    };
    printJson(report);
    return 'ok';
  }
  const lines = outcomes.map((outcome) => {
    const covered = `${outcome.attempts.length} attempt${outcome.attempts.length === 1 ? '' : 's'}`;
    return outcome.status === 'retracted'
      ? `retracted          ${covered}: ${retractionText(outcome.retraction)}`
      : `already retracted  ${covered} (nothing written): ${retractionText(outcome.retraction)}`;
  });
  lines.push('', 'reports, grids, comparisons and gates leave these attempts out (and say how many).');
  printLines('stdout', lines);
  return 'ok';
}

export async function runRuns(options: {
  readonly store?: string;
  readonly env?: string;
  readonly json: boolean;
}): Promise<Outcome> {
  const { withEvalbook } = await import('@paperclip-evals/app/evalbook');
  const { storeShown, runs } = await withEvalbook(options, 'read', async ({ store, storeShown }) => ({
    storeShown,
    runs: await store.runs(),
  }));
  if (options.json) {
    printJson({ schema: RUNS_V1, store: storeShown, runs } satisfies RunsReport);
    return 'ok';
  }
  if (runs.length === 0) {
    printLines('stdout', [`${storeShown}: no runs (nothing ingested yet)`]);
    return 'ok';
  }
  const header = ['run', 'attempts', 'cases', 'configs', 'foreign', 'retracted', 'spend', 'terminal states'];
  const rows = runs.map((run) => [
    run.runId,
    String(run.attempts),
    String(run.cases),
    String(run.configs),
    String(run.foreign),
    String(run.retracted),
    `${displayUsd(run.spend.observedNanodollars)}${run.spend.unpriced === 0 ? '' : ` + ${run.spend.unpriced} unpriced`}${run.spend.unsettledTries === 0 ? '' : ` (${run.spend.unsettledTries} ${run.spend.unsettledTries === 1 ? 'try' : 'tries'} started, never settled)`}`,
    run.attempts === 0
      ? 'none (no attempt in the ledger)'
      : Object.entries(run.terminalStates)
          .map(([state, n]) => `${n} ${state}`)
          .join(', '),
  ]);
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => shownWidth(row[column] ?? ''))),
  );
  const line = (cells: readonly string[]): string =>
    cells
      .map((text, column) => (column === cells.length - 1 ? text : padShown(text, widths[column] ?? 0)))
      .join('  ');
  const lines = [line(header), ...rows.map(line)];
  const retractions = runs.flatMap((run) => run.retractions);
  if (retractions.length > 0)
    lines.push('', 'retractions:', ...retractions.map((retraction) => `  ${retractionText(retraction)}`));
  // A campaign whose only tries are unsettled starts: listed, with what that means said once.
  const startsOnly = runs.filter((run) => run.attempts === 0);
  if (startsOnly.length > 0)
    lines.push(
      '',
      `no attempt yet: ${startsOnly.map((run) => run.runId).join(', ')} — only tries started and never settled (a run killed mid-session, a session the campaign killed, or another shard's try still running): their spend is unknown, and no report, grid or publication has anything of them to show.`,
    );
  lines.push(
    '',
    `${runs.length} run(s) in ${storeShown}. Foreign attempts (kept apart at ingest) count in no report, grid, comparison or gate unless --include-foreign; retracted ones count in none, ever.`,
  );
  printLines('stdout', lines);
  return 'ok';
}
