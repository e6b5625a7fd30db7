// `evals report`, `evals grid` and `evals compare`: the Evalbook's numbers. The report streams the
// store once and renders JSON, Markdown, JUnit or HTML (to stdout or to --out: atomically for a
// file, in place for a device or FIFO, never replacing what is there); grid and compare print the
// cases × configs table and a paired comparison for a person (or --json for machines). Report and
// compare judge the same --fail-on gates, every one, each verdict on stderr. Each leaves retracted
// attempts out, and foreign ones unless --include-foreign, and says how many.
import { realpath } from 'node:fs/promises';
import { outputTarget, STDOUT_PATH, writeOutputFile } from '@paperclip-evals/contract';
import {
  DEFAULT_STORE_URL,
  artifactCountsText,
  assertGatesJudgeable,
  decideGates,
  driftThresholdsOf,
  formatUsd,
  isEvalbookError,
  leftOutText,
  loadEnvironment,
  openStore,
  summariseStore,
  withExpectedChecks,
  writeReport,
} from '@paperclip-evals/evalbook';

import type {
  Comparison,
  CompareSpec,
  Environment,
  EvalbookSummary,
  FailOn,
  GateVerdicts,
  LedgerStore,
  ReportFormat,
  ReportResult,
} from '@paperclip-evals/evalbook';

import { EXIT, UsageError } from '../exit-codes.js';
import {
  clearProgress,
  drawProgress,
  padShown,
  painted,
  printJson,
  printLines,
  shownWidth,
} from '../print.js';

import type { Line, Painted } from '../print.js';

/** `evals grid --json`: the grid, or (on a failure) {schema, exitCode, error}. */
export const GRID_REPORT_V1 = 'paperclip-evals/grid/v1';
/** `evals compare --json`: the comparison, or (on a failure) {schema, exitCode, error}. */
export const COMPARE_REPORT_V1 = 'paperclip-evals/compare/v1';

/** `evals grid --json` (schemas/evals/grid-v1.schema.json): the summary's grid and what it left out. */
export type GridReport = { readonly schema: typeof GRID_REPORT_V1 } & Pick<
  EvalbookSummary,
  | 'denominatorPolicy'
  | 'cases'
  | 'configs'
  | 'artifactVerification'
  | 'grid'
  | 'leftOut'
  | 'includeForeign'
  | 'foreignIncluded'
  | 'retractions'
>;

/** `evals compare --json` (schemas/evals/compare-v1.schema.json): the comparison, what it left out, the gates. */
export type CompareReport = { readonly schema: typeof COMPARE_REPORT_V1 } & Comparison &
  Pick<EvalbookSummary, 'leftOut' | 'includeForeign' | 'retractions' | 'artifactVerification'> & {
    readonly gate: GateVerdicts | null;
  };

export interface StoreCommandOptions {
  readonly store?: string;
  readonly env?: string;
  readonly run?: string;
  /** Count attempts kept apart as foreign (--include-foreign). */
  readonly includeForeign?: boolean;
}

export interface ReportCommandOptions extends StoreCommandOptions {
  readonly format: ReportFormat;
  readonly out?: string;
  readonly compare?: CompareSpec;
  /** The --fail-on gates (every one must hold). */
  readonly failOn: readonly FailOn[];
}

export interface CompareCommandOptions extends StoreCommandOptions {
  readonly compare: CompareSpec;
  readonly json: boolean;
  readonly failOn: readonly FailOn[];
}

/** A gate that judges a comparison none is named for is a usage error, before any store is opened. */
function checkGates(failOn: readonly FailOn[], compare: CompareSpec | undefined): void {
  try {
    assertGatesJudgeable(failOn, compare);
  } catch (error) {
    if (isEvalbookError(error, 'paperclip_evalbook_scope_unknown')) throw new UsageError(error.message);
    throw error;
  }
}

/** Every gate's verdict on stderr (held ones too); the exit code: 1 when any gate failed. */
function reportGates(verdicts: GateVerdicts | null): number {
  if (verdicts === null) return EXIT.ok;
  const lines = verdicts.gates.flatMap((gate) =>
    gate.passed
      ? [`gate ${gate.failOn} held`]
      : [`gate ${gate.failOn} failed:`, ...gate.reasons.map((reason) => `  ${reason}`)],
  );
  const failed = verdicts.gates.filter((gate) => !gate.passed).length;
  if (verdicts.gates.length > 1)
    lines.push(
      failed === 0
        ? `gates: all ${verdicts.gates.length} held`
        : `gates: ${failed} of ${verdicts.gates.length} failed`,
    );
  printLines('stderr', lines);
  return verdicts.passed ? EXIT.ok : EXIT.invalid;
}

/**
 * Opens the store a command names (never creating one) with its environment: read-only unless the
 * command writes (`retract`), so a store on a read-only mount can be reported on. A store that cannot
 * be opened is the evalbook's coded EvalbookError paperclip_evalbook_store_unusable (exit 2).
 */
