// Property tests: the doors issue 14 §1 closed stay closed in both parsers. fast-check makes many
// variants of each (blank required text of any whitespace JS trim removes, a correlation field
// changed on either side of an indexed mcp_app.* event — and accepted on a semantic_tool.* one, as
// upstream's parser does —, calls or results sharing a callId, a result naming another operation or
// no call, tool events without their envelope, malformed and impossible timestamps); Evals' parser
// must refuse each with its rule code and JSON pointer, and the App's own parser must refuse it too,
// at the same place. Both accept the unmutated bundles and valid timestamps.
import './support/protocol.js';

import { readFileSync } from 'node:fs';

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { ContractError, parseNativeExecution as evalsParse } from '../../contract/src/index.ts';
import { UNINDEXED_TOOL_EVENT_TYPES, appendUnindexedToolEvent } from '@paperclip-evals/test-kit/mutations';
import { syntheticAttempt } from '@paperclip-evals/test-kit/synthetic';
import {
  paperclipNativeExecutionFixtureUrl,
  parsePaperclipNativeExecution as appParse,
} from '../src/evals/index.js';
import { PaperclipRunnerError } from '../src/errors.js';

import type { SyntheticAttemptOptions } from '@paperclip-evals/test-kit/synthetic';

/* eslint-disable @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-member-access --
   the properties poke at arbitrary places of a bundle. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>;

interface Found {
  readonly code: string;
  readonly path: string;
}

/** Evals' issues for a bundle ([] when it parses). */
function evalsIssues(bundle: Json): Found[] {
  try {
    evalsParse(JSON.stringify(bundle));
    return [];
  } catch (error) {
    if (!(error instanceof ContractError)) throw error;
    return error.issues.map(({ code, path = '' }) => ({ code, path }));
  }
}

/** The App parser's issues for a bundle ([] when it parses). */
function appIssues(bundle: Json): Found[] {
  try {
    appParse(structuredClone(bundle));
    return [];
  } catch (error) {
    if (!(error instanceof PaperclipRunnerError)) throw error;
    return error.issues.map(({ code, path = '' }) => ({ code, path }));
  }
}

const show = (issues: Found[]): string[] => issues.map(({ code, path }) => `${code} ${path}`);

/** Evals refuses with `code` at `path`; the App refuses at `path` (with `appCode`, when it names one). */
function expectBothRefuse(bundle: Json, code: string, path: string, appCode?: string): void {
  expect(show(evalsIssues(bundle))).toContain(`${code} ${path}`);
  const app = appIssues(bundle);
  if (appCode === undefined) expect(app.map((issue) => issue.path)).toContain(path);
  else expect(show(app)).toContain(`${appCode} ${path}`);
}

const BASE_OPTIONS: Record<string, SyntheticAttemptOptions> = {
  'three calls, one denied': { toolCalls: 3, deniedCalls: 1 },
  'two calls, both denied, failed run': { toolCalls: 2, deniedCalls: 2, runTerminalState: 'failed' },
  'four calls, incomplete transcript, no cost': {
    toolCalls: 4,
    deniedCalls: 1,
    costMicros: null,
    transcriptOmission: 'provider stream closed',
  },
};
const seededFixture = (): unknown => JSON.parse(readFileSync(paperclipNativeExecutionFixtureUrl, 'utf8'));
const bases = (): Json[] => [
  ...Object.values(BASE_OPTIONS).map((options) => syntheticAttempt(options)),
  structuredClone(seededFixture()) as Json,
];
const BASE_COUNT = bases().length;
const baseAt = (index: number): Json => bases()[index % BASE_COUNT] as Json;

/** Sets the value at a JSON pointer (no escaping needed: the pointers here use plain tokens). */
function setAt(bundle: Json, path: string, value: unknown): void {
  const tokens = path.split('/').slice(1);
  const last = tokens.pop() as string;
  let node: Json = bundle;
  for (const token of tokens) node = node[token] as Json;
  node[last] = value;
}

