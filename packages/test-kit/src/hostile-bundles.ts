// Test support: the hostile corpus — valid-but-nasty bundles (and a few the parser refuses) made from
// the synthetic attempt, one shared table that every store's suite ingests (ledger-store.test.ts):
// U+0000 in ids and messages, 6,000- and 100,000-character ids that do not compress, astral and RTL
// characters, SQL and JSON in ids, terminal escapes, unicode normalisation, case and trailing-space
// twins that must stay distinct, a payload at the depth limit, numbers at the edges of JSON. Each
// entry says what ingest must do with it on every store: store it, or refuse it as invalid.
import { createHash } from 'node:crypto';

import { syntheticAttempt } from './synthetic.ts';
import type { SyntheticAttemptOptions } from './synthetic.ts';

type Json = Record<string, unknown>;

export interface HostileBundle {
  /** Also its file name (with `.json`): unique in the corpus. */
  readonly name: string;
  /** What ingest does with it on every store: `stored`, or `invalid` (refused before any store, never written). */
  readonly verdict: 'stored' | 'invalid';
  /** The bundle's file text, exactly as written to disk. */
  readonly text: string;
}

/**
 * `length` characters (code points) that no compressor shrinks: drawn by sha256 from letters,
 * digits, Latin-1, Greek, CJK and an astral range, so a btree index row cannot hold a long one.
 */
export function noise(length: number, seed: string): string {
  const alphabet = [
    ...Array.from('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'),
    ...Array.from('àáâãäåæçèéêëìíîïðñòóôõöøùúûüýþÿ'),
    ...Array.from('αβγδεζηθικλμνξοπρστυφχψω'),
    ...Array.from('的一是不了人我在有他这中大来上国个到说们为子和你地出道也时年'),
    ...Array.from('😀😁😂🤣😃😄😅😆😉😊😋😎😍😘🥰😗'),
  ];
  const chars: string[] = [];
  for (let block = 0; chars.length < length; block++)
    for (const byte of createHash('sha256').update(`${seed}:${block}`).digest()) {
      if (chars.length === length) break;
      chars.push(alphabet[byte % alphabet.length] as string);
    }
  return chars.join('');
}

/** An array nested `levels` deep around a string. */
const nested = (levels: number): unknown => {
  let value: unknown = 'bottom';
  for (let level = 0; level < levels; level++) value = [value];
  return value;
};

/** The deepest `observations.checks[0].detail` the parser takes (its limit: 64 levels of JSON in all). */
const DEEPEST_DETAIL = 60;

const RUN = 'run_hostile';

interface Entry {
  readonly name: string;
  readonly verdict?: HostileBundle['verdict'];
  /**
   * The attempt's ids. A run id is every event's too (at most 160 characters there, and no tool
   * call, whose correlation ids have a pattern); the case, config and attempt ids are the identity's
   * only (the events keep the entry's plain ids).
   */
  readonly ids?: Partial<Record<'runId' | 'caseId' | 'configId' | 'attemptId', string>>;
  readonly options?: SyntheticAttemptOptions;
  /** Changes the bundle object after it is made. */
  readonly change?: (bundle: Json) => void;
  /** Changes the bundle's JSON text (for what a JS value cannot say: big integers, escapes). */
  readonly text?: (text: string) => string;
}

const checks =
  (...entries: Json[]) =>
  (bundle: Json): void => {
    bundle.observations = { checks: entries };
  };

