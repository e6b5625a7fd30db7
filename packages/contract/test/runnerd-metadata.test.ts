// Runnerd build metadata, the pure half of the resolver: the very object back (unknown fields kept),
// metadata_invalid for another schema, an empty PRP range or schema violations, and a schema that
// compiles strictly; and upstream's verdict (parsePaperclipRunnerdBuildMetadata, written out here)
// on blank text, unsafe or non-positive versions and any mix of them. (Running the executable: @paperclip-evals/node's runnerd-artifact tests.)
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { ContractError } from '../src/errors.ts';
import { RUNNERD_BUILD_METADATA_V1, parseRunnerdBuildMetadata } from '../src/runnerd-metadata.ts';
import { SCHEMA_IDS, createSchemaAjv } from '../src/schema-registry.ts';
import { GOOD_METADATA } from '@paperclip-evals/test-kit/runnerd-metadata';

describe('parseRunnerdBuildMetadata', () => {
  it('returns the very object, unknown fields included', () => {
    const value: unknown = JSON.parse(JSON.stringify({ ...GOOD_METADATA, x_new: 1 }));
    expect(parseRunnerdBuildMetadata(value)).toBe(value);
  });

  it('throws metadata_invalid at /schema for another schema, checking nothing else', () => {
    try {
      parseRunnerdBuildMetadata({ schema: 'paperclip-runner/runnerd-build-metadata/v2' });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ContractError);
      expect((error as ContractError).code).toBe('paperclip_runnerd_artifact_invalid');
      expect((error as ContractError).issues).toMatchObject([
        { code: 'metadata_invalid', path: '/schema', expected: RUNNERD_BUILD_METADATA_V1 },
      ]);
    }
  });

  it('throws metadata_invalid with /prp/minimumVersion when the PRP range is empty', () => {
    const value = {
      ...GOOD_METADATA,
      prp: { name: 'paperclip.runner', minimumVersion: 2, maximumVersion: 1 },
    };
    expect(() => parseRunnerdBuildMetadata(value)).toThrow(ContractError);
    try {
      parseRunnerdBuildMetadata(value);
    } catch (error) {
      expect((error as ContractError).issues).toMatchObject([
        { code: 'metadata_invalid', path: '/prp/minimumVersion', received: 2 },
      ]);
    }
  });

  it('rejects duplicate transport modes and a wrong binary name, and keeps any build profile as data', () => {
    try {
      parseRunnerdBuildMetadata({
        ...GOOD_METADATA,
        binaryName: 'runnerd',
        prpTransportModes: ['listen_ws', 'listen_ws'],
        buildProfile: 'fast',
      });
      expect.unreachable();
    } catch (error) {
      expect((error as ContractError).issues.map((issue) => issue.path).sort()).toEqual([
        '/binaryName',
        '/prpTransportModes',
      ]);
    }
    const printed = { ...GOOD_METADATA, buildProfile: 'fast' };
    expect(parseRunnerdBuildMetadata(printed)).toBe(printed);
  });

  it('has a schema that compiles under Ajv strict mode', () => {
    const ajv = createSchemaAjv();
    expect(ajv.getSchema(SCHEMA_IDS.runnerdBuildMetadataV1)).toBeTypeOf('function');
  });
});

/**
 * Upstream's verdict on a parsed `--build-metadata` value, written from its
 * `parsePaperclipRunnerdBuildMetadata` (src/evals/runnerd-artifact.ts): `record()`, exact constants,
 * `version()` (a safe integer of at least 1), `text()` (something left after JS trim), min <= max.
 */
function upstreamVerdict(value: unknown): 'valid' | 'metadata_invalid' {
  const isRecord = (v: unknown): v is Record<string, unknown> =>
    typeof v === 'object' && v !== null && !Array.isArray(v);
  const version = (v: unknown): boolean => Number.isSafeInteger(v) && (v as number) >= 1;
  const text = (v: unknown): boolean => typeof v === 'string' && v.trim().length > 0;
  if (!isRecord(value)) return 'metadata_invalid';
  if (value.schema !== RUNNERD_BUILD_METADATA_V1) return 'metadata_invalid';
  if (value.binaryName !== 'paperclip-runnerd') return 'metadata_invalid';
  if (value.packageName !== '@paperclipai/paperclip-runner') return 'metadata_invalid';
  const prp = value.prp;
  if (!isRecord(prp) || !version(prp.minimumVersion) || !version(prp.maximumVersion))
    return 'metadata_invalid';
  if ((prp.minimumVersion as number) > (prp.maximumVersion as number)) return 'metadata_invalid';
  const ok =
    text(value.packageVersion) &&
    version(value.binaryContractVersion) &&
    version(value.nativeExecutionVersion) &&
    version(value.harnessDriverVersion) &&
    text(prp.name);
  return ok ? 'valid' : 'metadata_invalid';
}

