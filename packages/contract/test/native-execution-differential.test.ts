// Differential test: our native-execution/v1 schema (with our PRP v1 schemas) against upstream's.
// Upstream's seeded fixture, our generated bundles, every row of the mutation table and random
// mutations of them must get the same schema-level accept/reject verdict from both.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { MUTATIONS, MUTATION_BASE_OPTIONS } from '@paperclip-evals/test-kit/mutations';
import { syntheticAttempt } from '@paperclip-evals/test-kit/synthetic';
import { SCHEMA_IDS, createSchemaAjv } from '../src/schema-registry.ts';
import { UPSTREAM_FIXTURES_DIR, loadUpstreamAjv, needsUpstream } from '@paperclip-evals/test-kit/upstream';

type Json = Record<string, unknown>;

const NATIVE_EXECUTION = SCHEMA_IDS.nativeExecutionV1;
const HAVE_UPSTREAM = needsUpstream(
  import.meta.url,
  "the comparisons of our native-execution/v1 schema with upstream's",
);

type Validate = (document: unknown) => boolean;
let validators: { upstream: Validate; ours: Validate } | undefined;
/** Both schemas' validators, compiled on first use (only when upstream's data is there). */
function compiled(): { upstream: Validate; ours: Validate } {
  if (validators !== undefined) return validators;
  const upstream = loadUpstreamAjv().getSchema(NATIVE_EXECUTION);
  const ours = createSchemaAjv().getSchema(NATIVE_EXECUTION);
  if (upstream === undefined || ours === undefined) throw new Error('native-execution schema missing');
  validators = {
    upstream: (document) => upstream(document) === true,
    ours: (document) => ours(document) === true,
  };
  return validators;
}

const verdicts = (document: unknown): { upstream: boolean; ours: boolean } => ({
  upstream: compiled().upstream(document),
  ours: compiled().ours(document),
});

const seeded = (): Json =>
  JSON.parse(readFileSync(join(UPSTREAM_FIXTURES_DIR, 'evals/native-execution-seeded.json'), 'utf8')) as Json;
const bases: Record<string, () => Json> = {
  'upstream seeded fixture': seeded,
  'synthetic base': () => syntheticAttempt(MUTATION_BASE_OPTIONS),
  'synthetic, no cost, failed run, incomplete transcript': () =>
    syntheticAttempt({
      costMicros: null,
      runTerminalState: 'failed',
      transcriptOmission: 'stream closed',
      toolCalls: 4,
    }),
};