export async function openForReading(
  options: StoreCommandOptions,
  access: 'read' | 'write' = 'read',
): Promise<{ store: LedgerStore; storeUrl: string; environment: Environment | undefined }> {
  const environment = options.env === undefined ? undefined : await loadEnvironment(options.env);
  const storeUrl = options.store ?? environment?.store ?? DEFAULT_STORE_URL;
  const store = await openStore(storeUrl, { mustExist: true, readOnly: access === 'read' });
  return { store, storeUrl, environment };
}

/** --out must not name the SQLite file being reported on: the report would replace the ledger. */
async function refuseStoreAsOut(out: string, storeUrl: string): Promise<void> {
  if (!storeUrl.startsWith('sqlite:')) return;
  const target = await outputTarget(out);
  if (target.kind !== 'file') return;
  const storeFile = await realpath(storeUrl.slice('sqlite:'.length)).catch(() => undefined);
  if (storeFile === target.path)
    throw new UsageError(`--out ${out} is the Evalbook being reported on (${storeUrl}); name another file`);
}

export async function runReport(options: ReportCommandOptions): Promise<number> {
  checkGates(options.failOn, options.compare);
  const { store, storeUrl, environment } = await openForReading(options);
  let result: ReportResult | undefined;
  const tty = process.stderr.isTTY;
  const started = performance.now();
  const onProgress = (read: number): void => {
    const rate = Math.round(read / Math.max((performance.now() - started) / 1000, 0.001));
    drawProgress(`\r\x1b[Kreporting: ${read} attempts read · ${rate}/s`);
  };
  try {
    if (options.out !== undefined) await refuseStoreAsOut(options.out, storeUrl);
    const report = async (write: (chunk: string) => Promise<void>): Promise<void> => {
      result = await writeReport({
        store,
        storeUrl,
        format: options.format,
        write,
        ...(environment === undefined ? {} : { environment }),
        ...(options.run === undefined ? {} : { runId: options.run }),
        ...(options.compare === undefined ? {} : { compare: options.compare }),
        failOn: options.failOn,
        includeForeign: options.includeForeign === true,
        ...(tty ? { onProgress } : {}),
      });
    };
    // A report is a document (JSON, Markdown, JUnit, HTML), on stdout too: its renderer escapes for its format.
    await writeOutputFile(options.out ?? STDOUT_PATH, report);
  } catch (error) {
    if (isEvalbookError(error, 'paperclip_evalbook_scope_unknown')) throw new UsageError(error.message);
    throw error;
  } finally {
    if (tty) clearProgress();
    await store.close();
  }
  if (result === undefined) return EXIT.internal;
  const { summary, budgets, gate } = result;
  const leftOut = leftOutText(summary);
  if (options.out !== undefined) {
    const over = budgets.filter((budget) => budget.status === 'exceeded').length;
    printLines('stderr', [
      `wrote ${options.out === '-' ? 'stdout (-)' : options.out}: ${summary.attempts} attempts; cost: ${summary.coverage.text}, priced total ${formatUsd(summary.coverage.pricedTotalNanodollars)}${over > 0 ? `; ${over} budget(s) exceeded` : ''}${leftOut === null ? '' : `; ${leftOut}`}`,
    ]);
  } else if (leftOut !== null) printLines('stderr', [leftOut]);
  return reportGates(gate);
}

const percent = (rate: number | null): string => (rate === null ? 'n/a' : `${Math.round(rate * 100)}%`);

async function summary(options: StoreCommandOptions, compare?: CompareSpec): Promise<EvalbookSummary> {
  const { store, environment } = await openForReading(options);
  try {
    const reading = {
      attempts: () => withExpectedChecks(store.attempts(), environment),
      policyVerdicts: () => store.policyVerdicts(),
    };
    return await summariseStore(reading, {
      policy: environment?.report?.denominator ?? 'all_attempts',
      // The same drift bars as `evals report`, so a gate judges the same numbers in both.
      driftThresholdOf: driftThresholdsOf(environment),
      ...(options.run === undefined ? {} : { runId: options.run }),
      ...(compare === undefined ? {} : { compare }),
      includeForeign: options.includeForeign === true,
      retractions: await store.retractions(),
    });
  } catch (error) {
    if (isEvalbookError(error, 'paperclip_evalbook_scope_unknown')) throw new UsageError(error.message);
    throw error;
  } finally {
    await store.close();
  }
}

/** What a grid or comparison says of the attempts it left out (a line, or nothing). */
const leftOutLines = (result: EvalbookSummary): string[] => {
  const text = leftOutText(result);
  return text === null ? [] : [`${text}.`];
};

/** Pads to a display width, as the text is shown (the table has no wide characters). */
const pad = padShown;

