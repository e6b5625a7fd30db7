// The schema registry: every schema compiles strictly, and the build's precompiled validators judge as Ajv does; `format: date-time` is ajv-formats' RFC 3339
// (our own schemas' meaning), while the PRP `instant` judges timestamps exactly as upstream's format.
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { UPSTREAM_DATE_TIME } from '../src/native-execution-fields.ts';
import {
  PRECOMPILED_VALIDATORS,
  SCHEMA_IDS,
  SCHEMAS_DIR,
  createSchemaAjv,
  listSchemaFiles,
  loadPrecompiledValidators,
} from '../src/schema-registry.ts';
import { needs } from '@paperclip-evals/test-kit/requirement';

import type { PrecompiledValidators } from '../src/schema-registry.ts';

interface Schema {
  readonly $id: string;
  readonly $defs?: Record<string, unknown>;
}

const FIXTURES = fileURLToPath(new URL('../../../fixtures/attempts/', import.meta.url));

describe('the schema registry', () => {
  it('compiles every schema it names', () => {
    const ajv = createSchemaAjv();
    for (const id of Object.values(SCHEMA_IDS)) expect(typeof ajv.getSchema(id), id).toBe('function');
  });

  it('keeps RFC 3339 for format: date-time (checks traces, qualification records)', () => {
    const dateTime = createSchemaAjv().compile({ type: 'string', format: 'date-time' });
    for (const text of ['2026-11-30T12:00:00Z', '2026-11-30T12:00:00.5+01:00', '2026-11-30t12:00:00.123456z'])
      expect(dateTime(text), text).toBe(true);
    for (const text of ['2026-02-30T12:00:00Z', '2026-11-30T24:00:00Z', '2026-11-30', 'yesterday'])
      expect(dateTime(text), text).toBe(false);
  });

  it("judges a PRP instant exactly as upstream's date-time format (property)", () => {
    const instant = createSchemaAjv().getSchema(`${SCHEMA_IDS.prpEventV1}#/$defs/instant`);
    if (instant === undefined) throw new Error('no PRP instant definition');
    const digit = fc.constantFrom('0', '1', '2', '3', '4', '5', '6', '7', '8', '9');
    const twoDigits = fc.tuple(digit, digit).map((d) => d.join(''));
    const timestamp = fc
      .tuple(
        fc.tuple(digit, digit, digit, digit).map((d) => d.join('')),
        twoDigits,
        twoDigits,
        fc.constantFrom('T', 't', ' ', 'X'),
        twoDigits,
        twoDigits,
        twoDigits,
        fc.constantFrom('', '.0', '.12', '.123', '.1234', '.123456', '.123456789', '.'),
        fc.constantFrom('Z', 'z', '+02:00', '-0530', '', 'Q'),
      )
      .map(
        (parts) =>
          `${parts.slice(0, 3).join('-')}${parts[3]}${parts.slice(4, 7).join(':')}${parts[7]}${parts[8]}`,
      );
    let accepted = 0;
    fc.assert(
      fc.property(fc.oneof(timestamp, fc.string()), (text) => {
        const verdict = instant(text) === true;
        if (verdict) accepted += 1;
        expect(verdict, text).toBe(UPSTREAM_DATE_TIME.test(text));
      }),
      { numRuns: 20_000 },
    );
    expect(accepted).toBeGreaterThan(30); // about one generated timestamp in a hundred has upstream's shape
    expect(instant('2026-11-30T12:00:00.123Z')).toBe(true);
    expect(instant('2026-11-30T12:00:00.123\nZ')).toBe(false);
  });
});

// The build's precompiled validators must judge exactly as Ajv compiling the same schemas does, and
// an index or a module made from other schemas (one edited since the build) must never be used.
const BUILT = existsSync(join(PRECOMPILED_VALIDATORS, 'index.json'));
const built = needs({
  testFile: import.meta.url,
  skips: 'the comparison of the precompiled validators with Ajv',
  present: BUILT,
  missing: `${PRECOMPILED_VALIDATORS} not found: run \`pnpm run build\` first`,
});

