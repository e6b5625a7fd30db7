// The JUnit report as CI reads it: validated by libxml2 (xmllint-wasm) against the Jenkins xUnit
// plugin's JUnit schema (fixtures/junit/junit-10.xsd, its source and one change in the README
// beside it) and read back with a real XML parser (@xmldom/xmldom): root and suite totals add up
// from the testcases, times are the attempts' recorded durations, a failure's text lists every
// attempt that did not solve with its reason, errored cells are <error>, each gate is its own
// testcase, and any text — hostile ids and reasons included — is well-formed XML 1.0 that reads
// back as itself, a character XML 1.0 cannot carry shown as `\uXXXX`, never dropped.
import { readFileSync } from 'node:fs';
import { DOMParser } from '@xmldom/xmldom';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { validateXML } from 'xmllint-wasm';

import { reportText } from './support/report-text.ts';
import { storedAttempt } from './support/stored-attempts.ts';

import type { Element } from '@xmldom/xmldom';
import type { FailOn } from '../src/analysis/gates.ts';
import type { StoredAttempt } from '../src/ledger/store.ts';
import type { Outcome } from './support/stored-attempts.ts';

const XSD = readFileSync(new URL('fixtures/junit/junit-10.xsd', import.meta.url), 'utf8');

/** Validates every document against the schema in one xmllint run; the errors, by document. */
async function schemaErrors(documents: readonly string[]): Promise<string[]> {
  const result = await validateXML({
    xml: documents.map((contents, index) => ({ fileName: `report-${index}.xml`, contents })),
    schema: [{ fileName: 'junit-10.xsd', contents: XSD }],
  });
  return result.errors.map((error) => error.rawMessage);
}

function parseXml(text: string): Element {
  const document = new DOMParser({
    onError: (level, message) => {
      throw new Error(`${level}: ${message}`);
    },
  }).parseFromString(text, 'text/xml');
  const root = document.documentElement;
  if (root === null) throw new Error('no root element');
  return root;
}

const children = (element: Element, name: string): Element[] =>
  Array.from(element.childNodes).filter(
    (node): node is Element => node.nodeType === 1 && (node as Element).tagName === name,
  );
const attr = (element: Element | undefined, name: string): string | null =>
  element?.getAttribute(name) ?? null;
const num = (element: Element | undefined, name: string): number => Number(attr(element, name));

/** One attempt of an outcome, with a duration the test knows. */
function attempt(
  runId: string,
  caseId: string,
  configId: string,
  attemptId: string,
  outcome: Outcome,
  durationMs: number,
): StoredAttempt {
  const stored = storedAttempt(runId, caseId, configId, attemptId, outcome);
  return { ...stored, record: { ...stored.record, usage: { ...stored.record.usage, durationMs } } };
}

const ATTEMPTS = [
  attempt('run1', 'case_ok', 'base', 'a1', 'solved', 1000),
  attempt('run1', 'case_ok', 'base', 'a2', 'solved', 500),
  attempt('run1', 'case_fail', 'base', 'a3', 'solved', 250),
  attempt('run1', 'case_fail', 'base', 'a4', 'unsolved', 250),
  attempt('run1', 'case_fail', 'base', 'a5', 'unsolved', 125),
  attempt('run1', 'case_err', 'cand', 'a6', 'errored', 2000),
  attempt('run1', 'case_err', 'cand', 'a7', 'unsolved', 1),
  attempt('run1', 'case_ok', 'cand', 'a8', 'incomplete', 10),
];
const GATES: FailOn[] = [
  { kind: 'below', rate: 0 },
  { kind: 'below', rate: 0.9 },
];

