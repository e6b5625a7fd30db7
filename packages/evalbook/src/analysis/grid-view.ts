// Which runs a case × config grid shows, and every verdict and rate beside it (issue 19: never a
// pooled green cell hiding a collapse, nor a pooled verdict next to a newest-run grid). By default
// every surface — the terminal `evals grid`, the Markdown report (its grid, Configs table and verdict
// line), the JUnit testcases, the HTML report's grid, configs and plots, the `below:RATE` gate and a
// comparison of configs — reads the newest run (the summary's latestGrid and latestConfigStats: the
// --run, else the last run in run order), each cell with its trend against the cell's previous run;
// `all_runs` pools every run in scope (the summary's grid and configStats), and says so. One choice,
// made here, so no surface pools by accident; each renderer only words it (viewOf, gridScopeText).
import { ATTEMPT_STATUSES } from './scoring.js';

import type {
  ConfigStat,
  EvalbookSummary,
  GridCell,
  GridView,
  LatestGridCell,
  StatusCounts,
} from './summary.js';

/** newest_run (the default): the newest run's cells with their trend · all_runs: every run in scope pooled. */
export type { GridView };

export const GRID_VIEWS: readonly GridView[] = ['newest_run', 'all_runs'];

/**
 * The grid a surface shows: its view, the runs its cells count, the cells (by case, then config) and
 * the per-config rates of the same runs (what the Configs tables, the plots and `below:RATE` read).
 */
export interface ShownGrid {
  readonly view: GridView;
  /** The runs the cells count: the newest run alone, or every run in scope. */
  readonly runs: readonly string[];
  readonly cells: readonly (GridCell | LatestGridCell)[];
  readonly configStats: readonly ConfigStat[];
}

/** The cells and per-config rates of a summary a surface shows in this view. */
export function shownGrid(summary: EvalbookSummary, view: GridView): ShownGrid {
  if (view === 'all_runs')
    return { view, runs: summary.gridRuns, cells: summary.grid, configStats: summary.configStats };
  return {
    view,
    runs: summary.latestRun === null ? [] : [summary.latestRun],
    cells: summary.latestGrid,
    configStats: summary.latestConfigStats,
  };
}

/**
 * The view a verdict was judged in, as JSON says it (schemas: cli-common `view`): `newest_run` (the
 * newest run, by default), `run` (the run --run names) or `all_runs` (every run in scope pooled);
 * `run` is the one run the numbers are of (null when pooled, or without attempts); `runs` the runs
 * counted; `text` the same in words, as the grid's header words it.
 */
export interface ShownView {
  readonly kind: 'newest_run' | 'run' | 'all_runs';
  readonly run: string | null;
  readonly runs: readonly string[];
  readonly text: string;
}

/** The view of a summary in words and names, for a verdict's JSON and its line. */
export function viewOf(summary: EvalbookSummary, view: GridView): ShownView {
  const grid = shownGrid(summary, view);
  const text = gridScopeText(grid, summary);
  if (summary.runScope !== null)
    return { kind: 'run', run: summary.runScope, runs: [summary.runScope], text };
  if (view === 'all_runs') return { kind: 'all_runs', run: null, runs: grid.runs, text };
  return { kind: 'newest_run', run: summary.latestRun, runs: grid.runs, text };
}

/** What a view's cells count in all: attempts by status, and the cases and configs they cover. */
export function shownTotals(grid: ShownGrid): {
  readonly attempts: number;
  readonly statusCounts: StatusCounts;
  readonly cases: number;
  readonly configs: number;
} {
  const statusCounts = Object.fromEntries(ATTEMPT_STATUSES.map((status) => [status, 0])) as StatusCounts;
  for (const cell of grid.cells)
    for (const status of ATTEMPT_STATUSES) statusCounts[status] += cell.statusCounts[status];
  return {
    attempts: Object.values(statusCounts).reduce((sum, n) => sum + n, 0),
    statusCounts,
    cases: new Set(grid.cells.map((cell) => cell.caseId)).size,
    configs: new Set(grid.cells.map((cell) => cell.configId)).size,
  };
}

/** A newest-run cell (it carries its trend), as opposed to a pooled one. */
export const isLatestCell = (cell: GridCell | LatestGridCell): cell is LatestGridCell => 'trend' in cell;

/**
 * A newest-run cell's trend as a word with its arrow ("↓ down 100 pts", "↑ up 33 pts", "= same",
 * "new", "no rate"), for text surfaces (never a colour alone). Empty when the summary has one run:
 * then there is nothing to move against, and a one-run grid looks as it always did.
 */
export function trendText(cell: LatestGridCell, summary: Pick<EvalbookSummary, 'runs'>): string {
  if (summary.runs.length < 2) return '';
  const pts = (delta: number): string => `${Math.round(Math.abs(delta) * 100)} pts`;
  switch (cell.trend) {
    case 'up':
      return `↑ up ${pts(cell.delta ?? 0)}`;
    case 'down':
      return `↓ down ${pts(cell.delta ?? 0)}`;
    case 'same':
      return '= same';
    case 'new':
      return 'new';
    case 'no_rate':
      return 'no rate';
  }
}

/**
 * What a grid covers, in words, for its header: "newest run nightly-2 (of 2 runs)", "run nightly-1"
 * (a --run), "all 2 runs pooled", "no attempts".
 */
export function gridScopeText(
  grid: ShownGrid,
  summary: Pick<EvalbookSummary, 'runs' | 'runScope' | 'latestRun'>,
): string {
  if (summary.latestRun === null) return 'no attempts';
  if (grid.view === 'all_runs')
    return summary.runScope !== null
      ? `all runs: the one run in scope, ${summary.runScope}`
      : `all runs: ${grid.runs.length} run${grid.runs.length === 1 ? '' : 's'} pooled`;
  if (summary.runScope !== null) return `run ${summary.runScope}`;
  return summary.runs.length === 1
    ? `newest run ${summary.latestRun} (the only run)`
    : `newest run ${summary.latestRun} (of ${summary.runs.length} runs)`;
}
