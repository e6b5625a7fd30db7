// Differential table: our native-execution/v1 parser against upstream's parser
// (`parsePaperclipNativeExecution`, paperclipai/paperclip packages/paperclip-runner/src/evals/native-execution.ts,
// with `validatePrpEvent` of src/protocol/replay-contract.ts for each event). Each row states upstream's
// verdict as its code gives it (first failure wins; its path, e.g. `bundle.semanticTools.results`) and
// ours. Where upstream refuses, ours must refuse at the same place (or inside or around it); where
// upstream accepts and ours refuses, the row names why: an `evals` rule (docs/native-execution.md), or
// upstream's own published schema, which the test checks refuses the same document.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { MUTATION_BASE_OPTIONS } from '@paperclip-evals/test-kit/mutations';
import { syntheticAttempt } from '@paperclip-evals/test-kit/synthetic';
import { UPSTREAM_FIXTURES_DIR, loadUpstreamAjv, needsUpstream } from '@paperclip-evals/test-kit/upstream';
import { ContractError } from '../src/errors.ts';
import { nativeExecutionIssues, parseNativeExecution } from '../src/native-execution.ts';
import { NATIVE_EXECUTION_RULES } from '../src/native-execution-rules.ts';

import type { NativeExecutionRuleCode } from '../src/native-execution-rules.ts';

/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-return --
   each row pokes at one arbitrary place of a bundle. */
type Json = Record<string, any>;

const HAVE_UPSTREAM = needsUpstream(
  import.meta.url,
  "the rows on upstream's seeded fixture and the checks against upstream's published schema",
);

const seeded = (): Json =>
  JSON.parse(readFileSync(join(UPSTREAM_FIXTURES_DIR, 'evals/native-execution-seeded.json'), 'utf8')) as Json;
const synthetic = (): Json => syntheticAttempt(MUTATION_BASE_OPTIONS);

const events = (bundle: Json): Json[] => bundle.events as Json[];
const ofType = (bundle: Json, eventType: string, nth = 0): Json => {
  const found = events(bundle).filter((event) => event.eventType === eventType)[nth];
  if (found === undefined) throw new Error(`the bundle has no ${eventType} #${nth}`);
  return found;
};

/** Drops the result of `callId` (its index entry, its event, any denial of it); a complete transcript recounts. */
function dropResult(bundle: Json, callId: string): void {
  const tools = bundle.semanticTools as Json;
  const result = (tools.results as Json[]).find((entry) => entry.callId === callId);
  if (result === undefined) throw new Error(`no result for ${callId}`);
  tools.results = (tools.results as Json[]).filter((entry) => entry !== result);
  tools.denials = (tools.denials as Json[]).filter((entry) => entry.callId !== callId);
  bundle.events = events(bundle).filter((event) => event.sourceEventId !== result.eventId);
  if (bundle.transcript.complete === true) bundle.transcript.eventCount = events(bundle).length;
}

/** Sets the terminal states in both the bundle's terminal and its run.terminal event. */
function setTerminal(bundle: Json, turnTerminalState: string, runTerminalState: string): void {
  for (const terminal of [bundle.terminal as Json, ofType(bundle, 'run.terminal').payload as Json]) {
    terminal.turnTerminalState = turnTerminalState;
    terminal.runTerminalState = runTerminalState;
  }
}

const lastCallId = (bundle: Json): string => (bundle.semanticTools.calls as Json[]).at(-1)?.callId as string;

type Upstream = 'accepts' | { readonly refusesAt: string; readonly message: RegExp };
type Ours = 'accepts' | { readonly code: NativeExecutionRuleCode; readonly path: string };
type Stricter = { readonly by: 'evals rule' } | { readonly by: "upstream's schema"; readonly note: string };

interface Row {
  readonly name: string;
  readonly base?: () => Json;
  readonly mutate?: (bundle: Json) => void;
  readonly text?: (text: string) => string;
  readonly upstream: Upstream;
  readonly ours: Ours;
  readonly stricter?: Stricter;
}

