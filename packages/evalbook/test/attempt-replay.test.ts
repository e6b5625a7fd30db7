// The attempt replay model (src/report/attempt-replay.ts) and its one renderer (attempt-page.ts).
// Property: for any valid synthetic bundle — any number of tool calls with any outcomes, any progress
// text — every tool call of the bundle is in the replay exactly once, in the order of its input event,
// with its outcome, code, boundary and denial; no event text is lost, and the HTML shows each call
// once (a <details> per call, in order) and every text as itself. Rows: every way there is nothing
// to replay gives `recording: 'missing'` with its reason and a visible block, never a blank page;
// unknown cost stays unpriced, never $0.
import { createHash } from 'node:crypto';
import {
  canonicalize,
  parseEvalSessionArtifact,
  parseNativeExecution,
  sha256Digest,
} from '@paperclip-evals/contract';
import fc from 'fast-check';
import { parse } from 'parse5';
import { describe, expect, it } from 'vitest';

import { attemptVerdict } from '../src/analysis/scoring.ts';
import { convertArtifact, convertBundle } from '../src/ledger/convert.ts';
import { parseEnvironment } from '../src/ledger/environment.ts';
import { buildAttemptReplay } from '../src/report/attempt-replay.ts';
import {
  renderAttemptPage,
  renderAttemptPageBytes,
  renderAttemptReplay,
} from '../src/report/html/attempt-page.ts';
import { reportPageAssets } from '../src/report/html/page-assets.ts';
import { renderHtml } from '../src/report/html/render-html.ts';
import { HTML_MAX_ATTEMPTS, HTML_MAX_REPLAYS } from '../src/report/model.ts';
import { SummaryBuilder } from '../src/analysis/summary.ts';
import { storedAttempt } from './support/stored-attempts.ts';
import { syntheticAttempt } from '@paperclip-evals/test-kit/synthetic';
import { replayOf, replayOfBundle, storedFromRecord } from './support/replays.ts';
import { upstreamFailure, upstreamSuccess } from '@paperclip-evals/test-kit/upstream-artifacts';

import type { DefaultTreeAdapterMap } from 'parse5';
import type { AttemptReplay, ReplayEvent, ReplayToolCall } from '../src/report/attempt-replay.ts';

type Json = Record<string, unknown>;
type Node = DefaultTreeAdapterMap['node'];
type Element = DefaultTreeAdapterMap['element'];

const OUTCOMES = ['succeeded', 'failed', 'conflict', 'unavailable', 'duplicate'] as const;

const toolCalls = (replay: AttemptReplay): ReplayToolCall[] =>
  replay.turns.flatMap((turn) => turn.entries).filter((entry) => entry.kind === 'tool_call');
const events = (replay: AttemptReplay): ReplayEvent[] =>
  replay.turns.flatMap((turn) => turn.entries).filter((entry) => entry.kind === 'event');

/** Every element under `node` (document order), and every text node's content. */
function walk(
  node: Node,
  elements: Element[] = [],
  texts: string[] = [],
): { elements: Element[]; texts: string[] } {
  if (node.nodeName === '#text') texts.push((node as DefaultTreeAdapterMap['textNode']).value);
  if ('tagName' in node) elements.push(node);
  if (node.nodeName === 'template')
    walk((node as DefaultTreeAdapterMap['template']).content, elements, texts);
  else if ('childNodes' in node) for (const child of node.childNodes) walk(child, elements, texts);
  return { elements, texts };
}
const attr = (element: Element, name: string): string | undefined =>
  element.attrs.find((attribute) => attribute.name === name)?.value;

/**
 * A synthetic bundle whose non-denied calls end with the given outcomes (envelope and index alike,
 * each with its own code) and whose progress events carry the given texts.
 */