const toolEvents = (bundle: Json, eventType?: string): number[] =>
  (bundle.events as Json[]).flatMap((event, index) =>
    event.payload?.semantic_tool !== undefined && (eventType === undefined || event.eventType === eventType)
      ? [index]
      : [],
  );

/** Every character JavaScript's String.prototype.trim removes (all of them are in the BMP). */
const TRIMMED: readonly string[] = Array.from({ length: 0x10000 }, (_, code) =>
  String.fromCharCode(code),
).filter((char) => !/[\uD800-\uDFFF]/.test(char) && char.trim() === '');
const blank = fc.array(fc.constantFrom(...TRIMMED), { maxLength: 6 }).map((chars) => chars.join(''));
const stableId = fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9._:-]{0,15}$/);

/** The places upstream's parser reads as required text that a bundle holds (nullable parents only when set). */
function requiredTextPlaces(bundle: Json): string[] {
  const places = [
    '/identity/runId',
    '/identity/caseId',
    '/identity/configId',
    '/identity/attemptId',
    '/input/deterministicSeed',
    '/runner/package/name',
    '/runner/package/version',
    '/runner/binary/name',
    '/runner/driverKind',
    '/runner/driverVersion',
    '/transcript/uri',
    '/transcript/mediaType',
    '/artifactRoot/uri',
    '/artifactRoot/mediaType',
  ];
  (bundle.artifacts as Json[]).forEach((_, i) =>
    places.push(`/artifacts/${i}/uri`, `/artifacts/${i}/mediaType`),
  );
  if (bundle.usage.cost !== null) places.push('/usage/cost/currency');
  if (bundle.transcript.omissionReason !== null) places.push('/transcript/omissionReason');
  if (bundle.failure !== null) places.push('/failure/classification', '/failure/code', '/failure/message');
  const tools = bundle.semanticTools as Record<string, Json[]>;
  tools.definitions?.forEach((_, i) => places.push(`/semanticTools/definitions/${i}/operationId`));
  tools.calls?.forEach((_, i) =>
    places.push(...['callId', 'operationId', 'eventId'].map((f) => `/semanticTools/calls/${i}/${f}`)),
  );
  tools.results?.forEach((_, i) =>
    places.push(
      ...['callId', 'operationId', 'eventId', 'outcome'].map((f) => `/semanticTools/results/${i}/${f}`),
    ),
  );
  tools.denials?.forEach((_, i) =>
    places.push(
      ...['callId', 'code', 'authorizationBoundary'].map((f) => `/semanticTools/denials/${i}/${f}`),
    ),
  );
  return places;
}

const RUNS = { numRuns: 150, seed: 20261201 };

describe('both parsers accept', () => {
  it.each(bases().map((bundle, index) => [index, bundle] as const))('base bundle %i', (_index, bundle) => {
    expect(evalsIssues(bundle)).toEqual([]);
    expect(appIssues(bundle)).toEqual([]);
  });

  it('any synthetic attempt', () => {
    fc.assert(
      fc.property(
        fc.record({
          toolCalls: fc.integer({ min: 0, max: 5 }),
          deniedCalls: fc.integer({ min: 0, max: 5 }),
          progressEvents: fc.integer({ min: 0, max: 2 }),
          runTerminalState: fc.constantFrom('succeeded' as const, 'failed' as const, 'cancelled' as const),
          costMicros: fc.option(fc.integer({ min: 0, max: 10 ** 9 }), { nil: null }),
          startedAtMs: fc.integer({ min: Date.UTC(1970, 0, 1), max: Date.UTC(2100, 0, 1) }),
        }),
        (options) => {
          const bundle = syntheticAttempt(options);
          expect(evalsIssues(bundle)).toEqual([]);
          expect(appIssues(bundle)).toEqual([]);
        },
      ),
      { numRuns: 60, seed: 20261201 },
    );
  });
});

