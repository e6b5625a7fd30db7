// Nothing of a release is used before its SHA256SUMS digest matched: verifiedDigest gives a file's
// listed digest only when the file's computed digest is that digest (and SHA256SUMS parsed), and the
// checks that extract, run or read a file compare what they use with that listed digest, never with
// the digest computed a moment before (the review found tarball-extract comparing the computed
// digest with itself, so tarball_changed could never fire). In-process: the checks are run directly
// with the values the checks before them would give.
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sha256Digest } from '@paperclip-evals/contract';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { appRecord } from '../src/checks/app-record.ts';
import { runnerdResolve } from '../src/checks/runnerd-resolve.ts';
import { tarballExtract } from '../src/checks/tarball-extract.ts';
import { readReleaseLayout, runnerdFileName, verifiedDigest, verifySha256Sums } from '../src/release-dir.ts';

import type { CheckInputs, CheckValues, QualificationInput } from '../src/checks/context.ts';
import type { Sha256SumsVerification } from '../src/release-dir.ts';

const RUNNERD = runnerdFileName();
const APP_RECORD = 'paperclip-runner-consumer-conformance.json';
const FILES = { 'r.tgz': 'tarball bytes', [RUNNERD]: 'runnerd bytes', [APP_RECORD]: '{}' };
const hex = (text: string): string => sha256Digest(text).slice('sha256:'.length);

describe('verifiedDigest', () => {
  const sums = (
    listed: Record<string, string>,
    computed: Record<string, string>,
    issues: string[] = [],
  ): Sha256SumsVerification => {
    const expected = new Map(Object.entries(listed).map(([file, text]) => [file, sha256Digest(text)]));
    const digests = Object.fromEntries(
      Object.entries(computed).map(([file, text]) => [file, sha256Digest(text)]),
    );
    const verified = new Map([...expected].filter(([file, digest]) => digests[file] === digest));
    return {
      sumsSha256: null,
      expected,
      computed: digests,
      verified: issues.length === 0 ? verified : new Map(),
      verifiedCount: verified.size,
      issues: issues.map((code) => ({ code, message: code })),
    };
  };

  it('gives the listed digest exactly when the file matched it, and a reason otherwise', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...Object.keys(FILES)),
        fc.option(fc.string(), { nil: undefined }),
        fc.option(fc.string(), { nil: undefined }),
        (file, listed, actual) => {
          const found = verifiedDigest(
            sums(
              listed === undefined ? {} : { [file]: listed },
              actual === undefined ? {} : { [file]: actual },
            ),
            file,
          );
          if (listed !== undefined && actual === listed)
            expect(found).toEqual({ sha256: sha256Digest(listed) });
          else expect(found).toEqual({ why: expect.stringContaining(file) as unknown });
        },
      ),
    );
  });

  it('verifies nothing when SHA256SUMS itself does not parse, even the lines that did', () => {
    for (const code of ['sums_line_malformed', 'sums_duplicate_entry', 'sums_not_utf8', 'sums_too_large']) {
      expect(verifiedDigest(sums(FILES, FILES, [code]), 'r.tgz'), code).toEqual({
        why: 'SHA256SUMS does not parse, so r.tgz is unverified',
      });
    }
  });
});