export async function runGrid(options: StoreCommandOptions & { readonly json: boolean }): Promise<number> {
  const result = await summary(options);
  if (options.json) {
    printJson({
      schema: GRID_REPORT_V1,
      denominatorPolicy: result.denominatorPolicy,
      cases: result.cases,
      configs: result.configs,
      artifactVerification: result.artifactVerification,
      grid: result.grid,
      leftOut: result.leftOut,
      includeForeign: result.includeForeign,
      foreignIncluded: result.foreignIncluded,
      retractions: result.retractions,
    } satisfies GridReport);
    return EXIT.ok;
  }
  const cells = new Map(result.grid.map((cell) => [`${cell.caseId}\u0000${cell.configId}`, cell]));
  const caseWidth = Math.max(4, ...result.cases.map(shownWidth));
  const text = (caseId: string, configId: string): string => {
    const cell = cells.get(`${caseId}\u0000${configId}`);
    if (cell === undefined) return '—';
    const ci = cell.ci95 === null ? '' : ` [${percent(cell.ci95[0])}–${percent(cell.ci95[1])}]`;
    return `${cell.solved}/${cell.denominator.counted}${ci}${cell.flaky ? ' ~' : ''}`;
  };
  const widths = result.configs.map((configId) =>
    Math.max(shownWidth(configId), ...result.cases.map((caseId) => text(caseId, configId).length)),
  );
  const lines: Line[] = [
    [
      pad('case', caseWidth),
      ...result.configs.map((configId, index) => pad(configId, widths[index] ?? 0)),
    ].join('  '),
  ];
  for (const caseId of result.cases)
    lines.push([
      pad(caseId, caseWidth),
      ...result.configs.flatMap((configId, index) => {
        const cell = cells.get(`${caseId}\u0000${configId}`);
        const shown = pad(text(caseId, configId), widths[index] ?? 0);
        const style =
          cell?.solveRate === null || cell === undefined
            ? 'dim'
            : cell.solveRate >= 0.8
              ? 'green'
              : cell.solveRate >= 0.5
                ? 'yellow'
                : 'red';
        return ['  ', painted(style, shown)];
      }),
    ]);
  lines.push(
    '',
    `cells: solved/counted [Wilson 95% interval]; ~ flaky (solved and unsolved attempts); — no attempts.`,
    `artifacts of the attempts: ${artifactCountsText(result.artifactVerification)}.`,
    `denominator: ${result.denominatorPolicy}; ${result.statusCounts.errored} errored, ${result.statusCounts.incomplete} incomplete, ${result.statusCounts.over_budget} over budget in all.`,
    ...leftOutLines(result),
  );
  printLines('stdout', lines);
  return EXIT.ok;
}

export async function runCompare(options: CompareCommandOptions): Promise<number> {
  checkGates(options.failOn, options.compare);
  const result = await summary(options, options.compare);
  const comparison = result.comparison;
  if (comparison === null) return EXIT.internal;
  const gate = decideGates(options.failOn, result);
  if (options.json) {
    const leftOut = {
      leftOut: result.leftOut,
      includeForeign: result.includeForeign,
      retractions: result.retractions,
    };
    printJson({
      schema: COMPARE_REPORT_V1,
      ...comparison,
      ...leftOut,
      artifactVerification: result.artifactVerification,
      gate,
    } satisfies CompareReport);
    return reportGates(gate);
  }
  const lines: Line[] = [];
  const row = (label: Painted, caseId: string, a: number, b: number): Line => [
    label,
    ` ${pad(caseId, 24)} ${percent(a)} → ${percent(b)}`,
  ];
  for (const delta of comparison.regressions)
    lines.push(row(painted('red', 'regressed'), delta.caseId, delta.aSolveRate, delta.bSolveRate));
  for (const delta of comparison.improvements)
    lines.push(row(painted('green', 'improved '), delta.caseId, delta.aSolveRate, delta.bSolveRate));
  const ci = comparison.deltaSolveRateCi95;
  lines.push(
    '',
    `${comparison.b} vs ${comparison.a} (by ${comparison.by}): ${comparison.sharedCases} shared cases — ${comparison.bWins} better, ${comparison.aWins} worse, ${comparison.ties} tied${comparison.unsharedCases > 0 ? `; ${comparison.unsharedCases} on one side only (not compared)` : ''}`,
    `Δ solve rate ${comparison.deltaSolveRate === null ? 'n/a' : comparison.deltaSolveRate.toFixed(3)}${ci === null ? '' : `, 95% CI [${ci[0].toFixed(3)}, ${ci[1].toFixed(3)}] (paired bootstrap over cases)`}; McNemar exact p = ${comparison.mcnemarP.toPrecision(3)} (${comparison.discordant.aOnly} cases only ${comparison.a} solves, ${comparison.discordant.bOnly} only ${comparison.b})`,
    ...leftOutLines(result),
    `artifacts of the attempts: ${artifactCountsText(result.artifactVerification)}.`,
    `cost per attempt: ${comparison.a} ${comparison.cost.a.text}; ${comparison.b} ${comparison.cost.b.text}; mean Δ ${comparison.cost.meanDeltaNanodollars === null ? 'n/a (unpriced)' : `${comparison.cost.meanDeltaNanodollars < 0 ? '−' : '+'}${formatUsd(Math.abs(comparison.cost.meanDeltaNanodollars))}`}`,
  );
  printLines('stdout', lines);
  return reportGates(gate);
}
