// The progress line long commands draw on stderr when it is a terminal (run, ingest, validate, grid,
// compare, report, publish, qualify, policy replay), redrawn in place: what it says (a label and its
// parts, most important first) and how it is made to fit the terminal's width. A line wider than the
// terminal wraps, and the redraw's erase clears only its last row, so every redraw would leave a row
// behind: print.ts fits every line it draws with fitProgress.
import { cutEnd, cutMiddle, displayWidth } from './width.js';

/**
 * One progress line: `label: part · part · …` (the label a campaign id or the command's verb, the
 * parts most important first, so the last are dropped first when the terminal is narrow).
 */
export interface ProgressLine {
  readonly label: string;
  readonly parts: readonly string[];
  /**
   * The last part is a ticking clock (the elapsed seconds): it shows the line is alive, so a narrow
   * terminal drops or cuts the other parts first and keeps it.
   */
  readonly clock?: boolean;
}

/** The columns assumed when the terminal does not say (stderr's `columns` unknown). */
export const DEFAULT_COLUMNS = 80;

/** The fewest columns the label keeps when it must be cut (its start and end, `…` between); else a third of the line. */
const LABEL_MIN_COLUMNS = 12;

const joined = (label: string, parts: readonly string[]): string =>
  parts.length === 0 ? label : `${label}: ${parts.join(' · ')}`;

/**
 * The line as drawn on a terminal `columns` wide: at most columns − 1 columns (the last stays free: a
 * terminal may wrap once it is written), counted as shown (wide characters 2, combining marks 0).
 * Too wide, it drops its last parts first (it keeps the first); then, still too wide, it cuts a label
 * longer than a third of the line in its middle and the line's end with `…`. `label` and `parts` are text as shown (rendered already).
 */
export function fitProgress(line: ProgressLine, columns: number): string {
  if (line.clock === true && line.parts.length >= 2) {
    const clock = ` · ${line.parts[line.parts.length - 1] ?? ''}`;
    const rest = { label: line.label, parts: line.parts.slice(0, -1) };
    // The clock is kept while the rest keeps at least a few columns; else the line is fitted whole.
    if (displayWidth(clock) + LABEL_MIN_COLUMNS < columns - 1)
      return `${fitProgress(rest, columns - displayWidth(clock))}${clock}`;
  }
  const room = Math.max(1, columns - 1);
  let kept = line.parts.length;
  while (kept > 1 && displayWidth(joined(line.label, line.parts.slice(0, kept))) > room) kept -= 1;
  const parts = line.parts.slice(0, kept);
  const whole = joined(line.label, parts);
  if (displayWidth(whole) <= room) return whole;
  return cutEnd(
    joined(cutMiddle(line.label, Math.max(LABEL_MIN_COLUMNS, Math.floor(room / 3))), parts),
    room,
  );
}

/** 75.2 → "1m15s"; 4.4 → "4s". */
function formatDuration(seconds: number): string {
  const whole = Math.ceil(seconds);
  return whole >= 60 ? `${Math.floor(whole / 60)}m${String(whole % 60).padStart(2, '0')}s` : `${whole}s`;
}

/**
 * `done` of `total` (then `detail`, when given) with the rate so far and the time left, as one line
 * drawn over the last: "ingesting: 4/10 · 4 inserted · 120/s, ETA 1s".
 */
export function progressText(
  label: string,
  done: number,
  total: number,
  seconds: number,
  detail?: string,
): ProgressLine {
  const rate = seconds > 0 ? done / seconds : 0;
  const eta = rate > 0 ? `, ETA ${formatDuration(Math.max(total - done, 0) / rate)}` : '';
  return {
    label,
    parts: [`${done}/${total}`, ...(detail === undefined ? [] : [detail]), `${Math.round(rate)}/s${eta}`],
  };
}
