// The Markdown report (the PR comment) under hostile text, read by a real GFM renderer (micromark
// with its GFM extension, raw HTML and every link protocol allowed, as GitHub's renderer lets them
// through to its sanitizer). A report is rendered twice: once with a plain placeholder in every place
// that prints text from a bundle, the store or the command line, once with hostile strings there.
// Both must render the same elements (same table rows and cells, headings, lists, no extra link,
// image or HTML element), and each text must read as its input — with what markdownText replaces
// on purpose (a control character shows as `\u000d`; U+200B breaks a mention or a link) normalised.
import fc from 'fast-check';
import { micromark } from 'micromark';
import { gfm, gfmHtml } from 'micromark-extension-gfm';
import { parseFragment } from 'parse5';
import { describe, expect, it } from 'vitest';

import { MARKDOWN_BREAK } from '../../contract/src/markdown-text.ts';
import { htmlReportHref, renderMarkdown } from '../src/report/render-markdown.ts';
import { shownText } from '../src/report/masked.ts';

import type { MarkdownReportInput } from '../src/report/render-markdown.ts';
import type { CoverageSummary } from '../src/ledger/cost.ts';
import type { EvalbookSummary, RateWithInterval } from '../src/analysis/summary.ts';

/** GFM as GitHub parses it, before its sanitizer: raw HTML and any link protocol pass through. */
const renderGfm = (markdown: string): string =>
  micromark(markdown, {
    extensions: [gfm()],
    htmlExtensions: [gfmHtml()],
    allowDangerousHtml: true,
    allowDangerousProtocol: true,
  });

const coverage = (text: string): CoverageSummary => ({
  attempts: 3,
  providerReported: 2,
  estimated: 1,
  unpriced: 0,
  priced: 3,
  pricedTotalNanodollars: 6_000_000,
  legacyLedger: 0,
  legacyLedgerTotalNanodollars: 0,
  text,
});
const counts = { solved: 2, unsolved: 1, errored: 0, incomplete: 0, over_budget: 0 };
const rate: RateWithInterval = {
  solved: 2,
  denominator: { policy: 'all_attempts', counted: 3, excluded: {} },
  solveRate: 2 / 3,
  ci95: [0.2, 0.9],
};

/** Every place the Markdown report prints text it did not write itself. */
const SLOTS = [
  'title',
  'comparison.a',
  'comparison.b',
  'regression.0.caseId',
  'regression.1.caseId',
  'improvement.0.caseId',
  'config.0.configId',
  'config.1.configId',
  'retraction.runId',
  'retraction.attemptId',
  'retraction.by',
  'retraction.at',
  'retraction.reason',
  'softFailure.0.checkId',
  'softFailure.1.checkId',
  'policy.configId',
  'policy.policyDigest',
  'drift.checkId',
  'drift.caseId',
  'drift.configId',
  'drift.latestRunId',
  'gate.reason.0',
  'gate.reason.1',
  'budget.run.runId',
  'budget.config.configId',
  'run',
] as const;
type Slot = (typeof SLOTS)[number];