/** What a mutation-table row turns the synthetic base into, as a JSON value (or undefined for non-JSON text). */
function mutatedDocument(row: (typeof MUTATIONS)[number]): unknown {
  const base = syntheticAttempt(MUTATION_BASE_OPTIONS);
  if (row.mutate !== undefined) {
    row.mutate(base);
    return base;
  }
  const output = row.mutateText?.(`${JSON.stringify(base, null, 2)}\n`) ?? '';
  let value: unknown;
  try {
    value = JSON.parse(typeof output === 'string' ? output : Buffer.from(output).toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
  // JSON.parse turns 1e400 into Infinity, which is no JSON value (and which the text rule refuses
  // before any schema runs): Ajv's strictNumbers then decides, not the schemas being compared.
  return hasNonFinite(value) ? undefined : value;
}

function hasNonFinite(value: unknown): boolean {
  if (typeof value === 'number') return !Number.isFinite(value);
  return typeof value === 'object' && value !== null && Object.values(value).some(hasNonFinite);
}

describe.skipIf(!HAVE_UPSTREAM)('native-execution/v1 schema: ours and upstream agree', () => {
  it.each(Object.keys(bases))('accepts the %s', (name) => {
    expect(verdicts(bases[name]?.())).toEqual({ upstream: true, ours: true });
  });

  const rows = MUTATIONS.map((row) => [row.name, row] as const);
  it.each(rows)('gives the same verdict on mutation %s', (_name, row) => {
    const document = mutatedDocument(row);
    if (document === undefined) return; // text-level rows without a JSON value: nothing for a schema to judge
    const { upstream, ours } = verdicts(document);
    if (row.stricterThanUpstream !== undefined)
      expect({ upstream, ours }).toEqual({ upstream: true, ours: false });
    else expect(ours, `upstream says ${upstream ? 'valid' : 'invalid'}`).toBe(upstream);
  });

  // Upstream compiles `format: date-time` as a pattern; ours states that pattern. Both refuse every
  // other shape of timestamp, at either field of any event, and both accept upstream's two shapes;
  // a calendar check is the parser's own rule (timestamp_impossible), not either schema's.
  const refusedTimestamps = [
    '2026-11-30T12:00:00+01:00', // an offset
    '2026-11-30T12:00:00.000+00:00',
    '2026-11-30T12:00:00.000-05:30',
    '2026-11-30t12:00:00.000Z', // lower-case t
    '2026-11-30T12:00:00.000z', // lower-case z
    '2026-11-30 12:00:00.000Z', // a space for T
    '2026-11-30T12:00:00.1Z', // 1, 2, 4, 6, 9 fraction digits
    '2026-11-30T12:00:00.12Z',
    '2026-11-30T12:00:00.1234Z',
    '2026-11-30T12:00:00.123456Z',
    '2026-11-30T12:00:00.123456789Z',
    '2026-11-30T12:00Z', // no seconds
    '2026-11-30T12:00:00', // no zone
    '2026-11-30',
    '',
  ];
  const acceptedTimestamps = ['2026-11-30T12:00:00Z', '2026-11-30T12:00:00.123Z', '2026-02-30T24:61:60.000Z'];
  const timestampCases = (texts: string[]) =>
    texts.flatMap((text) => (['emittedAt', 'observedAt'] as const).map((field) => [field, text] as const));
  /** The synthetic base with `field` of every event set to `text`. */
  const withTimestamp = (field: string, text: string): Json => {
    const bundle = syntheticAttempt(MUTATION_BASE_OPTIONS);
    for (const event of bundle.events as Json[]) event[field] = text;
    return bundle;
  };

  it.each(timestampCases(refusedTimestamps))('both refuse %s %j', (field, text) => {
    expect(verdicts(withTimestamp(field, text))).toEqual({ upstream: false, ours: false });
  });

  it.each(timestampCases(acceptedTimestamps))('both accept %s %j', (field, text) => {
    expect(verdicts(withTimestamp(field, text))).toEqual({ upstream: true, ours: true });
  });

  it('gives the same verdicts on random mutations of every base', () => {
    const pool = [
      null,
      true,
      0,
      -1,
      1.5,
      2 ** 53,
      '',
      'x',
      'sha256:' + 'a'.repeat(64),
      'sha256:ABC',
      [],
      [{}],
      {},
      { x: 1 },
    ];
    const paths = (value: unknown, prefix: (string | number)[] = []): (string | number)[][] => {
      if (typeof value !== 'object' || value === null) return [prefix];
      const entries = Array.isArray(value)
        ? value.map((item, index) => [index, item] as const)
        : Object.entries(value);
      return [prefix, ...entries.flatMap(([key, child]) => paths(child, [...prefix, key]))];
    };
    let rejected = 0;
    let runs = 0;
    for (const [name, make] of Object.entries(bases)) {
      const all = paths(make()).filter((path) => path.length > 0);
      fc.assert(
        fc.property(fc.constantFrom(...all), fc.constantFrom(...pool, undefined), (path, replacement) => {
          const document = make();
          let parent: unknown = document;
          for (const key of path.slice(0, -1)) parent = (parent as Record<string | number, unknown>)[key];
          const last = path[path.length - 1] as string | number;
          const container = parent as Record<string | number, unknown>;
          if (replacement === undefined) {
            if (Array.isArray(container)) container.splice(Number(last), 1);
            else Reflect.deleteProperty(container, last);
          } else container[last] = structuredClone(replacement);
          const { upstream, ours } = verdicts(document);
          runs++;
          if (!upstream) rejected++;
          expect(ours, `${name}: ${JSON.stringify(path)} := ${JSON.stringify(replacement)}`).toBe(upstream);
        }),
        { numRuns: 400, seed: 20261130 },
      );
    }
    expect(runs).toBeGreaterThan(1000);
    expect(rejected).toBeGreaterThan(runs / 4); // the corpus exercises refusals, not only acceptances
  });
});
