// Every HTML page the renderer writes masks credentials with no option to ask for it (masked.ts):
// an attempt's replay page and the report with its embedded replay and attempt data, whatever
// recorded text holds the secret — the agent's progress text, a tool's input or result, the
// proposed summary, the failure's message — and an id written into attributes. Checked with the
// detector `publish --verify` uses (credentialShapedValues) and for the secret itself (a
// `password=` is no shape: the text masks it), over a property of where each secret is placed.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { credentialShapedValues, maskCredentialShapes, scrubCredentials } from '@paperclip-evals/contract';
import { syntheticAttempt } from '@paperclip-evals/test-kit/synthetic';

import { SummaryBuilder } from '../src/analysis/summary.ts';
import { renderAttemptPage } from '../src/report/html/attempt-page.ts';
import { renderHtml } from '../src/report/html/render-html.ts';
import { shownInPage, shownText } from '../src/report/masked.ts';
import { replayOfBundle } from './support/replays.ts';
import { storedAttempt } from './support/stored-attempts.ts';

const SECRETS = [
  { written: 'OPENAI_API_KEY=sk-proj-Zq8vT3cRw9LmN2pXa7Kd4HfY', secret: 'Zq8vT3cRw9LmN2pXa7Kd4HfY' },
  { written: 'ghp_1234567890abcdefghijABCDEFGHIJklmnop', secret: '1234567890abcdefghijABCDEFGHIJ' },
  { written: 'AKIAIOSFODNN7EXAMPLE', secret: 'IOSFODNN7EXAMPLE' },
  { written: 'password=Hunter2Secret', secret: 'Hunter2Secret' },
  { written: 'https://ci:Hunter2Secret@git.example/repo', secret: 'Hunter2Secret' },
] as const;
const PLACES = ['progress', 'toolInput', 'toolResult', 'summary', 'failure'] as const;

interface Event {
  eventType: string;
  payload: { text?: string; summary?: string; semantic_tool?: { content: Record<string, unknown> } };
}

/** A failed synthetic bundle with `text` in each of `places` (as the e2e places them). */
function bundleWith(text: string, places: readonly (typeof PLACES)[number][]): unknown {
  const bundle = syntheticAttempt({ attemptId: 'attempt_m', runTerminalState: 'failed' }) as {
    events: Event[];
    failure: { message: string };
  };
  const first = (type: string): Event => bundle.events.find((event) => event.eventType === type) as Event;
  for (const place of places)
    if (place === 'progress') first('item.delta').payload.text = `using ${text} now`;
    else if (place === 'toolInput') first('mcp_app.tool_input').payload.semantic_tool!.content.note = text;
    else if (place === 'toolResult') first('mcp_app.tool_result').payload.semantic_tool!.content.note = text;
    else if (place === 'summary') first('run.result.proposed').payload.summary = `Done: ${text}.`;
    else bundle.failure.message = `failed (${text})`;
  return bundle;
}

/** The attempt's own page and the report embedding its replay and a row whose id and reason hold `text`. */
function pages(text: string, places: readonly (typeof PLACES)[number][]): string[] {
  const replay = replayOfBundle(bundleWith(text, places));
  const builder = new SummaryBuilder({});
  builder.add(storedAttempt('run1', 'case', 'config', 'attempt', 'errored'));
  const report = renderHtml({
    title: `report ${text}`,
    storeUrl: 'sqlite:book.sqlite',
    summary: builder.build(),
    budgets: [],
    gate: null,
    attempts: [{ attemptId: `attempt ${text}`, statusReason: `runner: ${text}`, replay }],
  });
  return [renderAttemptPage(replay, { title: `Attempt ${text}` }), report];
}

describe('the HTML renderer masks credentials by default', () => {
  it('wherever a secret is recorded, no page holds it nor any credential shape (property)', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...SECRETS),
        fc.subarray([...PLACES], { minLength: 1 }),
        ({ written, secret }, places) => {
          for (const page of pages(written, places)) {
            expect(page).not.toContain(secret);
            expect(credentialShapedValues(page)).toEqual([]);
          }
        },
      ),
      { numRuns: 40 },
    );
  });

  it('an id that is a credential shape, written into attributes (data-case), is masked too: the page pass', () => {
    const builder = new SummaryBuilder({});
    builder.add(storedAttempt('run1', 'AKIAIOSFODNN7EXAMPLE', 'config', 'attempt', 'solved'));
    const report = renderHtml({
      title: 'report',
      storeUrl: 'sqlite:book.sqlite',
      summary: builder.build(),
      budgets: [],
      gate: null,
      attempts: [],
    });
    expect(report).toContain('data-case="***"');
    expect(report).not.toContain('IOSFODNN7EXAMPLE');
    expect(credentialShapedValues(report)).toEqual([]);
  });

  it('shows the text around a secret, masked as the contract masks it', () => {
    const [page = ''] = pages('OPENAI_API_KEY=sk-proj-Zq8vT3cRw9LmN2pXa7Kd4HfY and password=Hunter2Secret', [
      ...PLACES,
    ]);
    expect(page).toContain('using OPENAI_API_KEY=*** and password=*** now');
    expect(page).toContain('Done: OPENAI_API_KEY=*** and password=***.');
    expect(shownText('x ghp_1234567890abcdefghijABCDEFGHIJklmnop y')).toBe('x *** y');
  });

  it('an id-like text (letters, digits, ._:-) is changed by no rule of the contract but the shapes, which the page pass masks (property)', () => {
    const idLike = fc.stringMatching(/^[A-Za-z0-9._:-]{0,60}$/);
    const withShape = fc
      .tuple(idLike, fc.constantFrom('sk-proj-', 'ghp_', 'AKIA', 'aws_secret_access_key:', 'xoxb-'), idLike)
      .map(
        ([before, shape, after]) =>
          `${before}.${shape}${'A1b2C3d4E5f6G7h8I9j0K1l2M3n4'.slice(0, 16 + (after.length % 12))}.${after}`,
      );
    fc.assert(
      fc.property(fc.oneof(idLike, withShape), (text) => {
        expect(scrubCredentials(text)).toBe(maskCredentialShapes(text));
        expect(shownInPage(text)).toBe(text);
      }),
      { numRuns: 500 },
    );
  });
});