const ROWS: readonly Row[] = [
  // Accepted by both.
  { name: 'the synthetic base', upstream: 'accepts', ours: 'accepts' },
  { name: "upstream's seeded fixture", base: seeded, upstream: 'accepts', ours: 'accepts' },
  {
    name: 'an unanswered call when the turn was interrupted',
    mutate: (b) => {
      dropResult(b, lastCallId(b));
      setTerminal(b, 'interrupted', 'failed');
    },
    upstream: 'accepts',
    ours: 'accepts',
  },
  {
    name: 'an unanswered call when the turn was cancelled',
    mutate: (b) => {
      dropResult(b, lastCallId(b));
      setTerminal(b, 'cancelled', 'cancelled');
    },
    upstream: 'accepts',
    ours: 'accepts',
  },
  {
    name: 'an unanswered call when the run was cancelled after a completed turn',
    mutate: (b) => {
      dropResult(b, lastCallId(b));
      setTerminal(b, 'completed', 'cancelled');
    },
    upstream: 'accepts',
    ours: 'accepts',
  },
  {
    name: 'a semantic definition with members beyond operationId',
    mutate: (b) => (b.semanticTools.definitions = [{ operationId: 'op_any', x_future: { kept: true } }]),
    upstream: 'accepts',
    ours: 'accepts',
  },
  {
    name: 'an unknown field on an event and on its envelope',
    mutate: (b) => {
      const input = ofType(b, 'mcp_app.tool_input');
      input.x_future = 1;
      input.payload.semantic_tool.x_future = 2;
    },
    upstream: 'accepts',
    ours: 'accepts',
  },
  {
    name: 'integers written 1.0, 1e1 and -0 (JSON.parse reads 1, 10 and -0: safe integers ≥ 0)',
    text: (t) =>
      t
        .replace('"requestCount":', '"requestCount":1.0,"x_was_requestCount":')
        .replace('"byteSize":', '"byteSize":-0,"x_was_byteSize":')
        .replace('"durationMs":', '"durationMs":1e1,"x_was_durationMs":'),
    upstream: 'accepts',
    ours: 'accepts',
  },
  {
    name: 'a "__proto__" member kept as data',
    text: (t) => t.replace('"observations":{', '"observations":{"__proto__":{"polluted":true},'),
    upstream: 'accepts',
    ours: 'accepts',
  },

  // Refused by both.
  {
    name: 'an unanswered call when the turn completed and the run succeeded',
    mutate: (b) => {
      dropResult(b, lastCallId(b));
    },
    upstream: {
      refusesAt: 'bundle.semanticTools.results',
      message: /a non-interrupted terminal state requires exactly one result for every semantic call/,
    },
    ours: { code: 'semantic_call_unresolved', path: '/semanticTools/results' },
  },
  {
    name: 'an unanswered call when the turn failed',
    mutate: (b) => {
      dropResult(b, lastCallId(b));
      setTerminal(b, 'failed', 'failed');
    },
    upstream: {
      refusesAt: 'bundle.semanticTools.results',
      message: /a non-interrupted terminal state requires exactly one result for every semantic call/,
    },
    ours: { code: 'semantic_call_unresolved', path: '/semanticTools/results' },
  },
  {
    name: 'every call of the seeded fixture unanswered, turn completed',
    base: seeded,
    mutate: (b) => {
      dropResult(b, lastCallId(b));
    },
    upstream: {
      refusesAt: 'bundle.semanticTools.results',
      message: /requires exactly one result for every semantic call/,
    },
    ours: { code: 'semantic_call_unresolved', path: '/semanticTools/results' },
  },
  {
    name: 'a tool_input envelope in the result phase',
    mutate: (b) => (ofType(b, 'mcp_app.tool_input').payload.semantic_tool.phase = 'result'),
    // validatePrpEvent refuses it first (the envelope schema ties each phase to its members).
    upstream: { refusesAt: 'bundle.events[2]/payload/semantic_tool', message: /./ },
    ours: { code: 'schema_violation', path: '/events/2/payload/semantic_tool/phase' },
  },
  {
    name: 'a first sourceSeq of 0',
    mutate: (b) => (events(b)[0]!.sourceSeq = 0),
    upstream: { refusesAt: 'bundle.events[0]/sourceSeq', message: /./ },
    ours: { code: 'schema_violation', path: '/events/0/sourceSeq' },
  },
  {
    name: 'an event schemaVersion of 3',
    mutate: (b) => (events(b)[0]!.schemaVersion = 3),
    upstream: {
      refusesAt: 'bundle.events[0]/schemaVersion',
      message: /unsupported; this implementation supports 1-2/,
    },
    ours: { code: 'schema_violation', path: '/events/0/schemaVersion' },
  },
  {
    name: 'a prpVersion of 0',
    mutate: (b) => (b.runner.prpVersion = 0),
    upstream: { refusesAt: 'bundle.runner.prpVersion', message: /must be an integer >= 1/ },
    ours: { code: 'schema_violation', path: '/runner/prpVersion' },
  },
  {
    name: 'a transcript without omissionReason (null is not the same as missing)',
    mutate: (b) => delete b.transcript.omissionReason,
    upstream: { refusesAt: 'bundle.transcript.omissionReason', message: /must be a non-empty string/ },
    ours: { code: 'text_required', path: '/transcript/omissionReason' },
  },
  {
    name: 'usage without cost',
    mutate: (b) => delete b.usage.cost,
    upstream: { refusesAt: 'bundle.usage.cost', message: /must be an object/ },
    ours: { code: 'schema_violation', path: '/usage/cost' },
  },
  {
    name: 'a bundle without failure',
    mutate: (b) => delete b.failure,
    upstream: { refusesAt: 'bundle.failure', message: /must be an object/ },
    ours: { code: 'schema_violation', path: '/failure' },
  },
  {
    name: 'a result outcome outside the six',
    mutate: (b) => (b.semanticTools.results[1].outcome = 'maybe'),
    upstream: { refusesAt: 'bundle.semanticTools.results[1].outcome', message: /is unsupported/ },
    ours: { code: 'semantic_index_mismatch', path: '/semanticTools/results/1/outcome' },
  },
  {
    name: 'a denial whose retryable is the text "true"',
    mutate: (b) => (b.semanticTools.denials[0].retryable = 'true'),
    upstream: { refusesAt: 'bundle.semanticTools.denials[0].retryable', message: /must be a boolean/ },
    ours: { code: 'denial_mismatch', path: '/semanticTools/denials/0/retryable' },
  },
  {
    name: 'two denial receipts for one call',
    mutate: (b) => b.semanticTools.denials.push(structuredClone(b.semanticTools.denials[0])),
    upstream: { refusesAt: 'bundle.semanticTools.denials', message: /has duplicate denial receipts/ },
    ours: { code: 'denial_orphaned', path: '/semanticTools/denials/1' },
  },
  {
    name: 'a denial naming another code than its denied result',
    mutate: (b) => (b.semanticTools.denials[0].code = 'other_code'),
    upstream: {
      refusesAt: 'bundle.semanticTools.denials',
      message: /does not match its semantic result receipt/,
    },
    ours: { code: 'denial_orphaned', path: '/semanticTools/denials/0' },
  },
  {
    name: 'a terminal of another schema',
    mutate: (b) => (b.terminal.schema = 'paperclip.prp.terminal.v2'),
    upstream: { refusesAt: 'bundle.terminal.schema', message: /must be paperclip\.prp\.terminal\.v1/ },
    ours: { code: 'terminal_mismatch', path: '/terminal/schema' },
  },
  {
    name: 'a required text of only U+FEFF and U+3000 (trim removes both)',
    mutate: (b) => (b.identity.caseId = '\uFEFF\u3000'),
    upstream: { refusesAt: 'bundle.identity.caseId', message: /must be a non-empty string/ },
    ours: { code: 'text_required', path: '/identity/caseId' },
  },

  // Refused by ours only.
  {
    name: 'a valid PRP v2 event (upstream dispatches on schemaVersion)',
    mutate: (b) => {
      const delta = ofType(b, 'item.delta');
      delta.schema = 'paperclip.prp.event.v2';
      delta.schemaVersion = 2;
    },
    upstream: 'accepts',
    ours: { code: 'schema_violation', path: '/events/1/schema' },
    stricter: {
      by: "upstream's schema",
      note: 'native-execution.schema.json holds events to the PRP v1 event schema only',
    },
  },
  {
    name: 'a float beyond 2^53 in observations',
    text: (t) => t.replace('"observations":{', '"observations":{"big":1e300,'),
    upstream: 'accepts',
    ours: { code: 'json_number_unsafe', path: '/observations/big' },
    stricter: { by: 'evals rule' },
  },
  {
    name: 'a key twice in observations',
    text: (t) => t.replace('"observations":{', '"observations":{"twice":1,"twice":2,'),
    upstream: 'accepts',
    ours: { code: 'json_duplicate_key', path: '/observations/twice' },
    stricter: { by: 'evals rule' },
  },
  {
    name: 'an impossible emittedAt (February 30)',
    mutate: (b) => (events(b)[0]!.emittedAt = '2026-02-30T12:00:00.000Z'),
    upstream: 'accepts',
    ours: { code: 'timestamp_impossible', path: '/events/0/emittedAt' },
    stricter: { by: 'evals rule' },
  },
  {
    name: 'a complete transcript that gives an omission reason',
    mutate: (b) => (b.transcript.omissionReason = 'nothing, really'),
    upstream: 'accepts',
    ours: { code: 'transcript_ambiguous', path: '/transcript/omissionReason' },
    stricter: { by: 'evals rule' },
  },
  {
    name: 'a semantic_tool.input event without an envelope',
    mutate: (b) => {
      const copy = structuredClone(ofType(b, 'item.delta'));
      copy.eventType = 'semantic_tool.input';
      copy.sourceEventId = `${String(copy.sourceEventId)}_copy`;
      copy.sourceSeq = Math.max(...events(b).map((event) => Number(event.sourceSeq))) + 1;
      copy.payload = {};
      events(b).push(copy);
      b.transcript.eventCount = events(b).length;
    },
    upstream: 'accepts',
    ours: { code: 'semantic_envelope_missing', path: `/events/${2 * 2 + 1 + 4}/payload/semantic_tool` },
    stricter: { by: 'evals rule' },
  },
];

