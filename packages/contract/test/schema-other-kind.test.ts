// A document of another kind (its own `schema` tag names another schema: a campaign record given
// where a qualification record goes) is one issue at /schema naming both kinds — never a wall of
// "missing required property" lines from judging it by the wrong schema. For every schema of
// schemas/ whose documents carry a `schema` tag.
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { listSchemaFiles, schemaIssuesOf } from '../src/schema-registry.ts';

interface Tagged {
  readonly $id: string;
  readonly properties?: { readonly schema?: { readonly const?: unknown; readonly enum?: unknown[] } };
}

const TAGGED = listSchemaFiles()
  .map((file) => JSON.parse(readFileSync(file, 'utf8')) as Tagged)
  .filter((schema) => {
    const tag = schema.properties?.schema;
    return typeof tag?.const === 'string' || Array.isArray(tag?.enum);
  });

const code = (): string => 'schema_violation';

describe('a document that declares another schema', () => {
  it('finds the tagged schemas (the table below is not empty)', () => {
    expect(TAGGED.length).toBeGreaterThan(5);
  });

  it.each(TAGGED.map((schema) => [schema.$id, schema] as const))('%s: one issue at /schema', (id, schema) => {
    const declared = 'paperclip-evals/some-other-record/v9';
    const issues = schemaIssuesOf(id, { schema: declared, campaignId: 'c', attempts: [] }, code);
    expect(issues).toHaveLength(1);
    expect(issues[0]?.path).toBe('/schema');
    expect(issues[0]?.message).toContain(JSON.stringify(declared));
    const tag = schema.properties?.schema;
    const expected = typeof tag?.const === 'string' ? tag.const : String(tag?.enum?.[0]);
    expect(JSON.stringify(issues[0]?.expected)).toContain(expected);
    expect(issues[0]?.received).toBe(declared);
  });

  it('property: whatever else the document holds, it is the one issue; a right tag is judged whole', () => {
    const [schema] = TAGGED;
    const id = schema!.$id;
    const member = fc.dictionary(
      fc.string({ minLength: 1, maxLength: 8 }).filter((key) => key !== 'schema'),
      fc.jsonValue(),
      { maxKeys: 6 },
    );
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), member, (declared, rest) => {
        const right = schema!.properties!.schema!.const ?? schema!.properties!.schema!.enum?.[0];
        fc.pre(declared !== right);
        const issues = schemaIssuesOf(id, { ...rest, schema: declared }, code);
        expect(issues.map((issue) => issue.path)).toEqual(['/schema']);
      }),
      { numRuns: 200 },
    );
  });

  it('a missing or non-string tag is judged whole, as before (it may be a hand-written document missing its tag)', () => {
    const [schema] = TAGGED;
    for (const value of [{}, { schema: 7 }, { schema: null }])
      expect(schemaIssuesOf(schema!.$id, value, code).length).toBeGreaterThan(1);
  });
});
