// A password in a path or locator the user gave as an input (a positional argument, not --store) is
// never echoed: every command that names its inputs back (ingest, validate, digest, merge, view,
// runnerd inspect, policy replay), in its human text and its --json, shows the locator with the
// password masked (contract's maskSecrets, applied by print.ts to every line and JSON document, with
// the secrets of the process's own argv). The real binary: what it masks depends on its argv.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const EVALS = join(ROOT, 'packages/cli/bin/evals.js');
/** A password a URL parser reads only in part (an unencoded `@` and `/`): masked whole from argv. */
const PASSWORD = 'Pw9@x/zq';
const URL_INPUT = `postgres://u:${PASSWORD}@h/db`;
const QUERY_INPUT = 'https://h.example/x.json?password=Qy7secret';
const SHA = `sha256:${'0'.repeat(64)}`;

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'evals-positional-secrets-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

const ROWS: [string, string[]][] = [
  ['ingest', ['ingest', URL_INPUT, QUERY_INPUT, '--store', 'sqlite:x.sqlite']],
  ['ingest --json', ['ingest', URL_INPUT, QUERY_INPUT, '--store', 'sqlite:x.sqlite', '--json']],
  ['validate', ['validate', URL_INPUT, QUERY_INPUT]],
  ['validate --json', ['validate', URL_INPUT, QUERY_INPUT, '--json']],
  ['digest', ['digest', URL_INPUT, QUERY_INPUT]],
  ['digest --json', ['digest', URL_INPUT, QUERY_INPUT, '--json']],
  ['merge', ['merge', URL_INPUT, '--out', 'merged.json']],
  ['view', ['view', URL_INPUT]],
  ['runnerd inspect', ['runnerd', 'inspect', '--path', URL_INPUT, '--sha256', SHA]],
];

describe('when an input path holds a password', () => {
  it.each(ROWS)('%s never prints it (human and JSON), and shows the input masked', (_, args) => {
    const result = spawnSync(process.execPath, [EVALS, ...args], {
      cwd: dir,
      encoding: 'utf8',
      timeout: 30_000,
    });
    const printed = `${result.stdout}\n${result.stderr}`;
    expect(result.status, printed).not.toBe(0);
    for (const secret of [PASSWORD, encodeURIComponent(PASSWORD), 'Qy7secret', 'zq'])
      expect(printed).not.toContain(secret);
    expect(printed).toContain('u:***@h/db');
  });
});

// A provider key pasted where an argument goes (after --pass-env's name, as a run id, as a digest) is
// echoed by the usage error that refuses it: it is masked by its shape (`sk-proj-…`, `ghp_…`) and,
// when --pass-env names the variable that holds it, by its value whatever its shape.
const KEY = 'sk-proj-Zx9aB3cD4eF5gH6iJ7kL8mN9oP0qR1sT2uV3wX4yZ5aB6cD7';
const TOKEN = 'ghp_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';
const PLAIN = 'plain-looking-secret-42';
const KEYED: [string, string[], Record<string, string>, string][] = [
  [
    'a key after --pass-env NAME',
    ['run', '--plan', '--pass-env', 'OPENAI_API_KEY', KEY],
    { OPENAI_API_KEY: KEY },
    KEY,
  ],
  [
    'the same, --json',
    ['run', '--plan', '--pass-env', 'OPENAI_API_KEY', KEY, '--json'],
    { OPENAI_API_KEY: KEY },
    KEY,
  ],
  ['a GitHub token as a run id', ['grid', '--run', TOKEN, '--store', 'sqlite:none.sqlite'], {}, TOKEN],
  ['a key as a digest', ['runnerd', 'inspect', '--path', 'x', '--sha256', KEY], {}, KEY],
  [
    'a value of no known shape that --pass-env names',
    ['run', '--plan', `--pass-env=MY_TOKEN`, PLAIN],
    { MY_TOKEN: PLAIN },
    PLAIN,
  ],
];

describe('when a key is pasted as an argument', () => {
  it.each(KEYED)('%s: never printed', (_, args, env, secret) => {
    const result = spawnSync(process.execPath, [EVALS, ...args], {
      cwd: dir,
      encoding: 'utf8',
      timeout: 30_000,
      env: { ...process.env, ...env },
    });
    const printed = `${result.stdout}\n${result.stderr}`;
    expect(result.status, printed).not.toBe(0);
    expect(printed).not.toContain(secret);
    expect(printed).not.toContain(secret.slice(8, 24));
  });
});