describe.skipIf(!built)('the precompiled validators (dist/validators/)', () => {
  const ajv = createSchemaAjv();
  const documents = listSchemaFiles().map((file) => JSON.parse(readFileSync(file, 'utf8')) as Schema);
  const ids = documents.flatMap((schema) => [
    schema.$id,
    ...Object.keys(schema.$defs ?? {}).map((name) => `${schema.$id}#/$defs/${name}`),
  ]);
  const loaded = (): PrecompiledValidators => {
    const precompiled = loadPrecompiledValidators();
    if (precompiled === null) throw new Error('the precompiled validators are stale: run `pnpm run build`');
    return precompiled;
  };
  /** Both verdicts and every error, as Ajv reports them. */
  const judge = (validate: (value: unknown) => boolean, value: unknown): unknown => {
    const valid = validate(value);
    return { valid, errors: (validate as { errors?: unknown }).errors ?? null };
  };
  const fixtures = ['valid', 'invalid'].flatMap((kind) =>
    readdirSync(join(FIXTURES, kind))
      .filter((name) => name.endsWith('.json'))
      .flatMap((name) => {
        try {
          return [JSON.parse(readFileSync(join(FIXTURES, kind, name), 'utf8')) as unknown];
        } catch {
          return []; // refused as text (a BOM, a duplicate key…) before any schema
        }
      }),
  );

  it('were made from the schemas on disk, and hold every schema and definition', () => {
    const precompiled = loaded();
    expect(Object.keys(precompiled.index.ids).sort()).toEqual([...ids].sort());
    for (const id of ids) expect(typeof precompiled.validator(id), id).toBe('function');
  });

  it('one module per schema file, holding that schema and its definitions only', () => {
    const { index } = loaded();
    for (const [file, schema] of listSchemaFiles().map((file, at) => [file, documents[at]] as const)) {
      const module = relative(SCHEMAS_DIR, file)
        .split('\\')
        .join('/')
        .replace(/\.json$/, '.cjs');
      const own = [
        schema?.$id,
        ...Object.keys(schema?.$defs ?? {}).map((name) => `${schema?.$id}#/$defs/${name}`),
      ];
      expect(
        Object.entries(index.ids)
          .filter(([, holder]) => holder === module)
          .map(([id]) => id)
          .sort(),
        module,
      ).toEqual(own.sort());
    }
    expect(Object.keys(index.modules).sort()).toEqual([...new Set(Object.values(index.ids))].sort());
  });

  it('judge every attempt fixture exactly as Ajv does, errors included', () => {
    const precompiled = loaded();
    for (const id of ids) {
      const compiled = ajv.getSchema(id);
      if (compiled === undefined) throw new Error(`Ajv has no ${id}`);
      for (const value of fixtures)
        expect(judge(precompiled.validator(id) as (value: unknown) => boolean, value), id).toEqual(
          judge(compiled, value),
        );
    }
  });

  it('judge arbitrary JSON exactly as Ajv does, for every schema and definition (property)', () => {
    const precompiled = loaded();
    fc.assert(
      fc.property(fc.constantFrom(...ids), fc.jsonValue({ maxDepth: 4 }), (id, value) => {
        const compiled = ajv.getSchema(id);
        if (compiled === undefined) throw new Error(`Ajv has no ${id}`);
        expect(judge(precompiled.validator(id) as (value: unknown) => boolean, value)).toEqual(
          judge(compiled, value),
        );
      }),
      { numRuns: 2000 },
    );
  });

  it('are ignored when made from other schemas (a schema edited since the build)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'evals-schemas-'));
    try {
      const id = SCHEMA_IDS.nativeExecutionV1;
      // A copy per case, in its own folder: require() caches a module by its path.
      const copy = (name: string): string => {
        cpSync(PRECOMPILED_VALIDATORS, join(dir, name), { recursive: true });
        return join(dir, name);
      };
      const edit = (file: string, from: RegExp, to: string): void => {
        const text = readFileSync(file, 'utf8');
        expect(text).toMatch(from);
        writeFileSync(file, text.replace(from, to));
      };
      const zero = `sha256:${'0'.repeat(64)}`;
      expect(loadPrecompiledValidators(copy('copy'))?.validator(id)).toBeTypeOf('function');
      // An index made from other schemas: nothing of it is used.
      const staleIndex = copy('stale-index');
      edit(
        join(staleIndex, 'index.json'),
        /"schemasDigest": "sha256:[0-9a-f]{64}"/,
        `"schemasDigest": "${zero}"`,
      );
      expect(loadPrecompiledValidators(staleIndex)).toBeNull();
      // A module made from other schemas than its index (a build under way): that module is not used,
      // the others are.
      const staleModule = copy('stale-module');
      const module = loaded().index.ids[id] ?? '';
      edit(
        join(staleModule, module),
        /exports\.schemasDigest = "sha256:[0-9a-f]{64}"/,
        `exports.schemasDigest = "${zero}"`,
      );
      const mixed = loadPrecompiledValidators(staleModule);
      expect(mixed?.validator(id)).toBeUndefined();
      expect(mixed?.validator(SCHEMA_IDS.runnerdBuildMetadataV1)).toBeTypeOf('function');
      // A module missing, or an $id the index does not name: undefined, never a throw.
      const missingModule = copy('missing-module');
      rmSync(join(missingModule, module));
      expect(loadPrecompiledValidators(missingModule)?.validator(id)).toBeUndefined();
      expect(loadPrecompiledValidators(missingModule)?.validator('__proto__')).toBeUndefined();
      // The same folder judged against a schemas folder with one byte changed: stale too.
      const schemas = join(dir, 'schemas');
      cpSync(SCHEMAS_DIR, schemas, { recursive: true });
      const [first] = listSchemaFiles(schemas);
      if (first === undefined) throw new Error('no schema files');
      writeFileSync(first, `${readFileSync(first, 'utf8')} `);
      expect(loadPrecompiledValidators(PRECOMPILED_VALIDATORS, schemas)).toBeNull();
      expect(loadPrecompiledValidators(join(dir, 'missing'))).toBeNull();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