describe('both parsers refuse', () => {
  it("a call left unanswered by a completed turn of a succeeded run (upstream's later parser)", () => {
    const fixture = JSON.parse(
      readFileSync(
        new URL('../../../fixtures/attempts/invalid/call-unanswered-run-succeeded.json', import.meta.url),
        'utf8',
      ),
    ) as Json;
    expectBothRefuse(
      fixture,
      'semantic_call_unresolved',
      '/semanticTools/results',
      'semantic_call_unresolved',
    );
  });

  it('blank required text: any string JS trim empties, in any required-text field', () => {
    expect(TRIMMED).toEqual(
      expect.arrayContaining([' ', '\t', '\u00a0', '\u3000', '\ufeff', '\u2028', '\u2029']),
    );
    fc.assert(
      fc.property(fc.nat(), fc.nat(), blank, (baseIndex, placeIndex, text) => {
        const bundle = baseAt(baseIndex);
        const places = requiredTextPlaces(bundle);
        const path = places[placeIndex % places.length] as string;
        setAt(bundle, path, text);
        expectBothRefuse(bundle, 'text_required', path);
      }),
      RUNS,
    );
  });

  it('a semantic_tool correlation field that differs from its event, changed on either side', () => {
    fc.assert(
      fc.property(
        fc.nat(),
        fc.nat(),
        fc.constantFrom('runId', 'normalizedSessionId', 'turnId', 'itemId'),
        fc.constantFrom('envelope', 'event'),
        stableId,
        (baseIndex, eventIndex, field, side, value) => {
          const bundle = baseAt(baseIndex);
          const candidates = toolEvents(bundle);
          const index = candidates[eventIndex % candidates.length] as number;
          const event = bundle.events[index] as Json;
          fc.pre(event[field] !== value);
          if (side === 'envelope') event.payload.semantic_tool.correlation[field] = value;
          else event[field] = value;
          const path = `/events/${index}/payload/semantic_tool/correlation/${field}`;
          expectBothRefuse(bundle, 'semantic_correlation_mismatch', path, 'semantic_correlation_mismatch');
        },
      ),
      RUNS,
    );
  });

  it('a semantic_tool.* event whose correlation differs, on either side, is accepted by both (upstream reads none)', () => {
    fc.assert(
      fc.property(
        fc.nat(),
        fc.constantFrom(...UNINDEXED_TOOL_EVENT_TYPES),
        fc.constantFrom('normalizedSessionId', 'turnId', 'itemId', 'runId'),
        fc.constantFrom('envelope', 'event'),
        stableId,
        (baseIndex, eventType, field, side, value) => {
          const bundle = baseAt(baseIndex);
          const event = appendUnindexedToolEvent(bundle, eventType);
          // The event's own runId is held to the attempt's (event_run_mismatch), whatever it carries.
          fc.pre(!(side === 'event' && field === 'runId') && event[field] !== value);
          if (side === 'envelope') event.payload.semantic_tool.correlation[field] = value;
          else event[field] = value;
          expect(show(evalsIssues(bundle))).toEqual([]);
          expect(show(appIssues(bundle))).toEqual([]);
        },
      ),
      RUNS,
    );
  });

  it('any two calls, or any two results, sharing one callId', () => {
    fc.assert(
      fc.property(
        fc.nat(),
        fc.constantFrom('calls', 'results'),
        fc.nat(),
        fc.nat(),
        (baseIndex, list, first, second) => {
          const bundle = baseAt(baseIndex);
          const entries = bundle.semanticTools[list] as Json[];
          fc.pre(entries.length >= 2);
          const i = first % entries.length;
          const j = second % entries.length;
          fc.pre(i !== j);
          const [earlier, later] = i < j ? [i, j] : [j, i];
          (entries[later] as Json).callId = (entries[earlier] as Json).callId;
          const path = `/semanticTools/${list}/${later}/callId`;
          expectBothRefuse(bundle, 'semantic_call_id_duplicate', path, 'semantic_call_id_duplicate');
        },
      ),
      RUNS,
    );
  });

  it('a result naming another operation than its call, or a call the index does not hold (its envelope agreeing)', () => {
    fc.assert(
      fc.property(
        fc.nat(),
        fc.nat(),
        fc.constantFrom('operationId', 'callId'),
        stableId,
        (baseIndex, resultIndex, field, value) => {
          const bundle = baseAt(baseIndex);
          const results = bundle.semanticTools.results as Json[];
          fc.pre(results.length > 0);
          const position = resultIndex % results.length;
          const result = results[position] as Json;
          const calls = bundle.semanticTools.calls as Json[];
          fc.pre(!calls.some((call) => call[field] === value));
          const event = (bundle.events as Json[]).find(
            (candidate) => candidate.sourceEventId === result.eventId,
          );
          result[field] = value;
          (event as Json).payload.semantic_tool[field] = value;
          for (const denial of bundle.semanticTools.denials as Json[]) {
            if (field === 'callId' && denial.callId === calls[position]?.callId) denial.callId = value;
          }
          const path = `/semanticTools/results/${position}/${field}`;
          expectBothRefuse(bundle, 'semantic_result_call_mismatch', path, 'semantic_result_call_mismatch');
        },
      ),
      RUNS,
    );
  });

  it('a tool event without its semantic_tool envelope (its index entry and denial gone too, or not)', () => {
    fc.assert(
      fc.property(fc.nat(), fc.nat(), fc.boolean(), (baseIndex, eventIndex, unindex) => {
        const bundle = baseAt(baseIndex);
        const candidates = toolEvents(bundle);
        const index = candidates[eventIndex % candidates.length] as number;
        const event = bundle.events[index] as Json;
        const { callId } = event.payload.semantic_tool as Json;
        delete event.payload.semantic_tool;
        if (unindex) {
          for (const list of ['calls', 'results'] as const) {
            bundle.semanticTools[list] = (bundle.semanticTools[list] as Json[]).filter(
              (entry) => entry.eventId !== event.sourceEventId,
            );
          }
          if (event.eventType === 'mcp_app.tool_result') {
            bundle.semanticTools.denials = (bundle.semanticTools.denials as Json[]).filter(
              (denial) => denial.callId !== callId,
            );
          }
          expectBothRefuse(
            bundle,
            'semantic_envelope_unindexed',
            `/events/${index}`,
            'semantic_envelope_unindexed',
          );
        }
        const path = `/events/${index}/payload/semantic_tool`;
        expectBothRefuse(bundle, 'semantic_envelope_missing', path, 'semantic_envelope_missing');
      }),
      RUNS,
    );
  });

  it('any other event turned into a semantic_tool.* event with no envelope', () => {
    fc.assert(
      fc.property(
        fc.nat(),
        fc.nat(),
        fc.constantFrom('semantic_tool.input', 'semantic_tool.result', 'semantic_tool.reconciled'),
        (baseIndex, eventIndex, eventType) => {
          const bundle = baseAt(baseIndex);
          const candidates = (bundle.events as Json[]).flatMap((event, index) =>
            ['item.delta', 'turn.started'].includes(event.eventType as string) ? [index] : [],
          );
          fc.pre(candidates.length > 0);
          const index = candidates[eventIndex % candidates.length] as number;
          (bundle.events[index] as Json).eventType = eventType;
          const path = `/events/${index}/payload/semantic_tool`;
          expectBothRefuse(bundle, 'semantic_envelope_missing', path, 'semantic_envelope_missing');
        },
      ),
      RUNS,
    );
  });
});