/** A report with every slot's text from `text` (the rest plain numbers): gates, comparison, policy, drift, budgets. */
function reportInput(text: (slot: Slot) => string): MarkdownReportInput {
  const delta = (caseId: string) => ({
    caseId,
    configId: null,
    aSolved: 3,
    aCounted: 3,
    bSolved: 1,
    bCounted: 3,
    aSolveRate: 1,
    bSolveRate: 1 / 3,
    delta: -2 / 3,
  });
  const config = (configId: string) => ({
    ...rate,
    configId,
    cases: 1,
    statusCounts: counts,
    interval: 'bootstrap_clustered_by_case' as const,
    cost: coverage('3 of 3 attempts priced'),
    costPerSolvedNanodollars: 3_000_000,
  });
  const summary: EvalbookSummary = {
    schema: 'paperclip-evals/summary/v1',
    denominatorPolicy: 'all_attempts',
    runScope: null,
    attempts: 6,
    statusCounts: counts,
    leftOut: { foreign: 0, retracted: 1, retried: 0 },
    includeForeign: false,
    foreignIncluded: 0,
    retractions: [
      {
        runId: text('retraction.runId'),
        attemptId: text('retraction.attemptId'),
        by: text('retraction.by'),
        at: text('retraction.at'),
        reason: text('retraction.reason'),
      },
    ],
    artifactVerification: { verified: 0, unverified: 6, mismatched: 0 },
    runs: [text('run')],
    cases: [],
    configs: [],
    grid: [],
    gridRuns: [text('run')],
    latestRun: text('run'),
    // the newest run's cells the verdict line counts (no case is listed, so the grid table has no row)
    latestGrid: [text('config.0.configId'), text('config.1.configId')].map((configId) => ({
      ...rate,
      caseId: 'case',
      configId,
      statusCounts: counts,
      passAtK: [],
      flaky: false,
      cost: coverage('3 of 3 attempts priced'),
      costPerSolvedNanodollars: 3_000_000,
      runId: text('run'),
      previous: null,
      delta: null,
      trend: 'new' as const,
    })),
    checkRates: [],
    perCallObservations: 0,
    identity: { cases: [], configs: [] },
    configStats: [config(text('config.0.configId')), config(text('config.1.configId'))],
    latestConfigStats: [config(text('config.0.configId')), config(text('config.1.configId'))],
    trend: [],
    flakyCells: [],
    coverage: coverage('6 of 6 attempts priced'),
    comparison: {
      by: 'config',
      a: text('comparison.a'),
      b: text('comparison.b'),
      runs: [text('run')],
      sharedCases: 2,
      unsharedCases: 0,
      aWins: 2,
      bWins: 0,
      ties: 0,
      mcnemarP: 0.5,
      discordant: { aOnly: 2, bOnly: 0 },
      deltaSolveRate: -2 / 3,
      deltaSolveRateCi95: [-1, 0],
      regressions: [delta(text('regression.0.caseId')), delta(text('regression.1.caseId'))],
      improvements: [
        {
          ...delta(text('improvement.0.caseId')),
          bSolved: 3,
          bSolveRate: 1,
          aSolved: 1,
          aSolveRate: 1 / 3,
          delta: 2 / 3,
        },
      ],
      cost: {
        a: coverage('3 of 3 attempts priced'),
        b: coverage('3 of 3 attempts priced'),
        meanDeltaNanodollars: 1000,
      },
    },
    policy: [
      {
        configId: text('policy.configId'),
        policyDigest: text('policy.policyDigest'),
        toolCalls: 4,
        counts: {
          agree: 3,
          policy_denies_runner_allowed: 1,
          runner_denied_policy_allows: 0,
          policy_error: 0,
          policy_verdict_unfamiliar: 0,
          no_recorded_outcome: 0,
        },
      },
    ],
    checkDrift: [
      {
        caseId: text('drift.caseId'),
        checkId: text('drift.checkId'),
        configId: text('drift.configId'),
        layer: 3,
        runs: [],
        staticThreshold: 0.8,
        status: 'drift_detected',
        historyBar: 0.9,
        latestRunId: text('drift.latestRunId'),
        latestScore: 0.5,
        baselineRuns: 10,
        mean: 0.95,
        stddev: 0.01,
        bar: 0.9,
        deviation: -0.45,
      },
    ],
    softFailures: [
      { checkId: text('softFailure.0.checkId'), attempts: 1 },
      { checkId: text('softFailure.1.checkId'), attempts: 2 },
    ],
  };
  const budget = { limitNanodollars: 1, spentNanodollars: 2, legacyLedgerNanodollars: 0, unpriced: 0 };
  return {
    title: text('title'),
    summary,
    budgets: [
      { ...budget, scope: 'run', runId: text('budget.run.runId'), configId: null, status: 'exceeded' },
      {
        ...budget,
        scope: 'config',
        runId: 'run',
        configId: text('budget.config.configId'),
        status: 'unproven',
      },
    ],
    gate: {
      passed: false,
      view: { kind: 'newest_run', run: text('run'), runs: [text('run')], text: `newest run ${text('run')}` },
      gates: [
        {
          failOn: 'case-regression:10',
          passed: false,
          reasons: [text('gate.reason.0'), text('gate.reason.1')],
          judged: `newest run ${text('run')} (the only run)`,
        },
        { failOn: 'drift', passed: true, reasons: [], judged: `the checks of run ${text('run')}` },
      ],
    },
  };
}

