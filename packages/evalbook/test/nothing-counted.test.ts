// When a report or grid counts nothing but left attempts out, its first words say why (every
// attempt foreign: most often the wrong --env), never an empty verdict "in no attempts".
import { describe, expect, it } from 'vitest';

import { nothingCountedText } from '../src/ledger/retraction.ts';
import { renderMarkdown } from '../src/report/render-markdown.ts';
import { SummaryBuilder } from '../src/analysis/summary.ts';
import { storedAttempt } from './support/stored-attempts.ts';

describe('nothingCountedText', () => {
  it.each([
    [{ latestRun: 'r1', leftOut: { foreign: 3, retracted: 0, retried: 0 } }, null],
    [{ latestRun: null, leftOut: { foreign: 0, retracted: 0, retried: 0 } }, null],
    [
      { latestRun: null, leftOut: { foreign: 24, retracted: 0, retried: 0 } },
      /^all 24 attempts in scope are left out, foreign .*is --env the suite this store was run with\?/,
    ],
    [
      { latestRun: null, leftOut: { foreign: 1, retracted: 0, retried: 0 } },
      /^the one attempt in scope is left out, foreign/,
    ],
    [
      { latestRun: null, leftOut: { foreign: 0, retracted: 2, retried: 0 } },
      /^all 2 attempts in scope are left out, retracted/,
    ],
    [
      { latestRun: null, leftOut: { foreign: 2, retracted: 1, retried: 0 } },
      /^all 3 attempts in scope are left out: 2 foreign .*, 1 retracted$/,
    ],
  ] as const)('%o → %s', (summary, expected) => {
    const said = nothingCountedText(summary);
    if (expected === null) expect(said).toBeNull();
    else expect(said).toMatch(expected);
  });
});

describe('the Markdown verdict of an empty scope', () => {
  it('says no attempts are in scope, not "in no attempts"', () => {
    const markdown = renderMarkdown({
      title: 't',
      summary: new SummaryBuilder({}).build(),
      budgets: [],
      gate: null,
    });
    expect(markdown).toContain('**Verdict: no gate** — no attempts in scope (evals ingest first).');
    expect(markdown).not.toContain('in no attempts');
  });

  it('says every attempt is foreign first, when they all are (the wrong --env)', () => {
    const builder = new SummaryBuilder({});
    for (const index of [0, 1, 2])
      builder.add(storedAttempt('r1', 'case_a', 'base', `a${index}`, 'mismatch'));
    const markdown = renderMarkdown({ title: 't', summary: builder.build(), budgets: [], gate: null });
    expect(markdown).toMatch(
      /\*\*Verdict: no gate\*\* — all 3 attempts in scope are left out, foreign to the environment's suite/,
    );
  });
});