/** The document a row makes: its base (synthetic by default), mutated as a value or as compact JSON text. */
function documentOf(row: Row): string {
  const bundle = (row.base ?? synthetic)();
  row.mutate?.(bundle);
  const text = JSON.stringify(bundle);
  return row.text === undefined ? text : row.text(text);
}

/** Our issues for a row's document, as `code path` ([] when it parsed). */
function ourIssues(text: string): string[] {
  try {
    parseNativeExecution(text);
    return [];
  } catch (error) {
    if (!(error instanceof ContractError)) throw error;
    expect(error.code).toBe('paperclip_native_execution_invalid');
    return error.issues.map((issue) => `${issue.code} ${issue.path ?? ''}`);
  }
}

/** Upstream's path (`bundle.events[2]/payload/semantic_tool`) as an RFC 6901 pointer. */
function upstreamPathToPointer(path: string): string {
  const pointer = path
    .replace(/^bundle/, '')
    .replace(/\[(\d+)\]/g, '/$1')
    .replace(/\.([A-Za-z_$][\w$]*)/g, '/$1');
  return pointer.endsWith('/') ? pointer.slice(0, -1) : pointer;
}

/** Whether two pointers name the same place, or one holds the other. */
const related = (left: string, right: string): boolean =>
  left === right || left.startsWith(`${right}/`) || right.startsWith(`${left}/`);

