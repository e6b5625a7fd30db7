// `evals qualify` says what it is doing while it works. The review found it silent on a terminal
// for 8-15 s, then the whole table at once, and Ctrl-C exiting 130 with no word. On a terminal
// (stderr a TTY, run under `script` for a pseudo-terminal) a progress line names the check running
// and a line per check appears as it is decided, before the table; not on a terminal, or with
// --json, nothing extra is written; Ctrl-C (SIGINT) during the consumer install says it was
// interrupted and cleaned up, then exits 130.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { buildFakeRelease, TARBALL_NAME } from '@paperclip-evals/test-kit/fake-release';
import { writeExecutable } from '@paperclip-evals/test-kit/producers';
import { EVALS_BIN } from '@paperclip-evals/test-kit/repo';

let dir: string;
let release: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'evals-qualify-progress-'));
  // A release whose tarball fails its digest: qualification decides every check in a second or two.
  release = (await buildFakeRelease(join(dir, 'release'))).dir;
  const sums = join(release, 'SHA256SUMS');
  const text = await readFile(sums, 'utf8');
  await writeFile(
    sums,
    text
      .split('\n')
      .map((line) =>
        line.endsWith(`  ${TARBALL_NAME}`) ? `${line[0] === '0' ? '1' : '0'}${line.slice(1)}` : line,
      )
      .join('\n'),
  );
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const shQuote = (text: string): string => `'${text.replaceAll("'", `'\\''`)}'`;

/**
 * The CLI with stderr on a pseudo-terminal (`script`) and stdout to a file: the terminal's text
 * (stderr, colours taken out) and the file's.
 */
function onTerminal(args: readonly string[]): { status: number | null; stderr: string; stdout: string } {
  const command = [process.execPath, EVALS_BIN, ...args].map(shQuote).join(' ');
  const out = join(dir, 'stdout');
  const run = spawnSync('script', ['-qefc', `${command} >${shQuote(out)}`, '/dev/null'], {
    encoding: 'utf8',
    timeout: 60_000,
  });
  return {
    status: run.status,
    // eslint-disable-next-line no-control-regex -- ANSI colour sequences are what is removed
    stderr: run.stdout.replace(/\x1b\[[0-9;]*m/g, ''),
    stdout: readFileSync(out, 'utf8'),
  };
}

describe('on a terminal', () => {
  it('draws a progress line and a line per check as it is decided, before the table', () => {
    const run = onTerminal(['qualify', '--release-dir', release]);
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/qualifying: \[1\/18\] release-layout/);
    expect(run.stderr).toMatch(/ pass {2}release-layout {2}/);
    expect(run.stderr).toMatch(/ FAIL {2}sha256sums {2}/);
    expect(run.stderr).toMatch(/ skip {2}tarball-extract {2}needs sha256sums/);
    expect(run.stderr.match(/ (pass|FAIL|skip) {2}[a-z0-9-]+ {2}/g)).toHaveLength(18);
    // The table itself went to stdout, whole.
    expect(run.stdout).toMatch(/^refused {2}/);
  });

  it('stdout on the terminal too: each check once on the screen (the table leaves out the lines shown live)', () => {
    const command = [process.execPath, EVALS_BIN, 'qualify', '--release-dir', release].map(shQuote).join(' ');
    const run = spawnSync('script', ['-qefc', command, '/dev/null'], { encoding: 'utf8', timeout: 60_000 });
    expect(run.status).toBe(1);
    // eslint-disable-next-line no-control-regex -- ANSI colour sequences are what is removed
    const shown = run.stdout.replace(/\x1b\[[0-9;]*m/g, '');
    // The passed check: once (live). The failed one: live, then again with its issues.
    expect(shown.match(/ pass {2}release-layout\b/g)).toHaveLength(1);
    expect(shown.match(/ skip {2}tarball-extract\b/g)).toHaveLength(1);
    expect(shown.match(/ FAIL {2}sha256sums\b/g)).toHaveLength(2);
    // eslint-disable-next-line no-control-regex -- the erase before the line is part of what is shown
    expect(shown).toMatch(/(^|\x1b\[K)refused {2}/m);
    expect(shown).not.toMatch(/ +\r?$/m);
    expect(shown).toContain(
      "(each check's line is above, as it was decided; the issues of the failed ones follow)",
    );
    expect(shown).toMatch(/^18 checks: \d+ passed, \d+ failed, \d+ skipped/m);
  });

  it('with --json prints nothing extra', () => {
    const run = onTerminal(['qualify', '--release-dir', release, '--json']);
    expect(run.status).toBe(1);
    expect(run.stderr.replace(/[\r\n]/g, '')).toBe('');
    expect(JSON.parse(run.stdout)).toMatchObject({ qualified: false });
  });
});

describe('not on a terminal', () => {
  it('writes nothing on stderr but the record, on stdout', () => {
    const run = spawnSync(process.execPath, [EVALS_BIN, 'qualify', '--release-dir', release], {
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(run.status).toBe(1);
    expect(run.stderr).toBe('');
    expect(run.stdout).toMatch(/^refused {2}/);
  });
});

describe('when Ctrl-C stops it', () => {
  it('says it was interrupted and cleaned up, and exits 130', async () => {
    const good = (await buildFakeRelease(join(dir, 'good'))).dir;
    const pids = join(dir, 'pnpm.pids');
    const pnpm = await writeExecutable(
      dir,
      'pnpm.sh',
      `#!/bin/sh\n/bin/sleep 300 &\necho "$$ $!" > '${pids}'\nwait\n`,
    );
    const cli = spawn(process.execPath, [EVALS_BIN, 'qualify', '--release-dir', good], {
      env: { ...process.env, PAPERCLIP_EVALS_PNPM: pnpm.path },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    cli.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => cli.on('close', resolve));
    const deadline = Date.now() + 30_000;
    while (!(existsSync(pids) && /\d+ \d+/.test(readFileSync(pids, 'utf8')))) {
      if (Date.now() > deadline) throw new Error(`the install never started (stderr: ${stderr})`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    cli.kill('SIGINT');
    expect(await exited).toBe(130);
    expect(stderr).toMatch(/^evals: interrupted \(SIGINT\): qualification of .* stopped; .*cleaned up/m);
  });
});
