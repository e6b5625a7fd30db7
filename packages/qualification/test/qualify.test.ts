// A good fake release — shaped exactly like upstream's (see support/fake-release.ts) — qualifies end
// to end: every check passes, the record is a valid evals-qualification/v1 document with a receipt,
// and no temporary directory is left behind.
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { qualifyRelease } from '../src/qualify.ts';
import {
  QUALIFICATION_CHECK_IDS,
  qualificationRecordIssues,
  writeQualificationRecord,
} from '../src/record.ts';
import {
  FAKE_VERSION,
  RUNNERD_NAME,
  TARBALL_NAME,
  buildFakeRelease,
} from '@paperclip-evals/test-kit/fake-release';
import { check, createScratch, notPassing } from './support/harness.ts';
import { testPnpm } from '@paperclip-evals/test-kit/pnpm';

import type { QualificationRecord } from '../src/record.ts';
import type { FakeRelease } from '@paperclip-evals/test-kit/fake-release';
import type { Scratch } from './support/harness.ts';

let scratch: Scratch;
let release: FakeRelease;
let record: QualificationRecord;

beforeAll(async () => {
  scratch = await createScratch('good');
  release = await buildFakeRelease(join(scratch.releases, 'good'));
  record = await qualifyRelease({
    releaseDir: release.dir,
    tempDir: scratch.work,
    pnpm: testPnpm(),
    evaluatedAt: '2026-11-30T12:00:00Z',
  });
});

afterAll(async () => {
  await scratch.remove();
});

describe('when the release is good', () => {
  it('qualifies it, every check passing', () => {
    expect(notPassing(record)).toEqual([]);
    expect(record.qualified).toBe(true);
    expect(record.evaluator).toEqual({
      name: '@paperclip-evals/qualification',
      version: '0.1.0',
      node: process.version,
      platform: process.platform,
      arch: process.arch,
    });
    expect(record.checks.map((c) => c.id)).toEqual([...QUALIFICATION_CHECK_IDS]);
  });

  it('ran an eval session with the resolved runnerd, and checked the App record against it', () => {
    expect(check(record, 'runnerd-eval-session').detail).toMatch(
      /paperclip-runner-eval-session ran attempt_evals_qualification_0001 \(deny_tool\) on runnerd sha256:[0-9a-f]{64}: .*1 denial\(s\), 3 referenced files verified/,
    );
    expect(check(record, 'runnerd-eval-session').detail).toContain(record.runnerd.sha256!);
    expect(check(record, 'native-execution-fixture').detail).toMatch(
      /refuse its 3 broken variants \(usage-total-tokens-off-by-one, run-terminal-event-removed, denial-removed\)/,
    );
    expect(check(record, 'app-record').status).toBe('pass');
  });

  it('writes a record its own schema accepts', () => {
    expect(qualificationRecordIssues(record)).toEqual([]);
    expect(qualificationRecordIssues(JSON.parse(JSON.stringify(record)))).toEqual([]);
  });

  it('identifies the package and runnerd, and keeps the receipt', async () => {
    expect(record.package).toMatchObject({
      name: '@paperclipai/paperclip-runner',
      version: FAKE_VERSION,
      tarball: TARBALL_NAME,
    });
    expect(record.package.tarballSha256).toBe(record.digests.files[TARBALL_NAME]);
    expect(record.runnerd).toMatchObject({ file: RUNNERD_NAME, buildProfile: 'release' });
    expect(record.runnerd.byteSize).toBe((await readFile(release.runnerd)).byteLength);
    expect(record.receipt).toMatchObject({
      schema: 'paperclip-runner/evals-integration/v1',
      consumer: 'paperclip-evals',
      packageVersion: FAKE_VERSION,
      negotiatedPrpVersion: 1,
      driverKind: 'paperclip-deterministic',
    });
  });

  it('negotiates with the committed requirements, completed from the release', () => {
    expect(record.consumerRequirements).toMatchObject({
      consumer: 'paperclip-evals',
      packageVersion: FAKE_VERSION,
      prp: { minimumVersion: 1, maximumVersion: 1 },
      driver: {
        contractVersion: 1,
        requiredCapabilities: ['interruption', 'resume', 'structuredResult', 'typedEvents'],
        descriptor: { kind: 'paperclip-deterministic', protocolVersion: 'prp.v1' },
      },
    });
    expect(record.consumerRequirements).not.toHaveProperty('x_filledAtQualification');
  });

  it('records the digests of what it verified', () => {
    expect(Object.keys(record.digests.files).sort()).toEqual(
      [TARBALL_NAME, RUNNERD_NAME, 'paperclip-runner-consumer-conformance.json'].sort(),
    );
    for (const digest of [
      record.digests.sha256sums,
      record.digests.buildMetadata,
      record.digests.semanticCatalog,
      record.digests.nativeExecutionSchema,
      record.digests.seededFixture,
      record.digests.consumerRequirements,
    ]) {
      expect(digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    }
  });

  it('carries the caller-supplied time, and reads no clock of its own', () => {
    expect(record.evaluatedAt).toBe('2026-11-30T12:00:00Z');
  });

  it('removes every temporary directory it made', async () => {
    expect(await scratch.leftovers()).toEqual([]);
  });

  it('leaves the release directory as it found it', async () => {
    expect((await readdir(release.dir)).sort()).toEqual(
      ['SHA256SUMS', TARBALL_NAME, RUNNERD_NAME, 'paperclip-runner-consumer-conformance.json'].sort(),
    );
  });
});

describe('when evaluatedAt is not a date-time', () => {
  it('throws before touching anything', async () => {
    await expect(
      qualifyRelease({ releaseDir: release.dir, tempDir: scratch.work, evaluatedAt: 'yesterday' }),
    ).rejects.toThrow(TypeError);
    expect(await scratch.leftovers()).toEqual([]);
  });
});

describe('writeQualificationRecord', () => {
  it('writes the record atomically and leaves no temporary file', async () => {
    const out = join(scratch.releases, 'record.json');
    await writeQualificationRecord(out, record);
    expect(JSON.parse(await readFile(out, 'utf8'))).toEqual(JSON.parse(JSON.stringify(record)));
    expect((await readdir(scratch.releases)).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });
});
