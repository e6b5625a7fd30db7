// Environment loading: YAML and JSON, the starter, duplicate keys and custom tags refused, schema
// errors located by JSON pointers, semantic checks (unique ids, price precision).
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { isContractError } from '@paperclip-evals/contract';

import { loadEnvironment, starterEnvironment } from '../src/ledger/environment.ts';
import { tempDir } from './support/bundles.ts';

let dir: string;
let cleanup: () => Promise<void>;
beforeAll(async () => ({ dir, cleanup } = await tempDir()));
afterAll(() => cleanup());

async function issuesOf(name: string, text: string): Promise<{ code: string; path?: string }[]> {
  const path = join(dir, name);
  await writeFile(path, text);
  try {
    await loadEnvironment(path);
  } catch (error) {
    if (isContractError(error))
      return error.issues.map(({ code, path: at }) => ({ code, ...(at === undefined ? {} : { path: at }) }));
    throw error;
  }
  return [];
}

describe('loadEnvironment', () => {
  it('loads the commented starter (what evals init writes)', async () => {
    await writeFile(join(dir, 'evalbook.yaml'), starterEnvironment());
    const environment = await loadEnvironment(join(dir, 'evalbook.yaml'));
    expect(environment.configs[0]?.model).toBe('example-model');
    expect(environment.pricing?.version).toBe('2026-11-01');
    expect(environment.cases[0]?.checks?.[0]?.id).toBe('example-check');
  });

  it('loads JSON', async () => {
    const path = join(dir, 'evalbook.json');
    await writeFile(
      path,
      JSON.stringify({ schema: 'paperclip-evals/environment/v1', name: 'x', cases: [], configs: [] }),
    );
    expect((await loadEnvironment(path)).name).toBe('x');
  });

  it('refuses a duplicate YAML key', async () => {
    const issues = await issuesOf(
      'dup.yaml',
      starterEnvironment().replace('name: my-suite', 'name: my-suite\nname: again'),
    );
    expect(issues.map((issue) => issue.code)).toContain('yaml_duplicate_key');
  });

  it('refuses custom tags', async () => {
    const issues = await issuesOf(
      'tag.yaml',
      starterEnvironment().replace('name: my-suite', 'name: !secret my-suite'),
    );
    expect(issues.length).toBeGreaterThan(0);
    expect(issues[0]?.code).toMatch(/^yaml_/);
  });

  it('refuses a duplicate JSON key', async () => {
    const issues = await issuesOf(
      'dup.json',
      '{"schema":"paperclip-evals/environment/v1","name":"a","name":"b","cases":[],"configs":[]}',
    );
    expect(issues.length).toBeGreaterThan(0);
  });

  it('reports every schema error with a JSON pointer', async () => {
    const text = starterEnvironment()
      .replace('model: example-model', 'model: example-model\n    colour: blue')
      .replace(/sha256: sha256:0{64}\n {4}checks/, 'sha256: nope\n    checks')
      .replace('inputPerMillionUsd: 3', 'inputPerMillionUsd: -3');
    const issues = await issuesOf('schema.yaml', text);
    const paths = issues.map((issue) => issue.path);
    expect(paths).toContain('/configs/0');
    expect(paths).toContain('/cases/0/sha256');
    expect(paths).toContain('/pricing/models/example-model/inputPerMillionUsd');
    expect(issues.every((issue) => issue.code === 'environment_schema')).toBe(true);
  });

  it('reports a missing required member at its pointer', async () => {
    const issues = await issuesOf(
      'missing.json',
      JSON.stringify({ schema: 'paperclip-evals/environment/v1', cases: [], configs: [] }),
    );
    expect(issues).toEqual([{ code: 'environment_schema', path: '/name' }]);
  });

  it('refuses duplicate ids and over-precise prices', async () => {
    const text = starterEnvironment()
      .replace('inputPerMillionUsd: 3', 'inputPerMillionUsd: 0.0000001')
      .replace(
        'configs:\n',
        'configs:\n  - id: config_example\n    sha256: sha256:' +
          '1'.repeat(64) +
          '\n    model: m\n    driver: d\n',
      );
    const issues = await issuesOf('semantic.yaml', text);
    expect(issues).toEqual([
      { code: 'environment_duplicate_id', path: '/configs/1/id' },
      { code: 'environment_price_precision', path: '/pricing/models/example-model/inputPerMillionUsd' },
    ]);
  });

  it('refuses case checks the checks engine refuses, and malformed ones, each at its pointer', async () => {
    const environment = {
      schema: 'paperclip-evals/environment/v1',
      name: 'checks',
      cases: [
        {
          id: 'case_a',
          sha256: 'sha256:' + '1'.repeat(64),
          checks: [
            { id: 'fine', type: 'constraint', spec: { field: 'steps.length', operator: 'lte', value: 3 } },
            {
              id: 'bad-operator',
              type: 'constraint',
              spec: { field: 'steps.length', operator: 'about', value: 3 },
            },
            { id: 'runner-reported' },
            { id: 'fine', description: 'a second check with the same id' },
          ],
        },
        {
          id: 'case_b',
          sha256: 'sha256:' + '2'.repeat(64),
          checks: [
            {
              id: 'bad-regex',
              type: 'content',
              spec: { target: 'output.message', check: 'regex_match', value: '(' },
            },
            // Refused although no provider is configured: no provider could make these valid.
            { id: 'judge-without-rubric', type: 'llm_judge', spec: {} },
            { id: 'embedding-without-reference', type: 'embedding', spec: { target: 'output' } },
          ],
        },
      ],
      configs: [],
    };
    const semantic = await issuesOf('checks.json', JSON.stringify(environment));
    expect(semantic).toEqual([{ code: 'environment_duplicate_id', path: '/cases/0/checks/3/id' }]);
    environment.cases[0]?.checks.pop();
    const engine = await issuesOf('checks.json', JSON.stringify(environment));
    expect(engine).toEqual([
      { code: 'environment_check_spec', path: '/cases/0/checks/1/spec' },
      { code: 'environment_check_spec', path: '/cases/1/checks/0/spec' },
      { code: 'environment_check_spec', path: '/cases/1/checks/1/spec' },
      { code: 'environment_check_spec', path: '/cases/1/checks/2/spec' },
    ]);
    const malformed = await issuesOf(
      'malformed.json',
      JSON.stringify({
        ...environment,
        cases: [
          {
            id: 'case_a',
            sha256: 'sha256:' + '1'.repeat(64),
            checks: [
              { id: 'no-spec', type: 'trace' },
              { id: 'plugin', type: 'plugin', spec: {} },
              { id: 'effect', type: 'effect', spec: { check: 'exists', world: 'db', resource: 'orders' } },
            ],
          },
        ],
      }),
    );
    expect(malformed.map((issue) => issue.path)).toEqual([
      '/cases/0/checks/0',
      '/cases/0/checks/1/type',
      '/cases/0/checks/2/type',
    ]);
  });
});
