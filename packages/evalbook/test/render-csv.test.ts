// The CSV report read back by a real CSV parser (csv-parse, strict RFC 4180): any string in any text
// column comes back as itself once the two documented, reversible renderings are undone (one leading
// `'` of the formula guard; terminalText's escapes), every row has the header's column count, no
// field starts a formula, no row spans lines, and unknown cost is empty and "unpriced", never 0.
import { parse } from 'csv-parse/sync';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { CSV_COLUMNS, csvField, csvHeader, csvRow } from '../src/report/render-csv.ts';
import { attemptVerdict } from '../src/analysis/scoring.ts';
import { reportText } from './support/report-text.ts';
import { storedAttempt } from './support/stored-attempts.ts';

import type { StoredAttempt } from '../src/ledger/store.ts';

/** Parses CSV text strictly (no relaxed quotes, every record the same column count). */
const parseCsv = (text: string): string[][] => parse(text, { relax_column_count: false });

/** Undoes the formula guard (one leading ') and terminalText's escapes (read as a JSON string would). */
function decode(field: string): string {
  const unguarded = field.startsWith("'") ? field.slice(1) : field;
  return unguarded.replace(/\\(u[0-9a-f]{4}|[\\btnfr])/g, (_match, escape: string) =>
    escape.startsWith('u')
      ? String.fromCharCode(Number.parseInt(escape.slice(1), 16))
      : ({ '\\': '\\', b: '\b', t: '\t', n: '\n', f: '\f', r: '\r' } as Record<string, string>)[escape]!,
  );
}

/** Strings a spreadsheet, a CSV parser or a terminal would act on, and arbitrary ones. */
const hostile = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({
    unit: fc.constantFrom(
      ...Array.from('=+-@\t\r\n",\'\\ a;|\u001b\u0000\u007f\u0085\u202e\u2028\ud800\udc00:#['),
    ),
    maxLength: 30,
  }),
  fc.constantFrom(
    '=HYPERLINK("https://evil.example","click")',
    '+1+1',
    '-2+3',
    '@SUM(A1:A9)',
    '\t=1',
    '\r=1',
    "'=1",
    '=cmd|" /C calc"!A0',
    '::error::forged',
    '##[set-output name=x]y',
  ),
);

describe('csvField', () => {
  it('any string reads back as itself through a real CSV parser, on one line, never a formula', () => {
    fc.assert(
      fc.property(hostile, (value) => {
        const field = csvField(value);
        const records = parseCsv(`${field}\r\n`);
        expect(records).toHaveLength(1);
        const [parsed] = records[0] ?? [];
        expect(decode(parsed ?? '')).toBe(value);
        expect(parsed).not.toMatch(/^[=+\-@\t\r]/);
        // eslint-disable-next-line no-control-regex -- control characters are what must not be written raw
        expect(field).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e]/);
      }),
      { numRuns: 1000 },
    );
  });

  it.each([
    ['=1+1', "'=1+1"],
    ['+1', "'+1"],
    ['-1', "'-1"],
    ['@SUM(A1)', "'@SUM(A1)"],
    ['\t=1', '\\t=1'], // escaped first: it starts with a backslash, no formula
    ["'quoted", "''quoted"],
    ['a,b', '"a,b"'],
    ['say "hi"', '"say ""hi"""'],
    ['line\r\nbreak', 'line\\r\\nbreak'],
    ['plain', 'plain'],
  ])('%j is written %j', (value, written) => {
    expect(csvField(value)).toBe(written);
  });
});

/** A stored attempt with `text` in every text field the CSV writes from the ledger. */
function hostileAttempt(texts: readonly string[], base: StoredAttempt): StoredAttempt {
  const at = (index: number): string => texts[index] ?? '';
  return {
    ...base,
    key: { runId: at(0), caseId: at(1), configId: at(2), attemptId: at(3) },
    record: {
      ...base.record,
      key: { runId: at(0), caseId: at(1), configId: at(2), attemptId: at(3) },
      runner: { ...base.record.runner, driverKind: at(4), packageName: at(5) },
      failure: { classification: 'model', code: at(6), message: at(7) },
      terminal: { ...base.record.terminal, turn: at(8) },
      cost: { ...base.record.cost, pricingVersion: at(9) },
    },
  };
}