function bundleWith(options: {
  toolCalls: number;
  deniedCalls: number;
  progressEvents: number;
  outcomes: readonly (typeof OUTCOMES)[number][];
  texts: readonly string[];
  failed: boolean;
}): Json {
  const bundle = syntheticAttempt({
    toolCalls: options.toolCalls,
    deniedCalls: options.deniedCalls,
    progressEvents: options.progressEvents,
    runTerminalState: options.failed ? 'failed' : 'succeeded',
  }) as Json & {
    events: Json[];
    semanticTools: { results: Json[] };
  };
  let text = 0;
  let outcome = 0;
  for (const event of bundle.events) {
    const payload = event.payload as Json;
    if (event.eventType === 'item.delta') payload.text = options.texts[text++ % options.texts.length] ?? '';
    const tool = payload.semantic_tool as Json | undefined;
    if (event.eventType !== 'mcp_app.tool_result' || tool === undefined || tool.outcome === 'denied')
      continue;
    const chosen = options.outcomes[outcome++ % options.outcomes.length] ?? 'succeeded';
    tool.outcome = chosen;
    tool.code = chosen === 'succeeded' ? 'completed' : `${chosen}_code`;
    const indexed = bundle.semanticTools.results.find((result) => result.callId === tool.callId);
    if (indexed !== undefined) indexed.outcome = chosen;
  }
  return bundle;
}

const bundles = fc
  .record({
    toolCalls: fc.integer({ min: 0, max: 6 }),
    deniedCalls: fc.integer({ min: 0, max: 6 }),
    progressEvents: fc.integer({ min: 0, max: 3 }),
    outcomes: fc.array(fc.constantFrom(...OUTCOMES), { minLength: 1, maxLength: 6 }),
    texts: fc.array(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 40 }), {
      minLength: 1,
      maxLength: 5,
    }),
    failed: fc.boolean(),
  })
  .map(bundleWith);

describe('buildAttemptReplay (property: any valid synthetic bundle)', () => {
  it('has every tool call exactly once, in the order of its input event, with its outcome, code and denial', () => {
    fc.assert(
      fc.property(bundles, (bundle) => {
        const replay = replayOfBundle(bundle);
        const tools = bundle.semanticTools as {
          calls: { callId: string; eventId: string }[];
          results: { callId: string; outcome: string }[];
          denials: { callId: string; code: string; authorizationBoundary: string }[];
        };
        const order = (bundle.events as { sourceEventId: string }[]).map((event) => event.sourceEventId);
        const expected = [...tools.calls]
          .sort((a, b) => order.indexOf(a.eventId) - order.indexOf(b.eventId))
          .map((call) => call.callId);
        const calls = toolCalls(replay);
        expect(calls.map((call) => call.callId)).toEqual(expected);
        expect(replay.toolCalls).toBe(expected.length);
        for (const call of calls) {
          const result = tools.results.find((entry) => entry.callId === call.callId);
          expect(call.outcome).toBe(result?.outcome ?? null);
          expect(call.mark).toBe(call.outcome === 'succeeded' ? null : call.outcome);
          if (call.outcome !== 'succeeded' && call.outcome !== 'denied')
            expect(call.code).toBe(`${call.outcome}_code`);
          const denial = tools.denials.find((entry) => entry.callId === call.callId);
          expect(call.denial).toEqual(
            denial === undefined
              ? null
              : { code: denial.code, authorizationBoundary: denial.authorizationBoundary, retryable: false },
          );
          expect(call.input).toMatchObject({ phase: 'input', callId: call.callId });
          expect(call.result?.envelope).toMatchObject({ phase: 'result', callId: call.callId });
        }
        expect(replay.markedToolCalls).toBe(calls.filter((call) => call.outcome !== 'succeeded').length);
      }),
    );
  });

  it('loses no text: every event text of the bundle is in the replay, in order, and the replay is plain JSON', () => {
    fc.assert(
      fc.property(bundles, (bundle) => {
        const replay = replayOfBundle(bundle);
        const texts = (bundle.events as { eventType: string; payload: Json }[])
          .filter((event) => !['run.terminal', 'run.result.proposed'].includes(event.eventType))
          .map((event) => event.payload.text)
          .filter((text) => typeof text === 'string');
        expect(events(replay).flatMap((event) => (event.text === null ? [] : [event.text]))).toEqual(texts);
        // the proposed result's summary is kept too
        expect(replay.proposedResult?.summary).toMatch(/^Synthetic attempt .* finished\.$/);
        expect(JSON.parse(JSON.stringify(replay))).toEqual(replay);
        expect(replay.recording).toBe('complete');
      }),
    );
  });

  it('renders each call once, in order, as an expandable <details>, and every text as itself', () => {
    fc.assert(
      fc.property(bundles, (bundle) => {
        const replay = replayOfBundle(bundle);
        const { elements, texts } = walk(parse(renderAttemptPage(replay, { title: 'replay' })));
        const shown = elements
          .filter((element) => element.tagName === 'details' && attr(element, 'data-call-id') !== undefined)
          .map((element) => attr(element, 'data-call-id'));
        expect(shown).toEqual(toolCalls(replay).map((call) => call.callId));
        const all = texts.join('\u0000');
        for (const event of events(replay)) if (event.text !== null) expect(all).toContain(event.text);
        for (const call of toolCalls(replay).filter((entry) => entry.denial !== null))
          expect(all).toContain(
            `denied: ${call.denial?.code ?? ''} at ${call.denial?.authorizationBoundary ?? ''}`,
          );
      }),
      { numRuns: 40 },
    );
  });
});

