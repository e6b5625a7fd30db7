// The child processes of a qualification: which pnpm runs and the small environment it gets (nothing
// of the workspace, no secrets). The bounded run itself is @paperclip-evals/node's (its tests there).
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

import { consumerIsolationIssues } from '../src/consumer.ts';
import { pnpmCommand, pnpmEnvironment, sanitizedPath } from '../src/processes.ts';

describe('pnpmCommand', () => {
  it('prefers PAPERCLIP_EVALS_PNPM, split on spaces', () => {
    expect(
      pnpmCommand({ PAPERCLIP_EVALS_PNPM: ' /opt/pnpm  --silent ', npm_execpath: '/x/pnpm.cjs' }),
    ).toEqual(['/opt/pnpm', '--silent']);
  });

  it.each(['pnpm.cjs', 'pnpm.js', 'pnpm.mjs'])(
    'runs the pnpm running us when npm_execpath is its %s',
    (file) => {
      expect(pnpmCommand({ npm_execpath: `/usr/lib/pnpm/bin/${file}` }, '/usr/bin/node')).toEqual([
        '/usr/bin/node',
        `/usr/lib/pnpm/bin/${file}`,
      ]);
    },
  );

  it('falls back to npx -y pnpm@12.4.2 (npm_execpath naming npm does not count)', () => {
    expect(pnpmCommand({ npm_execpath: '/usr/lib/node_modules/npm/bin/npm-cli.js' })).toEqual([
      'npx',
      '-y',
      'pnpm@12.4.2',
    ]);
    expect(pnpmCommand({})).toEqual(['npx', '-y', 'pnpm@12.4.2']);
  });
});

describe('pnpmEnvironment', () => {
  it('passes the store, cache and config locations, and nothing else of ours', () => {
    const env = pnpmEnvironment({
      PATH: '/repo/node_modules/.bin:/usr/local/bin:/usr/bin:/home/user/.npm/_npx/abc/node_modules/.bin',
      HOME: '/root',
      XDG_DATA_HOME: '/data',
      npm_config_store_dir: '/store',
      NODE_OPTIONS: '--require /repo/hook.js',
      NODE_PATH: '/repo/node_modules',
      NPM_TOKEN: 'secret',
      CI: 'true',
      npm_config_user_agent: 'pnpm/12.4.2',
    });
    expect(env).toEqual({
      PATH: '/usr/local/bin:/usr/bin',
      HOME: '/root',
      XDG_DATA_HOME: '/data',
      npm_config_store_dir: '/store',
    });
  });

  it('drops empty PATH entries too', () => {
    expect(sanitizedPath('::/bin:')).toBe('/bin');
    expect(sanitizedPath(undefined)).toBe('');
  });
});

describe('consumerIsolationIssues', () => {
  it('flags a package.json or node_modules above the consumer', async () => {
    const root = await mkdtemp(join(tmpdir(), 'qualification-isolation-'));
    try {
      await writeFile(join(root, 'package.json'), '{}');
      await mkdir(join(root, 'node_modules'));
      const issues = await consumerIsolationIssues(join(root, 'work', 'consumer'));
      expect(issues.map((issue) => [issue.code, issue.received])).toEqual([
        ['consumer_not_isolated', join(root, 'node_modules')],
        ['consumer_not_isolated', join(root, 'package.json')],
      ]);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});
