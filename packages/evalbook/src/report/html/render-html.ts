// The HTML report: one self-contained page — inline CSS (report.css), one small inline script
// (report.js, its sha256 in the page's CSP), and SVG plots drawn here in TypeScript (no charting
// library, no fonts, no network; a Content-Security-Policy forbids any fetch). The header,
// comparison, config table, policy replay table, plots, grid and check drift are plain HTML and SVG
// that read without JavaScript and print; the script adds the drill-down (grid cell → its attempts →
// one attempt's details) from the attempts embedded as JSON. Every rendered number a test needs
// sits on a data-* attribute, and every string from the evalbook is escaped and masked (../masked.ts:
// its text as html-text.ts writes it, the embedded attempts' strings, then the whole page). The config table and
// the plots of rates are the view's the page opens on (grid-view.ts: the newest run by default, all
// runs with --all-runs), and say which, as the gates say what they judged.
import { jsonText } from '@paperclip-evals/contract';

import { artifactCountsText } from '../../ledger/convert.js';
import { leftOutText, retractionText } from '../../ledger/retraction.js';
import { HTML_TEXT_LIMIT, count, esc, money, text, tip } from './html-text.js';
import { pageCsp, reportPageAssets } from './page-assets.js';
import { renderAttemptReplay } from './attempt-page.js';
import { HTML_MAX_REPLAYS } from '../model.js';
import { maskedPage, shownJson } from '../masked.js';
import { shownGrid, viewOf } from '../../analysis/grid-view.js';
import { deltaName, sharedUnits } from '../../analysis/summary.js';

import type { GridView } from '../../analysis/grid-view.js';
import type { CheckDrift } from '../../analysis/check-drift.js';
import type { CoverageSummary } from '../../ledger/cost.js';
import type { GateVerdicts } from '../../analysis/gates.js';
import type { AttemptReplay } from '../attempt-replay.js';
import type { ReportAttempt, ReportBudget } from '../model.js';
import type {
  CheckCounts,
  CheckRate,
  Comparison,
  ConfigStat,
  EvalbookSummary,
  GridCell,
  LatestGridCell,
  PolicyStat,
  RateWithInterval,
} from '../../analysis/summary.js';

/**
 * An attempt for the drill-down: the JSON report's attempt (or, from a test, any part of one; the
 * page's script reads what is there for the cell's list) and its replay, which the page carries
 * rendered by attempt-page.ts (one <template> each) for the detail pane; null past HTML_MAX_REPLAYS
 * (the pane then names the command that writes it).
 */
export type HtmlAttempt = (ReportAttempt | Readonly<Record<string, unknown>>) & {
  readonly replay: AttemptReplay | null;
  /** On a published site: the attempt's own page, relative to this page (the drill-down links it). */
  readonly page?: string;
};

/**
 * A page of a published site (a campaign's grid): where its attempts are, for a reader without a
 * store. The drill-down links each listed attempt's page and the cell's case page (which lists every
 * attempt of the case), and the page names no `evals` command: the site is all such a reader has.
 */
export interface HtmlSite {
  /** Each case's page, relative to this page, by case id. */
  readonly casePages: Readonly<Record<string, string>>;
}

export interface HtmlReportInput {
  readonly title: string;
  readonly storeUrl: string;
  /** What the header calls `storeUrl`: `Store` (a report), `Campaign` (a site's grid: the campaign's id). */
  readonly storeLabel?: string;
  readonly summary: EvalbookSummary;
  readonly budgets: readonly ReportBudget[];
  readonly gate: GateVerdicts | null;
  /** At most HTML_MAX_ATTEMPTS; summary.attempts says how many there are in all. */
  readonly attempts: readonly HtmlAttempt[];
  /** The grid the page opens on: the newest run (default) or all runs pooled (--all-runs); one click to the other. */
  readonly gridView?: GridView;
  /** Set when the page is a published site's (see HtmlSite); absent for a report file. */
  readonly site?: HtmlSite;
}

const percent = (rate: number | null, digits = 0): string =>
  rate === null ? 'n/a' : `${(rate * 100).toFixed(digits)}%`;
const ciText = (ci: readonly [number, number] | null): string =>
  ci === null ? 'no interval' : `${percent(ci[0])}–${percent(ci[1])}`;
const points = (delta: number): string =>
  `${delta > 0 ? '+' : delta < 0 ? '−' : '±'}${Math.abs(delta * 100).toFixed(1)} pts`;
const signedUsd = (nanodollars: number): string =>
  `${nanodollars < 0 ? '−' : '+'}${money(Math.abs(nanodollars))}`;
/** Mean priced cost per attempt; null when nothing is priced (never 0). */
const meanCost = (cost: CoverageSummary): number | null =>
  cost.priced === 0 ? null : cost.pricedTotalNanodollars / cost.priced;
/** An embedded attempt's counted cost as money() shows it; null when the row carries no cost (a public site's). */
function shownCost(row: Readonly<Record<string, unknown>>): string | null {
  const cost = row.cost as { readonly effectiveNanodollars?: number | null } | undefined;
  return cost?.effectiveNanodollars === undefined ? null : money(cost.effectiveNanodollars);
}
/** A data-* attribute carrying a number exactly as the JSON report writes it ("" for null). */
const num = (value: number | null): string => (value === null ? '' : String(value));

/** Okabe–Ito colours (colour-blind safe, dark enough on white); configs cycle through them. */
const PALETTE = ['#0072B2', '#D55E00', '#009E73', '#CC79A7', '#8C6D00', '#56B4E9', '#444444'];
/** A config's colour: by its place among the summary's configs, then those only the trend has (--run). */
function configColour(summary: EvalbookSummary, configId: string): string {
  const ids = [...new Set([...summary.configs, ...summary.trend.map((point) => point.configId)])];
  return PALETTE[Math.max(0, ids.indexOf(configId)) % PALETTE.length] ?? '#444444';
}
/** Cell background: red (0) through amber to green (1), light enough for dark text. */
const rateColour = (rate: number | null): string =>
  rate === null ? '#e5e7eb' : `hsl(${Math.round(rate * 130)} 62% 80%)`;

const truncate = (text: string, max: number): string =>
  text.length <= max ? text : `${text.slice(0, max - 1)}…`;
/** Cut in the middle: run ids often share a prefix (nightly-2026-11-…) and differ at the end. */
const truncateMiddle = (text: string, max: number): string =>
  text.length <= max
    ? text
    : `${text.slice(0, Math.ceil((max - 1) / 2))}…${text.slice(text.length - Math.floor((max - 1) / 2))}`;

function excludedText(rate: RateWithInterval): string {
  const parts = Object.entries(rate.denominator.excluded).map(
    ([why, n]) => `${n} ${why.replaceAll('_', ' ')}`,
  );
  return parts.length === 0 ? '' : `excluded: ${parts.join(', ')}`;
}

// ——— SVG plots ———

const svgOpen = (width: number, height: number, plot: string, label: string): string =>
  `<svg viewBox="0 0 ${width} ${height}" role="img" aria-label="${esc(label)}" data-plot="${plot}" xmlns="http://www.w3.org/2000/svg"><title>${tip(label)}</title>`;
const f1 = (value: number): string => value.toFixed(1);