describe('the replay reads the environment', () => {
  it('shows the case prompt and description and the config model, driver and description', () => {
    const environment = parseEnvironment({
      schema: 'paperclip-evals/environment/v1',
      name: 'suite',
      cases: [
        {
          id: 'case_synthetic',
          sha256: sha256Digest('case:case_synthetic'),
          description: 'Fix the typo',
          prompt: 'Fix <the> typo in README.md',
        },
      ],
      configs: [
        {
          id: 'config_synthetic',
          sha256: sha256Digest('config:config_synthetic'),
          model: 'model-x',
          driver: 'driver-y',
          description: 'the baseline',
        },
      ],
    });
    const replay = replayOfBundle(syntheticAttempt(), { environment });
    expect(replay.case).toEqual({
      description: 'Fix the typo',
      prompt: 'Fix <the> typo in README.md',
      promptMissing: null,
    });
    expect(replay.config).toEqual({ model: 'model-x', driver: 'driver-y', description: 'the baseline' });
    const html = renderAttemptReplay(replay);
    expect(html).toContain('Fix &lt;the&gt; typo in README.md');
    expect(html).not.toContain('<the>');
  });

  it('without a prompt, says why: no environment, a case it does not list, a case without one', () => {
    const suite = (cases: unknown[]) =>
      parseEnvironment({
        schema: 'paperclip-evals/environment/v1',
        name: 'suite',
        cases,
        configs: [{ id: 'c', sha256: sha256Digest('config'), model: 'm', driver: 'd' }],
      });
    const rows: [string, ReturnType<typeof parseEnvironment> | undefined, string][] = [
      ['no environment', undefined, "the ledger does not record a case's prompt: with --env"],
      [
        'a case the environment does not list',
        suite([{ id: 'another', sha256: sha256Digest('another') }]),
        'the environment has no case "case_synthetic"',
      ],
      [
        'a case without a prompt',
        suite([{ id: 'case_synthetic', sha256: sha256Digest('case:case_synthetic'), description: 'd' }]),
        'the environment\'s case "case_synthetic" has no prompt',
      ],
    ];
    for (const [label, environment, why] of rows) {
      const replay = replayOfBundle(syntheticAttempt(), environment === undefined ? {} : { environment });
      expect(replay.case.prompt, label).toBeNull();
      expect(replay.case.promptMissing, label).toContain(why);
      const page = renderAttemptReplay(replay);
      expect(page, label).toContain('data-field="prompt-missing"');
      expect(page, label).not.toContain('data-field="prompt"');
    }
  });

  it("a case given by the caller (a campaign record's) wins over the environment's", () => {
    const environment = parseEnvironment({
      schema: 'paperclip-evals/environment/v1',
      name: 'suite',
      cases: [{ id: 'case_synthetic', sha256: sha256Digest('case:case_synthetic'), prompt: 'from the env' }],
      configs: [{ id: 'c', sha256: sha256Digest('config'), model: 'm', driver: 'd' }],
    });
    const record = convertBundle(parseNativeExecution(JSON.stringify(syntheticAttempt())), { environment });
    const { stored, bundleText } = storedFromRecord(record);
    const replay = buildAttemptReplay({
      attempt: stored,
      bundleText,
      verdict: attemptVerdict(stored.record, stored.scores),
      environment,
      case: { description: 'recorded', prompt: 'from the record', promptMissing: null },
    });
    expect(replay.case).toEqual({ description: 'recorded', prompt: 'from the record', promptMissing: null });
    expect(renderAttemptReplay(replay)).toContain('from the record');
  });

  it('says when the attempt is not of the environment’s suite (foreign), and which digest differs', () => {
    const environment = parseEnvironment({
      schema: 'paperclip-evals/environment/v1',
      name: 'suite',
      cases: [{ id: 'case_synthetic', sha256: sha256Digest('another case') }],
      configs: [
        { id: 'config_synthetic', sha256: sha256Digest('config:config_synthetic'), model: 'm', driver: 'd' },
      ],
    });
    const replay = replayOfBundle(syntheticAttempt(), { environment });
    expect(replay.environmentMismatch).toEqual([
      {
        field: 'caseSha256',
        expected: sha256Digest('another case'),
        received: sha256Digest('case:case_synthetic'),
      },
    ]);
    expect(renderAttemptReplay(replay)).toContain(
      'foreign (counted only with --include-foreign): caseSha256',
    );
  });

  // Each row: what the header says of the attempt's suite, never "matches (or none given)".
  const suite = (caseSha: string) =>
    parseEnvironment({
      schema: 'paperclip-evals/environment/v1',
      name: 'suite',
      cases: [{ id: 'case_synthetic', sha256: caseSha }],
      configs: [
        { id: 'config_synthetic', sha256: sha256Digest('config:config_synthetic'), model: 'm', driver: 'd' },
      ],
    });
  const { stored, bundleText } = storedFromRecord(
    convertBundle(parseNativeExecution(JSON.stringify(syntheticAttempt()))),
  );
  const atReplay = (environment?: ReturnType<typeof suite>): AttemptReplay =>
    buildAttemptReplay({
      attempt: stored,
      bundleText,
      verdict: attemptVerdict(stored.record, stored.scores),
      ...(environment === undefined ? {} : { environment }),
    });
  it.each([
    ['no environment anywhere', atReplay(), false, 'not checked: no environment file was given here'],
    [
      "an environment given to the replay, whose suite has the attempt's digests",
      atReplay(suite(sha256Digest('case:case_synthetic'))),
      true,
      "of the environment's suite: its case and config digests match",
    ],
    [
      'an environment given to the replay only (ingest had none), another case digest',
      atReplay(suite(sha256Digest('another case'))),
      true,
      'foreign (counted only with --include-foreign): caseSha256',
    ],
  ] as const)('says which it is: %s', (_label, replay, checked, says) => {
    expect(replay.environmentChecked).toBe(checked);
    const html = renderAttemptReplay(replay);
    expect(html).toContain(says);
    expect(html).not.toContain('or none given');
  });
});

