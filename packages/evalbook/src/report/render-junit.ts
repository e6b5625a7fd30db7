// The JUnit XML report, shaped for what CI test UIs read (GitHub's JUnit reporters, GitLab, Jenkins:
// the testsuite name, then each testcase's classname and name, its time, and a failure's message
// and text). One testsuite per config, one testcase per (case, config) named by the case with the
// config as classname. A cell passes when every counted attempt solved; with unsolved attempts it is
// a <failure>, with errored, incomplete or over-budget ones an <error> (the harness, not the agent)
// — the two stay distinct for CI. The message says the counts; the element's text lists each
// attempt that did not solve, with its run, id, status and reason (up to MAX_LISTED_ATTEMPTS a cell,
// the rest counted). The cells are the newest run's by default (grid-view.ts), each testcase that
// run's attempts with its trend in the message ("↓ down 100 pts since nightly-1"), so a collapse is
// never a pooled count; with gridView all_runs every run in scope is pooled. Each config suite says
// which (the property grid.runs). Times are seconds, from each attempt's recorded duration (usage.durationMs),
// summed per testcase, suite and root; the root <testsuites> carries tests, failures, errors,
// skipped and time over every suite.
// With --fail-on, a first testsuite, "gates", has one testcase per gate: a <failure> with its
// reasons when it failed, a <system-out> saying it held when it held (each with what it judged: the
// newest run by default, as the grid), and `gates.verdict` and `gates.view` properties. When the evalbook has check scores, a testsuite "check drift"
// has a testcase per (case, check, config): a <failure> when it drifted, <skipped> while it has too
// few runs for a bar. Attempts left out (foreign, retracted) make a last testsuite, "left out", of
// <skipped> testcases, so CI shows how many were not counted and each retraction's who, why and when.
// Every text is XML 1.0 (xml() below): a character XML cannot carry is written visibly, never dropped;
// and masked first, as every report shows recorded text (masked.ts: a failure's reason quoting a key).
import { artifactCountsText } from '../ledger/convert.js';
import { shownText } from './masked.js';
import type { CheckDrift } from '../analysis/check-drift.js';
import type { GateResult, GateVerdicts } from '../analysis/gates.js';
import { retractionText } from '../ledger/retraction.js';
import type { AttemptVerdict } from '../analysis/scoring.js';
import { gridScopeText, isLatestCell, shownGrid, trendText } from '../analysis/grid-view.js';
import type { GridView, ShownGrid } from '../analysis/grid-view.js';
import type { EvalbookSummary, GridCell, LatestGridCell } from '../analysis/summary.js';
import type { StoredAttempt } from '../ledger/store.js';

/** A cell's failure text lists this many attempts that did not solve; the rest are counted. */
export const MAX_LISTED_ATTEMPTS = 50;

/** What a testcase needs of its attempts: their time, and the ones that did not solve. */
interface CellAttempts {
  durationMs: number;
  readonly notSolved: string[];
  notSolvedUnlisted: number;
}

/**
 * The attempts of each (run, case, config) as a JUnit testcase shows them, collected while the report
 * streams the store (which run is newest is known only at the end): a bounded list per run and
 * cell, never every attempt.
 */
export class JunitAttempts {
  private readonly cells = new Map<string, CellAttempts>();

  add(stored: StoredAttempt, verdict: AttemptVerdict): void {
    const key = JSON.stringify([stored.key.runId, stored.key.caseId, stored.key.configId]);
    let cell = this.cells.get(key);
    if (cell === undefined)
      this.cells.set(key, (cell = { durationMs: 0, notSolved: [], notSolvedUnlisted: 0 }));
    cell.durationMs += stored.record.usage.durationMs;
    if (verdict.status === 'solved') return;
    if (cell.notSolved.length < MAX_LISTED_ATTEMPTS)
      cell.notSolved.push(
        `run ${stored.key.runId}, attempt ${stored.key.attemptId}: ${verdict.status}${verdict.reason === null ? '' : ` — ${verdict.reason}`}`,
      );
    else cell.notSolvedUnlisted++;
  }