/** (a) Solve rate per config (the view's: shownGrid): a dot at the rate, whiskers to its bootstrap 95% interval. */
function solveRatePlot(summary: EvalbookSummary, shown: readonly ConfigStat[]): string {
  const stats = shown;
  const width = 560;
  const left = 150;
  const right = 64;
  const top = 12;
  const row = 30;
  const plotWidth = width - left - right;
  const height = top + row * Math.max(1, stats.length) + 30;
  const x = (rate: number): number => left + rate * plotWidth;
  const parts = [svgOpen(width, height, 'solve-rate', 'Solve rate per config with 95% intervals')];
  for (const tick of [0, 0.25, 0.5, 0.75, 1])
    parts.push(
      `<line x1="${f1(x(tick))}" x2="${f1(x(tick))}" y1="${top}" y2="${height - 26}" stroke="#e5e7eb"/>`,
      `<text class="axis" x="${f1(x(tick))}" y="${height - 10}" text-anchor="middle">${percent(tick)}</text>`,
    );
  stats.forEach((config, index) => {
    const y = top + row * index + row / 2;
    const colour = configColour(summary, config.configId);
    parts.push(
      `<text x="${left - 10}" y="${f1(y + 4)}" text-anchor="end">${esc(truncate(config.configId, 22))}<title>${tip(config.configId)}</title></text>`,
    );
    if (config.solveRate === null) {
      parts.push(
        `<text class="axis" x="${left + 4}" y="${f1(y + 4)}" data-config="${esc(config.configId)}" data-rate="">nothing counted</text>`,
      );
      return;
    }
    const [lo, hi] = config.ci95 ?? [config.solveRate, config.solveRate];
    parts.push(
      `<g data-config="${esc(config.configId)}" data-rate="${num(config.solveRate)}" data-lo="${num(lo)}" data-hi="${num(hi)}" data-solved="${config.solved}" data-counted="${config.denominator.counted}">`,
      `<title>${tip(`${config.configId}: ${percent(config.solveRate, 1)} solved (${config.solved}/${config.denominator.counted}); 95% CI ${percent(lo, 1)}–${percent(hi, 1)}, bootstrap clustered by case`)}</title>`,
      `<line x1="${f1(x(lo))}" x2="${f1(x(hi))}" y1="${f1(y)}" y2="${f1(y)}" stroke="${colour}" stroke-width="2"/>`,
      `<line x1="${f1(x(lo))}" x2="${f1(x(lo))}" y1="${f1(y - 6)}" y2="${f1(y + 6)}" stroke="${colour}" stroke-width="2"/>`,
      `<line x1="${f1(x(hi))}" x2="${f1(x(hi))}" y1="${f1(y - 6)}" y2="${f1(y + 6)}" stroke="${colour}" stroke-width="2"/>`,
      `<circle cx="${f1(x(config.solveRate))}" cy="${f1(y)}" r="6" fill="${colour}" stroke="#fff" stroke-width="1.5"/>`,
      `<text x="${width - right + 8}" y="${f1(y + 4)}">${percent(config.solveRate)}</text>`,
      `</g>`,
    );
  });
  parts.push('</svg>');
  return parts.join('');
}

/** A round axis maximum at or above `value`: 1, 2, 2.5 or 5 × 10^k. */
function niceMax(value: number): number {
  if (value <= 0) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  const step = [1, 2, 2.5, 5, 10].find((candidate) => candidate * power >= value) ?? 10;
  return step * power;
}
/** A USD tick label from nanodollars, with just enough decimals for the tick step (display only). */
function usdTick(nanodollars: number, stepNanodollars: number): string {
  if (nanodollars === 0) return '$0';
  const decimals = Math.min(9, Math.max(2, Math.ceil(-Math.log10(stepNanodollars / 1e9)) + 2));
  return `$${(nanodollars / 1e9).toFixed(decimals).replace(/(\.\d*?[1-9])0+$/, '$1')}`;
}

/** (b) Mean priced cost per attempt vs solve rate (the view's configs); unpriced configs sit in their own lane, never at $0. */
function costPlot(summary: EvalbookSummary, shown: readonly ConfigStat[]): string {
  const stats = shown.filter((config) => config.solveRate !== null);
  const unpriced = stats.filter((config) => config.cost.priced === 0);
  const priced = stats.filter((config) => config.cost.priced > 0);
  const width = 560;
  const height = 330;
  const left = 50;
  const top = 14;
  const bottom = 44;
  const lane = unpriced.length > 0 ? 80 : 0;
  const axisLeft = left + lane;
  const plotRight = width - 110;
  // Without a priced config the axis spans a nominal $1 and carries no tick labels but $0.
  const maxCost =
    priced.length === 0
      ? 1e9
      : niceMax(Math.max(...priced.map((config) => meanCost(config.cost) ?? 0)) * 1.1);
  const x = (nanodollars: number): number => axisLeft + (nanodollars / maxCost) * (plotRight - axisLeft);
  const y = (rate: number): number => top + (1 - rate) * (height - top - bottom);
  const parts = [
    svgOpen(width, height, 'cost-vs-rate', 'Mean cost per attempt against solve rate, per config'),
  ];
  for (const tick of [0, 0.25, 0.5, 0.75, 1])
    parts.push(
      `<line x1="${left}" x2="${plotRight}" y1="${f1(y(tick))}" y2="${f1(y(tick))}" stroke="#e5e7eb"/>`,
      `<text class="axis" x="${left - 6}" y="${f1(y(tick) + 4)}" text-anchor="end">${percent(tick)}</text>`,
    );
  // The $0 tick starts at the axis (centred, it would touch the 0% label beside it).
  for (const tick of (priced.length === 0 ? [0] : [0, 0.25, 0.5, 0.75, 1]).map((share) => share * maxCost))
    parts.push(
      `<text class="axis" x="${f1(x(tick) + (tick === 0 ? 2 : 0))}" y="${height - bottom + 18}" text-anchor="${tick === 0 ? 'start' : 'middle'}">${usdTick(tick, maxCost / 4)}</text>`,
    );
  parts.push(
    `<line x1="${axisLeft}" x2="${axisLeft}" y1="${top}" y2="${height - bottom}" stroke="#9ca3af"/>`,
    `<text class="axis" x="${f1((axisLeft + plotRight) / 2)}" y="${height - 8}" text-anchor="middle">mean cost per priced attempt (USD)</text>`,
  );
  if (lane > 0)
    parts.push(
      `<rect x="${left}" y="${top}" width="${lane - 8}" height="${height - top - bottom}" fill="#f3f4f6"/>`,
      `<text class="axis" x="${left + (lane - 8) / 2}" y="${height - bottom + 18}" text-anchor="middle">unpriced</text>`,
    );
  const marker = (config: ConfigStat, cx: number, cost: number | null): string => {
    const rate = config.solveRate ?? 0;
    const colour = configColour(summary, config.configId);
    const [lo, hi] = config.ci95 ?? [rate, rate];
    const partly = config.cost.priced < config.cost.attempts;
    const costText =
      cost === null
        ? 'unpriced (no attempt priced)'
        : `${money(cost)} per priced attempt (${config.cost.text})`;
    return [
      `<g data-config="${esc(config.configId)}" data-rate="${num(config.solveRate)}" data-cost="${cost === null ? '' : num(Math.round(cost))}" data-unpriced="${String(cost === null)}" data-priced="${config.cost.priced}" data-attempts="${config.cost.attempts}">`,
      `<title>${tip(`${config.configId}: ${percent(rate, 1)} solved; ${costText}`)}</title>`,
      `<line x1="${f1(cx)}" x2="${f1(cx)}" y1="${f1(y(lo))}" y2="${f1(y(hi))}" stroke="${colour}" stroke-width="1.5" opacity=".6"/>`,
      cost === null
        ? `<rect x="${f1(cx - 6)}" y="${f1(y(rate) - 6)}" width="12" height="12" transform="rotate(45 ${f1(cx)} ${f1(y(rate))})" fill="#fff" stroke="${colour}" stroke-width="2" stroke-dasharray="3 2"/>`
        : `<circle cx="${f1(cx)}" cy="${f1(y(rate))}" r="6.5" fill="${partly ? '#fff' : colour}" stroke="${colour}" stroke-width="2.5"/>`,
      `<text x="${f1(cx + 10)}" y="${f1(y(rate) + 4)}">${esc(truncate(config.configId, 16))}</text>`,
      '</g>',
    ].join('');
  };
  unpriced.forEach((config, index) => {
    parts.push(marker(config, left + 12 + ((index * 14) % Math.max(14, lane - 30)), null));
  });
  for (const config of priced) {
    const cost = meanCost(config.cost) ?? 0;
    parts.push(marker(config, x(cost), cost));
  }
  parts.push('</svg>');
  return parts.join('');
}

/**
 * Dash patterns per config (by its place in the plot): lines that coincide stay apart, since each is
 * drawn narrower than the one before it and dashed differently, with its own marker size.
 */
const DASHES = ['', '7 4', '2 3', '10 3 2 3', '4 2', '1 4', '12 5'];
/** About how wide an axis label of `chars` characters is (11 px system font): to thin ticks. */
const labelWidth = (chars: number): number => chars * 6.6 + 8;

