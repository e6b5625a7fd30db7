// Every way an environment file can be bad, for `report`, `grid` and `ingest --env`: each ends in
// exit 2 with the contract's coded document error and the issue code that names what is wrong (never
// exit 70 with a stack trace, never exit 1, which means "refused" or "gate failed"). Every row runs
// the binary's main() in-process (support/evals-in-process.ts); one row per command runs the real
// `evals` binary, to show the process answers the same.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { syntheticAttempt } from '@paperclip-evals/test-kit/synthetic';
import { evalsInProcess } from './support/evals-in-process.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const EVALS = join(ROOT, 'node_modules/.bin/evals');
const HEAD = 'schema: paperclip-evals/environment/v1\nname: x\ncases: []\nconfigs: []\n';

/** Each bad environment file: its name, its bytes (null: a directory; undefined: missing) and the issue code. */
const BAD: readonly { name: string; bytes: string | Buffer | null | undefined; issue: string }[] = [
  {
    name: 'aliases.yaml',
    bytes: `${HEAD}base: &a [1]\nlots: [${Array.from({ length: 150 }, () => '*a').join(', ')}]\n`,
    issue: 'yaml_alias_limit',
  },
  { name: 'self-anchor.yaml', bytes: `${HEAD}loop: &b [*b]\n`, issue: 'yaml_alias_cycle' },
  { name: 'self-map.yaml', bytes: `${HEAD}loop: &m { me: *m }\n`, issue: 'yaml_alias_cycle' },
  { name: 'unknown-alias.yaml', bytes: `${HEAD}x: *nowhere\n`, issue: 'yaml_' },
  { name: 'duplicate.yaml', bytes: `${HEAD}name: y\n`, issue: 'yaml_duplicate_key' },
  { name: 'tag.yaml', bytes: `${HEAD}x: !custom 1\n`, issue: 'yaml_' },
  { name: 'two-docs.yaml', bytes: `${HEAD}---\na: 1\n`, issue: 'yaml_multiple_docs' },
  { name: 'syntax.yaml', bytes: 'schema: [\n', issue: 'yaml_' },
  { name: 'deep.yaml', bytes: `a: ${'['.repeat(100_000)}${']'.repeat(100_000)}\n`, issue: 'yaml_' },
  { name: 'nested.yaml', bytes: `a: ${'['.repeat(80)}${']'.repeat(80)}\n`, issue: 'yaml_too_deep' },
  {
    name: 'not-utf8.yaml',
    bytes: Buffer.concat([
      Buffer.from('schema: paperclip-evals/environment/v1\nname: '),
      Buffer.from([0xff, 0xfe, 0x0a]),
    ]),
    issue: 'text_not_utf8',
  },
  { name: 'huge.yaml', bytes: `name: ${'x'.repeat(5 * 1024 * 1024)}\n`, issue: 'environment_too_large' },
  { name: 'folder.yaml', bytes: null, issue: 'environment_not_a_file' },
  { name: 'missing.yaml', bytes: undefined, issue: 'environment_unreadable' },
  { name: 'schema.yaml', bytes: 'schema: paperclip-evals/environment/v1\n', issue: 'environment_schema' },
  { name: 'syntax.json', bytes: '{"schema": 1,, }', issue: 'json_syntax' },
  { name: 'not-utf8.json', bytes: Buffer.from([0x7b, 0xff, 0x7d]), issue: 'text_not_utf8' },
  { name: 'duplicate.json', bytes: '{"name": "a", "name": "b"}', issue: 'json_duplicate_key' },
];

let dir: string;
const spawned = (args: string[]) => spawnSync(EVALS, args, { cwd: dir, encoding: 'utf8' });
const run = (args: string[]) => evalsInProcess(args, dir);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'evals-bad-env-'));
  mkdirSync(join(dir, 'runs'));
  writeFileSync(join(dir, 'runs', 'a0.json'), JSON.stringify(syntheticAttempt({ attemptId: 'a0' })));
  expect((await run(['ingest', 'runs', '--store', 'sqlite:book.sqlite'])).status).toBe(0);
  for (const { name, bytes } of BAD)
    if (bytes === null) mkdirSync(join(dir, name));
    else if (bytes !== undefined) writeFileSync(join(dir, name), bytes);
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

const COMMANDS: readonly [string, (env: string) => string[]][] = [
  ['report', (env) => ['report', '--env', env, '--store', 'sqlite:book.sqlite', '--format', 'json']],
  ['grid', (env) => ['grid', '--env', env, '--store', 'sqlite:book.sqlite', '--json']],
  ['ingest --env', (env) => ['ingest', 'runs', '--env', env, '--store', 'sqlite:other.sqlite', '--json']],
];

function expectCodedExit2(result: { status: number | null; stderr: string }, issue: string): void {
  expect(result.stderr).toContain('paperclip_contract_document_invalid');
  expect(result.stderr).toContain(issue);
  expect(result.stderr).not.toMatch(/\n\s+at /);
  expect(result.status).toBe(2);
}

describe('a bad environment file is a coded error with exit 2', () => {
  for (const [command, argsOf] of COMMANDS)
    it.each(BAD)(`${command}: $name → $issue`, async ({ name, issue }) => {
      expectCodedExit2(await run(argsOf(name)), issue);
    });
});

describe('the real evals binary answers the same', () => {
  const { name, issue } = BAD.find((bad) => bad.name === 'duplicate.yaml')!;
  for (const [command, argsOf] of COMMANDS)
    it(`${command}: ${name} → ${issue}`, () => {
      expectCodedExit2(spawned(argsOf(name)), issue);
    });
});