describe('when there is nothing to replay (mutation rows: each is "recording missing" with its reason)', () => {
  /** The replay of `bundle` as stored, or — given `bundleText` — as if the ledger held that text for it. */
  const fromBundle = (bundle: Json, bundleText?: string | null): AttemptReplay => {
    if (bundleText === undefined) return replayOfBundle(bundle);
    const { stored: attempt } = storedFromRecord(convertBundle(parseNativeExecution(JSON.stringify(bundle))));
    return buildAttemptReplay({
      attempt,
      bundleText,
      verdict: attemptVerdict(attempt.record, attempt.scores),
    });
  };

  it.each([
    [
      'the ledger holds no text for the bundle',
      () => fromBundle(syntheticAttempt(), null),
      /the ledger holds no bundle text for sha256:/,
    ],
    [
      "the ledger's text does not parse as a bundle",
      () => fromBundle(syntheticAttempt(), '{"schema": "something else"}'),
      /does not parse \(native_schema_unknown\)/,
    ],
    [
      "the ledger's text is not the attempt's bundle (its sha256 is not the digest): the full parser reads it",
      () => fromBundle(syntheticAttempt(), '{"schema": "paperclip-runner/native-execution/v1"}'),
      /does not parse \(/,
    ],
    [
      'a bundle whose transcript was not recorded (no events but the terminal ones)',
      () => fromBundle(unrecorded()),
      /transcript not recorded: the driver crashed before streaming/,
    ],
    [
      'an eval-session artifact ingested without a bundle (a completed turn)',
      () => artifactReplay(upstreamSuccess('attempt_bare')),
      /eval-session artifact without its native-execution bundle/,
    ],
    [
      'an eval-session artifact ingested without a bundle (an infrastructure failure)',
      () => artifactReplay(upstreamFailure('attempt_infra', 'provider_turn_timeout', false)),
      /eval-session artifact without its native-execution bundle/,
    ],
  ])('%s', (_name, build, reason) => {
    const replay = build();
    expect(replay.recording).toBe('missing');
    expect(replay.recordingReason).toMatch(reason);
    expect(replay.turns).toEqual([]);
    const { elements, texts } = walk(parse(renderAttemptPage(replay, { title: 'replay' })));
    const block = elements.find(
      (element) => attr(element, 'data-recording') === 'missing' && element.tagName === 'div',
    );
    expect(block, 'a visible "recording missing" block').toBeDefined();
    expect(texts.join('')).toContain('Recording missing');
    expect(texts.join('')).toContain(replay.recordingReason ?? '');
  });

  it("reads the ledger's own text (its sha256 is the digest) as the full parser does (property)", () => {
    fc.assert(
      fc.property(
        fc.record({
          runTerminalState: fc.constantFrom('succeeded' as const, 'failed' as const),
          toolCalls: fc.integer({ min: 0, max: 6 }),
          deniedCalls: fc.integer({ min: 0, max: 2 }),
          progressEvents: fc.integer({ min: 0, max: 4 }),
        }),
        (options) => {
          const bundle = syntheticAttempt(options);
          const { stored: attempt, bundleText } = storedFromRecord(
            convertBundle(parseNativeExecution(JSON.stringify(bundle))),
          );
          const verdict = attemptVerdict(attempt.record, attempt.scores);
          expect(sha256Digest(bundleText)).toBe(attempt.bundleDigest);
          const cheap = buildAttemptReplay({ attempt, bundleText, verdict });
          // Another digest: the text is not known to be the ledger's, so the full parser reads it.
          const other = `sha256:${'0'.repeat(64)}`;
          const parsed = buildAttemptReplay({
            attempt: { ...attempt, bundleDigest: other },
            bundleText,
            verdict,
          });
          expect({ ...parsed, bundleDigest: attempt.bundleDigest }).toEqual(cheap);
          expect(cheap.recording).toBe('complete');
        },
      ),
      { numRuns: 25 },
    );
  });

  it('replays a bundle that came with its eval-session artifact, and shows the artifact’s fields too', () => {
    const artifact = upstreamSuccess('attempt_synthetic_0001');
    const text = JSON.stringify(artifact);
    const replay = replayOfBundle(syntheticAttempt(), {
      evalSession: {
        artifact: parseEvalSessionArtifact(text),
        artifactSha256: sha256Digest(text),
        artifactByteSize: text.length,
      },
    });
    expect(replay.recording).toBe('complete');
    expect(toolCalls(replay)).toHaveLength(2);
    expect(replay.evalSession).toMatchObject({ artifactSha256: sha256Digest(text), provider: 'codex' });
    expect(renderAttemptReplay(replay)).toContain('Eval-session artifact');
  });

  it('keeps an incomplete transcript’s events, and says what is missing', () => {
    const replay = replayOf({ transcriptOmission: 'stream closed before run.terminal' });
    expect(replay.recording).toBe('incomplete');
    expect(replay.recordingReason).toContain('stream closed before run.terminal');
    expect(toolCalls(replay)).toHaveLength(2);
    expect(renderAttemptReplay(replay)).toContain('Recording incomplete');
  });

  // A new user met "6 of the events recorded", "the last 8 of 14 events" and "10 entries" on one
  // page: every count now names what it counts, and they add up.
  it('names what each count of an incomplete recording counts, and the counts add up', () => {
    const replay = replayOf({ transcriptOmission: 'writer stopped at its cap', toolCalls: 2 });
    const bundle = syntheticAttempt({ transcriptOmission: 'writer stopped at its cap', toolCalls: 2 }) as {
      events: { eventType: string }[];
      transcript: { eventCount: number };
    };
    const inBundle = bundle.events.length;
    const terminal = bundle.events.filter((event) => event.eventType.startsWith('run.')).length;
    const entries = replay.turns.reduce((sum, turn) => sum + turn.entries.length, 0);
    // Each tool call is two events (call, result) shown as one entry; the terminal events apart.
    expect(entries + replay.toolCalls + terminal).toBe(inBundle);
    expect(replay.events).toEqual({ inBundle, terminal });
    const page = shownText(renderAttemptReplay(replay));
    expect(page).toContain(
      `the runner's transcript holds ${bundle.transcript.eventCount} of the run's events (writer stopped at its cap); below, the ${inBundle} events the bundle carries`,
    );
    expect(page).toContain(
      `Transcript (the bundle's ${inBundle} events as ${entries} entries: a tool call's call and result events are one entry, ${terminal} terminal events are under "Terminal state"; ${replay.toolCalls} tool calls,`,
    );
    expect(page).toContain(
      `INCOMPLETE: the runner's transcript holds ${bundle.transcript.eventCount} events`,
    );
    expect(page).not.toMatch(/of the events recorded/);
  });

  it('a page names its attempt once (its h1, with the status), and says which driver is which', () => {
    const replay = replayOf();
    const html = renderAttemptPage(replay, { title: `Attempt ${replay.key.attemptId}` });
    // The page's <title> and h1 name it; the fragment's own heading is left out (one less).
    expect(html.split(replay.key.attemptId).length - 1).toBe(
      renderAttemptReplay(replay).split(replay.key.attemptId).length - 1 + 2 - 1,
    );
    expect(html).toMatch(new RegExp(`<h1>Attempt ${replay.key.attemptId} <span class="chip `));
    expect(html).not.toMatch(/<h3>Attempt/);
    // The report's drill-down fragment keeps its own heading.
    expect(renderAttemptReplay(replay)).toMatch(/<h3>Attempt <code>/);
    const page = shownText(html);
    expect(page).toContain(`runner's harness driver ${replay.runner.driver}`);
    expect(page).toContain("config's driver");
    expect(page).not.toMatch(/ driver (?!\S)/);
  });

  it('shows an eval-session artifact’s own fields: turn status, failure class, category, retryable, model, provider, accounting', () => {
    const replay = artifactReplay(upstreamFailure('attempt_infra', 'provider_turn_timeout', true));
    expect(replay.evalSession).toMatchObject({
      provider: 'codex',
      infrastructureFailure: {
        class: 'provider_turn_timeout',
        category: 'provider_lifecycle',
        retryable: true,
      },
      turn: null,
      errorMessage: 'provider turn timeout',
    });
    expect(replay.evalSession?.accounting).not.toBeNull();
    const html = renderAttemptReplay(replay);
    expect(html).toContain('provider_turn_timeout (provider_lifecycle), retryable');
    const completed = artifactReplay(upstreamSuccess('attempt_bare'));
    expect(completed.evalSession?.turn?.status).toBe('completed');
    expect(renderAttemptReplay(completed)).toContain(completed.evalSession?.turn?.assistantText ?? '∅');
  });
});

describe('cost: unknown is never $0', () => {
  it('an unpriced attempt says unpriced, and no $0 appears', () => {
    const replay = replayOf({ costMicros: null });
    expect(replay.cost.effectiveNanodollars).toBeNull();
    const html = renderAttemptReplay(replay);
    expect(html).toContain('unpriced (not counted as 0)');
    expect(html).not.toMatch(/\$0\.00\b/);
  });
});

describe('the report’s drill-down carries the same replay', () => {
  it('one <template> per attempt with a replay, holding exactly renderAttemptReplay’s fragment; none past the limit', () => {
    const builder = new SummaryBuilder({});
    builder.add(storedAttempt('run1', 'case', 'config', 'attempt', 'solved'));
    const replay = replayOf({ attemptId: 'attempt_with_replay' });
    const html = renderHtml({
      title: 'report',
      storeUrl: 'sqlite:book.sqlite',
      summary: builder.build(),
      budgets: [],
      gate: null,
      attempts: [
        { attemptId: 'attempt_with_replay', replay },
        { attemptId: 'attempt_past_the_limit', replay: null },
      ],
    });
    const templates = [...html.matchAll(/<template data-attempt-index="(\d+)">([\s\S]*?)<\/template>/g)];
    expect(templates.map((match) => match[1])).toEqual(['0']);
    expect(templates[0]?.[2]).toBe(renderAttemptReplay(replay));
    expect(HTML_MAX_REPLAYS).toBeLessThan(HTML_MAX_ATTEMPTS);
    // the attempt page inlines the replay's part of the report's stylesheet (its first part) and
    // clip.js, not the report's script
    const page = renderAttemptPage(replay, { title: 'attempt' });
    const pageStyle = /<style>([\s\S]*?)<\/style>/.exec(page)?.[1] ?? '';
    expect(pageStyle).toContain('.replay-facts');
    expect(/<style>([\s\S]*?)<\/style>/.exec(html)?.[1]?.startsWith(pageStyle)).toBe(true);
    expect([...page.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1])).toEqual([
      reportPageAssets().clipScript,
    ]);
  });
});