/** (c) Solve rate across runs, one line per config (runs in the summary's order). */
function trendPlot(summary: EvalbookSummary): string {
  const runs = summary.runs;
  const configs = [...new Set(summary.trend.map((point) => point.configId))].sort();
  const width = 560;
  const left = 50;
  const right = 20;
  const top = 14;
  const plotBottom = 250;
  const legendRows = Math.ceil(configs.length / 3);
  const height = plotBottom + 40 + legendRows * 18;
  const step = runs.length > 1 ? (width - left - right - 40) / (runs.length - 1) : 0;
  const x = (runId: string): number =>
    runs.length > 1 ? left + 20 + runs.indexOf(runId) * step : (left + width - right) / 2;
  const y = (rate: number): number => top + (1 - rate) * (plotBottom - top);
  const parts = [svgOpen(width, height, 'trend', 'Solve rate across runs, per config')];
  for (const tick of [0, 0.25, 0.5, 0.75, 1])
    parts.push(
      `<line x1="${left}" x2="${width - right}" y1="${f1(y(tick))}" y2="${f1(y(tick))}" stroke="#e5e7eb"/>`,
      `<text class="axis" x="${left - 6}" y="${f1(y(tick) + 4)}" text-anchor="end">${percent(tick)}</text>`,
    );
  // Run labels: as many as fit without touching, counted back from the newest run (always labelled).
  const widest = Math.max(0, ...runs.map((runId) => labelWidth(truncateMiddle(runId, 16).length)));
  const labelEvery = step === 0 ? 1 : Math.max(1, Math.ceil(widest / step));
  runs.forEach((runId, index) => {
    if ((runs.length - 1 - index) % labelEvery === 0)
      parts.push(
        `<text class="axis" data-run-label x="${f1(x(runId))}" y="${plotBottom + 18}" text-anchor="middle">${esc(truncateMiddle(runId, 16))}<title>${tip(runId)}</title></text>`,
      );
  });
  configs.forEach((configId, index) => {
    const colour = configColour(summary, configId);
    // The first config widest: a later line on top of it leaves its edges showing.
    const width = Math.max(1.5, 6 - index * 1.1);
    const dash = DASHES[index % DASHES.length] ?? '';
    const radius = Math.max(2.5, 6.5 - index * 1.1);
    const series = runs.flatMap((runId) =>
      summary.trend.filter((point) => point.runId === runId && point.configId === configId),
    );
    // A run where the config counted nothing breaks the line: a gap, not a drop to 0.
    let path = '';
    let pen = 'M';
    for (const point of series) {
      if (point.solveRate === null) pen = 'M';
      else {
        path += `${pen}${f1(x(point.runId))} ${f1(y(point.solveRate))}`;
        pen = 'L';
      }
    }
    parts.push(`<g data-series="${esc(configId)}">`);
    if (path !== '')
      parts.push(
        `<path d="${path}" fill="none" stroke="${colour}" stroke-width="${f1(width)}"${dash === '' ? '' : ` stroke-dasharray="${dash}"`} stroke-linecap="round"/>`,
      );
    for (const point of series)
      if (point.solveRate !== null)
        parts.push(
          `<circle cx="${f1(x(point.runId))}" cy="${f1(y(point.solveRate))}" r="${f1(radius)}" fill="${colour}" stroke="#fff" stroke-width="1.5" data-run="${esc(point.runId)}" data-config="${esc(configId)}" data-rate="${num(point.solveRate)}" data-solved="${point.solved}" data-counted="${point.denominator.counted}"><title>${tip(`${configId} in ${point.runId}: ${percent(point.solveRate, 1)} (${point.solved}/${point.denominator.counted}; Wilson 95% ${ciText(point.ci95)})`)}</title></circle>`,
        );
    parts.push('</g>');
    const lx = left + (index % 3) * 165;
    const ly = plotBottom + 40 + Math.floor(index / 3) * 18;
    parts.push(
      `<line x1="${lx}" x2="${lx + 22}" y1="${ly - 7}" y2="${ly - 7}" stroke="${colour}" stroke-width="${f1(width)}"${dash === '' ? '' : ` stroke-dasharray="${dash}"`}/><text x="${lx + 28}" y="${ly - 3}">${esc(truncate(configId, 20))}<title>${tip(configId)}</title></text>`,
    );
  });
  parts.push('</svg>');
  return parts.join('');
}

/** The comparison's Δ solve rate with its interval on a −100 … +100 pts axis. */
function deltaPlot(comparison: Comparison): string {
  const width = 900;
  const height = 64;
  const left = 20;
  const right = 20;
  const x = (delta: number): number => left + ((delta + 1) / 2) * (width - left - right);
  const parts = [
    svgOpen(width, height, 'delta', `Δ solve rate, ${comparison.b} − ${comparison.a}, with 95% interval`),
  ];
  for (const tick of [-1, -0.5, 0, 0.5, 1])
    parts.push(
      `<line x1="${f1(x(tick))}" x2="${f1(x(tick))}" y1="8" y2="38" stroke="${tick === 0 ? '#6b7280' : '#e5e7eb'}"${tick === 0 ? ' stroke-dasharray="4 3"' : ''}/>`,
      `<text class="axis" x="${f1(x(tick))}" y="56" text-anchor="middle">${tick === 0 ? '0' : points(tick).replace(' pts', '')}</text>`,
    );
  if (comparison.deltaSolveRate !== null) {
    const [lo, hi] = comparison.deltaSolveRateCi95 ?? [comparison.deltaSolveRate, comparison.deltaSolveRate];
    const colour = hi < 0 ? '#b91c1c' : lo > 0 ? '#047857' : '#1f2937';
    parts.push(
      `<g data-delta="${num(comparison.deltaSolveRate)}" data-lo="${num(lo)}" data-hi="${num(hi)}"><title>${tip(`Δ ${points(comparison.deltaSolveRate)}, 95% CI ${points(lo)} to ${points(hi)}`)}</title>`,
      `<line x1="${f1(x(lo))}" x2="${f1(x(hi))}" y1="23" y2="23" stroke="${colour}" stroke-width="3"/>`,
      `<circle cx="${f1(x(comparison.deltaSolveRate))}" cy="23" r="7" fill="${colour}" stroke="#fff" stroke-width="2"/></g>`,
    );
  }
  parts.push('</svg>');
  return parts.join('');
}

// ——— HTML sections ———

const STATUS_LABELS = {
  solved: 'solved',
  unsolved: 'unsolved',
  errored: 'errored',
  incomplete: 'incomplete',
  over_budget: 'over budget',
} as const;

function statusBar(counts: EvalbookSummary['statusCounts'], total: number): string {
  const entries = Object.entries(STATUS_LABELS) as [keyof typeof STATUS_LABELS, string][];
  const bar = entries
    .filter(([status]) => counts[status] > 0)
    .map(
      ([status, label]) =>
        `<span class="s-${status}" style="width:${f1((100 * counts[status]) / Math.max(1, total))}%" title="${counts[status]} ${label}"></span>`,
    )
    .join('');
  const legend = entries
    .map(
      ([status, label]) =>
        `<li data-status="${status}" data-count="${counts[status]}"><span class="swatch s-${status}"></span>${count(counts[status])} ${label}</li>`,
    )
    .join('');
  return `<div class="statusbar" aria-hidden="true">${bar}</div><ul class="legend">${legend}</ul>`;
}

