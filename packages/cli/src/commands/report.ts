// `evals report`, `evals grid` and `evals compare`: the Evalbook's numbers. The report streams the
// store once and renders JSON, Markdown, JUnit, CSV or HTML (to stdout or to --out: atomically for a
// file, in place for a device or FIFO, never replacing what is there); grid and compare print the
// cases × configs table and a paired comparison for a person (or --json for machines). Report and
// compare judge the same --fail-on gates, every one, each verdict on stderr. Each leaves retracted
// attempts out, and foreign ones unless --include-foreign, and says how many. The reading is the
// app's (packages/app/src/evalbook.ts); this file shows it.
import {
  artifactCountsText,
  displayUsd,
  gridScopeText,
  isLatestCell,
  leftOutText,
  nothingCountedText,
  shownGrid,
  trendText,
} from '@paperclip-evals/evalbook';

import type {
  Comparison,
  CompareSpec,
  EvalbookSummary,
  FailOn,
  GateVerdicts,
  GridView,
  ReportFormat,
  ShownView,
} from '@paperclip-evals/evalbook';

import { COMPARE_REPORT_V1, GRID_REPORT_V1 } from '../output-schemas.js';
import {
  clearProgress,
  drawProgress,
  isTerminal,
  padShown,
  painted,
  printJson,
  printLines,
  shownWidth,
} from '../print.js';

import type { Outcome } from '../exit-codes.js';
import type { Line, Painted } from '../print.js';

/**
 * `evals grid --json` (schemas/evals/grid-v1.schema.json): the summary's grids (the newest run's with
 * each cell's trend, and every run pooled), which one the table shows, and what was left out.
 */
export type GridReport = { readonly schema: typeof GRID_REPORT_V1; readonly view: GridView } & Pick<
  EvalbookSummary,
  | 'denominatorPolicy'
  | 'cases'
  | 'configs'
  | 'artifactVerification'
  | 'grid'
  | 'gridRuns'
  | 'latestRun'
  | 'latestGrid'
  | 'leftOut'
  | 'includeForeign'
  | 'foreignIncluded'
  | 'retractions'
>;

/**
 * `evals compare --json` (schemas/evals/compare-v1.schema.json): the comparison, the view it was
 * made in (configs: the newest run by default), what it left out, the gates.
 */
export type CompareReport = {
  readonly schema: typeof COMPARE_REPORT_V1;
  readonly view: ShownView;
} & Comparison &
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
  /** --html-url: the published HTML report, linked from the Markdown report. */
  readonly htmlUrl?: string;
  /** --all-runs: all_runs; else newest_run. */
  readonly gridView?: GridView;
}

export interface CompareCommandOptions extends StoreCommandOptions {
  readonly compare: CompareSpec;
  readonly json: boolean;
  readonly failOn: readonly FailOn[];
  /** --all-runs: compare configs over every run in scope pooled (default: within the newest run). */
  readonly view?: GridView;
}

/**
 * Why a held `regression` gate held, when cases regressed beside it (a reader sees "regressed …"
 * above and "held" below): the gate judges the configs' paired difference, not a case; null for any
 * other gate or when no case regressed.
 */
export function heldBecause(failOn: string, comparison: Comparison | null): string | null {
  if (failOn !== 'regression' || comparison === null || comparison.regressions.length === 0) return null;
  const ci = comparison.deltaSolveRateCi95;
  const interval =
    ci === null
      ? 'there is no interval of the paired difference to fall below 0'
      : `the paired difference's 95% interval [${ci[0].toFixed(3)}, ${ci[1].toFixed(3)}] (B − A, bootstrap over shared cases) includes 0 or lies above it`;
  return `held: ${interval}; the gate judges the configs, not a case — the ${comparison.regressions.length} regressed case(s) above gate with --fail-on case-regression:PTS`;
}

/** Every gate's verdict on stderr (held ones too); the outcome: gate_failed when any gate failed. */
function reportGates(verdicts: GateVerdicts | null, comparison: Comparison | null): Outcome {
  if (verdicts === null) return 'ok';
  const lines = verdicts.gates.flatMap((gate) => {
    if (!gate.passed)
      return [
        `gate ${gate.failOn} failed on ${gate.judged}:`,
        ...gate.reasons.map((reason) => `  ${reason}`),
      ];
    const why = heldBecause(gate.failOn, comparison);
    return [`gate ${gate.failOn} held on ${gate.judged}`, ...(why === null ? [] : [`  ${why}`])];
  });
  const failed = verdicts.gates.filter((gate) => !gate.passed).length;
  if (verdicts.gates.length > 1)
    lines.push(
      failed === 0
        ? `gates: all ${verdicts.gates.length} held`
        : `gates: ${failed} of ${verdicts.gates.length} failed`,
    );
  printLines('stderr', lines);
  return verdicts.passed ? 'ok' : 'gate_failed';
}

