// Runnerd build metadata, the pure half of the resolver: the very object back (unknown fields kept),
// metadata_invalid for another schema, an empty PRP range or schema violations, and a schema that
// compiles strictly. (Running the executable: @paperclip-evals/node's runnerd-artifact tests.)
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