describe('the checks that use a file of the release', () => {
  let root: string;
  let dir: string;
  let sums: Sha256SumsVerification;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'qualification-verified-files-'));
    dir = join(root, 'release');
    await mkdir(dir);
    for (const [file, content] of Object.entries(FILES)) await writeFile(join(dir, file), content);
    await writeFile(
      join(dir, 'SHA256SUMS'),
      Object.entries(FILES)
        .map(([file, content]) => `${hex(content)}  ${file}\n`)
        .join(''),
    );
    sums = await verifySha256Sums(dir, await readReleaseLayout(dir));
    expect(sums.issues).toEqual([]);
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  /** A private work dir and the values the checks before would give (sums as given). */
  const run = async (
    check: typeof tarballExtract,
    given: Partial<CheckValues>,
  ): Promise<Awaited<ReturnType<typeof tarballExtract.run>>> => {
    const workDir = await mkdtemp(join(root, 'work-'));
    const layout = await readReleaseLayout(dir);
    const values: Partial<CheckValues> = { 'release-layout': layout, sha256sums: sums, ...given };
    const inputs: CheckInputs = {
      need: (id) => {
        const value = values[id];
        if (value === undefined) throw new Error(`test: no value for ${id}`);
        return value as never;
      },
      found: (id) => values[id] as never,
    };
    const input: QualificationInput = {
      releaseDir: dir,
      workDir,
      options: { releaseDir: dir },
      baseRequirements: {} as QualificationInput['baseRequirements'],
      layout,
    };
    return check.run(input, inputs);
  };

  /** SHA256SUMS as verified, but listing another digest for `file` (as if its bytes changed after). */
  const listedOtherwise = (file: string): Sha256SumsVerification => {
    const other = sha256Digest('other bytes');
    return {
      ...sums,
      expected: new Map([...sums.expected, [file, other]]),
      verified: new Map([...sums.verified, [file, other]]),
    };
  };

  it('tarball-extract: a copy that is not the bytes SHA256SUMS lists is tarball_changed, and nothing is extracted', async () => {
    const outcome = await run(tarballExtract, { sha256sums: listedOtherwise('r.tgz') });
    expect(outcome).toMatchObject({
      status: 'fail',
      issues: [
        {
          code: 'tarball_changed',
          file: 'r.tgz',
          expected: sha256Digest('other bytes'),
          received: sha256Digest('tarball bytes'),
        },
      ],
    });
    expect('value' in outcome ? outcome.value : undefined).toBeUndefined();
  });

  it.each([
    ['tarball-extract', tarballExtract, 'r.tgz'],
    ['runnerd-resolve', runnerdResolve, RUNNERD],
  ] as const)(
    '%s: a file whose digest did not match is skipped "needs sha256sums", unused',
    async (_id, check, file) => {
      const unverified = { ...sums, verified: new Map([...sums.verified].filter(([name]) => name !== file)) };
      const outcome = await run(check, { sha256sums: unverified });
      expect(outcome).toMatchObject({
        status: 'skipped',
        unmet: [
          {
            need: 'sha256sums',
            why: `${file} does not match its SHA256SUMS digest, so nothing of it is used`,
          },
        ],
      });
    },
  );

  it('app-record: the record read is judged only when its bytes are the ones SHA256SUMS lists', async () => {
    const given = {
      'tarball-extract': { sha256: sha256Digest('tarball bytes'), packageDir: null },
      'build-metadata': {
        package: { name: '@paperclipai/paperclip-runner', version: '0.4.0' },
      } as CheckValues['build-metadata'],
    } as const;
    expect(await run(appRecord, { ...given, sha256sums: listedOtherwise(APP_RECORD) })).toMatchObject({
      status: 'fail',
      issues: [{ code: 'app_record_changed', file: APP_RECORD, received: sha256Digest('{}') }],
    });
    const unverified = {
      ...sums,
      verified: new Map([...sums.verified].filter(([name]) => name !== RUNNERD)),
    };
    expect(await run(appRecord, { ...given, sha256sums: unverified })).toMatchObject({
      status: 'skipped',
      unmet: [{ need: 'sha256sums', why: expect.stringContaining(RUNNERD) as unknown }],
    });
    // The release's own record ({}) is judged once verified: it is not upstream's record.
    expect(await run(appRecord, given)).toMatchObject({
      status: 'fail',
      issues: [{ code: 'app_record_schema_unknown' }],
    });
    expect(await readFile(join(dir, APP_RECORD), 'utf8')).toBe('{}');
  });

  it('app-record: a record grown past its limit after it was verified is refused by its size, never read (a sparse 8 GiB file)', async () => {
    const given = {
      'tarball-extract': { sha256: sha256Digest('tarball bytes'), packageDir: null },
      'build-metadata': {
        package: { name: '@paperclipai/paperclip-runner', version: '0.4.0' },
      } as CheckValues['build-metadata'],
    } as const;
    const path = join(dir, APP_RECORD);
    await truncate(path, 8 * 1024 * 1024 * 1024);
    try {
      const bytesRead = (): number =>
        Number(/^rchar: (\d+)$/m.exec(readFileSync('/proc/self/io', 'utf8'))?.[1]);
      const before = bytesRead();
      const outcome = await run(appRecord, given);
      expect(bytesRead() - before).toBeLessThan(64 * 1024 * 1024);
      expect(outcome).toMatchObject({
        status: 'fail',
        issues: [{ code: 'input_too_large', file: APP_RECORD }],
      });
    } finally {
      await writeFile(path, '{}');
    }
  });
});
