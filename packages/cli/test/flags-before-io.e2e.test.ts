// Every flag is checked before any I/O: a malformed digest flag is refused (exit 2, naming the flag)
// before the command reads a file, qualifies a release or connects to a store — here a PostgreSQL
// host that does not resolve and files that do not exist, which would otherwise be what is reported.
// A table over every command that takes a digest flag, in-process.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { evalsInProcess } from './support/evals-in-process.ts';

const UNREACHABLE = 'postgres://u:pw@nonexistent.invalid/db';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'evals-flags-before-io-'));
  writeFileSync(join(dir, 'e.yaml'), 'not: an environment\n');
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** [command, argv, the flag the refusal names]. */
const ROWS: [string, string[], string][] = [
  [
    'policy replay',
    [
      'policy',
      'replay',
      '--policy-binary',
      '/bin/true',
      '--sha256',
      'x',
      '--bundle',
      'missing.json',
      '--store',
      UNREACHABLE,
    ],
    '--sha256',
  ],
  [
    'policy replay (files)',
    [
      'policy',
      'replay',
      '--policy-binary',
      '/bin/true',
      '--sha256',
      'SHA256:AB',
      '--bundle',
      'missing.json',
      'missing-attempt.json',
    ],
    '--sha256',
  ],
  [
    'ingest',
    ['ingest', 'missing.json', '--runnerd-sha256', 'bad', '--store', UNREACHABLE],
    '--runnerd-sha256',
  ],
  [
    'run',
    [
      'run',
      '--release-dir',
      'no-release',
      '--env',
      'e.yaml',
      '--campaign',
      'c1',
      '--eval-session-bin',
      '/bin/true',
      '--eval-session-sha256',
      'bad',
      '--store',
      UNREACHABLE,
    ],
    '--eval-session-sha256',
  ],
  [
    'runnerd inspect',
    ['runnerd', 'inspect', '--path', 'missing-runnerd', '--sha256', 'bad'],
    'digest_invalid',
  ],
];

describe('when a digest flag is malformed', () => {
  it.each(ROWS)(
    '%s: refused first, naming the flag, before any file, release or store is touched',
    async (_, args, flag) => {
      const result = await evalsInProcess(args, dir);
      expect(result.status === 2 || result.status === 4, result.stderr).toBe(true);
      expect(result.stderr).toContain(flag);
      expect(result.stderr).not.toMatch(
        /ENOTFOUND|EAI_AGAIN|ENOENT|no such file|not qualified|SHA256SUMS|store_unusable|cannot open/,
      );
    },
  );
});