function header(input: HtmlReportInput): string {
  const { summary } = input;
  const coverage = summary.coverage;
  const policy =
    summary.denominatorPolicy === 'all_attempts'
      ? 'all attempts — errored, incomplete and over-budget attempts count against the rate'
      : 'evaluated attempts only — errored, incomplete and over-budget attempts are left out';
  const counts = summary.statusCounts;
  const excluded: string[] = [];
  if (summary.denominatorPolicy === 'evaluated_only')
    for (const status of ['errored', 'incomplete', 'over_budget'] as const)
      if (counts[status] > 0) excluded.push(`${counts[status]} ${STATUS_LABELS[status]}`);
  const leftOut = leftOutText(summary);
  const retracted =
    leftOut === null && summary.retractions.length === 0
      ? ''
      : `<div class="note warn" data-left-out="${summary.leftOut.foreign + summary.leftOut.retracted + summary.leftOut.retried}" data-foreign="${summary.leftOut.foreign}" data-retracted="${summary.leftOut.retracted}" data-retried="${summary.leftOut.retried}">${leftOut === null ? '' : `<p>${text(leftOut)}.</p>`}${summary.retractions.length === 0 ? '' : `<ul>${summary.retractions.map((retraction) => `<li data-retraction>${text(retractionText(retraction))}</li>`).join('')}</ul>`}</div>`;
  // One box per gate, each with its own verdict; data-gates on the wrapper is the overall one.
  const gate =
    input.gate === null
      ? ''
      : `<div class="gates" data-gates="${input.gate.passed ? 'passed' : 'failed'}">${input.gate.gates
          .map((entry) =>
            entry.passed
              ? `<div class="gate passed" data-gate="passed" data-fail-on="${esc(entry.failOn)}">Gate <code>${text(entry.failOn)}</code>: passed on ${text(entry.judged)}</div>`
              : `<div class="gate failed" data-gate="failed" data-fail-on="${esc(entry.failOn)}">Gate <code>${text(entry.failOn)}</code>: FAILED on ${text(entry.judged)}<ul>${entry.reasons.map((reason) => `<li>${text(reason)}</li>`).join('')}</ul></div>`,
          )
          .join('')}</div>`;
  const notWithin = input.budgets.filter((budget) => budget.status !== 'within');
  const budgets =
    notWithin.length === 0
      ? input.budgets.length === 0
        ? ''
        : `<p class="note" data-budgets="within">All ${input.budgets.length} budget(s) within their limits.</p>`
      : `<h3>Budgets not within their limits</h3><div class="table-wrap"><table data-budgets="not-within"><thead><tr><th scope="col">Scope</th><th scope="col">Run</th><th scope="col">Config</th><th scope="col">Status</th><th scope="col" class="n">Spent</th><th scope="col" class="n">Legacy ledger</th><th scope="col" class="n">Limit</th><th scope="col" class="n">Unpriced</th></tr></thead><tbody>${notWithin
          .map(
            (budget) =>
              `<tr><td>${budget.scope}</td><td>${text(budget.runId)}</td><td>${text(budget.configId ?? '—')}</td><td class="${budget.status === 'exceeded' ? 'bad' : 'warn'}">${budget.status}</td><td class="n">${money(budget.spentNanodollars)}</td><td class="n">${money(budget.legacyLedgerNanodollars)}</td><td class="n">${money(budget.limitNanodollars)}</td><td class="n">${budget.unpriced}</td></tr>`,
          )
          .join('')}</tbody></table></div>`;
  const embedded =
    input.attempts.length < summary.attempts
      ? `<p class="note warn" data-embedded="${input.attempts.length}">This page embeds ${count(input.attempts.length)} of ${count(summary.attempts)} attempts for the drill-down; the grid, plots and tables count them all. ${input.site === undefined ? '<code>evals report --format json</code> lists every attempt.' : "Each case's page lists every attempt of the case, linked to its page."}</p>`
      : '';
  return `<header>
<h1>${text(input.title)}</h1>
<p class="meta">${esc(input.storeLabel ?? 'Store')} <code>${text(input.storeUrl)}</code> · ${summary.runs.length} run(s) · ${summary.cases.length} case(s) × ${summary.configs.length} config(s)</p>
<nav aria-label="Sections">${summary.comparison === null ? '' : '<a href="#comparison">Comparison</a>'}<a href="#configs">Configs</a>${summary.policy === null ? '' : '<a href="#policy">Policy</a>'}<a href="#plots">Plots</a><a href="#grid">Grid</a>${summary.checkRates.length === 0 ? '' : '<a href="#checks">Checks</a>'}<a href="#drilldown">Attempts</a></nav>
${gate}
<div class="cards">
<div class="card" data-summary="attempts" data-value="${summary.attempts}"><div class="label">Attempts</div><div class="value">${count(summary.attempts)}</div><div class="sub">${count(counts.solved)} solved${summary.runs.length > 1 ? ` · all ${summary.runs.length} runs` : ''}</div></div>
<div class="card" data-summary="coverage" data-priced="${coverage.priced}" data-attempts="${coverage.attempts}"><div class="label">Cost coverage</div><div class="value">${count(coverage.priced)} of ${count(coverage.attempts)} priced</div><div class="sub">${count(coverage.providerReported)} provider-reported, ${count(coverage.estimated)} estimated; priced total ${money(coverage.pricedTotalNanodollars)}${coverage.unpriced > 0 ? ` — ${count(coverage.unpriced)} unpriced, not counted as $0` : ''}${coverage.legacyLedger > 0 ? `; legacy ledger ${money(coverage.legacyLedgerTotalNanodollars)} on ${coverage.legacyLedger} (kept apart)` : ''}</div></div>
<div class="card" data-summary="denominator" data-policy="${summary.denominatorPolicy}"><div class="label">Denominator</div><div class="value">${summary.denominatorPolicy === 'all_attempts' ? 'All attempts' : 'Evaluated only'}</div><div class="sub">${text(policy)}${excluded.length === 0 ? '; nothing excluded' : `; excluded: ${text(excluded.join(', '))}`}</div></div>
<div class="card" data-summary="artifacts" data-verified="${summary.artifactVerification.verified}" data-unverified="${summary.artifactVerification.unverified}" data-mismatched="${summary.artifactVerification.mismatched}"><div class="label">Artifacts</div><div class="value">${count(summary.artifactVerification.verified)} of ${count(summary.attempts)} verified</div><div class="sub">${text(artifactCountsText(summary.artifactVerification))}: transcript and artifact bytes checked under an artifact root at ingest</div></div>
<div class="card" data-summary="flaky" data-value="${summary.flakyCells.length}"><div class="label">Flaky cells</div><div class="value">${summary.flakyCells.length}</div><div class="sub">case × config cells with both solved and unsolved attempts in the newest run${summary.latestRun === null ? '' : ` (<code>${text(summary.latestRun)}</code>)`}</div></div>
</div>
${statusBar(counts, summary.attempts)}
${retracted}
${budgets}
${embedded}
</header>`;
}

function caseRates(
  rows: readonly Comparison['regressions'][number][],
  comparison: Comparison,
  kind: string,
): string {
  if (rows.length === 0) return '';
  // Runs compared: each case on each config is a pair (the configs are not pooled).
  const cases = comparison.by === 'run' ? 'cases, each on its config,' : 'cases';
  return `<div class="table-wrap"><table data-cases="${kind}"><caption class="note">${kind === 'regressions' ? `Regressions: ${cases} ${text(comparison.b)} solves less often than ${text(comparison.a)}, worst first` : `Improvements: ${cases} ${text(comparison.b)} solves more often, best first`}</caption><thead><tr><th scope="col">${comparison.by === 'run' ? 'Case on config' : 'Case'}</th><th scope="col" class="n">${text(comparison.a)} (A)</th><th scope="col" class="n">${text(comparison.b)} (B)</th><th scope="col" class="n">Δ</th></tr></thead><tbody>${rows
    .map(
      (row) =>
        `<tr data-case="${esc(row.caseId)}"${row.configId === null ? '' : ` data-config="${esc(row.configId)}"`} data-delta="${num(row.delta)}"><th scope="row">${text(deltaName(row))}</th><td class="n">${percent(row.aSolveRate)}</td><td class="n">${percent(row.bSolveRate)}</td><td class="n ${row.delta < 0 ? 'bad' : 'good'}">${points(row.delta)}</td></tr>`,
    )
    .join('')}</tbody></table></div>`;
}

