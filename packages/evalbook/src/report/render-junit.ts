// The JUnit XML report: one testcase per (case, config), grouped in one testsuite per config. A cell
// passes when every counted attempt solved; unsolved attempts are <failure>, errored, incomplete and
// over-budget attempts are <error> (the harness, not the agent) — the two stay distinct for CI.
// When the evalbook has check scores, one more testsuite, "check drift", has a testcase per (case,
// check, config): a <failure> when it drifted, <skipped> while it has too few runs for a bar.
// With --fail-on, a first testsuite, "gates", has one testcase per gate: a <failure> with its
// reasons when it failed, so CI shows every gate's verdict beside the cells. Attempts left out
// (foreign, retracted) make a last testsuite, "left out", of <skipped> testcases, so CI shows how
// many were not counted and each retraction's who, why and when.
import { artifactCountsText } from '../ledger/convert.js';
import type { CheckDrift } from '../analysis/check-drift.js';
import type { GateResult, GateVerdicts } from '../analysis/gates.js';
import { retractionText } from '../ledger/retraction.js';
import type { EvalbookSummary, GridCell } from '../analysis/summary.js';

export interface JunitReportInput {
  readonly title: string;
  readonly summary: EvalbookSummary;
  readonly gate: GateVerdicts | null;
}

/**
 * XML 1.0 text: escapes markup and drops characters XML cannot carry. What a terminal or a CI log
 * reader would act on when the report is printed (tab, CR, LF, DEL, C1, format characters such as
 * bidi overrides, U+2028/9, the `#` that starts `##[`) is written as a character reference: the same
 * text to an XML parser, one line that runs no workflow command in a log.
 */
function xml(text: string): string {
  return text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '\uFFFD')
    .replaceAll(/[\t\n\r\u007f-\u009f\p{Cf}\p{Zl}\p{Zp}]|#(?=#(?:\[|vso\[))/giu, (character) => {
      const point = character.codePointAt(0) ?? 0;
      return `&#x${point.toString(16)};`;
    });
}

function testcase(cell: GridCell): string {
  const counts = cell.statusCounts;
  const notAgent = counts.errored + counts.incomplete + counts.over_budget;
  const name = xml(cell.caseId);
  const summary = `${cell.solved}/${cell.denominator.counted} solved`;
  let body = '';
  if (notAgent > 0) {
    const kinds = (['errored', 'incomplete', 'over_budget'] as const).filter((status) => counts[status] > 0);
    body = `\n      <error message="${xml(`${summary}; ${counts.errored} errored, ${counts.incomplete} incomplete, ${counts.over_budget} over budget`)}" type="${kinds.join(' ')}"/>\n    `;
  } else if (counts.unsolved > 0)
    body = `\n      <failure message="${xml(`${summary}; ${counts.unsolved} unsolved`)}" type="unsolved"/>\n    `;
  return `    <testcase name="${name}" classname="${xml(cell.configId)}">${body}</testcase>`;
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
  return `    <testcase name="${name}" classname="${xml(`drift.${drift.configId}`)}">${body}</testcase>`;
}

function driftSuite(drifts: readonly CheckDrift[]): string[] {
  if (drifts.length === 0) return [];
  const failures = drifts.filter((drift) => drift.status === 'drift_detected').length;
  const skipped = drifts.filter((drift) => drift.status === 'insufficient_history').length;
  return [
    [
      `  <testsuite name="check drift" tests="${drifts.length}" failures="${failures}" errors="0" skipped="${skipped}">`,
      ...drifts.map(driftTestcase),
      '  </testsuite>',
    ].join('\n'),
  ];
}

function gateTestcase(gate: GateResult): string {
  const body = gate.passed
    ? ''
    : `\n      <failure message="${xml(gate.reasons.join('; '))}" type="gate_failed">${xml(gate.reasons.join('\n'))}</failure>\n    `;
  return `    <testcase name="${xml(gate.failOn)}" classname="gates">${body}</testcase>`;
}

function gateSuite(verdicts: GateVerdicts | null): string[] {
  if (verdicts === null) return [];
  const failures = verdicts.gates.filter((gate) => !gate.passed).length;
  return [
    [
      `  <testsuite name="gates" tests="${verdicts.gates.length}" failures="${failures}" errors="0">`,
      ...verdicts.gates.map(gateTestcase),
      '  </testsuite>',
    ].join('\n'),
  ];
}

function leftOutSuite(summary: EvalbookSummary): string[] {
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
  if (cases.length === 0) return [];
  return [
    [
      `  <testsuite name="left out" tests="${cases.length}" failures="0" errors="0" skipped="${cases.length}">`,
      ...cases.map(
        (item) =>
          `    <testcase classname="left out" name="${xml(item.name)}">\n      <skipped message="${xml(item.message)}"/>\n    </testcase>`,
      ),
      '  </testsuite>',
    ].join('\n'),
  ];
}

/** The report's artifact verification counts (all attempts in scope), on every suite. */
function artifactProperties(summary: EvalbookSummary): string {
  const counts = summary.artifactVerification;
  return [
    '    <properties>',
    ...(['verified', 'unverified', 'mismatched'] as const).map(
      (kind) => `      <property name="artifacts.${kind}" value="${counts[kind]}"/>`,
    ),
    `      <property name="artifacts" value="${xml(artifactCountsText(counts))}"/>`,
    '    </properties>',
  ].join('\n');
}

export function renderJunit(input: JunitReportInput): string {
  const byConfig = new Map<string, GridCell[]>();
  for (const cell of input.summary.grid) {
    const cells = byConfig.get(cell.configId) ?? [];
    cells.push(cell);
    byConfig.set(cell.configId, cells);
  }
  const suites = [...byConfig].map(([configId, cells]) => {
    const failures = cells.filter(
      (cell) =>
        cell.statusCounts.unsolved > 0 &&
        cell.statusCounts.errored + cell.statusCounts.incomplete + cell.statusCounts.over_budget === 0,
    ).length;
    const errors = cells.filter(
      (cell) => cell.statusCounts.errored + cell.statusCounts.incomplete + cell.statusCounts.over_budget > 0,
    ).length;
    return [
      `  <testsuite name="${xml(configId)}" tests="${cells.length}" failures="${failures}" errors="${errors}">`,
      artifactProperties(input.summary),
      ...cells.map(testcase),
      '  </testsuite>',
    ].join('\n');
  });
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="${xml(input.title)}">\n${[...gateSuite(input.gate), ...suites, ...driftSuite(input.summary.checkDrift), ...leftOutSuite(input.summary)].join('\n')}\n</testsuites>\n`;
}