interface HtmlNode {
  readonly nodeName: string;
  readonly value?: string;
  readonly attrs?: readonly { readonly name: string; readonly value: string }[];
  readonly childNodes?: readonly HtmlNode[];
}
/** The rendered HTML as its elements (with attributes) in document order, and the text between them. */
function shape(html: string): { elements: string[]; texts: string[] } {
  const elements: string[] = [];
  const texts: string[] = [];
  let run = '';
  const walk = (node: HtmlNode): void => {
    if (node.nodeName === '#text') {
      run += node.value ?? '';
      return;
    }
    const isElement = !node.nodeName.startsWith('#');
    if (isElement) {
      elements.push(`<${node.nodeName}${(node.attrs ?? []).map((a) => ` ${a.name}="${a.value}"`).join('')}>`);
      texts.push(run);
      run = '';
    }
    for (const child of node.childNodes ?? []) walk(child);
    if (isElement) {
      elements.push(`</${node.nodeName}>`);
      texts.push(run);
      run = '';
    }
  };
  const fragment: HtmlNode = parseFragment(html);
  walk(fragment);
  texts.push(run);
  return { elements, texts };
}

/**
 * What the report shows on purpose instead of the input: its secrets masked (masked.ts shownText:
 * a hostile `https://_@x` is a web URL's userinfo), and a control character as `\uXXXX`.
 */
const SHOWN_AS_ESCAPE =
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is matched
  /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
const shown = (input: string): string =>
  shownText(input)
    .replace(SHOWN_AS_ESCAPE, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`)
    .replaceAll(MARKDOWN_BREAK, '');

/** Placeholders: letters and digits only, nothing GFM or GitHub reads as syntax. */
const placeholder = (slot: Slot): string => `zq${SLOTS.indexOf(slot)}qz`;

/**
 * What GitHub itself links or notifies after rendering: @mentions and e-mail, #123 and
 * GH-123 refs, URL and www autolinks, emoji shortcodes that start with a letter, + or - (mailto: and
 * xmpp: link only with an e-mail address, which the @ rule breaks). No rendered text may hold one.
 */
const GITHUB_TEXT_LINKS = /@[a-z0-9_-]|#\d|gh-\d|:\/\/|www\.|:[a-z+-][a-z0-9_+-]*:/i;

/** Renders the report with `hostile` in every slot and asserts it reads exactly as its text. */
/** The placeholder report as GFM reads it: the same for every row, so rendered and parsed once. */
let placeholderShape: ReturnType<typeof shape> | undefined;

function assertRendersAsText(hostile: (slot: Slot) => string): void {
  const expected = (placeholderShape ??= shape(renderGfm(renderMarkdown(reportInput(placeholder)))));
  const got = shape(renderGfm(renderMarkdown(reportInput(hostile))));
  expect(got.elements).toEqual(expected.elements);
  const fill = (text: string): string =>
    text.replace(/zq(\d+)qz/g, (_match, index: string) => shown(hostile(SLOTS[Number(index)] ?? 'title')));
  expect(got.texts.map((text) => text.replaceAll(MARKDOWN_BREAK, ''))).toEqual(expected.texts.map(fill));
  expect(got.texts.join('\u0000')).not.toMatch(GITHUB_TEXT_LINKS);
}

/** Hostile pieces (never empty: ids and reasons are never empty, and an empty one would let GFM trim our own spaces): GFM syntax, HTML, autolinks, mentions, refs, line breaks of every kind. */
const PIECES = [
  '<',
  '>',
  '&',
  '&amp;',
  '&#x3c;',
  '|',
  '\\',
  '\\|',
  '`',
  '```',
  '*',
  '**',
  '_',
  '_a_',
  'a_b_',
  '__x__',
  'a*b*c',
  '~~',
  '~x~',
  '[',
  ']',
  '(',
  ')',
  '!',
  '#',
  '# ',
  '@',
  ':',
  '/',
  '-',
  '---',
  '=',
  '+',
  '1.',
  '> ',
  '$',
  '$x$',
  '^',
  ' ',
  '    ',
  '\t',
  '\r',
  '\n',
  '\r\n',
  '\u2028',
  '\u2029',
  '\u0000',
  '\u001b[31m',
  '\u202e',
  '\u200b',
  '\ud800',
  '\udc00',
  'a',
  'Z9',
  'www.',
  'https://',
  'http://x.com',
  'mailto:',
  'x@y.com',
  '@octocat',
  '@org/team',
  '#123',
  'GH-12',
  ':smile:',
  '[^1]',
  '[x]: https://e.com',
  '<img src=x onerror=alert(1)>',
  '[x](javascript:alert(1))',
  '![i](https://e.com/i.png)',
  '<https://e.com>',
  '<!--',
  '-->',
  '<script>',
  '</td></tr>',
  '| forged | row |',
];
const hostileText = fc.oneof(
  fc.array(fc.constantFrom(...PIECES), { minLength: 1, maxLength: 12 }).map((pieces) => pieces.join('')),
  fc.string({ unit: 'binary', minLength: 1, maxLength: 40 }),
  fc.string({
    unit: fc.constantFrom(...Array.from('<>&|\\`*_[]()!#@:/-= \t\r\nwhtps.xyz')),
    minLength: 1,
    maxLength: 40,
  }),
);

