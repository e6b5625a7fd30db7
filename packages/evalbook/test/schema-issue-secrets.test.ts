// Schema errors never echo a secret: a property the schema does not allow is named, never its value;
// no issue's `received` is a whole object or array (only its size); a credential-shaped string, or
// any string under a secret-named property, reads as ***. Property test: a document with a secret
// anywhere (a new property, a replaced member, inside an array) → no issue text contains it.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { parse as parseYaml } from 'yaml';

import { SCHEMA_IDS, schemaIssuesOf } from '@paperclip-evals/contract';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const ENVIRONMENT_SCHEMA_ID = (
  JSON.parse(readFileSync(`${ROOT}schemas/evals/environment-v1.schema.json`, 'utf8')) as { $id: string }
).$id;
const ENVIRONMENT = parseYaml(
  readFileSync(`${ROOT}fixtures/environments/demo/evalbook.yaml`, 'utf8'),
) as unknown;
const BUNDLE = JSON.parse(
  readFileSync(`${ROOT}fixtures/attempts/valid/denied-tool-call.json`, 'utf8'),
) as unknown;

const issueText = (schemaId: string, value: unknown): string =>
  JSON.stringify(schemaIssuesOf(schemaId, value, () => 'schema_violation'));

describe('when an environment has a typo’d key holding an API key', () => {
  const doc = { ...(ENVIRONMENT as object), api_key: 'sk-live-0123456789abcdefghijklmnop' };
  const issues = schemaIssuesOf(ENVIRONMENT_SCHEMA_ID, doc, () => 'schema_violation');

  it('names the property, and only the property', () => {
    expect(issues).toContainEqual(
      expect.objectContaining({
        path: '/api_key',
        expected: 'no property api_key',
        received: 'property api_key',
      }),
    );
    expect(JSON.stringify(issues)).not.toContain('sk-live');
  });

  it('locates a key that is itself a pasted secret without its text (path, message and all)', () => {
    const pasted = schemaIssuesOf(
      ENVIRONMENT_SCHEMA_ID,
      { ...(ENVIRONMENT as object), 'sk-live-0123456789abcdefghijklmnop': 1 },
      () => 'schema_violation',
    );
    expect(pasted.some((issue) => issue.path?.startsWith('/') === true && issue.path.includes('***'))).toBe(
      true,
    );
    expect(JSON.stringify(pasted)).not.toContain('sk-live-0123456789');
  });

  it('never echoes the whole document', () => {
    expect(JSON.stringify(issues)).not.toContain('"schema"');
  });
});

describe('received', () => {
  it('is an object’s or array’s size, not its members', () => {
    const text = issueText(SCHEMA_IDS.runnerdBuildMetadataV1, {
      schema: { nested: 'x' },
      binaryName: [1, 2],
    });
    expect(text).toContain('an object with 1 properties');
    expect(text).toContain('an array of 2 items');
    expect(text).not.toContain('nested');
  });

  it('is *** for a string under a secret-named property, whatever it looks like', () => {
    const issues = schemaIssuesOf(
      ENVIRONMENT_SCHEMA_ID,
      { ...(ENVIRONMENT as object), report: { token: 'plain-words' } },
      () => 'x',
    );
    expect(JSON.stringify(issues)).not.toContain('plain-words');
  });
});

/** Credential shapes contract/src/secrets.ts detects. */
const secret = fc.oneof(
  fc.stringMatching(/^[A-Za-z0-9]{20,40}$/).map((tail) => `sk-live-${tail}`),
  fc.stringMatching(/^[A-Za-z0-9]{36}$/).map((tail) => `ghp_${tail}`),
  fc.stringMatching(/^[A-Z0-9]{16}$/).map((tail) => `AKIA${tail}`),
  fc.stringMatching(/^[A-Za-z0-9]{20,30}$/).map((tail) => `Bearer ${tail}`),
);

/** Every path (as member names and indexes) of a JSON value's nodes. */
function nodePaths(value: unknown, at: readonly (string | number)[] = []): (readonly (string | number)[])[] {
  const here = [at];
  if (Array.isArray(value))
    return [...here, ...value.flatMap((item, index) => nodePaths(item, [...at, index]))];
  if (typeof value === 'object' && value !== null)
    return [...here, ...Object.entries(value).flatMap(([key, item]) => nodePaths(item, [...at, key]))];
  return here;
}

/** `doc` with `secret` put at `path`: as a new member (`as`), in place of the node, or in an array. */
function plant(
  doc: unknown,
  path: readonly (string | number)[],
  how: 'replace' | 'add' | 'wrap',
  name: string,
  value: string,
): unknown {
  const copy = structuredClone(doc);
  if (path.length === 0)
    return how === 'add' && typeof copy === 'object' && copy !== null ? { ...copy, [name]: value } : value;
  let parent = copy as Record<string | number, unknown>;
  for (const step of path.slice(0, -1)) parent = parent[step] as Record<string | number, unknown>;
  const last = path.at(-1) as string | number;
  const node = parent[last];
  if (how === 'add' && typeof node === 'object' && node !== null && !Array.isArray(node))
    parent[last] = { ...node, [name]: value };
  else if (how === 'wrap') parent[last] = [value, { [name]: value }];
  else parent[last] = value;
  return copy;
}

describe('a document with a secret anywhere', () => {
  const cases = [
    ['an environment', ENVIRONMENT_SCHEMA_ID, ENVIRONMENT],
    ['a native-execution bundle', SCHEMA_IDS.nativeExecutionV1, BUNDLE],
  ] as const;
  it.each(cases)('%s: no issue text contains it', (_what, schemaId, doc) => {
    const paths = nodePaths(doc);
    fc.assert(
      fc.property(
        fc.nat({ max: paths.length - 1 }),
        fc.constantFrom('replace', 'add', 'wrap'),
        fc.stringMatching(/^[a-z_]{1,12}$/),
        secret,
        (index, how, name, value) => {
          const planted = plant(doc, paths[index] ?? [], how, name, value);
          expect(issueText(schemaId, planted)).not.toContain(value);
        },
      ),
      { numRuns: 300 },
    );
  });
});
