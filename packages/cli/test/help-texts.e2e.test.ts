// What --help says is what the commands do. The review found `qualify --help` naming three of the
// four files a release directory must hold (release-layout also requires the App's
// paperclip-runner-consumer-conformance.json), `negotiate --help` and `runnerd inspect --help` with
// no examples, `negotiate --help` not saying that an invalid document exits 2, and `validate --help`
// and the top-level help describing only native-execution/v1 bundles.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { RELEASE_FILES } from '../../qualification/src/release-files.ts';
import { readReleaseLayout } from '../../qualification/src/release-dir.ts';
import { EVALS_BIN, REPO_ROOT } from '@paperclip-evals/test-kit/repo';

let dir: string;
const run = (args: readonly string[]) =>
  spawnSync(process.execPath, [EVALS_BIN, ...args], { cwd: dir, encoding: 'utf8', timeout: 30_000 });
/** Help text with commander's line wrapping undone. */
const help = (args: readonly string[]): string => {
  const result = run([...args, '--help']);
  expect(result.status).toBe(0);
  return result.stdout.replace(/\s+/g, ' ');
};

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'evals-help-texts-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('qualify --help', () => {
  it('names every file release-layout requires, from the one list', async () => {
    const text = help(['qualify']);
    for (const file of RELEASE_FILES) expect(text).toContain(file.name);
    expect(text).toContain('paperclip-runner-consumer-conformance.json');
    // The list is the layout's: an empty directory lacks exactly one thing per listed file.
    expect((await readReleaseLayout(dir)).issues).toHaveLength(RELEASE_FILES.length);
  });
});

describe.each([['negotiate'], ['runnerd', 'inspect']])('%s %s --help', (...command) => {
  it('has Examples, each an evals command line', () => {
    const text = run([...command.filter(Boolean), '--help']).stdout;
    expect(text).toContain('\nExamples:\n');
    expect(text.split('Examples:\n')[1]).toMatch(
      new RegExp(`^ +\\$ evals ${command.filter(Boolean).join(' ')} `),
    );
  });
});

describe('negotiate', () => {
  it('--help says an invalid input document exits 2, and it does', () => {
    expect(help(['negotiate'])).toMatch(/2 usage, an unreadable input or an invalid input document/);
    writeFileSync(join(dir, 'bad.json'), '{"schema":"nope"}');
    const examples = join(REPO_ROOT, 'examples/negotiate');
    const result = run([
      'negotiate',
      '--package-metadata',
      'bad.json',
      '--requirements',
      join(examples, 'requirements.json'),
      '--catalog',
      join(examples, 'semantic-catalog.json'),
      '--runnerd',
      process.execPath,
      '--runnerd-sha256',
      `sha256:${'0'.repeat(64)}`,
    ]);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('paperclip_contract_document_invalid');
  });
});

describe('validate', () => {
  it('--help and the top-level help say it validates eval-session artifacts too', () => {
    expect(help(['validate'])).toContain('paperclip-runner/eval-session-artifact/v1');
    expect(help([])).toMatch(/validate .*eval-session artifacts/);
  });
});