describe('renderMarkdown: text from input is text', () => {
  it.each([
    ['raw HTML', '<img src=x onerror=alert(1)>'],
    ['a raw link', '<a href="https://evil.example">sign in</a>'],
    ['a details block', '<details open><summary>x</summary>'],
    ['a javascript: link', '[x](javascript:alert(1))'],
    ['an image', '![x](https://evil.example/i.png)'],
    ['an @mention', '@octocat'],
    ['a team mention', '@paperclip/maintainers'],
    ['an issue ref', '#123'],
    ['a URL autolink', 'see https://evil.example/x'],
    ['a www autolink', 'www.evil.example'],
    ['an e-mail autolink', 'me@evil.example'],
    ['a carriage return that forges a table row', 'a\r| forged | row |'],
    ['a newline that forges a heading', 'a\n# heading'],
    ['a line separator', 'a\u2028# heading'],
    ['emphasis and code', '**bold** _it_ `code`'],
    ['intraword emphasis', 'snake_case_id a*b*c __init__'],
    ['an entity', '&lt;b&gt;'],
    ['a pipe and a backslash', 'a\\|b|c\\'],
    ['edge spaces', '   padded   '],
    ['an emoji shortcode', ':shipit:'],
  ])('%s (%j) renders as that text in every place', (_name, hostile) => {
    assertRendersAsText(() => hostile);
  });

  it('every place, arbitrary hostile strings: same elements, same text', () => {
    fc.assert(
      fc.property(fc.array(hostileText, { minLength: SLOTS.length, maxLength: SLOTS.length }), (texts) => {
        assertRendersAsText((slot) => texts[SLOTS.indexOf(slot)] ?? '');
      }),
      { numRuns: 200 },
    );
  });
});

/** The report input of reportInput with plain text, bent by `change`. */
function plainInput(
  change: (input: MarkdownReportInput) => MarkdownReportInput = (input) => input,
): MarkdownReportInput {
  return change(reportInput(placeholder));
}
const withComparison = (
  input: MarkdownReportInput,
  ci: readonly [number, number] | null,
  gate: MarkdownReportInput['gate'] = input.gate,
): MarkdownReportInput => ({
  ...input,
  gate,
  summary: {
    ...input.summary,
    comparison:
      input.summary.comparison === null ? null : { ...input.summary.comparison, deltaSolveRateCi95: ci },
  },
});
/** The line after the title and its blank line. */
const verdictOf = (input: MarkdownReportInput): string => renderMarkdown(input).split('\n')[2] ?? '';