function comparisonSection(comparison: Comparison | null, identity: Identities): string {
  if (comparison === null) return '';
  const about = (name: string): string => {
    const said = comparison.by === 'config' ? configText(identity, name) : '';
    return said === '' ? '' : ` — ${text(said)}`;
  };
  const delta = comparison.deltaSolveRate;
  const ci = comparison.deltaSolveRateCi95;
  const verdict =
    delta === null
      ? 'No shared case to compare.'
      : ci === null
        ? `Inconclusive: no interval over ${sharedUnits(comparison)} (fewer than 2 shared cases).`
        : ci[1] < 0
          ? `${comparison.b} solves fewer cases than ${comparison.a}: the whole 95% interval is below 0.`
          : ci[0] > 0
            ? `${comparison.b} solves more cases than ${comparison.a}: the whole 95% interval is above 0.`
            : 'No clear difference: the 95% interval includes 0.';
  const costDelta = comparison.cost.meanDeltaNanodollars;
  return `<section id="comparison" aria-labelledby="comparison-title" data-comparison data-a="${esc(comparison.a)}" data-b="${esc(comparison.b)}" data-delta="${num(delta)}" data-lo="${num(ci?.[0] ?? null)}" data-hi="${num(ci?.[1] ?? null)}" data-mcnemar-p="${num(comparison.mcnemarP)}" data-a-wins="${comparison.aWins}" data-b-wins="${comparison.bWins}" data-ties="${comparison.ties}">
<h2 id="comparison-title">${text(comparison.b)} (B) vs ${text(comparison.a)} (A), by ${comparison.by}</h2>
<p class="${ci !== null && ci[1] < 0 ? 'bad' : ci !== null && ci[0] > 0 ? 'good' : ''}"><strong>${text(verdict)}</strong></p>
<p class="note" data-sides>A: <code>${text(comparison.a)}</code>${about(comparison.a)} · B: <code>${text(comparison.b)}</code>${about(comparison.b)}</p>
<div class="cards">
<div class="card"><div class="label">Δ solve rate (B − A)</div><div class="value">${delta === null ? 'n/a' : points(delta)}</div><div class="sub">${ci === null ? 'no interval' : `95% CI ${points(ci[0])} to ${points(ci[1])}`} (paired bootstrap over ${sharedUnits(comparison)})</div></div>
<div class="card"><div class="label">Cases</div><div class="value small"><span class="good">${comparison.bWins} better</span> · <span class="bad">${comparison.aWins} worse</span> · ${comparison.ties} tied</div><div class="sub">${sharedUnits(comparison)}${comparison.unsharedCases > 0 ? `; ${comparison.unsharedCases} on one side only, not compared` : ''}</div></div>
<div class="card"><div class="label">McNemar exact p</div><div class="value">${comparison.mcnemarP.toPrecision(3)}</div><div class="sub">discordant cases: ${comparison.discordant.aOnly} only A solves, ${comparison.discordant.bOnly} only B solves</div></div>
<div class="card" data-cost-delta="${num(costDelta)}"><div class="label">Cost per attempt (B − A)</div><div class="value">${costDelta === null ? 'n/a' : signedUsd(costDelta)}</div><div class="sub">A: ${text(comparison.cost.a.text)}<br>B: ${text(comparison.cost.b.text)}${costDelta === null ? '<br>a side has no priced attempt' : ''}</div></div>
</div>
<figure class="delta"><figcaption>Δ solve rate with its 95% interval</figcaption>${deltaPlot(comparison)}</figure>
${comparison.regressions.length === 0 ? '<p data-cases="regressions" class="good">No case regressed.</p>' : caseRates(comparison.regressions, comparison, 'regressions')}
${caseRates(comparison.improvements, comparison, 'improvements')}
</section>`;
}

/** Which runs the view's per-config rates are, in a sentence (and how to get the other view). */
function viewScopeText(summary: EvalbookSummary, view: GridView): string {
  const shown = viewOf(summary, view);
  const other =
    shown.kind === 'newest_run' && summary.runs.length > 1
      ? ' (evals report --all-runs pools every run)'
      : shown.kind === 'all_runs' && summary.runs.length > 1
        ? ' (without --all-runs: the newest run)'
        : '';
  return `Per-config rates of ${shown.text}${other}, as the gates judge them.`;
}

/** The per-config rates of the view the page opens on (the grid's runs), and which runs they are. */
function configsSection(summary: EvalbookSummary, view: GridView): string {
  const identity = identities(summary);
  const shown = shownGrid(summary, view);
  const rows = shown.configStats
    .map((config) => {
      const mean = meanCost(config.cost);
      return `<tr data-config="${esc(config.configId)}" data-rate="${num(config.solveRate)}"><th scope="row" data-sort="${esc(config.configId)}"><span class="swatch" style="background:${configColour(summary, config.configId)}"></span>${configHead(identity, config.configId)}</th><td class="n">${percent(config.solveRate, 1)}</td><td class="n">${ciText(config.ci95)}</td><td class="n">${config.solved} / ${config.denominator.counted}</td><td>${text(excludedText(config)) || '—'}</td><td class="n">${config.cases}</td><td class="n">${config.cost.priced} of ${config.cost.attempts}</td><td class="n">${mean === null ? 'unpriced' : money(mean)}</td><td class="n">${config.costPerSolvedNanodollars === null ? (config.cost.unpriced > 0 && config.solved > 0 ? 'n/a (some unpriced)' : 'n/a') : money(config.costPerSolvedNanodollars)}</td></tr>`;
    })
    .join('');
  return `<section id="configs" aria-labelledby="configs-title"><h2 id="configs-title">Configs</h2>
<p class="note" data-view="${viewOf(summary, view).kind}">${text(viewScopeText(summary, view))}</p>
<div class="table-wrap"><table><thead><tr><th scope="col">Config</th><th scope="col" class="n">Rate</th><th scope="col" class="n" title="95% interval: percentile bootstrap over cases">95% CI</th><th scope="col" class="n" title="solved / counted attempts">Solved</th><th scope="col">Excluded</th><th scope="col" class="n">Cases</th><th scope="col" class="n" title="attempts priced, of all">Priced</th><th scope="col" class="n" title="mean cost of a priced attempt">Cost / attempt</th><th scope="col" class="n">Cost / solve</th></tr></thead><tbody>${rows}</tbody></table></div>
<p class="note">Rate: solved ÷ counted attempts. 95% CI: a percentile bootstrap resampling cases (attempts of one case move together), not the grid cells' Wilson interval. Cost / attempt: the mean of the priced attempts. Cost per solve is shown only when every attempt is priced: with unpriced attempts the total is a lower bound.</p>
</section>`;
}

function policySection(stats: readonly PolicyStat[] | null): string {
  if (stats === null) return '';
  const rows = stats
    .map((stat) => {
      const counts = Object.entries(stat.counts)
        .map(([agreement, n]) => ` data-${agreement.replaceAll('_', '-')}="${n}"`)
        .join('');
      return `<tr data-config="${esc(stat.configId)}" data-policy-digest="${esc(stat.policyDigest)}" data-tool-calls="${stat.toolCalls}"${counts}><th scope="row" class="nowrap">${text(stat.configId)}</th><td class="nowrap"><code title="${tip(stat.policyDigest)}">${esc(truncate(stat.policyDigest, 19))}</code></td><td class="n">${count(stat.toolCalls)}</td><td class="n">${count(stat.counts.agree)}</td><td class="n${stat.counts.policy_denies_runner_allowed > 0 ? ' bad' : ''}">${count(stat.counts.policy_denies_runner_allowed)}</td><td class="n${stat.counts.runner_denied_policy_allows > 0 ? ' warn' : ''}">${count(stat.counts.runner_denied_policy_allows)}</td><td class="n">${count(stat.counts.policy_error)}</td><td class="n${stat.counts.policy_verdict_unfamiliar > 0 ? ' warn' : ''}">${count(stat.counts.policy_verdict_unfamiliar)}</td><td class="n">${count(stat.counts.no_recorded_outcome)}</td></tr>`;
    })
    .join('');
  return `<section id="policy" aria-labelledby="policy-title"><h2 id="policy-title">Policy replay</h2>
${
  stats.length === 0
    ? '<p class="note">No policy verdicts for the attempts in scope.</p>'
    : `<div class="table-wrap"><table data-policy><thead><tr><th scope="col">Config</th><th scope="col">Policy bundle</th><th scope="col" class="n">Tool calls</th><th scope="col" class="n">Agree</th><th scope="col" class="n">Policy denies, runner allowed</th><th scope="col" class="n">Runner denied, policy allows</th><th scope="col" class="n">Policy error</th><th scope="col" class="n">Unfamiliar verdict</th><th scope="col" class="n">No recorded outcome</th></tr></thead><tbody>${rows}</tbody></table></div>`
}
<p class="note">Each tool call replayed through the policy (<code>evals policy replay --store</code>) and compared with the runner's recorded outcome; deny and ask both count as "not allowed". A policy error, a verdict Evals does not know (kept whole as the producer sent it) or a call without a recorded result is never counted as agreement.</p>
</section>`;
}