describe('timestamps', () => {
  const instant = fc.date({
    min: new Date(Date.UTC(1970, 0, 1)),
    max: new Date(Date.UTC(2100, 0, 1)),
    noInvalidDate: true,
  });
  const place = fc.tuple(fc.nat(), fc.constantFrom('emittedAt', 'observedAt'));
  const at = (bundle: Json, eventIndex: number, field: string): string =>
    `/events/${eventIndex % (bundle.events as Json[]).length}/${field}`;

  /** Valid RFC 3339 variants of an instant that upstream's date-time format refuses. */
  const malformed = fc.tuple(instant, fc.integer({ min: 0, max: 9 }), fc.nat()).map(([date, variant, n]) => {
    const iso = date.toISOString(); // 2026-11-30T12:00:00.000Z
    const [day, time] = [iso.slice(0, 10), iso.slice(11, 19)];
    const digits = String(n % 1_000_000_000).padStart(9, '0');
    const hours = String(1 + (n % 14)).padStart(2, '0');
    return [
      `${day}T${time}+${hours}:00`, // an offset
      `${day}T${time}-${hours}:30`,
      `${day}T${time}.000+00:00`,
      `${day}t${time}.000Z`, // lower-case t
      `${day}T${time}.000z`, // lower-case z
      `${day} ${time}.000Z`, // a space separator
      `${day}T${time}.${digits.slice(0, 1 + (n % 2))}Z`, // one or two fraction digits
      `${day}T${time}.${digits.slice(0, 4 + (n % 6))}Z`, // four to nine
      `${day}T${time}`, // no zone
      `${day}T${time}.000`,
    ][variant] as string;
  });

  /** Upstream's shape, naming no real instant. */
  const impossible = fc
    .tuple(fc.integer({ min: 1970, max: 2100 }), fc.integer({ min: 0, max: 8 }), fc.boolean())
    .map(([year, variant, fraction]) => {
      const nonLeap = year % 4 === 0 ? year + 1 : year;
      const text = [
        `${year}-13-01T00:00:00`,
        `${year}-00-10T00:00:00`,
        `${year}-01-32T00:00:00`,
        `${year}-04-31T00:00:00`,
        `${year}-02-30T00:00:00`,
        `${nonLeap}-02-29T00:00:00`,
        `${year}-06-15T24:00:00`,
        `${year}-06-15T12:60:00`,
        `${year}-06-15T12:30:60`,
      ][variant] as string;
      return `${text}${fraction ? '.000' : ''}Z`;
    });

  it('refuses an RFC 3339 timestamp outside upstream format, anywhere', () => {
    fc.assert(
      fc.property(fc.nat(), place, malformed, (baseIndex, [eventIndex, field], text) => {
        const bundle = baseAt(baseIndex);
        const path = at(bundle, eventIndex, field);
        setAt(bundle, path, text);
        expectBothRefuse(bundle, 'timestamp_invalid', path);
      }),
      RUNS,
    );
  });

  it('refuses a timestamp of that form that names no real instant', () => {
    fc.assert(
      fc.property(fc.nat(), place, impossible, (baseIndex, [eventIndex, field], text) => {
        const bundle = baseAt(baseIndex);
        const path = at(bundle, eventIndex, field);
        setAt(bundle, path, text);
        expectBothRefuse(bundle, 'timestamp_impossible', path);
      }),
      RUNS,
    );
  });

  it('accepts any real instant in upstream form, with three fraction digits or none, and a leap second', () => {
    const valid = fc.oneof(
      instant.map((date) => date.toISOString()),
      instant.map((date) => date.toISOString().replace(/\.\d{3}Z$/, 'Z')),
      fc.constant('2016-12-31T23:59:60Z'),
      fc.constant('2024-02-29T00:00:00.000Z'),
    );
    fc.assert(
      fc.property(fc.nat(), place, valid, (baseIndex, [eventIndex, field], text) => {
        const bundle = baseAt(baseIndex);
        setAt(bundle, at(bundle, eventIndex, field), text);
        expect(evalsIssues(bundle)).toEqual([]);
        expect(appIssues(bundle)).toEqual([]);
      }),
      RUNS,
    );
  });
});