describe('renderMarkdown: the verdict line comes first', () => {
  const held = {
    passed: true,
    view: { kind: 'newest_run' as const, run: 'r', runs: ['r'], text: 'newest run r (the only run)' },
    gates: [{ failOn: 'regression', passed: true, reasons: [], judged: 'newest run r (the only run)' }],
  };
  it.each([
    [
      'regression',
      [-1, -0.1] as const,
      null,
      '**Verdict: regression · no gate** — Δ solve rate −66.7 pts (95% CI -100.0 to -10.0, paired bootstrap over shared cases)',
    ],
    ['improvement', [0.1, 0.9] as const, null, '**Verdict: improvement · no gate** —'],
    [
      'no significant change',
      [-0.2, 0.3] as const,
      held,
      '**Verdict: no significant change · gate passed** —',
    ],
    [
      'inconclusive',
      null,
      null,
      '**Verdict: inconclusive · no gate** — Δ solve rate −66.7 pts (no interval: fewer than 2 shared cases)',
    ],
  ])('%s', (_name, ci, gate, start) => {
    expect(verdictOf(withComparison(plainInput(), ci, gate))).toMatch(
      new RegExp(`^${start.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`),
    );
  });

  it('with failed gates and no comparison it says so, with the counts', () => {
    const line = verdictOf(
      plainInput((input) => ({ ...input, summary: { ...input.summary, comparison: null } })),
    );
    expect(line).toBe(
      `**Verdict: gates failed (1 of 2)** — 6 attempts over 1 cases × 2 configs, 4 solved (66.7%), in newest run ${placeholder('run')} (the only run).`,
    );
  });

  // Two kinds of interval sit side by side (a new user's review): each says which it is.
  it("labels each interval's kind: Wilson per case, a bootstrap over cases per config, a paired one for Δ", () => {
    const markdown = renderMarkdown(plainInput());
    expect(markdown).toContain('(Wilson 95% CI)');
    expect(markdown).toContain('| Config | Solve rate (95% CI: bootstrap over cases) |');
    expect(markdown).toContain('paired bootstrap over shared cases)');
    expect(markdown).not.toMatch(/\((?:95% CI)\) \|/);
  });

  it('with neither a comparison nor a gate the verdict is "no gate"', () => {
    const line = verdictOf(
      plainInput((input) => ({ ...input, gate: null, summary: { ...input.summary, comparison: null } })),
    );
    expect(line).toMatch(/^\*\*Verdict: no gate\*\* — 6 attempts/);
  });

  it('lists regressions and improvements, each side with its Wilson interval, and money at a reader’s precision', () => {
    const markdown = renderMarkdown(plainInput());
    expect(markdown).toContain(
      '| zq3qz | 3/3 100.0% [43.9%, 100.0%] | 1/3 33.3% [6.1%, 79.2%] | −66.7 pts |',
    );
    expect(markdown).toContain('| Improved case | zq1qz (Wilson 95% CI) | zq2qz (Wilson 95% CI) | Δ |');
    expect(markdown).toContain(
      '| zq5qz | 1/3 33.3% [6.1%, 79.2%] | 3/3 100.0% [43.9%, 100.0%] | +66.7 pts |',
    );
    expect(markdown).toContain('priced total $0.006.');
    expect(markdown).toContain('Cost per attempt, B − A: +$0.000001 ');
    expect(markdown).not.toMatch(/\$\d+\.\d{9}/);
  });
});