const ENTRIES: readonly Entry[] = [
  {
    name: 'nul-in-every-id',
    ids: {
      runId: 'run\u0000nul',
      caseId: '\u0000case',
      configId: 'con\u0000fig',
      attemptId: 'attempt\u0000\u0000',
    },
  },
  {
    name: 'nul-in-failure-and-checks',
    options: { runTerminalState: 'failed' },
    change: (bundle) => {
      bundle.failure = { classification: 'runner\u0000', code: 'run\u0000failed', message: 'one\u0000two' };
      checks({ id: 'check\u0000a', passed: false }, { id: 'check\u0000b', error: 'boom\u0000!' })(bundle);
    },
  },
  // Joined by U+0000 (as identities once were, to order them), these two were one key.
  {
    name: 'nul-join-twin-1',
    ids: { runId: 'join\u0000twin', caseId: 'case', attemptId: 'attempt_nul_join' },
  },
  {
    name: 'nul-join-twin-2',
    ids: { runId: 'join', caseId: 'twin\u0000case', attemptId: 'attempt_nul_join' },
  },
  // U+E000 escapes U+0000 in PostgreSQL text: every mix of the two stays what it was, and distinct.
  { name: 'escape-1', ids: { attemptId: 'escape\uE0000' } },
  { name: 'escape-2', ids: { attemptId: 'escape\u0000' } },
  { name: 'escape-3', ids: { attemptId: 'escape\uE000\uE000' } },
  { name: 'escape-4', ids: { attemptId: 'escape\uE000' } },
  { name: 'escape-5', ids: { attemptId: 'escape\uE000\u0000\uE0000', runId: 'run\uE000\u0000' } },
  { name: 'id-6000', ids: { attemptId: noise(6000, 'attempt') } },
  { name: 'id-100000', ids: { caseId: noise(100_000, 'case') } },
  {
    name: 'every-id-long',
    ids: {
      runId: noise(160, 'run'),
      caseId: noise(6000, 'case'),
      configId: noise(6000, 'config'),
      attemptId: noise(6000, 'every'),
    },
  },
  {
    name: 'check-id-6000',
    change: checks(
      { id: noise(6000, 'check'), passed: true },
      { id: noise(6000, 'check2'), error: noise(9000, 'e') },
    ),
  },
  {
    name: 'astral',
    ids: { runId: '🧪 run 𝕏𝔂 😀', configId: '👩‍👩‍👧‍👦', attemptId: '\u{1F600}\u{10FFFD}\u{E0001}' },
  },
  { name: 'bidi', ids: { caseId: '\u200F\u2067case\u2069', attemptId: 'attempt\u202Egnp.exe\u202C' } },
  {
    name: 'sql',
    ids: {
      runId: 'run$1$$ \\ $$; SELECT 1',
      caseId: "'; DROP TABLE attempts; --",
      configId: 'x" OR "1"="1',
      attemptId: "attempt'); DELETE FROM bundles; --",
    },
  },
  {
    name: 'json-ish',
    ids: { runId: '{"runId":"run_hostile"}', attemptId: '["a",1,null]' },
    change: checks({ id: '\\u0000 "quoted" {"id":1}', passed: true }),
  },
  {
    name: 'terminal-escapes',
    ids: { runId: '\u001b[31mred\u001b[0m\r\n', attemptId: '::error::x\t\b\f\u007f\u0085' },
  },
  // Unicode normalisation twins: é (U+00E9) and e + U+0301 are two ids, as are ﬁ and fi.
  { name: 'nfc-twin', ids: { caseId: 'caf\u00e9', attemptId: 'attempt_twin' } },
  { name: 'nfd-twin', ids: { caseId: 'cafe\u0301', attemptId: 'attempt_twin' } },
  { name: 'ligature-twin', ids: { caseId: '\uFB01le', attemptId: 'attempt_twin' } },
  { name: 'letters-twin', ids: { caseId: 'file', attemptId: 'attempt_twin' } },
  // Case twins.
  { name: 'case-twin-1', ids: { attemptId: 'Attempt_A' } },
  { name: 'case-twin-2', ids: { attemptId: 'attempt_a' } },
  { name: 'case-twin-3', ids: { attemptId: 'ATTEMPT_A' } },
  { name: 'case-twin-4', ids: { attemptId: 'attempt_\u0131' } },
  { name: 'case-twin-5', ids: { attemptId: 'attempt_i' } },
  // Trailing and leading space twins (each still text after trimming).
  { name: 'space-twin-1', ids: { runId: 'run', attemptId: 'attempt_space' } },
  { name: 'space-twin-2', ids: { runId: 'run ', attemptId: 'attempt_space' } },
  { name: 'space-twin-3', ids: { runId: ' run', attemptId: 'attempt_space' } },
  { name: 'space-twin-4', ids: { runId: 'run\u00a0', attemptId: 'attempt_space' } },
  { name: 'space-twin-5', ids: { configId: 'config\u3000\u2028', attemptId: 'attempt_space' } },
  { name: 'bom-and-noncharacters', ids: { runId: '\uFEFFrun', attemptId: 'attempt\uFFFF\uFFFE\uFDD0' } },
  { name: 'depth-limit', change: checks({ id: 'deep', passed: true, detail: nested(DEEPEST_DETAIL) }) },
  {
    name: 'past-depth-limit',
    verdict: 'invalid',
    change: checks({ id: 'deep', passed: true, detail: nested(DEEPEST_DETAIL + 1) }),
  },
  {
    name: 'numbers-at-the-edges',
    change: (bundle) => {
      checks({ id: 'edges', passed: true, values: 'EDGES' })(bundle);
      const usage = bundle.usage as Json;
      usage.inputTokens = Number.MAX_SAFE_INTEGER - 1000;
      usage.outputTokens = 1000;
      usage.totalTokens = Number.MAX_SAFE_INTEGER;
      usage.durationMs = Number.MAX_SAFE_INTEGER;
    },
    // The parser takes only numbers it reads exactly (within ±(2^53 − 1)): these are its edges.
    text: (text) =>
      text.replace(
        '"EDGES"',
        '[9007199254740991,-9007199254740991,4503599627370495.5,5e-324,-5e-324,-0,0.1,1E+2,-1.5e-7,2.2250738585072014e-308]',
      ),
  },
  {
    name: 'number-past-the-safe-bound',
    verdict: 'invalid',
    change: checks({ id: 'edges', passed: true, values: 'EDGES' }),
    text: (text) => text.replace('"EDGES"', '[1e21, 9007199254740993, 1.7976931348623157e308]'),
  },
  { name: 'cost-past-the-safe-bound', verdict: 'invalid', options: { costMicros: Number.MAX_SAFE_INTEGER } },
  {
    name: 'unpaired-surrogate',
    verdict: 'invalid',
    ids: { attemptId: 'attempt_SURROGATE' },
    text: (text) => text.replaceAll('attempt_SURROGATE', 'attempt_\\ud800'),
  },
  { name: 'whitespace-only-id', verdict: 'invalid', ids: { caseId: ' \u3000\t' } },
];

/** The corpus: every entry's file text (same options, same bytes). */
export function hostileCorpus(): HostileBundle[] {
  return ENTRIES.map((entry) => {
    const plain = `attempt_${entry.name}`;
    const bundle = syntheticAttempt({
      runId: RUN,
      caseId: 'case_hostile',
      configId: 'config_hostile',
      attemptId: plain,
      progressEvents: 0,
      // A run id is in every event and in a tool call's correlation, which has a pattern.
      toolCalls: entry.ids?.runId === undefined ? 1 : 0,
      ...entry.options,
      ...(entry.ids?.runId === undefined ? {} : { runId: entry.ids.runId }),
    });
    bundle.identity = { ...(bundle.identity as Json), ...entry.ids };
    entry.change?.(bundle);
    const text = JSON.stringify(bundle);
    return { name: entry.name, verdict: entry.verdict ?? 'stored', text: entry.text?.(text) ?? text };
  });
}