/**
 * Reads the Evalbook with a progress line on a terminal's stderr (`what: reading the Evalbook…` at
 * once, then the attempts read and their rate as the app reports them), cleared before anything else
 * is printed; elsewhere (piped, a file, CI) nothing. The one progress of report, grid and compare.
 */
async function withReadingProgress<T>(
  what: string,
  read: (progress: { onProgress?: (read: number) => void }) => Promise<T>,
): Promise<T> {
  if (!isTerminal('stderr')) return read({});
  const started = performance.now();
  drawProgress({ label: what, parts: ['reading the Evalbook…'] });
  const onProgress = (attempts: number): void => {
    const rate = Math.round(attempts / Math.max((performance.now() - started) / 1000, 0.001));
    drawProgress({ label: what, parts: [`${attempts} attempts read`, `${rate}/s`] });
  };
  try {
    return await read({ onProgress });
  } finally {
    clearProgress();
  }
}

export async function runReport(options: ReportCommandOptions): Promise<Outcome> {
  const { reportEvalbook } = await import('@paperclip-evals/app/evalbook');
  const result = await withReadingProgress('reporting', (progress) =>
    reportEvalbook({ ...options, failOn: options.failOn, ...progress }),
  );
  const { summary, budgets, gate } = result;
  const leftOut = leftOutText(summary);
  if (options.out !== undefined) {
    const over = budgets.filter((budget) => budget.status === 'exceeded').length;
    printLines('stderr', [
      `wrote ${options.out === '-' ? 'stdout (-)' : options.out}: ${summary.attempts} attempts; cost: ${summary.coverage.text}, priced total ${displayUsd(summary.coverage.pricedTotalNanodollars)}${over > 0 ? `; ${over} budget(s) exceeded` : ''}${leftOut === null ? '' : `; ${leftOut}`}`,
    ]);
  } else if (leftOut !== null) printLines('stderr', [leftOut]);
  return reportGates(gate, summary.comparison);
}

export interface AttemptPageCommandOptions {
  readonly attemptId: string;
  readonly store?: string;
  readonly env?: string;
  readonly run?: string;
  readonly caseId?: string;
  readonly configId?: string;
  readonly out?: string;
}

/** `evals report --attempt ID`: one attempt's replay page (HTML), and a line on stderr saying what it holds. */
export async function runAttemptPage(options: AttemptPageCommandOptions): Promise<Outcome> {
  const { writeAttemptPage } = await import('@paperclip-evals/app/evalbook');
  const replay = await writeAttemptPage(options);
  const { key } = replay;
  printLines('stderr', [
    `wrote ${options.out === undefined || options.out === '-' ? 'stdout (-)' : options.out}: the replay of attempt ${key.attemptId} (run ${key.runId}, case ${key.caseId}, config ${key.configId}): ${replay.verdict.status}; recording ${replay.recording}${replay.recordingReason === null ? '' : ` (${replay.recordingReason})`}; ${replay.toolCalls} tool calls, ${replay.markedToolCalls} denied, failed or in conflict`,
  ]);
  return 'ok';
}

/** `n` and the noun for it: "1 case", "2 cases". */
const count = (n: number, noun: string): string => `${n} ${noun}${n === 1 ? '' : 's'}`;

/** A difference of rates in percentage points, as the Markdown and HTML reports show it: "−20.0 pts" (JSON keeps the fraction). */
const points = (rate: number): string =>
  `${rate < 0 ? '−' : rate > 0 ? '+' : '±'}${Math.abs(rate * 100).toFixed(1)} pts`;

const percent = (rate: number | null): string => (rate === null ? 'n/a' : `${Math.round(rate * 100)}%`);

/** What a grid or comparison says of the attempts it left out (a line, or nothing). */
const leftOutLines = (result: EvalbookSummary): string[] => {
  const text = leftOutText(result);
  return text === null ? [] : [`${text}.`];
};