/** The check drift table lists at most this many rows (drifting first); the JSON report has all. */
const MAX_DRIFT_ROWS = 200;
const DRIFT_LABELS: Readonly<Record<CheckDrift['status'], string>> = {
  drift_detected: 'drift',
  below_threshold: 'below threshold',
  ok: 'ok',
  insufficient_history: 'too few runs',
};

/** A check's score per run as a small line, with its drift bar dashed when there is one. */
function sparkline(drift: CheckDrift): string {
  const scored = drift.runs.filter((run) => run.score !== null);
  const width = 120;
  const height = 24;
  const x = (index: number): number =>
    scored.length < 2 ? width / 2 : 2 + (index * (width - 4)) / (scored.length - 1);
  const y = (score: number): number => height - 2 - score * (height - 4);
  const line = scored.map((run, index) => `${f1(x(index))},${f1(y(run.score ?? 0))}`).join(' ');
  const last = scored.at(-1);
  return `<svg class="spark" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-label="${esc(`score per run: ${scored.map((run) => (run.score ?? 0).toFixed(2)).join(', ')}`)}">${drift.bar === null ? '' : `<line x1="0" x2="${width}" y1="${f1(y(drift.bar))}" y2="${f1(y(drift.bar))}"/>`}<polyline points="${line}"/>${last === undefined ? '' : `<circle r="2.5" cx="${f1(x(scored.length - 1))}" cy="${f1(y(last.score ?? 0))}"/>`}</svg>`;
}

/** `site`: a published site's page, which has no JSON report to point at. */
function checkDriftSection(all: readonly CheckDrift[], site: boolean): string {
  if (all.length === 0) return '';
  // Series without a bar yet are counted, not listed: a young evalbook would be all rows and no news.
  const drifts = all.filter((drift) => drift.status !== 'insufficient_history');
  const young = all.length - drifts.length;
  const score = (value: number | null): string => (value === null ? 'n/a' : value.toFixed(3));
  const rows = drifts
    .slice(0, MAX_DRIFT_ROWS)
    .map(
      (drift) =>
        `<tr data-case="${esc(drift.caseId)}" data-check="${esc(drift.checkId)}" data-config="${esc(drift.configId)}" data-status="${drift.status}" data-latest="${num(drift.latestScore)}" data-bar="${num(drift.bar)}" data-baseline-runs="${drift.baselineRuns}"><th scope="row" class="nowrap">${text(drift.checkId)}</th><td>${text(drift.caseId)}</td><td>${text(drift.configId)}</td><td class="n">${drift.layer === null ? 'runner' : text(String(drift.layer))}</td><td>${sparkline(drift)}</td><td class="n">${score(drift.latestScore)}${drift.latestRunId === null ? '' : ` <span class="note">${text(drift.latestRunId)}</span>`}</td><td class="n">${drift.mean === null ? 'n/a' : `${score(drift.mean)} ± ${score(drift.stddev)}`} <span class="note">(${drift.baselineRuns} runs)</span></td><td class="n">${score(drift.bar)}</td><td><span class="chip ${drift.status}">${DRIFT_LABELS[drift.status]}</span></td></tr>`,
    )
    .join('');
  const drifting = drifts.filter((drift) => drift.status === 'drift_detected').length;
  const low = drifts.filter((drift) => drift.status === 'below_threshold').length;
  return `<section id="check-drift" aria-labelledby="check-drift-title"><h2 id="check-drift-title">Check drift across runs</h2>
<p>${drifting === 0 ? 'No check drifted.' : `<strong class="bad">${drifting} check${drifting === 1 ? '' : 's'} drifted</strong>: the newest run fell below ${drifting === 1 ? 'its' : 'their'} own history.`}${low === 0 ? '' : ` ${low} below ${low === 1 ? 'its' : 'their'} static threshold, as low as usual.`}</p>
${young > 0 ? `<p class="note" data-insufficient-history="${young}">${count(young)} check series ${young === 1 ? 'has' : 'have'} fewer than 10 earlier scored runs: no bar yet${site ? '' : ' (listed in the JSON report)'}.</p>` : ''}
${drifts.length === 0 ? '' : `<div class="table-wrap"><table data-check-drift><thead><tr><th scope="col">Check</th><th scope="col">Case</th><th scope="col">Config</th><th scope="col" class="n">Layer</th><th scope="col">Score per run</th><th scope="col" class="n">Newest run</th><th scope="col" class="n">Baseline mean ± sd</th><th scope="col" class="n">Bar</th><th scope="col">Status</th></tr></thead><tbody>${rows}</tbody></table></div>`}
${drifts.length > MAX_DRIFT_ROWS ? `<p class="note">${count(drifts.length - MAX_DRIFT_ROWS)} more rows${site ? ' not listed here' : ' in the JSON report'}.</p>` : ''}
<p class="note">A run's score is the mean of the check's verdicts in that run (errors and missing verdicts are left out, never 0). The newest scored run is held to max(static threshold, mean − 2·max(sd, 0.02)) over up to 50 earlier runs, and needs 10 of them; dashed line: the bar. Drift: below mean − 2·max(sd, 0.02); below threshold: under the static threshold but no lower than usual.</p>
</section>`;
}

function plotsSection(summary: EvalbookSummary, view: GridView): string {
  const stats = shownGrid(summary, view).configStats;
  if (stats.length === 0)
    return '<section id="plots" aria-labelledby="plots-title"><h2 id="plots-title">Plots</h2><p class="note">Nothing to plot: no attempts in scope.</p></section>';
  const partly = stats.filter(
    (config) => config.cost.priced > 0 && config.cost.priced < config.cost.attempts,
  );
  const uncounted = stats.filter((config) => config.solveRate === null);
  return `<section id="plots" aria-labelledby="plots-title"><h2 id="plots-title">Plots</h2><div class="plots">
<figure><figcaption>Solve rate per config: ${text(viewOf(summary, view).text)}</figcaption>${solveRatePlot(summary, stats)}<p class="note">Dot: solved ÷ counted. Whiskers: 95% bootstrap interval clustered by case.</p></figure>
<figure><figcaption>Cost vs solve rate: ${text(viewOf(summary, view).text)}</figcaption>${costPlot(summary, stats)}<p class="note">x: mean cost of a priced attempt; whiskers: 95% interval of the solve rate. Filled: every attempt priced; hollow: partly priced${partly.length > 0 ? ` (${partly.map((config) => `${text(config.configId)}: ${config.cost.priced} of ${config.cost.attempts}`).join(', ')})` : ''}; dashed diamond: no attempt priced — shown apart, never at $0.${uncounted.length > 0 ? ` Not plotted (nothing counted): ${uncounted.map((config) => text(config.configId)).join(', ')}.` : ''}</p></figure>
<figure><figcaption>Solve rate across runs</figcaption>${trendPlot(summary)}<p class="note">Each run's solve rate per config${summary.runs.length > 1 ? '' : ' (one run so far)'}; a run where a config counted nothing leaves a gap.</p></figure>
</div></section>`;
}

