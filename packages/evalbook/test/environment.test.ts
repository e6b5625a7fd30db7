// Environment loading: YAML and JSON, the starter, duplicate keys and custom tags refused, schema
// errors located by JSON pointers, semantic checks (unique ids, price precision).
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';

import { isContractError, pointer } from '@paperclip-evals/contract';
import type { Issue } from '@paperclip-evals/contract';

import { ENVIRONMENT_MAX_BYTES, loadEnvironment, starterEnvironment } from '../src/ledger/environment.ts';
import { tempDir } from '@paperclip-evals/test-kit/bundle-files';

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

/** The loader's issues in full (message, expected, received too). */
async function fullIssuesOf(name: string, text: string): Promise<Issue[]> {
  const path = join(dir, name);
  await writeFile(path, text);
  try {
    await loadEnvironment(path);
  } catch (error) {
    if (isContractError(error)) return [...error.issues];
    throw error;
  }
  return [];
}

describe('loadEnvironment', () => {
  it('loads the commented starter (what evals init writes)', async () => {
    await writeFile(join(dir, 'evalbook.yaml'), starterEnvironment());
    const environment = await loadEnvironment(join(dir, 'evalbook.yaml'));
    // The reference runner's stand-in provider and pinned model, priced in the table: `evals run` runs it as is.
    expect(environment.configs[0]?.model).toBe('paperclip-deterministic-1');
    expect(environment.pricing?.version).toBe('2026-11-01');
    expect(Object.keys(environment.pricing?.models ?? {})).toEqual(['paperclip-deterministic-1']);
    expect(environment.cases[0]?.checks?.[0]?.id).toBe('result-proposed');
  });

  it('the starter comments carry values, not template placeholders left unsubstituted', () => {
    const text = starterEnvironment();
    expect(text).not.toMatch(/\$\{|\bundefined\b|\bNaN\b/);
    expect(text).toContain('(at most 6 decimals)');
  });

  it('loads JSON', async () => {
    const path = join(dir, 'evalbook.json');
    await writeFile(
      path,
      JSON.stringify({ schema: 'paperclip-evals/environment/v1', name: 'x', cases: [], configs: [] }),
    );
    expect((await loadEnvironment(path)).name).toBe('x');
  });

  it('reads a file of any size up to the limit whole (a buffer of its size), and refuses one over it', async () => {
    const json = JSON.stringify({
      schema: 'paperclip-evals/environment/v1',
      name: 'x',
      cases: [],
      configs: [],
    });
    // Exactly at the limit (trailing whitespace is JSON), then a byte over.
    const atLimit = json + ' '.repeat(ENVIRONMENT_MAX_BYTES - json.length);
    await writeFile(join(dir, 'at-limit.json'), atLimit);
    expect((await loadEnvironment(join(dir, 'at-limit.json'))).name).toBe('x');
    expect(await issuesOf('over-limit.json', `${atLimit} `)).toEqual([
      { code: 'environment_too_large', path: '' },
    ]);
  });

  it('refuses a duplicate YAML key', async () => {
    const issues = await issuesOf(
      'dup.yaml',
      starterEnvironment().replace('name: my-suite', 'name: my-suite\nname: again'),
    );
    expect(issues.map((issue) => issue.code)).toContain('yaml_duplicate_key');
    // The key by name, never the value after it.
    const full = await fullIssuesOf(
      'dup.yaml',
      starterEnvironment().replace('name: my-suite', 'name: my-suite\nname: again'),
    );
    expect(full.find((issue) => issue.code === 'yaml_duplicate_key')?.message).toMatch(
      /^the key 'name' appears twice in one mapping \(the second at line \d+\): keep one$/,
    );
  });

  it.each([
    ['a quoted key', '"api_key": one\n"api_key": sk-live-abcdefghijklmnopqrstuvwx\n', `'"api_key"'`],
    ['a nested key', 'cases:\n  - id: a\n    id: b\n', `'id'`],
    ['a key with spaces', 'my key: 1\nmy key: 2\n', `'my key'`],
  ])('names %s that appears twice, and no value', async (_label, text, shown) => {
    const issues = await fullIssuesOf('dup.yaml', text);
    const message = issues.find((issue) => issue.code === 'yaml_duplicate_key')?.message ?? '';
    expect(message).toContain(`the key ${shown} appears twice`);
    expect(JSON.stringify(issues)).not.toMatch(/sk-live|: 2|id: b/);
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
      .replace('model: paperclip-deterministic-1', 'model: paperclip-deterministic-1\n    colour: blue')
      .replace(/sha256: sha256:0{64}\n {4}checks/, 'sha256: nope\n    checks')
      .replace('inputPerMillionUsd: 2.5', 'inputPerMillionUsd: -3');
    const issues = await issuesOf('schema.yaml', text);
    const paths = issues.map((issue) => issue.path);
    expect(paths).toContain('/configs/0/colour');
    expect(paths).toContain('/cases/0/sha256');
    expect(paths).toContain('/pricing/models/paperclip-deterministic-1/inputPerMillionUsd');
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
      .replace('inputPerMillionUsd: 2.5', 'inputPerMillionUsd: 0.0000001')
      .replace(
        'configs:\n',
        'configs:\n  - id: config_example\n    sha256: sha256:' +
          '1'.repeat(64) +
          '\n    model: m\n    driver: d\n',
      );
    const issues = await issuesOf('semantic.yaml', text);
    expect(issues).toEqual([
      { code: 'environment_duplicate_id', path: '/configs/1/id' },
      {
        code: 'environment_price_precision',
        path: '/pricing/models/paperclip-deterministic-1/inputPerMillionUsd',
      },
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

describe('campaign members (evals run): additive, each refused when wrong', () => {
  const base = {
    schema: 'paperclip-evals/environment/v1',
    name: 'campaign',
    cases: [{ id: 'c1', sha256: `sha256:${'a'.repeat(64)}`, prompt: 'Do it.' }],
    configs: [
      {
        id: 'k1',
        sha256: `sha256:${'b'.repeat(64)}`,
        model: 'm',
        driver: 'd',
        lane: { provider: 'codex' },
        limits: { turn_timeout_ms: 1000, max_agent_turns: 2, max_estimated_cost_usd: 0.5 },
      },
    ],
    campaign: { attempts: 2, max_infrastructure_retries: 1, max_cost_usd: 5, max_parallel: 4 },
  };
  type Doc = typeof base & Record<string, unknown>;
  const load = (name: string, doc: unknown): Promise<{ code: string; path?: string }[]> =>
    issuesOf(name, JSON.stringify(doc));

  it('loads the starter with its lane, limits and campaign, and the same environment without them', async () => {
    await writeFile(join(dir, 'starter.yaml'), starterEnvironment());
    const starter = await loadEnvironment(join(dir, 'starter.yaml'));
    expect(starter.configs[0]?.lane).toEqual({ provider: 'paperclip_deterministic', enabled: true });
    expect(starter.configs[0]?.limits?.turn_timeout_ms).toBe(120000);
    expect(starter.campaign?.max_infrastructure_retries).toBe(1);
    expect(starter.cases[0]?.prompt).toMatch(/incident review/);
    expect(await load('campaign.json', base)).toEqual([]);
    const { campaign: _campaign, ...old } = base;
    const oldConfigs = base.configs.map(({ lane: _lane, limits: _limits, ...config }) => config);
    const oldCases = base.cases.map(({ prompt: _prompt, ...entry }) => entry);
    expect(await load('old.json', { ...old, configs: oldConfigs, cases: oldCases })).toEqual([]);
  });

  const config = (change: Record<string, unknown>): Doc => ({
    ...base,
    configs: [{ ...base.configs[0]!, ...change }],
  });
  const limits = (change: Record<string, unknown>): Record<string, unknown> => ({
    limits: { turn_timeout_ms: 1000, max_agent_turns: 2, ...change },
  });
  it.each([
    [
      'max_infrastructure_retries above 3',
      { ...base, campaign: { max_infrastructure_retries: 4 } },
      '/campaign/max_infrastructure_retries',
    ],
    [
      'negative retries',
      { ...base, campaign: { max_infrastructure_retries: -1 } },
      '/campaign/max_infrastructure_retries',
    ],
    ['zero attempts', { ...base, campaign: { attempts: 0 } }, '/campaign/attempts'],
    ['zero max_parallel', { ...base, campaign: { max_parallel: 0 } }, '/campaign/max_parallel'],
    ['a negative ceiling', { ...base, campaign: { max_cost_usd: -1 } }, '/campaign/max_cost_usd'],
    [
      'a ceiling of zero (it runs nothing)',
      { ...base, campaign: { max_cost_usd: 0 } },
      '/campaign/max_cost_usd',
    ],
    ['an unknown campaign member', { ...base, campaign: { retries: 1 } }, '/campaign/retries'],
    ['a lane without provider', config({ lane: { model: 'm' } }), '/configs/0/lane/provider'],
    [
      'a lane enabled: "no"',
      config({ lane: { provider: 'codex', enabled: 'no' } }),
      '/configs/0/lane/enabled',
    ],
    [
      'both cost limits',
      config(limits({ max_estimated_cost_usd: 1, max_estimated_cost_nanodollars: 5 })),
      '/configs/0/limits',
    ],
    ['no cost limit', config(limits({})), '/configs/0/limits'],
    [
      'a zero turn timeout',
      config(limits({ turn_timeout_ms: 0, max_estimated_cost_usd: 1 })),
      '/configs/0/limits/turn_timeout_ms',
    ],
    [
      'a fractional agent-turn limit',
      config(limits({ max_agent_turns: 1.5, max_estimated_cost_usd: 1 })),
      '/configs/0/limits/max_agent_turns',
    ],
    ['a blank prompt', { ...base, cases: [{ ...base.cases[0]!, prompt: '  ' }] }, '/cases/0/prompt'],
  ])('refuses %s', async (_label, doc, path) => {
    const issues = await load('bad.json', doc);
    expect(issues.map((issue) => issue.path)).toContain(path);
  });
});

describe('an unknown key is located at the key, at every level of the environment', () => {
  // Every object of the environment schema that allows no other member, by where the starter has one.
  const objects: readonly (readonly (string | number)[])[] = [
    [],
    ['campaign'],
    ['budgets'],
    ['report'],
    ['pricing'],
    ['pricing', 'models', 'paperclip-deterministic-1'],
    ['cases', 0],
    ['cases', 0, 'checks', 0],
    ['configs', 0],
    ['configs', 0, 'lane'],
    ['configs', 0, 'limits'],
  ];
  const withKey = (at: readonly (string | number)[], key: string): unknown => {
    const doc = parseYaml(starterEnvironment()) as Record<string, unknown>;
    let object = doc as Record<string | number, unknown>;
    for (const token of at) object = object[token] as Record<string | number, unknown>;
    object[key] = 1;
    return doc;
  };
  const unknownKeyPaths = async (doc: unknown): Promise<(string | undefined)[]> =>
    (await fullIssuesOf('unknown-key.json', JSON.stringify(doc)))
      .filter((issue) => issue.message.includes('which the schema does not allow'))
      .map((issue) => issue.path);

  it.each(objects.map((at) => [pointer(...at) || '(root)', at] as const))(
    'an unknown key in %s is at its own path',
    async (_where, at) => {
      expect(await unknownKeyPaths(withKey(at, 'lanez'))).toEqual([pointer(...at, 'lanez')]);
    },
  );

  it('property: any unknown key name (with / and ~ escaped) at any level is its own path, once', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...objects),
        fc.stringMatching(/^[a-z~/]{1,8}$/).map((name) => `x_${name}`),
        async (at, key) => {
          expect(await unknownKeyPaths(withKey(at, key))).toEqual([pointer(...at, key)]);
        },
      ),
      { numRuns: 60 },
    );
  });
});
