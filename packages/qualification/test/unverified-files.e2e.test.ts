// A mutation table over the files of a release qualification uses (the tarball, runnerd, the App's
// clean-consumer record): each file's digest altered in SHA256SUMS, and each file's bytes altered
// after SHA256SUMS was written. Either way sha256sums fails, every check that would extract, run or
// read that file is skipped "needs sha256sums: <file> does not match its SHA256SUMS digest", the
// checks that use only verified files still run, and nothing ran from the unverified file: the
// fake release's programs each append a line to a marker file when they run (the package's root
// entry point when imported, runnerd, the eval-session bin). The review found the package's code
// and its eval-session bin running from a tarball whose digest did not match (17 of 18 checks
// passing).
import { appendFile, readFile, writeFile } from 'node:fs/promises';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { qualifyRelease } from '../src/qualify.ts';
import { QUALIFICATION_CHECK_IDS } from '../src/record.ts';
import {
  APP_RECORD_NAME,
  RUNNERD_NAME,
  TARBALL_NAME,
  buildFakeRelease,
} from '@paperclip-evals/test-kit/fake-release';
import { check, createScratch } from './support/harness.ts';
import { testPnpm } from '@paperclip-evals/test-kit/pnpm';

import type { QualificationCheckId, QualificationRecord } from '../src/record.ts';
import type { Scratch } from './support/harness.ts';

type File = 'tarball' | 'runnerd' | 'appRecord';

const NAMES: Record<File, string> = {
  tarball: TARBALL_NAME,
  runnerd: RUNNERD_NAME,
  appRecord: APP_RECORD_NAME,
};

/** The checks each file's use skips when it is unverified (every other check but sha256sums passes). */
const SKIPPED: Record<File, readonly QualificationCheckId[]> = {
  tarball: QUALIFICATION_CHECK_IDS.filter(
    (id) => !['release-layout', 'sha256sums', 'runnerd-resolve'].includes(id),
  ),
  runnerd: [
    'runnerd-resolve',
    'app-record',
    'negotiation',
    'negotiation-fails-closed',
    'runnerd-eval-session',
  ],
  appRecord: ['app-record'],
};

/** What ran, by marker line kind, when `file` is unverified (nothing of that file among them). */
const RAN: Record<File, readonly string[]> = {
  tarball: ['runnerd --build-metadata'],
  runnerd: ['package loaded'],
  appRecord: ['package loaded', 'runnerd --build-metadata', 'eval-session'],
};

const CASES = (['tarball', 'runnerd', 'appRecord'] as const).flatMap((file) =>
  (['listed', 'bytes'] as const).map((mutation) => ({ file, mutation, key: `${file}-${mutation}` })),
);

let scratch: Scratch;
const records = new Map<string, QualificationRecord>();
const markers = new Map<string, string>();
const marked = (key: string): string[] => {
  const path = markers.get(key)!;
  const lines = existsSync(path) ? readFileSync(path, 'utf8').split('\n').filter(Boolean) : [];
  return [...new Set(lines)].sort();
};

/** Flips the first hex digit of `name`'s line in SHA256SUMS. */
async function alterListedDigest(dir: string, name: string): Promise<void> {
  const path = join(dir, 'SHA256SUMS');
  const lines = (await readFile(path, 'utf8')).split('\n');
  const index = lines.findIndex((line) => line.endsWith(`  ${name}`));
  if (index < 0) throw new Error(`SHA256SUMS does not list ${name}`);
  const line = lines[index]!;
  lines[index] = `${line[0] === '0' ? '1' : '0'}${line.slice(1)}`;
  await writeFile(path, lines.join('\n'));
}

beforeAll(async () => {
  scratch = await createScratch('unverified');
  await Promise.all(
    CASES.map(async ({ file, mutation, key }) => {
      const marker = join(scratch.releases, '..', `${key}.marker`);
      markers.set(key, marker);
      const release = await buildFakeRelease(join(scratch.releases, key), { marker });
      // Bytes a program would still run with: a runnerd with a trailing newline, a tarball with bytes
      // after its end (read up to its end-of-archive marker), an App record with trailing space.
      if (mutation === 'listed') await alterListedDigest(release.dir, NAMES[file]);
      else await appendFile(join(release.dir, NAMES[file]), '\n');
      records.set(
        key,
        await qualifyRelease({ releaseDir: release.dir, tempDir: scratch.work, pnpm: testPnpm() }),
      );
    }),
  );
});

afterAll(async () => {
  await scratch.remove();
});

describe.each(CASES)('when $file is unverified ($mutation altered)', ({ file, key }) => {
  it('fails sha256sums with digest_mismatch naming the file', () => {
    const record = records.get(key)!;
    expect(check(record, 'sha256sums').issues).toEqual([
      expect.objectContaining({ code: 'digest_mismatch', file: NAMES[file] }),
    ]);
    expect(record.qualified).toBe(false);
  });

  it('skips every check that would use it, "needs sha256sums", and runs every other', () => {
    const record = records.get(key)!;
    const reason = `needs sha256sums: ${NAMES[file]} does not match its SHA256SUMS digest, so nothing of it is used`;
    const statuses = Object.fromEntries(record.checks.map((c) => [c.id, c.status]));
    const expected = Object.fromEntries(
      QUALIFICATION_CHECK_IDS.map((id) => [
        id,
        id === 'sha256sums' ? 'fail' : SKIPPED[file].includes(id) ? 'skipped' : 'pass',
      ]),
    );
    expect(statuses).toEqual(expected);
    for (const id of SKIPPED[file]) expect(check(record, id).detail, id).toBe(reason);
  });

  it('runs nothing from it: only the verified files ran', () => {
    expect(marked(key)).toEqual([...RAN[file]].sort());
  });

  it('leaves no work directory behind', async () => {
    expect(await scratch.leftovers()).toEqual([]);
  });
});