describe('renderJunit: what CI reads', () => {
  it('validates against the Jenkins JUnit schema', async () => {
    const { text } = await reportText(ATTEMPTS, { format: 'junit', failOn: GATES });
    const { text: plain } = await reportText(ATTEMPTS, { format: 'junit' });
    const { text: empty } = await reportText([], { format: 'junit' });
    expect(await schemaErrors([text, plain, empty])).toEqual([]);
  });

  it('the schema check can fail: a testcase without a name is refused', async () => {
    const { text } = await reportText(ATTEMPTS, { format: 'junit' });
    const broken = text.replace('<testcase name="case_ok"', '<testcase');
    expect((await schemaErrors([broken])).join('\n')).toMatch(/attribute 'name' is required/);
  });

  it('root and suites carry tests, failures, errors, skipped and time, summed from their testcases', async () => {
    const { text } = await reportText(ATTEMPTS, { format: 'junit', failOn: GATES });
    const root = parseXml(text);
    expect(root.tagName).toBe('testsuites');
    const suites = children(root, 'testsuite');
    expect(suites.map((suite) => attr(suite, 'name'))).toEqual(['gates', 'cand', 'base', 'check drift']);
    for (const suite of suites) {
      const cases = children(suite, 'testcase');
      expect(num(suite, 'tests')).toBe(cases.length);
      expect(num(suite, 'failures')).toBe(
        cases.filter((item) => children(item, 'failure').length > 0).length,
      );
      expect(num(suite, 'errors')).toBe(cases.filter((item) => children(item, 'error').length > 0).length);
      expect(num(suite, 'skipped')).toBe(cases.filter((item) => children(item, 'skipped').length > 0).length);
      const time = cases.reduce((sum, item) => sum + num(item, 'time'), 0);
      expect(num(suite, 'time')).toBeCloseTo(time, 3);
    }
    for (const name of ['tests', 'failures', 'errors', 'skipped', 'time'])
      expect(num(root, name)).toBeCloseTo(
        suites.reduce((sum, suite) => sum + num(suite, name), 0),
        3,
      );
    // 2 gates, 4 cells, 4 drift rows (c1 per cell: skipped, too few runs); 1 gate and 1 cell fail,
    // 2 cells error; 4.136 s of attempts.
    expect(['tests', 'failures', 'errors', 'skipped', 'time'].map((name) => num(root, name))).toEqual([
      10, 2, 2, 4, 4.136,
    ]);
  });

  it('a testcase is a (case, config): its time is its attempts’ durations, its failure lists each unsolved attempt and why', async () => {
    const { text } = await reportText(ATTEMPTS, { format: 'junit' });
    const root = parseXml(text);
    const suiteNamed = (name: string): Element | undefined =>
      children(root, 'testsuite').find((suite) => attr(suite, 'name') === name);
    const [base, cand] = [suiteNamed('base'), suiteNamed('cand')];
    const byName = (suite: Element | undefined, name: string): Element | undefined =>
      suite === undefined
        ? undefined
        : children(suite, 'testcase').find((item) => attr(item, 'name') === name);
    const ok = byName(base, 'case_ok');
    expect([attr(ok, 'classname'), attr(ok, 'time'), ok?.childNodes.length]).toEqual(['base', '1.500', 0]);
    const failing = byName(base, 'case_fail');
    expect(attr(failing, 'time')).toBe('0.625');
    const [failure] = failing === undefined ? [] : children(failing, 'failure');
    expect(attr(failure, 'message')).toBe('1/3 solved; 2 unsolved');
    expect(attr(failure, 'type')).toBe('unsolved');
    expect(failure?.textContent).toBe(
      [
        '2 attempt(s) of case_fail on base did not solve:',
        'run run1, attempt a4: unsolved — check c1 failed',
        'run run1, attempt a5: unsolved — check c1 failed',
      ].join('\n'),
    );
    const errored = byName(cand, 'case_err');
    const [error] = errored === undefined ? [] : children(errored, 'error');
    expect(attr(error, 'message')).toBe('0/2 solved; 1 errored, 0 incomplete, 0 over budget, 1 unsolved');
    expect(attr(error, 'type')).toBe('errored');
    expect(error?.textContent).toContain('run run1, attempt a6: errored — infrastructure: sandbox_lost');
    expect(error?.textContent).toContain('run run1, attempt a7: unsolved — check c1 failed');
    expect(attr(byName(cand, 'case_ok'), 'time')).toBe('0.010');
  });

  it('each gate is its own testcase: a failed one with every reason, a held one saying so; the verdict is a property', async () => {
    const { text } = await reportText(ATTEMPTS, { format: 'junit', failOn: GATES });
    const [gates] = children(parseXml(text), 'testsuite');
    const [properties] = gates === undefined ? [] : children(gates, 'properties');
    const [verdict, view] = properties === undefined ? [] : children(properties, 'property');
    expect([attr(verdict, 'name'), attr(verdict, 'value')]).toEqual([
      'gates.verdict',
      'failed: 1 of 2 failed',
    ]);
    expect([attr(view, 'name'), attr(view, 'value')]).toEqual([
      'gates.view',
      'newest run run1 (the only run)',
    ]);
    const [held, failed] = gates === undefined ? [] : children(gates, 'testcase');
    expect([attr(held, 'name'), attr(held, 'classname')]).toEqual(['below:0', 'gates']);
    expect(held === undefined ? [] : children(held, 'system-out').map((item) => item.textContent)).toEqual([
      'gate below:0 held on newest run run1 (the only run)',
    ]);
    const [failure] = failed === undefined ? [] : children(failed, 'failure');
    expect(attr(failure, 'type')).toBe('gate_failed');
    expect(attr(failure, 'message')).toBe('base: solve rate 0.600 < 0.9; cand: solve rate 0.000 < 0.9');
    expect(failure?.textContent).toBe(
      'gate below:0.9 failed on newest run run1 (the only run):\nbase: solve rate 0.600 < 0.9\ncand: solve rate 0.000 < 0.9',
    );
  });

  it('lists at most 50 attempts in a failure and counts the rest', async () => {
    const many = Array.from({ length: 53 }, (_, index) =>
      attempt('run1', 'case_x', 'base', `u${index}`, 'unsolved', 1),
    );
    const { text } = await reportText(many, { format: 'junit' });
    const body = parseXml(text).getElementsByTagName('failure')[0]?.textContent ?? '';
    expect(body.split('\n')).toHaveLength(1 + 50 + 1);
    expect(body).toMatch(/^53 attempt\(s\) of case_x on base did not solve:/);
    expect(body).toMatch(/\n… and 3 more \(the JSON or CSV report lists every attempt\)$/);
  });
});

