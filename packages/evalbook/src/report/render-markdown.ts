// The Markdown report, sized for a pull-request comment: first a verdict line (the comparison's
// verdict, read off its 95% interval, and the gates', then the view they were judged in), a link to the published HTML report when the
// report knows its address, every gate's verdict, the comparison with its regressions and its
// improvements (each case's solve rate on both sides with its Wilson interval), per-config solve
// rates with intervals, cost with coverage (money at a reader's precision: displayUsd; the JSON keeps
// every nanodollar), budgets, the denominator policy and what it excluded, policy replay agreement
// when verdicts are stored, and the checks that drifted below their bar in the newest run.
// The grid, the Configs table and the verdict line are the newest run's by default (grid-view.ts:
// each cell with its trend since its previous run, so a collapse is never hidden by a pooled green
// cell or a pooled verdict; all runs pooled with gridView all_runs), the grid kept small for a comment: at most MAX_GRID_CASES cases (those with a cell that fell
// first) and MAX_GRID_CONFIGS configs, the rest counted. Every text that comes from a bundle, the store or
// the command line goes through markdownText (contract), so it renders as itself, never as markup,
// masked first as every report shows recorded text (masked.ts); the HTML report's address is checked
// (htmlReportHref: no credential in it, its query and fragment included) and percent-encoded, so it
// is one link.
import { isSha256Digest, markdownText, scrubCredentials } from '@paperclip-evals/contract';

import { EvalbookError } from '../errors.js';
import { artifactCountsText } from '../ledger/convert.js';
import { shownText } from './masked.js';
import { displayUsd } from '../ledger/cost.js';
import type { GateVerdicts } from '../analysis/gates.js';
import type { ReportBudget } from './model.js';
import { leftOutText, nothingCountedText, retractionText } from '../ledger/retraction.js';
import { wilsonInterval } from '../analysis/statistics.js';
import {
  gridScopeText,
  isLatestCell,
  shownGrid,
  shownTotals,
  trendText,
  viewOf,
} from '../analysis/grid-view.js';
import { deltaName, sharedUnits } from '../analysis/summary.js';
import type { GridView } from '../analysis/grid-view.js';
import type { CaseDelta, Comparison, EvalbookSummary, RateWithInterval } from '../analysis/summary.js';

export interface MarkdownReportInput {
  readonly title: string;
  readonly summary: EvalbookSummary;
  readonly budgets: readonly ReportBudget[];
  readonly gate: GateVerdicts | null;
  /** Where the HTML report of the same evalbook is published (an http(s) URL): linked when given. */
  readonly htmlUrl?: string;
  /** The grid's runs: the newest run with trends (default) or all runs pooled. */
  readonly gridView?: GridView;
}

/** The grid lists this many cases (those with a cell that fell first) and configs; the rest are counted. */
const MAX_GRID_CASES = 20;
const MAX_GRID_CONFIGS = 8;

/** Regressions listed in full up to this many; the rest are counted. */
const MAX_LISTED = 10;

const percent = (rate: number | null): string => (rate === null ? 'n/a' : `${(rate * 100).toFixed(1)}%`);
const interval = (ci: readonly [number, number] | null): string =>
  ci === null ? '' : ` [${percent(ci[0])}, ${percent(ci[1])}]`;
/** Text from the evalbook or the command line, in a cell, heading or sentence: always this, never markup. */
/** Text in the report: masked as every report shows recorded text (masked.ts), then as Markdown text. */
const text = (value: string): string => markdownText(shownText(value));
/** A digest in code when it is one (nothing in `sha256:<hex>` is Markdown), else as text. */
const digest = (value: string): string => (isSha256Digest(value) ? `\`${value}\`` : text(value));

function excludedText(rate: RateWithInterval): string {
  const parts = Object.entries(rate.denominator.excluded).map(
    ([why, n]) => `${n} ${why.replaceAll('_', ' ')}`,
  );
  return parts.length === 0 ? '' : ` (excluded: ${parts.join(', ')})`;
}