describe('renderAttemptPage', () => {
  it('carries a CSP allowing no network, only its stylesheet and its clip script (by sha256); refuses a back link with a scheme', () => {
    const replay = replayOf();
    const html = renderAttemptPage(replay, { title: 't', backHref: '../index.html' });
    const csp = (
      /<meta http-equiv="Content-Security-Policy" content="([^"]*)">/.exec(html)?.[1] ?? ''
    ).replaceAll('&#39;', "'");
    const style = /<style>([\s\S]*?)<\/style>/.exec(html)?.[1] ?? '';
    const scripts = [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1] ?? '');
    expect(scripts).toHaveLength(1);
    const hash = (text: string): string => createHash('sha256').update(text).digest('base64');
    expect(csp).toBe(
      `default-src 'none'; style-src 'sha256-${hash(style)}'; script-src 'sha256-${hash(scripts[0]!)}'; img-src data:; base-uri 'none'; form-action 'none'`,
    );
    expect(html).not.toMatch(/\sstyle=|<script[^>]/i);
    expect(html).toContain('href="../index.html"');
    for (const href of ['javascript:alert(1)', ' JavaScript:x', 'https://example.com/'])
      expect(() => renderAttemptPage(replay, { title: 't', backHref: href })).toThrow(/relative link/);
    // The site's header links: relative, escaped, and one with a scheme refused the same way.
    const linked = renderAttemptPage(replay, {
      title: 't',
      links: [
        { href: '../../../index.html', label: 'All campaigns' },
        { href: '../index.html', label: 'Campaign <c1>' },
      ],
    });
    expect(linked).toContain(
      '<nav class="site-nav"><a href="../../../index.html">All campaigns</a> &middot; <a href="../index.html">Campaign &lt;c1&gt;</a></nav>',
    );
    expect(() =>
      renderAttemptPage(replay, { title: 't', links: [{ href: 'javascript:x', label: 'x' }] }),
    ).toThrow(/relative link/);
  });

  it('as bytes (its frame encoded once: the site’s form) is exactly the page’s UTF-8, for any bundle, title and back link (property)', () => {
    fc.assert(
      fc.property(
        bundles,
        // ASCII titles too: then an ASCII page's parts are copied as Latin-1, not encoded.
        fc.oneof(
          fc.string({ unit: 'binary', maxLength: 600 }),
          fc.string({ unit: 'binary-ascii', maxLength: 600 }),
        ),
        fc.option(fc.string({ unit: 'grapheme', maxLength: 20 }).map((name) => `../${name}.html`)),
        (bundle, title, backHref) => {
          const replay = replayOfBundle(bundle);
          const options = backHref === null ? { title } : { title, backHref };
          expect(
            renderAttemptPageBytes(replay, options).equals(Buffer.from(renderAttemptPage(replay, options))),
          ).toBe(true);
        },
      ),
      { numRuns: 60 },
    );
    expect(() => renderAttemptPageBytes(replayOf(), { title: 't', backHref: 'https://x/' })).toThrow(
      /relative link/,
    );
  });

  it('is ASCII for an ASCII attempt: its dashes and middle dots are character references (a one-byte string)', () => {
    const page = renderAttemptPage(replayOf(), {
      title: 'Attempt a1',
      links: [
        { href: '../../../index.html', label: 'All campaigns' },
        { href: '../index.html', label: 'Campaign c1' },
      ],
    });
    expect(Buffer.byteLength(page, 'utf8')).toBe(page.length);
    expect(page).toContain('&mdash;');
    expect(page).toContain(' &middot; ');
  });
});