/** What each case and config is (from the environment), by id. */
interface Identities {
  readonly cases: ReadonlyMap<string, EvalbookSummary['identity']['cases'][number]>;
  readonly configs: ReadonlyMap<string, EvalbookSummary['identity']['configs'][number]>;
}
const identities = (summary: EvalbookSummary): Identities => ({
  cases: new Map(summary.identity.cases.map((entry) => [entry.caseId, entry])),
  configs: new Map(summary.identity.configs.map((entry) => [entry.configId, entry])),
});
/** "model · driver — description" of a config, or "" when the environment says nothing of it. */
function configText(identity: Identities, configId: string): string {
  const entry = identity.configs.get(configId);
  if (entry === undefined) return '';
  const made = [entry.model, entry.driver].filter((part) => part !== null).join(' · ');
  return [made, entry.description ?? ''].filter((part) => part !== '').join(' — ');
}
/** A config's id as a header: the id, and what it is on a second line (and in its tooltip). */
function configHead(identity: Identities, configId: string): string {
  const about = configText(identity, configId);
  return `${text(configId)}${about === '' ? '' : `<span class="sub" title="${tip(about)}">${text(about)}</span>`}`;
}
/** A case's id as a row header: the id, its description below, its prompt in the tooltip. */
function caseHead(identity: Identities, caseId: string): string {
  const entry = identity.cases.get(caseId);
  const description = entry?.description ?? null;
  const prompt = entry?.prompt ?? null;
  return `${text(caseId)}${description === null ? '' : `<span class="sub">${text(description)}</span>`}${prompt === null ? '' : `<span class="sub prompt" title="${tip(prompt)}">prompt: ${text(truncate(prompt, 80))}</span>`}`;
}

/** One grid cell (of the newest run's grid or the pooled one), with every number on a data-* attribute. */
function gridCell(cell: GridCell, scope: 'latest' | 'all', marks: readonly string[]): string {
  const counts = cell.statusCounts;
  const total = Object.values(counts).reduce((sum, n) => sum + n, 0);
  const mini = (Object.keys(STATUS_LABELS) as (keyof typeof STATUS_LABELS)[])
    .filter((status) => counts[status] > 0)
    .map(
      (status) =>
        `<span class="s-${status}" style="width:${f1((100 * counts[status]) / Math.max(1, total))}%"></span>`,
    )
    .join('');
  const notAgent = (['errored', 'incomplete', 'over_budget'] as const)
    .filter((status) => counts[status] > 0)
    .map((status) => `<span class="flag">${counts[status]} ${STATUS_LABELS[status]}</span>`);
  const title = [
    `${cell.caseId} × ${cell.configId}: ${cell.solved}/${cell.denominator.counted} solved (${percent(cell.solveRate, 1)}), Wilson 95% ${ciText(cell.ci95)}`,
    (Object.keys(STATUS_LABELS) as (keyof typeof STATUS_LABELS)[])
      .filter((status) => counts[status] > 0)
      .map((status) => `${counts[status]} ${STATUS_LABELS[status]}`)
      .join(', '),
    excludedText(cell),
    `cost: ${cell.cost.text}`,
  ]
    .filter((line) => line !== '')
    .join('\n');
  const allMarks = [
    ...marks,
    ...(cell.flaky ? ['<span class="flag" data-flaky-mark>~ flaky</span>'] : []),
    ...notAgent,
  ];
  return `<td class="cell" data-scope="${scope}" data-case="${esc(cell.caseId)}" data-config="${esc(cell.configId)}" data-solved="${cell.solved}" data-counted="${cell.denominator.counted}" data-rate="${num(cell.solveRate)}" data-lo="${num(cell.ci95?.[0] ?? null)}" data-hi="${num(cell.ci95?.[1] ?? null)}" data-flaky="${String(cell.flaky)}" data-unsolved="${counts.unsolved}" data-errored="${counts.errored}" data-incomplete="${counts.incomplete}" data-over-budget="${counts.over_budget}" data-sort="${cell.solveRate === null ? '-1' : num(cell.solveRate)}" style="background:${rateColour(cell.solveRate)}" title="${tip(title)}"><span class="frac">${cell.solved}/${cell.denominator.counted}</span><span class="pct">${percent(cell.solveRate)}</span><span class="ci">${cell.ci95 === null ? 'no interval' : `CI ${ciText(cell.ci95)}`}</span>${allMarks.length > 0 ? `<span class="marks">${allMarks.join('')}</span>` : ''}<span class="mini" aria-hidden="true">${mini}</span></td>`;
}

/** A newest-run cell's change since the cell's previous run, as a mark. */
function trendMark(cell: LatestGridCell): string {
  if (cell.previous === null) return '<span class="trend new" data-trend="new">new in this run</span>';
  if (cell.delta === null)
    return `<span class="trend" data-trend="">was ${percent(cell.previous.solveRate)} in ${text(truncate(cell.previous.runId, 20))}</span>`;
  const kind = cell.delta < 0 ? 'down' : cell.delta > 0 ? 'up' : 'flat';
  const arrow = kind === 'down' ? '▼' : kind === 'up' ? '▲' : '=';
  return `<span class="trend ${kind}" data-trend="${num(cell.delta)}" title="${tip(`${percent(cell.previous.solveRate, 1)} (${cell.previous.solved}/${cell.previous.counted}) in ${cell.previous.runId}`)}">${arrow} ${kind === 'flat' ? 'same as' : `${points(cell.delta)} vs`} ${text(truncate(cell.previous.runId, 20))}</span>`;
}

/** A pooled cell's rate drops this much (or more) in the newest run: the pooled cell says so. */
const NEWEST_LOWER_BY = 0.1;

function gridTable(summary: EvalbookSummary, identity: Identities, scope: 'latest' | 'all'): string {
  const latest = new Map(summary.latestGrid.map((cell) => [`${cell.caseId}\u0000${cell.configId}`, cell]));
  const pooled = new Map(summary.grid.map((cell) => [`${cell.caseId}\u0000${cell.configId}`, cell]));
  const run = summary.latestRun ?? '';
  const body = summary.cases
    .map(
      (caseId) =>
        `<tr data-case="${esc(caseId)}"><th scope="row" data-sort="${esc(caseId)}">${caseHead(identity, caseId)}</th>${summary.configs
          .map((configId) => {
            const key = `${caseId}\u0000${configId}`;
            const newest = latest.get(key);
            if (scope === 'latest')
              return newest === undefined
                ? `<td class="cell empty" data-scope="latest" data-case="${esc(caseId)}" data-config="${esc(configId)}" data-empty="true" data-sort="-2" title="${tip(`no attempt in ${run}`)}">—${pooled.has(key) ? `<span class="ci">not in ${text(truncate(run, 20))}</span>` : ''}</td>`
                : gridCell(newest, 'latest', [trendMark(newest)]);
            const cell = pooled.get(key);
            if (cell === undefined)
              return `<td class="cell empty" data-scope="all" data-case="${esc(caseId)}" data-config="${esc(configId)}" data-empty="true" data-sort="-2" title="no attempts">—</td>`;
            const lower =
              newest !== undefined &&
              newest.solveRate !== null &&
              cell.solveRate !== null &&
              newest.solveRate <= cell.solveRate - NEWEST_LOWER_BY;
            return gridCell(
              cell,
              'all',
              lower
                ? [
                    `<span class="flag bad" data-newest-lower>newest run ${percent(newest.solveRate)} (${newest.solved}/${newest.denominator.counted})</span>`,
                  ]
                : [],
            );
          })
          .join('')}</tr>`,
    )
    .join('');
  const caption =
    scope === 'latest'
      ? `Newest run <code>${text(run)}</code>: each cell is that run's solved / counted attempts, solve rate and Wilson 95% interval, and its change since the cell's previous run (▼ fell, ▲ rose); ~ flaky: solved and unsolved attempts in this run; hatched: no attempt in this run.`
      : `All ${count(summary.runs.length)} run(s) pooled: solved / counted, solve rate, Wilson 95% interval; a cell whose newest run is ${Math.round(NEWEST_LOWER_BY * 100)} points or more lower says so; ~ flaky: some run has both solved and unsolved attempts; hatched: no attempts.`;
  return `<div class="grid-scope" data-grid-scope="${scope}"><h3>${scope === 'latest' ? `Newest run: ${text(run)}` : 'All runs'}</h3><div class="table-wrap"><table class="grid" data-scope="${scope}"><caption class="note">${caption}</caption>
<thead><tr><th scope="col">Case</th>${summary.configs.map((configId) => `<th scope="col" data-config="${esc(configId)}">${configHead(identity, configId)}</th>`).join('')}</tr></thead><tbody>${body}</tbody></table></div></div>`;
}

