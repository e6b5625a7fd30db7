// The HTML report as text for a terminal or CI log (`report --format html` on stdout): text from
// input is written with character references, so no raw control, format or separator character is
// in the page and no line of it reads as a GitHub Actions workflow command, while a browser reads
// exactly the input text (parse5, the HTML parser of the spec) and the embedded data parses to it.
import fc from 'fast-check';
import { parse } from 'parse5';
import { describe, expect, it } from 'vitest';

import { renderHtml } from '../src/report/html/render-html.ts';
import { SummaryBuilder } from '../src/analysis/summary.ts';
import { syntheticAttempt } from '@paperclip-evals/test-kit/synthetic';
import { replayOfBundle } from './support/replays.ts';
import { storedAttempt } from './support/stored-attempts.ts';

import type { DefaultTreeAdapterMap } from 'parse5';

type Node = DefaultTreeAdapterMap['node'];

const HOSTILE = [
  'a\r\n::error file=x::forged',
  '\n::add-mask::secret',
  '  ::set-output name=x::y',
  'x ##[error]forged ##vso[task.setvariable]y',
  '\u001b[31mred\u001b[0m \u001b]8;;http://x\u0007link',
  'bidi \u202eevil\u202c \u2066iso\u2069 \u2028 \u2029 zw\u200b',
];

/** Every text node's content under `node`, in order. */
function texts(node: Node): string[] {
  if (node.nodeName === '#text') return [(node as DefaultTreeAdapterMap['textNode']).value];
  if (node.nodeName === 'script' || node.nodeName === 'style') return [];
  // an attempt's replay sits in a <template>: its content is a fragment of its own
  if (node.nodeName === 'template') return texts((node as DefaultTreeAdapterMap['template']).content);
  return 'childNodes' in node ? node.childNodes.flatMap(texts) : [];
}

function page(id: string): string {
  const builder = new SummaryBuilder({});
  builder.add(storedAttempt('run1', `case ${id}`, `config ${id}`, 'attempt', 'solved'));
  return renderHtml({
    title: `title ${id}`,
    storeUrl: 'sqlite:book.sqlite',
    summary: builder.build(),
    budgets: [],
    gate: null,
    attempts: [
      {
        caseId: `case ${id}`,
        message: `message ${id}`,
        replay: replayOfBundle({
          ...syntheticAttempt({ caseId: `case ${id}`, configId: `config ${id}`, runTerminalState: 'failed' }),
          failure: { classification: 'runner', code: 'run_failed', message: `failure ${id}` },
        }),
      },
    ],
  });
}

/** What a terminal or a GitHub Actions runner would act on, in the page's bytes. */
function actedOn(html: string): string[] {
  const found: string[] = [];
  const raw = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u;
  for (const line of html.split('\n')) {
    if (raw.test(line)) found.push(`raw control in ${JSON.stringify(line.slice(0, 80))}`);
    if (/^\s*::/.test(line)) found.push(`workflow command line ${JSON.stringify(line.slice(0, 80))}`);
    if (/##(?:\[|vso\[)/i.test(line)) found.push(`##[ in ${JSON.stringify(line.slice(0, 80))}`);
  }
  return found;
}

describe('the HTML report as text in a terminal or CI log', () => {
  it.each(HOSTILE)('writes %j so nothing acts on it, and a browser reads it back exactly', (id) => {
    const html = page(id);
    expect(actedOn(html)).toEqual([]);
    const shown = texts(parse(html)).join('\u0000');
    expect(shown).toContain(`title ${id}`);
    expect(shown).toContain(`config ${id}`);
    // the attempt's replay, in its template, reads back exactly too
    expect(shown).toContain(`failure ${id}`);
    const data = /<script type="application\/json" id="report-data">(.*?)<\/script>/s.exec(html)?.[1] ?? '';
    expect(JSON.stringify(JSON.parse(data))).toContain(JSON.stringify(`message ${id}`).slice(1, -1));
  });

  it('holds for any text (property)', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme-composite', maxLength: 30 }),
        fc.constantFrom(...HOSTILE),
        (noise, id) => {
          const text = `${noise}${id}${noise}`;
          const html = page(text);
          expect(actedOn(html)).toEqual([]);
          expect(texts(parse(html)).join('\u0000')).toContain(`config ${text}`);
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe("the comparison's headline agrees with its figures", () => {
  const comparisonPage = (cases: number): string => {
    const builder = new SummaryBuilder({ compare: { by: 'run', a: 'run1', b: 'run2' } });
    for (let index = 0; index < cases; index++)
      for (const run of ['run1', 'run2'])
        builder.add(storedAttempt(run, `case_${index}`, 'config_a', `attempt_${run}_${index}`, 'solved'));
    return renderHtml({
      title: 't',
      storeUrl: 'sqlite:book.sqlite',
      summary: builder.build(),
      budgets: [],
      gate: null,
      attempts: [],
    });
  };
  const headline = (html: string): string =>
    /<h2 id="comparison-title">[^]*?<strong>([^<]*)<\/strong>/.exec(html)?.[1] ?? '';

  it('one shared case: inconclusive (no interval), never "no shared case", as the Markdown says', () => {
    expect(headline(comparisonPage(1))).toBe(
      'Inconclusive: no interval over 1 shared case × config pair (fewer than 2 shared cases).',
    );
  });
});