describe('renderMarkdown: a link to the published HTML report', () => {
  const linksOf = (markdown: string): string[] => {
    const links: string[] = [];
    const walk = (node: HtmlNode): void => {
      if (node.nodeName === 'a') links.push(node.attrs?.find((attr) => attr.name === 'href')?.value ?? '');
      for (const child of node.childNodes ?? []) walk(child);
    };
    walk(parseFragment(renderGfm(markdown)));
    return links;
  };

  it('none without --html-url', () => {
    expect(linksOf(renderMarkdown(plainInput()))).toEqual([]);
  });

  it.each([
    'https://ci.example/runs/42/report.html',
    'http://ci.example:8080/a/b?run=42&copy=1#cell=case_a/config_b',
    'https://ci.example/a_(b)/[c]/*d*/~e~/`f`/\\g/&amp;/!h?x="y"&z=\'w\'',
    'https://ci.example/%28already%29/é/日本',
  ])('%s is one link, to exactly that URL', (url) => {
    const markdown = renderMarkdown({ ...plainInput(), htmlUrl: url });
    expect(markdown.split('\n')[4]).toMatch(/^Full report: \[HTML report\]\(/);
    const links = linksOf(markdown);
    expect(links).toHaveLength(1);
    expect(decodeURIComponent(links[0] ?? '')).toBe(decodeURIComponent(new URL(url).href));
  });

  it.each([
    ['not a URL', 'report.html', /is not an absolute URL/],
    ['a javascript: URL', 'javascript:alert(1)', /has the scheme javascript:/],
    ['a data: URL', 'data:text/html,<script>alert(1)</script>', /has the scheme data:/],
    ['a file: URL', 'file:///etc/passwd', /has the scheme file:/],
    ['a newline (dropped by a URL parser)', 'https://ci.example/a\nb', /a space or a control character/],
    ['a space', 'https://ci.example/a b', /a space or a control character/],
    ['a bidi override', 'https://ci.example/\u202egnp.exe', /a space or a control character/],
  ])('refuses %s (coded, nothing rendered)', (_name, url, message) => {
    expect(() => renderMarkdown({ ...plainInput(), htmlUrl: url })).toThrow(message);
    expect(() => htmlReportHref(url)).toThrowCode('paperclip_evalbook_report_option_invalid');
  });

  it('refuses a user or password and never shows the password', () => {
    let error: unknown;
    try {
      htmlReportHref('https://alice:s3cr3t-pw@ci.example/report.html');
    } catch (caught) {
      error = caught;
    }
    expect(error).toMatchObject({ code: 'paperclip_evalbook_report_option_invalid' });
    expect(JSON.stringify(error, Object.getOwnPropertyNames(error))).not.toContain('s3cr3t');
    expect(JSON.stringify((error as { issues: unknown }).issues)).toContain(
      'https://***@ci.example/report.html',
    );
  });

  /** The refusal thrown by htmlReportHref(url), as one JSON text (message and issues). */
  const refusalOf = (url: string): string => {
    try {
      htmlReportHref(url);
    } catch (error) {
      expect(error).toMatchObject({ code: 'paperclip_evalbook_report_option_invalid' });
      const { message, stack, issues } = error as { message: string; stack: string; issues: unknown };
      return `${message}\n${stack}\n${JSON.stringify(issues)}`;
    }
    throw new Error(`htmlReportHref accepted ${url}`);
  };

  it.each([
    ['a token in the query', 'https://ci.example/r.html?token=S3cretPw99', 'S3cretPw99', '?token=***'],
    [
      'a presigned URL',
      'https://bucket.s3.amazonaws.com/r.html?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20261203%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Signature=9f2c1e0d8b7a6f5e4d3c2b1a0f9e8d7c',
      'AKIAIOSFODNN7EXAMPLE',
      'X-Amz-Credential=***',
    ],
    [
      'an access token in the fragment',
      'https://ci.example/r.html#access_token=ya29.S3cretPw99',
      'S3cretPw99',
      '#access_token=***',
    ],
    [
      'a sig among harmless ones',
      'https://ci.example/r.html?run=7&sig=abcdef0123456789&tab=grid',
      'abcdef0123456789',
      'sig=***',
    ],
    [
      'a password, percent-encoded name',
      'https://ci.example/r.html?%70assword=S3cretPw99',
      'S3cretPw99',
      '***',
    ],
    [
      'a GitHub token in the path',
      'https://ci.example/ghp_1234567890abcdefghijABCDEFGHIJ/r.html',
      'ghp_1234567890',
      '/***/r.html',
    ],
  ])('refuses %s, showing it masked and saying what to do', (_name, url, secret, shown) => {
    const refusal = refusalOf(url);
    expect(refusal).toContain('carries a secret');
    expect(refusal).toContain('publish the HTML report where its link needs no secret');
    expect(refusal).toContain(shown);
    expect(refusal).not.toContain(secret);
  });

  it.each([
    'https://ci.example/r.html?run=nightly-2&tab=grid',
    'https://ci.example/r.html#cell=case_a/config_b',
    'https://ci.example/r.html#key-findings',
    'https://ci.example/runs/42/report.html?page=2',
  ])('links %s: a query or fragment without a secret is harmless', (url) => {
    expect(linksOf(renderMarkdown({ ...plainInput(), htmlUrl: url }))).toHaveLength(1);
  });

  it('refuses every secret-named parameter, in the query or the fragment, whatever its value (property)', () => {
    const names = [
      'token',
      'access_token',
      'sig',
      'signature',
      'X-Amz-Signature',
      'X-Amz-Credential',
      'password',
      'key',
      'api_key',
      'secret',
      'auth',
    ];
    fc.assert(
      fc.property(
        fc.constantFrom(...names),
        fc.stringMatching(/^[A-Za-z0-9._~-]{6,24}$/),
        fc.constantFrom('?', '#', '?run=1&', '#tab=grid&'),
        (name, value, before) => {
          const refusal = refusalOf(`https://ci.example/r.html${before}${name}=${value}`);
          expect(refusal).toContain(`${name}=***`);
          expect(refusal).not.toContain(`${name}=${value}`);
        },
      ),
    );
  });
});