/** Our verdict: valid, or the issue codes (all metadata_invalid when upstream agrees). */
function ourVerdict(value: unknown): string {
  try {
    parseRunnerdBuildMetadata(value);
    return 'valid';
  } catch (error) {
    if (!(error instanceof ContractError)) throw error;
    expect(error.code).toBe('paperclip_runnerd_artifact_invalid');
    return [...new Set(error.issues.map((issue) => issue.code))].join(',');
  }
}

/** Every character JavaScript's String.prototype.trim removes (all in the BMP). */
const TRIMMED: readonly string[] = Array.from({ length: 0x10000 }, (_, code) =>
  String.fromCharCode(code),
).filter((char) => !/[\uD800-\uDFFF]/.test(char) && char.trim() === '');

/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment --
   the properties set arbitrary places of a metadata object. */
describe("against upstream's parsePaperclipRunnerdBuildMetadata", () => {
  it.each([
    ['packageVersion', ['packageVersion']],
    ['prp.name', ['prp', 'name']],
  ] as const)(
    'a %s of only whitespace (any that trim removes) is metadata_invalid at its pointer',
    (_, place) => {
      fc.assert(
        fc.property(fc.array(fc.constantFrom(...TRIMMED), { minLength: 1, maxLength: 6 }), (chars) => {
          const value = structuredClone(GOOD_METADATA) as Record<string, any>;
          if (place.length === 1) value[place[0]] = chars.join('');
          else value[place[0]][place[1]] = chars.join('');
          expect(upstreamVerdict(value)).toBe('metadata_invalid');
          try {
            parseRunnerdBuildMetadata(value);
            expect.unreachable();
          } catch (error) {
            expect((error as ContractError).issues).toMatchObject([
              { code: 'metadata_invalid', path: `/${place.join('/')}`, received: chars.join('') },
            ]);
          }
        }),
        { numRuns: 200 },
      );
    },
  );

  it('keeps text with whitespace around it, as upstream (it trims only to test)', () => {
    const value = {
      ...GOOD_METADATA,
      packageVersion: ' 0.4.2\t',
      prp: { ...GOOD_METADATA.prp, name: '\u3000p' },
    };
    expect(upstreamVerdict(value)).toBe('valid');
    expect(parseRunnerdBuildMetadata(value)).toBe(value);
  });

  it('gives upstream verdict on any field of upstream set to any of many values (metadata_invalid, never another code)', () => {
    const places = [
      ['schema'],
      ['binaryName'],
      ['packageName'],
      ['packageVersion'],
      ['binaryContractVersion'],
      ['nativeExecutionVersion'],
      ['harnessDriverVersion'],
      ['prp'],
      ['prp', 'name'],
      ['prp', 'minimumVersion'],
      ['prp', 'maximumVersion'],
    ] as const;
    const values = fc.constantFrom<unknown>(
      undefined,
      null,
      true,
      '',
      ' ',
      '\u3000\n',
      ' x ',
      '0.4.2',
      'paperclip.runner',
      RUNNERD_BUILD_METADATA_V1,
      0,
      -1,
      1,
      2,
      3,
      1.5,
      2 ** 53 - 1,
      2 ** 53,
      Number.POSITIVE_INFINITY,
      Number.NaN,
      {},
      [],
      { name: 'paperclip.runner', minimumVersion: 1, maximumVersion: 2 },
    );
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.constantFrom(...places), values), { minLength: 1, maxLength: 3 }),
        (changes) => {
          const value = structuredClone(GOOD_METADATA) as Record<string, any>;
          for (const [place, replacement] of changes) {
            const parent = place.length === 1 ? value : value[place[0]];
            if (typeof parent !== 'object' || parent === null) continue;
            const key = place[place.length - 1] as string;
            if (replacement === undefined) Reflect.deleteProperty(parent as object, key);
            else parent[key] = structuredClone(replacement);
          }
          expect(ourVerdict(value)).toBe(upstreamVerdict(value));
        },
      ),
      { numRuns: 2000 },
    );
  });
});
