// The Markdown report, sized for a pull-request comment: the verdict of the comparison (if any)
// with regressions first, per-config solve rates with intervals, cost with coverage, budgets, the
// denominator policy and what it excluded, policy replay agreement when verdicts are stored, and the
// checks that drifted below their bar in the newest run.
// Tables stay small: the grid is not repeated here. Every text that comes from a bundle, the store or
// the command line goes through markdownText (contract), so it renders as itself, never as markup.
import { isSha256Digest, markdownText } from '@paperclip-evals/contract';

import { artifactCountsText } from '../ledger/convert.js';
import { formatUsd } from '../ledger/cost.js';
import type { GateVerdicts } from '../analysis/gates.js';
import type { ReportBudget } from './model.js';
import { leftOutText, retractionText } from '../ledger/retraction.js';
import type { EvalbookSummary, RateWithInterval } from '../analysis/summary.js';

export interface MarkdownReportInput {
  readonly title: string;
  readonly summary: EvalbookSummary;
  readonly budgets: readonly ReportBudget[];
  readonly gate: GateVerdicts | null;
}

/** Regressions listed in full up to this many; the rest are counted. */
const MAX_LISTED = 10;

const percent = (rate: number | null): string => (rate === null ? 'n/a' : `${(rate * 100).toFixed(1)}%`);
const interval = (ci: readonly [number, number] | null): string =>
  ci === null ? '' : ` [${percent(ci[0])}, ${percent(ci[1])}]`;
/** Text from the evalbook or the command line, in a cell, heading or sentence: always this, never markup. */
const text = markdownText;
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
        ? `- \`${gate.failOn}\`: passed`
        : `- \`${gate.failOn}\`: **FAILED** — ${gate.reasons.map(text).join('; ')}`,
    ),
  ];
}

export function renderMarkdown(input: MarkdownReportInput): string {
  const { summary } = input;
  const lines: string[] = [`## ${text(input.title)}`, ''];
  if (input.gate !== null) lines.push(...gateLines(input.gate), '');
  const comparison = summary.comparison;
  if (comparison !== null) {
    lines.push(
      `### ${text(comparison.b)} vs ${text(comparison.a)} (by ${comparison.by})`,
      '',
      `${comparison.sharedCases} shared cases: **${comparison.bWins} better, ${comparison.aWins} worse, ${comparison.ties} tied**. ` +
        `Δ solve rate ${comparison.deltaSolveRate === null ? 'n/a' : `${(comparison.deltaSolveRate * 100).toFixed(1)} pts`}` +
        `${comparison.deltaSolveRateCi95 === null ? '' : ` (95% CI ${(comparison.deltaSolveRateCi95[0] * 100).toFixed(1)} to ${(comparison.deltaSolveRateCi95[1] * 100).toFixed(1)})`}, ` +
        `McNemar exact p = ${comparison.mcnemarP.toPrecision(3)}.` +
        (comparison.unsharedCases > 0
          ? ` ${comparison.unsharedCases} case(s) on one side only were not compared.`
          : ''),
      '',
    );
    if (comparison.regressions.length > 0) {
      lines.push(
        '| Regressed case | ' + text(comparison.a) + ' | ' + text(comparison.b) + ' |',
        '|---|---:|---:|',
      );
      for (const delta of comparison.regressions.slice(0, MAX_LISTED))
        lines.push(`| ${text(delta.caseId)} | ${percent(delta.aSolveRate)} | ${percent(delta.bSolveRate)} |`);
      if (comparison.regressions.length > MAX_LISTED)
        lines.push(`| … and ${comparison.regressions.length - MAX_LISTED} more | | |`);
      lines.push('');
    } else lines.push('No case regressed.', '');
    const meanDelta = comparison.cost.meanDeltaNanodollars;
    lines.push(
      `Cost per attempt, B − A: ${meanDelta === null ? 'n/a' : `${meanDelta < 0 ? '−' : '+'}${formatUsd(Math.abs(meanDelta))}`} ` +
        `(A: ${comparison.cost.a.text}; B: ${comparison.cost.b.text}).`,
      '',
    );
  }
  lines.push(
    '### Configs',
    '',
    '| Config | Solve rate (95% CI) | Solved / counted | Cost per solve | Priced |',
    '|---|---:|---:|---:|---:|',
  );
  for (const config of summary.configStats)
    lines.push(
      `| ${text(config.configId)} | ${percent(config.solveRate)}${interval(config.ci95)} | ${config.solved} / ${config.denominator.counted}${excludedText(config)} | ${config.costPerSolvedNanodollars === null ? 'n/a' : formatUsd(config.costPerSolvedNanodollars)} | ${config.cost.priced} of ${config.cost.attempts} |`,
    );
  lines.push('');
  const counts = summary.statusCounts;
  lines.push(
    `${summary.attempts} attempts over ${summary.cases.length} cases × ${summary.configs.length} configs: ` +
      `${counts.solved} solved, ${counts.unsolved} unsolved, ${counts.errored} errored, ${counts.incomplete} incomplete, ${counts.over_budget} over budget` +
      '.',
    ...(leftOutText(summary) === null ? [] : [`${leftOutText(summary) ?? ''}.`]),
    ...summary.retractions.map((retraction) => `Retracted: ${text(retractionText(retraction))}.`),
    `Denominator: ${summary.denominatorPolicy === 'all_attempts' ? 'all attempts (errors and missing verdicts count against the rate)' : 'evaluated attempts only (errored, incomplete and over-budget are excluded and listed)'}.`,
    `Artifacts of the attempts: ${artifactCountsText(summary.artifactVerification)} (bytes checked under an artifact root at ingest; unverified: not checked).`,
    `Cost: ${summary.coverage.text}; priced total ${formatUsd(summary.coverage.pricedTotalNanodollars)}${summary.coverage.unpriced > 0 ? ' — unpriced attempts are not counted as zero' : ''}.`,
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
