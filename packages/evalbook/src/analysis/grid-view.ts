// Which runs a case × config grid shows (issue 19: never a pooled green cell hiding a collapse). By
// default every grid surface — the terminal `evals grid`, the Markdown report, the JUnit testcases,
// the HTML report's first table — shows the newest run (the summary's latestGrid: the --run, else the
// last run in run order), each cell with its trend against the cell's previous run; `all_runs` pools
// every run in scope (the summary's grid), and says so. One choice, made here, so no surface pools
// by accident; each renderer only words it.
import type { EvalbookSummary, GridCell, LatestGridCell } from './summary.js';

/** newest_run (the default): the newest run's cells with their trend · all_runs: every run in scope pooled. */
export type GridView = 'newest_run' | 'all_runs';

export const GRID_VIEWS: readonly GridView[] = ['newest_run', 'all_runs'];

/** The grid a surface shows: its view, the runs its cells count, and the cells (by case, then config). */
export interface ShownGrid {
  readonly view: GridView;
  /** The runs the cells count: the newest run alone, or every run in scope. */
  readonly runs: readonly string[];
  readonly cells: readonly (GridCell | LatestGridCell)[];
}

/** The cells of a summary a surface shows in this view. */
export function shownGrid(summary: EvalbookSummary, view: GridView): ShownGrid {
  if (view === 'all_runs') return { view, runs: summary.gridRuns, cells: summary.grid };
  return {
    view,
    runs: summary.latestRun === null ? [] : [summary.latestRun],
    cells: summary.latestGrid,
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