function gridSection(summary: EvalbookSummary): string {
  const identity = identities(summary);
  return `<section id="grid" aria-labelledby="grid-title"><h2 id="grid-title">Grid: cases × configs</h2>
${summary.latestRun === null ? '<p class="note">No attempts in scope.</p>' : `${gridTable(summary, identity, 'latest')}\n${gridTable(summary, identity, 'all')}`}
<ul class="legend" aria-label="Attempt statuses">${(Object.entries(STATUS_LABELS) as [string, string][]).map(([status, label]) => `<li><span class="swatch s-${status}"></span>${label}</li>`).join('')}</ul>
</section>`;
}

/** The filters and the scope switch (the page's script shows them and wires them; hidden without it). */
function controls(summary: EvalbookSummary, view: GridView): string {
  if (summary.latestRun === null) return '';
  const all = view === 'all_runs';
  return `<div class="controls" id="controls" hidden>
<div class="scope" role="group" aria-label="Which runs the grid shows"><button type="button" data-scope-button="latest" aria-pressed="${String(!all)}">Newest run <code>${text(truncate(summary.latestRun, 24))}</code></button><button type="button" data-scope-button="all" aria-pressed="${String(all)}">All ${count(summary.runs.length)} run(s)</button></div>
<label>Status <select id="status-filter"><option value="all">all</option><option value="failures">failures (unsolved)</option><option value="errors">errors</option><option value="incomplete">incomplete</option><option value="flaky">flaky</option></select></label>
<label>Search <input type="search" id="search" placeholder="case or config" autocomplete="off" spellcheck="false"></label>
<span class="note" id="filter-count" aria-live="polite"></span>
</div>`;
}

/** Checks × configs: each check's pass rate per config, the newest run first, every run below. */
function checksSection(summary: EvalbookSummary): string {
  if (summary.checkRates.length === 0 && summary.perCallObservations === 0) return '';
  const identity = identities(summary);
  const byCheck = new Map<string, CheckRate[]>();
  for (const rate of summary.checkRates) {
    const list = byCheck.get(rate.checkId);
    if (list === undefined) byCheck.set(rate.checkId, [rate]);
    else list.push(rate);
  }
  const share = (counts: CheckCounts): string =>
    `${counts.pass}/${counts.pass + counts.fail + counts.softFail}`;
  const unscored = (counts: CheckCounts): string =>
    [
      counts.error > 0 ? `${counts.error} error` : '',
      counts.notEvaluated > 0 ? `${counts.notEvaluated} no verdict` : '',
    ]
      .filter((part) => part !== '')
      .join(', ');
  const rows = [...byCheck]
    .map(([checkId, rates]) => {
      const first = rates[0];
      const cells = summary.configs
        .map((configId) => {
          const rate = rates.find((entry) => entry.configId === configId);
          if (rate === undefined)
            return `<td class="empty" data-check="${esc(checkId)}" data-config="${esc(configId)}" data-sort="-2">—</td>`;
          const shown = rate.latest ?? rate.all;
          const extra = unscored(shown);
          return `<td class="n" data-check="${esc(checkId)}" data-config="${esc(configId)}" data-pass-rate="${num(rate.latest?.passRate ?? null)}" data-all-pass-rate="${num(rate.all.passRate)}" data-pass="${rate.all.pass}" data-fail="${rate.all.fail}" data-soft-fail="${rate.all.softFail}" data-error="${rate.all.error}" data-not-evaluated="${rate.all.notEvaluated}" data-sort="${rate.latest?.passRate ?? -1}" style="background:${rateColour(rate.latest?.passRate ?? null)}">${rate.latest === null ? '<span class="note">not in newest run</span>' : `<strong>${percent(rate.latest.passRate)}</strong> ${share(rate.latest)}`}${extra === '' ? '' : ` <span class="note">${extra}</span>`}<span class="ci">all runs ${percent(rate.all.passRate)} (${share(rate.all)})</span></td>`;
        })
        .join('');
      return `<tr data-check="${esc(checkId)}"><th scope="row" data-sort="${esc(checkId)}">${text(checkId)}${first?.description === null || first === undefined ? '' : `<span class="sub">${text(first.description)}</span>`}</th><td data-sort="${first?.layer ?? 0}">${first === undefined || first.layer === null ? 'runner' : text(String(first.layer))}</td>${cells}</tr>`;
    })
    .join('');
  return `<section id="checks" aria-labelledby="checks-title"><h2 id="checks-title">Checks × configs</h2>
${summary.checkRates.length === 0 ? '<p class="note">No case checks in scope.</p>' : `<div class="table-wrap"><table data-check-rates><caption class="note">Each check's pass rate per config in the newest run${summary.latestRun === null ? '' : ` (<code>${text(summary.latestRun)}</code>)`}, and over every run in scope below it: passes ÷ verdicts (errors and missing verdicts are counted apart, never as a fail).</caption><thead><tr><th scope="col">Check</th><th scope="col">Layer</th>${summary.configs.map((configId) => `<th scope="col" data-config="${esc(configId)}">${configHead(identity, configId)}</th>`).join('')}</tr></thead><tbody>${rows}</tbody></table></div>`}
${summary.perCallObservations > 0 ? `<p class="note" data-per-call="${summary.perCallObservations}">${count(summary.perCallObservations)} per-call observation(s) of the runner (one per tool call, such as <code>tool:&lt;operation&gt;:&lt;callId&gt;</code>) are not checks of the case: left out of this table and of check drift.</p>` : ''}
</section>`;
}

export function renderHtml(input: HtmlReportInput): string {
  const { summary } = input;
  // jsonText: the same JSON, with what a terminal or CI log would act on escaped (see esc above);
  // shownJson: its recorded text (a failure's message, a check's reason, a case's prompt) masked.
  const data = jsonText(
    shownJson({
      attemptsTotal: summary.attempts,
      textLimit: HTML_TEXT_LIMIT,
      runs: summary.runs,
      latestRun: summary.latestRun,
      cells: summary.grid,
      latestCells: summary.latestGrid,
      defaultScope: input.gridView === 'all_runs' ? 'all' : 'latest',
      identity: summary.identity,
      replayLimit: HTML_MAX_REPLAYS,
      site: input.site ?? null,
      // Each attempt's cost as the page's tables show money (money()): the script formats none itself.
      attempts: input.attempts.map(({ replay: _replay, ...row }) => ({ ...row, shownCost: shownCost(row) })),
    }),
  ).replaceAll('<', '\\u003c');
  // Each attempt's replay, rendered once, by the one replay renderer; the script clones it on a click.
  const replays = input.attempts
    .map((attempt, index) =>
      attempt.replay === null
        ? ''
        : `<template data-attempt-index="${index}">${renderAttemptReplay(attempt.replay)}</template>`,
    )
    .join('\n');
  const { style, script, scriptSha256 } = reportPageAssets();
  const csp = pageCsp(scriptSha256);
  // Masked as every page is (../masked.ts): recorded text as it is written, then the page as a whole.
  return maskedPage(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${esc(csp)}">
<meta name="generator" content="Paperclip Evals (${esc(summary.schema)})">
<title>${tip(input.title)}</title>
<style>${style}</style>
</head>
<body>
<main>
${header(input)}
${controls(summary, input.gridView ?? 'newest_run')}
${comparisonSection(summary.comparison, identities(summary))}
${configsSection(summary, input.gridView ?? 'newest_run')}
${policySection(summary.policy)}
${plotsSection(summary, input.gridView ?? 'newest_run')}
${gridSection(summary)}
${checksSection(summary)}
${checkDriftSection(summary.checkDrift, input.site !== undefined)}
<section id="drilldown" aria-labelledby="drilldown-title" aria-live="polite"><h2 id="drilldown-title">Attempts</h2>
<p class="note" id="drill-hint">The drill-down needs JavaScript; ${input.site === undefined ? '<code>evals report --format json</code> lists every attempt' : "each case's page lists every attempt of the case, linked to its page"}.</p>
<nav id="drill-nav" aria-label="Back" hidden></nav>
<div id="cell-attempts"></div><div id="attempt-detail"></div>
${replays}
</section>
<footer>Paperclip Evals · ${text(summary.schema)} · one self-contained file: it loads nothing from the network.</footer>
</main>
<script type="application/json" id="report-data">${data}</script>
<script>${script}</script>
</body>
</html>
`);
}
