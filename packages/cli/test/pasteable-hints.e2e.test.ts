// Every command Evals prints for the user to paste works when pasted: `init`'s next steps and
// `publish`'s "check it before uploading" line quote each path (contract's shellCommand), so a path
// with spaces, quotes or non-ASCII letters reads back through `sh` as the one argument it is; and
// `init -` (or /dev/stdout), which writes no file, never tells the user to pass `--env -` — its steps
// name the file to save it as. Each printed command is parsed by a real `sh`.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { syntheticAttempt } from '@paperclip-evals/test-kit/synthetic';
import { evalsInProcess } from './support/evals-in-process.ts';

let dir: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'evals-pasteable-hints-'));
  mkdirSync(join(dir, 'runs'));
  writeFileSync(join(dir, 'runs', 'a.json'), JSON.stringify(syntheticAttempt({ attemptId: 'a' })));
  expect((await evalsInProcess(['ingest', 'runs', '--store', 'sqlite:book.sqlite'], dir)).status).toBe(0);
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** The words `sh` reads from a printed command line. */
function words(line: string): string[] {
  const result = spawnSync('sh', ['-c', `printf '%s\\0' ${line}`], { encoding: 'utf8' });
  expect(result.status, result.stderr).toBe(0);
  return result.stdout.split('\0').slice(0, -1);
}

/** The `evals …` commands of init's numbered steps. */
const stepCommands = (text: string): string[][] =>
  [...text.matchAll(/^ {2}\d\. (evals .*?)(?: {3}\(.*)?$/gm)].map((match) => words(match[1] ?? ''));

describe("init's next steps", () => {
  it.each([['env with spaces ü.yaml'], ["it's.yaml"], ['plain.yaml']])(
    'for %j each step names that very file',
    async (file) => {
      const result = await evalsInProcess(['init', file], dir);
      expect(result.status, result.stderr).toBe(0);
      const steps = stepCommands(result.stdout);
      expect(steps).toHaveLength(3);
      for (const step of steps) expect(step[step.indexOf('--env') + 1]).toBe(file);
    },
  );

  it.each([['-'], ['/dev/stdout']])(
    'init %s: the steps name a file to save it as, never --env -',
    async (target) => {
      const result = await evalsInProcess(['init', target], dir);
      expect(result.status, result.stderr).toBe(0);
      expect(result.stderr).toContain('Next:');
      expect(result.stderr).toContain('Save it as a file first (evals init evalbook.yaml');
      const steps = stepCommands(result.stderr);
      expect(steps).toHaveLength(3);
      for (const step of steps) expect(step[step.indexOf('--env') + 1]).toBe('evalbook.yaml');
      expect(result.stderr).not.toMatch(/--env (-|\/dev\/stdout)\b/);
    },
  );
});

describe("publish's --verify hint", () => {
  it('quotes the site: pasted, it names the folder that was written', async () => {
    const site = 'dir with spaces ü/site';
    mkdirSync(join(dir, 'dir with spaces ü'));
    const result = await evalsInProcess(['publish', '--store', 'sqlite:book.sqlite', '--out', site], dir);
    expect(result.status, result.stderr).toBe(0);
    const hint = /check it before uploading: (.*)$/m.exec(result.stdout)?.[1] ?? '';
    expect(words(hint)).toEqual(['evals', 'publish', '--verify', site]);
    expect((await evalsInProcess(words(hint).slice(1), dir)).status).toBe(0);
  });
});