/** Policy replay vs the runner's recorded outcomes, one row per config and policy digest. */
function policyLines(stats: NonNullable<EvalbookSummary['policy']>): string[] {
  const lines = [
    '',
    '### Policy replay',
    '',
    '| Config | Policy | Tool calls | Agree | Policy denies, runner allowed | Runner denied, policy allows | Policy error | Unfamiliar verdict | No recorded outcome |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const stat of stats)
    lines.push(
      `| ${text(stat.configId)} | ${digest(stat.policyDigest)} | ${stat.toolCalls} | ${stat.counts.agree} | ${stat.counts.policy_denies_runner_allowed} | ${stat.counts.runner_denied_policy_allows} | ${stat.counts.policy_error} | ${stat.counts.policy_verdict_unfamiliar} | ${stat.counts.no_recorded_outcome} |`,
    );
  if (stats.length === 0) lines.push('| (no verdicts for this run) | | | | | | | | |');
  return lines;
}

/** Checks that drifted, worst first, and how many are steady or still lack history. */
function driftLines(drifts: EvalbookSummary['checkDrift']): string[] {
  if (drifts.length === 0) return [];
  const drifting = drifts.filter((drift) => drift.status === 'drift_detected');
  const steady = drifts.filter((drift) => drift.status === 'ok').length;
  const low = drifts.filter((drift) => drift.status === 'below_threshold').length;
  const young = drifts.length - drifting.length - steady - low;
  const score = (value: number | null): string => (value === null ? 'n/a' : value.toFixed(3));
  const lines = ['', '### Check drift', ''];
  if (drifting.length > 0) {
    lines.push(
      '| Check | Case | Config | Layer | Newest run | Baseline mean ± sd (runs) | Bar |',
      '|---|---|---|---:|---:|---:|---:|',
    );
    for (const drift of drifting.slice(0, MAX_LISTED))
      lines.push(
        `| ${text(drift.checkId)} | ${text(drift.caseId)} | ${text(drift.configId)} | ${drift.layer ?? 'runner'} | ${score(drift.latestScore)} (${text(drift.latestRunId ?? '?')}) | ${score(drift.mean)} ± ${score(drift.stddev)} (${drift.baselineRuns}) | ${score(drift.bar)} |`,
      );
    if (drifting.length > MAX_LISTED)
      lines.push(`| … and ${drifting.length - MAX_LISTED} more | | | | | | |`);
    lines.push('');
  }
  lines.push(
    `${drifting.length} drifted (fell below their own history), ${low} below their static threshold but as low as usual, ${steady} steady` +
      (young > 0 ? `, ${young} with fewer than 10 earlier scored runs (no bar yet)` : '') +
      ' — per check, case and config; the bar is max(static threshold, mean − 2·max(sd, 0.02)).',
  );
  return lines;
}

/** Every gate's verdict, failed ones with their reasons: the first thing a reviewer reads. */
function gateLines(verdicts: GateVerdicts): string[] {
  const failed = verdicts.gates.filter((gate) => !gate.passed).length;
  return [
    verdicts.passed
      ? `**Gates passed** (${verdicts.gates.length} of ${verdicts.gates.length} held).`
      : `**Gates FAILED** (${failed} of ${verdicts.gates.length} failed).`,
    '',
    ...verdicts.gates.map((gate) =>
      gate.passed
        ? `- \`${gate.failOn}\`: passed on ${text(gate.judged)}`
        : `- \`${gate.failOn}\`: **FAILED** on ${text(gate.judged)} — ${gate.reasons.map(text).join('; ')}`,
    ),
  ];
}

/** The grid of the view: a row per case, a column per config, each cell solved/counted, rate and trend. */
function gridLines(summary: EvalbookSummary, view: GridView): string[] {
  const grid = shownGrid(summary, view);
  const lines = ['', `### Grid: ${text(gridScopeText(grid, summary))}`, ''];
  if (summary.latestRun === null) return [...lines, 'No attempts in scope.'];
  const cells = new Map(grid.cells.map((cell) => [JSON.stringify([cell.caseId, cell.configId]), cell]));
  const fell = new Set(
    grid.cells.filter((cell) => isLatestCell(cell) && cell.trend === 'down').map((cell) => cell.caseId),
  );
  const cases = [
    ...summary.cases.filter((caseId) => fell.has(caseId)),
    ...summary.cases.filter((caseId) => !fell.has(caseId)),
  ];
  const configs = summary.configs.slice(0, MAX_GRID_CONFIGS);
  lines.push(`| Case | ${configs.map(text).join(' | ')} |`, `|---|${configs.map(() => '---:').join('|')}|`);
  for (const caseId of cases.slice(0, MAX_GRID_CASES))
    lines.push(
      `| ${text(caseId)} | ${configs
        .map((configId) => {
          const cell = cells.get(JSON.stringify([caseId, configId]));
          if (cell === undefined) return '—';
          const trend = isLatestCell(cell) ? trendText(cell, summary) : '';
          return `${cell.solved}/${cell.denominator.counted} ${percent(cell.solveRate)}${cell.flaky ? ' ~' : ''}${trend === '' ? '' : ` ${trend}`}`;
        })
        .join(' | ')} |`,
    );
  const more = [
    ...(cases.length > MAX_GRID_CASES ? [`${cases.length - MAX_GRID_CASES} more cases`] : []),
    ...(summary.configs.length > MAX_GRID_CONFIGS
      ? [`${summary.configs.length - MAX_GRID_CONFIGS} more configs`]
      : []),
  ];
  lines.push(
    '',
    `Each cell: solved / counted and solve rate${view === 'newest_run' ? ' in this run' : ' over every run in scope'}; ~ flaky (solved and unsolved attempts in one run); — no attempts` +
      (view === 'newest_run' && summary.runs.length > 1
        ? ". Trend since the cell's previous run with attempts: ↑ up, ↓ down, = same (points of solve rate), new. `--all-runs` pools every run."
        : '.') +
      (more.length === 0 ? '' : ` Not shown: ${more.join(', ')} (the JSON or HTML report has them all).`),
  );
  return lines;
}

/** Points with one decimal and a true minus: −20.0 pts. */
const points = (rate: number): string =>
  `${rate < 0 ? '−' : rate > 0 ? '+' : '±'}${Math.abs(rate * 100).toFixed(1)} pts`;

/** Δ solve rate with its paired-bootstrap interval: "−20.0 pts (95% CI −40.0 to −5.0)". */
function deltaText(comparison: Comparison): string {
  if (comparison.deltaSolveRate === null) return 'n/a';
  const ci = comparison.deltaSolveRateCi95;
  return `${points(comparison.deltaSolveRate)}${ci === null ? ' (no interval: fewer than 2 shared cases)' : ` (95% CI ${(ci[0] * 100).toFixed(1)} to ${(ci[1] * 100).toFixed(1)}, paired bootstrap over shared cases)`}`;
}

/**
 * The comparison's verdict, read off the 95% interval of B − A as the regression gate reads it:
 * regression (entirely below 0), improvement (entirely above), no significant change (it holds 0),
 * inconclusive (no interval).
 */
function comparisonVerdict(comparison: Comparison): string {
  const ci = comparison.deltaSolveRateCi95;
  if (ci === null) return 'inconclusive';
  if (ci[1] < 0) return 'regression';
  if (ci[0] > 0) return 'improvement';
  return 'no significant change';
}

/** The gates' verdict in a few words. */
function gatesVerdict(gate: GateVerdicts | null): string {
  if (gate === null) return 'no gate';
  const failed = gate.gates.filter((item) => !item.passed).length;
  const one = gate.gates.length === 1;
  if (gate.passed) return one ? 'gate passed' : `gates passed (all ${gate.gates.length} held)`;
  return one ? 'gate failed' : `gates failed (${failed} of ${gate.gates.length})`;
}

/**
 * The first line a reviewer reads: the verdict, then what it rests on — the view's attempts (the
 * newest run's by default, as the grid below), or the comparison — and the view in words.
 */
function verdictLine(summary: EvalbookSummary, gate: GateVerdicts | null, view: GridView): string {
  const comparison = summary.comparison;
  const verdict = [...(comparison === null ? [] : [comparisonVerdict(comparison)]), gatesVerdict(gate)].join(
    ' · ',
  );
  const shown = viewOf(summary, view);
  const totals = shownTotals(shownGrid(summary, view));
  const over =
    comparison?.by === 'run'
      ? `runs ${text(comparison.a)} and ${text(comparison.b)}`
      : `${text(shown.text)}${shown.kind === 'newest_run' && summary.runs.length > 1 ? '; `--all-runs` pools every run' : ''}`;
  const detail =
    comparison === null
      ? `${totals.attempts} attempts over ${totals.cases} cases × ${totals.configs} configs, ${totals.statusCounts.solved} solved${totals.attempts === 0 ? '' : ` (${percent(totals.statusCounts.solved / totals.attempts)})`}`
      : `Δ solve rate ${deltaText(comparison)} of ${text(comparison.b)} vs ${text(comparison.a)} over ${sharedUnits(comparison)}; ${comparison.regressions.length} regressed, ${comparison.improvements.length} improved`;
  // Nothing counted: say why first (every attempt foreign: most often the wrong --env), never "in no attempts".
  if (summary.latestRun === null) {
    const why = nothingCountedText(summary);
    return `**Verdict: ${verdict}** — ${why === null ? 'no attempts in scope (evals ingest first)' : text(why)}.`;
  }
  return `**Verdict: ${verdict}** — ${detail}, in ${over}.`;
}

/** A side's solve rate with its Wilson 95% interval: "2/3 66.7% [20.8%, 93.9%]". */
function sideText(solved: number, counted: number): string {
  const ci = wilsonInterval(solved, counted);
  return `${solved}/${counted} ${percent(ci.rate)}${ci.rate === null ? '' : ` [${percent(ci.lo)}, ${percent(ci.hi)}]`}`;
}

/** The regressed or improved cases, worst (or best) first, each side with its interval. */
function caseTable(heading: string, deltas: readonly CaseDelta[], comparison: Comparison): string[] {
  if (deltas.length === 0) return [];
  const lines = [
    `| ${heading} | ${text(comparison.a)} (Wilson 95% CI) | ${text(comparison.b)} (Wilson 95% CI) | Δ |`,
    '|---|---:|---:|---:|',
  ];
  for (const delta of deltas.slice(0, MAX_LISTED))
    lines.push(
      `| ${text(deltaName(delta))} | ${sideText(delta.aSolved, delta.aCounted)} | ${sideText(delta.bSolved, delta.bCounted)} | ${points(delta.delta)} |`,
    );
  if (deltas.length > MAX_LISTED) lines.push(`| … and ${deltas.length - MAX_LISTED} more | | | |`);
  lines.push('');
  return lines;
}

/** ASCII punctuation Markdown could read in a link destination (a parenthesis, an entity's &, …): backslash-escaped. */
const MARKDOWN_IN_URL = /[()<>[\]\\`&"'!*_~|]/g;

/**
 * The address of the HTML report as the Markdown links it: an absolute http: or https: URL, written
 * as the URL standard normalises it, with every character Markdown could read in a link destination
 * (parentheses, brackets, the & of an entity, backslash, …) backslash-escaped, so the link goes to
 * exactly that URL. Throws EvalbookError
 * paperclip_evalbook_report_option_invalid for anything else: not a URL, another scheme, a space or
 * control character (which a URL parser would drop silently), a user or password, or a secret
 * anywhere else in it — a secret-named parameter of its query or fragment (`?token=…`,
 * `X-Amz-Signature=…`, `#access_token=…`: the contract's secret-name rule) or a credential-shaped
 * value (`AKIA…`, `ghp_…`): whatever scrubCredentials would mask, which the report would publish
 * (the error shows the URL masked).
 */
export function htmlReportHref(url: string): string {
  const refuse = (why: string, received: string): never => {
    throw new EvalbookError('paperclip_evalbook_report_option_invalid', `--html-url ${why}`, [
      {
        code: 'html_url_invalid',
        message: why,
        component: '--html-url',
        expected:
          'an absolute http: or https: URL without spaces or credentials (no user, password, token or signature in it), like https://ci.example/report.html',
        received,
      },
    ]);
  };
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return refuse('is not an absolute URL', JSON.stringify(url));
  }
  if (parsed.username !== '' || parsed.password !== '') {
    parsed.username = '***';
    parsed.password = '';
    return refuse('carries a user or password, which the report would publish', parsed.href);
  }
  // eslint-disable-next-line no-control-regex -- control characters are what is refused
  if (/[\u0000-\u0020\u007f-\u009f\p{Cf}\p{Zl}\p{Zp}]/u.test(url))
    return refuse('holds a space or a control character', JSON.stringify(url));
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:')
    return refuse(`has the scheme ${parsed.protocol}; only http: and https: are linked`, JSON.stringify(url));
  // A token or signature in the link (a presigned URL, `?token=`) would be published with the comment.
  const shown = scrubCredentials(parsed.href);
  if (shown !== parsed.href || scrubCredentials(url) !== url)
    return refuse(
      'carries a secret (a token, key, signature or password parameter, or a credential-shaped value), which the report would publish: publish the HTML report where its link needs no secret (a CI artifact page, a static site) and pass that address',
      shown,
    );
  return parsed.href.replace(MARKDOWN_IN_URL, (character) => `\\${character}`);
}

export function renderMarkdown(input: MarkdownReportInput): string {
  const { summary } = input;
  const view = input.gridView ?? 'newest_run';
  const shown = shownGrid(summary, view);
  const lines: string[] = [`## ${text(input.title)}`, '', verdictLine(summary, input.gate, view), ''];
  if (input.htmlUrl !== undefined)
    lines.push(`Full report: [HTML report](${htmlReportHref(input.htmlUrl)})`, '');
  if (input.gate !== null) lines.push(...gateLines(input.gate), '');
  const comparison = summary.comparison;
  if (comparison !== null) {
    lines.push(
      `### ${text(comparison.b)} vs ${text(comparison.a)} (by ${comparison.by})`,
      '',
      `${sharedUnits(comparison)}: **${comparison.bWins} better, ${comparison.aWins} worse, ${comparison.ties} tied**. ` +
        `Δ solve rate ${deltaText(comparison)}, ` +
        `McNemar exact p = ${comparison.mcnemarP.toPrecision(3)}.` +
        (comparison.unsharedCases > 0
          ? ` ${comparison.unsharedCases} case(s) on one side only were not compared.`
          : ''),
      '',
      ...caseTable('Regressed case', comparison.regressions, comparison),
      ...(comparison.regressions.length === 0 ? ['No case regressed.', ''] : []),
      ...caseTable('Improved case', comparison.improvements, comparison),
      ...(comparison.improvements.length === 0 ? ['No case improved.', ''] : []),
    );
    const meanDelta = comparison.cost.meanDeltaNanodollars;
    lines.push(
      `Cost per attempt, B − A: ${meanDelta === null ? 'n/a' : `${meanDelta < 0 ? '−' : '+'}${displayUsd(Math.abs(meanDelta))}`} ` +
        `(A: ${comparison.cost.a.text}; B: ${comparison.cost.b.text}).`,
      '',
    );
  }
  lines.push(...gridLines(summary, view), '');
  lines.push(
    '### Configs',
    '',
    `Per-config rates of the grid's runs: ${text(gridScopeText(shown, summary))}${view === 'newest_run' && summary.runs.length > 1 && summary.runScope === null ? ' (`--all-runs` pools every run)' : ''}.`,
    '',
    '| Config | Solve rate (95% CI: bootstrap over cases) | Solved / counted | Cost per solve | Priced |',
    '|---|---:|---:|---:|---:|',
  );
  for (const config of shown.configStats)
    lines.push(
      `| ${text(config.configId)} | ${percent(config.solveRate)}${interval(config.ci95)} | ${config.solved} / ${config.denominator.counted}${excludedText(config)} | ${config.costPerSolvedNanodollars === null ? 'n/a' : displayUsd(config.costPerSolvedNanodollars)} | ${config.cost.priced} of ${config.cost.attempts} |`,
    );
  lines.push('');
  const counts = summary.statusCounts;
  lines.push(
    `${summary.gridRuns.length > 1 ? `In all ${summary.gridRuns.length} runs in scope, ` : ''}${summary.attempts} attempts over ${summary.cases.length} cases × ${summary.configs.length} configs: ` +
      `${counts.solved} solved, ${counts.unsolved} unsolved, ${counts.errored} errored, ${counts.incomplete} incomplete, ${counts.over_budget} over budget` +
      '.',
    ...(leftOutText(summary) === null ? [] : [`${leftOutText(summary) ?? ''}.`]),
    ...summary.retractions.map((retraction) => `Retracted: ${text(retractionText(retraction))}.`),
    `Denominator: ${summary.denominatorPolicy === 'all_attempts' ? 'all attempts (errors and missing verdicts count against the rate)' : 'evaluated attempts only (errored, incomplete and over-budget are excluded and listed)'}.`,
    `Artifacts of the attempts: ${artifactCountsText(summary.artifactVerification)} (bytes checked under an artifact root at ingest; unverified: not checked).`,
    `Cost: ${summary.coverage.text}; priced total ${displayUsd(summary.coverage.pricedTotalNanodollars)}${summary.coverage.unpriced > 0 ? ' — unpriced attempts are not counted as zero' : ''}.`,
  );
  if (summary.softFailures.length > 0)
    lines.push(
      `Soft checks fell short (shown, not failing): ${summary.softFailures
        .slice(0, MAX_LISTED)
        .map((soft) => `${text(soft.checkId)} in ${soft.attempts} attempt${soft.attempts === 1 ? '' : 's'}`)
        .join(
          ', ',
        )}${summary.softFailures.length > MAX_LISTED ? `, and ${summary.softFailures.length - MAX_LISTED} more` : ''}.`,
    );
  if (summary.flakyCells.length > 0)
    lines.push(
      `Flaky: ${summary.flakyCells.length} case × config cell(s) with both solved and unsolved attempts.`,
    );
  if (summary.policy !== null) lines.push(...policyLines(summary.policy));
  lines.push(...driftLines(summary.checkDrift));
  const exceeded = input.budgets.filter((budget) => budget.status !== 'within');
  if (exceeded.length > 0)
    lines.push(
      `Budgets: ${exceeded.map((budget) => `${budget.scope} ${text(budget.configId ?? budget.runId)} ${budget.status}`).join(', ')}.`,
    );
  return `${lines.join('\n')}\n`;
}
