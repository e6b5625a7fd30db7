// A runnerd's build metadata may carry fields beyond upstream's (additive: kept in the record), and
// one of them may be a self-declared `buildProfile` (upstream's runnerd prints none: the gate's
// record is what proves a release build). The review found a runnerd declaring "debug" verified all
// the same. Its own word can only contradict the record: "debug" where the record says "release"
// fails app-record with runnerd_build_profile_mismatch; "release", or no profile, changes nothing.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { qualifyRelease } from '../src/qualify.ts';
import { RUNNERD_NAME, buildFakeRelease } from '@paperclip-evals/test-kit/fake-release';
import { check, createScratch, notPassing } from './support/harness.ts';
import { testPnpm } from '@paperclip-evals/test-kit/pnpm';

import type { QualificationRecord } from '../src/record.ts';
import type { Scratch } from './support/harness.ts';

const VARIANTS = {
  declaresDebug: { buildProfile: 'debug', prpTransportModes: ['stdio'], buildHost: 'ci-7' },
  declaresRelease: { buildProfile: 'release', buildHost: 'ci-7' },
} as const;

let scratch: Scratch;
const records = new Map<keyof typeof VARIANTS, QualificationRecord>();

beforeAll(async () => {
  scratch = await createScratch('self-declared');
  await Promise.all(
    (Object.keys(VARIANTS) as (keyof typeof VARIANTS)[]).map(async (name) => {
      const release = await buildFakeRelease(join(scratch.releases, name), {
        runnerdExtraMetadata: VARIANTS[name],
      });
      records.set(
        name,
        await qualifyRelease({ releaseDir: release.dir, tempDir: scratch.work, pnpm: testPnpm() }),
      );
    }),
  );
});
afterAll(async () => {
  await scratch.remove();
});

describe('when runnerd declares itself a debug build and the gate record says release', () => {
  it('fails app-record with runnerd_build_profile_mismatch, and nothing else', () => {
    const record = records.get('declaresDebug')!;
    expect(notPassing(record)).toEqual(['app-record:fail']);
    expect(check(record, 'app-record').issues).toEqual([
      expect.objectContaining({
        code: 'runnerd_build_profile_mismatch',
        file: RUNNERD_NAME,
        expected: 'release',
        received: 'debug',
      }),
    ]);
  });

  it('keeps every field runnerd printed in the record', () => {
    expect(records.get('declaresDebug')!.runnerd.buildMetadata).toMatchObject(VARIANTS.declaresDebug);
  });
});

describe('when runnerd declares the release build the record states', () => {
  it('qualifies, its extra fields kept', () => {
    const record = records.get('declaresRelease')!;
    expect(notPassing(record)).toEqual([]);
    expect(record.runnerd.buildMetadata).toMatchObject(VARIANTS.declaresRelease);
  });
});
