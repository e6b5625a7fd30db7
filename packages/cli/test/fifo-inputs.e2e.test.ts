// A FIFO at every path a user gives the CLI to read (an environment, a store, a policy bundle, a
// qualification or campaign record, build metadata, a release file, a file to digest, the
// eval-session bin): each command ends at once with a coded error, never blocks on the FIFO (no writer
// ever opens it), and leaves the FIFO a FIFO.
import { spawnSync } from 'node:child_process';
import { lstatSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { EVALS_BIN, REPO_ROOT } from '@paperclip-evals/test-kit/repo';
import { syntheticAttempt } from '@paperclip-evals/test-kit/synthetic';

const ENV = join(REPO_ROOT, 'fixtures/environments/demo/evalbook.yaml');
/** Far more than any of these commands takes; a command blocked on the FIFO is killed at this bound. */
const HANG_MS = 20_000;

let dir: string;
const run = (args: readonly string[]) =>
  spawnSync(process.execPath, [EVALS_BIN, ...args], {
    cwd: dir,
    encoding: 'utf8',
    timeout: HANG_MS,
    killSignal: 'SIGKILL',
  });

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'evals-fifo-inputs-'));
  mkdirSync(join(dir, 'runs'));
  writeFileSync(join(dir, 'runs', 'a0.json'), JSON.stringify(syntheticAttempt({ attemptId: 'a0' })));
  expect(run(['ingest', 'runs', '--store', 'sqlite:good.sqlite']).status).toBe(0);
  expect(spawnSync('mkfifo', [join(dir, 'f.fifo')]).status).toBe(0);
  mkdirSync(join(dir, 'release'));
  expect(spawnSync('mkfifo', [join(dir, 'release', 'paperclip-runner.tgz')]).status).toBe(0);
  writeFileSync(join(dir, 'release', 'SHA256SUMS'), `${'0'.repeat(64)}  paperclip-runner.tgz\n`);
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

const FIFO = 'f.fifo';
const DIGEST = `sha256:${'0'.repeat(64)}`;

/** [what the FIFO is, the command, what its error (on stderr, or qualify's record on stdout) must say]. */
const TABLE: readonly (readonly [string, readonly string[], RegExp])[] = [
  ['--env of a report', ['grid', '--store', 'sqlite:good.sqlite', '--env', FIFO], /environment_not_a_file/],
  [
    '--env of ingest',
    ['ingest', 'runs', '--store', 'sqlite:new.sqlite', '--env', FIFO],
    /environment_not_a_file/,
  ],
  ['--env of run --plan', ['run', '--env', FIFO, '--campaign', 'c1', '--plan'], /environment_not_a_file/],
  ['the store of a report', ['grid', '--store', `sqlite:${FIFO}`], /store_not_a_file/],
  [
    'the store of report --format json',
    ['report', '--store', `sqlite:${FIFO}`, '--format', 'json'],
    /store_not_a_file/,
  ],
  [
    'the store of ingest',
    ['ingest', 'runs', '--store', `sqlite:${FIFO}`],
    /output_is_stream|store_not_a_file/,
  ],
  [
    'the policy bundle',
    ['policy', 'replay', '--policy-binary', process.execPath, '--sha256', DIGEST, '--bundle', FIFO, 'runs'],
    /EINVAL|not a regular file/,
  ],
  [
    'build metadata',
    [
      'negotiate',
      '--package-metadata',
      FIFO,
      '--requirements',
      FIFO,
      '--catalog',
      FIFO,
      '--runnerd',
      FIFO,
      '--runnerd-sha256',
      DIGEST,
    ],
    /EINVAL|not a regular file/,
  ],
  ['a file to digest', ['digest', FIFO], /EINVAL|not a regular file/],
  ['a release file', ['qualify', '--release-dir', 'release', '--out', 'q.json'], /not a regular file/],
  [
    'the qualification record',
    [
      'run',
      '--env',
      ENV,
      '--campaign',
      'c1',
      '--release-dir',
      'release',
      '--qualification',
      FIFO,
      '--out',
      'c.json',
    ],
    /EINVAL|not a regular file|FIFO/,
  ],
  [
    'the eval-session bin',
    [
      'run',
      '--env',
      ENV,
      '--campaign',
      'c1',
      '--release-dir',
      'release',
      '--eval-session-bin',
      FIFO,
      '--eval-session-sha256',
      DIGEST,
      '--out',
      'c.json',
    ],
    /EINVAL|not a regular file|FIFO|eval_session_bin/,
  ],
];

describe('a FIFO given as an input', () => {
  it.each(TABLE)('%s: ends quickly with a coded error', (_what, args, code) => {
    const result = run(args);
    expect(result.signal, `blocked on the FIFO: ${result.stderr}`).toBeNull();
    expect(result.status, result.stderr).not.toBe(0);
    expect(result.status, result.stderr).not.toBe(70);
    expect(`${result.stdout}${result.stderr}`).toMatch(code);
    expect(lstatSync(join(dir, FIFO)).isFIFO()).toBe(true);
  });
});