  /** A cell's attempts in these runs (the newest run, or every run of a pooled cell). */
  of(caseId: string, configId: string, runs: readonly string[]): CellAttempts {
    const merged: CellAttempts = { durationMs: 0, notSolved: [], notSolvedUnlisted: 0 };
    for (const runId of runs) {
      const cell = this.cells.get(JSON.stringify([runId, caseId, configId]));
      if (cell === undefined) continue;
      merged.durationMs += cell.durationMs;
      const taken = cell.notSolved.slice(0, MAX_LISTED_ATTEMPTS - merged.notSolved.length);
      merged.notSolved.push(...taken);
      merged.notSolvedUnlisted += cell.notSolvedUnlisted + cell.notSolved.length - taken.length;
    }
    return merged;
  }
}

export interface JunitReportInput {
  readonly title: string;
  readonly summary: EvalbookSummary;
  readonly gate: GateVerdicts | null;
  /** The attempts counted, per cell (time, and those that did not solve). */
  readonly attempts: JunitAttempts;
  /** The cells' runs: the newest run with trends (default) or all runs pooled. */
  readonly gridView?: GridView;
}

/**
 * XML 1.0 text, for an attribute value or element content. A character XML 1.0 cannot carry (C0
 * controls but tab, CR and LF; U+FFFE, U+FFFF; an unpaired surrogate) is written as the visible text
 * `\u0000` (its code in JSON's notation), never dropped. What a terminal or a CI log reader would act
 * on when the report is printed (tab, CR, LF, DEL, C1, format characters such as bidi overrides,
 * U+2028/9, the `#` that starts `##[`) is written as a character reference: the same text to an
 * XML parser, one line that runs no workflow command in a log.
 */
function xml(recorded: string): string {
  return shownText(recorded)
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll(
      /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu,
      (character) => `\\u${(character.codePointAt(0) ?? 0).toString(16).padStart(4, '0')}`,
    )
    .replaceAll(/[\t\n\r\u007f-\u009f\p{Cf}\p{Zl}\p{Zp}]|#(?=#(?:\[|vso\[))/giu, (character) => {
      const point = character.codePointAt(0) ?? 0;
      return `&#x${point.toString(16)};`;
    });
}

/** Milliseconds as JUnit's time: seconds with three decimals. */
const seconds = (ms: number): string => (ms / 1000).toFixed(3);

/** A failure or error element: the short message, and the full text (lines, each escaped) as its body. */
function problem(kind: 'failure' | 'error', message: string, type: string, lines: readonly string[]): string {
  return `\n      <${kind} message="${xml(message)}" type="${xml(type)}">${lines.map(xml).join('\n')}</${kind}>\n    `;
}

/** Whether a cell has attempts that are not the agent's result (errored, incomplete, over budget). */
const notAgent = (cell: GridCell): number =>
  cell.statusCounts.errored + cell.statusCounts.incomplete + cell.statusCounts.over_budget;

/** A newest-run cell's trend for a message: " (↓ down 100 pts since nightly-1)", or nothing. */
function trendSuffix(cell: GridCell | LatestGridCell, summary: EvalbookSummary): string {
  if (!isLatestCell(cell)) return '';
  const trend = trendText(cell, summary);
  if (trend === '') return '';
  return ` in ${cell.runId} (${trend}${cell.previous === null ? '' : ` since ${cell.previous.runId}: was ${cell.previous.solved}/${cell.previous.counted}`})`;
}

