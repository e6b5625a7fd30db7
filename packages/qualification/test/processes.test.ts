// The child processes of a qualification: which pnpm runs, the small environment it gets (nothing of
// the workspace, no secrets), and bounded runs that are killed — with everything they started — on
// timeout or oversized output, and report a command that cannot start; stdin carries a given text.
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { consumerIsolationIssues, pnpmCommand, pnpmEnvironment, sanitizedPath } from '../src/index.ts';
import { runBounded, runFailure } from '../src/processes.ts';

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

/** False for a process that is gone or a zombie (killed, not yet reaped by init). */
async function isRunning(pid: number): Promise<boolean> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

describe('runBounded', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'qualification-processes-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const sh = (script: string, timeoutMs = 5000, maxStdoutBytes = 1024) =>
    runBounded({ command: '/bin/sh', args: ['-c', script], cwd: dir, env: {}, timeoutMs, maxStdoutBytes });

  it('returns stdout and the exit code, with an empty environment', async () => {
    const result = await sh('printf "%s|%s" "${HOME:-none}" "$PWD"; exit 3');
    expect(result.stdout.toString()).toBe(`none|${dir}`);
    expect(runFailure(result, 5000)).toBe('exited with code 3');
  });

  it('writes the given stdin and closes it; without one, stdin is at its end at once', async () => {
    const echoed = await runBounded({
      command: '/bin/cat',
      args: [],
      cwd: dir,
      env: {},
      timeoutMs: 5000,
      maxStdoutBytes: 1024,
      stdin: 'nonce\n',
    });
    expect(echoed.stdout.toString()).toBe('nonce\n');
    expect((await sh('cat; echo end')).stdout.toString()).toBe('end\n');
  });

  it('kills the whole group on timeout, so nothing it started survives', async () => {
    const pids = join(dir, 'pids');
    const result = await sh(`/bin/sleep 30 & echo $! > ${pids}; /bin/sleep 30`, 300);
    expect(result.timedOut).toBe(true);
    const background = Number((await readFile(pids, 'utf8')).trim());
    await new Promise((done) => setTimeout(done, 100));
    expect(await isRunning(background)).toBe(false);
  });

  it('kills a process that prints more than its cap', async () => {
    const result = await sh('while :; do echo 0123456789; done', 5000, 4096);
    expect(result.stdoutOverflow).toBe(true);
    expect(runFailure(result, 5000)).toMatch(/output limit/);
  });

  it('reports a command that cannot start', async () => {
    const result = await runBounded({
      command: join(dir, 'no-such-command'),
      args: [],
      cwd: dir,
      env: {},
      timeoutMs: 1000,
      maxStdoutBytes: 10,
    });
    expect(runFailure(result, 1000)).toMatch(/could not be started/);
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
