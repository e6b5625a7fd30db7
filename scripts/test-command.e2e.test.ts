// The README's test command (`scripts/test-command.mjs`) run over a stand-in workspace: a copy of the
// script beside a package.json whose build, typecheck and format check are shell one-liners, a
// tools/lint package whose lint is one, and a `vitest` on the workspace's node_modules/.bin that
// prints lines and exits as told. What it must show: the exit code of the first failing step in the
// order build, typecheck, format:check, lint, vitest; a failing build runs nothing else; a failing
// check stops vitest (its whole process group); vitest's summary is the last line when all passed;
// the arguments after `--` reach `vitest run`.
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { afterEach, describe, expect, it } from 'vitest';

import { goneWithin } from '@paperclip-evals/test-kit/processes';

const SCRIPT = fileURLToPath(new URL('./test-command.mjs', import.meta.url));

interface Steps {
  readonly build?: string;
  readonly typecheck?: string;
  readonly format?: string;
  readonly lint?: string;
  /** The stand-in vitest's body (sh); it may read $MARKS, a folder to leave files in. */
  readonly vitest?: string;
}

const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

/** A stand-in workspace with these steps; returns its folder and the folder the steps mark. */
function workspace(steps: Steps): { root: string; marks: string } {
  const root = mkdtempSync(join(tmpdir(), 'test-command-'));
  folders.push(root);
  const marks = join(root, 'marks');
  mkdirSync(marks);
  mkdirSync(join(root, 'scripts'));
  copyFileSync(SCRIPT, join(root, 'scripts', 'test-command.mjs'));
  const scripts = {
    build: steps.build ?? 'echo built',
    typecheck: steps.typecheck ?? 'true',
    'format:check': steps.format ?? 'true',
  };
  writeFileSync(join(root, 'package.json'), JSON.stringify({ type: 'module', scripts }));
  mkdirSync(join(root, 'tools', 'lint'), { recursive: true });
  writeFileSync(
    join(root, 'tools', 'lint', 'package.json'),
    JSON.stringify({ scripts: { lint: steps.lint ?? 'true' } }),
  );
  const bin = join(root, 'node_modules', '.bin');
  mkdirSync(bin, { recursive: true });
  const vitest = join(bin, 'vitest');
  writeFileSync(
    vitest,
    `#!/bin/sh\necho "$@" > "$MARKS/vitest-args"\n${steps.vitest ?? 'echo " RUN  tests"; echo "3 passed, 0 failed"'}\n`,
  );
  chmodSync(vitest, 0o755);
  return { root, marks };
}

function run(root: string, marks: string, args: readonly string[] = []) {
  const started = Date.now();
  const result = spawnSync(process.execPath, [join(root, 'scripts', 'test-command.mjs'), ...args], {
    cwd: root,
    env: { ...process.env, MARKS: marks },
    encoding: 'utf8',
    timeout: 60_000,
  });
  const lines = result.stdout.split('\n').filter((line) => line.trim() !== '');
  return { status: result.status, stdout: result.stdout, lines, seconds: (Date.now() - started) / 1000 };
}

describe('the README test command (scripts/test-command.mjs)', () => {
  it('when every step passes: exit 0, the checks reported, vitest’s summary the last line', () => {
    const { root, marks } = workspace({});
    const result = run(root, marks);
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('built');
    for (const name of ['typecheck', 'format:check', 'lint'])
      expect(result.stdout).toMatch(new RegExp(`test: ${name} passed in`));
    expect(result.lines.at(-1)).toBe('3 passed, 0 failed');
  });

  it('passes the arguments after -- to `vitest run`', () => {
    const { root, marks } = workspace({});
    expect(run(root, marks, ['--', '--project', 'unit', 'a b.test.ts']).status).toBe(0);
    expect(readFileSync(join(marks, 'vitest-args'), 'utf8').trim()).toBe('run --project unit a b.test.ts');
  });

  it('a failing build: its exit code, and nothing else runs', () => {
    const { root, marks } = workspace({
      build: 'echo broken; exit 4',
      typecheck: 'touch "$MARKS/typecheck"',
    });
    const result = run(root, marks);
    expect(result.status).toBe(4);
    expect(result.stdout).toContain('nothing else ran');
    expect(existsSync(join(marks, 'typecheck'))).toBe(false);
    expect(existsSync(join(marks, 'vitest-args'))).toBe(false);
  });

  it('a failing check stops vitest’s whole process group and gives the check’s exit code', async () => {
    const { root, marks } = workspace({
      lint: 'sleep 1; echo "lint: 1 problem"; exit 2',
      // vitest and a child of its own that would outlive it if only vitest were killed.
      vitest: `sh -c 'echo $$ > "$MARKS/child-pid"; sleep 30' & sleep 30; touch "$MARKS/vitest-finished"`,
    });
    const result = run(root, marks);
    expect(result.status).toBe(2);
    expect(result.seconds).toBeLessThan(25);
    expect(result.stdout).toContain('lint: 1 problem');
    expect(result.lines.at(-1)).toMatch(/^test: FAILED: lint \(output above\); vitest was stopped$/);
    expect(existsSync(join(marks, 'vitest-finished'))).toBe(false);
    // The group was killed, not only vitest: its child is gone too.
    const child = Number(readFileSync(join(marks, 'child-pid'), 'utf8'));
    expect(await goneWithin(child)).toBe(true);
  });

  it('two failing checks: the exit code of the first in the order typecheck, format:check, lint', () => {
    const { root, marks } = workspace({ typecheck: 'sleep 1; exit 3', lint: 'exit 2' });
    const result = run(root, marks);
    expect(result.status).toBe(3);
    expect(result.lines.at(-1)).toMatch(/^test: FAILED: typecheck, lint \(output above\); vitest /);
  });

  it('a failing vitest with passing checks: vitest’s exit code, named last', () => {
    const { root, marks } = workspace({ vitest: 'echo "1 passed, 1 failed"; exit 1' });
    const result = run(root, marks);
    expect(result.status).toBe(1);
    expect(result.stdout).toContain('1 passed, 1 failed');
    expect(result.lines.at(-1)).toMatch(/^test: vitest FAILED \(exit 1\) after /);
  });
});