function testcase(cell: GridCell | LatestGridCell, attempts: CellAttempts, report: EvalbookSummary): string {
  const counts = cell.statusCounts;
  const summary = `${cell.solved}/${cell.denominator.counted} solved${trendSuffix(cell, report)}`;
  const lines = [
    `${attempts.notSolved.length + attempts.notSolvedUnlisted} attempt(s) of ${cell.caseId} on ${cell.configId} did not solve:`,
    ...attempts.notSolved,
    ...(attempts.notSolvedUnlisted > 0
      ? [`… and ${attempts.notSolvedUnlisted} more (the JSON or CSV report lists every attempt)`]
      : []),
  ];
  let body = '';
  if (notAgent(cell) > 0) {
    const kinds = (['errored', 'incomplete', 'over_budget'] as const).filter((status) => counts[status] > 0);
    body = problem(
      'error',
      `${summary}; ${counts.errored} errored, ${counts.incomplete} incomplete, ${counts.over_budget} over budget${counts.unsolved > 0 ? `, ${counts.unsolved} unsolved` : ''}`,
      kinds.join(' '),
      lines,
    );
  } else if (counts.unsolved > 0)
    body = problem('failure', `${summary}; ${counts.unsolved} unsolved`, 'unsolved', lines);
  // A passing cell that fell still says so (3/4 solved, down from 4/4): CI shows it under system-out.
  if (body === '' && isLatestCell(cell) && cell.trend === 'down')
    body = `\n      <system-out>${xml(summary)}</system-out>\n    `;
  return `    <testcase name="${xml(cell.caseId)}" classname="${xml(cell.configId)}" time="${seconds(attempts.durationMs)}">${body}</testcase>`;
}

/** A testsuite's totals, and the root's (the sum of its suites'). */
interface Totals {
  readonly tests: number;
  readonly failures: number;
  readonly errors: number;
  readonly skipped: number;
  readonly ms: number;
}

const totalsText = (totals: Totals): string =>
  `tests="${totals.tests}" failures="${totals.failures}" errors="${totals.errors}" skipped="${totals.skipped}" time="${seconds(totals.ms)}"`;

interface Suite {
  readonly totals: Totals;
  readonly xml: string;
}

function suite(name: string, totals: Totals, parts: readonly string[]): Suite {
  return {
    totals,
    xml: [`  <testsuite name="${xml(name)}" ${totalsText(totals)}>`, ...parts, '  </testsuite>'].join('\n'),
  };
}

function driftTestcase(drift: CheckDrift): string {
  const name = xml(`${drift.caseId} · ${drift.checkId}`);
  const score = (value: number | null): string => (value === null ? 'n/a' : value.toFixed(3));
  const body =
    drift.status === 'drift_detected'
      ? `\n      <failure message="${xml(`${score(drift.latestScore)} in ${drift.latestRunId ?? '?'} < bar ${score(drift.bar)} (mean ${score(drift.mean)} over ${drift.baselineRuns} earlier runs)`)}" type="drift_detected"/>\n    `
      : drift.status === 'insufficient_history'
        ? `\n      <skipped message="${xml(`${drift.baselineRuns} earlier scored runs; a bar needs 10`)}"/>\n    `
        : '';
  return `    <testcase name="${name}" classname="${xml(`drift.${drift.configId}`)}" time="0.000">${body}</testcase>`;
}

function driftSuite(drifts: readonly CheckDrift[]): Suite[] {
  if (drifts.length === 0) return [];
  const failures = drifts.filter((drift) => drift.status === 'drift_detected').length;
  const skipped = drifts.filter((drift) => drift.status === 'insufficient_history').length;
  return [
    suite(
      'check drift',
      { tests: drifts.length, failures, errors: 0, skipped, ms: 0 },
      drifts.map(driftTestcase),
    ),
  ];
}

function gateTestcase(gate: GateResult): string {
  const body = gate.passed
    ? `\n      <system-out>${xml(`gate ${gate.failOn} held on ${gate.judged}`)}</system-out>\n    `
    : problem('failure', gate.reasons.join('; '), 'gate_failed', [
        `gate ${gate.failOn} failed on ${gate.judged}:`,
        ...gate.reasons,
      ]);
  return `    <testcase name="${xml(gate.failOn)}" classname="gates" time="0.000">${body}</testcase>`;
}

function gateSuite(verdicts: GateVerdicts | null): Suite[] {
  if (verdicts === null) return [];
  const failures = verdicts.gates.filter((gate) => !gate.passed).length;
  const verdict = verdicts.passed
    ? `passed: all ${verdicts.gates.length} held`
    : `failed: ${failures} of ${verdicts.gates.length} failed`;
  return [
    suite('gates', { tests: verdicts.gates.length, failures, errors: 0, skipped: 0, ms: 0 }, [
      `    <properties>\n      <property name="gates.verdict" value="${xml(verdict)}"/>\n      <property name="gates.view" value="${xml(verdicts.view.text)}"/>\n    </properties>`,
      ...verdicts.gates.map(gateTestcase),
    ]),
  ];
}