/** Text XML 1.0 cannot carry, shown as the report shows it: `\uXXXX`. */
const visible = (text: string): string =>
  text.replace(
    /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu,
    (character) => `\\u${(character.codePointAt(0) ?? 0).toString(16).padStart(4, '0')}`,
  );

const hostile = fc.oneof(
  fc.string({ unit: 'binary', minLength: 1, maxLength: 30 }),
  fc.string({
    unit: fc.constantFrom(
      ...Array.from(
        '<>&"\'\t\r\n\u0000\u0001\u000b\u001b\u007f\u0085\ufffe\uffff\ud800\udc00\u202e\u2028#[]]>a ',
      ),
    ),
    minLength: 1,
    maxLength: 30,
  }),
  fc.constantFrom(']]>', '<![CDATA[x]]>', '<!--', '&amp;', '##[error]x', '::error::x', '\u0000', '\ud83d'),
);

describe('renderJunit: any text is XML 1.0 that reads as itself', () => {
  it('hostile ids and reasons: schema-valid, and each reads back (unrepresentable characters as \\uXXXX)', async () => {
    const samples = fc.sample(fc.array(hostile, { minLength: 5, maxLength: 5 }), 40);
    const reports = await Promise.all(
      samples.map(async ([runId = 'r', caseId = 'c', configId = 'k', attemptId = 'a', code = 'x']) => {
        const base = storedAttempt('run1', 'case', 'config', 'a', 'solved');
        const bent: StoredAttempt = {
          ...base,
          key: { runId, caseId, configId, attemptId },
          record: {
            ...base.record,
            key: { runId, caseId, configId, attemptId },
            failure: { classification: 'model', code, message: code },
          },
        };
        const { text } = await reportText([bent], {
          format: 'junit',
          failOn: [{ kind: 'below', rate: 0.5 }],
        });
        return { text, runId, caseId, configId, attemptId, code };
      }),
    );
    expect(await schemaErrors(reports.map((report) => report.text))).toEqual([]);
    for (const report of reports) {
      const root = parseXml(report.text);
      const testcase = root.getElementsByTagName('testcase')[1];
      expect(attr(testcase, 'name')).toBe(visible(report.caseId));
      expect(attr(testcase, 'classname')).toBe(visible(report.configId));
      expect(testcase?.getElementsByTagName('failure')[0]?.textContent).toContain(
        visible(`run ${report.runId}, attempt ${report.attemptId}: unsolved — model: ${report.code}`),
      );
      // One line per listed attempt in a CI log: a newline in a text is a character reference.
      // eslint-disable-next-line no-control-regex -- control characters are what must not be written raw
      expect(report.text).not.toMatch(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u202e\u2028]/);
    }
  });
});
