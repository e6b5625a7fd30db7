// The registry's `maxLength` / `minLength` (src/schema-lengths.ts: code points counted only when the
// UTF-16 length cannot decide) against Ajv's own keywords: the same verdict and the same errors
// (keyword, paths, params, message, order) for any string and limit, and — differentially — for
// every schema of schemas/ over the attempt fixtures, upstream's fixtures, the mutation table,
// generated bundles and strings placed at every length limit of the native-execution schema.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { MUTATIONS, MUTATION_BASE_OPTIONS } from '@paperclip-evals/test-kit/mutations';
import { syntheticAttempt } from '@paperclip-evals/test-kit/synthetic';
import { UPSTREAM_FIXTURES_DIR, UPSTREAM_PRESENT, listJsonFiles } from '@paperclip-evals/test-kit/upstream';
import { useLengthShortcut } from '../src/schema-lengths.ts';
import { SCHEMA_IDS, createSchemaAjv, listSchemaFiles, schemaValidator } from '../src/schema-registry.ts';

type Validate = (value: unknown) => boolean;

/** The verdict and every error as Ajv reports them (the fields issues are built from). */
const judge = (validate: Validate, value: unknown): unknown => {
  const valid = validate(value);
  return { valid, errors: (validate as { errors?: unknown }).errors ?? null };
};

/** Strings of BMP letters, astral characters (two units) and lone surrogates (one unit, one code point). */
const units = fc.constantFrom('a', 'é', '\u{1F600}', '\uD800', '\uDC00', '\u{10FFFF}', ' ');
const mixedString = fc.array(units, { maxLength: 30 }).map((parts) => parts.join(''));