describe('csvRow', () => {
  const base = storedAttempt('run1', 'case_a', 'config_a', 'a1', 'solved');

  it('every row has the header’s columns, and each text column reads back as its input', () => {
    fc.assert(
      fc.property(fc.array(fc.array(hostile, { minLength: 10, maxLength: 10 }), { maxLength: 5 }), (rows) => {
        const attempts = rows.map((texts) => hostileAttempt(texts, base));
        const text =
          csvHeader() +
          attempts
            .map((stored) => csvRow(stored, attemptVerdict(stored.record, stored.scores), 'model-x'))
            .join('');
        const records = parseCsv(text);
        expect(records[0]).toEqual([...CSV_COLUMNS]);
        expect(records).toHaveLength(attempts.length + 1);
        for (const record of records) expect(record).toHaveLength(CSV_COLUMNS.length);
        // One physical line per row: text never breaks a row.
        expect(text.split('\r\n')).toHaveLength(attempts.length + 2);
        rows.forEach((texts, index) => {
          const row = Object.fromEntries(
            CSV_COLUMNS.map((column, at) => [column, decode(records[index + 1]?.[at] ?? '')]),
          );
          expect([row.run, row.case, row.config, row.attempt, row.failure_code]).toEqual([
            texts[0],
            texts[1],
            texts[2],
            texts[3],
            texts[6],
          ]);
          expect(row.driver).toBe(`${texts[4] ?? ''}@${base.record.runner.driverVersion}`);
          expect(row.pricing_version).toBe(texts[9]);
          expect(row.terminal_turn).toBe(texts[8]);
          expect(row.status_reason).toBe(`model: ${texts[6] ?? ''}`);
        });
      }),
      { numRuns: 200 },
    );
  });

  it('writes cost exactly in USD with its coverage; unknown cost is empty and "unpriced", never 0', async () => {
    const priced = storedAttempt('run1', 'case_a', 'config_a', 'a1', 'solved');
    const unpriced = storedAttempt('run1', 'case_a', 'config_a', 'a2', 'unpriced');
    const { text } = await reportText([priced, unpriced], { format: 'csv' });
    const [header = [], ...rows] = parseCsv(text);
    const column = (row: readonly string[] | undefined, name: string): string | undefined =>
      row?.[header.indexOf(name)];
    expect(column(rows[0], 'cost_usd')).toBe('0.001000000');
    expect(column(rows[0], 'cost_coverage')).toBe('provider_reported');
    expect(column(rows[0], 'provider_reported_usd')).toBe('0.001000000');
    expect(column(rows[0], 'cost_source')).toBe('usage.cost');
    expect(column(rows[1], 'cost_usd')).toBe('');
    expect(column(rows[1], 'cost_coverage')).toBe('unpriced');
    expect(column(rows[1], 'cost_source')).toBe('provider_cost_null model_unknown');
  });

  it('the report writes the header and one row per counted attempt, with its status and reason', async () => {
    const attempts = [
      storedAttempt('run1', 'case_a', 'config_a', 'a1', 'solved'),
      storedAttempt('run1', 'case_a', 'config_a', 'a2', 'unsolved'),
      storedAttempt('run1', 'case_b', 'config_a', 'a3', 'errored'),
      storedAttempt('run2', 'case_b', 'config_b', 'a4', 'incomplete'),
    ];
    const { text, result } = await reportText(attempts, { format: 'csv', runId: 'run1' });
    const [header = [], ...rows] = parseCsv(text);
    expect(header).toEqual([...CSV_COLUMNS]);
    expect(rows).toHaveLength(result.summary.attempts);
    const of = (name: string): (string | undefined)[] => rows.map((row) => row[header.indexOf(name)]);
    expect(of('attempt')).toEqual(['a1', 'a2', 'a3']);
    expect(of('status')).toEqual(['solved', 'unsolved', 'errored']);
    expect(of('status_reason')).toEqual(['', 'check c1 failed', 'infrastructure: sandbox_lost']);
    expect(of('checks_passed')).toEqual(['1', '0', '1']);
    expect(of('checks_failed')).toEqual(['0', '1', '0']);
  });
});