/** A bundle whose runner recorded no transcript: only the proposed result and the terminal event. */
function unrecorded(): Json {
  const bundle = syntheticAttempt({ toolCalls: 0, progressEvents: 0 }) as Json & { events: Json[] };
  bundle.events = bundle.events.filter((event) =>
    ['run.result.proposed', 'run.terminal'].includes(String(event.eventType)),
  );
  bundle.transcript = {
    ...(bundle.transcript as Json),
    complete: false,
    eventCount: 0,
    omissionReason: 'the driver crashed before streaming',
  };
  return bundle;
}

/** The replay of an eval-session artifact ingested alone (convertArtifact, as ingest stores it). */
function artifactReplay(artifact: Json): AttemptReplay {
  const text = JSON.stringify(artifact);
  const record = convertArtifact({
    artifact: parseEvalSessionArtifact(text),
    artifactSha256: sha256Digest(canonicalize(artifact)),
    artifactByteSize: text.length,
  });
  const { stored: attempt, bundleText } = storedFromRecord(record);
  return buildAttemptReplay({ attempt, bundleText, verdict: attemptVerdict(attempt.record, attempt.scores) });
}

/** A fragment's text as a reader sees it: no tags, references decoded, spaces collapsed. */
function shownText(html: string): string {
  return html
    .replace(/<style>[\s\S]*?<\/style>|<script>[\s\S]*?<\/script>/g, '')
    .replace(/<[^>]+>/g, ' ')
    .replaceAll('&middot;', '·')
    .replaceAll('&mdash;', '—')
    .replaceAll('&quot;', '"')
    .replaceAll('&#39;', "'")
    .replaceAll('&amp;', '&')
    .replace(/\s+/g, ' ');
}