const needsUpstreamData = (row: Row): boolean =>
  row.base === seeded || row.stricter?.by === "upstream's schema";

describe('native-execution/v1: our parser against upstream parser verdicts', () => {
  it('converts upstream paths to pointers', () => {
    expect(upstreamPathToPointer('bundle.semanticTools.results[1].outcome')).toBe(
      '/semanticTools/results/1/outcome',
    );
    expect(upstreamPathToPointer('bundle.events[2]/payload/semantic_tool')).toBe(
      '/events/2/payload/semantic_tool',
    );
    expect(upstreamPathToPointer('bundle.events[0]/')).toBe('/events/0');
    expect(upstreamPathToPointer('bundle')).toBe('');
  });

  it.each(ROWS.map((row) => [row.name, row] as const))('%s', (_name, row) => {
    if (needsUpstreamData(row) && !HAVE_UPSTREAM) return;
    const issues = ourIssues(documentOf(row));
    if (row.ours === 'accepts') expect(issues).toEqual([]);
    else expect(issues).toContain(`${row.ours.code} ${row.ours.path}`);

    if (row.upstream !== 'accepts') {
      // Upstream refuses: so must we, at the same place.
      const at = upstreamPathToPointer(row.upstream.refusesAt);
      expect(row.ours, 'upstream refuses it').not.toBe('accepts');
      expect(
        issues.some((issue) => related(issue.slice(issue.indexOf(' ') + 1), at)),
        `one of ${JSON.stringify(issues)} at or around ${at}`,
      ).toBe(true);
      expect(row.stricter).toBeUndefined();
    } else if (row.ours !== 'accepts') {
      // Upstream's parser accepts what we refuse: a documented choice, never a silent one.
      expect(row.stricter, 'a stricter verdict needs its reason').toBeDefined();
      if (row.stricter?.by === 'evals rule')
        expect(NATIVE_EXECUTION_RULES[row.ours.code].origin).toBe('evals');
      if (row.stricter?.by === "upstream's schema") {
        const validate = loadUpstreamAjv().getSchema(
          'https://paperclip.dev/schemas/runner/native-execution/v1.json',
        );
        expect(validate?.(JSON.parse(documentOf(row)))).toBe(false);
      }
    } else expect(row.stricter).toBeUndefined();
  });

  it.skipIf(!HAVE_UPSTREAM)("holds the PRP v2 row's event valid under upstream's own v2 event schema", () => {
    const row = ROWS.find((entry) => entry.name.startsWith('a valid PRP v2 event'));
    const bundle = JSON.parse(documentOf(row!)) as Json;
    const v2 = events(bundle).find((event) => event.schemaVersion === 2);
    const validate = loadUpstreamAjv().getSchema('https://paperclip.dev/schemas/prp/v2/event.schema.json');
    expect(validate?.(v2), JSON.stringify(validate?.errors)).toBe(true);
  });

  // A value handed to the API (nativeExecutionIssues, as qualification does with a package's output)
  // is judged as its text would be: upstream's integer() is Number.isSafeInteger, so 2^53 is refused
  // at every integer place; any other number beyond ±(2^53 − 1), or not finite, is json_number_unsafe.
  it.each([
    [
      'usage.inputTokens',
      '/usage/inputTokens',
      (b: Json) => {
        b.usage.inputTokens = 2 ** 53;
        b.usage.totalTokens = 2 ** 53 + Number(b.usage.outputTokens);
      },
    ],
    [
      'usage.cost.amountMicros',
      '/usage/cost/amountMicros',
      (b: Json) => (b.usage.cost.amountMicros = 2 ** 53),
    ],
    ['artifactRoot.byteSize', '/artifactRoot/byteSize', (b: Json) => (b.artifactRoot.byteSize = 2 ** 53)],
    ['runner.catalogVersion', '/runner/catalogVersion', (b: Json) => (b.runner.catalogVersion = 2 ** 53)],
    [
      'transcript.eventCount',
      '/transcript/eventCount',
      (b: Json) => {
        b.transcript.complete = false;
        b.transcript.omissionReason = 'cut';
        b.transcript.eventCount = 2 ** 53;
      },
    ],
    ['observations (Infinity)', '/observations/x', (b: Json) => (b.observations.x = Infinity)],
    ['observations (NaN)', '/observations/x', (b: Json) => (b.observations.x = Number.NaN)],
  ] as const)('refuses an unsafe number in a parsed value at %s', (_name, path, mutate) => {
    const bundle = synthetic();
    mutate(bundle);
    const found = nativeExecutionIssues(bundle).map((issue) => `${issue.code} ${issue.path ?? ''}`);
    expect(found).toContain(`json_number_unsafe ${path}`);
  });

  it('keeps a "__proto__" member as an own data member, not a prototype', () => {
    const row = ROWS.find((entry) => entry.name.includes('__proto__'));
    const parsed = parseNativeExecution(documentOf(row!)) as Json;
    const observations = parsed.observations as Json;
    expect(Object.getPrototypeOf(observations)).toBe(Object.prototype);
    expect(Object.hasOwn(observations, '__proto__')).toBe(true);
    expect(JSON.stringify(observations)).toContain('"__proto__":{"polluted":true}');
  });

  // Upstream: a call may stay unanswered only when the turn was interrupted or cancelled, or the run
  // cancelled. Any terminal state, any set of dropped results, any of them denied.
  it('refuses an unanswered call exactly where upstream does, in every terminal state', () => {
    const turnStates = ['completed', 'failed', 'interrupted', 'cancelled'] as const;
    const runStates = ['succeeded', 'failed', 'cancelled'] as const;
    fc.assert(
      fc.property(
        fc.constantFrom(...turnStates),
        fc.constantFrom(...runStates),
        fc.subarray([0, 1, 2, 3]),
        (turn, run, dropped) => {
          const bundle: Json = syntheticAttempt({ toolCalls: 4, deniedCalls: 2, progressEvents: 1 });
          const callIds = (bundle.semanticTools.calls as Json[]).map((call) => call.callId as string);
          for (const index of dropped) dropResult(bundle, callIds[index]!);
          setTerminal(bundle, turn, run);
          const permitted = turn === 'interrupted' || turn === 'cancelled' || run === 'cancelled';
          const unresolved = ourIssues(JSON.stringify(bundle)).filter((issue) =>
            issue.startsWith('semantic_call_unresolved '),
          );
          expect(unresolved).toHaveLength(permitted ? 0 : dropped.length);
          if (permitted || dropped.length === 0) expect(ourIssues(JSON.stringify(bundle))).toEqual([]);
        },
      ),
      { numRuns: 200, seed: 20261202 },
    );
  });
});