/** Pads to a display width, as the text is shown (the table has no wide characters). */
const pad = padShown;

export interface GridCommandOptions extends StoreCommandOptions {
  readonly json: boolean;
  /** --all-runs: pool every run in scope (default: the newest run, each cell with its trend). */
  readonly allRuns: boolean;
}

export async function runGrid(options: GridCommandOptions): Promise<Outcome> {
  const { summariseEvalbook } = await import('@paperclip-evals/app/evalbook');
  const result = await withReadingProgress('grid', (progress) =>
    summariseEvalbook({ ...options, ...progress }),
  );
  const shown = shownGrid(result, options.allRuns ? 'all_runs' : 'newest_run');
  if (options.json) {
    printJson({
      schema: GRID_REPORT_V1,
      denominatorPolicy: result.denominatorPolicy,
      cases: result.cases,
      configs: result.configs,
      artifactVerification: result.artifactVerification,
      view: shown.view,
      gridRuns: result.gridRuns,
      grid: result.grid,
      latestRun: result.latestRun,
      latestGrid: result.latestGrid,
      leftOut: result.leftOut,
      includeForeign: result.includeForeign,
      foreignIncluded: result.foreignIncluded,
      retractions: result.retractions,
    } satisfies GridReport);
    return 'ok';
  }
  // Nothing to tabulate (an empty store, every run retracted): said once, never a table of no rows.
  if (result.cases.length === 0 || result.configs.length === 0) {
    const why = nothingCountedText(result);
    printLines('stdout', [
      ...(why === null ? [] : [`${why}.`]),
      `${gridScopeText(shown, result)}: no case or config to show${result.retractions.length > 0 ? ` (${result.retractions.length} retracted run(s) left out; \`evals runs\` lists every run)` : ''}.`,
      ...leftOutLines(result),
    ]);
    return 'ok';
  }
  const cells = new Map(shown.cells.map((cell) => [`${cell.caseId}\u0000${cell.configId}`, cell]));
  const pooled = new Set(result.grid.map((cell) => `${cell.caseId}\u0000${cell.configId}`));
  const caseWidth = Math.max(4, ...result.cases.map(shownWidth));
  const text = (caseId: string, configId: string): string => {
    const key = `${caseId}\u0000${configId}`;
    const cell = cells.get(key);
    // A cell the newest run has no attempt for, though an earlier run has: said, never left blank.
    if (cell === undefined) return pooled.has(key) && shown.view === 'newest_run' ? '— not in run' : '—';
    const ci = cell.ci95 === null ? '' : ` [${percent(cell.ci95[0])}–${percent(cell.ci95[1])}]`;
    const trend = isLatestCell(cell) ? trendText(cell, result) : '';
    return `${cell.solved}/${cell.denominator.counted}${ci}${cell.flaky ? ' ~' : ''}${trend === '' ? '' : ` ${trend}`}`;
  };
  const widths = result.configs.map((configId) =>
    Math.max(shownWidth(configId), ...result.cases.map((caseId) => shownWidth(text(caseId, configId)))),
  );
  // Each column padded to its width but the last, so no line of the table ends in spaces.
  const column = (shown: string, index: number): string =>
    index === result.configs.length - 1 ? shown : pad(shown, widths[index] ?? 0);
  const lines: Line[] = [
    `${gridScopeText(shown, result)}${shown.view === 'newest_run' && result.runs.length > 1 && result.runScope === null ? ' — --all-runs pools every run' : ''}`,
    [pad('case', caseWidth), ...result.configs.map((configId, index) => column(configId, index))].join('  '),
  ];
  for (const caseId of result.cases)
    lines.push([
      pad(caseId, caseWidth),
      ...result.configs.flatMap((configId, index) => {
        const cell = cells.get(`${caseId}\u0000${configId}`);
        const shownText = column(text(caseId, configId), index);
        const style =
          cell?.solveRate === null || cell === undefined
            ? 'dim'
            : cell.solveRate >= 0.8
              ? 'green'
              : cell.solveRate >= 0.5
                ? 'yellow'
                : 'red';
        return ['  ', painted(style, shownText)];
      }),
    ]);
  const trends = shown.view === 'newest_run' && result.runs.length > 1;
  lines.push(
    '',
    `cells: solved/counted [Wilson 95% interval]; ~ flaky (solved and unsolved attempts in one run); — no attempts${shown.view === 'newest_run' ? ' in this run' : ''}.`,
    ...(trends
      ? [
          "trend: since the cell's previous run with attempts (↑ up, ↓ down, = same, in points of solve rate; new: its first run).",
        ]
      : []),
    // These two count every run in scope, whichever grid is shown: said so when the grid is one run of several.
    `artifacts of the attempts${trends ? ` of all ${result.runs.length} runs` : ''}: ${artifactCountsText(result.artifactVerification)}.`,
    `denominator: ${result.denominatorPolicy}; ${result.statusCounts.errored} errored, ${result.statusCounts.incomplete} incomplete, ${result.statusCounts.over_budget} over budget in all${trends ? ` ${result.runs.length} runs` : ''}.`,
    ...leftOutLines(result),
  );
  printLines('stdout', lines);
  return 'ok';
}

export async function runCompare(options: CompareCommandOptions): Promise<Outcome> {
  const { compareInEvalbook } = await import('@paperclip-evals/app/evalbook');
  const {
    summary: result,
    comparison,
    gate,
    view,
  } = await withReadingProgress('comparing', (progress) => compareInEvalbook({ ...options, ...progress }));
  if (options.json) {
    const leftOut = {
      leftOut: result.leftOut,
      includeForeign: result.includeForeign,
      retractions: result.retractions,
    };
    printJson({
      schema: COMPARE_REPORT_V1,
      view,
      ...comparison,
      ...leftOut,
      artifactVerification: result.artifactVerification,
      gate,
    } satisfies CompareReport);
    return reportGates(gate, comparison);
  }
  const lines: Line[] = [];
  // Runs compared: a case on each config is its own pair, named "case on config".
  const row = (label: Painted, delta: (typeof comparison.regressions)[number]): Line => [
    label,
    ` ${pad(delta.configId === null ? delta.caseId : `${delta.caseId} on ${delta.configId}`, 24)} ${percent(delta.aSolveRate)} → ${percent(delta.bSolveRate)}`,
  ];
  for (const delta of comparison.regressions) lines.push(row(painted('red', 'regressed'), delta));
  for (const delta of comparison.improvements) lines.push(row(painted('green', 'improved '), delta));
  const unit = comparison.by === 'run' ? 'shared case × config pair' : 'shared case';
  const ci = comparison.deltaSolveRateCi95;
  // A blank line parts the cases that moved from the summary; with none, the summary starts the output.
  if (lines.length > 0) lines.push('');
  lines.push(
    comparison.by === 'run'
      ? `runs ${comparison.a} and ${comparison.b}, every config`
      : `configs compared in ${view.text}${view.kind === 'newest_run' && result.runs.length > 1 ? ' — --all-runs pools every run' : ''}`,
    `${comparison.b} vs ${comparison.a} (by ${comparison.by}): ${count(comparison.sharedCases, unit)} — ${comparison.bWins} better, ${comparison.aWins} worse, ${comparison.ties} tied${comparison.unsharedCases > 0 ? `; ${comparison.unsharedCases} on one side only (not compared)` : ''}`,
    `Δ solve rate ${comparison.deltaSolveRate === null ? 'n/a' : points(comparison.deltaSolveRate)}${ci === null ? '' : `, 95% CI ${(ci[0] * 100).toFixed(1)} to ${(ci[1] * 100).toFixed(1)} pts (paired bootstrap over ${comparison.by === 'run' ? 'case × config pairs' : 'cases'})`}; McNemar exact p = ${comparison.mcnemarP.toPrecision(3)} (${count(comparison.discordant.aOnly, comparison.by === 'run' ? 'pair' : 'case')} only ${comparison.a} solves, ${comparison.discordant.bOnly} only ${comparison.b})`,
    ...leftOutLines(result),
    `artifacts of the attempts: ${artifactCountsText(result.artifactVerification)}.`,
    `cost per attempt: ${comparison.a} ${comparison.cost.a.text}; ${comparison.b} ${comparison.cost.b.text}; mean Δ ${comparison.cost.meanDeltaNanodollars === null ? 'n/a (unpriced)' : `${comparison.cost.meanDeltaNanodollars < 0 ? '−' : '+'}${displayUsd(Math.abs(comparison.cost.meanDeltaNanodollars))}`}`,
  );
  printLines('stdout', lines);
  return reportGates(gate, comparison);
}