describe('maxLength and minLength as the registry compiles them', () => {
  const asWritten = new Ajv2020({ strict: true, allErrors: true });
  const shortcut = new Ajv2020({ strict: true, allErrors: true });
  useLengthShortcut(shortcut);
  const compiled = new Map<string, { asWritten: Validate; shortcut: Validate }>();
  /** Both validators of a schema, compiled once per distinct schema. */
  const both = (schema: object): { asWritten: Validate; shortcut: Validate } => {
    const key = JSON.stringify(schema);
    let pair = compiled.get(key);
    if (pair === undefined) {
      pair = { asWritten: asWritten.compile(schema), shortcut: shortcut.compile(schema) };
      compiled.set(key, pair);
    }
    return pair;
  };

  it('judge any string against any limits exactly as Ajv does, errors included (property)', () => {
    fc.assert(
      fc.property(
        mixedString,
        fc.option(fc.nat(12), { nil: undefined }),
        fc.option(fc.nat(12), { nil: undefined }),
        fc.boolean(),
        (text, maxLength, minLength, withPattern) => {
          const schema = {
            type: 'string',
            ...(maxLength === undefined ? {} : { maxLength }),
            ...(minLength === undefined ? {} : { minLength }),
            // A keyword of the same rule group after them: errors must keep Ajv's order.
            ...(withPattern ? { pattern: '^a' } : {}),
          };
          const pair = both(schema);
          expect(judge(pair.shortcut, text)).toEqual(judge(pair.asWritten, text));
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('decide at the exact limits in code points, not UTF-16 units', () => {
    const max = shortcut.compile({ type: 'string', maxLength: 3 });
    const min = shortcut.compile({ type: 'string', minLength: 3 });
    const astral = '\u{1F600}';
    expect([max(astral.repeat(3)), max(astral.repeat(4)), max('abc'), max('abcd')]).toEqual([
      true,
      false,
      true,
      false,
    ]);
    expect([min(astral.repeat(3)), min(astral.repeat(2)), min(`${astral}a`), min('abc')]).toEqual([
      true,
      false,
      false,
      true,
    ]);
    expect(min('\uD800\uD800\uD800')).toBe(true); // three lone surrogates: three code points
  });
});

// ---------------------------------------------------------------------------------------------------
// Every schema: the registry's validators (the build's precompiled module, what the parser runs)
// against Ajv compiling the schemas as written.

interface Schema {
  readonly $id: string;
  readonly $defs?: Record<string, unknown>;
}

const readJson = (path: string): unknown => JSON.parse(readFileSync(path, 'utf8')) as unknown;
const ATTEMPT_FIXTURES = fileURLToPath(new URL('../../../fixtures/', import.meta.url));

/** JSON documents of a folder, skipping files JSON.parse refuses (text-level fixtures). */
function documentsIn(dir: string): unknown[] {
  return listJsonFiles(dir).flatMap((file) => {
    try {
      return [readJson(file)];
    } catch {
      return [];
    }
  });
}

function mutationDocuments(): unknown[] {
  return MUTATIONS.flatMap((row) => {
    if (row.mutate === undefined) return [];
    const base = syntheticAttempt(MUTATION_BASE_OPTIONS);
    row.mutate(base);
    return [base];
  });
}

/** The JSON pointer tokens of every string in `value`. */
function stringPlaces(value: unknown, at: (string | number)[] = []): (string | number)[][] {
  if (typeof value === 'string') return [at];
  if (Array.isArray(value)) return value.flatMap((item, index) => stringPlaces(item, [...at, index]));
  if (typeof value === 'object' && value !== null)
    return Object.entries(value).flatMap(([key, child]) => stringPlaces(child, [...at, key]));
  return [];
}

function setAt(root: unknown, tokens: readonly (string | number)[], text: string): void {
  let node = root as Record<string | number, unknown>;
  for (const token of tokens.slice(0, -1)) node = node[token] as Record<string | number, unknown>;
  node[tokens.at(-1) as string | number] = text;
}

/** Every maxLength / minLength stated anywhere in schemas/. */
function lengthLimits(): number[] {
  const limits = new Set<number>();
  const visit = (node: unknown): void => {
    if (typeof node !== 'object' || node === null) return;
    for (const [key, child] of Object.entries(node)) {
      if ((key === 'maxLength' || key === 'minLength') && typeof child === 'number') limits.add(child);
      else visit(child);
    }
  };
  for (const file of listSchemaFiles()) visit(readJson(file));
  return [...limits].sort((a, b) => a - b);
}

describe('the registry’s validators and Ajv on the schemas as written', () => {
  const asWritten = createSchemaAjv(undefined, { asWritten: true });
  const ids = listSchemaFiles().flatMap((file) => {
    const schema = readJson(file) as Schema;
    return [schema.$id, ...Object.keys(schema.$defs ?? {}).map((name) => `${schema.$id}#/$defs/${name}`)];
  });
  const reference = (id: string): Validate => {
    const validate = asWritten.getSchema(id);
    if (validate === undefined) throw new Error(`Ajv has no ${id}`);
    return validate;
  };
  const corpora: Record<string, () => unknown[]> = {
    'the repo fixtures (attempts, environments, evals)': () => documentsIn(ATTEMPT_FIXTURES),
    'the mutation table': mutationDocuments,
    'generated bundles': () => [
      syntheticAttempt(MUTATION_BASE_OPTIONS),
      syntheticAttempt({ costMicros: null, runTerminalState: 'failed', transcriptOmission: 'stream closed' }),
      syntheticAttempt({ toolCalls: 6, deniedCalls: 2, progressEvents: 3 }),
    ],
    ...(UPSTREAM_PRESENT ? { 'upstream’s fixtures': () => documentsIn(UPSTREAM_FIXTURES_DIR) } : {}),
  };

  it.each(Object.keys(corpora))('give the same verdicts and errors for every schema on %s', (name) => {
    const documents = corpora[name]?.() ?? [];
    expect(documents.length).toBeGreaterThan(0);
    const differences: unknown[] = [];
    for (const id of ids)
      documents.forEach((document, index) => {
        const ours = judge(schemaValidator(id), document);
        const ajv = judge(reference(id), document);
        if (JSON.stringify(ours) !== JSON.stringify(ajv)) differences.push({ id, index, ours, ajv });
      });
    expect(differences).toEqual([]);
  });

  it('give the same verdicts and errors on a bundle with a string at any length limit, in any characters (property)', () => {
    const base = syntheticAttempt({ toolCalls: 3, deniedCalls: 1, progressEvents: 2 });
    const places = stringPlaces(base);
    const lengths = lengthLimits().flatMap((limit) => [
      limit - 1,
      limit,
      limit + 1,
      2 * limit,
      2 * limit + 1,
    ]);
    const id = SCHEMA_IDS.nativeExecutionV1;
    fc.assert(
      fc.property(
        fc.constantFrom(...places),
        units,
        fc.constantFrom(...lengths.filter((length) => length >= 0)),
        fc.boolean(),
        (place, unit, length, halve) => {
          const document = structuredClone(base);
          // `halve`: as many UTF-16 units as the limit, half of them in astral characters' pairs.
          const count = halve && unit.length === 2 ? Math.ceil(length / 2) : length;
          setAt(document, place, unit.repeat(count));
          expect(judge(schemaValidator(id), document)).toEqual(judge(reference(id), document));
        },
      ),
      { numRuns: 400 },
    );
  });
});