function leftOutSuite(summary: EvalbookSummary): Suite[] {
  const cases: { name: string; message: string }[] = [];
  if (summary.leftOut.foreign > 0)
    cases.push({
      name: `${summary.leftOut.foreign} foreign attempt(s)`,
      message:
        "case or config not the environment's: kept apart at ingest, or not in --env (--include-foreign counts them)",
    });
  if (summary.leftOut.retracted > 0)
    cases.push({
      name: `${summary.leftOut.retracted} retracted attempt(s)`,
      message: summary.retractions.map(retractionText).join('; '),
    });
  if (summary.leftOut.retried > 0)
    cases.push({
      name: `${summary.leftOut.retried} retried try(s)`,
      message:
        'a retryable infrastructure failure the campaign tried again: each planned attempt counts once, by its final try',
    });
  if (cases.length === 0) return [];
  return [
    suite(
      'left out',
      { tests: cases.length, failures: 0, errors: 0, skipped: cases.length, ms: 0 },
      cases.map(
        (item) =>
          `    <testcase classname="left out" name="${xml(item.name)}" time="0.000">\n      <skipped message="${xml(item.message)}"/>\n    </testcase>`,
      ),
    ),
  ];
}

/** The report's artifact verification counts (all attempts in scope) and the grid's runs, on every config suite. */
function artifactProperties(summary: EvalbookSummary, grid: ShownGrid): string {
  const counts = summary.artifactVerification;
  return [
    '    <properties>',
    `      <property name="grid.runs" value="${xml(gridScopeText(grid, summary))}"/>`,
    ...(['verified', 'unverified', 'mismatched'] as const).map(
      (kind) => `      <property name="artifacts.${kind}" value="${counts[kind]}"/>`,
    ),
    `      <property name="artifacts" value="${xml(artifactCountsText(counts))}"/>`,
    '    </properties>',
  ].join('\n');
}

function configSuite(
  configId: string,
  cells: readonly (GridCell | LatestGridCell)[],
  input: JunitReportInput,
  grid: ShownGrid,
): Suite {
  const testcases = cells.map((cell) => ({
    cell,
    attempts: input.attempts.of(cell.caseId, cell.configId, grid.runs),
  }));
  return suite(
    configId,
    {
      tests: cells.length,
      failures: cells.filter((cell) => cell.statusCounts.unsolved > 0 && notAgent(cell) === 0).length,
      errors: cells.filter((cell) => notAgent(cell) > 0).length,
      skipped: 0,
      ms: testcases.reduce((sum, item) => sum + item.attempts.durationMs, 0),
    },
    [
      artifactProperties(input.summary, grid),
      ...testcases.map((item) => testcase(item.cell, item.attempts, input.summary)),
    ],
  );
}

export function renderJunit(input: JunitReportInput): string {
  const grid = shownGrid(input.summary, input.gridView ?? 'newest_run');
  const byConfig = new Map<string, (GridCell | LatestGridCell)[]>();
  for (const cell of grid.cells) {
    const cells = byConfig.get(cell.configId) ?? [];
    cells.push(cell);
    byConfig.set(cell.configId, cells);
  }
  const suites = [
    ...gateSuite(input.gate),
    ...[...byConfig].map(([configId, cells]) => configSuite(configId, cells, input, grid)),
    ...driftSuite(input.summary.checkDrift),
    ...leftOutSuite(input.summary),
  ];
  const sum = (pick: (totals: Totals) => number): number =>
    suites.reduce((total, item) => total + pick(item.totals), 0);
  const root: Totals = {
    tests: sum((totals) => totals.tests),
    failures: sum((totals) => totals.failures),
    errors: sum((totals) => totals.errors),
    skipped: sum((totals) => totals.skipped),
    ms: sum((totals) => totals.ms),
  };
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="${xml(input.title)}" ${totalsText(root)}>\n${suites.map((item) => item.xml).join('\n')}\n</testsuites>\n`;
}
